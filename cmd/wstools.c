/*
 * wstools - the front door for agent harnesses: "wstools schemas" prints
 * every tool definition of the toolbox as one JSON array, "wstools call
 * NAME JSON|-" runs the tool an LLM named with those arguments.
 *
 * It only dispatches: each tool runs as its own binary (found next to this
 * one, then on PATH), so its stdout, stderr and exit status are the
 * caller's unchanged and no rule of a tool is duplicated here.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ws/cli.h"
#include "ws/error.h"

/* LLM tool name -> binary, and whether the binary needs --tool NAME. */
static const struct {
	const char *name;
	const char *prog;
	bool by_tool;
} tools[] = {
	{"list_directory", "wsls", false},
	{"read_file", "wsread", false},
	/* write_file alone keeps working without --tool (issue 9). */
	{"write_file", "wswrite", false},
	{"edit_file", "wswrite", true},
	{"create_directory", "wswrite", true},
	{"move_path", "wswrite", true},
	{"delete_path", "wswrite", true},
	{"search_files", "wsgrep", false},
	{"run_command", "wsrun", false},
};
#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

/* The binaries whose --schema make up the toolbox, in schema order. */
static const char *const schema_progs[] = {"wsls", "wsread", "wswrite",
					   "wsgrep", "wsrun"};

static const struct ws_tool self = {
	.prog = "wstools",
	.tool = "wstools",
	.description = "Run the wstools tools by their LLM names.",
	.usage = "wstools schemas\n"
		 "       wstools call NAME JSON|- [OPTION]...",
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: wstools schemas\n"
		"       wstools call NAME JSON|- [OPTION]...\n"
		"The front door of the toolbox for agent harnesses.\n"
		"\n"
		"Commands:\n"
		"  schemas                   print every tool's function-calling definition\n"
		"                            as one JSON array\n"
		"  call NAME JSON|-          run tool NAME with its arguments as one JSON\n"
		"                            object (- reads it from standard input); the\n"
		"                            OPTIONs (--workspace, --policy...) go to the tool\n"
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

/* Fail as a tool would: one JSON error object naming tool, exit status. */
static int
fail(const char *tool, int code, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
fail(const char *tool, int code, const char *hint, const char *fmt, ...)
{
	struct ws_tool t = self;
	struct ws_cli cli;
	va_list ap;

	memset(&cli, 0, sizeof(cli));
	t.tool = tool;
	cli.tool = &t;
	cli.json = true;
	va_start(ap, fmt);
	ws_error_setv(code, NULL, fmt, ap);
	va_end(ap);
	if (hint != NULL)
		ws_error_set_hint("%s", hint);
	return ws_cli_fail(&cli, code);
}

/*
 * The path of binary prog: next to this executable first (a build tree,
 * or an install where PATH holds another version), else its bare name
 * for execvp() to find on PATH.  Returns a malloc'd string.
 */
static char *
locate(const char *prog)
{
	char self_path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	char *p = NULL;

	if (n > 0) {
		char *slash;

		self_path[n] = '\0';
		slash = strrchr(self_path, '/');
		if (slash != NULL) {
			*slash = '\0';
			if (asprintf(&p, "%s/%s", self_path, prog) < 0)
				p = NULL;
			if (p != NULL && access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	return strdup(prog);
}

static void
run(const char *prog, char **argv)
{
	char *path = locate(prog);

	if (path == NULL)
		return;
	if (strchr(path, '/') != NULL)
		execv(path, argv);
	else
		execvp(path, argv);
	free(path);
}

/* Run "prog --schema" and return its standard output (malloc'd). */
static char *
capture_schema(const char *prog)
{
	int fds[2], status;
	pid_t pid;
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (pipe(fds) < 0)
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (pid == 0) {
		char *argv[] = {(char *)prog, (char *)"--schema", NULL};

		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		run(prog, argv);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		ssize_t r;

		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 16384);

			if (nb == NULL)
				break;
			buf = nb;
		}
		r = read(fds[0], buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (buf != NULL)
		buf[len] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * Every tool definition in one array: a binary that serves several tools
 * (wswrite) prints an array of its own, flattened into this one.
 */
static int
cmd_schemas(void)
{
	cJSON *all = cJSON_CreateArray();
	char *text;

	if (all == NULL)
		return fail("wstools", WS_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; i < sizeof(schema_progs) / sizeof(schema_progs[0]); i++) {
		char *out = capture_schema(schema_progs[i]);
		cJSON *j = out ? cJSON_Parse(out) : NULL;

		free(out);
		if (j == NULL) {
			cJSON_Delete(all);
			return fail("wstools", WS_EIO_ERROR,
				    "install the whole toolbox in one directory",
				    "cannot get the definition of %s: %s --schema "
				    "failed or printed no JSON", schema_progs[i],
				    schema_progs[i]);
		}
		if (cJSON_IsArray(j)) {
			while (cJSON_GetArraySize(j) > 0)
				cJSON_AddItemToArray(all, cJSON_DetachItemFromArray(j, 0));
			cJSON_Delete(j);
		} else {
			cJSON_AddItemToArray(all, j);
		}
	}
	text = cJSON_PrintUnformatted(all);
	cJSON_Delete(all);
	if (text == NULL)
		return fail("wstools", WS_ENOMEM, NULL, "out of memory");
	puts(text);
	free(text);
	return fflush(stdout) == 0 ? 0 : ws_error_exit_status(WS_EIO_ERROR);
}

static int
cmd_call(int argc, char **argv)
{
	const char *name, *json;
	char **av;
	size_t i, n = 0;

	if (argc < 2)
		return fail("wstools", WS_EINVALID_ARGUMENT,
			    "wstools call NAME JSON|- (see wstools --help)",
			    "call needs a tool NAME and its arguments as JSON (or -)");
	name = argv[0];
	json = argv[1];
	for (i = 0; i < NTOOLS; i++)
		if (strcmp(tools[i].name, name) == 0)
			break;
	if (i == NTOOLS)
		return fail(name, WS_EINVALID_ARGUMENT,
			    "call one of the tools that \"wstools schemas\" lists",
			    "unknown tool \"%s\"; tools: list_directory, read_file, "
			    "write_file, edit_file, create_directory, move_path, "
			    "delete_path, search_files, run_command", name);
	av = calloc((size_t)argc + 6, sizeof(*av));
	if (av == NULL)
		return fail(name, WS_ENOMEM, NULL, "out of memory");
	av[n++] = (char *)tools[i].prog;
	if (tools[i].by_tool) {
		av[n++] = (char *)"--tool";
		av[n++] = (char *)name;
	}
	/* The caller's options first: a command (wsrun) ends them. */
	for (int a = 2; a < argc; a++)
		av[n++] = argv[a];
	av[n++] = (char *)"--args";
	av[n++] = (char *)json;
	av[n] = NULL;
	fflush(stdout);
	run(tools[i].prog, av);
	{
		int e = errno;

		free(av);
		return fail(name, WS_ENOT_FOUND,
			    "install the whole toolbox in one directory",
			    "cannot run %s: %s", tools[i].prog, strerror(e));
	}
}

int
main(int argc, char **argv)
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
		if (argc > 2)
			return fail("wstools", WS_EINVALID_ARGUMENT, NULL,
				    "schemas takes no argument (\"%s\")", argv[2]);
		return cmd_schemas();
	}
	if (strcmp(argv[1], "call") == 0)
		return cmd_call(argc - 2, argv + 2);
	return fail("wstools", WS_EINVALID_ARGUMENT,
		    "the commands are schemas and call (see wstools --help)",
		    "unknown command \"%s\"", argv[1]);
}
