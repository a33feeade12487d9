/* unit-list: lib/list.c, paging over one stable stream, ignore rules,
 * excludes, listing a PATH as itself. */
#include "wstest.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/ignore.h"
#include "ws/list.h"
#include "ws/resolve.h"
#include "ws/tool.h"
#include "ws/workspace.h"

/* Entries collected by a callback, "a,b/c,..." (paths without the
 * leading "/"), with an optional byte budget per page. */
struct col {
	char buf[1 << 16];
	size_t len;
	long long next_index;	/* index the next entry must have */
	int full_after;		/* >0: refuse entries after this many */
	int n;
	bool read_only_seen;
};

static int
col_entry(void *arg, const struct ws_list_entry *e)
{
	struct col *c = arg;

	if (c->full_after > 0 && c->n >= c->full_after)
		return WS_LIST_FULL;
	ck_assert_int_eq(e->index, c->next_index);
	c->next_index++;
	c->n++;
	if (e->read_only)
		c->read_only_seen = true;
	c->len += (size_t)snprintf(c->buf + c->len, sizeof(c->buf) - c->len,
				   "%s%s", c->len ? "," : "", e->vpath + 1);
	return 0;
}

/* List vpath of the workspace at root with o (callbacks set here). */
static int
run(const char *root, const char *vpath, struct ws_list_opts *o,
    struct col *c, struct ws_list_result *lr)
{
	struct ws_ctx ws;
	struct ws_res res;
	int fd, rc;

	ck_assert_int_eq(ws_ctx_open(&ws, root, 0), 0);
	c->len = 0;
	c->buf[0] = '\0';
	c->n = 0;
	c->next_index = o->offset;
	o->entry = col_entry;
	o->arg = c;
	rc = ws_list_open(&ws, vpath, o->self, &res, &fd);
	if (rc == 0) {
		rc = ws_list(&ws, o, &res, fd, lr);
		if (fd >= 0)
			close(fd);
		ws_res_free(&res);
	}
	ws_ctx_close(&ws);
	return rc;
}

START_TEST(flat_pages_and_total)
{
	char *d = wst_tmpdir();
	struct ws_list_opts o = {0};
	struct ws_list_result lr;
	struct col *c = calloc(1, sizeof(*c));

	for (int i = 0; i < 25; i++) {
		char n[16];

		snprintf(n, sizeof(n), "f%02d", i);
		wst_write(d, n, "");
	}
	o.depth = 1;
	o.sort = WS_WALK_NAME;
	o.max_entries = 10;
	o.offset = 20;
	ck_assert_int_eq(run(d, "/", &o, c, &lr), 0);
	ck_assert_str_eq(c->buf, "f20,f21,f22,f23,f24");
	ck_assert(!lr.truncated);
	ck_assert_int_eq(lr.next_offset, -1);
	ck_assert(lr.total_known);
	ck_assert_int_eq(lr.total, 25);
	o.offset = 10;
	ck_assert_int_eq(run(d, "/", &o, c, &lr), 0);
	ck_assert_int_eq(lr.returned, 10);
	ck_assert(lr.truncated);
	ck_assert_str_eq(lr.reason, "max_entries");
	ck_assert_int_eq(lr.next_offset, 20);
	ck_assert_int_eq(lr.total, 25);
	/* Past the end: an empty page, not an error. */
	o.offset = 99;
	ck_assert_int_eq(run(d, "/", &o, c, &lr), 0);
	ck_assert_int_eq(lr.returned, 0);
	ck_assert(!lr.truncated);
	/* The caller's output fills up: the page ends before the entry it
	 * refused, and the total is still known. */
	o.offset = 3;
	o.max_entries = 0;
	c->full_after = 4;
	ck_assert_int_eq(run(d, "/", &o, c, &lr), 0);
	ck_assert_str_eq(c->buf, "f03,f04,f05,f06");
	ck_assert_str_eq(lr.reason, "max_output");
	ck_assert_int_eq(lr.next_offset, 7);
	ck_assert_int_eq(lr.total, 25);
	/* Reversed. */
	c->full_after = 2;
	o.offset = 0;
	o.sort = (enum ws_walk_sort)(WS_WALK_NAME | WS_WALK_REVERSE);
	ck_assert_int_eq(run(d, "/", &o, c, &lr), 0);
	ck_assert_str_eq(c->buf, "f24,f23");
	/* Bad values. */
	o.offset = -1;
	ck_assert_int_eq(run(d, "/", &o, c, &lr), WS_EINVALID_ARGUMENT);
	wst_rmrf(d);
	free(d);
	free(c);
}
END_TEST

START_TEST(recursive_pages_concatenate)
{
	char *d = wst_tmpdir();
	struct ws_list_opts o = {0};
	struct ws_list_result lr;
	struct col *c = calloc(1, sizeof(*c));
	static char whole[1 << 16], pages[1 << 17];
	long long off = 0;
	int npages = 0;

	pages[0] = '\0';
	wst_write(d, "a/x", "");
	wst_write(d, "a/y/z", "");
	wst_write(d, "a/y/w", "");
	wst_write(d, "b", "");
	wst_write(d, "c/d/e/f", "");
	o.recursive = true;
	o.sort = WS_WALK_NAME;
	ck_assert_int_eq(run(d, "/", &o, c, &lr), 0);
	snprintf(whole, sizeof(whole), "%s", c->buf);
	ck_assert_str_eq(whole, "a,b,c,a/x,a/y,a/y/w,a/y/z,c/d,c/d/e,c/d/e/f");
	ck_assert(lr.total_known);
	ck_assert_int_eq(lr.total, 10);
	o.max_entries = 3;
	do {
		o.offset = off;
		ck_assert_int_eq(run(d, "/", &o, c, &lr), 0);
		if (c->len)
			snprintf(pages + strlen(pages), sizeof(pages) - strlen(pages),
				 "%s%s", pages[0] ? "," : "", c->buf);
		/* A recursive page that stopped early does not know the
		 * total; the last one does. */
		ck_assert(lr.total_known == !lr.truncated);
		off = lr.next_offset;
		npages++;
	} while (off >= 0 && npages < 10);
	ck_assert_int_eq(npages, 4);
	ck_assert_str_eq(pages, whole);
	wst_rmrf(d);
	free(d);
	free(c);
}
END_TEST

START_TEST(ignore_and_exclude)
{
	char *d = wst_tmpdir();
	struct ws_list_opts o = {0};
	struct ws_list_result lr;
	struct col *c = calloc(1, sizeof(*c));

	wst_write(d, ".gitignore", "*.log\nbuild/\n");
	wst_write(d, ".git/HEAD", "ref\n");
	wst_write(d, "a.log", "");
	wst_write(d, "a.c", "");
	wst_write(d, "build/out.o", "");
	wst_write(d, "src/.gitignore", "gen.c\n!keep.log\n");
	wst_write(d, "src/gen.c", "");
	wst_write(d, "src/keep.log", "");
	wst_write(d, "src/main.c", "");
	wst_write(d, "src/tmp/t.tmp", "");
	o.recursive = true;
	o.hidden = true;
	o.sort = WS_WALK_NAME;
	ck_assert_int_eq(run(d, "/", &o, c, &lr), 0);
	ck_assert_str_eq(c->buf, ".gitignore,a.c,src,src/.gitignore,"
			 "src/keep.log,src/main.c,src/tmp,src/tmp/t.tmp");
	ck_assert_int_eq(lr.ignored, 4);
	{
		const char *ex[] = {"*.tmp", "src/main.c"};

		o.exclude = ex;
		o.nexclude = 2;
		ck_assert_int_eq(run(d, "/", &o, c, &lr), 0);
		ck_assert_str_eq(c->buf, ".gitignore,a.c,src,src/.gitignore,"
				 "src/keep.log,src/tmp");
		o.nexclude = 0;
	}
	/* A flat listing shows everything, like ls. */
	o.recursive = false;
	o.depth = 1;
	ck_assert_int_eq(run(d, "/", &o, c, &lr), 0);
	ck_assert_str_eq(c->buf, ".git,.gitignore,a.c,a.log,build,src");
	/* --no-ignore. */
	o.recursive = true;
	o.depth = 0;
	o.no_ignore = true;
	ck_assert_int_eq(run(d, "/src", &o, c, &lr), 0);
	ck_assert_str_eq(c->buf, "src/.gitignore,src/gen.c,src/keep.log,"
			 "src/main.c,src/tmp,src/tmp/t.tmp");
	/* Listing below the top: the rules are those of the listed tree. */
	o.no_ignore = false;
	ck_assert_int_eq(run(d, "/src", &o, c, &lr), 0);
	ck_assert_str_eq(c->buf, "src/.gitignore,src/keep.log,src/main.c,"
			 "src/tmp,src/tmp/t.tmp");
	wst_rmrf(d);
	free(d);
	free(c);
}
END_TEST

START_TEST(self_and_dangling)
{
	char *d = wst_tmpdir();
	struct ws_list_opts o = {0};
	struct ws_list_result lr;
	struct col *c = calloc(1, sizeof(*c));

	wst_write(d, "dir/x", "");
	wst_symlink("nowhere", d, "dangling");
	o.depth = 1;
	o.self = true;
	ck_assert_int_eq(run(d, "/dir", &o, c, &lr), 0);
	ck_assert_str_eq(c->buf, "dir");
	ck_assert_int_eq(lr.total, 1);
	o.self = false;
	ck_assert_int_eq(run(d, "/dir", &o, c, &lr), 0);
	ck_assert_str_eq(c->buf, "dir/x");
	/* A dangling symlink is listed as the link it is. */
	ck_assert_int_eq(run(d, "/dangling", &o, c, &lr), 0);
	ck_assert_str_eq(c->buf, "dangling");
	/* Something that is not there at all is still NOT_FOUND. */
	ck_assert_int_eq(run(d, "/missing", &o, c, &lr), WS_ENOT_FOUND);
	wst_rmrf(d);
	free(d);
	free(c);
}
END_TEST

START_TEST(globs)
{
	ck_assert(ws_ignore_glob("*.o", "a/b/c.o", false));
	ck_assert(ws_ignore_glob("c.o", "c.o", false));
	ck_assert(!ws_ignore_glob("a/*.o", "x/a/c.o", false));
	ck_assert(ws_ignore_glob("/a/*.o", "a/c.o", false));
	ck_assert(ws_ignore_glob("a/**/z", "a/b/c/z", false));
	ck_assert(!ws_ignore_glob("*.o", "a.c", false));
	/* "dir/": directories only, and the slash does not anchor it. */
	ck_assert(ws_ignore_glob("build/", "a/build", true));
	ck_assert(!ws_ignore_glob("build/", "a/build", false));
	ck_assert(ws_ignore_glob("a/build/", "a/build", true));
	ck_assert(!ws_ignore_glob("a/build/", "x/a/build", true));
}
END_TEST

/*
 * A name on a line of a model's text (a listing's entries): every byte
 * that is not a control byte as it is, controls escaped, runs of either
 * at the start, middle and end of the name.
 */
START_TEST(model_text_names)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{"", ""},
		{"plain.txt", "plain.txt"},
		{"a\\b", "a\\\\b"},
		{"\n", "\\n"},
		{"x\ty\nz", "x\\ty\\nz"},
		{"\x01" "start", "\\x01start"},
		{"end\x7f", "end\\x7f"},
		{"\x1b[2K\x1b[1A", "\\x1b[2K\\x1b[1A"},
		{"caf\xc3\xa9 \xff", "caf\xc3\xa9 \xff"},
		{"\\\\\x1f", "\\\\\\\\\\x1f"},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *buf = NULL;
		size_t n = 0;
		FILE *f = open_memstream(&buf, &n);

		ck_assert_ptr_nonnull(f);
		ws_tcall_put_name(f, t[i].in);
		ck_assert_int_eq(fclose(f), 0);
		ck_assert_str_eq(buf, t[i].out);
		free(buf);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("unit-list");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, flat_pages_and_total);
	tcase_add_test(tc, model_text_names);
	tcase_add_test(tc, recursive_pages_concatenate);
	tcase_add_test(tc, ignore_and_exclude);
	tcase_add_test(tc, self_and_dangling);
	tcase_add_test(tc, globs);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
