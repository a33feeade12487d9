/*
 * proxy.c - test-only: "proxy TOOL-PATH ARGS..." runs the tool in the
 * memcheck zygote (tests/valgrind/zygote.c) listening on the socket
 * $WST_TOOL_SERVER, as if TOOL-PATH had been exec'd here.
 *
 * It is the WST_TOOL_WRAPPER of the valgrind step (tests/valgrind/run.sh),
 * so every tool start of the Check suites (tests/common/wstest.c) and of
 * the shell suites that take a tool directory comes here: it hands the
 * zygote its descriptors 0, 1 and 2, working directory, arguments,
 * environment, umask, file limits and signal dispositions, then closes its own copies
 * of 0, 1 and 2 (the caller sees end-of-file when the tool closes them,
 * not when this process ends), forwards the signals a test may send to
 * the tool, and ends as the tool did: the same exit status, or killed by
 * the same signal.  If it is killed itself (SIGKILL, a test's timeout),
 * the zygote kills the tool.  A failure of its own is exit status 125.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "zygote.h"

extern char **environ;

static volatile pid_t tool_pid;

/* Pass a signal the test sent to this process on to the tool. */
static void
forward(int sig)
{
	if (tool_pid > 0)
		kill(tool_pid, sig);
}

static int
fail(const char *what)
{
	fprintf(stderr, "wst proxy: %s: %s\n", what, strerror(errno));
	return 125;
}

int
main(int argc, char **argv)
{
	static const int fwd[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1,
				  SIGUSR2, SIGALRM};
	const char *sock = getenv("WST_TOOL_SERVER");
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct wst_zreq h = {.magic = WST_ZMAGIC};
	char cwd[PATH_MAX], *blob, *p, cbuf[CMSG_SPACE(3 * sizeof(int))];
	int fds[3] = {0, 1, 2}, fd, null;
	size_t len;
	struct iovec iov = {&h, sizeof(h)};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1,
			   .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c;
	struct sigaction sa;
	sigset_t cur;
	mode_t um;
	int32_t pid, st;

	if (argc < 2 || sock == NULL || strlen(sock) >= sizeof(a.sun_path)) {
		fprintf(stderr, "usage: WST_TOOL_SERVER=SOCKET proxy TOOL [ARG...]\n");
		return 125;
	}
	/*
	 * "wstools call run_command" sets the sandbox up in its own process
	 * (the tool table runs in wstools), which memcheck cannot follow:
	 * run natively, as wsrun and wstools mcp are (run.sh).
	 */
	if (argc > 3 && (p = strrchr(argv[1], '/')) != NULL &&
	    strcmp(p, "/wstools") == 0 && strcmp(argv[2], "call") == 0 &&
	    strcmp(argv[3], "run_command") == 0) {
		execv(argv[1], argv + 1);
		return fail("execv");
	}
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return fail("getcwd");
	len = strlen(cwd) + 1;
	for (int i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	for (char **e = environ; *e; e++, h.envc++)
		len += strlen(*e) + 1;
	if (len > WST_ZMAX) {
		errno = E2BIG;
		return fail("request");
	}
	blob = malloc(len);
	if (blob == NULL)
		return fail("malloc");
	p = stpcpy(blob, cwd) + 1;
	for (int i = 1; i < argc; i++)
		p = stpcpy(p, argv[i]) + 1;
	for (char **e = environ; *e; e++)
		p = stpcpy(p, *e) + 1;
	h.len = (uint32_t)len;
	h.argc = (uint32_t)argc - 1;
	um = umask(0);
	umask(um);
	h.umask = um;
	{
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
			return fail("getrlimit");
		h.nofile[0] = rl.rlim_cur;
		h.nofile[1] = rl.rlim_max;
		if (getrlimit(RLIMIT_FSIZE, &rl) < 0)
			return fail("getrlimit");
		h.fsize[0] = rl.rlim_cur;
		h.fsize[1] = rl.rlim_max;
	}
	sigprocmask(SIG_SETMASK, NULL, &cur);
	for (int s = 1; s < 64; s++) {
		struct sigaction old;

		if (sigaction(s, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			h.ignored |= 1ull << (s - 1);
		if (sigismember(&cur, s) == 1)
			h.blocked |= 1ull << (s - 1);
	}
	memcpy(a.sun_path, sock, strlen(sock) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return fail(sock);
	memset(cbuf, 0, sizeof(cbuf));
	c = CMSG_FIRSTHDR(&m);
	if (c == NULL)
		return 125;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	if (sendmsg(fd, &m, MSG_NOSIGNAL) != (ssize_t)sizeof(h))
		return fail("sendmsg");
	for (size_t off = 0; off < len;) {
		ssize_t w = send(fd, blob + off, len - off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return fail("send");
		off += (size_t)w;
	}
	free(blob);
	if (wst_read_full(fd, &pid, sizeof(pid)) < 0) {
		errno = EPIPE;
		return fail("no pid from the zygote");
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	tool_pid = pid;
	for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		if (!(h.ignored & (1ull << (fwd[i] - 1))))
			sigaction(fwd[i], &sa, NULL);
	/* The tool has its own copies now. */
	null = open("/dev/null", O_RDWR);
	for (int i = 0; i < 3 && null >= 0; i++)
		dup2(null, i);
	if (null > 2)
		close(null);
	if (wst_read_full(fd, &st, sizeof(st)) < 0)
		return 125;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	/* Die of the same signal, as the tool did. */
	signal(WTERMSIG(st), SIG_DFL);
	sigemptyset(&cur);
	sigaddset(&cur, WTERMSIG(st));
	sigprocmask(SIG_UNBLOCK, &cur, NULL);
	raise(WTERMSIG(st));
	return 128 + WTERMSIG(st);
}
