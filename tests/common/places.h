/*
 * places.h - persistence places shared by the CLI suites, so that the
 * file tools' suite (test_guards.c) and the command runner's
 * (test_wsrun.c) check one list and cannot drift apart.
 */
#ifndef WST_PLACES_H
#define WST_PLACES_H

#include <stddef.h>

/*
 * The HOME places review14 (02) found missing (version managers,
 * Jupyter's user kernelspecs, podman's configuration, terminals',
 * interpreters' and clients' start-up files): one file in each, relative
 * to HOME, as a command or a file tool would plant it.
 */
extern const char *const wst_review14_places[];
extern const size_t wst_review14_nplaces;

#endif
