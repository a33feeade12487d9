/* detect.c - project and git roots, found by walking up from the workspace. */
#include "ws/detect.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ws/error.h"

const char *const ws_detect_default_markers[] = {
	".git", "go.mod", "package.json", "Cargo.toml", "pyproject.toml",
};
const size_t ws_detect_ndefault_markers =
	sizeof(ws_detect_default_markers) / sizeof(ws_detect_default_markers[0]);

/* The default probe: one fstatat() that never follows a final symlink. */
int
ws_detect_probe_stat(const char *dir, const char *marker, void *arg)
{
	char p[PATH_MAX];
	struct stat st;
	int n;

	(void)arg;
	n = snprintf(p, sizeof(p), "%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
		     marker);
	if (n < 0 || (size_t)n >= sizeof(p))
		return 0;
	if (fstatat(AT_FDCWD, p, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		/* A FIFO or device named like a marker is no project. */
		return S_ISDIR(st.st_mode) || S_ISREG(st.st_mode) ||
		       S_ISLNK(st.st_mode);
	}
	if (errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG)
		return 0;
	/* EACCES and the like: the directory cannot be examined. */
	return -1;
}

void
ws_roots_free(struct ws_roots *roots)
{
	free(roots->workspace);
	free(roots->project_root);
	free(roots->git_root);
	free(roots->marker);
	free(roots->stopped_at);
	memset(roots, 0, sizeof(*roots));
}

static int
ws__resolve_dir(const char *dir, int code, const char *what, char **out)
{
	char buf[PATH_MAX];
	struct stat st;

	if (realpath(dir, buf) == NULL || stat(buf, &st) < 0)
		return ws_error_set(code, dir, "%s does not exist", what);
	if (!S_ISDIR(st.st_mode))
		return ws_error_set(code, dir, "%s is not a directory", what);
	*out = strdup(buf);
	if (*out == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

int
ws_detect(const char *workspace, const struct ws_detect_opts *opts,
	  struct ws_roots *roots)
{
	const char *const *markers = ws_detect_default_markers;
	size_t nmarkers = ws_detect_ndefault_markers;
	ws_detect_probe_fn probe = ws_detect_probe_stat;
	void *arg = NULL;
	char *dir = NULL;
	int rc;

	memset(roots, 0, sizeof(*roots));
	if (opts != NULL && opts->markers != NULL) {
		markers = opts->markers;
		nmarkers = opts->nmarkers;
	}
	if (opts != NULL && opts->probe != NULL) {
		probe = opts->probe;
		arg = opts->probe_arg;
	}
	/* A symlinked workspace is its target: walk the real parents. */
	rc = ws__resolve_dir(workspace, WS_EWORKSPACE_NOT_FOUND, "workspace",
			     &roots->workspace);
	if (rc < 0)
		return rc;
	roots->detected = true;
	dir = strdup(roots->workspace);
	if (dir == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	for (;;) {
		char *slash;
		bool stop = false;

		for (size_t i = 0; i < nmarkers && !stop; i++) {
			bool git = strcmp(markers[i], ".git") == 0;
			int r;

			if (git ? roots->git_root != NULL
				: roots->project_root != NULL)
				continue;
			r = probe(dir, markers[i], arg);
			if (r < 0) {
				roots->stopped_at = strdup(dir);
				if (roots->stopped_at == NULL)
					rc = ws_error_set(WS_ENOMEM, NULL,
							  "out of memory");
				stop = true;
			} else if (r > 0 && git) {
				roots->git_root = strdup(dir);
				if (roots->git_root == NULL)
					rc = ws_error_set(WS_ENOMEM, NULL,
							  "out of memory");
			} else if (r > 0) {
				roots->project_root = strdup(dir);
				roots->marker = strdup(markers[i]);
				if (!roots->project_root || !roots->marker)
					rc = ws_error_set(WS_ENOMEM, NULL,
							  "out of memory");
			}
		}
		if (rc < 0 || stop)
			break;
		/*
		 * A project does not extend beyond its repository: a stray
		 * package.json in $HOME must not make all of $HOME the project
		 * of a repository below it.  So the walk ends at the git root.
		 */
		if (roots->git_root != NULL)
			break;
		if (strcmp(dir, "/") == 0)
			break;
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (rc == 0 && roots->project_root == NULL) {
		roots->project_root = strdup(roots->git_root ? roots->git_root
							     : roots->workspace);
		if (roots->project_root == NULL)
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
out:
	free(dir);
	if (rc < 0)
		ws_roots_free(roots);
	return rc;
}

int
ws_detect_fixed(const char *workspace, const char *project_root,
		struct ws_roots *roots)
{
	int rc;

	memset(roots, 0, sizeof(*roots));
	rc = ws__resolve_dir(workspace, WS_EWORKSPACE_NOT_FOUND, "workspace",
			     &roots->workspace);
	if (rc == 0 && project_root != NULL)
		rc = ws__resolve_dir(project_root, WS_EINVALID_ARGUMENT,
				     "--project-root", &roots->project_root);
	else if (rc == 0 && (roots->project_root = strdup(roots->workspace)) == NULL)
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if (rc < 0)
		ws_roots_free(roots);
	return rc;
}
