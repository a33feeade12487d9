/*
 * test_guards.c (cli) - no tool call may change the boundary or the rules
 * of a later call (issue 12, DESIGN.md 2 "Guarded entries"): the entries
 * the root's and the mounts' spellings pass through, the project markers
 * and .git that detection reads, and the persistence guards.  Each test
 * runs the attack as a hostile agent would, then checks that the next
 * call's boundary (or roots) is what it was.
 */
#include "places.h"
#include "wstest.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


/* Whether dir/rel exists (lstat). */
static bool
exists_at(const char *dir, const char *rel)
{
	char *p = wst_path(dir, rel);
	bool e = wst_exists(p);

	free(p);
	return e;
}

/* unlink(dir/rel). */
static int
unlink_at(const char *dir, const char *rel)
{
	char *p = wst_path(dir, rel);
	int r = unlink(p);

	free(p);
	return r;
}

/* The content of dir/rel (malloc'd), or NULL. */
static char *
slurp_at(const char *dir, const char *rel, size_t *n)
{
	char *p = wst_path(dir, rel);
	char *c = wst_slurp(p, n);

	free(p);
	return c;
}

static char *base;
/* "WS_CONFIG=FILE" for run_ws(), or NULL. */
static char *cfg_env;

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
	free(cfg_env);
	cfg_env = NULL;
}

/* Use a configuration with this text in the next runs. */
static void
use_config(const char *text)
{
	wst_write(base, "config.json", text);
	free(cfg_env);
	ck_assert(asprintf(&cfg_env, "WS_CONFIG=%s/config.json", base) > 0);
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
 * The policy in use spelled through a symlink in the workspace
 * (WS_POLICY=<ws>/d/conf/pol.json, d/conf -> conf-a): neither wswrite
 * (--delete, --move) nor a wsrun command (ln -sfn to a directory holding
 * the agent's own policy) re-points it, and the next call still denies
 * what the policy denies.  review9: the command's ln -sfn went through and
 * the next call ran under the agent's policy (the link was no guarded
 * entry: only the root's and the mounts' spellings were).
 */
START_TEST(policy_spelling_link)
{
	char *ws = wst_path(base, "ws"), *eroot = NULL, *epol = NULL;
	struct wst_run r;

	wst_write(base, "ws/secret.txt", "TOPSECRET\n");
	wst_write(base, "ws/d/conf-a/pol.json",
		  "{\"version\":1,\"name\":\"real\",\"file_rules\":["
		  "{\"name\":\"deny-secret\",\"paths\":[\"${WORKSPACE}/secret.txt\"],"
		  "\"operations\":[\"*\"],\"decision\":\"deny\"},"
		  "{\"name\":\"all\",\"paths\":[\"**\"],\"operations\":[\"*\"],"
		  "\"decision\":\"allow\"}],\"command_rules\":[]}\n");
	wst_write(base, "ws/d/conf-b/pol.json",
		  "{\"version\":1,\"name\":\"mine\",\"file_rules\":["
		  "{\"name\":\"all\",\"paths\":[\"**\"],\"operations\":[\"*\"],"
		  "\"decision\":\"allow\"}]}\n");
	wst_symlink("conf-a", ws, "d/conf");
	ck_assert(asprintf(&eroot, "WS_ROOT=%s", ws) > 0);
	ck_assert(asprintf(&epol, "WS_POLICY=%s/d/conf/pol.json", ws) > 0);
	{
		const char *env[] = {eroot, epol, "WS_FORMAT=json", NULL};
		const char *rd[] = {"secret.txt", NULL};
		const char *del[] = {"--delete", "d/conf", NULL};
		const char *mv[] = {"--move", "d/conf-old", "d/conf", NULL};
		const char *ln[] = {"--", "ln", "-sfn", "conf-b", "d/conf", NULL};

		run_env(&r, env, "wsread", rd);
		expect_code(&r, "POLICY_DENIED", 3);
		wst_run_free(&r);
		run_env(&r, env, "wswrite", del);
		expect_code(&r, "POLICY_DENIED", 3);
		wst_run_free(&r);
		run_env(&r, env, "wswrite", mv);
		expect_code(&r, "POLICY_DENIED", 3);
		wst_run_free(&r);
		run_env(&r, env, "wsrun", ln);
		wst_run_free(&r);
		run_env(&r, env, "wsread", rd);
		expect_code(&r, "POLICY_DENIED", 3);
		ck_assert_msg(strstr(r.out, "TOPSECRET") == NULL, "%s", r.out);
		wst_run_free(&r);
	}
	{
		char buf[4096];
		char *l = wst_path(ws, "d/conf");
		ssize_t n = readlink(l, buf, sizeof(buf) - 1);

		ck_assert(n > 0);
		buf[n] = '\0';
		ck_assert_str_eq(buf, "conf-a");
		free(l);
	}
	free(eroot);
	free(epol);
	free(ws);
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

/* Run tool with argv after "--json" and, if given, WS_MOUNTS=mounts. */
static void
run_ws(struct wst_run *r, const char *ws, const char *mounts, const char *tool,
       const char *const *args)
{
	const char *argv[32];
	char *em = NULL;
	const char *env[] = {NULL, NULL, NULL};
	size_t n = 0, ne = 0;

	argv[n++] = "--workspace";
	argv[n++] = ws;
	argv[n++] = "--json";
	for (size_t i = 0; args[i] != NULL && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (mounts != NULL) {
		ck_assert(asprintf(&em, "WS_MOUNTS=%s", mounts) > 0);
		env[ne++] = em;
	}
	if (cfg_env != NULL)
		env[ne++] = cfg_env;
	wst_runv(r, NULL, env, tool, argv);
	free(em);
}

/* "project_root git_root" as wspath --explain sees them (malloc'd). */
static char *
roots(const char *ws)
{
	const char *args[] = {"--explain", ".", NULL};
	struct wst_run r;
	const char *p, *g;
	char *s = NULL;

	run_ws(&r, ws, NULL, "wspath", args);
	expect_code(&r, "", 0);
	p = wst_output_str(&r, "project_root");
	g = wst_output_str(&r, "git_root");
	ck_assert(asprintf(&s, "%s %s", p ? p : "-", g ? g : "-") > 0);
	wst_run_free(&r);
	return s;
}

/* Run wswrite and expect refusal as a marker change, or success. */
static void
ww(const char *ws, const char *mounts, bool refused, const char *const *args)
{
	struct wst_run r;

	run_ws(&r, ws, mounts, "wswrite", args);
	if (refused) {
		expect_code(&r, "POLICY_DENIED", 3);
		ck_assert_msg(strstr(r.out, "project detection") != NULL &&
				      strstr(r.out, "--project-root") != NULL,
			      "%s", r.out);
	} else {
		expect_code(&r, "", 0);
	}
	wst_run_free(&r);
}

/*
 * Issue 12, 2: the workspace repo/api is a Go module in the repository
 * repo; a policy allows only ${PROJECT_ROOT}.  Renaming go.mod away would
 * make repo the project root, and repo/other (mounted) writable.
 */
START_TEST(marker_rename_widens_project)
{
	char *ws = wst_path(base, "repo/api"), *pol = wst_path(base, "pol.json");
	char *mounts = NULL, *before, *after;
	struct wst_run r;

	wst_write(base, "repo/api/go.mod", "module api\n");
	wst_mkdir(base, "repo/.git");
	wst_mkdir(base, "repo/other");
	wst_write(base, "pol.json",
		  "{\"version\": 1, \"name\": \"t\", \"file_rules\": ["
		  "{\"name\": \"proj\", \"paths\": [\"${PROJECT_ROOT}\", \"${PROJECT_ROOT}/**\"],"
		  " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		  "{\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
		  " \"decision\": \"deny\"}]}");
	ck_assert(asprintf(&mounts, "/.other=%s/repo/other", base) > 0);
	before = roots(ws);
	{
		const char *w1[] = {"--policy", pol, "--content", "PWNED",
				    "/.other/secret.txt", NULL};
		const char *mv[] = {"--policy", pol, "--move", "go.mod.bak", "go.mod", NULL};
		const char *mv2[] = {"--move", "go.mod.bak", "go.mod", NULL};

		run_ws(&r, ws, mounts, "wswrite", w1);
		expect_code(&r, "POLICY_DENIED", 3);
		wst_run_free(&r);
		ww(ws, mounts, true, mv);
		/* Without a policy too: the next call may have one. */
		ww(ws, mounts, true, mv2);
		run_ws(&r, ws, mounts, "wswrite", w1);
		expect_code(&r, "POLICY_DENIED", 3);
		wst_run_free(&r);
	}
	ck_assert(!exists_at(base, "repo/other/secret.txt"));
	after = roots(ws);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	free(mounts);
	free(pol);
	free(ws);
}
END_TEST

/*
 * Every marker and .git, moved, deleted and created, in the top directory
 * and (through a mount) in an ancestor: refused where detection would find
 * other roots, allowed where it would not; the roots never change.
 */
START_TEST(markers_each)
{
	static const char *const markers[] = {"go.mod", "package.json",
					      "Cargo.toml", "pyproject.toml"};
	char *ws = wst_path(base, "repo/app"), *mounts = NULL, *before, *now;

	/* Persistence guards off: the marker guard alone decides. */
	use_config("{\"guarded\": false}");

	wst_mkdir(base, "repo/.git");
	wst_mkdir(base, "repo/app");
	ck_assert(asprintf(&mounts, "/.repo=%s/repo", base) > 0);
	before = roots(ws);
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		const char *m = markers[i];
		char vm[64], bak[64];
		const char *create[] = {"--content", "x", m, NULL};
		const char *mk[] = {"--mkdir", m, NULL};
		const char *del[] = {"--delete", m, NULL};
		const char *mv[] = {"--move", bak, m, NULL};
		const char *mvin[] = {"--move", m, bak, NULL};
		const char *cup[] = {"--content", "x", vm, NULL};
		const char *dup[] = {"--delete", vm, NULL};

		snprintf(vm, sizeof(vm), "/.repo/%s", m);
		snprintf(bak, sizeof(bak), "%s.bak", m);
		/* A marker-less workspace in a repository: a marker in its
		 * top would make it the project root. */
		ww(ws, mounts, true, create);
		ww(ws, mounts, true, mk);
		wst_write(ws, bak, "x");
		ww(ws, mounts, true, mvin);
		ck_assert(unlink_at(ws, bak) == 0);
		ck_assert_str_eq((now = roots(ws)), before);
		free(now);
		/* In the git root the project root already is: no change. */
		ww(ws, mounts, false, cup);
		ck_assert_str_eq((now = roots(ws)), before);
		free(now);
		ww(ws, mounts, false, dup);
		/* The workspace as its own project through this marker only:
		 * deleting or moving it away is refused, creating another is
		 * not. */
		wst_write(ws, m, "x");
		now = roots(ws);
		ck_assert_msg(strncmp(now, ws, strlen(ws)) == 0, "%s", now);
		ww(ws, mounts, true, del);
		ww(ws, mounts, true, mv);
		{
			const char *other = markers[(i + 1) % 4];
			const char *c2[] = {"--content", "y", other, NULL};
			const char *d2[] = {"--delete", other, NULL};
			char *again;

			ww(ws, mounts, false, c2);
			ww(ws, mounts, false, del); /* the other one remains */
			ck_assert_str_eq((again = roots(ws)), now);
			free(again);
			ww(ws, mounts, false, create);
			ww(ws, mounts, false, d2);
		}
		free(now);
		/* Pinned roots: markers decide nothing, they may change. */
		{
			const char *pdel[] = {"--project-root", ws, "--delete", m, NULL};
			const char *ndel[] = {"--no-detect-root", "--content", "x", m, NULL};

			ww(ws, mounts, false, pdel);
			ck_assert(!exists_at(ws, m));
			ww(ws, mounts, false, ndel);
			ck_assert(unlink_at(ws, m) == 0);
		}
	}
	/* .git: in the ancestor (through the mount) and in the top. */
	{
		const char *dgit[] = {"--delete", "-r", "/.repo/.git", NULL};
		const char *mgit[] = {"--move", "/.repo/dotgit", "/.repo/.git", NULL};
		const char *cgit[] = {"--mkdir", ".git", NULL};
		const char *fgit[] = {"--content", "gitdir: /tmp\n", ".git", NULL};
		const char *pgit[] = {"--content", "x", ".git/config", NULL};

		ww(ws, mounts, true, dgit);
		ww(ws, mounts, true, mgit);
		ww(ws, mounts, true, cgit);
		ww(ws, mounts, true, fgit);
		ww(ws, mounts, true, pgit);
		ck_assert(!exists_at(ws, ".git"));
		ck_assert(exists_at(base, "repo/.git"));
	}
	ck_assert_str_eq((now = roots(ws)), before);
	free(now);
	free(before);
	free(mounts);
	free(ws);
}
END_TEST

/*
 * Issue 12, 2, second form: the workspace is a git root and HOME holds a
 * stray package.json; moving .git away would send detection up to HOME.
 */
START_TEST(dotgit_moved_to_home)
{
	char *ws = wst_path(base, "home/proj"), *before, *after;

	/* Persistence guards off: the marker guard alone decides. */
	use_config("{\"guarded\": false}");

	wst_write(base, "home/package.json", "{}");
	wst_mkdir(base, "home/proj/.git/objects");
	before = roots(ws);
	{
		const char *mv[] = {"--move", "dotgit", ".git", NULL};
		const char *rm[] = {"--delete", "--recursive", ".git", NULL};
		const char *obj[] = {"--content", "x", ".git/objects/ab", NULL};

		ww(ws, NULL, true, mv);
		ww(ws, NULL, true, rm);
		/* What is inside .git is no marker. */
		ww(ws, NULL, false, obj);
	}
	after = roots(ws);
	ck_assert_str_eq(before, after);
	ck_assert(strstr(after, "home/package.json") == NULL);
	free(before);
	free(after);
	free(ws);
}
END_TEST

/* Run wswrite in ws; expect a persistence-guard refusal or success. */
static void
wp(const char *ws, bool refused, const char *const *args)
{
	struct wst_run r;

	run_ws(&r, ws, NULL, "wswrite", args);
	if (refused) {
		expect_code(&r, "POLICY_DENIED", 3);
		ck_assert_msg(strstr(r.out, "guarded path") != NULL, "%s", r.out);
	} else {
		expect_code(&r, "", 0);
	}
	wst_run_free(&r);
}

/*
 * The default persistence guards: git hooks and config, submodules'
 * too, shell rc files, editor and direnv settings; git's objects, refs
 * and index stay writable.
 */
START_TEST(persistence_defaults)
{
	static const char *const files[] = {
		".git/hooks/pre-commit", ".git/config", ".gitmodules", ".bashrc",
		".bash_profile", ".profile", ".zshrc", ".zprofile", ".bash_login",
		".bash_logout", ".vscode/settings.json", ".idea/workspace.xml",
		/* Below the top too (review22 01). */
		"sub/.vscode/tasks.json", "a/b/.idea/workspace.xml",
		".envrc", ".git/modules/sub/hooks/post-checkout",
		/* Other programs' folder configurations (review25 10). */
		".claude/settings.json", ".claude/settings.local.json", ".mcp.json",
		".cursor/mcp.json", ".zed/settings.json", ".zed/tasks.json",
		".helix/languages.toml", ".devcontainer/devcontainer.json",
		".devcontainer.json",
		".git/modules/a/modules/b/config",
		/* Issue 18: all of a repository's own directory. */
		".git/objects/ab/cdef", ".git/refs/heads/main", ".git/index",
		".git/HEAD", ".git/modules/sub/index",
	};
	static const char *const free_files[] = {
		"src/.bashrc.example", "notes.txt", "src/x.git", ".github/ci.yml",
		".claude/commands/review.md",
	};
	char *ws = wst_path(base, "ws");

	wst_mkdir(base, "ws/.git/hooks");
	wst_write(ws, ".git/config", "[core]\n");
	wst_write(ws, ".bashrc", "# rc\n");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *w[] = {"--content", "x", files[i], NULL};

		wp(ws, true, w);
	}
	for (size_t i = 0; i < sizeof(free_files) / sizeof(free_files[0]); i++) {
		const char *w[] = {"--content", "x", free_files[i], NULL};

		wp(ws, false, w);
	}
	{
		const char *edit[] = {"--edit", "--old", "rc", "--new", "pwn", ".bashrc", NULL};
		const char *app[] = {"--append", "--content", "x", ".bashrc", NULL};
		const char *del[] = {"--delete", ".bashrc", NULL};
		const char *mv[] = {"--move", "rc.bak", ".bashrc", NULL};
		const char *over[] = {"--move", ".bashrc", "-f", "notes.txt", NULL};
		const char *rmgit[] = {"--delete", "-r", ".git", NULL};
		const char *mvgit[] = {"--move", "g", ".git", NULL};
		const char *rmhooks[] = {"--delete", "-r", ".git/hooks", NULL};
		const char *mk[] = {"--mkdir", ".vscode", NULL};

		wp(ws, true, edit);
		wp(ws, true, app);
		wp(ws, true, del);
		wp(ws, true, mv);
		wp(ws, true, over);
		wp(ws, true, rmgit);
		wp(ws, true, mvgit);
		wp(ws, true, rmhooks);
		wp(ws, true, mk);
	}
	{
		size_t n;
		char *rc = slurp_at(ws, ".bashrc", &n);

		ck_assert_str_eq(rc, "# rc\n");
		free(rc);
		ck_assert(!exists_at(ws, ".git/hooks/pre-commit"));
		ck_assert(!exists_at(ws, ".envrc"));
	}
	free(ws);
}
END_TEST

/* Run wswrite in ws; expect a HOME persistence refusal or success. */
static void
whp(const char *ws, bool refused, const char *const *args)
{
	struct wst_run r;

	run_ws(&r, ws, NULL, "wswrite", args);
	if (refused) {
		expect_code(&r, "POLICY_DENIED", 3);
		ck_assert_msg(strstr(r.out, "where a later login, session or program")
				      != NULL, "%s", r.out);
	} else {
		expect_code(&r, "", 0);
	}
	wst_run_free(&r);
}

/*
 * HOME's persistence places (issue 18), when the workspace holds them:
 * systemd user units, autostart entries, git's configuration, PATH's
 * directories are refused to every tool, whatever the policy; the rest
 * of ~/.config stays writable.
 */
START_TEST(persistence_home_places)
{
	static const char *const files[] = {
		".config/systemd/user/x.service", ".config/autostart/x.desktop",
		".config/git/config", ".gitconfig", ".local/bin/ls",
		".ssh/authorized_keys", ".config/environment.d/x.conf",
		".pam_environment", ".local/share/systemd/user/y.timer",
	};
	static const char *const free_files[] = {
		".config/myapp/settings", "notes.txt", ".cache/x",
		".local/share/myapp/db",
	};
	char *ws = wst_path(base, "home");

	wst_write(ws, ".config/git/config", "[user]\n");
	cfg_env = NULL;
	ck_assert(asprintf(&cfg_env, "HOME=%s", ws) > 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *w[] = {"--content", "x", files[i], NULL};

		whp(ws, true, w);
	}
	for (size_t i = 0; i < sizeof(free_files) / sizeof(free_files[0]); i++) {
		const char *w[] = {"--content", "x", free_files[i], NULL};

		whp(ws, false, w);
	}
	{
		const char *edit[] = {"--edit", "--old", "user", "--new", "x",
				      ".config/git/config", NULL};
		const char *mk[] = {"--mkdir", ".config/autostart", NULL};
		const char *mvin[] = {"--move", ".config/autostart/n.desktop",
				      "notes.txt", NULL};
		const char *mvout[] = {"--move", "cfg", ".config", NULL};
		const char *del[] = {"--delete", "-r", ".config", NULL};
		char *c;

		whp(ws, true, edit);
		whp(ws, true, mk);
		whp(ws, true, mvin);
		whp(ws, true, mvout);
		whp(ws, true, del);
		c = slurp_at(ws, ".config/git/config", NULL);
		ck_assert_str_eq(c, "[user]\n");
		free(c);
		ck_assert(!exists_at(ws, ".config/autostart"));
		ck_assert(!exists_at(ws, ".config/systemd"));
	}
	free(ws);
}
END_TEST

/*
 * Files a repository's configuration names in the workspace, and which
 * git reads or runs as its own: review23 18, the hooks directory of
 * core.hooksPath (husky's .husky/_, which its .gitignore hides from git
 * status); review23 17, a file include.path takes in (a project's
 * shared .gitconfig).  The file tools refuse them, with the setting
 * named, and a command finds them read-only, as .git/hooks and
 * .git/config.
 */
static const struct {
	const char *file, *content, *setting, *value, *write;
} cfg_named[] = {
	{".husky/_/h", "#!/bin/sh\n", "core.hooksPath", ".husky/_",
	 "echo evil > .husky/_/h; echo evil > .husky/_/post-commit; true"},
	{".gitconfig", "[alias]\n\tst = status\n", "include.path", "../.gitconfig",
	 "printf '[core]\\n\\tfsmonitor = touch PWNED\\n' >> .gitconfig; true"},
};

START_TEST(config_named_files_guarded)
{
	struct wst_run r;
	char cmd[4200], *ws = wst_path(base, "cn"), *t, *h;

	wst_write(ws, cfg_named[_i].file, cfg_named[_i].content);
	snprintf(cmd, sizeof(cmd), "cd '%s' && git init -q . && git config %s %s", ws,
		 cfg_named[_i].setting, cfg_named[_i].value);
	if (system("git --version >/dev/null 2>&1") != 0 || system(cmd) != 0) {
		free(ws);
		return;
	}
	run_ws(&r, ws, NULL, "wswrite", (const char *[]){"--append", "--content",
		"evil\n", cfg_named[_i].file, NULL});
	expect_code(&r, "POLICY_DENIED", 3);
	ck_assert_msg(strstr(r.out, cfg_named[_i].setting) != NULL, "%s", r.out);
	wst_run_free(&r);
	run_ws(&r, ws, NULL, "wsrun", (const char *[]){"--", "sh", "-c",
		cfg_named[_i].write, NULL});
	h = wst_path(ws, cfg_named[_i].file);
	t = wst_slurp(h, NULL);
	/* Where the guards are bound (a mount namespace); a run refused
	 * leaves it too.  Without a mount namespace nothing is bound. */
	{
		cJSON *gd = cJSON_GetObjectItem(wst_output(&r, "isolation"), "guards");

		if (!cJSON_IsFalse(cJSON_GetObjectItem(gd, "enforced")))
			ck_assert_msg(t != NULL && strcmp(t, cfg_named[_i].content) == 0,
				      "%s", r.out);
	}
	free(t);
	free(h);
	wst_run_free(&r);
	free(ws);
}
END_TEST

/*
 * Review12 02: the places review12 found missing from HOME's list
 * (Python's user site, IPython's start-up, Gradle's init scripts,
 * ~/.hgrc, ~/.gdbinit, VS Code's user settings, Neovim's site) are
 * refused; a sibling that runs nothing is not.
 */
START_TEST(persistence_home_places_review12)
{
	static const char *const files[] = {
		".local/lib/python3.11/site-packages/a.pth",
		".local/lib/python3.12/site-packages/usercustomize.py",
		".ipython/profile_default/startup/a.py",
		".ipython/profile_x/startup/a.py", ".gradle/init.d/a.gradle",
		".gradle/init.gradle", ".hgrc", ".gdbinit",
		".config/Code/User/tasks.json", ".local/share/nvim/site/plugin/a.vim",
		".curlrc", ".wgetrc", ".lesskey", ".screenrc",
		/* Review13 02. */
		".bash_completion", ".local/share/bash-completion/completions/git",
		".zcompdump", ".zshrc.zwc", ".pyenv/shims/python3", ".pyenv/version",
		".rustup/toolchains/stable/bin/cargo", ".rustup/settings.toml",
		".cargo/registry/src/idx/dep-1.0/build.rs", ".cargo/git/checkouts/a/b.rs",
		".cargo/env", ".terraformrc", ".julia/config/startup.jl", ".ghci",
		".condarc", ".nvm/nvm.sh", ".config/gh/config.yml",
		".config/starship.toml",
		/* Review23 12: jj's, Sapling's and vim's XDG configuration. */
		".config/jj/config.toml", ".config/jj/conf.d/a.toml", ".jjconfig.toml",
		".config/sapling/sapling.conf", ".sapling.conf", ".config/vim/vimrc",
	};
	static const char *const free_files[] = {
		".gradle/caches/x", ".local/share/myapp/db", ".config/Code/Cache/x",
		".cargo/.package-cache", ".rustup/tmp/x", ".bashrc.dx",
	};
	char *ws = wst_path(base, "home");

	wst_mkdir(ws, ".local/lib");
	free(cfg_env);
	cfg_env = NULL;
	ck_assert(asprintf(&cfg_env, "HOME=%s", ws) > 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *w[] = {"--content", "x", files[i], NULL};

		whp(ws, true, w);
		ck_assert_msg(!exists_at(ws, files[i]), "%s", files[i]);
	}
	for (size_t i = 0; i < sizeof(free_files) / sizeof(free_files[0]); i++) {
		const char *w[] = {"--content", "x", free_files[i], NULL};

		whp(ws, false, w);
	}
	free(ws);
}
END_TEST

/*
 * Review25 08, the other half: with HOME as the workspace, what the
 * person's start-up files source is refused, whatever its name: read
 * from the rc files at each call (`source ~/.my-env.sh`, `[ -f X ] && .
 * X`, "$HOME/...", a loop's directory, .zshrc's, and what a sourced file
 * sources), creating, changing, deleting and renaming it or what holds
 * it.  A file the rc files name no more is free again.
 */
START_TEST(persistence_rc_sourced)
{
	static const char *const files[] = {
		".my-env.sh", ".tools/env", ".mybashrc.d/a.sh", ".zsh-extra.zsh",
		".lvl2.sh",
	};
	static const char *const free_files[] = {
		".my-env.sh.example", "notes.txt", ".tools-x/env", ".lvl3.sh",
	};
	char *ws = wst_path(base, "home");

	wst_write(ws, ".bashrc", "# mine\nsource ~/.my-env.sh\n"
		  "[ -f \"$HOME/.tools/env\" ] && . \"$HOME/.tools/env\"\n"
		  "for f in ~/.mybashrc.d/*.sh; do . \"$f\"; done\n");
	wst_write(ws, ".zshrc", "if [[ -r ${HOME}/.zsh-extra.zsh ]]; then\n"
		  "  source ${HOME}/.zsh-extra.zsh\nfi\n");
	wst_write(ws, ".my-env.sh", "export A=1\n. ~/.lvl2.sh\n");
	wst_write(ws, ".lvl2.sh", ". ~/.lvl3.sh\n");
	free(cfg_env);
	cfg_env = NULL;
	ck_assert(asprintf(&cfg_env, "HOME=%s", ws) > 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *w[] = {"--content", "x", files[i], NULL};

		whp(ws, true, w);
	}
	{
		const char *del[] = {"--delete", ".my-env.sh", NULL};
		const char *mv[] = {"--move", "elsewhere.sh", ".my-env.sh", NULL};
		const char *over[] = {"--move", ".my-env.sh", "-f", "notes2.txt", NULL};
		const char *mk[] = {"--mkdir", ".tools", NULL};

		whp(ws, true, del);
		whp(ws, true, mv);
		wst_write(ws, "notes2.txt", "n\n");
		whp(ws, true, over);
		/* What holds a place: made, as a listed place's parent
		 * (~/.deno) is; renamed, it would move the place. */
		whp(ws, false, mk);
		{
			const char *mvd[] = {"--move", "t2", ".tools", NULL};

			whp(ws, true, mvd);
		}
	}
	{
		char *f = wst_path(ws, ".my-env.sh"), *t = wst_slurp(f, NULL);

		ck_assert_str_eq(t, "export A=1\n. ~/.lvl2.sh\n");
		free(t);
		free(f);
	}
	for (size_t i = 0; i < sizeof(free_files) / sizeof(free_files[0]); i++) {
		const char *w[] = {"--content", "x", free_files[i], NULL};

		whp(ws, false, w);
	}
	/* The rc file names it no more: free at the next call. */
	wst_write(ws, ".zshrc", "# nothing sourced\n");
	{
		const char *w[] = {"--content", "x", ".zsh-extra.zsh", NULL};

		whp(ws, false, w);
	}
	free(ws);
}
END_TEST

/*
 * With HOME a workspace (~/.config and ~/.local/share there): writing
 * each of places is refused and leaves nothing; each of free_files is
 * written.
 */
static void
home_places_refused(const char *const *places, size_t np,
		    const char *const *free_files, size_t nfree)
{
	char *ws = wst_path(base, "home");

	wst_mkdir(ws, ".config");
	wst_mkdir(ws, ".local/share");
	free(cfg_env);
	cfg_env = NULL;
	ck_assert(asprintf(&cfg_env, "HOME=%s", ws) > 0);
	for (size_t i = 0; i < np; i++) {
		const char *w[] = {"--content", "x", places[i], NULL};

		whp(ws, true, w);
		ck_assert_msg(!exists_at(ws, places[i]), "%s", places[i]);
	}
	for (size_t i = 0; i < nfree; i++) {
		const char *w[] = {"--content", "x", free_files[i], NULL};

		whp(ws, false, w);
	}
	free(ws);
}

/*
 * Review14 02: the places review14 found missing from HOME's list
 * (version managers, Jupyter's user kernelspecs, podman's configuration,
 * terminals', interpreters' and clients' start-up files; the list is
 * tests/common/places.c, which test_wsrun.c checks too) are refused,
 * with ~/.config and ~/.local/share there; siblings that run nothing
 * are not.
 */
START_TEST(persistence_home_places_review14)
{
	static const char *const free_files[] = {
		".bun/install/cache/x", ".deno/deps/x", ".local/share/jupyter/runtime/x",
		".erlang.cookie.bak", ".config/kitty.bak",
	};
	home_places_refused(wst_review14_places, wst_review14_nplaces, free_files,
			    sizeof(free_files) / sizeof(free_files[0]));
}
END_TEST

/*
 * Review16 01: more places review16 found missing (direnv's allow list,
 * pre-commit's hooks, go env, Node's, RubyGems', Bundler's, pipx's and
 * uv's places, linters' and build tools' rc files, shells', editors'
 * and desktops' configuration, ~/.forward, Firefox's profiles) are
 * refused, with ~/.config and ~/.local/share there; siblings that run
 * nothing are not.
 */
START_TEST(persistence_home_places_review16)
{
	static const char *const free_files[] = {
		".cache/pip/x", ".local/share/uv/cache/x", ".bundle/cache/x",
		".config/go/telemetry/x", ".forward.bak",
	};
	home_places_refused(wst_review16_places, wst_review16_nplaces, free_files,
			    sizeof(free_files) / sizeof(free_files[0]));
}
END_TEST

/*
 * Review18 05: more places review18 found missing (sensible-editor's
 * file, Bun's bunfig, editors' extensions, plugins and settings, mail
 * clients', file managers', mpv's and qutebrowser's configuration,
 * Stack's hooks, the desktop session's start-up files, dunst's scripts,
 * mise's trust store) are refused, with ~/.config and ~/.local/share
 * there; siblings that run nothing are not.
 */
START_TEST(persistence_home_places_review18)
{
	static const char *const free_files[] = {
		".config/sublime-text/Cache/x", ".stack/programs/x",
		".local/state/wireplumber/x", ".cursor/argv.json",
		".selected_editor.bak", ".config/mpv.bak",
	};
	const char *places[64];
	size_t n = 0;

	/* ~/.vscode/extensions/: the workspace's own .vscode/ guard (HOME
	 * is the workspace here) refuses it first, with its own message. */
	ck_assert(wst_review18_nplaces <= sizeof(places) / sizeof(places[0]));
	for (size_t i = 0; i < wst_review18_nplaces; i++)
		if (strncmp(wst_review18_places[i], ".vscode/", 8) != 0)
			places[n++] = wst_review18_places[i];
	home_places_refused(places, n, free_files,
			    sizeof(free_files) / sizeof(free_files[0]));
}
END_TEST

/*
 * Review28 07: coding agents' user configuration (Claude Code's
 * ~/.claude.json and ~/.claude/, Codex's, Gemini CLI's, Windsurf's,
 * opencode's, Continue's: the MCP servers and hooks they start at the
 * person's next session) is refused, an existing ~/.claude.json too;
 * siblings that run nothing are not.
 */
START_TEST(persistence_home_places_review28)
{
	static const char *const free_files[] = {
		".claude.json.tmp", ".claudex/x", ".cursor/argv.json",
	};
	char *ws = wst_path(base, "home");
	const char *w[] = {"--content", "{\"mcpServers\":{}}", ".claude.json", NULL};
	char *t, *f = wst_path(base, "home/.claude.json");

	home_places_refused(wst_review28_places, wst_review28_nplaces, free_files,
			    sizeof(free_files) / sizeof(free_files[0]));
	wst_write(ws, ".claude.json", "{\"numStartups\":3}\n");
	whp(ws, true, w);
	t = wst_slurp(f, NULL);
	ck_assert_str_eq(t, "{\"numStartups\":3}\n");
	free(t);
	free(f);
	free(ws);
}
END_TEST

/*
 * Review14 01: the caller's PATH holds directories in the workspace (an
 * activated venv's bin/, one not made yet): writing there is refused,
 * replacing an existing script (whose mode a write keeps) too; the
 * venv's other directories and a relative PATH entry's ("." is the
 * workspace's top here) are not.
 */
START_TEST(persistence_path_dirs)
{
	static const char *const files[] = {
		".venv/bin/ls", ".venv/bin/pip", "nm/.bin/git",
	};
	static const char *const free_files[] = {
		".venv/lib/x.py", "ls", "nm/x",
	};
	char *ws = wst_path(base, "pathws");

	wst_write(ws, ".venv/bin/pip", "#!/bin/sh\n");
	free(cfg_env);
	ck_assert(asprintf(&cfg_env, "PATH=%s/.venv/bin:.:%s/nm/.bin:%s", ws, ws,
			   getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin") > 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *w[] = {"--content", "x", files[i], NULL};
		struct wst_run r;

		run_ws(&r, ws, NULL, "wswrite", w);
		expect_code(&r, "POLICY_DENIED", 3);
		ck_assert_msg(strstr(r.out, "a directory on $PATH, where a later login")
				      != NULL, "%s", r.out);
		wst_run_free(&r);
	}
	ck_assert(!exists_at(ws, ".venv/bin/ls"));
	for (size_t i = 0; i < sizeof(free_files) / sizeof(free_files[0]); i++) {
		const char *w[] = {"--content", "x", free_files[i], NULL};

		whp(ws, false, w);
	}
	free(cfg_env);
	cfg_env = NULL;
	free(ws);
}
END_TEST

/*
 * Review12 05: HOME outside the workspace, but the environment puts a
 * part of HOME's places in it: XDG_CONFIG_HOME (git's global
 * configuration, systemd user units), XDG_DATA_HOME (through a link,
 * checked by its real name), ZDOTDIR (not made yet), PYTHONUSERBASE and
 * GIT_CONFIG_GLOBAL.  Those places are refused; the rest of each base
 * is not.
 */
START_TEST(persistence_xdg_bases)
{
	static const char *const files[] = {
		"xdg/git/config", "xdg/systemd/user/x.service", "xdg/fish/config.fish",
		"dreal/applications/x.desktop", "dlink/systemd/user/y.timer",
		"zdot/.zshrc", "pyu/lib/python3.11/site-packages/a.pth", "gitcfg",
	};
	static const char *const free_files[] = {
		"xdg/myapp/x", "dreal/myapp/db", "zdot/notes", "pyu/share/x",
		"gitcfg2",
	};
	char *ws = wst_path(base, "xws"), *e[6];
	const char *env[7];
	struct wst_run r;

	wst_mkdir(ws, "xdg");
	wst_mkdir(ws, "dreal");
	wst_mkdir(ws, "pyu");
	wst_symlink("dreal", ws, "dlink");
	ck_assert(asprintf(&e[0], "XDG_CONFIG_HOME=%s/xdg", ws) > 0);
	ck_assert(asprintf(&e[1], "XDG_DATA_HOME=%s/dlink/", ws) > 0);
	ck_assert(asprintf(&e[2], "ZDOTDIR=%s/zdot", ws) > 0);
	ck_assert(asprintf(&e[3], "PYTHONUSERBASE=%s/pyu", ws) > 0);
	ck_assert(asprintf(&e[4], "GIT_CONFIG_GLOBAL=%s/gitcfg", ws) > 0);
	ck_assert(asprintf(&e[5], "HOME=%s", base) > 0);
	for (size_t i = 0; i < 6; i++)
		env[i] = e[i];
	env[6] = NULL;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *w[] = {"--workspace", ws, "--json", "--content", "x",
				   files[i], NULL};

		wst_runv(&r, NULL, env, "wswrite", w);
		expect_code(&r, "POLICY_DENIED", 3);
		ck_assert_msg(strstr(r.out, "where a later login, session or program")
				      != NULL, "%s", r.out);
		ck_assert_msg(!exists_at(ws, files[i]), "%s", files[i]);
		wst_run_free(&r);
	}
	{
		const char *w[] = {"--workspace", ws, "--json", "--content", "x",
				   "xdg/git/config", NULL};

		wst_runv(&r, NULL, env, "wswrite", w);
		ck_assert_msg(strstr(r.out, "$XDG_CONFIG_HOME/git") != NULL, "%s", r.out);
		wst_run_free(&r);
	}
	for (size_t i = 0; i < sizeof(free_files) / sizeof(free_files[0]); i++) {
		const char *w[] = {"--workspace", ws, "--json", "--content", "x",
				   free_files[i], NULL};

		wst_runv(&r, NULL, env, "wswrite", w);
		expect_code(&r, "", 0);
		wst_run_free(&r);
	}
	for (size_t i = 0; i < 6; i++)
		free(e[i]);
	free(ws);
}
END_TEST

/* wswrite in ws with env (NULL-terminated): refused as a place, or done. */
static void
wr_env(const char *const *env, const char *ws, bool refused,
       const char *const *args)
{
	const char *argv[16];
	struct wst_run r;
	size_t n = 0;

	argv[n++] = "--workspace";
	argv[n++] = ws;
	argv[n++] = "--json";
	for (size_t i = 0; args[i] != NULL && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	wst_runv(&r, NULL, env, "wswrite", argv);
	if (refused) {
		expect_code(&r, "POLICY_DENIED", 3);
		ck_assert_msg(strstr(r.out, "where a later login, session or program")
				      != NULL, "%s", r.out);
	} else {
		expect_code(&r, "", 0);
	}
	wst_run_free(&r);
}

/*
 * Review17 05: a PATH directory, or XDG_CONFIG_HOME, spelled through a
 * link in the workspace whose target is not made yet (tools -> realdir,
 * cfg -> realcfg): the target is the place, written by neither name nor
 * moved in from elsewhere, and the link, on the way, is not deleted,
 * replaced or moved.  What is beside the place stays writable.  sec14m:
 * the same for a base through a link that exists (CARGO_HOME=<ws>/cg,
 * cg -> cgreal): the link is not deleted or moved.
 */
START_TEST(persistence_base_dangling_link)
{
	char *ws = wst_path(base, "r17ws"), *e[4];
	const char *env[5];

	wst_mkdir(ws, "cgreal");
	wst_symlink("cgreal", ws, "cg");
	wst_symlink("realdir", ws, "tools");
	wst_symlink("realcfg", ws, "cfg");
	wst_write(ws, "other/bin/ls", "#!/bin/sh\necho PWNED\n");
	ck_assert(asprintf(&e[0], "PATH=%s/tools/bin:/usr/bin:/bin", ws) > 0);
	ck_assert(asprintf(&e[1], "XDG_CONFIG_HOME=%s/cfg", ws) > 0);
	ck_assert(asprintf(&e[2], "HOME=%s", base) > 0);
	ck_assert(asprintf(&e[3], "CARGO_HOME=%s/cg", ws) > 0);
	for (size_t i = 0; i < 4; i++)
		env[i] = e[i];
	env[4] = NULL;
	{
		const char *w1[] = {"--content", "x", "realdir/bin/ls", NULL};
		const char *w2[] = {"--content", "x", "tools/bin/ls", NULL};
		const char *w3[] = {"--move", "realdir", "other", NULL};
		const char *w4[] = {"--content", "x", "cfg/git/config", NULL};
		const char *w5[] = {"--content", "x", "realcfg/git/config", NULL};
		const char *w6[] = {"--delete", "tools", NULL};
		const char *w7[] = {"--move", "tools2", "tools", NULL};
		const char *ok1[] = {"--content", "x", "realcfg/myapp/x", NULL};
		const char *ok2[] = {"--content", "x", "realdirs/bin/ls", NULL};
		/* sec14m: a base through a link that exists (CARGO_HOME). */
		const char *w8[] = {"--delete", "cg", NULL};
		const char *w9[] = {"--move", "cg2", "cg", NULL};
		const char *ok3[] = {"--content", "x", "cgreal/notes", NULL};

		wr_env(env, ws, true, w1);
		wr_env(env, ws, true, w2);
		wr_env(env, ws, true, w3);
		wr_env(env, ws, true, w4);
		wr_env(env, ws, true, w5);
		wr_env(env, ws, true, w6);
		wr_env(env, ws, true, w7);
		wr_env(env, ws, false, ok1);
		/* realcfg made: still its git/ is a place, by either name. */
		wr_env(env, ws, true, w4);
		wr_env(env, ws, true, w5);
		wr_env(env, ws, false, ok2);
		wr_env(env, ws, true, w8);
		wr_env(env, ws, true, w9);
		wr_env(env, ws, false, ok3);
	}
	ck_assert(!exists_at(ws, "realdir"));
	ck_assert(exists_at(ws, "other/bin/ls"));
	for (size_t i = 0; i < 4; i++)
		free(e[i]);
	free(ws);
}
END_TEST

/*
 * Review17 03: PATH=<ws>/a/../scripts (the shell follows a before the
 * ".."), and a HOME link whose dangling target has a ".." after a
 * missing directory (~/.config -> <ws>/b/../dots): a and b are on the
 * way, not deleted, moved or made; what a holds stays writable.
 */
START_TEST(persistence_base_dotdot)
{
	char *ws = wst_path(base, "r17ws"), *e[2], *t;
	const char *env[3];

	wst_mkdir(ws, "a");
	wst_mkdir(ws, "scripts");
	wst_mkdir(base, "h2");
	t = wst_path(ws, "b/../dots");
	wst_symlink(t, base, "h2/.config");
	free(t);
	ck_assert(asprintf(&e[0], "PATH=%s/a/../scripts:/usr/bin:/bin", ws) > 0);
	ck_assert(asprintf(&e[1], "HOME=%s/h2", base) > 0);
	env[0] = e[0];
	env[1] = e[1];
	env[2] = NULL;
	{
		const char *w1[] = {"--delete", "a", NULL};
		const char *w2[] = {"--move", "a2", "a", NULL};
		const char *w3[] = {"--content", "x", "scripts/ls", NULL};
		const char *w4[] = {"--mkdir", "b", NULL};
		const char *w5[] = {"--content", "x", "dots/git/config", NULL};
		const char *ok1[] = {"--content", "x", "a/x", NULL};
		const char *ok2[] = {"--content", "x", "bb/x", NULL};

		wr_env(env, ws, true, w1);
		wr_env(env, ws, true, w2);
		wr_env(env, ws, true, w3);
		wr_env(env, ws, true, w4);
		wr_env(env, ws, true, w5);
		wr_env(env, ws, false, ok1);
		wr_env(env, ws, false, ok2);
	}
	ck_assert(exists_at(ws, "a/x"));
	ck_assert(!exists_at(ws, "b"));
	free(e[0]);
	free(e[1]);
	free(ws);
}
END_TEST

/*
 * Review17 04 and 02: a workspace directory that comes 150th on PATH is
 * a place as the first is; so is one named by a relative entry, taken
 * against the current directory (the workspace's top here, as a
 * person's shell in the project has it).
 */
START_TEST(persistence_path_long_and_relative)
{
	char *ws = wst_path(base, "r17ws"), *pv, *hv;
	const char *env[3];
	size_t pl;

	wst_mkdir(ws, "scripts");
	wst_mkdir(ws, "rel");
	ck_assert(asprintf(&hv, "HOME=%s", base) > 0);
	pl = 150 * 32 + strlen(ws) + 64;
	ck_assert_ptr_nonnull(pv = malloc(pl));
	strcpy(pv, "PATH=");
	for (int i = 1; i < 150; i++)
		snprintf(pv + strlen(pv), pl - strlen(pv), "/opt/none%d:", i);
	snprintf(pv + strlen(pv), pl - strlen(pv), "%s/scripts:/usr/bin:/bin", ws);
	env[0] = pv;
	env[1] = hv;
	env[2] = NULL;
	{
		const char *w1[] = {"--content", "x", "scripts/ls", NULL};
		const char *ok[] = {"--content", "x", "rel/ls", NULL};

		wr_env(env, ws, true, w1);
		wr_env(env, ws, false, ok);
	}
	free(pv);
	ck_assert_int_eq(chdir(ws), 0);
	env[0] = "PATH=rel:./x/../y:/usr/bin:/bin";
	{
		const char *w1[] = {"--content", "x", "rel/ls2", NULL};
		const char *w2[] = {"--content", "x", "y/ls", NULL};
		const char *ok[] = {"--content", "x", "scripts/ls", NULL};

		wr_env(env, ws, true, w1);
		wr_env(env, ws, true, w2);
		wr_env(env, ws, false, ok);
	}
	/* Review19 05: "~/..." as bash expands it when it searches. */
	wst_mkdir(ws, "tilde");
	env[0] = "PATH=~/r17ws/tilde:/usr/bin:/bin";
	{
		const char *w1[] = {"--content", "x", "tilde/ls", NULL};

		wr_env(env, ws, true, w1);
	}
	ck_assert_int_eq(chdir("/"), 0);
	free(hv);
	free(ws);
}
END_TEST

/*
 * Review17 07: a PATH directory above the workspace (~/code on PATH,
 * the project in ~/code/proj) leaves the workspace writable but for what
 * that directory's own links lead to in it (code/tool ->
 * proj/build/tool); a PATH directory that is the workspace keeps it
 * read-only as a whole.
 */
START_TEST(persistence_path_dir_above)
{
	char *ws = wst_path(base, "code/proj"), *hv, *pv;
	const char *env[3];

	wst_write(ws, "build/tool", "#!/bin/sh\n");
	wst_symlink("proj/build/tool", base, "code/tool");
	ck_assert(asprintf(&hv, "HOME=%s/h", base) > 0);
	ck_assert(asprintf(&pv, "PATH=%s/code:/usr/bin:/bin", base) > 0);
	env[0] = pv;
	env[1] = hv;
	env[2] = NULL;
	{
		const char *ok1[] = {"--content", "x", "src/main.c", NULL};
		const char *ok2[] = {"--content", "x", "build/other", NULL};
		const char *w1[] = {"--content", "x", "build/tool", NULL};
		const char *w2[] = {"--delete", "-r", "build", NULL};

		wr_env(env, ws, false, ok1);
		wr_env(env, ws, false, ok2);
		wr_env(env, ws, true, w1);
		wr_env(env, ws, true, w2);
	}
	free(pv);
	ck_assert(asprintf(&pv, "PATH=%s:/usr/bin:/bin", ws) > 0);
	env[0] = pv;
	{
		const char *w1[] = {"--content", "x", "src/other.c", NULL};

		wr_env(env, ws, true, w1);
	}
	free(pv);
	free(hv);
	free(ws);
}
END_TEST

/*
 * sec16c: HOME outside the workspace, ~/.config/git -> <ws>/la/gitcfg
 * and la -> lb: the link la, on the place's way, is not deleted or
 * moved by a file tool (the host's git configuration would dangle, or
 * be the agent's), nor lb, where the place is; what lb holds beside it
 * stays writable.
 */
START_TEST(persistence_home_way_link)
{
	char *ws = wst_path(base, "r17ws"), *hv, *t;
	const char *env[2];

	wst_write(ws, "lb/gitcfg/config", "[user]\n");
	wst_symlink("lb", ws, "la");
	wst_mkdir(base, "h3/.config");
	t = wst_path(ws, "la/gitcfg");
	wst_symlink(t, base, "h3/.config/git");
	free(t);
	ck_assert(asprintf(&hv, "HOME=%s/h3", base) > 0);
	env[0] = hv;
	env[1] = NULL;
	{
		const char *w1[] = {"--delete", "la", NULL};
		const char *w2[] = {"--move", "la2", "la", NULL};
		const char *w3[] = {"--delete", "-r", "lb", NULL};
		const char *ok[] = {"--content", "x", "lb/x", NULL};

		wr_env(env, ws, true, w1);
		wr_env(env, ws, true, w2);
		wr_env(env, ws, true, w3);
		wr_env(env, ws, false, ok);
	}
	ck_assert(exists_at(ws, "lb/gitcfg/config"));
	t = wst_path(ws, "la");
	ck_assert(wst_exists(t));
	free(t);
	free(hv);
	free(ws);
}
END_TEST

/*
 * Review11 03/04: the workspace is HOME with stow's layout, ~/.config ->
 * dotfiles/config and ~/.ssh -> dotfiles/ssh.  The places below the
 * links are refused by either name, and the links (and what they lead
 * to) are not re-pointed, moved or deleted.
 */
START_TEST(persistence_home_linked_parents)
{
	static const char *const files[] = {
		".config/systemd/user/x.service", "dotfiles/config/systemd/user/x.service",
		".config/autostart/x.desktop", "dotfiles/config/autostart/x.desktop",
		"dotfiles/config/git/config", ".ssh/authorized_keys",
		"dotfiles/ssh/authorized_keys", "dotfiles/ssh/config",
	};
	char *ws = wst_path(base, "home");

	wst_write(ws, "dotfiles/config/git/config", "[user]\n");
	wst_write(ws, "dotfiles/ssh/authorized_keys", "orig\n");
	wst_write(ws, "dotfiles/config/myapp/settings", "a\n");
	wst_symlink("dotfiles/config", ws, ".config");
	wst_symlink("dotfiles/ssh", ws, ".ssh");
	free(cfg_env);
	cfg_env = NULL;
	ck_assert(asprintf(&cfg_env, "HOME=%s", ws) > 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *w[] = {"--content", "x", files[i], NULL};
		const char *ap[] = {"--append", "--content", "x", files[i], NULL};

		whp(ws, true, w);
		whp(ws, true, ap);
	}
	{
		const char *ok[] = {"--content", "b", "dotfiles/config/myapp/settings", NULL};
		const char *mv[] = {"--move", "cfg", "dotfiles/config", NULL};
		const char *mvssh[] = {"--move", "s", "dotfiles/ssh", NULL};
		const char *del[] = {"--delete", ".ssh", NULL};
		const char *mvl[] = {"--move", ".config", "-f", "dotfiles/config/myapp", NULL};
		char *c;

		whp(ws, false, ok);
		whp(ws, true, mv);
		whp(ws, true, mvssh);
		whp(ws, true, del);
		whp(ws, true, mvl);
		c = slurp_at(ws, "dotfiles/ssh/authorized_keys", NULL);
		ck_assert_str_eq(c, "orig\n");
		free(c);
		c = slurp_at(ws, "dotfiles/config/git/config", NULL);
		ck_assert_str_eq(c, "[user]\n");
		free(c);
		ck_assert(!exists_at(ws, "dotfiles/config/systemd"));
		ck_assert(!exists_at(ws, "dotfiles/config/autostart"));
	}
	free(ws);
}
END_TEST

/*
 * Review16 02 and 03: HOME outside the workspace, its places (or what
 * holds them) links into it, the symlinked dotfiles' layout:
 * ~/.config/git -> ws/gitcfg, ~/.local -> ws/dot, and ~/.config/fish ->
 * ws/fishcfg, which does not exist.  wsrun keeps them read-only; no
 * file tool writes, edits, makes, moves or deletes them, nor what holds
 * them, nor makes the one a dangling link names.  The rest stays
 * writable.
 */
START_TEST(persistence_home_linked_into_workspace)
{
	static const char *const files[] = {
		"gitcfg/config", "gitcfg/hooks/pre-commit", "dot/bin/ls",
		"dot/share/systemd/user/x.service", "fishcfg/config.fish",
		"fishcfg",
	};
	char *ws = wst_path(base, "ws"), *h = wst_path(base, "h");
	char *t;

	wst_write(ws, "gitcfg/config", "[user]\n");
	wst_write(ws, "dot/share/myapp/db", "a\n");
	wst_write(ws, "notes.txt", "n\n");
	wst_mkdir(h, ".config");
	t = wst_path(ws, "gitcfg");
	wst_symlink(t, h, ".config/git");
	free(t);
	t = wst_path(ws, "dot");
	wst_symlink(t, h, ".local");
	free(t);
	t = wst_path(ws, "fishcfg");
	wst_symlink(t, h, ".config/fish");
	free(t);
	free(cfg_env);
	ck_assert(asprintf(&cfg_env, "HOME=%s", h) > 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *w[] = {"--content", "x", files[i], NULL};
		const char *ap[] = {"--append", "--content", "x", files[i], NULL};

		whp(ws, true, w);
		whp(ws, true, ap);
	}
	{
		const char *ok[] = {"--content", "b", "dot/share/myapp/db", NULL};
		const char *ok2[] = {"--content", "b", "gitcfg2", NULL};
		const char *edit[] = {"--edit", "--old", "user", "--new", "x",
				      "gitcfg/config", NULL};
		const char *mk[] = {"--mkdir", "dot/bin", NULL};
		const char *mkf[] = {"--mkdir", "fishcfg", NULL};
		const char *mv[] = {"--move", "old", "gitcfg", NULL};
		const char *mvin[] = {"--move", "gitcfg/new", "notes.txt", NULL};
		const char *mvdot[] = {"--move", "d2", "dot", NULL};
		const char *del[] = {"--delete", "-r", "gitcfg", NULL};
		const char *deld[] = {"--delete", "-r", "dot", NULL};

		whp(ws, false, ok);
		whp(ws, false, ok2);
		whp(ws, true, edit);
		whp(ws, true, mk);
		whp(ws, true, mkf);
		whp(ws, true, mv);
		whp(ws, true, mvin);
		whp(ws, true, mvdot);
		whp(ws, true, del);
		whp(ws, true, deld);
		t = slurp_at(ws, "gitcfg/config", NULL);
		ck_assert_str_eq(t, "[user]\n");
		free(t);
		ck_assert(!exists_at(ws, "dot/bin"));
		ck_assert(!exists_at(ws, "fishcfg"));
		ck_assert(exists_at(ws, "notes.txt"));
	}
	free(h);
	free(ws);
}
END_TEST

/*
 * Review10 02 and 13: the HOME guard holds whatever $HOME says (HOME=//
 * or one that does not exist leaves the password database's home), and
 * by identity: the home reached through a bind mount (a container's
 * /workspace) is the home.  In a private mount namespace, with a password
 * file whose home for our uid is the test's: nothing real is touched.
 */
START_TEST(persistence_home_spoofed_or_aliased)
{
	static const char *const homes[] = {"HOME=//", "HOME=/nonexistent", NULL};
	char *home = wst_path(base, "home"), *alias = wst_path(base, "alias");
	char *pw = wst_path(base, "passwd"), *line = NULL, *henv = NULL;
	char *wrapper = NULL;
	const char *wv;
	const char *const w[] = {"--workspace", NULL, "--json", "--content", "k",
				 ".ssh/authorized_keys", NULL};
	const char *argv[8];
	struct wst_run r;

	wst_mkdir(base, "home");
	wst_mkdir(base, "alias");
	ck_assert(asprintf(&line, "me:x:%u:%u::%s:/bin/sh\n",
			   (unsigned)getuid(), (unsigned)getgid(), home) > 0);
	wst_write(base, "passwd", line);
	if (unshare(CLONE_NEWNS) != 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount(pw, "/etc/passwd", NULL, MS_BIND, NULL) != 0 ||
	    mount(home, alias, NULL, MS_BIND, NULL) != 0) {
		fprintf(stderr, "persistence_home_spoofed_or_aliased: no mount "
			"namespace here (%s), not checked\n", strerror(errno));
		goto out;
	}
	/*
	 * The tools run here, not through the valgrind step's wrapper: its
	 * server lives outside this test's mount namespace, where neither
	 * the password file nor the alias is.
	 */
	if ((wv = getenv("WST_TOOL_WRAPPER")) != NULL) {
		wrapper = strdup(wv);
		unsetenv("WST_TOOL_WRAPPER");
	}
	memcpy(argv, w, sizeof(w));
	argv[1] = home;
	for (size_t i = 0; homes[i] != NULL; i++) {
		run_env(&r, (const char *[]){homes[i], NULL}, "wswrite", argv);
		expect_code(&r, "POLICY_DENIED", 3);
		wst_run_free(&r);
	}
	/* The workspace is the home's bind mount, HOME its own name. */
	ck_assert(asprintf(&henv, "HOME=%s", home) > 0);
	argv[1] = alias;
	run_env(&r, (const char *[]){henv, NULL}, "wswrite", argv);
	expect_code(&r, "POLICY_DENIED", 3);
	wst_run_free(&r);
	ck_assert(!exists_at(home, ".ssh"));
	/* The workspace a bind of the home's parent: home/ inside it. */
	umount2(alias, MNT_DETACH);
	ck_assert_int_eq(mount(base, alias, NULL, MS_BIND, NULL), 0);
	argv[5] = "home/.ssh/authorized_keys";
	run_env(&r, (const char *[]){henv, NULL}, "wswrite", argv);
	expect_code(&r, "POLICY_DENIED", 3);
	wst_run_free(&r);
	ck_assert(!exists_at(home, ".ssh"));
	umount2(alias, MNT_DETACH);
	umount2("/etc/passwd", MNT_DETACH);
out:
	if (wrapper != NULL)
		setenv("WST_TOOL_WRAPPER", wrapper, 1);
	free(wrapper);
	free(home);
	free(alias);
	free(pw);
	free(line);
	free(henv);
}
END_TEST

/*
 * Review 6: a directory git takes for a bare repository whatever its
 * name (HEAD with refs or a commondir, git's is_git_directory()) is a
 * repository's own directory too: the file tools alone made one in /src
 * (mkdir objects, refs; write HEAD, config with core.pager), whose pager
 * the host's next "git branch" there ran.  Nothing is made inside one,
 * nor the entry that would turn a directory into one, by write, mkdir or
 * move; reading stays, and a tree holding one still moves whole.
 */
START_TEST(persistence_bare_like_repository)
{
	char *ws = wst_path(base, "ws");
	struct wst_run r;
	const char *const refused[][5] = {
		{"--content", "ref: refs/heads/main\n", "src/HEAD", NULL},
		{"--mkdir", "s2/refs", NULL},
		{"--content", "../x\n", "s2/commondir", NULL},
		{"--move", "s2/refs", "r0", NULL},
		{"--content", "[core]\n\tpager = x\n", "bare/config", NULL},
		{"--mkdir", "bare/hooks/x", NULL},
		{"--delete", "bare/HEAD", NULL},
		{"--move", "moved", "bare/refs", NULL},
		{"--mkdir", "dang/t", NULL},
		{"--content", "ref: refs/heads/main\n", "dang2/HEAD", NULL},
	};
	const char *rd[] = {"bare/HEAD", NULL};
	const char *mv[] = {"--move", "t/in", "t0", NULL};

	wst_mkdir(base, "ws/src/refs/heads");
	wst_mkdir(base, "ws/src/objects");
	wst_write(ws, "s2/HEAD", "ref: refs/heads/main\n");
	wst_mkdir(base, "ws/r0");
	wst_write(ws, "bare/HEAD", "ref: refs/heads/main\n");
	wst_mkdir(base, "ws/bare/refs");
	wst_mkdir(base, "ws/bare/objects");
	/*
	 * Review18 01: refs a dangling link, as a command can leave it: the
	 * mkdir of its target (a name that is neither HEAD nor refs) would
	 * make the repository, and HEAD beside it too.
	 */
	wst_write(ws, "dang/HEAD", "ref: refs/heads/main\n");
	wst_mkdir(base, "ws/dang/objects");
	wst_mkdir(base, "ws/dang2");
	wst_symlink("t", ws, "dang/refs");
	wst_symlink("t", ws, "dang2/refs");
	wst_write(ws, "t0/b/HEAD", "ref: refs/heads/main\n");
	wst_mkdir(base, "ws/t0/b/refs");
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		run_ws(&r, ws, NULL, "wswrite", refused[i]);
		expect_code(&r, "POLICY_DENIED", 3);
		ck_assert_msg(strstr(r.out, "run_command") != NULL, "%s", r.out);
		wst_run_free(&r);
	}
	ck_assert(!exists_at(ws, "src/HEAD"));
	ck_assert(!exists_at(ws, "s2/refs"));
	ck_assert(!exists_at(ws, "bare/config"));
	ck_assert(exists_at(ws, "bare/HEAD"));
	ck_assert(!exists_at(ws, "dang/t"));
	ck_assert(!exists_at(ws, "dang2/HEAD"));
	run_ws(&r, ws, NULL, "wsread", rd);
	expect_code(&r, "", 0);
	wst_run_free(&r);
	run_ws(&r, ws, NULL, "wswrite", mv);
	expect_code(&r, "", 0);
	wst_run_free(&r);
	ck_assert(exists_at(ws, "t/in/b/HEAD"));
	free(ws);
}
END_TEST

/*
 * Issue 18, 1: a repository's own directory (.git, .hg) at any depth, in
 * the workspace and in a mount, and .envrc at any depth: no create,
 * write, move (into or out of) or delete; the ".git" entry itself,
 * directory or "gitdir:" file, neither.  The hint sends git to
 * run_command.  Reading stays allowed.
 */
START_TEST(persistence_any_repository)
{
	static const char *const files[] = {
		".git/commondir", ".git/config.worktree", ".git/worktrees/x/gitdir",
		".git/worktrees/x/commondir", ".git/objects/info/alternates",
		"vendor/lib/.git/config", "vendor/lib/.git/hooks/pre-commit",
		"vendor/lib/.git/commondir", "vendor/.git", "a/b/c/.git",
		"sub/.hg/hgrc", "a/.envrc", "a/b/.envrc", "/.m/.git/config",
		"/.m/deep/.git/commondir", "/.m/.envrc",
	};
	char *ws = wst_path(base, "ws"), *m = NULL;
	struct wst_run r;

	wst_mkdir(base, "ws/.git/worktrees/x");
	wst_write(ws, ".git/HEAD", "ref: refs/heads/main\n");
	wst_mkdir(base, "ws/vendor/lib/.git/hooks");
	wst_write(ws, "vendor/lib/.git/config", "[core]\n");
	wst_mkdir(base, "ws/sub/.hg");
	wst_write(ws, "wt/.git", "gitdir: ../.git/worktrees/x\n");
	wst_write(ws, "notes.txt", "n\n");
	wst_mkdir(base, "m/deep/.git");
	ck_assert(asprintf(&m, "/.m=%s/m", base) > 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *w[] = {"--content", "x", files[i], NULL};

		run_ws(&r, ws, m, "wswrite", w);
		expect_code(&r, "POLICY_DENIED", 3);
		if (strstr(files[i], ".git") != NULL)
			ck_assert_msg(strstr(r.out, "run_command") != NULL, "%s", r.out);
		wst_run_free(&r);
	}
	{
		const char *const refused[][5] = {
			{"--content", "gitdir: /tmp\n", "wt/.git", NULL},
			{"--delete", "wt/.git", NULL},
			{"--delete", "-r", "vendor/lib/.git", NULL},
			{"--delete", "vendor/lib/.git/config", NULL},
			{"--move", "cfg", "vendor/lib/.git/config", NULL},
			{"--move", "vendor/lib/.git/x", "notes.txt", NULL},
			{"--move", "x/.git", "sub", NULL},
			{"--move", "sub/.hg2", "sub/.hg", NULL},
			{"--mkdir", "vendor/.git", NULL},
			{"--mkdir", "new/.hg", NULL},
		};

		for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
			run_ws(&r, ws, m, "wswrite", refused[i]);
			expect_code(&r, "POLICY_DENIED", 3);
			wst_run_free(&r);
		}
	}
	ck_assert(exists_at(ws, "vendor/lib/.git/config"));
	ck_assert(exists_at(ws, "notes.txt"));
	ck_assert(!exists_at(ws, ".git/commondir"));
	ck_assert(!exists_at(ws, "a/b/.envrc"));
	{
		size_t n;
		char *t = slurp_at(ws, "wt/.git", &n);

		ck_assert_str_eq(t, "gitdir: ../.git/worktrees/x\n");
		free(t);
	}
	/* Reading stays allowed; a directory holding a repository moves as
	 * a whole. */
	{
		const char *rd[] = {"vendor/lib/.git/config", NULL};
		const char *mv[] = {"--move", "third_party", "vendor", NULL};

		run_ws(&r, ws, m, "wsread", rd);
		expect_code(&r, "", 0);
		wst_run_free(&r);
		run_ws(&r, ws, m, "wswrite", mv);
		expect_code(&r, "", 0);
		wst_run_free(&r);
		ck_assert(exists_at(ws, "third_party/lib/.git/config"));
	}
	/*
	 * Under a policy, which asks about every entry of a recursive move
	 * or delete, the same: the repository inside goes or moves whole;
	 * inside its own directory nothing moves or goes.
	 */
	{
		char *pol = wst_path(base, "allow.json");
		const char *mv[] = {"--policy", pol, "--move", "vendor", "third_party", NULL};
		const char *mvin[] = {"--policy", pol, "--move", "vendor/lib/.git/c2",
				      "vendor/lib/.git/config", NULL};
		const char *rmin[] = {"--policy", pol, "--delete", "-r",
				      "vendor/lib/.git/hooks", NULL};
		const char *rmgit[] = {"--policy", pol, "--delete", "-r",
				       "vendor/lib/.git", NULL};
		const char *into[] = {"--policy", pol, "--move", "vendor/lib/.git/x",
				      "sub", NULL};
		const char *rmh[] = {"--policy", pol, "--delete", "-r", "vendor", NULL};
		/* Without the history, which could not bring the repository
		 * back (review18 11): it goes whole. */
		const char *rm[] = {"--policy", pol, "--no-history", "--delete", "-r",
				    "vendor", NULL};

		wst_write(base, "allow.json",
			  "{\"version\": 1, \"name\": \"t\", \"file_rules\": ["
			  "{\"name\": \"all\", \"paths\": [\"**\"],"
			  " \"operations\": [\"*\"], \"decision\": \"allow\"}]}");
		run_ws(&r, ws, m, "wswrite", mv);
		expect_code(&r, "", 0);
		wst_run_free(&r);
		ck_assert(exists_at(ws, "vendor/lib/.git/config"));
		for (int k = 0; k < 4; k++) {
			run_ws(&r, ws, m, "wswrite", k == 0 ? mvin : k == 1 ? rmin :
						  k == 2 ? rmgit : into);
			expect_code(&r, "POLICY_DENIED", 3);
			wst_run_free(&r);
		}
		ck_assert(exists_at(ws, "vendor/lib/.git/hooks"));
		ck_assert(exists_at(ws, "sub/.hg"));
		run_ws(&r, ws, m, "wswrite", rmh);
		expect_code(&r, "POLICY_DENIED", 3);
		wst_run_free(&r);
		ck_assert(exists_at(ws, "vendor/lib/.git/config"));
		run_ws(&r, ws, m, "wswrite", rm);
		expect_code(&r, "", 0);
		wst_run_free(&r);
		ck_assert(!exists_at(ws, "vendor"));
		free(pol);
	}
	free(m);
	free(ws);
}
END_TEST

/*
 * A guard that is a symlink guards its target; a ".git" file ("gitdir:")
 * guards the hooks and config of the git dir it names, and of its common
 * directory.
 */
START_TEST(persistence_links_and_gitdir)
{
	char *ws = wst_path(base, "ws");

	wst_write(base, "ws/notes.txt", "n\n");
	wst_symlink("notes.txt", ws, ".envrc");
	wst_mkdir(base, "ws/myhooks");
	wst_mkdir(base, "ws/wt");
	wst_write(ws, "wt/.git", "gitdir: ../gd/worktrees/wt\n");
	wst_write(ws, "gd/worktrees/wt/commondir", "../..\n");
	wst_mkdir(ws, "gd/hooks");
	wst_write(ws, "gd/config", "[core]\n");
	{
		const char *w1[] = {"--content", "x", ".envrc", NULL};
		const char *w2[] = {"--content", "x", "notes.txt", NULL};
		const char *g1[] = {"--content", "x", "gd/hooks/pre-commit", NULL};
		const char *g2[] = {"--content", "x", "gd/config", NULL};
		const char *g3[] = {"--content", "x", "gd/objects/ab", NULL};
		const char *g4[] = {"--content", "x", "gd/worktrees/wt/index", NULL};
		const char *wt = NULL;
		char *wsw = wst_path(ws, "wt");

		wp(ws, true, w1);
		wp(ws, true, w2);
		wp(ws, false, g3);
		/* The worktree as the workspace: its gitdir is outside, the
		 * common dir's hooks and config are guarded through a mount. */
		(void)wt;
		{
			char *m = NULL;
			struct wst_run r;

			ck_assert(asprintf(&m, "/.gd=%s/gd", ws) > 0);
			{
				const char *a1[] = {"--content", "x", "/.gd/hooks/pre-commit", NULL};
				const char *a2[] = {"--content", "x", "/.gd/config", NULL};
				const char *a3[] = {"--content", "x", "/.gd/worktrees/wt/index", NULL};

				run_ws(&r, wsw, m, "wswrite", a1);
				expect_code(&r, "POLICY_DENIED", 3);
				wst_run_free(&r);
				run_ws(&r, wsw, m, "wswrite", a2);
				expect_code(&r, "POLICY_DENIED", 3);
				wst_run_free(&r);
				run_ws(&r, wsw, m, "wswrite", a3);
				expect_code(&r, "", 0);
				wst_run_free(&r);
			}
			free(m);
		}
		/* From the top, gd is no .git: only the gitdir file guards it,
		 * and that is in wt; so these are free here. */
		wp(ws, false, g1);
		wp(ws, false, g2);
		wp(ws, false, g4);
		free(wsw);
	}
	{
		size_t n;
		char *t = slurp_at(ws, "notes.txt", &n);

		ck_assert_str_eq(t, "n\n");
		free(t);
	}
	free(ws);
}
END_TEST

/* "guarded" in the configuration replaces the default list, or turns it
 * off; a bad value is refused. */
START_TEST(persistence_config)
{
	char *ws = wst_path(base, "ws");
	const char *rc[] = {"--content", "x", ".bashrc", NULL};
	const char *b[] = {"--content", "x", "build.sh", NULL};
	const char *sec[] = {"--content", "x", "secrets/deep/a.key", NULL};
	const char *sec2[] = {"--content", "x", "other/secrets/a.key", NULL};
	const char *hook[] = {"--content", "x", ".git/hooks/post-merge", NULL};
	struct wst_run r;

	wst_mkdir(base, "ws/.git");
	use_config("{\"guarded\": [\"build.sh\", \"secrets/\", \"*/secrets/**\"]}");
	wp(ws, false, rc);
	wp(ws, true, b);
	wp(ws, true, sec);
	wp(ws, true, sec2);
	/* A directory moved to a name that does not exist yet would bring
	 * a guarded path with it. */
	{
		const char *mkk[] = {"--content", "k", "evil/keys/k", NULL};
		const char *mv[] = {"--move", "z", "evil", NULL};

		use_config("{\"guarded\": [\"*/keys/**\"]}");
		wp(ws, true, mkk);
		use_config("{\"guarded\": false}");
		wp(ws, false, mkk);
		use_config("{\"guarded\": [\"*/keys/**\"]}");
		wp(ws, true, mv);
		ck_assert(!exists_at(ws, "z"));
	}
	use_config("{\"guarded\": false}");
	wp(ws, false, hook);
	use_config("{\"guarded\": true}");
	wp(ws, true, rc);
	use_config("{\"guarded\": [\"/etc/x\"]}");
	run_ws(&r, ws, NULL, "wswrite", b);
	expect_code(&r, "INVALID_ARGUMENT", 2);
	wst_run_free(&r);
	use_config("{\"guarded\": [\"a/../b\"]}");
	run_ws(&r, ws, NULL, "wswrite", b);
	expect_code(&r, "INVALID_ARGUMENT", 2);
	wst_run_free(&r);
	use_config("{\"guarded\": 3}");
	run_ws(&r, ws, NULL, "wswrite", b);
	expect_code(&r, "INVALID_ARGUMENT", 2);
	wst_run_free(&r);
	use_config("{\"guarded\": [\"[a\"]}");
	run_ws(&r, ws, NULL, "wswrite", b);
	expect_code(&r, "INVALID_ARGUMENT", 2);
	wst_run_free(&r);
	free(ws);
}
END_TEST

/* The error code of tool run on ws with the policy file pol and args. */
static char *
code_of(const char *ws, const char *pol, const char *tool,
	const char *const *args)
{
	const char *argv[16];
	size_t n = 0;
	struct wst_run r;
	char *c;

	argv[n++] = "--policy";
	argv[n++] = pol;
	for (size_t i = 0; args[i] != NULL && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	run_ws(&r, ws, NULL, tool, argv);
	c = strdup(wst_code(&r));
	if (strcmp(c, "POLICY_DENIED") == 0)
		ck_assert_int_eq(r.status, 3);
	/* Nothing the policy hides is shown: no step, no real path. */
	if (strcmp(c, "POLICY_DENIED") == 0)
		ck_assert_msg(strstr(r.out, "\"step\":") == NULL &&
				      strstr(r.out, base) == NULL,
			      "%s", r.out);
	wst_run_free(&r);
	return c;
}

/*
 * Issue 12, 5: a path the policy denies is POLICY_DENIED whether or not
 * it exists, for every tool; wspath asks the policy about every step it
 * shows.
 */
START_TEST(denied_whether_or_not_it_exists)
{
	char *ws = wst_path(base, "ws"), *pol = wst_path(base, "pol.json");
	static const char *const names[] = {".ssh/id_rsa", ".ssh/nothere",
					    "keys/id_rsa", "keys/nothere",
					    ".ssh/deeper/x"};

	wst_write(ws, ".ssh/id_rsa", "KEY\n");
	wst_write(ws, "src/a.c", "int a;\n");
	wst_symlink(".ssh", ws, "keys");
	wst_symlink("../src/a.c", ws, ".ssh/to-src");
	wst_write(base, "pol.json",
		  "{\"version\": 1, \"name\": \"t\", \"file_rules\": ["
		  "{\"name\": \"deny-ssh\", \"paths\": [\"${WORKSPACE}/.ssh\", "
		  "\"${WORKSPACE}/.ssh/**\"], \"operations\": [\"*\"], \"decision\": \"deny\"},"
		  "{\"name\": \"ok\", \"paths\": [\"${WORKSPACE}\", \"${WORKSPACE}/**\"],"
		  " \"operations\": [\"*\"], \"decision\": \"allow\"}]}");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *rd[] = {names[i], NULL};
		const char *ls[] = {names[i], NULL};
		const char *wp1[] = {names[i], NULL};
		const char *wp2[] = {"--explain", names[i], NULL};
		const char *wp3[] = {"--explain", "--paths", "real", names[i], NULL};
		const char *del[] = {"--delete", names[i], NULL};
		const char *mv[] = {"--move", "src/b", names[i], NULL};
		const char *ed[] = {"--edit", "--old", "a", "--new", "b", names[i], NULL};
		const char *const *all[] = {rd, ls, wp1, wp2, wp3, del, mv, ed};
		const char *tools[] = {"wsread", "wsls", "wspath", "wspath", "wspath",
				       "wswrite", "wswrite", "wswrite"};

		for (size_t t = 0; t < 8; t++) {
			char *c = code_of(ws, pol, tools[t], all[t]);

			ck_assert_msg(strcmp(c, "POLICY_DENIED") == 0,
				      "%s %s: %s", tools[t], names[i], c);
			free(c);
		}
	}
	/* Allowed and missing: NOT_FOUND, as before. */
	{
		const char *rd[] = {"src/nothere", NULL};
		const char *wp[] = {"--existing", "src/nothere", NULL};
		char *c = code_of(ws, pol, "wsread", rd);

		ck_assert_str_eq(c, "NOT_FOUND");
		free(c);
		c = code_of(ws, pol, "wspath", wp);
		ck_assert_str_eq(c, "NOT_FOUND");
		free(c);
	}
	/* A path that is allowed but reached through a link in a denied
	 * directory: --explain would show that directory's entries. */
	{
		const char *wp[] = {"--explain", ".ssh/to-src", NULL};
		const char *ok[] = {"--explain", "src/a.c", NULL};
		char *c = code_of(ws, pol, "wspath", wp);

		ck_assert_str_eq(c, "POLICY_DENIED");
		free(c);
		c = code_of(ws, pol, "wspath", ok);
		ck_assert_str_eq(c, "");
		free(c);
	}
	/* Without a policy nothing changes. */
	{
		struct wst_run r;
		const char *wp[] = {"--existing", ".ssh/nothere", NULL};

		run_ws(&r, ws, NULL, "wspath", wp);
		expect_code(&r, "NOT_FOUND", 5);
		wst_run_free(&r);
	}
	free(ws);
	free(pol);
}
END_TEST

/* ---- Smaller findings ---- */

/* --depth past the maximum names the maximum, as a flag and in --args. */
START_TEST(depth_names_maximum)
{
	char *ws = wst_path(base, "ws");
	struct wst_run r;
	const char *a1[] = {"--depth", "99999999999", NULL};
	const char *a2[] = {"--args", "{\"depth\": 99999999999}", NULL};
	const char *a3[] = {"--depth", "0", NULL};
	const char *const *all[] = {a1, a2, a3};

	wst_mkdir(base, "ws");
	for (size_t i = 0; i < 3; i++) {
		run_ws(&r, ws, NULL, "wsls", all[i]);
		expect_code(&r, "INVALID_ARGUMENT", 2);
		ck_assert_msg(strstr(r.out, "2147483647") != NULL, "%s", r.out);
		wst_run_free(&r);
	}
	free(ws);
}
END_TEST

/* "--args -" refuses a NUL byte and whatever follows it. */
START_TEST(args_stdin_nul)
{
	char *ws = wst_path(base, "ws"), *cmd = NULL;
	char out[4096];
	size_t n;
	FILE *p;
	int st;

	wst_write(base, "ws/a.txt", "hi\n");
	wst_write(base, "ws/b.txt", "SECOND\n");
	ck_assert(asprintf(&cmd, "printf '{\"path\":\"a.txt\"}\\000{\"path\":\"b.txt\"}' | "
			   "%s --workspace '%s' --args - 2>/dev/null",
			   wst_bin("wsread"), ws) > 0);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	st = pclose(p);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s", out);
	ck_assert_msg(strstr(out, "INVALID_ARGUMENT") != NULL && strstr(out, "NUL") != NULL,
		      "%s", out);
	ck_assert(strstr(out, "\"content\"") == NULL);
	free(cmd);
	/* A NUL alone at the end is refused too; a newline is fine. */
	ck_assert(asprintf(&cmd, "printf '{\"path\":\"a.txt\"}\\000' | %s --workspace '%s' "
			   "--args - >/dev/null 2>&1", wst_bin("wsread"), ws) > 0);
	st = system(cmd);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	free(cmd);
	ck_assert(asprintf(&cmd, "printf '{\"path\":\"a.txt\"}\\n' | %s --workspace '%s' "
			   "--args - >/dev/null 2>&1", wst_bin("wsread"), ws) > 0);
	st = system(cmd);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	free(cmd);
	free(ws);
}
END_TEST

/*
 * Run tool with argv and a pseudo-terminal as its stdout (stderr too);
 * what the terminal showed is returned (malloc'd).
 */
static char *
run_pty(const char *tool, const char *const *argv)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	char *buf = calloc(1, 65536);
	size_t n = 0;
	pid_t pid;
	int st;

	ck_assert_int_ge(m, 0);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(grantpt(m), 0);
	ck_assert_int_eq(unlockpt(m), 0);
	pid = fork();
	if (pid == 0) {
		const char *av[32];
		size_t k = 0;
		int s = open(ptsname(m), O_RDWR | O_NOCTTY), null = open("/dev/null", O_RDONLY);

		if (s < 0 || null < 0)
			_exit(126);
		dup2(null, 0);
		dup2(s, 1);
		dup2(s, 2);
		unsetenv("WS_FORMAT");
		unsetenv("WS_POLICY");
		unsetenv("WS_MOUNTS");
		unsetenv("WS_ROOT");
		av[k++] = tool;
		for (size_t i = 0; argv[i] != NULL && k < 31; i++)
			av[k++] = argv[i];
		av[k] = NULL;
		wst_execv(tool, av);
		_exit(127);
	}
	for (;;) {
		struct pollfd pf = {m, POLLIN, 0};
		int pr = poll(&pf, 1, 2000);

		if (pr <= 0)
			break;
		{
			ssize_t k = read(m, buf + n, 65535 - n);

			if (k <= 0)
				break;
			n += (size_t)k;
		}
	}
	waitpid(pid, &st, 0);
	close(m);
	return buf;
}

/* wswrite's and wspath's lines show control bytes in names as "?" on a
 * terminal, as wsls does. */
START_TEST(plain_lines_masked_on_terminal)
{
	char *ws = wst_path(base, "ws");
	const char *evil = "e\x1b]0;pwned\x07z\rX.txt";
	const char *w1[] = {"--workspace", ws, "--content", "x", evil, NULL};
	const char *w2[] = {"--workspace", ws, "--move", "moved\x1b[2J.txt", evil, NULL};
	const char *p1[] = {"--workspace", ws, "--paths", "virtual", "moved\x1b[2J.txt", NULL};
	const char *p2[] = {"--workspace", ws, "--explain", "moved\x1b[2J.txt", NULL};
	const char *l1[] = {"--workspace", ws, NULL};
	const char *tools[] = {"wswrite", "wswrite", "wspath", "wspath", "wsls"};
	const char *const *all[] = {w1, w2, p1, p2, l1};
	const char *want[] = {"/e?]0;pwned?z?X.txt", "/moved?[2J.txt", "/moved?[2J.txt",
			      "moved?[2J.txt", "moved?[2J.txt"};

	wst_mkdir(base, "ws");
	for (size_t i = 0; i < 5; i++) {
		char *o = run_pty(tools[i], all[i]);

		ck_assert_msg(strchr(o, '\x1b') == NULL && strchr(o, '\x07') == NULL,
			      "%s: %s", tools[i], o);
		ck_assert_msg(strstr(o, want[i]) != NULL, "%s: %s", tools[i], o);
		free(o);
	}
	free(ws);
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
	tcase_add_test(tc, policy_spelling_link);
	suite_add_tcase(s, tc);
	tc = tcase_create("markers");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, marker_rename_widens_project);
	tcase_add_test(tc, markers_each);
	tcase_add_test(tc, dotgit_moved_to_home);
	suite_add_tcase(s, tc);
	tc = tcase_create("persistence");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, persistence_defaults);
	tcase_add_test(tc, persistence_any_repository);
	tcase_add_test(tc, persistence_bare_like_repository);
	tcase_add_test(tc, persistence_links_and_gitdir);
	tcase_add_test(tc, persistence_config);
	tcase_add_test(tc, persistence_home_places);
	tcase_add_test(tc, persistence_home_linked_parents);
	tcase_add_test(tc, persistence_home_linked_into_workspace);
	tcase_add_test(tc, persistence_home_places_review12);
	tcase_add_test(tc, persistence_rc_sourced);
	tcase_add_loop_test(tc, config_named_files_guarded, 0,
			    sizeof(cfg_named) / sizeof(cfg_named[0]));
	tcase_add_test(tc, persistence_home_places_review14);
	tcase_add_test(tc, persistence_home_places_review16);
	tcase_add_test(tc, persistence_home_places_review18);
	tcase_add_test(tc, persistence_home_places_review28);
	tcase_add_test(tc, persistence_path_dirs);
	tcase_add_test(tc, persistence_xdg_bases);
	tcase_add_test(tc, persistence_home_spoofed_or_aliased);
	tcase_add_test(tc, persistence_base_dangling_link);
	tcase_add_test(tc, persistence_base_dotdot);
	tcase_add_test(tc, persistence_path_long_and_relative);
	tcase_add_test(tc, persistence_home_way_link);
	tcase_add_test(tc, persistence_path_dir_above);
	suite_add_tcase(s, tc);
	tc = tcase_create("policy");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, denied_whether_or_not_it_exists);
	suite_add_tcase(s, tc);
	tc = tcase_create("smaller");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, depth_names_maximum);
	tcase_add_test(tc, args_stdin_nul);
	tcase_add_test(tc, plain_lines_masked_on_terminal);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(guards_suite)
