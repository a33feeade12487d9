/*
 * tool_table.c - the tool table (ws/tool.h): every tool a model can
 * call, by name and by program.  In a file of its own, apart from
 * ws_tool_main() (lib/tool.c): a tool's binary links the tools its
 * table names, and wsread, which runs one tool, need not link wsrun's
 * (its network proxy's getaddrinfo() is what a static binary must not
 * reach, meson.build's static_pie).
 */
#include "ws/tool.h"

#include <string.h>

const struct ws_tool_def *const ws_tools[] = {
	&ws_tool_list_directory, &ws_tool_read_file, &ws_tool_write_file,
	&ws_tool_edit_file, &ws_tool_create_directory, &ws_tool_move_path,
	&ws_tool_delete_path,
	&ws_tool_search_files, &ws_tool_run_command,
};
const size_t ws_ntools = sizeof(ws_tools) / sizeof(ws_tools[0]);

const struct ws_tool_def *
ws_tool_by_name(const char *name)
{
	for (size_t i = 0; i < ws_ntools; i++)
		if (strcmp(ws_tools[i]->name, name) == 0)
			return ws_tools[i];
	/* Beside the default set, for a front end that offers them. */
	if (strcmp(name, "history") == 0)
		return &ws_tool_history;
	if (strcmp(name, "undo") == 0)
		return &ws_tool_undo;
	return NULL;
}

const struct ws_tool_def *
ws_tool_by_prog(const char *prog)
{
	for (size_t i = 0; i < ws_ntools; i++)
		if (ws_tools[i]->cli != NULL && strcmp(ws_tools[i]->cli->prog, prog) == 0)
			return ws_tools[i];
	return strcmp(prog, "wspath") == 0 ? &ws_tool_wspath : NULL;
}
