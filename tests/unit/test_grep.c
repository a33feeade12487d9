/*
 * test_grep.c - the search engine in-process: pattern errors, the literal
 * path against PCRE2, one thread against two (the same ordered stream),
 * line numbers and context across buffer refills, lines longer than the
 * largest buffer, and the limits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wstest.h"
#include "ws/error.h"
#include "ws/grep.h"
#include "ws/workspace.h"

/* Every item as one line of text: the stream, comparable with strcmp. */
struct acc {
	char *s;
	size_t len, cap;
	long long n;
};

static int slow_us; /* a slow reader: the walker runs ahead */

static int
collect(void *arg, const struct ws_grep_item *it)
{
	struct acc *a = arg;

	if (slow_us > 0)
		usleep((useconds_t)slow_us);
	char head[512];
	int h = snprintf(head, sizeof(head), "%d %s %lld %lld %lld %d %d|",
			 (int)it->kind, it->vpath, it->line, it->column,
			 it->count, it->after, it->text_truncated);

	if (a->len + (size_t)h + it->len + 2 > a->cap) {
		a->cap = (a->len + (size_t)h + it->len + 2) * 2;
		a->s = realloc(a->s, a->cap);
	}
	memcpy(a->s + a->len, head, (size_t)h);
	a->len += (size_t)h;
	if (it->len)
		memcpy(a->s + a->len, it->text, it->len);
	a->len += it->len;
	a->s[a->len++] = '\n';
	a->s[a->len] = '\0';
	a->n++;
	return 0;
}

static char *dir;
static struct ws_ctx ws;

static void
setup(void)
{
	dir = wst_tmpdir();
}

static void
teardown(void)
{
	ws_ctx_close(&ws);
	memset(&ws, 0, sizeof(ws));
	wst_rmrf(dir);
	free(dir);
}

/* Search the workspace dir with o; the stream in a->s, the summary in s. */
static int
run(struct ws_grep_opts *o, struct acc *a, struct ws_grep_summary *s)
{
	struct ws_grep *g = NULL;
	int rc;

	memset(a, 0, sizeof(*a));
	if (ws.nanchors == 0)
		ck_assert_int_eq(ws_ctx_open(&ws, dir, 0), 0);
	rc = ws_grep_compile(o, &g, NULL);
	if (rc < 0)
		return rc;
	rc = ws_grep_run(g, &ws, NULL, 0, collect, a, s);
	ws_grep_free(g);
	if (a->s == NULL)
		a->s = calloc(1, 1);
	return rc;
}

START_TEST(pattern_errors)
{
	struct ws_grep_opts o = {0};
	struct ws_grep *g = NULL;
	const char *p[] = {"fine", "a(b", NULL};
	size_t bad = 99;

	o.patterns = p;
	o.npatterns = 2;
	ck_assert_int_eq(ws_grep_compile(&o, &g, &bad), WS_EINVALID_PATTERN);
	ck_assert_ptr_null(g);
	ck_assert_int_eq(bad, 1);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "offset 3"));
	o.fixed = true; /* a literal cannot be wrong */
	ck_assert_int_eq(ws_grep_compile(&o, &g, &bad), 0);
	ws_grep_free(g);
	o.npatterns = 0;
	ck_assert_int_eq(ws_grep_compile(&o, &g, NULL), WS_EINVALID_ARGUMENT);
	o.npatterns = 1;
	o.types = (const char *[]){"nosuchtype"};
	o.ntypes = 1;
	ck_assert_int_eq(ws_grep_compile(&o, &g, NULL), WS_EINVALID_ARGUMENT);
}
END_TEST

/* A tree large enough that both workers hold results out of turn. */
static void
make_tree(void)
{
	char *buf = malloc(3 << 20);

	for (int f = 0; f < 120; f++) {
		char name[64];
		size_t len = 0;
		int lines = f == 7 ? 60000 : (f * 37) % 200;

		for (int i = 0; i < lines; i++)
			len += (size_t)sprintf(buf + len, "%s line %d of %d\n",
					       i % 13 == 0 ? "needle" :
					       i % 7 == 0 ? "Needle" : "hay",
					       i, f);
		buf[len] = '\0';
		snprintf(name, sizeof(name), "d%d/f%03d.txt", f % 5, f);
		wst_write(dir, name, buf);
	}
	free(buf);
}

START_TEST(threads_same_stream)
{
	struct ws_grep_opts o = {0};
	const char *p[] = {"needle"};
	struct acc a1, a2;
	struct ws_grep_summary s1, s2;
	long long needles;

	make_tree();
	o.patterns = p;
	o.npatterns = 1;
	o.before = 2;
	o.after = 1;
	o.threads = 1;
	ck_assert_int_eq(run(&o, &a1, &s1), 0);
	o.threads = 2;
	ck_assert_int_eq(run(&o, &a2, &s2), 0);
	ck_assert_int_gt(a1.n, 5000);
	ck_assert_msg(strcmp(a1.s, a2.s) == 0, "the streams differ");
	ck_assert_int_eq(s1.matches, s2.matches);
	ck_assert_int_eq(s1.files_searched, 120);
	needles = s2.matches;
	free(a1.s);
	/* The literal path and PCRE2 agree. */
	p[0] = "needl(e)";
	ck_assert_int_eq(run(&o, &a1, &s1), 0);
	ck_assert_msg(strcmp(a1.s, a2.s) == 0, "literal and regex differ");
	free(a1.s);
	free(a2.s);
	/* Several literals (one memmem scan each) and PCRE2 agree. */
	p[0] = "needle|Needle|line 1";
	ck_assert_int_eq(run(&o, &a1, &s1), 0);
	p[0] = "(?:needle|Needle|line 1)";
	ck_assert_int_eq(run(&o, &a2, &s2), 0);
	ck_assert_int_gt(a1.n, 5000);
	ck_assert_msg(strcmp(a1.s, a2.s) == 0, "literal set and regex differ");
	free(a1.s);
	free(a2.s);
	o.mode = WS_GREP_ONLY;
	p[0] = "line|of|needle";
	ck_assert_int_eq(run(&o, &a1, &s1), 0);
	p[0] = "(?:line|of|needle)";
	ck_assert_int_eq(run(&o, &a2, &s2), 0);
	ck_assert_msg(strcmp(a1.s, a2.s) == 0, "-o: literal set and regex differ");
	free(a1.s);
	free(a2.s);
	o.mode = WS_GREP_LINES;
	/* -i, -c */
	p[0] = "NEEDLE";
	o.icase = true;
	o.mode = WS_GREP_COUNT;
	o.before = o.after = 0;
	ck_assert_int_eq(run(&o, &a1, &s1), 0);
	ck_assert_int_gt(s1.matches, needles);
	free(a1.s);
}
END_TEST

/* A literal at the very start and end of a file (the rare-byte scan). */
START_TEST(literal_edges)
{
	struct ws_grep_opts o = {0};
	const char *p[] = {"PM_RESUME"};
	struct acc a;
	struct ws_grep_summary s;

	wst_write(dir, "e.txt", "PM_RESUME\nxx PM_RESUM\nM_RESUME\nyPM_RESUME");
	o.patterns = p;
	o.npatterns = 1;
	ck_assert_int_eq(run(&o, &a, &s), 0);
	ck_assert_str_eq(a.s, "0 /e.txt 1 1 0 0 0|PM_RESUME\n"
			      "0 /e.txt 4 2 0 0 0|yPM_RESUME\n");
	free(a.s);
	p[0] = "PM_RESUME|M_RESUME|zz";
	ck_assert_int_eq(run(&o, &a, &s), 0);
	ck_assert_str_eq(a.s, "0 /e.txt 1 1 0 0 0|PM_RESUME\n"
			      "0 /e.txt 3 1 0 0 0|M_RESUME\n"
			      "0 /e.txt 4 2 0 0 0|yPM_RESUME\n");
	free(a.s);
}
END_TEST

/* Line numbers stay right across refills of the buffer. */
START_TEST(line_numbers_across_refills)
{
	struct ws_grep_opts o = {0};
	const char *p[] = {"^needle"};
	struct acc a;
	struct ws_grep_summary s;
	char *buf = malloc(8 << 20), *exp = malloc(1 << 20);
	size_t len = 0, elen = 0;

	for (int i = 1; i <= 400000; i++) {
		if (i % 9973 == 0) {
			len += (size_t)sprintf(buf + len, "needle %d\n", i);
			elen += (size_t)sprintf(exp + elen, "0 /big.txt %d 1 0 0 0|needle %d\n",
						i, i);
		} else {
			len += (size_t)sprintf(buf + len, "line %d\n", i);
		}
	}
	buf[len] = '\0';
	wst_write(dir, "big.txt", buf);
	o.patterns = p;
	o.npatterns = 1;
	ck_assert_int_eq(run(&o, &a, &s), 0);
	ck_assert_str_eq(a.s, exp);
	free(a.s);
	free(buf);
	free(exp);
}
END_TEST

/* A line longer than the largest buffer: found, cut, numbered right. */
START_TEST(longer_than_buffer)
{
	struct ws_grep_opts o = {0};
	const char *p[] = {"needle"};
	struct acc a;
	struct ws_grep_summary s;
	size_t n = (size_t)WS_GREP_LINE_MAX + 3000000;
	char *buf = malloc(n + 64);

	memset(buf, 'x', n);
	memcpy(buf + n - 100, "needle", 6);
	strcpy(buf + n, "\nsecond needle\n");
	wst_write(dir, "long.txt", buf);
	o.patterns = p;
	o.npatterns = 1;
	o.max_columns = 10;
	ck_assert_int_eq(run(&o, &a, &s), 0);
	ck_assert_int_eq(a.n, 2);
	ck_assert_ptr_nonnull(strstr(a.s, "0 /long.txt 1 "));
	ck_assert_ptr_nonnull(strstr(a.s, " 1|xxxxxxxxxx\n"));
	ck_assert_ptr_nonnull(strstr(a.s, "0 /long.txt 2 8 0 0 1|second nee"));
	free(a.s);
	free(buf);
}
END_TEST

START_TEST(paging_and_limits)
{
	struct ws_grep_opts o = {0};
	const char *p[] = {"needle"};
	struct acc a, all;
	struct ws_grep_summary s;

	make_tree();
	o.patterns = p;
	o.npatterns = 1;
	o.mode = WS_GREP_FILES_WITH;
	ck_assert_int_eq(run(&o, &all, &s), 0);
	ck_assert_int_eq(s.next_offset, -1);
	o.max_results = 10;
	o.offset = 20;
	ck_assert_int_eq(run(&o, &a, &s), 0);
	ck_assert_int_eq(a.n, 10);
	ck_assert_int_eq(s.next_offset, 30);
	ck_assert(s.truncated);
	ck_assert_str_eq(s.truncated_reason, "max_results");
	{
		/* The page is lines 21..30 of the whole stream. */
		const char *q = all.s;

		for (int i = 0; i < 20; i++)
			q = strchr(q, '\n') + 1;
		ck_assert_int_eq(strncmp(q, a.s, a.len), 0);
	}
	free(a.s);
	free(all.s);
	/*
	 * A full page while jobs are still queued: the walker must not
	 * queue past the window once the search is over (it once
	 * overwrote a job in flight).
	 */
	for (int f = 0; f < 400; f++) {
		char name[32];

		snprintf(name, sizeof(name), "many/%03d.txt", f);
		wst_write(dir, name, "needle\n");
	}
	slow_us = 3000;
	for (int k = 0; k < 20; k++) {
		o.max_results = 1 + k % 4;
		o.offset = k % 3;
		o.threads = 2;
		ck_assert_int_eq(run(&o, &a, &s), 0);
		ck_assert_int_eq(a.n, o.max_results);
		free(a.s);
	}
	slow_us = 0;
	o.threads = 0;
	/* max_count per file. */
	o.mode = WS_GREP_LINES;
	o.max_results = 0;
	o.offset = 0;
	o.max_count = 1;
	ck_assert_int_eq(run(&o, &a, &s), 0);
	ck_assert_int_eq(s.matches, s.files_matched);
	free(a.s);
	/*
	 * A time budget stops the search with what it has.  The budget is
	 * read on the coarse clock (a tick of some ms): a slow reader makes
	 * the search outlast it however fast the machine (an idle one
	 * searched everything within 1 ms and one tick).
	 */
	o.max_count = 0;
	o.time_budget_ms = 1;
	o.threads = 1;
	slow_us = 3000;
	ck_assert_int_eq(run(&o, &a, &s), 0);
	slow_us = 0;
	ck_assert(s.truncated);
	ck_assert_str_eq(s.truncated_reason, "time_budget");
	ws_grep_summary_free(&s);
	free(a.s);
}
END_TEST

/*
 * PATHs that cannot be searched are kept in summary.operand_errors, in
 * order, and the others are searched; when none can be, the call fails
 * with the first one's error.
 */
START_TEST(operand_errors)
{
	struct ws_grep_opts o = {0};
	struct ws_grep_summary s;
	struct ws_grep *g = NULL;
	struct acc a = {0};
	const char *p[] = {"needle"};
	const char *paths[] = {"nope", "d", "../up", "f.txt"};
	const char *bad[] = {"../up", "nope"};

	wst_write(dir, "ws/d/x.txt", "needle\n");
	wst_write(dir, "ws/f.txt", "needle\n");
	wst_write(dir, "out/secret", "needle outside\n");
	{
		char *w = wst_path(dir, "ws");

		ck_assert_int_eq(ws_ctx_open(&ws, w, 0), 0);
		free(w);
	}
	wst_symlink("../out/secret", dir, "ws/leak");
	o.patterns = p;
	o.npatterns = 1;
	o.fixed = true;
	ck_assert_int_eq(ws_grep_compile(&o, &g, NULL), 0);
	ck_assert_int_eq(ws_grep_run(g, &ws, paths, 4, collect, &a, &s), 0);
	ck_assert_int_eq(s.files_searched, 2);
	ck_assert_int_eq(s.matches, 2);
	ck_assert_uint_eq(s.noperand_errors, 2);
	ck_assert_int_eq(s.operand_errors[0].code, WS_ENOT_FOUND);
	ck_assert_str_eq(s.operand_errors[0].path, "nope");
	ck_assert_str_eq(s.operand_errors[0].message, "no such file or directory");
	ck_assert_int_eq(s.operand_errors[1].code, WS_EPATH_OUTSIDE_WORKSPACE);
	ck_assert_str_eq(s.operand_errors[1].path, "../up");
	ck_assert_ptr_null(strstr(a.s, "outside"));
	ws_grep_summary_free(&s);
	ck_assert_ptr_null(s.operand_errors);
	free(a.s);
	/* A symlink that leaves, next to a file: refused, never read. */
	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(ws_grep_run(g, &ws, (const char *[]){"leak", "f.txt"},
				     2, collect, &a, &s), 0);
	ck_assert_int_eq(s.files_searched, 1);
	ck_assert_uint_eq(s.noperand_errors, 1);
	ck_assert_int_eq(s.operand_errors[0].code,
			 WS_ESYMLINK_OUTSIDE_WORKSPACE);
	ck_assert_ptr_null(strstr(a.s, "outside"));
	ws_grep_summary_free(&s);
	free(a.s);
	/* Nothing searchable: the first PATH's error, and each one listed
	 * all the same (plain wsgrep names them all, as grep does). */
	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(ws_grep_run(g, &ws, bad, 2, collect, &a, &s),
			 WS_EPATH_OUTSIDE_WORKSPACE);
	ck_assert_str_eq(ws_error_last_path(), "../up");
	ck_assert_uint_eq(s.noperand_errors, 2);
	ck_assert_str_eq(s.operand_errors[0].path, "../up");
	ck_assert_int_eq(s.operand_errors[1].code, WS_ENOT_FOUND);
	ck_assert_int_eq(a.n, 0);
	ws_grep_summary_free(&s);
	free(a.s);
	ws_grep_free(g);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("grep");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, pattern_errors);
	tcase_add_test(tc, threads_same_stream);
	tcase_add_test(tc, literal_edges);
	tcase_add_test(tc, line_numbers_across_refills);
	tcase_add_test(tc, longer_than_buffer);
	tcase_add_test(tc, paging_and_limits);
	tcase_add_test(tc, operand_errors);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
