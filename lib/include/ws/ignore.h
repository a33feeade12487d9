/*
 * ws/ignore.h - .gitignore rules as git applies them, for wsgrep and wsls.
 *
 * A struct ws_ignore is a stack with one level per directory of a walk:
 * ws_ignore_push() when the walker enters a directory reads that
 * directory's .gitignore through the directory's descriptor, and
 * ws_ignore_pop() when it leaves drops those rules again (the walker's
 * enter/leave order brackets each subtree; see ws/walk.h).  The rules of
 * .git/info/exclude of the top directory sit below every level.  Nothing
 * else is read: no global excludes file, no file outside the walked tree.
 *
 * Semantics (gitignore(5)): blank lines and lines starting with "#" are
 * skipped; trailing spaces are dropped unless escaped with a backslash; a
 * leading "!" negates (re-includes); a trailing "/" matches directories
 * only; a pattern with a slash at its start or in its middle is anchored
 * to the directory of its .gitignore, one without matches the name at any
 * depth below it; "*", "?" and "[...]" do not match "/"; a leading "**\/",
 * a trailing "/\**" and an inner "/\**\/" cross directories; a backslash
 * escapes the next character.  Within one file the last matching line
 * decides; a deeper .gitignore is asked before a shallower one, and
 * .git/info/exclude last.  An ignored directory is not entered, so nothing
 * below it can be re-included, as in git.  The name ".git" is always
 * ignored.
 *
 * Matching costs no allocation: literal names and "*.ext" shapes are
 * compared directly, the rest go through a wildmatch written after git's
 * own (wildmatch.c), so that "**", classes and escapes mean exactly what
 * they mean to git; lib/glob.c's PCRE2 conversion follows policy-glob
 * rules instead, and compiling a regex per .gitignore line would cost
 * more than most walks match.
 */
#ifndef WS_IGNORE_H
#define WS_IGNORE_H

#include <stdbool.h>
#include <stddef.h>

struct ws_ignore;

/* A new, empty rule stack in *out.  Errors: WS_ENOMEM. */
int ws_ignore_new(struct ws_ignore **out);

/* Free a rule stack (NULL is fine). */
void ws_ignore_free(struct ws_ignore *ig);

/*
 * Read .git/info/exclude below the directory open as topfd (each step
 * opened with O_NOFOLLOW, a regular file only, at most 1 MiB) into the
 * bottom level.  A missing file is no error.  Errors: WS_ENOMEM.
 */
int ws_ignore_load_exclude(struct ws_ignore *ig, int topfd);

/*
 * Enter a directory: rel is its path relative to the top of the walk
 * ("" for the top itself, else "a/b" without a trailing slash), dirfd
 * its descriptor, whose ".gitignore" (a regular file, at most 1 MiB,
 * opened with O_NOFOLLOW | O_NONBLOCK) is read, if there is one, into a
 * new level.  dirfd < 0 pushes an empty level.  Errors: WS_ENOMEM.
 */
int ws_ignore_push(struct ws_ignore *ig, int dirfd, const char *rel);

/*
 * The same with the .gitignore text given (len bytes), for callers that
 * read it themselves and for tests.
 */
int ws_ignore_push_text(struct ws_ignore *ig, const char *rel,
			const char *text, size_t len);

/*
 * Before walking the directory at rel (relative to the directory open as
 * rootfd, "a/b" or "" for rootfd itself): read rootfd's
 * .git/info/exclude and push one level for each directory from rootfd
 * down to rel's parent ("" and "a" for "a/b"), each opened with
 * O_NOFOLLOW from the one above, so that rel is walked under the rules
 * of the directories above it, as git applies them.  rel's own level is
 * the walk's to push.  Best effort: a directory that cannot be opened
 * ends the chain.  The caller pops nothing: the levels live as long as
 * ig.  Errors: WS_ENOMEM.
 */
int ws_ignore_push_ancestors(struct ws_ignore *ig, int rootfd,
			     const char *rel);

/* Leave the directory of the deepest level: its rules are dropped. */
void ws_ignore_pop(struct ws_ignore *ig);

/*
 * Whether the entry at rel (relative to the top, no trailing slash,
 * inside the deepest pushed directory or below it) is ignored; is_dir
 * says whether it is a directory.
 */
bool ws_ignore_match(const struct ws_ignore *ig, const char *rel,
		     bool is_dir);

/*
 * For walks in several threads, where a stack has no single current
 * directory: a struct ws_ignore_dir holds one directory's .gitignore and
 * a counted reference to the one of the nearest directory above that
 * had one, so that each directory of the walk keeps the chain it was
 * entered with, shared and never changed.  The struct ws_ignore below it
 * (.git/info/exclude, the ancestors' levels) is only read meanwhile.
 */
struct ws_ignore_dir;

/*
 * Enter a directory (dirfd, rel as for ws_ignore_push()) below parent
 * (NULL at the top): *out is a new level holding its .gitignore, or,
 * when it has none, parent itself; either way one more reference for
 * the caller to drop.  Errors: WS_ENOMEM.
 */
int ws_ignore_dir_new(struct ws_ignore_dir *parent, int dirfd, const char *rel,
		      struct ws_ignore_dir **out);

/* Drop one reference (NULL is fine); thread-safe. */
void ws_ignore_dir_unref(struct ws_ignore_dir *d);

/*
 * ws_ignore_match() for an entry of a directory entered as d: d's chain
 * is asked first, deepest first, then ig's levels (ig may be NULL).
 */
bool ws_ignore_dir_match(const struct ws_ignore *ig,
			 const struct ws_ignore_dir *d, const char *rel,
			 bool is_dir);

/*
 * git's wildmatch with WM_PATHNAME: whether the NUL-terminated text
 * matches the glob pat as a whole ("*" and "?" stop at "/", "**" as
 * above).  With icase, ASCII letters match either case.  Used for
 * --include/--exclude too.
 */
bool ws_wildmatch(const char *pat, const char *text, bool icase);

/*
 * One --include/--exclude glob of wsgrep and wsls, in gitignore syntax,
 * against rel (a path relative to the searched or listed directory): a
 * name alone matches at any depth, a glob with a slash from the top, and
 * a trailing slash ("build/") only where isdir.
 */
bool ws_ignore_glob(const char *glob, const char *rel, bool isdir);

#endif
