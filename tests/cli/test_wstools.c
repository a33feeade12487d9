/*
 * test_wstools.c - the front door: "wstools schemas" is one array of
 * function definitions, "wstools call" runs the tool a model names with
 * its output and exit status unchanged, and errors speak in the model's
 * terms (JSON keys, hints, policy decisions).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wstest.h"

static char *T, *W;

static void
setup(void)
{
	T = wst_tmpdir();
	W = wst_path(T, "ws");
	wst_write(T, "ws/src/a.c", "int a;\nint main(void) { return 0; }\n");
	wst_write(T, "ws/notes.md", "one\ntwo\nthree\n");
}

static void
teardown(void)
{
	wst_rmrf(T);
	free(T);
	free(W);
}

static const char *
err_str(const struct wst_run *r, const char *key)
{
	cJSON *e = cJSON_GetObjectItem(r->json, "error");
	cJSON *v = cJSON_GetObjectItem(e, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

START_TEST(schemas_are_one_array)
{
	static const char *const want[] = {"list_directory", "read_file",
					   "write_file", "search_files",
					   "run_command"};
	static const char *const callable[] = {
		"list_directory", "read_file", "write_file", "edit_file",
		"create_directory", "move_path", "delete_path", "search_files",
		"run_command"};
	struct wst_run r;
	cJSON *it;
	size_t found = 0;

	wst_run(&r, NULL, "wstools", "schemas", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(cJSON_IsArray(r.json), "%s", r.out);
	cJSON_ArrayForEach(it, r.json) {
		cJSON *fn = cJSON_GetObjectItem(it, "function");
		cJSON *name = cJSON_GetObjectItem(fn, "name");
		cJSON *params = cJSON_GetObjectItem(fn, "parameters");
		bool known = false;

		ck_assert_str_eq(cJSON_GetObjectItem(it, "type")->valuestring,
				 "function");
		ck_assert(cJSON_IsString(name));
		ck_assert(cJSON_IsString(cJSON_GetObjectItem(fn, "description")));
		ck_assert_str_eq(cJSON_GetObjectItem(params, "type")->valuestring,
				 "object");
		ck_assert(cJSON_IsObject(cJSON_GetObjectItem(params, "properties")));
		/* Every definition is one "call" can run, and no array is
		 * nested: wswrite's own array is flattened. */
		for (size_t i = 0; i < sizeof(callable) / sizeof(callable[0]); i++)
			known |= strcmp(callable[i], name->valuestring) == 0;
		ck_assert_msg(known, "wstools call cannot run %s", name->valuestring);
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			found += strcmp(want[i], name->valuestring) == 0;
	}
	ck_assert_uint_eq(found, sizeof(want) / sizeof(want[0]));
	wst_run_free(&r);
	/* A stray argument is an error, not ignored. */
	wst_run(&r, NULL, "wstools", "schemas", "extra", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "(INVALID_ARGUMENT)") != NULL, "%s", r.err);
	wst_run_free(&r);
}
END_TEST

/* The names of the definitions in array j, comma-separated, in order. */
static void
names_of(const cJSON *j, char *buf, size_t n)
{
	const cJSON *it;

	buf[0] = '\0';
	cJSON_ArrayForEach(it, j) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(
			cJSON_GetObjectItem(it, "function"), "name"));
		size_t l = strlen(buf);

		snprintf(buf + l, n - l, "%s%s", l ? "," : "", name ? name : "?");
	}
}

/*
 * The sets (issue 20): default is the nine tools, short and within Ajv's
 * strict mode; five is exactly five; full is every binary's --schema;
 * --check says which dialects a set passes; --for gemini adapts one.
 */
START_TEST(schema_sets)
{
	struct wst_run r, b;
	char names[512];
	const cJSON *it;

	wst_run(&r, NULL, "wstools", "schemas", "--set", "five", NULL);
	ck_assert_int_eq(r.status, 0);
	names_of(r.json, names, sizeof(names));
	ck_assert_str_eq(names, "read_file,write_file,list_directory,run_command,"
			 "search_files");
	/* write_file of five edits too; one type per property everywhere. */
	cJSON_ArrayForEach(it, r.json) {
		const cJSON *fn = cJSON_GetObjectItem(it, "function"), *p;

		ck_assert_int_le(strlen(cJSON_GetStringValue(cJSON_GetObjectItem(
					 fn, "description"))), 100);
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(cJSON_GetObjectItem(
						fn, "parameters"), "properties"))
			ck_assert_msg(cJSON_IsString(cJSON_GetObjectItem(p, "type")),
				      "%s", p->string);
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(fn, "name")),
			   "write_file") == 0)
			ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetObjectItem(
				cJSON_GetObjectItem(fn, "parameters"), "properties"), "edits"));
	}
	ck_assert_int_lt(strlen(r.out), 4000);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "schemas", NULL);
	wst_run(&b, NULL, "wstools", "schemas", "--set", "default", NULL);
	ck_assert_str_eq(r.out, b.out);
	names_of(r.json, names, sizeof(names));
	ck_assert_str_eq(names, "list_directory,read_file,write_file,edit_file,"
			 "create_directory,move_path,delete_path,search_files,run_command");
	ck_assert_ptr_null(strstr(r.out, "[\"array\",\"string\"]"));
	ck_assert_int_lt(strlen(r.out), 10000);
	wst_run_free(&b);
	/* full: every option, as each binary's --schema prints it. */
	wst_run(&b, NULL, "wstools", "schemas", "--set", "full", NULL);
	ck_assert_int_eq(b.status, 0);
	ck_assert_int_gt(strlen(b.out), strlen(r.out));
	ck_assert_ptr_nonnull(strstr(b.out, "\"max_columns\""));
	ck_assert_ptr_null(strstr(r.out, "\"max_columns\""));
	wst_run_free(&b);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "schemas", "--check", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "set default: 9 tools, ") != NULL &&
		      strstr(r.out, "\najv-strict     pass\n") != NULL &&
		      strstr(r.out, "\ngemini         FAIL: ") != NULL &&
		      strstr(r.out, "additionalProperties") != NULL &&
		      strstr(r.out, "\nopenai-strict  FAIL: ") != NULL, "%s", r.out);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "schemas", "--set", "five", "--for", "gemini",
		"--check", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "\ngemini         pass\n") != NULL, "%s", r.out);
	wst_run_free(&r);
	/* The CLI's own definitions take two types: not strict. */
	wst_run(&r, NULL, "wstools", "schemas", "--set", "full", "--check", NULL);
	ck_assert_int_eq(r.status, 1);
	ck_assert_msg(strstr(r.out, "ajv-strict     FAIL: ") != NULL, "%s", r.out);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "schemas", "--set", "nine", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "(INVALID_ARGUMENT)") != NULL, "%s", r.err);
	wst_run_free(&r);
}
END_TEST

/*
 * ftu11 10: a name that is not UTF-8 is listed with U+FFFD (and its bytes
 * in name_bytes), which a path argument cannot carry: the NOT_FOUND says
 * why and what reaches it, for a relative and an absolute path; a path
 * without U+FFFD gets no such hint.
 */
START_TEST(call_not_utf8_name_hint)
{
	struct wst_run r;
	const char *h;
	static const char *const paths[] = {
		"{\"path\":\"bad\\ufffdname.txt\"}",
		"{\"path\":\"/bad\\ufffd\\ufffdname.txt\"}",
	};

	wst_write(W, "bad\xff" "name.txt", "x\n");
	for (size_t i = 0; i < 2; i++) {
		wst_run(&r, NULL, "wstools", "call", "read_file", paths[i],
			"--workspace", W, NULL);
		ck_assert_int_eq(r.status, 5);
		ck_assert_str_eq(wst_code(&r), "NOT_FOUND");
		h = cJSON_GetStringValue(cJSON_GetObjectItem(
			cJSON_GetObjectItem(r.json, "error"), "hint"));
		ck_assert_msg(h != NULL && strstr(h, "U+FFFD in a listed name stands "
						  "for bytes that are not UTF-8") != NULL &&
			      strstr(h, "run_command") != NULL &&
			      strstr(h, "bad*name.txt") != NULL && strstr(h, "**") == NULL,
			      "%s", r.out);
		wst_run_free(&r);
	}
	wst_run(&r, NULL, "wstools", "call", "read_file",
		"{\"path\":\"nosuch.txt\"}", "--workspace", W, NULL);
	ck_assert_int_eq(r.status, 5);
	ck_assert_msg(strstr(r.out, "U+FFFD") == NULL, "%s", r.out);
	wst_run_free(&r);
}
END_TEST

START_TEST(call_dispatches)
{
	static const char *const no_path[] = {"PATH=/nonexistent", NULL};
	struct wst_run r;
	char *p;
	size_t n;

	/* Found next to wstools, whatever PATH says. */
	{
		const char *argv[] = {"call", "read_file",
				      "{\"path\":\"notes.md\",\"start_line\":2}",
				      "--workspace", W, NULL};

		wst_runv(&r, NULL, no_path, "wstools", argv);
	}
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(cJSON_GetObjectItem(r.json, "tool")->valuestring,
			 "read_file");
	ck_assert_str_eq(wst_output_str(&r, "content"), "two\nthree\n");
	ck_assert_ptr_nonnull(wst_output(&r, "real_path"));
	wst_run_free(&r);
	/* Arguments from standard input; options after them reach the
	 * tool (--paths virtual leaves the host layout out). */
	wst_run(&r, "{\"path\":\"src\"}", "wstools", "call", "list_directory",
		"-", "--workspace", W, "--paths", "virtual", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(cJSON_GetObjectItem(r.json, "tool")->valuestring,
			 "list_directory");
	ck_assert_ptr_null(wst_output(&r, "real_path"));
	ck_assert_ptr_null(strstr(r.out, T));
	wst_run_free(&r);
	wst_run(&r, "{\"path\":\"new/b.txt\",\"content\":\"hello\\n\"}", "wstools",
		"call", "write_file", "-", "--workspace", W, NULL);
	ck_assert_msg(r.status == 0, "%s", r.out);
	wst_run_free(&r);
	p = wst_path(W, "new/b.txt");
	{
		char *c = wst_slurp(p, &n);

		ck_assert_ptr_nonnull(c);
		ck_assert_str_eq(c, "hello\n");
		free(c);
	}
	free(p);
	wst_run(&r, NULL, "wstools", "call", "search_files",
		"{\"pattern\":\"main\"}", "--workspace", W, NULL);
	ck_assert_msg(r.status == 0, "%s", r.out);
	ck_assert_str_eq(cJSON_GetObjectItem(r.json, "tool")->valuestring,
			 "search_files");
	ck_assert_ptr_nonnull(strstr(r.out, "/src/a.c"));
	wst_run_free(&r);
	/* The tool's exit status passes through: wsgrep's 1 for no match. */
	wst_run(&r, NULL, "wstools", "call", "search_files",
		"{\"pattern\":\"absent-text\"}", "--workspace", W, NULL);
	ck_assert_int_eq(r.status, 1);
	wst_run_free(&r);
}
END_TEST

START_TEST(errors_in_the_models_terms)
{
	struct wst_run r;
	const char *m;

	/* An absolute host path read as shorthand says so, with a hint. */
	wst_run(&r, NULL, "wstools", "call", "read_file",
		"{\"path\":\"/etc/hostname\"}", "--workspace", W, NULL);
	ck_assert_int_eq(r.status, 5);
	ck_assert_str_eq(wst_code(&r), "NOT_FOUND");
	ck_assert_str_eq(err_str(&r, "message"),
			 "/etc/hostname: not found in the workspace (absolute "
			 "paths are relative to the workspace root)");
	ck_assert_ptr_nonnull(err_str(&r, "hint"));
	wst_run_free(&r);
	/* ftu12 16: a virtual path below a top-level entry the workspace
	 * has is a plain NOT_FOUND, without the "outside" hint. */
	wst_mkdir(W, "srcdir");
	wst_run(&r, NULL, "wstools", "call", "read_file",
		"{\"path\":\"/srcdir/nosuch.c\"}", "--workspace", W, NULL);
	ck_assert_str_eq(wst_code(&r), "NOT_FOUND");
	ck_assert_ptr_null(strstr(err_str(&r, "message"), "absolute"));
	ck_assert_msg(err_str(&r, "hint") == NULL ||
		      strstr(err_str(&r, "hint"), "outside") == NULL, "%s", r.out);
	wst_run_free(&r);
	/* A relative path that is missing keeps the plain message. */
	wst_run(&r, NULL, "wstools", "call", "read_file",
		"{\"path\":\"nope.txt\"}", "--workspace", W, NULL);
	ck_assert_str_eq(wst_code(&r), "NOT_FOUND");
	ck_assert_ptr_null(strstr(err_str(&r, "message"), "absolute"));
	wst_run_free(&r);
	/* Keys, not flags. */
	wst_run(&r, NULL, "wstools", "call", "read_file",
		"{\"path\":\"notes.md\",\"end_line\":0}", "--workspace", W, NULL);
	ck_assert_int_eq(r.status, 2);
	m = err_str(&r, "message");
	ck_assert_msg(strstr(m, "end_line") != NULL && strstr(m, "--") == NULL,
		      "%s", m);
	wst_run_free(&r);
	/* An unknown key lists the valid ones. */
	wst_run(&r, NULL, "wstools", "call", "read_file",
		"{\"path\":\"notes.md\",\"line\":2}", "--workspace", W, NULL);
	ck_assert_int_eq(r.status, 2);
	m = err_str(&r, "message");
	ck_assert_msg(strstr(m, "valid arguments: path, paths, start_line, end_line") != NULL,
		      "%s", m);
	wst_run_free(&r);
	/* A number sent as a string of digits is a number. */
	wst_run(&r, NULL, "wstools", "call", "read_file",
		"{\"path\":\"notes.md\",\"start_line\":\"3\"}", "--workspace", W,
		NULL);
	ck_assert_msg(r.status == 0, "%s", r.out);
	ck_assert_str_eq(wst_output_str(&r, "content"), "three\n");
	wst_run_free(&r);
	/* A policy decision names the policy, the rule and the operation. */
	wst_run(&r, NULL, "wstools", "call", "write_file",
		"{\"path\":\"c.txt\",\"content\":\"x\"}", "--workspace", W,
		"--policy", "read-only", NULL);
	ck_assert_int_eq(r.status, 3);
	ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
	ck_assert_str_eq(err_str(&r, "policy"), "read-only");
	ck_assert_ptr_nonnull(err_str(&r, "rule"));
	ck_assert_str_eq(err_str(&r, "operation"), "create");
	ck_assert_ptr_nonnull(err_str(&r, "hint"));
	wst_run_free(&r);
	/* A guarded entry is no policy's decision: operation and hint only. */
	wst_mkdir(W, ".git");
	wst_run(&r, NULL, "wstools", "call", "write_file",
		"{\"path\":\".git/config\",\"content\":\"x\"}", "--workspace",
		W, NULL);
	ck_assert_int_eq(r.status, 3);
	ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
	ck_assert_ptr_null(err_str(&r, "policy"));
	ck_assert_str_eq(err_str(&r, "operation"), "create");
	ck_assert_ptr_nonnull(err_str(&r, "hint"));
	wst_run_free(&r);
}
END_TEST

/*
 * Help where a newcomer asks for it: "wstools call read_file --help"
 * said the arguments were not valid JSON (near "--help"), and "wstools
 * call --help" and "wstools schemas --help" were errors too.
 */
START_TEST(help_where_asked)
{
	struct wst_run r;

	wst_run(&r, NULL, "wstools", "call", "read_file", "--help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "Usage: wsread") != NULL, "%s", r.out);
	ck_assert_msg(strstr(r.out, "--start-line") != NULL, "%s", r.out);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "call", "edit_file", "-h", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "edit_file") != NULL, "%s", r.out);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "call", "run_command", "--schema", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(r.json);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(
		cJSON_GetObjectItem(r.json, "function"), "name")), "run_command");
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "call", "--help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "call [--set full|default|five] NAME JSON|-") != NULL, "%s", r.out);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "schemas", "--help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "wstools schemas [--set") != NULL, "%s", r.out);
	wst_run_free(&r);
}
END_TEST

/*
 * FTU9 2: each tool's --help speaks its flags, not the JSON arguments
 * of its schema ("start_line and end_line", "base64 is true", "offset
 * set to next_offset", wsgrep's "files: true" that is no argument, and
 * wsls's garbled "a model's the path"); --schema keeps the arguments.
 */
START_TEST(help_speaks_flags)
{
	static const struct {
		const char *tool, *flag;
	} t[] = {
		{"wsread", "--start-line and --end-line"}, {"wsread", "--base64"},
		{"wsls", "--offset N"}, {"wsgrep", "--files with --include"},
		{"wsgrep", "--offset N"}, {"wswrite", "--edit --old S"},
		{"wsrun", "-c runs a string"},
	};
	static const char *const bad[] = {
		"start_line and", "base64 is true", "offset set to",
		"files: true", "a model's the", "command is an array",
		"(mkdir)",
	};
	struct wst_run r;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *end;

		wst_run(&r, NULL, t[i].tool, "--help", NULL);
		ck_assert_int_eq(r.status, 0);
		end = strstr(r.out, "\nOptions:");
		ck_assert_ptr_nonnull(end);
		*end = '\0';
		ck_assert_msg(strstr(r.out, t[i].flag) != NULL, "%s: %s",
			      t[i].tool, r.out);
		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
			ck_assert_msg(strstr(r.out, bad[k]) == NULL, "%s: %s",
				      t[i].tool, r.out);
		wst_run_free(&r);
	}
	wst_run(&r, NULL, "wsgrep", "--schema", NULL);
	ck_assert_msg(strstr(r.out, "output_mode files with include globs")
		      != NULL, "%s", r.out);
	ck_assert_ptr_null(strstr(r.out, "files: true"));
	wst_run_free(&r);
	wst_run(&r, NULL, "wsls", "--schema", NULL);
	ck_assert_ptr_null(strstr(r.out, "a model's the"));
	wst_run_free(&r);
}
END_TEST

START_TEST(usage_errors)
{
	struct wst_run r;

	wst_run(&r, NULL, "wstools", "call", "rm_rf", "{}", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_str_eq(cJSON_GetObjectItem(r.json, "tool")->valuestring, "rm_rf");
	ck_assert_ptr_nonnull(strstr(err_str(&r, "message"), "read_file"));
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "call", "read_file", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "frobnicate", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "(INVALID_ARGUMENT)") != NULL, "%s", r.err);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "Usage"));
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "--help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "call NAME"));
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "--version", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "wstools (wstools) "));
	wst_run_free(&r);
	/* Bad JSON is the tool's error, passed through. */
	wst_run(&r, NULL, "wstools", "call", "read_file", "{nope", "--workspace",
		W, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_str_eq(cJSON_GetObjectItem(r.json, "tool")->valuestring,
			 "read_file");
	wst_run_free(&r);
	/* Cut short, or nothing at all on stdin: said so, not 'near ""'. */
	wst_run(&r, NULL, "wstools", "call", "read_file", "{\"path\":",
		"--workspace", W, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(err_str(&r, "message"), "end before"));
	wst_run_free(&r);
	wst_run(&r, " \n", "wstools", "call", "read_file", "-", "--workspace",
		W, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(err_str(&r, "message"), "are empty"));
	wst_run_free(&r);
}
END_TEST

/*
 * run_command runs in wsrun's default view, the virtual one (issue 19):
 * "pwd" is "/" and "/notes.md" is the workspace's, as read_file shows
 * it; --paths relative gives the real view.  Where the probe says no
 * mount namespace can be made, the default is refused with the way out.
 */
START_TEST(run_command_default_view)
{
	struct wst_run r;
	const char *a[] = {"call", "run_command", "{\"command\":\"pwd; cat /notes.md\"}",
			   "--workspace", W, NULL};
	const char *ar[] = {"call", "run_command", "{\"command\":\"pwd\"}",
			    "--workspace", W, "--paths", "relative", NULL};
	char *np = wst_path(W, "notes.md"), *notes = wst_slurp(np, NULL), want[4200];

	wst_view_own = true;
	wst_runv(&r, NULL, NULL, "wstools", a);
	if (!wst_layer("", "mountns")) {
		ck_assert_int_eq(r.status, 125);
		ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
		ck_assert_ptr_nonnull(strstr(err_str(&r, "hint"), "--view real"));
	} else {
		ck_assert_msg(r.status == 0, "%s%s", r.out, r.err);
		snprintf(want, sizeof(want), "/\n%s", notes);
		ck_assert_str_eq(wst_output_str(&r, "stdout"), want);
	}
	wst_run_free(&r);
	wst_runv(&r, NULL, NULL, "wstools", ar);
	ck_assert_msg(r.status == 0, "%s%s", r.out, r.err);
	snprintf(want, sizeof(want), "%s\n", W);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), want);
	wst_run_free(&r);
	wst_view_own = false;
	free(notes);
	free(np);
}
END_TEST

/*
 * A word after the JSON that is not an option is refused, not merged:
 * wsrun's options end at the first word, so "--args JSON" after it had
 * become part of the command and the model's command never ran; wsread
 * read the extra file along with the JSON's path.
 */
START_TEST(stray_words_next_to_the_json)
{
	struct wst_run r;
	const char *m;

	wst_run(&r, NULL, "wstools", "call", "run_command",
		"{\"command\":[\"echo\",\"from-json\"]}", "--workspace", W,
		"echo", "stray", NULL);
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	m = err_str(&r, "message");
	ck_assert_msg(strstr(m, "\"echo\" cannot also be given") != NULL, "%s", m);
	ck_assert_ptr_null(strstr(r.out, "from-json"));
	ck_assert_ptr_null(strstr(r.out, "stray --args"));
	wst_run_free(&r);
	/* The caller's options still go to the tool, after the JSON. */
	wst_run(&r, NULL, "wstools", "call", "run_command",
		"{\"command\":[\"echo\",\"from-json\"]}", "--workspace", W,
		"--timeout", "30", NULL);
	ck_assert_msg(r.status == 0, "%s%s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "from-json\n");
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "call", "read_file",
		"{\"path\":\"notes.md\"}", "--workspace", W, "src/a.c", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(err_str(&r, "message"), "\"src/a.c\""));
	wst_run_free(&r);
	/* The same through the tool's own --args. */
	wst_run(&r, NULL, "wsls", "--workspace", W, "--args",
		"{\"path\":\"src\"}", "notes.md", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	/* --schema still prints whatever else is given. */
	wst_run(&r, NULL, "wsread", "--args", "{\"path\":\"notes.md\"}",
		"src/a.c", "--schema", NULL);
	ck_assert_int_eq(r.status, 0);
	wst_run_free(&r);
	/* A missing command names the key the model must send. */
	wst_run(&r, NULL, "wstools", "call", "run_command", "{\"command\":[]}",
		"--workspace", W, NULL);
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	m = err_str(&r, "message");
	ck_assert_msg(strstr(m, "missing required argument \"command\"") != NULL &&
		      strstr(m, "--help") == NULL, "%s", m);
	wst_run_free(&r);
}
END_TEST

/*
 * wstools call: a repeated key is refused naming it, and a model's
 * values are held to the built-in ceilings after parsing, as under MCP
 * (issue 18): "max_output": "1G" keeps at most 1 MiB.
 */
START_TEST(call_repeated_key_and_ceilings)
{
	struct wst_run r;
	cJSON *out;
	const char *so;

	wst_run(&r, NULL, "wstools", "call", "read_file",
		"{\"path\":\"notes.md\",\"max_bytes\":1,\"max_bytes\":9999}",
		"--workspace", W, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_msg(strstr(err_str(&r, "message"), "\"max_bytes\" is given more "
			     "than once") != NULL, "%s", r.out);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "call", "run_command",
		"{\"command\":\"head -c 3000000 /dev/zero | tr '\\\\0' a\","
		"\"max_output\":\"1G\"}", "--workspace", W, NULL);
	ck_assert_msg(r.status == 0, "%s", r.out);
	out = cJSON_GetObjectItem(r.json, "output");
	so = cJSON_GetStringValue(cJSON_GetObjectItem(out, "stdout"));
	ck_assert_ptr_nonnull(so);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(out, "stdout_truncated")));
	ck_assert_int_le(strlen(so), (1 << 20) + 4096);
	wst_run_free(&r);
}
END_TEST

/*
 * Strict arguments (issue 20): "wstools call" takes exactly the keys the
 * definition of its set declares (default unless --set), refusing any
 * other with INVALID_ARGUMENT naming every declared key; a tool the set
 * does not hold is refused too.  write_file's edit keys are the five
 * set's, not the default's (where edit_file does edits); read_file's
 * page_lines is the full set's.
 */
START_TEST(call_takes_declared_keys)
{
	static const char *const sets[] = {"default", "five", "full"};
	struct wst_run r, s;
	char *p = wst_path(W, "notes.md"), *c;

	for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
		const cJSON *d;
		int n = 0;

		wst_run(&s, NULL, "wstools", "schemas", "--set", sets[k], NULL);
		ck_assert_int_eq(s.status, 0);
		cJSON_ArrayForEach(d, s.json) {
			const cJSON *fn = cJSON_GetObjectItem(d, "function");
			const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(fn, "name"));
			const cJSON *pr;
			const char *msg;

			wst_run(&r, NULL, "wstools", "call", "--set", sets[k], name,
				"{\"undeclared_key\":1}", "--workspace", W, NULL);
			/* run_command's own failures are 125, never a command's. */
			ck_assert_int_eq(r.status, strcmp(name, "run_command") == 0 ? 125 : 2);
			ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
			msg = err_str(&r, "message");
			ck_assert_msg(strstr(msg, "\"undeclared_key\"") != NULL, "%s", msg);
			cJSON_ArrayForEach(pr, cJSON_GetObjectItem(
				cJSON_GetObjectItem(fn, "parameters"), "properties")) {
				char want[128];

				snprintf(want, sizeof(want), " %s", pr->string);
				ck_assert_msg(strstr(msg, want) != NULL, "%s %s: %s not in %s",
					      sets[k], name, pr->string, msg);
			}
			wst_run_free(&r);
			n++;
		}
		ck_assert_int_ge(n, 5);
		wst_run_free(&s);
	}
	/* The default set: write_file takes no edit; nothing changed. */
	wst_run(&r, NULL, "wstools", "call", "write_file",
		"{\"path\":\"notes.md\",\"edit\":true,\"old\":\"one\",\"new\":\"1\"}",
		"--workspace", W, NULL);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(err_str(&r, "message"), "\"edit\""));
	wst_run_free(&r);
	c = wst_slurp(p, NULL);
	ck_assert_str_eq(c, "one\ntwo\nthree\n");
	free(c);
	/* read_file's message: "paths", and no key of the full set. */
	wst_run(&r, NULL, "wstools", "call", "read_file",
		"{\"path\":\"notes.md\",\"page_lines\":1}", "--workspace", W, NULL);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(err_str(&r, "message"), "valid arguments: "));
	ck_assert_ptr_nonnull(strstr(strstr(err_str(&r, "message"), "valid arguments: "),
				     " paths,"));
	ck_assert_ptr_null(strstr(strstr(err_str(&r, "message"), "valid arguments: "),
				  "page_"));
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "call", "--set", "full", "read_file",
		"{\"path\":\"notes.md\",\"page_lines\":1}", "--workspace", W, NULL);
	ck_assert_msg(r.status == 0, "%s", r.out);
	wst_run_free(&r);
	/* The five set: write_file edits; edit_file is not in it. */
	wst_run(&r, NULL, "wstools", "call", "--set=five", "write_file",
		"{\"path\":\"notes.md\",\"old\":\"one\",\"new\":\"1\"}",
		"--workspace", W, NULL);
	ck_assert_msg(r.status == 0, "%s", r.out);
	wst_run_free(&r);
	c = wst_slurp(p, NULL);
	ck_assert_str_eq(c, "1\ntwo\nthree\n");
	free(c);
	wst_run(&r, NULL, "wstools", "call", "--set", "five", "edit_file",
		"{\"path\":\"notes.md\",\"old\":\"1\",\"new\":\"one\"}",
		"--workspace", W, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(err_str(&r, "hint"), "--set five"));
	wst_run_free(&r);
	/* --schema: the set's definition. */
	wst_run(&r, NULL, "wstools", "call", "--set", "five", "read_file", "--schema",
		NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(r.json, "function"), "parameters"), "properties"),
					       "max_bytes"));
	wst_run_free(&r);
	free(p);
}
END_TEST

/*
 * wstools' own errors (a mistyped command, schemas, audit) are for a
 * person unless JSON is asked for (DESIGN.md 4: plain by default, on a
 * pipe too): plain text on stderr, nothing on stdout; WS_FORMAT=json (or
 * audit --json) gives the JSON object.  Every prefix is the program as
 * its man page's SYNOPSIS spells it ("wstools mcp:", never
 * "wstools-mcp:"), and --help names the page that exists.
 */
START_TEST(own_errors_for_people)
{
	static const char *const json_env[] = {"WS_FORMAT=json", NULL};
	const char *want = "wstools: unknown command \"cal\" (INVALID_ARGUMENT)\n"
			   "wstools: hint: ";
	struct wst_run r;

	wst_run(&r, NULL, "wstools", "cal", "read_file", "{}", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.out, "");
	ck_assert_msg(strncmp(r.err, want, strlen(want)) == 0, "%s", r.err);
	wst_run_free(&r);
	wst_runv(&r, NULL, json_env, "wstools", (const char *const[]){"wstools", "cal", NULL});
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_str_eq(r.err, "");
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "audit", "--nope", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.out, "");
	ck_assert_msg(strstr(r.err, "(INVALID_ARGUMENT)") != NULL, "%s", r.err);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "audit", "--nope", "--json", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	/* A call's failures stay JSON: the call implies it, as --args. */
	wst_run(&r, NULL, "wstools", "call", "nope_tool", "{}", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	/* One prefix a program, as SYNOPSIS spells it. */
	wst_run(&r, NULL, "wstools", "mcp", "--bogus", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strncmp(r.err, "wstools mcp: ", 13) == 0, "%s", r.err);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "history", "--bogus", NULL);
	ck_assert_msg(strncmp(r.err, "wstools history: ", 17) == 0, "%s", r.err);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "undo", "--bogus", NULL);
	ck_assert_msg(strncmp(r.err, "wstools undo: ", 14) == 0, "%s", r.err);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "mcp", "--help", NULL);
	ck_assert_msg(strstr(r.out, "See wstools-mcp(1).") != NULL, "%s", r.out);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "history", "--help", NULL);
	ck_assert_msg(strstr(r.out, "See wstools(1).") != NULL, "%s", r.out);
	wst_run_free(&r);
}
END_TEST

/*
 * FTU10 10: wstools mcp / (or the home directory) is served, as asked,
 * with a warning on standard error; a project's directory gets none.
 */
START_TEST(mcp_broad_root_warned)
{
	struct wst_run r;

	wst_run(&r, "", "wstools", "mcp", "/", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.err, "warning: the workspace is / (the whole file system)")
		      != NULL, "%s", r.err);
	wst_run_free(&r);
	{
		char env[4200];
		const char *e[] = {env, NULL};
		const char *argv[] = {"mcp", W, NULL};

		snprintf(env, sizeof(env), "HOME=%s", W);
		wst_runv(&r, "", e, "wstools", argv);
		ck_assert_int_eq(r.status, 0);
		ck_assert_msg(strstr(r.err, "the workspace is the home directory") != NULL,
			      "%s", r.err);
		wst_run_free(&r);
	}
	{
		const char *argv[] = {"mcp", W, NULL};

		wst_runv(&r, "", NULL, "wstools", argv);
		ck_assert_int_eq(r.status, 0);
		ck_assert_msg(strstr(r.err, "warning") == NULL, "%s", r.err);
		wst_run_free(&r);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("cli-wstools");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, schemas_are_one_array);
	tcase_add_test(tc, schema_sets);
	tcase_add_test(tc, call_dispatches);
	tcase_add_test(tc, call_not_utf8_name_hint);
	tcase_add_test(tc, call_takes_declared_keys);
	tcase_add_test(tc, own_errors_for_people);
	tcase_add_test(tc, call_repeated_key_and_ceilings);
	tcase_add_test(tc, errors_in_the_models_terms);
	tcase_add_test(tc, usage_errors);
	tcase_add_test(tc, help_where_asked);
	tcase_add_test(tc, help_speaks_flags);
	tcase_add_test(tc, stray_words_next_to_the_json);
	tcase_add_test(tc, run_command_default_view);
	tcase_add_test(tc, mcp_broad_root_warned);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
