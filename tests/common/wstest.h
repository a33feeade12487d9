/*
 * wstest.h - helpers shared by the Check suites: temporary workspaces,
 * files and links in them, and running a built tool with its output and
 * JSON parsed.
 */
#ifndef WSTEST_H
#define WSTEST_H

#include <check.h>
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* The result of running a tool. */
struct wst_run {
	int status;    /* exit status; 128+N if killed by signal N; -1 hung */
	char *out;     /* stdout, NUL-terminated */
	size_t outlen;
	char *err;     /* stderr */
	cJSON *json;   /* stdout parsed, if it was JSON */
};

/* A new empty directory under $TMPDIR (or /tmp), fully resolved. */
char *wst_tmpdir(void);

/*
 * "XDG_STATE_HOME=<the suite's state directory>", for an environment a
 * test makes whole (execle, posix_spawn): without it the tools' history
 * goes to the password file's home (ftu12 02).  Static storage.
 */
const char *wst_state_env(void);

/* Remove a tree (never following symlinks). */
void wst_rmrf(const char *path);

/* dir/rel joined (malloc'd). */
char *wst_path(const char *dir, const char *rel);

/* Create dir/rel with content, making parent directories. */
void wst_write(const char *dir, const char *rel, const char *content);
void wst_writen(const char *dir, const char *rel, const void *data, size_t n);
void wst_mkdir(const char *dir, const char *rel);
void wst_symlink(const char *target, const char *dir, const char *rel);
void wst_mkfifo(const char *dir, const char *rel);

/* Read a whole file (NULL if it cannot be read); *n gets its size. */
char *wst_slurp(const char *path, size_t *n);
bool wst_exists(const char *path); /* lstat succeeds */

/*
 * Run build/cmd/<tool> with the NULL-terminated arguments, feeding stdin
 * (NULL: /dev/null).  WS_* variables are cleared first; extra environment
 * entries "K=V" may be given in env (NULL-terminated, or NULL).  A run that
 * takes over 20 seconds is killed and reported as status -1.  With
 * WST_TOOL_WRAPPER set (words split at spaces, e.g. "valgrind -q
 * --error-exitcode=99", or the valgrind step's build/tests/proxy, see
 * tests/valgrind/run.sh), the tool runs under it (wst_spawn() and
 * wst_execv() too), and the limit is 200 seconds.
 */
void wst_runv(struct wst_run *r, const char *stdin_data, const char *const *env,
	      const char *tool, const char *const *argv);
void wst_run(struct wst_run *r, const char *stdin_data, const char *tool, ...)
	__attribute__((sentinel));
void wst_run_free(struct wst_run *r);

/*
 * wst_runv() with RLIMIT_NOFILE at soft/hard (hard 0: as it is), set in a
 * child of the test that hands the result back through shared memory: a
 * lowered hard limit cannot be raised again, and the next test would run
 * under it.  Not through WST_TOOL_WRAPPER: valgrind refuses a lower hard
 * limit, so these runs are exec'd as they are.  Output past a few MiB is
 * cut.
 */
void wst_runv_nofile(struct wst_run *r, const char *const *env, const char *tool,
		     const char *const *argv, unsigned long soft, unsigned long hard);

/*
 * Exec build/cmd/<tool> with argv (argv[0] is dropped: the tool gets its
 * path), as a test's own fork() child does when it needs what wst_runv()
 * does not give (a terminal, pipes kept open); through WST_TOOL_WRAPPER
 * where it is set, as wst_runv() does.  Returns only if the exec failed.
 */
void wst_execv(const char *tool, const char *const *argv);

/* JSON helpers on a run: error code ("" if success), output member. */
const char *wst_code(const struct wst_run *r);
cJSON *wst_output(const struct wst_run *r, const char *key);
const char *wst_output_str(const struct wst_run *r, const char *key);

/* Path of a built binary. */
const char *wst_bin(const char *tool);

/*
 * What "wsrun --probe" says this machine can do (issue 24): whether
 * layer ("mountns", "landlock", "guards", ...) is available with the
 * layers of disable turned off as well (the test-only WS_RUN_DISABLE
 * list, "" for none).  A test that needs a layer checks the documented
 * fallback where the probe says it is unavailable (the SANDBOX_UNAVAILABLE
 * refusal, the reason in isolation) instead of failing: a package build
 * in a chroot whose "/" is not a mount point, an unprivileged user
 * without user namespaces, a kernel without Landlock.  The first time a
 * process finds a layer missing on the machine itself, it says on stderr
 * which layer it could not check and why.  Answers are cached per
 * process.
 */
bool wst_layer(const char *disable, const char *layer);

/*
 * The probe's reason for layer being unavailable with disable, or "" (a
 * pointer into the cache, valid for the process's life).
 */
const char *wst_layer_why(const char *disable, const char *layer);

/*
 * The view a wsrun or wstools run gets from wst_runv() (issue 19): the
 * default, the virtual view, where the probe says a mount namespace can
 * be made with the run's WS_RUN_DISABLE; where it says none can (a bare
 * chroot, a layer set without one), WS_VIEW=real, as a harness on such
 * a machine would set it, unless the run names WS_VIEW itself.  A suite
 * about the views sets wst_view_own to leave every run to its default.
 */
extern bool wst_view_own;

/* Sanitizer builds run several times slower: timing bounds widen. */
#if defined(__SANITIZE_ADDRESS__)
#define WST_SLOWDOWN_BUILD 10
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WST_SLOWDOWN_BUILD 10
#endif
#endif
#ifndef WST_SLOWDOWN_BUILD
#define WST_SLOWDOWN_BUILD 1
#endif

/*
 * How much slower than a plain build this run is: WST_SLOWDOWN from the
 * environment (the valgrind pass sets it), else the build's own factor.
 */
double wst_slowdown(void);
#define WST_SLOWDOWN (wst_slowdown())

/*
 * How many attempts a race test makes at least: WST_RACE_ITERATIONS from
 * the environment (a long run sets more; the valgrind pass fewer), else
 * dflt.
 */
int wst_race_iterations(int dflt);

/*
 * Run build/cmd/<tool> cheaply (posix_spawn, a vfork, rather than
 * wst_runv()'s fork(): under ASan fork() copies the test's huge shadow
 * mappings), with stdout and stderr together into *out (malloc'd,
 * NUL-terminated).  WS_* variables are left out of the environment and,
 * under ASan, the leak check at exit is turned off (the other tests check
 * for leaks; this runner serves the races, which check for escapes).  env
 * adds "K=V" entries (NULL-terminated, or NULL).  Returns the exit status,
 * or 128+N if killed by signal N.
 */
int wst_spawn(const char *tool, const char *const *argv, const char *const *env,
	      char **out, size_t *outlen);

/* How a race's swapper flips its two names. */
enum wst_race_how {
	WST_RACE_EXCHANGE, /* renameat2(a, b, RENAME_EXCHANGE) again and again */
	WST_RACE_MOVE,	   /* rename(a, b), then rename(b, a), and again */
};

/* One attempt of a race; i counts from 0. */
typedef void (*wst_race_fn)(void *arg, int i);

/*
 * Run attempt(arg, i) for i in [0, attempts) while a child process flips
 * the names a and b as fast as it can (how says how), and return how many
 * flips it made.  The swapper starts before the first attempt (the call
 * waits for its first flip) and is killed after the last; it dies with the
 * test process too, if an assertion ends the test early.  On return a and
 * b are back as they were, or swapped once: callers that care look.
 */
unsigned long wst_race(const char *a, const char *b, enum wst_race_how how,
		       int attempts, wst_race_fn attempt, void *arg);

/*
 * Microseconds the swapper rests after each flip (default 0: none).  A
 * whole process under test (wsrun: milliseconds, and several
 * resolutions, each of which a concurrent rename makes openat2() retry
 * or refuse) saw only the swapped state on a loaded machine with a
 * swapper that never rests; resting keeps tens of flips in each attempt.
 */
extern int wst_race_pause_us;

/* A main() that runs one Check suite and fails on any failed test. */
#define WST_MAIN(suite_fn)                                                     \
	int main(void)                                                         \
	{                                                                      \
		SRunner *sr = srunner_create(suite_fn());                      \
		int nf;                                                        \
		srunner_run_all(sr, CK_ENV);                                   \
		nf = srunner_ntests_failed(sr);                                \
		srunner_free(sr);                                              \
		return nf == 0 ? 0 : 1;                                        \
	}

#endif
