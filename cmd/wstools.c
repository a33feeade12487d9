/*
 * wstools - the front door for agent harnesses: "wstools schemas" prints
 * every tool definition of the toolbox as one JSON array, "wstools call
 * NAME JSON|-" runs the tool an LLM named with those arguments.
 *
 * "call" runs a tool of the tool table (ws/tool.h) in this process: the
 * caller's options parsed as the tool's own, the model's JSON applied as
 * --args applies it, held to the built-in ceilings of a model's values;
 * its output and exit status are the tool's binary's.  "wstools mcp"
 * serves the same tools over the Model Context Protocol, in-process.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws/audit.h"
#include "ws/cli.h"
#include "ws/config.h"
#include "ws/error.h"
#include "ws/history.h"
#include "ws/path.h"
#include "ws/persist.h"
#include "ws/policy.h"
#include "ws/vars.h"
#include "ws/mcp.h"
#include "ws/mcp_compat.h"
#include "ws/tool.h"
#include "ws/toolset.h"
#include "ws/workspace.h"

#include "cmds.h"

/*
 * LLM tool name -> binary, whether the binary needs --tool NAME, and its
 * command-line function for in-process calls (mcp).
 */
static const struct ws_mcp_tool tools[] = {
	{"list_directory", "wsls", false, ws_cmd_wsls},
	{"read_file", "wsread", false, ws_cmd_wsread},
	/* write_file alone keeps working without --tool (issue 9). */
	{"write_file", "wswrite", false, ws_cmd_wswrite},
	{"edit_file", "wswrite", true, ws_cmd_wswrite},
	{"create_directory", "wswrite", true, ws_cmd_wswrite},
	{"move_path", "wswrite", true, ws_cmd_wswrite},
	{"delete_path", "wswrite", true, ws_cmd_wswrite},
	{"search_files", "wsgrep", false, ws_cmd_wsgrep},
	{"run_command", "wsrun", false, ws_cmd_wsrun},
};
#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

/* The binaries whose --schema make up the toolbox, in schema order. */
static const char *const schema_progs[] = {"wsls", "wsread", "wswrite",
					   "wsgrep", "wsrun"};

static const struct ws_tool self = {
	.prog = "wstools",
	.tool = "wstools",
	.description = "Run the wstools tools by their LLM names.",
	.usage = "wstools schemas [--set full|default|five] [--for gemini] [--check]\n"
		 "       wstools call [--set full|default|five] NAME JSON|- [OPTION]...\n"
		 "       wstools mcp [OPTION]... [DIR]...\n"
		 "       wstools history [OPTION]... [PATH]\n"
		 "       wstools undo [OPTION]... [ID]\n"
		 "       wstools audit --verify [--expect HASH] [--json] [--config FILE] [FILE]",
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: wstools schemas [--set full|default|five] [--for gemini] [--check]\n"
		"       wstools call [--set full|default|five] NAME JSON|- [OPTION]...\n"
		"       wstools mcp [OPTION]... [DIR]...\n"
		"       wstools history [--gc] [OPTION]... [PATH]\n"
		"       wstools undo [ID | -n N | --to ID] [--dry-run] [--force] [OPTION]...\n"
		"       wstools audit --verify [--expect HASH] [--json] [--config FILE] [FILE]\n"
		"The front door of the toolbox for agent harnesses.\n"
		"\n"
		"Commands:\n"
		"  schemas                   print the tools' function-calling definitions\n"
		"                            as one JSON array: --set default (the nine\n"
		"                            tools, short), five (five tools, shorter) or\n"
		"                            full (every option); --check says which\n"
		"                            dialects (ajv-strict, gemini, openai-strict)\n"
		"                            the set is within, and its size; --for gemini\n"
		"                            adapts it to Gemini (no additionalProperties)\n"
		"  call NAME JSON|-          run tool NAME with its arguments as one JSON\n"
		"                            object (- reads it from standard input), taking\n"
		"                            only the keys its definition in --set SET\n"
		"                            (default: default) declares; the OPTIONs\n"
		"                            (--workspace, --policy...) go to the tool\n"
		"  mcp [OPTION]... [DIR]...  serve the tools over the Model Context Protocol\n"
		"                            on standard input and output (wstools mcp --help)\n"
		"  history [PATH]            list the changes the tools made, newest first\n"
		"                            (--gc applies the bounds; wstools history --help)\n"
		"  undo [ID]                 revert the newest change not yet undone, change\n"
		"                            ID, -n N changes, or --to ID (wstools undo --help)\n"
		"  audit --verify [FILE]     check the hash chain of an audit log (FILE,\n"
		"                            else WS_AUDIT, else the configuration's\n"
		"                            \"audit\"); exit 1 naming the line where it breaks;\n"
		"                            prints the last hash, which --expect HASH later\n"
		"                            finds again (wstools audit --help)\n"
		"\n"
		"Tools: list_directory, read_file, write_file, edit_file, create_directory,\n"
		"move_path, delete_path, search_files, run_command.\n"
		"\n"
		"Options:\n"
		"  -h, --help                show this help\n"
		"      --version             show the version\n"
		"\n"
		"Exit status: that of the tool called; 2 invalid arguments to wstools;\n"
		"5 a tool could not be run.\n"
		"See wstools(1) and wstools(7).\n");
}

/*
 * Fail as a tool would, naming tool, and return its exit status: one JSON
 * error object on stdout when json, else plain text on stderr for a
 * person ("wstools: MESSAGE (CODE)" and a hint line, DESIGN.md 4).
 */
static int
vfail(bool json, const char *tool, int code, const char *hint, const char *fmt,
      va_list ap) __attribute__((format(printf, 5, 0)));

static int
vfail(bool json, const char *tool, int code, const char *hint, const char *fmt,
      va_list ap)
{
	struct ws_tool t = self;
	struct ws_cli cli;
	char msg[1024];

	memset(&cli, 0, sizeof(cli));
	t.tool = tool;
	cli.tool = &t;
	cli.json = json;
	/* Formatted aside first: an argument may be ws_error_last() itself. */
	vsnprintf(msg, sizeof(msg), fmt, ap);
	ws_error_set(code, NULL, "%s", msg);
	if (hint != NULL)
		ws_error_set_hint("%s", hint);
	return ws_cli_fail(&cli, code);
}

/*
 * A failure of "wstools call": JSON, as the call's every outcome is (it
 * implies --json, as --args does).
 */
static int
fail(const char *tool, int code, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
fail(const char *tool, int code, const char *hint, const char *fmt, ...)
{
	va_list ap;
	int st;

	va_start(ap, fmt);
	st = vfail(true, tool, code, hint, fmt, ap);
	va_end(ap);
	return st;
}

/* Whether WS_FORMAT asks for JSON (DESIGN.md 4: plain text otherwise). */
static bool
format_json(void)
{
	const char *e = getenv("WS_FORMAT");

	return e != NULL && strcmp(e, "json") == 0;
}

/*
 * A failure of wstools' own commands (an unknown one, schemas, audit):
 * plain on stderr unless json or WS_FORMAT=json, as a tool's.
 */
static int
fail_own(bool json, const char *tool, int code, const char *hint, const char *fmt,
	 ...) __attribute__((format(printf, 5, 6)));

static int
fail_own(bool json, const char *tool, int code, const char *hint, const char *fmt,
	 ...)
{
	va_list ap;
	int st;

	va_start(ap, fmt);
	st = vfail(json || format_json(), tool, code, hint, fmt, ap);
	va_end(ap);
	return st;
}

/*
 * The definitions of tool set `set` (ws/toolset.h), made from every
 * tool's option table on the tool table (ws_cli_schema(): what each
 * binary's --schema prints, wswrite's five included): NULL with the
 * last error set.
 */
static cJSON *
set_defs(const char *set)
{
	cJSON *all = cJSON_CreateArray(), *defs;

	if (all == NULL) {
		ws_error_set(WS_ENOMEM, NULL, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < sizeof(schema_progs) / sizeof(schema_progs[0]); i++) {
		cJSON *j;
		bool table = false;

		/* The tool table's tools: their definitions, no process run. */
		for (size_t k = 0; k < ws_ntools; k++) {
			if (ws_tools[k]->cli == NULL || ws_tools[k]->run == NULL ||
			    strcmp(ws_tools[k]->cli->prog, schema_progs[i]) != 0)
				continue;
			if ((j = ws_cli_schema(ws_tools[k]->cli)) == NULL) {
				cJSON_Delete(all);
				ws_error_set(WS_ENOMEM, NULL, "out of memory");
				return NULL;
			}
			cJSON_AddItemToArray(all, j);
			table = true;
		}
		if (!table) {
			cJSON_Delete(all);
			ws_error_set(WS_EIO_ERROR, NULL, "%s is not on the tool table",
				     schema_progs[i]);
			return NULL;
		}
	}
	defs = ws_toolset_build(set, all);
	cJSON_Delete(all);
	return defs;
}

/*
 * fail() (call), else fail_own(), with the last error (which they set
 * again: copied first).
 */
static int
fail_last(bool call, const char *tool, const char *hint)
{
	char *msg = strdup(ws_error_last());
	int code = ws_error_last_code(), st;

	if (code == 0)
		code = WS_ENOMEM;
	st = call ? fail(tool, code, hint, "%s", msg ? msg : "out of memory")
		  : fail_own(false, tool, code, hint, "%s", msg ? msg : "out of memory");
	free(msg);
	return st;
}

/*
 * The definitions of tool set `set`; with check, instead, which dialects
 * of function calling the set is within (exit 1 when not even in Ajv's
 * strict mode, which every set must pass) and its size; with dialect,
 * adapted to it (ws_toolset_adapt()).
 */
static int
cmd_schemas(const char *set, const char *dialect, bool check)
{
	cJSON *defs = set_defs(set);
	char *text;
	bool strict_ok = true;

	if (defs != NULL && dialect != NULL && ws_toolset_adapt(defs, dialect) < 0) {
		cJSON_Delete(defs);
		defs = NULL;
	}
	if (defs == NULL)
		return fail_last(false, "wstools", "wstools schemas [--set "
				 "full|default|five] [--for gemini] [--check]");
	text = cJSON_PrintUnformatted(defs);
	if (text == NULL) {
		cJSON_Delete(defs);
		return fail_own(false, "wstools", WS_ENOMEM, NULL, "out of memory");
	}
	if (!check) {
		puts(text);
	} else {
		printf("set %s: %d tools, %zu bytes\n", set, cJSON_GetArraySize(defs),
		       strlen(text));
		for (size_t i = 0; ws_toolset_dialects[i] != NULL; i++) {
			char *why = NULL;
			bool ok = ws_toolset_check(defs, ws_toolset_dialects[i], &why);

			printf("%-14s %s%s%s\n", ws_toolset_dialects[i],
			       ok ? "pass" : "FAIL", ok ? "" : ": ",
			       ok ? "" : why ? why : "out of memory");
			if (!ok && strcmp(ws_toolset_dialects[i], "ajv-strict") == 0)
				strict_ok = false;
			free(why);
		}
	}
	free(text);
	cJSON_Delete(defs);
	if (fflush(stdout) != 0)
		return ws_error_exit_status(WS_EIO_ERROR);
	return strict_ok ? 0 : 1;
}

/*
 * wstools call for a tool on the table (ws/tool.h): in this process, the
 * caller's options (argv[2..]) parsed as the tool's, the model's JSON
 * applied as --args applies it, held to the built-in ceilings.
 */
static int
call_table(const struct ws_tool_def *td, const cJSON *def, int argc, char **argv)
{
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(def, "function"), "parameters"),
		"properties");
	const cJSON *p;
	const char **keys;
	struct ws_cli cli;
	bool plain = false;
	size_t n = 0;
	int rc;

	/* --schema: the definition the set gives the model. */
	if (strcmp(argv[1], "--schema") == 0) {
		char *text = cJSON_PrintUnformatted(def);

		if (text == NULL)
			return fail(td->name, WS_ENOMEM, NULL, "out of memory");
		puts(text);
		free(text);
		return fflush(stdout) == 0 ? 0 : ws_error_exit_status(WS_EIO_ERROR);
	}
	/* Only the keys it declares (ws_cli_check_keys()). */
	if ((keys = calloc((size_t)cJSON_GetArraySize(props) + 1, sizeof(*keys))) == NULL)
		return fail(td->name, WS_ENOMEM, NULL, "out of memory");
	cJSON_ArrayForEach(p, props)
		keys[n++] = p->string;

	for (int a = 2; a < argc; a++)
		plain |= strcmp(argv[a], "--plain") == 0;
	if (setenv("WS_FRONTEND", "call", 1) < 0)
		return fail(td->name, WS_ENOMEM, NULL, "out of memory");
	ws_cli_set_ceilings(ws_ceilings_default, WS_NCEILINGS);
	/*
	 * argv[1], the JSON, stands where a program's name would; where it
	 * is --help or --schema instead (wstools call read_file --help, as a
	 * newcomer asks), the tool's name does and the option is parsed.
	 */
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		rc = ws_cli_parse_flags(&cli, td->cli, argc, argv);
	else
		rc = ws_cli_parse_flags(&cli, td->cli, argc - 1, argv + 1);
	/* As with --args: JSON out unless --plain, errors included. */
	cli.json = !plain;
	cli.declared = keys;
	if (rc == 0 && cli.action == WS_CLI_RUN)
		rc = ws_cli_apply_args(&cli, argv[1]);
	rc = ws_tool_run_cli(td, &cli, rc);
	ws_cli_set_ceilings(NULL, 0);
	free(keys);
	return rc;
}

/* The name of a function definition ({"function": {"name"...}}), or NULL. */
static const char *
def_name(const cJSON *d)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(d, "function"), "name"));
}

static int
cmd_call(int argc, char **argv)
{
	const struct ws_tool_def *td;
	const char *name, *set = "default";
	const cJSON *def = NULL, *d;
	cJSON *defs;
	int st;

	if (argc >= 1 && (strcmp(argv[0], "--help") == 0 ||
			  strcmp(argv[0], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	/* --set: the definitions the harness gave the model (schemas --set). */
	if (argc >= 2 && strcmp(argv[0], "--set") == 0) {
		set = argv[1];
		argc -= 2;
		argv += 2;
	} else if (argc >= 1 && strncmp(argv[0], "--set=", 6) == 0) {
		set = argv[0] + 6;
		argc--;
		argv++;
	}
	if (argc < 2)
		return fail("wstools", WS_EINVALID_ARGUMENT,
			    "wstools call [--set SET] NAME JSON|- (see wstools --help)",
			    "call needs a tool NAME and its arguments as JSON (or -)");
	name = argv[0];
	if ((defs = set_defs(set)) == NULL)
		return fail_last(true, "wstools", "wstools call [--set full|default|five] "
				 "NAME JSON|-");
	cJSON_ArrayForEach(d, defs)
		if (def_name(d) != NULL && strcmp(def_name(d), name) == 0)
			def = d;
	if (def == NULL) {
		char list[512], hint[128];
		size_t n = 0;

		list[0] = '\0';
		cJSON_ArrayForEach(d, defs)
			if (n < sizeof(list))
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
						      n > 0 ? ", " : "", def_name(d));
		cJSON_Delete(defs);
		snprintf(hint, sizeof(hint), "call one of the tools that \"wstools "
			 "schemas --set %s\" lists", set);
		return fail(name, WS_EINVALID_ARGUMENT, hint,
			    "unknown tool \"%s\"; tools: %s", name, list);
	}
	/* Every tool a model calls is on the tool table. */
	if ((td = ws_tool_by_name(name)) == NULL || td->run == NULL) {
		cJSON_Delete(defs);
		return fail(name, WS_EINVALID_ARGUMENT, NULL,
			    "\"%s\" is not on the tool table", name);
	}
	st = call_table(td, def, argc, argv);
	cJSON_Delete(defs);
	return st;
}

/* wstools mcp: its own options beside the common ones. */
enum { M_MAX_MESSAGE, M_COMPAT, M_NET, M_NET_ALLOW, M_NET_DENY, M_ROOTS_TIMEOUT, M_TIMEOUT, M_MAX_OUTPUT,
       M_APPROVAL_TIMEOUT, M_HISTORY_TOOLS, M_JOBS, M_COUNT };

static const struct ws_opt mcp_opts[M_COUNT] = {
	[M_MAX_MESSAGE] = {"max-message", 0, WS_OPT_BYTES, "BYTES",
			   "refuse a message longer than BYTES (suffix K, M or "
			   "G; default 32M)", 0},
	[M_COMPAT] = {"compat", 0, WS_OPT_STR, "MODE",
		      "serve another server's tools (mcp-filesystem)", 0},
	[M_NET] = {"net", 0, WS_OPT_FLAG, NULL,
		   "let run_command reach the network", 0},
	[M_NET_ALLOW] = {"net-allow", 0, WS_OPT_LIST, "DOMAIN",
			 "let run_command reach DOMAIN through the filtering "
			 "proxy, and no other host (repeatable)", 0},
	[M_NET_DENY] = {"net-deny", 0, WS_OPT_LIST, "DOMAIN",
			"refuse DOMAIN to run_command even where allowed "
			"(repeatable)", 0},
	[M_HISTORY_TOOLS] = {"history-tools", 0, WS_OPT_FLAG, NULL,
			     "also offer the model the history and undo tools", 0},
	[M_ROOTS_TIMEOUT] = {"roots-timeout", 0, WS_OPT_SECONDS, "S",
			     "how long a call waits for the client's roots "
			     "(default 10)", 0},
	[M_TIMEOUT] = {"timeout", 0, WS_OPT_SECONDS, "S",
		       "the longest run_command timeout a model may ask for "
		       "(default 600)", 0},
	[M_MAX_OUTPUT] = {"max-output", 0, WS_OPT_BYTES, "N",
			  "the most run_command output a model may ask for "
			  "(default 1M)", 0},
	[M_APPROVAL_TIMEOUT] = {"approval-timeout", 0, WS_OPT_SECONDS, "S",
				"how long a call waits for the person's answer "
				"to an approval (default 120)", 0},
	[M_JOBS] = {"jobs", 0, WS_OPT_INT, "N",
		    "run up to N tool calls side by side (default 4)", 0},
};

static int run_history(int argc, char **argv);
static int run_undo(int argc, char **argv);
/* The tools with history and undo (wstools mcp --history-tools). */
static struct ws_mcp_tool tools_hist[NTOOLS + 2];

static const struct ws_tool mcp_tool = {
	.prog = "wstools mcp",
	.page = "wstools-mcp",
	.tool = "mcp",
	.description = "Serve the toolbox over the Model Context Protocol on "
		       "standard input and output (JSON-RPC, one message a "
		       "line).\nThe first DIR is the workspace unless --workspace "
		       "is given; further DIRs are mounted at /.NAME.  Without "
		       "either, the workspace is the client's first root, else "
		       "WS_ROOT: never the current directory.",
	.usage = "wstools mcp [OPTION]... [DIR]...",
	.pos_name = "dir",
	.pos_help = "the workspace, then directories mounted at /.NAME",
	.pos_kind = WS_POS_ANY,
	.exit_help = "0 at the end of input; 2 invalid arguments; 5 the server "
		     "could not start or write its output.",
	.workspace_help = "workspace root (default: the first DIR, else the "
			  "client's first root, else env WS_ROOT; never the "
			  "current directory)",
	.opts = mcp_opts,
	.nopts = M_COUNT,
};

/*
 * The compatibility modes --compat can name.  The translation layer
 * (lib/mcp_compat_*.c) registers here with a struct ws_mcp_compat.
 */
static const struct ws_mcp_compat *const compats[] = {
	&ws_mcp_compat_filesystem,
	NULL,
};

/*
 * A server's --audit or --state-dir (what, named flag) that every call
 * would refuse: relative, or inside the served workspace or a mount (by
 * its spelling made normal; the calls check its real name too).  0 when
 * unset or fine.
 */
static int
place_outside(const struct ws_ctx *probe, const char *flag, const char *path,
	      const char *what)
{
	char *norm = NULL;
	int rc = 0;

	if (path == NULL || path[0] == '\0')
		return 0;
	if (path[0] != '/')
		return ws_error_set(WS_EINVALID_ARGUMENT, path,
				    "%s must be an absolute name (%s): every call "
				    "would refuse it", what, flag);
	if (ws_path_normalize(path, WS_NORM_CLAMP, &norm) < 0)
		return ws_error_last_code();
	/* The log's own check, whose hint knows where the home's state
	 * directory lies (ftu13 16). */
	if (strcmp(flag, "--state-dir") != 0) {
		rc = ws_audit_place_check(probe, path, norm);
		free(norm);
		return rc;
	}
	for (size_t i = 0; i < probe->nanchors && rc == 0; i++)
		if (strcmp(probe->anchors[i].real, "/") != 0 &&
		    ws_path_within(probe->anchors[i].real, norm, NULL))
			rc = ws_error_set(WS_EINVALID_ARGUMENT, path,
					  "%s lies inside the workspace or a mount "
					  "(%s): every call would refuse it (a command "
					  "could rewrite it)", what,
					  probe->anchors[i].vprefix);
	free(norm);
	if (rc < 0)
		ws_error_set_hint("put it outside, e.g. under "
				  "~/.local/state/wstools/");
	return rc;
}

/*
 * The configuration and the policy every call would load (--policy, else
 * WS_POLICY, else the configuration's), read once at start: a name that
 * finds no file, or a file that does not parse, is a mistake in the
 * client's configuration that would otherwise fail every call, after
 * the server looked well (ftu18 05).  The calls still read both again,
 * so an edit made later counts.  The roots' variables are the served
 * directory here (a call's detection may find others: only their values
 * differ).  0 when both load, or no policy is asked for.
 */
static int
policy_loads(const struct ws_cli *cli, const struct ws_ctx *probe)
{
	const char *spec, *root = probe->anchors[0].real;
	struct ws_policy *pol = NULL;
	struct ws_config conf;
	struct ws_vars vars;
	int rc;

	ws_config_init(&conf);
	ws_vars_init(&vars);
	if ((rc = ws_config_load(&conf, cli->config)) < 0)
		goto out;
	/* As ws_cli_open() chooses it: an empty WS_POLICY asks for none. */
	spec = cli->policy != NULL ? cli->policy : conf.policy_default;
	if (spec == NULL || spec[0] == '\0')
		goto out;
	if ((rc = ws_vars_set(&vars, "PROJECT_ROOT", root)) < 0 ||
	    (rc = ws_vars_set(&vars, "GIT_ROOT", root)) < 0 ||
	    (rc = ws_vars_set(&vars, "WORKSPACE", root)) < 0)
		goto out;
	rc = ws_policy_load(spec, conf.policies_dir, &vars, &pol);
out:
	ws_policy_free(pol);
	ws_vars_free(&vars);
	ws_config_free(&conf);
	return rc;
}

/*
 * A DIR that cannot be served, in the house's words: lower case, as
 * every other message ("no such directory", not strerror's "No such file
 * or directory").
 */
static int
dir_error(const char *dir, int e)
{
	char why[128];

	if (e == ENOENT)
		return ws_error_set(WS_EWORKSPACE_NOT_FOUND, dir,
				    "no such directory");
	if (e == ENOTDIR)
		return ws_error_set(WS_EWORKSPACE_NOT_FOUND, dir,
				    "not a directory");
	snprintf(why, sizeof(why), "%s", strerror(e));
	why[0] = (char)tolower((unsigned char)why[0]);
	return ws_error_set(WS_EWORKSPACE_NOT_FOUND, dir, "cannot be reached: %s",
			    why);
}

/*
 * A warning on standard error when the server's workspace is the whole
 * file system or the home directory: a client then reads and changes
 * every file the user can, which is rarely what a configuration meant.
 */
static void
warn_broad_root(const char *real)
{
	const char *home = getenv("HOME");
	char *hr = home != NULL && *home != '\0' ? realpath(home, NULL) : NULL;

	if (strcmp(real, "/") == 0)
		fprintf(stderr, "wstools mcp: warning: the workspace is / (the "
			"whole file system): the client can read and change every "
			"file this user can; name a project's directory instead\n");
	else if (hr != NULL && strcmp(real, hr) == 0)
		fprintf(stderr, "wstools mcp: warning: the workspace is the home "
			"directory %s: the client can read and change all of it "
			"(its persistence places stay guarded); name a project's "
			"directory instead\n", real);
	free(hr);
}

/*
 * DIR with a leading "~" or "~/" made the home directory ($HOME, else the
 * password database's), as a shell would: a client's JSON config runs
 * the server without a shell, and "~/src" would otherwise be a directory
 * named "~".  "~user" is left alone.  A malloc'd string, NULL without
 * memory.
 */
static char *
expand_home(const char *dir)
{
	const char *home;
	char *out = NULL, *pwhome = NULL;

	if (dir[0] != '~' || (dir[1] != '\0' && dir[1] != '/'))
		return strdup(dir);
	home = getenv("HOME");
	if (home == NULL || *home == '\0')
		home = pwhome = ws_passwd_home();
	if (home == NULL)
		return strdup(dir);
	if (asprintf(&out, "%s%s", home, dir + 1) < 0)
		out = NULL;
	free(pwhome);
	return out;
}

/* Append s to a growing NULL-free array of strings. */
static int
push(const char ***v, size_t *n, const char *s)
{
	const char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (nv == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	nv[(*n)++] = s;
	*v = nv;
	return 0;
}

/*
 * Record DIR's spelling (absolute, normalised, not resolved) as the
 * compat mode's other name of real (ws_mcp_compat_alias()); *owned keeps
 * it for the server's life.  A DIR that needs no symlink records nothing.
 */
static int
compat_alias(const char *dir, const char *real, char ***owned, size_t *nowned)
{
	char cwd[PATH_MAX], *joined = NULL, *spelled = NULL;
	int rc;

	if (dir[0] != '/') {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return ws_error_errno(errno, dir, "getcwd");
		if ((joined = ws_path_join(cwd, dir)) == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	rc = ws_path_normalize(joined ? joined : dir, WS_NORM_CLAMP, &spelled);
	free(joined);
	if (rc < 0)
		return rc;
	if (strcmp(spelled, real) == 0) {
		free(spelled);
		return 0;
	}
	if ((rc = push((const char ***)owned, nowned, spelled)) < 0) {
		free(spelled);
		return rc;
	}
	return ws_mcp_compat_alias(spelled, real);
}

static int
cmd_mcp(int argc, char **argv)
{
	struct ws_cli cli;
	struct ws_mcp_opts o;
	const char **common = NULL, **mounts = NULL;
	char **owned = NULL;
	size_t ncommon = 0, nowned = 0, nmounts = 0;
	bool ws_flag = false;
	int rc, status = 0;

	memset(&o, 0, sizeof(o));
	rc = ws_cli_parse(&cli, &mcp_tool, argc, argv);
	cli.json = false; /* errors here are for a person: plain */
	if (rc < 0)
		goto fail;
	if (ws_cli_print_info(&cli, stdout))
		goto out;
	if (cli.from_args) {
		rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				  "--args is for one tool call; wstools mcp takes "
				  "its calls as JSON-RPC on standard input");
		goto fail;
	}
	if (WS_OPT(&cli, M_COMPAT)->set) {
		const char *want = WS_OPT(&cli, M_COMPAT)->s;

		for (size_t i = 0; compats[i] != NULL; i++)
			if (strcmp(compats[i]->name, want) == 0)
				o.compat = compats[i];
		if (o.compat == NULL) {
			rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					  "--compat %s: unknown mode", want);
			ws_error_set_hint("--compat mcp-filesystem, or leave --compat out");
			goto fail;
		}
	}
	/*
	 * The native server's run_command shows the workspace at "/", as
	 * its file tools do (wsrun --view, DESIGN.md 2); the compat mode
	 * keeps real paths, as the reference server.  --view, WS_VIEW and
	 * the configuration's view still win (see cmd/wsrun.c).
	 */
	if (o.compat == NULL && setenv("WS__VIEW_DEFAULT", "virtual", 1) < 0) {
		rc = ws_error_errno(errno, NULL, "setenv");
		goto fail;
	}
	if (WS_OPT(&cli, M_MAX_MESSAGE)->set) {
		long long m = WS_OPT(&cli, M_MAX_MESSAGE)->i;

		if (m < 1024 || m > (1LL << 30)) {
			rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					  "--max-message takes 1024 to 1073741824 "
					  "bytes, not %lld", m);
			goto fail;
		}
		o.max_message = (size_t)m;
	}
	if (WS_OPT(&cli, M_ROOTS_TIMEOUT)->set) {
		o.roots_timeout_ms = WS_OPT(&cli, M_ROOTS_TIMEOUT)->i;
		if (o.roots_timeout_ms < 1 || o.roots_timeout_ms > 3600000) {
			rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					  "--roots-timeout takes 0.001 to 3600 seconds");
			goto fail;
		}
	}
	if (WS_OPT(&cli, M_JOBS)->set) {
		long long j = WS_OPT(&cli, M_JOBS)->i;

		if (j < 1 || j > 64) {
			rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					  "--jobs takes 1 to 64, not %lld", j);
			goto fail;
		}
		o.jobs = (int)j;
	}
	if (WS_OPT(&cli, M_APPROVAL_TIMEOUT)->set &&
	    (o.approval_timeout_ms = WS_OPT(&cli, M_APPROVAL_TIMEOUT)->i) <= 0) {
		rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				  "--approval-timeout takes a positive number of seconds");
		goto fail;
	}
	if (WS_OPT(&cli, M_TIMEOUT)->set &&
	    (o.run_timeout_ms = WS_OPT(&cli, M_TIMEOUT)->i) <= 0) {
		rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				  "--timeout takes a positive number of seconds");
		goto fail;
	}
	if (WS_OPT(&cli, M_MAX_OUTPUT)->set &&
	    (o.run_max_output = WS_OPT(&cli, M_MAX_OUTPUT)->i) <= 0) {
		rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				  "--max-output takes a positive number of bytes");
		goto fail;
	}
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--workspace") == 0 ||
		    strncmp(argv[i], "--workspace=", 12) == 0)
			ws_flag = true;
	/*
	 * The workspace: --workspace, else the first DIR (both pin it); the
	 * other DIRs are mounts.  DIRs are resolved here, once, so that a
	 * missing one stops the server now rather than fail every call.
	 */
	for (size_t i = 0; i < cli.npos; i++) {
		char *dir = expand_home(cli.pos[i]);
		char *real = dir ? realpath(dir, NULL) : NULL;

		if (real == NULL) {
			rc = dir == NULL ? ws_error_set(WS_ENOMEM, NULL, "out of memory")
					 : dir_error(dir, errno);
			free(dir);
			goto fail;
		}
		if ((rc = push((const char ***)&owned, &nowned, real)) < 0) {
			free(real);
			free(dir);
			goto fail;
		}
		/*
		 * The compat mode takes a path spelled through a symlinked
		 * DIR too, as the reference server does: its spelling, made
		 * absolute, names the root resolved here (lexically).
		 */
		if (o.compat != NULL && (rc = compat_alias(dir, real, &owned,
							  &nowned)) < 0) {
			free(dir);
			goto fail;
		}
		free(dir);
		if (i == 0 && !ws_flag) {
			o.workspace = real;
			continue;
		}
		/* Mounted as data, named by the server (ws_mcp_mount_name()). */
		if ((rc = push(&mounts, &nmounts, real)) < 0)
			goto fail;
	}
	if (ws_flag) {
		char *dir = expand_home(cli.workspace);

		if (dir == NULL || (rc = push((const char ***)&owned, &nowned, dir)) < 0) {
			free(dir);
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			goto fail;
		}
		o.workspace = dir;
	}
	else if (o.workspace == NULL)
		o.fallback = getenv("WS_ROOT");
	/*
	 * What would fail every call fails now, as a bad DIR does: the
	 * workspace and the mounts (--mount, else WS_MOUNTS), opened once.
	 */
	{
		struct ws_ctx probe;

		/* WS_ROOT is only a fallback: the client's roots may win. */
		rc = ws_ctx_open(&probe, o.workspace ? o.workspace : "/", 0);
		/*
		 * A mistyped client configuration ("args": ["/"] or "~")
		 * gives the model every file the user has: served, as asked,
		 * but said (FTU10 10).
		 */
		if (rc == 0 && o.workspace != NULL)
			warn_broad_root(probe.anchors[0].real);
		for (size_t i = 0; rc == 0 && i < cli.nmounts; i++)
			rc = ws_ctx_add_mount(&probe, cli.mounts[i]);
		if (rc == 0 && cli.nmounts == 0 && cli.env_mounts != NULL &&
		    cli.env_mounts[0] != '\0' &&
		    (rc = ws_ctx_add_mounts(&probe, cli.env_mounts)) < 0)
			ws_error_set_hint("WS_MOUNTS is a comma-separated list of "
					  "VPREFIX=DIR[:ro]");
		/*
		 * An audit log or a state directory that every call would
		 * refuse (relative, or inside the workspace or a mount) is
		 * the server's mistake, not the model's: said now, on stderr,
		 * rather than as every call's INVALID_ARGUMENT (ftu12 19).
		 */
		/*
		 * A relative name is the current directory's, as on the
		 * command line (ftu13 11): made absolute once here, so that
		 * every call gets the same file.
		 */
		{
			const char *a = cli.audit ? cli.audit : getenv("WS_AUDIT");
			char *abs = NULL;

			if (rc == 0 && a != NULL && a[0] != '\0' &&
			    (rc = ws_cli_cwd_name(a, "the audit log", &abs)) == 0 &&
			    abs != NULL) {
				if ((rc = push((const char ***)&owned, &nowned, abs)) < 0)
					free(abs);
				else
					cli.audit = abs;
			}
			abs = NULL;
			if (rc == 0 && cli.state_dir != NULL &&
			    (rc = ws_cli_cwd_name(cli.state_dir, "the state directory",
						  &abs)) == 0 && abs != NULL) {
				if ((rc = push((const char ***)&owned, &nowned, abs)) < 0)
					free(abs);
				else
					cli.state_dir = abs;
			}
		}
		if (rc == 0)
			rc = place_outside(&probe, cli.audit ? "--audit" : "WS_AUDIT",
					   cli.audit ? cli.audit : getenv("WS_AUDIT"),
					   "the audit log");
		if (rc == 0)
			rc = place_outside(&probe, "--state-dir", cli.state_dir,
					   "the state directory");
		if (rc == 0)
			rc = policy_loads(&cli, &probe);
		ws_ctx_close(&probe);
		if (rc < 0)
			goto fail;
	}
	/* The common options every call gets, as the CLI would. */
	for (size_t i = 0; i < cli.nmounts; i++)
		if ((rc = push(&common, &ncommon, "--mount")) < 0 ||
		    (rc = push(&common, &ncommon, cli.mounts[i])) < 0)
			goto fail;
	{
		const struct {
			const char *flag, *val;
		} kv[] = {
			{"--policy", cli.policy},
			{"--config", cli.config},
			{"--project-root", cli.project_root},
			{"--audit", cli.audit},
			{"--state-dir", cli.state_dir},
			{"--paths", !cli.paths_set ? NULL :
				    cli.paths == WS_PATHS_REAL ? "real" :
				    cli.paths == WS_PATHS_RELATIVE ? "relative" : "virtual"},
		};
		const struct {
			const char *flag;
			bool on;
		} fl[] = {
			{"--no-detect-root", cli.no_detect_root},
			{"--strict", cli.strict},
			{"--allow-outside", cli.allow_outside},
			{"--approve", cli.approve},
			{"--no-history", cli.no_history},
			{"--verbose", cli.verbose},
		};

		for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
			if (kv[i].val != NULL &&
			    ((rc = push(&common, &ncommon, kv[i].flag)) < 0 ||
			     (rc = push(&common, &ncommon, kv[i].val)) < 0))
				goto fail;
		for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++)
			if (fl[i].on && (rc = push(&common, &ncommon, fl[i].flag)) < 0)
				goto fail;
	}
	o.tools = tools;
	o.ntools = NTOOLS;
	/* undo and history only when the harness wants the model to have
	 * them; the person can always run wstools undo beside it. */
	if (WS_OPT(&cli, M_HISTORY_TOOLS)->b) {
		memcpy(tools_hist, tools, sizeof(tools));
		tools_hist[NTOOLS] = (struct ws_mcp_tool){"history", "wstools-history",
							   false, run_history};
		tools_hist[NTOOLS + 1] = (struct ws_mcp_tool){"undo", "wstools-undo",
							       false, run_undo};
		o.tools = tools_hist;
		o.ntools = NTOOLS + 2;
	}
	o.base = &cli;
	o.common = common;
	o.ncommon = ncommon;
	o.mounts = mounts;
	o.nmounts = nmounts;
	o.net = WS_OPT(&cli, M_NET)->b;
	o.net_allow = WS_OPT(&cli, M_NET_ALLOW)->list;
	o.nnet_allow = WS_OPT(&cli, M_NET_ALLOW)->n;
	o.net_deny = WS_OPT(&cli, M_NET_DENY)->list;
	o.nnet_deny = WS_OPT(&cli, M_NET_DENY)->n;
	o.in_fd = 0;
	o.out_fd = 1;
	/* Tool output is captured per call; nothing else goes to stdout. */
	fflush(stdout);
	ws_audit_set_frontend("mcp");
	/* The audit log stays open across the server's calls (issue 22). */
	ws_audit_keep_open(true);
	rc = ws_mcp_serve(&o);
	ws_audit_keep_open(false);
	if (rc < 0)
		goto fail;
	goto out;
fail:
	status = ws_cli_fail(&cli, rc);
out:
	for (size_t i = 0; i < nowned; i++)
		free(owned[i]);
	free(owned);
	free(common);
	free(mounts);
	ws_cli_free(&cli);
	return status;
}

/* history and undo as the tools wstools mcp --history-tools serves. */
static int
run_history(int argc, char **argv)
{
	return ws_tool_main(&ws_tool_history, argc, argv);
}

static int
run_undo(int argc, char **argv)
{
	return ws_tool_main(&ws_tool_undo, argc, argv);
}

#define AUDIT_USAGE "wstools audit --verify [--expect HASH] [--json] [--config FILE] [FILE]"

/*
 * wstools audit --verify [--expect HASH] [--json] [--config FILE] [FILE]:
 * check the hash chain of an audit log (FILE, else WS_AUDIT, else the
 * configuration's "audit"), and say the last line's hash, to be kept
 * where the writer cannot reach; --expect HASH checks that a hash kept
 * so is still in the chain (lines cut off the end leave it valid,
 * ftu13 09).  0 when it holds, 1 when it breaks (naming the line) or
 * the expected hash is not there.
 */
static int
cmd_audit(int argc, char **argv)
{
	const char *file = NULL, *config = getenv("WS_CONFIG"), *expect = NULL;
	struct ws_config conf;
	struct ws_audit_verdict v;
	bool verify = false, json = false, expect_ok;
	int rc, status;

	/* Its errors in the form asked for, wherever --json stands. */
	for (int i = 1; i < argc; i++)
		json |= strcmp(argv[i], "--json") == 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("Usage: %s\n"
			       "Check the hash chain of an audit log (FILE, else WS_AUDIT, "
			       "else the\nconfiguration's \"audit\"); see wstools(1), AUDIT LOG.\n\n"
			       "  --verify          check the chain, and print the last line's hash\n"
			       "                    (keep it where the log's writer cannot reach)\n"
			       "  --expect HASH     check the chain (as --verify), and fail unless a\n"
			       "                    line has HASH (one printed before): lines cut\n"
			       "                    off the end are caught\n"
			       "  --json            print the result as one JSON object\n"
			       "  --config FILE     the configuration that names the log\n\n"
			       "Exit status: 0 the chain holds; 1 it breaks, or HASH is not in it;\n"
			       "2 invalid arguments; 5 the log cannot be read.\n", AUDIT_USAGE);
			return 0;
		}
		if (strcmp(argv[i], "--verify") == 0)
			verify = true;
		else if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			config = argv[++i];
		else if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc)
			expect = argv[++i];
		else if (strncmp(argv[i], "--expect=", 9) == 0)
			expect = argv[i] + 9;
		else if (argv[i][0] != '-' && file == NULL)
			file = argv[i];
		else
			return fail_own(json, "audit", WS_EINVALID_ARGUMENT, AUDIT_USAGE,
				    "audit: unknown argument \"%s\"", argv[i]);
	}
	/* --expect only makes sense while checking the chain, so it asks for
	 * --verify by itself (ftu17 07); with neither, say what to add. */
	if (expect != NULL)
		verify = true;
	if (!verify)
		return fail_own(json, "audit", WS_EINVALID_ARGUMENT, AUDIT_USAGE,
			    "audit: nothing to do: add --verify to check the chain");
	if (expect != NULL) {
		size_t k = 0;

		while (expect[k] != '\0' && isxdigit((unsigned char)expect[k]) &&
		       !isupper((unsigned char)expect[k]))
			k++;
		if (k != 64 || expect[k] != '\0')
			return fail_own(json, "audit", WS_EINVALID_ARGUMENT,
				    "give a line's \"hash\" as --verify printed it",
				    "audit: --expect wants 64 lower-case hex digits, "
				    "not \"%s\"", expect);
	}
	ws_config_init(&conf);
	if (file == NULL && (file = getenv("WS_AUDIT")) == NULL) {
		if ((rc = ws_config_load(&conf, config)) < 0) {
			ws_config_free(&conf);
			return fail_own(json, "audit", rc, NULL, "%s", ws_error_last());
		}
		file = conf.audit;
	}
	if (file == NULL || file[0] == '\0') {
		ws_config_free(&conf);
		return fail_own(json, "audit", WS_EINVALID_ARGUMENT,
			    "give the log's name, or set WS_AUDIT or \"audit\"",
			    "audit: no audit log is configured");
	}
	rc = ws_audit_check(file, expect, &v);
	if (rc < 0) {
		status = fail_own(json, "audit", rc, NULL, "%s: %s", file, ws_error_last());
		ws_config_free(&conf);
		return status;
	}
	expect_ok = expect == NULL || v.expect_at != 0;
	if (json) {
		cJSON *o = cJSON_CreateObject(), *out;
		char *t;

		cJSON_AddBoolToObject(o, "success", true);
		cJSON_AddStringToObject(o, "tool", "audit");
		out = cJSON_AddObjectToObject(o, "output");
		cJSON_AddStringToObject(out, "path", file);
		cJSON_AddNumberToObject(out, "lines", (double)v.lines);
		cJSON_AddBoolToObject(out, "valid", v.bad == 0 && expect_ok);
		if (v.bad != 0) {
			cJSON_AddNumberToObject(out, "broken_at", (double)v.bad);
			cJSON_AddStringToObject(out, "reason", v.why);
		}
		/* Added fields (ftu13 09): what to keep, and what was found. */
		if (v.last_hash[0] != '\0')
			cJSON_AddStringToObject(out, "last_hash", v.last_hash);
		else
			cJSON_AddNullToObject(out, "last_hash");
		if (v.first_prev[0] != '\0')
			cJSON_AddStringToObject(out, "first_prev", v.first_prev);
		else
			cJSON_AddNullToObject(out, "first_prev");
		if (expect != NULL) {
			cJSON_AddStringToObject(out, "expect", expect);
			if (v.expect_at != 0)
				cJSON_AddNumberToObject(out, "expect_at", (double)v.expect_at);
			else
				cJSON_AddNullToObject(out, "expect_at");
		}
		t = cJSON_PrintUnformatted(o);
		if (t != NULL)
			printf("%s\n", t);
		free(t);
		cJSON_Delete(o);
	} else {
		if (v.bad == 0)
			printf("%s: %zu line%s, the chain holds", file, v.lines,
			       v.lines == 1 ? "" : "s");
		else
			printf("%s: the chain breaks at line %zu of %zu: %s", file,
			       v.bad, v.lines, v.why);
		if (v.last_hash[0] != '\0')
			printf("%s last hash %s", v.bad == 0 ? "; its" :
			       "; before that, the", v.last_hash);
		putchar('\n');
		if (expect != NULL && v.expect_at != 0)
			printf("%s: the expected hash is line %zu's\n", file,
			       v.expect_at);
		else if (expect != NULL)
			/* The hash ends the line, with no punctuation after it,
			 * so that it is copied whole (ftu17 07). */
			printf("%s: lines were cut off or changed since the hash "
			       "was kept: no line of the chain has %s\n", file,
			       expect);
	}
	ws_config_free(&conf);
	return v.bad == 0 && expect_ok ? 0 : 1;
}

int
ws_cmd_wstools(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("wstools (wstools) %s\n", WS_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "schemas") == 0) {
		const char *set = "default", *dialect = NULL;
		bool check = false;

		for (int i = 2; i < argc; i++) {
			if (strcmp(argv[i], "--help") == 0 ||
			    strcmp(argv[i], "-h") == 0) {
				usage(stdout);
				return 0;
			}
			if (strcmp(argv[i], "--check") == 0)
				check = true;
			else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc)
				set = argv[++i];
			else if (strncmp(argv[i], "--set=", 6) == 0)
				set = argv[i] + 6;
			else if (strcmp(argv[i], "--for") == 0 && i + 1 < argc)
				dialect = argv[++i];
			else if (strncmp(argv[i], "--for=", 6) == 0)
				dialect = argv[i] + 6;
			else
				return fail_own(false, "wstools", WS_EINVALID_ARGUMENT,
					    "wstools schemas [--set full|default|five] "
					    "[--for gemini] [--check]",
					    "schemas: unknown argument \"%s\"", argv[i]);
		}
		return cmd_schemas(set, dialect, check);
	}
	if (strcmp(argv[1], "call") == 0)
		return cmd_call(argc - 2, argv + 2);
	if (strcmp(argv[1], "mcp") == 0)
		return cmd_mcp(argc - 1, argv + 1);
	if (strcmp(argv[1], "audit") == 0)
		return cmd_audit(argc - 1, argv + 1);
	if (strcmp(argv[1], "history") == 0)
		return ws_tool_main(&ws_tool_history, argc - 1, argv + 1);
	if (strcmp(argv[1], "undo") == 0)
		return ws_tool_main(&ws_tool_undo, argc - 1, argv + 1);
	return fail_own(false, "wstools", WS_EINVALID_ARGUMENT,
		    "the commands are schemas, call, mcp, history, undo and audit "
		    "(see wstools --help)",
		    "unknown command \"%s\"", argv[1]);
}
