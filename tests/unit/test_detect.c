/*
 * test_detect.c - project-root detection: the seed's examples and its
 * table of edge cases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wstest.h"
#include "ws/detect.h"
#include "ws/error.h"

static char *tmp;

static void
setup(void)
{
	tmp = wst_tmpdir();
}

static void
teardown(void)
{
	wst_rmrf(tmp);
	free(tmp);
}

static char *
P(const char *rel)
{
	return wst_path(tmp, rel);
}

/* The seed's monorepo: go.mod below, .git above the workspace. */
static void
monorepo(void)
{
	wst_mkdir(tmp, "home/eran/work/monorepo/.git");
	wst_write(tmp, "home/eran/work/monorepo/services/api/go.mod", "module api\n");
	wst_mkdir(tmp, "home/eran/work/monorepo/services/api/cmd");
}

START_TEST(seed_monorepo)
{
	struct ws_roots r;
	char *ws, *api, *mono;

	monorepo();
	ws = P("home/eran/work/monorepo/services/api/cmd");
	api = P("home/eran/work/monorepo/services/api");
	mono = P("home/eran/work/monorepo");
	ck_assert_int_eq(ws_detect(ws, NULL, &r), 0);
	ck_assert_str_eq(r.project_root, api);
	ck_assert_str_eq(r.git_root, mono);
	ck_assert_str_eq(r.marker, "go.mod");
	ck_assert_str_eq(r.workspace, ws);
	ck_assert(r.detected);
	ck_assert_ptr_null(r.stopped_at);
	ws_roots_free(&r);
	free(ws);
	free(api);
	free(mono);
}
END_TEST

START_TEST(seed_same_dir)
{
	/* The data-flow example: go.mod and .git in one directory. */
	struct ws_roots r;
	char *ws, *root;

	wst_mkdir(tmp, "agentsh/.git");
	wst_write(tmp, "agentsh/go.mod", "module x\n");
	wst_mkdir(tmp, "agentsh/cmd");
	ws = P("agentsh/cmd");
	root = P("agentsh");
	ck_assert_int_eq(ws_detect(ws, NULL, &r), 0);
	ck_assert_str_eq(r.project_root, root);
	ck_assert_str_eq(r.git_root, root);
	ws_roots_free(&r);
	free(ws);
	free(root);
}
END_TEST

START_TEST(seed_non_project)
{
	struct ws_roots r;
	char *ws = P("scratch");

	wst_mkdir(tmp, "scratch");
	ck_assert_int_eq(ws_detect(ws, NULL, &r), 0);
	ck_assert_str_eq(r.project_root, ws);
	ck_assert_ptr_null(r.git_root);
	ck_assert_ptr_null(r.marker);
	ws_roots_free(&r);
	free(ws);
}
END_TEST

START_TEST(git_only_project_is_git_root)
{
	/* No language marker: PROJECT_ROOT is GIT_ROOT (DESIGN.md 6). */
	struct ws_roots r;
	char *ws = P("repo/sub/dir"), *repo = P("repo");

	wst_mkdir(tmp, "repo/.git");
	wst_mkdir(tmp, "repo/sub/dir");
	ck_assert_int_eq(ws_detect(ws, NULL, &r), 0);
	ck_assert_str_eq(r.project_root, repo);
	ck_assert_str_eq(r.git_root, repo);
	ck_assert_ptr_null(r.marker);
	ws_roots_free(&r);
	free(ws);
	free(repo);
}
END_TEST

START_TEST(edge_git_file_worktree)
{
	struct ws_roots r;
	char *ws = P("wt/src"), *wt = P("wt");

	wst_write(tmp, "wt/.git", "gitdir: /elsewhere/.git/worktrees/wt\n");
	wst_mkdir(tmp, "wt/src");
	ck_assert_int_eq(ws_detect(ws, NULL, &r), 0);
	ck_assert_str_eq(r.git_root, wt);
	ck_assert_str_eq(r.project_root, wt);
	ws_roots_free(&r);
	free(ws);
	free(wt);
}
END_TEST

START_TEST(edge_missing_workspace)
{
	struct ws_roots r;
	char *ws = P("nope");

	ck_assert_int_eq(ws_detect(ws, NULL, &r), WS_EWORKSPACE_NOT_FOUND);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "workspace does not exist"));
	ck_assert_ptr_null(r.project_root);
	free(ws);
	/* A file is no workspace either. */
	wst_write(tmp, "file", "x");
	ws = P("file");
	ck_assert_int_eq(ws_detect(ws, NULL, &r), WS_EWORKSPACE_NOT_FOUND);
	free(ws);
}
END_TEST

/*
 * The permission boundary.  Tests run as root, where no directory is
 * unreadable, so a probe stands in for fstatat(): it fails (EACCES) at one
 * directory and asks the real filesystem elsewhere.
 */
struct fence {
	const char *deny;
	int calls_above; /* probes above the fence: there must be none */
};

static int
fenced_probe(const char *dir, const char *marker, void *arg)
{
	struct fence *f = arg;
	char *p;
	struct stat st;
	int r;

	if (strcmp(dir, f->deny) == 0)
		return -1;
	if (strlen(dir) < strlen(f->deny))
		f->calls_above++;
	if (asprintf(&p, "%s/%s", dir, marker) < 0)
		return 0;
	r = lstat(p, &st) == 0;
	free(p);
	return r;
}

START_TEST(edge_permission_boundary)
{
	struct fence f = {0};
	struct ws_detect_opts o = {0};
	struct ws_roots r;
	char *ws = P("a/b/c"), *fence = P("a");

	/* Markers above the boundary must not be seen. */
	wst_mkdir(tmp, ".git");
	wst_write(tmp, "go.mod", "module top\n");
	wst_mkdir(tmp, "a/b/c");
	f.deny = fence;
	o.probe = fenced_probe;
	o.probe_arg = &f;
	ck_assert_int_eq(ws_detect(ws, &o, &r), 0);
	ck_assert_str_eq(r.project_root, ws);
	ck_assert_ptr_null(r.git_root);
	ck_assert_str_eq(r.stopped_at, fence);
	ck_assert_int_eq(f.calls_above, 0);
	ws_roots_free(&r);
	free(ws);
	free(fence);
}
END_TEST

START_TEST(edge_permission_boundary_keeps_deeper)
{
	/* What was found below the boundary stands: the deepest accessible. */
	struct fence f = {0};
	struct ws_detect_opts o = {0};
	struct ws_roots r;
	char *ws = P("a/b/c"), *b = P("a/b"), *fence = P("a");

	wst_write(tmp, "a/b/package.json", "{}");
	wst_mkdir(tmp, "a/b/c");
	wst_mkdir(tmp, ".git");
	f.deny = fence;
	o.probe = fenced_probe;
	o.probe_arg = &f;
	ck_assert_int_eq(ws_detect(ws, &o, &r), 0);
	ck_assert_str_eq(r.project_root, b);
	ck_assert_str_eq(r.marker, "package.json");
	ck_assert_ptr_null(r.git_root);
	ck_assert_str_eq(r.stopped_at, fence);
	ws_roots_free(&r);
	free(ws);
	free(b);
	free(fence);
}
END_TEST

START_TEST(edge_symlinked_workspace)
{
	struct ws_roots r;
	char *link, *api, *real;

	monorepo();
	wst_symlink("home/eran/work/monorepo/services/api/cmd", tmp, "ws-link");
	link = P("ws-link");
	api = P("home/eran/work/monorepo/services/api");
	real = P("home/eran/work/monorepo/services/api/cmd");
	ck_assert_int_eq(ws_detect(link, NULL, &r), 0);
	ck_assert_str_eq(r.workspace, real);
	ck_assert_str_eq(r.project_root, api);
	ws_roots_free(&r);
	free(link);
	free(api);
	free(real);
}
END_TEST

START_TEST(stops_at_git_root)
{
	/* A package.json above the repository does not widen the project. */
	struct ws_roots r;
	char *ws = P("home/u/repo/src"), *repo = P("home/u/repo");

	wst_write(tmp, "home/u/package.json", "{}");
	wst_mkdir(tmp, "home/u/repo/.git");
	wst_mkdir(tmp, "home/u/repo/src");
	ck_assert_int_eq(ws_detect(ws, NULL, &r), 0);
	ck_assert_str_eq(r.project_root, repo);
	ck_assert_str_eq(r.git_root, repo);
	ws_roots_free(&r);
	free(ws);
	free(repo);
}
END_TEST

START_TEST(configurable_markers)
{
	const char *const markers[] = {"BUILD.bazel"};
	const char *const with_git[] = {".git", "BUILD.bazel"};
	struct ws_detect_opts o = {markers, 1, NULL, NULL};
	struct ws_roots r;
	char *ws = P("m/x/y"), *m = P("m"), *x = P("m/x");

	wst_mkdir(tmp, "m/.git");
	wst_write(tmp, "m/x/BUILD.bazel", "");
	wst_write(tmp, "m/x/y/go.mod", "module y\n");
	/* go.mod is not a marker now, and without ".git" no git root. */
	ck_assert_int_eq(ws_detect(ws, &o, &r), 0);
	ck_assert_str_eq(r.project_root, x);
	ck_assert_ptr_null(r.git_root);
	ws_roots_free(&r);
	o.markers = with_git;
	o.nmarkers = 2;
	ck_assert_int_eq(ws_detect(ws, &o, &r), 0);
	ck_assert_str_eq(r.project_root, x);
	ck_assert_str_eq(r.git_root, m);
	ws_roots_free(&r);
	free(ws);
	free(m);
	free(x);
}
END_TEST

START_TEST(each_default_marker)
{
	const char *names[] = {"go.mod", "package.json", "Cargo.toml", "pyproject.toml"};

	for (size_t i = 0; i < 4; i++) {
		struct ws_roots r;
		char *rel, *ws, *proj;

		ck_assert_int_ne(asprintf(&rel, "p%zu/%s", i, names[i]), -1);
		wst_write(tmp, rel, "");
		free(rel);
		ck_assert_int_ne(asprintf(&rel, "p%zu/sub", i), -1);
		wst_mkdir(tmp, rel);
		ws = P(rel);
		free(rel);
		ck_assert_int_ne(asprintf(&rel, "p%zu", i), -1);
		proj = P(rel);
		free(rel);
		ck_assert_int_eq(ws_detect(ws, NULL, &r), 0);
		ck_assert_str_eq(r.project_root, proj);
		ck_assert_str_eq(r.marker, names[i]);
		ws_roots_free(&r);
		free(ws);
		free(proj);
	}
}
END_TEST

START_TEST(fifo_is_no_marker)
{
	struct ws_roots r;
	char *ws = P("f/sub");

	wst_mkfifo(tmp, "f/go.mod");
	wst_mkdir(tmp, "f/sub");
	ck_assert_int_eq(ws_detect(ws, NULL, &r), 0);
	ck_assert_str_eq(r.project_root, ws);
	ws_roots_free(&r);
	free(ws);
}
END_TEST

START_TEST(fixed_roots)
{
	struct ws_roots r;
	char *ws = P("w"), *pr = P("proj"), *missing = P("missing");

	wst_mkdir(tmp, "w/.git");
	wst_mkdir(tmp, "proj");
	ck_assert_int_eq(ws_detect_fixed(ws, NULL, &r), 0);
	ck_assert_str_eq(r.project_root, ws);
	ck_assert_ptr_null(r.git_root);
	ck_assert(!r.detected);
	ws_roots_free(&r);
	ck_assert_int_eq(ws_detect_fixed(ws, pr, &r), 0);
	ck_assert_str_eq(r.project_root, pr);
	ck_assert_ptr_null(r.git_root);
	ws_roots_free(&r);
	ck_assert_int_eq(ws_detect_fixed(ws, missing, &r), WS_EINVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "--project-root"));
	free(ws);
	free(pr);
	free(missing);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("detect");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, seed_monorepo);
	tcase_add_test(tc, seed_same_dir);
	tcase_add_test(tc, seed_non_project);
	tcase_add_test(tc, git_only_project_is_git_root);
	tcase_add_test(tc, edge_git_file_worktree);
	tcase_add_test(tc, edge_missing_workspace);
	tcase_add_test(tc, edge_permission_boundary);
	tcase_add_test(tc, edge_permission_boundary_keeps_deeper);
	tcase_add_test(tc, edge_symlinked_workspace);
	tcase_add_test(tc, stops_at_git_root);
	tcase_add_test(tc, configurable_markers);
	tcase_add_test(tc, each_default_marker);
	tcase_add_test(tc, fifo_is_no_marker);
	tcase_add_test(tc, fixed_roots);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
