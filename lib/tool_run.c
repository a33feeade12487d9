/*
 * tool_run.c - run_command (wsrun) on the tool table: its options, the
 * run (ws_run(), confined to the workspace, with a timeout), and the
 * result: plain mode streams the command's output and exits with its
 * status; JSON gives the status, the output (head and tail within
 * max_output) and what confinement held; a model reads a terminal's
 * view.  Exit statuses follow timeout(1): 124 timed out, 125 wsrun
 * failed or refused, 126 not executable, 127 not found, 128+N killed by
 * signal N.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws/audit.h"
#include "ws/config.h"
#include "ws/error.h"
#include "ws/grant.h"
#include "ws/json.h"
#include "ws/path.h"
#include "ws/policy.h"
#include "ws/read.h"
#include "ws/resolve.h"
#include "ws/run.h"
#include "ws/sandbox.h"
#include "ws/tool.h"

#define WS__STR2(x) #x
#define WS__STR(x) WS__STR2(x)

enum {
	O_SHELL,
	O_CWD,
	O_TIMEOUT,
	O_GRACE,
	O_MAX_OUTPUT,
	O_STDIN,
	O_ENV,
	O_KEEP_ENV,
	O_NET,
	O_NET_ALLOW,
	O_NET_DENY,
	O_ISOLATE,
	O_ALLOW_READ,
	O_ALLOW_WRITE,
	O_MAP_PATHS,
	O_VIEW,
	O_MEMORY,
	O_MAX_PROCS,
	O_MAX_FILE_SIZE,
	O_CPU_TIME,
	O_TMP_SIZE,
	O_PROBE,
	O_COUNT
};

/*
 * What widens the sandbox (network, extra host paths, the caller's
 * variables, no isolation) is the caller's choice on the command line,
 * never the model's: those options are not offered under --args.
 */
static const struct ws_opt opts[O_COUNT] = {
	[O_SHELL] = {"shell", 'c', WS_OPT_STR, "STRING",
		     "run STRING with /bin/sh -c (further arguments are $0, $1...)",
		     WS_OPT_NOSCHEMA},
	[O_CWD] = {"cwd", 0, WS_OPT_STR, "VPATH",
		   "working directory, a workspace path (default /, the root)", 0},
	[O_TIMEOUT] = {"timeout", 0, WS_OPT_SECONDS, "S",
		       "seconds before the whole process tree gets SIGTERM, "
		       "fractions allowed (default 60, none when standard input is a terminal; 0: none)", 0},
	[O_GRACE] = {"grace", 0, WS_OPT_SECONDS, "S",
		     "seconds from SIGTERM to SIGKILL, fractions allowed "
		     "(default 5)", WS_OPT_NOSCHEMA},
	[O_MAX_OUTPUT] = {"max-output", 0, WS_OPT_BYTES, "N",
			  "bytes of stdout and of stderr kept, head and tail "
			  "(default 1M; 64K under --args)", 0},
	[O_STDIN] = {"stdin", 0, WS_OPT_STR, "TEXT",
		     "text fed to the command's standard input (default: none)", 0},
	[O_ENV] = {"env", 0, WS_OPT_LIST, "NAME=VALUE",
		   "set a variable in the command's environment (repeatable)", 0},
	[O_KEEP_ENV] = {"keep-env", 0, WS_OPT_LIST, "NAME",
			"pass the caller's variable NAME through (repeatable)",
			WS_OPT_NOSCHEMA},
	[O_NET] = {"net", 0, WS_OPT_FLAG, NULL,
		   "allow network access (off by default)", WS_OPT_NOSCHEMA},
	[O_NET_ALLOW] = {"net-allow", 0, WS_OPT_LIST, "DOMAIN",
			 "let the command reach DOMAIN (*.DOMAIN: its "
			 "subdomains) through a filtering proxy, and no other "
			 "host (repeatable)", WS_OPT_NOSCHEMA},
	[O_NET_DENY] = {"net-deny", 0, WS_OPT_LIST, "DOMAIN",
			"refuse DOMAIN even where --net-allow or the policy's "
			"network_rules allow it (repeatable)", WS_OPT_NOSCHEMA},
	[O_ISOLATE] = {"isolate", 0, WS_OPT_STR, "MODE",
		       "auto (default: every layer the kernel allows, refused "
		       "without Landlock and network off), strict (every layer "
		       "or refuse), none (unconfined)", WS_OPT_NOSCHEMA},
	[O_ALLOW_READ] = {"allow-read", 0, WS_OPT_LIST, "DIR",
			  "also let the command read DIR (repeatable)",
			  WS_OPT_NOSCHEMA},
	[O_ALLOW_WRITE] = {"allow-write", 0, WS_OPT_LIST, "DIR",
			   "also let the command write DIR (repeatable)",
			   WS_OPT_NOSCHEMA},
	[O_MAP_PATHS] = {"map-paths", 0, WS_OPT_FLAG, NULL,
			 "rewrite arguments that are virtual absolute paths "
			 "(/src/a.c) to real ones", 0},
	[O_VIEW] = {"view", 0, WS_OPT_STR, "virtual|real",
		    "the command's view: virtual (the workspace at /, as the "
		    "file tools show it) or real (the workspace at its real "
		    "path); default: virtual with --paths virtual, else real "
		    "(env WS_VIEW, config view)", WS_OPT_NOSCHEMA},
	[O_MEMORY] = {"memory", 0, WS_OPT_BYTES, "BYTES",
		      "address-space limit of each process (suffix K, M, G "
		      "or T: 512M, 1G)", WS_OPT_NOSCHEMA},
	[O_MAX_PROCS] = {"max-procs", 0, WS_OPT_INT, "N",
			 "process limit (RLIMIT_NPROC)", WS_OPT_NOSCHEMA},
	[O_MAX_FILE_SIZE] = {"max-file-size", 0, WS_OPT_BYTES, "BYTES",
			     "largest file the command may write (suffix K, "
			     "M, G or T)", WS_OPT_NOSCHEMA},
	[O_CPU_TIME] = {"cpu-time", 0, WS_OPT_INT, "S",
			"CPU seconds per process", WS_OPT_NOSCHEMA},
	[O_TMP_SIZE] = {"tmp-size", 0, WS_OPT_BYTES, "BYTES",
			"size of the private /tmp, HOME in it (default 512M, "
			"at most a quarter of RAM; suffix K, M, G or T)",
			WS_OPT_NOSCHEMA},
	[O_PROBE] = {"probe", 0, WS_OPT_FLAG, NULL,
		     "report which confinement layers the kernel offers, run "
		     "nothing", WS_OPT_NOSCHEMA},
};

static const struct ws_tool ws__run_cli = {
	.prog = "wsrun",
	.tool = "run_command",
	.description = "Run a command in the workspace, confined by the kernel "
		       "to it (no network, no access outside), with a timeout. "
		       "command is an array (argv, run directly) or a string "
		       "(run by /bin/sh -c). Returns exit_code, stdout, stderr "
		       "(head and tail when long), timed_out and duration_ms. "
		       "In the default view / is the workspace, with the system's "
		       "/usr, /proc... beside it: recurse into named directories "
		       "(grep -r X src/), not from / or . /tmp and HOME (in it) "
		       "are fresh for each call and gone when it ends: keep "
		       "what must last in the workspace. The entries at the top "
		       "of / are mounts: a command cannot remove, rename or "
		       "replace one (Device or resource busy, as sed -i on "
		       "/README.md; rm -r empties it first): use delete_path, "
		       "move_path or edit_file for those. The workspace "
		       "repository's .git/config is read-only: git -c "
		       "key=value sets one for a command.",
	.help = "Run a command in the workspace, confined by the kernel to it "
		"(no network, no access outside), with a timeout. COMMAND and "
		"its ARGs are run directly; -c runs a string with /bin/sh -c. "
		"The command's output streams through and wsrun exits with its "
		"status; --json returns exit_code, stdout, stderr (head and tail "
		"when long), timed_out and duration_ms.",
	.usage = "wsrun [OPTION]... [--] COMMAND [ARG]...\n"
		 "       wsrun [OPTION]... -c 'SHELL STRING' [ARG0 [ARG]...]\n"
		 "       wsrun --probe",
	.pos_name = "command",
	.pos_help = "the command: an array of strings run directly, or a "
		    "string run by /bin/sh -c",
	.pos_kind = WS_POS_ANY,
	.pos_array = true,
	.pos_stops_options = true,
	.pos_string_ok = true,
	.opts = opts,
	.nopts = O_COUNT,
	.exit_help = "the command's own; 128+N killed by signal N; 124 timed\n"
		     "out; 125 wsrun failed or refused (the error code says why);\n"
		     "126 not executable; 127 not found.",
};

static int
nonneg(const struct ws_cli *cli, int i, long long def, long long *out)
{
	const struct ws_optval *v = WS_OPT(cli, i);

	*out = def;
	if (!v->set)
		return 0;
	if (v->i < 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "%s%s must not be negative", cli->from_args ?
				    "" : "--", opts[i].name);
	*out = v->i;
	return 0;
}

/* The signal that interrupted wsrun: its command's tree is stopped. */
static volatile int cancel_sig;

/*
 * The handler is the process's while any call is in ws_run(): calls run
 * side by side in wstools mcp, so the first one in installs it (and
 * forgets an old stop) and the last one out restores what was there.
 */
static pthread_mutex_t hook_mu = PTHREAD_MUTEX_INITIALIZER;
static int hook_users;
static struct sigaction hook_old[3];

static void
on_signal(int sig)
{
	cancel_sig = sig;
}

/*
 * The view: --view, else WS_VIEW, else the configuration's view, else
 * the form of the paths (DESIGN.md 2): virtual paths, the default, mean
 * the virtual view; --paths real or relative the real one.  Under
 * --isolate none (no sandbox, so no mount namespace to build a view in)
 * the default is the real view: the host as it is was asked for; an
 * explicit virtual view there is refused (lib/run.c).
 */
static int
get_view(const struct ws_cli *cli, struct ws_run_opts *o)
{
	const char *env = getenv("WS_VIEW");

	o->view_from_paths = false;
	if (WS_OPT(cli, O_VIEW)->set)
		return ws_view_parse(WS_OPT(cli, O_VIEW)->s, &o->view);
	if (env != NULL && *env != '\0')
		return ws_view_parse(env, &o->view);
	if (cli->conf->view != NULL)
		return ws_view_parse(cli->conf->view, &o->view);
	/* wstools mcp's native mode (cmd/wstools.c). */
	env = getenv("WS__VIEW_DEFAULT");
	if (env != NULL && strcmp(env, "virtual") == 0) {
		o->view = WS_VIEW_VIRTUAL;
		return 0;
	}
	if (o->isolate == WS_ISOLATE_NONE) {
		o->view = WS_VIEW_REAL;
		return 0;
	}
	o->view = cli->paths == WS_PATHS_VIRTUAL ? WS_VIEW_VIRTUAL : WS_VIEW_REAL;
	o->view_from_paths = o->view == WS_VIEW_VIRTUAL;
	return 0;
}

/*
 * The options of the call; run.env and --env joined go to *env_all (the
 * caller frees it), a call's own, as calls run side by side.
 */
static int
get_opts(const struct ws_cli *cli, struct ws_run_opts *o, const char ***env_all)
{
	const struct ws_limits *lim = &cli->conf->limits;
	const char *dis = getenv("WS_RUN_DISABLE");
	long long t;
	int rc;

	memset(o, 0, sizeof(*o));
	o->stream_out = o->stream_err = -1;
	if (cli->pos_string != NULL) {
		o->shell = cli->pos_string;
	} else if (WS_OPT(cli, O_SHELL)->set) {
		o->shell = WS_OPT(cli, O_SHELL)->s;
	}
	o->argv = cli->pos;
	o->argc = cli->npos;
	/* Under --args the model reads the message: it names the key. */
	if (o->shell == NULL && o->argc == 0 && cli->from_args)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "missing required argument \"command\" (an "
				    "array of strings, not empty, or a string "
				    "run by the shell)");
	if (o->shell == NULL && o->argc == 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "missing command (see --help)");
	o->cwd = WS_OPT(cli, O_CWD)->s;
	/* Seconds options hold milliseconds (WS_OPT_SECONDS). */
	if ((rc = nonneg(cli, O_TIMEOUT, (lim->timeout >= 0 ? lim->timeout :
					  WS_RUN_TIMEOUT_DEFAULT) * 1000, &t)) < 0)
		return rc;
	o->timeout_ms = t;
	if ((rc = nonneg(cli, O_GRACE, WS_RUN_GRACE_DEFAULT * 1000, &t)) < 0)
		return rc;
	o->grace_ms = t;
	if ((rc = nonneg(cli, O_MAX_OUTPUT, lim->max_output >= 0 ? lim->max_output :
			 cli->from_args ? WS_RUN_MAX_OUTPUT_ARGS :
			 WS_RUN_MAX_OUTPUT_DEFAULT, &o->max_output)) < 0 ||
	    (rc = nonneg(cli, O_MEMORY, 0, &o->memory)) < 0 ||
	    (rc = nonneg(cli, O_MAX_PROCS, 0, &o->max_procs)) < 0 ||
	    (rc = nonneg(cli, O_MAX_FILE_SIZE, 0, &o->max_file_size)) < 0 ||
	    (rc = nonneg(cli, O_CPU_TIME, 0, &o->cpu_time)) < 0 ||
	    (rc = nonneg(cli, O_TMP_SIZE, lim->tmp_size > 0 ? lim->tmp_size : 0,
			 &o->tmp_size)) < 0)
		return rc;
	if (WS_OPT(cli, O_STDIN)->set) {
		o->stdin_data = WS_OPT(cli, O_STDIN)->s;
		o->stdin_len = strlen(o->stdin_data);
	} else if (!cli->json) {
		o->stdin_inherit = true;
	}
	/*
	 * A person at a terminal (standard input one, plain output): no
	 * time limit unless one was asked for (--timeout, limits.timeout).
	 * The 60 s default is an agent's; a shell or a build typed by hand
	 * ends with exit or Ctrl-C, and was killed mid-session.
	 */
	if (o->stdin_inherit && !WS_OPT(cli, O_TIMEOUT)->set &&
	    lim->timeout < 0 && isatty(0))
		o->timeout_ms = 0;
	if (!cli->json) {
		o->stream_out = 1;
		o->stream_err = 2;
	}
	/* The configuration's run.env first: --env overrides it. */
	if (cli->conf->nrun_env > 0) {
		size_t n = cli->conf->nrun_env + WS_OPT(cli, O_ENV)->n;

		const char **all = calloc(n, sizeof(*all));

		if (all == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		memcpy(all, cli->conf->run_env, cli->conf->nrun_env * sizeof(*all));
		memcpy(all + cli->conf->nrun_env, WS_OPT(cli, O_ENV)->list,
		       WS_OPT(cli, O_ENV)->n * sizeof(*all));
		*env_all = all;
		o->env = all;
		o->nenv = n;
	} else {
		o->env = WS_OPT(cli, O_ENV)->list;
		o->nenv = WS_OPT(cli, O_ENV)->n;
	}
	o->keep_env = WS_OPT(cli, O_KEEP_ENV)->list;
	o->nkeep_env = WS_OPT(cli, O_KEEP_ENV)->n;
	o->allow_read = WS_OPT(cli, O_ALLOW_READ)->list;
	o->nallow_read = WS_OPT(cli, O_ALLOW_READ)->n;
	o->allow_write = WS_OPT(cli, O_ALLOW_WRITE)->list;
	o->nallow_write = WS_OPT(cli, O_ALLOW_WRITE)->n;
	o->net = WS_OPT(cli, O_NET)->b;
	o->net_allow = WS_OPT(cli, O_NET_ALLOW)->list;
	o->nnet_allow = WS_OPT(cli, O_NET_ALLOW)->n;
	o->net_deny = WS_OPT(cli, O_NET_DENY)->list;
	o->nnet_deny = WS_OPT(cli, O_NET_DENY)->n;
	o->map_paths = WS_OPT(cli, O_MAP_PATHS)->b;
	if (WS_OPT(cli, O_ISOLATE)->set &&
	    (rc = ws_isolate_parse(WS_OPT(cli, O_ISOLATE)->s, &o->isolate)) < 0)
		return rc;
	if ((rc = get_view(cli, o)) < 0)
		return rc;
	if (dis != NULL && (rc = ws_layers_parse(dis, &o->disable)) < 0)
		return rc;
	return ws_run_check_opts(o);
}

static void
json_layers(struct ws_jw *jw, const struct ws_isolation *iso, bool probe)
{
	ws_jw_kstr(jw, "mode", ws_isolate_name(iso->mode));
	for (int l = 0; l < WS__LAYER_COUNT; l++) {
		const struct ws_layer_state *s = &iso->layer[l];

		ws_jw_key(jw, ws_layer_name((enum ws_layer)l));
		ws_jw_obj(jw);
		if (probe)
			ws_jw_kbool(jw, "available", s->available);
		else
			ws_jw_kbool(jw, "enforced", s->enforced);
		if (l == WS_LAYER_LANDLOCK)
			ws_jw_kint(jw, "abi", iso->landlock_abi);
		if (s->why[0])
			ws_jw_kstr(jw, probe || s->enforced ? "detail" : "reason",
				   s->why);
		ws_jw_obj_end(jw);
	}
	if (probe)
		return;
	ws_jw_key(jw, "network");
	ws_jw_obj(jw);
	ws_jw_kbool(jw, "allowed", iso->net_allowed);
	ws_jw_kbool(jw, "enforced", iso->net_enforced);
	ws_jw_kstr(jw, "how", iso->net_how[0] ? iso->net_how : NULL);
	ws_jw_obj_end(jw);
	ws_jw_key(jw, "unix_sockets");
	ws_jw_obj(jw);
	ws_jw_kbool(jw, "outside_blocked", iso->unix_outside_blocked);
	ws_jw_kbool(jw, "inside_blocked", iso->unix_inside_blocked);
	ws_jw_kstr(jw, "how", iso->unix_how[0] ? iso->unix_how : NULL);
	ws_jw_obj_end(jw);
	ws_jw_key(jw, "tmp");
	ws_jw_obj(jw);
	ws_jw_kbool(jw, "bounded", iso->tmp_size > 0);
	if (iso->tmp_size > 0)
		ws_jw_kint(jw, "size", iso->tmp_size);
	else
		ws_jw_knull(jw, "size");
	ws_jw_kstr(jw, "how", iso->tmp_how[0] ? iso->tmp_how : NULL);
	ws_jw_obj_end(jw);
}

/*
 * The isolation of a result under --args, where every byte is read by a
 * model: the layers as one object of booleans, the reasons only for the
 * layers not enforced, the network and UNIX-socket verdicts as booleans.
 * --verbose gives the full form (as --json does).
 */
static void
json_layers_compact(struct ws_jw *jw, const struct ws_isolation *iso)
{
	bool any = false;

	ws_jw_kstr(jw, "mode", ws_isolate_name(iso->mode));
	ws_jw_key(jw, "enforced");
	ws_jw_obj(jw);
	for (int l = 0; l < WS__LAYER_COUNT; l++)
		ws_jw_kbool(jw, ws_layer_name((enum ws_layer)l), iso->layer[l].enforced);
	ws_jw_obj_end(jw);
	for (int l = 0; l < WS__LAYER_COUNT; l++) {
		const struct ws_layer_state *st = &iso->layer[l];

		if (st->enforced || !st->why[0])
			continue;
		if (!any) {
			ws_jw_key(jw, "not_enforced_why");
			ws_jw_obj(jw);
			any = true;
		}
		ws_jw_kstr(jw, ws_layer_name((enum ws_layer)l), st->why);
	}
	if (any)
		ws_jw_obj_end(jw);
	ws_jw_kbool(jw, "network_off", !iso->net_allowed && iso->net_enforced);
	ws_jw_kbool(jw, "unix_outside_blocked", iso->unix_outside_blocked);
	ws_jw_kbool(jw, "unix_inside_blocked", iso->unix_inside_blocked);
	/* The bytes the private /tmp (and HOME) may hold; null: unbounded. */
	if (iso->tmp_size > 0)
		ws_jw_kint(jw, "tmp_size", iso->tmp_size);
	else
		ws_jw_knull(jw, "tmp_size");
}

/*
 * What the policy's rules of directory shape added (ws/grant.h); compact
 * (under --args, for a model): only what was granted, and nothing at all
 * when nothing was.
 */
static void
json_grants(struct ws_jw *jw, const struct ws_policy_grant *v, size_t n,
	    bool compact)
{
	if (compact && ws_grants_count(v, n) == 0)
		return;
	ws_jw_key(jw, "policy_grants");
	ws_jw_arr(jw);
	for (size_t i = 0; i < n; i++) {
		if ((compact && !v[i].granted) || (v[i].shape && !v[i].refused))
			continue;
		ws_jw_obj(jw);
		ws_jw_kstr(jw, "rule", v[i].rule);
		ws_jw_kstr(jw, "path", v[i].dir);
		ws_jw_kstr(jw, "access", v[i].write ? "read-write" : "read");
		ws_jw_kbool(jw, "exec", v[i].exec);
		ws_jw_kbool(jw, "granted", v[i].granted);
		ws_jw_kstr(jw, "status", v[i].granted ? "granted" :
					 v[i].refused ? "refused" : "skipped");
		ws_jw_kstr(jw, "reason", v[i].why[0] ? v[i].why : NULL);
		ws_jw_obj_end(jw);
	}
	ws_jw_arr_end(jw);
}

/*
 * The same as lines, for --probe and plain --verbose: one line each, its
 * control bytes (a newline in a directory's name) shown as "?".  refused
 * 1 prints only the refused ones, 2 those but the quiet ones (the plain
 * warnings), 0 all the others, -1 every one.
 */
static void
print_grants(FILE *f, const char *lead, const struct ws_policy_grant *v, size_t n,
	     int refused)
{
	for (size_t i = 0; i < n; i++) {
		if ((refused >= 0 && v[i].refused != (refused != 0)) ||
		    (refused == 2 && v[i].quiet) || (v[i].shape && !v[i].refused))
			continue;
		char *rule = ws_cli_masked(v[i].rule, true);
		char *dir = ws_cli_masked(v[i].dir, true);
		char *why = ws_cli_masked(v[i].why, true);

		fprintf(f, "%spolicy grant rule=%s dir=%s access=%s%s: %s%s%s\n",
			lead, rule ? rule : "?", dir ? dir : "?",
			v[i].write ? "read-write" : "read", v[i].exec ? "+exec" : "",
			v[i].granted ? "granted" : v[i].refused ? "refused" : "skipped",
			v[i].why[0] ? ", " : "", why ? why : "");
		free(rule);
		free(dir);
		free(why);
	}
}

static void
json_stream(struct ws_jw *jw, const char *key, const struct ws_run_out *o)
{
	char k[32];

	ws_jw_key(jw, key);
	snprintf(k, sizeof(k), "%s_encoding", key);
	if (o->data == NULL) {
		ws_jw_str(jw, "");
		ws_jw_kstr(jw, k, "utf-8");
	} else if (ws_utf8_valid(o->data, o->len)) {
		ws_jw_strn(jw, o->data, o->len);
		ws_jw_kstr(jw, k, "utf-8");
	} else {
		/* Bytes that are not UTF-8 travel reversibly, as base64. */
		ws_jw_base64(jw, o->data, o->len);
		ws_jw_kstr(jw, k, "base64");
	}
	snprintf(k, sizeof(k), "%s_truncated", key);
	ws_jw_kbool(jw, k, o->truncated);
	snprintf(k, sizeof(k), "%s_bytes", key);
	ws_jw_kint(jw, k, o->bytes);
}

/*
 * Network by name: the proxy and the connections the command tried, the
 * first WS_NETPROXY_LOG_MAX of them (the proxy keeps no more); under
 * --args (a model reads every byte) at most 50 of those, the refused
 * ones first.  connections_total and connections_refused count them all.
 */
static void
json_network(struct ws_jw *jw, const struct ws_run_result *r, bool compact)
{
	size_t shown = 0, cap = compact ? 50 : (size_t)-1;

	ws_jw_key(jw, "network");
	ws_jw_obj(jw);
	ws_jw_kstr(jw, "mode", "by_name");
	ws_jw_kstr(jw, "proxy", "http://127.0.0.1:" WS__STR(WS_NETPROXY_PORT));
	ws_jw_kstr(jw, "socks_proxy", "socks5h://127.0.0.1:" WS__STR(WS_NETPROXY_PORT));
	ws_jw_kint(jw, "connections_total", (long long)r->net_total);
	ws_jw_kint(jw, "connections_refused", (long long)r->net_refused);
	/* Past the first WS_NETPROXY_LOG_MAX, connections are counted only. */
	ws_jw_kint(jw, "connections_left_out", (long long)(r->net_total - r->nnet_conns));
	ws_jw_key(jw, "connections");
	ws_jw_arr(jw);
	for (size_t k = 0; k < 2 * r->nnet_conns && shown < cap; k++) {
		/* Pass one: the refused; pass two: the allowed (compact). */
		size_t i = k % r->nnet_conns;
		const struct ws_net_conn *c = &r->net_conns[i];

		if (compact ? (k < r->nnet_conns) == c->allowed : k >= r->nnet_conns)
			continue;
		shown++;

		ws_jw_obj(jw);
		ws_jw_kstr(jw, "host", c->host);
		if (c->port > 0)
			ws_jw_kint(jw, "port", c->port);
		else
			ws_jw_knull(jw, "port");
		ws_jw_kstr(jw, "decision", c->allowed ? "allowed" : "refused");
		ws_jw_kstr(jw, "rule", c->rule);
		ws_jw_kstr(jw, "address", c->addr);
		ws_jw_kstr(jw, "reason", c->reason);
		ws_jw_kint(jw, "bytes_up", c->up);
		ws_jw_kint(jw, "bytes_down", c->down);
		ws_jw_obj_end(jw);
	}
	ws_jw_arr_end(jw);
	ws_jw_obj_end(jw);
}

/*
 * A list of names: strings, or objects {path, reason} where why.  A name
 * that is not UTF-8 is written with U+FFFD in place of its bad bytes, as
 * every string is; so that it can still be told apart and found again
 * (DESIGN: names escaped reversibly), a list of strings holding one gets
 * a sibling KEY_bytes, each name's exact bytes in base64 (null for a
 * name that is UTF-8), and an object gets its path_bytes.
 */
static void
json_names(struct ws_jw *jw, const char *key, const struct ws_view_names *l,
	   bool why)
{
	bool raw = false;

	ws_jw_key(jw, key);
	ws_jw_arr(jw);
	for (size_t i = 0; i < l->n; i++) {
		if (!why) {
			ws_jw_str(jw, l->name[i]);
			raw |= !ws_utf8_valid(l->name[i], strlen(l->name[i]));
			continue;
		}
		ws_jw_obj(jw);
		ws_jw_kname(jw, "path", l->name[i]);
		ws_jw_kstr(jw, "reason", l->why[i]);
		ws_jw_obj_end(jw);
	}
	ws_jw_arr_end(jw);
	if (raw) {
		char k[64];

		snprintf(k, sizeof(k), "%s_bytes", key);
		ws_jw_key(jw, k);
		ws_jw_arr(jw);
		for (size_t i = 0; i < l->n; i++) {
			size_t n = strlen(l->name[i]);

			if (ws_utf8_valid(l->name[i], n))
				ws_jw_null(jw);
			else
				ws_jw_base64(jw, l->name[i], n);
		}
		ws_jw_arr_end(jw);
	}
}

/* isolation.view: which view, and what the virtual one changed (compact,
 * under --args: not the system's names, which every call has). */
static void
json_view(struct ws_jw *jw, const struct ws_view_info *v, bool compact)
{
	ws_jw_key(jw, "view");
	ws_jw_obj(jw);
	ws_jw_kstr(jw, "mode", ws_view_name(v->view));
	/* The policy's view (both views): what its rules refuse. */
	if (v->masked.n > 0)
		json_names(jw, "masked", &v->masked, false);
	if (v->read_only.n > 0)
		json_names(jw, "read_only", &v->read_only, false);
	if (v->no_exec.n > 0)
		json_names(jw, "no_exec", &v->no_exec, false);
	if (v->view == WS_VIEW_VIRTUAL) {
		if (!compact) {
			ws_jw_kbool(jw, "from_paths", v->from_paths);
			json_names(jw, "system", &v->system, false);
		}
		json_names(jw, "shadowed", &v->shadowed, true);
		if (v->unplaced.n > 0)
			json_names(jw, "unplaced", &v->unplaced, true);
		json_names(jw, "applied", &v->applied, false);
		if (v->lost.n > 0)
			json_names(jw, "lost", &v->lost, true);
		if (v->map_paths_ignored)
			ws_jw_kstr(jw, "map_paths", "ignored: in the virtual view "
				   "a virtual path is the command's own");
	}
	ws_jw_obj_end(jw);
}

/*
 * isolation's object, the same on every call of a server: a model gets
 * it where it learns something from it (the first call, and then when it
 * differs from that one: a layer the kernel refused this time), unless
 * --verbose.  *keep is the text written (the first call's, for the
 * front end to compare the next ones with).
 */
static void
json_isolation(struct ws_tcall *c, struct ws_jw *jw, const struct ws_run_result *r,
	       bool compact)
{
	const struct ws_cli *cli = c->cli;
	struct ws_jw iw;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (c->mode == WS_TCALL_MODEL && !cli->verbose &&
	    (m = open_memstream(&buf, &len)) != NULL) {
		ws_jw_init(&iw, m);
		ws_jw_obj(&iw);
		if (compact)
			json_layers_compact(&iw, &r->iso);
		else
			json_layers(&iw, &r->iso, false);
		if (r->grants != NULL)
			json_grants(&iw, r->grants, r->ngrants, compact);
		json_view(&iw, &r->view, compact);
		ws_jw_obj_end(&iw);
		if (fclose(m) == 0 && buf != NULL) {
			if (c->iso_default == NULL || strcmp(c->iso_default, buf) != 0) {
				ws_jw_key(jw, "isolation");
				ws_jw_raw(jw, buf);
			}
			if (c->iso_default == NULL) {
				c->iso_first = buf;
				buf = NULL;
			}
			free(buf);
			return;
		}
		free(buf);
	}
	ws_jw_key(jw, "isolation");
	ws_jw_obj(jw);
	if (compact)
		json_layers_compact(jw, &r->iso);
	else
		json_layers(jw, &r->iso, false);
	if (r->grants != NULL)
		json_grants(jw, r->grants, r->ngrants, compact);
	json_view(jw, &r->view, compact);
	ws_jw_obj_end(jw);
}

/*
 * A command's stream that is not UTF-8 (its JSON has it in base64), for
 * a model: text with a stray byte (a Latin-1 name in "ls" output) is
 * shown as read_file shows such a file, U+FFFD for each bad byte, since
 * a model cannot read base64; structuredContent keeps the bytes.  Bytes
 * holding a NUL are binary: shown as base64.
 */
static void
text_stream(FILE *f, const char *name, const struct ws_run_out *o)
{
	char *fixed, *b;
	size_t len = 0, bad = 0;

	if (o->data == NULL || o->len == 0)
		return;
	if (ws_utf8_valid(o->data, o->len) && memchr(o->data, '\0', o->len) == NULL) {
		fprintf(f, "--- %s\n", name);
		fwrite(o->data, 1, o->len, f);
		if (o->data[o->len - 1] != '\n')
			fputc('\n', f);
		return;
	}
	if (memchr(o->data, '\0', o->len) == NULL &&
	    (fixed = ws_read_utf8_fix(o->data, o->len, &len, &bad)) != NULL) {
		fprintf(f, "--- %s (not UTF-8: %zu byte%s shown as \xef\xbf\xbd; "
			"structuredContent has the bytes in base64)\n", name, bad,
			bad == 1 ? "" : "s");
		fwrite(fixed, 1, len, f);
		if (len > 0 && fixed[len - 1] != '\n')
			fputc('\n', f);
		free(fixed);
		return;
	}
	if ((b = ws_base64(o->data, o->len)) == NULL)
		return;
	fprintf(f, "--- %s (base64)\n%s\n", name, b);
	free(b);
}

/*
 * What the model cannot see in the output: workspace entries the
 * system's directories hid (a command finds them missing, and git
 * reports their files deleted), and names made at the top that did not
 * reach the workspace.  isolation.view lists them; these sentences are
 * what a model reads in the text (ftu7) and a script in JSON's "notes"
 * (FTU10 9), one call of emit each.
 */
static void
run_notes(const struct ws_run_result *r, const char *masked,
	  void (*emit)(void *, const char *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (masked != NULL)
		emit(arg, masked);

	if (r->view.shadowed.n > 0 && (m = open_memstream(&buf, &len)) != NULL) {
		fputs("hidden in this command by the system's directories of the "
		      "same name, so missing here (git shows their files as "
		      "deleted: do not commit that):", m);
		for (size_t i = 0; i < r->view.shadowed.n; i++)
			fprintf(m, " %s", r->view.shadowed.name[i]);
		fputs("; the file tools reach them", m);
		if (fclose(m) == 0)
			emit(arg, buf);
		free(buf);
		buf = NULL;
	}
	/*
	 * The policy grants plain wsrun warns of (print_grants() with 2):
	 * JSON's notes and a model's text said nothing of them while stderr
	 * did (ftu13 06).  The quiet ones stay in isolation.policy_grants.
	 */
	for (size_t i = 0; i < r->ngrants; i++) {
		const struct ws_policy_grant *g = &r->grants[i];
		char *rule, *dir, *why;

		if (!g->refused || g->quiet)
			continue;
		rule = ws_cli_masked(g->rule, true);
		dir = ws_cli_masked(g->dir, true);
		why = ws_cli_masked(g->why, true);
		if ((m = open_memstream(&buf, &len)) != NULL) {
			fprintf(m, "policy grant rule=%s dir=%s access=%s%s: refused%s%s",
				rule ? rule : "?", dir ? dir : "?",
				g->write ? "read-write" : "read", g->exec ? "+exec" : "",
				g->why[0] ? ", " : "", why ? why : "");
			if (fclose(m) == 0)
				emit(arg, buf);
			free(buf);
			buf = NULL;
		}
		free(rule);
		free(dir);
		free(why);
	}
	for (size_t i = 0; i < r->view.lost.n; i++) {
		char *n = ws_cli_masked(r->view.lost.name[i], true);

		if (n != NULL && (m = open_memstream(&buf, &len)) != NULL) {
			fprintf(m, "%s did not reach the workspace: %s", n,
				r->view.lost.why[i] ? r->view.lost.why[i] : "");
			if (fclose(m) == 0)
				emit(arg, buf);
			free(buf);
			buf = NULL;
		}
		free(n);
	}
}

/* Masked entries named in the note, at most; the rest are counted. */
#define MASKED_NOTE_MAX 5

/*
 * One group of the masked entries for masked_note(): those of the policy
 * (own false: no reason kept, the rule is looked up again, as the view's
 * walk keeps none) or wstools' own (own true: the reason kept, its
 * history).  Returns the number of entries of the group.
 */
static size_t
masked_group(FILE *m, struct ws_ctx *ws, const struct ws_view_names *l, bool own,
	     enum ws_op op)
{
	size_t k = 0;

	for (size_t i = 0; i < l->n; i++) {
		bool is_own = l->why != NULL && l->why[i] != NULL;
		char *n;
		struct ws_policy_match pm = {0};
		struct ws_res res;

		if (is_own != own)
			continue;
		if (k++ >= MASKED_NOTE_MAX)
			continue;
		n = ws_cli_masked(l->name[i], true);
		fprintf(m, "%s %s", k > 1 ? "," : "", n != NULL ? n : "?");
		free(n);
		if (own) {
			fprintf(m, " (%s)", l->why[i]);
			continue;
		}
		if (ws->policy == NULL)
			continue;
		if (ws_resolve(ws, l->name[i], WS_R_NOFOLLOW | WS_R__NO_DENY_CHECK,
			       &res) == 0) {
			char below[4352];

			/* A directory refused whole for exec: its rule is
			 * the one for what it holds ("D/" + "**"). */
			if (ws_policy_check_file(ws->policy, op, res.real,
						 &pm) != WS_DECISION_ALLOW && pm.rule != NULL)
				fprintf(m, " (rule %s)", pm.rule);
			else if (op == WS_OP_EXEC &&
				 snprintf(below, sizeof(below), "%s/x", res.real) <
				 (int)sizeof(below) &&
				 ws_policy_check_file(ws->policy, op, below, &pm) !=
				 WS_DECISION_ALLOW && pm.rule != NULL)
				fprintf(m, " (rule %s)", pm.rule);
			ws_res_free(&res);
		}
		ws_error_clear();
	}
	if (k > MASKED_NOTE_MAX)
		fprintf(m, " and %zu more (isolation.view.%s lists them)",
			k - MASKED_NOTE_MAX, op == WS_OP_EXEC ? "no_exec" : "masked");
	return k;
}

/*
 * What the policy masked in the command's view, with the rule that
 * refuses reading each (ftu11 04): "cat .env" printed nothing with status
 * 0, and an agent may take the file for empty.  One sentence, for plain
 * stderr, JSON's "notes" and a model's text; NULL when nothing was
 * masked, nor made non-executable (the policy's exec rules, said after
 * the masks).  With own, also what wstools hides of its own (its history,
 * where the workspace holds it: HOME as the workspace), worded as that,
 * not as the policy's (ftu12 04): plain output says it only under
 * --verbose, as it comes on every call in such a workspace.
 */
static char *
masked_note(struct ws_ctx *ws, const struct ws_view_info *v, bool own)
{
	const struct ws_view_names *l = &v->masked;
	char *buf = NULL;
	size_t len = 0, npol = 0, nown = 0, nx = 0;
	FILE *m;

	for (size_t i = 0; i < l->n; i++) {
		if (l->why != NULL && l->why[i] != NULL)
			nown++;
		else
			npol++;
	}
	/* Those with a reason are masked whole as well: said above. */
	for (size_t i = 0; i < v->no_exec.n; i++)
		if (v->no_exec.why == NULL || v->no_exec.why[i] == NULL)
			nx++;
	if ((npol == 0 && (nown == 0 || !own) && nx == 0 &&
	     v->exec_outside.n == 0) ||
	    (m = open_memstream(&buf, &len)) == NULL)
		return NULL;
	if (npol > 0) {
		fputs("masked by the policy, so the command reads them as empty:", m);
		masked_group(m, ws, l, false, WS_OP_READ);
	}
	if (own && nown > 0) {
		fputs(npol > 0 ? "; hidden by wstools, read as empty:" :
		      "hidden by wstools, so the command reads them as empty:", m);
		masked_group(m, ws, l, true, WS_OP_READ);
	}
	if (nx > 0) {
		/* "sh script" still reads it: only running it is refused. */
		fputs(npol > 0 || (own && nown > 0) ? "; " : "", m);
		fputs("not executable by the policy (neither run nor loaded "
		      "as a library; an interpreter can still read a script):", m);
		masked_group(m, ws, &v->no_exec, false, WS_OP_EXEC);
	}
	if (v->exec_outside.n > 0) {
		char *pat = ws_cli_masked(v->exec_outside.name[0], true);

		fprintf(m, "%sthe policy's exec rule %s (%s) names paths outside "
			"the workspace and its mounts, which a command's view "
			"does not bind: not applied to the command (refuse such "
			"commands with command_rules)",
			npol > 0 || (own && nown > 0) || nx > 0 ? "; " : "",
			v->exec_outside.why[0], pat ? pat : "?");
		free(pat);
	}
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void
print_note(void *arg, const char *note)
{
	fprintf(arg, "note: %s\n", note);
}

static void
json_note(void *arg, const char *note)
{
	ws_jw_str(arg, note);
}

/*
 * Why wsrun removed vpath, a guarded entry the command created: the
 * sentence a file tool would refuse to create it with ("is (or is in)
 * ~/.bashrc, where a later login ... : no tool may create it"), asked
 * of the guards alone (ws_check_guards()), then with what it holds (a
 * command that made ~/.config/git made ~/.config first), malloc'd; *marker says
 * that a project marker or .git was the reason.  NULL when no guard
 * answers now (or without memory).
 */
static char *
removed_why(struct ws_ctx *ws, const char *vpath, bool *marker)
{
	struct ws_res res = {.fd = -1, .dirfd = -1};
	char *why = NULL, *before = NULL, *after = NULL;

	if (ws_resolve(ws, vpath, WS_R_MISSING_OK, &res) < 0)
		goto out;
	/*
	 * A marker or .git that moves the roots first (.git is a guarded
	 * path too, for what it holds, but the roots are why it goes and
	 * what keeps one); then the entry itself, then what it holds.
	 */
	if (ws_ctx_marker_guarded(ws, res.real, WS_CHANGE_CREATES, &before, &after)) {
		*marker = true;
		if (asprintf(&why, "is a project marker: it would change what "
			     "project detection finds (%s, then %s), which the "
			     "policy's variables come from; pin the roots "
			     "(--project-root DIR, or \"detect_project_root\": "
			     "false in the configuration) to keep one",
			     before ? before : "?", after ? after : "?") < 0)
			why = NULL;
	} else if (ws_check_guards(ws, WS_OP_CREATE, res.real, vpath, false, NULL) < 0 ||
		   ws_check_guards(ws, WS_OP_CREATE, res.real, vpath, true, NULL) < 0) {
		why = strdup(ws_error_last());
	}
	if (why != NULL) {
		char *m = ws_cli_masked(why, true);

		free(why);
		why = m;
	}
out:
	free(before);
	free(after);
	ws_res_free(&res);
	ws_error_clear();
	return why;
}

/* A terminal's view, for a model: the status line, then each stream. */
static void
print_text(FILE *f, const struct ws_run_result *r, const char *masked)
{
	fprintf(f, "exit_code %d", r->exit_code);
	if (r->signal)
		fprintf(f, ", killed by signal %d", r->signal);
	if (r->timed_out)
		fputs(", timed out", f);
	/*
	 * The turn is taken from another command, or from a change another
	 * call is making to the workspace's files (ftu18 06): either.
	 */
	if (r->waited_ms > 0)
		fprintf(f, " (%lld ms, after %lld ms waiting for another call in "
			"this workspace: a command, or a change to its files)\n",
			r->duration_ms, r->waited_ms);
	else
		fprintf(f, " (%lld ms)\n", r->duration_ms);
	text_stream(f, "stdout", &r->out);
	text_stream(f, "stderr", &r->err);
	run_notes(r, masked, print_note, f);
}

static void
print_json(struct ws_tcall *c, const struct ws_run_result *r, const char *masked)
{
	const struct ws_cli *cli = c->cli;
	struct ws_jw jw;
	bool compact = cli->from_args && !cli->verbose;

	ws_tcall_begin(c, &jw);
	ws_jw_obj(&jw);
	ws_jw_kint(&jw, "exit_code", r->exit_code);
	if (r->signal)
		ws_jw_kint(&jw, "signal", r->signal);
	else
		ws_jw_knull(&jw, "signal");
	ws_jw_kbool(&jw, "timed_out", r->timed_out);
	ws_jw_kint(&jw, "duration_ms", r->duration_ms);
	ws_jw_kint(&jw, "waited_ms", r->waited_ms);
	json_stream(&jw, "stdout", &r->out);
	json_stream(&jw, "stderr", &r->err);
	ws_jw_key(&jw, "notes");
	ws_jw_arr(&jw);
	run_notes(r, masked, json_note, &jw);
	ws_jw_arr_end(&jw);
	ws_jw_kname(&jw, "cwd", r->cwd);
	if (r->max_rss_kb >= 0)
		ws_jw_kint(&jw, "max_rss_kb", r->max_rss_kb);
	else
		ws_jw_knull(&jw, "max_rss_kb");
	/* Under --args, a count; the names with --verbose (or --json). */
	if (compact) {
		ws_jw_kint(&jw, "env_dropped_count", (long long)r->nenv_dropped);
	} else {
		ws_jw_key(&jw, "env_dropped");
		ws_jw_arr(&jw);
		for (size_t i = 0; i < r->nenv_dropped; i++)
			ws_jw_str(&jw, r->env_dropped[i]);
		ws_jw_arr_end(&jw);
	}
	json_isolation(c, &jw, r, compact);
	if (r->net_filtered)
		json_network(&jw, r, compact);
	/* Landlock audit records are not read yet: never a guess. */
	ws_jw_knull(&jw, "violations");
	if (r->nreverted > 0) {
		bool marker = false;

		ws_jw_key(&jw, "reverted");
		ws_jw_arr(&jw);
		for (size_t i = 0; i < r->nreverted; i++)
			ws_jw_str(&jw, r->reverted[i]);
		ws_jw_arr_end(&jw);
		/* Each created entry's reason, in the order of "reverted". */
		if (r->nreverted_created > 0) {
			ws_jw_key(&jw, "reverted_why");
			ws_jw_arr(&jw);
			for (size_t i = 0; i < r->nreverted_created; i++) {
				char *why = removed_why(c->ws, r->reverted[i], &marker);

				if (why != NULL)
					ws_jw_str(&jw, why);
				else
					ws_jw_null(&jw);
				free(why);
			}
			ws_jw_arr_end(&jw);
		}
		if (marker)
			ws_jw_kstr(&jw, "reverted_hint",
				   "guarded entries the command created were removed; "
				   "a project marker or .git that moves PROJECT_ROOT "
				   "or GIT_ROOT (git init at the workspace top) is "
				   "kept only with the roots pinned: --project-root "
				   "DIR, or \"detect_project_root\": false in the "
				   "configuration");
		else if (r->nreverted_created > 0)
			ws_jw_kstr(&jw, "reverted_hint",
				   "guarded entries the command created were removed: "
				   "no tool may create them (reverted_why says why "
				   "for each)");
	}
	/* Left as they are, apart from what was undone (ftu17 09). */
	if (r->nkept > 0) {
		ws_jw_key(&jw, "kept");
		ws_jw_arr(&jw);
		for (size_t i = 0; i < r->nkept; i++)
			ws_jw_str(&jw, r->kept[i]);
		ws_jw_arr_end(&jw);
	}
	ws_jw_obj_end(&jw);
	ws_tcall_end(c, &jw);
}

/*
 * Whether network by name (--net-allow) can work here: it needs the
 * command's own network namespace, made with its PID namespace; seccomp
 * and Landlock's TCP rules (ABI 4) narrow it to the proxy's port.
 */
static bool
probe_net_by_name(const struct ws_isolation *iso, char *why, size_t len)
{
	const struct ws_layer_state *L = iso->layer;

	if (!L[WS_LAYER_NETNS].available || !L[WS_LAYER_PIDNS].available) {
		snprintf(why, len, "no network namespace of the command's own (%s)",
			 !L[WS_LAYER_NETNS].available ? L[WS_LAYER_NETNS].why :
			 L[WS_LAYER_PIDNS].why);
		return false;
	}
	snprintf(why, len, "proxy on 127.0.0.1:%d in the command's network "
		 "namespace%s%s", WS_NETPROXY_PORT,
		 L[WS_LAYER_SECCOMP].available ? ", TCP sockets only (seccomp)" :
		 ", any socket (no seccomp; only loopback exists)",
		 iso->landlock_abi >= 4 ? ", connect to that port only (Landlock)" :
		 "");
	return true;
}

static int
print_probe(const struct ws_cli *cli, struct ws_ctx *ws, unsigned disable)
{
	char nwhy[256];
	bool nbn;
	struct ws_isolation iso;
	struct ws_policy_grant *gv = NULL;
	struct ws_run_opts vo;
	size_t ngv = 0;

	char why[1024];
	int runs, rc;

	memset(&iso, 0, sizeof(iso));
	ws_sandbox_probe(&iso, disable, true);
	memset(&vo, 0, sizeof(vo));
	if ((rc = get_view(cli, &vo)) < 0)
		return rc;
	/* What the default (--isolate auto, network off) would do here. */
	runs = ws_run_auto_verdict(&iso, why, sizeof(why));
	/*
	 * In the default view: where that is the virtual one and no mount
	 * namespace can be made, a call is refused (never run in the real
	 * view instead), and the verdict says so and what --view real has.
	 */
	if (runs && vo.view == WS_VIEW_VIRTUAL &&
	    !iso.layer[WS_LAYER_MOUNTNS].available) {
		char layers[400];

		snprintf(layers, sizeof(layers), "%.399s", why);
		snprintf(why, sizeof(why), "the virtual view%s needs a mount "
			 "namespace, and there is none: %s; --view real runs "
			 "commands here with %s", vo.view_from_paths ?
			 " (the default, --paths virtual)" : "",
			 iso.layer[WS_LAYER_MOUNTNS].why, layers);
		runs = 0;
	}
	nbn = probe_net_by_name(&iso, nwhy, sizeof(nwhy));
	/* With a policy: what its rules of directory shape would add. */
	if (ws->policy != NULL && (rc = ws_grants_probe(ws, &gv, &ngv)) < 0)
		return rc;
	/* As a call would: without the filter, nothing is granted. */
	if (!iso.layer[WS_LAYER_SECCOMP].available)
		ws_grants_revoke(gv, ngv, "not granted: no seccomp filter to keep "
				 "the command from connecting to a host UNIX "
				 "socket in it");
	if (cli->json) {
		struct ws_jw jw;

		ws_cli_json_begin(cli, &jw);
		ws_jw_obj(&jw);
		json_layers(&jw, &iso, true);
		/* The view a call would have, and whether it can be built. */
		ws_jw_key(&jw, "view");
		ws_jw_obj(&jw);
		ws_jw_kstr(&jw, "default", ws_view_name(vo.view));
		ws_jw_kbool(&jw, "from_paths", vo.view_from_paths);
		ws_jw_kbool(&jw, "virtual_available", iso.layer[WS_LAYER_MOUNTNS].available);
		if (!iso.layer[WS_LAYER_MOUNTNS].available)
			ws_jw_kstr(&jw, "reason", iso.layer[WS_LAYER_MOUNTNS].why);
		ws_jw_obj_end(&jw);
		ws_jw_key(&jw, "net_by_name");
		ws_jw_obj(&jw);
		ws_jw_kbool(&jw, "available", nbn);
		ws_jw_kstr(&jw, "how", nwhy);
		ws_jw_obj_end(&jw);
		ws_jw_key(&jw, "verdict");
		ws_jw_obj(&jw);
		ws_jw_kbool(&jw, "auto_runs", runs);
		if (runs) {
			ws_jw_key(&jw, "layers");
			ws_jw_arr(&jw);
			for (char *p = why, *e; *p; p = e) {
				e = strchr(p, ',');
				e = e ? e : p + strlen(p);
				ws_jw_strn(&jw, p, (size_t)(e - p));
				e += strspn(e, ", ");
			}
			ws_jw_arr_end(&jw);
			ws_jw_knull(&jw, "reason");
		} else {
			ws_jw_knull(&jw, "layers");
			ws_jw_kstr(&jw, "reason", why);
		}
		ws_jw_obj_end(&jw);
		if (ws->policy != NULL)
			json_grants(&jw, gv, ngv, false);
		ws_jw_obj_end(&jw);
		ws_cli_json_end(cli, &jw);
		ws_policy_grants_free(gv, ngv);
		return 0;
	}
	for (int l = 0; l < WS__LAYER_COUNT; l++) {
		fprintf(ws_out(), "%-13s %s", ws_layer_name((enum ws_layer)l),
		       iso.layer[l].available ? "available" : "unavailable");
		if (l == WS_LAYER_LANDLOCK && iso.landlock_abi > 0)
			fprintf(ws_out(), " (ABI %d)", iso.landlock_abi);
		if (iso.layer[l].why[0])
			fprintf(ws_out(), ": %s", iso.layer[l].why);
		ws_out_putc('\n');
	}
	/* What the view means, in the words a newcomer needs. */
	fprintf(ws_out(), "%-13s %s by default%s: commands see the workspace "
		"%s; virtual %s%s\n", "view",
		ws_view_name(vo.view), vo.view_from_paths ? " (--paths virtual)" : "",
		vo.view == WS_VIEW_VIRTUAL ? "at / (--view real: at its real path)" :
		"at its real path (--view virtual: at /)",
		iso.layer[WS_LAYER_MOUNTNS].available ? "available" : "unavailable: ",
		iso.layer[WS_LAYER_MOUNTNS].available ? "" : iso.layer[WS_LAYER_MOUNTNS].why);
	fprintf(ws_out(), "%-13s %s: %s\n", "net-by-name",
		nbn ? "available" : "unavailable", nwhy);
	/* Before the verdict, which stays the last line. */
	print_grants(ws_out(), "", gv, ngv, -1);
	fflush(ws_out());
	if (runs)
		printf("verdict: --isolate auto runs commands here with %s\n", why);
	else
		printf("verdict: --isolate auto refuses to run commands here "
		       "(SANDBOX_UNAVAILABLE): %s\n", why);
	ws_policy_grants_free(gv, ngv);
	return 0;
}

/*
 * --verbose: the command's PATH entries that its view does not hold, said
 * once (FTU10 12).  The caller's PATH reaches the command as it is (a
 * command's lookup passes over an entry that is not there, as execvp(3)
 * does), so the caller's own directories (a build directory, ~/.cargo/bin
 * outside the workspace) stay in it, which confuses a person reading "not
 * found".  An absolute entry is there when it lies under a system name
 * the virtual view shows at "/" (the private /tmp aside) and the host has
 * it, or when the workspace or a mount holds it; one in a directory
 * granted to the command is not judged.  Relative entries are the
 * working directory's: not judged either.  Only under --verbose: the
 * system calls are a verbose run's alone.
 */
static void
print_path_unseen(struct ws_ctx *ws, const struct ws_run_opts *o,
		  const struct ws_run_result *r)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *seen = NULL;
	size_t nseen = 0;
	int shown = 0;

	for (size_t i = 0; i < o->nenv; i++)
		if (strncmp(o->env[i], "PATH=", 5) == 0)
			path = o->env[i] + 5;
	/*
	 * The default PATH holds system directories only; the real view
	 * keeps the host's layout, where the sandbox's access rules, not
	 * the view, decide what a command reaches: nothing to say.
	 */
	if (path == NULL || r->view.view != WS_VIEW_VIRTUAL)
		return;
	if ((copy = strdup(path)) == NULL || (seen = calloc(1, strlen(path) + 2)) == NULL) {
		free(copy);
		return;
	}
	for (char *e = strtok_r(copy, ":", &save); e != NULL;
	     e = strtok_r(NULL, ":", &save)) {
		size_t tl = strcspn(e + 1, "/");
		bool sys = false, there = false, again = false;
		struct stat st;
		char *dup;

		/* An entry spelled twice is said once. */
		for (char *q = seen; q < seen + nseen; q += strlen(q) + 1)
			again = again || strcmp(q, e) == 0;
		if (e[0] != '/' || again)
			continue;
		/* What --allow-read, --allow-write or a policy grant shows
		 * at its real path is not judged. */
		for (size_t k = 0; k < o->nallow_read && !there; k++)
			there = ws_path_within(o->allow_read[k], e, NULL);
		for (size_t k = 0; k < o->nallow_write && !there; k++)
			there = ws_path_within(o->allow_write[k], e, NULL);
		for (size_t k = 0; k < r->ngrants && !there; k++)
			there = r->grants[k].granted &&
				ws_path_within(r->grants[k].dir, e, NULL);
		for (size_t k = 0; k < r->view.system.n; k++)
			if (strlen(r->view.system.name[k]) == tl &&
			    strncmp(r->view.system.name[k], e + 1, tl) == 0)
				sys = true;
		if (there) {
			/* Shown as granted. */
		} else if (sys) {
			there = !(tl == 3 && strncmp(e + 1, "tmp", 3) == 0) &&
				stat(e, &st) == 0 && S_ISDIR(st.st_mode);
		} else {
			struct ws_res res = {.fd = -1, .dirfd = -1};

			there = ws_resolve(ws, e, 0, &res) == 0 && S_ISDIR(res.st.st_mode);
			ws_res_free(&res);
			ws_error_clear();
		}
		memcpy(seen + nseen, e, strlen(e) + 1);
		nseen += strlen(e) + 1;
		if (there)
			continue;
		dup = ws_cli_masked(e, true);
		fprintf(stderr, "%s%s", shown++ ? ", " : "INFO PATH entries not in "
			"the command's view (passed over by its lookup): ",
			dup ? dup : "?");
		free(dup);
	}
	if (shown)
		fputc('\n', stderr);
	free(seen);
	free(copy);
}

/*
 * The audit line of a run (ws/audit.h): the command, how it ended, the
 * isolation (in the compact form a model sees) and the guarded entries
 * removed after it.  A run refused or failed (rc < 0) has no exit of
 * its own to record, and isolation says what it would have had: both
 * are left out, so that the line cannot read as a command that ran
 * unconfined; its outcome names the error.
 */
static void
audit_run(struct ws_cli *cli, const struct ws_run_opts *o,
	  const struct ws_run_result *r, int rc)
{
	char *cmd = ws_run_cmdline(o), *iso = NULL;
	size_t isolen = 0;
	FILE *f;

	ws_audit_set_str(cli->audit_log, "operation", "exec");
	ws_audit_set_str(cli->audit_log, "command", cmd);
	/*
	 * What else decides what the command line does: the caller's
	 * variables (GIT_CONFIG_KEY_0=alias.pu with VALUE_0=push makes
	 * "git pu" a push) and where it ran (review20 03).
	 */
	/* Always, as wstools(1) lists it: where none was asked for, where
	 * the command ran (ftu13 10). */
	if (o->cwd != NULL)
		ws_audit_set_str(cli->audit_log, "cwd", o->cwd);
	else if (r != NULL && r->cwd != NULL)
		ws_audit_set_str(cli->audit_log, "cwd", r->cwd);
	else
		ws_audit_set_str(cli->audit_log, "cwd", "/");
	/*
	 * The names only: a value may be a token (API_TOKEN=...), and a
	 * hash-chained log keeps what it is given for good (review21 01).
	 * A name such as GIT_CONFIG_KEY_0 is what a reviewer looks for.
	 */
	if (o->nenv > 0 || o->nkeep_env > 0) {
		cJSON *e = cJSON_CreateArray();
		char *t;

		for (size_t i = 0; e != NULL && i < o->nenv; i++) {
			const char *eq = strchr(o->env[i], '=');
			char *k = eq ? strndup(o->env[i], (size_t)(eq - o->env[i])) : NULL;

			if (k != NULL)
				cJSON_AddItemToArray(e, cJSON_CreateString(k));
			free(k);
		}
		for (size_t i = 0; e != NULL && i < o->nkeep_env; i++)
			cJSON_AddItemToArray(e, cJSON_CreateString(o->keep_env[i]));
		if (e != NULL && (t = cJSON_PrintUnformatted(e)) != NULL) {
			ws_audit_set_json(cli->audit_log, "env", t);
			free(t);
		}
		cJSON_Delete(e);
	}
	if (rc < 0)
		goto reverted;
	ws_audit_set_int(cli->audit_log, "command_exit", r->exit_code);
	if (r->signal != 0)
		ws_audit_set_int(cli->audit_log, "command_signal", r->signal);
	if (r->timed_out)
		ws_audit_set_json(cli->audit_log, "timed_out", "true");
	if ((f = open_memstream(&iso, &isolen)) != NULL) {
		struct ws_jw jw;

		ws_jw_init(&jw, f);
		ws_jw_obj(&jw);
		json_layers_compact(&jw, &r->iso);
		ws_jw_obj_end(&jw);
		if (fclose(f) == 0)
			ws_audit_set_json(cli->audit_log, "isolation", iso);
	}
reverted:
	if (r->nreverted > 0) {
		cJSON *a = cJSON_CreateStringArray((const char *const *)r->reverted,
						   (int)r->nreverted);
		char *t = a ? cJSON_PrintUnformatted(a) : NULL;

		ws_audit_set_json(cli->audit_log, "reverted", t);
		free(t);
		cJSON_Delete(a);
	}
	if (r->nkept > 0) {
		cJSON *a = cJSON_CreateStringArray((const char *const *)r->kept,
						   (int)r->nkept);
		char *t = a ? cJSON_PrintUnformatted(a) : NULL;

		ws_audit_set_json(cli->audit_log, "kept", t);
		free(t);
		cJSON_Delete(a);
	}
	/* A command's own changes are not in the history (wsrun(1)). */
	free(iso);
	free(cmd);
}

/*
 * Where s holds real (the workspace's or a mount's real directory) as a
 * path of its own: at the start or after a character that cannot be part
 * of a path (a space, '=', a quote), and followed by '/' or the end of the
 * path.  NULL where it does not.
 */
static const char *
find_real_prefix(const char *s, const char *real)
{
	size_t n = strlen(real);

	for (const char *p = strstr(s, real); p != NULL; p = strstr(p + 1, real)) {
		bool start = p == s || strchr(" \t\n=:'\"(<>;|&", p[-1]) != NULL;
		bool end = p[n] == '\0' || p[n] == '/' ||
			   strchr(" \t\n'\":;|&)<>", p[n]) != NULL;

		if (start && end)
			return p;
	}
	return NULL;
}

/*
 * The virtual view: an argument that spells the workspace's real path
 * names nothing in the command (the workspace is at /), and the command
 * then fails with a bare "No such file or directory" or writes into its
 * private /tmp.  A script that passes real paths is the likeliest to meet
 * this after the default changed, so say it once, with the way out.
 */
static void
warn_real_paths(const struct ws_ctx *ws, const struct ws_run_opts *o)
{
	if (o->view != WS_VIEW_VIRTUAL)
		return;
	for (size_t k = 0; k <= o->argc; k++) {
		const char *arg = k < o->argc ? o->argv[k] : o->shell;

		if (arg == NULL)
			continue;
		/* Each anchor's real directory, and the root as spelled
		 * through a symlink (ws->alias) last. */
		for (size_t i = 0; i <= ws->nanchors; i++) {
			const char *real = i < ws->nanchors ? ws->anchors[i].real :
					   ws->alias;
			const char *vp = i < ws->nanchors ? ws->anchors[i].vprefix : "/";
			const char *p, *rest;
			size_t n;

			if (real == NULL || strcmp(real, "/") == 0 ||
			    (p = find_real_prefix(arg, real)) == NULL)
				continue;
			rest = p + strlen(real);
			n = strcspn(rest, " \t\n'\":;|&)<>");
			fprintf(stderr, "wsrun: %.*s: a real path of the "
				"workspace: the virtual view (the default) shows "
				"the command the workspace at /; say %s%.*s, or "
				"run with --view real (WS_VIEW=real)\n",
				(int)(strlen(real) + n), p,
				strcmp(vp, "/") == 0 && n > 0 ? "" : vp, (int)n, rest);
			return;
		}
	}
}

/*
 * A command line's slips that end in "command not found": a whole
 * command given as one word ("wsrun 'ls -l'") and a shell builtin that
 * has no program ("wsrun cd /tmp").  The hint says what to type.
 */
static void
hint_not_found(const char *cmd)
{
	static const char *const builtins[] = {
		"cd", "pushd", "export", "source", "alias", "set", "unset",
		"ulimit", "umask", "exec", "eval", "shopt", "type",
	};

	if (cmd == NULL)
		return;
	if (strpbrk(cmd, " \t") != NULL) {
		ws_error_set_hint("the command is one argument holding a space: "
				  "split it into words (wsrun CMD ARG...) or "
				  "give it to a shell (wsrun -c '%s')", cmd);
		return;
	}
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strcmp(cmd, builtins[i]) == 0) {
			ws_error_set_hint("%s is a shell builtin, not a program: "
					  "%sgive a shell the whole line (wsrun "
					  "-c '%s ...; ...')", cmd,
					  i < 2 ? "run the command in a directory "
					  "with --cwd VPATH, or " :
					  strcmp(cmd, "export") == 0 ?
					  "set a variable with --env NAME=VALUE, "
					  "or " : "", cmd);
			return;
		}
}

/*
 * Plain wsrun's warning about the workspace entries the virtual view
 * hid: those under a system directory of the same name on one line, any
 * other (a name wsrun uses while it builds the view) on its own.
 */
static void
print_shadowed(const struct ws_view_names *l)
{
	size_t nsys = 0;

	for (size_t i = 0; i < l->n; i++) {
		if (l->why[i] != NULL && strncmp(l->why[i], "the system's ", 13) == 0) {
			fprintf(stderr, "%s %s", nsys++ == 0 ? "wsrun:" : ",",
				l->name[i]);
		}
	}
	if (nsys > 0)
		fprintf(stderr, ": the workspace's %s hidden from the command by "
			"the system's director%s of the same name (--view real "
			"reaches %s)\n", nsys == 1 ? "entry was" : "entries were",
			nsys == 1 ? "y" : "ies", nsys == 1 ? "it" : "them");
	for (size_t i = 0; i < l->n; i++)
		if (l->why[i] == NULL || strncmp(l->why[i], "the system's ", 13) != 0)
			fprintf(stderr, "wsrun: %s: the workspace's entry was "
				"hidden from the command: %s (--view real "
				"reaches it)\n", l->name[i], l->why[i] ? l->why[i] : "");
}

/* What plain wsrun's plan_notes() needs, and whether it ran. */
struct plan_notes {
	struct ws_ctx *ws;
	bool verbose;
	bool said;
};

/*
 * Plain wsrun's notes about the view, said on stderr as the command
 * starts (ws_run_opts.planned): what the policy masked, the grants it
 * refused, the entries the system's directories hide.  After the
 * command they came after its output, or after an interactive shell
 * ended: a person who ran `cat .env` in it saw an empty file with no
 * word why (ftu13 15).
 */
static void
plan_notes(void *arg, const struct ws_run_result *r)
{
	struct plan_notes *pn = arg;
	char *masked = masked_note(pn->ws, &r->view, pn->verbose);

	if (masked != NULL)
		fprintf(stderr, "wsrun: %s\n", masked);
	free(masked);
	if (pn->verbose)
		print_grants(stderr, "INFO ", r->grants, r->ngrants, 0);
	print_grants(stderr, "wsrun: ", r->grants, r->ngrants, 2);
	print_shadowed(&r->view.shadowed);
	fflush(stderr);
	pn->said = true;
}

static int
run_run(struct ws_tcall *c)
{
	struct ws_cli *cli = c->cli;
	struct ws_ctx *ws = c->ws;
	struct ws_run_opts o;
	struct ws_run_result r = {0};
	const char **env_all = NULL;
	char *masked = NULL;
	struct plan_notes pn = {.ws = ws, .verbose = cli->verbose};
	bool hooked = false;
	int rc, status = 0;

	if (WS_OPT(cli, O_PROBE)->b) {
		const char *dis = getenv("WS_RUN_DISABLE");
		unsigned bits = 0;

		if (dis != NULL && (rc = ws_layers_parse(dis, &bits)) < 0)
			goto fail;
		if ((rc = print_probe(cli, ws, bits)) < 0)
			goto fail;
		goto out;
	}
	if ((rc = get_opts(cli, &o, &env_all)) < 0)
		goto fail;
	o.audit = cli->audit_log;
	if (!cli->json) {
		o.planned = plan_notes;
		o.planned_arg = &pn;
	}
	if (cli->verbose && !cli->json) {
		if (o.timeout_ms > 0)
			fprintf(stderr, "INFO timeout %lld.%03lld s\n",
				o.timeout_ms / 1000, o.timeout_ms % 1000);
		else
			fprintf(stderr, "INFO timeout none%s\n",
				WS_OPT(cli, O_TIMEOUT)->set ? "" :
				" (standard input is a terminal: --timeout S sets one)");
	}
	if (!cli->json)
		fflush(ws_out());
	{
		/* No SA_RESTART: the wait returns and stops the tree. */
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		pthread_mutex_lock(&hook_mu);
		if (hook_users++ == 0) {
			cancel_sig = 0;
			sigaction(SIGINT, &sa, &hook_old[0]);
			sigaction(SIGTERM, &sa, &hook_old[1]);
			sigaction(SIGHUP, &sa, &hook_old[2]);
		}
		pthread_mutex_unlock(&hook_mu);
		hooked = true;
		o.cancel = &cancel_sig;
	}
	rc = ws_run(ws, &o, &r);
	/*
	 * The one LIMIT_EXCEEDED of a run that comes without a hint: the
	 * wait for another command's turn outlasted this call's timeout
	 * (ftu18 17).  Say what lets it run, not only why it did not.
	 */
	if (rc == WS_ELIMIT_EXCEEDED && ws_error_last_hint() == NULL)
		ws_error_set_hint("wait for the other command's result, then call "
				  "again, or give a timeout that covers both: it "
				  "bounds the wait for a turn too");
	if (cli->audit_log != NULL)
		audit_run(cli, &o, &r, rc);
	if (rc < 0)
		goto fail;
	if (cli->verbose)
		print_path_unseen(ws, &o, &r);
	masked = masked_note(ws, &r.view, cli->json || cli->verbose);
	if (cli->json) {
		print_json(c, &r, masked);
		if (c->mode == WS_TCALL_MODEL) {
			/* A model's text on every call: the policy's only. */
			char *pm = masked_note(ws, &r.view, false);

			print_text(c->text, &r, pm);
			free(pm);
		}
	} else {
		if (masked != NULL && !pn.said)
			fprintf(stderr, "wsrun: %s\n", masked);
		if (r.timed_out)
			fprintf(stderr, "wsrun: timed out after %g s; the process "
				"tree was killed\n", (double)o.timeout_ms / 1000);
		for (size_t i = 0; i < r.nreverted; i++) {
			/* Paths the command may have named: no control bytes. */
			char *n = ws_cli_masked(r.reverted[i], true);

			if (i < r.nreverted_created) {
				bool marker = false;
				char *why = removed_why(ws, r.reverted[i], &marker);

				/* The file tools' own sentence: it names the
				 * kind of place (HOME's, PATH's, wstools'). */
				if (why != NULL)
					fprintf(stderr, "wsrun: %s: removed (the command "
						"created it): it %s\n", n ? n : "?", why);
				else
					fprintf(stderr, "wsrun: %s: removed: the command "
						"created a guarded entry, which no tool may "
						"create\n", n ? n : "?");
				free(why);
			} else {
				fprintf(stderr, "wsrun: cleaned %s\n", n ? n : "?");
			}
			free(n);
		}
		/* Not "cleaned": these were left as they are (ftu17 09). */
		for (size_t i = 0; i < r.nkept; i++) {
			char *n = ws_cli_masked(r.kept[i], true);

			fprintf(stderr, "wsrun: kept %s\n", n ? n : "?");
			free(n);
		}
		/* A refused grant leaves the command with "No such file or
		 * directory" in a mount namespace: say why, as a warning,
		 * without --verbose. */
		if (cli->verbose && !pn.said)
			print_grants(stderr, "INFO ", r.grants, r.ngrants, 0);
		if (!pn.said)
			print_grants(stderr, "wsrun: ", r.grants, r.ngrants, 2);
		/*
		 * The virtual view: a workspace entry the command could not
		 * see (it met "No such file or directory" or the system's
		 * file there) and a name it made at the top that did not
		 * reach the workspace: said as warnings, as JSON lists them.
		 * Those the system's directories hide come on every call
		 * (ftu11 04): one line for all of them, before the command's
		 * output (plan_notes()).
		 */
		if (!pn.said)
			print_shadowed(&r.view.shadowed);
		/*
		 * The command chose these names (a name at the top, a host
		 * in a request): control bytes are shown as "?", or a name
		 * holding a newline or an escape sequence would write
		 * lines of wsrun's own, or to the terminal.
		 */
		for (size_t i = 0; i < r.view.lost.n; i++) {
			char *n = ws_cli_masked(r.view.lost.name[i], true);

			fprintf(stderr, "wsrun: %s: made by the command, not in "
				"the workspace: %s\n", n ? n : "?",
				r.view.lost.why[i] ? r.view.lost.why[i] : "");
			free(n);
		}
		warn_real_paths(ws, &o);
		/* Network by name: what was refused, as a warning. */
		for (size_t i = 0; i < r.nnet_conns; i++)
			if (!r.net_conns[i].allowed) {
				char *h = ws_cli_masked(r.net_conns[i].host ?
							r.net_conns[i].host : "?", true);
				char *w = ws_cli_masked(r.net_conns[i].reason ?
							r.net_conns[i].reason : "", true);

				fprintf(stderr, "wsrun: network: refused %s port %d: %s\n",
					h ? h : "?", r.net_conns[i].port, w ? w : "");
				free(h);
				free(w);
			}
		if (r.net_total > r.nnet_conns)
			fprintf(stderr, "wsrun: network: %zu more connections "
				"not listed (%zu refused in all)\n",
				r.net_total - r.nnet_conns, r.net_refused);
	}
	status = r.status;
	goto out;
fail:
	if (rc == WS_ENOT_FOUND && r.status == WS_RUN_EXIT_NOTFOUND &&
	    !cli->from_args && !WS_OPT(cli, O_SHELL)->set)
		hint_not_found(o.argv != NULL ? o.argv[0] : NULL);
	status = ws_tcall_fail(c, rc);
	/* Its own failures never look like the command's status. */
	if (status != 0)
		status = rc == WS_ENOT_FOUND && r.status == WS_RUN_EXIT_NOTFOUND ?
			 WS_RUN_EXIT_NOTFOUND :
			 (rc == WS_EPERMISSION_DENIED || rc == WS_EPOLICY_DENIED) &&
			 r.status == WS_RUN_EXIT_NOEXEC ?
			 WS_RUN_EXIT_NOEXEC : WS_RUN_EXIT_FAILED;
out:
	if (hooked) {
		/* The process may go on (wstools mcp): its signals are its own. */
		pthread_mutex_lock(&hook_mu);
		if (--hook_users == 0) {
			sigaction(SIGINT, &hook_old[0], NULL);
			sigaction(SIGTERM, &hook_old[1], NULL);
			sigaction(SIGHUP, &hook_old[2], NULL);
		}
		pthread_mutex_unlock(&hook_mu);
	}
	ws_run_free(&r);
	free(env_all);
	free(masked);
	return status;
}

const struct ws_tool_def ws_tool_run_command = {
	.name = "run_command",
	.cli = &ws__run_cli,
	.title = "Run a command in the sandbox",
	.ro = false,
	.destructive = true,
	.idempotent = false,
	.output_schema =
	"{\"type\":\"object\",\"properties\":{\"exit_code\":{\"type\":\"integer\"},"
	"\"signal\":{},\"timed_out\":{\"type\":\"boolean\"},\"stdout\":"
	"{\"type\":\"string\"},\"stderr\":{\"type\":\"string\"}}}",
	/* Its own failures never look like the command's status. */
	.fail_exit = WS_RUN_EXIT_FAILED,
	.run = run_run,
};
