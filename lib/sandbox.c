/*
 * sandbox.c - wsrun's confinement layers: probing, and applying each layer
 * in the process about to exec the command.  See ws/sandbox.h.
 *
 * Nothing here depends on the kernel headers being as new as the kernel:
 * the Landlock structures and constants are declared locally, so that a
 * binary built on an older distribution still uses the best ABI the
 * running kernel offers.  The seccomp filter is written by hand in
 * classic BPF (a few dozen instructions; libseccomp would be a dependency
 * for little gain).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fscrypt.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* statx(2) attribute of a mount's root (Linux 5.8; older headers lack it). */
#define WS__STATX_ATTR_MOUNT_ROOT 0x00002000

#include "ws/error.h"
#include "ws/guard.h"
#include "ws/path.h"
#include "ws/netproxy.h"
#include "ws/persist.h"
#include "ws/sandbox.h"
#include "ws/workspace.h"

/* Landlock, declared locally (see above). */
struct ws__ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ws__ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct ws__ll_net_port {
	uint64_t allowed_access;
	uint64_t port;
};

#define WS__LL_CREATE_VERSION (1U << 0)
#define WS__LL_RULE_PATH_BENEATH 1
#define WS__LL_FS_EXECUTE (1ULL << 0)
#define WS__LL_FS_WRITE_FILE (1ULL << 1)
#define WS__LL_FS_READ_FILE (1ULL << 2)
#define WS__LL_FS_READ_DIR (1ULL << 3)
#define WS__LL_FS_TRUNCATE (1ULL << 14)
#define WS__LL_FS_IOCTL_DEV (1ULL << 15)
#define WS__LL_NET_BIND_TCP (1ULL << 0)
#define WS__LL_NET_CONNECT_TCP (1ULL << 1)
#define WS__LL_SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define WS__LL_SCOPE_SIGNAL (1ULL << 1)

/* Rights that apply to a file (not a directory). */
#define WS__LL_FILE_MASK                                                       \
	(WS__LL_FS_EXECUTE | WS__LL_FS_WRITE_FILE | WS__LL_FS_READ_FILE |      \
	 WS__LL_FS_TRUNCATE | WS__LL_FS_IOCTL_DEV)
#define WS__LL_RX (WS__LL_FS_EXECUTE | WS__LL_FS_READ_FILE | WS__LL_FS_READ_DIR)

/* The system directories: read and execute. */
static const char *const ws__sys_dirs[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc", "/opt",
};

/* The device nodes: read-write. */
static const char *const ws__dev_nodes[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty",
};

/* Secrets under /etc that the command never reads (fnmatch patterns). */
static const char *const ws__etc_secrets[] = {
	"shadow", "shadow-", "gshadow", "gshadow-", "sudoers", "sudoers.d",
	"security/opasswd", "ssh/ssh_host_*_key",
};

static const char *const ws__layer_names[WS__LAYER_COUNT] = {
	[WS_LAYER_LANDLOCK] = "landlock", [WS_LAYER_SECCOMP] = "seccomp",
	[WS_LAYER_CAPS] = "capabilities", [WS_LAYER_MOUNTNS] = "mountns",
	[WS_LAYER_PIDNS] = "pidns",	  [WS_LAYER_NETNS] = "netns",
	[WS_LAYER_CGROUP] = "cgroup",	  [WS_LAYER_GUARDS] = "guards",
};

const char *
ws_layer_name(enum ws_layer l)
{
	return l < WS__LAYER_COUNT ? ws__layer_names[l] : "?";
}

const char *
ws_isolate_name(enum ws_isolate m)
{
	switch (m) {
	case WS_ISOLATE_STRICT: return "strict";
	case WS_ISOLATE_NONE: return "none";
	default: return "auto";
	}
}

int
ws_isolate_parse(const char *s, enum ws_isolate *m)
{
	if (strcmp(s, "auto") == 0)
		*m = WS_ISOLATE_AUTO;
	else if (strcmp(s, "strict") == 0)
		*m = WS_ISOLATE_STRICT;
	else if (strcmp(s, "none") == 0)
		*m = WS_ISOLATE_NONE;
	else
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "isolate \"%s\": expected auto, strict or none",
				    s);
	return 0;
}

int
ws_layers_parse(const char *list, unsigned *bits)
{
	const char *p = list;

	*bits = 0;
	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		bool found = false;

		if (n == 3 && strncmp(p, "all", 3) == 0) {
			*bits = (1U << WS__LAYER_COUNT) - 1;
			found = true;
		} else if (n == 6 && strncmp(p, "userns", 6) == 0) {
			/* Namespaces need root or a user namespace: off. */
			*bits |= 1U << WS_LAYER_MOUNTNS | 1U << WS_LAYER_PIDNS |
				 1U << WS_LAYER_NETNS | WS_LAYERS_USERNS_BIT;
			found = true;
		} else if (n == 14 && strncmp(p, "userns-refused", 14) == 0) {
			*bits |= WS_LAYERS_USERNS_REFUSED_BIT;
			found = true;
		}
		for (int l = 0; !found && l < WS__LAYER_COUNT; l++)
			if (strlen(ws__layer_names[l]) == n &&
			    strncmp(p, ws__layer_names[l], n) == 0) {
				*bits |= 1U << l;
				found = true;
			}
		if (!found && n > 0)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "unknown layer \"%.*s\" (landlock, seccomp, "
					    "capabilities, mountns, pidns, netns, cgroup, "
					    "guards, userns, userns-refused, all)", (int)n, p);
		p = e ? e + 1 : NULL;
	}
	return 0;
}

int
ws_landlock_abi(void)
{
	/* Atomic: calls run side by side (the same answer either way). */
	static atomic_int abi = -1;
	int v = atomic_load_explicit(&abi, memory_order_relaxed);

	if (v < 0) {
		long k = syscall(SYS_landlock_create_ruleset, NULL, 0,
				 WS__LL_CREATE_VERSION);

		v = k < 0 ? 0 : (int)k;
		atomic_store_explicit(&abi, v, memory_order_relaxed);
	}
	return v;
}

/* The cgroup v2 directory this process is in, or NULL. */
static char *
ws__cgroup_dir(void)
{
	static const char *const roots[] = {"/sys/fs/cgroup/unified",
					    "/sys/fs/cgroup"};
	char buf[4096], *line, *sp = NULL, *rel = NULL, *out = NULL;
	int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &sp); line; line = strtok_r(NULL, "\n", &sp))
		if (strncmp(line, "0::", 3) == 0)
			rel = line + 3;
	if (rel == NULL)
		return NULL;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char p[4352];
		struct stat st;

		snprintf(p, sizeof(p), "%s%s/cgroup.procs", roots[i],
			 strcmp(rel, "/") == 0 ? "" : rel);
		if (stat(p, &st) == 0) {
			snprintf(p, sizeof(p), "%s%s", roots[i],
				 strcmp(rel, "/") == 0 ? "" : rel);
			out = strdup(p);
			break;
		}
	}
	return out;
}

char *ws__sandbox_cgroup_dir(void);

/* Exposed to run.c: the cgroup v2 directory to make children in. */
char *
ws__sandbox_cgroup_dir(void)
{
	return ws__cgroup_dir();
}

static void __attribute__((format(printf, 2, 3)))
ws__why(struct ws_layer_state *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
}

/* Whether a throwaway child can be cloned with these namespace flags. */
static int
ws__try_clone(unsigned long flags)
{
	pid_t p = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL,
				 NULL);
	int st;

	if (p < 0)
		return -errno;
	if (p == 0)
		_exit(0);
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	return 0;
}

void
ws_sandbox_probe(struct ws_isolation *iso, unsigned disable, bool deep)
{
	int abi = ws_landlock_abi();
	bool root = geteuid() == 0;
	struct ws_layer_state *L = iso->layer;
	char *cg;

	memset(L, 0, sizeof(iso->layer));
	iso->landlock_abi = abi;
	L[WS_LAYER_LANDLOCK].available = abi > 0;
	if (abi <= 0)
		ws__why(&L[WS_LAYER_LANDLOCK], "%s",
			"the kernel offers no Landlock (or it is not enabled "
			"in the lsm= list)");
#if defined(__x86_64__) || defined(__aarch64__)
	L[WS_LAYER_SECCOMP].available = prctl(PR_GET_SECCOMP) >= 0;
	if (!L[WS_LAYER_SECCOMP].available)
		ws__why(&L[WS_LAYER_SECCOMP], "%s", "the kernel has no seccomp");
#else
	ws__why(&L[WS_LAYER_SECCOMP], "%s",
		"no filter written for this architecture");
#endif
	L[WS_LAYER_CAPS].available = true;
	/*
	 * Namespaces need root, or a user namespace that unprivileged users
	 * may create (iso->userns): then the namespaces are made inside it.
	 */
	iso->userns = false;
	if (!root && !(disable & WS_LAYERS_USERNS_BIT)) {
		char buf[32] = "";
		int fd = open("/proc/sys/user/max_user_namespaces", O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf) - 1) < 0)
				buf[0] = '\0';
			close(fd);
		}
		iso->userns = atoi(buf) > 0;
	}
	for (int l = WS_LAYER_MOUNTNS; l <= WS_LAYER_NETNS; l++) {
		L[l].available = root || iso->userns;
		if (!L[l].available)
			ws__why(&L[l], "%s",
				"needs root or unprivileged user namespaces");
	}
	if ((root || iso->userns) && deep) {
		static const struct {
			int layer;
			unsigned long flag;
		} ns[] = {{WS_LAYER_MOUNTNS, CLONE_NEWNS},
			  {WS_LAYER_PIDNS, CLONE_NEWPID},
			  {WS_LAYER_NETNS, CLONE_NEWNET}};

		for (size_t i = 0; i < 3; i++) {
			int rc = ws__try_clone(ns[i].flag |
					       (iso->userns ? CLONE_NEWUSER : 0));

			if (rc < 0) {
				L[ns[i].layer].available = false;
				ws__why(&L[ns[i].layer], "clone: %s",
					strerror(-rc));
			}
		}
	}
	/*
	 * The minimal root starts by making "/" a private mount; in a
	 * chroot whose "/" is a plain directory, not a mount, the kernel
	 * refuses that (EINVAL), as it does bwrap's.  Say so here, so that
	 * --isolate auto runs without the layer instead of failing.
	 */
	if (L[WS_LAYER_MOUNTNS].available) {
		struct statx sx;

		if (statx(AT_FDCWD, "/", 0, STATX_BASIC_STATS, &sx) == 0 &&
		    (sx.stx_attributes_mask & WS__STATX_ATTR_MOUNT_ROOT) &&
		    !(sx.stx_attributes & WS__STATX_ATTR_MOUNT_ROOT)) {
			L[WS_LAYER_MOUNTNS].available = false;
			ws__why(&L[WS_LAYER_MOUNTNS], "%s",
				"\"/\" is not a mount point (a chroot): no "
				"private mount tree can be made under it");
		}
	}
	cg = ws__cgroup_dir();
	L[WS_LAYER_CGROUP].available = cg != NULL;
	if (cg == NULL)
		ws__why(&L[WS_LAYER_CGROUP], "%s",
			"no cgroup v2 with cgroup.kill for this process");
	free(cg);
	L[WS_LAYER_GUARDS].available = L[WS_LAYER_MOUNTNS].available;
	if (!L[WS_LAYER_GUARDS].available)
		ws__why(&L[WS_LAYER_GUARDS], "%s",
			"read-only binds need a mount namespace");
	for (int l = 0; l < WS__LAYER_COUNT; l++)
		if (disable & (1U << l)) {
			L[l].available = false;
			ws__why(&L[l], "%s", "disabled by WS_RUN_DISABLE (tests)");
		}
	/* The minimal root mounts a fresh /proc, which needs its PID ns. */
	if (L[WS_LAYER_MOUNTNS].available && !L[WS_LAYER_PIDNS].available) {
		L[WS_LAYER_MOUNTNS].available = false;
		ws__why(&L[WS_LAYER_MOUNTNS], "%s",
			"needs the PID namespace for a fresh /proc");
	}
	if (L[WS_LAYER_GUARDS].available && !L[WS_LAYER_MOUNTNS].available) {
		L[WS_LAYER_GUARDS].available = false;
		ws__why(&L[WS_LAYER_GUARDS], "%s",
			"read-only binds need a mount namespace");
	}
	if (!L[WS_LAYER_LANDLOCK].available)
		iso->landlock_abi = 0;
}

int
ws_sandbox_plan_add(struct ws_sandbox_plan *p, int fd, const char *path,
		    bool write, bool file)
{
	struct ws_sandbox_path *e;

	if (p->npaths == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 32;
		void *np = realloc(p->paths, nc * sizeof(*p->paths));

		if (np == NULL) {
			if (fd >= 0)
				close(fd);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		p->paths = np;
		p->cap = nc;
	}
	e = &p->paths[p->npaths];
	e->path = strdup(path);
	if (e->path == NULL) {
		if (fd >= 0)
			close(fd);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	e->fd = fd;
	e->write = write;
	e->file = file;
	e->list_only = false;
	e->noexec = false;
	e->asked = false;
	e->sys = false;
	e->tree = -1;
	e->target = NULL;
	e->unbound = e->mount_only = e->link_copy = false;
	e->stage = e->from_stage = e->mask = e->pin = false;
	e->nested = 0;
	p->npaths++;
	return 0;
}

static int
ws__add_guard(struct ws_sandbox_plan *p, int fd, const char *path, bool write)
{
	if (p->nguards == p->gcap) {
		size_t nc = p->gcap ? p->gcap * 2 : 8;
		void *np = realloc(p->guards, nc * sizeof(*p->guards));

		if (np == NULL) {
			close(fd);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		p->guards = np;
		p->gcap = nc;
	}
	p->guards[p->nguards].path = strdup(path);
	if (p->guards[p->nguards].path == NULL) {
		close(fd);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	p->guards[p->nguards].fd = fd;
	p->guards[p->nguards].write = write;
	p->guards[p->nguards].file = false;
	p->guards[p->nguards].list_only = false;
	p->guards[p->nguards].noexec = false;
	p->guards[p->nguards].asked = false;
	p->guards[p->nguards].sys = false;
	p->guards[p->nguards].tree = -1;
	p->guards[p->nguards].target = NULL;
	p->guards[p->nguards].unbound = false;
	p->guards[p->nguards].mount_only = false;
	p->guards[p->nguards].link_copy = false;
	p->guards[p->nguards].stage = false;
	p->guards[p->nguards].from_stage = false;
	p->guards[p->nguards].mask = false;
	p->guards[p->nguards].pin = false;
	p->nguards++;
	return 0;
}

int
ws_sandbox_plan_add_guard(struct ws_sandbox_plan *p, int fd, const char *path,
			  bool mask)
{
	int rc = ws__add_guard(p, fd, path, false);

	if (rc == 0) {
		p->guards[p->nguards - 1].mask = mask;
		p->guards[p->nguards - 1].pin = true;
	}
	return rc;
}

int
ws_sandbox_plan_add_mask(struct ws_sandbox_plan *p, int fd, const char *path)
{
	size_t n = strlen(path);
	bool had = false;

	/*
	 * The entry may be guarded already (wstools' own state is, read-only,
	 * or pinned as the parent of a guard in it): that guard becomes the
	 * mask, for a read-only bind after it would show the entry again.
	 * What lies below is under the empty directory: not bound (its
	 * mount point is not there).
	 */
	for (size_t i = 0; i < p->nguards; i++) {
		const char *g = p->guards[i].path;

		if (strcmp(g, path) == 0) {
			p->guards[i].mask = true;
			p->guards[i].pin = true;
			p->guards[i].write = false;
			had = true;
		} else if (strncmp(g, path, n) == 0 && (g[n] == '/' || n == 1)) {
			p->guards[i].unbound = true;
		}
	}
	if (had) {
		close(fd);
		return 0;
	}
	return ws_sandbox_plan_add_guard(p, fd, path, true);
}

/*
 * Add a host path by name (system dirs, devices, --allow-*); a missing
 * one is skipped.  A relative name is made absolute (the current
 * directory's): the mount namespace binds a path at its name under the
 * new root, and "/tmp" + "rel" was a directory made at the host's "/".
 */
static int
ws__add_host(struct ws_sandbox_plan *p, const char *path, bool write)
{
	char abs[PATH_MAX * 2], cwd[PATH_MAX];
	int fd = open(path, O_PATH | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return 0;
	}
	if (path[0] != '/') {
		if (getcwd(cwd, sizeof(cwd)) == NULL ||
		    snprintf(abs, sizeof(abs), "%s/%s", cwd, path) >= (int)sizeof(abs)) {
			close(fd);
			return ws_error_set(WS_EINVALID_PATH, path, "%s",
					    "cannot be made absolute");
		}
		path = abs;
	}
	return ws_sandbox_plan_add(p, fd, path, write, !S_ISDIR(st.st_mode));
}

static bool
ws__etc_secret(const char *rel)
{
	for (size_t i = 0; i < sizeof(ws__etc_secrets) / sizeof(ws__etc_secrets[0]); i++)
		if (fnmatch(ws__etc_secrets[i], rel, FNM_PATHNAME) == 0)
			return true;
	return false;
}

/* /etc entry by entry, secrets left out (no mount namespace masks them). */
static int
ws__add_etc(struct ws_sandbox_plan *p, const char *dir, const char *rel)
{
	char path[4096];
	DIR *d;
	struct dirent *de;
	int rc = 0;

	snprintf(path, sizeof(path), "%s", dir);
	d = opendir(path);
	if (d == NULL)
		return 0;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char sub[4096], r2[4096];

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(r2, sizeof(r2), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		if (ws__etc_secret(r2))
			continue;
		/* Directories holding secrets are split further. */
		if (strcmp(r2, "ssh") == 0 || strcmp(r2, "security") == 0)
			rc = ws__add_etc(p, sub, r2);
		else
			rc = ws__add_host(p, sub, false);
	}
	closedir(d);
	/* /etc itself may be listed, which grants nothing beneath it. */
	if (rc == 0 && *rel == '\0' && (rc = ws__add_host(p, "/etc", false)) == 0)
		p->paths[p->npaths - 1].list_only = true;
	return rc;
}

/*
 * Guard rel (below the anchor) if it exists, without following links:
 * read-only, or with write a "pin" (a writable bind onto itself, so that
 * the entry can be neither renamed nor removed while what it holds stays
 * writable).  An entry already in the plan is not added twice.
 */
static int
ws__guard_rel(struct ws_sandbox_plan *p, const struct ws_anchor *an,
	      const char *rel, bool write)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | O_NOFOLLOW,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	char path[4352];
	int fd;

	snprintf(path, sizeof(path), "%s%s%s", an->real,
		 strcmp(an->real, "/") == 0 ? "" : "/", rel);
	for (size_t i = 0; i < p->nguards; i++) {
		if (strcmp(p->guards[i].path, path) == 0) {
			/* A guard wins over a pin of the same entry. */
			if (!write)
				p->guards[i].write = false;
			return 0;
		}
	}
	fd = (int)syscall(SYS_openat2, an->fd, rel, &how, sizeof(how));
	if (fd < 0)
		return 0;
	return ws__add_guard(p, fd, path, write);
}

/*
 * Guard rel, and pin every directory between the anchor's top and it:
 * a read-only entry whose parent could be renamed away and replaced by a
 * copy would guard nothing (mv .git .git.old; mkdir .git; ...).
 */
static int
ws__guard_with_parents(struct ws_sandbox_plan *p, const struct ws_anchor *an,
		       const char *rel)
{
	char buf[4352];
	int rc;

	snprintf(buf, sizeof(buf), "%s", rel);
	for (char *sl = strchr(buf, '/'); sl != NULL; sl = strchr(sl + 1, '/')) {
		*sl = '\0';
		rc = ws__guard_rel(p, an, buf, true);
		*sl = '/';
		if (rc < 0)
			return rc;
	}
	return ws__guard_rel(p, an, rel, false);
}

/*
 * Count rel below an as a persistence place that exists (ws__guard_rel()
 * guarded it, as it guards only what is there), and keep the first one's
 * name: without a mount namespace nothing keeps it as it is, and the run
 * refuses (lib/run.c).
 */
static int
ws__note_held(struct ws_sandbox_plan *p, const struct ws_anchor *an,
	      const char *rel)
{
	char path[4352];

	snprintf(path, sizeof(path), "%s%s%s", an->real,
		 strcmp(an->real, "/") == 0 ? "" : "/", rel);
	for (size_t i = 0; i < p->nguards; i++) {
		if (strcmp(p->guards[i].path, path) != 0)
			continue;
		p->nheld_places++;
		if (p->held_place == NULL &&
		    (p->held_place = strdup(path)) == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		break;
	}
	return 0;
}

/*
 * HOME's persistence places (ws/persist.h, the list the file tools refuse
 * to change) that exist in a writable anchor: read-only, their parents
 * pinned, by their spelling and, reached through a link (stow's
 * ~/.config -> dotfiles/config), by the place it names too, or the
 * command writes it by either name (review11).  Those of both homes
 * (ws_homes()), as the file tools guard both: with a scratch $HOME, the
 * password file's is still the one the user's next login reads
 * (review18 08).  Missing ones are removed after the command if it made
 * them (lib/run.c, from the same resolution, kept in the plan).
 */
static int
ws__guard_home_persist(struct ws_sandbox_plan *p, struct ws_ctx *ws,
		       char *const *home, size_t nh,
		       const struct ws_persist_base *xb, size_t nxb)
{
	int rc;

	if ((rc = ws_ctx_home_places_of(ws, home, nh, xb, nxb, &p->home_places,
					&p->nhome_places, NULL, NULL)) < 0)
		return rc;
	p->home_done = true;
	for (size_t i = 0; rc == 0 && i < p->nhome_places; i++) {
		const struct ws_anchor *an = &ws->anchors[p->home_places[i].anchor];
		char *rest = p->home_places[i].rest, *sl;

		if (!p->home_places[i].way) {
			if ((rc = ws__guard_with_parents(p, an, rest)) == 0)
				rc = ws__note_held(p, an, rest);
			continue;
		}
		/*
		 * An entry on a place's way (~/.config/git -> WS/a/gitcfg
		 * with WS/a -> b: WS/a, WS/b; PATH=WS/tools/bin with WS/tools
		 * -> realdir: WS/tools), pinned with its parents: a link
		 * bound onto itself, as the root's spelling's are, cannot be
		 * removed or re-pointed, nor a directory on the way renamed,
		 * so the place stays the one guarded (rm a; mkdir -p
		 * a/gitcfg made the host's git configuration the command's:
		 * sec16c).  What they hold stays writable; one missing is
		 * removed after the command if it made it (lib/run.c).
		 */
		for (sl = strchr(rest, '/'); rc == 0 && sl != NULL;
		     sl = strchr(sl + 1, '/')) {
			*sl = '\0';
			rc = ws__guard_rel(p, an, rest, true);
			*sl = '/';
		}
		if (rc == 0)
			rc = ws__guard_rel(p, an, rest, true);
		if (rc == 0)
			rc = ws__note_held(p, an, rest);
	}
	return rc;
}

/* Whether real is, or lies in, a place below one of the bases b. */
static bool
ws__in_bases(const struct ws_persist_base *b, size_t n, const char *real)
{
	for (size_t k = 0; k < n; k++)
		if (ws_persist_anchor_in(b[k].dir, b[k].kind, real))
			return true;
	return false;
}

static size_t
ws__depth(const char *p)
{
	size_t d = 0;

	for (; *p; p++)
		if (*p == '/' && p[1] != '\0')
			d++;
	return d;
}

/* "/etc" however many slashes spell it ("//etc/", "/etc/."). */
static bool
ws__is_etc(const char *path)
{
	const char *p = path + strspn(path, "/");

	if (p == path || strncmp(p, "etc", 3) != 0)
		return false;
	p += 3;
	while (*p == '/' || (*p == '.' && (p[1] == '/' || p[1] == '\0')))
		p++;
	return *p == '\0';
}

/* Deeper after shallower; stable, so that equal depths keep the order
 * they were added in. */
static void
ws__sort_by_depth(struct ws_sandbox_path *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct ws_sandbox_path t = v[i];
		size_t j = i;

		while (j > 0 && ws__depth(v[j - 1].target ? v[j - 1].target :
					  v[j - 1].path) >
				ws__depth(t.target ? t.target : t.path)) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = t;
	}
}

void
ws_sandbox_plan_sort(struct ws_sandbox_plan *p)
{
	ws__sort_by_depth(p->paths, p->npaths);
	ws__sort_by_depth(p->guards, p->nguards);
}

int
ws_sandbox_plan_fill(struct ws_sandbox_plan *p, struct ws_ctx *ws,
		     const char *const *allow_read, size_t nread,
		     const char *const *allow_write, size_t nwrite,
		     bool entry_by_entry)
{
	struct ws_guarded *g = NULL;
	const struct ws_persist_base *xb;
	char *const *home;
	size_t ng = 0, nxb, nh;
	int rc;

	/* The call's resolution, which its checks and places share. */
	if ((rc = ws_ctx_persist_env(ws, &xb, &nxb, &home, &nh)) < 0)
		return rc;

	for (size_t i = 0; rc == 0 && i < sizeof(ws__sys_dirs) / sizeof(ws__sys_dirs[0]); i++) {
		size_t had = p->npaths;

		if (entry_by_entry && strcmp(ws__sys_dirs[i], "/etc") == 0)
			rc = ws__add_etc(p, "/etc", "");
		else
			rc = ws__add_host(p, ws__sys_dirs[i], false);
		/* What ws_sandbox_mount_system() binds (with a mount ns). */
		if (!entry_by_entry && p->npaths > had)
			p->paths[had].sys = true;
	}
	for (size_t i = 0; rc == 0 && i < sizeof(ws__dev_nodes) / sizeof(ws__dev_nodes[0]); i++) {
		size_t had = p->npaths;

		rc = ws__add_host(p, ws__dev_nodes[i], true);
		if (!entry_by_entry && p->npaths > had)
			p->paths[had].sys = true;
	}
	/*
	 * Without a mount namespace nothing masks /etc's secrets: an
	 * --allow-read of /etc itself is granted entry by entry, as /etc
	 * is by default.
	 */
	for (size_t i = 0; rc == 0 && i < nread; i++) {
		size_t had = p->npaths;

		rc = entry_by_entry && ws__is_etc(allow_read[i]) ?
		     0 : ws__add_host(p, allow_read[i], false);
		if (p->npaths > had)
			p->paths[had].asked = true;
	}
	for (size_t i = 0; rc == 0 && i < nwrite; i++) {
		size_t had = p->npaths;

		rc = ws__add_host(p, allow_write[i], true);
		if (p->npaths > had)
			p->paths[had].asked = true;
	}
	for (size_t a = 0; rc == 0 && a < ws->nanchors; a++) {
		int fd = fcntl(ws->anchors[a].fd, F_DUPFD_CLOEXEC, 3);
		bool in_place;

		if (fd < 0)
			return ws_error_errno(errno, NULL, "dup");
		/* An anchor in one of HOME's persistence places (a workspace
		 * of ~/.local/bin, or its real name through stow's link), of
		 * either home: the file tools write nothing there. */
		in_place = ws_homes_persist_anchor(home, nh, ws->anchors[a].real) ||
			   ws__in_bases(xb, nxb, ws->anchors[a].real);
		if (a == 0)
			p->root_in_place = in_place;
		rc = ws_sandbox_plan_add(p, fd, ws->anchors[a].real,
					 !ws->anchors[a].ro && !in_place, false);
	}
	if (rc == 0 && p->priv_fd >= 0) {
		int fd = fcntl(p->priv_fd, F_DUPFD_CLOEXEC, 3);

		if (fd < 0)
			return ws_error_errno(errno, NULL, "dup");
		rc = ws_sandbox_plan_add(p, fd, p->priv_real, true, false);
	}
	if (rc < 0)
		return rc;
	ws_sandbox_plan_sort(p);
	/*
	 * Every guarded entry that exists (libws's one list: persistence
	 * guards, wstools' own configuration and policy, and the entries the
	 * spellings of the root and the mounts pass through) becomes a
	 * read-only bind onto itself.  A bound entry, a symlink included,
	 * cannot be renamed, replaced or removed (EBUSY), so a command cannot
	 * redirect a mount or the root for the next call.  Entries in
	 * read-only anchors need nothing more; the top of an anchor is a
	 * mount point already.
	 */
	if ((rc = ws_guarded_list(ws, &g, &ng)) < 0)
		return rc;
	/* The bases taken above, not taken again (PATH's directories are
	 * as many of them). */
	rc = ws__guard_home_persist(p, ws, home, nh, xb, nxb);
	for (size_t i = 0; rc == 0 && i < ng; i++) {
		const char *rest = NULL;
		int a;

		/*
		 * A repository's configuration is read-only too, though git
		 * writes it by lock and rename (git config, git remote add
		 * then fail with EBUSY): while the command runs, the person's
		 * own git (an editor's git status, a prompt's, a commit in
		 * another terminal) reads it, and a core.fsmonitor or
		 * hooksPath the command put there ran on the host before the
		 * clean-up after the command took it out (review23 16).
		 */
		a = ws_ctx_anchor_of_real(ws, g[i].real, &rest);

		while (rest != NULL && *rest == '/')
			rest++;
		if (a >= 0 && !ws->anchors[a].ro && rest != NULL && *rest != '\0') {
			rc = ws__guard_with_parents(p, &ws->anchors[a], rest);
			if (g[i].kind != WS_GUARD_PERSIST)
				p->nboundary++;
		}
	}
	for (size_t m = 1; m < ws->nanchors; m++) {
		const char *rest = NULL;

		if (!ws->anchors[m].ro)
			continue;
		for (size_t k = 0; k < ws->nanchors; k++) {
			if (k == m || ws->anchors[k].ro)
				continue;
			if (ws_path_within(ws->anchors[k].real, ws->anchors[m].real, &rest))
				p->nboundary++;
		}
	}
	ws_guarded_free(g, ng);
	/*
	 * A ".git" file (a worktree's or submodule's "gitdir: DIR") in a
	 * writable anchor's top decides where git finds its hooks and config:
	 * read-only too.
	 */
	for (size_t a = 0; rc == 0 && a < ws->nanchors; a++) {
		struct stat st;

		if (!ws->anchors[a].ro &&
		    fstatat(ws->anchors[a].fd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISDIR(st.st_mode))
			rc = ws__guard_rel(p, &ws->anchors[a], ".git", false);
	}
	if (rc < 0)
		return rc;
	/* Pins (shallower) are attached before what they hold. */
	ws__sort_by_depth(p->guards, p->nguards);
	return 0;
}

/*
 * A detached, possibly read-only, copy of the mount tree at fd; noexec
 * for a grant without execute: Landlock governs execve only, and
 * "ld.so <dir>/prog" maps the program without it.  The virtual view's
 * stage's top mount is nosymfollow as well: its entries are bound by
 * name (ws__attach_from_stage()), and a link swapped in for one fails
 * there instead of being followed to the host.  Only the top: the
 * entries' names are looked up there, and a host mount below the
 * workspace keeps its own nosymfollow, or its lack, in the view
 * (ws__mark_nested()).
 */
static int
ws__tree(int fd, bool rw, bool noexec, bool stage)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_NOSUID | (rw ? 0 : MOUNT_ATTR_RDONLY) |
			    (noexec ? MOUNT_ATTR_NOEXEC : 0),
	};
	struct mount_attr top = {.attr_set = MOUNT_ATTR_NOSYMFOLLOW};
	struct stat st;

	/* Device nodes are bound one by one; nothing else may hold one. */
	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode))
		attr.attr_set |= MOUNT_ATTR_NODEV;
	int t = open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
				  AT_EMPTY_PATH | AT_RECURSIVE);

	if (t < 0)
		return -errno;
	if (mount_setattr(t, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
			  sizeof(attr)) < 0 ||
	    (stage && mount_setattr(t, "", AT_EMPTY_PATH, &top, sizeof(top)) < 0 &&
	     /* Linux before 5.14: no nosymfollow (see ws__attach_from_stage()). */
	     errno != EINVAL)) {
		int e = errno;

		close(t);
		return -e;
	}
	return t;
}

/*
 * In a user namespace the parent cannot copy mount trees, and a
 * descriptor opened there names a mount of another namespace, which
 * open_tree() refuses: open the path again here, check that it is the
 * same inode, and copy that.
 */
static int
ws__tree_here(struct ws_sandbox_path *e)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_MAGICLINKS,
	};
	struct stat want, got;
	int fd;

	if (fstat(e->fd, &want) < 0)
		return -errno;
	/*
	 * A guarded symlink (an entry the spelling of a mount passes
	 * through) is planned as the link itself: open it so, not its
	 * target, or the inodes never agree (EXDEV in a user namespace).
	 */
	if (S_ISLNK(want.st_mode))
		how.flags |= O_NOFOLLOW;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, e->path, &how, sizeof(how));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &got) < 0 ||
	    want.st_dev != got.st_dev || want.st_ino != got.st_ino) {
		close(fd);
		return -EXDEV;
	}
	e->tree = ws__tree(fd, e->write, e->noexec, e->stage);
	close(fd);
	return e->tree < 0 ? e->tree : 0;
}

int
ws_sandbox_plan_trees(struct ws_sandbox_plan *p)
{
	for (size_t i = 0; i < p->npaths + p->nguards; i++) {
		struct ws_sandbox_path *e = i < p->npaths ? &p->paths[i]
							  : &p->guards[i - p->npaths];
		struct stat st;

		/* Bound ahead of the call (ws_sandbox_mount_system()). */
		if (e->sys && p->base_sys)
			continue;
		/* The virtual view: not bound, a symlink copied, or cloned
		 * from the stage in the child. */
		if (e->unbound || e->link_copy || e->from_stage || e->mask) {
			e->tree = e->link_copy ? -2 : e->from_stage ? -3 : -1;
			continue;
		}
		/* A merged-/usr link (/bin -> usr/bin) stays a link. */
		if (e->path[0] == '/' && strchr(e->path + 1, '/') == NULL &&
		    lstat(e->path, &st) == 0 && S_ISLNK(st.st_mode)) {
			e->tree = -2;
			continue;
		}
		if (p->userns) {
			int rc = ws__tree_here(e);

			if (rc < 0)
				return ws_error_set(WS_ESANDBOX_UNAVAILABLE, e->path,
						    "%s: %s", e->path, strerror(-rc));
			continue;
		}
		e->tree = ws__tree(e->fd, e->write, e->noexec, e->stage);
		if (e->tree < 0)
			return ws_error_set(WS_ESANDBOX_UNAVAILABLE, e->path,
					    "open_tree %s: %s", e->path,
					    strerror(-e->tree));
	}
	return 0;
}

void
ws_sandbox_plan_free(struct ws_sandbox_plan *p)
{
	for (size_t i = 0; i < p->npaths; i++) {
		if (p->paths[i].fd >= 0)
			close(p->paths[i].fd);
		if (p->paths[i].tree >= 0)
			close(p->paths[i].tree);
		free(p->paths[i].path);
		free(p->paths[i].target);
	}
	for (size_t i = 0; i < p->nguards; i++) {
		if (p->guards[i].fd >= 0)
			close(p->guards[i].fd);
		if (p->guards[i].tree >= 0)
			close(p->guards[i].tree);
		free(p->guards[i].path);
		free(p->guards[i].target);
	}
	free(p->paths);
	free(p->guards);
	ws_home_places_free(p->home_places, p->nhome_places);
	p->home_places = NULL;
	p->nhome_places = 0;
	free(p->held_place);
	p->held_place = NULL;
	p->nheld_places = 0;
	p->home_done = false;
	p->root_in_place = false;
	p->paths = p->guards = NULL;
	p->npaths = p->nguards = p->cap = p->gcap = 0;
}

/* ---- In the child ------------------------------------------------- */

#define WS__NEWROOT "/tmp"
/* Where the virtual view's stage is attached: the old root's /dev, a
 * directory every system has (see ws_sandbox_mount()). */
#define WS__STAGE "/dev"
/* The new root's own mount once built: nothing on it may be written,
 * run, or be a device or a set-id program (the binds keep their own). */
#define WS__ROOT_FLAGS (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)

static int
ws__fail(char *msg, size_t len, const char *what, const char *path, int err)
{
	snprintf(msg, len, "%s %s: %s", what, path ? path : "", strerror(err));
	return -err;
}

/*
 * The new root's directory (O_PATH), once its tmpfs is mounted: walks of
 * paths below it start there rather than at "/" (two lookups fewer per
 * path, some thirty a call).  Only the namespace init, a single thread,
 * sets and uses it.
 */
static _Thread_local int ws__newroot_fd = -1;

/*
 * The virtual view's stage (the workspace's tree), once attached.
 * Both are per thread: the namespace init shares the memory, and so the
 * thread storage, of the thread that started it (CLONE_VM without
 * CLONE_SETTLS), and two calls of one server (wstools mcp) in different
 * workspaces, which the workspace's run lock does not order, may each
 * have an init at work; each fd is a number in its own init's table.
 */
static _Thread_local int ws__stage_fd = -1;
/* Whether the stage is nosymfollow (Linux 5.14 on): its entries are then
 * bound by mount(2), else cloned by open_tree(). */
static _Thread_local bool ws__stage_nosym;
/*
 * While the workspace's top-level entries are bound: the old root (an
 * O_PATH descriptor), the process's root being the stage and its
 * working directory the new root's (ws__stage_enter()), or -1.
 */
static _Thread_local int ws__oldroot_fd = -1;
#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000
#endif

/* Whether an O_PATH descriptor is a directory or a symlink (what a walk's
 * last component may be where a directory is wanted). */
static bool
ws__dir_or_link(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode));
}

/*
 * Open each component of an absolute path, making the missing ones, and
 * following no symlink at all: a mount point inside the bound workspace
 * (a guard, a mount below it) is under the command's control, and a
 * link swapped in there must not send a mkdir, a create or a mount to
 * the host (this runs as root, before the pivot).  Returns an O_PATH
 * descriptor of the last component, or -errno.
 */
static int
ws__walk_make(const char *path, bool file)
{
	struct open_how how = {
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_BENEATH,
	};
	const char *nr = WS__NEWROOT "/";
	char buf[4352];
	char *save = NULL, *comp, *next;
	bool made = false;
	int dfd, fd, start = -1;

	if (strlen(path) >= sizeof(buf) || path[0] != '/')
		return -ENAMETOOLONG;
	if (ws__newroot_fd >= 0 && strncmp(path, nr, strlen(nr)) == 0) {
		/* Below the new root: start at its descriptor (kept open). */
		memcpy(buf, path + strlen(nr) - 1, strlen(path) - strlen(nr) + 2);
		dfd = start = ws__newroot_fd;
	} else {
		memcpy(buf, path, strlen(path) + 1);
		dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (dfd < 0)
		return -errno;
	for (comp = strtok_r(buf, "/", &save); comp; comp = next) {
		bool last;

		next = strtok_r(NULL, "/", &save);
		last = next == NULL;
		/*
		 * The last component is opened without following it: a
		 * guarded entry may be a symlink (one the root's or a mount's
		 * spelling passes through), and a bind onto the link itself
		 * keeps it from being renamed or replaced.
		 */
		how.flags = O_PATH | O_CLOEXEC |
			    (last ? O_NOFOLLOW : O_DIRECTORY);
		/*
		 * Below a directory this walk has just made nothing exists
		 * yet: go straight to making it (should something appear
		 * meanwhile, EEXIST leads to the same checked open).
		 */
		if (made) {
			fd = -1;
			errno = ENOENT;
		} else {
			fd = (int)syscall(SYS_openat2, dfd, comp, &how, sizeof(how));
		}
		if (fd >= 0 && last && !file && !ws__dir_or_link(fd)) {
			close(fd);
			if (dfd != start)
				close(dfd);
			return -ENOTDIR;
		}
		if (fd < 0 && errno == ENOENT) {
			made = false;
			if (last && file) {
				int c = openat(dfd, comp, O_CREAT | O_EXCL | O_WRONLY |
					       O_NOFOLLOW | O_CLOEXEC, 0644);

				if (c >= 0)
					close(c);
				else if (errno != EEXIST)
					goto fail;
			} else if (mkdirat(dfd, comp, 0755) == 0) {
				made = true;
			} else if (errno != EEXIST) {
				goto fail;
			}
			fd = (int)syscall(SYS_openat2, dfd, comp, &how, sizeof(how));
			/* Made by someone else meanwhile: check as above. */
			if (fd >= 0 && last && !file && !made &&
			    !ws__dir_or_link(fd)) {
				close(fd);
				if (dfd != start)
					close(dfd);
				return -ENOTDIR;
			}
		}
		if (fd < 0)
			goto fail;
		if (dfd != start)
			close(dfd);
		dfd = fd;
	}
	/* A path that is the new root itself: a descriptor of its own. */
	return dfd == start ? fcntl(start, F_DUPFD_CLOEXEC, 3) : dfd;
fail:
	fd = -errno;
	if (dfd != start)
		close(dfd);
	return fd;
}

/* mkdir -p of an absolute path under the new root (no symlinks). */
static int
ws__mkdirs(const char *path)
{
	int fd = ws__walk_make(path, false);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* A mount point for a file: the directories above it and an empty file. */
static int
ws__mkfile(const char *path)
{
	int fd = ws__walk_make(path, true);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* Attach a detached tree (ws_sandbox_plan_trees()) at target, reached
 * through descriptors only. */
static int
ws__attach(int tree, const char *target, bool file, char *msg, size_t len)
{
	int fd = ws__walk_make(target, file), rc = 0;

	if (fd < 0)
		return ws__fail(msg, len, "mount point", target, -fd);
	if (move_mount(tree, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH |
		       MOVE_MOUNT_T_EMPTY_PATH) < 0)
		rc = ws__fail(msg, len, "move_mount", target, errno);
	close(fd);
	return rc;
}

/*
 * A top-level workspace entry of the virtual view (issue 19's speed: one
 * such entry is two system calls): its mount point made by name on the
 * new root's tmpfs, which holds nothing else of that name (the plan's
 * names are the workspace's, less the system's and the mounts'; EEXIST
 * fails) and which nothing but this process can reach yet; then the
 * entry bound there by name from the stage, the workspace's own tree
 * attached at the old root's /dev.  mount(2) follows a last-component
 * link, but the stage is nosymfollow (ws__tree()): a link swapped in for
 * the entry since the parent read the directory fails (ELOOP) and is
 * never followed out of the workspace; a kind changed meanwhile (a
 * directory where a file was) fails the bind (ENOTDIR, EISDIR).  Both:
 * "workspace entry changed", as before.  The binds take the stage's
 * flags, nosymfollow too: ws_sandbox_mount() clears that on the whole
 * new root once they are made.  (open_tree() and move_mount() take two
 * calls more an entry, a close and a detached mount namespace made and
 * freed each: measured about 10% slower.  They stay where the kernel has
 * no nosymfollow, before Linux 5.14: AT_SYMLINK_NOFOLLOW clones a link
 * swapped in as itself, which no move puts on a mount point.)
 */
/*
 * The stage as the process's root, the new root as its working
 * directory, for the entries' binds: each is then mount("/name", "name"),
 * a lookup of its own name on each side, where "/dev/name" and
 * "/tmp/name" walked two components and crossed a mount point each (on
 * a machine with a million cached dentries a lookup walks a hash chain
 * of a dozen: measured ~0.45 us an entry of the bind's ~3).  The name
 * comes from the workspace's directory (no "/", no "..").  The old root
 * is restored by ws__stage_leave() before anything else is bound; init
 * runs nothing else meanwhile.
 */
static int
ws__stage_enter(void)
{
	if (ws__oldroot_fd >= 0)
		return 0;
	ws__oldroot_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ws__oldroot_fd < 0)
		return -errno;
	if (fchdir(ws__stage_fd) < 0 || chroot(".") < 0 ||
	    fchdir(ws__newroot_fd) < 0)
		return -errno;
	return 0;
}

static int
ws__stage_leave(void)
{
	int rc = 0;

	if (ws__oldroot_fd < 0)
		return 0;
	if (fchdir(ws__oldroot_fd) < 0 || chroot(".") < 0)
		rc = -errno;
	close(ws__oldroot_fd);
	ws__oldroot_fd = -1;
	return rc;
}

static int
ws__attach_from_stage(const struct ws_sandbox_path *e, const char *target,
		      char *msg, size_t len)
{
	const char *name = e->target + strspn(e->target, "/");
	char src[300];
	int entered;

	if (ws__stage_fd < 0 || ws__newroot_fd < 0 || strlen(name) > 255)
		return ws__fail(msg, len, "stage", target, ENOENT);
	if ((e->file ? mknodat(ws__newroot_fd, name, S_IFREG | 0644, 0)
		     : mkdirat(ws__newroot_fd, name, 0755)) < 0)
		return ws__fail(msg, len, "mount point", target, errno);
	if (!ws__stage_nosym) {
		/* Without nosymfollow: cloned by name, following no link. */
		int t = open_tree(ws__stage_fd, name, OPEN_TREE_CLONE |
				  OPEN_TREE_CLOEXEC | AT_RECURSIVE |
				  AT_SYMLINK_NOFOLLOW), rc = 0;

		if (t < 0)
			return ws__fail(msg, len, "open_tree", target, errno);
		if (move_mount(t, "", ws__newroot_fd, name, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
			struct stat st;
			int err = errno;

			/* A link clones as itself, which moves nowhere. */
			rc = ws__fail(msg, len, err == ENOTDIR || err == EISDIR ||
				      (err == EINVAL && fstat(t, &st) == 0 &&
				       S_ISLNK(st.st_mode)) ?
				      "workspace entry changed:" : "move_mount",
				      target, err);
		}
		close(t);
		return rc;
	}
	if ((entered = ws__stage_enter()) < 0)
		return ws__fail(msg, len, "chroot", WS__STAGE, -entered);
	snprintf(src, sizeof(src), "/%s", name);
	if (mount(src, name, NULL, MS_BIND | MS_REC, NULL) < 0)
		return ws__fail(msg, len, errno == ENOTDIR || errno == EISDIR ||
			      errno == ELOOP ? "workspace entry changed:" : "mount",
			      target, errno);
	return 0;
}

/*
 * Mask a secret under the new root's /etc with an empty file or dir.
 * The sources lie on the new root's tmpfs, already read-only, nosuid,
 * nodev and noexec (WS__ROOT_FLAGS) when this runs: a bind mount takes
 * its source mount's flags, so one mount(2) makes a read-only,
 * non-executable mask, where a bind and a remount took two (about 25
 * masks a call).
 */
static int
ws__mask_st(const char *target, const struct stat *known, char *msg, size_t len)
{
	struct stat st;
	const char *src;

	if (known != NULL)
		st = *known;
	else if (lstat(target, &st) < 0)
		return 0;
	if (S_ISLNK(st.st_mode))
		return 0;
	src = S_ISDIR(st.st_mode) ? WS__NEWROOT "/.ws-empty-dir"
				  : WS__NEWROOT "/.ws-empty";
	if (mount(src, target, NULL, MS_BIND, NULL) < 0)
		return ws__fail(msg, len, "mask", target, errno);
	return 0;
}

/*
 * Mask an entry of the workspace or a mount (the policy's view): reached
 * without following any link (the tree is the command's to change, and
 * a link swapped in must not move the mask), the empty source cloned
 * from the read-only root and moved onto it.  Gone: nothing to mask.
 */
static int
ws__mask_beneath(const char *target, char *msg, size_t len)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | O_NOFOLLOW,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, target, &how, sizeof(how));
	int t, rc = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : ws__fail(msg, len, "mask", target, errno);
	if (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode)) {
		close(fd);
		return 0;
	}
	t = open_tree(AT_FDCWD, S_ISDIR(st.st_mode) ? WS__NEWROOT "/.ws-empty-dir"
						    : WS__NEWROOT "/.ws-empty",
		      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (t < 0 || move_mount(t, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH |
				MOVE_MOUNT_T_EMPTY_PATH) < 0)
		rc = ws__fail(msg, len, "mask", target, errno);
	if (t >= 0)
		close(t);
	close(fd);
	return rc;
}

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

/*
 * Pin the directories above a policy guard (a masked or read-only entry)
 * up to the mount it lies on: each is bound onto itself with what is
 * mounted below it (the masks), so that the command cannot rename one
 * (EBUSY, as for a mount point) and so move the guarded entry out from
 * under a rule that names its path ("mv /a/b /a/c" and the next call
 * reads /a/c/.env where a rule denied /a/b/.env; wswrite --move refuses
 * that rename).  Stops at a mount root: a directory an earlier guard
 * pinned, a top-level entry, the workspace.
 */
static int
ws__pin_parents(const char *target, char *msg, size_t len)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	char dir[4352], *slash;
	int rc = 0;

	snprintf(dir, sizeof(dir), "%s", target);
	while (rc == 0 && (slash = strrchr(dir, '/')) != NULL) {
		struct statx sx;
		int fd, t;

		*slash = '\0';
		if (strlen(dir) <= strlen(WS__NEWROOT))
			break;
		fd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
		if (fd < 0)
			return errno == ENOENT ? 0 : ws__fail(msg, len, "pin", dir, errno);
		if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, 0, &sx) == 0 &&
		    (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
		    (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
			close(fd);
			break;
		}
		t = open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
			      AT_RECURSIVE | AT_EMPTY_PATH);
		if (t < 0 || move_mount(t, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH |
					MOVE_MOUNT_T_EMPTY_PATH) < 0)
			rc = ws__fail(msg, len, "pin", dir, errno);
		if (t >= 0)
			close(t);
		close(fd);
	}
	return rc;
}

static int
ws__mask(const char *target, char *msg, size_t len)
{
	return ws__mask_st(target, NULL, msg, len);
}

/*
 * The names in directory path, one call of fn each until fn returns
 * nonzero (which is returned); *opened says whether path could be read.
 * getdents64() into a buffer on the stack, as lib/walk.c reads: the
 * namespace init shares wsrun's memory (see lib/run.c) and must not use
 * the heap that wsrun's own code uses, as opendir() does.
 */
static int
ws__each_name(const char *path, int (*fn)(const char *dir, const char *name,
					  void *arg),
	      void *arg, bool *opened)
{
	char buf[4096] __attribute__((aligned(8)));
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
	ssize_t n;

	*opened = fd >= 0;
	if (fd < 0)
		return 0;
	while (rc == 0 && (n = getdents64(fd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; rc == 0 && off < n;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);

			off += de->d_reclen;
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				rc = fn(path, de->d_name, arg);
		}
	close(fd);
	return rc;
}

struct ws__mask_arg {
	char *msg;
	size_t len;
	struct ws__masked *done;
};

/* ssh_host_*_key: the host's private keys. */
static int
ws__mask_host_key(const char *dir, const char *name, void *arg)
{
	struct ws__mask_arg *a = arg;
	size_t n = strlen(name);
	char path[4352];

	if (n < 13 || strncmp(name, "ssh_host_", 9) != 0 ||
	    strcmp(name + n - 4, "_key") != 0)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return ws__mask(path, a->msg, a->len);
}

static int
ws__mask_etc(char *msg, size_t len)
{
	static const char *const fixed[] = {
		"shadow", "shadow-", "gshadow", "gshadow-", "sudoers",
		"sudoers.d", "security/opasswd",
	};
	char path[4352];
	struct ws__mask_arg a = {msg, len, NULL};
	bool opened;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		snprintf(path, sizeof(path), WS__NEWROOT "/etc/%s", fixed[i]);
		rc = ws__mask(path, msg, len);
	}
	/* No /etc/ssh (or none readable, as root): no host keys to hide. */
	if (rc == 0)
		rc = ws__each_name(WS__NEWROOT "/etc/ssh", ws__mask_host_key, &a,
				   &opened);
	/*
	 * Init shares the memory of wsrun (or of the MCP server) that cloned
	 * it, so the kernel answers its /proc/1/cmdline, which needs no
	 * ptrace access, with that process's argv: the workspace's real
	 * path, the audit log's and the policy's, what a harness passed
	 * (review18 04).  Its environment is zeroed (ws_run_detach_environ());
	 * its argv cannot be, so it is masked.  The fresh /proc is mounted
	 * before this runs, by init as pid 1.
	 */
	if (rc == 0)
		rc = ws__mask(WS__NEWROOT "/proc/1/cmdline", msg, len);
	/* Its thread's file, the same argv (review19 03). */
	if (rc == 0)
		rc = ws__mask(WS__NEWROOT "/proc/1/task/1/cmdline", msg, len);
	return rc;
}

/*
 * The programs of the built-in blocked list, masked in the minimal root
 * so that a shell string cannot reach them by another spelling.
 */
static const char *const ws__blocked_bins[] = {
	"sudo", "su", "doas", "pkexec", "run0", "mkfs", "mke2fs", "mkswap",
	"wipefs", "fdisk", "sfdisk", "parted", "shutdown", "reboot", "halt",
	"poweroff", "curl", "wget", "nc", "ncat", "netcat", "socat", "telnet",
};

/* The files ws__mask_blocked() masked: each once, however many names
 * lead to it (halt, reboot, poweroff and shutdown are one systemctl). */
struct ws__masked {
	dev_t dev[64];
	ino_t ino[64];
	size_t n;
};

/* Mask path (under the new root), following links inside it. */
static int
ws__mask_bin(const char *path, struct ws__masked *done, char *msg, size_t len)
{
	char cur[4352], link[4096];
	struct stat st;

	snprintf(cur, sizeof(cur), "%s", path);
	for (int hop = 0; hop < 8; hop++) {
		ssize_t n;

		if (lstat(cur, &st) < 0)
			return 0;
		if (!S_ISLNK(st.st_mode)) {
			int rc;

			if (!S_ISREG(st.st_mode))
				return 0;
			for (size_t i = 0; i < done->n; i++)
				if (done->dev[i] == st.st_dev && done->ino[i] == st.st_ino)
					return 0;
			/* lstat()'s answer, just had: no second one. */
			if ((rc = ws__mask_st(cur, &st, msg, len)) == 0 &&
			    done->n < sizeof(done->ino) / sizeof(done->ino[0])) {
				done->dev[done->n] = st.st_dev;
				done->ino[done->n++] = st.st_ino;
			}
			return rc;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (n <= 0)
			return 0;
		link[n] = '\0';
		if (link[0] == '/') {
			snprintf(cur, sizeof(cur), WS__NEWROOT "%s", link);
		} else {
			char *sl = strrchr(cur, '/');

			if (sl == NULL)
				return 0;
			snprintf(sl + 1, sizeof(cur) - (size_t)(sl + 1 - cur), "%s", link);
		}
	}
	return 0;
}

/* One name of a small bin directory: masked if it is on the list. */
static int
ws__mask_blocked_name(const char *dir, const char *name, void *arg)
{
	struct ws__mask_arg *a = arg;
	char path[4352];

	for (size_t i = 0; i < sizeof(ws__blocked_bins) / sizeof(ws__blocked_bins[0]); i++)
		if (strcmp(name, ws__blocked_bins[i]) == 0) {
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			return ws__mask_bin(path, a->done, a->msg, a->len);
		}
	return 0;
}

static int
ws__mask_blocked(char *msg, size_t len)
{
	static const char *const dirs[] = {"/usr/bin", "/usr/sbin", "/usr/local/bin",
					   "/usr/local/sbin", "/bin", "/sbin"};
	char path[4352];
	struct stat seen[sizeof(dirs) / sizeof(dirs[0])];
	struct ws__masked done = {.n = 0};
	struct ws__mask_arg a = {msg, len, &done};
	struct stat empty;
	int rc = 0;

	/* A name that leads to a masked file leads to the empty source. */
	if (stat(WS__NEWROOT "/.ws-empty", &empty) == 0) {
		done.dev[0] = empty.st_dev;
		done.ino[0] = empty.st_ino;
		done.n = 1;
	}

	for (size_t d = 0; rc == 0 && d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		bool dup = false;

		/* With a merged /usr, /bin is /usr/bin: mask each file once. */
		snprintf(path, sizeof(path), WS__NEWROOT "%s", dirs[d]);
		if (stat(path, &seen[d]) < 0) {
			seen[d].st_ino = 0;
			continue;
		}
		for (size_t e = 0; e < d; e++)
			dup = dup || (seen[e].st_ino == seen[d].st_ino &&
				      seen[e].st_dev == seen[d].st_dev);
		if (dup)
			continue;
		/*
		 * A small directory (one block: /usr/local/bin is mostly
		 * empty) is read once, and only the names it holds are
		 * looked at: a call or two instead of a lookup per name.
		 */
		if (seen[d].st_size <= 4096) {
			bool opened;

			rc = ws__each_name(path, ws__mask_blocked_name, &a, &opened);
			if (opened)
				continue;
			/* Unreadable: look each name up, as for a large one. */
		}
		for (size_t i = 0; rc == 0 && i < sizeof(ws__blocked_bins) /
					     sizeof(ws__blocked_bins[0]); i++) {
			snprintf(path, sizeof(path), WS__NEWROOT "%s/%s", dirs[d],
				 ws__blocked_bins[i]);
			rc = ws__mask_bin(path, &done, msg, len);
		}
	}
	return rc;
}

/* The minimal /dev: a tmpfs with the usual links (nodes are binds). */
static int
ws__mount_dev(char *msg, size_t len)
{
	static const char *const links[][2] = {
		{"/proc/self/fd", "fd"},	{"/proc/self/fd/0", "stdin"},
		{"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"},
	};
	char p[256];

	if (ws__mkdirs(WS__NEWROOT "/dev") < 0 ||
	    mount("tmpfs", WS__NEWROOT "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC,
		  "mode=0755,size=64k") < 0)
		return ws__fail(msg, len, "mount", "/dev", errno);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(p, sizeof(p), WS__NEWROOT "/dev/%s", links[i][1]);
		if (symlink(links[i][0], p) < 0)
			return ws__fail(msg, len, "symlink", p, errno);
	}
	return 0;
}

#define WS__TARGET_LEN 4352

static int ws__mount_base(bool rprivate, bool virt, long long tmp_size,
			  const char *priv_real, bool keep, char *msg,
			  size_t msglen);
static int ws__mount_base_rest(bool virt, long long tmp_size,
			       const char *priv_real, char *target, char *msg,
			       size_t msglen);

/*
 * The part of the minimal root that depends on no call, only on the view
 * and the private /tmp's size: "/" private (with rprivate), the new
 * root's tmpfs, its private /tmp with HOME and TMPDIR (priv_real, when
 * they live there), the masks' empty sources, /dev and a fresh /proc.
 * An init made ahead of its call (lib/run.c) does it before the call
 * comes (its plan's base_ready then says so); ws_sandbox_mount() does it
 * otherwise.  Holds no descriptor when it returns.
 */
int
ws_sandbox_mount_base(bool rprivate, bool virt, long long tmp_size,
		      const char *priv_real, char *msg, size_t msglen)
{
	return ws__mount_base(rprivate, virt, tmp_size, priv_real, false, msg,
			      msglen);
}

/* keep: the new root's descriptor stays open (ws_sandbox_mount() goes on). */
static int
ws__mount_base(bool rprivate, bool virt, long long tmp_size,
	       const char *priv_real, bool keep, char *msg, size_t msglen)
{
	char target[WS__TARGET_LEN];
	int rc;

	if (rprivate && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return ws__fail(msg, msglen, "mount --make-rprivate", "/", errno);
	/* The virtual view's root takes the command's new top-level names
	 * (copied into the workspace afterwards): RAM no rlimit counts,
	 * bounded as /tmp is (--tmp-size). */
	snprintf(target, WS__TARGET_LEN, "mode=0755,size=%lld",
		 virt && tmp_size > 0 ? tmp_size : 1024LL * 1024);
	if (mount("tmpfs", WS__NEWROOT, "tmpfs", MS_NOSUID | MS_NODEV,
		  target) < 0)
		return ws__fail(msg, msglen, "mount tmpfs", WS__NEWROOT, errno);
	ws__newroot_fd = open(WS__NEWROOT, O_PATH | O_DIRECTORY | O_CLOEXEC);
	rc = ws__mount_base_rest(virt, tmp_size, priv_real, target, msg, msglen);
	if (!keep && ws__newroot_fd >= 0) {
		close(ws__newroot_fd);
		ws__newroot_fd = -1;
	}
	return rc;
}

/*
 * The git configuration of the command's private HOME in the virtual
 * view.  The system's directories sit at "/" beside the workspace's
 * files, so in a repository whose work tree is the workspace git took
 * them for untracked files: "git status" listed usr/ and proc/, and
 * "git add -A" failed on /dev/full (ftu11 01).  An includeIf for the
 * repository at "/" alone (a nested one keeps its own names) points
 * core.excludesFile at a list of those names.  The files are made in
 * the new root's fresh /tmp, before any command runs; the command may
 * change them, which touches only its own git.
 */
static int
ws__git_view_config(const char *priv_real, char *target, char *msg,
		    size_t msglen)
{
	static const struct {
		const char *name, *text;
	} files[] = {
		{"config",
		 "# wsrun's virtual view: the system's directories at / are no\n"
		 "# part of the repository whose work tree is the workspace.\n"
		 "[includeIf \"gitdir:/.git\"]\n\tpath = ws-view\n"},
		{"ws-view", "[core]\n\texcludesFile = ~/.config/git/ws-view-ignore\n"},
		{"ws-view-ignore",
		 "/usr/\n/bin\n/sbin\n/lib\n/lib32\n/lib64\n/libx32\n/etc/\n"
		 "/opt/\n/dev/\n/proc/\n/tmp/\n"},
	};
	int rc;

	snprintf(target, WS__TARGET_LEN, WS__NEWROOT "%s/home/.config/git",
		 priv_real);
	if ((rc = ws__mkdirs(target)) < 0)
		return ws__fail(msg, msglen, "mkdir", target, -rc);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t n = strlen(files[i].text);
		int fd;

		snprintf(target, WS__TARGET_LEN, WS__NEWROOT "%s/home/.config/git/%s",
			 priv_real, files[i].name);
		fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  0644);
		if (fd < 0 || write(fd, files[i].text, n) != (ssize_t)n) {
			rc = ws__fail(msg, msglen, "write", target, errno);
			if (fd >= 0)
				close(fd);
			return rc;
		}
		close(fd);
	}
	return 0;
}

/* The rest of ws_sandbox_mount_base(), below the new root's descriptor. */
static int
ws__mount_base_rest(bool virt, long long tmp_size, const char *priv_real,
		    char *target, char *msg, size_t msglen)
{
	int rc;

	/*
	 * A private /tmp, and the empty sources of the masks.  Its pages are
	 * memory that no rlimit of the command counts: bounded by the plan
	 * (--tmp-size, limits.tmp_size; never 0, which tmpfs takes as no
	 * bound), so that a write past it is ENOSPC in the command.
	 */
	snprintf(target, WS__TARGET_LEN, "mode=1777,size=%lld",
		 tmp_size > 0 ? tmp_size : 1024LL * 1024);
	if (ws__mkdirs(WS__NEWROOT "/tmp") < 0 ||
	    mount("tmpfs", WS__NEWROOT "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
		  target) < 0)
		return ws__fail(msg, msglen, "mount tmpfs", "/tmp", errno);
	/* HOME and TMPDIR in the private /tmp (see ws_run()). */
	if (priv_real != NULL) {
		static const char *const sub[] = {"/home", "/tmp"};

		for (size_t i = 0; i < 2; i++) {
			snprintf(target, WS__TARGET_LEN, WS__NEWROOT "%s%s",
				 priv_real, sub[i]);
			if ((rc = ws__mkdirs(target)) < 0 || chmod(target, 0700) < 0)
				return ws__fail(msg, msglen, "mkdir", target,
						rc < 0 ? -rc : errno);
		}
	}
	if (virt && priv_real != NULL &&
	    (rc = ws__git_view_config(priv_real, target, msg, msglen)) < 0)
		return rc;
	if (ws__mkfile(WS__NEWROOT "/.ws-empty") < 0 ||
	    ws__mkdirs(WS__NEWROOT "/.ws-empty-dir") < 0)
		return ws__fail(msg, msglen, "mkdir", "/.ws-empty", errno);
	if ((rc = ws__mount_dev(msg, msglen)) < 0)
		return rc;
	if (ws__mkdirs(WS__NEWROOT "/proc") < 0 ||
	    mount("proc", WS__NEWROOT "/proc", "proc",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC | (virt ? MS_RDONLY : 0),
		  NULL) < 0)
		return ws__fail(msg, msglen, "mount", "/proc", errno);
	return 0;
}

/* Whether target is dir or beneath it. */
static bool
ws__at_or_below(const char *target, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(target, dir, n) == 0 && (target[n] == '\0' || target[n] == '/');
}

/*
 * One line of /proc/self/mountinfo: whether it is a nosymfollow mount at
 * or below a system directory (its fields: id, parent, dev, root, mount
 * point, options, ...; the mount point octal-escaped, which the
 * directories' names never need).
 */
static bool
ws__sys_nosym_line(char *line)
{
	char *f[6], *save = NULL;
	size_t n = 0;

	for (char *w = strtok_r(line, " ", &save); w && n < 6;
	     w = strtok_r(NULL, " ", &save))
		f[n++] = w;
	if (n < 6 || strstr(f[5], "nosymfollow") == NULL)
		return false;
	for (size_t d = 0; d < sizeof(ws__sys_dirs) / sizeof(ws__sys_dirs[0]); d++)
		if (ws__at_or_below(f[4], ws__sys_dirs[d]))
			return true;
	return ws__at_or_below(f[4], "/dev");
}

/*
 * Whether a mount at or below a system directory is nosymfollow, read
 * from this namespace's /proc/self/mountinfo line by line into a buffer
 * on the stack (no heap: see ws_sandbox_mount_system()).  An unreadable
 * table, or a line longer than the buffer, counts as yes.
 */
static bool
ws__sys_nosymfollow(void)
{
	char buf[8192];
	size_t len = 0;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	bool found = false;
	ssize_t n = 0;

	if (fd < 0)
		return true;
	while (!found && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0) {
		char *line = buf, *nl;

		len += (size_t)n;
		buf[len] = '\0';
		while (!found && (nl = strchr(line, '\n')) != NULL) {
			*nl = '\0';
			found = ws__sys_nosym_line(line);
			line = nl + 1;
		}
		len -= (size_t)(line - buf);
		memmove(buf, line, len);
		if (len == sizeof(buf) - 1)
			found = true;
	}
	close(fd);
	return found || n < 0;
}

/* One system path (ws__sys_dirs, ws__dev_nodes) bound into the new root
 * as ws_sandbox_mount() binds a plan's: a top-level link stays a link. */
static int
ws__mount_sys_one(const char *path, bool write, char *msg, size_t msglen)
{
	char target[WS__TARGET_LEN], link[4096];
	struct stat st;
	int fd, t, rc;
	ssize_t n;

	if (lstat(path, &st) < 0)
		return 0; /* missing: skipped, as ws__add_host() does */
	snprintf(target, sizeof(target), WS__NEWROOT "%s", path);
	if (S_ISLNK(st.st_mode) && strchr(path + 1, '/') == NULL) {
		if ((n = readlink(path, link, sizeof(link) - 1)) <= 0)
			return 0;
		link[n] = '\0';
		if (symlink(link, target) < 0 && errno != EEXIST)
			return ws__fail(msg, msglen, "symlink", target, errno);
		return 0;
	}
	if ((fd = open(path, O_PATH | O_CLOEXEC)) < 0)
		return 0;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return 0;
	}
	t = ws__tree(fd, write, false, false);
	close(fd);
	if (t < 0)
		return ws__fail(msg, msglen, "open_tree", path, -t);
	rc = ws__attach(t, target, !S_ISDIR(st.st_mode), msg, msglen);
	close(t);
	return rc;
}

int
ws_sandbox_mount_system(bool mask_blocked, char *msg, size_t msglen)
{
	int rc = 0;

	/*
	 * ws_sandbox_mount() clears nosymfollow on the whole new root once
	 * the workspace's entries are bound, before the system's trees are
	 * there, so that a host mount's own nosymfollow stays: made ahead,
	 * they would lose it.  Such a host is rare; it gets them per call.
	 */
	if (ws__sys_nosymfollow())
		return 0;
	ws__newroot_fd = open(WS__NEWROOT, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ws__newroot_fd < 0)
		return ws__fail(msg, msglen, "open", WS__NEWROOT, errno);
	for (size_t i = 0; rc == 0 && i < sizeof(ws__sys_dirs) / sizeof(ws__sys_dirs[0]); i++)
		rc = ws__mount_sys_one(ws__sys_dirs[i], false, msg, msglen);
	for (size_t i = 0; rc == 0 && i < sizeof(ws__dev_nodes) / sizeof(ws__dev_nodes[0]); i++)
		rc = ws__mount_sys_one(ws__dev_nodes[i], true, msg, msglen);
	/* The masks' sources read-only while they are made (see
	 * ws__mask_st()), then the root writable again for the call. */
	if (rc == 0 &&
	    mount(NULL, WS__NEWROOT, NULL, MS_REMOUNT | MS_BIND | WS__ROOT_FLAGS,
		  NULL) < 0)
		rc = ws__fail(msg, msglen, "remount", "/", errno);
	if (rc == 0)
		rc = ws__mask_etc(msg, msglen);
	if (rc == 0 && mask_blocked)
		rc = ws__mask_blocked(msg, msglen);
	if (rc == 0 &&
	    mount(NULL, WS__NEWROOT, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID |
		  MS_NODEV, NULL) < 0)
		rc = ws__fail(msg, msglen, "remount", "/", errno);
	close(ws__newroot_fd);
	ws__newroot_fd = -1;
	return rc < 0 ? rc : 1;
}

bool
ws_sandbox_plan_system_apart(const struct ws_sandbox_plan *p)
{
	for (size_t i = 0; i < p->npaths; i++) {
		const struct ws_sandbox_path *e = &p->paths[i];
		const char *t = e->target ? e->target : e->path;

		/* Not bound in the new root (the stage lies on the old one). */
		if (e->sys || e->unbound || e->stage || strcmp(e->path, "/") == 0)
			continue;
		if (ws__at_or_below(t, "/dev"))
			return false;
		for (size_t d = 0; d < sizeof(ws__sys_dirs) / sizeof(ws__sys_dirs[0]); d++)
			if (ws__at_or_below(t, ws__sys_dirs[d]))
				return false;
	}
	return true;
}

/* A mount table line's mount point (mountinfo's fifth field): the
 * top-level name below the stage it lies in, its octal escapes read. */
static void
ws__nested_line(struct ws_sandbox_plan *p, const char *mp, bool over)
{
	static const char pre[] = WS__STAGE "/";
	char name[256];
	size_t n = 0;
	const char *s;

	if (strncmp(mp, pre, sizeof(pre) - 1) != 0)
		return;
	name[n++] = '/';
	for (s = mp + sizeof(pre) - 1; *s && *s != '/' && n < sizeof(name) - 1; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			name[n++] = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
					   (s[3] - '0'));
			s += 3;
		} else
			name[n++] = *s;
	}
	name[n] = '\0';
	for (size_t i = 0; i < p->npaths; i++)
		if (p->paths[i].from_stage && p->paths[i].target != NULL &&
		    strcmp(p->paths[i].target, name) == 0) {
			/* Several mounts below one entry: one is enough. */
			if (*s == '\0' && !over)
				p->paths[i].nested = WS_SANDBOX_NESTED_SELF;
			else if (p->paths[i].nested == 0)
				p->paths[i].nested = WS_SANDBOX_NESTED_BELOW;
		}
}

/*
 * listmount(2) and the unique mount id (Linux 6.8), for headers that
 * predate them: the same number on every architecture.
 */
#ifndef SYS_listmount
#define SYS_listmount 458
#endif
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif

/*
 * Whether the stage's mount has no mount below it, asked of the kernel
 * (listmount(2) of its children: two system calls) rather than by
 * reading the whole mount table, which the kernel formats line by line
 * for every mount of the namespace, made-ahead masks included, at each
 * call (issue 20).  false when that cannot be told (an older kernel, a
 * mount with children): ws__mark_nested() reads the table as before.
 */
static bool
ws__stage_childless(void)
{
	struct {
		uint32_t size, spare;
		uint64_t mnt_id, param;
	} req = {.size = 24};
	struct statx sx;
	uint64_t child;
	long n;

	if (statx(ws__stage_fd, "", AT_EMPTY_PATH, STATX_MNT_ID_UNIQUE, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID_UNIQUE))
		return false;
	req.mnt_id = sx.stx_mnt_id;
	n = syscall(SYS_listmount, &req, &child, 1, 0);
	return n == 0;
}

/*
 * Mark the top-level entries that hold a host mount of their own: the
 * stage's child mounts, read once a view from the mount table.  Their
 * binds carry those mounts with the host's flags, which the one
 * recursive clear of the stage's nosymfollow on the new root would
 * change (a nested mount's own nosymfollow lost): ws_sandbox_mount()
 * binds them after that clear and clears each one's top alone.  A
 * workspace with no mount in it, the common case, costs the read of the
 * table here and nothing an entry.  Streamed through a small buffer
 * (no allocation in the init): only the first, second and fifth fields
 * of a line are kept.
 */
static int
ws__mark_nested(struct ws_sandbox_plan *p, char *msg, size_t len)
{
	struct statx sx;
	char buf[4096], mp[1100];
	unsigned long long id = 0, parent = 0;
	size_t field = 0, mlen = 0;
	bool over = false;
	ssize_t n;
	int fd;

	if (ws__stage_childless())
		return 0;
	if (statx(ws__stage_fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return ws__fail(msg, len, "statx", WS__STAGE, errno ? errno : ENOSYS);
	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ws__fail(msg, len, "open", "/proc/self/mountinfo", errno);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++) {
			char c = buf[i];

			if (c == '\n') {
				mp[mlen] = '\0';
				if (parent == sx.stx_mnt_id && id != parent)
					ws__nested_line(p, mp, over);
				id = parent = 0;
				field = mlen = 0;
				over = false;
			} else if (c == ' ')
				field++;
			else if (field == 0 && c >= '0' && c <= '9')
				id = id * 10 + (unsigned)(c - '0');
			else if (field == 1 && c >= '0' && c <= '9')
				parent = parent * 10 + (unsigned)(c - '0');
			else if (field == 4 && mlen < sizeof(mp) - 1)
				mp[mlen++] = c;
			else if (field == 4)
				over = true;
		}
	if (n < 0) {
		int e = errno;

		close(fd);
		return ws__fail(msg, len, "read", "/proc/self/mountinfo", e);
	}
	close(fd);
	return 0;
}

int
ws_sandbox_mount(struct ws_sandbox_plan *p, int *cwd_fd, char *msg,
		 size_t msglen)
{
	char target[4352];
	struct stat want, got;
	int rc = 0, fd;

	*cwd_fd = -1;
	/* In a user namespace the trees are copied here, before the new
	 * root's tmpfs hides /tmp. */
	if (p->userns) {
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			return ws__fail(msg, msglen, "mount --make-rprivate", "/",
					errno);
		if (ws_sandbox_plan_trees(p) < 0) {
			snprintf(msg, msglen, "%s", ws_error_last());
			return -EPERM;
		}
	}
	/*
	 * Each build starts from nothing.  An init cloned with its thread's
	 * memory shares that thread's thread-locals, so after a build that
	 * failed part way these may hold numbers from another init's
	 * descriptor table, which name nothing (or something else) here.
	 */
	ws__stage_fd = -1;
	ws__stage_nosym = false;
	ws__newroot_fd = -1;
	ws__oldroot_fd = -1;
	if (!p->base_ready &&
	    (rc = ws__mount_base(!p->userns, p->virt, p->tmp_size,
				 p->priv_fd < 0 ? p->priv_real : NULL, true, msg,
				 msglen)) < 0)
		return rc;
	if (ws__newroot_fd < 0)
		ws__newroot_fd = open(WS__NEWROOT, O_PATH | O_DIRECTORY | O_CLOEXEC);
	/*
	 * Three passes over the plan: the virtual view's stage and the
	 * workspace's top-level entries first; then the entries that hold a
	 * host mount (ws__mark_nested()); then the rest, in the plan's
	 * order (deeper after shallower).  After the first, the nosymfollow
	 * the entries' binds took from the stage is cleared on the new root
	 * in one call, before any host tree is there; an entry of the
	 * second has it cleared on its top alone, so that a host mount's
	 * own nosymfollow stays.
	 */
	for (size_t k = 0; k < 3 * p->npaths; k++) {
		struct ws_sandbox_path *e = &p->paths[k % p->npaths];
		size_t pass = e->stage || (e->from_stage && e->nested == 0) ? 0 :
			      e->from_stage ? 1 : 2;
		char link[4096];
		ssize_t n;

		/* Binds from the stage run with it as the root (see
		 * ws__stage_enter()); what follows each pass resolves on the
		 * real one. */
		if ((k == p->npaths || k == 2 * p->npaths) &&
		    (rc = ws__stage_leave()) < 0)
			return ws__fail(msg, msglen, "chroot", "/", -rc);
		if (k == p->npaths && ws__stage_fd >= 0 && ws__stage_nosym) {
			struct mount_attr attr = {.attr_clr = MOUNT_ATTR_NOSYMFOLLOW};

			if (mount_setattr(ws__newroot_fd, "", AT_EMPTY_PATH |
					  AT_RECURSIVE, &attr, sizeof(attr)) < 0)
				return ws__fail(msg, msglen, "mount_setattr", "/",
						errno);
		}
		if (k / p->npaths != pass)
			continue;
		if (strcmp(e->path, "/") == 0 || e->unbound)
			continue; /* a workspace at / is not narrowed */
		if (e->sys && p->base_sys)
			continue; /* bound ahead (ws_sandbox_mount_system()) */
		snprintf(target, sizeof(target), WS__NEWROOT "%s",
			 e->target ? e->target : e->path);
		if (e->from_stage) {
			struct mount_attr attr = {.attr_clr = MOUNT_ATTR_NOSYMFOLLOW};

			if ((rc = ws__attach_from_stage(e, target, msg, msglen)) < 0)
				return rc;
			/* An entry that is a mount itself has its own flags. */
			if (e->nested == WS_SANDBOX_NESTED_BELOW &&
			    mount_setattr(ws__newroot_fd, e->target + 1,
					  AT_SYMLINK_NOFOLLOW, &attr, sizeof(attr)) < 0)
				return ws__fail(msg, msglen, "mount_setattr", target,
						errno);
			continue;
		}
		/*
		 * The stage lies on the old root (its /dev, a directory every
		 * system has, covered in this namespace only), not in the new
		 * one: it goes with the old root at the pivot, in the one
		 * unmount (an RCU grace period) that costs anyway, rather
		 * than in one of its own (measured: about a millisecond).
		 */
		if (e->stage)
			snprintf(target, sizeof(target), "%s", WS__STAGE);
		if (e->tree == -2) {
			/* A workspace entry's link: its own text, by fd. */
			n = e->link_copy && ws__stage_fd >= 0 ?
			    readlinkat(ws__stage_fd, e->target + strspn(e->target, "/"),
				       link, sizeof(link) - 1) :
			    readlink(e->path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (symlink(link, target) < 0 && errno != EEXIST)
				return ws__fail(msg, msglen, "symlink", target, errno);
			continue;
		}
		if ((rc = ws__attach(e->tree, target, e->file, msg, msglen)) < 0)
			return rc;
		if (e->stage) {
			struct open_how how = {
				.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
			};
			struct statfs sf;

			ws__stage_fd = (int)syscall(SYS_openat2, AT_FDCWD, target,
						    &how, sizeof(how));
			if (ws__stage_fd < 0)
				return ws__fail(msg, msglen, "open", target, errno);
			/* What the mount says, not what was asked. */
			ws__stage_nosym = fstatfs(ws__stage_fd, &sf) == 0 &&
					  (sf.f_flags & ST_NOSYMFOLLOW) != 0;
			if (ws__stage_nosym &&
			    (rc = ws__mark_nested(p, msg, msglen)) < 0)
				return rc;
		}
	}
	/* The root read-only before the masks (see ws__mask()). */
	if (mount(NULL, WS__NEWROOT, NULL, MS_REMOUNT | MS_BIND | WS__ROOT_FLAGS,
		  NULL) < 0)
		return ws__fail(msg, msglen, "remount", "/", errno);
	/* Masked ahead with the system part (ws_sandbox_mount_system()). */
	if (!p->base_sys && (rc = ws__mask_etc(msg, msglen)) < 0)
		return rc;
	if (!p->base_sys && p->mask_blocked &&
	    (rc = ws__mask_blocked(msg, msglen)) < 0)
		return rc;
	for (size_t i = 0; i < p->nguards; i++) {
		struct stat st;

		if (fstat(p->guards[i].fd, &st) < 0)
			continue;
		snprintf(target, sizeof(target), WS__NEWROOT "%s",
			 p->guards[i].target ? p->guards[i].target : p->guards[i].path);
		/* The policy's view: what it refuses to read is emptied. */
		if (p->guards[i].mask && !p->guards[i].unbound) {
			if ((rc = ws__mask_beneath(target, msg, msglen)) < 0 ||
			    (rc = ws__pin_parents(target, msg, msglen)) < 0)
				return rc;
			continue;
		}
		if (p->guards[i].tree >= 0 &&
		    (rc = ws__attach(p->guards[i].tree, target, !S_ISDIR(st.st_mode),
				     msg, msglen)) < 0)
			return rc;
		if (p->guards[i].pin && !p->guards[i].unbound &&
		    (rc = ws__pin_parents(target, msg, msglen)) < 0)
			return rc;
	}
	/*
	 * The virtual view's root takes new names again (the masks, made
	 * while it was read-only, keep that), and the masks' empty sources
	 * go: "/" shows what the workspace holds and the system's names.
	 */
	if (p->virt) {
		unsigned long nx = 0;

		/*
		 * The workspace bound without execute (a policy's exec rule
		 * for all of it): a top-level name the command makes lies on
		 * the root's tmpfs until the run ends, and runs there no more
		 * than in the workspace (review31 03).  The system's
		 * directories are mounts of their own.
		 */
		for (size_t i = 0; i < p->npaths && nx == 0; i++)
			if (p->paths[i].stage && p->paths[i].noexec)
				nx = MS_NOEXEC;
		if (mount(NULL, WS__NEWROOT, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID |
			  MS_NODEV | nx, NULL) < 0)
			return ws__fail(msg, msglen, "remount", "/", errno);
		unlink(WS__NEWROOT "/.ws-empty");
		rmdir(WS__NEWROOT "/.ws-empty-dir");
	}
	/* The stage goes with the old root at the pivot. */
	if (ws__stage_fd >= 0) {
		close(ws__stage_fd);
		ws__stage_fd = -1;
	}
	/* The working directory in the new tree: the same inode, no links. */
	{
		const char *in = p->cwd_in ? p->cwd_in : p->cwd_real;

		snprintf(target, sizeof(target), WS__NEWROOT "%s",
			 strcmp(in, "/") == 0 ? "" : in);
	}
	{
		struct open_how how = {
			.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};

		fd = (int)syscall(SYS_openat2, AT_FDCWD, target, &how, sizeof(how));
	}
	if (fd < 0)
		return ws__fail(msg, msglen, "open", p->cwd_real, errno);
	if (p->cwd_in != NULL && strcmp(p->cwd_in, "/") == 0) {
		/* The virtual view's root: the tmpfs, not the workspace. */
	} else if (fstat(p->cwd_fd, &want) < 0 || fstat(fd, &got) < 0 ||
	    want.st_ino != got.st_ino || want.st_dev != got.st_dev) {
		close(fd);
		return ws__fail(msg, msglen, "working directory changed:",
				p->cwd_real, EXDEV);
	}
	/* The empty sources stay: the root is read-only now. */
	if (ws__newroot_fd >= 0)
		close(ws__newroot_fd);
	ws__newroot_fd = -1;
	/*
	 * umount(2) of the old root returns only after an RCU grace period
	 * (namespace_unlock()); a helper that made the call while this went
	 * on as soon as the mount table no longer listed the old root was
	 * tried, and was no faster under load (measured), so it stays
	 * plain.
	 */
	if (chdir(WS__NEWROOT) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0) {
		rc = ws__fail(msg, msglen, "pivot_root", WS__NEWROOT, errno);
		close(fd);
		return rc;
	}
	/* The root was made read-only before the masks; /tmp and the binds
	 * keep their own flags. */
	*cwd_fd = fd;
	return 0;
}

int
ws_sandbox_loopback_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (s < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		rc = -errno;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (rc == 0 && ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		rc = -errno;
	close(s);
	return rc;
}

static uint64_t
ws__ll_fs_mask(int abi)
{
	uint64_t m = (1ULL << 13) - 1; /* ABI 1: execute .. make_sym */

	if (abi >= 2)
		m |= 1ULL << 13; /* refer */
	if (abi >= 3)
		m |= WS__LL_FS_TRUNCATE;
	if (abi >= 5)
		m |= WS__LL_FS_IOCTL_DEV;
	return m;
}

static int
ws__ll_add(int rs, int fd, uint64_t access)
{
	struct ws__ll_path_beneath pb = {.allowed_access = access, .parent_fd = fd};

	return (int)syscall(SYS_landlock_add_rule, rs, WS__LL_RULE_PATH_BENEATH,
			    &pb, 0);
}

int
ws_sandbox_landlock(const struct ws_sandbox_plan *p, char *msg, size_t msglen)
{
	int abi = p->landlock_abi, rs, rc = 0;
	uint64_t fs = ws__ll_fs_mask(abi);
	struct ws__ll_ruleset_attr attr = {.handled_access_fs = fs};
	size_t asz = sizeof(uint64_t);

	if (abi >= 4) {
		asz = 2 * sizeof(uint64_t);
		if (!p->net)
			attr.handled_access_net = WS__LL_NET_BIND_TCP |
						  WS__LL_NET_CONNECT_TCP;
	}
	if (abi >= 6) {
		asz = sizeof(attr);
		attr.scoped = WS__LL_SCOPE_SIGNAL |
			      (p->net ? 0 : WS__LL_SCOPE_ABSTRACT_UNIX);
	}
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, asz, 0);
	if (rs < 0)
		return ws__fail(msg, msglen, "landlock_create_ruleset", NULL, errno);
	for (size_t i = 0; i < p->npaths; i++) {
		const struct ws_sandbox_path *e = &p->paths[i];
		uint64_t a = e->write ? fs : (WS__LL_RX & fs);

		if (e->mount_only)
			continue; /* beneath the workspace's own rule */

		if (e->file)
			a &= WS__LL_FILE_MASK;
		if (e->noexec)
			a &= ~(uint64_t)WS__LL_FS_EXECUTE;
		if (e->list_only)
			a = WS__LL_FS_READ_DIR;
		if (ws__ll_add(rs, e->fd, a) < 0) {
			rc = ws__fail(msg, msglen, "landlock_add_rule", e->path, errno);
			goto out;
		}
	}
	if (abi >= 4 && p->net_proxy) {
		/* Network by name: connect to the proxy's port, nothing else. */
		struct {
			uint64_t allowed_access;
			uint64_t port;
		} __attribute__((packed)) np = {WS__LL_NET_CONNECT_TCP,
						WS_NETPROXY_PORT};

		if (syscall(SYS_landlock_add_rule, rs, 2 /* NET_PORT */, &np, 0) < 0) {
			rc = ws__fail(msg, msglen, "landlock_add_rule", "net port", errno);
			goto out;
		}
	}
	if (p->mountns) {
		/*
		 * In the minimal root: the private /tmp (rw), the fresh /proc
		 * (read only), and listing every directory -- only what was
		 * bound exists there, so "ls /" shows the sandbox.
		 */
		static const struct {
			const char *path;
			uint64_t access;
		} extra[] = {
			{"/tmp", ~0ULL},
			{"/proc", WS__LL_FS_READ_FILE | WS__LL_FS_READ_DIR},
			{"/", WS__LL_FS_READ_DIR},
		};
		/*
		 * The virtual view's root takes the command's new top-level
		 * names, and a Landlock rule on "/" reaches everything under
		 * it: there the mounts' own modes keep what is read-only so
		 * (system directories, ro mounts and grants, a read-only
		 * /proc), as they do in the real view too.  Device nodes
		 * cannot be made (no capability).
		 */
		uint64_t root_rw = ~(uint64_t)0 & ~((1ULL << 6) | (1ULL << 11) |
					       WS__LL_FS_IOCTL_DEV);

		for (size_t i = 0; rc == 0 && i < sizeof(extra) / sizeof(extra[0]); i++) {
			int fd = open(extra[i].path, O_PATH | O_CLOEXEC);

			uint64_t acc = extra[i].access;

			if (p->virt && strcmp(extra[i].path, "/") == 0)
				acc = root_rw;
			if (fd < 0 || ws__ll_add(rs, fd, acc & fs) < 0)
				rc = ws__fail(msg, msglen, "landlock_add_rule",
					      extra[i].path, errno);
			if (fd >= 0)
				close(fd);
		}
		if (rc < 0)
			goto out;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		rc = ws__fail(msg, msglen, "no_new_privs", NULL, errno);
		goto out;
	}
	if (syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		rc = ws__fail(msg, msglen, "landlock_restrict_self", NULL, errno);
out:
	close(rs);
	return rc;
}

int
ws_sandbox_drop_caps(char *msg, size_t msglen)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	for (int c = 0; c < 64; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0) {
			if (errno == EINVAL)
				break;
			if (errno != EPERM)
				return ws__fail(msg, msglen, "PR_CAPBSET_DROP", NULL, errno);
		}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		return ws__fail(msg, msglen, "PR_CAP_AMBIENT", NULL, errno);
	if (syscall(SYS_capset, &h, d) < 0)
		return ws__fail(msg, msglen, "capset", NULL, errno);
	return 0;
}

/* ---- seccomp ------------------------------------------------------- */

#if defined(__x86_64__)
#define WS__AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define WS__AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define WS__ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define WS__ARG_HI(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#define WS__RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define WS__ERRNO(e) WS__RET(SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

struct ws__bpf {
	struct sock_filter f[256];
	unsigned n;
};

static void
ws__emit(struct ws__bpf *b, struct sock_filter s)
{
	if (b->n < sizeof(b->f) / sizeof(b->f[0]))
		b->f[b->n] = s;
	b->n++;
}

/*
 * The filter is a search over the numbers of the system calls that have a
 * rule, each leading to its rule (a handler that always returns), any
 * other number allowed.  A chain of "nr == x" tests, one per rule, cost
 * every allowed call all of them, and the kernel runs the filter for
 * every system call number when it is loaded (the action cache,
 * seccomp_cache_prepare()): with 117 instructions in a chain that was
 * ~0.15 ms of each command's start, measured; a tree of depth 6 is a
 * few microseconds.
 */
struct ws__rules {
	struct ws__bpf h;	/* the handlers, one after another */
	struct {
		uint32_t nr;
		unsigned at;	/* its handler's first instruction in h */
	} r[64];
	size_t n;
	unsigned deny_at[2];	/* shared handlers: EPERM, ENOSYS */
	bool bad;
};

/* A rule for nr starting at handler instruction at (the first wins, as
 * in a chain). */
static void
ws__rule(struct ws__rules *R, long nr, unsigned at)
{
	if (nr < 0)
		return;
	for (size_t i = 0; i < R->n; i++)
		if (R->r[i].nr == (uint32_t)nr)
			return;
	if (R->n == sizeof(R->r) / sizeof(R->r[0])) {
		R->bad = true;
		return;
	}
	R->r[R->n].nr = (uint32_t)nr;
	R->r[R->n++].at = at;
}

/* nr returns errno e (EPERM or ENOSYS). */
static void
ws__deny(struct ws__rules *R, long nr, int e)
{
	ws__rule(R, nr, R->deny_at[e == EPERM ? 0 : 1]);
}

/*
 * The chmod family (syscall nr, mode in argument arg): no setuid or
 * setgid bit.  Inside, the workspace is nosuid; on the host it is not,
 * and a root command's copy of /bin/sh made setuid there would be a root
 * shell for anyone who can reach the workspace.
 */
static void
ws__deny_setid(struct ws__rules *R, long nr, int arg)
{
	if (nr < 0)
		return;
	ws__rule(R, nr, R->h.n);
	ws__emit(&R->h, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						     WS__ARG_LO(arg)));
	ws__emit(&R->h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
						     S_ISUID | S_ISGID, 0, 1));
	ws__emit(&R->h, (struct sock_filter)WS__ERRNO(EPERM));
	ws__emit(&R->h, (struct sock_filter)WS__RET(SECCOMP_RET_ALLOW));
}

/*
 * The open family with a flags argument (syscall nr, flags in argument
 * fl, mode in argument md): no setuid or setgid bit in the mode of a file
 * it creates.  The kernel uses the mode only with O_CREAT or O_TMPFILE
 * (build_open_how()), so only then is it looked at: a program that
 * passes stray bits with a plain open still runs.
 */
static void
ws__deny_setid_open(struct ws__rules *R, long nr, int fl, int md)
{
	if (nr < 0)
		return;
	ws__rule(R, nr, R->h.n);
	ws__emit(&R->h, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						     WS__ARG_LO(fl)));
	ws__emit(&R->h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
						     O_CREAT | __O_TMPFILE, 0, 3));
	ws__emit(&R->h, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						     WS__ARG_LO(md)));
	ws__emit(&R->h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
						     S_ISUID | S_ISGID, 0, 1));
	ws__emit(&R->h, (struct sock_filter)WS__ERRNO(EPERM));
	ws__emit(&R->h, (struct sock_filter)WS__RET(SECCOMP_RET_ALLOW));
}

/* Instructions of the search over n sorted rules (see ws__tree_emit()). */
static unsigned
ws__tree_len(size_t n)
{
	return n <= 4 ? (unsigned)n + 1 : 1 + ws__tree_len(n / 2) +
					  ws__tree_len(n - n / 2);
}

/*
 * The search over the sorted rules r[0..n) (the accumulator holds nr):
 * a few "nr == x" tests, each jumping to its handler, then allow; or
 * "nr >= the middle one" over the two halves.  Jumps go forward only, at
 * most 255 instructions: the handlers follow the whole tree, which
 * starts at instruction top, handlers at hbase.
 */
static void
ws__tree_emit(struct ws__bpf *b, struct ws__rules *R, size_t lo, size_t n,
	      unsigned hbase)
{
	if (n <= 4) {
		for (size_t i = lo; i < lo + n; i++) {
			unsigned to = hbase + R->r[i].at, from = b->n + 1;

			if (to - from > 255)
				R->bad = true;
			ws__emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
								 BPF_K, R->r[i].nr,
								 (uint8_t)(to - from), 0));
		}
		ws__emit(b, (struct sock_filter)WS__RET(SECCOMP_RET_ALLOW));
		return;
	}
	ws__emit(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
						 R->r[lo + n / 2].nr,
						 (uint8_t)ws__tree_len(n / 2), 0));
	ws__tree_emit(b, R, lo, n / 2, hbase);
	ws__tree_emit(b, R, lo + n / 2, n - n / 2, hbase);
}

/* The rules in order of number: an insertion sort (no heap here, and at
 * most 64 of them). */
static void
ws__rules_sort(struct ws__rules *R)
{
	for (size_t i = 1; i < R->n; i++)
		for (size_t j = i; j > 0 && R->r[j - 1].nr > R->r[j].nr; j--) {
			uint32_t nr = R->r[j].nr;
			unsigned at = R->r[j].at;

			R->r[j] = R->r[j - 1];
			R->r[j - 1].nr = nr;
			R->r[j - 1].at = at;
		}
}

#ifndef __NR_chmod
#define __NR_chmod (-1)
#endif
#ifndef __NR_open
#define __NR_open (-1)
#endif
#ifndef __NR_creat
#define __NR_creat (-1)
#endif
#ifndef __NR_mknod
#define __NR_mknod (-1)
#endif
#ifndef __NR_openat2
#define __NR_openat2 437 /* the same number on every architecture */
#endif
#ifndef __O_TMPFILE
#define __O_TMPFILE (O_TMPFILE & ~O_DIRECTORY)
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452 /* the same number on every architecture */
#endif

#ifndef __NR_iopl
#define __NR_iopl (-1)
#endif
#ifndef __NR_ioperm
#define __NR_ioperm (-1)
#endif

int
ws_sandbox_seccomp(const struct ws_sandbox_plan *p, char *msg, size_t msglen)
{
#ifdef WS__AUDIT_ARCH
	static const long eperm[] = {
		__NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev,
		__NR_keyctl, __NR_add_key, __NR_request_key, __NR_bpf,
		__NR_userfaultfd, __NR_perf_event_open, __NR_mount, __NR_umount2,
		__NR_pivot_root, __NR_unshare, __NR_setns, __NR_open_tree,
		__NR_move_mount, __NR_fsopen, __NR_fsconfig, __NR_fsmount,
		__NR_fspick, __NR_mount_setattr, __NR_kexec_load,
		__NR_kexec_file_load, __NR_init_module, __NR_finit_module,
		__NR_delete_module, __NR_reboot, __NR_swapon, __NR_swapoff,
		__NR_acct, __NR_iopl, __NR_ioperm, __NR_io_uring_setup,
		__NR_io_uring_enter, __NR_io_uring_register,
	};
	const uint32_t nsflags = CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID |
				 CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWIPC |
				 CLONE_NEWCGROUP;
	struct ws__bpf b = {.n = 0};
	struct ws__rules R;
	struct sock_fprog prog;
	unsigned hbase;

	memset(&R, 0, sizeof(R));
	R.deny_at[0] = R.h.n;
	ws__emit(&R.h, (struct sock_filter)WS__ERRNO(EPERM));
	R.deny_at[1] = R.h.n;
	ws__emit(&R.h, (struct sock_filter)WS__ERRNO(ENOSYS));
	for (size_t i = 0; i < sizeof(eperm) / sizeof(eperm[0]); i++)
		ws__deny(&R, eperm[i], EPERM);
	/* clone3 hides its flags in memory: glibc falls back to clone. */
	ws__deny(&R, __NR_clone3, ENOSYS);
	if (p->net_proxy) {
		/*
		 * Network by name: TCP sockets (the netns holds only loopback,
		 * where the proxy alone listens; Landlock admits its port
		 * only) and, unless host sockets need hiding, UNIX ones.
		 * With deny_unix_connect connect() must stay for TCP, and a
		 * UNIX socket cannot be made at all instead (socketpair
		 * stays).  No datagram or raw socket: no DNS from inside.
		 */
		ws__rule(&R, __NR_socket, R.h.n);
		ws__emit(&R.h, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							    WS__ARG_LO(0)));
		ws__emit(&R.h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							    AF_INET, 2, 0));
		ws__emit(&R.h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							    AF_INET6, 1, 0));
		ws__emit(&R.h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							    AF_UNIX, 4, 6));
		ws__emit(&R.h, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							    WS__ARG_LO(1)));
		ws__emit(&R.h, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K,
							    0xf));
		ws__emit(&R.h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							    SOCK_STREAM, 0, 2));
		ws__emit(&R.h, (struct sock_filter)WS__RET(SECCOMP_RET_ALLOW));
		/* AF_UNIX */
		ws__emit(&R.h, (struct sock_filter)WS__RET(p->deny_unix_connect ?
							   SECCOMP_RET_ERRNO | EPERM :
							   SECCOMP_RET_ALLOW));
		ws__emit(&R.h, (struct sock_filter)WS__ERRNO(EPERM));
		ws__emit(&R.h, (struct sock_filter)WS__ERRNO(EAFNOSUPPORT));
	}
	if (!p->net && !p->net_proxy && p->deny_unix_connect) {
		/* Only AF_UNIX sockets exist; no mount namespace hides the
		 * host's, so none may connect or send to an address.  The
		 * address pointer is 64 bits: both halves must be 0. */
		ws__deny(&R, __NR_connect, EPERM);
		ws__rule(&R, __NR_sendto, R.h.n);
		ws__emit(&R.h, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							    WS__ARG_LO(4)));
		ws__emit(&R.h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							    0, 0, 3));
		ws__emit(&R.h, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							    WS__ARG_HI(4)));
		ws__emit(&R.h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							    0, 0, 1));
		ws__emit(&R.h, (struct sock_filter)WS__RET(SECCOMP_RET_ALLOW));
		ws__emit(&R.h, (struct sock_filter)WS__ERRNO(EPERM));
	}
	if (p->net_proxy) {
		/* above */
	} else if (!p->net && p->deny_unix_connect) {
		/*
		 * socket(domain, type, ...): AF_UNIX only, and no datagram
		 * socket: sendmsg and sendmmsg keep the address in memory,
		 * where the filter cannot see it, and an unconnected
		 * datagram socket sends to any address.  A stream socket
		 * refuses an address on send; a seqpacket one ignores it and
		 * needs connect, denied above; socketpair stays.
		 */
		ws__rule(&R, __NR_socket, R.h.n);
		ws__emit(&R.h, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							    WS__ARG_LO(0)));
		ws__emit(&R.h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							    AF_UNIX, 0, 5));
		ws__emit(&R.h, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							    WS__ARG_LO(1)));
		ws__emit(&R.h, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K,
							    0xf));
		ws__emit(&R.h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							    SOCK_DGRAM, 0, 1));
		ws__emit(&R.h, (struct sock_filter)WS__ERRNO(EPERM));
		ws__emit(&R.h, (struct sock_filter)WS__RET(SECCOMP_RET_ALLOW));
		ws__emit(&R.h, (struct sock_filter)WS__ERRNO(EAFNOSUPPORT));
	} else if (!p->net) {
		/* socket(domain, ...): AF_UNIX only. */
		ws__rule(&R, __NR_socket, R.h.n);
		ws__emit(&R.h, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							    WS__ARG_LO(0)));
		ws__emit(&R.h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							    AF_UNIX, 0, 1));
		ws__emit(&R.h, (struct sock_filter)WS__RET(SECCOMP_RET_ALLOW));
		ws__emit(&R.h, (struct sock_filter)WS__ERRNO(EAFNOSUPPORT));
	}
	/*
	 * ioctl: no TIOCSTI/TIOCLINUX (typing into a terminal), and no
	 * fscrypt key or policy of the command's own (review32 01): a key it
	 * adds stays in the file system's keyring after it ends, and adding
	 * or removing one changes the names a read of an encrypted
	 * directory gives without moving its ctime, which the walks for
	 * planted repositories rely on (lib/vcs.c).  The kernel takes the
	 * request as 32 bits.
	 */
	{
		static const uint32_t deny[] = {
			TIOCSTI, TIOCLINUX, FS_IOC_SET_ENCRYPTION_POLICY,
			FS_IOC_ADD_ENCRYPTION_KEY, FS_IOC_REMOVE_ENCRYPTION_KEY,
			FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS,
		};
		const size_t nd = sizeof(deny) / sizeof(deny[0]);

		ws__rule(&R, __NR_ioctl, R.h.n);
		ws__emit(&R.h, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							    WS__ARG_LO(1)));
		for (size_t i = 0; i < nd; i++)
			ws__emit(&R.h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
								    deny[i], (uint8_t)(nd - i), 0));
		ws__emit(&R.h, (struct sock_filter)WS__RET(SECCOMP_RET_ALLOW));
		ws__emit(&R.h, (struct sock_filter)WS__ERRNO(EPERM));
	}
	ws__deny_setid(&R, __NR_chmod, 1);
	ws__deny_setid(&R, __NR_fchmod, 1);
	ws__deny_setid(&R, __NR_fchmodat, 2);
	ws__deny_setid(&R, __NR_fchmodat2, 2);
	/*
	 * Nor a file created with them: open, openat and creat with
	 * O_CREAT, mknod and mknodat (review12 03).  The file is empty
	 * and a write by the command would clear the bits, but a later
	 * append by a tool running as root (CAP_FSETID) would not.
	 * openat2 keeps its mode in a struct the filter cannot read: it
	 * is not there (ENOSYS), and libc falls back to openat.  mkdir
	 * may keep S_ISGID: a directory's does not run anything.
	 */
	ws__deny_setid_open(&R, __NR_open, 1, 2);
	ws__deny_setid_open(&R, __NR_openat, 2, 3);
	ws__deny_setid(&R, __NR_creat, 1);
	ws__deny_setid(&R, __NR_mknod, 1);
	ws__deny_setid(&R, __NR_mknodat, 2);
	ws__deny(&R, __NR_openat2, ENOSYS);
	/* clone(flags, ...): no new namespaces. */
	ws__rule(&R, __NR_clone, R.h.n);
	ws__emit(&R.h, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						    WS__ARG_LO(0)));
	ws__emit(&R.h, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
						    nsflags, 0, 1));
	ws__emit(&R.h, (struct sock_filter)WS__ERRNO(EPERM));
	ws__emit(&R.h, (struct sock_filter)WS__RET(SECCOMP_RET_ALLOW));

	ws__emit(&b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						  offsetof(struct seccomp_data, arch)));
	ws__emit(&b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						  WS__AUDIT_ARCH, 1, 0));
	ws__emit(&b, (struct sock_filter)WS__RET(SECCOMP_RET_KILL_PROCESS));
	ws__emit(&b, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						  offsetof(struct seccomp_data, nr)));
#ifdef __x86_64__
	/* The x32 ABI would bypass every rule below. */
	ws__emit(&b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
						  0x40000000U, 0, 1));
	ws__emit(&b, (struct sock_filter)WS__ERRNO(ENOSYS));
#endif
	ws__rules_sort(&R);
	hbase = b.n + ws__tree_len(R.n);
	ws__tree_emit(&b, &R, 0, R.n, hbase);
	for (unsigned i = 0; i < R.h.n && i < sizeof(R.h.f) / sizeof(R.h.f[0]); i++)
		ws__emit(&b, R.h.f[i]);
	if (R.bad || R.h.n > sizeof(R.h.f) / sizeof(R.h.f[0]) ||
	    b.n > sizeof(b.f) / sizeof(b.f[0]) || b.n != hbase + R.h.n)
		return ws__fail(msg, msglen, "seccomp", "filter too long", E2BIG);
	prog.len = (unsigned short)b.n;
	prog.filter = b.f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return ws__fail(msg, msglen, "no_new_privs", NULL, errno);
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return ws__fail(msg, msglen, "seccomp", NULL, errno);
	return 0;
#else
	(void)p;
	return ws__fail(msg, msglen, "seccomp", "(architecture)", ENOSYS);
#endif
}
