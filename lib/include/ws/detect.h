/*
 * ws/detect.h - project-root detection (DESIGN.md section 6).
 *
 * Walking up from the (symlink-resolved) workspace, the first directory
 * holding a language marker (go.mod, package.json, Cargo.toml,
 * pyproject.toml, or the configured list) is the project root, and the
 * first holding ".git" (a directory, or a file as in a git worktree) is
 * the git root.  With no language marker the project root is the git
 * root, else the workspace.  The walk stops quietly at a directory whose
 * entries it cannot examine (the deepest accessible one is the last
 * looked at).  Only fstatat() calls: it works the same on any filesystem.
 */
#ifndef WS_DETECT_H
#define WS_DETECT_H

#include <stdbool.h>
#include <stddef.h>

/* The default markers; ".git" is the git marker, the rest are languages. */
extern const char *const ws_detect_default_markers[];
extern const size_t ws_detect_ndefault_markers;

/*
 * A marker probe: whether dir (absolute, resolved) holds marker.  Returns
 * 1 if it does, 0 if not, -1 if dir cannot be examined (the walk stops).
 * The default uses fstatat(); tests inject their own.
 */
typedef int (*ws_detect_probe_fn)(const char *dir, const char *marker,
				  void *arg);

/* The default probe: fstatat() without following a final symlink; a
 * directory, regular file or symlink counts. */
int ws_detect_probe_stat(const char *dir, const char *marker, void *arg);

struct ws_detect_opts {
	const char *const *markers; /* NULL: the default list */
	size_t nmarkers;
	ws_detect_probe_fn probe; /* NULL: fstatat() */
	void *probe_arg;
};

/* What detection found. */
struct ws_roots {
	char *workspace;    /* the resolved workspace the walk started at */
	char *project_root; /* never NULL after success */
	char *git_root;	    /* NULL: undefined (not in git) */
	char *marker;	    /* the language marker found, or NULL */
	char *stopped_at;   /* a directory the walk could not examine, or NULL */
	bool detected;	    /* false: --project-root or detection off */
};

/*
 * Detect the roots above workspace (resolved through symlinks first).
 * opts may be NULL.  Errors: WS_EWORKSPACE_NOT_FOUND ("workspace does not
 * exist"), WS_ENOMEM.
 */
int ws_detect(const char *workspace, const struct ws_detect_opts *opts,
	      struct ws_roots *roots);

/*
 * Fill roots without detection: project_root is project_root if given
 * (resolved; WS_EINVALID_ARGUMENT if it does not exist), else the
 * workspace; git_root is undefined.
 */
int ws_detect_fixed(const char *workspace, const char *project_root,
		    struct ws_roots *roots);

/* Free what ws_detect() or ws_detect_fixed() filled. */
void ws_roots_free(struct ws_roots *roots);

#endif
