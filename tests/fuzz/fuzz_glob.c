/*
 * fuzz_glob - libFuzzer target for glob matching.
 *
 * Input: "GLOB\nPATH".  The glob is compiled twice, once with the string
 * comparison fast paths and lazy compilation (as policies use it) and once
 * through PCRE2 alone (the reference: pcre2_pattern_convert's reading of
 * the glob); both must agree on whether it compiles and whether PATH
 * matches.  A glob without metacharacters must match itself.  A third,
 * independent reference is fnmatch(3) with FNM_PATHNAME in the C locale,
 * for globs without "**" (which fnmatch does not know), POSIX classes,
 * collating elements, ranges (corner cases the two read differently) or
 * an escaped "/" (glibc does not match "*\/x" against "a/x").  It tells
 * whether the converter read a glob as the shell would: it would have
 * caught "[\^b]", an escaped caret first in a class, read as "not b".
 */
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/glob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_glob *fast = NULL, *ref = NULL;
	char *buf, *nl, *path;
	int r1, r2, m1, m2;

	buf = strndup((const char *)data, size);
	if (buf == NULL)
		return 0;
	nl = strchr(buf, '\n');
	path = nl ? nl + 1 : buf;
	if (nl)
		*nl = '\0';

	r1 = ws_glob_compile(buf, WS_GLOB_LAZY, &fast, NULL);
	r2 = ws_glob_compile(buf, WS_GLOB_REGEX, &ref, NULL);
	if ((r1 == 0) != (r2 == 0)) {
		fprintf(stderr, "compile disagrees on '%s': %d vs %d\n", buf,
			r1, r2);
		abort();
	}
	if (r1 == 0) {
		m1 = ws_glob_match(fast, path, strlen(path));
		m2 = ws_glob_match(ref, path, strlen(path));
		if (m1 != m2) {
			fprintf(stderr, "match disagrees: '%s' on '%s': %d vs %d\n",
				buf, path, m1, m2);
			abort();
		}
		if (strstr(buf, "**") == NULL && strstr(buf, "[:") == NULL &&
		    strstr(buf, "[.") == NULL && strstr(buf, "[=") == NULL &&
		    strchr(buf, '-') == NULL && strstr(buf, "\\/") == NULL &&
		    (fnmatch(buf, path, FNM_PATHNAME) == 0) != (m1 == 1)) {
			fprintf(stderr, "fnmatch disagrees: '%s' on '%s': %d\n",
				buf, path, m1);
			abort();
		}
		if (strpbrk(buf, "*?[\\") == NULL &&
		    ws_glob_match(fast, buf, strlen(buf)) != 1) {
			fprintf(stderr, "literal '%s' does not match itself\n",
				buf);
			abort();
		}
	}
	ws_glob_free(fast);
	ws_glob_free(ref);
	free(buf);
	return 0;
}
