/*
 * ws/persist.h - the places in a user's HOME whose contents a later
 * login, desktop session, shell or everyday program runs or takes
 * commands from (lib/persist.c): shell start-up files, systemd user
 * units, autostart entries, git's, ssh's and other tools' configuration,
 * directories on PATH.  A wsrun policy grant that holds or lies in one is
 * read-only (ws/grant.h), and the file tools refuse to change one
 * (ws_check()), whatever the policy allows.
 */
#ifndef WS_PERSIST_H
#define WS_PERSIST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The places, relative to HOME; one ending in "/" is a directory, what
 * is in it counted too.
 */
extern const char *const ws_home_persist[];
extern const size_t ws_home_persist_n;

/*
 * The directories the places are found from: HOME, and where the
 * environment of the wstools process (the person's: a command's own
 * environment changes no host program's) moves a part of the list
 * elsewhere.  XDG_CONFIG_HOME takes the places under ~/.config/,
 * XDG_DATA_HOME those under ~/.local/share/, ZDOTDIR zsh's start-up
 * files, PYTHONUSERBASE ~/.local/lib/ (Python's user site), and
 * GIT_CONFIG_GLOBAL is ~/.gitconfig itself (its base is the file);
 * PYENV_ROOT, CARGO_HOME, RUSTUP_HOME and NVM_DIR take the places
 * under ~/.pyenv/, ~/.cargo/, ~/.rustup/ and ~/.nvm/, and BASH_ENV and
 * ENV are files as ~/.bashrc and ~/.kshrc are.  Each absolute directory
 * of PATH is a place itself, as ~/.local/bin is (review14 01: an
 * activated venv's bin/ in the workspace), a base of its own.
 * WS_PERSIST_SOURCED is no variable's: a file (or a directory) a home's
 * shell start-up files source (ws_persist_sourced_add()), the place
 * itself, as $BASH_ENV's file is.
 */
enum ws_persist_kind {
	WS_PERSIST_HOME,
	WS_PERSIST_XDG_CONFIG,
	WS_PERSIST_XDG_DATA,
	WS_PERSIST_ZDOTDIR,
	WS_PERSIST_PYUSER,
	WS_PERSIST_GITCFG,
	WS_PERSIST_PYENV,
	WS_PERSIST_CARGO,
	WS_PERSIST_RUSTUP,
	WS_PERSIST_NVM,
	WS_PERSIST_BASH_ENV,
	WS_PERSIST_ENV,
	WS_PERSIST_PATH,
	WS_PERSIST_SOURCED,
	WS_PERSIST_NKINDS
};

/*
 * A base of kind (enum ws_persist_kind) at the path dir: resolved as far
 * as it exists, through every link, the rest as spelled (a dangling
 * link's target, where what the variable names would be made), or its
 * spelling, lexically normal, where a link on the way makes the two
 * differ.  way (nway real paths) holds the directory entries the
 * resolution passed (ws_path_resolve_tail()): those a writable anchor
 * holds are pinned, or a command re-points a link on the way and moves
 * the base (ws_ctx_home_places_of()).  A spelling's own base has none.
 */
struct ws_persist_base {
	char *dir;
	int kind;
	char **way;
	size_t nway;
};

/*
 * The environment's bases other than HOME into *out (*n of them; the
 * array and what it holds malloc'd: ws_persist_bases_free()): a
 * variable that is unset, empty, or HOME's default for it as spelled
 * ("$HOME/.config") is skipped without a system call, as is a relative
 * one other than PATH's (the XDG specification ignores them); a
 * relative PATH entry names a directory from the current one, as the
 * shell resolves it there, but not one that is the current directory
 * or holds it ("", ".", "..": wsrun(1)); one that spells
 * $HOME/.local/bin is HOME's.  Each base by its resolution and, where
 * a link on the way makes them differ, by its spelling; one already
 * taken is taken once.  Every PATH entry is taken, however many.  0, or
 * WS_ENOMEM (nothing in *out).
 */
int ws_persist_bases(struct ws_persist_base **out, size_t *n);

/*
 * The most read of one start-up file (bytes) when looking for what it
 * sources: a line past it is not looked at.
 */
#define WS_RC_MAX (256L << 10)
/* The most read of all of one home's start-up files together. */
#define WS_RC_BUDGET (1L << 20)

/*
 * What the shell script text (len bytes: a start-up file, or the first
 * WS_RC_MAX bytes of one, cut is true then, and its last, cut line is
 * not looked at) sources below HOME, appended to *out (*n paths, each
 * malloc'd, as is the array): relative to HOME, lexically normal, never
 * HOME itself nor above it, each once.  Taken: the word after `source`
 * or `.` at a command's start (after `if`, `then`, `do`, `&&`, `;`, ...:
 * `[ -f X ] && . X`), and the words of a `for NAME in WORDS` list; a
 * word that is `~/...`, `$HOME/...` or `${HOME}/...` (unquoted or in
 * double quotes), an absolute path below home (NULL: none is), or a
 * relative one (the shell starts in HOME).  One with any other
 * expansion ($ZDOTDIR, $(...), `...`, ~user) or in single quotes is not
 * taken; one with a glob (*, ?, [) gives the directory before its first
 * globbed component, with a trailing "/".  Comments are skipped.
 * 0, or WS_ENOMEM.
 */
int ws_rc_sourced_parse(const char *text, size_t len, bool cut,
			const char *home, char ***out, size_t *n);

/* The most paths taken from one home's start-up files. */
#define WS_RC_TARGETS 64

/*
 * The files and directories the start-up files of each of the n homes
 * source (ws_rc_sourced_parse()), appended to *b (*nb bases, as
 * ws_persist_bases() gives them) as bases of kind WS_PERSIST_SOURCED,
 * resolved and spelled as ws_persist_bases() takes a variable's: the
 * shells' (bash, sh, ksh, zsh in HOME and in $ZDOTDIR below it, csh,
 * fish's config.fish, $BASH_ENV's and $ENV's below it, X's session
 * scripts), and what a file they source sources in turn (one level
 * more, not read).  Each read through a descriptor of the home,
 * beneath it (openat2 RESOLVE_BENEATH: no link out of the home is
 * followed, nor a magic link), a regular file only, its first
 * WS_RC_MAX bytes, WS_RC_BUDGET for all of a home's.  A path that is
 * one of the listed places already is not taken again.  0, or
 * WS_ENOMEM (*b then holds what was taken before it ran out).
 */
int ws_persist_sourced_add(char *const *homes, size_t nh,
			   struct ws_persist_base **b, size_t *nb);

/* Free what ws_persist_bases() gave. */
void ws_persist_bases_free(struct ws_persist_base *b, size_t n);

/*
 * What ws_persist_bases() and ws_homes() depend on besides the files,
 * as one malloc'd string (NULL when out of memory): every kind's
 * variable, and the current directory when PATH has a relative entry
 * (ws_persist_bases() takes it from there).  A long-lived caller that
 * keeps what it resolved from the bases compares this key at each
 * check, so that a variable it did not think of cannot go unnoticed.
 */
char *ws_persist_env_key(void);

/*
 * Place i (ws_home_persist[i]) below the base dir of kind: its path into
 * buf (len bytes, without a trailing slash); false where the place is
 * not one of that kind's, or too long.
 */
bool ws_persist_path(const char *dir, int kind, size_t i, char *buf,
		     size_t len);

/*
 * The places of kind: the indexes i (ascending) of ws_home_persist[] for
 * which ws_persist_path() can be true, in *idx (static, never freed);
 * returns how many.  The others need not be asked about.
 */
size_t ws_persist_places(int kind, const size_t **idx);

/*
 * As ws_home_persist_in() and ws_home_persist_reached(), for a base
 * dir of kind.
 */
const char *ws_persist_in(const char *dir, int kind, const char *p);
const char *ws_persist_reached(const char *dir, int kind, const char *d);

/*
 * Whether an anchor (a workspace or mount, its real path real) is in a
 * place below the base dir of kind, and so read-only as a whole: as
 * ws_persist_in(), but an anchor below a directory of PATH is not (a
 * shell runs only that directory's own entries; ~ on PATH leaves ~/proj
 * writable), only the directory itself is.
 */
bool ws_persist_anchor_in(const char *dir, int kind, const char *real);

/*
 * How place (a ws_home_persist[] entry) below a base of kind is shown:
 * "~/.config/git", "$XDG_CONFIG_HOME/git", "$GIT_CONFIG_GLOBAL" (no
 * trailing slash), "a directory on $PATH", into buf (len bytes).
 */
void ws_persist_show(int kind, const char *place, char *buf, size_t len);

/*
 * The home directory of the caller's uid in the password file
 * (/etc/passwd, read by ws_passwd_file_home(), not through the name
 * service: a static binary cannot load NSS modules), as it is written
 * there; else ws_passwd_home_nss's answer where it is set; NULL when
 * there is none (or no memory).  Thread-safe: calls of `wstools mcp` run
 * side by side.  malloc'd.
 */
char *ws_passwd_home(void);

/*
 * The name service's home for uid (getpwuid_r: LDAP, sssd), for a user
 * the password file does not list; malloc'd, or NULL.  Set by the main()
 * of a binary linked dynamically (cmd/main.c, WS_MAIN_NSS); NULL in the
 * static ones (meson.build's static_pie), which must not reach NSS.
 */
extern char *(*ws_passwd_home_nss)(uid_t uid);

/* The largest password file read (bytes): a larger one is not read. */
#define WS_PASSWD_MAX (64L << 20)

/*
 * The home directory of uid in the password file at path (passwd(5));
 * NULL when it cannot be read, is not a regular file, is larger than
 * WS_PASSWD_MAX, or has none (ws_passwd_parse_home()).  malloc'd.
 */
char *ws_passwd_file_home(const char *path, uid_t uid);

/*
 * The home directory of uid in text, len bytes of a password file
 * (passwd(5): "name:password:UID:GID:GECOS:directory:shell", a line
 * each; the last line may lack its newline), as it is written there;
 * NULL when no line qualifies, its directory is empty, or no memory.
 * Strict: a line counts only with exactly seven fields, a name, and a
 * UID of decimal digits (no sign, no blank, within uid_t); any other
 * line, an empty one, a comment ('#'), an NIS entry ('+', '-') or one
 * holding a NUL is skipped.  The first line that counts with uid decides,
 * as in glibc's files module.  malloc'd.
 */
char *ws_passwd_parse_home(const char *text, size_t len, uid_t uid);

/*
 * The caller's HOME, canonical (its symlinks resolved): $HOME when it
 * resolves to a directory other than "/", else the password file's.  NULL
 * when neither does.  malloc'd.
 */
char *ws_home_real(void);

/*
 * The homes to guard, canonical, into out (malloc'd, the caller frees):
 * $HOME's and the password database's (ws_passwd_home()), each when it
 * resolves to a directory other than "/", the second only when it is
 * another directory (device and inode); the environment alone does not
 * switch the guard off.  Returns how many (0 to 2).
 */
size_t ws_homes(char *out[2]);

/* Free the n homes ws_homes() gave. */
void ws_homes_free(char **homes, size_t n);

/*
 * The place (as listed) that the canonical absolute path p is, or lies
 * in, under home; NULL if none.
 */
const char *ws_home_persist_in(const char *home, const char *p);

/*
 * The first place under home that the canonical absolute directory dir
 * is, holds or lies in (a grant of it would reach the place); NULL if
 * none.
 */
const char *ws_home_persist_reached(const char *home, const char *dir);

/*
 * As ws_home_persist_reached(), and a place reached through a link on
 * its way (stow's ~/.config -> dotfiles/config) by its real path too,
 * or by a link on that way (a grant holding it could re-point it): what
 * a policy's write grant is held to.  Resolving costs an lstat() per
 * prefix of the places.
 */
const char *ws_home_persist_reaches(const char *home, const char *dir);

/*
 * Whether the canonical absolute directory real (a workspace's or a
 * mount's) is, or lies in, one of the places of either of the caller's
 * homes (ws_homes(): $HOME's and the password file's, as the file tools
 * guard both; as spelled, or by its real path through a link on its
 * way), or one below another base (ws_persist_bases()): the file tools
 * write nothing there, and wsrun keeps it read-only.
 */
bool ws_home_persist_anchor(const char *real);

/* ws_home_persist_anchor()'s test for one home (or NULL), bases aside. */
bool ws_home_persist_anchor_of(const char *home, const char *real);

/*
 * ws_home_persist_anchor_of() for each of the n homes (ws_homes()'s):
 * whether real is in a place of any of them.
 */
bool ws_homes_persist_anchor(char *const *homes, size_t n, const char *real);

#endif
