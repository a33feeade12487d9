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
 * larger one), checked as the read goes.
 */
#ifndef WS_READ_H
#define WS_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "ws/resolve.h"
#include "ws/workspace.h"

#define WS_READ_MAX_DEFAULT (1024LL * 1024)	   /* --max-bytes default */
#define WS_READ_MAX_HARD (256LL * 1024 * 1024)	   /* --max-bytes ceiling */
#define WS_READ_SNIFF 8192			   /* see ws_read_is_binary */
#define WS_READ_COUNT_DEFAULT (64LL * 1024 * 1024) /* see count_max */
#define WS_READ_SCAN_DEFAULT (1LL << 30)	   /* see scan_bytes */
#define WS_READ_SCAN_MS_DEFAULT 5000		   /* see scan_ms */

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
	bool truncated;	       /* content cut at max_bytes */
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
 * max_bytes without a range, or a binary one with base64),
 * WS_ELIMIT_EXCEEDED (the range not reached within scan_bytes or scan_ms),
 * WS_EIO_ERROR, WS_EINVALID_ARGUMENT.
 */
int ws_read_fd(int fd, const struct ws_read_opts *o, struct ws_read *r);

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

/* Lines in n bytes: newlines, plus one for a last line without one. */
long long ws_read_count_lines(const char *buf, size_t n);

/* Compute the span of lines start..end of a whole-file buffer. */
void ws_read_lines(const char *buf, size_t n, long long start, long long end,
		   struct ws_read_span *sp);


#endif
