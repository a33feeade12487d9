/*
 * ws/vars.h - bash-like variable references in policy paths (DESIGN.md
 * section 6): ${NAME}, ${NAME:-fallback} and ${NAME:-}.
 *
 * NAME is [A-Za-z_][A-Za-z0-9_]*.  The built-ins (PROJECT_ROOT, GIT_ROOT,
 * WORKSPACE) come from a table the caller fills; any other name falls
 * through to the environment (HOME, TMPDIR, ...).  A built-in that is
 * known to be undefined (GIT_ROOT outside git) never falls through.  As in
 * bash, ":-" also uses the fallback when the value is empty.  A "$" not
 * followed by "{" is literal.  There is no nested expansion: a fallback is
 * taken literally, and "${" inside one is an error.
 */
#ifndef WS_VARS_H
#define WS_VARS_H

#include <stdbool.h>
#include <stddef.h>

/* One variable: its name and value (NULL when known to be undefined). */
struct ws_var {
	char *name;
	char *value;
	bool fallback; /* in the used list: the fallback was taken */
};

struct ws_vars {
	struct ws_var *v; /* the table the caller set */
	size_t n;
	struct ws_var *used; /* every name expanded so far, once, in order */
	size_t nused;
	/* The values as the environment spelled them, of the names whose
	 * resolved value (WS_VARS_GLOB) differs from them by more than
	 * repeated or trailing slashes: a symlink, "." or ".." in them. */
	struct ws_var *orig;
	size_t norig;
};

/* Flags for ws_vars_expand(). */
enum {
	/* Escape glob metacharacters in values, so that a directory named
	 * "a[1]" matches itself; fallbacks are glob text and stay as written. */
	WS_VARS_GLOB = 1 << 0,
};

/* An empty table. */
void ws_vars_init(struct ws_vars *vars);

/*
 * Set NAME in the table to value (copied), or to undefined when value is
 * NULL.  Returns 0, WS_EINVALID_ARGUMENT for a bad name, or WS_ENOMEM.
 */
int ws_vars_set(struct ws_vars *vars, const char *name, const char *value);

/*
 * The value of NAME: the table's, else the environment's.  Returns NULL
 * when it is undefined.
 */
const char *ws_vars_get(const struct ws_vars *vars, const char *name);

/*
 * Expand every reference in `in` into *out (malloc'd).  Errors
 * (WS_EPOLICY_ERROR): "undefined variable: NAME" for a reference without
 * fallback to an undefined variable; "malformed variable reference at
 * offset N: ..." for bad syntax ("${FOO", "${}", "${1A}", "${A-b}",
 * nesting).  *erroff (if not NULL) gets the offset of the "$" at fault.
 */
int ws_vars_expand(struct ws_vars *vars, const char *in, unsigned flags,
		   char **out, size_t *erroff);

/* Whether name is a valid variable name. */
bool ws_vars_name_valid(const char *name, size_t len);

/*
 * Whether the resolution of an environment value (WS_VARS_GLOB) changed
 * one that `in` refers to: a symlink, "." or ".." in it.
 */
bool ws_vars_resolved(const struct ws_vars *vars, const char *in);

/* Free the table and the used list. */
void ws_vars_free(struct ws_vars *vars);

#endif
