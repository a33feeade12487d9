/*
 * ws/path.h - lexical path handling: validation, normalization and
 * containment by components.  Nothing here touches the filesystem.
 */
#ifndef WS_PATH_H
#define WS_PATH_H

#include <stdbool.h>
#include <stddef.h>

#define WS_PATH_MAX 4095 /* longest accepted path, in bytes */
#define WS_NAME_MAX 255  /* longest accepted component, in bytes */

/*
 * Check the limits of DESIGN.md section 3 rule 7 on a path of len bytes:
 * no NUL byte, at most WS_PATH_MAX bytes, no component over WS_NAME_MAX.
 * Returns 0 or WS_EINVALID_PATH.
 */
int ws_path_check(const char *p, size_t len);

/* Flags for ws_path_normalize(). */
enum {
	WS_NORM_CLAMP = 1 << 0,  /* ".." at the top stays there (kernel rule) */
	WS_NORM_KEEPDOT = 1 << 1 /* keep ".." components, only drop "." and "//" */
};

/*
 * Normalize p lexically: collapse "//", drop ".", apply "..".  An absolute
 * p gives "/a/b" ("/" for the top), a relative one "a/b" ("" for the top).
 * A ".." that climbs above the top is WS_EPATH_OUTSIDE_WORKSPACE unless
 * WS_NORM_CLAMP is given.  *out is malloc'd.
 */
int ws_path_normalize(const char *p, unsigned flags, char **out);

/*
 * Whether the normalized absolute path p lies inside (or is) the
 * normalized absolute directory base, comparing whole components, so that
 * "/ws" does not contain "/ws2".  On success *rest (if not NULL) points into
 * p at the remainder without a leading slash ("" when p == base).
 */
bool ws_path_within(const char *base, const char *p, const char **rest);

/* Join two paths with exactly one slash between them; "" parts vanish.
 * Returns a malloc'd string or NULL on allocation failure. */
char *ws_path_join(const char *a, const char *b);

/* Whether p contains a ".." component. */
bool ws_path_has_dotdot(const char *p);

/* Whether every byte sequence in s[0..len) is valid UTF-8. */
bool ws_utf8_valid(const char *s, size_t len);

#endif
