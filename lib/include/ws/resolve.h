/*
 * ws/resolve.h - resolving a requested path to file descriptors.
 *
 * ws_resolve() applies the input forms and lexical rules of DESIGN.md
 * section 3, then walks the filesystem from the held descriptor of the
 * right anchor (root or mount).  It never checks a string and opens it
 * again: the result carries an O_PATH descriptor of the object and of its
 * directory, and every later read, write or listing goes through them.
 */
#ifndef WS_RESOLVE_H
#define WS_RESOLVE_H

#include <stdbool.h>
#include <sys/stat.h>

#include "ws/workspace.h"

/* Flags for ws_resolve(). */
enum {
	WS_R_NOFOLLOW = 1 << 0,	  /* keep a symlink at the last component */
	WS_R_MISSING_OK = 1 << 1, /* the tail may not exist yet (writes) */
	WS_R_TRACE = 1 << 2,	  /* record every step for --explain */
	WS_R_SLOW = 1 << 3,	  /* skip the openat2 fast path (tests) */
	/* Internal: a NOT_FOUND is not put to the policy again. */
	WS_R__NO_DENY_CHECK = 1 << 8,
};

/* One step of a resolution, recorded with WS_R_TRACE. */
struct ws_step {
	const char *kind; /* "input", "form", "normalize", "mount", ... */
	char *text;
	char *real; /* the real path the step shows ("walk", "symlink",
		       "missing", "real"), or NULL for a lexical step */
};

/* A directory ws_res_make_parents() made: how far above the name, and
 * which one it is (its device and inode, from the descriptor opened). */
struct ws_res_made {
	unsigned up;	/* 1: the name's parent, 2: the one above, ... */
	dev_t dev;
	ino_t ino;
};

struct ws_res {
	const char *form;  /* input form: root, relative, absolute-inside,
			      shorthand, mount, host */
	int anchor;	   /* anchor the request starts in */
	char *vpath;	   /* normalized virtual path as requested */
	char *rel;	   /* the same, relative to the anchor */
	char *real;	   /* physical path of the object (or where it
			      would be created) */
	int final_anchor;  /* anchor holding real; WS_ANCHOR_HOST outside */
	bool exists;	   /* false: only a directory above it exists */
	bool must_dir;	   /* the request ended in "/" */
	int fd;		   /* O_PATH of the object, -1 if !exists */
	int dirfd;	   /* O_PATH of the directory holding it */
	char *name;	   /* its name in dirfd; "." for an anchor's top */
	char *missing;	   /* !exists: the part below dirfd still missing */
	struct stat st;	   /* lstat of the object when exists */
	int hops;	   /* symlinks followed */
	struct ws_step *steps;
	size_t nsteps;
	bool own_dirfd;
	/* The directories ws_res_make_parents() made, outermost first;
	 * not those another process made meanwhile (its mkdirat() found
	 * them): the history records them, for undo to take away. */
	struct ws_res_made *made;
	size_t nmade;
};

/*
 * Resolve input in workspace ws.  On success res holds descriptors that
 * ws_res_free() closes; call it after a failure too (the steps recorded
 * for --explain are kept).  Errors: WS_EINVALID_PATH, WS_EPATH_OUTSIDE_WORKSPACE,
 * WS_ESYMLINK_OUTSIDE_WORKSPACE, WS_ESYMLINK_LOOP, WS_ENOT_FOUND,
 * WS_ENOT_A_DIRECTORY, WS_EIO_ERROR, ...
 */
int ws_resolve(struct ws_ctx *ws, const char *input, unsigned flags,
	       struct ws_res *res);

/*
 * After a call failed with NOT_FOUND on input (the error's path): when
 * ws->name_hint is set and the first missing name of input is one edit
 * away from names in the last directory that exists and that the policy
 * lets the caller stat, add "did you mean X?" to the error (which stays
 * as it was otherwise).  Reads that directory once, so it is for a call's
 * reported failure, not for every resolution (a walk meets dangling links).
 */
void ws_resolve_name_hint(struct ws_ctx *ws, const char *input);

/* Close the descriptors of a result and free it. Safe on a zeroed res. */
void ws_res_free(struct ws_res *res);

/*
 * Open the resolved object for data with open(2) flags oflags (O_RDONLY,
 * O_WRONLY, O_DIRECTORY...).  Only regular files (or directories, when
 * O_DIRECTORY is asked for) are opened; anything else is
 * WS_ENOT_A_REGULAR_FILE, and nothing can block; so is a file on a kernel
 * pseudo-filesystem (see ws_fd_check_fs()).  The object must still be
 * the one resolved (same device and inode), or the call fails closed.
 */
int ws_res_open(const struct ws_res *res, int oflags, int *fd_out);

struct stat;
/*
 * Internal: ws_res_open(), and the stat of the descriptor opened (from
 * the inode check) in *st, so that a caller need not fstat() it again.
 */
int ws__res_open_st(const struct ws_res *res, int oflags, int *fd_out,
		    struct stat *st);

/*
 * The name of the kernel pseudo-filesystem (procfs, sysfs, debugfs,
 * tracefs, securityfs, cgroupfs, configfs, pstore, bpffs, efivarfs,
 * fusectl, ...) with statfs f_type, or NULL for a filesystem of data.
 */
const char *ws_fs_pseudo_name(unsigned long f_type);

/*
 * WS_ENOT_A_REGULAR_FILE, saying why, if fd (any descriptor, O_PATH too)
 * lies on a kernel pseudo-filesystem, whose files are interfaces and may
 * block or act when read or written; else 0.  ws_res_open() applies it to
 * every file it opens; a tool that opens files another way (a walker)
 * calls it itself.
 */
int ws_fd_check_fs(int fd);

/* WS_EREAD_ONLY if the object lies in a read-only mount, else 0. */
int ws_res_check_writable(const struct ws_ctx *ws, const struct ws_res *res);

/*
 * For a result that does not exist: create the missing directories above
 * its name with mkdirat(), one level at a time, each opened again with
 * O_NOFOLLOW so that a concurrent symlink swap fails instead of escaping.
 * Without parents, a missing directory is WS_ENOT_FOUND.  On success
 * res->dirfd is the new parent and res->missing is just the name;
 * res->made lists the directories this call made.
 */
int ws_res_make_parents(struct ws_res *res, bool parents, mode_t mode);

/*
 * Create the missing object as a new regular file, relative to its parent
 * descriptor with O_CREAT | O_EXCL | O_NOFOLLOW, and return a write fd.
 */
int ws_res_create_file(struct ws_res *res, mode_t mode, int *fd_out);

/* Print-free helper: record a step (used by resolve and policy). */
void ws_res_step(struct ws_res *res, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
