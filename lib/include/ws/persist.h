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

/*
 * The places, relative to HOME; one ending in "/" is a directory, what
 * is in it counted too.
 */
extern const char *const ws_home_persist[];
extern const size_t ws_home_persist_n;

/*
 * The home directory of the caller's uid in the password file, as it is
 * written there; NULL when there is none (or no memory).  Thread-safe
 * (getpwuid_r): calls of `wstools mcp` run side by side.  malloc'd.
 */
char *ws_passwd_home(void);

/*
 * The caller's HOME, canonical (its symlinks resolved): $HOME when it is
 * absolute and not "/", else the password file's.  NULL when there is
 * none, or it cannot be resolved (it does not exist: nothing is in it
 * either).  malloc'd.
 */
char *ws_home_real(void);

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

#endif
