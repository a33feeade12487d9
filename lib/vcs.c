/* vcs.c - what a command leaves in repositories, made safe after it. */
#include "ws/vcs.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/history.h"
#include "ws/path.h"
#include "ws/pending.h"
#include "ws/persist.h"
#include "ws/policy.h"
#include "ws/sha256.h"
#include "ws/walk.h"

/*
 * The walks of the workspace before and after the command have no bound
 * on entries (review12 04): one before the command that stopped would
 * leave the user's repositories past it unrecorded, and the walk after
 * could then neither skip them (a command hides its plants there) nor
 * tell them from the command's (a directory it renames carries files of
 * any age); readdir's type makes an ordinary file cost no system call.
 * ws_vcs_set_walk_max() sets one for the tests only, past which what
 * was not recorded is taken for the command's.  How deep it goes: a path
 * below an anchor longer than PATH_MAX is one that no program on the host
 * can name from the workspace (every system call refuses it), so git
 * never uses a repository there; short of it the walk goes, about 2,048
 * directories at most, holding a descriptor each.
 */
static size_t ws__vcs_walk_max = SIZE_MAX;
#define WS__VCS_PATH_MAX WS_VCS_PATH_MAX
#define WS__VCS_DEPTH WS_VCS_DEPTH
/* Content kept to restore a watched file: each, and all together. */
#define WS__VCS_FILE_MAX (1 << 20)
#define WS__VCS_BUDGET (32 << 20)
/* A configuration larger than this is not read: it is replaced. */
#define WS__VCS_CONFIG_MAX (4 << 20)

/* ---- git configuration ------------------------------------------------ */

/*
 * Keys that name no program, no other file and no other directory: what
 * git init, clone, remote, branch, submodule and config user.* write.
 * "*" stands for any subsection; a missing one means none.
 */
static const char *const ws__git_allowed[] = {
	"core.repositoryformatversion", "core.filemode", "core.bare",
	"core.logallrefupdates", "core.ignorecase", "core.precomposeunicode",
	"core.symlinks", "core.autocrlf", "core.eol", "core.safecrlf",
	"core.quotepath", "core.sparsecheckout", "core.sparsecheckoutcone",
	"core.abbrev", "core.compression",
	"extensions.objectformat", "extensions.refstorage",
	"extensions.partialclone",
	/* config.worktree is cleaned by the same list (sparse-checkout). */
	"extensions.worktreeconfig",
	"remote.*.url", "remote.*.pushurl", "remote.*.fetch", "remote.*.push",
	"remote.*.tagopt", "remote.*.prune", "remote.*.mirror",
	"remote.*.promisor", "remote.*.partialclonefilter",
	"remote.*.skipdefaultupdate", "remote.*.skipfetchall",
	"branch.*.remote", "branch.*.merge", "branch.*.rebase",
	"branch.*.pushremote", "branch.*.description",
	"submodule.*.url", "submodule.*.active", "submodule.*.branch",
	"submodule.*.shallow",
	"user.name", "user.email", "init.defaultbranch",
	"pull.rebase", "pull.ff", "push.default", "fetch.prune", "merge.ff",
	"rebase.autosquash", "rebase.autostash", "lfs.repositoryformatversion",
};

bool
ws_gitconfig_allowed(const char *key)
{
	const char *dot = strchr(key, '.'), *last = strrchr(key, '.');

	if (dot == NULL || dot == key || last[1] == '\0')
		return false;
	for (size_t i = 0; i < sizeof(ws__git_allowed) / sizeof(*ws__git_allowed); i++) {
		const char *a = ws__git_allowed[i];
		const char *adot = strchr(a, '.'), *alast = strrchr(a, '.');
		size_t sl = (size_t)(dot - key);

		if ((size_t)(adot - a) != sl || strncmp(a, key, sl) != 0 ||
		    strcmp(alast + 1, last + 1) != 0)
			continue;
		/* The subsection: "*" any (not none), else none. */
		if (adot == alast ? dot == last : dot != last)
			return true;
	}
	return false;
}

/* One entry of a configuration, as git reads it. */
struct ws__gent {
	char *key;   /* section[.sub].name, section and name lower case */
	char *value; /* NULL: a name alone (true) */
	size_t sect; /* length of section[.sub] in key */
};

struct ws__gcfg {
	struct ws__gent *v;
	size_t n;
	bool error; /* parsing stopped at something git would refuse */
};

static void
ws__gcfg_free(struct ws__gcfg *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].key);
		free(c->v[i].value);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* A growable buffer. */
struct ws__buf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void
ws__bput(struct ws__buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 64;
		char *np;

		while (nc < b->len + n + 1)
			nc *= 2;
		if ((np = realloc(b->p, nc)) == NULL) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
ws__bc(struct ws__buf *b, char c)
{
	ws__bput(b, &c, 1);
}

/* Reading a configuration the way git's config.c does. */
struct ws__gsrc {
	const unsigned char *s;
	size_t len, off;
	bool eof;
};

/* The next character; "\r\n" is one "\n"; the end reads as "\n". */
static int
ws__gnext(struct ws__gsrc *g)
{
	int c;

	if (g->off >= g->len) {
		g->eof = true;
		return '\n';
	}
	c = g->s[g->off++];
	if (c == '\r' && g->off < g->len && g->s[g->off] == '\n')
		c = g->s[g->off++];
	return c;
}

static bool
ws__iskey(int c)
{
	return isalnum(c) || c == '-';
}

/* The value after "=", as git's parse_value(); false if git refuses it. */
static bool
ws__gvalue(struct ws__gsrc *g, struct ws__buf *v)
{
	bool quote = false, comment = false;
	size_t space = 0;

	for (;;) {
		int c = ws__gnext(g);

		if (c == '\n') {
			if (quote)
				return false;
			return true;
		}
		if (c == '\0')
			return false;
		if (comment)
			continue;
		if (isspace(c) && !quote) {
			if (v->len)
				space++;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		for (; space; space--)
			ws__bc(v, ' ');
		if (c == '\\') {
			c = ws__gnext(g);
			switch (c) {
			case '\n':
				if (g->eof)
					return false;
				continue;
			case 't': c = '\t'; break;
			case 'b': c = '\b'; break;
			case 'n': c = '\n'; break;
			case '\\': case '"': break;
			default: return false;
			}
			ws__bc(v, (char)c);
			continue;
		}
		if (c == '"') {
			quote = !quote;
			continue;
		}
		ws__bc(v, (char)c);
	}
}

/* Parse text into c; stops (c->error) where git would refuse the file. */
static int
ws__gparse(const char *text, size_t len, struct ws__gcfg *c)
{
	struct ws__gsrc g = {(const unsigned char *)text, len, 0, false};
	struct ws__buf base = {0}, name = {0}, val = {0};
	bool comment = false, have_base = false;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		g.off = 3;
	for (;;) {
		int ch = ws__gnext(&g);

		if (g.eof)
			break;
		if (ch == '\n') {
			comment = false;
			continue;
		}
		if (comment || isspace(ch))
			continue;
		if (ch == '#' || ch == ';') {
			comment = true;
			continue;
		}
		if (ch == '[') {
			base.len = 0;
			ws__bput(&base, "", 0);
			for (;;) {
				ch = ws__gnext(&g);
				if (g.eof || ch == ']' || isspace(ch) ||
				    (!ws__iskey(ch) && ch != '.'))
					break;
				ws__bc(&base, (char)tolower(ch));
			}
			if (!g.eof && isspace(ch)) {
				/* [section "sub"] */
				while (ch != '\n' && isspace(ch))
					ch = ws__gnext(&g);
				if (ch != '"')
					goto bad;
				ws__bc(&base, '.');
				for (;;) {
					ch = ws__gnext(&g);
					if (ch == '\n' || ch == '\0')
						goto bad;
					if (ch == '"')
						break;
					if (ch == '\\' && ((ch = ws__gnext(&g)) == '\n' ||
							   ch == '\0'))
						goto bad;
					ws__bc(&base, (char)ch);
				}
				ch = ws__gnext(&g);
			}
			if (g.eof || ch != ']' || base.len == 0)
				goto bad;
			have_base = true;
			continue;
		}
		if (!isalpha(ch) || !have_base)
			goto bad;
		name.len = 0;
		ws__bc(&name, (char)tolower(ch));
		for (;;) {
			ch = ws__gnext(&g);
			if (g.eof || !ws__iskey(ch))
				break;
			ws__bc(&name, (char)tolower(ch));
		}
		while (ch == ' ' || ch == '\t')
			ch = ws__gnext(&g);
		val.len = 0;
		ws__bput(&val, "", 0);
		if (ch != '\n' && (ch != '=' || !ws__gvalue(&g, &val)))
			goto bad;
		if (base.oom || name.oom || val.oom) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			goto out;
		}
		{
			struct ws__gent *nv = realloc(c->v, (c->n + 1) * sizeof(*nv));
			char *key = NULL;

			if (nv == NULL || asprintf(&key, "%s.%s", base.p, name.p) < 0) {
				if (nv != NULL)
					c->v = nv;
				rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
				goto out;
			}
			c->v = nv;
			nv[c->n].key = key;
			nv[c->n].sect = base.len;
			nv[c->n].value = ch == '\n' ? NULL : strdup(val.p);
			c->n++;
			if (ch != '\n' && nv[c->n - 1].value == NULL) {
				rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
				goto out;
			}
		}
	}
	goto out;
bad:
	c->error = true;
out:
	free(base.p);
	free(name.p);
	free(val.p);
	if (rc < 0)
		ws__gcfg_free(c);
	return rc;
}

/* A value written so that git reads exactly it (quoted if need be). */
static void
ws__gquote(struct ws__buf *b, const char *v)
{
	size_t n = strlen(v);
	bool q = n == 0 || isspace((unsigned char)v[0]) ||
		 isspace((unsigned char)v[n - 1]) || strpbrk(v, "#;") != NULL;

	for (const char *c = v; *c && !q; c++)
		q = (unsigned char)*c < 0x20 || *c == 0x7f;
	if (!q) {
		for (; *v; v++) {
			if (*v == '\\' || *v == '"')
				ws__bc(b, '\\');
			ws__bc(b, *v);
		}
		return;
	}
	ws__bc(b, '"');
	for (; *v; v++) {
		switch (*v) {
		case '\\': ws__bput(b, "\\\\", 2); break;
		case '"': ws__bput(b, "\\\"", 2); break;
		case '\n': ws__bput(b, "\\n", 2); break;
		case '\t': ws__bput(b, "\\t", 2); break;
		case '\b': ws__bput(b, "\\b", 2); break;
		default: ws__bc(b, *v); break;
		}
	}
	ws__bc(b, '"');
}

static bool
ws__gsame(const struct ws__gent *a, const struct ws__gent *b)
{
	return strcmp(a->key, b->key) == 0 &&
	       (a->value == NULL ? b->value == NULL
				 : b->value != NULL && strcmp(a->value, b->value) == 0);
}

/* Whether the configuration c holds a remote named name (n bytes). */
static bool
ws__gremote_in(const struct ws__gcfg *c, const char *name, size_t n)
{
	for (size_t k = 0; k < c->n; k++)
		if (c->v[k].sect == 7 + n && strncmp(c->v[k].key, "remote.", 7) == 0 &&
		    memcmp(c->v[k].key + 7, name, n) == 0)
			return true;
	return false;
}

/*
 * Whether the entry e is one that chooses where git connects and must be
 * as it was (was) after a command without network: the URLs of a remote
 * that existed before, the partial-clone keys (with which even git diff
 * or checkout fetch), and, in a configuration there was (had), a
 * branch's remote, pushremote or remote.pushdefault naming a remote (or a
 * URL) that did not exist.  In a repository the command made every
 * remote is its own and stays, and so do the routes to them.
 */
static bool
ws__gpinned(const struct ws__gent *e, const struct ws__gcfg *was, bool had)
{
	const char *k = e->key, *name = e->key + e->sect + 1;
	bool route;

	if (strcmp(k, "extensions.partialclone") == 0)
		return true;
	if (strncmp(k, "remote.", 7) == 0 && e->sect > 7) {
		if (strcmp(name, "promisor") == 0 ||
		    strcmp(name, "partialclonefilter") == 0)
			return true;
		if (strcmp(name, "url") == 0 || strcmp(name, "pushurl") == 0)
			return ws__gremote_in(was, k + 7, e->sect - 7);
		return false;
	}
	route = strcmp(k, "remote.pushdefault") == 0 ||
		(strncmp(k, "branch.", 7) == 0 && e->sect > 7 &&
		 (strcmp(name, "remote") == 0 || strcmp(name, "pushremote") == 0));
	if (!route || !had)
		return false;
	/* "." is the repository itself. */
	if (e->value != NULL && strcmp(e->value, ".") == 0)
		return false;
	return e->value == NULL || !ws__gremote_in(was, e->value, strlen(e->value));
}

/* Whether a and b hold the same entries of key, in the same order. */
static bool
ws__gseq_same(const struct ws__gcfg *a, const struct ws__gcfg *b, const char *key)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < a->n && strcmp(a->v[i].key, key) != 0)
			i++;
		while (j < b->n && strcmp(b->v[j].key, key) != 0)
			j++;
		if (i == a->n || j == b->n)
			return i == a->n && j == b->n;
		if (!ws__gsame(&a->v[i], &b->v[j]))
			return false;
		i++;
		j++;
	}
}

/* Write the entry e to o, under a new section header if need be. */
static void
ws__gemit(struct ws__buf *o, const struct ws__gent *e, const char **lastsect,
	  size_t *lastlen)
{
	if (*lastsect == NULL || *lastlen != e->sect ||
	    strncmp(*lastsect, e->key, e->sect) != 0) {
		const char *dot = memchr(e->key, '.', e->sect);

		ws__bc(o, '[');
		if (dot == NULL) {
			ws__bput(o, e->key, e->sect);
		} else {
			char *sub = strndup(dot + 1, e->sect - (size_t)(dot - e->key) - 1);

			ws__bput(o, e->key, (size_t)(dot - e->key));
			ws__bc(o, ' ');
			/* Always quoted: only '"' and '\\' are escaped. */
			ws__bc(o, '"');
			for (const char *c = sub; c != NULL && *c; c++) {
				if (*c == '"' || *c == '\\')
					ws__bc(o, '\\');
				ws__bc(o, *c);
			}
			ws__bc(o, '"');
			if (sub == NULL)
				o->oom = true;
			free(sub);
		}
		ws__bput(o, "]\n", 2);
		*lastsect = e->key;
		*lastlen = e->sect;
	}
	ws__bc(o, '\t');
	ws__bput(o, e->key + e->sect + 1, strlen(e->key + e->sect + 1));
	if (e->value != NULL) {
		ws__bput(o, " = ", 3);
		ws__gquote(o, e->value);
	}
	ws__bc(o, '\n');
}

/* A key appended to a ", " separated list. */
static void
ws__glist(struct ws__buf *b, const char *key)
{
	if (b->len)
		ws__bput(b, ", ", 2);
	ws__bput(b, key, strlen(key));
}

static int
ws__gfilter(const char *text, size_t len, const char *old, size_t oldlen,
	    unsigned flags,
	    bool (*ok)(const char *key, const char *value, void *arg),
	    void *arg, char **out, char **removed, char **restored)
{
	struct ws__gcfg now, was = {0};
	struct ws__buf o = {0}, rm = {0}, rs = {0};
	const char *lastsect = NULL;
	size_t lastlen = 0;
	bool dropped = false;
	/* Per entry of now: 1 its key is pinned and changed, 2 the first. */
	unsigned char *pin = NULL;
	int rc;

	*out = NULL;
	*removed = NULL;
	if (restored != NULL)
		*restored = NULL;
	if ((rc = ws__gparse(text, len, &now)) < 0)
		return rc;
	if (old != NULL && (rc = ws__gparse(old, oldlen, &was)) < 0) {
		ws__gcfg_free(&now);
		return rc;
	}
	if ((flags & WS_GITCFG_PIN_ROUTES) && now.n > 0) {
		if ((pin = calloc(now.n, 1)) == NULL) {
			ws__gcfg_free(&now);
			ws__gcfg_free(&was);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		for (size_t i = 0; i < now.n; i++) {
			if (pin[i] || !ws__gpinned(&now.v[i], &was, old != NULL))
				continue;
			/* A key some entry of which is pinned: all of it,
			 * or none when it is as it was. */
			size_t first = i;

			for (size_t k = 0; k < i && first == i; k++)
				if (strcmp(now.v[k].key, now.v[i].key) == 0)
					first = k;
			if (pin[first] || ws__gseq_same(&now, &was, now.v[i].key))
				continue;
			for (size_t k = first; k < now.n; k++)
				if (strcmp(now.v[k].key, now.v[i].key) == 0)
					pin[k] = 1;
			pin[first] = 2;
		}
	}
	for (size_t i = 0; i < now.n; i++) {
		struct ws__gent *e = &now.v[i];
		bool keep;

		if (pin != NULL && pin[i]) {
			/* What it was, in place of the first; else gone. */
			bool any = false;

			dropped = true;
			if (pin[i] != 2)
				continue;
			for (size_t k = 0; k < was.n; k++)
				if (strcmp(was.v[k].key, e->key) == 0) {
					ws__gemit(&o, &was.v[k], &lastsect, &lastlen);
					any = true;
				}
			ws__glist(any ? &rs : &rm, e->key);
			continue;
		}
		keep = ws_gitconfig_allowed(e->key) ||
		       (ok != NULL && ok(e->key, e->value, arg));
		for (size_t k = 0; !keep && k < was.n; k++)
			keep = ws__gsame(e, &was.v[k]);
		if (!keep) {
			dropped = true;
			/* Each key named once. */
			bool seen = false;

			for (size_t k = 0; k < i && !seen; k++)
				seen = strcmp(now.v[k].key, e->key) == 0;
			if (!seen)
				ws__glist(&rm, e->key);
			continue;
		}
		ws__gemit(&o, e, &lastsect, &lastlen);
	}
	if (now.error) {
		dropped = true;
		ws__glist(&rm, "(the rest: git could not read it)");
	}
	free(pin);
	/* Without a place for them, the restored keys are named as removed. */
	if (restored == NULL && rs.len)
		ws__glist(&rm, rs.p);
	/* Last: the emitted entries may point into was. */
	if (o.oom || rm.oom || rs.oom) {
		ws__gcfg_free(&now);
		ws__gcfg_free(&was);
		free(o.p);
		free(rm.p);
		free(rs.p);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	ws__gcfg_free(&now);
	ws__gcfg_free(&was);
	if (!dropped) {
		free(o.p);
		free(rm.p);
		free(rs.p);
		return 0;
	}
	if (o.p == NULL && (o.p = strdup("")) == NULL) {
		free(rm.p);
		free(rs.p);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	*out = o.p;
	*removed = rm.p;
	if (restored != NULL)
		*restored = rs.p;
	else
		free(rs.p);
	return 0;
}

int
ws_gitconfig_filter(const char *text, size_t len, const char *old,
		    size_t oldlen,
		    bool (*ok)(const char *key, const char *value, void *arg),
		    void *arg, char **out, char **removed)
{
	return ws__gfilter(text, len, old, oldlen, 0, ok, arg, out, removed, NULL);
}

int
ws_gitconfig_clean(const char *text, size_t len, const char *old, size_t oldlen,
		   unsigned flags, char **out, char **removed, char **restored)
{
	return ws__gfilter(text, len, old, oldlen, flags, NULL, NULL, out, removed,
			   restored);
}

/* ---- The walk ----------------------------------------------------------- */

/* A watched file as it was before the command. */
struct ws__vfile {
	char *real; /* its real path (anchor's real + rel), the key */
	struct stat st;
	char *data; /* content (regular file) or link target; NULL: not kept */
	size_t len;
};

struct ws_vcs_snap {
	struct ws__vfile *v;
	size_t n;
	size_t bytes;
	/* The git dirs found, (anchor, rel): cleaned first after the
	 * command, whatever the walk's bound leaves out. */
	struct { int a; char *rel; } *gd;
	size_t ngd;
	bool over; /* the walk before the command stopped at its bound */
	/* The first directory past the walk's reach (WS__VCS_PATH_MAX,
	 * WS__VCS_DEPTH) before the command, its path's head; NULL: none. */
	char *deep_rel;
	/* A state directory the command's view does not mask (another
	 * XDG_STATE_HOME's, known by WS_STATE_MARK); NULL: none. */
	char *state_rel;
	int state_a;
	/* The person's directories the walk could not read before the
	 * command, and their modes, put back after the walk after it. */
	struct ws__unr { dev_t dev; ino_t ino; mode_t mode; } *unr;
	size_t nunr;
	/* When the walk before the command began (CLOCK_REALTIME_COARSE,
	 * the clock of ctime): what changed since is the command's or
	 * the person's meanwhile (ws__denied_link()). */
	struct timespec t0;
	/* Bound read-only in the command's namespace (ws_vcs_snap_hold()). */
	struct ws_vcs_id *held;
	size_t nheld;
	/* The symbolic links at names the policy refuses to read that were
	 * there before the command (the person's, ws__denied_link()). */
	struct ws_vcs_id *plinks;
	size_t nplinks;
	/* The directories the walk before the command read, or found
	 * unchanged (ws__walk_unchanged()): the walk after trusts them, and
	 * the next run's walk before (saved in the state directory by
	 * ws__recs_save(); not in ws_vcs_snap_save()). */
	struct ws__recs {
		struct ws__drec *dr;
		size_t ndr, cdr;
		char *drn; /* the names, each ended by a NUL */
		size_t ndrn, cdrn;
		size_t *drix; /* dr's indices by (dev, ino) */
		/* The SHA-256 its file ended with (ws__recs_load()). */
		unsigned char sum[WS_SHA256_LEN];
		bool summed;
	} rec;
};

/*
 * A directory as the walk before the command read it: its identity and
 * ctime (taken before its entries were read), its name (an offset in
 * the snapshot's drn), its first subdirectory and next sibling that the
 * walk entered (indices in dr; SIZE_MAX: none), its path's length and
 * depth below the anchor, and whether the walk after may take its
 * entries as they were (ws__drec_plain()).
 */
struct ws__drec {
	dev_t dev;
	ino_t ino;
	struct timespec ctim;
	size_t name, child, next, rlen;
	int depth;
	bool plain;
};

static void
ws__recs_free(struct ws__recs *o)
{
	free(o->dr);
	free(o->drn);
	free(o->drix);
	memset(o, 0, sizeof(*o));
}

void
ws_vcs_snap_free(struct ws_vcs_snap *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].real);
		free(s->v[i].data);
	}
	free(s->v);
	for (size_t i = 0; i < s->ngd; i++)
		free(s->gd[i].rel);
	free(s->gd);
	free(s->unr);
	free(s->held);
	free(s->plinks);
	free(s->deep_rel);
	free(s->state_rel);
	ws__recs_free(&s->rec);
	free(s);
}

enum ws__kind {
	WS__W_CONFIG,	 /* a git configuration: filtered */
	WS__W_PLAIN,	 /* as it was, or removed */
	WS__W_HOOK,	 /* as it was, a new "*.sample" file stays */
	WS__W_COMMONDIR, /* a worktree's: "../.." stays */
	WS__W_GITFILE,	 /* ".git" file: one naming a dir inside stays */
};

/* One pass: snapshot (s being filled) or clean (against s). */
struct ws__pass {
	struct ws_ctx *ws;
	struct ws_vcs_snap *s;	     /* snapshot pass */
	const struct ws_vcs_snap *was; /* clean pass */
	bool clean;
	size_t walked;
	bool over;
	bool deep; /* a directory past WS__VCS_PATH_MAX was not entered */
	/* Levels the walk enters: WS__VCS_DEPTH, or fewer where the hard
	 * limit on descriptors would run out first (review23 11). */
	size_t max_depth;
	bool nofd; /* a directory could not be opened: out of descriptors */
	/* Directories the command made unreadable, made readable again
	 * (the clean pass), and the first one not read (ws__open_walk()). */
	size_t chmodded;
	char *unread;
	size_t limit; /* entries walked at most */
	bool net; /* the command had every host: remotes' routes not pinned */
	char ***items;
	size_t *nitems;
	/* Where what is left as it is goes (ws__keep()): items, or apart. */
	char ***kept;
	size_t *nkept;
	/* Git dirs done (dev, ino): a ".git" file may name one again. */
	struct { dev_t dev; ino_t ino; } *done;
	size_t ndone;
	/* Read-only anchors, which the walk does not enter. */
	struct stat *ro;
	size_t nro;
	/* The state directories the command's view masks (this call's,
	 * each home's): a mark in another refuses the run. */
	struct stat known[3];
	size_t nknown;
	/* The clean pass looks for links at names the policy refuses to
	 * read (ws__denied_link()): there is a policy and a start time. */
	bool links;
	/* A writable anchor's top the walk could not open (ws__open_top()):
	 * its error (0: none) and the anchor. */
	int top_err;
	size_t top_a;
	/* The person's directories, noted before the command, whose mode
	 * goes back when the pass ends (ws__open_walk2() without restore):
	 * a descriptor of each and the mode. */
	struct { int fd; mode_t mode; } *later;
	size_t nlater;
	/* The file system of the last directory recorded (ws__drec_fs()). */
	dev_t fs_dev;
	bool fs_known, fs_ok, fs_crypt;
	/* Records this walk trusts (an earlier walk's), and where it makes
	 * its own (the walk before: its snapshot's); NULL: none. */
	const struct ws__recs *in;
	struct ws__recs *out;
	/* The second the walk before this command began (its t0). */
	time_t t0s;
};

static void
ws__item(struct ws__pass *p, int a, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
ws__item(struct ws__pass *p, int a, const char *rel, const char *fmt, ...)
{
	char *vp = NULL, *what = NULL, *s = NULL, **nv;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		what = NULL;
	va_end(ap);
	if (a < 0 || ws_ctx_virtual_of(p->ws, a, rel, &vp) < 0)
		vp = NULL;
	if (what != NULL && asprintf(&s, "%s%s%s", vp ? vp : "",
				     vp ? ": " : "", what) < 0)
		s = NULL;
	free(vp);
	free(what);
	if (s == NULL)
		return;
	if ((nv = realloc(*p->items, (*p->nitems + 1) * sizeof(*nv))) == NULL) {
		free(s);
		return;
	}
	*p->items = nv;
	nv[(*p->nitems)++] = s;
}

/*
 * chmod the file fd refers to (an O_PATH descriptor too), never by a
 * name: a name is looked up again, and a command can swap a symlink in
 * between (review26 03).  fchmodat2(2) with AT_EMPTY_PATH where the
 * kernel has it (Linux 6.6), else the descriptor's /proc/self/fd link,
 * which leads to what is open and follows nothing further.
 */
int
ws__fd_chmod(int fd, mode_t mode)
{
	char l[64];

	if (fchmod(fd, mode) == 0)
		return 0;
#ifdef SYS_fchmodat2
	if (syscall(SYS_fchmodat2, fd, "", mode, AT_EMPTY_PATH) == 0)
		return 0;
#else
	if (syscall(452, fd, "", mode, AT_EMPTY_PATH) == 0)
		return 0;
#endif
	snprintf(l, sizeof(l), "/proc/self/fd/%d", fd);
	return chmod(l, mode);
}

/*
 * The directory name in dfd, opened O_PATH without following a link, its
 * stat in *st: -1 where it is not a directory (a link swapped in).
 */
static int
ws__dir_path_fd(int dfd, const char *name, struct stat *st)
{
	int fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, st) < 0 || !S_ISDIR(st->st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Whether the walk before the command noted the directory st as one it
 * could not read (struct ws_vcs_snap's unr), and its mode then in *mode.
 */
static bool
ws__unr_noted(const struct ws__pass *p, const struct stat *st, mode_t *mode)
{
	for (size_t i = 0; p->was != NULL && i < p->was->nunr; i++)
		if (p->was->unr[i].dev == st->st_dev && p->was->unr[i].ino == st->st_ino) {
			*mode = p->was->unr[i].mode;
			return true;
		}
	return false;
}

/*
 * The person's mode back on a directory noted before the command (fd),
 * once the pass ends: a descriptor opened from it is used for a while
 * yet (a git dir's files are looked up in it), and with its mode back at
 * once a directory noted as 0600 or 0000 was walked blind.  At once where
 * no descriptor is left to keep.
 */
static void
ws__mode_later(struct ws__pass *p, int fd, mode_t mode)
{
	void *nl = realloc(p->later, (p->nlater + 1) * sizeof(*p->later));
	int keep = nl != NULL ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1;

	if (nl != NULL)
		p->later = nl;
	if (keep < 0) {
		(void)ws__fd_chmod(fd, mode);
		return;
	}
	p->later[p->nlater].fd = keep;
	p->later[p->nlater].mode = mode;
	p->nlater++;
}

/*
 * openat(dfd, name, flags) for the walks, where a directory may not be
 * read.  A command can chmod a directory it owns (the person's uid) to
 * 0311 after planting a repository or an .envrc in it: search and write
 * stay, git still works through it, and a walk that skipped it left
 * what it holds (review25 01); or chmod 555 the directory a removal
 * must write in (review25 02).  So where the person owns one:
 *   - before the command it is noted with its mode (p->s->unr) and not
 *     read (a directory the policy's view masks whole, review16 05,
 *     stays unreadable while the view is built beside this walk);
 *   - after it, the owner's rwx bits are put on it and it is read: one
 *     noted before gets its mode back once walked (*restore, or at once
 *     where restore is NULL; what it holds was not seen before, so it is
 *     taken for the command's), one that was not keeps the bits (the
 *     command made it so: counted, and said).
 * Another's directory that the person may not write and search holds
 * nothing a command planted; one the person may is said (p->unread).
 */
static int
ws__open_walk2(struct ws__pass *p, int dfd, const char *name, int flags,
	       mode_t *restore)
{
	struct stat st;
	int fd = openat(dfd, name, flags);
	bool noted = false;
	mode_t mode = 0;

	if (restore != NULL)
		*restore = 0;
	/*
	 * Read but not searched (0600): it opens, and then nothing in it
	 * can be looked at, so what a command planted there stayed unseen
	 * (review26 04).  Taken as one that cannot be read.
	 */
	if (fd >= 0 && p != NULL && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_mode & S_IXUSR) == 0 && st.st_uid == geteuid()) {
		if (p->clean && ws__fd_chmod(fd, (st.st_mode & 07777) | S_IRWXU) == 0) {
			noted = ws__unr_noted(p, &st, &mode);
			if (!noted)
				p->chmodded++;
			else if (restore != NULL)
				*restore = mode | S_IFDIR;
			else
				ws__mode_later(p, fd, mode);
			return fd;
		}
		close(fd);
		fd = -1;
		errno = EACCES;
	}
	if (fd >= 0 || errno != EACCES || p == NULL)
		return fd;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode)) {
		errno = EACCES;
		return -1;
	}
	if (st.st_uid == geteuid() && !p->clean) {
		struct ws__unr *nu = p->s == NULL ? NULL :
				     realloc(p->s->unr, (p->s->nunr + 1) * sizeof(*nu));

		if (nu != NULL) {
			p->s->unr = nu;
			nu[p->s->nunr++] = (struct ws__unr){st.st_dev, st.st_ino,
							    st.st_mode & 07777};
		}
		errno = EACCES;
		return -1;
	}
	if (st.st_uid == geteuid()) {
		/* The decision and the chmod on one descriptor: a link
		 * swapped in for the name is never followed (review26 03). */
		struct stat pst;
		int pfd = ws__dir_path_fd(dfd, name, &pst);

		if (pfd >= 0 && (pst.st_dev != st.st_dev || pst.st_ino != st.st_ino ||
				 pst.st_uid != geteuid() ||
				 ws__fd_chmod(pfd, (pst.st_mode & 07777) | S_IRWXU) < 0)) {
			close(pfd);
			pfd = -1;
		}
		if (pfd >= 0) {
			noted = ws__unr_noted(p, &st, &mode);
			if (!noted)
				p->chmodded++;
			fd = openat(pfd, ".", flags & ~(O_NOFOLLOW | O_NONBLOCK));
			if (noted && restore != NULL && fd >= 0)
				*restore = mode | S_IFDIR;
			else if (noted && fd >= 0)
				ws__mode_later(p, pfd, mode);
			else if (noted)
				(void)ws__fd_chmod(pfd, mode);
			close(pfd);
			return fd;
		}
	}
	if (p->unread == NULL &&
	    (st.st_uid == geteuid() ||
	     faccessat(dfd, name, W_OK | X_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW) == 0)) {
		char l[64], r[PATH_MAX];
		ssize_t n;

		snprintf(l, sizeof(l), "/proc/self/fd/%d", dfd);
		n = readlink(l, r, sizeof(r) - 1);
		r[n > 0 ? n : 0] = '\0';
		if (asprintf(&p->unread, "%s/%s", r, name) < 0)
			p->unread = NULL;
	}
	errno = EACCES;
	return -1;
}

static int
ws__open_walk(struct ws__pass *p, int dfd, const char *name, int flags)
{
	return ws__open_walk2(p, dfd, name, flags, NULL);
}

/*
 * A descriptor of rel below dfd, following no link and never leaving
 * dfd; without openat2 (an old kernel, valgrind), one component at a
 * time with O_NOFOLLOW, which is as strict.  A directory on the way
 * that cannot be read or searched is ws__open_walk()'s, with p.
 */
static int
ws__open_below_p(struct ws__pass *p, int dfd, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC | O_NOFOLLOW),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	const char *c = rel;
	int fd, cur;

	fd = (int)syscall(SYS_openat2, dfd, rel, &how, sizeof(how));
	/*
	 * A directory of the person's that opens but cannot be searched
	 * (0600, as ws__open_walk2() takes one): nothing in it can be
	 * looked at, so a git dir, its hooks/ or a .hg the command left so
	 * kept what it planted, unsaid (review28 05).  It goes the way
	 * below, whose last step (ws__open_walk()) gives the owner's rwx
	 * bits back after the command and takes it for unreadable before
	 * it.  One fstat() per git dir opened, not per entry.
	 */
	if (fd >= 0 && p != NULL && (flags & O_DIRECTORY) != 0) {
		struct stat st;

		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
		    (st.st_mode & S_IXUSR) == 0) {
			close(fd);
			fd = -1;
			errno = EACCES;
		}
	}
	/*
	 * A path past PATH_MAX (a deep walk) goes component by component,
	 * and so does one across a mount point inside the anchor, which the
	 * walk enters (a repository there is cleaned like any other).
	 */
	if (fd >= 0 || (errno != ENOSYS && errno != ENAMETOOLONG && errno != EXDEV &&
			(errno != EACCES || p == NULL)))
		return fd;
	cur = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	while (cur >= 0) {
		size_t n = strcspn(c, "/");
		char name[256];
		bool last;
		int nfd;

		if (n == 0 || n >= sizeof(name)) {
			close(cur);
			errno = ENOENT;
			return -1;
		}
		memcpy(name, c, n);
		name[n] = '\0';
		c += n;
		while (*c == '/')
			c++;
		last = *c == '\0';
		if (strcmp(name, "..") == 0) {
			close(cur);
			errno = EXDEV;
			return -1;
		}
		nfd = ws__open_walk(p, cur, name, (last ? flags : O_RDONLY | O_DIRECTORY) |
						  O_NOFOLLOW | O_CLOEXEC);
		close(cur);
		cur = nfd;
		if (last)
			break;
	}
	return cur;
}

/* Read a regular file (fd) whole, up to max bytes; -1 if larger. */
static int
ws__slurp(int fd, size_t max, char **out, size_t *len)
{
	struct ws__buf b = {0};
	char tmp[8192];
	ssize_t r;

	*out = NULL;
	*len = 0;
	while ((r = read(fd, tmp, sizeof(tmp))) > 0) {
		if (b.len + (size_t)r > max) {
			free(b.p);
			return -1;
		}
		ws__bput(&b, tmp, (size_t)r);
	}
	if (r < 0 || b.oom) {
		free(b.p);
		return -1;
	}
	if (b.p == NULL && (b.p = strdup("")) == NULL)
		return -1;
	*out = b.p;
	*len = b.len;
	return 0;
}

static const struct ws__vfile *
ws__was(const struct ws__pass *p, const char *real)
{
	for (size_t i = 0; p->was != NULL && i < p->was->n; i++)
		if (strcmp(p->was->v[i].real, real) == 0)
			return &p->was->v[i];
	return NULL;
}

void
ws__dir_own_rwx(int dfd, const char *name)
{
	struct stat st;

	int fd = name == NULL ? dfd : ws__dir_path_fd(dfd, name, &st);

	/* Decided and changed on one descriptor, never by the name
	 * again: a link swapped in is not followed (review26 03). */
	if (fd >= 0 && (name != NULL || fstat(fd, &st) == 0) &&
	    S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	    (st.st_mode & S_IRWXU) != S_IRWXU)
		(void)ws__fd_chmod(fd, (st.st_mode & 07777) | S_IRWXU);
	if (name != NULL && fd >= 0)
		close(fd);
}

/* Remove name in dfd and everything below it, through descriptors. */
static void
ws__rm(int dfd, const char *name, int depth)
{
	int fd;
	DIR *d;
	struct dirent *de;

	/* The command may have made the directory read-only (review25 11). */
	ws__dir_own_rwx(dfd, NULL);
	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT || depth > 256)
		return;
	ws__dir_own_rwx(dfd, name);
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			ws__rm(dirfd(d), de->d_name, depth + 1);
	closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

/* Replace name in dfd by a regular file holding data, atomically. */
static int
ws__put(int dfd, const char *name, const char *data, size_t len, mode_t mode)
{
	char tmp[64];
	int fd = -1;

	/* The command may have made the directory read-only (review25 11). */
	ws__dir_own_rwx(dfd, NULL);

	for (int i = 0; i < 100 && fd < 0; i++) {
		snprintf(tmp, sizeof(tmp), ".wsrun-%d-%d.tmp", (int)getpid(), i);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				      O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	for (size_t off = 0; off < len; ) {
		ssize_t w = write(fd, data + off, len - off);

		if (w <= 0) {
			close(fd);
			unlinkat(dfd, tmp, 0);
			return -EIO;
		}
		off += (size_t)w;
	}
	if (fchmod(fd, mode & 07777 & ~(mode_t)(S_ISUID | S_ISGID)) < 0 ||
	    close(fd) < 0) {
		unlinkat(dfd, tmp, 0);
		return -EIO;
	}
	if (renameat(dfd, tmp, dfd, name) < 0) {
		/* A directory where the file was: it goes first. */
		ws__rm(dfd, name, 0);
		if (renameat(dfd, tmp, dfd, name) < 0) {
			int e = errno;

			unlinkat(dfd, tmp, 0);
			return -e;
		}
	}
	return 0;
}

static bool
ws__stat_same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_mode == b->st_mode && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * The content of name in dfd (st, its lstat) into f: a regular file's
 * when within room bytes, a symlink's target.
 */
static void
ws__capture(int dfd, const char *name, const struct stat *st, size_t room,
	    struct ws__vfile *f)
{
	f->st = *st;
	if (S_ISREG(st->st_mode) && st->st_size <= WS__VCS_FILE_MAX &&
	    (size_t)st->st_size <= room) {
		int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

		if (fd >= 0) {
			if (ws__slurp(fd, WS__VCS_FILE_MAX, &f->data, &f->len) < 0)
				f->data = NULL;
			close(fd);
		}
	} else if (S_ISLNK(st->st_mode) && st->st_size < 4096) {
		char buf[4096];
		ssize_t n = readlinkat(dfd, name, buf, sizeof(buf) - 1);

		if (n >= 0 && (f->data = strndup(buf, (size_t)n)) != NULL)
			f->len = (size_t)n;
	}
}

/* Snapshot: record name in dfd (real path real) if it exists. */
static int
ws__record(struct ws__pass *p, int dfd, const char *name, const char *real)
{
	struct ws__vfile *nv, f = {0};
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	for (size_t i = 0; i < p->s->n; i++)
		if (strcmp(p->s->v[i].real, real) == 0)
			return 0;
	ws__capture(dfd, name, &st, WS__VCS_BUDGET - p->s->bytes, &f);
	if ((f.real = strdup(real)) == NULL ||
	    (nv = realloc(p->s->v, (p->s->n + 1) * sizeof(*nv))) == NULL) {
		free(f.real);
		free(f.data);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	p->s->v = nv;
	p->s->bytes += f.len;
	nv[p->s->n++] = f;
	return 0;
}

/* Whether what the clean pass sees (st) is the file as it was (f). */
static bool
ws__unchanged(int dfd, const char *name, const struct stat *st,
	      const struct ws__vfile *f)
{
	char buf[4096];
	ssize_t n;

	if (f == NULL || (st->st_mode & S_IFMT) != (f->st.st_mode & S_IFMT))
		return false;
	if (!S_ISLNK(st->st_mode))
		return S_ISDIR(st->st_mode) ? st->st_ino == f->st.st_ino &&
					      st->st_dev == f->st.st_dev
					    : ws__stat_same(st, &f->st);
	n = readlinkat(dfd, name, buf, sizeof(buf) - 1);
	return n >= 0 && f->data != NULL && (size_t)n == f->len &&
	       memcmp(buf, f->data, f->len) == 0;
}

/*
 * An entry left as it is, named apart from what was undone (ftu17 09):
 * "kept PATH: ..." reads as what happened, "cleaned PATH: left as it
 * is" did not.
 */
static void
ws__keep(struct ws__pass *p, int a, const char *rel)
{
	char ***items = p->items;
	size_t *nitems = p->nitems;

	p->items = p->kept;
	p->nitems = p->nkept;
	ws__item(p, a, rel, "changed while the command ran, in a place the "
		 "command could only read");
	p->items = items;
	p->nitems = nitems;
}

/* Put back what was (f), or remove what is there; name it. */
static void
ws__revert(struct ws__pass *p, int dfd, const char *name, int a,
	   const char *rel, const struct ws__vfile *f)
{
	struct stat st, pst;
	int e = 0;

	/*
	 * In a place the command could only read (bound read-only in its
	 * namespace, the same file or directory now): changed by someone
	 * else while it ran, the person most likely (review25 06).
	 */
	if (p->was != NULL && p->was->nheld > 0 && fstat(dfd, &pst) == 0 &&
	    ws_vcs_snap_held(p->was, fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0
					     ? &st : NULL, &pst)) {
		ws__keep(p, a, rel);
		return;
	}

	if (f != NULL && f->data != NULL && S_ISREG(f->st.st_mode)) {
		if ((e = ws__put(dfd, name, f->data, f->len, f->st.st_mode)) == 0) {
			ws__item(p, a, rel, "restored as it was before the command");
			return;
		}
	} else if (f != NULL && f->data != NULL && S_ISLNK(f->st.st_mode)) {
		ws__rm(dfd, name, 0);
		if (symlinkat(f->data, dfd, name) == 0) {
			ws__item(p, a, rel, "restored as it was before the command");
			return;
		}
		e = -errno;
	}
	ws__rm(dfd, name, 0);
	if (fstatat(dfd, name, &(struct stat){0}, AT_SYMLINK_NOFOLLOW) == 0)
		ws__item(p, a, rel, "could not be removed (%s)", strerror(e ? -e : EBUSY));
	else
		ws__item(p, a, rel, "removed (the command %s it%s)",
			 f != NULL ? "changed" : "created",
			 f != NULL ? "; its old content could not be kept" : "");
}

/*
 * Whether a ".git" file's "gitdir: X" names a directory inside a writable
 * anchor; if so, *ga and *grel (malloc'd) say where.
 */
static bool
ws__gitfile_inside(struct ws__pass *p, const char *text, size_t len,
		   const char *dirreal, int *ga, char **grel)
{
	char *t = strndup(text, len), *s, *e, *abs = NULL;
	const char *rest = NULL;
	bool ok = false;
	int a;

	*grel = NULL;
	if (t == NULL || strncmp(t, "gitdir:", 7) != 0) {
		free(t);
		return false;
	}
	for (s = t + 7; *s == ' ' || *s == '\t'; s++)
		;
	for (e = s; *e && *e != '\n' && *e != '\r'; e++)
		;
	*e = '\0';
	if (*s == '\0') {
		free(t);
		return false;
	}
	abs = s[0] == '/' ? strdup(s) : ws_path_join(dirreal, s);
	if (abs != NULL) {
		char *norm = NULL;

		/* Lexically inside a writable anchor, and reached from it
		 * without a symlink (the host's git follows them). */
		if (ws_path_normalize(abs, 0, &norm) == 0 &&
		    (a = ws_ctx_anchor_of_real(p->ws, norm, &rest)) >= 0 &&
		    !p->ws->anchors[a].ro && rest != NULL) {
			int fd;

			while (*rest == '/')
				rest++;
			fd = ws__open_below_p(p, p->ws->anchors[a].fd, *rest ? rest : ".",
					    O_RDONLY | O_DIRECTORY);
			if (fd >= 0) {
				close(fd);
				*ga = a;
				*grel = strdup(*rest ? rest : ".");
				ok = *grel != NULL;
			}
		}
		free(norm);
	}
	free(abs);
	free(t);
	return ok;
}

static void ws__gitdir(struct ws__pass *p, int a, const char *rel, int depth,
		       bool worktree);

/*
 * One watched entry, name in dfd (rel below anchor a): recorded, or
 * checked and reverted.
 */
static int
ws__watch(struct ws__pass *p, int dfd, const char *name, int a,
	  const char *rel, enum ws__kind kind)
{
	char *real = ws_path_join(p->ws->anchors[a].real, rel);
	const struct ws__vfile *f;
	struct stat st;
	int rc = 0;

	if (real == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if (!p->clean) {
		rc = ws__record(p, dfd, name, real);
		/* A ".git" file's git dir, when it is in the workspace. */
		if (rc == 0 && kind == WS__W_GITFILE && p->s->n > 0) {
			const struct ws__vfile *g = &p->s->v[p->s->n - 1];
			int ga;
			char *grel = NULL, *dir = strdup(real);

			if (dir != NULL && g->data != NULL && S_ISREG(g->st.st_mode) &&
			    strcmp(g->real, real) == 0) {
				*strrchr(dir, '/') = '\0';
				if (ws__gitfile_inside(p, g->data, g->len, dir, &ga, &grel))
					ws__gitdir(p, ga, grel, 1, false);
			}
			free(grel);
			free(dir);
		}
		free(real);
		return rc;
	}
	f = ws__was(p, real);
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		free(real);
		return 0;
	}
	/*
	 * Not there before by this path, but the very file that was
	 * elsewhere, untouched (same inode, size, times, ctime included,
	 * which a rename of the file itself or a write changes): a directory
	 * above it was moved ("mv vendor third_party").  It is the user's,
	 * as it was: kept, not taken for the command's.
	 */
	if (f == NULL && !S_ISDIR(st.st_mode) && p->was != NULL)
		for (size_t i = 0; i < p->was->n && f == NULL; i++)
			if (ws__stat_same(&st, &p->was->v[i].st) &&
			    (st.st_mode & S_IFMT) == (p->was->v[i].st.st_mode & S_IFMT))
				f = &p->was->v[i];
	if (kind == WS__W_CONFIG && S_ISREG(st.st_mode) && !ws__unchanged(dfd, name, &st, f)) {
		int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		char *text = NULL, *out = NULL, *removed = NULL, *restored = NULL;
		size_t len = 0;
		/*
		 * Without network, where git connects is pinned to what it
		 * was; not when what it was is unknown (a configuration too
		 * large to keep), which would take a partial clone's own
		 * keys from the user.
		 */
		unsigned flags = !p->net && (f == NULL || f->data != NULL)
					 ? WS_GITCFG_PIN_ROUTES : 0;

		if (fd >= 0 && ws__slurp(fd, WS__VCS_CONFIG_MAX, &text, &len) == 0 &&
		    memchr(text, '\0', len) == NULL &&
		    ws_gitconfig_clean(text, len, f ? f->data : NULL, f ? f->len : 0,
				       flags, &out,
				       &removed, &restored) == 0) {
			if (out != NULL) {
				int e = ws__put(dfd, name, out, strlen(out), st.st_mode);

				if (e == 0 && removed != NULL)
					ws__item(p, a, rel, "removed %s", removed);
				if (e == 0 && restored != NULL)
					ws__item(p, a, rel, "restored %s", restored);
				if (e != 0)
					ws__revert(p, dfd, name, a, rel, f);
			}
		} else {
			ws__revert(p, dfd, name, a, rel, f);
		}
		if (fd >= 0)
			close(fd);
		free(text);
		free(out);
		free(removed);
		free(restored);
	} else if (!ws__unchanged(dfd, name, &st, f)) {
		bool keep = false;

		if (kind == WS__W_HOOK) {
			size_t nl = strlen(name);

			/* git runs hooks/NAME for a hook's name only. */
			keep = f == NULL && S_ISREG(st.st_mode) && nl > 7 &&
			       strcmp(name + nl - 7, ".sample") == 0;
		} else if ((kind == WS__W_COMMONDIR || kind == WS__W_GITFILE) &&
			   S_ISREG(st.st_mode) && st.st_size < 4096) {
			int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
						   O_CLOEXEC);
			char *text = NULL;
			size_t len = 0;

			if (fd >= 0 && ws__slurp(fd, 4096, &text, &len) == 0) {
				if (kind == WS__W_COMMONDIR) {
					keep = strcmp(text, "../..\n") == 0 ||
					       strcmp(text, "../..") == 0;
				} else {
					char *dir = strdup(real), *grel = NULL;
					int ga;

					if (dir != NULL) {
						*strrchr(dir, '/') = '\0';
						keep = ws__gitfile_inside(p, text, len, dir,
									  &ga, &grel);
						if (keep)
							ws__gitdir(p, ga, grel, 1, false);
					}
					free(grel);
					free(dir);
				}
			}
			if (fd >= 0)
				close(fd);
			free(text);
		}
		if (!keep)
			ws__revert(p, dfd, name, a, rel, f);
	} else if (kind == WS__W_GITFILE && S_ISREG(st.st_mode) && f != NULL &&
		   f->data != NULL) {
		/* As it was: its git dir, when inside, is cleaned too. */
		char *dir = strdup(real), *grel = NULL;
		int ga;

		if (dir != NULL) {
			*strrchr(dir, '/') = '\0';
			if (ws__gitfile_inside(p, f->data, f->len, dir, &ga, &grel))
				ws__gitdir(p, ga, grel, 1, false);
		}
		free(grel);
		free(dir);
	}
	free(real);
	return rc;
}

/* rel joined with name (malloc'd). */
static char *
ws__sub(const char *rel, const char *name)
{
	char *s = NULL;

	if (strcmp(rel, ".") == 0 || rel[0] == '\0')
		return strdup(name);
	if (asprintf(&s, "%s/%s", rel, name) < 0)
		return NULL;
	return s;
}

/* Watch name (a path of one or more components) below the git dir. */
static void
ws__gwatch(struct ws__pass *p, int gfd, int a, const char *grel,
	   const char *name, enum ws__kind kind)
{
	const char *sl = strrchr(name, '/');
	char *rel = ws__sub(grel, name);
	int dfd = gfd;

	if (rel == NULL)
		return;
	if (sl != NULL) {
		char *dir = strndup(name, (size_t)(sl - name));

		dfd = dir ? ws__open_below_p(p, gfd, dir, O_RDONLY | O_DIRECTORY) : -1;
		free(dir);
		if (dfd < 0) {
			free(rel);
			return;
		}
	}
	(void)ws__watch(p, dfd, sl ? sl + 1 : name, a, rel, kind);
	if (dfd != gfd)
		close(dfd);
	free(rel);
}

/* Every entry of the directory name in gfd, as hooks (or git dirs). */
static void
ws__gdir_each(struct ws__pass *p, int gfd, int a, const char *grel,
	      const char *name, int depth, int what)
{
	int fd = ws__open_below_p(p, gfd, name, O_RDONLY | O_DIRECTORY);
	char *rel = ws__sub(grel, name);
	DIR *d;
	struct dirent *e;

	if (fd < 0 || rel == NULL || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		free(rel);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char *r;
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++p->walked > p->limit) {
			p->over = true;
			break;
		}
		if ((r = ws__sub(rel, e->d_name)) == NULL)
			break;
		if (what == 0) {
			(void)ws__watch(p, dirfd(d), e->d_name, a, r, WS__W_HOOK);
		} else if (what == 3) {
			/* An editor's folder settings (review22 01): each entry
			 * as it was, a new one removed, and below. */
			(void)ws__watch(p, dirfd(d), e->d_name, a, r, WS__W_PLAIN);
			if (e->d_type == DT_DIR && depth < WS__VCS_DEPTH &&
			    strlen(r) < WS__VCS_PATH_MAX)
				ws__gdir_each(p, dirfd(d), a, rel, e->d_name,
					      depth + 1, what);
		} else if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			   S_ISDIR(st.st_mode)) {
			/* worktrees/NAME (1), modules/NAME... (2): a git dir
			 * holds HEAD or config; a module's name may hold "/". */
			struct stat hs;

			{
				int sfd = ws__open_below_p(p, dirfd(d), e->d_name,
							 O_RDONLY | O_DIRECTORY);
				bool isgit = false;

				if (sfd >= 0) {
					isgit = what == 1 ||
						fstatat(sfd, "HEAD", &hs, AT_SYMLINK_NOFOLLOW) == 0 ||
						fstatat(sfd, "config", &hs, AT_SYMLINK_NOFOLLOW) == 0;
					close(sfd);
				}
				if (isgit)
					ws__gitdir(p, a, r, depth + 1, what == 1);
				else if (depth < WS__VCS_DEPTH &&
					 strlen(r) < WS__VCS_PATH_MAX)
					ws__gdir_each(p, dirfd(d), a, rel, e->d_name,
						      depth + 1, what);
				else
					p->deep = true;
			}
		}
		free(r);
	}
	closedir(d);
	free(rel);
}

/*
 * A git dir, rel below anchor a: its configuration, hooks, pointers, and
 * its worktrees' and submodules' git dirs.
 */
static void
ws__gitdir(struct ws__pass *p, int a, const char *rel, int depth, bool worktree)
{
	int gfd;
	struct stat st;

	if (depth > WS__VCS_DEPTH) {
		p->deep = true;
		return;
	}
	gfd = ws__open_below_p(p, p->ws->anchors[a].fd, rel, O_RDONLY | O_DIRECTORY);
	if (gfd < 0) {
		if (errno == EMFILE || errno == ENFILE)
			p->nofd = true;
		return;
	}
	if (fstat(gfd, &st) < 0) {
		close(gfd);
		return;
	}
	for (size_t i = 0; i < p->ndone; i++)
		if (p->done[i].dev == st.st_dev && p->done[i].ino == st.st_ino) {
			close(gfd);
			return;
		}
	{
		void *nd = realloc(p->done, (p->ndone + 1) * sizeof(*p->done));

		if (nd == NULL) {
			close(gfd);
			return;
		}
		p->done = nd;
		p->done[p->ndone].dev = st.st_dev;
		p->done[p->ndone].ino = st.st_ino;
		p->ndone++;
	}
	if (!p->clean) {
		void *ng = realloc(p->s->gd, (p->s->ngd + 1) * sizeof(*p->s->gd));
		char *r = strdup(rel);

		if (ng != NULL)
			p->s->gd = ng;
		if (ng != NULL && r != NULL) {
			p->s->gd[p->s->ngd].a = a;
			p->s->gd[p->s->ngd].rel = r;
			p->s->ngd++;
		} else {
			free(r);
		}
	}
	/*
	 * DIR/worktrees/NAME, however it was reached (a ".git" file may
	 * name it before the walk comes to DIR): a worktree's git dir, whose
	 * "commondir" of "../.." names DIR, which is cleaned with it.
	 */
	{
		const char *last = strrchr(rel, '/'), *prev = last;

		while (prev != NULL && prev > rel && prev[-1] != '/')
			prev--;
		if (last != NULL && last - prev == 9 && strncmp(prev, "worktrees", 9) == 0) {
			char *common = strndup(rel, (size_t)(prev - rel));

			worktree = true;
			if (common != NULL) {
				size_t cl = strlen(common);

				while (cl > 0 && common[cl - 1] == '/')
					common[--cl] = '\0';
				ws__gitdir(p, a, cl ? common : ".", depth + 1, false);
			}
			free(common);
		}
	}
	ws__gwatch(p, gfd, a, rel, "config", WS__W_CONFIG);
	ws__gwatch(p, gfd, a, rel, "config.worktree", WS__W_CONFIG);
	ws__gwatch(p, gfd, a, rel, "commondir",
		   worktree ? WS__W_COMMONDIR : WS__W_PLAIN);
	ws__gwatch(p, gfd, a, rel, "objects/info/alternates", WS__W_PLAIN);
	/*
	 * The common dir a "commondir" that stays names (the user's, or a
	 * worktree's "../..") holds the configuration git reads: cleaned
	 * too when it is inside, whatever its name.
	 */
	{
		int cfd = openat(gfd, "commondir", O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
						   O_CLOEXEC);
		char *text = NULL, *line = NULL, *dir = NULL, *grel = NULL;
		size_t len = 0;
		int ga;

		if (cfd >= 0 && fstat(cfd, &st) == 0 && S_ISREG(st.st_mode) &&
		    ws__slurp(cfd, 4096, &text, &len) == 0 &&
		    (asprintf(&line, "gitdir: %.*s", (int)len, text) >= 0 ||
		     (line = NULL) != NULL) &&
		    (dir = ws_path_join(p->ws->anchors[a].real, rel)) != NULL &&
		    ws__gitfile_inside(p, line, strlen(line), dir, &ga, &grel))
			ws__gitdir(p, ga, grel, depth + 1, false);
		if (cfd >= 0)
			close(cfd);
		free(text);
		free(line);
		free(dir);
		free(grel);
	}
	ws__gwatch(p, gfd, a, rel, "objects/info/http-alternates", WS__W_PLAIN);
	if (fstatat(gfd, "hooks", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode))
			ws__gdir_each(p, gfd, a, rel, "hooks", depth, 0);
		else
			ws__gwatch(p, gfd, a, rel, "hooks", WS__W_PLAIN);
	}
	if (!worktree) {
		if (fstatat(gfd, "worktrees", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode))
			ws__gdir_each(p, gfd, a, rel, "worktrees", depth, 1);
		if (fstatat(gfd, "modules", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode))
			ws__gdir_each(p, gfd, a, rel, "modules", depth, 2);
	}
	close(gfd);
}

/* Mercurial: its configuration and the pointer to a shared store. */
static void
ws__hgdir(struct ws__pass *p, int a, const char *rel)
{
	int fd = ws__open_below_p(p, p->ws->anchors[a].fd, rel, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return;
	ws__gwatch(p, fd, a, rel, "hgrc", WS__W_PLAIN);
	ws__gwatch(p, fd, a, rel, "hgrc-not-shared", WS__W_PLAIN);
	ws__gwatch(p, fd, a, rel, "sharedpath", WS__W_PLAIN);
	close(fd);
}

/*
 * Jujutsu and Sapling: their repository configuration (.jj/repo/config.toml,
 * .sl/config), which names programs to run as .hg/hgrc does.
 */
static void
ws__jjsldir(struct ws__pass *p, int a, const char *rel, bool jj)
{
	int fd = ws__open_below_p(p, p->ws->anchors[a].fd, rel, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return;
	if (jj) {
		struct stat st;

		ws__gwatch(p, fd, a, rel, "repo/config.toml", WS__W_PLAIN);
		ws__gwatch(p, fd, a, rel, "workspace-config.toml", WS__W_PLAIN);
		/*
		 * A secondary workspace's .jj/repo is a file naming the
		 * repository (or a link to it), whose config.toml jj reads:
		 * one the command made, or made of the user's directory, is
		 * removed; the user's own, restored (review20 02).  A
		 * directory is the repository itself, watched above.
		 */
		if (fstatat(fd, "repo", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISDIR(st.st_mode))
			ws__gwatch(p, fd, a, rel, "repo", WS__W_PLAIN);
	} else {
		ws__gwatch(p, fd, a, rel, "config", WS__W_PLAIN);
		ws__gwatch(p, fd, a, rel, "hgrc", WS__W_PLAIN);
		ws__gwatch(p, fd, a, rel, "sharedpath", WS__W_PLAIN);
	}
	close(fd);
}

/*
 * The directory a .hg, .jj or .sl link in dfd leads to, when a writable
 * anchor holds it: walked as that repository's own directory, before
 * and after the command alike.  A user's .hg -> hgdata left hgdata/hgrc
 * to the command, which wrote hooks there by the name hg reads
 * (review21 04); the link itself is watched by the caller.
 */
static void
ws__vcs_link_target(struct ws__pass *p, int dfd, const char *n)
{
	char proc[64], real[PATH_MAX];
	const char *rest = NULL;
	ssize_t len;
	int a, fd = openat(dfd, n, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	len = readlink(proc, real, sizeof(real) - 1);
	close(fd);
	if (len <= 0 || real[0] != '/')
		return;
	real[len] = '\0';
	a = ws_ctx_anchor_of_real(p->ws, real, &rest);
	if (a < 0 || p->ws->anchors[a].ro || rest == NULL)
		return;
	while (*rest == '/')
		rest++;
	if (n[1] == 'h')
		ws__hgdir(p, a, *rest ? rest : ".");
	else
		ws__jjsldir(p, a, *rest ? rest : ".", n[1] == 'j');
}

/* The walk's read of one directory: getdents64 into this much. */
#define WS__DENTS 32768

/*
 * Whether rel, a state directory below anchor a, is one the view masks
 * as another home's (lib/view.c ws__view_other_homes()): the anchor's
 * own .local/state/wstools, a top-level directory's, or a /home
 * directory's where the anchor holds /home.  Another one (a home deeper
 * down, /srv/users/bob) is not masked, and refuses the run once marked
 * (review23 03).
 */
static bool
ws__home_state_masked(const struct ws_ctx *ws, int a, const char *rel)
{
	static const char suf[] = ".local/state/wstools";
	size_t n = strlen(rel), sn = sizeof(suf) - 1, pn;
	const char *home = NULL, *slash;

	if (n < sn || strcmp(rel + n - sn, suf) != 0 ||
	    (n > sn && rel[n - sn - 1] != '/'))
		return false;
	pn = n > sn ? n - sn - 1 : 0;
	/* The anchor itself, or one of its top-level directories. */
	slash = memchr(rel, '/', pn);
	if (pn == 0 || slash == NULL)
		return true;
	/* /home/<name> where the anchor holds /home. */
	if (a >= 0 && (size_t)a < ws->nanchors &&
	    strcmp(ws->anchors[a].real, "/home") != 0 &&
	    ws_path_within("/home", ws->anchors[a].real, &home) && home != NULL) {
		size_t hl;

		home += strspn(home, "/");
		hl = strlen(home);
		if (hl > 0 && pn > hl + 1 && strncmp(rel, home, hl) == 0 &&
		    rel[hl] == '/' && memchr(rel + hl + 1, '/', pn - hl - 1) == NULL)
			return true;
	}
	return false;
}

/*
 * The snapshot pass at a state directory, name in dfd (".": dfd itself)
 * with its path rel below anchor a: one the command's view does not hide
 * (neither this call's nor a home's, by identity, nor another home's the
 * view masks) is kept in the snapshot, which then refuses the run.  The
 * first one only.
 */
static void
ws__state_dir_seen(struct ws__pass *p, int a, int dfd, const char *name,
		   const char *rel)
{
	struct stat ds;

	if (p->clean || p->s == NULL || p->s->state_rel != NULL ||
	    fstatat(dfd, name, &ds, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	for (size_t i = 0; i < p->nknown; i++)
		if (p->known[i].st_dev == ds.st_dev && p->known[i].st_ino == ds.st_ino)
			return;
	if (ws__home_state_masked(p->ws, a, rel))
		return;
	p->s->state_rel = strdup(rel[0] ? rel : ".");
	p->s->state_a = a;
}

/*
 * Remove the directory name below pfd and all it holds, however deep:
 * each directory's subdirectories are first moved up into pfd (under a
 * name of their own, never replacing one), its other entries removed,
 * then it; and so on with the ones moved up.  So the removal holds two
 * descriptors at a time and never names a path longer than a name,
 * where the tree is deeper than any path can name (review23 01).  Runs
 * after the command's tree is gone.  0, or -1 where something stayed.
 */
static int
ws__rm_deep(int pfd, const char *name)
{
	char **todo = NULL, tmp[64];
	size_t n = 0, cap = 0;
	unsigned long k = 0;
	int rc = 0;

	if ((todo = malloc(sizeof(*todo))) == NULL || (todo[0] = strdup(name)) == NULL) {
		free(todo);
		return -1;
	}
	n = cap = 1;
	/*
	 * The command owned every directory here and chose their modes: a
	 * parent or a level made 555 failed every rename (review25 02).
	 * The owner's rwx bits are put back first, where the person owns
	 * them (a removal fails open no more than the walk does).
	 */
	ws__dir_own_rwx(pfd, NULL);
	while (n > 0) {
		char *cur = todo[--n];
		int dfd = (ws__dir_own_rwx(pfd, cur),
			   openat(pfd, cur, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
		DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
		struct dirent *e;

		if (d == NULL) {
			if (dfd >= 0)
				close(dfd);
			rc = -1;
			free(cur);
			continue;
		}
		/*
		 * Entries are moved or removed while the directory is read:
		 * read again from the start until it is empty (each round
		 * takes every entry it meets), a bounded number of rounds.
		 */
		for (int round = 0; round < 64; round++) {
			bool any = false;

			rewinddir(d);
			while ((e = readdir(d)) != NULL) {
				struct stat st;

				if (e->d_name[0] == '.' && (e->d_name[1] == '\0' ||
				    (e->d_name[1] == '.' && e->d_name[2] == '\0')))
					continue;
				any = true;
				if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
					continue;
				if (!S_ISDIR(st.st_mode)) {
					(void)unlinkat(dfd, e->d_name, 0);
					continue;
				}
				/* Moved to another parent, a directory's ".." is
				 * rewritten: it must be writable itself. */
				ws__dir_own_rwx(dfd, e->d_name);
				for (;;) {
					snprintf(tmp, sizeof(tmp), ".wsrun-deep-%ld-%lu",
						 (long)getpid(), k++);
					if (renameat2(dfd, e->d_name, pfd, tmp, RENAME_NOREPLACE) == 0)
						break;
					if (errno != EEXIST) {
						tmp[0] = '\0';
						break;
					}
				}
				if (tmp[0] == '\0')
					continue;
				if (n == cap) {
					char **nt = realloc(todo, 2 * cap * sizeof(*nt));

					if (nt == NULL) {
						rc = -1;
						continue;
					}
					todo = nt;
					cap *= 2;
				}
				if ((todo[n] = strdup(tmp)) != NULL)
					n++;
				else
					rc = -1;
			}
			if (!any)
				break;
		}
		closedir(d);
		if (unlinkat(pfd, cur, AT_REMOVEDIR) < 0)
			rc = -1;
		free(cur);
	}
	free(todo);
	return rc;
}

/*
 * The clean pass at a state directory's mark (name in dfd, the directory
 * rel below anchor a) in a directory the view does not mask.  One there
 * before the command refused the run (ws__state_dir_seen()), so the
 * command made it: removed, since it would lock the file tools out of
 * its directory (review24 03).  Unless the walk before stopped at its
 * bound, and so could not tell.
 */
static void
ws__mark_made(struct ws__pass *p, int a, int dfd, const char *name,
	      const char *rel)
{
	struct stat ds;
	int r;

	if (p->was == NULL || p->was->over || fstat(dfd, &ds) < 0)
		return;
	for (size_t i = 0; i < p->nknown; i++)
		if (p->known[i].st_dev == ds.st_dev && p->known[i].st_ino == ds.st_ino)
			return;
	r = unlinkat(dfd, name, 0);
	if (r < 0 && (errno == EISDIR || errno == EPERM))
		r = ws__rm_deep(dfd, name);
	if (r == 0)
		ws__item(p, a, rel, "%s: removed: wstools' state mark, made by the "
			 "command (the file tools would take its directory for "
			 "wstools' history and refuse it)", WS_STATE_MARK);
	else
		ws__item(p, a, rel, "%s: wstools' state mark, made by the command, "
			 "could not be removed (%s): remove it by hand",
			 WS_STATE_MARK, strerror(errno));
}

/* Whether the time t is at or after the walk's start t0. */
static bool
ws__since(const struct timespec *t, const struct timespec *t0)
{
	return t->tv_sec > t0->tv_sec ||
	       (t->tv_sec == t0->tv_sec && t->tv_nsec >= t0->tv_nsec);
}

/*
 * Whether the clean pass looks at the entries of the directory dfd (rel,
 * rlen bytes, below anchor a) for links at refused names: it changed
 * since the command started (its ctime: an entry made, removed or
 * renamed there; no program can set a ctime back), and a rule of the
 * policy may refuse something in it.  One fstat() a directory.
 */
static bool
ws__links_here(const struct ws__pass *p, int a, int dfd, const char *rel,
	       size_t rlen)
{
	char d[WS__VCS_PATH_MAX + 4352];
	const char *ar = p->ws->anchors[a].real;
	struct stat st;

	if (!p->links || fstat(dfd, &st) < 0 || !ws__since(&st.st_ctim, &p->was->t0))
		return false;
	if (snprintf(d, sizeof(d), "%s%s%.*s", strcmp(ar, "/") == 0 ? "" : ar,
		     rlen > 0 ? "/" : "", (int)rlen, rel) >= (int)sizeof(d))
		return true; /* not named: looked at, each entry by its own */
	return ws_policy_may_refuse_below(p->ws->policy, d[0] ? d : "/");
}

/*
 * Whether a rule of the policy refuses reading the entry n of the
 * directory rel (rlen bytes, below anchor a), or with below everything
 * in it (a name probed inside: a rule of "secrets" and all below it);
 * its real path into path (len bytes).
 */
static bool
ws__refused_name(struct ws__pass *p, int a, const char *rel, size_t rlen,
		 const char *n, bool below, char *path, size_t len)
{
	const char *ar = p->ws->anchors[a].real;
	bool refused;
	int l;

	l = snprintf(path, len, "%s%s%.*s/%s", strcmp(ar, "/") == 0 ? "" : ar,
		     rlen > 0 ? "/" : "", (int)rlen, rel, n);
	if (l < 0 || (size_t)l + 12 >= len)
		return false;
	if (!below)
		return ws_policy_refuses(p->ws->policy, WS_OP_READ, path);
	memcpy(path + l, "/.wsprobe", 10);
	refused = ws_policy_refuses(p->ws->policy, WS_OP_READ, path);
	path[l] = '\0';
	return refused;
}

/*
 * Before the command: a symbolic link at a name the policy refuses to
 * read is noted by identity (struct ws_vcs_snap's plinks), so that the
 * check after it (ws__denied_link()) keeps the person's own, whatever
 * the command did to its ctime (touch -h).  Links are few: a policy
 * check or two each, only where there is a policy.
 */
static void
ws__note_link(struct ws__pass *p, int a, int dfd, const char *rel, size_t rlen,
	      const char *n)
{
	char path[WS__VCS_PATH_MAX + 4352 + 300];
	struct ws_vcs_id *nv;
	struct stat st;

	if (!ws__refused_name(p, a, rel, rlen, n, false, path, sizeof(path)) &&
	    !ws__refused_name(p, a, rel, rlen, n, true, path, sizeof(path)))
		return;
	if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode) ||
	    (nv = realloc(p->s->plinks, (p->s->nplinks + 1) * sizeof(*nv))) == NULL)
		return;
	nv[p->s->nplinks++] = (struct ws_vcs_id){st.st_dev, st.st_ino};
	p->s->plinks = nv;
}

/*
 * Review25 05: a link that a command made at a name the policy refuses
 * to read (app/.env -> ../notes.txt, or config/.env a hard link of
 * config/log.txt) sends what the person writes there later (the keys in
 * the .env that an agent's scaffold asked them to fill in) into a file
 * the policy lets the agent read.  The command's view masks the entries
 * there before it; one made during it is looked at here: a symbolic
 * link, or a file of more than one link, changed since the command
 * started (its own ctime), at a name a rule refuses to read, or a
 * symbolic link where a rule refuses everything below (secrets -> ../pub
 * for a rule of "secrets" and all below it), is removed and said.  The entry n of dfd (rel, rlen
 * bytes, below anchor a), of readdir's type; true when it was removed.
 */
static bool
ws__denied_link(struct ws__pass *p, int a, int dfd, char *rel, size_t rlen,
		const char *n, unsigned char type)
{
	char path[WS__VCS_PATH_MAX + 4352 + 300];
	struct stat st;
	bool lnk, refused;

	if (type != DT_LNK && type != DT_REG && type != DT_UNKNOWN)
		return false;
	refused = ws__refused_name(p, a, rel, rlen, n, false, path, sizeof(path));
	/* Everything below it refused: a link there moves it all. */
	if (!refused && type != DT_REG &&
	    ws__refused_name(p, a, rel, rlen, n, true, path, sizeof(path))) {
		refused = true;
		type = DT_LNK; /* a file there is no way to anything */
	}
	if (!refused || fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	lnk = S_ISLNK(st.st_mode);
	if ((!lnk && (type == DT_LNK || !S_ISREG(st.st_mode) || st.st_nlink < 2)) ||
	    !ws__since(&st.st_ctim, &p->was->t0))
		return false;
	/*
	 * The person's from before the command stays, whatever the command
	 * did to its ctime: a symbolic link noted by the walk before it, a
	 * file the view masked (its masks are among the held entries:
	 * the command could touch the file by its other name, review29 01).
	 */
	for (size_t i = 0; lnk && i < p->was->nplinks; i++)
		if (p->was->plinks[i].dev == st.st_dev && p->was->plinks[i].ino == st.st_ino)
			return false;
	for (size_t i = 0; !lnk && i < p->was->nheld; i++)
		if (p->was->held[i].dev == st.st_dev && p->was->held[i].ino == st.st_ino)
			return false;
	/* Said by the entry's own path (rel's buffer has room for a name). */
	if (rlen > 0)
		rel[rlen] = '/';
	memcpy(rel + rlen + (rlen > 0), n, strlen(n) + 1);
	if (unlinkat(dfd, n, 0) < 0) {
		ws__item(p, a, rel, "a %s that the command made at a name the "
			 "policy refuses to read, which could not be removed (%s): "
			 "remove it before you write there",
			 lnk ? "symbolic link" : "hard link", strerror(errno));
		rel[rlen] = '\0';
		return false;
	}
	ws__item(p, a, rel, "removed (a %s that the command made at a name "
		 "the policy refuses to read: what a person wrote there later "
		 "would have gone into a file the agent may read)",
		 lnk ? "symbolic link" : "hard link");
	rel[rlen] = '\0';
	return true;
}

/*
 * A walk does not read again a directory that has not changed since an
 * earlier walk read it whole: the walk after the command trusts the
 * records of the walk before it, and the walk before trusts those the
 * last run's walk before left in the state directory (ws__recs_load()).
 * Its subdirectories are looked at from the records, its entries not
 * read.  What the walks look for is made by making a name: a repository,
 * an .envrc, a link, a directory past the reach.  Making, removing or
 * renaming a name in a directory sets its ctime to the time of the
 * change, and no program can set a ctime: so a directory whose ctime is
 * the one read before its entries were, holds the entries it held.  It
 * is skipped only where that is sure:
 *   - its ctime's second is older than the recording walk's start (t0,
 *     read from the coarse clock the kernel stamps ctimes with) by more
 *     than WS__VCS_CTIME_MARGIN: a change after that walk is stamped t0
 *     or later, so it cannot carry the same ctime, also on a file system
 *     with coarse timestamps (the margin covers a clock read a tick
 *     apart from the stamp);
 *   - its file system is one whose ctimes the kernel sets at each change
 *     (ext2/3/4, xfs, btrfs, tmpfs, f2fs), not one whose server or daemon
 *     reports them (NFS, FUSE) or that passes them through (overlayfs);
 *   - it is not encrypted (fscrypt): adding a key changes the names a
 *     read gives, and no ctime (review32 01);
 *   - it held nothing the walk looks at by name (".git", "HEAD", ".envrc",
 *     the editors' folders, wsrun's own names, a state directory), no
 *     symbolic link (the walk before notes links at refused names), no
 *     entry of unknown type, and every subdirectory was entered from a
 *     descriptor of its own with no mode put back: such a directory is
 *     read each time;
 *   - its identity, path length and depth are those recorded (a tree
 *     moved deeper is read again, against the walk's reach).
 * A subdirectory is checked the same way when it is entered: one that
 * changed is read whole, and what is below it again as the rule says.
 */
#define WS__VCS_CTIME_MARGIN 1

/* Whether st's file system (dfd's) stamps ctimes itself; cached for the
 * last device looked at, with whether it can encrypt directories (*crypt:
 * ext4, f2fs). */
static bool
ws__drec_fs(struct ws__pass *p, int dfd, const struct stat *st, bool *crypt)
{
	struct statfs f;

	if (!p->fs_known || p->fs_dev != st->st_dev) {
		bool ok = fstatfs(dfd, &f) == 0;

		p->fs_known = true;
		p->fs_dev = st->st_dev;
		p->fs_crypt = ok && (f.f_type == 0xEF53 /* ext2, ext3, ext4 */ ||
				     (unsigned long)f.f_type == 0xF2F52010UL /* f2fs */);
		p->fs_ok = ok && (p->fs_crypt || f.f_type == 0x58465342 /* xfs */ ||
				  (unsigned long)f.f_type == 0x9123683EUL /* btrfs */ ||
				  f.f_type == 0x01021994 /* tmpfs */);
	}
	*crypt = p->fs_crypt;
	return p->fs_ok;
}

/* Room in o for one record more and a name of nlen bytes; false: none. */
static bool
ws__recs_room(struct ws__recs *o, size_t nlen)
{
	if (o->ndr == o->cdr) {
		size_t c = o->cdr ? 2 * o->cdr : 64;
		struct ws__drec *n = realloc(o->dr, c * sizeof(*n));

		if (n == NULL)
			return false;
		o->dr = n;
		o->cdr = c;
	}
	if (o->ndrn + nlen + 1 > o->cdrn) {
		size_t c = o->cdrn ? 2 * o->cdrn : 1024;
		char *n;

		while (c < o->ndrn + nlen + 1)
			c *= 2;
		if ((n = realloc(o->drn, c)) == NULL)
			return false;
		o->drn = n;
		o->cdrn = c;
	}
	return true;
}

/* A record r (its name n, nlen bytes) appended to o: its index, or
 * SIZE_MAX (no memory). */
static size_t
ws__recs_add(struct ws__recs *o, const struct ws__drec *r, const char *n, size_t nlen)
{
	if (!ws__recs_room(o, nlen))
		return SIZE_MAX;
	memcpy(o->drn + o->ndrn, n, nlen);
	o->drn[o->ndrn + nlen] = '\0';
	o->dr[o->ndr] = *r;
	o->dr[o->ndr].name = o->ndrn;
	o->dr[o->ndr].child = o->dr[o->ndr].next = SIZE_MAX;
	o->ndrn += nlen + 1;
	return o->ndr++;
}

/*
 * A record of the directory dfd (rel, rlen bytes below its anchor, at
 * depth) in the walk before's records, its identity and ctime read
 * before its entries are: its index, or SIZE_MAX (none: read each time).
 */
static size_t
ws__drec_open(struct ws__pass *p, int dfd, const char *rel, size_t rlen, int depth)
{
	const char *name = rlen > 0 ? memrchr(rel, '/', rlen) : NULL;
	struct ws__drec r;
	struct statx sx;
	struct stat st;
	bool crypt = false, fs;

	name = name != NULL ? name + 1 : rel;
	if (statx(dfd, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT, STATX_BASIC_STATS,
		  &sx) < 0)
		return SIZE_MAX;
	memset(&st, 0, sizeof(st));
	st.st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	st.st_ino = sx.stx_ino;
	st.st_ctim.tv_sec = sx.stx_ctime.tv_sec;
	st.st_ctim.tv_nsec = sx.stx_ctime.tv_nsec;
	fs = ws__drec_fs(p, dfd, &st, &crypt);
	r = (struct ws__drec){
		.dev = st.st_dev, .ino = st.st_ino, .ctim = st.st_ctim,
		.rlen = rlen, .depth = depth,
		/*
		 * Not an encrypted directory (review32 01): a command can add
		 * its key (no capability needed, and it stays in the file
		 * system's keyring), which changes the names a read gives,
		 * from no-key names to ".git", and no ctime.  On a file
		 * system that can encrypt, one that does not say whether the
		 * directory is encrypted is taken for one.
		 */
		.plain = st.st_ctim.tv_sec < p->s->t0.tv_sec - WS__VCS_CTIME_MARGIN &&
			 fs && (sx.stx_attributes & STATX_ATTR_ENCRYPTED) == 0 &&
			 (!crypt || (sx.stx_attributes_mask & STATX_ATTR_ENCRYPTED) != 0),
	};
	return ws__recs_add(p->out, &r, name, rlen - (size_t)(name - rel));
}

/* Record i is read again by the next walk (SIZE_MAX: none). */
static void
ws__drec_busy(struct ws__pass *p, size_t i)
{
	if (i != SIZE_MAX && p->out != NULL)
		p->out->dr[i].plain = false;
}

/* Record c is parent pi's next subdirectory after *last (pi SIZE_MAX:
 * nothing to link); one that could not be made makes pi busy. */
static void
ws__drec_link(struct ws__pass *p, size_t pi, size_t *last, size_t c)
{
	if (pi == SIZE_MAX || p->out == NULL)
		return;
	if (c == SIZE_MAX) {
		ws__drec_busy(p, pi);
		return;
	}
	if (*last == SIZE_MAX)
		p->out->dr[pi].child = c;
	else
		p->out->dr[*last].next = c;
	*last = c;
}

/*
 * The record a subdirectory's walk made for it: record first, if that
 * walk made any and it is the subdirectory's (its path length and depth);
 * SIZE_MAX otherwise (its own failed: a grandchild's is not taken for it).
 */
static size_t
ws__drec_made(const struct ws__pass *p, size_t first, size_t elen, int depth)
{
	if (first == SIZE_MAX || p->out == NULL || p->out->ndr <= first ||
	    p->out->dr[first].rlen != elen || p->out->dr[first].depth != depth)
		return SIZE_MAX;
	return first;
}

static int
ws__drix_cmp(const void *x, const void *y, void *arg)
{
	const struct ws__drec *dr = arg;
	const struct ws__drec *a = &dr[*(const size_t *)x], *b = &dr[*(const size_t *)y];

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return a->ino < b->ino ? -1 : a->ino > b->ino;
}

/* The index of o's records by identity; left out (the walks read
 * everything) without memory. */
static void
ws__drix_make(struct ws__recs *o)
{
	free(o->drix);
	o->drix = NULL;
	if (o->ndr == 0 || (o->drix = malloc(o->ndr * sizeof(*o->drix))) == NULL)
		return;
	for (size_t i = 0; i < o->ndr; i++)
		o->drix[i] = i;
	qsort_r(o->drix, o->ndr, sizeof(*o->drix), ws__drix_cmp, o->dr);
}

/* The record of the directory st in o, or NULL. */
static const struct ws__drec *
ws__drec_find(const struct ws__recs *o, const struct stat *st)
{
	size_t lo = 0, hi = o->ndr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ws__drec *r = &o->dr[o->drix[mid]];

		if (r->dev == st->st_dev && r->ino == st->st_ino)
			return r;
		if (r->dev < st->st_dev || (r->dev == st->st_dev && r->ino < st->st_ino))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void ws__walk(struct ws__pass *p, int a, int dfd, char *rel, size_t rlen,
		     int depth);

/*
 * The subdirectory n of dfd, its path below the anchor in rel (elen
 * bytes), entered as the walk enters each: opened without following a
 * link (a mode the command took put back), left alone if it is a
 * read-only anchor, walked.  Whether it was walked from a descriptor of
 * its own with no mode put back on the way (a record a later walk may
 * trust).
 */
static bool
ws__walk_sub(struct ws__pass *p, int a, int dfd, const char *n, char *rel,
	     size_t elen, int depth)
{
	/* O_NOFOLLOW | O_DIRECTORY: a directory still, no link. */
	mode_t restore = 0;
	struct stat st;
	int sfd = ws__open_walk2(p, dfd, n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				 O_NONBLOCK | O_CLOEXEC, &restore);
	bool ro = false;
	int keep;

	if (sfd < 0 && (errno == EMFILE || errno == ENFILE))
		p->nofd = true;
	if (sfd >= 0 && p->nro > 0 && fstat(sfd, &st) == 0)
		for (size_t i = 0; i < p->nro && !ro; i++)
			ro = p->ro[i].st_dev == st.st_dev && p->ro[i].st_ino == st.st_ino;
	/* The person's own mode, once walked (ws__open_walk2()), through a
	 * descriptor: ws__walk() closes sfd. */
	keep = restore != 0 && sfd >= 0 ? fcntl(sfd, F_DUPFD_CLOEXEC, 3) : -1;
	if (sfd >= 0 && ro)
		close(sfd);
	else if (sfd >= 0)
		ws__walk(p, a, sfd, rel, elen, depth + 1);
	if (keep >= 0) {
		(void)ws__fd_chmod(keep, restore & 07777);
		close(keep);
	}
	return sfd >= 0 && !ro && restore == 0;
}

/*
 * Whether the directory st, at rlen bytes and depth below its anchor,
 * is record r unchanged (see above).  Also against this walk's own start
 * (p->t0s): a record kept by an earlier run was older than that run's
 * walk, and a clock stepped back since could stamp a change now with
 * the recorded ctime (review33 01).  And within this walk's reach: the
 * hard descriptor limit, and so p->max_depth, may be lower than when the
 * record was made, and its subdirectories would then lie past the reach
 * (review33 02).
 */
static bool
ws__drec_same(const struct ws__pass *p, const struct ws__drec *r, const struct stat *st,
	      size_t rlen, int depth)
{
	return r->plain && S_ISDIR(st->st_mode) && r->dev == st->st_dev &&
	       r->ino == st->st_ino && r->rlen == rlen && r->depth == depth &&
	       (size_t)depth < p->max_depth &&
	       r->ctim.tv_sec == st->st_ctim.tv_sec &&
	       r->ctim.tv_nsec == st->st_ctim.tv_nsec &&
	       r->ctim.tv_sec < p->t0s - WS__VCS_CTIME_MARGIN;
}

/*
 * The subdirectories of record r (of p->in), a directory found
 * unchanged, its path from bfd in sub (slen bytes, "" for bfd itself)
 * and below the anchor in rel (rlen bytes, at depth); oi its copy in
 * p->out (the walk before), or SIZE_MAX.  Each is looked at by its path
 * from bfd (one fstatat, where an open, an fstat and a close were): one
 * that has not changed either is gone through the same way; another is
 * entered as the walk enters a directory, from its parent's descriptor.
 * A path through directories found unchanged names what it named
 * before: none of their entries changed.
 */
static void
ws__walk_records(struct ws__pass *p, int a, int bfd, char *sub, size_t slen,
		 char *rel, size_t rlen, int depth, const struct ws__drec *r, size_t oi)
{
	const struct ws__recs *in = p->in;
	size_t last = SIZE_MAX;

	for (size_t c = r->child; c != SIZE_MAX && !p->over; c = in->dr[c].next) {
		const struct ws__drec *cr = &in->dr[c];
		const char *n = in->drn + cr->name;
		size_t nlen = strlen(n), elen = rlen + (rlen > 0) + nlen;
		size_t sl2 = slen + (slen > 0) + nlen, first;
		struct stat st;
		int pfd;

		if (rlen > 0)
			rel[rlen] = '/';
		memcpy(rel + elen - nlen, n, nlen + 1);
		if (sl2 < PATH_MAX) {
			bool same;

			if (slen > 0)
				sub[slen] = '/';
			memcpy(sub + sl2 - nlen, n, nlen + 1);
			/*
			 * On the same device as its parent: one on another (a
			 * mount point) is entered from a descriptor, whose file
			 * system is looked at again (ws__walk_unchanged()).
			 */
			same = fstatat(bfd, sub, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			       st.st_dev == r->dev &&
			       ws__drec_same(p, cr, &st, elen, depth + 1);
			if (same) {
				size_t ci = SIZE_MAX;

				if (oi != SIZE_MAX) {
					ci = ws__recs_add(p->out, cr, n, nlen);
					ws__drec_link(p, oi, &last, ci);
				}
				ws__walk_records(p, a, bfd, sub, sl2, rel, elen,
						 depth + 1, cr, ci);
			}
			sub[slen] = '\0';
			if (same) {
				rel[rlen] = '\0';
				continue;
			}
		}
		first = oi != SIZE_MAX ? p->out->ndr : SIZE_MAX;
		pfd = slen == 0 ? bfd : ws__open_below_p(p, bfd, sub, O_RDONLY | O_DIRECTORY);
		if (pfd >= 0) {
			if (!ws__walk_sub(p, a, pfd, n, rel, elen, depth))
				ws__drec_busy(p, oi);
			else if (oi != SIZE_MAX)
				ws__drec_link(p, oi, &last, ws__drec_made(p, first, elen, depth + 1));
			if (pfd != bfd)
				close(pfd);
		} else {
			if (errno == EMFILE || errno == ENFILE)
				p->nofd = true;
			ws__drec_busy(p, oi);
		}
		rel[rlen] = '\0';
	}
}

/*
 * A walk at the directory dfd (rel, rlen bytes, at depth): true if an
 * earlier walk's record (p->in) says it has not changed (see above), and
 * then only its subdirectories were looked at, its record copied for the
 * next walk (the walk before); false: read it.
 */
static bool
ws__walk_unchanged(struct ws__pass *p, int a, int dfd, char *rel, size_t rlen,
		   int depth)
{
	const struct ws__drec *r;
	struct stat st;
	size_t oi = SIZE_MAX;
	char *sub;

	bool crypt;

	/* Its file system looked at now: a device number of a file system
	 * the records were made on may be another's since. */
	if (p->in == NULL || p->in->drix == NULL || fstat(dfd, &st) < 0 ||
	    (r = ws__drec_find(p->in, &st)) == NULL ||
	    !ws__drec_same(p, r, &st, rlen, depth) || !ws__drec_fs(p, dfd, &st, &crypt))
		return false;
	/* On the heap, as the walk's read buffer: this nests as deep as
	 * the walk does, WS__VCS_DEPTH levels. */
	if ((sub = malloc(PATH_MAX)) == NULL)
		return false;
	if (p->out != NULL &&
	    (oi = ws__recs_add(p->out, r, p->in->drn + r->name,
			       strlen(p->in->drn + r->name))) == SIZE_MAX) {
		free(sub);
		return false;
	}
	sub[0] = '\0';
	ws__walk_records(p, a, dfd, sub, 0, rel, rlen, depth, r, oi);
	free(sub);
	return true;
}

/*
 * The walk of a writable anchor for .git, .hg and .envrc at any depth,
 * before and after every wsrun call.  The directory is read with
 * getdents64() rather than fdopendir(), which adds an fstat and two
 * fcntl calls per directory (three of the seven calls each directory
 * took).  Each directory is read until getdents64() returns 0: see below.
 */
static void
ws__walk(struct ws__pass *p, int a, int dfd, char *rel, size_t rlen, int depth)
{
	char *buf;
	ssize_t got = 0, off = 0;
	bool links;
	/* This directory's record and its last subdirectory's (the walk
	 * before the command), or SIZE_MAX. */
	size_t me = SIZE_MAX, last = SIZE_MAX;

	if (ws__walk_unchanged(p, a, dfd, rel, rlen, depth)) {
		close(dfd);
		return;
	}
	if (p->out != NULL && !p->over)
		me = ws__drec_open(p, dfd, rel, rlen, depth);
	if ((buf = malloc(WS__DENTS)) == NULL) {
		ws__drec_busy(p, me);
		close(dfd);
		return;
	}
	links = p->clean && ws__links_here(p, a, dfd, rel, rlen);
	while (!p->over) {
		struct dirent64 *e;
		const char *n;
		struct stat st;
		char *r;
		size_t nlen, elen;
		bool special;

		if (off >= got) {
			/*
			 * Read until getdents64() says 0: a read that is not
			 * full is not the end.  The kernel cuts a read short
			 * after its first entry when a signal is pending (a
			 * stop and continue, a debugger, a freeze): a walk that
			 * took it for the end missed repositories (review15 02,
			 * 03).  EINTR is read again for the same reason.
			 */
			do
				got = getdents64(dfd, buf, WS__DENTS);
			while (got < 0 && errno == EINTR);
			off = 0;
			if (got < 0)
				ws__drec_busy(p, me);
			if (got <= 0)
				break;
		}
		e = (struct dirent64 *)(void *)(buf + off);
		off += e->d_reclen;
		n = e->d_name;

		if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
			continue;
		if (++p->walked > p->limit) {
			p->over = true;
			ws__drec_busy(p, me);
			break;
		}
		/* The names below start with "H" or "." : most do not. */
		special = (n[0] == 'H' && strcmp(n, "HEAD") == 0) ||
			  (n[0] == '.' && (strcmp(n, ".git") == 0 ||
					   strcmp(n, WS_STATE_MARK) == 0 ||
					   strcmp(n, ".envrc") == 0 || strcmp(n, ".hg") == 0 ||
					   strcmp(n, ".jj") == 0 || strcmp(n, ".sl") == 0 ||
					   strcmp(n, ".vscode") == 0 || strcmp(n, ".idea") == 0 ||
					   strncmp(n, ".wsrun-deep-", 12) == 0));
		/* Read again after the command: see ws__walk_unchanged(). */
		if (special || e->d_type == DT_UNKNOWN || e->d_type == DT_LNK ||
		    (n[0] == 'w' && strcmp(n, "wstools") == 0))
			ws__drec_busy(p, me);
		if (links && !special &&
		    ws__denied_link(p, a, dfd, rel, rlen, n, e->d_type))
			continue;
		if (!p->clean && p->s != NULL && p->ws->policy != NULL &&
		    e->d_type == DT_LNK && !special)
			ws__note_link(p, a, dfd, rel, rlen, n);
		/* Most entries are ordinary files: readdir's type says so,
		 * without a system call each (half the walk's time). */
		if (!special && e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		if (!special && e->d_type == DT_DIR) {
			st.st_mode = S_IFDIR;
		} else if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			continue;
		}
		/*
		 * The entry's path below the anchor, rel "/" name, written in
		 * place after rel (the buffer has room for WS__VCS_PATH_MAX and
		 * a name: a longer rel is never walked), and rel ended again
		 * before the next entry or where rel itself is named.
		 */
		nlen = strlen(n);
		r = rel;
		if (rlen > 0)
			rel[rlen] = '/';
		elen = rlen + (rlen > 0) + nlen;
		memcpy(rel + elen - nlen, n, nlen + 1);
		/*
		 * What is left of a deep tree whose removal failed half way
		 * (ws__rm_deep(); a killed wsrun): within reach now, but what
		 * it held was never seen, and the walk before a command would
		 * take it for the person's (review25 02).  It refuses the run
		 * as the tree did.
		 */
		if (!p->clean && p->s != NULL && p->s->deep_rel == NULL &&
		    n[0] == '.' && strncmp(n, ".wsrun-deep-", 12) == 0)
			p->s->deep_rel = strndup(r, 120);
		/*
		 * One there after the command that was not before (the run
		 * was refused then) is the command's, or what this clean-up's
		 * own removal left: removed, so that it does not refuse the
		 * next run (review26 05).
		 */
		if (p->clean && p->was != NULL && !p->was->over && n[0] == '.' &&
		    strncmp(n, ".wsrun-deep-", 12) == 0) {
			if ((S_ISDIR(st.st_mode) ? ws__rm_deep(dfd, n) : unlinkat(dfd, n, 0)) == 0) {
				rel[rlen] = '\0';
				ws__item(p, a, rel[0] ? rel : ".", "%s: removed (a name of "
					 "wsrun's own, made by the command)", n);
				continue;
			}
		}
		/*
		 * A home's state directory by its name (.local/state/wstools),
		 * marked or not (one made before the mark): another home's
		 * that the view does not mask refuses the run, as a marked
		 * one does (review23 03).
		 */
		if (!p->clean && n[0] == 'w' && S_ISDIR(st.st_mode) &&
		    strcmp(n, "wstools") == 0 && elen >= 20 &&
		    strcmp(rel + elen - 20, ".local/state/wstools") == 0 &&
		    (elen == 20 || rel[elen - 21] == '/'))
			ws__state_dir_seen(p, a, dfd, n, rel);
		if (special && strcmp(n, "HEAD") == 0 && !S_ISDIR(st.st_mode)) {
			/*
			 * A bare repository: git finds it from any directory
			 * inside, reads its configuration, and a push into it
			 * runs its hooks.  Git's own test (is_git_directory())
			 * is HEAD, then objects and refs by access(), which
			 * follows symlinks and takes an executable file, in
			 * the directory "commondir" names if there is one, or
			 * no objects at all under GIT_OBJECT_DIRECTORY: so
			 * HEAD with refs or commondir, followed, of any type,
			 * is one here (a few directories git would refuse are
			 * cleaned too, never one it would take is missed).
			 * A dangling refs link counts too: a file tool's
			 * mkdir of its target would make the repository
			 * after this walk (review18 01).
			 */
			struct stat xs;

			rel[rlen] = '\0';
			if (fstatat(dfd, "refs", &xs, AT_SYMLINK_NOFOLLOW) == 0 ||
			    fstatat(dfd, "commondir", &xs, AT_SYMLINK_NOFOLLOW) == 0)
				ws__gitdir(p, a, rel[0] ? rel : ".", 0, false);
		} else if (special && strcmp(n, WS_STATE_MARK) == 0) {
			/*
			 * wstools' state directory (ws_hist_open() marks it)
			 * that this call's view does not mask: one under the
			 * person's XDG_STATE_HOME, which the agent's server
			 * was started without.  Its journals are what undo
			 * trusts, its objects what files held (review23 02).
			 */
			rel[rlen] = '\0';
			if (p->clean)
				ws__mark_made(p, a, dfd, n, rel);
			else
				ws__state_dir_seen(p, a, dfd, ".", rel);
		} else if (special && strcmp(n, ".git") == 0) {
			if (S_ISDIR(st.st_mode))
				ws__gitdir(p, a, r, 0, false);
			else
				(void)ws__watch(p, dfd, n, a, r, WS__W_GITFILE);
		} else if (special && (strcmp(n, ".envrc") == 0 || strcmp(n, ".vscode") == 0 ||
				       strcmp(n, ".idea") == 0)) {
			/*
			 * An editor's folder settings: what an editor opening
			 * that directory runs (tasks.json's "folderOpen"), as
			 * .envrc is what direnv runs (review22 01): the
			 * directory and what it holds.  The top's too: they
			 * are places of lib/run.c, read-only in a command's
			 * mount namespace, but where none can be made (the
			 * fallback) only this walk puts them back.
			 */
			(void)ws__watch(p, dfd, n, a, r, WS__W_PLAIN);
			if (n[1] != 'e' && S_ISDIR(st.st_mode)) {
				char *parent = strndup(rel, rlen);

				if (parent != NULL)
					ws__gdir_each(p, dfd, a, parent, n, depth, 3);
				free(parent);
			}
		} else if (special && (strcmp(n, ".hg") == 0 || strcmp(n, ".jj") == 0 ||
				       strcmp(n, ".sl") == 0) && !S_ISDIR(st.st_mode)) {
			/*
			 * A .hg, .jj or .sl that is a link (or a file): hg
			 * follows the link to the directory it reads hgrc in,
			 * so one the command made is removed, one it changed
			 * restored, as .git files are (review20 04).
			 */
			(void)ws__watch(p, dfd, n, a, r, WS__W_PLAIN);
			if (S_ISLNK(st.st_mode))
				ws__vcs_link_target(p, dfd, n);
		} else if (special && strcmp(n, ".hg") == 0 && S_ISDIR(st.st_mode)) {
			ws__hgdir(p, a, r);
		} else if (special && (strcmp(n, ".jj") == 0 || strcmp(n, ".sl") == 0) &&
			   S_ISDIR(st.st_mode)) {
			ws__jjsldir(p, a, r, n[1] == 'j');
		} else if (S_ISDIR(st.st_mode) && ((size_t)depth >= p->max_depth ||
						   elen >= WS__VCS_PATH_MAX)) {
			/*
			 * Past the walk's reach, a program can still make and
			 * use a directory, one level at a time; what it plants
			 * there (a repository, an .envrc) no walk sees, and a
			 * file tool's move of an ancestor brings it within
			 * reach (review23 01).  Before the command such a
			 * directory refuses the run (ws_vcs_snapshot()), so
			 * after it one was made by the command: removed,
			 * whole, unless the walk before stopped at its bound
			 * (then it may be the user's: said, not removed).
			 */
			if (!p->clean && p->s != NULL && p->s->deep_rel == NULL)
				p->s->deep_rel = strndup(r, 120);
			ws__drec_busy(p, me);
			if (p->clean && p->was != NULL && !p->was->over &&
			    p->was->deep_rel == NULL) {
				char *vp = NULL;

				rel[rlen] = '\0';
				/* Named by its head: the whole is longer than a line. */
				if (ws_ctx_virtual_of(p->ws, (int)a, rel, &vp) < 0)
					vp = NULL;
				if (ws__rm_deep(dfd, n) == 0)
					ws__item(p, -1, NULL, "%.80s%s/%.40s%s: removed: a "
						 "directory tree deeper than wsrun can check "
						 "for repositories (%d bytes of path or %d "
						 "levels), made by the command",
						 vp ? vp : "", vp && strlen(vp) > 80 ? "..." : "",
						 n, strlen(n) > 40 ? "..." : "",
						 WS__VCS_PATH_MAX, (int)p->max_depth);
				else
					p->deep = true;
				free(vp);
				continue;
			}
			p->deep = true;
		} else if (S_ISDIR(st.st_mode)) {
			size_t first = me != SIZE_MAX ? p->out->ndr : SIZE_MAX;

			/* The subdirectory's own record is the first its walk
			 * made (or copied). */
			if (!ws__walk_sub(p, a, dfd, n, r, elen, depth))
				ws__drec_busy(p, me);
			else if (me != SIZE_MAX)
				ws__drec_link(p, me, &last, ws__drec_made(p, first, elen, depth + 1));
		}
		rel[rlen] = '\0';
	}
	if (p->over)
		ws__drec_busy(p, me);
	free(buf);
	close(dfd);
}

/* The state directories the command's view masks: this call's and each
 * home's (struct ws__pass's known). */
static void
ws__pass_known(struct ws__pass *p)
{
	char *home[2];
	size_t nh = ws_homes(home);

	if (p->ws->hist_base != NULL && stat(p->ws->hist_base, &p->known[p->nknown]) == 0)
		p->nknown++;
	for (size_t h = 0; h < nh; h++) {
		char *b = ws_path_join(home[h], ".local/state/wstools");

		if (b != NULL && stat(b, &p->known[p->nknown]) == 0)
			p->nknown++;
		free(b);
		free(home[h]);
	}
}

/*
 * The top of writable anchor a, opened to be walked.  The command runs as
 * the person, who owns it (the workspace, a mount's directory), and can
 * chmod it 311, 600 or 000: the walk after it then opened nothing there
 * and skipped the whole anchor without a word, and the repositories and
 * .envrc files the command planted stayed (review28 02).  After the
 * command the owner's rwx bits are put back on it, as on a directory
 * inside (ws__open_walk2(); counted, and said), through the anchor's own
 * descriptor: the open of "." is a look-up in the directory, which its
 * search bit decides.  One that still cannot be read is noted
 * (p->top_err): before the command that refuses the run
 * (ws_vcs_snapshot()), since nothing in it could be told from what the
 * command makes; after it, it is said loudly.
 */
static int
ws__open_top(struct ws__pass *p, size_t a)
{
	int afd = p->ws->anchors[a].fd;
	int fd = openat(afd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = errno;
	struct stat st;

	if (fd >= 0)
		return fd;
	if (err == EACCES && p->clean && fstat(afd, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == geteuid() && (st.st_mode & S_IRWXU) != S_IRWXU &&
	    ws__fd_chmod(afd, (st.st_mode & 07777) | S_IRWXU) == 0) {
		p->chmodded++;
		if ((fd = openat(afd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
			return fd;
		err = errno;
	}
	if (p->top_err == 0) {
		p->top_err = err ? err : EACCES;
		p->top_a = a;
	}
	if (p->clean)
		ws__item(p, (int)a, ".", "cannot be read after the command (%s), so "
			 "nothing in it was checked for the repositories and .envrc "
			 "files the command may have planted: look at all of it "
			 "before git, a shell or an editor runs there",
			 strerror(err ? err : EACCES));
	errno = err;
	return -1;
}

static void
ws__pass_run(struct ws__pass *p)
{
	struct ws_ctx *ws = p->ws;
	struct rlimit more;
	int *tops;
	/* The walk's path below the anchor: the longest it enters, a name. */
	char rel[WS__VCS_PATH_MAX + 258];

	/*
	 * A descriptor per level of the walk, WS__VCS_DEPTH of them and
	 * as many again for a git dir's own walk: the soft limit raised if
	 * it is lower, as far as the hard one lets.  Not set back after the
	 * walk: a concurrent call (the policy's view of another wsrun call
	 * of the MCP server) may hold more descriptors than the old limit
	 * by then; the command gets the old one (ws__nofile_raise()).
	 */
	if (getrlimit(RLIMIT_NOFILE, &more) == 0 && more.rlim_cur != RLIM_INFINITY &&
	    more.rlim_cur < 3 * WS__VCS_DEPTH)
		ws__nofile_raise();
	/*
	 * Where the hard limit is below what WS__VCS_DEPTH levels take, the
	 * walk goes as deep as the descriptors let (a margin kept for the
	 * rest of the process), and what lies deeper is handled as a tree
	 * past its reach: refused before the command, removed after it.  A
	 * walk that ran out of descriptors instead noted it and went on,
	 * leaving a repository planted deeper (review23 11).  The hard limit
	 * decides, so the walks before and after agree on the depth.
	 */
	p->max_depth = WS__VCS_DEPTH;
	if (getrlimit(RLIMIT_NOFILE, &more) == 0 && more.rlim_max != RLIM_INFINITY &&
	    more.rlim_max < 3 * WS__VCS_DEPTH + 256)
		p->max_depth = more.rlim_max > 256 + 3 * 16 ? (more.rlim_max - 256) / 3 : 16;

	p->ro = calloc(ws->nanchors ? ws->nanchors : 1, sizeof(*p->ro));
	for (size_t a = 0; p->ro != NULL && a < ws->nanchors; a++)
		if (ws->anchors[a].ro && fstat(ws->anchors[a].fd, &p->ro[p->nro]) == 0)
			p->nro++;
	/*
	 * Each writable anchor's top, opened first: after the command, its
	 * rwx bits are back before the git dirs there were are looked up
	 * through it.  A mount inside a writable anchor is walked with it.
	 */
	if ((tops = malloc((ws->nanchors ? ws->nanchors : 1) * sizeof(*tops))) == NULL)
		p->nofd = true; /* nothing walked: said, or refused before */
	for (size_t a = 0; tops != NULL && a < ws->nanchors; a++) {
		bool inner = false;

		tops[a] = -1;
		if (ws->anchors[a].ro)
			continue;
		for (size_t k = 0; k < ws->nanchors && !inner; k++)
			inner = k != a && !ws->anchors[k].ro &&
				strcmp(ws->anchors[k].real, ws->anchors[a].real) != 0 &&
				ws_path_within(ws->anchors[k].real, ws->anchors[a].real, NULL);
		if (!inner)
			tops[a] = ws__open_top(p, a);
	}
	/* The git dirs there were, first: the bound cannot leave them out. */
	for (size_t i = 0; p->clean && p->was != NULL && i < p->was->ngd; i++)
		ws__gitdir(p, p->was->gd[i].a, p->was->gd[i].rel, 0, false);
	for (size_t a = 0; tops != NULL && a < ws->nanchors; a++) {
		rel[0] = '\0';
		if (tops[a] >= 0 && !p->over)
			ws__walk(p, (int)a, tops[a], rel, 0, 0);
		else if (tops[a] >= 0)
			close(tops[a]);
	}
	/* The person's modes, noted before the command, back. */
	for (size_t i = p->nlater; i-- > 0;) {
		(void)ws__fd_chmod(p->later[i].fd, p->later[i].mode);
		close(p->later[i].fd);
	}
	free(tops);
	free(p->later);
	free(p->ro);
	free(p->done);
}

/* ---- The records kept for the next run -------------------------------- */

/*
 * Where the records of this workspace's walks are kept: the state
 * directory's walks/, the file named by a hash of the writable anchors
 * (their real paths and identities, into hex), so that another set of
 * mounts starts afresh.  Only in a state directory that a history has
 * marked (WS_STATE_MARK: one without the mark that holds files is taken
 * for a forged one and refused by the history, lib/history.c
 * ws__hist_mark()), or the default one under a home, which the history
 * marks whatever it holds; and not while a command runs in a workspace
 * that holds it: it may have made the mark and the file (review33 03),
 * as the history refuses its journals then (review28 09).  This call's
 * own run holds its workspace so: a state directory inside it keeps
 * nothing either.  Everything is looked at on a descriptor of the state
 * directory, which is returned; -1: nothing kept.  make: the walks/ of
 * a default place not made yet may be made (the default place too).
 */
/* Whether a home's default state directory (~/.local/state/wstools) is
 * spelled path, or (path NULL) is the directory st. */
static bool
ws__home_state(const char *path, const struct stat *st)
{
	char *home[2];
	size_t nh = ws_homes(home);
	bool is = false;

	if (path == NULL)
		is = ws__hist_home_place(st, home, nh);
	for (size_t h = 0; h < nh && path != NULL && !is; h++) {
		char *b = ws_path_join(home[h], ".local/state/wstools");

		is = b != NULL && strcmp(b, path) == 0;
		free(b);
	}
	ws_homes_free(home, nh);
	return is;
}

static int
ws__recs_dir(const struct ws_ctx *ws, char hex[WS_SHA256_HEX + 1], bool make)
{
	struct ws_sha256 c;
	unsigned char d[WS_SHA256_LEN];
	struct stat ms, bs;
	bool ok;
	int bfd;

	if (ws->hist_base == NULL || ws->hist_base[0] != '/')
		return -1;
	bfd = open(ws->hist_base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* Only a home's default place is made here (as a run makes its
	 * running/ there): another is the history's to make. */
	if (bfd < 0 && errno == ENOENT && make &&
	    ws__home_state(ws->hist_base, NULL) && ws_pending_dir_make(ws->hist_base) == 0)
		bfd = open(ws->hist_base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bfd < 0)
		return -1;
	ok = (fstatat(bfd, WS_STATE_MARK, &ms, AT_SYMLINK_NOFOLLOW) == 0 &&
	      S_ISREG(ms.st_mode)) ||
	     (fstat(bfd, &bs) == 0 && ws__home_state(NULL, &bs));
	if (!ok || ws__hist_run_above(bfd)) {
		close(bfd);
		return -1;
	}
	ws_sha256_init(&c);
	ws_sha256_update(&c, "wswalk01", 8);
	for (size_t a = 0; a < ws->nanchors; a++) {
		struct stat st;
		uint64_t id[2];

		if (ws->anchors[a].ro)
			continue;
		if (fstat(ws->anchors[a].fd, &st) < 0) {
			close(bfd);
			return -1;
		}
		id[0] = (uint64_t)st.st_dev;
		id[1] = (uint64_t)st.st_ino;
		ws_sha256_update(&c, ws->anchors[a].real, strlen(ws->anchors[a].real) + 1);
		ws_sha256_update(&c, id, sizeof(id));
	}
	ws_sha256_final(&c, d);
	ws_sha256_tohex(d, hex);
	return bfd;
}

/* A record as the file holds it: fixed widths, no padding. */
#define WS__REC_BYTES (8 * 8 + 4 + 4)
#define WS__RECS_HEAD 24
#define WS__RECS_MAX (64u << 20)

static void
ws__put64(unsigned char *b, uint64_t v)
{
	memcpy(b, &v, 8);
}

static uint64_t
ws__get64(const unsigned char *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return v;
}

/*
 * Keep o for the next run's walk before (best effort: a record not kept
 * is a directory read).  Written whole beside the file and renamed over
 * it, with a SHA-256 of the rest at its end: a torn or foreign file is
 * not used (ws__recs_load()).  The state directory is one no command can
 * write (the view masks it, the file tools refuse it).
 */
static void
ws__recs_save(int bfd, const char *hex, const struct ws__recs *o,
	      const struct ws__recs *last)
{
	char tmp[64];
	size_t len = WS__RECS_HEAD + o->ndr * WS__REC_BYTES + o->ndrn + WS_SHA256_LEN;
	unsigned char *buf = NULL, *b;
	int dfd = -1, fd = -1;

	if (bfd < 0 || o->ndr == 0 || len > WS__RECS_MAX ||
	    (buf = malloc(len)) == NULL)
		goto out;
	memcpy(buf, "wswalk01", 8);
	ws__put64(buf + 8, o->ndr);
	ws__put64(buf + 16, o->ndrn);
	b = buf + WS__RECS_HEAD;
	for (size_t i = 0; i < o->ndr; i++, b += WS__REC_BYTES) {
		const struct ws__drec *r = &o->dr[i];
		uint32_t depth = (uint32_t)r->depth, plain = r->plain;

		ws__put64(b, (uint64_t)r->dev);
		ws__put64(b + 8, (uint64_t)r->ino);
		ws__put64(b + 16, (uint64_t)r->ctim.tv_sec);
		ws__put64(b + 24, (uint64_t)r->ctim.tv_nsec);
		ws__put64(b + 32, r->name);
		ws__put64(b + 40, r->child);
		ws__put64(b + 48, r->next);
		ws__put64(b + 56, r->rlen);
		memcpy(b + 64, &depth, 4);
		memcpy(b + 68, &plain, 4);
	}
	memcpy(b, o->drn, o->ndrn);
	b += o->ndrn;
	{
		struct ws_sha256 c;

		ws_sha256_init(&c);
		ws_sha256_update(&c, buf, (size_t)(b - buf));
		ws_sha256_final(&c, b);
	}
	/*
	 * The same records as the file holds (nothing changed since the
	 * last run): not written again, which on a journalled file system
	 * costs a creation and a rename (~0.3 ms) each run.
	 */
	if ((last != NULL && last->summed && memcmp(last->sum, b, WS_SHA256_LEN) == 0) ||
	    (mkdirat(bfd, "walks", 0700) < 0 && errno != EEXIST) ||
	    (dfd = openat(bfd, "walks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			  O_CLOEXEC)) < 0)
		goto out;
	snprintf(tmp, sizeof(tmp), ".%.16s.%ld", hex, (long)getpid());
	if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
			 O_CLOEXEC, 0600)) < 0)
		goto out;
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			(void)unlinkat(dfd, tmp, 0);
			goto out;
		}
		off += (size_t)w;
	}
	if (renameat(dfd, tmp, dfd, hex) < 0)
		(void)unlinkat(dfd, tmp, 0);
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	free(buf);
}

/*
 * The records the last run's walk before kept (ws__recs_save()) into o,
 * checked whole: the hash, the sizes, each name ended inside the names,
 * each link to a later record (so no walk of them loops).  false, o
 * empty: none, or not to be trusted.
 */
static bool
ws__recs_load(int bfd, const char *hex, struct ws__recs *o)
{
	unsigned char *buf = NULL, *seen = NULL, sum[WS_SHA256_LEN];
	const unsigned char *b;
	uint64_t ndr, ndrn;
	struct stat st;
	size_t len = 0;
	bool ok = false;
	int fd = -1, wfd = -1;

	memset(o, 0, sizeof(*o));
	if (bfd < 0 ||
	    (wfd = openat(bfd, "walks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			  O_CLOEXEC)) < 0 ||
	    (fd = openat(wfd, hex, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < WS__RECS_HEAD + WS_SHA256_LEN || st.st_size > WS__RECS_MAX ||
	    (buf = malloc((size_t)st.st_size)) == NULL)
		goto out;
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto out;
		len += (size_t)n;
	}
	ndr = ws__get64(buf + 8);
	ndrn = ws__get64(buf + 16);
	if (memcmp(buf, "wswalk01", 8) != 0 || ndr == 0 || ndrn == 0 ||
	    ndr > WS__RECS_MAX / WS__REC_BYTES || ndrn > WS__RECS_MAX ||
	    len != WS__RECS_HEAD + ndr * WS__REC_BYTES + ndrn + WS_SHA256_LEN)
		goto out;
	{
		struct ws_sha256 c;

		ws_sha256_init(&c);
		ws_sha256_update(&c, buf, len - WS_SHA256_LEN);
		ws_sha256_final(&c, sum);
		if (memcmp(sum, buf + len - WS_SHA256_LEN, WS_SHA256_LEN) != 0)
			goto out;
	}
	memcpy(o->sum, sum, WS_SHA256_LEN);
	if ((o->dr = calloc(ndr, sizeof(*o->dr))) == NULL ||
	    (o->drn = malloc(ndrn)) == NULL)
		goto out;
	b = buf + WS__RECS_HEAD;
	memcpy(o->drn, b + ndr * WS__REC_BYTES, ndrn);
	if (o->drn[ndrn - 1] != '\0')
		goto out;
	for (size_t i = 0; i < ndr; i++, b += WS__REC_BYTES) {
		struct ws__drec *r = &o->dr[i];
		uint32_t depth, plain;
		uint64_t nsec = ws__get64(b + 24);

		r->dev = (dev_t)ws__get64(b);
		r->ino = (ino_t)ws__get64(b + 8);
		r->ctim.tv_sec = (time_t)ws__get64(b + 16);
		r->ctim.tv_nsec = (long)nsec;
		r->name = ws__get64(b + 32);
		r->child = ws__get64(b + 40);
		r->next = ws__get64(b + 48);
		r->rlen = ws__get64(b + 56);
		memcpy(&depth, b + 64, 4);
		memcpy(&plain, b + 68, 4);
		r->depth = (int)depth;
		r->plain = plain == 1;
		if (nsec >= 1000000000u || r->name >= ndrn || depth > WS__VCS_DEPTH ||
		    r->rlen >= WS__VCS_PATH_MAX ||
		    (r->child != SIZE_MAX && (r->child <= i || r->child >= ndr)) ||
		    (r->next != SIZE_MAX && (r->next <= i || r->next >= ndr)))
			goto out;
	}
	/*
	 * Each name one component of a directory (review33 04: a ".." from
	 * a forged file led both walks out of the workspace), each
	 * subdirectory one level below its parent, its path that long.
	 */
	if ((seen = calloc(ndr, 1)) == NULL)
		goto out;
	for (size_t i = 0; i < ndr; i++) {
		const struct ws__drec *r = &o->dr[i];
		const char *n = o->drn + r->name;
		bool top = r->depth == 0;

		if (top != (n[0] == '\0') || (top && r->rlen != 0) ||
		    (!top && (strchr(n, '/') != NULL || strcmp(n, ".") == 0 ||
			      strcmp(n, "..") == 0)))
			goto out;
		/* A record is one directory's subdirectory, or none's: the
		 * lists are apart, and reading them is linear. */
		if ((r->child != SIZE_MAX && seen[r->child]++) ||
		    (r->next != SIZE_MAX && seen[r->next]++))
			goto out;
	}
	for (size_t i = 0; i < ndr; i++) {
		const struct ws__drec *r = &o->dr[i];

		for (size_t c = r->child; c != SIZE_MAX; c = o->dr[c].next) {
			const struct ws__drec *cr = &o->dr[c];

			if (cr->depth != r->depth + 1 ||
			    cr->rlen != r->rlen + (r->rlen > 0) + strlen(o->drn + cr->name))
				goto out;
		}
	}
	o->ndr = o->cdr = ndr;
	o->ndrn = o->cdrn = ndrn;
	ws__drix_make(o);
	ok = o->drix != NULL;
	o->summed = ok;
out:
	if (!ok)
		ws__recs_free(o);
	if (fd >= 0)
		close(fd);
	if (wfd >= 0)
		close(wfd);
	free(seen);
	free(buf);
	return ok;
}


int
ws_vcs_snapshot(struct ws_ctx *ws, struct ws_vcs_snap **out)
{
	struct ws__pass p = {.ws = ws, .limit = ws__vcs_walk_max};
	struct ws__recs last;
	char hex[WS_SHA256_HEX + 1];
	bool have_last;
	int rfd;

	*out = NULL;
	ws__pass_known(&p);
	if ((p.s = calloc(1, sizeof(*p.s))) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	/* Before anything of the walk, and so before the command. */
	(void)clock_gettime(CLOCK_REALTIME_COARSE, &p.s->t0);
	p.out = &p.s->rec;
	p.t0s = p.s->t0.tv_sec;
	/* The last run's records, where the walk counts every entry (a
	 * bound set for the tests) is not asked for. */
	rfd = p.limit == SIZE_MAX ? ws__recs_dir(ws, hex, true) : -1;
	have_last = ws__recs_load(rfd, hex, &last);
	p.in = have_last ? &last : NULL;
	ws__pass_run(&p);
	p.s->over = p.over;
	if (!p.over && !p.nofd && p.top_err == 0) {
		ws__drix_make(&p.s->rec);
		ws__recs_save(rfd, hex, &p.s->rec, have_last ? &last : NULL);
	}
	if (have_last)
		ws__recs_free(&last);
	if (rfd >= 0)
		close(rfd);
	free(p.unread); /* said after the command, if still so */
	/*
	 * A writable anchor's top that cannot be read and searched: what
	 * it holds cannot be recorded, so the walk after the command could
	 * not tell the person's repositories from what the command plants
	 * there (review28 02).  Refused, as the policy's walk refuses one.
	 */
	if (p.top_err != 0) {
		const struct ws_anchor *an = &ws->anchors[p.top_a];
		int rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, an->vprefix,
				      "%s%s cannot be read (%s): wsrun checks it "
				      "for repositories and .envrc files before and "
				      "after each command, and could not tell what is "
				      "there now from what a command plants: refused "
				      "rather than run with it unchecked",
				      p.top_a == 0 ? "the workspace's top" :
				      "the directory mounted at ",
				      p.top_a == 0 ? "" : an->vprefix,
				      strerror(p.top_err));

		ws_error_set_hint("give it back its owner's read and search bits "
				  "(chmod u+rx), then run the command again");
		ws_vcs_snap_free(p.s);
		return rc;
	}
	/* Out of descriptors: some directories went unread, so the walk
	 * after could not tell their repositories from the command's. */
	if (p.nofd && p.s->deep_rel == NULL) {
		ws_vcs_snap_free(p.s);
		return ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
				    "out of file descriptors while looking for the "
				    "workspace's repositories before the command: "
				    "some directories were not read");
	}
	/*
	 * A directory past the walk's reach: a command could plant a
	 * repository in it that no walk after it sees, and the walk after
	 * could not tell it from the command's own (review23 01).  Refused;
	 * one the command makes is removed after it (ws__walk()).
	 */
	if (p.s->deep_rel != NULL) {
		int rc = ws_error_set(WS_ELIMIT_EXCEEDED, NULL,
				      "the workspace holds a directory deeper than "
				      "wsrun can check for repositories (%d bytes of "
				      "path or %d levels), at %s...: a command could "
				      "plant one there that no check after it sees",
				      WS__VCS_PATH_MAX, (int)p.max_depth, p.s->deep_rel);

		ws_error_set_hint("move that tree out of the workspace, or "
				  "shorten its path, then run the command again");
		ws_vcs_snap_free(p.s);
		return rc;
	}
	if (p.s->state_rel != NULL) {
		char *vp = NULL;
		int rc;

		if (ws_ctx_virtual_of(ws, p.s->state_a, p.s->state_rel, &vp) < 0)
			vp = NULL;
		rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, vp ? vp : p.s->state_rel,
				  "is wstools' state directory of another home, "
				  "XDG_STATE_HOME or --state-dir than this call's, "
				  "which the command's view does not hide: it keeps "
				  "what files held before each change, and undo "
				  "trusts its journals");
		ws_error_set_hint("give this process the XDG_STATE_HOME (or "
				  "--state-dir) of the shell that made it (an MCP "
				  "client's \"env\"), or move it out of the workspace");
		free(vp);
		ws_vcs_snap_free(p.s);
		return rc;
	}
	*out = p.s;
	return 0;
}

int
ws_vcs_snap_hold(struct ws_vcs_snap *s, const struct ws_vcs_id *v, size_t n)
{
	struct ws_vcs_id *nv;

	if (n == 0)
		return 0;
	if ((nv = realloc(s->held, (s->nheld + n) * sizeof(*nv))) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	memcpy(nv + s->nheld, v, n * sizeof(*nv));
	s->held = nv;
	s->nheld += n;
	return 0;
}

bool
ws_vcs_snap_held(const struct ws_vcs_snap *s, const struct stat *st,
		 const struct stat *pst)
{
	/* A file with a second name: written there, not here. */
	bool one = st == NULL || !S_ISREG(st->st_mode) || st->st_nlink == 1;

	for (size_t i = 0; s != NULL && one && i < s->nheld; i++)
		if ((pst != NULL && S_ISDIR(pst->st_mode) &&
		     s->held[i].dev == pst->st_dev && s->held[i].ino == pst->st_ino) ||
		    (st != NULL && s->held[i].dev == st->st_dev &&
		     s->held[i].ino == st->st_ino))
			return true;
	return false;
}

void
ws_vcs_set_walk_max(size_t n)
{
	ws__vcs_walk_max = n ? n : SIZE_MAX;
}

void
ws_vcs_clean(struct ws_ctx *ws, const struct ws_vcs_snap *s, bool net,
	     char ***items, size_t *n)
{
	ws_vcs_clean_kept(ws, s, net, items, n, items, n);
}

void
ws_vcs_clean_kept(struct ws_ctx *ws, const struct ws_vcs_snap *s, bool net,
		  char ***items, size_t *n, char ***kept, size_t *nkept)
{
	/*
	 * Every entry, however many: a bound here would let a command hide
	 * a repository behind entries it made (or behind a workspace that
	 * was already that large).  readdir's type says which entries are
	 * directories, so an ordinary file costs no system call (about
	 * 0.3 us an entry, see wsrun(1)).
	 */
	struct ws__pass p = {.ws = ws, .was = s, .clean = true,
			     .in = s != NULL && !s->over ? &s->rec : NULL,
			     .t0s = s != NULL ? s->t0.tv_sec : 0,
			     .items = items, .nitems = n, .net = net,
			     .kept = kept, .nkept = nkept,
			     .limit = SIZE_MAX,
			     .links = ws->policy != NULL && s != NULL &&
				      s->t0.tv_sec != 0};

	ws__pass_known(&p);
	ws__pass_run(&p);
	if (p.deep)
		ws__item(&p, -1, NULL, "(directories deeper than %d bytes of path "
			 "or %d levels were not checked for repositories and "
			 ".envrc files: a program reaches them one level at a "
			 "time; move them out of the workspace)", WS__VCS_PATH_MAX,
			 WS__VCS_DEPTH);
	if (p.nofd)
		ws__item(&p, -1, NULL, "(out of file descriptors: some directories "
			 "were not checked for repositories and .envrc files)");
	if (p.chmodded > 0)
		ws__item(&p, -1, NULL, "your rwx bits put back on %zu %s that "
			 "the command had made unreadable or read-only, so that "
			 "they could be checked for repositories and .envrc files",
			 p.chmodded, p.chmodded == 1 ? "directory" : "directories");
	if (p.unread != NULL) {
		ws__item(&p, -1, NULL, "%s: not readable, so not checked for "
			 "repositories and .envrc files: look at it before you "
			 "use it", p.unread);
		free(p.unread);
	}
}

/* ---- A snapshot handed to another process ------------------------------- */

/* n bytes at p (NULL: none) on f, their length first. */
static void
ws__snap_put(FILE *f, const void *p, size_t n)
{
	size_t len = p != NULL ? n : SIZE_MAX;

	fwrite(&len, sizeof(len), 1, f);
	if (p != NULL && n > 0)
		fwrite(p, 1, n, f);
}

/* What ws__snap_put() wrote, NUL-terminated (NULL stays NULL); false
 * when f ends early. */
static bool
ws__snap_get(FILE *f, char **p, size_t *n)
{
	size_t len;

	*p = NULL;
	if (fread(&len, sizeof(len), 1, f) != 1)
		return false;
	if (n != NULL)
		*n = len == SIZE_MAX ? 0 : len;
	if (len == SIZE_MAX)
		return true;
	if (len > (1UL << 30) || (*p = malloc(len + 1)) == NULL)
		return false;
	if (len > 0 && fread(*p, 1, len, f) != len) {
		free(*p);
		*p = NULL;
		return false;
	}
	(*p)[len] = '\0';
	return true;
}

int
ws_vcs_snap_save(const struct ws_vcs_snap *s, FILE *f)
{
	unsigned char has = s != NULL, over = s != NULL && s->over;

	fwrite(&has, 1, 1, f);
	if (s == NULL)
		return ferror(f) ? -1 : 0;
	fwrite(&over, 1, 1, f);
	fwrite(&s->bytes, sizeof(s->bytes), 1, f);
	fwrite(&s->n, sizeof(s->n), 1, f);
	for (size_t i = 0; i < s->n; i++) {
		ws__snap_put(f, s->v[i].real, strlen(s->v[i].real));
		fwrite(&s->v[i].st, sizeof(s->v[i].st), 1, f);
		ws__snap_put(f, s->v[i].data, s->v[i].len);
	}
	fwrite(&s->ngd, sizeof(s->ngd), 1, f);
	for (size_t i = 0; i < s->ngd; i++) {
		fwrite(&s->gd[i].a, sizeof(s->gd[i].a), 1, f);
		ws__snap_put(f, s->gd[i].rel, strlen(s->gd[i].rel));
	}
	fwrite(&s->nunr, sizeof(s->nunr), 1, f);
	if (s->nunr > 0)
		fwrite(s->unr, sizeof(*s->unr), s->nunr, f);
	fwrite(&s->t0, sizeof(s->t0), 1, f);
	fwrite(&s->nheld, sizeof(s->nheld), 1, f);
	if (s->nheld > 0)
		fwrite(s->held, sizeof(*s->held), s->nheld, f);
	fwrite(&s->nplinks, sizeof(s->nplinks), 1, f);
	if (s->nplinks > 0)
		fwrite(s->plinks, sizeof(*s->plinks), s->nplinks, f);
	return ferror(f) ? -1 : 0;
}

int
ws_vcs_snap_load(FILE *f, struct ws_vcs_snap **out)
{
	struct ws_vcs_snap *s = NULL;
	unsigned char has = 0, over = 0;
	size_t n = 0, ngd = 0;

	*out = NULL;
	if (fread(&has, 1, 1, f) != 1)
		goto bad;
	if (!has)
		return 0;
	if ((s = calloc(1, sizeof(*s))) == NULL || fread(&over, 1, 1, f) != 1 ||
	    fread(&s->bytes, sizeof(s->bytes), 1, f) != 1 ||
	    fread(&n, sizeof(n), 1, f) != 1 || n > (1UL << 24) ||
	    (n > 0 && (s->v = calloc(n, sizeof(*s->v))) == NULL))
		goto bad;
	s->over = over;
	for (; s->n < n; s->n++) {
		struct ws__vfile *v = &s->v[s->n];
		char *d = NULL;

		if (!ws__snap_get(f, &v->real, NULL) || v->real == NULL ||
		    fread(&v->st, sizeof(v->st), 1, f) != 1 ||
		    !ws__snap_get(f, &d, &v->len)) {
			free(v->real);
			v->real = NULL;
			goto bad;
		}
		v->data = d;
	}
	if (fread(&ngd, sizeof(ngd), 1, f) != 1 || ngd > (1UL << 24) ||
	    (ngd > 0 && (s->gd = calloc(ngd, sizeof(*s->gd))) == NULL))
		goto bad;
	for (; s->ngd < ngd; s->ngd++)
		if (fread(&s->gd[s->ngd].a, sizeof(s->gd[s->ngd].a), 1, f) != 1 ||
		    !ws__snap_get(f, &s->gd[s->ngd].rel, NULL) ||
		    s->gd[s->ngd].rel == NULL)
			goto bad;
	if (fread(&n, sizeof(n), 1, f) != 1 || n > (1UL << 24) ||
	    (n > 0 && ((s->unr = calloc(n, sizeof(*s->unr))) == NULL ||
		       fread(s->unr, sizeof(*s->unr), n, f) != n)))
		goto bad;
	s->nunr = n;
	if (fread(&s->t0, sizeof(s->t0), 1, f) != 1 ||
	    fread(&n, sizeof(n), 1, f) != 1 || n > (1UL << 24) ||
	    (n > 0 && ((s->held = calloc(n, sizeof(*s->held))) == NULL ||
		       fread(s->held, sizeof(*s->held), n, f) != n)))
		goto bad;
	s->nheld = n;
	if (fread(&n, sizeof(n), 1, f) != 1 || n > (1UL << 24) ||
	    (n > 0 && ((s->plinks = calloc(n, sizeof(*s->plinks))) == NULL ||
		       fread(s->plinks, sizeof(*s->plinks), n, f) != n)))
		goto bad;
	s->nplinks = n;
	*out = s;
	return 0;
bad:
	ws_vcs_snap_free(s);
	return ws_error_set(WS_EIO_ERROR, NULL, "not a saved snapshot");
}
