/*
 * tool.c - the tools' common part (ws/tool.h): the command line's main()
 * of every tool on the table (lib/tool_table.c), a model's call, and the
 * result's plumbing that differs between the two (envelope or output
 * value, printed or kept errors).  Each tool's own part is in lib/tool_<name>.c.
 */
#include "ws/tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/audit.h"
#include "ws/cancel.h"
#include "ws/error.h"
#include "ws/out.h"
#include "ws/resolve.h"
#include "ws/session.h"
#include "ws/workspace.h"

int
ws_tool_main(const struct ws_tool_def *t, int argc, char **argv)
{
	struct ws_cli cli;
	int rc = ws_cli_parse(&cli, t->cli, argc, argv);

	return ws_tool_run_cli(t, &cli, rc);
}

/* Whether the command line said it waits (ws__cli_wait_note()). */
struct ws__wait_note {
	const char *prog;
	bool said;
};

/*
 * The progress hook of a changing call on the command line: a wait for
 * a command in the workspace (ws_ctx_wait_runs()) is said once on
 * standard error, else the tool looks hung for up to a minute (ftu17
 * 02).  Other progress is not the command line's.
 */
static void
ws__cli_wait_note(void *arg, long long done, long long total, const char *message)
{
	struct ws__wait_note *n = arg;

	(void)done;
	(void)total;
	if (strncmp(message, ws_runs_wait_msg, strlen(ws_runs_wait_msg)) != 0 ||
	    n->said)
		return;
	n->said = true;
	fprintf(stderr, "%s: waiting for a command running in this workspace "
		"(or in one nested in it or around it) to end (%d s at most)\n",
		n->prog, WS_RUNS_WAIT_MS / 1000);
}

int
ws_tool_run_cli(const struct ws_tool_def *t, struct ws_cli *cli, int rc)
{
	struct ws_ctx ws = {0};
	struct ws_tcall c = {.cli = cli, .ws = &ws, .mode = WS_TCALL_CLI};
	struct ws__wait_note note = {NULL, false};
	int status = 0;

	if (rc < 0)
		goto fail;
	if (ws_cli_print_info(cli, ws_out()))
		goto out;
	/* Above 0: the check printed what was asked (wsgrep --type-list). */
	if (t->check != NULL && (rc = t->check(cli)) != 0) {
		if (rc > 0)
			goto out;
		goto fail;
	}
	cli->want_history = t->want_history;
	cli->changes = t->want_history && !t->ro;
	/*
	 * A change that waits for a command says so once (ftu17 02): when
	 * opening, and when the tool reaches a directory where a command
	 * of a nested workspace runs (ws_ctx_hold_dir()).
	 */
	note.prog = cli->tool->prog;
	if (cli->changes)
		ws_progress_set(ws__cli_wait_note, &note);
	/* Opening reads the configuration, whose limits are defaults here. */
	rc = ws_cli_open(cli, &ws);
	if (rc < 0)
		goto fail;
	ws.cwd_hint = true;
	/* Not for a command: its NOT_FOUND names a program, not a file. */
	ws.name_hint = strcmp(t->name, "run_command") != 0;
	status = t->run(&c);
	goto out;
fail:
	status = ws_cli_fail(cli, rc);
	if (status != 0 && t->fail_exit != 0)
		status = t->fail_exit;
out:
	if (cli->changes)
		ws_progress_set(NULL, NULL);
	status = ws_cli_finish(cli, status);
	ws_ctx_close(&ws);
	ws_cli_free(cli);
	return status;
}

int
ws_tool_invoke(const struct ws_tool_def *t, struct ws_cli *cli, struct ws_tcall *c)
{
	struct ws_ctx ws = {0};
	int rc, status;

	c->cli = cli;
	c->ws = &ws;
	c->mode = WS_TCALL_MODEL;
	cli->want_history = t->want_history;
	cli->changes = t->want_history && !t->ro;
	if ((t->check != NULL && (rc = t->check(cli)) < 0) ||
	    (rc = ws_cli_open(cli, &ws)) < 0) {
		status = ws_tcall_fail(c, rc);
	} else {
		ws.name_hint = strcmp(t->name, "run_command") != 0;
		status = t->run(c);
	}
	/* The call's audit line, once its outcome is known. */
	if (cli->audit_log != NULL && ws_audit_emit(cli->audit_log, status) < 0 &&
	    c->err.code == 0) {
		status = ws_tcall_fail(c, WS_EIO_ERROR);
	}
	ws_ctx_close(&ws);
	c->ws = NULL;
	return status;
}

static void
ws__err_free(struct ws_tcall_err *e)
{
	free(e->message);
	free(e->path);
	free(e->hint);
	free(e->policy);
	free(e->rule);
	free(e->operation);
	memset(e, 0, sizeof(*e));
}

void
ws_tcall_free(struct ws_tcall *c)
{
	ws__err_free(&c->err);
	free(c->media_data);
	c->media_data = NULL;
	free(c->iso_first);
	c->iso_first = NULL;
}

static char *
ws__dup(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/* Keep a failure as the command line's error object would say it. */
static void
ws__keep_err(struct ws_tcall *c, int code, const char *msg, const char *path,
	     const struct ws_err_extra *x)
{
	char *full = NULL;

	if (c->err.code != 0)
		return;
	c->err.code = code;
	if (path != NULL && asprintf(&full, "%s: %s", path, msg) < 0)
		full = NULL;
	c->err.message = ws_cli_args_terms(c->cli, full ? full : msg);
	free(full);
	c->err.path = ws__dup(path);
	c->err.hint = x->hint ? ws_cli_args_terms(c->cli, x->hint) : NULL;
	c->err.policy = ws__dup(x->policy);
	c->err.rule = ws__dup(x->rule);
	c->err.operation = ws__dup(x->operation);
}

int
ws_tcall_fail(struct ws_tcall *c, int code)
{
	struct ws_err_extra x;

	/* A typo's "did you mean", once, for the failure reported. */
	if ((code == WS_ENOT_FOUND || code == 0) && c->ws != NULL &&
	    c->ws->name_hint && ws_error_last_path() != NULL)
		ws_resolve_name_hint(c->ws, ws_error_last_path());
	x = (struct ws_err_extra){
		.hint = ws_error_last_hint(),
		.policy = ws_error_last_policy(),
		.rule = ws_error_last_rule(),
		.operation = ws_error_last_operation(),
	};
	if (c->mode == WS_TCALL_CLI)
		return ws_cli_fail(c->cli, code);
	if (code == 0)
		code = ws_error_last_code();
	if (code == 0)
		code = WS_EIO_ERROR;
	ws_audit_outcome(c->cli->audit_log, code);
	ws_audit_refusal(c->cli->audit_log, x.operation, ws_error_last_path(),
			 code);
	ws__keep_err(c, code, ws_error_last(), ws_error_last_path(), &x);
	return ws_error_exit_status(code);
}

void
ws_tcall_begin(struct ws_tcall *c, struct ws_jw *jw)
{
	if (c->mode == WS_TCALL_CLI) {
		ws_cli_json_begin(c->cli, jw);
		return;
	}
	ws_jw_init(jw, c->out);
	c->has_output = true;
}

void
ws_tcall_end(struct ws_tcall *c, struct ws_jw *jw)
{
	if (c->mode == WS_TCALL_CLI)
		ws_cli_json_end(c->cli, jw);
}

int
ws_tcall_multi_begin(struct ws_tcall *c, struct ws_jw *jw)
{
	if (c->mode == WS_TCALL_CLI)
		return ws_cli_multi_begin(&c->multi, jw);
	memset(&c->multi, 0, sizeof(c->multi));
	ws_jw_init(jw, c->out);
	c->has_output = true;
	return 0;
}

void
ws_tcall_multi_fail(struct ws_tcall *c, int rc, const char *path)
{
	struct ws_err_extra x = {
		.hint = ws_error_last_hint(),
		.policy = ws_error_last_policy(),
		.rule = ws_error_last_rule(),
		.operation = ws_error_last_operation(),
	};

	if (c->mode == WS_TCALL_CLI) {
		ws_cli_multi_fail(&c->multi, rc, path);
		return;
	}
	if (c->multi.first_rc == 0)
		c->multi.first_rc = rc;
	ws__keep_err(c, rc, ws_error_last(), path, &x);
}

int
ws_tcall_multi_end(struct ws_tcall *c, bool null_output)
{
	int rc = c->multi.first_rc;

	if (c->mode == WS_TCALL_CLI)
		return ws_cli_multi_end(c->cli, &c->multi, null_output);
	if (null_output)
		c->has_output = false;
	return rc < 0 ? ws_error_exit_status(rc) : 0;
}

void
ws_tcall_put_name(FILE *f, const char *name)
{
	const char *run = name, *p;

	/* Runs of bytes that stay as they are go out in one write. */
	for (p = name;; p++) {
		unsigned char c = (unsigned char)*p;

		if (c >= 0x20 && c != 0x7f && c != '\\')
			continue;
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), f);
		if (c == '\0')
			break;
		run = p + 1;
		if (c == '\\')
			fputs("\\\\", f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else
			fprintf(f, "\\x%02x", c);
	}
}
