/*
 * wsrun - run a command confined to the workspace, with a timeout.
 *
 * LLM tool name run_command.  Plain mode streams the command's output as
 * it comes and exits with its status; JSON gives the status, the output
 * (head and tail within --max-output) and what confinement held.  Exit
 * statuses follow timeout(1): 124 timed out, 125 wsrun failed or
 * refused, 126 not executable, 127 not found, 128+N killed by signal N.
 * The tool is on the tool table (lib/tool_run.c).
 */
#include "ws/tool.h"

#include "cmds.h"

int
ws_cmd_wsrun(int argc, char **argv)
{
	return ws_tool_main(&ws_tool_run_command, argc, argv);
}
