/*
 * unit-session: what a server remembers between calls (lib/session.c) is
 * its own.  Two servers in one process (ws_mcp_serve() on two threads,
 * each on a pair of pipes and its own workspace), their calls
 * interleaved, each keep their own workspace open; one ending leaves the
 * other's alone; and a call outside any server (the CLI's: one call a
 * process) remembers nothing.  What is remembered is seen from outside
 * by the descriptors the process holds on each workspace once the calls
 * are done: a remembered workspace keeps its descriptor open.
 */
#include "wstest.h"

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws/cli.h"
#include "ws/mcp.h"
#include "ws/session.h"
#include "ws/tool.h"
#include "ws/workspace.h"

static char *T;

static void
setup(void)
{
	T = wst_tmpdir();
}

static void
teardown(void)
{
	wst_rmrf(T);
	free(T);
}

/* How many of this process's descriptors are the directory dir. */
static int
fds_on(const char *dir)
{
	char real[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(realpath(dir, real));
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL) {
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		if ((len = readlink(link, target, sizeof(target) - 1)) < 0)
			continue;
		target[len] = '\0';
		n += strcmp(target, real) == 0;
	}
	closedir(d);
	return n;
}

/* A server on its own thread, spoken to over two pipes. */
struct srv {
	struct ws_mcp_opts o;
	pthread_t thr;
	int to, from; /* our ends */
	FILE *in;     /* the answers, a line each */
	int rc;
};

/* The native tools, as wstools mcp serves them (run: not used). */
static const struct ws_mcp_tool tools[] = {
	{"list_directory", "wsls", false, NULL},
	{"read_file", "wsread", false, NULL},
	{"write_file", "wswrite", false, NULL},
	{"edit_file", "wswrite", true, NULL},
	{"create_directory", "wswrite", true, NULL},
	{"move_path", "wswrite", true, NULL},
	{"delete_path", "wswrite", true, NULL},
	{"search_files", "wsgrep", false, NULL},
	{"run_command", "wsrun", false, NULL},
};

static void *
serve(void *arg)
{
	struct srv *s = arg;

	s->rc = ws_mcp_serve(&s->o);
	close(s->o.in_fd);
	close(s->o.out_fd);
	return NULL;
}

static void
srv_send(struct srv *s, const char *line)
{
	size_t n = strlen(line);

	ck_assert_int_eq(write(s->to, line, n), (ssize_t)n);
	ck_assert_int_eq(write(s->to, "\n", 1), 1);
}

/* The next answer, parsed; the caller frees it. */
static cJSON *
srv_answer(struct srv *s)
{
	char *line = NULL;
	size_t cap = 0;
	cJSON *j;

	ck_assert_int_gt(getline(&line, &cap, s->in), 0);
	j = cJSON_Parse(line);
	ck_assert_msg(j != NULL, "%s", line);
	free(line);
	return j;
}

static void
srv_start(struct srv *s, const char *workspace)
{
	int in[2], out[2];
	cJSON *a;

	memset(s, 0, sizeof(*s));
	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(out), 0);
	s->o.tools = tools;
	s->o.ntools = sizeof(tools) / sizeof(tools[0]);
	s->o.workspace = workspace;
	s->o.jobs = 2;
	s->o.in_fd = in[0];
	s->o.out_fd = out[1];
	s->to = in[1];
	s->from = out[0];
	ck_assert_ptr_nonnull(s->in = fdopen(s->from, "r"));
	ck_assert_int_eq(pthread_create(&s->thr, NULL, serve, s), 0);
	srv_send(s, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
		    "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
		    "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
	a = srv_answer(s);
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(a, "result"));
	cJSON_Delete(a);
	srv_send(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

/* list_directory "/" on s: the one entry its workspace holds. */
static void
srv_list(struct srv *s, int id, const char *want)
{
	char req[256];
	cJSON *a, *r, *sc;
	char *text;

	snprintf(req, sizeof(req),
		 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
		 "{\"name\":\"list_directory\",\"arguments\":{\"path\":\"/\"}}}", id);
	srv_send(s, req);
	a = srv_answer(s);
	r = cJSON_GetObjectItem(a, "result");
	ck_assert_ptr_nonnull(r);
	ck_assert(!cJSON_IsTrue(cJSON_GetObjectItem(r, "isError")));
	sc = cJSON_GetObjectItem(r, "structuredContent");
	text = cJSON_PrintUnformatted(sc != NULL ? sc : r);
	ck_assert_msg(strstr(text, want) != NULL, "%s not in %s", want, text);
	free(text);
	cJSON_Delete(a);
}

static void
srv_stop(struct srv *s)
{
	close(s->to);
	pthread_join(s->thr, NULL);
	fclose(s->in);
	ck_assert_int_eq(s->rc, 0);
}

/*
 * Two servers, calls interleaved: each still holds its own workspace
 * (the process-wide snapshot of old kept only the last call's); one
 * ending leaves the other remembering; both ended, nothing is held.
 */
START_TEST(two_servers)
{
	struct srv a, b;
	char *wa = wst_path(T, "a"), *wb = wst_path(T, "b");

	wst_write(T, "a/only-a.txt", "a\n");
	wst_write(T, "b/only-b.txt", "b\n");
	srv_start(&a, wa);
	srv_start(&b, wb);
	for (int i = 1; i <= 3; i++) {
		srv_list(&a, i, "only-a.txt");
		srv_list(&b, i, "only-b.txt");
	}
	ck_assert_int_ge(fds_on(wa), 1);
	ck_assert_int_ge(fds_on(wb), 1);
	srv_stop(&a);
	ck_assert_int_eq(fds_on(wa), 0);
	/* a's end forgot nothing of b's, and b remembers on. */
	ck_assert_int_ge(fds_on(wb), 1);
	srv_list(&b, 4, "only-b.txt");
	ck_assert_int_ge(fds_on(wb), 1);
	srv_stop(&b);
	ck_assert_int_eq(fds_on(wb), 0);
	free(wa);
	free(wb);
}
END_TEST

/* A call outside the servers, while one runs: it remembers nothing. */
START_TEST(call_outside_remembers_nothing)
{
	struct srv a;
	char *wa = wst_path(T, "a"), *wc = wst_path(T, "c");
	const struct ws_tool_def *t = ws_tool_by_name("list_directory");
	char ws_flag[] = "--workspace", dot[] = ".", prog[] = "wsls";
	char *argv[] = {prog, ws_flag, wc, dot, NULL};
	struct ws_cli cli;
	struct ws_ctx ws;

	wst_write(T, "a/only-a.txt", "a\n");
	wst_write(T, "c/only-c.txt", "c\n");
	srv_start(&a, wa);
	srv_list(&a, 1, "only-a.txt");
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(ws_cli_parse(&cli, t->cli, 4, argv), 0);
	ck_assert_int_eq(ws_cli_open(&cli, &ws), 0);
	ck_assert_int_ge(fds_on(wc), 1);
	ws_ctx_close(&ws);
	ws_cli_free(&cli);
	ck_assert_int_eq(fds_on(wc), 0);
	srv_stop(&a);
	free(wa);
	free(wc);
}
END_TEST

/* A session by hand: forgetting and freeing an empty one, or none. */
START_TEST(session_empty)
{
	struct ws_session *ss = ws_session_new();

	ck_assert_ptr_nonnull(ss);
	ws_session_forget(ss);
	ws_session_free(ss);
	ws_session_forget(NULL);
	ws_session_free(NULL);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("unit-session");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, two_servers);
	tcase_add_test(tc, call_outside_remembers_nothing);
	tcase_add_test(tc, session_empty);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
