/* Attacker: try to read/write PID 1's memory (which is wsrun's) from inside. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <signal.h>

static void
show(const char *p)
{
	char buf[4096];
	int fd = open(p, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		printf("%s: open %s\n", p, strerror(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		printf("%s: read %s\n", p, strerror(errno));
	} else {
		size_t nz = 0;
		for (ssize_t i = 0; i < n; i++) nz += buf[i] != 0;
		buf[n] = 0;
		for (ssize_t i = 0; i < n; i++) if (!buf[i]) buf[i] = ' ';
		printf("%s: %zd bytes, %zu nonzero: %.200s\n", p, n, nz, buf);
	}
	close(fd);
}

int
main(void)
{
	char b[64];
	struct iovec l = {b, sizeof(b)}, r;
	int fd;

	printf("uid %d pid %d\n", getuid(), getpid());
	show("/proc/1/environ");
	show("/proc/1/cmdline");
	show("/proc/1/maps");
	show("/proc/1/status");
	fd = open("/proc/1/mem", O_RDWR);
	printf("/proc/1/mem rw: %s\n", fd < 0 ? strerror(errno) : "OPEN");
	fd = open("/proc/1/mem", O_RDONLY);
	printf("/proc/1/mem ro: %s\n", fd < 0 ? strerror(errno) : "OPEN");
	r.iov_base = (void *)0x400000; r.iov_len = 8;
	printf("process_vm_readv: %zd %s\n", process_vm_readv(1, &l, 1, &r, 1, 0), strerror(errno));
	errno = 0;
	printf("ptrace attach: %ld %s\n", ptrace(PTRACE_ATTACH, 1, 0, 0), strerror(errno));
	errno = 0;
	printf("ptrace seize: %ld %s\n", ptrace(PTRACE_SEIZE, 1, 0, 0), strerror(errno));
	fd = open("/proc/1/root", O_RDONLY|O_DIRECTORY);
	printf("/proc/1/root: %s\n", fd < 0 ? strerror(errno) : "OPEN");
	fd = open("/proc/1/fd/3", O_RDONLY);
	printf("/proc/1/fd/3: %s\n", fd < 0 ? strerror(errno) : "OPEN");
	show("/proc/1/stack");
	show("/proc/1/syscall");
	show("/proc/1/auxv");
	return 0;
}
