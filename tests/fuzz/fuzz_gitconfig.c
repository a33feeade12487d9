/*
 * fuzz_gitconfig - libFuzzer target for the git configuration filter
 * wsrun cleans repositories with (ws/vcs.h).
 *
 * Input: configuration text.  Invariants: no crash, no leak; what the
 * filter writes keeps only allowlisted keys (filtering it again removes
 * nothing) and parses whole; filtered against itself as the old text,
 * nothing is removed unless git could not parse it.  With the routes
 * pinned (a run without network), the first half of the input as the
 * old text: what the clean-up writes, cleaned again against the same
 * old text, stays as it is.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/error.h"
#include "ws/vcs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char *out = NULL, *rm = NULL, *again = NULL, *rm2 = NULL;

	if (ws_gitconfig_filter(text, size, NULL, 0, NULL, NULL, &out, &rm) < 0)
		return 0;
	if (out != NULL) {
		if (ws_gitconfig_filter(out, strlen(out), NULL, 0, NULL, NULL,
					&again, &rm2) == 0 && again != NULL) {
			fprintf(stderr, "filtered text still holds %s\n", rm2);
			abort();
		}
		free(again);
		free(rm2);
		again = rm2 = NULL;
	}
	if (ws_gitconfig_filter(text, size, text, size, NULL, NULL, &again,
				&rm2) == 0 && again != NULL &&
	    (rm2 == NULL || strstr(rm2, "could not read") == NULL)) {
		fprintf(stderr, "an entry that was there before was removed: %s\n",
			rm2 ? rm2 : "?");
		abort();
	}
	free(again);
	free(rm2);
	again = rm2 = NULL;
	{
		char *pout = NULL, *prm = NULL, *prs = NULL, *rs2 = NULL;
		size_t half = size / 2;

		if (ws_gitconfig_clean(text, size, text, half, WS_GITCFG_PIN_ROUTES,
				       &pout, &prm, &prs) == 0 && pout != NULL &&
		    ws_gitconfig_clean(pout, strlen(pout), text, half,
				       WS_GITCFG_PIN_ROUTES, &again, &rm2, &rs2) == 0 &&
		    again != NULL) {
			fprintf(stderr, "cleaned text cleaned again: %s; %s\n",
				rm2 ? rm2 : "-", rs2 ? rs2 : "-");
			abort();
		}
		free(pout);
		free(prm);
		free(prs);
		free(rs2);
	}
	free(again);
	free(rm2);
	free(out);
	free(rm);
	return 0;
}
