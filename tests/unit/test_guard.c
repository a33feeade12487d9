/* test_guard.c - persistence guards and the list of guarded paths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wstest.h"
#include "ws/error.h"
#include "ws/guard.h"
#include "ws/policy.h"
#include "ws/workspace.h"


/* unlink(dir/rel). */
static int
unlink_at(const char *dir, const char *rel)
{
	char *p = wst_path(dir, rel);
	int r = unlink(p);

	free(p);
	return r;
}

static char *T, *W;
static struct ws_ctx ws;

static void
setup(void)
{
	T = wst_tmpdir();
	W = wst_path(T, "ws");
	wst_mkdir(W, ".git/hooks");
	wst_write(W, ".git/config", "[core]\n");
	wst_write(W, ".bashrc", "#\n");
	wst_mkdir(W, ".git/modules/a/hooks");
	wst_mkdir(W, "src");
	ck_assert_int_eq(ws_ctx_open(&ws, W, 0), 0);
}

static void
teardown(void)
{
	ws_ctx_close(&ws);
	wst_rmrf(T);
	free(T);
	free(W);
}

/* Whether real (relative to W) is guarded, and by which pattern. */
static bool
hit(const char *rel, bool anc, const char **pat)
{
	char *p = wst_path(W, rel);
	bool h = ws_guard_persist_match(&ws, p, anc, pat);

	free(p);
	return h;
}

START_TEST(defaults_match)
{
	const char *pat = NULL;

	ck_assert(hit(".git/hooks", false, &pat));
	ck_assert_str_eq(pat, ".git/hooks/");
	ck_assert(hit(".git/hooks/pre-commit", false, NULL));
	ck_assert(hit(".git/config", false, NULL));
	ck_assert(hit(".git/modules/a/b/hooks/x", false, NULL));
	ck_assert(hit(".vscode", false, NULL));
	ck_assert(hit(".vscode/a/b", false, NULL));
	ck_assert(hit(".bashrc", false, NULL));
	ck_assert(!hit("src/.bashrc", true, NULL));
	ck_assert(!hit("src", true, NULL));
	/* A directory that may hold a guard: only for rename and delete. */
	wst_write(W, "src/x", "file");
	ck_assert(!hit("src/x", true, NULL));
	/* Everything in a repository's own directory, at any depth, and
	 * the ".git" entry itself (issue 18, 1). */
	ck_assert(hit(".git/config.lock", false, &pat));
	ck_assert_str_eq(pat, "**/.git/");
	ck_assert(hit(".git/objects/ab", true, NULL));
	ck_assert(hit(".git/index", true, NULL));
	ck_assert(hit(".git/commondir", false, NULL));
	ck_assert(hit(".git/worktrees/x/gitdir", false, NULL));
	ck_assert(hit(".git", false, NULL));
	ck_assert(hit("vendor/lib/.git/config", false, NULL));
	ck_assert(hit("vendor/lib/.git", false, NULL));
	ck_assert(hit("a/.hg/hgrc", false, &pat));
	ck_assert_str_eq(pat, "**/.hg/");
	ck_assert(hit("a/.jj/repo/config.toml", false, &pat));
	ck_assert_str_eq(pat, "**/.jj/");
	ck_assert(hit("b/.sl/config", false, &pat));
	ck_assert_str_eq(pat, "**/.sl/");
	ck_assert(hit("a/b/.envrc", false, &pat));
	ck_assert_str_eq(pat, "**/.envrc");
	/* A name that only looks like one is free; .envrc guards no
	 * directory below it. */
	ck_assert(!hit("a/x.git/config", false, NULL));
	ck_assert(!hit("a/.github/workflows/ci.yml", false, NULL));
	ck_assert(!hit("a/.envrc.d/x", false, NULL));
	/* A directory holding a repository moves or goes as a whole. */
	wst_mkdir(W, "vendor/lib/.git");
	ck_assert(!hit("vendor", true, NULL));
	ck_assert(!hit("vendor/lib", true, NULL));
	/* The workspace itself is not a guard (the anchor guards cover it). */
	ck_assert(!ws_guard_persist_match(&ws, W, true, NULL));
}
END_TEST

START_TEST(configured_list)
{
	const char *const mine[] = {"build.sh", "secrets/", "*/keys/**"};

	ck_assert_int_eq(ws_ctx_set_guarded(&ws, mine, 3), 0);
	ck_assert(!hit(".bashrc", true, NULL));
	ck_assert(hit("build.sh", false, NULL));
	ck_assert(hit("secrets/x/y", false, NULL));
	ck_assert(hit("a/keys/k", false, NULL));
	/* "a" may be a directory holding a/keys/k: for rename and delete,
	 * it is guarded if it is one. */
	wst_write(W, "a", "file");
	ck_assert(!hit("a", true, NULL));
	ck_assert(hit("b", true, NULL)); /* not there: may become a directory */
	unlink_at(W, "a");
	wst_mkdir(W, "a");
	ck_assert(hit("a", true, NULL));
	ck_assert(!hit("a", false, NULL));
	ck_assert(!hit("a/b/keys/k", false, NULL));
	ck_assert_int_eq(ws_ctx_set_guarded(&ws, NULL, 0), 0);
	ck_assert(!hit(".git/config", true, NULL));
	{
		const char *const bad[] = {"/abs"}, *const bad2[] = {"a/[b"};

		ck_assert_int_eq(ws_ctx_set_guarded(&ws, bad, 1), WS_EINVALID_ARGUMENT);
		ck_assert_int_eq(ws_ctx_set_guarded(&ws, bad2, 1), WS_EINVALID_ARGUMENT);
	}
}
END_TEST

/* Whether the list holds W/rel with kind k. */
static bool
listed(const struct ws_guarded *v, size_t n, const char *dir, const char *rel,
       enum ws_guard_kind k)
{
	char *p = rel ? wst_path(dir, rel) : strdup(dir);
	bool f = false;

	for (size_t i = 0; i < n && !f; i++)
		f = strcmp(v[i].real, p) == 0 && v[i].kind == k;
	free(p);
	return f;
}

START_TEST(list_existing)
{
	struct ws_guarded *v;
	size_t n;
	char *spec = NULL, *pol = wst_path(T, "cfg/policy.json");

	wst_write(T, "skills/.envrc", "x\n");
	wst_symlink(".bashrc", W, ".profile");
	ck_assert(asprintf(&spec, "/.skills=%s/skills", T) > 0);
	ck_assert_int_eq(ws_ctx_add_mount(&ws, spec), 0);
	wst_write(T, "cfg/policy.json", "{}");
	ck_assert_int_eq(ws_ctx_guard(&ws, pol), 0);
	ck_assert_int_eq(ws_guarded_list(&ws, &v, &n), 0);
	ck_assert(listed(v, n, W, ".git/hooks", WS_GUARD_PERSIST));
	ck_assert(listed(v, n, W, ".git/config", WS_GUARD_PERSIST));
	ck_assert(listed(v, n, W, ".git/modules/a/hooks", WS_GUARD_PERSIST));
	ck_assert(listed(v, n, W, ".bashrc", WS_GUARD_PERSIST));
	ck_assert(listed(v, n, W, ".profile", WS_GUARD_PERSIST));
	ck_assert(listed(v, n, T, "skills/.envrc", WS_GUARD_PERSIST));
	ck_assert(listed(v, n, T, "cfg/policy.json", WS_GUARD_OWN));
	ck_assert(listed(v, n, W, NULL, WS_GUARD_ANCHOR));
	ck_assert(listed(v, n, T, "skills", WS_GUARD_ANCHOR));
	ck_assert(!listed(v, n, W, ".vscode", WS_GUARD_PERSIST));
	ck_assert(!listed(v, n, W, "src", WS_GUARD_PERSIST));
	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(v[i].what);
		if (strcmp(v[i].real, W) != 0 && v[i].kind == WS_GUARD_PERSIST)
			ck_assert(strncmp(v[i].real, T, strlen(T)) == 0);
	}
	ws_guarded_free(v, n);
	free(spec);
	free(pol);
}
END_TEST

/*
 * A glob guard's walk starts below its literal leading components
 * (.git/modules): what it lists is what the walk of the whole workspace
 * listed.  Deeper matches are found, a match among the literal components
 * themselves is listed, a link on the way is not followed (a .git that
 * is a link to another repository's directory), and a "." component
 * ends the literal part (no path the walk sees starts with it).
 */
START_TEST(list_glob_prefix)
{
	const char *pats[] = {".git/modules/**/hooks/", "src/lib/*.pem",
			      "src/lib", "./src/*.key",
			      "lnk/modules/**/hooks/", "src/*/deep/*.pem"};
	struct ws_guarded *v;
	size_t n;

	wst_mkdir(W, ".git/modules/b/modules/c/hooks");
	wst_write(W, "src/lib/a.pem", "x\n");
	wst_write(W, "src/lib/b.txt", "x\n");
	wst_write(W, "src/x/deep/c.pem", "x\n");
	wst_write(W, "top.key", "x\n");
	wst_write(W, "src/s.key", "x\n");
	wst_write(T, "other/modules/d/hooks/h", "x\n");
	{
		char *o = wst_path(T, "other");

		wst_symlink(o, W, "lnk");
		free(o);
	}
	ck_assert_int_eq(ws_ctx_set_guarded(&ws, pats, sizeof(pats) / sizeof(pats[0])), 0);
	ck_assert_int_eq(ws_guarded_list(&ws, &v, &n), 0);
	ck_assert(listed(v, n, W, ".git/modules/a/hooks", WS_GUARD_PERSIST));
	ck_assert(listed(v, n, W, ".git/modules/b/modules/c/hooks", WS_GUARD_PERSIST));
	ck_assert(listed(v, n, W, "src/lib/a.pem", WS_GUARD_PERSIST));
	ck_assert(!listed(v, n, W, "src/lib/b.txt", WS_GUARD_PERSIST));
	ck_assert(listed(v, n, W, "src/lib", WS_GUARD_PERSIST));
	ck_assert(listed(v, n, W, "src/x/deep/c.pem", WS_GUARD_PERSIST));
	for (size_t i = 0; i < n; i++)
		if (v[i].kind == WS_GUARD_PERSIST)
			ck_assert_msg(strncmp(v[i].real, W, strlen(W)) == 0 &&
				      strstr(v[i].real, "other") == NULL &&
				      strstr(v[i].real, ".key") == NULL, "%s", v[i].real);
	ws_guarded_free(v, n);
}
END_TEST

/*
 * A context kept between calls (a library caller, a server) sees a base
 * the environment moved after its first check: the cache of HOME's
 * places was keyed on seven variables of its own, so a CARGO_HOME set
 * later (or RUSTUP_HOME, BASH_ENV, ...) left its places writable.
 */
START_TEST(env_bases_followed)
{
	static const char *const vars[] = {"CARGO_HOME", "NVM_DIR", "BASH_ENV"};
	static const char *const files[] = {"cargo/bin/tool", "nvm/nvm.sh", "benv"};
	char *saved[3];

	for (size_t i = 0; i < 3; i++) {
		const char *v = getenv(vars[i]);

		saved[i] = v != NULL ? strdup(v) : NULL;
		unsetenv(vars[i]);
	}
	wst_write(W, "cargo/bin/tool", "#!/bin/sh\n");
	wst_write(W, "nvm/nvm.sh", "#\n");
	wst_write(W, "benv", "#\n");
	for (size_t i = 0; i < 3; i++) {
		char *p = wst_path(W, files[i]), *base;
		const char *rule = NULL;

		ck_assert_int_eq(ws_check_guards(&ws, WS_OP_WRITE, p, files[i],
						 false, &rule), 0);
		base = wst_path(W, i == 0 ? "cargo" : i == 1 ? "nvm" : "benv");
		setenv(vars[i], base, 1);
		ck_assert_int_eq(ws_check_guards(&ws, WS_OP_WRITE, p, files[i],
						 false, &rule), WS_EPOLICY_DENIED);
		ck_assert_str_eq(rule, "guard:home");
		free(base);
		free(p);
	}
	/* A relative PATH entry is a directory from the current one:
	 * where the caller moved to is part of the key. */
	{
		char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
		char *p = wst_path(W, "bin/tool"), old[4096];
		const char *rule = NULL;

		ck_assert_ptr_nonnull(getcwd(old, sizeof(old)));
		wst_write(W, "bin/tool", "#!/bin/sh\n");
		setenv("PATH", "bin:/usr/bin:/bin", 1);
		ck_assert_int_eq(chdir(T), 0);
		ck_assert_int_eq(ws_check_guards(&ws, WS_OP_WRITE, p, "bin/tool",
						 false, &rule), 0);
		ck_assert_int_eq(chdir(W), 0);
		ck_assert_int_eq(ws_check_guards(&ws, WS_OP_WRITE, p, "bin/tool",
						 false, &rule), WS_EPOLICY_DENIED);
		ck_assert_int_eq(chdir(old), 0);
		if (path != NULL)
			setenv("PATH", path, 1);
		free(path);
		free(p);
	}
	for (size_t i = 0; i < 3; i++) {
		if (saved[i] != NULL)
			setenv(vars[i], saved[i], 1);
		else
			unsetenv(vars[i]);
		free(saved[i]);
	}
	ws_error_clear();
}
END_TEST

static Suite *
guard_suite(void)
{
	Suite *s = suite_create("guard");
	TCase *tc = tcase_create("guard");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, defaults_match);
	tcase_add_test(tc, configured_list);
	tcase_add_test(tc, list_existing);
	tcase_add_test(tc, list_glob_prefix);
	tcase_add_test(tc, env_bases_followed);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(guard_suite)
