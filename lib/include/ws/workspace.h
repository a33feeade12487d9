/*
 * ws/workspace.h - the workspace context: the root, the mounts, the
 * options that change how paths map, and mapping between the virtual view
 * and real paths.
 *
 * Each place a path can start from is an "anchor": anchor 0 is the
 * workspace root (virtual "/"), anchors 1.. are the mounts.  An O_PATH
 * descriptor of every anchor is opened once and held for the whole call,
 * so that every later lookup starts from a descriptor, never a string.
 */
#ifndef WS_WORKSPACE_H
#define WS_WORKSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Options of a workspace context. */
enum {
	WS_STRICT = 1 << 0,	   /* DESIGN.md 3 rule 8 */
	WS_ALLOW_OUTSIDE = 1 << 1, /* DESIGN.md 3 rule 9: boundary off */
	/*
	 * Internal: paths are names read from the disk (an undo putting back
	 * a deleted tree), so a backslash is a byte of a name, not a
	 * separator, and strict mode does not refuse it.
	 */
	WS__DISK_NAMES = 1 << 16,
};

/* Why ws_ctx_guarded() refuses a change (0: it does not). */
enum ws_guard_kind {
	WS_GUARD_NONE = 0,
	WS_GUARD_OWN,	  /* wstools' own configuration or policy */
	WS_GUARD_ANCHOR,  /* an entry the spelling of the root or a mount uses */
	WS_GUARD_PERSIST, /* a persistence guard (ws/guard.h) */
};

/* The host filesystem root, used only with WS_ALLOW_OUTSIDE. */
#define WS_ANCHOR_HOST (-1)

struct ws_policy;
struct ws_guards;
struct ws_audit;
struct ws_history;

/* One directory whose runs' lock a changing call holds (struct ws_ctx). */
struct ws_runs_lock {
	dev_t dev;
	ino_t ino;
	int fd;
};

struct ws_anchor {
	char *vprefix; /* "/" for the root, "/.skills" for a mount */
	char *real;    /* real directory, resolved through symlinks */
	int fd;	       /* O_PATH | O_DIRECTORY descriptor of real */
	bool ro;       /* a ":ro" mount */
};

struct ws_ctx {
	struct ws_anchor *anchors; /* [0] is the root */
	size_t nanchors;
	unsigned flags;
	int host_fd; /* O_PATH of "/", opened on first use with ALLOW_OUTSIDE */
	/*
	 * The runs' locks a changing call holds shared (ws_ctx_wait_runs(),
	 * ws_ctx_hold_dir()): one per directory that is or could be a
	 * command's top above what the call changes, by device and inode,
	 * each with its descriptor (-1: one that could not be opened, a run
	 * there would be another user's); closed by ws_ctx_close().  This
	 * call's own: MCP runs calls at once, each with its own context.
	 */
	struct ws_runs_lock *runs;
	size_t nruns, runs_cap;
	bool runs_on;	     /* the call changes files: it holds them */
	long long runs_wait0; /* when its first wait began (ms), or 0 */
	char *alias; /* the root as spelled through a symlink, or NULL */
	struct ws_policy *policy; /* NULL: everything inside is allowed */
	bool approve;		  /* --approve was given */
	bool no_prompt;		  /* checks may not ask on the terminal */
	/*
	 * A person's command line: a relative path not found at the root
	 * but found relative to the current directory (inside the
	 * workspace, below its root) gets a hint that says so.  Not for a
	 * model, which has no current directory.
	 */
	bool cwd_hint;
	/*
	 * A call's reported NOT_FOUND whose missing name is one edit away
	 * from a name in the last directory that exists (a typo) gets a
	 * "did you mean" hint (ws_resolve_name_hint(), from
	 * ws_tcall_fail()), and one whose path holds U+FFFD says why: for
	 * the file tools' callers, person or model.
	 */
	bool name_hint;
	/*
	 * wstools' own control files and directories (the configuration's
	 * places, the policy, the policy directories): no tool changes
	 * them, policy or not, or an agent could rewrite its own rules.
	 */
	char **guard;
	size_t nguard;
	bool guard_canonical; /* guard[] resolved (on the first check) */
	/* Per guard[]: a file's, resolved only by a check that may touch
	 * it (ws_ctx_guard_file()); NULL while there is none. */
	bool *guard_lazy;
	/* The same as spelled (absolute, not resolved): a write grant must
	 * not hold a symlink on the way to one (lib/grant.c). */
	char **guard_spell;
	size_t nguard_spell;
	/* Per guard_spell[]: recorded as spelled, since it passes through
	 * no symlink (ws_ctx_guard_file() with no_symlinks). */
	bool *guard_spell_plain;
	/* guard_spell[0..n) have their entries in entries[] (recorded by
	 * the first check that may change something). */
	size_t nguard_recorded;
	/*
	 * The history's state directory (the one holding every workspace's,
	 * ws_hist_guard()), as named and, from the first read check, its
	 * real path: no tool reads there, where the journals and objects
	 * hold what files held before a change (review12 01).
	 */
	char *hist_base;
	char *hist_real;
	bool hist_resolved;
	/*
	 * HOME's .local/state/wstools by its real path, where that path does
	 * not read so (~/.local a link): from the first check, NULL when
	 * there is none such (review19 09).
	 */
	char *state_alias;
	bool state_alias_done;
	/*
	 * Every directory entry the spelling of the root or of a mount
	 * passes through, as "<resolved parent>/<name>": each component as
	 * spelled and each one a symlink on the way leads through.  The
	 * next call resolves the same spelling again, so no tool may
	 * create, replace, move or delete one of these (nor a directory
	 * holding one), or it would move the next call's boundary.
	 * Recorded while the anchors are resolved, at no extra cost; the
	 * guards' (guard_spell) by the first ws_ctx_guarded().
	 */
	char **entries;
	size_t nentries;
	/*
	 * Project detection (DESIGN.md 6) as the session runs it: its
	 * markers (NULL: the default list) and whether the roots are pinned
	 * (--project-root, --no-detect-root, configuration), in which case
	 * markers decide nothing and are not guarded.
	 */
	char **markers;
	size_t nmarkers;
	bool roots_pinned;
	/* The persistence guards (ws/guard.h); NULL: the defaults, set on
	 * first use. */
	struct ws_guards *persist;
	/*
	 * HOME's persistence places as the writable anchors hold them
	 * (ws_ctx_home_places()), resolved once a call, by the first check
	 * that may change something or the sandbox plan
	 * (ws_ctx_home_places_call()).
	 */
	struct ws_home_place *home_places;
	size_t nhome_places;
	bool home_places_done;
	/*
	 * The bases the environment names and the homes
	 * (ws_ctx_persist_env()): resolved once a call, where the policy's
	 * check, the places above and a command's sandbox plan each asked
	 * again (PATH's directories, a readlink() a component, and the
	 * password file).
	 */
	struct ws_persist_base *penv_bases;
	size_t penv_nbases;
	char *penv_home[2];
	size_t penv_nhome;
	char *penv_key;		/* ws_persist_env_key() they were made with */
	bool penv_done;
	/*
	 * While a recursive delete or move asks about every entry of a
	 * tree: the tree's real path (and the move's destination).  A
	 * repository's own directory strictly inside goes or moves as a
	 * whole with it, as without a policy (ws/guard.h, "**" "/" NAME).
	 */
	const char *whole[2];
	/* The call's audit log (ws/audit.h), or NULL; not owned. */
	struct ws_audit *audit;
	/* The workspace's history (ws/history.h), or NULL: nothing is
	 * recorded.  Owned: ws_ctx_close() closes it. */
	struct ws_history *history;
	/*
	 * The anchors' descriptors belong to another context this one was
	 * made from (ws_ctx_share()): ws_ctx_close() leaves them open.
	 */
	bool borrowed_fds;
};

/*
 * Open a workspace: root is resolved through symlinks once and must be a
 * directory (else WS_EWORKSPACE_NOT_FOUND).  root NULL means the current
 * directory.
 */
int ws_ctx_open(struct ws_ctx *ws, const char *root, unsigned flags);

/*
 * Add a mount from a "VPREFIX=DIR[:ro]" spec.  VPREFIX must be absolute and
 * not "/"; DIR must be an existing directory.
 */
int ws_ctx_add_mount(struct ws_ctx *ws, const char *spec);

/*
 * Add a mount given as data: DIR at VPREFIX, read-only if ro.  Nothing
 * is parsed out of dir (a directory whose name holds "=" or ends in
 * ":ro" is that directory), for callers whose directories come from
 * elsewhere (an MCP client's roots).
 */
int ws_ctx_add_mount_dir(struct ws_ctx *ws, const char *vprefix, const char *dir,
			 bool ro);

/* Add every mount of a comma-separated list (the WS_MOUNTS form). */
int ws_ctx_add_mounts(struct ws_ctx *ws, const char *list);

/*
 * Add a path (file or directory, existing or not) that no tool may
 * change.  A relative path is taken from the current directory.
 */
int ws_ctx_guard(struct ws_ctx *ws, const char *path);

/*
 * The same for a regular file that the caller has opened with
 * O_NOFOLLOW (the audit log), so that the last component of path is the
 * file's own name: its spelling is resolved (a realpath(), a readlink()
 * a component) only when a check may touch it -- one that may hold the
 * file (ancestors), one on a path with a component of that name, or one
 * on "/", which resolves every guard -- rather than on every call's
 * first change (issue 22).  With no_symlinks (the caller opened it with
 * none allowed on the way: ws_audit_plain()), the entries its spelling
 * passes through are recorded from the spelling alone, without the
 * lstat() and the readlink() a component ws_ctx_guard() makes.
 */
int ws_ctx_guard_file(struct ws_ctx *ws, const char *path, bool no_symlinks);

/*
 * Whether changing the real path real touches a guarded path: real is
 * inside one, or (with ancestors, for rename and delete) holds one; or
 * real is an entry the spelling of an anchor passes through (ws_ctx
 * entries), or (with ancestors) a directory holding one; or a
 * persistence guard (ws_guard_persist_match()).  real is the
 * entry itself: its parent resolved, its last component as it is.
 * Returns the reason (enum ws_guard_kind), 0 if the change is allowed.
 */
int ws_ctx_guarded(struct ws_ctx *ws, const char *real, bool ancestors);

/*
 * Whether st, a file about to be changed through some name, is a guarded
 * file by its inode (st_dev, st_ino): a hard link to wstools' own
 * configuration, policy or audit log made elsewhere (in the workspace)
 * is that file under another name, which ws_ctx_guarded() does not see
 * by path.  Only a regular file of more than one link can be one (its
 * own name is guarded by path), so the guards are looked up, a stat
 * each, only then: nothing on the common path.  Returns the guarded
 * path, or NULL.  A guarded directory's files are not looked for.
 */
const char *ws_ctx_guarded_inode(struct ws_ctx *ws, const struct stat *st);

/*
 * A guarded regular file (wstools' own configuration, policy or audit
 * log) that has another hard link on the file system of a writable
 * anchor: a command, which writes the anchors directly, could change the
 * file through that name, which no path guard sees.  Returns its path,
 * or NULL.  A stat per guard (wsrun, once a call).
 */
const char *ws_ctx_guard_linked(struct ws_ctx *ws);

/*
 * Set how the session detects project roots: markers (copied; NULL for
 * the default list) and whether the roots are pinned.
 */
int ws_ctx_set_detection(struct ws_ctx *ws, const char *const *markers,
			 size_t nmarkers, bool pinned);

/* What a change may do to its entry, for ws_ctx_marker_guarded(). */
enum {
	WS_CHANGE_CREATES = 1 << 0, /* makes the entry if it is not there */
	WS_CHANGE_REMOVES = 1 << 1, /* takes it away if it is there */
};

/*
 * Whether changing the entry real (how: WS_CHANGE_* flags; a rename may
 * do both) would change what project detection finds from the workspace
 * (PROJECT_ROOT or GIT_ROOT): real names a marker or ".git" in the
 * workspace's top directory or one of its ancestors, detection is not
 * pinned, and detecting again with that entry added (or gone) gives other
 * roots.  Only such entries cost anything (a stat and two detections);
 * for any other real this compares strings.  When not NULL, *before and
 * *after (malloc'd) name the root that would change ("PROJECT_ROOT=/a",
 * "PROJECT_ROOT=/b").  Out of memory fails closed (true).
 */
bool ws_ctx_marker_guarded(struct ws_ctx *ws, const char *real, unsigned how,
			   char **before, char **after);

/*
 * Make dst a context of src's root and mounts as ws_ctx_open() and the
 * mounts made them (anchors, alias, the entries their spelling passed),
 * for one call of a server that opened src once: the strings are
 * copied, the descriptors borrowed (src must stay open while dst is),
 * nothing else is taken (no guards, policy, detection or history: the
 * call adds its own).  src must hold only what opening and mounting
 * put in it.
 */
int ws_ctx_share(struct ws_ctx *dst, const struct ws_ctx *src);

/* Close every descriptor and free the context. */
void ws_ctx_close(struct ws_ctx *ws);

/* The descriptor of an anchor (or of "/" for WS_ANCHOR_HOST). */
int ws_ctx_anchor_fd(struct ws_ctx *ws, int anchor);

/* The real directory of an anchor ("/" for WS_ANCHOR_HOST). */
const char *ws_ctx_anchor_real(const struct ws_ctx *ws, int anchor);

/*
 * HOME's persistence place i (ws_home_persist[i]) below home, a base of
 * kind (enum ws_persist_kind: HOME's own, or one the environment moves,
 * ws_persist_path()), as a writable anchor of ws holds it: the anchor's
 * index, and in *rest the path below it (never empty), or -1 where the
 * place is not the kind's or no writable anchor holds it.  real (len
 * bytes) receives the place's real path.
 */
int ws_ctx_home_place(const struct ws_ctx *ws, const char *home, int kind,
		      size_t i, char *real, size_t len, const char **rest);

/*
 * The path (a relative one from the current directory) resolved as far
 * as it exists, through every link on its way, and the rest appended as
 * spelled ("." skipped, ".." lexical): where a dangling link's target,
 * or a missing directory, would be made through it.  out (PATH_MAX
 * bytes) receives it, and *entries (*n real paths, each malloc'd, as is
 * the array) every directory entry the walk passed: each component as
 * spelled, each a link led to, and the first missing one where a ".."
 * follows it (what the ".." reaches depends on what it is made).  One
 * readlink() a component, as realpath(3).
 * 0, or -errno (a loop, a file on the way): *entries then holds those
 * passed before the failure, which the caller frees as well.
 */
int ws_path_resolve_tail(const char *path, char *out, char ***entries,
			 size_t *n);

/*
 * What readlink() said of each path that a run of resolutions asked
 * about (zero-initialised; ws_link_memo_free()): resolving many paths
 * with shared prefixes (PATH's directories: /usr, /usr/local,
 * ~/.pyenv) then asks once a prefix.  For resolutions that make one
 * decision together (one call's persistence bases), never kept longer.
 */
#define WS_LINK_MEMO_MAX 128
struct ws_link_memo {
	char *path[WS_LINK_MEMO_MAX], *target[WS_LINK_MEMO_MAX];
	size_t n;
};

/* ws_path_resolve_tail(), asking readlink() through m (or NULL). */
int ws_path_resolve_tail_memo(const char *path, char *out, char ***entries,
			      size_t *n, struct ws_link_memo *m);

/* Free what m holds (m itself is the caller's). */
void ws_link_memo_free(struct ws_link_memo *m);

/*
 * What ws_home_place_resolve() found of each prefix it looked at, for
 * the next place (zero-initialised; ws_place_memo_free()).  A prefix's
 * entries are handed out by the first call that resolves it only.
 */
struct ws_place_memo {
	char **pre, **res;
	int *kind;
	size_t n;
	/*
	 * The names in home (the first call's), read once with their
	 * types: a place's first component below home is looked up here,
	 * not with an lstat() each (listed: 0 not yet, 1 read, -1 failed).
	 */
	char *home, *names;
	unsigned char *types;
	size_t nnames, names_len;
	int listed;
	/*
	 * The same for the directories right below home that places lie
	 * in (~/.config, ~/.local): their names read once, not an lstat()
	 * per place below them.
	 */
	struct ws_place_listing {
		char *dir, *names;
		unsigned char *types;
		size_t nnames, names_len;
		int listed;
	} *sub;
	size_t nsub;
};

/*
 * The real path of HOME's persistence place lexical (home's canonical
 * path, from bytes long, then the place) when a component of it below
 * home is a symlink (stow's ~/.config -> dotfiles/config): the deepest
 * such link resolved, the rest appended, into out (len bytes), and in
 * *entries (*n, malloc'd) every directory entry that resolution passed
 * through.  Returns 1 then, 0 where no link is on the way (the place is
 * its spelling; a component missing ends the walk), or -errno.  A link
 * that dangles resolves to what it names, where the place would be made
 * through it (review16 03).  memo
 * (or NULL) keeps what one call learnt for the next (struct
 * ws_place_memo).
 */
int ws_home_place_resolve(const char *lexical, size_t from, char *out,
			  size_t len, char ***entries, size_t *n,
			  struct ws_place_memo *memo);

/* Free what a memo holds (it can be used again). */
void ws_place_memo_free(struct ws_place_memo *m);

/*
 * As ws_ctx_home_place(), for the place's resolved path
 * (ws_home_place_resolve()): -1 also where it is its spelling.  memo (or
 * NULL) is ws_home_place_resolve()'s, kept across one base's places: each
 * prefix they share (~/.config) is looked at once.
 */
int ws_ctx_home_place_resolved(const struct ws_ctx *ws, const char *home,
			       int kind, size_t i, char *real, size_t len,
			       const char **rest, struct ws_place_memo *memo);

/* A persistence place as a writable anchor holds it (ws_ctx_home_places()). */
struct ws_home_place {
	int anchor;
	char *rest; /* below the anchor, never empty */
	/*
	 * An entry on a place's way, not a place: a link, what one leads
	 * to, a directory the spelling passes, or the first missing
	 * component of a spelling whose rest holds "..".  The command may
	 * write in it but not remove, replace, rename or make it (pinned,
	 * or removed after the command if it made it); no tool changes it.
	 */
	bool way;
};

/*
 * Every one of HOME's persistence places that a writable anchor of ws
 * holds, below each of the caller's homes (ws_homes(): $HOME's and the
 * password file's, as the file tools guard both) and below each base
 * the environment moves (ws_persist_bases()): for each place, by its spelling
 * (ws_ctx_home_place()), then by its resolved path
 * (ws_ctx_home_place_resolved()), into *out (*n entries, malloc'd;
 * ws_home_places_free()).  The resolution a call's sandbox plan and its
 * snapshot of what to revert share (one walk of HOME a call, not two);
 * whether each place exists is for each of them to ask at its time.
 * 0 or WS_ENOMEM.
 */
int ws_ctx_home_places(const struct ws_ctx *ws, struct ws_home_place **out,
		       size_t *n);

/*
 * ws_ctx_home_places() for a caller that holds the homes' real paths
 * (home, nh of them: ws_homes()'s) and the environment's bases
 * (ws_persist_bases()) already, so that a call resolves them once
 * (PATH's directories are as many bases).  The entries on the places'
 * ways that a writable anchor holds are in *out too, after the places,
 * marked way: every directory entry the resolutions of places reached
 * through a link passed through (ws_home_place_resolve()'s entries: the
 * links on the way and what they lead to) and those the bases' own
 * resolutions passed (ws_persist_bases()): a link there that a command
 * or a tool re-points moves the place (~/.config/git -> WS/a/gitcfg,
 * WS/a -> b; PATH=WS/tools/bin, WS/tools -> realdir).  A PATH
 * directory above the writable anchors (~ on PATH, the workspace
 * ~/proj) is no place for them (ws_persist_anchor_in()), but what its
 * own links lead to there is (~/tool -> proj/build/tool).  With ways (or
 * NULL), *ways (*nways real paths, each malloc'd, as is the array)
 * receives the first kind of them, wherever they are.  0 or WS_ENOMEM.
 */
/*
 * For a call that changes files (write, edit, mkdir, move, delete,
 * undo): wait until no wsrun command runs in a directory the call may
 * change, and keep the next from starting until ws_ctx_close().  wsrun
 * holds its lock on its workspace's top (flock, exclusive) from before
 * the walk before the command to the end of the clean-up after it; a
 * file tool's move meanwhile could carry a planted repository past that
 * walk (review28 08), or change what the walk took for the person's.
 * That top need not be this call's: a server on W and a command run by
 * another on W/proj (review30 01).  So the lock is taken, shared, on
 * every directory that could be a command's top above a change: here
 * each writable anchor and each of its real ancestors up to "/", and,
 * for each change, the directories between its anchor and the
 * directory it changes in (ws_ctx_hold_dir(), from ws_resolve()).
 * Shared: changing calls do not wait for each other.  Not inside a
 * wsrun command (WS_SANDBOX=1), whose own run holds the lock.  Waits
 * WS_RUNS_WAIT_MS at most in all (below the 60 s an MCP client gives a
 * call by default, so that the model gets the reason, not a timeout),
 * then LIMIT_EXCEEDED; a stop asked (ws_cancelled()) ends the wait too.
 * 0 or a WS_E*.
 */
#define WS_RUNS_WAIT_MS 45000
int ws_ctx_wait_runs(struct ws_ctx *ws);

/*
 * In a changing call (after ws_ctx_wait_runs()): hold, shared, the runs'
 * lock of the directory dirfd (any descriptor of it, O_PATH too) and of
 * each directory above it up to one the call holds already, found by
 * ".." on descriptors, never by a path; wait as ws_ctx_wait_runs() does
 * for a command whose top one of them is.  Held until ws_ctx_close().
 * A directory that cannot be opened for reading is passed over: a
 * command there would be another user's.  No-op in any other call.
 * 0 or a WS_E*.
 */
int ws_ctx_hold_dir(struct ws_ctx *ws, int dirfd);

/* The message of the wait's progress reports (ws/cancel.h), by which a
 * front end knows them (the command line says once that it waits). */
extern const char ws_runs_wait_msg[];

struct ws_persist_base;

/*
 * The environment's persistence bases (ws_persist_bases()), with what
 * the start-up files of a home that holds a writable anchor or lies in
 * one source (ws_persist_sourced_add(), read here, once a context: the
 * MCP server's calls each have their own), and the homes (ws_homes()),
 * resolved by the call's first ask and kept in ws
 * while the environment they come from is the same (ws_persist_env_key();
 * else made again, and the home places with them): what they point at
 * is the ws's, not to be freed.  A call is one decision, made on one
 * resolution of them.
 * 0 or WS_ENOMEM.
 */
int ws_ctx_persist_env(struct ws_ctx *ws, const struct ws_persist_base **xb,
		       size_t *nxb, char *const **home, size_t *nh);

int ws_ctx_home_places_of(const struct ws_ctx *ws, char *const *home,
			  size_t nh, const struct ws_persist_base *xb, size_t nxb,
			  struct ws_home_place **out, size_t *n, char ***ways,
			  size_t *nways);

/* Free what ws_ctx_home_places() gave. */
void ws_home_places_free(struct ws_home_place *v, size_t n);

/*
 * The call's resolution of HOME's persistence places
 * (ws_ctx_home_places()), made once a context and kept in it: *v (*n
 * entries) is the context's, valid until ws_ctx_close().  Once made,
 * ws_ctx_home_places() copies it rather than walking HOME again.  0 or
 * WS_ENOMEM.
 */
int ws_ctx_home_places_call(struct ws_ctx *ws, const struct ws_home_place **v,
			    size_t *n);

/*
 * The anchor whose real directory is the longest component prefix of the
 * normalized absolute real path p, or -1 if none; *rest gets the remainder.
 */
int ws_ctx_anchor_of_real(const struct ws_ctx *ws, const char *p,
			  const char **rest);

/*
 * The mount whose virtual prefix is the longest component prefix of the
 * normalized absolute virtual path v, or 0 (the root) if none; *rest gets
 * the remainder.
 */
int ws_ctx_anchor_of_virtual(const struct ws_ctx *ws, const char *v,
			     const char **rest);

/*
 * Map a real path to its virtual form, lexically.  A path outside the root
 * and every mount, or hidden behind a mount that shadows it, has no
 * virtual form: WS_EPATH_OUTSIDE_WORKSPACE.  *out is malloc'd.
 */
int ws_ctx_to_virtual(const struct ws_ctx *ws, const char *real, char **out);

/*
 * The canonical form of an absolute path that may not exist: the deepest
 * existing ancestor resolved through symlinks (realpath(3)), the rest
 * appended and normalized.  For comparing paths given as configuration
 * (HOME, a config file's place) with resolved ones; never for access.
 */
int ws_canonical_path(const char *abs, char **out);

/* The virtual path of (anchor, rel), malloc'd into *out. */
int ws_ctx_virtual_of(const struct ws_ctx *ws, int anchor, const char *rel,
		      char **out);

#endif
