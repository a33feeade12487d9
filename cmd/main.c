/*
 * main.c - the main() of each tool's binary, compiled once per tool with
 * -DWS_CMD=ws_cmd_<tool>: the tool itself is a function in cmd/<tool>.c
 * (see cmds.h), which wstools mcp also calls in-process.
 */
#include "cmds.h"

int
main(int argc, char **argv)
{
	return WS_CMD(argc, argv);
}
