/*
 * mcp_compat.c - the reference MCP filesystem server's tools on top of the
 * toolbox's own (see ws/mcp_compat.h).
 *
 * Every compat call is a translation: its arguments are checked the way
 * the reference's schemas check them, its paths are mapped from real
 * absolute paths to the native virtual view, one or more native calls do
 * the work (the native resolver decides containment, guards and policies:
 * nothing here opens a file), and the native outputs are rendered as the
 * reference renders its results, byte for byte where the toolbox knows as
 * much as the reference does.  Where the two differ on purpose (stricter
 * containment, exact edits), the result says why.
 */
#include "ws/mcp_compat.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/glob.h"
#include "ws/json.h"
#include "ws/path.h"

#include "mcp_compat_tools.h"

/* Bounds on what one compat call gathers through native pages: the
 * reference reads whole files and directories, but a 256 MiB text result
 * is already more than any client takes. */
#define WS__MC_MAX_TEXT (256LL * 1024 * 1024)
#define WS__MC_PAGE_BYTES (1024LL * 1024)
#define WS__MC_PAGE_LINES 1000000LL
#define WS__MC_PAGE_ENTRIES 10000LL
#define WS__MC_MEDIA_MAX (64LL * 1024 * 1024)
#define WS__MC_TREE_DEPTH 256

/* One allowed directory. */
struct ws__mc_dir {
	char *real;	/* resolved through symlinks */
	char *spelled;	/* made absolute and normalised; NULL if == real */
	char *vprefix;	/* "/" or "/.NAME" */
};

struct ws_mcp_compat_fs {
	struct ws__mc_dir *d;
	size_t n;
};

/* One compat call in progress. */
struct ws__mc_call {
	const struct ws_mcp_compat_fs *c;
	ws_mcp_native_fn fn;
	void *arg;
};

/* ------------------------------------------------------------------ */
/* A growing string                                                     */

struct ws__sb {
	char *s;
	size_t len, cap;
	bool oom;
};

static void
sb_addn(struct ws__sb *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->s, cap);
		if (p == NULL) {
			b->oom = true;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void
sb_add(struct ws__sb *b, const char *s)
{
	sb_addn(b, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3)))
sb_addf(struct ws__sb *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		sb_addn(b, small, (size_t)n);
		return;
	}
	{
		char *big = malloc((size_t)n + 1);

		if (big == NULL) {
			b->oom = true;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		sb_addn(b, big, (size_t)n);
		free(big);
	}
}

static void
sb_pad(struct ws__sb *b, size_t n)
{
	while (n-- > 0)
		sb_addn(b, " ", 1);
}

/* The string so far ("" if empty); NULL when out of memory. */
static char *
sb_take(struct ws__sb *b)
{
	if (b->oom) {
		free(b->s);
		b->s = NULL;
		return NULL;
	}
	if (b->s == NULL)
		return strdup("");
	return b->s;
}

/* ------------------------------------------------------------------ */
/* Results                                                              */

/* A successful result: the text both as content and as the reference's
 * structuredContent {"content": text}. */
static cJSON *
text_result(const char *text)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *content = cJSON_AddArrayToObject(r, "content");
	cJSON *block = cJSON_CreateObject();
	cJSON *sc;

	if (r == NULL || content == NULL || block == NULL) {
		cJSON_Delete(block);
		cJSON_Delete(r);
		return NULL;
	}
	cJSON_AddItemToArray(content, block);
	cJSON_AddStringToObject(block, "type", "text");
	cJSON_AddStringToObject(block, "text", text);
	sc = cJSON_AddObjectToObject(r, "structuredContent");
	if (sc == NULL || cJSON_AddStringToObject(sc, "content", text) == NULL) {
		cJSON_Delete(r);
		return NULL;
	}
	return r;
}

/* A tool error, as the reference's SDK renders a thrown Error. */
static cJSON *
error_result(const char *msg)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *content = cJSON_AddArrayToObject(r, "content");
	cJSON *block = cJSON_CreateObject();

	if (r == NULL || content == NULL || block == NULL) {
		cJSON_Delete(block);
		cJSON_Delete(r);
		return NULL;
	}
	cJSON_AddItemToArray(content, block);
	cJSON_AddStringToObject(block, "type", "text");
	cJSON_AddStringToObject(block, "text", msg);
	cJSON_AddBoolToObject(r, "isError", 1);
	return r;
}

static cJSON * __attribute__((format(printf, 1, 2)))
error_resultf(const char *fmt, ...)
{
	char *msg = NULL;
	cJSON *r;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (msg == NULL)
		return NULL;
	r = error_result(msg);
	free(msg);
	return r;
}

/* ------------------------------------------------------------------ */
/* Paths                                                                */

static char *
norm_abs(const char *p)
{
	char *out = NULL;

	if (ws_path_normalize(p, WS_NORM_CLAMP, &out) < 0)
		return NULL;
	return out;
}

/* The directory containing the normalised absolute path abs (the longest
 * real or spelled path that does), with *rest the remainder; -1 if none. */
static ssize_t
find_dir(const struct ws_mcp_compat_fs *c, const char *abs, const char **rest)
{
	ssize_t best = -1;
	size_t bestlen = 0;

	for (size_t k = 0; k < c->n; k++) {
		const char *cand[2] = {c->d[k].real, c->d[k].spelled};

		for (int j = 0; j < 2; j++) {
			const char *r;
			size_t len;

			if (cand[j] == NULL || !ws_path_within(cand[j], abs, &r))
				continue;
			len = strlen(cand[j]);
			if (best < 0 || len > bestlen) {
				best = (ssize_t)k;
				bestlen = len;
				*rest = r;
			}
		}
	}
	return best;
}

/* "D1, D2, ..." as the reference lists its allowed directories. */
static char *
dir_list(const struct ws_mcp_compat_fs *c, const char *sep)
{
	struct ws__sb b = {0};
	bool first = true;

	for (size_t k = 0; k < c->n; k++) {
		const char *cand[2] = {c->d[k].spelled, c->d[k].real};

		for (int j = 0; j < 2; j++) {
			if (cand[j] == NULL)
				continue;
			if (!first)
				sb_add(&b, sep);
			sb_add(&b, cand[j]);
			first = false;
		}
	}
	return sb_take(&b);
}

int
ws_mcp_compat_path(const struct ws_mcp_compat_fs *c, const char *p,
		   char **native, char **real)
{
	char *abs = NULL, *expanded = NULL;
	const char *rest = "";
	ssize_t k;
	int rc;

	*native = NULL;
	if (real != NULL)
		*real = NULL;
	if (ws_path_check(p, strlen(p)) < 0)
		return ws_error_last_code();
	/* "~" and "~/x" are the home directory, as the reference has it. */
	if (p[0] == '~' && (p[1] == '\0' || p[1] == '/')) {
		const char *home = getenv("HOME");

		if (home != NULL && home[0] == '/') {
			if (asprintf(&expanded, "%s%s", home, p + 1) < 0)
				return ws_error_set(WS_ENOMEM, p, "out of memory");
			p = expanded;
		}
	}
	if (p[0] == '/') {
		abs = norm_abs(p);
	} else {
		/* The first allowed directory (as spelled, then as resolved)
		 * under which the joined path stays, else the first one. */
		for (size_t i = 0; i < c->n && abs == NULL; i++) {
			const char *cand[2] = {c->d[i].spelled, c->d[i].real};

			for (int j = 0; j < 2 && abs == NULL; j++) {
				char *joined, *n;

				if (cand[j] == NULL)
					continue;
				joined = ws_path_join(cand[j], p);
				n = joined ? norm_abs(joined) : NULL;
				free(joined);
				if (n != NULL && find_dir(c, n, &rest) >= 0)
					abs = n;
				else
					free(n);
			}
		}
		if (abs == NULL) {
			char *joined = ws_path_join(c->d[0].spelled ? c->d[0].spelled
								     : c->d[0].real, p);

			abs = joined ? norm_abs(joined) : NULL;
			free(joined);
		}
	}
	free(expanded);
	if (abs == NULL)
		return ws_error_set(WS_ENOMEM, p, "out of memory");
	k = find_dir(c, abs, &rest);
	if (k < 0) {
		char *list = dir_list(c, ", ");

		rc = ws_error_set(WS_EPATH_OUTSIDE_WORKSPACE, abs,
				  "Access denied - path outside allowed directories: "
				  "%s not in %s", abs, list ? list : "");
		free(list);
		free(abs);
		return rc;
	}
	/*
	 * In the virtual view a mount hides the workspace entry of its name:
	 * "<workspace>/.NAME/x" would reach the mount, another directory
	 * than the one the client named.  Refused, with the way round.
	 */
	if (strcmp(c->d[k].vprefix, "/") == 0) {
		for (size_t j = 0; j < c->n; j++) {
			const char *r2;

			if (j == (size_t)k || strcmp(c->d[j].vprefix, "/") == 0)
				continue;
			if (ws_path_within(c->d[j].vprefix + 1, rest, &r2)) {
				rc = ws_error_set(WS_EINVALID_PATH, abs,
						  "Access denied - %s: the entry %s of %s is "
						  "hidden by the allowed directory %s, which "
						  "the server mounts at that name; name files "
						  "of %s by its own path (INVALID_PATH)", abs,
						  c->d[j].vprefix + 1, c->d[k].real,
						  c->d[j].real, c->d[j].real);
				free(abs);
				return rc;
			}
		}
	}
	/* A relative virtual path: "." for the root, ".NAME/x" in a mount.
	 * Never an absolute one, which the native resolver could read as a
	 * real path lexically inside the root. */
	{
		const char *vp = c->d[k].vprefix;
		int n;

		if (strcmp(vp, "/") == 0)
			n = asprintf(native, "%s", rest[0] ? rest : ".");
		else
			n = asprintf(native, "%s%s%s", vp + 1, rest[0] ? "/" : "", rest);
		if (n < 0) {
			*native = NULL;
			free(abs);
			return ws_error_set(WS_ENOMEM, p, "out of memory");
		}
	}
	if (real != NULL) {
		*real = ws_path_join(c->d[k].real, rest);
		if (*real == NULL) {
			free(*native);
			*native = NULL;
			free(abs);
			return ws_error_set(WS_ENOMEM, p, "out of memory");
		}
	}
	free(abs);
	return 0;
}

char *
ws_mcp_compat_real(const struct ws_mcp_compat_fs *c, const char *vpath)
{
	size_t best = 0, bestlen = 0;
	const char *rest = vpath[0] == '/' ? vpath + 1 : vpath;

	for (size_t k = 1; k < c->n; k++) {
		const char *r;
		size_t len = strlen(c->d[k].vprefix);

		if (ws_path_within(c->d[k].vprefix, vpath, &r) && len > bestlen) {
			best = k;
			bestlen = len;
			rest = r;
		}
	}
	return ws_path_join(c->d[best].real, rest);
}

/* The command line's spellings of the allowed directories (see
 * ws_mcp_compat_alias()); borrowed, set before any server runs. */
#define WS__ALIAS_MAX 64
static struct {
	const char *spelled, *real;
} ws__alias[WS__ALIAS_MAX];
static size_t ws__nalias;

int
ws_mcp_compat_alias(const char *spelled, const char *real)
{
	if (ws__nalias == WS__ALIAS_MAX)
		return ws_error_set(WS_ENOMEM, spelled, "too many allowed directories");
	ws__alias[ws__nalias].spelled = spelled;
	ws__alias[ws__nalias++].real = real;
	return 0;
}

/* The command line's spelling of the resolved directory real, or NULL. */
static const char *
ws__alias_of(const char *real)
{
	for (size_t i = 0; i < ws__nalias; i++)
		if (strcmp(ws__alias[i].real, real) == 0 &&
		    strcmp(ws__alias[i].spelled, real) != 0)
			return ws__alias[i].spelled;
	return NULL;
}

int
ws_mcp_compat_new(const char *const *dirs, const char *const *vprefixes,
		  size_t n, struct ws_mcp_compat_fs **out)
{
	struct ws_mcp_compat_fs *c;
	char cwd[PATH_MAX];

	*out = NULL;
	if (n == 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "compat mode needs at least one allowed directory");
	c = calloc(1, sizeof(*c));
	if (c == NULL || (c->d = calloc(n, sizeof(*c->d))) == NULL) {
		free(c);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	c->n = n;
	for (size_t k = 0; k < n; k++) {
		char *joined = NULL, *spelled, *real;

		if (vprefixes[k] == NULL || vprefixes[k][0] != '/') {
			ws_mcp_compat_free(c);
			return ws_error_set(WS_EINVALID_ARGUMENT, vprefixes[k],
					    "a virtual prefix must be absolute");
		}
		if (dirs[k][0] != '/') {
			if (getcwd(cwd, sizeof(cwd)) == NULL) {
				ws_mcp_compat_free(c);
				return ws_error_errno(errno, dirs[k], "getcwd");
			}
			joined = ws_path_join(cwd, dirs[k]);
		}
		spelled = norm_abs(joined ? joined : dirs[k]);
		free(joined);
		real = spelled ? realpath(spelled, NULL) : NULL;
		if (real == NULL) {
			int rc = spelled == NULL
				     ? ws_error_set(WS_ENOMEM, NULL, "out of memory")
				     : ws_error_set(WS_EWORKSPACE_NOT_FOUND, dirs[k],
						    "%s: cannot resolve the allowed directory: %s",
						    dirs[k], strerror(errno));

			free(spelled);
			ws_mcp_compat_free(c);
			return rc;
		}
		c->d[k].real = real;
		if (strcmp(spelled, real) == 0) {
			/* Given resolved (cmd/wstools.c): its spelling, if any. */
			const char *a = ws__alias_of(real);

			free(spelled);
			if (a != NULL && (c->d[k].spelled = strdup(a)) == NULL) {
				ws_mcp_compat_free(c);
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			}
		} else
			c->d[k].spelled = spelled;
		c->d[k].vprefix = strdup(vprefixes[k]);
		if (c->d[k].vprefix == NULL) {
			ws_mcp_compat_free(c);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
	}
	*out = c;
	return 0;
}

void
ws_mcp_compat_free(struct ws_mcp_compat_fs *c)
{
	if (c == NULL)
		return;
	for (size_t k = 0; k < c->n && c->d != NULL; k++) {
		free(c->d[k].real);
		free(c->d[k].spelled);
		free(c->d[k].vprefix);
	}
	free(c->d);
	free(c);
}

cJSON *
ws_mcp_compat_tools(void)
{
	return ws_json_parse(ws__mcp_compat_tools_json, WS_JSON_STR, NULL, false);
}

/* ------------------------------------------------------------------ */
/* Native calls                                                         */

/* Codes that mean "not here": the reference words them "Access denied". */
static bool
is_denial(const char *code)
{
	static const char *const denials[] = {
		"PATH_OUTSIDE_WORKSPACE", "SYMLINK_OUTSIDE_WORKSPACE", "READ_ONLY",
		"POLICY_DENIED", "APPROVAL_REQUIRED", "PERMISSION_DENIED",
	};

	for (size_t i = 0; i < sizeof(denials) / sizeof(denials[0]); i++)
		if (strcmp(code, denials[i]) == 0)
			return true;
	return false;
}

/*
 * The message of a native error object for a compat result: the native
 * message with the path as the native tool saw it ("sub/a.txt") written
 * as the client wrote it, then the code, so that a model reads why; a
 * containment refusal starts as the reference's do.
 */
static char *
native_message(const cJSON *err, const char *npath, const char *shown)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(err, "message");
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(err, "code");
	const char *msg = cJSON_IsString(m) ? m->valuestring : "failed";
	const char *cs = cJSON_IsString(code) ? code->valuestring : "IO_ERROR";
	struct ws__sb b = {0};
	size_t nl = npath ? strlen(npath) : 0;

	if (is_denial(cs))
		sb_add(&b, "Access denied - ");
	if (npath != NULL && shown != NULL && strncmp(msg, npath, nl) == 0 &&
	    msg[nl] == ':') {
		sb_add(&b, shown);
		sb_add(&b, msg + nl);
	} else if (npath != NULL && shown != NULL && msg[0] == '/' &&
		   strncmp(msg + 1, npath, nl) == 0 && msg[nl + 1] == ':') {
		/* The same path in the virtual view ("/sub/a.txt"). */
		sb_add(&b, shown);
		sb_add(&b, msg + nl + 1);
	} else {
		sb_add(&b, msg);
	}
	sb_addf(&b, " (%s)", cs);
	return sb_take(&b);
}

/*
 * Run one native call; args is consumed.  0 with *output, or the negative
 * code with *msg (see native_message) malloc'd.
 */
static int
native(struct ws__mc_call *k, const char *tool, cJSON *args, const char *npath,
       const char *shown, cJSON **output, char **msg)
{
	cJSON *err = NULL;
	int rc;

	*output = NULL;
	*msg = NULL;
	if (args == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	rc = k->fn(k->arg, tool, args, output, &err);
	cJSON_Delete(args);
	if (rc < 0 || *output == NULL) {
		cJSON_Delete(*output);
		*output = NULL;
		if (rc >= 0)
			rc = WS_EIO_ERROR;
		*msg = err ? native_message(err, npath, shown)
			   : strdup("the native tool failed without saying why (IO_ERROR)");
		cJSON_Delete(err);
		if (*msg == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		return rc;
	}
	cJSON_Delete(err);
	return 0;
}

/* s, or d when s is NULL. */
static const char *
or_str(const char *s, const char *d)
{
	return s != NULL ? s : d;
}

static const char *
jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool
jtrue(const cJSON *o, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static double
jnum(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* The real path a native output names (its real_path, else its virtual
 * path mapped back). */
static char *
output_real(const struct ws_mcp_compat_fs *c, const cJSON *out)
{
	const char *r = jstr(out, "real_path");
	const char *v = jstr(out, "path");

	if (r != NULL)
		return strdup(r);
	return ws_mcp_compat_real(c, v ? v : "/");
}

/*
 * Read a text file whole (or its first head lines, or from where a tail
 * starts) through native read_file pages.  0 with *text (malloc'd) and
 * *out the first page's output; else a negative code with *msg.
 */
static int
read_text(struct ws__mc_call *k, const char *npath, const char *shown,
	  long long head, long long tail, char **text, cJSON **first, char **msg)
{
	struct ws__sb b = {0};
	long long start = 0;
	int rc = 0;

	*text = NULL;
	*first = NULL;
	*msg = NULL;
	for (;;) {
		cJSON *a = cJSON_CreateObject(), *out = NULL;
		const char *content;
		const cJSON *next;
		long long nextv;

		cJSON_AddStringToObject(a, "path", npath);
		cJSON_AddNumberToObject(a, "page_bytes", (double)WS__MC_PAGE_BYTES);
		cJSON_AddNumberToObject(a, "page_lines", (double)WS__MC_PAGE_LINES);
		if (start > 0)
			cJSON_AddNumberToObject(a, "start_line", (double)start);
		else if (tail > 0)
			cJSON_AddNumberToObject(a, "tail", (double)tail);
		else if (head > 0)
			cJSON_AddNumberToObject(a, "start_line", 1);
		if (head > 0)
			cJSON_AddNumberToObject(a, "end_line", (double)head);
		rc = native(k, "read_file", a, npath, shown, &out, msg);
		if (rc < 0)
			break;
		if (jtrue(out, "binary")) {
			const char *mime = jstr(out, "mime_type");

			/* The reference would decode the bytes as UTF-8 with
			 * U+FFFD for each bad sequence: nothing a model can use. */
			rc = WS_EINVALID_ARGUMENT;
			if (asprintf(msg, "%s is a binary file%s%s%s, not text: read it "
				     "with read_media_file (INVALID_ARGUMENT)", shown,
				     mime ? " (" : "", mime ? mime : "", mime ? ")" : "") < 0)
				*msg = NULL;
			cJSON_Delete(out);
			break;
		}
		content = jstr(out, "content");
		if (content != NULL)
			sb_add(&b, content);
		next = cJSON_GetObjectItemCaseSensitive(out, "next_start_line");
		nextv = cJSON_IsNumber(next) ? (long long)next->valuedouble : 0;
		if (*first == NULL)
			*first = out;
		else
			cJSON_Delete(out);
		out = NULL;
		if (b.len > (size_t)WS__MC_MAX_TEXT) {
			rc = WS_EFILE_TOO_LARGE;
			if (asprintf(msg, "%s: larger than %lld bytes (FILE_TOO_LARGE)",
				     shown, WS__MC_MAX_TEXT) < 0)
				*msg = NULL;
			break;
		}
		/* A page said where the next starts (or that none does). */
		if (nextv <= start)
			break;
		start = nextv;
		if (head > 0 && start > head)
			break;
	}
	if (rc < 0) {
		free(sb_take(&b));
		cJSON_Delete(*first);
		*first = NULL;
		if (*msg == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		return rc;
	}
	*text = sb_take(&b);
	if (*text == NULL) {
		cJSON_Delete(*first);
		*first = NULL;
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	return 0;
}

/*
 * List a directory's own entries (hidden ones too, mounts left out: they
 * are other allowed directories, not entries of this one) through native
 * list_directory pages.  0 with *entries (a cJSON array) and *real (the
 * directory's real path); else a negative code with *msg.  A path that is
 * not a directory is the reference's ENOTDIR error.  sizes: each entry
 * with its "size" (a stat of each).
 */
static int
list_dir(struct ws__mc_call *k, const char *npath, const char *shown,
	 bool sizes, cJSON **entries, char **real, char **msg)
{
	long long offset = 0;
	int rc = 0;

	*entries = cJSON_CreateArray();
	*real = NULL;
	*msg = NULL;
	if (*entries == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (;;) {
		cJSON *a = cJSON_CreateObject(), *out = NULL, *e;
		const cJSON *es, *next;
		const char *opath;

		cJSON_AddStringToObject(a, "path", npath);
		cJSON_AddBoolToObject(a, "all", 1);
		/* A model's default leaves out the path and the size (and
		 * so the stat of each entry): the translation needs the
		 * path, and the size where it shows sizes. */
		cJSON_AddStringToObject(a, "fields", sizes ? "name,path,type,size,target" :
					"name,path,type,target");
		cJSON_AddNumberToObject(a, "max_entries", (double)WS__MC_PAGE_ENTRIES);
		if (offset > 0)
			cJSON_AddNumberToObject(a, "offset", (double)offset);
		rc = native(k, "list_directory", a, npath, shown, &out, msg);
		if (rc < 0)
			break;
		es = cJSON_GetObjectItemCaseSensitive(out, "entries");
		opath = jstr(out, "path");
		if (*real == NULL)
			*real = output_real(k->c, out);
		/* A file lists as itself: the reference's readdir fails. */
		if (offset == 0 && cJSON_GetArraySize(es) == 1 && opath != NULL &&
		    jstr(cJSON_GetArrayItem(es, 0), "path") != NULL &&
		    strcmp(jstr(cJSON_GetArrayItem(es, 0), "path"), opath) == 0 &&
		    strcmp(or_str(jstr(cJSON_GetArrayItem(es, 0), "type"), ""), "dir") != 0) {
			rc = WS_ENOT_A_DIRECTORY;
			if (asprintf(msg, "ENOTDIR: not a directory, scandir '%s'",
				     *real ? *real : shown) < 0)
				*msg = NULL;
			cJSON_Delete(out);
			break;
		}
		cJSON_ArrayForEach(e, es) {
			if (jtrue(e, "mount"))
				continue;
			cJSON_AddItemToArray(*entries, cJSON_Duplicate(e, 1));
		}
		next = cJSON_GetObjectItemCaseSensitive(out, "next_offset");
		if (!jtrue(out, "truncated") || !cJSON_IsNumber(next) ||
		    (long long)next->valuedouble <= offset) {
			cJSON_Delete(out);
			break;
		}
		offset = (long long)next->valuedouble;
		cJSON_Delete(out);
	}
	if (rc < 0) {
		cJSON_Delete(*entries);
		*entries = NULL;
		free(*real);
		*real = NULL;
		if (*msg == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		return rc;
	}
	if (*real == NULL) {
		cJSON_Delete(*entries);
		*entries = NULL;
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	return 0;
}

/* The native path of what a symlink at native path link points to, for
 * the native resolver to follow (it decides whether that is allowed). */
static char *
link_target(const char *link, const char *target)
{
	const char *slash = strrchr(link, '/');
	char *r = NULL;

	if (target[0] == '/')
		return strdup(target);
	if (slash == NULL)
		return strdup(target);
	if (asprintf(&r, "%.*s/%s", (int)(slash - link), link, target) < 0)
		return NULL;
	return r;
}

/*
 * Stat one entry the way the reference's fs.stat does (following a
 * symlink): the native list_directory of the entry itself.  NULL when it
 * cannot be (the reference then shows size 0).
 */
static cJSON *
stat_entry(struct ws__mc_call *k, const char *npath)
{
	cJSON *a = cJSON_CreateObject(), *out = NULL, *e;
	char *msg = NULL;

	cJSON_AddStringToObject(a, "path", npath);
	cJSON_AddBoolToObject(a, "directory", 1);
	cJSON_AddBoolToObject(a, "long", 1);
	if (native(k, "list_directory", a, npath, npath, &out, &msg) < 0) {
		free(msg);
		return NULL;
	}
	e = cJSON_DetachItemFromArray(cJSON_GetObjectItemCaseSensitive(out, "entries"), 0);
	cJSON_Delete(out);
	return e;
}

/* ------------------------------------------------------------------ */
/* Argument checks, as the reference's schemas make them                */

/* A required string argument, or NULL after setting *bad. */
static const char *
arg_string(const cJSON *args, const char *key, cJSON **bad)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);

	if (cJSON_IsString(v))
		return v->valuestring;
	*bad = error_resultf("MCP error -32602: Input validation error: Invalid "
			     "arguments for tool: \"%s\" must be a string%s", key,
			     v == NULL ? " (it is required)" : "");
	return NULL;
}

/* An optional number: true when absent or a number; else *bad. */
static bool
arg_number(const cJSON *args, const char *key, double *val, cJSON **bad)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);

	*val = 0;
	if (v == NULL || cJSON_IsNull(v))
		return true;
	if (cJSON_IsNumber(v)) {
		*val = v->valuedouble;
		return true;
	}
	*bad = error_resultf("MCP error -32602: Input validation error: Invalid "
			     "arguments for tool: \"%s\" must be a number", key);
	return false;
}

/* An optional array of strings: true when absent (*arr NULL) or one. */
static bool
arg_strings(const cJSON *args, const char *key, const cJSON **arr, cJSON **bad)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key), *e;

	*arr = NULL;
	if (v == NULL || cJSON_IsNull(v))
		return true;
	if (cJSON_IsArray(v)) {
		bool ok = true;

		cJSON_ArrayForEach(e, v) ok = ok && cJSON_IsString(e);
		if (ok) {
			*arr = v;
			return true;
		}
	}
	*bad = error_resultf("MCP error -32602: Input validation error: Invalid "
			     "arguments for tool: \"%s\" must be an array of strings", key);
	return false;
}

/* Map a compat path argument; on refusal *bad is the error result. */
static char *
map_path(struct ws__mc_call *k, const char *p, char **real, cJSON **bad)
{
	char *npath = NULL;

	if (ws_mcp_compat_path(k->c, p, &npath, real) < 0) {
		*bad = ws_error_last_code() == WS_ENOMEM ? NULL
							 : error_result(ws_error_last());
		return NULL;
	}
	return npath;
}

/* ------------------------------------------------------------------ */
/* Formatting, as the reference formats                                 */

/* The length of a UTF-8 string in UTF-16 code units (JavaScript's
 * String.length, which padEnd counts in). */
static size_t
js_length(const char *s)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p & 0xc0) == 0x80)
			continue;
		n += *p >= 0xf0 ? 2 : 1;
	}
	return n;
}

/* formatSize() of the reference: "0 B", "24 B", "4.88 KB".  Its unit is
 * floor(log(bytes) / log(1024)), which is exact at the powers of 1024. */
static void
format_size(char *buf, size_t len, double bytes)
{
	static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
	double div = 1, scaled;
	int i = 0;
	long long n;

	if (bytes <= 0) {
		snprintf(buf, len, "0 B");
		return;
	}
	while (i < 4 && bytes >= div * 1024) {
		div *= 1024;
		i++;
	}
	if (i == 0) {
		snprintf(buf, len, "%lld B", (long long)bytes);
		return;
	}
	/* toFixed(2) rounds a tie up, where printf rounds it to even; the
	 * scaled value is exact (a multiple of 1/1024^i times 100). */
	scaled = bytes / div * 100;
	n = (long long)(scaled + 0.5);
	snprintf(buf, len, "%lld.%02lld %s", n / 100, n % 100, units[i]);
}

/* ceil() of a positive line count, without libm. */
static long long
ceil_count(double v)
{
	long long n = (long long)v;

	return (double)n < v ? n + 1 : n;
}

/* JSON.stringify of a string. */
static void
js_string(struct ws__sb *b, const char *s)
{
	sb_add(b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': sb_add(b, "\\\""); break;
		case '\\': sb_add(b, "\\\\"); break;
		case '\b': sb_add(b, "\\b"); break;
		case '\f': sb_add(b, "\\f"); break;
		case '\n': sb_add(b, "\\n"); break;
		case '\r': sb_add(b, "\\r"); break;
		case '\t': sb_add(b, "\\t"); break;
		default:
			if (*p < 0x20)
				sb_addf(b, "\\u%04x", *p);
			else
				sb_addn(b, (const char *)p, 1);
		}
	}
	sb_add(b, "\"");
}

/* JSON.stringify(tree, null, 2) of directory_tree's [{name, type,
 * children}] array. */
static void
js_tree(struct ws__sb *b, const cJSON *arr, int indent)
{
	const cJSON *e;
	bool first = true;

	if (cJSON_GetArraySize(arr) == 0) {
		sb_add(b, "[]");
		return;
	}
	sb_add(b, "[\n");
	cJSON_ArrayForEach(e, arr) {
		const cJSON *ch = cJSON_GetObjectItemCaseSensitive(e, "children");

		if (!first)
			sb_add(b, ",\n");
		first = false;
		sb_pad(b, (size_t)indent + 2);
		sb_add(b, "{\n");
		sb_pad(b, (size_t)indent + 4);
		sb_add(b, "\"name\": ");
		js_string(b, jstr(e, "name"));
		sb_add(b, ",\n");
		sb_pad(b, (size_t)indent + 4);
		sb_add(b, "\"type\": ");
		js_string(b, jstr(e, "type"));
		if (ch != NULL) {
			sb_add(b, ",\n");
			sb_pad(b, (size_t)indent + 4);
			sb_add(b, "\"children\": ");
			js_tree(b, ch, indent + 4);
		}
		sb_add(b, "\n");
		sb_pad(b, (size_t)indent + 2);
		sb_add(b, "}");
	}
	sb_add(b, "\n");
	sb_pad(b, (size_t)indent);
	sb_add(b, "]");
}

/* A Date's toString() for an ISO 8601 UTC time, in UTC. */
static void
js_date(char *buf, size_t len, const char *iso)
{
	struct tm tm = {0};
	time_t t;

	if (iso == NULL || strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm) == NULL) {
		snprintf(buf, len, "Invalid Date");
		return;
	}
	t = timegm(&tm);
	gmtime_r(&t, &tm);
	strftime(buf, len, "%a %b %d %Y %H:%M:%S GMT+0000 (Coordinated Universal Time)", &tm);
}

/* file:// URL of a path, as Node's pathToFileURL() encodes it. */
static void
file_url(struct ws__sb *b, const char *path)
{
	sb_add(b, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p <= 0x20 || *p >= 0x7f || strchr("\"#%<>?\\^`{|}", *p) != NULL)
			sb_addf(b, "%%%02X", *p);
		else
			sb_addn(b, (const char *)p, 1);
	}
}

/* localeCompare() of names, near enough: case-insensitive first, lower
 * case before upper case on a tie, then bytes. */
static int
name_cmp(const char *a, const char *b)
{
	int r = strcasecmp(a, b);

	if (r != 0)
		return r;
	for (; *a && *b; a++, b++)
		if (*a != *b)
			return (*a >= 'a' && *a <= 'z') ? -1 : 1;
	return strcmp(a, b);
}

/* ------------------------------------------------------------------ */
/* Globs, as the reference's minimatch(rel, pattern, {dot: true})       */

struct ws__mc_globs {
	struct ws_glob **g;
	size_t n;
};

static void
globs_free(struct ws__mc_globs *gs)
{
	for (size_t i = 0; i < gs->n; i++)
		ws_glob_free(gs->g[i]);
	free(gs->g);
	gs->g = NULL;
	gs->n = 0;
}

static int
globs_add(struct ws__mc_globs *gs, const char *pat)
{
	struct ws_glob **g = realloc(gs->g, (gs->n + 1) * sizeof(*g));
	int rc;

	if (g == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	gs->g = g;
	rc = ws_glob_compile(pat, 0, &gs->g[gs->n], NULL);
	if (rc < 0)
		return rc;
	gs->n++;
	/* minimatch's "**" also matches no directory at all: "**" + "/x"
	 * matches "x". */
	if (strncmp(pat, "**/", 3) == 0)
		return globs_add(gs, pat + 3);
	return 0;
}

/*
 * Compile patterns; with loose, a pattern without "*" also matches as a
 * name at any depth and as a directory above (directory_tree's rule).
 * On a bad pattern *bad is the error result.
 */
static int
globs_compile(struct ws__mc_globs *gs, const cJSON *arr, bool loose, cJSON **bad)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, arr) {
		const char *p = e->valuestring;
		int rc = globs_add(gs, p);

		if (rc == 0 && loose && strchr(p, '*') == NULL) {
			char *x = NULL, *y = NULL;

			if (asprintf(&x, "**/%s", p) < 0 || asprintf(&y, "**/%s/**", p) < 0)
				rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			else if ((rc = globs_add(gs, x)) == 0)
				rc = globs_add(gs, y);
			free(x);
			free(y);
		}
		if (rc < 0) {
			if (rc != WS_ENOMEM)
				*bad = error_resultf("invalid pattern \"%s\": %s (INVALID_PATTERN)",
						     p, ws_error_last());
			globs_free(gs);
			return rc;
		}
	}
	return 0;
}

static bool
globs_match(const struct ws__mc_globs *gs, const char *s)
{
	for (size_t i = 0; i < gs->n; i++)
		if (ws_glob_match(gs->g[i], s, strlen(s)) == 1)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* The tools                                                            */

/* Common result plumbing for a tool: NULL *res with rc 0 is out of memory. */
#define OOM() ws_error_set(WS_ENOMEM, NULL, "out of memory")

/* Drop one trailing "\n" (head's lines are joined, not terminated). */
static void
chop_newline(char *s)
{
	size_t n = strlen(s);

	if (n > 0 && s[n - 1] == '\n')
		s[n - 1] = '\0';
}

/*
 * tail as the reference computes it: CRLF normalised, split on "\n", the
 * last n pieces joined (so a file ending in "\n" gives n - 1 lines and the
 * newline).  In place.
 */
static void
ref_tail(char *s, long long n)
{
	char *w = s;
	size_t len;
	long long pieces = 0;
	char *p;

	for (char *r = s; *r; r++) {
		if (r[0] == '\r' && r[1] == '\n')
			continue;
		*w++ = *r;
	}
	*w = '\0';
	len = (size_t)(w - s);
	/* Walk back over n "\n" separators: what follows the n-th is kept. */
	for (p = s + len; p > s; p--) {
		if (p[-1] == '\n' && ++pieces == n)
			break;
	}
	if (p > s)
		memmove(s, p, strlen(p) + 1);
}

static int
t_read_text(struct ws__mc_call *k, const cJSON *args, cJSON **res)
{
	cJSON *bad = NULL, *first = NULL;
	const char *path = arg_string(args, "path", &bad);
	double head, tail;
	char *npath, *real = NULL, *text = NULL, *msg = NULL;
	int rc;

	*res = NULL;
	if (path == NULL || !arg_number(args, "head", &head, &bad) ||
	    !arg_number(args, "tail", &tail, &bad)) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	/* The reference tests truthiness: 0 is "not given". */
	if (head != 0 && tail != 0) {
		*res = error_result("Cannot specify both head and tail parameters simultaneously");
		return *res ? 0 : OOM();
	}
	if (head < 0 || tail < 0) {
		*res = error_result("head and tail must be positive line counts (INVALID_ARGUMENT)");
		return *res ? 0 : OOM();
	}
	npath = map_path(k, path, &real, &bad);
	if (npath == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	rc = read_text(k, npath, path, ceil_count(head), ceil_count(tail),
		       &text, &first, &msg);
	if (rc == 0) {
		if (head > 0)
			chop_newline(text);
		else if (tail > 0)
			ref_tail(text, ceil_count(tail));
		*res = text_result(text);
	} else if (msg != NULL) {
		*res = error_result(msg);
	}
	cJSON_Delete(first);
	free(text);
	free(msg);
	free(npath);
	free(real);
	/* A failure without a message is only ever out of memory. */
	return *res ? 0 : OOM();
}

/* The reference picks the MIME type by extension, not by content. */
static const char *
media_type(const char *path)
{
	static const char *const map[][2] = {
		{".png", "image/png"},	  {".jpg", "image/jpeg"},  {".jpeg", "image/jpeg"},
		{".gif", "image/gif"},	  {".webp", "image/webp"}, {".bmp", "image/bmp"},
		{".svg", "image/svg+xml"}, {".mp3", "audio/mpeg"}, {".wav", "audio/wav"},
		{".ogg", "audio/ogg"},	  {".flac", "audio/flac"},
	};
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');

	/* path.extname(): a leading dot alone is no extension. */
	if (dot != NULL && dot != base)
		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (strcasecmp(dot, map[i][0]) == 0)
				return map[i][1];
	return "application/octet-stream";
}

static int
t_read_media(struct ws__mc_call *k, const cJSON *args, cJSON **res)
{
	cJSON *bad = NULL, *out = NULL, *a, *item = NULL, *r = NULL;
	const char *path = arg_string(args, "path", &bad);
	char *npath, *real = NULL, *msg = NULL, *oreal = NULL;
	const char *data, *mime;
	int rc;

	*res = NULL;
	if (path == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	npath = map_path(k, path, &real, &bad);
	if (npath == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "path", npath);
	cJSON_AddBoolToObject(a, "base64", 1);
	cJSON_AddNumberToObject(a, "max_bytes", (double)WS__MC_MEDIA_MAX);
	rc = native(k, "read_file", a, npath, path, &out, &msg);
	if (rc < 0) {
		*res = msg ? error_result(msg) : NULL;
		goto out;
	}
	data = jstr(out, "content");
	if (data == NULL || strcmp(or_str(jstr(out, "encoding"), ""), "base64") != 0 ||
	    jtrue(out, "truncated")) {
		*res = error_resultf("%s: the native read gave no whole base64 content "
				     "(IO_ERROR)", path);
		goto out;
	}
	oreal = output_real(k->c, out);
	if (oreal == NULL)
		goto out;
	mime = media_type(oreal);
	item = cJSON_CreateObject();
	if (strncmp(mime, "image/", 6) == 0 || strncmp(mime, "audio/", 6) == 0) {
		cJSON_AddStringToObject(item, "type", mime[0] == 'i' ? "image" : "audio");
		cJSON_AddStringToObject(item, "data", data);
		cJSON_AddStringToObject(item, "mimeType", mime);
	} else {
		struct ws__sb u = {0};
		cJSON *resource;
		char *uri;

		file_url(&u, oreal);
		uri = sb_take(&u);
		cJSON_AddStringToObject(item, "type", "resource");
		resource = cJSON_AddObjectToObject(item, "resource");
		cJSON_AddStringToObject(resource, "uri", uri ? uri : "");
		cJSON_AddStringToObject(resource, "mimeType", mime);
		cJSON_AddStringToObject(resource, "blob", data);
		free(uri);
	}
	r = cJSON_CreateObject();
	if (r != NULL && item != NULL) {
		cJSON *content = cJSON_AddArrayToObject(r, "content");
		cJSON *sc = cJSON_AddObjectToObject(r, "structuredContent");
		cJSON *sca = sc ? cJSON_AddArrayToObject(sc, "content") : NULL;

		if (content && sca) {
			cJSON_AddItemToArray(sca, cJSON_Duplicate(item, 1));
			cJSON_AddItemToArray(content, item);
			item = NULL;
			*res = r;
			r = NULL;
		}
	}
out:
	cJSON_Delete(item);
	cJSON_Delete(r);
	cJSON_Delete(out);
	free(oreal);
	free(msg);
	free(npath);
	free(real);
	return *res ? 0 : OOM();
}

static int
t_read_multiple(struct ws__mc_call *k, const cJSON *args, cJSON **res)
{
	cJSON *bad = NULL;
	const cJSON *paths, *e;
	struct ws__sb b = {0};
	bool first = true;
	char *text;

	*res = NULL;
	if (!arg_strings(args, "paths", &paths, &bad) || paths == NULL ||
	    cJSON_GetArraySize(paths) == 0) {
		*res = bad ? bad : error_result("MCP error -32602: Input validation error: "
						"Invalid arguments for tool: \"paths\" must "
						"hold at least one path");
		return *res ? 0 : OOM();
	}
	/* One read per file, so that one failure says which and why and
	 * stops nothing else. */
	cJSON_ArrayForEach(e, paths) {
		const char *p = e->valuestring;
		char *npath, *real = NULL, *content = NULL, *msg = NULL;
		cJSON *firstout = NULL, *perr = NULL;

		if (!first)
			sb_add(&b, "\n---\n");
		first = false;
		npath = map_path(k, p, &real, &perr);
		if (npath == NULL) {
			const cJSON *blk = cJSON_GetArrayItem(
				cJSON_GetObjectItemCaseSensitive(perr, "content"), 0);

			if (perr == NULL)
				b.oom = true;
			sb_addf(&b, "%s: Error - %s", p, or_str(jstr(blk, "text"), ""));
			cJSON_Delete(perr);
			continue;
		}
		if (read_text(k, npath, p, 0, 0, &content, &firstout, &msg) == 0)
			sb_addf(&b, "%s:\n%s\n", p, content);
		else if (msg != NULL)
			sb_addf(&b, "%s: Error - %s", p, msg);
		else
			b.oom = true;
		cJSON_Delete(firstout);
		free(content);
		free(msg);
		free(npath);
		free(real);
	}
	text = sb_take(&b);
	if (text != NULL)
		*res = text_result(text);
	free(text);
	return *res ? 0 : OOM();
}

/*
 * The tools that run one native call and answer a fixed sentence: the
 * native arguments are built by the caller, the path named by npath.
 */
static int
simple(struct ws__mc_call *k, const char *tool, cJSON *a, const char *npath,
       const char *shown, const char *lead, const char *x, const char *mid,
       const char *y, cJSON **res)
{
	cJSON *out = NULL;
	char *msg = NULL, *text = NULL;
	int rc = native(k, tool, a, npath, shown, &out, &msg);

	if (rc < 0)
		*res = msg ? error_result(msg) : NULL;
	else if (asprintf(&text, "%s%s%s%s", lead, x, mid ? mid : "", mid ? y : "") >= 0)
		*res = text_result(text);
	free(text);
	free(msg);
	cJSON_Delete(out);
	return *res ? 0 : OOM();
}

static int
t_write(struct ws__mc_call *k, const cJSON *args, cJSON **res)
{
	cJSON *bad = NULL, *a;
	const char *path = arg_string(args, "path", &bad);
	const char *content = path ? arg_string(args, "content", &bad) : NULL;
	char *npath;
	int rc;

	*res = NULL;
	if (content == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	npath = map_path(k, path, NULL, &bad);
	if (npath == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "path", npath);
	cJSON_AddStringToObject(a, "content", content);
	/* The reference's writeFile creates no parent directory. */
	cJSON_AddBoolToObject(a, "parents", 0);
	rc = simple(k, "write_file", a, npath, path, "Successfully wrote to ", path, NULL, NULL, res);
	free(npath);
	return rc;
}

static int
t_create_dir(struct ws__mc_call *k, const cJSON *args, cJSON **res)
{
	cJSON *bad = NULL, *a;
	const char *path = arg_string(args, "path", &bad);
	char *npath;
	int rc;

	*res = NULL;
	if (path == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	npath = map_path(k, path, NULL, &bad);
	if (npath == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "path", npath);
	cJSON_AddBoolToObject(a, "parents", 1);
	rc = simple(k, "create_directory", a, npath, path,
		    "Successfully created directory ", path, NULL, NULL, res);
	free(npath);
	return rc;
}

static int
t_move(struct ws__mc_call *k, const cJSON *args, cJSON **res)
{
	cJSON *bad = NULL, *a;
	const char *src = arg_string(args, "source", &bad);
	const char *dst = src ? arg_string(args, "destination", &bad) : NULL;
	char *ns = NULL, *nd = NULL;
	int rc = 0;

	*res = NULL;
	if (dst == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	ns = map_path(k, src, NULL, &bad);
	nd = ns ? map_path(k, dst, NULL, &bad) : NULL;
	if (nd == NULL) {
		*res = bad;
		free(ns);
		return bad ? 0 : OOM();
	}
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "source", ns);
	cJSON_AddStringToObject(a, "destination", nd);
	/* rename(2): no parent created, an existing destination refused. */
	cJSON_AddBoolToObject(a, "parents", 0);
	rc = simple(k, "move_path", a, ns, src, "Successfully moved ", src, " to ", dst, res);
	/* A message about the destination names it as the native tool saw
	 * it; that is still inside the path the client gave. */
	free(ns);
	free(nd);
	return rc;
}

static int
t_edit(struct ws__mc_call *k, const cJSON *args, cJSON **res)
{
	cJSON *bad = NULL, *a, *edits, *out = NULL;
	const char *path = arg_string(args, "path", &bad);
	const cJSON *ed = cJSON_GetObjectItemCaseSensitive(args, "edits"), *e;
	const cJSON *dry = cJSON_GetObjectItemCaseSensitive(args, "dryRun");
	char *npath = NULL, *real = NULL, *msg = NULL, *oreal = NULL, *text = NULL;
	const char *diff, *hunks;
	struct ws__sb b = {0};
	int ticks = 3;

	*res = NULL;
	if (path == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	if (!cJSON_IsArray(ed) || (dry != NULL && !cJSON_IsBool(dry))) {
		*res = error_result("MCP error -32602: Input validation error: Invalid "
				    "arguments for tool: \"edits\" must be an array of "
				    "{oldText, newText} and \"dryRun\" a boolean");
		return *res ? 0 : OOM();
	}
	npath = map_path(k, path, &real, &bad);
	if (npath == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "path", npath);
	edits = cJSON_AddArrayToObject(a, "edits");
	cJSON_ArrayForEach(e, ed) {
		const char *o = jstr(e, "oldText"), *n = jstr(e, "newText");
		cJSON *x;

		if (o == NULL || n == NULL) {
			cJSON_Delete(a);
			*res = error_result("MCP error -32602: Input validation error: "
					    "Invalid arguments for tool: each edit needs "
					    "string \"oldText\" and \"newText\"");
			goto out;
		}
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "old", o);
		cJSON_AddStringToObject(x, "new", n);
		cJSON_AddItemToArray(edits, x);
	}
	cJSON_AddBoolToObject(a, "dry_run", cJSON_IsTrue(dry));
	if (native(k, "edit_file", a, npath, path, &out, &msg) < 0) {
		*res = msg ? error_result(msg) : NULL;
		goto out;
	}
	/* The reference's diff: jsdiff's createTwoFilesPatch header naming
	 * the real path, then the hunks, fenced in enough backticks. */
	oreal = output_real(k->c, out);
	diff = or_str(jstr(out, "diff"), "");
	hunks = strncmp(diff, "@@", 2) == 0 ? diff : strstr(diff, "\n@@");
	hunks = hunks == NULL ? "" : hunks + (hunks[0] == '\n');
	sb_addf(&b, "Index: %s\n"
		"===================================================================\n"
		"--- %s\toriginal\n+++ %s\tmodified\n%s", oreal ? oreal : path,
		oreal ? oreal : path, oreal ? oreal : path, hunks);
	text = sb_take(&b);
	if (text == NULL)
		goto out;
	for (;;) {
		char fence[64];

		memset(fence, '`', (size_t)ticks);
		fence[ticks] = '\0';
		if (strstr(text, fence) == NULL || ticks >= 60)
			break;
		ticks++;
	}
	{
		struct ws__sb f = {0};
		char *final;

		for (int i = 0; i < ticks; i++)
			sb_add(&f, "`");
		sb_add(&f, "diff\n");
		sb_add(&f, text);
		for (int i = 0; i < ticks; i++)
			sb_add(&f, "`");
		sb_add(&f, "\n\n");
		final = sb_take(&f);
		if (final != NULL)
			*res = text_result(final);
		free(final);
	}
out:
	cJSON_Delete(out);
	free(text);
	free(oreal);
	free(msg);
	free(npath);
	free(real);
	return *res ? 0 : OOM();
}

/* "[DIR] name" or "[FILE] name": a symlink is a file, as for readdir's
 * Dirent.isDirectory(). */
static bool
is_dir(const cJSON *e)
{
	const char *t = jstr(e, "type");

	return t != NULL && strcmp(t, "dir") == 0;
}

static int
t_list(struct ws__mc_call *k, const cJSON *args, cJSON **res)
{
	cJSON *bad = NULL, *entries = NULL;
	const cJSON *e;
	const char *path = arg_string(args, "path", &bad);
	char *npath, *dreal = NULL, *msg = NULL, *text;
	struct ws__sb b = {0};
	bool first = true;

	*res = NULL;
	if (path == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	npath = map_path(k, path, NULL, &bad);
	if (npath == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	if (list_dir(k, npath, path, false, &entries, &dreal, &msg) < 0) {
		*res = msg ? error_result(msg) : NULL;
		goto out;
	}
	cJSON_ArrayForEach(e, entries) {
		if (!first)
			sb_add(&b, "\n");
		first = false;
		sb_addf(&b, "%s %s", is_dir(e) ? "[DIR]" : "[FILE]", or_str(jstr(e, "name"), ""));
	}
	text = sb_take(&b);
	if (text != NULL)
		*res = text_result(text);
	free(text);
out:
	cJSON_Delete(entries);
	free(dreal);
	free(msg);
	free(npath);
	return *res ? 0 : OOM();
}

struct ws__mc_sized {
	const char *name;
	bool dir;
	double size;
};

static int
by_name(const void *a, const void *b)
{
	return name_cmp(((const struct ws__mc_sized *)a)->name,
			((const struct ws__mc_sized *)b)->name);
}

static int
by_size(const void *a, const void *b)
{
	const struct ws__mc_sized *x = a, *y = b;

	/* Descending; ties keep their order (the index breaks them). */
	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x < y ? -1 : x > y;
}

static int
t_list_sizes(struct ws__mc_call *k, const cJSON *args, cJSON **res)
{
	cJSON *bad = NULL, *entries = NULL;
	const cJSON *e;
	const char *path = arg_string(args, "path", &bad);
	const cJSON *sb = cJSON_GetObjectItemCaseSensitive(args, "sortBy");
	char *npath = NULL, *dreal = NULL, *msg = NULL, *text;
	struct ws__mc_sized *v = NULL;
	struct ws__sb b = {0};
	size_t n = 0, files = 0, dirs = 0;
	double total = 0;
	bool bysize = false;
	char size[64];

	*res = NULL;
	if (path == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	if (sb != NULL && !cJSON_IsNull(sb)) {
		if (!cJSON_IsString(sb) || (strcmp(sb->valuestring, "name") != 0 &&
					    strcmp(sb->valuestring, "size") != 0)) {
			*res = error_result("MCP error -32602: Input validation error: "
					    "Invalid arguments for tool: \"sortBy\" must "
					    "be \"name\" or \"size\"");
			return *res ? 0 : OOM();
		}
		bysize = strcmp(sb->valuestring, "size") == 0;
	}
	npath = map_path(k, path, NULL, &bad);
	if (npath == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	if (list_dir(k, npath, path, true, &entries, &dreal, &msg) < 0) {
		*res = msg ? error_result(msg) : NULL;
		goto out;
	}
	v = calloc((size_t)cJSON_GetArraySize(entries) + 1, sizeof(*v));
	if (v == NULL)
		goto out;
	cJSON_ArrayForEach(e, entries) {
		const char *t = jstr(e, "type");

		v[n].name = or_str(jstr(e, "name"), "");
		v[n].dir = is_dir(e);
		v[n].size = jnum(e, "size", 0);
		/* fs.stat follows a symlink: the size is its target's, when
		 * the native resolver lets it be followed (else 0, as the
		 * reference shows for what it cannot stat). */
		if (t != NULL && strcmp(t, "symlink") == 0) {
			const char *vp = jstr(e, "path"), *target = jstr(e, "target");
			char *lp = NULL, *tp = NULL;
			cJSON *st = NULL;

			v[n].size = 0;
			if (vp != NULL && target != NULL && !jtrue(e, "target_outside") &&
			    asprintf(&lp, "%s", vp + 1) >= 0 &&
			    (tp = link_target(lp, target)) != NULL &&
			    (st = stat_entry(k, tp)) != NULL)
				v[n].size = jnum(st, "size", 0);
			cJSON_Delete(st);
			free(lp);
			free(tp);
		}
		if (v[n].dir) {
			dirs++;
		} else {
			files++;
			total += v[n].size;
		}
		n++;
	}
	qsort(v, n, sizeof(*v), bysize ? by_size : by_name);
	for (size_t i = 0; i < n; i++) {
		size_t len = js_length(v[i].name);

		sb_addf(&b, "%s %s", v[i].dir ? "[DIR]" : "[FILE]", v[i].name);
		sb_pad(&b, len < 30 ? 30 - len : 0);
		sb_add(&b, " ");
		if (!v[i].dir) {
			format_size(size, sizeof(size), v[i].size);
			sb_pad(&b, strlen(size) < 10 ? 10 - strlen(size) : 0);
			sb_add(&b, size);
		}
		sb_add(&b, "\n");
	}
	format_size(size, sizeof(size), total);
	sb_addf(&b, "\nTotal: %zu files, %zu directories\nCombined size: %s", files, dirs, size);
	text = sb_take(&b);
	if (text != NULL)
		*res = text_result(text);
	free(text);
out:
	free(v);
	cJSON_Delete(entries);
	free(dreal);
	free(msg);
	free(npath);
	return *res ? 0 : OOM();
}

/* directory_tree and search_files walk with one native listing per
 * directory, so that an excluded directory is never entered. */
struct ws__mc_walk {
	struct ws__mc_call *k;
	struct ws__mc_globs excl;
	struct ws__mc_globs pat;	/* search_files */
	bool loose;			/* directory_tree's exclusion rule */
	struct ws__sb found;		/* search_files: real paths */
	size_t nfound;
	char *root_real;		/* search_files: the searched root */
};

/*
 * Walk the directory at native path npath, relative path rel from the
 * walk's root ("" at the root); for directory_tree, append the entries to
 * tree.  0, or a negative code with *msg.
 */
static int
walk(struct ws__mc_walk *w, const char *npath, const char *rel, cJSON *tree,
     int depth, char **msg)
{
	cJSON *entries = NULL;
	const cJSON *e;
	char *dreal = NULL;
	int rc;

	if (depth > WS__MC_TREE_DEPTH)
		return 0;
	rc = list_dir(w->k, npath, npath, false, &entries, &dreal, msg);
	if (rc < 0)
		return rc;
	cJSON_ArrayForEach(e, entries) {
		const char *name = jstr(e, "name");
		char *erel, *enat;
		bool dir = is_dir(e);

		if (name == NULL)
			continue;
		erel = rel[0] ? ws_path_join(rel, name) : strdup(name);
		enat = ws_path_join(npath, name);
		if (erel == NULL || enat == NULL) {
			free(erel);
			free(enat);
			rc = OOM();
			break;
		}
		if (globs_match(&w->excl, erel))
			goto next;
		if (tree != NULL) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "name", name);
			cJSON_AddStringToObject(o, "type", dir ? "directory" : "file");
			cJSON_AddItemToArray(tree, o);
			if (dir) {
				cJSON *ch = cJSON_AddArrayToObject(o, "children");

				rc = walk(w, enat, erel, ch, depth + 1, msg);
			}
		} else {
			/* The reference skips what validatePath refuses: a
			 * symlink that leaves. */
			if (jtrue(e, "target_outside"))
				goto next;
			if (globs_match(&w->pat, erel)) {
				if (w->nfound++ > 0)
					sb_add(&w->found, "\n");
				sb_addf(&w->found, "%s/%s", w->root_real, erel);
			}
			if (dir)
				rc = walk(w, enat, erel, NULL, depth + 1, msg);
			/* A subdirectory that cannot be listed is skipped, as
			 * the reference's catch does. */
			if (rc < 0 && rc != WS_ENOMEM) {
				free(*msg);
				*msg = NULL;
				rc = 0;
			}
		}
next:
		free(erel);
		free(enat);
		if (rc < 0)
			break;
	}
	cJSON_Delete(entries);
	free(dreal);
	return rc;
}

static int
t_tree(struct ws__mc_call *k, const cJSON *args, cJSON **res)
{
	cJSON *bad = NULL, *tree = NULL;
	const cJSON *excl;
	const char *path = arg_string(args, "path", &bad);
	struct ws__mc_walk w = {.k = k, .loose = true};
	char *npath = NULL, *msg = NULL, *text;
	struct ws__sb b = {0};

	*res = NULL;
	if (path == NULL || !arg_strings(args, "excludePatterns", &excl, &bad)) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	npath = map_path(k, path, NULL, &bad);
	if (npath == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	if (excl != NULL && globs_compile(&w.excl, excl, true, &bad) < 0) {
		*res = bad;
		goto out;
	}
	tree = cJSON_CreateArray();
	if (tree == NULL)
		goto out;
	if (walk(&w, npath, "", tree, 0, &msg) < 0) {
		*res = msg ? error_result(msg) : NULL;
		goto out;
	}
	js_tree(&b, tree, 0);
	text = sb_take(&b);
	if (text != NULL)
		*res = text_result(text);
	free(text);
out:
	globs_free(&w.excl);
	cJSON_Delete(tree);
	free(msg);
	free(npath);
	return *res ? 0 : OOM();
}

static int
t_search(struct ws__mc_call *k, const cJSON *args, cJSON **res)
{
	cJSON *bad = NULL, *pat = NULL, *entries = NULL;
	const cJSON *excl;
	const char *path = arg_string(args, "path", &bad);
	const char *pattern = path ? arg_string(args, "pattern", &bad) : NULL;
	struct ws__mc_walk w = {.k = k};
	char *npath = NULL, *msg = NULL, *text = NULL;

	*res = NULL;
	if (pattern == NULL || !arg_strings(args, "excludePatterns", &excl, &bad)) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	npath = map_path(k, path, NULL, &bad);
	if (npath == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	pat = cJSON_CreateArray();
	if (pat == NULL)
		goto out;
	cJSON_AddItemToArray(pat, cJSON_CreateString(pattern));
	if ((excl != NULL && globs_compile(&w.excl, excl, false, &bad) < 0) ||
	    globs_compile(&w.pat, pat, false, &bad) < 0) {
		*res = bad;
		goto out;
	}
	/* The root's real path, from its own listing (a symlinked root is
	 * its target, as validatePath's realpath gives it). */
	if (list_dir(k, npath, path, false, &entries, &w.root_real, &msg) < 0) {
		*res = msg ? error_result(msg) : NULL;
		goto out;
	}
	if (walk(&w, npath, "", NULL, 0, &msg) < 0) {
		*res = msg ? error_result(msg) : NULL;
		goto out;
	}
	text = sb_take(&w.found);
	w.found.s = NULL;
	if (text != NULL)
		*res = text_result(w.nfound > 0 ? text : "No matches found");
out:
	free(text);
	free(sb_take(&w.found));
	globs_free(&w.excl);
	globs_free(&w.pat);
	cJSON_Delete(pat);
	cJSON_Delete(entries);
	free(w.root_real);
	free(msg);
	free(npath);
	return *res ? 0 : OOM();
}

static int
t_info(struct ws__mc_call *k, const cJSON *args, cJSON **res)
{
	cJSON *bad = NULL, *a, *out = NULL, *st = NULL;
	const char *path = arg_string(args, "path", &bad);
	char *npath = NULL, *msg = NULL, *text = NULL;
	const cJSON *e;
	const char *type, *mode, *mtime;
	char date[128];

	*res = NULL;
	if (path == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	npath = map_path(k, path, NULL, &bad);
	if (npath == NULL) {
		*res = bad;
		return bad ? 0 : OOM();
	}
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "path", npath);
	cJSON_AddBoolToObject(a, "directory", 1);
	cJSON_AddBoolToObject(a, "long", 1);
	if (native(k, "list_directory", a, npath, path, &out, &msg) < 0) {
		*res = msg ? error_result(msg) : NULL;
		goto out;
	}
	e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(out, "entries"), 0);
	type = jstr(e, "type");
	/* fs.stat follows a symlink; the native resolver decides whether it
	 * may be followed. */
	if (type != NULL && strcmp(type, "symlink") == 0) {
		char *tp;

		if (jtrue(e, "target_outside")) {
			*res = error_resultf("Access denied - symlink target outside "
					     "allowed directories: %s -> %s "
					     "(SYMLINK_OUTSIDE_WORKSPACE)", path,
					     or_str(jstr(e, "target"), "?"));
			goto out;
		}
		tp = jstr(e, "target") ? link_target(npath, jstr(e, "target")) : NULL;
		st = tp ? stat_entry(k, tp) : NULL;
		free(tp);
		if (st != NULL)
			e = st;
		type = jstr(e, "type");
	}
	mode = or_str(jstr(e, "mode"), "000");
	mtime = jstr(e, "mtime");
	js_date(date, sizeof(date), mtime);
	/* The toolbox reports no birth or access time: the modification
	 * time stands for them (documented). */
	if (asprintf(&text, "size: %.0f\ncreated: %s\nmodified: %s\naccessed: %s\n"
		     "isDirectory: %s\nisFile: %s\npermissions: %s",
		     jnum(e, "size", 0), date, date, date,
		     type && strcmp(type, "dir") == 0 ? "true" : "false",
		     type && strcmp(type, "file") == 0 ? "true" : "false",
		     strlen(mode) > 3 ? mode + strlen(mode) - 3 : mode) < 0)
		text = NULL;
	if (text != NULL)
		*res = text_result(text);
out:
	free(text);
	cJSON_Delete(st);
	cJSON_Delete(out);
	free(msg);
	free(npath);
	return *res ? 0 : OOM();
}

static int
t_allowed(struct ws__mc_call *k, const cJSON *args, cJSON **res)
{
	char *list = dir_list(k->c, "\n"), *text = NULL;

	(void)args;
	*res = NULL;
	if (list != NULL && asprintf(&text, "Allowed directories:\n%s", list) >= 0)
		*res = text_result(text);
	free(text);
	free(list);
	return *res ? 0 : OOM();
}

static const struct {
	const char *name;
	int (*fn)(struct ws__mc_call *, const cJSON *, cJSON **);
} ws__mc_tools[] = {
	{"read_file", t_read_text},
	{"read_text_file", t_read_text},
	{"read_media_file", t_read_media},
	{"read_multiple_files", t_read_multiple},
	{"write_file", t_write},
	{"edit_file", t_edit},
	{"create_directory", t_create_dir},
	{"list_directory", t_list},
	{"list_directory_with_sizes", t_list_sizes},
	{"directory_tree", t_tree},
	{"move_file", t_move},
	{"search_files", t_search},
	{"get_file_info", t_info},
	{"list_allowed_directories", t_allowed},
};

int
ws_mcp_compat_call(const struct ws_mcp_compat_fs *c, const char *name,
		   const cJSON *args, ws_mcp_native_fn fn, void *arg,
		   cJSON **result)
{
	struct ws__mc_call k = {.c = c, .fn = fn, .arg = arg};
	cJSON *empty = NULL;
	int rc;

	*result = NULL;
	if (args == NULL || cJSON_IsNull(args)) {
		empty = cJSON_CreateObject();
		if (empty == NULL)
			return OOM();
		args = empty;
	}
	for (size_t i = 0; i < sizeof(ws__mc_tools) / sizeof(ws__mc_tools[0]); i++) {
		if (strcmp(name, ws__mc_tools[i].name) != 0)
			continue;
		if (!cJSON_IsObject(args)) {
			cJSON_Delete(empty);
			*result = error_result("MCP error -32602: Input validation error: "
					       "the arguments must be an object");
			return *result ? 0 : OOM();
		}
		rc = ws__mc_tools[i].fn(&k, args, result);
		cJSON_Delete(empty);
		if (rc < 0) {
			cJSON_Delete(*result);
			*result = NULL;
		}
		return rc;
	}
	cJSON_Delete(empty);
	return ws_error_set(WS_EINVALID_ARGUMENT, name,
			    "Tool %s not found (compat mode serves the tools of "
			    "@modelcontextprotocol/server-filesystem)", name);
}
