/*
 * test_wsrun_net.c - wsrun's network by name (issue 23): --net-allow,
 * --net-deny and policy network_rules through the filtering proxy.
 *
 * Only loopback: an HTTP server in this process on 127.0.0.1 (host
 * namespace), reached by name through the test-only host map
 * (WS_NET_HOSTS_FILE), which maps names only: the rules name 127.0.0.1
 * where the server must be reachable, since an allowed name resolving to
 * loopback is refused otherwise.  Nothing leaves the machine.
 */
#include "wstest.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BODY "hello from the host namespace\n"
#define PY "/usr/bin/python3"
#define CURL "/usr/bin/curl"
#define WGET "/usr/bin/wget"

static char *base, *ws, *srv, *hosts;
static int lfd = -1, port;
static pthread_t acceptor;
static char envhosts[4200];

/* Serve one request: GET /hello, or a file under srv (git's dumb HTTP). */
static void *
serve(void *arg)
{
	int c = (int)(intptr_t)arg;
	char buf[8192], path[4096], hdr[256];
	size_t n = 0;
	char *body = NULL;
	size_t blen = 0;

	while (n < sizeof(buf) - 1) {
		ssize_t r = recv(c, buf + n, sizeof(buf) - 1 - n, 0);

		if (r <= 0)
			goto out;
		n += (size_t)r;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n"))
			break;
	}
	if (sscanf(buf, "GET %4095s", path) != 1)
		goto out;
	path[strcspn(path, "?")] = '\0';
	if (strcmp(path, "/hello") == 0) {
		body = strdup(BODY);
		blen = strlen(BODY);
	} else if (strstr(path, "..") == NULL) {
		char *full = wst_path(srv, path + 1);

		body = wst_slurp(full, &blen);
		free(full);
	}
	if (body == NULL) {
		static const char nf[] = "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n";

		if (send(c, nf, sizeof(nf) - 1, MSG_NOSIGNAL) < 0)
			goto out;
		goto out;
	}
	snprintf(hdr, sizeof(hdr), "HTTP/1.0 200 OK\r\nContent-Length: %zu\r\n"
		 "X-Seen-Host: yes\r\n\r\n", blen);
	if (send(c, hdr, strlen(hdr), MSG_NOSIGNAL) < 0 ||
	    send(c, body, blen, MSG_NOSIGNAL) < 0)
		goto out;
out:
	free(body);
	close(c);
	return NULL;
}

/* Accept on the listener arg until it is shut down. */
static void *
accept_loop(void *arg)
{
	int l = (int)(intptr_t)arg;

	for (;;) {
		int c = accept(l, NULL, NULL);
		pthread_t t;

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL;
		}
		if (pthread_create(&t, NULL, serve, (void *)(intptr_t)c) != 0)
			close(c);
		else
			pthread_detach(t);
	}
}

static void
setup(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	char map[256];

	base = wst_tmpdir();
	ws = wst_path(base, "ws");
	srv = wst_path(base, "srv");
	hosts = wst_path(base, "hosts");
	wst_mkdir(base, "ws");
	wst_mkdir(base, "srv");
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(lfd, 0);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(lfd, 128), 0);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&a, &al), 0);
	port = ntohs(a.sin_port);
	ck_assert_int_eq(pthread_create(&acceptor, NULL, accept_loop,
				    (void *)(intptr_t)lfd), 0);
	/* slow.test: its lookup takes 8 s (a resolver that does not answer);
	 * never.test's 40 s, past the proxy's 15 s time-out. */
	snprintf(map, sizeof(map), "web.test 127.0.0.1\nother.test 127.0.0.1\n"
		 "# a comment\nsub.web.test 127.0.0.1\ninner.test 10.0.0.1\n"
		 "slow.test 127.0.0.1 8000\nnever.test 127.0.0.1 40000\n"
		 "mapped.test ::ffff:127.0.0.1\n");
	wst_write(base, "hosts", map);
	snprintf(envhosts, sizeof(envhosts), "WS_NET_HOSTS_FILE=%s", hosts);
}

static void
teardown(void)
{
	shutdown(lfd, SHUT_RDWR);
	close(lfd);
	pthread_join(acceptor, NULL);
	wst_rmrf(base);
	free(base);
	free(ws);
	free(srv);
	free(hosts);
}

/* Run wsrun --json with the host map, a layer set and arguments. */
static void
runa(struct wst_run *r, const char *disable, const char *const *args)
{
	char dis[128];
	const char *env[3] = {envhosts, dis, NULL};
	const char *argv[64];
	size_t n = 0;

	snprintf(dis, sizeof(dis), "WS_RUN_DISABLE=%s", disable);
	argv[n++] = "--workspace";
	argv[n++] = ws;
	argv[n++] = "--json";
	while (*args && n < 63)
		argv[n++] = *args++;
	argv[n] = NULL;
	wst_runv(r, NULL, env, "wsrun", argv);
}

#define RUN(r, dis, ...)                                                       \
	do {                                                                   \
		const char *a_[] = {__VA_ARGS__, NULL};                        \
		runa((r), (dis), a_);                                          \
	} while (0)

/* The i-th connection of the result, and one of its fields. */
static cJSON *
conn(const struct wst_run *r, int i)
{
	cJSON *net = wst_output(r, "network");

	ck_assert_msg(net != NULL, "no network in %s", r->out);
	return cJSON_GetArrayItem(cJSON_GetObjectItem(net, "connections"), i);
}

static const char *
cstr(cJSON *c, const char *k)
{
	cJSON *v = cJSON_GetObjectItem(c, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int
nconns(const struct wst_run *r)
{
	cJSON *net = wst_output(r, "network");

	return cJSON_GetArraySize(cJSON_GetObjectItem(net, "connections"));
}

static char *
url(const char *host, const char *path)
{
	char *s;

	ck_assert_int_ge(asprintf(&s, "http://%s:%d%s", host, port, path), 0);
	return s;
}

static const char *const modes[] = {"", "mountns", "seccomp"};

/* An allowed name, with a rule naming its (loopback) address: fetched by
 * Python's urllib through HTTP_PROXY; the connection is listed. */
START_TEST(allowed_urllib)
{
	struct wst_run r;
	char *u = url("web.test", "/hello"), code[512];
	cJSON *c;

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code), "import urllib.request,sys;"
		 "sys.stdout.write(urllib.request.urlopen('%s').read().decode())", u);
	RUN(&r, modes[_i], "--net-allow", "web.test", "--net-allow", "127.0.0.1",
	    "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), BODY);
	ck_assert_int_eq(nconns(&r), 1);
	c = conn(&r, 0);
	ck_assert_str_eq(cstr(c, "host"), "web.test");
	ck_assert_int_eq(cJSON_GetObjectItem(c, "port")->valueint, port);
	ck_assert_str_eq(cstr(c, "decision"), "allowed");
	ck_assert_str_eq(cstr(c, "rule"), "--net-allow web.test");
	ck_assert_str_eq(cstr(c, "address"), "127.0.0.1");
	ck_assert_int_gt(cJSON_GetObjectItem(c, "bytes_up")->valueint, 0);
	ck_assert_int_gt(cJSON_GetObjectItem(c, "bytes_down")->valueint,
			 (int)strlen(BODY));
	wst_run_free(&r);
	free(u);
}
END_TEST

/* HTTP CONNECT (what HTTPS and git use): a tunnel to the allowed name. */
START_TEST(allowed_connect_tunnel)
{
	struct wst_run r;
	char code[1024];

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code),
		 "import http.client,sys\n"
		 "c=http.client.HTTPConnection('127.0.0.1',3128)\n"
		 "c.set_tunnel('web.test',%d)\n"
		 "c.request('GET','/hello')\n"
		 "sys.stdout.write(c.getresponse().read().decode())\n", port);
	RUN(&r, modes[_i], "--net-allow", "web.test", "--net-allow", "127.0.0.1",
	    "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), BODY);
	ck_assert_str_eq(cstr(conn(&r, 0), "decision"), "allowed");
	wst_run_free(&r);
}
END_TEST

/* A name no rule allows: 403 with the reason, listed as refused. */
START_TEST(denied_with_reason)
{
	struct wst_run r;
	char *u = url("other.test", "/hello"), code[1024];

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code),
		 "import urllib.request,urllib.error,sys\n"
		 "try:\n urllib.request.urlopen('%s')\n"
		 "except urllib.error.HTTPError as e:\n"
		 " print(e.code, e.headers.get('X-Wsrun-Refused'))\n", u);
	RUN(&r, modes[_i], "--net-allow", "web.test", "--net-allow", "127.0.0.1",
	    "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_msg(strstr(wst_output_str(&r, "stdout"),
			     "403 other.test is not allowed") != NULL, "%.800s", r.out);
	ck_assert_str_eq(cstr(conn(&r, 0), "decision"), "refused");
	ck_assert_str_eq(cstr(conn(&r, 0), "host"), "other.test");
	wst_run_free(&r);
	/* --net-deny wins over a broader allow, and names itself. */
	RUN(&r, modes[_i], "--net-allow", "*.test", "--net-allow", "127.0.0.1",
	    "--net-deny", "other.test", "--", PY, "-c", code);
	ck_assert_msg(strstr(wst_output_str(&r, "stdout"),
			     "403 other.test is denied by rule \"--net-deny "
			     "other.test\"") != NULL, "%.800s", r.out);
	wst_run_free(&r);
	free(u);
}
END_TEST

/*
 * An allowed name that does not resolve is the way out failing, as a
 * refused connection is (502), not a refusal (403 read "Forbidden": a
 * client said the host was not allowed when it was).
 */
START_TEST(unresolved_is_bad_gateway)
{
	struct wst_run r;
	char *u = url("nosuch.invalid", "/hello"), code[1024];

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code),
		 "import urllib.request,urllib.error\n"
		 "try: urllib.request.urlopen('%s')\n"
		 "except urllib.error.HTTPError as e:\n"
		 " print(e.code, e.headers.get('X-Wsrun-Refused'))\n", u);
	RUN(&r, "", "--net-allow", "nosuch.invalid", "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"),
			 "502 nosuch.invalid does not resolve\n");
	ck_assert_str_eq(cstr(conn(&r, 0), "decision"), "refused");
	wst_run_free(&r);
	free(u);
}
END_TEST

/* "*.web.test" is the subdomains only, as in sandbox-runtime. */
START_TEST(wildcard_subdomains_only)
{
	struct wst_run r;
	char *u1 = url("sub.web.test", "/hello"), *u2 = url("web.test", "/hello");
	char code[1024];

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code),
		 "import urllib.request,urllib.error\n"
		 "for u in ('%s','%s'):\n"
		 " try: print(urllib.request.urlopen(u).status)\n"
		 " except urllib.error.HTTPError as e: print(e.code)\n", u1, u2);
	RUN(&r, "", "--net-allow", "*.web.test", "--net-allow", "127.0.0.1",
	    "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "200\n403\n");
	wst_run_free(&r);
	free(u1);
	free(u2);
}
END_TEST

/* An allowed name resolving to loopback, with no rule naming 127.0.0.1,
 * is refused: no pivot to the host's own services. */
START_TEST(loopback_needs_address_rule)
{
	struct wst_run r;
	char *u = url("web.test", "/hello"), code[1024];

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code),
		 "import urllib.request,urllib.error\n"
		 "try: urllib.request.urlopen('%s')\n"
		 "except urllib.error.HTTPError as e: print(e.code)\n", u);
	RUN(&r, "", "--net-allow", "web.test", "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "403\n");
	ck_assert_msg(strstr(cstr(conn(&r, 0), "reason"), "internal address") != NULL,
		      "%.800s", r.out);
	wst_run_free(&r);
	/*
	 * Nor an IP literal no rule names (asked of the proxy directly:
	 * NO_PROXY sends clients to 127.0.0.1 straight, where nothing
	 * listens), nor the host's 127.0.0.1:3128.
	 */
	snprintf(code, sizeof(code),
		 "import http.client\n"
		 "for x in ('http://127.0.0.1:%d/hello','http://127.0.0.1:3128/',"
		 "'http://[::1]:%d/'):\n"
		 " c=http.client.HTTPConnection('127.0.0.1',3128)\n"
		 " c.request('GET',x)\n"
		 " print(c.getresponse().status)\n", port, port);
	RUN(&r, "", "--net-allow", "web.test", "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "403\n403\n403\n");
	wst_run_free(&r);
	free(u);
}
END_TEST

/* Everything but the proxy stays shut: a direct connection to the
 * server's address, the same with the proxy variables unset (fails
 * closed), UDP (DNS) and TCP to an outside address (TEST-NET-1, never
 * routed), raw sockets; with each layer set.  (Without seccomp a UDP
 * socket on the namespace's own loopback works: it reaches nothing.) */
START_TEST(other_ways_out_refused)
{
	struct wst_run r;
	char code[2048];

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code),
		 "import socket,os,urllib.request\n"
		 "def t(name,f):\n"
		 " try: f(); print(name,'OPEN')\n"
		 " except Exception as e: print(name,'shut')\n"
		 "t('direct',lambda: socket.create_connection(('127.0.0.1',%d),timeout=3))\n"
		 "t('udp',lambda: socket.socket(socket.AF_INET,socket.SOCK_DGRAM)"
		 ".sendto(b'x',('192.0.2.1',53)))\n"
		 "t('tcp-out',lambda: socket.create_connection(('192.0.2.1',80),timeout=3))\n"
		 "t('raw',lambda: socket.socket(socket.AF_INET,socket.SOCK_RAW,1))\n"
		 "t('dns',lambda: socket.getaddrinfo('web.test',80))\n"
		 "t('v6',lambda: socket.create_connection(('::1',%d),timeout=3))\n"
		 "for k in [k for k in os.environ if k.lower().endswith('_proxy')]:"
		 " del os.environ[k]\n"
		 "t('noproxy',lambda: urllib.request.urlopen('http://127.0.0.1:%d/hello',"
		 "timeout=3))\n", port, port, port);
	RUN(&r, modes[_i], "--net-allow", "web.test", "--net-allow", "127.0.0.1",
	    "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_msg(strstr(wst_output_str(&r, "stdout"), "OPEN") == NULL,
		      "%s: %s", modes[_i], wst_output_str(&r, "stdout"));
	ck_assert_msg(strstr(wst_output_str(&r, "stdout"), "noproxy shut") != NULL,
		      "%.800s", r.out);
	wst_run_free(&r);
}
END_TEST

/* curl (a policy's command_rules replace the built-in list that blocks
 * it) over plain HTTP and through CONNECT; and policy network_rules. */
START_TEST(curl_and_policy_rules)
{
	struct wst_run r;
	char *u, pol[1024], *pp;

	if (access("/usr/bin/curl", X_OK) != 0)
		return;
	u = url("web.test", "/hello");
	snprintf(pol, sizeof(pol),
		 "{\"version\": 1, \"name\": \"nettest\","
		 " \"command_rules\": [{\"name\": \"any\", \"patterns\": [\"\"],"
		 " \"decision\": \"allow\"}],"
		 " \"network_rules\": ["
		 "  {\"name\": \"no-other\", \"hosts\": [\"other.test\"], \"decision\": \"deny\"},"
		 "  {\"name\": \"web\", \"hosts\": [\"${WST_HOST}\", \"127.0.0.1\"],"
		 "   \"decision\": \"allow\"}]}");
	wst_write(base, "pol.json", pol);
	pp = wst_path(base, "pol.json");
	setenv("WST_HOST", "web.test", 1);
	{
		const char *a[] = {"--policy", pp, "--", "/usr/bin/curl", "-sS", u, NULL};

		runa(&r, "", a);
	}
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), BODY);
	ck_assert_str_eq(cstr(conn(&r, 0), "rule"), "web");
	wst_run_free(&r);
	{
		const char *a[] = {"--policy", pp, "--", "/usr/bin/curl", "-sS", "-p", u, NULL};

		runa(&r, "", a);
	}
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), BODY);
	wst_run_free(&r);
	free(u);
	u = url("other.test", "/hello");
	{
		const char *a[] = {"--policy", pp, "--", "/usr/bin/curl", "-s", "-o",
				   "/dev/null", "-w", "%{http_code}", u, NULL};

		runa(&r, "", a);
	}
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "403");
	ck_assert_str_eq(cstr(conn(&r, 0), "rule"), "no-other");
	wst_run_free(&r);
	unsetenv("WST_HOST");
	free(pp);
	free(u);
}
END_TEST

/* git clone over (dumb) HTTP through the proxy, over HTTP and SOCKS5. */
START_TEST(git_over_http)
{
	struct wst_run r;
	char cmd[4096], *u;
	int rc;

	if (access("/usr/bin/git", X_OK) != 0)
		return;
	snprintf(cmd, sizeof(cmd),
		 "set -e; cd '%s'; git init -q src; cd src; echo hi > f;"
		 " git add f; git -c user.name=t -c user.email=t@t commit -qm x;"
		 " cd ..; git clone -q --bare src repo.git;"
		 " git -C repo.git update-server-info", srv);
	rc = system(cmd);
	ck_assert_int_eq(rc, 0);
	u = url("web.test", "/repo.git");
	{
		const char *a[] = {"--net-allow", "web.test", "--net-allow", "127.0.0.1",
				   "--", "/usr/bin/git", "clone", "-q", u, "c", NULL};

		runa(&r, "", a);
	}
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	{
		char *f = wst_path(ws, "c/f"), *s = wst_slurp(f, NULL);

		ck_assert_str_eq(s, "hi\n");
		free(s);
		free(f);
	}
	wst_run_free(&r);
	/* And through SOCKS5, as the manual shows it. */
	{
		const char *a[] = {"--net-allow", "web.test", "--net-allow", "127.0.0.1",
				   "--", "/usr/bin/git", "-c",
				   "http.proxy=socks5h://127.0.0.1:3128", "clone", "-q",
				   u, "c2", NULL};

		runa(&r, "", a);
	}
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	{
		char *f = wst_path(ws, "c2/f"), *s = wst_slurp(f, NULL);

		ck_assert_str_eq(s, "hi\n");
		free(s);
		free(f);
	}
	wst_run_free(&r);
	free(u);
}
END_TEST

/* Many connections at once: every one served and listed. */
START_TEST(parallel_connections)
{
	struct wst_run r;
	char *u = url("web.test", "/hello"), code[1024];
	cJSON *v;
	int ok = 0;

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code),
		 "import urllib.request,concurrent.futures as f\n"
		 "def g(i): return urllib.request.urlopen('%s',timeout=20).read()\n"
		 "with f.ThreadPoolExecutor(50) as x: r=list(x.map(g,range(50)))\n"
		 "print(sum(1 for b in r if b==b'%s'))\n", u, "hello from the host namespace\\n");
	RUN(&r, "", "--net-allow", "web.test", "--net-allow", "127.0.0.1",
	    "--timeout", "60", "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "50\n");
	ck_assert_int_eq(nconns(&r), 50);
	cJSON_ArrayForEach(v, cJSON_GetObjectItem(wst_output(&r, "network"), "connections"))
		ok += strcmp(cstr(v, "decision"), "allowed") == 0;
	ck_assert_int_eq(ok, 50);
	wst_run_free(&r);
	free(u);
}
END_TEST

/* Plain mode prints each refused connection on stderr; without a network
 * namespace the call is refused; --net excludes --net-allow. */
START_TEST(plain_refusals_and_limits)
{
	struct wst_run r;
	char *u = url("other.test", "/x"), code[512], dis[64];
	const char *env[3] = {envhosts, dis, NULL};

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code), "import urllib.request\n"
		 "try: urllib.request.urlopen('%s')\nexcept Exception: pass\n", u);
	snprintf(dis, sizeof(dis), "WS_RUN_DISABLE=");
	{
		const char *a[] = {"--workspace", ws, "--plain", "--net-allow", "web.test",
				   "--", PY, "-c", code, NULL};

		wst_runv(&r, NULL, env, "wsrun", a);
	}
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.err, "wsrun: network: refused other.test port") != NULL,
		      "%s", r.err);
	wst_run_free(&r);
	RUN(&r, "netns", "--net-allow", "web.test", "--", "true");
	ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
	wst_run_free(&r);
	RUN(&r, "", "--net", "--net-allow", "web.test", "--", "true");
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	RUN(&r, "", "--net-allow", "bad name", "--", "true");
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	free(u);
}
END_TEST

/*
 * Node: NODE_USE_ENV_PROXY=1 is set, so fetch() goes through the proxy
 * on Node 22.21 and later 22s, and 24 and later; older Node ignores it
 * and fetch() fails (no DNS inside: fails closed).  http.request through
 * the proxy works on every version.
 */
START_TEST(node_fetch_and_http)
{
	struct wst_run r;
	char code[1024], ver[64] = "", *vs;
	int major = 0, minor = 0;
	bool env_proxy;
	FILE *f;

	if (access("/usr/bin/node", X_OK) != 0) {
		fprintf(stderr, "node_fetch_and_http: skipped: no /usr/bin/node\n");
		return;
	}
	if ((f = popen("/usr/bin/node --version", "r")) != NULL) {
		if (fgets(ver, sizeof(ver), f) == NULL)
			ver[0] = '\0';
		pclose(f);
	}
	ver[strcspn(ver, "\n")] = '\0';
	vs = ver[0] == 'v' ? ver + 1 : ver;
	ck_assert_int_eq(sscanf(vs, "%d.%d", &major, &minor), 2);
	env_proxy = major >= 24 || (major == 22 && minor >= 21);
	if (!env_proxy)
		fprintf(stderr, "node_fetch_and_http: node %s does not read "
			"NODE_USE_ENV_PROXY (22.21+ or 24+ does): fetch() through "
			"the proxy not tested, only that it fails closed\n", ver);
	snprintf(code, sizeof(code),
		 "console.log(process.env.NODE_USE_ENV_PROXY);"
		 "fetch('http://web.test:%d/hello').then(r=>r.text())"
		 ".then(t=>console.log('fetch',t.trim()))"
		 ".catch(e=>console.log('fetch failed')).finally(()=>"
		 "require('http').get({host:'127.0.0.1',port:3128,"
		 "path:'http://web.test:%d/hello',headers:{Host:'web.test:%d'}},"
		 "r=>console.log('http',r.statusCode)))", port, port, port);
	RUN(&r, "", "--net-allow", "web.test", "--net-allow", "127.0.0.1",
	    "--", "/usr/bin/node", "-e", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), env_proxy ?
			 "1\nfetch hello from the host namespace\nhttp 200\n" :
			 "1\nfetch failed\nhttp 200\n");
	wst_run_free(&r);
}
END_TEST

/* An approve rule: refused without an answer (no terminal here), with
 * the reason; --approve approves it. */
START_TEST(approve_rule)
{
	struct wst_run r;
	char *u = url("web.test", "/hello"), code[1024], *pp;

	if (access(PY, X_OK) != 0)
		return;
	wst_write(base, "ask.json",
		  "{\"version\": 1, \"network_rules\": ["
		  "{\"name\": \"lo\", \"hosts\": [\"127.0.0.1\"], \"decision\": \"allow\"},"
		  "{\"name\": \"ask-web\", \"hosts\": [\"web.test\"], \"decision\": \"approve\"}]}");
	pp = wst_path(base, "ask.json");
	snprintf(code, sizeof(code),
		 "import urllib.request,urllib.error\n"
		 "try: print(urllib.request.urlopen('%s').status)\n"
		 "except urllib.error.HTTPError as e: print(e.code)\n", u);
	RUN(&r, "", "--policy", pp, "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "403\n");
	ck_assert_msg(strstr(cstr(conn(&r, 0), "reason"), "needs approval") != NULL,
		      "%.800s", r.out);
	wst_run_free(&r);
	RUN(&r, "", "--policy", pp, "--approve", "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "200\n");
	ck_assert_str_eq(cstr(conn(&r, 0), "rule"), "ask-web");
	wst_run_free(&r);
	free(pp);
	free(u);
}
END_TEST

/*
 * --isolate strict refuses connect() on UNIX sockets; with network by
 * name it refuses making one instead, so that connect() stays for the
 * proxy's TCP port (socketpair works).
 */
START_TEST(strict_mode)
{
	struct wst_run r;
	char *u = url("web.test", "/hello"), code[1024];

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code),
		 "import urllib.request,socket\n"
		 "print(urllib.request.urlopen('%s').status)\n"
		 "try: socket.socket(socket.AF_UNIX); print('unix OPEN')\n"
		 "except OSError as e: print('unix', e.errno)\n"
		 "socket.socketpair(); print('pair')\n", u);
	RUN(&r, "", "--isolate", "strict", "--net-allow", "web.test", "--net-allow",
	    "127.0.0.1", "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "200\nunix 1\npair\n");
	wst_run_free(&r);
	free(u);
}
END_TEST

/* Connections one after the other, more than may be open at once
 * (512): only open ones count, so a long build's thousands pass. */
START_TEST(many_sequential_connections)
{
	struct wst_run r;
	char *u = url("web.test", "/hello"), code[1024];

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code),
		 "import urllib.request\n"
		 "n=0\n"
		 "for i in range(600):\n"
		 " n+=urllib.request.urlopen('%s',timeout=10).status==200\n"
		 "print(n)\n", u);
	RUN(&r, "", "--net-allow", "web.test", "--net-allow", "127.0.0.1",
	    "--timeout", "100", "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "600\n");
	ck_assert_int_eq(nconns(&r), 600);
	wst_run_free(&r);
	free(u);
}
END_TEST

/* Under --args (a model reads it) at most 50 connections are listed,
 * the refused ones first, with the totals. */
START_TEST(args_compact_list)
{
	struct wst_run r;
	char script[1024], args[1400];
	cJSON *net, *first;

	if (access(PY, X_OK) != 0)
		return;
	snprintf(script, sizeof(script),
		 "import urllib.request as u\\n"
		 "for i in range(55): u.urlopen('http://web.test:%d/hello').read()\\n"
		 "try: u.urlopen('http://other.test:%d/')\\n"
		 "except Exception: pass\\n", port, port);
	snprintf(args, sizeof(args), "{\"command\": [\"%s\", \"-c\", \"%s\"]}",
		 PY, script);
	RUN(&r, "", "--net-allow", "web.test", "--net-allow", "127.0.0.1",
	    "--args", args);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	net = wst_output(&r, "network");
	ck_assert_int_eq(cJSON_GetObjectItem(net, "connections_total")->valueint, 56);
	ck_assert_int_eq(cJSON_GetObjectItem(net, "connections_refused")->valueint, 1);
	ck_assert_int_eq(nconns(&r), 50);
	first = conn(&r, 0);
	ck_assert_str_eq(cstr(first, "host"), "other.test");
	ck_assert_str_eq(cstr(first, "decision"), "refused");
	wst_run_free(&r);
}
END_TEST

/* The first connection of the result to host, or NULL. */
static cJSON *
conn_to(const struct wst_run *r, const char *host)
{
	cJSON *v;

	cJSON_ArrayForEach(v, cJSON_GetObjectItem(wst_output(r, "network"), "connections"))
		if (cstr(v, "host") && strcmp(cstr(v, "host"), host) == 0)
			return v;
	ck_abort_msg("no connection to %s in %.2000s", host, r->out);
	return NULL;
}

/*
 * A raw SOCKS5 client (RFC 1928) in Python, written into the workspace:
 * "checks PORT" tries each case and prints its reply code, "par PORT N"
 * fetches through N connections at once and prints how many worked.
 * Every socket has a time-out: a proxy that hangs fails the case.
 */
static const char s5py[] =
	"import socket,struct,sys,time,threading\n"
	"P=('127.0.0.1',3128)\n"
	"def recvn(s,n):\n"
	" b=b''\n"
	" while len(b)<n:\n"
	"  d=s.recv(n-len(b))\n"
	"  if not d: break\n"
	"  b+=d\n"
	" return b\n"
	"def name(h,p,cmd=1):\n"
	" b=h.encode(); return bytes([5,cmd,0,3,len(b)])+b+struct.pack('>H',p)\n"
	"def v4(a,p): return bytes([5,1,0,1])+socket.inet_aton(a)+struct.pack('>H',p)\n"
	"def v6(a,p): return bytes([5,1,0,4])+socket.inet_pton(socket.AF_INET6,a)+struct.pack('>H',p)\n"
	"def s5(req,methods=b'\\x00',get=False):\n"
	" s=socket.create_connection(P,timeout=5)\n"
	" s.sendall(bytes([5,len(methods)])+methods)\n"
	" g=recvn(s,2)\n"
	" if g!=b'\\x05\\x00': return 'method %d'%g[1]\n"
	" s.sendall(req)\n"
	" r=recvn(s,10)\n"
	" if len(r)<2: return 'closed'\n"
	" if r[1]!=0 or not get: return str(r[1])\n"
	" s.sendall(b'GET /hello HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n')\n"
	" b=b''\n"
	" while True:\n"
	"  d=s.recv(4096)\n"
	"  if not d: break\n"
	"  b+=d\n"
	" return '0 '+b.split(b'\\r\\n\\r\\n',1)[1].decode().strip()\n"
	"def short(raw):\n"
	" s=socket.create_connection(P,timeout=5); t=time.time()\n"
	" s.sendall(raw); s.shutdown(socket.SHUT_WR)\n"
	" try: d=s.recv(100)\n"
	" except socket.timeout: return 'hung'\n"
	" return 'closed' if time.time()-t<3 else 'slow'\n"
	"port=int(sys.argv[2])\n"
	"if sys.argv[1]=='checks':\n"
	" print('web',s5(name('web.test',port),get=True))\n"
	" print('other',s5(name('other.test',port)))\n"
	" print('inner',s5(name('inner.test',port)))\n"
	" print('lit4ok',s5(v4('127.0.0.1',port),get=True))\n"
	" print('lit4',s5(v4('127.0.0.2',port)))\n"
	" print('lit6',s5(v6('::1',port)))\n"
	" print('litname',s5(name('127.0.0.2',port)))\n"
	" print('bind',s5(name('web.test',port,2)))\n"
	" print('udp',s5(name('web.test',port,3)))\n"
	" print('atyp',s5(bytes([5,1,0,9,0,0])))\n"
	" print('auth',s5(b'',methods=b'\\x02'))\n"
	" print('ver',s5(bytes([4,1,0,3,1])+b'x\\x00\\x50'))\n"
	" print('empty',s5(bytes([5,1,0,3,0,0,80])))\n"
	" print('short1',short(b'\\x05'))\n"
	" print('short2',short(b'\\x05\\x03\\x00'))\n"
	" print('short3',short(b'\\x05\\x01\\x00\\x05\\x01\\x00\\x03\\x08web'))\n"
	" print('nul',s5(name('web.test\\x00x',port)))\n"
	"elif sys.argv[1]=='spell':\n"
	" for h in ['127.1','0x7f000001','2130706433','0177.0.0.1','127.0.0.1.','web.test',\n"
	"           'mapped.test','::ffff:127.0.0.1','64:ff9b::7f00:1']:\n"
	"  print(h,s5(name(h,port)))\n"
	" s=socket.create_connection(P,timeout=5)\n"
	" s.sendall(('CONNECT 0x7f.1:%d HTTP/1.1\\r\\n\\r\\n'%port).encode())\n"
	" print('http',recvn(s,12).decode()[9:])\n"
	"else:\n"
	" n=int(sys.argv[3]); ok=[0]; lk=threading.Lock()\n"
	" def one(i):\n"
	"  try:\n"
	"   if s5(name('web.test',port),get=True)=='0 hello from the host namespace':\n"
	"    with lk: ok[0]+=1\n"
	"  except Exception as e: print(e)\n"
	" ts=[threading.Thread(target=one,args=(i,)) for i in range(n)]\n"
	" [t.start() for t in ts]; [t.join() for t in ts]\n"
	" print(ok[0])\n";

/*
 * SOCKS5 on the proxy's port (told apart from HTTP by its first byte):
 * CONNECT to an allowed name resolved by the proxy (socks5h); a denied
 * name refused with reply 2 (not allowed by the rules) and listed with
 * its rule; an allowed name resolving to an internal address, and
 * address literals no rule names, refused alike; BIND and UDP ASSOCIATE
 * refused with 7, an unknown address type with 8, no acceptable method
 * with 0xff; malformed or cut-short requests answered or closed at once.
 */
START_TEST(socks5_raw)
{
	struct wst_run r;
	char pa[16], *py;
	cJSON *c;

	if (access(PY, X_OK) != 0)
		return;
	wst_write(ws, "s5.py", s5py);
	py = wst_path(ws, "s5.py");
	snprintf(pa, sizeof(pa), "%d", port);
	RUN(&r, modes[_i], "--net-allow", "web.test", "--net-allow", "inner.test",
	    "--net-allow", "127.0.0.1", "--net-deny", "other.test",
	    "--", PY, "s5.py", "checks", pa);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"),
			 "web 0 hello from the host namespace\n"
			 "other 2\ninner 2\n"
			 "lit4ok 0 hello from the host namespace\n"
			 "lit4 2\nlit6 2\nlitname 2\n"
			 "bind 7\nudp 7\natyp 8\nauth method 255\nver 1\nempty 1\n"
			 "short1 closed\nshort2 closed\nshort3 closed\nnul 1\n");
	c = conn_to(&r, "web.test");
	ck_assert_str_eq(cstr(c, "decision"), "allowed");
	ck_assert_str_eq(cstr(c, "rule"), "--net-allow web.test");
	ck_assert_int_eq(cJSON_GetObjectItem(c, "port")->valueint, port);
	ck_assert_int_gt(cJSON_GetObjectItem(c, "bytes_down")->valueint, (int)strlen(BODY));
	c = conn_to(&r, "other.test");
	ck_assert_str_eq(cstr(c, "decision"), "refused");
	ck_assert_str_eq(cstr(c, "rule"), "--net-deny other.test");
	ck_assert_msg(strstr(cstr(c, "reason"), "denied by rule") != NULL, "%s", r.out);
	ck_assert_msg(strstr(cstr(conn_to(&r, "inner.test"), "reason"),
			     "internal address") != NULL, "%s", r.out);
	ck_assert_str_eq(cstr(conn_to(&r, "::1"), "decision"), "refused");
	ck_assert_msg(strstr(cstr(conn_to(&r, "127.0.0.2"), "reason"), "not allowed")
		      != NULL, "%s", r.out);
	ck_assert_str_eq(cstr(conn_to(&r, "127.0.0.1"), "decision"), "allowed");
	ck_assert_msg(strstr(r.out, "SOCKS5 BIND is not supported") != NULL, "%s", r.out);
	ck_assert_msg(strstr(r.out, "SOCKS5 UDP ASSOCIATE is not supported") != NULL,
		      "%s", r.out);
	wst_run_free(&r);
	free(py);
}
END_TEST

/*
 * Another spelling of an address is that address: a deny rule naming
 * 127.0.0.1 refuses "127.1", "0x7f000001", "2130706433", "0177.0.0.1"
 * (which getaddrinfo() reads as 127.0.0.1, and which "*" let through as
 * names), over SOCKS5 and HTTP CONNECT alike, and a name that resolves
 * to it (web.test) too, whatever rule let the name through; and its
 * IPv4-mapped IPv6 form (::ffff:127.0.0.1, asked for or resolved to:
 * mapped.test) is the same address.
 */
START_TEST(address_spellings)
{
	struct wst_run r;
	char pa[16];

	if (access(PY, X_OK) != 0)
		return;
	wst_write(ws, "s5.py", s5py);
	snprintf(pa, sizeof(pa), "%d", port);
	RUN(&r, "", "--net-deny", "127.0.0.1", "--net-allow", "*", "--net-allow",
	    "127.0.0.1", "--net-allow", "::ffff:127.0.0.1", "--net-allow",
	    "64:ff9b::7f00:1", "--", PY, "s5.py", "spell", pa);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"),
			 "127.1 2\n0x7f000001 2\n2130706433 2\n0177.0.0.1 2\n"
			 "127.0.0.1. 2\nweb.test 2\nmapped.test 2\n::ffff:127.0.0.1 2\n"
			 "64:ff9b::7f00:1 2\nhttp 403\n");
	ck_assert_str_eq(cstr(conn_to(&r, "web.test"), "rule"), "--net-deny 127.0.0.1");
	ck_assert_msg(strstr(cstr(conn_to(&r, "web.test"), "reason"),
			     "resolves to 127.0.0.1, which rule") != NULL, "%s", r.out);
	ck_assert_str_eq(cstr(conn(&r, 0), "host"), "127.0.0.1");
	ck_assert_str_eq(cstr(conn(&r, 0), "rule"), "--net-deny 127.0.0.1");
	wst_run_free(&r);
}
END_TEST

/*
 * The HTTP path takes a host name or an address literal, nothing else,
 * as SOCKS5 does: a control byte or an '@' in the authority is a
 * malformed request (400), not a name passed to the resolver under a
 * "*.test" rule.
 */
START_TEST(http_host_bytes)
{
	struct wst_run r;
	char code[1024];

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code),
		 "import socket,os\n"
		 "P=('127.0.0.1',int(os.environ['HTTP_PROXY'].rsplit(':',1)[1].strip('/')))\n"
		 "for req in [b'CONNECT we\\x01b.test:%d HTTP/1.1\\r\\n\\r\\n',\n"
		 "            b'CONNECT user@web.test:%d HTTP/1.1\\r\\n\\r\\n',\n"
		 "            b'GET http://web\\xc3\\xa9.test:%d/hello HTTP/1.1\\r\\n\\r\\n',\n"
		 "            b'GET http://web.test:%d/hello HTTP/1.1\\r\\n\\r\\n']:\n"
		 " s=socket.create_connection(P,timeout=10); s.sendall(req)\n"
		 " print(s.recv(64).split(b' ')[1].decode()); s.close()\n",
		 port, port, port, port);
	RUN(&r, "", "--net-allow", "*.test", "--net-allow", "127.0.0.1",
	    "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "400\n400\n400\n200\n");
	wst_run_free(&r);
}
END_TEST

/*
 * A resolver that does not answer costs a bounded number of threads:
 * with 80 lookups of a name that takes 8 s, 64 are in flight and the
 * other 16 are refused at once (503), not 80 threads waiting.
 */
START_TEST(lookups_capped)
{
	struct wst_run r;
	char code[1024];

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code),
		 "import urllib.request,urllib.error,concurrent.futures as f\n"
		 "def g(i):\n"
		 " try: return urllib.request.urlopen('http://slow.test:%d/hello',timeout=40).status\n"
		 " except urllib.error.HTTPError as e: return e.code\n"
		 "with f.ThreadPoolExecutor(80) as x: r=list(x.map(g,range(80)))\n"
		 "print(r.count(200),r.count(503))\n", port);
	RUN(&r, "", "--net-allow", "*.test", "--net-allow", "127.0.0.1",
	    "--timeout", "60", "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "64 16\n");
	ck_assert_msg(strstr(r.out, "64 lookups are in flight") != NULL, "%.800s", r.out);
	wst_run_free(&r);
}
END_TEST

/*
 * The test-only host map maps names to internal addresses only: a line
 * mapping an allowed name to a public address is skipped, so whoever
 * sets WS_NET_HOSTS_FILE cannot send an allowed name anywhere.
 */
START_TEST(map_public_skipped)
{
	struct wst_run r;
	char code[512];

	if (access(PY, X_OK) != 0)
		return;
	wst_write(base, "hosts", "web.test 127.0.0.1\nwide.test 192.0.2.1\n");
	snprintf(code, sizeof(code),
		 "import urllib.request,urllib.error\n"
		 "try: urllib.request.urlopen('http://wide.test:%d/hello',timeout=30)\n"
		 "except urllib.error.HTTPError as e: print(e.code)\n", port);
	RUN(&r, "", "--net-allow", "*.test", "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	/* Not mapped: looked up for real, where .test has no names (502),
	 * or the resolver is unreachable (504). */
	ck_assert_msg(strcmp(wst_output_str(&r, "stdout"), "502\n") == 0 ||
		      strcmp(wst_output_str(&r, "stdout"), "504\n") == 0,
		      "%.400s", r.out);
	ck_assert_msg(strstr(r.out, "192.0.2.1") == NULL, "%.800s", r.out);
	wst_run_free(&r);
}
END_TEST

/*
 * In a network namespace of this test's own: loopback up, with
 * 198.51.100.7/32 (label lo:7), 203.0.113.1/24 (lo:8) and 2001:db8::7
 * on it, the host's own addresses in ranges the proxy does not call
 * internal (a VPS's public IPv4, a laptop's global IPv6).  0, or -1 with
 * why.
 */
static int
own_netns(char *why, size_t wl)
{
	struct ifreq ifr;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	struct {
		struct in6_addr addr;
		uint32_t prefixlen;
		int ifindex;
	} i6;
	int s4 = -1, s6 = -1, rc = -1;

	if (unshare(CLONE_NEWNET) != 0) {
		snprintf(why, wl, "no network namespace (%s)", strerror(errno));
		return -1;
	}
	if ((s4 = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
	    (s6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		goto err;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(s4, SIOCGIFFLAGS, &ifr) < 0)
		goto err;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s4, SIOCSIFFLAGS, &ifr) < 0)
		goto err;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo:7");
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, "198.51.100.7", &sin->sin_addr);
	if (ioctl(s4, SIOCSIFADDR, &ifr) < 0)
		goto err;
	/* The address alone, not its /24: nothing beside it is local. */
	inet_pton(AF_INET, "255.255.255.255", &sin->sin_addr);
	if (ioctl(s4, SIOCSIFNETMASK, &ifr) < 0)
		goto err;
	/* 203.0.113.1/24 on lo: the whole /24 is delivered locally (a local
	 * route, as AnyIP's), though getifaddrs() lists .1 alone. */
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo:8");
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, "203.0.113.1", &sin->sin_addr);
	if (ioctl(s4, SIOCSIFADDR, &ifr) < 0)
		goto err;
	inet_pton(AF_INET, "255.255.255.0", &sin->sin_addr);
	if (ioctl(s4, SIOCSIFNETMASK, &ifr) < 0)
		goto err;
	memset(&i6, 0, sizeof(i6));
	inet_pton(AF_INET6, "2001:db8::7", &i6.addr);
	i6.prefixlen = 128;
	i6.ifindex = (int)if_nametoindex("lo");
	if (ioctl(s6, SIOCSIFADDR, &i6) < 0)
		goto err;
	rc = 0;
	goto out;
err:
	snprintf(why, wl, "cannot set up loopback (%s)", strerror(errno));
out:
	if (s4 >= 0)
		close(s4);
	if (s6 >= 0)
		close(s6);
	return rc;
}

/*
 * review30 02: an allowed name resolving to one of the host's own
 * addresses is refused like loopback, whatever range the address is
 * in: the proxy connects from the host's network namespace, where that
 * address is local delivery to every service listening on 0.0.0.0 or
 * ::; and so is one the host delivers to itself without holding it (a
 * prefix on lo, AnyIP).  The names come from /etc/hosts (bound in a
 * private mount namespace: the test-only map takes internal addresses
 * only), the server listens on :: in the test's network namespace.  A
 * rule naming the address lets it through, as for loopback.
 */
START_TEST(own_address_refused)
{
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
	socklen_t al = sizeof(a6);
	char why[256], code[1024], *etc = wst_path(base, "etc-hosts"), *wrapper = NULL;
	const char *wv, *reason;
	struct wst_run r;
	pthread_t t;
	int l = -1, p, off = 0;

	if (access(PY, X_OK) != 0 || geteuid() != 0) {
		fprintf(stderr, "own_address_refused: needs root and %s, not checked\n", PY);
		goto out;
	}
	if (unshare(CLONE_NEWNS) != 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		fprintf(stderr, "own_address_refused: no mount namespace here (%s), "
			"not checked\n", strerror(errno));
		goto out;
	}
	if (own_netns(why, sizeof(why)) < 0) {
		fprintf(stderr, "own_address_refused: %s, not checked\n", why);
		goto out;
	}
	wst_write(base, "etc-hosts", "127.0.0.1 localhost\n"
		  "198.51.100.7 own4.example\n2001:db8::7 own6.example\n"
		  "203.0.113.77 anyip.example\n");
	if (mount(etc, "/etc/hosts", NULL, MS_BIND, NULL) != 0) {
		fprintf(stderr, "own_address_refused: cannot bind /etc/hosts (%s), "
			"not checked\n", strerror(errno));
		goto out;
	}
	/* The valgrind pass's tool server lives outside these namespaces. */
	if ((wv = getenv("WST_TOOL_WRAPPER")) != NULL) {
		wrapper = strdup(wv);
		unsetenv("WST_TOOL_WRAPPER");
	}
	l = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(l, 0);
	ck_assert_int_eq(setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)), 0);
	ck_assert_int_eq(bind(l, (struct sockaddr *)&a6, sizeof(a6)), 0);
	ck_assert_int_eq(listen(l, 16), 0);
	ck_assert_int_eq(getsockname(l, (struct sockaddr *)&a6, &al), 0);
	p = ntohs(a6.sin6_port);
	ck_assert_int_eq(pthread_create(&t, NULL, accept_loop, (void *)(intptr_t)l), 0);
	snprintf(code, sizeof(code),
		 "import urllib.request,urllib.error\n"
		 "for h in ('own4.example','own6.example','anyip.example'):\n"
		 " try: print(urllib.request.urlopen('http://%%s:%d/hello' %% h,"
		 "timeout=20).read().decode().strip())\n"
		 " except urllib.error.HTTPError as e: print(e.code)\n", p);
	RUN(&r, "", "--net-allow", "*.example", "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_msg(strcmp(wst_output_str(&r, "stdout"), "403\n403\n403\n") == 0,
		      "%.1200s", r.out);
	reason = cstr(conn(&r, 0), "reason");
	ck_assert_msg(reason && strstr(reason, "own4.example resolves to 198.51.100.7, "
				       "an internal address: an address of this "
				       "host (lo:7's 198.51.100.7)") != NULL, "%.1200s", r.out);
	reason = cstr(conn(&r, 1), "reason");
	ck_assert_msg(reason && strstr(reason, "an address of this host (lo's "
				       "2001:db8::7)") != NULL, "%.1200s", r.out);
	reason = cstr(conn(&r, 2), "reason");
	ck_assert_msg(reason && strstr(reason, "203.0.113.77, an internal address: "
				       "one this host delivers to itself (a local "
				       "route through lo)") != NULL, "%.1200s", r.out);
	wst_run_free(&r);
	/* A rule naming the address lets it through: the server is there. */
	RUN(&r, "", "--net-allow", "*.example", "--net-allow", "198.51.100.7",
	    "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_msg(strcmp(wst_output_str(&r, "stdout"),
			     "hello from the host namespace\n403\n403\n") == 0,
		      "%.1200s", r.out);
	ck_assert_str_eq(cstr(conn(&r, 0), "address"), "198.51.100.7");
	wst_run_free(&r);
	shutdown(l, SHUT_RDWR);
	close(l);
	pthread_join(t, NULL);
out:
	if (wrapper != NULL) {
		setenv("WST_TOOL_WRAPPER", wrapper, 1);
		free(wrapper);
	}
	free(etc);
}
END_TEST

/* Many SOCKS5 connections at once, and HTTP beside them on the port. */
START_TEST(socks5_parallel)
{
	struct wst_run r;
	char code[1024];

	if (access(PY, X_OK) != 0)
		return;
	wst_write(ws, "s5.py", s5py);
	snprintf(code, sizeof(code),
		 "import subprocess,urllib.request,concurrent.futures as f\n"
		 "p=subprocess.Popen(['%s','s5.py','par','%d','60'],stdout=subprocess.PIPE)\n"
		 "def g(i): return urllib.request.urlopen('http://web.test:%d/hello',timeout=20).status\n"
		 "with f.ThreadPoolExecutor(20) as x: h=sum(1 for s in x.map(g,range(20)) if s==200)\n"
		 "print(p.communicate()[0].decode().strip(),h)\n", PY, port, port);
	RUN(&r, "", "--net-allow", "web.test", "--net-allow", "127.0.0.1",
	    "--timeout", "60", "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "60 20\n");
	ck_assert_int_eq(nconns(&r), 80);
	ck_assert_int_eq(cJSON_GetObjectItem(wst_output(&r, "network"),
					     "connections_refused")->valueint, 0);
	wst_run_free(&r);
}
END_TEST

/* A policy that lets every command run (the built-in list blocks curl
 * and wget), denies other.test and allows web.test. */
static char *
open_policy(void)
{
	wst_write(base, "open.json",
		  "{\"version\": 1, \"name\": \"open\","
		  " \"command_rules\": [{\"name\": \"any\", \"patterns\": [\"\"],"
		  " \"decision\": \"allow\"}],"
		  " \"network_rules\": ["
		  "  {\"name\": \"no-other\", \"hosts\": [\"other.test\"], \"decision\": \"deny\"},"
		  "  {\"name\": \"web\", \"hosts\": [\"web.test\", \"127.0.0.1\"],"
		  "   \"decision\": \"allow\"}]}");
	return wst_path(base, "open.json");
}

/* curl through SOCKS5 (--socks5-hostname, and -x socks5h://): the name
 * resolved by the proxy; a denied name fails (curl 97) and is listed. */
START_TEST(socks5_curl)
{
	struct wst_run r;
	char *u, *pp;

	if (access(CURL, X_OK) != 0) {
		fprintf(stderr, "socks5_curl: skipped: no %s\n", CURL);
		return;
	}
	pp = open_policy();
	u = url("web.test", "/hello");
	{
		const char *a[] = {"--policy", pp, "--", CURL, "-sS", "--socks5-hostname",
				   "127.0.0.1:3128", u, NULL};

		runa(&r, "", a);
	}
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), BODY);
	ck_assert_str_eq(cstr(conn(&r, 0), "host"), "web.test");
	ck_assert_str_eq(cstr(conn(&r, 0), "rule"), "web");
	wst_run_free(&r);
	free(u);
	u = url("other.test", "/hello");
	{
		const char *a[] = {"--policy", pp, "--", CURL, "-sS", "-x",
				   "socks5h://127.0.0.1:3128", u, NULL};

		runa(&r, "", a);
	}
	/* 97: curl's "proxy handshake error" (reply 2). */
	ck_assert_int_eq(r.status, 97);
	ck_assert_msg(cJSON_IsNumber(wst_output(&r, "exit_code")) &&
		      wst_output(&r, "exit_code")->valueint == 97, "%.800s", r.out);
	ck_assert_str_eq(cstr(conn(&r, 0), "decision"), "refused");
	ck_assert_str_eq(cstr(conn(&r, 0), "rule"), "no-other");
	wst_run_free(&r);
	free(u);
	free(pp);
}
END_TEST

/* wget reads http_proxy: an allowed name fetched, a denied one not. */
START_TEST(wget_through_proxy)
{
	struct wst_run r;
	char *u, *pp;

	if (access(WGET, X_OK) != 0) {
		fprintf(stderr, "wget_through_proxy: skipped: no %s\n", WGET);
		return;
	}
	pp = open_policy();
	u = url("web.test", "/hello");
	{
		const char *a[] = {"--policy", pp, "--", WGET, "-q", "-O", "-", u, NULL};

		runa(&r, "", a);
	}
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), BODY);
	ck_assert_str_eq(cstr(conn(&r, 0), "rule"), "web");
	wst_run_free(&r);
	free(u);
	u = url("other.test", "/hello");
	{
		const char *a[] = {"--policy", pp, "--", WGET, "-q", "-O", "-", u, NULL};

		runa(&r, "", a);
	}
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "");
	ck_assert_str_eq(cstr(conn(&r, 0), "decision"), "refused");
	ck_assert_str_eq(cstr(conn(&r, 0), "rule"), "no-other");
	wst_run_free(&r);
	free(u);
	free(pp);
}
END_TEST

/*
 * The connection log keeps the first 1,000 connections and counts the
 * others: totals over all of them, connections_left_out, and a line in
 * plain mode.
 */
START_TEST(log_cap)
{
	struct wst_run r;
	const char *code =
		"import socket\n"
		"for i in range(1003):\n"
		" s=socket.create_connection(('127.0.0.1',3128),timeout=10)\n"
		" s.sendall(b'HEAD http://other.test/ HTTP/1.0\\r\\n\\r\\n')\n"
		" s.recv(100); s.close()\n";
	cJSON *net;
	char dis[64];
	const char *env[3] = {envhosts, dis, NULL};

	if (access(PY, X_OK) != 0)
		return;
	RUN(&r, "", "--net-allow", "web.test", "--timeout", "100", "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	net = wst_output(&r, "network");
	ck_assert_int_eq(nconns(&r), 1000);
	ck_assert_int_eq(cJSON_GetObjectItem(net, "connections_total")->valueint, 1003);
	ck_assert_int_eq(cJSON_GetObjectItem(net, "connections_refused")->valueint, 1003);
	ck_assert_int_eq(cJSON_GetObjectItem(net, "connections_left_out")->valueint, 3);
	wst_run_free(&r);
	snprintf(dis, sizeof(dis), "WS_RUN_DISABLE=");
	{
		const char *a[] = {"--workspace", ws, "--plain", "--net-allow", "web.test",
				   "--timeout", "100", "--", PY, "-c", code, NULL};

		wst_runv(&r, NULL, env, "wsrun", a);
	}
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.err, "wsrun: network: 3 more connections not listed "
			     "(1003 refused in all)") != NULL, "%.300s", r.err);
	wst_run_free(&r);
}
END_TEST

/*
 * A name whose lookup does not answer (slow.test: 8 s) holds up neither
 * the other connections nor the end of the command: the lookup runs in
 * a thread of its own that the stop abandons.
 */
START_TEST(slow_lookup_holds_nothing)
{
	struct wst_run r;
	char code[1024];
	struct timespec t0, t1;
	const char *v;
	double took;

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code),
		 "import threading,urllib.request,time\n"
		 "def slow():\n"
		 " try: urllib.request.urlopen('http://slow.test:%d/hello')\n"
		 " except Exception: pass\n"
		 "threading.Thread(target=slow,daemon=True).start()\n"
		 "time.sleep(0.3); t=time.time()\n"
		 "s=urllib.request.urlopen('http://web.test:%d/hello').status\n"
		 "print(s,time.time()-t<2)\n", port, port);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	RUN(&r, "", "--net-allow", "*.test", "--net-allow", "127.0.0.1",
	    "--", PY, "-c", code);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "200 True\n");
	ck_assert_msg(took < 6, "wsrun took %.1f s: the lookup held up its end", took);
	v = cstr(conn_to(&r, "slow.test"), "reason");
	ck_assert_msg(v != NULL && strstr(v, "ended during the lookup") != NULL,
		      "%.800s", r.out);
	wst_run_free(&r);
}
END_TEST

/* A lookup that does not answer within 15 s: 504 (SOCKS5: reply 4),
 * with the reason. */
START_TEST(lookup_timeout)
{
	struct wst_run r;
	char code[1024];
	const char *v;

	if (access(PY, X_OK) != 0)
		return;
	snprintf(code, sizeof(code),
		 "import urllib.request,urllib.error\n"
		 "try: urllib.request.urlopen('http://never.test:%d/hello',timeout=60)\n"
		 "except urllib.error.HTTPError as e: print(e.code)\n", port);
	RUN(&r, "", "--net-allow", "*.test", "--net-allow", "127.0.0.1",
	    "--timeout", "60", "--", PY, "-c", code);
	ck_assert_msg(r.status == 0, "%.400s %.400s", r.out, r.err);
	ck_assert_str_eq(wst_output_str(&r, "stdout"), "504\n");
	v = cstr(conn_to(&r, "never.test"), "reason");
	ck_assert_msg(v != NULL && strstr(v, "the lookup of never.test took longer "
					  "than 15 s") != NULL, "%.800s", r.out);
	wst_run_free(&r);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("wsrun-net");
	TCase *tc = tcase_create("net");
	int nm = (int)(sizeof(modes) / sizeof(modes[0]));

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc, allowed_urllib, 0, nm);
	tcase_add_loop_test(tc, allowed_connect_tunnel, 0, nm);
	tcase_add_loop_test(tc, denied_with_reason, 0, 1);
	tcase_add_test(tc, unresolved_is_bad_gateway);
	tcase_add_test(tc, wildcard_subdomains_only);
	tcase_add_test(tc, loopback_needs_address_rule);
	tcase_add_loop_test(tc, other_ways_out_refused, 0, nm);
	tcase_add_test(tc, curl_and_policy_rules);
	tcase_add_test(tc, git_over_http);
	tcase_add_test(tc, approve_rule);
	tcase_add_test(tc, strict_mode);
	tcase_add_test(tc, node_fetch_and_http);
	tcase_add_test(tc, parallel_connections);
	tcase_add_test(tc, many_sequential_connections);
	tcase_add_test(tc, args_compact_list);
	tcase_add_test(tc, plain_refusals_and_limits);
	tcase_add_loop_test(tc, socks5_raw, 0, nm);
	tcase_add_test(tc, socks5_parallel);
	tcase_add_test(tc, address_spellings);
	tcase_add_test(tc, http_host_bytes);
	tcase_add_test(tc, lookups_capped);
	tcase_add_test(tc, map_public_skipped);
	tcase_add_test(tc, own_address_refused);
	tcase_add_test(tc, socks5_curl);
	tcase_add_test(tc, wget_through_proxy);
	tcase_add_test(tc, log_cap);
	tcase_add_test(tc, slow_lookup_holds_nothing);
	tcase_add_test(tc, lookup_timeout);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
