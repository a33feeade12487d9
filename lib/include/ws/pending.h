/*
 * ws/pending.h - the places that commands running in this process may
 * have created and that their revert will remove (wstools' own
 * configuration and policy places, persistence guards, lib/run.c): while
 * one runs, what it made there is live, and a parallel call (wstools mcp)
 * would load a configuration or policy the command just wrote (a mount
 * of /).  The configuration and policy loaders take a file inside such
 * a place as absent: what it is before the command and after its revert
 * (not an error: the parallel call did nothing wrong, and it gets the
 * boundary the session had).  Empty in a process of one call (wsrun).
 */
#ifndef WS_PENDING_H
#define WS_PENDING_H

#include <stdbool.h>
#include <sys/types.h>

/* Add the place name in the directory (dev, ino), for owner (a call). */
void ws_pending_add(dev_t dev, ino_t ino, const char *name, const void *owner);

/* Drop owner's places (its revert has run). */
void ws_pending_drop(const void *owner);

/*
 * Whether path (as an open() would find it, symlinks followed, relative
 * to the working directory) passes through a pending place: one
 * fstat() and openat() per component while any place is pending,
 * nothing otherwise.
 */
bool ws_pending_has(const char *path);

#endif
