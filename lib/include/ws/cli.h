/*
 * ws/cli.h - the command line of every tool: the common options of
 * DESIGN.md section 5 and their environment variables, the tool's own
 * options from one table that also drives --args, --schema and --help,
 * and printing of results and errors in plain or JSON form.
 *
 * Only a tool's main() calls the printing functions here.
 */
#ifndef WS_CLI_H
#define WS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ws/json.h"
#include "ws/resolve.h"
#include "ws/workspace.h"

#define WS_VERSION "0.1.0"

struct ws_audit;
struct ws_config;
struct ws_roots;
struct ws_vars;

/*
 * WS_OPT_JSON: any JSON value under --args (kept as a cJSON node in
 * ws_optval.json), a JSON text on the command line (in ws_optval.s, for
 * the tool to parse); its metavar is the JSON Schema of the value from the
 * value of its "type" on, e.g. "\"array\",\"items\":{...}", which --schema
 * prints after "type": (--help shows "JSON").
 */
/*
 * WS_OPT_SECONDS: seconds with an optional fraction ("1.5", JSON 1.5),
 * kept in milliseconds in ws_optval.i (--schema: a number).
 * WS_OPT_BYTES: a byte count with an optional suffix K, M, G or T
 * (powers of 1024; "50M", "1G", "512k"), kept in bytes in ws_optval.i
 * (--schema: an integer or such a string).
 */
enum ws_opt_type { WS_OPT_FLAG, WS_OPT_STR, WS_OPT_INT, WS_OPT_LIST, WS_OPT_JSON,
		   WS_OPT_SECONDS, WS_OPT_BYTES };

enum {
	WS_OPT_NOSCHEMA = 1 << 0,  /* not offered to LLMs in --schema/--args */
	WS_OPT_NEGATABLE = 1 << 1, /* a flag that also has a --no-NAME form */
};

/* One option of a tool. */
struct ws_opt {
	const char *name;    /* long name, e.g. "start-line" (JSON start_line) */
	int short_name;	     /* e.g. 'n', or 0 */
	enum ws_opt_type type;
	const char *metavar; /* e.g. "N" for --help */
	const char *help;    /* one line, for --help and --schema */
	unsigned flags;
};

/* The value of an option after parsing. */
struct ws_optval {
	bool set;
	bool b;		   /* FLAG */
	long long i;	   /* INT */
	const char *s;	   /* STR (the last value given) */
	/* LIST; for a STR, every value given on the command line, in order */
	const char **list;
	size_t n;
	bool from_args;	   /* set by --args (a model), not by a flag */
	bool by_flag;	   /* a flag gave it (the harness), --args or not */
	const void *json;  /* JSON under --args: the cJSON node */
};

enum ws_pos_kind {
	WS_POS_NONE,
	WS_POS_ONE,  /* exactly one */
	WS_POS_OPT,  /* zero or one */
	WS_POS_MANY, /* one or more */
	WS_POS_ANY,  /* zero or more */
};

/* What a tool is: names, usage and its option table. */
struct ws_tool {
	/*
	 * The program as its man page's SYNOPSIS spells it ("wsread",
	 * "wstools mcp"): the prefix of its messages on stderr.
	 */
	const char *prog;
	/* Its man page, where not prog's ("wstools-mcp"); NULL: prog. */
	const char *page;
	const char *tool;	 /* "read_file" */
	const char *description; /* for --schema (and --help unless help) */
	/*
	 * --help's paragraph where the description speaks of JSON
	 * arguments: a person reads flags (--start-line, not start_line).
	 */
	const char *help;
	const char *usage;	 /* "wsread [OPTION]... PATH" */
	const char *pos_name;	 /* JSON key of the positionals: "path" */
	const char *pos_help;
	enum ws_pos_kind pos_kind;
	bool pos_array;		 /* positionals are a JSON array */
	/*
	 * Options end at the first positional, as for env(1) and
	 * timeout(1): wsrun's command keeps its own options.
	 */
	bool pos_stops_options;
	/*
	 * Under --args the positionals' key may also be a string, kept in
	 * cli->pos_string (wsrun: a command line run by the shell).
	 */
	bool pos_string_ok;
	/*
	 * The single positional is an integer in JSON (a history id): the
	 * schema says "integer", and a number or a string of digits is
	 * taken (kept in cli->pos_num).
	 */
	bool pos_int;
	/* The exit-status lines of --help, when not the common ones. */
	const char *exit_help;
	/*
	 * The --help line of --workspace, when the tool's default is not
	 * the common one (wstools mcp never takes the current directory).
	 */
	const char *workspace_help;
	/*
	 * Where -h means something else to the tool's users (grep's -h:
	 * no file names): -h alone is still --help, but -h with other
	 * arguments, or in a bundle, is INVALID_ARGUMENT with this hint
	 * ("grep's -h is --no-filename here").  NULL: -h is --help.
	 */
	const char *h_hint;
	const struct ws_opt *opts;
	size_t nopts;
};

enum ws_cli_action { WS_CLI_RUN, WS_CLI_HELP, WS_CLI_VERSION, WS_CLI_SCHEMA };
enum ws_paths_mode { WS_PATHS_VIRTUAL, WS_PATHS_RELATIVE, WS_PATHS_REAL };

struct ws_cli {
	const struct ws_tool *tool;
	enum ws_cli_action action;
	/* Common options, after environment variables and flags. */
	const char *workspace, *policy, *config, *project_root;
	/*
	 * Where workspace came from, for --verbose and wspath --explain
	 * (ws_cli_workspace_from()): "--workspace", "WS_ROOT", "server" (a
	 * front end's own: wstools mcp's DIR or its client's roots), or NULL
	 * when none was given (the current directory).
	 */
	const char *workspace_from;
	const char *audit; /* --audit FILE ("" none), or NULL: WS_AUDIT, config */
	const char *state_dir; /* --state-dir DIR (history), or NULL */
	bool no_history;       /* --no-history */
	const char **mounts;
	size_t nmounts;
	const char *env_mounts;
	bool no_detect_root, strict, allow_outside, approve, json, verbose;
	enum ws_paths_mode paths;
	bool paths_set; /* --paths or WS_PATHS was given (not the default) */
	/* The tool's own options, in the order of tool->opts. */
	struct ws_optval *vals;
	const char **pos;
	size_t npos;
	bool from_args; /* --args was given */
	const char *pos_string; /* see ws_tool.pos_string_ok */
	char pos_num[24];	/* see ws_tool.pos_int */
	/*
	 * Set before ws_cli_open() to find the project and git roots even
	 * without a policy (wspath --explain); --verbose does the same.
	 */
	bool want_roots;
	/*
	 * Set before ws_cli_open() by the tools that change files (and
	 * wstools history and undo): open the workspace's history.
	 */
	bool want_history;
	/* The tool changes files (not a read-only one such as history):
	 * it waits for a command's run (ws_ctx_wait_runs()). */
	bool changes;
	/*
	 * Filled by ws_cli_open(): the configuration file's settings (never
	 * NULL once it succeeded; conf->limits for tools' defaults), the
	 * roots (NULL when they were not needed) and the policy variables
	 * with the ones expanded in vars->used (NULL without a policy).
	 */
	struct ws_config *conf;
	struct ws_roots *roots;
	struct ws_vars *vars;
	/*
	 * What this call holds of what its server remembers (rem, the
	 * call's ws_session, ws/session.h; NULL: nothing): conf is then the
	 * snapshot's, and the workspace's descriptors and the policy are
	 * borrowed from them.
	 */
	struct ws_session *rem;
	struct ws__rconf *rem_conf;
	struct ws__rws *rem_ws;
	struct ws__rpol *rem_pol;
	/*
	 * The only keys --args may hold: those the definition the front end
	 * published declares (NULL-terminated, not owned; ws_cli_check_keys()).
	 * NULL: every option of the tool's table (its --schema).
	 */
	const char *const *declared;
	/* The call's audit log, opened by ws_cli_open() (or NULL). */
	struct ws_audit *audit_log;
	/* Storage kept alive for the strings above. */
	void *args_json;
	char *args_text;
};

/*
 * Parse argv and the environment.  Returns 0 or WS_EINVALID_ARGUMENT (and
 * friends); cli->json is already decided when it fails, so the error can be
 * printed in the right form.
 */
int ws_cli_parse(struct ws_cli *cli, const struct ws_tool *tool, int argc,
		 char **argv);

struct cJSON;

/*
 * A model's arguments, parsed already (a JSON object), applied to cli as
 * --args applies them, with no text in between: unknown and repeated keys
 * refused, types checked, the front end's ceilings (ws_cli_set_ceilings())
 * applied to the parsed values, the operands checked.  cli was filled by
 * ws_cli_parse() from the caller's own flags (wstools call: a flag's limit
 * binds the model's value) or by ws_cli_from_json().  With nul, U+0001 in
 * a string stands for a NUL the transport read ("\u0000"): refused as
 * --args refuses it.  The strings of args must outlive cli.
 */
int ws_cli_apply_json(struct ws_cli *cli, const struct cJSON *args, bool nul);

/*
 * Refuse a key of args (a JSON object; anything else passes) that keys
 * does not hold: keys, NULL-terminated, are the properties of tool's
 * definition as a front end published it (tools/list, wstools schemas
 * --set), which may be fewer than the tool takes on its command line.
 * 0, or INVALID_ARGUMENT naming the key and every declared one, with a
 * hint.
 */
int ws_cli_check_keys(const char *tool, const struct cJSON *args,
		      const char *const *keys);

/*
 * The text of a model's arguments (a JSON object, or "-": standard input)
 * applied to cli as --args applies it, for a front end that gets them as
 * text (wstools call); cli was filled by ws_cli_parse() from the caller's
 * own flags.
 */
int ws_cli_apply_args(struct ws_cli *cli, const char *text);

/*
 * ws_cli_from_json() in two steps, for a front end that sets some of the
 * tool's options itself in between (as flags: they bind the model's
 * values): ws_cli_init(), ws_cli_set_opt() (a flag's value as the
 * command line would give it, NULL for a flag), ws_cli_apply_json().
 */
int ws_cli_init(struct ws_cli *cli, const struct ws_tool *tool,
		const struct ws_cli *base, const char *workspace);
int ws_cli_set_opt(struct ws_cli *cli, const char *name, const char *val);

/*
 * Fill cli for tool with no command line: the common settings of base (a
 * front end's own, as the person gave them; NULL: the environment's), the
 * workspace (NULL: base's), JSON output, then args as ws_cli_apply_json().
 * Free it with ws_cli_free(), also after a failure.
 */
int ws_cli_from_json(struct ws_cli *cli, const struct ws_tool *tool,
		     const struct ws_cli *base, const char *workspace,
		     const struct cJSON *args, bool nul);

/*
 * ws_cli_parse() for a front end whose operands come as JSON next
 * (ws_cli_apply_args()): the operands are not checked yet.
 */
int ws_cli_parse_flags(struct ws_cli *cli, const struct ws_tool *tool, int argc,
		       char **argv);

/* Free what ws_cli_parse() allocated. */
void ws_cli_free(struct ws_cli *cli);

/* Print --help, --version or --schema to f. */
void ws_cli_print_help(const struct ws_cli *cli, FILE *f);
void ws_cli_print_version(const struct ws_cli *cli, FILE *f);
void ws_cli_print_schema(const struct ws_cli *cli, FILE *f);

/*
 * The tool's function-calling definition (what --schema prints) as a
 * cJSON tree the caller frees, built from its option table: tools/list
 * and "wstools schemas" take it from here, never from printed text.
 */
struct cJSON *ws_cli_schema(const struct ws_tool *t);

/* If --help, --version or --schema was asked, print it and return true. */
bool ws_cli_print_info(const struct ws_cli *cli, FILE *f);

/*
 * The one parser of durations and sizes, for every front end, before any
 * ceiling.  Durations are seconds with an optional fraction ("2", "1.5",
 * "0.0001"), in milliseconds, a part of one rounded up so that a positive
 * value never becomes 0 ("none"); sizes are bytes with an optional suffix
 * K, M, G or T (powers of 1024; "64K", "1G").  Negative values, and
 * anything else, are WS_EINVALID_ARGUMENT.  The _from_number forms take a
 * JSON number (seconds at most 1e9; a size a whole number).
 */
int ws_parse_seconds(const char *s, long long *ms);
int ws_seconds_from_number(double x, long long *ms);
int ws_parse_size(const char *s, long long *bytes);
int ws_size_from_number(double x, long long *bytes);

/*
 * A ceiling of a model's argument under a front end that serves models
 * (wstools call, wstools mcp): key of tool, in the option's unit
 * (milliseconds, bytes, a count); dflt is the tool's own default under
 * --args, used for 0 ("none") and held to max as well.
 */
struct ws_ceiling {
	const char *tool, *key;
	long long max, dflt;
};

/* The built-in ceilings (run_command timeout 600 s, ...): see wstools(7). */
#define WS_NCEILINGS 7
extern const struct ws_ceiling ws_ceilings_default[WS_NCEILINGS];

/*
 * Set by a front end before it runs a tool's function (NULL, 0: none):
 * ws_cli_parse() then holds the values from --args to these ceilings
 * after parsing them (never the raw JSON), and 0 means the ceiling.
 */
void ws_cli_set_ceilings(const struct ws_ceiling *c, size_t n);

/* Shorthand for the option at index i. */
#define WS_OPT(cli, i) (&(cli)->vals[(i)])

/* Opening the workspace (session.c) and printing results (out.c). */
#include "ws/out.h"
#include "ws/session.h"

#endif
