/*
 * main.c - the main() of each tool's binary, compiled once per tool with
 * -DWS_CMD=ws_cmd_<tool>: the tool itself is a function in cmd/<tool>.c
 * (see cmds.h), which wstools mcp also calls in-process.
 */
#include "cmds.h"

#if defined(WS_MAIN_DETACH_ENVIRON) || defined(WS_MAIN_EXIT_SOON)
#include "ws/run.h"
#endif

int
main(int argc, char **argv)
{
#ifdef WS_MAIN_DETACH_ENVIRON
	/*
	 * First, before any getenv() and before wstools mcp starts its
	 * reading thread: the programs that run commands (wsrun, and
	 * wstools for mcp's run_command) then start the namespace init in
	 * their own memory.  See ws_run_detach_environ().
	 */
	(void)ws_run_detach_environ();
#endif
#ifdef WS_MAIN_EXIT_SOON
	/* One call, then the end: no wait for the namespaces' teardown. */
	ws_run_exit_soon();
#endif
	return WS_CMD(argc, argv);
}
