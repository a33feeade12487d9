/*
 * ignore.c - .gitignore rules on a per-directory stack (see ws/ignore.h).
 *
 * Each level holds the patterns of one .gitignore, parsed once when its
 * directory is entered.  A pattern is classified when parsed so that the
 * common shapes cost a string comparison: a literal name ("build"), a
 * suffix ("*.o"), or a general glob that goes through ws_wildmatch().
 */
#include "ws/ignore.h"

#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws/error.h"

#define WS__IGN_MAX_FILE (1024 * 1024) /* a larger .gitignore is cut */

enum ws__pkind {
	WS__P_LITERAL, /* no wildcard: compare the whole string */
	WS__P_SUFFIX,  /* "*" then a literal without "/": compare the end */
	WS__P_GLOB,    /* anything else: wildmatch */
};

struct ws__pat {
	char *pat;	    /* the pattern, unescaped for LITERAL/SUFFIX */
	size_t len;
	enum ws__pkind kind;
	bool negate;	    /* "!pattern" */
	bool dir_only;	    /* "pattern/" */
	bool basename;	    /* no slash: matches the name at any depth */
};

struct ws__level {
	char *base;	    /* directory relative to the top, "" or "a/b/" */
	size_t baselen;
	struct ws__pat *pats;
	size_t npats;
};

struct ws_ignore {
	struct ws__level *lv; /* lv[0] is .git/info/exclude */
	size_t nlv, cap;
};

/* One directory's .gitignore in a chain shared by the walk's threads. */
struct ws_ignore_dir {
	struct ws__level l;
	struct ws_ignore_dir *parent;
	atomic_int ref;
};

/* ------------------------------------------------------------------ */
/* wildmatch                                                           */

enum { WM_MATCH = 0, WM_NOMATCH = 1, WM_ABORT_ALL = -1, WM_ABORT_STAR = -2 };

static unsigned char
ws__fold(unsigned char c, bool icase)
{
	return icase && c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

/* A POSIX class name at p ("alpha:]"...): whether c is in it; -1 bad. */
static int
ws__class(const unsigned char *p, size_t n, unsigned char c)
{
	static const char *const cls[] = {
		"alnum", "alpha", "blank", "cntrl", "digit", "graph",
		"lower", "print", "punct", "space", "upper", "xdigit",
	};
	size_t i;

	for (i = 0; i < sizeof(cls) / sizeof(cls[0]); i++)
		if (strlen(cls[i]) == n && memcmp(cls[i], p, n) == 0)
			break;
	switch (i) {
	case 0: return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
	case 1: return (c | 32) >= 'a' && (c | 32) <= 'z';
	case 2: return c == ' ' || c == '\t';
	case 3: return c < 32 || c == 127;
	case 4: return c >= '0' && c <= '9';
	case 5: return c > 32 && c < 127;
	case 6: return c >= 'a' && c <= 'z';
	case 7: return c >= 32 && c < 127;
	case 8: return c > 32 && c < 127 && !((c >= '0' && c <= '9') ||
					      ((c | 32) >= 'a' && (c | 32) <= 'z'));
	case 9: return c == ' ' || (c >= '\t' && c <= '\r');
	case 10: return c >= 'A' && c <= 'Z';
	case 11: return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f');
	default: return -1;
	}
}

/*
 * git's dowild() (wildmatch.c) with WM_PATHNAME, rewritten: "*" stops at
 * "/", "**" between slashes (or at an end) crosses them.
 */
static int
ws__dowild(const unsigned char *p, const unsigned char *pstart,
	   const unsigned char *text, bool icase, long *budget)
{
	unsigned char p_ch;

	/*
	 * Many "**" components, each tried at every position, backtrack
	 * exponentially (found by fuzz_ignore: a 275-byte .gitignore ran
	 * past libFuzzer's timeout).  Past the budget the pattern does not
	 * match; no real pattern comes near it.
	 */
	if (--*budget < 0)
		return WM_ABORT_ALL;

	for (; (p_ch = *p) != '\0'; text++, p++) {
		int matched, match_slash, negated;
		unsigned char t_ch, prev_ch;

		if ((t_ch = *text) == '\0' && p_ch != '*')
			return WM_ABORT_ALL;
		t_ch = ws__fold(t_ch, icase);
		switch (p_ch) {
		case '\\':
			p_ch = *++p;
			if (p_ch == '\0')
				return WM_ABORT_ALL;
			/* fall through */
		default:
			if (t_ch != ws__fold(p_ch, icase))
				return WM_NOMATCH;
			continue;
		case '?':
			if (t_ch == '/')
				return WM_NOMATCH;
			continue;
		case '*':
			if (*++p == '*') {
				const unsigned char *prev_p = p - 2;

				while (*++p == '*')
					;
				if ((prev_p < pstart || *prev_p == '/') &&
				    (*p == '\0' || *p == '/' ||
				     (p[0] == '\\' && p[1] == '/'))) {
					/* "**" as a whole component. */
					if (p[0] == '/' &&
					    ws__dowild(p + 1, pstart, text,
						       icase, budget) == WM_MATCH)
						return WM_MATCH;
					match_slash = 1;
				} else {
					match_slash = 0;
				}
			} else {
				match_slash = 0;
			}
			if (*p == '\0') {
				/* A trailing "*" matches only within the
				 * last component; "**" everything. */
				if (!match_slash &&
				    strchr((const char *)text, '/') != NULL)
					return WM_NOMATCH;
				return WM_MATCH;
			} else if (!match_slash && *p == '/') {
				/* "*" then "/": the rest of this component. */
				const char *slash =
					strchr((const char *)text, '/');

				if (slash == NULL)
					return WM_NOMATCH;
				text = (const unsigned char *)slash;
				break; /* the loop consumes the slash */
			}
			for (;;) {
				if (t_ch == '\0')
					break;
				matched = ws__dowild(p, pstart, text, icase, budget);
				if (matched != WM_NOMATCH) {
					if (!match_slash ||
					    matched != WM_ABORT_STAR)
						return matched;
				} else if (!match_slash && t_ch == '/') {
					return WM_ABORT_STAR;
				}
				t_ch = *++text;
			}
			return WM_ABORT_ALL;
		case '[':
			p_ch = *++p;
			if (p_ch == '^')
				p_ch = '!';
			negated = p_ch == '!';
			if (negated)
				p_ch = *++p;
			prev_ch = 0;
			matched = 0;
			do {
				if (p_ch == '\0')
					return WM_ABORT_ALL;
				if (p_ch == '\\') {
					p_ch = *++p;
					if (p_ch == '\0')
						return WM_ABORT_ALL;
					if (t_ch == ws__fold(p_ch, icase))
						matched = 1;
				} else if (p_ch == '-' && prev_ch && p[1] &&
					   p[1] != ']') {
					p_ch = *++p;
					if (p_ch == '\\') {
						p_ch = *++p;
						if (p_ch == '\0')
							return WM_ABORT_ALL;
					}
					if (t_ch <= ws__fold(p_ch, icase) &&
					    t_ch >= ws__fold(prev_ch, icase))
						matched = 1;
					p_ch = 0; /* prev_ch becomes 0 */
				} else if (p_ch == '[' && p[1] == ':') {
					const unsigned char *s = p + 2;
					const unsigned char *e = s;
					int r;

					while (*e && *e != ']')
						e++;
					if (*e == '\0')
						return WM_ABORT_ALL;
					if (e - s < 1 || e[-1] != ':') {
						/* Not a class: a literal "[". */
						if (t_ch == '[')
							matched = 1;
						goto next;
					}
					r = ws__class(s, (size_t)(e - 1 - s),
						      *text);
					if (r < 0)
						return WM_ABORT_ALL;
					if (r)
						matched = 1;
					p = e;
					p_ch = 0;
				} else if (t_ch == ws__fold(p_ch, icase)) {
					matched = 1;
				}
next:;
			} while (prev_ch = p_ch, (p_ch = *++p) != ']');
			if (matched == negated || t_ch == '/')
				return WM_NOMATCH;
			continue;
		}
	}
	return *text != '\0' ? WM_NOMATCH : WM_MATCH;
}

bool
ws_wildmatch(const char *pat, const char *text, bool icase)
{
	const unsigned char *p = (const unsigned char *)pat;
	long budget = 100000;

	return ws__dowild(p, p, (const unsigned char *)text, icase,
			  &budget) == WM_MATCH;
}

/* ------------------------------------------------------------------ */
/* Parsing                                                             */

/* Whether s (n bytes) holds a wildcard or an escape. */
static bool
ws__has_wild(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == '\\')
			return true;
	return false;
}

static void
ws__level_free(struct ws__level *l)
{
	for (size_t i = 0; i < l->npats; i++)
		free(l->pats[i].pat);
	free(l->pats);
	free(l->base);
	memset(l, 0, sizeof(*l));
}

/* Parse one line (without its newline) into l; blank and comments add
 * nothing. */
static int
ws__add_line(struct ws__level *l, size_t *cap, const char *s, size_t n)
{
	struct ws__pat pt = {0};

	/* Trailing spaces go unless escaped ("foo\ " keeps one). */
	while (n > 0 && s[n - 1] == ' ') {
		size_t bs = 0;

		while (bs + 1 < n && s[n - 2 - bs] == '\\')
			bs++;
		if (bs % 2 == 1)
			break;
		n--;
	}
	if (n == 0 || s[0] == '#')
		return 0;
	if (s[0] == '!') {
		pt.negate = true;
		s++;
		n--;
	}
	if (n > 0 && s[n - 1] == '/') {
		pt.dir_only = true;
		n--;
	}
	if (n == 0)
		return 0;
	pt.basename = memchr(s, '/', n) == NULL;
	if (s[0] == '/') {
		s++;
		n--;
		if (n == 0)
			return 0;
	}
	if (!ws__has_wild(s, n)) {
		pt.kind = WS__P_LITERAL;
	} else if (pt.basename && s[0] == '*' && n > 1 &&
		   !ws__has_wild(s + 1, n - 1)) {
		pt.kind = WS__P_SUFFIX;
		s++;
		n--;
	} else {
		pt.kind = WS__P_GLOB;
	}
	pt.pat = strndup(s, n);
	if (pt.pat == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	pt.len = n;
	if (l->npats == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct ws__pat *np = realloc(l->pats, nc * sizeof(*np));

		if (np == NULL) {
			free(pt.pat);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		l->pats = np;
		*cap = nc;
	}
	l->pats[l->npats++] = pt;
	return 0;
}

static int
ws__parse(struct ws__level *l, const char *text, size_t len)
{
	const char *p = text, *e = text + len;
	size_t cap = 0;
	int rc;

	/* A UTF-8 byte order mark is skipped, as git does. */
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (p < e) {
		const char *q = memchr(p, '\n', (size_t)(e - p));
		const char *end = q ? q : e;

		/* A NUL would cut the pattern short: such lines are dropped. */
		if (memchr(p, '\0', (size_t)(end - p)) == NULL &&
		    (rc = ws__add_line(l, &cap, p, (size_t)(end - p))) < 0)
			return rc;
		p = q ? q + 1 : e;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The stack                                                           */

int
ws_ignore_new(struct ws_ignore **out)
{
	struct ws_ignore *ig = calloc(1, sizeof(*ig));

	*out = NULL;
	if (ig == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	ig->cap = 16;
	ig->lv = calloc(ig->cap, sizeof(*ig->lv));
	if (ig->lv == NULL) {
		free(ig);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	/* Level 0, .git/info/exclude, is based at the top. */
	ig->lv[0].base = strdup("");
	if (ig->lv[0].base == NULL) {
		free(ig->lv);
		free(ig);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	ig->nlv = 1;
	*out = ig;
	return 0;
}

void
ws_ignore_free(struct ws_ignore *ig)
{
	if (ig == NULL)
		return;
	for (size_t i = 0; i < ig->nlv; i++)
		ws__level_free(&ig->lv[i]);
	free(ig->lv);
	free(ig);
}

/*
 * Read a regular file name in dirfd (not following a symlink, never
 * blocking) into a malloc'd buffer; *buf NULL when it is absent or not a
 * regular file.
 */
static int
ws__slurp_at(int dirfd, const char *name, char **buf, size_t *len)
{
	struct stat st;
	char *b;
	size_t n = 0;
	int fd;

	*buf = NULL;
	*len = 0;
	fd = openat(dirfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return 0;
	}
	size_t want = st.st_size > WS__IGN_MAX_FILE ? WS__IGN_MAX_FILE :
		      (size_t)st.st_size;
	b = malloc(want + 1);
	if (b == NULL) {
		close(fd);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	while (n < want) {
		ssize_t r = read(fd, b + n, want - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int
ws_ignore_load_exclude(struct ws_ignore *ig, int topfd)
{
	int gfd, ifd, rc;
	char *buf;
	size_t len;

	gfd = openat(topfd, ".git",
		     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (gfd < 0)
		return 0;
	ifd = openat(gfd, "info", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(gfd);
	if (ifd < 0)
		return 0;
	rc = ws__slurp_at(ifd, "exclude", &buf, &len);
	close(ifd);
	if (rc < 0 || buf == NULL)
		return rc;
	rc = ws__parse(&ig->lv[0], buf, len);
	free(buf);
	return rc;
}

int
ws_ignore_push_text(struct ws_ignore *ig, const char *rel, const char *text,
		    size_t len)
{
	struct ws__level *l;
	size_t rl = strlen(rel);
	int rc;

	if (ig->nlv == ig->cap) {
		size_t nc = ig->cap * 2;
		struct ws__level *nl = realloc(ig->lv, nc * sizeof(*nl));

		if (nl == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		ig->lv = nl;
		ig->cap = nc;
	}
	l = &ig->lv[ig->nlv];
	memset(l, 0, sizeof(*l));
	l->base = malloc(rl + 2);
	if (l->base == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	memcpy(l->base, rel, rl);
	if (rl > 0)
		l->base[rl++] = '/';
	l->base[rl] = '\0';
	l->baselen = rl;
	ig->nlv++;
	if (text != NULL && (rc = ws__parse(l, text, len)) < 0)
		return rc; /* the level stays, for pop to free */
	return 0;
}

int
ws_ignore_push(struct ws_ignore *ig, int dirfd, const char *rel)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (dirfd >= 0 && (rc = ws__slurp_at(dirfd, ".gitignore", &buf, &len)) < 0)
		return rc;
	rc = ws_ignore_push_text(ig, rel, buf, len);
	free(buf);
	return rc;
}

void
ws_ignore_pop(struct ws_ignore *ig)
{
	if (ig->nlv > 1)
		ws__level_free(&ig->lv[--ig->nlv]);
}

/* Whether pattern pt matches sub (relative to its level), name its last
 * component. */
static bool
ws__pat_match(const struct ws__pat *pt, const char *sub, size_t sublen,
	      const char *name, size_t namelen)
{
	const char *s = pt->basename ? name : sub;
	size_t n = pt->basename ? namelen : sublen;

	switch (pt->kind) {
	case WS__P_LITERAL:
		return n == pt->len && memcmp(s, pt->pat, n) == 0;
	case WS__P_SUFFIX:
		return n >= pt->len &&
		       memcmp(s + n - pt->len, pt->pat, pt->len) == 0;
	default:
		return ws_wildmatch(pt->pat, s, false);
	}
}

/*
 * Whether level l decides rel (len bytes, name its last component):
 * true with *ignored set when one of its patterns matches.
 */
static bool
ws__level_match(const struct ws__level *l, const char *rel, size_t len,
		const char *name, size_t namelen, bool is_dir, bool *ignored)
{
	if (l->npats == 0 || len < l->baselen ||
	    memcmp(rel, l->base, l->baselen) != 0)
		return false;
	for (size_t j = l->npats; j-- > 0;) {
		const struct ws__pat *pt = &l->pats[j];

		if (pt->dir_only && !is_dir)
			continue;
		if (ws__pat_match(pt, rel + l->baselen, len - l->baselen, name,
				  namelen)) {
			*ignored = !pt->negate;
			return true;
		}
	}
	return false;
}

/* ws_ignore_match() with the levels of chain d asked first. */
static bool
ws__match(const struct ws_ignore *ig, const struct ws_ignore_dir *d,
	  const char *rel, bool is_dir)
{
	size_t len = strlen(rel);
	const char *slash = strrchr(rel, '/');
	const char *name = slash ? slash + 1 : rel;
	size_t namelen = len - (size_t)(name - rel);
	bool ignored = false;

	if (namelen == 4 && memcmp(name, ".git", 4) == 0)
		return true;
	/* Deepest level first; level 0 (info/exclude) last. */
	for (; d != NULL; d = d->parent)
		if (ws__level_match(&d->l, rel, len, name, namelen, is_dir,
				    &ignored))
			return ignored;
	for (size_t i = ig != NULL ? ig->nlv : 0; i-- > 0;)
		if (ws__level_match(&ig->lv[i], rel, len, name, namelen, is_dir,
				    &ignored))
			return ignored;
	return false;
}

bool
ws_ignore_match(const struct ws_ignore *ig, const char *rel, bool is_dir)
{
	return ws__match(ig, NULL, rel, is_dir);
}

int
ws_ignore_dir_new(struct ws_ignore_dir *parent, int dirfd, const char *rel,
		  struct ws_ignore_dir **out)
{
	struct ws_ignore_dir *d;
	char *buf = NULL;
	size_t len = 0, rl = strlen(rel);
	int rc;

	*out = NULL;
	if (dirfd >= 0 && (rc = ws__slurp_at(dirfd, ".gitignore", &buf, &len)) < 0)
		return rc;
	if (buf == NULL) {
		/* Most directories have none: the parent's rules stand. */
		if (parent != NULL)
			atomic_fetch_add(&parent->ref, 1);
		*out = parent;
		return 0;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL || (d->l.base = malloc(rl + 2)) == NULL) {
		free(d);
		free(buf);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	memcpy(d->l.base, rel, rl);
	if (rl > 0)
		d->l.base[rl++] = '/';
	d->l.base[rl] = '\0';
	d->l.baselen = rl;
	atomic_init(&d->ref, 1);
	rc = ws__parse(&d->l, buf, len);
	free(buf);
	if (rc < 0) {
		ws__level_free(&d->l);
		free(d);
		return rc;
	}
	if (parent != NULL)
		atomic_fetch_add(&parent->ref, 1);
	d->parent = parent;
	*out = d;
	return 0;
}

void
ws_ignore_dir_unref(struct ws_ignore_dir *d)
{
	while (d != NULL && atomic_fetch_sub(&d->ref, 1) == 1) {
		struct ws_ignore_dir *p = d->parent;

		ws__level_free(&d->l);
		free(d);
		d = p;
	}
}

bool
ws_ignore_dir_match(const struct ws_ignore *ig, const struct ws_ignore_dir *d,
		    const char *rel, bool is_dir)
{
	return ws__match(ig, d, rel, is_dir);
}

int
ws_ignore_push_ancestors(struct ws_ignore *ig, int rootfd, const char *rel)
{
	char *buf;
	int cur, rc;

	if ((rc = ws_ignore_load_exclude(ig, rootfd)) < 0)
		return rc;
	if (*rel == '\0')
		return 0;
	buf = strdup(rel);
	cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	if (buf == NULL) {
		if (cur >= 0)
			close(cur);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	rc = 0;
	for (char *p = buf; cur >= 0;) {
		char *slash = strchr(p, '/');
		int next;

		/* The level of the directory above p: buf cut before p. */
		if (p > buf)
			p[-1] = '\0';
		rc = ws_ignore_push(ig, cur, p > buf ? buf : "");
		if (p > buf)
			p[-1] = '/';
		if (rc < 0 || slash == NULL)
			break;
		*slash = '\0';
		next = openat(cur, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			      O_NONBLOCK | O_CLOEXEC);
		*slash = '/';
		close(cur);
		cur = next;
		p = slash + 1;
	}
	if (cur >= 0)
		close(cur);
	free(buf);
	return rc;
}

/*
 * A glob in gitignore syntax: a name alone matches at any depth, a path
 * with a slash from the top, and a trailing slash ("build/") only
 * directories (it does not count as a slash for the rest).
 */
bool
ws_ignore_glob(const char *glob, const char *rel, bool isdir)
{
	size_t n = strlen(glob);
	const char *base;
	char buf[256], *g = buf;
	bool m;

	if (n > 1 && glob[n - 1] == '/') {
		if (!isdir)
			return false;
		n--;
		if (n >= sizeof(buf) && (g = malloc(n + 1)) == NULL)
			return false;
		memcpy(g, glob, n);
		g[n] = '\0';
		glob = g;
	}
	if (strchr(glob, '/') == NULL) {
		base = strrchr(rel, '/');
		m = ws_wildmatch(glob, base ? base + 1 : rel, false);
	} else {
		m = ws_wildmatch(glob + (glob[0] == '/'), rel, false);
	}
	if (g != buf)
		free(g);
	return m;
}
