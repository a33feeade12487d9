/*
 * tool_read.c - read_file (wsread) on the tool table: its options, the
 * decoding of its arguments, the call (ws_read_file()), and its result
 * as JSON, as plain text (the file's bytes, like cat) and as the text a
 * model reads (the content, with a header line and numbered lines where
 * a range was asked).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/json.h"
#include "ws/out.h"
#include "ws/path.h"
#include "ws/read.h"
#include "ws/resolve.h"
#include "ws/tool.h"

enum {
	O_START, O_END, O_TAIL, O_MAX_BYTES, O_PAGE_LINES, O_PAGE_BYTES,
	O_BASE64, O_LINE_NUMBERS, O_NUMBER, O_SCAN_BYTES, O_SCAN_TIME, O_COUNT
};

static const struct ws_opt opts[O_COUNT] = {
	[O_START] = {"start-line", 0, WS_OPT_INT, "N",
		     "first line to read, 1-based (default 1)", 0},
	[O_END] = {"end-line", 0, WS_OPT_INT, "N",
		   "last line to read, inclusive (default: the last line; past "
		   "the end is clamped)", 0},
	[O_TAIL] = {"tail", 0, WS_OPT_INT, "N",
		    "read the last N lines (found from the end: a large file is "
		    "not read whole)", 0},
	[O_MAX_BYTES] = {"max-bytes", 0, WS_OPT_INT, "N",
			 "largest content returned, in bytes (default 1048576); "
			 "in JSON, also the largest page", 0},
	[O_PAGE_LINES] = {"page-lines", 0, WS_OPT_INT, "N",
			  "JSON: most lines returned in one page (default 2000); "
			  "more give truncated and next_start_line", 0},
	[O_PAGE_BYTES] = {"page-bytes", 0, WS_OPT_INT, "N",
			  "JSON: most bytes returned in one page (default 65536, "
			  "at most --max-bytes)", 0},
	[O_BASE64] = {"base64", 0, WS_OPT_FLAG, NULL,
		      "return the content base64-encoded (the only way to get "
		      "a binary file's bytes)", 0},
	[O_LINE_NUMBERS] = {"line-numbers", 0, WS_OPT_FLAG, NULL,
			    "number the lines like cat -n (in the JSON content "
			    "too)", 0},
	[O_NUMBER] = {"number", 'n', WS_OPT_FLAG, NULL,
		      "number the output lines (as --line-numbers)",
		      WS_OPT_NOSCHEMA},
	/*
	 * The bounds on scanning a large file for a range are the person's
	 * to set (config limits.scan_bytes and limits.scan_time), never the
	 * model's: no --args key.
	 */
	[O_SCAN_BYTES] = {"scan-bytes", 0, WS_OPT_INT, "N",
			  "most bytes scanned to reach a line range (default "
			  "1073741824)", WS_OPT_NOSCHEMA},
	[O_SCAN_TIME] = {"scan-time", 0, WS_OPT_INT, "S",
			 "most seconds spent scanning to reach a line range "
			 "(default 5)", WS_OPT_NOSCHEMA},
};

static const struct ws_tool ws__read_cli = {
	.prog = "wsread",
	.tool = "read_file",
	.description = "Read a file in the workspace, or a range of its lines "
		       "(start_line and end_line, 1-based, inclusive), or its "
		       "last lines (tail). Returns content, start_line, end_line, "
		       "total_lines, size and a version token. A long file comes "
		       "a page at a time (2000 lines or 64 KiB): truncated is "
		       "true and next_start_line says where to go on. A binary "
		       "file gives metadata (mime_type) only unless base64 is "
		       "true.",
	.help = "Read a file in the workspace, or a range of its lines "
		"(--start-line and --end-line, 1-based, inclusive), or its last "
		"lines (--tail). With --json it returns the content, the line "
		"range, total_lines, size and a version token; a long file then "
		"comes a page at a time (2000 lines or 64 KiB): \"truncated\" is "
		"true and --start-line NEXT reads on, NEXT being the "
		"next_start_line it gives. A binary file gives its metadata "
		"(mime_type) only, unless --base64 is given.",
	.usage = "wsread [OPTION]... PATH...",
	.pos_name = "path",
	.pos_help = "file to read: relative to the workspace root, or a "
		    "virtual absolute path such as /src/main.c",
	.pos_kind = WS_POS_MANY,
	.opts = opts,
	.nopts = O_COUNT,
};

/* Options as given: line numbers and limits must be at least 1. */
static int
get_opts(const struct ws_cli *cli, struct ws_read_opts *o, bool cli_mode)
{
	static const int pos[] = {O_START, O_END, O_TAIL, O_MAX_BYTES,
				  O_PAGE_LINES, O_PAGE_BYTES, O_SCAN_BYTES,
				  O_SCAN_TIME};

	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < sizeof(pos) / sizeof(pos[0]); i++) {
		const struct ws_optval *v = WS_OPT(cli, pos[i]);

		if (v->set && v->i < 1)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "--%s must be at least 1, not %lld",
					    opts[pos[i]].name, v->i);
	}
	o->start_line = WS_OPT(cli, O_START)->i;
	o->end_line = WS_OPT(cli, O_END)->i;
	o->tail = WS_OPT(cli, O_TAIL)->i;
	o->max_bytes = WS_OPT(cli, O_MAX_BYTES)->i;
	o->base64 = WS_OPT(cli, O_BASE64)->b;
	o->scan_bytes = WS_OPT(cli, O_SCAN_BYTES)->i;
	if (WS_OPT(cli, O_SCAN_TIME)->i > LLONG_MAX / 1000)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--scan-time is too large");
	o->scan_ms = WS_OPT(cli, O_SCAN_TIME)->i * 1000;
	if (cli->json) {
		/* A page sized for a context window, unless asked otherwise. */
		o->page_lines = WS_OPT(cli, O_PAGE_LINES)->set ?
				WS_OPT(cli, O_PAGE_LINES)->i : WS_READ_PAGE_LINES;
		/* Never more than max_bytes: ws_read_fd() takes the smaller. */
		o->page_bytes = WS_OPT(cli, O_PAGE_BYTES)->set ?
				WS_OPT(cli, O_PAGE_BYTES)->i : WS_READ_PAGE_BYTES;
	}
	/* Plain mode without a range or a limit is cat: any size, streamed. */
	o->stream = cli_mode && !cli->json && ws_out_is_stdout() && o->start_line == 0 && o->end_line == 0 &&
		    o->tail == 0 && !WS_OPT(cli, O_MAX_BYTES)->set && !o->base64;
	o->stream_number = WS_OPT(cli, O_LINE_NUMBERS)->b ||
			   WS_OPT(cli, O_NUMBER)->b;
	o->stream_fd = STDOUT_FILENO;
	return ws_read_check_opts(o);
}

/* Lines numbered like cat -n: width 6, a tab, the line as it is. */
static void
number_lines(FILE *f, const char *p, size_t n, long long ln)
{
	const char *e = p + n;

	while (p < e) {
		const char *q = memchr(p, '\n', (size_t)(e - p));
		const char *seg = q ? q + 1 : e;

		fprintf(f, "%6lld\t", ln++);
		fwrite(p, 1, (size_t)(seg - p), f);
		p = seg;
	}
}

static int
print_json(const struct ws_cli *cli, struct ws_jw *jw, const struct ws_res *res,
	   const struct ws_read *r, bool base64, bool numbers)
{
	bool lines = !r->binary && r->lines_known;

	ws_jw_obj(jw);
	ws_jw_kname(jw, "path", res->vpath);
	ws_cli_kreal(cli, jw, "real_path", res->real);
	ws_jw_key(jw, "content");
	if (r->data == NULL) {
		ws_jw_null(jw);
		ws_jw_knull(jw, "encoding");
	} else if (base64) {
		ws_jw_base64(jw, r->data, r->len);
		ws_jw_kstr(jw, "encoding", "base64");
	} else {
		const char *t = r->text ? r->text : r->data;
		size_t n = r->text ? r->text_len : r->len;

		if (numbers && lines) {
			char *buf = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&buf, &len);

			if (m == NULL)
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			number_lines(m, t, n, r->start_line);
			if (fclose(m) != 0) {
				free(buf);
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			}
			ws_jw_strn(jw, buf, len);
			free(buf);
		} else {
			ws_jw_strn(jw, t, n);
		}
		ws_jw_kstr(jw, "encoding", "utf-8");
	}
	if (lines) {
		ws_jw_kint(jw, "start_line", r->start_line);
		ws_jw_kint(jw, "end_line", r->end_line);
	} else {
		ws_jw_knull(jw, "start_line");
		ws_jw_knull(jw, "end_line");
	}
	if (r->total_known)
		ws_jw_kint(jw, "total_lines", r->total_lines);
	else
		ws_jw_knull(jw, "total_lines");
	ws_jw_kbool(jw, "total_lines_known", r->total_known);
	ws_jw_kint(jw, "size", r->size);
	ws_jw_kbool(jw, "binary", r->binary);
	ws_jw_kstr(jw, "type", r->type);
	if (r->binary)
		ws_jw_kstr(jw, "mime_type", r->mime_type);
	else
		ws_jw_knull(jw, "mime_type");
	ws_jw_kbool(jw, "invalid_utf8", r->invalid_utf8);
	ws_jw_kbool(jw, "truncated", r->truncated);
	if (r->next_start_line > 0)
		ws_jw_kint(jw, "next_start_line", r->next_start_line);
	else
		ws_jw_knull(jw, "next_start_line");
	ws_jw_kstr(jw, "version", r->version);
	ws_jw_obj_end(jw);
	return 0;
}

/* A binary file in plain mode is an error, never bytes that look like text. */
static int
binary_error(const struct ws_read *r)
{
	return ws_error_set(WS_EIO_ERROR, NULL,
			    "is a binary file (%s, %lld byte%s), not written as "
			    "text; use --base64 for its bytes or --json for its "
			    "metadata", r->mime_type ? r->mime_type :
			    "application/octet-stream", r->size,
			    r->size == 1 ? "" : "s");
}

static int
print_plain(const struct ws_cli *cli, const struct ws_res *res,
	    const struct ws_read *r, const struct ws_read_opts *o)
{
	const char *show = ws_cli_show_path(cli, res->vpath, res->real);

	if (o->stream)
		return r->binary ? binary_error(r) : 0;
	if (r->data == NULL) {
		return binary_error(r);
	} else if (o->base64) {
		char *b = ws_base64(r->data, r->len);

		if (b == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		fputs(b, ws_out());
		fputc('\n', ws_out());
		free(b);
	} else if ((WS_OPT(cli, O_NUMBER)->b || WS_OPT(cli, O_LINE_NUMBERS)->b) &&
		   r->lines_known) {
		number_lines(ws_out(), r->data, r->len, r->start_line);
	} else {
		fwrite(r->data, 1, r->len, ws_out());
	}
	if (r->truncated && !cli->json)
		fprintf(stderr,
			"wsread: %s: output cut at the %lld-byte limit after "
			"line %lld; read a smaller range or raise --max-bytes\n",
			show, WS_OPT(cli, O_MAX_BYTES)->set ?
			WS_OPT(cli, O_MAX_BYTES)->i : WS_READ_MAX_DEFAULT,
			r->end_line);
	/*
	 * A start past the last line is a success with nothing to print
	 * (as the JSON's empty content with total_lines): say why, or an
	 * empty output looks like an empty file or a lost read.
	 */
	if (!cli->json && r->lines_known && r->end_line < r->start_line &&
	    r->total_known)
		fprintf(stderr, "wsread: %s: no lines from line %lld: the file "
			"has %lld line%s\n", show, r->start_line, r->total_lines,
			r->total_lines == 1 ? "" : "s");
	return 0;
}

/* Whether the call asked for option i (given, and not false). */
static bool
asked(const struct ws_cli *cli, int i)
{
	const struct ws_optval *v = WS_OPT(cli, i);

	return v->set && (opts[i].type != WS_OPT_FLAG || v->b);
}

/*
 * The text a model reads for a text file: the content; when the file was
 * not read whole or a range was asked, one header line first ("[lines
 * 120-180 of 4274]") and the lines numbered (as cat -n), so that a model
 * editing by line numbers knows where it is.
 */
static void
text_lines(FILE *f, const struct ws_cli *cli, const struct ws_read *r,
	   const char *content, size_t n)
{
	bool lines = r->lines_known;
	long long sl = lines ? r->start_line : 1, el = lines ? r->end_line : 0;
	long long total = r->total_known ? r->total_lines : -1;
	bool range = asked(cli, O_START) || asked(cli, O_END) || asked(cli, O_TAIL);
	bool part = range || r->truncated || sl != 1 || !r->total_known ||
		    (total >= 0 && el != total);
	/*
	 * Every part of a file comes numbered, the first page of a long
	 * file as the pages after it (FTU9 8): a model editing from page 1
	 * has the same line numbers as one that read on.
	 */
	bool number = part && lines && !asked(cli, O_LINE_NUMBERS);
	char of[48];

	if (total < 0)
		snprintf(of, sizeof(of), "more than %lld", el > 0 ? el : 0);
	else
		snprintf(of, sizeof(of), "%lld", total);
	if (part) {
		if (el < sl)
			fprintf(f, "[no lines: the file has %s]\n", of);
		else
			fprintf(f, "[lines %lld-%lld of %s]\n", sl, el, of);
	}
	if (number && el >= sl)
		number_lines(f, content, n, sl);
	else
		fwrite(content, 1, n, f);
	/* What the plain CLI says on stderr, the model reads here. */
	if (r->truncated && r->next_start_line > 0)
		fprintf(f, "%s[truncated: %lld of %s lines shown; read on with "
			"start_line=%lld]\n", n > 0 && content[n - 1] != '\n' ? "\n" : "",
			el >= sl ? el - sl + 1 : 0, of, r->next_start_line);
}

/* The text a model reads for one file read. */
static int
print_text(FILE *f, const struct ws_cli *cli, const struct ws_res *res,
	   const struct ws_read *r)
{
	bool base64 = WS_OPT(cli, O_BASE64)->b;

	if (r->data == NULL) {
		fprintf(f, "%s is a binary file (%lld byte%s%s%s), not shown: read it "
			"with \"base64\": true\n", res->vpath, r->size,
			r->size == 1 ? "" : "s", r->binary ? ", " : "",
			r->binary ? r->mime_type : "");
	} else if (base64) {
		/* The bytes once, after a line that says what they are. */
		char *b = ws_base64(r->data, r->len);

		if (b == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		fputs("[base64 of ", f);
		ws_tcall_put_name(f, res->vpath);
		fprintf(f, ": %lld byte%s%s%s]\n%s\n", r->size,
			r->size == 1 ? "" : "s", r->binary ? ", " : "",
			r->binary ? r->mime_type : "", b);
		free(b);
	} else if (WS_OPT(cli, O_LINE_NUMBERS)->b && !r->binary && r->lines_known) {
		/* The content as the JSON has it: numbered already. */
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		if (m == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		number_lines(m, r->text ? r->text : r->data,
			     r->text ? r->text_len : r->len, r->start_line);
		if (fclose(m) != 0) {
			free(buf);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		text_lines(f, cli, r, buf, len);
		free(buf);
	} else {
		text_lines(f, cli, r, r->text ? r->text : r->data,
			   r->text ? r->text_len : r->len);
	}
	return 0;
}

/*
 * The media types a client shows as an image or plays as audio (those
 * of the reference server's read_media_file): the detected type, or,
 * where detection knows only the container, the file's magic (WAVE in
 * RIFF; Ogg).  NULL: not media.
 */
static const char *
media_type(const struct ws_res *res, const struct ws_read *r)
{
	static const char *const known[] = {"image/png", "image/jpeg", "image/gif",
					    "image/webp", "audio/mpeg", "audio/flac",
					    "audio/wav", "audio/ogg"};
	size_t pl = res->vpath ? strlen(res->vpath) : 0;

	if (!r->binary || r->mime_type == NULL)
		return NULL;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(r->mime_type, known[i]) == 0)
			return known[i];
	if (strcmp(r->mime_type, "application/ogg") == 0)
		return "audio/ogg";
	/* Detection has no WAVE: the name says it, the magic confirms it. */
	if (strcmp(r->mime_type, "application/octet-stream") == 0 && pl > 4 &&
	    strcasecmp(res->vpath + pl - 4, ".wav") == 0 &&
	    (r->data == NULL || (r->len >= 12 && memcmp(r->data, "RIFF", 4) == 0 &&
				 memcmp(r->data + 8, "WAVE", 4) == 0)))
		return "audio/wav";
	return NULL;
}

/*
 * read_file of one image or audio file for a model: the bytes, so that
 * the answer is an image or audio block as the reference's
 * read_media_file gives, not a line saying "binary".  A file read as
 * metadata only is read again with base64 (a range or tail asked is a
 * text request: left alone).  Returns the media type with *res and *r
 * the read that has the bytes, or NULL (the first read stands).
 */
static const char *
media_read(struct ws_tcall *c, const struct ws_read_opts *o, const char *input,
	   struct ws_res *res, struct ws_read *r)
{
	struct ws_read_opts o2 = *o;
	struct ws_res res2 = {.fd = -1, .dirfd = -1};
	struct ws_read r2 = {0};
	const char *mime = media_type(res, r);

	if (!c->media_ok || mime == NULL || asked(c->cli, O_START) ||
	    asked(c->cli, O_END) || asked(c->cli, O_TAIL))
		return NULL;
	if (r->data != NULL)
		return mime;
	o2.base64 = true;
	/* The file may have changed between the reads: judged again. */
	if (ws_read_file(c->ws, input, &o2, &res2, &r2) < 0 ||
	    (mime = media_type(&res2, &r2)) == NULL || r2.data == NULL ||
	    r2.truncated) {
		ws_error_clear();
		ws_read_free(&r2);
		ws_res_free(&res2);
		return NULL;
	}
	ws_read_free(r);
	ws_res_free(res);
	*r = r2;
	*res = res2;
	return mime;
}

/* A media file's output: its metadata, the bytes go in the block. */
static void
print_media_json(const struct ws_cli *cli, struct ws_jw *jw, const struct ws_res *res,
		 const struct ws_read *r, const char *mime)
{
	ws_jw_obj(jw);
	ws_jw_kname(jw, "path", res->vpath);
	ws_cli_kreal(cli, jw, "real_path", res->real);
	ws_jw_kint(jw, "size", r->size);
	ws_jw_kbool(jw, "binary", r->binary);
	ws_jw_kstr(jw, "type", r->type);
	ws_jw_kbool(jw, "truncated", r->truncated);
	ws_jw_kstr(jw, "version", r->version);
	ws_jw_kstr(jw, "mime_type", mime);
	ws_jw_obj_end(jw);
}

/* One file's text among several: under its name, as head(1) shows them. */
static int
text_one_of(FILE *f, const struct ws_cli *cli, const struct ws_res *res,
	    const struct ws_read *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc;

	if (m == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	rc = print_text(m, cli, res, r);
	if (fclose(m) != 0 && rc == 0)
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if (rc == 0) {
		fputs("==> ", f);
		ws_tcall_put_name(f, res->vpath);
		fputs(" <==\n", f);
		fwrite(buf, 1, len, f);
		/* The next name starts a line. */
		if (len > 0 && buf[len - 1] != '\n')
			fputc('\n', f);
	}
	free(buf);
	return rc;
}

/*
 * Read one file and give its result: into jw in JSON (begun by the
 * caller, or here, for a lone file, once it has been read, so that a
 * failure gets the envelope of an error), else to stdout; for a model,
 * its text too.
 */
static int
one_file(struct ws_tcall *c, const struct ws_read_opts *o, struct ws_jw *jw,
	 bool lone, const char *input)
{
	const struct ws_cli *cli = c->cli;
	struct ws_res res = {.fd = -1, .dirfd = -1};
	struct ws_read r = {0};
	const char *media = NULL;
	int rc;

	/* Plain output so far goes out before this file's streamed bytes. */
	if (o->stream)
		fflush(ws_out());
	rc = ws_read_file(c->ws, input, o, &res, &r);
	if (rc == 0 && c->mode == WS_TCALL_MODEL && lone)
		media = media_read(c, o, input, &res, &r);
	if (rc == 0 && media != NULL) {
		char *b = ws_base64(r.data, r.len);

		if (b == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		} else {
			c->media = media;
			c->media_data = b;
			ws_tcall_begin(c, jw);
			print_media_json(cli, jw, &res, &r, media);
			fprintf(c->text, "%s: %s, %lld byte%s", res.vpath, media,
				r.size, r.size == 1 ? "" : "s");
		}
	} else if (rc == 0 && cli->json) {
		if (lone)
			ws_tcall_begin(c, jw);
		rc = print_json(cli, jw, &res, &r, o->base64,
				WS_OPT(cli, O_LINE_NUMBERS)->b);
		if (lone)
			ws_tcall_end(c, jw);
		if (rc == 0 && c->mode == WS_TCALL_MODEL && lone)
			rc = print_text(c->text, cli, &res, &r);
		else if (rc == 0 && c->mode == WS_TCALL_MODEL)
			rc = text_one_of(c->text, cli, &res, &r);
	} else if (rc == 0) {
		rc = print_plain(cli, &res, &r, o);
	}
	if (rc < 0 && ws_error_last_path() == NULL)
		ws_error_set_path(input);
	ws_read_free(&r);
	ws_res_free(&res);
	return rc;
}

/* A failed file among several, in JSON: its path and error in results. */
static void
json_failed(struct ws_jw *jw, const char *input, int rc)
{
	ws_jw_obj(jw);
	ws_jw_kname(jw, "path", input);
	ws_jw_key(jw, "error");
	ws_jw_obj(jw);
	ws_jw_kstr(jw, "code", ws_error_name(rc));
	ws_jw_kstr(jw, "message", ws_error_last());
	ws_jw_obj_end(jw);
	ws_jw_obj_end(jw);
}

static int
read_run(struct ws_tcall *c)
{
	const struct ws_cli *cli = c->cli;
	struct ws_read_opts o;
	struct ws_jw jw;
	int rc, first_rc = 0, status = 0;

	if ((rc = get_opts(cli, &o, c->mode == WS_TCALL_CLI)) < 0)
		return ws_tcall_fail(c, rc);
	if (cli->npos == 1) {
		/* One file: its result is the output, its error the call's. */
		if ((rc = one_file(c, &o, &jw, true, cli->pos[0])) < 0)
			return ws_tcall_fail(c, rc);
		return 0;
	}
	/* Several: each in output.results (JSON), or one after the other. */
	if (cli->json) {
		if ((rc = ws_tcall_multi_begin(c, &jw)) < 0)
			return ws_tcall_fail(c, rc);
		ws_jw_obj(&jw);
		ws_jw_key(&jw, "results");
		ws_jw_arr(&jw);
	}
	for (size_t i = 0; i < cli->npos; i++) {
		rc = one_file(c, &o, &jw, false, cli->pos[i]);
		if (rc == 0)
			continue;
		if (first_rc == 0)
			first_rc = rc;
		ws_tcall_multi_fail(c, rc, ws_error_last_path() ?
				    ws_error_last_path() : cli->pos[i]);
		if (c->mode == WS_TCALL_MODEL) {
			fputs("==> ", c->text);
			ws_tcall_put_name(c->text, cli->pos[i]);
			fprintf(c->text, " <==\n[%s: %s]\n", ws_error_name(rc),
				ws_error_last());
		}
		if (cli->json)
			json_failed(&jw, cli->pos[i], rc);
		else /* Like cat: report and go on with the next one. */
			ws_cli_warn(cli, cli->pos[i], ws_error_last(), rc);
	}
	if (cli->json) {
		ws_jw_arr_end(&jw);
		ws_jw_obj_end(&jw);
		status = ws_tcall_multi_end(c, false);
	} else if (first_rc < 0) {
		status = ws_error_exit_status(first_rc);
	}
	return status;
}

const struct ws_tool_def ws_tool_read_file = {
	.name = "read_file",
	.cli = &ws__read_cli,
	.title = "Read a file",
	.ro = true,
	.destructive = false,
	.idempotent = true,
	.output_schema =
	"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	"\"content\":{},\"total_lines\":{},\"truncated\":{\"type\":\"boolean\"},"
	"\"next_start_line\":{},\"version\":{\"type\":\"string\"},\"results\":"
	"{\"type\":\"array\",\"items\":{\"type\":\"object\"}}}}",
	.run = read_run,
};
