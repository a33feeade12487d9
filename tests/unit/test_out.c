/* test_out.c - the JSON envelope, several results in one, plain errors. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wstest.h"
#include "ws/cli.h"
#include "ws/error.h"

static const struct ws_tool tool = {
	.prog = "wstest", .tool = "test_tool", .description = "t",
	.usage = "wstest PATH", .pos_name = "path", .pos_kind = WS_POS_ANY,
};

/* Run fn with stdout and stderr sent to files; return what each got. */
static void
capture(void (*fn)(void *), void *arg, char **out, char **err)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	int so = dup(1), se = dup(2);

	fflush(stdout);
	fflush(stderr);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	fn(arg);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	for (int i = 0; i < 2; i++) {
		FILE *f = i ? fe : fo;
		long n;
		char *b;

		fseek(f, 0, SEEK_END);
		n = ftell(f);
		rewind(f);
		b = calloc(1, (size_t)n + 1);
		if (fread(b, 1, (size_t)n, f) != (size_t)n)
			abort();
		*(i ? err : out) = b;
		fclose(f);
	}
}

struct failcase {
	struct ws_cli cli;
	int status;
};

static void
do_fail(void *arg)
{
	struct failcase *c = arg;

	ws_error_set(WS_EPATH_OUTSIDE_WORKSPACE, "../../etc/passwd",
		     "resolves outside the workspace");
	c->status = ws_cli_fail(&c->cli, 0);
}

START_TEST(fail_json_and_plain)
{
	struct failcase c = {0};
	char *out, *err;
	cJSON *j, *e;

	c.cli.tool = &tool;
	c.cli.json = true;
	capture(do_fail, &c, &out, &err);
	ck_assert_int_eq(c.status, 3);
	j = cJSON_Parse(out);
	ck_assert_ptr_nonnull(j);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(j, "success")));
	ck_assert_str_eq(cJSON_GetObjectItem(j, "tool")->valuestring, "test_tool");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "output")));
	e = cJSON_GetObjectItem(j, "error");
	ck_assert_str_eq(cJSON_GetObjectItem(e, "code")->valuestring,
			 "PATH_OUTSIDE_WORKSPACE");
	ck_assert_str_eq(cJSON_GetObjectItem(e, "path")->valuestring, "../../etc/passwd");
	ck_assert_str_eq(cJSON_GetObjectItem(e, "message")->valuestring,
			 "../../etc/passwd: resolves outside the workspace");
	ck_assert_str_eq(err, "");
	cJSON_Delete(j);
	free(out);
	free(err);
	/* Plain: one line on stderr, nothing on stdout. */
	c.cli.json = false;
	capture(do_fail, &c, &out, &err);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "wstest: ../../etc/passwd: resolves outside the "
			      "workspace (PATH_OUTSIDE_WORKSPACE)\n");
	free(out);
	free(err);
}
END_TEST

static void
do_fail_extra(void *arg)
{
	struct failcase *c = arg;

	ws_error_set(WS_EPOLICY_DENIED, "/a", "--sort-by denied");
	ws_error_set_policy("read-only", "**", "write");
	ws_error_set_hint("choose --sort-by another way");
	c->status = ws_cli_fail(&c->cli, 0);
}

static void
do_fail_stale(void *arg)
{
	struct failcase *c = arg;

	/* A new error forgets the last one's hint and policy. */
	ws_error_set(WS_EPOLICY_DENIED, "/a", "denied");
	ws_error_set_policy("p", "r", "write");
	ws_error_set_hint("h");
	ws_error_set(WS_ENOT_FOUND, "/b", "gone");
	c->status = ws_cli_fail(&c->cli, 0);
}

START_TEST(fail_hint_and_policy)
{
	static const struct ws_opt o[] = {
		{"sort-by", 0, WS_OPT_STR, "KEY", "k", 0},
	};
	struct ws_tool t2 = tool;
	struct failcase c = {0};
	char *out, *err;
	cJSON *j, *e;

	t2.opts = o;
	t2.nopts = 1;
	c.cli.tool = &t2;
	c.cli.json = true;
	c.cli.from_args = true;
	capture(do_fail_extra, &c, &out, &err);
	ck_assert_int_eq(c.status, 3);
	j = cJSON_Parse(out);
	ck_assert_ptr_nonnull(j);
	e = cJSON_GetObjectItem(j, "error");
	ck_assert_str_eq(cJSON_GetObjectItem(e, "message")->valuestring,
			 "/a: sort_by denied");
	ck_assert_str_eq(cJSON_GetObjectItem(e, "hint")->valuestring,
			 "choose sort_by another way");
	ck_assert_str_eq(cJSON_GetObjectItem(e, "policy")->valuestring, "read-only");
	ck_assert_str_eq(cJSON_GetObjectItem(e, "rule")->valuestring, "**");
	ck_assert_str_eq(cJSON_GetObjectItem(e, "operation")->valuestring, "write");
	cJSON_Delete(j);
	free(out);
	free(err);
	capture(do_fail_stale, &c, &out, &err);
	j = cJSON_Parse(out);
	ck_assert_ptr_nonnull(j);
	e = cJSON_GetObjectItem(j, "error");
	ck_assert_ptr_null(cJSON_GetObjectItem(e, "hint"));
	ck_assert_ptr_null(cJSON_GetObjectItem(e, "policy"));
	ck_assert_ptr_null(cJSON_GetObjectItem(e, "rule"));
	cJSON_Delete(j);
	free(out);
	free(err);
	/* Without --args, a flag stays a flag. */
	c.cli.from_args = false;
	capture(do_fail_extra, &c, &out, &err);
	ck_assert_ptr_nonnull(strstr(out, "\"/a: --sort-by denied\""));
	free(out);
	free(err);
}
END_TEST

static void
do_kreal(void *arg)
{
	struct failcase *c = arg;
	struct ws_jw jw;

	ws_jw_init(&jw, stdout);
	ws_jw_obj(&jw);
	ws_jw_kname(&jw, "path", "/a");
	ws_cli_kreal(&c->cli, &jw, "real_path", "/host/ws/a");
	ws_jw_obj_end(&jw);
}

START_TEST(real_path_left_out)
{
	struct failcase c = {0};
	char *out, *err;

	c.cli.tool = &tool;
	/* The default view still carries real_path (DESIGN.md 2). */
	capture(do_kreal, &c, &out, &err);
	ck_assert_str_eq(out, "{\"path\":\"/a\",\"real_path\":\"/host/ws/a\"}");
	free(out);
	free(err);
	c.cli.paths_set = true;
	capture(do_kreal, &c, &out, &err);
	ck_assert_str_eq(out, "{\"path\":\"/a\"}");
	free(out);
	free(err);
	c.cli.paths = WS_PATHS_REAL;
	capture(do_kreal, &c, &out, &err);
	ck_assert_ptr_nonnull(strstr(out, "/host/ws/a"));
	free(out);
	free(err);
}
END_TEST

struct multicase {
	struct ws_cli cli;
	int fail_second;
	int status;
};

static void
do_multi(void *arg)
{
	struct multicase *c = arg;
	struct ws_multi m;
	struct ws_jw jw;

	ck_assert_int_eq(ws_cli_multi_begin(&m, &jw), 0);
	ws_jw_obj(&jw);
	ws_jw_key(&jw, "results");
	ws_jw_arr(&jw);
	ws_jw_str(&jw, "first");
	if (c->fail_second) {
		ws_error_set(WS_ENOT_FOUND, "b", "no such file");
		ws_cli_multi_fail(&m, WS_ENOT_FOUND, "b");
		ws_error_set(WS_ESYMLINK_LOOP, "c", "loop");
		ws_cli_multi_fail(&m, WS_ESYMLINK_LOOP, "c");
	}
	ws_jw_arr_end(&jw);
	ws_jw_obj_end(&jw);
	c->status = ws_cli_multi_end(&c->cli, &m, false);
}

START_TEST(several_results_in_one_envelope)
{
	struct multicase c = {0};
	char *out, *err;
	cJSON *j;

	c.cli.tool = &tool;
	c.cli.json = true;
	capture(do_multi, &c, &out, &err);
	ck_assert_int_eq(c.status, 0);
	j = cJSON_Parse(out);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "success")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "error")));
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(
				 cJSON_GetObjectItem(j, "output"), "results")), 1);
	cJSON_Delete(j);
	free(out);
	free(err);
	/* The first failure names the envelope's error and the status. */
	c.fail_second = 1;
	c.cli.allow_outside = true;
	capture(do_multi, &c, &out, &err);
	ck_assert_int_eq(c.status, 5);
	j = cJSON_Parse(out);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(j, "success")));
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "error"), "code")
				 ->valuestring, "NOT_FOUND");
	ck_assert_str_eq(cJSON_GetObjectItem(j, "boundary")->valuestring, "off");
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(j, "output"));
	cJSON_Delete(j);
	free(out);
	free(err);
}
END_TEST

static void
do_success(void *arg)
{
	struct ws_cli *cli = arg;
	struct ws_jw jw;

	ws_cli_json_begin(cli, &jw);
	ws_jw_obj(&jw);
	ws_jw_kname(&jw, "path", "/bad\xffname");
	ws_jw_obj_end(&jw);
	ws_cli_json_end(cli, &jw);
}

START_TEST(success_envelope_any_bytes)
{
	struct ws_cli cli = {0};
	char *out, *err;
	cJSON *j, *o;

	cli.tool = &tool;
	cli.json = true;
	capture(do_success, &cli, &out, &err);
	j = cJSON_Parse(out);
	ck_assert_ptr_nonnull(j);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "success")));
	o = cJSON_GetObjectItem(j, "output");
	ck_assert_str_eq(cJSON_GetObjectItem(o, "path_bytes")->valuestring, "L2JhZP9uYW1l");
	ck_assert_ptr_null(cJSON_GetObjectItem(j, "boundary"));
	ck_assert(out[strlen(out) - 1] == '\n');
	cJSON_Delete(j);
	free(out);
	free(err);
}
END_TEST

/* One rule for names shown to a person: control bytes become "?". */
START_TEST(masked_names)
{
	char *m = ws_cli_masked("a\x1b[2J\tb\x7f\xc3\xa9\n", true);
	char buf[64] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	ck_assert_str_eq(m, "a?[2J?b?\xc3\xa9?");
	free(m);
	m = ws_cli_masked("a\x1b" "b", false);
	ck_assert_str_eq(m, "a\x1b" "b");
	free(m);
	ck_assert_ptr_nonnull(f);
	ws_cli_put_text(f, "a\x1b[2J\tb\x7f\xc3\xa9\n", true);
	fclose(f);
	ck_assert_str_eq(buf, "a?[2J?b?\xc3\xa9?");
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("out");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, fail_json_and_plain);
	tcase_add_test(tc, several_results_in_one_envelope);
	tcase_add_test(tc, success_envelope_any_bytes);
	tcase_add_test(tc, masked_names);
	tcase_add_test(tc, fail_hint_and_policy);
	tcase_add_test(tc, real_path_left_out);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
