/*
 * test_history.c (cli) - every change recorded and reversible (issue 22,
 * DESIGN.md 5 "History and audit"): wstools undo of each operation and
 * of a series, refused after a later change (VERSION_MISMATCH, --force),
 * the history listing, bounds and eviction, --no-history, and the state
 * directory guarded: no tool writes into it, no wsrun command reaches it.
 */
#include "wstest.h"

#include <fcntl.h>
#include <dirent.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ws/history.h"
#include "ws/workspace.h"

static char *T, *W, *S, *ENV_S;

static void
setup(void)
{
	T = wst_tmpdir();
	W = wst_path(T, "ws");
	S = wst_path(T, "state");
	wst_mkdir(T, "ws");
	ck_assert_int_ge(asprintf(&ENV_S, "XDG_STATE_HOME=%s", S), 0);
}

static void
teardown(void)
{
	wst_rmrf(T);
	free(T);
	free(W);
	free(S);
	free(ENV_S);
}

/* The state directory of W's history under base (ws_hist_dir() of its
 * key: the root's path and identity). */
static char *
hist_dir(const char *base)
{
	struct ws_ctx c;
	char *key, *d;

	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(ws_ctx_open(&c, W, 0), 0);
	key = ws_hist_root_key(&c);
	ck_assert_ptr_nonnull(key);
	d = ws_hist_dir(base, key);
	free(key);
	ws_ctx_close(&c);
	return d;
}

/* Run tool (argv without the tool's name, NULL-terminated) with the
 * test's state directory; *r for the caller to free. */
static void
run(struct wst_run *r, const char *tool, const char *const *argv)
{
	const char *env[] = {ENV_S, NULL};

	wst_runv(r, NULL, env, tool, argv);
}

/* wswrite --workspace W ARGS..., which must succeed. */
#define WS_OK(...)                                                            \
	do {                                                                  \
		struct wst_run r_;                                            \
		run(&r_, "wswrite", (const char *[]){"--workspace", W, __VA_ARGS__, NULL}); \
		ck_assert_msg(r_.status == 0, "wswrite: %s", r_.err);         \
		wst_run_free(&r_);                                            \
	} while (0)

/* wstools undo --workspace W ARGS...: its exit status, stderr in err. */
static int
undo(char **err, const char *a1, const char *a2)
{
	struct wst_run r;
	int st;

	run(&r, "wstools", (const char *[]){"undo", "--workspace", W, "--json",
		a1, a2, NULL});
	st = r.status;
	if (err != NULL)
		*err = strdup(r.out);
	wst_run_free(&r);
	return st;
}

static char *
content(const char *rel)
{
	char *p = wst_path(W, rel), *c = wst_slurp(p, NULL);

	free(p);
	return c;
}

static bool
there(const char *rel)
{
	char *p = wst_path(W, rel);
	bool e = wst_exists(p);

	free(p);
	return e;
}

static void
assert_content(const char *rel, const char *want)
{
	char *c = content(rel);

	ck_assert_msg(c != NULL, "%s is missing", rel);
	ck_assert_str_eq(c, want);
	free(c);
}

START_TEST(undo_each_operation)
{
	/* create, then undo: gone. */
	WS_OK("--content", "one", "a.txt");
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	ck_assert(!there("a.txt"));
	/* overwrite */
	WS_OK("--content", "one", "a.txt");
	WS_OK("--content", "two", "a.txt");
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	assert_content("a.txt", "one");
	/* append */
	WS_OK("--append", "--content", "+", "a.txt");
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	assert_content("a.txt", "one");
	/* edit, with the mode kept */
	{
		char *p = wst_path(W, "a.txt");
		struct stat st;

		ck_assert_int_eq(chmod(p, 0640), 0);
		WS_OK("--edit", "--old", "one", "--new", "uno", "a.txt");
		ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
		assert_content("a.txt", "one");
		ck_assert_int_eq(stat(p, &st), 0);
		ck_assert_int_eq(st.st_mode & 0777, 0640);
		free(p);
	}
	/* delete of a file */
	WS_OK("--delete", "a.txt");
	ck_assert(!there("a.txt"));
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	assert_content("a.txt", "one");
	/* mkdir */
	WS_OK("--mkdir", "d");
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	ck_assert(!there("d"));
	/* delete of a tree, symlinks and an empty directory included */
	wst_mkdir(W, "t/sub/empty");
	wst_write(W, "t/x", "x\n");
	wst_write(W, "t/sub/y", "y\n");
	wst_symlink("../x", W, "t/sub/l");
	WS_OK("--delete", "-r", "t");
	ck_assert(!there("t"));
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	assert_content("t/x", "x\n");
	assert_content("t/sub/y", "y\n");
	ck_assert(there("t/sub/empty"));
	{
		char buf[16], *l = wst_path(W, "t/sub/l");
		ssize_t n = readlink(l, buf, sizeof(buf) - 1);

		ck_assert_int_eq(n, 4);
		buf[n] = '\0';
		ck_assert_str_eq(buf, "../x");
		free(l);
	}
	/* move, and a move that replaced a file */
	WS_OK("--move", "b.txt", "a.txt");
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	assert_content("a.txt", "one");
	ck_assert(!there("b.txt"));
	wst_write(W, "b.txt", "bee");
	WS_OK("--force", "--move", "b.txt", "a.txt");
	assert_content("b.txt", "one");
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	assert_content("a.txt", "one");
	assert_content("b.txt", "bee");
}
END_TEST

/*
 * A tree's record is written as text by hand (issue 22's speed): names
 * with quotes, backslashes, controls and bytes that are not UTF-8 come
 * back byte for byte, and so do contents on both sides of the inline
 * bound (4096 bytes in the record, larger as an object), empty files and
 * modes.  A backslash in a name is a byte of it, not a separator: undo
 * put "back\slash" back as "back/slash" (a requested path splits there).
 */
START_TEST(tree_names_and_contents_come_back)
{
	static const char *const names[] = {
		"q\"uote", "new\nline", "tab\there", "ctl\x01\x1f",
		"bytes\xff\xfe", "caf\xc3\xa9", "sp ace", "back\\slash",
		"\\lead", "trail\\",
	};
	static const size_t sizes[] = {0, 1, 4095, 4096, 4097, 70000};
	char rel[64], *big = malloc(70001);
	struct stat st;

	ck_assert_ptr_nonnull(big);
	wst_mkdir(W, "t/sub");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(rel, sizeof(rel), "t/sub/%s", names[i]);
		wst_write(W, rel, names[i]);
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (size_t k = 0; k < sizes[i]; k++)
			big[k] = (char)('a' + (k * 7 + i) % 26);
		big[sizes[i]] = '\0';
		snprintf(rel, sizeof(rel), "t/s%zu", sizes[i]);
		wst_write(W, rel, big);
	}
	{
		char *p = wst_path(W, "t/s1");

		ck_assert_int_eq(chmod(p, 0600), 0);
		free(p);
	}
	WS_OK("--delete", "-r", "t");
	ck_assert(!there("t"));
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(rel, sizeof(rel), "t/sub/%s", names[i]);
		assert_content(rel, names[i]);
	}
	ck_assert(!there("t/sub/back"));
	ck_assert(!there("t/sub/lead"));
	ck_assert(!there("t/sub/trail"));
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (size_t k = 0; k < sizes[i]; k++)
			big[k] = (char)('a' + (k * 7 + i) % 26);
		big[sizes[i]] = '\0';
		snprintf(rel, sizeof(rel), "t/s%zu", sizes[i]);
		assert_content(rel, big);
	}
	{
		char *p = wst_path(W, "t/s1");

		ck_assert_int_eq(stat(p, &st), 0);
		ck_assert_int_eq(st.st_mode & 0777, 0600);
		free(p);
	}
	free(big);
}
END_TEST

START_TEST(undo_series_and_listing)
{
	struct wst_run r;
	cJSON *e;

	WS_OK("--content", "1", "f");
	WS_OK("--content", "2", "f");
	WS_OK("--content", "3", "f");
	WS_OK("--content", "g", "g");
	/* Through wstools call: the front end is said. */
	run(&r, "wstools", (const char *[]){"call", "write_file",
		"{\"path\":\"f\",\"content\":\"4\"}", "--workspace", W, NULL});
	ck_assert_int_eq(r.status, 0);
	wst_run_free(&r);
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json", "f", NULL});
	ck_assert_int_eq(r.status, 0);
	e = wst_output(&r, "entries");
	ck_assert_int_eq(cJSON_GetArraySize(e), 4);
	ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(e, 0), "id")->valueint, 5);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(e, 0),
								  "frontend")), "call");
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(e, 3),
								  "operation")), "create");
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetArrayItem(e, 0), "version_before"));
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetArrayItem(e, 0), "version_after"));
	wst_run_free(&r);
	/* -n 2: the call's write and g's creation. */
	ck_assert_int_eq(undo(NULL, "-n", "2"), 0);
	assert_content("f", "3");
	ck_assert(!there("g"));
	/* Undos are not undone by a plain undo: the next is entry 3. */
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	assert_content("f", "2");
	/* --to 1: back to before the first. */
	ck_assert_int_eq(undo(NULL, "--to", "1"), 0);
	ck_assert(!there("f"));
	{
		char *out = NULL;

		ck_assert_int_ne(undo(&out, NULL, NULL), 0);
		ck_assert_ptr_nonnull(strstr(out, "nothing to undo"));
		free(out);
		/* FTU8 07: an entry asked by id says why there is nothing. */
		ck_assert_int_eq(undo(&out, "5", NULL), 5);
		ck_assert_msg(strstr(out, "entry 5 was undone already, by entry 6") != NULL,
			      "%s", out);
		free(out);
		/*
		 * ftu13 12: an undo asked for by its id is taken as a change
		 * (it was NOT_FOUND, "itself an undo"), checked as any: entry
		 * 6 left f at 3, and f is gone since, so it is a mismatch.
		 * undo_hints_hold undoes one.
		 */
		ck_assert_int_eq(undo(&out, "6", NULL), 5);
		ck_assert_msg(strstr(out, "VERSION_MISMATCH") != NULL, "%s", out);
		free(out);
	}
}
END_TEST

/*
 * Review18 06: the history lists a change to a file the policy denies
 * every operation on as an entry that is there, but names no path, size
 * or version: the listing said what wsls and wsread refuse to.  The same
 * listing without the policy names it.
 */
START_TEST(listing_hides_what_the_policy_denies)
{
	struct wst_run r;
	char *pol = wst_path(T, "deny.json");
	cJSON *e, *x;

	wst_write(T, "deny.json",
		  "{\"version\": 1, \"name\": \"t\", \"file_rules\": ["
		  "{\"name\": \"secrets\", \"paths\": [\"${WORKSPACE}/secrets\","
		  " \"${WORKSPACE}/secrets/**\"], \"operations\": [\"*\"], \"decision\": \"deny\"},"
		  "{\"name\": \"all\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
		  " \"decision\": \"allow\"}]}");
	WS_OK("--content", "PW=1", "secrets/prod-db.env");
	WS_OK("--content", "open", "open.txt");
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json",
		"--policy", pol, NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "prod-db") == NULL, "%s", r.out);
	e = wst_output(&r, "entries");
	ck_assert_int_eq(cJSON_GetArraySize(e), 2);
	x = cJSON_GetArrayItem(e, 0);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(x, "path")), "/open.txt");
	x = cJSON_GetArrayItem(e, 1);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(x, "path")));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(x, "hidden")));
	ck_assert_ptr_null(cJSON_GetObjectItem(x, "version_after"));
	wst_run_free(&r);
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--policy", pol, NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "(a path the policy hides)") != NULL, "%s", r.out);
	ck_assert_msg(strstr(r.out, "prod-db") == NULL, "%s", r.out);
	wst_run_free(&r);
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json", NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "/secrets/prod-db.env") != NULL, "%s", r.out);
	wst_run_free(&r);
	/* Review19 07: asked about a hidden name, written or not, the same
	 * refusal: no oracle. */
	for (int k = 0; k < 2; k++) {
		run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json",
			"--policy", pol, k ? "secrets/never.env" : "secrets/prod-db.env", NULL});
		ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
		wst_run_free(&r);
	}
	/*
	 * ftu13 21: undo of the hidden entry (by id, and as the newest, in
	 * a dry run too) is refused without naming it; the others are
	 * undone by id.
	 */
	WS_OK("--content", "PW=2", "secrets/prod-db.env");
	for (int k = 0; k < 3; k++) {
		run(&r, "wstools", (const char *[]){"undo", "--workspace", W, "--json",
			"--policy", pol, k == 0 ? "--dry-run" : k == 1 ? "3" : NULL, NULL});
		ck_assert_msg(strcmp(wst_code(&r), "POLICY_DENIED") == 0 &&
			      strstr(r.out, "prod-db") == NULL && strstr(r.out, "entry 3") != NULL,
			      "%d: %s", k, r.out);
		wst_run_free(&r);
	}
	assert_content("secrets/prod-db.env", "PW=2");
	run(&r, "wstools", (const char *[]){"undo", "--workspace", W, "--json",
		"--policy", pol, "2", NULL});
	ck_assert_msg(r.status == 0, "%s", r.out);
	wst_run_free(&r);
	ck_assert(!there("open.txt"));
	free(pol);
}
END_TEST

/*
 * Review18 10: the undo of a deleted link made the directories above it
 * without the guards: docs/refs/x and docs/refs deleted, docs given a
 * HEAD, a config and objects, then the undo of the link's delete made
 * docs/refs, and docs was a repository with the agent's config.  The
 * directories above a link are made as ws_mkdir() makes them now, so the
 * undo is refused (POLICY_DENIED) and makes nothing.
 */
START_TEST(undo_link_parents_are_guarded)
{
	char *out = NULL;

	wst_mkdir(T, "ws/docs/refs");
	wst_symlink("t", W, "docs/refs/x");
	WS_OK("--delete", "docs/refs/x");
	WS_OK("--delete", "-r", "docs/refs");
	WS_OK("--content", "ref: refs/heads/main\n", "docs/HEAD");
	WS_OK("--content", "[core]\n\tpager = x\n", "docs/config");
	WS_OK("--mkdir", "docs/objects");
	ck_assert_int_eq(undo(&out, "1", NULL), 3);
	ck_assert_msg(strstr(out, "POLICY_DENIED") != NULL, "%s", out);
	free(out);
	ck_assert(!there("docs/refs"));
	/* Where nothing guards the way, the link and its parents come back. */
	wst_mkdir(T, "ws/a/b");
	wst_symlink("t", W, "a/b/l");
	WS_OK("--delete", "-r", "a");
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	ck_assert(there("a/b"));
}
END_TEST

/*
 * Review18 11: a recursive delete of a tree holding a nested repository
 * was allowed (the repository goes whole), but its undo stopped at the
 * .git, which no file tool makes: an empty directory came back, the
 * commits did not.  The delete is refused while the history is on,
 * before anything goes; without the history nothing is promised.
 */
START_TEST(tree_with_repository_not_deleted)
{
	struct wst_run r;

	wst_mkdir(T, "ws/sub/.git/objects");
	wst_write(W, "sub/.git/HEAD", "ref: refs/heads/main\n");
	wst_write(W, "sub/a", "a");
	wst_mkdir(T, "ws/hg/x/.hg");
	run(&r, "wswrite", (const char *[]){"--workspace", W, "--json", "--delete", "-r",
		"sub", NULL});
	ck_assert_int_eq(r.status, 3);
	ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
	ck_assert_msg(strstr(r.out, "holds a repository (.git)") != NULL, "%s", r.out);
	wst_run_free(&r);
	assert_content("sub/a", "a");
	ck_assert(there("sub/.git/HEAD"));
	run(&r, "wswrite", (const char *[]){"--workspace", W, "--delete", "-r", "hg", NULL});
	ck_assert_int_eq(r.status, 3);
	wst_run_free(&r);
	ck_assert(there("hg/x/.hg"));
	run(&r, "wswrite", (const char *[]){"--workspace", W, "--no-history", "--delete",
		"-r", "sub", NULL});
	ck_assert_int_eq(r.status, 0);
	wst_run_free(&r);
	ck_assert(!there("sub"));
}
END_TEST

/*
 * Review18 09: the person's history at the default place of a home
 * (<home>/.local/state/wstools) was open to a server given another
 * XDG_STATE_HOME, whose workspace holds that home: wsread printed a
 * deleted secret from the journal and a command appended to the journal
 * the next undo trusts.  Both are refused now, the command's view masks it.
 */
START_TEST(another_state_dir_guarded)
{
	struct wst_run r;
	char *home = wst_path(T, "box/home"), *hs = wst_path(T, "box/home/.local/state/wstools");
	char *box = wst_path(T, "box");
	char *henv = NULL, *jrel = NULL, *j;
	const char *env[] = {ENV_S, NULL, NULL};
	DIR *d;
	struct dirent *de;

	ck_assert_int_ge(asprintf(&henv, "HOME=%s", home), 0);
	env[1] = henv;
	wst_mkdir(T, "box/home/.local/state");
	wst_write(T, "other/s.txt", "SECRET-r18-09\n");
	{
		char *other = wst_path(T, "other");

		run(&r, "wswrite", (const char *[]){"--workspace", other, "--state-dir", hs,
			"--delete", "s.txt", NULL});
		ck_assert_msg(r.status == 0, "%s", r.err);
		wst_run_free(&r);
		free(other);
	}
	ck_assert_ptr_nonnull(d = opendir(hs));
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			ck_assert_int_ge(asprintf(&jrel, "home/.local/state/wstools/%s/journal",
						  de->d_name), 0);
	closedir(d);
	ck_assert_ptr_nonnull(jrel);
	j = wst_path(box, jrel);
	wst_runv(&r, NULL, env, "wsread", (const char *[]){"--workspace", box, "--json", jrel,
		NULL});
	ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
	wst_run_free(&r);
	wst_runv(&r, NULL, env, "wswrite", (const char *[]){"--workspace", box, "--json",
		"--append", "--content", "{}\n", jrel, NULL});
	ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
	wst_run_free(&r);
	{
		char cmd[4096];

		snprintf(cmd, sizeof(cmd), "cat /%s; echo forged >> /%s; echo done", jrel, jrel);
		wst_runv(&r, NULL, env, "wsrun", (const char *[]){"--workspace", box, "--json",
			"--view", "virtual", "-c", cmd, NULL});
		/* Under the valgrind pass wsrun has no Landlock: the command
		 * does not run, and nothing below may have happened. */
		ck_assert_msg(strstr(r.out, "done") != NULL ||
			      strcmp(wst_code(&r), "SANDBOX_UNAVAILABLE") == 0, "%s", r.out);
		ck_assert_msg(strstr(r.out, "SECRET") == NULL && strstr(r.out, "U0VDUkVU") == NULL,
			      "%s", r.out);
		wst_run_free(&r);
	}
	{
		char *t = wst_slurp(j, NULL);

		ck_assert_ptr_nonnull(t);
		ck_assert_msg(strstr(t, "forged") == NULL, "%s", t);
		free(t);
	}
	free(j);
	free(jrel);
	free(henv);
	free(hs);
	free(home);
	free(box);
}
END_TEST

/*
 * Review19 01, commands: another home than HOME's or the password
 * file's (a workspace of /home run as root, holding alice's) had its
 * .local/state/wstools readable and writable by a command, which the
 * file tools refuse: the view masks each home's it finds, at the
 * workspace's top level and as the workspace itself, in both views.
 */
START_TEST(other_home_state_masked)
{
	struct wst_run r;
	char *box = wst_path(T, "box"), *bob = wst_path(T, "box/bob"), *henv = NULL;
	const char *env[] = {ENV_S, NULL, NULL};
	const char *j = "bob/.local/state/wstools/0123456789abcdef/journal";
	const char *views[] = {"virtual", "real"};

	wst_mkdir(T, "box/alice");
	wst_mkdir(T, "box/bob/.local/state/wstools/0123456789abcdef");
	wst_write(box, j, "SECRET-r19-01\n");
	ck_assert_int_ge(asprintf(&henv, "HOME=%s/alice", box), 0);
	env[1] = henv;
	for (int k = 0; k < 4; k++) {
		/* The workspace holding the home, then the home itself. */
		const char *ws = k < 2 ? box : bob, *rel = k < 2 ? j : j + 4;
		char cmd[4096];

		snprintf(cmd, sizeof(cmd), "cat %s; echo forged >> %s; echo done", rel, rel);
		wst_runv(&r, NULL, env, "wsrun", (const char *[]){"--workspace", ws, "--json",
			"--view", views[k % 2], "-c", cmd, NULL});
		/* Under the valgrind pass wsrun has no Landlock (see above). */
		ck_assert_msg(strstr(r.out, "done") != NULL ||
			      strcmp(wst_code(&r), "SANDBOX_UNAVAILABLE") == 0, "%s", r.out);
		ck_assert_msg(strstr(r.out, "SECRET") == NULL, "%s %s: %s", ws,
			      views[k % 2], r.out);
		wst_run_free(&r);
		{
			char *jp = wst_path(box, j), *t = wst_slurp(jp, NULL);

			ck_assert_ptr_nonnull(t);
			ck_assert_msg(strstr(t, "forged") == NULL, "%s %s: %s", ws,
				      views[k % 2], t);
			free(t);
			free(jp);
		}
	}
	free(henv);
	free(bob);
	free(box);
}
END_TEST

/*
 * ftu12 12: a directory made anew at a removed workspace's path (rm -rf
 * p && mkdir p, a clone made again) starts a history of its own: the
 * history is empty and undo does not bring back the earlier project's
 * deleted file.  It inherited the history, which was keyed on the path
 * only.  The same directory moved away and back keeps its history.
 */
START_TEST(new_directory_new_history)
{
	struct wst_run r;
	char *f = wst_path(W, "notes.txt"), *away = wst_path(T, "away");

	WS_OK("--content", "old secret\n", "notes.txt");
	WS_OK("--delete", "notes.txt");
	/* Moved away and back: the same directory, the same history. */
	ck_assert_int_eq(rename(W, away), 0);
	ck_assert_int_eq(rename(away, W), 0);
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, NULL});
	ck_assert_msg(r.status == 0 && strstr(r.out, "/notes.txt") != NULL, "%s", r.out);
	wst_run_free(&r);
	wst_rmrf(W);
	wst_mkdir(T, "ws");
	wst_write(W, "README", "new project\n");
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, NULL});
	ck_assert_msg(r.status == 0 && strstr(r.out, "notes.txt") == NULL, "%s", r.out);
	wst_run_free(&r);
	run(&r, "wstools", (const char *[]){"undo", "--workspace", W, NULL});
	ck_assert(!wst_exists(f));
	wst_run_free(&r);
	free(f);
	free(away);
}
END_TEST

/*
 * ftu12 11: undo's refusals say what undo can do.  A move whose source is
 * taken again: undo said "--force reverts it all the same", then undo
 * --force failed with wswrite's "already exists (use --force to replace
 * it)"; now --force moves it back over what is there, as a forced undo
 * of a delete replaces what is there.  A directory the change made that holds a file made
 * since: not wswrite's "use --recursive", which undo has not.
 */
/*
 * ftu13 13: a directory moved, then a new one with entries made at its
 * old name.  Undo said "undo --force reverts it all the same" and "look
 * at it (wsread)" (which refuses a directory); undo --force then failed
 * with "/e: rename: Directory not empty" and no hint.  Both say that the
 * directory at the source holds entries, naming it, and what to do; and
 * nothing moves.  Once it is empty, --force works as it says.
 */
START_TEST(undo_move_onto_a_full_directory)
{
	char *out = NULL;

	wst_mkdir(W, "d");
	wst_write(W, "d/a", "1");
	WS_OK("--move", "e", "d");
	wst_mkdir(W, "d");
	wst_write(W, "d/b", "other");
	for (int f = 0; f < 2; f++) {
		ck_assert_int_eq(undo(&out, f ? "--force" : NULL, NULL), 5);
		ck_assert_msg(strstr(out, "\"DIRECTORY_NOT_EMPTY\"") != NULL &&
			      strstr(out, "\"path\":\"/d\"") != NULL &&
			      strstr(out, "forced or not") != NULL &&
			      strstr(out, "rename:") == NULL &&
			      strstr(out, "reverts it all the same") == NULL &&
			      strstr(out, "move /d away or delete it first") != NULL,
			      "%d: %s", f, out);
		free(out);
	}
	assert_content("e/a", "1");
	assert_content("d/b", "other");
	/* Empty, it is what --force replaces: the hint says wsls, not wsread. */
	{
		char *b = wst_path(W, "d/b");

		ck_assert_int_eq(unlink(b), 0);
		free(b);
	}
	ck_assert_int_eq(undo(&out, NULL, NULL), 5);
	ck_assert_msg(strstr(out, "VERSION_MISMATCH") != NULL &&
		      strstr(out, "look at it (wsls)") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(undo(NULL, "--force", NULL), 0);
	assert_content("d/a", "1");
	ck_assert(!there("e"));
}
END_TEST

/*
 * ftu13 14: the listing's ids are one column (they shifted at 10), a
 * one-byte file is "1 byte", and --gc refuses -n, which it took and
 * ignored.
 */
START_TEST(listing_columns_and_gc_args)
{
	struct wst_run r;
	char n[8];

	for (int i = 1; i <= 10; i++) {
		snprintf(n, sizeof(n), "f%d", i);
		WS_OK("--content", "x", n);
	}
	WS_OK("--content", "y", "f1");
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "\n9   20") != NULL && strncmp(r.out, "11  20", 6) == 0,
		      "%s", r.out);
	ck_assert_msg(strstr(r.out, "(was 1 byte)") != NULL &&
		      strstr(r.out, "1 bytes") == NULL, "%s", r.out);
	wst_run_free(&r);
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--gc",
		"-n", "2", NULL});
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "--gc takes neither") != NULL, "%s", r.err);
	wst_run_free(&r);
}
END_TEST

/*
 * Review23 02: the person's history under their own XDG_STATE_HOME, in a
 * workspace that holds it (HOME as the workspace), and an agent's call
 * started without that variable (an MCP client's default environment):
 * the journal was read, a forged entry appended, and the person's undo
 * in the other project wrote the agent's bytes there.  The state
 * directory's mark makes it refused to the file tools and wsrun refuse.
 */
START_TEST(other_state_dir_protected)
{
	char *h = wst_path(T, "h"), *o = wst_path(T, "o"), *eh = NULL, *ex = NULL;
	char *jr = NULL, *jp, *before, *after;
	struct wst_run r;
	DIR *d;
	struct dirent *e;

	wst_mkdir(T, "h");
	wst_mkdir(T, "o");
	ck_assert_int_ge(asprintf(&eh, "HOME=%s", h), 0);
	ck_assert_int_ge(asprintf(&ex, "XDG_STATE_HOME=%s/.xstate", h), 0);
	{
		const char *penv[] = {eh, ex, NULL};
		const char *a[] = {"--workspace", o, "--content", "v1\n", "notes.txt", NULL};

		wst_runv(&r, NULL, penv, "wswrite", a);
		ck_assert_msg(r.status == 0, "%s", r.err);
		wst_run_free(&r);
	}
	{
		char *dir = wst_path(h, ".xstate/wstools");

		ck_assert_ptr_nonnull(d = opendir(dir));
		while ((e = readdir(d)) != NULL)
			if (e->d_name[0] != '.')
				ck_assert_int_ge(asprintf(&jr, ".xstate/wstools/%s/journal",
							  e->d_name), 0);
		closedir(d);
		free(dir);
	}
	ck_assert_ptr_nonnull(jr);
	jp = wst_path(h, jr);
	before = wst_slurp(jp, NULL);
	{
		/* The agent: HOME the same, its own state directory. */
		const char *aenv[] = {eh, ENV_S, NULL};
		const char *rd[] = {"--workspace", h, "--json", jr, NULL};
		const char *ap[] = {"--workspace", h, "--json", "--append", "--content",
				    "{\"forged\":1}\n", jr, NULL};
		const char *rn[] = {"--workspace", h, "--json", "--", "true", NULL};

		wst_runv(&r, NULL, aenv, "wsread", rd);
		ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
		wst_run_free(&r);
		wst_runv(&r, NULL, aenv, "wswrite", ap);
		ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
		wst_run_free(&r);
		wst_runv(&r, NULL, aenv, "wsrun", rn);
		ck_assert_msg(strstr(r.out, "SANDBOX_UNAVAILABLE") != NULL, "%s", r.out);
		wst_run_free(&r);
	}
	after = wst_slurp(jp, NULL);
	ck_assert_str_eq(before, after);
	free(jp);
	free(before);
	free(after);
	free(jr);
	free(eh);
	free(ex);
	free(h);
	free(o);
}
END_TEST

/*
 * Review25 07: the history is kept per workspace, not per mount table.
 * The agent's server (no mounts) made and deleted /.skills/evil.md; the
 * person's undo with a mount at /.skills restored the agent's bytes
 * into the mount's directory, outside the workspace.  An entry whose
 * path names another real place now than when it was made is refused,
 * force or not.
 */
START_TEST(undo_refused_under_other_mounts)
{
	char *skills = wst_path(T, "skills"), *mnt = NULL, *evil;
	struct wst_run r;

	wst_mkdir(T, "skills");
	WS_OK("--parents", "--content", "AGENT\n", ".skills/evil.md");
	WS_OK("--delete", ".skills/evil.md");
	ck_assert_int_ge(asprintf(&mnt, "/.skills=%s", skills), 0);
	for (int force = 0; force < 2; force++) {
		const char *a[] = {"undo", "--workspace", W, "--mount", mnt, "--json",
				   force ? "--force" : NULL, NULL};

		run(&r, "wstools", a);
		ck_assert_msg(r.status != 0 && strstr(r.out, "POLICY_DENIED") != NULL &&
			      strstr(r.out, "names") != NULL, "%s %s", r.out, r.err);
		wst_run_free(&r);
	}
	evil = wst_path(skills, "evil.md");
	ck_assert(!wst_exists(evil));
	/* Without the mount, as the change was made: undone. */
	ck_assert(undo(NULL, NULL, NULL) == 0);
	assert_content(".skills/evil.md", "AGENT\n");
	free(evil);
	free(mnt);
	free(skills);
}
END_TEST

/*
 * Review25 04: a journal append cut short (ENOSPC, EDQUOT, EFBIG) left
 * part of a line with no newline; the next change's record was glued
 * to it, so it vanished from the history, and its old content with it.
 * The journal is cut back to its size before the failed append.  A
 * file size limit (EFBIG, SIGXFSZ ignored) tears the tree delete's
 * record here.
 */
START_TEST(torn_journal_cut_back)
{
	char cmd[8192], *sw = wst_path(S, "wstools"), *hd = hist_dir(sw);
	char *j = wst_path(hd, "journal");
	struct stat st;
	struct wst_run r;
	cJSON *js, *a;

	wst_write(W, "notes.txt", "v1\n");
	WS_OK("--content", "v2\n", "notes.txt");
	for (int i = 0; i < 300; i++) {
		char rel[256];

		snprintf(rel, sizeof(rel), "big/f%03d-%0170d", i, 0);
		wst_write(W, rel, "x\n");
	}
	ck_assert_int_eq(stat(j, &st), 0);
	snprintf(cmd, sizeof(cmd), "trap '' XFSZ; ulimit -f %lld; exec env '%s' '%s' "
		 "--workspace '%s' --delete --recursive big >/dev/null 2>&1",
		 (long long)st.st_size / 512 + 2, ENV_S, wst_bin("wswrite"), W);
	ck_assert_int_ne(system(cmd), 0);
	WS_OK("--content", "v3\n", "notes.txt");
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json", NULL});
	ck_assert_msg(r.status == 0, "%s", r.err);
	js = cJSON_Parse(r.out);
	a = cJSON_GetObjectItem(cJSON_GetObjectItem(js, "output"), "entries");
	ck_assert_msg(cJSON_GetArraySize(a) == 2, "%s", r.out);
	cJSON_Delete(js);
	wst_run_free(&r);
	ck_assert(undo(NULL, NULL, NULL) == 0);
	assert_content("notes.txt", "v2\n");
	free(j);
	free(hd);
	free(sw);
}
END_TEST

/*
 * Review24 01: the mark guards the state directory and its parent by
 * name, so an agent whose workspace holds the person's home moved the
 * grandparent away (XDG_STATE_HOME=~/.xdg/state: .xdg), made
 * .xdg/state/wstools/<key>/journal afresh with a forged entry, and the
 * person's next undo in another project wrote the agent's bytes there.
 * A state directory that holds histories but no mark is not trusted
 * now: the person's call refuses it and says how to accept one of their
 * own; a bare one is marked and used.
 */
START_TEST(unmarked_state_dir_refused)
{
	char *h = wst_path(T, "h"), *o = wst_path(T, "o"), *eh = NULL, *ex = NULL;
	char *jr = NULL, *notes = wst_path(T, "o/notes.txt"), *mark, *t;
	struct wst_run r;
	DIR *d;
	struct dirent *e;
	const char *aenv[3];

	wst_mkdir(T, "h");
	wst_mkdir(T, "o");
	ck_assert_int_ge(asprintf(&eh, "HOME=%s", h), 0);
	ck_assert_int_ge(asprintf(&ex, "XDG_STATE_HOME=%s/.xdg/state", h), 0);
	aenv[0] = eh;
	aenv[1] = ENV_S;
	aenv[2] = NULL;
	{
		const char *penv[] = {eh, ex, NULL};
		const char *a[] = {"--workspace", o, "--content", "v1\n", "notes.txt", NULL};

		wst_runv(&r, NULL, penv, "wswrite", a);
		ck_assert_msg(r.status == 0, "%s", r.err);
		wst_run_free(&r);
	}
	{
		char *dir = wst_path(h, ".xdg/state/wstools");

		ck_assert_ptr_nonnull(d = opendir(dir));
		while ((e = readdir(d)) != NULL)
			if (e->d_name[0] != '.')
				ck_assert_int_ge(asprintf(&jr, ".xdg/state/wstools/%s/journal",
							  e->d_name), 0);
		closedir(d);
		free(dir);
	}
	ck_assert_ptr_nonnull(jr);
	/* The agent moves the grandparent away and forges a journal where
	 * the person's was: an entry whose undo writes its bytes. */
	{
		const char *mv[] = {"--workspace", h, "--move", ".xdg-old", ".xdg", NULL};
		char *forged = NULL;
		const char *wr[] = {"--workspace", h, "--parents", "--content", NULL, jr, NULL};

		wst_runv(&r, NULL, aenv, "wswrite", mv);
		ck_assert_msg(r.status == 0, "%s", r.err);
		wst_run_free(&r);
		ck_assert_int_ge(asprintf(&forged, "{\"id\":1,\"t\":\"begin\",\"time\":"
			"\"2026-11-28T22:14:00.000000Z\",\"tool\":\"write_file\",\"frontend\":"
			"\"cli\",\"op\":\"write\",\"path\":\"/notes.txt\",\"real_path\":"
			"\"%s\",\"before\":[{\"rel\":\"\",\"mode\":420,\"type\":\"file\","
			"\"size\":6,\"data\":\"QUdFTlQK\"}]}\n{\"id\":1,\"t\":\"done\","
			"\"ok\":true}\n", notes), 0);
		wr[4] = forged;
		wst_runv(&r, NULL, aenv, "wswrite", wr);
		ck_assert_msg(r.status == 0, "%s", r.err);
		wst_run_free(&r);
		free(forged);
	}
	/* The person's undo: refused, the file as it was. */
	{
		const char *penv[] = {eh, ex, NULL};
		const char *u[] = {"undo", "--workspace", o, "--json", "--force", NULL};

		wst_runv(&r, NULL, penv, "wstools", u);
		ck_assert_msg(r.status != 0 && strstr(r.out, "POLICY_DENIED") != NULL &&
			      strstr(r.out, "not the mark") != NULL, "%s %s", r.out, r.err);
		wst_run_free(&r);
		t = wst_slurp(notes, NULL);
		ck_assert_str_eq(t, "v1\n");
		free(t);
	}
	/* A bare state directory (made, empty) is marked and used. */
	{
		char *st = wst_path(h, ".xdg");
		const char *penv[] = {eh, ex, NULL};
		const char *a[] = {"--workspace", o, "--content", "v2\n", "notes.txt", NULL};

		wst_rmrf(st);
		free(st);
		wst_mkdir(h, ".xdg/state/wstools");
		wst_runv(&r, NULL, penv, "wswrite", a);
		ck_assert_msg(r.status == 0, "%s", r.err);
		wst_run_free(&r);
		mark = wst_path(h, ".xdg/state/wstools/" WS_STATE_MARK);
		ck_assert(wst_exists(mark));
		free(mark);
	}
	free(jr);
	free(eh);
	free(ex);
	free(h);
	free(o);
	free(notes);
}
END_TEST

/* levels nested directories named name under dir/top, a file f in the
 * deepest; made a level at a time (the path may pass PATH_MAX). */
static void
deep_tree(const char *dir, const char *top, const char *name, int levels)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), nfd, f;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(mkdirat(fd, top, 0755), 0);
	nfd = openat(fd, top, O_RDONLY | O_DIRECTORY);
	close(fd);
	fd = nfd;
	for (int i = 0; i < levels; i++) {
		ck_assert_int_eq(mkdirat(fd, name, 0755), 0);
		nfd = openat(fd, name, O_RDONLY | O_DIRECTORY);
		ck_assert_int_ge(nfd, 0);
		close(fd);
		fd = nfd;
	}
	f = openat(fd, "f", O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(f, 0);
	close(f);
	close(fd);
}

/*
 * Review23 10 and 05: a recorded tree delete of a tree 2,000 levels down
 * overflowed the capture's stack (wswrite SIGSEGV, wstools mcp killed);
 * one whose paths pass 4095 bytes was deleted but its undo stopped half
 * way.  Both are refused before anything goes (LIMIT_EXCEEDED), and
 * --no-history deletes them.
 */
START_TEST(deep_tree_delete_refused)
{
	struct wst_run r;
	char name[202];

	memset(name, 'd', 201);
	name[201] = '\0';
	deep_tree(W, "deep", "a", 2000);
	deep_tree(W, "long", name, 25);
	for (int i = 0; i < 2; i++) {
		run(&r, "wswrite", (const char *[]){"--workspace", W, "--json", "--delete",
			"--recursive", i ? "long" : "deep", NULL});
		ck_assert_msg(r.status == 6 && strstr(r.out, "LIMIT_EXCEEDED") != NULL,
			      "%d %s %s", r.status, r.out, r.err);
		wst_run_free(&r);
		ck_assert(there(i ? "long" : "deep"));
	}
	run(&r, "wswrite", (const char *[]){"--workspace", W, "--no-history", "--delete",
		"--recursive", "deep", NULL});
	ck_assert_msg(r.status == 0, "%s", r.err);
	wst_run_free(&r);
	ck_assert(!there("deep"));
}
END_TEST

/*
 * Undo, redo (the undo undone by its id), undo the redo: what each entry
 * undid is decided newest first, so the first change counts as undone
 * again and a plain undo has nothing left (it took the create for live
 * and failed on the missing file).
 */
START_TEST(undo_chain_states)
{
	struct wst_run r;
	const cJSON *e;
	char *out = NULL;

	WS_OK("--content", "x", "f");
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	ck_assert_int_eq(undo(NULL, "2", NULL), 0);
	assert_content("f", "x");
	ck_assert_int_eq(undo(NULL, "3", NULL), 0);
	ck_assert(!there("f"));
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json", NULL});
	ck_assert_int_eq(r.status, 0);
	cJSON_ArrayForEach(e, wst_output(&r, "entries")) {
		int id = cJSON_GetObjectItem(e, "id")->valueint;

		/* 1 undone by 2, 2 live, 3 undone by 4, 4 live. */
		ck_assert_msg(cJSON_IsTrue(cJSON_GetObjectItem(e, "undone")) ==
			      (id == 1 || id == 3), "%d: %s", id, r.out);
	}
	wst_run_free(&r);
	ck_assert_int_eq(undo(&out, NULL, NULL), 5);
	ck_assert_msg(strstr(out, "nothing to undo") != NULL, "%s", out);
	free(out);
}
END_TEST

START_TEST(undo_hints_hold)
{
	char *out = NULL;

	WS_OK("--content", "make\n", "Makefile");
	WS_OK("--move", "moved.txt", "Makefile");
	wst_write(W, "Makefile", "other\n");
	ck_assert_int_eq(undo(&out, NULL, NULL), 5);
	ck_assert_msg(strstr(out, "VERSION_MISMATCH") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(undo(&out, "--force", NULL), 0);
	free(out);
	assert_content("Makefile", "make\n");
	/*
	 * ftu13 12: the forced undo replaced the person's Makefile; the
	 * listing says so, and undoing that undo by its id (entry 3) brings
	 * the person's file back and the move with it.
	 */
	{
		struct wst_run r;
		const cJSON *e0;

		run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json", NULL});
		ck_assert_int_eq(r.status, 0);
		e0 = cJSON_GetArrayItem(wst_output(&r, "entries"), 0);
		ck_assert_int_eq(cJSON_GetObjectItem(e0, "id")->valueint, 3);
		ck_assert_ptr_nonnull(cJSON_GetObjectItem(e0, "destination_size_before"));
		ck_assert_int_eq(cJSON_GetObjectItem(e0, "destination_size_before")->valueint, 6);
		wst_run_free(&r);
	}
	ck_assert_int_eq(undo(&out, "3", NULL), 0);
	free(out);
	assert_content("Makefile", "other\n");
	assert_content("moved.txt", "make\n");
	/* The move is live again: a plain undo refuses as before, not "nothing". */
	ck_assert_int_eq(undo(&out, NULL, NULL), 5);
	ck_assert_msg(strstr(out, "VERSION_MISMATCH") != NULL, "%s", out);
	free(out);

	WS_OK("--mkdir", "d");
	wst_write(W, "d/handfile", "x\n");
	for (int force = 0; force < 2; force++) {
		ck_assert_int_eq(undo(&out, force ? "--force" : NULL, NULL), 5);
		ck_assert_msg(strstr(out, "DIRECTORY_NOT_EMPTY") != NULL &&
			      strstr(out, "--recursive") == NULL &&
			      strstr(out, "did not make") != NULL, "%s", out);
		free(out);
	}
	assert_content("d/handfile", "x\n");
}
END_TEST

/*
 * ftu12 03: `wstools history docs/d1.md` lists the delete of the tree
 * that held it (and a move of it), as the answer to "what happened to
 * this file"; it was empty.  An empty plain answer says so on stderr.
 */
START_TEST(history_path_in_deleted_tree)
{
	struct wst_run r;

	WS_OK("--content", "1\n", "docs/d1.md");
	WS_OK("--content", "2\n", "docs/d2.md");
	WS_OK("--move", "notes", "docs");
	WS_OK("--delete", "--recursive", "notes");
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "docs/d1.md",
		NULL});
	ck_assert_msg(r.status == 0 && strstr(r.out, "move    /docs -> /notes") != NULL &&
		      strstr(r.out, "create  /docs/d1.md") != NULL &&
		      strstr(r.out, "d2.md") == NULL, "%s", r.out);
	wst_run_free(&r);
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "/notes/d1.md",
		NULL});
	ck_assert_msg(r.status == 0 && strstr(r.out, "delete  /notes") != NULL &&
		      strstr(r.out, "move    /docs -> /notes") != NULL, "%s", r.out);
	wst_run_free(&r);
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "nosuch", NULL});
	ck_assert_msg(r.status == 0 && r.out[0] == '\0' &&
		      strstr(r.err, "no change recorded to /nosuch") != NULL, "%s", r.err);
	wst_run_free(&r);
}
END_TEST

/*
 * Review19 10, 01, 04.  A home's state directory that is not there yet
 * was not masked, and a command made it with a journal of its own, which
 * the person's next undo in another workspace would trust: it is made
 * empty and masked now.  A file tool's rename of .local/state (moved away
 * and back around a forged journal) is refused.  A tree holding a
 * submodule's .git file or a bare repository is not deleted either.
 */
START_TEST(state_dir_made_and_parents_kept)
{
	struct wst_run r;
	char *box = wst_path(T, "box"), *home = wst_path(T, "box/home"), *henv = NULL;
	const char *env[] = {ENV_S, NULL, NULL};

	ck_assert_int_ge(asprintf(&henv, "HOME=%s", home), 0);
	env[1] = henv;
	/* .local/state there (a missing one goes with mise's place). */
	wst_mkdir(T, "box/home/.local/state");
	wst_runv(&r, NULL, env, "wsrun", (const char *[]){"--workspace", box, "--json",
		"-c", "mkdir -p home/.local/state/wstools/0123456789abcdef 2>/dev/null;"
		" echo forged > home/.local/state/wstools/0123456789abcdef/journal 2>/dev/null;"
		" echo done", NULL});
	/* Under the valgrind pass wsrun has no Landlock (see above). */
	ck_assert_msg(strstr(r.out, "done") != NULL ||
		      strcmp(wst_code(&r), "SANDBOX_UNAVAILABLE") == 0, "%s", r.out);
	wst_run_free(&r);
	{
		char *j = wst_path(box, "home/.local/state/wstools/0123456789abcdef/journal");

		ck_assert_msg(!wst_exists(j), "the command's journal is there");
		free(j);
	}
	wst_mkdir(T, "box/home/.local/state/wstools/x");
	wst_runv(&r, NULL, env, "wswrite", (const char *[]){"--workspace", box, "--json",
		"--move", "home/.local/st2", "home/.local/state", NULL});
	ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
	wst_run_free(&r);
	/* A submodule's .git file, and a bare repository by any name. */
	wst_write(W, "m/sub/.git", "gitdir: ../../.git/modules/sub\n");
	wst_write(W, "b/r.git/HEAD", "ref: refs/heads/main\n");
	wst_mkdir(T, "ws/b/r.git/refs");
	run(&r, "wswrite", (const char *[]){"--workspace", W, "--json", "--delete", "-r",
		"m", NULL});
	ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
	wst_run_free(&r);
	run(&r, "wswrite", (const char *[]){"--workspace", W, "--json", "--delete", "-r",
		"b", NULL});
	ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
	wst_run_free(&r);
	ck_assert(there("m/sub/.git"));
	ck_assert(there("b/r.git/HEAD"));
	/*
	 * Review19 09: HOME's .local a link (dotfiles): the person's state
	 * directory by its real path, which does not read .local/state.
	 */
	{
		char *h2 = NULL;
		const char *jr;
		const char *env2[] = {ENV_S, NULL, NULL};

		wst_mkdir(T, "box/dl/state/wstools/0123456789abcdef");
		wst_write(box, "dl/state/wstools/0123456789abcdef/journal", "{}\n");
		wst_mkdir(T, "box/h2");
		wst_symlink("../dl", box, "h2/.local");
		ck_assert_int_ge(asprintf(&h2, "HOME=%s/h2", box), 0);
		env2[1] = h2;
		jr = "dl/state/wstools/0123456789abcdef/journal";
		wst_runv(&r, NULL, env2, "wsread", (const char *[]){"--workspace", box,
			"--json", jr, NULL});
		ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
		wst_run_free(&r);
		free(h2);
	}
	free(henv);
	free(home);
	free(box);
}
END_TEST

START_TEST(undo_refused_after_a_later_change)
{
	char *out = NULL;

	WS_OK("--content", "mine", "f");
	WS_OK("--content", "tool", "f");
	/* Someone changes f after the tool did. */
	usleep(10000);
	wst_write(W, "f", "person");
	ck_assert_int_ne(undo(&out, "--dry-run", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "VERSION_MISMATCH"));
	ck_assert_ptr_nonnull(strstr(out, "\"/f\""));
	free(out);
	ck_assert_int_ne(undo(&out, NULL, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "VERSION_MISMATCH"));
	free(out);
	assert_content("f", "person");
	ck_assert_int_eq(undo(NULL, "--force", NULL), 0);
	assert_content("f", "mine");
	/* A deleted file that is there again is no undo either. */
	WS_OK("--delete", "f");
	wst_write(W, "f", "new");
	ck_assert_int_ne(undo(&out, NULL, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "VERSION_MISMATCH"));
	free(out);
	assert_content("f", "new");
}
END_TEST

START_TEST(bounds_and_no_history)
{
	struct wst_run r;
	char *cfg, *out = NULL;
	char big[200];

	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	wst_write(T, "c.json", "{\"history_max_file\": 100, \"history_max_bytes\": 150}");
	cfg = wst_path(T, "c.json");
	/* A file over the bound: recorded, not kept, undo says so. */
	WS_OK("--config", cfg, "--content", big, "big");
	WS_OK("--config", cfg, "--content", "small", "big");
	ck_assert_int_ne(undo(&out, NULL, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "not kept"));
	free(out);
	/* Eviction: three 60-byte contents fit 150 bytes twice. */
	for (int i = 0; i < 4; i++) {
		char c[64];

		snprintf(c, sizeof(c), "%060d", i);
		WS_OK("--config", cfg, "--content", c, "e");
	}
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--config", cfg,
		"--gc", "--json", NULL});
	ck_assert_msg(r.status == 0, "%s", r.err);
	ck_assert_int_ge(cJSON_GetObjectItem(cJSON_GetObjectItem(r.json, "output"),
					     "dropped")->valueint, 4);
	wst_run_free(&r);
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json", NULL});
	ck_assert_int_le(cJSON_GetArraySize(wst_output(&r, "entries")), 3);
	wst_run_free(&r);
	/* The newest change survives and is undone. */
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	{
		char c[64];

		snprintf(c, sizeof(c), "%060d", 2);
		assert_content("e", c);
	}
	/* --no-history records nothing. */
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json", NULL});
	{
		int before = cJSON_GetArraySize(wst_output(&r, "entries"));

		wst_run_free(&r);
		WS_OK("--no-history", "--content", "x", "nh");
		run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json", NULL});
		ck_assert_int_eq(cJSON_GetArraySize(wst_output(&r, "entries")), before);
		wst_run_free(&r);
	}
	free(cfg);
}
END_TEST

/*
 * ftu12 22: from a project's src/ (the workspace is then src/), undo said
 * "every entry is undone already" of a history with no entry at all; it
 * says there is none, and where one is: the project's, above.
 */
START_TEST(undo_names_the_history_above)
{
	struct wst_run r;
	char *sub = wst_path(W, "src");
	const char *hint;

	WS_OK("--content", "oops", "src/a.c");
	run(&r, "wstools", (const char *[]){"undo", "--workspace", sub, "--json", NULL});
	ck_assert_int_eq(r.status, 5);
	ck_assert_str_eq(wst_code(&r), "NOT_FOUND");
	ck_assert_msg(strstr(r.out, "no change is recorded") != NULL &&
		      strstr(r.out, "undone already") == NULL, "%s", r.out);
	hint = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(r.json,
							"error"), "hint"));
	ck_assert_msg(hint != NULL && strstr(hint, "above it, has changes recorded") != NULL,
		      "%s", r.out);
	wst_run_free(&r);
	free(sub);
}
END_TEST

/*
 * ftu13 17: from a project's src/, history printed nothing at all (and
 * JSON an empty list), where undo there names the history above; a
 * person concluded nothing was changed.  It says there is no change for
 * this workspace, and where the changes are, plain (standard error) and
 * in JSON (output.hint); the project's own empty answer names nothing.
 */
START_TEST(history_names_the_history_above)
{
	struct wst_run r;
	char *sub = wst_path(W, "src");
	const char *hint;

	run(&r, "wstools", (const char *[]){"history", "--workspace", W, NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.err, "no change recorded for this workspace") != NULL &&
		      strstr(r.err, "above it") == NULL, "%s", r.err);
	wst_run_free(&r);
	WS_OK("--content", "oops", "src/a.c");
	run(&r, "wstools", (const char *[]){"history", "--workspace", sub, NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "");
	ck_assert_msg(strstr(r.err, "no change recorded for this workspace") != NULL &&
		      strstr(r.err, "above it, has changes recorded") != NULL &&
		      strstr(r.err, W) != NULL, "%s", r.err);
	wst_run_free(&r);
	run(&r, "wstools", (const char *[]){"history", "--workspace", sub, "--json", NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(cJSON_GetArraySize(wst_output(&r, "entries")), 0);
	hint = cJSON_GetStringValue(wst_output(&r, "hint"));
	ck_assert_msg(hint != NULL && strstr(hint, "--workspace") != NULL &&
		      strstr(hint, W) != NULL, "%s", r.out);
	wst_run_free(&r);
	/* The project's history lists the change and names nothing above. */
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json", NULL});
	ck_assert_int_eq(cJSON_GetArraySize(wst_output(&r, "entries")), 1);
	ck_assert_ptr_null(wst_output(&r, "hint"));
	wst_run_free(&r);
	free(sub);
}
END_TEST

/*
 * ftu13 02: undo of a create, a mkdir or a move left the parent
 * directories the change itself made (the entry recorded the leaf only):
 * "before change 1" still had an empty a/, and the README's mistaken
 * /tmp/x left a tmp/ that wsrun then hid behind the system's.  The done
 * record names the directories made (with their identity); undo removes
 * them deepest first, while empty and still the ones made.
 */
START_TEST(undo_removes_the_parents_it_made)
{
	struct wst_run r;
	char *out = NULL;

	wst_mkdir(W, "keep");
	/* A create with parents: undone, a/ is gone, keep/ stays. */
	WS_OK("--content", "x", "a/b/c/f.txt");
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json", NULL});
	ck_assert_msg(strstr(r.out, "\"made_dirs\":[\"/a\",\"/a/b\",\"/a/b/c\"]") != NULL,
		      "%s", r.out);
	wst_run_free(&r);
	ck_assert_int_eq(undo(&out, NULL, NULL), 0);
	ck_assert_msg(strstr(out, "\"removed_dirs\":[\"/a/b/c\",\"/a/b\",\"/a\"]") != NULL,
		      "%s", out);
	free(out);
	ck_assert(!there("a"));
	ck_assert(there("keep"));
	/* A mkdir and a move the same way. */
	WS_OK("--mkdir", "m/n/o");
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	ck_assert(!there("m"));
	wst_write(W, "keep/f", "1");
	WS_OK("--move", "p/q/f", "keep/f");
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	ck_assert(!there("p"));
	assert_content("keep/f", "1");
	/*
	 * A person put a file in a/b meanwhile: a/b stays, and a with it,
	 * said so; a/b/c, which the change made and is empty, goes.
	 */
	WS_OK("--content", "x", "a/b/c/f.txt");
	wst_write(W, "a/b/mine", "mine");
	ck_assert_int_eq(undo(&out, NULL, NULL), 0);
	ck_assert_msg(strstr(out, "\"removed_dirs\":[\"/a/b/c\"]") != NULL &&
		      strstr(out, "\"kept_dirs\":[\"/a/b\",\"/a\"]") != NULL, "%s", out);
	free(out);
	ck_assert(!there("a/b/c"));
	assert_content("a/b/mine", "mine");
	/* Plain, the undo says what it kept and why. */
	{
		char *mine = wst_path(W, "a/b/mine");

		ck_assert_int_eq(unlink(mine), 0);
		free(mine);
	}
	WS_OK("--content", "y", "z/f.txt");
	wst_write(W, "z/other", "o");
	run(&r, "wstools", (const char *[]){"undo", "--workspace", W, NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "(kept /z: it holds entries the change did not make)")
		      != NULL, "%s", r.out);
	wst_run_free(&r);
}
END_TEST

/*
 * ftu13 02: a directory the change made is removed only while it is the
 * same directory (device and inode), never by its name alone: moved
 * away by a person and another made at its name, the new one stays.
 */
START_TEST(undo_keeps_a_parent_made_anew)
{
	char *out = NULL, *a = wst_path(W, "a"), *old = wst_path(W, "a-old");

	WS_OK("--mkdir", "a/c");
	ck_assert_int_eq(rename(a, old), 0);
	wst_mkdir(W, "a");
	wst_mkdir(W, "a/c");
	ck_assert_int_eq(undo(&out, NULL, NULL), 0);
	ck_assert_msg(strstr(out, "\"kept_dirs\":[\"/a\"]") != NULL &&
		      strstr(out, "another directory is there now") != NULL, "%s", out);
	free(out);
	ck_assert(there("a"));
	ck_assert(there("a-old/c"));
	free(a);
	free(old);
}
END_TEST

/*
 * ftu13 02: a journal written before "made_dirs" (an entry without it)
 * undoes as it did: the leaf only, the parents stay.
 */
START_TEST(undo_old_entry_without_made_dirs)
{
	char *base = wst_path(S, "wstools"), *hd, *j, *text, *at;

	WS_OK("--content", "x", "a/b/f.txt");
	hd = hist_dir(base);
	j = wst_path(hd, "journal");
	text = wst_slurp(j, NULL);
	ck_assert_ptr_nonnull(text);
	/* Cut the field out of the done record, as an older tool wrote it. */
	at = strstr(text, "\"made_dirs\":");
	ck_assert_ptr_nonnull(at);
	{
		char *end = strstr(at, "}],");

		ck_assert_ptr_nonnull(end);
		memmove(at, end + 3, strlen(end + 3) + 1);
	}
	ck_assert_ptr_null(strstr(text, "made_dirs"));
	{
		FILE *f = fopen(j, "w");

		ck_assert_ptr_nonnull(f);
		fputs(text, f);
		fclose(f);
	}
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	ck_assert(!there("a/b/f.txt"));
	ck_assert(there("a/b"));
	free(text);
	free(j);
	free(hd);
	free(base);
}
END_TEST

/*
 * ftu12 21: a tree delete holding a file over history_max_file.  The undo
 * brought back the rest, then failed on that file, and the entry stayed
 * to be undone again; the dry run said it would work.  Now both refuse
 * before anything changes, naming the file; --force brings back what was
 * kept and says how many were not.
 */
START_TEST(undo_refuses_what_was_not_kept)
{
	struct wst_run r;
	char *cfg, *out = NULL, big[200];
	cJSON *u;

	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	wst_write(T, "c.json", "{\"history_max_file\": 100}");
	cfg = wst_path(T, "c.json");
	wst_write(W, "d/big", big);
	wst_write(W, "d/small", "small");
	WS_OK("--config", cfg, "--delete", "--recursive", "d");
	ck_assert(!there("d"));
	ck_assert_int_ne(undo(&out, "--dry-run", NULL), 0);
	ck_assert_msg(strstr(out, "/d/big") != NULL && strstr(out, "not kept") != NULL,
		      "%s", out);
	free(out);
	ck_assert_int_ne(undo(&out, NULL, NULL), 0);
	ck_assert_msg(strstr(out, "/d/big") != NULL, "%s", out);
	free(out);
	ck_assert_msg(!there("d"), "a refused undo brought back part of the tree");
	run(&r, "wstools", (const char *[]){"undo", "--workspace", W, "--json",
		"--force", NULL});
	ck_assert_msg(r.status == 0, "%s", r.out);
	u = cJSON_GetArrayItem(wst_output(&r, "undone"), 0);
	ck_assert_int_eq(cJSON_GetObjectItem(u, "not_kept")->valueint, 1);
	wst_run_free(&r);
	assert_content("d/small", "small");
	ck_assert(!there("d/big"));
	free(cfg);
}
END_TEST

/* The state directory is wstools' own: no tool writes, moves or deletes
 * anything in it, even when the workspace holds it; a wsrun command
 * cannot change it.  (Root runs these too: nothing relies on modes.) */
START_TEST(state_dir_is_guarded)
{
	struct wst_run r;
	char *sw = wst_path(S, "wstools");
	char *fg = wst_path(sw, "forged"), *x = wst_path(sw, "x");
	const char *const tries[][8] = {
		{"--content", "x", fg, NULL},
		{"--delete", "-r", sw, NULL},
		{"--move", "elsewhere", sw, NULL},
		{"--mkdir", x, NULL},
	};

	WS_OK("--content", "a", "a");
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		const char *argv[12] = {"--workspace", W, "--allow-outside"};

		memcpy(argv + 3, tries[i], sizeof(tries[i]));
		run(&r, "wswrite", argv);
		ck_assert_msg(r.status != 0 && strstr(r.err, "POLICY_DENIED") != NULL,
			      "try %zu: %d %s", i, r.status, r.err);
		wst_run_free(&r);
	}
	/* Nor another tool's history beside it. */
	WS_OK("--content", "b", "b");
	{
		char *cmd;

		ck_assert_int_ge(asprintf(&cmd, "for f in %s/*/journal; do "
					  "echo forged >> $f; done; ls %s", sw, S), 0);
		run(&r, "wsrun", (const char *[]){"--workspace", W, "--view", "real",
			"-c", cmd, NULL});
		free(cmd);
		wst_run_free(&r);
	}
	{
		char *cmd;

		ck_assert_int_ge(asprintf(&cmd, "find %s -name journal -exec grep -l forged {} +",
					  S), 0);
		ck_assert_int_ne(system(cmd), 0);
		free(cmd);
	}
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	ck_assert(!there("b"));
	free(sw);
	free(fg);
	free(x);
}
END_TEST

/*
 * A state directory inside the workspace (or reached into it through a
 * symlink) is refused, whoever names it: a command could edit the journal
 * that undo trusts (review10 08).
 */
START_TEST(state_dir_inside_is_refused)
{
	struct wst_run r;
	char *st = wst_path(W, ".state"), *ln = wst_path(T, "ln");
	char *lst = wst_path(ln, "st"), *env_x = NULL, *dd = NULL, *env_dd = NULL;

	ck_assert_int_eq(symlink(W, ln), 0);
	ck_assert_int_ge(asprintf(&env_x, "XDG_STATE_HOME=%s/xdg", W), 0);
	/* Spelled through a directory that does not exist and "..": the
	 * deepest part that exists was outside (review12 01). */
	ck_assert_int_ge(asprintf(&dd, "%s/none/../ws/.st", T), 0);
	ck_assert_int_ge(asprintf(&env_dd, "XDG_STATE_HOME=%s/none/../ws/xdg", T), 0);
	{
		const char *const *tries[] = {
			(const char *[]){"wswrite", "--state-dir", st, "--content", "a", "a", NULL},
			(const char *[]){"wswrite", "--state-dir", lst, "--content", "a", "a", NULL},
			(const char *[]){"wstools", "undo", "--state-dir", st, NULL},
			(const char *[]){"wstools", "history", "--state-dir", lst, NULL},
			(const char *[]){"wswrite", "--state-dir", dd, "--content", "a", "a", NULL},
			(const char *[]){"wstools", "undo", "--state-dir", dd, NULL},
		};

		for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
			const char *argv[12];
			size_t n = 0;

			if (strcmp(tries[i][0], "wstools") == 0)
				argv[n++] = tries[i][1];
			argv[n++] = "--workspace";
			argv[n++] = W;
			for (size_t k = argv[0] == tries[i][1] ? 2 : 1; tries[i][k]; k++)
				argv[n++] = tries[i][k];
			argv[n] = NULL;
			run(&r, tries[i][0], argv);
			ck_assert_msg(r.status != 0 && strstr(r.err, "INVALID_ARGUMENT"),
				      "try %zu: %d %s", i, r.status, r.err);
			wst_run_free(&r);
		}
	}
	for (int i = 0; i < 2; i++) {
		wst_runv(&r, NULL, (const char *[]){i ? env_dd : env_x, NULL}, "wswrite",
			 (const char *[]){"--workspace", W, "--content", "a", "a", NULL});
		ck_assert_msg(r.status != 0 && strstr(r.err, "INVALID_ARGUMENT"),
			      "%d: %d %s", i, r.status, r.err);
		wst_run_free(&r);
	}
	ck_assert(!there("a") && !there(".state") && !there("xdg") && !there(".st"));
	/*
	 * One that is there already, whole (made outside, then moved in):
	 * it is opened without the walk by name, and refused as opened.
	 */
	{
		char *out = wst_path(T, "sd-out"), *in = wst_path(W, ".sd"), *keyd = NULL;
		DIR *d;
		struct dirent *e;

		run(&r, "wswrite", (const char *[]){"--workspace", W,
			"--state-dir", out, "--content", "a", "b", NULL});
		ck_assert_msg(r.status == 0, "%s", r.err);
		wst_run_free(&r);
		ck_assert_int_eq(rename(out, in), 0);
		ck_assert_ptr_nonnull(d = opendir(in));
		while ((e = readdir(d)) != NULL)
			if (e->d_name[0] != '.')
				keyd = wst_path(in, e->d_name);
		closedir(d);
		ck_assert_ptr_nonnull(keyd);
		ck_assert_int_eq(access(keyd, F_OK), 0);
		run(&r, "wswrite", (const char *[]){"--workspace", W,
			"--state-dir", in, "--content", "a", "c", NULL});
		ck_assert_msg(r.status != 0 && strstr(r.err, "INVALID_ARGUMENT") &&
			      strstr(r.err, "could edit its journal"), "%d %s",
			      r.status, r.err);
		wst_run_free(&r);
		ck_assert(!there("c"));
		free(keyd);
		free(out);
		free(in);
	}
	free(st);
	free(ln);
	free(lst);
	free(env_x);
	free(dd);
	free(env_dd);
}
END_TEST

/*
 * Undo takes from the store only an object named by a SHA-256 whose
 * content has that hash: a journal naming "../../../../secret.txt" made
 * undo copy a host file into the workspace (review12 01), and one naming
 * another hash whose file holds something else would restore that.
 */
START_TEST(undo_checks_object_names)
{
	char big[6001], *cmd, *err = NULL, *obj = NULL;

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	wst_write(T, "secret.txt", "TOPSECRET host file\n");
	wst_write(W, "a.txt", big);
	WS_OK("--content", "hello", "a.txt");
	/* The object the overwrite stored; then a forged one beside it. */
	ck_assert_int_ge(asprintf(&cmd, "sed -n 's/.*\"object\":\"\\([0-9a-f]*\\)\".*/\\1/p' "
				  "%s/wstools/*/journal | head -1", S), 0);
	{
		FILE *f = popen(cmd, "r");
		char line[128] = "";

		ck_assert_ptr_nonnull(f);
		ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
		pclose(f);
		line[strcspn(line, "\n")] = '\0';
		ck_assert_int_eq(strlen(line), 64);
		obj = strdup(line);
	}
	free(cmd);
	for (int i = 0; i < 2; i++) {
		const char *forged = i == 0 ? "..\\/..\\/..\\/..\\/secret.txt" :
			"0000000000000000000000000000000000000000000000000000000000000000";

		if (i == 1) {
			ck_assert_int_ge(asprintf(&cmd, "for d in %s/wstools/*/objects; do "
						  "echo TOPSECRET > $d/%s; done", S, forged), 0);
			ck_assert_int_eq(system(cmd), 0);
			free(cmd);
		}
		ck_assert_int_ge(asprintf(&cmd, "sed -i 's/\"object\":\"[^\"]*\"/"
					  "\"object\":\"%s\"/' %s/wstools/*/journal && "
					  "grep -q 'secret.txt\\|00000000' %s/wstools/*/journal",
					  forged, S, S), 0);
		ck_assert_int_eq(system(cmd), 0);
		free(cmd);
		ck_assert_int_ne(undo(&err, "--force", NULL), 0);
		ck_assert_msg(strstr(err, i == 0 ? "not a SHA-256" :
				     "does not hold what its name says"), "%d: %s", i, err);
		free(err);
		assert_content("a.txt", "hello");
	}
	/* The real name again: the entry undoes. */
	ck_assert_int_ge(asprintf(&cmd, "sed -i 's/\"object\":\"[^\"]*\"/"
				  "\"object\":\"%s\"/' %s/wstools/*/journal", obj, S), 0);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	assert_content("a.txt", big);
	free(obj);
}
END_TEST

/*
 * Undo restores a file's permission bits only: a journal that says
 * 06755 makes 0755, never a set-id program (review10 08).  And a replace
 * or an append by wswrite does not keep set-user-id or set-group-id.
 */
START_TEST(undo_never_restores_setid)
{
	char *cmd, *f = wst_path(W, "tool");
	struct stat st;

	wst_write(W, "tool", "#!/bin/sh\n");
	ck_assert_int_eq(chmod(f, 0755), 0);
	WS_OK("--delete", "tool");
	ck_assert_int_ge(asprintf(&cmd, "sed -i 's/\"mode\":493/\"mode\":3565/' "
				  "%s/wstools/*/journal && grep -q '\"mode\":3565' "
				  "%s/wstools/*/journal", S, S), 0);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	ck_assert_int_eq(undo(NULL, NULL, NULL), 0);
	ck_assert_int_eq(stat(f, &st), 0);
	ck_assert_msg((st.st_mode & 07777) == 0755, "mode %o", st.st_mode & 07777);
	/* A set-id file's content replaced: the set-id bits go. */
	ck_assert_int_eq(chmod(f, 06755), 0);
	WS_OK("--content", "#!/bin/sh\nid\n", "tool");
	ck_assert_int_eq(stat(f, &st), 0);
	ck_assert_msg((st.st_mode & 07777) == 0755, "mode %o", st.st_mode & 07777);
	/*
	 * Nor an append in place (review12 03): root appending to a
	 * set-uid file a command made would keep a program that runs as
	 * root; the kernel clears the bits only for a writer without
	 * CAP_FSETID, and these tests run as root too.
	 */
	ck_assert_int_eq(chmod(f, 06755), 0);
	WS_OK("--append", "--content", "id -u\n", "tool");
	ck_assert_int_eq(stat(f, &st), 0);
	ck_assert_msg((st.st_mode & 07777) == 0755, "mode %o", st.st_mode & 07777);
	ck_assert_int_eq(st.st_size, 19);
	free(f);
}
END_TEST

/* Writers in several processes: one journal, no record lost, no id
 * given twice. */
START_TEST(concurrent_writers)
{
	enum { PROCS = 6, EACH = 10 };
	struct wst_run r;
	pid_t pid[PROCS];
	bool seen[PROCS * EACH + 1] = {false};
	cJSON *e;

	for (int i = 0; i < PROCS; i++) {
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0) {
			for (int k = 0; k < EACH; k++) {
				char name[32];
				struct wst_run c;

				snprintf(name, sizeof(name), "p%d-%d", i, k);
				run(&c, "wswrite", (const char *[]){"--workspace", W,
					"--no-sync", "--content", name, name, NULL});
				if (c.status != 0)
					_exit(1);
				wst_run_free(&c);
			}
			_exit(0);
		}
	}
	for (int i = 0; i < PROCS; i++) {
		int st;

		ck_assert_int_eq(waitpid(pid[i], &st, 0), pid[i]);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json", NULL});
	ck_assert_int_eq(cJSON_GetArraySize(wst_output(&r, "entries")), PROCS * EACH);
	cJSON_ArrayForEach(e, wst_output(&r, "entries")) {
		int id = cJSON_GetObjectItem(e, "id")->valueint;

		ck_assert(id >= 1 && id <= PROCS * EACH && !seen[id]);
		seen[id] = true;
		ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(e, "done")));
	}
	wst_run_free(&r);
}
END_TEST

/*
 * Undos side by side, in processes of their own (review8/t_hist_par.py):
 * each picks "the newest not undone" and must undo a change no other
 * undo undid, so N undos of N changes restore every file, and the
 * history names N distinct changes as undone.
 */
START_TEST(parallel_undos)
{
	enum { N = 12 };
	struct wst_run r;
	pid_t pid[N];
	bool seen[2 * N + 1] = {false};
	int undos = 0;
	cJSON *e;

	for (int i = 0; i < N; i++) {
		char name[32], body[32];

		snprintf(name, sizeof(name), "f%d.txt", i);
		snprintf(body, sizeof(body), "orig %d\n", i);
		wst_write(W, name, body);
	}
	for (int i = 0; i < N; i++) {
		char name[32], body[32];

		snprintf(name, sizeof(name), "f%d.txt", i);
		snprintf(body, sizeof(body), "new %d\n", i);
		WS_OK("--no-sync", "--content", body, name);
	}
	for (int i = 0; i < N; i++) {
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0)
			_exit(undo(NULL, NULL, NULL) == 0 ? 0 : 1);
	}
	for (int i = 0; i < N; i++) {
		int st;

		ck_assert_int_eq(waitpid(pid[i], &st, 0), pid[i]);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	for (int i = 0; i < N; i++) {
		char name[32], body[32];

		snprintf(name, sizeof(name), "f%d.txt", i);
		snprintf(body, sizeof(body), "orig %d\n", i);
		assert_content(name, body);
	}
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json", NULL});
	cJSON_ArrayForEach(e, wst_output(&r, "entries")) {
		const cJSON *u = cJSON_GetObjectItem(e, "undo_of");

		if (u == NULL)
			continue;
		ck_assert(u->valueint >= 1 && u->valueint <= N);
		ck_assert_msg(!seen[u->valueint], "change %d undone twice",
			      u->valueint);
		seen[u->valueint] = true;
		undos++;
	}
	ck_assert_int_eq(undos, N);
	wst_run_free(&r);
}
END_TEST

/*
 * A workspace that holds HOME holds ~/.local/state/wstools: no tool reads
 * or lists it, by its name or through a link, nor does a search look in
 * it (review12 01): its objects keep what files held before a change,
 * other workspaces' too.
 */
START_TEST(home_history_unreadable)
{
	char *xdg = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;
	char *env_h = NULL, *st = wst_path(W, "home/.local/state/wstools");
	char *id = NULL, *j = NULL, *lj = NULL, *real = realpath(W, NULL), *hd;
	struct wst_run r;

	ck_assert_ptr_nonnull(real);
	unsetenv("XDG_STATE_HOME");
	wst_mkdir(W, "home");
	ck_assert_int_ge(asprintf(&env_h, "HOME=%s/home", W), 0);
	wst_runv(&r, NULL, (const char *[]){env_h, NULL}, "wswrite",
		 (const char *[]){"--workspace", W, "--content", "hidden-k3y\n", "f", NULL});
	ck_assert_msg(r.status == 0, "%s", r.err);
	wst_run_free(&r);
	hd = hist_dir(st);
	ck_assert_ptr_nonnull(hd);
	id = strrchr(hd, '/') + 1;
	ck_assert_int_ge(asprintf(&j, "home/.local/state/wstools/%s/journal", id), 0);
	ck_assert_int_ge(asprintf(&lj, "ln/%s/journal", id), 0);
	ck_assert_msg(wst_exists(hd), "no history in %s", hd);
	{
		char *ln = wst_path(W, "ln");

		ck_assert_int_eq(symlink("home/.local/state/wstools", ln), 0);
		free(ln);
	}
	{
		const char *const *tries[] = {
			(const char *[]){"wsread", j, NULL},
			(const char *[]){"wsread", lj, NULL},
			(const char *[]){"wsls", "home/.local/state/wstools", NULL},
			(const char *[]){"wsgrep", "-F", "\"op\"", j, NULL},
		};

		for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
			const char *argv[8];
			size_t n = 0;

			argv[n++] = "--workspace";
			argv[n++] = W;
			for (size_t k = 1; tries[i][k]; k++)
				argv[n++] = tries[i][k];
			argv[n] = NULL;
			wst_runv(&r, NULL, (const char *[]){env_h, NULL}, tries[i][0], argv);
			ck_assert_msg(r.status != 0 && strstr(r.err, "POLICY_DENIED") &&
				      strstr(r.err, "history"), "try %zu: %d %s %s", i,
				      r.status, r.out, r.err);
			wst_run_free(&r);
		}
	}
	/* A search of the whole workspace finds nothing in it. */
	wst_runv(&r, NULL, (const char *[]){env_h, NULL}, "wsgrep",
		 (const char *[]){"--workspace", W, "-F", "\"op\"", ".", NULL});
	ck_assert_msg(strstr(r.out, "journal") == NULL, "%d %s %s", r.status, r.out, r.err);
	wst_run_free(&r);
	if (xdg != NULL)
		setenv("XDG_STATE_HOME", xdg, 1);
	free(xdg);
	free(env_h);
	free(st);
	free(j);
	free(lj);
	free(real);
	free(hd);
}
END_TEST

/*
 * No HOME in the environment (a bare exec, env -i): the state directory
 * and the configuration are found as with one (XDG_STATE_HOME,
 * XDG_CONFIG_HOME), and without those the state directory is in the
 * password file's home, which the file tools read themselves: linked
 * static-pie (meson.build's static_pie) they cannot ask the name service.
 */
START_TEST(no_home_in_the_environment)
{
	const struct passwd *pw = getpwuid(getuid());
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char *xdg = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;
	char *cfg = wst_path(T, "cfg"), *env_c = NULL, *real = realpath(W, NULL);
	char *hd = NULL, *want = NULL;
	struct wst_run r;
	struct stat st;

	ck_assert_ptr_nonnull(real);
	unsetenv("HOME");
	/* The configuration under XDG_CONFIG_HOME is read: an unknown key
	 * in it is an error that names it. */
	wst_write(T, "cfg/wstools/config.json", "{\"no_such_key\": 1}\n");
	ck_assert_int_ge(asprintf(&env_c, "XDG_CONFIG_HOME=%s", cfg), 0);
	wst_runv(&r, NULL, (const char *[]){ENV_S, env_c, NULL}, "wswrite",
		 (const char *[]){"--workspace", W, "--content", "x", "f", NULL});
	ck_assert_int_ne(r.status, 0);
	ck_assert_msg(strstr(r.err, "no_such_key") && strstr(r.err, "cfg/wstools/config.json"),
		      "%s", r.err);
	wst_run_free(&r);
	/* The state directory under XDG_STATE_HOME: the change is there. */
	WS_OK("--content", "one\n", "f");
	ck_assert(undo(NULL, NULL, NULL) == 0);
	{
		char *f = wst_path(W, "f");

		ck_assert(!wst_exists(f));
		free(f);
	}
	/* Neither: the password file's home, as getpwuid() gives it. */
	unsetenv("XDG_STATE_HOME");
	if (pw != NULL && pw->pw_dir[0] == '/' && strcmp(pw->pw_dir, "/") != 0 &&
	    stat(pw->pw_dir, &st) == 0 && access(pw->pw_dir, W_OK) == 0) {
		char *mark;
		bool had_mark;

		want = wst_path(pw->pw_dir, ".local/state/wstools");
		hd = hist_dir(want);
		ck_assert_ptr_nonnull(hd);
		ck_assert(!wst_exists(hd));
		/* The state directory's mark is left as it was found too: CI
		 * checks that the suites leave nothing in HOME's. */
		mark = wst_path(want, WS_STATE_MARK);
		had_mark = wst_exists(mark);
		wst_runv(&r, NULL, NULL, "wswrite",
			 (const char *[]){"--workspace", W, "--content", "two\n", "f", NULL});
		ck_assert_msg(r.status == 0, "%s", r.err);
		wst_run_free(&r);
		ck_assert_msg(wst_exists(hd), "no history in %s", hd);
		wst_runv(&r, NULL, NULL, "wstools",
			 (const char *[]){"undo", "--workspace", W, "--json", NULL});
		ck_assert_msg(r.status == 0, "%s %s", r.out, r.err);
		wst_run_free(&r);
		wst_rmrf(hd);
		ck_assert(wst_exists(mark));
		if (!had_mark)
			unlink(mark);
		free(mark);
	}
	if (home != NULL)
		setenv("HOME", home, 1);
	if (xdg != NULL)
		setenv("XDG_STATE_HOME", xdg, 1);
	free(home);
	free(xdg);
	free(cfg);
	free(env_c);
	free(real);
	free(hd);
	free(want);
}
END_TEST

/*
 * ftu12 15: history -n N lists the N newest; a tree's delete says how
 * many entries it took, in plain text too; undo names a move's
 * destination as the listing does.
 */
START_TEST(listing_count_and_names)
{
	struct wst_run r;
	cJSON *j, *a;

	WS_OK("--content", "abc", "g");
	WS_OK("--move", "h", "g");
	wst_write(W, "t/u/x", "1\n");
	WS_OK("--delete", "--recursive", "t");
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "--json",
		"-n", "2", NULL});
	ck_assert_msg(r.status == 0, "%s", r.err);
	j = cJSON_Parse(r.out);
	a = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "output"), "entries");
	ck_assert_int_eq(cJSON_GetArraySize(a), 2);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 0),
			 "operation")), "delete");
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 1),
			 "operation")), "move");
	cJSON_Delete(j);
	wst_run_free(&r);
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "-n", "1", NULL});
	ck_assert_msg(r.status == 0 && strstr(r.out, "delete  /t  (was 3 entries)") != NULL &&
		      strstr(r.out, "/h") == NULL, "%s", r.out);
	wst_run_free(&r);
	run(&r, "wstools", (const char *[]){"history", "--workspace", W, "-n", "0", NULL});
	ck_assert_msg(r.status != 0 && strstr(r.err, "INVALID_ARGUMENT") != NULL, "%s", r.err);
	wst_run_free(&r);
	/* ftu13 01: undo's 0 or less given is refused, not "the newest". */
	{
		const char *bad[][2] = {{"-n", "0"}, {"-n", "-3"}, {"--to", "0"}, {"--to", "-1"}};

		for (size_t i = 0; i < 4; i++) {
			run(&r, "wstools", (const char *[]){"undo", "--workspace", W,
				bad[i][0], bad[i][1], NULL});
			ck_assert_msg(r.status != 0 && strstr(r.err, "INVALID_ARGUMENT") != NULL,
				      "%s %s: %s", bad[i][0], bad[i][1], r.err);
			wst_run_free(&r);
		}
		ck_assert(!there("g") && there("h") && !there("t"));
	}
	run(&r, "wstools", (const char *[]){"undo", "--workspace", W, "--json", "-n", "2",
		NULL});
	ck_assert_msg(r.status == 0, "%s", r.err);
	j = cJSON_Parse(r.out);
	a = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "output"), "undone");
	ck_assert_int_eq(cJSON_GetArraySize(a), 2);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 1),
			 "destination")), "/h");
	cJSON_Delete(j);
	wst_run_free(&r);
	assert_content("g", "abc");
	assert_content("t/u/x", "1\n");
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("cli-history");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, undo_each_operation);
	tcase_add_test(tc, tree_names_and_contents_come_back);
	tcase_add_test(tc, undo_series_and_listing);
	tcase_add_test(tc, listing_count_and_names);
	tcase_add_test(tc, unmarked_state_dir_refused);
	tcase_add_test(tc, torn_journal_cut_back);
	tcase_add_test(tc, undo_refused_under_other_mounts);
	tcase_add_test(tc, listing_hides_what_the_policy_denies);
	tcase_add_test(tc, listing_columns_and_gc_args);
	tcase_add_test(tc, other_state_dir_protected);
	tcase_add_test(tc, deep_tree_delete_refused);
	tcase_add_test(tc, undo_chain_states);
	tcase_add_test(tc, undo_link_parents_are_guarded);
	tcase_add_test(tc, tree_with_repository_not_deleted);
	tcase_add_test(tc, another_state_dir_guarded);
	tcase_add_test(tc, state_dir_made_and_parents_kept);
	tcase_add_test(tc, undo_refused_after_a_later_change);
	tcase_add_test(tc, new_directory_new_history);
	tcase_add_test(tc, undo_hints_hold);
	tcase_add_test(tc, history_path_in_deleted_tree);
	tcase_add_test(tc, bounds_and_no_history);
	tcase_add_test(tc, undo_refuses_what_was_not_kept);
	tcase_add_test(tc, undo_names_the_history_above);
	tcase_add_test(tc, history_names_the_history_above);
	tcase_add_test(tc, undo_removes_the_parents_it_made);
	tcase_add_test(tc, undo_keeps_a_parent_made_anew);
	tcase_add_test(tc, undo_old_entry_without_made_dirs);
	tcase_add_test(tc, undo_move_onto_a_full_directory);
	tcase_add_test(tc, state_dir_is_guarded);
	tcase_add_test(tc, state_dir_inside_is_refused);
	tcase_add_test(tc, undo_checks_object_names);
	tcase_add_test(tc, home_history_unreadable);
	tcase_add_test(tc, undo_never_restores_setid);
	tcase_add_test(tc, concurrent_writers);
	tcase_add_test(tc, parallel_undos);
	tcase_add_test(tc, no_home_in_the_environment);
	tcase_add_test(tc, other_home_state_masked);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
