/*
 * wsread - read a file in the workspace, or a line range of it.
 *
 * LLM tool name read_file.  Plain output is the file's bytes as they are
 * (like cat, with -n like cat -n); JSON gives the content with the line
 * numbers and sizes an agent needs to ask for the next range.  Binary files
 * give metadata only unless --base64, and never reach a terminal raw.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws/cli.h"
#include "ws/error.h"
#include "ws/json.h"
#include "ws/out.h"
#include "ws/path.h"
#include "ws/read.h"
#include "ws/resolve.h"

#include "cmds.h"

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

static const struct ws_tool tool = {
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
get_opts(const struct ws_cli *cli, struct ws_read_opts *o)
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
	o->stream = !cli->json && ws_out_is_stdout() && o->start_line == 0 && o->end_line == 0 &&
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
			    "is a binary file (%s, %lld bytes), not written as "
			    "text; use --base64 for its bytes or --json for its "
			    "metadata", r->mime_type ? r->mime_type :
			    "application/octet-stream", r->size);
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
	return 0;
}

/*
 * Read one file and print it: into jw in JSON (begun by the caller, or
 * here, for a lone file, once it has been read, so that a failure gets
 * the envelope of an error), else to stdout.
 */
static int
one_file(const struct ws_cli *cli, struct ws_ctx *ws,
	 const struct ws_read_opts *o, struct ws_jw *jw, bool lone,
	 const char *input)
{
	struct ws_res res = {.fd = -1, .dirfd = -1};
	struct ws_read r = {0};
	int rc;

	/* Plain output so far goes out before this file's streamed bytes. */
	if (o->stream)
		fflush(ws_out());
	rc = ws_read_file(ws, input, o, &res, &r);
	if (rc == 0 && cli->json) {
		if (lone)
			ws_cli_json_begin(cli, jw);
		rc = print_json(cli, jw, &res, &r, o->base64,
				WS_OPT(cli, O_LINE_NUMBERS)->b);
		if (lone)
			ws_cli_json_end(cli, jw);
	} else if (rc == 0) {
		rc = print_plain(cli, &res, &r, o);
	}
	if (rc < 0 && ws_error_last_path() == NULL) {
		char *msg = strdup(ws_error_last());

		ws_error_set(rc, input, "%s", msg ? msg : "");
		free(msg);
	}
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

int
ws_cmd_wsread(int argc, char **argv)
{
	struct ws_cli cli;
	struct ws_ctx ws = {0};
	struct ws_read_opts o;
	struct ws_jw jw;
	struct ws_multi multi = {0};
	int rc, first_rc = 0, status = 0;

	rc = ws_cli_parse(&cli, &tool, argc, argv);
	if (rc < 0)
		goto fail;
	if (ws_cli_print_info(&cli, ws_out()))
		goto out;
	/* Opening reads the configuration, whose limits are defaults here. */
	if ((rc = ws_cli_open(&cli, &ws)) < 0)
		goto fail;
	if ((rc = get_opts(&cli, &o)) < 0)
		goto fail;
	if (cli.npos == 1) {
		/* One file: its result is the output, its error the envelope's. */
		if ((rc = one_file(&cli, &ws, &o, &jw, true, cli.pos[0])) < 0)
			goto fail;
		goto out;
	}
	/* Several: each in output.results (JSON), or one after the other. */
	if (cli.json) {
		if ((rc = ws_cli_multi_begin(&multi, &jw)) < 0)
			goto fail;
		ws_jw_obj(&jw);
		ws_jw_key(&jw, "results");
		ws_jw_arr(&jw);
	}
	for (size_t i = 0; i < cli.npos; i++) {
		rc = one_file(&cli, &ws, &o, &jw, false, cli.pos[i]);
		if (rc == 0)
			continue;
		if (first_rc == 0)
			first_rc = rc;
		ws_cli_multi_fail(&multi, rc, ws_error_last_path() ?
				  ws_error_last_path() : cli.pos[i]);
		if (cli.json)
			json_failed(&jw, cli.pos[i], rc);
		else /* Like cat: report and go on with the next one. */
			ws_cli_warn(&cli, cli.pos[i], ws_error_last(), rc);
	}
	if (cli.json) {
		ws_jw_arr_end(&jw);
		ws_jw_obj_end(&jw);
		status = ws_cli_multi_end(&cli, &multi, false);
	} else if (first_rc < 0) {
		status = ws_error_exit_status(first_rc);
	}
	goto out;
fail:
	status = ws_cli_fail(&cli, rc);
out:
	status = ws_cli_finish(&cli, status);
	ws_ctx_close(&ws);
	ws_cli_free(&cli);
	return status;
}
