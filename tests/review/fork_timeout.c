/* ws_run in-process (the fork path: environment not detached, as in
 * wstools mcp) with timeouts of 1-4 ms: does the caller survive? */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ws/run.h"
#include "ws/workspace.h"

int
main(int argc, char **argv)
{
	struct ws_ctx ws;
	struct ws_run_opts o;
	struct ws_run_result r;

	memset(&ws, 0, sizeof(ws));
	if (argc > 2)
		ws_run_detach_environ();
	if (ws_ctx_open(&ws, argv[1], 0) < 0)
		return 2;
	for (int i = 0; i < 40; i++) {
		memset(&o, 0, sizeof(o));
		o.timeout_ms = 1 + i % 4;
		o.grace_ms = 10;
		o.max_output = WS_RUN_MAX_OUTPUT_DEFAULT;
		o.stream_out = o.stream_err = -1;
		o.shell = "sleep 5";
		int rc = ws_run(&ws, &o, &r);
		printf("%d rc=%d timed_out=%d status=%d\n", i, rc, r.timed_out, r.status);
		fflush(stdout);
		ws_run_free(&r);
	}
	return 0;
}
