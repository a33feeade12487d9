/*
 * zygote.h - the wire format between tests/valgrind/proxy.c (one per tool
 * run, in place of the tool) and tests/valgrind/zygote.c (one process under
 * valgrind that forks a child per run).  Test-only; both ends are built
 * from the same tree, so the format has no version beyond its magic.
 *
 * The proxy sends one struct wst_zreq with its descriptors 0, 1 and 2
 * attached (SCM_RIGHTS), then len bytes: its working directory, its argv
 * (argc strings, argv[0] the tool's path) and its environment (envc
 * strings), each NUL-terminated.  The zygote answers with the pid of the
 * child running the tool (an int32), then, when the child is gone, its
 * wait status (an int32).
 */
#ifndef WST_ZYGOTE_H
#define WST_ZYGOTE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#define WST_ZMAGIC 0x77737a31u /* "wsz1" */
#define WST_ZMAX (16u << 20)   /* the largest request a zygote reads */

struct wst_zreq {
	uint32_t magic;
	uint32_t len;	  /* bytes that follow */
	uint32_t argc;
	uint32_t envc;
	uint32_t umask;
	uint32_t pad;
	uint64_t ignored; /* bit N-1: signal N is ignored (SIG_IGN) */
	uint64_t blocked; /* bit N-1: signal N is blocked */
	uint64_t nofile[2]; /* RLIMIT_NOFILE, soft and hard (tests lower it) */
	uint64_t fsize[2];  /* RLIMIT_FSIZE, soft and hard */
};

/*
 * Read exactly n bytes, through EINTR and short reads; -1 at an error or
 * an early end (the other side is gone).  Both ends read their fixed-size
 * records with it.
 */
static inline int
wst_read_full(int fd, void *buf, size_t n)
{
	char *p = buf;

	while (n > 0) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

#endif
