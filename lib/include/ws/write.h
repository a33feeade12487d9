/*
 * ws/write.h - changing the workspace: writing, appending to and editing
 * files, creating directories, deleting and moving (the write_file tool),
 * and the helpers they are built from: atomic replacement, exact-text
 * edits and unified diffs.
 *
 * Every operation resolves its path with ws_resolve() and then acts only
 * through the descriptors of the result: the temporary file, the rename,
 * the unlink and the mkdir all happen relative to the directory descriptor
 * the resolver returned, with O_NOFOLLOW, so a concurrent symlink swap can
 * never redirect them outside the workspace.  The policy gate (ws_check)
 * is asked before anything is changed.
 *
 * Hard links are out of scope: replacing a file creates a new inode, so
 * other hard links to the old file keep the old content.
 */
#ifndef WS_WRITE_H
#define WS_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "ws/version.h"

#include "ws/workspace.h"

/* Default cap on the size of a diff returned by the operations below. */
#define WS_DIFF_CAP (64 * 1024)
/* Files larger than this get no diff (it is reported as truncated). */
#define WS_DIFF_MAX_INPUT (8 * 1024 * 1024)
/* Largest file --edit loads into memory. */
#define WS_EDIT_MAX (64 * 1024 * 1024)
/* Most edits one call applies (each one goes over the whole text). */
#define WS_EDITS_MAX 1000
/* Lines of context around each change in a unified diff. */
#define WS_DIFF_CONTEXT 3

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

/*
 * A unified diff (diff -u, three lines of context) of a[0..alen) against
 * b[0..blen), with label_a and label_b on the "---" and "+++" lines.  Equal
 * inputs give an empty string; inputs holding a NUL byte give one line
 * "Binary files A and B differ".  The text stops at a line boundary before
 * it would exceed cap bytes, and *truncated says so.  Large rewrites are
 * not minimized beyond a fixed effort: the diff stays correct but may show
 * a block as removed and added.  *out is malloc'd and NUL-terminated.
 */
int ws_diff_unified(const char *a, size_t alen, const char *b, size_t blen,
		    const char *label_a, const char *label_b, size_t cap,
		    char **out, size_t *outlen, bool *truncated);

/*
 * Replace the exact text old[0..oldlen) by repl[0..repllen) in
 * text[0..len).  *count gets the number of (non-overlapping) matches.
 * No match is WS_EEDIT_NO_MATCH; several without all is WS_EEDIT_AMBIGUOUS;
 * an empty old is WS_EINVALID_ARGUMENT; a result over WS_EDIT_MAX bytes is
 * WS_EFILE_TOO_LARGE (found from the count, before any allocation).  On
 * success *out (malloc'd, with a NUL after *outlen bytes) holds the new
 * text.
 */
int ws_edit_replace(const char *text, size_t len, const char *old,
		    size_t oldlen, const char *repl, size_t repllen, bool all,
		    char **out, size_t *outlen, size_t *count);

/*
 * The messages of ws_edit_replace() help the caller retry: EDIT_AMBIGUOUS
 * names the line of every match ("lines 3, 9 and 12"); EDIT_NO_MATCH
 * names the line where the text nearly matches -- the same text but for
 * its whitespace (indentation, tabs against spaces), CRLF line ends or a
 * trailing newline -- and leaves a hint (ws_error_last_hint()).
 */

/* One exact-text replacement of a multi-edit. */
struct ws_edit {
	const char *old, *repl;
	size_t oldlen, repllen;
	bool all; /* replace every match, not exactly one */
};

/*
 * Apply edits[0..n) in order, each to the text the previous ones left,
 * all or nothing: the first that fails fails the whole (its message says
 * which, "edit 2 of 3: ...", when there are several).  *count gets the
 * total number of replacements.  More than WS_EDITS_MAX edits is
 * WS_ELIMIT_EXCEEDED; a call cancelled (ws/cancel.h) stops between two
 * edits with WS_EIO_ERROR.  Otherwise as ws_edit_replace().
 */
int ws_edit_apply(const char *text, size_t len, const struct ws_edit *edits,
		  size_t n, char **out, size_t *outlen, size_t *count);

/*
 * Whether st (the fstat of what is about to change) still has the version
 * token the caller gave (ws/version.h); else WS_EVERSION_MISMATCH with a
 * hint to read it again.  A NULL token is always a match; st NULL means
 * the file does not exist (any token is then a mismatch).
 */
int ws_check_version(const struct stat *st, const char *token,
		     const char *path);

/* Flags for ws_write_atomic(). */
enum {
	WS_ATOMIC_NOREPLACE = 1 << 0, /* fail with ALREADY_EXISTS if present */
	WS_ATOMIC_NOSYNC = 1 << 1,    /* skip fsync (tests, benchmarks) */
	WS_ATOMIC_NAMED = 1 << 2,     /* always use the named temporary (tests) */
};

/*
 * Atomically make name in directory dirfd (an O_PATH descriptor is fine)
 * hold data[0..n), with the mode and owner of old (when old is not NULL;
 * else 0666 less the umask).  The data goes to an unnamed O_TMPFILE file
 * in that directory, which is fsync'd and then linked to a temporary name
 * (through /proc/self/fd) and renamed over name, SIGINT, SIGTERM and
 * SIGHUP being blocked across those two calls; with WS_ATOMIC_NOREPLACE it
 * is linked straight to name, and an existing name is WS_EALREADY_EXISTS.
 * So a process killed while writing leaves nothing.
 *
 * Where O_TMPFILE or /proc is missing (or with WS_ATOMIC_NAMED, or env
 * WS_TEST_NAMED_TEMP=1), the data goes to a named temporary file
 * ".NAME.wswrite-" and 12 random letters and digits (O_CREAT | O_EXCL |
 * O_NOFOLLOW); while it exists, those three signals, when at their default
 * action, are caught by a handler that removes it and then dies of the
 * signal (the previous dispositions are restored after).  On any failure
 * the temporary file is removed and name is untouched.
 *
 * A temporary name is flock()ed by its writer for as long as it exists.
 * After each write, the temporary files in the directory that can be
 * locked -- their writer died, by SIGKILL say -- are removed (unlinkat on
 * dirfd; only names of that exact shape, only regular files).  A file on
 * a kernel pseudo-filesystem's directory is WS_ENOT_A_REGULAR_FILE.
 */
int ws_write_atomic(int dirfd, const char *name, const void *data, size_t n,
		    const struct stat *old, unsigned flags);

/*
 * ws_write_atomic(), and the new file's stat into *made (NULL: not
 * wanted), taken of the file written before it got its name: the
 * version token of exactly this content (ws/version.h), whatever
 * another writer does to the name afterwards.
 */
int ws_write_atomic_made(int dirfd, const char *name, const void *data,
			 size_t n, const struct stat *old, unsigned flags,
			 struct stat *made);

/*
 * Decode standard or URL-safe base64 (padding optional, whitespace
 * ignored) into a malloc'd buffer.  Anything else is WS_EINVALID_ARGUMENT.
 */
int ws_b64_decode(const char *s, void **out, size_t *n);

/* ------------------------------------------------------------------ */
/* Operations                                                           */

/* What to write, for ws_write(). */
struct ws_wopts {
	const void *content; /* the new content (replace, create, append) */
	size_t len;
	bool append;	  /* add to the end instead of replacing */
	bool create_only; /* an existing file is WS_EALREADY_EXISTS */
	/*
	 * Empty content over a non-empty file is WS_EINVALID_ARGUMENT (the
	 * content came from a pipe that gave nothing, not a wish to empty it).
	 */
	bool keep_nonempty;
	bool parents;	  /* create missing parent directories */
	bool edit;	  /* replace old by repl in the file instead */
	const char *old, *repl;
	size_t oldlen, repllen;
	bool all;	  /* edit: replace every match */
	/* edit: several replacements, in order (then old/repl are unused) */
	const struct ws_edit *edits;
	size_t nedits;
	/* refuse with WS_EVERSION_MISMATCH unless the file has this token */
	const char *if_version;
	bool dry_run;	  /* compute everything, change nothing */
	bool want_diff;	  /* compute a diff even when not a dry run */
	bool nosync;	  /* skip fsync (tests, benchmarks) */
	size_t diff_cap;  /* 0: WS_DIFF_CAP */
};

/* The outcome of an operation, for JSON and plain output. */
struct ws_wresult {
	const char *action; /* write|create|append|edit|mkdir|delete|move */
	char *vpath;	    /* virtual path as requested */
	char *real;	    /* real path acted on */
	char *dest_vpath;   /* move: the destination */
	char *dest_real;
	const char *type;   /* delete, move: file|dir|symlink|other */
	bool created;	    /* a new file or directory was made */
	bool dry_run;
	long long bytes_written;
	long long lines;     /* lines in what was written (appended) */
	size_t replacements; /* edit */
	size_t removed;	     /* delete: entries removed (or to remove) */
	char *diff;	     /* NULL when not computed */
	size_t difflen;
	bool diff_truncated;
	long long history_id; /* the history entry made (0: none) */
	/*
	 * A top-level directory of the workspace this call made (or would
	 * make) that is named like one of the host's system directories:
	 * its virtual path ("/tmp") and real path, else NULL.  "/tmp/x" is
	 * the workspace's; the result says so to whoever meant the host's.
	 */
	char *made_top;
	char *made_top_real;
	/*
	 * The version token of the content this call wrote (write, create,
	 * append, edit; not a dry run), as wsread gives it: a caller's next
	 * --if-version needs no read in between.  Empty when none.
	 */
	char version[WS_VERSION_LEN];
};

/*
 * Write, create, append to or edit the file at path, as o says.  A symlink
 * at path is followed inside the sandbox (the target changes, the link
 * stays); one leading outside is refused by the resolver.  Replacing is
 * atomic and keeps the old mode; a path ending in "/" is IS_A_DIRECTORY
 * when it names a directory and INVALID_PATH otherwise.
 */
int ws_write(struct ws_ctx *ws, const char *path, const struct ws_wopts *o,
	     struct ws_wresult *r);

/*
 * Create the directory path (and, with parents, the missing ones above
 * it).  An existing directory is a success with created false.
 */
int ws_mkdir(struct ws_ctx *ws, const char *path, bool parents, bool dry_run,
	     struct ws_wresult *r);

/*
 * Delete the file, symlink (the link itself) or empty directory at path;
 * with recursive, a whole tree, walked through directory descriptors and
 * never following a link.  A non-empty directory without recursive is
 * WS_EDIRECTORY_NOT_EMPTY; the workspace root and mount tops are refused.
 * if_version (may be NULL) is checked as ws_check_version() does.
 */
int ws_delete(struct ws_ctx *ws, const char *path, bool recursive,
	      bool dry_run, const char *if_version, struct ws_wresult *r);

/*
 * Whether a move of src onto dst could replace what is at dst at all,
 * forced or not: 0 when it could (or dst is free, or either does not
 * resolve: the move itself says why), else the refusal ws_move() would
 * give, naming dst: IS_A_DIRECTORY (a file onto a directory),
 * NOT_A_DIRECTORY (a directory onto a file), DIRECTORY_NOT_EMPTY.  Asks
 * no policy: undo says so before it promises --force.
 */
int ws_move_replaceable(struct ws_ctx *ws, const char *src, const char *dst);

/*
 * For undo: remove the empty directory path when it still is the one a
 * recorded change made (device dev, inode ino, compared on the
 * descriptor the resolver holds and on the name in its held parent right
 * before the rmdir), when the guards allow it and the policy's file rules
 * allow rmdir without asking (an undo of what the change made on the way
 * prompts for nothing).  Not recorded in the history: undoing that undo
 * makes the directories again, as the change did.  0 when removed, else
 * the reason it stays: WS_ENOT_FOUND (gone), WS_EVERSION_MISMATCH
 * (another directory, or not one), WS_EDIRECTORY_NOT_EMPTY, a refusal.
 */
int ws_rmdir_made(struct ws_ctx *ws, const char *path, dev_t dev, ino_t ino);

/*
 * Move (rename) src to dst; a symlink is moved itself.  An existing dst is
 * WS_EALREADY_EXISTS unless force.  A dst ending in "/" that names an
 * existing directory receives src under its own name, like mv(1); with
 * parents, a missing one is created to receive it.  if_version (may be
 * NULL) is checked against src (see ws_check_version()).  Moves
 * between filesystems (or between mounts on different ones) are refused
 * with WS_EIO_ERROR: they would need a copy.
 */
int ws_move(struct ws_ctx *ws, const char *src, const char *dst, bool force,
	    bool parents, bool dry_run, const char *if_version,
	    struct ws_wresult *r);

/* Free what an operation put in r. Safe on a zeroed r. */
void ws_wresult_free(struct ws_wresult *r);

#endif
