/*
 * walk_cost.c - the walks wsrun makes at its start, alone, for callgrind.
 *
 *   WHAT=p|v|pv walk_cost WORKSPACE [POLICY] [N]
 *
 * p: the policy's mask walk (ws_view_policy(), with POLICY loaded the way
 * wsrun loads it, WORKSPACE and PROJECT_ROOT being the workspace); v: the
 * repositories' walks before and after a command (ws_vcs_snapshot() and
 * ws_vcs_clean()); N times each.  wsrun itself cannot run under valgrind
 * 3.19 (it knows neither Landlock nor clone3), so its walks are measured
 * here, linked with a build's libws:
 *
 *   cc -O2 -Ilib/include -o walk_cost tests/bench/walk_cost.c \
 *      build-release/lib/libws.a $(pkg-config --libs libcjson libpcre2-8) -lpthread
 *   WHAT=p valgrind --tool=callgrind ./walk_cost WS pol.json
 *   WHAT=p strace -c ./walk_cost WS pol.json
 *
 * Prints what the first policy walk masked and made read-only.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/error.h"
#include "ws/policy.h"
#include "ws/sandbox.h"
#include "ws/vars.h"
#include "ws/vcs.h"
#include "ws/view.h"
#include "ws/workspace.h"

int
main(int argc, char **argv)
{
	struct ws_ctx ws;
	struct ws_vars vars;
	struct ws_policy *pol = NULL;
	const char *what = getenv("WHAT") ? getenv("WHAT") : "pv";
	int n = argc > 3 ? atoi(argv[3]) : 1, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: WHAT=p|v|pv walk_cost WORKSPACE [POLICY] [N]\n");
		return 2;
	}
	if (ws_ctx_open(&ws, argv[1], 0) < 0) {
		fprintf(stderr, "%s\n", ws_error_last());
		return 1;
	}
	ws_vars_init(&vars);
	if (ws_vars_set(&vars, "WORKSPACE", ws.anchors[0].real) < 0 ||
	    ws_vars_set(&vars, "PROJECT_ROOT", ws.anchors[0].real) < 0 ||
	    (argc > 2 && argv[2][0] != '\0' &&
	     ws_policy_load(argv[2], NULL, &vars, &pol) < 0)) {
		fprintf(stderr, "%s\n", ws_error_last());
		rc = 1;
		goto out;
	}
	ws.policy = pol;
	for (int i = 0; rc == 0 && i < n; i++) {
		if (strchr(what, 'p') != NULL) {
			struct ws_sandbox_plan plan = {.cwd_fd = -1, .priv_fd = -1};
			struct ws_view_info vi;

			memset(&vi, 0, sizeof(vi));
			if (ws_view_policy(&ws, &plan, &vi, true) < 0) {
				fprintf(stderr, "%s\n", ws_error_last());
				rc = 1;
			} else if (i == 0) {
				printf("masked %zu, read-only %zu\n", vi.masked.n,
				       vi.read_only.n);
			}
			ws_view_info_free(&vi);
			ws_sandbox_plan_free(&plan);
		}
		if (rc == 0 && strchr(what, 'v') != NULL) {
			struct ws_vcs_snap *s = NULL;
			char **items = NULL;
			size_t ni = 0;

			if (ws_vcs_snapshot(&ws, &s) < 0) {
				fprintf(stderr, "%s\n", ws_error_last());
				rc = 1;
				continue;
			}
			ws_vcs_clean(&ws, s, false, &items, &ni);
			for (size_t k = 0; k < ni; k++)
				free(items[k]);
			free(items);
			ws_vcs_snap_free(s);
		}
	}
out:
	ws.policy = NULL;
	ws_policy_free(pol);
	ws_vars_free(&vars);
	ws_ctx_close(&ws);
	return rc;
}
