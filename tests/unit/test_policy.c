/*
 * test_policy.c - policies: the format and its errors, first-match
 * decisions, variables, command rules, messages, the ws_check() gate and
 * the shipped policies.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wstest.h"
#include "ws-config.h"
#include "ws/config.h"
#include "ws/error.h"
#include "ws/glob.h"
#include "ws/history.h"
#include "ws/netproxy.h"
#include "ws/persist.h"
#include "ws/policy.h"
#include "ws/vars.h"
#include "ws/workspace.h"

static char *tmp;
static struct ws_vars vars;

static void
setup(void)
{
	tmp = wst_tmpdir();
	ws_vars_init(&vars);
	ck_assert_int_eq(ws_vars_set(&vars, "PROJECT_ROOT", "/w/proj"), 0);
	ck_assert_int_eq(ws_vars_set(&vars, "GIT_ROOT", "/w"), 0);
	ck_assert_int_eq(ws_vars_set(&vars, "WORKSPACE", "/w/proj/sub"), 0);
	setenv("HOME", "/home/u", 1);
	unsetenv("TMPDIR");
}

static void
teardown(void)
{
	ws_vars_free(&vars);
	wst_rmrf(tmp);
	free(tmp);
}

static struct ws_policy *
parse_ok(const char *text)
{
	struct ws_policy *p = NULL;
	int rc = ws_policy_parse(text, "test.json", &vars, &p);

	ck_assert_msg(rc == 0, "parse failed: %s", ws_error_last());
	return p;
}

/* Parsing must fail with POLICY_ERROR whose message holds every needle. */
static void
parse_bad(const char *text, const char *n1, const char *n2, const char *n3)
{
	struct ws_policy *p = (struct ws_policy *)1;
	const char *needles[] = {n1, n2, n3};

	ck_assert_int_eq(ws_policy_parse(text, "test.json", &vars, &p),
			 WS_EPOLICY_ERROR);
	ck_assert_ptr_null(p);
	for (int i = 0; i < 3; i++)
		if (needles[i] != NULL)
			ck_assert_msg(strstr(ws_error_last(), needles[i]) != NULL,
				      "\"%s\" not in \"%s\"", needles[i], ws_error_last());
	ck_assert_str_eq(ws_error_last_path(), "test.json");
}

#define RULE(body) "{\"version\":1,\"file_rules\":[" body "]}"

START_TEST(minimal_and_defaults)
{
	struct ws_policy *p = parse_ok("{\"version\": 1}");

	/* The name defaults to the file's stem; no file rule: deny. */
	ck_assert_str_eq(ws_policy_name(p), "test");
	ck_assert(!ws_policy_strict(p));
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/w/proj/a", NULL),
			 WS_DECISION_DENY);
	/* No command rule: allow. */
	ck_assert_int_eq(ws_policy_check_command(p, "rm -rf /", NULL),
			 WS_DECISION_ALLOW);
	ws_policy_free(p);
}
END_TEST

START_TEST(first_match_wins)
{
	struct ws_policy *p = parse_ok(RULE(
		"{\"name\":\"deny-secret\",\"paths\":[\"${PROJECT_ROOT}/secret/**\"],"
		" \"operations\":[\"*\"],\"decision\":\"deny\"},"
		"{\"name\":\"allow-read\",\"paths\":[\"${PROJECT_ROOT}\",\"${PROJECT_ROOT}/**\"],"
		" \"operations\":[\"read\",\"list\"],\"decision\":\"allow\"},"
		"{\"name\":\"approve-del\",\"paths\":[\"${PROJECT_ROOT}/**\"],"
		" \"operations\":[\"delete\"],\"decision\":\"approve\",\"message\":\"Delete {{.Path}}?\"},"
		"{\"name\":\"allow-all\",\"paths\":[\"**\"],\"operations\":[\"*\"],\"decision\":\"allow\"}"));
	struct ws_policy_match m;

	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/w/proj/secret/k", &m),
			 WS_DECISION_DENY);
	ck_assert_str_eq(m.rule, "deny-secret");
	ck_assert_int_eq(m.index, 0);
	ck_assert_str_eq(m.pattern, "${PROJECT_ROOT}/secret/**");
	ck_assert_str_eq(m.expanded, "/w/proj/secret/**");
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/w/proj/a.c", &m),
			 WS_DECISION_ALLOW);
	ck_assert_str_eq(m.rule, "allow-read");
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_LIST, "/w/proj", &m),
			 WS_DECISION_ALLOW);
	ck_assert_str_eq(m.pattern, "${PROJECT_ROOT}");
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_DELETE, "/w/proj/a.c", &m),
			 WS_DECISION_APPROVE);
	ck_assert_str_eq(m.message, "Delete {{.Path}}?");
	/* The operation must match too: write falls through to allow-all. */
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_WRITE, "/w/proj/a.c", &m),
			 WS_DECISION_ALLOW);
	ck_assert_str_eq(m.rule, "allow-all");
	ws_policy_free(p);
}
END_TEST

/*
 * Review10 11: a rule that refuses "open" refuses a read too, for every
 * reader (wsgrep, the wsrun mask walk), and a directory under it is
 * walked; the default for "open" (no rule) does not refuse a read.
 */
START_TEST(open_denial_is_a_read_denial)
{
	struct ws_policy *p = parse_ok(RULE(
		"{\"name\":\"no-open\",\"paths\":[\"/w/**/.env\"],"
		" \"operations\":[\"open\"],\"decision\":\"deny\"},"
		"{\"name\":\"ask-open\",\"paths\":[\"/w/ask\"],"
		" \"operations\":[\"open\"],\"decision\":\"approve\"},"
		"{\"name\":\"read\",\"paths\":[\"/w/**\"],\"operations\":[\"read\"],"
		" \"decision\":\"allow\"}"));
	struct ws_policy_match m;

	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/w/a/.env", &m),
			 WS_DECISION_DENY);
	ck_assert_str_eq(m.rule, "no-open");
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/w/ask", &m),
			 WS_DECISION_APPROVE);
	ck_assert_str_eq(m.rule, "ask-open");
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/w/a/x", &m),
			 WS_DECISION_ALLOW);
	ck_assert_str_eq(m.rule, "read");
	ck_assert(ws_policy_may_refuse_below(p, "/w"));
	ws_policy_free(p);
}
END_TEST

/* Where a refusing rule for read or write may match (the policy's view
 * in wsrun walks only there); a catch-all is the default, not counted. */

/* ---- The glob prefilter: the same answers as PCRE2 alone ---------------- */

/* The variables the shipped policies name, as a workspace would set them. */
static void
pf_vars(struct ws_vars *v)
{
	ws_vars_init(v);
	ck_assert_int_eq(ws_vars_set(v, "HOME", "/home/u"), 0);
	ck_assert_int_eq(ws_vars_set(v, "PROJECT_ROOT", "/home/u/p"), 0);
	ck_assert_int_eq(ws_vars_set(v, "WORKSPACE", "/home/u/p"), 0);
	ck_assert_int_eq(ws_vars_set(v, "TMPDIR", "/tmp"), 0);
}

/* Every string of every "paths" array of the policy file at path, expanded,
 * appended to g (n of them so far); comment lines are skipped. */
static void
pf_policy_globs(const char *path, struct ws_vars *v, char **g, size_t *n,
		size_t max)
{
	char *text = wst_slurp(path, NULL), *p;

	ck_assert_msg(text != NULL, "%s", path);
	for (p = text; (p = strstr(p, "\"paths\"")) != NULL;) {
		char *end = strchr(p, ']');

		ck_assert_ptr_nonnull(end);
		for (p = strchr(p, '['); p < end; p++) {
			char raw[512], *exp = NULL, *q;
			size_t k = 0;

			if (p[0] == '/' && p[1] == '/') {
				p = strchr(p, '\n');
				continue;
			}
			if (*p != '"')
				continue;
			for (q = p + 1; *q != '"' && k + 1 < sizeof(raw); q++)
				raw[k++] = *q;
			raw[k] = '\0';
			p = q;
			ck_assert_int_eq(ws_vars_expand(v, raw, WS_VARS_GLOB, &exp, NULL), 0);
			ck_assert_uint_lt(*n, max);
			g[(*n)++] = exp;
		}
		p = end;
	}
	free(text);
}

/* A random path made of pieces of the globs and of names deny rules name. */
static void
pf_path(char *out, size_t len, char *const *g, size_t ng, unsigned *seed)
{
	static const char *const names[] = {
		".env", ".env.local", ".env.", "env", "x.env", "key.pem", ".pem", "pem",
		"a.pem.bak", "secrets", "secret", "id_rsa", "id_rsa.pub", ".ssh", ".git",
		".hg", "config", "config.json", "hooks", "src", "a", "b", "x", "",
		"*", "?", "[", "\\", "**", ".", "..", "home", "u", "p", "tmp", "é",
	};
	size_t o = 0, depth = (size_t)(rand_r(seed) % 7);
	const size_t nn = sizeof(names) / sizeof(names[0]);

	/* Mostly absolute, as policies see paths; now and then not. */
	if (rand_r(seed) % 16 != 0)
		out[o++] = '/';
	for (size_t d = 0; d < depth && o + 80 < len; d++) {
		const char *piece;
		char cut[64];

		if (d > 0 || o > 0)
			out[o++] = '/';
		if (rand_r(seed) % 3 == 0) {
			/* A component of a glob, its wildcards turned into text. */
			const char *src = g[(size_t)rand_r(seed) % ng], *c = src;
			size_t want = (size_t)rand_r(seed) % 8, k = 0;

			while (want-- > 0 && (c = strchr(c, '/')) != NULL)
				c++;
			if (c == NULL)
				c = src;
			while (*c == '/')
				c++;
			for (; *c && *c != '/' && k + 2 < sizeof(cut); c++)
				if (*c == '*' || *c == '?')
					cut[k++] = rand_r(seed) % 2 ? 'z' : '.';
				else if (*c != '\\')
					cut[k++] = *c;
			cut[k] = '\0';
			piece = cut;
		} else {
			piece = names[(size_t)rand_r(seed) % nn];
		}
		o += (size_t)snprintf(out + o, len - o, "%s", piece);
	}
	/* And a name that ends like one a rule names. */
	if (rand_r(seed) % 4 == 0 && o + 16 < len)
		o += (size_t)snprintf(out + o, len - o, "%s",
				      names[(size_t)rand_r(seed) % nn]);
	out[o] = '\0';
}

/*
 * ws_glob_match() answers most paths from a glob's literal prefix and
 * literal tail ("/.env" of "**" "/.env") without PCRE2.  For every path
 * of the shipped policies, of ws-policy(5)'s examples and of the rule
 * shapes it describes, random paths built from their pieces get the same
 * answer from the prefiltered glob as from PCRE2 alone (WS_GLOB_REGEX),
 * and some of them match (so that the comparison is not of two "no"s).
 */
START_TEST(glob_prefilter_same_answers)
{
	static const char *const shapes[] = {
		/* ws-policy(5) and the tests' deny rules. */
		"**/.env", "**/.env.*", "**/*.pem", "**/id_rsa*", "/a/b/**", "/x/*",
		"${PROJECT_ROOT}/src/**", "${PROJECT_ROOT}/secrets",
		"${PROJECT_ROOT}/secrets/**", "${PROJECT_ROOT}/**/.env",
		"${HOME}/.config/**", "${HOME}/.config/myapp/**", "**/.git/",
		"**/.hg/", "**/.jj/", "**/.sl/", "**/.envrc", "**/.git/hooks/**",
		"${PROJECT_ROOT}/a**b", "${PROJECT_ROOT}/*/x.key", "**/secret?",
		"**/\\*.txt", "**/a\\?", "**/[Ss]ecrets/**", "**/*.[pP][eE][mM]",
		"**/[!.]env", "/**/.env", "**", "/**", "**/", "*/.env", "**/.e*v",
		"${PROJECT_ROOT}/**/secrets/*.json", "**/.env.local",
	};
	const char *files[] = {"ci.json", "dev-safe.json", "read-only.json"};
	char *g[256];
	size_t ng = 0, hits = 0;
	struct ws_vars v;
	unsigned seed = 20261128;

	pf_vars(&v);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[1024];

		snprintf(path, sizeof(path), "%s/%s", WS_POLICIES_SOURCE, files[i]);
		pf_policy_globs(path, &v, g, &ng, 200);
	}
	ck_assert_uint_gt(ng, 30);
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		ck_assert_int_eq(ws_vars_expand(&v, shapes[i], WS_VARS_GLOB, &g[ng++],
						NULL), 0);
	for (size_t i = 0; i < ng; i++) {
		struct ws_glob *fast = NULL, *ref = NULL;

		ck_assert_msg(ws_glob_compile(g[i], WS_GLOB_LAZY, &fast, NULL) == 0,
			      "%s: %s", g[i], ws_error_last());
		ck_assert_int_eq(ws_glob_compile(g[i], WS_GLOB_REGEX, &ref, NULL), 0);
		for (int k = 0; k < 3000; k++) {
			char p[1024];
			int a, b;

			pf_path(p, sizeof(p), g, ng, &seed);
			a = ws_glob_match(fast, p, strlen(p));
			b = ws_glob_match(ref, p, strlen(p));
			ck_assert_msg(a == b, "%s on %s: prefiltered %d, PCRE2 %d",
				      g[i], p, a, b);
			hits += a == 1;
		}
		ws_glob_free(fast);
		ws_glob_free(ref);
	}
	ck_assert_uint_gt(hits, 1000);
	for (size_t i = 0; i < ng; i++)
		free(g[i]);
	ws_vars_free(&v);
}
END_TEST

START_TEST(may_refuse_below)
{
	struct ws_policy *p = parse_ok(RULE(
		"{\"name\":\"deny-secret\",\"paths\":[\"${PROJECT_ROOT}/secret/**\"],"
		" \"operations\":[\"read\"],\"decision\":\"deny\"},"
		"{\"name\":\"approve-del\",\"paths\":[\"/elsewhere/**\"],"
		" \"operations\":[\"delete\"],\"decision\":\"approve\"},"
		"{\"name\":\"default-deny\",\"paths\":[\"**\"],\"operations\":[\"*\"],"
		" \"decision\":\"deny\"}"));

	ck_assert(ws_policy_may_refuse_below(p, "/w/proj"));
	ck_assert(ws_policy_may_refuse_below(p, "/w"));
	ck_assert(ws_policy_may_refuse_below(p, "/w/proj/secret/x"));
	ck_assert(!ws_policy_may_refuse_below(p, "/w/other"));
	ck_assert(!ws_policy_may_refuse_below(p, "/elsewhere"));
	ck_assert(ws_policy_catch_all("**"));
	ck_assert(ws_policy_catch_all("/**"));
	ck_assert(!ws_policy_catch_all("/w/**"));
	ws_policy_free(p);
}
END_TEST

/*
 * Everything below a directory refused for one operation: a "D/" + "**"
 * deny or approve rule covering it decides, unless an allow rule before
 * it could match below; the default and catch-alls never count.
 */
START_TEST(refuses_all_below)
{
	struct ws_policy *p = parse_ok(RULE(
		"{\"name\":\"ok\",\"paths\":[\"/w/proj/bin/ok.sh\"],"
		" \"operations\":[\"exec\"],\"decision\":\"allow\"},"
		"{\"name\":\"no-bin\",\"paths\":[\"/w/proj/bin/**\", \"/w/proj/tools/**\"],"
		" \"operations\":[\"exec\"],\"decision\":\"deny\"},"
		"{\"name\":\"ask\",\"paths\":[\"/w/other/**\"],"
		" \"operations\":[\"exec\"],\"decision\":\"approve\"},"
		"{\"name\":\"rest\",\"paths\":[\"**\"],\"operations\":[\"*\"],"
		" \"decision\":\"deny\"}"));

	/* An earlier allow rule names a file in it. */
	ck_assert(!ws_policy_refuses_all_below(p, WS_OP_EXEC, "/w/proj/bin", false));
	ck_assert(ws_policy_refuses_all_below(p, WS_OP_EXEC, "/w/proj/tools", false));
	ck_assert(ws_policy_refuses_all_below(p, WS_OP_EXEC, "/w/proj/tools/a/b", false));
	ck_assert(ws_policy_refuses_all_below(p, WS_OP_EXEC, "/w/other", false));
	/* Approved (--approve): an approve rule refuses nothing. */
	ck_assert(!ws_policy_refuses_all_below(p, WS_OP_EXEC, "/w/other", true));
	ck_assert(ws_policy_refuses_all_below(p, WS_OP_EXEC, "/w/proj/tools", true));
	/* The rule's directory contains it: not everything below /w/proj. */
	ck_assert(!ws_policy_refuses_all_below(p, WS_OP_EXEC, "/w/proj", false));
	ck_assert(!ws_policy_refuses_all_below(p, WS_OP_EXEC, "/w/proj/toolsX", false));
	/* Only the catch-all for read: the default, not counted. */
	ck_assert(!ws_policy_refuses_all_below(p, WS_OP_READ, "/w/proj/tools", false));
	ck_assert(!ws_policy_refuses_all_below(NULL, WS_OP_EXEC, "/w", false));
	ws_policy_free(p);
	/* A wildcard before the directory (ftu18 01). */
	p = parse_ok(RULE(
		"{\"name\":\"one\",\"paths\":[\"**/bin/*\"],"
		" \"operations\":[\"exec\"],\"decision\":\"deny\"},"
		"{\"name\":\"no-scripts\",\"paths\":[\"**/scripts/**\"],"
		" \"operations\":[\"exec\"],\"decision\":\"deny\"},"
		"{\"name\":\"rest\",\"paths\":[\"**\"],\"operations\":[\"*\"],"
		" \"decision\":\"allow\"}"));
	ck_assert(ws_policy_refuses_all_below(p, WS_OP_EXEC, "/w/proj/scripts", false));
	ck_assert(ws_policy_refuses_all_below(p, WS_OP_EXEC, "/w/proj/scripts/a", false));
	ck_assert(ws_policy_refuses_all_below(p, WS_OP_EXEC, "/scripts", false));
	ck_assert(!ws_policy_refuses_all_below(p, WS_OP_EXEC, "/w/proj", false));
	ck_assert(!ws_policy_refuses_all_below(p, WS_OP_EXEC, "/w/proj/scripts-old", false));
	/* One level only: not everything below. */
	ck_assert(!ws_policy_refuses_all_below(p, WS_OP_EXEC, "/w/proj/bin", false));
	ws_policy_free(p);
}
END_TEST

START_TEST(no_file_rule_matches_denies)
{
	struct ws_policy *p = parse_ok(RULE(
		"{\"name\":\"r\",\"paths\":[\"${PROJECT_ROOT}/**\"],"
		" \"operations\":[\"read\"],\"decision\":\"allow\"}"));
	struct ws_policy_match m;

	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/elsewhere", &m),
			 WS_DECISION_DENY);
	ck_assert_ptr_null(m.rule);
	ck_assert_int_eq(m.index, -1);
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_WRITE, "/w/proj/x", &m),
			 WS_DECISION_DENY);
	ws_policy_free(p);
}
END_TEST

START_TEST(every_operation_parses)
{
	const char *ops[] = {"read", "open", "stat", "list", "readlink", "write",
			     "create", "mkdir", "chmod", "rename", "delete", "rmdir",
			     "exec"};

	for (int i = 0; i < WS__OP_COUNT; i++) {
		char *text;
		struct ws_policy *p;

		ck_assert_int_ne(asprintf(&text, RULE("{\"name\":\"r\",\"paths\":[\"/x\"],"
				 "\"operations\":[\"%s\"],\"decision\":\"allow\"}"), ops[i]), -1);
		p = parse_ok(text);
		for (int j = 0; j < WS__OP_COUNT; j++)
			ck_assert_int_eq(ws_policy_check_file(p, (enum ws_op)j, "/x", NULL),
					 i == j ? WS_DECISION_ALLOW : WS_DECISION_DENY);
		ws_policy_free(p);
		free(text);
		ck_assert_str_eq(ws_op_name((enum ws_op)i), ops[i]);
	}
}
END_TEST

START_TEST(comments_allowed)
{
	struct ws_policy *p = parse_ok(
		"// a policy\n"
		"{ /* block\n comment */ \"version\": 1, // trailing\n"
		"  \"name\": \"c\", \"description\": \"see http://x/*y*/ // z\",\n"
		"  \"file_rules\": [{\"name\": \"r\", \"paths\": [\"/a/**\"], /* why */\n"
		"    \"operations\": [\"read\"], \"decision\": \"allow\"}]}\n");

	ck_assert_str_eq(ws_policy_name(p), "c");
	/* Comment markers inside strings are kept. */
	ck_assert_str_eq(ws_policy_description(p), "see http://x/*y*/ // z");
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/a/b", NULL),
			 WS_DECISION_ALLOW);
	ws_policy_free(p);
	parse_bad("{\"version\": 1 /* open", "unterminated comment", "line 1", NULL);
	parse_bad("{\n\"version\": 1,\n}", "invalid JSON", "line 3", NULL);
}
END_TEST

START_TEST(top_level_errors)
{
	parse_bad("[]", "must be a JSON object", NULL, NULL);
	parse_bad("{}", "\"version\"", "missing", NULL);
	parse_bad("{\"version\": 2}", "field \"version\"", "must be 1", NULL);
	parse_bad("{\"version\": \"1\"}", "field \"version\"", NULL, NULL);
	parse_bad("{\"version\": 1, \"bogus\": 1}", "field \"bogus\"", "unknown key", NULL);
	parse_bad("{\"version\": 1, \"strict\": \"yes\"}", "field \"strict\"",
		  "must be a boolean", NULL);
	parse_bad("{\"version\": 1, \"name\": 5}", "field \"name\"", "must be a string", NULL);
	parse_bad("{\"version\": 1, \"file_rules\": {}}", "file_rules", "must be an array", NULL);
	parse_bad("{\"version\": 1, \"version\": 1}", "duplicate key", NULL, NULL);
}
END_TEST

START_TEST(file_rule_errors_name_rule_and_field)
{
	parse_bad(RULE("{\"name\":\"r1\",\"pathz\":[\"/x\"],\"operations\":[\"read\"],"
		       "\"decision\":\"allow\"}"),
		  "file_rules[0] \"r1\"", "field \"pathz\"", "unknown key");
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":\"/x\",\"operations\":[\"read\"],"
		       "\"decision\":\"allow\"}"),
		  "file_rules[0] \"r1\"", "field \"paths\"", "must be an array");
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[1],\"operations\":[\"read\"],"
		       "\"decision\":\"allow\"}"),
		  "file_rules[0] \"r1\"", "field \"paths\"", "must be a string");
	parse_bad(RULE("{\"name\":\"ok\",\"paths\":[\"/x\"],\"operations\":[\"read\"],\"decision\":\"allow\"},"
		       "{\"name\":\"r2\",\"paths\":[\"/x\"],\"operations\":[\"reed\"],"
		       "\"decision\":\"allow\"}"),
		  "file_rules[1] \"r2\"", "field \"operations\"", "unknown operation \"reed\"");
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[\"/x\"],\"operations\":\"read\","
		       "\"decision\":\"allow\"}"),
		  "file_rules[0] \"r1\"", "field \"operations\"", "must be an array");
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[\"/x\"],\"operations\":[],"
		       "\"decision\":\"allow\"}"),
		  "file_rules[0] \"r1\"", "field \"operations\"", "must not be empty");
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[\"/x\"],\"operations\":[\"read\"],"
		       "\"decision\":\"maybe\"}"),
		  "file_rules[0] \"r1\"", "field \"decision\"", "unknown decision \"maybe\"");
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[\"/x\"],\"operations\":[\"read\"],"
		       "\"decision\":true}"),
		  "file_rules[0] \"r1\"", "field \"decision\"", "must be a string");
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[\"/x\"],\"operations\":[\"read\"],"
		       "\"decision\":\"deny\",\"message\":7}"),
		  "file_rules[0] \"r1\"", "field \"message\"", "must be a string");
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[\"/x\"],\"operations\":[\"read\"],"
		       "\"decision\":\"deny\",\"message\":\"{{.Nope}}\"}"),
		  "file_rules[0] \"r1\"", "field \"message\"", "unknown placeholder");
	parse_bad(RULE("{\"paths\":[\"/x\"],\"operations\":[\"read\"],\"decision\":\"deny\"}"),
		  "file_rules[0]", "field \"name\"", "missing");
	parse_bad(RULE("{\"name\":\"r1\",\"operations\":[\"read\"],\"decision\":\"deny\"}"),
		  "file_rules[0] \"r1\"", "field \"paths\"", "missing");
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[\"/x\"],\"decision\":\"deny\"}"),
		  "file_rules[0] \"r1\"", "field \"operations\"", "missing");
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[\"/x\"],\"operations\":[\"read\"]}"),
		  "file_rules[0] \"r1\"", "field \"decision\"", "missing");
	parse_bad(RULE("\"r1\""), "file_rules[0]", "must be an object", NULL);
	parse_bad(RULE("{\"name\":\"r\",\"paths\":[\"/x\"],\"operations\":[\"read\"],\"decision\":\"deny\"},"
		       "{\"name\":\"r\",\"paths\":[\"/y\"],\"operations\":[\"read\"],\"decision\":\"deny\"}"),
		  "file_rules[1] \"r\"", "duplicate rule name", NULL);
}
END_TEST

START_TEST(path_errors_name_rule_and_field)
{
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[\"/ok\",\"${NOPE_UNDEFINED}/**\"],"
		       "\"operations\":[\"read\"],\"decision\":\"allow\"}"),
		  "file_rules[0] \"r1\"", "field \"paths[1]\"",
		  "undefined variable: NOPE_UNDEFINED");
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[\"${FOO\"],"
		       "\"operations\":[\"read\"],\"decision\":\"allow\"}"),
		  "field \"paths[0]\"", "malformed variable reference", "offset 0");
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[\"/a/[bc\"],"
		       "\"operations\":[\"read\"],\"decision\":\"allow\"}"),
		  "file_rules[0] \"r1\"", "field \"paths[0]\"", "offset");
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[\"src/**\"],"
		       "\"operations\":[\"read\"],\"decision\":\"allow\"}"),
		  "field \"paths[0]\"", "relative", NULL);
	/* A shell's "~": the message says what to write instead. */
	parse_bad(RULE("{\"name\":\"r1\",\"paths\":[\"~/.cache/**\"],"
		       "\"operations\":[\"read\"],\"decision\":\"allow\"}"),
		  "field \"paths[0]\"", "relative", "use ${HOME}");
	/* GIT_ROOT outside git. */
	ck_assert_int_eq(ws_vars_set(&vars, "GIT_ROOT", NULL), 0);
	parse_bad(RULE("{\"name\":\"g\",\"paths\":[\"${GIT_ROOT}/**\"],"
		       "\"operations\":[\"read\"],\"decision\":\"allow\"}"),
		  "file_rules[0] \"g\"", "undefined variable: GIT_ROOT", NULL);
}
END_TEST

START_TEST(variables_expand_before_globs)
{
	struct ws_policy *p;

	ck_assert_int_eq(ws_vars_set(&vars, "GIT_ROOT", NULL), 0);
	p = parse_ok(RULE(
		"{\"name\":\"git\",\"paths\":[\"${GIT_ROOT:-}\"],\"operations\":[\"read\"],\"decision\":\"allow\"},"
		"{\"name\":\"ws\",\"paths\":[\"${WORKSPACE}/**\"],\"operations\":[\"read\"],\"decision\":\"allow\"},"
		"{\"name\":\"home\",\"paths\":[\"${HOME}/.gitconfig\"],\"operations\":[\"read\"],\"decision\":\"allow\"},"
		"{\"name\":\"tmp\",\"paths\":[\"${TMPDIR:-/tmp}/**\"],\"operations\":[\"read\"],\"decision\":\"allow\"}"));
	struct ws_policy_match m;

	/* "${GIT_ROOT:-}" alone is empty: it matches nothing, not "/". */
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/w/proj/sub/f", &m),
			 WS_DECISION_ALLOW);
	ck_assert_str_eq(m.rule, "ws");
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/home/u/.gitconfig", &m),
			 WS_DECISION_ALLOW);
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/tmp/x", &m),
			 WS_DECISION_ALLOW);
	ws_policy_free(p);
	/* And USER_HOME where the password database's home is another
	 * directory than HOME's (review23 07: ${HOME} rules name both). */
	ck_assert_uint_eq(vars.nused, ws_vars_get(&vars, "USER_HOME") != NULL ? 5 : 4);
}
END_TEST

START_TEST(root_project_and_special_chars)
{
	struct ws_policy *p;

	/* PROJECT_ROOT "/" must not make "//" + "**". */
	ck_assert_int_eq(ws_vars_set(&vars, "PROJECT_ROOT", "/"), 0);
	p = parse_ok(RULE("{\"name\":\"r\",\"paths\":[\"${PROJECT_ROOT}/**\"],"
			  "\"operations\":[\"read\"],\"decision\":\"allow\"}"));
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/etc/x", NULL),
			 WS_DECISION_ALLOW);
	ws_policy_free(p);
	/* A project directory with glob characters matches only itself. */
	ck_assert_int_eq(ws_vars_set(&vars, "PROJECT_ROOT", "/w/p[1]*"), 0);
	p = parse_ok(RULE("{\"name\":\"r\",\"paths\":[\"${PROJECT_ROOT}/**\"],"
			  "\"operations\":[\"read\"],\"decision\":\"allow\"}"));
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/w/p[1]*/x", NULL),
			 WS_DECISION_ALLOW);
	ck_assert_int_eq(ws_policy_check_file(p, WS_OP_READ, "/w/p1zz/x", NULL),
			 WS_DECISION_DENY);
	ws_policy_free(p);
}
END_TEST

START_TEST(command_rules)
{
	struct ws_policy *p = parse_ok(
		"{\"version\":1,\"command_rules\":["
		"{\"name\":\"deny-sudo\",\"patterns\":[\"^sudo\\\\b\"],\"decision\":\"deny\"},"
		"{\"name\":\"approve-push\",\"patterns\":[\"^git push\",\"^git\\\\s+push\"],"
		" \"decision\":\"approve\",\"message\":\"push?\"}]}");
	struct ws_policy_match m;

	ck_assert_int_eq(ws_policy_check_command(p, "sudo ls", &m), WS_DECISION_DENY);
	ck_assert_str_eq(m.rule, "deny-sudo");
	ck_assert_str_eq(m.pattern, "^sudo\\b");
	ck_assert_int_eq(ws_policy_check_command(p, "sudoku", &m), WS_DECISION_ALLOW);
	ck_assert_ptr_null(m.rule);
	ck_assert_int_eq(ws_policy_check_command(p, "git  push origin", &m),
			 WS_DECISION_APPROVE);
	ck_assert_str_eq(m.rule, "approve-push");
	ck_assert_str_eq(m.pattern, "^git\\s+push");
	ck_assert_str_eq(m.message, "push?");
	ck_assert_int_eq(ws_policy_check_command(p, "ls -la", NULL), WS_DECISION_ALLOW);
	ws_policy_free(p);
	/* A catch-all deny at the end inverts the default. */
	p = parse_ok("{\"version\":1,\"command_rules\":["
		     "{\"name\":\"ok\",\"patterns\":[\"^make\\\\b\"],\"decision\":\"allow\"},"
		     "{\"name\":\"rest\",\"patterns\":[\"\"],\"decision\":\"deny\"}]}");
	ck_assert_int_eq(ws_policy_check_command(p, "make test", NULL), WS_DECISION_ALLOW);
	ck_assert_int_eq(ws_policy_check_command(p, "ls", NULL), WS_DECISION_DENY);
	ws_policy_free(p);
}
END_TEST

START_TEST(command_rule_errors)
{
	struct ws_policy *p;

	parse_bad("{\"version\":1,\"command_rules\":[{\"name\":\"c\",\"pattern\":[\"x\"],"
		  "\"decision\":\"deny\"}]}",
		  "command_rules[0] \"c\"", "field \"pattern\"", "unknown key");
	parse_bad("{\"version\":1,\"command_rules\":[{\"name\":\"c\",\"patterns\":\"x\","
		  "\"decision\":\"deny\"}]}",
		  "command_rules[0] \"c\"", "field \"patterns\"", "must be an array");
	parse_bad("{\"version\":1,\"command_rules\":[{\"name\":\"c\",\"patterns\":[\"x\"],"
		  "\"decision\":\"nope\"}]}",
		  "command_rules[0] \"c\"", "field \"decision\"", "unknown decision");
	parse_bad("{\"version\":1,\"command_rules\":[{\"name\":\"c\",\"patterns\":[\"x\"]}]}",
		  "command_rules[0] \"c\"", "field \"decision\"", "missing");
	/* Patterns compile on first use; a bad one names rule, field, offset. */
	p = parse_ok("{\"version\":1,\"command_rules\":["
		     "{\"name\":\"ok\",\"patterns\":[\"^a\"],\"decision\":\"deny\"},"
		     "{\"name\":\"bad\",\"patterns\":[\"^b\",\"(unclosed\"],\"decision\":\"deny\"}]}");
	ck_assert_int_eq(ws_policy_check_command(p, "x", NULL), WS_EPOLICY_ERROR);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "command_rules[1] \"bad\""));
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "field \"patterns[1]\""));
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "offset 9"));
	ws_policy_free(p);
}
END_TEST

START_TEST(render)
{
	char *s = ws_policy_render("Delete {{.Path}}? ({{ .Operation }} by {{.Rule}}) {{.X}} {{",
				   "/a b", "delete", "r1");

	ck_assert_str_eq(s, "Delete /a b? (delete by r1) {{.X}} {{");
	free(s);
}
END_TEST

/*
 * What reaches a person is escaped and cut (issue 18, finding 5): the
 * path substituted into a rule's message too, not only the question.
 */
START_TEST(shown_value)
{
	char big[1000], *s;
	bool esc;

	s = ws_shown_value("src/a b.c", WS_SHOWN_MAX, &esc);
	ck_assert_str_eq(s, "src/a b.c");
	ck_assert(!esc);
	free(s);
	s = ws_shown_value("a\r\x1b[2K\n\tb\x7f\xff\xc3\xa9", WS_SHOWN_MAX, &esc);
	ck_assert_str_eq(s, "a\\r\\x1b[2K\\n\\tb\\x7f\\xff\xc3\xa9");
	ck_assert(esc);
	free(s);
	/* C1 controls (U+009B is CSI), bidi overrides, zero widths. */
	s = ws_shown_value("x\xc2\x9b" "1A\xe2\x80\xae" "y\xe2\x80\x8bz\xef\xbb\xbf", 100, NULL);
	ck_assert_str_eq(s, "x\\u009b1A\\u202ey\\u200bz\\ufeff");
	free(s);
	/* Overlong forms and surrogates are not UTF-8. */
	s = ws_shown_value("\xc0\xaf\xed\xa0\x80", 100, NULL);
	ck_assert_str_eq(s, "\\xc0\\xaf\\xed\\xa0\\x80");
	free(s);
	/* Review 6: wide blanks and characters drawn as nothing (a Hangul
	 * filler, the ideographic space, NBSP, a tag character hiding "r",
	 * a variation selector, the combining grapheme joiner). */
	s = ws_shown_value("ls -la \xe3\x85\xa4\xe3\x80\x80\xc2\xa0; rm\xf3\xa0\x81\xb2"
			   "x\xef\xb8\x8f\xcd\x8f", 100, &esc);
	ck_assert_str_eq(s, "ls -la \\u3164\\u3000\\u00a0; rm\\U000e0072x\\ufe0f\\u034f");
	ck_assert(esc);
	free(s);
	s = ws_shown_value("rm          ls", 100, NULL);
	ck_assert_str_eq(s, "rm \xe2\x80\xa6(10 spaces)\xe2\x80\xa6 ls");
	free(s);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	s = ws_shown_value(big, 240, &esc);
	ck_assert_uint_eq(strncmp(s, big, 240), 0);
	ck_assert_str_eq(s + 240, "\xe2\x80\xa6(759 more bytes)");
	ck_assert(esc);
	free(s);
}
END_TEST

START_TEST(question)
{
	struct ws_ask a = {"exec", "rm -rf src\r\x1b[1Als -la", "p", "r",
			   "Run it?\nreally"};
	char *q = ws_policy_question(&a);

	ck_assert_str_eq(q, "Allow command: rm -rf src\\r\\x1b[1Als -la?\n"
			    "Asked by rule \"r\" of policy \"p\": Run it?\\nreally\n"
			    "(The value is shown escaped: control bytes and bytes that "
			    "are not UTF-8 as \\xNN, \\n, \\r, \\t, invisible characters "
			    "and blanks other than the space as \\uNNNN or \\UNNNNNNNN, "
			    "long runs of spaces counted, and anything past "
			    "240 bytes cut.)");
	free(q);
	a = (struct ws_ask){"delete", "/a.txt", NULL, NULL, NULL};
	q = ws_policy_question(&a);
	ck_assert_str_eq(q, "Allow delete: /a.txt?");
	free(q);
	q = ws_policy_render("Delete {{.Path}}?", "/a\x1b[2K\nb", "delete", "r");
	ck_assert_str_eq(q, "Delete /a\\x1b[2K\\nb?");
	free(q);
	/*
	 * Ftu18 07: a message that only asks the question again (dev-safe's
	 * "Delete {{.Path}}?") is left out; one that says more stays.
	 */
	a = (struct ws_ask){"delete", "/src/old.txt", "dev-safe",
			    "approve-project-delete", "Delete /src/old.txt?"};
	q = ws_policy_question(&a);
	ck_assert_str_eq(q, "Allow delete: /src/old.txt?\nAsked by rule "
			    "\"approve-project-delete\" of policy \"dev-safe\"");
	free(q);
	a = (struct ws_ask){"exec", "git push", "dev-safe", "approve-git-push",
			    "git push needs approval"};
	q = ws_policy_question(&a);
	ck_assert_str_eq(q, "Allow command: git push?\nAsked by rule "
			    "\"approve-git-push\" of policy \"dev-safe\": git push "
			    "needs approval");
	free(q);
}
END_TEST

/* HOME's persistence places (ws/persist.h): in, held, and neither. */
START_TEST(home_persist)
{
	ck_assert_str_eq(ws_home_persist_in("/h", "/h/.config/systemd/user/x.service"),
			 ".config/systemd/");
	ck_assert_str_eq(ws_home_persist_in("/h", "/h/.bashrc"), ".bashrc");
	ck_assert_ptr_null(ws_home_persist_in("/h", "/h/.bashrc.d0/x"));
	ck_assert_ptr_null(ws_home_persist_in("/h", "/h/.config/myapp/x"));
	ck_assert_ptr_null(ws_home_persist_in("/h", "/other/.bashrc"));
	ck_assert_ptr_null(ws_home_persist_in(NULL, "/h/.bashrc"));
	/* A grant of ~/.config reaches the places in it; ~/.cache
	 * pre-commit's hooks (review16 01), ~/.cache/pip none. */
	ck_assert_ptr_nonnull(ws_home_persist_reached("/h", "/h/.config"));
	ck_assert_ptr_nonnull(ws_home_persist_reached("/h", "/h/.local"));
	ck_assert_str_eq(ws_home_persist_reached("/h", "/h/.config/git/sub"), ".config/git/");
	ck_assert_str_eq(ws_home_persist_reached("/h", "/h/.cache"), ".cache/pre-commit/");
	ck_assert_ptr_null(ws_home_persist_reached("/h", "/h/.cache/pip"));
	ck_assert_ptr_null(ws_home_persist_reached("/h", "/h/.config/myapp"));
	ck_assert_ptr_null(ws_home_persist_reached("/h", "/h/.local/share/myapp"));
}
END_TEST

START_TEST(log_quote)
{
	char *q;

	q = ws_log_quote("/plain/path");
	ck_assert_str_eq(q, "/plain/path");
	free(q);
	q = ws_log_quote("/a b\"c\n");
	ck_assert_str_eq(q, "\"/a b\\\"c\\x0a\"");
	free(q);
	q = ws_log_quote("");
	ck_assert_str_eq(q, "\"\"");
	free(q);
}
END_TEST

/* ---- The gate ---- */

static int log_lines;
static char last_log[512];
static int prompts;
static bool prompt_answer;

static void
test_log(void *arg, const char *level, const char *line)
{
	(void)arg;
	log_lines++;
	snprintf(last_log, sizeof(last_log), "%s %s", level, line);
}

static bool
test_prompt(void *arg, const char *message)
{
	(void)arg;
	(void)message;
	prompts++;
	return prompt_answer;
}

/*
 * A search's workers check reads of one context at once, without a lock
 * (lib/grep.c without a policy): the history and HOME's state directory
 * reached through a link (~/.local -> elsewhere) are found by the first
 * check, and a thread racing with it must not see the context resolved
 * while the answer is still missing (it read the journal then).  Each
 * thread must be refused, every round; under -Db_sanitize=thread the
 * unpublished fields were also reported as a data race.
 */
struct alias_arg {
	struct ws_ctx *ws;
	pthread_barrier_t *bar;
	const char *in_alias, *in_hist;
	int rc_alias, rc_hist;
};

static void *
alias_run(void *p)
{
	struct alias_arg *a = p;

	pthread_barrier_wait(a->bar);
	a->rc_alias = ws_check(a->ws, WS_OP_READ, a->in_alias, "/x");
	a->rc_hist = ws_check(a->ws, WS_OP_READ, a->in_hist, "/y");
	/* The thread's last error, which lives in its own storage. */
	ws_error_clear();
	return NULL;
}

START_TEST(state_alias_concurrent_first_checks)
{
	enum { THREADS = 6, ROUNDS = 40 };
	char *home = wst_path(tmp, "home"), *dot = wst_path(tmp, "dot");
	char *link = wst_path(home, ".local"), *st, *hist, *in_alias, *in_hist;
	char *base, *real;

	ck_assert_int_eq(mkdir(home, 0700), 0);
	ck_assert_int_eq(mkdir(dot, 0700), 0);
	ck_assert_int_ne(asprintf(&st, "%s/state", dot), -1);
	ck_assert_int_eq(mkdir(st, 0700), 0);
	free(st);
	ck_assert_int_ne(asprintf(&st, "%s/state/wstools", dot), -1);
	ck_assert_int_eq(mkdir(st, 0700), 0);
	ck_assert_int_eq(symlink(dot, link), 0);
	real = realpath(st, NULL);
	ck_assert_ptr_nonnull(real);
	ck_assert_int_ne(asprintf(&in_alias, "%s/journal", real), -1);
	free(real);
	/* The history's directory elsewhere, named through a link. */
	hist = wst_path(tmp, "hreal");
	ck_assert_int_eq(mkdir(hist, 0700), 0);
	real = realpath(hist, NULL);
	ck_assert_ptr_nonnull(real);
	ck_assert_int_ne(asprintf(&in_hist, "%s/objects", real), -1);
	free(hist);
	hist = wst_path(tmp, "hlink");
	ck_assert_int_eq(symlink(real, hist), 0);
	ck_assert_int_ne(asprintf(&base, "%s/ws", hist), -1);
	setenv("HOME", home, 1);
	for (int round = 0; round < ROUNDS; round++) {
		struct ws_ctx ws;
		struct alias_arg a[THREADS];
		pthread_t t[THREADS];
		pthread_barrier_t bar;

		ck_assert_int_eq(ws_ctx_open(&ws, tmp, 0), 0);
		ck_assert_int_eq(ws_hist_guard(&ws, base), 0);
		pthread_barrier_init(&bar, NULL, THREADS);
		for (int k = 0; k < THREADS; k++) {
			a[k] = (struct alias_arg){&ws, &bar, in_alias, in_hist, 0, 0};
			ck_assert_int_eq(pthread_create(&t[k], NULL, alias_run, &a[k]), 0);
		}
		for (int k = 0; k < THREADS; k++)
			pthread_join(t[k], NULL);
		pthread_barrier_destroy(&bar);
		for (int k = 0; k < THREADS; k++) {
			ck_assert_msg(a[k].rc_alias == WS_EPOLICY_DENIED,
				      "round %d thread %d read the state directory "
				      "through its alias (%d)", round, k, a[k].rc_alias);
			ck_assert_int_eq(a[k].rc_hist, WS_EPOLICY_DENIED);
		}
		ws_ctx_close(&ws);
	}
	free(base);
	free(in_hist);
	free(in_alias);
	free(real);
	free(hist);
	free(st);
	free(link);
	free(dot);
	free(home);
}
END_TEST

START_TEST(gate)
{
	struct ws_ctx ws;
	char *text;

	ck_assert_int_eq(ws_ctx_open(&ws, tmp, 0), 0);
	/* No policy: everything is allowed. */
	ck_assert_int_eq(ws_check(&ws, WS_OP_DELETE, "/anything", "/x"), 0);
	ck_assert_int_eq(ws_vars_set(&vars, "PROJECT_ROOT", tmp), 0);
	ck_assert_int_ne(asprintf(&text, RULE(
		"{\"name\":\"deny-keys\",\"paths\":[\"${PROJECT_ROOT}/keys/**\"],"
		" \"operations\":[\"*\"],\"decision\":\"deny\",\"message\":\"no {{.Operation}} of {{.Path}}\"},"
		"{\"name\":\"approve-del\",\"paths\":[\"${PROJECT_ROOT}/**\"],"
		" \"operations\":[\"delete\"],\"decision\":\"approve\",\"message\":\"Delete {{.Path}}?\"},"
		"{\"name\":\"read\",\"paths\":[\"${PROJECT_ROOT}/**\"],"
		" \"operations\":[\"read\"],\"decision\":\"allow\"}")), -1);
	ck_assert_int_eq(ws_policy_parse(text, "gate.json", &vars, &ws.policy), 0);
	free(text);
	text = wst_path(tmp, "a.txt");
	ck_assert_int_eq(ws_check(&ws, WS_OP_READ, text, "/a.txt"), 0);
	/* No rule for write: denied, naming the policy and that no rule matched. */
	ck_assert_int_eq(ws_check(&ws, WS_OP_WRITE, text, "/a.txt"), WS_EPOLICY_DENIED);
	ck_assert_str_eq(ws_error_last_path(), "/a.txt");
	ck_assert_ptr_nonnull(strstr(ws_error_last(),
				     "write denied by policy \"gate\": no file rule matches"));
	/* approve without --approve, with it, and at a prompt. */
	ck_assert_int_eq(ws_check(&ws, WS_OP_DELETE, text, "/a.txt"), WS_EAPPROVAL_REQUIRED);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "Delete /a.txt?"));
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "approve-del"));
	ws.approve = true;
	ck_assert_int_eq(ws_check(&ws, WS_OP_DELETE, text, "/a.txt"), 0);
	ws.approve = false;
	ws_policy_set_hooks(ws.policy, test_log, test_prompt, NULL);
	prompt_answer = false;
	ck_assert_int_eq(ws_check(&ws, WS_OP_DELETE, text, "/a.txt"), WS_EAPPROVAL_REQUIRED);
	ck_assert_int_eq(prompts, 1);
	prompt_answer = true;
	ck_assert_int_eq(ws_check(&ws, WS_OP_DELETE, text, "/a.txt"), 0);
	ck_assert_int_eq(prompts, 2);
	/* A deny is never asked about, --approve or not. */
	free(text);
	text = wst_path(tmp, "keys/id");
	ws.approve = true;
	log_lines = 0;
	ck_assert_int_eq(ws_check(&ws, WS_OP_READ, text, "/keys/id"), WS_EPOLICY_DENIED);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "no read of /keys/id"));
	ck_assert_int_eq(prompts, 2);
	ck_assert_int_eq(log_lines, 1);
	ck_assert_ptr_nonnull(strstr(last_log, "INFO policy decision op=read path="));
	ck_assert_ptr_nonnull(strstr(last_log, "rule=deny-keys decision=deny"));
	free(text);
	ws_ctx_close(&ws); /* frees the policy */
}
END_TEST

/*
 * Views of one prepared policy (what a server's calls share): each has
 * its own hooks, and freeing them leaves the policy whole.
 */
START_TEST(views)
{
	struct ws_ctx ws;
	struct ws_policy *p, *v1, *v2;
	char *text, *file;

	ck_assert_int_eq(ws_ctx_open(&ws, tmp, 0), 0);
	ck_assert_int_eq(ws_vars_set(&vars, "PROJECT_ROOT", tmp), 0);
	ck_assert_int_ne(asprintf(&text, "{\"version\":1,\"file_rules\":["
		"{\"name\":\"approve-del\",\"paths\":[\"${PROJECT_ROOT}/**\"],"
		" \"operations\":[\"delete\"],\"decision\":\"approve\"},"
		"{\"name\":\"rest\",\"paths\":[\"**\"],\"operations\":[\"*\"],"
		" \"decision\":\"allow\"}],\"command_rules\":[{\"name\":\"no-sudo\","
		" \"patterns\":[\"^sudo\\\\b\"],\"decision\":\"deny\"}]}"), -1);
	ck_assert_int_eq(ws_policy_parse(text, "views.json", &vars, &p), 0);
	free(text);
	ck_assert_int_eq(ws_policy_prepare(p), 0);
	v1 = ws_policy_view(p);
	v2 = ws_policy_view(p);
	ck_assert_ptr_nonnull(v1);
	ck_assert_ptr_nonnull(v2);
	ws_policy_set_hooks(v1, NULL, test_prompt, NULL);
	file = wst_path(tmp, "a.txt");
	prompts = 0;
	prompt_answer = true;
	ws.policy = v1;
	ck_assert_int_eq(ws_check(&ws, WS_OP_DELETE, file, "/a.txt"), 0);
	ck_assert_int_eq(prompts, 1);
	/* The other view has no prompt of its own. */
	ws.policy = v2;
	ck_assert_int_eq(ws_check(&ws, WS_OP_DELETE, file, "/a.txt"), WS_EAPPROVAL_REQUIRED);
	ck_assert_int_eq(prompts, 1);
	ws_policy_free(v1);
	ck_assert_int_eq(ws_check(&ws, WS_OP_READ, file, "/a.txt"), 0);
	ws.policy = NULL;
	ws_policy_free(v2);
	ck_assert_str_eq(ws_policy_name(p), "views");
	ck_assert_int_eq((int)ws_policy_nfile_rules(p), 2);
	ws_policy_free(p);
	free(file);
	ws_ctx_close(&ws);
}
END_TEST

/* ---- Finding policies ---- */

START_TEST(find)
{
	char *path = NULL, *dir = wst_path(tmp, "mine");

	/* A file: a "/" or a .json suffix. */
	ck_assert_int_eq(ws_policy_find("./x", NULL, &path), 0);
	ck_assert_str_eq(path, "./x");
	free(path);
	ck_assert_int_eq(ws_policy_find("x.json", NULL, &path), 0);
	ck_assert_str_eq(path, "x.json");
	free(path);
	/* A name: the source tree's, since this test runs from the build tree. */
	ck_assert_int_eq(ws_policy_find("dev-safe", NULL, &path), 0);
	ck_assert_str_eq(path, WS_POLICIES_SOURCE "/dev-safe.json");
	free(path);
	/* The configured directory comes first. */
	wst_write(tmp, "mine/dev-safe.json", "{\"version\":1}");
	ck_assert_int_eq(ws_policy_find("dev-safe", dir, &path), 0);
	ck_assert_ptr_nonnull(strstr(path, "/mine/dev-safe.json"));
	free(path);
	ck_assert_int_eq(ws_policy_find("nope", dir, &path), WS_EPOLICY_ERROR);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "no such policy"));
	ck_assert_ptr_nonnull(strstr(ws_error_last(), WS_POLICIES_INSTALLED));
	ck_assert_int_eq(ws_policy_find("", NULL, &path), WS_EPOLICY_ERROR);
	ck_assert_int_eq(ws_policy_find(".hidden", NULL, &path), WS_EPOLICY_ERROR);
	free(dir);
}
END_TEST

START_TEST(load_errors)
{
	struct ws_policy *p = NULL;
	char *f = wst_path(tmp, "missing.json");

	ck_assert_int_eq(ws_policy_load(f, NULL, &vars, &p), WS_EPOLICY_ERROR);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "cannot read"));
	free(f);
	wst_mkfifo(tmp, "fifo.json");
	f = wst_path(tmp, "fifo.json");
	ck_assert_int_eq(ws_policy_load(f, NULL, &vars, &p), WS_EPOLICY_ERROR);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "not a regular file"));
	free(f);
	wst_write(tmp, "named.json", "{\"version\":1,\"strict\":true}");
	f = wst_path(tmp, "named.json");
	ck_assert_int_eq(ws_policy_load(f, NULL, &vars, &p), 0);
	ck_assert_str_eq(ws_policy_name(p), "named");
	ck_assert_str_eq(ws_policy_path(p), f);
	ck_assert(ws_policy_strict(p));
	ws_policy_free(p);
	free(f);
}
END_TEST

/* ---- The shipped policies ---- */

static struct ws_policy *
shipped(const char *name)
{
	struct ws_policy *p = NULL;
	int rc = ws_policy_load(name, NULL, &vars, &p);

	ck_assert_msg(rc == 0, "%s: %s", name, ws_error_last());
	return p;
}

static enum ws_decision
d(struct ws_policy *p, enum ws_op op, const char *path, const char **rule)
{
	struct ws_policy_match m;
	enum ws_decision r = ws_policy_check_file(p, op, path, &m);

	if (rule != NULL)
		*rule = m.rule;
	return r;
}

START_TEST(shipped_dev_safe)
{
	struct ws_policy *p = shipped("dev-safe");
	const char *rule;

	ck_assert_int_eq(d(p, WS_OP_READ, "/w/proj/a.c", &rule), WS_DECISION_ALLOW);
	ck_assert_str_eq(rule, "allow-project-read");
	ck_assert_int_eq(d(p, WS_OP_LIST, "/w/proj", NULL), WS_DECISION_ALLOW);
	ck_assert_int_eq(d(p, WS_OP_WRITE, "/w/proj/a.c", NULL), WS_DECISION_ALLOW);
	ck_assert_int_eq(d(p, WS_OP_CREATE, "/w/proj/new", NULL), WS_DECISION_ALLOW);
	ck_assert_int_eq(d(p, WS_OP_DELETE, "/w/proj/a.c", &rule), WS_DECISION_APPROVE);
	ck_assert_str_eq(rule, "approve-project-delete");
	ck_assert_int_eq(d(p, WS_OP_RMDIR, "/w/proj/d", NULL), WS_DECISION_APPROVE);
	/* The project root itself cannot be written or deleted. */
	ck_assert_int_eq(d(p, WS_OP_RMDIR, "/w/proj", NULL), WS_DECISION_DENY);
	/* Sibling projects in the repository: read only. */
	ck_assert_int_eq(d(p, WS_OP_READ, "/w/other/x", &rule), WS_DECISION_ALLOW);
	ck_assert_str_eq(rule, "allow-git-root-read");
	ck_assert_int_eq(d(p, WS_OP_WRITE, "/w/other/x", NULL), WS_DECISION_DENY);
	/* Home: .gitconfig readable, keys never. */
	ck_assert_int_eq(d(p, WS_OP_READ, "/home/u/.gitconfig", NULL), WS_DECISION_ALLOW);
	ck_assert_int_eq(d(p, WS_OP_WRITE, "/home/u/.gitconfig", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_READ, "/home/u/.ssh/id_rsa", &rule), WS_DECISION_DENY);
	ck_assert_str_eq(rule, "deny-ssh-keys");
	ck_assert_int_eq(d(p, WS_OP_LIST, "/home/u/.ssh", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_READ, "/home/u/.aws/credentials", &rule), WS_DECISION_DENY);
	ck_assert_str_eq(rule, "deny-credentials");
	ck_assert_int_eq(d(p, WS_OP_READ, "/home/u/.netrc", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_READ, "/home/u/.gnupg/k", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_READ, "/home/u/.config/gh/hosts.yml", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_READ, "/home/u/.config/git/config", NULL), WS_DECISION_ALLOW);
	ck_assert_int_eq(d(p, WS_OP_WRITE, "/tmp/scratch", NULL), WS_DECISION_ALLOW);
	ck_assert_int_eq(d(p, WS_OP_READ, "/etc/passwd", &rule), WS_DECISION_DENY);
	ck_assert_str_eq(rule, "default-deny");
	ck_assert_int_eq(ws_policy_check_command(p, "sudo rm x", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(ws_policy_check_command(p, "rm -rf /", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(ws_policy_check_command(p, "rm -rf ./build", NULL), WS_DECISION_ALLOW);
	ck_assert_int_eq(ws_policy_check_command(p, "git push origin main", NULL),
			 WS_DECISION_APPROVE);
	ck_assert_int_eq(ws_policy_check_command(p, "make test", NULL), WS_DECISION_ALLOW);
	ws_policy_free(p);
}
END_TEST

START_TEST(shipped_dev_safe_secrets_first)
{
	/* The project is $HOME itself: the keys stay denied all the same. */
	struct ws_policy *p;

	ck_assert_int_eq(ws_vars_set(&vars, "PROJECT_ROOT", "/home/u"), 0);
	p = shipped("dev-safe");
	ck_assert_int_eq(d(p, WS_OP_READ, "/home/u/.ssh/id_rsa", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_WRITE, "/home/u/.ssh/authorized_keys", NULL),
			 WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_READ, "/home/u/notes.txt", NULL), WS_DECISION_ALLOW);
	ws_policy_free(p);
}
END_TEST

START_TEST(shipped_dev_safe_outside_git)
{
	/* Outside git the repository rule must not become "/" + "**". */
	struct ws_policy *p;

	ck_assert_int_eq(ws_vars_set(&vars, "GIT_ROOT", NULL), 0);
	p = shipped("dev-safe");
	ck_assert_int_eq(d(p, WS_OP_READ, "/etc/passwd", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_READ, "/w/other/x", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_READ, "/w/proj/x", NULL), WS_DECISION_ALLOW);
	ws_policy_free(p);
}
END_TEST

START_TEST(shipped_read_only)
{
	struct ws_policy *p = shipped("read-only");
	enum ws_op ok[] = {WS_OP_READ, WS_OP_OPEN, WS_OP_STAT, WS_OP_LIST, WS_OP_READLINK};
	enum ws_op no[] = {WS_OP_WRITE, WS_OP_CREATE, WS_OP_MKDIR, WS_OP_CHMOD,
			   WS_OP_RENAME, WS_OP_DELETE, WS_OP_RMDIR, WS_OP_EXEC};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_int_eq(d(p, ok[i], "/w/proj/a", NULL), WS_DECISION_ALLOW);
		ck_assert_int_eq(d(p, ok[i], "/w/proj", NULL), WS_DECISION_ALLOW);
		ck_assert_int_eq(d(p, ok[i], "/w/elsewhere", NULL), WS_DECISION_DENY);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ck_assert_int_eq(d(p, no[i], "/w/proj/a", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_READ, "/tmp/x", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(ws_policy_check_command(p, "ls", NULL), WS_DECISION_DENY);
	ws_policy_free(p);
}
END_TEST

START_TEST(shipped_ci)
{
	struct ws_policy *p = shipped("ci");
	const char *net[] = {"curl https://x", "wget x", "nc -l 1", "ssh host",
			     "scp a b:", "/usr/bin/curl x", "make && curl x",
			     "echo $(curl x)", "git push", "git clone u", "npm install",
			     "pip install x", "rsync a b:"};
	const char *fine[] = {"make test", "go build ./...", "npm test", "git status",
			      "cat curlrc", "echo ncurses", "git log --oneline",
			      "./configure --with-ssl"};

	ck_assert_int_eq(d(p, WS_OP_WRITE, "/w/proj/a", NULL), WS_DECISION_ALLOW);
	ck_assert_int_eq(d(p, WS_OP_EXEC, "/w/proj", NULL), WS_DECISION_ALLOW);
	ck_assert_int_eq(d(p, WS_OP_DELETE, "/w/proj/a", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_RMDIR, "/w/proj/d", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_DELETE, "/tmp/x", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_WRITE, "/tmp/x", NULL), WS_DECISION_ALLOW);
	ck_assert_int_eq(d(p, WS_OP_READ, "/etc/passwd", NULL), WS_DECISION_DENY);
	ck_assert_int_eq(d(p, WS_OP_READ, "/home/u/.ssh/id", NULL), WS_DECISION_DENY);
	for (size_t i = 0; i < sizeof(net) / sizeof(net[0]); i++)
		ck_assert_msg(ws_policy_check_command(p, net[i], NULL) == WS_DECISION_DENY,
			      "%s not denied", net[i]);
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
		ck_assert_msg(ws_policy_check_command(p, fine[i], NULL) == WS_DECISION_ALLOW,
			      "%s denied", fine[i]);
	ck_assert_int_eq(ws_policy_check_command(p, "rm -f a", NULL), WS_DECISION_DENY);
	ws_policy_free(p);
}
END_TEST

/* ---- Cost ---- */

START_TEST(fifty_rules_load_fast)
{
	/* A 50-rule policy in the shapes real ones use, loaded 200 times. */
	char *text = NULL;
	size_t cap = 0;
	FILE *f = open_memstream(&text, &cap);
	struct timespec t0, t1;
	double per;

	fprintf(f, "{\"version\":1,\"file_rules\":[");
	for (int i = 0; i < 50; i++)
		fprintf(f, "%s{\"name\":\"r%d\",\"paths\":[\"${PROJECT_ROOT}/d%d/**\","
			"\"${HOME}/.c%d/*.conf\",\"/opt/x%d/[a-c]?/**/f\"],"
			"\"operations\":[\"read\",\"write\"],\"decision\":\"%s\"}",
			i ? "," : "", i, i, i, i, i % 2 ? "allow" : "deny");
	fprintf(f, "]}");
	fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 200; i++) {
		struct ws_policy *p = parse_ok(text);

		ws_policy_free(p);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	per = ((double)(t1.tv_sec - t0.tv_sec) * 1e3 +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e6) / 200;
	fprintf(stderr, "50-rule policy: %.3f ms per load\n", per);
	/* Generous (the benchmark holds the real target, 1 ms a call), and
	 * wider still in sanitizer builds. */
	ck_assert_msg(per < 5.0 * WST_SLOWDOWN, "loading took %.3f ms", per);
	free(text);
}
END_TEST

/* ---- The configuration file (config.c) ---- */

START_TEST(config_parse)
{
	struct ws_config c;

	ws_config_init(&c);
	ck_assert(c.detect_project_root);
	ck_assert_int_eq(c.limits.max_bytes, -1);
	ck_assert_int_eq(ws_config_parse(&c,
		"/* all of it */ {\"policies\": {\"dir\": \"/p\", \"default\": \"dev-safe\",\n"
		"  \"detect_project_root\": false, \"project_markers\": [\".git\", \"BUILD\"]},\n"
		" \"mounts\": [\"/.s=/opt/s:ro\"],\n"
		" \"limits\": {\"max_bytes\": 1024, \"max_entries\": 10, \"max_results\": 5,\n"
		"   \"max_filesize\": 7, \"max_output\": 8, \"max_depth\": 3, \"timeout\": 30,\n"
		"   \"time_budget\": 2, \"scan_bytes\": 4096, \"scan_time\": 9}}",
		"c.json"), 0);
	ck_assert_str_eq(c.policies_dir, "/p");
	ck_assert_str_eq(c.policy_default, "dev-safe");
	ck_assert(!c.detect_project_root);
	ck_assert_uint_eq(c.nmarkers, 2);
	ck_assert_str_eq(c.markers[1], "BUILD");
	ck_assert_uint_eq(c.nmounts, 1);
	ck_assert_str_eq(c.mounts[0], "/.s=/opt/s:ro");
	ck_assert_int_eq(c.limits.max_bytes, 1024);
	ck_assert_int_eq(c.limits.max_entries, 10);
	ck_assert_int_eq(c.limits.max_results, 5);
	ck_assert_int_eq(c.limits.max_filesize, 7);
	ck_assert_int_eq(c.limits.max_output, 8);
	ck_assert_int_eq(c.limits.max_depth, 3);
	ck_assert_int_eq(c.limits.timeout, 30);
	ck_assert_int_eq(c.limits.time_budget, 2);
	ck_assert_int_eq(c.limits.scan_bytes, 4096);
	ck_assert_int_eq(c.limits.scan_time, 9);
	ws_config_free(&c);
}
END_TEST

static void
config_bad(const char *text, const char *needle)
{
	struct ws_config c;

	ws_config_init(&c);
	ck_assert_int_eq(ws_config_parse(&c, text, "c.json"), WS_EINVALID_ARGUMENT);
	ck_assert_msg(strstr(ws_error_last(), needle) != NULL, "%s not in %s", needle,
		      ws_error_last());
	ck_assert_str_eq(ws_error_last_path(), "c.json");
	ws_config_free(&c);
}

START_TEST(config_errors_name_key)
{
	config_bad("{\"limits\": {\"max_bytez\": 1}}", "unknown key \"limits.max_bytez\"");
	config_bad("{\"limits\": {\"max_bytes\": -1}}", "limits.max_bytes");
	config_bad("{\"limits\": {\"max_bytes\": 1.5}}", "limits.max_bytes");
	config_bad("{\"limits\": []}", "\"limits\" must be an object");
	config_bad("{\"policies\": {\"dirr\": \"x\"}}", "unknown key \"policies.dirr\"");
	config_bad("{\"policies\": {\"dir\": 1}}", "policies.dir");
	config_bad("{\"policies\": {\"project_markers\": [\"a/b\"]}}", "not a file name");
	config_bad("{\"mounts\": \"/a=/b\"}", "\"mounts\" must be an array");
	config_bad("{\"extra\": 1}", "unknown key \"extra\"");
	config_bad("{\"mounts\": [], \"mounts\": []}", "duplicate key");
	config_bad("[1]", "must be a JSON object");
	config_bad("{,}", "invalid JSON at line 1");
}
END_TEST

START_TEST(config_load_places)
{
	struct ws_config c;
	char *f = wst_path(tmp, "c.json"), *xdg = wst_path(tmp, "xdg");

	/* Explicit and missing: an error; default and missing: fine. */
	ws_config_init(&c);
	ck_assert_int_eq(ws_config_load(&c, f), WS_EINVALID_ARGUMENT);
	ws_config_free(&c);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	ck_assert_int_eq(ws_config_load(&c, NULL), 0);
	ws_config_free(&c);
	wst_write(tmp, "xdg/wstools/config.json", "{\"policies\": {\"dir\": \"rel\"}}");
	ck_assert_int_eq(ws_config_load(&c, NULL), 0);
	ck_assert_ptr_nonnull(strstr(c.path, "/xdg/wstools/config.json"));
	ck_assert_ptr_nonnull(strstr(c.policies_dir, "/xdg/wstools/rel"));
	ck_assert_int_eq(c.policies_dir[0], '/');
	ws_config_free(&c);
	unsetenv("XDG_CONFIG_HOME");
	free(f);
	free(xdg);
}
END_TEST

/* ---- Grant candidates for wsrun (ws_policy_grants) ---- */

/* The candidate of rule for dir, or NULL. */
static const struct ws_policy_grant *
cand(const struct ws_policy_grant *v, size_t n, const char *rule, const char *dir)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].rule, rule) == 0 && strcmp(v[i].dir, dir) == 0)
			return &v[i];
	return NULL;
}

START_TEST(grant_candidates)
{
	struct ws_policy *p = parse_ok(RULE(
		"{\"name\": \"no-keys\", \"paths\": [\"/srv/data/keys/**\"],"
		" \"operations\": [\"read\"], \"decision\": \"deny\"},"
		"{\"name\": \"no-delete\", \"paths\": [\"**\"],"
		" \"operations\": [\"delete\"], \"decision\": \"deny\"},"
		"{\"name\": \"cache\", \"paths\": [\"/opt/cache/**\", \"${PROJECT_ROOT}/**\"],"
		" \"operations\": [\"read\", \"list\", \"exec\"], \"decision\": \"allow\"},"
		"{\"name\": \"data\", \"paths\": [\"/srv/data/**\"],"
		" \"operations\": [\"read\", \"list\"], \"decision\": \"allow\"},"
		"{\"name\": \"rw\", \"paths\": [\"/srv/rw/**\"],"
		" \"operations\": [\"*\"], \"decision\": \"allow\"},"
		"{\"name\": \"shapes\", \"paths\": [\"/a/*.c\", \"**\", \"/b/**/c\", \"/lit\","
		" \"/e\\\\*/**\"], \"operations\": [\"read\", \"list\"], \"decision\": \"allow\"},"
		"{\"name\": \"bad\", \"paths\": [\"${NOPE:-}/**\", \"/x/../**\", \"/x/./y/**\","
		" \"/x//y/**\"], \"operations\": [\"read\", \"list\"],"
		" \"decision\": \"allow\"},"
		"{\"name\": \"read-only-op\", \"paths\": [\"/r/**\"],"
		" \"operations\": [\"read\"], \"decision\": \"allow\"},"
		"{\"name\": \"after\", \"paths\": [\"/late/**\", \"/srv/rw2/**\"],"
		" \"operations\": [\"*\"], \"decision\": \"allow\"},"
		"{\"name\": \"late-deny\", \"paths\": [\"/late/secret\"],"
		" \"operations\": [\"read\"], \"decision\": \"approve\"},"
		"{\"name\": \"sib\", \"paths\": [\"/srv/x-out/**\", \"/srv/y/**\","
		" \"/srv/z/**\", \"/srv/v/**\"], \"operations\": [\"read\", \"list\"],"
		" \"decision\": \"allow\"},"
		"{\"name\": \"sib-deny\", \"paths\": [\"/srv/x-outside/**\","
		" \"/srv/y/k/**\", \"/srv/z*\", \"/srv/x\", \"/srv/v/key\"],"
		" \"operations\": [\"read\"],"
		" \"decision\": \"deny\"},"
		"{\"name\": \"catch-all\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
		" \"decision\": \"deny\"}"));
	struct ws_policy_grant *v;
	const struct ws_policy_grant *g;
	size_t n;

	ck_assert_int_eq(ws_policy_grants(p, &v, &n), 0);
	/* Read and exec; the project root comes from its variable. */
	g = cand(v, n, "cache", "/opt/cache");
	ck_assert(g != NULL && !g->refused && !g->write && g->exec && g->fd == -1);
	g = cand(v, n, "cache", "/w/proj");
	ck_assert(g != NULL && !g->refused);
	/* A deny rule below, before it. */
	g = cand(v, n, "data", "/srv/data");
	ck_assert(g != NULL && g->refused && strstr(g->why, "no-keys") != NULL);
	/* The reason says how to fix it: an earlier rule can be moved. */
	ck_assert_msg(strstr(g->why, "move this allow rule above rule \"no-keys\", "
			     "or narrow that rule") != NULL, "%s", g->why);
	/* Every operation, but a deny of deletes before it: read only. */
	g = cand(v, n, "rw", "/srv/rw");
	ck_assert(g != NULL && !g->refused && !g->write && g->exec);
	ck_assert(strstr(g->why, "no-delete") != NULL);
	/* Only "D/" + "**" is a directory shape (an escaped star is literal);
	 * the others that name a directory are listed, refused, saying the
	 * shape a grant needs; "**" is not listed. */
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(strcmp(v[i].rule, "shapes") != 0 ||
			      strcmp(v[i].dir, "/e*") == 0 ||
			      (v[i].shape && v[i].refused && !v[i].write &&
			       strstr(v[i].why, "only DIR/** rules") != NULL),
			      "%s", v[i].dir);
	g = cand(v, n, "shapes", "/e*");
	ck_assert(g != NULL && !g->refused && !g->shape);
	g = cand(v, n, "shapes", "/a");
	ck_assert(g != NULL && g->shape && strstr(g->why, "write /a/**") != NULL);
	ck_assert_ptr_nonnull(cand(v, n, "shapes", "/b"));
	ck_assert_ptr_nonnull(cand(v, n, "shapes", "/lit"));
	{
		size_t c = 0;

		for (size_t i = 0; i < n; i++)
			c += strcmp(v[i].rule, "shapes") == 0;
		ck_assert_uint_eq(c, 4);
	}
	/* "/", "..", ".", empty components: refused, said why (a relative
	 * glob is a parse error). */
	g = cand(v, n, "bad", "/");
	ck_assert(g != NULL && g->refused && strstr(g->why, "/ (the whole") != NULL);
	g = cand(v, n, "bad", "/x/..");
	ck_assert(g != NULL && g->refused && strstr(g->why, "\"..\"") != NULL);
	g = cand(v, n, "bad", "/x/./y");
	ck_assert(g != NULL && g->refused);
	/* A doubled slash is one (the policy reads it so), not a trap. */
	ck_assert_ptr_null(cand(v, n, "bad", "/x//y"));
	ck_assert_ptr_nonnull(cand(v, n, "bad", "/x/y"));
	/* Read without list is not enough for a directory grant. */
	g = cand(v, n, "read-only-op", "/r");
	ck_assert(g != NULL && g->refused && g->quiet);
	ck_assert_msg(strstr(g->why, "add \"list\"") != NULL, "%s", g->why);
	g = cand(v, n, "data", "/srv/data");
	ck_assert(g != NULL && !g->quiet);
	/* After the allow rule: a rule naming a path below keeps the grant
	 * off (approve too); a catch-all does not. */
	g = cand(v, n, "after", "/late");
	ck_assert(g != NULL && g->refused && strstr(g->why, "late-deny") != NULL);
	/* A later one cannot be moved away: it names a path inside. */
	ck_assert_msg(strstr(g->why, "later approve rule \"late-deny\" names a "
			     "path inside") != NULL, "%s", g->why);
	g = cand(v, n, "after", "/srv/rw2");
	ck_assert(g != NULL && !g->refused && !g->write); /* no-delete before */
	/* A later rule on a sibling that shares the text ("/srv/x-outside"
	 * or the literal "/srv/x" of "/srv/x-out") does not reach it; one
	 * below it does, and so does
	 * a prefix that is not a whole component yet ("/srv/z*"). */
	g = cand(v, n, "sib", "/srv/x-out");
	ck_assert_msg(g != NULL && !g->refused, "%s", g != NULL ? g->why : "");
	g = cand(v, n, "sib", "/srv/y");
	ck_assert(g != NULL && g->refused && strstr(g->why, "sib-deny") != NULL);
	g = cand(v, n, "sib", "/srv/z");
	ck_assert(g != NULL && g->refused && strstr(g->why, "sib-deny") != NULL);
	/* A literal rule names its one path: "/srv/x" is neither
	 * "/srv/x-out" nor in it (checked above); "/srv/v/key" is in
	 * "/srv/v". */
	g = cand(v, n, "sib", "/srv/v");
	ck_assert(g != NULL && g->refused && strstr(g->why, "sib-deny") != NULL);
	ws_policy_grants_free(v, n);
	ws_policy_free(p);
	/* No policy: nothing. */
	ck_assert_int_eq(ws_policy_grants(NULL, &v, &n), 0);
	ck_assert_uint_eq(n, 0);
}
END_TEST

/*
 * The shipped policies never grant anything in HOME (~/.ssh, ~/.config
 * and the like) by their rules: what is left standing here is only the
 * project, the git root and /tmp, which wsrun's own checks handle
 * (inside or above the workspace; /tmp never).
 */
START_TEST(grant_candidates_shipped)
{
	const char *names[] = {"dev-safe", "ci", "read-only"};

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		struct ws_policy *p = shipped(names[k]);
		struct ws_policy_grant *v;
		size_t n;

		ck_assert_int_eq(ws_policy_grants(p, &v, &n), 0);
		for (size_t i = 0; i < n; i++) {
			if (v[i].refused)
				continue;
			ck_assert_msg(strncmp(v[i].dir, "/home/u", 7) != 0,
				      "%s: %s grants %s", names[k], v[i].rule, v[i].dir);
			ck_assert_msg(strcmp(v[i].dir, "/w/proj") == 0 ||
				      strcmp(v[i].dir, "/w") == 0 ||
				      strcmp(v[i].dir, "/tmp") == 0,
				      "%s: %s grants %s", names[k], v[i].rule, v[i].dir);
		}
		ws_policy_grants_free(v, n);
		ws_policy_free(p);
	}
}
END_TEST

/* network_rules: the shape of command rules with host patterns,
 * variables expanded, flattened in order for the proxy (issue 23). */
START_TEST(network_rules_parse)
{
	struct ws_policy *p;
	struct ws_net_rule r;

	ck_assert_int_eq(ws_vars_set(&vars, "REG", "registry.npmjs.org"), 0);
	p = parse_ok("{\"version\":1,\"name\":\"n\",\"network_rules\":["
		     "{\"name\":\"no-meta\",\"hosts\":[\"169.254.169.254\"],"
		     "\"decision\":\"deny\"},"
		     "{\"name\":\"reg\",\"hosts\":[\"${REG}\",\"*.github.com\"],"
		     "\"decision\":\"allow\"},"
		     "{\"name\":\"ask\",\"hosts\":[\"*\"],\"decision\":\"approve\","
		     "\"message\":\"Reach {{.Path}}?\"}]}");
	ck_assert_uint_eq(ws_policy_nnetwork_rules(p), 4);
	ws_policy_network_rule(p, 0, &r);
	ck_assert_str_eq(r.pattern, "169.254.169.254");
	ck_assert_int_eq(r.decision, WS_NET_DENY);
	ws_policy_network_rule(p, 1, &r);
	ck_assert_str_eq(r.pattern, "registry.npmjs.org");
	ck_assert_str_eq(r.name, "reg");
	ck_assert_str_eq(r.policy, "n");
	ws_policy_network_rule(p, 2, &r);
	ck_assert_str_eq(r.pattern, "*.github.com");
	ws_policy_network_rule(p, 3, &r);
	ck_assert_int_eq(r.decision, WS_NET_APPROVE);
	ck_assert_str_eq(r.message, "Reach {{.Path}}?");
	ws_policy_free(p);
	parse_bad("{\"version\":1,\"network_rules\":[{\"name\":\"x\","
		  "\"hosts\":[\"a b\"],\"decision\":\"allow\"}]}",
		  "network_rules[0]", "hosts", "a b");
	parse_bad("{\"version\":1,\"network_rules\":[{\"name\":\"x\","
		  "\"decision\":\"allow\"}]}", "network_rules[0]", "hosts", "missing");
	parse_bad("{\"version\":1,\"network_rules\":[{\"name\":\"x\","
		  "\"hosts\":[\"${NOPE_UNDEFINED}\"],\"decision\":\"allow\"}]}",
		  "network_rules[0]", "NOPE_UNDEFINED", NULL);
	parse_bad("{\"version\":1,\"network_rules\":[{\"name\":\"x\","
		  "\"patterns\":[\"a\"],\"decision\":\"allow\"}]}",
		  "network_rules[0]", "unknown key", NULL);
}
END_TEST

/* Host patterns: "*.d" is the subdomains only (sandbox-runtime's
 * reading); IP literals match however spelled, never names; the
 * internal address classes the proxy refuses without a rule. */
START_TEST(network_match_and_addresses)
{
	static const char *const internal[] = {
		"127.0.0.1", "127.1.2.3", "10.1.2.3", "172.16.0.1", "172.31.255.255",
		"192.168.1.1", "100.64.0.1", "100.127.255.255", "169.254.169.254",
		"0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1",
		"fc00::1", "fd12::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
		"64:ff9b::a00:1",
	};
	static const char *const external[] = {
		"1.1.1.1", "172.32.0.1", "100.128.0.1", "192.0.2.1", "2606:4700::1111",
		"::ffff:1.1.1.1", "172.15.255.255",
	};

	ck_assert(ws_net_match("*.example.org", "a.example.org"));
	ck_assert(ws_net_match("*.example.org", "A.B.Example.ORG."));
	ck_assert(!ws_net_match("*.example.org", "example.org"));
	ck_assert(!ws_net_match("*.example.org", "badexample.org"));
	ck_assert(ws_net_match("example.org", "EXAMPLE.org"));
	ck_assert(!ws_net_match("example.org", "a.example.org"));
	ck_assert(ws_net_match("*", "anything.test"));
	ck_assert(!ws_net_match("*", "10.0.0.1"));
	ck_assert(ws_net_match("::1", "[0:0::1]"));
	ck_assert(ws_net_match("127.0.0.1", "127.0.0.1"));
	ck_assert(!ws_net_match("127.0.0.1", "127.0.0.2"));
	ck_assert_int_eq(ws_net_pattern_check("*.ok-name.test"), 0);
	ck_assert_int_eq(ws_net_pattern_check("a/b"), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_net_pattern_check("*."), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_net_pattern_check(""), WS_EINVALID_ARGUMENT);
	for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++) {
		struct sockaddr_storage ss = {0};

		if (strchr(internal[i], ':')) {
			ss.ss_family = AF_INET6;
			ck_assert_int_eq(inet_pton(AF_INET6, internal[i],
				&((struct sockaddr_in6 *)&ss)->sin6_addr), 1);
		} else {
			ss.ss_family = AF_INET;
			ck_assert_int_eq(inet_pton(AF_INET, internal[i],
				&((struct sockaddr_in *)&ss)->sin_addr), 1);
		}
		ck_assert_msg(ws_net_addr_internal((struct sockaddr *)&ss), "%s", internal[i]);
	}
	for (size_t i = 0; i < sizeof(external) / sizeof(external[0]); i++) {
		struct sockaddr_storage ss = {0};

		if (strchr(external[i], ':')) {
			ss.ss_family = AF_INET6;
			ck_assert_int_eq(inet_pton(AF_INET6, external[i],
				&((struct sockaddr_in6 *)&ss)->sin6_addr), 1);
		} else {
			ss.ss_family = AF_INET;
			ck_assert_int_eq(inet_pton(AF_INET, external[i],
				&((struct sockaddr_in *)&ss)->sin_addr), 1);
		}
		ck_assert_msg(!ws_net_addr_internal((struct sockaddr *)&ss), "%s", external[i]);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("policy");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, minimal_and_defaults);
	tcase_add_test(tc, first_match_wins);
	tcase_add_test(tc, open_denial_is_a_read_denial);
	tcase_add_test(tc, no_file_rule_matches_denies);
	tcase_add_test(tc, every_operation_parses);
	tcase_add_test(tc, comments_allowed);
	tcase_add_test(tc, top_level_errors);
	tcase_add_test(tc, file_rule_errors_name_rule_and_field);
	tcase_add_test(tc, path_errors_name_rule_and_field);
	tcase_add_test(tc, variables_expand_before_globs);
	tcase_add_test(tc, root_project_and_special_chars);
	tcase_add_test(tc, command_rules);
	tcase_add_test(tc, command_rule_errors);
	tcase_add_test(tc, render);
	tcase_add_test(tc, shown_value);
	tcase_add_test(tc, question);
	tcase_add_test(tc, home_persist);
	tcase_add_test(tc, log_quote);
	tcase_add_test(tc, gate);
	tcase_add_test(tc, state_alias_concurrent_first_checks);
	tcase_add_test(tc, views);
	tcase_add_test(tc, grant_candidates);
	tcase_add_test(tc, grant_candidates_shipped);
	tcase_add_test(tc, find);
	tcase_add_test(tc, load_errors);
	tcase_add_test(tc, shipped_dev_safe);
	tcase_add_test(tc, shipped_dev_safe_secrets_first);
	tcase_add_test(tc, shipped_dev_safe_outside_git);
	tcase_add_test(tc, shipped_read_only);
	tcase_add_test(tc, shipped_ci);
	tcase_add_test(tc, fifty_rules_load_fast);
	suite_add_tcase(s, tc);
	tc = tcase_create("config");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, config_parse);
	tcase_add_test(tc, config_errors_name_key);
	tcase_add_test(tc, config_load_places);
	tcase_add_test(tc, may_refuse_below);
	tcase_add_test(tc, refuses_all_below);
	tcase_add_test(tc, glob_prefilter_same_answers);
	tcase_add_test(tc, network_rules_parse);
	tcase_add_test(tc, network_match_and_addresses);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
