/*
 * wswrite - create, overwrite, append to or edit a file inside the
 * workspace; also mkdir, delete and move (LLM tool name write_file).
 *
 * One binary, five tools of the tool table (lib/tool_write.c): --tool
 * NAME picks one (write_file without it), whose options are then parsed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/error.h"
#include "ws/tool.h"

#include "cmds.h"

enum { T_WRITE, T_EDIT, T_MKDIR, T_MOVE, T_DELETE, T_COUNT };

static const struct ws_tool_def *const tools[T_COUNT] = {
	&ws_tool_write_file, &ws_tool_edit_file, &ws_tool_create_directory,
	&ws_tool_move_path, &ws_tool_delete_path,
};

/* Print every tool's schema, as one JSON array. */
static void
print_schemas(FILE *f)
{
	fputc('[', f);
	for (int i = 0; i < T_COUNT; i++) {
		struct ws_cli c = {.tool = tools[i]->cli};
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		if (m == NULL)
			continue;
		ws_cli_print_schema(&c, m);
		fclose(m);
		while (len > 0 && buf[len - 1] == '\n')
			len--;
		if (i > 0)
			fputc(',', f);
		fwrite(buf, 1, len, f);
		free(buf);
	}
	fputs("]\n", f);
}

/*
 * Take --tool NAME (or --tool=NAME) out of argv, before the options are
 * parsed against that tool's table.  Returns the tool, or -1 with the
 * unknown name in *bad.
 */
static int
pick_tool(int *argc, char **argv, const char **bad, bool *given)
{
	int t = T_WRITE, w = 1;

	*given = false;
	for (int i = 1; i < *argc; i++) {
		const char *name = NULL;

		if (strcmp(argv[i], "--") == 0) {
			while (i < *argc)
				argv[w++] = argv[i++];
			break;
		}
		if (strcmp(argv[i], "--tool") == 0 && i + 1 < *argc)
			name = argv[++i];
		else if (strncmp(argv[i], "--tool=", 7) == 0)
			name = argv[i] + 7;
		if (name == NULL) {
			argv[w++] = argv[i];
			continue;
		}
		*given = true;
		for (t = 0; t < T_COUNT; t++)
			if (strcmp(tools[t]->name, name) == 0)
				break;
		if (t == T_COUNT) {
			*bad = name;
			return -1;
		}
	}
	*argc = w;
	argv[w] = NULL;
	return t;
}

int
ws_cmd_wswrite(int argc, char **argv)
{
	struct ws_cli cli;
	const char *bad = NULL;
	bool tool_given;
	int rc, t;

	t = pick_tool(&argc, argv, &bad, &tool_given);
	rc = ws_cli_parse(&cli, tools[t < 0 ? T_WRITE : t]->cli, argc, argv);
	if (t < 0) {
		rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				  "unknown tool \"%s\" (wswrite serves write_file, "
				  "edit_file, create_directory, move_path and "
				  "delete_path)", bad);
		ws_error_set_hint("wswrite --schema lists them");
	} else if (rc == 0 && cli.action == WS_CLI_SCHEMA && !tool_given) {
		/* One binary, several tools: --schema alone lists them all. */
		int status;

		print_schemas(ws_out());
		status = ws_cli_finish(&cli, 0);
		ws_cli_free(&cli);
		return status;
	}
	return ws_tool_run_cli(tools[t < 0 ? T_WRITE : t], &cli, rc);
}
