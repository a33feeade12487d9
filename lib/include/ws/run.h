/*
 * ws/run.h - running a command confined to the workspace, with a timeout,
 * for wsrun (DESIGN.md section 5).
 *
 * The command runs in a new session, under a small init process in a new
 * PID namespace where the kernel allows it (so that killing init kills
 * every process the command started, however it detached), with a
 * minimal root in a mount namespace, a network namespace holding only
 * loopback, Landlock rules, a seccomp filter, no capabilities and
 * no_new_privs.  Each layer is probed and the result says which held
 * (ws/sandbox.h).  Output is captured into bounded buffers (head and
 * tail) or streamed to descriptors as it comes.
 */
#ifndef WS_RUN_H
#define WS_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "ws/netproxy.h"
#include "ws/policy.h"
#include "ws/sandbox.h"
#include "ws/view.h"
#include "ws/workspace.h"

#define WS_RUN_TIMEOUT_DEFAULT 60		/* seconds */
#define WS_RUN_GRACE_DEFAULT 5			/* seconds */
#define WS_RUN_MAX_OUTPUT_DEFAULT (1024LL * 1024) /* bytes per stream */
#define WS_RUN_MAX_OUTPUT_ARGS (64LL * 1024)	/* the same under --args */
/*
 * The private /tmp (HOME lies in it) is memory that no rlimit of the
 * command counts.  512 MiB holds what ordinary builds and package
 * managers put in TMPDIR and HOME's caches, yet two runs at once cannot
 * take more than a GiB; never more than a quarter of RAM (a small VM).
 */
#define WS_RUN_TMP_SIZE_DEFAULT (512LL * 1024 * 1024)
#define WS_RUN_TMP_SIZE_MIN (1024LL * 1024)

/* Exit statuses of DESIGN.md section 4 that belong to wsrun alone. */
#define WS_RUN_EXIT_TIMEOUT 124
#define WS_RUN_EXIT_FAILED 125
#define WS_RUN_EXIT_NOEXEC 126
#define WS_RUN_EXIT_NOTFOUND 127

/* What to run, and how. */
struct ws_audit;

struct ws_run_result;

struct ws_run_opts {
	const char *const *argv; /* the command (argv[0] looked up in PATH) */
	size_t argc;
	const char *shell;	 /* -c STRING: run by /bin/sh; argv are $0.. */
	const char *cwd;	 /* virtual path (NULL: "/", the root) */
	long long timeout_ms;	 /* 0: none */
	long long grace_ms;	 /* SIGTERM to SIGKILL */
	long long max_output;	 /* bytes kept per stream (head + tail) */
	enum ws_isolate isolate;
	bool net;		 /* network allowed */
	/*
	 * Network by name (ws/netproxy.h): hosts the command may reach
	 * through the proxy, and hosts refused; --net-deny rules come
	 * first, then --net-allow, then the policy's network_rules.
	 */
	const char *const *net_allow;
	size_t nnet_allow;
	const char *const *net_deny;
	size_t nnet_deny;
	bool map_paths;		 /* rewrite virtual absolute arguments */
	enum ws_view view;	 /* the command's view (ws/view.h) */
	bool view_from_paths;	 /* view is the default of --paths virtual */
	const char *const *env;	 /* "K=V" set in the command's environment */
	size_t nenv;
	const char *const *keep_env; /* names passed through as they are */
	size_t nkeep_env;
	const char *const *allow_read;	/* extra host directories */
	size_t nallow_read;
	const char *const *allow_write;
	size_t nallow_write;
	const char *stdin_data;	 /* bytes fed to stdin, or NULL */
	size_t stdin_len;
	bool stdin_inherit;	 /* stdin passed through (else /dev/null) */
	int stream_out;		 /* fd that output is copied to live, or -1 */
	int stream_err;		 /*   (then nothing is kept in memory) */
	long long memory;	 /* bytes of address space; 0: no limit */
	long long max_procs;	 /* processes; 0: no limit */
	long long max_file_size; /* bytes; 0: no limit */
	long long tmp_size;	 /* bytes of the private /tmp (and HOME in
				    it); 0: ws_run_tmp_size_default() */
	long long cpu_time;	 /* seconds; 0: no limit */
	unsigned disable;	 /* WS_LAYER_* bits forced off (tests) */
	/*
	 * Set by the caller's signal handler to a signal number (SIGINT,
	 * SIGTERM, SIGHUP) to stop the command: its tree gets that signal
	 * (SIGTERM for any other), SIGKILL after the grace, and the status
	 * is 128 + that number.  NULL: none.
	 */
	volatile int *cancel;
	/*
	 * The call's audit line (NULL: none): written by the command's
	 * guardian when wsrun is killed before the command ends (the
	 * caller writes it otherwise).
	 */
	struct ws_audit *audit;
	/*
	 * Called once, in the caller's thread, when the command's view is
	 * planned and just before the command starts (after any wait for
	 * another command): the result's view (what the policy masked,
	 * what the system's directories hide) and grants are filled, so a
	 * front end can say them before the command's own output rather
	 * than after it (ftu13 15).  NULL: not called.  Not called when
	 * the run is refused before that point.
	 */
	void (*planned)(void *arg, const struct ws_run_result *r);
	void *planned_arg;
};

/* One captured stream: its head and its tail, and how much there was. */
struct ws_run_out {
	char *data;	   /* head, marker and tail joined (NUL-terminated) */
	size_t len;
	long long bytes;   /* total bytes the command wrote */
	bool truncated;	   /* bytes were left out in the middle */
};

/* What happened. */
struct ws_run_result {
	int exit_code;	       /* the command's own status (-1: signalled) */
	int signal;	       /* the signal that ended it, or 0 */
	bool timed_out;
	long long duration_ms;
	long long waited_ms;   /* for another command in the workspace, before */
	struct ws_run_out out, err;
	char *cwd;	       /* virtual working directory */
	long long max_rss_kb;  /* largest resident set of the tree; -1 unknown */
	char **env_dropped;    /* names of variables not passed */
	size_t nenv_dropped;
	struct ws_isolation iso;
	int status;	       /* wsrun's exit status (DESIGN.md section 4) */
	/*
	 * Virtual paths of what the command created where wstools' own
	 * configuration or policies would be read from (inside a writable
	 * anchor): removed after the command, as no tool may create them.
	 */
	char **reverted;
	size_t nreverted;
	/* The first nreverted_created entries are bare virtual paths of
	 * guarded entries the command created; the rest say what the
	 * clean-up of repositories did ("/.git/config: removed
	 * core.fsmonitor", ws/vcs.h). */
	size_t nreverted_created;
	/*
	 * Entries in places the command could only read that changed while
	 * it ran (by the person, most likely): left as they are, each "PATH:
	 * why", apart from "reverted", which lists what was undone (ftu17
	 * 09).
	 */
	char **kept;
	size_t nkept;
	/*
	 * The directories the policy's rules name in directory shape, each
	 * granted or not and why (ws/grant.h); NULL without a policy.
	 */
	struct ws_policy_grant *grants;
	size_t ngrants;
	/* The view, what it shadowed, and the new top-level names it
	 * copied into the workspace (virtual view). */
	struct ws_view_info view;
	/*
	 * Network by name: whether it was on, the first
	 * WS_NETPROXY_LOG_MAX connections tried, and how many were tried
	 * and refused in all.
	 */
	bool net_filtered;
	struct ws_net_conn *net_conns;
	size_t nnet_conns;
	size_t net_total, net_refused;
};

/* Check the options (timeouts and limits not negative, a command given). */
int ws_run_check_opts(const struct ws_run_opts *o);

/*
 * The default size of a run's private /tmp: WS_RUN_TMP_SIZE_DEFAULT, or
 * a quarter of RAM when that is less.
 */
long long ws_run_tmp_size_default(void);

/*
 * The command line as policies see it: the -c string, or the argv joined
 * by spaces.  malloc'd, NULL on allocation failure.
 */
char *ws_run_cmdline(const struct ws_run_opts *o);

/*
 * Whether a command line may run: the policy's command_rules when it has
 * any, else the built-in list (sudo, su, mkfs, dd to a device, shutdown,
 * curl, wget, nc, rm -rf /, ...).  Returns 0, WS_EBLOCKED_COMMAND naming
 * the rule, or WS_EAPPROVAL_REQUIRED.
 */
int ws_run_check_command(struct ws_ctx *ws, const char *cmdline);

/*
 * For a program's main(), before anything reads the environment: move the
 * environment's strings to the heap (environ points at the copy, getenv()
 * works as before) and zero the originals, which are what
 * /proc/PID/environ shows.  From then on ws_run() starts the namespace
 * init in this process's memory rather than as a copy of it, which saves
 * about a millisecond a call, without /proc/1/environ inside showing the
 * caller's environment.  Call it before any thread starts and before
 * any getenv() result is kept; threads started after it may run while
 * init does (it touches neither the heap nor stdio, so a lock one of them
 * holds cannot stop it).  Returns 0, or WS_ENOMEM (nothing changed).
 */
int ws_run_detach_environ(void);

/*
 * For a program that exits after its call (the wsrun program): ws_run()
 * returns once the command's status is in and every process of it is
 * gone, without waiting for the namespace init's own exit, which tears
 * the namespaces down and waits there for an RCU grace period (dropping
 * the mount namespace: 0.1 to 11 ms measured on a loaded machine, as
 * bwrap does not wait either).  init is then left, a zombie or about to
 * be one, to whoever inherits it at the program's exit.  Without it (a
 * long-running caller: wstools mcp, the tests) a call leaves no child.
 */
void ws_run_exit_soon(void);

/*
 * For a long-running caller that runs many commands (wstools mcp): a
 * thread that makes each call's namespace init ahead of the call (new
 * PID, mount and network namespaces, blocked until a call takes it), so
 * that the kernel's cost of making them, and of tearing them down after
 * the command, falls between calls.  Each init serves one call and ends
 * with its command's tree: no namespace is shared between calls,
 * concurrent or not.  Used only where the init shares this process's
 * memory (after ws_run_detach_environ(), as root, not under a
 * sanitizer); NULL elsewhere, with WS_RUN_AHEAD=0 in the environment
 * (benchmarks), or when one runs already in this process.  Stop it
 * (safe on NULL) after the last ws_run() of the process has returned.
 */
/*
 * In a process of many calls (wstools mcp): one guardian for all its
 * commands, forked now (while the process is small and has no other
 * thread), instead of one copy of the process forked per command.  Each
 * ws_run() hands it what its clean-up needs (init's pidfd, the
 * workspace's lock and anchors, the places and repositories' snapshot,
 * the audit line so far); when this process dies during commands, it
 * kills them, cleans up after each and writes their audit lines, as the
 * per-command guardian does.  0, or an error (the commands then fork
 * their own).  Stop it (safe when not started) after the last ws_run()
 * of the process has returned.
 */
int ws_run_guardian_start(void);
void ws_run_guardian_stop(void);

struct ws_run_ahead;
struct ws_run_ahead *ws_run_ahead_start(void);
void ws_run_ahead_stop(struct ws_run_ahead *a);

/*
 * Run a command per o in workspace ws, filling r (freed with
 * ws_run_free()).  Returns 0 when the command ran, whatever its status
 * (r->status is then the exit status wsrun gives), or a negative error:
 * WS_EBLOCKED_COMMAND, WS_ESANDBOX_UNAVAILABLE, WS_ENOT_FOUND (the command,
 * r->status 127), WS_EPERMISSION_DENIED (not executable, 126),
 * WS_EINVALID_ARGUMENT, errors of resolving the working directory.  r->iso
 * says what was enforced even when it fails.
 */
int ws_run(struct ws_ctx *ws, const struct ws_run_opts *o,
	   struct ws_run_result *r);

/*
 * What --isolate auto (network off) would do on a kernel offering what
 * probe says (from ws_sandbox_probe()): 1 it would run, the layers it
 * would use written to buf as a comma-separated list; 0 it would refuse
 * with SANDBOX_UNAVAILABLE, the reason written to buf.  (A workspace
 * whose boundary needs a mount namespace, or one at /, may still be
 * refused: that depends on the workspace, not the kernel.)
 */
int ws_run_auto_verdict(const struct ws_isolation *probe, char *buf, size_t len);

/* Free a result.  Safe on a zeroed r. */
void ws_run_free(struct ws_run_result *r);

#endif
