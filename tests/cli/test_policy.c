/*
 * test_policy.c (cli) - policies through the built tools: the seed's
 * examples, every precedence level of project detection, the configuration
 * file, --verbose logging, wspath --explain --op, and per tool an allowed,
 * a denied and an approve operation.
 */
#include <pwd.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wstest.h"

static char *tmp;  /* holds everything below */
static char *home; /* $HOME for the tools */

static void
setup(void)
{
	tmp = wst_tmpdir();
	home = wst_path(tmp, "home");
	wst_mkdir(tmp, "home");
}

static void
teardown(void)
{
	wst_rmrf(tmp);
	free(tmp);
	free(home);
}

static char *
P(const char *rel)
{
	return wst_path(tmp, rel);
}

/* Run tool with extra environment entries and arguments (both NULL-ended). */
#define RUN(r, stdin_data, env, tool, ...)                                     \
	do {                                                                   \
		const char *const argv_[] = {__VA_ARGS__, NULL};               \
		wst_runv((r), (stdin_data), (env), (tool), argv_);             \
	} while (0)

/* The environment most runs get: HOME inside the test directory. */
static const char *const *
env_home(void)
{
	static char h[4200];
	static const char *e[2];

	snprintf(h, sizeof(h), "HOME=%s", home);
	e[0] = h;
	e[1] = NULL;
	return e;
}

static cJSON *
out_obj(const struct wst_run *r, const char *path)
{
	cJSON *o = cJSON_GetObjectItem(r->json, "output");
	char *dup = strdup(path), *save = NULL;

	for (char *k = strtok_r(dup, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		o = cJSON_GetObjectItem(o, k);
	free(dup);
	return o;
}

static const char *
out_str(const struct wst_run *r, const char *path)
{
	cJSON *o = out_obj(r, path);

	return cJSON_IsString(o) ? o->valuestring : NULL;
}

static void
check_status(const struct wst_run *r, int status, const char *code)
{
	ck_assert_msg(r->status == status, "status %d, want %d; stdout %s stderr %s",
		      r->status, status, r->out, r->err);
	if (r->json != NULL)
		ck_assert_str_eq(wst_code(r), code);
}

/* The seed's monorepo under tmp: .git above, go.mod at services/api. */
static void
monorepo(void)
{
	wst_mkdir(tmp, "monorepo/.git");
	wst_write(tmp, "monorepo/services/api/go.mod", "module api\n");
	wst_write(tmp, "monorepo/services/api/cmd/main.go", "package main\n");
	wst_write(tmp, "monorepo/services/web/index.js", "x\n");
}

/*
 * Review23 04: a deny rule written as the tools show paths
 * ("/secret.txt") matched nothing, since globs match real paths, and
 * loaded silently: the file it was to protect was read.  Such a glob
 * gets a twin under ${WORKSPACE}, so the file is denied.  A host path's
 * rule ("/nix/...") loads whatever the workspace holds: refusing it once
 * the workspace had a "nix" let an agent break the policy with one
 * mkdir (review26 02).
 */
START_TEST(virtual_looking_deny_refused)
{
	struct wst_run r;
	char *ws = wst_path(tmp, "vw"), *pol = wst_path(tmp, "vw.json");

	wst_write(tmp, "vw/secret.txt", "TOKEN\n");
	wst_write(tmp, "vw/nix/store/x", "x\n");
	wst_write(tmp, "vw/notes.txt", "notes\n");
	wst_write(tmp, "vw.json",
		  "{\"version\":1,\"file_rules\":[{\"name\":\"deny-secret\","
		  "\"paths\":[\"/secret.txt\",\"/nix/**\"],\"operations\":[\"*\"],"
		  "\"decision\":\"deny\"},{\"name\":\"rest\",\"paths\":[\"**\"],"
		  "\"operations\":[\"*\"],\"decision\":\"allow\"}]}\n");
	RUN(&r, NULL, NULL, "wsread", "--workspace", ws, "--policy", pol, "--json",
	    "/secret.txt");
	check_status(&r, 3, "POLICY_DENIED");
	ck_assert(strstr(r.out, "TOKEN") == NULL);
	wst_run_free(&r);
	RUN(&r, NULL, NULL, "wsread", "--workspace", ws, "--policy", pol, "--json",
	    "/notes.txt");
	check_status(&r, 0, "");
	wst_run_free(&r);
	free(ws);
	free(pol);
}
END_TEST

/*
 * Review28 06: such a glob with a wildcard in its first component
 * ("/" "*.pem", "/.env*") got no twin and protected nothing, silently: the
 * workspace's key.pem and .env.local were read.  It is twinned when no
 * name at the host's "/" matches that component and one in the
 * workspace does; one that matches a host name ("/bi*" and /bin) is the
 * host's rule, and the workspace's bigdata/ stays readable.
 */
START_TEST(virtual_looking_glob_deny)
{
	struct wst_run r;
	char *ws = wst_path(tmp, "vg"), *pol = wst_path(tmp, "vg.json");
	static const char *const denied[] = {"/key.pem", "/.env.local", "/id_ed25519"};

	wst_write(tmp, "vg/key.pem", "PRIVATE\n");
	wst_write(tmp, "vg/.env.local", "PRIVATE\n");
	wst_write(tmp, "vg/id_ed25519", "PRIVATE\n");
	wst_write(tmp, "vg/bigdata/x", "data\n");
	wst_write(tmp, "vg/notes.txt", "notes\n");
	wst_write(tmp, "vg.json",
		  "{\"version\":1,\"file_rules\":[{\"name\":\"deny-secret\","
		  "\"paths\":[\"/*.pem\",\"/.env*\",\"/id_[a-z]*\",\"/bi*/**\"],"
		  "\"operations\":[\"*\"],\"decision\":\"deny\"},{\"name\":\"rest\","
		  "\"paths\":[\"**\"],\"operations\":[\"*\"],\"decision\":\"allow\"}]}\n");
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		RUN(&r, NULL, NULL, "wsread", "--workspace", ws, "--policy", pol, "--json",
		    denied[i]);
		check_status(&r, 3, "POLICY_DENIED");
		ck_assert_msg(strstr(r.out, "PRIVATE") == NULL, "%s: %s", denied[i], r.out);
		wst_run_free(&r);
	}
	RUN(&r, NULL, NULL, "wsread", "--workspace", ws, "--policy", pol, "--json",
	    "/bigdata/x");
	check_status(&r, 0, "");
	wst_run_free(&r);
	RUN(&r, NULL, NULL, "wsread", "--workspace", ws, "--policy", pol, "--json",
	    "/notes.txt");
	check_status(&r, 0, "");
	wst_run_free(&r);
	free(ws);
	free(pol);
}
END_TEST

/* ---- wspath --explain --op: the seed's examples ---- */

/*
 * Review23 07: under a scratch HOME (as harnesses start servers), the
 * shipped policies' ${HOME} secret rules named the scratch home only;
 * with the workspace holding the user's own (the password database's),
 * its ~/.ssh/id_rsa was "allow-project-read".  Decided only: nothing is
 * read.
 */
START_TEST(user_home_rules_under_scratch_home)
{
	struct wst_run r;
	struct passwd *pw = getpwuid(getuid());
	char key[4200];

	struct stat st;

	/* A user whose home is "/" or does not exist (nobody's /nonexistent,
	 * where CI runs the suites as nobody) has no workspace to name. */
	if (pw == NULL || pw->pw_dir == NULL || pw->pw_dir[0] != '/' ||
	    strcmp(pw->pw_dir, "/") == 0 || stat(pw->pw_dir, &st) != 0 ||
	    !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "user_home_rules_under_scratch_home: not checked "
			"(uid %u has no home directory)\n", (unsigned)getuid());
		return;
	}
	snprintf(key, sizeof(key), "%s/.ssh/id_rsa", pw->pw_dir);
	RUN(&r, NULL, env_home(), "wspath", "--workspace", pw->pw_dir, "--policy",
	    "dev-safe", "--op", "read", "--json", key);
	ck_assert_msg(strstr(r.out, "deny-ssh-keys") != NULL &&
		      strstr(r.out, "allow-project-read") == NULL, "%s", r.out);
	wst_run_free(&r);
}
END_TEST

START_TEST(explain_seed_monorepo)
{
	struct wst_run r;
	char *ws, *api, *mono, *mono_glob;

	monorepo();
	mono_glob = P("monorepo/**");
	ws = P("monorepo/services/api/cmd");
	api = P("monorepo/services/api");
	mono = P("monorepo");
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--policy", "dev-safe",
	    "--op", "delete", "--json", "main.go");
	check_status(&r, 0, "");
	ck_assert_str_eq(out_str(&r, "project_root"), api);
	ck_assert_str_eq(out_str(&r, "git_root"), mono);
	ck_assert_str_eq(out_str(&r, "project_marker"), "go.mod");
	ck_assert_str_eq(out_str(&r, "variables.PROJECT_ROOT"), api);
	ck_assert_str_eq(out_str(&r, "variables.GIT_ROOT"), mono);
	ck_assert_str_eq(out_str(&r, "policy.name"), "dev-safe");
	ck_assert_str_eq(out_str(&r, "policy.operation"), "delete");
	ck_assert_str_eq(out_str(&r, "policy.rule"), "approve-project-delete");
	ck_assert_str_eq(out_str(&r, "policy.decision"), "approve");
	ck_assert_str_eq(out_str(&r, "policy.pattern"), "${PROJECT_ROOT}/**");
	ck_assert_ptr_nonnull(strstr(out_str(&r, "policy.reason"), "first"));
	ck_assert(cJSON_IsFalse(out_obj(&r, "policy.approved")));
	wst_run_free(&r);
	/* A sibling project: the repository-wide read rule applies. */
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--policy", "dev-safe",
	    "--allow-outside", "--op", "read", "--json", "../../web/index.js");
	check_status(&r, 0, "");
	ck_assert_str_eq(out_str(&r, "policy.decision"), "allow");
	ck_assert_str_eq(out_str(&r, "policy.rule"), "allow-git-root-read");
	ck_assert_str_eq(out_str(&r, "policy.glob"), mono_glob);
	wst_run_free(&r);
	/* Plain form. */
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--policy", "dev-safe",
	    "--explain", "--op", "read", "main.go");
	check_status(&r, 0, "");
	ck_assert_ptr_nonnull(strstr(r.out, "project "));
	ck_assert_ptr_nonnull(strstr(r.out, "(go.mod)"));
	ck_assert_ptr_nonnull(strstr(r.out, "variable   PROJECT_ROOT="));
	ck_assert_ptr_nonnull(strstr(r.out, "decision   read allow-project-read: allow"));
	ck_assert_ptr_nonnull(strstr(r.out, "why "));
	wst_run_free(&r);
	free(ws);
	free(api);
	free(mono);
	free(mono_glob);
}
END_TEST

START_TEST(explain_seed_non_project)
{
	struct wst_run r;
	char *ws = P("scratch");

	wst_mkdir(tmp, "scratch");
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--explain", "--json", "x");
	check_status(&r, 0, "");
	ck_assert_str_eq(out_str(&r, "project_root"), ws);
	ck_assert(cJSON_IsNull(out_obj(&r, "git_root")));
	/* No policy: no policy object, no variables. */
	ck_assert_ptr_null(out_obj(&r, "policy"));
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--op", "delete", "--json", "x");
	check_status(&r, 0, "");
	ck_assert(cJSON_IsNull(out_obj(&r, "policy.name")));
	ck_assert_str_eq(out_str(&r, "policy.decision"), "allow");
	wst_run_free(&r);
	free(ws);
}
END_TEST

/*
 * ftu13 03: wspath --op on a path whose stat the policy denies (dev-safe's
 * .env; a file no rule of one's own policy names) refused with
 * POLICY_DENIED about stat, exit 3, where wspath(1) says nothing is
 * refused: the decision is only shown.  It shows the decision on the
 * operation asked, exit 0, and still nothing of the path: neither
 * whether it exists nor its steps, the same for a missing one.
 */
START_TEST(explain_op_on_a_hidden_path)
{
	struct wst_run r;
	char *ws = P("proj"), *pol = P("mine.json");

	wst_write(tmp, "proj/.env", "S=1\n");
	wst_write(tmp, "proj/README.md", "hi\n");
	wst_write(tmp, "mine.json", "{\"version\": 1, \"name\": \"mine\", \"file_rules\": "
		  "[{\"name\": \"no-env\", \"paths\": [\"**/.env\"], "
		  "\"operations\": [\"*\"], \"decision\": \"deny\"}]}");
	for (int k = 0; k < 2; k++) {
		RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--policy",
		    "dev-safe", "--op", "delete", "--json", k ? "gone/.env" : ".env");
		check_status(&r, 0, "");
		ck_assert_str_eq(out_str(&r, "policy.operation"), "delete");
		ck_assert_str_eq(out_str(&r, "policy.rule"), "deny-env");
		ck_assert_str_eq(out_str(&r, "policy.decision"), "deny");
		ck_assert(cJSON_IsTrue(out_obj(&r, "hidden")));
		ck_assert_ptr_null(out_obj(&r, "exists"));
		ck_assert_ptr_null(out_obj(&r, "real_path"));
		ck_assert_ptr_null(out_obj(&r, "steps"));
		wst_run_free(&r);
	}
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--policy", pol,
	    "--op", "read", "README.md");
	check_status(&r, 0, "");
	ck_assert_msg(strstr(r.out, "decision   read (no rule): deny") != NULL &&
		      strstr(r.out, "no file rule matches read") != NULL &&
		      strstr(r.out, "its existence, type and steps are not shown") != NULL &&
		      strstr(r.out, "/proj/README.md") == NULL, "%s", r.out);
	wst_run_free(&r);
	/* Without --op the refusal stays: nothing was asked but the path. */
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--policy", "dev-safe",
	    "--json", ".env");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	free(ws);
	free(pol);
}
END_TEST

START_TEST(explain_worktree_git_file)
{
	struct wst_run r;
	char *ws = P("wt/src"), *wt = P("wt");

	wst_write(tmp, "wt/.git", "gitdir: /elsewhere\n");
	wst_mkdir(tmp, "wt/src");
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--explain", "--json", "x");
	check_status(&r, 0, "");
	ck_assert_str_eq(out_str(&r, "git_root"), wt);
	ck_assert_str_eq(out_str(&r, "project_root"), wt);
	wst_run_free(&r);
	free(ws);
	free(wt);
}
END_TEST

START_TEST(explain_symlinked_workspace)
{
	struct wst_run r;
	char *link = P("link"), *api = P("monorepo/services/api");

	monorepo();
	wst_symlink("monorepo/services/api/cmd", tmp, "link");
	RUN(&r, NULL, env_home(), "wspath", "--workspace", link, "--explain", "--json", "x");
	check_status(&r, 0, "");
	ck_assert_str_eq(out_str(&r, "project_root"), api);
	wst_run_free(&r);
	free(link);
	free(api);
}
END_TEST

START_TEST(missing_workspace)
{
	struct wst_run r;
	char *ws = P("nope");

	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--policy", "dev-safe",
	    "--json", "x");
	check_status(&r, 2, "WORKSPACE_NOT_FOUND");
	wst_run_free(&r);
	free(ws);
}
END_TEST

/* ---- Precedence: --project-root > --no-detect-root > config > detection ---- */

static const char *
project_root_of(struct wst_run *r, const char *const *env, const char *ws,
		const char *a1, const char *a2, const char *a3, const char *a4)
{
	const char *argv[12];
	size_t n = 0;

	argv[n++] = "--workspace";
	argv[n++] = ws;
	argv[n++] = "--explain";
	argv[n++] = "--json";
	if (a1) argv[n++] = a1;
	if (a2) argv[n++] = a2;
	if (a3) argv[n++] = a3;
	if (a4) argv[n++] = a4;
	argv[n++] = "x";
	argv[n] = NULL;
	wst_runv(r, NULL, env, "wspath", argv);
	ck_assert_msg(r->status == 0, "%s %s", r->out, r->err);
	return out_str(r, "project_root");
}

START_TEST(precedence_levels)
{
	struct wst_run r;
	char *ws = P("monorepo/services/api/cmd"), *api = P("monorepo/services/api");
	char *other = P("other"), *cfg = P("cfg.json");
	const char *const *env = env_home();

	monorepo();
	wst_mkdir(tmp, "other");
	wst_write(tmp, "cfg.json", "{\"policies\": {\"detect_project_root\": false}}");
	/* 4. detection */
	ck_assert_str_eq(project_root_of(&r, env, ws, NULL, NULL, NULL, NULL), api);
	wst_run_free(&r);
	/* 3. config detect_project_root: false */
	ck_assert_str_eq(project_root_of(&r, env, ws, "--config", cfg, NULL, NULL), ws);
	ck_assert(cJSON_IsNull(out_obj(&r, "git_root")));
	wst_run_free(&r);
	/* 2. --no-detect-root */
	ck_assert_str_eq(project_root_of(&r, env, ws, "--no-detect-root", NULL, NULL, NULL), ws);
	wst_run_free(&r);
	/* 1. --project-root, which beats both others */
	ck_assert_str_eq(project_root_of(&r, env, ws, "--project-root", other,
					 "--no-detect-root", NULL), other);
	wst_run_free(&r);
	ck_assert_str_eq(project_root_of(&r, env, ws, "--project-root", other,
					 "--config", cfg), other);
	wst_run_free(&r);
	/* --no-detect-root beats a configuration that asks for detection. */
	wst_write(tmp, "cfg.json", "{\"policies\": {\"detect_project_root\": true}}");
	ck_assert_str_eq(project_root_of(&r, env, ws, "--no-detect-root", "--config",
					 cfg, NULL), ws);
	wst_run_free(&r);
	/* A missing --project-root directory is an error. */
	RUN(&r, NULL, env, "wspath", "--workspace", ws, "--explain", "--json",
	    "--project-root", "/nonexistent-wstest-dir", "x");
	check_status(&r, 2, "INVALID_ARGUMENT");
	wst_run_free(&r);
	free(ws);
	free(api);
	free(other);
	free(cfg);
}
END_TEST

START_TEST(project_root_changes_policy)
{
	/* The precedence reaches the policy: PROJECT_ROOT decides what is allowed. */
	struct wst_run r;
	char *ws = P("monorepo/services/api/cmd");

	monorepo();
	/* Detected: the project is services/api, so ../go.mod may be read. */
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", "read-only",
	    "--allow-outside", "--json", "../go.mod");
	check_status(&r, 0, "");
	wst_run_free(&r);
	/* Without detection the project is cmd/ and ../go.mod is denied. */
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", "read-only",
	    "--allow-outside", "--no-detect-root", "--json", "../go.mod");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	free(ws);
}
END_TEST

/*
 * ftu13 04: a policy of one deny rule denies everything else, since what no
 * rule matches is denied. The refusal for "no file rule matches" says how to
 * write the policy (a catch-all allow), not "ask the user", which stays the
 * hint of a rule's own deny.
 */
START_TEST(no_rule_matches_hint_names_catch_all)
{
	struct wst_run r;
	char *ws = P("ws"), *pol = P("mine.json");
	const char *hint;

	wst_write(tmp, "ws/README.md", "hi\n");
	wst_write(tmp, "ws/.env", "S=1\n");
	wst_write(tmp, "mine.json",
		  "{\"version\":1,\"name\":\"mine\",\"file_rules\":[{\"name\":"
		  "\"no-env\",\"paths\":[\"**/.env\"],\"operations\":[\"*\"],"
		  "\"decision\":\"deny\"}]}");
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol,
	    "--json", "README.md");
	check_status(&r, 3, "POLICY_DENIED");
	hint = cJSON_GetStringValue(cJSON_GetObjectItem(
		cJSON_GetObjectItem(r.json, "error"), "hint"));
	ck_assert_ptr_nonnull(hint);
	ck_assert_msg(strstr(hint, "catch-all") && strstr(hint, "\"**\"") &&
		      !strstr(hint, "ask the user"), "hint: %s", hint);
	wst_run_free(&r);
	/* Plain output carries the same hint. */
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol,
	    "README.md");
	ck_assert_int_eq(r.status, 3);
	ck_assert_msg(strstr(r.err, "hint: what no rule of a policy matches is denied"),
		      "%s", r.err);
	wst_run_free(&r);
	/* The rule's own deny keeps its hint. */
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol,
	    "--json", ".env");
	check_status(&r, 3, "POLICY_DENIED");
	hint = cJSON_GetStringValue(cJSON_GetObjectItem(
		cJSON_GetObjectItem(r.json, "error"), "hint"));
	ck_assert_ptr_nonnull(hint);
	ck_assert_msg(!strstr(hint, "catch-all"), "hint: %s", hint);
	wst_run_free(&r);
	free(pol);
	/*
	 * docs/policies.md shows the fixed policy (the block after the word
	 * "smallest"): it denies .env and allows README.md.
	 */
	{
		char *doc = wst_slurp(WST_SRC_ROOT "/docs/policies.md", NULL);
		char *b = strstr(doc, "smallest"), *e;

		ck_assert_ptr_nonnull(b);
		b = strstr(b, "```json\n");
		ck_assert_ptr_nonnull(b);
		b += strlen("```json\n");
		e = strstr(b, "```");
		ck_assert_ptr_nonnull(e);
		*e = '\0';
		wst_write(tmp, "doc.json", b);
		free(doc);
	}
	pol = P("doc.json");
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol,
	    "--json", "README.md");
	check_status(&r, 0, "");
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol,
	    "--json", ".env");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	free(pol);
	free(ws);
}
END_TEST

/* ---- Configuration file ---- */

START_TEST(config_policy_dir_and_default)
{
	struct wst_run r;
	char *ws = P("ws"), *cfg = P("conf/config.json"), *xdg, *env_cfg;
	const char *env[4];

	wst_write(tmp, "ws/a.txt", "a\n");
	/* A relative policies.dir is relative to the configuration file. */
	wst_write(tmp, "conf/config.json",
		  "// comments are fine here too\n"
		  "{\"policies\": {\"dir\": \"pol\", \"default\": \"mine\"}}");
	wst_write(tmp, "conf/pol/mine.json",
		  "{\"version\":1,\"name\":\"mine\",\"file_rules\":[{\"name\":\"no-read\","
		  "\"paths\":[\"**\"],\"operations\":[\"*\"],\"decision\":\"deny\"}]}");
	/* --config */
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--config", cfg,
	    "--json", "a.txt");
	check_status(&r, 3, "POLICY_DENIED");
	ck_assert_ptr_nonnull(strstr(r.out, "no-read"));
	wst_run_free(&r);
	/* WS_CONFIG */
	ck_assert_int_ne(asprintf(&env_cfg, "WS_CONFIG=%s", cfg), -1);
	env[0] = env_home()[0];
	env[1] = env_cfg;
	env[2] = NULL;
	RUN(&r, NULL, env, "wsread", "--workspace", ws, "--json", "a.txt");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	/* WS_POLICY beats the configuration's default, --policy beats both. */
	env[2] = "WS_POLICY=read-only";
	env[3] = NULL;
	RUN(&r, NULL, env, "wsread", "--workspace", ws, "--json", "a.txt");
	check_status(&r, 0, "");
	wst_run_free(&r);
	RUN(&r, NULL, env, "wsread", "--workspace", ws, "--policy", "mine", "--json", "a.txt");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	/* An empty --policy means none, even over a default. */
	RUN(&r, NULL, env, "wsread", "--workspace", ws, "--policy", "", "--json", "a.txt");
	check_status(&r, 0, "");
	wst_run_free(&r);
	/* The default place: $XDG_CONFIG_HOME/wstools/config.json. */
	wst_write(tmp, "xdg/wstools/config.json",
		  "{\"policies\": {\"dir\": \"../../conf/pol\", \"default\": \"mine\"}}");
	ck_assert_int_ne(asprintf(&xdg, "XDG_CONFIG_HOME=%s/xdg", tmp), -1);
	env[1] = xdg;
	env[2] = NULL;
	RUN(&r, NULL, env, "wsread", "--workspace", ws, "--json", "a.txt");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	free(xdg);
	free(env_cfg);
	free(ws);
	free(cfg);
}
END_TEST

START_TEST(config_errors)
{
	struct wst_run r;
	char *ws = P("ws"), *cfg = P("c.json");

	wst_mkdir(tmp, "ws");
	/* A missing explicit file is an error (a missing default one is not). */
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--config",
	    "/nonexistent-wstest/c.json", "--json", "x");
	check_status(&r, 2, "INVALID_ARGUMENT");
	wst_run_free(&r);
	wst_write(tmp, "c.json", "{\"limits\": {\"max_bytez\": 5}}");
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--config", cfg, "--json", "x");
	check_status(&r, 2, "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(r.out, "limits.max_bytez"));
	wst_run_free(&r);
	wst_write(tmp, "c.json", "{\"limits\": {\"max_bytes\": \"5\"}}");
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--config", cfg, "--json", "x");
	check_status(&r, 2, "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(r.out, "limits.max_bytes"));
	wst_run_free(&r);
	wst_write(tmp, "c.json", "{\"policy\": {}}");
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--config", cfg, "--json", "x");
	check_status(&r, 2, "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(r.out, "unknown key \\\"policy\\\""));
	wst_run_free(&r);
	wst_write(tmp, "c.json", "{\"policies\": {\"detect_project_root\": 0}}");
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--config", cfg, "--json", "x");
	check_status(&r, 2, "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(r.out, "policies.detect_project_root"));
	wst_run_free(&r);
	wst_write(tmp, "c.json", "{\"mounts\": [\"/m=/nonexistent-wstest\"]}");
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--config", cfg, "--json", "x");
	check_status(&r, 2, "WORKSPACE_NOT_FOUND");
	wst_run_free(&r);
	wst_write(tmp, "c.json", "{\"limits\": {\"max_bytes\": 10, \"max_entries\": 5}}");
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--config", cfg, "--json", "x");
	check_status(&r, 0, "");
	wst_run_free(&r);
	free(ws);
	free(cfg);
}
END_TEST

START_TEST(config_mounts_and_markers)
{
	struct wst_run r;
	char *ws = P("ws/sub"), *cfg = P("c.json"), *skills = P("skills"), *text;
	char *ws_parent = P("ws");

	wst_write(tmp, "skills/s.md", "skill\n");
	wst_write(tmp, "ws/BUILD", "");
	wst_mkdir(tmp, "ws/sub");
	ck_assert_int_ne(asprintf(&text, "{\"mounts\": [\"/.skills=%s:ro\"],"
				  " \"policies\": {\"project_markers\": [\"BUILD\"]}}",
				  skills), -1);
	wst_write(tmp, "c.json", text);
	free(text);
	/* Mounts from the configuration apply like --mount. */
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--config", cfg,
	    "--json", "/.skills/s.md");
	check_status(&r, 0, "");
	ck_assert_ptr_nonnull(strstr(out_str(&r, "real_path"), "/skills/s.md"));
	wst_run_free(&r);
	/* ...unless --mount gives its own. */
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--config", cfg,
	    "--mount", "/.other=/tmp", "--json", "/.skills/s.md");
	check_status(&r, 0, "");
	ck_assert_ptr_null(strstr(out_str(&r, "real_path"), "/skills/s.md"));
	wst_run_free(&r);
	/* project_markers replaces the default list. */
	RUN(&r, NULL, env_home(), "wspath", "--workspace", ws, "--config", cfg,
	    "--explain", "--json", "x");
	check_status(&r, 0, "");
	ck_assert_str_eq(out_str(&r, "project_root"), ws_parent);
	ck_assert_str_eq(out_str(&r, "project_marker"), "BUILD");
	wst_run_free(&r);
	free(ws);
	free(ws_parent);
	free(cfg);
	free(skills);
}
END_TEST

/* ---- --verbose ---- */

START_TEST(verbose_logs)
{
	struct wst_run r;
	char *ws = P("monorepo/services/api/cmd"), *line;

	monorepo();
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", "dev-safe",
	    "--verbose", "main.go");
	check_status(&r, 0, "");
	ck_assert_int_ne(asprintf(&line, "INFO project detection project_root=%s/monorepo/services/api git_root=%s/monorepo\n",
				  tmp, tmp), -1);
	ck_assert_msg(strstr(r.err, line) != NULL, "%s", r.err);
	free(line);
	ck_assert_int_ne(asprintf(&line, "DEBUG expanded policy variable var=PROJECT_ROOT value=%s/monorepo/services/api\n",
				  tmp), -1);
	ck_assert_ptr_nonnull(strstr(r.err, line));
	free(line);
	ck_assert_int_ne(asprintf(&line, "INFO policy decision op=read path=%s/main.go rule=allow-project-read decision=allow\n",
				  ws), -1);
	ck_assert_ptr_nonnull(strstr(r.err, line));
	free(line);
	ck_assert_ptr_null(strstr(r.err, "WARN"));
	wst_run_free(&r);
	free(ws);
	/* No markers at all. */
	ws = P("scratch");
	wst_write(tmp, "scratch/f", "f\n");
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--verbose", "f");
	check_status(&r, 0, "");
	ck_assert_ptr_nonnull(strstr(r.err, "WARN project detection found no markers, "
				     "using workspace as project_root\n"));
	ck_assert_ptr_nonnull(strstr(r.err, "git_root=\"\""));
	/* Without a policy there is nothing to decide. */
	ck_assert_ptr_null(strstr(r.err, "policy decision"));
	wst_run_free(&r);
	/* Without --verbose, nothing at all. */
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", "dev-safe", "f");
	check_status(&r, 0, "");
	ck_assert_str_eq(r.err, "");
	wst_run_free(&r);
	free(ws);
}
END_TEST

/* ---- Per tool: allowed, denied, approve ---- */

/*
 * A test policy: read everything in the project, except secret/ (denied)
 * and ask/ (listing and reading need approval); write and create anywhere
 * in the project; deletes need approval.
 */
static char *
tool_policy(void)
{
	wst_write(tmp, "pol/tools.json",
		  "{\"version\": 1, \"name\": \"tools\", \"file_rules\": [\n"
		  " {\"name\": \"deny-secret\", \"paths\": [\"${PROJECT_ROOT}/secret\", \"${PROJECT_ROOT}/secret/**\"],\n"
		  "  \"operations\": [\"*\"], \"decision\": \"deny\", \"message\": \"{{.Path}} is secret\"},\n"
		  " {\"name\": \"ask\", \"paths\": [\"${PROJECT_ROOT}/ask\", \"${PROJECT_ROOT}/ask/**\"],\n"
		  "  \"operations\": [\"list\", \"read\", \"open\"], \"decision\": \"approve\",\n"
		  "  \"message\": \"{{.Operation}} {{.Path}}? ({{.Rule}})\"},\n"
		  " {\"name\": \"read\", \"paths\": [\"${PROJECT_ROOT}\", \"${PROJECT_ROOT}/**\"],\n"
		  "  \"operations\": [\"read\", \"open\", \"stat\", \"list\", \"readlink\"], \"decision\": \"allow\"},\n"
		  " {\"name\": \"write\", \"paths\": [\"${PROJECT_ROOT}/**\"],\n"
		  "  \"operations\": [\"write\", \"create\", \"mkdir\"], \"decision\": \"allow\"},\n"
		  " {\"name\": \"delete\", \"paths\": [\"${PROJECT_ROOT}/**\"],\n"
		  "  \"operations\": [\"delete\", \"rmdir\", \"rename\"], \"decision\": \"approve\",\n"
		  "  \"message\": \"Delete {{.Path}}?\"}\n"
		  "]}\n");
	wst_write(tmp, "ws/a.txt", "alpha\n");
	wst_write(tmp, "ws/secret/key", "k\n");
	wst_write(tmp, "ws/ask/q.txt", "question\n");
	wst_write(tmp, "ws/del.txt", "d\n");
	return P("pol/tools.json");
}

START_TEST(tool_wsls)
{
	struct wst_run r;
	char *pol = tool_policy(), *ws = P("ws");

	RUN(&r, NULL, env_home(), "wsls", "--workspace", ws, "--policy", pol, "--json", "/");
	check_status(&r, 0, "");
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wsls", "--workspace", ws, "--policy", pol, "--json", "secret");
	check_status(&r, 3, "POLICY_DENIED");
	ck_assert_ptr_nonnull(strstr(r.out, "is secret"));
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wsls", "--workspace", ws, "--policy", pol, "secret");
	ck_assert_int_eq(r.status, 3);
	ck_assert_ptr_nonnull(strstr(r.err, "POLICY_DENIED"));
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wsls", "--workspace", ws, "--policy", pol, "--json", "ask");
	check_status(&r, 4, "APPROVAL_REQUIRED");
	ck_assert_ptr_nonnull(strstr(r.out, "list /ask? (ask)"));
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wsls", "--workspace", ws, "--policy", pol, "--approve",
	    "--json", "ask");
	check_status(&r, 0, "");
	ck_assert_ptr_nonnull(strstr(r.out, "q.txt"));
	wst_run_free(&r);
	free(pol);
	free(ws);
}
END_TEST

START_TEST(tool_wsread)
{
	struct wst_run r;
	char *pol = tool_policy(), *ws = P("ws");

	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol, "--json", "a.txt");
	check_status(&r, 0, "");
	ck_assert_str_eq(wst_output_str(&r, "content"), "alpha\n");
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol, "--json",
	    "secret/key");
	check_status(&r, 3, "POLICY_DENIED");
	ck_assert_ptr_null(strstr(r.out, "k\\n"));
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol, "--json",
	    "ask/q.txt");
	check_status(&r, 4, "APPROVAL_REQUIRED");
	ck_assert_ptr_null(strstr(r.out, "question"));
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol, "--approve",
	    "--json", "ask/q.txt");
	check_status(&r, 0, "");
	ck_assert_str_eq(wst_output_str(&r, "content"), "question\n");
	wst_run_free(&r);
	/* The same through --args, as an agent calls it. */
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol, "--args",
	    "{\"path\": \"secret/key\"}");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	free(pol);
	free(ws);
}
END_TEST

START_TEST(tool_wswrite)
{
	struct wst_run r;
	char *pol = tool_policy(), *ws = P("ws"), *del = P("ws/del.txt"), *c;

	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", pol,
	    "--content", "new\n", "--json", "new.txt");
	check_status(&r, 0, "");
	wst_run_free(&r);
	c = P("ws/new.txt");
	{
		char *k = wst_slurp(c, NULL);

		ck_assert_str_eq(k, "new\n");
		free(k);
	}
	free(c);
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", pol,
	    "--content", "pwned\n", "--json", "secret/key");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	c = P("ws/secret/key");
	{
		char *k = wst_slurp(c, NULL);

		ck_assert_str_eq(k, "k\n");
		free(k);
	}
	free(c);
	/* A new file in a denied directory is denied too. */
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", pol,
	    "--content", "x", "--json", "secret/new");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	c = P("ws/secret/new");
	ck_assert(!wst_exists(c));
	free(c);
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", pol,
	    "--delete", "--json", "del.txt");
	check_status(&r, 4, "APPROVAL_REQUIRED");
	ck_assert_ptr_nonnull(strstr(r.out, "Delete /del.txt?"));
	ck_assert(wst_exists(del));
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", pol,
	    "--delete", "--approve", "--json", "del.txt");
	check_status(&r, 0, "");
	ck_assert(!wst_exists(del));
	wst_run_free(&r);
	free(pol);
	free(ws);
	free(del);
}
END_TEST

START_TEST(deny_beats_writable_workspace)
{
	/* The workspace is writable; read-only still refuses every change. */
	struct wst_run r;
	char *ws = P("ws"), *f = P("ws/a.txt"), *c;

	wst_write(tmp, "ws/a.txt", "original\n");
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", "read-only",
	    "--content", "changed\n", "--json", "a.txt");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", "read-only",
	    "--delete", "--approve", "--json", "a.txt");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", "read-only",
	    "--mkdir", "--json", "d");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	c = wst_slurp(f, NULL);
	ck_assert_str_eq(c, "original\n");
	free(c);
	/* And reading is fine. */
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", "read-only",
	    "--json", "a.txt");
	check_status(&r, 0, "");
	wst_run_free(&r);
	free(ws);
	free(f);
}
END_TEST

/*
 * Review10 12: a move must not take a file out from under a rule that
 * refuses to read it (the rule says nothing of rename): refused, naming
 * the rule, for the file and for a directory holding it; a move that the
 * same rule still covers is allowed.
 */
START_TEST(move_keeps_read_denial)
{
	struct wst_run r;
	char *ws = P("ws"), *pol = P("pol.json"), *text = NULL;
	static const char *const refused[][2] = {{".env", "e2"}, {"a", "x"}};

	ck_assert(asprintf(&text, "{\"version\":1,\"name\":\"p12\",\"file_rules\":["
			   "{\"name\":\"deny-env\",\"paths\":[\"%s/.env\",\"%s/a/b/.env\","
			   "\"%s/keep/**\"],\"operations\":[\"read\"],\"decision\":\"deny\"},"
			   "{\"name\":\"allow\",\"paths\":[\"%s\",\"%s/**\"],"
			   "\"operations\":[\"*\"],\"decision\":\"allow\"}]}",
			   ws, ws, ws, ws, ws) > 0);
	wst_write(tmp, "pol.json", text);
	wst_write(tmp, "ws/.env", "SECRET=1\n");
	wst_write(tmp, "ws/a/b/.env", "SECRET=2\n");
	wst_write(tmp, "ws/keep/k", "SECRET=3\n");
	for (size_t i = 0; i < 2; i++) {
		RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", pol,
		    "--json", "--move", refused[i][1], refused[i][0]);
		check_status(&r, 3, "POLICY_DENIED");
		ck_assert_msg(strstr(r.out, "deny-env") != NULL, "%s", r.out);
		wst_run_free(&r);
	}
	/* The audit line names the refusal. */
	{
		char *log = P("audit.jsonl"), *ea = NULL, *line;

		ck_assert(asprintf(&ea, "WS_AUDIT=%s", log) > 0);
		RUN(&r, NULL, ((const char *[]){ea, NULL}), "wswrite", "--workspace", ws,
		    "--policy", pol, "--json", "--move", "e3", ".env");
		check_status(&r, 3, "POLICY_DENIED");
		wst_run_free(&r);
		line = wst_slurp(log, NULL);
		ck_assert_msg(line != NULL && strstr(line, "\"rule\":\"deny-env\"") &&
			      strstr(line, "\"decision\":\"deny\""), "%s", line);
		free(line);
		free(ea);
		free(log);
	}
	{
		char *e1 = P("ws/.env"), *e2 = P("ws/a/b/.env");

		ck_assert(wst_exists(e1) && wst_exists(e2));
		free(e1);
		free(e2);
	}
	/* Within the rule's reach: allowed. */
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", pol,
	    "--json", "--move", "keep/k2", "keep/k");
	check_status(&r, 0, "");
	wst_run_free(&r);
	free(ws);
	free(pol);
	free(text);
}
END_TEST

/*
 * Review10 11: a rule that refuses "open" refuses every reader, not
 * wsread alone: wsgrep finds nothing in the file, a command reads it
 * empty (masked in its view).
 */
START_TEST(open_denial_every_reader)
{
	struct wst_run r;
	char *ws = P("ws"), *pol = P("pol.json"), *text = NULL;

	ck_assert(asprintf(&text, "{\"version\":1,\"name\":\"p11\",\"file_rules\":["
			   "{\"name\":\"deny-env-open\",\"paths\":[\"**/.env\"],"
			   "\"operations\":[\"open\"],\"decision\":\"deny\"},"
			   "{\"name\":\"allow\",\"paths\":[\"%s\",\"%s/**\"],"
			   "\"operations\":[\"*\"],\"decision\":\"allow\"}]}",
			   ws, ws) > 0);
	wst_write(tmp, "pol.json", text);
	wst_write(tmp, "ws/.env", "SECRET=hunter2\n");
	wst_write(tmp, "ws/b.txt", "SECRET=plain\n");
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol,
	    "--json", ".env");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wsgrep", "--workspace", ws, "--policy", pol,
	    "--hidden", "SECRET");
	ck_assert_msg(strstr(r.out, "hunter2") == NULL && strstr(r.out, "plain") != NULL,
		      "%s", r.out);
	wst_run_free(&r);
	{
		/*
		 * wsrun as it is, also in the valgrind step: valgrind does
		 * not know its sandbox calls (tests/valgrind/run.sh), and it
		 * would refuse (125) there.
		 */
		const char *wv = getenv("WST_TOOL_WRAPPER");
		char *wrapper = wv ? strdup(wv) : NULL;

		unsetenv("WST_TOOL_WRAPPER");
		RUN(&r, NULL, env_home(), "wsrun", "--workspace", ws, "--policy", pol,
		    "-c", "cat .env b.txt");
		if (wrapper != NULL)
			setenv("WST_TOOL_WRAPPER", wrapper, 1);
		free(wrapper);
	}
	ck_assert_msg(strstr(r.out, "hunter2") == NULL && strstr(r.out, "plain") != NULL,
		      "%d %s %s", r.status, r.out, r.err);
	wst_run_free(&r);
	free(ws);
	free(pol);
	free(text);
}
END_TEST

START_TEST(shipped_dev_safe_approve_delete)
{
	struct wst_run r;
	char *ws = P("ws"), *f = P("ws/a.txt");

	wst_write(tmp, "ws/a.txt", "x\n");
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", "dev-safe",
	    "--delete", "--json", "a.txt");
	check_status(&r, 4, "APPROVAL_REQUIRED");
	ck_assert_ptr_nonnull(strstr(r.out, "Delete /a.txt?"));
	wst_run_free(&r);
	ck_assert(wst_exists(f));
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", "dev-safe",
	    "--delete", "--approve", "--json", "a.txt");
	check_status(&r, 0, "");
	ck_assert(!wst_exists(f));
	wst_run_free(&r);
	free(ws);
	free(f);
}
END_TEST

/* A project's .env files are secrets too (ftu11 06). */
START_TEST(shipped_dev_safe_denies_env)
{
	struct wst_run r;
	char *ws = P("ws");

	wst_write(tmp, "ws/.env", "SECRET=1\n");
	wst_write(tmp, "ws/sub/.env.local", "SECRET=2\n");
	wst_write(tmp, "ws/envy.txt", "fine\n");
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", "dev-safe",
	    "--approve", "--json", ".env");
	check_status(&r, 3, "POLICY_DENIED");
	ck_assert_ptr_null(strstr(r.out, "SECRET"));
	ck_assert_ptr_nonnull(strstr(r.out, "deny-env"));
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", "dev-safe",
	    "--json", "sub/.env.local");
	check_status(&r, 3, "POLICY_DENIED");
	ck_assert_ptr_null(strstr(r.out, "SECRET"));
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", "dev-safe",
	    "--json", "--content", "X=1\n", "sub/.env");
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", "dev-safe",
	    "--json", "envy.txt");
	check_status(&r, 0, "");
	wst_run_free(&r);
	free(ws);
}
END_TEST

START_TEST(shipped_ci_no_delete)
{
	struct wst_run r;
	char *ws = P("ws"), *f = P("ws/a.txt");

	wst_write(tmp, "ws/a.txt", "x\n");
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", "ci",
	    "--delete", "--approve", "--json", "a.txt");
	check_status(&r, 3, "POLICY_DENIED");
	ck_assert(wst_exists(f));
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", "ci",
	    "--content", "y\n", "--json", "a.txt");
	check_status(&r, 0, "");
	wst_run_free(&r);
	free(ws);
	free(f);
}
END_TEST

/* ---- --allow-outside: the policy is the only boundary ---- */

START_TEST(allow_outside_dev_safe_home)
{
	struct wst_run r;
	char *ws = P("ws"), *gitconfig, *key, *sshdir;

	wst_mkdir(tmp, "ws");
	wst_write(tmp, "home/.gitconfig", "[user]\n");
	wst_write(tmp, "home/.ssh/id_rsa", "PRIVATE\n");
	gitconfig = P("home/.gitconfig");
	key = P("home/.ssh/id_rsa");
	sshdir = P("home/.ssh");
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", "dev-safe",
	    "--allow-outside", "--json", gitconfig);
	check_status(&r, 0, "");
	ck_assert_str_eq(wst_output_str(&r, "content"), "[user]\n");
	ck_assert_str_eq(cJSON_GetObjectItem(r.json, "boundary")->valuestring, "off");
	wst_run_free(&r);
	/*
	 * Never the keys, although HOME lies under /tmp, which dev-safe
	 * otherwise opens fully: the secret rules come first.
	 */
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", "dev-safe",
	    "--allow-outside", "--approve", "--json", key);
	check_status(&r, 3, "POLICY_DENIED");
	ck_assert_ptr_null(strstr(r.out, "PRIVATE"));
	ck_assert_ptr_nonnull(strstr(r.out, "deny-ssh-keys"));
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wsls", "--workspace", ws, "--policy", "dev-safe",
	    "--allow-outside", "--json", sshdir);
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wswrite", "--workspace", ws, "--policy", "dev-safe",
	    "--allow-outside", "--content", "x", "--json", key);
	check_status(&r, 3, "POLICY_DENIED");
	wst_run_free(&r);
	/* Outside the project, /tmp and home configs: default deny. */
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", "dev-safe",
	    "--allow-outside", "--json", "/etc/passwd");
	check_status(&r, 3, "POLICY_DENIED");
	ck_assert_ptr_nonnull(strstr(r.out, "default-deny"));
	wst_run_free(&r);
	/* Without a policy the boundary really is off. */
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--allow-outside",
	    "--json", key);
	check_status(&r, 0, "");
	wst_run_free(&r);
	free(ws);
	free(gitconfig);
	free(key);
	free(sshdir);
}
END_TEST

/* ---- Policy errors, names, strict ---- */

START_TEST(policy_errors_exit_2)
{
	struct wst_run r;
	char *ws = P("ws"), *pol = P("bad.json");

	wst_mkdir(tmp, "ws");
	wst_write(tmp, "bad.json",
		  "{\"version\":1,\"file_rules\":[{\"name\":\"r1\",\"paths\":[\"/x\"],"
		  "\"operations\":[\"reed\"],\"decision\":\"allow\"}]}");
	RUN(&r, NULL, env_home(), "wsls", "--workspace", ws, "--policy", pol, "--json");
	check_status(&r, 2, "POLICY_ERROR");
	ck_assert_ptr_nonnull(strstr(r.out, "r1"));
	ck_assert_ptr_nonnull(strstr(r.out, "operations"));
	wst_run_free(&r);
	wst_write(tmp, "bad.json",
		  "{\"version\":1,\"file_rules\":[{\"name\":\"r1\",\"paths\":[\"${NOPE_WSTEST}/**\"],"
		  "\"operations\":[\"read\"],\"decision\":\"allow\"}]}");
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol, "x");
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "undefined variable: NOPE_WSTEST"));
	ck_assert_ptr_nonnull(strstr(r.err, "POLICY_ERROR"));
	wst_run_free(&r);
	/* GIT_ROOT is undefined outside git: an error without a fallback. */
	wst_write(tmp, "bad.json",
		  "{\"version\":1,\"file_rules\":[{\"name\":\"g\",\"paths\":[\"${GIT_ROOT}/**\"],"
		  "\"operations\":[\"read\"],\"decision\":\"allow\"}]}");
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol, "--json", "x");
	check_status(&r, 2, "POLICY_ERROR");
	ck_assert_ptr_nonnull(strstr(r.out, "undefined variable: GIT_ROOT"));
	wst_run_free(&r);
	wst_write(tmp, "bad.json",
		  "{\"version\":1,\"file_rules\":[{\"name\":\"m\",\"paths\":[\"${FOO\"],"
		  "\"operations\":[\"read\"],\"decision\":\"allow\"}]}");
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", pol, "--json", "x");
	check_status(&r, 2, "POLICY_ERROR");
	ck_assert_ptr_nonnull(strstr(r.out, "offset 0"));
	wst_run_free(&r);
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--policy", "no-such-policy",
	    "--json", "x");
	check_status(&r, 2, "POLICY_ERROR");
	ck_assert_ptr_nonnull(strstr(r.out, "no such policy"));
	wst_run_free(&r);
	free(ws);
	free(pol);
}
END_TEST

START_TEST(policy_env_and_strict)
{
	struct wst_run r;
	char *ws = P("ws"), *pol = P("strict.json"), *envp;
	const char *env[3];

	wst_write(tmp, "ws/a.txt", "a\n");
	wst_write(tmp, "strict.json",
		  "{\"version\":1,\"strict\":true,\"file_rules\":[{\"name\":\"all\","
		  "\"paths\":[\"**\"],\"operations\":[\"*\"],\"decision\":\"allow\"}]}");
	ck_assert_int_ne(asprintf(&envp, "WS_POLICY=%s", pol), -1);
	env[0] = env_home()[0];
	env[1] = envp;
	env[2] = NULL;
	RUN(&r, NULL, env, "wsread", "--workspace", ws, "--json", "a.txt");
	check_status(&r, 0, "");
	wst_run_free(&r);
	/* "strict": true rejects absolute paths and "..". */
	RUN(&r, NULL, env, "wsread", "--workspace", ws, "--json", "/a.txt");
	check_status(&r, 2, "INVALID_PATH");
	wst_run_free(&r);
	RUN(&r, NULL, env, "wsread", "--workspace", ws, "--json", "x/../a.txt");
	check_status(&r, 2, "INVALID_PATH");
	wst_run_free(&r);
	/* Without the policy they are fine. */
	RUN(&r, NULL, env_home(), "wsread", "--workspace", ws, "--json", "/a.txt");
	check_status(&r, 0, "");
	wst_run_free(&r);
	free(envp);
	free(ws);
	free(pol);
}
END_TEST

/* ---- The y/N prompt on a terminal ---- */

/*
 * Run wswrite --delete with a pseudo-terminal as its controlling terminal,
 * stdin and stderr, answer the prompt with answer, and return the exit
 * status; *shown gets what the terminal showed.
 */
static int
run_on_tty(const char *ws, const char *pol, const char *path, const char *answer,
	   const char *config, bool sandbox, char *shown, size_t shown_sz)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	size_t n = 0;
	pid_t pid;
	int st = -1;
	bool answered = false;
	struct timespec t0, t1;

	ck_assert_int_ge(m, 0);
	ck_assert_int_eq(grantpt(m), 0);
	ck_assert_int_eq(unlockpt(m), 0);
	pid = fork();
	if (pid == 0) {
		int s, null;

		setsid();
		s = open(ptsname(m), O_RDWR); /* becomes the controlling tty */
		null = open("/dev/null", O_WRONLY);
		if (s < 0 || null < 0)
			_exit(126);
		ioctl(s, TIOCSCTTY, 0);
		dup2(s, 0);
		dup2(null, 1);
		dup2(s, 2);
		unsetenv("WS_POLICY");
		unsetenv("WS_FORMAT");
		unsetenv("WS_CONFIG");
		if (config != NULL)
			setenv("WS_CONFIG", config, 1);
		if (sandbox)
			setenv("WS_SANDBOX", "1", 1);
		setenv("XDG_CONFIG_HOME", "/nonexistent-wstest", 1);
		setenv("HOME", home, 1);
		execl(wst_bin("wswrite"), "wswrite", "--workspace", ws, "--policy", pol,
		      "--delete", path, (char *)NULL);
		_exit(127);
	}
	shown[0] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = {m, POLLIN, 0};
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec > 15) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		if (poll(&p, 1, 50) > 0 && (p.revents & POLLIN)) {
			ssize_t k = read(m, shown + n, shown_sz - n - 1);

			if (k > 0) {
				n += (size_t)k;
				shown[n] = '\0';
			}
		}
		if (!answered && strstr(shown, "[y/N]") != NULL) {
			ck_assert_int_eq(write(m, answer, strlen(answer)),
					 (ssize_t)strlen(answer));
			answered = true;
		}
	}
	close(m);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(prompt_on_terminal)
{
	char *ws = P("ws"), *a = P("ws/a.txt"), *b = P("ws/b.txt");
	char shown[4096];

	char *conf = P("tty.json");

	wst_write(tmp, "ws/a.txt", "a\n");
	wst_write(tmp, "ws/b.txt", "b\n");
	wst_write(tmp, "tty.json", "{\"approve\": \"tty\"}");
	/* Prompting is off unless the configuration turns it on: an agent
	 * running the tool under script(1) must not approve itself. */
	ck_assert_int_eq(run_on_tty(ws, "dev-safe", "b.txt", "y\n", NULL, false,
				    shown, sizeof(shown)), 4);
	ck_assert_msg(strstr(shown, "[y/N]") == NULL, "%s", shown);
	ck_assert(wst_exists(b));
	/* Never inside wsrun's sandbox. */
	ck_assert_int_eq(run_on_tty(ws, "dev-safe", "b.txt", "y\n", conf, true,
				    shown, sizeof(shown)), 4);
	ck_assert_msg(strstr(shown, "[y/N]") == NULL, "%s", shown);
	ck_assert(wst_exists(b));
	ck_assert_int_eq(run_on_tty(ws, "dev-safe", "a.txt", "n\n", conf, false,
				    shown, sizeof(shown)), 4);
	/* What is asked on the first line, the rule under it; dev-safe's
	 * message "Delete {{.Path}}?" only asks it again: left out (ftu18 07). */
	ck_assert_msg(strstr(shown, "wswrite: Allow delete: /a.txt?\r\n  Asked by rule "
			     "\"approve-project-delete\" of policy \"dev-safe\"\r\n"
			     "wswrite: allow? [y/N]") != NULL, "%s", shown);
	ck_assert(wst_exists(a));
	/* A name cannot redraw the question (issue 18, finding 5). */
	wst_write(tmp, "ws/e\x1b[1A\rx.txt", "e\n");
	ck_assert_int_eq(run_on_tty(ws, "dev-safe", "e\x1b[1A\rx.txt", "n\n", conf, false,
				    shown, sizeof(shown)), 4);
	ck_assert_msg(strstr(shown, "wswrite: Allow delete: /e\\x1b[1A\\rx.txt?\r\n") != NULL,
		      "%s", shown);
	ck_assert_msg(strchr(shown, '\x1b') == NULL, "%s", shown);
	ck_assert_int_eq(run_on_tty(ws, "dev-safe", "b.txt", "y\n", conf, false,
				    shown, sizeof(shown)), 0);
	ck_assert(!wst_exists(b));
	free(conf);
	free(ws);
	free(a);
	free(b);
}
END_TEST


/* The configuration's limits are the tools' defaults; a flag wins. */
START_TEST(config_limits_are_defaults)
{
	char *t = wst_tmpdir(), *ws = wst_path(t, "ws"), *conf = wst_path(t, "c.json");
	struct wst_run r;
	char big[4096];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	wst_write(t, "ws/big.txt", big);
	for (int i = 0; i < 10; i++) {
		char name[32];

		snprintf(name, sizeof(name), "ws/f%d", i);
		wst_write(t, name, "x");
	}
	wst_write(t, "c.json", "{\"limits\": {\"max_bytes\": 100, \"max_entries\": 3}}");
	/* Plain: over the configured max_bytes is FILE_TOO_LARGE... */
	wst_run(&r, NULL, "wsread", "--config", conf, "--workspace", ws,
		"big.txt", NULL);
	ck_assert_int_eq(r.status, 5);
	ck_assert_ptr_nonnull(strstr(r.err, "(FILE_TOO_LARGE)"));
	wst_run_free(&r);
	/* ...and JSON gives a first page no larger than it. */
	wst_run(&r, NULL, "wsread", "--config", conf, "--workspace", ws, "--json",
		"big.txt", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert(cJSON_IsTrue(wst_output(&r, "truncated")));
	ck_assert_uint_le(strlen(wst_output_str(&r, "content")), 100);
	wst_run_free(&r);
	wst_run(&r, NULL, "wsread", "--config", conf, "--workspace", ws, "--json",
		"--max-bytes", "10000", "big.txt", NULL);
	ck_assert_int_eq(r.status, 0);
	wst_run_free(&r);
	wst_run(&r, NULL, "wsls", "--config", conf, "--workspace", ws, "--json", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(cJSON_GetArraySize(wst_output(&r, "entries")), 3);
	ck_assert(cJSON_IsTrue(wst_output(&r, "truncated")));
	wst_run_free(&r);
	/* max_depth caps recursion; 0 bytes is no limit anyone means. */
	wst_write(t, "ws/a/b/c/deep.txt", "x");
	wst_write(t, "c.json", "{\"limits\": {\"max_depth\": 2}}");
	wst_run(&r, NULL, "wsls", "--config", conf, "--workspace", ws, "-R", "a", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "b"));
	ck_assert_ptr_nonnull(strstr(r.out, "c"));
	ck_assert_ptr_null(strstr(r.out, "deep.txt"));
	wst_run_free(&r);
	wst_write(t, "c.json", "{\"limits\": {\"max_bytes\": 0}}");
	wst_run(&r, NULL, "wsread", "--config", conf, "--workspace", ws, "--json",
		"big.txt", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(r.out, "limits.max_bytes"));
	wst_run_free(&r);
	wst_rmrf(t);
	free(t);
	free(ws);
	free(conf);
}
END_TEST


/*
 * Regressions from the second security review.
 */

/* No tool rewrites wstools' own configuration or policy (review F1). */
START_TEST(own_configuration_is_guarded)
{
	char *t = wst_tmpdir(), *hdir = wst_path(t, "home"), *henv = NULL;
	char *cfg = wst_path(t, "home/.config/wstools/config.json");
	struct wst_run r;
	const char *env[3] = {NULL, NULL, NULL};
	char *xdg = NULL;

	wst_write(t, "home/.config/wstools/config.json",
		  "{\"policies\":{\"detect_project_root\":false}}");
	wst_write(t, "home/p.json", "{\"version\":1,\"file_rules\":[{\"name\":\"a\","
		  "\"paths\":[\"**\"],\"operations\":[\"*\"],\"decision\":\"allow\"}]}");
	ck_assert(asprintf(&henv, "HOME=%s", hdir) > 0);
	env[0] = henv;
	env[1] = "XDG_CONFIG_HOME=";
	{
		static const char *const attempts[][6] = {
			{"--content", "{\"mounts\":[\"/host=/\"]}", ".config/wstools/config.json", NULL},
			{"--move", "cfg", ".config", NULL},
			{"--move", "cfg", ".config/wstools", NULL},
			{"--delete", "-r", ".config", NULL},
			{"--delete", ".config/wstools/config.json", NULL},
			{"--mkdir", ".config/wstools/sub", NULL},
			{"--edit", "--old", "false", "--new", "true", ".config/wstools/config.json"},
		};

		for (size_t i = 0; i < sizeof(attempts) / sizeof(attempts[0]); i++) {
			const char *argv[12];
			int n = 0;

			argv[n++] = "--workspace";
			argv[n++] = hdir;
			argv[n++] = "--json";
			for (int k = 0; k < 6 && attempts[i][k]; k++)
				argv[n++] = attempts[i][k];
			argv[n] = NULL;
			wst_runv(&r, NULL, env, "wswrite", argv);
			ck_assert_msg(strcmp(wst_code(&r), "POLICY_DENIED") == 0,
				      "%s %s: %s", attempts[i][0], attempts[i][1], r.out);
			ck_assert_int_eq(r.status, 3);
			wst_run_free(&r);
		}
	}
	{
		char *c = wst_slurp(cfg, NULL);

		ck_assert_str_eq(c, "{\"policies\":{\"detect_project_root\":false}}");
		free(c);
	}
	/* The neighbourhood stays writable, and so does a loaded policy's
	 * directory's neighbour; the loaded policy file itself does not. */
	{
		const char *argv[] = {"--workspace", NULL, "--json", "--content", "x",
				      ".config/other/ok.json", NULL};

		argv[1] = hdir;
		wst_runv(&r, NULL, env, "wswrite", argv);
		ck_assert_int_eq(r.status, 0);
		wst_run_free(&r);
	}
	{
		char *pol = wst_path(hdir, "p.json");
		const char *argv[] = {"--workspace", NULL, "--policy", NULL, "--json",
				      "--content", "{}", "p.json", NULL};

		argv[1] = hdir;
		argv[3] = pol;
		wst_runv(&r, NULL, env, "wswrite", argv);
		ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
		wst_run_free(&r);
		free(pol);
	}
	/* With XDG_CONFIG_HOME, that place is the guarded one. */
	ck_assert(asprintf(&xdg, "XDG_CONFIG_HOME=%s/xdg", t) > 0);
	env[1] = xdg;
	{
		const char *argv[] = {"--workspace", NULL, "--json", "--content", "x",
				      "../xdg/wstools/config.json", NULL};
		char *ws2 = wst_path(t, "home");

		argv[1] = t;
		argv[5] = "xdg/wstools/config.json";
		wst_runv(&r, NULL, env, "wswrite", argv);
		ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
		wst_run_free(&r);
		free(ws2);
	}
	wst_rmrf(t);
	free(t);
	free(hdir);
	free(henv);
	free(cfg);
	free(xdg);
}
END_TEST

/* HOME through a symlink or with "/./" still matches its deny rules (F3). */
START_TEST(variables_are_canonical)
{
	char *t = wst_tmpdir(), *link = wst_path(t, "homelink");
	static const char *const homes[] = {"/realhome", "/homelink",
					    "/./realhome", "/x/../realhome"};

	wst_write(t, "realhome/.ssh/id_rsa", "KEY");
	wst_symlink("realhome", t, "homelink");
	for (size_t i = 0; i < 4; i++) {
		struct wst_run r;
		char *h = NULL, *e = NULL;
		const char *env[] = {NULL, NULL};
		const char *argv[] = {"--workspace", NULL, "--policy", "dev-safe",
				      "--no-detect-root", "--json", ".ssh/id_rsa", NULL};

		ck_assert(asprintf(&h, "%s%s", t, homes[i]) > 0);
		ck_assert(asprintf(&e, "HOME=%s", h) > 0);
		env[0] = e;
		argv[1] = link;
		wst_runv(&r, NULL, env, "wsread", argv);
		ck_assert_msg(strcmp(wst_code(&r), "POLICY_DENIED") == 0, "HOME=%s: %s",
			      h, r.out);
		ck_assert_ptr_null(strstr(r.out, "KEY"));
		wst_run_free(&r);
		free(h);
		free(e);
	}
	wst_rmrf(t);
	free(t);
	free(link);
}
END_TEST

/* A model's --args cannot raise a configured limit; a flag can (F4). */
START_TEST(args_are_held_to_config_limits)
{
	char *t = wst_tmpdir(), *ws = wst_path(t, "ws"), *conf = wst_path(t, "c.json");
	struct wst_run r;
	char big[5001];

	memset(big, 'a', 5000);
	big[5000] = '\0';
	wst_write(t, "ws/f", big);
	wst_write(t, "c.json", "{\"limits\": {\"max_bytes\": 100}}");
	/* The page is held to the configured 100 bytes, not 100000. */
	wst_run(&r, NULL, "wsread", "--config", conf, "--workspace", ws, "--args",
		"{\"path\":\"f\",\"max_bytes\":100000,\"page_bytes\":100000}",
		NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert(cJSON_IsTrue(wst_output(&r, "truncated")));
	ck_assert_uint_eq(strlen(wst_output_str(&r, "content")), 100);
	wst_run_free(&r);
	wst_run(&r, NULL, "wsread", "--config", conf, "--workspace", ws, "--json",
		"--max-bytes", "100000", "f", NULL);
	ck_assert_int_eq(r.status, 0);
	wst_run_free(&r);
	/* And no value at all may make wsread hold gigabytes. */
	wst_run(&r, NULL, "wsread", "--workspace", ws, "--args",
		"{\"path\":\"f\",\"max_bytes\":20000000000}", NULL);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	wst_rmrf(t);
	free(t);
	free(ws);
	free(conf);
}
END_TEST

/* Globs that could never match are refused, not silently inert (F7). */
START_TEST(inert_globs_are_refused)
{
	static const char *const bad[] = {"*.pem", "*", "secrets/**", "/a/{b,c}/**"};
	char *t = wst_tmpdir(), *pol = wst_path(t, "p.json");

	for (size_t i = 0; i < 4; i++) {
		struct wst_run r;
		char *text = NULL;

		ck_assert(asprintf(&text, "{\"version\":1,\"file_rules\":[{\"name\":\"x\","
				   "\"paths\":[\"%s\"],\"operations\":[\"*\"],"
				   "\"decision\":\"deny\"}]}", bad[i]) > 0);
		wst_write(t, "p.json", text);
		wst_run(&r, NULL, "wspath", "--workspace", t, "--policy", pol, "--json",
			"x", NULL);
		ck_assert_msg(strcmp(wst_code(&r), "POLICY_ERROR") == 0, "%s: %s",
			      bad[i], r.out);
		ck_assert_int_eq(r.status, 2);
		wst_run_free(&r);
		free(text);
	}
	wst_rmrf(t);
	free(t);
	free(pol);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("cli-policy");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, explain_seed_monorepo);
	tcase_add_test(tc, user_home_rules_under_scratch_home);
	tcase_add_test(tc, virtual_looking_deny_refused);
	tcase_add_test(tc, virtual_looking_glob_deny);
	tcase_add_test(tc, explain_seed_non_project);
	tcase_add_test(tc, explain_op_on_a_hidden_path);
	tcase_add_test(tc, explain_worktree_git_file);
	tcase_add_test(tc, explain_symlinked_workspace);
	tcase_add_test(tc, missing_workspace);
	tcase_add_test(tc, precedence_levels);
	tcase_add_test(tc, project_root_changes_policy);
	tcase_add_test(tc, config_policy_dir_and_default);
	tcase_add_test(tc, config_errors);
	tcase_add_test(tc, config_mounts_and_markers);
	tcase_add_test(tc, verbose_logs);
	tcase_add_test(tc, tool_wsls);
	tcase_add_test(tc, tool_wsread);
	tcase_add_test(tc, tool_wswrite);
	tcase_add_test(tc, deny_beats_writable_workspace);
	tcase_add_test(tc, move_keeps_read_denial);
	tcase_add_test(tc, open_denial_every_reader);
	tcase_add_test(tc, shipped_dev_safe_approve_delete);
	tcase_add_test(tc, shipped_dev_safe_denies_env);
	tcase_add_test(tc, shipped_ci_no_delete);
	tcase_add_test(tc, allow_outside_dev_safe_home);
	tcase_add_test(tc, policy_errors_exit_2);
	tcase_add_test(tc, policy_env_and_strict);
	tcase_add_test(tc, prompt_on_terminal);
	tcase_add_test(tc, config_limits_are_defaults);
	tcase_add_test(tc, own_configuration_is_guarded);
	tcase_add_test(tc, variables_are_canonical);
	tcase_add_test(tc, args_are_held_to_config_limits);
	tcase_add_test(tc, inert_globs_are_refused);
	tcase_add_test(tc, no_rule_matches_hint_names_catch_all);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
