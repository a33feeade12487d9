/*
 * test_mcp_compat.c - unit tests for lib/mcp_compat.c: the reference MCP
 * filesystem server's tools list, path mapping between real paths and the
 * virtual view, the translation of each compat call into native calls and
 * of their outputs into the reference's text (with a fake native runner
 * that records the calls and answers canned outputs), a replay of the
 * reference server's recorded transcript through the real tools (a runner
 * that execs them with --args), compared call for call, and the hook in
 * wstools mcp.
 */
#include "wstest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/mcp_compat.h"

#ifndef WST_MCP_REFERENCE
#define WST_MCP_REFERENCE ""
#endif

static char *T, *W, *X;
static struct ws_mcp_compat_fs *C;

/* ------------------------------------------------------------------ */
/* A fake native runner: canned answers in order, calls recorded.       */

struct fake {
	cJSON *calls;	    /* [[tool, args], ...] */
	cJSON *answers;	    /* [{"output": ...} | {"error": ...}, ...] */
	int next;
};

static struct fake F;

static int
fake_native(void *arg, const char *tool, const cJSON *args, cJSON **output,
	    cJSON **error)
{
	struct fake *f = arg;
	cJSON *call = cJSON_CreateArray();
	cJSON *a = cJSON_GetArrayItem(f->answers, f->next++);

	cJSON_AddItemToArray(call, cJSON_CreateString(tool));
	cJSON_AddItemToArray(call, cJSON_Duplicate(args, 1));
	cJSON_AddItemToArray(f->calls, call);
	ck_assert_msg(a != NULL, "unexpected native call %d: %s", f->next - 1, tool);
	if (cJSON_GetObjectItem(a, "error") != NULL) {
		*error = cJSON_Duplicate(cJSON_GetObjectItem(a, "error"), 1);
		return WS_EIO_ERROR;
	}
	*output = cJSON_Duplicate(cJSON_GetObjectItem(a, "output"), 1);
	return 0;
}

/* Queue answers (a JSON array text, with $T for the temporary dir). */
static void
answers(const char *json)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);

	for (const char *p = json; *p; p++) {
		if (strncmp(p, "$T", 2) == 0) {
			fputs(T, m);
			p++;
		} else {
			fputc(*p, m);
		}
	}
	fclose(m);
	cJSON_Delete(F.answers);
	F.answers = cJSON_Parse(s);
	ck_assert_msg(F.answers != NULL, "bad canned JSON: %s", s);
	free(s);
	F.next = 0;
	cJSON_Delete(F.calls);
	F.calls = cJSON_CreateArray();
}

/* Run a compat call with the fake runner; args has $T replaced. */
static cJSON *
call(const char *name, const char *args)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);
	cJSON *a, *res = NULL;
	int rc;

	for (const char *p = args; *p; p++) {
		if (strncmp(p, "$T", 2) == 0) {
			fputs(T, m);
			p++;
		} else {
			fputc(*p, m);
		}
	}
	fclose(m);
	a = cJSON_Parse(s);
	ck_assert_msg(a != NULL, "bad args JSON: %s", s);
	free(s);
	rc = ws_mcp_compat_call(C, name, a, fake_native, &F, &res);
	cJSON_Delete(a);
	ck_assert_msg(rc == 0, "%s: %d %s", name, rc, ws_error_last());
	ck_assert_ptr_nonnull(res);
	return res;
}

static const char *
text_of(const cJSON *res)
{
	const cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "content"), 0);
	const cJSON *t = cJSON_GetObjectItem(b, "text");

	return cJSON_IsString(t) ? t->valuestring : NULL;
}

static bool
is_error(const cJSON *res)
{
	return cJSON_IsTrue(cJSON_GetObjectItem(res, "isError"));
}

/* The native arguments of recorded call i, printed. */
static char *
native_args(int i)
{
	return cJSON_PrintUnformatted(cJSON_GetArrayItem(cJSON_GetArrayItem(F.calls, i), 1));
}

static const char *
native_tool(int i)
{
	return cJSON_GetArrayItem(cJSON_GetArrayItem(F.calls, i), 0)->valuestring;
}

static void
setup(void)
{
	const char *dirs[2];
	const char *vp[2] = {"/", "/.extra"};

	T = wst_tmpdir();
	W = wst_path(T, "ws");
	X = wst_path(T, "extra");
	wst_mkdir(T, "ws");
	wst_mkdir(T, "extra");
	dirs[0] = W;
	dirs[1] = X;
	ck_assert_int_eq(ws_mcp_compat_new(dirs, vp, 2, &C), 0);
	F.calls = cJSON_CreateArray();
	F.answers = cJSON_CreateArray();
	F.next = 0;
}

static void
teardown(void)
{
	ws_mcp_compat_free(C);
	C = NULL;
	cJSON_Delete(F.calls);
	cJSON_Delete(F.answers);
	F.calls = F.answers = NULL;
	wst_rmrf(T);
	free(T);
	free(W);
	free(X);
}

/* ------------------------------------------------------------------ */

static cJSON *
load_reference(void)
{
	char *text;
	cJSON *j;

	ck_assert_msg(WST_MCP_REFERENCE[0] != '\0', "WST_MCP_REFERENCE not set");
	text = wst_slurp(WST_MCP_REFERENCE, NULL);
	ck_assert_msg(text != NULL, "cannot read %s", WST_MCP_REFERENCE);
	j = cJSON_Parse(text);
	free(text);
	ck_assert_ptr_nonnull(j);
	return j;
}

/* tools/list is the reference's, verbatim: names, schemas, annotations. */
START_TEST(tools_list)
{
	cJSON *ref = load_reference(), *tools = ws_mcp_compat_tools();
	const cJSON *rt = cJSON_GetObjectItem(ref, "tools"), *t;
	int i = 0;

	ck_assert_ptr_nonnull(tools);
	ck_assert_int_eq(cJSON_GetArraySize(tools), cJSON_GetArraySize(rt));
	ck_assert_int_eq(cJSON_GetArraySize(tools), 14);
	cJSON_ArrayForEach(t, rt) {
		const cJSON *o = cJSON_GetArrayItem(tools, i++);
		const char *keys[] = {"name", "title", "description", "inputSchema",
				      "outputSchema", "annotations"};

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			ck_assert_msg(cJSON_Compare(cJSON_GetObjectItem(t, keys[k]),
						    cJSON_GetObjectItem(o, keys[k]), 1),
				      "tool %d: %s differs", i, keys[k]);
	}
	cJSON_Delete(tools);
	cJSON_Delete(ref);
}
END_TEST

static void
check_map(const char *in, const char *want_native, const char *want_real)
{
	char *n = NULL, *r = NULL;
	int rc = ws_mcp_compat_path(C, in, &n, &r);

	ck_assert_msg(rc == 0, "%s: %s", in, ws_error_last());
	ck_assert_str_eq(n, want_native);
	ck_assert_str_eq(r, want_real);
	free(n);
	free(r);
}

static void
check_refused(const char *in)
{
	char *n = (char *)"x", *r = (char *)"x";
	static const char want[] = "Access denied - path outside allowed directories: ";

	ck_assert_int_eq(ws_mcp_compat_path(C, in, &n, &r), WS_EPATH_OUTSIDE_WORKSPACE);
	ck_assert_ptr_null(n);
	ck_assert_ptr_null(r);
	ck_assert_msg(strncmp(ws_error_last(), want, sizeof(want) - 1) == 0, "%s",
		      ws_error_last());
}

/* Real paths map to relative virtual paths; everything else is refused,
 * by components, before any native call. */
START_TEST(path_mapping)
{
	char buf[4096], *r;

	snprintf(buf, sizeof(buf), "%s/sub/a.txt", W);
	check_map(buf, "sub/a.txt", buf);
	check_map(W, ".", W);
	snprintf(buf, sizeof(buf), "%s/", W);
	check_map(buf, ".", W);
	snprintf(buf, sizeof(buf), "%s/e.txt", X);
	check_map(buf, ".extra/e.txt", buf);
	check_map(X, ".extra", X);
	snprintf(buf, sizeof(buf), "%s/sub/../a.txt", W);
	{
		char want[4096];

		snprintf(want, sizeof(want), "%s/a.txt", W);
		check_map(buf, "a.txt", want);
		/* Relative: against the first directory that holds it. */
		check_map("a.txt", "a.txt", want);
		check_map("./sub/../a.txt", "a.txt", want);
		snprintf(want, sizeof(want), "%s/e.txt", X);
		check_map("../extra/e.txt", ".extra/e.txt", want);
	}
	/* An absolute virtual path of the native view is no real path. */
	check_refused("/sub/a.txt");
	check_refused("/etc/passwd");
	check_refused("/");
	snprintf(buf, sizeof(buf), "%s/../outside.txt", W);
	check_refused(buf);
	snprintf(buf, sizeof(buf), "%s2/x", W); /* ws2 is not inside ws */
	check_refused(buf);
	check_refused("../../etc/passwd");
	check_refused("..");
	/* The message names the allowed directories. */
	snprintf(buf, sizeof(buf), "%s, %s", W, X);
	check_refused("/etc/shadow");
	ck_assert_ptr_nonnull(strstr(ws_error_last(), buf));

	/* The workspace entry a mount hides is refused, not redirected into
	 * the mount; a longer name is no such entry. */
	snprintf(buf, sizeof(buf), "%s/.extra/e.txt", W);
	{
		char *n = NULL;

		ck_assert_int_eq(ws_mcp_compat_path(C, buf, &n, NULL), WS_EINVALID_PATH);
		ck_assert_ptr_null(n);
		ck_assert_ptr_nonnull(strstr(ws_error_last(), "hidden by the allowed directory"));
		snprintf(buf, sizeof(buf), "%s/.extra", W);
		ck_assert_int_eq(ws_mcp_compat_path(C, buf, &n, NULL), WS_EINVALID_PATH);
		ck_assert_int_eq(ws_mcp_compat_path(C, ".extra/x", &n, NULL), WS_EINVALID_PATH);
	}
	snprintf(buf, sizeof(buf), "%s/.extrax/y", W);
	check_map(buf, ".extrax/y", buf);

	/* Back from the virtual view. */
	r = ws_mcp_compat_real(C, "/.extra/e.txt");
	snprintf(buf, sizeof(buf), "%s/e.txt", X);
	ck_assert_str_eq(r, buf);
	free(r);
	r = ws_mcp_compat_real(C, "/.extrax/y");
	snprintf(buf, sizeof(buf), "%s/.extrax/y", W);
	ck_assert_str_eq(r, buf);
	free(r);
	r = ws_mcp_compat_real(C, "/");
	ck_assert_str_eq(r, W);
	free(r);
}
END_TEST

/* A directory given through a symlink is reachable both ways, and
 * results name the resolved path, as the reference's do. */
START_TEST(path_spelled_through_link)
{
	struct ws_mcp_compat_fs *c2;
	char *link = wst_path(T, "wslink"), buf[4096], *n, *r;
	const char *dirs[1], *vp[1] = {"/"};
	cJSON *res = NULL;

	wst_symlink(W, T, "wslink");
	dirs[0] = link;
	ck_assert_int_eq(ws_mcp_compat_new(dirs, vp, 1, &c2), 0);
	snprintf(buf, sizeof(buf), "%s/a", link);
	ck_assert_int_eq(ws_mcp_compat_path(c2, buf, &n, &r), 0);
	ck_assert_str_eq(n, "a");
	snprintf(buf, sizeof(buf), "%s/a", W);
	ck_assert_str_eq(r, buf);
	free(n);
	free(r);
	ck_assert_int_eq(ws_mcp_compat_path(c2, buf, &n, &r), 0);
	ck_assert_str_eq(n, "a");
	free(n);
	free(r);
	ck_assert_int_eq(ws_mcp_compat_call(c2, "list_allowed_directories", NULL,
					    fake_native, &F, &res), 0);
	snprintf(buf, sizeof(buf), "Allowed directories:\n%s\n%s", link, W);
	ck_assert_str_eq(text_of(res), buf);
	cJSON_Delete(res);
	ws_mcp_compat_free(c2);
	/* A directory that does not exist is refused at start. */
	dirs[0] = "/nonexistent/wst-mcp";
	ck_assert_int_eq(ws_mcp_compat_new(dirs, vp, 1, &c2), WS_EWORKSPACE_NOT_FOUND);
	ck_assert_ptr_null(c2);
	free(link);
}
END_TEST

/* head and tail give the reference's text; the native read asks for the
 * lines only. */
START_TEST(read_text_head_tail)
{
	cJSON *res;
	char *a;

	answers("[{\"output\":{\"path\":\"/a.txt\",\"content\":\"line1\\nline2\\n\","
		"\"binary\":false,\"truncated\":false,\"next_start_line\":null}}]");
	res = call("read_text_file", "{\"path\":\"$T/ws/a.txt\",\"head\":2}");
	ck_assert_str_eq(text_of(res), "line1\nline2");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "structuredContent"),
					     "content")->valuestring, "line1\nline2");
	ck_assert(!is_error(res));
	a = native_args(0);
	ck_assert_str_eq(native_tool(0), "read_file");
	ck_assert_ptr_nonnull(strstr(a, "\"path\":\"a.txt\""));
	ck_assert_ptr_nonnull(strstr(a, "\"start_line\":1"));
	ck_assert_ptr_nonnull(strstr(a, "\"end_line\":2"));
	free(a);
	cJSON_Delete(res);

	/* tail 2 of a file ending in a newline: the reference's split gives
	 * the last line and the newline. */
	answers("[{\"output\":{\"path\":\"/a.txt\",\"content\":\"line3\\nline4\\n\","
		"\"binary\":false,\"truncated\":false,\"next_start_line\":null}}]");
	res = call("read_text_file", "{\"path\":\"a.txt\",\"tail\":2}");
	ck_assert_str_eq(text_of(res), "line4\n");
	a = native_args(0);
	ck_assert_ptr_nonnull(strstr(a, "\"tail\":2"));
	free(a);
	cJSON_Delete(res);
	answers("[{\"output\":{\"path\":\"/n.txt\",\"content\":\"two\\r\\nthree\","
		"\"binary\":false,\"truncated\":false}}]");
	res = call("read_text_file", "{\"path\":\"n.txt\",\"tail\":2}");
	ck_assert_str_eq(text_of(res), "two\nthree");
	cJSON_Delete(res);

	/* Both at once, and bad types: errors, and no native call. */
	answers("[]");
	res = call("read_text_file", "{\"path\":\"a.txt\",\"tail\":1,\"head\":1}");
	ck_assert(is_error(res));
	ck_assert_str_eq(text_of(res), "Cannot specify both head and tail parameters simultaneously");
	cJSON_Delete(res);
	res = call("read_text_file", "{\"path\":\"a.txt\",\"head\":\"2\"}");
	ck_assert(is_error(res));
	cJSON_Delete(res);
	res = call("read_text_file", "{\"head\":2}");
	ck_assert(is_error(res));
	cJSON_Delete(res);
	res = call("read_file", "{\"path\":7}");
	ck_assert(is_error(res));
	cJSON_Delete(res);
	ck_assert_int_eq(cJSON_GetArraySize(F.calls), 0);
}
END_TEST

/* A whole read follows native pages to the end; a binary file is refused
 * with the reason. */
START_TEST(read_text_pages_and_binary)
{
	cJSON *res;
	char *a;

	answers("[{\"output\":{\"path\":\"/b.txt\",\"content\":\"1\\n2\\n\",\"truncated\":true,"
		"\"next_start_line\":3}},"
		"{\"output\":{\"path\":\"/b.txt\",\"content\":\"3\\n\",\"truncated\":false,"
		"\"next_start_line\":null}}]");
	res = call("read_text_file", "{\"path\":\"$T/ws/b.txt\"}");
	ck_assert_str_eq(text_of(res), "1\n2\n3\n");
	a = native_args(1);
	ck_assert_ptr_nonnull(strstr(a, "\"start_line\":3"));
	free(a);
	cJSON_Delete(res);

	answers("[{\"output\":{\"path\":\"/i.png\",\"content\":null,\"binary\":true,"
		"\"mime_type\":\"image/png\"}}]");
	res = call("read_text_file", "{\"path\":\"i.png\"}");
	ck_assert(is_error(res));
	ck_assert_ptr_nonnull(strstr(text_of(res), "binary"));
	ck_assert_ptr_nonnull(strstr(text_of(res), "read_media_file"));
	cJSON_Delete(res);
}
END_TEST

/* A native refusal keeps its code, says why, and names the path as the
 * client wrote it; a containment refusal reads "Access denied". */
START_TEST(native_errors)
{
	cJSON *res;
	char want[4096];

	answers("[{\"error\":{\"code\":\"SYMLINK_OUTSIDE_WORKSPACE\",\"message\":"
		"\"sub/e.txt: symlink sub/e.txt -> /etc/passwd leads outside the workspace\","
		"\"path\":\"sub/e.txt\"}}]");
	res = call("read_text_file", "{\"path\":\"$T/ws/sub/e.txt\"}");
	ck_assert(is_error(res));
	snprintf(want, sizeof(want), "Access denied - %s/sub/e.txt: symlink sub/e.txt -> "
		 "/etc/passwd leads outside the workspace (SYMLINK_OUTSIDE_WORKSPACE)", W);
	ck_assert_str_eq(text_of(res), want);
	cJSON_Delete(res);

	answers("[{\"error\":{\"code\":\"NOT_FOUND\",\"message\":\"m.txt: no such file\"}}]");
	res = call("read_text_file", "{\"path\":\"m.txt\"}");
	ck_assert_str_eq(text_of(res), "m.txt: no such file (NOT_FOUND)");
	cJSON_Delete(res);
	/* Also when the native message names the virtual path. */
	answers("[{\"error\":{\"code\":\"POLICY_DENIED\",\"message\":"
		"\"/.git/hooks/x: is a guarded path\"}}]");
	res = call("write_file", "{\"path\":\"$T/ws/.git/hooks/x\",\"content\":\"\"}");
	snprintf(want, sizeof(want), "Access denied - %s/.git/hooks/x: is a guarded path "
		 "(POLICY_DENIED)", W);
	ck_assert_str_eq(text_of(res), want);
	cJSON_Delete(res);

	/* A runner that fails without an error object. */
	answers("[{\"error\":null}]");
	res = call("write_file", "{\"path\":\"x\",\"content\":\"\"}");
	ck_assert(is_error(res));
	cJSON_Delete(res);

	/* Refused before any native call: outside every directory. */
	answers("[]");
	res = call("write_file", "{\"path\":\"/etc/x\",\"content\":\"x\"}");
	ck_assert(is_error(res));
	ck_assert_ptr_nonnull(strstr(text_of(res), "Access denied - path outside allowed directories: /etc/x not in "));
	cJSON_Delete(res);
	ck_assert_int_eq(cJSON_GetArraySize(F.calls), 0);
}
END_TEST

/* Listings: [DIR]/[FILE] lines, mounts left out, a file is ENOTDIR, and
 * pages are followed. */
START_TEST(list_directory)
{
	cJSON *res;
	char *a, want[4096];

	answers("[{\"output\":{\"path\":\"/\",\"real_path\":\"$T/ws\",\"entries\":["
		"{\"name\":\".extra\",\"path\":\"/.extra\",\"type\":\"dir\",\"mount\":true},"
		"{\"name\":\"a.txt\",\"path\":\"/a.txt\",\"type\":\"file\",\"size\":3},"
		"{\"name\":\"ln\",\"path\":\"/ln\",\"type\":\"symlink\",\"target\":\"sub\"}],"
		"\"truncated\":true,\"next_offset\":3}},"
		"{\"output\":{\"path\":\"/\",\"entries\":["
		"{\"name\":\"sub\",\"path\":\"/sub\",\"type\":\"dir\"}],\"truncated\":false}}]");
	res = call("list_directory", "{\"path\":\"$T/ws\"}");
	ck_assert_str_eq(text_of(res), "[FILE] a.txt\n[FILE] ln\n[DIR] sub");
	a = native_args(0);
	ck_assert_str_eq(a, "{\"path\":\".\",\"all\":true,\"fields\":"
			 "\"name,path,type,target\",\"max_entries\":10000}");
	free(a);
	a = native_args(1);
	ck_assert_ptr_nonnull(strstr(a, "\"offset\":3"));
	free(a);
	cJSON_Delete(res);

	answers("[{\"output\":{\"path\":\"/a.txt\",\"real_path\":\"$T/ws/a.txt\",\"entries\":["
		"{\"name\":\"a.txt\",\"path\":\"/a.txt\",\"type\":\"file\"}],"
		"\"entries_total\":1,\"truncated\":false}}]");
	res = call("list_directory", "{\"path\":\"$T/ws/a.txt\"}");
	ck_assert(is_error(res));
	snprintf(want, sizeof(want), "ENOTDIR: not a directory, scandir '%s/a.txt'", W);
	ck_assert_str_eq(text_of(res), want);
	cJSON_Delete(res);

	/* An empty directory is an empty text. */
	answers("[{\"output\":{\"path\":\"/e\",\"entries\":[],\"truncated\":false}}]");
	res = call("list_directory", "{\"path\":\"e\"}");
	ck_assert(!is_error(res));
	ck_assert_str_eq(text_of(res), "");
	cJSON_Delete(res);
}
END_TEST

/* Sizes as the reference formats them, sorted by name or by size, with
 * the summary; a symlink's size is its target's where that may be read. */
START_TEST(list_with_sizes)
{
	cJSON *res;
	const char *entries =
		"[{\"output\":{\"path\":\"/\",\"entries\":["
		"{\"name\":\"b.txt\",\"path\":\"/b.txt\",\"type\":\"file\",\"size\":5001},"
		"{\"name\":\"A.txt\",\"path\":\"/A.txt\",\"type\":\"file\",\"size\":24},"
		"{\"name\":\"zero\",\"path\":\"/zero\",\"type\":\"file\",\"size\":0},"
		"{\"name\":\"big\",\"path\":\"/big\",\"type\":\"file\",\"size\":1610612736},"
		"{\"name\":\"ln\",\"path\":\"/ln\",\"type\":\"symlink\",\"size\":5,"
		"\"target\":\"b.txt\",\"target_outside\":false},"
		"{\"name\":\"out\",\"path\":\"/out\",\"type\":\"symlink\",\"size\":11,"
		"\"target\":\"/etc/passwd\",\"target_outside\":true},"
		"{\"name\":\"sub\",\"path\":\"/sub\",\"type\":\"dir\",\"size\":4096}],"
		"\"truncated\":false}},"
		"{\"output\":{\"path\":\"/b.txt\",\"entries\":[{\"name\":\"b.txt\","
		"\"path\":\"/b.txt\",\"type\":\"file\",\"size\":5001}]}}]";
	char *a, want[4096];

	answers(entries);
	res = call("list_directory_with_sizes", "{\"path\":\"$T/ws\"}");
	/* name.padEnd(30), size.padStart(10), as the reference has it. */
	snprintf(want, sizeof(want),
		 "[FILE] %-30s %10s\n[FILE] %-30s %10s\n[FILE] %-30s %10s\n"
		 "[FILE] %-30s %10s\n[FILE] %-30s %10s\n[DIR] %-30s \n"
		 "[FILE] %-30s %10s\n\nTotal: 6 files, 1 directories\n"
		 "Combined size: 1.50 GB",
		 "A.txt", "24 B", "b.txt", "4.88 KB", "big", "1.50 GB", "ln", "4.88 KB",
		 "out", "0 B", "sub", "zero", "0 B");
	ck_assert_str_eq(text_of(res), want);
	/* The link was followed by the native resolver, not here. */
	a = native_args(1);
	ck_assert_str_eq(a, "{\"path\":\"b.txt\",\"directory\":true,\"long\":true}");
	free(a);
	cJSON_Delete(res);

	answers(entries);
	res = call("list_directory_with_sizes", "{\"path\":\"$T/ws\",\"sortBy\":\"size\"}");
	snprintf(want, sizeof(want),
		 "[FILE] %-30s %10s\n[FILE] %-30s %10s\n[FILE] %-30s %10s\n[DIR] %-30s \n"
		 "[FILE] %-30s %10s\n", "big", "1.50 GB", "b.txt", "4.88 KB", "ln", "4.88 KB",
		 "sub", "A.txt", "24 B");
	ck_assert_msg(strncmp(text_of(res), want, strlen(want)) == 0, "%s", text_of(res));
	cJSON_Delete(res);

	answers("[]");
	res = call("list_directory_with_sizes", "{\"path\":\"$T/ws\",\"sortBy\":\"mtime\"}");
	ck_assert(is_error(res));
	cJSON_Delete(res);
}
END_TEST

/* edit_file: the native edits, and the reference's fenced diff with the
 * jsdiff header naming the real path. */
START_TEST(edit_file)
{
	cJSON *res;
	char *a, want[8192];

	answers("[{\"output\":{\"path\":\"/a.txt\",\"real_path\":\"$T/ws/a.txt\","
		"\"diff\":\"--- /a.txt\\n+++ /a.txt\\n@@ -1,2 +1,2 @@\\n-a\\n+b\\n c\\n\"}}]");
	res = call("edit_file", "{\"path\":\"$T/ws/a.txt\",\"edits\":[{\"oldText\":\"a\","
		   "\"newText\":\"b\"}],\"dryRun\":true}");
	a = native_args(0);
	ck_assert_str_eq(a, "{\"path\":\"a.txt\",\"edits\":[{\"old\":\"a\",\"new\":\"b\"}],"
			 "\"dry_run\":true}");
	free(a);
	snprintf(want, sizeof(want), "```diff\nIndex: %s/a.txt\n"
		 "===================================================================\n"
		 "--- %s/a.txt\toriginal\n+++ %s/a.txt\tmodified\n"
		 "@@ -1,2 +1,2 @@\n-a\n+b\n c\n```\n\n", W, W, W);
	ck_assert_str_eq(text_of(res), want);
	cJSON_Delete(res);

	/* Backticks in the diff lengthen the fence. */
	answers("[{\"output\":{\"path\":\"/a.md\",\"real_path\":\"$T/ws/a.md\","
		"\"diff\":\"--- /a.md\\n+++ /a.md\\n@@ -1 +1 @@\\n-```\\n+````\\n\"}}]");
	res = call("edit_file", "{\"path\":\"a.md\",\"edits\":[{\"oldText\":\"```\","
		   "\"newText\":\"````\"}]}");
	ck_assert(strncmp(text_of(res), "`````diff\n", 10) == 0);
	a = native_args(0);
	ck_assert_ptr_nonnull(strstr(a, "\"dry_run\":false"));
	free(a);
	cJSON_Delete(res);

	answers("[]");
	res = call("edit_file", "{\"path\":\"a\",\"edits\":[{\"oldText\":\"x\"}]}");
	ck_assert(is_error(res));
	cJSON_Delete(res);
	res = call("edit_file", "{\"path\":\"a\",\"edits\":{}}");
	ck_assert(is_error(res));
	cJSON_Delete(res);
	ck_assert_int_eq(cJSON_GetArraySize(F.calls), 0);
}
END_TEST

/* The writers: native arguments and the reference's sentences. */
START_TEST(writers)
{
	cJSON *res;
	char *a, want[4096];

	answers("[{\"output\":{}},{\"output\":{}},{\"output\":{}}]");
	res = call("write_file", "{\"path\":\"$T/ws/n.txt\",\"content\":\"hi\"}");
	snprintf(want, sizeof(want), "Successfully wrote to %s/n.txt", W);
	ck_assert_str_eq(text_of(res), want);
	cJSON_Delete(res);
	a = native_args(0);
	ck_assert_str_eq(a, "{\"path\":\"n.txt\",\"content\":\"hi\",\"parents\":false}");
	free(a);
	res = call("create_directory", "{\"path\":\"$T/extra/d/e\"}");
	snprintf(want, sizeof(want), "Successfully created directory %s/d/e", X);
	ck_assert_str_eq(text_of(res), want);
	cJSON_Delete(res);
	a = native_args(1);
	ck_assert_str_eq(a, "{\"path\":\".extra/d/e\",\"parents\":true}");
	free(a);
	res = call("move_file", "{\"source\":\"a\",\"destination\":\"$T/extra/b\"}");
	snprintf(want, sizeof(want), "Successfully moved a to %s/b", X);
	ck_assert_str_eq(text_of(res), want);
	cJSON_Delete(res);
	a = native_args(2);
	ck_assert_str_eq(native_tool(2), "move_path");
	ck_assert_str_eq(a, "{\"source\":\"a\",\"destination\":\".extra/b\",\"parents\":false}");
	free(a);

	/* A destination outside is refused before anything moves. */
	answers("[]");
	res = call("move_file", "{\"source\":\"a\",\"destination\":\"/tmp/../etc/b\"}");
	ck_assert(is_error(res));
	cJSON_Delete(res);
	ck_assert_int_eq(cJSON_GetArraySize(F.calls), 0);
}
END_TEST

/* read_media_file: image/audio by extension, anything else a resource
 * with a file:// URL. */
START_TEST(read_media)
{
	cJSON *res, *item;
	char want[4096], *a;

	answers("[{\"output\":{\"path\":\"/p.PNG\",\"real_path\":\"$T/ws/p.PNG\","
		"\"content\":\"AAAA\",\"encoding\":\"base64\"}}]");
	res = call("read_media_file", "{\"path\":\"p.PNG\"}");
	item = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "content"), 0);
	ck_assert_str_eq(cJSON_GetObjectItem(item, "type")->valuestring, "image");
	ck_assert_str_eq(cJSON_GetObjectItem(item, "mimeType")->valuestring, "image/png");
	ck_assert_str_eq(cJSON_GetObjectItem(item, "data")->valuestring, "AAAA");
	ck_assert(cJSON_Compare(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "structuredContent"),
						    "content"),
				cJSON_GetObjectItem(res, "content"), 1));
	a = native_args(0);
	ck_assert_ptr_nonnull(strstr(a, "\"base64\":true"));
	free(a);
	cJSON_Delete(res);

	answers("[{\"output\":{\"path\":\"/a b#.bin\",\"real_path\":\"$T/ws/a b#.bin\","
		"\"content\":\"AAEC\",\"encoding\":\"base64\"}}]");
	res = call("read_media_file", "{\"path\":\"a b#.bin\"}");
	item = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "content"), 0);
	ck_assert_str_eq(cJSON_GetObjectItem(item, "type")->valuestring, "resource");
	snprintf(want, sizeof(want), "file://%s/a%%20b%%23.bin", W);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(item, "resource"), "uri")->valuestring,
			 want);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(item, "resource"),
					     "mimeType")->valuestring, "application/octet-stream");
	cJSON_Delete(res);
}
END_TEST

/* read_multiple_files: each file on its own, failures inline. */
START_TEST(read_multiple)
{
	cJSON *res;
	char want[8192];

	answers("[{\"output\":{\"path\":\"/a\",\"content\":\"A\\n\"}},"
		"{\"error\":{\"code\":\"NOT_FOUND\",\"message\":\"m: no such file\"}}]");
	res = call("read_multiple_files", "{\"paths\":[\"a\",\"/etc/passwd\",\"m\"]}");
	ck_assert(!is_error(res));
	snprintf(want, sizeof(want),
		 "a:\nA\n\n\n---\n/etc/passwd: Error - Access denied - path outside allowed "
		 "directories: /etc/passwd not in %s, %s\n---\nm: Error - m: no such file "
		 "(NOT_FOUND)", W, X);
	ck_assert_str_eq(text_of(res), want);
	cJSON_Delete(res);
	answers("[]");
	res = call("read_multiple_files", "{\"paths\":[]}");
	ck_assert(is_error(res));
	cJSON_Delete(res);
}
END_TEST

/* Unknown tools are the caller's -32602; bad argument objects are tool
 * errors. */
START_TEST(unknown_and_bad)
{
	cJSON *res = NULL, *arr = cJSON_CreateArray();

	ck_assert_int_eq(ws_mcp_compat_call(C, "run_command", NULL, fake_native, &F, &res),
			 WS_EINVALID_ARGUMENT);
	ck_assert_ptr_null(res);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "run_command"));
	ck_assert_int_eq(ws_mcp_compat_call(C, "read_text_file", arr, fake_native, &F, &res), 0);
	ck_assert(is_error(res));
	cJSON_Delete(res);
	cJSON_Delete(arr);
}
END_TEST

/* The hook in the server: wstools mcp --compat mcp-filesystem over a
 * pipe, the calls run in-process by the server (ws_mcp_invoke). */
START_TEST(server_hook)
{
	struct wst_run r;
	char *in = NULL, *line, *save = NULL;
	cJSON *resp[6] = {0};
	int n = 0;
	char want[4096];

	wst_write(T, "ws/a.txt", "one\ntwo\n");
	wst_write(T, "extra/e.txt", "e\n");
	ck_assert_int_ge(asprintf(&in,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
		"{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":"
		"{\"name\":\"t\",\"version\":\"1\"}}}\n"
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n"
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
		"{\"name\":\"read_text_file\",\"arguments\":{\"path\":\"%s/a.txt\",\"tail\":2}}}\n"
		"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":"
		"{\"name\":\"list_directory\",\"arguments\":{\"path\":\"%s\"}}}\n"
		"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":"
		"{\"name\":\"read_text_file\",\"arguments\":{\"path\":\"/etc/passwd\"}}}\n"
		"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":"
		"{\"name\":\"read_file_nope\",\"arguments\":{}}}\n", W, X), 0);
	wst_run(&r, in, "wstools", "mcp", "--compat", "mcp-filesystem", W, X, NULL);
	ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err);
	/* By id: calls run side by side and are answered as they end. */
	for (line = strtok_r(r.out, "\n", &save); line && n < 6; line = strtok_r(NULL, "\n", &save)) {
		cJSON *j = cJSON_Parse(line);
		int id = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id"));

		ck_assert_msg(id >= 1 && id <= 6 && resp[id - 1] == NULL, "%s", line);
		resp[id - 1] = j;
		n++;
	}
	ck_assert_int_eq(n, 6);
	/* tools/list: the reference's 14 tools; tail 2 of a file ending in a
	 * newline is its last line, as the reference splits it. */
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(
				 cJSON_GetObjectItem(resp[1], "result"), "tools")), 14);
	ck_assert_str_eq(text_of(cJSON_GetObjectItem(resp[2], "result")), "two\n");
	ck_assert_str_eq(text_of(cJSON_GetObjectItem(resp[3], "result")), "[FILE] e.txt");
	ck_assert(is_error(cJSON_GetObjectItem(resp[4], "result")));
	snprintf(want, sizeof(want), "Access denied - path outside allowed directories: "
		 "/etc/passwd not in %s, %s", W, X);
	ck_assert_str_eq(text_of(cJSON_GetObjectItem(resp[4], "result")), want);
	/* An unknown tool: a tool error worded as the reference's SDK
	 * words it (issue 20), not a JSON-RPC error. */
	ck_assert(is_error(cJSON_GetObjectItem(resp[5], "result")));
	ck_assert_str_eq(text_of(cJSON_GetObjectItem(resp[5], "result")),
			 "MCP error -32602: Tool read_file_nope not found");
	for (int i = 0; i < n; i++)
		cJSON_Delete(resp[i]);
	wst_run_free(&r);
	free(in);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The recorded reference transcript, replayed through the real tools. */

static char *RT; /* the replay's temporary directory */

/*
 * A native runner that execs the tool's binary with --args JSON on the
 * fixture, as "wstools call NAME JSON" does (one process, not two: a
 * sanitized process start is slow).
 */
static int
exec_native(void *arg, const char *tool, const cJSON *args, cJSON **output,
	    cJSON **error)
{
	char *json = cJSON_PrintUnformatted(args);
	char *ws = wst_path(RT, "ws"), *mount = NULL;
	const char *bin = strcmp(tool, "read_file") == 0	   ? "wsread"
			  : strcmp(tool, "list_directory") == 0 ? "wsls"
								 : "wswrite";
	struct wst_run r;
	cJSON *o, *e;

	(void)arg;
	ck_assert_int_ge(asprintf(&mount, "/.extra=%s/extra", RT), 0);
	if (strcmp(bin, "wswrite") == 0)
		wst_run(&r, NULL, bin, "--tool", tool, "--workspace", ws, "--mount", mount,
			"--args", json, NULL);
	else
		wst_run(&r, NULL, bin, "--workspace", ws, "--mount", mount, "--args", json,
			NULL);
	ck_assert_msg(r.json != NULL, "%s %s: no JSON: %s", tool, json, r.err);
	o = cJSON_GetObjectItem(r.json, "output");
	e = cJSON_GetObjectItem(r.json, "error");
	if (cJSON_IsObject(o))
		*output = cJSON_Duplicate(o, 1);
	if (cJSON_IsObject(e))
		*error = cJSON_Duplicate(e, 1);
	{
		int rc = cJSON_IsTrue(cJSON_GetObjectItem(r.json, "success")) ? 0 : WS_EIO_ERROR;

		wst_run_free(&r);
		free(json);
		free(ws);
		free(mount);
		return rc;
	}
}

/* The fixture of tests/mcp/interop/interop.mjs, exactly. */
static void
make_tree(void)
{
	static const unsigned char png[] = {0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a,
					    0x1a, 0x0a, 0, 0, 0, 13};
	static const unsigned char blob[] = {0, 1, 2, 3, 255};
	char big[5002], *out;

	memset(big, 'x', 5000);
	big[5000] = '\n';
	big[5001] = '\0';
	wst_mkdir(RT, "ws/sub/deep");
	wst_mkdir(RT, "ws/node_modules/pkg");
	wst_mkdir(RT, "extra");
	wst_write(RT, "ws/a.txt", "line1\nline2\nline3\nline4\n");
	wst_write(RT, "ws/noeol.txt", "one\ntwo\nthree");
	wst_write(RT, "ws/big.txt", big);
	wst_write(RT, "ws/sub/b.md", "# b\n");
	wst_write(RT, "ws/sub/deep/c.txt", "deep\n");
	wst_write(RT, "ws/node_modules/pkg/index.txt", "pkg\n");
	wst_writen(RT, "ws/img.png", png, sizeof(png));
	wst_writen(RT, "ws/blob.bin", blob, sizeof(blob));
	wst_write(RT, "extra/e.txt", "extra file\n");
	wst_write(RT, "outside.txt", "secret\n");
	out = wst_path(RT, "outside.txt");
	wst_symlink(out, RT, "ws/sub/escape.txt");
	free(out);
}

/* s with every from replaced by to (malloc'd). */
static char *
replace_all(const char *s, const char *from, const char *to)
{
	char *r = NULL;
	size_t n = 0, fl = strlen(from);
	FILE *m = open_memstream(&r, &n);

	for (const char *p = s; *p;) {
		if (strncmp(p, from, fl) == 0) {
			fputs(to, m);
			p += fl;
		} else {
			fputc(*p++, m);
		}
	}
	fclose(m);
	return r;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The text with its lines sorted: listings are in readdir order in the
 * reference (the summary of a sized listing sorts along, harmlessly). */
static char *
sorted_lines(const char *s)
{
	char *copy = strdup(s), **v = NULL, *r = NULL;
	size_t n = 0, len = 0;
	FILE *m;

	for (char *save = NULL, *tok = strtok_r(copy, "\n", &save); tok;
	     tok = strtok_r(NULL, "\n", &save)) {
		v = realloc(v, (n + 1) * sizeof(*v));
		v[n++] = tok;
	}
	qsort(v, n, sizeof(*v), cmp_str);
	m = open_memstream(&r, &len);
	for (size_t i = 0; i < n; i++)
		fprintf(m, "%s\n", v[i]);
	fclose(m);
	free(v);
	free(copy);
	return r;
}

/*
 * get_file_info's dates differ between runs, and a directory's size
 * between file systems (4096 on ext4 where the trace was recorded, 100 or
 * so on a tmpfs /tmp).
 */
static char *
mask_dates(const char *s)
{
	char *copy = strdup(s), *r = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&r, &n);
	bool dir = strstr(s, "isDirectory: true") != NULL;

	for (char *save = NULL, *tok = strtok_r(copy, "\n", &save); tok;
	     tok = strtok_r(NULL, "\n", &save)) {
		if (strncmp(tok, "created: ", 9) == 0 || strncmp(tok, "modified: ", 10) == 0 ||
		    strncmp(tok, "accessed: ", 10) == 0 ||
		    (dir && strncmp(tok, "size: ", 6) == 0))
			*strchr(tok, ' ') = '\0';
		fprintf(m, "%s\n", tok);
	}
	fclose(m);
	free(copy);
	return r;
}

/* read_multiple_files's inline errors: the wording is each server's own. */
static char *
mask_errors(const char *s)
{
	char *copy = strdup(s), *r = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&r, &n);

	for (char *save = NULL, *tok = strtok_r(copy, "\n", &save); tok;
	     tok = strtok_r(NULL, "\n", &save)) {
		char *e = strstr(tok, ": Error - ");

		if (e != NULL)
			e[9] = '\0';
		fprintf(m, "%s\n", tok);
	}
	fclose(m);
	free(copy);
	return r;
}

/*
 * Every call of the recorded transcript, in order, on the same fixture:
 * the same outcome (success or tool error) everywhere, and the same text
 * where the reference's is deterministic (listings compare as sorted
 * lines, dates are masked, error wording is ours).  media results compare
 * whole.
 */
START_TEST(replay_reference)
{
	cJSON *ref = load_reference();
	const cJSON *c;
	struct ws_mcp_compat_fs *rc;
	char *ws, *ex;
	const char *dirs[2], *vp[2] = {"/", "/.extra"};
	int i = 0, fails = 0;

	RT = wst_tmpdir();
	make_tree();
	ws = wst_path(RT, "ws");
	ex = wst_path(RT, "extra");
	dirs[0] = ws;
	dirs[1] = ex;
	ck_assert_int_eq(ws_mcp_compat_new(dirs, vp, 2, &rc), 0);
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(ref, "calls")) {
		const char *name = cJSON_GetObjectItem(c, "name")->valuestring;
		char *args = cJSON_PrintUnformatted(cJSON_GetObjectItem(c, "arguments"));
		char *a1 = replace_all(args, "$WS", ws), *a2 = replace_all(a1, "$EXTRA", ex);
		cJSON *aj = cJSON_Parse(a2), *res = NULL;
		bool ref_err = cJSON_IsTrue(cJSON_GetObjectItem(c, "isError"));
		const cJSON *rcont = cJSON_GetObjectItem(c, "content");

		ck_assert_int_eq(ws_mcp_compat_call(rc, name, aj, exec_native, NULL, &res), 0);
		if (is_error(res) != ref_err) {
			fprintf(stderr, "call %d %s %s: reference %s, compat %s: %s\n", i, name,
				args, ref_err ? "error" : "ok", is_error(res) ? "error" : "ok",
				text_of(res));
			fails++;
		} else if (!ref_err) {
			const cJSON *b = cJSON_GetArrayItem(rcont, 0);
			const cJSON *t = cJSON_GetObjectItem(b, "text");

			if (cJSON_IsString(t)) {
				char *mine = replace_all(text_of(res), RT, "$TMP");
				char *x = NULL, *y = NULL;

				if (strcmp(name, "list_directory") == 0 ||
				    strcmp(name, "list_directory_with_sizes") == 0 ||
				    strcmp(name, "search_files") == 0 ||
				    strcmp(name, "directory_tree") == 0) {
					x = sorted_lines(t->valuestring);
					y = sorted_lines(mine);
				} else if (strcmp(name, "read_multiple_files") == 0) {
					x = mask_errors(t->valuestring);
					y = mask_errors(mine);
				} else if (strcmp(name, "get_file_info") == 0) {
					x = mask_dates(t->valuestring);
					y = mask_dates(mine);
				} else {
					x = strdup(t->valuestring);
					y = strdup(mine);
				}
				if (strcmp(x, y) != 0) {
					fprintf(stderr, "call %d %s %s: text differs\n--- reference\n%s\n"
						"--- compat\n%s\n", i, name, args, x, y);
					fails++;
				}
				free(x);
				free(y);
				free(mine);
			} else {
				char *mine = cJSON_PrintUnformatted(cJSON_GetObjectItem(res, "content"));
				char *m2 = replace_all(mine, RT, "$TMP");
				char *theirs = cJSON_PrintUnformatted(rcont);

				if (strcmp(m2, theirs) != 0) {
					fprintf(stderr, "call %d %s: content differs\n%s\n%s\n", i,
						name, theirs, m2);
					fails++;
				}
				free(mine);
				free(m2);
				free(theirs);
			}
		}
		cJSON_Delete(res);
		cJSON_Delete(aj);
		free(args);
		free(a1);
		free(a2);
		i++;
	}
	ck_assert_int_gt(i, 40);
	ck_assert_msg(fails == 0, "%d of %d calls differ from the reference", fails, i);
	ws_mcp_compat_free(rc);
	cJSON_Delete(ref);
	wst_rmrf(RT);
	free(RT);
	free(ws);
	free(ex);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("mcp_compat");
	TCase *tc = tcase_create("core");
	TCase *tr = tcase_create("replay");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, tools_list);
	tcase_add_test(tc, path_mapping);
	tcase_add_test(tc, path_spelled_through_link);
	tcase_add_test(tc, read_text_head_tail);
	tcase_add_test(tc, read_text_pages_and_binary);
	tcase_add_test(tc, native_errors);
	tcase_add_test(tc, list_directory);
	tcase_add_test(tc, list_with_sizes);
	tcase_add_test(tc, edit_file);
	tcase_add_test(tc, writers);
	tcase_add_test(tc, read_media);
	tcase_add_test(tc, read_multiple);
	tcase_add_test(tc, unknown_and_bad);
	tcase_add_test(tc, server_hook);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tr, 300);
	tcase_add_test(tr, replay_reference);
	suite_add_tcase(s, tr);
	return s;
}

WST_MAIN(suite)
