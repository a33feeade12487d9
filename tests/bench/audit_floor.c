/*
 * audit_floor.c - what the audit line's system calls cost a process that
 * has just started, without wstools around them (bench_audit.sh).
 *
 *   audit_floor MODE FILE
 *
 * MODE "line": the calls of an audit line as lib/audit.c makes them in a
 * process of one call (openat2 with no symlink allowed on the way, fstat,
 * getpid, flock, pread of the tail, write of a 450-byte line, close);
 * "append": one write() of the same line to FILE opened O_APPEND
 * beforehand (the floor: a write that extends a file, as the line's
 * must); "overwrite": the same written in place at offset 0 (no size
 * change: what the extension costs on top).  Prints the nanoseconds of
 * the timed part twice: wall (CLOCK_MONOTONIC) and the process's own CPU
 * time (CLOCK_THREAD_CPUTIME_ID, which the kernel keeps to the
 * nanosecond), the cost of reading the CPU clock itself taken off, so
 * that it compares with the CPU time bench_audit.sh takes from wait4().
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long
ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int
main(int argc, char **argv)
{
	struct open_how how = {
		.flags = O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
			 O_NOATIME,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	char line[450], buf[4096];
	struct stat st;
	long long t0, t1, c0, c1, e0, e1;
	ssize_t w;
	int fd;

	if (argc != 3)
		return 2;
	memset(line, 'x', sizeof(line));
	line[sizeof(line) - 1] = '\n';
	/* What two readings of the CPU clock cost (a system call each). */
	e0 = ns(CLOCK_THREAD_CPUTIME_ID);
	e1 = ns(CLOCK_THREAD_CPUTIME_ID);
	if (strcmp(argv[1], "line") == 0) {
		t0 = ns(CLOCK_MONOTONIC);
		c0 = ns(CLOCK_THREAD_CPUTIME_ID);
		fd = (int)syscall(SYS_openat2, AT_FDCWD, argv[2], &how, sizeof(how));
		if (fd < 0 || fstat(fd, &st) < 0)
			return 1;
		line[0] = (char)('0' + getpid() % 10);
		if (flock(fd, LOCK_EX) < 0 ||
		    pread(fd, buf, sizeof(buf), st.st_size > 76 ? st.st_size - 76 : 0) < 0)
			return 1;
		w = write(fd, line, sizeof(line));
		close(fd);
		c1 = ns(CLOCK_THREAD_CPUTIME_ID);
		t1 = ns(CLOCK_MONOTONIC);
	} else {
		fd = open(argv[2], O_RDWR | O_CLOEXEC |
			  (strcmp(argv[1], "append") == 0 ? O_APPEND : 0));
		if (fd < 0)
			return 1;
		t0 = ns(CLOCK_MONOTONIC);
		c0 = ns(CLOCK_THREAD_CPUTIME_ID);
		w = strcmp(argv[1], "append") == 0 ? write(fd, line, sizeof(line)) :
						      pwrite(fd, line, sizeof(line), 0);
		c1 = ns(CLOCK_THREAD_CPUTIME_ID);
		t1 = ns(CLOCK_MONOTONIC);
		close(fd);
	}
	if (w != (ssize_t)sizeof(line))
		return 1;
	printf("%lld %lld\n", t1 - t0, c1 - c0 - (e1 - e0));
	return 0;
}
