/*
 * ws/tool.h - the tool table (DESIGN.md section 1): each tool once, with
 * its option table (which is its --help, --schema and JSON arguments),
 * its MCP metadata, the decoding of its arguments into its lib options,
 * the call, and the rendering of its result: a JSON value through the
 * streaming writer, plain text for people, and the text for models.
 *
 * The front ends are thin and equal: a tool's binary is ws_tool_main()
 * on its argv; "wstools call" and "wstools mcp" fill a struct ws_cli from
 * the model's JSON arguments (ws_cli_from_json(), ws_cli_apply_json())
 * and run ws_tool_invoke(): no argv is built and no printed JSON parsed.
 */
#ifndef WS_TOOL_H
#define WS_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ws/cli.h"
#include "ws/json.h"

struct ws_ctx;

/* Where a call's result goes. */
enum ws_tcall_mode {
	WS_TCALL_CLI,	/* the command line: plain, or the JSON envelope */
	WS_TCALL_MODEL, /* a model's front end: output value and text */
};

/*
 * The first failure of a call under WS_TCALL_MODEL, as the command line's
 * error object would say it (message with its path and in the caller's
 * terms); owned strings.
 */
struct ws_tcall_err {
	int code; /* 0: none */
	char *message, *path, *hint, *policy, *rule, *operation;
};

/* One call of a tool, from its decoded arguments to its result. */
struct ws_tcall {
	struct ws_cli *cli; /* the arguments, decoded */
	struct ws_ctx *ws;  /* the workspace, opened */
	enum ws_tcall_mode mode;
	/*
	 * WS_TCALL_MODEL: the output value's JSON goes to out (MCP's
	 * structuredContent), the text a model reads to text.
	 */
	FILE *out, *text;
	/* WS_TCALL_MODEL: an image or audio file may be a media block. */
	bool media_ok;
	/*
	 * WS_TCALL_MODEL, run_command: the isolation the server's first run
	 * wrote (NULL: none yet); a call whose isolation is the same leaves
	 * it out.  iso_first is this call's, when it had none to compare.
	 */
	const char *iso_default;
	char *iso_first;
	/* Results under WS_TCALL_MODEL. */
	bool has_output;	/* an output value was written to out */
	const char *media;	/* the media type of media_data (static) */
	char *media_data;	/* the media's bytes in base64 (malloc'd) */
	struct ws_tcall_err err;
	/* Private: several results in one output. */
	struct ws_multi multi;
};

/* A tool of the table. */
struct ws_tool_def {
	const char *name; /* LLM name: "read_file" */
	const struct ws_tool *cli; /* names, option table: --help, --schema */
	/* MCP: title, annotations and the JSON Schema of the output. */
	const char *title;
	bool ro, destructive, idempotent;
	const char *output_schema;
	/* The tool changes files: the workspace's history is opened. */
	bool want_history;
	/*
	 * The command line's exit status for a failure before the call
	 * (wsrun's 125, never a command's status); 0: the error's own.
	 */
	int fail_exit;
	/*
	 * Checks of the options that come before the workspace opens (an
	 * invalid option is reported before a missing workspace); above 0:
	 * it printed what the command line asked for (wsgrep --type-list)
	 * and the call is done.  NULL: none.
	 */
	int (*check)(struct ws_cli *cli);
	/*
	 * The call: decode c->cli into the lib options, call, render per
	 * c->mode.  Returns the command line's exit status; a failure is
	 * reported through ws_tcall_fail() (or the multi functions).
	 */
	int (*run)(struct ws_tcall *c);
};

/* The table, in tools/list's order, and its size. */
extern const struct ws_tool_def *const ws_tools[];
extern const size_t ws_ntools;

/* A tool by LLM name ("read_file") or by program name ("wsread"); NULL. */
const struct ws_tool_def *ws_tool_by_name(const char *name);
const struct ws_tool_def *ws_tool_by_prog(const char *prog);

/*
 * The whole command line of tool t, as its main(): parse argv, print
 * --help, --version or --schema, open the workspace, run, print, and
 * return the exit status.
 */
int ws_tool_main(const struct ws_tool_def *t, int argc, char **argv);

/*
 * The command line of tool t once cli is filled (rc: what filling it
 * returned; below 0 the error is printed): --help, --version or
 * --schema, or open, run and print.  Frees cli; returns the exit status.
 */
int ws_tool_run_cli(const struct ws_tool_def *t, struct ws_cli *cli, int rc);

/*
 * Run t under WS_TCALL_MODEL on cli (filled by ws_cli_from_json()):
 * opens the workspace, runs, and leaves in c the output JSON (written to
 * c->out), the text (c->text) and the first failure (c->err).  c->out
 * and c->text are the caller's streams; c->media_data is freed by
 * ws_tcall_free().  Returns the command line's exit status.
 */
int ws_tool_invoke(const struct ws_tool_def *t, struct ws_cli *cli,
		   struct ws_tcall *c);

/* Free what a call left in c (the error, the media). */
void ws_tcall_free(struct ws_tcall *c);

/*
 * For the tools' run functions: a lone result's JSON begins and ends
 * (the envelope's "output" on the command line, c->out for a model).
 */
void ws_tcall_begin(struct ws_tcall *c, struct ws_jw *jw);
void ws_tcall_end(struct ws_tcall *c, struct ws_jw *jw);

/*
 * Several results in one output (ws_cli_multi_begin() and friends on
 * the command line): begin, one failure (the first names the call's
 * error), end (returns the exit status of the first failure, 0 if none;
 * null_output: a lone failed request has no output).
 */
int ws_tcall_multi_begin(struct ws_tcall *c, struct ws_jw *jw);
void ws_tcall_multi_fail(struct ws_tcall *c, int rc, const char *path);
int ws_tcall_multi_end(struct ws_tcall *c, bool null_output);

/*
 * The call failed with rc (0: the last error's code): printed on the
 * command line (ws_cli_fail()), kept in c->err for a model.  Returns the
 * exit status.
 */
int ws_tcall_fail(struct ws_tcall *c, int rc);

/* A name on one line of a model's text, control bytes escaped. */
void ws_tcall_put_name(FILE *f, const char *name);

/* The tools of the table (lib/tool_*.c). */
extern const struct ws_tool_def ws_tool_read_file;
extern const struct ws_tool_def ws_tool_list_directory;
extern const struct ws_tool_def ws_tool_search_files;
extern const struct ws_tool_def ws_tool_write_file;
extern const struct ws_tool_def ws_tool_edit_file;
extern const struct ws_tool_def ws_tool_create_directory;
extern const struct ws_tool_def ws_tool_move_path;
extern const struct ws_tool_def ws_tool_delete_path;
extern const struct ws_tool_def ws_tool_run_command;
/* wstools history and undo: served to models only when asked. */
extern const struct ws_tool_def ws_tool_history;
extern const struct ws_tool_def ws_tool_undo;
/* wspath: for people, on no front end's list of tools for models. */
extern const struct ws_tool_def ws_tool_wspath;

#endif
