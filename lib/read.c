/*
 * read.c - reading a file, or a line range of it, through a checked
 * descriptor.
 *
 * Two paths.  A file within max_bytes (the usual case: a source file) is
 * read with one read() of its fstat size plus one byte, which also tells
 * that the end was reached, and the range is then sliced out of that
 * buffer without copying.  A larger file is only read with a range: it is
 * streamed in chunks, the lines in range are copied out (up to max_bytes,
 * cut at a line boundary), and reading stops once the last line asked for
 * has been seen, except that the rest is counted for total_lines when it
 * is within count_max bytes: an agent wants to know how long the file is,
 * but not at the price of reading a whole 1 GiB log.
 *
 * A file is binary when a NUL byte appears in what is read of it, wherever
 * it is: the check runs on each chunk as the read goes, and the first NUL
 * ends the read with binary metadata, as for a file binary from its start.
 */
#include "ws/read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/path.h"
#include "ws/policy.h"

#define WS__CHUNK (256 * 1024) /* read size when streaming a large file */

/* ------------------------------------------------------------------ */
/* Pure helpers                                                         */

bool
ws_read_is_binary(const void *buf, size_t n)
{
	return memchr(buf, '\0', n < WS_READ_SNIFF ? n : WS_READ_SNIFF) != NULL;
}

static bool
ws__magic(const unsigned char *b, size_t n, const char *m, size_t mlen)
{
	return n >= mlen && memcmp(b, m, mlen) == 0;
}

const char *
ws_read_guess_type(const void *buf, size_t n)
{
	const unsigned char *b = buf;

	if (ws__magic(b, n, "\x89PNG\r\n\x1a\n", 8))
		return "png";
	if (ws__magic(b, n, "\xff\xd8\xff", 3))
		return "jpeg";
	if (ws__magic(b, n, "GIF87a", 6) || ws__magic(b, n, "GIF89a", 6))
		return "gif";
	if (ws__magic(b, n, "%PDF-", 5))
		return "pdf";
	if (ws__magic(b, n, "PK\x03\x04", 4) || ws__magic(b, n, "PK\x05\x06", 4) ||
	    ws__magic(b, n, "PK\x07\x08", 4))
		return "zip";
	if (ws__magic(b, n, "\x1f\x8b", 2))
		return "gzip";
	if (ws__magic(b, n, "\x7f" "ELF", 4))
		return "elf";
	if (ws__magic(b, n, "SQLite format 3", 16)) /* with its NUL */
		return "sqlite";
	if (n >= 12 && memcmp(b, "RIFF", 4) == 0 && memcmp(b + 8, "WEBP", 4) == 0)
		return "webp";
	if (ws__magic(b, n, "\0asm", 4))
		return "wasm";
	return "binary";
}

const char *
ws_read_mime_type(const void *buf, size_t n)
{
	static const struct {
		const char *type, *mime;
	} known[] = {
		{"png", "image/png"},		{"jpeg", "image/jpeg"},
		{"gif", "image/gif"},		{"webp", "image/webp"},
		{"pdf", "application/pdf"},	{"zip", "application/zip"},
		{"gzip", "application/gzip"},	{"elf", "application/x-executable"},
		{"sqlite", "application/vnd.sqlite3"},
		{"wasm", "application/wasm"},
	};
	const unsigned char *b = buf;
	const char *t = ws_read_guess_type(buf, n);

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(t, known[i].type) == 0)
			return known[i].mime;
	/* Types the short names above do not tell apart. */
	if (ws__magic(b, n, "BM", 2) && n >= 14)
		return "image/bmp";
	if (ws__magic(b, n, "\0\0\1\0", 4))
		return "image/x-icon";
	if (ws__magic(b, n, "II*\0", 4) || ws__magic(b, n, "MM\0*", 4))
		return "image/tiff";
	if (n >= 12 && memcmp(b + 4, "ftyp", 4) == 0) {
		if (memcmp(b + 8, "avif", 4) == 0)
			return "image/avif";
		if (memcmp(b + 8, "heic", 4) == 0)
			return "image/heic";
		return "video/mp4";
	}
	if (ws__magic(b, n, "BZh", 3))
		return "application/x-bzip2";
	if (ws__magic(b, n, "\xfd" "7zXZ\0", 6))
		return "application/x-xz";
	if (ws__magic(b, n, "\x28\xb5\x2f\xfd", 4))
		return "application/zstd";
	if (ws__magic(b, n, "7z\xbc\xaf\x27\x1c", 6))
		return "application/x-7z-compressed";
	if (ws__magic(b, n, "OggS", 4))
		return "application/ogg";
	if (ws__magic(b, n, "fLaC", 4))
		return "audio/flac";
	if (ws__magic(b, n, "ID3", 3))
		return "audio/mpeg";
	return "application/octet-stream";
}

/*
 * The length of the valid UTF-8 sequence at s (n bytes left), or 0: no
 * overlong forms, no surrogates, nothing above U+10FFFF (RFC 3629).
 */
static size_t
ws__utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0], lo = 0x80, hi = 0xbf;
	size_t k;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < k || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return k;
}

char *
ws_read_utf8_fix(const char *buf, size_t n, size_t *outlen, size_t *bad)
{
	const unsigned char *s = (const unsigned char *)buf;
	size_t len = 0, nbad = 0, i, k;
	char *out, *o;

	/* Two passes: the size first, so that no worst case is allocated. */
	for (i = 0; i < n; i += k ? k : 1) {
		k = ws__utf8_seq(s + i, n - i);
		len += k ? k : 3;
		nbad += k == 0;
	}
	if ((out = malloc(len + 1)) == NULL)
		return NULL;
	for (i = 0, o = out; i < n; i += k ? k : 1) {
		k = ws__utf8_seq(s + i, n - i);
		if (k == 0) {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
		} else {
			memcpy(o, s + i, k);
			o += k;
		}
	}
	*o = '\0';
	*outlen = len;
	*bad = nbad;
	return out;
}

/* Sixteen bytes as a vector: GCC and clang turn it into SIMD code. */
typedef unsigned char ws__v16 __attribute__((vector_size(16)));

/*
 * Newlines in n bytes.  A memchr() per line costs a call per 30-byte line
 * of source code; comparing 16 bytes at a time and summing the matches in
 * byte lanes (at most 255 rounds before a lane could overflow) counts a
 * 1 MiB file several times faster.
 */
long long
ws_count_newlines(const char *p, size_t n)
{
	const ws__v16 nl = {'\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n',
			    '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n'};
	long long c = 0;

	while (n >= 16) {
		size_t rounds = n / 16 > 255 ? 255 : n / 16;
		ws__v16 acc = {0};

		for (size_t i = 0; i < rounds; i++) {
			ws__v16 v;

			memcpy(&v, p, 16);
			acc -= (ws__v16)(v == nl); /* a match is -1 */
			p += 16;
		}
		n -= rounds * 16;
		for (int k = 0; k < 16; k++)
			c += acc[k];
	}
	for (; n > 0; n--)
		c += *p++ == '\n';
	return c;
}

long long
ws_read_count_lines(const char *buf, size_t n)
{
	if (n == 0)
		return 0;
	return ws_count_newlines(buf, n) + (buf[n - 1] != '\n');
}

/* The position just after the k-th newline from p (which must exist). */
static const char *
ws__skip_lines(const char *p, const char *e, long long k)
{
	while (k-- > 0) {
		const char *q = memchr(p, '\n', (size_t)(e - p));

		if (q == NULL)
			return e;
		p = q + 1;
	}
	return p;
}

void
ws_read_lines(const char *buf, size_t n, long long start, long long end,
	      struct ws_read_span *sp)
{
	const char *e = buf + n, *p, *q;
	long long last;

	if (start < 1)
		start = 1;
	sp->total = ws_read_count_lines(buf, n);
	sp->first = start;
	if (start > sp->total || (end > 0 && end < start)) {
		sp->off = n;
		sp->len = 0;
		sp->last = start - 1;
		return;
	}
	last = end <= 0 || end > sp->total ? sp->total : end;
	p = ws__skip_lines(buf, e, start - 1);
	q = last == sp->total ? e : ws__skip_lines(p, e, last - start + 1);
	sp->off = (size_t)(p - buf);
	sp->len = (size_t)(q - p);
	sp->last = last;
}

/*
 * Where to cut n bytes of text so that a multi-byte UTF-8 sequence is not
 * split: drop an incomplete sequence at the end.
 */
static size_t
ws__utf8_cut(const char *buf, size_t n)
{
	const unsigned char *s = (const unsigned char *)buf;
	size_t j = n, need;

	while (j > 0 && n - j < 4 && (s[j - 1] & 0xc0) == 0x80)
		j--;
	if (j == 0 || s[j - 1] < 0xc0)
		return n; /* ASCII, or not UTF-8 anyway */
	j--; /* the lead byte */
	need = (s[j] & 0xe0) == 0xc0 ? 2 : (s[j] & 0xf0) == 0xe0 ? 3 :
	       (s[j] & 0xf8) == 0xf0 ? 4 : 1;
	return j + need > n ? j : n;
}

int
ws_read_check_opts(const struct ws_read_opts *o)
{
	if (o->start_line < 0 || o->end_line < 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "line numbers start at 1");
	if (o->max_bytes < 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--max-bytes must be at least 1");
	/* The content is held in memory (and base64 makes it a third
	 * bigger): a hard ceiling keeps any argument from exhausting it. */
	if (o->max_bytes > WS_READ_MAX_HARD)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--max-bytes is at most %lld (%lld MiB)",
				    WS_READ_MAX_HARD, WS_READ_MAX_HARD >> 20);
	if (o->scan_bytes < 0 || o->scan_ms < 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "the scan limits must be at least 1");
	if (o->tail < 0 || o->page_lines < 0 || o->page_bytes < 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--tail and the page sizes must be at least 1");
	if (o->page_bytes > WS_READ_MAX_HARD)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--page-bytes is at most %lld", WS_READ_MAX_HARD);
	if (o->tail > 0 && (o->start_line > 0 || o->end_line > 0))
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--tail cannot be combined with --start-line "
				    "or --end-line");
	if (o->start_line > 0 && o->end_line > 0 && o->start_line > o->end_line)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "start line %lld is after end line %lld",
				    o->start_line, o->end_line);
	return 0;
}

void
ws_read_free(struct ws_read *r)
{
	free(r->buf);
	free(r->text);
	memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------------------------ */
/* Reading                                                              */

/* read() until n bytes or the end; returns the count or -1. */
static ssize_t
ws__read_full(int fd, char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, buf + got, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/* The outcome for a binary file: metadata, and the bytes with base64. */
static void
ws__binary(struct ws_read *r, const char *buf, size_t n, bool with_data)
{
	r->binary = true;
	r->type = ws_read_guess_type(buf, n);
	r->mime_type = ws_read_mime_type(buf, n);
	r->total_known = false;
	if (with_data) {
		r->data = buf;
		r->len = n;
	}
}

/*
 * A file of at most max bytes: one read of its size plus one byte.  Returns
 * 0, a negative error, or 1 when the file turned out to be larger than max
 * (it grew since fstat); the caller then streams it from the start.
 */
static int
ws__read_small(int fd, long long size, long long max,
	       const struct ws_read_opts *o, struct ws_read *r)
{
	size_t want = (size_t)size + 1, got = 0;
	char *buf = malloc(want);
	struct ws_read_span sp;

	if (buf == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (;;) {
		ssize_t k = read(fd, buf + got, want - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;

			free(buf);
			return ws_error_errno(e, NULL, "read");
		}
		if (k == 0)
			break;
		got += (size_t)k;
		if (got == want) {
			/* More than fstat said: the file is growing. */
			size_t nw = want * 2;
			char *nb;

			if ((long long)got > max) {
				free(buf);
				return 1;
			}
			if ((unsigned long long)nw > (unsigned long long)max + 1)
				nw = (size_t)max + 1;
			nb = realloc(buf, nw);
			if (nb == NULL) {
				free(buf);
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			}
			buf = nb;
			want = nw;
			continue;
		}
		/* A short read that reaches the fstat size is the end. */
		if ((long long)got == size)
			break;
	}
	r->buf = buf;
	r->size = (long long)got;
	/* A NUL anywhere makes it binary: the whole file is at hand. */
	if (memchr(buf, '\0', got) != NULL) {
		ws__binary(r, buf, got, o->base64);
		return 0;
	}
	ws_read_lines(buf, got, o->start_line, o->end_line, &sp);
	r->data = buf + sp.off;
	r->len = sp.len;
	r->start_line = sp.first;
	r->end_line = sp.last;
	r->total_lines = sp.total;
	r->total_known = true;
	return 0;
}

/* The state of a streamed, ranged read. */
struct ws__scan {
	long long start, end; /* range; end LLONG_MAX when open */
	size_t cap;	      /* max_bytes */
	long long line;	      /* the line the next byte belongs to */
	bool done;	      /* range complete or output full */
	bool truncated;
	char *out;
	size_t len, alloc;
	size_t good_len;      /* len at the end of the last whole line kept */
	long long good_line;  /* that line (0: none yet) */
	bool any, last_nl;    /* for the line count at the end */
};

/* Append k bytes of line s->line, cutting at max_bytes. */
static int
ws__scan_copy(struct ws__scan *s, const char *p, size_t k)
{
	bool partial = false;

	if (k > s->cap - s->len) {
		s->truncated = true;
		s->done = true;
		if (s->good_line >= s->start) {
			/* Keep whole lines only. */
			s->len = s->good_len;
			return 0;
		}
		/* The first line alone is over the limit: keep its head. */
		k = s->cap - s->len;
		partial = true;
	}
	if (s->len + k > s->alloc) {
		size_t na = s->alloc ? s->alloc * 2 : 64 * 1024;
		char *nb;

		while (na < s->len + k)
			na *= 2;
		if (na > s->cap)
			na = s->cap;
		nb = realloc(s->out, na);
		if (nb == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		s->out = nb;
		s->alloc = na;
	}
	memcpy(s->out + s->len, p, k);
	s->len += k;
	if (partial) {
		s->len = ws__utf8_cut(s->out, s->len);
		s->good_len = s->len;
		if (s->len > 0)
			s->good_line = s->line;
	}
	return 0;
}

/* Feed n more bytes of the file to the scanner. */
static int
ws__scan_feed(struct ws__scan *s, const char *p, size_t n)
{
	const char *e = p + n;

	if (n == 0)
		return 0;
	s->any = true;
	s->last_nl = e[-1] == '\n';
	while (p < e) {
		const char *q, *seg;

		if (s->done) {
			/* Only counting lines now. */
			s->line += ws_count_newlines(p, (size_t)(e - p));
			return 0;
		}
		if (s->line < s->start) {
			/* Before the range: skip whole chunks at counting speed. */
			long long c = ws_count_newlines(p, (size_t)(e - p));

			if (s->line + c < s->start) {
				s->line += c;
				return 0;
			}
		}
		q = memchr(p, '\n', (size_t)(e - p));
		seg = q ? q + 1 : e;
		if (s->line >= s->start &&
		    ws__scan_copy(s, p, (size_t)(seg - p)) < 0)
			return WS_ENOMEM;
		if (q != NULL) {
			if (!s->done && s->line >= s->start) {
				s->good_len = s->len;
				s->good_line = s->line;
				if (s->line >= s->end)
					s->done = true;
			}
			s->line++;
		}
		p = seg;
	}
	return 0;
}

/* Milliseconds on the monotonic clock (a vDSO call: cheap per chunk). */
static long long
ws__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The range was not reached within a scan bound: say which bound, how far
 * the scan got, and what to do about it.
 */
static int
ws__scan_limit(const struct ws__scan *s, bool bytes, long long pos,
	       long long limit)
{
	char what[64];

	if (bytes)
		snprintf(what, sizeof(what), "%lld bytes (limits.scan_bytes)",
			 limit);
	else if (limit % 1000 == 0)
		snprintf(what, sizeof(what), "%lld s (limits.scan_time)",
			 limit / 1000);
	else
		snprintf(what, sizeof(what), "%lld ms (limits.scan_time)", limit);
	return ws_error_set(WS_ELIMIT_EXCEEDED, NULL,
			    "line %lld not reached within the scan limit of %s: "
			    "%lld lines in the first %lld bytes; hint: ask for "
			    "an earlier line, or raise limits.%s in the "
			    "configuration (or --%s)",
			    s->start, what, s->line - 1, pos,
			    bytes ? "scan_bytes" : "scan_time",
			    bytes ? "scan-bytes" : "scan-time");
}

/*
 * A large file found binary (a NUL in what was read so far): metadata, as
 * for a file binary from its first byte, whose type head tells; with
 * base64, FILE_TOO_LARGE, since its bytes are over the limit.
 */
static int
ws__binary_large(struct ws_read *r, const char *head, size_t headlen,
		 const struct ws_read_opts *o, long long max)
{
	ws__binary(r, head, headlen, false);
	if (o->base64)
		return ws_error_set(WS_EFILE_TOO_LARGE, NULL,
				    "is a %lld-byte binary file, over the "
				    "%lld-byte limit; raise --max-bytes to "
				    "get it as base64",
				    r->size, max);
	return 0;
}

/*
 * A file over max bytes (or the tail of one): binary metadata,
 * FILE_TOO_LARGE, or a stream.  The scan starts at byte off, which begins
 * line line0; cap bounds the content (max, or a smaller page).
 */
static int
ws__read_large(int fd, const struct stat *st, long long max, long long cap,
	       long long off, long long line0, const struct ws_read_opts *o,
	       struct ws_read *r)
{
	struct ws__scan s = {0};
	long long budget = o->count_max == 0 ? WS_READ_COUNT_DEFAULT : o->count_max;
	long long scan_max = o->scan_bytes > 0 ? o->scan_bytes : WS_READ_SCAN_DEFAULT;
	long long scan_ms = o->scan_ms > 0 ? o->scan_ms : WS_READ_SCAN_MS_DEFAULT;
	long long t0 = ws__now_ms();
	long long pos, done_at = -1;
	bool eof;
	char head[32]; /* the first bytes, for the type of a binary file */
	size_t headlen;
	char *chunk = malloc(WS__CHUNK);
	ssize_t n;
	int rc = 0;

	if (chunk == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if (off > 0 && lseek(fd, off, SEEK_SET) < 0) {
		rc = ws_error_errno(errno, NULL, "lseek");
		goto out;
	}
	n = ws__read_full(fd, chunk, WS__CHUNK);
	if (n < 0) {
		rc = ws_error_errno(errno, NULL, "read");
		goto out;
	}
	pos = off + n;
	eof = n < WS__CHUNK;
	r->size = st->st_size > pos ? st->st_size : pos;
	if (off > 0) {
		/* A binary file's type is in its first bytes, not the tail's. */
		ssize_t h = pread(fd, head, sizeof(head), 0);

		headlen = h > 0 ? (size_t)h : 0;
	} else {
		headlen = (size_t)n < sizeof(head) ? (size_t)n : sizeof(head);
		memcpy(head, chunk, headlen);
	}
	if (memchr(chunk, '\0', (size_t)n) != NULL) {
		rc = ws__binary_large(r, head, headlen, o, max);
		goto out;
	}
	if (o->start_line == 0 && o->end_line == 0 && o->page_lines == 0 &&
	    o->page_bytes == 0) {
		rc = ws_error_set(WS_EFILE_TOO_LARGE, NULL,
				  "is %lld bytes, over the %lld-byte limit; read "
				  "a range with --start-line/--end-line",
				  r->size, max);
		goto out;
	}
	s.start = o->start_line > 0 ? o->start_line : 1;
	s.end = o->end_line > 0 ? o->end_line : LLONG_MAX;
	s.cap = (size_t)cap;
	s.line = line0;
	for (;;) {
		if ((rc = ws__scan_feed(&s, chunk, (size_t)n)) < 0)
			goto out;
		if (eof)
			break;
		if (s.done) {
			/* Count the rest only while it is cheap enough. */
			if (done_at < 0)
				done_at = pos;
			if (budget < 0 || st->st_size - done_at > budget ||
			    pos - done_at > budget || pos - off >= scan_max ||
			    ws__now_ms() - t0 >= scan_ms)
				break;
		} else if (pos - off >= scan_max) {
			/*
			 * Still short of the range: the bound on the scan.
			 * (Once in range, max_bytes ends it soon enough.)
			 */
			rc = ws__scan_limit(&s, true, pos - off, scan_max);
			goto out;
		} else if (ws__now_ms() - t0 >= scan_ms) {
			rc = ws__scan_limit(&s, false, pos, scan_ms);
			goto out;
		}
		do
			n = read(fd, chunk, WS__CHUNK);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			rc = ws_error_errno(errno, NULL, "read");
			goto out;
		}
		if (n == 0)
			eof = true;
		pos += n;
		/*
		 * Binary is a NUL anywhere in what is read, not only in the
		 * first block: a file of text and then zeros is not text.
		 * memchr() runs at memory speed; the lines kept so far go.
		 */
		if (memchr(chunk, '\0', (size_t)n) != NULL) {
			if (pos > r->size)
				r->size = pos;
			rc = ws__binary_large(r, head, headlen, o, max);
			goto out;
		}
	}
	if (eof && !s.done && s.any && !s.last_nl && s.line >= s.start) {
		/* The last line has no newline but is whole. */
		s.good_len = s.len;
		s.good_line = s.line;
	}
	r->buf = s.out;
	s.out = NULL;
	r->data = r->buf ? r->buf : "";
	r->len = s.good_len;
	r->start_line = s.start;
	r->end_line = s.good_line >= s.start ? s.good_line : s.start - 1;
	r->truncated = s.truncated;
	r->total_known = eof;
	if (eof)
		r->total_lines = s.line - 1 + (s.any && !s.last_nl);
	if (pos > r->size)
		r->size = pos;
out:
	free(s.out);
	free(chunk);
	return rc;
}

/*
 * Where the last tail lines of a file begin: read backwards from the end
 * in chunks (pread, so the offset of fd is left alone), counting newlines,
 * within scan_bytes and scan_ms; then the line number there, by counting
 * the newlines before it when that is within count_max (else *known is
 * false).  A NUL met on the way makes *binary true.
 */
static int
ws__tail_start(int fd, long long size, const struct ws_read_opts *o,
	       long long *off, long long *line, bool *known, bool *binary)
{
	long long scan_max = o->scan_bytes > 0 ? o->scan_bytes : WS_READ_SCAN_DEFAULT;
	long long scan_ms = o->scan_ms > 0 ? o->scan_ms : WS_READ_SCAN_MS_DEFAULT;
	long long budget = o->count_max == 0 ? WS_READ_COUNT_DEFAULT : o->count_max;
	long long t0 = ws__now_ms(), pos = size, need = o->tail, nl = 0;
	char *chunk = malloc(WS__CHUNK);
	bool first = true;
	int rc = 0;

	*off = 0;
	*line = 1;
	*known = true;
	*binary = false;
	if (chunk == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	while (pos > 0) {
		size_t k = pos < WS__CHUNK ? (size_t)pos : WS__CHUNK;
		ssize_t n = pread(fd, chunk, k, pos - (long long)k);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (size_t)n != k) {
			rc = n < 0 ? ws_error_errno(errno, NULL, "read") :
				     ws_error_set(WS_EIO_ERROR, NULL,
						  "the file shrank while being read");
			goto out;
		}
		if (memchr(chunk, '\0', k) != NULL) {
			*binary = true;
			goto out;
		}
		/* A final newline ends the last line; it does not start one. */
		if (first && chunk[k - 1] == '\n')
			need++;
		first = false;
		for (size_t i = k; i > 0; i--) {
			if (chunk[i - 1] == '\n' && ++nl == need) {
				*off = pos - (long long)k + (long long)i;
				goto found;
			}
		}
		pos -= (long long)k;
		if (pos > 0 && (size - pos >= scan_max ||
				ws__now_ms() - t0 >= scan_ms)) {
			rc = ws_error_set(WS_ELIMIT_EXCEEDED, NULL,
					  "the start of the last %lld lines was not "
					  "found within the scan limit (%lld bytes "
					  "from the end); hint: ask for fewer lines",
					  o->tail, size - pos);
			goto out;
		}
	}
	goto out; /* fewer lines than asked: all of them, from line 1 */
found:
	if (budget >= 0 && *off <= budget) {
		long long c = 0;

		for (pos = 0; pos < *off;) {
			size_t k = *off - pos < WS__CHUNK ? (size_t)(*off - pos) :
							     WS__CHUNK;
			ssize_t n = pread(fd, chunk, k, pos);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				rc = ws_error_errno(n < 0 ? errno : EIO, NULL, "read");
				goto out;
			}
			c += ws_count_newlines(chunk, (size_t)n);
			pos += n;
		}
		*line = c + 1;
	} else {
		*known = false;
	}
out:
	free(chunk);
	return rc;
}

/* write() all of n bytes. */
static int
ws__write_full(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return ws_error_errno(errno, NULL, "write");
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/*
 * n bytes with each line prefixed by its number like cat -n (6 columns and
 * a tab); *line and *bol (at the start of a line) carry across chunks.
 * The output is gathered in a buffer so that a line costs no system call.
 */
static int
ws__write_numbered(int fd, const char *p, size_t n, long long *line,
		   bool *bol)
{
	const char *e = p + n;
	char buf[64 * 1024];
	size_t len = 0;
	int rc;

	while (p < e) {
		const char *q = memchr(p, '\n', (size_t)(e - p));
		size_t k = (size_t)((q ? q + 1 : e) - p);

		if (*bol) {
			if (len + 32 > sizeof(buf)) {
				if ((rc = ws__write_full(fd, buf, len)) < 0)
					return rc;
				len = 0;
			}
			len += (size_t)snprintf(buf + len, 32, "%6lld\t", (*line)++);
		}
		if (len + k > sizeof(buf)) {
			if ((rc = ws__write_full(fd, buf, len)) < 0)
				return rc;
			len = 0;
		}
		if (k > sizeof(buf)) {
			if ((rc = ws__write_full(fd, p, k)) < 0)
				return rc;
		} else {
			memcpy(buf + len, p, k);
			len += k;
		}
		*bol = q != NULL;
		p += k;
	}
	return ws__write_full(fd, buf, len);
}

/*
 * cat: copy the file to o->stream_fd chunk by chunk, any size, checking
 * each chunk for a NUL before it is written, so that a binary file is
 * caught before any of its bytes goes out when its first chunk tells.
 */
static int
ws__stream(int fd, const struct stat *st, const struct ws_read_opts *o,
	   struct ws_read *r)
{
	/*
	 * A small file gets a buffer its size (and one byte to see the end
	 * in the same read): malloc then takes it from the heap, where a
	 * whole chunk costs an mmap and a munmap.  A file that grew since
	 * fstat is read on in that buffer's steps.
	 */
	size_t size = st->st_size >= 0 && st->st_size < WS__CHUNK ?
		      (size_t)st->st_size + 1 : WS__CHUNK;
	char *chunk = malloc(size < 4096 ? 4096 : size);
	char head[32];
	size_t headlen = 0;
	long long line = 1;
	bool bol = true;
	int rc = 0;

	if (chunk == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	r->size = st->st_size;
	for (;;) {
		ssize_t n = read(fd, chunk, size < 4096 ? 4096 : size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = ws_error_errno(errno, NULL, "read");
			break;
		}
		if (n == 0)
			break;
		if (headlen == 0) {
			headlen = (size_t)n < sizeof(head) ? (size_t)n : sizeof(head);
			memcpy(head, chunk, headlen);
		}
		if (memchr(chunk, '\0', (size_t)n) != NULL) {
			ws__binary(r, head, headlen, false);
			break;
		}
		rc = o->stream_number ?
			     ws__write_numbered(o->stream_fd, chunk, (size_t)n,
						&line, &bol) :
			     ws__write_full(o->stream_fd, chunk, (size_t)n);
		if (rc < 0)
			break;
		r->streamed += n;
	}
	if (r->streamed > r->size)
		r->size = r->streamed;
	free(chunk);
	return rc;
}

/* Cut the content to cap bytes at a line end (see ws__scan_copy). */
static void
ws__cap_content(struct ws_read *r, long long cap)
{
	const char *nl;
	size_t keep;

	if ((long long)r->len <= cap)
		return;
	r->truncated = true;
	nl = cap > 0 ? memrchr(r->data, '\n', (size_t)cap) : NULL;
	if (nl != NULL) {
		keep = (size_t)(nl - r->data) + 1;
		r->end_line = r->start_line + ws_count_newlines(r->data, keep) - 1;
	} else {
		/* The first line alone is over the page: its head. */
		keep = ws__utf8_cut(r->data, (size_t)cap);
		r->end_line = r->start_line;
	}
	r->len = keep;
}

/*
 * Text that is not valid UTF-8: mostly text (at most a quarter of the
 * bytes invalid) keeps a U+FFFD copy in r->text; more is binary.
 */
static int
ws__check_utf8(struct ws_read *r, const struct ws_read_opts *o)
{
	size_t bad;

	if (ws_utf8_valid(r->data, r->len))
		return 0;
	r->text = ws_read_utf8_fix(r->data, r->len, &r->text_len, &bad);
	if (r->text == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if (bad * 4 > r->len) {
		free(r->text);
		r->text = NULL;
		r->text_len = 0;
		ws__binary(r, r->data, r->len, o->base64);
		if (!o->base64)
			r->data = NULL, r->len = 0;
		r->truncated = false;
		return 0;
	}
	r->invalid_utf8 = true;
	return 0;
}

int
ws_read_fd(int fd, const struct ws_read_opts *o, struct ws_read *r)
{
	return ws__read_fd_st(fd, NULL, o, r);
}

int
ws__read_fd_st(int fd, const struct stat *stp, const struct ws_read_opts *o,
	       struct ws_read *r)
{
	long long max = o->max_bytes > 0 ? o->max_bytes : WS_READ_MAX_DEFAULT;
	long long cap = max, off = 0, line0 = 1;
	bool paging = o->page_lines > 0 || o->page_bytes > 0;
	struct ws_read_opts eo = *o;
	struct stat st;
	int rc;

	memset(r, 0, sizeof(*r));
	r->type = "text";
	r->lines_known = true;
	if ((rc = ws_read_check_opts(o)) < 0)
		return rc;
	if (stp != NULL)
		st = *stp;
	else if (fstat(fd, &st) < 0)
		return ws_error_errno(errno, NULL, "fstat");
	if (!S_ISREG(st.st_mode))
		return ws_error_set(WS_ENOT_A_REGULAR_FILE, NULL,
				    "is not a regular file");
	/*
	 * The token of the file as it was before reading: a change while it
	 * is read makes the token stale, so a write guarded by it is
	 * refused rather than let through.
	 */
	ws_version_token(&st, r->version);
	if (o->stream) {
		rc = ws__stream(fd, &st, o, r);
		goto done;
	}
	if (o->tail > 0) {
		bool known, binary;

		rc = ws__tail_start(fd, st.st_size, o, &off, &line0, &known,
				    &binary);
		if (rc < 0)
			return rc;
		if (binary) {
			/* A NUL in the tail: binary metadata, typed by the head. */
			char head[32];
			ssize_t h = pread(fd, head, sizeof(head), 0);

			r->size = st.st_size;
			ws__binary(r, head, h > 0 ? (size_t)h : 0, false);
			if (o->base64)
				return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
						    "is a binary file: --tail does "
						    "not apply; use --base64 "
						    "without it");
			return 0;
		} else {
			eo.start_line = line0;
			eo.end_line = 0;
			r->lines_known = known;
			if (!known) {
				/* Numbered from the tail's start, and said so. */
				line0 = 1;
				eo.start_line = 1;
			}
		}
	}
	if (paging) {
		long long start = eo.start_line > 0 ? eo.start_line : 1;

		if (o->page_lines > 0 &&
		    (eo.end_line == 0 || eo.end_line - start + 1 > o->page_lines)) {
			eo.start_line = start;
			eo.end_line = start + o->page_lines - 1;
		}
		if (o->page_bytes > 0 && o->page_bytes < cap)
			cap = o->page_bytes;
	}
	if (st.st_size <= max && r->lines_known) {
		rc = ws__read_small(fd, st.st_size, max, &eo, r);
		if (rc == 0 && r->data != NULL && !r->binary)
			ws__cap_content(r, cap);
		if (rc != 1)
			goto done;
		/* It grew past the limit while being read: start over. */
		if (lseek(fd, 0, SEEK_SET) < 0)
			return ws_error_errno(errno, NULL, "lseek");
	}
	{
		bool known = r->lines_known;

		rc = ws__read_large(fd, &st, max, cap, off, line0, &eo, r);
		r->lines_known = known;
	}
done:
	if (rc < 0)
		return rc;
	if (!r->lines_known)
		r->total_known = false;
	if (r->binary || o->stream)
		return 0;
	/* The page ended before the range asked for, and more lines follow. */
	if (!r->truncated && eo.end_line != o->end_line && eo.end_line > 0 &&
	    r->end_line == eo.end_line &&
	    (!r->total_known || r->total_lines > r->end_line))
		r->truncated = true;
	if (r->truncated && r->lines_known)
		r->next_start_line = r->end_line + 1;
	return ws__check_utf8(r, o);
}

/* Name the path the user asked for in the last error, if none is named. */
static int
ws__name(int rc, const char *input)
{
	/* The path alone: the error's hint stays (ftu13 14). */
	if (ws_error_last_path() == NULL)
		ws_error_set_path(input);
	return rc;
}

int
ws_read_file(struct ws_ctx *ws, const char *input,
	     const struct ws_read_opts *o, struct ws_res *res, struct ws_read *r)
{
	struct stat st;
	int fd = -1, rc;

	memset(r, 0, sizeof(*r));
	if ((rc = ws_read_check_opts(o)) < 0)
		return rc;
	rc = ws_resolve(ws, input, 0, res);
	if (rc < 0)
		return rc;
	if ((rc = ws_check(ws, WS_OP_OPEN, res->real, res->vpath)) < 0 ||
	    (rc = ws_check(ws, WS_OP_READ, res->real, res->vpath)) < 0)
		return ws__name(rc, input);
	/*
	 * The open's inode check already has the file's stat: it is the
	 * token's source, and a second fstat() would only cost a call.
	 */
	if ((rc = ws__res_open_st(res, O_RDONLY, &fd, &st)) < 0)
		return ws__name(rc, input);
	rc = ws__read_fd_st(fd, &st, o, r);
	close(fd);
	if (rc < 0) {
		ws_read_free(r);
		return ws__name(rc, input);
	}
	return 0;
}
