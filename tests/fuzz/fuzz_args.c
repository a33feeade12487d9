/*
 * fuzz_args - libFuzzer target for the tools' argument decoding
 * (ws_cli_parse() with each tool's own option table, from the tool table
 * of libws: the very tables the tools and the front ends use).
 *
 * Input: one byte choosing the tool table (wsls, wsread, the five of
 * wswrite, wsgrep, wspath, wsrun), then either (high bit of that byte
 * clear) the JSON text of "--args", or (set) an argument vector, the
 * arguments separated by NUL bytes.  Invariants: no crash, no leak; the
 * result is 0 or a documented refusal (INVALID_ARGUMENT, INVALID_PATH, or
 * out of memory) with a message; a success under --args says so, and
 * every option it set has a value of the option's type; JSON with a key
 * twice in any object is never a success, and ws_json_unique_keys()
 * agrees with a pairwise reference on every JSON text that parses.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/cli.h"
#include "ws/error.h"
#include "ws/tool.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct ws_tool *tools[16];
static size_t ntools;

static void
add(const struct ws_tool_def *t)
{
	if (t != NULL && ntools < sizeof(tools) / sizeof(tools[0]))
		tools[ntools++] = t->cli;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	for (size_t i = 0; i < ws_ntools; i++)
		add(ws_tools[i]);
	add(ws_tool_by_prog("wspath"));
	add(ws_tool_by_name("history"));
	add(ws_tool_by_name("undo"));
	/* The environment must not decide anything. */
	for (const char *const *v = (const char *const[]){"WS_ROOT", "WS_POLICY",
		"WS_CONFIG", "WS_MOUNTS", "WS_FORMAT", "WS_PATHS", "WS_STRICT",
		"WS_ALLOW_OUTSIDE", "WS_CEILINGS", NULL}; *v; v++)
		unsetenv(*v);
	return 0;
}

static void
check(const struct ws_tool *t, const struct ws_cli *cli, int rc, bool args)
{
	if (rc != 0 && rc != WS_EINVALID_ARGUMENT && rc != WS_EINVALID_PATH &&
	    rc != WS_ENOMEM) {
		fprintf(stderr, "%s: undocumented code %d\n", t->prog, rc);
		abort();
	}
	if (rc != 0 && (ws_error_last() == NULL || !ws_error_last()[0])) {
		fprintf(stderr, "%s: a refusal without a message\n", t->prog);
		abort();
	}
	if (rc != 0 || cli->action != WS_CLI_RUN)
		return;
	if (args && !cli->from_args) {
		fprintf(stderr, "%s: --args accepted but not recorded\n", t->prog);
		abort();
	}
	for (size_t i = 0; i < t->nopts; i++) {
		const struct ws_optval *v = &cli->vals[i];

		if (!v->set)
			continue;
		if ((t->opts[i].type == WS_OPT_STR && v->s == NULL && v->json == NULL) ||
		    (t->opts[i].type == WS_OPT_LIST && v->n > 0 && v->list == NULL)) {
			fprintf(stderr, "%s: --%s set without a value\n", t->prog,
				t->opts[i].name);
			abort();
		}
	}
	for (size_t i = 0; i < cli->npos; i++)
		if (cli->pos[i] == NULL)
			abort();
}

/* The reference: an object anywhere in v with a key twice, pair by pair. */
static bool
repeated(const cJSON *v)
{
	const cJSON *a, *b;

	cJSON_ArrayForEach(a, v) {
		if (cJSON_IsObject(v))
			for (b = a->next; b != NULL; b = b->next)
				if (strcmp(a->string, b->string) == 0)
					return true;
		if (repeated(a))
			return true;
	}
	return false;
}

/* Repeated keys: refused by --args, and the checker agrees. */
static void
check_repeats(const char *text, int rc)
{
	cJSON *j = cJSON_ParseWithOpts(text, NULL, 1);
	bool rep;

	if (j == NULL)
		return;
	rep = repeated(j);
	if (rep && rc == 0) {
		fprintf(stderr, "a key twice, and --args accepted it\n");
		abort();
	}
	if (rep != (ws_json_unique_keys(j, true) == WS_EINVALID_ARGUMENT)) {
		fprintf(stderr, "ws_json_unique_keys() disagrees: %d\n", rep);
		abort();
	}
	cJSON_Delete(j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct ws_tool *t;
	struct ws_cli cli;
	char **argv;
	char *buf;
	int argc = 0, rc;
	bool args;

	if (size < 1)
		return 0;
	t = tools[(data[0] & 0x7f) % ntools];
	args = !(data[0] & 0x80);
	buf = malloc(size);
	if (buf == NULL)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	argv = calloc(size + 3, sizeof(*argv));
	argv[argc++] = (char *)t->prog;
	if (args) {
		argv[argc++] = (char *)"--args";
		argv[argc++] = buf;
	} else {
		for (char *p = buf; p < buf + size - 1; p += strlen(p) + 1)
			argv[argc++] = p;
	}
	memset(&cli, 0, sizeof(cli));
	rc = ws_cli_parse(&cli, t, argc, argv);
	check(t, &cli, rc, args);
	if (args)
		check_repeats(buf, rc);
	ws_cli_free(&cli);
	free(argv);
	free(buf);
	return 0;
}
