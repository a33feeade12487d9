/*
 * fuzz_policy - libFuzzer target for policy parsing.
 *
 * Input: policy text (JSON with comments).  A policy that parses is then
 * asked about a few paths and command lines, so that compiled globs and
 * command patterns run too.  Invariants: no crash, no leak, and a failure
 * is POLICY_ERROR (or out of memory) with a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/error.h"
#include "ws/policy.h"
#include "ws/vars.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = {"/w", "/w/a.c", "/home/u/.ssh/id",
					    "/", "/w/sub/dir/x.json"};
	struct ws_policy *p = NULL;
	struct ws_policy_match m;
	struct ws_vars v;
	char *text;
	int rc;

	text = strndup((const char *)data, size);
	if (text == NULL)
		return 0;
	ws_vars_init(&v);
	ws_vars_set(&v, "PROJECT_ROOT", "/w");
	ws_vars_set(&v, "GIT_ROOT", "/w");
	ws_vars_set(&v, "WORKSPACE", "/w");
	ws_vars_set(&v, "HOME", "/home/u");
	rc = ws_policy_parse(text, "fuzz", &v, &p);
	if (rc == 0) {
		for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++)
			for (int op = 0; op < 4; op++)
				(void)ws_policy_check_file(p, (enum ws_op)op,
							   paths[i], &m);
		(void)ws_policy_check_command(p, "sudo rm -rf /", &m);
		(void)ws_policy_check_command(p, "make test", &m);
		ws_policy_free(p);
	} else if (rc != WS_EPOLICY_ERROR && rc != WS_ENOMEM) {
		fprintf(stderr, "undocumented code %d\n", rc);
		abort();
	} else if (ws_error_last() == NULL || ws_error_last()[0] == '\0') {
		fprintf(stderr, "a refusal without a message\n");
		abort();
	}
	ws_vars_free(&v);
	free(text);
	return 0;
}
