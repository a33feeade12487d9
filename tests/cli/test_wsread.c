/*
 * test_wsread.c (cli) - wsread on temporary workspaces: every input form of
 * DESIGN.md section 3, the escapes that must be refused, line ranges, large
 * and binary files, the JSON contract, and a symlink-swap race.
 *
 * Layout of each test's sandbox (base is a fresh temporary directory):
 *   base/ws            the workspace
 *   base/outside/      a directory outside it, holding "secret"
 *   base/ws2, base/ws_backup, base/ws-evil   siblings with a "secret" each
 */
#include "wstest.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SECRET "SECRET-OUTSIDE-MARKER"

static char *base, *ws, *outside;

static void
setup(void)
{
	base = wst_tmpdir();
	ws = wst_path(base, "ws");
	outside = wst_path(base, "outside");
	wst_mkdir(base, "ws");
	wst_write(outside, "secret", SECRET "\n");
	wst_write(outside, "f", SECRET "\n");
	wst_write(ws, "sub/a.txt", "alpha\n");
	wst_write(ws, "lines.txt",
		  "line 1\nline 2\nline 3\nline 4\nline 5\n"
		  "line 6\nline 7\nline 8\nline 9\nline 10\n");
}

static void
teardown(void)
{
	wst_rmrf(base);
	free(base);
	free(ws);
	free(outside);
}

/* Run wsread --json on the workspace with the given arguments. */
#define RUNJ(r, ...) \
	wst_run((r), NULL, "wsread", "--workspace", ws, "--json", __VA_ARGS__, NULL)
/* The same in plain mode. */
#define RUNP(r, ...) \
	wst_run((r), NULL, "wsread", "--workspace", ws, __VA_ARGS__, NULL)

/* A successful JSON read whose content is exactly want (UTF-8). */
static void
expect_content(const struct wst_run *r, const char *want)
{
	const char *c;

	ck_assert_msg(r->status == 0, "status %d, out %s, err %s", r->status,
		      r->out, r->err);
	ck_assert_str_eq(wst_code(r), "");
	c = wst_output_str(r, "content");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c, want);
	ck_assert_str_eq(wst_output_str(r, "encoding"), "utf-8");
}

/* A failed JSON read with this code and exit status, and no secret. */
static void
expect_error(const struct wst_run *r, const char *code, int status)
{
	ck_assert_msg(r->json != NULL, "no JSON: %s", r->out);
	ck_assert_str_eq(wst_code(r), code);
	ck_assert_int_eq(r->status, status);
	ck_assert_ptr_null(strstr(r->out, SECRET));
	ck_assert_ptr_null(strstr(r->out, "SIBLING"));
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(r->json, "success")));
}

static long long
out_int(const struct wst_run *r, const char *key)
{
	cJSON *v = wst_output(r, key);

	ck_assert_msg(cJSON_IsNumber(v), "%s is not a number in %s", key, r->out);
	return (long long)v->valuedouble;
}

static bool
out_bool(const struct wst_run *r, const char *key)
{
	cJSON *v = wst_output(r, key);

	ck_assert_msg(cJSON_IsBool(v), "%s is not a boolean in %s", key, r->out);
	return cJSON_IsTrue(v);
}

/* Decode base64 (the standard alphabet, with padding); *n gets the size. */
static unsigned char *
b64dec(const char *s, size_t *n)
{
	size_t len = strlen(s), o = 0;
	unsigned char *out = malloc(len / 4 * 3 + 3);
	unsigned v = 0;
	int bits = 0;

	for (size_t i = 0; i < len && s[i] != '='; i++) {
		const char *al =
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		const char *p = strchr(al, s[i]);

		ck_assert_msg(p != NULL && s[i] != '\0', "bad base64 byte");
		v = (v << 6) | (unsigned)(p - al);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(v >> bits);
		}
	}
	*n = o;
	return out;
}

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ */
/* Input forms (DESIGN.md 3)                                          */

START_TEST(forms_relative_shorthand_absolute)
{
	struct wst_run r;
	char *abs = wst_path(ws, "sub/a.txt");

	RUNJ(&r, "sub/a.txt");
	expect_content(&r, "alpha\n");
	ck_assert_str_eq(wst_output_str(&r, "path"), "/sub/a.txt");
	ck_assert_str_eq(wst_output_str(&r, "real_path"), abs);
	wst_run_free(&r);

	RUNJ(&r, "/sub/a.txt"); /* root-relative shorthand */
	expect_content(&r, "alpha\n");
	ck_assert_str_eq(wst_output_str(&r, "path"), "/sub/a.txt");
	wst_run_free(&r);

	RUNJ(&r, abs); /* absolute, inside the real root: kept */
	expect_content(&r, "alpha\n");
	ck_assert_str_eq(wst_output_str(&r, "path"), "/sub/a.txt");
	wst_run_free(&r);

	RUNJ(&r, "sub\\a.txt"); /* backslashes are separators */
	expect_content(&r, "alpha\n");
	wst_run_free(&r);

	RUNJ(&r, "./sub//./a.txt");
	expect_content(&r, "alpha\n");
	wst_run_free(&r);

	RUNJ(&r, "sub/../sub/a.txt"); /* ".." that stays inside */
	expect_content(&r, "alpha\n");
	wst_run_free(&r);
	free(abs);
}
END_TEST

START_TEST(forms_cwd_is_not_used)
{
	/* A relative path is relative to the root, never to the cwd. */
	struct wst_run r;
	char *cwd = getcwd(NULL, 0);

	ck_assert_int_eq(chdir(outside), 0);
	RUNJ(&r, "secret");
	expect_error(&r, "NOT_FOUND", 5);
	/* Nor hinted at: the current directory is outside the workspace. */
	ck_assert_msg(strstr(r.out, "hint") == NULL, "%s", r.out);
	wst_run_free(&r);
	ck_assert_int_eq(chdir(cwd), 0);
	free(cwd);
}
END_TEST

/* The hint of run r's error, or NULL. */
static const char *
err_hint(const struct wst_run *r)
{
	cJSON *e = cJSON_GetObjectItem(r->json, "error");

	return cJSON_GetStringValue(cJSON_GetObjectItem(e, "hint"));
}

/*
 * ftu11 05: a NOT_FOUND one edit away from a name in the last directory
 * that exists gets "did you mean": a swap, a missing and an extra byte, a
 * directory in the middle; no hint for a name two edits away, nor for a
 * name the policy hides, and over the model's front end too.
 */
START_TEST(forms_did_you_mean)
{
	struct wst_run r;
	char *pol = wst_path(base, "p.json");
	const char *h;
	static const char *const cases[][2] = {
		{"src/mian.c", "did you mean src/main.c?"},
		{"src/man.c", "did you mean src/main.c?"},
		{"src/mainn.c", "did you mean src/main.c?"},
		{"/src/main.cc", "did you mean /src/main.c?"},
		{"scr/main.c", "did you mean src/main.c?"},
		{"srcs/main.c", "did you mean src/main.c?"},
	};

	wst_write(ws, "src/main.c", "int main;\n");
	wst_write(ws, "src/secret.h", "x\n");
	wst_write(base, "p.json",
		  "{\"version\": 1, \"name\": \"t\", \"file_rules\": [\n"
		  " {\"name\": \"hide\", \"paths\": [\"**/secret.h\"],\n"
		  "  \"operations\": [\"*\"], \"decision\": \"deny\"},\n"
		  " {\"name\": \"rest\", \"paths\": [\"**\"], "
		  "\"operations\": [\"*\"], \"decision\": \"allow\"}]}\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		RUNJ(&r, cases[i][0]);
		expect_error(&r, "NOT_FOUND", 5);
		h = err_hint(&r);
		ck_assert_msg(h != NULL && strcmp(h, cases[i][1]) == 0, "%s: %s",
			      cases[i][0], r.out);
		wst_run_free(&r);
	}
	/* Plain: on standard error, with the error. */
	wst_run(&r, NULL, "wsread", "--workspace", ws, "src/mian.c", NULL);
	ck_assert_int_eq(r.status, 5);
	ck_assert_msg(strstr(r.err, "hint: did you mean src/main.c?") != NULL, "%s", r.err);
	wst_run_free(&r);
	/* The other file tools: an operand of wsgrep, a directory of wsls. */
	wst_run(&r, NULL, "wsgrep", "--workspace", ws, "main", "src/mian.c", NULL);
	ck_assert_int_eq(r.status, 5);
	ck_assert_msg(strstr(r.err, "hint: did you mean src/main.c?") != NULL, "%s", r.err);
	wst_run_free(&r);
	wst_run(&r, NULL, "wsls", "--workspace", ws, "srcc", NULL);
	ck_assert_int_eq(r.status, 5);
	ck_assert_msg(strstr(r.err, "hint: did you mean src?") != NULL, "%s", r.err);
	wst_run_free(&r);
	/* A name with a control byte is not put in a hint. */
	wst_write(ws, "src/esc\x1b.h", "x\n");
	RUNJ(&r, "src/esc.h");
	expect_error(&r, "NOT_FOUND", 5);
	ck_assert_msg(err_hint(&r) == NULL, "%s", r.out);
	wst_run_free(&r);
	/* Two edits away: nothing. */
	RUNJ(&r, "src/mina.cc");
	expect_error(&r, "NOT_FOUND", 5);
	ck_assert_msg(err_hint(&r) == NULL, "%s", r.out);
	wst_run_free(&r);
	/* A name the policy hides is not suggested. */
	RUNJ(&r, "--policy", pol, "src/secret.hh");
	expect_error(&r, "NOT_FOUND", 5);
	ck_assert_msg(err_hint(&r) == NULL, "%s", r.out);
	wst_run_free(&r);
	RUNJ(&r, "src/secret.hh");
	expect_error(&r, "NOT_FOUND", 5);
	ck_assert_msg(err_hint(&r) != NULL && strcmp(err_hint(&r),
		      "did you mean src/secret.h?") == 0, "%s", r.out);
	wst_run_free(&r);
	/* As a model calls it. */
	wst_run(&r, NULL, "wstools", "call", "read_file",
		"{\"path\":\"src/mian.c\"}", "--workspace", ws, NULL);
	ck_assert_msg(strstr(r.out, "did you mean src/main.c?") != NULL, "%s", r.out);
	wst_run_free(&r);
	free(pol);
}
END_TEST

/*
 * FTU9 4: a person in <ws>/sub who says "a.txt" means sub/a.txt.  The
 * path stays the root's (NOT_FOUND), but the hint says what to write,
 * for each file tool; nothing when the name is not there either, and
 * nothing about a file the policy hides.
 */
START_TEST(forms_cwd_hint)
{
	static const char *const tools[] = {"wsread", "wsls", "wsgrep", "wswrite"};
	struct wst_run r;
	char *cwd = getcwd(NULL, 0), *sub = wst_path(ws, "sub");
	char *pol = wst_path(base, "p.json");
	const char *h;

	wst_write(base, "p.json",
		  "{\"version\": 1, \"name\": \"t\", \"file_rules\": [\n"
		  " {\"name\": \"hide\", \"paths\": [\"**/sub/a.txt\"],\n"
		  "  \"operations\": [\"*\"], \"decision\": \"deny\"},\n"
		  " {\"name\": \"rest\", \"paths\": [\"**\"], "
		  "\"operations\": [\"*\"], \"decision\": \"allow\"}]}\n");
	ck_assert_int_eq(chdir(sub), 0);
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		if (strcmp(tools[i], "wsgrep") == 0)
			wst_run(&r, NULL, tools[i], "--workspace", ws, "--json",
				"alpha", "a.txt", NULL);
		else if (strcmp(tools[i], "wswrite") == 0)
			wst_run(&r, NULL, tools[i], "--workspace", ws, "--json",
				"--delete", "a.txt", NULL);
		else
			wst_run(&r, NULL, tools[i], "--workspace", ws, "--json",
				"a.txt", NULL);
		expect_error(&r, "NOT_FOUND", 5);
		h = err_hint(&r);
		ck_assert_msg(h != NULL && strstr(h, "not at the current directory "
						  "/sub: say sub/a.txt") != NULL,
			      "%s: %s", tools[i], r.out);
		wst_run_free(&r);
	}
	ck_assert(wst_exists(sub) && access("a.txt", F_OK) == 0);
	RUNJ(&r, "nosuch.txt");
	expect_error(&r, "NOT_FOUND", 5);
	ck_assert_msg(err_hint(&r) == NULL, "%s", r.out);
	wst_run_free(&r);
	/* A file the policy denies: its name tells nothing. */
	RUNJ(&r, "--policy", pol, "a.txt");
	expect_error(&r, "NOT_FOUND", 5);
	ck_assert_msg(err_hint(&r) == NULL, "%s", r.out);
	wst_run_free(&r);
	ck_assert_int_eq(chdir(cwd), 0);
	free(pol);
	free(sub);
	free(cwd);
}
END_TEST

START_TEST(forms_mount_ro)
{
	struct wst_run r;
	char *skills = wst_path(base, "skills");
	char *spec;

	wst_write(skills, "x.md", "skill x\n");
	ck_assert_int_ne(asprintf(&spec, "/.skills=%s:ro", skills), -1);
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--mount", spec, "--json",
		"/.skills/x.md", NULL);
	expect_content(&r, "skill x\n");
	ck_assert_str_eq(wst_output_str(&r, "path"), "/.skills/x.md");
	wst_run_free(&r);
	/* A relative path means /p: the mount applies to it too. */
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--mount", spec, "--json",
		".skills/x.md", NULL);
	expect_content(&r, "skill x\n");
	wst_run_free(&r);
	/* The mount's real path, absolute, is kept as is. */
	{
		char *real = wst_path(skills, "x.md");

		wst_run(&r, NULL, "wsread", "--workspace", ws, "--mount", spec,
			"--json", real, NULL);
		expect_content(&r, "skill x\n");
		wst_run_free(&r);
		free(real);
	}
	/* WS_MOUNTS works the same way. */
	{
		char *env;
		const char *envv[2];
		const char *argv[] = {"--workspace", ws, "--json", "/.skills/x.md",
				      NULL};

		ck_assert_int_ne(asprintf(&env, "WS_MOUNTS=%s", spec), -1);
		envv[0] = env;
		envv[1] = NULL;
		wst_runv(&r, NULL, envv, "wsread", argv);
		expect_content(&r, "skill x\n");
		wst_run_free(&r);
		free(env);
	}
	/* Climbing above the mount's top is refused. */
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--mount", spec, "--json",
		"/.skills/../../outside/secret", NULL);
	expect_error(&r, "PATH_OUTSIDE_WORKSPACE", 3);
	wst_run_free(&r);
	free(spec);
	free(skills);
}
END_TEST

START_TEST(forms_strict)
{
	struct wst_run r;
	char *abs = wst_path(ws, "sub/a.txt");
	const char *bad[] = {"/sub/a.txt", "sub\\a.txt", "sub/../sub/a.txt",
			     "../outside/secret", NULL};

	for (size_t i = 0; bad[i]; i++) {
		wst_run(&r, NULL, "wsread", "--workspace", ws, "--json",
			"--strict", bad[i], NULL);
		expect_error(&r, "INVALID_PATH", 2);
		wst_run_free(&r);
	}
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--json", "--strict",
		abs, NULL);
	expect_error(&r, "INVALID_PATH", 2);
	wst_run_free(&r);
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--json", "--strict",
		"sub/a.txt", NULL);
	expect_content(&r, "alpha\n");
	wst_run_free(&r);
	{
		const char *env[] = {"WS_STRICT=1", NULL};
		const char *argv[] = {"--workspace", ws, "--json", "/sub/a.txt",
				      NULL};

		wst_runv(&r, NULL, env, "wsread", argv);
		expect_error(&r, "INVALID_PATH", 2);
		wst_run_free(&r);
	}
	free(abs);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Escapes                                                              */

START_TEST(escape_dotdot)
{
	struct wst_run r;
	char *up;
	const char *bad[] = {"../outside/secret", "sub/../../outside/secret",
			     "sub/../..", "..", "/../outside/secret",
			     "sub\\..\\..\\outside\\secret", NULL};

	for (size_t i = 0; bad[i]; i++) {
		RUNJ(&r, bad[i]);
		expect_error(&r, "PATH_OUTSIDE_WORKSPACE", 3);
		wst_run_free(&r);
	}
	/* Written from inside the root, then climbing out: not a shorthand. */
	ck_assert_int_ne(asprintf(&up, "%s/../outside/secret", ws), -1);
	RUNJ(&r, up);
	expect_error(&r, "PATH_OUTSIDE_WORKSPACE", 3);
	wst_run_free(&r);
	free(up);
	/* ".." after a symlink is applied lexically first: still refused. */
	wst_symlink("sub", ws, "lnk");
	RUNJ(&r, "lnk/../../outside/secret");
	expect_error(&r, "PATH_OUTSIDE_WORKSPACE", 3);
	wst_run_free(&r);
	/* ...and a symlink whose target climbs out is refused physically. */
	wst_symlink("../../outside", ws, "sub/up");
	RUNJ(&r, "sub/up/secret");
	expect_error(&r, "SYMLINK_OUTSIDE_WORKSPACE", 3);
	wst_run_free(&r);
	wst_symlink("..", ws, "dotdot");
	RUNJ(&r, "dotdot/outside/secret");
	expect_error(&r, "SYMLINK_OUTSIDE_WORKSPACE", 3);
	wst_run_free(&r);
	/* Plain mode: the error on stderr, nothing on stdout. */
	RUNP(&r, "../outside/secret");
	ck_assert_int_eq(r.status, 3);
	ck_assert_str_eq(r.out, "");
	ck_assert_ptr_nonnull(strstr(r.err, "wsread: ../outside/secret: "));
	ck_assert_ptr_nonnull(strstr(r.err, "(PATH_OUTSIDE_WORKSPACE)"));
	wst_run_free(&r);
}
END_TEST

START_TEST(escape_siblings)
{
	const char *sibs[] = {"ws2", "ws_backup", "ws-evil", NULL};

	for (size_t i = 0; sibs[i]; i++) {
		struct wst_run r;
		char *dir = wst_path(base, sibs[i]);
		char *p, *inside;

		wst_write(dir, "secret", "SIBLING\n");
		/* <ws>/../ws2/secret: starts inside, climbs out. */
		ck_assert_int_ne(asprintf(&p, "%s/../%s/secret", ws, sibs[i]), -1);
		RUNJ(&r, p);
		expect_error(&r, "PATH_OUTSIDE_WORKSPACE", 3);
		wst_run_free(&r);
		free(p);
		ck_assert_int_ne(asprintf(&p, "../%s/secret", sibs[i]), -1);
		RUNJ(&r, p);
		expect_error(&r, "PATH_OUTSIDE_WORKSPACE", 3);
		wst_run_free(&r);
		free(p);
		/*
		 * The sibling's absolute path is not inside the root (by
		 * components, /x/ws does not contain /x/ws2): it is a
		 * root-relative shorthand, and never reads the sibling.
		 */
		p = wst_path(dir, "secret");
		RUNJ(&r, p);
		expect_error(&r, "NOT_FOUND", 5);
		wst_run_free(&r);
		/* The shorthand's own file, planted inside, is what is read. */
		inside = wst_path(ws, p + 1);
		wst_write(ws, p + 1, "SHORTHAND\n");
		RUNJ(&r, p);
		expect_content(&r, "SHORTHAND\n");
		ck_assert_str_eq(wst_output_str(&r, "real_path"), inside);
		wst_run_free(&r);
		free(inside);
		free(p);
		free(dir);
	}
}
END_TEST

START_TEST(names_with_dots)
{
	const char *names[] = {"..test", "te..st", "...", "sub/..x", "a..", NULL};

	for (size_t i = 0; names[i]; i++) {
		struct wst_run r;

		wst_write(ws, names[i], "dots\n");
		RUNJ(&r, names[i]);
		expect_content(&r, "dots\n");
		wst_run_free(&r);
	}
}
END_TEST

START_TEST(invalid_paths)
{
	struct wst_run r;
	char longp[4200], comp[300], *name255, *p;

	/* A NUL byte, which only JSON can carry. */
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--args",
		"{\"path\":\"sub/a.txt\\u0000/../../outside/secret\"}", NULL);
	expect_error(&r, "INVALID_PATH", 2);
	wst_run_free(&r);
	/* 4096 bytes: over the 4095-byte limit. */
	memset(longp, 0, sizeof(longp));
	for (size_t i = 0; i < 4096; i++)
		longp[i] = (i % 100 == 99) ? '/' : 'a';
	RUNJ(&r, longp);
	expect_error(&r, "INVALID_PATH", 2);
	wst_run_free(&r);
	/* A 256-byte component. */
	memset(comp, 'c', 256);
	comp[256] = '\0';
	RUNJ(&r, comp);
	expect_error(&r, "INVALID_PATH", 2);
	wst_run_free(&r);
	/* 255 bytes is fine. */
	comp[255] = '\0';
	name255 = strdup(comp);
	wst_write(ws, name255, "long name\n");
	ck_assert_int_ne(asprintf(&p, "sub/../%s", name255), -1);
	RUNJ(&r, p);
	expect_content(&r, "long name\n");
	wst_run_free(&r);
	free(p);
	free(name255);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Symlinks and special files                                          */

START_TEST(symlinks)
{
	struct wst_run r;
	char *abs_in = wst_path(ws, "sub/a.txt");
	char *abs_out = wst_path(outside, "secret");

	wst_symlink(abs_out, ws, "leaf_abs");
	wst_symlink("../outside/secret", ws, "leaf_rel");
	wst_symlink(outside, ws, "dir_out");
	wst_symlink("sub", ws, "pdir");
	wst_symlink("c2", ws, "c1");
	wst_symlink("c3", ws, "c2");
	wst_symlink("sub/a.txt", ws, "c3");
	wst_symlink("loop2", ws, "loop1");
	wst_symlink("loop1", ws, "loop2");
	wst_symlink("self", ws, "self");
	wst_symlink("does-not-exist", ws, "dangling");
	wst_symlink(abs_in, ws, "abs_in");
	wst_symlink("sub/a.txt", ws, "flink");
	wst_symlink("/dev/null", ws, "devnull");
	wst_symlink("/proc/self/root/etc/passwd", ws, "procroot");

	RUNJ(&r, "leaf_abs");
	expect_error(&r, "SYMLINK_OUTSIDE_WORKSPACE", 3);
	wst_run_free(&r);
	RUNJ(&r, "leaf_rel");
	expect_error(&r, "SYMLINK_OUTSIDE_WORKSPACE", 3);
	wst_run_free(&r);
	RUNJ(&r, "dir_out/secret");
	expect_error(&r, "SYMLINK_OUTSIDE_WORKSPACE", 3);
	wst_run_free(&r);
	RUNJ(&r, "dir_out/");
	expect_error(&r, "SYMLINK_OUTSIDE_WORKSPACE", 3);
	wst_run_free(&r);
	RUNJ(&r, "devnull"); /* a device, and outside */
	expect_error(&r, "SYMLINK_OUTSIDE_WORKSPACE", 3);
	wst_run_free(&r);
	RUNJ(&r, "procroot");
	ck_assert_int_eq(r.status, 3);
	ck_assert_ptr_null(strstr(r.out, "root:x:0"));
	wst_run_free(&r);

	RUNJ(&r, "pdir/a.txt"); /* a symlinked parent inside */
	expect_content(&r, "alpha\n");
	ck_assert_str_eq(wst_output_str(&r, "real_path"), abs_in);
	wst_run_free(&r);
	RUNJ(&r, "c1"); /* a chain */
	expect_content(&r, "alpha\n");
	wst_run_free(&r);
	RUNJ(&r, "abs_in"); /* an absolute target inside */
	expect_content(&r, "alpha\n");
	wst_run_free(&r);

	RUNJ(&r, "loop1");
	expect_error(&r, "SYMLINK_LOOP", 5);
	wst_run_free(&r);
	RUNJ(&r, "self");
	expect_error(&r, "SYMLINK_LOOP", 5);
	wst_run_free(&r);
	RUNJ(&r, "dangling");
	expect_error(&r, "NOT_FOUND", 5);
	wst_run_free(&r);
	RUNJ(&r, "flink/"); /* a file named as a directory */
	expect_error(&r, "NOT_A_DIRECTORY", 5);
	wst_run_free(&r);
	RUNJ(&r, "sub/a.txt/");
	expect_error(&r, "NOT_A_DIRECTORY", 5);
	wst_run_free(&r);
	free(abs_in);
	free(abs_out);
}
END_TEST

/*
 * Files of kernel pseudo-filesystems are refused at once, even those that
 * would block (/proc/kmsg) or that read like text (/proc/self/status).
 */
START_TEST(pseudo_files)
{
	static const char *const files[] = {
		"/proc/kmsg", "/proc/self/status", "/proc/self/environ",
		"/proc/sys/kernel/hostname", "/sys/kernel/uevent_seqnum",
		"/sys/kernel/mm/transparent_hugepage/enabled",
		"/sys/kernel/tracing/trace_pipe",
		"/sys/kernel/debug/tracing/trace_pipe",
		"/sys/fs/cgroup/cgroup.procs", "/sys/kernel/security/lsm",
		NULL,
	};
	struct wst_run r;
	int tried = 0;

	for (size_t i = 0; files[i]; i++) {
		double t0;

		if (access(files[i], F_OK) != 0)
			continue; /* not on this kernel or in this container */
		tried++;
		t0 = now_s();
		wst_run(&r, NULL, "wsread", "--workspace", "/", "--json", files[i],
			NULL);
		ck_assert_msg(now_s() - t0 < 2.0, "%s took %.2f s", files[i],
			      now_s() - t0);
		ck_assert_msg(strcmp(wst_code(&r), "NOT_A_REGULAR_FILE") == 0,
			      "%s: %s", files[i], r.out);
		ck_assert_int_eq(r.status, 5);
		ck_assert_ptr_nonnull(strstr(r.out, "pseudo-filesystem"));
		wst_run_free(&r);
	}
	ck_assert_int_ge(tried, 2); /* /proc at least */
	/* Plain mode too, and a mount of /proc in the workspace's view. */
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--mount", "/.p=/proc:ro",
		"/.p/self/status", NULL);
	ck_assert_int_eq(r.status, 5);
	ck_assert_uint_eq(r.outlen, 0);
	ck_assert_ptr_nonnull(strstr(r.err, "on procfs"));
	wst_run_free(&r);
}
END_TEST

START_TEST(special_files)
{
	struct wst_run r;
	double t0;

	wst_mkfifo(ws, "fifo");
	wst_symlink("fifo", ws, "fifolink");
	t0 = now_s();
	RUNJ(&r, "fifo");
	expect_error(&r, "NOT_A_REGULAR_FILE", 5);
	wst_run_free(&r);
	RUNJ(&r, "fifolink");
	expect_error(&r, "NOT_A_REGULAR_FILE", 5);
	wst_run_free(&r);
	/* Two runs in well under a second, but for a slower build or step. */
	ck_assert_msg(now_s() - t0 < 1.0 * WST_SLOWDOWN, "a FIFO made wsread wait");
	/* A socket. */
	{
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		char *p = wst_path(ws, "sock");

		ck_assert_int_ge(s, 0);
		ck_assert_uint_lt(strlen(p), sizeof(sa.sun_path));
		strcpy(sa.sun_path, p);
		ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
		RUNJ(&r, "sock");
		expect_error(&r, "NOT_A_REGULAR_FILE", 5);
		wst_run_free(&r);
		close(s);
		free(p);
	}
	/* Directories, whatever the spelling. */
	{
		const char *dirs[] = {"sub", "sub/", "/", ".", "", NULL};

		for (size_t i = 0; dirs[i]; i++) {
			RUNJ(&r, dirs[i]);
			expect_error(&r, "IS_A_DIRECTORY", 5);
			/* With a hint, as nearly every error (ftu13 14). */
			ck_assert_msg(strstr(r.out, "\"hint\":\"a directory is listed, "
					     "not read") != NULL, "%s", r.out);
			wst_run_free(&r);
		}
	}
	RUNJ(&r, "nope.txt");
	expect_error(&r, "NOT_FOUND", 5);
	wst_run_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Line ranges and line ends                                            */

START_TEST(ranges)
{
	struct wst_run r;

	RUNJ(&r, "--start-line", "3", "--end-line", "5", "lines.txt");
	expect_content(&r, "line 3\nline 4\nline 5\n");
	ck_assert_int_eq(out_int(&r, "start_line"), 3);
	ck_assert_int_eq(out_int(&r, "end_line"), 5);
	ck_assert_int_eq(out_int(&r, "total_lines"), 10);
	ck_assert(out_bool(&r, "total_lines_known"));
	ck_assert(!out_bool(&r, "truncated"));
	ck_assert(!out_bool(&r, "binary"));
	ck_assert_int_eq(out_int(&r, "size"), 71);
	wst_run_free(&r);

	RUNJ(&r, "--start-line", "9", "lines.txt");
	expect_content(&r, "line 9\nline 10\n");
	ck_assert_int_eq(out_int(&r, "end_line"), 10);
	wst_run_free(&r);

	RUNJ(&r, "--end-line", "2", "lines.txt");
	expect_content(&r, "line 1\nline 2\n");
	ck_assert_int_eq(out_int(&r, "start_line"), 1);
	wst_run_free(&r);

	/* The end past the end is clamped. */
	RUNJ(&r, "--start-line", "10", "--end-line", "1000", "lines.txt");
	expect_content(&r, "line 10\n");
	ck_assert_int_eq(out_int(&r, "end_line"), 10);
	wst_run_free(&r);

	/* A range past the end: an empty success with total_lines. */
	RUNJ(&r, "--start-line", "11", "lines.txt");
	expect_content(&r, "");
	ck_assert_int_eq(out_int(&r, "start_line"), 11);
	ck_assert_int_eq(out_int(&r, "end_line"), 10);
	ck_assert_int_eq(out_int(&r, "total_lines"), 10);
	wst_run_free(&r);
	RUNJ(&r, "--start-line", "50", "--end-line", "60", "lines.txt");
	expect_content(&r, "");
	ck_assert_int_eq(out_int(&r, "total_lines"), 10);
	wst_run_free(&r);
	/*
	 * FTU9 10: in plain mode the empty output comes with a note on
	 * standard error that names the file's line count.
	 */
	RUNP(&r, "--start-line", "50", "lines.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "");
	ck_assert_msg(strstr(r.err, "lines.txt: no lines from line 50: the file "
			     "has 10 lines") != NULL, "%s", r.err);
	wst_run_free(&r);

	/* Plain ranges print the bytes. */
	RUNP(&r, "--start-line", "2", "--end-line", "3", "lines.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "line 2\nline 3\n");
	wst_run_free(&r);

	/* Bad ranges. */
	{
		const char *bad[][4] = {
			{"--start-line", "5", "--end-line", "3"},
			{"--start-line", "0", "--end-line", "3"},
			{"--start-line", "-1", "--end-line", "3"},
			{"--end-line", "0", "--start-line", "1"},
			{"--max-bytes", "0", "--start-line", "1"},
			{"--start-line", "x", "--end-line", "3"},
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			RUNJ(&r, bad[i][0], bad[i][1], bad[i][2], bad[i][3],
			     "lines.txt");
			expect_error(&r, "INVALID_ARGUMENT", 2);
			wst_run_free(&r);
		}
	}
}
END_TEST

START_TEST(line_ends)
{
	struct wst_run r;

	wst_write(ws, "crlf.txt", "a\r\nb\r\nc\r\n");
	RUNJ(&r, "crlf.txt");
	expect_content(&r, "a\r\nb\r\nc\r\n");
	ck_assert_int_eq(out_int(&r, "total_lines"), 3);
	wst_run_free(&r);
	RUNJ(&r, "--start-line", "2", "--end-line", "2", "crlf.txt");
	expect_content(&r, "b\r\n");
	wst_run_free(&r);
	RUNP(&r, "crlf.txt");
	ck_assert_uint_eq(r.outlen, 9);
	ck_assert(memcmp(r.out, "a\r\nb\r\nc\r\n", 9) == 0);
	wst_run_free(&r);

	wst_write(ws, "nofinal.txt", "x\ny");
	RUNJ(&r, "nofinal.txt");
	expect_content(&r, "x\ny");
	ck_assert_int_eq(out_int(&r, "total_lines"), 2);
	ck_assert_int_eq(out_int(&r, "end_line"), 2);
	wst_run_free(&r);
	RUNJ(&r, "--start-line", "2", "nofinal.txt");
	expect_content(&r, "y");
	wst_run_free(&r);
	RUNP(&r, "-n", "nofinal.txt");
	ck_assert_str_eq(r.out, "     1\tx\n     2\ty");
	wst_run_free(&r);

	wst_write(ws, "empty.txt", "");
	RUNJ(&r, "empty.txt");
	expect_content(&r, "");
	ck_assert_int_eq(out_int(&r, "total_lines"), 0);
	ck_assert_int_eq(out_int(&r, "size"), 0);
	ck_assert_int_eq(out_int(&r, "start_line"), 1);
	ck_assert_int_eq(out_int(&r, "end_line"), 0);
	wst_run_free(&r);
	RUNJ(&r, "--start-line", "1", "--end-line", "5", "empty.txt");
	expect_content(&r, "");
	wst_run_free(&r);

	wst_write(ws, "blank.txt", "\n\n\n");
	RUNJ(&r, "--start-line", "2", "--end-line", "2", "blank.txt");
	expect_content(&r, "\n");
	ck_assert_int_eq(out_int(&r, "total_lines"), 3);
	wst_run_free(&r);
}
END_TEST

START_TEST(numbering)
{
	struct wst_run r;

	RUNP(&r, "-n", "--end-line", "2", "lines.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "     1\tline 1\n     2\tline 2\n");
	wst_run_free(&r);
	RUNP(&r, "--number", "--start-line", "9", "lines.txt");
	ck_assert_str_eq(r.out, "     9\tline 9\n    10\tline 10\n");
	wst_run_free(&r);
	/* Numbering is for people: JSON content stays the bytes. */
	RUNJ(&r, "-n", "--end-line", "1", "lines.txt");
	expect_content(&r, "line 1\n");
	wst_run_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Large files                                                           */

/* A text file of n lines "line %07d\n" (13 bytes each). */
static void
write_lines(const char *rel, long n)
{
	char *p = wst_path(ws, rel);
	FILE *f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	for (long i = 1; i <= n; i++)
		fprintf(f, "line %07ld\n", i);
	fclose(f);
	free(p);
}

START_TEST(large_file)
{
	struct wst_run r;
	char want[64], scan[32];

	write_lines("big.txt", 200000); /* 2,600,000 bytes */
	/*
	 * Scans and counts are bounded by 5 s of wall time (the default
	 * limits.scan_time): a run under valgrind (WST_SLOWDOWN) gets
	 * proportionally more.
	 */
	snprintf(scan, sizeof(scan), "%.0f", 5 * WST_SLOWDOWN);
	/* JSON: the first page (2,000 lines), and where to go on. */
	RUNJ(&r, "--scan-time", scan, "big.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert(out_bool(&r, "truncated"));
	ck_assert_int_eq(out_int(&r, "start_line"), 1);
	ck_assert_int_eq(out_int(&r, "end_line"), 2000);
	ck_assert_int_eq(out_int(&r, "next_start_line"), 2001);
	ck_assert_int_eq(out_int(&r, "total_lines"), 200000);
	ck_assert_uint_eq(strlen(wst_output_str(&r, "content")), 2000 * 13);
	wst_run_free(&r);
	/* The next page goes on from there; the last one is not truncated. */
	RUNJ(&r, "--scan-time", scan, "--start-line", "2001", "big.txt");
	ck_assert_int_eq(out_int(&r, "end_line"), 4000);
	ck_assert_int_eq(out_int(&r, "next_start_line"), 4001);
	ck_assert(strncmp(wst_output_str(&r, "content"), "line 0002001\n", 13) == 0);
	wst_run_free(&r);
	RUNJ(&r, "--scan-time", scan, "--start-line", "199000", "big.txt");
	ck_assert(!out_bool(&r, "truncated"));
	ck_assert(cJSON_IsNull(wst_output(&r, "next_start_line")));
	ck_assert_int_eq(out_int(&r, "end_line"), 200000);
	wst_run_free(&r);
	/* A page in bytes: 64 KiB by default, cut at a line end. */
	RUNJ(&r, "--scan-time", scan, "--page-lines", "100000", "big.txt");
	ck_assert_uint_eq(strlen(wst_output_str(&r, "content")), 65536 / 13 * 13);
	ck_assert_int_eq(out_int(&r, "next_start_line"), 65536 / 13 + 1);
	wst_run_free(&r);
	RUNJ(&r, "--scan-time", scan, "--page-lines", "10", "--page-bytes", "1000000", "big.txt");
	ck_assert_uint_eq(strlen(wst_output_str(&r, "content")), 130);
	wst_run_free(&r);
	/* Plain mode is cat: the whole file, streamed, whatever its size. */
	RUNP(&r, "big.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(r.outlen, 2600000);
	ck_assert(memcmp(r.out + r.outlen - 13, "line 0200000\n", 13) == 0);
	wst_run_free(&r);
	/* And numbered like cat -n, streamed too. */
	RUNP(&r, "-n", "big.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(r.outlen, 2600000 + 200000 * 7);
	ck_assert(memcmp(r.out, "     1\tline 0000001\n", 20) == 0);
	ck_assert(memcmp(r.out + r.outlen - 20, "200000\tline 0200000\n", 20) == 0);
	wst_run_free(&r);
	/* Plain with --max-bytes keeps the limit. */
	RUNP(&r, "--max-bytes", "1000", "big.txt");
	ck_assert_int_eq(r.status, 5);
	ck_assert_str_eq(r.out, "");
	ck_assert_ptr_nonnull(strstr(r.err, "2600000 bytes"));
	ck_assert_ptr_nonnull(strstr(r.err, "(FILE_TOO_LARGE)"));
	wst_run_free(&r);

	/* A range works, and the rest is counted (under the budget). */
	RUNJ(&r, "--scan-time", scan, "--start-line", "150000", "--end-line", "150001", "big.txt");
	expect_content(&r, "line 0150000\nline 0150001\n");
	ck_assert_int_eq(out_int(&r, "total_lines"), 200000);
	ck_assert(out_bool(&r, "total_lines_known"));
	ck_assert_int_eq(out_int(&r, "size"), 2600000);
	wst_run_free(&r);
	RUNJ(&r, "--scan-time", scan, "--start-line", "199999", "big.txt");
	expect_content(&r, "line 0199999\nline 0200000\n");
	wst_run_free(&r);
	RUNJ(&r, "--scan-time", scan, "--start-line", "200001", "big.txt");
	expect_content(&r, "");
	ck_assert_int_eq(out_int(&r, "total_lines"), 200000);
	wst_run_free(&r);

	/* A range bigger than --max-bytes is cut at a line boundary. */
	RUNJ(&r, "--scan-time", scan, "--start-line", "1", "--max-bytes", "1000", "big.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert(out_bool(&r, "truncated"));
	{
		const char *c = wst_output_str(&r, "content");
		long long end = out_int(&r, "end_line");

		ck_assert_uint_eq(strlen(c), 1000 / 13 * 13);
		ck_assert_int_eq(end, 1000 / 13);
		snprintf(want, sizeof(want), "line %07lld\n", end);
		ck_assert_str_eq(c + strlen(c) - 13, want);
	}
	wst_run_free(&r);
	RUNP(&r, "--start-line", "1", "--max-bytes", "100", "big.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(r.outlen, 91);
	ck_assert_ptr_nonnull(strstr(r.err, "cut at the 100-byte limit"));
	wst_run_free(&r);

	/* A larger --max-bytes lifts the limit. */
	RUNJ(&r, "--scan-time", scan, "--max-bytes", "3000000", "--page-lines", "300000",
	     "--page-bytes", "3000000", "big.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(strlen(wst_output_str(&r, "content")), 2600000);
	ck_assert_int_eq(out_int(&r, "total_lines"), 200000);
	wst_run_free(&r);
	/* And a smaller one makes a small file too large (plain), or paged. */
	RUNP(&r, "--max-bytes", "10", "lines.txt");
	ck_assert_int_eq(r.status, 5);
	ck_assert_ptr_nonnull(strstr(r.err, "(FILE_TOO_LARGE)"));
	wst_run_free(&r);
	RUNJ(&r, "--scan-time", scan, "--max-bytes", "10", "lines.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert(out_bool(&r, "truncated"));
	ck_assert_uint_le(strlen(wst_output_str(&r, "content")), 10);
	wst_run_free(&r);
}
END_TEST

/*
 * The scan before a range is bounded (config limits.scan_bytes and
 * scan_time, or --scan-bytes and --scan-time), with LIMIT_EXCEEDED and exit
 * 6 naming the limit; a model cannot lift the bound through --args.
 */
START_TEST(scan_bound)
{
	struct wst_run r;
	char *cfg = wst_path(base, "c.json");

	write_lines("big.txt", 250000); /* 3,250,000 bytes */
	wst_write(base, "c.json", "{\"limits\": {\"scan_bytes\": 1048576}}");
	RUNJ(&r, "--config", cfg, "--start-line", "200000", "big.txt");
	expect_error(&r, "LIMIT_EXCEEDED", 6);
	ck_assert_msg(strstr(r.out, "1048576 bytes (limits.scan_bytes)") &&
		      strstr(r.out, "hint:"), "%s", r.out);
	wst_run_free(&r);
	RUNP(&r, "--config", cfg, "--start-line", "200000", "big.txt");
	ck_assert_int_eq(r.status, 6);
	ck_assert_uint_eq(r.outlen, 0);
	ck_assert_ptr_nonnull(strstr(r.err, "(LIMIT_EXCEEDED)"));
	wst_run_free(&r);
	/* The person's flag wins over the configuration. */
	RUNJ(&r, "--config", cfg, "--scan-bytes", "4000000", "--start-line",
	     "200000", "--end-line", "200000", "big.txt");
	expect_content(&r, "line 0200000\n");
	wst_run_free(&r);
	RUNJ(&r, "--scan-bytes", "1000", "--start-line", "200000", "big.txt");
	expect_error(&r, "LIMIT_EXCEEDED", 6);
	wst_run_free(&r);
	RUNJ(&r, "--scan-time", "0", "big.txt");
	expect_error(&r, "INVALID_ARGUMENT", 2);
	wst_run_free(&r);
	/* Not a model's to raise. */
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--config", cfg, "--args",
		"{\"path\":\"big.txt\",\"start_line\":200000,"
		"\"scan_bytes\":4000000}", NULL);
	expect_error(&r, "INVALID_ARGUMENT", 2);
	wst_run_free(&r);
	wst_write(base, "c.json", "{\"limits\": {\"scan_time\": 0}}");
	RUNJ(&r, "--config", cfg, "lines.txt");
	expect_error(&r, "INVALID_ARGUMENT", 2);
	ck_assert_ptr_nonnull(strstr(r.out, "limits.scan_time"));
	wst_run_free(&r);
	free(cfg);
}
END_TEST

START_TEST(sparse_huge_file)
{
	/*
	 * 390 KiB of text lines, then a hole up to 200 MiB: a range at the
	 * start is served from the first chunks and must not read the
	 * 200 MiB (nor see its zeros).
	 */
	struct wst_run r;
	char *p = wst_path(ws, "huge.txt");
	double t0;
	int fd;

	write_lines("huge.txt", 30000);
	fd = open(p, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 200LL * 1024 * 1024), 0);
	close(fd);
	t0 = now_s();
	RUNJ(&r, "--start-line", "1", "--end-line", "2", "huge.txt");
	ck_assert_msg(now_s() - t0 < 2.0, "took %.2f s", now_s() - t0);
	expect_content(&r, "line 0000001\nline 0000002\n");
	ck_assert_int_eq(out_int(&r, "size"), 200LL * 1024 * 1024);
	/* Too far to count: total_lines is unknown, and says so. */
	ck_assert(cJSON_IsNull(wst_output(&r, "total_lines")));
	ck_assert(!out_bool(&r, "total_lines_known"));
	ck_assert(!out_bool(&r, "truncated"));
	wst_run_free(&r);
	/* The first page, at once; the length is past the count bound. */
	t0 = now_s();
	RUNJ(&r, "huge.txt");
	ck_assert_msg(now_s() - t0 < 2.0, "took %.2f s", now_s() - t0);
	ck_assert_int_eq(r.status, 0);
	ck_assert(out_bool(&r, "truncated"));
	ck_assert_int_eq(out_int(&r, "next_start_line"), 2001);
	ck_assert(cJSON_IsNull(wst_output(&r, "total_lines")));
	ck_assert(!out_bool(&r, "total_lines_known"));
	ck_assert_int_eq(out_int(&r, "size"), 209715200);
	wst_run_free(&r);
	/*
	 * A range beyond the text runs into the zeros: binary, at once (the
	 * issue's 98-second read was such a sparse file).
	 */
	t0 = now_s();
	RUNJ(&r, "--start-line", "9999999999", "huge.txt");
	ck_assert_msg(now_s() - t0 < 2.0, "took %.2f s", now_s() - t0);
	ck_assert_int_eq(r.status, 0);
	ck_assert(out_bool(&r, "binary"));
	ck_assert(cJSON_IsNull(wst_output(&r, "content")));
	wst_run_free(&r);
	/* A file of zeros only is binary: metadata, at once. */
	fd = open(p, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 200LL * 1024 * 1024), 0);
	close(fd);
	t0 = now_s();
	RUNJ(&r, "huge.txt");
	ck_assert_msg(now_s() - t0 < 2.0, "took %.2f s", now_s() - t0);
	ck_assert_int_eq(r.status, 0);
	ck_assert(out_bool(&r, "binary"));
	ck_assert(cJSON_IsNull(wst_output(&r, "content")));
	wst_run_free(&r);
	free(p);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Binary and encodings                                                  */

START_TEST(binary)
{
	struct wst_run r;
	unsigned char bin[3000];
	unsigned char *dec;
	size_t n;

	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = (unsigned char)(i * 7 + 3);
	bin[100] = 0;
	wst_writen(ws, "blob.bin", bin, sizeof(bin));

	RUNJ(&r, "blob.bin");
	ck_assert_int_eq(r.status, 0);
	ck_assert(out_bool(&r, "binary"));
	ck_assert(cJSON_IsNull(wst_output(&r, "content")));
	ck_assert_int_eq(out_int(&r, "size"), 3000);
	ck_assert_str_eq(wst_output_str(&r, "type"), "binary");
	wst_run_free(&r);

	RUNJ(&r, "--base64", "blob.bin");
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(wst_output_str(&r, "encoding"), "base64");
	dec = b64dec(wst_output_str(&r, "content"), &n);
	ck_assert_uint_eq(n, sizeof(bin));
	ck_assert(memcmp(dec, bin, n) == 0);
	free(dec);
	wst_run_free(&r);

	/* Plain: an error line and exit 5, never the bytes. */
	RUNP(&r, "blob.bin");
	ck_assert_int_eq(r.status, 5);
	ck_assert_uint_eq(r.outlen, 0);
	ck_assert_ptr_nonnull(strstr(r.err, "binary file"));
	ck_assert_ptr_nonnull(strstr(r.err, "3000 bytes"));
	ck_assert_ptr_nonnull(strstr(r.err, "application/octet-stream"));
	wst_run_free(&r);
	/* Also with a range (not streamed). */
	RUNP(&r, "--start-line", "1", "blob.bin");
	ck_assert_int_eq(r.status, 5);
	ck_assert_uint_eq(r.outlen, 0);
	wst_run_free(&r);
	RUNP(&r, "--base64", "blob.bin");
	ck_assert_int_eq(r.status, 0);
	r.out[r.outlen - 1] = '\0';
	dec = b64dec(r.out, &n);
	ck_assert_uint_eq(n, sizeof(bin));
	ck_assert(memcmp(dec, bin, n) == 0);
	free(dec);
	wst_run_free(&r);

	/* --base64 is still bound by --max-bytes; metadata is not. */
	RUNJ(&r, "--base64", "--max-bytes", "1000", "blob.bin");
	expect_error(&r, "FILE_TOO_LARGE", 5);
	wst_run_free(&r);
	RUNJ(&r, "--max-bytes", "1000", "blob.bin");
	ck_assert_int_eq(r.status, 0);
	ck_assert(out_bool(&r, "binary"));
	wst_run_free(&r);

	/* A NUL after the first 8 KiB makes a file binary all the same. */
	{
		char *t = malloc(9001);

		memset(t, 'a', 9000);
		t[8999] = '\n';
		t[8500] = '\0';
		wst_writen(ws, "late.txt", t, 9000);
		t[8500] = 'a';
		t[8191] = '\0';
		wst_writen(ws, "early.txt", t, 9000);
		free(t);
	}
	RUNJ(&r, "late.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert(out_bool(&r, "binary"));
	wst_run_free(&r);
	RUNJ(&r, "early.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert(out_bool(&r, "binary"));
	wst_run_free(&r);
}
END_TEST

/*
 * Text for 100 KiB, then NULs: binary in JSON and in plain mode, exactly as
 * a file binary from its first byte; also when it is streamed (over
 * --max-bytes) and the NULs come in a later chunk.
 */
START_TEST(binary_after_text)
{
	struct wst_run r, r0;
	size_t n = 104 * 1024;
	char *t = calloc(1, 3 << 20), *a, *b;

	for (size_t i = 0; i < 100 * 1024; i++)
		t[i] = i % 64 == 63 ? '\n' : 'a' + (char)(i % 26);
	wst_writen(ws, "late.txt", t, n);
	wst_writen(ws, "early.bin", t + 100 * 1024, n); /* zeros from byte 0 */
	RUNJ(&r, "late.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert(out_bool(&r, "binary"));
	ck_assert(cJSON_IsNull(wst_output(&r, "content")));
	ck_assert(cJSON_IsNull(wst_output(&r, "total_lines")));
	ck_assert_int_eq(out_int(&r, "size"), (long long)n);
	wst_run_free(&r);
	/* Plain: the same outcome as for early.bin, byte for byte. */
	RUNP(&r, "late.txt");
	RUNP(&r0, "early.bin");
	ck_assert_int_eq(r.status, r0.status);
	ck_assert_int_eq(r.status, 5);
	ck_assert_uint_eq(r.outlen, 0);
	a = strstr(r.err, "is a binary");
	b = strstr(r0.err, "is a binary");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(a, b);
	wst_run_free(&r);
	wst_run_free(&r0);
	/* Streamed: 2 MiB of text, then NULs, a range that reaches them. */
	for (size_t i = 0; i < 2u << 20; i++)
		t[i] = i % 64 == 63 ? '\n' : 'a' + (char)(i % 26);
	memset(t + (2u << 20), 0, 1u << 20);
	wst_writen(ws, "big.txt", t, 3u << 20);
	RUNJ(&r, "--start-line", "40000", "--end-line", "40001", "big.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert(out_bool(&r, "binary"));
	ck_assert(cJSON_IsNull(wst_output(&r, "content")));
	wst_run_free(&r);
	RUNP(&r, "--start-line", "40000", "--end-line", "40001", "big.txt");
	ck_assert_ptr_null(strstr(r.out, "abcdef"));
	ck_assert_int_eq(r.status, 5);
	ck_assert_ptr_nonnull(strstr(r.err, "binary file"));
	wst_run_free(&r);
	free(t);
}
END_TEST

START_TEST(binary_types)
{
	static const struct {
		const char *name, *magic, *type;
		size_t len;
	} t[] = {
		{"a.png", "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "png", 16},
		{"a.jpg", "\xff\xd8\xff\xe0\0\x10JFIF\0", "jpeg", 11},
		{"a.gif", "GIF89a\x01\0\x01\0", "gif", 10},
		{"a.pdf", "%PDF-1.7\n\0\0", "pdf", 11},
		{"a.zip", "PK\x03\x04\x14\0\0\0", "zip", 8},
		{"a.gz", "\x1f\x8b\x08\0\0\0\0\0", "gzip", 8},
		{"a.elf", "\x7f" "ELF\x02\x01\x01\0", "elf", 8},
		{"a.db", "SQLite format 3\0\x10\0", "sqlite", 18},
		{"a.bin", "\0\x01\x02", "binary", 3},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct wst_run r;

		wst_writen(ws, t[i].name, t[i].magic, t[i].len);
		RUNJ(&r, t[i].name);
		ck_assert_int_eq(r.status, 0);
		ck_assert(out_bool(&r, "binary"));
		ck_assert_str_eq(wst_output_str(&r, "type"), t[i].type);
		wst_run_free(&r);
	}
}
END_TEST

START_TEST(encodings)
{
	struct wst_run r;
	const char latin1[] = "caf\xe9 cr\xe8me\n";
	unsigned char *dec;
	size_t n;

	wst_write(ws, "latin1.txt", latin1);
	/* Mostly UTF-8: text, U+FFFD for each invalid byte, and said so. */
	RUNJ(&r, "latin1.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert(!out_bool(&r, "binary"));
	ck_assert(out_bool(&r, "invalid_utf8"));
	expect_content(&r, "caf\xef\xbf\xbd cr\xef\xbf\xbdme\n");
	ck_assert_int_eq(out_int(&r, "total_lines"), 1);
	wst_run_free(&r);
	/* The bytes as they are, on request. */
	RUNJ(&r, "--base64", "latin1.txt");
	ck_assert_str_eq(wst_output_str(&r, "encoding"), "base64");
	dec = b64dec(wst_output_str(&r, "content"), &n);
	ck_assert_uint_eq(n, strlen(latin1));
	ck_assert(memcmp(dec, latin1, n) == 0);
	free(dec);
	wst_run_free(&r);
	/* Mostly not UTF-8 (no NUL, but most bytes invalid): binary. */
	wst_write(ws, "noise.dat", "\xff\xfe\x80\x81\x82\x83" "abc\xfe\xff");
	RUNJ(&r, "noise.dat");
	ck_assert(out_bool(&r, "binary"));
	ck_assert(cJSON_IsNull(wst_output(&r, "content")));
	ck_assert(!out_bool(&r, "invalid_utf8"));
	wst_run_free(&r);
	RUNP(&r, "latin1.txt");
	ck_assert_str_eq(r.out, latin1);
	wst_run_free(&r);

	wst_write(ws, "utf8.txt", "h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x98\x80\n");
	RUNJ(&r, "utf8.txt");
	expect_content(&r, "h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x98\x80\n");
	wst_run_free(&r);
	/* --base64 on text returns the range's bytes, encoded. */
	RUNJ(&r, "--base64", "--start-line", "2", "lines.txt");
	ck_assert_str_eq(wst_output_str(&r, "encoding"), "base64");
	dec = b64dec(wst_output_str(&r, "content"), &n);
	ck_assert_uint_eq(n, 64);
	ck_assert(memcmp(dec, "line 2\n", 7) == 0);
	free(dec);
	wst_run_free(&r);
	/* Control characters stay valid JSON. */
	wst_write(ws, "ctl.txt", "a\x01\x1b[0m\"\\\n");
	RUNJ(&r, "ctl.txt");
	expect_content(&r, "a\x01\x1b[0m\"\\\n");
	wst_run_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The JSON contract, --args and --schema                               */

START_TEST(json_contract)
{
	struct wst_run r;
	const char *keys[] = {"path", "real_path", "content", "encoding",
			      "start_line", "end_line", "total_lines",
			      "total_lines_known", "size", "binary", "type",
			      "truncated", NULL};

	RUNJ(&r, "lines.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(r.json, "success")));
	ck_assert_str_eq(cJSON_GetObjectItem(r.json, "tool")->valuestring,
			 "read_file");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(r.json, "error")));
	for (size_t i = 0; keys[i]; i++)
		ck_assert_msg(wst_output(&r, keys[i]) != NULL, "no %s", keys[i]);
	ck_assert_str_eq(wst_output_str(&r, "type"), "text");
	wst_run_free(&r);
	/* WS_FORMAT=json does what --json does. */
	{
		const char *env[] = {"WS_FORMAT=json", NULL};
		const char *argv[] = {"--workspace", ws, "sub/a.txt", NULL};

		wst_runv(&r, NULL, env, "wsread", argv);
		expect_content(&r, "alpha\n");
		wst_run_free(&r);
	}
	/* The error envelope. */
	RUNJ(&r, "../outside/secret");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(r.json, "output")));
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r.json, "error"),
					     "path")->valuestring,
			 "../outside/secret");
	wst_run_free(&r);
}
END_TEST

START_TEST(args)
{
	struct wst_run r;

	wst_run(&r, NULL, "wsread", "--workspace", ws, "--args",
		"{\"path\":\"lines.txt\",\"start_line\":2,\"end_line\":3}", NULL);
	expect_content(&r, "line 2\nline 3\n");
	wst_run_free(&r);
	wst_run(&r, "{\"path\":\"/sub/a.txt\",\"max_bytes\":100}", "wsread",
		"--workspace", ws, "--args", "-", NULL);
	expect_content(&r, "alpha\n");
	wst_run_free(&r);
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--args",
		"{\"path\":\"sub/a.txt\",\"base64\":true}", NULL);
	ck_assert_str_eq(wst_output_str(&r, "content"), "YWxwaGEK");
	wst_run_free(&r);
	/* --args with --plain prints plain text. */
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--plain", "--args",
		"{\"path\":\"sub/a.txt\"}", NULL);
	ck_assert_str_eq(r.out, "alpha\n");
	wst_run_free(&r);
	{
		const char *bad[] = {
			"{\"path\":\"sub/a.txt\",\"bogus\":1}",
			"{\"path\":\"sub/a.txt\",\"start_line\":\"two\"}",
			"{\"path\":\"sub/a.txt\",\"start_line\":1.5}",
			"{\"path\":\"sub/a.txt\",\"base64\":\"yes\"}",
			"{\"path\":\"sub/a.txt\",\"number\":true}",
			"{\"path\":\"sub/a.txt\",\"start-line\":1}",
			"{\"path\":5}",
			"{\"start_line\":1}",
			"[\"sub/a.txt\"]",
			"{not json",
			"{\"path\":\"lines.txt\",\"start_line\":0}",
			"{\"path\":\"lines.txt\",\"start_line\":4,\"end_line\":2}",
			NULL,
		};

		for (size_t i = 0; bad[i]; i++) {
			wst_run(&r, NULL, "wsread", "--workspace", ws, "--args",
				bad[i], NULL);
			ck_assert_msg(strcmp(wst_code(&r), "INVALID_ARGUMENT") == 0,
				      "%s gave %s", bad[i], r.out);
			ck_assert_int_eq(r.status, 2);
			wst_run_free(&r);
		}
	}
}
END_TEST

START_TEST(schema_help)
{
	struct wst_run r;
	cJSON *fn, *props, *req;

	wst_run(&r, NULL, "wsread", "--schema", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(r.json);
	ck_assert_str_eq(cJSON_GetObjectItem(r.json, "type")->valuestring,
			 "function");
	fn = cJSON_GetObjectItem(r.json, "function");
	ck_assert_str_eq(cJSON_GetObjectItem(fn, "name")->valuestring,
			 "read_file");
	ck_assert(cJSON_IsString(cJSON_GetObjectItem(fn, "description")));
	props = cJSON_GetObjectItem(cJSON_GetObjectItem(fn, "parameters"),
				    "properties");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(props, "path"),
					     "type")->valuestring, "string");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(props,
		"start_line"), "type")->valuestring, "integer");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(props,
		"end_line"), "type")->valuestring, "integer");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(props,
		"max_bytes"), "type")->valuestring, "integer");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(props,
		"base64"), "type")->valuestring, "boolean");
	ck_assert_ptr_null(cJSON_GetObjectItem(props, "number"));
	req = cJSON_GetObjectItem(cJSON_GetObjectItem(fn, "parameters"),
				  "required");
	/* "path" or "paths": neither is required by the schema alone (the
	 * tool says which is missing). */
	ck_assert_int_eq(cJSON_GetArraySize(req), 0);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(props,
		"paths"), "type")->valuestring, "array");
	wst_run_free(&r);

	wst_run(&r, NULL, "wsread", "--help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "Usage: wsread [OPTION]... PATH"));
	ck_assert_ptr_nonnull(strstr(r.out, "--start-line"));
	ck_assert_ptr_nonnull(strstr(r.out, "-n, --number"));
	wst_run_free(&r);
	/* No path, or --tail with a range: INVALID_ARGUMENT. */
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--json", NULL);
	expect_error(&r, "INVALID_ARGUMENT", 2);
	wst_run_free(&r);
	RUNJ(&r, "--tail", "2", "--start-line", "1", "lines.txt");
	expect_error(&r, "INVALID_ARGUMENT", 2);
	wst_run_free(&r);
	/* A missing workspace. */
	wst_run(&r, NULL, "wsread", "--workspace", "/nonexistent-ws-dir",
		"--json", "a.txt", NULL);
	expect_error(&r, "WORKSPACE_NOT_FOUND", 2);
	wst_run_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Issue 9: tail, numbers in JSON, several files, version, MIME, cat    */

START_TEST(tail_and_numbers)
{
	struct wst_run r;

	RUNJ(&r, "--tail", "2", "lines.txt");
	expect_content(&r, "line 9\nline 10\n");
	ck_assert_int_eq(out_int(&r, "start_line"), 9);
	ck_assert_int_eq(out_int(&r, "total_lines"), 10);
	wst_run_free(&r);
	RUNP(&r, "--tail", "1", "lines.txt");
	ck_assert_str_eq(r.out, "line 10\n");
	wst_run_free(&r);
	/* cat -n style content in JSON, numbered from the first line read. */
	RUNJ(&r, "--line-numbers", "--start-line", "9", "lines.txt");
	expect_content(&r, "     9\tline 9\n    10\tline 10\n");
	wst_run_free(&r);
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--args",
		"{\"path\":\"lines.txt\",\"tail\":1,\"line_numbers\":true}", NULL);
	expect_content(&r, "    10\tline 10\n");
	wst_run_free(&r);
	/* A tail of a large file: found from the end, numbered. */
	write_lines("big.txt", 200000);
	RUNJ(&r, "--tail", "1", "big.txt");
	expect_content(&r, "line 0200000\n");
	ck_assert_int_eq(out_int(&r, "start_line"), 200000);
	wst_run_free(&r);
	RUNJ(&r, "--tail", "0", "lines.txt");
	expect_error(&r, "INVALID_ARGUMENT", 2);
	wst_run_free(&r);
}
END_TEST

START_TEST(several_files)
{
	struct wst_run r;
	cJSON *res;

	RUNJ(&r, "sub/a.txt", "nope.txt", "lines.txt");
	ck_assert_int_eq(r.status, 5);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(r.json, "success")));
	ck_assert_str_eq(wst_code(&r), "NOT_FOUND");
	res = wst_output(&r, "results");
	ck_assert_int_eq(cJSON_GetArraySize(res), 3);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(res, 0),
					     "content")->valuestring, "alpha\n");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetArrayItem(res, 1), "error"), "code")->valuestring,
		"NOT_FOUND");
	ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(res, 2),
					     "total_lines")->valueint, 10);
	wst_run_free(&r);
	RUNJ(&r, "sub/a.txt", "lines.txt");
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(cJSON_GetArraySize(wst_output(&r, "results")), 2);
	wst_run_free(&r);
	/* The same from a model: "paths", an array; neither key is an error. */
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--args",
		"{\"paths\": [\"sub/a.txt\", \"lines.txt\"]}", NULL);
	ck_assert_msg(r.status == 0, "%s", r.out);
	ck_assert_int_eq(cJSON_GetArraySize(wst_output(&r, "results")), 2);
	wst_run_free(&r);
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--args", "{}", NULL);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	/* Plain: like cat, in order; a failure is reported and skipped. */
	RUNP(&r, "sub/a.txt", "nope.txt", "sub/a.txt");
	ck_assert_int_eq(r.status, 5);
	ck_assert_str_eq(r.out, "alpha\nalpha\n");
	ck_assert_ptr_nonnull(strstr(r.err, "nope.txt"));
	wst_run_free(&r);
}
END_TEST

START_TEST(version_mime)
{
	struct wst_run r;
	char v1[64];

	RUNJ(&r, "sub/a.txt");
	ck_assert_uint_eq(strlen(wst_output_str(&r, "version")), 16);
	snprintf(v1, sizeof(v1), "%s", wst_output_str(&r, "version"));
	ck_assert(cJSON_IsNull(wst_output(&r, "mime_type")));
	wst_run_free(&r);
	RUNJ(&r, "sub/a.txt");
	ck_assert_str_eq(wst_output_str(&r, "version"), v1);
	wst_run_free(&r);
	wst_write(ws, "sub/a.txt", "beta\n");
	RUNJ(&r, "sub/a.txt");
	ck_assert_str_ne(wst_output_str(&r, "version"), v1);
	wst_run_free(&r);
	/* A PNG: binary, image/png, and a version all the same. */
	wst_writen(ws, "logo.png", "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
	RUNJ(&r, "logo.png");
	ck_assert(out_bool(&r, "binary"));
	ck_assert_str_eq(wst_output_str(&r, "mime_type"), "image/png");
	ck_assert_uint_eq(strlen(wst_output_str(&r, "version")), 16);
	wst_run_free(&r);
	RUNP(&r, "logo.png");
	ck_assert_int_eq(r.status, 5);
	ck_assert_uint_eq(r.outlen, 0);
	ck_assert_ptr_nonnull(strstr(r.err, "image/png"));
	wst_run_free(&r);
}
END_TEST

/*
 * Plain mode streams: 3 MiB of text whose last chunk holds a NUL writes
 * the text before it, then the error line and exit 5 (the check runs per
 * chunk, before it is written).
 */
START_TEST(plain_stream_binary_late)
{
	struct wst_run r;
	size_t n = 3u << 20;
	char *t = malloc(n);

	for (size_t i = 0; i < n; i++)
		t[i] = i % 64 == 63 ? '\n' : 'a';
	t[n - 10] = '\0';
	wst_writen(ws, "late.txt", t, n);
	RUNP(&r, "late.txt");
	ck_assert_int_eq(r.status, 5);
	ck_assert_ptr_null(memchr(r.out, '\0', r.outlen));
	ck_assert_uint_lt(r.outlen, n);
	ck_assert_ptr_nonnull(strstr(r.err, "binary file"));
	wst_run_free(&r);
	free(t);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The race                                                              */

struct read_race {
	int ok, refused;
};

/* One run of wsread on d/f while the swapper runs. */
static void
read_attempt(void *arg, int i)
{
	struct read_race *rr = arg;
	const char *argv[] = {"--workspace", ws, "--json", "d/f", NULL};
	char *out;
	size_t n;
	int status = wst_spawn("wsread", argv, NULL, &out, &n);
	cJSON *j;

	ck_assert_msg(memmem(out, n, SECRET, strlen(SECRET)) == NULL,
		      "run %d read outside: %s", i, out);
	j = cJSON_Parse(out);
	ck_assert_msg(j != NULL, "no JSON: %s", out);
	if (status == 0) {
		cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "output"),
					       "content");

		ck_assert(cJSON_IsString(c));
		ck_assert_str_eq(c->valuestring, "inside\n");
		rr->ok++;
	} else {
		ck_assert_int_ne(status, 128 + SIGSEGV);
		rr->refused++;
	}
	cJSON_Delete(j);
	free(out);
}

/*
 * A child swaps ws/d (a directory holding f) with ws/l (a symlink to the
 * outside directory, which also holds f, with the secret) as fast as it
 * can, while wsread reads d/f again and again.  Whatever it catches, the
 * secret must never come out.  (The race suite runs every tool so.)
 */
static void
race(const char *target, int runs)
{
	char *d = wst_path(ws, "d"), *l = wst_path(ws, "l");
	struct read_race rr = {0, 0};
	unsigned long swaps;

	wst_write(ws, "d/f", "inside\n");
	wst_symlink(target, ws, "l");
	swaps = wst_race(d, l, WST_RACE_EXCHANGE, runs, read_attempt, &rr);
	/* Both states were seen, so the race really ran. */
	ck_assert_uint_gt(swaps, 1000);
	ck_assert_msg(rr.ok > 0 && rr.refused > 0, "ok %d refused %d", rr.ok,
		      rr.refused);
	free(d);
	free(l);
}

/*
 * 2,000 runs: a few seconds, also under ASan.  The unit suite
 * adds 10,000 in-process attempts each with an absolute and a relative
 * link.
 */
START_TEST(race_absolute_link)
{
	race(outside, wst_race_iterations(2000));
}
END_TEST

/* A repeated key in --args is refused, naming it (issue 18). */
START_TEST(args_repeated_key)
{
	struct wst_run r;

	wst_write(ws, "f", "hello\n");
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--args",
		"{\"path\":\"f\",\"max_bytes\":1,\"max_bytes\":100000}", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_msg(strstr(r.out, "\\\"max_bytes\\\" is given more than once"),
		      "%s", r.out);
	wst_run_free(&r);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("cli-wsread");
	TCase *tc = tcase_create("core");
	TCase *tr = tcase_create("race");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, forms_relative_shorthand_absolute);
	tcase_add_test(tc, forms_cwd_is_not_used);
	tcase_add_test(tc, forms_cwd_hint);
	tcase_add_test(tc, forms_did_you_mean);
	tcase_add_test(tc, forms_mount_ro);
	tcase_add_test(tc, forms_strict);
	tcase_add_test(tc, escape_dotdot);
	tcase_add_test(tc, escape_siblings);
	tcase_add_test(tc, names_with_dots);
	tcase_add_test(tc, invalid_paths);
	tcase_add_test(tc, symlinks);
	tcase_add_test(tc, pseudo_files);
	tcase_add_test(tc, special_files);
	tcase_add_test(tc, ranges);
	tcase_add_test(tc, line_ends);
	tcase_add_test(tc, numbering);
	tcase_add_test(tc, large_file);
	tcase_add_test(tc, scan_bound);
	tcase_add_test(tc, sparse_huge_file);
	tcase_add_test(tc, binary);
	tcase_add_test(tc, binary_after_text);
	tcase_add_test(tc, binary_types);
	tcase_add_test(tc, encodings);
	tcase_add_test(tc, json_contract);
	tcase_add_test(tc, args);
	tcase_add_test(tc, args_repeated_key);
	tcase_add_test(tc, schema_help);
	tcase_add_test(tc, tail_and_numbers);
	tcase_add_test(tc, several_files);
	tcase_add_test(tc, version_mime);
	tcase_add_test(tc, plain_stream_binary_late);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tr, setup, teardown);
	tcase_add_test(tr, race_absolute_link);
	suite_add_tcase(s, tr);
	return s;
}

WST_MAIN(suite)
