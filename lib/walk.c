/*
 * walk.c - the descriptor-based directory walker shared by wsls and wsgrep.
 *
 * See ws/walk.h for the contract.  The security argument in short: every
 * directory is read through a descriptor; every entry is stat'ed with
 * fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW); a subdirectory is opened with
 * openat(dirfd, name, O_NOFOLLOW | O_DIRECTORY | O_NONBLOCK), so a name
 * that became a symlink fails to open instead of being followed, and the
 * opened directory must have the device and inode that fstatat saw, so a
 * name that became another directory (a rename race) is skipped too.
 * Strings (vpath, real) are built for display and policy only; nothing is
 * ever opened by them.  With policy_stat, an entry the policy would not
 * let be stat'ed is dropped before its fstatat, so that nothing about it
 * (not even whether it is a directory) reaches the caller.
 */
#include "ws/walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/path.h"
#include "ws/policy.h"
#include "ws/workspace.h"

#define WS__DENTS_BUF (64 * 1024) /* getdents64 buffer, shared by levels */

/* One entry of the directory being listed, kept compact. */
struct ws__rec {
	size_t name;	   /* offset of the NUL-terminated name in the arena */
	uint32_t namelen;
	int mount;	   /* anchor index of a mount shown here, else 0 */
	bool stated;	   /* false: only the type (d_type) is known */
	mode_t mode;
	uid_t uid;
	gid_t gid;
	nlink_t nlink;
	off_t size;
	struct timespec mtim;
	dev_t dev;
	ino_t ino;
};

/* A subdirectory to walk once its parent's entries are all out. */
struct ws__sub {
	char *name;
	dev_t dev;
	ino_t ino;
	int mount;
	bool stated;	   /* false: dev and ino are not known yet */
};

/* A directory's entries while it is being listed. */
struct ws__list {
	struct ws__rec *r;
	size_t n, cap;
	char *arena;	   /* names */
	size_t used, cap_arena, live;
	bool heap;	   /* r[] is a max-heap of the keep_max best */
	bool stream;	   /* entries go out as they are read */
	struct ws__sub *subs;
	size_t nsubs, capsubs;
	/* Mounts shown in this directory: their names shadow real entries. */
	int *mounts;
	size_t nmounts;
};

/* The state of one walk. */
struct ws__w {
	const struct ws_walk_opts *o;
	char *dents;	   /* getdents64 buffer */
	char *vbuf, *rbuf; /* paths of the entry being reported */
	size_t vcap, rcap;
	size_t vlen, rlen; /* length of the directory prefix in them */
	struct {
		dev_t dev;
		ino_t ino;
	} *anc;		   /* the directories from the top to the current */
	size_t nanc, capanc;
	bool policy;	   /* ask the policy about each entry (policy_stat) */
};

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

const char *
ws_walk_type(mode_t mode)
{
	if (S_ISREG(mode))
		return "file";
	if (S_ISDIR(mode))
		return "dir";
	if (S_ISLNK(mode))
		return "symlink";
	return "other";
}

static char *
ws__put2(char *p, unsigned v)
{
	p[0] = (char)('0' + v / 10);
	p[1] = (char)('0' + v % 10);
	return p + 2;
}

size_t
ws_walk_time(long long t, char *buf)
{
	long long days = t / 86400, secs = t % 86400, era, y;
	unsigned doe, yoe, doy, mp, d, m;

	if (secs < 0) {
		secs += 86400;
		days--;
	}
	/* Civil date from a day count (H. Hinnant's algorithm). */
	days += 719468;
	era = (days >= 0 ? days : days - 146096) / 146097;
	doe = (unsigned)(days - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = (long long)yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;
	if (y < 0 || y > 9999)
		return (size_t)snprintf(buf, 32, "%lld-%02u-%02uT%02lld:%02lld:%02lldZ",
					y, m, d, secs / 3600, secs / 60 % 60,
					secs % 60);
	{
		char *p = buf;

		p = ws__put2(p, (unsigned)(y / 100));
		p = ws__put2(p, (unsigned)(y % 100));
		*p++ = '-';
		p = ws__put2(p, m);
		*p++ = '-';
		p = ws__put2(p, d);
		*p++ = 'T';
		p = ws__put2(p, (unsigned)(secs / 3600));
		*p++ = ':';
		p = ws__put2(p, (unsigned)(secs / 60 % 60));
		*p++ = ':';
		p = ws__put2(p, (unsigned)(secs % 60));
		*p++ = 'Z';
		*p = '\0';
		return (size_t)(p - buf);
	}
}

/* Make *buf hold at least need bytes. */
static int
ws__reserve(char **buf, size_t *cap, size_t need)
{
	char *n;
	size_t c = *cap ? *cap : 256;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	n = realloc(*buf, c);
	if (n == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	*buf = n;
	*cap = c;
	return 0;
}

/* dir + "/" + name, without doubling the slash of "/" (malloc'd). */
static char *
ws__child(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	bool slash = dl == 0 || dir[dl - 1] != '/';
	char *p = malloc(dl + nl + 2);

	if (p == NULL)
		return NULL;
	memcpy(p, dir, dl);
	if (slash)
		p[dl++] = '/';
	memcpy(p + dl, name, nl + 1);
	return p;
}

/* Put the directory prefix of the entries ("dir/") into a path buffer. */
static int
ws__prefix(char **buf, size_t *cap, size_t *len, const char *dir)
{
	size_t dl = strlen(dir);
	int rc = ws__reserve(buf, cap, dl + 2 + WS_NAME_MAX + 1);

	if (rc < 0)
		return rc;
	memcpy(*buf, dir, dl);
	if (dl == 0 || dir[dl - 1] != '/')
		(*buf)[dl++] = '/';
	*len = dl;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sorting                                                             */

static int
ws__cmp(const struct ws__rec *a, const struct ws__rec *b, const char *arena,
	enum ws_walk_sort sort)
{
	int c = 0;

	switch ((int)sort & ~WS_WALK_REVERSE) {
	case WS_WALK_SIZE:
		if (a->size != b->size)
			c = a->size > b->size ? -1 : 1;
		break;
	case WS_WALK_MTIME:
		if (a->mtim.tv_sec != b->mtim.tv_sec)
			c = a->mtim.tv_sec > b->mtim.tv_sec ? -1 : 1;
		else if (a->mtim.tv_nsec != b->mtim.tv_nsec)
			c = a->mtim.tv_nsec > b->mtim.tv_nsec ? -1 : 1;
		break;
	default:
		break;
	}
	if (c == 0)
		c = strcmp(arena + a->name, arena + b->name);
	return ((int)sort & WS_WALK_REVERSE) ? -c : c;
}

struct ws__sortctx {
	const char *arena;
	enum ws_walk_sort sort;
};

static int
ws__qcmp(const void *a, const void *b, void *arg)
{
	const struct ws__sortctx *c = arg;

	return ws__cmp(a, b, c->arena, c->sort);
}

/*
 * Sorting by name (the default): each entry's key is the first 8 bytes
 * of its name as a big-endian number (a shorter name padded with zeros,
 * so that it sorts first, as strcmp has it), compared as integers; names
 * equal in those bytes are compared on from there.  A merge sort of the
 * keys, stable as glibc's qsort_r() is (a merge sort too), costs a third
 * of sorting the records themselves through a function pointer and
 * strcmp for each comparison: after the JSON, the largest cost of
 * listing 64 names (issue 20).
 */
struct ws__skey {
	uint64_t pre;
	size_t i;	/* index of the record */
};

static uint64_t
ws__pre8(const char *name, uint32_t len)
{
	uint64_t v = 0;

	for (uint32_t j = 0; j < 8; j++)
		v = (v << 8) | (j < len ? (unsigned char)name[j] : 0u);
	return v;
}

/* a sorts before b (after it when rev). */
static inline bool
ws__sk_before(const struct ws__skey *a, const struct ws__skey *b,
	      const struct ws__rec *r, const char *arena, bool rev)
{
	int c;

	if (a->pre != b->pre)
		c = a->pre < b->pre ? -1 : 1;
	else if (r[a->i].namelen < 8 || r[b->i].namelen < 8)
		c = 0; /* both end within the prefix: the same name */
	else
		c = strcmp(arena + r[a->i].name + 8, arena + r[b->i].name + 8);
	return rev ? c > 0 : c < 0;
}

/* Sort k[0..n) stably, with tmp (n keys) for the merges. */
static void
ws__msort(struct ws__skey *k, struct ws__skey *tmp, size_t n,
	  const struct ws__rec *r, const char *arena, bool rev)
{
	size_t h = n / 2, a = 0, b = h, o = 0;

	if (n <= 8) {
		for (size_t i = 1; i < n; i++) {
			struct ws__skey t = k[i];
			size_t j = i;

			while (j > 0 && ws__sk_before(&t, &k[j - 1], r, arena, rev)) {
				k[j] = k[j - 1];
				j--;
			}
			k[j] = t;
		}
		return;
	}
	ws__msort(k, tmp, h, r, arena, rev);
	ws__msort(k + h, tmp, n - h, r, arena, rev);
	if (!ws__sk_before(&k[h], &k[h - 1], r, arena, rev))
		return; /* in order already */
	memcpy(tmp, k, h * sizeof(*k));
	/* The right run's key goes first only when strictly before. */
	while (a < h && b < n) {
		if (ws__sk_before(&k[b], &tmp[a], r, arena, rev))
			k[o++] = k[b++];
		else
			k[o++] = tmp[a++];
	}
	while (a < h)
		k[o++] = tmp[a++];
}

/* Max-heap (the worst entry on top) sift-down from i. */
static void
ws__sift(struct ws__rec *r, size_t n, size_t i, const char *arena,
	 enum ws_walk_sort sort)
{
	for (;;) {
		size_t l = 2 * i + 1, rr = l + 1, m = i;
		struct ws__rec t;

		if (l < n && ws__cmp(&r[l], &r[m], arena, sort) > 0)
			m = l;
		if (rr < n && ws__cmp(&r[rr], &r[m], arena, sort) > 0)
			m = rr;
		if (m == i)
			return;
		t = r[i];
		r[i] = r[m];
		r[m] = t;
		i = m;
	}
}

/* ------------------------------------------------------------------ */
/* Listing one directory                                               */

static void
ws__list_free(struct ws__list *l)
{
	free(l->r);
	free(l->arena);
	for (size_t i = 0; i < l->nsubs; i++)
		free(l->subs[i].name);
	free(l->subs);
	free(l->mounts);
	memset(l, 0, sizeof(*l));
}

/* Drop the names no record refers to any more (after heap evictions). */
static int
ws__compact(struct ws__list *l)
{
	char *a = malloc(l->live ? l->live : 1);
	size_t used = 0;

	if (a == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; i < l->n; i++) {
		memcpy(a + used, l->arena + l->r[i].name, l->r[i].namelen + 1);
		l->r[i].name = used;
		used += l->r[i].namelen + 1;
	}
	free(l->arena);
	l->arena = a;
	l->used = used;
	l->cap_arena = l->live ? l->live : 1;
	return 0;
}

/*
 * Hand a failure to the error callback.  err is the system error behind
 * it, or 0: the callback reads it in errno, to tell running out of
 * descriptors (an incomplete listing the user did not ask for) from a
 * race or a refusal.
 */
static int
ws__report(struct ws__w *w, const char *vpath, const char *real, int code,
	   int err)
{
	if (w->o->error == NULL)
		return 0;
	errno = err;
	return w->o->error(w->o->arg, vpath, real, code);
}

/*
 * Whether the policy refuses to let the entry at real (vpath) of d be
 * stat'ed, and so shown; such an entry is counted and left out.
 */
static bool
ws__hidden(struct ws__w *w, struct ws_walk_dir *d, const char *vpath,
	   const char *real)
{
	bool saved = w->o->ws->no_prompt;
	int rc;

	/* An "approve" rule on stat must not ask once per entry: an entry
	 * that needs approval is hidden, as one denied is. */
	w->o->ws->no_prompt = true;
	rc = ws_check(w->o->ws, WS_OP_STAT, real, vpath);
	w->o->ws->no_prompt = saved;
	if (rc == 0)
		return false;
	d->nhidden++;
	if (w->o->nhidden != NULL)
		(*w->o->nhidden)++;
	return true;
}

/* Hand one record to the entry callback; remember it if it is to be walked. */
static int
ws__emit(struct ws__w *w, struct ws_walk_dir *d, struct ws__list *l,
	 const struct ws__rec *r, const char *name)
{
	const struct ws_walk_opts *o = w->o;
	struct ws_walk_entry e;
	int rc = 0;

	memset(&e, 0, sizeof(e));
	e.dir = d;
	e.name = name;
	e.namelen = r->namelen;
	e.st.st_dev = r->dev;
	e.st.st_ino = r->ino;
	e.st.st_mode = r->mode;
	e.st.st_nlink = r->nlink;
	e.st.st_uid = r->uid;
	e.st.st_gid = r->gid;
	e.st.st_size = r->size;
	e.st.st_mtim = r->mtim;
	e.depth = d->depth + 1;
	e.mount = r->mount;
	if (r->mount > 0) {
		/* A mount: its own directory, at its own real path. */
		e.vpath = o->ws->anchors[r->mount].vprefix;
		e.real = o->ws->anchors[r->mount].real;
		e.at_fd = o->ws->anchors[r->mount].fd;
		e.at_name = ".";
	} else {
		memcpy(w->vbuf + w->vlen, name, r->namelen + 1);
		memcpy(w->rbuf + w->rlen, name, r->namelen + 1);
		e.vpath = w->vbuf;
		e.real = w->rbuf;
		e.at_fd = d->fd;
		e.at_name = name;
	}
	d->nentries++;
	if (o->entry != NULL)
		rc = o->entry(o->arg, &e);
	if (rc < 0 || rc == WS_WALK_STOP)
		return rc;
	if (rc == WS_WALK_SKIP || !S_ISDIR(r->mode) ||
	    (o->max_depth > 0 && e.depth >= o->max_depth))
		return 0;
	if (l->nsubs == l->capsubs) {
		size_t c = l->capsubs ? l->capsubs * 2 : 16;
		struct ws__sub *s = realloc(l->subs, c * sizeof(*s));

		if (s == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		l->subs = s;
		l->capsubs = c;
	}
	l->subs[l->nsubs].name = strdup(name);
	if (l->subs[l->nsubs].name == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	l->subs[l->nsubs].dev = r->dev;
	l->subs[l->nsubs].ino = r->ino;
	l->subs[l->nsubs].mount = r->mount;
	l->subs[l->nsubs].stated = r->stated;
	l->nsubs++;
	return 0;
}

/*
 * Emit every stored record in the order they are stored (or in the order
 * of the sorted keys k), then forget them.
 */
static int
ws__flush(struct ws__w *w, struct ws_walk_dir *d, struct ws__list *l,
	  const struct ws__skey *k)
{
	int rc = 0;

	for (size_t i = 0; i < l->n && rc == 0; i++) {
		const struct ws__rec *r = &l->r[k != NULL ? k[i].i : i];

		rc = ws__emit(w, d, l, r, l->arena + r->name);
	}
	l->n = 0;
	l->used = 0;
	l->live = 0;
	return rc;
}

/* Take one candidate entry: emit it, store it, or (heap) maybe drop it. */
static int
ws__add(struct ws__w *w, struct ws_walk_dir *d, struct ws__list *l,
	const struct ws__rec *rec, const char *name)
{
	const struct ws_walk_opts *o = w->o;
	struct ws__rec r = *rec;
	int rc;

	if (l->stream)
		return ws__emit(w, d, l, &r, name);
	if (l->heap) {
		struct ws__sortctx c = {l->arena, o->sort};

		/* Compare the candidate, whose name is not in the arena yet. */
		rc = ws__reserve(&l->arena, &l->cap_arena, l->used + r.namelen + 1);
		if (rc < 0)
			return rc;
		c.arena = l->arena;
		memcpy(l->arena + l->used, name, r.namelen + 1);
		r.name = l->used;
		if (ws__cmp(&r, &l->r[0], l->arena, o->sort) >= 0) {
			d->ndropped++;
			return 0;
		}
		d->ndropped++;
		l->live -= l->r[0].namelen + 1;
		l->live += r.namelen + 1;
		l->used += r.namelen + 1;
		l->r[0] = r;
		ws__sift(l->r, l->n, 0, c.arena, o->sort);
		if (l->used > 2 * l->live + 65536)
			return ws__compact(l);
		return 0;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct ws__rec *nr = realloc(l->r, cap * sizeof(*nr));

		if (nr == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		l->r = nr;
		l->cap = cap;
	}
	rc = ws__reserve(&l->arena, &l->cap_arena, l->used + r.namelen + 1);
	if (rc < 0)
		return rc;
	memcpy(l->arena + l->used, name, r.namelen + 1);
	r.name = l->used;
	l->used += r.namelen + 1;
	l->live += r.namelen + 1;
	l->r[l->n++] = r;
	if (o->sort_max > 0 && l->n > o->sort_max &&
	    (o->keep_max == 0 || o->keep_max > o->sort_max)) {
		/* Too many to sort: go on in directory order. */
		d->unsorted = true;
		l->stream = true;
		return ws__flush(w, d, l, NULL);
	}
	if (o->keep_max > 0 && l->n == o->keep_max) {
		/* From now on keep only the keep_max best: a max-heap. */
		l->heap = true;
		for (size_t i = l->n / 2; i-- > 0;)
			ws__sift(l->r, l->n, i, l->arena, o->sort);
	}
	return 0;
}

/* The mounts whose prefix sits directly in directory vpath. */
static int
ws__find_mounts(struct ws__w *w, const char *vpath, struct ws__list *l)
{
	struct ws_ctx *ws = w->o->ws;

	if (ws == NULL || w->o->no_mounts)
		return 0;
	for (size_t i = 1; i < ws->nanchors; i++) {
		const char *vp = ws->anchors[i].vprefix;
		const char *slash = strrchr(vp, '/');
		size_t plen = slash == vp ? 1 : (size_t)(slash - vp);

		if (strlen(vpath) != plen || strncmp(vpath, vp, plen) != 0)
			continue;
		if (l->mounts == NULL) {
			l->mounts = calloc(ws->nanchors, sizeof(*l->mounts));
			if (l->mounts == NULL)
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		l->mounts[l->nmounts++] = (int)i;
	}
	return 0;
}

static bool
ws__shadowed(const struct ws__w *w, const struct ws__list *l, const char *name)
{
	for (size_t i = 0; i < l->nmounts; i++) {
		const char *vp = w->o->ws->anchors[l->mounts[i]].vprefix;

		if (strcmp(strrchr(vp, '/') + 1, name) == 0)
			return true;
	}
	return false;
}

static bool
ws__wanted(const struct ws__w *w, const struct ws_walk_dir *d,
	   const char *name, unsigned char type)
{
	if (name[0] == '.' && !w->o->hidden)
		return false;
	if (w->o->filter != NULL && !w->o->filter(w->o->arg, d, name, type))
		return false;
	return true;
}

static void
ws__fill(struct ws__rec *r, const struct stat *st, size_t namelen, int mount)
{
	memset(r, 0, sizeof(*r));
	r->namelen = (uint32_t)namelen;
	r->mount = mount;
	r->mode = st->st_mode;
	r->uid = st->st_uid;
	r->gid = st->st_gid;
	r->nlink = st->st_nlink;
	r->size = st->st_size;
	r->mtim = st->st_mtim;
	r->dev = st->st_dev;
	r->ino = st->st_ino;
	r->stated = true;
}

/* Read the directory and hand its entries out; fill l->subs. */
static int
ws__list_dir(struct ws__w *w, struct ws_walk_dir *d, struct ws__list *l)
{
	const struct ws_walk_opts *o = w->o;
	struct ws__rec r;
	struct stat st;
	int key = (int)o->sort & ~WS_WALK_REVERSE;
	bool types_only = o->types_only &&
		(key == WS_WALK_NAME || key == WS_WALK_UNSORTED);
	int rc;

	l->stream = key == WS_WALK_UNSORTED;
	rc = ws__find_mounts(w, d->vpath, l);
	if (rc < 0)
		return rc;
	if ((rc = ws__prefix(&w->vbuf, &w->vcap, &w->vlen, d->vpath)) < 0 ||
	    (rc = ws__prefix(&w->rbuf, &w->rcap, &w->rlen, d->real)) < 0)
		return rc;
	for (size_t i = 0; i < l->nmounts; i++) {
		const struct ws_anchor *a = &o->ws->anchors[l->mounts[i]];
		const char *name = strrchr(a->vprefix, '/') + 1;

		if (!ws__wanted(w, d, name, DT_DIR))
			continue;
		if (w->policy && ws__hidden(w, d, a->vprefix, a->real))
			continue;
		if (fstat(a->fd, &st) < 0) {
			int err = errno;

			rc = ws__report(w, a->vprefix, a->real,
					ws_error_errno(err, a->vprefix, "stat"),
					err);
			if (rc < 0)
				return rc;
			continue;
		}
		ws__fill(&r, &st, strlen(name), l->mounts[i]);
		rc = ws__add(w, d, l, &r, name);
		if (rc != 0)
			return rc;
	}
	if (lseek(d->fd, 0, SEEK_SET) < 0) {
		int err = errno;

		return ws__report(w, d->vpath, d->real,
				  ws_error_errno(err, d->vpath, "seek"), err);
	}
	for (;;) {
		ssize_t n = getdents64(d->fd, w->dents, WS__DENTS_BUF);

		if (n == 0)
			break;
		if (n < 0) {
			int err = errno;

			/* The listing so far stands; report the rest as lost. */
			return ws__report(w, d->vpath, d->real,
					  ws_error_errno(err, d->vpath,
							 "read directory"), err);
		}
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(w->dents + off);
			const char *name = de->d_name;
			size_t namelen;

			off += de->d_reclen;
			if (name[0] == '.' &&
			    (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
				continue;
			if (!ws__wanted(w, d, name, de->d_type))
				continue;
			if (l->nmounts > 0 && ws__shadowed(w, l, name))
				continue;
			namelen = strlen(name);
			if (w->policy) {
				/*
				 * Before the stat: what the policy would not
				 * stat is not stat'ed either.  The paths are
				 * the directory's prefix plus the name.
				 */
				memcpy(w->vbuf + w->vlen, name, namelen + 1);
				memcpy(w->rbuf + w->rlen, name, namelen + 1);
				if (ws__hidden(w, d, w->vbuf, w->rbuf))
					continue;
			}
			if (types_only && de->d_type != DT_UNKNOWN) {
				memset(&r, 0, sizeof(r));
				r.namelen = (uint32_t)namelen;
				r.mode = DTTOIF(de->d_type);
				r.ino = de->d_ino;
				rc = ws__add(w, d, l, &r, name);
				if (rc != 0)
					return rc;
				continue;
			}
			if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
				int err = errno;

				if (err == ENOENT)
					continue; /* removed meanwhile */
				memcpy(w->vbuf + w->vlen, name, namelen + 1);
				memcpy(w->rbuf + w->rlen, name, namelen + 1);
				rc = ws__report(w, w->vbuf, w->rbuf,
						ws_error_errno(err, w->vbuf, "stat"),
						err);
				if (rc < 0)
					return rc;
				continue;
			}
			ws__fill(&r, &st, namelen, 0);
			rc = ws__add(w, d, l, &r, name);
			if (rc != 0)
				return rc;
		}
	}
	if (!l->stream && l->n > 0 &&
	    ((int)o->sort & ~WS_WALK_REVERSE) == WS_WALK_NAME) {
		struct ws__skey *k = malloc(2 * l->n * sizeof(*k));

		if (k == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		for (size_t i = 0; i < l->n; i++) {
			k[i].pre = ws__pre8(l->arena + l->r[i].name, l->r[i].namelen);
			k[i].i = i;
		}
		ws__msort(k, k + l->n, l->n, l->r, l->arena,
			  ((int)o->sort & WS_WALK_REVERSE) != 0);
		rc = ws__flush(w, d, l, k);
		free(k);
	} else if (!l->stream && l->n > 0) {
		struct ws__sortctx c = {l->arena, o->sort};

		qsort_r(l->r, l->n, sizeof(*l->r), ws__qcmp, &c);
		rc = ws__flush(w, d, l, NULL);
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* The recursion                                                       */

static int ws__dir(struct ws__w *w, struct ws_walk_dir *d);

/* Open, check and walk one subdirectory of d. */
static int
ws__descend(struct ws__w *w, struct ws_walk_dir *d, const struct ws__sub *s)
{
	const struct ws_walk_opts *o = w->o;
	struct ws_walk_dir c;
	char *vpath = NULL, *real = NULL;
	int rc = 0, fd = -1, at;
	const char *at_name;
	dev_t s_dev = s->dev;
	ino_t s_ino = s->ino;

	memset(&c, 0, sizeof(c));
	if (s->mount > 0) {
		vpath = strdup(o->ws->anchors[s->mount].vprefix);
		real = strdup(o->ws->anchors[s->mount].real);
		at = o->ws->anchors[s->mount].fd;
		at_name = ".";
	} else {
		vpath = ws__child(d->vpath, s->name);
		real = ws__child(d->real, s->name);
		at = d->fd;
		at_name = s->name;
	}
	if (vpath == NULL || real == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	if (!s->stated) {
		/* types_only: the listing saw only d_type; stat it now. */
		if (fstatat(at, at_name, &c.st, AT_SYMLINK_NOFOLLOW) < 0) {
			int err = errno;

			if (err != ENOENT)
				rc = ws__report(w, vpath, real,
						ws_error_errno(err, vpath, "stat"),
						err);
			goto out;
		}
		if (!S_ISDIR(c.st.st_mode)) {
			rc = ws__report(w, vpath, real,
					ws_error_set(WS_EIO_ERROR, vpath,
						     "is no longer a directory (changed during the walk); skipped"),
					0);
			goto out;
		}
		s_dev = c.st.st_dev;
		s_ino = c.st.st_ino;
	}
	if (o->ws != NULL) {
		rc = ws_check(o->ws, WS_OP_LIST, real, vpath);
		if (rc < 0) {
			rc = ws__report(w, vpath, real, rc, 0);
			goto out;
		}
	}
	/*
	 * O_NOFOLLOW: a name swapped for a symlink fails here (ELOOP or
	 * ENOTDIR) instead of being followed.  O_NONBLOCK: a name swapped for
	 * a FIFO cannot hang the open (O_DIRECTORY refuses it anyway).
	 */
	fd = openat(at, at_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				 O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (err == ENOENT)
			goto out; /* removed meanwhile */
		if (err == ELOOP || err == ENOTDIR) {
			/* A race, not a system error. */
			rc = ws_error_set(WS_EIO_ERROR, vpath,
					  "is no longer a directory (changed during the walk); skipped");
			err = 0;
		} else if (err == EMFILE || err == ENFILE) {
			/* Say why: each level of the walk holds one. */
			rc = ws_error_set(WS_EIO_ERROR, vpath,
					  "open: %s (the walk keeps one descriptor "
					  "open per directory level; the tree is "
					  "deeper than the limit allows)",
					  strerror(err));
		} else {
			rc = ws_error_errno(err, vpath, "open");
		}
		rc = ws__report(w, vpath, real, rc, err);
		goto out;
	}
	if (fstat(fd, &c.st) < 0) {
		int err = errno;

		rc = ws__report(w, vpath, real,
				ws_error_errno(err, vpath, "stat"), err);
		goto out;
	}
	if (c.st.st_dev != s_dev || c.st.st_ino != s_ino) {
		rc = ws__report(w, vpath, real,
				ws_error_set(WS_EIO_ERROR, vpath,
					     "was replaced during the walk; skipped"),
				0);
		goto out;
	}
	for (size_t i = 0; i < w->nanc; i++) {
		if (w->anc[i].dev == c.st.st_dev && w->anc[i].ino == c.st.st_ino) {
			rc = ws__report(w, vpath, real,
					ws_error_set(WS_EIO_ERROR, vpath,
						     "filesystem loop: it is its own ancestor; skipped"),
					0);
			goto out;
		}
	}
	c.fd = fd;
	c.vpath = vpath;
	c.real = real;
	c.depth = d->depth + 1;
	c.mount = s->mount;
	rc = ws__dir(w, &c);
out:
	if (fd >= 0)
		close(fd);
	free(vpath);
	free(real);
	return rc;
}

static int
ws__dir(struct ws__w *w, struct ws_walk_dir *d)
{
	const struct ws_walk_opts *o = w->o;
	struct ws__list l;
	int rc = 0;

	memset(&l, 0, sizeof(l));
	if (o->enter != NULL) {
		rc = o->enter(o->arg, d);
		if (rc == WS_WALK_SKIP)
			return 0;
		if (rc != 0)
			return rc;
	}
	if (w->nanc == w->capanc) {
		size_t c = w->capanc ? w->capanc * 2 : 32;
		void *n = realloc(w->anc, c * sizeof(*w->anc));

		if (n == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		w->anc = n;
		w->capanc = c;
	}
	w->anc[w->nanc].dev = d->st.st_dev;
	w->anc[w->nanc].ino = d->st.st_ino;
	w->nanc++;
	rc = ws__list_dir(w, d, &l);
	/* The entries are out: keep only what is needed to descend. */
	free(l.r);
	free(l.arena);
	l.r = NULL;
	l.arena = NULL;
	for (size_t i = 0; rc == 0 && i < l.nsubs; i++)
		rc = ws__descend(w, d, &l.subs[i]);
	w->nanc--;
	if (rc == 0 && o->leave != NULL)
		rc = o->leave(o->arg, d);
	ws__list_free(&l);
	return rc;
}

int
ws_walk(const struct ws_walk_opts *o, int fd, const char *vpath,
	const char *real)
{
	struct ws__w w;
	struct ws_walk_dir d;
	int rc;

	memset(&w, 0, sizeof(w));
	memset(&d, 0, sizeof(d));
	w.o = o;
	if (fstat(fd, &d.st) < 0)
		return ws_error_errno(errno, vpath, "stat");
	if (!S_ISDIR(d.st.st_mode))
		return ws_error_set(WS_ENOT_A_DIRECTORY, vpath, "is not a directory");
	w.dents = malloc(WS__DENTS_BUF);
	if (w.dents == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	d.fd = fd;
	d.vpath = vpath;
	d.real = real;
	/* Decided once: without a policy the per-entry check costs nothing. */
	w.policy = o->policy_stat && o->ws != NULL && o->ws->policy != NULL;
	if (o->ws != NULL)
		for (size_t i = 1; i < o->ws->nanchors; i++)
			if (strcmp(o->ws->anchors[i].vprefix, vpath) == 0)
				d.mount = (int)i;
	rc = ws__dir(&w, &d);
	free(w.dents);
	free(w.vbuf);
	free(w.rbuf);
	free(w.anc);
	return rc;
}

/*
 * The soft RLIMIT_NOFILE before the first raise (ws__nofile_raise()), set
 * once under the lock: the MCP server's calls raise it from several
 * threads, and the first one's is what the process was started with.
 */
static pthread_mutex_t ws__nofile_mu = PTHREAD_MUTEX_INITIALIZER;
static bool ws__nofile_raised;
static rlim_t ws__nofile_was;

void
ws__nofile_raise(void)
{
	struct rlimit rl;

	pthread_mutex_lock(&ws__nofile_mu);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rlim_t was = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0 && !ws__nofile_raised) {
			ws__nofile_was = was;
			ws__nofile_raised = true;
		}
	}
	pthread_mutex_unlock(&ws__nofile_mu);
}

bool
ws__nofile_soft(rlim_t *soft)
{
	bool raised;

	pthread_mutex_lock(&ws__nofile_mu);
	raised = ws__nofile_raised;
	if (raised)
		*soft = ws__nofile_was;
	pthread_mutex_unlock(&ws__nofile_mu);
	return raised;
}
