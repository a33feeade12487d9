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

#include "ws/cli.h"
#include "ws/error.h"
#include "ws/json.h"
#include "ws/path.h"
#include "ws/read.h"
#include "ws/resolve.h"

enum {
	O_START, O_END, O_MAX_BYTES, O_BASE64, O_NUMBER, O_SCAN_BYTES,
	O_SCAN_TIME, O_COUNT
};

static const struct ws_opt opts[O_COUNT] = {
	[O_START] = {"start-line", 0, WS_OPT_INT, "N",
		     "first line to read, 1-based (default 1)", 0},
	[O_END] = {"end-line", 0, WS_OPT_INT, "N",
		   "last line to read, inclusive (default: the last line; past "
		   "the end is clamped)", 0},
	[O_MAX_BYTES] = {"max-bytes", 0, WS_OPT_INT, "N",
			 "largest content returned, in bytes (default 1048576); "
			 "a larger file needs a line range", 0},
	[O_BASE64] = {"base64", 0, WS_OPT_FLAG, NULL,
		      "return the content base64-encoded (the only way to get "
		      "a binary file's bytes)", 0},
	[O_NUMBER] = {"number", 'n', WS_OPT_FLAG, NULL,
		      "number the output lines (plain output only)",
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
		       "(start_line and end_line, 1-based, inclusive). Returns "
		       "content, start_line, end_line, total_lines and size. A "
		       "file over max_bytes needs a line range; a binary file "
		       "gives metadata only unless base64 is true.",
	.usage = "wsread [OPTION]... PATH",
	.pos_name = "path",
	.pos_help = "file to read: relative to the workspace root, or a "
		    "virtual absolute path such as /src/main.c",
	.pos_kind = WS_POS_ONE,
	.opts = opts,
	.nopts = O_COUNT,
};

/* Options as given: line numbers and limits must be at least 1. */
static int
get_opts(const struct ws_cli *cli, struct ws_read_opts *o)
{
	static const int pos[] = {O_START, O_END, O_MAX_BYTES, O_SCAN_BYTES,
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
	o->max_bytes = WS_OPT(cli, O_MAX_BYTES)->i;
	o->base64 = WS_OPT(cli, O_BASE64)->b;
	o->scan_bytes = WS_OPT(cli, O_SCAN_BYTES)->i;
	if (WS_OPT(cli, O_SCAN_TIME)->i > LLONG_MAX / 1000)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--scan-time is too large");
	o->scan_ms = WS_OPT(cli, O_SCAN_TIME)->i * 1000;
	return ws_read_check_opts(o);
}

static void
print_json(const struct ws_cli *cli, const struct ws_res *res,
	   const struct ws_read *r, bool base64)
{
	struct ws_jw jw;

	ws_cli_json_begin(cli, &jw);
	ws_jw_obj(&jw);
	ws_jw_kname(&jw, "path", res->vpath);
	ws_cli_kreal(cli, &jw, "real_path", res->real);
	ws_jw_key(&jw, "content");
	if (r->data == NULL) {
		ws_jw_null(&jw);
		ws_jw_knull(&jw, "encoding");
	} else if (base64 || !ws_utf8_valid(r->data, r->len)) {
		/* Bytes that are not UTF-8 travel reversibly, as base64. */
		ws_jw_base64(&jw, r->data, r->len);
		ws_jw_kstr(&jw, "encoding", "base64");
	} else {
		ws_jw_strn(&jw, r->data, r->len);
		ws_jw_kstr(&jw, "encoding", "utf-8");
	}
	if (r->binary) {
		ws_jw_knull(&jw, "start_line");
		ws_jw_knull(&jw, "end_line");
	} else {
		ws_jw_kint(&jw, "start_line", r->start_line);
		ws_jw_kint(&jw, "end_line", r->end_line);
	}
	if (r->total_known)
		ws_jw_kint(&jw, "total_lines", r->total_lines);
	else
		ws_jw_knull(&jw, "total_lines");
	ws_jw_kbool(&jw, "total_lines_known", r->total_known);
	ws_jw_kint(&jw, "size", r->size);
	ws_jw_kbool(&jw, "binary", r->binary);
	ws_jw_kstr(&jw, "type", r->type);
	ws_jw_kbool(&jw, "truncated", r->truncated);
	ws_jw_obj_end(&jw);
	ws_cli_json_end(cli, &jw);
}

/* Lines numbered like cat -n: width 6, a tab, the line as it is. */
static void
print_numbered(const struct ws_read *r)
{
	const char *p = r->data, *e = r->data + r->len;
	long long ln = r->start_line;

	while (p < e) {
		const char *q = memchr(p, '\n', (size_t)(e - p));
		const char *seg = q ? q + 1 : e;

		printf("%6lld\t", ln++);
		fwrite(p, 1, (size_t)(seg - p), stdout);
		p = seg;
	}
}

static int
print_plain(const struct ws_cli *cli, const struct ws_res *res,
	    const struct ws_read *r, bool base64)
{
	const char *show = ws_cli_show_path(cli, res->vpath, res->real);

	if (r->data == NULL) {
		/* Binary bytes never go to a terminal (or a pipe) raw. */
		printf("%s: binary file (%s, %lld bytes); use --base64 to get "
		       "its content\n", show, r->type, r->size);
	} else if (base64) {
		char *b = ws_base64(r->data, r->len);

		if (b == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		fputs(b, stdout);
		fputc('\n', stdout);
		free(b);
	} else if (WS_OPT(cli, O_NUMBER)->b) {
		print_numbered(r);
	} else {
		fwrite(r->data, 1, r->len, stdout);
	}
	if (r->truncated)
		fprintf(stderr,
			"wsread: %s: output cut at the %lld-byte limit after "
			"line %lld; read a smaller range or raise --max-bytes\n",
			show, WS_OPT(cli, O_MAX_BYTES)->set ?
			WS_OPT(cli, O_MAX_BYTES)->i : WS_READ_MAX_DEFAULT,
			r->end_line);
	return 0;
}

int
main(int argc, char **argv)
{
	struct ws_cli cli;
	struct ws_ctx ws = {0};
	struct ws_res res = {.fd = -1, .dirfd = -1};
	struct ws_read r = {0};
	struct ws_read_opts o;
	int rc, status = 0;

	rc = ws_cli_parse(&cli, &tool, argc, argv);
	if (rc < 0)
		goto fail;
	if (ws_cli_print_info(&cli, stdout))
		goto out;
	/* Opening reads the configuration, whose limits are defaults here. */
	if ((rc = ws_cli_open(&cli, &ws)) < 0)
		goto fail;
	if ((rc = get_opts(&cli, &o)) < 0)
		goto fail;
	if ((rc = ws_read_file(&ws, cli.pos[0], &o, &res, &r)) < 0)
		goto fail;
	if (cli.json)
		print_json(&cli, &res, &r, o.base64);
	else if ((rc = print_plain(&cli, &res, &r, o.base64)) < 0)
		goto fail;
	goto out;
fail:
	status = ws_cli_fail(&cli, rc);
out:
	status = ws_cli_finish(&cli, status);
	ws_read_free(&r);
	ws_res_free(&res);
	ws_ctx_close(&ws);
	ws_cli_free(&cli);
	return status;
}
