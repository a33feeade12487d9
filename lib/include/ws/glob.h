/*
 * ws/glob.h - shell-style globs over paths, as policies use them
 * (DESIGN.md section 6): `*` and `?` stay within one component, `**`
 * crosses any number of them, `[...]` is a class (`[!...]` or `[^...]`
 * negates), a backslash escapes the next character.  A glob must match the
 * whole path.  A glob ending in a slash and `**` matches everything below
 * the directory before it, but not that directory itself; `**` alone
 * matches everything.  A `**` that is not a whole component (`a**b`) also
 * crosses slashes.
 *
 * Globs are translated by pcre2_pattern_convert(PCRE2_CONVERT_GLOB, with
 * the default options: PCRE2_CONVERT_GLOB_NO_WILD_SEPARATOR would let `*`
 * cross slashes) and compiled with pcre2_compile().  The common shapes (a
 * literal path, a literal directory followed by a slash and `**`, and `**`
 * alone) skip PCRE2 entirely and are matched by comparing strings, so that
 * loading a policy costs almost nothing; the others are only compiled
 * when a path first shares their literal prefix (with WS_GLOB_LAZY), and
 * only a path that both starts with that prefix and ends with the literal
 * text after their last wildcard (".env" of "**" "/.env") is given to
 * PCRE2 at all.
 */
#ifndef WS_GLOB_H
#define WS_GLOB_H

#include <stdbool.h>
#include <stddef.h>

struct ws_glob;

/* Flags for ws_glob_compile(). */
enum {
	/* Always use PCRE2, with no literal prefix or suffix shortcut: the
	 * reference the tests compare the shortcuts with. */
	WS_GLOB_REGEX = 1 << 0,
	WS_GLOB_JIT = 1 << 1,	/* JIT-compile now (else after 64 matches) */
	/* Check the syntax now, but compile with PCRE2 only when a path first
	 * gets past the glob's literal prefix (most never do). */
	WS_GLOB_LAZY = 1 << 2,
};

/*
 * Compile glob into *out.  Errors: WS_EINVALID_PATTERN, with the message
 * naming the byte offset of the problem (and *erroff set to it if not
 * NULL); WS_ENOMEM.
 */
int ws_glob_compile(const char *glob, unsigned flags, struct ws_glob **out,
		    size_t *erroff);

/*
 * Whether the len bytes of s match g as a whole: 1 or 0.  With
 * WS_GLOB_LAZY, compiling may still fail here (out of memory): a negative
 * WS_E* code, which callers must treat as failing closed.
 */
int ws_glob_match(struct ws_glob *g, const char *s, size_t len);

/*
 * Compile g now, JIT included, so that ws_glob_match() changes nothing in
 * it afterwards: a glob shared by threads (a policy a server keeps for
 * its calls) is prepared once, before it is shared.
 */
int ws_glob_prepare(struct ws_glob *g);

/*
 * Free the calling thread's match block (every thread that matched a
 * glob has one): for a thread that ends before the process does.
 */
void ws_glob_thread_end(void);

/* The glob g was compiled from. */
const char *ws_glob_source(const struct ws_glob *g);

/*
 * The PCRE2 pattern g matches with, malloc'd (for --explain and tests);
 * for the string-comparison shapes, the equivalent pattern is converted on
 * the spot.  NULL on failure.
 */
char *ws_glob_regex(const struct ws_glob *g);

/*
 * The directory a glob of the shape "D/" + "**" names, malloc'd and
 * unescaped: "/opt/data/" + "**" gives "/opt/data", "/" + "**" gives "/".
 * NULL for every other shape (a lone "/opt/data", wildcards before the
 * end, "**" alone, a glob forced to WS_GLOB_REGEX) or when out of memory.
 * wsrun turns a policy's allow rules of this shape into Landlock grants.
 */
char *ws_glob_directory(const struct ws_glob *g);

/*
 * The literal text every path the glob matches starts with, unescaped
 * ("" when it starts with a wildcard, as "**" does).
 */
const char *ws_glob_prefix(const struct ws_glob *g);

/* Free a compiled glob (NULL is fine). */
void ws_glob_free(struct ws_glob *g);

/*
 * s with every glob metacharacter (`\ * ? [ ]`) escaped by a backslash,
 * so that it matches itself literally.  malloc'd, NULL on failure.
 */
char *ws_glob_escape(const char *s);

#endif
