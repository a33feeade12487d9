/*
 * test_wsls.c (cli) - wsls (list_directory) on temporary workspaces.
 *
 * Covers the input forms and escapes of DESIGN.md section 3, symlinks in
 * every position, mounts (seed 001: `wsls /` shows the workspace entries
 * and the /.solven mount), the JSON contract, limits and sorting, plain
 * output, and a rename race that tries to make a recursive listing leave
 * the workspace.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wstest.h"
#include "ws/json.h"
#include "ws/path.h"
#include "ws/version.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

static void
runva(struct wst_run *r, const char *ws, bool json, va_list ap)
{
	const char *argv[64];
	size_t n = 0;

	argv[n++] = "--workspace";
	argv[n++] = ws;
	if (json)
		argv[n++] = "--json";
	while (n < 63 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	argv[n] = NULL;
	wst_runv(r, NULL, NULL, "wsls", argv);
}

/* wsls --workspace ws --json ARGS... */
static void __attribute__((sentinel))
lsj(struct wst_run *r, const char *ws, ...)
{
	va_list ap;

	va_start(ap, ws);
	runva(r, ws, true, ap);
	va_end(ap);
}

/* wsls --workspace ws ARGS... (plain) */
static void __attribute__((sentinel))
lsp(struct wst_run *r, const char *ws, ...)
{
	va_list ap;

	va_start(ap, ws);
	runva(r, ws, false, ap);
	va_end(ap);
}

static cJSON *
entries(const struct wst_run *r)
{
	return wst_output(r, "entries");
}

static const char *
sget(const cJSON *o, const char *key)
{
	cJSON *v = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The entry called name in a result object's entries, or NULL. */
static cJSON *
entry_in(const cJSON *arr, const char *name)
{
	cJSON *e;

	cJSON_ArrayForEach(e, arr) {
		const char *n = sget(e, "name");

		if (n != NULL && strcmp(n, name) == 0)
			return e;
	}
	return NULL;
}

static cJSON *
entry(const struct wst_run *r, const char *name)
{
	return entry_in(entries(r), name);
}

/* The names of the entries joined with ",". */
static char *
names(const struct wst_run *r)
{
	static char buf[8192];
	cJSON *e;

	buf[0] = '\0';
	cJSON_ArrayForEach(e, entries(r)) {
		if (buf[0])
			strcat(buf, ",");
		strncat(buf, sget(e, "name") ? sget(e, "name") : "?",
			sizeof(buf) - strlen(buf) - 2);
	}
	return buf;
}

/* Whether every real_path in the JSON tree lies inside one of the dirs. */
static bool
all_inside(const cJSON *node, const char *const *dirs)
{
	const cJSON *c;

	if (cJSON_IsObject(node)) {
		const char *rp = sget(node, "real_path");

		if (rp != NULL) {
			bool ok = false;

			for (size_t i = 0; dirs[i]; i++)
				if (ws_path_within(dirs[i], rp, NULL))
					ok = true;
			if (!ok) {
				fprintf(stderr, "outside: %s\n", rp);
				return false;
			}
		}
	}
	cJSON_ArrayForEach(c, node)
		if (!all_inside(c, dirs))
			return false;
	return true;
}

static void
expect_fail(const char *ws, const char *path, const char *code, int status)
{
	struct wst_run r;

	lsj(&r, ws, path, NULL);
	ck_assert_msg(r.json != NULL, "%s: no JSON: %s", path, r.out);
	ck_assert_msg(strcmp(wst_code(&r), code) == 0, "%s: got %s, want %s",
		      path, wst_code(&r), code);
	ck_assert_int_eq(r.status, status);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(r.json, "output")));
	wst_run_free(&r);
}

/*
 * A workspace:
 *   a.txt  sub/deep/f.c  sub/g.h  .dot  srclink -> sub  c1 -> c2 -> sub
 *   la <-> lb (loop)  fifo
 * and an outside directory with OUTSIDE_MARKER, linked as out, and up ->
 * ../.. and root -> /.
 */
struct fx {
	char *base, *ws, *out;
};

static void
fx_make(struct fx *f)
{
	f->base = wst_tmpdir();
	f->ws = wst_path(f->base, "ws");
	f->out = wst_path(f->base, "outside");
	wst_write(f->out, "OUTSIDE_MARKER", "secret");
	wst_write(f->ws, "a.txt", "hello\n");
	wst_write(f->ws, "sub/deep/f.c", "int x;\n");
	wst_write(f->ws, "sub/g.h", "");
	wst_write(f->ws, ".dot", "");
	wst_symlink("sub", f->ws, "srclink");
	wst_symlink("c2", f->ws, "c1");
	wst_symlink("sub", f->ws, "c2");
	wst_symlink("lb", f->ws, "la");
	wst_symlink("la", f->ws, "lb");
	wst_mkfifo(f->ws, "fifo");
	wst_symlink(f->out, f->ws, "out");
	wst_symlink("../..", f->ws, "up");
	wst_symlink("/", f->ws, "root");
}

static void
fx_free(struct fx *f)
{
	wst_rmrf(f->base);
	free(f->base);
	free(f->ws);
	free(f->out);
}

/* ------------------------------------------------------------------ */
/* Input forms (DESIGN.md 3)                                           */

static void
expect_sub(const char *ws, const char *in, const char *vpath,
	   const char *const *extra)
{
	struct wst_run r;
	const char *argv[16];
	size_t n = 0;

	argv[n++] = "--workspace";
	argv[n++] = ws;
	argv[n++] = "--json";
	for (size_t i = 0; extra && extra[i]; i++)
		argv[n++] = extra[i];
	argv[n++] = in;
	argv[n] = NULL;
	wst_runv(&r, NULL, NULL, "wsls", argv);
	ck_assert_msg(strcmp(wst_code(&r), "") == 0, "%s: %s %s", in,
		      wst_code(&r), r.out);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(wst_output_str(&r, "path"), vpath);
	ck_assert_str_eq(names(&r), "deep,g.h");
	ck_assert_str_eq(sget(entry(&r, "g.h"), "path"),
			 strcmp(vpath, "/srclink") == 0 ? "/srclink/g.h" : "/sub/g.h");
	wst_run_free(&r);
}

START_TEST(input_forms)
{
	struct fx f;
	char *abs;
	struct wst_run r;

	fx_make(&f);
	abs = wst_path(f.ws, "sub");
	expect_sub(f.ws, "sub", "/sub", NULL);
	expect_sub(f.ws, "/sub", "/sub", NULL);
	expect_sub(f.ws, abs, "/sub", NULL);
	expect_sub(f.ws, "sub/", "/sub", NULL);
	expect_sub(f.ws, "./sub/./", "/sub", NULL);
	expect_sub(f.ws, "sub/deep/..", "/sub", NULL);
	expect_sub(f.ws, "\\sub", "/sub", NULL);
	expect_sub(f.ws, "srclink", "/srclink", NULL);
	free(abs);

	/* The root: "", ".", "/" and no PATH at all. */
	for (int i = 0; i < 4; i++) {
		const char *in[] = {"", ".", "/", NULL};

		if (in[i])
			lsj(&r, f.ws, in[i], NULL);
		else
			lsj(&r, f.ws, NULL);
		ck_assert_str_eq(wst_code(&r), "");
		ck_assert_str_eq(wst_output_str(&r, "path"), "/");
		ck_assert_str_eq(wst_output_str(&r, "real_path"), f.ws);
		ck_assert_str_eq(names(&r),
				 "a.txt,c1,c2,fifo,la,lb,out,root,srclink,sub,up");
		wst_run_free(&r);
	}

	/* Backslashes are separators. */
	wst_write(f.ws, "sub/deep/more/x", "");
	lsj(&r, f.ws, "sub\\deep", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_str_eq(wst_output_str(&r, "path"), "/sub/deep");
	ck_assert_str_eq(names(&r), "f.c,more");
	wst_run_free(&r);
	fx_free(&f);
}
END_TEST

START_TEST(mount_prefix_forms)
{
	struct fx f;
	char *skills, *mnt;
	struct wst_run r;
	const char *forms[] = {"/.solven/skills", ".solven/skills",
			       "/.solven/skills/", ".solven\\skills", NULL};

	fx_make(&f);
	skills = wst_path(f.base, "solven");
	wst_write(skills, "skills/system/s1.md", "s1");
	wst_write(skills, "skills/system/s2.md", "s2");
	ck_assert_int_ge(asprintf(&mnt, "/.solven=%s", skills), 0);
	for (int i = 0; forms[i]; i++) {
		lsj(&r, f.ws, "--mount", mnt, forms[i], NULL);
		ck_assert_msg(strcmp(wst_code(&r), "") == 0, "%s: %s", forms[i],
			      r.out);
		ck_assert_str_eq(wst_output_str(&r, "path"), "/.solven/skills");
		ck_assert_str_eq(names(&r), "system");
		ck_assert_str_eq(sget(entry(&r, "system"), "path"),
				 "/.solven/skills/system");
		wst_run_free(&r);
	}
	/* An absolute path inside the mount's real directory. */
	{
		char *real = wst_path(skills, "skills/system");

		lsj(&r, f.ws, "--mount", mnt, real, NULL);
		ck_assert_str_eq(wst_code(&r), "");
		ck_assert_str_eq(wst_output_str(&r, "path"), "/.solven/skills/system");
		ck_assert_str_eq(names(&r), "s1.md,s2.md");
		wst_run_free(&r);
		free(real);
	}
	/* Climbing above the mount's top is refused. */
	lsj(&r, f.ws, "--mount", mnt, "/.solven/../..", NULL);
	ck_assert_str_eq(wst_code(&r), "PATH_OUTSIDE_WORKSPACE");
	ck_assert_int_eq(r.status, 3);
	wst_run_free(&r);
	free(mnt);
	free(skills);
	fx_free(&f);
}
END_TEST

START_TEST(dotdot_escapes)
{
	struct fx f;
	char *climb;

	fx_make(&f);
	ck_assert_int_ge(asprintf(&climb, "%s/../outside", f.ws), 0);
	/* At the start, in the middle, at the end, after a symlink. */
	expect_fail(f.ws, "..", "PATH_OUTSIDE_WORKSPACE", 3);
	expect_fail(f.ws, "../outside", "PATH_OUTSIDE_WORKSPACE", 3);
	expect_fail(f.ws, "/../outside", "PATH_OUTSIDE_WORKSPACE", 3);
	expect_fail(f.ws, "sub/../../outside", "PATH_OUTSIDE_WORKSPACE", 3);
	expect_fail(f.ws, "sub/deep/../../..", "PATH_OUTSIDE_WORKSPACE", 3);
	expect_fail(f.ws, "srclink/../../outside", "PATH_OUTSIDE_WORKSPACE", 3);
	expect_fail(f.ws, "sub\\..\\..", "PATH_OUTSIDE_WORKSPACE", 3);
	/* Starts inside the root, then climbs out: not a shorthand. */
	expect_fail(f.ws, climb, "PATH_OUTSIDE_WORKSPACE", 3);
	free(climb);
	fx_free(&f);
}
END_TEST

/* /base/ws2 is not inside /base/ws: it is a root-relative shorthand. */
START_TEST(sibling_prefixes)
{
	struct fx f;
	const char *sibs[] = {"ws2", "ws_backup", "ws-evil", NULL};

	fx_make(&f);
	for (int i = 0; sibs[i]; i++) {
		char *sib = wst_path(f.base, sibs[i]), *inner;
		struct wst_run r;

		wst_write(sib, "SIBLING_SECRET", "x");
		/* Nothing at <root>/<sib path>: NOT_FOUND, never the sibling. */
		lsj(&r, f.ws, sib, NULL);
		ck_assert_str_eq(wst_code(&r), "NOT_FOUND");
		ck_assert_int_eq(r.status, 5);
		ck_assert_ptr_null(strstr(r.out, "SIBLING_SECRET"));
		wst_run_free(&r);
		lsj(&r, f.ws, "-R", sib, NULL);
		ck_assert_ptr_null(strstr(r.out, "SIBLING_SECRET"));
		wst_run_free(&r);
		/* Once <root>/<sib path> exists, that is what is listed. */
		inner = wst_path(f.ws, sib + 1);
		wst_write(inner, "inner.txt", "");
		lsj(&r, f.ws, sib, NULL);
		ck_assert_str_eq(wst_code(&r), "");
		ck_assert_str_eq(names(&r), "inner.txt");
		ck_assert_str_eq(wst_output_str(&r, "path"), inner + strlen(f.ws));
		wst_run_free(&r);
		lsp(&r, f.ws, sib, NULL);
		ck_assert_str_eq(r.out, "inner.txt\n");
		wst_run_free(&r);
		free(inner);
		free(sib);
	}
	fx_free(&f);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Symlinks                                                            */

START_TEST(symlink_leaf_outside)
{
	struct fx f;
	struct wst_run r;
	cJSON *e;

	fx_make(&f);
	expect_fail(f.ws, "out", "SYMLINK_OUTSIDE_WORKSPACE", 3);
	expect_fail(f.ws, "/out", "SYMLINK_OUTSIDE_WORKSPACE", 3);
	expect_fail(f.ws, "out/", "SYMLINK_OUTSIDE_WORKSPACE", 3);
	expect_fail(f.ws, "out/OUTSIDE_MARKER", "SYMLINK_OUTSIDE_WORKSPACE", 3);
	expect_fail(f.ws, "up", "SYMLINK_OUTSIDE_WORKSPACE", 3);
	expect_fail(f.ws, "up/", "SYMLINK_OUTSIDE_WORKSPACE", 3);
	expect_fail(f.ws, "root/etc", "SYMLINK_OUTSIDE_WORKSPACE", 3);

	/* The parent lists them, saying where they point. */
	lsj(&r, f.ws, NULL);
	ck_assert_str_eq(wst_code(&r), "");
	e = entry(&r, "out");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(sget(e, "type"), "symlink");
	ck_assert_str_eq(sget(e, "target"), f.out);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(e, "target_outside")));
	ck_assert_int_eq(cJSON_GetObjectItem(e, "size")->valueint, (int)strlen(f.out));
	e = entry(&r, "up");
	ck_assert_str_eq(sget(e, "target"), "../..");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(e, "target_outside")));
	e = entry(&r, "root");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(e, "target_outside")));
	e = entry(&r, "srclink");
	ck_assert_str_eq(sget(e, "target"), "sub");
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(e, "target_outside")));
	ck_assert_str_eq(sget(e, "path"), "/srclink");
	e = entry(&r, "la");
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(e, "target_outside")));
	e = entry(&r, "a.txt");
	ck_assert_ptr_null(cJSON_GetObjectItem(e, "target"));
	ck_assert_ptr_null(cJSON_GetObjectItem(e, "target_outside"));
	ck_assert_ptr_null(strstr(r.out, "OUTSIDE_MARKER"));
	wst_run_free(&r);
	fx_free(&f);
}
END_TEST

START_TEST(symlink_inside_chain_loop)
{
	struct fx f;
	struct wst_run r;

	fx_make(&f);
	/* A symlinked parent directory inside the workspace is followed. */
	lsj(&r, f.ws, "--fields", "name,real_path", "srclink/deep", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_str_eq(wst_output_str(&r, "path"), "/srclink/deep");
	ck_assert_str_eq(names(&r), "f.c");
	ck_assert_str_eq(sget(entry(&r, "f.c"), "real_path") + strlen(f.ws),
			 "/sub/deep/f.c");
	wst_run_free(&r);
	/* A chain c1 -> c2 -> sub. */
	lsj(&r, f.ws, "c1", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_str_eq(names(&r), "deep,g.h");
	ck_assert_str_eq(wst_output_str(&r, "real_path") + strlen(f.ws), "/sub");
	wst_run_free(&r);
	/* A loop. */
	expect_fail(f.ws, "la", "SYMLINK_LOOP", 5);
	expect_fail(f.ws, "lb/x", "SYMLINK_LOOP", 5);
	/* Not found, not a directory. */
	expect_fail(f.ws, "nope", "NOT_FOUND", 5);
	expect_fail(f.ws, "a.txt/", "NOT_A_DIRECTORY", 5);
	expect_fail(f.ws, "a.txt/x", "NOT_A_DIRECTORY", 5);
	fx_free(&f);
}
END_TEST

/* -R over a tree with links to /, to ../.. and out: never lists outside. */
START_TEST(recursive_never_leaves)
{
	struct fx f;
	struct wst_run r;
	const char *dirs[2];

	fx_make(&f);
	wst_symlink("/", f.ws, "sub/deep/rootlink");
	wst_symlink("../../..", f.ws, "sub/deep/uplink");
	wst_symlink(f.out, f.ws, "sub/deep/outlink");
	dirs[0] = f.ws;
	dirs[1] = NULL;
	lsj(&r, f.ws, "-R", "-a", "--max-entries", "0", "--max-output", "0",
	    "--fields", "name,path,real_path,type,size,target", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert(all_inside(r.json, dirs));
	ck_assert_ptr_null(strstr(r.out, "OUTSIDE_MARKER"));
	ck_assert_ptr_null(strstr(r.out, "\"/etc"));
	ck_assert_ptr_nonnull(entry(&r, "rootlink"));
	ck_assert_ptr_nonnull(entry(&r, "f.c"));
	ck_assert_str_eq(sget(entry(&r, "f.c"), "path"), "/sub/deep/f.c");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(entry(&r, "uplink"),
						   "target_outside")));
	/* srclink is listed as a symlink, and not walked into. */
	ck_assert_ptr_null(strstr(r.out, "/srclink/"));
	ck_assert_int_eq(wst_output(&r, "returned")->valueint,
			 cJSON_GetArraySize(entries(&r)));
	wst_run_free(&r);
	/* Starting below a symlinked directory follows only that one. */
	lsj(&r, f.ws, "-R", "--fields", "name,path,real_path,type,size,target", "srclink", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert(all_inside(r.json, dirs));
	ck_assert_str_eq(sget(entry(&r, "f.c"), "path"), "/srclink/deep/f.c");
	wst_run_free(&r);
	/* Plain mode too. */
	lsp(&r, f.ws, "-R", "-a", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_null(strstr(r.out, "OUTSIDE_MARKER"));
	ck_assert_ptr_nonnull(strstr(r.out, "/sub/deep:\n"));
	wst_run_free(&r);
	fx_free(&f);
}
END_TEST

START_TEST(fifo_listed_no_hang)
{
	struct fx f;
	struct wst_run r;
	cJSON *e;

	fx_make(&f);
	lsj(&r, f.ws, "-l", NULL);
	ck_assert_int_eq(r.status, 0);
	e = entry(&r, "fifo");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(sget(e, "type"), "other");
	wst_run_free(&r);
	/* A FIFO as the PATH: that one entry, nothing opened. */
	lsj(&r, f.ws, "fifo", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(cJSON_GetArraySize(entries(&r)), 1);
	ck_assert_str_eq(sget(entry(&r, "fifo"), "type"), "other");
	wst_run_free(&r);
	lsp(&r, f.ws, "-l", "fifo", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert(r.out[0] == 'p');
	wst_run_free(&r);
	fx_free(&f);
}
END_TEST

START_TEST(non_utf8_names)
{
	char *ws = wst_tmpdir(), *b64;
	const char bad[] = "bad\xff\xfe.txt";
	struct wst_run r;
	cJSON *e;

	wst_write(ws, bad, "x");
	wst_write(ws, "ok-\xc3\xa9.txt", "x");
	lsj(&r, ws, "--fields", "name,path,real_path", NULL);
	ck_assert_msg(r.json != NULL, "invalid JSON: %s", r.out);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_int_eq(cJSON_GetArraySize(entries(&r)), 2);
	e = cJSON_GetArrayItem(entries(&r), 0);
	b64 = ws_base64(bad, strlen(bad));
	ck_assert_str_eq(sget(e, "name_bytes"), b64);
	ck_assert_ptr_nonnull(sget(e, "path_bytes"));
	ck_assert_ptr_nonnull(sget(e, "real_path_bytes"));
	free(b64);
	e = entry(&r, "ok-\xc3\xa9.txt");
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_null(cJSON_GetObjectItem(e, "name_bytes"));
	wst_run_free(&r);
	/* Plain output gives the bytes as they are, like ls. */
	lsp(&r, ws, NULL);
	ck_assert_ptr_nonnull(memmem(r.out, r.outlen, bad, strlen(bad)));
	wst_run_free(&r);
	wst_rmrf(ws);
	free(ws);
}
END_TEST

/*
 * The entries of a page under the byte cap are written without the JSON
 * writer (the default keys, issue 20); with no cap (--max-output 0)
 * they come from the writer: byte for byte the same, for names that are
 * not UTF-8 (name_bytes first or not), with controls, quotes and
 * backslashes, and for each subset of the default keys.
 */
START_TEST(entries_bytes_same_under_cap)
{
	static const char *const fields[] = {
		NULL, "name", "path", "type", "size", "path,size", "size,type",
		"name,type", "path,type,size",
	};
	char *ws = wst_tmpdir();

	wst_write(ws, "d/bad\xff\xfe.txt", "xy");
	wst_write(ws, "d/cut\xe2\x82", "");
	wst_write(ws, "d/ok-\xc3\xa9.txt", "x");
	wst_write(ws, "d/q\"b\\c\x01\x1f", "xyz");
	wst_write(ws, "d/sub/x", "x");
	wst_symlink("nowhere", ws, "d/lnk");
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		struct wst_run a, b;
		const char *ea, *eb;

		if (fields[i] == NULL) {
			lsj(&a, ws, "d", NULL);
			lsj(&b, ws, "--max-output", "0", "d", NULL);
		} else {
			lsj(&a, ws, "--fields", fields[i], "d", NULL);
			lsj(&b, ws, "--fields", fields[i], "--max-output", "0", "d", NULL);
		}
		ck_assert_int_eq(a.status, 0);
		ck_assert_int_eq(b.status, 0);
		ck_assert_int_eq(cJSON_GetArraySize(entries(&a)), 6);
		ea = strstr(a.out, "\"entries\":[");
		eb = strstr(b.out, "\"entries\":[");
		ck_assert_ptr_nonnull(ea);
		ck_assert_ptr_nonnull(eb);
		ck_assert_msg(strncmp(ea, eb, strcspn(ea, "]")) == 0 &&
			      strcspn(ea, "]") == strcspn(eb, "]"),
			      "--fields %s:\n%s\n%s", fields[i] ? fields[i] : "",
			      ea, eb);
		if (fields[i] == NULL || strstr(fields[i], "path") != NULL)
			ck_assert_ptr_nonnull(strstr(ea, "_bytes\":\""));
		wst_run_free(&a);
		wst_run_free(&b);
	}
	wst_rmrf(ws);
	free(ws);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Mounts (seed 001)                                                   */

START_TEST(seed_001_root_and_mounts)
{
	char *base = wst_tmpdir(), *ws = wst_path(base, "thread-123");
	char *skills = wst_path(base, "skills"), *ticket = wst_path(base, "ticket");
	char *m1, *m2;
	struct wst_run r;
	cJSON *e;
	const char *dirs[4];

	wst_mkdir(ws, ".venv");
	wst_write(ws, "package.json", "{}");
	wst_write(ws, "myfile.txt", "hi");
	wst_write(ws, ".solven/SHADOWED", "the mount hides this");
	wst_write(skills, "skills/system/planner.md", "p");
	wst_write(ticket, "notes.md", "n");
	ck_assert_int_ge(asprintf(&m1, "/.solven=%s", skills), 0);
	ck_assert_int_ge(asprintf(&m2, "/.ticket=%s:ro", ticket), 0);

	/* ls -la /: .venv, package.json, .solven, .ticket, myfile.txt */
	lsj(&r, ws, "--mount", m1, "--mount", m2, "-a", "/", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_str_eq(names(&r), ".solven,.ticket,.venv,myfile.txt,package.json");
	e = entry(&r, ".solven");
	ck_assert_str_eq(sget(e, "path"), "/.solven");
	ck_assert_str_eq(sget(e, "real_path"), skills);
	ck_assert_str_eq(sget(e, "type"), "dir");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(e, "mount")));
	ck_assert_str_eq(sget(entry(&r, ".ticket"), "real_path"), ticket);
	ck_assert_str_eq(sget(entry(&r, "myfile.txt"), "path"), "/myfile.txt");
	ck_assert_ptr_null(strstr(r.out, "SHADOWED"));
	wst_run_free(&r);

	/* Without -a the dot-named mounts are hidden like .venv. */
	lsj(&r, ws, "--mount", m1, "--mount", m2, NULL);
	ck_assert_str_eq(names(&r), "myfile.txt,package.json");
	wst_run_free(&r);

	/* Env WS_MOUNTS works the same. */
	{
		char *env, *wsenv;
		const char *envv[3];
		const char *argv[] = {"--json", "-a", NULL};

		ck_assert_int_ge(asprintf(&env, "WS_MOUNTS=%s,%s", m1, m2), 0);
		ck_assert_int_ge(asprintf(&wsenv, "WS_ROOT=%s", ws), 0);
		envv[0] = env;
		envv[1] = wsenv;
		envv[2] = NULL;
		wst_runv(&r, NULL, envv, "wsls", argv);
		ck_assert_str_eq(names(&r),
				 ".solven,.ticket,.venv,myfile.txt,package.json");
		wst_run_free(&r);
		free(env);
		free(wsenv);
	}

	/* ls /.solven/skills/system/ */
	lsj(&r, ws, "--mount", m1, "/.solven/skills/system/", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_str_eq(names(&r), "planner.md");
	ck_assert_str_eq(sget(entry(&r, "planner.md"), "path"),
			 "/.solven/skills/system/planner.md");
	wst_run_free(&r);

	/* -R descends into the mounts shown. */
	dirs[0] = ws;
	dirs[1] = skills;
	dirs[2] = ticket;
	dirs[3] = NULL;
	lsj(&r, ws, "--mount", m1, "--mount", m2, "-aR", "--fields", "name,path,real_path,type,size,target", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_ptr_nonnull(entry(&r, "planner.md"));
	ck_assert_str_eq(sget(entry(&r, "planner.md"), "path"),
			 "/.solven/skills/system/planner.md");
	ck_assert_str_eq(sget(entry(&r, "notes.md"), "path"), "/.ticket/notes.md");
	ck_assert(all_inside(r.json, dirs));
	ck_assert_ptr_null(strstr(r.out, "SHADOWED"));
	wst_run_free(&r);

	/* The host's /mnt is not reachable: shorthand inside the root. */
	expect_fail(ws, "/mnt/r2/", "NOT_FOUND", 5);

	free(m1);
	free(m2);
	wst_rmrf(base);
	free(base);
	free(ws);
	free(skills);
	free(ticket);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Options                                                             */

static char *
files_ws(int n)
{
	char *ws = wst_tmpdir();

	for (int i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "f%04d", i);
		wst_write(ws, name, "");
	}
	return ws;
}

START_TEST(max_entries)
{
	char *ws = files_ws(1005);
	struct wst_run r;

	lsj(&r, ws, "--max-entries", "3", NULL);
	ck_assert_str_eq(names(&r), "f0000,f0001,f0002");
	ck_assert_int_eq(wst_output(&r, "returned")->valueint, 3);
	ck_assert(cJSON_IsTrue(wst_output(&r, "truncated")));
	wst_run_free(&r);
	/* Exactly as many as there are: not truncated. */
	lsj(&r, ws, "--max-entries", "1005", NULL);
	ck_assert_int_eq(wst_output(&r, "returned")->valueint, 1005);
	ck_assert(cJSON_IsFalse(wst_output(&r, "truncated")));
	wst_run_free(&r);
	/* JSON default: 200, and the directory's true count. */
	lsj(&r, ws, NULL);
	ck_assert_int_eq(wst_output(&r, "returned")->valueint, 200);
	ck_assert_int_eq(cJSON_GetArraySize(entries(&r)), 200);
	ck_assert(cJSON_IsTrue(wst_output(&r, "truncated")));
	ck_assert_str_eq(wst_output_str(&r, "truncated_reason"), "max_entries");
	ck_assert_int_eq(wst_output(&r, "next_offset")->valueint, 200);
	ck_assert_int_eq(wst_output(&r, "entries_total")->valueint, 1005);
	ck_assert_str_eq(sget(cJSON_GetArrayItem(entries(&r), 199), "name"), "f0199");
	wst_run_free(&r);
	lsj(&r, ws, "--max-entries", "0", NULL);
	ck_assert_int_eq(wst_output(&r, "returned")->valueint, 1005);
	wst_run_free(&r);
	/* Plain default: unlimited; with a limit, a note on stderr. */
	lsp(&r, ws, NULL);
	{
		int lines = 0;

		for (char *p = r.out; *p; p++)
			lines += *p == '\n';
		ck_assert_int_eq(lines, 1005);
	}
	wst_run_free(&r);
	lsp(&r, ws, "--max-entries", "2", NULL);
	ck_assert_str_eq(r.out, "f0000\nf0001\n");
	ck_assert_ptr_nonnull(strstr(r.err, "--max-entries"));
	ck_assert_int_eq(r.status, 0);
	wst_run_free(&r);
	/* Across a recursive walk the limit is global. */
	wst_write(ws, "a/x", "");
	wst_write(ws, "a/y", "");
	lsj(&r, ws, "-R", "--max-entries", "1002", "a", NULL);
	ck_assert_int_eq(wst_output(&r, "returned")->valueint, 2);
	ck_assert(cJSON_IsFalse(wst_output(&r, "truncated")));
	wst_run_free(&r);
	wst_rmrf(ws);
	free(ws);
}
END_TEST

START_TEST(depth_and_recursive)
{
	char *ws = wst_tmpdir();
	struct wst_run r;

	wst_write(ws, "a/b/c/d.txt", "");
	wst_write(ws, "top.txt", "");
	lsj(&r, ws, NULL);
	ck_assert_str_eq(names(&r), "a,top.txt");
	wst_run_free(&r);
	lsj(&r, ws, "--depth", "2", NULL);
	ck_assert_str_eq(names(&r), "a,top.txt,b");
	ck_assert_str_eq(sget(entry(&r, "b"), "path"), "/a/b");
	wst_run_free(&r);
	lsj(&r, ws, "--depth", "3", NULL);
	ck_assert_str_eq(names(&r), "a,top.txt,b,c");
	wst_run_free(&r);
	lsj(&r, ws, "-R", NULL);
	ck_assert_str_eq(names(&r), "a,top.txt,b,c,d.txt");
	ck_assert_str_eq(sget(entry(&r, "d.txt"), "path"), "/a/b/c/d.txt");
	wst_run_free(&r);
	/* --depth bounds -R. */
	lsj(&r, ws, "-R", "--depth", "2", NULL);
	ck_assert_str_eq(names(&r), "a,top.txt,b");
	wst_run_free(&r);
	/* Plain: ls -R sections. */
	lsp(&r, ws, "-R", NULL);
	ck_assert_str_eq(r.out, "/:\na\ntop.txt\n\n/a:\nb\n\n/a/b:\nc\n\n/a/b/c:\nd.txt\n");
	wst_run_free(&r);
	lsp(&r, ws, "-R", "--paths", "relative", "a", NULL);
	/* Into a pipe, with a path form: a flat list of paths, no headers. */
	ck_assert_str_eq(r.out, "a/b\na/b/c\na/b/c/d.txt\n");
	wst_run_free(&r);
	/* Bad values. */
	lsj(&r, ws, "--depth", "0", NULL);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_int_eq(r.status, 2);
	wst_run_free(&r);
	lsj(&r, ws, "--max-entries", "-1", NULL);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	wst_rmrf(ws);
	free(ws);
}
END_TEST

START_TEST(sort_and_fields)
{
	char *ws = wst_tmpdir(), *p;
	struct wst_run r;
	struct timespec ts[2] = {{1795643380, 0}, {1795643380, 0}};
	cJSON *e;

	wst_write(ws, "small", "1");
	wst_write(ws, "big", "1234567890");
	wst_write(ws, "mid", "12345");
	p = wst_path(ws, "mid");
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	ck_assert_int_eq(chmod(p, 0640), 0);
	free(p);
	p = wst_path(ws, "small");
	ts[0].tv_sec = ts[1].tv_sec = 1795643380 - 100;
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(p);
	p = wst_path(ws, "big");
	ts[0].tv_sec = ts[1].tv_sec = 1795643380 - 200;
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(p);

	/* The default entry: name, path, type, size, nothing more. */
	lsj(&r, ws, NULL);
	ck_assert_str_eq(names(&r), "big,mid,small");
	e = entry(&r, "mid");
	ck_assert_str_eq(sget(e, "type"), "file");
	ck_assert_int_eq(cJSON_GetObjectItem(e, "size")->valueint, 5);
	ck_assert_str_eq(sget(e, "path"), "/mid");
	ck_assert_int_eq(cJSON_GetArraySize(e), 4);
	wst_run_free(&r);
	/* -l adds mtime, mode and the version token. */
	lsj(&r, ws, "-l", NULL);
	e = entry(&r, "mid");
	ck_assert_str_eq(sget(e, "mtime"), "2026-11-25T21:49:40Z");
	ck_assert_str_eq(sget(e, "mode"), "0640");
	ck_assert_uint_eq(strlen(sget(e, "version")), 16);
	wst_run_free(&r);
	/* --fields picks the keys, in a fixed order. */
	lsj(&r, ws, "--fields", "real_path,name", NULL);
	e = entry(&r, "mid");
	p = wst_path(ws, "mid");
	ck_assert_str_eq(sget(e, "real_path"), p);
	free(p);
	ck_assert_int_eq(cJSON_GetArraySize(e), 2);
	ck_assert_ptr_null(sget(e, "path"));
	wst_run_free(&r);
	lsj(&r, ws, "--fields", "name,colour", NULL);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(r.out, "colour"));
	wst_run_free(&r);
	lsj(&r, ws, "--sort", "size", NULL);
	ck_assert_str_eq(names(&r), "big,mid,small");
	wst_run_free(&r);
	lsj(&r, ws, "--sort", "mtime", NULL);
	ck_assert_str_eq(names(&r), "mid,small,big");
	wst_run_free(&r);
	lsj(&r, ws, "--sort", "name", NULL);
	ck_assert_str_eq(names(&r), "big,mid,small");
	wst_run_free(&r);
	lsj(&r, ws, "--sort", "color", NULL);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_int_eq(r.status, 2);
	wst_run_free(&r);
	/* Plain long format. */
	wst_symlink("mid", ws, "zlink");
	lsp(&r, ws, "-l", NULL);
	ck_assert_ptr_nonnull(strstr(r.out,
		"-rw-r-----         5 2026-11-25T21:49:40Z mid\n"));
	ck_assert_ptr_nonnull(strstr(r.out, " zlink -> mid\n"));
	ck_assert(strncmp(r.out, "-rw-", 4) == 0);
	wst_run_free(&r);
	/* A file PATH lists that one entry. */
	lsj(&r, ws, "mid", NULL);
	ck_assert_str_eq(wst_output_str(&r, "path"), "/mid");
	ck_assert_str_eq(names(&r), "mid");
	ck_assert_int_eq(wst_output(&r, "returned")->valueint, 1);
	wst_run_free(&r);
	/* A file PATH through a symlink: the link's name, the target's data. */
	lsj(&r, ws, "zlink", NULL);
	ck_assert_str_eq(names(&r), "zlink");
	ck_assert_str_eq(sget(entry(&r, "zlink"), "type"), "file");
	wst_run_free(&r);
	lsp(&r, ws, "mid", NULL);
	ck_assert_str_eq(r.out, "/mid\n");
	wst_run_free(&r);
	lsp(&r, ws, "--paths", "real", "mid", NULL);
	p = wst_path(ws, "mid");
	ck_assert(strncmp(r.out, p, strlen(p)) == 0);
	free(p);
	wst_run_free(&r);
	wst_rmrf(ws);
	free(ws);
}
END_TEST

START_TEST(hidden_entries)
{
	char *ws = wst_tmpdir();
	struct wst_run r;

	wst_write(ws, ".env", "");
	wst_write(ws, ".git/config", "");
	wst_write(ws, "vis", "");
	lsj(&r, ws, "-R", NULL);
	ck_assert_str_eq(names(&r), "vis");
	wst_run_free(&r);
	lsj(&r, ws, "-R", "-a", NULL);
	ck_assert_str_eq(names(&r), ".env,vis");
	wst_run_free(&r);
	/* .git is skipped by a recursive listing unless --no-ignore. */
	lsj(&r, ws, "-R", "-a", "--no-ignore", NULL);
	ck_assert_str_eq(names(&r), ".env,.git,vis,config");
	wst_run_free(&r);
	lsj(&r, ws, "--args", "{\"all\": true}", NULL);
	ck_assert_str_eq(names(&r), ".env,.git,vis");
	wst_run_free(&r);
	wst_rmrf(ws);
	free(ws);
}
END_TEST

START_TEST(schema_and_args)
{
	char *ws = wst_tmpdir();
	struct wst_run r;
	cJSON *fn, *props;
	const char *keys[] = {"path", "all", "long", "recursive", "depth",
			      "sort", "max_entries", "offset", "max_output",
			      "fields", "no_ignore", "exclude", "directory",
			      NULL};

	wst_write(ws, "d/x", "");
	wst_write(ws, "d/y/z", "");
	lsp(&r, ws, "--schema", NULL);
	ck_assert_ptr_nonnull(r.json);
	ck_assert_str_eq(sget(r.json, "type"), "function");
	fn = cJSON_GetObjectItem(r.json, "function");
	ck_assert_str_eq(sget(fn, "name"), "list_directory");
	props = cJSON_GetObjectItem(cJSON_GetObjectItem(fn, "parameters"),
				    "properties");
	for (int i = 0; keys[i]; i++)
		ck_assert_msg(cJSON_GetObjectItem(props, keys[i]) != NULL,
			      "schema lacks %s", keys[i]);
	/* ... and "paths", for several in one call. */
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(props, "paths"));
	ck_assert_int_eq(cJSON_GetArraySize(props), 14);
	wst_run_free(&r);

	lsp(&r, ws, "--args", "{\"path\": \"d\", \"recursive\": true, "
		    "\"max_entries\": 10, \"sort\": \"name\"}", NULL);
	ck_assert_ptr_nonnull(r.json);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_str_eq(names(&r), "x,y,z");
	wst_run_free(&r);
	lsp(&r, ws, "--args", "{\"path\": \"d\", \"depth\": 1}", "--plain", NULL);
	ck_assert_str_eq(r.out, "x\ny\n");
	wst_run_free(&r);
	lsp(&r, ws, "--args", "{\"path\": \"d\", \"colour\": true}", NULL);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_int_eq(r.status, 2);
	wst_run_free(&r);
	lsp(&r, ws, "--args", "{\"depth\": \"two\"}", NULL);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_int_eq(r.status, 2);
	wst_run_free(&r);
	lsp(&r, ws, "--args", "{\"path\": \"../x\"}", NULL);
	ck_assert_str_eq(wst_code(&r), "PATH_OUTSIDE_WORKSPACE");
	ck_assert_int_eq(r.status, 3);
	wst_run_free(&r);
	lsp(&r, ws, "--help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "wsls [OPTION]... [PATH]..."));
	wst_run_free(&r);
	wst_rmrf(ws);
	free(ws);
}
END_TEST

START_TEST(several_paths)
{
	struct fx f;
	struct wst_run r;
	cJSON *res;

	fx_make(&f);
	lsj(&r, f.ws, "sub", "a.txt", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_int_eq(r.status, 0);
	res = wst_output(&r, "results");
	ck_assert_int_eq(cJSON_GetArraySize(res), 2);
	ck_assert_str_eq(sget(cJSON_GetArrayItem(res, 0), "path"), "/sub");
	ck_assert_ptr_nonnull(entry_in(cJSON_GetObjectItem(cJSON_GetArrayItem(res, 0),
							   "entries"), "g.h"));
	ck_assert_str_eq(sget(cJSON_GetArrayItem(res, 1), "path"), "/a.txt");
	wst_run_free(&r);
	/* One bad PATH: the others are listed, the envelope names the error. */
	lsj(&r, f.ws, "sub", "out", "a.txt", NULL);
	ck_assert_str_eq(wst_code(&r), "SYMLINK_OUTSIDE_WORKSPACE");
	ck_assert_int_eq(r.status, 3);
	/* Any failure makes the envelope a failure, with the results kept. */
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(r.json, "success")));
	res = wst_output(&r, "results");
	ck_assert_int_eq(cJSON_GetArraySize(res), 3);
	ck_assert_str_eq(sget(cJSON_GetObjectItem(cJSON_GetArrayItem(res, 1), "error"),
			      "code"), "SYMLINK_OUTSIDE_WORKSPACE");
	ck_assert_ptr_null(strstr(r.out, "OUTSIDE_MARKER"));
	wst_run_free(&r);
	/* Plain: ls-style sections, an error on stderr. */
	lsp(&r, f.ws, "sub", "nope", "sub/deep", NULL);
	ck_assert_str_eq(r.out, "/sub:\ndeep\ng.h\n\n/sub/deep:\nf.c\n");
	ck_assert_ptr_nonnull(strstr(r.err, "wsls: nope:"));
	ck_assert_ptr_nonnull(strstr(r.err, "(NOT_FOUND)"));
	ck_assert_int_eq(r.status, 5);
	wst_run_free(&r);
	/* A plain single error. */
	lsp(&r, f.ws, "out", NULL);
	ck_assert_str_eq(r.out, "");
	ck_assert_ptr_nonnull(strstr(r.err, "wsls: out: "));
	ck_assert_ptr_nonnull(strstr(r.err, "(SYMLINK_OUTSIDE_WORKSPACE)"));
	ck_assert_int_eq(r.status, 3);
	wst_run_free(&r);
	fx_free(&f);
}
END_TEST

/* The output's hidden_by_policy, or -1 when the key is absent. */
static int
hidden_by_policy(const struct wst_run *r)
{
	cJSON *v = wst_output(r, "hidden_by_policy");

	return cJSON_IsNumber(v) ? v->valueint : -1;
}

/* The policy gate: list, stat and readlink are asked before acting. */
START_TEST(policy_gate)
{
	struct fx f;
	struct wst_run r;
	char *pol;
	cJSON *errs, *e;

	fx_make(&f);
	wst_write(f.ws, "secret/inner/KEY_FILE", "k");
	wst_write(f.ws, "vault/VAULT_FILE", "v");
	wst_symlink("a.txt", f.ws, "hidelink");
	pol = wst_path(f.base, "pol.json");
	wst_write(f.base, "pol.json",
		  "{\"version\": 1, \"name\": \"t\", \"file_rules\": [\n"
		  " {\"name\": \"deny-secret\", \"paths\": [\"${WORKSPACE}/secret\",\n"
		  "  \"${WORKSPACE}/secret/**\"], \"operations\": [\"*\"],\n"
		  "  \"decision\": \"deny\"},\n"
		  " {\"name\": \"no-list-vault\", \"paths\": [\"${WORKSPACE}/vault\"],\n"
		  "  \"operations\": [\"list\"], \"decision\": \"deny\"},\n"
		  " {\"name\": \"no-readlink\", \"paths\": [\"${WORKSPACE}/hidelink\"],\n"
		  "  \"operations\": [\"readlink\"], \"decision\": \"deny\"},\n"
		  " {\"name\": \"ask-deep\", \"paths\": [\"${WORKSPACE}/sub/deep\"],\n"
		  "  \"operations\": [\"list\"], \"decision\": \"approve\",\n"
		  "  \"message\": \"List {{.Path}}?\"},\n"
		  " {\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],\n"
		  "  \"decision\": \"allow\"}]}\n");
	/* The PATH itself. */
	lsj(&r, f.ws, "--policy", pol, "secret", NULL);
	ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
	ck_assert_int_eq(r.status, 3);
	ck_assert_ptr_null(strstr(r.out, "KEY_FILE"));
	wst_run_free(&r);
	lsj(&r, f.ws, "--policy", pol, "secret/inner/KEY_FILE", NULL);
	ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
	wst_run_free(&r);
	lsj(&r, f.ws, "--policy", pol, "sub/deep", NULL);
	ck_assert_str_eq(wst_code(&r), "APPROVAL_REQUIRED");
	ck_assert_int_eq(r.status, 4);
	wst_run_free(&r);
	lsj(&r, f.ws, "--policy", pol, "--approve", "sub/deep", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_str_eq(names(&r), "f.c");
	wst_run_free(&r);
	/*
	 * Recursing: directories the policy lets be stat'ed but not listed
	 * are listed, not entered, and said; /secret, which may not even be
	 * stat'ed, is left out and counted (see policy_hides_entries).
	 */
	lsj(&r, f.ws, "--policy", pol, "-R", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_null(entry(&r, "secret"));
	ck_assert_int_eq(hidden_by_policy(&r), 1);
	ck_assert_ptr_null(strstr(r.out, "KEY_FILE"));
	ck_assert_ptr_nonnull(entry(&r, "vault"));
	ck_assert_ptr_null(strstr(r.out, "VAULT_FILE"));
	ck_assert_ptr_null(entry(&r, "f.c"));
	errs = wst_output(&r, "errors");
	ck_assert_int_eq(cJSON_GetArraySize(errs), 2);
	ck_assert_str_eq(sget(cJSON_GetArrayItem(errs, 0), "code"),
			 "APPROVAL_REQUIRED");
	e = cJSON_GetArrayItem(errs, 1);
	ck_assert_str_eq(sget(e, "path"), "/vault");
	ck_assert_str_eq(sget(e, "code"), "POLICY_DENIED");
	/* A refused readlink leaves the target out, nothing else. */
	e = entry(&r, "hidelink");
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_null(cJSON_GetObjectItem(e, "target"));
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(e, "target_outside")));
	ck_assert_str_eq(sget(entry(&r, "srclink"), "target"), "sub");
	wst_run_free(&r);
	lsp(&r, f.ws, "--policy", pol, "-R", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_null(strstr(r.out, "KEY_FILE"));
	ck_assert_ptr_null(strstr(r.out, "secret"));
	ck_assert_ptr_nonnull(strstr(r.err, "wsls: /vault: "));
	ck_assert_ptr_nonnull(strstr(r.err, "(POLICY_DENIED)"));
	ck_assert_ptr_nonnull(strstr(r.err, "wsls: /: 1 entry hidden by the policy\n"));
	wst_run_free(&r);
	free(pol);
	fx_free(&f);
}
END_TEST

/*
 * An entry the policy would not stat is not listed either: no name, size,
 * mtime or mode of it leaks, it is only counted, and a directory hidden so
 * is not entered.  A deny on everything below X (the glob "X/" then "**",
 * which does not match X itself) hides what is inside X from `wsls X`.
 */
START_TEST(policy_hides_entries)
{
	struct fx f;
	struct wst_run r;
	char *pol, *mdir, *mspec, *text;
	cJSON *e;

	fx_make(&f);
	/* .env is the largest file, so that --sort size would show it first. */
	wst_write(f.ws, ".env", "TOKEN=0123456789abcdef0123456789abcdef\n");
	wst_write(f.ws, "sub/.env", "X=1\n");
	wst_write(f.ws, "secret/KEY_FILE", "k");
	wst_write(f.ws, "secret/inner/INNER_FILE", "k");
	wst_write(f.ws, "private/VISIBLE_BELOW", "v");
	mdir = wst_path(f.base, "mdir");
	wst_write(mdir, "MOUNT_FILE", "m");
	ck_assert_int_ne(asprintf(&mspec, "/.mnt=%s", mdir), -1);
	pol = wst_path(f.base, "pol.json");
	ck_assert_int_ne(asprintf(&text,
		"{\"version\": 1, \"name\": \"t\", \"file_rules\": [\n"
		" {\"name\": \"deny-env\", \"paths\": [\"**/.env\"],\n"
		"  \"operations\": [\"*\"], \"decision\": \"deny\"},\n"
		" {\"name\": \"deny-secret\", \"paths\": [\"${WORKSPACE}/secret/**\"],\n"
		"  \"operations\": [\"*\"], \"decision\": \"deny\"},\n"
		" {\"name\": \"ask-private\", \"paths\": [\"${WORKSPACE}/private\"],\n"
		"  \"operations\": [\"stat\"], \"decision\": \"approve\"},\n"
		" {\"name\": \"deny-mount\", \"paths\": [\"%s\"],\n"
		"  \"operations\": [\"stat\"], \"decision\": \"deny\"},\n"
		" {\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],\n"
		"  \"decision\": \"allow\"}]}\n", mdir), -1);
	wst_write(f.base, "pol.json", text);
	free(text);

	/* The entry itself is refused, as before. */
	lsj(&r, f.ws, "--policy", pol, "/.env", NULL);
	ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
	wst_run_free(&r);
	/* -la /: .env and the approval-needing private are left out. */
	lsj(&r, f.ws, "--policy", pol, "-la", "/", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_null(entry(&r, ".env"));
	ck_assert_ptr_null(strstr(r.out, ".env"));
	ck_assert_ptr_null(entry(&r, "private"));
	ck_assert_ptr_nonnull(entry(&r, "a.txt"));
	ck_assert_ptr_nonnull(entry(&r, ".dot"));
	/* secret itself matches no deny: shown. */
	ck_assert_ptr_nonnull(entry(&r, "secret"));
	ck_assert_int_eq(hidden_by_policy(&r), 2);
	ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r.json, "output"),
					     "returned")->valueint,
			 cJSON_GetArraySize(entries(&r)));
	wst_run_free(&r);
	/* --approve lets the approval-needing one through. */
	lsj(&r, f.ws, "--policy", pol, "--approve", "-a", "/", NULL);
	ck_assert_ptr_nonnull(entry(&r, "private"));
	ck_assert_ptr_null(entry(&r, ".env"));
	ck_assert_int_eq(hidden_by_policy(&r), 1);
	wst_run_free(&r);
	/* Plain: the same, and a note on stderr; the exit status stays 0. */
	lsp(&r, f.ws, "--policy", pol, "-la", "/", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_null(strstr(r.out, ".env"));
	ck_assert_ptr_null(strstr(r.out, "private"));
	ck_assert_ptr_nonnull(strstr(r.out, "a.txt"));
	ck_assert_ptr_nonnull(strstr(r.err, "wsls: /: 2 entries hidden by the policy\n"));
	wst_run_free(&r);
	/* A deny below secret hides what is inside it. */
	lsj(&r, f.ws, "--policy", pol, "/secret", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(cJSON_GetArraySize(entries(&r)), 0);
	ck_assert_ptr_null(strstr(r.out, "KEY_FILE"));
	ck_assert_ptr_null(strstr(r.out, "inner"));
	ck_assert_int_eq(hidden_by_policy(&r), 2);
	wst_run_free(&r);
	lsp(&r, f.ws, "--policy", pol, "secret", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "");
	ck_assert_ptr_nonnull(strstr(r.err, "wsls: /secret: 2 entries hidden by the policy\n"));
	wst_run_free(&r);
	/*
	 * Recursing: nothing hidden shows at any depth, and a hidden
	 * directory is not entered even where its entries are allowed.
	 */
	lsj(&r, f.ws, "--policy", pol, "--mount", mspec, "-R", "-a", "-l",
	    "--max-entries", "0", "/", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_null(strstr(r.out, ".env"));
	ck_assert_ptr_null(strstr(r.out, "KEY_FILE"));
	ck_assert_ptr_null(strstr(r.out, "INNER_FILE"));
	ck_assert_ptr_null(strstr(r.out, "VISIBLE_BELOW"));
	ck_assert_ptr_null(strstr(r.out, "private"));
	ck_assert_ptr_null(strstr(r.out, "MOUNT_FILE"));
	ck_assert_ptr_null(strstr(r.out, ".mnt"));
	ck_assert_ptr_nonnull(entry(&r, "f.c"));
	/* /.env /private /.mnt /secret/KEY_FILE /secret/inner /sub/.env */
	ck_assert_int_eq(hidden_by_policy(&r), 6);
	ck_assert_ptr_null(wst_output(&r, "errors"));
	wst_run_free(&r);
	lsp(&r, f.ws, "--policy", pol, "--mount", mspec, "-R", "-a", "/", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_null(strstr(r.out, "VISIBLE_BELOW"));
	ck_assert_ptr_null(strstr(r.out, "MOUNT_FILE"));
	ck_assert_ptr_null(strstr(r.out, ".env"));
	ck_assert_ptr_nonnull(strstr(r.err, "wsls: /: 6 entries hidden by the policy\n"));
	wst_run_free(&r);
	/* A hidden entry takes no place in --max-entries, whatever the order. */
	lsj(&r, f.ws, "--policy", pol, "-a", "--sort", "size", "--max-entries",
	    "1", "/", NULL);
	ck_assert_int_eq(cJSON_GetArraySize(entries(&r)), 1);
	e = cJSON_GetArrayItem(entries(&r), 0);
	ck_assert_str_ne(sget(e, "name"), ".env");
	ck_assert(cJSON_IsTrue(wst_output(&r, "truncated")));
	wst_run_free(&r);
	/* Names -a does not show are not counted: no key at 0. */
	lsj(&r, f.ws, "--policy", pol, "/sub", NULL);
	ck_assert_ptr_nonnull(entry(&r, "deep"));
	ck_assert_int_eq(hidden_by_policy(&r), -1);
	wst_run_free(&r);
	lsp(&r, f.ws, "--policy", pol, "sub", NULL);
	ck_assert_str_eq(r.err, "");
	wst_run_free(&r);
	/* Without a policy everything shows. */
	lsj(&r, f.ws, "--mount", mspec, "-a", "/", NULL);
	ck_assert_ptr_nonnull(entry(&r, ".env"));
	ck_assert_ptr_nonnull(entry(&r, "private"));
	ck_assert_ptr_nonnull(entry(&r, ".mnt"));
	ck_assert_int_eq(hidden_by_policy(&r), -1);
	wst_run_free(&r);
	free(mspec);
	free(mdir);
	free(pol);
	fx_free(&f);
}
END_TEST

/* A directory over the plain sort limit streams with bounded memory. */
START_TEST(huge_directory_plain)
{
	char *ws = wst_tmpdir(), *dir = wst_path(ws, "big");
	struct wst_run r;
	int dfd, lines = 0;
	const int n = 70000;

	mkdir(dir, 0755);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dfd, 0);
	for (int i = 0; i < n; i++) {
		char name[32];
		int fd;

		snprintf(name, sizeof(name), "e%06d", i);
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		ck_assert_int_ge(fd, 0);
		close(fd);
	}
	close(dfd);
	lsp(&r, ws, "big", NULL);
	ck_assert_int_eq(r.status, 0);
	for (char *p = r.out; *p; p++)
		lines += *p == '\n';
	ck_assert_int_eq(lines, n);
	ck_assert_ptr_nonnull(strstr(r.err, "unsorted"));
	wst_run_free(&r);
	/* Asking for an order sorts them all. */
	lsp(&r, ws, "--sort", "name", "big", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert(strncmp(r.out, "e000000\ne000001\ne000002\n", 24) == 0);
	ck_assert_ptr_nonnull(strstr(r.out, "e069998\ne069999\n"));
	ck_assert_str_eq(r.err, "");
	wst_run_free(&r);
	/* JSON keeps only what it shows: the first 1000 by name. */
	lsj(&r, ws, "--max-entries", "1000", "--max-output", "0", "big", NULL);
	ck_assert_int_eq(cJSON_GetArraySize(entries(&r)), 1000);
	ck_assert_str_eq(sget(cJSON_GetArrayItem(entries(&r), 0), "name"), "e000000");
	ck_assert_str_eq(sget(cJSON_GetArrayItem(entries(&r), 999), "name"), "e000999");
	ck_assert(cJSON_IsTrue(wst_output(&r, "truncated")));
	wst_run_free(&r);
	wst_rmrf(ws);
	free(dir);
	free(ws);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Running out of descriptors                                          */

/*
 * wsls --workspace ws ARGS... with RLIMIT_NOFILE at soft/hard, in a child
 * of the test (wst_runv_nofile(): a lowered hard limit cannot be raised
 * again without privilege).
 */
static void __attribute__((sentinel))
ls_limited(struct wst_run *r, rlim_t soft, rlim_t hard, const char *ws, ...)
{
	const char *argv[64];
	size_t n = 0;
	va_list ap;

	argv[n++] = "--workspace";
	argv[n++] = ws;
	va_start(ap, ws);
	while (n < 63 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	wst_runv_nofile(r, NULL, "wsls", argv, soft, hard);
	ck_assert_msg(r->status != -3, "the limited run failed (setrlimit?)");
}

static void
st_touch(int dirfd)
{
	int fd = openat(dirfd, "BOTTOM_FILE", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	close(fd);
}

/* ws/d/d/d/... depth levels deep; the deepest holds BOTTOM_FILE. */
static void
deep_tree(const char *ws, int depth)
{
	int fd = open(ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	for (int i = 0; i < depth; i++) {
		int nfd;

		ck_assert_int_eq(mkdirat(fd, "d", 0755), 0);
		nfd = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ck_assert_int_ge(nfd, 0);
		close(fd);
		fd = nfd;
	}
	st_touch(fd);
	close(fd);
}

/*
 * The walker keeps a descriptor per level: a tree deeper than the limit
 * cannot be listed whole.  The directory it could not open is reported,
 * and the listing fails (IO_ERROR, exit 5) with what it did list, instead
 * of ending early with exit 0.  With room under the hard limit, wsls
 * raises the soft one and lists it all.
 */
START_TEST(deep_tree_out_of_descriptors)
{
	char *ws = wst_tmpdir();
	struct wst_run r;
	struct rlimit cur;
	const int depth = 200;
	cJSON *errs, *e;
	int total, lines = 0;

	deep_tree(ws, depth);
	/* soft = hard = 64: it cannot be raised. */
	ls_limited(&r, 64, 64, ws, "-R", NULL);
	ck_assert_int_eq(r.status, 5);
	ck_assert_ptr_null(strstr(r.out, "BOTTOM_FILE"));
	ck_assert_ptr_nonnull(strstr(r.out, "/d/d/d:\n"));
	ck_assert_ptr_nonnull(strstr(r.err, "Too many open files"));
	ck_assert_ptr_nonnull(strstr(r.err, "wsls: /: listing incomplete: 1 "
					    "directory could not be opened "
					    "(too many open files) (IO_ERROR)\n"));
	wst_run_free(&r);
	ls_limited(&r, 64, 64, ws, "--json", "-R", NULL);
	ck_assert_int_eq(r.status, 5);
	ck_assert_msg(r.json != NULL, "no JSON: %s", r.out);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(r.json, "success")));
	ck_assert_str_eq(wst_code(&r), "IO_ERROR");
	ck_assert_ptr_nonnull(strstr(cJSON_GetObjectItem(cJSON_GetObjectItem(
		r.json, "error"), "message")->valuestring, "listing incomplete"));
	/* What could be listed is there, and what could not is named. */
	total = cJSON_GetObjectItem(cJSON_GetObjectItem(r.json, "output"),
				    "returned")->valueint;
	ck_assert_int_gt(total, 10);
	ck_assert_int_lt(total, depth);
	ck_assert_int_eq(cJSON_GetArraySize(entries(&r)), total);
	errs = wst_output(&r, "errors");
	ck_assert_int_eq(cJSON_GetArraySize(errs), 1);
	e = cJSON_GetArrayItem(errs, 0);
	ck_assert_str_eq(sget(e, "code"), "IO_ERROR");
	ck_assert_ptr_nonnull(strstr(sget(e, "message"), "Too many open files"));
	/* The last entry listed is the directory that could not be opened. */
	ck_assert_int_eq((int)strlen(sget(e, "path")), 2 * total);
	wst_run_free(&r);
	/* Several PATHs: that one fails, the envelope says so. */
	ls_limited(&r, 64, 64, ws, "--json", "-R", "/", "/d/d", NULL);
	ck_assert_int_eq(r.status, 5);
	ck_assert_str_eq(wst_code(&r), "IO_ERROR");
	wst_run_free(&r);
	/* A flat listing needs no more descriptors: fine. */
	ls_limited(&r, 64, 64, ws, "--json", "/", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(wst_code(&r), "");
	wst_run_free(&r);
	/* soft 64 under a larger hard limit: raised, all of it listed. */
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &cur), 0);
	if (cur.rlim_max >= (rlim_t)depth + 64) {
		ls_limited(&r, 64, cur.rlim_max, ws, "-R", NULL);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(r.err, "");
		ck_assert_ptr_nonnull(strstr(r.out, "BOTTOM_FILE\n"));
		for (char *p = r.out; *p; p++)
			lines += *p == '\n';
		/* A header, the entry and a blank line per level. */
		ck_assert_int_eq(lines, 3 * (depth + 1) - 1);
		wst_run_free(&r);
		ls_limited(&r, 64, cur.rlim_max, ws, "--json", "-R",
			   "--max-entries", "0", "--max-output", "0", NULL);
		ck_assert_int_eq(r.status, 0);
		ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(r.json, "success")));
		ck_assert_int_eq(cJSON_GetArraySize(entries(&r)), depth + 1);
		ck_assert_ptr_null(wst_output(&r, "errors"));
		wst_run_free(&r);
	} else {
		fprintf(stderr, "deep_tree_out_of_descriptors: hard limit %llu "
			"too low to check the raise\n",
			(unsigned long long)cur.rlim_max);
	}
	wst_rmrf(ws);
	free(ws);
}
END_TEST

/*
 * Whether a symlink leads outside is found by resolving it, which needs a
 * few descriptors more than the walk holds: at any limit, the listing is
 * either complete and right (target_outside true) or fails as incomplete,
 * never a success that says false.
 */
START_TEST(deep_symlink_verdict_under_fd_limit)
{
	char *base = wst_tmpdir(), *ws = wst_path(base, "ws");
	char *out = wst_path(base, "out");
	char *rel = NULL;
	int oks = 0, fails = 0;

	wst_mkdir(base, "ws");
	wst_write(out, "OUT_FILE", "o");
	deep_tree(ws, 30);
	for (int i = 0; i < 30; i++) {
		char *n;

		ck_assert_int_ne(asprintf(&n, "%sd/", rel ? rel : ""), -1);
		free(rel);
		rel = n;
	}
	{
		char *l;

		ck_assert_int_ne(asprintf(&l, "%slnk", rel), -1);
		wst_symlink(out, ws, l);
		free(l);
	}
	for (rlim_t lim = 16; lim <= 64; lim++) {
		struct wst_run r;
		cJSON *e;

		ls_limited(&r, lim, lim, ws, "--json", "-R", NULL);
		ck_assert_msg(r.json != NULL, "limit %d: no JSON: %s", (int)lim,
			      r.out);
		e = entry(&r, "lnk");
		if (r.status == 0) {
			ck_assert_msg(e != NULL, "limit %d: lnk not listed", (int)lim);
			ck_assert_msg(cJSON_IsTrue(cJSON_GetObjectItem(e, "target_outside")),
				      "limit %d: target_outside is not true", (int)lim);
			ck_assert_ptr_null(wst_output(&r, "errors"));
			oks++;
		} else {
			ck_assert_msg(r.status == 5, "limit %d: status %d", (int)lim,
				      r.status);
			ck_assert_str_eq(wst_code(&r), "IO_ERROR");
			fails++;
		}
		wst_run_free(&r);
	}
	ck_assert_int_gt(oks, 0);
	ck_assert_int_gt(fails, 0);
	free(rel);
	free(out);
	wst_rmrf(base);
	free(ws);
	free(base);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The rename race                                                     */

struct ls_race {
	const char *ws;
	int listed_inside;
};

/* One recursive listing (in turn of four forms) while the swapper runs. */
static void
ls_attempt(void *arg, int i)
{
	struct ls_race *lr = arg;
	struct wst_run r;

	switch (i % 4) {
	case 0: lsj(&r, lr->ws, "-R", "-a", "--max-entries", "0", NULL); break;
	case 1: lsj(&r, lr->ws, "-R", "x", NULL); break;
	case 2: lsj(&r, lr->ws, "-R", i % 8 == 2 ? "x/d" : "x/l", NULL); break;
	default: lsp(&r, lr->ws, "-R", "-a", NULL); break;
	}
	ck_assert_msg(r.status != -1, "wsls hung");
	ck_assert_msg(strstr(r.out, "ESCAPE_MARKER") == NULL,
		      "run %d listed outside: %s", i, r.out);
	ck_assert_msg(strstr(r.err, "ESCAPE_MARKER") == NULL,
		      "run %d: %s", i, r.err);
	if (strstr(r.out, "inside_deeper") != NULL)
		lr->listed_inside++;
	wst_run_free(&r);
}

/*
 * A child swaps ws/d (a directory) with ws/l (a symlink to an outside
 * directory holding the marker) with RENAME_EXCHANGE as fast as it can,
 * while wsls lists recursively, again and again.  The marker must never
 * show up.  (The race suite runs every tool so.)
 */
START_TEST(rename_exchange_race)
{
	struct fx f;
	char *d, *l;
	struct ls_race lr = {NULL, 0};
	unsigned long swaps;

	fx_make(&f);
	wst_write(f.out, "deeper/ESCAPE_MARKER_7f3a", "x");
	wst_write(f.out, "ESCAPE_MARKER_7f3b", "x");
	wst_write(f.ws, "x/d/inside_file", "x");
	wst_write(f.ws, "x/d/inner/inside_deeper", "x");
	wst_symlink(f.out, f.ws, "x/l");
	d = wst_path(f.ws, "x/d");
	l = wst_path(f.ws, "x/l");
	lr.ws = f.ws;
	swaps = wst_race(d, l, WST_RACE_EXCHANGE, wst_race_iterations(240), ls_attempt, &lr);
	ck_assert_msg(swaps > 100, "the swapper did not run (%lu)", swaps);
	ck_assert_msg(lr.listed_inside > 0, "the directory was never listed");
	free(d);
	free(l);
	fx_free(&f);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Sized for a model: paging, byte cap, fields (issue 9)               */

START_TEST(paging_1500_no_gaps)
{
	char *ws = files_ws(1500);
	struct wst_run r;
	char seen[1500] = {0};
	long long off = 0;
	int pages = 0, n = 0;

	/* JSON defaults: 200 a page, every page knows the true count. */
	do {
		char offs[32];
		cJSON *arr, *it;

		snprintf(offs, sizeof(offs), "%lld", off);
		lsj(&r, ws, "--offset", offs, NULL);
		ck_assert_str_eq(wst_code(&r), "");
		ck_assert_int_eq(wst_output(&r, "entries_total")->valueint, 1500);
		arr = entries(&r);
		cJSON_ArrayForEach(it, arr) {
			int i = atoi(sget(it, "name") + 1);

			ck_assert_int_eq(i, n); /* in order: no gap, no repeat */
			ck_assert(!seen[i]);
			seen[i] = 1;
			n++;
		}
		if (cJSON_IsTrue(wst_output(&r, "truncated"))) {
			ck_assert_int_eq(cJSON_GetArraySize(arr), 200);
			ck_assert_int_eq(wst_output(&r, "next_offset")->valueint,
					 off + 200);
			off = wst_output(&r, "next_offset")->valueint;
		} else {
			ck_assert_ptr_null(wst_output(&r, "next_offset"));
			off = -1;
		}
		wst_run_free(&r);
		pages++;
	} while (off >= 0 && pages < 20);
	ck_assert_int_eq(pages, 8);
	ck_assert_int_eq(n, 1500);
	/* The same through --args, as a model pages. */
	lsj(&r, ws, "--args", "{\"offset\": 1499, \"max_entries\": 5}", NULL);
	ck_assert_str_eq(names(&r), "f1499");
	ck_assert(cJSON_IsFalse(wst_output(&r, "truncated")));
	wst_run_free(&r);
	/* Plain pages too. */
	lsp(&r, ws, "--offset", "1497", NULL);
	ck_assert_str_eq(r.out, "f1497\nf1498\nf1499\n");
	wst_run_free(&r);
	lsj(&r, ws, "--offset", "-3", NULL);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	wst_rmrf(ws);
	free(ws);
}
END_TEST

START_TEST(byte_cap_deep_long_names)
{
	char *ws = wst_tmpdir();
	char name[256], rel[8192] = "";
	struct wst_run r;
	long long off = 0, total = 0, all;
	int pages = 0;

	/* 12 levels of 200-byte names, 10 files of 200-byte names each. */
	memset(name, 'n', 200);
	name[200] = '\0';
	for (int lvl = 0; lvl < 12; lvl++) {
		name[0] = (char)('a' + lvl);
		snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "%s%s",
			 lvl ? "/" : "", name);
		for (int i = 0; i < 10; i++) {
			char f[8192 + 256];

			snprintf(f, sizeof(f), "%s/%d%s", rel, i, name + 1);
			wst_write(ws, f, "");
		}
	}
	lsj(&r, ws, "-R", "--max-entries", "0", "--max-output", "0", NULL);
	all = wst_output(&r, "returned")->valueint;
	ck_assert_int_eq(all, 12 * 11 - 1 + 1);
	ck_assert_int_gt((long long)strlen(r.out), 65536);
	wst_run_free(&r);
	/* Default cap: 64 KiB for the whole result, and pages that add up. */
	do {
		char offs[32];

		snprintf(offs, sizeof(offs), "%lld", off);
		lsj(&r, ws, "-R", "--max-entries", "0", "--offset", offs, NULL);
		ck_assert_str_eq(wst_code(&r), "");
		ck_assert_int_le((long long)strlen(r.out), 65536);
		total += wst_output(&r, "returned")->valueint;
		if (cJSON_IsTrue(wst_output(&r, "truncated"))) {
			ck_assert_str_eq(wst_output_str(&r, "truncated_reason"),
					 "max_output");
			ck_assert(cJSON_IsNull(wst_output(&r, "entries_total")));
			off = wst_output(&r, "next_offset")->valueint;
			ck_assert_int_eq(off, total);
		} else {
			ck_assert_int_eq(wst_output(&r, "entries_total")->valueint,
					 all);
			off = -1;
		}
		wst_run_free(&r);
		pages++;
	} while (off >= 0 && pages < 50);
	ck_assert_int_gt(pages, 1);
	ck_assert_int_eq(total, all);
	/* A tiny cap still gives one entry a page, so paging moves on. */
	lsj(&r, ws, "-R", "--max-output", "10", NULL);
	ck_assert_int_eq(wst_output(&r, "returned")->valueint, 1);
	ck_assert_int_eq(wst_output(&r, "next_offset")->valueint, 1);
	wst_run_free(&r);
	wst_rmrf(ws);
	free(ws);
}
END_TEST

START_TEST(version_field)
{
	char *ws = wst_tmpdir(), *p;
	struct wst_run r;
	struct stat st;
	char tok[WS_VERSION_LEN];
	cJSON *e;

	wst_write(ws, "f", "hello\n");
	wst_write(ws, "d/x", "");
	p = wst_path(ws, "f");
	ck_assert_int_eq(stat(p, &st), 0);
	free(p);
	ws_version_token(&st, tok);
	lsj(&r, ws, "--fields", "name,version", NULL);
	e = entry(&r, "f");
	ck_assert_str_eq(sget(e, "version"), tok);
	/* Only files have a version. */
	ck_assert_ptr_null(sget(entry(&r, "d"), "version"));
	wst_run_free(&r);
	/* The default entry is small: no mtime, mode, version, real_path. */
	lsj(&r, ws, NULL);
	ck_assert_ptr_null(strstr(r.out, "\"version\""));
	ck_assert_ptr_null(strstr(r.out, "\"mtime\""));
	{
		cJSON *it;

		cJSON_ArrayForEach(it, entries(&r)) {
			ck_assert_ptr_null(sget(it, "real_path"));
			ck_assert_int_eq(cJSON_GetArraySize(it), 4);
		}
	}
	wst_run_free(&r);
	wst_rmrf(ws);
	free(ws);
}
END_TEST

START_TEST(gitignore_and_exclude)
{
	char *ws = wst_tmpdir();
	struct wst_run r;

	wst_write(ws, ".gitignore", "*.log\nbuild/\n");
	wst_write(ws, ".git/objects/ab/cd", "");
	wst_write(ws, "app.log", "");
	wst_write(ws, "main.c", "");
	wst_write(ws, "build/out.o", "");
	wst_write(ws, "src/.gitignore", "gen.c\n");
	wst_write(ws, "src/gen.c", "");
	wst_write(ws, "src/lib.c", "");
	wst_write(ws, "src/lib.tmp", "");
	wst_write(ws, "src/deep.log", "");
	lsj(&r, ws, "-R", NULL);
	ck_assert_str_eq(names(&r), "main.c,src,lib.c,lib.tmp");
	ck_assert_int_eq(wst_output(&r, "ignored")->valueint, 4);
	wst_run_free(&r);
	/* A subdirectory is listed under the rules above it, as wsgrep
	 * searches it. */
	lsj(&r, ws, "-R", "src", NULL);
	ck_assert_str_eq(names(&r), "lib.c,lib.tmp");
	wst_run_free(&r);
	lsj(&r, ws, "-R", "-a", NULL);
	ck_assert_str_eq(names(&r), ".gitignore,main.c,src,.gitignore,lib.c,lib.tmp");
	wst_run_free(&r);
	lsj(&r, ws, "-R", "--no-ignore", NULL);
	ck_assert_str_eq(names(&r), "app.log,build,main.c,src,out.o,deep.log,gen.c,lib.c,lib.tmp");
	wst_run_free(&r);
	/* The flat listing is ls: nothing ignored. */
	lsj(&r, ws, NULL);
	ck_assert_str_eq(names(&r), "app.log,build,main.c,src");
	wst_run_free(&r);
	lsj(&r, ws, "-R", "--exclude", "*.tmp", "--exclude", "/main.c", NULL);
	ck_assert_str_eq(names(&r), "src,lib.c");
	wst_run_free(&r);
	/* An excluded directory is not entered. */
	lsp(&r, ws, "-R", "--exclude", "src", "--paths", "virtual", NULL);
	ck_assert_str_eq(r.out, "/main.c\n");
	wst_run_free(&r);
	lsj(&r, ws, "--args", "{\"recursive\": true, \"exclude\": [\"src\"]}", NULL);
	ck_assert_str_eq(names(&r), "main.c");
	wst_run_free(&r);
	/* "dir/" (gitignore syntax): directories only, at any depth. */
	wst_write(ws, "src/lib.c.d/x", "");
	lsp(&r, ws, "-R", "--exclude", "src/", "--paths", "virtual", NULL);
	ck_assert_str_eq(r.out, "/main.c\n");
	wst_run_free(&r);
	lsp(&r, ws, "-R", "--exclude", "lib.c/", "--exclude", "*.d/",
	    "--paths", "relative", NULL);
	ck_assert_str_eq(r.out, "main.c\nsrc\nsrc/lib.c\nsrc/lib.tmp\n");
	wst_run_free(&r);
	wst_rmrf(ws);
	free(ws);
}
END_TEST

START_TEST(mounts_self_dangling)
{
	char *ws = wst_tmpdir(), *ro = wst_tmpdir(), *rw = wst_tmpdir(), *m1, *m2;
	struct wst_run r;
	cJSON *e;

	wst_write(ro, "doc", "");
	wst_write(ws, "dir/x", "");
	wst_symlink("gone", ws, "dangling");
	ck_assert_int_ge(asprintf(&m1, "/ro=%s:ro", ro), 0);
	ck_assert_int_ge(asprintf(&m2, "/rw=%s", rw), 0);
	lsj(&r, ws, "--mount", m1, "--mount", m2, NULL);
	e = entry(&r, "ro");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(e, "mount")));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(e, "read_only")));
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(entry(&r, "rw"), "read_only")));
	ck_assert_ptr_null(cJSON_GetObjectItem(entry(&r, "dir"), "read_only"));
	/* A dangling symlink in a listing and as a PATH. */
	ck_assert_str_eq(sget(entry(&r, "dangling"), "type"), "symlink");
	wst_run_free(&r);
	lsj(&r, ws, "dangling", NULL);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_str_eq(sget(entry(&r, "dangling"), "target"), "gone");
	wst_run_free(&r);
	lsp(&r, ws, "-l", "dangling", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "/dangling -> gone\n"));
	wst_run_free(&r);
	/* -d: the directory itself. */
	lsj(&r, ws, "-d", "dir", NULL);
	ck_assert_str_eq(names(&r), "dir");
	ck_assert_str_eq(sget(entry(&r, "dir"), "type"), "dir");
	wst_run_free(&r);
	lsj(&r, ws, "--mount", m1, "-d", "/ro", NULL);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(entry(&r, "ro"), "read_only")));
	wst_run_free(&r);
	lsp(&r, ws, "-d", "/", "dir", NULL);
	ck_assert_str_eq(r.out, "/\n/dir\n");
	wst_run_free(&r);
	free(m1);
	free(m2);
	wst_rmrf(ws);
	wst_rmrf(ro);
	wst_rmrf(rw);
	free(ws);
	free(ro);
	free(rw);
}
END_TEST

START_TEST(plain_ls_options)
{
	char *ws = wst_tmpdir(), *p;
	struct wst_run r;
	struct timespec ts[2] = {{1795643380, 0}, {1795643380, 0}};
	char big[3000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	wst_write(ws, "a", "1");
	wst_write(ws, "b", big);
	wst_write(ws, "c", "123");
	p = wst_path(ws, "c");
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(p);
	ts[0].tv_sec = ts[1].tv_sec = 1795643380 - 50;
	p = wst_path(ws, "a");
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(p);
	ts[0].tv_sec = ts[1].tv_sec = 1795643380 - 99;
	p = wst_path(ws, "b");
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(p);
	lsp(&r, ws, "-1", NULL);
	ck_assert_str_eq(r.out, "a\nb\nc\n");
	wst_run_free(&r);
	lsp(&r, ws, "-t", NULL);
	ck_assert_str_eq(r.out, "c\na\nb\n");
	wst_run_free(&r);
	lsp(&r, ws, "-S", NULL);
	ck_assert_str_eq(r.out, "b\nc\na\n");
	wst_run_free(&r);
	lsp(&r, ws, "-r", NULL);
	ck_assert_str_eq(r.out, "c\nb\na\n");
	wst_run_free(&r);
	lsp(&r, ws, "-Sr", NULL);
	ck_assert_str_eq(r.out, "a\nc\nb\n");
	wst_run_free(&r);
	lsp(&r, ws, "-0", NULL);
	ck_assert_int_eq(memcmp(r.out, "a\0b\0c\0", 6), 0);
	wst_run_free(&r);
	/* -0 -R and -0 with several directories: paths only, no headers. */
	wst_write(ws, "d/e/f", "");
	lsp(&r, ws, "-0", "-R", "d", NULL);
	ck_assert_uint_eq(r.outlen, sizeof("/d/e\0/d/e/f") );
	ck_assert_int_eq(memcmp(r.out, "/d/e\0/d/e/f\0", r.outlen), 0);
	wst_run_free(&r);
	lsp(&r, ws, "-0", "d", "d/e", NULL);
	ck_assert_uint_eq(r.outlen, sizeof("/d/e\0/d/e/f"));
	ck_assert_int_eq(memcmp(r.out, "/d/e\0/d/e/f\0", r.outlen), 0);
	wst_run_free(&r);
	lsp(&r, ws, "-lh", "b", NULL);
	ck_assert_ptr_nonnull(strstr(r.out, " 3.0K "));
	wst_run_free(&r);
	/* -h alone is still help. */
	lsp(&r, ws, "-h", NULL);
	ck_assert_ptr_nonnull(strstr(r.out, "--human-readable"));
	wst_run_free(&r);
	wst_rmrf(ws);
	free(ws);
}
END_TEST

/* Run wsls with argv and a pseudo-terminal as its stdout; what the
 * terminal showed (the tty turns "\n" into "\r\n"), malloc'd. */
static char *
ls_pty(const char *const *argv)
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
		int sl = open(ptsname(m), O_RDWR | O_NOCTTY);
		int null = open("/dev/null", O_RDWR);

		if (sl < 0 || null < 0)
			_exit(126);
		dup2(null, 0);
		dup2(sl, 1);
		dup2(null, 2);
		unsetenv("WS_FORMAT");
		unsetenv("WS_PATHS");
		av[k++] = "wsls";
		for (size_t i = 0; argv[i] != NULL && k < 31; i++)
			av[k++] = argv[i];
		av[k] = NULL;
		wst_execv("wsls", av);
		_exit(127);
	}
	for (;;) {
		struct pollfd pf = {m, POLLIN, 0};
		ssize_t k;

		if (poll(&pf, 1, 2000) <= 0)
			break;
		k = read(m, buf + n, 65535 - n);
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	waitpid(pid, &st, 0);
	close(m);
	return buf;
}

START_TEST(terminal_vs_pipe)
{
	char *ws = wst_tmpdir(), *o;
	struct wst_run r;
	const char *a1[] = {"--workspace", ws, "-R", "--paths", "relative", NULL};
	const char *a2[] = {"--workspace", ws, NULL};

	wst_write(ws, "d/x", "");
	wst_write(ws, "two\nlines", "");
	/* On a terminal: ls -R sections, a newline in a name shown as "?". */
	o = ls_pty(a1);
	ck_assert_msg(strstr(o, ".:\r\nd\r\ntwo?lines\r\n\r\nd:\r\nd/x\r\n") != NULL,
		      "%s", o);
	free(o);
	o = ls_pty(a2);
	ck_assert_msg(strstr(o, "two?lines\r\n") != NULL, "%s", o);
	free(o);
	/* Into a pipe: a flat list of paths, the name as it is. */
	lsp(&r, ws, "-R", "--paths", "relative", NULL);
	ck_assert_str_eq(r.out, "d\ntwo\nlines\nd/x\n");
	wst_run_free(&r);
	lsp(&r, ws, "-R0", "--paths", "relative", NULL);
	ck_assert_int_eq(memcmp(r.out, "d\0two\nlines\0d/x\0", 17), 0);
	wst_run_free(&r);
	wst_rmrf(ws);
	free(ws);
}
END_TEST

/*
 * A repeated key in --args is refused, naming it (issue 18): the ceiling
 * must not read one copy and the listing use the other.
 */
START_TEST(args_repeated_key)
{
	char *ws = wst_tmpdir();
	struct wst_run r;

	wst_write(ws, "a", "x");
	wst_run(&r, NULL, "wsls", "--workspace", ws, "--max-entries", "3",
		"--args", "{\"path\":\"/\",\"max_entries\":1,\"max_entries\":0}",
		NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_msg(strstr(r.out, "\\\"max_entries\\\" is given more than once"),
		      "%s", r.out);
	wst_run_free(&r);
	wst_rmrf(ws);
	free(ws);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("cli-wsls");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, input_forms);
	tcase_add_test(tc, args_repeated_key);
	tcase_add_test(tc, mount_prefix_forms);
	tcase_add_test(tc, dotdot_escapes);
	tcase_add_test(tc, sibling_prefixes);
	tcase_add_test(tc, symlink_leaf_outside);
	tcase_add_test(tc, symlink_inside_chain_loop);
	tcase_add_test(tc, recursive_never_leaves);
	tcase_add_test(tc, fifo_listed_no_hang);
	tcase_add_test(tc, non_utf8_names);
	tcase_add_test(tc, entries_bytes_same_under_cap);
	tcase_add_test(tc, seed_001_root_and_mounts);
	tcase_add_test(tc, max_entries);
	tcase_add_test(tc, depth_and_recursive);
	tcase_add_test(tc, sort_and_fields);
	tcase_add_test(tc, hidden_entries);
	tcase_add_test(tc, schema_and_args);
	tcase_add_test(tc, several_paths);
	tcase_add_test(tc, policy_gate);
	tcase_add_test(tc, policy_hides_entries);
	tcase_add_test(tc, huge_directory_plain);
	tcase_add_test(tc, deep_tree_out_of_descriptors);
	tcase_add_test(tc, deep_symlink_verdict_under_fd_limit);
	tcase_add_test(tc, rename_exchange_race);
	tcase_add_test(tc, paging_1500_no_gaps);
	tcase_add_test(tc, byte_cap_deep_long_names);
	tcase_add_test(tc, version_field);
	tcase_add_test(tc, gitignore_and_exclude);
	tcase_add_test(tc, mounts_self_dangling);
	tcase_add_test(tc, plain_ls_options);
	tcase_add_test(tc, terminal_vs_pipe);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
