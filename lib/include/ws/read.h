/*
 * ws/read.h - reading a file, or a line range of it, for wsread.
 *
 * The data is read only through a descriptor that ws_res_open() returned,
 * so what is read is the object the resolver checked.  A file within the
 * byte limit is read with one large read() and sliced in memory; a larger
 * one is streamed in chunks, and only as far as the requested range needs
 * (plus, within a budget, the rest to count its lines).
 *
 * Lines: a line ends at "\n", so "\r\n" is one line end and the "\r" stays
 * in the content; a last line without a final newline still counts; an
 * empty file has 0 lines.  Binary: a NUL byte anywhere in what is read
 * (all of a file within max_bytes; up to where a ranged read stops in a
 * larger one), checked as the read goes, or text of which more than a
 * quarter of the bytes are not UTF-8; less than that is text with a
 * U+FFFD copy (invalid_utf8).
 *
 * Three more ways to read (issue 9): a page (JSON), the first
 * page_lines/page_bytes of the range, with truncated and next_start_line,
 * for a file of any size; a tail, found by reading backwards from the end;
 * and a stream to a descriptor (plain mode: cat).  Every read gives the
 * version token of the descriptor's fstat before reading.
 */
#ifndef WS_READ_H
#define WS_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "ws/resolve.h"
#include "ws/version.h"
#include "ws/workspace.h"

#define WS_READ_MAX_DEFAULT (1024LL * 1024)	   /* --max-bytes default */
#define WS_READ_MAX_HARD (256LL * 1024 * 1024)	   /* --max-bytes ceiling */
#define WS_READ_SNIFF 8192			   /* see ws_read_is_binary */
#define WS_READ_COUNT_DEFAULT (64LL * 1024 * 1024) /* see count_max */
#define WS_READ_SCAN_DEFAULT (1LL << 30)	   /* see scan_bytes */
#define WS_READ_SCAN_MS_DEFAULT 5000		   /* see scan_ms */
#define WS_READ_PAGE_LINES 2000			   /* JSON page, in lines */
#define WS_READ_PAGE_BYTES (64LL * 1024)	   /* JSON page, in bytes */

/* What to read. */
struct ws_read_opts {
	long long start_line; /* first line, 1-based; 0: not given (1) */
	long long end_line;   /* last line, inclusive; 0: not given (the end) */
	long long max_bytes;  /* content limit; 0: WS_READ_MAX_DEFAULT */
	bool base64;	      /* binary files: return the content as well */
	/*
	 * When a ranged read of a large file stops early, at most this many
	 * further bytes are read to count total_lines; past it total_lines
	 * is unknown.  0: WS_READ_COUNT_DEFAULT; negative: never count.
	 */
	long long count_max;
	/*
	 * Bounds on reading a large file to find the range: at most
	 * scan_bytes bytes and scan_ms milliseconds before the range is
	 * complete, else WS_ELIMIT_EXCEEDED (a model can ask for line
	 * 9999999999 of a 50 GiB sparse file).  0: WS_READ_SCAN_DEFAULT and
	 * WS_READ_SCAN_MS_DEFAULT.  Counting the rest stops quietly at them.
	 */
	long long scan_bytes;
	long long scan_ms;
	/*
	 * Paging (JSON): at most page_lines lines and page_bytes bytes of
	 * the range are returned; a file of any size then gives its first
	 * page instead of FILE_TOO_LARGE, with truncated and
	 * next_start_line.  0: no page (plain mode, where max_bytes is the
	 * only cut).
	 */
	long long page_lines;
	long long page_bytes;
	/*
	 * The last tail lines (0: not asked), found by reading backwards
	 * from the end, within scan_bytes and scan_ms; exclusive of
	 * start_line and end_line.
	 */
	long long tail;
	/*
	 * Stream the whole file to this descriptor instead of returning it
	 * (plain mode without a range: cat).  stream_fd is used only when
	 * stream is true; a NUL found in a chunk before it is written ends
	 * the copy with binary metadata (and no error: the caller decides).
	 */
	bool stream;
	int stream_fd;
	bool stream_number; /* with stream: number the lines like cat -n */
};

/* What was read. */
struct ws_read {
	const char *data;      /* content bytes (NULL: metadata only) */
	size_t len;
	long long size;	       /* file size (fstat, or bytes read if more) */
	bool binary;	       /* a NUL in the bytes read */
	const char *type;      /* "text", or a guess: "png", ..., "binary" */
	long long start_line;  /* first line asked for (text only) */
	long long end_line;    /* last line returned; start_line - 1: none */
	long long total_lines; /* lines in the file, if total_known */
	bool total_known;
	bool truncated;	       /* more lines of the range follow content */
	long long next_start_line; /* with truncated: where to go on; 0: none */
	bool lines_known;      /* start_line/end_line are true line numbers
				  (false only for a tail of a file too large
				  to count up to it) */
	const char *mime_type; /* binary: from the magic bytes */
	/*
	 * Text that is not all valid UTF-8 (but mostly is): text holds the
	 * content with U+FFFD for each invalid byte; data keeps the bytes.
	 */
	bool invalid_utf8;
	char *text;
	size_t text_len;
	long long streamed;    /* with stream: bytes written */
	char version[WS_VERSION_LEN]; /* token of the fstat before reading */
	char *buf;	       /* owned storage behind data */
};

/*
 * The line span of a buffer holding a whole file: which bytes hold lines
 * start..end (1-based, inclusive; end 0 or past the end: the last line).
 */
struct ws_read_span {
	size_t off, len;
	long long first, last; /* last = first - 1 when no line is in range */
	long long total;
};

/* Check the options: negative lines or limits, start after end. */
int ws_read_check_opts(const struct ws_read_opts *o);

/*
 * Read the regular file open on fd (at offset 0) per o into r, which
 * ws_read_free() releases.  Errors: WS_EFILE_TOO_LARGE (a text file over
 * max_bytes without a range, a page or a tail, or a binary one with
 * base64), WS_ELIMIT_EXCEEDED (also: a tail's start not found within the
 * scan bounds),
 * WS_ELIMIT_EXCEEDED (the range not reached within scan_bytes or scan_ms),
 * WS_EIO_ERROR, WS_EINVALID_ARGUMENT.
 */
int ws_read_fd(int fd, const struct ws_read_opts *o, struct ws_read *r);

struct stat;
/*
 * Internal: ws_read_fd() with the descriptor's stat already taken (st),
 * or fstat() of fd when st is NULL.
 */
int ws__read_fd_st(int fd, const struct stat *st, const struct ws_read_opts *o,
		   struct ws_read *r);

/*
 * The whole operation: resolve input in ws, ask the policy for "open" and
 * "read", open it with ws_res_open() (which refuses directories, FIFOs,
 * sockets and devices without blocking) and read it.  res is filled (and
 * must be freed with ws_res_free()) even when reading fails after
 * resolution; errors name input as their path.
 */
int ws_read_file(struct ws_ctx *ws, const char *input,
		 const struct ws_read_opts *o, struct ws_res *res,
		 struct ws_read *r);

/* Free what ws_read_fd() allocated. Safe on a zeroed r. */
void ws_read_free(struct ws_read *r);

/*
 * Whether buf holds a NUL byte within its first WS_READ_SNIFF bytes: a
 * quick sniff for callers that look at a file's head only.  ws_read_fd()
 * itself checks every byte it reads.
 */
bool ws_read_is_binary(const void *buf, size_t n);

/*
 * A type guess from magic bytes: "png", "jpeg", "gif", "pdf", "zip",
 * "gzip", "elf", "sqlite", else "binary".
 */
const char *ws_read_guess_type(const void *buf, size_t n);

/*
 * The MIME type from magic bytes: "image/png", "image/jpeg", "image/gif",
 * "image/webp", "application/pdf", "application/zip", "application/wasm",
 * ..., else "application/octet-stream".
 */
const char *ws_read_mime_type(const void *buf, size_t n);

/*
 * A copy of n bytes with each byte that is not part of a valid UTF-8
 * sequence replaced by U+FFFD; *outlen gets its length and *bad the count
 * of bytes replaced.  NULL when out of memory.
 */
char *ws_read_utf8_fix(const char *buf, size_t n, size_t *outlen, size_t *bad);

/*
 * Newlines in n bytes, counted 16 bytes at a time (wsgrep's line numbers
 * use it too).
 */
long long ws_count_newlines(const char *p, size_t n);

/* Lines in n bytes: newlines, plus one for a last line without one. */
long long ws_read_count_lines(const char *buf, size_t n);

/* Compute the span of lines start..end of a whole-file buffer. */
void ws_read_lines(const char *buf, size_t n, long long start, long long end,
		   struct ws_read_span *sp);


#endif
