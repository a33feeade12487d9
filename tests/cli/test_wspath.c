/*
 * test_wspath.c - wspath as a user runs it: real paths, --to-virtual,
 * --explain, JSON, exit statuses, and the adversarial cases of the
 * foundation issue through the binary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wstest.h"

static char *T, *W;

static void
setup(void)
{
	char *t;

	T = wst_tmpdir();
	W = wst_path(T, "ws");
	wst_write(T, "ws/src/a.c", "A");
	wst_write(T, "ws2/secret", "S");
	wst_write(T, "skills/s.md", "S");
	wst_symlink("src", T, "ws/lnk");
	wst_symlink("../ws2", T, "ws/esc");
	t = wst_path(T, "ws2/secret");
	wst_symlink(t, T, "ws/esc_abs");
	free(t);
	wst_symlink("a", T, "ws/loop_b");
	wst_symlink("loop_b", T, "ws/a");
	wst_mkfifo(T, "ws/fifo");
}

static void
teardown(void)
{
	wst_rmrf(T);
	free(T);
	free(W);
}

/* Run wspath --json in W with extra args; return the run. */
#define RUN(r, ...) wst_run((r), NULL, "wspath", "--workspace", W, __VA_ARGS__, NULL)

START_TEST(plain_real_paths)
{
	struct wst_run r;
	char *want = NULL;

	RUN(&r, "src/a.c", "/src/a.c", "lnk/a.c", "new/file");
	ck_assert_int_eq(r.status, 0);
	ck_assert(asprintf(&want, "%s/src/a.c\n%s/src/a.c\n%s/src/a.c\n%s/new/file\n",
			   W, W, W, W) > 0);
	ck_assert_str_eq(r.out, want);
	free(want);
	wst_run_free(&r);
	/* --paths virtual prints the resolved virtual path. */
	RUN(&r, "--paths", "virtual", "lnk/a.c");
	ck_assert_str_eq(r.out, "/src/a.c\n");
	wst_run_free(&r);
	/*
	 * FTU10 8: a host path read as the workspace's own that does not
	 * exist gets a note on stderr (a relative new name, or one that
	 * exists, none), exit 0.
	 */
	RUN(&r, "/etc/nothere-here", "src/a.c", "new/file");
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.err, "wspath: note: /etc/nothere-here does not exist") != NULL,
		      "%s", r.err);
	ck_assert_msg(strstr(r.err, "src/a.c") == NULL && strstr(r.err, "new/file") == NULL,
		      "%s", r.err);
	wst_run_free(&r);
	/* -e: like realpath -e. */
	RUN(&r, "-e", "new/file");
	ck_assert_int_eq(r.status, 5);
	ck_assert(strstr(r.err, "NOT_FOUND") != NULL);
	wst_run_free(&r);
}
END_TEST

START_TEST(json_fields)
{
	struct wst_run r;
	char *want = wst_path(W, "src/a.c");

	RUN(&r, "--json", "lnk/a.c");
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(r.json);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(r.json, "success")));
	ck_assert_str_eq(cJSON_GetObjectItem(r.json, "tool")->valuestring, "wspath");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(r.json, "error")));
	ck_assert_str_eq(wst_output_str(&r, "path"), "/lnk/a.c");
	ck_assert_str_eq(wst_output_str(&r, "real_path"), want);
	ck_assert_str_eq(wst_output_str(&r, "resolved_path"), "/src/a.c");
	ck_assert_str_eq(wst_output_str(&r, "type"), "file");
	ck_assert(cJSON_IsTrue(wst_output(&r, "exists")));
	wst_run_free(&r);
	free(want);
}
END_TEST

START_TEST(refusals_and_exit_statuses)
{
	static const struct {
		const char *path, *code;
		int status;
	} t[] = {
		{"../ws2/secret", "PATH_OUTSIDE_WORKSPACE", 3},
		{"src/../../ws2", "PATH_OUTSIDE_WORKSPACE", 3},
		{"src/..", NULL, 0},
		{"esc", "SYMLINK_OUTSIDE_WORKSPACE", 3},
		{"esc/secret", "SYMLINK_OUTSIDE_WORKSPACE", 3},
		{"esc/", "SYMLINK_OUTSIDE_WORKSPACE", 3},
		{"esc_abs", "SYMLINK_OUTSIDE_WORKSPACE", 3},
		{"a", "SYMLINK_LOOP", 5},
		{"src/a.c/x", "NOT_A_DIRECTORY", 5},
		{"fifo", NULL, 0},
		{"..test", NULL, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct wst_run r;

		RUN(&r, "--json", t[i].path);
		ck_assert_msg(r.status == t[i].status, "%s: status %d", t[i].path,
			      r.status);
		ck_assert_str_eq(wst_code(&r), t[i].code ? t[i].code : "");
		if (t[i].code) {
			cJSON *e = cJSON_GetObjectItem(r.json, "error");

			ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(r.json, "success")));
			ck_assert_str_eq(cJSON_GetObjectItem(e, "path")->valuestring,
					 t[i].path);
		}
		wst_run_free(&r);
		/* The plain form names the path and the code on stderr. */
		RUN(&r, t[i].path);
		ck_assert_int_eq(r.status, t[i].status);
		if (t[i].code)
			ck_assert(strstr(r.err, t[i].code) != NULL &&
				  strncmp(r.err, "wspath: ", 8) == 0);
		wst_run_free(&r);
	}
}
END_TEST

START_TEST(sibling_prefix_is_shorthand)
{
	struct wst_run r;
	char *sib = wst_path(T, "ws2/secret"), *want = NULL;

	RUN(&r, "--json", sib);
	ck_assert_int_eq(r.status, 0);
	ck_assert(asprintf(&want, "%s%s", W, sib) > 0);
	ck_assert_str_eq(wst_output_str(&r, "real_path"), want);
	ck_assert(cJSON_IsFalse(wst_output(&r, "exists")));
	ck_assert_str_eq(wst_output_str(&r, "form"), "shorthand");
	wst_run_free(&r);
	free(want);
	free(sib);
}
END_TEST

/* --explain says how a path maps inside a wsrun command, in each view
 * (issue 19): the same virtual path, unless a system name hides it. */
START_TEST(explain_in_command)
{
	struct wst_run r;
	cJSON *c;
	char *real = wst_path(W, "src/a.c");

	wst_write(T, "ws/etc/x", "mine");
	wst_run(&r, NULL, "wspath", "--workspace", W, "--json", "--explain",
		"/src/a.c", NULL);
	ck_assert_int_eq(r.status, 0);
	c = wst_output(&r, "in_command");
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(c, "virtual_view")),
			 "/src/a.c");
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(c, "real_view")), real);
	wst_run_free(&r);
	wst_run(&r, NULL, "wspath", "--workspace", W, "--json", "--explain",
		"/etc/x", NULL);
	c = wst_output(&r, "in_command");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(c, "virtual_view")));
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(c, "shadowed_by")),
			 "/etc");
	wst_run_free(&r);
	wst_run(&r, NULL, "wspath", "--workspace", W, "--explain", "/src/a.c", NULL);
	ck_assert_msg(strstr(r.out, "command    /src/a.c (wsrun --view virtual)") != NULL,
		      "%s", r.out);
	wst_run_free(&r);
	free(real);
}
END_TEST

/*
 * FTU10 11: the workspace is the current directory, not the project.
 * --explain and --verbose say where it came from and, when nothing chose
 * it and a project root lies above it, name that root and how to use it.
 */
START_TEST(explain_workspace_source)
{
	struct wst_run r;
	char *cwd = getcwd(NULL, 0), *top = realpath(W, NULL);
	char *src = wst_path(W, "src"), *want = NULL, hv[4200];
	const char *env[] = {hv, NULL};
	const char *argv[] = {"--json", "--explain", "a.c", NULL};
	cJSON *note;

	ck_assert_ptr_nonnull(cwd);
	ck_assert_ptr_nonnull(top);
	wst_mkdir(W, ".git");
	ck_assert_int_eq(chdir(src), 0);
	wst_run(&r, NULL, "wspath", "--json", "--explain", "a.c", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(wst_output_str(&r, "workspace_from"), "cwd");
	ck_assert(strstr(wst_output_str(&r, "workspace"), "/ws/src") != NULL);
	ck_assert(asprintf(&want, "the current directory is below the project "
			   "root %s (.git there)", top) > 0);
	note = wst_output(&r, "workspace_note");
	ck_assert_msg(cJSON_IsString(note) &&
		      strstr(cJSON_GetStringValue(note), want) != NULL, "%s", r.out);
	wst_run_free(&r);
	wst_run(&r, NULL, "wspath", "--explain", "a.c", NULL);
	ck_assert_msg(strstr(r.out, "/ws/src (the current directory; WS_ROOT or "
			     "--workspace to choose)\n") != NULL, "%s", r.out);
	ck_assert_msg(strstr(r.out, "\nnote       the current directory is "
			     "below the project root") != NULL, "%s", r.out);
	wst_run_free(&r);
	/* --verbose on any tool says the same on standard error. */
	wst_run(&r, NULL, "wsls", "--verbose", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.err, "INFO workspace: ") != NULL &&
		      strstr(r.err, "/ws/src (the current directory; WS_ROOT or "
			     "--workspace to choose)\n") != NULL, "%s", r.err);
	ck_assert_msg(strstr(r.err, want) != NULL, "%s", r.err);
	wst_run_free(&r);
	/* Without --verbose, nothing. */
	wst_run(&r, NULL, "wsls", NULL);
	ck_assert_str_eq(r.err, "");
	wst_run_free(&r);
	/* Chosen: said so, and no note. */
	wst_run(&r, NULL, "wspath", "--workspace", src, "--json", "--explain",
		"a.c", NULL);
	ck_assert_str_eq(wst_output_str(&r, "workspace_from"), "--workspace");
	ck_assert(cJSON_IsNull(wst_output(&r, "workspace_note")));
	wst_run_free(&r);
	snprintf(hv, sizeof(hv), "WS_ROOT=%s", src);
	wst_runv(&r, NULL, env, "wspath", argv);
	ck_assert_str_eq(wst_output_str(&r, "workspace_from"), "WS_ROOT");
	ck_assert(cJSON_IsNull(wst_output(&r, "workspace_note")));
	wst_run_free(&r);
	/* At the project root itself: no note. */
	ck_assert_int_eq(chdir(W), 0);
	wst_run(&r, NULL, "wspath", "--json", "--explain", "src", NULL);
	ck_assert_str_eq(wst_output_str(&r, "workspace_from"), "cwd");
	ck_assert(cJSON_IsNull(wst_output(&r, "workspace_note")));
	wst_run_free(&r);
	ck_assert_int_eq(chdir(cwd), 0);
	free(want);
	free(src);
	free(top);
	free(cwd);
}
END_TEST

START_TEST(to_virtual)
{
	struct wst_run r;
	char *mnt = NULL, *real = wst_path(W, "src/a.c"), *skill = wst_path(T, "skills/s.md");
	char *out = wst_path(T, "ws2/secret");

	ck_assert(asprintf(&mnt, "/.skills=%s/skills:ro", T) > 0);
	RUN(&r, "--mount", mnt, "--to-virtual", real, skill, W);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "/src/a.c\n/.skills/s.md\n/\n");
	wst_run_free(&r);
	RUN(&r, "--json", "--to-virtual", out);
	ck_assert_int_eq(r.status, 3);
	ck_assert_str_eq(wst_code(&r), "PATH_OUTSIDE_WORKSPACE");
	wst_run_free(&r);
	RUN(&r, "--mount", mnt, "--json", "/.skills/s.md");
	ck_assert_str_eq(wst_output_str(&r, "real_path"), skill);
	ck_assert_str_eq(wst_output_str(&r, "mount"), "/.skills");
	ck_assert(cJSON_IsTrue(wst_output(&r, "read_only")));
	wst_run_free(&r);
	free(mnt);
	free(real);
	free(skill);
	free(out);
}
END_TEST

START_TEST(explain_traces_steps)
{
	struct wst_run r;

	RUN(&r, "--explain", "lnk/../lnk/a.c");
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, "form") != NULL);
	ck_assert(strstr(r.out, "normalize") != NULL);
	ck_assert(strstr(r.out, "lnk -> src") != NULL);
	ck_assert(strstr(r.out, "virtual    /src/a.c") != NULL);
	wst_run_free(&r);
	RUN(&r, "--explain", "--json", "esc/secret");
	ck_assert_int_eq(r.status, 3);
	ck_assert(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(r.json, "output"),
							 "steps")) >= 3);
	wst_run_free(&r);
}
END_TEST

START_TEST(several_paths_in_json)
{
	struct wst_run r;
	cJSON *res;

	RUN(&r, "--json", "src/a.c", "../x", "lnk");
	ck_assert_int_eq(r.status, 3);
	res = wst_output(&r, "results");
	ck_assert_int_eq(cJSON_GetArraySize(res), 3);
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetArrayItem(res, 1), "error"));
	ck_assert_str_eq(wst_code(&r), "PATH_OUTSIDE_WORKSPACE");
	wst_run_free(&r);
}
END_TEST

START_TEST(args_schema_and_usage_errors)
{
	struct wst_run r;
	const char *argv_nul[] = {"--workspace", NULL, "--args",
				  "{\"path\":\"src\\u0000/../../ws2\"}", NULL};

	RUN(&r, "--args", "{\"path\":\"lnk/a.c\"}");
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(wst_code(&r), "");
	wst_run_free(&r);
	argv_nul[1] = W;
	wst_runv(&r, NULL, NULL, "wspath", argv_nul);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_PATH");
	wst_run_free(&r);
	RUN(&r, "--args", "{\"path\":\"x\",\"nope\":1}");
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	RUN(&r, "--schema");
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(r.json);
	wst_run_free(&r);
	RUN(&r, "--bogus", "x");
	ck_assert_int_eq(r.status, 2);
	ck_assert(strstr(r.err, "INVALID_ARGUMENT") != NULL);
	wst_run_free(&r);
	wst_run(&r, NULL, "wspath", "--workspace", "/nonexistent-wst", "--json", "x", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "WORKSPACE_NOT_FOUND");
	wst_run_free(&r);
	RUN(&r, "--help");
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, "Usage: wspath") != NULL);
	wst_run_free(&r);
}
END_TEST

START_TEST(environment_and_allow_outside)
{
	struct wst_run r;
	const char *argv[] = {"--json", "/etc/passwd", NULL};
	const char *env[] = {NULL, "WS_ALLOW_OUTSIDE=1", NULL};
	char *e = NULL;

	ck_assert(asprintf(&e, "WS_ROOT=%s", W) > 0);
	env[0] = e;
	wst_runv(&r, NULL, env, "wspath", argv);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(wst_output_str(&r, "real_path"), "/etc/passwd");
	ck_assert_str_eq(cJSON_GetObjectItem(r.json, "boundary")->valuestring, "off");
	ck_assert(strstr(r.err, "boundary is OFF") != NULL);
	wst_run_free(&r);
	env[1] = "WS_STRICT=1";
	wst_runv(&r, NULL, env, "wspath", argv);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_PATH");
	wst_run_free(&r);
	free(e);
}
END_TEST

START_TEST(root_is_slash)
{
	struct wst_run r;
	char *p = wst_path(W, "src/a.c");

	wst_run(&r, NULL, "wspath", "--workspace", "/", p, "/", NULL);
	ck_assert_int_eq(r.status, 0);
	{
		char *want = NULL;

		ck_assert(asprintf(&want, "%s\n/\n", p) > 0);
		ck_assert_str_eq(r.out, want);
		free(want);
	}
	wst_run_free(&r);
	free(p);
}
END_TEST


/* Regressions from the first-time-user review, across the tools. */
START_TEST(ux_regressions)
{
	struct wst_run r;
	char *link = wst_path(T, "wslink"), *p = NULL;

	/* -h in a bundle is not a silent help page: for wsls, -lh is what
	 * ls users mean by it (human sizes); for others an unknown option. */
	wst_run(&r, NULL, "wsls", "--workspace", W, "-lh", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_null(strstr(r.out, "--workspace"));
	ck_assert_ptr_nonnull(strstr(r.out, "src\n"));
	wst_run_free(&r);
	wst_run(&r, NULL, "wsread", "--workspace", W, "-nh", "src/a.c", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.out, "");
	wst_run_free(&r);
	/* FTU8 08: --format, guessed from WS_FORMAT, names the flags. */
	wst_run(&r, NULL, "wsread", "--workspace", W, "--format", "json", "src/a.c", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "--json") != NULL, "%s", r.err);
	wst_run_free(&r);
	/* --json anywhere makes every error JSON. */
	wst_run(&r, NULL, "wsread", "--workspace", W, "--start-line", "x", "--json",
		"src/a.c", NULL);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	/* Nothing may follow the --args object. */
	RUN(&r, "--args", "{\"path\":\"src/a.c\"}{\"path\":\"../x\"}");
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	/* The schema says which keys exist and which values a string takes. */
	wst_run(&r, NULL, "wsls", "--schema", NULL);
	{
		cJSON *params = cJSON_GetObjectItem(cJSON_GetObjectItem(r.json, "function"),
						    "parameters");
		cJSON *sort = cJSON_GetObjectItem(cJSON_GetObjectItem(params, "properties"),
						  "sort");

		ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(params, "additionalProperties")));
		ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(sort, "enum")), 3);
	}
	wst_run_free(&r);
	/* The root spelled through a symlink is the root, not a shorthand. */
	wst_symlink(W, T, "wslink");
	ck_assert(asprintf(&p, "%s/src/a.c", link) > 0);
	wst_run(&r, NULL, "wspath", "--workspace", link, "--json", p, NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(wst_output_str(&r, "path"), "/src/a.c");
	ck_assert_str_eq(wst_output_str(&r, "form"), "absolute-inside");
	wst_run_free(&r);
	free(p);
	/* Control bytes in a name never reach the terminal raw. */
	RUN(&r, "-e", "x\033[31m\nfake: line");
	ck_assert_int_eq(r.status, 5);
	ck_assert_ptr_null(strchr(r.err, '\033'));
	ck_assert_ptr_nonnull(strstr(r.err, "x?[31m?fake: line"));
	wst_run_free(&r);
	/* A wrong --op lists the operations; a wrong workspace says what is
	 * wrong once ("does not exist", not "...: No such file or
	 * directory"). */
	RUN(&r, "--op", "reed", "src");
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "\"reed\" (read, open,") != NULL, "%s", r.err);
	wst_run_free(&r);
	p = wst_path(T, "nope");
	wst_run(&r, NULL, "wspath", "--workspace", p, "/", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "nope: workspace does not exist "
			     "(WORKSPACE_NOT_FOUND)") != NULL, "%s", r.err);
	wst_run_free(&r);
	free(p);
	p = wst_path(W, "src/a.c");
	wst_run(&r, NULL, "wspath", "--workspace", p, "/", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "a.c: workspace is not a directory "
			     "(WORKSPACE_NOT_FOUND)") != NULL, "%s", r.err);
	wst_run_free(&r);
	free(p);
	free(link);
}
END_TEST

/* Environment values are checked: a typo never turns strict mode off. */
START_TEST(environment_values_checked)
{
	struct wst_run r;
	const char *argv[] = {"--workspace", NULL, "../x", NULL};
	const char *env[] = {NULL, NULL};

	argv[1] = W;
	env[0] = "WS_STRICT=on";
	wst_runv(&r, NULL, env, "wspath", argv);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "strict mode"));
	wst_run_free(&r);
	env[0] = "WS_STRICT=maybe";
	wst_runv(&r, NULL, env, "wspath", argv);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "WS_STRICT"));
	wst_run_free(&r);
	env[0] = "WS_FORMAT=JSON";
	wst_runv(&r, NULL, env, "wspath", argv);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "WS_FORMAT"));
	wst_run_free(&r);
	/* A bad WS_PATHS names the variable, not a flag never given. */
	env[0] = "WS_PATHS=virtaul";
	wst_runv(&r, NULL, env, "wspath", argv);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "WS_PATHS=\"virtaul\"") != NULL &&
		      strstr(r.err, "--paths") == NULL, "%s", r.err);
	wst_run_free(&r);
	env[0] = "WS_STRICT=0";
	wst_runv(&r, NULL, env, "wspath", argv);
	ck_assert_int_eq(r.status, 3);
	wst_run_free(&r);
}
END_TEST

/* A result that cannot be written is not a success. */
START_TEST(stdout_errors_are_reported)
{
	static const char *const tools[] = {"wspath", "wsls", "wsread"};

	for (size_t i = 0; i < 3; i++) {
		char *cmd = NULL;
		int st;

		ck_assert(asprintf(&cmd, "'%s' --workspace '%s' %s >/dev/full 2>/dev/null",
				   wst_bin(tools[i]), W, i == 2 ? "src/a.c" : "src") > 0);
		st = system(cmd);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 5, "%s: %d", tools[i], st);
		free(cmd);
	}
}
END_TEST

/* A repeated key in --args is refused, naming it (issue 18). */
START_TEST(args_repeated_key)
{
	struct wst_run r;

	RUN(&r, "--args", "{\"path\":\"a\",\"op\":\"read\",\"op\":\"write\"}");
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_msg(strstr(r.out, "\\\"op\\\" is given more than once"), "%s",
		      r.out);
	wst_run_free(&r);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("cli-wspath");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, plain_real_paths);
	tcase_add_test(tc, json_fields);
	tcase_add_test(tc, args_repeated_key);
	tcase_add_test(tc, refusals_and_exit_statuses);
	tcase_add_test(tc, sibling_prefix_is_shorthand);
	tcase_add_test(tc, to_virtual);
	tcase_add_test(tc, explain_in_command);
	tcase_add_test(tc, explain_workspace_source);
	tcase_add_test(tc, explain_traces_steps);
	tcase_add_test(tc, several_paths_in_json);
	tcase_add_test(tc, args_schema_and_usage_errors);
	tcase_add_test(tc, environment_and_allow_outside);
	tcase_add_test(tc, root_is_slash);
	tcase_add_test(tc, ux_regressions);
	tcase_add_test(tc, environment_values_checked);
	tcase_add_test(tc, stdout_errors_are_reported);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
