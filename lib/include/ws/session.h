/*
 * ws/session.h - setting a call up before it acts: configuration,
 * workspace, mounts, project roots and policy (lib/session.c).
 */
#ifndef WS_SESSION_H
#define WS_SESSION_H

#include <stdbool.h>
#include <stddef.h>

struct ws_cli;
struct ws_ctx;

/*
 * Open the workspace the options name (--workspace, WS_ROOT, cwd), with
 * its mounts (--mount, else WS_MOUNTS, else the configuration's) and
 * flags, after reading the configuration file (--config, WS_CONFIG, or
 * the default places).  When a policy is asked for (--policy, WS_POLICY,
 * else the configuration's default), finds the project roots (unless
 * --project-root, --no-detect-root or the configuration say otherwise),
 * loads and compiles it into ws->policy (its "strict" turns strict mode
 * on) and sets ws->approve.  With --verbose, logs the roots, variables
 * and every decision on stderr; on a terminal in plain mode, "approve"
 * rules ask y/N on /dev/tty.  With --allow-outside, warns on stderr.
 */
int ws_cli_open(struct ws_cli *cli, struct ws_ctx *ws);

/*
 * Whether the audit log path (real: its name made absolute and normal,
 * or its real name) lies in the workspace or a mount of ws: 0 when not,
 * else WS_EINVALID_ARGUMENT naming the place, with a hint for where to
 * put it that is not in the same place (the home's state directory is
 * none where the workspace is the home).  wstools mcp checks its --audit
 * with it at start, every call again.
 */
int ws_audit_place_check(const struct ws_ctx *ws, const char *path,
			 const char *real);

/*
 * A relative --audit, WS_AUDIT or --state-dir made absolute against the
 * current directory (lexically normal), as a shell user means it and as
 * wstools audit --verify FILE takes it: *out malloc'd, or NULL when name
 * is absolute already.  what names it in errors.  Errors:
 * WS_EINVALID_ARGUMENT (empty, or no current directory), WS_ENOMEM.
 */
int ws_cli_cwd_name(const char *name, const char *what, char **out);

/*
 * Where the workspace of cli came from, as --verbose and wspath --explain
 * say it after the root: "the current directory; WS_ROOT or --workspace
 * to choose", "--workspace", "WS_ROOT", or the server's (FTU10 11).
 */
const char *ws_cli_workspace_from(const struct ws_cli *cli);

/*
 * When the workspace is the current directory (nothing chose it) and
 * project detection (cli->roots, filled by ws_cli_open() under --verbose
 * or want_roots) found the project or git root above it: a sentence
 * naming that root and how to make it the workspace (malloc'd).  NULL
 * otherwise (or without memory).  No system call: the roots are known.
 */
char *ws_cli_workspace_note(const struct ws_cli *cli);

/*
 * Who answers a policy's "approve" decisions in this process, in place of
 * the terminal prompt: fn(arg, message) returns true to allow.  wstools
 * mcp asks the person through the client (elicitation).  NULL: the
 * default (the terminal prompt where the configuration allows it, else
 * APPROVAL_REQUIRED).  Set it before the calls it is for.
 */
typedef bool (*ws_approver_fn)(void *arg, const char *message);
void ws_cli_set_approver(ws_approver_fn fn, void *arg);

/* A mount given as data (ws_cli_set_mounts()). */
struct ws_mount_def {
	const char *vprefix; /* "/.docs" */
	const char *dir;     /* the directory, taken as is */
	bool ro;
};

/*
 * Mounts every later ws_cli_open() in this process adds as if they were
 * --mount flags (so WS_MOUNTS and the configuration's are not used),
 * after the flags' own, but carried as data: no "VPREFIX=DIR[:ro]" string
 * is parsed, so a directory named "a=b" or "x:ro" is that directory.
 * wstools mcp passes its DIRs and the client's roots so.  The array must
 * outlive the calls it is for; n 0 (or NULL) clears it.
 */
void ws_cli_set_mounts(const struct ws_mount_def *m, size_t n);

/*
 * What a server remembers between its calls (lib/session.c): the
 * configuration, the workspace with its mounts, the policy, project
 * detection, each opened once and shared, read-only, by every call that
 * asks for the same ones, each call re-checking cheaply that a fresh
 * process would open the same.  A call remembers into the session its
 * struct ws_call carries (ws/call.h); a call with none (the CLI's)
 * remembers nothing.  Each server makes its own, so that two servers in
 * one process never see each other's.
 */
struct ws_session;

/* A session that remembers nothing yet, or NULL (out of memory). */
struct ws_session *ws_session_new(void);

/*
 * Forget what ss remembers (a new root set): calls still running on it
 * keep what they hold; the next call opens afresh.  NULL: nothing.
 */
void ws_session_forget(struct ws_session *ss);

/* Free ss (NULL: nothing), once no call carries it any more. */
void ws_session_free(struct ws_session *ss);

/* Internal (ws_cli_free()): let go of what cli holds of it. */
void ws__cli_forget(struct ws_cli *cli);

#endif
