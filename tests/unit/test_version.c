/* unit-version: version tokens change with the file, not with reads. */
#include "wstest.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws/version.h"

START_TEST(token_follows_the_file)
{
	char *dir = wst_tmpdir(), *p = wst_path(dir, "f"), *s;
	char a[WS_VERSION_LEN], b[WS_VERSION_LEN];
	struct stat st;
	struct timespec ts[2];

	wst_write(dir, "f", "one\n");
	ck_assert_int_eq(stat(p, &st), 0);
	ws_version_token(&st, a);
	ck_assert_uint_eq(strlen(a), 16);
	ck_assert(ws_version_matches(&st, a));
	ck_assert(!ws_version_matches(&st, "0000000000000000"));
	ck_assert(!ws_version_matches(&st, NULL));
	/* A read changes nothing. */
	s = wst_slurp(p, NULL);
	free(s);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_str_eq(ws_version_token(&st, b), a);
	/* Same size, same second, another nanosecond: another token. */
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	ts[1].tv_nsec = (ts[1].tv_nsec + 1) % 1000000000;
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_str_ne(ws_version_token(&st, b), a);
	/* Replaced by a new inode with the same content and times. */
	ws_version_token(&st, a);
	wst_write(dir, "g", "one\n");
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	{
		char *g = wst_path(dir, "g");

		ck_assert_int_eq(utimensat(AT_FDCWD, g, ts, 0), 0);
		ck_assert_int_eq(rename(g, p), 0);
		free(g);
	}
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_str_ne(ws_version_token(&st, b), a);
	wst_rmrf(dir);
	free(p);
	free(dir);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("unit-version");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, token_follows_the_file);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
