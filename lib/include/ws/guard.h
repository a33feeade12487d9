/*
 * ws/guard.h - persistence guards, and the list of everything guarded.
 *
 * Some files act after the call that writes them, outside any tool's
 * boundary: git hooks and git's configuration run code the next time a
 * person runs git, shell rc files the next time a shell starts, editor
 * and direnv settings when the folder is opened.  No tool changes them
 * (DESIGN.md 2, issue 8), and wsrun keeps them read-only.
 *
 * A guard is a path relative to the top of the workspace and of each
 * mount, in the glob syntax of ws/glob.h; a trailing slash guards a
 * directory and everything below it.  Changing a guarded path, or
 * renaming or deleting a directory that may hold one, is refused
 * (POLICY_DENIED) by ws_check(), policy or not.  A guard that is a
 * symlink, or lies behind one, guards its target too; a ".git" file
 * ("gitdir: DIR", a worktree or submodule) guards DIR's hooks and
 * config, and those of its common directory.
 *
 * A pattern "**" "/" NAME, NAME one literal component, guards every
 * component so named at any depth (with a trailing slash, all below it):
 * the defaults guard a repository's own directory (".git", ".hg") and
 * ".envrc" so, decided on the names of the real path alone, without a
 * walk.  A directory that holds such a component is not guarded for it
 * (a repository moved or deleted as a whole), and ws_guarded_list()
 * leaves them out: wsrun lets git work in them and cleans them after the
 * command (ws/run.h).
 *
 * The default list is ws_guard_defaults; configuration key "guarded"
 * replaces it (a list) or turns it off (false).
 */
#ifndef WS_GUARD_H
#define WS_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "ws/workspace.h"

/* The default persistence guards. */
extern const char *const ws_guard_defaults[];
extern const size_t ws_guard_ndefaults;

/*
 * Replace the persistence guards of ws (until then: ws_guard_defaults)
 * with the n patterns; n == 0 guards nothing.  Each must be relative,
 * without "..", and a valid glob.  Errors: WS_EINVALID_ARGUMENT naming
 * the pattern, WS_ENOMEM.
 */
int ws_ctx_set_guarded(struct ws_ctx *ws, const char *const *patterns,
		       size_t n);

/*
 * Whether changing the real path real (its parent resolved, its last
 * component as it is) touches a persistence guard: it is one, lies below
 * a directory guard, is the target of a guard that is a symlink, or (with
 * ancestors, for rename and delete) is a directory that may hold one
 * (decided on the names; one lstat() tells a directory from a file).
 * *pattern (if not NULL) gets the guard's pattern.  The first call
 * resolves the literal guards that exist (one openat() each per anchor);
 * only changes pay for it.
 */
bool ws_guard_persist_match(struct ws_ctx *ws, const char *real,
			    bool ancestors, const char **pattern);

/*
 * The i-th persistence guard of ws without glob metacharacters, as a path
 * relative to an anchor's top without its trailing slash (".vscode",
 * ".git/config"), or NULL past the last.  For wsrun, which removes such
 * entries when a command creates them where none existed.
 */
const char *ws_guard_literal(struct ws_ctx *ws, size_t i);

/* Free the persistence guard state of a context (ws_ctx_close does). */
void ws__guards_free(struct ws_guards *g);

/*
 * Internal: whether name in dirfd (or a path, with AT_FDCWD) is a
 * directory git takes for a repository whatever its name (HEAD, then
 * refs or commondir, by lstat).  The guards and the history share it.
 */
bool ws__bare_at(int dirfd, const char *name);

/* One guarded path that exists, as ws_guarded_list() gives it. */
struct ws_guarded {
	char *real;		 /* its real path, resolved */
	char *what;		 /* the guard's pattern, or what it guards */
	enum ws_guard_kind kind; /* WS_GUARD_OWN, _ANCHOR or _PERSIST */
	bool dir;		 /* a directory: everything below is guarded */
};

/*
 * Every guarded path of ws that exists now, resolved, without
 * duplicates: wstools' own configuration and policy (WS_GUARD_OWN), the
 * entries the spellings of the root and the mounts pass through
 * (WS_GUARD_ANCHOR: the entry itself is guarded, not what it holds;
 * symlinks among them are given as themselves) and the persistence
 * guards, expanded in the workspace and every mount (WS_GUARD_PERSIST).
 * For wsrun, which makes them read-only.  Glob guards are expanded by a
 * walk that never follows symlinks, at most 16 levels deep.  *out
 * (free with ws_guarded_free()) gets *n items.  Errors: WS_ENOMEM,
 * WS_ELIMIT_EXCEEDED (a glob guard that matches over 100,000 entries).
 */
int ws_guarded_list(struct ws_ctx *ws, struct ws_guarded **out, size_t *n);

/* Free what ws_guarded_list() gave. */
void ws_guarded_free(struct ws_guarded *v, size_t n);

#endif
