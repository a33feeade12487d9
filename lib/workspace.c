/* workspace.c - the workspace root, mounts and virtual/real mapping. */
#include "ws/workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ws/cancel.h"
#include "ws/detect.h"
#include "ws/error.h"
#include "ws/history.h"
#include "ws/guard.h"
#include "ws/path.h"
#include "ws/persist.h"
#include "ws/policy.h"

/* Record the entry e[0..len) in ws->entries, once. */
static int
ws__add_entry(struct ws_ctx *ws, const char *e, size_t len)
{
	char **v;

	for (size_t i = 0; i < ws->nentries; i++)
		if (strlen(ws->entries[i]) == len &&
		    memcmp(ws->entries[i], e, len) == 0)
			return 0;
	v = realloc(ws->entries, (ws->nentries + 1) * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	ws->entries = v;
	if ((v[ws->nentries] = strndup(e, len)) == NULL)
		return -ENOMEM;
	ws->nentries++;
	return 0;
}

/*
 * The next component of the path at *p that names an entry: "." is
 * skipped and ".." taken lexically (cur[0..*cl) loses its last
 * component).  False at the path's end.  The recording resolver and the
 * spelled recording differ only in what they do with each name.
 */
static bool
ws__next_name(const char **p, char *cur, size_t *cl, const char **name,
	      size_t *nl)
{
	for (;;) {
		while (**p == '/')
			(*p)++;
		if (**p == '\0')
			return false;
		*name = *p;
		while (**p != '\0' && **p != '/')
			(*p)++;
		*nl = (size_t)(*p - *name);
		if (*nl == 1 && (*name)[0] == '.')
			continue;
		if (*nl == 2 && (*name)[0] == '.' && (*name)[1] == '.') {
			while (*cl > 0 && cur[*cl - 1] != '/')
				(*cl)--;
			if (*cl > 0)
				(*cl)--;
			cur[*cl] = '\0';
			continue;
		}
		return true;
	}
}

/* Whether the path p has a ".." component. */
static bool
ws__has_dotdot(const char *p)
{
	for (const char *c = p; (c = strstr(c, "..")) != NULL; c += 2)
		if ((c == p || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
			return true;
	return false;
}

/*
 * realpath(3) that records, in ws->entries, every directory entry the
 * resolution passes through: each component as spelled and each one a
 * symlink on the way leads to, named by its resolved parent.  It makes
 * the system calls realpath(3) makes (one readlink() per component; the
 * current directory's own components come from getcwd() and are already
 * resolved), so that recording costs nothing but memory.  With tail, a
 * component that does not exist ends the walk: it and the rest are
 * appended as spelled, ".." taken lexically (where a dangling link's
 * target would be made through it).  Returns 0, or -errno.
 */
/*
 * readlink(2) of path, answered from m where an earlier resolution of
 * the same run asked it already (m may be NULL).  Only the answers that
 * say what the entry is (a link and its target, or not a link) are
 * kept; anything else is asked again.
 */
static ssize_t
ws__readlink_memo(struct ws_link_memo *m, const char *path, char *buf,
		  size_t len)
{
	ssize_t ll;

	for (size_t i = 0; m != NULL && i < m->n; i++) {
		if (strcmp(m->path[i], path) != 0)
			continue;
		if (m->target[i] == NULL) {
			errno = EINVAL;
			return -1;
		}
		ll = (ssize_t)strlen(m->target[i]);
		if ((size_t)ll > len)
			ll = (ssize_t)len;
		memcpy(buf, m->target[i], (size_t)ll);
		return ll;
	}
	ll = readlink(path, buf, len);
	/* A bounded list, looked through in order: PATH's directories
	 * share a few dozen prefixes, and a huge PATH only asks again. */
	if (m != NULL && m->n < WS_LINK_MEMO_MAX && (ll >= 0 || errno == EINVAL)) {
		int e = errno;
		char *pc = strdup(path), *tc = ll >= 0 ? strndup(buf, (size_t)ll) : NULL;

		if (pc != NULL && (ll < 0 || tc != NULL)) {
			m->path[m->n] = pc;
			m->target[m->n] = tc;
			m->n++;
		} else {
			free(pc);
			free(tc);
		}
		errno = e;
	}
	return ll;
}

void
ws_link_memo_free(struct ws_link_memo *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->path[i]);
		free(m->target[i]);
	}
	m->n = 0;
}

static int
ws__resolve_rec(struct ws_ctx *ws, const char *path, char *out, bool tail,
		struct ws_link_memo *m)
{
	char cur[PATH_MAX], link[PATH_MAX], *pending = NULL;
	const char *p;
	size_t cl = 0, had;
	int hops = 0, rc = 0;

	if (path[0] != '/') {
		if (getcwd(cur, sizeof(cur)) == NULL)
			return -errno;
		cl = strcmp(cur, "/") == 0 ? 0 : strlen(cur);
		for (size_t i = 1; i <= cl && rc == 0; i++)
			if (i == cl || cur[i] == '/')
				rc = ws__add_entry(ws, cur, i);
		if (rc < 0)
			return rc;
	}
	cur[cl] = '\0';
	if ((pending = strdup(path)) == NULL)
		return -ENOMEM;
	p = pending;
	for (;;) {
		const char *name;
		size_t nl;
		ssize_t ll;
		char *next;

		/* cur is resolved: the parent ".." takes is the physical one. */
		if (!ws__next_name(&p, cur, &cl, &name, &nl))
			break;
		if (cl + 1 + nl >= sizeof(cur)) {
			rc = -ENAMETOOLONG;
			break;
		}
		cur[cl] = '/';
		memcpy(cur + cl + 1, name, nl);
		cur[cl + 1 + nl] = '\0';
		had = ws->nentries;
		if ((rc = ws__add_entry(ws, cur, cl + 1 + nl)) < 0)
			break;
		ll = ws__readlink_memo(m, cur, link, sizeof(link) - 1);
		if (ll < 0 && errno == ENOENT && tail) {
			/*
			 * Missing: it and the rest are what would be made.
			 * It stays an entry passed only where a ".." follows
			 * (made a link, it would move what the ".." reaches:
			 * review17 03); elsewhere what is made below it is
			 * the place's own business.
			 */
			if (!ws__has_dotdot(p) && ws->nentries > had) {
				free(ws->entries[--ws->nentries]);
				ws->entries[ws->nentries] = NULL;
			}
			cl += 1 + nl;
			while (ws__next_name(&p, cur, &cl, &name, &nl)) {
				if (cl + 1 + nl >= sizeof(cur)) {
					rc = -ENAMETOOLONG;
					break;
				}
				cur[cl] = '/';
				memcpy(cur + cl + 1, name, nl);
				cl += 1 + nl;
				cur[cl] = '\0';
			}
			break;
		}
		if (ll < 0) {
			if (errno != EINVAL) {
				rc = -errno;
				break;
			}
			cl += 1 + nl; /* not a link: resolved */
			continue;
		}
		if (++hops > 40) {
			rc = -ELOOP;
			break;
		}
		link[ll] = '\0';
		/* The link's target, then what was left after it. */
		if (asprintf(&next, "%s/%s", link, p) < 0) {
			rc = -ENOMEM;
			break;
		}
		free(pending);
		pending = next;
		p = next;
		if (link[0] == '/')
			cl = 0;
		cur[cl] = '\0';
	}
	free(pending);
	if (rc < 0)
		return rc;
	if (cl == 0)
		strcpy(out, "/");
	else
		memcpy(out, cur, cl + 1);
	return 0;
}

static int
ws__resolve_recording(struct ws_ctx *ws, const char *path, char *out)
{
	return ws__resolve_rec(ws, path, out, false, NULL);
}

int
ws_path_resolve_tail(const char *path, char *out, char ***entries, size_t *n)
{
	return ws_path_resolve_tail_memo(path, out, entries, n, NULL);
}

int
ws_path_resolve_tail_memo(const char *path, char *out, char ***entries,
			  size_t *n, struct ws_link_memo *m)
{
	struct ws_ctx tmp = {0};
	int rc = ws__resolve_rec(&tmp, path, out, true, m);

	/* Kept on a failure too: the way up to a loop (review19 06). */
	*entries = tmp.entries;
	*n = tmp.nentries;
	return rc;
}

/*
 * Resolve dir through symlinks (recording the entries passed) and open it
 * as an O_PATH directory.
 */
static int
ws__open_dir(struct ws_ctx *ws, const char *dir, const char *what, char **real,
	     int *fd)
{
	char buf[PATH_MAX];
	struct stat st;
	int re, e = 0;

	if ((re = ws__resolve_recording(ws, dir, buf)) < 0) {
		if (re == -ENOMEM)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		/* "does not exist: No such file or directory" said it twice. */
		if (re == -ENOENT)
			return ws_error_set(WS_EWORKSPACE_NOT_FOUND, dir,
					    "%s does not exist", what);
		return ws_error_set(WS_EWORKSPACE_NOT_FOUND, dir,
				    "%s cannot be reached: %s", what,
				    strerror(-re));
	}
	*fd = open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0 || fstat(*fd, &st) < 0)
		e = errno;
	else if (!S_ISDIR(st.st_mode))
		e = ENOTDIR;
	if (e != 0) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		if (e == ENOTDIR)
			return ws_error_set(WS_EWORKSPACE_NOT_FOUND, dir,
					    "%s is not a directory", what);
		return ws_error_set(WS_EWORKSPACE_NOT_FOUND, dir,
				    "%s cannot be opened: %s", what,
				    strerror(e));
	}
	*real = strdup(buf);
	if (*real == NULL) {
		close(*fd);
		*fd = -1;
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	return 0;
}

/*
 * The root as the user spells it, when that differs from the resolved
 * one: "cd link; wswrite $PWD/a" names <root>/a, not a shorthand.  Only a
 * spelling that is the very directory opened (same device and inode)
 * becomes an alias, and it is only ever compared as a string: lookups
 * still start from the root's descriptor.
 */
static void
ws__set_alias(struct ws_ctx *ws, const char *root)
{
	const char *pwd = getenv("PWD");
	char *cand = NULL, *norm = NULL;
	struct stat a, b;

	if (root != NULL && root[0] == '/')
		cand = strdup(root);
	else if (pwd != NULL && pwd[0] == '/')
		cand = ws_path_join(pwd, root ? root : "");
	if (cand == NULL || ws_path_normalize(cand, WS_NORM_CLAMP, &norm) < 0)
		goto out;
	if (strcmp(norm, ws->anchors[0].real) == 0 || stat(norm, &a) < 0 ||
	    fstat(ws->anchors[0].fd, &b) < 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino)
		goto out;
	ws->alias = norm;
	norm = NULL;
out:
	free(cand);
	free(norm);
}

int
ws_ctx_open(struct ws_ctx *ws, const char *root, unsigned flags)
{
	int rc;

	memset(ws, 0, sizeof(*ws));
	ws->host_fd = -1;
	ws->flags = flags;
	ws->anchors = calloc(1, sizeof(*ws->anchors));
	if (ws->anchors == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	ws->anchors[0].fd = -1;
	rc = ws__open_dir(ws, root ? root : ".", "workspace",
			  &ws->anchors[0].real, &ws->anchors[0].fd);
	if (rc < 0)
		return rc;
	ws->anchors[0].vprefix = strdup("/");
	if (ws->anchors[0].vprefix == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	ws->nanchors = 1;
	ws__set_alias(ws, root);
	/*
	 * A relative root is spelled by whoever chose the current directory:
	 * when $PWD spells it through a symlink, that spelling's entries are
	 * guarded too (an absolute root's were recorded as it resolved).
	 */
	if (ws->alias != NULL && (root == NULL || root[0] != '/')) {
		char buf[PATH_MAX];

		if (ws__resolve_recording(ws, ws->alias, buf) == -ENOMEM)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	return 0;
}

int
ws_ctx_add_mount(struct ws_ctx *ws, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char *vp = NULL, *dir = NULL;
	size_t dl;
	bool ro = false;
	int rc;

	if (eq == NULL || eq == spec || eq[1] == '\0')
		return ws_error_set(WS_EINVALID_ARGUMENT, spec,
				    "a mount is VPREFIX=DIR[:ro]");
	vp = strndup(spec, (size_t)(eq - spec));
	dir = strdup(eq + 1);
	if (vp == NULL || dir == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	dl = strlen(dir);
	if (dl > 3 && strcmp(dir + dl - 3, ":ro") == 0) {
		ro = true;
		dir[dl - 3] = '\0';
	} else if (dl > 3 && strcmp(dir + dl - 3, ":rw") == 0) {
		dir[dl - 3] = '\0';
	}
	rc = ws_ctx_add_mount_dir(ws, vp, dir, ro);
out:
	free(vp);
	free(dir);
	return rc;
}

int
ws_ctx_add_mount_dir(struct ws_ctx *ws, const char *vp, const char *dir, bool ro)
{
	char *vnorm = NULL;
	struct ws_anchor *a;
	int rc;

	if (vp[0] != '/' || ws_path_has_dotdot(vp)) {
		rc = ws_error_set(WS_EINVALID_ARGUMENT, vp,
				  "a mount prefix must be absolute, without \"..\"");
		goto out;
	}
	if (dir[0] == '\0') {
		rc = ws_error_set(WS_EINVALID_ARGUMENT, vp,
				  "a mount needs a directory");
		goto out;
	}
	rc = ws_path_normalize(vp, 0, &vnorm);
	if (rc < 0)
		goto out;
	if (strcmp(vnorm, "/") == 0) {
		rc = ws_error_set(WS_EINVALID_ARGUMENT, vp,
				  "a mount cannot replace the workspace root");
		goto out;
	}
	for (size_t i = 1; i < ws->nanchors; i++) {
		if (strcmp(ws->anchors[i].vprefix, vnorm) == 0) {
			rc = ws_error_set(WS_EINVALID_ARGUMENT, vp,
					  "%s is mounted twice", vnorm);
			goto out;
		}
	}
	a = realloc(ws->anchors, (ws->nanchors + 1) * sizeof(*a));
	if (a == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	ws->anchors = a;
	a = &ws->anchors[ws->nanchors];
	memset(a, 0, sizeof(*a));
	a->fd = -1;
	rc = ws__open_dir(ws, dir, "mount directory", &a->real, &a->fd);
	if (rc < 0)
		goto out;
	a->vprefix = vnorm;
	vnorm = NULL;
	a->ro = ro;
	ws->nanchors++;
out:
	free(vnorm);
	return rc;
}

int
ws_ctx_add_mounts(struct ws_ctx *ws, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int rc = 0;

	if (copy == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (char *t = strtok_r(copy, ",", &save); t != NULL;
	     t = strtok_r(NULL, ",", &save)) {
		if (*t == '\0')
			continue;
		rc = ws_ctx_add_mount(ws, t);
		if (rc < 0)
			break;
	}
	free(copy);
	return rc;
}

int
ws_ctx_share(struct ws_ctx *dst, const struct ws_ctx *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->host_fd = -1;
	dst->flags = src->flags;
	dst->borrowed_fds = true;
	dst->anchors = calloc(src->nanchors ? src->nanchors : 1, sizeof(*dst->anchors));
	if (dst->anchors == NULL)
		goto oom;
	for (size_t i = 0; i < src->nanchors; i++) {
		struct ws_anchor *a = &dst->anchors[i];

		a->fd = src->anchors[i].fd;
		a->ro = src->anchors[i].ro;
		a->real = strdup(src->anchors[i].real);
		a->vprefix = strdup(src->anchors[i].vprefix);
		dst->nanchors = i + 1;
		if (a->real == NULL || a->vprefix == NULL)
			goto oom;
	}
	if (src->alias != NULL && (dst->alias = strdup(src->alias)) == NULL)
		goto oom;
	if (src->nentries > 0) {
		dst->entries = calloc(src->nentries, sizeof(*dst->entries));
		if (dst->entries == NULL)
			goto oom;
		for (size_t i = 0; i < src->nentries; i++) {
			if ((dst->entries[i] = strdup(src->entries[i])) == NULL)
				goto oom;
			dst->nentries = i + 1;
		}
	}
	return 0;
oom:
	return ws_error_set(WS_ENOMEM, NULL, "out of memory");
}

void
ws_ctx_close(struct ws_ctx *ws)
{
	ws_hist_close(ws);
	/* A context that was never opened (all zero) owns nothing, not fd 0. */
	if (ws->anchors == NULL) {
		memset(ws, 0, sizeof(*ws));
		ws->host_fd = -1;
		return;
	}
	for (size_t i = 0; i < ws->nanchors; i++) {
		if (ws->anchors[i].fd >= 0 && !ws->borrowed_fds)
			close(ws->anchors[i].fd);
		free(ws->anchors[i].real);
		free(ws->anchors[i].vprefix);
	}
	/* The root may have failed to open half way. */
	if (ws->nanchors == 0 && ws->anchors != NULL) {
		if (ws->anchors[0].fd >= 0)
			close(ws->anchors[0].fd);
		free(ws->anchors[0].real);
		free(ws->anchors[0].vprefix);
	}
	free(ws->anchors);
	free(ws->alias);
	ws_policy_free(ws->policy);
	for (size_t i = 0; i < ws->nguard; i++)
		free(ws->guard[i]);
	free(ws->guard);
	free(ws->guard_lazy);
	for (size_t i = 0; i < ws->nguard_spell; i++)
		free(ws->guard_spell[i]);
	free(ws->guard_spell);
	free(ws->guard_spell_plain);
	free(ws->hist_base);
	free(ws->hist_real);
	free(ws->state_alias);
	for (size_t i = 0; i < ws->nentries; i++)
		free(ws->entries[i]);
	free(ws->entries);
	for (size_t i = 0; i < ws->nmarkers; i++)
		free(ws->markers[i]);
	free(ws->markers);
	ws__guards_free(ws->persist);
	ws_home_places_free(ws->home_places, ws->nhome_places);
	ws_persist_bases_free(ws->penv_bases, ws->penv_nbases);
	ws_homes_free(ws->penv_home, ws->penv_nhome);
	free(ws->penv_key);
	for (size_t i = 0; i < ws->nruns; i++)
		if (ws->runs[i].fd >= 0)
			close(ws->runs[i].fd);
	free(ws->runs);
	if (ws->host_fd >= 0)
		close(ws->host_fd);
	memset(ws, 0, sizeof(*ws));
	ws->host_fd = -1;
}

int
ws_ctx_anchor_fd(struct ws_ctx *ws, int anchor)
{
	if (anchor == WS_ANCHOR_HOST) {
		if (ws->host_fd < 0)
			ws->host_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		return ws->host_fd;
	}
	return ws->anchors[anchor].fd;
}

const char *
ws_ctx_anchor_real(const struct ws_ctx *ws, int anchor)
{
	return anchor == WS_ANCHOR_HOST ? "/" : ws->anchors[anchor].real;
}

int
ws_ctx_anchor_of_real(const struct ws_ctx *ws, const char *p, const char **rest)
{
	int best = -1;
	size_t bestlen = 0;

	for (size_t i = 0; i < ws->nanchors; i++) {
		const char *r;
		size_t l = strlen(ws->anchors[i].real);

		if (ws_path_within(ws->anchors[i].real, p, &r) &&
		    (best < 0 || l > bestlen)) {
			best = (int)i;
			bestlen = l;
			if (rest)
				*rest = r;
		}
	}
	return best;
}

int
ws_ctx_anchor_of_virtual(const struct ws_ctx *ws, const char *v,
			 const char **rest)
{
	int best = 0;
	size_t bestlen = 0;

	if (rest)
		*rest = v[0] == '/' ? v + 1 : v;
	for (size_t i = 1; i < ws->nanchors; i++) {
		const char *r;
		size_t l = strlen(ws->anchors[i].vprefix);

		if (ws_path_within(ws->anchors[i].vprefix, v, &r) &&
		    l > bestlen) {
			best = (int)i;
			bestlen = l;
			if (rest)
				*rest = r;
		}
	}
	return best;
}

int
ws_ctx_virtual_of(const struct ws_ctx *ws, int anchor, const char *rel,
		  char **out)
{
	if (anchor == WS_ANCHOR_HOST)
		*out = ws_path_join("/", rel);
	else
		*out = ws_path_join(ws->anchors[anchor].vprefix, rel);
	if (*out == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

/* Lexical mapping of an already normalized absolute real path. */
static int
ws__to_virtual_lex(const struct ws_ctx *ws, const char *norm, char **out)
{
	const char *rest;
	int a = ws_ctx_anchor_of_real(ws, norm, &rest);
	int rc;

	if (a < 0)
		return ws_error_set(WS_EPATH_OUTSIDE_WORKSPACE, norm,
				    "is outside the workspace and every mount");
	rc = ws_ctx_virtual_of(ws, a, rest, out);
	if (rc < 0)
		return rc;
	/* What a mount hides (a workspace entry, or a directory of an outer
	 * mount under a nested one) has no virtual name. */
	if (ws_ctx_anchor_of_virtual(ws, *out, NULL) != a) {
		free(*out);
		*out = NULL;
		return ws_error_set(WS_EPATH_OUTSIDE_WORKSPACE, norm,
				    "is hidden by a mount and has no virtual path");
	}
	return 0;
}

int
ws_ctx_to_virtual(const struct ws_ctx *ws, const char *real, char **out)
{
	char *norm = NULL;
	int rc;

	*out = NULL;
	if (real[0] != '/')
		return ws_error_set(WS_EINVALID_PATH, real,
				    "a real path must be absolute");
	rc = ws_path_normalize(real, WS_NORM_CLAMP, &norm);
	if (rc < 0)
		return rc;
	rc = ws__to_virtual_lex(ws, norm, out);
	if (rc == WS_EPATH_OUTSIDE_WORKSPACE) {
		/*
		 * The caller may have spelled the path through a symlink
		 * (say /tmp -> /private/tmp) while anchors are stored fully
		 * resolved.  Resolve the deepest existing ancestor and retry;
		 * this maps a string for display and opens nothing.
		 */
		char *canon = NULL;
		int rc2 = rc;

		if (ws_canonical_path(norm, &canon) == 0 && strcmp(canon, norm) != 0)
			rc2 = ws__to_virtual_lex(ws, canon, out);
		free(canon);
		if (rc2 == 0)
			rc = 0;
		else
			ws_error_set(WS_EPATH_OUTSIDE_WORKSPACE, real,
				     "is outside the workspace and every mount");
	}
	free(norm);
	return rc;
}

/*
 * realpath(3) of path into buf (PATH_MAX bytes), or NULL: the kernel
 * walks the path once (an O_PATH open) and /proc names what it reached,
 * three system calls where realpath(3) makes a readlink() a component
 * (ws_canonical_path() asks for each guard of every call: issue 20).
 * Without /proc, or for a name /proc cannot give, realpath(3) itself.
 */
static char *
ws__realpath(const char *path, char *buf)
{
	char proc[64];
	ssize_t n;
	int fd = open(path, O_PATH | O_CLOEXEC);

	/* Not there: realpath(3) would fail as well, and say why. */
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP))
		return NULL;
	if (fd < 0)
		return realpath(path, buf);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, PATH_MAX - 1);
	close(fd);
	if (n <= 0 || n >= PATH_MAX - 1 || buf[0] != '/')
		return realpath(path, buf);
	buf[n] = '\0';
	/* A name the file no longer has, or one from outside the root. */
	if ((size_t)n > 10 && strcmp(buf + n - 10, " (deleted)") == 0)
		return realpath(path, buf);
	return buf;
}

int
ws_canonical_path(const char *abs, char **out)
{
	char buf[PATH_MAX], *dotted = NULL, *cut = NULL, *full = NULL;
	int rc;

	*out = NULL;
	if (abs[0] != '/')
		return ws_error_set(WS_EINVALID_PATH, abs, "must be absolute");
	/* ".." stays for realpath(3), which applies it physically. */
	rc = ws_path_normalize(abs, WS_NORM_KEEPDOT, &dotted);
	if (rc < 0)
		return rc;
	cut = strdup(dotted);
	if (cut == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	for (;;) {
		char *slash;

		if (ws__realpath(*cut ? cut : "/", buf) != NULL) {
			full = ws_path_join(buf, dotted + strlen(cut));
			break;
		}
		slash = strrchr(cut, '/');
		if (slash == NULL)
			break;
		*slash = '\0';
	}
	/* What does not exist yet is applied lexically. */
	rc = ws_path_normalize(full ? full : dotted, WS_NORM_CLAMP, out);
out:
	free(dotted);
	free(cut);
	free(full);
	return rc;
}

/*
 * What ws__resolve_recording() records for a path known to pass through
 * no symlink (an absolute one): each component as spelled, "." and ".."
 * taken lexically, which is then what they are.  No system call.
 */
static int
ws__record_spelled(struct ws_ctx *ws, const char *path)
{
	char cur[PATH_MAX];
	const char *p = path, *name;
	size_t cl = 0, nl;
	int rc;

	cur[0] = '\0';
	for (;;) {
		if (!ws__next_name(&p, cur, &cl, &name, &nl))
			return 0;
		if (cl + 1 + nl >= sizeof(cur))
			return -ENAMETOOLONG;
		cur[cl] = '/';
		memcpy(cur + cl + 1, name, nl);
		cl += 1 + nl;
		cur[cl] = '\0';
		if ((rc = ws__add_entry(ws, cur, cl)) < 0)
			return rc;
	}
}

/* ws_ctx_guard(); with no_symlinks, path passes through none. */
static int
ws__guard(struct ws_ctx *ws, const char *path, bool no_symlinks)
{
	char **g, *p, cwd[PATH_MAX];

	if (path == NULL || path[0] == '\0')
		return 0;
	if (path[0] == '/')
		p = strdup(path);
	else
		p = getcwd(cwd, sizeof(cwd)) ? ws_path_join(cwd, path) : NULL;
	if (p == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	g = realloc(ws->guard, (ws->nguard + 1) * sizeof(*g));
	if (g == NULL) {
		free(p);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	ws->guard = g;
	if (ws->guard_lazy != NULL) {
		bool *l = realloc(ws->guard_lazy, (ws->nguard + 1) * sizeof(*l));

		if (l == NULL) {
			free(p);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		ws->guard_lazy = l;
		l[ws->nguard] = false;
	}
	ws->guard[ws->nguard++] = p;
	ws->guard_canonical = false;
	g = realloc(ws->guard_spell, (ws->nguard_spell + 1) * sizeof(*g));
	if (g == NULL || (p = strdup(p)) == NULL) {
		ws->guard_spell = g != NULL ? g : ws->guard_spell;
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	ws->guard_spell = g;
	ws->guard_spell[ws->nguard_spell++] = p;
	/*
	 * Its spelling's entries are recorded by the first check that needs
	 * them (ws__guard_spellings()); a spelling known to pass through no
	 * symlink (the audit log opened with RESOLVE_NO_SYMLINKS) is
	 * recorded as spelled, now, with no system call.
	 */
	{
		bool *pl = realloc(ws->guard_spell_plain,
				   ws->nguard_spell * sizeof(*pl));

		if (pl == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		ws->guard_spell_plain = pl;
		pl[ws->nguard_spell - 1] = no_symlinks && p[0] == '/';
		if (pl[ws->nguard_spell - 1] &&
		    ws__record_spelled(ws, p) == -ENOMEM)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	return 0;
}

int
ws_ctx_guard(struct ws_ctx *ws, const char *path)
{
	return ws__guard(ws, path, false);
}

int
ws_ctx_guard_file(struct ws_ctx *ws, const char *path, bool no_symlinks)
{
	const char *name;
	int rc;

	if (ws->guard_lazy == NULL) {
		ws->guard_lazy = calloc(ws->nguard + 1, sizeof(*ws->guard_lazy));
		if (ws->guard_lazy == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	if ((rc = ws__guard(ws, path, no_symlinks)) < 0 || path == NULL ||
	    path[0] == '\0')
		return rc;
	/* A name that is not a file's own is resolved with the others. */
	name = strrchr(ws->guard[ws->nguard - 1], '/') + 1;
	ws->guard_lazy[ws->nguard - 1] = name[0] != '\0' && strcmp(name, ".") != 0 &&
					 strcmp(name, "..") != 0;
	return 0;
}

/* Resolve guard i in place (left as spelled if it cannot be). */
static void
ws__guard_resolve(struct ws_ctx *ws, size_t i)
{
	char *c = NULL;

	if (ws_canonical_path(ws->guard[i], &c) == 0) {
		free(ws->guard[i]);
		ws->guard[i] = c;
	}
	if (ws->guard_lazy != NULL)
		ws->guard_lazy[i] = false;
}

/*
 * Whether the path real has a component named as the last one of path
 * (a file guard's name): the file resolved is real, or holds it, only
 * then.
 */
static bool
ws__has_name(const char *real, const char *path)
{
	const char *name = strrchr(path, '/') + 1, *p = real;
	size_t n = strlen(name);

	while ((p = strstr(p, name)) != NULL) {
		if (p > real && p[-1] == '/' && (p[n] == '\0' || p[n] == '/'))
			return true;
		p++;
	}
	return false;
}

/*
 * The entries the spelling of each guard passes through are guarded as
 * the root's and the mounts' are: a symlink in the workspace on the way
 * to the policy in use (WS_POLICY=<root>/d/conf/pol.json, d/conf -> a)
 * was re-pointed by a command, and the next call loaded the agent's own
 * policy.  A place that does not exist is left to the checks that keep
 * it from being made (and to wsrun's revert after the run).  Recorded
 * once, by the first check that may change something (ws_ctx_guarded(),
 * which the file tools' changes and wsrun's plan ask before they act),
 * not by every call: a call that only reads never needs them, and each
 * spelling costs a readlink() per component (issue 20).
 */
static int
ws__guard_spellings(struct ws_ctx *ws)
{
	for (; ws->nguard_recorded < ws->nguard_spell; ws->nguard_recorded++) {
		const char *p = ws->guard_spell[ws->nguard_recorded];
		char out[PATH_MAX];
		struct stat st;
		int rc;

		if (ws->guard_spell_plain[ws->nguard_recorded])
			continue; /* recorded as spelled (ws__guard()) */
		rc = lstat(p, &st) == 0 ? ws__resolve_recording(ws, p, out) : 0;

		if (rc == -ENOMEM)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	return 0;
}

int
ws_ctx_guarded(struct ws_ctx *ws, const char *real, bool ancestors)
{
	/* "/" and what may hold a guard resolve every one of them. */
	bool all = ancestors || real[0] != '/' || real[1] == '\0';

	/* Out of memory: refused as the guard's own would be. */
	if (ws__guard_spellings(ws) < 0)
		return WS_GUARD_OWN;
	/* Resolved once, when something first wants to change a file. */
	if (!ws->guard_canonical) {
		for (size_t i = 0; i < ws->nguard; i++)
			if (ws->guard_lazy == NULL || !ws->guard_lazy[i])
				ws__guard_resolve(ws, i);
		ws->guard_canonical = true;
	}
	for (size_t i = 0; i < ws->nguard; i++) {
		/*
		 * A file's guard (the audit log's) is resolved only when
		 * real may be the file or within it: its last component is
		 * the file's name, not a symlink, and the same resolved.
		 */
		if (ws->guard_lazy != NULL && ws->guard_lazy[i]) {
			if (!all && !ws__has_name(real, ws->guard[i]))
				continue;
			ws__guard_resolve(ws, i);
		}
		if (ws_path_within(ws->guard[i], real, NULL))
			return WS_GUARD_OWN;
		if (ancestors && ws_path_within(real, ws->guard[i], NULL))
			return WS_GUARD_OWN;
	}
	/* What is inside an anchor's entry is not the entry: only the entry
	 * itself, and what holds it, are guarded. */
	for (size_t i = 0; i < ws->nentries; i++) {
		if (strcmp(ws->entries[i], real) == 0)
			return WS_GUARD_ANCHOR;
		if (ancestors && ws_path_within(real, ws->entries[i], NULL))
			return WS_GUARD_ANCHOR;
	}
	if (ws_guard_persist_match(ws, real, ancestors, NULL))
		return WS_GUARD_PERSIST;
	return WS_GUARD_NONE;
}

const char *
ws_ctx_guarded_inode(struct ws_ctx *ws, const struct stat *st)
{
	struct stat g;

	if (!S_ISREG(st->st_mode) || st->st_nlink <= 1)
		return NULL;
	for (size_t i = 0; i < ws->nguard; i++)
		if (stat(ws->guard[i], &g) == 0 && S_ISREG(g.st_mode) &&
		    g.st_dev == st->st_dev && g.st_ino == st->st_ino)
			return ws->guard[i];
	return NULL;
}

const char *
ws_ctx_guard_linked(struct ws_ctx *ws)
{
	struct stat g, a;

	for (size_t i = 0; i < ws->nguard; i++) {
		if (stat(ws->guard[i], &g) < 0 || !S_ISREG(g.st_mode) ||
		    g.st_nlink <= 1)
			continue;
		for (size_t k = 0; k < ws->nanchors; k++)
			if (!ws->anchors[k].ro && fstat(ws->anchors[k].fd, &a) == 0 &&
			    a.st_dev == g.st_dev)
				return ws->guard[i];
	}
	return NULL;
}

int
ws_ctx_set_detection(struct ws_ctx *ws, const char *const *markers,
		     size_t nmarkers, bool pinned)
{
	ws->roots_pinned = pinned;
	if (markers == NULL)
		return 0;
	ws->markers = calloc(nmarkers ? nmarkers : 1, sizeof(*ws->markers));
	if (ws->markers == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; i < nmarkers; i++) {
		if ((ws->markers[i] = strdup(markers[i])) == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		ws->nmarkers++;
	}
	return 0;
}

/* A probe that answers as if one entry (dir/name) were there or not. */
struct ws__what_if {
	const char *dir, *name;
	int answer;
};

static int
ws__probe_what_if(const char *dir, const char *marker, void *arg)
{
	const struct ws__what_if *w = arg;

	if (strcmp(dir, w->dir) == 0 && strcmp(marker, w->name) == 0)
		return w->answer;
	return ws_detect_probe_stat(dir, marker, NULL);
}

/* Whether strings a and b (either may be NULL) differ. */
static bool
ws__differ(const char *a, const char *b)
{
	return (a == NULL) != (b == NULL) || (a != NULL && strcmp(a, b) != 0);
}

bool
ws_ctx_marker_guarded(struct ws_ctx *ws, const char *real, unsigned how,
		      char **before, char **after)
{
	const char *const *markers = ws->markers != NULL
		? (const char *const *)ws->markers : ws_detect_default_markers;
	size_t nmarkers = ws->markers != NULL ? ws->nmarkers
					      : ws_detect_ndefault_markers;
	const char *slash = strrchr(real, '/'), *name;
	struct ws_detect_opts o = {.markers = markers, .nmarkers = nmarkers};
	struct ws_roots now, then;
	struct ws__what_if w;
	char *dir = NULL;
	bool marker = false, changed = false;
	int there;

	if (before)
		*before = NULL;
	if (after)
		*after = NULL;
	if (ws->roots_pinned || ws->nanchors == 0 || slash == NULL)
		return false;
	name = slash + 1;
	for (size_t i = 0; i < nmarkers && !marker; i++)
		marker = strcmp(markers[i], name) == 0;
	if (!marker)
		return false;
	dir = slash == real ? strdup("/") : strndup(real, (size_t)(slash - real));
	/* Out of memory fails closed: the change is refused. */
	if (dir == NULL)
		return true;
	if (!ws_path_within(dir, ws->anchors[0].real, NULL)) {
		free(dir);
		return false;
	}
	/* Only a change of whether the marker is there can matter. */
	there = ws_detect_probe_stat(dir, name, NULL);
	if (there > 0 ? !(how & WS_CHANGE_REMOVES) :
	    there == 0 ? !(how & WS_CHANGE_CREATES) : false) {
		free(dir);
		return false;
	}
	/* Detect as things are, then as they would be. */
	w.dir = dir;
	w.name = name;
	w.answer = there > 0 ? 0 : 1;
	if (ws_detect(ws->anchors[0].real, &o, &now) < 0) {
		free(dir);
		return true;
	}
	o.probe = ws__probe_what_if;
	o.probe_arg = &w;
	if (ws_detect(ws->anchors[0].real, &o, &then) < 0) {
		ws_roots_free(&now);
		free(dir);
		return true;
	}
	if (ws__differ(now.git_root, then.git_root)) {
		changed = true;
		if (before && asprintf(before, "GIT_ROOT=%s", now.git_root ? now.git_root : "(none)") < 0)
			*before = NULL;
		if (after && asprintf(after, "GIT_ROOT=%s", then.git_root ? then.git_root : "(none)") < 0)
			*after = NULL;
	} else if (ws__differ(now.project_root, then.project_root)) {
		changed = true;
		if (before && asprintf(before, "PROJECT_ROOT=%s", now.project_root) < 0)
			*before = NULL;
		if (after && asprintf(after, "PROJECT_ROOT=%s", then.project_root) < 0)
			*after = NULL;
	}
	ws_roots_free(&now);
	ws_roots_free(&then);
	free(dir);
	return changed;
}

int
ws_ctx_home_place(const struct ws_ctx *ws, const char *home, int kind,
		  size_t i, char *real, size_t len, const char **rest)
{
	int a;

	*rest = NULL;
	/* A directory's place ends in '/': its path is without. */
	if (!ws_persist_path(home, kind, i, real, len))
		return -1;
	a = ws_ctx_anchor_of_real(ws, real, rest);
	while (*rest != NULL && **rest == '/')
		(*rest)++;
	if (a < 0 || ws->anchors[a].ro || *rest == NULL || **rest == '\0')
		return -1;
	return a;
}

/* What a prefix of a place is (ws_home_place_resolve()'s memo). */
enum { WS__PRE_MISSING, WS__PRE_DIR, WS__PRE_LINK, WS__PRE_DANGLING };

/* Look prefix pre up in memo, or find it out (lstat(), and a link's
 * resolution with its entries into *e, *ne) and remember it: the index,
 * or -errno. */
static int
ws__memo_prefix(struct ws_place_memo *m, const char *pre, char ***e, size_t *ne)
{
	struct ws_ctx tmp = {0};
	char res[PATH_MAX];
	struct stat st;
	int kind, rc;
	void *v;

	for (size_t k = 0; k < m->n; k++)
		if (strcmp(m->pre[k], pre) == 0)
			return (int)k;
	res[0] = '\0';
	if (lstat(pre, &st) < 0)
		kind = WS__PRE_MISSING;
	else if (!S_ISLNK(st.st_mode))
		kind = WS__PRE_DIR;
	else if ((rc = ws__resolve_rec(&tmp, pre, res, true, NULL)) < 0) {
		for (size_t k = 0; k < tmp.nentries; k++)
			free(tmp.entries[k]);
		free(tmp.entries);
		tmp.entries = NULL;
		tmp.nentries = 0;
		if (rc == -ENOMEM)
			return rc;
		/* A link that cannot be resolved (a loop, a file on the
		 * way): nothing is made through it. */
		kind = WS__PRE_DANGLING;
	} else
		/* A dangling one too: what it names would be made through
		 * it, there (review16 03). */
		kind = WS__PRE_LINK;
	*e = tmp.entries;
	*ne = tmp.nentries;
	if ((v = realloc(m->pre, (m->n + 1) * sizeof(*m->pre))) == NULL)
		return -ENOMEM;
	m->pre = v;
	if ((v = realloc(m->res, (m->n + 1) * sizeof(*m->res))) == NULL)
		return -ENOMEM;
	m->res = v;
	if ((v = realloc(m->kind, (m->n + 1) * sizeof(*m->kind))) == NULL)
		return -ENOMEM;
	m->kind = v;
	m->pre[m->n] = strdup(pre);
	m->res[m->n] = strdup(res);
	m->kind[m->n] = kind;
	if (m->pre[m->n] == NULL || m->res[m->n] == NULL) {
		free(m->pre[m->n]);
		free(m->res[m->n]);
		return -ENOMEM;
	}
	return (int)m->n++;
}

/*
 * Read the directory dir (a real directory: no link followed) into
 * names (NUL-separated) and each one's dirent type into types: 1, or
 * -1 where it cannot be read (what was read so far is kept, to be
 * freed).
 */
static int
ws__list_read(const char *dir, char **names, unsigned char **types,
	      size_t *nnames, size_t *names_len)
{
	char buf[16384];
	size_t cap = 0;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC |
		  O_NONBLOCK);
	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t got = getdents64(fd, buf, sizeof(buf));

		if (got < 0) {
			close(fd);
			return -1;
		}
		if (got == 0)
			break;
		for (ssize_t off = 0; off < got;) {
			struct dirent64 *e = (struct dirent64 *)(void *)(buf + off);
			size_t nl = strlen(e->d_name) + 1;
			void *v;

			off += e->d_reclen;
			if (*names_len + nl > cap) {
				cap = (*names_len + nl) * 2 + 1024;
				if ((v = realloc(*names, cap)) == NULL) {
					close(fd);
					return -1;
				}
				*names = v;
			}
			if ((v = realloc(*types, *nnames + 1)) == NULL) {
				close(fd);
				return -1;
			}
			*types = v;
			memcpy(*names + *names_len, e->d_name, nl);
			*names_len += nl;
			(*types)[(*nnames)++] = e->d_type;
		}
	}
	close(fd);
	return 1;
}

/*
 * Read the directory home (its first hlen bytes of lexical) into m's
 * listing, once: names NUL-separated, each one's dirent type.
 */
static void
ws__memo_list(struct ws_place_memo *m, const char *lexical, size_t hlen)
{
	if (m->listed != 0)
		return;
	m->listed = -1;
	if ((m->home = strndup(lexical, hlen > 0 ? hlen : 1)) == NULL)
		return;
	m->listed = ws__list_read(m->home, &m->names, &m->types, &m->nnames,
				  &m->names_len);
}

/*
 * What a listing (names, types, nnames) says of the component c (cl
 * bytes): 0 missing, 1 there and neither a link nor of unknown type, -1
 * ask lstat() (a link, an unknown type).
 */
static int
ws__list_find(const char *names, const unsigned char *types, size_t nnames,
	      const char *c, size_t cl)
{
	const char *nm = names;

	for (size_t k = 0; k < nnames; k++) {
		size_t nl = strlen(nm);

		if (nl == cl && memcmp(nm, c, cl) == 0)
			return types[k] == DT_LNK || types[k] == DT_UNKNOWN
			       ? -1 : 1;
		nm += nl + 1;
	}
	return 0;
}

/*
 * What the listing says of the component c (cl bytes) in home: 0
 * missing, 1 there and neither a link nor of unknown type, -1 ask
 * lstat() (a link, an unknown type, or no listing).
 */
static int
ws__memo_listed(const struct ws_place_memo *m, const char *c, size_t cl)
{
	if (m->listed != 1)
		return -1;
	return ws__list_find(m->names, m->types, m->nnames, c, cl);
}

/*
 * The same for the component c (cl bytes) of the directory dir (dl
 * bytes), a real directory right below home: its listing read once
 * into m (-1 also where it cannot be read, or out of memory).
 */
static int
ws__memo_sub_listed(struct ws_place_memo *m, const char *dir, size_t dl,
		    const char *c, size_t cl)
{
	struct ws_place_listing *l = NULL;
	void *v;

	for (size_t k = 0; k < m->nsub && l == NULL; k++)
		if (strlen(m->sub[k].dir) == dl && memcmp(m->sub[k].dir, dir, dl) == 0)
			l = &m->sub[k];
	if (l == NULL) {
		if ((v = realloc(m->sub, (m->nsub + 1) * sizeof(*m->sub))) == NULL)
			return -1;
		m->sub = v;
		l = &m->sub[m->nsub];
		memset(l, 0, sizeof(*l));
		if ((l->dir = strndup(dir, dl)) == NULL)
			return -1;
		m->nsub++;
		l->listed = ws__list_read(l->dir, &l->names, &l->types, &l->nnames,
					  &l->names_len);
	}
	if (l->listed != 1)
		return -1;
	return ws__list_find(l->names, l->types, l->nnames, c, cl);
}

void
ws_place_memo_free(struct ws_place_memo *m)
{
	for (size_t k = 0; k < m->n; k++) {
		free(m->pre[k]);
		free(m->res[k]);
	}
	free(m->pre);
	free(m->res);
	free(m->kind);
	free(m->home);
	free(m->names);
	free(m->types);
	for (size_t k = 0; k < m->nsub; k++) {
		free(m->sub[k].dir);
		free(m->sub[k].names);
		free(m->sub[k].types);
	}
	free(m->sub);
	memset(m, 0, sizeof(*m));
}

int
ws_home_place_resolve(const char *lexical, size_t from, char *out, size_t len,
		      char ***entries, size_t *n, struct ws_place_memo *memo)
{
	struct ws_place_memo own = {0};
	struct ws_place_memo *m = memo != NULL ? memo : &own;
	char pre[PATH_MAX];
	size_t l = strlen(lexical);
	int rc = 0;

	*entries = NULL;
	*n = 0;
	if (l >= sizeof(pre) || from >= l)
		return 0;
	/*
	 * The place's components below home, shallowest first: the first
	 * that is missing ends the walk (nothing deeper can be a link),
	 * the first that is a link is resolved with what holds it.  Places
	 * share their first components (~/.config/...): memo remembers
	 * each prefix, looked at once for all of them.
	 */
	/*
	 * The first component below home: from home's listing, read once
	 * for all the places that share the memo (one lstat() each was the
	 * most of a call's cost where HOME holds no link).
	 */
	if (memo != NULL) {
		const char *c = lexical + from + 1;
		size_t cl = strcspn(c, "/");
		int seen;

		if (m->listed == 0)
			ws__memo_list(m, lexical, from);
		seen = m->home != NULL && strlen(m->home) == (from > 0 ? from : 1) &&
		       strncmp(m->home, lexical, from > 0 ? from : 1) == 0
		       ? ws__memo_listed(m, c, cl) : -1;
		if (seen == 0)
			return 0;
		if (seen == 1 && c[cl] == '\0')
			return 0;
	}
	for (size_t i = from + 1, prev = from, depth = 0; i <= l && rc == 0; i++) {
		size_t dir = prev;
		int k;

		if (i < l && lexical[i] != '/')
			continue;
		prev = i;
		/*
		 * The second component below home, in a directory that is
		 * no link (the first was looked at): from that directory's
		 * listing, read once for every place below it.
		 */
		if (memo != NULL && ++depth == 2 && i > dir + 1) {
			int seen = ws__memo_sub_listed(m, lexical, dir,
						       lexical + dir + 1, i - dir - 1);

			if (seen == 0)
				break;
			if (seen == 1)
				continue;
		}
		memcpy(pre, lexical, i);
		pre[i] = '\0';
		/* Listed there, neither link nor unknown: as lstat() says. */
		if (memo != NULL && i == from + 1 + strcspn(lexical + from + 1, "/") &&
		    m->listed == 1 && m->home != NULL &&
		    ws__memo_listed(m, lexical + from + 1, i - from - 1) == 1 &&
		    strlen(m->home) == (from > 0 ? from : 1) &&
		    strncmp(m->home, lexical, from > 0 ? from : 1) == 0)
			continue;
		if ((k = ws__memo_prefix(m, pre, entries, n)) < 0) {
			rc = k;
			break;
		}
		if (m->kind[k] == WS__PRE_DIR)
			continue;
		if (m->kind[k] != WS__PRE_LINK)
			break;
		rc = snprintf(out, len, "%s%s", strcmp(m->res[k], "/") == 0 ?
			      "" : m->res[k], lexical + i) >= (int)len
			? -ENAMETOOLONG : 1;
		break;
	}
	ws_place_memo_free(&own);
	return rc;
}

/*
 * Move the entries e (ne, malloc'd) onto *ways (*nways), or free them
 * where ways is NULL: 0, or -ENOMEM (e freed either way).
 */
static int
ws__ways_take(char **e, size_t ne, char ***ways, size_t *nways)
{
	void *v;
	int rc = 0;

	if (ways != NULL && ne > 0) {
		if ((v = realloc(*ways, (*nways + ne) * sizeof(**ways))) == NULL) {
			rc = -ENOMEM;
		} else {
			*ways = v;
			memcpy(*ways + *nways, e, ne * sizeof(*e));
			*nways += ne;
			free(e);
			return 0;
		}
	}
	for (size_t k = 0; k < ne; k++)
		free(e[k]);
	free(e);
	return rc;
}

/*
 * ws_ctx_home_place_resolved(), keeping in *ways (*nways; or NULL) the
 * entries the resolution passed through: -2 when out of memory.
 */
static int
ws__home_place_resolved(const struct ws_ctx *ws, const char *home,
			int kind, size_t i, char *real, size_t len,
			const char **rest, struct ws_place_memo *memo,
			char ***ways, size_t *nways)
{
	char lex[PATH_MAX], **e;
	size_t ne;
	int a, r;

	*rest = NULL;
	/* Its spelling, whichever anchor holds it (maybe none: through a
	 * link, the place may still be in one). */
	if (!ws_persist_path(home, kind, i, lex, sizeof(lex)))
		return -1;
	r = ws_home_place_resolve(lex, strcmp(home, "/") == 0 ? 0 : strlen(home),
				  real, len, &e, &ne, memo);
	if (ws__ways_take(e, ne, ways, nways) < 0)
		return -2;
	if (r <= 0)
		return -1;
	a = ws_ctx_anchor_of_real(ws, real, rest);
	while (*rest != NULL && **rest == '/')
		(*rest)++;
	if (a < 0 || ws->anchors[a].ro || *rest == NULL || **rest == '\0')
		return -1;
	return a;
}

int
ws_ctx_home_place_resolved(const struct ws_ctx *ws, const char *home,
			   int kind, size_t i, char *real, size_t len,
			   const char **rest, struct ws_place_memo *memo)
{
	int a = ws__home_place_resolved(ws, home, kind, i, real, len, rest,
					memo, NULL, NULL);

	return a < 0 ? -1 : a;
}

void
ws_home_places_free(struct ws_home_place *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].rest);
	free(v);
}

/* A copy of v (n entries) into *out, *nout: 0 or WS_ENOMEM. */
static int
ws__home_places_copy(const struct ws_home_place *v, size_t n,
		     struct ws_home_place **out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	if (n == 0)
		return 0;
	if ((*out = calloc(n, sizeof(**out))) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; i < n; i++) {
		(*out)[i].anchor = v[i].anchor;
		(*out)[i].way = v[i].way;
		if (((*out)[i].rest = strdup(v[i].rest)) == NULL) {
			ws_home_places_free(*out, i);
			*out = NULL;
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
	}
	*nout = n;
	return 0;
}

/* Append the place (anchor a, rest below it, way or not) onto *out (*n).
 * 0 or WS_ENOMEM. */
static int
ws__place_push(struct ws_home_place **out, size_t *n, int a, const char *rest,
	       bool way)
{
	struct ws_home_place *nv = realloc(*out, (*n + 1) * sizeof(*nv));

	if (nv == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	*out = nv;
	nv[*n].anchor = a;
	nv[*n].way = way;
	if ((nv[*n].rest = strdup(rest)) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	(*n)++;
	return 0;
}

/* ws_ctx_home_places() for the places below one base, home, of kind. */
static int
ws__base_home_places(const struct ws_ctx *ws, const char *home, int kind,
		     struct ws_home_place **out, size_t *n, char ***ways,
		     size_t *nways)
{
	struct ws_place_memo memo = {0};
	char real[4352];
	const size_t *idx;
	size_t np = ws_persist_places(kind, &idx);
	bool spelled = false;
	int rc = 0;

	/*
	 * A place as spelled lies in a writable anchor only where the base
	 * lies in one or holds one: else (HOME beside the workspace, PATH's
	 * system directories) only the resolutions below can reach one,
	 * and the spelled paths are not made and looked up (a few hundred
	 * a call).
	 */
	for (size_t a = 0; a < ws->nanchors && !spelled; a++)
		spelled = !ws->anchors[a].ro &&
			  (ws_path_within(home, ws->anchors[a].real, NULL) ||
			   ws_path_within(ws->anchors[a].real, home, NULL));
	/* Each place of the kind as spelled, then (odd j) as reached
	 * through a link on its way (stow's ~/.config -> dotfiles/config,
	 * review11). */
	for (size_t j = spelled ? 0 : 1; rc == 0 && j < 2 * np;
	     j += spelled ? 1 : 2) {
		const char *rest;
		size_t i = idx[j / 2];
		int a = j % 2 == 0
			? ws_ctx_home_place(ws, home, kind, i, real, sizeof(real), &rest)
			: ws__home_place_resolved(ws, home, kind, i, real,
						  sizeof(real), &rest, &memo,
						  ways, nways);

		if (a == -2) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			break;
		}
		if (a < 0)
			continue;
		rc = ws__place_push(out, n, a, rest, false);
	}
	ws_place_memo_free(&memo);
	return rc;
}

static int ws__sourced_bases(const struct ws_ctx *ws, char *const *home,
			     size_t nh, struct ws_persist_base **b, size_t *nb);

int
ws_ctx_home_places(const struct ws_ctx *ws, struct ws_home_place **out,
		   size_t *n)
{
	struct ws_persist_base *xb;
	char *home[2];
	size_t nh, nxb;
	int rc;

	/* The call resolved them already (ws_ctx_home_places_call()). */
	if (ws->home_places_done)
		return ws__home_places_copy(ws->home_places, ws->nhome_places,
					    out, n);
	*out = NULL;
	*n = 0;
	if ((rc = ws_persist_bases(&xb, &nxb)) < 0)
		return rc;
	nh = ws_homes(home);
	if ((rc = ws__sourced_bases(ws, home, nh, &xb, &nxb)) == 0)
		rc = ws_ctx_home_places_of(ws, home, nh, xb, nxb, out, n, NULL, NULL);
	ws_persist_bases_free(xb, nxb);
	ws_homes_free(home, nh);
	return rc;
}

/*
 * The entries e (ne) that a writable anchor holds, below its top, onto
 * *out (*n) as ways, once, and not where a place is the same entry.
 * 0 or WS_ENOMEM.
 */
static int
ws__way_places(const struct ws_ctx *ws, char *const *e, size_t ne,
	       struct ws_home_place **out, size_t *n)
{
	for (size_t k = 0; k < ne; k++) {
		const char *r = NULL;
		int a = ws_ctx_anchor_of_real(ws, e[k], &r);
		bool seen = false;

		while (r != NULL && *r == '/')
			r++;
		if (a < 0 || ws->anchors[a].ro || r == NULL || *r == '\0')
			continue;
		for (size_t j = 0; j < *n && !seen; j++)
			seen = (*out)[j].anchor == a && strcmp((*out)[j].rest, r) == 0;
		if (seen)
			continue;
		if (ws__place_push(out, n, a, r, true) < 0)
			return WS_ENOMEM;
	}
	return 0;
}

/*
 * A PATH directory dir that lies in no writable anchor but holds one
 * (~ on PATH, the project in ~/proj): the anchor is no place for it
 * (ws_persist_anchor_in()), but what the directory's own links lead to
 * there is (~/tool -> proj/build/tool runs as tool), resolved as the
 * bases are, onto *out (*n), their ways onto *lw (*nlw).  One read of
 * the directory, a readlink() per component of each link's way, and
 * nothing at all for a PATH directory elsewhere.  0 or WS_ENOMEM.
 */
static int
ws__path_dir_links(const struct ws_ctx *ws, const char *dir,
		   struct ws_home_place **out, size_t *n, char ***lw, size_t *nlw)
{
	char *names = NULL, path[PATH_MAX], real[PATH_MAX];
	unsigned char *types = NULL;
	size_t nnames = 0, names_len = 0;
	const char *nm;
	bool holds = false;
	int rc = 0;

	for (size_t a = 0; a < ws->nanchors; a++) {
		if (ws->anchors[a].ro)
			continue;
		if (ws_path_within(ws->anchors[a].real, dir, NULL))
			return 0;
		holds = holds || (ws_path_within(dir, ws->anchors[a].real, NULL) &&
				  strcmp(dir, ws->anchors[a].real) != 0);
	}
	if (!holds)
		return 0;
	(void)ws__list_read(dir, &names, &types, &nnames, &names_len);
	nm = names;
	for (size_t k = 0; rc == 0 && k < nnames; nm += strlen(nm) + 1, k++) {
		const char *r = NULL;
		char **e = NULL;
		size_t ne = 0;
		int a, r2;

		if ((types[k] != DT_LNK && types[k] != DT_UNKNOWN) ||
		    snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") == 0
			     ? "" : dir, nm) >= (int)sizeof(path))
			continue;
		r2 = ws_path_resolve_tail(path, real, &e, &ne);
		if (ws__ways_take(e, ne, lw, nlw) < 0) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			break;
		}
		if (r2 < 0)
			continue;
		a = ws_ctx_anchor_of_real(ws, real, &r);
		while (r != NULL && *r == '/')
			r++;
		if (a < 0 || ws->anchors[a].ro || r == NULL || *r == '\0')
			continue;
		rc = ws__place_push(out, n, a, r, false);
	}
	free(names);
	free(types);
	return rc;
}

/*
 * Drop from v (*n entries) those from index from on that one before them
 * is already: two homes whose places lead to the same entry (both
 * ~/.config links to one dotfiles tree) guard and revert it once.
 */
static void
ws__home_places_dedup(struct ws_home_place *v, size_t *n, size_t from)
{
	size_t w = from;

	for (size_t i = from; i < *n; i++) {
		bool seen = false;

		for (size_t j = 0; j < w && !seen; j++)
			seen = v[j].anchor == v[i].anchor &&
			       strcmp(v[j].rest, v[i].rest) == 0;
		if (seen)
			free(v[i].rest);
		else
			v[w++] = v[i];
	}
	*n = w;
}

int
ws_ctx_home_places_of(const struct ws_ctx *ws, char *const *home, size_t nh,
		      const struct ws_persist_base *xb, size_t nxb,
		      struct ws_home_place **out, size_t *n, char ***ways,
		      size_t *nways)
{
	char **lw = NULL;
	size_t nlw = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (ways != NULL) {
		*ways = NULL;
		*nways = 0;
	}
	/* Each home's (ws_homes(): review18 08), then those below the
	 * bases the environment moves (XDG_CONFIG_HOME, ...: review12 05;
	 * PATH's directories, review14 01).  A second home (a scratch
	 * $HOME) costs a walk of its own only where it is another
	 * directory. */
	for (size_t h = 0; rc == 0 && h < nh; h++) {
		size_t had = *n;

		rc = ws__base_home_places(ws, home[h], WS_PERSIST_HOME, out, n,
					  &lw, &nlw);
		if (rc == 0 && h > 0)
			ws__home_places_dedup(*out, n, had);
	}
	for (size_t k = 0; rc == 0 && k < nxb; k++) {
		rc = ws__base_home_places(ws, xb[k].dir, xb[k].kind, out, n,
					  &lw, &nlw);
		if (rc == 0 && xb[k].kind == WS_PERSIST_PATH)
			rc = ws__path_dir_links(ws, xb[k].dir, out, n, &lw, &nlw);
	}
	/*
	 * The ways, after every place: a link a place's resolution passed
	 * (sec16c), and the entries each base's own resolution passed
	 * (PATH=WS/tools/bin with WS/tools -> realdir: re-pointing tools,
	 * or making realdir somewhere and moving it there, moves the
	 * base; review17 05), among them what precedes a ".." of its
	 * spelling (review17 03).
	 */
	if (rc == 0)
		rc = ws__way_places(ws, lw, nlw, out, n);
	for (size_t k = 0; rc == 0 && k < nxb; k++)
		rc = ws__way_places(ws, xb[k].way, xb[k].nway, out, n);
	if (rc == 0 && ways != NULL) {
		*ways = lw;
		*nways = nlw;
		lw = NULL;
		nlw = 0;
	}
	for (size_t k = 0; k < nlw; k++)
		free(lw[k]);
	free(lw);
	if (rc < 0) {
		ws_home_places_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

const char ws_runs_wait_msg[] = "waiting for a command in this workspace to end";

static long long
ws__runs_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Whether the call holds the runs' lock of the directory st is of. */
static bool
ws__runs_has(const struct ws_ctx *ws, const struct stat *st)
{
	for (size_t i = 0; i < ws->nruns; i++)
		if (ws->runs[i].dev == st->st_dev && ws->runs[i].ino == st->st_ino)
			return true;
	return false;
}

/* Remember fd (-1: none) as the lock of st's directory; fd is the set's
 * from here, closed on failure too. */
static int
ws__runs_add(struct ws_ctx *ws, const struct stat *st, int fd)
{
	if (ws->nruns == ws->runs_cap) {
		size_t cap = ws->runs_cap ? 2 * ws->runs_cap : 8;
		struct ws_runs_lock *v = realloc(ws->runs, cap * sizeof(*v));

		if (v == NULL) {
			if (fd >= 0)
				close(fd);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		ws->runs = v;
		ws->runs_cap = cap;
	}
	ws->runs[ws->nruns++] = (struct ws_runs_lock){st->st_dev, st->st_ino, fd};
	return 0;
}

/*
 * Take fd's lock shared, waiting while a command's run holds it (the
 * WS_RUNS_WAIT_MS are the call's, counted from its first wait).  A
 * lock that cannot be taken for another reason is none, as in wsrun.
 */
static int
ws__runs_flock(struct ws_ctx *ws, int fd)
{
	long long waited;

	while (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return 0; /* no lock to take: as wsrun, go on */
		if (ws->runs_wait0 == 0)
			ws->runs_wait0 = ws__runs_now_ms();
		waited = ws__runs_now_ms() - ws->runs_wait0;
		if (ws_cancelled() || waited >= WS_RUNS_WAIT_MS) {
			ws_error_set(WS_ELIMIT_EXCEEDED, NULL,
				     "a command (wsrun, run_command) is running in "
				     "this workspace, or in a directory this change "
				     "is in, and did not end within the %lld s this "
				     "change waited: files change only between "
				     "commands, so that a command's clean-up sees "
				     "what it made", waited / 1000);
			ws_error_set_hint("wait for the command's result (or cancel "
					  "it), then make the change again");
			return WS_ELIMIT_EXCEEDED;
		}
		/* The message reads on its own, with the deadline (a client
		 * shows it without "progress"); total is the wait's end. */
		if (ws_progress_wanted()) {
			char msg[128];

			snprintf(msg, sizeof(msg), "%s (%lld s of at most %d s)",
				 ws_runs_wait_msg, waited / 1000,
				 WS_RUNS_WAIT_MS / 1000);
			ws_progress_total(waited, WS_RUNS_WAIT_MS, msg, false);
		}
		(void)nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
	}
	return 0;
}

/*
 * Hold the lock of dirfd's directory and of each one above it, up to
 * one held already or "/": each opened from the one below by "..", so
 * that what is locked is where the change lands whatever its path's
 * spelling.  The held set stays closed upwards (a directory's ancestors
 * are held with it), so the walk of a change in an anchor ends at once.
 * fd: a descriptor of dirfd's directory opened for reading, which the
 * set takes, or -1.
 */
static int
ws__runs_up(struct ws_ctx *ws, int dirfd, int fd)
{
	struct stat st, pst;
	int walk = -1, up, rc = 0;

	if (fstat(dirfd, &st) < 0 || ws__runs_has(ws, &st)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (fd < 0)
		fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (;;) {
		/* Unreadable (another user's 0711 /home): no command of ours
		 * runs there; walked through, not locked. */
		if (fd >= 0 && (rc = ws__runs_flock(ws, fd)) < 0) {
			close(fd);
			break;
		}
		if ((rc = ws__runs_add(ws, &st, fd)) < 0)
			break;
		up = openat(fd >= 0 ? fd : walk >= 0 ? walk : dirfd, "..",
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (up < 0 && (errno == EACCES || errno == EPERM)) {
			int w = openat(fd >= 0 ? fd : walk >= 0 ? walk : dirfd, "..",
				       O_PATH | O_DIRECTORY | O_CLOEXEC);

			if (walk >= 0)
				close(walk);
			walk = w;
			fd = -1;
			if (w < 0 || fstat(w, &pst) < 0)
				break;
		} else if (up < 0 || fstat(up, &pst) < 0) {
			if (up >= 0)
				close(up);
			break;
		} else {
			fd = up;
		}
		/* "/" is its own "..": done; so is a directory held already. */
		if ((pst.st_dev == st.st_dev && pst.st_ino == st.st_ino) ||
		    ws__runs_has(ws, &pst)) {
			if (fd >= 0)
				close(fd);
			break;
		}
		st = pst;
	}
	if (walk >= 0)
		close(walk);
	return rc;
}

int
ws_ctx_wait_runs(struct ws_ctx *ws)
{
	const char *sb = getenv("WS_SANDBOX");
	int fd, rc;

	if (ws->runs_on || ws->nanchors == 0 || (sb != NULL && strcmp(sb, "1") == 0))
		return 0;
	/*
	 * A root that may not be read: a command's chmod 311 of it would
	 * take the lock away from the changes made during its run (review29
	 * 03).  Refused, as wsrun refuses to run there.
	 */
	fd = openat(ws->anchors[0].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		ws_error_set(WS_EPERMISSION_DENIED, "/",
			     "the workspace's root cannot be read (its mode has "
			     "no read or search for you), so whether a command "
			     "runs in it cannot be known: no change is made");
		ws_error_set_hint("give the root its mode back (chmod u+rwx on "
				  "it), or wait for the command running there "
				  "to end: its clean-up does so");
		return WS_EPERMISSION_DENIED;
	}
	ws->runs_on = true;
	/*
	 * The root, every writable mount, and their real ancestors: a
	 * command whose top is one of them (a server on ~/src/proj beside
	 * this one on ~/src, review30 01) runs where this call may change.
	 */
	for (size_t i = 0; i < ws->nanchors; i++)
		if ((i == 0 || !ws->anchors[i].ro) &&
		    (rc = ws__runs_up(ws, ws->anchors[i].fd, i == 0 ? fd : -1)) < 0)
			return rc;
	return 0;
}

/*
 * What the start-up files of each home a writable anchor holds or lies
 * in source (ws_persist_sourced_add()), onto *b (*nb): a home beside
 * every writable anchor has nothing a tool or a command could change,
 * and its files are not read at all.  Read once a call (the context's
 * resolution, ws_ctx_persist_env()), so that a start-up file the person
 * changed counts from the next call on.  0 or WS_ENOMEM.
 */
static int
ws__sourced_bases(const struct ws_ctx *ws, char *const *home, size_t nh,
		  struct ws_persist_base **b, size_t *nb)
{
	char *near[2];
	size_t nn = 0;

	for (size_t h = 0; h < nh && h < 2; h++) {
		bool in = false;

		for (size_t a = 0; a < ws->nanchors && !in; a++)
			in = !ws->anchors[a].ro &&
			     (ws_path_within(home[h], ws->anchors[a].real, NULL) ||
			      ws_path_within(ws->anchors[a].real, home[h], NULL));
		if (in)
			near[nn++] = home[h];
	}
	return nn > 0 ? ws_persist_sourced_add(near, nn, b, nb) : 0;
}

int
ws_ctx_hold_dir(struct ws_ctx *ws, int dirfd)
{
	if (!ws->runs_on || dirfd < 0)
		return 0;
	return ws__runs_up(ws, dirfd, -1);
}

int
ws_ctx_persist_env(struct ws_ctx *ws, const struct ws_persist_base **xb,
		   size_t *nxb, char *const **home, size_t *nh)
{
	char *key = ws_persist_env_key();
	int rc;

	if (key == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	/*
	 * Kept while what they come from is the same: a context that a
	 * library caller keeps between calls follows a base the
	 * environment moved (CARGO_HOME set later, a new current
	 * directory for PATH's relative entries), and the places resolved
	 * from the old ones go with them.
	 */
	if (ws->penv_done && strcmp(ws->penv_key, key) != 0) {
		ws_persist_bases_free(ws->penv_bases, ws->penv_nbases);
		ws_homes_free(ws->penv_home, ws->penv_nhome);
		ws->penv_bases = NULL;
		ws->penv_nbases = ws->penv_nhome = 0;
		ws_home_places_free(ws->home_places, ws->nhome_places);
		ws->home_places = NULL;
		ws->nhome_places = 0;
		ws->home_places_done = false;
		ws->penv_done = false;
	}
	if (!ws->penv_done) {
		if ((rc = ws_persist_bases(&ws->penv_bases, &ws->penv_nbases)) < 0) {
			free(key);
			return rc;
		}
		ws->penv_nhome = ws_homes(ws->penv_home);
		if ((rc = ws__sourced_bases(ws, ws->penv_home, ws->penv_nhome,
					    &ws->penv_bases, &ws->penv_nbases)) < 0) {
			ws_persist_bases_free(ws->penv_bases, ws->penv_nbases);
			ws_homes_free(ws->penv_home, ws->penv_nhome);
			ws->penv_bases = NULL;
			ws->penv_nbases = ws->penv_nhome = 0;
			free(key);
			return rc;
		}
		ws->penv_done = true;
		free(ws->penv_key);
		ws->penv_key = key;
		key = NULL;
	}
	free(key);
	if (xb != NULL) {
		*xb = ws->penv_bases;
		*nxb = ws->penv_nbases;
	}
	if (home != NULL) {
		*home = ws->penv_home;
		*nh = ws->penv_nhome;
	}
	return 0;
}

int
ws_ctx_home_places_call(struct ws_ctx *ws, const struct ws_home_place **v,
			size_t *n)
{
	const struct ws_persist_base *xb;
	char *const *home;
	size_t nxb, nh;
	int rc;

	/* First: a moved base drops the places resolved from it. */
	if ((rc = ws_ctx_persist_env(ws, &xb, &nxb, &home, &nh)) < 0)
		return rc;
	if (!ws->home_places_done) {
		if ((rc = ws_ctx_home_places_of(ws, home, nh, xb, nxb,
						&ws->home_places,
						&ws->nhome_places, NULL,
						NULL)) < 0)
			return rc;
		ws->home_places_done = true;
	}
	*v = ws->home_places;
	*n = ws->nhome_places;
	return 0;
}
