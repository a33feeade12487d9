/*
 * fuzz_config - libFuzzer target for configuration parsing.
 *
 * Input: configuration text.  Invariants: no crash, no leak; a refusal is
 * INVALID_ARGUMENT (or out of memory) with a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/config.h"
#include "ws/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_config cfg;
	char *text;
	int rc;

	text = strndup((const char *)data, size);
	if (text == NULL)
		return 0;
	ws_config_init(&cfg);
	rc = ws_config_parse(&cfg, text, "fuzz");
	if (rc != 0 && rc != WS_EINVALID_ARGUMENT && rc != WS_ENOMEM) {
		fprintf(stderr, "undocumented code %d\n", rc);
		abort();
	}
	if (rc != 0 && (ws_error_last() == NULL || !ws_error_last()[0])) {
		fprintf(stderr, "a refusal without a message\n");
		abort();
	}
	ws_config_free(&cfg);
	free(text);
	return 0;
}
