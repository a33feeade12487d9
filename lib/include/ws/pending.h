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
 *
 * Separate processes learn the places of wstools' own configuration and
 * policy from a record each run publishes in the user's state
 * (ws_pending_dir()), locked for as long as the run or its guardian
 * lives; ws_pending_has() counts those too.
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
 * to the working directory) passes through a pending place, this
 * process's or one a live run published: one stat() of
 * ws_pending_dir() when no run published any and none is pending here,
 * one fstat() and openat() per component otherwise.  Meant for a file
 * that was found: a loader asks after its open() succeeded.
 */
bool ws_pending_has(const char *path);

/* One place as published: the directory's identity and the name in it. */
struct ws_pending_place {
	dev_t dev;
	ino_t ino;
	const char *name;
};

/* A run's published record (ws_pending_publish()); -1 and "" when none. */
struct ws_pending_rec {
	int dfd;	/* ws_pending_dir() */
	int fd;		/* the record's directory, locked while the run lives */
	char name[64];
};

/*
 * Where runs publish their places, malloc'd: $XDG_STATE_HOME/wstools/
 * running, else ~/.local/state/wstools/running (HOME, else the password
 * database's home); NULL when there is no such place.  Never the
 * configuration's state_dir or --state-dir: the configuration is what
 * the record vets, and every call of the user finds the same place.
 */
char *ws_pending_dir(void);

/* mkdir -p dir (ws_pending_dir()), mode 0700, following no symlink in
 * its last two components (wstools/running): 0 or -errno (-ELOOP). */
int ws_pending_dir_make(const char *dir);

/*
 * Publish the n places for other processes: a record in ws_pending_dir(),
 * locked through rec->fd, which a forked guardian keeps by its copy of
 * the descriptor.  Nothing for n = 0.  0, or -errno (nothing published).
 */
int ws_pending_publish(const struct ws_pending_place *v, size_t n,
		       struct ws_pending_rec *rec);

/* Remove the record and release it (its revert has run). */
void ws_pending_unpublish(struct ws_pending_rec *rec);

#endif
