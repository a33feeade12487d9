/*
 * wsls - list a directory of the workspace (LLM tool list_directory).
 *
 * The listing itself is libws's (ws/list.h: resolved on descriptors,
 * walked without following a symlink, paged); the tool is on the tool
 * table (lib/tool_list.c), which parses the options and prints the
 * entries, as plain lines or JSON under a byte cap.
 */
#include <stdio.h>

#include "ws/tool.h"

#include "cmds.h"

int
ws_cmd_wsls(int argc, char **argv)
{
	static char outbuf[1 << 16];

	/* Only the process's own stdout: a captured stream keeps its
	 * buffer, and this static one serves one call at a time. */
	if (ws_out_is_stdout())
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	return ws_tool_main(&ws_tool_list_directory, argc, argv);
}
