/*
 * test_consistency.c - the tools present one view (seed 001): what wswrite
 * writes, wsread reads and wsls lists under the same path, in every input
 * form, with mounts shown where they are mounted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wstest.h"

static char *T, *W, *S, *mnt;

static void
setup(void)
{
	T = wst_tmpdir();
	W = wst_path(T, "threads/thread-123");
	S = wst_path(T, "solven");
	wst_mkdir(T, "threads/thread-123");
	wst_write(T, "solven/skills/system/readme.md", "skill\n");
	if (asprintf(&mnt, "/.solven=%s", S) < 0)
		abort();
}

static void
teardown(void)
{
	wst_rmrf(T);
	free(T);
	free(W);
	free(S);
	free(mnt);
}

static void
tool(struct wst_run *r, const char *stdin_data, const char *name, const char *a1,
     const char *a2, const char *a3)
{
	const char *argv[12];
	int n = 0;

	argv[n++] = "--workspace";
	argv[n++] = W;
	argv[n++] = "--mount";
	argv[n++] = mnt;
	argv[n++] = "--json";
	if (a1)
		argv[n++] = a1;
	if (a2)
		argv[n++] = a2;
	if (a3)
		argv[n++] = a3;
	argv[n] = NULL;
	wst_runv(r, stdin_data, NULL, name, argv);
}

static bool
listed(const struct wst_run *r, const char *name)
{
	cJSON *e;

	cJSON_ArrayForEach(e, wst_output(r, "entries")) {
		cJSON *n = cJSON_GetObjectItem(e, "name");

		if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
			return true;
	}
	return false;
}

START_TEST(write_read_list_in_every_form)
{
	/* Each file is written in one form and read back in the others. */
	static const char *const names[] = {"a.txt", "b.txt", "c.txt", "d.txt"};
	char *forms[4][4];
	struct wst_run r;

	for (int i = 0; i < 4; i++) {
		if (asprintf(&forms[i][0], "sub/%s", names[i]) < 0 ||
		    asprintf(&forms[i][1], "/sub/%s", names[i]) < 0 ||
		    asprintf(&forms[i][2], "%s/sub/%s", W, names[i]) < 0 ||
		    asprintf(&forms[i][3], "sub\\%s", names[i]) < 0)
			abort();
	}
	for (int i = 0; i < 4; i++) {
		char content[64], *disk, *p;

		snprintf(content, sizeof(content), "content %d\n", i);
		tool(&r, content, "wswrite", forms[i][i], NULL, NULL);
		ck_assert_msg(r.status == 0, "%s: %s", forms[i][i], r.out);
		ck_assert_str_eq(wst_output_str(&r, "path"), forms[i][1]);
		wst_run_free(&r);
		/* On disk where the real path says, nowhere else. */
		p = wst_path(W, forms[i][0]);
		disk = wst_slurp(p, NULL);
		ck_assert_ptr_nonnull(disk);
		ck_assert_str_eq(disk, content);
		free(disk);
		free(p);
		for (int f = 0; f < 4; f++) {
			tool(&r, NULL, "wsread", forms[i][f], NULL, NULL);
			ck_assert_msg(r.status == 0, "%s", forms[i][f]);
			ck_assert_str_eq(wst_output_str(&r, "content"), content);
			ck_assert_str_eq(wst_output_str(&r, "path"), forms[i][1]);
			wst_run_free(&r);
		}
	}
	for (int f = 0; f < 4; f++) {
		const char *dir = f == 0 ? "sub" : f == 1 ? "/sub" : f == 3 ? "sub\\" : NULL;
		char *abs = NULL;

		if (dir == NULL) {
			abs = wst_path(W, "sub");
			dir = abs;
		}
		tool(&r, NULL, "wsls", dir, NULL, NULL);
		ck_assert_int_eq(r.status, 0);
		for (int i = 0; i < 4; i++)
			ck_assert_msg(listed(&r, names[i]), "%s lists %s", dir, names[i]);
		wst_run_free(&r);
		free(abs);
	}
	for (int i = 0; i < 4; i++)
		for (int f = 0; f < 4; f++)
			free(forms[i][f]);
}
END_TEST

START_TEST(mount_listed_at_root_and_writable_through_it)
{
	struct wst_run r;
	char *disk, *p;

	tool(&r, "root file\n", "wswrite", "/file.txt", NULL, NULL);
	ck_assert_int_eq(r.status, 0);
	wst_run_free(&r);
	/* ls_info("/"): the workspace entries and the /.solven mount. */
	tool(&r, NULL, "wsls", "-a", "/", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert(listed(&r, "file.txt"));
	ck_assert(listed(&r, ".solven"));
	wst_run_free(&r);
	/* Dot-named mounts are hidden without -a, like any entry. */
	tool(&r, NULL, "wsls", "/", NULL, NULL);
	ck_assert(listed(&r, "file.txt"));
	ck_assert(!listed(&r, ".solven"));
	wst_run_free(&r);
	tool(&r, NULL, "wsls", "/.solven/skills/system", NULL, NULL);
	ck_assert(listed(&r, "readme.md"));
	wst_run_free(&r);
	/* Written through the mount, read back through it, on disk in it. */
	tool(&r, "new skill\n", "wswrite", "/.solven/skills/new.md", NULL, NULL);
	ck_assert_int_eq(r.status, 0);
	wst_run_free(&r);
	tool(&r, NULL, "wsread", ".solven/skills/new.md", NULL, NULL);
	ck_assert_str_eq(wst_output_str(&r, "content"), "new skill\n");
	wst_run_free(&r);
	p = wst_path(S, "skills/new.md");
	disk = wst_slurp(p, NULL);
	ck_assert_ptr_nonnull(disk);
	ck_assert_str_eq(disk, "new skill\n");
	free(disk);
	free(p);
	/* The mount shadows a workspace entry of the same name. */
	wst_write(W, ".solven/skills/new.md", "SHADOWED\n");
	tool(&r, NULL, "wsread", "/.solven/skills/new.md", NULL, NULL);
	ck_assert_str_eq(wst_output_str(&r, "content"), "new skill\n");
	wst_run_free(&r);
}
END_TEST

START_TEST(isolation)
{
	struct wst_run r;
	char *up = wst_path(W, "../..");

	/* ls_info("/mnt/r2/") is a shorthand inside: nothing there. */
	tool(&r, NULL, "wsls", "/mnt/r2/", NULL, NULL);
	ck_assert_str_eq(wst_code(&r), "NOT_FOUND");
	wst_run_free(&r);
	tool(&r, NULL, "wsls", up, NULL, NULL);
	ck_assert_str_eq(wst_code(&r), "PATH_OUTSIDE_WORKSPACE");
	ck_assert_int_eq(r.status, 3);
	wst_run_free(&r);
	tool(&r, "x", "wswrite", "../../escape.txt", NULL, NULL);
	ck_assert_str_eq(wst_code(&r), "PATH_OUTSIDE_WORKSPACE");
	wst_run_free(&r);
	{
		char *esc = wst_path(T, "escape.txt");

		ck_assert(!wst_exists(esc));
		free(esc);
	}
	free(up);
}
END_TEST

/*
 * FTU10 12: a mistyped long option gets a guess in its hint: the one
 * option it begins, or the nearest within two edits (a swap counts one),
 * for every tool and for the common options; none when nothing is near.
 */
START_TEST(unknown_option_guessed)
{
	static const char *const cases[][3] = {
		{"wsls", "--lon", "did you mean --long?"},
		{"wsls", "--recursiv", "did you mean --recursive?"},
		{"wsread", "--workspcae", "did you mean --workspace?"},
		{"wsgrep", "--ignroe-case", "did you mean --ignore-case?"},
		{"wsrun", "--timeuot", "did you mean --timeout?"},
		{"wswrite", "--zzzzzz", NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = {"--json", cases[i][1], "x", NULL};
		struct wst_run r;
		const char *hint;

		wst_runv(&r, NULL, NULL, cases[i][0], argv);
		ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
		hint = cJSON_GetStringValue(cJSON_GetObjectItem(
			cJSON_GetObjectItem(r.json, "error"), "hint"));
		if (cases[i][2] == NULL)
			ck_assert_msg(hint == NULL || strstr(hint, "did you mean") == NULL,
				      "%s: %s", cases[i][1], r.out);
		else
			ck_assert_msg(hint != NULL && strcmp(hint, cases[i][2]) == 0,
				      "%s: %s", cases[i][1], r.out);
		wst_run_free(&r);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("cli-consistency");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, write_read_list_in_every_form);
	tcase_add_test(tc, mount_listed_at_root_and_writable_through_it);
	tcase_add_test(tc, isolation);
	tcase_add_test(tc, unknown_option_guessed);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
