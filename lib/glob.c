/* glob.c - path globs: string comparison for the common shapes, PCRE2 else. */
#include "ws/glob.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ws/error.h"

enum ws__gkind {
	WS__G_LITERAL, /* the whole path equals lit */
	WS__G_PREFIX,  /* the path starts with lit, which ends in "/" */
	WS__G_ANY,     /* "**": everything */
	WS__G_REGEX,   /* a PCRE2 pattern */
};

struct ws_glob {
	char *src;
	enum ws__gkind kind;
	char *lit; /* the unescaped literal text, or REGEX's literal prefix */
	size_t litlen;
	char *suf; /* REGEX: the unescaped literal text it ends with, or NULL */
	size_t suflen;
	bool sufsep; /* and suf starts the path or follows a "/" */
	char *re;	  /* REGEX: the converted pattern, until compiled */
	pcre2_code *code; /* REGEX: compiled (lazily with WS_GLOB_LAZY) */
	unsigned matches; /* PCRE2 matches so far, to decide on JIT */
	bool jit_tried;
};

/*
 * JIT compilation costs about three plain compilations (some 3 us) and
 * makes a match about 20 times faster (0.65 us to 0.03 us for a typical
 * path): it pays only for a glob matched many times, as in a recursive
 * listing.  So a glob is JIT-compiled after this many matches.
 */
#define WS__JIT_AFTER 64

/*
 * One match block for every glob of a thread.  PCRE2 10.41+ keeps its
 * backtracking frames (20 KiB at first) in the match block: one per glob
 * made a 50-rule policy fault in half a megabyte on its first check.
 */
static _Thread_local pcre2_match_data *ws__md;

static bool
ws__meta(char c)
{
	return c == '*' || c == '?' || c == '[';
}

/*
 * Classify glob.  The literal part is unescaped into lit (which has room
 * for strlen(glob) + 1 bytes); for a PCRE2 glob, that is its literal
 * prefix, which every matching path starts with.  Anything unusual (an
 * unescaped metacharacter outside the shapes below, a trailing backslash)
 * is left to PCRE2, which also reports the syntax errors.
 */
static enum ws__gkind
ws__classify(const char *glob, char *lit, size_t *litlen)
{
	size_t n = strlen(glob), i = 0, o = 0;
	bool escaped = false; /* the last literal byte came from an escape */

	if (strcmp(glob, "**") == 0)
		return WS__G_ANY;
	while (i < n) {
		if (glob[i] == '\\') {
			if (i + 1 >= n)
				break;
			lit[o++] = glob[i + 1];
			escaped = true;
			i += 2;
			continue;
		}
		if (ws__meta(glob[i])) {
			/* Only a final unescaped "/" + "**" keeps a literal shape. */
			if (i + 2 == n && glob[i] == '*' && glob[i + 1] == '*' &&
			    o > 0 && lit[o - 1] == '/' && !escaped) {
				lit[o] = '\0';
				*litlen = o;
				return WS__G_PREFIX;
			}
			break;
		}
		lit[o++] = glob[i++];
		escaped = false;
	}
	lit[o] = '\0';
	*litlen = o;
	return i == n ? WS__G_LITERAL : WS__G_REGEX;
}

/*
 * The literal text after a REGEX glob's last wildcard, unescaped into suf
 * (room for strlen(glob) + 1 bytes), which every path the glob matches
 * ends with (the converted pattern is anchored at both ends): "**" "/.env"
 * gives ".env" (see *sep below), one ending in "*.pem" gives ".pem".  Most
 * paths of a walk end otherwise, and a memcmp() then answers for PCRE2, which is only asked
 * about the few that pass (a policy walk's entries cost ~2 us each in
 * pcre2_match() before).  It only ever shortens what is compared, never
 * lengthens it: a glob with a class ("[" anywhere: escapes inside one are
 * the converter's business) or a trailing lone backslash gets none.
 */
static size_t
ws__suffix(const char *glob, char *suf, bool *sep)
{
	size_t o = 0;

	if (strchr(glob, '[') != NULL)
		return 0;
	for (size_t i = 0; glob[i] != '\0'; i++) {
		if (glob[i] == '\\') {
			if (glob[i + 1] == '\0')
				return 0;
			suf[o++] = glob[++i];
		} else if (ws__meta(glob[i]) || glob[i] == ']') {
			o = 0;
		} else {
			suf[o++] = glob[i];
		}
	}
	suf[o] = '\0';
	/*
	 * A tail "/NAME" after a wildcard: "**" "/" may match nothing
	 * ("**" "/.env" matches ".env", "/a/" "**" "/b" matches "/a/b"), but
	 * then NAME starts the path or follows a slash all the same: the
	 * slash is dropped and *sep asks for that instead.
	 */
	*sep = o > 1 && suf[0] == '/';
	if (*sep)
		memmove(suf, suf + 1, o--);
	else if (o > 0 && suf[0] == '/')
		o = 0; /* "/" alone: nothing to ask for */
	return o;
}

/*
 * pcre2_pattern_convert writes an escaped character inside a bracket
 * expression as itself, so a class whose first member is an escaped caret,
 * "[\^a]" (caret or a), comes out as "[^a]" (neither), and "[\^]" as the
 * unclosed "[^]" (found by tests/fuzz/fuzz_glob).  A glob class never
 * matches the separator: the converter adds "/" to a negated class and
 * follows a plain class that could match "/" with "(?<!/)".  So putting "/"
 * before the escaped caret, "[/\^a]", changes nothing but the class's
 * first member.  The same insertion after a "[" that is a member of a class
 * ("[a[\^]") is as harmless, which is why this pass need not track classes:
 * it only skips escaped bytes, so that "\[\^" (two literals) is left alone.
 * Sets *out to a malloc'd fixed copy and *shift to the bytes inserted, or
 * *out to NULL when glob has no such class.
 */
static int
ws__caret_fix(const char *glob, char **out, size_t *shift)
{
	size_t n = strlen(glob), i, o = 0;
	char *fixed;

	*out = NULL;
	*shift = 0;
	if (strstr(glob, "[\\^") == NULL)
		return 0;
	/* At most one "/" per three input bytes. */
	if ((fixed = malloc(n + n / 3 + 2)) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (i = 0; i < n; i++) {
		if (glob[i] == '\\' && i + 1 < n) {
			fixed[o++] = glob[i++];
		} else if (glob[i] == '[' && glob[i + 1] == '\\' &&
			   glob[i + 2] == '^') {
			fixed[o++] = '[';
			fixed[o++] = '/';
			(*shift)++;
			continue;
		}
		fixed[o++] = glob[i];
	}
	fixed[o] = '\0';
	*out = fixed;
	return 0;
}

/* Convert glob to a PCRE2 pattern (malloc'd). */
static int
ws__convert(const char *glob, char **out, size_t *erroff)
{
	pcre2_convert_context *cc = pcre2_convert_context_create(NULL);
	PCRE2_UCHAR *buf = NULL;
	PCRE2_SIZE len = 0;
	size_t shift;
	char *fixed = NULL;
	int rc;

	*out = NULL;
	if (cc == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if ((rc = ws__caret_fix(glob, &fixed, &shift)) < 0) {
		pcre2_convert_context_free(cc);
		return rc;
	}
	/* Explicit, so that the build host's defaults cannot change them. */
	pcre2_set_glob_separator(cc, '/');
	pcre2_set_glob_escape(cc, '\\');
	rc = pcre2_pattern_convert((PCRE2_SPTR)(fixed ? fixed : glob),
				   PCRE2_ZERO_TERMINATED, PCRE2_CONVERT_GLOB,
				   &buf, &len, cc);
	pcre2_convert_context_free(cc);
	free(fixed);
	if (rc != 0) {
		PCRE2_UCHAR msg[256];

		/* The offset was in the fixed copy; near enough, and in range. */
		len = len > shift ? len - shift : 0;
		pcre2_get_error_message(rc, msg, sizeof(msg));
		if (erroff != NULL)
			*erroff = len;
		return ws_error_set(WS_EINVALID_PATTERN, NULL,
				    "bad glob \"%s\" at offset %zu: %s", glob,
				    (size_t)len, (const char *)msg);
	}
	*out = strndup((const char *)buf, len);
	pcre2_converted_pattern_free(buf);
	if (*out == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

/* Compile the converted pattern of g (once). */
static int
ws__compile(struct ws_glob *g, unsigned flags)
{
	PCRE2_SIZE eo;
	int ec;

	g->code = pcre2_compile((PCRE2_SPTR)g->re, PCRE2_ZERO_TERMINATED, 0, &ec,
				&eo, NULL);
	if (g->code == NULL) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(ec, msg, sizeof(msg));
		return ws_error_set(ec == PCRE2_ERROR_NOMEMORY ? WS_ENOMEM
							       : WS_EINVALID_PATTERN,
				    NULL, "bad glob \"%s\": %s (in its regex %s at %zu)",
				    g->src, (const char *)msg, g->re, (size_t)eo);
	}
	free(g->re);
	g->re = NULL;
	if (flags & WS_GLOB_JIT) {
		g->jit_tried = true;
		(void)pcre2_jit_compile(g->code, PCRE2_JIT_COMPLETE);
	}
	if (ws__md == NULL && (ws__md = pcre2_match_data_create(1, NULL)) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

int
ws_glob_compile(const char *glob, unsigned flags, struct ws_glob **out,
		size_t *erroff)
{
	struct ws_glob *g;
	int rc = 0;

	*out = NULL;
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	g->src = strdup(glob);
	g->lit = malloc(strlen(glob) + 1);
	if (g->src == NULL || g->lit == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	g->kind = ws__classify(glob, g->lit, &g->litlen);
	if (g->kind != WS__G_REGEX && !(flags & WS_GLOB_REGEX))
		goto out;
	if (flags & WS_GLOB_REGEX) {
		/* Forced: PCRE2 alone, no shortcut, the reference the tests
		 * and tests/fuzz/fuzz_glob compare the shortcuts with. */
		g->litlen = 0;
	} else if ((g->suf = malloc(strlen(glob) + 1)) == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	} else if ((g->suflen = ws__suffix(glob, g->suf, &g->sufsep)) == 0) {
		free(g->suf);
		g->suf = NULL;
	}
	g->kind = WS__G_REGEX;
	/*
	 * Converting is cheap and finds almost every syntax error now.  Not
	 * all: a class such as "[.E.]" converts to a regex that PCRE2 reads
	 * as a POSIX collating element and refuses.  A converted pattern
	 * that holds "[." "[=" or "[:" is therefore compiled at once even
	 * when lazy (found by tests/fuzz/fuzz_glob; such globs are rare, the
	 * cost is theirs).
	 */
	rc = ws__convert(glob, &g->re, erroff);
	if (rc < 0 || ((flags & WS_GLOB_LAZY) && strstr(g->re, "[.") == NULL &&
		       strstr(g->re, "[=") == NULL && strstr(g->re, "[:") == NULL))
		goto out;
	if ((rc = ws__compile(g, flags)) < 0 && erroff != NULL)
		*erroff = 0;
out:
	if (rc < 0) {
		ws_glob_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

int
ws_glob_match(struct ws_glob *g, const char *s, size_t len)
{
	int rc;

	switch (g->kind) {
	case WS__G_ANY:
		return 1;
	case WS__G_LITERAL:
		return len == g->litlen && memcmp(s, g->lit, len) == 0;
	case WS__G_PREFIX:
		/* lit is "X/": the path must be below X. */
		return len >= g->litlen && memcmp(s, g->lit, g->litlen) == 0;
	case WS__G_REGEX:
		/* Every match starts with the literal prefix: most paths stop here. */
		if (len < g->litlen || memcmp(s, g->lit, g->litlen) != 0)
			return 0;
		/* And ends with its literal tail: most of the rest stop here. */
		if (len < g->suflen ||
		    (g->suflen > 0 && memcmp(s + len - g->suflen, g->suf, g->suflen) != 0) ||
		    (g->sufsep && len > g->suflen && s[len - g->suflen - 1] != '/'))
			return 0;
		if (g->code == NULL && (rc = ws__compile(g, 0)) < 0)
			return rc;
		/* Compiled on another thread (ws_glob_prepare()). */
		if (ws__md == NULL && (ws__md = pcre2_match_data_create(1, NULL)) == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		if (!g->jit_tried && ++g->matches >= WS__JIT_AFTER) {
			g->jit_tried = true;
			(void)pcre2_jit_compile(g->code, PCRE2_JIT_COMPLETE);
		}
		return pcre2_match(g->code, (PCRE2_SPTR)s, len, 0, 0, ws__md,
				   NULL) >= 0;
	}
	return 0;
}

void
ws_glob_thread_end(void)
{
	pcre2_match_data_free(ws__md);
	ws__md = NULL;
}

int
ws_glob_prepare(struct ws_glob *g)
{
	int rc;

	if (g->kind != WS__G_REGEX || g->jit_tried)
		return 0;
	if (g->code == NULL && (rc = ws__compile(g, 0)) < 0)
		return rc;
	g->jit_tried = true;
	(void)pcre2_jit_compile(g->code, PCRE2_JIT_COMPLETE);
	return 0;
}

const char *
ws_glob_source(const struct ws_glob *g)
{
	return g->src;
}

char *
ws_glob_regex(const struct ws_glob *g)
{
	char *re = NULL;

	if (ws__convert(g->src, &re, NULL) < 0)
		return NULL;
	return re;
}

void
ws_glob_free(struct ws_glob *g)
{
	if (g == NULL)
		return;
	pcre2_code_free(g->code);
	free(g->re);
	free(g->lit);
	free(g->suf);
	free(g->src);
	free(g);
}

char *
ws_glob_escape(const char *s)
{
	size_t n = 0;
	char *out, *o;

	/* Braces too: not glob syntax, but a policy refuses an unescaped
	 * one, and a workspace named "a{b}" made every rule naming
	 * ${WORKSPACE} a POLICY_ERROR (review23 13). */
	for (const char *p = s; *p; p++)
		n += (ws__meta(*p) || *p == '\\' || *p == ']' || *p == '{' ||
		      *p == '}') ? 2 : 1;
	out = malloc(n + 1);
	if (out == NULL)
		return NULL;
	o = out;
	for (const char *p = s; *p; p++) {
		if (ws__meta(*p) || *p == '\\' || *p == ']' || *p == '{' || *p == '}')
			*o++ = '\\';
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

char *
ws_glob_directory(const struct ws_glob *g)
{
	/*
	 * Only "D/" followed by "**" names a directory with everything in
	 * it.  A glob compiled with WS_GLOB_REGEX lost its shape (REGEX) and
	 * gives none; so do a lone "D" (the directory itself, not what it
	 * holds) and every glob with a wildcard before its end.
	 */
	if (g == NULL || g->kind != WS__G_PREFIX || g->litlen == 0)
		return NULL;
	return strndup(g->lit, g->litlen > 1 ? g->litlen - 1 : 1);
}

const char *
ws_glob_prefix(const struct ws_glob *g)
{
	if (g == NULL || g->kind == WS__G_ANY)
		return "";
	/* A glob compiled with WS_GLOB_REGEX has no recorded prefix. */
	return g->litlen > 0 ? g->lit : "";
}
