/*
 * session.c - what a call sets up before it acts: the configuration file,
 * the workspace and its mounts, project detection and the policy, as the
 * common options and their environment variables ask (ws_cli_open).
 */
#include "ws/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws-config.h"
#include "ws/audit.h"
#include "ws/call.h"
#include "ws/config.h"
#include "ws/detect.h"
#include "ws/error.h"
#include "ws/guard.h"
#include "ws/history.h"
#include "ws/path.h"
#include "ws/policy.h"
#include "ws/vars.h"

/* ws_cli_set_approver(): the current call's (ws/call.h). */
void
ws_cli_set_approver(ws_approver_fn fn, void *arg)
{
	struct ws_call *c = ws_call_current();

	c->approver = fn;
	c->approver_arg = arg;
}

/* ws_cli_set_mounts(): the mounts a long-lived front end passes as data. */
void
ws_cli_set_mounts(const struct ws_mount_def *m, size_t n)
{
	struct ws_call *c = ws_call_current();

	c->mounts = n > 0 ? m : NULL;
	c->nmounts = m != NULL ? n : 0;
}

/* --verbose: one logfmt line on stderr, in the form of DESIGN.md 6. */
static void
ws__log(void *arg, const char *level, const char *line)
{
	(void)arg;
	fprintf(stderr, "%s %s\n", level, line);
}

/* Log "key=value" pairs; values are quoted when they need it. */
static void
ws__logkv(const char *level, const char *what, const char *k1, const char *v1,
	  const char *k2, const char *v2)
{
	char *q1 = v1 ? ws_log_quote(v1) : NULL;
	char *q2 = v2 ? ws_log_quote(v2) : NULL;

	fprintf(stderr, "%s %s", level, what);
	if (k1 != NULL)
		fprintf(stderr, " %s=%s", k1, q1 ? q1 : "\"\"");
	if (k2 != NULL)
		fprintf(stderr, " %s=%s", k2, q2 ? q2 : "\"\"");
	fputc('\n', stderr);
	free(q1);
	free(q2);
}

/*
 * Ask a person on the terminal (never on stdin, which may carry data):
 * only "y" or "yes" approves.
 */
static bool
ws__prompt(void *arg, const char *message)
{
	const struct ws_cli *cli = arg;
	char ans[64];
	size_t n = 0;
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);

	char *safe;

	if (fd < 0)
		return false;
	/*
	 * The question comes from ws_policy_question(): its values are
	 * escaped and its lines are its own.  Still, no control byte but
	 * those line breaks reaches the terminal, whatever a caller passed;
	 * the first line (what is asked) after the tool's name, the details
	 * indented under it, and the answer asked for on a line of its own.
	 */
	if ((safe = strdup(message)) == NULL) {
		close(fd);
		return false;
	}
	for (char *c = safe; *c; c++)
		if (((unsigned char)*c < 0x20 && *c != '\n') || *c == 0x7f)
			*c = '?';
	dprintf(fd, "%s: ", cli->tool->prog);
	for (char *c = safe, *nl; c != NULL; c = nl != NULL ? nl + 1 : NULL) {
		nl = strchr(c, '\n');
		dprintf(fd, "%s%.*s\n", c == safe ? "" : "  ",
			(int)(nl != NULL ? (size_t)(nl - c) : strlen(c)), c);
	}
	dprintf(fd, "%s: allow? [y/N] ", cli->tool->prog);
	free(safe);
	while (n + 1 < sizeof(ans)) {
		char c;
		ssize_t r = read(fd, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || c == '\n')
			break;
		ans[n++] = c;
	}
	ans[n] = '\0';
	close(fd);
	while (n > 0 && (ans[n - 1] == '\r' || ans[n - 1] == ' '))
		ans[--n] = '\0';
	return strcasecmp(ans, "y") == 0 || strcasecmp(ans, "yes") == 0;
}

/*
 * The project and git roots, by the precedence of DESIGN.md 6:
 * --project-root > --no-detect-root > configuration > detection.
 */
static int
ws__roots(struct ws_cli *cli, struct ws_ctx *ws)
{
	const struct ws_config *c = cli->conf;
	struct ws_detect_opts o = {0};
	const char *source = NULL;
	int rc;

	cli->roots = calloc(1, sizeof(*cli->roots));
	if (cli->roots == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if (cli->project_root != NULL)
		source = "--project-root";
	else if (cli->no_detect_root)
		source = "--no-detect-root";
	else if (!c->detect_project_root)
		source = "config";
	if (source != NULL) {
		rc = ws_detect_fixed(ws->anchors[0].real, cli->project_root,
				     cli->roots);
		if (rc < 0)
			return rc;
		if (cli->verbose)
			ws__logkv("INFO", "project detection skipped", "source",
				  source, "project_root", cli->roots->project_root);
		return 0;
	}
	o.markers = (const char *const *)c->markers;
	o.nmarkers = c->nmarkers;
	rc = ws_detect(ws->anchors[0].real, &o, cli->roots);
	if (rc < 0 || !cli->verbose)
		return rc;
	ws__logkv("INFO", "project detection", "project_root",
		  cli->roots->project_root, "git_root", cli->roots->git_root);
	if (cli->roots->stopped_at != NULL)
		ws__logkv("WARN", "project detection stopped at a directory it cannot read",
			  "dir", cli->roots->stopped_at, NULL, NULL);
	if (cli->roots->marker == NULL && cli->roots->git_root == NULL)
		fprintf(stderr, "WARN project detection found no markers, "
			"using workspace as project_root\n");
	return 0;
}

/* Load the policy spec names, with the variables of the roots. */
static int
ws__policy(struct ws_cli *cli, struct ws_ctx *ws, const char *spec)
{
	struct ws_policy *pol = NULL;
	int rc;

	cli->vars = calloc(1, sizeof(*cli->vars));
	if (cli->vars == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	ws_vars_init(cli->vars);
	if ((rc = ws_vars_set(cli->vars, "PROJECT_ROOT", cli->roots->project_root)) < 0 ||
	    (rc = ws_vars_set(cli->vars, "GIT_ROOT", cli->roots->git_root)) < 0 ||
	    (rc = ws_vars_set(cli->vars, "WORKSPACE", ws->anchors[0].real)) < 0)
		return rc;
	rc = ws_policy_load(spec, cli->conf->policies_dir, cli->vars, &pol);
	if (rc < 0)
		return rc;
	ws->policy = pol;
	if ((rc = ws_ctx_guard(ws, ws_policy_path(pol))) < 0)
		return rc;
	if (ws_policy_strict(pol))
		ws->flags |= WS_STRICT;
	if (cli->verbose) {
		for (size_t i = 0; i < cli->vars->nused; i++)
			ws__logkv("DEBUG", "expanded policy variable", "var",
				  cli->vars->used[i].name,
				  cli->vars->used[i].fallback ? "fallback" : "value",
				  cli->vars->used[i].value);
		ws__logkv("INFO", "policy loaded", "name", ws_policy_name(pol),
			  "file", ws_policy_path(pol));
	}
	/*
	 * The y/N prompt can be answered by whatever writes to the
	 * terminal, an agent running the tool under script(1) included: it
	 * is on only when the configuration asks for it ("approve": "tty"),
	 * never inside wsrun (WS_SANDBOX), and only in plain mode on a
	 * terminal.  Otherwise approval is the harness's: APPROVAL_REQUIRED.
	 */
	if (ws_call_current()->approver != NULL) {
		ws_policy_set_hooks(pol, cli->verbose ? ws__log : NULL,
				    ws_call_current()->approver,
				    ws_call_current()->approver_arg);
		return 0;
	}
	ws_policy_set_hooks(pol, cli->verbose ? ws__log : NULL,
			    cli->conf->approve_tty && getenv("WS_SANDBOX") == NULL &&
					    !cli->json && isatty(STDIN_FILENO) &&
					    isatty(STDERR_FILENO)
				    ? ws__prompt : NULL,
			    cli);
	return 0;
}

/*
 * Guard what decides how wstools behaves, so that an agent cannot write
 * itself a new configuration or policy: the places a configuration is
 * read from (whether one is there or not), the policy directories.  Only
 * strings here; they are resolved on the first check of a change.
 */
static int
ws__guard_config(struct ws_cli *cli, struct ws_ctx *ws)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *p = NULL;
	int rc = 0;

	if (cli->config != NULL && cli->config[0] != '\0')
		rc = ws_ctx_guard(ws, cli->config);
	if (rc == 0 && xdg != NULL && xdg[0] == '/')
		p = ws_path_join(xdg, "wstools");
	else if (rc == 0 && home != NULL && home[0] == '/')
		p = ws_path_join(home, ".config/wstools");
	if (rc == 0 && p != NULL)
		rc = ws_ctx_guard(ws, p);
	free(p);
	if (rc == 0)
		rc = ws_ctx_guard(ws, "/etc/wstools");
	if (rc == 0 && cli->conf->path != NULL)
		rc = ws_ctx_guard(ws, cli->conf->path);
	if (rc == 0 && cli->conf->policies_dir != NULL)
		rc = ws_ctx_guard(ws, cli->conf->policies_dir);
	if (rc == 0)
		rc = ws_ctx_guard(ws, WS_POLICIES_INSTALLED);
	if (rc == 0)
		rc = ws_ctx_guard(ws, WS_POLICIES_SOURCE);
	return rc;
}

/*
 * The configuration's limits become the defaults of the tool options of
 * the same name (max_bytes is --max-bytes).  A flag given by the person
 * or script running the tool wins; a value from --args, chosen by a
 * model, is held to the limit (0, "unlimited", included).
 */
static void
ws__apply_limits(struct ws_cli *cli)
{
	const struct ws_limits *l = &cli->conf->limits;
	const struct {
		const char *opt;
		long long v;
	} map[] = {
		{"max-bytes", l->max_bytes},	   {"max-entries", l->max_entries},
		{"max-results", l->max_results},   {"max-filesize", l->max_filesize},
		{"max-output", l->max_output},	   {"timeout", l->timeout},
		{"time-budget", l->time_budget},   {"scan-bytes", l->scan_bytes},
		{"scan-time", l->scan_time},
	};

	for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++) {
		if (map[k].v < 0)
			continue;
		for (size_t i = 0; i < cli->tool->nopts; i++) {
			struct ws_optval *v = &cli->vals[i];

			/* Seconds options hold milliseconds. */
			long long lim = cli->tool->opts[i].type == WS_OPT_SECONDS ?
					map[k].v * 1000 : map[k].v;

			if ((cli->tool->opts[i].type != WS_OPT_INT &&
			     cli->tool->opts[i].type != WS_OPT_SECONDS &&
			     cli->tool->opts[i].type != WS_OPT_BYTES) ||
			    strcmp(cli->tool->opts[i].name, map[k].opt) != 0)
				continue;
			if (v->set && !(v->from_args && lim > 0 &&
					(v->i == 0 || v->i > lim)))
				continue;
			v->set = true;
			v->i = lim;
		}
	}
}

/*
 * Open the call's audit log (--audit, WS_AUDIT, the configuration's
 * "audit") before anything is decided, so that a log that cannot be
 * written fails the call before it changes anything; and guard it as
 * wstools' own, so that no tool (and no wsrun command) rewrites it.
 */
static int
ws__audit(struct ws_cli *cli, struct ws_ctx *ws)
{
	const char *path = ws_audit_path(cli->audit, cli->conf->audit);
	int rc;

	if (path == NULL)
		return 0;
	if (path[0] != '/')
		return ws_error_set(WS_EINVALID_ARGUMENT, path,
				    "the audit log must be an absolute file name");
	rc = ws_audit_open(path, cli->tool->tool, cli->conf->audit_best_effort,
			   &cli->audit_log);
	if (rc < 0)
		return rc;
	ws->audit = cli->audit_log;
	ws_audit_set_approver(ws->audit, ws_call_current()->approver != NULL ? "elicitation" : "tty");
	/* A log that is open is a regular file, its name its own. */
	return ws_audit_writable(ws->audit) ? ws_ctx_guard_file(ws, path)
					    : ws_ctx_guard(ws, path);
}

/*
 * The history (ws/history.h) for the tools that change files; for every
 * other tool its directory is still guarded, so that no tool and no wsrun
 * command writes into it.
 */
static int
ws__history(struct ws_cli *cli, struct ws_ctx *ws)
{
	const struct ws_config *c = cli->conf;
	const char *base = cli->state_dir ? cli->state_dir : c->state_dir;
	struct ws_hist_bounds b = {
		c->hist_max_bytes >= 0 ? c->hist_max_bytes : WS_HIST_MAX_BYTES,
		c->hist_max_age >= 0 ? c->hist_max_age : WS_HIST_MAX_AGE,
		c->hist_max_file >= 0 ? c->hist_max_file : WS_HIST_MAX_FILE,
	};
	const char *fe = getenv("WS_FRONTEND");
	char *dir;
	int rc;

	if (base != NULL && base[0] != '/')
		return ws_error_set(WS_EINVALID_ARGUMENT, base,
				    "the state directory must be an absolute name");
	if (cli->want_history && !cli->no_history && c->history)
		return ws_hist_open(ws, base, &b, cli->tool->tool,
				    ws_call_current()->approver != NULL ? "mcp"
				    : fe ? fe : "cli");
	/* Only the string: nothing is made for a call that records nothing. */
	if ((dir = ws_hist_dir(base, ws->anchors[0].real)) == NULL)
		return 0;
	rc = ws_hist_guard(ws, dir);
	free(dir);
	return rc;
}

int
ws_cli_open(struct ws_cli *cli, struct ws_ctx *ws)
{
	unsigned flags = 0;
	const char *spec;
	int rc;

	if (cli->strict)
		flags |= WS_STRICT;
	if (cli->allow_outside)
		flags |= WS_ALLOW_OUTSIDE;
	/* The configuration costs one failed open() when there is none. */
	cli->conf = calloc(1, sizeof(*cli->conf));
	if (cli->conf == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	ws_config_init(cli->conf);
	rc = ws_config_load(cli->conf, cli->config);
	if (rc < 0)
		return rc;
	ws__apply_limits(cli);
	rc = ws_ctx_open(ws, cli->workspace, flags);
	if (rc < 0)
		return rc;
	ws->approve = cli->approve;
	if ((rc = ws__audit(cli, ws)) < 0)
		return rc;
	rc = ws_ctx_set_detection(ws, (const char *const *)cli->conf->markers,
				  cli->conf->nmarkers,
				  cli->project_root != NULL || cli->no_detect_root ||
					  !cli->conf->detect_project_root);
	if (rc < 0)
		return rc;
	if (cli->conf->guarded_set &&
	    (rc = ws_ctx_set_guarded(ws, (const char *const *)cli->conf->guarded,
				     cli->conf->nguarded)) < 0)
		return rc;
	if ((rc = ws__guard_config(cli, ws)) < 0)
		return rc;
	if ((rc = ws__history(cli, ws)) < 0)
		return rc;
	/* Mounts: the flags, else WS_MOUNTS, else the configuration's. */
	if (cli->nmounts > 0 || ws_call_current()->nmounts > 0) {
		const struct ws_call *call = ws_call_current();

		for (size_t i = 0; i < cli->nmounts; i++)
			if ((rc = ws_ctx_add_mount(ws, cli->mounts[i])) < 0)
				return rc;
		for (size_t i = 0; i < call->nmounts; i++)
			if ((rc = ws_ctx_add_mount_dir(ws, call->mounts[i].vprefix,
						       call->mounts[i].dir,
						       call->mounts[i].ro)) < 0)
				return rc;
	} else if (cli->env_mounts != NULL && cli->env_mounts[0] != '\0') {
		if ((rc = ws_ctx_add_mounts(ws, cli->env_mounts)) < 0)
			return rc;
	} else {
		for (size_t i = 0; i < cli->conf->nmounts; i++)
			if ((rc = ws_ctx_add_mount(ws, cli->conf->mounts[i])) < 0)
				return rc;
	}
	if (cli->allow_outside)
		fprintf(stderr,
			"%s: warning: --allow-outside: the workspace boundary is OFF\n",
			cli->tool->prog);
	/*
	 * The policy: --policy, else WS_POLICY, else the configuration's
	 * default; an empty value means none.  Without one, nothing below
	 * runs: no detection, no PCRE2.
	 */
	spec = cli->policy != NULL ? cli->policy : cli->conf->policy_default;
	if (spec != NULL && spec[0] == '\0')
		spec = NULL;
	if (spec != NULL || cli->want_roots || cli->verbose) {
		if ((rc = ws__roots(cli, ws)) < 0)
			return rc;
	}
	if (spec != NULL && (rc = ws__policy(cli, ws, spec)) < 0)
		return rc;
	return 0;
}
