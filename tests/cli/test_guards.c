/*
 * test_guards.c (cli) - no tool call may change the boundary or the rules
 * of a later call (issue 12, DESIGN.md 2 "Guarded entries"): the entries
 * the root's and the mounts' spellings pass through, the project markers
 * and .git that detection reads, and the persistence guards.  Each test
 * runs the attack as a hostile agent would, then checks that the next
 * call's boundary (or roots) is what it was.
 */
#include "wstest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *base;

static void
setup(void)
{
	base = wst_tmpdir();
	umask(022);
}

static void
teardown(void)
{
	wst_rmrf(base);
	free(base);
}

/* Run tool with env (NULL-terminated) and the NULL-terminated argv. */
static void
run_env(struct wst_run *r, const char *const *env, const char *tool,
	const char *const *argv)
{
	wst_runv(r, NULL, env, tool, argv);
}

static void
expect_code(struct wst_run *r, const char *code, int status)
{
	ck_assert_msg(strcmp(wst_code(r), code) == 0 && r->status == status,
		      "expected %s (exit %d), got \"%s\" (exit %d)\nstdout: %s\nstderr: %s",
		      code, status, wst_code(r), r->status, r->out, r->err);
}

/*
 * Issue 12, 1: the mount /.skills is spelled through the link ws/skills;
 * moving another link (to the outside) over it must be refused, and the
 * next call must still see the skills, not the outside.
 */
START_TEST(mount_spelling_move)
{
	char *ws = wst_path(base, "ws"), *skills = wst_path(base, "skills");
	char *outside = wst_path(base, "outside"), *eroot = NULL, *emounts = NULL;
	struct wst_run r;

	wst_mkdir(base, "ws");
	wst_write(base, "outside/secret.txt", "TOPSECRET\n");
	wst_write(base, "skills/howto.md", "howto\n");
	wst_symlink(skills, ws, "skills");
	wst_symlink(outside, ws, "vendor-link");
	ck_assert(asprintf(&eroot, "WS_ROOT=%s", ws) > 0);
	ck_assert(asprintf(&emounts, "WS_MOUNTS=/.skills=%s/skills:ro", ws) > 0);
	{
		const char *env[] = {eroot, emounts, "WS_FORMAT=json", NULL};
		const char *rd1[] = {"vendor-link/secret.txt", NULL};
		const char *mv[] = {"--move", "skills", "-f", "vendor-link", NULL};
		const char *mv2[] = {"--move", "/skills", "--force", "/vendor-link", NULL};
		const char *rd2[] = {"/.skills/secret.txt", NULL};
		const char *rd3[] = {"/.skills/howto.md", NULL};
		const char *del[] = {"--delete", "skills", NULL};
		const char *mvaway[] = {"--move", "skills.bak", "skills", NULL};

		run_env(&r, env, "wsread", rd1);
		expect_code(&r, "SYMLINK_OUTSIDE_WORKSPACE", 3);
		wst_run_free(&r);
		run_env(&r, env, "wswrite", mv);
		expect_code(&r, "POLICY_DENIED", 3);
		ck_assert_msg(strstr(r.out, "spelled through") != NULL, "%s", r.out);
		wst_run_free(&r);
		run_env(&r, env, "wswrite", mv2);
		expect_code(&r, "POLICY_DENIED", 3);
		wst_run_free(&r);
		run_env(&r, env, "wsread", rd2);
		expect_code(&r, "NOT_FOUND", 5);
		wst_run_free(&r);
		run_env(&r, env, "wsread", rd3);
		expect_code(&r, "", 0);
		wst_run_free(&r);
		/* Deleting or moving the link away would make every later call
		 * fail: refused too. */
		run_env(&r, env, "wswrite", del);
		expect_code(&r, "POLICY_DENIED", 3);
		wst_run_free(&r);
		run_env(&r, env, "wswrite", mvaway);
		expect_code(&r, "POLICY_DENIED", 3);
		wst_run_free(&r);
		run_env(&r, env, "wsread", rd3);
		expect_code(&r, "", 0);
		wst_run_free(&r);
	}
	/* The link and the outside are as they were. */
	{
		char buf[4096];
		char *l = wst_path(ws, "skills");
		ssize_t n = readlink(l, buf, sizeof(buf) - 1);

		ck_assert(n > 0);
		buf[n] = '\0';
		ck_assert_str_eq(buf, skills);
		ck_assert(wst_exists(outside));
		free(l);
	}
	free(eroot);
	free(emounts);
	free(ws);
	free(skills);
	free(outside);
}
END_TEST

/*
 * Issue 12, 1, the root variant: WS_ROOT is shared/current, a link into
 * shared/releases, and shared is mounted read-write.  Moving a link over
 * current, deleting it, or moving what it resolves through is refused;
 * writing inside the workspace and elsewhere in the mount is not.
 */
START_TEST(root_spelling_move)
{
	char *shared = wst_path(base, "shared"), *cur = wst_path(shared, "current");
	char *outside = wst_path(base, "outside"), *eroot = NULL, *emounts = NULL;
	struct wst_run r;

	wst_write(shared, "releases/v1/app.txt", "v1\n");
	wst_write(base, "outside/secret.txt", "TOPSECRET\n");
	wst_symlink("releases/v1", shared, "current");
	wst_symlink(outside, shared, "evil");
	ck_assert(asprintf(&eroot, "WS_ROOT=%s", cur) > 0);
	ck_assert(asprintf(&emounts, "WS_MOUNTS=/.shared=%s", shared) > 0);
	{
		const char *env[] = {eroot, emounts, "WS_FORMAT=json", NULL};
		const char *mv[] = {"--move", "/.shared/current", "-f", "/.shared/evil", NULL};
		const char *del[] = {"--delete", "/.shared/current", NULL};
		const char *mvrel[] = {"--move", "/.shared/old", "/.shared/releases", NULL};
		const char *mvv1[] = {"--move", "/.shared/releases/v0", "/.shared/releases/v1", NULL};
		const char *rm[] = {"--delete", "-r", "/.shared/releases", NULL};
		const char *rd[] = {"secret.txt", NULL};
		const char *rd2[] = {"app.txt", NULL};
		const char *w1[] = {"--content", "x", "new.txt", NULL};
		const char *w2[] = {"--content", "x", "/.shared/notes.txt", NULL};
		const char *mvok[] = {"--move", "/.shared/evil2", "/.shared/evil", NULL};

		run_env(&r, env, "wswrite", mv);
		expect_code(&r, "POLICY_DENIED", 3);
		wst_run_free(&r);
		run_env(&r, env, "wswrite", del);
		expect_code(&r, "POLICY_DENIED", 3);
		wst_run_free(&r);
		/* A directory holding the root was refused before (it is an
		 * anchor's ancestor); the link-free chain is guarded now too. */
		run_env(&r, env, "wswrite", mvrel);
		ck_assert_msg(r.status == 2 || r.status == 3, "%s", r.out);
		wst_run_free(&r);
		run_env(&r, env, "wswrite", mvv1);
		ck_assert_msg(r.status == 2 || r.status == 3, "%s", r.out);
		wst_run_free(&r);
		run_env(&r, env, "wswrite", rm);
		ck_assert_msg(r.status == 2 || r.status == 3, "%s", r.out);
		wst_run_free(&r);
		run_env(&r, env, "wsread", rd);
		expect_code(&r, "NOT_FOUND", 5);
		wst_run_free(&r);
		run_env(&r, env, "wsread", rd2);
		expect_code(&r, "", 0);
		wst_run_free(&r);
		/* What is inside the entries stays writable. */
		run_env(&r, env, "wswrite", w1);
		expect_code(&r, "", 0);
		wst_run_free(&r);
		run_env(&r, env, "wswrite", w2);
		expect_code(&r, "", 0);
		wst_run_free(&r);
		run_env(&r, env, "wswrite", mvok);
		expect_code(&r, "", 0);
		wst_run_free(&r);
	}
	ck_assert(wst_exists(cur));
	free(eroot);
	free(emounts);
	free(shared);
	free(cur);
	free(outside);
}
END_TEST

static Suite *
guards_suite(void)
{
	Suite *s = suite_create("cli-guards");
	TCase *tc = tcase_create("anchors");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, mount_spelling_move);
	tcase_add_test(tc, root_spelling_move);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(guards_suite)
