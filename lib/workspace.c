/* workspace.c - the workspace root, mounts and virtual/real mapping. */
#include "ws/workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/path.h"
#include "ws/policy.h"

/* Resolve dir through symlinks and open it as an O_PATH directory. */
static int
ws__open_dir(const char *dir, const char *what, char **real, int *fd)
{
	char buf[PATH_MAX];
	struct stat st;

	if (realpath(dir, buf) == NULL)
		return ws_error_set(WS_EWORKSPACE_NOT_FOUND, dir,
				    "%s does not exist: %s", what,
				    strerror(errno));
	*fd = open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0 || fstat(*fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		int e = errno;

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return ws_error_set(WS_EWORKSPACE_NOT_FOUND, dir,
				    "%s is not a directory: %s", what,
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
	rc = ws__open_dir(root ? root : ".", "workspace", &ws->anchors[0].real,
			  &ws->anchors[0].fd);
	if (rc < 0)
		return rc;
	ws->anchors[0].vprefix = strdup("/");
	if (ws->anchors[0].vprefix == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	ws->nanchors = 1;
	ws__set_alias(ws, root);
	return 0;
}

int
ws_ctx_add_mount(struct ws_ctx *ws, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char *vp = NULL, *dir = NULL, *vnorm = NULL;
	struct ws_anchor *a;
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
	if (vp[0] != '/' || ws_path_has_dotdot(vp)) {
		rc = ws_error_set(WS_EINVALID_ARGUMENT, spec,
				  "a mount prefix must be absolute, without \"..\"");
		goto out;
	}
	rc = ws_path_normalize(vp, 0, &vnorm);
	if (rc < 0)
		goto out;
	if (strcmp(vnorm, "/") == 0) {
		rc = ws_error_set(WS_EINVALID_ARGUMENT, spec,
				  "a mount cannot replace the workspace root");
		goto out;
	}
	for (size_t i = 1; i < ws->nanchors; i++) {
		if (strcmp(ws->anchors[i].vprefix, vnorm) == 0) {
			rc = ws_error_set(WS_EINVALID_ARGUMENT, spec,
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
	rc = ws__open_dir(dir, "mount directory", &a->real, &a->fd);
	if (rc < 0)
		goto out;
	a->vprefix = vnorm;
	vnorm = NULL;
	a->ro = ro;
	ws->nanchors++;
out:
	free(vp);
	free(dir);
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

void
ws_ctx_close(struct ws_ctx *ws)
{
	/* A context that was never opened (all zero) owns nothing, not fd 0. */
	if (ws->anchors == NULL) {
		memset(ws, 0, sizeof(*ws));
		ws->host_fd = -1;
		return;
	}
	for (size_t i = 0; i < ws->nanchors; i++) {
		if (ws->anchors[i].fd >= 0)
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

		if (realpath(*cut ? cut : "/", buf) != NULL) {
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

int
ws_ctx_guard(struct ws_ctx *ws, const char *path)
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
	ws->guard[ws->nguard++] = p;
	ws->guard_canonical = false;
	return 0;
}

bool
ws_ctx_guarded(struct ws_ctx *ws, const char *real, bool ancestors)
{
	/* Resolved once, when something first wants to change a file. */
	if (!ws->guard_canonical) {
		for (size_t i = 0; i < ws->nguard; i++) {
			char *c = NULL;

			if (ws_canonical_path(ws->guard[i], &c) == 0) {
				free(ws->guard[i]);
				ws->guard[i] = c;
			}
		}
		ws->guard_canonical = true;
	}
	for (size_t i = 0; i < ws->nguard; i++) {
		if (ws_path_within(ws->guard[i], real, NULL))
			return true;
		if (ancestors && ws_path_within(real, ws->guard[i], NULL))
			return true;
	}
	return false;
}
