/*
 * inject.c - a fault injector for the tests, loaded with LD_PRELOAD: it
 * fails one call of a named system call wrapper, chosen by the
 * environment:
 *
 *   WSF_CALL=NAME   open, openat, openat2, write, pwrite, fsync, fdatasync,
 *                   linkat, renameat, renameat2, fchmod, fchown, ftruncate,
 *                   close, unlinkat, mkdirat (open and openat cover their
 *                   64-bit names, ftruncate and pwrite too; openat2 and
 *                   renameat2 also when made through syscall(2), which is
 *                   interposed for that)
 *   WSF_NTH=N       fail the Nth call of it (from 1; default 1)
 *   WSF_ERRNO=E     with this errno (a number; default EIO)
 *   WSF_KILL=1      instead, die of SIGKILL right before that call (a
 *                   crash at that step: tests/fault/crash_history.sh)
 *   WSF_TOUCH=PATH  instead, write "touched\n" to PATH (created, or
 *                   its content replaced) right before that call, which
 *                   is then made: another writer at that step
 *
 *   WSF_SHARED_TLS=1
 *                   instead, watch a discipline of wsrun's (lib/run.c,
 *                   struct ws__vsnap): a thread that cloned a child
 *                   sharing its memory (clone(2) with CLONE_VM, without
 *                   CLONE_VFORK) shares its thread-local storage, errno
 *                   among it, with that child; a fork() made on that
 *                   thread while the child lives says
 *                   "wsfault: fork on a thread whose errno a child shares"
 *                   on standard error (the fork is then made)
 *
 * The failing call is not made (close is: Linux closes the descriptor
 * even when close reports an error), and a line "wsfault: NAME #N" goes
 * to standard error so the test knows the fault was reached.  Only calls
 * through the dynamic symbols reach it: glibc's own internal calls (stdio
 * writing stdout, for one) do not, which is what the tests want.
 */
/* Define every name itself: no redirection of open to open64. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static const char *want;
static long nth = 1, err = EIO;
static long count;
static int ready, killmode;
static const char *touch;

static void
init(void)
{
	const char *e;

	if (ready)
		return;
	want = getenv("WSF_CALL");
	if ((e = getenv("WSF_NTH")) != NULL)
		nth = strtol(e, NULL, 10);
	if ((e = getenv("WSF_ERRNO")) != NULL)
		err = strtol(e, NULL, 10);
	killmode = getenv("WSF_KILL") != NULL;
	touch = getenv("WSF_TOUCH");
	ready = 1;
}

/* Whether this call of name is the one to fail (and say so). */
static int
fail_now(const char *name)
{
	char msg[96];
	int n;

	init();
	if (want == NULL || strcmp(want, name) != 0 || ++count != nth)
		return 0;
	n = snprintf(msg, sizeof(msg), "wsfault: %s #%ld\n", name, count);
	(void)!syscall(SYS_write, 2, msg, (size_t)n);
	if (touch != NULL) {
		long fd = syscall(SYS_openat, (long)AT_FDCWD, touch,
				  (long)(O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC), 0644L);

		if (fd >= 0) {
			(void)!syscall(SYS_write, fd, "touched\n", 8L);
			(void)syscall(SYS_close, fd);
		}
		return 0;
	}
	if (killmode)
		(void)syscall(SYS_kill, (long)getpid(), (long)SIGKILL);
	errno = (int)err;
	return 1;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

/*
 * The wrappers a child sharing the memory may reach (syscall(2): init's
 * openat2), found before main(): dlsym() there could take the loader's
 * lock or the heap's in the middle of the parent's use of them.  And the
 * environment read now: wsrun moves it away (ws_run_detach_environ()).
 */
static long (*real_syscall)(long, ...);
static pid_t (*real_fork)(void);
static int (*real_clone)(int (*)(void *), void *, int, void *, ...);
static int shared_tls;
static __thread pid_t vm_child;

__attribute__((constructor)) static void
resolve(void)
{
	init();
	shared_tls = getenv("WSF_SHARED_TLS") != NULL;
	real_syscall = REAL(syscall);
	real_fork = REAL(fork);
	real_clone = REAL(clone);
}

int
clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	void *ptid, *tls, *ctid;
	va_list ap;
	int pid;

	/* Passed on as given: the kernel reads only what flags name. */
	va_start(ap, arg);
	ptid = va_arg(ap, void *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, void *);
	va_end(ap);
	pid = real_clone(fn, stack, flags, arg, ptid, tls, ctid);
	if (pid > 0 && (flags & CLONE_VM) && !(flags & CLONE_VFORK))
		vm_child = pid;
	return pid;
}

pid_t
fork(void)
{
	static const char msg[] =
		"wsfault: fork on a thread whose errno a child shares\n";

	if (shared_tls && vm_child > 0 &&
	    real_syscall(SYS_kill, (long)vm_child, 0L) == 0)
		(void)!real_syscall(SYS_write, 2L, msg, (long)sizeof(msg) - 1);
	return real_fork();
}

int
open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | __O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	if (fail_now("open"))
		return -1;
	return REAL(open)(path, flags, mode);
}

int
open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | __O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	if (fail_now("open"))
		return -1;
	return REAL(open64)(path, flags, mode);
}

int
openat(int dfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | __O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	if (fail_now("openat"))
		return -1;
	return REAL(openat)(dfd, path, flags, mode);
}

int
openat64(int dfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | __O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	if (fail_now("openat"))
		return -1;
	return REAL(openat64)(dfd, path, flags, mode);
}

ssize_t
write(int fd, const void *buf, size_t n)
{
	return fail_now("write") ? -1 : REAL(write)(fd, buf, n);
}

ssize_t
pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return fail_now("pwrite") ? -1 : REAL(pwrite)(fd, buf, n, off);
}

ssize_t
pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	return fail_now("pwrite") ? -1 : REAL(pwrite64)(fd, buf, n, off);
}

int
fsync(int fd)
{
	return fail_now("fsync") ? -1 : REAL(fsync)(fd);
}

int
fdatasync(int fd)
{
	return fail_now("fdatasync") ? -1 : REAL(fdatasync)(fd);
}

int
linkat(int od, const char *op, int nd, const char *np, int flags)
{
	return fail_now("linkat") ? -1 : REAL(linkat)(od, op, nd, np, flags);
}

int
renameat(int od, const char *op, int nd, const char *np)
{
	return fail_now("renameat") ? -1 : REAL(renameat)(od, op, nd, np);
}

int
renameat2(int od, const char *op, int nd, const char *np, unsigned flags)
{
	return fail_now("renameat2") ? -1 : REAL(renameat2)(od, op, nd, np, flags);
}

int
fchmod(int fd, mode_t m)
{
	return fail_now("fchmod") ? -1 : REAL(fchmod)(fd, m);
}

int
fchown(int fd, uid_t u, gid_t g)
{
	return fail_now("fchown") ? -1 : REAL(fchown)(fd, u, g);
}

int
ftruncate(int fd, off_t len)
{
	return fail_now("ftruncate") ? -1 : REAL(ftruncate)(fd, len);
}

int
ftruncate64(int fd, off64_t len)
{
	return fail_now("ftruncate") ? -1 : REAL(ftruncate64)(fd, len);
}

int
unlinkat(int dfd, const char *path, int flags)
{
	return fail_now("unlinkat") ? -1 : REAL(unlinkat)(dfd, path, flags);
}

int
mkdirat(int dfd, const char *path, mode_t m)
{
	return fail_now("mkdirat") ? -1 : REAL(mkdirat)(dfd, path, m);
}

int
close(int fd)
{
	int r = REAL(close)(fd);

	if (fail_now("close"))
		return -1;
	return r;
}

/* syscall(2): openat2 and renameat2 made directly are counted too. */
long
syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if ((nr == SYS_openat2 && fail_now("openat2")) ||
	    (nr == SYS_renameat2 && fail_now("renameat2")))
		return -1;
	return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
