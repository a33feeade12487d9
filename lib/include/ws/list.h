/*
 * ws/list.h - listing a workspace directory, for wsls (list_directory).
 *
 * ws_list() walks a directory that the caller resolved and opened (see
 * ws_resolve() and ws_res_open()) with the descriptor walker (ws/walk.h)
 * and hands every entry to a callback, in one stable order: a directory's
 * entries sorted as asked, then its subdirectories' listings in the same
 * order (ls -R).  Paging counts over that stream: entries before offset
 * are skipped, at most max_entries are handed out, and the result says
 * where the next page starts and, where it is known, how many entries the
 * whole listing has.  The caller prints; the library never writes to
 * stdout.
 *
 * Filters, in this order, before an entry is stat'ed: hidden names
 * (unless hidden), the policy (policy_stat: counted in hidden_by_policy,
 * never shown), in a recursive listing the .gitignore rules of the
 * listed tree and ".git" (unless no_ignore; the rules of ws/ignore.h, as
 * wsgrep applies them), then the exclude globs (gitignore syntax: a
 * name alone matches at any depth, a glob with a "/" matches the path
 * relative to the listed directory).  Filtered entries are not counted
 * anywhere in the stream, so offsets stay stable between pages.
 */
#ifndef WS_LIST_H
#define WS_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "ws/resolve.h"
#include "ws/walk.h"
#include "ws/workspace.h"

/* What an entry callback returns to say the caller cannot take it (its
 * output is full): the listing stops there, truncated with reason
 * "max_output", and next_offset is that entry's index. */
#define WS_LIST_FULL 3

/* One listed entry. */
struct ws_list_entry {
	const char *name;   /* its name in the directory */
	const char *vpath;  /* virtual path */
	const char *real;   /* real path */
	const struct stat *st; /* lstat; with types_only only the type bits */
	long long index;    /* position in the whole stream, 0-based */
	int depth;	    /* 1 for the entries of the listed directory */
	bool mount;	    /* a mount's top directory */
	bool read_only;	    /* a ":ro" mount, or an entry inside one */
	const char *target; /* a symlink's stored target, with link_info and
			       if the policy allows readlink; else NULL */
	bool target_outside; /* with link_info: following it leaves the
				sandbox */
	const struct ws_walk_dir *dir; /* the directory listing it; NULL for
					  a PATH listed as itself */
};

/* What to list.  Zero-initialize, then set. */
struct ws_list_opts {
	int depth;		/* 1 (or 0 given as 1): own entries; with
				   recursive, 0 is unlimited */
	bool recursive;		/* depth 0 means unlimited */
	bool hidden;		/* names starting with "." */
	enum ws_walk_sort sort;
	size_t sort_max;	/* >0: a directory with more entries than this
				   is streamed unsorted (plain mode only:
				   paging needs a stable order) */
	long long offset;	/* entries of the stream to skip */
	long long max_entries;	/* 0: unlimited */
	bool types_only;	/* the callback needs names and types only */
	bool link_info;		/* fill target and target_outside */
	bool no_ignore;		/* recursive: do not apply .gitignore/.git */
	const char *const *exclude; /* globs, see above */
	size_t nexclude;
	bool self;		/* -d: a directory is listed as itself */

	/* A directory whose entries follow (for ls -R headers), called only
	 * once the stream has reached offset. */
	int (*enter)(void *arg, const struct ws_walk_dir *d);
	/* An entry: 0, WS_LIST_FULL, or a negative WS_E* to fail. */
	int (*entry)(void *arg, const struct ws_list_entry *e);
	/* Something that could not be listed (see ws_walk_opts.error);
	 * errno as there.  NULL: skipped silently. */
	int (*error)(void *arg, const char *vpath, const char *real, int code);
	void *arg;
};

/* What was listed. */
struct ws_list_result {
	long long returned;	/* entries handed to the callback */
	long long next_offset;	/* where the next page starts; -1: no more */
	long long total;	/* entries in the whole stream, if total_known */
	bool total_known;	/* a recursive listing stopped early does not
				   know its total */
	bool truncated;		/* entries remain after this page */
	const char *reason;	/* "max_entries" or "max_output", or NULL */
	size_t hidden_by_policy;
	size_t ignored;		/* entries left out by .gitignore/.git and
				   excludes (as far as the walk went) */
	size_t exhausted;	/* directories not opened for want of
				   descriptors: the listing is incomplete */
};

/*
 * List the object res resolved to.  fd is a readable O_DIRECTORY
 * descriptor of it when it is a directory to list (policy WS_OP_LIST
 * checked by the caller), or -1 to list res itself as one entry (a file,
 * or a directory with self).  Returns 0 (a late failure of a subtree goes
 * to the error callback and the listing goes on) or a negative WS_E*
 * code: WS_ENOMEM, WS_EINVALID_ARGUMENT for a bad option, or what a
 * callback returned.
 */
int ws_list(struct ws_ctx *ws, const struct ws_list_opts *o,
	    const struct ws_res *res, int fd, struct ws_list_result *out);

/*
 * Resolve the PATH input for a listing and ask the policy: a directory
 * (unless self) is checked for WS_OP_LIST and opened into *fd; anything
 * else is checked for WS_OP_STAT and *fd is -1.  A symlink whose target
 * does not exist is the link itself (ls lists a dangling link), and with
 * self a symlink is not followed at all (ls -d).  On failure res is freed
 * and the message names input as given.
 */
int ws_list_open(struct ws_ctx *ws, const char *input, bool self,
		 struct ws_res *res, int *fd);

#endif
