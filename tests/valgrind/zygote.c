/*
 * zygote.c - test-only: every tool in one process, started once under
 * valgrind memcheck, that forks a child per tool run (tests/valgrind/run.sh).
 *
 * A tool started under valgrind spends 0.5 to 0.9 s before main() (the
 * dynamic loader and libc start-up are translated), and the suites start
 * thousands of tools.  A child forked from this process starts with all of
 * that done and valgrind still watching: memcheck checks the child's
 * memory accesses, and its leaks when it exits, exactly as it would a tool
 * exec'd under it, and an error makes the child's exit status valgrind's
 * --error-exitcode.  The test that asked for the run (through
 * tests/valgrind/proxy.c, in place of the tool) sees that status as the
 * tool's, so an error fails the test.
 *
 * Usage: zygote SOCKET.  It listens on the UNIX socket SOCKET until
 * SIGTERM or SIGINT, then kills what still runs and exits 0.  A child
 * takes the caller's descriptors 0, 1 and 2, working directory,
 * environment, umask, file limits and signal dispositions, runs the tool named by
 * argv[0]'s last component through its command-line function (cmd/cmds.h)
 * and exits with its status.  The zygote relays the child's pid, then its
 * wait status; if the caller goes away first (a test's timeout killed it),
 * the child is killed.
 *
 * Two names are no tool: they exist so that run.sh can prove the step
 * fails on what it is there to find.  "zygote-leak" loses a block (a
 * definite leak) and "zygote-uninit" branches on uninitialised memory;
 * both exit 0 unless memcheck says otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "zygote.h"

extern char **environ;

struct conn {
	int fd;
	pid_t pid;
	bool killed; /* the caller went away: no longer polled */
};

/*
 * The live connections and, in a child, its request: globals, so that
 * memcheck's leak check at a child's exit finds them reachable rather
 * than counting the zygote's own memory as the tool's leak.
 */
static struct conn *conns;
static size_t nconns, capconns;
static char *req_blob;
static char **req_argv;
static struct pollfd *pfd;
static volatile sig_atomic_t stop;
static unsigned long runs; /* children forked, said at exit */

/* The deliberate faults of the two names that are no tool. */
static int
zygote_leak(int argc, char **argv)
{
	char *p = malloc(64);

	if (p == NULL)
		return 1;
	memset(p, 'x', 64);
	/* The only pointer is dropped here: a definite leak. */
	p = NULL;
	return argc > 1 && argv[1] == NULL;
}

/* Through a pointer the compiler cannot see into: it would warn. */
static void *(*volatile uninit_alloc)(size_t) = malloc;

static int
zygote_uninit(int argc, char **argv)
{
	int *p = uninit_alloc(sizeof(*p));
	int rc = 0;

	if (p == NULL)
		return 1;
	/* *p was never written: memcheck reports the branch on it. */
	if (*p == 12345)
		rc = 3;
	free(p);
	return rc + (argc > 1 && argv[1] == NULL);
}

static const struct {
	const char *name;
	int (*fn)(int, char **);
} tools[] = {
	{"wsls", ws_cmd_wsls},
	{"wsread", ws_cmd_wsread},
	{"wswrite", ws_cmd_wswrite},
	{"wsgrep", ws_cmd_wsgrep},
	{"wsrun", ws_cmd_wsrun},
	{"wspath", ws_cmd_wspath},
	{"wstools", ws_cmd_wstools},
	{"zygote-leak", zygote_leak},
	{"zygote-uninit", zygote_uninit},
};

static void
on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void
on_chld(int sig)
{
	(void)sig;
}

/*
 * Lower the soft limit res to the caller's (want: soft, hard) where the
 * caller's is lower; a test lowers a limit to provoke a failure.  Hard
 * limits stay: valgrind keeps descriptors of its own above the client's
 * limit and refuses any change to RLIMIT_NOFILE's hard limit.
 */
static int
lower_limit(int res, const uint64_t want[2])
{
	struct rlimit rl;

	if (getrlimit(res, &rl) < 0)
		return -1;
	if (want[0] >= rl.rlim_cur)
		return 0;
	rl.rlim_cur = want[0];
	return setrlimit(res, &rl);
}

/*
 * In the child: take the request on fd, become the caller, and run the
 * tool.  Never returns.  Failures before the tool runs exit 127, which
 * the test sees as a tool that could not start, and say why on the
 * caller's stderr where there is one.
 */
static void
serve(int fd)
{
	struct wst_zreq h;
	char cbuf[CMSG_SPACE(3 * sizeof(int))];
	struct iovec iov = {&h, sizeof(h)};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1,
			   .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c;
	int fds[3] = {-1, -1, -1};
	const char *name;
	char *p, *end;
	sigset_t set;

	memset(cbuf, 0, sizeof(cbuf));
	if (recvmsg(fd, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL) != (ssize_t)sizeof(h) ||
	    h.magic != WST_ZMAGIC || h.len > WST_ZMAX || h.argc == 0)
		_exit(127);
	c = CMSG_FIRSTHDR(&m);
	if (c == NULL || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(3 * sizeof(int)))
		_exit(127);
	memcpy(fds, CMSG_DATA(c), sizeof(fds));
	req_blob = malloc((size_t)h.len + 1);
	req_argv = calloc((size_t)h.argc + 1, sizeof(*req_argv));
	if (req_blob == NULL || req_argv == NULL ||
	    wst_read_full(fd, req_blob, h.len) < 0)
		_exit(127);
	req_blob[h.len] = '\0';
	close(fd);
	for (int i = 0; i < 3; i++) {
		if (dup2(fds[i], i) < 0)
			_exit(127);
		close(fds[i]);
	}
	p = req_blob;
	end = req_blob + h.len;
	if (chdir(p) < 0) {
		dprintf(2, "zygote: chdir %s: %s\n", p, strerror(errno));
		_exit(127);
	}
	p += strlen(p) + 1;
	for (uint32_t i = 0; i < h.argc; i++) {
		if (p >= end)
			_exit(127);
		req_argv[i] = p;
		p += strlen(p) + 1;
	}
	/* The environment strings stay in req_blob: putenv() keeps them. */
	clearenv();
	for (uint32_t i = 0; i < h.envc; i++) {
		if (p >= end)
			_exit(127);
		if (strchr(p, '=') != NULL)
			putenv(p);
		p += strlen(p) + 1;
	}
	umask((mode_t)h.umask);
	if (lower_limit(RLIMIT_NOFILE, h.nofile) < 0 ||
	    lower_limit(RLIMIT_FSIZE, h.fsize) < 0) {
		dprintf(2, "zygote: setrlimit: %s\n", strerror(errno));
		_exit(127);
	}
	/* Signal dispositions as the caller had them (exec keeps SIG_IGN). */
	for (int s = 1; s < 64; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, h.ignored & (1ull << (s - 1)) ? SIG_IGN : SIG_DFL);
	sigemptyset(&set);
	for (int s = 1; s < 64; s++)
		if (h.blocked & (1ull << (s - 1)))
			sigaddset(&set, s);
	sigprocmask(SIG_SETMASK, &set, NULL);
	name = strrchr(req_argv[0], '/');
	name = name != NULL ? name + 1 : req_argv[0];
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (strcmp(tools[i].name, name) == 0)
			exit(tools[i].fn((int)h.argc, req_argv));
	dprintf(2, "zygote: no tool named \"%s\"\n", name);
	_exit(127);
}

/*
 * Run the tools once in this process before serving, on a small tree of
 * their own, output to /dev/null: valgrind translates the code they run
 * once, here, and every child inherits the translations instead of making
 * them again (measured: a third off each run).  The tools leave no state
 * behind (cmds.h), so the children start as clean as the zygote.
 */
static void
warm_up(void)
{
	static const char *const warm[][8] = {
		{"wsls", "-R", "--json", NULL},
		{"wsls", "-la", NULL},
		{"wsread", "--json", "a.c", NULL},
		{"wsread", "a.c", NULL},
		{"wsgrep", "--json", "main", NULL},
		{"wsgrep", "-n", "ma[i]n", NULL},
		{"wspath", "--json", "sub/b.txt", NULL},
		/* No history: a warm-up leaves nothing in HOME (ftu12 02). */
		{"wswrite", "--json", "--no-history", "--content", "x", "sub/new.txt",
		 NULL},
		/* Refusals: their messages and JSON errors. */
		{"wsread", "--json", "missing.txt", NULL},
		{"wspath", "../outside", NULL},
	};
	char dir[] = "/tmp/wst-zygote-XXXXXX", path[64];
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int out = dup(1), err = dup(2);
	FILE *f;

	if (mkdtemp(dir) == NULL || null < 0 || out < 0 || err < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/a.c", dir);
	f = fopen(path, "w");
	if (f != NULL) {
		fputs("int\nmain(void)\n{\n\treturn 0;\n}\n", f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/sub", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sub/b.txt", dir);
	f = fopen(path, "w");
	if (f != NULL) {
		fputs("not main\n", f);
		fclose(f);
	}
	fflush(stdout);
	dup2(null, 1);
	dup2(null, 2);
	for (size_t i = 0; i < sizeof(warm) / sizeof(warm[0]); i++) {
		char *av[12];
		int n = 0;

		av[n++] = (char *)warm[i][0];
		av[n++] = (char *)"--workspace";
		av[n++] = dir;
		for (int k = 1; warm[i][k] != NULL; k++)
			av[n++] = (char *)warm[i][k];
		av[n] = NULL;
		for (size_t t = 0; t < sizeof(tools) / sizeof(tools[0]); t++)
			if (strcmp(tools[t].name, av[0]) == 0)
				(void)tools[t].fn(n, av);
	}
	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(err, 2);
	snprintf(path, sizeof(path), "%s/sub/new.txt", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub/b.txt", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/a.c", dir);
	unlink(path);
	rmdir(dir);
out:
	if (null >= 0)
		close(null);
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
}

static void
send_int(int fd, int32_t v)
{
	/* A caller that went away is no error: its child is killed. */
	if (send(fd, &v, sizeof(v), MSG_NOSIGNAL) < 0)
		return;
}

static void
drop(size_t i)
{
	close(conns[i].fd);
	conns[i] = conns[--nconns];
}

/* Accept one caller and fork its child. */
static void
accept_one(int lfd, const sigset_t *orig)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	pid_t pid;

	if (fd < 0)
		return;
	if (nconns == capconns) {
		size_t cap = capconns ? capconns * 2 : 16;
		struct conn *n = realloc(conns, cap * sizeof(*n));

		if (n == NULL) {
			close(fd);
			return;
		}
		conns = n;
		capconns = cap;
	}
	pid = fork();
	if (pid < 0) {
		close(fd);
		return;
	}
	if (pid == 0) {
		close(lfd);
		for (size_t i = 0; i < nconns; i++)
			close(conns[i].fd);
		nconns = 0;
		signal(SIGCHLD, SIG_DFL);
		sigprocmask(SIG_SETMASK, orig, NULL);
		serve(fd);
	}
	runs++;
	send_int(fd, (int32_t)pid);
	conns[nconns++] = (struct conn){fd, pid, false};
}

/* Relay the wait status of every child that is gone. */
static void
reap(void)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (size_t i = 0; i < nconns; i++) {
			if (conns[i].pid == pid) {
				send_int(conns[i].fd, st);
				drop(i);
				break;
			}
		}
	}
}

int
main(int argc, char **argv)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct sigaction sa;
	sigset_t block, orig, none;
	int lfd;

	if (argc != 2 || strlen(argv[1]) >= sizeof(a.sun_path)) {
		fprintf(stderr, "usage: zygote SOCKET\n");
		return 2;
	}
	memcpy(a.sun_path, argv[1], strlen(argv[1]) + 1);
	warm_up();
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unlink(argv[1]);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(lfd, 128) < 0) {
		perror(argv[1]);
		return 1;
	}
	/*
	 * Signals are blocked but while ppoll() waits, so that a SIGCHLD or
	 * SIGTERM is never lost between a check and the wait.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_chld;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &orig);
	sigemptyset(&none);
	while (!stop) {
		size_t n = 0;

		free(pfd);
		pfd = calloc(nconns + 1, sizeof(*pfd));
		if (pfd == NULL)
			break;
		pfd[n++] = (struct pollfd){lfd, POLLIN, 0};
		for (size_t i = 0; i < nconns; i++)
			pfd[n++] = (struct pollfd){conns[i].killed ? -1 : conns[i].fd,
						   POLLRDHUP, 0};
		if (ppoll(pfd, n, NULL, &none) < 0 && errno != EINTR)
			break;
		reap();
		if (stop)
			break;
		/*
		 * A caller that hung up before its child ended was killed (a
		 * timeout): its tool goes too.  pfd[i + 1] is conns[i] as it
		 * was before reap(), so look the pid up again.
		 */
		for (size_t i = 1; i < n; i++) {
			if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLRDHUP | POLLHUP | POLLERR)))
				continue;
			for (size_t k = 0; k < nconns; k++) {
				if (conns[k].fd == pfd[i].fd && !conns[k].killed) {
					kill(conns[k].pid, SIGKILL);
					conns[k].killed = true;
				}
			}
		}
		if (pfd[0].revents & POLLIN)
			accept_one(lfd, &orig);
	}
	for (size_t i = 0; i < nconns; i++)
		kill(conns[i].pid, SIGKILL);
	while (nconns > 0 && waitpid(-1, NULL, 0) > 0)
		reap();
	while (nconns > 0)
		drop(0);
	free(conns);
	free(pfd);
	close(lfd);
	unlink(argv[1]);
	/* run.sh reports how many tool runs memcheck checked. */
	printf("zygote: %lu runs\n", runs);
	return 0;
}
