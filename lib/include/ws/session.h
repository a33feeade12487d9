/*
 * ws/session.h - setting a call up before it acts: configuration,
 * workspace, mounts, project roots and policy (lib/session.c).
 */
#ifndef WS_SESSION_H
#define WS_SESSION_H

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

#endif
