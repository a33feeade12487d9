/*
 * main.c - the main() of each tool's binary, compiled once per tool with
 * -DWS_CMD=ws_cmd_<tool>: the tool itself is a function in cmd/<tool>.c
 * (see cmds.h), which wstools mcp also calls in-process.
 */
#include "cmds.h"

#ifdef WS_MAIN_WSRUN
#include "ws/run.h"
#endif

int
main(int argc, char **argv)
{
#ifdef WS_MAIN_WSRUN
	/* First, before any getenv(): see ws_run_detach_environ(). */
	(void)ws_run_detach_environ();
#endif
	return WS_CMD(argc, argv);
}
