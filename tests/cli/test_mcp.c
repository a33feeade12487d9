/*
 * test_mcp.c - "wstools mcp" over pipes, as an MCP client drives it: the
 * handshake, tools/list, every tool once with success and with an error,
 * the JSON-RPC errors (malformed lines, unknown methods, bad params,
 * oversized lines), cancellation and progress of long calls, approval
 * through elicitation, the workspace from roots, containment, and 10,000
 * calls with a flat descriptor count and memory.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include <sys/syscall.h>

#include "wstest.h"

extern char **environ;

static char *T, *W;

static void
setup(void)
{
	T = wst_tmpdir();
	W = wst_path(T, "ws");
	wst_write(T, "ws/src/a.c", "int a;\nint main(void) { return 0; }\n");
	wst_write(T, "ws/notes.md", "one\ntwo\nthree\n");
	wst_write(T, "outside/secret.txt", "secret\n");
}

static void
teardown(void)
{
	wst_rmrf(T);
	free(T);
	free(W);
}

/* A running server and what it has written that is not read yet. */
struct mcp {
	pid_t pid;
	int in, out;
	char *buf;
	size_t len, cap;
};

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Whether the next servers keep the native default, the virtual view,
 * for run_command where this machine has no mount namespace (a chroot
 * whose "/" is not a mount point, no user namespaces): a test of that
 * fallback sets it.  Otherwise there they run with WS_VIEW=real, and the
 * checks of what a command does hold in the real view (issue 24).
 */
static bool keep_virtual;
/* The next servers run commands in the real view (WS_VIEW=real). */
static bool force_real;
/* Set in the next servers' environment after WS_* is cleared: NAME,
 * VALUE pairs, NULL-terminated. */
static const char *server_env[8];

/* Start "wstools mcp ARGS..." (NULL-terminated), WS_* cleared. */
static void
mcp_startv(struct mcp *m, const char *const *args)
{
	int in[2], out[2];
	const char *av[32];
	size_t n = 0;
	bool view_real = force_real || (!keep_virtual && !wst_layer("", "mountns"));

	memset(m, 0, sizeof(*m));
	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(out), 0);
	av[n++] = wst_bin("wstools");
	av[n++] = "mcp";
	for (size_t i = 0; args != NULL && args[i] != NULL && n < 31; i++)
		av[n++] = args[i];
	av[n] = NULL;
	m->pid = fork();
	ck_assert_int_ge(m->pid, 0);
	if (m->pid == 0) {
		char **e;

		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
	again:
		for (e = environ; *e != NULL; e++) {
			if (strncmp(*e, "WS_", 3) == 0) {
				char name[128];
				size_t k = strcspn(*e, "=");

				snprintf(name, sizeof(name), "%.*s", (int)k, *e);
				unsetenv(name);
				goto again;
			}
		}
		if (view_real)
			setenv("WS_VIEW", "real", 1);
		for (size_t i = 0; server_env[i] != NULL && server_env[i + 1] != NULL;
		     i += 2)
			setenv(server_env[i], server_env[i + 1], 1);
		/*
		 * Exec'd as it is, even in the valgrind step: its
		 * run_command runs wsrun in this process, and valgrind does
		 * not know wsrun's sandbox calls (tests/valgrind/run.sh).
		 */
		execv(av[0], (char *const *)av);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	m->in = in[1];
	m->out = out[0];
	fcntl(m->in, F_SETFD, FD_CLOEXEC);
	fcntl(m->out, F_SETFD, FD_CLOEXEC);
}

#define mcp_start(m, ...) mcp_startv((m), (const char *const[]){__VA_ARGS__, NULL})

static void
mcp_sendn(struct mcp *m, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(m->in, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		ck_assert_int_gt(w, 0);
		s += w;
		n -= (size_t)w;
	}
}

static void mcp_send(struct mcp *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
mcp_send(struct mcp *m, const char *fmt, ...)
{
	char *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	mcp_sendn(m, s, (size_t)n);
	mcp_sendn(m, "\n", 1);
	free(s);
}

/* The next message, or NULL after timeout_ms (or at EOF). */
static cJSON *
mcp_recv(struct mcp *m, int timeout_ms)
{
	long long end = now_ms() + (long long)(timeout_ms * WST_SLOWDOWN);

	for (;;) {
		char *nl = m->len ? memchr(m->buf, '\n', m->len) : NULL;
		struct pollfd pf = {.fd = m->out, .events = POLLIN};
		long long left;
		ssize_t r;

		if (nl != NULL) {
			size_t ll = (size_t)(nl - m->buf);
			cJSON *j = cJSON_ParseWithLength(m->buf, ll);

			ck_assert_msg(j != NULL, "not JSON: %.*s", (int)ll, m->buf);
			memmove(m->buf, nl + 1, m->len - ll - 1);
			m->len -= ll + 1;
			return j;
		}
		left = end - now_ms();
		if (left <= 0 || poll(&pf, 1, (int)left) <= 0)
			return NULL;
		if (m->len + 65536 > m->cap) {
			m->cap = (m->len + 65536) * 2;
			m->buf = realloc(m->buf, m->cap);
			ck_assert_ptr_nonnull(m->buf);
		}
		r = read(m->out, m->buf + m->len, m->cap - m->len);
		if (r <= 0)
			return NULL;
		m->len += (size_t)r;
	}
}

/* Close stdin and return the exit status (-1 if it does not exit). */
static int
mcp_close(struct mcp *m)
{
	int st = 0;
	long long end = now_ms() + (long long)(10000 * WST_SLOWDOWN);

	close(m->in);
	while (waitpid(m->pid, &st, WNOHANG) == 0) {
		if (now_ms() > end) {
			kill(m->pid, SIGKILL);
			waitpid(m->pid, &st, 0);
			close(m->out);
			free(m->buf);
			return -1;
		}
		usleep(10000);
	}
	close(m->out);
	free(m->buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static bool
is_id(const cJSON *j, int id)
{
	const cJSON *v = cJSON_GetObjectItem(j, "id");

	return cJSON_IsNumber(v) && (int)v->valuedouble == id &&
	       cJSON_GetObjectItem(j, "method") == NULL;
}

static const char *
method_of(const cJSON *j)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(j, "method"));
}

/* Send a request and wait for its response (other messages dropped). */
static cJSON *
rpc(struct mcp *m, int id, const char *method, const char *params)
{
	if (params != NULL)
		mcp_send(m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\","
			 "\"params\":%s}", id, method, params);
	else
		mcp_send(m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\"}",
			 id, method);
	for (;;) {
		cJSON *j = mcp_recv(m, 20000);

		ck_assert_msg(j != NULL, "no response to %s", method);
		if (is_id(j, id))
			return j;
		cJSON_Delete(j);
	}
}

static void
handshake(struct mcp *m, const char *caps)
{
	char params[512];
	cJSON *r;

	snprintf(params, sizeof(params),
		 "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":%s,"
		 "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}",
		 caps ? caps : "{}");
	r = rpc(m, 1, "initialize", params);
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(r, "result"));
	cJSON_Delete(r);
	mcp_send(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

/* tools/call: the result object (the caller deletes the response). */
static cJSON *
call(struct mcp *m, int id, const char *tool, const char *args, cJSON **resp)
{
	char *params;
	cJSON *res;

	ck_assert_int_ge(asprintf(&params, "{\"name\":\"%s\",\"arguments\":%s}",
				  tool, args), 0);
	*resp = rpc(m, id, "tools/call", params);
	free(params);
	res = cJSON_GetObjectItem(*resp, "result");
	ck_assert_msg(res != NULL, "no result for %s", tool);
	return res;
}

static bool
is_error(const cJSON *res)
{
	return cJSON_IsTrue(cJSON_GetObjectItem(res, "isError"));
}

static const char *
text_of(const cJSON *res)
{
	const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "content"), 0);

	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(c, "type")), "text");
	return cJSON_GetStringValue(cJSON_GetObjectItem(c, "text"));
}

/* The error code of an isError result (its shape checked). */
static const char *
code_of(const cJSON *res)
{
	const cJSON *e = cJSON_GetObjectItem(
		cJSON_GetObjectItem(res, "structuredContent"), "error");
	const char *code = cJSON_GetStringValue(cJSON_GetObjectItem(e, "code"));

	ck_assert_msg(is_error(res), "not an error: %s", text_of(res));
	ck_assert_ptr_nonnull(code);
	ck_assert_ptr_nonnull(cJSON_GetStringValue(cJSON_GetObjectItem(e, "message")));
	/* The text says the code and the message too. */
	ck_assert_msg(strncmp(text_of(res), code, strlen(code)) == 0, "%s",
		      text_of(res));
	return code;
}

static const cJSON *
sc(const cJSON *res, const char *key)
{
	return cJSON_GetObjectItem(cJSON_GetObjectItem(res, "structuredContent"), key);
}

static int
rpc_error_code(const cJSON *resp)
{
	const cJSON *e = cJSON_GetObjectItem(resp, "error");

	ck_assert_msg(e != NULL, "not an error response");
	return (int)cJSON_GetNumberValue(cJSON_GetObjectItem(e, "code"));
}

START_TEST(handshake_versions)
{
	static const char *const cases[][2] = {
		{"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"1999-01-01", "2025-11-25"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mcp m;
		char params[256];
		cJSON *r, *res;

		mcp_start(&m, W);
		snprintf(params, sizeof(params),
			 "{\"protocolVersion\":\"%s\",\"capabilities\":{},"
			 "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}",
			 cases[i][0]);
		r = rpc(&m, 1, "initialize", params);
		res = cJSON_GetObjectItem(r, "result");
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(
					 res, "protocolVersion")), cases[i][1]);
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(
					 cJSON_GetObjectItem(res, "serverInfo"), "name")),
				 "wstools");
		ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(
			cJSON_GetObjectItem(cJSON_GetObjectItem(res, "capabilities"),
					    "tools"), "listChanged")));
		ck_assert_ptr_nonnull(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(
						     res, "instructions")),
					     "workspace root"));
		cJSON_Delete(r);
		/* ping answers an empty result; EOF ends the server with 0. */
		r = rpc(&m, 2, "ping", NULL);
		ck_assert(cJSON_IsObject(cJSON_GetObjectItem(r, "result")));
		cJSON_Delete(r);
		ck_assert_int_eq(mcp_close(&m), 0);
	}
}
END_TEST

/*
 * --compat mcp-filesystem with a DIR given through a symlink: a path
 * spelled through that symlink (as the client was told the directory)
 * and the resolved one both name the same root, as with the reference
 * server; the DIR was resolved before the server saw it, and the spelled
 * form was refused ("outside the allowed directories").  list_allowed_
 * directories names the directory as given.
 */
START_TEST(compat_symlinked_dir)
{
	struct mcp m;
	char *lnk = wst_path(T, "wslink"), *args;
	const char *const dirs[] = {lnk, W};
	cJSON *r, *res;

	wst_symlink(W, T, "wslink");
	mcp_start(&m, "--compat", "mcp-filesystem", lnk);
	handshake(&m, NULL);
	for (int k = 0; k < 2; k++) {
		ck_assert_int_ge(asprintf(&args, "{\"path\":\"%s/notes.md\"}", dirs[k]), 0);
		res = call(&m, 2 + k, "read_text_file", args, &r);
		free(args);
		ck_assert_msg(!is_error(res), "%s: %s", dirs[k], text_of(res));
		ck_assert_ptr_nonnull(strstr(text_of(res), "two"));
		cJSON_Delete(r);
	}
	/* A write through the spelled form lands in the workspace. */
	ck_assert_int_ge(asprintf(&args, "{\"path\":\"%s/via-link.txt\","
				  "\"content\":\"v\"}", lnk), 0);
	res = call(&m, 5, "write_file", args, &r);
	free(args);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	args = wst_path(W, "via-link.txt");
	ck_assert(wst_exists(args));
	free(args);
	ck_assert_int_eq(mcp_close(&m), 0);
	free(lnk);
}
END_TEST

/*
 * A client of each protocol version we know gets that version back and
 * works: tools/list and a call, natively and in --compat mcp-filesystem
 * (the TypeScript SDK 1.12 asks for 2025-03-26 and refuses any other
 * answer, so it could not connect when only the newer two were served).
 */
START_TEST(handshake_every_version)
{
	static const char *const versions[] = {"2025-11-25", "2025-06-18",
					       "2025-03-26", "2024-11-05"};

	for (size_t i = 0; i < 8; i++) {
		bool compat = i >= 4;
		const char *v = versions[i % 4];
		struct mcp m;
		char params[256], *args;
		cJSON *r, *res, *resp;

		if (compat)
			mcp_start(&m, "--compat", "mcp-filesystem", W);
		else
			mcp_start(&m, W);
		snprintf(params, sizeof(params),
			 "{\"protocolVersion\":\"%s\",\"capabilities\":{},"
			 "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}", v);
		r = rpc(&m, 1, "initialize", params);
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(
					 cJSON_GetObjectItem(r, "result"), "protocolVersion")), v);
		cJSON_Delete(r);
		mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
		r = rpc(&m, 2, "tools/list", NULL);
		ck_assert_int_ge(cJSON_GetArraySize(cJSON_GetObjectItem(
					 cJSON_GetObjectItem(r, "result"), "tools")), 9);
		cJSON_Delete(r);
		if (compat)
			ck_assert_int_ge(asprintf(&args, "{\"path\":\"%s/notes.md\"}", W), 0);
		else
			args = strdup("{\"path\":\"/notes.md\"}");
		res = call(&m, 3, compat ? "read_text_file" : "read_file", args, &resp);
		free(args);
		ck_assert_msg(!is_error(res), "%s: %s", v, text_of(res));
		ck_assert_ptr_nonnull(strstr(text_of(res), "two"));
		cJSON_Delete(resp);
		if (compat) {
			/* An unknown tool, as the reference answers it: a tool
			 * error, not a JSON-RPC error. */
			res = call(&m, 4, "no_such_tool", "{}", &resp);
			ck_assert(is_error(res));
			ck_assert_str_eq(text_of(res),
					 "MCP error -32602: Tool no_such_tool not found");
			cJSON_Delete(resp);
		}
		ck_assert_int_eq(mcp_close(&m), 0);
	}
}
END_TEST

START_TEST(tools_list_schemas)
{
	static const char *const names[] = {
		"list_directory", "read_file", "write_file", "edit_file",
		"create_directory", "move_path", "delete_path", "search_files",
		"run_command"};
	struct mcp m;
	struct wst_run sch;
	cJSON *r, *tools, *t;
	bool seen[9] = {false};

	mcp_start(&m, W);
	handshake(&m, NULL);
	r = rpc(&m, 2, "tools/list", "{}");
	tools = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "tools");
	ck_assert_int_eq(cJSON_GetArraySize(tools), 9);
	{
		/*
		 * Smaller than the reference server's tools/list (12,983
		 * bytes, @modelcontextprotocol/server-filesystem 2026.8.31,
		 * measured by the interop suite): it was 21 KB (issue 20).
		 */
		char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "result"));

		ck_assert_int_lt(strlen(text), 12983);
		free(text);
	}
	/* The same input schemas as "wstools schemas" prints. */
	wst_run(&sch, NULL, "wstools", "schemas", NULL);
	ck_assert_int_eq(sch.status, 0);
	cJSON_ArrayForEach(t, tools) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"));
		const cJSON *ann = cJSON_GetObjectItem(t, "annotations"), *d;
		size_t i;

		for (i = 0; i < 9; i++)
			if (strcmp(names[i], name) == 0)
				break;
		ck_assert_msg(i < 9, "unexpected tool %s", name);
		seen[i] = true;
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(
					 cJSON_GetObjectItem(t, "inputSchema"), "type")),
				 "object");
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(
					 cJSON_GetObjectItem(t, "outputSchema"), "type")),
				 "object");
		ck_assert(cJSON_IsObject(cJSON_GetObjectItem(
			cJSON_GetObjectItem(t, "outputSchema"), "properties")));
		ck_assert_ptr_nonnull(cJSON_GetStringValue(
			cJSON_GetObjectItem(t, "description")));
		/* Ftu18 17: the model, which sends calls side by side and
		 * chooses their timeouts, is told that commands queue. */
		if (strcmp(name, "run_command") == 0)
			ck_assert_msg(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(
					  t, "description")), "run one at a time") != NULL,
				      "%s", cJSON_GetStringValue(cJSON_GetObjectItem(
					  t, "description")));
		ck_assert(cJSON_IsBool(cJSON_GetObjectItem(ann, "readOnlyHint")));
		ck_assert(cJSON_IsBool(cJSON_GetObjectItem(ann, "destructiveHint")));
		ck_assert(cJSON_IsBool(cJSON_GetObjectItem(ann, "idempotentHint")));
		ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(ann, "openWorldHint")));
		ck_assert_int_eq(cJSON_IsTrue(cJSON_GetObjectItem(ann, "readOnlyHint")),
				 strcmp(name, "read_file") == 0 ||
					 strcmp(name, "list_directory") == 0 ||
					 strcmp(name, "search_files") == 0);
		cJSON_ArrayForEach(d, sch.json) {
			const cJSON *fn = cJSON_GetObjectItem(d, "function");

			static const char *const capped[] = {
				"timeout", "max_output", "max_results", "time_budget",
				"max_entries", "max_bytes"};
			cJSON *a, *b;

			if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(fn, "name")),
				   name) != 0)
				continue;
			/*
			 * Only the descriptions of the limits the server holds
			 * to a ceiling differ: they say the ceiling and that 0
			 * is the ceiling (issue 20: "0: all" was 50).
			 */
			a = cJSON_Duplicate(cJSON_GetObjectItem(fn, "parameters"), 1);
			b = cJSON_Duplicate(cJSON_GetObjectItem(t, "inputSchema"), 1);
			for (size_t k = 0; k < 6; k++) {
				cJSON *pa = cJSON_GetObjectItem(cJSON_GetObjectItem(
					a, "properties"), capped[k]);
				cJSON *pb = cJSON_GetObjectItem(cJSON_GetObjectItem(
					b, "properties"), capped[k]);

				if (pb != NULL)
					ck_assert_msg(strstr(cJSON_GetStringValue(
						cJSON_GetObjectItem(pb, "description")),
						"at most") != NULL, "%s.%s", name, capped[k]);
				cJSON_DeleteItemFromObject(pa, "description");
				cJSON_DeleteItemFromObject(pb, "description");
			}
			ck_assert_msg(cJSON_Compare(a, b, 1), "%s", name);
			cJSON_Delete(a);
			cJSON_Delete(b);
		}
	}
	for (size_t i = 0; i < 9; i++)
		ck_assert_msg(seen[i], "%s not listed", names[i]);
	wst_run_free(&sch);
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);

	/* --net: run_command reaches the open world, and says so. */
	mcp_start(&m, "--net", W);
	r = rpc(&m, 2, "tools/list", NULL);
	tools = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "tools");
	cJSON_ArrayForEach(t, tools) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"));

		ck_assert_int_eq(cJSON_IsTrue(cJSON_GetObjectItem(
					 cJSON_GetObjectItem(t, "annotations"),
					 "openWorldHint")),
				 strcmp(name, "run_command") == 0);
	}
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

START_TEST(every_tool_once)
{
	struct mcp m;
	cJSON *r, *res;
	char *p;
	int id = 10;

	mcp_start(&m, W);
	handshake(&m, NULL);

	res = call(&m, id++, "list_directory", "{\"path\":\"/\"}", &r);
	ck_assert(!is_error(res));
	ck_assert_str_eq(text_of(res), "notes.md\nsrc/\n");
	ck_assert_int_eq(cJSON_GetArraySize(sc(res, "entries")), 2);
	cJSON_Delete(r);
	res = call(&m, id++, "list_directory", "{\"path\":\"nope\"}", &r);
	ck_assert_str_eq(code_of(res), "NOT_FOUND");
	cJSON_Delete(r);

	res = call(&m, id++, "read_file", "{\"path\":\"notes.md\"}", &r);
	ck_assert(!is_error(res));
	ck_assert_str_eq(text_of(res), "one\ntwo\nthree\n");
	ck_assert_str_eq(cJSON_GetStringValue(sc(res, "content")), "one\ntwo\nthree\n");
	ck_assert_int_eq((int)cJSON_GetNumberValue(sc(res, "total_lines")), 3);
	cJSON_Delete(r);
	res = call(&m, id++, "read_file", "{\"path\":\"src\"}", &r);
	ck_assert_str_eq(code_of(res), "IS_A_DIRECTORY");
	cJSON_Delete(r);

	res = call(&m, id++, "write_file",
		   "{\"path\":\"new/b.txt\",\"content\":\"hello\\n\"}", &r);
	ck_assert(!is_error(res));
	ck_assert(cJSON_IsTrue(sc(res, "created")));
	cJSON_Delete(r);
	p = wst_path(W, "new/b.txt");
	{
		char *c = wst_slurp(p, NULL);

		ck_assert_str_eq(c, "hello\n");
		free(c);
	}
	res = call(&m, id++, "write_file", "{\"path\":\"c.txt\"}", &r);
	ck_assert_str_eq(code_of(res), "INVALID_ARGUMENT");
	cJSON_Delete(r);

	res = call(&m, id++, "edit_file",
		   "{\"path\":\"new/b.txt\",\"old\":\"hello\",\"new\":\"bye\"}", &r);
	ck_assert(!is_error(res));
	ck_assert_int_eq((int)cJSON_GetNumberValue(sc(res, "replacements")), 1);
	cJSON_Delete(r);
	res = call(&m, id++, "edit_file",
		   "{\"path\":\"new/b.txt\",\"old\":\"absent\",\"new\":\"x\"}", &r);
	ck_assert_str_eq(code_of(res), "EDIT_NO_MATCH");
	cJSON_Delete(r);

	res = call(&m, id++, "create_directory", "{\"path\":\"d1/d2\"}", &r);
	ck_assert(!is_error(res));
	cJSON_Delete(r);
	res = call(&m, id++, "create_directory", "{\"path\":\"notes.md/x\"}", &r);
	ck_assert(is_error(res));
	code_of(res);
	cJSON_Delete(r);

	res = call(&m, id++, "move_path",
		   "{\"source\":\"new/b.txt\",\"destination\":\"moved.txt\"}", &r);
	ck_assert(!is_error(res));
	cJSON_Delete(r);
	ck_assert(!wst_exists(p));
	free(p);
	res = call(&m, id++, "move_path",
		   "{\"source\":\"gone\",\"destination\":\"x\"}", &r);
	ck_assert_str_eq(code_of(res), "NOT_FOUND");
	cJSON_Delete(r);

	res = call(&m, id++, "delete_path", "{\"path\":\"moved.txt\"}", &r);
	ck_assert(!is_error(res));
	cJSON_Delete(r);
	p = wst_path(W, "moved.txt");
	ck_assert(!wst_exists(p));
	free(p);
	res = call(&m, id++, "delete_path", "{\"path\":\"moved.txt\"}", &r);
	ck_assert_str_eq(code_of(res), "NOT_FOUND");
	cJSON_Delete(r);

	res = call(&m, id++, "search_files", "{\"pattern\":\"t[wh]\"}", &r);
	ck_assert(!is_error(res));
	ck_assert_str_eq(text_of(res), "/notes.md:2:two\n/notes.md:3:three\n");
	cJSON_Delete(r);
	res = call(&m, id++, "search_files", "{\"pattern\":\"(\"}", &r);
	ck_assert_str_eq(code_of(res), "INVALID_PATTERN");
	cJSON_Delete(r);

	res = call(&m, id++, "run_command", "{\"command\":\"echo hi; echo err >&2\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_str_eq(cJSON_GetStringValue(sc(res, "stdout")), "hi\n");
	ck_assert_ptr_nonnull(strstr(text_of(res), "--- stdout\nhi\n--- stderr\nerr\n"));
	cJSON_Delete(r);
	/*
	 * One byte that is not UTF-8 (ls / beside a file name in Latin-1)
	 * made the whole stream base64 in the text, which a model cannot
	 * read: the text shows it as read_file does (U+FFFD for the byte),
	 * structuredContent keeps the bytes.
	 */
	res = call(&m, id++, "run_command",
		    "{\"command\":\"printf 'caf\\\\351 ok\\\\n'; printf 'e\\\\377' >&2\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_str_eq(cJSON_GetStringValue(sc(res, "stdout_encoding")), "base64");
	ck_assert_str_eq(cJSON_GetStringValue(sc(res, "stdout")), "Y2Fm6SBvawo=");
	ck_assert_msg(strstr(text_of(res), "--- stdout (not UTF-8: 1 byte shown as "
			     "\xef\xbf\xbd; structuredContent has the bytes in "
			     "base64)\ncaf\xef\xbf\xbd ok\n--- stderr (not UTF-8: 1 "
			     "byte shown as \xef\xbf\xbd; structuredContent has the "
			     "bytes in base64)\ne\xef\xbf\xbd\n") != NULL,
		      "%s", text_of(res));
	cJSON_Delete(r);
	/* Bytes with a NUL are binary: base64 in the text too. */
	res = call(&m, id++, "run_command",
		    "{\"command\":\"printf 'a\\\\000\\\\377'\"}", &r);
	ck_assert_msg(strstr(text_of(res), "--- stdout (base64)\nYQD/\n") != NULL,
		      "%s", text_of(res));
	cJSON_Delete(r);
	res = call(&m, id++, "run_command", "{\"command\":[]}", &r);
	ck_assert_str_eq(code_of(res), "INVALID_ARGUMENT");
	cJSON_Delete(r);

	/* Unknown keys are the CLI's INVALID_ARGUMENT, as a tool error. */
	res = call(&m, id++, "read_file", "{\"path\":\"notes.md\",\"approve\":true}", &r);
	ck_assert_str_eq(code_of(res), "INVALID_ARGUMENT");
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * Seed 001 through the server (issue 19): the native mode's run_command
 * runs in the virtual view, so it sees what read_file and list_directory
 * see, by the same absolute paths, and what it writes there is what
 * read_file reads.
 */
START_TEST(run_command_one_view)
{
	struct mcp m;
	cJSON *r, *res;
	const cJSON *view;
	int id = 10;

	/* No mount namespace here: the virtual view is refused, saying
	 * why, never the real one in silence. */
	if (!wst_layer("", "mountns")) {
		keep_virtual = true;
		mcp_start(&m, W);
		handshake(&m, NULL);
		res = call(&m, id++, "run_command", "{\"command\":\"pwd\"}", &r);
		ck_assert(is_error(res));
		ck_assert_msg(strstr(text_of(res), "SANDBOX_UNAVAILABLE") != NULL,
			      "%s", text_of(res));
		cJSON_Delete(r);
		ck_assert_int_eq(mcp_close(&m), 0);
		return;
	}
	mcp_start(&m, W);
	handshake(&m, NULL);
	res = call(&m, id++, "run_command", "{\"command\":\"cat /notes.md; "
		   "ls /src; pwd; echo run > /made.txt; echo deep > /src/b.txt\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_str_eq(cJSON_GetStringValue(sc(res, "stdout")),
			 "one\ntwo\nthree\na.c\n/\n");
	view = cJSON_GetObjectItem(sc(res, "isolation"), "view");
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(view, "mode")),
			 "virtual");
	cJSON_Delete(r);
	res = call(&m, id++, "read_file", "{\"path\":\"/made.txt\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_str_eq(text_of(res), "run\n");
	cJSON_Delete(r);
	res = call(&m, id++, "read_file", "{\"path\":\"/src/b.txt\"}", &r);
	ck_assert_str_eq(text_of(res), "deep\n");
	cJSON_Delete(r);
	res = call(&m, id++, "write_file", "{\"path\":\"/api.txt\","
		   "\"content\":\"api data\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	res = call(&m, id++, "run_command", "{\"command\":[\"cat\",\"/api.txt\"]}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_str_eq(cJSON_GetStringValue(sc(res, "stdout")), "api data");
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * A workspace entry the system's directory of the same name hides in the
 * virtual view (a project's lib/) is said in the text the model reads,
 * not only in structuredContent: git in the command sees its files
 * deleted (ftu7: an agent committed the deletion).
 */
START_TEST(run_command_shadowed_said)
{
	struct mcp m;
	cJSON *r, *res;

	if (!wst_layer("", "mountns"))
		return;
	wst_mkdir(W, "lib");
	wst_write(W, "lib/x.c", "x\n");
	mcp_start(&m, W);
	handshake(&m, NULL);
	res = call(&m, 10, "run_command", "{\"command\":\"true\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_msg(strstr(text_of(res), "note: hidden in this command") != NULL &&
		      strstr(text_of(res), " /lib") != NULL, "%s", text_of(res));
	cJSON_Delete(r);
	res = call(&m, 11, "run_command", "{\"command\":\"mkfifo /topfifo\"}", &r);
	ck_assert_msg(strstr(text_of(res), "note: /topfifo did not reach the "
				    "workspace") != NULL, "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

START_TEST(jsonrpc_errors)
{
	struct mcp m;
	cJSON *r;
	char *big;
	size_t n = 100000;

	mcp_start(&m, "--max-message", "4096", W);
	handshake(&m, NULL);
	/* A malformed line: -32700 with a null id, and the server goes on. */
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":");
	r = mcp_recv(&m, 5000);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(rpc_error_code(r), -32700);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "id")));
	cJSON_Delete(r);
	r = rpc(&m, 6, "ping", NULL);
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(r, "result"));
	cJSON_Delete(r);
	/* Unknown method. */
	r = rpc(&m, 7, "resources/list", NULL);
	ck_assert_int_eq(rpc_error_code(r), -32601);
	cJSON_Delete(r);
	/* Bad params: no name, arguments not an object, unknown tool,
	 * params not an object, initialize without a version. */
	r = rpc(&m, 8, "tools/call", "{}");
	ck_assert_int_eq(rpc_error_code(r), -32602);
	cJSON_Delete(r);
	r = rpc(&m, 9, "tools/call", "{\"name\":\"read_file\",\"arguments\":[1]}");
	ck_assert_int_eq(rpc_error_code(r), -32602);
	cJSON_Delete(r);
	r = rpc(&m, 10, "tools/call", "{\"name\":\"rm_rf\",\"arguments\":{}}");
	ck_assert_int_eq(rpc_error_code(r), -32602);
	cJSON_Delete(r);
	r = rpc(&m, 11, "tools/list", "[1]");
	ck_assert_int_eq(rpc_error_code(r), -32602);
	cJSON_Delete(r);
	r = rpc(&m, 12, "initialize", "{}");
	ck_assert_int_eq(rpc_error_code(r), -32602);
	cJSON_Delete(r);
	/* A notification gets no response: the next message is the ping's. */
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}");
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":999}}");
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"ping\"}");
	r = mcp_recv(&m, 5000);
	ck_assert(is_id(r, 13));
	cJSON_Delete(r);
	/* A line over --max-message: refused without being held, then on. */
	big = malloc(n + 64);
	memcpy(big, "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"ping\",\"x\":\"", 46);
	memset(big + 46, 'a', n);
	memcpy(big + 46 + n, "\"}", 3);
	mcp_send(&m, "%s", big);
	free(big);
	r = mcp_recv(&m, 5000);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(rpc_error_code(r), -32600);
	ck_assert_ptr_nonnull(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(
					     cJSON_GetObjectItem(r, "error"), "message")),
				     "max-message"));
	cJSON_Delete(r);
	r = rpc(&m, 15, "ping", NULL);
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(r, "result"));
	cJSON_Delete(r);
	/* A last line without its newline still counts; then EOF: 0. */
	{
		static const char last[] = "{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"ping\"}";

		mcp_sendn(&m, last, sizeof(last) - 1);
	}
	close(m.in);
	m.in = open("/dev/null", O_RDONLY);
	r = mcp_recv(&m, 5000);
	ck_assert(is_id(r, 16));
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

START_TEST(usage_and_workspace_errors)
{
	struct wst_run r;
	struct mcp m;
	cJSON *resp, *res;

	wst_run(&r, NULL, "wstools", "mcp", "--compat", "mcp-filesys", W, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "unknown mode"));
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "mcp", "/nonexistent/dir", NULL);
	ck_assert_int_eq(r.status, 2);
	/* FTU9 11: in the house's words, not strerror's capitalised ones. */
	ck_assert_msg(strstr(r.err, "wstools mcp: /nonexistent/dir: no such "
			     "directory (WORKSPACE_NOT_FOUND)") != NULL, "%s",
		      r.err);
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "mcp", "/etc/passwd/x", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "/etc/passwd/x: not a directory "
			     "(WORKSPACE_NOT_FOUND)") != NULL, "%s", r.err);
	wst_run_free(&r);
	/* --workspace and the mounts are checked at start too. */
	wst_run(&r, NULL, "wstools", "mcp", "--workspace", "/nonexistent/dir", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "WORKSPACE_NOT_FOUND"));
	wst_run_free(&r);
	wst_run(&r, NULL, "wstools", "mcp", "--mount", "nonsense", W, NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "INVALID_ARGUMENT"));
	wst_run_free(&r);
	{
		const char *env[] = {"WS_MOUNTS=/.x=/nonexistent/dir", NULL};
		const char *argv[] = {"mcp", W, NULL};

		wst_runv(&r, NULL, env, "wstools", argv);
		ck_assert_int_eq(r.status, 2);
		ck_assert_ptr_nonnull(strstr(r.err, "WS_MOUNTS"));
		wst_run_free(&r);
	}
	/*
	 * ftu12 19: an audit log or state directory that every call would
	 * refuse stops the server at start, on stderr, not the model's
	 * calls one by one. (A relative name is the current directory's
	 * since ftu13 11: cli-audit relative_names_are_the_current_directorys.)
	 */
	{
		char *in = wst_path(W, "audit.log"), *st = wst_path(W, "st");
		const char *const bad[][3] = {
			{"--audit", in, "inside the workspace"},
			{"--state-dir", st, "inside the workspace"},
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			wst_run(&r, NULL, "wstools", "mcp", bad[i][0], bad[i][1], W, NULL);
			ck_assert_msg(r.status == 2 && strstr(r.err, "INVALID_ARGUMENT") &&
				      strstr(r.err, bad[i][2]), "%s %s: %d %s",
				      bad[i][0], bad[i][1], r.status, r.err);
			wst_run_free(&r);
		}
		ck_assert_int_lt(access(in, F_OK), 0);
		free(in);
		free(st);
	}
	/*
	 * ftu18 05: a policy that does not load (a mistyped name, a file
	 * that does not parse), by --policy or WS_POLICY, stops the server
	 * at start too, rather than failing every call after initialize.
	 */
	{
		char *badpol = wst_path(T, "bad-policy.json");
		const char *env[] = {"WS_POLICY=nosuch-policy", NULL};
		const char *argv[] = {"mcp", W, NULL};

		wst_write(T, "bad-policy.json", "{\"version\": 1, \"file_rulez\": []}");
		wst_run(&r, NULL, "wstools", "mcp", "--policy", "nosuch-policy", W, NULL);
		ck_assert_msg(r.status == 2 && strstr(r.err, "no such policy") &&
			      strstr(r.err, "POLICY_ERROR"), "%d %s", r.status, r.err);
		wst_run_free(&r);
		wst_run(&r, NULL, "wstools", "mcp", "--policy", badpol, W, NULL);
		ck_assert_msg(r.status == 2 && strstr(r.err, "file_rulez") &&
			      strstr(r.err, "POLICY_ERROR"), "%d %s", r.status, r.err);
		wst_run_free(&r);
		wst_runv(&r, NULL, env, "wstools", argv);
		ck_assert_msg(r.status == 2 && strstr(r.err, "nosuch-policy"), "%d %s",
			      r.status, r.err);
		wst_run_free(&r);
		free(badpol);
	}
	wst_run(&r, NULL, "wstools", "mcp", "--help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "--max-message"));
	wst_run_free(&r);
	/* No workspace and no roots: each call says so, as a tool error. */
	mcp_start(&m, "--no-detect-root");
	handshake(&m, NULL);
	res = call(&m, 2, "read_file", "{\"path\":\"a\"}", &resp);
	ck_assert_str_eq(code_of(res), "WORKSPACE_NOT_FOUND");
	cJSON_Delete(resp);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * "~" and "~/x" in DIR arguments and --workspace are the home directory
 * (a client's JSON config has no shell to expand them); --help says the
 * workspace default the server has (never the current directory).
 */
START_TEST(home_in_dirs)
{
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	struct wst_run r;
	struct mcp m;
	cJSON *resp, *res;

	setenv("HOME", T, 1);
	for (int k = 0; k < 2; k++) {
		if (k == 0)
			mcp_start(&m, "~/ws", "~");
		else
			mcp_start(&m, "--workspace=~/ws");
		handshake(&m, NULL);
		res = call(&m, 2, "read_file", "{\"path\":\"/notes.md\"}", &resp);
		ck_assert_msg(!is_error(res), "%s", text_of(res));
		cJSON_Delete(resp);
		if (k == 0) {
			/* "~" is T, mounted by its base name. */
			char *vp = NULL, *args = NULL;

			ck_assert_int_ge(asprintf(&vp, "/.%s/outside/secret.txt",
						  strrchr(T, '/') + 1), 0);
			ck_assert_int_ge(asprintf(&args, "{\"path\":\"%s\"}", vp), 0);
			res = call(&m, 3, "read_file", args, &resp);
			ck_assert_msg(!is_error(res), "%s", text_of(res));
			cJSON_Delete(resp);
			free(vp);
			free(args);
		}
		ck_assert_int_eq(mcp_close(&m), 0);
	}
	if (home != NULL)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	free(home);
	wst_run(&r, NULL, "wstools", "mcp", "--help", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_null(strstr(r.out, "default: current directory"));
	ck_assert_ptr_nonnull(strstr(r.out, "never the current directory)"));
	wst_run_free(&r);
}
END_TEST

START_TEST(containment)
{
	struct mcp m;
	cJSON *r, *res;
	char *out = wst_path(T, "outside"), *args;

	wst_symlink(out, W, "link");
	wst_symlink("../outside/secret.txt", W, "rel");
	mcp_start(&m, W);
	handshake(&m, NULL);
	res = call(&m, 2, "read_file", "{\"path\":\"../outside/secret.txt\"}", &r);
	ck_assert_str_eq(code_of(res), "PATH_OUTSIDE_WORKSPACE");
	cJSON_Delete(r);
	ck_assert_int_ge(asprintf(&args, "{\"path\":\"%s/secret.txt\"}", out), 0);
	res = call(&m, 3, "read_file", args, &r);
	/* A host path outside is the root-relative shorthand: not there. */
	ck_assert_str_eq(code_of(res), "NOT_FOUND");
	cJSON_Delete(r);
	free(args);
	res = call(&m, 4, "read_file", "{\"path\":\"link/secret.txt\"}", &r);
	ck_assert_str_eq(code_of(res), "SYMLINK_OUTSIDE_WORKSPACE");
	cJSON_Delete(r);
	res = call(&m, 5, "read_file", "{\"path\":\"rel\"}", &r);
	ck_assert_str_eq(code_of(res), "SYMLINK_OUTSIDE_WORKSPACE");
	cJSON_Delete(r);
	res = call(&m, 6, "write_file", "{\"path\":\"link/new\",\"content\":\"x\"}", &r);
	ck_assert_str_eq(code_of(res), "SYMLINK_OUTSIDE_WORKSPACE");
	cJSON_Delete(r);
	res = call(&m, 7, "list_directory", "{\"path\":\"link\"}", &r);
	ck_assert_str_eq(code_of(res), "SYMLINK_OUTSIDE_WORKSPACE");
	cJSON_Delete(r);
	res = call(&m, 8, "search_files", "{\"pattern\":\"secret\",\"paths\":[\"../outside\"]}",
		   &r);
	ck_assert_str_eq(code_of(res), "PATH_OUTSIDE_WORKSPACE");
	cJSON_Delete(r);
	/*
	 * Next to a path inside, the outside one is refused all the same and
	 * the other is searched: a failed call (as wsgrep's exit status and
	 * JSON say) that still carries the results, names what was not
	 * searched, and ends with the first error.
	 */
	res = call(&m, 9, "search_files",
		   "{\"pattern\":\"secret|main\",\"paths\":[\"../outside\",\"link\",\"src\"]}",
		   &r);
	ck_assert_msg(is_error(res), "%s", text_of(res));
	ck_assert_str_eq(code_of(res), "PATH_OUTSIDE_WORKSPACE");
	ck_assert_ptr_null(strstr(text_of(res), "secret\n"));
	ck_assert_ptr_nonnull(strstr(text_of(res), "/src/a.c:2:int main"));
	ck_assert_ptr_nonnull(strstr(text_of(res), "[not searched: ../outside: "));
	ck_assert_ptr_nonnull(strstr(text_of(res), " (SYMLINK_OUTSIDE_WORKSPACE)]\n"));
	{
		const cJSON *oe = cJSON_GetObjectItem(sc(res, "summary"), "operand_errors");

		ck_assert_int_eq(cJSON_GetArraySize(oe), 2);
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(
			cJSON_GetArrayItem(oe, 0), "code")), "PATH_OUTSIDE_WORKSPACE");
		ck_assert_int_eq(cJSON_GetArraySize(sc(res, "matches")), 1);
	}
	cJSON_Delete(r);
	/* read_file of several paths, one missing: the other is read all
	 * the same, and the model gets it with the error. */
	res = call(&m, 10, "read_file", "{\"paths\":[\"notes.md\",\"missing.txt\"]}", &r);
	ck_assert_str_eq(code_of(res), "NOT_FOUND");
	ck_assert_msg(strstr(text_of(res), "==> /notes.md <==\none\ntwo\nthree\n") != NULL,
		      "%s", text_of(res));
	ck_assert_msg(strstr(text_of(res), "==> missing.txt <==\n[NOT_FOUND: ") != NULL,
		      "%s", text_of(res));
	ck_assert_int_eq(cJSON_GetArraySize(sc(res, "results")), 2);
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
	{
		char *p = wst_path(out, "new");

		ck_assert(!wst_exists(p));
		free(p);
	}
	free(out);
}
END_TEST

START_TEST(dirs_and_common_options)
{
	struct mcp m;
	cJSON *r, *res;
	char *docs = wst_path(T, "docs");

	wst_write(T, "docs/guide.md", "guide\n");
	/* A second DIR is mounted at /.NAME; --strict reaches every call. */
	mcp_start(&m, "--strict", W, docs);
	handshake(&m, NULL);
	res = call(&m, 2, "read_file", "{\"path\":\".docs/guide.md\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_str_eq(text_of(res), "guide\n");
	cJSON_Delete(r);
	res = call(&m, 3, "list_directory", "{\"path\":\"/\",\"all\":true}", &r);
	ck_assert_ptr_nonnull(strstr(text_of(res), ".docs/\n"));
	cJSON_Delete(r);
	res = call(&m, 4, "read_file", "{\"path\":\"src/../notes.md\"}", &r);
	ck_assert_str_eq(code_of(res), "INVALID_PATH");
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
	/* --workspace pins the workspace; every DIR is then a mount. */
	mcp_start(&m, "--workspace", W, "--paths", "virtual", docs);
	handshake(&m, NULL);
	res = call(&m, 2, "read_file", "{\"path\":\"/.docs/guide.md\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	/* --paths virtual: the host layout stays out of the results. */
	ck_assert_ptr_null(sc(res, "real_path"));
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
	free(docs);
}
END_TEST

/* The message of the last progress notification wait_progress() took. */
static char progress_message[256];
/* Its "total" (0: none). */
static long long progress_total;

/* Wait for a progress notification with token tok; returns its value. */
static long long
wait_progress(struct mcp *m, const char *tok, int timeout_ms)
{
	for (;;) {
		cJSON *j = mcp_recv(m, timeout_ms);
		const char *meth;
		long long v;

		ck_assert_msg(j != NULL, "no progress notification");
		meth = method_of(j);
		if (meth != NULL && strcmp(meth, "notifications/progress") == 0) {
			const cJSON *p = cJSON_GetObjectItem(j, "params");

			ck_assert_str_eq(cJSON_GetStringValue(
						 cJSON_GetObjectItem(p, "progressToken")), tok);
			v = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(p, "progress"));
			snprintf(progress_message, sizeof(progress_message), "%s",
				 cJSON_GetStringValue(cJSON_GetObjectItem(p, "message")) ?: "");
			progress_total = (long long)cJSON_GetNumberValue(
				cJSON_GetObjectItem(p, "total"));
			if (!cJSON_IsNumber(cJSON_GetObjectItem(p, "total")))
				progress_total = 0;
			cJSON_Delete(j);
			return v;
		}
		ck_assert_msg(!cJSON_GetObjectItem(j, "id"), "unexpected response");
		cJSON_Delete(j);
	}
}

/* a and b are in one PID namespace. */
static bool
same_pidns(pid_t a, pid_t b)
{
	char pa[64], pb[64], la[64] = "", lb[64] = "";

	snprintf(pa, sizeof(pa), "/proc/%d/ns/pid", (int)a);
	snprintf(pb, sizeof(pb), "/proc/%d/ns/pid", (int)b);
	return readlink(pa, la, sizeof(la) - 1) > 0 &&
	       readlink(pb, lb, sizeof(lb) - 1) > 0 && strcmp(la, lb) == 0;
}

/*
 * run_command's namespace init runs in the server's memory (kcmp says
 * so), as wsrun's does: wstools detaches its environment at start, so
 * that /proc/<init>/environ, which only root can read from outside,
 * shows none of the server's environment.  (A sanitizer build forks
 * init, which wipes its copy.)
 */
START_TEST(run_command_init_environ_hidden)
{
	struct mcp m;
	char path[384], buf[65536];
	pid_t init = 0;
	ssize_t n = 0;
	int fd;

	if (geteuid() != 0 || WST_SLOWDOWN_BUILD != 1) {
		fprintf(stderr, "run_command_init_environ_hidden: not checked (%s)\n",
			geteuid() != 0 ? "not root" : "a sanitizer build forks init");
		return;
	}
	setenv("WST_MCP_SECRET", "mcp-env-secret-3141", 1);
	mcp_start(&m, W);
	unsetenv("WST_MCP_SECRET");
	handshake(&m, NULL);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":\"run-env\",\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"run_command\",\"arguments\":{\"command\":"
		 "[\"sleep\",\"30\"]},\"_meta\":{\"progressToken\":\"env\"}}}");
	ck_assert_int_eq(wait_progress(&m, "env", 5000), 0);
	/* init is the child of the worker thread that runs the call. */
	for (int i = 0; i < 250 && init <= 0; i++) {
		DIR *d;
		struct dirent *e;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)m.pid);
		d = opendir(path);
		while (d != NULL && init <= 0 && (e = readdir(d)) != NULL) {
			FILE *f;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%s/children",
				 (int)m.pid, e->d_name);
			if ((f = fopen(path, "r")) == NULL)
				continue;
			/* Not the server's guardian (lib/run.c), which stays in
			 * the server's PID namespace. */
			while (init <= 0 && fscanf(f, "%d", &init) == 1)
				if (same_pidns(m.pid, init))
					init = 0;
			fclose(f);
		}
		if (d != NULL)
			closedir(d);
		if (init <= 0)
			usleep(20000);
	}
	ck_assert_int_gt(init, 0);
	/* In the server's memory, not a copy of it. */
	ck_assert_msg(syscall(SYS_kcmp, m.pid, init, KCMP_VM, 0, 0) == 0,
		      "init (%d) has a memory of its own", (int)init);
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)init);
	fd = open(path, O_RDONLY);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	for (ssize_t k = 0; k < n; k++)
		if (buf[k] == '\0')
			buf[k] = '\n';
	ck_assert_msg(strstr(buf, "mcp-env-secret-3141") == NULL,
		      "init shows the server's environment: %.300s", buf);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":\"run-env\",\"reason\":\"test\"}}");
	cJSON_Delete(rpc(&m, 9, "ping", NULL));
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * FTU10 2: a run_command queued behind another in the same workspace
 * says so while it waits (progress "waiting for another command", a
 * message that reads on its own, ftu17 03),
 * so that a client resetting its timeout on progress does not give up
 * on it, and its result says how long it waited (waited_ms, and the
 * text), which its duration_ms leaves out.
 */
START_TEST(run_command_queued_progress)
{
	struct mcp m;
	bool waiting = false;
	cJSON *r = NULL;

	mcp_start(&m, W);
	handshake(&m, NULL);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":\"first\",\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"run_command\",\"arguments\":{\"command\":"
		 "[\"sleep\",\"30\"]},\"_meta\":{\"progressToken\":\"a\"}}}");
	/* Running (it holds the workspace's command lock) once it counts
	 * elapsed time. */
	while (wait_progress(&m, "a", 10000) <= 0)
		;
	ck_assert_msg(strncmp(progress_message, "the command is running (", 24) == 0,
		      "%s", progress_message);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":\"second\",\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"run_command\",\"arguments\":{\"command\":"
		 "[\"echo\",\"second\"]},\"_meta\":{\"progressToken\":\"b\"}}}");
	for (long long until = now_ms() + 10000; !waiting;) {
		cJSON *j = mcp_recv(&m, 10000);
		const cJSON *p;
		const char *meth, *tok;

		ck_assert_msg(j != NULL && now_ms() < until,
			      "no progress saying the call waits");
		meth = method_of(j);
		p = cJSON_GetObjectItem(j, "params");
		tok = cJSON_GetStringValue(cJSON_GetObjectItem(p, "progressToken"));
		if (meth != NULL && strcmp(meth, "notifications/progress") == 0 &&
		    tok != NULL && strcmp(tok, "b") == 0) {
			const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(p, "message"));

			waiting = msg != NULL &&
				  strncmp(msg, "waiting for another command in this "
					  "workspace to end (", 54) == 0;
		}
		ck_assert_msg(!cJSON_GetObjectItem(j, "id"), "unexpected response");
		cJSON_Delete(j);
	}
	/*
	 * Ftu18 17: a third whose timeout passes while it waits its turn
	 * is refused, with a hint saying what lets it run.
	 */
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":\"third\",\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"run_command\",\"arguments\":{\"command\":"
		 "[\"true\"],\"timeout\":1}}}");
	for (;;) {
		const char *id;

		r = mcp_recv(&m, 20000);
		ck_assert_ptr_nonnull(r);
		id = cJSON_GetStringValue(cJSON_GetObjectItem(r, "id"));
		ck_assert_msg(id == NULL || strcmp(id, "third") == 0,
			      "unexpected response %s", id);
		if (id != NULL)
			break;
		cJSON_Delete(r);
	}
	{
		const cJSON *res = cJSON_GetObjectItem(r, "result");

		ck_assert_str_eq(code_of(res), "LIMIT_EXCEEDED");
		ck_assert_msg(strstr(text_of(res), "hint: wait for the other command's "
				     "result") != NULL &&
			      strstr(text_of(res), "a timeout that covers both") != NULL,
			      "%s", text_of(res));
	}
	cJSON_Delete(r);
	/* The first ends; the second runs and says it waited. */
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":\"first\",\"reason\":\"test\"}}");
	for (;;) {
		const char *id;

		r = mcp_recv(&m, 20000);
		ck_assert_ptr_nonnull(r);
		id = cJSON_GetStringValue(cJSON_GetObjectItem(r, "id"));
		if (id != NULL && strcmp(id, "second") == 0)
			break;
		cJSON_Delete(r);
	}
	{
		const cJSON *res = cJSON_GetObjectItem(r, "result");
		const cJSON *sc = cJSON_GetObjectItem(res, "structuredContent");
		const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "content"), 0);
		const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(c0, "text"));

		ck_assert_msg(cJSON_GetNumberValue(cJSON_GetObjectItem(sc, "waited_ms")) > 0,
			      "no waited_ms in the result");
		/* Ftu18 06: for another call, a command or a change. */
		ck_assert_msg(text != NULL && strstr(text, "waiting for another call in "
						     "this workspace: a command, or "
						     "a change to its files") != NULL,
			      "%s", text ? text : "(no text)");
	}
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

START_TEST(cancel_run_command)
{
	struct mcp m;
	cJSON *r;
	long long t0;

	mcp_start(&m, W);
	handshake(&m, NULL);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":\"run-1\",\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"run_command\",\"arguments\":{\"command\":"
		 "[\"sleep\",\"30\"]},\"_meta\":{\"progressToken\":\"tok\"}}}");
	ck_assert_int_eq(wait_progress(&m, "tok", 5000), 0);
	/* The command is running: progress in elapsed ms, increasing, and
	 * the message reads on its own (a client shows it without the
	 * number), with the timeout, which is the total (ftu17 03). */
	ck_assert_int_gt(wait_progress(&m, "tok", 5000), 0);
	ck_assert_msg(strncmp(progress_message, "the command is running (", 24) == 0 &&
		      strstr(progress_message, " s of at most ") != NULL &&
		      strstr(progress_message, "ms") == NULL, "%s", progress_message);
	ck_assert_int_gt(progress_total, 0);
	/* Ping answers while the call runs: the reader is not blocked. */
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}");
	for (;;) {
		r = mcp_recv(&m, 5000);
		ck_assert_ptr_nonnull(r);
		if (is_id(r, 7))
			break;
		cJSON_Delete(r);
	}
	cJSON_Delete(r);
	t0 = now_ms();
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":\"run-1\",\"reason\":\"test\"}}");
	/* The worker is free again soon; the cancelled call gets nothing. */
	r = NULL;
	{
		cJSON *res = NULL;

		mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"read_file\",\"arguments\":"
			 "{\"path\":\"notes.md\"}}}");
		for (;;) {
			cJSON *j = mcp_recv(&m, 10000);
			const cJSON *id;

			ck_assert_msg(j != NULL, "no answer after the cancellation");
			id = cJSON_GetObjectItem(j, "id");
			ck_assert_msg(!cJSON_IsString(id), "the cancelled call was answered");
			if (is_id(j, 8)) {
				res = j;
				break;
			}
			cJSON_Delete(j);
		}
		ck_assert(!is_error(cJSON_GetObjectItem(res, "result")));
		cJSON_Delete(res);
	}
	ck_assert_int_lt(now_ms() - t0, (long long)(6000 * WST_SLOWDOWN));
	/* Nothing more comes for the cancelled call. */
	r = rpc(&m, 9, "ping", NULL);
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

START_TEST(cancel_search)
{
	struct mcp m;
	char line[32];
	long long t0;

	/* Files with a line that backtracks a while each: seconds in all. */
	memset(line, 'a', 26);
	line[26] = '\n';
	line[27] = '\0';
	for (int i = 0; i < 3000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "slow/f%d.txt", i);
		wst_write(W, name, line);
	}
	mcp_start(&m, W);
	handshake(&m, NULL);
	t0 = now_ms();
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"search_files\",\"arguments\":{\"pattern\":"
		 "\"^(a|aa)+[^a\\\\n]\",\"paths\":[\"slow\"]},"
		 "\"_meta\":{\"progressToken\":42}}}");
	{
		cJSON *j = mcp_recv(&m, 5000);
		const cJSON *p = cJSON_GetObjectItem(j, "params");

		ck_assert_str_eq(method_of(j), "notifications/progress");
		ck_assert_int_eq((int)cJSON_GetNumberValue(
					 cJSON_GetObjectItem(p, "progressToken")), 42);
		cJSON_Delete(j);
	}
	usleep(300000);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":3}}");
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"list_directory\",\"arguments\":{}}}");
	for (;;) {
		cJSON *j = mcp_recv(&m, 20000);

		ck_assert_msg(j != NULL, "no answer after the cancellation");
		ck_assert_msg(!is_id(j, 3), "the cancelled search was answered");
		if (is_id(j, 4)) {
			cJSON_Delete(j);
			break;
		}
		cJSON_Delete(j);
	}
	/* Well before the search would have ended (several seconds). */
	ck_assert_int_lt(now_ms() - t0, (long long)(2500 * WST_SLOWDOWN));
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

START_TEST(progress_of_a_command)
{
	struct mcp m;
	int progress = 0;
	long long last = -1;

	mcp_start(&m, W);
	handshake(&m, NULL);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"run_command\",\"arguments\":{\"command\":"
		 "\"sleep 1; echo done\"},\"_meta\":{\"progressToken\":\"p\"}}}");
	for (;;) {
		cJSON *j = mcp_recv(&m, 10000);
		const char *meth;

		ck_assert_ptr_nonnull(j);
		meth = method_of(j);
		if (meth != NULL && strcmp(meth, "notifications/progress") == 0) {
			long long v = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(
				cJSON_GetObjectItem(j, "params"), "progress"));

			ck_assert_int_gt(v, last); /* increasing, as MCP requires */
			last = v;
			progress++;
		} else {
			const cJSON *res = cJSON_GetObjectItem(j, "result");

			ck_assert(is_id(j, 3));
			ck_assert(!is_error(res));
			ck_assert_str_eq(cJSON_GetStringValue(sc(res, "stdout")), "done\n");
			cJSON_Delete(j);
			break;
		}
		cJSON_Delete(j);
	}
	/* The start, and at least two while it ran for a second. */
	ck_assert_int_ge(progress, 3);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/* A policy where deleting needs approval. */
static char *
approve_policy(void)
{
	wst_write(T, "approve.json",
		  "{\"version\":1,\"name\":\"ask\",\"file_rules\":["
		  "{\"name\":\"ask-delete\",\"paths\":[\"**\"],\"operations\":"
		  "[\"delete\",\"rmdir\"],\"decision\":\"approve\",\"message\":"
		  "\"Delete {{.Path}}?\"},"
		  "{\"name\":\"rest\",\"paths\":[\"**\"],\"operations\":[\"*\"],"
		  "\"decision\":\"allow\"}]}");
	return wst_path(T, "approve.json");
}

/* Call delete_path and answer the elicitation with answer (raw JSON). */
static cJSON *
delete_with_answer(struct mcp *m, int id, const char *answer, cJSON **resp)
{
	char *params;

	ck_assert_int_ge(asprintf(&params, "{\"jsonrpc\":\"2.0\",\"id\":%d,"
				  "\"method\":\"tools/call\",\"params\":{\"name\":"
				  "\"delete_path\",\"arguments\":{\"path\":"
				  "\"notes.md\"}}}", id), 0);
	mcp_send(m, "%s", params);
	free(params);
	for (;;) {
		cJSON *j = mcp_recv(m, 10000);
		const char *meth;

		ck_assert_ptr_nonnull(j);
		meth = method_of(j);
		if (meth != NULL && strcmp(meth, "elicitation/create") == 0) {
			const cJSON *p = cJSON_GetObjectItem(j, "params");
			const cJSON *eid = cJSON_GetObjectItem(j, "id");

			/* The question once: the rule's "Delete {{.Path}}?" only
			 * asked it again (ftu18 07). */
			ck_assert_ptr_nonnull(strstr(cJSON_GetStringValue(
							     cJSON_GetObjectItem(p, "message")),
						     "Allow delete: /notes.md?\nAsked by "
						     "rule \"ask-delete\""));
			ck_assert_ptr_null(strstr(cJSON_GetStringValue(
							  cJSON_GetObjectItem(p, "message")),
						  "Delete /notes.md?"));
			ck_assert(cJSON_IsObject(cJSON_GetObjectItem(
				cJSON_GetObjectItem(cJSON_GetObjectItem(p, "requestedSchema"),
						    "properties"), "approve")));
			mcp_send(m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":%s}",
				 (int)eid->valuedouble, answer);
			cJSON_Delete(j);
			continue;
		}
		if (is_id(j, id)) {
			*resp = j;
			return cJSON_GetObjectItem(j, "result");
		}
		cJSON_Delete(j);
	}
}

START_TEST(approval_by_elicitation)
{
	char *pol = approve_policy(), *notes = wst_path(W, "notes.md");
	struct mcp m;
	cJSON *r, *res;

	mcp_start(&m, "--policy", pol, W);
	handshake(&m, "{\"elicitation\":{}}");
	/* Declined, cancelled, or accepted without approve: not deleted. */
	res = delete_with_answer(&m, 2, "{\"action\":\"decline\"}", &r);
	ck_assert_str_eq(code_of(res), "APPROVAL_REQUIRED");
	/* The model is told to ask the person through the client, never
	 * to have the server restarted with --approve (issue 20). */
	ck_assert_msg(strstr(text_of(res), "--approve to allow") == NULL &&
		      strstr(text_of(res), "rerun it with --approve") == NULL &&
		      strstr(text_of(res), "Never suggest restarting the server "
			     "with --approve") != NULL &&
		      strstr(text_of(res), "ask the user") != NULL, "%s", text_of(res));
	ck_assert_ptr_nonnull(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(
		sc(res, "error"), "hint")), "ask the user"));
	cJSON_Delete(r);
	res = delete_with_answer(&m, 3, "{\"action\":\"accept\",\"content\":"
				 "{\"approve\":false}}", &r);
	ck_assert_str_eq(code_of(res), "APPROVAL_REQUIRED");
	cJSON_Delete(r);
	ck_assert(wst_exists(notes));
	/* The model cannot approve for the person. */
	res = call(&m, 4, "delete_path", "{\"path\":\"notes.md\",\"approve\":true}", &r);
	ck_assert(is_error(res));
	cJSON_Delete(r);
	ck_assert(wst_exists(notes));
	res = delete_with_answer(&m, 5, "{\"action\":\"accept\",\"content\":"
				 "{\"approve\":true}}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert(!wst_exists(notes));
	ck_assert_int_eq(mcp_close(&m), 0);

	/* A client without elicitation: APPROVAL_REQUIRED, never a prompt. */
	wst_write(W, "notes.md", "again\n");
	mcp_start(&m, "--policy", pol, W);
	handshake(&m, NULL);
	res = call(&m, 2, "delete_path", "{\"path\":\"notes.md\"}", &r);
	ck_assert_str_eq(code_of(res), "APPROVAL_REQUIRED");
	ck_assert_msg(strstr(text_of(res), "cannot ask them") != NULL &&
		      strstr(text_of(res), "--approve to allow") == NULL &&
		      strstr(text_of(res), "rerun it with --approve") == NULL,
		      "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert(wst_exists(notes));
	ck_assert_int_eq(mcp_close(&m), 0);
	/* Only URL elicitation: it cannot ask yes or no either. */
	mcp_start(&m, "--policy", pol, W);
	handshake(&m, "{\"elicitation\":{\"url\":{}}}");
	res = call(&m, 2, "delete_path", "{\"path\":\"notes.md\"}", &r);
	ck_assert_str_eq(code_of(res), "APPROVAL_REQUIRED");
	cJSON_Delete(r);
	ck_assert(wst_exists(notes));
	ck_assert_int_eq(mcp_close(&m), 0);
	free(pol);
	free(notes);
}
END_TEST

/*
 * The audit log under MCP (issue 22): a line for each call, allowed,
 * refused (declined) and approved by the person through elicitation,
 * each saying it came through MCP; the chain holds.
 */
START_TEST(audit_lines_from_mcp)
{
	char *pol = approve_policy(), *log = wst_path(T, "audit.jsonl"), *text;
	char *save = NULL;
	const char *want[][4] = {
		/* tool, decision, approval given by, outcome */
		{"write_file", "allow", NULL, "OK"},
		{"delete_path", "approve", NULL, "APPROVAL_REQUIRED"},
		{"delete_path", "approve", "elicitation", "OK"},
	};
	struct mcp m;
	struct wst_run v;
	cJSON *r, *res;
	size_t n = 0;

	mcp_start(&m, "--policy", pol, "--audit", log, W);
	handshake(&m, "{\"elicitation\":{}}");
	res = call(&m, 2, "write_file", "{\"path\":\"new.md\",\"content\":\"x\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	res = delete_with_answer(&m, 3, "{\"action\":\"decline\"}", &r);
	ck_assert_str_eq(code_of(res), "APPROVAL_REQUIRED");
	cJSON_Delete(r);
	res = delete_with_answer(&m, 4, "{\"action\":\"accept\",\"content\":"
				 "{\"approve\":true}}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
	text = wst_slurp(log, NULL);
	ck_assert_ptr_nonnull(text);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save), n++) {
		cJSON *j = cJSON_Parse(l);
		const cJSON *a;

		ck_assert_ptr_nonnull(j);
		ck_assert_uint_lt(n, 3);
		a = cJSON_GetObjectItem(j, "approval");
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "frontend")), "mcp");
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "tool")), want[n][0]);
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "decision")), want[n][1]);
		if (want[n][2] != NULL)
			ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(a, "by")),
					 want[n][2]);
		else
			ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(a, "given")));
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "outcome")), want[n][3]);
		cJSON_Delete(j);
	}
	ck_assert_uint_eq(n, 3);
	wst_run(&v, NULL, "wstools", "audit", "--verify", log, NULL);
	ck_assert_msg(v.status == 0, "%s", v.out);
	wst_run_free(&v);
	/* The changes are in the history, as made through MCP; the person
	 * undoes the delete beside the server. */
	wst_run(&v, NULL, "wstools", "history", "--workspace", W, "--json", NULL);
	ck_assert_int_eq(v.status, 0);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(
		wst_output(&v, "entries"), 0), "frontend")), "mcp");
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(
		wst_output(&v, "entries"), 0), "operation")), "delete");
	wst_run_free(&v);
	wst_run(&v, NULL, "wstools", "undo", "--workspace", W, NULL);
	ck_assert_msg(v.status == 0, "%s", v.err);
	wst_run_free(&v);
	{
		char *notes = wst_path(W, "notes.md");

		ck_assert(wst_exists(notes));
		free(notes);
	}
	free(text);
	free(log);
	free(pol);
}
END_TEST

/* Whether tools/list names tool. */
static bool
lists_tool(struct mcp *m, int id, const char *tool)
{
	cJSON *r = rpc(m, id, "tools/list", NULL), *t;
	bool found = false;

	cJSON_ArrayForEach(t, cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "tools"))
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")), tool) == 0)
			found = true;
	cJSON_Delete(r);
	return found;
}

/*
 * history and undo are tools only under --history-tools (issue 22): a
 * harness may not want the model to undo.
 */
START_TEST(history_tools_only_when_asked)
{
	struct mcp m;
	cJSON *r, *res;
	char *f = wst_path(W, "made.txt");

	mcp_start(&m, W);
	handshake(&m, NULL);
	ck_assert(!lists_tool(&m, 2, "undo"));
	ck_assert(!lists_tool(&m, 3, "history"));
	ck_assert_int_eq(mcp_close(&m), 0);

	mcp_start(&m, "--history-tools", W);
	handshake(&m, NULL);
	ck_assert(lists_tool(&m, 2, "undo"));
	ck_assert(lists_tool(&m, 3, "history"));
	res = call(&m, 4, "write_file", "{\"path\":\"made.txt\",\"content\":\"x\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	res = call(&m, 5, "history", "{\"path\":\"made.txt\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(
		sc(res, "entries"), 0), "frontend")), "mcp");
	/* Ftu18 07: the text is the plain lines, as every other tool's. */
	ck_assert_msg(text_of(res)[0] == '1' &&
		      strstr(text_of(res), "  mcp    write_file  create  /made.txt\n") != NULL,
		      "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert(wst_exists(f));
	res = call(&m, 6, "undo", "{}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_str_eq(text_of(res), "undone:\n1  create  /made.txt\n");
	cJSON_Delete(r);
	ck_assert(!wst_exists(f));
	/*
	 * ftu12 24: the file changed since (the person's hand edit): the
	 * refusal tells the model to ask the person, not to force it.
	 */
	res = call(&m, 7, "write_file", "{\"path\":\"made.txt\",\"content\":\"x\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	wst_write(W, "made.txt", "the person's edit\n");
	res = call(&m, 8, "undo", "{}", &r);
	ck_assert_msg(is_error(res) && strcmp(code_of(res), "VERSION_MISMATCH") == 0,
		      "%s", text_of(res));
	ck_assert_msg(strstr(text_of(res), "ask the person") != NULL &&
		      strstr(text_of(res), "force reverts") == NULL, "%s", text_of(res));
	cJSON_Delete(r);
	/*
	 * ftu13 07: but "force" is the model's too, and works; the hint only
	 * discourages it. wstools-mcp(1) says so where --history-tools is
	 * described, so that a harness author knows to drop it.
	 */
	res = call(&m, 9, "undo", "{\"force\":true}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert(!wst_exists(f));
	{
		char *man = wst_slurp(WST_SRC_ROOT "/man/wstools-mcp.1", NULL);
		char *b = strstr(man, ".It Fl -history-tools\n"), *e;

		ck_assert_ptr_nonnull(b);
		e = strstr(b + 1, "\n.It ");
		ck_assert_ptr_nonnull(e);
		*e = '\0';
		ck_assert_msg(strstr(b, ".Qq force") != NULL &&
			      strstr(b, "drops") != NULL,
			      "wstools-mcp(1) --history-tools does not say the model "
			      "may force an undo: %s", b);
		free(man);
	}
	ck_assert_int_eq(mcp_close(&m), 0);
	free(f);
}
END_TEST

/*
 * ftu12 06: undo's "id" is an integer, as history gives ids (and as
 * "to" is): a model copies {"id": 3} from the history answer.  It was a
 * string, and that first undo failed with INVALID_ARGUMENT.  A quoted
 * number is taken too; the schema says "integer".
 */
START_TEST(undo_id_is_integer)
{
	struct mcp m;
	cJSON *r, *res, *t, *id = NULL;
	char *f1 = wst_path(W, "one.txt"), *f2 = wst_path(W, "two.txt");
	char args[64];
	long long first;

	mcp_start(&m, "--history-tools", W);
	handshake(&m, NULL);
	r = rpc(&m, 2, "tools/list", NULL);
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "tools"))
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")), "undo") == 0 ||
		    strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")), "history") == 0) {
			const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(t, "description"));

			/* ftu12 10: in the model's words, not a man page's. */
			ck_assert_msg(d != NULL && strstr(d, "wstools(1)") == NULL &&
				      strstr(d, "run_command") != NULL, "%s", d);
			if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")), "undo") == 0)
				id = cJSON_GetObjectItem(cJSON_GetObjectItem(
					cJSON_GetObjectItem(t, "inputSchema"), "properties"), "id");
		}
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(id, "type")), "integer");
	cJSON_Delete(r);
	res = call(&m, 3, "write_file", "{\"path\":\"one.txt\",\"content\":\"1\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	res = call(&m, 4, "write_file", "{\"path\":\"two.txt\",\"content\":\"2\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	res = call(&m, 5, "history", "{}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	/* Newest first: the last entry is one.txt's create. */
	t = cJSON_GetArrayItem(sc(res, "entries"), cJSON_GetArraySize(sc(res, "entries")) - 1);
	ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(t, "id")));
	first = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(t, "id"));
	cJSON_Delete(r);
	snprintf(args, sizeof(args), "{\"id\":%lld}", first);
	res = call(&m, 6, "undo", args, &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert(!wst_exists(f1));
	ck_assert(wst_exists(f2));
	/* A quoted id, and one that is not an integer. */
	snprintf(args, sizeof(args), "{\"id\":\"%lld\"}", first + 1);
	res = call(&m, 7, "undo", args, &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert(!wst_exists(f2));
	res = call(&m, 8, "undo", "{\"id\":1.5}", &r);
	ck_assert(is_error(res));
	ck_assert_msg(strstr(text_of(res), "INVALID_ARGUMENT") != NULL, "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
	free(f1);
	free(f2);
}
END_TEST

/*
 * A command rule's "approve" asks through elicitation as a file rule's
 * does (it used to fail with APPROVAL_REQUIRED without asking).
 */
START_TEST(command_approval_by_elicitation)
{
	struct mcp m;
	char *pol;
	const char *answers[] = {"{\"action\":\"decline\"}",
				 "{\"action\":\"accept\",\"content\":{\"approve\":true}}"};

	wst_write(T, "cmd.json",
		  "{\"version\":1,\"name\":\"askcmd\",\"file_rules\":["
		  "{\"name\":\"rest\",\"paths\":[\"**\"],\"operations\":[\"*\"],"
		  "\"decision\":\"allow\"}],\"command_rules\":["
		  "{\"name\":\"ask-echo\",\"patterns\":[\"^echo\\\\b\"],"
		  "\"decision\":\"approve\",\"message\":\"Run echo?\"}]}");
	pol = wst_path(T, "cmd.json");
	mcp_start(&m, "--policy", pol, W);
	handshake(&m, "{\"elicitation\":{}}");
	for (int k = 0; k < 2; k++) {
		bool asked = false;
		cJSON *j, *res;

		mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"run_command\",\"arguments\":"
			 "{\"command\":[\"echo\",\"hi\"]}}}", 10 + k);
		for (;;) {
			j = mcp_recv(&m, 10000);
			ck_assert_ptr_nonnull(j);
			if (method_of(j) && strcmp(method_of(j), "elicitation/create") == 0) {
				ck_assert_ptr_nonnull(strstr(cJSON_GetStringValue(
					cJSON_GetObjectItem(cJSON_GetObjectItem(j, "params"),
							    "message")), "Run echo?"));
				mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":%s}",
					 (int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id")),
					 answers[k]);
				asked = true;
				cJSON_Delete(j);
				continue;
			}
			if (is_id(j, 10 + k))
				break;
			cJSON_Delete(j);
		}
		ck_assert(asked);
		res = cJSON_GetObjectItem(j, "result");
		if (k == 0) {
			ck_assert_str_eq(code_of(res), "APPROVAL_REQUIRED");
			ck_assert_msg(strstr(text_of(res), "(--approve)") == NULL &&
				      strstr(text_of(res), "Never suggest") != NULL,
				      "%s", text_of(res));
		} else {
			ck_assert_msg(!is_error(res), "%s", text_of(res));
			ck_assert_str_eq(cJSON_GetStringValue(sc(res, "stdout")), "hi\n");
		}
		cJSON_Delete(j);
	}
	ck_assert_int_eq(mcp_close(&m), 0);
	free(pol);
}
END_TEST

/* A one-page HTTP server on 127.0.0.1 for the network approval test. */
static void *
hello_server(void *arg)
{
	int l = (int)(intptr_t)arg;

	for (;;) {
		static const char ok[] = "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nhi\n";
		char buf[4096];
		int c = accept(l, NULL, NULL);

		if (c < 0)
			return NULL;
		if (recv(c, buf, sizeof(buf), 0) > 0 &&
		    send(c, ok, sizeof(ok) - 1, MSG_NOSIGNAL) < 0) {
			/* the client went away */
		}
		close(c);
	}
}

/*
 * A network rule's "approve" asks through elicitation, from the proxy's
 * thread in the server, once per host and call (issue 23): two requests
 * in one call, one question; declined, the host is refused; accepted,
 * both requests pass.
 */
START_TEST(network_approval_by_elicitation)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	const char *answers[] = {"{\"action\":\"decline\"}",
				 "{\"action\":\"accept\",\"content\":{\"approve\":true}}"};
	pthread_t th;
	struct mcp m;
	char *pol, code[1024];

	ck_assert_int_eq(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(l, 16), 0);
	ck_assert_int_eq(getsockname(l, (struct sockaddr *)&a, &al), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, hello_server, (void *)(intptr_t)l), 0);
	wst_write(T, "net.json",
		  "{\"version\":1,\"name\":\"asknet\",\"file_rules\":["
		  "{\"name\":\"rest\",\"paths\":[\"**\"],\"operations\":[\"*\"],"
		  "\"decision\":\"allow\"}],\"network_rules\":["
		  "{\"name\":\"ask-lo\",\"hosts\":[\"127.0.0.1\"],"
		  "\"decision\":\"approve\",\"message\":\"Reach the test server?\"},"
		  "{\"name\":\"lo\",\"hosts\":[\"127.0.0.1\"],\"decision\":\"allow\"}]}");
	pol = wst_path(T, "net.json");
	snprintf(code, sizeof(code),
		 "import http.client\n"
		 "for i in range(2):\n"
		 " c=http.client.HTTPConnection('127.0.0.1',3128)\n"
		 " c.request('GET','http://127.0.0.1:%d/')\n"
		 " print(c.getresponse().status)\n", ntohs(a.sin_port));
	mcp_start(&m, "--policy", pol, W);
	handshake(&m, "{\"elicitation\":{}}");
	for (int k = 0; k < 2; k++) {
		int asked = 0;
		char *args = NULL;
		cJSON *j, *res, *cmd = cJSON_CreateArray();

		cJSON_AddItemToArray(cmd, cJSON_CreateString("/usr/bin/python3"));
		cJSON_AddItemToArray(cmd, cJSON_CreateString("-c"));
		cJSON_AddItemToArray(cmd, cJSON_CreateString(code));
		args = cJSON_PrintUnformatted(cmd);
		cJSON_Delete(cmd);
		mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"run_command\",\"arguments\":"
			 "{\"command\":%s}}}", 20 + k, args);
		free(args);
		for (;;) {
			j = mcp_recv(&m, 20000);
			ck_assert_ptr_nonnull(j);
			if (method_of(j) && strcmp(method_of(j), "elicitation/create") == 0) {
				ck_assert_ptr_nonnull(strstr(cJSON_GetStringValue(
					cJSON_GetObjectItem(cJSON_GetObjectItem(j, "params"),
							    "message")), "Reach the test server?"));
				mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":%s}",
					 (int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id")),
					 answers[k]);
				asked++;
				cJSON_Delete(j);
				continue;
			}
			if (is_id(j, 20 + k))
				break;
			cJSON_Delete(j);
		}
		ck_assert_int_eq(asked, 1);
		res = cJSON_GetObjectItem(j, "result");
		ck_assert_msg(!is_error(res), "%s", text_of(res));
		ck_assert_str_eq(cJSON_GetStringValue(sc(res, "stdout")),
				 k == 0 ? "403\n403\n" : "200\n200\n");
		cJSON_Delete(j);
	}
	ck_assert_int_eq(mcp_close(&m), 0);
	shutdown(l, SHUT_RDWR);
	close(l);
	pthread_join(th, NULL);
	free(pol);
}
END_TEST

/*
 * The question an approval puts cannot be redrawn by what it asks about
 * (issue 18, finding 5): a command line with CR, ESC [2K / [1A, 30
 * newlines and 400 spaces used to reach the person raw, so that "rm -rf
 * src" could look like "ls -la # read-only".  Now the first line names
 * the operation and the command, escaped, and a long value is cut.
 */
START_TEST(approval_question_is_escaped)
{
	struct mcp m;
	char *pol, *script, *args, *q = NULL;
	size_t n = 0;
	bool asked = false;
	cJSON *j;

	wst_write(T, "cmd.json",
		  "{\"version\":1,\"name\":\"askcmd\",\"file_rules\":["
		  "{\"name\":\"rest\",\"paths\":[\"**\"],\"operations\":[\"*\"],"
		  "\"decision\":\"allow\"}],\"command_rules\":["
		  "{\"name\":\"ask-sh\",\"patterns\":[\"^sh\\\\b\"],"
		  "\"decision\":\"approve\",\"message\":\"Run {{.Path}}?\"}]}");
	pol = wst_path(T, "cmd.json");
	script = malloc(4096);
	strcpy(script, "rm -rf src\\r\\u001b[2K\\u001b[1A");
	for (int i = 0; i < 30; i++)
		strcat(script, "\\n");
	for (int i = 0; i < 400; i++)
		strcat(script, " ");
	strcat(script, "ls -la # read-only ");
	for (int i = 0; i < 600; i++)
		strcat(script, "#");
	ck_assert_int_ge(asprintf(&args, "{\"command\":[\"sh\",\"-c\",\"%s\"]}",
				  script), 0);
	mcp_start(&m, "--policy", pol, W);
	handshake(&m, "{\"elicitation\":{}}");
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"run_command\",\"arguments\":%s}}", args);
	for (;;) {
		j = mcp_recv(&m, 10000);
		ck_assert_ptr_nonnull(j);
		if (method_of(j) && strcmp(method_of(j), "elicitation/create") == 0) {
			q = strdup(cJSON_GetStringValue(cJSON_GetObjectItem(
				cJSON_GetObjectItem(j, "params"), "message")));
			mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":"
				 "{\"action\":\"decline\"}}",
				 (int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id")));
			asked = true;
			cJSON_Delete(j);
			continue;
		}
		if (is_id(j, 7))
			break;
		cJSON_Delete(j);
	}
	ck_assert(asked);
	ck_assert_str_eq(code_of(cJSON_GetObjectItem(j, "result")), "APPROVAL_REQUIRED");
	cJSON_Delete(j);
	/* What is asked, on the first line, as it will run. */
	ck_assert_msg(strncmp(q, "Allow command: sh -c rm -rf src\\r\\x1b[2K\\x1b[1A\\n",
			      strlen("Allow command: sh -c rm -rf src\\r\\x1b[2K\\x1b[1A\\n")) == 0,
		      "%s", q);
	/* No control byte but the few line breaks between its parts. */
	for (const char *c = q; *c; c++) {
		ck_assert_msg((unsigned char)*c >= 0x20 || *c == '\n', "byte %#x in %s",
			      (unsigned char)*c, q);
		n += *c == '\n';
	}
	ck_assert_msg(n <= 3, "%zu lines: %s", n, q);
	/* The spaces counted, the rest cut, and the whole short. */
	ck_assert_msg(strstr(q, "(400 spaces)") != NULL, "%s", q);
	ck_assert_msg(strstr(q, "more bytes)") != NULL, "%s", q);
	ck_assert_msg(strlen(q) < 1500, "%zu bytes: %s", strlen(q), q);
	ck_assert_msg(strstr(q, "rule \"ask-sh\" of policy \"askcmd\"") != NULL, "%s", q);
	ck_assert_int_eq(mcp_close(&m), 0);
	free(q);
	free(args);
	free(script);
	free(pol);
}
END_TEST

/*
 * "\u0000" in an argument is refused as the CLI refuses it (it used to
 * cut the string: "a.txt\u0000x" read a.txt), an id with one is -32600;
 * anything after the first JSON value is -32700; an elicitation answer
 * counts only with exactly our id (1.5 is not 1).
 */
START_TEST(strict_messages)
{
	struct mcp m;
	cJSON *r, *res, *j;
	char *pol = approve_policy(), *notes = wst_path(W, "notes.md");
	int eid;

	mcp_start(&m, W);
	handshake(&m, NULL);
	res = call(&m, 2, "read_file", "{\"path\":\"notes.md\\u0000x\"}", &r);
	ck_assert_str_eq(code_of(res), "INVALID_PATH");
	cJSON_Delete(r);
	/* An escaped backslash before "u0000" is text, not a NUL. */
	res = call(&m, 3, "search_files", "{\"pattern\":\"\\\\u0000\",\"fixed_strings\":true}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":\"a\\u0000b\",\"method\":\"ping\"}");
	j = mcp_recv(&m, 5000);
	ck_assert_int_eq(rpc_error_code(j), -32600);
	cJSON_Delete(j);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}"
		 "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}");
	j = mcp_recv(&m, 5000);
	ck_assert_int_eq(rpc_error_code(j), -32700);
	cJSON_Delete(j);
	j = rpc(&m, 6, "ping", NULL);
	cJSON_Delete(j);
	ck_assert_int_eq(mcp_close(&m), 0);

	mcp_start(&m, "--policy", pol, W);
	handshake(&m, "{\"elicitation\":{}}");
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
		 "{\"name\":\"delete_path\",\"arguments\":{\"path\":\"notes.md\"}}}");
	j = mcp_recv(&m, 10000);
	ck_assert_str_eq(method_of(j), "elicitation/create");
	eid = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id"));
	cJSON_Delete(j);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d.5,\"result\":{\"action\":\"accept\","
		 "\"content\":{\"approve\":true}}}", eid);
	usleep(200000);
	ck_assert(wst_exists(notes));
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"action\":\"decline\"}}", eid);
	for (;;) {
		j = mcp_recv(&m, 10000);
		ck_assert_ptr_nonnull(j);
		if (is_id(j, 2))
			break;
		cJSON_Delete(j);
	}
	ck_assert_str_eq(code_of(cJSON_GetObjectItem(j, "result")), "APPROVAL_REQUIRED");
	cJSON_Delete(j);
	ck_assert(wst_exists(notes));
	ck_assert_int_eq(mcp_close(&m), 0);

	/* Numeric ids come back as written, not through a double. */
	{
		struct wst_run run;

		wst_run(&run, "{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"ping\"}\n"
			"{\"jsonrpc\":\"2.0\",\"params\":{\"id\":5},\"id\" : 1.50,\"method\":\"ping\"}\n",
			"wstools", "mcp", W, NULL);
		ck_assert_int_eq(run.status, 0);
		ck_assert_msg(strstr(run.out, "\"id\":9007199254740993,") != NULL, "%s", run.out);
		ck_assert_msg(strstr(run.out, "\"id\":1.50,") != NULL, "%s", run.out);
		wst_run_free(&run);
	}
	/*
	 * cJSON reads numbers JSON does not have ("01", "1."): echoed as
	 * written, the answer would not be JSON.  A parse error instead.
	 */
	{
		struct wst_run run;

		wst_run(&run, "{\"jsonrpc\":\"2.0\",\"id\":01,\"method\":\"ping\"}\n"
			"{\"jsonrpc\":\"2.0\",\"id\":1.,\"method\":\"ping\"}\n"
			"{\"jsonrpc\":\"2.0\",\"id\":-0.5e+2,\"method\":\"ping\"}\n",
			"wstools", "mcp", W, NULL);
		ck_assert_int_eq(run.status, 0);
		ck_assert_msg(strstr(run.out, "\"id\":01") == NULL, "%s", run.out);
		ck_assert_msg(strstr(run.out, "\"id\":1.,") == NULL, "%s", run.out);
		ck_assert_msg(strstr(run.out, "\"id\":-0.5e+2,") != NULL, "%s", run.out);
		ck_assert_msg(strstr(run.out, "-32700") != NULL, "%s", run.out);
		wst_run_free(&run);
	}
	/* "jsonrpc" must be "2.0"; initialize is answered once. */
	mcp_start(&m, W);
	handshake(&m, NULL);
	mcp_send(&m, "{\"id\":7,\"method\":\"ping\"}");
	j = mcp_recv(&m, 5000);
	ck_assert_int_eq(rpc_error_code(j), -32600);
	cJSON_Delete(j);
	mcp_send(&m, "{\"jsonrpc\":\"1.0\",\"id\":8,\"method\":\"ping\"}");
	j = mcp_recv(&m, 5000);
	ck_assert_int_eq(rpc_error_code(j), -32600);
	cJSON_Delete(j);
	j = rpc(&m, 9, "initialize", "{\"protocolVersion\":\"2025-06-18\","
		"\"capabilities\":{\"elicitation\":{}}}");
	ck_assert_int_eq(rpc_error_code(j), -32600);
	cJSON_Delete(j);
	ck_assert_int_eq(mcp_close(&m), 0);
	free(pol);
	free(notes);
}
END_TEST

/*
 * An elicitation nobody answers ends after --approval-timeout with
 * APPROVAL_REQUIRED, and the next call runs (it used to block them all).
 */
START_TEST(approval_times_out)
{
	struct mcp m;
	cJSON *r, *res, *j;
	char *pol = approve_policy(), *notes = wst_path(W, "notes.md");
	long long t0 = now_ms();

	mcp_start(&m, "--approval-timeout", "0.5", "--policy", pol, W);
	handshake(&m, "{\"elicitation\":{}}");
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
		 "{\"name\":\"delete_path\",\"arguments\":{\"path\":\"notes.md\"}}}");
	for (;;) {
		j = mcp_recv(&m, 10000);
		ck_assert_ptr_nonnull(j);
		if (is_id(j, 2))
			break;
		cJSON_Delete(j);
	}
	ck_assert_str_eq(code_of(cJSON_GetObjectItem(j, "result")), "APPROVAL_REQUIRED");
	cJSON_Delete(j);
	res = call(&m, 3, "read_file", "{\"path\":\"notes.md\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert_int_lt(now_ms() - t0, (long long)(8000 * WST_SLOWDOWN));
	ck_assert(wst_exists(notes));
	ck_assert_int_eq(mcp_close(&m), 0);
	free(pol);
	free(notes);
}
END_TEST

/* Answer the server's roots/list request with roots (raw JSON array). */
static void
answer_roots(struct mcp *m, const char *roots)
{
	cJSON *j = mcp_recv(m, 5000);

	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(method_of(j), "roots/list");
	mcp_send(m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"roots\":%s}}",
		 (int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id")), roots);
	cJSON_Delete(j);
}

START_TEST(roots_set_the_workspace)
{
	struct mcp m;
	cJSON *r, *res;
	char *roots, *other = wst_path(T, "other dir");

	wst_write(T, "other dir/o.txt", "other\n");
	wst_write(T, "third/t.txt", "third\n");
	mcp_start(&m, "--no-detect-root");
	handshake(&m, "{\"roots\":{\"listChanged\":true}}");
	ck_assert_int_ge(asprintf(&roots, "[{\"uri\":\"file://%s\"},"
				  "{\"uri\":\"file://%s/other%%20dir\",\"name\":\"o\"}]",
				  W, T), 0);
	answer_roots(&m, roots);
	free(roots);
	res = call(&m, 2, "read_file", "{\"path\":\"notes.md\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	/* The second root is mounted at /.NAME (its base name). */
	res = call(&m, 3, "read_file", "{\"path\":\"/.other dir/o.txt\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_str_eq(text_of(res), "other\n");
	cJSON_Delete(r);
	/* The roots change: the server asks again and follows. */
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
	ck_assert_int_ge(asprintf(&roots, "[{\"uri\":\"file://%s/third\"}]", T), 0);
	answer_roots(&m, roots);
	free(roots);
	res = call(&m, 4, "read_file", "{\"path\":\"t.txt\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	res = call(&m, 5, "read_file", "{\"path\":\"notes.md\"}", &r);
	ck_assert_str_eq(code_of(res), "NOT_FOUND");
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);

	/* Pinned by a DIR: roots are not even asked for. */
	mcp_start(&m, W);
	handshake(&m, "{\"roots\":{}}");
	res = call(&m, 2, "read_file", "{\"path\":\"notes.md\"}", &r);
	ck_assert(!is_error(res));
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
	free(other);
}
END_TEST

/*
 * Roots are data: a root named "x:ro" or "a=b" is that directory, never a
 * mount spec ("/.x:ro" used to mount "x"); mounts of the same name are
 * "/.NAME", "/.NAME-2"...; non-file roots are skipped, and roots that
 * leave none make calls fail with WORKSPACE_NOT_FOUND (no fallback).
 */
START_TEST(roots_are_data)
{
	struct mcp m;
	cJSON *r, *res;
	char *roots;

	wst_write(T, "x/f.txt", "not granted\n");
	wst_write(T, "x:ro/f.txt", "granted ro\n");
	wst_write(T, "a=b/g.txt", "granted eq\n");
	wst_write(T, "b/src/b.txt", "b\n");
	wst_write(T, "c/src/c.txt", "c\n");
	mcp_start(&m, "--no-detect-root");
	handshake(&m, "{\"roots\":{}}");
	ck_assert_int_ge(asprintf(&roots, "[{\"uri\":\"file://%s\"},"
				  "{\"uri\":\"file://%s/x:ro\"},{\"uri\":\"file://%s/a=b\"},"
				  "{\"uri\":\"https://example.com/\"},"
				  "{\"uri\":\"file://host/tmp\"},"
				  "{\"uri\":\"file://%s/b/src\"},{\"uri\":\"file://%s/c/src/\"},"
				  "{\"uri\":\"file:///..\"}]", W, T, T, T, T), 0);
	answer_roots(&m, roots);
	free(roots);
	res = call(&m, 2, "read_file", "{\"path\":\"/.x:ro/f.txt\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_str_eq(text_of(res), "granted ro\n");
	cJSON_Delete(r);
	res = call(&m, 3, "read_file", "{\"path\":\"/.x/f.txt\"}", &r);
	ck_assert(is_error(res));
	cJSON_Delete(r);
	res = call(&m, 4, "read_file", "{\"path\":\"/.a=b/g.txt\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_str_eq(text_of(res), "granted eq\n");
	cJSON_Delete(r);
	res = call(&m, 5, "read_file", "{\"path\":\"/.src/b.txt\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	res = call(&m, 6, "read_file", "{\"path\":\"/.src-2/c.txt\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	/* "file:///.." is "/" named "root", never "/...". */
	res = call(&m, 7, "list_directory", "{\"path\":\"/.root\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	/* Only URIs that are not local: no workspace, and why. */
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
	answer_roots(&m, "[{\"uri\":\"https://example.com/\"},{\"uri\":\"file://host/x\"}]");
	res = call(&m, 8, "read_file", "{\"path\":\"notes.md\"}", &r);
	ck_assert_str_eq(code_of(res), "WORKSPACE_NOT_FOUND");
	ck_assert_ptr_nonnull(strstr(text_of(res), "file:///PATH"));
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);

	/* DIRs of the same name: /.src and /.src-2, not "mounted twice". */
	{
		char *b = wst_path(T, "b/src"), *c = wst_path(T, "c/src");

		mcp_start(&m, W, b, c);
		handshake(&m, NULL);
		res = call(&m, 2, "read_file", "{\"path\":\"/.src/b.txt\"}", &r);
		ck_assert_msg(!is_error(res), "%s", text_of(res));
		cJSON_Delete(r);
		res = call(&m, 3, "read_file", "{\"path\":\"/.src-2/c.txt\"}", &r);
		ck_assert_msg(!is_error(res), "%s", text_of(res));
		cJSON_Delete(r);
		ck_assert_int_eq(mcp_close(&m), 0);
		/* The compat mode names them the same way (one rule). */
		mcp_start(&m, "--compat", "mcp-filesystem", W, b, c);
		handshake(&m, NULL);
		res = call(&m, 2, "list_allowed_directories", "{}", &r);
		ck_assert_msg(!is_error(res), "%s", text_of(res));
		ck_assert_ptr_nonnull(strstr(text_of(res), "c/src"));
		cJSON_Delete(r);
		free(roots = NULL);
		ck_assert_int_ge(asprintf(&roots, "{\"path\":\"%s/c.txt\"}", c), 0);
		res = call(&m, 3, "read_text_file", roots, &r);
		ck_assert_msg(!is_error(res), "%s", text_of(res));
		ck_assert_str_eq(text_of(res), "c\n");
		cJSON_Delete(r);
		free(roots);
		ck_assert_int_eq(mcp_close(&m), 0);
		free(b);
		free(c);
	}
}
END_TEST

/* Regular files below dir, counted. */
static long
count_files(const char *dir)
{
	char cmd[4200];
	FILE *f;
	long n = -1;

	snprintf(cmd, sizeof(cmd), "find '%s' -type f 2>/dev/null | wc -l", dir);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	pclose(f);
	return n;
}

/*
 * Review23 14: a recursive delete_path cancelled 20 ms in went on to
 * delete every file, and, cancelled, was never answered: the person
 * pressed stop for nothing.  It stops at its next entry now (or before
 * anything went, if the stop came while the tree was being recorded),
 * and what went comes back with an undo.
 */
START_TEST(cancelled_delete_stops)
{
	struct mcp m;
	char *big = wst_path(W, "big");
	long left;

	for (int d = 0; d < 100; d++)
		for (int f = 0; f < 200; f++) {
			char rel[64];

			snprintf(rel, sizeof(rel), "big/d%03d/f%03d", d, f);
			wst_write(W, rel, "x\n");
		}
	mcp_start(&m, W);
	handshake(&m, NULL);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"delete_path\",\"arguments\":"
		 "{\"path\":\"big\",\"recursive\":true}}}");
	usleep(20000);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":2}}");
	ck_assert_int_eq(mcp_close(&m), 0);
	left = count_files(big);
	ck_assert_msg(left > 0, "the cancelled delete deleted all (%ld left)", left);
	if (left < 20000) {
		struct wst_run r;

		wst_runv(&r, NULL, (const char *[]){wst_state_env(), NULL}, "wstools",
			 (const char *[]){"undo", "--workspace", W, NULL});
		ck_assert_msg(r.status == 0, "%s", r.err);
		wst_run_free(&r);
		ck_assert_int_eq(count_files(big), 20000);
	}
	free(big);
}
END_TEST

/*
 * A client that offers roots and never answers roots/list: a waiting call
 * can be cancelled, and the calls fail after --roots-timeout with
 * WORKSPACE_NOT_FOUND saying so (they used to hang for ever).
 */
START_TEST(roots_unanswered)
{
	struct mcp m;
	cJSON *r, *res, *j;
	long long t0;

	mcp_start(&m, "--roots-timeout", "1.5");
	handshake(&m, "{\"roots\":{}}");
	j = mcp_recv(&m, 5000);
	ck_assert_str_eq(method_of(j), "roots/list");
	cJSON_Delete(j);
	t0 = now_ms();
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}}");
	usleep(100000);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":2}}");
	/* The cancelled call is not answered; the next one times out. */
	res = call(&m, 3, "read_file", "{\"path\":\"notes.md\"}", &r);
	ck_assert_str_eq(code_of(res), "WORKSPACE_NOT_FOUND");
	ck_assert_ptr_nonnull(strstr(text_of(res), "roots/list"));
	ck_assert_int_lt(now_ms() - t0, (long long)(8000 * WST_SLOWDOWN));
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * A model's sizes and times are held to ceilings: max_output 2e9 keeps
 * at most 1 MiB, timeout 0 is not "none" (the default, or the server's
 * --timeout when lower), a timeout above --timeout is --timeout.
 */
START_TEST(model_limits_capped)
{
	struct mcp m;
	cJSON *r, *res;
	long long t0;

	mcp_start(&m, W);
	handshake(&m, NULL);
	res = call(&m, 2, "run_command", "{\"command\":\"head -c 3000000 /dev/zero | "
		   "tr '\\\\0' a\",\"max_output\":2000000000}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert(cJSON_IsTrue(sc(res, "stdout_truncated")));
	ck_assert_int_le(strlen(cJSON_GetStringValue(sc(res, "stdout"))), (1 << 20) + 4096);
	cJSON_Delete(r);
	res = call(&m, 3, "run_command", "{\"command\":[\"true\"],\"max_output\":\"0\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);

	mcp_start(&m, "--timeout", "0.5", W);
	handshake(&m, NULL);
	t0 = now_ms();
	res = call(&m, 2, "run_command", "{\"command\":[\"sleep\",\"30\"],\"timeout\":0}", &r);
	ck_assert(cJSON_IsTrue(sc(res, "timed_out")));
	cJSON_Delete(r);
	res = call(&m, 3, "run_command", "{\"command\":[\"sleep\",\"30\"],\"timeout\":1000}", &r);
	ck_assert(cJSON_IsTrue(sc(res, "timed_out")));
	cJSON_Delete(r);
	res = call(&m, 4, "run_command", "{\"command\":[\"sleep\",\"30\"]}", &r);
	ck_assert(cJSON_IsTrue(sc(res, "timed_out")));
	cJSON_Delete(r);
	ck_assert_int_lt(now_ms() - t0, (long long)(20000 * WST_SLOWDOWN));
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * Issue 18: a repeated key anywhere in a call's arguments is
 * INVALID_ARGUMENT naming it (the ceiling read the first "timeout", the
 * tool the last); in the compat mode too, before its translation reads
 * them.  Two "name"s in params are bad params, two ids a bad request.
 */
START_TEST(repeated_keys)
{
	struct mcp m;
	cJSON *r, *res;
	long long t0;
	char *t2;

	mcp_start(&m, "--timeout", "2", W);
	handshake(&m, NULL);
	t0 = now_ms();
	res = call(&m, 2, "run_command", "{\"command\":[\"sleep\",\"5\"],"
		   "\"timeout\":1,\"timeout\":0}", &r);
	ck_assert_str_eq(code_of(res), "INVALID_ARGUMENT");
	ck_assert_msg(strstr(text_of(res), "\"timeout\" is given more than once"),
		      "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert_int_lt(now_ms() - t0, (long long)(4000 * WST_SLOWDOWN));
	res = call(&m, 3, "edit_file", "{\"path\":\"notes.md\",\"edits\":[{\"old\":"
		   "\"one\",\"new\":\"1\",\"new\":\"2\"}]}", &r);
	ck_assert_str_eq(code_of(res), "INVALID_ARGUMENT");
	ck_assert_msg(strstr(text_of(res), "in \"edits[0]\""), "%s", text_of(res));
	cJSON_Delete(r);
	res = call(&m, 4, "list_directory", "{\"path\":\"/\",\"max_entries\":1,"
		   "\"max_entries\":30000}", &r);
	ck_assert_str_eq(code_of(res), "INVALID_ARGUMENT");
	cJSON_Delete(r);
	r = rpc(&m, 5, "tools/call", "{\"name\":\"read_file\",\"name\":\"run_command\","
		"\"arguments\":{\"path\":\"notes.md\"}}");
	ck_assert_int_eq(rpc_error_code(r), -32602);
	cJSON_Delete(r);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":6,\"id\":7,\"method\":\"ping\"}");
	r = mcp_recv(&m, 5000);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(rpc_error_code(r), -32600);
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);

	mcp_start(&m, "--compat", "mcp-filesystem", W);
	handshake(&m, NULL);
	ck_assert_int_ge(asprintf(&t2, "{\"path\":\"%s/notes.md\",\"head\":1,"
				  "\"head\":2}", W), 0);
	res = call(&m, 2, "read_text_file", t2, &r);
	free(t2);
	ck_assert(is_error(res));
	ck_assert_msg(strstr(text_of(res), "\"head\" is given more than once"), "%s",
		      text_of(res));
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * Issue 18: the ceilings hold the values as the tool parsed them: a size
 * string ("1G" held 1.9 GB), a tiny timeout (0.0001 ran with none, past
 * --timeout 2), a tiny negative one (refused), a quoted count.
 */
START_TEST(ceilings_after_parsing)
{
	struct mcp m;
	cJSON *r, *res;
	long long t0;
	char *many = malloc(1500 * 4 + 1);

	for (int i = 0; i < 1500; i++)
		memcpy(many + i * 4, "hit\n", 4);
	many[1500 * 4] = '\0';
	wst_write(W, "many.txt", many);
	free(many);
	mcp_start(&m, "--timeout", "2", W);
	handshake(&m, NULL);
	res = call(&m, 2, "run_command", "{\"command\":\"head -c 3000000 /dev/zero | "
		   "tr '\\\\0' a\",\"max_output\":\"1G\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert(cJSON_IsTrue(sc(res, "stdout_truncated")));
	ck_assert_int_le(strlen(cJSON_GetStringValue(sc(res, "stdout"))), (1 << 20) + 4096);
	cJSON_Delete(r);
	t0 = now_ms();
	res = call(&m, 3, "run_command", "{\"command\":[\"sleep\",\"6\"],"
		   "\"timeout\":0.0001}", &r);
	ck_assert_msg(cJSON_IsTrue(sc(res, "timed_out")), "%s", text_of(res));
	cJSON_Delete(r);
	res = call(&m, 4, "run_command", "{\"command\":[\"sleep\",\"6\"],"
		   "\"timeout\":\"0.0001\"}", &r);
	ck_assert_msg(cJSON_IsTrue(sc(res, "timed_out")), "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert_int_lt(now_ms() - t0, (long long)(10000 * WST_SLOWDOWN));
	res = call(&m, 5, "run_command", "{\"command\":[\"sleep\",\"6\"],"
		   "\"timeout\":-0.0001}", &r);
	ck_assert_str_eq(code_of(res), "INVALID_ARGUMENT");
	ck_assert_msg(strstr(text_of(res), "negative"), "%s", text_of(res));
	cJSON_Delete(r);
	res = call(&m, 6, "search_files", "{\"pattern\":\"hit\",\"max_results\":\"5000\"}",
		   &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_int_eq(cJSON_GetArraySize(sc(res, "matches")), 1000);
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * Issue 6 of 18: a message over --max-message is answered with its own
 * id, even when the id comes last (as the TypeScript SDK writes it), so
 * the client is not left waiting; an "id" inside params is not it.
 */
START_TEST(oversized_message_keeps_its_id)
{
	static const char *const tails[][2] = {
		{"},\"id\":77}", "77"},
		{"} , \"id\" : \"req-9\" }", "\"req-9\""},
		{",\"id\":1}}", "null"},
		{"},\"id\":\"a\\\"},\\\"id\\\":1\"}", "\"a\\\"},\\\"id\\\":1\""},
	};
	struct mcp m;
	size_t n = 100000;
	char *big = malloc(n + 256);

	mcp_start(&m, "--max-message", "4096", W);
	handshake(&m, NULL);
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		size_t k = 0;
		cJSON *r;
		char *id;

		k += (size_t)sprintf(big, "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\","
				     "\"params\":{\"name\":\"write_file\",\"arguments\":"
				     "{\"path\":\"x\",\"content\":\"\\\"{[");
		memset(big + k, 'a', n);
		k += n;
		k += (size_t)sprintf(big + k, "\"}%s", tails[i][0]);
		mcp_sendn(&m, big, k);
		mcp_sendn(&m, "\n", 1);
		r = mcp_recv(&m, 5000);
		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(rpc_error_code(r), -32600);
		id = cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "id"));
		ck_assert_str_eq(id, tails[i][1]);
		free(id);
		cJSON_Delete(r);
	}
	free(big);
	/* And the server reads on. */
	{
		cJSON *r = rpc(&m, 20, "ping", NULL);

		ck_assert_ptr_nonnull(cJSON_GetObjectItem(r, "result"));
		cJSON_Delete(r);
	}
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * The default --max-message fits a 5 MiB write_file (the reference
 * server's own test size), even with its escapes; 40 MiB is refused
 * with the request's id, put last.
 */
START_TEST(five_mib_write)
{
	struct mcp m;
	size_t n = 5u << 20, k = 0;
	char *big = malloc(48u << 20);
	cJSON *r, *res;
	struct stat st;
	char *path = wst_path(W, "big.txt");

	mcp_start(&m, W);
	handshake(&m, NULL);
	k += (size_t)sprintf(big, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
			     "\"params\":{\"name\":\"write_file\",\"arguments\":"
			     "{\"path\":\"big.txt\",\"content\":\"");
	/* Every 64th byte a newline, written as "\n". */
	for (size_t i = 0; i < n; i++) {
		if (i % 64 == 63) {
			big[k++] = '\\';
			big[k++] = 'n';
		} else {
			big[k++] = 'a';
		}
	}
	k += (size_t)sprintf(big + k, "\"}}}\n");
	mcp_sendn(&m, big, k);
	for (;;) {
		r = mcp_recv(&m, 60000);
		ck_assert_ptr_nonnull(r);
		if (is_id(r, 2))
			break;
		cJSON_Delete(r);
	}
	res = cJSON_GetObjectItem(r, "result");
	ck_assert_msg(res != NULL && !is_error(res), "%s",
		      res ? text_of(res) : "an error response");
	cJSON_Delete(r);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, (long long)n);
	/* 40 MiB, its id last: answered, with that id. */
	k = (size_t)sprintf(big, "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\","
			    "\"params\":{\"name\":\"write_file\",\"arguments\":"
			    "{\"path\":\"big2.txt\",\"content\":\"");
	memset(big + k, 'b', 40u << 20);
	k += 40u << 20;
	k += (size_t)sprintf(big + k, "\"}},\"id\":3}\n");
	mcp_sendn(&m, big, k);
	r = mcp_recv(&m, 60000);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(rpc_error_code(r), -32600);
	ck_assert(is_id(r, 3));
	cJSON_Delete(r);
	free(path);
	path = wst_path(W, "big2.txt");
	ck_assert_int_ne(access(path, F_OK), 0);
	free(big);
	free(path);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/* The error code of a JSON-RPC error response, or 0. */
static int
rpc_error(const cJSON *j)
{
	const cJSON *e = cJSON_GetObjectItem(j, "error");

	return cJSON_IsNumber(cJSON_GetObjectItem(e, "code")) ?
		       (int)cJSON_GetObjectItem(e, "code")->valuedouble : 0;
}

/*
 * MCP lifecycle: until initialize is answered, only ping is; a tool call,
 * tools/list or an unknown method gets -32000 "Server not initialized"
 * naming initialize, and runs nothing (the file is not written).  A
 * failed initialize leaves the server uninitialized; the first that
 * succeeds opens the session, before notifications/initialized too.
 */
START_TEST(requests_wait_for_initialize)
{
	struct mcp m;
	cJSON *r;
	char *p = wst_path(W, "early.txt");

	mcp_start(&m, W);
	r = rpc(&m, 1, "tools/call", "{\"name\":\"write_file\",\"arguments\":"
		"{\"path\":\"early.txt\",\"content\":\"x\"}}");
	ck_assert_int_eq(rpc_error(r), -32000);
	ck_assert_ptr_nonnull(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(
		cJSON_GetObjectItem(r, "error"), "message")), "initialize"));
	cJSON_Delete(r);
	ck_assert(!wst_exists(p));
	r = rpc(&m, 2, "tools/list", NULL);
	ck_assert_int_eq(rpc_error(r), -32000);
	cJSON_Delete(r);
	r = rpc(&m, 3, "no/such", NULL);
	ck_assert_int_eq(rpc_error(r), -32000);
	cJSON_Delete(r);
	r = rpc(&m, 4, "ping", NULL);
	ck_assert_int_eq(rpc_error(r), 0);
	ck_assert(cJSON_IsObject(cJSON_GetObjectItem(r, "result")));
	cJSON_Delete(r);
	/* An initialize that fails opens nothing. */
	r = rpc(&m, 5, "initialize", "{}");
	ck_assert_int_eq(rpc_error(r), -32602);
	cJSON_Delete(r);
	r = rpc(&m, 6, "tools/list", NULL);
	ck_assert_int_eq(rpc_error(r), -32000);
	cJSON_Delete(r);
	r = rpc(&m, 7, "initialize", "{\"protocolVersion\":\"2025-06-18\","
		"\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}");
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(r, "result"));
	cJSON_Delete(r);
	/* Answered: calls are, even before notifications/initialized. */
	r = rpc(&m, 8, "tools/list", NULL);
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(r, "result"));
	cJSON_Delete(r);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	ck_assert(!is_error(call(&m, 9, "write_file",
				 "{\"path\":\"early.txt\",\"content\":\"x\"}", &r)));
	cJSON_Delete(r);
	ck_assert(wst_exists(p));
	ck_assert_int_eq(mcp_close(&m), 0);
	free(p);
}
END_TEST

/*
 * Strict arguments (issue 20): every tool refuses a key its tools/list
 * definition does not declare, INVALID_ARGUMENT naming each declared key,
 * though its binary takes more (write_file's edit, old and new, which
 * edit_file serves; read_file's page_lines).  The message lists what the
 * definition declares: "paths" too, no "page_" key.
 */
START_TEST(undeclared_keys_refused)
{
	struct mcp m;
	cJSON *r, *list;
	const cJSON *t;
	int id = 10, n = 0;

	mcp_start(&m, W);
	handshake(&m, NULL);
	list = rpc(&m, 2, "tools/list", NULL);
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(cJSON_GetObjectItem(list, "result"),
						 "tools")) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"));
		const cJSON *props = cJSON_GetObjectItem(
			cJSON_GetObjectItem(t, "inputSchema"), "properties");
		const cJSON *res, *p;
		const char *msg;

		res = call(&m, id++, name, "{\"undeclared_key\":1}", &r);
		ck_assert_str_eq(code_of(res), "INVALID_ARGUMENT");
		msg = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(
			cJSON_GetObjectItem(res, "structuredContent"), "error"), "message"));
		ck_assert_msg(strstr(msg, "\"undeclared_key\"") != NULL, "%s", msg);
		cJSON_ArrayForEach(p, props) {
			char want[128];

			snprintf(want, sizeof(want), " %s", p->string);
			ck_assert_msg(strstr(msg, want) != NULL, "%s: %s not in %s", name,
				      p->string, msg);
		}
		cJSON_Delete(r);
		n++;
	}
	ck_assert_int_ge(n, 9);
	cJSON_Delete(list);
	/* write_file's edit keys are edit_file's definition's. */
	wst_write(W, "e.txt", "hi\n");
	{
		const cJSON *res = call(&m, id++, "write_file",
					"{\"path\":\"e.txt\",\"edit\":true,"
					"\"old\":\"hi\",\"new\":\"ho\"}", &r);
		char *p = wst_path(W, "e.txt"), *c;

		ck_assert_str_eq(code_of(res), "INVALID_ARGUMENT");
		ck_assert_ptr_nonnull(strstr(text_of(res), "\"edit\""));
		cJSON_Delete(r);
		c = wst_slurp(p, NULL);
		ck_assert_str_eq(c, "hi\n");
		free(c);
		free(p);
	}
	{
		const cJSON *res = call(&m, id++, "read_file",
					"{\"path\":\"e.txt\",\"page_lines\":2}", &r);
		const char *valid;

		ck_assert_str_eq(code_of(res), "INVALID_ARGUMENT");
		valid = strstr(text_of(res), "valid arguments: ");
		ck_assert_ptr_nonnull(valid);
		ck_assert_ptr_nonnull(strstr(valid, " paths,"));
		ck_assert_ptr_null(strstr(valid, "page_"));
		cJSON_Delete(r);
	}
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * The text a model reads: a short summary of a change (an edit's diff),
 * one path a line for search --files, a hint for a binary file, and
 * control characters escaped in names (a "\n" cannot fake an entry).
 */
START_TEST(texts_for_a_model)
{
	struct mcp m;
	cJSON *r, *res;

	wst_write(W, "evil\nfake.txt", "x\n");
	wst_writen(W, "blob.bin", "\x00\x01\x02\xff", 4);
	mcp_start(&m, W);
	handshake(&m, NULL);
	res = call(&m, 2, "write_file", "{\"path\":\"w.txt\",\"content\":\"x\\n\"}", &r);
	ck_assert_str_eq(text_of(res), "wrote 2 bytes to /w.txt (new file)\n");
	cJSON_Delete(r);
	res = call(&m, 3, "edit_file", "{\"path\":\"w.txt\",\"old\":\"x\",\"new\":\"y\"}", &r);
	ck_assert_msg(strncmp(text_of(res), "edited /w.txt: 1 replacement\n--- /w.txt\n", 40) == 0,
		      "%s", text_of(res));
	ck_assert_ptr_nonnull(strstr(text_of(res), "\n-x\n+y\n"));
	cJSON_Delete(r);
	res = call(&m, 4, "delete_path", "{\"path\":\"w.txt\"}", &r);
	ck_assert_str_eq(text_of(res), "deleted /w.txt\n");
	cJSON_Delete(r);
	res = call(&m, 5, "read_file", "{\"path\":\"blob.bin\"}", &r);
	ck_assert_ptr_nonnull(strstr(text_of(res), "\"base64\": true"));
	cJSON_Delete(r);
	res = call(&m, 6, "list_directory", "{\"path\":\"/\"}", &r);
	ck_assert_ptr_nonnull(strstr(text_of(res), "evil\\nfake.txt\n"));
	ck_assert_ptr_null(strstr(text_of(res), "\nfake.txt"));
	cJSON_Delete(r);
	res = call(&m, 7, "search_files", "{\"output_mode\":\"files\"}", &r);
	ck_assert_ptr_nonnull(strstr(text_of(res), "/notes.md\n"));
	ck_assert_ptr_null(strstr(text_of(res), "{"));
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * read_file's text (issue 20): the whole file is its content alone; a
 * range, or a page of a long file, has a header line with the total and
 * numbered lines; a page of a long file says where to read on.
 */
/*
 * list_directory's text (issue 20): a recursive listing names each entry
 * by its path from the listed directory (which x.txt is where), and a
 * page says the true total, or "more than N" where the walk stopped
 * early, and the offset to read on with.
 */
START_TEST(list_directory_texts)
{
	struct mcp m;
	cJSON *r, *res;
	const char *t;

	wst_write(W, "t/a/x.txt", "");
	wst_write(W, "t/b/x.txt", "");
	wst_write(W, "t/top.txt", "");
	mcp_start(&m, W);
	handshake(&m, NULL);
	res = call(&m, 2, "list_directory", "{\"path\":\"/t\",\"recursive\":true}", &r);
	t = text_of(res);
	ck_assert_msg(strstr(t, "a/\n") && strstr(t, "b/\n") && strstr(t, "top.txt\n") &&
		      strstr(t, "a/x.txt\n") && strstr(t, "b/x.txt\n") &&
		      !strstr(t, "\nx.txt") && strncmp(t, "x.txt", 5) != 0, "%s", t);
	cJSON_Delete(r);
	res = call(&m, 3, "list_directory", "{\"path\":\"/t\",\"recursive\":true,"
		   "\"max_entries\":2}", &r);
	ck_assert_ptr_nonnull(strstr(text_of(res), "\n[truncated: entries 1-2 of more than 2; "
				     "read on with offset=2]\n"));
	cJSON_Delete(r);
	res = call(&m, 4, "list_directory", "{\"path\":\"/t\",\"max_entries\":1,"
		   "\"offset\":1}", &r);
	ck_assert_str_eq(text_of(res), "b/\n[truncated: entries 2-2 of 3; read on with "
			 "offset=2]\n");
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * A listing's text lines in order when plain names (gathered for one
 * write, issue 20) and names that need escaping or a symlink's target
 * (written as they come) take turns.
 */
START_TEST(list_directory_text_order)
{
	struct mcp m;
	cJSON *r, *res;

	wst_write(W, "o/a.txt", "");
	wst_write(W, "o/b\tc", "");
	wst_write(W, "o/c/x", "");
	wst_write(W, "o/d\\e", "");
	wst_symlink("a.txt", W, "o/e");
	wst_write(W, "o/f\x01", "");
	wst_write(W, "o/g", "");
	mcp_start(&m, W);
	handshake(&m, NULL);
	res = call(&m, 2, "list_directory", "{\"path\":\"/o\"}", &r);
	ck_assert_str_eq(text_of(res), "a.txt\nb\\tc\nc/\nd\\\\e\ne -> a.txt\n"
			 "f\\x01\ng\n");
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * The keys of the entry at index i of a listing's structuredContent, as
 * "name,type,..." in the order written (malloc'd).
 */
static char *
entry_keys(const cJSON *res, int i)
{
	const cJSON *e = cJSON_GetArrayItem(sc(res, "entries"), i), *k;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	ck_assert_msg(cJSON_IsObject(e), "%s", text_of(res));
	cJSON_ArrayForEach(k, e)
		fprintf(f, "%s%s", k == e->child ? "" : ",", k->string);
	fclose(f);
	return out;
}

/*
 * A model's listing is lean (issue 20): each entry has its name and type
 * (a symlink its target), what the text shows and what needs no stat(2)
 * of each entry; the path, which only repeats the listed directory's
 * before the name, comes in a recursive listing, where it says where an
 * entry is, and with "directory"; the size with "long" or sorted by size,
 * the mtime with "long" or sorted by mtime.  The command line's JSON
 * keeps name, path, type, size.
 */
START_TEST(list_directory_lean_entries)
{
	static const struct {
		const char *args, *keys;
	} cases[] = {
		{"{\"path\":\"/l\"}", "name,type"},
		{"{\"path\":\"/l\",\"long\":true}", "name,type,size,mtime,mode,version"},
		{"{\"path\":\"/l\",\"sort\":\"size\"}", "name,type,size"},
		{"{\"path\":\"/l\",\"sort\":\"mtime\"}", "name,type,mtime"},
		{"{\"path\":\"/l\",\"recursive\":true}", "name,path,type"},
		{"{\"path\":\"/l/a.txt\",\"directory\":true}", "name,path,type"},
	};
	struct mcp m;
	struct wst_run cl;
	cJSON *r, *res;
	char *k;

	wst_write(W, "l/a.txt", "abc");
	mcp_start(&m, W);
	handshake(&m, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		res = call(&m, 2 + (int)i, "list_directory", cases[i].args, &r);
		ck_assert_msg(!is_error(res), "%s", text_of(res));
		k = entry_keys(res, 0);
		ck_assert_msg(strcmp(k, cases[i].keys) == 0, "%s: %s, not %s",
			      cases[i].args, k, cases[i].keys);
		free(k);
		cJSON_Delete(r);
	}
	ck_assert_int_eq(mcp_close(&m), 0);
	wst_run(&cl, NULL, "wsls", "--json", "--workspace", W, "l", NULL);
	ck_assert_int_eq(cl.status, 0);
	ck_assert_int_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(
		wst_output(&cl, "entries"), 0), "size")), 3);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(
		wst_output(&cl, "entries"), 0), "path")), "/l/a.txt");
	wst_run_free(&cl);
}
END_TEST

/*
 * search_files (issue 20): counts are text for the model, a page says
 * the offset to read on with and what is known of the total, and
 * max_results 0 is "as many as the ceiling allows", as tools/list says
 * (it was the default, 50).
 */
START_TEST(search_files_texts)
{
	struct mcp m;
	cJSON *r, *res;
	char *hits = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&hits, &len);

	for (int i = 1; i <= 60; i++)
		fprintf(f, "hit %d\n", i);
	fclose(f);
	wst_write(W, "s/hits.txt", hits);
	wst_write(W, "s/two.txt", "hit\nhit\n");
	free(hits);
	mcp_start(&m, W);
	handshake(&m, NULL);
	res = call(&m, 2, "search_files", "{\"pattern\":\"hit\",\"paths\":[\"/s\"],"
		   "\"output_mode\":\"count\"}", &r);
	ck_assert_str_eq(text_of(res), "/s/hits.txt:60\n/s/two.txt:2\n");
	cJSON_Delete(r);
	res = call(&m, 3, "search_files", "{\"pattern\":\"hit\",\"paths\":[\"/s/hits.txt\"],"
		   "\"max_results\":2,\"offset\":4}", &r);
	ck_assert_str_eq(text_of(res), "/s/hits.txt:5:hit 5\n/s/hits.txt:6:hit 6\n"
			 "[truncated (max_results): results 5-6 of more than 6; read on "
			 "with offset=6]\n");
	cJSON_Delete(r);
	res = call(&m, 4, "search_files", "{\"pattern\":\"hit\",\"paths\":[\"/s/hits.txt\"],"
		   "\"max_results\":0}", &r);
	ck_assert_int_eq(cJSON_GetArraySize(sc(res, "matches")), 60);
	ck_assert_ptr_null(strstr(text_of(res), "[truncated"));
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * An image or audio file read by read_file comes as an image or audio
 * block, as the reference's read_media_file gives it, with
 * structuredContent its metadata only; other bytes asked as base64 come
 * once in the text, after a line saying what they are (issue 20: the
 * base64 was inside JSON text, and twice).
 */
START_TEST(read_file_media)
{
	static const struct {
		const char *name, *bytes, *b64, *type, *mime;
		size_t n;
	} media[] = {
		{"m/a.png", "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "iVBORw0KGgoAAAANSUhEUg==",
		 "image", "image/png", 16},
		{"m/b.gif", "GIF89a\x01\0\x01\0\0\0\0;", "R0lGODlhAQABAAAAADs=",
		 "image", "image/gif", 14},
		{"m/c.wav", "RIFF\x24\0\0\0WAVEfmt ", "UklGRiQAAABXQVZFZm10IA==",
		 "audio", "audio/wav", 16},
	};
	struct mcp m;
	cJSON *r, *res;

	for (size_t i = 0; i < 3; i++)
		wst_writen(W, media[i].name, media[i].bytes, media[i].n);
	wst_writen(W, "m/d.wav", "\0\1\2\3\4\5\6\7\0\1\2\3\4\5\6\7", 16);
	mcp_start(&m, W);
	handshake(&m, NULL);
	for (size_t i = 0; i < 3; i++) {
		char args[64];
		const cJSON *blk;

		snprintf(args, sizeof(args), "{\"path\":\"%s\"}", media[i].name);
		res = call(&m, 2 + (int)i, "read_file", args, &r);
		ck_assert_msg(!is_error(res), "%s", text_of(res));
		blk = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "content"), 1);
		ck_assert_msg(blk != NULL, "%s: no media block: %s", media[i].name,
			      text_of(res));
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(blk, "type")),
				 media[i].type);
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(blk, "mimeType")),
				 media[i].mime);
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(blk, "data")),
				 media[i].b64);
		/* The text is one line about the file; no second copy. */
		ck_assert_ptr_null(strstr(text_of(res), media[i].b64));
		ck_assert_ptr_null(sc(res, "content"));
		ck_assert_str_eq(cJSON_GetStringValue(sc(res, "mime_type")), media[i].mime);
		cJSON_Delete(r);
	}
	/* Named .wav, not WAVE inside: no audio block. */
	res = call(&m, 8, "read_file", "{\"path\":\"m/d.wav\"}", &r);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(res, "content")), 1);
	cJSON_Delete(r);
	res = call(&m, 9, "read_file", "{\"path\":\"m/d.wav\",\"base64\":true}", &r);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(res, "content")), 1);
	ck_assert_str_eq(text_of(res), "[base64 of /m/d.wav: 16 bytes, "
			 "application/octet-stream]\nAAECAwQFBgcAAQIDBAUGBw==\n");
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);

	/*
	 * The compat mode's read_media_file reads the bytes from read_file's
	 * output: the native call must not turn them into a block of its
	 * own (the table's first version did, and the compat call failed
	 * with "the native read gave no whole base64 content").
	 */
	mcp_start(&m, "--compat", "mcp-filesystem", W);
	handshake(&m, NULL);
	for (size_t i = 0; i < 3; i++) {
		char args[4200];
		const cJSON *blk;

		snprintf(args, sizeof(args), "{\"path\":\"%s/%s\"}", W, media[i].name);
		res = call(&m, 20 + (int)i, "read_media_file", args, &r);
		ck_assert_msg(!is_error(res), "%s: %s", media[i].name, text_of(res));
		blk = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "content"), 0);
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(blk, "type")),
				 media[i].type);
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(blk, "data")),
				 media[i].b64);
		cJSON_Delete(r);
	}
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * The response line to request id (sent by the caller), as the server
 * wrote it (malloc'd): the bytes, not a parse of them.
 */
static char *
recv_raw(struct mcp *m, int id)
{
	for (;;) {
		cJSON *j;
		char *nl, *line;
		size_t ll;

		/* mcp_recv() consumes a line: peek at it first. */
		while ((nl = m->len ? memchr(m->buf, '\n', m->len) : NULL) == NULL) {
			struct pollfd pf = {.fd = m->out, .events = POLLIN};
			ssize_t r;

			ck_assert_int_gt(poll(&pf, 1, (int)(20000 * WST_SLOWDOWN)), 0);
			if (m->len + 65536 > m->cap) {
				m->cap = (m->len + 65536) * 2;
				m->buf = realloc(m->buf, m->cap);
				ck_assert_ptr_nonnull(m->buf);
			}
			r = read(m->out, m->buf + m->len, m->cap - m->len);
			ck_assert_int_gt(r, 0);
			m->len += (size_t)r;
		}
		ll = (size_t)(nl - m->buf);
		line = strndup(m->buf, ll);
		j = mcp_recv(m, 1000);
		if (is_id(j, id)) {
			cJSON_Delete(j);
			return line;
		}
		cJSON_Delete(j);
		free(line);
	}
}

/*
 * No printed JSON is parsed again (issue 20): read_file's
 * structuredContent is, byte for byte, the output the command line
 * prints, also when one of several paths failed and the error is added
 * beside it (a form feed is "\u000c" as the tools write it; cJSON would
 * print it again as "\f").
 */
START_TEST(structured_content_as_printed)
{
	static const char *const cases[][2] = {
		{"{\"path\":\"ff.txt\"}", "ff.txt"},
		{"{\"paths\":[\"ff.txt\",\"missing.txt\"]}", "missing.txt"},
	};
	struct mcp m;

	wst_write(W, "ff.txt", "page\fbreak\n");
	mcp_start(&m, W);
	handshake(&m, NULL);
	for (size_t i = 0; i < 2; i++) {
		struct wst_run r;
		char *line, *sc, *out, *end;
		size_t n;

		if (i == 0)
			wst_run(&r, NULL, "wsread", "--json", "--paths", "virtual",
				"--workspace", W, "ff.txt", NULL);
		else
			wst_run(&r, NULL, "wsread", "--json", "--paths", "virtual",
				"--workspace", W, "ff.txt", "missing.txt", NULL);
		mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"read_file\",\"arguments\":%s}}",
			 (int)i + 2, cases[i][0]);
		line = recv_raw(&m, (int)i + 2);
		out = strstr(r.out, "\"output\":");
		end = strstr(r.out, ",\"error\":");
		sc = strstr(line, "\"structuredContent\":");
		ck_assert(out != NULL && end != NULL && sc != NULL);
		out += strlen("\"output\":");
		sc += strlen("\"structuredContent\":");
		/* Success: the whole output; failure: all but its closing brace. */
		n = (size_t)(end - out) - (i == 1);
		ck_assert_msg(strstr(out, "\\u000c") != NULL, "%s", r.out);
		ck_assert_msg(strncmp(sc, out, n) == 0, "MCP: %.*s\nCLI: %.*s",
			      (int)n, sc, (int)n, out);
		free(line);
		wst_run_free(&r);
	}
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * structuredContent (issue 20): the native server serves virtual paths
 * only (no real_path anywhere, no host layout), and run_command's
 * isolation comes on the first run and then only when it differs (every
 * run with --verbose).
 */
START_TEST(structured_content_lean)
{
	struct mcp m;
	cJSON *r, *res;
	char *t;

	for (int verbose = 0; verbose < 2; verbose++) {
		if (verbose)
			mcp_start(&m, "--verbose", W);
		else
			mcp_start(&m, W);
		handshake(&m, NULL);
		if (!verbose) {
			static const char *const calls[][2] = {
				{"list_directory", "{\"path\":\"/\",\"recursive\":true}"},
				{"read_file", "{\"path\":\"notes.md\"}"},
				{"read_file", "{\"paths\":[\"notes.md\",\"src/a.c\"]}"},
				{"search_files", "{\"pattern\":\"int\"}"},
				{"search_files", "{\"pattern\":\"int\",\"output_mode\":\"count\"}"},
				{"write_file", "{\"path\":\"w.txt\",\"content\":\"w\"}"},
				{"move_path", "{\"source\":\"w.txt\",\"destination\":\"v.txt\"}"},
				{"delete_path", "{\"path\":\"v.txt\"}"},
			};

			for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
				res = call(&m, 10 + (int)i, calls[i][0], calls[i][1], &r);
				ck_assert_msg(!is_error(res), "%s", text_of(res));
				t = cJSON_PrintUnformatted(cJSON_GetObjectItem(res,
									       "structuredContent"));
				ck_assert_msg(strstr(t, "real_path") == NULL &&
					      strstr(t, T) == NULL, "%s: %s", calls[i][0], t);
				free(t);
				cJSON_Delete(r);
			}
		}
		res = call(&m, 2, "run_command", "{\"command\":[\"true\"]}", &r);
		ck_assert(cJSON_IsObject(sc(res, "isolation")));
		cJSON_Delete(r);
		res = call(&m, 3, "run_command", "{\"command\":[\"true\"]}", &r);
		ck_assert_msg(!is_error(res), "%s", text_of(res));
		ck_assert_int_eq(cJSON_IsObject(sc(res, "isolation")), verbose);
		ck_assert_int_eq(cJSON_GetNumberValue(sc(res, "exit_code")), 0);
		cJSON_Delete(r);
		ck_assert_int_eq(mcp_close(&m), 0);
	}
}
END_TEST

/* The contents of file path (malloc'd). */
static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int c;

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	while ((c = getc(f)) != EOF)
		putc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

/*
 * Check one client configuration snippet: it parses, and every server in
 * it runs wstools mcp by an absolute path.  Returns the number of servers.
 */
static int
check_snippet(const char *where, const char *text)
{
	cJSON *j = cJSON_Parse(text), *servers, *sv;
	int n = 0;

	ck_assert_msg(j != NULL, "%s: a snippet that is not JSON:\n%s", where, text);
	servers = cJSON_GetObjectItem(j, "mcpServers");
	if (servers == NULL)
		servers = cJSON_GetObjectItem(j, "servers");
	ck_assert_msg(cJSON_IsObject(servers), "%s: no mcpServers/servers:\n%s", where, text);
	cJSON_ArrayForEach(sv, servers) {
		const char *cmd = cJSON_GetStringValue(cJSON_GetObjectItem(sv, "command"));
		const cJSON *args = cJSON_GetObjectItem(sv, "args");

		ck_assert_msg(cmd != NULL && cmd[0] == '/', "%s: command: %s", where, text);
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(args, 0)), "mcp");
		n++;
	}
	cJSON_Delete(j);
	return n;
}

/*
 * The client configurations in the README and docs/mcp.md (```json blocks) and in
 * wstools-mcp(1) (.Bd -literal blocks that start with "{") parse, and
 * each kind of client (Claude Desktop and Cursor, Claude Code, VS Code)
 * has one in both.
 */
START_TEST(config_snippets_parse)
{
	/* The README shows one; docs/mcp.md has each client's (issue 24). */
	char *readme = NULL, *one, *two;
	char *man = slurp(WST_SRC_ROOT "/man/wstools-mcp.1");
	size_t n1, n2;

	one = slurp(WST_SRC_ROOT "/README.md");
	two = slurp(WST_SRC_ROOT "/docs/mcp.md");
	n1 = strlen(one);
	n2 = strlen(two);
	readme = malloc(n1 + n2 + 1);
	ck_assert_ptr_nonnull(readme);
	memcpy(readme, one, n1);
	memcpy(readme + n1, two, n2 + 1);
	free(one);
	free(two);
	int readme_n = 0, man_n = 0;
	bool vscode = false, code = false;

	for (char *p = readme; (p = strstr(p, "\n```json\n")) != NULL;) {
		char *b = p + 9, *e = strstr(b, "\n```\n");

		ck_assert_ptr_nonnull(e);
		*e = '\0';
		if (strstr(b, "mcpServers") || strstr(b, "\"servers\"")) {
			readme_n += check_snippet("README.md or docs/mcp.md", b);
			vscode |= strstr(b, "${workspaceFolder}") != NULL;
			code |= strstr(b, "\"type\": \"stdio\"") != NULL &&
				strstr(b, "mcpServers") != NULL;
		}
		p = e + 1;
	}
	ck_assert_msg(vscode && code, "docs/mcp.md: no VS Code or Claude Code snippet");
	vscode = code = false;
	for (char *p = man; (p = strstr(p, "\n.Bd -literal -offset indent\n{")) != NULL;) {
		char *b = p + 29, *e = strstr(b, "\n.Ed\n");

		ck_assert_ptr_nonnull(e);
		*e = '\0';
		/* No roff escapes in them: what is shown is the JSON. */
		ck_assert_msg(strchr(b, '\\') == NULL, "man: an escape in %s", b);
		man_n += check_snippet("wstools-mcp.1", b);
		vscode |= strstr(b, "${workspaceFolder}") != NULL;
		code |= strstr(b, "\"type\": \"stdio\"") != NULL &&
			strstr(b, "mcpServers") != NULL;
		p = e + 1;
	}
	ck_assert_msg(vscode && code, "man: no VS Code or Claude Code snippet");
	ck_assert_int_ge(readme_n, 4);
	ck_assert_int_ge(man_n, 4);
	free(readme);
	free(man);
}
END_TEST

START_TEST(read_file_texts)
{
	struct mcp m;
	cJSON *r, *res;
	char *big = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&big, &len);

	for (int i = 1; i <= 2500; i++)
		fprintf(f, "line %d\n", i);
	fclose(f);
	wst_write(W, "big.txt", big);
	free(big);
	mcp_start(&m, W);
	handshake(&m, NULL);
	res = call(&m, 2, "read_file", "{\"path\":\"notes.md\"}", &r);
	ck_assert_str_eq(text_of(res), "one\ntwo\nthree\n");
	cJSON_Delete(r);
	res = call(&m, 3, "read_file", "{\"path\":\"big.txt\",\"start_line\":120,"
		   "\"end_line\":121}", &r);
	ck_assert_str_eq(text_of(res), "[lines 120-121 of 2500]\n"
			 "   120\tline 120\n   121\tline 121\n");
	/* structuredContent keeps the content as it is. */
	ck_assert_str_eq(cJSON_GetStringValue(sc(res, "content")), "line 120\nline 121\n");
	cJSON_Delete(r);
	res = call(&m, 4, "read_file", "{\"path\":\"notes.md\",\"tail\":1}", &r);
	ck_assert_str_eq(text_of(res), "[lines 3-3 of 3]\n     3\tthree\n");
	cJSON_Delete(r);
	/* Numbered once when the model asked for line numbers itself. */
	res = call(&m, 5, "read_file", "{\"path\":\"notes.md\",\"start_line\":2,"
		   "\"line_numbers\":true}", &r);
	ck_assert_str_eq(text_of(res), "[lines 2-3 of 3]\n     2\ttwo\n     3\tthree\n");
	cJSON_Delete(r);
	/*
	 * FTU9 8: the first page of a long file is numbered as the next
	 * pages are, so the line numbers a model edits by are the same.
	 */
	res = call(&m, 6, "read_file", "{\"path\":\"big.txt\"}", &r);
	ck_assert_msg(strncmp(text_of(res), "[lines 1-2000 of 2500]\n     1\tline 1\n",
			      37) == 0, "%.80s", text_of(res));
	ck_assert_ptr_nonnull(strstr(text_of(res), "\n  2000\tline 2000\n[truncated: 2000 "
				     "of 2500 lines shown; read on with start_line=2001]\n"));
	cJSON_Delete(r);
	res = call(&m, 7, "read_file", "{\"path\":\"big.txt\",\"start_line\":2001}", &r);
	ck_assert_msg(strncmp(text_of(res), "[lines 2001-2500 of 2500]\n  2001\tline 2001\n",
			      43) == 0, "%.80s", text_of(res));
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/* Is v of JSON-Schema type t ("integer" is a number without fraction)? */
static bool
schema_type_is(const cJSON *v, const char *t)
{
	if (strcmp(t, "null") == 0)
		return cJSON_IsNull(v);
	if (strcmp(t, "boolean") == 0)
		return cJSON_IsBool(v);
	if (strcmp(t, "string") == 0)
		return cJSON_IsString(v);
	if (strcmp(t, "object") == 0)
		return cJSON_IsObject(v);
	if (strcmp(t, "array") == 0)
		return cJSON_IsArray(v);
	if (strcmp(t, "number") == 0)
		return cJSON_IsNumber(v);
	if (strcmp(t, "integer") == 0)
		return cJSON_IsNumber(v) && v->valuedouble == (double)(long long)v->valuedouble;
	return false;
}

/*
 * A JSON-Schema subset checker (type, also as an array, properties,
 * required, items, enum of strings): NULL if v conforms, else where not.
 */
static const char *
schema_check(const cJSON *v, const cJSON *schema, const char *where)
{
	static char why[512];
	const cJSON *type = cJSON_GetObjectItem(schema, "type"), *t, *p;
	bool ok = type == NULL;

	if (cJSON_IsString(type))
		ok = schema_type_is(v, type->valuestring);
	if (cJSON_IsArray(type))
		cJSON_ArrayForEach(t, type)
			ok = ok || schema_type_is(v, t->valuestring);
	if (!ok) {
		char *txt = cJSON_PrintUnformatted(v), *ty = cJSON_PrintUnformatted(type);

		snprintf(why, sizeof(why), "%s: %.200s is not of type %s", where,
			 txt ? txt : "?", ty ? ty : "?");
		free(txt);
		free(ty);
		return why;
	}
	if (cJSON_IsArray(cJSON_GetObjectItem(schema, "enum")) && cJSON_IsString(v)) {
		ok = false;
		cJSON_ArrayForEach(t, cJSON_GetObjectItem(schema, "enum"))
			ok = ok || strcmp(cJSON_GetStringValue(t), v->valuestring) == 0;
		if (!ok) {
			snprintf(why, sizeof(why), "%s: \"%s\" not in enum", where, v->valuestring);
			return why;
		}
	}
	if (cJSON_IsObject(v)) {
		cJSON_ArrayForEach(t, cJSON_GetObjectItem(schema, "required"))
			if (cJSON_GetObjectItem(v, t->valuestring) == NULL) {
				snprintf(why, sizeof(why), "%s: %s is required", where,
					 t->valuestring);
				return why;
			}
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(schema, "properties")) {
			const cJSON *c = cJSON_GetObjectItem(v, p->string);
			char sub[256];
			const char *e;

			if (c == NULL)
				continue;
			snprintf(sub, sizeof(sub), "%s.%s", where, p->string);
			if ((e = schema_check(c, p, sub)) != NULL)
				return e;
		}
	}
	if (cJSON_IsArray(v) && cJSON_IsObject(cJSON_GetObjectItem(schema, "items"))) {
		int k = 0;

		cJSON_ArrayForEach(t, v) {
			char sub[256];
			const char *e;

			snprintf(sub, sizeof(sub), "%s[%d]", where, k++);
			if ((e = schema_check(t, cJSON_GetObjectItem(schema, "items"), sub)) != NULL)
				return e;
		}
	}
	return NULL;
}

/*
 * structuredContent conforms to the outputSchema tools/list advertises,
 * for the shapes that hold nulls and odd values: binary and invalid UTF-8
 * files, an empty file, symlinks in a listing, a search without a match,
 * a command that times out, and the errors.
 */
START_TEST(output_schemas_hold)
{
	static const char *const calls[][2] = {
		{"read_file", "{\"path\":\"notes.md\"}"},
		{"read_file", "{\"path\":\"bin.dat\"}"},
		{"read_file", "{\"path\":\"bin.dat\",\"base64\":true}"},
		{"read_file", "{\"path\":\"bad.txt\"}"},
		{"read_file", "{\"path\":\"empty.txt\"}"},
		{"read_file", "{\"path\":\"notes.md\",\"tail\":1}"},
		{"read_file", "{\"paths\":[\"notes.md\",\"ln\"]}"},
		{"read_file", "{\"path\":\"nope\"}"},
		{"list_directory", "{\"path\":\"/\",\"all\":true}"},
		{"list_directory", "{\"path\":\"/\",\"long\":true,\"all\":true}"},
		{"list_directory", "{\"path\":\"/\",\"recursive\":true}"},
		{"list_directory", "{\"paths\":[\"/\",\"src\"]}"},
		{"search_files", "{\"pattern\":\"zzz-no-match\"}"},
		{"search_files", "{\"pattern\":\"int\"}"},
		{"search_files", "{\"output_mode\":\"files\"}"},
		{"search_files", "{\"pattern\":\"o\",\"output_mode\":\"count\"}"},
		{"search_files", "{\"pattern\":\"int\",\"paths\":[\"nope\",\"src\"]}"},
		{"search_files", "{\"output_mode\":\"files\",\"paths\":[\"src\",\"out\"]}"},
		{"write_file", "{\"path\":\"w.txt\",\"content\":\"x\"}"},
		{"edit_file", "{\"path\":\"w.txt\",\"old\":\"x\",\"new\":\"y\"}"},
		{"create_directory", "{\"path\":\"d\"}"},
		{"move_path", "{\"source\":\"w.txt\",\"destination\":\"d/w.txt\"}"},
		{"delete_path", "{\"path\":\"d\",\"recursive\":true}"},
		{"run_command", "{\"command\":[\"true\"]}"},
		{"run_command", "{\"command\":\"printf '\\\\377'\"}"},
		{"run_command", "{\"command\":[\"sleep\",\"5\"],\"timeout\":0.3}"},
	};
	struct mcp m;
	cJSON *r, *list;
	const cJSON *t;
	char bin[256];

	for (int i = 0; i < 256; i++)
		bin[i] = (char)i;
	wst_writen(W, "bin.dat", bin, sizeof(bin));
	wst_write(W, "bad.txt", "ok\xff\xfe\n");
	wst_write(W, "empty.txt", "");
	wst_symlink("notes.md", W, "ln");
	wst_symlink("/etc", W, "out");
	mcp_start(&m, W);
	handshake(&m, NULL);
	list = rpc(&m, 2, "tools/list", NULL);
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		const cJSON *res = call(&m, 10 + (int)i, calls[i][0], calls[i][1], &r);
		const cJSON *schema = NULL;
		const char *e;

		cJSON_ArrayForEach(t, cJSON_GetObjectItem(cJSON_GetObjectItem(list, "result"),
							 "tools"))
			if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")),
				   calls[i][0]) == 0)
				schema = cJSON_GetObjectItem(t, "outputSchema");
		ck_assert_ptr_nonnull(schema);
		e = schema_check(cJSON_GetObjectItem(res, "structuredContent"), schema,
				 "structuredContent");
		ck_assert_msg(e == NULL, "%s %s: %s", calls[i][0], calls[i][1], e);
		cJSON_Delete(r);
	}
	cJSON_Delete(list);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

static int
count_fds(pid_t pid)
{
	char p[64];
	int n = 0;
	FILE *f;
	char cmd[128];

	snprintf(p, sizeof(p), "/proc/%d/fd", (int)pid);
	snprintf(cmd, sizeof(cmd), "ls %s | wc -l", p);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &n), 1);
	pclose(f);
	return n;
}

static long
rss_kb(pid_t pid)
{
	char p[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

START_TEST(ten_thousand_calls)
{
	struct mcp m;
	int fds0 = 0;
	long rss0 = 0;
	const int total = 10000, warm = 1000;

	mcp_start(&m, W);
	handshake(&m, NULL);
	for (int i = 0; i < total; i++) {
		cJSON *j;
		const cJSON *res;

		if (i % 2 == 0)
			mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
				 "\"params\":{\"name\":\"read_file\",\"arguments\":"
				 "{\"path\":\"notes.md\"}}}", 100 + i);
		else
			mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
				 "\"params\":{\"name\":\"list_directory\",\"arguments\":"
				 "{\"path\":\"src\"}}}", 100 + i);
		j = mcp_recv(&m, 10000);
		ck_assert_msg(j != NULL && is_id(j, 100 + i), "call %d unanswered", i);
		res = cJSON_GetObjectItem(j, "result");
		ck_assert_msg(!is_error(res), "call %d: %s", i, text_of(res));
		cJSON_Delete(j);
		if (i == warm) {
			fds0 = count_fds(m.pid);
			rss0 = rss_kb(m.pid);
		}
	}
	ck_assert_int_eq(count_fds(m.pid), fds0);
#if WST_SLOWDOWN_BUILD == 1
	/* ASan's quarantine holds freed memory: bound RSS only without it. */
	ck_assert_msg(rss_kb(m.pid) - rss0 < 2048, "RSS grew from %ld to %ld kB",
		      rss0, rss_kb(m.pid));
#else
	(void)rss0;
#endif
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/* ---- Calls side by side (issue 20) ----------------------------------- */

/* Send a tools/call with a numeric id, and a progress token if tok. */
static void
send_call(struct mcp *m, int id, const char *tool, const char *args, const char *tok)
{
	if (tok != NULL)
		mcp_send(m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"%s\",\"arguments\":%s,"
			 "\"_meta\":{\"progressToken\":%s}}}", id, tool, args, tok);
	else
		mcp_send(m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"%s\",\"arguments\":%s}}", id, tool,
			 args);
}

/* The next message, which must come within timeout_ms. */
static cJSON *
must_recv(struct mcp *m, int timeout_ms, const char *waiting_for)
{
	cJSON *j = mcp_recv(m, timeout_ms);

	ck_assert_msg(j != NULL, "nothing came while waiting for %s", waiting_for);
	return j;
}

/*
 * A read sent while a 3 s command runs is answered at once, before the
 * command (one call at a time, it waited 2.9 s).
 */
START_TEST(read_during_command)
{
	struct mcp m;
	long long t0, took;
	cJSON *j;

	mcp_start(&m, W);
	handshake(&m, NULL);
	send_call(&m, 2, "run_command", "{\"command\":[\"sleep\",\"3\"]}", "\"run\"");
	ck_assert_int_eq(wait_progress(&m, "run", 5000), 0);
	/* The command is running (it reported elapsed time). */
	ck_assert_int_gt(wait_progress(&m, "run", 5000), 0);
	t0 = now_ms();
	send_call(&m, 3, "read_file", "{\"path\":\"notes.md\"}", NULL);
	for (;;) {
		j = must_recv(&m, 10000, "the read");
		ck_assert_msg(!is_id(j, 2), "the command was answered before the read");
		if (is_id(j, 3))
			break;
		cJSON_Delete(j);
	}
	took = now_ms() - t0;
	ck_assert(!is_error(cJSON_GetObjectItem(j, "result")));
	ck_assert_ptr_nonnull(strstr(text_of(cJSON_GetObjectItem(j, "result")), "two"));
	cJSON_Delete(j);
	ck_assert_msg(took < (long long)(1000 * WST_SLOWDOWN),
		      "the read took %lld ms beside the command", took);
	for (;;) {
		j = must_recv(&m, 10000, "the command");
		if (is_id(j, 2))
			break;
		cJSON_Delete(j);
	}
	ck_assert(!is_error(cJSON_GetObjectItem(j, "result")));
	cJSON_Delete(j);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * Review28 08: a move_path during a command's clean-up walk carried a
 * planted repository from a directory the walk had not read into one it
 * had, and the walk never saw it.  A changing call waits for the
 * command's run and clean-up: the write sent while the command runs is
 * answered after it, and done; a read is not held (read_during_command).
 * ftu17 03: its progress while it waits reads on its own, with the end
 * of the wait, which is the total.
 */
START_TEST(write_waits_for_command)
{
	struct mcp m;
	cJSON *j;
	bool ran = false, said = false;

	mcp_start(&m, W);
	handshake(&m, NULL);
	send_call(&m, 2, "run_command", "{\"command\":[\"sleep\",\"2\"]}", "\"run\"");
	ck_assert_int_eq(wait_progress(&m, "run", 5000), 0);
	ck_assert_int_gt(wait_progress(&m, "run", 5000), 0);
	send_call(&m, 3, "write_file", "{\"path\":\"w.txt\",\"content\":\"w\"}", "\"w\"");
	for (;;) {
		j = must_recv(&m, 20000, "the calls");
		if (method_of(j) != NULL &&
		    strcmp(method_of(j), "notifications/progress") == 0) {
			const cJSON *p = cJSON_GetObjectItem(j, "params");
			const char *tok = cJSON_GetStringValue(
				cJSON_GetObjectItem(p, "progressToken"));
			const char *msg = cJSON_GetStringValue(
				cJSON_GetObjectItem(p, "message"));

			if (tok != NULL && strcmp(tok, "w") == 0 && msg != NULL &&
			    strncmp(msg, "waiting for", 11) == 0) {
				ck_assert_msg(strncmp(msg, "waiting for a command in this "
						      "workspace to end (", 48) == 0 &&
					      strstr(msg, " s of at most 45 s)") != NULL,
					      "%s", msg);
				ck_assert_int_eq((long long)cJSON_GetNumberValue(
					cJSON_GetObjectItem(p, "total")), 45000);
				said = true;
			}
		}
		if (is_id(j, 2)) {
			ck_assert(!is_error(cJSON_GetObjectItem(j, "result")));
			ran = true;
		}
		if (is_id(j, 3)) {
			ck_assert_msg(ran, "the write was answered before the command");
			ck_assert(!is_error(cJSON_GetObjectItem(j, "result")));
			ck_assert_msg(said, "no progress said what the write waits for");
			cJSON_Delete(j);
			break;
		}
		cJSON_Delete(j);
	}
	{
		char *p = wst_path(W, "w.txt"), *t = wst_slurp(p, NULL);

		ck_assert_str_eq(t, "w");
		free(t);
		free(p);
	}
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * Another process's command in W, from a thread: it runs until the test
 * makes W/sig/go (60 s at most), however slowly it starts (valgrind);
 * in a directory, which the virtual view shows live, unlike a new
 * top-level name.
 */
static void *
other_process_command(void *arg)
{
	const char *argv[] = {"--workspace", W, "--timeout", "120", "-c",
			      "i=0; while [ ! -e sig/go ] && [ $i -lt 600 ]; do "
			      "sleep 0.1; i=$((i+1)); done", NULL};
	char *out = NULL;
	size_t n = 0;

	(void)arg;
	(void)wst_spawn("wsrun", argv, NULL, &out, &n);
	free(out);
	return NULL;
}

/*
 * review30 05: a change made while another process's command runs in the
 * workspace waits for it; on the reader thread (the idle fast path) it
 * read nothing meanwhile, so a ping was answered only after the command
 * (8.3 s).  A change goes to a worker: the ping is answered first.
 */
START_TEST(change_waiting_keeps_reader)
{
	struct mcp m;
	pthread_t th;
	bool pinged = false;
	int fd, held = 0;
	cJSON *j;

	/*
	 * The valgrind pass wraps every tool run, and valgrind cannot set
	 * up wsrun's sandbox (tests/valgrind/run.sh): the other process's
	 * command would never start.  Checked in the other passes.
	 */
	if (getenv("WST_TOOL_WRAPPER") != NULL && *getenv("WST_TOOL_WRAPPER") != '\0') {
		fprintf(stderr, "change_waiting_keeps_reader: not checked under a "
			"tool wrapper (valgrind cannot run wsrun's sandbox)\n");
		return;
	}
	mcp_start(&m, W);
	handshake(&m, NULL);
	wst_write(W, "sig/.keep", "");
	ck_assert_int_eq(pthread_create(&th, NULL, other_process_command, NULL), 0);
	/* Until wsrun holds the workspace's lock. */
	fd = open(W, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	for (int i = 0; i < 6000 && !held; i++) {
		if (flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK)
			held = 1;
		else
			(void)flock(fd, LOCK_UN);
		if (!held)
			usleep(10000);
	}
	close(fd);
	ck_assert_msg(held, "the command never took the workspace's lock");
	send_call(&m, 3, "write_file", "{\"path\":\"w.txt\",\"content\":\"w\"}", NULL);
	usleep(300000);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}");
	for (;;) {
		j = must_recv(&m, 60000, "the calls");
		/* The ping answered: the command may end now. */
		if (is_id(j, 4)) {
			pinged = true;
			wst_write(W, "sig/go", "");
		}
		if (is_id(j, 3)) {
			ck_assert_msg(pinged, "the ping was answered after the "
				      "waiting change");
			ck_assert(!is_error(cJSON_GetObjectItem(j, "result")));
			cJSON_Delete(j);
			break;
		}
		cJSON_Delete(j);
	}
	pthread_join(th, NULL);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * Review30 01: two servers whose workspaces nest (W/proj and W).  A
 * write_file from the server on W into W/proj, sent while a command of
 * the server on W/proj runs, waits for the command's end and clean-up
 * (it reports that it waits), then is made.  The lock was the workspace
 * top's, W's for the one and W/proj's for the other: they never met.
 */
START_TEST(nested_server_write_waits_for_command)
{
	struct mcp m1, m2;
	char *proj = wst_path(W, "proj"), *ran = wst_path(proj, "ran");
	char *p, *t;
	bool waited = false;
	struct stat st;
	cJSON *j;

	ck_assert_int_eq(mkdir(proj, 0755), 0);
	mcp_start(&m1, proj);
	handshake(&m1, NULL);
	mcp_start(&m2, W);
	handshake(&m2, NULL);
	send_call(&m1, 2, "run_command",
		  "{\"command\":[\"sh\",\"-c\",\"sleep 2; touch ran\"]}", "\"run\"");
	ck_assert_int_eq(wait_progress(&m1, "run", 5000), 0);
	ck_assert_int_gt(wait_progress(&m1, "run", 5000), 0);
	send_call(&m2, 3, "write_file",
		  "{\"path\":\"proj/w.txt\",\"content\":\"w\"}", "\"w\"");
	for (;;) {
		j = must_recv(&m2, 20000, "the write");
		if (is_id(j, 3))
			break;
		waited = true; /* a progress report: it waits */
		cJSON_Delete(j);
	}
	ck_assert_msg(stat(ran, &st) == 0, "the write was answered before the "
		      "command of the server on W/proj ended");
	ck_assert(!is_error(cJSON_GetObjectItem(j, "result")));
	cJSON_Delete(j);
	ck_assert_msg(waited, "the write did not report that it waits");
	for (;;) {
		j = must_recv(&m1, 20000, "the command");
		if (is_id(j, 2))
			break;
		cJSON_Delete(j);
	}
	ck_assert(!is_error(cJSON_GetObjectItem(j, "result")));
	cJSON_Delete(j);
	p = wst_path(proj, "w.txt");
	t = wst_slurp(p, NULL);
	ck_assert_str_eq(t, "w");
	free(t);
	free(p);
	ck_assert_int_eq(mcp_close(&m1), 0);
	ck_assert_int_eq(mcp_close(&m2), 0);
	free(ran);
	free(proj);
}
END_TEST

/*
 * review31 02: a project marker a command makes (package.json at the
 * top, where go.mod above made PROJECT_ROOT) is taken as absent by the
 * server's other calls while the command runs, as before it and after
 * its revert: a read in parallel saw PROJECT_ROOT move to the workspace,
 * and a deny rule spelled through it matched nothing.  The real view,
 * where the command's file is on disk for its whole run.
 */
START_TEST(marker_made_during_run_ignored)
{
	char text[1024], *pol = wst_path(T, "pol.json");
	struct mcp m;
	cJSON *r, *res, *j;
	bool ran = false;

	wst_write(T, "go.mod", "module t\n");
	wst_write(T, "ws/secret/KEY", "KEY=hunter2\n");
	snprintf(text, sizeof(text),
		 "{\"version\": 1, \"file_rules\": ["
		 "{\"name\": \"no-secret\", \"paths\": [\"${PROJECT_ROOT}/ws/secret/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"deny\"},"
		 "{\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
		 " \"decision\": \"allow\"}]}");
	wst_write(T, "pol.json", text);
	force_real = true;
	mcp_start(&m, "--policy", pol, W);
	force_real = false;
	handshake(&m, NULL);
	res = call(&m, 2, "read_file", "{\"path\":\"secret/KEY\"}", &r);
	ck_assert_str_eq(code_of(res), "POLICY_DENIED");
	cJSON_Delete(r);
	send_call(&m, 3, "run_command", "{\"command\":[\"sh\",\"-c\","
		  "\"echo {} > package.json; echo made > made.txt; sleep 2\"]}",
		  "\"run\"");
	/* Until the command has made it. */
	for (int i = 0; i < 500; i++) {
		char *mk = wst_path(W, "made.txt");
		bool made = wst_exists(mk);

		free(mk);
		if (made)
			break;
		usleep(10000);
	}
	send_call(&m, 4, "read_file", "{\"path\":\"secret/KEY\"}", NULL);
	for (;;) {
		j = must_recv(&m, 20000, "the calls");
		if (is_id(j, 3))
			ran = true;
		if (is_id(j, 4)) {
			res = cJSON_GetObjectItem(j, "result");
			ck_assert_msg(!ran, "the read was answered after the command");
			ck_assert_msg(strstr(text_of(res), "hunter2") == NULL, "%s",
				      text_of(res));
			ck_assert_str_eq(code_of(res), "POLICY_DENIED");
			cJSON_Delete(j);
			break;
		}
		cJSON_Delete(j);
	}
	ck_assert_int_eq(mcp_close(&m), 0);
	free(pol);
}
END_TEST

/*
 * ftu12 05: commands in one workspace run one at a time, and a second
 * one waited for the first on a worker of its own; with --jobs 2 both
 * workers were on commands and a read sent after them waited for the
 * first to end.  run_commands take at most --jobs - 1 workers: the read
 * is answered before the first command, the second command after it.
 */
START_TEST(read_beside_queued_commands)
{
	struct mcp m;
	cJSON *j;
	bool read = false;

	mcp_start(&m, "--jobs", "2", W);
	handshake(&m, NULL);
	send_call(&m, 2, "run_command", "{\"command\":[\"sleep\",\"3\"]}", "\"run\"");
	ck_assert_int_eq(wait_progress(&m, "run", 5000), 0);
	/* The first is running; the second queues behind it, the read
	 * behind both. */
	send_call(&m, 3, "run_command", "{\"command\":[\"true\"]}", NULL);
	send_call(&m, 4, "read_file", "{\"path\":\"notes.md\"}", NULL);
	for (;;) {
		j = must_recv(&m, 20000, "the calls");
		if (is_id(j, 4)) {
			ck_assert(!is_error(cJSON_GetObjectItem(j, "result")));
			read = true;
		}
		ck_assert_msg(!is_id(j, 2) || read,
			      "the first command was answered before the read");
		ck_assert_msg(!is_id(j, 3) || read,
			      "the second command was answered before the read");
		if (is_id(j, 3)) {
			ck_assert(!is_error(cJSON_GetObjectItem(j, "result")));
			cJSON_Delete(j);
			break;
		}
		cJSON_Delete(j);
	}
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * review21 05: the workspace's lock was taken by polling, so a command
 * queued first could lose every race to the ones sent after it (answers
 * [100, 102, 103, 104, 105, 106, 101]).  Commands of one server take it
 * in the order they were sent: behind a first one that holds it, six
 * more, each waiting in the line, take it in order.
 */
START_TEST(commands_take_the_lock_in_order)
{
	struct mcp m;
	int next = 10;
	bool waiting[16] = {false};
	int nwaiting = 0;

	/*
	 * A worker for each command, so that all six wait in the line; the
	 * first is let go only once each of them said it waits (it joined
	 * the line), not after a fixed time: a slow machine (valgrind) once
	 * took longer than that to start two of them, and the one started
	 * first found the line empty.
	 */
	mcp_start(&m, "--jobs", "8", W);
	handshake(&m, NULL);
	/* In a directory of the workspace: a new top-level name would
	 * show only after the run, in the virtual view. */
	wst_mkdir(W, "sub");
	send_call(&m, 2, "run_command", "{\"command\":\"touch sub/started; sleep 120\","
		  "\"timeout\":300}", NULL);
	{
		char *started = wst_path(W, "sub/started");
		long long end = now_ms() + (long long)(20000 * WST_SLOWDOWN);

		while (!wst_exists(started) && now_ms() < end)
			usleep(10000);
		ck_assert_msg(wst_exists(started), "the first command did not start");
		free(started);
	}
	for (int i = 10; i < 16; i++) {
		char tok[16];

		char args[128];

		snprintf(tok, sizeof(tok), "%d", i);
		snprintf(args, sizeof(args), "{\"command\":\"echo %d >> sub/order\","
			 "\"timeout\":300}", i);
		send_call(&m, i, "run_command", args, tok);
	}
	while (nwaiting < 6) {
		cJSON *j = must_recv(&m, (int)(60000 * WST_SLOWDOWN), "the commands to wait");
		const cJSON *p = cJSON_GetObjectItem(j, "params");
		const cJSON *tok = cJSON_GetObjectItem(p, "progressToken");
		const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(p, "message"));

		ck_assert_msg(!cJSON_GetObjectItem(j, "id"), "unexpected response %s",
			      cJSON_PrintUnformatted(j));
		if (cJSON_IsNumber(tok) && tok->valueint >= 10 && tok->valueint < 16 &&
		    msg != NULL && strstr(msg, "waiting for another command") != NULL &&
		    !waiting[tok->valueint]) {
			waiting[tok->valueint] = true;
			nwaiting++;
		}
		cJSON_Delete(j);
	}
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":2}}");
	/*
	 * Each command writes its number while it holds the lock: the file
	 * says the order they took it in.  Not the answers' order, which
	 * the workers write after giving the lock back, as they get to it.
	 */
	while (next < 16) {
		cJSON *j = must_recv(&m, (int)(60000 * WST_SLOWDOWN), "the commands");
		const cJSON *id = cJSON_GetObjectItem(j, "id");

		if (cJSON_IsNumber(id) && id->valueint >= 10) {
			ck_assert_msg(!is_error(cJSON_GetObjectItem(j, "result")), "%s",
				      text_of(cJSON_GetObjectItem(j, "result")));
			next++;
		}
		cJSON_Delete(j);
	}
	ck_assert_int_eq(mcp_close(&m), 0);
	{
		char *order = wst_path(W, "sub/order"), *t = wst_slurp(order, NULL);

		ck_assert_str_eq(t, "10\n11\n12\n13\n14\n15\n");
		free(t);
		free(order);
	}
}
END_TEST

/*
 * review21 02: run_commands waiting for a worker or for the workspace's
 * lock counted against the reader's queue (qmax, 8 with --jobs 2): with
 * more of them queued, the server read nothing more, and a read_file
 * sent after them waited for them to end.  They are counted apart: the
 * read is answered at once, and a command past their own bound (8 times
 * qmax) is answered at once with LIMIT_EXCEEDED.
 */
START_TEST(read_behind_many_commands)
{
	struct mcp m;
	long long t0, end;
	bool read = false;
	int refused = 0;

	mcp_start(&m, "--jobs", "2", W);
	handshake(&m, NULL);
	send_call(&m, 2, "run_command", "{\"command\":[\"sleep\",\"60\"],\"timeout\":120}",
		  "\"run\"");
	ck_assert_int_eq(wait_progress(&m, "run", 5000), 0);
	/* One worker runs that one; 64 wait, 6 are past the bound. */
	for (int i = 10; i < 80; i++)
		send_call(&m, i, "run_command",
			  "{\"command\":[\"sleep\",\"60\"],\"timeout\":120}", NULL);
	t0 = now_ms();
	send_call(&m, 100, "read_file", "{\"path\":\"notes.md\"}", NULL);
	end = t0 + (long long)(20000 * WST_SLOWDOWN);
	while (!(read && refused == 6) && now_ms() < end) {
		cJSON *j = mcp_recv(&m, 500);
		const cJSON *id, *res;

		if (j == NULL)
			continue;
		id = cJSON_GetObjectItem(j, "id");
		res = cJSON_GetObjectItem(j, "result");
		if (cJSON_IsNumber(id) && id->valueint == 100) {
			ck_assert(!is_error(res));
			ck_assert_ptr_nonnull(strstr(text_of(res), "two"));
			read = true;
		} else if (cJSON_IsNumber(id)) {
			ck_assert_msg(id->valueint >= 74 && id->valueint < 80,
				      "command %d answered", id->valueint);
			ck_assert_str_eq(code_of(res), "LIMIT_EXCEEDED");
			refused++;
		}
		cJSON_Delete(j);
	}
	ck_assert_msg(read, "the read behind 65 commands was not answered in "
		      "%lld ms", now_ms() - t0);
	ck_assert_int_eq(refused, 6);
	for (int i = 10; i < 74; i++)
		mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
			 "\"params\":{\"requestId\":%d}}", i);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":2}}");
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * Two long calls, one cancelled: the other completes.  The second waits
 * for the person (an approval) while the first runs a command; the
 * cancel of the second ends only its wait.
 */
START_TEST(cancel_one_of_two)
{
	char *pol = approve_policy(), *notes = wst_path(W, "notes.md"),
	     *one = wst_path(W, "one.txt");
	struct mcp m;
	cJSON *j;
	int eid_one = -1, asked = 0;

	/*
	 * Two calls at once, each waiting for its approval (a command
	 * beside a change no longer runs with it: the change waits for
	 * it, review28 08).
	 */
	wst_write(W, "one.txt", "1\n");
	mcp_start(&m, "--policy", pol, W);
	handshake(&m, "{\"elicitation\":{}}");
	send_call(&m, 2, "delete_path", "{\"path\":\"one.txt\"}", NULL);
	send_call(&m, 3, "delete_path", "{\"path\":\"notes.md\"}", NULL);
	while (asked < 2) {
		const char *meth;

		j = must_recv(&m, 10000, "the approval questions");
		ck_assert_msg(!is_id(j, 2) && !is_id(j, 3), "a call ended unasked");
		meth = method_of(j);
		if (meth != NULL && strcmp(meth, "elicitation/create") == 0) {
			const char *q = cJSON_GetStringValue(cJSON_GetObjectItem(
				cJSON_GetObjectItem(j, "params"), "message"));

			asked++;
			if (q != NULL && strstr(q, "one.txt") != NULL)
				eid_one = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id"));
		}
		cJSON_Delete(j);
	}
	ck_assert_int_ge(eid_one, 0);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":3,\"reason\":\"test\"}}");
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"action\":"
		 "\"decline\"}}", eid_one);
	for (;;) {
		j = must_recv(&m, 20000, "the other call");
		ck_assert_msg(!is_id(j, 3), "the cancelled call was answered");
		if (is_id(j, 2))
			break;
		cJSON_Delete(j);
	}
	ck_assert_str_eq(code_of(cJSON_GetObjectItem(j, "result")), "APPROVAL_REQUIRED");
	cJSON_Delete(j);
	/* Nothing comes for the cancelled one, and the files are there. */
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}");
	for (;;) {
		j = must_recv(&m, 10000, "the ping");
		ck_assert_msg(!is_id(j, 3), "the cancelled call was answered");
		if (is_id(j, 9))
			break;
		cJSON_Delete(j);
	}
	cJSON_Delete(j);
	ck_assert_int_eq(access(notes, F_OK), 0);
	ck_assert_int_eq(access(one, F_OK), 0);
	ck_assert_int_eq(mcp_close(&m), 0);
	free(pol);
	free(notes);
	free(one);
}
END_TEST

/*
 * Progress of two calls that run side by side: each token gets its own
 * call's reports (a command's elapsed ms, a search's files), each
 * increasing, none after its call's answer; the search reports while
 * the command runs.
 */
START_TEST(progress_apart)
{
	struct mcp m;
	char line[32];
	long long last_run = -1, last_search = -1;
	int nrun = 0, nsearch = 0, answered = 0;
	bool run_done = false, search_done = false, search_beside = false;

	memset(line, 'a', 26);
	line[26] = '\n';
	line[27] = '\0';
	for (int i = 0; i < 3000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "slow/f%d.txt", i);
		wst_write(W, name, line);
	}
	mcp_start(&m, W);
	handshake(&m, NULL);
	send_call(&m, 2, "run_command", "{\"command\":[\"sleep\",\"2\"]}", "\"run\"");
	ck_assert_int_eq(wait_progress(&m, "run", 5000), 0);
	last_run = 0;
	nrun = 1;
	send_call(&m, 3, "search_files", "{\"pattern\":\"^(a|aa)+[^a\\\\n]\","
		  "\"paths\":[\"slow\"]}", "77");
	while (answered < 2) {
		cJSON *j = must_recv(&m, 30000, "the two calls");
		const char *meth = method_of(j);

		if (meth != NULL && strcmp(meth, "notifications/progress") == 0) {
			const cJSON *p = cJSON_GetObjectItem(j, "params");
			const cJSON *tok = cJSON_GetObjectItem(p, "progressToken");
			long long v = (long long)cJSON_GetNumberValue(
				cJSON_GetObjectItem(p, "progress"));
			const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(p, "message"));

			ck_assert_ptr_nonnull(msg);
			if (cJSON_IsString(tok)) {
				ck_assert_str_eq(tok->valuestring, "run");
				ck_assert_msg(!run_done, "progress of the command after its answer");
				ck_assert_msg(strstr(msg, "the command is running") != NULL,
					      "run: %s", msg);
				ck_assert_int_gt(v, last_run);
				last_run = v;
				nrun++;
			} else {
				ck_assert(cJSON_IsNumber(tok) && tok->valuedouble == 77);
				ck_assert_msg(!search_done, "progress of the search after its answer");
				ck_assert_msg(v == 0 ? strcmp(msg, "started") == 0
						     : strstr(msg, "files searched") != NULL,
					      "search: %lld %s", v, msg);
				ck_assert_msg(v > last_search, "search: %lld after %lld", v,
					      last_search);
				last_search = v;
				nsearch++;
				search_beside |= !run_done && v > 0;
			}
		} else if (is_id(j, 2)) {
			ck_assert(!is_error(cJSON_GetObjectItem(j, "result")));
			run_done = true;
			answered++;
		} else if (is_id(j, 3)) {
			search_done = true;
			answered++;
		}
		cJSON_Delete(j);
	}
	ck_assert_int_ge(nrun, 2);
	ck_assert_int_ge(nsearch, 2);
	ck_assert_msg(search_beside, "the search made no progress while the command ran");
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * A process forked while a call holds a file's lock -- a command's
 * guardian (a copy of the server), its namespace init (cloned, or made
 * ahead and given its own copy of the descriptor table when taken) --
 * must not keep the lock: flock() locks belong to the open file, which
 * the child's copy of the descriptor keeps open.  An edit that finds no
 * match holds the lock of the file it leaves as it is for a while
 * (WS_TEST_EDIT_HOLD_MS), a command starts meanwhile; the next write of
 * that file must not wait for the command's end (its guardian) nor for
 * its init's setup (WS_RUN_READY_DELAY_MS: init holds its copy until
 * the command runs).  Twice: with the init cloned by the call, then
 * with the one made ahead after the first command (where the server
 * makes them).  Before the fix the write waited for the command's end
 * (in a command longer than 10 s it failed: the flake of
 * parallel_writes_one_file).  Since a command waits for the changes in
 * its workspace to end (review28 08) it starts after the edit, and this
 * test says only that the write goes first and does not wait for init;
 * unit-run's forked_children_drop_locks holds the children's case (it
 * fails when they keep every descriptor).
 */
/* Whether j is a progress notification of a running command (the call's
 * first one, 0, comes when it starts). */
static bool
running(const cJSON *j)
{
	const char *meth = method_of(j);

	return meth != NULL && strcmp(meth, "notifications/progress") == 0 &&
	       cJSON_GetNumberValue(cJSON_GetObjectItem(
		       cJSON_GetObjectItem(j, "params"), "progress")) > 0;
}

START_TEST(forked_children_keep_no_lock)
{
	struct mcp m;
	char *args, *same;
	cJSON *j;

	wst_write(W, "same.txt", "zero\n");
	server_env[0] = "WS_TEST_EDIT_HOLD_MS";
	server_env[1] = "1500";
	server_env[2] = "WS_RUN_READY_DELAY_MS";
	server_env[3] = "3000";
	mcp_start(&m, W);
	server_env[0] = NULL;
	handshake(&m, NULL);
	for (int round = 0; round < 2; round++) {
		int base = 10 + 10 * round;
		bool edited = false, written = false, progress = false;
		bool progress_before = false;
		long long t0, took = 0;

		send_call(&m, base + 1, "edit_file", "{\"path\":\"same.txt\","
			  "\"old\":\"absent\",\"new\":\"x\"}", NULL);
		/*
		 * Once the edit holds the workspace's lock shared (for 1.5
		 * s), start the command: a fixed 300 ms was too short for a
		 * sanitized server on a loaded machine, whose command then ran
		 * first (CI).
		 */
		{
			int wfd = open(W, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			bool held = false;

			ck_assert_int_ge(wfd, 0);
			for (int i = 0; i < 1000 && !held; i++) {
				if (flock(wfd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK)
					held = true;
				else
					(void)flock(wfd, LOCK_UN);
				if (!held)
					usleep(10 * 1000);
			}
			close(wfd);
			ck_assert_msg(held, "the edit never took the workspace's lock");
		}
		send_call(&m, base + 2, "run_command", "{\"command\":[\"sleep\",\"5\"]}",
			  "\"run\"");
		/*
		 * The write goes while the edit still holds the lock, the
		 * command waiting for it: it queues behind the edit, holding
		 * the workspace's lock shared, so the command cannot start
		 * between them.  Sent after the edit's answer (as before), it
		 * raced the command's next try for the lock, which won when
		 * the answer's round trip outlasted it (CI, as nobody, 1 in
		 * some dozens).
		 */
		usleep(100 * 1000);
		ck_assert_int_ge(asprintf(&args, "{\"path\":\"same.txt\","
					  "\"content\":\"round %d\\n\"}", round), 0);
		send_call(&m, base + 3, "write_file", args, NULL);
		free(args);
		t0 = 0;
		while (!edited || !written) {
			j = must_recv(&m, 30000, edited ? "the write" : "the edit");
			if (is_id(j, base + 1)) {
				const cJSON *res = cJSON_GetObjectItem(j, "result");

				ck_assert_msg(is_error(res) &&
					      strcmp(code_of(res), "EDIT_NO_MATCH") == 0,
					      "edit: %s", text_of(res));
				edited = true;
				t0 = now_ms();
			} else if (is_id(j, base + 3)) {
				const cJSON *res = cJSON_GetObjectItem(j, "result");

				ck_assert_msg(!is_error(res), "round %d: write: %s", round,
					      text_of(res));
				ck_assert_msg(edited, "round %d: the write went before "
					      "the edit that held the file", round);
				written = true;
				took = now_ms() - t0;
			} else {
				ck_assert_msg(!is_id(j, base + 2), "the command was answered "
					      "before the %s", edited ? "write" : "edit");
				if (edited)
					progress |= running(j);
				else
					progress_before |= running(j);
			}
			cJSON_Delete(j);
		}
		/*
		 * The command's progress comes once init has said it runs, 3 s
		 * after its start; where init holds no copy (a fork under
		 * AddressSanitizer, which the delay does not apply to) it may
		 * have come already.
		 */
		ck_assert_msg(progress_before || (!progress && took < 1000 * WST_SLOWDOWN),
			      "round %d: the write waited for the command's init "
			      "(%lld ms)", round, took);
		for (bool ran = false; !ran;) {
			j = must_recv(&m, 30000, "the command");
			if ((ran = is_id(j, base + 2)))
				ck_assert_msg(!is_error(cJSON_GetObjectItem(j, "result")),
					      "round %d: the command failed", round);
			cJSON_Delete(j);
		}
		/* The next init is made ahead meanwhile. */
		usleep(300 * 1000);
	}
	same = wst_path(W, "same.txt");
	{
		size_t n;
		char *data = wst_slurp(same, &n);

		ck_assert_ptr_nonnull(data);
		ck_assert_str_eq(data, "round 1\n");
		free(data);
	}
	free(same);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * Writes and edits of one file from calls that run side by side (the
 * server's workers; no command beside them, which a change now waits
 * for, review28 08): every read, and the file in the end, is one whole
 * version, never a mix, over many rounds.
 */
START_TEST(parallel_writes_one_file)
{
	enum { SIZE = 8192, ROUNDS = 25 };
	struct mcp m;
	char *text[4], *args;
	char *data;
	size_t n;
	cJSON *j;

	for (int k = 0; k < 4; k++) {
		text[k] = malloc(SIZE + 1);
		ck_assert_ptr_nonnull(text[k]);
		memset(text[k], 'a' + k, SIZE);
		text[k][SIZE] = '\0';
	}
	wst_write(W, "same.txt", text[0]);
	mcp_start(&m, W);
	handshake(&m, NULL);
	for (int r = 0; r < ROUNDS; r++) {
		int base = 100 + r * 10, got = 0;

		/* Three writes, an edit of a (whole) version, and a read. */
		for (int k = 1; k <= 3; k++) {
			ck_assert_int_ge(asprintf(&args, "{\"path\":\"same.txt\","
						  "\"content\":\"%s\"}", text[k]), 0);
			send_call(&m, base + k, "write_file", args, NULL);
			free(args);
		}
		ck_assert_int_ge(asprintf(&args, "{\"path\":\"same.txt\",\"old\":\"%s\","
					  "\"new\":\"%s\"}", text[(r % 3) + 1], text[0]), 0);
		send_call(&m, base + 4, "edit_file", args, NULL);
		free(args);
		send_call(&m, base + 5, "read_file", "{\"path\":\"same.txt\"}", NULL);
		while (got < 5) {
			j = must_recv(&m, 20000, "the writes");
			for (int k = 1; k <= 5; k++) {
				const cJSON *res;

				if (!is_id(j, base + k))
					continue;
				got++;
				res = cJSON_GetObjectItem(j, "result");
				if (k <= 3)
					ck_assert_msg(!is_error(res), "write: %s", text_of(res));
				else if (k == 4)
					/* Or refused: the file changed under it. */
					ck_assert_msg(!is_error(res) ||
						      strcmp(code_of(res), "EDIT_NO_MATCH") == 0 ||
						      strstr(text_of(res), "changed while") != NULL,
						      "edit: %s", text_of(res));
				if (k == 5) {
					const char *c = cJSON_GetStringValue(sc(res, "content"));

					/* Refused, the file replaced under it, or whole. */
					if (is_error(res) &&
					    strstr(text_of(res), "changed while") != NULL)
						continue;
					ck_assert_msg(!is_error(res), "read: %s", text_of(res));
					ck_assert_ptr_nonnull(c);
					ck_assert_uint_eq(strlen(c), SIZE);
					ck_assert_msg(strspn(c, (char[]){c[0], 0}) == SIZE,
						      "a read saw a mix of versions");
				}
			}
			cJSON_Delete(j);
		}
	}
	{
		char *same = wst_path(W, "same.txt");

		data = wst_slurp(same, &n);
		free(same);
	}
	ck_assert_ptr_nonnull(data);
	ck_assert_uint_eq(n, SIZE);
	ck_assert_msg(data[0] >= 'a' && data[0] <= 'd' &&
		      strspn(data, (char[]){data[0], 0}) == SIZE,
		      "the file is a mix of versions");
	free(data);
	/* No temporary file stays behind. */
	{
		DIR *d = opendir(W);
		struct dirent *e;

		ck_assert_ptr_nonnull(d);
		while ((e = readdir(d)) != NULL)
			ck_assert_msg(strstr(e->d_name, "wswrite") == NULL,
				      "left behind: %s", e->d_name);
		closedir(d);
	}
	for (int k = 0; k < 4; k++)
		free(text[k]);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * Two calls wait for their approvals at once: each question has its own
 * id and each call takes only the answer to its own, in whatever order
 * the person answers.
 */
START_TEST(approvals_apart)
{
	char *pol = approve_policy(), *one = wst_path(W, "one.txt"),
	     *two = wst_path(W, "two.txt");
	struct mcp m;
	int eid_one = -1, eid_two = -1, answered = 0;

	wst_write(W, "one.txt", "1\n");
	wst_write(W, "two.txt", "2\n");
	mcp_start(&m, "--policy", pol, W);
	handshake(&m, "{\"elicitation\":{}}");
	send_call(&m, 2, "delete_path", "{\"path\":\"one.txt\"}", NULL);
	send_call(&m, 3, "delete_path", "{\"path\":\"two.txt\"}", NULL);
	/* Both questions come before either is answered. */
	while (eid_one < 0 || eid_two < 0) {
		cJSON *j = must_recv(&m, 10000, "both approval questions");
		const char *meth = method_of(j);

		ck_assert_msg(!is_id(j, 2) && !is_id(j, 3), "a call ended unasked");
		if (meth != NULL && strcmp(meth, "elicitation/create") == 0) {
			const char *q = cJSON_GetStringValue(cJSON_GetObjectItem(
				cJSON_GetObjectItem(j, "params"), "message"));
			int eid = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id"));

			ck_assert_ptr_nonnull(q);
			if (strstr(q, "one.txt") != NULL)
				eid_one = eid;
			else if (strstr(q, "two.txt") != NULL)
				eid_two = eid;
		}
		cJSON_Delete(j);
	}
	ck_assert_int_ne(eid_one, eid_two);
	/* The second first: yes; then the first: no. */
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"action\":"
		 "\"accept\",\"content\":{\"approve\":true}}}", eid_two);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"action\":"
		 "\"decline\"}}", eid_one);
	while (answered < 2) {
		cJSON *j = must_recv(&m, 10000, "the two deletes");
		const cJSON *res = cJSON_GetObjectItem(j, "result");

		if (is_id(j, 2)) {
			ck_assert_str_eq(code_of(res), "APPROVAL_REQUIRED");
			answered++;
		} else if (is_id(j, 3)) {
			ck_assert_msg(!is_error(res), "%s", text_of(res));
			answered++;
		}
		cJSON_Delete(j);
	}
	ck_assert_int_eq(access(one, F_OK), 0);
	ck_assert_int_ne(access(two, F_OK), 0);
	ck_assert_int_eq(mcp_close(&m), 0);
	free(pol);
	free(one);
	free(two);
}
END_TEST

/*
 * Two run_commands side by side (the second waits for the workspace's
 * run lock): when both are done, the stop signals are the server's own
 * again, and a SIGTERM ends it (each call restoring what it found left
 * wsrun's handler installed for good, and the server ignored SIGTERM).
 */
/* The number of lines of the audit log at path, its chain checked. */
static int
audit_lines(const char *path)
{
	struct wst_run v;
	const char *p;
	int n = -1;

	wst_run(&v, NULL, "wstools", "audit", "--verify", path, NULL);
	ck_assert_msg(v.status == 0, "%s: %s", path, v.out);
	p = strstr(v.out, ": ");
	ck_assert_ptr_nonnull(p);
	n = atoi(p + 2);
	ck_assert_msg(strstr(v.out, "the chain holds") != NULL, "%s", v.out);
	wst_run_free(&v);
	return n;
}

/*
 * audit_lines(path) once it is want, or after a while (the line of a
 * call may be written just after its answer is read): what it was.
 */
static int
audit_lines_reach(const char *path, int want)
{
	long long end = now_ms() + (long long)(5000 * WST_SLOWDOWN);
	int n;

	while ((n = audit_lines(path)) != want && now_ms() < end)
		usleep(20000);
	return n;
}

/*
 * The server keeps its audit log open (issue 22): calls side by side,
 * with tools in other processes writing the same log meanwhile, never
 * interleave nor fork the chain; and a log renamed away (rotated) or
 * replaced between calls is noticed, the next line going to the file
 * at the log's name.
 */
START_TEST(audit_log_kept_open_rotated)
{
	enum { PAR = 12, CLI = 4 };
	char *log = wst_path(T, "audit.jsonl"), *old = wst_path(T, "audit.jsonl.1");
	char *fresh = wst_path(T, "fresh.jsonl"), *env_log, *args;
	struct mcp m;
	cJSON *r, *res;
	int got = 0;

	ck_assert_int_ge(asprintf(&env_log, "WS_AUDIT=%s", log), 0);
	mcp_start(&m, "--audit", log, W);
	handshake(&m, NULL);
	/* Beside a command, so that the calls do run together. */
	send_call(&m, 2, "run_command", "{\"command\":[\"sleep\",\"30\"]}", "\"run\"");
	ck_assert_int_eq(wait_progress(&m, "run", (int)(5000 * WST_SLOWDOWN)), 0);
	/* Reads: a change waits for the command (review28 08). */
	for (int k = 0; k < PAR; k++) {
		char name[32];

		snprintf(name, sizeof(name), "f%d.txt", k);
		wst_write(W, name, "x");
		ck_assert_int_ge(asprintf(&args, "{\"path\":\"f%d.txt\"}", k), 0);
		send_call(&m, 10 + k, "read_file", args, NULL);
		free(args);
	}
	for (int k = 0; k < CLI; k++) {
		struct wst_run v;
		const char *env[] = {env_log, NULL};

		wst_runv(&v, NULL, env, "wsls", (const char *[]){"--workspace", W, NULL});
		ck_assert_int_eq(v.status, 0);
		wst_run_free(&v);
	}
	while (got < PAR) {
		cJSON *j = must_recv(&m, (int)(20000 * WST_SLOWDOWN), "the reads");

		if (!is_id(j, 2) && cJSON_GetObjectItem(j, "id") != NULL) {
			res = cJSON_GetObjectItem(j, "result");
			ck_assert_msg(res != NULL && !is_error(res), "a read failed");
			got++;
		}
		cJSON_Delete(j);
	}
	ck_assert_int_eq(audit_lines_reach(log, PAR + CLI), PAR + CLI);
	/* Rotated: renamed away; the next call starts a new log. */
	ck_assert_int_eq(rename(log, old), 0);
	res = call(&m, 40, "read_file", "{\"path\":\"f0.txt\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert_int_eq(audit_lines(old), PAR + CLI);
	ck_assert_int_eq(audit_lines_reach(log, 1), 1);
	/* Replaced (another file renamed over it). */
	wst_write(T, "fresh.jsonl", "");
	ck_assert_int_eq(rename(fresh, log), 0);
	res = call(&m, 41, "read_file", "{\"path\":\"f1.txt\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	ck_assert_int_eq(audit_lines_reach(log, 1), 1);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":2}}");
	ck_assert_int_eq(mcp_close(&m), 0);
	free(env_log);
	free(log);
	free(old);
	free(fresh);
}
END_TEST

START_TEST(sigterm_after_parallel_commands)
{
	struct mcp m;
	int answered = 0, st = 0;
	long long end;

	mcp_start(&m, W);
	handshake(&m, NULL);
	send_call(&m, 2, "run_command", "{\"command\":[\"sleep\",\"1\"]}", "\"a\"");
	ck_assert_int_eq(wait_progress(&m, "a", 5000), 0);
	send_call(&m, 3, "run_command", "{\"command\":[\"true\"]}", NULL);
	while (answered < 2) {
		cJSON *j = must_recv(&m, 20000, "the two commands");

		if (is_id(j, 2) || is_id(j, 3)) {
			ck_assert(!is_error(cJSON_GetObjectItem(j, "result")));
			answered++;
		}
		cJSON_Delete(j);
	}
	ck_assert_int_eq(kill(m.pid, SIGTERM), 0);
	end = now_ms() + (long long)(5000 * WST_SLOWDOWN);
	while (waitpid(m.pid, &st, WNOHANG) == 0 && now_ms() < end)
		usleep(10000);
	if (now_ms() >= end) {
		kill(m.pid, SIGKILL);
		waitpid(m.pid, &st, 0);
		ck_abort_msg("the server outlived SIGTERM");
	}
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %d", st);
	close(m.in);
	close(m.out);
	free(m.buf);
}
END_TEST

/*
 * Calls side by side on one file (--jobs): two edits never both apply to
 * the same old content (one lost while both said success), and of the
 * writes that carry one if_version at most one succeeds (review8).
 */
START_TEST(parallel_changes_one_file)
{
	enum { N = 32 };
	struct mcp m;
	char *f = wst_path(W, "par.txt"), *text, *version;
	cJSON *resp, *res;
	size_t len = 0;
	int ok = 0, seen = 0;

	{
		char body[N * 16] = "";

		for (int i = 0; i < N; i++)
			snprintf(body + strlen(body), sizeof(body) - strlen(body),
				 "<x%d>\n", i);
		wst_write(W, "par.txt", body);
	}
	mcp_start(&m, W, "--jobs", "8");
	handshake(&m, NULL);
	/* N edits, each of its own line, sent before any answer is read. */
	for (int i = 0; i < N; i++)
		mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"edit_file\",\"arguments\":{\"path\":"
			 "\"par.txt\",\"old\":\"<x%d>\",\"new\":\"<y%d>\"}}}",
			 100 + i, i, i);
	while (seen < N) {
		cJSON *j = mcp_recv(&m, 60000);

		ck_assert_ptr_nonnull(j);
		res = cJSON_GetObjectItem(j, "result");
		if (cJSON_GetObjectItem(j, "method") == NULL && res != NULL) {
			seen++;
			ok += !is_error(res);
		}
		cJSON_Delete(j);
	}
	text = wst_slurp(f, &len);
	{
		int present = 0;

		for (const char *p = text; (p = strstr(p, "<y")) != NULL; p++)
			present++;
		ck_assert_msg(present == ok, "%d edits said success, %d are in the "
			      "file:\n%s", ok, present, text);
	}
	ck_assert_int_eq(ok, N);
	free(text);

	/* One version, N writes: one wins, the others VERSION_MISMATCH. */
	res = call(&m, 2, "read_file", "{\"path\":\"par.txt\"}", &resp);
	version = strdup(cJSON_GetStringValue(cJSON_GetObjectItem(
		cJSON_GetObjectItem(res, "structuredContent"), "version")));
	cJSON_Delete(resp);
	for (int i = 0; i < N; i++)
		mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"write_file\",\"arguments\":{\"path\":"
			 "\"par.txt\",\"content\":\"writer %d\\n\",\"if_version\":\"%s\"}}}",
			 200 + i, i, version);
	ok = seen = 0;
	while (seen < N) {
		cJSON *j = mcp_recv(&m, 60000);

		ck_assert_ptr_nonnull(j);
		res = cJSON_GetObjectItem(j, "result");
		if (cJSON_GetObjectItem(j, "method") == NULL && res != NULL) {
			seen++;
			if (!is_error(res))
				ok++;
			else
				ck_assert_str_eq(code_of(res), "VERSION_MISMATCH");
		}
		cJSON_Delete(j);
	}
	ck_assert_int_eq(ok, 1);
	ck_assert_int_eq(mcp_close(&m), 0);
	free(version);
	free(f);
}
END_TEST

/* ---- What the server remembers between calls, re-checked per call ---- */

/* A policy allowing everything but (when deny is not NULL) the glob deny. */
static void
write_policy(const char *rel, const char *deny)
{
	char *text;

	ck_assert_int_ge(asprintf(&text, "{\"version\":1,\"name\":\"p\",\"file_rules\":["
				  "%s%s%s{\"name\":\"rest\",\"paths\":[\"**\"],"
				  "\"operations\":[\"*\"],\"decision\":\"allow\"}]}",
				  deny ? "{\"name\":\"deny-it\",\"paths\":[\"" : "",
				  deny ? deny : "",
				  deny ? "\"],\"operations\":[\"*\"],\"decision\":\"deny\"}," : ""),
			 0);
	wst_write(T, rel, text);
	free(text);
}

/* read_file of path: its text, or the error code as "!CODE". */
static char *
read_via(struct mcp *m, int id, const char *path)
{
	char args[512], *out;
	cJSON *r, *res;

	snprintf(args, sizeof(args), "{\"path\":\"%s\"}", path);
	res = call(m, id, "read_file", args, &r);
	if (is_error(res))
		ck_assert_int_ge(asprintf(&out, "!%s", code_of(res)), 0);
	else
		out = strdup(text_of(res));
	cJSON_Delete(r);
	return out;
}

#define ck_read(m, id, path, want)                                         \
	do {                                                               \
		char *got_ = read_via((m), (id), (path));                  \
		ck_assert_msg(strcmp(got_, (want)) == 0, "call %d: %s: %s, not %s", \
			      (id), (path), got_, (want));                 \
		free(got_);                                                \
	} while (0)

/*
 * The configuration and the policy are read once and shared by the
 * calls, but a call sees what a fresh process would: a configuration
 * created after the server started, a policy rule added between two
 * calls (also one written to the same size, seconds after the policy
 * was read), an edited or removed configuration.
 */
START_TEST(remembered_config_rechecked)
{
	char *xdg = wst_path(T, "xdg"), *pol = wst_path(T, "p.json"), *cfg;
	char *cfgpath = wst_path(T, "xdg/wstools/config.json");
	struct mcp m;
	int id = 2;

	setenv("XDG_CONFIG_HOME", xdg, 1);
	ck_assert_int_ge(asprintf(&cfg, "{\"policies\":{\"default\":\"%s\"}}", pol), 0);
	mcp_start(&m, "--workspace", W, "--no-detect-root");
	handshake(&m, NULL);
	ck_read(&m, id++, "notes.md", "one\ntwo\nthree\n");
	/* A configuration created since, naming a policy that denies. */
	write_policy("p.json", "**/notes.md");
	wst_write(T, "xdg/wstools/config.json", cfg);
	ck_read(&m, id++, "notes.md", "!POLICY_DENIED");
	ck_read(&m, id++, "src/a.c", "int a;\nint main(void) { return 0; }\n");
	/* The policy edited: the rule gone, then another one added. */
	write_policy("p.json", NULL);
	ck_read(&m, id++, "notes.md", "one\ntwo\nthree\n");
	write_policy("p.json", "**/src/a.c");
	ck_read(&m, id++, "src/a.c", "!POLICY_DENIED");
	ck_read(&m, id++, "notes.md", "one\ntwo\nthree\n");
	/*
	 * Still for longer than a clock tick can hide, then rewritten to
	 * the very same size: only its times and inode say it changed.
	 */
	sleep(3);
	ck_read(&m, id++, "notes.md", "one\ntwo\nthree\n");
	write_policy("p.json", "**/src/x.c");
	ck_read(&m, id++, "src/a.c", "int a;\nint main(void) { return 0; }\n");
	sleep(3);
	ck_read(&m, id++, "src/a.c", "int a;\nint main(void) { return 0; }\n");
	write_policy("p.json", "**/src/a.c");
	ck_read(&m, id++, "src/a.c", "!POLICY_DENIED");
	/* The configuration edited (no policy), then removed. */
	wst_write(T, "xdg/wstools/config.json", "{}");
	ck_read(&m, id++, "src/a.c", "int a;\nint main(void) { return 0; }\n");
	wst_write(T, "xdg/wstools/config.json", cfg);
	ck_read(&m, id++, "src/a.c", "!POLICY_DENIED");
	ck_assert_int_eq(unlink(cfgpath), 0);
	ck_read(&m, id++, "src/a.c", "int a;\nint main(void) { return 0; }\n");
	ck_assert_int_eq(mcp_close(&m), 0);
	free(cfg);
	free(cfgpath);
	free(pol);
	free(xdg);
}
END_TEST

/*
 * The workspace and its mounts are opened once, but a root moved away
 * and replaced at the same path, removed, or reached through a symlink
 * retargeted, is what the next call sees, as a fresh process would.
 */
START_TEST(remembered_workspace_rechecked)
{
	char *old = wst_path(T, "ws.old"), *gone = wst_path(T, "ws.gone");
	char *link = wst_path(T, "link"), *docs = wst_path(T, "docs");
	char *docs_old = wst_path(T, "docs.old");
	struct mcp m;
	int id = 2;

	wst_write(T, "docs/guide.md", "guide\n");
	mcp_start(&m, "--workspace", W, docs);
	handshake(&m, NULL);
	ck_read(&m, id++, "notes.md", "one\ntwo\nthree\n");
	ck_read(&m, id++, "/.docs/guide.md", "guide\n");
	/* The root renamed away, a new directory made at its path. */
	ck_assert_int_eq(rename(W, old), 0);
	wst_write(T, "ws/notes.md", "new root\n");
	ck_read(&m, id++, "notes.md", "new root\n");
	/* A mount likewise. */
	ck_assert_int_eq(rename(docs, docs_old), 0);
	wst_write(T, "docs/guide.md", "new docs\n");
	ck_read(&m, id++, "/.docs/guide.md", "new docs\n");
	/* The root gone: the error a fresh process gives. */
	ck_assert_int_eq(rename(W, gone), 0);
	ck_read(&m, id++, "notes.md", "!WORKSPACE_NOT_FOUND");
	ck_assert_int_eq(rename(gone, W), 0);
	ck_read(&m, id++, "notes.md", "new root\n");
	ck_assert_int_eq(mcp_close(&m), 0);

	/* A root spelled through a symlink that is then retargeted. */
	ck_assert_int_eq(symlink(W, link), 0);
	mcp_start(&m, "--workspace", link);
	handshake(&m, NULL);
	ck_read(&m, id++, "notes.md", "new root\n");
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_int_eq(symlink(old, link), 0);
	ck_read(&m, id++, "notes.md", "one\ntwo\nthree\n");
	ck_assert_int_eq(mcp_close(&m), 0);
	free(old);
	free(gone);
	free(link);
	free(docs);
	free(docs_old);
}
END_TEST

/*
 * Detection is kept with the identity of every directory it looked in: a
 * project marker created or removed between calls (after the directories
 * were still for seconds) moves PROJECT_ROOT for the next call, as in a
 * fresh process.
 */
START_TEST(remembered_detection_rechecked)
{
	char *src = wst_path(W, "src"), *pol = wst_path(T, "p.json");
	char *marker = wst_path(W, "package.json");
	struct mcp m;
	int id = 2;

	wst_write(T, "p.json", "{\"version\":1,\"name\":\"p\",\"file_rules\":["
		  "{\"name\":\"deny-top-a\",\"paths\":[\"${PROJECT_ROOT}/a.c\"],"
		  "\"operations\":[\"*\"],\"decision\":\"deny\"},"
		  "{\"name\":\"rest\",\"paths\":[\"**\"],\"operations\":[\"*\"],"
		  "\"decision\":\"allow\"}]}");
	mcp_start(&m, "--workspace", src, "--policy", pol);
	handshake(&m, NULL);
	/* No marker: the project is the workspace, whose a.c is denied. */
	ck_read(&m, id++, "a.c", "!POLICY_DENIED");
	sleep(3);
	ck_read(&m, id++, "a.c", "!POLICY_DENIED");
	/* A marker above: the project is W, and W/src/a.c is not W/a.c. */
	wst_write(W, "package.json", "{}");
	ck_read(&m, id++, "a.c", "int a;\nint main(void) { return 0; }\n");
	sleep(3);
	ck_read(&m, id++, "a.c", "int a;\nint main(void) { return 0; }\n");
	ck_assert_int_eq(unlink(marker), 0);
	ck_read(&m, id++, "a.c", "!POLICY_DENIED");
	ck_assert_int_eq(mcp_close(&m), 0);
	free(src);
	free(pol);
	free(marker);
}
END_TEST

/*
 * A policy is compiled whole before the calls share it, but its errors
 * stay where one process per call meets them: a command pattern that
 * does not compile fails run_command's check, not every read.
 */
START_TEST(remembered_policy_errors_in_place)
{
	char *pol = wst_path(T, "bad.json");
	struct mcp m;
	cJSON *r, *res;

	wst_write(T, "bad.json", "{\"version\":1,\"name\":\"b\",\"file_rules\":["
		  "{\"name\":\"rest\",\"paths\":[\"**\"],\"operations\":[\"*\"],"
		  "\"decision\":\"allow\"}],\"command_rules\":[{\"name\":\"bad\","
		  "\"patterns\":[\"(\"],\"decision\":\"deny\"}]}");
	mcp_start(&m, "--workspace", W, "--no-detect-root", "--policy", pol);
	handshake(&m, NULL);
	ck_read(&m, 2, "notes.md", "one\ntwo\nthree\n");
	ck_read(&m, 3, "notes.md", "one\ntwo\nthree\n");
	res = call(&m, 4, "run_command", "{\"command\":[\"true\"]}", &r);
	ck_assert_str_eq(code_of(res), "POLICY_ERROR");
	cJSON_Delete(r);
	ck_assert_int_eq(mcp_close(&m), 0);
	free(pol);
}
END_TEST

/*
 * Calls side by side while the policy is replaced between (and during)
 * their bursts: each sees one whole policy, the old or the new (the file
 * is allowed or denied, never another error or a crash).
 */
START_TEST(remembered_policy_swapped_under_calls)
{
	char *pol = wst_path(T, "p.json"), *tmp = wst_path(T, "p.tmp");
	struct mcp m;
	int id = 2, denied = 0, allowed = 0;

	write_policy("p.json", NULL);
	mcp_start(&m, "--workspace", W, "--no-detect-root", "--policy", pol,
		  "--jobs", "4");
	handshake(&m, NULL);
	for (int round = 0; round < 30; round++) {
		int first = id;

		for (int k = 0; k < 8; k++) {
			send_call(&m, id++, "read_file", "{\"path\":\"notes.md\"}", NULL);
			if (k == 3) {
				/* Replaced whole (rename), as an editor does. */
				write_policy("p.tmp", round % 2 ? NULL : "**/notes.md");
				ck_assert_int_eq(rename(tmp, pol), 0);
			}
		}
		for (int got = 0; got < id - first;) {
			cJSON *j = must_recv(&m, 20000, "a read"), *res;

			if (cJSON_GetObjectItem(j, "id") == NULL) {
				cJSON_Delete(j);
				continue;
			}
			res = cJSON_GetObjectItem(j, "result");
			ck_assert_ptr_nonnull(res);
			if (is_error(res)) {
				ck_assert_str_eq(code_of(res), "POLICY_DENIED");
				denied++;
			} else {
				ck_assert_str_eq(text_of(res), "one\ntwo\nthree\n");
				allowed++;
			}
			got++;
			cJSON_Delete(j);
		}
	}
	/* Both policies were in force at some point. */
	ck_assert_int_gt(denied, 0);
	ck_assert_int_gt(allowed, 0);
	ck_assert_int_eq(mcp_close(&m), 0);
	free(pol);
	free(tmp);
}
END_TEST

/* ---- Namespaces made ahead of the call (issues 20, 21) -------------- */

/* The name listen.pl gives its daemon (write_socket_scripts()). */
static char daemon_name[64];

/*
 * Perl scripts for the commands.  listen.pl binds and listens on an
 * abstract UNIX socket (the network namespace's), checks that it can
 * reach it itself (so that "UNREACHED" later means something), then
 * leaves a child holding it that tries to outlive the call: a session of
 * its own, SIGTERM and SIGHUP ignored, a name to find it by.  With
 * argument "hold" the command itself waits (a timeout ends it).
 * probe.pl says whether the name is reachable; conc.pl binds a name that
 * a concurrent call binds too, and holds it.
 */
static void
write_socket_scripts(void)
{
	char *listen = NULL;

	/* The daemon's name is this test process's own: another run of the
	 * suite on the machine must not be taken for a survivor. */
	snprintf(daemon_name, sizeof(daemon_name), "wst-ahead-daemon-%ld",
		 (long)getpid());
	ck_assert(asprintf(&listen,
		  "use Socket; use POSIX; $| = 1;\n"
		  "socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die \"socket: $!\";\n"
		  "bind($s, pack_sockaddr_un(\"\\0wst-ahead-abs\")) or die \"bind: $!\";\n"
		  "listen($s, 5) or die \"listen: $!\";\n"
		  "socket(my $c, AF_UNIX, SOCK_STREAM, 0) or die \"socket: $!\";\n"
		  "print connect($c, pack_sockaddr_un(\"\\0wst-ahead-abs\")) ?\n"
		  "    \"SELF-REACHED\\n\" : \"SELF-UNREACHED $!\\n\";\n"
		  "my $pid = fork();\n"
		  "if ($pid == 0) {\n"
		  "    POSIX::setsid(); $SIG{TERM} = 'IGNORE'; $SIG{HUP} = 'IGNORE';\n"
		  "    $0 = '%s'; sleep 60; exit 0;\n"
		  "}\n"
		  "print \"BOUND\\n\";\n"
		  "sleep 60 if @ARGV && $ARGV[0] eq 'hold';\n", daemon_name) > 0);
	wst_write(T, "ws/listen.pl", listen);
	free(listen);
	wst_write(T, "ws/probe.pl",
		  "use Socket;\n"
		  "socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die \"socket: $!\";\n"
		  "print connect($s, pack_sockaddr_un(\"\\0wst-ahead-abs\")) ?\n"
		  "    \"REACHED\\n\" : \"UNREACHED $!\\n\";\n");
	wst_write(T, "ws/conc.pl",
		  "use Socket;\n"
		  "socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die \"socket: $!\";\n"
		  "print bind($s, pack_sockaddr_un(\"\\0wst-ahead-conc\")) ?\n"
		  "    \"BIND-OK\\n\" : \"BIND-FAILED $!\\n\";\n"
		  "socket(my $t, AF_UNIX, SOCK_STREAM, 0) or die \"socket: $!\";\n"
		  "print bind($t, pack_sockaddr_un(\"\\0wst-ahead-conc\")) ?\n"
		  "    \"REBIND-OK\\n\" : \"REBIND-FAILED\\n\";\n"
		  "print 'NS ', readlink('/proc/self/ns/net'), \"\\n\";\n"
		  "select(undef, undef, undef, 1.5);\n");
}

/* Whether a process named daemon_name lives anywhere on the host. */
static bool
daemon_alive(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;

	ck_assert_ptr_nonnull(d);
	while (!found && (e = readdir(d)) != NULL) {
		char path[300], buf[64] = "";
		int fd;
		ssize_t n;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			size_t l = strlen(daemon_name);

			found = strncmp(buf, daemon_name, l) == 0 &&
				(buf[l] == '\0' || buf[l] == ' ');
		}
	}
	closedir(d);
	return found;
}

/* The stdout of a run_command result (structuredContent). */
static const char *
run_stdout(const cJSON *res)
{
	const char *o = cJSON_GetStringValue(sc(res, "stdout"));

	ck_assert_msg(o != NULL, "no stdout: %s", text_of(res));
	return o;
}

/*
 * Sequential calls of one server, in both views: a listener on an
 * abstract socket that call 1 leaves behind, in a child that tried to
 * outlive it, is gone with call 1 and unreachable from call 2 (each call
 * has a network namespace of its own, made ahead of it and never
 * reused); the same after a call that timed out with the listener still
 * held.  And the server keeps the next call's init ready, in namespaces
 * of its own (a child of the server whose network namespace is not the
 * server's).
 */
START_TEST(run_command_namespaces_apart)
{
	if (!wst_layer("", "netns") || !wst_layer("", "pidns")) {
		fprintf(stderr, "run_command_namespaces_apart: not checked (%s)\n",
			wst_layer_why("", "netns"));
		return;
	}
	write_socket_scripts();
	for (int view = 0; view < 2; view++) {
		struct mcp m;
		cJSON *resp, *res;
		int id = 2, spare_pid = 0;
		bool spare = false;
		char self_ns[64] = "", path[300];
		ssize_t n;

		force_real = view == 1;
		mcp_start(&m, W);
		force_real = false;
		handshake(&m, NULL);
		/* A first call: the server learns what its calls need. */
		res = call(&m, id++, "run_command", "{\"command\":[\"true\"]}", &resp);
		ck_assert_msg(!is_error(res), "%s", text_of(res));
		cJSON_Delete(resp);
		for (int round = 0; round < 3; round++) {
			bool hold = round == 2;

			res = call(&m, id++, "run_command", hold ?
				   "{\"command\":[\"perl\",\"listen.pl\",\"hold\"],"
				   "\"timeout\":1}" :
				   "{\"command\":[\"perl\",\"listen.pl\"]}", &resp);
			if (hold) {
				ck_assert_msg(cJSON_IsTrue(sc(res, "timed_out")), "%s",
					      text_of(res));
			} else {
				ck_assert_msg(!is_error(res), "%s", text_of(res));
				ck_assert_int_eq((int)cJSON_GetNumberValue(sc(res, "exit_code")), 0);
			}
			ck_assert_msg(strstr(run_stdout(res), "SELF-REACHED") != NULL &&
				      strstr(run_stdout(res), "BOUND") != NULL,
				      "view %d: %s", view, run_stdout(res));
			cJSON_Delete(resp);
			/* Nothing of call 1 is left alive. */
			ck_assert_msg(!daemon_alive(), "view %d round %d: the listener's "
				      "process outlived its call", view, round);
			res = call(&m, id++, "run_command", "{\"command\":[\"perl\",\"probe.pl\"]}",
				   &resp);
			ck_assert_msg(!is_error(res), "%s", text_of(res));
			ck_assert_msg(strstr(run_stdout(res), "UNREACHED") != NULL,
				      "view %d round %d: call 1's listener reached from "
				      "call 2: %s", view, round, run_stdout(res));
			cJSON_Delete(resp);
		}
		/* The next call's init, made ahead: its own network namespace. */
		n = readlink("/proc/self/ns/net", self_ns, sizeof(self_ns) - 1);
		ck_assert_int_gt(n, 0);
		self_ns[n] = '\0';
		for (int i = 0; i < 250 && !spare && geteuid() == 0 &&
		     WST_SLOWDOWN_BUILD == 1; i++) {
			DIR *d;
			struct dirent *e;

			snprintf(path, sizeof(path), "/proc/%d/task", (int)m.pid);
			d = opendir(path);
			while (d != NULL && !spare && (e = readdir(d)) != NULL) {
				FILE *f;
				int child;

				if (e->d_name[0] == '.')
					continue;
				snprintf(path, sizeof(path), "/proc/%d/task/%s/children",
					 (int)m.pid, e->d_name);
				if ((f = fopen(path, "r")) == NULL)
					continue;
				while (!spare && fscanf(f, "%d", &child) == 1) {
					char ns[64] = "";

					snprintf(path, sizeof(path), "/proc/%d/ns/net", child);
					n = readlink(path, ns, sizeof(ns) - 1);
					if (n > 0) {
						ns[n] = '\0';
						spare = strcmp(ns, self_ns) != 0;
						spare_pid = child;
					}
				}
				fclose(f);
			}
			if (d != NULL)
				closedir(d);
			if (!spare)
				usleep(20000);
		}
		ck_assert_msg(spare || geteuid() != 0 || WST_SLOWDOWN_BUILD != 1,
			      "view %d: no init made ahead of the next call", view);
		/* init is not dumpable: only root reads its namespaces. */
		if (view == 1 && !spare && geteuid() != 0)
			fprintf(stderr, "run_command_namespaces_apart: the init made "
				"ahead not checked (not root)\n");
		if (view == 0 || !spare) {
			ck_assert_int_eq(mcp_close(&m), 0);
			continue;
		}
		/* A server killed outright takes its waiting init along. */
		ck_assert_int_eq(kill(m.pid, SIGKILL), 0);
		ck_assert_int_eq(waitpid(m.pid, NULL, 0), m.pid);
		for (int i = 0; i < 250 && spare; i++) {
			char st[512] = "";
			FILE *f;

			snprintf(path, sizeof(path), "/proc/%d/stat", spare_pid);
			if ((f = fopen(path, "r")) == NULL)
				break;
			if (fgets(st, sizeof(st), f) == NULL || strstr(st, ") Z ") != NULL)
				spare = false;
			fclose(f);
			if (spare)
				usleep(20000);
		}
		ck_assert_msg(!spare || access(path, F_OK) != 0,
			      "the init made ahead (%d) outlived its server", spare_pid);
		close(m.in);
		close(m.out);
		free(m.buf);
	}
}
END_TEST

/* run_command of sh -c script through m: its stdout (asserted ran). */
static char *
run_sh(struct mcp *m, int id, const char *script)
{
	cJSON *args = cJSON_CreateObject(), *cmd = cJSON_AddArrayToObject(args, "command");
	cJSON *resp, *res;
	char *a, *out;

	cJSON_AddItemToArray(cmd, cJSON_CreateString("sh"));
	cJSON_AddItemToArray(cmd, cJSON_CreateString("-c"));
	cJSON_AddItemToArray(cmd, cJSON_CreateString(script));
	a = cJSON_PrintUnformatted(args);
	res = call(m, id, "run_command", a, &resp);
	ck_assert_msg(!is_error(res), "%s: %s", script, text_of(res));
	out = strdup(run_stdout(res));
	cJSON_Delete(resp);
	cJSON_Delete(args);
	free(a);
	return out;
}

/* write_policy()'s policy, with a command rule (no built-in masks). */
static void
write_policy_cmd(const char *rel)
{
	wst_write(T, rel, "{\"version\":1,\"name\":\"pc\",\"file_rules\":["
		  "{\"name\":\"rest\",\"paths\":[\"**\"],\"operations\":[\"*\"],"
		  "\"decision\":\"allow\"}],\"command_rules\":["
		  "{\"name\":\"no-nothing\",\"patterns\":[\"^wst-never-run\\\\b\"],"
		  "\"decision\":\"deny\"}]}");
}

/*
 * An init made ahead of its call holds the system's part of the view
 * (lib/run.c, ws_sandbox_mount_system()), but what depends on the
 * workspace and the policy is the call's own, as it is when the call
 * starts: in both views, a top-level entry made between two calls is
 * in the second; a file a deny rule names, made between them, is masked
 * in the second; a policy swapped between them (to one with command
 * rules, which leaves the built-in blocked programs unmasked, and back)
 * is in force in the very next call, whose init made for the old one
 * is not used.
 */
START_TEST(run_command_ahead_follows_state)
{
	char *xdg = wst_path(T, "xdg"), *pol = wst_path(T, "p.json"), *cfg;
	struct stat su;
	bool have_su = stat("/usr/bin/su", &su) == 0 && S_ISREG(su.st_mode) &&
		       su.st_size > 0;
	char su_size[32];

	if (!wst_layer("", "mountns") || !wst_layer("", "pidns")) {
		fprintf(stderr, "run_command_ahead_follows_state: not checked (%s)\n",
			wst_layer_why("", "mountns"));
		free(xdg);
		free(pol);
		return;
	}
	snprintf(su_size, sizeof(su_size), "SU %lld\n", (long long)su.st_size);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	ck_assert_int_ge(asprintf(&cfg, "{\"policies\":{\"default\":\"%s\"}}", pol), 0);
	wst_write(T, "xdg/wstools/config.json", cfg);
	for (int view = 0; view < 2; view++) {
		struct mcp m;
		int id = 2;
		char *out, *p;

		write_policy("p.json", "**/hidden.txt");
		force_real = view == 1;
		mcp_start(&m, "--workspace", W, "--no-detect-root");
		force_real = false;
		handshake(&m, NULL);
		out = run_sh(&m, id++, "echo FIRST");
		ck_assert_str_eq(out, "FIRST\n");
		free(out);
		/* The next call's init is made meanwhile (after the call). */
		usleep(200 * 1000);
		wst_write(T, "ws/fresh-top.txt", "FRESH\n");
		wst_write(T, "ws/hidden.txt", "SECRET\n");
		out = run_sh(&m, id++, "cat fresh-top.txt; cat hidden.txt; echo END");
		ck_assert_msg(strstr(out, "FRESH") != NULL && strstr(out, "SECRET") == NULL &&
			      strstr(out, "END") != NULL, "view %d: %s", view, out);
		free(out);
		usleep(200 * 1000);
		/* An entry removed between calls is gone from the next. */
		ck_assert_int_eq(unlink(p = wst_path(T, "ws/fresh-top.txt")), 0);
		free(p);
		out = run_sh(&m, id++, "test -e fresh-top.txt && echo THERE; echo END");
		ck_assert_msg(strcmp(out, "END\n") == 0, "view %d: %s", view, out);
		free(out);
		if (have_su) {
			/* No command rules: the blocked programs are masked. */
			out = run_sh(&m, id++, "echo SU $(wc -c </usr/bin/su)");
			ck_assert_msg(strcmp(out, "SU 0\n") == 0, "view %d: %s", view, out);
			free(out);
			usleep(200 * 1000);
			write_policy_cmd("p.json");
			out = run_sh(&m, id++, "echo SU $(wc -c </usr/bin/su)");
			ck_assert_msg(strcmp(out, su_size) == 0, "view %d: %s, not %s",
				      view, out, su_size);
			free(out);
			usleep(200 * 1000);
			write_policy("p.json", "**/hidden.txt");
			out = run_sh(&m, id++, "echo SU $(wc -c </usr/bin/su); cat hidden.txt");
			ck_assert_msg(strcmp(out, "SU 0\n") == 0, "view %d: %s", view, out);
			free(out);
		}
		ck_assert_int_eq(mcp_close(&m), 0);
		ck_assert_int_eq(unlink(p = wst_path(T, "ws/hidden.txt")), 0);
		free(p);
	}
	unsetenv("XDG_CONFIG_HOME");
	free(cfg);
	free(pol);
	free(xdg);
}
END_TEST

/*
 * Review16 02/03 over MCP: HOME outside the workspace, ~/.config/git a
 * link to the workspace's gitcfg and ~/.config/fish one to fishcfg,
 * which does not exist.  No file tool writes, moves or deletes gitcfg,
 * nor makes fishcfg; the places are resolved anew each call: the link
 * re-pointed between calls (to gitcfg2) moves the guard with it.
 */
START_TEST(file_tools_home_places_linked_into_workspace)
{
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char *xdg = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;
	static const char *const denied[][2] = {
		{"write_file", "{\"path\":\"gitcfg/config\",\"content\":\"evil\"}"},
		{"edit_file", "{\"path\":\"gitcfg/config\",\"old\":\"user\","
			      "\"new\":\"x\"}"},
		{"move_path", "{\"source\":\"gitcfg\",\"destination\":\"old\"}"},
		{"delete_path", "{\"path\":\"gitcfg\",\"recursive\":true}"},
		{"create_directory", "{\"path\":\"fishcfg\"}"},
		{"write_file", "{\"path\":\"fishcfg/config.fish\",\"content\":\"evil\"}"},
	};
	char *h = wst_path(T, "h"), *t, *p;
	struct mcp m;
	cJSON *r, *res;
	int id = 2;

	wst_write(W, "gitcfg/config", "[user]\n");
	wst_mkdir(h, ".config");
	wst_symlink(t = wst_path(W, "gitcfg"), h, ".config/git");
	free(t);
	wst_symlink(t = wst_path(W, "fishcfg"), h, ".config/fish");
	free(t);
	setenv("HOME", h, 1);
	unsetenv("XDG_CONFIG_HOME");
	mcp_start(&m, "--workspace", W, "--no-detect-root");
	handshake(&m, NULL);
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		res = call(&m, id++, denied[i][0], denied[i][1], &r);
		ck_assert_msg(strcmp(code_of(res), "POLICY_DENIED") == 0, "%s %s: %s",
			      denied[i][0], denied[i][1], text_of(res));
		ck_assert_msg(strstr(text_of(res), "persistence place") != NULL,
			      "%s", text_of(res));
		cJSON_Delete(r);
	}
	ck_assert_str_eq(t = wst_slurp(p = wst_path(W, "gitcfg/config"), NULL), "[user]\n");
	free(t);
	free(p);
	ck_assert(!wst_exists(p = wst_path(W, "fishcfg")));
	free(p);
	/* Re-pointed between calls: gitcfg is free, gitcfg2 is the place. */
	ck_assert_int_eq(unlink(p = wst_path(h, ".config/git")), 0);
	free(p);
	wst_symlink(t = wst_path(W, "gitcfg2"), h, ".config/git");
	free(t);
	res = call(&m, id++, "write_file",
		   "{\"path\":\"gitcfg/config\",\"content\":\"mine\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	res = call(&m, id++, "write_file",
		   "{\"path\":\"gitcfg2/config\",\"content\":\"evil\"}", &r);
	ck_assert_str_eq(code_of(res), "POLICY_DENIED");
	cJSON_Delete(r);
	ck_assert(!wst_exists(p = wst_path(W, "gitcfg2")));
	free(p);
	ck_assert_int_eq(mcp_close(&m), 0);
	if (home != NULL)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	if (xdg != NULL)
		setenv("XDG_CONFIG_HOME", xdg, 1);
	free(home);
	free(xdg);
	free(h);
}
END_TEST

/*
 * Review25 08, the other half, through a server: with HOME as the
 * workspace, write_file refuses what the person's .bashrc sources
 * (POLICY_DENIED), and a file .bashrc names from a later call on is
 * refused at that call (the server kept what it found before: the rc
 * files are read again each call), and run_command cannot change it.
 */
START_TEST(rc_sourced_each_call)
{
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	struct mcp m;
	cJSON *r, *res;
	char *out, *t, *p;

	setenv("HOME", W, 1);
	wst_write(W, ".bashrc", "source ~/.my-env.sh\n");
	wst_write(W, ".later.sh", "orig\n");
	mcp_start(&m, "--workspace", W, "--no-detect-root");
	handshake(&m, NULL);
	res = call(&m, 2, "write_file", "{\"path\":\".my-env.sh\",\"content\":\"x\"}", &r);
	ck_assert_str_eq(code_of(res), "POLICY_DENIED");
	cJSON_Delete(r);
	res = call(&m, 3, "write_file", "{\"path\":\".later.sh\",\"content\":\"free\\n\"}", &r);
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	cJSON_Delete(r);
	/* The person's .bashrc sources it from now on. */
	wst_write(W, ".bashrc", "source ~/.my-env.sh\n[ -f ~/.later.sh ] && . ~/.later.sh\n");
	res = call(&m, 4, "write_file", "{\"path\":\".later.sh\",\"content\":\"x\"}", &r);
	ck_assert_str_eq(code_of(res), "POLICY_DENIED");
	cJSON_Delete(r);
	out = run_sh(&m, 5, "echo evil >> .later.sh; echo END");
	ck_assert_str_eq(out, "END\n");
	free(out);
	ck_assert_str_eq(t = wst_slurp(p = wst_path(W, ".later.sh"), NULL), "free\n");
	free(t);
	free(p);
	ck_assert_msg(!wst_exists(p = wst_path(W, ".my-env.sh")), "made");
	free(p);
	ck_assert_int_eq(mcp_close(&m), 0);
	if (home != NULL)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	free(home);
}
END_TEST

/*
 * HOME's persistence places are resolved once a call, for the sandbox's
 * read-only binds and for the revert alike (lib/run.c), and anew for
 * every call of one server: with HOME the workspace, what a call makes
 * at a missing place (~/.config/fish) is removed after it, in each of
 * two calls; a place made between the calls (~/.config/nvim/init.vim)
 * is read-only in the second; and a place a link made between them
 * moves (~/.config/git -> ../dotgit) is guarded at the link's target
 * in the second.
 */
START_TEST(run_command_home_places_each_call)
{
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char *xdg = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;
	const char *make = "mkdir -p .config/fish && echo evil > .config/fish/config.fish; "
			   "echo evil >> .config/nvim/init.vim; "
			   "mkdir -p dotgit && echo evil > dotgit/config; echo END";
	struct mcp m;
	char *out, *t, *p;

	setenv("HOME", W, 1);
	unsetenv("XDG_CONFIG_HOME");
	wst_mkdir(W, ".config");
	mcp_start(&m, "--workspace", W, "--no-detect-root");
	handshake(&m, NULL);
	out = run_sh(&m, 2, make);
	ck_assert_str_eq(out, "END\n");
	free(out);
	ck_assert_msg(!wst_exists(p = wst_path(W, ".config/fish")), "fish stayed");
	free(p);
	/* ~/.config/nvim was missing: it goes too; dotgit is no place. */
	ck_assert_msg(!wst_exists(p = wst_path(W, ".config/nvim")), "nvim stayed");
	free(p);
	wst_write(W, ".config/nvim/init.vim", "orig\n");
	ck_assert_int_eq(unlink(p = wst_path(W, "dotgit/config")), 0);
	free(p);
	wst_symlink("../dotgit", W, ".config/git");
	usleep(200 * 1000);
	out = run_sh(&m, 3, make);
	ck_assert_str_eq(out, "END\n");
	free(out);
	ck_assert_msg(!wst_exists(p = wst_path(W, ".config/fish")), "fish stayed");
	free(p);
	ck_assert_str_eq(t = wst_slurp(p = wst_path(W, ".config/nvim/init.vim"), NULL), "orig\n");
	free(t);
	free(p);
	ck_assert_msg(!wst_exists(p = wst_path(W, "dotgit/config")),
		      "made through the link");
	free(p);
	ck_assert_int_eq(mcp_close(&m), 0);
	if (home != NULL)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	if (xdg != NULL)
		setenv("XDG_CONFIG_HOME", xdg, 1);
	free(home);
	free(xdg);
}
END_TEST

/*
 * Two calls side by side, each with a network namespace of its own: both
 * bind the same abstract name (in one namespace the second bind fails,
 * as the command's own second bind shows), and their namespaces differ.
 */
START_TEST(run_command_concurrent_namespaces)
{
	struct mcp m;
	char ns[2][64] = {"", ""};
	int answered = 0;

	if (!wst_layer("", "netns") || !wst_layer("", "pidns")) {
		fprintf(stderr, "run_command_concurrent_namespaces: not checked (%s)\n",
			wst_layer_why("", "netns"));
		return;
	}
	write_socket_scripts();
	mcp_start(&m, W);
	handshake(&m, NULL);
	cJSON_Delete(rpc(&m, 2, "ping", NULL));
	/* Twice: the first pair learns, the second may use inits made ahead. */
	for (int pair = 0; pair < 2; pair++) {
		int a = 10 + 2 * pair, b = a + 1;

		answered = 0;
		send_call(&m, a, "run_command", "{\"command\":[\"perl\",\"conc.pl\"]}", NULL);
		send_call(&m, b, "run_command", "{\"command\":[\"perl\",\"conc.pl\"]}", NULL);
		while (answered < 2) {
			cJSON *j = must_recv(&m, 20000, "the two commands");
			const cJSON *res = cJSON_GetObjectItem(j, "result");
			const char *o, *p;
			int k = is_id(j, a) ? 0 : is_id(j, b) ? 1 : -1;

			if (k < 0) {
				cJSON_Delete(j);
				continue;
			}
			ck_assert_msg(!is_error(res), "%s", text_of(res));
			o = run_stdout(res);
			ck_assert_msg(strstr(o, "BIND-OK") != NULL, "pair %d: a concurrent "
				      "call's abstract socket is in this call's "
				      "namespace: %s", pair, o);
			ck_assert_msg(strstr(o, "REBIND-FAILED") != NULL, "%s", o);
			ck_assert_ptr_nonnull(p = strstr(o, "NS net:["));
			snprintf(ns[k], sizeof(ns[k]), "%.*s", (int)strcspn(p, "\n"), p);
			answered++;
			cJSON_Delete(j);
		}
		ck_assert_msg(strcmp(ns[0], ns[1]) != 0, "pair %d: one network "
			      "namespace for two concurrent calls: %s", pair, ns[0]);
	}
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/* The response to id (other messages dropped), within 20 s. */
static cJSON *
recv_id(struct mcp *m, int id)
{
	for (;;) {
		cJSON *j = mcp_recv(m, 20000);

		ck_assert_msg(j != NULL, "no response to %d", id);
		if (is_id(j, id))
			return j;
		cJSON_Delete(j);
	}
}

/*
 * --compat mcp-filesystem takes the allowed directories once per call,
 * after the roots are answered: a write to a root that the new roots
 * drop is refused, not translated with the old directories and run in
 * the new ones (review8 t_compat_roots_swap: it landed in two/B); and a
 * call sent before the first answer waits for it, as a native one does
 * (t_compat_roots_race).
 */
START_TEST(compat_roots_one_snapshot)
{
	struct mcp m;
	cJSON *r, *j, *res;
	char *roots, *args, *f1, *moved;

	wst_write(T, "one/B/keep.txt", "one\n");
	wst_write(T, "two/B/keep.txt", "two\n");
	mcp_start(&m, "--compat", "mcp-filesystem", "--no-detect-root");
	handshake(&m, "{\"roots\":{\"listChanged\":true}}");
	/* Before the first answer: the call waits for the roots. */
	ck_assert_int_ge(asprintf(&args, "{\"path\":\"%s/notes.md\"}", W), 0);
	j = must_recv(&m, 5000, "roots/list");
	ck_assert_str_eq(method_of(j), "roots/list");
	send_call(&m, 2, "read_text_file", args, NULL);
	free(args);
	usleep(300000);
	ck_assert_int_ge(asprintf(&roots, "[{\"uri\":\"file://%s\"},"
				  "{\"uri\":\"file://%s/one/B\"}]", W, T), 0);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"roots\":%s}}",
		 (int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id")), roots);
	free(roots);
	cJSON_Delete(j);
	r = recv_id(&m, 2);
	res = cJSON_GetObjectItem(r, "result");
	ck_assert_msg(!is_error(res), "%s", text_of(res));
	ck_assert_str_eq(text_of(res), "one\ntwo\nthree\n");
	cJSON_Delete(r);
	/* The roots change while a write to one/B waits for them. */
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
	j = must_recv(&m, 5000, "roots/list");
	ck_assert_str_eq(method_of(j), "roots/list");
	ck_assert_int_ge(asprintf(&args, "{\"path\":\"%s/one/B/f1.txt\",\"content\":"
				  "\"x\\n\"}", T), 0);
	send_call(&m, 3, "write_file", args, NULL);
	free(args);
	usleep(300000);
	ck_assert_int_ge(asprintf(&roots, "[{\"uri\":\"file://%s\"},"
				  "{\"uri\":\"file://%s/two/B\"}]", W, T), 0);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"roots\":%s}}",
		 (int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id")), roots);
	free(roots);
	cJSON_Delete(j);
	r = recv_id(&m, 3);
	res = cJSON_GetObjectItem(r, "result");
	ck_assert_msg(is_error(res), "%s", text_of(res));
	ck_assert_ptr_nonnull(strstr(text_of(res), "outside allowed directories"));
	cJSON_Delete(r);
	f1 = wst_path(T, "one/B/f1.txt");
	moved = wst_path(T, "two/B/f1.txt");
	ck_assert(!wst_exists(f1));
	ck_assert(!wst_exists(moved));
	free(f1);
	free(moved);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * An edit_file call with many edits of a large file stops between two
 * edits when cancelled (review8/t_edit_cpu.py: 300 edits of 16 MiB ran
 * 77 s and ignored the cancellation), writing nothing, and a call of
 * more than 1000 edits is refused (LIMIT_EXCEEDED).
 */
START_TEST(cancel_edit_file)
{
	enum { MB = 8 };
	struct mcp m;
	char *big = malloc((size_t)MB << 20), *edits, *before, *after, *bigp;
	size_t cap = 1002 * 48, len = 1, n;
	cJSON *resp, *res;
	long long t0;

	ck_assert_ptr_nonnull(big);
	for (size_t i = 0; i < ((size_t)MB << 20); i++)
		big[i] = (i + 1) % 64 == 0 ? '\n' : "abcdefghij"[i % 10];
	wst_writen(W, "big.txt", big, (size_t)MB << 20);
	free(big);
	edits = malloc(cap);
	ck_assert_ptr_nonnull(edits);
	strcpy(edits, "[");
	for (int i = 0; i < 1001; i++)
		len += (size_t)snprintf(edits + len, cap - len, "%s{\"old\":\"abc\","
					"\"new\":\"abc\",\"all\":true}",
					i ? "," : "");
	strcpy(edits + len, "]");
	/*
	 * A client that offers elicitation gets every call run by a worker
	 * (the reader's idle fast path could need its answer): the reader
	 * is then free to read the cancellation.
	 */
	mcp_start(&m, W, "--jobs", "1");
	handshake(&m, "{\"elicitation\":{}}");
	{
		char *args;

		ck_assert_int_ge(asprintf(&args, "{\"path\":\"big.txt\",\"edits\":%s}",
					  edits), 0);
		res = call(&m, 3, "edit_file", args, &resp);
		free(args);
	}
	ck_assert(is_error(res));
	ck_assert_str_eq(code_of(res), "LIMIT_EXCEEDED");
	cJSON_Delete(resp);
	/* 1000: allowed, and long; cancelled after half a second. */
	edits[len - strlen(",{\"old\":\"abc\",\"new\":\"abc\",\"all\":true}")] = '\0';
	strcat(edits, "]");
	bigp = wst_path(W, "big.txt");
	before = wst_slurp(bigp, &n);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":\"ed\",\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"edit_file\",\"arguments\":{\"path\":"
		 "\"big.txt\",\"edits\":%s}}}", edits);
	usleep(500000);
	t0 = now_ms();
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":\"ed\",\"reason\":\"test\"}}");
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"read_file\",\"arguments\":"
		 "{\"path\":\"notes.md\"}}}");
	for (;;) {
		cJSON *j = mcp_recv(&m, 10000);

		ck_assert_msg(j != NULL, "no answer %lld ms after the cancellation",
			      now_ms() - t0);
		if (is_id(j, 8)) {
			cJSON_Delete(j);
			break;
		}
		cJSON_Delete(j);
	}
	after = wst_slurp(bigp, NULL);
	ck_assert(memcmp(before, after, n) == 0);
	ck_assert_int_eq(mcp_close(&m), 0);
	free(before);
	free(after);
	free(edits);
	free(bigp);
}
END_TEST

/* Wait up to ms for the server to exit: its status, or -1. */
static int
wait_exit(struct mcp *m, int ms)
{
	long long end = now_ms() + (long long)(ms * WST_SLOWDOWN);
	int st = 0;

	while (waitpid(m->pid, &st, WNOHANG) == 0) {
		if (now_ms() > end)
			return -1;
		usleep(10000);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * The client goes away (input and output closed) with calls queued and a
 * command running: nothing queued runs, the command is cancelled, and
 * the server ends at once, even with the queue full (the reader then
 * waits for room, and must still see the client go)
 * (review8 t_eof_drain: 20 writes and a second command ran for nobody).
 * The same when only the answers cannot be written (stdout closed,
 * stdin still open).
 */
START_TEST(client_gone_drops_calls)
{
	for (int round = 0; round < 2; round++) {
		struct mcp m;
		long long t0;
		int st;
		char *p;

		mcp_start(&m, "--jobs", "1", W);
		handshake(&m, NULL);
		send_call(&m, 2, "run_command", "{\"command\":\"sleep 4; touch ran1\","
			  "\"timeout\":30}", NULL);
		for (int i = 0; i < 20; i++) {
			char args[128];

			snprintf(args, sizeof(args), "{\"path\":\"after_%d.txt\","
				 "\"content\":\"x\"}", i);
			send_call(&m, 10 + i, "write_file", args, NULL);
		}
		send_call(&m, 20, "run_command", "{\"command\":\"touch ran2\"}", NULL);
		usleep(500000);
		t0 = now_ms();
		if (round == 0) {
			/* Output first: at EOF the server finds nobody reads. */
			close(m.out);
			close(m.in);
		} else {
			/* The answer to this ping cannot be written. */
			close(m.out);
			mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":30,\"method\":\"ping\"}");
		}
		st = wait_exit(&m, 3000);
		if (st < 0) {
			kill(m.pid, SIGKILL);
			waitpid(m.pid, NULL, 0);
		}
		ck_assert_msg(st >= 0, "round %d: the server still runs %lld ms after "
			      "the client left", round, now_ms() - t0);
		if (round == 1)
			close(m.in);
		free(m.buf);
		for (int i = 0; i < 20; i++) {
			char rel[32];

			snprintf(rel, sizeof(rel), "after_%d.txt", i);
			p = wst_path(W, rel);
			ck_assert_msg(!wst_exists(p), "round %d: %s written", round, rel);
			free(p);
		}
		/* Time for a command that was not cancelled to finish. */
		usleep(round == 0 ? 4000000 : 0);
		p = wst_path(W, "ran1");
		ck_assert_msg(!wst_exists(p), "round %d: the command ran on", round);
		free(p);
		p = wst_path(W, "ran2");
		ck_assert_msg(!wst_exists(p), "round %d: a queued command ran", round);
		free(p);
	}
}
END_TEST

/*
 * Backpressure and cancellation: with one worker busy and the queue full
 * (8 calls), the reader reads on and acts on a cancellation of a queued
 * or running call, and on a ping, at once; the call read after them
 * waits its turn, then runs.  (The reader read nothing until the queue
 * had room: the cancellations waited behind 30 s commands.)
 */
START_TEST(cancel_under_backpressure)
{
	struct mcp m;
	long long t0, end;
	bool pong = false, ran = false;
	char *p;

	mcp_start(&m, "--jobs", "1", W);
	handshake(&m, NULL);
	send_call(&m, 2, "run_command", "{\"command\":\"sleep 30\",\"timeout\":60}", NULL);
	usleep(200000);
	for (int i = 10; i < 18; i++)
		send_call(&m, i, "run_command", "{\"command\":\"sleep 30\",\"timeout\":60}",
			  NULL);
	/* Read behind the full queue. */
	send_call(&m, 30, "run_command", "{\"command\":\"echo ran > ran30\"}", NULL);
	t0 = now_ms();
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\"}");
	for (int i = 10; i < 18; i++)
		mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
			 "\"params\":{\"requestId\":%d}}", i);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":2}}");
	end = t0 + (long long)(10000 * WST_SLOWDOWN);
	while (!(pong && ran) && now_ms() < end) {
		cJSON *j = mcp_recv(&m, 500);
		const cJSON *id;

		if (j == NULL)
			continue;
		id = cJSON_GetObjectItem(j, "id");
		if (cJSON_IsNumber(id) && id->valueint == 99)
			pong = true;
		if (cJSON_IsNumber(id) && id->valueint == 30)
			ran = true;
		cJSON_Delete(j);
	}
	ck_assert_msg(pong, "no pong behind a full queue");
	ck_assert_msg(ran, "the call behind the cancelled ones did not run");
	ck_assert_int_lt(now_ms() - t0, (long long)(10000 * WST_SLOWDOWN));
	p = wst_path(W, "ran30");
	ck_assert(wst_exists(p));
	free(p);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/*
 * Backpressure: a client that sends calls and never reads the answers
 * fills the pipe, the workers block on it, and the server stops reading
 * (review8 t_noread: it read everything, 608 MiB).  Of 64 calls of
 * 512 KiB each (32 MiB), it takes at most a few MiB.
 */
START_TEST(backpressure_bounds_the_queue)
{
	struct mcp m;
	char *big = malloc(200001), *line;
	size_t sent = 0, total = 0;
	long long end;
	int n;

	memset(big, 'x', 200000);
	big[200000] = '\0';
	wst_write(W, "big.txt", big);
	free(big);
	mcp_start(&m, "--jobs", "2", W);
	handshake(&m, NULL);
	/* A command keeps one worker, and the reader from running calls. */
	send_call(&m, 2, "run_command", "{\"command\":\"sleep 20\",\"timeout\":30}",
		  NULL);
	/* From here on, nothing is read from the server. */
	fcntl(m.in, F_SETFL, fcntl(m.in, F_GETFL) | O_NONBLOCK);
	end = now_ms() + (long long)(4000 * WST_SLOWDOWN);
	for (int i = 0; i < 64 && now_ms() < end; i++) {
		char *pad = malloc(512 << 10);
		size_t off = 0;

		memset(pad, 'y', (512 << 10) - 1);
		pad[(512 << 10) - 1] = '\0';
		n = asprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
			     "\"params\":{\"name\":\"read_file\",\"arguments\":"
			     "{\"path\":\"big.txt\"},\"_meta\":{\"pad\":\"%s\"}}}\n",
			     i + 10, pad);
		free(pad);
		ck_assert_int_gt(n, 0);
		total += (size_t)n;
		while (off < (size_t)n && now_ms() < end) {
			ssize_t w = write(m.in, line + off, (size_t)n - off);

			if (w > 0) {
				off += (size_t)w;
				sent += (size_t)w;
			} else {
				usleep(5000);
			}
		}
		free(line);
	}
	ck_assert_msg(sent < (10u << 20), "the server took %zu of %zu bytes from a "
		      "client that reads nothing", sent, total);
	kill(m.pid, SIGKILL);
	waitpid(m.pid, NULL, 0);
	close(m.in);
	close(m.out);
	free(m.buf);
}
END_TEST

/*
 * Request ids are compared by their text: a cancel of 9007199254740993
 * leaves 9007199254740992 running (one double; review8 t_cancel); an id
 * in flight already is refused (-32600), the first call runs on; and a
 * response id out of range (1e309, 1e19) is no id of ours, not a
 * conversion to long long (undefined: UBSan, t_resp_id_ub).
 */
START_TEST(ids_by_their_text)
{
	struct mcp m;
	long long end;
	bool kept = false, first = false, refused = false;
	int results7 = 0;
	cJSON *j;

	mcp_start(&m, "--jobs", "4", W);
	handshake(&m, NULL);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":1e309,\"result\":{}}");
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":-1e19,\"result\":{}}");
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":9007199254740992,\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"run_command\",\"arguments\":{\"command\":"
		 "\"sleep 1; echo kept\",\"timeout\":20}}}");
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"tools/call\","
		 "\"params\":{\"name\":\"run_command\",\"arguments\":{\"command\":"
		 "\"sleep 1; echo other\",\"timeout\":20}}}");
	usleep(300000);
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
		 "\"params\":{\"requestId\":9007199254740993}}");
	send_call(&m, 7, "run_command", "{\"command\":\"sleep 1; echo first\"}", NULL);
	send_call(&m, 7, "run_command", "{\"command\":\"echo second\"}", NULL);
	end = now_ms() + (long long)(15000 * WST_SLOWDOWN);
	while (!(kept && first) && now_ms() < end) {
		const cJSON *res, *err;

		if ((j = mcp_recv(&m, 1000)) == NULL)
			continue;
		res = cJSON_GetObjectItem(j, "result");
		err = cJSON_GetObjectItem(j, "error");
		if (res != NULL && text_of(res) != NULL) {
			/* Their output lines, not words of a note ("another
			 * command" in a queued call's status line). */
			ck_assert_ptr_null(strstr(text_of(res), "\nother"));
			ck_assert_ptr_null(strstr(text_of(res), "\nsecond"));
			kept |= strstr(text_of(res), "kept") != NULL;
			if (is_id(j, 7)) {
				results7++;
				first |= strstr(text_of(res), "first") != NULL;
			}
		}
		if (err != NULL && is_id(j, 7)) {
			ck_assert_int_eq(rpc_error_code(j), -32600);
			refused = true;
		}
		cJSON_Delete(j);
	}
	ck_assert_msg(kept, "the cancel of 9007199254740993 cancelled 9007199254740992");
	ck_assert_msg(first && refused && results7 == 1, "duplicate id 7: first %d, "
		      "refused %d, results %d", first, refused, results7);
	/* Still serving after the responses out of range. */
	j = rpc(&m, 8, "ping", NULL);
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(j, "result"));
	cJSON_Delete(j);
	ck_assert_int_eq(mcp_close(&m), 0);
}
END_TEST

/* Whether s[0..n) is valid UTF-8 (no overlong forms, no surrogates). */
static bool
utf8_valid(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t k = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 :
			   (c >> 3) == 30 ? 3 : 9;
		unsigned long cp = k == 0 ? c : k == 1 ? c & 0x1f : k == 2 ? c & 0x0f : c & 7;

		if (k == 9 || i + k >= n + (k == 0))
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) ||
		    (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += k + 1;
	}
	return true;
}

/* The next line the server writes, raw (malloc'd), or NULL after ms. */
static char *
raw_line(struct mcp *m, int ms)
{
	long long end = now_ms() + (long long)(ms * WST_SLOWDOWN);

	for (;;) {
		char *nl = m->len ? memchr(m->buf, '\n', m->len) : NULL;
		struct pollfd pf = {.fd = m->out, .events = POLLIN};
		long long left;
		ssize_t r;

		if (nl != NULL) {
			size_t ll = (size_t)(nl - m->buf);
			char *line = strndup(m->buf, ll);

			memmove(m->buf, nl + 1, m->len - ll - 1);
			m->len -= ll + 1;
			return line;
		}
		left = end - now_ms();
		if (left <= 0 || poll(&pf, 1, (int)left) <= 0)
			return NULL;
		if (m->len + 65536 > m->cap) {
			m->cap = (m->len + 65536) * 2;
			m->buf = realloc(m->buf, m->cap);
			ck_assert_ptr_nonnull(m->buf);
		}
		r = read(m->out, m->buf + m->len, m->cap - m->len);
		if (r <= 0)
			return NULL;
		m->len += (size_t)r;
	}
}

/*
 * Bytes that are not UTF-8 in what the client sent come back valid:
 * a string id, a progress token, the compat mode's "Tool ... not
 * found" and its texts (review8 t_utf8: echoed raw).
 */
START_TEST(answers_are_utf8)
{
	for (int compat = 0; compat < 2; compat++) {
		struct mcp m;
		char *line, *req;
		int n = 0, answers = 0;
		bool named = false, tok = false;

		if (compat)
			mcp_start(&m, "--compat", "mcp-filesystem", W);
		else
			mcp_start(&m, W);
		handshake(&m, NULL);
		mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":\"a\xff\",\"method\":\"ping\"}");
		ck_assert_int_ge(asprintf(&req, "{\"jsonrpc\":\"2.0\",\"id\":\"b\xfe\","
					  "\"method\":\"tools/call\",\"params\":{\"name\":"
					  "\"%s\",\"arguments\":{\"path\":\"%s%snotes.md\"},"
					  "\"_meta\":{\"progressToken\":\"t\xff\"}}}",
					  compat ? "read_text_file" : "read_file",
					  compat ? W : "", compat ? "/" : ""), 0);
		mcp_send(&m, "%s", req);
		free(req);
		mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"read_\xff\x66ile\",\"arguments\":{}}}");
		/*
		 * Until the three answers (ping, the read, the unknown tool);
		 * the read's progress comes before its answer.  Not a count of
		 * lines: how many progress notifications a read sends depends
		 * on timing, and waiting for one more that never comes is
		 * 100 s under valgrind's WST_SLOWDOWN.
		 */
		while (answers < 3 && (line = raw_line(&m, 5000)) != NULL) {
			cJSON *j = cJSON_Parse(line);

			ck_assert_msg(utf8_valid((const unsigned char *)line, strlen(line)),
				      "%s: not UTF-8: %s", compat ? "compat" : "native", line);
			ck_assert_msg(j != NULL, "not JSON: %s", line);
			named |= is_id(j, 5);
			answers += method_of(j) == NULL;
			tok |= strcmp(method_of(j) ? method_of(j) : "",
				      "notifications/progress") == 0;
			cJSON_Delete(j);
			free(line);
			n++;
		}
		ck_assert_msg(named && tok, "%s: %d lines", compat ? "compat" : "native", n);
		ck_assert_int_eq(mcp_close(&m), 0);
	}
}
END_TEST

/* ---- The server's guardian (lib/run.c) -------------------------------- */

/* rel under dir exists. */
static bool
exists_in(const char *dir, const char *rel)
{
	char *p = wst_path(dir, rel);
	bool e = wst_exists(p);

	free(p);
	return e;
}

/* A "sleep" process whose command line holds marker is alive. */
static bool
sleeper_alive(const char *marker)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	bool found = false;

	while (d != NULL && (de = readdir(d)) != NULL && !found) {
		char p[300], buf[4096];
		ssize_t n;
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%s/cmdline", de->d_name);
		if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[n] = '\0';
		found = strncmp(buf, "sleep", 5) == 0 && strstr(buf, marker) != NULL;
	}
	if (d != NULL)
		closedir(d);
	return found;
}

/* Wait up to ms for want (alive or gone). */
static bool
sleeper_wait(const char *marker, bool want, int ms)
{
	ms = (int)(ms * WST_SLOWDOWN);
	for (int i = 0; i < ms / 20; i++) {
		if (sleeper_alive(marker) == want)
			return true;
		usleep(20000);
	}
	return sleeper_alive(marker) == want;
}

/*
 * The children of pid in pid's own PID namespace (not an init in a
 * namespace of its own) that lead a session of their own: the guardians.
 */
static int
guardians_of(pid_t pid, int *out, int max)
{
	char path[384], self_ns[64] = "", ns[64];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	if (readlink(path, self_ns, sizeof(self_ns) - 1) < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		FILE *f;
		int c;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children", (int)pid,
			 e->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		while (fscanf(f, "%d", &c) == 1 && n < max) {
			ssize_t k;

			memset(ns, 0, sizeof(ns));
			snprintf(path, sizeof(path), "/proc/%d/ns/pid_for_children", c);
			k = readlink(path, ns, sizeof(ns) - 1);
			if (k > 0 && strcmp(ns, self_ns) == 0 && getsid(c) == c)
				out[n++] = c;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * The server forks one guardian when it starts, not a copy of itself per
 * command (~0.8 ms a call): the same one before the first run_command,
 * during a command and after several.
 */
START_TEST(run_command_guardian_once)
{
	struct mcp m;
	cJSON *r, *res;
	char marker[32], args[256];
	int g0[8], g1[8], n0 = 0, n1;

	/* Without a PID namespace the command's own process is a child of
	 * the server in its namespace too. */
	if (!wst_layer("", "pidns")) {
		fprintf(stderr, "run_command_guardian_once: not checked (%s)\n",
			wst_layer_why("", "pidns"));
		return;
	}
	snprintf(marker, sizeof(marker), "100.%d71", (int)getpid());
	mcp_start(&m, "--jobs", "2", W);
	handshake(&m, NULL);
	for (int i = 0; i < 100 && (n0 = guardians_of(m.pid, g0, 8)) == 0; i++)
		usleep(20000);
	ck_assert_int_eq(n0, 1);
	for (int i = 0; i < 3; i++) {
		res = call(&m, 2 + i, "run_command", "{\"command\":[\"true\"]}", &r);
		ck_assert_msg(!is_error(res), "%s", text_of(res));
		cJSON_Delete(r);
	}
	snprintf(args, sizeof(args), "{\"command\":[\"sleep\",\"%s\"],\"timeout\":60}",
		 marker);
	send_call(&m, 9, "run_command", args, NULL);
	ck_assert_msg(sleeper_wait(marker, true, 5000), "the command never started");
	n1 = guardians_of(m.pid, g1, 8);
	ck_assert_int_eq(n1, 1);
	ck_assert_int_eq(g1[0], g0[0]);
	ck_assert_int_eq(kill(m.pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(m.pid, NULL, 0), m.pid);
	ck_assert_msg(sleeper_wait(marker, false, 5000), "the command outlived its server");
	close(m.in);
	close(m.out);
	free(m.buf);
}
END_TEST

/*
 * kill -9 of the server during two commands at once (two workspaces, the
 * roots changed between the calls: each its own lock): its guardian kills
 * both, removes what each made at a guarded place, and writes the audit
 * line of each, "killed" with exit status 137.
 */
START_TEST(kill9_mcp_two_runs_clean_up)
{
	struct mcp m;
	char *a = wst_path(T, "k9a"), *b = wst_path(T, "k9b"), *log, *roots,
	     *text = NULL, ma[32], mb[32], args[512];
	bool clean = false;

	snprintf(ma, sizeof(ma), "100.%d81", (int)getpid());
	snprintf(mb, sizeof(mb), "100.%d82", (int)getpid());
	wst_mkdir(T, "k9a/sub");
	wst_mkdir(T, "k9b/sub");
	log = wst_path(T, "k9-audit.jsonl");
	mcp_start(&m, "--no-detect-root", "--jobs", "4", "--audit", log);
	handshake(&m, "{\"roots\":{\"listChanged\":true}}");
	ck_assert_int_ge(asprintf(&roots, "[{\"uri\":\"file://%s\"}]", a), 0);
	answer_roots(&m, roots);
	free(roots);
	snprintf(args, sizeof(args), "{\"command\":\"echo x > sub/.envrc; sleep %s\","
		 "\"timeout\":60}", ma);
	send_call(&m, 2, "run_command", args, NULL);
	ck_assert_msg(sleeper_wait(ma, true, 5000), "the first command never started");
	mcp_send(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
	ck_assert_int_ge(asprintf(&roots, "[{\"uri\":\"file://%s\"}]", b), 0);
	answer_roots(&m, roots);
	free(roots);
	snprintf(args, sizeof(args), "{\"command\":\"echo x > sub/.envrc; sleep %s\","
		 "\"timeout\":60}", mb);
	send_call(&m, 3, "run_command", args, NULL);
	ck_assert_msg(sleeper_wait(mb, true, 5000), "the second command never started");
	ck_assert(wst_exists(a) && exists_in(a, "sub/.envrc") && exists_in(b, "sub/.envrc"));
	ck_assert_int_eq(kill(m.pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(m.pid, NULL, 0), m.pid);
	ck_assert_msg(sleeper_wait(ma, false, 5000), "the first command outlived its server");
	ck_assert_msg(sleeper_wait(mb, false, 5000), "the second command outlived its server");
	for (int i = 0; i < (int)(250 * WST_SLOWDOWN) && !clean; i++) {
		free(text);
		text = wst_slurp(log, NULL);
		clean = !exists_in(a, "sub/.envrc") && !exists_in(b, "sub/.envrc") &&
			text != NULL && strstr(text, ma) != NULL && strstr(text, mb) != NULL;
		if (!clean)
			usleep(20000);
	}
	ck_assert_msg(!exists_in(a, "sub/.envrc"), "the first command's sub/.envrc stayed");
	ck_assert_msg(!exists_in(b, "sub/.envrc"), "the second command's sub/.envrc stayed");
	ck_assert_msg(clean, "%s", text ? text : "(no audit log)");
	/* Each command's line says it was killed, and what was removed. */
	for (int k = 0; k < 2; k++) {
		const char *l = strstr(text, k ? mb : ma), *s = l, *e;

		while (s > text && s[-1] != '\n')
			s--;
		e = strchr(l, '\n');
		ck_assert_ptr_nonnull(e);
		ck_assert_msg(memmem(s, (size_t)(e - s), "\"killed\":", 9) != NULL &&
			      memmem(s, (size_t)(e - s), "\"exit_status\":137", 17) != NULL &&
			      memmem(s, (size_t)(e - s), "/sub/.envrc", 11) != NULL,
			      "%.*s", (int)(e - s), s);
	}
	free(text);
	close(m.in);
	close(m.out);
	free(m.buf);
	free(log);
	free(a);
	free(b);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("cli-mcp");
	TCase *tc = tcase_create("core");
	TCase *slow = tcase_create("long");
	TCase *ahead = tcase_create("ahead");
	TCase *forks = tcase_create("forks");
	TCase *queued = tcase_create("queued");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, handshake_versions);
	tcase_add_test(tc, handshake_every_version);
	tcase_add_test(tc, tools_list_schemas);
	tcase_add_test(tc, every_tool_once);
	tcase_add_test(tc, run_command_one_view);
	tcase_add_test(tc, run_command_shadowed_said);
	tcase_add_test(tc, jsonrpc_errors);
	tcase_add_test(tc, usage_and_workspace_errors);
	tcase_add_test(tc, home_in_dirs);
	tcase_add_test(tc, containment);
	tcase_add_test(tc, dirs_and_common_options);
	tcase_add_test(tc, approval_by_elicitation);
	tcase_add_test(tc, audit_lines_from_mcp);
	tcase_add_test(tc, history_tools_only_when_asked);
	tcase_add_test(tc, undo_id_is_integer);
	tcase_add_test(tc, parallel_changes_one_file);
	tcase_add_test(tc, cancel_edit_file);
	tcase_add_test(tc, command_approval_by_elicitation);
	tcase_add_test(tc, network_approval_by_elicitation);
	tcase_add_test(tc, approval_question_is_escaped);
	tcase_add_test(tc, strict_messages);
	tcase_add_test(tc, approval_times_out);
	tcase_add_test(tc, roots_set_the_workspace);
	tcase_add_test(tc, roots_are_data);
	tcase_add_test(tc, roots_unanswered);
	tcase_add_test(tc, cancelled_delete_stops);
	tcase_add_test(tc, compat_roots_one_snapshot);
	tcase_add_test(tc, compat_symlinked_dir);
	tcase_add_test(tc, client_gone_drops_calls);
	tcase_add_test(tc, backpressure_bounds_the_queue);
	tcase_add_test(tc, cancel_under_backpressure);
	tcase_add_test(tc, ids_by_their_text);
	tcase_add_test(tc, answers_are_utf8);
	tcase_add_test(tc, output_schemas_hold);
	tcase_add_test(tc, model_limits_capped);
	tcase_add_test(tc, repeated_keys);
	tcase_add_test(tc, ceilings_after_parsing);
	tcase_add_test(tc, oversized_message_keeps_its_id);
	tcase_add_test(tc, texts_for_a_model);
	tcase_add_test(tc, undeclared_keys_refused);
	tcase_add_test(tc, requests_wait_for_initialize);
	tcase_add_test(tc, read_file_texts);
	tcase_add_test(tc, list_directory_texts);
	tcase_add_test(tc, list_directory_text_order);
	tcase_add_test(tc, list_directory_lean_entries);
	tcase_add_test(tc, search_files_texts);
	tcase_add_test(tc, read_file_media);
	tcase_add_test(tc, structured_content_as_printed);
	tcase_add_test(tc, structured_content_lean);
	tcase_add_test(tc, config_snippets_parse);
	tcase_add_test(tc, file_tools_home_places_linked_into_workspace);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(slow, setup, teardown);
	tcase_set_timeout(slow, 300);
	tcase_add_test(slow, cancel_run_command);
	tcase_add_test(slow, run_command_queued_progress);
	tcase_add_test(slow, run_command_init_environ_hidden);
	tcase_add_test(slow, cancel_search);
	tcase_add_test(slow, progress_of_a_command);
	tcase_add_test(slow, ten_thousand_calls);
	tcase_add_test(slow, five_mib_write);
	tcase_add_test(slow, read_during_command);
	tcase_add_test(slow, write_waits_for_command);
	tcase_add_test(slow, change_waiting_keeps_reader);
	tcase_add_test(slow, marker_made_during_run_ignored);
	tcase_add_test(slow, nested_server_write_waits_for_command);
	tcase_add_test(slow, read_beside_queued_commands);
	tcase_add_test(slow, cancel_one_of_two);
	tcase_add_test(slow, progress_apart);
	tcase_add_test(slow, parallel_writes_one_file);
	tcase_add_test(slow, audit_log_kept_open_rotated);
	tcase_add_test(slow, approvals_apart);
	tcase_add_test(slow, sigterm_after_parallel_commands);
	tcase_add_test(slow, remembered_config_rechecked);
	tcase_add_test(slow, remembered_workspace_rechecked);
	tcase_add_test(slow, remembered_policy_swapped_under_calls);
	tcase_add_test(slow, remembered_policy_errors_in_place);
	tcase_add_test(slow, remembered_detection_rechecked);
	suite_add_tcase(s, slow);
	tcase_add_checked_fixture(ahead, setup, teardown);
	tcase_set_timeout(ahead, 300);
	tcase_add_test(ahead, run_command_namespaces_apart);
	tcase_add_test(ahead, run_command_concurrent_namespaces);
	tcase_add_test(ahead, run_command_ahead_follows_state);
	tcase_add_test(ahead, run_command_home_places_each_call);
	tcase_add_test(ahead, rc_sourced_each_call);
	tcase_add_test(ahead, run_command_guardian_once);
	tcase_add_test(ahead, kill9_mcp_two_runs_clean_up);
	suite_add_tcase(s, ahead);
	tcase_add_checked_fixture(queued, setup, teardown);
	tcase_set_timeout(queued, 300);
	tcase_add_test(queued, commands_take_the_lock_in_order);
	tcase_add_test(queued, read_behind_many_commands);
	suite_add_tcase(s, queued);
	tcase_add_checked_fixture(forks, setup, teardown);
	tcase_set_timeout(forks, 300);
	tcase_add_test(forks, forked_children_keep_no_lock);
	suite_add_tcase(s, forks);
	return s;
}

WST_MAIN(suite)
