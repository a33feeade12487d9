/*
 * ws/out.h - printing a tool's result or error in plain or JSON form
 * (lib/out.c).  Only a tool's main() calls these.
 */
#ifndef WS_OUT_H
#define WS_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ws/json.h"

struct ws_cli;

/*
 * The stream a tool's results go to: standard output, unless ws_out_set()
 * pointed them elsewhere (wstools mcp runs each tool call
 * in-process and captures its output in memory).  Every printing function
 * of the tools and of this module writes there, never to stdout itself.
 */
FILE *ws_out(void);

/*
 * Point the results of the tool calls that follow at f (NULL: standard
 * output again); process-wide, for one call at a time.
 */
void ws_out_set(FILE *f);

/* Whether results go to the real standard output (not captured). */
bool ws_out_is_stdout(void);

/* putchar(3) and puts(3) on ws_out(). */
void ws_out_putc(int c);
void ws_out_puts(const char *s);

/* What an error object carries besides code, message and path. */
struct ws_err_extra {
	const char *hint, *policy, *rule, *operation;
};

/*
 * Write an error object at jw's position: "code", "message" (prefixed
 * with "path: " when path is not NULL, in the caller's terms under
 * --args), "path", and those of x's fields that are not NULL.  The
 * envelope's "error" has this shape; a tool that goes on past a failed
 * PATH (wsgrep's summary.operand_errors) reports each one with it.
 */
void ws_cli_error_obj(const struct ws_cli *cli, struct ws_jw *jw, int code,
		      const char *msg, const char *path,
		      const struct ws_err_extra *x);

/*
 * Print the last error (code from ws_error_last_code() if code is 0) in
 * plain or JSON form and return the exit status of DESIGN.md section 4.
 */
int ws_cli_fail(const struct ws_cli *cli, int code);

/*
 * Begin a JSON success envelope on stdout: {"success":true,"tool":...,
 * "output": -- the caller then writes the output value.
 */
void ws_cli_json_begin(const struct ws_cli *cli, struct ws_jw *jw);

/* Finish it: ,"error":null (and "boundary":"off" when it is). */
void ws_cli_json_end(const struct ws_cli *cli, struct ws_jw *jw);

/*
 * Several results in one JSON envelope (a tool given several PATHs):
 * "success" leads the envelope but is known only at the end, so the
 * results are written to memory first.  ws_cli_multi_begin() points jw at
 * that memory; ws_cli_multi_fail() records a failure (the first one names
 * the envelope's error); ws_cli_multi_end() prints the envelope and returns
 * the exit status of the first failure (0 if none).
 */
struct ws_multi {
	FILE *mem;
	char *buf;
	size_t len, cap;
	int first_rc;
	char *msg, *path;
	struct ws_err_extra x; /* the first failure's hint and policy */
};

int ws_cli_multi_begin(struct ws_multi *m, struct ws_jw *jw);
void ws_cli_multi_fail(struct ws_multi *m, int rc, const char *path);
/* null_output: a lone failed request prints "output": null. */
int ws_cli_multi_end(const struct ws_cli *cli, struct ws_multi *m,
		     bool null_output);

/*
 * Flush standard output at the end of main(): if the result could not be
 * written (a full disk, a closed pipe), say so on stderr and turn a
 * success into IO_ERROR's exit status, since the caller got nothing.
 */
int ws_cli_finish(const struct ws_cli *cli, int status);

/*
 * Print one plain error line on stderr, "prog: path: msg (CODE)", with
 * control bytes shown as "?" (path may be NULL).
 */
void ws_cli_warn(const struct ws_cli *cli, const char *path, const char *msg,
		 int code);

/*
 * Write s to f; with escape, control bytes (newline, ESC...) become "?",
 * as ls(1) shows names on a terminal.
 */
void ws_cli_put_text(FILE *f, const char *s, bool escape);

/*
 * s as ws_cli_put_text() would write it (the same rule), for a caller
 * that formats a line around it: malloc'd, NULL if out of memory.
 */
char *ws_cli_masked(const char *s, bool escape);

/*
 * Write "key": real (a host path) unless --paths virtual (or WS_PATHS)
 * asked for the host layout to be left out: every result's real_path goes
 * through here.
 */
void ws_cli_kreal(const struct ws_cli *cli, struct ws_jw *jw, const char *key,
		  const char *real);

/*
 * s in the caller's terms: under --args, "--end-line" becomes "end_line"
 * for the tool's own options (malloc'd; NULL if out of memory).  Without
 * --args, a copy of s.
 */
char *ws_cli_args_terms(const struct ws_cli *cli, const char *s);

/* The path to show a person for a result, per --paths. */
const char *ws_cli_show_path(const struct ws_cli *cli, const char *vpath,
			     const char *real);

#endif
