/*
 * wsread - read a file in the workspace, or a line range of it.
 *
 * LLM tool name read_file.  Plain output is the file's bytes as they are
 * (like cat, with -n like cat -n); JSON gives the content with the line
 * numbers and sizes an agent needs to ask for the next range.  Binary files
 * give metadata only unless --base64, and never reach a terminal raw.
 * The tool itself is on the tool table (lib/tool_read.c).
 */
#include "ws/tool.h"

#include "cmds.h"

int
ws_cmd_wsread(int argc, char **argv)
{
	return ws_tool_main(&ws_tool_read_file, argc, argv);
}
