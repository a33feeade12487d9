/*
 * ws/walk.h - a directory walker that works on descriptors only.
 *
 * The walker lists a directory from a readable directory descriptor with
 * getdents64() and fstatat(AT_SYMLINK_NOFOLLOW) per entry, and descends
 * into a subdirectory with openat(O_NOFOLLOW | O_DIRECTORY | O_NONBLOCK)
 * relative to its parent's descriptor, checking that the directory it
 * opened is the one it stat'ed (same device and inode).  No path is ever
 * resolved again as a string, a symlink is never followed, and a directory
 * swapped for a symlink while the walk runs is skipped (reported through
 * the error callback), never entered.
 *
 * Order: a directory's entries are all handed to the entry callback (sorted
 * per directory if asked), then its subdirectories are walked in the same
 * order, so that enter/leave bracket a whole subtree:
 *
 *	enter(top) entry(a) entry(b/) entry(c) enter(b) entry(b/x) leave(b)
 *	leave(top)
 *
 * This is the order of ls -R, and lets a caller keep per-directory state
 * (wsgrep's .gitignore rules) on a stack pushed by enter and popped by
 * leave.
 *
 * Mounts: with a workspace context, a mount whose virtual prefix sits
 * directly in a listed directory is shown there as an entry (a directory)
 * and shadows a real entry of the same name, as DESIGN.md section 2 says;
 * the walk descends into it like into any directory.
 *
 * Memory: a directory's entries are kept in compact records (about 80
 * bytes plus the name) only while that directory is listed; while its
 * subdirectories are walked, only the subdirectories' names are kept.
 * keep_max bounds the records to the first N entries in sort order (a
 * heap), and sort_max makes a larger directory stream unsorted instead.
 */
#ifndef WS_WALK_H
#define WS_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/stat.h>

struct ws_ctx;

/* Order of the entries of one directory. */
enum ws_walk_sort {
	WS_WALK_UNSORTED, /* directory order, streamed as read */
	WS_WALK_NAME,	  /* byte order of the names (strcmp) */
	WS_WALK_SIZE,	  /* largest first, then by name (ls -S) */
	WS_WALK_MTIME,	  /* newest first, then by name (ls -t) */
	/* A flag to OR into the others: the order reversed (ls -r). */
	WS_WALK_REVERSE = 0x100,
};

/*
 * What a callback returns besides 0 (go on) and a negative WS_E* code
 * (stop the walk with that error).
 */
enum {
	WS_WALK_SKIP = 1, /* entry: do not descend into it; enter: do not
			     list this directory (leave is not called) */
	WS_WALK_STOP = 2, /* end the walk now; ws_walk() returns WS_WALK_STOP */
};

/* A directory being walked. */
struct ws_walk_dir {
	int fd;		       /* readable O_DIRECTORY descriptor */
	const char *vpath;     /* virtual path */
	const char *real;      /* real path (for display and policy) */
	struct stat st;	       /* fstat of fd */
	int depth;	       /* 0 for the top directory */
	int mount;	       /* anchor index if this is a mount's top, else 0 */
	bool unsorted;	       /* too many entries to sort (sort_max): they
				  come in directory order; set before the
				  first entry callback that is affected */
	size_t nentries;       /* for leave: entries handed to entry() */
	size_t ndropped;       /* for leave: entries dropped by keep_max */
	size_t nhidden;	       /* for leave: entries the policy hid
				  (policy_stat) */
};

/* One entry of a directory. */
struct ws_walk_entry {
	const struct ws_walk_dir *dir; /* the directory listing it */
	const char *name;	       /* its name in the listing */
	size_t namelen;
	const char *vpath;	       /* virtual path */
	const char *real;	       /* real path */
	/*
	 * fstatat(AT_SYMLINK_NOFOLLOW) of the entry.  Only st_dev, st_ino,
	 * st_mode, st_nlink, st_uid, st_gid, st_size and st_mtim are kept;
	 * the other fields are zero (see also types_only).
	 */
	struct stat st;
	/*
	 * openat(at_fd, at_name, flags | O_NOFOLLOW) reaches the entry: the
	 * directory's descriptor and the name, or for a mount the mount's
	 * O_PATH descriptor and ".".  Check the inode of what you open
	 * against st, as the entry may have been replaced meanwhile.
	 */
	int at_fd;
	const char *at_name;
	int depth;		       /* 1 for the entries of the top */
	int mount;		       /* anchor index if a mount, else 0 */
};

/* Options and callbacks of a walk.  Zero-initialize, then set. */
struct ws_walk_opts {
	/*
	 * Workspace: mounts are shown as entries (see above) and the policy
	 * is asked (WS_OP_LIST) before each subdirectory is listed, and
	 * with policy_stat (WS_OP_STAT) before each entry is shown.  May be
	 * NULL: no mounts, no policy.
	 */
	struct ws_ctx *ws;
	bool no_mounts;		/* with ws: do not show mounts */
	int max_depth;		/* 1: the top's entries only; 0: unlimited */
	bool hidden;		/* include names that start with "." */
	enum ws_walk_sort sort;
	size_t sort_max;	/* >0: a directory with more entries than
				   this is streamed unsorted */
	size_t keep_max;	/* >0: keep only the first N entries of a
				   directory in sort order; the others are
				   neither reported nor walked, only counted
				   in ndropped (for a caller that stops
				   after N entries anyway) */
	/*
	 * The entry callback needs only names and types: where getdents
	 * gives the type (d_type), the per-entry fstatat is skipped and st
	 * holds only the S_IFMT bits of st_mode and st_ino (d_ino); a
	 * subdirectory is then stat'ed just before it is opened.  Ignored
	 * when sorting by size or mtime.
	 */
	bool types_only;
	/*
	 * With ws and a policy loaded: ask the policy (WS_OP_STAT, with the
	 * entry's real and virtual paths) about each entry that passed the
	 * name filters (hidden, filter), before it is stat'ed.  An entry the
	 * policy refuses (denied, or needing an approval not given) is not
	 * stat'ed, not handed to entry() and not walked: it is only counted,
	 * in its directory's nhidden and in *nhidden (if not NULL), so that
	 * a listing does not show what the policy would not stat.  The paths
	 * are built from the directory's and the name, without a syscall;
	 * without a policy this costs nothing.
	 */
	bool policy_stat;
	size_t *nhidden;

	/*
	 * Before an entry is stat'ed: d_type is the getdents type (DT_*,
	 * may be DT_UNKNOWN).  Return false to leave it out entirely.
	 */
	bool (*filter)(void *arg, const struct ws_walk_dir *d,
		       const char *name, unsigned char d_type);
	int (*enter)(void *arg, const struct ws_walk_dir *d);
	int (*entry)(void *arg, const struct ws_walk_entry *e);
	int (*leave)(void *arg, const struct ws_walk_dir *d);
	/*
	 * A subdirectory (or an entry) that could not be listed or stat'ed:
	 * a race, a policy refusal, a filesystem loop, too many open files.
	 * code is the WS_E* code, ws_error_last() the message, and errno the
	 * system error behind it, or 0 when there is none (a race, a policy
	 * refusal, a loop): EMFILE or ENFILE tell a caller that the listing
	 * is incomplete for want of descriptors (the walk keeps one open per
	 * level of the tree) rather than because of the tree.  Return 0 to
	 * skip it and go on, or a negative code to end the walk with it.
	 * NULL: skip silently.
	 */
	int (*error)(void *arg, const char *vpath, const char *real, int code);
	void *arg;
};

/*
 * Walk the directory open as fd (a readable O_DIRECTORY descriptor; it is
 * not closed, but its offset is used), whose virtual and real paths are
 * vpath and real; vpath decides which mounts show up in it.  The top
 * directory's policy check is the caller's (as it opened fd).  Returns 0
 * when the walk ran to its end, WS_WALK_STOP when a callback stopped it,
 * or a negative WS_E* code: WS_ENOT_A_DIRECTORY if fd is not one,
 * WS_ENOMEM, or what a callback returned.  A directory that cannot be
 * read, the top one included, goes to the error callback.  After STOP or
 * an error no callback is called any more (no leave for the open
 * directories).
 */
int ws_walk(const struct ws_walk_opts *o, int fd, const char *vpath,
	    const char *real);

/*
 * Format the time t (seconds since the epoch) as ISO 8601 UTC,
 * "2026-11-25T21:49:40Z", into buf (at least 32 bytes).  Returns the
 * length.  Lock-free, unlike gmtime_r.
 */
size_t ws_walk_time(long long t, char *buf);

/* The type of a mode as wsls names it: file, dir, symlink or other. */
const char *ws_walk_type(mode_t mode);

/*
 * Raise the process's soft RLIMIT_NOFILE to its hard limit where it is
 * lower, for a walk that holds a descriptor per level (wsls -R, the
 * repositories' walk) or per entry it binds (the policy's view).  Best
 * effort.  Never lowered again by libws: a concurrent call of the MCP
 * server may hold descriptors past the old soft limit, and the next
 * descriptor it opened would fail.  A command does not get the raised
 * limit: wsrun's child sets the soft limit ws__nofile_soft() says back
 * before its exec.
 */
void ws__nofile_raise(void);

/*
 * The soft RLIMIT_NOFILE the process had before ws__nofile_raise() first
 * raised it, into *soft; false (nothing changed) where it never did.
 */
bool ws__nofile_soft(rlim_t *soft);

#endif
