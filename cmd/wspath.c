/*
 * wspath - show how a path maps into the workspace, step by step.
 *
 * For people debugging the sandbox: prints the real path a virtual path
 * resolves to (like realpath -m), maps real paths back with --to-virtual,
 * and with --explain traces every step the resolver took.  The tool is
 * on the tool table (lib/tool_path.c).
 */
#include "ws/tool.h"

#include "cmds.h"

int
ws_cmd_wspath(int argc, char **argv)
{
	return ws_tool_main(&ws_tool_wspath, argc, argv);
}
