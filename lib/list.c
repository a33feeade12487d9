/*
 * list.c - listing a workspace directory (see ws/list.h).
 *
 * The walk is ws_walk()'s; this module adds what a listing means on top
 * of it: one stream with stable indices for paging, the ignore rules of a
 * recursive listing, exclude globs, symlink details and the counts a
 * caller reports.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/ignore.h"
#include "ws/list.h"
#include "ws/path.h"
#include "ws/policy.h"

/* The state of one ws_list() call. */
struct ws__ls {
	struct ws_ctx *ws;
	const struct ws_list_opts *o;
	struct ws_list_result *res;
	const char *top;	/* the listed directory's virtual path */
	size_t toplen;
	struct ws_ignore *ig;	/* NULL: no ignore rules apply */
	bool ign_ok[64];	/* a level was pushed at this depth */
	const char *prefix;	/* the listed directory relative to the
				   workspace root, for the ignore rules */
	bool ancestors;		/* the rules above it were pushed */
	long long count;	/* entries of the stream seen so far */
	bool full;		/* the page is complete: only counting */
	bool flat;
	/* Scratch, last: ws_list() zeroes what comes before (issue 20:
	 * clearing these 8 KiB was a tenth of listing 64 names). */
	char irel[PATH_MAX];	/* prefix + "/" + rel */
	char rel[PATH_MAX];
};

/*
 * The path of vpath (plus "/name" if name) relative to the listed
 * directory, in l->rel; NULL if it does not fit or is not below it.
 */
static const char *
ws__rel(struct ws__ls *l, const char *vpath, const char *name)
{
	const char *r;
	int n;

	if (l->toplen == 1 && l->top[0] == '/')
		r = vpath + 1;
	else if (strncmp(vpath, l->top, l->toplen) == 0 &&
		 (vpath[l->toplen] == '/' || vpath[l->toplen] == '\0'))
		r = vpath + l->toplen + (vpath[l->toplen] == '/');
	else
		return NULL;
	if (name == NULL)
		n = snprintf(l->rel, sizeof(l->rel), "%s", r);
	else
		n = snprintf(l->rel, sizeof(l->rel), "%s%s%s", r,
			     *r ? "/" : "", name);
	return n >= 0 && (size_t)n < sizeof(l->rel) ? l->rel : NULL;
}

/* rel (relative to the listed directory) as the ignore rules see it:
 * relative to the workspace root when the rules above were loaded. */
static const char *
ws__irel(struct ws__ls *l, const char *rel)
{
	int n;

	if (rel == NULL || l->prefix == NULL || *l->prefix == '\0')
		return rel;
	n = snprintf(l->irel, sizeof(l->irel), "%s%s%s", l->prefix,
		     *rel ? "/" : "", rel);
	return n >= 0 && (size_t)n < sizeof(l->irel) ? l->irel : NULL;
}

static bool
ws__filter(void *arg, const struct ws_walk_dir *d, const char *name,
	   unsigned char d_type)
{
	struct ws__ls *l = arg;
	const char *rel;
	bool isdir;

	if (l->ig == NULL && l->o->nexclude == 0)
		return true;
	rel = ws__rel(l, d->vpath, name);
	if (rel == NULL)
		return true;
	/* Both ignore rules and "dir/" excludes tell directories apart. */
	isdir = d_type == DT_DIR;
	if (d_type == DT_UNKNOWN) {
		struct stat st;

		isdir = fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			S_ISDIR(st.st_mode);
	}
	if (l->ig != NULL) {
		const char *irel = ws__irel(l, rel);

		if (irel != NULL && ws_ignore_match(l->ig, irel, isdir)) {
			l->res->ignored++;
			return false;
		}
	}
	for (size_t i = 0; i < l->o->nexclude; i++)
		if (ws_ignore_glob(l->o->exclude[i], rel, isdir)) {
			l->res->ignored++;
			return false;
		}
	return true;
}

static int
ws__enter(void *arg, const struct ws_walk_dir *d)
{
	struct ws__ls *l = arg;
	int rc;

	if (l->ig != NULL && d->depth < (int)sizeof(l->ign_ok)) {
		const char *rel = ws__irel(l, ws__rel(l, d->vpath, NULL));

		if (d->depth == 0 && !l->ancestors &&
		    (rc = ws_ignore_load_exclude(l->ig, d->fd)) < 0)
			return rc;
		/* A directory whose path is too long gets no rules of its own. */
		rc = ws_ignore_push(l->ig, rel ? d->fd : -1, rel ? rel : "");
		if (rc < 0)
			return rc;
		l->ign_ok[d->depth] = true;
	}
	if (l->o->enter != NULL && l->count >= l->o->offset && !l->full)
		return l->o->enter(l->o->arg, d);
	return 0;
}

static int
ws__leave(void *arg, const struct ws_walk_dir *d)
{
	struct ws__ls *l = arg;

	if (l->ig != NULL && d->depth < (int)sizeof(l->ign_ok) &&
	    l->ign_ok[d->depth]) {
		ws_ignore_pop(l->ig);
		l->ign_ok[d->depth] = false;
	}
	/* A flat listing counts its whole directory, kept or dropped. */
	if (d->depth == 0 && l->flat) {
		l->res->total = (long long)(d->nentries + d->ndropped);
		l->res->total_known = true;
	}
	return 0;
}

/*
 * The stored target of the symlink (at_fd, at_name), if the policy allows
 * readlink; NULL otherwise (the listing goes on without it).
 */
static const char *
ws__link_target(struct ws_ctx *ws, int at_fd, const char *at_name,
		const char *vpath, const char *real, char *buf, size_t size)
{
	ssize_t n;

	if (ws_check(ws, WS_OP_READLINK, real, vpath) < 0)
		return NULL;
	n = readlinkat(at_fd, at_name, buf, size - 1);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

/*
 * Whether following the symlink at vpath would leave the sandbox.  This
 * resolves the path like any tool would and only reports the answer; no
 * descriptor it yields is used for anything.
 */
static int ws__error(void *arg, const char *vpath, const char *real,
		     int code);

static bool
ws__link_outside(struct ws__ls *l, const char *vpath, const char *real)
{
	struct ws_res r;
	int rc = ws_resolve(l->ws, vpath, 0, &r);
	int err = errno;

	if (rc == 0) {
		ws_res_free(&r);
	} else if (rc == WS_EIO_ERROR && (err == EMFILE || err == ENFILE)) {
		/*
		 * Deep in a recursive listing the resolution can run out of
		 * descriptors where the walk did not: its "false" would be no
		 * answer, so the entry is reported as an error, like a
		 * directory that could not be opened.
		 */
		errno = err;
		(void)ws__error(l, vpath, real, rc);
	}
	return rc == WS_ESYMLINK_OUTSIDE_WORKSPACE ||
	       rc == WS_EPATH_OUTSIDE_WORKSPACE;
}

/* Hand one entry out, with its symlink details; index is l->count. */
static int
ws__put(struct ws__ls *l, struct ws_list_entry *e, int at_fd,
	const char *at_name)
{
	char buf[PATH_MAX + 1];
	int rc;

	e->index = l->count;
	if (S_ISLNK(e->st->st_mode) && l->o->link_info) {
		e->target = ws__link_target(l->ws, at_fd, at_name, e->vpath,
					    e->real, buf, sizeof(buf));
		e->target_outside = ws__link_outside(l, e->vpath, e->real);
	}
	rc = l->o->entry(l->o->arg, e);
	if (rc == 0)
		l->res->returned++;
	return rc;
}

/* The stream has more after this entry: the page ends before it. */
static int
ws__page_end(struct ws__ls *l, const char *reason)
{
	l->res->truncated = true;
	l->res->reason = reason;
	l->res->next_offset = l->count;
	l->full = true;
	/* A flat listing goes on counting (its directory is read whole
	 * anyway); a recursive one stops rather than walk the rest. */
	return l->flat ? 0 : WS_WALK_STOP;
}

static int
ws__entry(void *arg, const struct ws_walk_entry *we)
{
	struct ws__ls *l = arg;
	struct ws_list_entry e;
	int rc;

	if (l->full) {
		l->count++;
		return 0;
	}
	if (l->count < l->o->offset) {
		l->count++;
		return 0;
	}
	if (l->o->max_entries > 0 && l->res->returned >= l->o->max_entries) {
		rc = ws__page_end(l, "max_entries");
		l->count++;
		return rc;
	}
	memset(&e, 0, sizeof(e));
	e.name = we->name;
	e.vpath = we->vpath;
	e.real = we->real;
	e.st = &we->st;
	e.depth = we->depth;
	e.dir = we->dir;
	e.mount = we->mount > 0;
	e.read_only = we->mount > 0 && l->ws->anchors[we->mount].ro;
	rc = ws__put(l, &e, we->at_fd, we->at_name);
	if (rc == WS_LIST_FULL) {
		rc = ws__page_end(l, "max_output");
	} else if (rc < 0) {
		return rc;
	}
	l->count++;
	return rc;
}

/* A subtree or entry that could not be listed: counted, then the
 * caller's callback with the walker's errno intact. */
static int
ws__error(void *arg, const char *vpath, const char *real, int code)
{
	struct ws__ls *l = arg;
	int err = errno;

	if (err == EMFILE || err == ENFILE)
		l->res->exhausted++;
	if (l->o->error == NULL)
		return code == WS_ENOMEM ? code : 0;
	errno = err;
	return l->o->error(l->o->arg, vpath, real, code);
}

/*
 * A directory inside the workspace root (not in a mount, not a host
 * path) is listed under the .gitignore rules of the directories above it
 * up to the root, and the root's .git/info/exclude, as wsgrep searches
 * it: "wsls -R src" leaves out what "wsls -R" leaves out below src.
 */
static int
ws__ancestors(struct ws_ctx *ws, const struct ws_res *res, struct ws__ls *l)
{
	const char *rest;
	int rootfd, rc;

	if (res->anchor == WS_ANCHOR_HOST ||
	    !ws_path_within(ws_ctx_anchor_real(ws, 0), res->real, &rest) ||
	    ws_ctx_anchor_of_real(ws, res->real, NULL) != 0)
		return 0;
	rootfd = openat(ws_ctx_anchor_fd(ws, 0), ".",
			O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return 0;
	rc = ws_ignore_push_ancestors(l->ig, rootfd, rest);
	close(rootfd);
	if (rc < 0)
		return rc;
	l->prefix = rest;
	l->ancestors = true;
	return 0;
}

static const char *
ws__base(const char *vpath)
{
	const char *s = strrchr(vpath, '/');

	return s && s[1] ? s + 1 : vpath;
}

int
ws_list(struct ws_ctx *ws, const struct ws_list_opts *o,
	const struct ws_res *res, int fd, struct ws_list_result *out)
{
	struct ws__ls l;
	struct ws_walk_opts w;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->next_offset = -1;
	if (o->offset < 0 || o->max_entries < 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "offset and max_entries must be 0 or more");
	memset(&l, 0, offsetof(struct ws__ls, irel));
	l.irel[0] = l.rel[0] = '\0';
	l.ws = ws;
	l.o = o;
	l.res = out;
	l.top = res->vpath;
	l.toplen = strlen(res->vpath);

	if (fd < 0) {
		/* The PATH itself, one entry, as ls (or ls -d) shows it. */
		struct ws_list_entry e;

		out->total = 1;
		out->total_known = true;
		if (o->offset >= 1)
			return 0;
		memset(&e, 0, sizeof(e));
		e.name = ws__base(res->vpath);
		e.vpath = res->vpath;
		e.real = res->real;
		e.st = &res->st;
		e.mount = res->final_anchor > 0 &&
			  strcmp(res->name, ".") == 0;
		e.read_only = e.mount && ws->anchors[res->final_anchor].ro;
		rc = ws__put(&l, &e, res->dirfd, res->name);
		if (rc == WS_LIST_FULL) {
			out->truncated = true;
			out->reason = "max_output";
			out->next_offset = 0;
			rc = 0;
		}
		return rc;
	}

	l.flat = !o->recursive && o->depth <= 1;
	if (!l.flat && !o->no_ignore) {
		if ((rc = ws_ignore_new(&l.ig)) < 0)
			return rc;
		if ((rc = ws__ancestors(ws, res, &l)) < 0) {
			ws_ignore_free(l.ig);
			return rc;
		}
	}
	memset(&w, 0, sizeof(w));
	w.ws = ws;
	/* With the boundary off an absolute path is a host path, and mount
	 * prefixes do not apply to it. */
	w.no_mounts = res->anchor == WS_ANCHOR_HOST;
	w.max_depth = l.flat ? 1 : o->depth;
	w.hidden = o->hidden;
	/*
	 * What the policy would not stat is not shown, only counted: a
	 * listing must not leak the size, mtime and mode of a denied file,
	 * nor the names inside a directory whose entries are denied.
	 */
	w.policy_stat = true;
	w.nhidden = &out->hidden_by_policy;
	w.sort = o->sort;
	w.sort_max = o->sort_max;
	/* Only the first offset + max + 1 of a directory can ever be shown
	 * (one more tells that more remain). */
	if (o->max_entries > 0 && o->offset < LLONG_MAX / 2 &&
	    o->max_entries < LLONG_MAX / 2)
		w.keep_max = (size_t)(o->offset + o->max_entries + 1);
	w.types_only = o->types_only;
	w.filter = ws__filter;
	w.enter = ws__enter;
	w.entry = ws__entry;
	w.leave = ws__leave;
	w.error = ws__error;
	w.arg = &l;
	rc = ws_walk(&w, fd, res->vpath, res->real);
	ws_ignore_free(l.ig);
	if (rc == WS_WALK_STOP)
		rc = 0;
	if (!out->truncated) {
		out->total = l.count;
		out->total_known = true;
	} else if (!l.flat) {
		out->total_known = false;
	}
	return rc;
}

int
ws_list_open(struct ws_ctx *ws, const char *in, bool self, struct ws_res *res,
	     int *fd)
{
	int rc;

	*fd = -1;
	rc = ws_resolve(ws, in, self ? WS_R_NOFOLLOW : 0, res);
	if (rc == WS_ENOT_FOUND && !self) {
		/* A dangling symlink is still an entry to show. */
		char *msg = strdup(ws_error_last());
		struct ws_res link;

		ws_res_free(res);
		if (ws_resolve(ws, in, WS_R_NOFOLLOW, &link) == 0 &&
		    link.exists && S_ISLNK(link.st.st_mode)) {
			*res = link;
			rc = 0;
		} else {
			/* The second resolve's hint (ws_resolve()'s) stays. */
			const char *h = ws_error_last_hint();
			char *hint = h != NULL ? strdup(h) : NULL;

			ws_res_free(&link);
			ws_error_set(rc, in, "%s", msg ? msg : "not found");
			if (hint != NULL)
				ws_error_set_hint("%s", hint);
			free(hint);
		}
		free(msg);
	}
	if (rc < 0)
		return rc;
	if (S_ISDIR(res->st.st_mode) && !self) {
		rc = ws_check(ws, WS_OP_LIST, res->real, res->vpath);
		if (rc == 0)
			rc = ws_res_open(res, O_RDONLY | O_DIRECTORY, fd);
	} else {
		rc = ws_check(ws, WS_OP_STAT, res->real, res->vpath);
	}
	if (rc < 0) {
		/* Name the path as it was asked for. */
		char *msg = strdup(ws_error_last());

		ws_error_set(rc, in, "%s", msg ? msg : "");
		free(msg);
		ws_res_free(res);
	}
	return rc;
}
