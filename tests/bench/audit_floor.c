/*
 * audit_floor.c - what the audit line's system calls cost a process that
 * has just started, without wstools around them (bench_audit.sh).
 *
 *   audit_floor MODE FILE
 *
 * MODE "line": the calls of an audit line as lib/audit.c makes them in a
 * process of one call (open, fstat, getpid, flock, pread of the tail,
 * write of a 450-byte line, close); "append": one write() of the same
 * line to FILE opened O_APPEND beforehand (the floor: a write that
 * extends a file, as the line's must); "overwrite": the same written in
 * place at offset 0 (no size change: what the extension costs on top).
 * Prints the nanoseconds of the timed part.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long long
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int
main(int argc, char **argv)
{
	char line[450], buf[4096];
	struct stat st;
	long long t0, t1;
	ssize_t w;
	int fd;

	if (argc != 3)
		return 2;
	memset(line, 'x', sizeof(line));
	line[sizeof(line) - 1] = '\n';
	if (strcmp(argv[1], "line") == 0) {
		t0 = now_ns();
		fd = open(argv[2], O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW |
			  O_NONBLOCK | O_NOATIME);
		if (fd < 0 || fstat(fd, &st) < 0)
			return 1;
		line[0] = (char)('0' + getpid() % 10);
		if (flock(fd, LOCK_EX) < 0 ||
		    pread(fd, buf, sizeof(buf), st.st_size > 76 ? st.st_size - 76 : 0) < 0)
			return 1;
		w = write(fd, line, sizeof(line));
		close(fd);
		t1 = now_ns();
	} else {
		fd = open(argv[2], O_RDWR | O_CLOEXEC |
			  (strcmp(argv[1], "append") == 0 ? O_APPEND : 0));
		if (fd < 0)
			return 1;
		t0 = now_ns();
		w = strcmp(argv[1], "append") == 0 ? write(fd, line, sizeof(line)) :
						      pwrite(fd, line, sizeof(line), 0);
		t1 = now_ns();
		close(fd);
	}
	if (w != (ssize_t)sizeof(line))
		return 1;
	printf("%lld\n", t1 - t0);
	return 0;
}
