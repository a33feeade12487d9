/* unit-history: the state directory's name, ids that survive a lost seq
 * file, and the record a write leaves (ws/history.h, issue 22). */
#include "wstest.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ws/history.h"
#include "ws/persist.h"
#include "ws/workspace.h"
#include "ws/write.h"

START_TEST(state_dir_name)
{
	char *a = ws_hist_dir("/st", "/srv/ws"), *b = ws_hist_dir("/st", "/srv/ws");
	char *c = ws_hist_dir("/st", "/srv/ws2");

	/* The same root, the same place; another root, another. */
	ck_assert_str_eq(a, b);
	ck_assert_str_ne(a, c);
	ck_assert_int_eq(strncmp(a, "/st/", 4), 0);
	ck_assert_uint_eq(strlen(a), 4 + 16);
	free(a);
	free(b);
	free(c);
}
END_TEST

/*
 * With neither XDG_STATE_HOME nor HOME (a bare exec), the state lives in
 * the password file's home (read with getpwuid_r: wstools mcp's calls run
 * side by side).
 */
START_TEST(state_dir_without_home)
{
	char *home = ws_passwd_home(), *d, *want = NULL;

	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	d = ws_hist_dir(NULL, "/srv/ws");
	if (home == NULL || home[0] != '/') {
		ck_assert_ptr_null(d);
	} else {
		ck_assert_int_ge(asprintf(&want, "%s%s.local/state/wstools/",
					  home, strcmp(home, "/") == 0 ? "" :
					  "/"), 0);
		ck_assert_ptr_nonnull(d);
		ck_assert_int_eq(strncmp(d, want, strlen(want)), 0);
	}
	free(want);
	free(d);
	free(home);
}
END_TEST

/* Write content to name in ws through the library; the history id. */
static long long
put(struct ws_ctx *ws, const char *name, const char *content)
{
	struct ws_wopts o = {.content = content, .len = strlen(content),
			     .parents = true, .nosync = true};
	struct ws_wresult r = {0};
	long long id;

	ck_assert_int_eq(ws_write(ws, name, &o, &r), 0);
	id = r.history_id;
	ws_wresult_free(&r);
	return id;
}

START_TEST(ids_survive_a_lost_seq)
{
	char *dir = wst_tmpdir(), *wsd = wst_path(dir, "ws"), *st = wst_path(dir, "st");
	struct ws_hist_bounds b = {0, 0, 0};
	struct ws_ctx ws = {0};
	char *hd, *seq;

	wst_mkdir(dir, "ws");
	ck_assert_int_eq(ws_ctx_open(&ws, wsd, 0), 0);
	ck_assert_int_eq(ws_hist_open(&ws, st, &b, "write_file", "cli"), 0);
	ws_hist_nosync(&ws, true);
	ck_assert_int_eq(put(&ws, "a", "1"), 1);
	ck_assert_int_eq(put(&ws, "a", "2"), 2);
	/* A crash lost seq: the journal says where ids are. */
	{
		char *key = ws_hist_root_key(&ws);

		hd = ws_hist_dir(st, key);
		free(key);
	}
	seq = wst_path(hd, "seq");
	ck_assert_int_eq(unlink(seq), 0);
	ck_assert_int_eq(put(&ws, "a", "3"), 3);
	/* A stale seq (an older copy) is found out by the journal's size. */
	wst_write(hd, "seq", "1 10\n");
	ck_assert_int_eq(put(&ws, "b", "4"), 4);
	/* Without a history nothing is recorded. */
	ws_hist_close(&ws);
	ck_assert_int_eq(put(&ws, "c", "5"), 0);
	ws_ctx_close(&ws);
	wst_rmrf(dir);
	free(seq);
	free(hd);
	free(st);
	free(wsd);
	free(dir);
}
END_TEST

/*
 * A recorded change reads no time zone: its time is UTC, and glibc's
 * gmtime_r() and strftime() loaded /etc/localtime (seven system calls a
 * call).  TZ names a zone of its own here; a tzset() would have set
 * tzname[0] from glibc's "GMT" to "WSZ".
 */
START_TEST(recording_reads_no_time_zone)
{
	char *dir = wst_tmpdir(), *wsd = wst_path(dir, "ws"), *st = wst_path(dir, "st");
	struct ws_hist_bounds b = {0, 0, 0};
	struct ws_ctx ws = {0};

	ck_assert_str_eq(tzname[0], "GMT");
	ck_assert_int_eq(setenv("TZ", "WSZ5", 1), 0);
	wst_mkdir(dir, "ws");
	ck_assert_int_eq(ws_ctx_open(&ws, wsd, 0), 0);
	ck_assert_int_eq(ws_hist_open(&ws, st, &b, "write_file", "cli"), 0);
	ws_hist_nosync(&ws, true);
	ck_assert_int_eq(put(&ws, "a", "1"), 1);
	ck_assert_int_eq(put(&ws, "a", "2"), 2);
	ck_assert_str_eq(tzname[0], "GMT");
	ws_hist_close(&ws);
	ws_ctx_close(&ws);
	unsetenv("TZ");
	wst_rmrf(dir);
	free(st);
	free(wsd);
	free(dir);
}
END_TEST

/*
 * A recorded tree delete removes only what its record holds: the table
 * of what was recorded (ws_hist_covers()) knows every entry of a tree
 * large enough to grow it three times, and not a file made or rewritten
 * after the record, neighbours of the recorded inodes (the table keeps
 * runs of consecutive inodes together; issue 22).
 */
START_TEST(covers_what_a_tree_record_holds)
{
	char *dir = wst_tmpdir(), *wsd = wst_path(dir, "ws"), *st = wst_path(dir, "st");
	struct ws_hist_bounds b = {0, 0, 0};
	struct ws_ctx ws = {0};
	char name[64];
	struct stat tst, fst;
	int rfd;

	wst_mkdir(dir, "ws");
	wst_mkdir(wsd, "tree");
	for (int i = 0; i < 15; i++) {
		snprintf(name, sizeof(name), "tree/d%02d", i);
		wst_mkdir(wsd, name);
		for (int j = 0; j < 100; j++) {
			snprintf(name, sizeof(name), "tree/d%02d/f%03d", i, j);
			wst_write(wsd, name, "x");
		}
	}
	ck_assert_int_eq(ws_ctx_open(&ws, wsd, 0), 0);
	ck_assert_int_eq(ws_hist_open(&ws, st, &b, "delete_path", "cli"), 0);
	ws_hist_nosync(&ws, true);
	rfd = open(wsd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(rfd, 0);
	ck_assert_int_eq(fstatat(rfd, "tree", &tst, AT_SYMLINK_NOFOLLOW), 0);
	ck_assert_int_eq(ws_hist_begin(&ws, "delete", rfd, "tree", "/tree",
				       "/tree", &tst, true, -1, NULL, NULL, NULL,
				       NULL), 0);
	for (int i = 0; i < 15; i++) {
		for (int j = 0; j < 100; j++) {
			snprintf(name, sizeof(name), "tree/d%02d/f%03d", i, j);
			ck_assert_int_eq(fstatat(rfd, name, &fst, AT_SYMLINK_NOFOLLOW), 0);
			ck_assert_msg(ws_hist_covers(&ws, &fst), "%s not covered", name);
		}
		snprintf(name, sizeof(name), "tree/d%02d", i);
		ck_assert_int_eq(fstatat(rfd, name, &fst, AT_SYMLINK_NOFOLLOW), 0);
		ck_assert(ws_hist_covers(&ws, &fst));
	}
	/* Made after the record: not covered, whatever its inode. */
	for (int j = 0; j < 100; j++) {
		snprintf(name, sizeof(name), "tree/d07/new%03d", j);
		wst_write(wsd, name, "y");
		ck_assert_int_eq(fstatat(rfd, name, &fst, AT_SYMLINK_NOFOLLOW), 0);
		ck_assert_msg(!ws_hist_covers(&ws, &fst), "%s covered", name);
	}
	/* Rewritten in place after the record: not covered either. */
	wst_write(wsd, "tree/d03/f050", "longer than it was");
	ck_assert_int_eq(fstatat(rfd, "tree/d03/f050", &fst, AT_SYMLINK_NOFOLLOW), 0);
	ck_assert(!ws_hist_covers(&ws, &fst));
	ck_assert_int_gt(ws_hist_end(&ws, 0, rfd, NULL), 0);
	close(rfd);
	ws_hist_close(&ws);
	ws_ctx_close(&ws);
	wst_rmrf(dir);
	free(st);
	free(wsd);
	free(dir);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("history");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, state_dir_name);
	tcase_add_test(tc, state_dir_without_home);
	tcase_add_test(tc, ids_survive_a_lost_seq);
	tcase_add_test(tc, recording_reads_no_time_zone);
	tcase_add_test(tc, covers_what_a_tree_record_holds);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
