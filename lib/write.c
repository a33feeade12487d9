/*
 * write.c - changing the workspace: atomic replacement, appends, exact-text
 * edits, mkdir, delete and move, plus the unified diff they report.
 *
 * Nothing here takes a path string to the kernel except as a single name
 * relative to a directory descriptor that ws_resolve() produced (or that
 * a recursive walk opened with O_NOFOLLOW).  So a directory swapped for a
 * symlink to /etc between resolution and action makes the action fail or
 * land inside the workspace, never outside.
 */
#include "ws/vcs.h"
#include "ws/write.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ws/audit.h"
#include "ws/cancel.h"
#include "ws/error.h"
#include "ws/history.h"
#include "ws/path.h"
#include "ws/policy.h"
#include "ws/resolve.h"
#include "ws/version.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */

/* Record the last error again, now naming path (the user's spelling). */
static int
ws__with_path(int rc, const char *path)
{
	char *msg = strdup(ws_error_last());
	char *hint = ws_error_last_hint() ? strdup(ws_error_last_hint()) : NULL;

	ws_error_set(rc, path, "%s", msg ? msg : "");
	if (hint != NULL)
		ws_error_set_hint("%s", hint);
	free(msg);
	free(hint);
	return rc;
}

static int
ws__nomem(void)
{
	return ws_error_set(WS_ENOMEM, NULL, "out of memory");
}

/* Write all of data to fd, retrying short writes and EINTR. */
static int
ws__full_write(int fd, const void *data, size_t n)
{
	const char *p = data;

	while (n > 0) {
		ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return ws_error_errno(errno, NULL, "write");
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Read all of fd (at most max bytes: more is WS_EFILE_TOO_LARGE) into a
 * malloc'd buffer with a NUL after the data.
 */
static int
ws__read_all(int fd, size_t max, char **out, size_t *outlen)
{
	struct stat st;
	size_t cap, n = 0;
	char *buf;

	*out = NULL;
	*outlen = 0;
	if (fstat(fd, &st) == 0 && st.st_size >= 0 && (size_t)st.st_size > max)
		return ws_error_set(WS_EFILE_TOO_LARGE, NULL,
				    "is %lld bytes, over the limit of %zu",
				    (long long)st.st_size, max);
	cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
	buf = malloc(cap + 1);
	if (buf == NULL)
		return ws__nomem();
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap > max) {
				free(buf);
				return ws_error_set(WS_EFILE_TOO_LARGE, NULL,
						    "is over the limit of %zu bytes",
						    max);
			}
			nb = realloc(buf, cap * 2 + 1);
			if (nb == NULL) {
				free(buf);
				return ws__nomem();
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return ws_error_errno(errno, NULL, "read");
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		free(buf);
		return ws_error_set(WS_EFILE_TOO_LARGE, NULL,
				    "is over the limit of %zu bytes", max);
	}
	buf[n] = '\0';
	*out = buf;
	*outlen = n;
	return 0;
}

/* The anchor (root or mount) whose directory is the object st, or -1. */
static int
ws__anchor_of_stat(struct ws_ctx *ws, const struct stat *st)
{
	for (size_t i = 0; i < ws->nanchors; i++) {
		struct stat ast;

		if (fstat(ws->anchors[i].fd, &ast) == 0 &&
		    ast.st_dev == st->st_dev && ast.st_ino == st->st_ino)
			return (int)i;
	}
	return -1;
}

/* Refuse to delete or move an anchor, or a directory holding one. */
static int
ws__refuse_anchor(struct ws_ctx *ws, const struct ws_res *res, const char *path,
		  const char *what)
{
	bool top = strcmp(res->name, ".") == 0;
	int a = top ? res->final_anchor : ws__anchor_of_stat(ws, &res->st);

	if (top || a >= 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, path, "cannot %s %s",
				    what, a > 0 ? "the top of a mount" :
				    "the workspace root");
	if (!S_ISDIR(res->st.st_mode))
		return 0;
	for (size_t i = 0; i < ws->nanchors; i++) {
		if (ws_path_within(res->real, ws->anchors[i].real, NULL))
			return ws_error_set(WS_EINVALID_ARGUMENT, path,
					    "cannot %s a directory holding %s (%s)",
					    what, i == 0 ? "the workspace root" :
					    "a mount", ws->anchors[i].vprefix);
	}
	return 0;
}

/*
 * For a result that does not exist: without parents, a missing directory
 * above the name is WS_ENOT_FOUND; with them, ask the gate (the guards,
 * and the policy if there is one) about every directory that would be
 * created.
 */
static int
ws__check_parents(struct ws_ctx *ws, const struct ws_res *res, bool parents,
		  const char *path)
{
	size_t rl, ml, base;

	if (res->exists || res->missing == NULL ||
	    strchr(res->missing, '/') == NULL)
		return 0;
	if (!parents) {
		size_t n = (size_t)(strchr(res->missing, '/') - res->missing);

		return ws_error_set(WS_ENOT_FOUND, path,
				    "parent directory \"%.*s\" does not exist "
				    "(and parents were not asked for)",
				    (int)n, res->missing);
	}
	/* Policy or not: a parent made on the way may be guarded (".git"). */
	rl = strlen(res->real);
	ml = strlen(res->missing);
	if (ml > rl)
		return 0;
	base = rl - ml;
	for (size_t i = base; i < rl; i++) {
		if (res->real[i] == '/') {
			char *dir = strndup(res->real, i);
			int rc;

			if (dir == NULL)
				return ws__nomem();
			rc = ws_check(ws, WS_OP_MKDIR, dir, res->vpath);
			free(dir);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static const char *
ws__type_of(mode_t m)
{
	return S_ISREG(m) ? "file" : S_ISDIR(m) ? "dir" : S_ISLNK(m) ? "symlink" :
	       "other";
}

/*
 * Copy a path without its trailing slashes and "/." ("/" stays "/");
 * *had says there were some.  "link/" and "link/." name the directory a
 * link points to, which delete and move must not reach through the link.
 */
static char *
ws__strip_slashes(const char *p, bool *had)
{
	size_t n = strlen(p);

	*had = false;
	for (;;) {
		if (n > 1 && (p[n - 1] == '/' || p[n - 1] == '\\')) {
			n--;
		} else if (n > 2 && p[n - 1] == '.' &&
			   (p[n - 2] == '/' || p[n - 2] == '\\')) {
			n -= 2;
		} else {
			break;
		}
		*had = true;
	}
	return strndup(p, n);
}

void
ws_wresult_free(struct ws_wresult *r)
{
	free(r->vpath);
	free(r->real);
	free(r->dest_vpath);
	free(r->dest_real);
	free(r->diff);
	free(r->made_top);
	free(r->made_top_real);
	memset(r, 0, sizeof(*r));
}

/*
 * When this call makes a top-level directory of the workspace named like
 * one of the host's system directories ("/tmp/x" makes <root>/tmp), name
 * it in r: a person or model who meant the host's /tmp learns it from the
 * result, not later from a file missing there.  dir: the result itself
 * is the directory made (mkdir), not a file below it.
 */
static int
ws__note_made_top(struct ws_ctx *ws, const struct ws_res *res, bool dir,
		  struct ws_wresult *r)
{
	static const char *const sys[] = {
		"bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64",
		"media", "mnt", "opt", "proc", "root", "run", "sbin", "srv",
		"sys", "tmp", "usr", "var",
	};
	const char *root = ws->anchors[0].real, *m = res->missing, *slash;
	size_t rl = strlen(root), tl, ml, n;

	if (res->exists || m == NULL || res->final_anchor != 0)
		return 0;
	slash = strchr(m, '/');
	if (slash == NULL && !dir)
		return 0;
	/* The missing part must start at the root's own entries. */
	tl = strlen(res->real);
	ml = strlen(m);
	if (ml >= tl || strncmp(res->real, root, rl) != 0 ||
	    tl - ml != (rl == 1 ? 1 : rl + 1))
		return 0;
	n = slash != NULL ? (size_t)(slash - m) : ml;
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++) {
		if (strlen(sys[i]) != n || strncmp(m, sys[i], n) != 0)
			continue;
		if (asprintf(&r->made_top, "/%.*s", (int)n, m) < 0) {
			r->made_top = NULL;
			return ws__nomem();
		}
		if ((r->made_top_real = strndup(res->real, tl - ml + n)) == NULL)
			return ws__nomem();
		return 0;
	}
	return 0;
}

static int
ws__result_paths(struct ws_wresult *r, const struct ws_res *res)
{
	free(r->vpath);
	free(r->real);
	r->vpath = strdup(res->vpath);
	r->real = strdup(res->real);
	if (r->vpath == NULL || r->real == NULL)
		return ws__nomem();
	return 0;
}

/* ------------------------------------------------------------------ */
/* Base64                                                               */

static int
ws__b64_val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

int
ws_b64_decode(const char *s, void **out, size_t *n)
{
	size_t len = strlen(s), o = 0;
	unsigned char *buf = malloc(len / 4 * 3 + 4);
	uint32_t acc = 0;
	int bits = 0;
	bool pad = false;

	*out = NULL;
	*n = 0;
	if (buf == NULL)
		return ws__nomem();
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		int v;

		if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
			continue;
		if (c == '=') {
			pad = true;
			continue;
		}
		v = ws__b64_val(c);
		if (v < 0 || pad) {
			free(buf);
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "content_base64 is not valid base64 "
					    "(at offset %zu)", i);
		}
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[o++] = (unsigned char)(acc >> bits);
		}
	}
	if (bits >= 6) {
		/* A lone sixth-bit group cannot come from any byte string. */
		free(buf);
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "content_base64 is not valid base64 (truncated)");
	}
	*out = buf;
	*n = o;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Exact-text edit                                                      */

/* The 1-based line number of offset off in text. */
static size_t
ws__line_at(const char *text, size_t off)
{
	size_t line = 1;

	for (const char *p = text; (p = memchr(p, '\n', off - (size_t)(p - text)));
	     p++)
		line++;
	return line;
}

/* Most match lines an EDIT_AMBIGUOUS message lists. */
#define WS__AMBIG_LINES 20

/*
 * EDIT_AMBIGUOUS naming the line of every match (the first
 * WS__AMBIG_LINES of them), so that the caller can read those lines and
 * widen the text around the one it means.
 */
static int
ws__ambiguous(const char *text, size_t len, const char *old, size_t oldlen,
	      size_t c)
{
	char lines[WS__AMBIG_LINES * 24 + 16];
	size_t at_line[WS__AMBIG_LINES], count[WS__AMBIG_LINES];
	size_t pos = 0, k = 0, off = 0, line = 1, at = 0, n = 0;
	const char *p;

	/* Each line once, with how many matches it holds when more than
	 * one ("1 (3 matches) and 2", not "1, 1, 1 and 2"). */
	while (k < WS__AMBIG_LINES && pos + oldlen <= len &&
	       (p = memmem(text + pos, len - pos, old, oldlen)) != NULL) {
		size_t m = (size_t)(p - text);

		line += ws__line_at(text + at, m - at) - 1;
		at = m;
		if (n > 0 && at_line[n - 1] == line) {
			count[n - 1]++;
		} else {
			at_line[n] = line;
			count[n++] = 1;
		}
		k++;
		pos = m + oldlen;
	}
	lines[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		off += (size_t)snprintf(lines + off, sizeof(lines) - off, "%s%zu",
					i == 0 ? "" : i + 1 == n && k == c ? " and " : ", ",
					at_line[i]);
		if (count[i] > 1 && !(n == 1 && k == c))
			off += (size_t)snprintf(lines + off, sizeof(lines) - off,
						" (%zu matches)", count[i]);
	}
	if (k < c)
		snprintf(lines + off, sizeof(lines) - off, ", ...");
	ws_error_set(WS_EEDIT_AMBIGUOUS, NULL,
		     "the old text matches %zu times (%s %s); give more "
		     "context to make it unique, or replace every match with --all",
		     c, n == 1 && k == c ? "all on line" : "at lines", lines);
	ws_error_set_hint("include surrounding lines in --old so that it "
			  "matches once, or replace all %zu with --all", c);
	return WS_EEDIT_AMBIGUOUS;
}

/* Whitespace for a near match: what a model most often gets wrong. */
static bool
ws__is_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' ||
	       ch == '\v' || ch == '\f';
}

/* Files larger than this get no near-match search (it costs a copy). */
#define WS__NEAR_MAX (8u * 1024 * 1024)

/*
 * Find old in text ignoring whitespace: both are stripped of it and
 * compared, and the first match is mapped back to the lines of text it
 * spans.  Returns false when there is none (or the text is too large).
 */
static bool
ws__near(const char *text, size_t len, const char *old, size_t oldlen,
	 size_t *lo, size_t *hi)
{
	char *st = NULL, *so = NULL;
	uint32_t *map = NULL;
	size_t ns = 0, no = 0;
	const char *p;
	bool found = false;

	if (len > WS__NEAR_MAX)
		return false;
	st = malloc(len + 1);
	so = malloc(oldlen + 1);
	map = malloc((len + 1) * sizeof(*map));
	if (st == NULL || so == NULL || map == NULL)
		goto out;
	for (size_t i = 0; i < len; i++)
		if (!ws__is_ws(text[i])) {
			map[ns] = (uint32_t)i;
			st[ns++] = text[i];
		}
	for (size_t i = 0; i < oldlen; i++)
		if (!ws__is_ws(old[i]))
			so[no++] = old[i];
	if (no == 0 || ns < no)
		goto out;
	p = memmem(st, ns, so, no);
	if (p != NULL) {
		size_t a = (size_t)(p - st);

		*lo = ws__line_at(text, map[a]);
		*hi = ws__line_at(text, map[a + no - 1]);
		found = true;
	}
out:
	free(st);
	free(so);
	free(map);
	return found;
}

/*
 * EDIT_NO_MATCH, saying what nearly matched: the text without its
 * trailing newline (the file's last line has none), the text with CRLF
 * line ends (the file has them), or the text ignoring whitespace.
 */
static int
ws__no_match(const char *text, size_t len, const char *old, size_t oldlen)
{
	size_t lo = 0, hi = 0, trim = oldlen;
	const char *why = NULL;
	const char *p;

	while (trim > 0 && (old[trim - 1] == '\n' || old[trim - 1] == '\r'))
		trim--;
	if (trim > 0 && trim < oldlen &&
	    (p = memmem(text, len, old, trim)) != NULL) {
		size_t at = (size_t)(p - text), end = at + trim;

		lo = ws__line_at(text, at);
		hi = ws__line_at(text, end - 1);
		if (end == len)
			why = "but for its trailing newline (the file does not "
			      "end with one)";
		else if (text[end] == '\r')
			why = "but for its line ends (the file has CRLF line ends)";
		else
			why = "but for its trailing newline";
	}
	if (why == NULL && memchr(old, '\n', oldlen) != NULL &&
	    memmem(text, len, "\r\n", 2) != NULL && ws__near(text, len, old, oldlen,
							   &lo, &hi))
		why = "but for its line ends (the file has CRLF line ends)";
	if (why == NULL && ws__near(text, len, old, oldlen, &lo, &hi))
		why = "if whitespace is ignored (indentation, tabs against "
		      "spaces, line breaks)";
	if (why == NULL) {
		ws_error_set(WS_EEDIT_NO_MATCH, NULL,
			     "the old text was not found (it must match "
			     "exactly, whitespace included)");
		ws_error_set_hint("read the file again and copy --old from it exactly");
		return WS_EEDIT_NO_MATCH;
	}
	if (lo == hi)
		ws_error_set(WS_EEDIT_NO_MATCH, NULL,
			     "the old text was not found exactly; it matches at "
			     "line %zu %s", lo, why);
	else
		ws_error_set(WS_EEDIT_NO_MATCH, NULL,
			     "the old text was not found exactly; it matches at "
			     "lines %zu-%zu %s", lo, hi, why);
	ws_error_set_hint("read lines %zu-%zu and copy --old from them exactly, "
			  "whitespace and line ends included", lo, hi);
	return WS_EEDIT_NO_MATCH;
}

int
ws_edit_replace(const char *text, size_t len, const char *old, size_t oldlen,
		const char *repl, size_t repllen, bool all, char **out,
		size_t *outlen, size_t *count)
{
	size_t c = 0, pos = 0, grow, total;
	const char *p;
	char *buf, *w;

	*out = NULL;
	*outlen = 0;
	*count = 0;
	if (oldlen == 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "the old text to replace is empty");
	while (pos + oldlen <= len &&
	       (p = memmem(text + pos, len - pos, old, oldlen)) != NULL) {
		c++;
		pos = (size_t)(p - text) + oldlen;
	}
	*count = c;
	if (c == 0)
		return ws__no_match(text, len, old, oldlen);
	if (c > 1 && !all)
		return ws__ambiguous(text, len, old, oldlen, c);
	/*
	 * The input is capped by the caller, but a short old text matched
	 * many times and replaced by a long one multiplies it: 4 MB of "a"
	 * with a 5 KB replacement would be 20 GB.  So the result has the same
	 * cap, checked on its size before anything is allocated.
	 */
	if (__builtin_mul_overflow(c, repllen, &grow) ||
	    __builtin_add_overflow(len - c * oldlen, grow, &total))
		return ws_error_set(WS_EFILE_TOO_LARGE, NULL,
				    "the edited file would be larger than %zu "
				    "bytes, over the limit of %d bytes",
				    SIZE_MAX, WS_EDIT_MAX);
	if (total > WS_EDIT_MAX)
		return ws_error_set(WS_EFILE_TOO_LARGE, NULL,
				    "the edited file would be %zu bytes, over "
				    "the limit of %d bytes", total, WS_EDIT_MAX);
	buf = malloc(total + 1);
	if (buf == NULL)
		return ws__nomem();
	w = buf;
	pos = 0;
	while (pos + oldlen <= len &&
	       (p = memmem(text + pos, len - pos, old, oldlen)) != NULL) {
		size_t pre = (size_t)(p - (text + pos));

		memcpy(w, text + pos, pre);
		w += pre;
		memcpy(w, repl, repllen);
		w += repllen;
		pos = (size_t)(p - text) + oldlen;
	}
	memcpy(w, text + pos, len - pos);
	w += len - pos;
	*w = '\0';
	*out = buf;
	*outlen = total;
	return 0;
}

int
ws_edit_apply(const char *text, size_t len, const struct ws_edit *edits,
	      size_t n, char **out, size_t *outlen, size_t *count)
{
	char *cur = NULL;
	size_t curlen = len, total = 0;

	*out = NULL;
	*outlen = 0;
	*count = 0;
	if (n == 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL, "no edits given");
	/*
	 * Each edit scans and copies the whole text the ones before it
	 * left: bounded in number, and stopped between two when the call
	 * is cancelled (a thousand edits of a large file take minutes).
	 */
	if (n > WS_EDITS_MAX)
		return ws_error_set(WS_ELIMIT_EXCEEDED, NULL, "%zu edits in one "
				    "call, over the limit of %d", n, WS_EDITS_MAX);
	for (size_t i = 0; i < n; i++) {
		const struct ws_edit *e = &edits[i];
		char *next;
		size_t nextlen, c;
		int rc;

		if (i > 0 && ws_cancelled()) {
			free(cur);
			return ws_error_set(WS_EIO_ERROR, NULL, "cancelled after "
					    "%zu of %zu edits; nothing was written",
					    i, n);
		}

		rc = ws_edit_replace(cur ? cur : text, curlen, e->old, e->oldlen,
				     e->repl, e->repllen, e->all, &next, &nextlen,
				     &c);
		if (rc < 0) {
			free(cur);
			if (n > 1) {
				char *msg = strdup(ws_error_last());
				char *hint = ws_error_last_hint() ?
					     strdup(ws_error_last_hint()) : NULL;

				ws_error_set(rc, NULL, "edit %zu of %zu: %s%s", i + 1,
					     n, msg ? msg : "",
					     i > 0 ? " (in the text the edits before "
					     "it left; nothing was written)" : "");
				if (hint != NULL)
					ws_error_set_hint("%s", hint);
				free(msg);
				free(hint);
			}
			return rc;
		}
		free(cur);
		cur = next;
		curlen = nextlen;
		total += c;
	}
	*out = cur;
	*outlen = curlen;
	*count = total;
	return 0;
}

int
ws_check_version(const struct stat *st, const char *token, const char *path)
{
	char now[WS_VERSION_LEN];

	if (token == NULL)
		return 0;
	if (st == NULL) {
		ws_error_set(WS_EVERSION_MISMATCH, path,
			     "does not exist any more (if_version was %s)", token);
		ws_error_set_hint("list or read it again before changing it");
		return WS_EVERSION_MISMATCH;
	}
	if (ws_version_matches(st, token))
		return 0;
	ws_error_set(WS_EVERSION_MISMATCH, path,
		     "changed since it was read (version %s, if_version was %s); "
		     "nothing was changed", ws_version_token(st, now), token);
	ws_error_set_hint("read it again and redo the change on what it holds now");
	return WS_EVERSION_MISMATCH;
}

/* ------------------------------------------------------------------ */
/* Unified diff                                                         */

/*
 * Myers' O(ND) algorithm on the lines that differ once the common head
 * and tail are set aside.  Its trace costs O(D^2) memory and its snakes
 * O((N+M)D) time, so both are bounded; past the bound the middle is shown
 * as removed and added as a whole, which is still a correct diff.
 */
#define WS__DIFF_MAXD 1000
#define WS__DIFF_WORK (50 * 1000 * 1000)

struct ws__line {
	const char *p;
	size_t n; /* with its newline, if it has one */
	uint64_t h;
};

static int
ws__split_lines(const char *s, size_t len, struct ws__line **out, size_t *nout)
{
	size_t n = 0, i = 0;
	struct ws__line *l;

	for (size_t k = 0; k < len; k++)
		if (s[k] == '\n')
			n++;
	if (len > 0 && s[len - 1] != '\n')
		n++;
	l = calloc(n ? n : 1, sizeof(*l));
	if (l == NULL)
		return ws__nomem();
	for (size_t k = 0; k < len; i++) {
		const char *e = memchr(s + k, '\n', len - k);
		size_t m = e ? (size_t)(e - (s + k)) + 1 : len - k;
		uint64_t h = 1469598103934665603ull;

		for (size_t j = 0; j < m; j++)
			h = (h ^ (unsigned char)s[k + j]) * 1099511628211ull;
		l[i].p = s + k;
		l[i].n = m;
		l[i].h = h;
		k += m;
	}
	*out = l;
	*nout = n;
	return 0;
}

static bool
ws__line_eq(const struct ws__line *x, const struct ws__line *y)
{
	return x->h == y->h && x->n == y->n && memcmp(x->p, y->p, x->n) == 0;
}

/*
 * Mark da[i] for every deleted line of a[0..n) and ib[j] for every line of
 * b[0..m) inserted.  Returns 1 when done, 0 when over the bounds (nothing
 * marked), or a negative error.
 */
static int
ws__myers(const struct ws__line *a, long n, const struct ws__line *b, long m,
	  bool *da, bool *ib)
{
	long maxd = n + m < WS__DIFF_MAXD ? n + m : WS__DIFF_MAXD;
	long off = maxd + 1, work = 0, d, k, x, y;
	long *v = calloc((size_t)(2 * maxd + 3), sizeof(*v));
	long **trace = calloc((size_t)maxd + 1, sizeof(*trace));
	int rc = 0;

	if (v == NULL || trace == NULL) {
		rc = ws__nomem();
		goto out;
	}
	v[off + 1] = 0;
	for (d = 0; d <= maxd; d++) {
		/* Keep V as it was before this round: k in [-d, d]. */
		trace[d] = malloc((size_t)(2 * d + 1) * sizeof(long));
		if (trace[d] == NULL) {
			rc = ws__nomem();
			goto out;
		}
		memcpy(trace[d], v + off - d, (size_t)(2 * d + 1) * sizeof(long));
		for (k = -d; k <= d; k += 2) {
			if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
				x = v[off + k + 1];
			else
				x = v[off + k - 1] + 1;
			y = x - k;
			while (x < n && y < m && ws__line_eq(&a[x], &b[y])) {
				x++;
				y++;
				work++;
			}
			v[off + k] = x;
			if (++work > WS__DIFF_WORK)
				goto out; /* over the time bound */
			if (x >= n && y >= m)
				goto found;
		}
	}
	goto out; /* over the memory bound */
found:
	x = n;
	y = m;
	for (; d > 0; d--) {
		const long *pv = trace[d] + d; /* pv[k] for k in [-d, d] */
		long pk, px, py;

		k = x - y;
		if (k == -d || (k != d && pv[k - 1] < pv[k + 1]))
			pk = k + 1;
		else
			pk = k - 1;
		px = pv[pk];
		py = px - pk;
		if (pk == k + 1)
			ib[py] = true;
		else
			da[px] = true;
		x = px;
		y = py;
	}
	rc = 1;
out:
	if (trace != NULL)
		for (d = 0; d <= maxd; d++)
			free(trace[d]);
	free(trace);
	free(v);
	return rc;
}

/* An output buffer that refuses to grow past its limit. */
struct ws__dbuf {
	char *p;
	size_t n, alloc, limit;
	bool full;
};

static int
ws__dbuf_add(struct ws__dbuf *b, const char *s, size_t n)
{
	if (b->full)
		return 0;
	if (b->n + n > b->limit) {
		b->full = true;
		return 0;
	}
	if (b->n + n + 1 > b->alloc) {
		size_t na = (b->n + n + 1) * 2;
		char *np;

		if (na > b->limit + 1)
			na = b->limit + 1;
		np = realloc(b->p, na);
		if (np == NULL)
			return ws__nomem();
		b->p = np;
		b->alloc = na;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
	return 0;
}

/* One diff line: prefix, text, and the no-newline marker when needed. */
static int
ws__dbuf_line(struct ws__dbuf *b, char prefix, const struct ws__line *l)
{
	static const char nonl[] = "\n\\ No newline at end of file\n";
	bool eol = l->n > 0 && l->p[l->n - 1] == '\n';
	size_t need = 1 + l->n + (eol ? 0 : sizeof(nonl) - 1);
	char *tmp;
	int rc;

	if (b->full || b->n + need > b->limit) {
		b->full = true;
		return 0;
	}
	tmp = malloc(need);
	if (tmp == NULL)
		return ws__nomem();
	tmp[0] = prefix;
	memcpy(tmp + 1, l->p, l->n);
	if (!eol)
		memcpy(tmp + 1 + l->n, nonl, sizeof(nonl) - 1);
	rc = ws__dbuf_add(b, tmp, need);
	free(tmp);
	return rc;
}

/* A hunk range as diff -u writes it: "L" for one line, "L,N" else. */
static void
ws__range(char *buf, size_t sz, size_t lo, size_t cnt)
{
	if (cnt == 1)
		snprintf(buf, sz, "%zu", lo + 1);
	else if (cnt == 0)
		snprintf(buf, sz, "%zu,0", lo);
	else
		snprintf(buf, sz, "%zu,%zu", lo + 1, cnt);
}

struct ws__change {
	size_t a0, a1, b0, b1; /* a[a0..a1) replaced by b[b0..b1) */
};

int
ws_diff_unified(const char *a, size_t alen, const char *b, size_t blen,
		const char *label_a, const char *label_b, size_t cap,
		char **out, size_t *outlen, bool *truncated)
{
	struct ws__dbuf o = {.limit = cap};
	struct ws__line *la = NULL, *lb = NULL;
	struct ws__change *ch = NULL;
	bool *da = NULL, *ib = NULL;
	size_t na = 0, nb = 0, nch = 0, pre = 0, suf = 0;
	int rc;

	*out = NULL;
	*outlen = 0;
	*truncated = false;
	if (a == NULL)
		a = "";
	if (b == NULL)
		b = "";
	if (alen == blen && memcmp(a, b, alen) == 0)
		goto done;
	if (memchr(a, '\0', alen) != NULL || memchr(b, '\0', blen) != NULL) {
		char *line = NULL;

		if (asprintf(&line, "Binary files %s and %s differ\n", label_a,
			     label_b) < 0)
			return ws__nomem();
		rc = ws__dbuf_add(&o, line, strlen(line));
		free(line);
		if (rc < 0)
			goto fail;
		goto done;
	}
	if ((rc = ws__split_lines(a, alen, &la, &na)) < 0 ||
	    (rc = ws__split_lines(b, blen, &lb, &nb)) < 0)
		goto fail;
	da = calloc(na + 1, sizeof(*da));
	ib = calloc(nb + 1, sizeof(*ib));
	if (da == NULL || ib == NULL) {
		rc = ws__nomem();
		goto fail;
	}
	while (pre < na && pre < nb && ws__line_eq(&la[pre], &lb[pre]))
		pre++;
	while (suf < na - pre && suf < nb - pre &&
	       ws__line_eq(&la[na - 1 - suf], &lb[nb - 1 - suf]))
		suf++;
	rc = ws__myers(la + pre, (long)(na - pre - suf), lb + pre,
		       (long)(nb - pre - suf), da + pre, ib + pre);
	if (rc < 0)
		goto fail;
	if (rc == 0) {
		for (size_t i = pre; i < na - suf; i++)
			da[i] = true;
		for (size_t j = pre; j < nb - suf; j++)
			ib[j] = true;
	}
	/* Collect the changes: runs of deleted and inserted lines. */
	ch = calloc(na + nb + 1, sizeof(*ch));
	if (ch == NULL) {
		rc = ws__nomem();
		goto fail;
	}
	for (size_t i = 0, j = 0; i < na || j < nb;) {
		if (i < na && j < nb && !da[i] && !ib[j]) {
			i++;
			j++;
			continue;
		}
		ch[nch].a0 = i;
		ch[nch].b0 = j;
		while (i < na && da[i])
			i++;
		while (j < nb && ib[j])
			j++;
		ch[nch].a1 = i;
		ch[nch].b1 = j;
		if (ch[nch].a0 == i && ch[nch].b0 == j) {
			/* Cannot happen with a consistent script; never loop. */
			rc = ws_error_set(WS_EIO_ERROR, NULL, "diff: bad edit script");
			goto fail;
		}
		nch++;
	}
	{
		char *hdr = NULL;

		if (asprintf(&hdr, "--- %s\n+++ %s\n", label_a, label_b) < 0) {
			rc = ws__nomem();
			goto fail;
		}
		rc = ws__dbuf_add(&o, hdr, strlen(hdr));
		free(hdr);
		if (rc < 0)
			goto fail;
	}
	for (size_t h = 0; h < nch && !o.full;) {
		size_t e = h, alo, ahi, blo, bhi, cur;
		char ra[48], rb[48], line[128];

		/* Changes closer than twice the context share one hunk. */
		while (e + 1 < nch &&
		       ch[e + 1].a0 - ch[e].a1 <= 2 * WS_DIFF_CONTEXT)
			e++;
		alo = ch[h].a0 > WS_DIFF_CONTEXT ? ch[h].a0 - WS_DIFF_CONTEXT : 0;
		blo = ch[h].b0 - (ch[h].a0 - alo);
		ahi = ch[e].a1 + WS_DIFF_CONTEXT < na ? ch[e].a1 + WS_DIFF_CONTEXT : na;
		bhi = ch[e].b1 + (ahi - ch[e].a1);
		ws__range(ra, sizeof(ra), alo, ahi - alo);
		ws__range(rb, sizeof(rb), blo, bhi - blo);
		snprintf(line, sizeof(line), "@@ -%s +%s @@\n", ra, rb);
		if ((rc = ws__dbuf_add(&o, line, strlen(line))) < 0)
			goto fail;
		cur = alo;
		for (size_t c = h; c <= e; c++) {
			for (; cur < ch[c].a0; cur++)
				if ((rc = ws__dbuf_line(&o, ' ', &la[cur])) < 0)
					goto fail;
			for (size_t i = ch[c].a0; i < ch[c].a1; i++)
				if ((rc = ws__dbuf_line(&o, '-', &la[i])) < 0)
					goto fail;
			for (size_t j = ch[c].b0; j < ch[c].b1; j++)
				if ((rc = ws__dbuf_line(&o, '+', &lb[j])) < 0)
					goto fail;
			cur = ch[c].a1;
		}
		for (; cur < ahi; cur++)
			if ((rc = ws__dbuf_line(&o, ' ', &la[cur])) < 0)
				goto fail;
		h = e + 1;
	}
done:
	if (o.p == NULL) {
		o.p = calloc(1, 1);
		if (o.p == NULL) {
			rc = ws__nomem();
			goto fail;
		}
	}
	*out = o.p;
	*outlen = o.n;
	*truncated = o.full;
	o.p = NULL;
	rc = 0;
fail:
	free(o.p);
	free(la);
	free(lb);
	free(da);
	free(ib);
	free(ch);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Atomic replacement                                                   */

/*
 * Temporary names.  ".NAME.wswrite-" and exactly WS__TMP_RND letters and
 * digits: a shape no one gives a file of their own, matched exactly by
 * ws__is_tmpname() so that the sweep below never takes a user's file.
 *
 * Liveness is a lock, not a process id: a writer holds flock(LOCK_EX) on
 * its temporary file for as long as the file has a name, and the kernel
 * drops the lock when the process ends, SIGKILL included.  A temporary
 * file that can be locked has no live writer, whatever became of its pid
 * (reused, or in another PID namespace, as inside wsrun), and the next
 * write in the directory removes it.
 */
#define WS__TMP_TAG ".wswrite-"
#define WS__TMP_RND 12

/* ".NAME.wswrite-RRRRRRRRRRRR", NAME shortened so the whole fits NAME_MAX. */
static void
ws__tmpname(const char *name, char *buf, size_t sz)
{
	static const char al[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[WS__TMP_RND];
	char suf[WS__TMP_RND + 1];

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		/* No entropy yet (early boot): O_EXCL still keeps us safe. */
		struct timespec ts;
		uint64_t x;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (uint64_t)ts.tv_nsec * 6364136223846793005ull ^
		    (uint64_t)getpid() ^ (uint64_t)(uintptr_t)buf;
		for (size_t i = 0; i < sizeof(rnd); i++) {
			rnd[i] = (unsigned char)x;
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			x ^= x >> 29;
		}
	}
	for (size_t i = 0; i < WS__TMP_RND; i++)
		suf[i] = al[rnd[i] % (sizeof(al) - 1)];
	suf[WS__TMP_RND] = '\0';
	snprintf(buf, sz, ".%.*s" WS__TMP_TAG "%s", 200, name, suf);
}

/* Whether a directory entry's name has the exact shape of ws__tmpname(). */
static bool
ws__is_tmpname(const char *d)
{
	size_t len = strlen(d), tag = sizeof(WS__TMP_TAG) - 1;
	const char *r;

	/* ".", at least one byte of NAME, the tag, the random part. */
	if (d[0] != '.' || len < 2 + tag + WS__TMP_RND)
		return false;
	r = d + len - WS__TMP_RND;
	if (memcmp(r - tag, WS__TMP_TAG, tag) != 0)
		return false;
	for (size_t i = 0; i < WS__TMP_RND; i++)
		if (!((r[i] >= 'a' && r[i] <= 'z') || (r[i] >= 'A' && r[i] <= 'Z') ||
		      (r[i] >= '0' && r[i] <= '9')))
			return false;
	return true;
}

/*
 * Remove the temporary files in the directory open on dfd whose writer is
 * gone: those of the exact shape that are regular files and can be locked.
 * Best effort and quiet (a write never fails for it).  The lock is taken
 * on a descriptor of the file, and the name is unlinked only while it
 * still names that inode, through dfd (unlinkat), never by path.
 */
static void
ws__sweep(int dfd)
{
	int lfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *e;

	if (lfd < 0)
		return;
	d = fdopendir(lfd);
	if (d == NULL) {
		close(lfd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		struct stat a, b;
		int fd;

		if ((e->d_type != DT_REG && e->d_type != DT_UNKNOWN) ||
		    !ws__is_tmpname(e->d_name))
			continue;
		fd = openat(dfd, e->d_name,
			    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &a) == 0 && S_ISREG(a.st_mode) &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0) {
			if (fstatat(dfd, e->d_name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
			    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
				unlinkat(dfd, e->d_name, 0);
			/* Not only by the close: see ws__nlock_drop(). */
			(void)flock(fd, LOCK_UN);
		}
		close(fd);
	}
	closedir(d);
}

/*
 * The signals a harness or a person sends to stop a tool.  Arriving while
 * a named temporary file exists, one of them would end the process before
 * it removed the file, and ".NAME.wswrite-XXXXXX" would stay behind.
 */
static const int ws__stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};
#define WS__NSTOP (sizeof(ws__stop_sigs) / sizeof(ws__stop_sigs[0]))

static void
ws__block_stop(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < WS__NSTOP; i++)
		sigaddset(&set, ws__stop_sigs[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/*
 * The named temporary files of the fallback path, for the handler below.
 * Calls that run side by side (wstools mcp) may each have one, so each
 * takes a slot, whose state moves only by atomic operations: the handler
 * runs on any thread while the others go on, and must neither read a
 * name being written nor miss a file being created.
 *   FREE -> PENDING (claimed before the file is created; its name may
 *   change while it is PENDING) -> ARMED (the file exists under the name)
 *   -> FREE (disarmed), or ARMED -> TAKEN (the handler removed the file;
 *   the slot stays taken, the process is about to die).
 * The handler first sets ws__tmp_dying, then waits out the PENDING slots
 * and removes the ARMED files; a writer claims its slot and then looks
 * at ws__tmp_dying (both sequentially consistent), so either the handler
 * sees the claim or the writer sees the flag and creates nothing.
 * A call that finds every slot taken writes unarmed: a stop signal then
 * leaves its ".NAME.wswrite-XXXXXX" behind (as a kill -9 would) for the
 * next writer's sweep (ws__sweep()).
 */
enum { WS__SLOT_FREE, WS__SLOT_PENDING, WS__SLOT_ARMED, WS__SLOT_TAKEN };
#define WS__NSLOTS 64

static struct {
	atomic_int state;
	int dirfd;
	char name[WS_NAME_MAX + 1];
} ws__tmp_slot[WS__NSLOTS];
static atomic_int ws__tmp_dying;

/*
 * Whether the handler is installed, for how many slots, and the actions
 * it replaced: changed under a mutex (never taken by the handler), the
 * first claim installs it and the last release restores them.
 */
static pthread_mutex_t ws__tmp_mu = PTHREAD_MUTEX_INITIALIZER;
static size_t ws__tmp_users;
static struct sigaction ws__tmp_oldact[WS__NSTOP];
static bool ws__tmp_hooked[WS__NSTOP];

/*
 * Remove the temporary files, then die of the signal as we would have
 * without the handler (it is blocked here, so it is delivered, with the
 * default action, as the handler returns).  Only async-signal-safe calls.
 */
static void
ws__tmp_on_signal(int sig)
{
	struct sigaction dfl;
	int saved = errno;

	atomic_store(&ws__tmp_dying, 1);
	for (size_t i = 0; i < WS__NSLOTS; i++) {
		int st = atomic_load(&ws__tmp_slot[i].state);

		/* Being created: a system call away from ARMED or FREE. */
		for (int w = 0; st == WS__SLOT_PENDING && w < 2000; w++) {
			struct timespec ms = {0, 1000000};

			nanosleep(&ms, NULL);
			st = atomic_load(&ws__tmp_slot[i].state);
		}
		if (st == WS__SLOT_ARMED &&
		    atomic_compare_exchange_strong(&ws__tmp_slot[i].state, &st,
						   WS__SLOT_TAKEN))
			unlinkat(ws__tmp_slot[i].dirfd, ws__tmp_slot[i].name, 0);
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig);
	errno = saved;
}

/*
 * Claim a slot before the temporary file is created; called with the
 * stop signals blocked.  Only signals left at their default action
 * (which would kill us) are caught: a program with its own handlers, or
 * ignoring them, keeps its choice.  Returns the slot, -1 if none was
 * free (the write goes on unarmed), or a negative error if a stop signal
 * is being handled (the process is about to die: nothing is created).
 */
static int
ws__tmp_claim(void)
{
	struct sigaction sa;
	int slot = -1;

	for (int i = 0; i < WS__NSLOTS && slot < 0; i++) {
		int free_ = WS__SLOT_FREE;

		if (atomic_compare_exchange_strong(&ws__tmp_slot[i].state, &free_,
						   WS__SLOT_PENDING))
			slot = i;
	}
	if (atomic_load(&ws__tmp_dying)) {
		if (slot >= 0)
			atomic_store(&ws__tmp_slot[slot].state, WS__SLOT_FREE);
		return ws_error_set(WS_EIO_ERROR, NULL, "stopping on a signal");
	}
	if (slot < 0)
		return -1;
	pthread_mutex_lock(&ws__tmp_mu);
	if (ws__tmp_users++ == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = ws__tmp_on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < WS__NSTOP; i++)
			sigaddset(&sa.sa_mask, ws__stop_sigs[i]);
		for (size_t i = 0; i < WS__NSTOP; i++) {
			ws__tmp_hooked[i] = false;
			if (sigaction(ws__stop_sigs[i], NULL, &ws__tmp_oldact[i]) == 0 &&
			    !(ws__tmp_oldact[i].sa_flags & SA_SIGINFO) &&
			    ws__tmp_oldact[i].sa_handler == SIG_DFL &&
			    sigaction(ws__stop_sigs[i], &sa, NULL) == 0)
				ws__tmp_hooked[i] = true;
		}
	}
	pthread_mutex_unlock(&ws__tmp_mu);
	return slot;
}

/* The name the claimed slot's file is about to be created under. */
static void
ws__tmp_name_set(int slot, int dirfd, const char *tmp)
{
	if (slot < 0)
		return;
	snprintf(ws__tmp_slot[slot].name, sizeof(ws__tmp_slot[slot].name), "%s", tmp);
	ws__tmp_slot[slot].dirfd = dirfd;
}

/* The file exists under the slot's name: the handler removes it now. */
static void
ws__tmp_arm(int slot)
{
	if (slot >= 0)
		atomic_store(&ws__tmp_slot[slot].state, WS__SLOT_ARMED);
}

/*
 * Release a slot (ARMED or still PENDING); called with the stop signals
 * blocked.  The last one restores an action only where the handler is
 * still ours: another thread (wsrun's in-process hook) may have set its
 * own since.
 */
static void
ws__tmp_disarm(int slot)
{
	int st;

	if (slot < 0)
		return;
	st = atomic_load(&ws__tmp_slot[slot].state);
	/* Taken by the handler: the process is dying, the slot stays. */
	if (st == WS__SLOT_TAKEN ||
	    !atomic_compare_exchange_strong(&ws__tmp_slot[slot].state, &st,
					    WS__SLOT_FREE))
		return;
	pthread_mutex_lock(&ws__tmp_mu);
	if (--ws__tmp_users == 0) {
		for (size_t i = 0; i < WS__NSTOP; i++) {
			struct sigaction cur;

			if (ws__tmp_hooked[i] &&
			    sigaction(ws__stop_sigs[i], NULL, &cur) == 0 &&
			    !(cur.sa_flags & SA_SIGINFO) &&
			    cur.sa_handler == ws__tmp_on_signal)
				sigaction(ws__stop_sigs[i], &ws__tmp_oldact[i], NULL);
			ws__tmp_hooked[i] = false;
		}
	}
	pthread_mutex_unlock(&ws__tmp_mu);
}

/* Fill the new file fd: data, owner and mode of old, fsync; its stat
 * then into *made (when not NULL), which a name does not change. */
static int
ws__fill(int fd, const void *data, size_t n, const struct stat *old,
	 unsigned flags, struct stat *made)
{
	int rc;

	if ((rc = ws__full_write(fd, data, n)) < 0)
		return rc;
	if (old != NULL) {
		/*
		 * Keep the owner when we can (root replacing a user's file);
		 * failing to is not an error, the mode is what matters.  The
		 * mode comes after, since chown clears set-id bits.  New
		 * content never inherits set-user-id or set-group-id: the
		 * kernel clears them on a write by anyone without
		 * CAP_FSETID, and a replace is such a write.
		 */
		if ((old->st_uid != geteuid() || old->st_gid != getegid()) &&
		    fchown(fd, old->st_uid, old->st_gid) < 0)
			errno = 0;
		if (fchmod(fd, old->st_mode & 07777 & ~(mode_t)(S_ISUID | S_ISGID)) < 0)
			return ws_error_errno(errno, NULL, "chmod");
	}
	if (!(flags & WS_ATOMIC_NOSYNC) && fsync(fd) < 0)
		return ws_error_errno(errno, NULL, "fsync");
	if (made != NULL && fstat(fd, made) < 0)
		return ws_error_errno(errno, NULL, "fstat");
	return 0;
}

/*
 * The preferred way: the data goes to an unnamed O_TMPFILE file, which
 * vanishes with the process however it ends, and gets a name only once it
 * is complete -- the final name at once for NOREPLACE (link(2) refuses an
 * existing name), else a temporary one that is renamed over name at once,
 * with the stop signals blocked across those two calls.  Returns 1 when
 * the filesystem or the system lacks O_TMPFILE or /proc (the caller then
 * uses a named temporary file), else 0 or an error.
 */
static int
ws__atomic_tmpfile(int dirfd, const char *name, const void *data, size_t n,
		   const struct stat *old, unsigned flags, struct stat *made)
{
	char proc[64], tmp[WS_NAME_MAX + 1];
	sigset_t mask;
	int fd, rc, tries;

	/* Mode as for a named file; the umask applies the same way. */
	fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC,
		    old ? 0600 : 0666);
	if (fd < 0)
		return 1; /* the named path reports any real error */
	/*
	 * Locked before it has a name: the temporary name it gets below is
	 * then never taken for a dead writer's (see ws__sweep()).
	 */
	(void)flock(fd, LOCK_EX | LOCK_NB);
	if ((rc = ws__fill(fd, data, n, old, flags, made)) < 0)
		goto out;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (flags & WS_ATOMIC_NOREPLACE) {
		if (linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW) < 0)
			rc = errno == ENOENT ? 1 : ws_error_errno(errno, NULL, "link");
		goto out;
	}
	for (tries = 0; tries < 100; tries++) {
		ws__tmpname(name, tmp, sizeof(tmp));
		ws__block_stop(&mask);
		if (linkat(AT_FDCWD, proc, dirfd, tmp, AT_SYMLINK_FOLLOW) < 0) {
			int e = errno;

			sigprocmask(SIG_SETMASK, &mask, NULL);
			if (e == EEXIST)
				continue;
			rc = e == ENOENT ? 1 : ws_error_errno(e, NULL, "link");
			goto out;
		}
		if (renameat(dirfd, tmp, dirfd, name) < 0) {
			rc = ws_error_errno(errno, NULL, "rename");
			unlinkat(dirfd, tmp, 0);
		}
		sigprocmask(SIG_SETMASK, &mask, NULL);
		goto out;
	}
	rc = ws_error_errno(EEXIST, NULL, "create a temporary file");
out:
	/* Unlocked, not only closed: see ws__nlock_drop(). */
	(void)flock(fd, LOCK_UN);
	close(fd);
	return rc;
}

/*
 * The fallback: a named temporary file in the directory, removed on any
 * failure, and by a handler should a stop signal come meanwhile.
 */
static int
ws__atomic_named(int dirfd, const char *name, const void *data, size_t n,
		 const struct stat *old, unsigned flags, struct stat *made)
{
	char tmp[WS_NAME_MAX + 1];
	sigset_t mask;
	int fd = -1, hold, rc = 0, tries, slot;

	ws__block_stop(&mask);
	if ((slot = ws__tmp_claim()) < -1) {
		sigprocmask(SIG_SETMASK, &mask, NULL);
		return slot;
	}
	for (tries = 0; tries < 100; tries++) {
		struct stat st;

		ws__tmpname(name, tmp, sizeof(tmp));
		ws__tmp_name_set(slot, dirfd, tmp);
		/* A new file gets 0666 less the umask, as the kernel applies it. */
		fd = openat(dirfd, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    old ? 0600 : 0666);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			break;
		/*
		 * Claim it (ws__sweep()).  A sweep in another process may
		 * have come between the create and the lock: then it holds
		 * the lock, or has already removed the name, and removes it
		 * in any case; this writer takes another name.
		 */
		if (flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK) {
			close(fd);
			fd = -1;
			continue;
		}
		if (fstat(fd, &st) == 0 && st.st_nlink == 0) {
			close(fd);
			fd = -1;
			continue;
		}
		break;
	}
	if (fd < 0) {
		rc = ws_error_errno(errno ? errno : EEXIST, NULL,
				    "create a temporary file");
		ws__tmp_disarm(slot);
		sigprocmask(SIG_SETMASK, &mask, NULL);
		return rc;
	}
	/*
	 * The lock belongs to the open file, which must outlive close(fd)
	 * (whose error, on NFS, is a write error) until the rename: a
	 * duplicate descriptor holds it.
	 */
	hold = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	ws__tmp_arm(slot);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	rc = ws__fill(fd, data, n, old, flags, made);
	if (close(fd) < 0 && rc == 0)
		rc = ws_error_errno(errno, NULL, "close");
	ws__block_stop(&mask);
	if (rc < 0)
		goto fail;
	if (flags & WS_ATOMIC_NOREPLACE) {
		if (renameat2(dirfd, tmp, dirfd, name, RENAME_NOREPLACE) < 0) {
			if (errno != EINVAL && errno != ENOSYS) {
				rc = ws_error_errno(errno, NULL, "rename");
				goto fail;
			}
			/* A filesystem without it: link(2) refuses names too. */
			if (linkat(dirfd, tmp, dirfd, name, 0) < 0) {
				rc = ws_error_errno(errno, NULL, "link");
				goto fail;
			}
			unlinkat(dirfd, tmp, 0);
		}
	} else if (renameat(dirfd, tmp, dirfd, name) < 0) {
		rc = ws_error_errno(errno, NULL, "rename");
		goto fail;
	}
	goto out;
fail:
	unlinkat(dirfd, tmp, 0);
out:
	if (hold >= 0) {
		/* Unlocked, not only closed: see ws__nlock_drop(). */
		(void)flock(hold, LOCK_UN);
		close(hold);
	}
	ws__tmp_disarm(slot);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	return rc;
}

/* WS_TEST_NAMED_TEMP=1: the tests' way to force the named fallback. */
static bool
ws__env_named(void)
{
	const char *e = getenv("WS_TEST_NAMED_TEMP");

	return e != NULL && strcmp(e, "1") == 0;
}

int
ws_write_atomic(int dirfd, const char *name, const void *data, size_t n,
		const struct stat *old, unsigned flags)
{
	return ws_write_atomic_made(dirfd, name, data, n, old, flags, NULL);
}

int
ws_write_atomic_made(int dirfd, const char *name, const void *data, size_t n,
		     const struct stat *old, unsigned flags, struct stat *made)
{
	int rc = 1;

	/*
	 * Nothing is created in a kernel pseudo-filesystem (a configfs or
	 * cgroup directory makes kernel objects of new entries).
	 */
	if ((rc = ws_fd_check_fs(dirfd)) < 0)
		return rc;
	rc = 1;
	/*
	 * Every write goes through an unnamed O_TMPFILE file where the
	 * filesystem has one: nothing, not even SIGKILL, leaves it behind.
	 * Measured here (tests/bench/bench_wswrite.sh, and 3,000 interleaved
	 * 4 KiB writes): +9 us on ext4 (229 vs 220 us), +4 us on tmpfs, and
	 * nothing measurable with the default fsync.  WS_ATOMIC_NAMED (or
	 * WS_TEST_NAMED_TEMP=1 in the environment, for the tests of the
	 * tools) takes the fallback, a named temporary file.
	 */
	if (!(flags & WS_ATOMIC_NAMED) && !ws__env_named())
		rc = ws__atomic_tmpfile(dirfd, name, data, n, old, flags, made);
	if (rc == 1)
		rc = ws__atomic_named(dirfd, name, data, n, old, flags, made);
	if (rc < 0)
		return rc;
	/*
	 * The temporary files of writers killed in this directory (the
	 * fallback's, or one caught between link and rename) go now.
	 */
	ws__sweep(dirfd);
	if (!(flags & WS_ATOMIC_NOSYNC)) {
		/* Make the rename itself durable; best effort. */
		int dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd >= 0) {
			(void)fsync(dfd);
			close(dfd);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* ws_write: replace, create, append, edit                              */

/* Compute r->diff of old against new, as o asks. */
static int
ws__make_diff(const struct ws_wopts *o, struct ws_wresult *r, const char *a,
	      size_t alen, const char *b, size_t blen, const char *la,
	      const char *lb)
{
	int rc;

	if (alen > WS_DIFF_MAX_INPUT || blen > WS_DIFF_MAX_INPUT) {
		r->diff_truncated = true;
		return 0;
	}
	rc = ws_diff_unified(a, alen, b, blen, la, lb,
			     o->diff_cap ? o->diff_cap : WS_DIFF_CAP, &r->diff,
			     &r->difflen, &r->diff_truncated);
	return rc;
}

/*
 * Whether the file at res is still the one read (st): same inode, size
 * and mtime; else IO_ERROR, nothing written.
 */
static int
ws__unchanged(const struct ws_res *res, const struct stat *st,
	      const char *doing)
{
	struct stat now;

	if (fstatat(res->dirfd, res->name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
	    now.st_dev != st->st_dev || now.st_ino != st->st_ino ||
	    now.st_size != st->st_size ||
	    now.st_mtim.tv_sec != st->st_mtim.tv_sec ||
	    now.st_mtim.tv_nsec != st->st_mtim.tv_nsec)
		return ws_error_set(WS_EIO_ERROR, NULL,
				    "changed while it was being %s; nothing "
				    "was written, try again", doing);
	return 0;
}

/*
 * Append to a file with more than one hard link: never in place, since
 * another name of it may be a file outside the workspace (a hard link
 * placed inside).  The old content (old, if the caller read it for a
 * diff, else read here, up to WS_EDIT_MAX) and the new go to a new file
 * that replaces this name atomically with the old mode and owner; the
 * other names keep the old content.  *rst is the old file's stat.
 */
static int
ws__append_copy(struct ws_res *res, const struct ws_wopts *o,
		const char *old, size_t oldlen, struct stat *rst,
		unsigned aflags, struct stat *made)
{
	char *own = NULL, *joined;
	int fd = -1, rc;

	if (old == NULL) {
		if ((rc = ws_res_open(res, O_RDONLY, &fd)) < 0)
			return rc;
		rc = ws__read_all(fd, WS_EDIT_MAX, &own, &oldlen);
		if (rc == 0 && fstat(fd, rst) < 0)
			rc = ws_error_errno(errno, NULL, "fstat");
		close(fd);
		if (rc == WS_EFILE_TOO_LARGE)
			return ws_error_set(WS_EFILE_TOO_LARGE, NULL,
					    "has %lu hard links, so an append "
					    "copies it rather than change a "
					    "shared file in place, and it is "
					    "over the %d MiB a copy may take",
					    (unsigned long)res->st.st_nlink,
					    WS_EDIT_MAX >> 20);
		if (rc == 0)
			rc = ws_check_version(rst, o->if_version, NULL);
		if (rc < 0) {
			free(own);
			return rc;
		}
		old = own;
	}
	joined = malloc(oldlen + o->len + 1);
	if (joined == NULL) {
		free(own);
		return ws__nomem();
	}
	memcpy(joined, old, oldlen);
	if (o->len)
		memcpy(joined + oldlen, o->content, o->len);
	/* An append made meanwhile through another name would be lost. */
	rc = ws__unchanged(res, rst, "appended to");
	if (rc == 0)
		rc = ws_write_atomic_made(res->dirfd, res->name, joined,
					  oldlen + o->len, rst, aflags, made);
	free(joined);
	free(own);
	return rc;
}

/* Lines in data[0..n): newlines, plus one for an unfinished last line. */
static long long
ws__count_lines(const char *data, size_t n)
{
	long long c = 0;

	for (const char *p = data; (p = memchr(p, '\n', n - (size_t)(p - data)));
	     p++)
		c++;
	return c + (n > 0 && data[n - 1] != '\n');
}

/*
 * Calls side by side in one process (wstools mcp --jobs) change one file
 * one at a time: a call holds the lock of the name it replaces from the
 * version it checks and the content it reads to the rename, so that two
 * edits never both apply to the same old content (one would be lost)
 * and two writes with one if_version never both succeed.  The locks are
 * striped on the parent directory's inode and the name (a rename keeps
 * those, where the file's inode changes).  Other processes: below.
 */
#define WS__NAME_LOCKS 64
static pthread_mutex_t ws__name_lock[WS__NAME_LOCKS];
static pthread_once_t ws__name_lock_once = PTHREAD_ONCE_INIT;

static void
ws__name_lock_init(void)
{
	for (size_t i = 0; i < WS__NAME_LOCKS; i++)
		pthread_mutex_init(&ws__name_lock[i], NULL);
}

/* The lock of name in directory dirfd (never NULL). */
static pthread_mutex_t *
ws__name_lock_of(int dirfd, const char *name)
{
	struct stat d;
	uint64_t h = 1469598103934665603ULL;

	pthread_once(&ws__name_lock_once, ws__name_lock_init);
	if (fstat(dirfd, &d) == 0) {
		h = (h ^ (uint64_t)d.st_dev) * 1099511628211ULL;
		h = (h ^ (uint64_t)d.st_ino) * 1099511628211ULL;
	}
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return &ws__name_lock[h % WS__NAME_LOCKS];
}

/*
 * Across processes (two wswrite --edit, an MCP server and a command line)
 * the same: a change that reads what it replaces, or checks its version,
 * holds flock(LOCK_EX) on the file it replaces from the check and the
 * read to the rename.  The lock is on the file, not its name, so a call
 * that got it checks that the name still holds that file, and else takes
 * the lock of the file that replaced it; a waiter on a file renamed over
 * wakes up on a file that has no name any more and does the same.  Each
 * call opens its own descriptor (its own open file description), so
 * calls side by side in one process exclude each other too.  Nothing is
 * created for it, in the workspace or elsewhere.  The wait is bounded:
 * no lock, no write, after WS__LOCK_WAIT_MS.  Where the file cannot be
 * opened for reading (mode bits), or the filesystem has no flock (NFS
 * for a read-only descriptor), the in-process lock is all there is.
 */
#define WS__LOCK_WAIT_MS 10000

struct ws__nlock {
	pthread_mutex_t *mu;
	int fd;
};

/* The flock side of ws__nlock_take(): 0 (locked or unlockable), 1 to
 * try again, or a negative WS_E*. */
static int
ws__nlock_try(struct ws__nlock *l, int dirfd, const char *name,
	      struct stat *now, bool *exists)
{
	char proc[64];
	struct stat b;
	int pfd, fd, e;

	pfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0) {
		if (errno != ENOENT)
			return ws_error_errno(errno, NULL, "open");
		*exists = false;
		return 0;
	}
	if (fstat(pfd, now) < 0) {
		e = errno;
		close(pfd);
		return ws_error_errno(e, NULL, "fstat");
	}
	*exists = true;
	/* Never open a device or a FIFO, nor a kernel pseudo-file. */
	if ((!S_ISREG(now->st_mode) && !S_ISDIR(now->st_mode)) ||
	    ws_fd_check_fs(pfd) < 0) {
		ws_error_clear();
		close(pfd);
		return 0;
	}
	/* Reopened through the O_PATH descriptor: the same inode. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = S_ISDIR(now->st_mode) ?
	     openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) :
	     open(proc, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		e = errno;
		close(fd);
		return e == EWOULDBLOCK || e == EINTR ? 1 : 0;
	}
	if (fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    b.st_dev == now->st_dev && b.st_ino == now->st_ino) {
		*now = b;
		l->fd = fd;
		return 0;
	}
	close(fd); /* replaced meanwhile: the new one's lock */
	return 1;
}

/*
 * Take the lock of name in dirfd (both the in-process one and the flock
 * above) and stat what it names now (*exists false: nothing).  path is
 * for messages.  On success ws__nlock_drop() releases it.
 */
static int
ws__nlock_take(struct ws__nlock *l, int dirfd, const char *name,
	       const char *path, struct stat *now, bool *exists)
{
	struct timespec t0, t, nap = {0, 1000000};
	int rc;

	l->fd = -1;
	l->mu = ws__name_lock_of(dirfd, name);
	pthread_mutex_lock(l->mu);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((rc = ws__nlock_try(l, dirfd, name, now, exists)) == 1) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (ws_cancelled()) {
			rc = ws_error_set(WS_EIO_ERROR, path, "cancelled while "
					  "waiting for another change to it to end; "
					  "nothing was changed");
			break;
		}
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 >= WS__LOCK_WAIT_MS) {
			rc = ws_error_set(WS_EIO_ERROR, path, "another process has "
					  "been changing it for %d s (it holds "
					  "the file's lock); nothing was changed",
					  WS__LOCK_WAIT_MS / 1000);
			ws_error_set_hint("try again when the other change is done");
			break;
		}
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 32000000)
			nap.tv_nsec *= 2;
	}
	if (rc < 0) {
		pthread_mutex_unlock(l->mu);
		l->mu = NULL;
	}
	return rc;
}

/*
 * Unlocked, not only closed: a process forked meanwhile (a command's
 * guardian, lib/run.c) may hold a copy of the descriptor, hence of the
 * open file description the lock belongs to, and a close would leave the
 * file locked for as long as that copy lives.
 */
static void
ws__nlock_drop(struct ws__nlock *l)
{
	if (l->fd >= 0) {
		(void)flock(l->fd, LOCK_UN);
		close(l->fd);
	}
	l->fd = -1;
	if (l->mu != NULL)
		pthread_mutex_unlock(l->mu);
	l->mu = NULL;
}

/*
 * WS_TEST_EDIT_HOLD_MS=N (tests only): an edit holds the file's lock N ms
 * before it reads the file, so that a test can start something else (a
 * command, whose guardian is forked) while a change holds a lock.
 */
static void
ws__test_edit_hold(void)
{
	const char *e = getenv("WS_TEST_EDIT_HOLD_MS");
	long ms;

	if (e == NULL || *e == '\0')
		return;
	ms = strtol(e, NULL, 10) % 60000;
	if (ms > 0)
		nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L},
			  NULL);
}

/* Write to an existing regular file. */
/*
 * A file that is a guarded one under another name (a hard link to the
 * audit log, the policy or the configuration, ws_ctx_guarded_inode()):
 * no tool writes, appends to or edits it, whichever way the change would
 * be made (in place or by a copy renamed over this name).
 */
static int
ws__refuse_guarded_inode(struct ws_ctx *ws, const struct stat *st,
			 const char *path)
{
	const char *g = ws_ctx_guarded_inode(ws, st);

	if (g == NULL)
		return 0;
	return ws_error_set(WS_EPOLICY_DENIED, path, "is a hard link to %s, "
			    "wstools' own configuration, policy or audit log: "
			    "no tool may change it", g);
}

static int
ws__write_existing(struct ws_ctx *ws, struct ws_res *res, const char *path,
		   const struct ws_wopts *o, struct ws_wresult *r)
{
	bool diff = o->dry_run || o->want_diff;
	bool need_old = o->edit || diff;
	unsigned aflags = o->nosync ? WS_ATOMIC_NOSYNC : 0;
	char *old = NULL, *edited = NULL, *joined = NULL;
	size_t oldlen = 0, newlen = 0;
	const char *newdata = o->content;
	struct stat rst = res->st, made;
	struct ws__nlock lk = {NULL, -1};
	int rc, fd = -1;

	if ((rc = ws_check(ws, WS_OP_WRITE, res->real, res->vpath)) < 0 ||
	    (rc = ws__refuse_guarded_inode(ws, &res->st, path)) < 0)
		return rc;
	/*
	 * Only after the policy's answer: a file this call may not write
	 * gets POLICY_DENIED and nothing else: not ALREADY_EXISTS, not its
	 * version token, not its size.
	 */
	if (o->create_only)
		return ws_error_set(WS_EALREADY_EXISTS, path,
				    "already exists (create_only was asked for)");
	if ((rc = ws_check_version(&res->st, o->if_version, path)) < 0)
		return rc;
	if (o->keep_nonempty && !o->edit && !o->append && o->len == 0 &&
	    res->st.st_size > 0) {
		ws_error_set(WS_EINVALID_ARGUMENT, path, "no content: standard "
			     "input gave 0 bytes and the file holds %lld byte%s; "
			     "nothing was written", (long long)res->st.st_size,
			     res->st.st_size == 1 ? "" : "s");
		ws_error_set_hint("to empty the file, say --content '' or "
				  "--allow-empty");
		return WS_EINVALID_ARGUMENT;
	}
	/*
	 * A rename would replace even a write-protected file; honour the
	 * protection as cp(1) and tee(1) do.  (Root passes, as with them.)
	 */
	if (faccessat(res->dirfd, res->name, W_OK, AT_EACCESS) < 0 &&
	    (errno == EACCES || errno == EPERM || errno == EROFS))
		return ws_error_errno(errno, NULL, "open for writing");
	newlen = o->len;
	if (need_old) {
		/* Edits and diffs show the old content: that is a read. */
		rc = ws_check(ws, WS_OP_READ, res->real, res->vpath);
		if (rc < 0 && (o->edit || o->dry_run))
			return rc;
		if (rc < 0) {
			ws_error_clear();
			need_old = diff = false;
		} else if (!o->edit && res->st.st_size > WS_DIFF_MAX_INPUT) {
			r->diff_truncated = true;
			need_old = diff = false;
		}
	}
	/*
	 * From here to the rename, one call at a time on this name (the
	 * policy's checks, which may wait for a person, are behind us):
	 * what another call replaced it with while this one waited is what
	 * this one checks and reads.
	 */
	if (!o->dry_run) {
		struct stat now;
		bool there;

		if ((rc = ws__nlock_take(&lk, res->dirfd, res->name, path, &now,
					 &there)) < 0)
			goto out;
		if (o->edit)
			ws__test_edit_hold();
		if (!there) {
			rc = o->if_version != NULL ?
			     ws_check_version(NULL, o->if_version, path) :
			     ws_error_set(WS_EIO_ERROR, NULL, "changed while it was "
					  "being written; nothing was written, try again");
			goto out;
		}
		if (!S_ISREG(now.st_mode)) {
			rc = ws_error_set(WS_EIO_ERROR, NULL, "changed while it was "
					  "being written; nothing was written, try again");
			goto out;
		}
		res->st = now;
		rst = now;
		if ((rc = ws_check_version(&res->st, o->if_version, path)) < 0 ||
		    (rc = ws__refuse_guarded_inode(ws, &now, path)) < 0)
			goto out;
	}
	if (need_old) {
		rc = ws_res_open(res, O_RDONLY, &fd);
		if (rc < 0)
			goto out;
		rc = ws__read_all(fd, o->edit ? WS_EDIT_MAX : WS_DIFF_MAX_INPUT,
				  &old, &oldlen);
		if (rc == 0 && fstat(fd, &rst) < 0)
			rc = ws_error_errno(errno, NULL, "fstat");
		close(fd);
		fd = -1;
		if (rc == WS_EFILE_TOO_LARGE && !o->edit) {
			ws_error_clear();
			r->diff_truncated = true;
			diff = false;
		} else if (rc < 0) {
			goto out;
		}
		/* The version of what was read, from its own descriptor. */
		if ((rc = ws_check_version(&rst, o->if_version, path)) < 0)
			goto out;
	}
	if (o->edit) {
		struct ws_edit one = {o->old, o->repl, o->oldlen, o->repllen, o->all};

		rc = ws_edit_apply(old, oldlen, o->nedits ? o->edits : &one,
				   o->nedits ? o->nedits : 1, &edited, &newlen,
				   &r->replacements);
		if (rc < 0)
			goto out;
		newdata = edited;
	} else if (o->append && diff) {
		joined = malloc(oldlen + o->len + 1);
		if (joined == NULL) {
			rc = ws__nomem();
			goto out;
		}
		memcpy(joined, old, oldlen);
		if (o->len)
			memcpy(joined + oldlen, o->content, o->len);
		newdata = joined;
		newlen = oldlen + o->len;
	}
	if (diff && old != NULL) {
		rc = ws__make_diff(o, r, old, oldlen, newdata, newlen, res->vpath,
				   res->vpath);
		if (rc < 0)
			goto out;
	}
	if (o->append) {
		r->bytes_written = (long long)o->len;
		r->lines = ws__count_lines(o->content, o->len);
		if (o->dry_run)
			goto out;
		/* What the append changes, recorded before it (history.h). */
		if ((rc = ws_hist_begin(ws, "append", res->dirfd, res->name,
					res->vpath, res->real, &res->st, false,
					-1, NULL, NULL, NULL, NULL)) < 0)
			goto out;
		if (res->st.st_nlink <= 1) {
			struct stat now;

			rc = ws_res_open(res, O_WRONLY | O_APPEND, &fd);
			if (rc < 0)
				goto out;
			/*
			 * The inode written must have this name only: a link
			 * made since resolution sends the append to the copy.
			 */
			if (fstat(fd, &now) == 0 && now.st_nlink <= 1) {
				rc = ws_check_version(&now, o->if_version, path);
				/*
				 * No set-id bit survives a change, as none
				 * survives a write by anyone without
				 * CAP_FSETID: root appending to a set-uid
				 * file a command made would keep a program
				 * that runs as root (review12 03).  Dropped
				 * on this descriptor, before the data.
				 */
				if (rc == 0 && (now.st_mode & (S_ISUID | S_ISGID)) &&
				    fchmod(fd, now.st_mode & 07777 &
						   ~(mode_t)(S_ISUID | S_ISGID)) < 0)
					rc = ws_error_errno(errno, path, "chmod");
				if (rc == 0) {
					rc = ws__full_write(fd, o->content, o->len);
					if (rc == 0 && !o->nosync && fsync(fd) < 0)
						rc = ws_error_errno(errno, NULL, "fsync");
					/*
					 * A failed append (a full filesystem
					 * after part of it, an I/O error at
					 * fsync) is taken back: the file keeps
					 * its old length, so a refusal leaves
					 * the old content whole (issue 10).
					 */
					if (rc < 0 && ftruncate(fd, now.st_size) == 0 &&
					    !o->nosync)
						(void)fsync(fd);
					if (rc == 0 && fstat(fd, &made) == 0)
						ws_version_token(&made, r->version);
				}
				goto out;
			}
			close(fd);
			fd = -1;
		}
		if ((rc = ws__append_copy(res, o, old, oldlen, &rst, aflags,
					  &made)) == 0)
			ws_version_token(&made, r->version);
		goto out;
	}
	r->bytes_written = (long long)newlen;
	r->lines = ws__count_lines(newdata, newlen);
	if (o->dry_run)
		goto out;
	/* Refuse to overwrite a change made since we read the file. */
	if (o->edit && (rc = ws__unchanged(res, &rst, "edited")) < 0)
		goto out;
	if (o->if_version != NULL && !o->edit) {
		struct stat now;

		/*
		 * The token of the file about to be replaced, as close to
		 * the rename as can be (an edit has checked what it read,
		 * and ws__unchanged() that it is still that file).
		 */
		if (fstatat(res->dirfd, res->name, &now, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = ws_check_version(NULL, o->if_version, path);
			goto out;
		}
		if ((rc = ws_check_version(&now, o->if_version, path)) < 0)
			goto out;
	}
	if ((rc = ws_hist_begin(ws, o->edit ? "edit" : "write", res->dirfd,
				res->name, res->vpath, res->real, &res->st, false,
				-1, NULL, NULL, NULL, NULL)) < 0)
		goto out;
	rc = ws_write_atomic_made(res->dirfd, res->name, newdata, newlen, &rst,
				  aflags, &made);
	if (rc == 0)
		ws_version_token(&made, r->version);
out:
	ws__nlock_drop(&lk);
	if (fd >= 0)
		close(fd);
	free(old);
	free(edited);
	free(joined);
	return rc;
}

/* Create a new file (its parents too, when asked). */
static int
ws__write_new(struct ws_ctx *ws, struct ws_res *res, const char *path,
	      const struct ws_wopts *o, struct ws_wresult *r)
{
	unsigned aflags = o->nosync ? WS_ATOMIC_NOSYNC : 0;
	struct stat made;
	int rc;

	if ((rc = ws_check_version(NULL, o->if_version, path)) < 0)
		return rc;
	if ((rc = ws__check_parents(ws, res, o->parents, path)) < 0)
		return rc;
	if ((rc = ws_check(ws, WS_OP_CREATE, res->real, res->vpath)) < 0 ||
	    (rc = ws__note_made_top(ws, res, false, r)) < 0)
		return rc;
	r->created = true;
	if (!o->append)
		r->action = "create";
	if (o->dry_run || o->want_diff) {
		rc = ws__make_diff(o, r, "", 0, o->content, o->len, "/dev/null",
				   res->vpath);
		if (rc < 0)
			return rc;
	}
	r->bytes_written = (long long)o->len;
	r->lines = ws__count_lines(o->content, o->len);
	if (o->dry_run)
		return 0;
	if ((rc = ws_hist_begin(ws, "create", res->dirfd, res->name, res->vpath,
				res->real, NULL, false, -1, NULL, NULL, NULL,
				NULL)) < 0)
		return rc;
	rc = ws_res_make_parents(res, o->parents, 0777);
	/* What it made on the way, for undo to take away (ftu13 02). */
	ws_hist_parents(ws, res);
	if (rc < 0)
		return rc;
	/*
	 * Even a new file goes through a temporary one, so a crash never
	 * leaves it half-written.  Without create_only, a file that appeared
	 * meanwhile is simply replaced, as it would have been a moment later.
	 */
	if (o->create_only)
		aflags |= WS_ATOMIC_NOREPLACE;
	if ((rc = ws_write_atomic_made(res->dirfd, res->name, o->content,
				       o->len, NULL, aflags, &made)) == 0)
		ws_version_token(&made, r->version);
	return rc;
}

int
ws_write(struct ws_ctx *ws, const char *path, const struct ws_wopts *opts,
	 struct ws_wresult *r)
{
	struct ws_wopts oc = *opts;
	const struct ws_wopts *o = &oc;
	struct ws_res res;
	int rc;

	if (oc.content == NULL)
		oc.content = "";

	memset(r, 0, sizeof(*r));
	r->dry_run = o->dry_run;
	r->action = o->edit ? "edit" : o->append ? "append" : "write";
	if (o->edit && (o->create_only || o->append))
		return ws_error_set(WS_EINVALID_ARGUMENT, path,
				    "edit cannot be combined with append or create_only");
	rc = ws_resolve(ws, path, o->edit ? 0 : WS_R_MISSING_OK, &res);
	if (rc < 0)
		return rc;
	if ((rc = ws__result_paths(r, &res)) < 0)
		goto out;
	if (res.must_dir) {
		rc = res.exists && S_ISDIR(res.st.st_mode) ?
		     ws_error_set(WS_EIS_A_DIRECTORY, path, "is a directory") :
		     ws_error_set(WS_EINVALID_PATH, path,
				  "a file path cannot end in \"/\"");
		goto out;
	}
	if ((rc = ws_res_check_writable(ws, &res)) < 0)
		goto out;
	if (res.exists && S_ISDIR(res.st.st_mode)) {
		rc = ws_error_set(WS_EIS_A_DIRECTORY, path, "is a directory");
		goto out;
	}
	if (res.exists && !S_ISREG(res.st.st_mode)) {
		rc = ws_error_set(WS_ENOT_A_REGULAR_FILE, path,
				  "is not a regular file (%s)",
				  S_ISFIFO(res.st.st_mode) ? "a FIFO" :
				  S_ISSOCK(res.st.st_mode) ? "a socket" :
				  S_ISLNK(res.st.st_mode) ? "a symlink" :
				  "a device");
		goto out;
	}
	rc = res.exists ? ws__write_existing(ws, &res, path, o, r)
			: ws__write_new(ws, &res, path, o, r);
	r->history_id = ws_hist_end(ws, rc, res.dirfd, res.name);
out:
	ws_res_free(&res);
	if (rc < 0 && ws_error_last_path() == NULL)
		ws__with_path(rc, path);
	return rc;
}

/* ------------------------------------------------------------------ */
/* ws_mkdir                                                             */

int
ws_mkdir(struct ws_ctx *ws, const char *path, bool parents, bool dry_run,
	 struct ws_wresult *r)
{
	struct ws_res res;
	int rc;

	memset(r, 0, sizeof(*r));
	r->action = "mkdir";
	r->dry_run = dry_run;
	rc = ws_resolve(ws, path, WS_R_MISSING_OK, &res);
	if (rc < 0)
		return rc;
	if ((rc = ws__result_paths(r, &res)) < 0)
		goto out;
	if (res.exists) {
		if (!S_ISDIR(res.st.st_mode))
			rc = ws_error_set(WS_EALREADY_EXISTS, path,
					  "already exists and is not a directory");
		goto out;
	}
	if ((rc = ws_res_check_writable(ws, &res)) < 0 ||
	    (rc = ws__check_parents(ws, &res, parents, path)) < 0 ||
	    (rc = ws_check(ws, WS_OP_MKDIR, res.real, res.vpath)) < 0 ||
	    (rc = ws__note_made_top(ws, &res, true, r)) < 0)
		goto out;
	r->created = true;
	if (dry_run)
		goto out;
	if ((rc = ws_hist_begin(ws, "mkdir", res.dirfd, res.name, res.vpath,
				res.real, NULL, false, -1, NULL, NULL, NULL,
				NULL)) < 0)
		goto out;
	rc = ws_res_make_parents(&res, parents, 0777);
	ws_hist_parents(ws, &res);
	if (rc < 0)
		goto out;
	if (mkdirat(res.dirfd, res.name, 0777) < 0) {
		struct stat st;

		if (errno == EEXIST &&
		    fstatat(res.dirfd, res.name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode)) {
			r->created = false; /* made by someone else meanwhile */
			free(r->made_top);
			free(r->made_top_real);
			r->made_top = r->made_top_real = NULL;
			goto out;
		}
		rc = ws_error_errno(errno, NULL, "mkdir");
	}
out:
	r->history_id = ws_hist_end(ws, rc, res.dirfd, res.name);
	ws_res_free(&res);
	if (rc < 0 && ws_error_last_path() == NULL)
		ws__with_path(rc, path);
	return rc;
}

/* ------------------------------------------------------------------ */
/* ws_delete                                                            */

/* WS__RM_HOLD: hold each directory of the tree against a command whose
 * workspace it is (ws_ctx_hold_dir()), removing nothing. */
enum ws__rm_mode { WS__RM_CHECK, WS__RM_COUNT, WS__RM_DELETE, WS__RM_HOLD };

/* An operation a person approved at the prompt during the CHECK pass. */
struct ws__approved {
	enum ws_op op;
	char *real;
};

struct ws__rm {
	struct ws_ctx *ws;
	enum ws__rm_mode mode;
	size_t removed;
	size_t kept;	  /* entries the history record does not hold */
	const char *path; /* for messages */
	struct ws__approved *approved;
	size_t napproved, aapproved;
};

static bool
ws__rm_was_approved(const struct ws__rm *c, enum ws_op op, const char *real)
{
	for (size_t i = 0; i < c->napproved; i++)
		if (c->approved[i].op == op && strcmp(c->approved[i].real, real) == 0)
			return true;
	return false;
}

static void
ws__rm_free(struct ws__rm *c)
{
	for (size_t i = 0; i < c->napproved; i++)
		free(c->approved[i].real);
	free(c->approved);
	c->approved = NULL;
	c->napproved = c->aapproved = 0;
}

/*
 * Ask the policy whether op may remove real (NULL: no policy, nothing to
 * ask).  The CHECK pass asks every entry before anything is removed, and
 * remembers what a person approved at the prompt.  The DELETE pass asks
 * again right before each removal, since an entry moved into the tree
 * between the passes was never asked about; it prompts only for what was
 * not approved already, so nobody is asked twice.
 */
static int
ws__rm_check(struct ws__rm *c, enum ws_op op, const char *real)
{
	struct ws_ctx *ws = c->ws;
	enum ws_decision d;
	int rc;

	if (ws->policy == NULL || real == NULL || c->mode == WS__RM_COUNT)
		return 0;
	if (c->mode == WS__RM_DELETE) {
		d = ws_policy_check_file(ws->policy, op, real, NULL);
		if (d == WS_DECISION_ALLOW ||
		    (d == WS_DECISION_APPROVE &&
		     (ws->approve || ws__rm_was_approved(c, op, real))))
			return 0;
		return ws_check(ws, op, real, real);
	}
	if ((rc = ws_check(ws, op, real, real)) < 0 || ws->approve)
		return rc;
	if (ws_policy_check_file(ws->policy, op, real, NULL) ==
	    WS_DECISION_APPROVE) {
		if (c->napproved == c->aapproved) {
			size_t na = c->aapproved ? c->aapproved * 2 : 16;
			struct ws__approved *np = realloc(c->approved,
							  na * sizeof(*np));

			if (np == NULL)
				return ws__nomem();
			c->approved = np;
			c->aapproved = na;
		}
		c->approved[c->napproved].op = op;
		c->approved[c->napproved].real = strdup(real);
		if (c->approved[c->napproved].real == NULL)
			return ws__nomem();
		c->napproved++;
	}
	return 0;
}

/* Remove (or count, or ask about) the non-directory name in dfd. */
static int
ws__rm_leaf(struct ws__rm *c, int dfd, const char *name, const char *real)
{
	int rc;

	if (c->mode == WS__RM_HOLD)
		return 0;
	if (c->mode == WS__RM_COUNT) {
		c->removed++;
		return 0;
	}
	if ((rc = ws__rm_check(c, WS_OP_DELETE, real)) < 0 ||
	    c->mode == WS__RM_CHECK)
		return rc;
	if (unlinkat(dfd, name, 0) < 0)
		return errno == ENOENT ? 0 : ws_error_errno(errno, c->path, "unlink");
	c->removed++;
	return 0;
}

/*
 * Remove the directory name in pfd and everything below it, through
 * descriptors: each directory is opened with O_NOFOLLOW | O_DIRECTORY and
 * checked to be the one that was seen, entries are looked at with
 * AT_SYMLINK_NOFOLLOW and removed with unlinkat(), so a symlink is only
 * ever removed itself.  real is the real path, for the policy (NULL
 * when there is none).
 */
static int
ws__rmtree(struct ws__rm *c, int pfd, const char *name, const struct stat *seen,
	   const char *real, int depth)
{
	struct stat st;
	DIR *d = NULL;
	int dfd, rc = 0;

	if (depth > 4096)
		return ws_error_set(WS_ELIMIT_EXCEEDED, c->path,
				    "the tree is deeper than 4096 levels");
	dfd = openat(pfd, name,
		     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	/* Gone or swapped meanwhile: the removal's pass sees to it. */
	if (dfd < 0 && c->mode == WS__RM_HOLD)
		return 0;
	if (dfd < 0) {
		if ((errno == ELOOP || errno == ENOTDIR) && c->mode == WS__RM_DELETE) {
			struct stat lst;

			/* Swapped for a link or a file meanwhile: remove that,
			 * if the history holds it. */
			if (fstatat(pfd, name, &lst, AT_SYMLINK_NOFOLLOW) == 0 &&
			    !ws_hist_covers(c->ws, &lst)) {
				c->kept++;
				return 0;
			}
			if ((rc = ws__rm_check(c, WS_OP_DELETE, real)) < 0)
				return rc;
			if (unlinkat(pfd, name, 0) < 0 && errno != ENOENT)
				return ws_error_errno(errno, c->path, "unlink");
			c->removed++;
			return 0;
		}
		return ws_error_errno(errno, c->path, "open directory");
	}
	if (fstat(dfd, &st) < 0) {
		close(dfd);
		return ws_error_errno(errno, c->path, "fstat");
	}
	if (st.st_dev != seen->st_dev || st.st_ino != seen->st_ino) {
		close(dfd);
		if (c->mode == WS__RM_HOLD)
			return 0;
		return ws_error_set(WS_EIO_ERROR, c->path,
				    "%s changed while it was being deleted", name);
	}
	if (depth > 0 && ws__anchor_of_stat(c->ws, &st) >= 0) {
		close(dfd);
		return ws_error_set(WS_EINVALID_ARGUMENT, c->path,
				    "holds a mount or the workspace root; not "
				    "deleting it");
	}
	/*
	 * What goes from a directory below the one resolved may be in a
	 * command's workspace there (a server's on W/proj while this one's
	 * is W, review30 01): held, as the resolved one was; by a pass of
	 * its own before the history records the tree (see ws_delete()),
	 * and again here for what was moved in since.
	 */
	if ((c->mode == WS__RM_DELETE || c->mode == WS__RM_HOLD) &&
	    (rc = ws_ctx_hold_dir(c->ws, dfd)) < 0) {
		close(dfd);
		return rc;
	}
	d = fdopendir(dfd);
	if (d == NULL) {
		close(dfd);
		return ws_error_errno(errno, c->path, "opendir");
	}
	for (int pass = 0;; pass++) {
		struct dirent *e;
		size_t kept = c->kept;

		while ((errno = 0, e = readdir(d)) != NULL) {
			struct stat est;
			char *creal = NULL;

			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			/*
			 * Stopped (MCP's notifications/cancelled): a person
			 * pressed stop to stop this delete, so it stops at
			 * the next entry.  What went is in the history, as
			 * for a delete that failed half way (review23 14).
			 */
			if (ws_cancelled()) {
				if (c->mode == WS__RM_DELETE)
					rc = ws_error_set(WS_EIO_ERROR, c->path,
							  "cancelled: %zu entries were "
							  "deleted before the stop, the "
							  "rest is kept (wstools undo puts "
							  "them back)", c->removed);
				else
					rc = ws_error_set(WS_EIO_ERROR, c->path,
							  "cancelled before anything "
							  "was deleted");
				goto out;
			}
			if (fstatat(dfd, e->d_name, &est, AT_SYMLINK_NOFOLLOW) < 0) {
				if (errno == ENOENT)
					continue;
				rc = ws_error_errno(errno, c->path, "stat");
				goto out;
			}
			/*
			 * Made or written after the history recorded the tree
			 * (another tool, a command): removing it would lose
			 * what no record holds.  It is kept, and so are the
			 * directories above it; ws_delete() says so.
			 */
			if (c->mode == WS__RM_DELETE && !ws_hist_covers(c->ws, &est)) {
				c->kept++;
				continue;
			}
			if (real != NULL) {
				creal = ws_path_join(real, e->d_name);
				if (creal == NULL) {
					rc = ws__nomem();
					goto out;
				}
			}
			if (S_ISDIR(est.st_mode))
				rc = ws__rmtree(c, dfd, e->d_name, &est, creal,
						depth + 1);
			else
				rc = ws__rm_leaf(c, dfd, e->d_name, creal);
			free(creal);
			if (rc < 0)
				goto out;
		}
		if (errno != 0) {
			rc = ws_error_errno(errno, c->path, "readdir");
			goto out;
		}
		if (c->mode == WS__RM_CHECK) {
			rc = ws__rm_check(c, WS_OP_RMDIR, real);
			goto out;
		}
		if (c->mode == WS__RM_COUNT) {
			c->removed++;
			goto out;
		}
		if (c->mode == WS__RM_HOLD)
			goto out;
		if ((rc = ws__rm_check(c, WS_OP_RMDIR, real)) < 0)
			goto out;
		if (unlinkat(pfd, name, AT_REMOVEDIR) == 0) {
			c->removed++;
			goto out;
		}
		/* Not empty because of what was kept: as it should be. */
		if ((errno == ENOTEMPTY || errno == EEXIST) && c->kept > kept)
			goto out;
		if ((errno != ENOTEMPTY && errno != EEXIST) || pass >= 3) {
			rc = ws_error_errno(errno, c->path, "rmdir");
			goto out;
		}
		/* Entries were added while we read: go over it again. */
		rewinddir(d);
	}
out:
	closedir(d);
	return rc;
}

/* Whether the directory name in pfd has no entries. */
static int
ws__dir_empty(int pfd, const char *name, bool *empty)
{
	int dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				    O_NONBLOCK | O_CLOEXEC);
	DIR *d;
	struct dirent *e;

	*empty = true;
	if (dfd < 0)
		return ws_error_errno(errno, NULL, "open directory");
	d = fdopendir(dfd);
	if (d == NULL) {
		close(dfd);
		return ws_error_errno(errno, NULL, "opendir");
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			*empty = false;
			break;
		}
	}
	closedir(d);
	return 0;
}

/*
 * Resolve the object of a delete or a move: the link itself, also when
 * written "link/" (which must then be a directory), never the top of the
 * root or a mount.  res is always safe to ws_res_free() afterwards.
 */
static int
ws__resolve_object(struct ws_ctx *ws, const char *path, const char *action,
		   struct ws_wresult *r, struct ws_res *res)
{
	bool slash;
	char *p;
	int rc;

	memset(res, 0, sizeof(*res));
	res->fd = res->dirfd = -1;
	p = ws__strip_slashes(path, &slash);
	if (p == NULL)
		return ws__nomem();
	rc = ws_resolve(ws, p, WS_R_NOFOLLOW, res);
	free(p);
	if (rc < 0)
		return ws__with_path(rc, path);
	if ((rc = ws__result_paths(r, res)) < 0)
		return rc;
	r->type = ws__type_of(res->st.st_mode);
	if ((rc = ws__refuse_anchor(ws, res, path, action)) < 0)
		return rc;
	if (slash && !S_ISDIR(res->st.st_mode))
		return ws_error_set(WS_ENOT_A_DIRECTORY, path,
				    "is not a directory (%s)", r->type);
	return 0;
}

/*
 * delete and move with if_version: take the lock of what res names (see
 * ws__nlock_take()) and check the version again under it, so that the
 * change removes or moves the version named, never one written since by
 * another call or process.  Nothing to do without if_version.
 */
static int
ws__lock_version(struct ws__nlock *l, const struct ws_res *res,
		 const char *if_version, const char *path)
{
	struct stat now;
	bool there;
	int rc;

	if (if_version == NULL)
		return 0;
	if ((rc = ws__nlock_take(l, res->dirfd, res->name, path, &now,
				 &there)) < 0)
		return rc;
	return ws_check_version(there ? &now : NULL, if_version, path);
}

int
ws_rmdir_made(struct ws_ctx *ws, const char *path, dev_t dev, ino_t ino)
{
	struct ws_wresult r;
	struct ws_res res;
	struct stat now;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = ws__resolve_object(ws, path, "delete", &r, &res);
	if (rc < 0)
		goto out;
	/* The very directory made: on the descriptor held, not the name. */
	if (res.fd < 0 || fstat(res.fd, &now) < 0 || !S_ISDIR(now.st_mode) ||
	    now.st_dev != dev || now.st_ino != ino) {
		rc = ws_error_set(WS_EVERSION_MISMATCH, path, "is not the "
				  "directory the change made");
		goto out;
	}
	if ((rc = ws_res_check_writable(ws, &res)) < 0)
		goto out;
	if (ws->policy != NULL &&
	    ws_policy_check_file(ws->policy, WS_OP_RMDIR, res.real, NULL) !=
		    WS_DECISION_ALLOW) {
		rc = ws_error_set(WS_EPOLICY_DENIED, path, "the policy does not "
				  "allow removing it without asking");
		goto out;
	}
	if ((rc = ws_check(ws, WS_OP_RMDIR, res.real, res.vpath)) < 0)
		goto out;
	/*
	 * rmdir(2) goes by name: the name in the held parent must still be
	 * that directory right before it (and only an empty one goes).
	 */
	if (fstatat(res.dirfd, res.name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
	    now.st_dev != dev || now.st_ino != ino) {
		rc = ws_error_set(WS_EVERSION_MISMATCH, path, "is not the "
				  "directory the change made");
		goto out;
	}
	if (unlinkat(res.dirfd, res.name, AT_REMOVEDIR) < 0)
		rc = errno == ENOTEMPTY || errno == EEXIST ?
		     ws_error_set(WS_EDIRECTORY_NOT_EMPTY, path, "is not empty") :
		     ws_error_errno(errno, path, "rmdir");
out:
	ws_res_free(&res);
	ws_wresult_free(&r);
	return rc;
}

int
ws_delete(struct ws_ctx *ws, const char *path, bool recursive, bool dry_run,
	  const char *if_version, struct ws_wresult *r)
{
	struct ws_res res;
	struct ws__nlock lk = {NULL, -1};
	int rc;

	memset(r, 0, sizeof(*r));
	r->action = "delete";
	r->dry_run = dry_run;
	rc = ws__resolve_object(ws, path, "delete", r, &res);
	if (rc < 0)
		goto out;
	if ((rc = ws_check_version(&res.st, if_version, path)) < 0)
		goto out;
	if ((rc = ws_res_check_writable(ws, &res)) < 0)
		goto out;
	if (!S_ISDIR(res.st.st_mode)) {
		if ((rc = ws_check(ws, WS_OP_DELETE, res.real, res.vpath)) < 0)
			goto out;
		r->removed = 1;
		if (dry_run)
			goto out;
		if ((rc = ws__lock_version(&lk, &res, if_version, path)) < 0)
			goto out;
		if ((rc = ws_hist_begin(ws, "delete", res.dirfd, res.name, res.vpath,
					res.real, &res.st, false, -1, NULL, NULL,
					NULL, NULL)) < 0)
			goto out;
		if (unlinkat(res.dirfd, res.name, 0) < 0)
			rc = ws_error_errno(errno, NULL, "delete");
		goto out;
	}
	if ((rc = ws_check(ws, WS_OP_RMDIR, res.real, res.vpath)) < 0)
		goto out;
	if (!recursive) {
		bool empty;

		if ((rc = ws__dir_empty(res.dirfd, res.name, &empty)) < 0)
			goto out;
		if (!empty) {
			rc = ws_error_set(WS_EDIRECTORY_NOT_EMPTY, path,
					  "is a directory that is not empty "
					  "(use --recursive to delete the tree)");
			goto out;
		}
		r->removed = 1;
		if (dry_run)
			goto out;
		if ((rc = ws__lock_version(&lk, &res, if_version, path)) < 0)
			goto out;
		if ((rc = ws_hist_begin(ws, "delete", res.dirfd, res.name, res.vpath,
					res.real, &res.st, false, -1, NULL, NULL,
					NULL, NULL)) < 0)
			goto out;
		if (unlinkat(res.dirfd, res.name, AT_REMOVEDIR) < 0) {
			rc = errno == ENOTEMPTY || errno == EEXIST ?
			     ws_error_set(WS_EDIRECTORY_NOT_EMPTY, path,
					  "is a directory that is not empty "
					  "(use --recursive to delete the tree)") :
			     ws_error_errno(errno, NULL, "rmdir");
		}
		goto out;
	}
	{
		struct ws__rm c = {.ws = ws, .path = path};

		/* With a policy, ask about every entry before removing any. */
		ws->whole[0] = res.real;
		if (ws->policy != NULL) {
			c.mode = WS__RM_CHECK;
			rc = ws__rmtree(&c, res.dirfd, res.name, &res.st, res.real, 0);
			if (rc < 0) {
				ws->whole[0] = NULL;
				ws__rm_free(&c);
				goto out;
			}
		}
		/*
		 * A command may run in a directory of the tree (a server's
		 * on W/proj, this one's on W: review30 01): waited for
		 * before anything is recorded or removed, not half way.
		 */
		if (!dry_run && ws->runs_on) {
			c.mode = WS__RM_HOLD;
			rc = ws__rmtree(&c, res.dirfd, res.name, &res.st, NULL, 0);
			if (rc < 0) {
				ws->whole[0] = NULL;
				ws__rm_free(&c);
				goto out;
			}
		}
		/*
		 * And again right before each removal: what was moved into
		 * the tree since has not been asked about yet.
		 */
		c.mode = dry_run ? WS__RM_COUNT : WS__RM_DELETE;
		c.removed = 0;
		/* The whole tree, recorded before the first removal. */
		if (!dry_run &&
		    (rc = ws__lock_version(&lk, &res, if_version, path)) < 0) {
			ws->whole[0] = NULL;
			ws__rm_free(&c);
			goto out;
		}
		if (!dry_run &&
		    (rc = ws_hist_begin(ws, "delete", res.dirfd, res.name, res.vpath,
					res.real, &res.st, true, -1, NULL, NULL,
					NULL, NULL)) < 0) {
			ws__rm_free(&c);
			goto out;
		}
		rc = ws__rmtree(&c, res.dirfd, res.name, &res.st,
				ws->policy != NULL ? res.real : NULL, 0);
		if (rc == 0 && c.kept > 0)
			rc = ws_error_set(WS_EDIRECTORY_NOT_EMPTY, path,
					  "%zu %s made or changed in the tree while it "
					  "was being deleted, after the history recorded "
					  "it: kept, with the directories that hold them; "
					  "the rest was deleted (wstools undo puts it back)",
					  c.kept, c.kept == 1 ? "entry was" : "entries were");
		ws->whole[0] = NULL;
		r->removed = c.removed;
		ws__rm_free(&c);
	}
out:
	ws__nlock_drop(&lk);
	r->history_id = ws_hist_end(ws, rc, res.dirfd, res.name);
	ws_res_free(&res);
	if (rc < 0 && ws_error_last_path() == NULL)
		ws__with_path(rc, path);
	return rc;
}

/* ------------------------------------------------------------------ */
/* ws_move                                                              */

/* Most entries a moved directory may hold when a policy must see each. */
#define WS__MOVE_MAX_ENTRIES 100000

struct ws__mv {
	struct ws_ctx *ws;
	const char *path; /* for messages */
	size_t entries;
};

/*
 * A move must not take an entry out from under a rule that refuses to
 * read (or open) it: the next read would find it elsewhere, allowed.
 * Where the policy refuses to read sreal, dreal must be refused by the
 * same rule (a rename inside a denied secrets directory), else
 * POLICY_DENIED naming the rule.  A command's mv of such an entry gets
 * EBUSY (its view pins it).
 */
static int
ws__mv_keeps_denial(struct ws_ctx *ws, const char *sreal, const char *shown,
		    const char *dreal)
{
	struct ws_policy_match sm, dm;

	if (ws->policy == NULL ||
	    ws_policy_check_file(ws->policy, WS_OP_READ, sreal, &sm) ==
		    WS_DECISION_ALLOW ||
	    (ws_policy_check_file(ws->policy, WS_OP_READ, dreal, &dm) !=
		     WS_DECISION_ALLOW &&
	     (sm.rule == NULL ? dm.rule == NULL
			      : dm.rule != NULL && strcmp(sm.rule, dm.rule) == 0)))
		return 0;
	ws_error_set(WS_EPOLICY_DENIED, shown,
		     "reading it is refused by policy \"%s\" (%s%s%s), and the "
		     "move would take it out from under that rule: move it "
		     "where the same rule covers it, or ask the user",
		     ws_policy_name(ws->policy), sm.rule ? "rule \"" : "no rule: the default",
		     sm.rule ? sm.rule : "", sm.rule ? "\"" : "");
	/* The call's audit line names this refusal, as ws_check()'s. */
	if (ws->audit != NULL)
		ws_audit_decision(ws->audit, "rename", sreal, shown,
				  ws_policy_name(ws->policy), sm.rule, "deny",
				  WS_AUDIT_NOT_ASKED, WS_EPOLICY_DENIED);
	return ws_error_set_policy(ws_policy_name(ws->policy), sm.rule, "rename");
}

/*
 * Ask the policy about every entry below the directory name in pfd (seen
 * is its lstat), which the move takes from the real path sreal to dreal:
 * rename under its old real path, create (and mkdir, for a directory)
 * under its new one.  Asking only about the directory itself would let a
 * rule on its contents (one on everything below "~/.config/gh") be
 * escaped by moving the directory elsewhere, where its files are no
 * longer covered.  The walk goes through descriptors as ws__rmtree()
 * does, never following a link.
 */
static int
ws__mv_check_tree(struct ws__mv *c, int pfd, const char *name,
		  const struct stat *seen, const char *sreal, const char *dreal,
		  int depth)
{
	struct stat st;
	DIR *d = NULL;
	int dfd, rc = 0;

	if (depth > 4096)
		return ws_error_set(WS_ELIMIT_EXCEEDED, c->path,
				    "the tree is deeper than 4096 levels");
	dfd = openat(pfd, name,
		     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (dfd < 0)
		return ws_error_errno(errno, c->path, "open directory");
	if (fstat(dfd, &st) < 0) {
		close(dfd);
		return ws_error_errno(errno, c->path, "fstat");
	}
	if (st.st_dev != seen->st_dev || st.st_ino != seen->st_ino) {
		close(dfd);
		return ws_error_set(WS_EIO_ERROR, c->path,
				    "%s changed while it was being checked", name);
	}
	d = fdopendir(dfd);
	if (d == NULL) {
		close(dfd);
		return ws_error_errno(errno, c->path, "opendir");
	}
	for (;;) {
		struct dirent *e;
		struct stat est;
		char *so, *dn;

		errno = 0;
		if ((e = readdir(d)) == NULL) {
			if (errno != 0)
				rc = ws_error_errno(errno, c->path, "readdir");
			break;
		}
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++c->entries > WS__MOVE_MAX_ENTRIES) {
			rc = ws_error_set(WS_ELIMIT_EXCEEDED, c->path,
					  "the directory holds over %d entries, "
					  "too many for the policy to check each; "
					  "move it in smaller parts",
					  WS__MOVE_MAX_ENTRIES);
			break;
		}
		if (fstatat(dfd, e->d_name, &est, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			rc = ws_error_errno(errno, c->path, "stat");
			break;
		}
		so = ws_path_join(sreal, e->d_name);
		dn = ws_path_join(dreal, e->d_name);
		if (so == NULL || dn == NULL)
			rc = ws__nomem();
		else if ((rc = ws_check(c->ws, WS_OP_RENAME, so, so)) == 0 &&
			 (rc = ws_check(c->ws, WS_OP_CREATE, dn, dn)) == 0 &&
			 (rc = ws__mv_keeps_denial(c->ws, so, so, dn)) == 0 &&
			 S_ISDIR(est.st_mode) &&
			 (rc = ws_check(c->ws, WS_OP_MKDIR, dn, dn)) == 0)
			rc = ws__mv_check_tree(c, dfd, e->d_name, &est, so, dn,
					       depth + 1);
		free(so);
		free(dn);
		if (rc < 0)
			break;
	}
	closedir(d);
	return rc;
}

/*
 * Whether the tree at name in pfd, moved to a path of dlen bytes and
 * dlev levels below its anchor, would hold a path past the reach of
 * wsrun's walks (WS_VCS_PATH_MAX bytes, WS_VCS_DEPTH levels): 1 yes, 0
 * no, or a WS_E*.  used and lev are name's own, its entries counted in
 * *n.  Through descriptors, a level at a time.
 */
/*
 * The length (with a leading '/') and the levels of real as wsrun's
 * walks see it: below the outermost writable anchor holding it, which
 * they walk with the mounts inside it.  False where none holds it.
 */
static bool
ws__walk_depth(const struct ws_ctx *ws, const char *real, size_t *len,
	       size_t *lev)
{
	const char *best = NULL, *rest;
	size_t bl = 0;

	for (size_t a = 0; a < ws->nanchors; a++)
		if (!ws->anchors[a].ro &&
		    ws_path_within(ws->anchors[a].real, real, &rest) &&
		    (best == NULL || strlen(ws->anchors[a].real) < bl)) {
			best = rest;
			bl = strlen(ws->anchors[a].real);
		}
	if (best == NULL)
		return false;
	best += strspn(best, "/");
	*len = 1 + strlen(best);
	*lev = *best != '\0';
	for (const char *c = best; *c; c++)
		*lev += *c == '/';
	return true;
}

static int
ws__mv_past_reach(int pfd, const char *name, size_t dlen, size_t used, size_t dlev,
		  size_t lev, size_t *n, const char *path)
{
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return errno == ENOENT || errno == ENOTDIR ? 0 :
		       ws_error_errno(errno, path, "open directory");
	}
	while (rc == 0 && (errno = 0, e = readdir(d)) != NULL) {
		size_t l = used + 1 + strlen(e->d_name);

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++*n > 1000000) {
			rc = ws_error_set(WS_ELIMIT_EXCEEDED, path,
					  "the directory holds over 1,000,000 entries, "
					  "too many to check before moving it deeper; "
					  "move it in smaller parts");
			break;
		}
		if (dlen + 1 + l >= WS_VCS_PATH_MAX || dlev + lev + 1 >= WS_VCS_DEPTH) {
			rc = 1;
			break;
		}
		if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN)
			rc = ws__mv_past_reach(fd, e->d_name, dlen, l, dlev, lev + 1, n, path);
	}
	if (rc == 0 && errno != 0)
		rc = ws_error_errno(errno, path, "readdir");
	closedir(d);
	return rc;
}

/*
 * A directory moved deeper must not take a path past the reach of
 * wsrun's walks: a tree there is one they cannot tell from a command's,
 * so a run that a move made during it removed the person's
 * subdirectories, unrecorded (review25 03), and before a run refuses
 * it.  Only a move to a longer path can, so only those walk the tree.
 */
static int
ws__mv_depth(const struct ws_ctx *ws, const struct ws_res *s,
	     const struct ws_res *d, const char *src)
{
	size_t slen, dlen, slev, dlev, n = 0;
	int rc;

	/*
	 * Where the move lands, not how it was spelled: a destination
	 * through a link (l/s, l a link to a 4,000-byte chain) is short as
	 * typed and deep in the walks' terms (review28 01), and a move out
	 * of a mount gains the mount's place below the workspace.
	 */
	if (!S_ISDIR(s->st.st_mode) || !ws__walk_depth(ws, d->real, &dlen, &dlev))
		return 0;
	if (ws__walk_depth(ws, s->real, &slen, &slev) && dlen <= slen && dlev <= slev)
		return 0;
	rc = ws__mv_past_reach(s->dirfd, s->name, dlen, 0, dlev, 0, &n, src);
	if (rc != 1)
		return rc;
	return ws_error_set(WS_ELIMIT_EXCEEDED, src,
			    "moved to %s, it would hold paths of %d bytes or more "
			    "(or %d levels) below the workspace, which wsrun "
			    "cannot check for repositories: a later command's "
			    "clean-up would take them for its own",
			    d->vpath, WS_VCS_PATH_MAX, WS_VCS_DEPTH);
}

/*
 * The policy's questions for a move of s to d, all asked before anything
 * moves: rename at both ends; create (a mkdir too for a directory) when d
 * is new, else write and delete (rmdir) of what it replaces; the parents
 * that would be made; and, for a directory, every entry below it.
 */
static int
ws__mv_check(struct ws_ctx *ws, const struct ws_res *s, const struct ws_res *d,
	     bool parents, const char *src, const char *dst)
{
	bool sdir = S_ISDIR(s->st.st_mode);
	int rc;

	if ((rc = ws_check(ws, WS_OP_RENAME, s->real, s->vpath)) < 0 ||
	    (rc = ws_check(ws, WS_OP_RENAME, d->real, d->vpath)) < 0 ||
	    (rc = ws__mv_keeps_denial(ws, s->real, s->vpath, d->real)) < 0)
		return rc;
	if (!d->exists) {
		if ((rc = ws_check(ws, WS_OP_CREATE, d->real, d->vpath)) < 0 ||
		    (sdir && (rc = ws_check(ws, WS_OP_MKDIR, d->real,
					    d->vpath)) < 0))
			return rc;
	} else if ((rc = ws_check(ws, WS_OP_WRITE, d->real, d->vpath)) < 0 ||
		   (rc = ws_check(ws, S_ISDIR(d->st.st_mode) ? WS_OP_RMDIR :
				  WS_OP_DELETE, d->real, d->vpath)) < 0) {
		return rc;
	}
	if ((rc = ws__check_parents(ws, d, parents, dst)) < 0)
		return rc;
	if (ws->policy != NULL && sdir) {
		struct ws__mv c = {.ws = ws, .path = src};

		ws->whole[0] = s->real;
		ws->whole[1] = d->real;
		rc = ws__mv_check_tree(&c, s->dirfd, s->name, &s->st, s->real,
				       d->real, 0);
		ws->whole[0] = ws->whole[1] = NULL;
	}
	return rc;
}

/*
 * A move onto what no rename can replace, forced or not (code): a file
 * onto a directory (IS_A_DIRECTORY), a directory onto a file
 * (NOT_A_DIRECTORY), onto a directory that holds entries
 * (DIRECTORY_NOT_EMPTY).  Said as such, naming the obstacle dst, with
 * what to do instead: never "--force", which cannot help, nor a bare
 * "rename: Is a directory" (ftu13 13, 20).
 */
static int
ws__mv_refuse(int code, const char *dst, const char *name)
{
	size_t n = strlen(dst);
	const char *sep = n > 0 && dst[n - 1] == '/' ? "" : "/";

	if (code == WS_EIS_A_DIRECTORY) {
		ws_error_set(code, dst, "is a directory, which a file cannot "
			     "replace (forced or not)");
		return ws_error_set_hint("end the destination with \"/\" (%s%s) to "
					 "move it into that directory under its name, "
					 "or give the full destination (%s%s%s)", dst,
					 sep, dst, sep, name);
	}
	if (code == WS_ENOT_A_DIRECTORY) {
		ws_error_set(code, dst, "is not a directory, so a directory cannot "
			     "replace it (forced or not)");
		return ws_error_set_hint("delete or move %s first, or give another "
					 "destination", dst);
	}
	ws_error_set(WS_EDIRECTORY_NOT_EMPTY, dst, "is a directory that holds "
		     "entries: a move replaces only an empty one (forced or not)");
	return ws_error_set_hint("end the destination with \"/\" (%s%s) to move it "
				 "into that directory, or move or delete what %s "
				 "holds first", dst, sep, dst);
}

/*
 * Whether what is at the destination d can be replaced by the source s
 * at all (ws__mv_refuse() when not), before anything is recorded.  The
 * types were stat'd by the resolver; whether a directory holds entries
 * is looked at only where the policy's file rules let it be listed
 * without asking (else the rename says so, when it fails).
 */
static int
ws__mv_replaceable(struct ws_ctx *ws, const struct ws_res *s,
		   const struct ws_res *d, const char *dst)
{
	bool sdir = S_ISDIR(s->st.st_mode), ddir = S_ISDIR(d->st.st_mode), empty;

	if (!d->exists)
		return 0;
	if (ddir && !sdir)
		return ws__mv_refuse(WS_EIS_A_DIRECTORY, dst, s->name);
	if (sdir && !ddir)
		return ws__mv_refuse(WS_ENOT_A_DIRECTORY, dst, s->name);
	if (!sdir || (ws->policy != NULL &&
		      ws_policy_check_file(ws->policy, WS_OP_LIST, d->real, NULL) !=
			      WS_DECISION_ALLOW))
		return 0;
	if (ws__dir_empty(d->dirfd, d->name, &empty) == 0 && !empty)
		return ws__mv_refuse(WS_EDIRECTORY_NOT_EMPTY, dst, s->name);
	ws_error_clear();
	return 0;
}

int
ws_move_replaceable(struct ws_ctx *ws, const char *src, const char *dst)
{
	struct ws_res s, d;
	int rc = 0;

	memset(&d, 0, sizeof(d));
	d.fd = d.dirfd = -1;
	if (ws_resolve(ws, src, WS_R_NOFOLLOW, &s) == 0 &&
	    ws_resolve(ws, dst, WS_R_MISSING_OK | WS_R_NOFOLLOW, &d) == 0)
		rc = ws__mv_replaceable(ws, &s, &d, dst);
	else
		ws_error_clear();
	ws_res_free(&s);
	ws_res_free(&d);
	return rc;
}

int
ws_move(struct ws_ctx *ws, const char *src, const char *dst, bool force,
	bool parents, bool dry_run, const char *if_version, struct ws_wresult *r)
{
	struct ws_res s, d;
	struct ws__nlock lk = {NULL, -1};
	char *into = NULL;
	int rc;

	memset(r, 0, sizeof(*r));
	memset(&d, 0, sizeof(d));
	d.fd = d.dirfd = -1;
	r->action = "move";
	r->dry_run = dry_run;
	rc = ws__resolve_object(ws, src, "move", r, &s);
	if (rc < 0)
		goto out;
	if ((rc = ws_check_version(&s.st, if_version, src)) < 0)
		goto out;
	rc = ws_resolve(ws, dst, WS_R_MISSING_OK | WS_R_NOFOLLOW, &d);
	if (rc < 0)
		goto out;
	if (d.must_dir && ((d.exists && S_ISDIR(d.st.st_mode)) ||
			   (!d.exists && parents))) {
		/*
		 * "mv a dir/": into the directory, under the same name; with
		 * parents, a missing dir/ is made to receive it (an agent
		 * that writes "dest/" means a directory, not a new name).
		 */
		into = ws_path_join(dst, s.name);
		ws_res_free(&d);
		if (into == NULL) {
			rc = ws__nomem();
			goto out;
		}
		rc = ws_resolve(ws, into, WS_R_MISSING_OK | WS_R_NOFOLLOW, &d);
		if (rc < 0)
			goto out;
	} else if (d.must_dir && !S_ISDIR(s.st.st_mode)) {
		rc = ws_error_set(WS_ENOT_A_DIRECTORY, dst,
				  "is not an existing directory");
		goto out;
	}
	r->dest_vpath = strdup(d.vpath);
	r->dest_real = strdup(d.real);
	if (r->dest_vpath == NULL || r->dest_real == NULL) {
		rc = ws__nomem();
		goto out;
	}
	if (d.exists && (rc = ws__refuse_anchor(ws, &d, dst, "replace")) < 0)
		goto out;
	if (!d.exists && strcmp(d.name, ".") == 0) {
		rc = ws_error_set(WS_EINVALID_ARGUMENT, dst,
				  "cannot replace the top of a mount");
		goto out;
	}
	if ((rc = ws_res_check_writable(ws, &s)) < 0)
		goto out;
	if ((rc = ws_res_check_writable(ws, &d)) < 0) {
		ws__with_path(rc, dst);
		goto out;
	}
	if (d.exists && !force) {
		/* What --force could not replace is not offered it. */
		if ((rc = ws__mv_replaceable(ws, &s, &d, into != NULL ? into : dst)) < 0)
			goto out;
		rc = ws_error_set(WS_EALREADY_EXISTS, dst,
				  "already exists (use --force to replace it)");
		goto out;
	}
	/* The guards and the policy first, then what no force can do. */
	if ((rc = ws__mv_check(ws, &s, &d, parents, src, dst)) < 0 ||
	    (rc = ws__mv_replaceable(ws, &s, &d, into != NULL ? into : dst)) < 0 ||
	    (rc = ws__mv_depth(ws, &s, &d, src)) < 0)
		goto out;
	if (dry_run)
		goto out;
	if ((rc = ws__lock_version(&lk, &s, if_version, src)) < 0)
		goto out;
	/* Where it was, and what it replaces, before it moves. */
	if ((rc = ws_hist_begin(ws, "move", s.dirfd, s.name, s.vpath, s.real, &s.st,
				false, d.dirfd, d.name, d.vpath, d.real,
				d.exists ? &d.st : NULL)) < 0)
		goto out;
	rc = ws_res_make_parents(&d, parents, 0777);
	ws_hist_parents(ws, &d);
	if (rc < 0) {
		ws__with_path(rc, dst);
		goto out;
	}
	if (renameat2(s.dirfd, s.name, d.dirfd, d.name,
		      force ? 0 : RENAME_NOREPLACE) == 0)
		goto out;
	if (errno == EINVAL && !force && !S_ISDIR(s.st.st_mode)) {
		/* No RENAME_NOREPLACE here (or a bad target): link + unlink. */
		if (linkat(s.dirfd, s.name, d.dirfd, d.name, 0) == 0) {
			if (unlinkat(s.dirfd, s.name, 0) < 0)
				rc = ws_error_errno(errno, NULL, "unlink");
			goto out;
		}
	}
	switch (errno) {
	case EXDEV:
		rc = ws_error_set(WS_EIO_ERROR, src,
				  "cross-device moves are not supported (%s and "
				  "%s are on different filesystems): copy, then "
				  "delete", s.vpath, d.vpath);
		break;
	case EEXIST:
	case ENOTEMPTY:
		/* Something was put there since it was looked at. */
		rc = force || errno == ENOTEMPTY ?
		     ws__mv_refuse(WS_EDIRECTORY_NOT_EMPTY, into != NULL ? into : dst,
				   s.name) :
		     ws_error_set(WS_EALREADY_EXISTS, dst,
				  "already exists (use --force to replace it)");
		break;
	case EISDIR:
		rc = ws__mv_refuse(WS_EIS_A_DIRECTORY, into != NULL ? into : dst, s.name);
		break;
	case ENOTDIR:
		rc = ws__mv_refuse(WS_ENOT_A_DIRECTORY, into != NULL ? into : dst, s.name);
		break;
	case EINVAL:
		rc = ws_error_set(WS_EINVALID_ARGUMENT, dst,
				  "cannot move a directory into itself");
		break;
	default:
		rc = ws_error_errno(errno, NULL, "rename");
		break;
	}
out:
	ws__nlock_drop(&lk);
	r->history_id = ws_hist_end(ws, rc, d.dirfd, d.name);
	free(into);
	ws_res_free(&s);
	ws_res_free(&d);
	if (rc < 0 && ws_error_last_path() == NULL)
		ws__with_path(rc, src);
	return rc;
}
