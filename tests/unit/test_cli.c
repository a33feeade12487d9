/* test_cli.c - common options, environment, --args and the option table. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "wstest.h"
#include "ws/cli.h"
#include "ws/error.h"

enum { O_NUM, O_FLAG, O_STR, O_LIST, O_HIDDEN, O_NEG, O_SECS, O_SIZE, O_COUNT };

static const struct ws_opt opts[O_COUNT] = {
	[O_NUM] = {"start-line", 'n', WS_OPT_INT, "N", "a number", 0},
	[O_FLAG] = {"all", 'a', WS_OPT_FLAG, NULL, "a flag", 0},
	[O_STR] = {"sort", 0, WS_OPT_STR, "KEY", "a string", 0},
	[O_LIST] = {"include", 0, WS_OPT_LIST, "GLOB", "a list", 0},
	[O_HIDDEN] = {"number", 'N', WS_OPT_FLAG, NULL, "plain only", WS_OPT_NOSCHEMA},
	[O_NEG] = {"parents", 0, WS_OPT_FLAG, NULL, "negatable", WS_OPT_NEGATABLE},
	[O_SECS] = {"timeout", 0, WS_OPT_SECONDS, "S", "seconds", 0},
	[O_SIZE] = {"memory", 0, WS_OPT_BYTES, "BYTES", "a size", 0},
};

static const struct ws_tool tool = {
	.prog = "wstest", .tool = "test_tool", .description = "A test tool.",
	.usage = "wstest [OPTION]... PATH", .pos_name = "path",
	.pos_help = "a path", .pos_kind = WS_POS_ONE, .opts = opts,
	.nopts = O_COUNT,
};

static int
parse(struct ws_cli *cli, const char *const *args)
{
	char *argv[64];
	int argc = 0;

	argv[argc++] = (char *)"wstest";
	for (size_t i = 0; args[i]; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;
	return ws_cli_parse(cli, &tool, argc, argv);
}

static void
clear_env(void)
{
	static const char *const vars[] = {"WS_ROOT", "WS_MOUNTS", "WS_POLICY",
					   "WS_FORMAT", "WS_PATHS", "WS_STRICT",
					   "WS_ALLOW_OUTSIDE", "WS_CONFIG"};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

START_TEST(argv_forms)
{
	struct ws_cli c;
	const char *a[] = {"-an", "5", "--sort=size", "--include", "*.c",
			   "--include=*.h", "--no-parents", "--workspace", "/tmp",
			   "--mount", "/.s=/tmp:ro", "--json", "--", "-file", NULL};

	clear_env();
	ck_assert_int_eq(parse(&c, a), 0);
	ck_assert(WS_OPT(&c, O_FLAG)->b);
	ck_assert_int_eq(WS_OPT(&c, O_NUM)->i, 5);
	ck_assert_str_eq(WS_OPT(&c, O_STR)->s, "size");
	ck_assert_int_eq((int)WS_OPT(&c, O_LIST)->n, 2);
	ck_assert_str_eq(WS_OPT(&c, O_LIST)->list[1], "*.h");
	ck_assert(WS_OPT(&c, O_NEG)->set && !WS_OPT(&c, O_NEG)->b);
	ck_assert_str_eq(c.workspace, "/tmp");
	ck_assert_int_eq((int)c.nmounts, 1);
	ck_assert(c.json);
	ck_assert_int_eq((int)c.npos, 1);
	ck_assert_str_eq(c.pos[0], "-file");
	ws_cli_free(&c);
	{
		const char *b[] = {"-n7", "x", NULL};

		ck_assert_int_eq(parse(&c, b), 0);
		ck_assert_int_eq(WS_OPT(&c, O_NUM)->i, 7);
		ws_cli_free(&c);
	}
}
END_TEST

START_TEST(argv_errors)
{
	struct ws_cli c;
	const char *unknown[] = {"--frobnicate", "x", NULL};
	const char *notint[] = {"--start-line", "x5", "x", NULL};
	const char *missing[] = {"--sort", NULL};
	const char *two[] = {"a", "b", NULL};
	const char *none[] = {NULL};
	const char *paths[] = {"--paths", "weird", "x", NULL};
	const char *negbad[] = {"--no-all", "x", NULL};

	clear_env();
	ck_assert_int_eq(parse(&c, unknown), WS_EINVALID_ARGUMENT);
	ws_cli_free(&c);
	ck_assert_int_eq(parse(&c, notint), WS_EINVALID_ARGUMENT);
	ws_cli_free(&c);
	ck_assert_int_eq(parse(&c, missing), WS_EINVALID_ARGUMENT);
	ws_cli_free(&c);
	ck_assert_int_eq(parse(&c, two), WS_EINVALID_ARGUMENT);
	ws_cli_free(&c);
	ck_assert_int_eq(parse(&c, none), WS_EINVALID_ARGUMENT);
	ws_cli_free(&c);
	ck_assert_int_eq(parse(&c, paths), WS_EINVALID_ARGUMENT);
	ws_cli_free(&c);
	ck_assert_int_eq(parse(&c, negbad), WS_EINVALID_ARGUMENT);
	ws_cli_free(&c);
}
END_TEST

START_TEST(environment)
{
	struct ws_cli c;
	const char *a[] = {"x", NULL};
	const char *plain[] = {"--plain", "x", NULL};

	clear_env();
	setenv("WS_ROOT", "/srv/ws", 1);
	setenv("WS_FORMAT", "json", 1);
	setenv("WS_STRICT", "1", 1);
	setenv("WS_PATHS", "real", 1);
	setenv("WS_MOUNTS", "/.a=/tmp", 1);
	ck_assert_int_eq(parse(&c, a), 0);
	ck_assert_str_eq(c.workspace, "/srv/ws");
	ck_assert(c.json);
	ck_assert(c.strict);
	ck_assert(!c.allow_outside);
	ck_assert_int_eq(c.paths, WS_PATHS_REAL);
	ck_assert_str_eq(c.env_mounts, "/.a=/tmp");
	ws_cli_free(&c);
	/* A flag wins over the environment. */
	ck_assert_int_eq(parse(&c, plain), 0);
	ck_assert(!c.json);
	ws_cli_free(&c);
	clear_env();
}
END_TEST

/* Seconds with a fraction (kept in ms) and sizes with a suffix. */
START_TEST(units)
{
	static const struct {
		const char *secs;
		long long ms;
	} sv[] = {{"2", 2000}, {"1.5", 1500}, {"0.25", 250}, {"0.001", 1},
		  {"0", 0}, {"0.0000", 0}, {"1.2345", 1235}, {"0.0001", 1},
		  {"2.0000000001", 2001}};
	static const struct {
		const char *size;
		long long b;
	} zv[] = {{"100", 100}, {"1k", 1024}, {"50M", 50LL << 20},
		  {"1G", 1LL << 30}, {"2GiB", 2LL << 30}, {"3T", 3LL << 40},
		  {"4KB", 4096}};
	static const char *const bad_secs[] = {"1e3", "1.", ".5", "-1", "-0.0001",
					       "inf", "nan", "1s", "", " 1", "0x10",
					       "-0"};
	static const char *const bad_size[] = {"1X", "1.5M", "M", "", "1MM",
					       "99999999999999999T", "-", "-1",
					       "-64K"};
	struct ws_cli c;

	clear_env();
	for (size_t i = 0; i < sizeof(sv) / sizeof(sv[0]); i++) {
		const char *a[] = {"--timeout", sv[i].secs, "x", NULL};

		ck_assert_int_eq(parse(&c, a), 0);
		ck_assert_int_eq(WS_OPT(&c, O_SECS)->i, sv[i].ms);
		ws_cli_free(&c);
	}
	for (size_t i = 0; i < sizeof(zv) / sizeof(zv[0]); i++) {
		const char *a[] = {"--memory", zv[i].size, "x", NULL};

		ck_assert_int_eq(parse(&c, a), 0);
		ck_assert_int_eq(WS_OPT(&c, O_SIZE)->i, zv[i].b);
		ws_cli_free(&c);
	}
	for (size_t i = 0; i < sizeof(bad_secs) / sizeof(bad_secs[0]); i++) {
		const char *a[] = {"--timeout", bad_secs[i], "x", NULL};

		ck_assert_msg(parse(&c, a) == WS_EINVALID_ARGUMENT, "%s", bad_secs[i]);
		ws_cli_free(&c);
	}
	for (size_t i = 0; i < sizeof(bad_size) / sizeof(bad_size[0]); i++) {
		const char *a[] = {"--memory", bad_size[i], "x", NULL};

		ck_assert_msg(parse(&c, a) == WS_EINVALID_ARGUMENT, "%s", bad_size[i]);
		ws_cli_free(&c);
	}
	{
		/* --args: a JSON number or a string; the flag is a ceiling. */
		const char *a[] = {"--args", "{\"path\":\"x\",\"timeout\":0.5,"
				   "\"memory\":\"64M\"}", NULL};
		const char *b[] = {"--timeout", "1", "--args",
				   "{\"path\":\"x\",\"timeout\":\"30\"}", NULL};
		const char *bad[] = {"--args", "{\"path\":\"x\",\"timeout\":true}", NULL};

		ck_assert_int_eq(parse(&c, a), 0);
		ck_assert_int_eq(WS_OPT(&c, O_SECS)->i, 500);
		ck_assert_int_eq(WS_OPT(&c, O_SIZE)->i, 64LL << 20);
		ws_cli_free(&c);
		ck_assert_int_eq(parse(&c, b), 0);
		ck_assert_int_eq(WS_OPT(&c, O_SECS)->i, 1000);
		ws_cli_free(&c);
		ck_assert_int_eq(parse(&c, bad), WS_EINVALID_ARGUMENT);
		ws_cli_free(&c);
	}
}
END_TEST

/*
 * The one parser of durations and sizes (issue 18): a positive value
 * never rounds to 0 ("none"), a negative one is refused, strings and
 * JSON numbers read alike, and --args reads them with it.
 */
START_TEST(one_parser)
{
	static const struct {
		double x;
		long long ms;
	} nv[] = {{0, 0}, {0.0001, 1}, {1e-300, 1}, {0.001, 1}, {0.0015, 2},
		  {1.5, 1500}, {2, 2000}, {600, 600000}, {1e9, 1000000000000LL}};
	static const double bad_n[] = {-0.0001, -1, 1e10, 1e300};
	struct ws_cli c;
	long long v;

	clear_env();
	for (size_t i = 0; i < sizeof(nv) / sizeof(nv[0]); i++) {
		ck_assert_int_eq(ws_seconds_from_number(nv[i].x, &v), 0);
		ck_assert_msg(v == nv[i].ms, "%g: %lld", nv[i].x, v);
	}
	for (size_t i = 0; i < sizeof(bad_n) / sizeof(bad_n[0]); i++)
		ck_assert_int_eq(ws_seconds_from_number(bad_n[i], &v),
				 WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_seconds_from_number(-0.0001, &v), WS_EINVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "negative"));
	ck_assert_int_eq(ws_parse_size("64K", &v), 0);
	ck_assert_int_eq(v, 65536);
	ck_assert_int_eq(ws_size_from_number(65536, &v), 0);
	ck_assert_int_eq(v, 65536);
	ck_assert_int_eq(ws_size_from_number(-1, &v), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_size_from_number(1.5, &v), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_parse_seconds("-0.0001", &v), WS_EINVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "negative"));
	{
		/* Under --args: a tiny number, a tiny string, a negative. */
		const char *a[] = {"--args", "{\"path\":\"x\",\"timeout\":0.0001}", NULL};
		const char *b[] = {"--args", "{\"path\":\"x\",\"timeout\":\"0.0001\"}",
				   NULL};
		const char *d[] = {"--args", "{\"path\":\"x\",\"timeout\":-0.0001}", NULL};
		const char *e[] = {"--args", "{\"path\":\"x\",\"memory\":\"-1K\"}", NULL};
		const char *f[] = {"--args", "{\"path\":\"x\",\"memory\":-5}", NULL};

		ck_assert_int_eq(parse(&c, a), 0);
		ck_assert_int_eq(WS_OPT(&c, O_SECS)->i, 1);
		ws_cli_free(&c);
		ck_assert_int_eq(parse(&c, b), 0);
		ck_assert_int_eq(WS_OPT(&c, O_SECS)->i, 1);
		ws_cli_free(&c);
		ck_assert_int_eq(parse(&c, d), WS_EINVALID_ARGUMENT);
		ck_assert_ptr_nonnull(strstr(ws_error_last(), "\"timeout\""));
		ws_cli_free(&c);
		ck_assert_int_eq(parse(&c, e), WS_EINVALID_ARGUMENT);
		ws_cli_free(&c);
		ck_assert_int_eq(parse(&c, f), WS_EINVALID_ARGUMENT);
		ws_cli_free(&c);
	}
}
END_TEST

/* A repeated key in --args is refused, at any depth, naming it. */
START_TEST(args_repeated_keys)
{
	static const char *const bad[] = {
		"{\"path\":\"x\",\"timeout\":1,\"timeout\":0}",
		"{\"path\":\"x\",\"path\":\"y\"}",
		"{\"path\":\"x\",\"include\":[{\"a\":1,\"a\":2}]}",
	};
	struct ws_cli c;

	clear_env();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *a[] = {"--args", bad[i], NULL};

		ck_assert_msg(parse(&c, a) == WS_EINVALID_ARGUMENT, "%s", bad[i]);
		ck_assert_msg(strstr(ws_error_last(), "more than once") != NULL, "%s",
			      ws_error_last());
		ws_cli_free(&c);
	}
}
END_TEST

/*
 * A front end's ceilings (wstools call, MCP) hold the parsed values: a
 * string size above the ceiling, 0, and no value at all with a tool
 * default above it; a flag (the harness's) is left as given.
 */
START_TEST(front_end_ceilings)
{
	static const struct ws_ceiling cl[] = {
		{"test_tool", "timeout", 2000, 60000},
		{"test_tool", "memory", 65536, 1024},
		{"other_tool", "start_line", 1, 1},
	};
	const char *a[] = {"--args", "{\"path\":\"x\",\"memory\":\"1G\","
			   "\"timeout\":\"3\",\"start_line\":7}", NULL};
	const char *b[] = {"--args", "{\"path\":\"x\",\"memory\":0,"
			   "\"timeout\":0}", NULL};
	const char *d[] = {"--args", "{\"path\":\"x\"}", NULL};
	const char *e[] = {"--timeout", "30", "--args", "{\"path\":\"x\"}", NULL};
	const char *f[] = {"--args", "{\"path\":\"x\",\"memory\":\"1K\","
			   "\"timeout\":0.5}", NULL};
	struct ws_cli c;

	clear_env();
	ws_cli_set_ceilings(cl, 3);
	ck_assert_int_eq(parse(&c, a), 0);
	ck_assert_int_eq(WS_OPT(&c, O_SIZE)->i, 65536);
	ck_assert_int_eq(WS_OPT(&c, O_SECS)->i, 2000);
	ck_assert_int_eq(WS_OPT(&c, O_NUM)->i, 7);
	ws_cli_free(&c);
	/* 0 ("none", "all") is the ceiling, as tools/list says. */
	ck_assert_int_eq(parse(&c, b), 0);
	ck_assert_int_eq(WS_OPT(&c, O_SIZE)->i, 65536);
	ck_assert_int_eq(WS_OPT(&c, O_SECS)->i, 2000);
	ws_cli_free(&c);
	ck_assert_int_eq(parse(&c, d), 0);
	ck_assert(WS_OPT(&c, O_SECS)->set);
	ck_assert_int_eq(WS_OPT(&c, O_SECS)->i, 2000);
	ck_assert(!WS_OPT(&c, O_SIZE)->set);
	ws_cli_free(&c);
	ck_assert_int_eq(parse(&c, e), 0);
	ck_assert_int_eq(WS_OPT(&c, O_SECS)->i, 30000);
	ws_cli_free(&c);
	ck_assert_int_eq(parse(&c, f), 0);
	ck_assert_int_eq(WS_OPT(&c, O_SIZE)->i, 1024);
	ck_assert_int_eq(WS_OPT(&c, O_SECS)->i, 500);
	ws_cli_free(&c);
	ws_cli_set_ceilings(NULL, 0);
	/* WS_CEILINGS=1 (wstools call) is the built-in table. */
	setenv("WS_CEILINGS", "1", 1);
	ck_assert_int_eq(parse(&c, a), 0);
	ck_assert_int_eq(WS_OPT(&c, O_SIZE)->i, 1LL << 30);
	ws_cli_free(&c);
	setenv("WS_CEILINGS", "maybe", 1);
	ck_assert_int_eq(parse(&c, a), WS_EINVALID_ARGUMENT);
	ws_cli_free(&c);
	unsetenv("WS_CEILINGS");
}
END_TEST

/*
 * A front end's call (issue 20): the arguments decoded from a parsed
 * tree as --args decodes their text (unknown, repeated and mistyped keys
 * refused, ceilings on the parsed values, the operands checked), the
 * person's settings taken from the front end's own, a flag the front
 * end sets binding the model's value, and U+0001 standing for a NUL.
 */
START_TEST(from_json)
{
	static const struct ws_ceiling cl[] = {{"test_tool", "timeout", 2000, 60000}};
	struct ws_cli base, c;
	const char *b[] = {"--policy", "strict", "--strict", "--mount", "/.d=/tmp",
			   "--paths", "relative", "x", NULL};
	cJSON *args;

	clear_env();
	ck_assert_int_eq(parse(&base, b), 0);
	args = cJSON_Parse("{\"path\":\"a\",\"start_line\":\"3\",\"timeout\":9,"
			   "\"include\":\"*.c\"}");
	ws_cli_set_ceilings(cl, 1);
	ck_assert_int_eq(ws_cli_from_json(&c, &tool, &base, "/ws", args, false), 0);
	ws_cli_set_ceilings(NULL, 0);
	ck_assert_str_eq(c.workspace, "/ws");
	ck_assert_str_eq(c.policy, "strict");
	ck_assert(c.strict && c.json && c.from_args);
	ck_assert_int_eq(c.paths, WS_PATHS_RELATIVE);
	ck_assert_uint_eq(c.nmounts, 1);
	ck_assert_str_eq(c.mounts[0], "/.d=/tmp");
	ck_assert_uint_eq(c.npos, 1);
	ck_assert_str_eq(c.pos[0], "a");
	ck_assert_int_eq(WS_OPT(&c, O_NUM)->i, 3);
	ck_assert_int_eq(WS_OPT(&c, O_SECS)->i, 2000);
	ck_assert_uint_eq(WS_OPT(&c, O_LIST)->n, 1);
	ws_cli_free(&c);
	cJSON_Delete(args);

	/* Refused as --args refuses them, with the same errors. */
	{
		static const char *const bad[][2] = {
			{"{\"path\":\"a\",\"bogus\":1}", "unknown argument \"bogus\""},
			{"{\"path\":\"a\",\"all\":\"yes\"}", "must be a boolean, not a string"},
			{"{\"path\":3}", "argument \"path\" must be a string, not a number"},
			{"{\"path\":\"a\",\"start_line\":2.5}", "must be an integer, not a number with a fraction"},
			{"{\"path\":\"a\",\"include\":[\"x\",1]}", "must be an array of strings, and holds a number"},
			{"{\"path\":\"a\",\"number\":true}", "unknown argument \"number\""},
			{"{\"all\":true}", "missing required argument \"path\""},
			{"{\"path\":\"a\",\"sort\":{\"x\":1,\"x\":2}}", "x"},
			{"[1]", "must be a JSON object"},
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			args = cJSON_Parse(bad[i][0]);
			ck_assert_int_eq(ws_cli_from_json(&c, &tool, NULL, NULL, args,
							  false), WS_EINVALID_ARGUMENT);
			ck_assert_msg(strstr(ws_error_last(), bad[i][1]) != NULL,
				      "%s: %s", bad[i][0], ws_error_last());
			ws_cli_free(&c);
			cJSON_Delete(args);
		}
	}

	/* "\u0000" read as U+0001: a NUL, in a path or in another key. */
	args = cJSON_Parse("{\"path\":\"a\\u0001b\"}");
	ck_assert_int_eq(ws_cli_from_json(&c, &tool, NULL, NULL, args, true),
			 WS_EINVALID_PATH);
	ws_cli_free(&c);
	ck_assert_int_eq(ws_cli_from_json(&c, &tool, NULL, NULL, args, false), 0);
	ws_cli_free(&c);
	cJSON_Delete(args);
	args = cJSON_Parse("{\"path\":\"a\",\"include\":[\"x\\u0001\"]}");
	ck_assert_int_eq(ws_cli_from_json(&c, &tool, NULL, NULL, args, true),
			 WS_EINVALID_ARGUMENT);
	ck_assert_str_eq(ws_error_last(), "argument \"include\" contains a NUL byte");
	ws_cli_free(&c);
	cJSON_Delete(args);

	/* A flag the front end sets binds the model's value (a ceiling). */
	args = cJSON_Parse("{\"path\":\"a\",\"timeout\":90}");
	ck_assert_int_eq(ws_cli_init(&c, &tool, &base, NULL), 0);
	ck_assert_int_eq(ws_cli_set_opt(&c, "timeout", "30"), 0);
	ck_assert_int_eq(ws_cli_set_opt(&c, "nope", NULL), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_cli_apply_json(&c, args, false), 0);
	ck_assert_int_eq(WS_OPT(&c, O_SECS)->i, 30000);
	ws_cli_free(&c);
	cJSON_Delete(args);
	ws_cli_free(&base);
}
END_TEST

/* --schema wins over options that do not parse, not over arguments. */
START_TEST(schema_wins)
{
	struct ws_cli c;
	const char *a[] = {"--start-line", "x5", "--frobnicate", "--schema", NULL};
	const char *b[] = {"--sort", "--schema", "x", NULL};
	const char *d[] = {"--start-line", "x5", "--", "--schema", NULL};

	clear_env();
	ck_assert_int_eq(parse(&c, a), 0);
	ck_assert_int_eq(c.action, WS_CLI_SCHEMA);
	ws_cli_free(&c);
	/* "--schema" here is the value of --sort: an ordinary run. */
	ck_assert_int_eq(parse(&c, b), 0);
	ck_assert_int_eq(c.action, WS_CLI_RUN);
	ck_assert_str_eq(WS_OPT(&c, O_STR)->s, "--schema");
	ws_cli_free(&c);
	ck_assert_int_eq(parse(&c, d), WS_EINVALID_ARGUMENT);
	ws_cli_free(&c);
}
END_TEST

START_TEST(args_json)
{
	struct ws_cli c;
	const char *good[] = {"--args", "{\"path\":\"src/a.c\",\"start_line\":3,"
			      "\"all\":true,\"sort\":\"mtime\",\"include\":[\"*.c\"],"
			      "\"parents\":false}", NULL};
	const char *plain[] = {"--plain", "--args", "{\"path\":\"x\"}", NULL};

	clear_env();
	ck_assert_int_eq(parse(&c, good), 0);
	ck_assert(c.json);
	ck_assert(c.from_args);
	ck_assert_str_eq(c.pos[0], "src/a.c");
	ck_assert_int_eq(WS_OPT(&c, O_NUM)->i, 3);
	ck_assert(WS_OPT(&c, O_FLAG)->b);
	ck_assert_str_eq(WS_OPT(&c, O_STR)->s, "mtime");
	ck_assert_str_eq(WS_OPT(&c, O_LIST)->list[0], "*.c");
	ck_assert(WS_OPT(&c, O_NEG)->set && !WS_OPT(&c, O_NEG)->b);
	ws_cli_free(&c);
	ck_assert_int_eq(parse(&c, plain), 0);
	ck_assert(!c.json);
	ws_cli_free(&c);
}
END_TEST

START_TEST(args_json_errors)
{
	static const struct {
		const char *json;
		int code;
	} t[] = {
		{"{\"path\":\"x\",\"bogus\":1}", WS_EINVALID_ARGUMENT},
		/* Digit strings are numbers; nothing looser is. */
		{"{\"path\":\"x\",\"start_line\":\"three\"}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"start_line\":\" 3\"}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"start_line\":\"3 \"}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"start_line\":\"+3\"}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"start_line\":\"-\"}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"start_line\":\"\"}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"start_line\":\"1e3\"}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"start_line\":\"0x10\"}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"start_line\":\"99999999999999999999\"}",
		 WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"start_line\":1.5}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"start_line\":1e300}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"start_line\":-1e300}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"all\":1}", WS_EINVALID_ARGUMENT},
		{"{\"path\":7}", WS_EINVALID_ARGUMENT},
		{"[\"x\"]", WS_EINVALID_ARGUMENT},
		{"{not json", WS_EINVALID_ARGUMENT},
		/* Plain-only and common options are not LLM arguments. */
		{"{\"path\":\"x\",\"number\":true}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"workspace\":\"/\"}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"allow_outside\":true}", WS_EINVALID_ARGUMENT},
		{"{\"path\":\"x\",\"start-line\":1}", WS_EINVALID_ARGUMENT},
		/* cJSON would cut the string at the NUL: refuse it first. */
		{"{\"path\":\"a\\u0000/../../etc/passwd\"}", WS_EINVALID_PATH},
		{"{\"sort\":\"a\\u0000b\",\"path\":\"x\"}", WS_EINVALID_ARGUMENT},
	};

	clear_env();
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ws_cli c;
		const char *a[] = {"--args", t[i].json, NULL};
		int rc = parse(&c, a);

		ck_assert_msg(rc == t[i].code, "%s: got %s", t[i].json,
			      ws_error_name(rc));
		/* The error must be printable as JSON: the mode is known. */
		ck_assert(c.json);
		ws_cli_free(&c);
	}
}
END_TEST

START_TEST(args_digit_strings)
{
	static const struct {
		const char *json;
		long long want;
	} t[] = {
		{"{\"path\":\"x\",\"start_line\":\"2\"}", 2},
		{"{\"path\":\"x\",\"start_line\":\"-1\"}", -1},
		{"{\"path\":\"x\",\"start_line\":\"007\"}", 7},
		{"{\"path\":\"x\",\"start_line\":\"123456789012345678\"}",
		 123456789012345678LL},
	};

	clear_env();
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ws_cli c;
		const char *a[] = {"--args", t[i].json, NULL};

		ck_assert_msg(parse(&c, a) == 0, "%s: %s", t[i].json,
			      ws_error_last());
		ck_assert(WS_OPT(&c, O_NUM)->set);
		ck_assert_int_eq(WS_OPT(&c, O_NUM)->i, t[i].want);
		ws_cli_free(&c);
	}
}
END_TEST

START_TEST(args_errors_in_keys)
{
	struct ws_cli c;
	const char *unknown[] = {"--args", "{\"path\":\"x\",\"lines\":3}", NULL};
	const char *missing[] = {"--args", "{\"all\":true}", NULL};
	const char *flags[] = {"-a", NULL};
	char *m;

	clear_env();
	/* An unknown key lists the valid ones, in JSON spelling, and no
	 * plain-only option among them. */
	ck_assert_int_eq(parse(&c, unknown), WS_EINVALID_ARGUMENT);
	ck_assert_msg(strstr(ws_error_last(), "\"lines\"") != NULL, "%s",
		      ws_error_last());
	ck_assert_msg(strstr(ws_error_last(), "valid arguments: path, start_line, "
					      "all, sort, include, parents") != NULL,
		      "%s", ws_error_last());
	ck_assert(strstr(ws_error_last(), "number") == NULL);
	ck_assert_ptr_nonnull(ws_error_last_hint());
	ws_cli_free(&c);
	/* Not an object: say what to send. */
	{
		const char *arr[] = {"--args", "[\"x\"]", NULL};

		ck_assert_int_eq(parse(&c, arr), WS_EINVALID_ARGUMENT);
		ck_assert_str_eq(ws_error_last(), "the arguments must be a JSON object");
		ck_assert_str_eq(ws_error_last_hint(), "send the arguments of "
				 "test_tool as one JSON object, such as "
				 "{\"path\": ...}");
		ws_cli_free(&c);
	}
	/* A missing positional is named as the key. */
	ck_assert_int_eq(parse(&c, missing), WS_EINVALID_ARGUMENT);
	ck_assert_str_eq(ws_error_last(), "missing required argument \"path\"");
	ws_cli_free(&c);
	/* Messages of the tool itself: flags become keys under --args only. */
	ck_assert_int_eq(parse(&c, unknown), WS_EINVALID_ARGUMENT);
	m = ws_cli_args_terms(&c, "--start-line must be at least 1; --all, "
				  "--number, --approve, --sort-by, x--all, --");
	ck_assert_str_eq(m, "start_line must be at least 1; all, --number, "
			    "--approve, --sort-by, x--all, --");
	free(m);
	ws_cli_free(&c);
	ck_assert_int_eq(parse(&c, flags), WS_EINVALID_ARGUMENT);
	m = ws_cli_args_terms(&c, "--start-line must be at least 1");
	ck_assert_str_eq(m, "--start-line must be at least 1");
	free(m);
	ws_cli_free(&c);
}
END_TEST

START_TEST(paths_virtual_is_explicit)
{
	struct ws_cli c;
	const char *none[] = {"x", NULL};
	const char *virt[] = {"--paths", "virtual", "x", NULL};

	clear_env();
	ck_assert_int_eq(parse(&c, none), 0);
	ck_assert(!c.paths_set);
	ws_cli_free(&c);
	ck_assert_int_eq(parse(&c, virt), 0);
	ck_assert(c.paths_set);
	ws_cli_free(&c);
	setenv("WS_PATHS", "virtual", 1);
	ck_assert_int_eq(parse(&c, none), 0);
	ck_assert(c.paths_set && c.paths == WS_PATHS_VIRTUAL);
	ws_cli_free(&c);
	unsetenv("WS_PATHS");
}
END_TEST

START_TEST(schema_is_valid)
{
	struct ws_cli c;
	const char *a[] = {"--schema", NULL};
	char *buf = NULL;
	size_t n = 0;
	FILE *f;
	cJSON *j, *fn, *props;

	clear_env();
	ck_assert_int_eq(parse(&c, a), 0);
	ck_assert_int_eq(c.action, WS_CLI_SCHEMA);
	f = open_memstream(&buf, &n);
	ws_cli_print_schema(&c, f);
	fclose(f);
	j = cJSON_Parse(buf);
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "type")->valuestring, "function");
	fn = cJSON_GetObjectItem(j, "function");
	ck_assert_str_eq(cJSON_GetObjectItem(fn, "name")->valuestring, "test_tool");
	props = cJSON_GetObjectItem(cJSON_GetObjectItem(fn, "parameters"), "properties");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(props, "start_line"),
					     "type")->valuestring, "integer");
	ck_assert_ptr_null(cJSON_GetObjectItem(props, "number"));
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(
			 cJSON_GetObjectItem(fn, "parameters"), "required"), 0)->valuestring,
			 "path");
	cJSON_Delete(j);
	free(buf);
	ws_cli_free(&c);
}
END_TEST

START_TEST(show_path)
{
	struct ws_cli c = {0};

	c.paths = WS_PATHS_VIRTUAL;
	ck_assert_str_eq(ws_cli_show_path(&c, "/src/a.c", "/r/src/a.c"), "/src/a.c");
	c.paths = WS_PATHS_RELATIVE;
	ck_assert_str_eq(ws_cli_show_path(&c, "/src/a.c", "/r/src/a.c"), "src/a.c");
	ck_assert_str_eq(ws_cli_show_path(&c, "/", "/r"), ".");
	c.paths = WS_PATHS_REAL;
	ck_assert_str_eq(ws_cli_show_path(&c, "/src/a.c", "/r/src/a.c"), "/r/src/a.c");
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, argv_forms);
	tcase_add_test(tc, argv_errors);
	tcase_add_test(tc, units);
	tcase_add_test(tc, one_parser);
	tcase_add_test(tc, args_repeated_keys);
	tcase_add_test(tc, front_end_ceilings);
	tcase_add_test(tc, schema_wins);
	tcase_add_test(tc, environment);
	tcase_add_test(tc, args_json);
	tcase_add_test(tc, args_json_errors);
	tcase_add_test(tc, args_digit_strings);
	tcase_add_test(tc, args_errors_in_keys);
	tcase_add_test(tc, paths_virtual_is_explicit);
	tcase_add_test(tc, schema_is_valid);
	tcase_add_test(tc, show_path);
	tcase_add_test(tc, from_json);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
