/* test_path.c - lexical path handling: normalization, containment, limits. */
#include <stdlib.h>
#include <string.h>

#include "wstest.h"
#include "ws/error.h"
#include "ws/path.h"

static char *
norm(const char *p, unsigned flags, int *rc)
{
	char *out = NULL;

	*rc = ws_path_normalize(p, flags, &out);
	return out;
}

START_TEST(normalize_basic)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"", ""},	      {".", ""},	 {"/", "/"},
		{"//", "/"},	      {"a//b", "a/b"},	 {"./a/./b/.", "a/b"},
		{"a/b/..", "a"},      {"a/../b", "b"},	 {"/a/b/../c", "/a/c"},
		{"a/b/", "a/b"},      {"..test", "..test"},
		{"te..st/x", "te..st/x"}, {"...", "..."}, {"a/.../b", "a/.../b"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;
		char *o = norm(cases[i].in, 0, &rc);

		ck_assert_msg(rc == 0, "%s", cases[i].in);
		ck_assert_str_eq(o, cases[i].out);
		free(o);
	}
}
END_TEST

START_TEST(normalize_above_top_is_refused)
{
	/* ".." at the start, the middle and the end: never clamped. */
	static const char *const bad[] = {"..", "../x", "a/../..", "a/../../b",
					  "/..", "/a/../../b", "x/y/../../.."};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc;
		char *o = norm(bad[i], 0, &rc);

		ck_assert_msg(rc == WS_EPATH_OUTSIDE_WORKSPACE, "%s", bad[i]);
		ck_assert_ptr_null(o);
	}
}
END_TEST

START_TEST(normalize_clamp_and_keepdot)
{
	int rc;
	char *o = norm("/../a/../../b", WS_NORM_CLAMP, &rc);

	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(o, "/b");
	free(o);
	o = norm("/a/./b//../c", WS_NORM_KEEPDOT, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(o, "/a/b/../c");
	free(o);
}
END_TEST

START_TEST(within_by_components)
{
	const char *rest;

	ck_assert(ws_path_within("/ws", "/ws", &rest));
	ck_assert_str_eq(rest, "");
	ck_assert(ws_path_within("/ws", "/ws/a/b", &rest));
	ck_assert_str_eq(rest, "a/b");
	/* Sibling prefixes are not inside. */
	ck_assert(!ws_path_within("/ws", "/ws2", NULL));
	ck_assert(!ws_path_within("/ws", "/ws_backup/x", NULL));
	ck_assert(!ws_path_within("/ws", "/ws-evil", NULL));
	ck_assert(!ws_path_within("/ws/a", "/ws", NULL));
	/* The filesystem root contains every absolute path. */
	ck_assert(ws_path_within("/", "/home/kevin/worktrees/assistant", &rest));
	ck_assert_str_eq(rest, "home/kevin/worktrees/assistant");
	ck_assert(ws_path_within("/", "/", &rest));
	ck_assert_str_eq(rest, "");
}
END_TEST

START_TEST(check_limits)
{
	char *p = malloc(5000);

	ck_assert_int_eq(ws_path_check("a/b", 3), 0);
	ck_assert_int_eq(ws_path_check("a\0b", 3), WS_EINVALID_PATH);
	memset(p, 'a', 4096);
	for (int i = 200; i < 4095; i += 200)
		p[i] = '/';
	ck_assert_int_eq(ws_path_check(p, 4095), 0);
	ck_assert_int_eq(ws_path_check(p, 4096), WS_EINVALID_PATH);
	memset(p, 'b', 256);
	ck_assert_int_eq(ws_path_check(p, 255), 0);
	ck_assert_int_eq(ws_path_check(p, 256), WS_EINVALID_PATH);
	free(p);
}
END_TEST

START_TEST(join_and_dotdot)
{
	char *j = ws_path_join("/", "a");

	ck_assert_str_eq(j, "/a");
	free(j);
	j = ws_path_join("/x/", "/a");
	ck_assert_str_eq(j, "/x/a");
	free(j);
	j = ws_path_join("x", "");
	ck_assert_str_eq(j, "x");
	free(j);
	ck_assert(ws_path_has_dotdot("a/../b"));
	ck_assert(ws_path_has_dotdot(".."));
	ck_assert(!ws_path_has_dotdot("..test/te..st/..."));
}
END_TEST

START_TEST(utf8)
{
	ck_assert(ws_utf8_valid("plain", 5));
	ck_assert(ws_utf8_valid("caf\xc3\xa9", 5));
	ck_assert(ws_utf8_valid("\xf0\x9f\x98\x80", 4));
	ck_assert(!ws_utf8_valid("\xff", 1));
	ck_assert(!ws_utf8_valid("\xc3", 1));	     /* truncated */
	ck_assert(!ws_utf8_valid("\xc0\xaf", 2));     /* overlong "/" */
	ck_assert(!ws_utf8_valid("\xed\xa0\x80", 3)); /* surrogate */
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("path");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, normalize_basic);
	tcase_add_test(tc, normalize_above_top_is_refused);
	tcase_add_test(tc, normalize_clamp_and_keepdot);
	tcase_add_test(tc, within_by_components);
	tcase_add_test(tc, check_limits);
	tcase_add_test(tc, join_and_dotdot);
	tcase_add_test(tc, utf8);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
