/*
 * resolve.c - resolving a requested path to descriptors, inside the
 * workspace, whatever the path's spelling and whatever races the
 * filesystem.
 *
 * Two stages.  The lexical stage (ws__lex) decides the input form on the
 * path as written, applies "..", and picks the anchor (root or mount) and
 * the path relative to it.  The physical stage walks from the anchor's
 * held descriptor: first with one openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS), which the kernel keeps beneath the anchor; if that
 * is refused for any reason, component by component with
 * openat(O_PATH | O_NOFOLLOW), following symlinks ourselves so that an
 * absolute target inside the root or another mount is honored and
 * everything else is refused.
 */
#include "ws/resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/path.h"
#include "ws/policy.h"

#define WS__MAX_HOPS 40	  /* symlinks followed before SYMLINK_LOOP */
#define WS__EAGAIN_TRIES 8 /* openat2 retries on a concurrent rename */

void
ws_res_step(struct ws_res *res, const char *kind, const char *fmt, ...)
{
	struct ws_step *s;
	va_list ap;
	char *text = NULL;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (text == NULL)
		return;
	s = realloc(res->steps, (res->nsteps + 1) * sizeof(*s));
	if (s == NULL) {
		free(text);
		return;
	}
	res->steps = s;
	s[res->nsteps].kind = kind;
	s[res->nsteps].text = text;
	s[res->nsteps].real = NULL;
	res->nsteps++;
}

#define STEP(res, flags, ...)                                                  \
	do {                                                                   \
		if ((flags) & WS_R_TRACE)                                      \
			ws_res_step((res), __VA_ARGS__);                       \
	} while (0)

void
ws_res_free(struct ws_res *res)
{
	if (res->fd >= 0)
		close(res->fd);
	if (res->own_dirfd && res->dirfd >= 0)
		close(res->dirfd);
	free(res->vpath);
	free(res->rel);
	free(res->real);
	free(res->name);
	free(res->missing);
	free(res->made);
	for (size_t i = 0; i < res->nsteps; i++) {
		free(res->steps[i].text);
		free(res->steps[i].real);
	}
	free(res->steps);
	memset(res, 0, sizeof(*res));
	res->fd = -1;
	res->dirfd = -1;
}

/* ------------------------------------------------------------------ */
/* Lexical stage                                                        */

/*
 * The part of a normalized-but-dotted path before its first ".."
 * component, copied into a new string.
 */
static char *
ws__head_before_dotdot(const char *p, const char **tail)
{
	const char *s = p;

	while (*s) {
		const char *e = strchrnul(s, '/');

		if (e - s == 2 && s[0] == '.' && s[1] == '.')
			break;
		s = *e ? e + 1 : e;
	}
	*tail = s;
	if (s == p)
		return strdup(p[0] == '/' ? "/" : "");
	/* Drop the slash before the tail (keep "/" alone). */
	size_t n = (size_t)(s - p);
	if (*s && n > 1)
		n--;
	return strndup(p, n);
}

/* Set res->anchor, res->rel and res->vpath for the rel path in anchor. */
static int
ws__set_rel(struct ws_ctx *ws, struct ws_res *res, int anchor, const char *rel)
{
	free(res->rel);
	free(res->vpath);
	res->vpath = NULL;
	res->anchor = anchor;
	res->rel = strdup(rel);
	if (res->rel == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return ws_ctx_virtual_of(ws, anchor, rel, &res->vpath);
}

static int
ws__lex(struct ws_ctx *ws, const char *input, unsigned flags,
	struct ws_res *res)
{
	bool strict = ws->flags & WS_STRICT;
	bool outside = ws->flags & WS_ALLOW_OUTSIDE;
	char *p = NULL, *dotted = NULL, *head = NULL, *norm = NULL;
	const char *tail, *rest;
	size_t len = strlen(input);
	int rc, a;

	STEP(res, flags, "input", "\"%s\"", input);
	if (strict && !(ws->flags & WS__DISK_NAMES) && strchr(input, '\\')) {
		rc = ws_error_set(WS_EINVALID_PATH, input,
				  "backslashes are not allowed in strict mode");
		goto out;
	}
	p = strdup(input);
	if (p == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	/* Backslashes are separators, as an agent on Windows writes them;
	 * in a name read from the disk, a backslash is kept byte for byte. */
	for (char *c = p; *c && !(ws->flags & WS__DISK_NAMES); c++)
		if (*c == '\\')
			*c = '/';
	/* Limits apply to the path as it will be walked (ws_resolve names it). */
	rc = ws_path_check(p, len);
	if (rc < 0)
		goto out;
	if (strict && p[0] == '/' && strcmp(p, "/") != 0) {
		rc = ws_error_set(WS_EINVALID_PATH, input,
				  "absolute paths are not allowed in strict mode");
		goto out;
	}
	if (strict && ws_path_has_dotdot(p)) {
		rc = ws_error_set(WS_EINVALID_PATH, input,
				  "\"..\" is not allowed in strict mode");
		goto out;
	}
	len = strlen(p);
	/* "dir/" and "dir/." both name a directory, and follow a last link. */
	res->must_dir = (len > 1 && p[len - 1] == '/') ||
			(len > 1 && p[len - 1] == '.' && p[len - 2] == '/');

	rc = ws_path_normalize(p, WS_NORM_KEEPDOT, &dotted);
	if (rc < 0)
		goto out;

	if (strcmp(dotted, "") == 0 || strcmp(dotted, "/") == 0) {
		if (outside && dotted[0] == '/') {
			res->form = "host";
			rc = ws__set_rel(ws, res, WS_ANCHOR_HOST, "");
		} else {
			res->form = "root";
			rc = ws__set_rel(ws, res, 0, "");
		}
		STEP(res, flags, "form", "%s", res->form);
		goto out;
	}

	if (outside && dotted[0] == '/') {
		/* Boundary off: an absolute path is a literal host path. */
		res->form = "host";
		rc = ws_path_normalize(dotted, WS_NORM_CLAMP, &norm);
		if (rc == 0)
			rc = ws__set_rel(ws, res, WS_ANCHOR_HOST, norm + 1);
		STEP(res, flags, "form", "host path (boundary off)");
		goto out;
	}

	/*
	 * Decide the form on the path as written, before ".." is applied:
	 * "<root>/../ws2/x" starts inside the root and then climbs out.
	 */
	head = ws__head_before_dotdot(dotted, &tail);
	if (head == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	{
		char *vhead = head[0] == '/' ? strdup(head) : ws_path_join("/", head);

		if (vhead == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			goto out;
		}
		a = ws_ctx_anchor_of_virtual(ws, vhead, &rest);
		if (a > 0) {
			res->form = "mount";
			rest = head + (rest - vhead) - (head[0] == '/' ? 0 : 1);
			if (rest < head)
				rest = head;
			STEP(res, flags, "form", "mount prefix %s",
			     ws->anchors[a].vprefix);
		} else if (head[0] == '/' &&
			   (a = ws_ctx_anchor_of_real(ws, head, &rest)) >= 0) {
			res->form = "absolute-inside";
			STEP(res, flags, "form",
			     "absolute path inside %s (%s), kept as is",
			     a == 0 ? "the workspace root" : "a mount",
			     ws->anchors[a].real);
		} else if (head[0] == '/' && ws->alias != NULL &&
			   ws_path_within(ws->alias, head, &rest)) {
			a = 0;
			res->form = "absolute-inside";
			STEP(res, flags, "form",
			     "absolute path inside the workspace root as spelled "
			     "(%s, which is %s)", ws->alias, ws->anchors[0].real);
		} else if (head[0] == '/') {
			a = 0;
			rest = head + 1;
			res->form = "shorthand";
			STEP(res, flags, "form",
			     "absolute path outside the root: root-relative shorthand");
		} else {
			a = 0;
			rest = head;
			res->form = "relative";
			STEP(res, flags, "form", "relative to the workspace root");
		}
		free(vhead);
	}
	{
		/* Apply ".." inside the anchor; climbing above it is refused. */
		char *relp = ws_path_join(rest, tail);

		if (relp == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			goto out;
		}
		rc = ws_path_normalize(relp, 0, &norm);
		if (rc == WS_EPATH_OUTSIDE_WORKSPACE && outside && a == 0) {
			/* Boundary off: climbing out of the root is allowed. */
			char *abs = ws_path_join(ws->anchors[0].real, relp);

			rc = abs ? ws_path_normalize(abs, WS_NORM_CLAMP, &norm)
				 : ws_error_set(WS_ENOMEM, NULL, "out of memory");
			free(abs);
			free(relp);
			if (rc == 0) {
				res->form = "host";
				rc = ws__set_rel(ws, res, WS_ANCHOR_HOST, norm + 1);
			}
			goto out;
		}
		free(relp);
		if (rc < 0) {
			ws_error_set(rc, input,
				     "resolves outside the %s (\"..\" climbs above %s)",
				     a == 0 ? "workspace" : "mount",
				     a == 0 ? "the root" : "the mount's top");
			goto out;
		}
	}
	if (strcmp(dotted, norm) != 0 || a != 0)
		STEP(res, flags, "normalize", "\"%s\" in %s", norm,
		     ws->anchors[a].vprefix);
	{
		/*
		 * A mount shadows whatever it covers: a workspace entry of the
		 * same name, or a directory of an outer mount ("/.a/x/../b" is
		 * inside "/.a/b" when that is mounted too).
		 */
		char *v = ws_path_join(ws->anchors[a].vprefix, norm);
		int m;

		if (v == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			goto out;
		}
		m = ws_ctx_anchor_of_virtual(ws, v, &rest);
		if (m > 0 && m != a) {
			char *r = strdup(rest);

			free(norm);
			norm = r;
			a = m;
			if (strcmp(res->form, "mount") != 0)
				res->form = "mount";
		}
		free(v);
		if (norm == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			goto out;
		}
	}
	if (a > 0)
		STEP(res, flags, "mount", "%s -> %s%s", ws->anchors[a].vprefix,
		     ws->anchors[a].real, ws->anchors[a].ro ? " (read-only)" : "");
	rc = ws__set_rel(ws, res, a, norm);
out:
	free(p);
	free(dotted);
	free(head);
	free(norm);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Physical stage: the component walker                                 */

struct ws__walk {
	struct ws_ctx *ws;
	struct ws_res *res;
	unsigned flags;
	int anchor;
	int cur;	/* O_PATH of the current directory */
	int parent;	/* O_PATH of its parent, -1 at an anchor's top */
	char **names;	/* components from the anchor to cur */
	struct ws__id {
		dev_t dev;
		ino_t ino;
	} *ids;		/* ids[k]: the directory names[k - 1], k >= 1 */
	size_t depth, cap;
	char *rest;	/* path still to walk */
	size_t pos;
	char last_link[WS_NAME_MAX + PATH_MAX + 8]; /* "name -> target" */
};

/*
 * With WS_R_TRACE: put on the last step the real path of name in the
 * current directory (rel, several components, is fine), so that a caller
 * can ask a policy about every step it shows (wspath --explain).
 */
static void
ws__step_real(struct ws__walk *w, const char *rel)
{
	struct ws_step *s;
	char *p;

	if (!(w->flags & WS_R_TRACE) || w->res->nsteps == 0)
		return;
	s = &w->res->steps[w->res->nsteps - 1];
	p = strdup(ws_ctx_anchor_real(w->ws, w->anchor));
	for (size_t k = 0; p != NULL && k < w->depth; k++) {
		char *q = ws_path_join(p, w->names[k]);

		free(p);
		p = q;
	}
	if (p != NULL && rel != NULL) {
		char *q = ws_path_join(p, rel);

		free(p);
		p = q;
	}
	free(s->real);
	s->real = p;
}

static bool
ws__is_anchor_fd(const struct ws__walk *w, int fd)
{
	return fd == ws_ctx_anchor_fd(w->ws, w->anchor);
}

static void
ws__close(struct ws__walk *w, int *fd)
{
	if (*fd >= 0 && !ws__is_anchor_fd(w, *fd))
		close(*fd);
	*fd = -1;
}

static void
ws__walk_reset(struct ws__walk *w, int anchor)
{
	ws__close(w, &w->cur);
	ws__close(w, &w->parent);
	for (size_t i = 0; i < w->depth; i++)
		free(w->names[i]);
	w->depth = 0;
	w->anchor = anchor;
	w->cur = ws_ctx_anchor_fd(w->ws, anchor);
	w->parent = -1;
}

static void
ws__walk_free(struct ws__walk *w)
{
	ws__close(w, &w->cur);
	ws__close(w, &w->parent);
	for (size_t i = 0; i < w->depth; i++)
		free(w->names[i]);
	free(w->names);
	free(w->ids);
	free(w->rest);
}

/* Replace the pending path with prefix + "/" + what was still pending. */
static int
ws__splice(struct ws__walk *w, const char *prefix)
{
	char *n = ws_path_join(prefix, w->rest + w->pos);

	if (n == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	free(w->rest);
	w->rest = n;
	w->pos = 0;
	return 0;
}

/* The real path of the current directory (malloc'd). */
static char *
ws__cur_real(const struct ws__walk *w)
{
	char *r = strdup(ws_ctx_anchor_real(w->ws, w->anchor));

	for (size_t i = 0; r != NULL && i < w->depth; i++) {
		char *n = ws_path_join(r, w->names[i]);

		free(r);
		r = n;
	}
	return r;
}

/*
 * Continue the walk at an absolute real path: an absolute symlink target,
 * or the place a ".." above an anchor's top leads to.  It is honored only
 * inside the root or a mount (anywhere with the boundary off).
 */
static int
ws__reanchor(struct ws__walk *w, const char *abs, const char *why)
{
	char *dotted = NULL, *head = NULL;
	const char *tail, *rest;
	int a, rc;

	rc = ws_path_normalize(abs, WS_NORM_KEEPDOT, &dotted);
	if (rc < 0)
		return rc;
	head = ws__head_before_dotdot(dotted, &tail);
	if (head == NULL) {
		free(dotted);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	a = ws_ctx_anchor_of_real(w->ws, head, &rest);
	if (a < 0 && (w->ws->flags & WS_ALLOW_OUTSIDE)) {
		a = WS_ANCHOR_HOST;
		rest = head + 1;
	}
	if (a == WS_ANCHOR_HOST && !(w->ws->flags & WS_ALLOW_OUTSIDE))
		a = -2;
	if (a < -1) {
		rc = ws_error_set(WS_ESYMLINK_OUTSIDE_WORKSPACE, NULL,
				  "%s leads to %s, outside the workspace", why,
				  abs);
		goto out;
	}
	STEP(w->res, w->flags, "anchor", "%s: continue in %s at \"%s\"", why,
	     ws_ctx_anchor_real(w->ws, a), rest);
	{
		char *both = ws_path_join(rest, tail);

		if (both == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			goto out;
		}
		ws__walk_reset(w, a);
		rc = ws__splice(w, both);
		free(both);
	}
out:
	free(dotted);
	free(head);
	return rc;
}

/*
 * The directory above cur (depth >= 1).  Descriptors are not kept for
 * every level, since a deep path would run out of them.  Opening ".." is
 * only trusted when it is the very directory walked down through (same
 * device and inode); if cur was moved meanwhile the walk fails closed.
 */
static int
ws__open_parent(struct ws__walk *w, int *out)
{
	struct stat st;
	int fd;

	if (w->parent >= 0) {
		*out = w->parent;
		return 0;
	}
	if (w->depth == 1) {
		*out = ws_ctx_anchor_fd(w->ws, w->anchor);
		return 0;
	}
	fd = openat(w->cur, "..", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 ||
	    st.st_dev != w->ids[w->depth - 1].dev ||
	    st.st_ino != w->ids[w->depth - 1].ino) {
		if (fd >= 0)
			close(fd);
		return ws_error_set(WS_EIO_ERROR, NULL,
				    "directory %s moved during resolution",
				    w->names[w->depth - 1]);
	}
	*out = fd;
	return 0;
}

/*
 * Go up one level: a ".." that came from a symlink target (those of the
 * request were applied lexically).  Above the anchor's top it continues
 * wherever that leads, if that is inside the root or a mount.
 */
static int
ws__walk_up(struct ws__walk *w)
{
	if (w->depth == 0) {
		char *up, *abs;
		int rc;
		const char *top = ws_ctx_anchor_real(w->ws, w->anchor);

		if (strcmp(top, "/") == 0)
			return 0; /* "/.." is "/" */
		up = strdup(top);
		if (up == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		*strrchr(up, '/') = '\0';
		abs = ws_path_join(*up ? up : "/", "");
		free(up);
		if (abs == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		/* Input ".." was applied lexically: this one came from a link. */
		rc = ws__reanchor(w, *abs ? abs : "/", "\"..\" above the top");
		free(abs);
		if (rc == WS_ESYMLINK_OUTSIDE_WORKSPACE && w->last_link[0])
			ws_error_set(rc, NULL,
				     "symlink %s leads outside the workspace",
				     w->last_link);
		return rc;
	}
	{
		int up;
		int rc = ws__open_parent(w, &up);

		if (rc < 0)
			return rc;
		free(w->names[--w->depth]);
		ws__close(w, &w->cur);
		if (up == w->parent)
			w->parent = -1; /* it moved into cur */
		else
			ws__close(w, &w->parent);
		w->cur = up;
	}
	return 0;
}

/* Whether a symlink on filesystem fs_of_dir is a /proc magic link. */
static bool
ws__magic_link(int dirfd, const char *target)
{
	struct statfs sf;

	if (fstatfs(dirfd, &sf) < 0)
		return true; /* fail closed */
	if (sf.f_type != PROC_SUPER_MAGIC)
		return false;
	/* /proc/self -> "1234" and /proc/mounts -> "self/mounts" are plain
	 * links; fd/N, cwd, root and exe show absolute or "type:[ino]". */
	return target[0] == '/' || strstr(target, ":[") != NULL;
}

static int
ws__slow(struct ws_ctx *ws, struct ws_res *res, unsigned flags)
{
	struct ws__walk w = {.ws = ws, .res = res, .flags = flags,
			     .cur = -1, .parent = -1};
	int rc = 0, fd = -1;

	w.anchor = res->anchor;
	w.cur = ws_ctx_anchor_fd(ws, w.anchor);
	if (w.cur < 0)
		return ws_error_errno(errno, "/", "open");
	w.rest = strdup(res->rel);
	if (w.rest == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");

	for (;;) {
		const char *s = w.rest + w.pos, *e;
		char name[WS_NAME_MAX + 1];
		size_t n;
		bool last, follow;
		struct stat st;

		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		e = strchrnul(s, '/');
		n = (size_t)(e - s);
		w.pos = (size_t)(e - w.rest);
		{
			const char *t = e;

			while (*t == '/')
				t++;
			last = *t == '\0';
		}
		if (n > WS_NAME_MAX) {
			rc = ws_error_set(WS_EINVALID_PATH, NULL,
					  "a path component is longer than %d bytes",
					  WS_NAME_MAX);
			goto out;
		}
		memcpy(name, s, n);
		name[n] = '\0';
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			rc = ws__walk_up(&w);
			if (rc < 0)
				goto out;
			continue;
		}
		follow = !last || !(flags & WS_R_NOFOLLOW) || res->must_dir;
		fd = openat(w.cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && (flags & WS_R_MISSING_OK)) {
			const char *miss = s;

			if (ws_path_has_dotdot(miss)) {
				rc = ws_error_set(WS_ENOT_FOUND, NULL,
						  "%s does not exist", name);
				goto out;
			}
			res->exists = false;
			rc = ws_path_normalize(miss, 0, &res->missing);
			if (rc < 0)
				goto out;
			STEP(res, flags, "missing", "\"%s\" does not exist yet",
			     res->missing);
			ws__step_real(&w, res->missing);
			break;
		}
		if (fd < 0) {
			int err = errno;

			rc = ws_error_errno(err, NULL, name);
			if (err == ENOENT)
				ws_error_set(WS_ENOT_FOUND, NULL,
					     "no such file or directory");
			goto out;
		}
		if (fstat(fd, &st) < 0) {
			rc = ws_error_errno(errno, NULL, "fstat");
			goto out;
		}
		if (S_ISLNK(st.st_mode) && follow) {
			char target[PATH_MAX + 1];
			ssize_t tl;

			if (++res->hops > WS__MAX_HOPS) {
				rc = ws_error_set(WS_ESYMLINK_LOOP, NULL,
						  "more than %d symlinks (a loop?)",
						  WS__MAX_HOPS);
				goto out;
			}
			tl = readlinkat(fd, "", target, sizeof(target) - 1);
			if (tl < 0) {
				rc = ws_error_errno(errno, NULL, "readlink");
				goto out;
			}
			target[tl] = '\0';
			close(fd);
			fd = -1;
			if (ws__magic_link(w.cur, target)) {
				rc = ws_error_set(WS_ESYMLINK_OUTSIDE_WORKSPACE, NULL,
						  "%s is a /proc magic link", name);
				goto out;
			}
			if (tl == 0) {
				rc = ws_error_set(WS_ENOT_FOUND, NULL,
						  "%s is an empty symlink", name);
				goto out;
			}
			snprintf(w.last_link, sizeof(w.last_link), "%s -> %s",
				 name, target);
			STEP(res, flags, "symlink", "%s -> %s (%s)", name, target,
			     target[0] == '/' ? "absolute" : "relative, spliced in");
			ws__step_real(&w, name);
			if (target[0] == '/') {
				rc = ws__reanchor(&w, target, "absolute symlink");
			} else {
				rc = ws__splice(&w, target);
			}
			if (rc < 0) {
				if (rc == WS_ESYMLINK_OUTSIDE_WORKSPACE)
					ws_error_set(rc, NULL,
						     "symlink %s -> %s leads outside the workspace",
						     name, target);
				goto out;
			}
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			char **nn;

			if (w.depth == w.cap) {
				struct ws__id *ni;

				w.cap = w.cap ? w.cap * 2 : 16;
				nn = realloc(w.names, w.cap * sizeof(*nn));
				if (nn != NULL)
					w.names = nn;
				ni = realloc(w.ids, (w.cap + 1) * sizeof(*ni));
				if (ni != NULL)
					w.ids = ni;
				if (nn == NULL || ni == NULL) {
					rc = ws_error_set(WS_ENOMEM, NULL,
							  "out of memory");
					goto out;
				}
			}
			w.names[w.depth] = strdup(name);
			if (w.names[w.depth] == NULL) {
				rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
				goto out;
			}
			w.depth++;
			w.ids[w.depth].dev = st.st_dev;
			w.ids[w.depth].ino = st.st_ino;
			ws__close(&w, &w.parent);
			w.parent = w.cur;
			w.cur = fd;
			fd = -1;
			STEP(res, flags, "walk", "%s: directory", name);
			ws__step_real(&w, NULL);
			continue;
		}
		/* A file, a kept symlink, or another non-directory. */
		if (!last) {
			rc = ws_error_set(WS_ENOT_A_DIRECTORY, NULL,
					  "%s is not a directory", name);
			goto out;
		}
		STEP(res, flags, "walk", "%s: %s", name,
		     S_ISLNK(st.st_mode) ? "symlink (not followed)" :
		     S_ISREG(st.st_mode) ? "file" : "special file");
		ws__step_real(&w, name);
		res->exists = true;
		res->fd = fd;
		fd = -1;
		res->st = st;
		res->name = strdup(name);
		res->dirfd = w.cur;
		res->own_dirfd = !ws__is_anchor_fd(&w, w.cur);
		w.cur = -1;
		goto done;
	}
	if (res->missing != NULL) {
		/* The name to create is the last missing component. */
		const char *sl = strrchr(res->missing, '/');

		res->name = strdup(sl ? sl + 1 : res->missing);
		res->dirfd = w.cur;
		res->own_dirfd = !ws__is_anchor_fd(&w, w.cur);
		w.cur = -1;
		goto done;
	}
	/* The walk ended on a directory: w.cur itself. */
	res->exists = true;
	if (fstat(w.cur, &res->st) < 0) {
		rc = ws_error_errno(errno, NULL, "fstat");
		goto out;
	}
	if (w.depth == 0) {
		res->fd = openat(w.cur, ".", O_PATH | O_CLOEXEC);
		res->dirfd = w.cur;
		res->own_dirfd = false;
		res->name = strdup(".");
		w.cur = -1;
	} else {
		int up;

		rc = ws__open_parent(&w, &up);
		if (rc < 0)
			goto out;
		if (up == w.parent)
			w.parent = -1;
		res->fd = w.cur;
		res->dirfd = up;
		res->own_dirfd = !ws__is_anchor_fd(&w, up);
		res->name = strdup(w.names[w.depth - 1]);
		w.cur = -1;
		w.parent = -1;
	}
	if (res->fd < 0) {
		rc = ws_error_errno(errno, NULL, "open");
		goto out;
	}
done:
	if (res->name == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	{
		/* Real path: the directories walked, then what is below. */
		char *dir;
		const char *tail;

		/* For a directory object the walked names already end in it. */
		dir = ws__cur_real(&w);
		if (dir == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			goto out;
		}
		if (res->missing)
			tail = res->missing;
		else if (res->exists && (!S_ISDIR(res->st.st_mode) ||
					 S_ISLNK(res->st.st_mode)))
			tail = res->name;
		else
			tail = "";
		res->real = ws_path_join(dir, tail);
		free(dir);
		if (res->real == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			goto out;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	ws__walk_free(&w);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Physical stage: the openat2 fast path                               */

/* Set once the kernel says ENOSYS; atomic, as calls run side by side. */
static atomic_int ws__no_openat2;

/* Returns 0 done, 1 to fall back to the slow walk, or a negative error. */
static int
ws__fast(struct ws_ctx *ws, struct ws_res *res, unsigned flags)
{
	int afd = ws_ctx_anchor_fd(ws, res->anchor);
	const char *rel = res->rel, *slash;
	char *parent = NULL, *real = NULL, *name = NULL;
	int dirfd, fd = -1;
	struct stat st;

	if (atomic_load_explicit(&ws__no_openat2, memory_order_relaxed) ||
	    (flags & (WS_R_TRACE | WS_R_SLOW)) || res->anchor == WS_ANCHOR_HOST ||
	    rel[0] == '\0')
		return 1;
	slash = strrchr(rel, '/');
	if (slash == NULL) {
		dirfd = afd;
	} else {
		struct open_how how = {
			.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
		};
		int tries = 0;

		parent = strndup(rel, (size_t)(slash - rel));
		if (parent == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		for (;;) {
			dirfd = (int)syscall(SYS_openat2, afd, parent, &how,
					     sizeof(how));
			if (dirfd >= 0 || errno != EAGAIN)
				break;
			/* Renames elsewhere keep disturbing "..": let the
			 * walker, which needs no retry, do it. */
			if (++tries >= WS__EAGAIN_TRIES)
				break;
		}
		if (dirfd < 0) {
			if (errno == ENOSYS)
				atomic_store_explicit(&ws__no_openat2, 1,
						      memory_order_relaxed);
			free(parent);
			return 1;
		}
		rel = slash + 1;
	}
	fd = openat(dirfd, rel, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 ||
	    (S_ISLNK(st.st_mode) &&
	     (!(flags & WS_R_NOFOLLOW) || res->must_dir))) {
		/* Missing, or a symlink to follow: let the walker explain. */
		if (fd >= 0)
			close(fd);
		if (dirfd != afd)
			close(dirfd);
		free(parent);
		return 1;
	}
	/*
	 * The real path: the anchor's when the parent is the anchor, else ask
	 * the kernel where the parent is (it may sit behind symlinks).  If
	 * that fails (no /proc, a path over PATH_MAX), the walker knows.
	 */
	if (dirfd == afd) {
		real = ws_path_join(ws_ctx_anchor_real(ws, res->anchor), rel);
	} else {
		char proc[64], buf[PATH_MAX];
		ssize_t n;

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dirfd);
		n = readlink(proc, buf, sizeof(buf) - 1);
		if (n > 0 && n < (ssize_t)sizeof(buf) - 1 && buf[0] == '/') {
			buf[n] = '\0';
			real = ws_path_join(buf, rel);
		}
	}
	name = strdup(rel);
	free(parent);
	if (real == NULL || name == NULL) {
		free(real);
		free(name);
		close(fd);
		if (dirfd != afd)
			close(dirfd);
		return 1;
	}
	res->exists = true;
	res->fd = fd;
	res->st = st;
	res->dirfd = dirfd;
	res->own_dirfd = dirfd != afd;
	res->name = name;
	res->real = real;
	return 0;
}

/*
 * For a NOT_FOUND (rc) of input: where it would be, and whether the
 * policy lets the caller stat that.  Returns the policy's refusal, or rc
 * with its message as it was.  Never prompts: nothing is there to
 * approve.
 */
static int
ws__deny_missing(struct ws_ctx *ws, const char *input, unsigned flags, int rc)
{
	struct ws_res m;
	char *msg = strdup(ws_error_last());
	bool np = ws->no_prompt;
	int c;

	if (msg == NULL)
		return rc;
	c = ws_resolve(ws, input, (flags & (WS_R_NOFOLLOW | WS_R_SLOW)) |
				  WS_R_MISSING_OK | WS_R__NO_DENY_CHECK, &m);
	if (c == 0) {
		ws->no_prompt = true;
		c = ws_check(ws, WS_OP_STAT, m.real, input);
		ws->no_prompt = np;
		ws_res_free(&m);
		if (c < 0) {
			free(msg);
			return c;
		}
	}
	ws_error_set(rc, NULL, "%s", msg);
	free(msg);
	return rc;
}

/*
 * For a NOT_FOUND of a relative input on a person's command line: the
 * path is the workspace root's, but a shell user in <root>/src who says
 * "main.c" means src/main.c.  When the current directory is below the
 * root and the name exists there (resolved as any input is, inside the
 * boundary, and visible under the policy), the hint says what to write.
 * The error stays as it was otherwise.
 */
static void
ws__cwd_hint(struct ws_ctx *ws, const char *input, unsigned flags)
{
	const char *root = ws->anchors[0].real, *below;
	char cwd[PATH_MAX], *msg, *path, *alt = NULL;
	size_t rl = strlen(root);
	struct ws_res m;
	bool np = ws->no_prompt, found = false;
	int code = ws_error_last_code();

	if (ws_error_last_hint() != NULL || getcwd(cwd, sizeof(cwd)) == NULL)
		return;
	if (rl == 1)
		below = cwd + 1;
	else if (strncmp(cwd, root, rl) == 0 && cwd[rl] == '/')
		below = cwd + rl + 1;
	else
		return;
	if (*below == '\0' || asprintf(&alt, "%s/%s", below, input) < 0)
		return;
	msg = strdup(ws_error_last());
	path = ws_error_last_path() ? strdup(ws_error_last_path()) : NULL;
	if (msg == NULL)
		goto out;
	if (ws_resolve(ws, alt, (flags & (WS_R_NOFOLLOW | WS_R_SLOW)) |
			       WS_R__NO_DENY_CHECK, &m) == 0) {
		ws->no_prompt = true;
		found = m.exists && ws_check(ws, WS_OP_STAT, m.real, m.vpath) == 0;
		ws->no_prompt = np;
		ws_res_free(&m);
	}
	ws_error_set(code, path, "%s", msg);
	if (found)
		ws_error_set_hint("relative paths start at the workspace root, "
				  "not at the current directory /%s: say %s",
				  below, alt);
out:
	free(msg);
	free(path);
	free(alt);
}

/*
 * Optimal string alignment distance of a and b, or 2 when it is above 1:
 * one insertion, deletion, substitution or swap of two neighbours (the
 * usual typos: "mian.c" for "main.c") is 1.
 */
static int
ws__one_edit(const char *a, size_t la, const char *b, size_t lb)
{
	size_t i = 0;

	if (la > lb + 1 || lb > la + 1)
		return 2;
	while (i < la && i < lb && a[i] == b[i])
		i++;
	if (i == la && i == lb)
		return 0;
	if (la == lb) {
		/* Substitution, or a swap of i and i + 1. */
		if (strcmp(a + i + 1, b + i + 1) == 0)
			return 1;
		return i + 1 < la && a[i] == b[i + 1] && a[i + 1] == b[i] &&
		       strcmp(a + i + 2, b + i + 2) == 0 ? 1 : 2;
	}
	/* One byte more on one side: skip it there. */
	return strcmp(la > lb ? a + i + 1 : a + i, la > lb ? b + i : b + i + 1) == 0 ?
	       1 : 2;
}

/* Whether s holds a control byte (C0 or DEL). */
static bool
ws__has_ctl(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* Entries of a directory read for the hint, at most: a typo's hint is not
 * worth a long read of a huge directory on the error path. */
#define WS__HINT_SCAN 4096
#define WS__HINT_MAX 3

/*
 * For a NOT_FOUND of a tool's call: when the first missing name is one
 * edit away from names in the last directory that exists, the hint names
 * the input with that name instead ("did you mean src/main.c?").  Each
 * candidate is resolved as an input is (inside the boundary) and must be
 * visible under the policy, so a hint names nothing the caller could not
 * list.  The error stays as it was; over is for a hint already there that
 * a suggestion replaces (the shorthand's "/src/mian.c means the
 * workspace's src/mian.c" says less than "did you mean /src/main.c?").
 */
static void
ws__name_hint(struct ws_ctx *ws, const char *input, unsigned flags, bool over)
{
	char *msg, *path, *hint = NULL, *want = NULL, *head = NULL, *tail, *sug[WS__HINT_MAX];
	const char *miss;
	size_t in_len = strlen(input), ml, wl, hl, nsug = 0, seen = 0, i;
	struct ws_res m;
	struct dirent *d;
	DIR *dir = NULL;
	bool np = ws->no_prompt;
	int code = ws_error_last_code(), fd;

	if (ws_error_last_hint() != NULL && !over)
		return;
	msg = strdup(ws_error_last());
	path = ws_error_last_path() ? strdup(ws_error_last_path()) : NULL;
	if (ws_error_last_hint() != NULL &&
	    (hint = strdup(ws_error_last_hint())) == NULL)
		goto out;
	if (msg == NULL)
		goto out;
	flags = (flags & (WS_R_NOFOLLOW | WS_R_SLOW)) | WS_R__NO_DENY_CHECK;
	if (ws_resolve(ws, input, flags | WS_R_MISSING_OK, &m) < 0)
		goto restore;
	miss = m.missing;
	/* The input as written must end with the missing part to be rewritten. */
	while (in_len > 1 && input[in_len - 1] == '/')
		in_len--;
	ml = miss != NULL ? strlen(miss) : 0;
	while (ml > 0 && miss[ml - 1] == '/')
		ml--;
	wl = miss != NULL ? strcspn(miss, "/") : 0;
	if (m.exists || ml == 0 || ml > in_len || wl < 3 ||
	    memcmp(input + in_len - ml, miss, ml) != 0 ||
	    (in_len > ml && input[in_len - ml - 1] != '/') ||
	    (want = strndup(miss, wl)) == NULL ||
	    (head = strndup(input, in_len - ml)) == NULL) {
		ws_res_free(&m);
		goto restore;
	}
	tail = strdup(input + in_len - ml + wl);
	fd = openat(m.dirfd, ".", O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	ws_res_free(&m);
	if (tail == NULL || fd < 0 || (dir = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		free(tail);
		goto restore;
	}
	hl = strlen(head);
	while (nsug < WS__HINT_MAX && seen++ < WS__HINT_SCAN &&
	       (d = readdir(dir)) != NULL) {
		char *cand;
		bool ok = false;

		size_t dl = strlen(d->d_name);

		/* A name with control bytes or not UTF-8 is not shown in a
		 * hint, which goes to a terminal and into JSON as it is. */
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0 ||
		    ws__one_edit(want, wl, d->d_name, dl) != 1 ||
		    !ws_utf8_valid(d->d_name, dl) || ws__has_ctl(d->d_name))
			continue;
		if (asprintf(&cand, "%.*s%s%s", (int)hl, head, d->d_name, tail) < 0)
			break;
		if (ws_resolve(ws, cand, flags, &m) == 0) {
			ws->no_prompt = true;
			ok = m.exists && ws_check(ws, WS_OP_STAT, m.real, m.vpath) == 0;
			ws->no_prompt = np;
			ws_res_free(&m);
		}
		if (ok)
			sug[nsug++] = cand;
		else
			free(cand);
	}
	closedir(dir);
	free(tail);
restore:
	ws_error_set(code, path, "%s", msg);
	if (nsug == 1)
		ws_error_set_hint("did you mean %s?", sug[0]);
	else if (nsug == 2)
		ws_error_set_hint("did you mean %s or %s?", sug[0], sug[1]);
	else if (nsug > 2)
		ws_error_set_hint("did you mean %s, %s or %s?", sug[0], sug[1],
				  sug[2]);
	else if (hint != NULL)
		ws_error_set_hint("%s", hint);
	for (i = 0; i < nsug; i++)
		free(sug[i]);
out:
	free(msg);
	free(path);
	free(hint);
	free(want);
	free(head);
}

void
ws_resolve_name_hint(struct ws_ctx *ws, const char *input)
{
	const char *h = ws_error_last_hint();
	char *in, *shorthand = NULL;
	bool over = false;

	if (!ws->name_hint || ws_error_last_code() != WS_ENOT_FOUND ||
	    (in = strdup(input)) == NULL)
		return;
	/* The shorthand's hint ("/src/mian.c" means the workspace's
	 * src/mian.c) says less than a name found one edit away. */
	if (h != NULL && in[0] == '/' &&
	    asprintf(&shorthand, "\"%s\" means the workspace's ", in) >= 0)
		over = strncmp(h, shorthand, strlen(shorthand)) == 0;
	ws__name_hint(ws, in, 0, over);
	free(shorthand);
	free(in);
}

/* U+FFFD REPLACEMENT CHARACTER in UTF-8. */
#define WS__U_FFFD "\xef\xbf\xbd"

/*
 * A NOT_FOUND path holding U+FFFD is, nearly always, a name a listing gave
 * with its bytes that are not UTF-8 replaced (ftu11 10): JSON carries the
 * real ones in name_bytes/path_bytes, but a path argument (a JSON string)
 * cannot, so the file tools cannot name it.  The hint says so and what
 * reaches it: a command, with a glob where U+FFFD stood.  over: it
 * replaces the shorthand's hint, as ws__name_hint()'s does.
 */
static void
ws__fffd_hint(const char *input, bool over)
{
	char *glob, *o;
	const char *i;

	if ((ws_error_last_hint() != NULL && !over) ||
	    (glob = malloc(strlen(input) + 1)) == NULL)
		return;
	for (i = input, o = glob; *i != '\0';) {
		if (strncmp(i, WS__U_FFFD, 3) == 0) {
			/* One "*" for a run of them: one name's bad bytes. */
			if (o == glob || o[-1] != '*')
				*o++ = '*';
			i += 3;
		} else {
			*o++ = *i++;
		}
	}
	*o = '\0';
	ws_error_set_hint("U+FFFD in a listed name stands for bytes that are not "
			  "UTF-8 (name_bytes or path_bytes hold them, base64), "
			  "and a path argument cannot carry them: reach the file "
			  "with run_command (wsrun), naming it with a glob such "
			  "as %s", glob);
	free(glob);
}

/*
 * Whether the first component of the absolute input names an entry at
 * the workspace's root: "/src/nosuch.c" where src/ is there is a plain
 * NOT_FOUND, not the "files outside cannot be reached" hint, which fits
 * "/etc/passwd" (ftu12 16).  One fstatat(), on the error path only.
 */
static bool
ws__top_exists(const struct ws_ctx *ws, const char *input)
{
	char name[NAME_MAX + 1];
	struct stat st;
	size_t n;

	/* In a mount: its prefix is there. */
	for (size_t a = 1; a < ws->nanchors; a++)
		if (ws_path_within(ws->anchors[a].vprefix, input, NULL))
			return true;
	while (*input == '/')
		input++;
	n = strcspn(input, "/");
	if (n == 0 || n > NAME_MAX || input[n] == '\0')
		return false;
	memcpy(name, input, n);
	name[n] = '\0';
	return fstatat(ws->anchors[0].fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int
ws_resolve(struct ws_ctx *ws, const char *input, unsigned flags,
	   struct ws_res *res)
{
	int rc;

	memset(res, 0, sizeof(*res));
	res->fd = -1;
	res->dirfd = -1;
	rc = ws__lex(ws, input, flags, res);
	if (rc < 0)
		goto fail;
	rc = ws__fast(ws, res, flags);
	if (rc == 1) {
		/* Keep the lexical result; drop anything the fast path set. */
		if (res->fd >= 0)
			close(res->fd);
		if (res->own_dirfd && res->dirfd >= 0)
			close(res->dirfd);
		res->fd = res->dirfd = -1;
		res->own_dirfd = false;
		res->exists = false;
		res->hops = 0;
		rc = ws__slow(ws, res, flags);
	}
	if (rc < 0)
		goto fail;
	if (res->exists && res->must_dir && !S_ISDIR(res->st.st_mode)) {
		rc = ws_error_set(WS_ENOT_A_DIRECTORY, input,
				  "is not a directory");
		goto fail;
	}
	res->final_anchor = ws_ctx_anchor_of_real(ws, res->real, NULL);
	if (res->final_anchor < 0) {
		if (!(ws->flags & WS_ALLOW_OUTSIDE)) {
			/* Cannot happen by construction; fail closed if it does. */
			rc = ws_error_set(WS_EPATH_OUTSIDE_WORKSPACE, input,
					  "resolves outside the workspace");
			goto fail;
		}
		res->final_anchor = WS_ANCHOR_HOST;
	}
	/*
	 * In a changing call, the directory a change would land in is
	 * held against a command whose top is it or above it (one another
	 * server runs in a nested workspace; review30 01): on the
	 * descriptor the change acts on, so whatever the spelling.
	 */
	if (ws->runs_on && (rc = ws_ctx_hold_dir(ws, res->dirfd)) < 0)
		goto fail;
	STEP(res, flags, "real", "%s%s", res->real,
	     res->exists ? "" : " (does not exist yet)");
	if ((flags & WS_R_TRACE) && res->nsteps > 0)
		res->steps[res->nsteps - 1].real = strdup(res->real);
	return 0;
fail:
	/*
	 * A path the policy would not let the caller see is POLICY_DENIED
	 * whether or not it exists: NOT_FOUND for a denied path would tell
	 * an agent that it does not exist.
	 */
	if (rc == WS_ENOT_FOUND && ws->policy != NULL &&
	    !(flags & WS_R__NO_DENY_CHECK))
		rc = ws__deny_missing(ws, input, flags, rc);
	if (rc == WS_ENOT_FOUND && res->form != NULL &&
	    strcmp(res->form, "shorthand") == 0 && !ws__top_exists(ws, input)) {
		/*
		 * "/etc/hostname" was read as <root>/etc/hostname: say so,
		 * or the caller concludes that the host file is missing.
		 */
		ws_error_set(rc, input, "not found in the workspace (absolute "
			     "paths are relative to the workspace root)");
		ws_error_set_hint("\"%s\" means the workspace's %s; files "
				  "outside the workspace cannot be reached: "
				  "list \"/\" to see what the workspace holds",
				  input, input[0] == '/' ? input + 1 : input);
	} else {
		/* Name the path as the user wrote it, keep the message. */
		ws_error_set_path(input);
	}
	if (rc == WS_ENOT_FOUND && ws->cwd_hint && res->form != NULL &&
	    strcmp(res->form, "relative") == 0 &&
	    !(flags & WS_R__NO_DENY_CHECK))
		ws__cwd_hint(ws, input, flags);
	if (rc == WS_ENOT_FOUND && ws->name_hint &&
	    !(flags & (WS_R__NO_DENY_CHECK | WS_R_TRACE)) &&
	    strstr(input, WS__U_FFFD) != NULL)
		ws__fffd_hint(input, res->form != NULL &&
			      strcmp(res->form, "shorthand") == 0);

	if (flags & WS_R_TRACE) {
		/* Keep the steps for --explain; free the rest. */
		struct ws_step *steps = res->steps;
		size_t n = res->nsteps;

		res->steps = NULL;
		res->nsteps = 0;
		ws_res_free(res);
		res->steps = steps;
		res->nsteps = n;
	} else {
		ws_res_free(res);
	}
	return rc;
}

/*
 * Kernel pseudo-filesystems, by statfs f_type (linux/magic.h; the numbers
 * are spelled out so that an older header does not drop one).  Their
 * "regular" files are kernel interfaces, not data: /proc/kmsg blocks
 * reading, tracefs trace_pipe waits for events, sysfs and debugfs
 * attributes act when written, efivarfs writes firmware variables.
 */
static const struct {
	uint32_t magic;
	const char *name;
} ws__pseudo_fs[] = {
	{0x9fa0, "procfs"},		/* PROC_SUPER_MAGIC */
	{0x62656572, "sysfs"},		/* SYSFS_MAGIC */
	{0x64626720, "debugfs"},	/* DEBUGFS_MAGIC */
	{0x74726163, "tracefs"},	/* TRACEFS_MAGIC */
	{0x73636673, "securityfs"},	/* SECURITYFS_MAGIC */
	{0x27e0eb, "cgroupfs"},		/* CGROUP_SUPER_MAGIC */
	{0x63677270, "cgroup2fs"},	/* CGROUP2_SUPER_MAGIC */
	{0x62656570, "configfs"},	/* CONFIGFS_MAGIC */
	{0x6165676c, "pstore"},		/* PSTOREFS_MAGIC */
	{0xcafe4a11, "bpffs"},		/* BPF_FS_MAGIC */
	{0xde5e81e4, "efivarfs"},	/* EFIVARFS_MAGIC */
	{0x65735543, "fusectl"},	/* FUSE_CTL_SUPER_MAGIC */
	{0xf97cff8c, "selinuxfs"},	/* SELINUX_MAGIC */
	{0x43415d53, "smackfs"},	/* SMACK_MAGIC */
	{0x42494e4d, "binfmt_misc"},	/* BINFMTFS_MAGIC */
	{0x7655821, "resctrl"},		/* RDTGROUP_SUPER_MAGIC */
	{0x6e736673, "nsfs"},		/* NSFS_MAGIC */
	{0x09041934, "anon_inodefs"},	/* ANON_INODE_FS_MAGIC */
	{0x1cd1, "devpts"},		/* DEVPTS_SUPER_MAGIC */
	{0x9fa2, "usbdevfs"},		/* USBDEVICE_SUPER_MAGIC */
};

const char *
ws_fs_pseudo_name(unsigned long f_type)
{
	/* Magic numbers are 32 bits; f_type may come sign-extended. */
	uint32_t t = (uint32_t)f_type;

	for (size_t i = 0; i < sizeof(ws__pseudo_fs) / sizeof(ws__pseudo_fs[0]);
	     i++)
		if (ws__pseudo_fs[i].magic == t)
			return ws__pseudo_fs[i].name;
	return NULL;
}

int
ws_fd_check_fs(int fd)
{
	struct statfs sf;
	const char *name;

	if (fstatfs(fd, &sf) < 0)
		return ws_error_errno(errno, NULL, "statfs");
	name = ws_fs_pseudo_name((unsigned long)sf.f_type);
	if (name != NULL)
		return ws_error_set(WS_ENOT_A_REGULAR_FILE, NULL,
				    "is not a regular file (it is on %s, a kernel "
				    "pseudo-filesystem whose files are interfaces, "
				    "not data)", name);
	return 0;
}

int
ws_res_open(const struct ws_res *res, int oflags, int *fd_out)
{
	struct stat st;

	return ws__res_open_st(res, oflags, fd_out, &st);
}

int
ws__res_open_st(const struct ws_res *res, int oflags, int *fd_out,
		struct stat *stp)
{
	struct stat st;
	bool trunc = oflags & O_TRUNC;
	int fd;

	*fd_out = -1;
	/* Creation has its own call; truncation waits for the inode check. */
	if (oflags & (O_CREAT | O_EXCL))
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "ws_res_open cannot create (use ws_res_create_file)");
	oflags &= ~O_TRUNC;
	if (!res->exists)
		return ws_error_set(WS_ENOT_FOUND, NULL, "no such file or directory");
	if (oflags & O_DIRECTORY) {
		if (!S_ISDIR(res->st.st_mode))
			return ws_error_set(WS_ENOT_A_DIRECTORY, NULL,
					    "is not a directory");
	} else if (S_ISDIR(res->st.st_mode)) {
		ws_error_set(WS_EIS_A_DIRECTORY, NULL, "is a directory");
		/* Nearly every error has one (ftu13 14). */
		ws_error_set_hint("a directory is listed, not read: wsls "
				  "(list_directory) shows what it holds");
		return WS_EIS_A_DIRECTORY;
	} else if (!S_ISREG(res->st.st_mode)) {
		return ws_error_set(WS_ENOT_A_REGULAR_FILE, NULL,
				    "is not a regular file (%s)",
				    S_ISLNK(res->st.st_mode) ? "a symlink" :
				    S_ISFIFO(res->st.st_mode) ? "a FIFO" :
				    S_ISSOCK(res->st.st_mode) ? "a socket" :
				    "a device");
	}
	/*
	 * A file of a kernel pseudo-filesystem is refused before it is even
	 * opened (opening some has effects).  One fstatfs() on the O_PATH
	 * descriptor; the device check after the open below makes sure the
	 * object opened is on the filesystem checked here.
	 */
	if (!(oflags & O_DIRECTORY)) {
		int rc = ws_fd_check_fs(res->fd);

		if (rc < 0)
			return rc;
	}
	/*
	 * O_NONBLOCK: if the name was swapped for a FIFO since it was
	 * resolved, opening it must not hang; the inode check then refuses.
	 */
	fd = openat(res->dirfd, res->name,
		    oflags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return ws_error_errno(errno, NULL, "open");
	if (fstat(fd, &st) < 0 || st.st_dev != res->st.st_dev ||
	    st.st_ino != res->st.st_ino) {
		close(fd);
		return ws_error_set(WS_EIO_ERROR, NULL,
				    "changed while it was being opened");
	}
	if (trunc && ftruncate(fd, 0) < 0) {
		int e = errno;

		close(fd);
		return ws_error_errno(e, NULL, "truncate");
	}
	/*
	 * Reads of a regular file ignore O_NONBLOCK (wsgrep reads with it
	 * set), and so do a directory's getdents(): two system calls a call
	 * saved.  Anything else, or opened for writing, gets it cleared, so
	 * that its reads and writes behave.
	 */
	if (!(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) ||
	    (oflags & O_ACCMODE) != O_RDONLY)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	/* A truncated file's size changed after the fstat() above. */
	if (trunc)
		st.st_size = 0;
	*stp = st;
	*fd_out = fd;
	return 0;
}

int
ws_res_check_writable(const struct ws_ctx *ws, const struct ws_res *res)
{
	/* Asked through a read-only mount: refused wherever it leads. */
	if (res->anchor > 0 && ws->anchors[res->anchor].ro)
		return ws_error_set(WS_EREAD_ONLY, NULL,
				    "is in the read-only mount %s",
				    ws->anchors[res->anchor].vprefix);
	if (res->final_anchor > 0 && ws->anchors[res->final_anchor].ro)
		return ws_error_set(WS_EREAD_ONLY, NULL,
				    "is in the read-only mount %s",
				    ws->anchors[res->final_anchor].vprefix);
	return 0;
}

int
ws_res_make_parents(struct ws_res *res, bool parents, mode_t mode)
{
	char *m, *save = NULL, *tok;
	unsigned levels = 0, k = 0;
	int rc = 0;

	if (res->exists || res->missing == NULL)
		return 0;
	if (strchr(res->missing, '/') == NULL)
		return 0; /* only the name itself is missing */
	if (!parents) {
		return ws_error_set(WS_ENOT_FOUND, NULL,
				    "parent directory does not exist (and parents were not asked for)");
	}
	m = strdup(res->missing);
	if (m == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	*strrchr(m, '/') = '\0';
	for (const char *c = m; *c != '\0'; c++)
		levels += *c == '/' && c[1] != '/' && c[1] != '\0';
	levels++;
	/*
	 * The levels count up from the name in the virtual path: only
	 * when that path ends in the missing part (not when a link on the
	 * way leads elsewhere) are they the made directories' names.
	 */
	{
		size_t vl = res->vpath != NULL ? strlen(res->vpath) : 0;
		size_t ml = strlen(res->missing);

		if (vl <= ml || res->vpath[vl - ml - 1] != '/' ||
		    strcmp(res->vpath + vl - ml, res->missing) != 0)
			levels = 0;
	}
	free(res->made);
	res->made = calloc(levels + 1, sizeof(*res->made));
	res->nmade = 0;
	if (res->made == NULL) {
		free(m);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	for (tok = strtok_r(m, "/", &save); tok; tok = strtok_r(NULL, "/", &save), k++) {
		bool made = mkdirat(res->dirfd, tok, mode) == 0;
		struct stat st;
		int fd;

		if (!made && errno != EEXIST) {
			rc = ws_error_errno(errno, NULL, "mkdir");
			goto out;
		}
		/* Whatever now has that name must be a real directory. */
		fd = openat(res->dirfd, tok, O_PATH | O_NOFOLLOW | O_DIRECTORY |
					     O_CLOEXEC);
		if (fd < 0) {
			rc = ws_error_set(errno == ENOTDIR || errno == ELOOP ?
					  WS_ENOT_A_DIRECTORY : ws_error_from_errno(errno),
					  NULL, "%s is not a directory we created", tok);
			goto out;
		}
		/*
		 * Which directory this call made, from the descriptor held:
		 * an undo takes it away only while that very one is there
		 * (the name alone could be another's by then).
		 */
		if (made && k < levels && fstat(fd, &st) == 0) {
			res->made[res->nmade].up = levels - k;
			res->made[res->nmade].dev = st.st_dev;
			res->made[res->nmade].ino = st.st_ino;
			res->nmade++;
		}
		if (res->own_dirfd)
			close(res->dirfd);
		res->dirfd = fd;
		res->own_dirfd = true;
	}
	{
		char *name = strdup(res->name);

		if (name == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			goto out;
		}
		free(res->missing);
		res->missing = name;
	}
out:
	free(m);
	return rc;
}

int
ws_res_create_file(struct ws_res *res, mode_t mode, int *fd_out)
{
	int fd;

	*fd_out = -1;
	if (res->exists)
		return ws_error_set(WS_EALREADY_EXISTS, NULL, "already exists");
	if (res->must_dir)
		return ws_error_set(WS_EINVALID_PATH, NULL,
				    "a file name cannot end in \"/\"");
	if (res->missing != NULL && strchr(res->missing, '/') != NULL)
		return ws_error_set(WS_ENOT_FOUND, NULL,
				    "parent directory does not exist");
	fd = openat(res->dirfd, res->name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return ws_error_errno(errno, NULL, "create");
	*fd_out = fd;
	return 0;
}
