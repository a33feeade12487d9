/*
 * view_points.c - issue 19's prototype: the mounts of a virtual view in
 * five shapes, nothing else of wsrun (no Landlock, seccomp, walks or
 * guards), to measure what each shape costs against bwrap:
 *
 *   view_points A WS   the workspace itself bound as the root, with the
 *                      system's mount points (usr, bin, sbin, lib*, etc,
 *                      opt, dev, proc, tmp: those the host has) made in
 *                      WS as empty directories before the run and
 *                      removed after it (bwrap --bind WS /, cleaned up)
 *   view_points S WS   the same, the host's links (merged /usr: bin ->
 *                      usr/bin) made as links in WS instead of bound
 *                      directories: fewer directories to make and remove
 *   view_points B WS   a tmpfs root, the system binds, WS bound at its
 *                      host path (the shape of wsrun --view real)
 *   view_points C WS   a tmpfs root, the system binds, a name and a bind
 *                      per top-level entry of WS (the shape of wsrun
 *                      --view virtual since issue 19)
 *   view_points O WS   an overlay as the root: a tmpfs skeleton of the
 *                      system's mount points over WS as the lower layers,
 *                      the upper and work directories on the same tmpfs
 *                      (the command's changes would be applied to WS when
 *                      it ends), the system binds on the skeleton's names
 *
 * Each runs /usr/bin/true as the child of a namespace init in new mount,
 * PID and network namespaces, as root (the bench runs as root; wsrun as
 * root makes no user namespace either).  /dev is a tmpfs with six nodes
 * bound, /proc fresh, /tmp a tmpfs, the system directories read-only.
 * Not built by meson (bench_wsrun.sh views builds it when VIEW_PROTO=1):
 *
 *   cc -O2 -o view_points tests/bench/view_points.c
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *sys[] = {"usr", "bin", "sbin", "lib", "lib32", "lib64",
			    "libx32", "etc", "opt", "dev", "proc", "tmp"};
#define NSYS (sizeof(sys) / sizeof(sys[0]))
static const char *devs[] = {"null", "zero", "full", "random", "urandom", "tty"};
static char mode;
static const char *ws;
static bool present[NSYS];
static char troot[] = "/tmp/view_points.XXXXXX"; /* B, C: the tmpfs root's point */

#define CK(x) do { if ((x) < 0) { perror(#x); _exit(99); } } while (0)

static void
sysbinds(const char *root)
{
	char p[4096], s[64];

	for (size_t i = 0; i < NSYS; i++) {
		if (!present[i])
			continue;
		snprintf(p, sizeof(p), "%s/%s", root, sys[i]);
		snprintf(s, sizeof(s), "/%s", sys[i]);
		if (mode == 'S' || mode == 'O') {
			struct stat st;
			lstat(s, &st);
			if (S_ISLNK(st.st_mode))
				continue; /* made as a link beside the points */
		}
		if (mode != 'A' && mode != 'S' && mode != 'O') {
			struct stat st;
			lstat(s, &st);
			if (S_ISLNK(st.st_mode)) {
				char t[256];
				ssize_t n = readlink(s, t, sizeof(t) - 1);
				t[n] = 0;
				CK(symlinkat(t, AT_FDCWD, p));
				continue;
			}
			CK(mkdir(p, 0755));
		}
		if (strcmp(sys[i], "proc") == 0) {
			CK(mount("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL));
		} else if (strcmp(sys[i], "tmp") == 0) {
			CK(mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777"));
		} else if (strcmp(sys[i], "dev") == 0) {
			CK(mount("tmpfs", p, "tmpfs", MS_NOSUID, "mode=755"));
			for (size_t d = 0; d < sizeof(devs) / sizeof(devs[0]); d++) {
				char q[4200], h[64];
				snprintf(q, sizeof(q), "%s/%s", p, devs[d]);
				snprintf(h, sizeof(h), "/dev/%s", devs[d]);
				CK(mknod(q, S_IFREG | 0666, 0));
				CK(mount(h, q, NULL, MS_BIND, NULL));
			}
		} else {
			snprintf(s, sizeof(s), "/%s", sys[i]);
			CK(mount(s, p, NULL, MS_BIND | MS_REC, NULL));
			CK(mount(NULL, p, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL));
		}
	}
}

static int
init(void *unused)
{
	char root[4096];
	pid_t c;
	int st;

	(void)unused;

	CK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	if (mode == 'A' || mode == 'S') {
		snprintf(root, sizeof(root), "%s", ws);
		CK(mount(ws, ws, NULL, MS_BIND | MS_REC, NULL));
		sysbinds(root);
	} else if (mode == 'O') {
		char opt[8192], t[4200];

		/* troot holds the tmpfs: lower (the skeleton), upper, work, and
		 * the overlay is mounted on the skeleton's own parent's "m". */
		CK(mount("tmpfs", troot, "tmpfs", 0, "mode=755"));
		snprintf(t, sizeof(t), "%s/l", troot);
		CK(mkdir(t, 0755));
		for (size_t i = 0; i < NSYS; i++) {
			struct stat st;
			char s[64], q[4300];

			if (!present[i])
				continue;
			snprintf(s, sizeof(s), "/%s", sys[i]);
			snprintf(q, sizeof(q), "%s/l/%s", troot, sys[i]);
			lstat(s, &st);
			if (S_ISLNK(st.st_mode)) {
				char lt[256];
				ssize_t n = readlink(s, lt, sizeof(lt) - 1);
				lt[n] = 0;
				CK(symlinkat(lt, AT_FDCWD, q));
			} else
				CK(mkdir(q, 0755));
		}
		snprintf(t, sizeof(t), "%s/u", troot); CK(mkdir(t, 0755));
		snprintf(t, sizeof(t), "%s/w", troot); CK(mkdir(t, 0755));
		snprintf(t, sizeof(t), "%s/m", troot); CK(mkdir(t, 0755));
		snprintf(opt, sizeof(opt), "lowerdir=%s/l:%s,upperdir=%s/u,workdir=%s/w",
			 troot, ws, troot, troot);
		snprintf(root, sizeof(root), "%s/m", troot);
		CK(mount("overlay", root, "overlay", 0, opt));
		/* Only the binds: the skeleton's links stay links. */
		sysbinds(root);
	} else {
		snprintf(root, sizeof(root), "%s", troot);
		CK(mount("tmpfs", root, "tmpfs", 0, "mode=755"));
		sysbinds(root);
		if (mode == 'B') {
			char p[4200], *s;
			snprintf(p, sizeof(p), "%s%s", root, ws);
			for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
				*s = 0;
				if (mkdir(p, 0755) < 0 && errno != EEXIST) CK(-1);
				*s = '/';
			}
			CK(mkdir(p, 0755));
			CK(mount(ws, p, NULL, MS_BIND | MS_REC, NULL));
		} else {
			int rfd = open(root, O_PATH | O_DIRECTORY), wfd = open(ws, O_RDONLY | O_DIRECTORY);
			DIR *d = fdopendir(wfd);
			struct dirent *de;

			CK(chdir(ws));
			while ((de = readdir(d))) {
				bool skip = de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2]));
				for (size_t i = 0; i < NSYS && !skip; i++)
					skip = present[i] && strcmp(sys[i], de->d_name) == 0;
				if (skip) continue;
				if (de->d_type == DT_DIR) CK(mkdirat(rfd, de->d_name, 0755));
				else CK(mknodat(rfd, de->d_name, S_IFREG | 0644, 0));
				char p[4400];
				snprintf(p, sizeof(p), "%s/%s", root, de->d_name);
				CK(mount(de->d_name, p, NULL, MS_BIND | MS_REC, NULL));
			}
			closedir(d);
			close(rfd);
		}
	}
	CK(chdir(root));
	CK(syscall(SYS_pivot_root, ".", "."));
	CK(umount2(".", MNT_DETACH));
	CK(chdir("/"));
	c = fork();
	if (c == 0) {
		execl("/usr/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	while (waitpid(c, &st, 0) < 0)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int
main(int argc, char **argv)
{
	static char stack[1 << 16] __attribute__((aligned(16)));
	bool made[NSYS] = {0}, islink[NSYS] = {0};
	int wfd, st;
	pid_t p;

	if (argc < 3)
		return 2;
	mode = argv[1][0];
	ws = argv[2];
	for (size_t i = 0; i < NSYS; i++) {
		char s[64];
		snprintf(s, sizeof(s), "/%s", sys[i]);
		present[i] = access(s, F_OK) == 0;
	}
	if ((wfd = open(ws, O_RDONLY | O_DIRECTORY)) < 0 ||
	    ((mode == 'B' || mode == 'C' || mode == 'O') && mkdtemp(troot) == NULL))
		return perror(ws), 2;
	if (mode == 'A' || mode == 'S')
		for (size_t i = 0; i < NSYS; i++) {
			char s[64], t[256];
			ssize_t n;
			if (!present[i])
				continue;
			snprintf(s, sizeof(s), "/%s", sys[i]);
			if (mode == 'S' && (n = readlink(s, t, sizeof(t) - 1)) > 0) {
				t[n] = 0;
				made[i] = symlinkat(t, wfd, sys[i]) == 0;
				islink[i] = true;
			} else
				made[i] = mkdirat(wfd, sys[i], 0755) == 0;
		}
	p = clone(init, stack + sizeof(stack),
		  CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | SIGCHLD, NULL);
	if (p < 0)
		return perror("clone"), 3;
	while (waitpid(p, &st, 0) < 0)
		;
	for (size_t i = 0; i < NSYS; i++)
		if (made[i])
			unlinkat(wfd, sys[i], islink[i] ? 0 : AT_REMOVEDIR);
	if (mode == 'B' || mode == 'C' || mode == 'O')
		rmdir(troot);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
