/*
 * mcp_interleave.c - MCP servers timed per tools/call in interleaved
 * rounds, by a raw JSON-RPC client in C.
 *
 *   cc -O2 -o mcp_interleave tests/bench/mcp_interleave.c
 *   mcp_interleave [-r ROUNDS] [-n CALLS] [-w WARMUP] \
 *       NAME TOOL ARGS 'CMD' [NAME TOOL ARGS 'CMD']...
 *
 * e.g. the reference server against wstools mcp, listing a directory:
 *
 *   mcp_interleave ref list_directory '{"path":"/ws/dir"}' \
 *       'node .../server-filesystem/dist/index.js /ws' \
 *       wstools list_directory '{"path":"/dir"}' 'wstools mcp --workspace /ws'
 *
 * Each server is started once (CMD split at blanks) and initialized; then
 * every round runs CALLS calls on each server, the servers in a new
 * shuffled order, so that the machine's load falls on all alike.  A call
 * is timed from writing the request to reading the answer's newline; the
 * answer is not parsed (its id is found as text), so the client's cost is
 * the same small one for every server.  Prints the load average, then per
 * server the median, p10 and p90 in microseconds, the answer's size, and
 * the ratio of the server named "ref" to it.  A TOOL of "ping" sends the
 * MCP ping instead of a tools/call (ARGS ignored): the floor of a round
 * trip through each server.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct srv {
	const char *name, *tool, *args;
	char **argv;
	pid_t pid;
	int in, out;
	char *buf;
	size_t len, cap;
	long id;
	double *us;
	size_t nus;
	size_t answer;
	int errors;
};

static char **
split(const char *s)
{
	char **v = calloc(strlen(s) + 2, sizeof(*v));
	char *d = strdup(s), *t;
	size_t n = 0;

	for (t = strtok(d, " "); t != NULL; t = strtok(NULL, " "))
		v[n++] = t;
	return v;
}

static void
start(struct srv *s)
{
	int a[2], b[2];

	if (pipe2(a, O_CLOEXEC) < 0 || pipe2(b, O_CLOEXEC) < 0)
		exit(1);
	s->pid = fork();
	if (s->pid == 0) {
		int nul = open("/dev/null", O_WRONLY);

		dup2(a[0], 0);
		dup2(b[1], 1);
		dup2(nul, 2);
		execvp(s->argv[0], s->argv);
		_exit(127);
	}
	close(a[0]);
	close(b[1]);
	s->in = a[1];
	s->out = b[0];
}

/* Read until a line holding "id":ID; returns its length. */
static size_t
answer(struct srv *s, long id)
{
	char want[48], want2[48];
	int wl = snprintf(want, sizeof(want), "\"id\":%ld,", id);

	snprintf(want2, sizeof(want2), "\"id\":%ld}", id);
	for (;;) {
		char *nl;

		while ((nl = memchr(s->buf, '\n', s->len)) != NULL) {
			size_t l = (size_t)(nl - s->buf) + 1;
			bool hit = memmem(s->buf, l, want, (size_t)wl) != NULL ||
				   memmem(s->buf, l, want2, (size_t)wl) != NULL;

			if (hit && (memmem(s->buf, l, "\"isError\":true", 14) != NULL ||
				    memmem(s->buf, l, "\"error\":{", 9) != NULL))
				s->errors++;
			memmove(s->buf, s->buf + l, s->len - l);
			s->len -= l;
			if (hit)
				return l;
		}
		if (s->cap - s->len < 65536) {
			s->cap = s->cap * 2 + 65536;
			s->buf = realloc(s->buf, s->cap);
		}
		ssize_t r = read(s->out, s->buf + s->len, s->cap - s->len);

		if (r <= 0) {
			fprintf(stderr, "mcp_interleave: %s closed its output\n", s->name);
			exit(1);
		}
		s->len += (size_t)r;
	}
}

static size_t
request(struct srv *s, const char *method, const char *params)
{
	char *m;
	int n;

	s->id++;
	n = asprintf(&m, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"%s\",\"params\":%s}\n",
		     s->id, method, params);
	if (n < 0 || write(s->in, m, (size_t)n) != n)
		exit(1);
	free(m);
	return answer(s, s->id);
}

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void
calls(struct srv *s, int n, bool keep)
{
	bool ping = strcmp(s->tool, "ping") == 0;
	char *p;

	if (asprintf(&p, "{\"name\":\"%s\",\"arguments\":%s}", s->tool, s->args) < 0)
		exit(1);
	for (int i = 0; i < n; i++) {
		double t0 = now_us();
		size_t l = ping ? request(s, "ping", "{}") : request(s, "tools/call", p);
		double t1 = now_us();

		s->answer = l;
		if (keep)
			s->us[s->nus++] = t1 - t0;
	}
	free(p);
}

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	int rounds = 50, per = 20, warm = 100, c, ns;
	struct srv *s;
	double ref = 0;
	FILE *la;
	char lbuf[128] = "";

	while ((c = getopt(argc, argv, "r:n:w:")) != -1) {
		if (c == 'r')
			rounds = atoi(optarg);
		else if (c == 'n')
			per = atoi(optarg);
		else if (c == 'w')
			warm = atoi(optarg);
		else
			return 2;
	}
	if ((argc - optind) % 4 != 0 || argc == optind)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	ns = (argc - optind) / 4;
	s = calloc((size_t)ns, sizeof(*s));
	srand((unsigned)time(NULL));
	for (int i = 0; i < ns; i++) {
		s[i].name = argv[optind + 4 * i];
		s[i].tool = argv[optind + 4 * i + 1];
		s[i].args = argv[optind + 4 * i + 2];
		s[i].argv = split(argv[optind + 4 * i + 3]);
		s[i].us = calloc((size_t)rounds * (size_t)per, sizeof(double));
		start(&s[i]);
		request(&s[i], "initialize", "{\"protocolVersion\":\"2025-06-18\","
			"\"capabilities\":{},\"clientInfo\":{\"name\":\"mcp_interleave\",\"version\":\"1\"}}");
		if (write(s[i].in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
			  55) != 55)
			return 1;
		calls(&s[i], warm, false);
	}
	for (int r = 0; r < rounds; r++) {
		int *ord = calloc((size_t)ns, sizeof(int));

		for (int i = 0; i < ns; i++)
			ord[i] = i;
		for (int i = ns - 1; i > 0; i--) {
			int j = rand() % (i + 1), t = ord[i];

			ord[i] = ord[j];
			ord[j] = t;
		}
		for (int i = 0; i < ns; i++)
			calls(&s[ord[i]], per, true);
		free(ord);
	}
	if ((la = fopen("/proc/loadavg", "r")) != NULL) {
		if (fgets(lbuf, sizeof(lbuf), la) == NULL)
			lbuf[0] = '\0';
		fclose(la);
	}
	printf("%d rounds x %d calls each, load average %s", rounds, per, lbuf);
	for (int i = 0; i < ns; i++) {
		qsort(s[i].us, s[i].nus, sizeof(double), dcmp);
		if (strncmp(s[i].name, "ref", 3) == 0)
			ref = s[i].us[s[i].nus / 2];
	}
	for (int i = 0; i < ns; i++) {
		double m = s[i].us[s[i].nus / 2];

		printf("%-10s %-16s median %8.1f us  p10 %8.1f  p90 %8.1f  answer %6zu B  errors %d",
		       s[i].name, s[i].tool, m, s[i].us[s[i].nus / 10],
		       s[i].us[s[i].nus * 9 / 10], s[i].answer, s[i].errors);
		if (ref > 0 && strncmp(s[i].name, "ref", 3) != 0)
			printf("  ref/this %.2fx", ref / m);
		printf("\n");
		close(s[i].in);
	}
	for (int i = 0; i < ns; i++)
		waitpid(s[i].pid, NULL, 0);
	return 0;
}
