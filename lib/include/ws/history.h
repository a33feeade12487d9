/*
 * ws/history.h - every change recorded before it happens, and undone on
 * request (DESIGN.md 5, "History and audit"; issue 22).
 *
 * The history of a workspace lives in a state directory outside it:
 * STATE/<id>/, STATE being --state-dir, else the configuration's
 * "state_dir", else $XDG_STATE_HOME/wstools (~/.local/state/wstools).
 * The id is the first 16 hex digits of the SHA-256 of the workspace
 * root's canonical path: the same root always finds its history, across
 * reboots and a restored backup; a workspace moved elsewhere starts a new
 * one (its recorded real paths would be wrong there anyway).
 *
 * STATE/<id>/journal holds one JSON line per record, appended under an
 * exclusive flock() with one write(2) and fsync'd: a "begin" record,
 * written before the change, with what the change replaces (each file's
 * content as an object, STATE/<id>/objects/<sha256>, written and
 * fsync'd first); a "done" record after it, with the version token the
 * change left.  A crash between the two leaves a "begin" alone, which
 * undo treats as a change whose outcome is unknown.  STATE/<id>/seq
 * holds the last id given.  STATE is one of wstools' own entries: no
 * tool writes into it (ws_ctx_guard()).
 *
 * Writers (lib/write.c) call ws_hist_begin() after every check and right
 * before they change anything, and ws_hist_end() after; a context without
 * a history (ws->history NULL: --no-history, "history": false, a library
 * user) records nothing.
 */
#ifndef WS_HISTORY_H
#define WS_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

struct ws_ctx;
struct ws_history;

/* Bounds of the store (the configuration's "history_*" keys). */
struct ws_hist_bounds {
	long long max_bytes; /* objects kept, in bytes (0: no bound) */
	long long max_age;   /* seconds an entry is kept (0: no bound) */
	long long max_file;  /* a larger file is recorded as not kept */
};

/* The default bounds: 1 GiB, 30 days, 64 MiB a file. */
#define WS_HIST_MAX_BYTES (1024LL * 1024 * 1024)
#define WS_HIST_MAX_AGE (30LL * 24 * 3600)
#define WS_HIST_MAX_FILE (64LL * 1024 * 1024)

/*
 * The file ws_hist_open() leaves in the state directory it uses (the
 * "wstools" that holds each workspace's history): a state directory
 * under another XDG_STATE_HOME than a call's is known by it, refused to
 * the file tools and refusing wsrun (review23 02).
 */
#define WS_STATE_MARK ".wstools-state"

/*
 * The state directory of workspace root (its key, ws_hist_root_key()),
 * under base (NULL: the default place): malloc'd, or NULL with an error
 * set.
 */
char *ws_hist_dir(const char *base, const char *root);

/*
 * The key of ws's history: the root's canonical real path and the root
 * directory's identity (inode number and birth time), so that a directory
 * made anew at a removed one's path starts a history of its own.
 * malloc'd, or NULL with an error set.
 */
char *ws_hist_root_key(const struct ws_ctx *ws);

/* Guard the state directory that holds dir (ws_ctx_guard()). */
int ws_hist_guard(struct ws_ctx *ws, const char *dir);

/*
 * Internal (lib/history.c, lib/vcs.c): whether a wsrun command runs now
 * in a workspace that holds the directory fd (fd or a directory above
 * it holds a run's exclusive lock): what is in fd may be that command's.
 */
bool ws__hist_run_above(int fd);

/*
 * Internal (lib/history.c, lib/vcs.c): whether the directory st is the
 * default state directory (~/.local/state/wstools) of one of the nh
 * homes, by identity: a place spelled alike elsewhere is not.
 */
bool ws__hist_home_place(const struct stat *st, char *const *home, size_t nh);

/*
 * Open (creating as needed, mode 0700) the history of ws under base and
 * attach it to ws (ws->history), for calls of tool through frontend.  The
 * directory is guarded.  nosync skips fsync (tests, --no-sync).
 * Errors: WS_EIO_ERROR naming the directory, WS_ENOMEM.
 */
int ws_hist_open(struct ws_ctx *ws, const char *base,
		 const struct ws_hist_bounds *b, const char *tool,
		 const char *frontend);

/* Close and free ws->history (NULL is fine). */
void ws_hist_close(struct ws_ctx *ws);

/* Skip fsync for this context's records (wswrite --no-sync). */
void ws_hist_nosync(struct ws_ctx *ws, bool nosync);

/*
 * Record, before it happens, that op ("write", "create", "append",
 * "edit", "delete", "mkdir", "move") will change the entry name in dirfd
 * (vpath/real as shown), which holds what st says (NULL: nothing); for a
 * directory deleted with recursive, the whole tree.  A move also gives
 * its destination (ddirfd/dname/dvpath/dreal, dst NULL when free).
 * Returns 0 (nothing to record without a history), or WS_EIO_ERROR when
 * the record cannot be made: the writer then changes nothing.
 */
int ws_hist_begin(struct ws_ctx *ws, const char *op, int dirfd,
		  const char *name, const char *vpath, const char *real,
		  const struct stat *st, bool recursive, int ddirfd,
		  const char *dname, const char *dvpath, const char *dreal,
		  const struct stat *dst);

struct ws_res;

/*
 * Record that the pending change made the directories res->made above
 * res->vpath (after ws_res_make_parents()): its done record names them
 * ("made_dirs": virtual path, device, inode), and its undo takes them
 * away, deepest first, each while empty and still the directory made.
 * Nothing without a pending record.
 */
void ws_hist_parents(struct ws_ctx *ws, const struct ws_res *res);

/*
 * Record the outcome of the change ws_hist_begin() announced: rc (0 or
 * the error), and the version token of what name in dirfd now holds.
 * Does nothing without a pending record.  The id of the entry (0: none)
 * goes to the audit log.
 */
long long ws_hist_end(struct ws_ctx *ws, int rc, int dirfd, const char *name);

/*
 * Whether the entry st (an lstat) is one the pending recorded tree delete
 * captured, as it was captured (a file: the same size and modification
 * time): the delete removes only those, so that an entry made or
 * written in the tree after the record (by another tool, a command) is
 * not lost unrecorded.  True where there is no such record (no history,
 * or not a tree delete).
 */
bool ws_hist_covers(const struct ws_ctx *ws, const struct stat *st);

/* Options of ws_hist_list() and ws_hist_undo(). */
struct ws_undo_opts {
	long long id;	 /* one entry (0: the newest not undone) */
	long long n;	 /* the n newest not undone (0: 1) */
	long long to;	 /* every entry from id to (inclusive) to the newest */
	bool dry_run;
	bool force;	 /* revert even what changed since */
};

struct cJSON;

/*
 * The history of ws's workspace, newest first, as a JSON array of
 * entries (id, time, tool, frontend, operation, path, real_path,
 * destination, size before, version before and after, done, undo_of,
 * undone); path (may be NULL) keeps those about it or below it.
 */
int ws_hist_list(struct ws_ctx *ws, const char *path, struct cJSON **out);

/*
 * The nearest directory above ws's root whose own history has entries
 * (histories are kept per root: run from a project's src/, the
 * workspace is src/ and the project's history is one level up), so that
 * an empty history or undo can say where the changes are.  malloc'd, or
 * NULL (none, or no history).
 */
char *ws_hist_above(const struct ws_ctx *ws);

/*
 * Undo entries of ws's history, newest first, through the writers of
 * lib/write.c (so the resolver, the guards and the policy decide as for
 * any write, and the undo is itself recorded, marked "undo_of").  An
 * entry whose file changed since is WS_EVERSION_MISMATCH naming it,
 * unless force.  *out gets an array of what was (or would be) done.
 */
int ws_hist_undo(struct ws_ctx *ws, const struct ws_undo_opts *o,
		 struct cJSON **out);

/*
 * Apply the bounds: drop entries older than max_age, then the oldest
 * until the objects still referenced fit max_bytes; rewrite the journal
 * (atomically) and remove unreferenced objects.  *dropped and *freed get
 * what went.
 */
int ws_hist_gc(struct ws_ctx *ws, long long *dropped, long long *freed);

#endif
