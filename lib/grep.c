/*
 * grep.c - content search and find-by-name for wsgrep (see ws/grep.h).
 *
 * Threads.  Every thread (the calling one and one more per CPU) walks
 * and searches: jobs are directories to read and files to search, kept
 * in one list in output order; reading a directory (getdents, then
 * .gitignore, filters and policy for each entry, sorted by name) puts its
 * entries' jobs in its place in that list.  The jobs not started sit on a
 * stack kept in output order (a directory's entries go where they belong
 * in it, wsg_stack_insert), so that the threads take them depth first,
 * near the head of the output: the stack's top is always the oldest job
 * not started.  A thread takes the
 * lock once per job (to hand back the last one and take the next);
 * condition variables are signalled only when a thread waits on them.
 * Each directory's descriptor and .gitignore chain are shared by its
 * entries' jobs (counted references); a file is opened through it by the
 * thread that searches it.
 *
 * Order.  A job's results go straight to the callback only while it is
 * the oldest job not yet delivered (the head); the others buffer theirs,
 * up to a shared byte budget past which a thread waits to become the
 * head, as long as another thread goes on working.  The thread that
 * finishes the head job also delivers the finished jobs after it.
 * Exactly one thread delivers at any time, so delivery needs no lock.
 *
 * Searching.  A worker reads a file into one buffer (grown up to
 * WS_GREP_LINE_MAX for long lines) and searches the whole buffer at once
 * (memmem for a plain literal, else PCRE2 JIT) from a line start; only a
 * match's line is then delimited.  A match that crosses a line end
 * outside -U is searched again within its line alone.  The buffer keeps
 * the -B context lines across refills.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "ws/cancel.h"
#include "ws/call.h"
#include "ws/glob.h"
#include "ws/grep.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WSG_AVX2 1
#endif
#include <fcntl.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/ignore.h"
#include "ws/path.h"
#include "ws/policy.h"
#include "ws/read.h"
#include "ws/resolve.h"
#include "ws/rxdfa.h"
#include "ws/workspace.h"

#define WSG_CHUNK (256 * 1024)		   /* first buffer size */
/* Bytes of whole lines given to one pcre2_match() (see wsg_next). */
#define WSG_SLICE (4 * 1024)
/* Bytes of whole lines the DFA scans between two checks of the clock. */
#define WSG_DFA_STEP (64 * 1024)
#define WSG_SNIFF 8192			   /* bytes checked for NUL */
#define WSG_SNIFF_READ (64 * 1024)	   /* the first read of a file */
#define WS__DENTS_BUF (64 * 1024)	   /* getdents64 buffer */
#define WSG_BUFFERED (16 * 1024 * 1024)	   /* results held out of turn */
#define WSG_MAX_DONE 4096		   /* jobs finished out of turn */
#define WSG_LONG_TEXT 4096		   /* text kept of a cut long line */
#define WSG_MAX_CTX 10000		   /* -A/-B ceiling */
#define WSG_MAX_LITS 16			   /* literals searched without PCRE2 */

static const char *const wsg_skip_names[WS_GREP_SKIP_COUNT] = {
	"binary", "ignored", "too_large", "policy", "symlink_outside",
	"special", "unreadable", "loop",
};

const char *
ws_grep_skip_name(enum ws_grep_skip s)
{
	return (unsigned)s < WS_GREP_SKIP_COUNT ? wsg_skip_names[s] : "?";
}

static const struct ws_grep_type wsg_types[] = {
	{"c", "*.c *.h"},
	{"cpp", "*.cpp *.cc *.cxx *.hpp *.hh *.hxx *.h *.inl"},
	{"cs", "*.cs"},
	{"css", "*.css *.scss *.sass *.less"},
	{"go", "*.go"},
	{"html", "*.html *.htm *.xhtml"},
	{"java", "*.java"},
	{"js", "*.js *.mjs *.cjs *.jsx"},
	{"json", "*.json *.jsonl"},
	{"kotlin", "*.kt *.kts"},
	{"lua", "*.lua"},
	{"make", "Makefile makefile GNUmakefile *.mk *.mak"},
	{"md", "*.md *.markdown"},
	{"meson", "meson.build meson_options.txt meson.options"},
	{"php", "*.php"},
	{"py", "*.py *.pyi"},
	{"rb", "*.rb *.gemspec Rakefile Gemfile"},
	{"rust", "*.rs"},
	{"sh", "*.sh *.bash *.zsh .bashrc .profile"},
	{"sql", "*.sql"},
	{"swift", "*.swift"},
	{"toml", "*.toml"},
	{"ts", "*.ts *.tsx *.mts *.cts"},
	{"txt", "*.txt"},
	{"xml", "*.xml *.xsd *.xsl *.svg"},
	{"yaml", "*.yaml *.yml"},
};

const struct ws_grep_type *
ws_grep_types(size_t *n)
{
	*n = sizeof(wsg_types) / sizeof(wsg_types[0]);
	return wsg_types;
}

/* ------------------------------------------------------------------ */
/* Compiling                                                           */

struct ws_grep {
	struct ws_grep_opts o;
	pcre2_code *re;
	bool jit;
	struct ws_rxdfa *dfa; /* which lines match, where PCRE2 would backtrack */
	char *lit;	/* plain literal: searched with memmem, no PCRE2 */
	size_t litlen;
	char **lits;	/* several plain literals (nlits > 1) */
	size_t *litlens, nlits;
	size_t litrare, litsrare[WSG_MAX_LITS]; /* rare byte index, or SIZE_MAX */
	const struct ws_grep_type **types, **types_not;
};

void
ws_grep_free(struct ws_grep *g)
{
	if (g == NULL)
		return;
	pcre2_code_free(g->re);
	ws_rxdfa_free(g->dfa);
	free(g->lit);
	for (size_t i = 0; i < g->nlits; i++)
		free(g->lits[i]);
	free(g->lits);
	free(g->litlens);
	free(g->types);
	free(g->types_not);
	free(g);
}

static bool
wsg_is_meta(unsigned char c)
{
	return strchr("\\^$.|?*+()[]{}", c) != NULL && c != '\0';
}

/*
 * How common a byte is in source code and text, roughly (higher: more
 * common).  A literal is found by memchr() on its rarest byte and then
 * compared: memchr runs at memory speed, where memmem() checks every
 * position; a literal made only of common bytes goes to memmem().
 */
static int
wsg_byte_rank(unsigned char c)
{
	if (c >= 0x80)
		return 1;
	if (c == ' ')
		return 100;
	if (strchr("etaoinsrhldcu", c) != NULL)
		return 60;
	if (c >= 'a' && c <= 'z')
		return 35;
	if (c == '\t' || c == '\n')
		return 40;
	if (strchr("_();,.=*{}-/\"'", c) != NULL)
		return 30;
	if (c >= '0' && c <= '9')
		return 20;
	if (strchr("ETSRAINOLCD", c) != NULL)
		return 14;
	if (c >= 'A' && c <= 'Z')
		return 10;
	return 8;
}

/* The index of the rarest byte of s (n > 0 bytes), and its rank. */
static size_t
wsg_rare(const char *s, size_t n, int *rank)
{
	size_t best = 0;

	*rank = 1000;
	for (size_t i = 0; i < n; i++) {
		int r = wsg_byte_rank((unsigned char)s[i]);

		if (r < *rank) {
			*rank = r;
			best = i;
		}
	}
	return best;
}

#ifdef __SSE2__
/*
 * A needle of common bytes ("static"): 16 positions at a time, those
 * where both its first and its last byte are in place are compared
 * (W. Mula's SIMD-friendly substring search).  The pair is rare where
 * each byte alone is not; glibc's memmem spent a third of the time of a
 * search for "static" in /usr/include.  m >= 2.
 */
static const char *
wsg_find_pair(const char *h, size_t n, const char *nd, size_t m)
{
	const __m128i f = _mm_set1_epi8(nd[0]), l = _mm_set1_epi8(nd[m - 1]);
	size_t last, p = 0;

	if (m > n)
		return NULL;
	last = n - m; /* the last start; loads end at h + last + m - 1 + 15 */
	for (; p + 15 <= last; p += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(h + p));
		__m128i b = _mm_loadu_si128(
			(const __m128i *)(const void *)(h + p + m - 1));
		unsigned mask = (unsigned)_mm_movemask_epi8(
			_mm_and_si128(_mm_cmpeq_epi8(a, f), _mm_cmpeq_epi8(b, l)));

		while (mask != 0) {
			unsigned bit = (unsigned)__builtin_ctz(mask);

			if (memcmp(h + p + bit + 1, nd + 1, m - 2) == 0)
				return h + p + bit;
			mask &= mask - 1;
		}
	}
	for (; p <= last; p++)
		if (h[p] == nd[0] && h[p + m - 1] == nd[m - 1] &&
		    memcmp(h + p, nd, m) == 0)
			return h + p;
	return NULL;
}
#endif

#ifdef WSG_AVX2
/*
 * wsg_find_pair 32 positions at a time, where the CPU has AVX2 (asked
 * by a load of what libgcc's constructor found): the five literals of bench_wsgrep.sh are five such
 * scans of each slice, and the scan was 37 % of their search.
 */
__attribute__((target("avx2"))) static const char *
wsg_find_pair_avx2(const char *h, size_t n, const char *nd, size_t m)
{
	const __m256i f = _mm256_set1_epi8(nd[0]), l = _mm256_set1_epi8(nd[m - 1]);
	size_t last, p = 0;
	const char *r;

	if (m > n)
		return NULL;
	last = n - m; /* the last start; loads end at h + last + m - 1 + 31 */
	for (; p + 31 <= last; p += 32) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(h + p));
		__m256i b = _mm256_loadu_si256(
			(const __m256i *)(const void *)(h + p + m - 1));
		unsigned mask = (unsigned)_mm256_movemask_epi8(
			_mm256_and_si256(_mm256_cmpeq_epi8(a, f),
					 _mm256_cmpeq_epi8(b, l)));

		while (mask != 0) {
			unsigned bit = (unsigned)__builtin_ctz(mask);

			if (memcmp(h + p + bit + 1, nd + 1, m - 2) == 0)
				return h + p + bit;
			mask &= mask - 1;
		}
	}
	r = wsg_find_pair(h + p, n - p, nd, m);
	return r;
}
#endif

/*
 * Find needle (m bytes) in h (n bytes): memchr on its rare byte at index
 * ri, then memcmp; when no byte of it is rare (ri == SIZE_MAX), its first
 * and last byte together (wsg_find_pair), or memmem.
 */
static const char *
wsg_find(const char *h, size_t n, const char *nd, size_t m, size_t ri)
{
	const char *p, *last;

	if (ri == SIZE_MAX) {
#ifdef WSG_AVX2
		if (m >= 2 && __builtin_cpu_supports("avx2"))
			return wsg_find_pair_avx2(h, n, nd, m);
#endif
#ifdef __SSE2__
		if (m >= 2)
			return wsg_find_pair(h, n, nd, m);
#endif
		return memmem(h, n, nd, m);
	}
	if (m > n)
		return NULL;
	p = h + ri;
	last = h + (n - m) + ri;
	while (p <= last) {
		p = memchr(p, nd[ri], (size_t)(last - p) + 1);
		if (p == NULL)
			return NULL;
		if (memcmp(p - ri, nd, m) == 0)
			return p - ri;
		p++;
	}
	return NULL;
}

/* Append s (n bytes) to a growing string. */
static int
wsg_cat(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t nc = (*len + n + 1) * 2;
		char *nb = realloc(*buf, nc);

		if (nb == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		*buf = nb;
		*cap = nc;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

/* A literal as a regex: each metacharacter escaped. */
static int
wsg_cat_literal(char **buf, size_t *len, size_t *cap, const char *s)
{
	int rc = 0;

	for (; *s && rc == 0; s++) {
		if (wsg_is_meta((unsigned char)*s))
			rc = wsg_cat(buf, len, cap, "\\", 1);
		if (rc == 0)
			rc = wsg_cat(buf, len, cap, s, 1);
	}
	return rc;
}

static bool
wsg_has_upper(const char *s)
{
	/* Smart case looks at letters only, not at escapes like \S or \W. */
	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			continue;
		}
		if (*s >= 'A' && *s <= 'Z')
			return true;
	}
	return false;
}

/*
 * Whether a pattern means something else on bytes than on UTF-8
 * characters.  An ASCII pattern without ".", negated classes or escapes,
 * \X, \C, \p, \R or verbs matches the same bytes either way (\w, \d and
 * \s are ASCII in both, as PCRE2_UCP is off), and PCRE2 runs about a
 * fifth faster without UTF; anything else gets PCRE2_UTF with
 * PCRE2_MATCH_INVALID_UTF, so that any bytes stay searchable.
 */
static bool
wsg_needs_utf(const char *p, bool fixed, bool icase)
{
	for (const unsigned char *s = (const unsigned char *)p; *s; s++) {
		if (*s >= 0x80)
			return !fixed || icase;
		if (fixed)
			continue;
		if (*s == '.' || (*s == '[' && s[1] == '^') ||
		    (*s == '(' && s[1] == '*'))
			return true;
		if (*s == '\\' && s[1] != '\0') {
			if (strchr("WSDHVNXCpPRx", s[1]) != NULL)
				return true;
			s++;
		}
	}
	return false;
}


/*
 * If every pattern is a plain literal, or an alternation of them
 * ("A|B"), keep them in g->lit (one) or g->lits (several).  Returns 0
 * whether or not they are, or WS_ENOMEM.
 */
static int
wsg_literals(struct ws_grep *g, const struct ws_grep_opts *o)
{
	char *v[WSG_MAX_LITS];
	size_t n = 0;

	for (size_t i = 0; i < o->npatterns; i++) {
		const char *p = o->patterns[i];

		for (;;) {
			size_t k = o->fixed ? strlen(p) : strcspn(p, "|");

			if (k == 0 || n == WSG_MAX_LITS || memchr(p, '\n', k))
				goto not_plain;
			for (size_t j = 0; j < k && !o->fixed; j++)
				if (wsg_is_meta((unsigned char)p[j]))
					goto not_plain;
			v[n] = strndup(p, k);
			if (v[n] == NULL)
				goto nomem;
			n++;
			if (p[k] != '|' || o->fixed)
				break;
			p += k + 1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		int rank;
		size_t ri = wsg_rare(v[i], strlen(v[i]), &rank);

		g->litsrare[i] = rank >= 30 ? SIZE_MAX : ri;
	}
	if (n == 1) {
		g->lit = v[0];
		g->litlen = strlen(v[0]);
		g->litrare = g->litsrare[0];
		return 0;
	}
	g->lits = calloc(n, sizeof(*g->lits));
	g->litlens = calloc(n, sizeof(*g->litlens));
	if (g->lits == NULL || g->litlens == NULL)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		g->lits[i] = v[i];
		g->litlens[i] = strlen(v[i]);
	}
	g->nlits = n;
	return 0;
nomem:
	while (n > 0)
		free(v[--n]);
	return ws_error_set(WS_ENOMEM, NULL, "out of memory");
not_plain:
	while (n > 0)
		free(v[--n]);
	return 0;
}

static int
wsg_find_types(const char *const *names, size_t n,
	       const struct ws_grep_type ***out)
{
	size_t nt;
	const struct ws_grep_type *t = ws_grep_types(&nt);

	*out = NULL;
	if (n == 0)
		return 0;
	*out = calloc(n, sizeof(**out));
	if (*out == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < nt && (*out)[i] == NULL; k++)
			if (strcmp(t[k].name, names[i]) == 0)
				(*out)[i] = &t[k];
		if ((*out)[i] == NULL)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "unknown file type \"%s\" (see "
					    "--type-list)", names[i]);
	}
	return 0;
}

/*
 * Whether a glob holds "{...,...}" that no backslash escapes: rg's and
 * the shell's alternatives, which gitignore syntax reads as literal
 * characters, so that "*.{c,h}" would silently match nothing.
 */
static bool
wsg_brace_list(const char *g)
{
	const char *open = NULL;
	bool comma = false;

	for (const char *c = g; *c; c++) {
		if (*c == '\\' && c[1] != '\0') {
			c++;
		} else if (*c == '{') {
			open = c;
			comma = false;
		} else if (*c == ',' && open != NULL) {
			comma = true;
		} else if (*c == '}' && open != NULL && comma) {
			return true;
		}
	}
	return false;
}

/* Refuse brace alternatives in the include and exclude globs. */
static int
wsg_check_globs(const char *what, const char *const *globs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (wsg_brace_list(globs[i]))
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "%s \"%s\": braces are not glob "
					    "syntax here (gitignore's); repeat %s "
					    "once per alternative, as \"*.c\" and "
					    "\"*.h\" for \"*.{c,h}\"", what,
					    globs[i], what);
	return 0;
}

/*
 * A DFA that finds the lines that match, where PCRE2 has no first byte
 * to look for and so tries the pattern at every position (a regex such
 * as \w{5}\s+\w{5}: 86 % of wsgrep's time was PCRE2's, rg reads each
 * byte once).  PCRE2 then finds the match in each line the DFA found,
 * so that the results are the same.  Only line by line (not -U), for
 * patterns as written (not -x, -w or -F: their wrappers are PCRE2's),
 * without UTF (ws/rxdfa.h declines what it does not know).
 */
static int
wsg_dfa(struct ws_grep *g, const struct ws_grep_opts *o, uint32_t flags)
{
	uint32_t first = 0;

	if (g->lit != NULL || g->nlits > 0 || o->multiline || o->line ||
	    o->word || o->fixed || (flags & PCRE2_UTF) ||
	    pcre2_pattern_info(g->re, PCRE2_INFO_FIRSTCODETYPE, &first) != 0 ||
	    first != 0)
		return 0;
	return ws_rxdfa_compile((const char *const *)o->patterns, o->npatterns,
				(flags & PCRE2_CASELESS) != 0, &g->dfa);
}

int
ws_grep_compile(const struct ws_grep_opts *o, struct ws_grep **out,
		size_t *bad)
{
	struct ws_grep *g;
	uint32_t flags = PCRE2_MULTILINE;
	char *pat = NULL;
	size_t len = 0, cap = 0;
	bool icase = o->icase;
	int rc = 0, err;
	PCRE2_SIZE off;

	*out = NULL;
	if (o->mode != WS_GREP_LIST && o->npatterns == 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "a pattern is required");
	if (o->before < 0 || o->after < 0 || o->before > WSG_MAX_CTX ||
	    o->after > WSG_MAX_CTX)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "context is 0 to %d lines", WSG_MAX_CTX);
	if ((rc = wsg_check_globs("include", o->include, o->ninclude)) < 0 ||
	    (rc = wsg_check_globs("exclude", o->exclude, o->nexclude)) < 0)
		return rc;
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	g->o = *o;
	if ((rc = wsg_find_types(o->types, o->ntypes, &g->types)) < 0 ||
	    (rc = wsg_find_types(o->types_not, o->ntypes_not, &g->types_not)) < 0)
		goto fail;
	if (o->mode == WS_GREP_LIST) {
		*out = g;
		return 0;
	}
	if (o->smart_case && !icase) {
		icase = true;
		for (size_t i = 0; i < o->npatterns; i++)
			if (wsg_has_upper(o->patterns[i]))
				icase = false;
	}
	g->o.icase = icase;
	if (icase)
		flags |= PCRE2_CASELESS;
	for (size_t i = 0; i < o->npatterns; i++)
		if (wsg_needs_utf(o->patterns[i], o->fixed, icase))
			flags |= PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
	/*
	 * Each pattern alone first, so that an error names its own offset
	 * rather than one in the combined pattern.
	 */
	if (!o->fixed) {
		for (size_t i = 0; i < o->npatterns; i++) {
			pcre2_code *c = pcre2_compile(
				(PCRE2_SPTR)o->patterns[i], PCRE2_ZERO_TERMINATED,
				flags, &err, &off, NULL);
			PCRE2_UCHAR msg[256];
			size_t shown;

			if (c != NULL) {
				pcre2_code_free(c);
				continue;
			}
			pcre2_get_error_message(err, msg, sizeof(msg));
			if (bad != NULL)
				*bad = i;
			/* Which of several patterns (-e, -f FILE), and that a
			 * literal search is a flag away. */
			shown = strlen(o->patterns[i]);
			if (shown > 80) {
				/* Cut at a character's start, not inside one. */
				shown = 80;
				while (shown > 0 &&
				       ((unsigned char)o->patterns[i][shown] & 0xC0) == 0x80)
					shown--;
			}
			rc = ws_error_set(WS_EINVALID_PATTERN, NULL,
					  "\"%.*s%s\": not a valid PCRE2 regular "
					  "expression: %s at offset %zu",
					  (int)shown, o->patterns[i],
					  o->patterns[i][shown] != '\0' ? "..." : "",
					  (char *)msg, (size_t)off);
			ws_error_set_hint("to search for the text as it is, "
					  "ask for a fixed string (-F, "
					  "fixed_strings)");
			goto fail;
		}
	}
	/*
	 * Plain literals need no regex engine: one is found with memmem,
	 * a few (-e A -e B, or "A|B|C") with one memmem scan each, their
	 * next positions kept, so that each scan crosses a buffer once.
	 */
	if (!icase && !o->word && !o->line &&
	    (rc = wsg_literals(g, o)) < 0)
		goto fail;
	rc = wsg_cat(&pat, &len, &cap, o->line ? "^(?:" :
		     o->word ? "(?<!\\w)(?:" : "(?:", o->line ? 4 :
		     o->word ? 10 : 3);
	for (size_t i = 0; i < o->npatterns && rc == 0; i++) {
		if (i > 0)
			rc = wsg_cat(&pat, &len, &cap, "|", 1);
		if (rc == 0)
			rc = wsg_cat(&pat, &len, &cap, "(?:", 3);
		if (rc == 0)
			rc = o->fixed ? wsg_cat_literal(&pat, &len, &cap,
							o->patterns[i]) :
			     wsg_cat(&pat, &len, &cap, o->patterns[i],
				     strlen(o->patterns[i]));
		if (rc == 0)
			rc = wsg_cat(&pat, &len, &cap, ")", 1);
	}
	if (rc == 0)
		rc = wsg_cat(&pat, &len, &cap, o->line ? ")$" :
			     o->word ? ")(?!\\w)" : ")", o->line ? 2 :
			     o->word ? 7 : 1);
	if (rc < 0)
		goto fail;
	g->re = pcre2_compile((PCRE2_SPTR)pat, len, flags, &err, &off, NULL);
	if (g->re == NULL) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(err, msg, sizeof(msg));
		rc = ws_error_set(WS_EINVALID_PATTERN, NULL, "%s at offset %zu",
				  (char *)msg, (size_t)off);
		goto fail;
	}
	g->jit = pcre2_jit_compile(g->re, PCRE2_JIT_COMPLETE) == 0;
	if ((rc = wsg_dfa(g, o, flags)) < 0)
		goto fail;
	free(pat);
	*out = g;
	return 0;
fail:
	free(pat);
	ws_grep_free(g);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Jobs and ordered delivery                                           */

enum { WSG_JOB_SEARCH, WSG_JOB_ITEM, WSG_JOB_DIR };

struct wsg_root;

/*
 * A directory of the walk, shared by the jobs of its entries (counted
 * references): its descriptor, which they are opened through, stays
 * open while one of them still needs it.  Each directory holds a
 * reference to its parent, so that the chain up to the PATH is there
 * for the loop check.
 */
struct wsg_dir {
	atomic_int ref;
	int fd;
	char *vpath, *real;
	char *rel;	  /* relative to the PATH ("" for itself) */
	char *ignrel;	  /* what .gitignore rules see (wsg_ign_rel) */
	int depth;
	dev_t dev;
	ino_t ino;
	struct wsg_dir *parent;
	struct ws_ignore_dir *ign;
	struct wsg_root *root;
};

/* One PATH operand that is a directory. */
struct wsg_root {
	const char *vpath;
	size_t len;
	struct ws_ignore *ig;	/* .git/info/exclude and the ancestors' */
	const char *ign_base;	/* see wsg_ign_rel */
	bool no_mounts;
};

/*
 * A job: a file to search or list, or a directory to read.  Jobs sit in
 * one list in output order (next); reading a directory replaces its job
 * by its entries' jobs, in name order, so that the list is always the
 * walk's order.  The jobs that need work are also on a stack (snext).
 */
struct wsg_job {
	struct wsg_job *next, *snext, *sprev;
	bool queued;	   /* on the stack */
	int kind;
	int fd;		   /* opened already (an operand, a symlink's target) */
	struct wsg_dir *dir; /* a reference: name is opened in dir->fd */
	const char *name;
	int mount;	   /* a directory that is a mount: its anchor */
	struct wsg_root *root;
	char *vpath, *real;
	long long size, mtime;
	/* A directory read: its entries' jobs, and those that need work. */
	struct wsg_job *kids, *kids_last, *work, *work_last;
	long nkids_done;   /* of the kids, those done already (listed files) */
	/* Results held while the job is not the head. */
	struct ws_grep_item *items;
	size_t nitems, capitems;
	char *arena;
	size_t alen, acap;
	bool done;
	/* Outcome, added to the summary when it is delivered. */
	int skip; /* a WS_GREP_SKIP_*, or -1 */
	bool searched, limit_hit, deadline_hit;
	long long nmatches;
	bool matched;
};

struct wsg_run {
	struct ws_grep *g;
	/* The call the search runs for: its threads enter it (ws/call.h). */
	struct ws_call *call;
	const struct ws_grep_opts *o;
	struct ws_ctx *ws;
	ws_grep_cb cb;
	void *arg;
	struct ws_grep_summary *sum;
	/*
	 * mu guards the job list, the stack and the counts below; a worker
	 * takes it once per job (to hand back the last one and take the
	 * next), and the condition variables are signalled only when a
	 * thread waits on them.
	 */
	pthread_mutex_t mu;
	pthread_cond_t cv_work, cv_head, cv_done;
	_Atomic(struct wsg_job *) head; /* the oldest job not delivered */
	struct wsg_job *stack, *sbottom;
	int nworkers, nidle, nwaiting, active;
	int nwait_done;		/* of nwaiting, those on cv_done */
	long ndone;		/* jobs done and not yet delivered */
	atomic_bool stop;
	int err;		/* a callback's error */
	char *errmsg, *errpath;	/* its message, from the thread that had it */
	atomic_size_t buffered;
	struct timespec deadline;
	bool has_deadline;
	atomic_bool expired;
	/* The policy and path resolution, one thread at a time. */
	pthread_mutex_t pmu;
	bool plock;
	/* Delivery state (one thread at a time). */
	long long seen;
	bool last_in_page;
	struct ws_grep_item *held; /* before-context awaiting its result */
	char **heldtext;
	size_t nheld, capheld;
	bool saved_prompt;
};

/*
 * Whether the time budget is spent.  The coarse clock costs a few
 * nanoseconds and is precise to a few milliseconds, plenty for a budget
 * in seconds; once spent, it stays spent.
 */
static bool
wsg_expired(struct wsg_run *r)
{
	struct timespec now;

	if (!r->has_deadline)
		return false;
	if (atomic_load_explicit(&r->expired, memory_order_relaxed))
		return true;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (now.tv_sec > r->deadline.tv_sec ||
	    (now.tv_sec == r->deadline.tv_sec &&
	     now.tv_nsec >= r->deadline.tv_nsec)) {
		atomic_store(&r->expired, true);
		return true;
	}
	return false;
}

/* Stop everything for reason (the first reason given wins). */
static void
wsg_truncate(struct wsg_run *r, const char *reason, const char *vpath)
{
	pthread_mutex_lock(&r->mu);
	if (!r->sum->truncated) {
		r->sum->truncated = true;
		r->sum->truncated_reason = reason;
	}
	if (vpath != NULL && r->sum->gave_up == NULL)
		r->sum->gave_up = strdup(vpath);
	if (strcmp(reason, "match_limit") != 0) {
		atomic_store(&r->stop, true);
		pthread_cond_broadcast(&r->cv_work);
		pthread_cond_broadcast(&r->cv_head);
		pthread_cond_broadcast(&r->cv_done);
	}
	pthread_mutex_unlock(&r->mu);
}

static bool
wsg_is_result(enum ws_grep_kind k)
{
	return k != WS_GREP_CONTEXT && k != WS_GREP_BREAK;
}

static void
wsg_drop_held(struct wsg_run *r)
{
	for (size_t i = 0; i < r->nheld; i++)
		free(r->heldtext[i]);
	r->nheld = 0;
}

/*
 * Hand one item to the callback, applying offset and max_results to the
 * results; context goes with the result it belongs to.  Returns 0, 1 to
 * stop (the page is full), or a negative error.
 */
static int
wsg_deliver(struct wsg_run *r, const struct ws_grep_item *it)
{
	int rc;

	if (!wsg_is_result(it->kind)) {
		if (it->kind == WS_GREP_CONTEXT && it->after)
			return r->last_in_page ? r->cb(r->arg, it) : 0;
		/* Before-context and breaks wait for their result. */
		if (r->nheld == r->capheld) {
			size_t nc = r->capheld ? r->capheld * 2 : 16;
			void *a = realloc(r->held, nc * sizeof(*r->held));

			if (a == NULL)
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			r->held = a;
			a = realloc(r->heldtext, nc * sizeof(*r->heldtext));
			if (a == NULL)
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			r->heldtext = a;
			r->capheld = nc;
		}
		r->heldtext[r->nheld] = NULL;
		r->held[r->nheld] = *it;
		if (it->len > 0) {
			r->heldtext[r->nheld] = malloc(it->len);
			if (r->heldtext[r->nheld] == NULL)
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			memcpy(r->heldtext[r->nheld], it->text, it->len);
			r->held[r->nheld].text = r->heldtext[r->nheld];
		}
		r->nheld++;
		return 0;
	}
	if (r->seen < r->o->offset) {
		r->seen++;
		r->last_in_page = false;
		wsg_drop_held(r);
		return 0;
	}
	if (r->o->max_results > 0 &&
	    r->seen >= r->o->offset + r->o->max_results) {
		/* One result past the page: more remain. */
		r->sum->next_offset = r->o->offset + r->o->max_results;
		wsg_drop_held(r);
		wsg_truncate(r, "max_results", NULL);
		return 1;
	}
	r->seen++;
	r->sum->results++;
	r->last_in_page = true;
	for (size_t i = 0; i < r->nheld; i++) {
		/* A break before the first result of the page means nothing. */
		if (r->held[i].kind == WS_GREP_BREAK && r->sum->results == 1)
			continue;
		if ((rc = r->cb(r->arg, &r->held[i])) < 0)
			return rc;
	}
	wsg_drop_held(r);
	return r->cb(r->arg, it);
}

static void
wsg_dir_unref(struct wsg_dir *d)
{
	while (d != NULL && atomic_fetch_sub(&d->ref, 1) == 1) {
		struct wsg_dir *p = d->parent;

		if (d->fd >= 0)
			close(d->fd);
		ws_ignore_dir_unref(d->ign);
		free(d->vpath);
		free(d->real);
		free(d->rel);
		free(d->ignrel);
		free(d);
		d = p;
	}
}

static void
wsg_job_free(struct wsg_job *j)
{
	if (j == NULL)
		return;
	if (j->fd >= 0)
		close(j->fd);
	wsg_dir_unref(j->dir);
	free(j->items);
	free(j->arena);
	free(j);
}

static int
wsg_flush_job(struct wsg_run *r, struct wsg_job *j)
{
	int rc = 0;

	for (size_t i = 0; i < j->nitems && rc == 0; i++) {
		struct ws_grep_item it = j->items[i];

		/*
		 * Empty lines add nothing to the arena: a job whose buffered
		 * items are all empty has none, and NULL + 0 is no text (the
		 * printers hand it to memchr).
		 */
		it.text = j->arena != NULL ? j->arena + (uintptr_t)it.text : "";
		it.vpath = j->vpath;
		it.real = j->real;
		rc = wsg_deliver(r, &it);
	}
	atomic_fetch_sub(&r->buffered, j->alen + j->nitems * sizeof(*j->items));
	j->nitems = 0;
	j->alen = 0;
	return rc;
}

static void
wsg_account(struct wsg_run *r, const struct wsg_job *j)
{
	struct ws_grep_summary *s = r->sum;

	if (j->skip >= 0)
		s->skipped[j->skip]++;
	if (j->searched) {
		s->files_searched++;
		/* A message that reads on its own (ftu17 03). */
		if (ws_progress_wanted()) {
			char msg[64];

			snprintf(msg, sizeof(msg), "%lld files searched",
				 s->files_searched);
			ws_progress(s->files_searched, msg, false);
		}
	}
	if (j->matched)
		s->files_matched++;
	s->matches += j->nmatches;
}

/* Record a delivery result: a stop or an error ends the whole search. */
static void wsg_fail(struct wsg_run *r, int rc);

static void
wsg_delivered(struct wsg_run *r, int rc)
{
	if (rc < 0)
		wsg_fail(r, rc);
	else if (rc != 0)
		atomic_store(&r->stop, true);
}

/*
 * Deliver the head job and every finished job after it, freeing what
 * was delivered.  mu is held.
 */
static void
wsg_advance(struct wsg_run *r)
{
	struct wsg_job *h;
	bool moved = false;

	while ((h = atomic_load(&r->head)) != NULL && h->done) {
		if (!atomic_load(&r->stop))
			wsg_delivered(r, wsg_flush_job(r, h));
		wsg_account(r, h);
		atomic_store(&r->head, h->next);
		wsg_job_free(h);
		r->ndone--;
		moved = true;
	}
	if (moved && r->nwaiting > r->nwait_done)
		pthread_cond_broadcast(&r->cv_head);
	/* Woken at half the bound, not at each job: no ping-pong. */
	if (moved && r->nwait_done > 0 && r->ndone <= WSG_MAX_DONE / 2)
		pthread_cond_broadcast(&r->cv_done);
}

/*
 * Put a directory's jobs [first, last] (linked by snext, in name order)
 * on the stack where they belong in output order (mu is held): before
 * the first job on the stack that comes after the directory, found from
 * after (the job after it in the list) on.  On top, as a depth-first
 * stack would put them, they went above the entries of a directory
 * finished earlier and before them in the output: with two threads, one
 * then ran far ahead of the head, waited for it (WSG_MAX_DONE), and the
 * other searched alone (1.06x from one thread to two over 68k files).
 * The look is bounded: the jobs between are done or running ones, which
 * WSG_MAX_DONE bounds, but --files lists files as done at once; past
 * the bound, on top as before (the order is the list's in any case).
 */
static void
wsg_stack_insert(struct wsg_run *r, struct wsg_job *after,
		 struct wsg_job *first, struct wsg_job *last)
{
	struct wsg_job *q = after, *prev, *p;
	int n = 0;

	while (q != NULL && !q->queued && n++ < WSG_MAX_DONE + 64)
		q = q->next;
	if (q != NULL && !q->queued)
		q = r->stack; /* not found in bound: on top */
	prev = q != NULL ? q->sprev : r->sbottom;
	p = prev;
	for (struct wsg_job *k = first;; k = k->snext) {
		k->queued = true;
		k->sprev = p;
		p = k;
		if (k == last)
			break;
	}
	last->snext = q;
	if (q != NULL)
		q->sprev = last;
	else
		r->sbottom = last;
	if (prev != NULL)
		prev->snext = first;
	else
		r->stack = first;
}

/*
 * Job j is finished (mu is held): a directory's entries take its place
 * in the list and their work goes on the stack; if j is the head, it
 * and the finished jobs after it are delivered.
 */
static void
wsg_finish(struct wsg_run *r, struct wsg_job *j)
{
	struct wsg_job *after = j->next;

	if (j->kids != NULL) {
		j->kids_last->next = j->next;
		j->next = j->kids;
		j->kids = j->kids_last = NULL;
		r->ndone += j->nkids_done;
	}
	if (j->work != NULL) {
		wsg_stack_insert(r, after, j->work, j->work_last);
		j->work = j->work_last = NULL;
		if (r->nidle > 0)
			pthread_cond_broadcast(&r->cv_work);
	}
	j->done = true;
	r->ndone++;
	if (atomic_load(&r->head) == j)
		wsg_advance(r);
}

/* Store a copy of an item in a job that is not the head. */
static int
wsg_hold(struct wsg_run *r, struct wsg_job *j, const struct ws_grep_item *it)
{
	struct ws_grep_item c = *it;

	if (j->nitems == j->capitems) {
		/* One first: most jobs hold one item (a listed file, a count). */
		size_t nc = j->capitems ? j->capitems * 2 : 1;
		struct ws_grep_item *a = realloc(j->items, nc * sizeof(*a));

		if (a == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		j->items = a;
		j->capitems = nc;
	}
	if (j->alen + it->len > j->acap) {
		size_t nc = (j->alen + it->len) * 2 + 256;
		char *a = realloc(j->arena, nc);

		if (a == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		j->arena = a;
		j->acap = nc;
	}
	if (it->len > 0)
		memcpy(j->arena + j->alen, it->text, it->len);
	c.text = (const char *)(uintptr_t)j->alen; /* an offset until flushed */
	j->alen += it->len;
	j->items[j->nitems++] = c;
	atomic_fetch_add(&r->buffered, it->len + sizeof(c));
	return 0;
}

/*
 * Emit an item of job j from its worker.  Returns 0, 1 to stop this job
 * (the search is over), or a negative error.
 */
static int
wsg_emit(struct wsg_run *r, struct wsg_job *j, struct ws_grep_item *it)
{
	int rc;

	if (atomic_load(&r->stop))
		return 1;
	it->vpath = j->vpath;
	it->real = j->real;
	if (atomic_load(&r->head) != j) {
		bool head;

		if (atomic_load(&r->buffered) < WSG_BUFFERED)
			return wsg_hold(r, j, it);
		/*
		 * Too much held out of turn: wait to be the head, as long as
		 * another thread goes on working (it reaches the head: the
		 * stack's top is always the oldest job not started); the
		 * last one holds on instead, past the budget.
		 */
		pthread_mutex_lock(&r->mu);
		while (atomic_load(&r->head) != j && !atomic_load(&r->stop) &&
		       r->nwaiting + 1 < r->nworkers) {
			r->nwaiting++;
			pthread_cond_wait(&r->cv_head, &r->mu);
			r->nwaiting--;
		}
		head = atomic_load(&r->head) == j;
		pthread_mutex_unlock(&r->mu);
		if (atomic_load(&r->stop))
			return 1;
		if (!head)
			return wsg_hold(r, j, it);
	}
	/* The head: deliver what was held, then this, directly. */
	if (j->nitems > 0 && (rc = wsg_flush_job(r, j)) != 0) {
		wsg_delivered(r, rc);
		return rc < 0 ? rc : 1;
	}
	rc = wsg_deliver(r, it);
	if (rc != 0) {
		wsg_delivered(r, rc);
		return rc < 0 ? rc : 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Searching one file                                                  */

struct wsg_worker {
	struct wsg_run *r;
	pthread_t tid;
	char *buf;
	size_t cap;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	pcre2_jit_stack *js;
	/* Several literals: each one's next position in the subject. */
	size_t lpos[WSG_MAX_LITS];
	const char *lsubj;
	size_t llen, lbase;
	/* Walking: the last device found to hold data (wsg_open). */
	dev_t fs_ok_dev;
	bool fs_ok;
	char *dents;	    /* getdents64 buffer */
	struct wsg_ent *ents;
	size_t nents, capents;
	char *names;	    /* the entries' names */
	size_t nlen, ncap;
	char *pbuf[4];	    /* vpath, real, rel, ignrel of an entry */
	size_t pcap[4];
	bool own_thread;    /* not the caller's */
};

/* Per-file state; offsets are into w->buf. */
struct wsg_file {
	struct wsg_worker *w;
	struct wsg_job *j;
	char *buf;
	size_t end;	      /* end of the region being processed */
	size_t pos;	      /* next line to process */
	size_t lpos;	      /* line lineno starts at lpos */
	long long lineno;
	long long last_line;  /* last line emitted, 0: none */
	int after_left;
	long long nmatched;   /* matching lines (or matches with -o) */
	bool done;
	bool in_long, long_hit;
	bool need_lines;      /* line numbers are reported */
};

/* The number of the line starting at off (off >= f->lpos). */
static long long
wsg_line_of(struct wsg_file *f, size_t off)
{
	if (off > f->lpos) {
		f->lineno += ws_count_newlines(f->buf + f->lpos, off - f->lpos);
		f->lpos = off;
	}
	return f->lineno;
}

/* End of the line starting at or containing p: its '\n' or f->end. */
static size_t
wsg_eol(const struct wsg_file *f, size_t p)
{
	const char *q = memchr(f->buf + p, '\n', f->end - p);

	return q ? (size_t)(q - f->buf) : f->end;
}

/*
 * The first match in subj[start..len): 1 with *ms and *me set, 0 none, or -1
 * when a PCRE2 limit stopped it.
 */
static int
wsg_match(struct wsg_worker *w, const char *subj, size_t len, size_t start,
	  size_t *ms, size_t *me)
{
	const struct ws_grep *g = w->r->g;
	PCRE2_SIZE *ov;
	int rc;

	if (start > len)
		return 0;
	if (g->nlits > 1) {
		size_t best = SIZE_MAX, bi = 0;

		/* The cached positions hold for the same subject, onwards. */
		if (subj != w->lsubj || len != w->llen || start < w->lbase) {
			w->lsubj = subj;
			w->llen = len;
			for (size_t i = 0; i < g->nlits; i++)
				w->lpos[i] = SIZE_MAX - 1; /* not yet searched */
		}
		w->lbase = start;
		for (size_t i = 0; i < g->nlits; i++) {
			if (w->lpos[i] == SIZE_MAX - 1 ||
			    (w->lpos[i] != SIZE_MAX && w->lpos[i] < start)) {
				/*
				 * The first-and-last-byte pair (SIMD): each
				 * literal's scan is one of several over the
				 * same bytes, and a memchr on a byte that is
				 * rare in one literal stops often in another's
				 * text (the five of bench_wsgrep.sh: 20 %
				 * less CPU).
				 */
				const char *p = wsg_find(subj + start, len - start,
							 g->lits[i], g->litlens[i],
							 SIZE_MAX);

				w->lpos[i] = p ? (size_t)(p - subj) : SIZE_MAX;
			}
			/* Leftmost, then the first listed, as PCRE2 picks. */
			if (w->lpos[i] < best) {
				best = w->lpos[i];
				bi = i;
			}
		}
		if (best == SIZE_MAX)
			return 0;
		*ms = best;
		*me = best + g->litlens[bi];
		return 1;
	}
	if (g->lit != NULL) {
		const char *p = wsg_find(subj + start, len - start, g->lit,
					 g->litlen, g->litrare);

		if (p == NULL)
			return 0;
		*ms = (size_t)(p - subj);
		*me = *ms + g->litlen;
		return 1;
	}
	if (g->jit)
		rc = pcre2_jit_match(g->re, (PCRE2_SPTR)subj, len, start, 0,
				     w->md, w->mc);
	else
		rc = pcre2_match(g->re, (PCRE2_SPTR)subj, len, start, 0, w->md,
				 w->mc);
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc < 0)
		return -1;
	ov = pcre2_get_ovector_pointer(w->md);
	*ms = ov[0];
	*me = ov[1];
	return 1;
}

/*
 * The next line from pos (< end) holding a match: 1 with its bounds
 * [*ls, *le) (le at its '\n' or end) and the first match in it; 0 none;
 * -1 limit; -2 out of time or cancelled before one was found (the caller
 * checks which).  With -U the "line" spans every line the match touches.
 */
static int
wsg_next(struct wsg_file *f, size_t pos, size_t *ls, size_t *le, size_t *ms,
	 size_t *me)
{
	struct wsg_worker *w = f->w;
	const struct ws_rxdfa *dfa = w->r->g->dfa;

	/*
	 * The DFA finds the first line that matches, PCRE2 the match in it
	 * alone: what the slices below find, as a match never spans lines
	 * there either.  Its steps end at line ends (a scan starts as at a
	 * line's start), with the checks between them as between slices.
	 */
	while (dfa != NULL && pos < f->end) {
		size_t end = f->end, k;
		const char *q;
		int m;

		if (end - pos > WSG_DFA_STEP) {
			q = memchr(f->buf + pos + WSG_DFA_STEP, '\n',
				   end - pos - WSG_DFA_STEP);
			if (q != NULL)
				end = (size_t)(q - f->buf) + 1;
		}
		k = ws_rxdfa_scan(dfa, f->buf + pos, end - pos);
		if (k == end - pos) {
			if (end >= f->end)
				return 0;
			pos = end;
			if (ws_cancelled() || wsg_expired(w->r))
				return -2; /* wsg_region says which */
			continue;
		}
		k += pos;
		q = k > pos ? memrchr(f->buf + pos, '\n', k - pos) : NULL;
		*ls = q ? (size_t)(q - f->buf) + 1 : pos;
		*le = wsg_eol(f, k);
		m = wsg_match(w, f->buf, *le, *ls, ms, me);
		if (m != 0)
			return m;
		pos = *le + 1; /* never: the DFA and PCRE2 agree */
	}
	while (pos < f->end) {
		/*
		 * Line by line, a match never needs more than the lines it
		 * starts on: PCRE2 is given slices of about WSG_SLICE bytes
		 * of whole lines, so that a pattern that backtracks for
		 * seconds on every line still meets the time budget and a
		 * cancellation between two slices (PCRE2 restarts its match
		 * limit at each starting position, so one call over a whole
		 * buffer is unbounded).  -U matches cross lines: one slice.
		 */
		size_t end = f->end;

		if (!w->r->o->multiline && end - pos > WSG_SLICE) {
			const char *nl = memchr(f->buf + pos + WSG_SLICE, '\n',
						end - pos - WSG_SLICE);

			if (nl != NULL)
				end = (size_t)(nl - f->buf);
		}
		int m = wsg_match(w, f->buf, end, pos, ms, me);
		const char *q;

		if (m < 0)
			return m;
		if (m == 0 || *ms >= end) {
			if (end >= f->end)
				return 0;
			pos = end + 1;
			/*
			 * Between slices: a slice that backtracks may take
			 * long.  Without a budget (the command line's
			 * default) no clock is read; with one, the coarse
			 * clock, a few nanoseconds.
			 */
			if (ws_cancelled() || wsg_expired(w->r))
				return -2; /* wsg_region says which */
			continue;
		}
		q = *ms > pos ? memrchr(f->buf + pos, '\n', *ms - pos) : NULL;
		*ls = q ? (size_t)(q - f->buf) + 1 : pos;
		*le = wsg_eol(f, *ms);
		if (w->r->o->multiline) {
			size_t last = *me > *ms ? *me - 1 : *ms;

			if (last > *le)
				*le = wsg_eol(f, last);
			return 1;
		}
		if (*me <= *le)
			return 1;
		/* It crossed a line end: look again within that line only. */
		m = wsg_match(w, f->buf, *le, *ls, ms, me);
		if (m != 0)
			return m;
		pos = *le + 1;
	}
	return 0;
}

/* Fill in text for the line (or match) [s, e), cut at max_columns. */
static void
wsg_text(struct wsg_file *f, struct ws_grep_item *it, size_t s, size_t e,
	 bool cut)
{
	long long mc = f->w->r->o->max_columns;
	size_t n = e - s;

	it->text = f->buf + s;
	it->text_truncated = cut;
	if (mc > 0 && n > (size_t)mc) {
		const unsigned char *t = (const unsigned char *)it->text;

		n = (size_t)mc;
		/* Never split a UTF-8 sequence. */
		while (n > 0 && (t[n] & 0xc0) == 0x80)
			n--;
		it->text_truncated = true;
	}
	it->len = n;
}

static int
wsg_emit_line(struct wsg_file *f, enum ws_grep_kind kind, size_t ls,
	      size_t le, long long ln, long long col, bool after)
{
	struct ws_grep_item it = {0};
	int rc;

	if (kind != WS_GREP_MATCH || f->w->r->o->mode == WS_GREP_LINES) {
		/* Context lines and matching lines are what they are. */
	}
	it.kind = kind;
	it.line = ln;
	it.column = col;
	it.after = after;
	wsg_text(f, &it, ls, le, false);
	if (f->last_line > 0 && ln > f->last_line + 1 &&
	    (f->w->r->o->before > 0 || f->w->r->o->after > 0)) {
		struct ws_grep_item br = {.kind = WS_GREP_BREAK, .line = ln};

		if ((rc = wsg_emit(f->w->r, f->j, &br)) != 0)
			return rc;
	}
	rc = wsg_emit(f->w->r, f->j, &it);
	f->last_line = ln;
	return rc;
}

/* Before-context of the line at ls (number ln): lines not yet shown. */
static int
wsg_before(struct wsg_file *f, size_t ls, long long ln)
{
	int b = f->w->r->o->before, k = 0, rc;
	size_t starts[64];
	size_t p = ls;

	if (b <= 0)
		return 0;
	if (b > 64)
		b = 64; /* a deeper context is cut here: memory is bounded */
	while (k < b && p > 0 && ln - k - 1 > f->last_line) {
		const char *q = p >= 2 ? memrchr(f->buf, '\n', p - 1) : NULL;

		p = q ? (size_t)(q - f->buf) + 1 : 0;
		starts[k++] = p;
	}
	while (k-- > 0) {
		size_t s = starts[k];

		if ((rc = wsg_emit_line(f, WS_GREP_CONTEXT, s, wsg_eol(f, s),
					ln - k - 1, 0, false)) != 0)
			return rc;
	}
	return 0;
}

/* After-context from f->pos up to (not including) stop. */
static int
wsg_after(struct wsg_file *f, size_t stop)
{
	int rc;

	while (f->after_left > 0 && f->pos < stop && f->pos < f->end) {
		size_t le = wsg_eol(f, f->pos);

		if ((rc = wsg_emit_line(f, WS_GREP_CONTEXT, f->pos, le,
					wsg_line_of(f, f->pos), 0, true)) != 0)
			return rc;
		f->after_left--;
		f->pos = le < f->end ? le + 1 : f->end;
	}
	return 0;
}

/* A matching line [ls, le) with its first match [ms, me): report it. */
static int
wsg_hit(struct wsg_file *f, size_t ls, size_t le, size_t ms, size_t me)
{
	struct wsg_run *r = f->w->r;
	const struct ws_grep_opts *o = r->o;
	long long ln = 0;
	int rc;

	f->j->matched = true;
	switch (o->mode) {
	case WS_GREP_FILES_WITH: {
		struct ws_grep_item it = {.kind = WS_GREP_FILE};

		f->nmatched++;
		f->done = true;
		return wsg_emit(r, f->j, &it);
	}
	case WS_GREP_FILES_WITHOUT:
		f->nmatched++;
		f->done = true;
		return 0;
	case WS_GREP_COUNT:
		f->nmatched++;
		break;
	default:
		if (f->j->kind == WSG_JOB_SEARCH && o->binary &&
		    f->j->skip == -2) {
			struct ws_grep_item it = {.kind = WS_GREP_BINARY};

			f->nmatched++;
			f->done = true;
			f->j->skip = -1;
			return wsg_emit(r, f->j, &it);
		}
		ln = wsg_line_of(f, ls);
		if ((rc = wsg_before(f, ls, ln)) != 0)
			return rc;
		if (o->mode == WS_GREP_ONLY && !o->invert) {
			size_t s = ms, e = me;

			for (;;) {
				struct ws_grep_item it = {.kind = WS_GREP_MATCH};
				int m;

				it.line = ln;
				it.column = (long long)(s - ls) + 1;
				wsg_text(f, &it, s, e, false);
				if (e > s && (rc = wsg_emit(r, f->j, &it)) != 0)
					return rc;
				f->nmatched++;
				f->last_line = ln;
				m = wsg_match(f->w, f->buf, le, e > s ? e : e + 1,
					      &s, &e);
				if (m < 0)
					return -1;
				if (m == 0 || s >= le)
					break;
			}
		} else {
			f->nmatched++;
			if ((rc = wsg_emit_line(f, WS_GREP_MATCH, ls, le, ln,
						o->invert ? 0 :
						(long long)(ms - ls) + 1,
						false)) != 0)
				return rc;
		}
		f->after_left = o->after;
		break;
	}
	if (o->max_count > 0 && f->nmatched >= o->max_count)
		f->done = true;
	return 0;
}

/* Search the lines of [f->pos, f->end) (whole lines). */
static int
wsg_region(struct wsg_file *f)
{
	const struct ws_grep_opts *o = f->w->r->o;
	size_t ls = 0, le = 0, ms = 0, me = 0;
	int m, rc;

	while (f->pos < f->end && !f->done) {
		if (atomic_load(&f->w->r->stop))
			return 1;
		if (ws_cancelled()) {
			wsg_truncate(f->w->r, "cancelled", NULL);
			return 1;
		}
		if (wsg_expired(f->w->r)) {
			f->j->deadline_hit = true;
			return 1;
		}
		m = wsg_next(f, f->pos, &ls, &le, &ms, &me);
		if (m == -2)
			continue; /* out of time or cancelled: the checks above */
		if (m < 0)
			return -1;
		if (!o->invert) {
			if ((rc = wsg_after(f, m ? ls : f->end)) != 0)
				return rc;
			if (m == 0) {
				f->pos = f->end;
				break;
			}
			if ((rc = wsg_hit(f, ls, le, ms, me)) != 0)
				return rc;
			f->pos = le < f->end ? le + 1 : f->end;
			continue;
		}
		/* -v: the lines before the matching one are the results. */
		{
			size_t stop = m ? ls : f->end;

			while (f->pos < stop && !f->done) {
				size_t e = wsg_eol(f, f->pos);

				if ((rc = wsg_hit(f, f->pos, e, f->pos,
						  f->pos)) != 0)
					return rc;
				f->pos = e < f->end ? e + 1 : f->end;
			}
			if (m == 0 || f->done)
				break;
			if (f->after_left > 0 && o->mode == WS_GREP_LINES) {
				if ((rc = wsg_after(f, le + 1)) != 0)
					return rc;
			}
			f->pos = le < f->end ? le + 1 : f->end;
		}
	}
	return 0;
}

/*
 * A piece [s, e) of a line too long for the buffer: searched alone (a
 * match across two pieces is missed), reported once per line, cut.
 */
static int
wsg_long_piece(struct wsg_file *f, size_t s, size_t e, bool last)
{
	const struct ws_grep_opts *o = f->w->r->o;
	size_t ms, me;
	int m = 0, rc;

	if (!f->long_hit && !f->done) {
		m = wsg_match(f->w, f->buf, e, s, &ms, &me);
		if (m < 0)
			return -1;
	}
	if ((m == 1 && !o->invert) || (last && o->invert && !f->long_hit)) {
		size_t end = e;

		if (e - s > WSG_LONG_TEXT)
			end = s + WSG_LONG_TEXT;
		f->long_hit = true;
		f->end = e;
		if (o->mode == WS_GREP_LINES) {
			struct ws_grep_item it = {.kind = WS_GREP_MATCH};

			it.line = f->lineno;
			it.column = m == 1 ? 1 + (long long)(ms - s) : 0;
			wsg_text(f, &it, s, end, true);
			f->j->matched = true;
			f->nmatched++;
			f->last_line = f->lineno;
			if ((rc = wsg_emit(f->w->r, f->j, &it)) != 0)
				return rc;
			if (o->max_count > 0 && f->nmatched >= o->max_count)
				f->done = true;
		} else if (m == 1 || o->invert) {
			if ((rc = wsg_hit(f, s, e, m == 1 ? ms : s,
					  m == 1 ? me : s)) != 0)
				return rc;
		}
	}
	return 0;
}

/* Search the open file of job j with worker w. */
static int
wsg_search(struct wsg_worker *w, struct wsg_job *j)
{
	const struct ws_grep_opts *o = w->r->o;
	struct wsg_file f = {.w = w, .j = j, .lineno = 1};
	long long got = 0;
	size_t len = 0;
	bool eof = false, first = true;
	int rc = 0;

	f.need_lines = o->mode == WS_GREP_LINES || o->mode == WS_GREP_ONLY;
	for (;;) {
		size_t end;

		/*
		 * The first read is at most WSG_SNIFF_READ: a binary file is
		 * told by its first bytes, and most files are that small.
		 */
		size_t lim = first && w->cap > WSG_SNIFF_READ ? WSG_SNIFF_READ :
			     w->cap;

		while (!eof && len < lim) {
			ssize_t n = read(j->fd, w->buf + len, lim - len);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				j->skip = WS_GREP_SKIP_UNREADABLE;
				return 0;
			}
			if (n == 0)
				eof = true;
			len += (size_t)n;
			got += n;
			/*
			 * All that fstat counted is here: no read(2) just to
			 * see the end (one syscall a file).  What a writer
			 * appends meanwhile is not searched, as if it came
			 * a moment later.
			 */
			if (j->size > 0 && got >= j->size)
				eof = true;
		}
		f.buf = w->buf;
		w->lsubj = NULL; /* new bytes: the literal positions are stale */
		if (first) {
			first = false;
			if (memchr(w->buf, '\0', len < WSG_SNIFF ? len : WSG_SNIFF)) {
				if (!o->binary) {
					j->skip = WS_GREP_SKIP_BINARY;
					return 0;
				}
				j->skip = -2; /* binary, searched: see wsg_hit */
			}
		}
		if (f.in_long) {
			/* The rest of a long line, up to its end if here. */
			const char *q = memchr(w->buf + f.pos, '\n', len - f.pos);

			if (q == NULL && !eof) {
				rc = wsg_long_piece(&f, f.pos, len, false);
				len = f.pos;
				if (rc != 0)
					break;
				continue;
			}
			end = q ? (size_t)(q - w->buf) : len;
			rc = wsg_long_piece(&f, f.pos, end, true);
			if (rc != 0)
				break;
			f.in_long = false;
			f.long_hit = false;
			f.pos = f.lpos = q ? end + 1 : len;
			f.lineno++;
		}
		if (eof) {
			end = len;
		} else {
			const char *q = len > f.pos ?
				memrchr(w->buf + f.pos, '\n', len - f.pos) : NULL;

			if (q != NULL) {
				end = (size_t)(q - w->buf) + 1;
			} else if (len < w->cap) {
				continue; /* after the first read: read on */
			} else if (w->cap < WS_GREP_LINE_MAX) {
				size_t nc = w->cap * 2;
				char *nb = realloc(w->buf, nc);

				if (nb == NULL)
					return ws_error_set(WS_ENOMEM, NULL,
							    "out of memory");
				/* Defined past the data too (wsg_worker_init). */
				memset(nb + w->cap, 0, nc - w->cap);
				w->buf = nb;
				w->cap = nc;
				continue;
			} else {
				/* A line longer than the largest buffer. */
				(void)wsg_line_of(&f, f.pos);
				rc = wsg_long_piece(&f, f.pos, len, false);
				if (rc != 0)
					break;
				f.in_long = true;
				f.lpos = f.pos;
				len = f.pos;
				continue;
			}
		}
		f.end = end;
		rc = wsg_region(&f);
		if (rc != 0 || f.done || eof)
			break;
		/* Keep the lines -B may need, and the partial last line. */
		{
			size_t keep = end;
			int b = o->before > 64 ? 64 : o->before;

			for (int k = 0; k < b && keep > 0; k++) {
				const char *q = keep >= 2 ?
					memrchr(w->buf, '\n', keep - 1) : NULL;

				keep = q ? (size_t)(q - w->buf) + 1 : 0;
			}
			if (f.need_lines)
				(void)wsg_line_of(&f, f.pos);
			if (f.lpos < keep)
				(void)wsg_line_of(&f, keep);
			memmove(w->buf, w->buf + keep, len - keep);
			len -= keep;
			f.pos -= keep;
			f.lpos -= keep;
		}
	}
	if (rc < 0 && rc != -1)
		return rc;
	if (rc == -1 || f.j->deadline_hit) {
		j->limit_hit = rc == -1;
		j->nmatches = f.nmatched;
		return 0;
	}
	if (rc == 1 && atomic_load(&w->r->stop)) {
		/* The page filled in this file: it was searched (in part),
		 * and what it matched so far counts in the summary. */
		j->searched = true;
		j->nmatches = f.nmatched;
		return 0;
	}
	j->searched = true;
	j->nmatches = f.nmatched;
	if (j->skip == -2)
		j->skip = -1;
	if (o->mode == WS_GREP_COUNT && f.nmatched > 0) {
		struct ws_grep_item it = {.kind = WS_GREP_COUNT_OF,
					  .count = f.nmatched};

		wsg_emit(w->r, j, &it);
	}
	if (o->mode == WS_GREP_FILES_WITHOUT && f.nmatched == 0) {
		struct ws_grep_item it = {.kind = WS_GREP_FILE};

		wsg_emit(w->r, j, &it);
	}
	return 0;
}

/* A directory entry being read: its name in w->names. */
struct wsg_ent {
	size_t name;
	uint32_t len;
	unsigned char type;	/* a DT_* */
	int mount;		/* a mount shown here: its anchor */
};

static int
wsg_worker_init(struct wsg_worker *w, struct wsg_run *r)
{
	const struct ws_grep_opts *o = r->o;

	memset(w, 0, sizeof(*w));
	w->r = r;
	if (o->mode == WS_GREP_LIST)
		return 0;
	w->cap = WSG_CHUNK;
	/*
	 * Zeroed, and kept defined when it grows: PCRE2's JIT searches with
	 * 16-byte loads that may reach past the subject's end (within the
	 * buffer; what lies there never changes a result), and memcheck
	 * reports the branches on bytes never written as errors.  A fresh
	 * zeroed allocation this size costs nothing (untouched pages).
	 */
	w->buf = calloc(1, w->cap);
	w->md = pcre2_match_data_create(1, NULL);
	w->mc = pcre2_match_context_create(NULL);
	if (w->buf == NULL || w->md == NULL || w->mc == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	pcre2_set_match_limit(w->mc, o->match_limit ? (uint32_t)o->match_limit :
				     WS_GREP_MATCH_LIMIT);
	pcre2_set_depth_limit(w->mc, o->depth_limit ? (uint32_t)o->depth_limit :
				     WS_GREP_DEPTH_LIMIT);
	pcre2_set_heap_limit(w->mc, o->heap_limit_kib ?
				    (uint32_t)o->heap_limit_kib :
				    WS_GREP_HEAP_LIMIT_KIB);
	if (r->g->jit) {
		w->js = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
		if (w->js == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		pcre2_jit_stack_assign(w->mc, NULL, w->js);
	}
	return 0;
}

static void
wsg_worker_fini(struct wsg_worker *w)
{
	free(w->buf);
	pcre2_match_data_free(w->md);
	pcre2_match_context_free(w->mc);
	pcre2_jit_stack_free(w->js);
	free(w->dents);
	free(w->ents);
	free(w->names);
	for (int i = 0; i < 4; i++)
		free(w->pbuf[i]);
}

/* A stop for an error: the first error is the call's. */
static void
wsg_fail(struct wsg_run *r, int rc)
{
	pthread_mutex_lock(&r->mu);
	if (r->err == 0) {
		/* The message is this thread's: the caller's thread says it. */
		const char *p = ws_error_last_path();

		r->err = rc;
		r->errmsg = strdup(ws_error_last());
		r->errpath = p != NULL ? strdup(p) : NULL;
	}
	atomic_store(&r->stop, true);
	pthread_cond_broadcast(&r->cv_work);
	pthread_cond_broadcast(&r->cv_head);
	pthread_cond_broadcast(&r->cv_done);
	pthread_mutex_unlock(&r->mu);
}

/* ws_check for a search, which never prompts (see ws_grep_run). */
static int
wsg_check(struct wsg_run *r, enum ws_op op, const char *real,
	  const char *vpath)
{
	int rc;

	if (!r->plock)
		return ws_check(r->ws, op, real, vpath);
	pthread_mutex_lock(&r->pmu);
	rc = ws_check(r->ws, op, real, vpath);
	pthread_mutex_unlock(&r->pmu);
	return rc;
}

/*
 * Open the file of job j in its directory and check what it is:
 * O_NOFOLLOW, so that a name swapped for a symlink is not followed;
 * O_NONBLOCK, so that a name swapped for a FIFO cannot hang the open;
 * then one fstat: a regular file on a filesystem that holds data.
 * Returns false with j->skip set when it is not to be searched.
 */
static bool
wsg_open(struct wsg_worker *w, struct wsg_job *j)
{
	const struct ws_grep_opts *o = w->r->o;
	struct stat st;

	if (j->fd < 0) {
		j->fd = openat(j->dir->fd, j->name, O_RDONLY | O_NOFOLLOW |
			       O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		/* The directory is not needed any more. */
		wsg_dir_unref(j->dir);
		j->dir = NULL;
		if (j->fd < 0) {
			j->skip = WS_GREP_SKIP_UNREADABLE;
			return false;
		}
		if (fstat(j->fd, &st) < 0) {
			j->skip = WS_GREP_SKIP_UNREADABLE;
			return false;
		}
		if (!S_ISREG(st.st_mode)) {
			j->skip = WS_GREP_SKIP_SPECIAL;
			return false;
		}
		if (!w->fs_ok || st.st_dev != w->fs_ok_dev) {
			/* Files on procfs, sysfs and the like are interfaces,
			 * not data (issue 12): never read.  Checked once per
			 * device. */
			if (ws_fd_check_fs(j->fd) < 0) {
				j->skip = WS_GREP_SKIP_SPECIAL;
				return false;
			}
			w->fs_ok = true;
			w->fs_ok_dev = st.st_dev;
		}
		if (o->max_filesize > 0 && st.st_size > o->max_filesize) {
			j->skip = WS_GREP_SKIP_TOO_LARGE;
			return false;
		}
		j->size = (long long)st.st_size;
	} else if (o->max_filesize > 0 && j->size > o->max_filesize) {
		j->skip = WS_GREP_SKIP_TOO_LARGE;
		return false;
	}
	return true;
}

static void
wsg_run_search(struct wsg_worker *w, struct wsg_job *j)
{
	struct wsg_run *r = w->r;
	int rc;

	if (!wsg_open(w, j))
		return;
	if (ws_cancelled()) {
		wsg_truncate(r, "cancelled", NULL);
		return;
	}
	if (wsg_expired(r)) {
		wsg_truncate(r, "time_budget", NULL);
		return;
	}
	rc = wsg_search(w, j);
	if (rc < 0)
		wsg_fail(r, rc);
	if (j->limit_hit)
		wsg_truncate(r, "match_limit", j->vpath);
	if (j->deadline_hit)
		wsg_truncate(r, "time_budget", j->vpath);
}

/* The path of vpath relative to the PATH being walked ("" for itself). */
static const char *
wsg_rel(const struct wsg_root *rt, const char *vpath)
{
	if (strcmp(rt->vpath, "/") == 0)
		return vpath + 1;
	if (strlen(vpath) <= rt->len)
		return "";
	return vpath + rt->len + 1;
}

/*
 * The path .gitignore rules see: relative to the workspace root when the
 * searched PATH lies in it (so that /src is searched under the same rules
 * as / finds there, the root's and src's .gitignore included), else to
 * the PATH itself.
 */
static const char *
wsg_ign_rel(const struct wsg_root *rt, const char *vpath, const char *real)
{
	const char *rest;

	if (rt->ign_base != NULL && ws_path_within(rt->ign_base, real, &rest))
		return rest;
	return wsg_rel(rt, vpath);
}

/*
 * Before walking a directory PATH inside the workspace root: read
 * .git/info/exclude at the root and the .gitignore of every directory
 * from the root down to PATH's parent (PATH's own is read on entering
 * it), each opened with O_NOFOLLOW from the one above.  Best effort: a
 * directory that cannot be opened ends the chain.  Elsewhere, the
 * PATH's own .git/info/exclude.
 */
static int
wsg_ign_ancestors(struct wsg_run *r, struct wsg_root *rt,
		  const struct ws_res *res, int fd)
{
	const char *rest;
	int cur, rc;

	rt->ign_base = NULL;
	if (res->anchor == WS_ANCHOR_HOST ||
	    !ws_path_within(ws_ctx_anchor_real(r->ws, 0), res->real, &rest) ||
	    ws_ctx_anchor_of_real(r->ws, res->real, NULL) != 0)
		return ws_ignore_load_exclude(rt->ig, fd);
	rt->ign_base = ws_ctx_anchor_real(r->ws, 0);
	cur = openat(ws_ctx_anchor_fd(r->ws, 0), ".",
		     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return ws_ignore_load_exclude(rt->ig, fd);
	/* One implementation with wsls: ws/ignore.h. */
	rc = ws_ignore_push_ancestors(rt->ig, cur, rest);
	close(cur);
	return rc;
}

static bool
wsg_type_match(const struct ws_grep_type *t, const char *name)
{
	const char *g = t->globs;

	while (*g) {
		char one[64];
		size_t n = strcspn(g, " ");

		if (n < sizeof(one)) {
			memcpy(one, g, n);
			one[n] = '\0';
			if (ws_wildmatch(one, name, false))
				return true;
		}
		g += n;
		while (*g == ' ')
			g++;
	}
	return false;
}

/* Whether the user's filters (globs, types) let the file rel through. */
static bool
wsg_wanted(struct wsg_run *r, const char *rel)
{
	const struct ws_grep_opts *o = r->o;
	const char *base = strrchr(rel, '/');
	bool ok;

	base = base ? base + 1 : rel;
	for (size_t i = 0; i < o->nexclude; i++)
		if (ws_ignore_glob(o->exclude[i], rel, false))
			return false;
	if (o->ninclude > 0) {
		ok = false;
		for (size_t i = 0; i < o->ninclude && !ok; i++)
			ok = ws_ignore_glob(o->include[i], rel, false);
		if (!ok)
			return false;
	}
	if (o->ntypes > 0) {
		ok = false;
		for (size_t i = 0; i < o->ntypes && !ok; i++)
			ok = wsg_type_match(r->g->types[i], base);
		if (!ok)
			return false;
	}
	for (size_t i = 0; i < o->ntypes_not; i++)
		if (wsg_type_match(r->g->types_not[i], base))
			return false;
	return true;
}

/* A job with its own copies of vpath and real (one allocation). */
static struct wsg_job *
wsg_job_new(int kind, const char *vpath, const char *real)
{
	size_t vl = strlen(vpath) + 1, rl = strlen(real) + 1;
	struct wsg_job *j = calloc(1, sizeof(*j) + vl + rl);

	if (j == NULL)
		return NULL;
	j->kind = kind;
	j->fd = -1;
	j->skip = -1;
	j->vpath = (char *)(j + 1);
	j->real = j->vpath + vl;
	memcpy(j->vpath, vpath, vl);
	memcpy(j->real, real, rl);
	return j;
}

/* Add job k to the entries of directory job j (and to its work). */
static void
wsg_kid(struct wsg_job *j, struct wsg_job *k, bool work)
{
	if (j->kids_last != NULL)
		j->kids_last->next = k;
	else
		j->kids = k;
	j->kids_last = k;
	if (!work) {
		k->done = true;
		j->nkids_done++;
		return;
	}
	if (j->work_last != NULL)
		j->work_last->snext = k;
	else
		j->work = k;
	j->work_last = k;
}

/*
 * A file to list (--files): the item is held in its job, which is done
 * at once.
 */
static int
wsg_list_item(struct wsg_run *r, struct wsg_job *k, const struct stat *st)
{
	struct ws_grep_item it = {.kind = WS_GREP_FILE};

	if (st != NULL) {
		k->size = (long long)st->st_size;
		k->mtime = (long long)st->st_mtim.tv_sec;
	}
	it.size = k->size;
	it.mtime = k->mtime;
	it.vpath = k->vpath;
	it.real = k->real;
	/* A listed file is one the search would read: the summary's
	 * files_searched counts it (it said 0 with files listed). */
	k->searched = true;
	return wsg_hold(r, k, &it);
}

/*
 * A symlink in the tree: its target, if a regular file inside, is
 * searched under the link's path; a directory is not entered.  *out is
 * the job, or NULL when it is skipped (counted in skipped).
 */
static int
wsg_symlink(struct wsg_run *r, const char *vpath, long long *skipped,
	    struct wsg_job **out)
{
	struct ws_res res = {.fd = -1, .dirfd = -1};
	struct wsg_job *k;
	int rc, fd = -1;

	*out = NULL;
	pthread_mutex_lock(&r->pmu);
	rc = ws_resolve(r->ws, vpath, 0, &res);
	pthread_mutex_unlock(&r->pmu);
	if (rc < 0) {
		skipped[rc == WS_ESYMLINK_LOOP ? WS_GREP_SKIP_LOOP :
			rc == WS_ESYMLINK_OUTSIDE_WORKSPACE ||
			rc == WS_EPATH_OUTSIDE_WORKSPACE ?
			WS_GREP_SKIP_SYMLINK_OUTSIDE :
			WS_GREP_SKIP_UNREADABLE]++;
		ws_res_free(&res);
		return 0;
	}
	if (S_ISDIR(res.st.st_mode)) {
		ws_res_free(&res);
		return 0;
	}
	if (!S_ISREG(res.st.st_mode)) {
		skipped[WS_GREP_SKIP_SPECIAL]++;
		ws_res_free(&res);
		return 0;
	}
	if (r->o->max_filesize > 0 && res.st.st_size > r->o->max_filesize) {
		skipped[WS_GREP_SKIP_TOO_LARGE]++;
		ws_res_free(&res);
		return 0;
	}
	if (wsg_check(r, WS_OP_READ, res.real, vpath) < 0) {
		skipped[WS_GREP_SKIP_POLICY]++;
		ws_res_free(&res);
		return 0;
	}
	if (r->o->mode != WS_GREP_LIST && ws_res_open(&res, O_RDONLY, &fd) < 0) {
		skipped[WS_GREP_SKIP_UNREADABLE]++;
		ws_res_free(&res);
		return 0;
	}
	k = wsg_job_new(r->o->mode == WS_GREP_LIST ? WSG_JOB_ITEM :
			WSG_JOB_SEARCH, vpath, res.real);
	if (k == NULL) {
		if (fd >= 0)
			close(fd);
		ws_res_free(&res);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	k->fd = fd;
	k->size = (long long)res.st.st_size;
	k->mtime = (long long)res.st.st_mtim.tv_sec;
	rc = k->kind == WSG_JOB_ITEM ? wsg_list_item(r, k, NULL) : 0;
	ws_res_free(&res);
	if (rc < 0) {
		wsg_job_free(k);
		return rc;
	}
	*out = k;
	return 0;
}

/* Make w->pbuf[i] hold prefix + "/" + name (no doubled slash). */
static int
wsg_path_of(struct wsg_worker *w, int i, const char *prefix, const char *name,
	    size_t namelen)
{
	size_t pl = strlen(prefix);
	bool slash = name != NULL && pl > 0 && prefix[pl - 1] != '/';
	size_t need = pl + 1 + namelen + 1;

	if (need > w->pcap[i]) {
		size_t c = need * 2;
		char *b = realloc(w->pbuf[i], c);

		if (b == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		w->pbuf[i] = b;
		w->pcap[i] = c;
	}
	memcpy(w->pbuf[i], prefix, pl);
	if (slash)
		w->pbuf[i][pl++] = '/';
	if (name != NULL)
		memcpy(w->pbuf[i] + pl, name, namelen + 1);
	else
		w->pbuf[i][pl] = '\0';
	return 0;
}

static int
wsg_ent_add(struct wsg_worker *w, const char *name, size_t len,
	    unsigned char type, int mount)
{
	if (w->nents == w->capents) {
		size_t c = w->capents ? w->capents * 2 : 256;
		struct wsg_ent *e = realloc(w->ents, c * sizeof(*e));

		if (e == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		w->ents = e;
		w->capents = c;
	}
	if (w->nlen + len + 1 > w->ncap) {
		size_t c = (w->nlen + len + 1) * 2 + 4096;
		char *n = realloc(w->names, c);

		if (n == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		w->names = n;
		w->ncap = c;
	}
	memcpy(w->names + w->nlen, name, len + 1);
	w->ents[w->nents].name = w->nlen;
	w->ents[w->nents].len = (uint32_t)len;
	w->ents[w->nents].type = type;
	w->ents[w->nents].mount = mount;
	w->nents++;
	w->nlen += len + 1;
	return 0;
}

static int
wsg_ent_cmp(const void *a, const void *b, void *arg)
{
	const char *names = arg;

	return strcmp(names + ((const struct wsg_ent *)a)->name,
		      names + ((const struct wsg_ent *)b)->name);
}

/* Whether mount anchor i is shown directly in the directory vpath. */
static bool
wsg_mount_in(struct ws_ctx *ws, size_t i, const char *vpath)
{
	const char *vp = ws->anchors[i].vprefix;
	const char *slash = strrchr(vp, '/');
	size_t plen = slash == vp ? 1 : (size_t)(slash - vp);

	return strlen(vpath) == plen && strncmp(vpath, vp, plen) == 0;
}

/*
 * Open the directory of job j (policy, O_NOFOLLOW, the loop check) and
 * make its struct wsg_dir; *out NULL when it is skipped (counted).
 */
static int
wsg_enter(struct wsg_worker *w, struct wsg_job *j, long long *skipped,
	  struct wsg_dir **out)
{
	struct wsg_run *r = w->r;
	struct wsg_dir *p = j->dir, *d;
	struct stat st;
	int fd = j->fd, rc;

	*out = NULL;
	j->fd = -1;
	if (fd < 0) {
		int at = j->mount > 0 ? r->ws->anchors[j->mount].fd : p->fd;

		if (wsg_check(r, WS_OP_LIST, j->real, j->vpath) < 0) {
			skipped[WS_GREP_SKIP_POLICY]++;
			return 0;
		}
		/*
		 * O_NOFOLLOW: a name swapped for a symlink fails here (ELOOP
		 * or ENOTDIR) instead of being followed.  O_NONBLOCK: a name
		 * swapped for a FIFO cannot hang the open.
		 */
		fd = openat(at, j->mount > 0 ? "." : j->name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK |
			    O_CLOEXEC);
		if (fd < 0) {
			if (errno != ENOENT)
				skipped[WS_GREP_SKIP_UNREADABLE]++;
			return 0;
		}
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		skipped[WS_GREP_SKIP_UNREADABLE]++;
		return 0;
	}
	for (const struct wsg_dir *a = p; a != NULL; a = a->parent) {
		if (a->dev == st.st_dev && a->ino == st.st_ino) {
			/* A bind mount of its own ancestor. */
			close(fd);
			skipped[WS_GREP_SKIP_LOOP]++;
			return 0;
		}
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		close(fd);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	atomic_init(&d->ref, 1);
	d->fd = fd;
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	d->root = j->root;
	d->depth = p != NULL ? p->depth + 1 : 0;
	d->vpath = strdup(j->vpath);
	d->real = strdup(j->real);
	d->rel = strdup(wsg_rel(j->root, j->vpath));
	d->ignrel = strdup(wsg_ign_rel(j->root, j->vpath, j->real));
	if (p != NULL) {
		atomic_fetch_add(&p->ref, 1);
		d->parent = p;
	}
	if (d->vpath == NULL || d->real == NULL || d->rel == NULL ||
	    d->ignrel == NULL) {
		wsg_dir_unref(d);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	if (!r->o->no_ignore &&
	    (rc = ws_ignore_dir_new(p != NULL ? p->ign : NULL, fd, d->ignrel,
				    &d->ign)) < 0) {
		wsg_dir_unref(d);
		return rc;
	}
	*out = d;
	return 0;
}

/* Read directory d's entries into w->ents, sorted by name. */
static int
wsg_read_dir(struct wsg_worker *w, struct wsg_dir *d, long long *skipped)
{
	struct wsg_run *r = w->r;
	struct ws_ctx *ws = r->ws;
	size_t nmounts = 0;
	int rc;

	w->nents = 0;
	w->nlen = 0;
	if (w->dents == NULL && (w->dents = malloc(WS__DENTS_BUF)) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	/* The mounts shown here come first; their names shadow entries. */
	for (size_t i = 1; !d->root->no_mounts && i < ws->nanchors; i++) {
		const char *name;

		if (!wsg_mount_in(ws, i, d->vpath))
			continue;
		name = strrchr(ws->anchors[i].vprefix, '/') + 1;
		if (name[0] == '.' && !r->o->hidden)
			continue;
		if ((rc = wsg_ent_add(w, name, strlen(name), DT_DIR, (int)i)) < 0)
			return rc;
		nmounts++;
	}
	for (;;) {
		ssize_t n = getdents64(d->fd, w->dents, WS__DENTS_BUF);

		if (n == 0)
			break;
		if (n < 0) {
			/* The entries read so far stand. */
			skipped[WS_GREP_SKIP_UNREADABLE]++;
			break;
		}
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(w->dents + off);
			const char *name = de->d_name;
			bool shadowed = false;

			off += de->d_reclen;
			if (name[0] == '.' && (!r->o->hidden || name[1] == '\0' ||
					       (name[1] == '.' && name[2] == '\0')))
				continue;
			for (size_t i = 0; i < nmounts && !shadowed; i++)
				shadowed = strcmp(w->names + w->ents[i].name,
						  name) == 0;
			if (shadowed)
				continue;
			if ((rc = wsg_ent_add(w, name, strlen(name), de->d_type,
					      0)) < 0)
				return rc;
		}
	}
	if (w->nents > 1)
		qsort_r(w->ents, w->nents, sizeof(*w->ents), wsg_ent_cmp,
			w->names);
	return 0;
}

/*
 * Read the directory of job j and make its entries' jobs, in name order:
 * .gitignore and the user's filters decide here, and the policy (so that
 * a file it refuses is never opened), without a stat for what d_type
 * tells.  The files are opened by whichever thread searches them.
 */
static int
wsg_run_dir(struct wsg_worker *w, struct wsg_job *j, long long *skipped)
{
	struct wsg_run *r = w->r;
	const struct ws_grep_opts *o = r->o;
	struct wsg_dir *d = NULL;
	bool list = o->mode == WS_GREP_LIST;
	bool need_stat = list && (!o->no_stat || o->max_filesize > 0);
	int rc;

	if ((rc = wsg_enter(w, j, skipped, &d)) < 0 || d == NULL)
		return rc;
	if ((rc = wsg_read_dir(w, d, skipped)) < 0)
		goto out;
	for (size_t i = 0; i < w->nents; i++) {
		const struct wsg_ent *e = &w->ents[i];
		const char *name = w->names + e->name;
		unsigned char type = e->type;
		struct wsg_job *k = NULL;
		struct stat st;
		bool have_st = false;

		if (atomic_load(&r->stop))
			break;
		if (e->mount > 0) {
			const struct ws_anchor *a = &r->ws->anchors[e->mount];

			if ((rc = wsg_path_of(w, 0, a->vprefix, NULL, 0)) < 0 ||
			    (rc = wsg_path_of(w, 1, a->real, NULL, 0)) < 0)
				goto out;
		} else if ((rc = wsg_path_of(w, 0, d->vpath, name, e->len)) < 0 ||
			   (rc = wsg_path_of(w, 1, d->real, name, e->len)) < 0) {
			goto out;
		}
		if (type == DT_UNKNOWN || (need_stat && type == DT_REG)) {
			if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
				if (errno != ENOENT)
					skipped[WS_GREP_SKIP_UNREADABLE]++;
				continue;
			}
			type = IFTODT(st.st_mode);
			have_st = true;
		}
		if (e->mount > 0) {
			const char *vp = w->pbuf[0], *rp = w->pbuf[1];

			if ((rc = wsg_path_of(w, 2, wsg_rel(d->root, vp), NULL,
					      0)) < 0 ||
			    (rc = wsg_path_of(w, 3, wsg_ign_rel(d->root, vp, rp),
					      NULL, 0)) < 0)
				goto out;
		} else if ((rc = wsg_path_of(w, 2, d->rel, name, e->len)) < 0 ||
			   (rc = wsg_path_of(w, 3, d->ignrel, name, e->len)) < 0) {
			goto out;
		}
		if (!o->no_ignore &&
		    ws_ignore_dir_match(d->root->ig, d->ign, w->pbuf[3],
					type == DT_DIR)) {
			skipped[WS_GREP_SKIP_IGNORED]++;
			continue;
		}
		if (type == DT_DIR) {
			bool out_ = false;

			for (size_t x = 0; x < o->nexclude && !out_; x++)
				out_ = ws_ignore_glob(o->exclude[x], w->pbuf[2], true);
			if (out_ || (o->max_depth > 0 && d->depth + 1 >= o->max_depth))
				continue;
			k = wsg_job_new(WSG_JOB_DIR, w->pbuf[0], w->pbuf[1]);
			if (k == NULL)
				goto nomem;
			k->mount = e->mount;
			k->root = d->root;
			if (e->mount == 0) {
				atomic_fetch_add(&d->ref, 1);
				k->dir = d;
				k->name = k->vpath + strlen(k->vpath) - e->len;
			}
			wsg_kid(j, k, true);
			continue;
		}
		if (!wsg_wanted(r, w->pbuf[2]))
			continue;
		if (type == DT_LNK) {
			if ((rc = wsg_symlink(r, w->pbuf[0], skipped, &k)) < 0)
				goto out;
			if (k != NULL)
				wsg_kid(j, k, k->kind == WSG_JOB_SEARCH);
			continue;
		}
		if (type != DT_REG) {
			/* FIFOs, sockets, devices: never opened. */
			skipped[WS_GREP_SKIP_SPECIAL]++;
			continue;
		}
		if (have_st && o->max_filesize > 0 && st.st_size > o->max_filesize) {
			skipped[WS_GREP_SKIP_TOO_LARGE]++;
			continue;
		}
		/* A search never prompts: "approve" skips like "deny". */
		if (wsg_check(r, WS_OP_READ, w->pbuf[1], w->pbuf[0]) < 0) {
			skipped[WS_GREP_SKIP_POLICY]++;
			continue;
		}
		k = wsg_job_new(list ? WSG_JOB_ITEM : WSG_JOB_SEARCH, w->pbuf[0],
				w->pbuf[1]);
		if (k == NULL)
			goto nomem;
		if (list) {
			if ((rc = wsg_list_item(r, k, have_st ? &st : NULL)) < 0) {
				wsg_job_free(k);
				goto out;
			}
			wsg_kid(j, k, false);
			continue;
		}
		atomic_fetch_add(&d->ref, 1);
		k->dir = d;
		k->name = k->vpath + strlen(k->vpath) - e->len;
		wsg_kid(j, k, true);
	}
	rc = 0;
	goto out;
nomem:
	rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
out:
	if (rc < 0) {
		/* Nothing of this directory goes out. */
		while (j->kids != NULL) {
			struct wsg_job *k = j->kids;

			j->kids = k->next;
			wsg_job_free(k);
		}
		j->kids_last = j->work = j->work_last = NULL;
		j->nkids_done = 0;
	}
	wsg_dir_unref(d);
	return rc;
}

static void
wsg_run_job(struct wsg_worker *w, struct wsg_job *j, long long *skipped)
{
	struct wsg_run *r = w->r;

	if (atomic_load(&r->stop)) {
		/* Nothing more is delivered. */
	} else if (j->kind == WSG_JOB_DIR) {
		int rc;

		if (ws_cancelled()) {
			wsg_truncate(r, "cancelled", NULL);
		} else if (wsg_expired(r)) {
			wsg_truncate(r, "time_budget", NULL);
		} else if ((rc = wsg_run_dir(w, j, skipped)) < 0) {
			wsg_fail(r, rc);
		}
	} else if (j->kind == WSG_JOB_SEARCH) {
		wsg_run_search(w, j);
	}
	if (j->fd >= 0) {
		close(j->fd);
		j->fd = -1;
	}
	wsg_dir_unref(j->dir);
	j->dir = NULL;
}

/*
 * A worker: take the job on top of the stack, run it, hand it back and
 * take the next under one lock, until no job is left or running.
 */
static void *
wsg_worker_main(void *arg)
{
	struct wsg_worker *w = arg;
	struct wsg_run *r = w->r;
	struct wsg_job *j = NULL;
	long long skipped[WS_GREP_SKIP_COUNT] = {0};

	pthread_mutex_lock(&r->mu);
	for (;;) {
		if (j != NULL) {
			wsg_finish(r, j);
			r->active--;
			j = NULL;
		}
		/*
		 * Far ahead of the output (the head is a large file, say):
		 * wait for it to move before taking more, as long as another
		 * thread goes on, so that the jobs done out of turn, each
		 * a few hundred bytes, stay bounded whatever the tree.
		 */
		if (r->ndone > WSG_MAX_DONE) {
			while (r->ndone > WSG_MAX_DONE / 2 && r->stack != NULL &&
			       !atomic_load(&r->stop) &&
			       r->nwaiting + 1 < r->nworkers) {
				r->nwaiting++;
				r->nwait_done++;
				pthread_cond_wait(&r->cv_done, &r->mu);
				r->nwait_done--;
				r->nwaiting--;
			}
		}
		while (r->stack == NULL && r->active > 0 &&
		       !atomic_load(&r->stop)) {
			r->nidle++;
			pthread_cond_wait(&r->cv_work, &r->mu);
			r->nidle--;
		}
		if (r->stack == NULL || atomic_load(&r->stop)) {
			if (r->nidle > 0)
				pthread_cond_broadcast(&r->cv_work);
			break;
		}
		j = r->stack;
		r->stack = j->snext;
		if (r->stack != NULL)
			r->stack->sprev = NULL;
		else
			r->sbottom = NULL;
		j->queued = false;
		j->snext = NULL;
		r->active++;
		pthread_mutex_unlock(&r->mu);
		wsg_run_job(w, j, skipped);
		pthread_mutex_lock(&r->mu);
	}
	for (int k = 0; k < WS_GREP_SKIP_COUNT; k++)
		r->sum->skipped[k] += skipped[k];
	pthread_mutex_unlock(&r->mu);
	/* A thread of its own: what its checks left in its error state goes
	 * with it (the state is per thread). */
	if (w->own_thread)
		ws_error_clear();
	return NULL;
}

/* A search thread: in the call of the search, then a worker. */
static void *
wsg_worker_thread(void *arg)
{
	struct wsg_worker *w = arg;
	void *rv;

	ws_call_enter(w->r->call);
	rv = wsg_worker_main(arg);
	ws_call_leave();
	/* A policy's globs matched here left this thread a match block. */
	ws_glob_thread_end();
	return rv;
}

static void
wsg_operr_free(struct ws_grep_operr *e)
{
	free(e->path);
	free(e->message);
	free(e->hint);
	free(e->policy);
	free(e->rule);
	free(e->operation);
	memset(e, 0, sizeof(*e));
}

/* A copy of s, or NULL for NULL; *oom is set when the copy fails. */
static char *
wsg_dup(const char *s, bool *oom)
{
	char *d;

	if (s == NULL)
		return NULL;
	d = strdup(s);
	if (d == NULL)
		*oom = true;
	return d;
}

/*
 * PATH operand e could not be searched: keep the last error (code rc) as
 * its own, so that the other operands go on.  Only running out of memory
 * is not the operand's own failure: it stops the call.
 */
static int
wsg_operand_failed(struct ws_grep_operr *e, int rc, const char *given)
{
	const char *p = ws_error_last_path();
	bool oom = false;

	if (rc == WS_ENOMEM)
		return rc;
	wsg_operr_free(e);
	e->code = rc;
	e->path = wsg_dup(p != NULL ? p : given, &oom);
	e->message = wsg_dup(ws_error_last(), &oom);
	e->hint = wsg_dup(ws_error_last_hint(), &oom);
	e->policy = wsg_dup(ws_error_last_policy(), &oom);
	e->rule = wsg_dup(ws_error_last_rule(), &oom);
	e->operation = wsg_dup(ws_error_last_operation(), &oom);
	if (oom || e->path == NULL || e->message == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

/* Make operand e's error the last error again; returns its code. */
static int
wsg_operand_error_again(const struct ws_grep_operr *e)
{
	ws_error_set(e->code, e->path, "%s", e->message);
	if (e->hint != NULL)
		ws_error_set_hint("%s", e->hint);
	if (e->policy != NULL || e->rule != NULL || e->operation != NULL)
		ws_error_set_policy(e->policy, e->rule, e->operation);
	return e->code;
}

/*
 * The job of one resolved PATH, appended to the list (*tail) and the
 * stack (*stail).  A PATH that cannot be opened is recorded in *oe (the
 * other PATHs go on); other errors stop the search.
 */
static int
wsg_operand(struct wsg_run *r, struct ws_res *res, struct ws_grep_operr *oe,
	    struct wsg_root *rt, struct wsg_job ***tail, struct wsg_job ***stail)
{
	const struct ws_grep_opts *o = r->o;
	bool list = o->mode == WS_GREP_LIST;
	struct wsg_job *j;
	int fd = -1, rc;

	if (!S_ISDIR(res->st.st_mode)) {
		/* A file named on the command line is searched whatever its
		 * name (hidden, ignored), as with grep and rg. */
		if (!S_ISREG(res->st.st_mode)) {
			r->sum->skipped[WS_GREP_SKIP_SPECIAL]++;
			return 0;
		}
		if (o->max_filesize > 0 && res->st.st_size > o->max_filesize) {
			r->sum->skipped[WS_GREP_SKIP_TOO_LARGE]++;
			return 0;
		}
		if (!list && (rc = ws_res_open(res, O_RDONLY, &fd)) < 0) {
			/* Say which operand it was (a procfs file, say). */
			ws_error_set_path(res->vpath);
			return wsg_operand_failed(oe, rc, res->vpath);
		}
		j = wsg_job_new(list ? WSG_JOB_ITEM : WSG_JOB_SEARCH, res->vpath,
				res->real);
		if (j == NULL) {
			if (fd >= 0)
				close(fd);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		j->fd = fd;
		j->size = (long long)res->st.st_size;
		j->mtime = (long long)res->st.st_mtim.tv_sec;
		if (list) {
			j->done = true;
			if ((rc = wsg_list_item(r, j, NULL)) < 0) {
				wsg_job_free(j);
				return rc;
			}
		}
	} else {
		if ((rc = ws_res_open(res, O_RDONLY | O_DIRECTORY, &fd)) < 0) {
			ws_error_set_path(res->vpath);
			return wsg_operand_failed(oe, rc, res->vpath);
		}
		rt->vpath = res->vpath;
		rt->len = strlen(res->vpath);
		rt->no_mounts = res->anchor == WS_ANCHOR_HOST;
		if (!o->no_ignore &&
		    ((rc = ws_ignore_new(&rt->ig)) < 0 ||
		     (rc = wsg_ign_ancestors(r, rt, res, fd)) < 0)) {
			close(fd);
			return rc;
		}
		j = wsg_job_new(WSG_JOB_DIR, res->vpath, res->real);
		if (j == NULL) {
			close(fd);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		j->fd = fd;
		j->root = rt;
	}
	**tail = j;
	*tail = &j->next;
	if (j->done)
		r->ndone++;
	if (!j->done) {
		**stail = j;
		*stail = &j->snext;
	}
	return 0;
}

void
ws_grep_summary_free(struct ws_grep_summary *sum)
{
	free(sum->gave_up);
	sum->gave_up = NULL;
	for (size_t i = 0; i < sum->noperand_errors; i++)
		wsg_operr_free(&sum->operand_errors[i]);
	free(sum->operand_errors);
	sum->operand_errors = NULL;
	sum->noperand_errors = 0;
}

/* The CPUs this process may run on (sched_getaffinity), at least 1. */
static int
wsg_ncpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 &&
	    (n = CPU_COUNT(&set)) > 0)
		return n;
	n = (int)sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

int
ws_grep_run(struct ws_grep *g, struct ws_ctx *ws, const char *const *paths,
	    size_t npaths, ws_grep_cb cb, void *arg,
	    struct ws_grep_summary *sum)
{
	static const char *const root[] = {"/"};
	struct wsg_run r;
	struct wsg_worker *workers = NULL;
	struct wsg_root *roots = NULL;
	struct wsg_job *first = NULL, **tail = &first, **stail = &r.stack;
	struct ws_res *res = NULL;
	struct ws_grep_operr *oe = NULL; /* per operand; code 0: searchable */
	struct timespec t0, t1;
	size_t nfailed = 0;
	bool all_failed = false, keep;
	int rc = 0, nw = 0;

	memset(sum, 0, sizeof(*sum));
	sum->next_offset = -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (npaths == 0) {
		paths = root;
		npaths = 1;
	}
	/*
	 * Every PATH is resolved and allowed before anything is searched.
	 * One that is refused is never searched (its descriptors are closed
	 * here); its error is kept and the others go on, as with grep.
	 */
	res = calloc(npaths, sizeof(*res));
	oe = calloc(npaths, sizeof(*oe));
	roots = calloc(npaths, sizeof(*roots));
	if (res == NULL || oe == NULL || roots == NULL) {
		free(res);
		free(oe);
		free(roots);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	for (size_t i = 0; i < npaths; i++)
		res[i].fd = res[i].dirfd = -1;
	for (size_t i = 0; i < npaths; i++) {
		rc = ws_resolve(ws, paths[i], 0, &res[i]);
		if (rc == 0)
			rc = ws_check(ws, S_ISDIR(res[i].st.st_mode) ? WS_OP_LIST :
				      WS_OP_READ, res[i].real, res[i].vpath);
		if (rc < 0) {
			/*
			 * Kept with ws_resolve()'s hint (or a name one edit
			 * away) and a policy refusal's details (policy,
			 * rule, operation, as wsread gives them), named as
			 * given.
			 */
			if (ws_error_last_hint() == NULL && rc == WS_ENOT_FOUND)
				ws_resolve_name_hint(ws, paths[i]);
			rc = wsg_operand_failed(&oe[i], rc, paths[i]);
			ws_res_free(&res[i]);
			if (rc < 0)
				goto out_res;
			free(oe[i].path);
			if ((oe[i].path = strdup(paths[i])) == NULL) {
				rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
				goto out_res;
			}
			nfailed++;
		}
	}
	if (nfailed == npaths) {
		/* Nothing to search: the call fails as a lone PATH would. */
		rc = wsg_operand_error_again(&oe[0]);
		all_failed = true;
		goto out_res;
	}
	memset(&r, 0, sizeof(r));
	/* A search never prompts: an "approve" rule skips like "deny". */
	r.saved_prompt = ws->no_prompt;
	ws->no_prompt = true;
	r.g = g;
	r.call = ws_call_current();
	r.o = &g->o;
	r.ws = ws;
	r.cb = cb;
	r.arg = arg;
	r.sum = sum;
	r.plock = ws->policy != NULL;
	{
		/*
		 * Recursive: the thread that finishes the head job delivers
		 * the finished jobs after it under the lock, and a full page
		 * then records its truncation, which takes the lock again.
		 */
		pthread_mutexattr_t ma;

		pthread_mutexattr_init(&ma);
		pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
		pthread_mutex_init(&r.mu, &ma);
		pthread_mutexattr_destroy(&ma);
	}
	pthread_mutex_init(&r.pmu, NULL);
	pthread_cond_init(&r.cv_work, NULL);
	pthread_cond_init(&r.cv_head, NULL);
	pthread_cond_init(&r.cv_done, NULL);
	if (g->o.time_budget_ms > 0) {
		/* The coarse clock, as wsg_expired reads it. */
		clock_gettime(CLOCK_MONOTONIC_COARSE, &r.deadline);
		r.has_deadline = true;
		r.deadline.tv_sec += g->o.time_budget_ms / 1000;
		r.deadline.tv_nsec += (g->o.time_budget_ms % 1000) * 1000000L;
		if (r.deadline.tv_nsec >= 1000000000L) {
			r.deadline.tv_sec++;
			r.deadline.tv_nsec -= 1000000000L;
		}
	}
	tail = &first;
	stail = &r.stack;
	for (size_t i = 0; i < npaths && rc == 0; i++) {
		if (oe[i].code != 0)
			continue;
		rc = wsg_operand(&r, &res[i], &oe[i], &roots[i], &tail, &stail);
		if (rc == 0 && oe[i].code != 0)
			nfailed++;
	}
	atomic_store(&r.head, first);
	/* The operands' jobs: the stack's links both ways (wsg_stack_insert). */
	for (struct wsg_job *k = r.stack, *p = NULL; k != NULL; k = k->snext) {
		k->queued = true;
		k->sprev = p;
		r.sbottom = p = k;
	}
	/* The main thread is one of the workers. */
	nw = g->o.threads > 0 ? g->o.threads : wsg_ncpus();
	if (nw > 64)
		nw = 64;
	workers = calloc((size_t)nw, sizeof(*workers));
	if (workers == NULL && rc == 0)
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (int i = 0; i < nw && rc == 0; i++) {
		if ((rc = wsg_worker_init(&workers[i], &r)) < 0) {
			wsg_worker_fini(&workers[i]);
			break;
		}
		workers[i].own_thread = i > 0;
		if (i > 0 && pthread_create(&workers[i].tid, NULL,
					    wsg_worker_thread, &workers[i]) != 0) {
			/* Fewer threads do the same work. */
			wsg_worker_fini(&workers[i]);
			break;
		}
		r.nworkers++;
	}
	if (rc == 0 && r.nworkers > 0) {
		(void)wsg_worker_main(&workers[0]);
	} else if (r.nworkers > 0) {
		/* Started threads find the stop and end. */
		atomic_store(&r.stop, true);
		pthread_mutex_lock(&r.mu);
		pthread_cond_broadcast(&r.cv_work);
		pthread_mutex_unlock(&r.mu);
	}
	for (int i = 0; i < r.nworkers; i++) {
		if (i > 0)
			pthread_join(workers[i].tid, NULL);
		wsg_worker_fini(&workers[i]);
	}
	free(workers);
	/* Files named as operands to list are done from the start. */
	pthread_mutex_lock(&r.mu);
	if (r.nworkers > 0 && !atomic_load(&r.stop))
		wsg_advance(&r);
	pthread_mutex_unlock(&r.mu);
	/* Jobs never run or never delivered (the search stopped). */
	if (r.nworkers > 0 || rc == 0)
		first = atomic_load(&r.head);
	while (first != NULL) {
		struct wsg_job *j = first;

		first = j->next;
		if (j->done)
			wsg_account(&r, j);
		wsg_job_free(j);
	}
	if (rc == 0 && r.err < 0) {
		rc = r.err;
		if (r.errmsg != NULL)
			ws_error_set(rc, r.errpath, "%s", r.errmsg);
	}
	free(r.errmsg);
	free(r.errpath);
	if (rc == 0 && nfailed == npaths)
		rc = wsg_operand_error_again(&oe[0]);
	if (sum->truncated && sum->truncated_reason != NULL &&
	    strcmp(sum->truncated_reason, "max_results") != 0 &&
	    sum->files_searched == 0 && sum->matches == 0)
		sum->limit_only = true;
	wsg_drop_held(&r);
	free(r.held);
	free(r.heldtext);
	ws->no_prompt = r.saved_prompt;
	pthread_mutex_destroy(&r.mu);
	pthread_mutex_destroy(&r.pmu);
	pthread_cond_destroy(&r.cv_work);
	pthread_cond_destroy(&r.cv_head);
	pthread_cond_destroy(&r.cv_done);
out_res:
	for (size_t i = 0; i < npaths; i++) {
		ws_ignore_free(roots[i].ig);
		ws_res_free(&res[i]);
	}
	free(roots);
	free(res);
	/*
	 * The failed operands, in operand order, for the caller to report:
	 * also when all failed (the call's error is the first one's), so
	 * that plain mode can name every one, as grep does.
	 */
	keep = (rc == 0 || all_failed) && nfailed > 0;
	if (keep) {
		sum->operand_errors = calloc(nfailed, sizeof(*sum->operand_errors));
		if (sum->operand_errors == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			keep = false;
		}
	}
	for (size_t i = 0; i < npaths; i++) {
		if (keep && oe[i].code != 0)
			sum->operand_errors[sum->noperand_errors++] = oe[i];
		else
			wsg_operr_free(&oe[i]);
	}
	free(oe);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sum->elapsed_ms = (t1.tv_sec - t0.tv_sec) * 1000 +
			  (t1.tv_nsec - t0.tv_nsec) / 1000000;
	return rc;
}
