/* guard.c - persistence guards, and the list of everything guarded. */
#include "ws/guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws/config.h"
#include "ws/error.h"
#include "ws/glob.h"
#include "ws/path.h"

const char *const ws_guard_defaults[] = {
	".git/hooks/",
	".git/config",
	".git/modules/**/hooks/",
	".git/modules/**/config",
	".gitmodules",
	".bashrc",
	".bash_profile",
	".profile",
	".zshrc",
	".zprofile",
	".bash_login",
	".bash_logout",
	".vscode/",
	".idea/",
	".envrc",
	/*
	 * What other programs run from the folder they open (review25
	 * 10): an agent's hooks and MCP servers (Claude Code, Cursor, the
	 * clients that read .mcp.json), Zed's and Helix's language servers
	 * and tasks, a dev container's initializeCommand on the host.
	 */
	".claude/settings.json",
	".claude/settings.local.json",
	".mcp.json",
	".cursor/mcp.json",
	".zed/settings.json",
	".zed/tasks.json",
	".helix/languages.toml",
	".devcontainer/devcontainer.json",
	".devcontainer.json",
	"**/.git/",
	"**/.hg/",
	"**/.jj/",
	"**/.sl/",
	"**/.envrc",
	/* An editor opening a subdirectory as its folder reads these too
	 * (review22 01). */
	"**/.vscode/",
	"**/.idea/",
};
const size_t ws_guard_ndefaults =
	sizeof(ws_guard_defaults) / sizeof(ws_guard_defaults[0]);

/* Most entries the walk of a glob guard looks at, and its depth. */
#define WS__GUARD_WALK_MAX 100000
#define WS__GUARD_WALK_DEPTH 16

/* One pattern, compiled. */
struct ws__pguard {
	char *src;	       /* as configured */
	char *pat;	       /* without its trailing slash */
	bool dir;	       /* trailing slash: what is below too */
	bool literal;	       /* no glob metacharacter */
	bool comp;	       /* "**" "/" NAME: a component named NAME */
	const char *name;      /* that NAME, in pat */
	size_t ncomp;	       /* components of pat */
	size_t star;	       /* index of the first "**" component, or ncomp */
	struct ws_glob *g;     /* pat */
	struct ws_glob *below; /* pat/ **, for a directory guard */
	struct ws_glob **pre;  /* pre[k]: the first k components (k < ncomp) */
};

/* A resolved target of a literal guard (a link, or a gitdir's part). */
struct ws__rguard {
	char *real;
	const char *src; /* the pattern it comes from */
	bool dir;
};

struct ws_guards {
	struct ws__pguard *v;
	size_t n;
	bool resolved; /* targets below found (on the first check) */
	struct ws__rguard *r;
	size_t nr;
};

static void
ws__pguard_free(struct ws__pguard *p)
{
	free(p->src);
	free(p->pat);
	ws_glob_free(p->g);
	ws_glob_free(p->below);
	if (p->pre != NULL)
		for (size_t k = 0; k < p->ncomp; k++)
			ws_glob_free(p->pre[k]);
	free(p->pre);
}

void
ws__guards_free(struct ws_guards *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->n; i++)
		ws__pguard_free(&g->v[i]);
	free(g->v);
	for (size_t i = 0; i < g->nr; i++)
		free(g->r[i].real);
	free(g->r);
	free(g);
}

/* Compile the glob made of the first len bytes of s. */
static int
ws__compile(const char *s, size_t len, struct ws_glob **out, const char *src)
{
	char *c = strndup(s, len);
	size_t off = 0;
	int rc;

	if (c == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	rc = ws_glob_compile(c, WS_GLOB_LAZY, out, &off);
	free(c);
	if (rc == WS_EINVALID_PATTERN)
		return ws_error_set(WS_EINVALID_ARGUMENT, src,
				    "guarded: \"%s\" is not a valid glob (at byte %zu)",
				    src, off);
	return rc;
}

static int
ws__pguard_init(struct ws__pguard *p, const char *src)
{
	size_t len = strlen(src), start = 0, k = 0;
	char *below = NULL;
	int rc;

	memset(p, 0, sizeof(*p));
	if (len == 0 || src[0] == '/' || ws_path_has_dotdot(src))
		return ws_error_set(WS_EINVALID_ARGUMENT, src,
				    "guarded: \"%s\" is not a path relative to the "
				    "workspace", src);
	p->src = strdup(src);
	while (len > 1 && src[len - 1] == '/') {
		p->dir = true;
		len--;
	}
	p->pat = strndup(src, len);
	if (p->src == NULL || p->pat == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	p->literal = strpbrk(p->pat, "*?[\\") == NULL;
	/*
	 * "**" "/" NAME, NAME one literal component: any component named
	 * NAME (with a trailing slash, everything below it too), decided on
	 * the names alone.  A directory that holds one may be moved or
	 * deleted: the whole repository goes with it, nothing in it changes.
	 */
	if (strncmp(p->pat, "**/", 3) == 0 && p->pat[3] != '\0' &&
	    strpbrk(p->pat + 3, "*?[\\/") == NULL &&
	    strcmp(p->pat + 3, ".") != 0 && strcmp(p->pat + 3, "..") != 0) {
		p->comp = true;
		p->name = p->pat + 3;
	}
	p->ncomp = 1;
	for (const char *c = p->pat; *c; c++)
		p->ncomp += *c == '/';
	p->star = p->ncomp;
	p->pre = calloc(p->ncomp, sizeof(*p->pre));
	if (p->pre == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if ((rc = ws__compile(p->pat, len, &p->g, src)) < 0)
		return rc;
	if (p->dir) {
		if (asprintf(&below, "%s/**", p->pat) < 0)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		rc = ws__compile(below, strlen(below), &p->below, src);
		free(below);
		if (rc < 0)
			return rc;
	}
	/* pre[k], the first k components, for "may this directory hold a
	 * match"; a "**" component ends them: what lies below the part
	 * before it may hold a match at any depth. */
	for (size_t i = 0; i <= len && k < p->ncomp; i++) {
		if (i < len && p->pat[i] != '/')
			continue;
		if (i - start == 2 && strncmp(p->pat + start, "**", 2) == 0) {
			p->star = k;
			break;
		}
		k++;
		if (k < p->ncomp && (rc = ws__compile(p->pat, i, &p->pre[k], src)) < 0)
			return rc;
		start = i + 1;
	}
	return 0;
}

int
ws_ctx_set_guarded(struct ws_ctx *ws, const char *const *patterns, size_t n)
{
	struct ws_guards *g = calloc(1, sizeof(*g));
	int rc = 0;

	if (g == NULL || (n > 0 && (g->v = calloc(n, sizeof(*g->v))) == NULL)) {
		free(g);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = ws__pguard_init(&g->v[i], patterns[i]);
		g->n = i + 1;
	}
	if (rc < 0) {
		ws__guards_free(g);
		return rc;
	}
	ws__guards_free(ws->persist);
	ws->persist = g;
	return 0;
}

/* The default guards, set on first use. */
static struct ws_guards *
ws__guards(struct ws_ctx *ws)
{
	if (ws->persist == NULL &&
	    ws_ctx_set_guarded(ws, ws_guard_defaults, ws_guard_ndefaults) < 0)
		return NULL;
	return ws->persist;
}

const char *
ws_guard_literal(struct ws_ctx *ws, size_t i)
{
	struct ws_guards *g = ws__guards(ws);

	for (size_t k = 0; g != NULL && k < g->n; k++) {
		if (!g->v[k].literal)
			continue;
		if (i-- == 0)
			return g->v[k].pat;
	}
	return NULL;
}

/* The length of the first k components of the relative path r, or 0 if
 * it has fewer. */
static size_t
ws__first(const char *r, size_t k)
{
	size_t i = 0;

	for (size_t c = 0; c < k; c++) {
		if (r[i] == '\0')
			return 0;
		while (r[i] != '\0' && r[i] != '/')
			i++;
		if (c + 1 < k) {
			if (r[i] == '\0')
				return 0;
			i++;
		}
	}
	return i;
}

/*
 * Whether the relative path r (not empty) is guarded by p: 1 if it is
 * (or lies below) a match, 2 if (with ancestors) it is a path whose
 * directory may hold one, 0 if neither.
 */
static int
ws__pguard_hit(struct ws__pguard *p, const char *r, bool ancestors)
{
	size_t rl = strlen(r), k = 1, n;

	if (p->comp) {
		size_t nl = strlen(p->name);

		for (const char *c = r; *c; ) {
			size_t cl = strcspn(c, "/");

			if (cl == nl && memcmp(c, p->name, nl) == 0 &&
			    (p->dir || c[cl] == '\0'))
				return 1;
			c += cl;
			while (*c == '/')
				c++;
		}
		return 0;
	}
	/* A lazy glob failing to compile (out of memory) fails closed. */
	if (ws_glob_match(p->g, r, rl) != 0)
		return 1;
	if (p->dir && ws_glob_match(p->below, r, rl) != 0)
		return 1;
	if (!ancestors)
		return 0;
	for (const char *c = r; *c; c++)
		k += *c == '/';
	if (k < p->star)
		return p->pre[k] != NULL && ws_glob_match(p->pre[k], r, rl) != 0 ? 2 : 0;
	if (p->star == p->ncomp)
		return 0;
	/* At or below the part before a "**": it may hold a match. */
	if (p->star == 0)
		return 2;
	n = ws__first(r, p->star);
	return n > 0 && ws_glob_match(p->pre[p->star], r, n) != 0 ? 2 : 0;
}

/*
 * A "**" "/" NAME guard on the real path real (rest: below its anchor):
 * 1 if a component of rest is NAME, unless that component lies strictly
 * inside the tree a recursive delete or move is asking about
 * (ws->whole): a repository inside goes or moves as a whole.
 */
static int
ws__comp_hit(struct ws_ctx *ws, const struct ws__pguard *p, const char *real,
	     const char *rest)
{
	size_t nl = strlen(p->name), base = (size_t)(rest - real);

	for (const char *c = rest; *c; ) {
		size_t cl = strcspn(c, "/");

		if (cl == nl && memcmp(c, p->name, nl) == 0 &&
		    (p->dir || c[cl] == '\0')) {
			bool inside = false;
			size_t end = base + (size_t)(c - rest) + cl;

			for (int k = 0; k < 2 && !inside; k++) {
				size_t wl = ws->whole[k] ? strlen(ws->whole[k]) : 0;

				/* whole[k] a proper ancestor of real[0, end). */
				inside = wl > 0 && wl < end &&
					 strncmp(ws->whole[k], real, wl) == 0 &&
					 (real[wl] == '/' || wl == 1);
			}
			if (!inside)
				return 1;
		}
		c += cl;
		while (*c == '/')
			c++;
	}
	return 0;
}

static int
ws__add_r(struct ws_guards *g, const char *real, const char *src, bool dir)
{
	struct ws__rguard *v;

	for (size_t i = 0; i < g->nr; i++)
		if (strcmp(g->r[i].real, real) == 0)
			return 0;
	v = realloc(g->r, (g->nr + 1) * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	g->r = v;
	if ((v[g->nr].real = strdup(real)) == NULL)
		return -ENOMEM;
	v[g->nr].src = src;
	v[g->nr].dir = dir;
	g->nr++;
	return 0;
}

/* The real path of what rel names below dirfd, following links. */
static bool
ws__real_at(int dirfd, const char *rel, char *buf, size_t size, bool *isdir)
{
	char proc[64];
	struct stat st;
	ssize_t n;
	int fd = openat(dirfd, rel, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return false;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, size - 1);
	if (n > 0 && fstat(fd, &st) == 0) {
		buf[n] = '\0';
		*isdir = S_ISDIR(st.st_mode);
	} else {
		n = -1;
	}
	close(fd);
	return n > 0 && buf[0] == '/';
}

/*
 * A ".git" file at the top of an anchor ("gitdir: DIR", a worktree or a
 * submodule): DIR's hooks and config, and its common directory's.
 */
static int
ws__gitdir_guards(struct ws_guards *g, int afd, const char *areal)
{
	char *text = NULL, *dir = NULL, *common = NULL, *cfile = NULL;
	const char *parts[] = {"hooks", "config"};
	char buf[PATH_MAX];
	struct stat st;
	int rc = 0;

	if (fstatat(afd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	{
		char *p = ws_path_join(areal, ".git");

		if (p == NULL)
			return -ENOMEM;
		rc = ws_config_read_file(p, &text);
		free(p);
		if (rc < 0)
			return 0;
	}
	if (strncmp(text, "gitdir:", 7) == 0) {
		char *s = text + 7, *e;

		while (*s == ' ' || *s == '\t')
			s++;
		for (e = s; *e && *e != '\n' && *e != '\r'; e++)
			;
		*e = '\0';
		dir = s[0] == '/' ? strdup(s) : ws_path_join(areal, s);
	}
	for (int round = 0; dir != NULL && round < 2; round++) {
		const char *base = round == 0 ? dir : common;

		if (base == NULL)
			break;
		for (size_t i = 0; i < 2 && rc == 0; i++) {
			char *p = ws_path_join(base, parts[i]);

			if (p == NULL)
				rc = -ENOMEM;
			else if (realpath(p, buf) != NULL)
				rc = ws__add_r(g, buf, ".git (gitdir)", i == 0);
			free(p);
		}
		if (round == 0) {
			/* A worktree's "commondir" names the main git dir. */
			char *ctext = NULL;

			cfile = ws_path_join(dir, "commondir");
			if (cfile != NULL && ws_config_read_file(cfile, &ctext) == 0) {
				ctext[strcspn(ctext, "\r\n")] = '\0';
				common = ctext[0] == '/' ? strdup(ctext)
							 : ws_path_join(dir, ctext);
			}
			free(ctext);
		}
	}
	free(text);
	free(dir);
	free(common);
	free(cfile);
	return rc < 0 ? rc : 0;
}

/*
 * A path the configuration names, base the directory it is relative to:
 * guarded (src the reason, dir whether what is below it too) where it
 * lies in the anchor, as ws__gitdir_guards() guards what a ".git" file
 * names.  "~" and "%(prefix)" paths lie in no anchor here.
 */
static int
ws__cfg_path_guard(struct ws_guards *g, const char *areal, const char *base,
		   const char *val, const char *src, bool dir)
{
	char buf[PATH_MAX], *abs;
	int rc = 0;

	if (val[0] == '\0' || val[0] == '~' || strncmp(val, "%(prefix)", 9) == 0)
		return 0;
	if ((abs = val[0] == '/' ? strdup(val) : ws_path_join(base, val)) == NULL)
		return -ENOMEM;
	if (realpath(abs, buf) != NULL && ws_path_within(areal, buf, NULL) &&
	    strcmp(areal, buf) != 0)
		rc = ws__add_r(g, buf, src, dir);
	free(abs);
	return rc;
}

/*
 * What the top repository's own configuration names in the anchor and
 * git reads or runs as its own, guarded as .git/hooks and .git/config
 * are: the hooks directory of core.hooksPath (husky's ".husky/_", a
 * ".githooks"; relative to the work tree's top; review23 18) and the
 * files include.path and includeIf.*.path take in (a project's shared
 * .gitconfig; relative to .git; review23 17).  A small reading of git's
 * format: section headers, "key = value", a value quoted or not; the
 * last hooksPath counts.  Read through the anchor's descriptor.
 */
static int
ws__config_guards(struct ws_guards *g, int afd, const char *areal)
{
	char *text = NULL, *p, *hooks = NULL, *gitdir = NULL, *save = NULL;
	bool core = false, incl = false;
	int fd, rc;

	fd = openat(afd, ".git/config", O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	rc = ws_config_read_fd(fd, &text);
	close(fd);
	if (rc < 0)
		return 0;
	if ((gitdir = ws_path_join(areal, ".git")) == NULL) {
		free(text);
		return -ENOMEM;
	}
	rc = 0;
	for (p = strtok_r(text, "\n", &save); rc == 0 && p != NULL;
	     p = strtok_r(NULL, "\n", &save)) {
		char *l = p + strspn(p, " \t"), *e;
		bool ip;

		if (*l == '[') {
			core = strncasecmp(l, "[core]", 6) == 0;
			incl = strncasecmp(l, "[include]", 9) == 0 ||
			       strncasecmp(l, "[includeIf", 10) == 0;
			continue;
		}
		ip = incl && strncasecmp(l, "path", 4) == 0;
		if (!ip && (!core || strncasecmp(l, "hookspath", 9) != 0))
			continue;
		l += ip ? 4 : 9;
		l += strspn(l, " \t");
		if (*l++ != '=')
			continue;
		l += strspn(l, " \t");
		e = l + strlen(l);
		while (e > l && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		if (e - l >= 2 && *l == '"' && e[-1] == '"') {
			l++;
			e--;
		}
		*e = '\0';
		if (ip)
			rc = ws__cfg_path_guard(g, areal, gitdir, l,
						".git/config include.path", false);
		else
			hooks = l;
	}
	if (rc == 0 && hooks != NULL)
		rc = ws__cfg_path_guard(g, areal, areal, hooks,
					".git/config core.hooksPath", true);
	free(gitdir);
	free(text);
	return rc;
}

/*
 * Resolve, once, what the literal guards of every anchor are when they
 * are symlinks or lie behind one, and the git dirs ".git" files name.
 */
static int
ws__guards_resolve(struct ws_ctx *ws, struct ws_guards *g)
{
	char buf[PATH_MAX];

	if (g->resolved)
		return 0;
	g->resolved = true;
	for (size_t a = 0; a < ws->nanchors; a++) {
		const char *areal = ws->anchors[a].real;
		int afd = ws->anchors[a].fd;

		for (size_t i = 0; i < g->n; i++) {
			struct ws__pguard *p = &g->v[i];
			char *lex;
			bool isdir = false;
			int rc = 0;

			if (!p->literal || !ws__real_at(afd, p->pat, buf, sizeof(buf), &isdir))
				continue;
			lex = ws_path_join(areal, p->pat);
			if (lex == NULL)
				return -ENOMEM;
			if (strcmp(lex, buf) != 0)
				rc = ws__add_r(g, buf, p->src, p->dir || isdir);
			free(lex);
			if (rc < 0)
				return rc;
		}
		if (ws__gitdir_guards(g, afd, areal) < 0 ||
		    ws__config_guards(g, afd, areal) < 0)
			return -ENOMEM;
	}
	return 0;
}

/*
 * Whether name in dirfd (AT_FDCWD and an absolute name: a path) is a
 * directory git takes for a repository whatever its name, by git's own
 * test (is_git_directory()): HEAD, and refs or a commondir naming where
 * refs are.  A bare repository's configuration is read by any git run
 * inside it.  refs is taken as it is named, a link of any kind or a
 * dangling one included: git's access() follows the link, and a later
 * mkdir of a dangling link's target, which names neither HEAD nor refs,
 * would turn it into a repository (review18 01).  The guards ask by
 * path, the history (what a delete keeps whole) by descriptor.
 */
bool
ws__bare_at(int dirfd, const char *name)
{
	char p[PATH_MAX];
	struct stat st;

	if (snprintf(p, sizeof(p), "%s/HEAD", name) >= (int)sizeof(p) ||
	    fstatat(dirfd, p, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode))
		return false;
	snprintf(p, sizeof(p), "%s/refs", name);
	if (fstatat(dirfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return true;
	snprintf(p, sizeof(p), "%s/commondir", name);
	return fstatat(dirfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Whether dir lies strictly inside a tree a recursive delete or move is
 * asking about (ws->whole): it goes or moves as a whole. */
static bool
ws__in_whole(const struct ws_ctx *ws, const char *dir)
{
	for (int k = 0; k < 2; k++) {
		size_t wl = ws->whole[k] ? strlen(ws->whole[k]) : 0;

		if (wl > 0 && strlen(dir) > wl && strncmp(ws->whole[k], dir, wl) == 0 &&
		    (dir[wl] == '/' || wl == 1))
			return true;
	}
	return false;
}

/*
 * Whether real (below the anchor's areal) lies inside such a directory,
 * the anchor's top included, or would make its parent one: HEAD where
 * refs or commondir is, refs or commondir where HEAD is.  The rule for
 * ".git" at any depth, for repositories whatever their name; as there, a
 * repository strictly inside a tree that a recursive delete or move asks
 * about goes or moves whole.
 */
static bool
ws__in_bare_like(const struct ws_ctx *ws, const char *areal, const char *real)
{
	char dir[PATH_MAX], probe[PATH_MAX];
	const char *name = strrchr(real, '/');
	struct stat st;
	size_t al = strlen(areal);

	if (name == NULL || strlen(real) >= sizeof(dir))
		return false;
	memcpy(dir, real, (size_t)(name - real));
	dir[name - real] = '\0';
	name++;
	if (dir[0] == '\0')
		strcpy(dir, "/");
	if (ws__in_whole(ws, dir)) {
		/* Only the whole tree's own top and above are looked at. */
	} else if (strcmp(name, "HEAD") == 0) {
		if (snprintf(probe, sizeof(probe), "%s/refs", dir) < (int)sizeof(probe) &&
		    lstat(probe, &st) == 0)
			return true;
		if (snprintf(probe, sizeof(probe), "%s/commondir", dir) < (int)sizeof(probe) &&
		    lstat(probe, &st) == 0)
			return true;
	} else if (strcmp(name, "refs") == 0 || strcmp(name, "commondir") == 0) {
		if (snprintf(probe, sizeof(probe), "%s/HEAD", dir) < (int)sizeof(probe) &&
		    lstat(probe, &st) == 0 && !S_ISDIR(st.st_mode))
			return true;
	}
	/* The parent, and each directory above it up to the anchor's top. */
	for (;;) {
		char *sl;

		if (!ws__in_whole(ws, dir) && ws__bare_at(AT_FDCWD, dir))
			return true;
		if (strlen(dir) <= al)
			return false;
		if ((sl = strrchr(dir, '/')) == NULL)
			return false;
		if (sl == dir)
			sl[1] = '\0';
		else
			*sl = '\0';
		if (strlen(dir) < al)
			return false;
	}
}

bool
ws_guard_persist_match(struct ws_ctx *ws, const char *real, bool ancestors,
		       const char **pattern)
{
	struct ws_guards *g = ws__guards(ws);
	int isdir = -1;

	/* Out of memory fails closed. */
	if (g == NULL || ws__guards_resolve(ws, g) < 0) {
		if (pattern)
			*pattern = "(out of memory)";
		return true;
	}
	for (size_t a = 0; a < ws->nanchors; a++) {
		const char *rest;

		if (!ws_path_within(ws->anchors[a].real, real, &rest) ||
		    rest[0] == '\0')
			continue;
		for (size_t i = 0; i < g->n; i++) {
			int h = g->v[i].comp ? ws__comp_hit(ws, &g->v[i], real, rest)
					     : ws__pguard_hit(&g->v[i], rest, ancestors);

			/*
			 * Only a directory can hold a guard (isdir: 1 yes, 0
			 * no, -1 not looked at yet); a name that is not there
			 * yet may become one (a directory moved there).
			 */
			if (h == 2 && isdir < 0) {
				struct stat st;

				isdir = lstat(real, &st) != 0 || S_ISDIR(st.st_mode);
			}
			if (h == 1 || (h == 2 && isdir == 1)) {
				if (pattern)
					*pattern = g->v[i].src;
				return true;
			}
		}
		/* After the patterns, which name a .git more plainly. */
		if (ws__in_bare_like(ws, ws->anchors[a].real, real)) {
			if (pattern)
				*pattern = "a repository's own directory (HEAD with refs "
					   "or commondir)";
			return true;
		}
	}
	for (size_t i = 0; i < g->nr; i++) {
		const char *rest;

		if ((ws_path_within(g->r[i].real, real, &rest) &&
		     (rest[0] == '\0' || g->r[i].dir)) ||
		    (ancestors && ws_path_within(real, g->r[i].real, NULL))) {
			if (pattern)
				*pattern = g->r[i].src;
			return true;
		}
	}
	return false;
}

/* ---- The list, for wsrun ---- */

struct ws__list {
	struct ws_guarded *v;
	size_t n;
	size_t walked;
};

static int
ws__list_add(struct ws__list *l, const char *real, const char *what,
	     enum ws_guard_kind kind, bool dir)
{
	struct ws_guarded *v;

	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].real, real) == 0)
			return 0;
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (v == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	l->v = v;
	v[l->n].real = strdup(real);
	v[l->n].what = strdup(what);
	v[l->n].kind = kind;
	v[l->n].dir = dir;
	l->n++;
	if (v[l->n - 1].real == NULL || v[l->n - 1].what == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

/*
 * Walk the directory dfd (relative path rel below the anchor areal) for
 * entries a glob guard matches; never follows a symlink, and goes only
 * into directories that may hold a match.
 */
static int
ws__list_walk(struct ws__list *l, struct ws__pguard *p, int dfd,
	      const char *areal, const char *rel, int depth)
{
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (depth >= WS__GUARD_WALK_DEPTH)
		return 0;
	d = fdopendir(dfd);
	if (d == NULL) {
		close(dfd);
		return 0;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *r;
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++l->walked > WS__GUARD_WALK_MAX) {
			rc = ws_error_set(WS_ELIMIT_EXCEEDED, p->src,
					  "guarded: \"%s\" matches too many entries "
					  "to list", p->src);
			break;
		}
		r = rel[0] ? ws_path_join(rel, e->d_name) : strdup(e->d_name);
		if (r == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			break;
		}
		/*
		 * readdir's type says what lstat would (a link is a link):
		 * no system call per entry where the file system gives it.
		 */
		if (e->d_type != DT_UNKNOWN)
			st.st_mode = e->d_type == DT_DIR ? S_IFDIR : S_IFREG;
		if (e->d_type != DT_UNKNOWN ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (ws_glob_match(p->g, r, strlen(r)) > 0) {
				char *full = ws_path_join(areal, r);

				rc = full ? ws__list_add(l, full, p->src, WS_GUARD_PERSIST,
							 S_ISDIR(st.st_mode))
					  : ws_error_set(WS_ENOMEM, NULL, "out of memory");
				free(full);
			} else if (S_ISDIR(st.st_mode) && ws__pguard_hit(p, r, true) != 0) {
				int sub = openat(dirfd(d), e->d_name,
						 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
							 O_NONBLOCK | O_CLOEXEC);

				if (sub >= 0)
					rc = ws__list_walk(l, p, sub, areal, r, depth + 1);
			}
		}
		free(r);
	}
	closedir(d);
	return rc;
}

/*
 * The walk of a glob guard for one anchor, started below the pattern's
 * literal leading components (".git/modules" of ".git/modules/ ** /config"):
 * what the walk of the whole anchor finds, with one lookup a component
 * on the way instead of a read of each directory there (the workspace's
 * top, a thousand entries, read twice a wsrun call for the default
 * guards).  Each of those components is looked at as the walk looks at
 * an entry: a match is listed, a directory that may hold one is entered
 * (never through a link), anything else ends the walk; a name that is
 * not literal ("*", "\\x", "", ".", "..") ends the skipping.
 */
static int
ws__list_glob(struct ws__list *l, struct ws__pguard *p, const struct ws_anchor *an)
{
	char rel[PATH_MAX];
	size_t len = strlen(p->pat), start = 0, depth = 0;
	int dfd = an->fd, rc = 0; /* the anchor's own: not closed here */

	for (size_t i = 0; rc == 0 && i < len && len < sizeof(rel); i++) {
		struct stat st;
		size_t cl;
		int sub = -1;

		if (p->pat[i] != '/')
			continue;
		cl = i - start;
		if (cl == 0 || (cl == 1 && p->pat[start] == '.') ||
		    (cl == 2 && strncmp(p->pat + start, "..", 2) == 0) ||
		    memchr(p->pat + start, '*', cl) || memchr(p->pat + start, '?', cl) ||
		    memchr(p->pat + start, '[', cl) || memchr(p->pat + start, '\\', cl))
			break;
		memcpy(rel, p->pat, i);
		rel[i] = '\0';
		if (++l->walked > WS__GUARD_WALK_MAX)
			rc = ws_error_set(WS_ELIMIT_EXCEEDED, p->src, "guarded: \"%s\" "
					  "matches too many entries to list", p->src);
		else if (fstatat(dfd, rel + start, &st, AT_SYMLINK_NOFOLLOW) < 0)
			rc = 1;
		else if (ws_glob_match(p->g, rel, i) > 0) {
			char *full = ws_path_join(an->real, rel);

			rc = full ? ws__list_add(l, full, p->src, WS_GUARD_PERSIST,
						 S_ISDIR(st.st_mode))
				  : ws_error_set(WS_ENOMEM, NULL, "out of memory");
			rc = rc < 0 ? rc : 1;
		} else if (!S_ISDIR(st.st_mode) || ws__pguard_hit(p, rel, true) == 0 ||
			   ++depth >= WS__GUARD_WALK_DEPTH ||
			   (sub = openat(dfd, rel + start, O_PATH | O_DIRECTORY |
					 O_NOFOLLOW | O_CLOEXEC)) < 0) {
			rc = 1;
		}
		if (dfd != an->fd)
			close(dfd);
		dfd = sub;
		start = i + 1;
	}
	if (rc == 0) {
		/* The walk reads the directory: a descriptor of its own. */
		int rd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (start > 0)
			rel[start - 1] = '\0';
		if (rd >= 0)
			rc = ws__list_walk(l, p, rd, an->real, start > 0 ? rel : "",
					   (int)depth);
	}
	if (dfd >= 0 && dfd != an->fd)
		close(dfd);
	return rc < 0 ? rc : 0;
}

int
ws_guarded_list(struct ws_ctx *ws, struct ws_guarded **out, size_t *n)
{
	struct ws__list l = {0};
	struct ws_guards *g = ws__guards(ws);
	char buf[PATH_MAX];
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (g == NULL || ws__guards_resolve(ws, g) < 0)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	/* Resolve the own guards as a first check would. */
	(void)ws_ctx_guarded(ws, "/", false);
	for (size_t i = 0; i < ws->nguard && rc == 0; i++) {
		struct stat st;

		if (lstat(ws->guard[i], &st) == 0)
			rc = ws__list_add(&l, ws->guard[i], "wstools configuration",
					  WS_GUARD_OWN, S_ISDIR(st.st_mode));
	}
	for (size_t i = 0; i < ws->nentries && rc == 0; i++) {
		struct stat st;

		if (lstat(ws->entries[i], &st) == 0 && strcmp(ws->entries[i], "/") != 0)
			rc = ws__list_add(&l, ws->entries[i], "root or mount spelling",
					  WS_GUARD_ANCHOR, S_ISDIR(st.st_mode));
	}
	for (size_t a = 0; a < ws->nanchors && rc == 0; a++) {
		for (size_t i = 0; i < g->n && rc == 0; i++) {
			struct ws__pguard *p = &g->v[i];
			bool isdir = false;

			if (p->comp) {
				/* Any depth, and kept writable for wsrun: its
				 * clean-up after the command deals with these. */
				continue;
			} else if (p->literal) {
				char *lex;
				struct stat st;

				/*
				 * The entry itself, and where it leads; looked
				 * at from the anchor's descriptor.  An entry
				 * that is not there leads nowhere (the walk to
				 * it is the same one), so most guards, which
				 * are not there, cost one system call, not two
				 * (issue 20).
				 */
				if (fstatat(ws->anchors[a].fd, p->pat, &st,
					    AT_SYMLINK_NOFOLLOW) < 0)
					continue;
				lex = ws_path_join(ws->anchors[a].real, p->pat);
				rc = lex != NULL ? ws__list_add(&l, lex, p->src, WS_GUARD_PERSIST,
								S_ISDIR(st.st_mode))
						 : ws_error_set(WS_ENOMEM, NULL, "out of memory");
				free(lex);
				if (rc == 0 && ws__real_at(ws->anchors[a].fd, p->pat, buf,
							   sizeof(buf), &isdir))
					rc = ws__list_add(&l, buf, p->src, WS_GUARD_PERSIST,
							  isdir);
			} else {
				rc = ws__list_glob(&l, p, &ws->anchors[a]);
			}
		}
	}
	for (size_t i = 0; i < g->nr && rc == 0; i++)
		rc = ws__list_add(&l, g->r[i].real, g->r[i].src, WS_GUARD_PERSIST,
				  g->r[i].dir);
	if (rc < 0) {
		ws_guarded_free(l.v, l.n);
		return rc;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

void
ws_guarded_free(struct ws_guarded *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].real);
		free(v[i].what);
	}
	free(v);
}
