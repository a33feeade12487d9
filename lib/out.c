/*
 * out.c - printing a tool's result or error: the JSON envelope of
 * DESIGN.md section 4 (one object, or several results in one), the plain
 * error line on stderr, and paths in the --paths form.
 */
#include "ws/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/audit.h"
#include "ws/call.h"
#include "ws/error.h"

/*
 * The current call's (ws/call.h), not a thread's alone: wsgrep delivers
 * results from its search threads, which enter their call.  The MCP
 * server writes its own messages with write(2), never through this.
 */
FILE *
ws_out(void)
{
	FILE *f = ws_call_current()->out;

	return f != NULL ? f : stdout;
}

void
ws_out_set(FILE *f)
{
	ws_call_current()->out = f;
}

bool
ws_out_is_stdout(void)
{
	FILE *f = ws_call_current()->out;

	return f == NULL || f == stdout;
}

void
ws_out_putc(int c)
{
	fputc(c, ws_out());
}

void
ws_out_puts(const char *s)
{
	fputs(s, ws_out());
	fputc('\n', ws_out());
}

/*
 * Under --args the caller is a model that never saw a flag: "--end-line"
 * in a message becomes "end_line", the JSON key it did send.  Only the
 * tool's own options that --args offers are renamed; anything else (a
 * common option such as --approve, "--" in a diff) is left as it is.
 * Returns a malloc'd string (NULL if out of memory).
 */
char *
ws_cli_args_terms(const struct ws_cli *cli, const char *s)
{
	const struct ws_tool *t = cli->tool;
	size_t n = strlen(s);
	char *out = malloc(n + 1), *o = out;

	if (out == NULL)
		return NULL;
	while (*s) {
		size_t len = 0, i = 0;

		if (s[0] == '-' && s[1] == '-' && cli->from_args && t != NULL &&
		    (o == out || (o[-1] != '-' && (o[-1] < 'a' || o[-1] > 'z')))) {
			while ((s[2 + len] >= 'a' && s[2 + len] <= 'z') ||
			       (s[2 + len] >= '0' && s[2 + len] <= '9') ||
			       (s[2 + len] == '-' && len > 0))
				len++;
			for (i = 0; len > 0 && i < t->nopts; i++)
				if (!(t->opts[i].flags & WS_OPT_NOSCHEMA) &&
				    strlen(t->opts[i].name) == len &&
				    strncmp(t->opts[i].name, s + 2, len) == 0)
					break;
		}
		if (len > 0 && i < t->nopts) {
			for (size_t k = 0; k < len; k++)
				*o++ = s[2 + k] == '-' ? '_' : s[2 + k];
			s += 2 + len;
			continue;
		}
		*o++ = *s++;
	}
	*o = '\0';
	return out;
}

void
ws_cli_error_obj(const struct ws_cli *cli, struct ws_jw *jw, int code,
		 const char *msg, const char *path, const struct ws_err_extra *x)
{
	char *full = NULL, *m, *hint = NULL;

	if (path != NULL && asprintf(&full, "%s: %s", path, msg) < 0)
		full = NULL;
	m = ws_cli_args_terms(cli, full ? full : msg);
	if (x->hint != NULL)
		hint = ws_cli_args_terms(cli, x->hint);
	ws_jw_obj(jw);
	ws_jw_kstr(jw, "code", ws_error_name(code));
	ws_jw_kstr(jw, "message", m ? m : full ? full : msg);
	if (path != NULL)
		ws_jw_kname(jw, "path", path);
	if (x->hint != NULL)
		ws_jw_kstr(jw, "hint", hint ? hint : x->hint);
	if (x->policy != NULL)
		ws_jw_kstr(jw, "policy", x->policy);
	if (x->rule != NULL)
		ws_jw_kstr(jw, "rule", x->rule);
	if (x->operation != NULL)
		ws_jw_kstr(jw, "operation", x->operation);
	ws_jw_obj_end(jw);
	free(full);
	free(m);
	free(hint);
}

int
ws_cli_fail(const struct ws_cli *cli, int code)
{
	const char *path = ws_error_last_path();
	const char *msg = ws_error_last();
	struct ws_err_extra x = {
		.hint = ws_error_last_hint(),
		.policy = ws_error_last_policy(),
		.rule = ws_error_last_rule(),
		.operation = ws_error_last_operation(),
	};

	if (code == 0)
		code = ws_error_last_code();
	if (code == 0)
		code = WS_EIO_ERROR;
	ws_audit_outcome(cli->audit_log, code);
	ws_audit_refusal(cli->audit_log, x.operation, path, code);
	if (cli->json) {
		struct ws_jw jw;

		ws_jw_init(&jw, ws_out());
		ws_jw_obj(&jw);
		ws_jw_kbool(&jw, "success", false);
		ws_jw_kstr(&jw, "tool", cli->tool ? cli->tool->tool : "");
		ws_jw_knull(&jw, "output");
		ws_jw_key(&jw, "error");
		ws_cli_error_obj(cli, &jw, code, msg, path, &x);
		if (cli->allow_outside)
			ws_jw_kstr(&jw, "boundary", "off");
		ws_jw_obj_end(&jw);
		fputc('\n', ws_out());
		fflush(ws_out());
	} else {
		char *m = ws_cli_args_terms(cli, msg);

		ws_cli_warn(cli, path, m ? m : msg, code);
		free(m);
		if (x.hint != NULL) {
			fprintf(stderr, "%s: hint: ", cli->tool ? cli->tool->prog : "ws");
			ws_cli_put_text(stderr, x.hint, true);
			fputc('\n', stderr);
		}
	}
	return ws_error_exit_status(code);
}

void
ws_cli_kreal(const struct ws_cli *cli, struct ws_jw *jw, const char *key,
	     const char *real)
{
	if (cli->paths == WS_PATHS_VIRTUAL && cli->paths_set)
		return;
	ws_jw_kname(jw, key, real);
}

void
ws_cli_json_begin(const struct ws_cli *cli, struct ws_jw *jw)
{
	ws_jw_init(jw, ws_out());
	ws_jw_obj(jw);
	ws_jw_kbool(jw, "success", true);
	ws_jw_kstr(jw, "tool", cli->tool->tool);
	ws_jw_key(jw, "output");
}

void
ws_cli_json_end(const struct ws_cli *cli, struct ws_jw *jw)
{
	ws_jw_knull(jw, "error");
	if (cli->allow_outside)
		ws_jw_kstr(jw, "boundary", "off");
	ws_jw_obj_end(jw);
	fputc('\n', ws_out());
}

const char *
ws_cli_show_path(const struct ws_cli *cli, const char *vpath, const char *real)
{
	switch (cli->paths) {
	case WS_PATHS_REAL:
		return real;
	case WS_PATHS_RELATIVE:
		if (vpath == NULL)
			return real;
		return vpath[0] == '/' && vpath[1] ? vpath + 1 : vpath[1] ? vpath : ".";
	case WS_PATHS_VIRTUAL:
	default:
		return vpath ? vpath : real;
	}
}

/* fopencookie write: append to m->buf, doubling it; keep it terminated. */
static ssize_t
ws__mem_write(void *cookie, const char *data, size_t n)
{
	struct ws_multi *m = cookie;

	if (m->len + n + 1 > m->cap) {
		size_t cap = m->cap ? m->cap : 1 << 16;
		char *b;

		while (m->len + n + 1 > cap)
			cap *= 2;
		b = realloc(m->buf, cap);
		if (b == NULL)
			return -1;
		m->buf = b;
		m->cap = cap;
	}
	memcpy(m->buf + m->len, data, n);
	m->len += n;
	m->buf[m->len] = '\0';
	return (ssize_t)n;
}

int
ws_cli_multi_begin(struct ws_multi *m, struct ws_jw *jw)
{
	static const cookie_io_functions_t io = {.write = ws__mem_write};

	memset(m, 0, sizeof(*m));
	/*
	 * Not open_memstream(): its buffer grows a character at a time past
	 * each end, and a 50,000-entry listing paid 10 ms for it.  A stdio
	 * buffer of 64 KiB in front of a doubling one costs a memcpy.
	 */
	m->mem = fopencookie(m, "w", io);
	if (m->mem == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	setvbuf(m->mem, NULL, _IOFBF, 1 << 16);
	ws_jw_init(jw, m->mem);
	return 0;
}

void
ws_cli_multi_fail(struct ws_multi *m, int rc, const char *path)
{
	if (m->first_rc != 0)
		return;
	m->first_rc = rc;
	if (m->mem == NULL)
		return; /* plain mode: the tool reports each failure itself */
	m->msg = strdup(ws_error_last());
	m->path = path ? strdup(path) : NULL;
	{
		const char *h = ws_error_last_hint(), *p = ws_error_last_policy();
		const char *r = ws_error_last_rule(), *o = ws_error_last_operation();

		m->x.hint = h ? strdup(h) : NULL;
		m->x.policy = p ? strdup(p) : NULL;
		m->x.rule = r ? strdup(r) : NULL;
		m->x.operation = o ? strdup(o) : NULL;
	}
}

int
ws_cli_multi_end(const struct ws_cli *cli, struct ws_multi *m, bool null_output)
{
	struct ws_jw env;

	if (m->mem != NULL)
		fclose(m->mem);
	m->mem = NULL;
	ws_jw_init(&env, ws_out());
	ws_jw_obj(&env);
	ws_jw_kbool(&env, "success", m->first_rc == 0);
	ws_jw_kstr(&env, "tool", cli->tool->tool);
	ws_jw_key(&env, "output");
	if (null_output || m->buf == NULL || m->len == 0)
		ws_jw_null(&env);
	else
		ws_jw_raw(&env, m->buf);
	ws_jw_key(&env, "error");
	if (m->first_rc < 0)
		ws_cli_error_obj(cli, &env, m->first_rc, m->msg ? m->msg : "",
				 m->path, &m->x);
	else
		ws_jw_null(&env);
	if (cli->allow_outside)
		ws_jw_kstr(&env, "boundary", "off");
	ws_jw_obj_end(&env);
	fputc('\n', ws_out());
	free(m->buf);
	free(m->msg);
	free(m->path);
	free((char *)m->x.hint);
	free((char *)m->x.policy);
	free((char *)m->x.rule);
	free((char *)m->x.operation);
	memset(&m->x, 0, sizeof(m->x));
	m->buf = m->msg = m->path = NULL;
	return m->first_rc < 0 ? ws_error_exit_status(m->first_rc) : 0;
}

int
ws_cli_finish(const struct ws_cli *cli, int status)
{
	int failed = fflush(ws_out()) != 0 || ferror(ws_out());
	int e = errno;

	/*
	 * The call's audit line, once its outcome is known.  A log that
	 * cannot be written fails the call (the log was opened before the
	 * call acted, so this is a full disk or an I/O error).
	 */
	if (cli->audit_log != NULL && ws_audit_emit(cli->audit_log, status) < 0) {
		fprintf(stderr, "%s: %s (IO_ERROR)\n", cli->tool ? cli->tool->prog : "ws",
			ws_error_last());
		if (status == 0)
			status = ws_error_exit_status(WS_EIO_ERROR);
	}
	if (!failed)
		return status;
	fprintf(stderr, "%s: write to standard output: %s (IO_ERROR)\n",
		cli->tool ? cli->tool->prog : "ws", strerror(e ? e : EIO));
	return status != 0 ? status : ws_error_exit_status(WS_EIO_ERROR);
}

/* The one rule for names shown to a person: control bytes become "?". */
static int
ws__shown_byte(unsigned char c)
{
	return c < 0x20 || c == 0x7f ? '?' : c;
}

void
ws_cli_put_text(FILE *f, const char *s, bool escape)
{
	char *m;

	if (!escape) {
		fputs(s, f);
		return;
	}
	/* In one piece: stderr is unbuffered, and a byte at a time was a
	 * write(2) a byte (481 for one refusal with its hint). */
	if ((m = ws_cli_masked(s, true)) != NULL) {
		fputs(m, f);
		free(m);
		return;
	}
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		putc(ws__shown_byte(*c), f);
}

char *
ws_cli_masked(const char *s, bool escape)
{
	char *out = strdup(s);

	if (out != NULL && escape)
		for (unsigned char *c = (unsigned char *)out; *c; c++)
			*c = (unsigned char)ws__shown_byte(*c);
	return out;
}

void
ws_cli_warn(const struct ws_cli *cli, const char *path, const char *msg,
	    int code)
{
	/* One line, whatever the name holds: no forged lines, no escape
	 * sequences on the terminal. */
	fflush(ws_out());
	fprintf(stderr, "%s: ", cli->tool ? cli->tool->prog : "ws");
	if (path != NULL) {
		ws_cli_put_text(stderr, path, true);
		fputs(": ", stderr);
	}
	ws_cli_put_text(stderr, msg, true);
	fprintf(stderr, " (%s)\n", ws_error_name(code));
}
