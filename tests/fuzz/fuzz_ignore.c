/*
 * fuzz_ignore - libFuzzer target for .gitignore parsing and matching
 * (lib/ignore.c).
 *
 * Before fuzzing, every answer real git gave in the recorded corpus
 * (tests/fuzz/ignore_git.txt, made by ignore_record.sh with git
 * check-ignore) is checked: a path is ignored when it, or a directory
 * above it, matches, as a walk that does not enter an ignored directory
 * sees it.  Any disagreement aborts, printing the case.
 *
 * Fuzzed input: ".gitignore text\0path\npath/\n..." (a trailing "/" marks
 * a directory); invariants: no crash, no leak, and the same answer twice;
 * the pattern's first line is also fed to ws_wildmatch() against every
 * path.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/ignore.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef IGNORE_GIT_TXT
#define IGNORE_GIT_TXT "tests/fuzz/ignore_git.txt"
#endif

/* Whether rel, or a directory above it, is ignored under ig. */
static bool
walk_ignored(const struct ws_ignore *ig, const char *rel, bool is_dir)
{
	char *p = strdup(rel);
	bool r = false;

	if (p == NULL)
		abort();
	for (char *s = strchr(p, '/'); s != NULL && !r; s = strchr(s + 1, '/')) {
		*s = '\0';
		r = ws_ignore_match(ig, p, true);
		*s = '/';
	}
	if (!r)
		r = ws_ignore_match(ig, rel, is_dir);
	free(p);
	return r;
}

/* Check one recorded case: its .gitignore text and its answers. */
static int
check_case(const char *id, const char *text, size_t tlen, char **answers,
	   size_t n)
{
	struct ws_ignore *ig = NULL;
	int bad = 0;

	if (ws_ignore_new(&ig) < 0 || ws_ignore_push_text(ig, "", text, tlen) < 0)
		abort();
	for (size_t i = 0; i < n; i++) {
		/* "path d|f 0|1": the path may hold spaces, the rest not. */
		char *a = answers[i], *sp2 = strrchr(a, ' '), *sp1;
		bool want, got, dir;

		*sp2 = '\0';
		sp1 = strrchr(a, ' ');
		*sp1 = '\0';
		dir = sp1[1] == 'd';
		want = sp2[1] == '1';
		got = walk_ignored(ig, a, dir);
		if (got != want) {
			fprintf(stderr, "case %s: %s%s: git says %s, lib/ignore.c %s\n",
				id, a, dir ? "/" : "", want ? "ignored" : "not ignored",
				got ? "ignored" : "not ignored");
			bad++;
		}
		*sp1 = ' ';
		*sp2 = ' ';
	}
	if (bad)
		fprintf(stderr, "case %s .gitignore:\n%.*s", id, (int)tlen, text);
	ws_ignore_free(ig);
	return bad;
}

/* Check the whole recorded corpus once; abort on any disagreement. */
static void
check_recorded(void)
{
	const char *path = getenv("WS_FUZZ_IGNORE_GIT") ? getenv("WS_FUZZ_IGNORE_GIT")
							: IGNORE_GIT_TXT;
	FILE *f = fopen(path, "r");
	char *line = NULL, *text = NULL, id[32] = "", **ans = NULL;
	size_t cap = 0, tlen = 0, n = 0, acap = 0;
	int bad = 0, cases = 0;
	ssize_t k;

	if (f == NULL) {
		perror(path);
		abort();
	}
	for (;;) {
		k = getline(&line, &cap, f);
		if (k < 0 || strncmp(line, "=== ", 4) == 0) {
			if (id[0]) {
				bad += check_case(id, text ? text : "", tlen, ans, n);
				cases++;
			}
			for (size_t i = 0; i < n; i++)
				free(ans[i]);
			n = 0;
			tlen = 0;
			if (k < 0)
				break;
			snprintf(id, sizeof(id), "%.*s", (int)(k - 5), line + 4);
			continue;
		}
		if (line[k - 1] == '\n')
			line[--k] = '\0';
		if (strncmp(line, "P ", 2) == 0) {
			/* The .gitignore line as written, with its newline. */
			text = realloc(text, tlen + (size_t)k + 1);
			memcpy(text + tlen, line + 2, (size_t)k - 2);
			tlen += (size_t)k - 2;
			text[tlen++] = '\n';
		} else if (strncmp(line, "T ", 2) == 0) {
			if (n == acap)
				ans = realloc(ans, (acap = acap * 2 + 64) * sizeof(*ans));
			ans[n++] = strdup(line + 2);
		}
	}
	fclose(f);
	free(line);
	free(text);
	free(ans);
	if (bad) {
		fprintf(stderr, "%d answers of git disagree with lib/ignore.c\n", bad);
		abort();
	}
	fprintf(stderr, "fuzz_ignore: %d recorded cases agree with git\n", cases);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	check_recorded();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nul = memchr(data, '\0', size);
	size_t tlen = nul ? (size_t)(nul - text) : size;
	struct ws_ignore *ig = NULL;
	char *paths, *save = NULL, *first;
	size_t flen;

	if (ws_ignore_new(&ig) < 0)
		return 0;
	if (ws_ignore_push_text(ig, "", text, tlen) < 0) {
		ws_ignore_free(ig);
		return 0;
	}
	paths = nul ? strndup(nul + 1, size - tlen - 1) : strdup("a\nb/\na/b\n");
	flen = memchr(text, '\n', tlen) ? (size_t)((const char *)memchr(text, '\n', tlen) - text)
					: tlen;
	first = strndup(text, flen);
	if (paths == NULL || first == NULL)
		abort();
	for (char *p = strtok_r(paths, "\n", &save); p != NULL;
	     p = strtok_r(NULL, "\n", &save)) {
		size_t l = strlen(p);
		bool dir = l > 1 && p[l - 1] == '/';
		bool a, b;

		if (dir)
			p[l - 1] = '\0';
		/* Match wants a relative path without empty components. */
		if (p[0] == '/' || strstr(p, "//") != NULL)
			continue;
		a = walk_ignored(ig, p, dir);
		b = walk_ignored(ig, p, dir);
		if (a != b)
			abort();
		(void)ws_wildmatch(first, p, false);
		(void)ws_wildmatch(first, p, true);
	}
	free(first);
	free(paths);
	ws_ignore_free(ig);
	return 0;
}
