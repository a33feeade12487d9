/* test_vars.c - ${NAME}, ${NAME:-fallback}: the seed's expansion table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wstest.h"
#include "ws/error.h"
#include "ws/vars.h"

static struct ws_vars vars;

static void
setup(void)
{
	ws_vars_init(&vars);
	ck_assert_int_eq(ws_vars_set(&vars, "PROJECT_ROOT", "/home/eran/work/monorepo/services/api"), 0);
	ck_assert_int_eq(ws_vars_set(&vars, "GIT_ROOT", "/home/eran/work/monorepo"), 0);
	ck_assert_int_eq(ws_vars_set(&vars, "WORKSPACE", "/home/eran/work/monorepo/services/api/cmd"), 0);
	setenv("HOME", "/home/eran", 1);
	unsetenv("WST_UNDEFINED");
	setenv("WST_EMPTY", "", 1);
}

static void
teardown(void)
{
	ws_vars_free(&vars);
}

/* Expand, expecting success; returns the malloc'd result. */
static char *
ok(const char *in, unsigned flags)
{
	char *out = NULL;
	int rc = ws_vars_expand(&vars, in, flags, &out, NULL);

	ck_assert_msg(rc == 0, "%s: %s", in, ws_error_last());
	return out;
}

static void
eq(const char *in, const char *want)
{
	char *out = ok(in, 0);

	ck_assert_str_eq(out, want);
	free(out);
}

/* Expand, expecting POLICY_ERROR with msg in the message and off. */
static void
bad(const char *in, const char *msg, size_t off)
{
	char *out = (char *)"unchanged";
	size_t eo = 999;

	ck_assert_int_eq(ws_vars_expand(&vars, in, 0, &out, &eo), WS_EPOLICY_ERROR);
	ck_assert_ptr_null(out);
	ck_assert_msg(strstr(ws_error_last(), msg) != NULL, "%s: got \"%s\"", in,
		      ws_error_last());
	ck_assert_uint_eq(eo, off);
}

START_TEST(builtins)
{
	eq("${PROJECT_ROOT}/**", "/home/eran/work/monorepo/services/api/**");
	eq("${GIT_ROOT}/**", "/home/eran/work/monorepo/**");
	eq("${WORKSPACE}", "/home/eran/work/monorepo/services/api/cmd");
	eq("a${GIT_ROOT}b${GIT_ROOT}", "a/home/eran/work/monorepob/home/eran/work/monorepo");
}
END_TEST

START_TEST(environment)
{
	eq("${HOME}/.ssh/**", "/home/eran/.ssh/**");
	setenv("TMPDIR", "/var/tmp", 1);
	eq("${TMPDIR:-/tmp}/**", "/var/tmp/**");
	unsetenv("TMPDIR");
	eq("${TMPDIR:-/tmp}/**", "/tmp/**");
}
END_TEST

/* The seed's table of variable expansion errors, row by row. */
START_TEST(seed_undefined_no_fallback)
{
	bad("${WST_UNDEFINED}", "undefined variable: WST_UNDEFINED", 0);
	bad("/x/${WST_UNDEFINED}/y", "undefined variable: WST_UNDEFINED", 3);
}
END_TEST

START_TEST(seed_empty_fallback)
{
	eq("${WST_UNDEFINED:-}", "");
	eq("${WST_UNDEFINED:-}/**", "/**");
}
END_TEST

START_TEST(seed_fallback)
{
	eq("${WST_UNDEFINED:-/fallback}", "/fallback");
	eq("${WST_UNDEFINED:-/fallback}/**", "/fallback/**");
}
END_TEST

START_TEST(seed_git_root_outside_git)
{
	/* Known undefined: the environment cannot define it behind our back. */
	ck_assert_int_eq(ws_vars_set(&vars, "GIT_ROOT", NULL), 0);
	setenv("GIT_ROOT", "/from/env", 1);
	bad("${GIT_ROOT}/**", "undefined variable: GIT_ROOT", 0);
	eq("${GIT_ROOT:-/workspace}/**", "/workspace/**");
	eq("${GIT_ROOT:-}/**", "/**");
	unsetenv("GIT_ROOT");
	ck_assert_ptr_null(ws_vars_get(&vars, "GIT_ROOT"));
}
END_TEST

START_TEST(seed_malformed)
{
	bad("${FOO", "malformed variable reference at offset 0", 0);
	bad("/a/${FOO", "offset 3", 3);
	bad("/a/${FOO:-x", "unterminated", 3);
	bad("${}", "empty variable name", 0);
	bad("x${1A}", "invalid variable name \"1A\"", 1);
	bad("${A-b}", "malformed", 0);
	bad("${A:=b}", "only \":-\"", 0);
	bad("${A B}", "malformed", 0);
	bad("${:-x}", "empty variable name", 0);
}
END_TEST

START_TEST(no_nested_expansion)
{
	bad("${A:-${B}}", "nested expansion", 0);
	bad("${${FOO}}", "nested expansion", 0);
	/* A fallback is taken literally otherwise. */
	eq("${WST_UNDEFINED:-$HOME}", "$HOME");
}
END_TEST

START_TEST(literal_dollars)
{
	eq("/a/$b", "/a/$b");
	eq("/a/$", "/a/$");
	eq("$$", "$$");
	eq("", "");
}
END_TEST

START_TEST(empty_value_takes_fallback)
{
	/* As in bash, ":-" also applies to an empty value... */
	eq("${WST_EMPTY:-/fb}", "/fb");
	/* ...while a plain reference to it is just empty. */
	eq("x${WST_EMPTY}y", "xy");
}
END_TEST

START_TEST(glob_escaping)
{
	char *out;

	ck_assert_int_eq(ws_vars_set(&vars, "PROJECT_ROOT", "/p/a[1]*?"), 0);
	out = ok("${PROJECT_ROOT}/**", WS_VARS_GLOB);
	ck_assert_str_eq(out, "/p/a\\[1\\]\\*\\?/**");
	free(out);
	/* Fallbacks are glob text, written by the policy's author. */
	out = ok("${WST_UNDEFINED:-/t/*}", WS_VARS_GLOB);
	ck_assert_str_eq(out, "/t/*");
	free(out);
}
END_TEST

START_TEST(used_list)
{
	char *out = ok("${HOME}${PROJECT_ROOT}${HOME}${WST_UNDEFINED:-z}", 0);

	free(out);
	ck_assert_uint_eq(vars.nused, 3);
	ck_assert_str_eq(vars.used[0].name, "HOME");
	ck_assert_str_eq(vars.used[0].value, "/home/eran");
	ck_assert_str_eq(vars.used[1].name, "PROJECT_ROOT");
	ck_assert_str_eq(vars.used[2].name, "WST_UNDEFINED");
	ck_assert_str_eq(vars.used[2].value, "z");
	ck_assert(vars.used[2].fallback);
}
END_TEST

START_TEST(names)
{
	ck_assert(ws_vars_name_valid("_A1", 3));
	ck_assert(!ws_vars_name_valid("1A", 2));
	ck_assert(!ws_vars_name_valid("", 0));
	ck_assert(!ws_vars_name_valid("A-B", 3));
	ck_assert_int_eq(ws_vars_set(&vars, "BAD NAME", "x"), WS_EINVALID_ARGUMENT);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("vars");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, builtins);
	tcase_add_test(tc, environment);
	tcase_add_test(tc, seed_undefined_no_fallback);
	tcase_add_test(tc, seed_empty_fallback);
	tcase_add_test(tc, seed_fallback);
	tcase_add_test(tc, seed_git_root_outside_git);
	tcase_add_test(tc, seed_malformed);
	tcase_add_test(tc, no_nested_expansion);
	tcase_add_test(tc, literal_dollars);
	tcase_add_test(tc, empty_value_takes_fallback);
	tcase_add_test(tc, glob_escaping);
	tcase_add_test(tc, used_list);
	tcase_add_test(tc, names);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
