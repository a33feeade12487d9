/*
 * test_read.c - unit tests for lib/read.c: line spans, binary and UTF-8
 * checks, the small and streamed read paths, limits, and ws_read_file()
 * under a symlink-swap race.
 */
#include "wstest.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/path.h"
#include "ws/read.h"
#include "ws/resolve.h"
#include "ws/workspace.h"

static char *dir;

static void
setup(void)
{
	dir = wst_tmpdir();
}

static void
teardown(void)
{
	wst_rmrf(dir);
	free(dir);
}

/* Open dir/rel for reading. */
static int
open_rel(const char *rel)
{
	char *p = wst_path(dir, rel);
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "%s: %s", p, strerror(errno));
	free(p);
	return fd;
}

/* Read dir/rel with the options; returns the status. */
static int
read_rel(const char *rel, const struct ws_read_opts *o, struct ws_read *r)
{
	int fd = open_rel(rel);
	int rc = ws_read_fd(fd, o, r);

	close(fd);
	return rc;
}

/* Write n lines "line %07ld\n" (13 bytes each) to dir/rel. */
static void
write_lines(const char *rel, long n)
{
	char *p = wst_path(dir, rel);
	FILE *f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	for (long i = 1; i <= n; i++)
		fprintf(f, "line %07ld\n", i);
	fclose(f);
	free(p);
}

static void
expect_data(const struct ws_read *r, const char *want)
{
	ck_assert_ptr_nonnull(r->data);
	ck_assert_uint_eq(r->len, strlen(want));
	ck_assert(memcmp(r->data, want, r->len) == 0);
}

/* ------------------------------------------------------------------ */

START_TEST(count_lines)
{
	ck_assert_int_eq(ws_read_count_lines("", 0), 0);
	ck_assert_int_eq(ws_read_count_lines("a", 1), 1);
	ck_assert_int_eq(ws_read_count_lines("a\n", 2), 1);
	ck_assert_int_eq(ws_read_count_lines("a\nb", 3), 2);
	ck_assert_int_eq(ws_read_count_lines("\n\n", 2), 2);
	ck_assert_int_eq(ws_read_count_lines("a\r\nb\r\n", 6), 2);
	ck_assert_int_eq(ws_read_count_lines("a\rb\r", 4), 1); /* lone CR */
	/* All newlines: every byte lane counts its maximum, and more. */
	{
		size_t n = 70001;
		char *b = malloc(n);

		memset(b, '\n', n);
		ck_assert_int_eq(ws_read_count_lines(b, n), (long long)n);
		/* Against a plain count, at every length and alignment. */
		srand(7);
		for (size_t i = 0; i < n; i++)
			b[i] = rand() % 5 == 0 ? '\n' : (char)(rand() % 256);
		for (size_t off = 0; off < 17; off++) {
			for (size_t len = 0; len < 600; len += 1 + len / 8) {
				long long want = 0;

				for (size_t i = 0; i < len; i++)
					want += b[off + i] == '\n';
				want += len > 0 && b[off + len - 1] != '\n';
				ck_assert_int_eq(ws_read_count_lines(b + off, len), want);
			}
		}
		{
			long long want = 0;

			for (size_t i = 0; i < n; i++)
				want += b[i] == '\n';
			want += b[n - 1] != '\n';
			ck_assert_int_eq(ws_read_count_lines(b, n), want);
		}
		free(b);
	}
}
END_TEST

static void
span(const char *buf, long long s, long long e, const char *want,
     long long first, long long last, long long total)
{
	struct ws_read_span sp;

	ws_read_lines(buf, strlen(buf), s, e, &sp);
	ck_assert_int_eq(sp.total, total);
	ck_assert_int_eq(sp.first, first);
	ck_assert_int_eq(sp.last, last);
	ck_assert_uint_eq(sp.len, strlen(want));
	ck_assert(memcmp(buf + sp.off, want, sp.len) == 0);
}

START_TEST(lines_span)
{
	const char *t = "one\ntwo\nthree\nfour\n";

	span(t, 0, 0, t, 1, 4, 4);
	span(t, 1, 0, t, 1, 4, 4);
	span(t, 2, 3, "two\nthree\n", 2, 3, 4);
	span(t, 4, 4, "four\n", 4, 4, 4);
	span(t, 3, 99, "three\nfour\n", 3, 4, 4);
	span(t, 0, 1, "one\n", 1, 1, 4);
	span(t, 5, 0, "", 5, 4, 4);	 /* just past the end */
	span(t, 50, 60, "", 50, 49, 4);	 /* far past it */
	span(t, 3, 2, "", 3, 2, 4);	 /* end before start: nothing */
	span("a\r\nb\r\nc", 2, 3, "b\r\nc", 2, 3, 3);
	span("x\ny", 2, 0, "y", 2, 2, 2);
	span("", 0, 0, "", 1, 0, 0);
	span("", 1, 5, "", 1, 0, 0);
	span("\n\n\n", 2, 2, "\n", 2, 2, 3);
}
END_TEST

START_TEST(binary_and_types)
{
	char buf[WS_READ_SNIFF + 10];

	memset(buf, 'a', sizeof(buf));
	ck_assert(!ws_read_is_binary(buf, sizeof(buf)));
	buf[WS_READ_SNIFF] = '\0'; /* just past the window */
	ck_assert(!ws_read_is_binary(buf, sizeof(buf)));
	buf[WS_READ_SNIFF - 1] = '\0';
	ck_assert(ws_read_is_binary(buf, sizeof(buf)));
	ck_assert(ws_read_is_binary("\0", 1));
	ck_assert(!ws_read_is_binary("", 0));

	ck_assert_str_eq(ws_read_guess_type("\x89PNG\r\n\x1a\n\0", 9), "png");
	ck_assert_str_eq(ws_read_guess_type("\xff\xd8\xff\xe0", 4), "jpeg");
	ck_assert_str_eq(ws_read_guess_type("GIF87a", 6), "gif");
	ck_assert_str_eq(ws_read_guess_type("GIF89a", 6), "gif");
	ck_assert_str_eq(ws_read_guess_type("%PDF-1.4", 8), "pdf");
	ck_assert_str_eq(ws_read_guess_type("PK\x03\x04", 4), "zip");
	ck_assert_str_eq(ws_read_guess_type("PK\x05\x06", 4), "zip");
	ck_assert_str_eq(ws_read_guess_type("\x1f\x8b\x08", 3), "gzip");
	ck_assert_str_eq(ws_read_guess_type("\x7f" "ELF\x02", 5), "elf");
	ck_assert_str_eq(ws_read_guess_type("SQLite format 3\0", 16), "sqlite");
	ck_assert_str_eq(ws_read_guess_type("SQLite format 3", 15), "binary");
	ck_assert_str_eq(ws_read_guess_type("\x89PN", 3), "binary"); /* short */
	ck_assert_str_eq(ws_read_guess_type("\0\0\0", 3), "binary");
	ck_assert_str_eq(ws_read_guess_type("", 0), "binary");
}
END_TEST

START_TEST(utf8)
{
	char buf[64];

	ck_assert(ws_utf8_valid("", 0));
	ck_assert(ws_utf8_valid("plain ascii text, long enough for words\n", 40));
	ck_assert(ws_utf8_valid("h\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80", 12));
	ck_assert(!ws_utf8_valid("\xc0\xaf", 2));	   /* overlong "/" */
	ck_assert(!ws_utf8_valid("\xe0\x80\xaf", 3));	   /* overlong */
	ck_assert(!ws_utf8_valid("\xed\xa0\x80", 3));	   /* surrogate */
	ck_assert(!ws_utf8_valid("\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
	ck_assert(!ws_utf8_valid("\xe2\x9c", 2));	   /* cut short */
	ck_assert(!ws_utf8_valid("\x80", 1));		   /* lone continuation */
	ck_assert(!ws_utf8_valid("\xff", 1));
	ck_assert(!ws_utf8_valid("caf\xe9", 4));		   /* Latin-1 */
	ck_assert(ws_utf8_valid("\xf4\x8f\xbf\xbf", 4));  /* U+10FFFF */
	/* A bad byte at every offset behind an ASCII run (the word path). */
	for (size_t off = 0; off < 40; off++) {
		memset(buf, 'a', sizeof(buf));
		buf[off] = (char)0xe9;
		ck_assert_msg(!ws_utf8_valid(buf, sizeof(buf)), "offset %zu", off);
		buf[off] = (char)0xc3;
		buf[off + 1] = (char)0xa9;
		ck_assert_msg(ws_utf8_valid(buf, sizeof(buf)), "offset %zu", off);
		/* A sequence cut by the length itself. */
		ck_assert_msg(!ws_utf8_valid(buf, off + 1), "offset %zu", off);
	}
}
END_TEST

START_TEST(check_opts)
{
	struct ws_read_opts o = {0};

	ck_assert_int_eq(ws_read_check_opts(&o), 0);
	o.start_line = 3;
	o.end_line = 3;
	ck_assert_int_eq(ws_read_check_opts(&o), 0);
	o.end_line = 2;
	ck_assert_int_eq(ws_read_check_opts(&o), WS_EINVALID_ARGUMENT);
	o.end_line = 0;
	ck_assert_int_eq(ws_read_check_opts(&o), 0);
	o.start_line = -1;
	ck_assert_int_eq(ws_read_check_opts(&o), WS_EINVALID_ARGUMENT);
	o.start_line = 0;
	o.max_bytes = -5;
	ck_assert_int_eq(ws_read_check_opts(&o), WS_EINVALID_ARGUMENT);
}
END_TEST

/* ------------------------------------------------------------------ */

START_TEST(small_files)
{
	struct ws_read_opts o = {0};
	struct ws_read r;

	wst_write(dir, "t.txt", "a\r\nb\nc");
	ck_assert_int_eq(read_rel("t.txt", &o, &r), 0);
	expect_data(&r, "a\r\nb\nc");
	ck_assert(!r.binary);
	ck_assert_str_eq(r.type, "text");
	ck_assert(ws_utf8_valid(r.data, r.len));
	ck_assert_int_eq(r.size, 6);
	ck_assert_int_eq(r.start_line, 1);
	ck_assert_int_eq(r.end_line, 3);
	ck_assert_int_eq(r.total_lines, 3);
	ck_assert(r.total_known);
	ck_assert(!r.truncated);
	ws_read_free(&r);

	o.start_line = 2;
	o.end_line = 2;
	ck_assert_int_eq(read_rel("t.txt", &o, &r), 0);
	expect_data(&r, "b\n");
	ws_read_free(&r);

	o.start_line = 9;
	o.end_line = 0;
	ck_assert_int_eq(read_rel("t.txt", &o, &r), 0);
	expect_data(&r, "");
	ck_assert_int_eq(r.end_line, 8);
	ck_assert_int_eq(r.total_lines, 3);
	ws_read_free(&r);

	wst_write(dir, "e.txt", "");
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(read_rel("e.txt", &o, &r), 0);
	expect_data(&r, "");
	ck_assert_int_eq(r.total_lines, 0);
	ck_assert_int_eq(r.size, 0);
	ws_read_free(&r);

	wst_write(dir, "l1.txt", "caf\xe9\n");
	ck_assert_int_eq(read_rel("l1.txt", &o, &r), 0);
	ck_assert(!ws_utf8_valid(r.data, r.len));
	ck_assert(!r.binary);
	ws_read_free(&r);

	/* Exactly at the limit is fine; one byte over is not. */
	o.max_bytes = 6;
	ck_assert_int_eq(read_rel("t.txt", &o, &r), 0);
	ws_read_free(&r);
	o.max_bytes = 5;
	ck_assert_int_eq(read_rel("t.txt", &o, &r), WS_EFILE_TOO_LARGE);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "is 6 bytes"));
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "5-byte limit"));
	ws_read_free(&r);
}
END_TEST

START_TEST(binary_files)
{
	struct ws_read_opts o = {0};
	struct ws_read r;
	unsigned char b[5000];

	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(i * 13);
	memcpy(b, "\x1f\x8b", 2);
	wst_writen(dir, "b.gz", b, sizeof(b));
	ck_assert_int_eq(read_rel("b.gz", &o, &r), 0);
	ck_assert(r.binary);
	ck_assert_str_eq(r.type, "gzip");
	ck_assert_ptr_null(r.data);
	ck_assert_int_eq(r.size, 5000);
	ck_assert(!r.total_known);
	ws_read_free(&r);

	o.base64 = true;
	ck_assert_int_eq(read_rel("b.gz", &o, &r), 0);
	ck_assert(r.binary);
	ck_assert_uint_eq(r.len, sizeof(b));
	ck_assert(memcmp(r.data, b, sizeof(b)) == 0);
	ws_read_free(&r);

	/* Over the limit: metadata still, but no bytes. */
	o.max_bytes = 1000;
	ck_assert_int_eq(read_rel("b.gz", &o, &r), WS_EFILE_TOO_LARGE);
	ws_read_free(&r);
	o.base64 = false;
	ck_assert_int_eq(read_rel("b.gz", &o, &r), 0);
	ck_assert(r.binary);
	ck_assert_str_eq(r.type, "gzip");
	ck_assert_ptr_null(r.data);
	ck_assert_int_eq(r.size, 5000);
	ws_read_free(&r);
}
END_TEST

/* Text, then NULs: write text_kib KiB of lines, then nul_kib KiB of zeros. */
static void
write_text_then_nuls(const char *rel, size_t text_kib, size_t nul_kib)
{
	size_t n = (text_kib + nul_kib) * 1024;
	char *t = calloc(1, n);

	for (size_t i = 0; i < text_kib * 1024; i++)
		t[i] = i % 64 == 63 ? '\n' : 'a' + (char)(i % 26);
	wst_writen(dir, rel, t, n);
	free(t);
}

/*
 * A NUL anywhere in what is read makes the file binary, not only in its
 * first block: the small path checks the whole buffer, the streamed one
 * each chunk as it goes.
 */
START_TEST(binary_late)
{
	struct ws_read_opts o = {0};
	struct ws_read r;

	write_text_then_nuls("late.txt", 100, 4);
	ck_assert_int_eq(read_rel("late.txt", &o, &r), 0);
	ck_assert(r.binary);
	ck_assert_ptr_null(r.data);
	ck_assert_str_eq(r.type, "binary");
	ck_assert_int_eq(r.size, 104 * 1024);
	ck_assert(!r.total_known);
	ws_read_free(&r);
	/* A range in the text part changes nothing: the file is binary. */
	o.start_line = 1;
	o.end_line = 1;
	ck_assert_int_eq(read_rel("late.txt", &o, &r), 0);
	ck_assert(r.binary);
	ws_read_free(&r);
	/* With base64 it comes back whole, as any binary file. */
	o = (struct ws_read_opts){.base64 = true};
	ck_assert_int_eq(read_rel("late.txt", &o, &r), 0);
	ck_assert(r.binary);
	ck_assert_uint_eq(r.len, 104 * 1024);
	ws_read_free(&r);
	/* One NUL at the very end. */
	write_text_then_nuls("last.txt", 64, 0);
	{
		char *p = wst_path(dir, "last.txt");
		int fd = open(p, O_WRONLY | O_APPEND);

		ck_assert_int_eq(write(fd, "", 1), 1);
		close(fd);
		free(p);
	}
	o = (struct ws_read_opts){0};
	ck_assert_int_eq(read_rel("last.txt", &o, &r), 0);
	ck_assert(r.binary);
	ws_read_free(&r);

	/*
	 * Streamed (over max_bytes): 600 KiB of text, then zeros.  The NUL
	 * is past the first 256 KiB chunk; a range that reaches it, or a
	 * count of the lines that does, ends as binary.
	 */
	write_text_then_nuls("big.txt", 600, 100);
	o = (struct ws_read_opts){.max_bytes = 64 * 1024, .start_line = 9000,
				  .end_line = 9001};
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	ck_assert(r.binary);
	ck_assert_ptr_null(r.data);
	ck_assert_int_eq(r.size, 700 * 1024);
	ws_read_free(&r);
	o.start_line = 1;
	o.end_line = 1;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	ck_assert(r.binary);
	ws_read_free(&r);
	o.base64 = true;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), WS_EFILE_TOO_LARGE);
	ws_read_free(&r);
	/* Not counted, not read: only what was read is judged. */
	o.base64 = false;
	o.count_max = -1;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	ck_assert(!r.binary);
	ck_assert_uint_eq(r.len, 64);
	ws_read_free(&r);
}
END_TEST

START_TEST(large_streamed)
{
	/* The time bound is not what this tests: a loaded sanitizer run
	 * may take seconds to scan 1.3 MB. */
	struct ws_read_opts o = {.scan_ms = 600000};
	struct ws_read r;

	write_lines("big.txt", 100000); /* 1,300,000 bytes */
	ck_assert_int_eq(read_rel("big.txt", &o, &r), WS_EFILE_TOO_LARGE);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "1300000 bytes"));
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "--start-line"));
	ws_read_free(&r);

	/* Lines straddling the 256 KiB chunk boundary (line 20165). */
	o.start_line = 20164;
	o.end_line = 20166;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	expect_data(&r, "line 0020164\nline 0020165\nline 0020166\n");
	ck_assert_int_eq(r.start_line, 20164);
	ck_assert_int_eq(r.end_line, 20166);
	ck_assert_int_eq(r.total_lines, 100000);
	ck_assert(r.total_known);
	ck_assert_int_eq(r.size, 1300000);
	ws_read_free(&r);

	/* Open end: to the last line. */
	o.start_line = 99999;
	o.end_line = 0;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	expect_data(&r, "line 0099999\nline 0100000\n");
	ws_read_free(&r);

	/* Past the end. */
	o.start_line = 100001;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	expect_data(&r, "");
	ck_assert_int_eq(r.end_line, 100000);
	ck_assert_int_eq(r.total_lines, 100000);
	ws_read_free(&r);

	/* No budget to count the rest: total_lines is unknown. */
	o.start_line = 1;
	o.end_line = 1;
	o.count_max = -1;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	expect_data(&r, "line 0000001\n");
	ck_assert(!r.total_known);
	ws_read_free(&r);
	o.count_max = 1000000; /* less than what is left */
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	ck_assert(!r.total_known);
	ws_read_free(&r);
	o.count_max = 2000000;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	ck_assert(r.total_known);
	ck_assert_int_eq(r.total_lines, 100000);
	ws_read_free(&r);
}
END_TEST

START_TEST(large_truncated)
{
	struct ws_read_opts o = {0};
	struct ws_read r;

	write_lines("big.txt", 100000);
	/* Whole lines only, under the limit. */
	o.start_line = 10;
	o.max_bytes = 100;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	ck_assert(r.truncated);
	ck_assert_uint_eq(r.len, 91);
	ck_assert_int_eq(r.end_line, 16);
	ck_assert(memcmp(r.data, "line 0000010\n", 13) == 0);
	ck_assert(memcmp(r.data + 78, "line 0000016\n", 13) == 0);
	ck_assert(r.total_known);
	ws_read_free(&r);
	/* Exactly the limit: not truncated. */
	o.max_bytes = 13 * 7;
	o.end_line = 16;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	ck_assert(!r.truncated);
	ck_assert_uint_eq(r.len, 91);
	ws_read_free(&r);
}
END_TEST

/* Write mib MiB of 13-byte lines "line NNNNNNN\n" to dir/rel, fast. */
static void
write_mib(const char *rel, int mib)
{
	char *p = wst_path(dir, rel), *blk = malloc(13 * 80660);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	long long left = (long long)mib << 20;

	ck_assert_int_ge(fd, 0);
	for (long i = 0; i < 80660; i++)
		memcpy(blk + i * 13, "line 0000000\n", 13);
	while (left > 0) {
		size_t k = left < 13 * 80660 ? (size_t)left : 13 * 80660;

		ck_assert_int_eq(write(fd, blk, k), (ssize_t)k);
		left -= (long long)k;
	}
	close(fd);
	free(blk);
	free(p);
}

/*
 * The scan before a range starts is bounded in bytes and in time, and the
 * error names the bound and what to do; within the bounds the same read
 * succeeds.
 */
START_TEST(scan_bounds)
{
	struct ws_read_opts o = {.start_line = 250000, .end_line = 250001,
				 .scan_ms = 600000}; /* bytes are tested here */
	struct ws_read r;

	write_mib("big.txt", 4); /* 322,638 lines */
	o.scan_bytes = 1 << 20;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), WS_ELIMIT_EXCEEDED);
	ck_assert_msg(strstr(ws_error_last(), "1048576 bytes (limits.scan_bytes)") &&
		      strstr(ws_error_last(), "line 250000 not reached") &&
		      strstr(ws_error_last(), "hint: ask for an earlier line"),
		      "%s", ws_error_last());
	ck_assert_int_eq(ws_error_exit_status(WS_ELIMIT_EXCEEDED), 6);
	ws_read_free(&r);
	/* Within the bound: the lines, counted at chunk speed. */
	o.scan_bytes = 8 << 20;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	expect_data(&r, "line 0000000\nline 0000000\n");
	ck_assert_int_eq(r.start_line, 250000);
	ck_assert_int_eq(r.total_lines, (4 << 20) / 13 + 1);
	ws_read_free(&r);
	/* The range found, the bound cuts the count short: no error. */
	o.start_line = 1;
	o.end_line = 1;
	o.scan_bytes = 1 << 20;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	ck_assert(!r.total_known);
	ws_read_free(&r);
	o.scan_bytes = -1;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), WS_EINVALID_ARGUMENT);
	ws_read_free(&r);

	/* Time: 64 MiB takes well over a millisecond to scan. */
	write_mib("huge.txt", 64);
	o = (struct ws_read_opts){.start_line = 5000000, .end_line = 5000000,
				   .scan_ms = 1};
	ck_assert_int_eq(read_rel("huge.txt", &o, &r), WS_ELIMIT_EXCEEDED);
	ck_assert_msg(strstr(ws_error_last(), "1 ms (limits.scan_time)") &&
		      strstr(ws_error_last(), "raise limits.scan_time"),
		      "%s", ws_error_last());
	ws_read_free(&r);
	o.scan_ms = 60000;
	ck_assert_int_eq(read_rel("huge.txt", &o, &r), 0);
	expect_data(&r, "line 0000000\n");
	ws_read_free(&r);
}
END_TEST

START_TEST(long_first_line)
{
	/* One 600 KiB line of "é" (2 bytes each), then two short ones. */
	size_t n = 600 * 1024;
	char *t = malloc(n + 32);
	struct ws_read_opts o = {.max_bytes = 100001};
	struct ws_read r;

	for (size_t i = 0; i < n; i += 2)
		memcpy(t + i, "\xc3\xa9", 2);
	memcpy(t + n, "\nsecond\nthird", 13);
	wst_writen(dir, "long.txt", t, n + 13);
	free(t);

	o.start_line = 1;
	o.end_line = 1;
	ck_assert_int_eq(read_rel("long.txt", &o, &r), 0);
	ck_assert(r.truncated);
	/* Cut before the split character, so still valid UTF-8. */
	ck_assert_uint_eq(r.len, 100000);
	ck_assert(ws_utf8_valid(r.data, r.len));
	ck_assert_int_eq(r.end_line, 1);
	ck_assert_int_eq(r.total_lines, 3);
	ws_read_free(&r);

	/* The lines after the long one; the last has no newline. */
	o.start_line = 2;
	o.end_line = 0;
	ck_assert_int_eq(read_rel("long.txt", &o, &r), 0);
	expect_data(&r, "second\nthird");
	ck_assert(!r.truncated);
	ck_assert_int_eq(r.end_line, 3);
	ck_assert_int_eq(r.total_lines, 3);
	ws_read_free(&r);
	o.start_line = 3;
	ck_assert_int_eq(read_rel("long.txt", &o, &r), 0);
	expect_data(&r, "third");
	ws_read_free(&r);
}
END_TEST

START_TEST(sparse_tail)
{
	struct ws_read_opts o = {.start_line = 1, .end_line = 2};
	struct ws_read r;
	char *p;
	int fd;

	/*
	 * 390,000 bytes of text, more than the first chunk, so the range is
	 * done before any zero of the hole is read; the hole is too far to
	 * count through.
	 */
	write_lines("s.txt", 30000);
	p = wst_path(dir, "s.txt");
	fd = open(p, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 100LL * 1024 * 1024), 0);
	close(fd);
	ck_assert_int_eq(read_rel("s.txt", &o, &r), 0);
	expect_data(&r, "line 0000001\nline 0000002\n");
	ck_assert(!r.total_known);
	ck_assert(!r.binary);
	ck_assert_int_eq(r.size, 100LL * 1024 * 1024);
	ws_read_free(&r);
	/* A range past the text reads zeros: binary, at once. */
	o.start_line = 40000;
	o.end_line = 40000;
	ck_assert_int_eq(read_rel("s.txt", &o, &r), 0);
	ck_assert(r.binary);
	ck_assert_ptr_null(r.data);
	ws_read_free(&r);
	free(p);
}
END_TEST

/*
 * A file longer than fstat says, as a growing log is: /proc files report
 * size 0.  The one read grows its buffer; past max_bytes the read starts
 * over as a stream.
 */
START_TEST(longer_than_fstat)
{
	struct ws_read_opts o = {0};
	struct ws_read r;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ws_read_fd(fd, &o, &r), 0);
	ck_assert_uint_gt(r.len, 100);
	ck_assert(memcmp(r.data, "Name:", 5) == 0);
	ck_assert_int_eq(r.size, (long long)r.len);
	ck_assert(r.total_known);
	ck_assert_int_eq(r.total_lines, ws_read_count_lines(r.data, r.len));
	ck_assert_int_gt(r.total_lines, 10);
	ws_read_free(&r);

	o.max_bytes = 40;
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(ws_read_fd(fd, &o, &r), WS_EFILE_TOO_LARGE);
	ws_read_free(&r);
	o.start_line = 1;
	o.end_line = 1;
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(ws_read_fd(fd, &o, &r), 0);
	ck_assert(memcmp(r.data, "Name:", 5) == 0);
	ck_assert_int_eq(r.data[r.len - 1], '\n');
	ck_assert_ptr_null(memchr(r.data, '\n', r.len - 1)); /* one line */
	ck_assert(r.total_known);
	ck_assert_int_gt(r.total_lines, 10);
	ws_read_free(&r);
	close(fd);
}
END_TEST

START_TEST(not_regular)
{
	struct ws_read_opts o = {0};
	struct ws_read r;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(ws_read_fd(p[0], &o, &r), WS_ENOT_A_REGULAR_FILE);
	ws_read_free(&r);
	close(p[0]);
	close(p[1]);
	o.start_line = 4;
	o.end_line = 2;
	wst_write(dir, "x", "x\n");
	ck_assert_int_eq(read_rel("x", &o, &r), WS_EINVALID_ARGUMENT);
	ws_read_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ */

START_TEST(read_file_whole)
{
	struct ws_ctx ws;
	struct ws_res res;
	struct ws_read r;
	struct ws_read_opts o = {0};
	char *ext = wst_path(dir, "ext");

	wst_write(dir, "ws/a/b.txt", "bee\n");
	wst_write(ext, "secret", "SECRET\n");
	wst_symlink(ext, dir, "ws/out");
	wst_mkfifo(dir, "ws/fifo");
	{
		char *root = wst_path(dir, "ws");

		ck_assert_int_eq(ws_ctx_open(&ws, root, 0), 0);
		free(root);
	}
	ck_assert_int_eq(ws_read_file(&ws, "/a/b.txt", &o, &res, &r), 0);
	expect_data(&r, "bee\n");
	ck_assert_str_eq(res.vpath, "/a/b.txt");
	ws_read_free(&r);
	ws_res_free(&res);

	ck_assert_int_eq(ws_read_file(&ws, "a", &o, &res, &r), WS_EIS_A_DIRECTORY);
	ck_assert_str_eq(ws_error_last_path(), "a");
	ws_res_free(&res);
	ck_assert_int_eq(ws_read_file(&ws, "fifo", &o, &res, &r),
			 WS_ENOT_A_REGULAR_FILE);
	ck_assert_str_eq(ws_error_last_path(), "fifo");
	ws_res_free(&res);
	ck_assert_int_eq(ws_read_file(&ws, "out/secret", &o, &res, &r),
			 WS_ESYMLINK_OUTSIDE_WORKSPACE);
	ws_res_free(&res);
	ck_assert_int_eq(ws_read_file(&ws, "../ext/secret", &o, &res, &r),
			 WS_EPATH_OUTSIDE_WORKSPACE);
	ws_res_free(&res);
	o.max_bytes = 2;
	ck_assert_int_eq(ws_read_file(&ws, "a/b.txt", &o, &res, &r),
			 WS_EFILE_TOO_LARGE);
	ck_assert_str_eq(ws_error_last_path(), "a/b.txt");
	ck_assert_ptr_null(r.buf);
	ws_res_free(&res);
	ws_ctx_close(&ws);
	free(ext);
}
END_TEST

/*
 * In-process race, many more attempts than the CLI suite can afford: a
 * child swaps ws/d (holding f) with ws/l (a symlink to ext, whose f holds
 * the secret; absolute or relative) while ws_read_file() reads d/f 10,000
 * times.
 */
static void
race(bool relative)
{
	volatile long *swaps = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct ws_read_opts o = {0};
	char *root = wst_path(dir, "ws"), *ext = wst_path(dir, "ext");
	char *d = wst_path(root, "d"), *l = wst_path(root, "l");
	struct ws_ctx ws;
	int ok = 0, refused = 0;
	long n_want;
	pid_t pid;

	ck_assert(swaps != MAP_FAILED);
	*swaps = 0;
	wst_write(root, "d/f", "inside\n");
	wst_write(ext, "f", "SECRET\n");
	wst_symlink(relative ? "../ext" : ext, root, "l");
	ck_assert_int_eq(ws_ctx_open(&ws, root, 0), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			if (renameat2(AT_FDCWD, d, AT_FDCWD, l, RENAME_EXCHANGE) == 0)
				(*swaps)++;
	}
	/* Under load the swapper may start late: wait for it, and go on past
	 * 10,000 attempts (up to 200,000) until it has swapped enough. */
	while (*swaps == 0)
		sched_yield();
	/*
	 * The swaps wanted: a tenth of the attempts, and more than the
	 * 1000 asserted below whatever WST_RACE_ITERATIONS says (valgrind's
	 * smaller count stopped at 540, then failed the assertion: CI).
	 */
	n_want = wst_race_iterations(10000) / 10;
	if (n_want <= 1000)
		n_want = 1001;
	for (int i = 0, n = wst_race_iterations(10000);
	     i < n || ((*swaps < n_want || refused == 0 || ok == 0) &&
		       i < 20 * n); i++) {
		struct ws_res res;
		struct ws_read r;
		int rc = ws_read_file(&ws, "d/f", &o, &res, &r);

		if (rc == 0) {
			if (r.len != 7 || memcmp(r.data, "inside\n", 7) != 0) {
				kill(pid, SIGKILL);
				waitpid(pid, NULL, 0);
				ck_abort_msg("attempt %d read \"%.*s\" from %s", i,
					     (int)r.len, r.data, res.real);
			}
			ok++;
		} else {
			refused++;
		}
		ws_read_free(&r);
		ws_res_free(&res);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ck_assert_int_gt(*swaps, 1000);
	ck_assert_msg(ok > 0 && refused > 0, "ok %d refused %d", ok, refused);
	ws_ctx_close(&ws);
	munmap((void *)swaps, sizeof(long));
	free(root);
	free(ext);
	free(d);
	free(l);
}

START_TEST(read_file_race_absolute)
{
	race(false);
}
END_TEST

START_TEST(read_file_race_relative)
{
	race(true);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Issue 9: pages, tail, U+FFFD, MIME types, version tokens, streaming  */

START_TEST(pages)
{
	struct ws_read_opts o = {.page_lines = 3, .page_bytes = 1000};
	struct ws_read r;

	write_lines("p.txt", 10);
	/* First page: 3 lines, truncated, where to go on, the total. */
	ck_assert_int_eq(read_rel("p.txt", &o, &r), 0);
	expect_data(&r, "line 0000001\nline 0000002\nline 0000003\n");
	ck_assert(r.truncated);
	ck_assert_int_eq(r.next_start_line, 4);
	ck_assert_int_eq(r.total_lines, 10);
	ws_read_free(&r);
	/* The last page ends the file: not truncated. */
	o.start_line = 8;
	ck_assert_int_eq(read_rel("p.txt", &o, &r), 0);
	ck_assert_int_eq(r.end_line, 10);
	ck_assert(!r.truncated);
	ck_assert_int_eq(r.next_start_line, 0);
	ws_read_free(&r);
	/* A page that ends exactly at the last line is not truncated. */
	o.start_line = 7;
	o.end_line = 9;
	ck_assert_int_eq(read_rel("p.txt", &o, &r), 0);
	ck_assert_int_eq(r.end_line, 9);
	ck_assert(!r.truncated);
	ws_read_free(&r);
	/* A range longer than a page: the page, truncated. */
	o.start_line = 2;
	o.end_line = 9;
	ck_assert_int_eq(read_rel("p.txt", &o, &r), 0);
	ck_assert_int_eq(r.end_line, 4);
	ck_assert_int_eq(r.next_start_line, 5);
	ws_read_free(&r);
	/* Bytes: 30 bytes hold two whole 13-byte lines. */
	o = (struct ws_read_opts){.page_lines = 100, .page_bytes = 30};
	ck_assert_int_eq(read_rel("p.txt", &o, &r), 0);
	ck_assert_uint_eq(r.len, 26);
	ck_assert_int_eq(r.end_line, 2);
	ck_assert_int_eq(r.next_start_line, 3);
	ws_read_free(&r);
	/* A file over max_bytes gives its first page, not FILE_TOO_LARGE. */
	o = (struct ws_read_opts){.page_lines = 2, .page_bytes = 100,
				  .max_bytes = 50};
	ck_assert_int_eq(read_rel("p.txt", &o, &r), 0);
	expect_data(&r, "line 0000001\nline 0000002\n");
	ck_assert(r.truncated);
	ck_assert_int_eq(r.next_start_line, 3);
	ck_assert(r.total_known);
	ck_assert_int_eq(r.total_lines, 10);
	ws_read_free(&r);
	/* Without paging it still is (plain mode). */
	o.page_lines = o.page_bytes = 0;
	ck_assert_int_eq(read_rel("p.txt", &o, &r), WS_EFILE_TOO_LARGE);
	ws_read_free(&r);
	/* A first line longer than the page: its head, cut on UTF-8. */
	wst_write(dir, "long.txt", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\nb\n");
	o = (struct ws_read_opts){.page_lines = 10, .page_bytes = 5};
	ck_assert_int_eq(read_rel("long.txt", &o, &r), 0);
	expect_data(&r, "\xc3\xa9\xc3\xa9");
	ck_assert(r.truncated);
	ck_assert_int_eq(r.next_start_line, 2);
	ws_read_free(&r);
}
END_TEST

START_TEST(tail)
{
	struct ws_read_opts o = {.tail = 2};
	struct ws_read r;

	write_lines("t.txt", 10);
	ck_assert_int_eq(read_rel("t.txt", &o, &r), 0);
	expect_data(&r, "line 0000009\nline 0000010\n");
	ck_assert_int_eq(r.start_line, 9);
	ck_assert_int_eq(r.end_line, 10);
	ck_assert_int_eq(r.total_lines, 10);
	ws_read_free(&r);
	/* No final newline; more lines asked than there are. */
	wst_write(dir, "n.txt", "a\nb\nc");
	ck_assert_int_eq(read_rel("n.txt", &o, &r), 0);
	expect_data(&r, "b\nc");
	ck_assert_int_eq(r.start_line, 2);
	ws_read_free(&r);
	o.tail = 99;
	ck_assert_int_eq(read_rel("n.txt", &o, &r), 0);
	expect_data(&r, "a\nb\nc");
	ck_assert_int_eq(r.start_line, 1);
	ws_read_free(&r);
	wst_write(dir, "e.txt", "");
	ck_assert_int_eq(read_rel("e.txt", &o, &r), 0);
	ck_assert_uint_eq(r.len, 0);
	ws_read_free(&r);
	/* Empty lines count: "\n\n\n" has three. */
	wst_write(dir, "nl.txt", "\n\n\n");
	o.tail = 2;
	ck_assert_int_eq(read_rel("nl.txt", &o, &r), 0);
	expect_data(&r, "\n\n");
	ck_assert_int_eq(r.start_line, 2);
	ws_read_free(&r);
	/* A large file (over max_bytes): the streamed path from the offset. */
	write_lines("big.txt", 100000);
	o = (struct ws_read_opts){.tail = 3, .max_bytes = 1000};
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	expect_data(&r, "line 0099998\nline 0099999\nline 0100000\n");
	ck_assert_int_eq(r.start_line, 99998);
	ck_assert_int_eq(r.total_lines, 100000);
	ck_assert(r.lines_known);
	ws_read_free(&r);
	/* Too far from the start to count: the lines, numbers unknown. */
	o.count_max = 1000;
	ck_assert_int_eq(read_rel("big.txt", &o, &r), 0);
	expect_data(&r, "line 0099998\nline 0099999\nline 0100000\n");
	ck_assert(!r.lines_known);
	ck_assert(!r.total_known);
	ws_read_free(&r);
	/* Not found within the scan bound: LIMIT_EXCEEDED. */
	o = (struct ws_read_opts){.tail = 90000, .scan_bytes = 300000};
	ck_assert_int_eq(read_rel("big.txt", &o, &r), WS_ELIMIT_EXCEEDED);
	ws_read_free(&r);
	/* With a page: the first page of the tail. */
	o = (struct ws_read_opts){.tail = 5, .page_lines = 2, .page_bytes = 1000};
	ck_assert_int_eq(read_rel("t.txt", &o, &r), 0);
	ck_assert_int_eq(r.start_line, 6);
	ck_assert_int_eq(r.end_line, 7);
	ck_assert_int_eq(r.next_start_line, 8);
	ws_read_free(&r);
	/* A NUL near the end of a large file: binary, typed by its head. */
	{
		char *t = malloc(400000);

		memcpy(t, "%PDF-1.4\n", 9);
		memset(t + 9, 'a', 400000 - 9);
		t[399990] = '\0';
		wst_writen(dir, "late.pdf", t, 400000);
		free(t);
	}
	o = (struct ws_read_opts){.tail = 3, .max_bytes = 1000};
	ck_assert_int_eq(read_rel("late.pdf", &o, &r), 0);
	ck_assert(r.binary);
	ck_assert_ptr_null(r.data);
	ck_assert_str_eq(r.mime_type, "application/pdf");
	ck_assert_int_eq(r.size, 400000);
	ws_read_free(&r);
	/* With a range: INVALID_ARGUMENT. */
	o = (struct ws_read_opts){.tail = 5, .start_line = 2};
	ck_assert_int_eq(ws_read_check_opts(&o), WS_EINVALID_ARGUMENT);
}
END_TEST

START_TEST(utf8_fix)
{
	size_t n, bad;
	char *t;
	struct ws_read_opts o = {0};
	struct ws_read r;

	t = ws_read_utf8_fix("ok", 2, &n, &bad);
	ck_assert_str_eq(t, "ok");
	ck_assert_uint_eq(bad, 0);
	free(t);
	/* Lone bytes, an overlong form, a surrogate, a cut sequence. */
	t = ws_read_utf8_fix("a\xe9" "b\xc0\xaf\xed\xa0\x80\xe2\x9c", 10, &n, &bad);
	ck_assert_str_eq(t, "a\xef\xbf\xbd" "b" "\xef\xbf\xbd\xef\xbf\xbd"
			 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			 "\xef\xbf\xbd\xef\xbf\xbd");
	ck_assert_uint_eq(bad, 8);
	ck_assert_uint_eq(n, strlen(t));
	free(t);
	t = ws_read_utf8_fix("\xf0\x9f\x98\x80\xf4\x90\x80\x80", 8, &n, &bad);
	ck_assert(memcmp(t, "\xf0\x9f\x98\x80", 4) == 0);
	ck_assert_uint_eq(bad, 4); /* above U+10FFFF */
	free(t);
	/* Through a read: text with U+FFFD; data keeps the bytes. */
	wst_write(dir, "l.txt", "caf\xe9 ok\n");
	ck_assert_int_eq(read_rel("l.txt", &o, &r), 0);
	ck_assert(r.invalid_utf8);
	ck_assert(!r.binary);
	ck_assert_str_eq(r.text, "caf\xef\xbf\xbd ok\n");
	expect_data(&r, "caf\xe9 ok\n");
	ws_read_free(&r);
	/* Mostly invalid: binary. */
	wst_write(dir, "x.dat", "\xff\xfe\xfd\xfc" "a");
	ck_assert_int_eq(read_rel("x.dat", &o, &r), 0);
	ck_assert(r.binary);
	ck_assert_ptr_null(r.data);
	ck_assert_str_eq(r.mime_type, "application/octet-stream");
	ws_read_free(&r);
}
END_TEST

START_TEST(mime_types)
{
	static const struct {
		const char *bytes;
		size_t n;
		const char *mime;
	} cases[] = {
		{"\x89PNG\r\n\x1a\n\0\0", 10, "image/png"},
		{"\xff\xd8\xff\xe0\0\x10", 6, "image/jpeg"},
		{"GIF89a\0\0", 8, "image/gif"},
		{"RIFF\x10\0\0\0WEBPVP8 ", 16, "image/webp"},
		{"RIFF\x10\0\0\0WAVEfmt ", 16, "application/octet-stream"},
		{"%PDF-1.7\n\0", 10, "application/pdf"},
		{"PK\x03\x04\x14\0", 6, "application/zip"},
		{"\x1f\x8b\x08\0", 4, "application/gzip"},
		{"\x7f" "ELF\x02\x01\x01\0", 8, "application/x-executable"},
		{"\0asm\x01\0\0\0", 8, "application/wasm"},
		{"SQLite format 3\0", 16, "application/vnd.sqlite3"},
		{"\0\0\0\x1c" "ftypavif", 12, "image/avif"},
		{"\xfd" "7zXZ\0\0", 7, "application/x-xz"},
		{"\0\0\0\0", 4, "application/octet-stream"},
		{"\x89PN", 3, "application/octet-stream"}, /* cut short */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(strcmp(ws_read_mime_type(cases[i].bytes, cases[i].n),
				     cases[i].mime) == 0, "case %zu: %s", i,
			      ws_read_mime_type(cases[i].bytes, cases[i].n));
	/* Through a read: a PNG is binary with its type. */
	{
		struct ws_read_opts o = {0};
		struct ws_read r;

		wst_writen(dir, "i.png", "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
		ck_assert_int_eq(read_rel("i.png", &o, &r), 0);
		ck_assert(r.binary);
		ck_assert_str_eq(r.mime_type, "image/png");
		ws_read_free(&r);
	}
}
END_TEST

START_TEST(version_and_stream)
{
	struct ws_read_opts o = {0};
	struct ws_read r;
	char v1[WS_VERSION_LEN], buf[64];
	struct stat st;
	int fd, pfd[2];
	ssize_t n;

	wst_write(dir, "v.txt", "one\n");
	fd = open_rel("v.txt");
	ck_assert_int_eq(ws_read_fd(fd, &o, &r), 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(ws_version_matches(&st, r.version));
	ck_assert_uint_eq(strlen(r.version), 16);
	snprintf(v1, sizeof(v1), "%s", r.version);
	ws_read_free(&r);
	close(fd);
	/* Reading again gives the same token; a change gives another. */
	ck_assert_int_eq(read_rel("v.txt", &o, &r), 0);
	ck_assert_str_eq(r.version, v1);
	ws_read_free(&r);
	wst_write(dir, "v.txt", "two\n");
	ck_assert_int_eq(read_rel("v.txt", &o, &r), 0);
	ck_assert_str_ne(r.version, v1);
	ws_read_free(&r);
	/* Streaming: the bytes go to the descriptor, none are kept. */
	ck_assert_int_eq(pipe(pfd), 0);
	o.stream = true;
	o.stream_fd = pfd[1];
	ck_assert_int_eq(read_rel("v.txt", &o, &r), 0);
	ck_assert_ptr_null(r.data);
	ck_assert_int_eq(r.streamed, 4);
	ck_assert(!r.binary);
	ws_read_free(&r);
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof(buf));
	ck_assert_int_eq(n, 4);
	ck_assert(memcmp(buf, "two\n", 4) == 0);
	close(pfd[0]);
	/* Numbered like cat -n: empty lines too, a last line without "\n". */
	wst_write(dir, "n.txt", "a\n\nb");
	ck_assert_int_eq(pipe(pfd), 0);
	o.stream_fd = pfd[1];
	o.stream_number = true;
	ck_assert_int_eq(read_rel("n.txt", &o, &r), 0);
	ws_read_free(&r);
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof(buf));
	ck_assert_int_eq(n, 25);
	ck_assert(memcmp(buf, "     1\ta\n     2\t\n     3\tb", 25) == 0);
	close(pfd[0]);
	o.stream_number = false;
	/* A binary file: nothing written, binary metadata. */
	ck_assert_int_eq(pipe(pfd), 0);
	o.stream_fd = pfd[1];
	wst_writen(dir, "b.bin", "GIF89a\0\0", 8);
	ck_assert_int_eq(read_rel("b.bin", &o, &r), 0);
	ck_assert(r.binary);
	ck_assert_int_eq(r.streamed, 0);
	ck_assert_str_eq(r.mime_type, "image/gif");
	ws_read_free(&r);
	close(pfd[1]);
	ck_assert_int_eq(read(pfd[0], buf, sizeof(buf)), 0);
	close(pfd[0]);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("read");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, count_lines);
	tcase_add_test(tc, lines_span);
	tcase_add_test(tc, binary_and_types);
	tcase_add_test(tc, utf8);
	tcase_add_test(tc, check_opts);
	tcase_add_test(tc, small_files);
	tcase_add_test(tc, binary_files);
	tcase_add_test(tc, binary_late);
	tcase_add_test(tc, large_streamed);
	tcase_add_test(tc, large_truncated);
	tcase_add_test(tc, scan_bounds);
	tcase_add_test(tc, long_first_line);
	tcase_add_test(tc, sparse_tail);
	tcase_add_test(tc, longer_than_fstat);
	tcase_add_test(tc, not_regular);
	tcase_add_test(tc, read_file_whole);
	tcase_add_test(tc, pages);
	tcase_add_test(tc, tail);
	tcase_add_test(tc, utf8_fix);
	tcase_add_test(tc, mime_types);
	tcase_add_test(tc, version_and_stream);
	tcase_add_test(tc, read_file_race_absolute);
	tcase_add_test(tc, read_file_race_relative);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
