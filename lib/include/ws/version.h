/*
 * ws/version.h - a file's version token, for stale-write guards.
 *
 * wsread and wsls give every file a "version" token; wswrite --if-version
 * refuses (VERSION_MISMATCH) when the file's token is no longer the same,
 * which is how an agent learns that the file changed since it read it.
 * The token is derived from what a stat of the open descriptor gives:
 * device, inode, size and modification time to the nanosecond, so an
 * atomic replace (new inode), an in-place change (size or mtime) and a
 * delete-and-recreate all change it, and reading the file does not.
 */
#ifndef WS_VERSION_H
#define WS_VERSION_H

#include <stdbool.h>
#include <sys/stat.h>

/* Room for a token and its NUL. */
#define WS_VERSION_LEN 24

/*
 * Write the token of st into buf (at least WS_VERSION_LEN bytes): 16
 * lowercase hex digits, a hash of st_dev, st_ino, st_size and st_mtim.
 * Returns buf.
 */
char *ws_version_token(const struct stat *st, char *buf);

/* Whether token (as a caller gave it) is the token of st. */
bool ws_version_matches(const struct stat *st, const char *token);

#endif
