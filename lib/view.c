/*
 * view.c - the virtual view of a wsrun command: the workspace at "/"
 * (see ws/view.h and wsrun(1), VIEW).
 *
 * Why a tmpfs root with each top-level entry bound in, rather than the
 * other ways (measured and weighed for issue 19):
 *   - binding the workspace at "/" and the system directories on it
 *     (bwrap --bind ws / --ro-bind /usr /usr) needs their mount points
 *     in the workspace: empty usr/, bin/, lib64/ left there by a killed
 *     run, or refused on a full disk; made and removed around each run
 *     (measured, docs/speed.md) the 11 names cost about 1 ms a run on
 *     ext4 in a calm minute, what the binds of ~100 top-level entries
 *     cost here, and tens of ms when the journal is busy, still leave
 *     wsrun slower than bwrap, and a file watcher sees them come and go;
 *   - an overlay whose upper layer collects the changes copies a large
 *     file up before its first write, shows nothing to a concurrent file
 *     tool before the end, loses everything of a killed run, and in a
 *     user namespace needs Linux 5.11 and user.overlay xattrs;
 *   - here every write below a top-level entry goes to the workspace as
 *     it happens (a file tool sees it at once; a killed command's writes
 *     stay, as in the real view; a large file costs nothing more), and
 *     the mount points are made on the tmpfs only.  The price: a name
 *     made at the top is on the tmpfs until the command's tree is gone,
 *     then copied in (ws_view_apply()); a top-level entry cannot be
 *     removed or renamed from inside (EBUSY); a top-level name made by
 *     another tool during the run is not seen by the command.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/path.h"
#include "ws/pending.h"
#include "ws/persist.h"
#include "ws/policy.h"
#include "ws/sandbox.h"
#include "ws/view.h"
#include "ws/walk.h"
#include "ws/workspace.h"

/*
 * The names the sandbox itself needs at "/": where the host has them,
 * they win over a workspace entry of the same name (which is reported as
 * shadowed).  Programs need the system directories at their own paths
 * (the ELF interpreter's path is in every binary), /dev, /proc and /tmp.
 */
static const char *const ws__view_sys[] = {
	"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "opt",
	"dev", "proc", "tmp",
};

const char *
ws_view_name(enum ws_view v)
{
	return v == WS_VIEW_VIRTUAL ? "virtual" : "real";
}

int
ws_view_parse(const char *s, enum ws_view *v)
{
	if (strcmp(s, "virtual") == 0)
		*v = WS_VIEW_VIRTUAL;
	else if (strcmp(s, "real") == 0)
		*v = WS_VIEW_REAL;
	else
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "view \"%s\": expected virtual or real", s);
	return 0;
}

/* Whether the host has the system's name (dev, proc, tmp: always made). */
static bool
ws__sys_present(const char *name)
{
	char path[300];
	struct stat st;

	if (strcmp(name, "dev") == 0 || strcmp(name, "proc") == 0 ||
	    strcmp(name, "tmp") == 0)
		return true;
	snprintf(path, sizeof(path), "/%s", name);
	return lstat(path, &st) == 0;
}

bool
ws_view_shadowed(const char *vpath, char *top, size_t len)
{
	const char *p = vpath + strspn(vpath, "/");
	size_t n = strcspn(p, "/");

	for (size_t i = 0; i < sizeof(ws__view_sys) / sizeof(ws__view_sys[0]); i++)
		if (strlen(ws__view_sys[i]) == n && strncmp(p, ws__view_sys[i], n) == 0 &&
		    ws__sys_present(ws__view_sys[i])) {
			snprintf(top, len, "/%s", ws__view_sys[i]);
			return true;
		}
	return false;
}

/*
 * The lists grow by doubling, from 8: the skeleton takes a name per
 * top-level entry, and growing each array by one name a time was two
 * reallocations an entry, each a copy once the heap had moved on (a
 * list's room is not kept: it is 8, or the power of two at or above n).
 */
static int
ws__names_add(struct ws_view_names *l, const char *name, const char *why)
{
	if (l->n == 0 || (l->n >= 8 && (l->n & (l->n - 1)) == 0)) {
		size_t room = l->n == 0 ? 8 : 2 * l->n;
		char **nn = realloc(l->name, room * sizeof(char *));
		char **nw;

		if (nn == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		l->name = nn;
		nw = realloc(l->why, room * sizeof(char *));
		if (nw == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		l->why = nw;
	}
	l->name[l->n] = strdup(name);
	l->why[l->n] = why ? strdup(why) : NULL;
	if (l->name[l->n] == NULL || (why && l->why[l->n] == NULL)) {
		free(l->name[l->n]);
		free(l->why[l->n]);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	l->n++;
	return 0;
}

static bool
ws__names_has(const struct ws_view_names *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->name[i], name) == 0)
			return true;
	return false;
}

static void
ws__names_free(struct ws_view_names *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->name[i]);
		free(l->why[i]);
	}
	free(l->name);
	free(l->why);
	memset(l, 0, sizeof(*l));
}

void
ws_view_info_free(struct ws_view_info *vi)
{
	ws__names_free(&vi->system);
	ws__names_free(&vi->shadowed);
	ws__names_free(&vi->unplaced);
	ws__names_free(&vi->applied);
	ws__names_free(&vi->lost);
	ws__names_free(&vi->skeleton);
	ws__names_free(&vi->links);
	ws__names_free(&vi->masked);
	ws__names_free(&vi->read_only);
	ws__names_free(&vi->no_exec);
	ws__names_free(&vi->exec_outside);
}

/* The first component of an absolute path, into buf. */
static const char *
ws__top(const char *path, char *buf, size_t len)
{
	const char *p = path + strspn(path, "/");
	size_t n = strcspn(p, "/");

	snprintf(buf, len, "%.*s", (int)n, p);
	return buf;
}

/* Whether the name exists at rel under dirfd, following no link. */
static bool
ws__exists_beneath(int dirfd, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | O_NOFOLLOW,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	while (*rel == '/')
		rel++;
	if (*rel == '\0')
		return true;
	fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * Where a plan entry (paths[] or guards[]) goes in the virtual root: a
 * path inside an anchor at its virtual path, a host path at its own;
 * unbound (with the reason in vi->unplaced when it was asked for) where
 * it has no place.
 */
static int
ws__place(struct ws_ctx *ws, struct ws_sandbox_path *e, bool guard,
	  const struct ws_view_names *mtops, struct ws_view_info *vi)
{
	char top[256], stop[258], v[4352];
	const char *rest = NULL;
	int a = ws_ctx_anchor_of_real(ws, e->path, &rest);

	if (a < 0) {
		/* A host path: at its own path, unless a workspace or mount
		 * name is there. */
		ws__top(e->path, top, sizeof(top));
		if (ws__names_has(&vi->skeleton, top) &&
		    !ws__names_has(&vi->system, top)) {
			e->unbound = true;
			snprintf(v, sizeof(v), "/%s is the workspace's (or a mount's) "
				 "in the virtual view: the host's %s is not shown",
				 top, e->path);
			return guard ? 0 : ws__names_add(&vi->unplaced, e->path, v);
		}
		return 0;
	}
	while (rest && *rest == '/')
		rest++;
	if (a == 0 && (rest == NULL || *rest == '\0')) {
		/* The workspace itself: its Landlock rule, and its tree at
		 * the stage its top-level entries are bound from. */
		if (guard) {
			e->unbound = true;
			return 0;
		}
		e->stage = true;
		free(e->target);
		if ((e->target = strdup("/.ws-stage")) == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		return 0;
	}
	{
		const char *vp = ws->anchors[a].vprefix;
		bool root = strcmp(vp, "/") == 0;

		snprintf(v, sizeof(v), "%s%s%s", root ? "" : vp,
			 rest && *rest ? "/" : "", rest ? rest : "");
		if (v[0] == '\0')
			snprintf(v, sizeof(v), "/");
	}
	ws__top(v, top, sizeof(top));
	/* vi->shadowed names its entries as the command would ("/bin"). */
	snprintf(stop, sizeof(stop), "/%s", top);
	if (a == 0 && ws__names_has(&vi->shadowed, stop)) {
		e->unbound = true;
		return guard ? 0 : ws__names_add(&vi->unplaced, v,
						 "inside a workspace entry shadowed "
						 "by a system directory");
	}
	/*
	 * A mount whose mount point lies inside a bound directory (the
	 * workspace's, or another mount's) needs that point to exist: the
	 * view never makes a directory there.
	 */
	if (!guard && a > 0 && strchr(v + 1, '/') != NULL) {
		char parent[4352];
		const char *prest = NULL;
		int b;

		snprintf(parent, sizeof(parent), "%s", v);
		*strrchr(parent, '/') = '\0';
		b = ws_ctx_anchor_of_virtual(ws, parent, &prest);
		(void)prest;
		if ((b > 0 || (ws__names_has(&vi->skeleton, top) &&
			       !ws__names_has(&vi->system, top) &&
			       !ws__names_has(mtops, top))) &&
		    !ws__exists_beneath(ws->anchors[b].fd,
					b > 0 ? v + strlen(ws->anchors[b].vprefix) : v)) {
			e->unbound = true;
			return ws__names_add(&vi->unplaced, v,
					     "its mount point does not exist in the "
					     "directory that holds it (the view makes "
					     "none there)");
		}
	}
	free(e->target);
	if ((e->target = strdup(v)) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

/* ---- One host directory at one place (review18 02, 03) -------------- */

/*
 * Cover anchor a's real directory at v in the virtual root with an
 * empty read-only directory: a mask guard on a's directory, placed at v
 * (ws_sandbox_mount() binds it after every path, deeper after
 * shallower), and a note in vi->unplaced.  where says whose bind shows
 * it there.
 */
static int
ws__cover(struct ws_ctx *ws, struct ws_sandbox_plan *p,
	  struct ws_view_info *vi, size_t a, const char *v, const char *where)
{
	char why[4608];
	int fd, rc;

	for (size_t i = 0; i < p->nguards; i++)
		if (p->guards[i].mask && !p->guards[i].unbound &&
		    p->guards[i].target != NULL && strcmp(p->guards[i].target, v) == 0)
			return 0;
	if ((fd = fcntl(ws->anchors[a].fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return ws_error_errno(errno, NULL, "dup");
	if ((rc = ws_sandbox_plan_add_guard(p, fd, ws->anchors[a].real, true)) < 0)
		return rc;
	if ((p->guards[p->nguards - 1].target = strdup(v)) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if (a == 0)
		snprintf(why, sizeof(why), "%s shows the workspace's directory "
			 "here again: it is shown at / only (an empty read-only "
			 "directory here), where its guards are", where);
	else
		snprintf(why, sizeof(why), "%s shows the mount %s's directory "
			 "here again: it is shown at %s only (an empty read-only "
			 "directory here), where its guards are", where,
			 ws->anchors[a].vprefix, ws->anchors[a].vprefix);
	return ws__names_add(&vi->unplaced, v, why);
}

/* Whether another anchor's directory lies between anchor a's and the
 * directory outer (both strictly): the cover of that one covers a's. */
static bool
ws__between(const struct ws_ctx *ws, size_t a, const char *outer)
{
	const char *ar = ws->anchors[a].real, *r;

	for (size_t c = 0; c < ws->nanchors; c++) {
		const char *cr = ws->anchors[c].real;

		if (c != a && strcmp(cr, ar) != 0 && strcmp(cr, outer) != 0 &&
		    ws_path_within(cr, ar, &r) && ws_path_within(outer, cr, &r))
			return true;
	}
	return false;
}

/*
 * In the virtual view every guard (a policy mask, a read-only
 * persistence place, the history's mask) is placed once, under the
 * longest anchor that holds its real path.  Each anchor's directory must
 * then be reachable at that anchor's place only: where another bind
 * shows it again (a mount or the workspace that holds it, a system
 * directory bound whole such as /opt, a grant of a parent, a read-only
 * bind of a HOME place), it is covered by an empty read-only directory,
 * so that every guard holds at every path by which the command can reach
 * the guarded entry (review18 02, 03).  What cannot be shown at one
 * place is refused: two anchors of one directory, or a mount point
 * inside a place to cover.  A grant that names an anchor's tree through
 * a link is shown at its virtual path only.  Without grants, no system
 * call here (a grant's own path costs a readlink of its descriptor).
 */
static int
ws__cover_aliases(struct ws_ctx *ws, struct ws_sandbox_plan *p,
		  struct ws_view_info *vi)
{
	char v[4352], hreal[PATH_MAX], why[4608], top[256], stop[258];
	const char *rest;
	int rc = 0, at;

	for (size_t a = 0; a < ws->nanchors; a++)
		for (size_t b = 0; rc == 0 && b < ws->nanchors; b++) {
			const char *br = ws->anchors[b].real, *bv = ws->anchors[b].vprefix;

			if (a == b || !ws_path_within(br, ws->anchors[a].real, &rest))
				continue;
			if (*rest == '\0') {
				if (b < a)
					rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE,
							  ws->anchors[a].vprefix,
							  "%s %s and %s show one directory "
							  "(%s): the virtual view shows each "
							  "directory at one place, where its "
							  "guards are; drop one, or use --view "
							  "real", b == 0 ? "the workspace" :
							  "the mounts", bv,
							  ws->anchors[a].vprefix, br);
				continue;
			}
			if (ws__between(ws, a, br))
				continue;
			snprintf(v, sizeof(v), "%s/%s", strcmp(bv, "/") == 0 ? "" : bv,
				 rest);
			/* Not shown through b at all: a workspace entry that a
			 * system name or a mount hides, or a mount's place. */
			ws__top(v, top, sizeof(top));
			snprintf(stop, sizeof(stop), "/%s", top);
			if (b == 0 && ws__names_has(&vi->shadowed, stop))
				continue;
			if ((at = ws_ctx_anchor_of_virtual(ws, v, NULL)) != (int)b)
				continue;
			for (size_t c = 1; rc == 0 && c < ws->nanchors; c++)
				if (ws_path_within(v, ws->anchors[c].vprefix, &rest) &&
				    *rest != '\0')
					rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE,
							  ws->anchors[c].vprefix,
							  "the mount point %s lies in %s, "
							  "which shows %s's directory (%s) "
							  "again and is covered in the "
							  "virtual view; move the mount, or "
							  "use --view real",
							  ws->anchors[c].vprefix, v,
							  a == 0 ? "the workspace" :
							  ws->anchors[a].vprefix,
							  ws->anchors[a].real);
			if (rc == 0) {
				snprintf(why, sizeof(why), "%s %s", b == 0 ?
					 "the workspace" : "the mount", bv);
				rc = ws__cover(ws, p, vi, a, v, why);
			}
		}
	/* Binds at host paths: system directories, grants, guards. */
	for (size_t i = 0; rc == 0 && i < p->npaths + p->nguards; i++) {
		bool g = i >= p->npaths;
		struct ws_sandbox_path *e = g ? &p->guards[i - p->npaths] : &p->paths[i];
		/* Not e's: ws__cover() may move the guards. */
		const char *h = e->path, *hp = e->path;
		bool sys = e->sys;

		if (e->unbound || e->target != NULL || e->mount_only || e->stage ||
		    e->mask || e->fd < 0)
			continue;
		if (!g && !sys && (p->priv_real == NULL ||
				   strcmp(e->path, p->priv_real) != 0)) {
			/* A grant (--allow-*, or the policy's), named perhaps
			 * through a link: its directory's own path. */
			char fdp[64];
			ssize_t n;

			snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", e->fd);
			if ((n = readlink(fdp, hreal, sizeof(hreal) - 1)) <= 0 ||
			    hreal[0] != '/')
				return ws_error_set(WS_ESANDBOX_UNAVAILABLE, e->path,
						    "cannot tell which directory %s "
						    "is, to show it at one place in "
						    "the virtual view", e->path);
			hreal[n] = '\0';
			h = hreal;
			if ((at = ws_ctx_anchor_of_real(ws, h, &rest)) >= 0) {
				/* An anchor's tree by another name: shown at
				 * its virtual path only. */
				char *vp = NULL;

				if ((rc = ws_ctx_virtual_of(ws, at, rest, &vp)) < 0)
					return rc;
				e->unbound = true;
				snprintf(why, sizeof(why), "the same directory as %s "
					 "in the virtual view: shown there only, "
					 "where its guards are", vp);
				free(vp);
				rc = ws__names_add(&vi->unplaced, e->path, why);
				continue;
			}
		}
		if (e->file)
			continue;
		for (size_t a = 0; rc == 0 && a < ws->nanchors; a++) {
			if (!ws_path_within(h, ws->anchors[a].real, &rest) ||
			    *rest == '\0' || ws__between(ws, a, h))
				continue;
			snprintf(v, sizeof(v), "%s/%s", strcmp(hp, "/") == 0 ?
				 "" : hp, rest);
			snprintf(why, sizeof(why), "%s %s", sys ?
				 "the system directory" : g ? "the read-only place" :
				 "the grant", hp);
			rc = ws__cover(ws, p, vi, a, v, why);
		}
	}
	return rc;
}

int
ws_view_plan(struct ws_ctx *ws, struct ws_sandbox_plan *p,
	     struct ws_view_info *vi)
{
	struct ws_view_names mtops = {0};
	char top[256], real[4352];
	struct dirent *de;
	DIR *d = NULL;
	int rc = 0, dfd;
	/* In one of HOME's persistence places: read-only (ws/persist.h);
	 * the plan's finding when it has one (the bases taken once). */
	bool rw = !ws->anchors[0].ro &&
		  !(p->home_done ? p->root_in_place
				 : ws_home_persist_anchor(ws->anchors[0].real));

	/* The system's names that the host has (dev, proc, tmp: always). */
	for (size_t i = 0; rc == 0 && i < sizeof(ws__view_sys) / sizeof(ws__view_sys[0]); i++)
		if (ws__sys_present(ws__view_sys[i]))
			rc = ws__names_add(&vi->system, ws__view_sys[i], NULL);
	for (size_t i = 0; rc == 0 && i < vi->system.n; i++)
		rc = ws__names_add(&vi->skeleton, vi->system.name[i], NULL);
	for (size_t k = 1; rc == 0 && k < ws->nanchors; k++) {
		ws__top(ws->anchors[k].vprefix, top, sizeof(top));
		if (!ws__names_has(&mtops, top))
			rc = ws__names_add(&mtops, top, NULL);
		if (rc == 0 && !ws__names_has(&vi->skeleton, top))
			rc = ws__names_add(&vi->skeleton, top, NULL);
	}
	if (rc < 0)
		goto out;
	/* The workspace's top-level entries, each a bind of its own. */
	dfd = openat(ws->anchors[0].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		rc = ws_error_errno(errno, "/", "the workspace");
		goto out;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		unsigned char type = de->d_type;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (ws__names_has(&vi->system, de->d_name)) {
			char why[320];

			snprintf(why, sizeof(why), "the system's /%s is shown there",
				 de->d_name);
			snprintf(real, sizeof(real), "/%s", de->d_name);
			rc = ws__names_add(&vi->shadowed, real, why);
			continue;
		}
		/* The masks' empty sources are made at "/" while the view is
		 * built (lib/sandbox.c): a workspace entry of that name would
		 * stand in for them. */
		if (strcmp(de->d_name, ".ws-empty") == 0 ||
		    strcmp(de->d_name, ".ws-empty-dir") == 0 ||
		    strcmp(de->d_name, ".ws-stage") == 0) {
			snprintf(real, sizeof(real), "/%s", de->d_name);
			rc = ws__names_add(&vi->shadowed, real, "a name wsrun uses "
					   "while it builds the view");
			continue;
		}
		/* A mount of that name shows instead, as wsls shows it. */
		if (ws__names_has(&mtops, de->d_name))
			continue;
		if (vi->skeleton.n >= WS_VIEW_MAX_TOP) {
			rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, "/",
					  "the workspace has more than %d top-level "
					  "entries, each a mount in the virtual "
					  "view; use --view real",
					  WS_VIEW_MAX_TOP);
			break;
		}
		/*
		 * The kind from the directory entry: no open and no stat per
		 * entry here (each is a mount, made by the namespace init by
		 * name from the stage, the workspace's own tree, with no
		 * link followed; a kind changed meanwhile fails there).  A
		 * file system that does not say costs a stat.
		 */
		if (type == DT_UNKNOWN) {
			struct stat st;

			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue; /* gone meanwhile */
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ?
			       DT_LNK : DT_REG;
		}
		snprintf(real, sizeof(real), "%s%s%s", ws->anchors[0].real,
			 strcmp(ws->anchors[0].real, "/") == 0 ? "" : "/",
			 de->d_name);
		if ((rc = ws_sandbox_plan_add(p, -1, real, rw,
					      type != DT_DIR)) < 0)
			break;
		p->paths[p->npaths - 1].mount_only = true;
		snprintf(real, sizeof(real), "/%s", de->d_name);
		if ((p->paths[p->npaths - 1].target = strdup(real)) == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			break;
		}
		p->paths[p->npaths - 1].link_copy = type == DT_LNK;
		p->paths[p->npaths - 1].from_stage = type != DT_LNK;
		rc = ws__names_add(&vi->skeleton, de->d_name, NULL);
		if (rc == 0 && type == DT_LNK) {
			/*
			 * Its target as the view copies it: after the run, a
			 * copy still pointing there is one the command left
			 * alone, whatever became of the workspace's link.
			 */
			char t[PATH_MAX];
			ssize_t nt = readlinkat(dirfd(d), de->d_name, t, sizeof(t) - 1);

			if (nt >= 0)
				t[nt] = '\0';
			rc = ws__names_add(&vi->links, de->d_name, nt >= 0 ? t : NULL);
		}
	}
	if (rc < 0)
		goto out;
	/* Every path and guard at its place in the virtual root. */
	for (size_t i = 0; rc == 0 && i < p->npaths; i++)
		if (!p->paths[i].mount_only)
			rc = ws__place(ws, &p->paths[i], false, &mtops, vi);
	for (size_t i = 0; rc == 0 && i < p->nguards; i++)
		rc = ws__place(ws, &p->guards[i], true, &mtops, vi);
	/* Each anchor's directory at its one place (review18 02, 03). */
	if (rc == 0)
		rc = ws__cover_aliases(ws, p, vi);
	/* Host paths placed at their own top-level names. */
	for (size_t i = 0; rc == 0 && i < p->npaths; i++)
		if (!p->paths[i].unbound && p->paths[i].target == NULL) {
			ws__top(p->paths[i].path, top, sizeof(top));
			if (!ws__names_has(&vi->skeleton, top))
				rc = ws__names_add(&vi->skeleton, top, NULL);
		}
	if (rc == 0)
		rc = ws__names_add(&vi->skeleton, ".ws-empty", NULL);
	if (rc == 0)
		rc = ws__names_add(&vi->skeleton, ".ws-empty-dir", NULL);
	if (rc == 0)
		rc = ws__names_add(&vi->skeleton, ".ws-stage", NULL);
	if (rc < 0)
		goto out;
	ws_sandbox_plan_sort(p);
	p->virt = true;
out:
	if (d != NULL)
		closedir(d);
	ws__names_free(&mtops);
	return rc;
}

/* The root's directory at the command's start, as sent (see there). */
struct ws__root_msg {
	char v;
	bool known;
	long long size;
	struct timespec mtime, ctime;
};

int
ws_view_send_root(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] __attribute__((aligned(8)));
	struct ws__root_msg b;
	struct iovec iov = {.iov_base = &b, .iov_len = sizeof(b)};
	struct stat st;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	memset(&b, 0, sizeof(b)); /* no stray bytes in the message */
	b.v = 'v';
	if (fstat(fd, &st) == 0) {
		b.known = true;
		b.size = (long long)st.st_size;
		b.mtime = st.st_mtim;
		b.ctime = st.st_ctim;
	}
	memset(cbuf, 0, sizeof(cbuf));
	cm = (struct cmsghdr *)(void *)cbuf; /* CMSG_FIRSTHDR, never NULL here */
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	rc = sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(b) ? 0 : -1;
	close(fd);
	close(sock);
	return rc;
}

int
ws_view_recv_root(int sock, struct ws_view_info *vi)
{
	char cbuf[CMSG_SPACE(sizeof(int))] __attribute__((aligned(8)));
	struct ws__root_msg b;
	struct iovec iov = {.iov_base = &b, .iov_len = sizeof(b)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	int fd = -1;

	if (recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != (ssize_t)sizeof(b))
		return -1;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	vi->root_known = fd >= 0 && b.known;
	vi->root_size = b.size;
	vi->root_mtime = b.mtime;
	vi->root_ctime = b.ctime;
	return fd;
}

/* ---- The policy's view ---------------------------------------------- */

/* The longest path the policy's walk names, real or virtual. */
#define WS__PWALK_PATH 4352

/*
 * The entries the policy's walks bind one by one, over all anchors, and
 * where they stop: past room (WS_VIEW_MAX_BINDS, or what the descriptor
 * limit leaves), or where the descriptors ran out (err), nothing more is
 * bound; the walk goes on counting what it would bind, and the call is
 * refused after it (ws__pwalk_over_error()).
 */
struct ws__pbinds {
	size_t n;	/* bound */
	size_t room;	/* at most */
	unsigned long long limit; /* the descriptor limit, where it set room */
	size_t ng0;	/* the plan's guards before the walks */
	bool over;
	int err;	/* 0: past room; else what opening the entry met */
	/* The first entry not bound: the operation refused, the rule that
	 * refuses it and its glob as written, its virtual path. */
	enum ws_op op;
	const char *rule, *pat;
	char v[WS__PWALK_PATH];
	size_t nall;	/* the entries past it, that one included */
	size_t nrule;	/* of them, those the same rule refuses op on */
	bool partial;	/* the count stopped at the walk's bound */
};

struct ws__pwalk {
	struct ws_ctx *ws;
	struct ws_sandbox_plan *p;
	struct ws_view_info *vi;
	struct ws__pbinds *b;
	size_t seen;
	bool ro;	/* a read-only anchor: nothing to make read-only */
	const char *vprefix;
	size_t max;	/* entries at most */
	/* The real path of the entry at hand, appended to in place as the
	 * walk goes down (no string made per entry), its anchor's real
	 * path its first rlen0 bytes; its virtual path is vbase followed by
	 * what comes after those, made only for an entry that is masked. */
	char r[WS__PWALK_PATH];
	size_t rlen0;
	const char *vbase;
	size_t vlen0;
};

/*
 * Whether a rule of the policy refuses op on real (ws_policy_refuses()):
 * an approve rule does not where the person approved what the policy
 * asks (--approve on wsrun's command line), as for the file tools
 * (ftu18 09); a command cannot ask about each file otherwise.
 */
static bool
ws__refused(struct ws_ctx *ws, enum ws_op op, const char *real)
{
	struct ws_policy_match m = {0};

	if (!ws_policy_refuses(ws->policy, op, real))
		return false;
	return !ws->approve ||
	       ws_policy_check_file(ws->policy, op, real, &m) != WS_DECISION_APPROVE;
}

#define WS_STR_(x) #x
#define WS_STR(x) WS_STR_(x)

/* The walk cannot see all of an anchor (why): refused, not run blind. */
static int
ws__pwalk_bound(const struct ws__pwalk *w, const char *why)
{
	return ws_error_set(WS_ESANDBOX_UNAVAILABLE, w->vprefix,
			    "the policy refuses some reads or writes inside %s, "
			    "and finding what it refuses there meets %s before "
			    "the command starts: refused rather than run with "
			    "them reachable (narrow the policy's deny rules, or "
			    "the workspace)", w->vprefix, why);
}

/*
 * The entry n of the directory being walked, whose real path is the
 * first rlen bytes of w->r, cannot be opened or looked at (err) although
 * the policy may refuse something there: the run is refused with the
 * reason, never run with it unguarded (review16 05).
 */
static int
ws__pwalk_open_failed(const struct ws__pwalk *w, const char *n, size_t rlen,
		      int err)
{
	char v[WS__PWALK_PATH];

	snprintf(v, sizeof(v), "%s%.*s/%s", w->vbase, (int)(rlen - w->rlen0),
		 w->r + w->rlen0, n);
	return ws_error_set(WS_ESANDBOX_UNAVAILABLE, v,
			    "the policy refuses some reads or writes inside %s, "
			    "and its walk cannot open %s (%s) to find or mask "
			    "what it refuses there: refused rather than run "
			    "with it reachable (make it readable, or narrow the "
			    "policy's deny rules)", w->vprefix, v, strerror(err));
}

/*
 * What the walk of a directory returns where it may read the directory
 * but not search it (EACCES from an openat() in it): what is in it cannot
 * be masked one by one, so its caller masks it whole.
 */
#define WS__PWALK_UNSEARCHABLE 1

/*
 * The entry n of fd (real path w->r) opened to be guarded, O_PATH and not
 * following a link, and its virtual path into v (vlen bytes), for
 * ws__pwalk_guard() and ws__pwalk_mask_whole(): 0 with *efd, or *efd -1
 * where it is gone since the directory was read (nothing to guard);
 * WS__PWALK_UNSEARCHABLE where fd's own mode keeps it from being opened;
 * -1 with errno for any other failure, which its caller refuses the run
 * for in its own words.
 */
static int
ws__pwalk_open_entry(struct ws__pwalk *w, int fd, const char *n, char *v,
		     size_t vlen, int *efd)
{
	snprintf(v, vlen, "%s%s", w->vbase, w->r + w->rlen0);
	if ((*efd = openat(fd, n, O_PATH | O_NOFOLLOW | O_CLOEXEC)) >= 0)
		return 0;
	if (errno == ENOENT)
		return 0;
	if (errno == EACCES || errno == EPERM)
		return WS__PWALK_UNSEARCHABLE;
	return -1;
}

/*
 * The entry at w->r, which the policy refuses op on, is not bound (the
 * walk's binds are past their bound, or err: opening it met EMFILE or
 * ENFILE): counted, with the rule that refuses it.  The first such entry
 * names the rule the refusal names.  Where the descriptors ran out, the
 * walk's own are given back: the call is refused after the walk, and the
 * walk still opens a directory a level.
 */
static void
ws__pwalk_over(struct ws__pwalk *w, enum ws_op op, int err)
{
	struct ws__pbinds *b = w->b;
	struct ws_policy_match m = {WS_DECISION_ALLOW, NULL, -1, NULL, NULL, NULL};

	(void)ws_policy_check_file(w->ws->policy, op, w->r, &m);
	if (!b->over) {
		b->over = true;
		b->err = err;
		b->op = op;
		b->rule = m.rule;
		b->pat = m.pattern;
		if (snprintf(b->v, sizeof(b->v), "%s%s", w->vbase, w->r + w->rlen0) < 1)
			snprintf(b->v, sizeof(b->v), "/");
		for (size_t i = b->ng0; err != 0 && i < w->p->nguards; i++)
			if (w->p->guards[i].fd >= 0) {
				close(w->p->guards[i].fd);
				w->p->guards[i].fd = -1;
			}
	}
	b->nall++;
	if (op == b->op && m.rule != NULL && b->rule != NULL &&
	    strcmp(m.rule, b->rule) == 0)
		b->nrule++;
}

/* Whether the walk binds no more: the entry at w->r is counted instead. */
static bool
ws__pwalk_full(struct ws__pwalk *w, enum ws_op op)
{
	if (!w->b->over && w->b->n < w->b->room)
		return false;
	ws__pwalk_over(w, op, 0);
	return true;
}

/*
 * Opening an entry to bind it failed: a descriptor limit is the count's
 * (ws__pwalk_over()), true; any other failure is its caller's.
 */
static bool
ws__pwalk_no_fd(struct ws__pwalk *w, enum ws_op op)
{
	if (errno != EMFILE && errno != ENFILE)
		return false;
	ws__pwalk_over(w, op, errno);
	return true;
}

/*
 * The call refused where the walk stopped binding: how many entries the
 * rule of the first one not bound refuses op on (those bound before it
 * and those past it), the rule, why the walk stopped, and the way out.
 */
static int
ws__pwalk_over_error(struct ws_ctx *ws, const struct ws_sandbox_plan *p,
		     const struct ws__pbinds *b)
{
	const char *verb = b->op == WS_OP_EXEC ? "execute" :
			   b->op == WS_OP_READ ? "read" : "write";
	const char *adj = b->op == WS_OP_EXEC ? "executable" :
			  b->op == WS_OP_READ ? "readable" : "writable";
	size_t nrule = b->nrule;
	char why[160], rule[300], rest[96];

	/* The entries bound before it that the same rule refuses op on. */
	for (size_t i = b->ng0; b->rule != NULL && i < p->nguards; i++) {
		struct ws_policy_match m = {WS_DECISION_ALLOW, NULL, -1, NULL, NULL, NULL};

		(void)ws_policy_check_file(ws->policy, b->op, p->guards[i].path, &m);
		if (m.rule != NULL && strcmp(m.rule, b->rule) == 0)
			nrule++;
	}
	if (b->err != 0)
		snprintf(why, sizeof(why), "the descriptors ran out after %zu of them "
			 "(%s)", b->n, strerror(b->err));
	else if (b->limit > 0)
		snprintf(why, sizeof(why), "more than the %zu the descriptor limit "
			 "(%llu) leaves room for", b->room, b->limit);
	else
		snprintf(why, sizeof(why), "more than the %zu a call binds",
			 b->room);
	if (b->rule != NULL) {
		snprintf(rule, sizeof(rule), "rule %s (%s)", b->rule,
			 b->pat != NULL ? b->pat : "?");
	} else {
		snprintf(rule, sizeof(rule), "its rules");
		nrule = b->n + b->nall;
	}
	rest[0] = '\0';
	if (b->n + b->nall > nrule)
		snprintf(rest, sizeof(rest), " (%zu%s with its other rules)",
			 b->n + b->nall, b->partial ? " or more" : "");
	return ws_error_set(WS_ESANDBOX_UNAVAILABLE, b->v,
			    "the policy refuses to %s %zu%s entries of the "
			    "workspace by %s%s, each bound alone, a mount "
			    "apiece: %s; refused rather than run with them %s "
			    "(a rule on their directory, dir/**, binds it whole "
			    "in one mount)", verb, nrule, b->partial ? " or more" : "",
			    rule, rest, why, adj);
}

/*
 * Guard the entry n of the directory fd, whose real path w->r holds: an
 * empty mask over it (mask) or a read-only bind.  An entry gone since
 * the directory was read needs none; one the directory's mode keeps
 * from being opened is WS__PWALK_UNSEARCHABLE; one that cannot be opened
 * for another reason (EMFILE) refuses the run: skipping it left it
 * reachable (review16 05).
 */
static int
ws__pwalk_guard(struct ws__pwalk *w, int fd, const char *n, bool mask)
{
	char v[WS__PWALK_PATH];
	int efd, rc;

	if (ws__pwalk_full(w, mask ? WS_OP_READ : WS_OP_WRITE))
		return 0;
	if ((rc = ws__pwalk_open_entry(w, fd, n, v, sizeof(v), &efd)) < 0 &&
	    ws__pwalk_no_fd(w, mask ? WS_OP_READ : WS_OP_WRITE))
		return 0;
	if (rc < 0)
		return ws_error_set(WS_ESANDBOX_UNAVAILABLE, v[0] ? v : "/",
				    "the policy refuses to %s %s, and it cannot "
				    "be opened to %s it (%s): refused rather "
				    "than run with it reachable", mask ? "read" : "write",
				    v[0] ? v : "/", mask ? "mask" : "make read-only",
				    strerror(errno));
	if (rc > 0 || efd < 0)
		return rc;
	if ((rc = ws_sandbox_plan_add_guard(w->p, efd, w->r, mask)) == 0) {
		w->b->n++;
		rc = ws__names_add(mask ? &w->vi->masked : &w->vi->read_only,
				   v[0] ? v : "/", NULL);
	}
	return rc;
}

/*
 * Keep the entry n of fd, whose real path w->r holds, from being run in
 * the command (the policy refuses "exec" on it, or on everything in the
 * directory): a bind of it onto itself without execute, writable as it
 * was (Landlock governs execve() only, and "ld.so prog" maps a program
 * without it; a mount's noexec stops both).  Where the walk has just
 * made it read-only, that bind is made non-executable instead.
 */
static int
ws__pwalk_noexec(struct ws__pwalk *w, int fd, const char *n)
{
	struct ws_sandbox_path *g = w->p->nguards > 0 ?
				    &w->p->guards[w->p->nguards - 1] : NULL;
	char v[WS__PWALK_PATH];
	int efd, rc;

	if (g != NULL && !g->mask && strcmp(g->path, w->r) == 0) {
		g->noexec = true;
		snprintf(v, sizeof(v), "%s%s", w->vbase, w->r + w->rlen0);
		return ws__names_add(&w->vi->no_exec, v[0] ? v : "/", NULL);
	}
	if (ws__pwalk_full(w, WS_OP_EXEC))
		return 0;
	if ((rc = ws__pwalk_open_entry(w, fd, n, v, sizeof(v), &efd)) < 0 &&
	    ws__pwalk_no_fd(w, WS_OP_EXEC))
		return 0;
	if (rc < 0)
		return ws_error_set(WS_ESANDBOX_UNAVAILABLE, v[0] ? v : "/",
				    "the policy refuses to execute %s, and it "
				    "cannot be opened to bind it without "
				    "execute (%s): refused rather than run with "
				    "it executable", v[0] ? v : "/", strerror(errno));
	if (rc > 0 || efd < 0)
		return rc;
	if ((rc = ws_sandbox_plan_add_guard(w->p, efd, w->r, false)) < 0)
		return rc;
	w->b->n++;
	g = &w->p->guards[w->p->nguards - 1];
	g->write = !w->ro;
	g->noexec = true;
	/*
	 * A directory whose every entry is masked as well (a rule that
	 * refuses everything below it): listed, but not said again in the
	 * note after the masks' (a reason makes it skipped there).
	 */
	return ws__names_add(&w->vi->no_exec, v[0] ? v : "/",
			     ws_policy_refuses_all_below(w->ws->policy, WS_OP_READ,
							 w->r, w->ws->approve) ?
			     "its content is masked as well" : NULL);
}

/*
 * Mask the directory n of fd, whose real path w->r holds, whole: the walk
 * may not read it, or not search it, so what it holds is unknown, and its
 * owner's command could make it readable again (review16 05).  What was
 * guarded below it already (its mode changed while the walk read it)
 * goes under the mask.  WS__PWALK_UNSEARCHABLE where fd's own mode keeps
 * it from being opened.
 */
static int
ws__pwalk_mask_whole(struct ws__pwalk *w, int fd, const char *n)
{
	char v[WS__PWALK_PATH];
	size_t ng = w->p->nguards;
	int efd, rc;

	if (ws__pwalk_full(w, WS_OP_READ))
		return 0;
	if ((rc = ws__pwalk_open_entry(w, fd, n, v, sizeof(v), &efd)) < 0 &&
	    ws__pwalk_no_fd(w, WS_OP_READ))
		return 0;
	if (rc < 0)
		return ws_error_set(WS_ESANDBOX_UNAVAILABLE, v, "the policy "
				    "refuses some reads or writes inside %s, and "
				    "its walk can neither read %s nor open it to "
				    "mask it (%s): refused rather than run with "
				    "it reachable", w->vprefix, v, strerror(errno));
	if (rc > 0 || efd < 0)
		return rc;
	if ((rc = ws_sandbox_plan_add_mask(w->p, efd, w->r)) == 0) {
		w->b->n += w->p->nguards - ng;
		rc = ws__names_add(&w->vi->masked, v, NULL);
	}
	return rc;
}

/* The policy walk's read of one directory: getdents64 into this much. */
#define WS__PWALK_DENTS 32768
/*
 * One directory of the policy's walk.  Read with getdents64(), whose
 * d_type says what an entry is: no system call for an entry that no rule
 * refuses (a stat only where the file system leaves the type unknown),
 * and a subdirectory below which no refusing rule's literal start lies
 * (ws_policy_may_refuse_below()) is not read at all.  fd is the
 * directory, open for reading; closed here.  nx: it is bound without
 * execute already, so what the walk binds in it is too.
 */
static int
ws__pwalk_dir(struct ws__pwalk *w, int fd, size_t rlen, int depth, bool nx)
{
	char *buf;
	ssize_t got = 0, off = 0;
	int rc = 0;

	if ((buf = malloc(WS__PWALK_DENTS)) == NULL) {
		close(fd);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	while (rc == 0) {
		struct dirent64 *de;
		const char *n;
		size_t nlen, elen;
		bool mask, dir, sub_nx, counted;

		if (off >= got) {
			/*
			 * Read until getdents64() says 0: a read that is not
			 * full is not the end.  The kernel cuts a read short
			 * after its first entry when a signal is pending (a
			 * stop and continue, a debugger, a freeze): a walk that
			 * took it for the end left denied files unmasked
			 * (review15 01).  EINTR is read again; any other error
			 * fails the run closed.
			 */
			do
				got = getdents64(fd, buf, WS__PWALK_DENTS);
			while (got < 0 && errno == EINTR);
			off = 0;
			if (got < 0) {
				rc = ws_error_errno(errno, NULL, "the policy's walk: "
						    "cannot read a directory");
				break;
			}
			if (got == 0)
				break;
		}
		de = (struct dirent64 *)(void *)(buf + off);
		off += de->d_reclen;
		n = de->d_name;
		if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
			continue;
		if (++w->seen > w->max && w->b->over) {
			/* Refused already: the count stops here. */
			w->b->partial = true;
			break;
		}
		if (w->seen > w->max) {
			rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, w->vprefix,
					  "the policy refuses some reads or writes "
					  "inside %s, and finding what it refuses "
					  "there takes a walk of more than %zu entries "
					  "before the command starts: refused rather "
					  "than run with them reachable (narrow the "
					  "policy's deny rules, or the workspace)",
					  w->vprefix, w->max);
			break;
		}
		/* A link: its target is checked where it is. */
		if (de->d_type == DT_LNK)
			continue;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			if (fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) < 0) {
				/* Gone since the read: nothing to guard. */
				if (errno == ENOENT)
					continue;
				rc = errno == EACCES || errno == EPERM ?
				     WS__PWALK_UNSEARCHABLE :
				     ws__pwalk_open_failed(w, n, rlen, errno);
				break;
			}
			if (S_ISLNK(st.st_mode))
				continue;
			dir = S_ISDIR(st.st_mode);
		} else {
			dir = de->d_type == DT_DIR;
		}
		/* The entry's real path: the directory's, "/", its name. */
		nlen = strlen(n);
		elen = rlen + 1 + nlen;
		if (elen >= sizeof(w->r) ||
		    w->vlen0 + (elen - w->rlen0) >= WS__PWALK_PATH) {
			rc = ws__pwalk_bound(w, "a name longer than the walk takes");
			break;
		}
		w->r[rlen] = '/';
		memcpy(w->r + rlen + 1, n, nlen + 1);
		mask = ws__refused(w->ws, WS_OP_READ, w->r);
		counted = false;
		if (mask || (!w->ro && !dir && ws__refused(w->ws, WS_OP_WRITE, w->r))) {
			size_t ng = w->p->nguards;

			rc = ws__pwalk_guard(w, fd, n, mask);
			if (mask)
				continue; /* nothing below an emptied directory */
			/* Its own bind: without execute as its directory's
			 * (none where it was only counted). */
			counted = rc == 0 && w->b->over && w->p->nguards == ng;
			if (rc == 0 && nx && !counted)
				w->p->guards[w->p->nguards - 1].noexec = true;
		}
		/*
		 * The policy's exec rules: a file a rule refuses to execute,
		 * or a directory below which every path is refused (what the
		 * command makes in it then runs no more than what is there).
		 */
		sub_nx = nx;
		/* (Counted for its write rule: one bind, counted once.) */
		if (rc == 0 && !nx && !counted &&
		    (dir ? ws_policy_refuses_all_below(w->ws->policy, WS_OP_EXEC, w->r,
							       w->ws->approve)
			 : ws__refused(w->ws, WS_OP_EXEC, w->r))) {
			rc = ws__pwalk_noexec(w, fd, n);
			sub_nx = dir;
		}
		/* Nothing below it any refusing rule can name: not read. */
		if (rc == 0 && dir && ws_policy_may_refuse_below(w->ws->policy, w->r)) {
			int sub;

			/* Not silently: what lies deeper could be a rule's. */
			if (depth >= WS_VIEW_MAX_DEPTH) {
				rc = ws__pwalk_bound(w, "directories deeper than "
						     WS_STR(WS_VIEW_MAX_DEPTH) " levels");
				break;
			}
			/*
			 * Opened to be read at once (not O_PATH, then "."
			 * again): one call a directory fewer, and a close.
			 */
			sub = openat(fd, n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				     O_NONBLOCK | O_CLOEXEC);
			if (sub >= 0) {
				rc = ws__pwalk_dir(w, sub, elen, depth + 1, sub_nx);
				/* Readable, not searchable: masked whole. */
				if (rc == WS__PWALK_UNSEARCHABLE) {
					w->r[elen] = '\0';
					rc = ws__pwalk_mask_whole(w, fd, n);
				}
			} else if (errno == EACCES || errno == EPERM) {
				/*
				 * A directory the walk may not read: it was
				 * skipped as one the command cannot read
				 * either, but a mode of 0311 lets the command
				 * open a denied file in it by name, and its
				 * owner may chmod it back (review16 05).  What
				 * it holds is unknown: it is masked whole,
				 * as a denied directory is.
				 */
				rc = ws__pwalk_mask_whole(w, fd, n);
			} else if (errno != ENOENT && errno != ENOTDIR &&
				   errno != ELOOP) {
				/* Not gone nor replaced by a file or a link
				 * since the read (EMFILE, ENOMEM, EIO):
				 * unknown, so refused. */
				rc = ws__pwalk_open_failed(w, n, rlen, errno);
			}
		}
	}
	free(buf);
	close(fd);
	return rc;
}

/* What fd names, as the kernel has it (no link in it), into buf. */
static bool
ws__fd_real(int fd, char *buf, size_t len)
{
	char proc[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, len - 1);
	if (n <= 0 || (size_t)n >= len - 1 || buf[0] != '/')
		return false;
	buf[n] = '\0';
	return true;
}

/*
 * One state directory (real: its real path, fd: it) in the command's
 * view: wherever a path of the plan (the workspace, a mount, a grant,
 * --allow-read) holds it, an empty directory is bound read-only over it
 * at the place it has there; a path of the plan at or inside it is the
 * history itself, refused.
 */
static int
ws__view_history_one(struct ws_ctx *ws, struct ws_sandbox_plan *p,
		     struct ws_view_info *vi, bool can_mask, const char *real,
		     int fd)
{
	char *v = NULL;
	size_t np = p->npaths;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < np; i++) {
		char pr[4352], at[4352];
		const char *rest = NULL;
		int dfd;

		if (p->paths[i].fd < 0 || !ws__fd_real(p->paths[i].fd, pr, sizeof(pr)))
			continue;
		if (ws_path_within(real, pr, NULL))
			return ws_error_set(WS_EPOLICY_DENIED, p->paths[i].path,
					    "is (or is in) wstools' history %s, which "
					    "keeps what files held before each change, "
					    "other workspaces' too: no command may see it",
					    real);
		if (p->paths[i].file || !ws_path_within(pr, real, &rest))
			continue;
		while (rest != NULL && *rest == '/')
			rest++;
		if (!can_mask)
			return ws_error_set(WS_ESANDBOX_UNAVAILABLE, p->paths[i].path,
					    "holds wstools' history %s, which keeps "
					    "what files held before each change, other "
					    "workspaces' too, and without a mount "
					    "namespace a command cannot be kept from it; "
					    "use --isolate none to run unconfined", real);
		if ((size_t)snprintf(at, sizeof(at), "%s%s%s", p->paths[i].path,
				     strcmp(p->paths[i].path, "/") == 0 ? "" : "/",
				     rest != NULL ? rest : "") >= sizeof(at))
			return ws_error_set(WS_ESANDBOX_UNAVAILABLE, real,
					    "the name of wstools' history is too long "
					    "to mask it");
		if ((dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
			return ws_error_errno(errno, real, "dup");
		if ((rc = ws_sandbox_plan_add_mask(p, dfd, at)) < 0)
			break;
		/* Named as the policy's masks are: by its virtual path in the
		 * workspace or a mount, else by the host's. */
		if (ws_ctx_to_virtual(ws, at, &v) < 0) {
			ws_error_clear();
			v = NULL;
		}
		if (!ws__names_has(&vi->masked, v != NULL ? v : at))
			rc = ws__names_add(&vi->masked, v != NULL ? v : at,
					   "wstools' history");
		free(v);
		v = NULL;
	}
	return rc;
}

/*
 * wstools' state (the history of every workspace, ws->hist_base, and the
 * default one, which holds the records of running commands): the file
 * tools refuse to read it (policy.c, guard:history), and a command sees
 * an empty directory there, read-only, in both views: the journal keeps
 * the old contents of files of every workspace, and one written by the
 * command would make the user's next undo write what it chose.  Found
 * by its real path (a link on the way, or a grant, moves it).
 */
/*
 * Make the directories of path (a home's .local/state/wstools) from the
 * deepest one that exists, each by mkdirat() on its parent's descriptor
 * and opened without following a link (a link on the way, which a
 * workspace holding the home may have planted, stops it: then nothing is
 * made).  An O_PATH descriptor of path, or -1.
 */
static int
ws__state_make(const char *path)
{
	char buf[4352], *c, *sl;
	int fd, nfd;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -1;
	/* The deepest existing directory: the home at least. */
	if ((sl = strstr(buf, "/.local/state/wstools")) == NULL)
		return -1;
	*sl = '\0';
	fd = open(buf[0] ? buf : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (c = sl + 1; fd >= 0 && *c; c = sl + 1) {
		bool last;

		sl = strchr(c, '/');
		last = sl == NULL;
		if (!last)
			*sl = '\0';
		if (mkdirat(fd, c, 0700) < 0 && errno != EEXIST) {
			close(fd);
			return -1;
		}
		nfd = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = nfd;
		if (last)
			break;
	}
	return fd;
}

/*
 * A state directory fd found in an anchor, masked as HOME's is
 * (ws__view_history_one()) unless it lies in one of done[] (nd),
 * masked already.
 */
static int
ws__view_state_one(struct ws_ctx *ws, struct ws_sandbox_plan *p,
		   struct ws_view_info *vi, bool can_mask, int fd,
		   char (*done)[4352], size_t nd)
{
	char real[4352];
	bool dup = false;

	real[0] = '\0';
	if (ws__fd_real(fd, real, sizeof(real)))
		for (size_t j = 0; j < nd && !dup; j++)
			dup = done[j][0] != '\0' && ws_path_within(done[j], real, NULL);
	if (real[0] == '/' && !dup)
		return ws__view_history_one(ws, p, vi, can_mask, real, fd);
	return 0;
}

/*
 * The entries of the directory rel (below the anchor's descriptor afd;
 * "" the anchor itself) scanned for another home's state, at most this
 * many each: a workspace of /home, or of a directory holding homes.
 */
#define WS__STATE_SCAN_MAX 4096

/*
 * Each <home>/.local/state/wstools that the anchor afd holds, as the
 * anchor itself, one of its top-level directories, or one directory of
 * the home directories' parent (/home) that it holds, into the view as
 * HOME's is (ws__view_history_one()): a workspace of /home run as root
 * holds alice's history, which the file tools refuse (policy.c) and a
 * command read and wrote (review19 01).  Opened with openat2() beneath
 * the anchor, no link followed (a link leads nowhere the command reaches
 * that a real entry does not).  done[] (nd) are those masked already.
 * An opendir() and a getdents() or two a directory, an openat2() per
 * directory in it; nothing found costs no more.
 */
static int
ws__view_state_homes(struct ws_ctx *ws, struct ws_sandbox_plan *p,
		     struct ws_view_info *vi, bool can_mask, int afd,
		     const char *rel, char (*done)[4352], size_t nd)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	char q[PATH_MAX];
	struct dirent *de;
	size_t seen = 0;
	int rc = 0, dfd, fd;
	DIR *d;

	dfd = openat(afd, rel[0] ? rel : ".", O_RDONLY | O_DIRECTORY |
		     O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while (rc == 0 && seen < WS__STATE_SCAN_MAX && (de = readdir(d)) != NULL) {
		if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		seen++;
		if (snprintf(q, sizeof(q), "%s/.local/state/wstools", de->d_name) >=
		    (int)sizeof(q))
			continue;
		fd = (int)syscall(SYS_openat2, dirfd(d), q, &how, sizeof(how));
		if (fd < 0)
			continue;
		rc = ws__view_state_one(ws, p, vi, can_mask, fd, done, nd);
		close(fd);
	}
	closedir(d);
	return rc;
}

/*
 * Other homes' state in each anchor (ws__view_state_homes()): the
 * anchor itself where it is a home, its top-level directories, and
 * /home's where the anchor holds /home.
 */
static int
ws__view_other_homes(struct ws_ctx *ws, struct ws_sandbox_plan *p,
		     struct ws_view_info *vi, bool can_mask,
		     char (*done)[4352], size_t nd)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	int rc = 0;

	for (size_t a = 0; rc == 0 && a < ws->nanchors; a++) {
		const char *ar = ws->anchors[a].real, *rest = NULL;
		int afd = ws->anchors[a].fd, fd;

		fd = (int)syscall(SYS_openat2, afd, ".local/state/wstools", &how,
				  sizeof(how));
		if (fd >= 0) {
			rc = ws__view_state_one(ws, p, vi, can_mask, fd, done, nd);
			close(fd);
		}
		if (rc == 0)
			rc = ws__view_state_homes(ws, p, vi, can_mask, afd, "", done, nd);
		if (rc == 0 && strcmp(ar, "/home") != 0 &&
		    ws_path_within(ar, "/home", &rest) && rest != NULL) {
			rest += strspn(rest, "/");
			rc = ws__view_state_homes(ws, p, vi, can_mask, afd, rest,
						  done, nd);
		}
	}
	return rc;
}

static int
ws__view_history(struct ws_ctx *ws, struct ws_sandbox_plan *p,
		 struct ws_view_info *vi, bool can_mask)
{
	char *pend = ws_pending_dir(), *slash, real[4][4352], *home[2], *hb[2] = {NULL};
	const char *base[4] = {ws->hist_base, NULL, NULL, NULL};
	size_t nh = ws_homes(home);
	int rc = 0;

	if (pend != NULL && (slash = strrchr(pend, '/')) != NULL && slash != pend) {
		*slash = '\0';
		base[1] = pend;
	}
	/*
	 * Each home's own, whichever this call uses (XDG_STATE_HOME or
	 * --state-dir elsewhere): the person's history is there (review18
	 * 09).
	 */
	for (size_t h = 0; h < nh; h++) {
		hb[h] = ws_path_join(home[h], ".local/state/wstools");
		base[2 + h] = hb[h];
		free(home[h]);
	}
	for (int k = 0; rc == 0 && k < 4; k++) {
		bool seen = false;
		int fd;

		real[k][0] = '\0';
		if (base[k] == NULL || base[k][0] != '/')
			continue;
		/* Followed as the history follows it; absent: nothing in it. */
		fd = open(base[k], O_PATH | O_DIRECTORY | O_CLOEXEC);
		/*
		 * A home's that is not there yet is made (empty, 0700, as
		 * the first recorded change would make it) so that it can be
		 * masked: one a command made would keep the journal it forged
		 * for another of the person's workspaces, which their next
		 * undo there trusts (review19 10).
		 */
		if (fd < 0 && errno == ENOENT && k >= 2)
			fd = ws__state_make(base[k]);
		if (fd < 0)
			continue;
		if (!ws__fd_real(fd, real[k], sizeof(real[k]))) {
			close(fd);
			continue;
		}
		/* Once each, and not again inside one masked already. */
		for (int j = 0; j < k && !seen; j++)
			seen = real[j][0] != '\0' && ws_path_within(real[j], real[k], NULL);
		if (!seen)
			rc = ws__view_history_one(ws, p, vi, can_mask, real[k], fd);
		close(fd);
	}
	if (rc == 0)
		rc = ws__view_other_homes(ws, p, vi, can_mask, real, 4);
	free(hb[0]);
	free(hb[1]);
	free(pend);
	if (rc == 0)
		ws_sandbox_plan_sort(p);
	return rc;
}

/*
 * The anchor real (virtual prefix vp), below which the policy refuses
 * every "exec": its own bind in the plan is made without execute (and
 * Landlock gives it no execute right), so that nothing in it runs,
 * also what the command makes there.  In the virtual view its entries
 * are bound from it and keep that.
 */
static int
ws__anchor_noexec(struct ws_sandbox_plan *p, struct ws_view_info *vi,
		  const char *real, const char *vp)
{
	for (size_t i = 0; i < p->npaths; i++) {
		struct ws_sandbox_path *e = &p->paths[i];

		if (e->mount_only || e->target != NULL || strcmp(e->path, real) != 0)
			continue;
		e->noexec = true;
		return ws__names_add(&vi->no_exec, vp, NULL);
	}
	return 0;
}

/*
 * The guards bound before the policy's walk (the persistence places,
 * wstools' own files, the repositories' hooks and configuration) are
 * bound each from its own tree, with that tree's flags: one the policy
 * refuses to execute (a file, or a directory below which every path is
 * refused) is bound without execute, or it would run where its
 * directory's bind does not.
 */
static int
ws__guards_noexec(struct ws_ctx *ws, struct ws_sandbox_plan *p)
{
	bool any = false;

	/* Most policies have no exec rule that reaches an anchor: no
	 * question a guard then. */
	for (size_t a = 0; a < ws->nanchors && !any; a++)
		any = ws_policy_may_refuse_op_below(ws->policy, WS_OP_EXEC,
						    ws->anchors[a].real);
	for (size_t i = 0; any && i < p->nguards; i++) {
		struct ws_sandbox_path *g = &p->guards[i];
		struct stat st;

		if (g->noexec || g->mask || g->fd < 0 || fstat(g->fd, &st) < 0)
			continue;
		g->noexec = S_ISDIR(st.st_mode) ?
			    ws_policy_refuses_all_below(ws->policy, WS_OP_EXEC, g->path,
								ws->approve) :
			    ws__refused(ws, WS_OP_EXEC, g->path);
	}
	return 0;
}

int
ws_view_policy(struct ws_ctx *ws, struct ws_sandbox_plan *p,
	       struct ws_view_info *vi, bool can_mask)
{
	/*
	 * The tests' knob, which may only lower the bound (a lower bound
	 * refuses more calls, never runs one blind): a walk past it is
	 * checked without making a million files.
	 */
	const char *e = getenv("WS_TEST_VIEW_MAX_WALK");
	size_t max = WS_VIEW_MAX_WALK;
	struct ws__pwalk *w = NULL;
	struct ws__pbinds *b = NULL;
	int rc = 0, fd;

	if (ws->policy == NULL)
		return ws__view_history(ws, p, vi, can_mask);
	if (e != NULL && strtoul(e, NULL, 10) > 0 &&
	    strtoul(e, NULL, 10) < WS_VIEW_MAX_WALK)
		max = strtoul(e, NULL, 10);
	for (size_t a = 0; rc == 0 && a < ws->nanchors; a++) {
		const char *vp = ws->anchors[a].vprefix;
		bool nx = ws_policy_refuses_all_below(ws->policy, WS_OP_EXEC,
						      ws->anchors[a].real, ws->approve);

		/* Nothing in it runs: its own bind is without execute. */
		if (nx && (rc = ws__anchor_noexec(p, vi, ws->anchors[a].real, vp)) < 0)
			break;
		if (!ws_policy_may_refuse_below(ws->policy, ws->anchors[a].real))
			continue;
		if (w == NULL) {
			struct rlimit rl;

			if ((w = malloc(sizeof(*w))) == NULL ||
			    (b = calloc(1, sizeof(*b))) == NULL) {
				free(w);
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			}
			b->ng0 = p->nguards;
			b->room = WS_VIEW_MAX_BINDS;
			/*
			 * A descriptor per entry bound until the child binds
			 * it, and one more for its tree: the soft limit raised
			 * to the hard one (wsrun's command gets its own back),
			 * and the walk binds no more than half of what is left
			 * once a quarter of it, 192 at most, is kept for the
			 * rest of the call (the plan's other binds, pipes, the
			 * repositories' walk).
			 */
			ws__nofile_raise();
			if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
			    rl.rlim_cur != RLIM_INFINITY) {
				rlim_t keep = rl.rlim_cur / 4 < 192 ? rl.rlim_cur / 4 : 192;

				if ((rl.rlim_cur - keep) / 2 < b->room) {
					b->room = (size_t)((rl.rlim_cur - keep) / 2);
					b->limit = (unsigned long long)rl.rlim_cur;
				}
			}
		}
		*w = (struct ws__pwalk){.ws = ws, .p = p, .vi = vi, .b = b,
					.ro = ws->anchors[a].ro, .vprefix = vp,
					.max = max};
		w->rlen0 = strlen(ws->anchors[a].real);
		w->vbase = strcmp(vp, "/") == 0 ? "" : vp;
		w->vlen0 = strlen(w->vbase);
		if (w->rlen0 >= sizeof(w->r) || w->vlen0 >= WS__PWALK_PATH) {
			rc = ws__pwalk_bound(w, "a name longer than the walk takes");
			break;
		}
		memcpy(w->r, ws->anchors[a].real, w->rlen0 + 1);
		/*
		 * An anchor the walk may not read is refused: its owner's
		 * command may make it readable again, or open a denied
		 * file in it by name (review16 05).
		 */
		if ((fd = openat(ws->anchors[a].fd, ".", O_RDONLY | O_DIRECTORY |
				 O_CLOEXEC)) >= 0 &&
		    (rc = ws__pwalk_dir(w, fd, w->rlen0, 0, nx)) != WS__PWALK_UNSEARCHABLE)
			continue;
		rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, vp,
				  "the policy refuses some reads or writes "
				  "inside %s, and its walk cannot %s it (%s) to "
				  "find or mask what it refuses: refused rather "
				  "than run with it reachable (make it readable "
				  "and searchable, or narrow the policy's deny "
				  "rules)", vp, fd < 0 ? "read" : "search",
				  strerror(fd < 0 ? errno : EACCES));
	}
	/* Refused where the walk stopped binding, whatever else it met. */
	if (b != NULL && b->over)
		rc = ws__pwalk_over_error(ws, p, b);
	free(w);
	free(b);
	if (rc == 0)
		rc = ws__guards_noexec(ws, p);
	/* An exec rule on the system's programs (/usr/bin/gcc*) or the
	 * host's elsewhere: said, as the view cannot apply it (ftu18 03). */
	if (rc == 0 && ws->nanchors <= 64) {
		const char *dirs[64], *pat = NULL, *rule;

		for (size_t a = 0; a < ws->nanchors; a++)
			dirs[a] = ws->anchors[a].real;
		rule = ws_policy_refusal_outside(ws->policy, WS_OP_EXEC, dirs,
						 ws->nanchors, &pat);
		if (rule != NULL)
			rc = ws__names_add(&vi->exec_outside, pat, rule);
	}
	if (rc == 0 && !can_mask && vi->no_exec.n > 0)
		rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, vi->no_exec.name[0],
				  "the policy refuses to execute %s inside the "
				  "workspace, and without a mount namespace a "
				  "command cannot be kept from it; use --isolate "
				  "none to run unconfined", vi->no_exec.name[0]);
	if (rc == 0 && !can_mask && vi->masked.n + vi->read_only.n > 0)
		rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, vi->masked.n ?
				  vi->masked.name[0] : vi->read_only.name[0],
				  "the policy refuses %s %s inside the workspace, "
				  "and without a mount namespace a command cannot "
				  "be kept from it; use --isolate none to run "
				  "unconfined", vi->masked.n ? "reading" : "writing",
				  vi->masked.n ? vi->masked.name[0] : vi->read_only.name[0]);
	/* After the policy's guards: one in the history is under its mask. */
	if (rc == 0)
		rc = ws__view_history(ws, p, vi, can_mask);
	return rc;
}

/* ---- Applying the command's new top-level names ---------------------- */

/* Remove name in dirfd and everything below it (what this file made). */
static void
ws__view_rm(int pfd, const char *name, int depth)
{
	int fd;
	DIR *d;
	struct dirent *de;

	/* Deeper than any copy goes (ws__view_copy()'s bound), so that a
	 * copy stopped there is removed whole (review23 09). */
	if (unlinkat(pfd, name, 0) == 0 || errno != EISDIR || depth > 300)
		return;
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (d = fdopendir(fd)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				ws__view_rm(dirfd(d), de->d_name, depth + 1);
		closedir(d);
	} else if (fd >= 0) {
		close(fd);
	}
	unlinkat(pfd, name, AT_REMOVEDIR);
}

/* Copy sname in sdir to dname in ddir: a file, a directory (whole), a
 * symlink; other kinds are skipped.  0 or -errno.  *made (when not NULL)
 * is set once the copy has created name in ddir: only then is a failed
 * copy's name its own to remove. */
static int
ws__view_copy(int sdir, const char *name, int ddir, int depth, bool *made)
{
	struct stat st;
	mode_t mode;
	int in = -1, out = -1, rc = 0;
	bool anon = false;

	if (depth > 256)
		return -ELOOP;
	if (fstatat(sdir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	mode = st.st_mode & 0777; /* never a set-id bit */
	if (S_ISLNK(st.st_mode)) {
		char link[4096];
		ssize_t n = readlinkat(sdir, name, link, sizeof(link) - 1);

		if (n < 0)
			return -errno;
		link[n] = '\0';
		if (symlinkat(link, ddir, name) < 0)
			return -errno;
		if (made != NULL)
			*made = true;
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		/*
		 * On the heap: in the frame, a buffer a level of a directory
		 * copied whole made 126 levels overflow the stack (review23
		 * 09: wsrun died of SIGSEGV, the copy half made).
		 */
		enum { WS__COPY_BUF = 65536 };
		char *buf = malloc(WS__COPY_BUF);
		off_t pos = 0;

		if (buf == NULL)
			return -ENOMEM;
		if ((in = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			rc = -errno;
			free(buf);
			return rc;
		}
		/*
		 * Copied into a file without a name, linked under its own
		 * once whole: wsrun killed during the copy (SIGKILL, which
		 * nothing can clean up after) leaves nothing in the
		 * workspace, where a file made under its name first was left
		 * there cut short.  A file system without O_TMPFILE gets the
		 * name first, as before.
		 */
		out = openat(ddir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		if (out >= 0) {
			anon = true;
		} else {
			out = openat(ddir, name, O_WRONLY | O_CREAT | O_EXCL |
				     O_NOFOLLOW | O_CLOEXEC, 0600);
			if (out < 0) {
				rc = -errno;
				close(in);
				free(buf);
				return rc;
			}
			if (made != NULL)
				*made = true;
		}
		/*
		 * The data only, the holes left holes: the root's size bound
		 * counts pages, not sizes, so "truncate -s 1T /big" costs the
		 * command nothing there, and a plain copy wrote a terabyte of
		 * zeros into the workspace.  (The command is gone: the size
		 * does not change under the copy.)
		 */
		while (rc == 0 && pos < st.st_size) {
			off_t data = lseek(in, pos, SEEK_DATA), hole;

			if (data < 0 && errno == ENXIO)
				break; /* a hole to the end */
			if (data < 0 && errno != EINVAL) {
				rc = -errno;
				break;
			}
			if (data < 0) /* no SEEK_DATA here: all of it */
				data = pos, hole = st.st_size;
			else if ((hole = lseek(in, data, SEEK_HOLE)) < 0) {
				rc = -errno;
				break;
			}
			while (rc == 0 && data < hole) {
				size_t want = (size_t)(hole - data) < WS__COPY_BUF ?
					      (size_t)(hole - data) : WS__COPY_BUF;
				ssize_t n = pread(in, buf, want, data);

				if (n <= 0) {
					rc = n < 0 ? -errno : 0;
					hole = data;
					break;
				}
				for (ssize_t off = 0; rc == 0 && off < n;) {
					ssize_t w = pwrite(out, buf + off, (size_t)(n - off),
							   data + off);

					if (w < 0)
						rc = -errno;
					else
						off += w;
				}
				data += n;
			}
			if (hole <= pos)
				break;
			pos = hole;
		}
		if (rc == 0 && ftruncate(out, st.st_size) < 0)
			rc = -errno;
		if (rc == 0 && fchmod(out, mode) < 0)
			rc = -errno;
		if (rc == 0 && fsync(out) < 0 && errno != EINVAL)
			rc = -errno;
		if (rc == 0 && anon) {
			char fdp[64];

			/* No replacing: a name made meanwhile is EEXIST with
			 * *made false, another tool's (ws_view_apply()). */
			snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", out);
			if (linkat(AT_FDCWD, fdp, ddir, name, AT_SYMLINK_FOLLOW) < 0 &&
			    (errno != ENOENT ||
			     linkat(out, "", ddir, name, AT_EMPTY_PATH) < 0))
				rc = -errno;
			else if (made != NULL)
				*made = true;
		}
		close(in);
		free(buf);
		if (close(out) < 0 && rc == 0)
			rc = -errno;
		return rc;
	}
	if (S_ISDIR(st.st_mode)) {
		DIR *d;
		struct dirent *de;

		if (mkdirat(ddir, name, 0700) < 0)
			return -errno;
		if (made != NULL)
			*made = true;
		in = openat(sdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		out = openat(ddir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (in < 0 || out < 0 || (d = fdopendir(in)) == NULL) {
			rc = -errno;
			if (in >= 0)
				close(in);
			if (out >= 0)
				close(out);
			return rc;
		}
		while (rc == 0 && (de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				rc = ws__view_copy(dirfd(d), de->d_name, out, depth + 1, NULL);
		closedir(d);
		if (rc == 0 && fchmod(out, mode) < 0)
			rc = -errno;
		close(out);
		return rc;
	}
	return 0; /* a FIFO, a socket: nothing to keep */
}

static int
ws__strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Whether the root's directory is as the command found it: no name made,
 * removed or renamed at the top.  Its size counts its names on a tmpfs
 * (20 a name) and its times change with each of them (the kernel gives a
 * change after the init's stat a time of its own, multigrain timestamps;
 * before Linux 6.13 a change in the same clock tick keeps them, and the
 * size still tells a name made).  The names the command could remove at
 * the top are the symbolic links (the rest are mount points, EBUSY, or
 * directories holding one): with links, the root is always read.  A
 * root of a thousand names was read and each looked up for nothing
 * after most commands (~0.7 us a name).
 */
static bool
ws__root_unchanged(int root_fd, const struct ws_view_info *vi)
{
	struct stat st;

	return vi->root_known && vi->links.n == 0 && fstat(root_fd, &st) == 0 &&
	       (long long)st.st_size == vi->root_size &&
	       st.st_mtim.tv_sec == vi->root_mtime.tv_sec &&
	       st.st_mtim.tv_nsec == vi->root_mtime.tv_nsec &&
	       st.st_ctim.tv_sec == vi->root_ctime.tv_sec &&
	       st.st_ctim.tv_nsec == vi->root_ctime.tv_nsec;
}

int
ws_view_apply(struct ws_ctx *ws, int root_fd, struct ws_view_info *vi)
{
	int dfd;
	struct dirent *de;
	char **sk = NULL;
	DIR *d;
	int rc = 0;

	if (ws__root_unchanged(root_fd, vi))
		return 0;
	dfd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	/*
	 * The root's names against the skeleton's, sorted once: a search
	 * of the list per name was quadratic in the workspace's top-level
	 * entries (a million comparisons at 1,000).
	 */
	if (vi->skeleton.n > 0 &&
	    (sk = malloc(vi->skeleton.n * sizeof(*sk))) != NULL) {
		memcpy(sk, vi->skeleton.name, vi->skeleton.n * sizeof(*sk));
		qsort(sk, vi->skeleton.n, sizeof(*sk), ws__strp_cmp);
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		char v[4352];
		struct stat st;
		bool made;
		int e;

		/*
		 * The names wsrun uses while it builds the view are in the
		 * skeleton but not on the root when the command starts
		 * (the masks' sources are removed, the stage lies
		 * elsewhere): one there now the command made, and it was
		 * dropped without a word.
		 */
		if (strcmp(name, ".ws-empty") == 0 || strcmp(name, ".ws-empty-dir") == 0 ||
		    strcmp(name, ".ws-stage") == 0) {
			snprintf(v, sizeof(v), "/%s", name);
			rc = ws__names_add(&vi->lost, v, "not copied into the workspace: "
					   "a name wsrun uses while it builds the view");
			continue;
		}
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
		    (sk != NULL ? bsearch(&name, sk, vi->skeleton.n, sizeof(*sk),
					  ws__strp_cmp) != NULL
				: ws__names_has(&vi->skeleton, name)))
			continue;
		snprintf(v, sizeof(v), "/%s", de->d_name);
		/*
		 * What no tool may create (.envrc, wstools' own configuration)
		 * is copied as in the real view the command writes it, and
		 * removed by the same revert after (lib/run.c, "places").
		 */
		if (ws->anchors[0].ro || ws_home_persist_anchor(ws->anchors[0].real)) {
			rc = ws__names_add(&vi->lost, v, "the workspace is read-only");
			continue;
		}
		if (fstatat(ws->anchors[0].fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			rc = ws__names_add(&vi->lost, v, "made in the workspace "
					   "meanwhile by another tool: not replaced");
			continue;
		}
		/* Only what ws__view_copy() copies: a FIFO or a socket made
		 * at the top was said to be applied, and was not there. */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) &&
		    !S_ISLNK(st.st_mode)) {
			rc = ws__names_add(&vi->lost, v, "not copied into the "
					   "workspace: only files, directories and "
					   "symbolic links are (a FIFO, a socket or "
					   "a device node is not)");
			continue;
		}
		made = false;
		e = ws__view_copy(dirfd(d), de->d_name, ws->anchors[0].fd, 0, &made);
		if (e == -EEXIST && !made) {
			/*
			 * Another tool made the name between the check above
			 * and the copy's create (O_EXCL, mkdirat, symlinkat):
			 * theirs, never removed here.
			 */
			rc = ws__names_add(&vi->lost, v, "made in the workspace "
					   "meanwhile by another tool: not replaced");
			continue;
		}
		if (e < 0) {
			char why[200];

			/*
			 * Whole or not at all, of what this copy made: a name
			 * it did not create is not its own to remove.
			 */
			if (made)
				ws__view_rm(ws->anchors[0].fd, de->d_name, 0);
			snprintf(why, sizeof(why), "not copied into the workspace: %s",
				 e == -ELOOP ? "more than 256 levels of directories "
				 "(make it below an existing top-level directory)" :
				 strerror(-e));
			rc = ws__names_add(&vi->lost, v, why);
			continue;
		}
		rc = ws__names_add(&vi->applied, v, NULL);
	}
	/*
	 * A top-level symlink is a copy on the root, not a mount (a link
	 * cannot be a mount point): the command can remove or replace it
	 * there, and that change is not the workspace's.  Say so rather than
	 * drop it without a word.
	 */
	for (size_t i = 0; rc == 0 && i < vi->links.n; i++) {
		const char *name = vi->links.name[i], *orig = vi->links.why[i];
		char a[PATH_MAX], b[PATH_MAX], v[4352], why[2 * PATH_MAX + 300];
		ssize_t na = readlinkat(dirfd(d), name, a, sizeof(a) - 1);
		ssize_t nb = readlinkat(ws->anchors[0].fd, name, b, sizeof(b) - 1);

		if (na >= 0)
			a[na] = '\0';
		if (nb >= 0)
			b[nb] = '\0';
		/* The command left its copy as the view made it: nothing of
		 * the command's to say, whatever another tool did to the
		 * workspace's link meanwhile (FTU10 3). */
		if (na >= 0 && orig != NULL && strcmp(a, orig) == 0)
			continue;
		if (na >= 0 && nb >= 0 && strcmp(a, b) == 0)
			continue;
		snprintf(v, sizeof(v), "/%s", name);
		if (orig != NULL && (nb < 0 || strcmp(b, orig) != 0))
			snprintf(why, sizeof(why), "a top-level symbolic link is a "
				 "copy in the virtual view: the command %s%s there, "
				 "and the workspace's link was %s%s meanwhile outside "
				 "the command: the workspace keeps that",
				 na >= 0 ? "made it point to " : "removed or replaced it",
				 na >= 0 ? a : "",
				 nb >= 0 ? "made to point to " : "removed",
				 nb >= 0 ? b : "");
		else
			snprintf(why, sizeof(why), "a top-level symbolic link is a "
				 "copy in the virtual view: the command %s%s there, "
				 "and the workspace's link is unchanged (change it "
				 "with wswrite, or in a command with --view real)",
				 na >= 0 ? "made it point to " : "removed or replaced it",
				 na >= 0 ? a : "");
		rc = ws__names_add(&vi->lost, v, why);
	}
	closedir(d);
	free(sk);
	/*
	 * No ws_error_clear() here: the run's own error (a command not
	 * found, a refused set-up) is still to be reported by the caller.
	 */
	return rc;
}
