/*
 * ws/vcs.h - what a command leaves in repositories, made safe after it.
 *
 * git (and Mercurial, and direnv) run programs named by files inside the
 * workspace the next time a person uses them there: hooks, configuration
 * keys that name a program or another file (core.fsmonitor, include.path,
 * filter.*), a "commondir" or ".git" file that points git at a directory
 * holding such a configuration, an ".hg/hgrc", an ".envrc".  wsrun lets a
 * command use git freely and afterwards puts every repository of the
 * workspace and its writable mounts, at any depth, old or made by the
 * command, back to a state in which git runs nothing the command chose
 * (issue 18):
 *
 *  - a git configuration ("config", "config.worktree") keeps the entries
 *    it held before the command and the entries on a short allowlist
 *    (core.repositoryformatversion, remote.*.url, user.name, ...: keys
 *    that name no program and no other file); every other entry is
 *    removed and named;
 *  - after a command without network (no --net: a network by name counts
 *    as none), what chooses where the host's git connects later is as it
 *    was: the url and pushurl of a remote that existed before are
 *    restored, the partial-clone keys (extensions.partialclone,
 *    remote.*.promisor, remote.*.partialclonefilter) it added are removed,
 *    and a branch.*.remote, branch.*.pushremote or remote.pushdefault it
 *    set, in a configuration there was, to a remote that did not exist
 *    before is removed or restored; the remotes it added stay, and in a
 *    repository it made the routes to them (url.*.insteadOf is off the
 *    allowlist anyway);
 *  - hooks, "commondir", "objects/info/alternates", a ".git" file or
 *    symlink, ".hg/hgrc", ".hg/sharedpath" and ".envrc" are as they were:
 *    what the command created is removed, what it changed is restored;
 *    git init's "*.sample" hooks (never run by git), a worktree's
 *    "commondir" of "../.." and a ".git" file naming a directory inside a
 *    writable anchor (which is then cleaned too) stay;
 *  - worktree and submodule git dirs (the directories in ".git/worktrees"
 *    and, at any depth, ".git/modules") get the same rules.
 *
 * Everything is done on descriptors from the anchors' held descriptors,
 * never following a symlink the command may have planted.  The walk of
 * the workspace before the command is bounded (250,000 entries); the one
 * after it is bounded the same only when the first one met the bound
 * (else what is past it the command made, and hiding a repository behind
 * it must not work); past the bound the rest is not looked at and the
 * clean-up says so.  It enters every directory whose path below its
 * anchor is within PATH_MAX (deeper, no program can name it).
 */
#ifndef WS_VCS_H
#define WS_VCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "ws/workspace.h"

/*
 * How far the walks before and after a command reach below an anchor:
 * paths of fewer bytes than WS_VCS_PATH_MAX, and at most WS_VCS_DEPTH
 * levels.  A tree deeper than that is refused before a command and
 * removed after it, so a file tool must not move a tree past it either.
 */
#define WS_VCS_PATH_MAX 4096
#define WS_VCS_DEPTH (WS_VCS_PATH_MAX / 2 + 8)

struct ws_vcs_snap;

/*
 * Internal (lib/vcs.c, lib/run.c): give this process's user its rwx bits
 * on the directory name in dfd (NULL: dfd itself) where the user owns it
 * and lacks one.  A command owns what it made and can chmod it 0555, so
 * a clean-up that removes or rewrites in it does this first rather than
 * fail (review25 02, 11, 12); a directory of another user is left alone.
 */
void ws__dir_own_rwx(int dfd, const char *name);

/*
 * Internal (lib/vcs.c, lib/run.c): chmod the file fd refers to (an O_PATH
 * descriptor too), never by a name, which a command could swap for a
 * symlink in between (review26 03).  0, or -1 with errno.
 */
int ws__fd_chmod(int fd, mode_t mode);

/*
 * Record, before a command runs, the repositories' watched files in every
 * writable anchor of ws (their identity, and their content up to a
 * budget, to restore them).  Errors: WS_ENOMEM.
 */
int ws_vcs_snapshot(struct ws_ctx *ws, struct ws_vcs_snap **out);

/*
 * After the command: apply the rules above against the snapshot s (NULL:
 * as if nothing existed before); net says the command had every host
 * (--net), and then the remotes' URLs and routes are not pinned.  Each change is appended to *items
 * (*n of them, malloc'd strings: a virtual path, then what was done,
 * such as "/.git/config: removed core.fsmonitor").  Never fails: what
 * cannot be done is named as an item.  ws_vcs_clean_kept() appends what
 * changed while the command ran in a place it could only read (left as
 * it is: "PATH: why") to *kept instead; ws_vcs_clean() to *items.
 */
void ws_vcs_clean_kept(struct ws_ctx *ws, const struct ws_vcs_snap *s, bool net,
		       char ***items, size_t *n, char ***kept, size_t *nkept);
void ws_vcs_clean(struct ws_ctx *ws, const struct ws_vcs_snap *s, bool net,
		  char ***items, size_t *n);

/*
 * The entries that the command's mount namespace bound read-only (or
 * masked), by identity (review25 06): nothing the command did can have
 * changed such a file, or what lies directly in such a directory, so the
 * clean-up after it (ws_vcs_clean(), and wsrun's revert of the places)
 * leaves them as they are, and says so: the person may have changed them
 * while the command ran (an IDE's edit of .vscode/settings.json, a
 * pre-commit install into .git/hooks).  Kept in s, and saved with it.
 * 0 or WS_ENOMEM.
 */
struct ws_vcs_id {
	dev_t dev;
	ino_t ino;
};
int ws_vcs_snap_hold(struct ws_vcs_snap *s, const struct ws_vcs_id *v, size_t n);

/*
 * Whether s holds (ws_vcs_snap_hold()) the directory pst, or the entry st
 * (NULL: none) itself: a regular file only while it has one link (one
 * linked elsewhere could have been written there).
 */
bool ws_vcs_snap_held(const struct ws_vcs_snap *s, const struct stat *st,
		      const struct stat *pst);

/* A bound on the walk before a command, for the tests (past it, what
 * was not recorded is taken for the command's); 0: none, the default. */
void ws_vcs_set_walk_max(size_t n);

/*
 * A snapshot (NULL too) as bytes on f, and back from them into *out: the
 * guardian of wstools mcp (lib/run.c) keeps a copy of each command's, to
 * clean up after a server that was killed.  Save: -1 on a write error;
 * load: 0 or WS_EIO_ERROR (f ended early) or WS_ENOMEM.
 */
int ws_vcs_snap_save(const struct ws_vcs_snap *s, FILE *f);
int ws_vcs_snap_load(FILE *f, struct ws_vcs_snap **out);

/* Free a snapshot (NULL is fine). */
void ws_vcs_snap_free(struct ws_vcs_snap *s);

/*
 * Filter the git configuration text (len bytes): keep the entries that
 * are allowlisted, that ok(key, value, arg) accepts (ok may be NULL), or
 * that the configuration old (NULL: none) held with the same value.
 * *out (malloc'd, NUL terminated) gets the text to write, or NULL when
 * nothing is removed (the text may stay as it is); *removed gets the
 * removed keys, comma separated (malloc'd, NULL when none).  Text git
 * could not parse gives the allowlisted entries read before the error.
 * Keys are "section.subsection.name", section and name lower case.
 * Errors: WS_ENOMEM.
 */
int ws_gitconfig_filter(const char *text, size_t len, const char *old,
			size_t oldlen,
			bool (*ok)(const char *key, const char *value, void *arg),
			void *arg, char **out, char **removed);

/* Flags of ws_gitconfig_clean(). */
#define WS_GITCFG_PIN_ROUTES 0x1u /* the command had no network */

/*
 * ws_gitconfig_filter() without ok, and with flags: WS_GITCFG_PIN_ROUTES
 * also puts back, as old held them, the keys that choose where git
 * connects (ws/vcs.h above): each such key the text changed gets old's
 * entries in place of its first one, and is named in *restored (comma
 * separated, malloc'd, NULL when none) if old held it, else in *removed.
 * Errors: WS_ENOMEM.
 */
int ws_gitconfig_clean(const char *text, size_t len, const char *old,
		       size_t oldlen, unsigned flags, char **out, char **removed,
		       char **restored);

/* Whether the git configuration key (as above) is on the allowlist. */
bool ws_gitconfig_allowed(const char *key);

#endif
