/*
 * grant.c - the directories a policy's rules grant to a wsrun command.
 *
 * A grant is decided on a descriptor, never on a string opened again:
 * the directory is opened from "/" with openat2 and no symlink allowed in
 * any component, at every call (a symlink planted under an allowed
 * directory since the last call is refused, not followed), and the
 * descriptor that was checked is the one Landlock and the mount namespace
 * are given.
 */
#include "ws/grant.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/guard.h"
#include "ws/path.h"
#include "ws/persist.h"
#include "ws/sandbox.h"
#include "ws/workspace.h"

/* Directories never granted; with below, nothing in them either. */
static const struct {
	const char *dir;
	bool below;
	const char *why;
} ws__never[] = {
	{"/etc", true, "/etc holds the system's secrets (wsrun grants it "
		       "read-only, its secrets masked)"},
	{"/proc", true, "/proc is the kernel's (wsrun mounts its own)"},
	{"/sys", true, "/sys is the kernel's"},
	{"/dev", true, "/dev holds the device nodes (wsrun grants a few)"},
	{"/run", true, "/run holds other programs' sockets"},
	{"/var/run", true, "/var/run holds other programs' sockets"},
	{"/tmp", true, "/tmp holds other programs' files and sockets (the "
		       "command has a private TMPDIR)"},
	{"/var/tmp", true, "/var/tmp holds other programs' files and sockets"},
	{"/boot", true, "/boot holds the kernel"},
	{"/usr", true, "/usr holds the system's programs (readable already, "
		       "never writable)"},
	{"/bin", true, "/bin holds the system's programs"},
	{"/sbin", true, "/sbin holds the system's programs"},
	{"/lib", true, "/lib holds the system's libraries"},
	{"/lib32", true, "/lib32 holds the system's libraries"},
	{"/lib64", true, "/lib64 holds the system's libraries"},
	{"/libx32", true, "/libx32 holds the system's libraries"},
	{"/opt", false, "/opt is granted read-only by wsrun"},
};

/* Linux 5.8; older headers lack them. */
#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif
#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

#define WS__NNEVER (sizeof(ws__never) / sizeof(ws__never[0]))

/* A directory known by its identity, for the checks on descriptors. */
struct ws__id {
	dev_t dev;
	ino_t ino;
};

struct ws__ids {
	struct ws__id *v;
	size_t n, cap;
};

static int
ws__ids_push(struct ws__ids *s, const struct stat *st)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 32;
		struct ws__id *nv = realloc(s->v, nc * sizeof(*nv));

		if (nv == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		s->v = nv;
		s->cap = nc;
	}
	s->v[s->n].dev = st->st_dev;
	s->v[s->n].ino = st->st_ino;
	s->n++;
	return 0;
}

static bool
ws__ids_has(const struct ws__ids *s, const struct stat *st)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].dev == st->st_dev && s->v[i].ino == st->st_ino)
			return true;
	return false;
}

/* What ws__walk_up() says when it could not go on (an unreadable "..",
 * a depth no real tree has). */
#define WS__WALK_STUCK 2

/*
 * Walk up from the directory at fd (not closed) to root by "..", which
 * the kernel resolves, not by name, and call visit on each directory's
 * identity, fd's own first, until it returns nonzero.  Returns that (1
 * for "found", or a negative WS_E*), 0 at root, WS__WALK_STUCK when a
 * step failed.  The one walker for the identity checks below.
 */
static int
ws__walk_up(int fd, const struct stat *root,
	    int (*visit)(const struct stat *st, void *arg), void *arg)
{
	struct stat st;
	int cur = fcntl(fd, F_DUPFD_CLOEXEC, 3), rc = WS__WALK_STUCK;

	for (int depth = 0; cur >= 0 && depth < 4096; depth++) {
		int up;

		if (fstat(cur, &st) < 0)
			break;
		if ((rc = visit(&st, arg)) != 0)
			break;
		if (st.st_dev == root->st_dev && st.st_ino == root->st_ino)
			break;
		rc = WS__WALK_STUCK;
		up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(cur);
		cur = up;
	}
	if (cur >= 0)
		close(cur);
	return rc;
}

static int
ws__visit_push(const struct stat *st, void *arg)
{
	return ws__ids_push(arg, st);
}

static int
ws__visit_has(const struct stat *st, void *arg)
{
	return ws__ids_has(arg, st) ? 1 : 0;
}

/*
 * Push the directory at fd and every directory above it up to "/".  A
 * walk that cannot go on pushes what it saw (these sets only refuse).
 */
static int
ws__ids_push_up(struct ws__ids *s, int fd, const struct stat *root)
{
	int rc = ws__walk_up(fd, root, ws__visit_push, s);

	return rc < 0 ? rc : 0;
}

/* The same, for a path (the caller's HOME, the private directory). */
static int
ws__ids_push_path_up(struct ws__ids *s, const char *path, const struct stat *root)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd < 0)
		return 0;
	rc = ws__ids_push_up(s, fd, root);
	close(fd);
	return rc;
}

/*
 * Whether the directory at fd, or one above it, is one of s: walks up by
 * "..", so it also finds a directory reached by another path (a bind
 * mount of the workspace or of /etc elsewhere).  A walk that cannot go
 * on says yes (fail closed).
 */
static bool
ws__within_ids(int fd, const struct ws__ids *s, const struct stat *root)
{
	return ws__walk_up(fd, root, ws__visit_has, (void *)s) != 0;
}

/* The mount a descriptor is on (statx), or 0 when the kernel cannot say. */
static unsigned long long
ws__mnt_id(int fd)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID,
		  &sx) < 0 || !(sx.stx_mask & STATX_MNT_ID))
		return 0;
	return sx.stx_mnt_id;
}

/* mountinfo's octal escapes ("\\040") undone in place. */
static void
ws__unescape(char *fld)
{
	size_t o = 0;

	for (size_t i = 0; fld[i]; i++, o++) {
		if (fld[i] == '\\' && fld[i + 1] >= '0' && fld[i + 1] <= '3' &&
		    fld[i + 2] >= '0' && fld[i + 2] <= '7' &&
		    fld[i + 3] >= '0' && fld[i + 3] <= '7') {
			fld[o] = (char)((fld[i + 1] - '0') * 64 +
					(fld[i + 2] - '0') * 8 + (fld[i + 3] - '0'));
			i += 3;
		} else {
			fld[o] = fld[i];
		}
	}
	fld[o] = '\0';
}

/* What mountinfo says of one mount. */
struct ws__mnt {
	unsigned int ma, mi;  /* the file system's own device (superblock) */
	char root[PATH_MAX];  /* the mount's root, within its file system */
	char point[PATH_MAX]; /* where it is mounted */
};

/* Mount id's line of /proc/self/mountinfo: 0, or -1 not found. */
static int
ws__mnt_info(unsigned long long id, struct ws__mnt *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int rc = -1;

	if (f == NULL)
		return -1;
	while (rc < 0 && getline(&line, &cap, f) > 0) {
		unsigned long long lid;
		int n = 0;

		if (sscanf(line, "%llu %*u %u:%u %4095s %4095s%n", &lid, &m->ma,
			   &m->mi, m->root, m->point, &n) < 5 || n == 0 || lid != id)
			continue;
		ws__unescape(m->root);
		ws__unescape(m->point);
		rc = 0;
	}
	free(line);
	fclose(f);
	return rc;
}

/*
 * Where what fd shows lies within its file system: its mount's root
 * there, and the kernel's name for fd below the mount point.  -1 when it
 * cannot be told (a name the mount point does not lead, a deleted one).
 */
static int
ws__fs_path(int fd, const struct ws__mnt *m, char *out, size_t len)
{
	char link[64], name[PATH_MAX];
	const char *rel;
	size_t pl = strlen(m->point);
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, name, sizeof(name) - 1);
	if (n <= 0 || (size_t)n >= sizeof(name) - 1 || name[0] != '/')
		return -1;
	name[n] = '\0';
	if (n > 10 && strcmp(name + n - 10, " (deleted)") == 0)
		return -1;
	if (strcmp(m->point, "/") == 0)
		rel = name;
	else if (strncmp(name, m->point, pl) == 0 &&
		 (name[pl] == '/' || name[pl] == '\0'))
		rel = name + pl;
	else
		return -1;
	if (strcmp(m->root, "/") == 0)
		n = snprintf(out, len, "%s", *rel ? rel : "/");
	else
		n = snprintf(out, len, "%s%s", m->root, rel);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/*
 * What pfd (on the mount pmnt) is to gfd (on another mount, gmnt): 0 on
 * another file system, so never beneath it (a grant holds no mount
 * point); on the same one (a bind of part of it), 1 when it lies at or
 * beneath gfd's place in that file system, 0 when not, -1 when that
 * cannot be told or it is a file with several links (one may be
 * beneath).
 */
static int
ws__other_mount(int gfd, unsigned long long gmnt, int pfd,
		unsigned long long pmnt, bool links)
{
	struct ws__mnt gm, pm;
	char gp[PATH_MAX * 2], pp[PATH_MAX * 2];

	if (ws__mnt_info(gmnt, &gm) < 0 || ws__mnt_info(pmnt, &pm) < 0)
		return -1;
	if (gm.ma != pm.ma || gm.mi != pm.mi)
		return 0;
	if (links || ws__fs_path(gfd, &gm, gp, sizeof(gp)) < 0 ||
	    ws__fs_path(pfd, &pm, pp, sizeof(pp)) < 0)
		return -1;
	return ws_path_within(gp, pp, NULL) ? 1 : 0;
}

/*
 * The directory that holds the file at fd (an O_PATH descriptor, on the
 * mount mnt), or -1.  An O_PATH file has no "..", so the kernel's name
 * for it (/proc/self/fd/N) is looked up, with no symlink followed (the
 * kernel's name has none) and on the same mount, and the directory is
 * taken only if the name in it is still that very file: a rename or a
 * symlink swapped in between fails closed.
 */
static int
ws__parent_of_file(int fd, const struct stat *st, unsigned long long mnt)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	char link[64], name[PATH_MAX];
	struct stat cur;
	ssize_t len;
	char *slash;
	int dir;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, name, sizeof(name) - 1);
	if (len <= 0 || (size_t)len >= sizeof(name) - 1 || name[0] != '/')
		return -1;
	name[len] = '\0';
	slash = strrchr(name, '/');
	*slash = '\0';
	dir = (int)syscall(SYS_openat2, AT_FDCWD, slash == name ? "/" : name,
			   &how, sizeof(how));
	if (dir < 0)
		return -1;
	if (ws__mnt_id(dir) != mnt ||
	    fstatat(dir, slash + 1, &cur, AT_SYMLINK_NOFOLLOW) < 0 ||
	    cur.st_dev != st->st_dev || cur.st_ino != st->st_ino) {
		close(dir);
		return -1;
	}
	return dir;
}

/*
 * Whether what is at pfd (a directory or a file, granted read-only) can
 * be reached beneath the write grant g (its identity, alone in g, and its
 * mount gmnt), where Landlock, which only
 * adds, would let the command write it: 1 yes, -1 it cannot be ruled out
 * (treated as yes), 0 no.  Decided on the descriptors, not on names:
 *   - another mount is never beneath g (a grant holds no mount point),
 *     unless it shows the same file system (a bind of part of it), where
 *     the same directory may be beneath g by its other path: -1;
 *   - on g's own mount, a file with several links may have one beneath
 *     g: -1;
 *   - otherwise walk up from it (from a file's directory) by "..".
 * Not by st_dev: on g's own mount a file can have a device of its own (an
 * overlay's file from a lower layer on another file system, a btrfs
 * subvolume) and still lie beneath g.
 */
static int
ws__holds(const struct ws__ids *g, int gfd, unsigned long long gmnt, int pfd,
	  const struct stat *root)
{
	struct stat pst;
	unsigned long long pmnt;
	int dir = -1;
	bool in;

	if (g->n != 1 || gmnt == 0 || fstat(pfd, &pst) < 0 ||
	    (pmnt = ws__mnt_id(pfd)) == 0)
		return -1;
	if (pmnt != gmnt)
		return ws__other_mount(gfd, gmnt, pfd, pmnt,
				       !S_ISDIR(pst.st_mode) && pst.st_nlink > 1);
	if (!S_ISDIR(pst.st_mode)) {
		if (pst.st_nlink > 1 ||
		    (dir = ws__parent_of_file(pfd, &pst, pmnt)) < 0)
			return -1;
		pfd = dir;
	}
	in = ws__within_ids(pfd, g, root);
	if (dir >= 0)
		close(dir);
	return in ? 1 : 0;
}

/* ws__holds() for two descriptors: whether outer holds (1), may hold
 * (-1) or does not hold (0) what inner is. */
static int
ws__fd_holds(int outer, int inner, const struct stat *root)
{
	struct ws__id id;
	struct ws__ids ids = {.v = &id, .n = 1, .cap = 1};
	struct stat st;

	if (fstat(outer, &st) < 0)
		return -1;
	id.dev = st.st_dev;
	id.ino = st.st_ino;
	return ws__holds(&ids, outer, ws__mnt_id(outer), inner, root);
}

/*
 * The same, across mounts only: on one mount the canonical names that the
 * checks by name compare (the grant's, opened with no symlink; the
 * resolved anchors and guards) tell it already, at no walk's cost.
 */
static int
ws__alias_holds(int outer, int inner, const struct stat *root)
{
	unsigned long long a = ws__mnt_id(outer), b = ws__mnt_id(inner);

	if (a != 0 && a == b)
		return 0;
	return ws__fd_holds(outer, inner, root);
}

/*
 * Whether the granted directory (g->fd) holds, or is in, by another path
 * (a bind mount of part of one inside the other, which the names and the
 * walks up by ".." miss: a walk leaves a bind at its root) what no grant
 * may hold or be in: the workspace and the mounts, whose guards
 * (.git/hooks, .git/config, ...) are bound read-only at their own paths
 * only; and for a write grant wstools' own places (configuration,
 * policies; the nearest directory of one that does not exist yet, so
 * that the next call's rules cannot be made) and the guarded entries
 * (the directory holding each: the entries the spellings of the root and
 * the mounts pass through, which the command could re-point).  Returns
 * what it holds or is in, or NULL.
 */
static const char *
ws__holds_by_alias(struct ws_ctx *ws, const struct ws_policy_grant *g,
		   const struct ws_guarded *gd, size_t ng, const struct stat *root)
{
	for (size_t a = 0; a < ws->nanchors; a++)
		if (ws__alias_holds(g->fd, ws->anchors[a].fd, root) != 0 ||
		    ws__alias_holds(ws->anchors[a].fd, g->fd, root) != 0)
			return ws->anchors[a].real;
	for (size_t i = 0; g->write && i < ws->nguard; i++) {
		char path[PATH_MAX];
		struct stat st;
		int fd = -1, h;

		snprintf(path, sizeof(path), "%s", ws->guard[i]);
		while ((fd = open(path, O_PATH | O_CLOEXEC)) < 0 && errno == ENOENT) {
			char *sl = strrchr(path, '/');

			if (sl == NULL || sl == path)
				break;
			*sl = '\0';
		}
		if (fd < 0)
			continue; /* "/" or nothing there: the names decide */
		h = ws__alias_holds(g->fd, fd, root);
		if (h == 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
			h = ws__alias_holds(fd, g->fd, root);
		close(fd);
		if (h != 0)
			return ws->guard[i];
	}
	for (size_t i = 0; g->write && i < ng; i++) {
		char path[PATH_MAX], *sl;
		int fd, h = 0;

		/* The persistence guards lie in the anchors, checked above. */
		if (gd[i].kind == WS_GUARD_PERSIST)
			continue;
		snprintf(path, sizeof(path), "%s", gd[i].real);
		sl = strrchr(path, '/');
		if (sl == NULL)
			continue;
		*sl = '\0';
		fd = open(sl == path ? "/" : path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			h = ws__alias_holds(g->fd, fd, root);
			close(fd);
		}
		if (h == 0 && gd[i].dir && gd[i].kind != WS_GUARD_ANCHOR &&
		    (fd = open(gd[i].real, O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0) {
			h = ws__alias_holds(fd, g->fd, root);
			close(fd);
		}
		if (h != 0)
			return gd[i].real;
	}
	return NULL;
}

static void __attribute__((format(printf, 2, 3)))
ws__refuse(struct ws_policy_grant *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->why, sizeof(g->why), fmt, ap);
	va_end(ap);
	g->refused = true;
	g->granted = false;
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
}

/* Skipped, not refused: there is nothing to add (or nothing there). */
static void __attribute__((format(printf, 2, 3)))
ws__skip(struct ws_policy_grant *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->why, sizeof(g->why), fmt, ap);
	va_end(ap);
	g->granted = false;
}

/* Checks on the spelling (no symlink can be in it: openat2 says so later). */
static bool
ws__check_names(struct ws_ctx *ws, struct ws_policy_grant *g, const char *priv,
		const char *home, const char *tmpdir)
{
	for (size_t k = 0; k < WS__NNEVER; k++) {
		const char *nd = ws__never[k].dir;

		if (ws_path_within(g->dir, nd, NULL) ||
		    (ws__never[k].below && ws_path_within(nd, g->dir, NULL))) {
			ws__refuse(g, "never granted: %s", ws__never[k].why);
			g->quiet = true;
			return false;
		}
	}
	for (size_t a = 0; a < ws->nanchors; a++) {
		const struct ws_anchor *an = &ws->anchors[a];

		if (ws_path_within(g->dir, an->real, NULL) &&
		    strcmp(g->dir, an->real) != 0) {
			ws__refuse(g, "never granted: it holds the %s%s (granting it "
				   "would take the boundary away)",
				   a == 0 ? "workspace" : "mount ",
				   a == 0 ? "" : an->vprefix);
			return false;
		}
		if (ws_path_within(an->real, g->dir, NULL)) {
			if (g->write && an->ro)
				ws__refuse(g, "never granted: inside the read-only "
					   "mount %s", an->vprefix);
			else
				ws__skip(g, "inside the %s%s: nothing to add",
					 a == 0 ? "workspace" : "mount ",
					 a == 0 ? "" : an->vprefix);
			return false;
		}
	}
	if (priv != NULL && ws_path_within(g->dir, priv, NULL)) {
		ws__refuse(g, "%s", "never granted: it holds the call's private "
			   "HOME and TMPDIR");
		return false;
	}
	if (priv != NULL && ws_path_within(priv, g->dir, NULL)) {
		ws__skip(g, "%s", "inside the call's private directory: nothing to add");
		return false;
	}
	if (home != NULL && ws_path_within(g->dir, home, NULL)) {
		ws__refuse(g, "%s", "never granted: it is HOME or above it (the "
			   "user's keys and start-up files)");
		return false;
	}
	/* The caller's TMPDIR is a /tmp of its own (ssh-agent puts its
	 * socket there); the command has a private one. */
	if (tmpdir != NULL && (ws_path_within(g->dir, tmpdir, NULL) ||
			       ws_path_within(tmpdir, g->dir, NULL))) {
		ws__refuse(g, "%s", "never granted: it is in or above TMPDIR "
			   "(other programs' files and sockets; the command has "
			   "a private TMPDIR)");
		return false;
	}
	return true;
}

/*
 * The same persistence places below the environment's other bases
 * ($XDG_CONFIG_HOME, $XDG_DATA_HOME, $ZDOTDIR, $PYTHONUSERBASE,
 * $GIT_CONFIG_GLOBAL: ws_persist_bases(), review12 05): a write grant
 * that holds or is in one is read.
 */
static void
ws__grant_bases(struct ws_policy_grant *g, const struct ws_persist_base *xb,
		size_t nxb)
{
	for (size_t k = 0; k < nxb; k++) {
		const char *place = ws_persist_reached(xb[k].dir, xb[k].kind, g->dir);
		char shown[PATH_MAX];

		if (place == NULL)
			continue;
		ws_persist_show(xb[k].kind, place, shown, sizeof(shown));
		g->write = false;
		snprintf(g->why, sizeof(g->why),
			 "read only: it holds or is in %.200s, where a later "
			 "login, session or program finds what to run", shown);
		return;
	}
}

/*
 * Whether g, refused by a rule's veto, lies at or inside an anchor that
 * already gives the command what g asks (not a write into a read-only
 * mount): then it becomes skipped, with the reason.
 */
static bool
ws__vetoed_inside(struct ws_ctx *ws, struct ws_policy_grant *g)
{
	for (size_t a = 0; a < ws->nanchors; a++) {
		const struct ws_anchor *an = &ws->anchors[a];

		if (!ws_path_within(an->real, g->dir, NULL) || (g->write && an->ro))
			continue;
		g->refused = false;
		g->quiet = false;
		ws__skip(g, "inside the %s%s: nothing to add (what the policy's "
			 "rules refuse there is masked in the command's view)",
			 a == 0 ? "workspace" : "mount ", a == 0 ? "" : an->vprefix);
		return true;
	}
	return false;
}

/* Whether a path has a ".." component. */
static bool
ws__has_dotdot(const char *path)
{
	for (const char *c = path; (c = strstr(c, "..")) != NULL; c += 2)
		if ((c == path || c[-1] == '/') && (c[2] == '/' || c[2] == '\0'))
			return true;
	return false;
}

/*
 * Whether dir holds a place the spelling passes through: a component, a
 * symlink's own location, and then the places of what it points to (a
 * chain followed to 40 links; more, or a path too long, counts as a
 * hit).  The command could re-point such a link, and the next call
 * would load what it names.
 */
static bool
ws__spelling_in(const char *dir, const char *spell)
{
	char cur[PATH_MAX], pre[PATH_MAX], tgt[PATH_MAX], *norm = NULL;
	int links = 0;

	/*
	 * The walk below takes ".." by name, but after a symlink the kernel
	 * takes it from where the link led ("lnk/../x" is x beside what lnk
	 * names): a symlink before a ".." counts as a hit.
	 */
	if (ws__has_dotdot(spell)) {
		const char *last = NULL;

		for (const char *c = spell; (c = strstr(c, "..")) != NULL; c += 2)
			if ((c == spell || c[-1] == '/') && (c[2] == '/' || c[2] == '\0'))
				last = c;
		for (size_t end = 1; spell[0] == '/' && spell + end < last;) {
			struct stat st;

			end += strcspn(spell + end, "/");
			if (end >= sizeof(pre))
				return true;
			memcpy(pre, spell, end);
			pre[end] = '\0';
			if (lstat(pre, &st) == 0 && S_ISLNK(st.st_mode))
				return true;
			end += spell[end] == '/';
		}
	}
	if (ws_path_normalize(spell, WS_NORM_CLAMP, &norm) < 0)
		return true;
	if (snprintf(cur, sizeof(cur), "%s", norm) >= (int)sizeof(cur)) {
		free(norm);
		return true;
	}
	free(norm);
restart:
	for (size_t end = 1; cur[0] == '/' && cur[end - 1] != '\0';) {
		struct stat st;
		ssize_t tl;

		end += strcspn(cur + end, "/");
		memcpy(pre, cur, end);
		pre[end] = '\0';
		if (ws_path_within(dir, pre, NULL))
			return true;
		if (lstat(pre, &st) == 0 && S_ISLNK(st.st_mode)) {
			char nxt[PATH_MAX * 2], *joined = NULL;
			int w;

			tl = readlink(pre, tgt, sizeof(tgt) - 1);
			if (tl < 0 || ++links > 40)
				return true;
			tgt[tl] = '\0';
			*strrchr(pre, '/') = '\0';
			/* The target (relative to the link's directory), then
			 * what followed the link. */
			if (tgt[0] == '/')
				w = snprintf(nxt, sizeof(nxt), "%s%s", tgt, cur + end);
			else
				w = snprintf(nxt, sizeof(nxt), "%s/%s%s", pre, tgt, cur + end);
			if (w < 0 || (size_t)w >= sizeof(nxt) ||
			    ws_path_normalize(nxt, WS_NORM_CLAMP, &joined) < 0)
				return true;
			w = snprintf(cur, sizeof(cur), "%s", joined);
			free(joined);
			if ((size_t)w >= sizeof(cur))
				return true;
			goto restart;
		}
		if (cur[end] == '/')
			end++;
		else
			break;
	}
	return false;
}

/*
 * Whether a name the caller gave (--allow-read, --allow-write: p, its
 * descriptor p->fd opened through it, symlinks followed) is one the
 * command may have re-pointed through dir (dfd), a place it can write (a
 * write grant, the workspace, a read-write mount): its spelling passes
 * through dir, it is not spelled without a symlink (or no longer gives
 * the same file), and what it gave is not surely beneath dir.  Such a
 * symlink inside dir was the command's to plant in an earlier call: the
 * caller's grant would go wherever it chose (root's keys, /etc/shadow),
 * and a write grant would not be narrowed for it.
 */
static bool
ws__repointed(const char *dir, int dfd, const struct ws_sandbox_path *p,
	      const struct stat *root)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	char abs[PATH_MAX * 2], cwd[PATH_MAX];
	struct stat a, b;
	bool plain;
	int fd;

	if (p->path[0] == '/')
		snprintf(abs, sizeof(abs), "%s", p->path);
	else if (getcwd(cwd, sizeof(cwd)) == NULL ||
		 snprintf(abs, sizeof(abs), "%s/%s", cwd, p->path) >= (int)sizeof(abs))
		return true; /* fail closed */
	if (!ws__spelling_in(dir, abs))
		return false;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, abs, &how, sizeof(how));
	plain = fd >= 0 && fstat(fd, &a) == 0 && fstat(p->fd, &b) == 0 &&
		a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	if (fd >= 0)
		close(fd);
	return !plain && ws__fd_holds(dfd, p->fd, root) != 1;
}

/* A write grant holding a guarded entry, or inside a guarded directory,
 * would let the command change a later call's boundary or rules. */
static bool
ws__check_guards(struct ws_ctx *ws, struct ws_policy_grant *g,
		 const struct ws_guarded *gd, size_t ng)
{
	/*
	 * wstools' own places (configuration, policies) count whether they
	 * exist or not: a command must not create the next call's config.
	 * ws_guarded_list() made their spellings canonical.
	 */
	for (size_t i = 0; g->write && i < ws->nguard; i++)
		if (ws_path_within(g->dir, ws->guard[i], NULL) ||
		    ws_path_within(ws->guard[i], g->dir, NULL)) {
			ws__refuse(g, "never granted read-write: it holds or is in "
				   "wstools' own %s", ws->guard[i]);
			return false;
		}
	/* Their spellings too: a symlink on the way to the policy or the
	 * configuration, inside the grant, is the command's to re-point. */
	for (size_t i = 0; g->write && i < ws->nguard_spell; i++)
		if (ws__spelling_in(g->dir, ws->guard_spell[i])) {
			ws__refuse(g, "never granted read-write: it holds a place "
				   "wstools' own %s is spelled through (a symlink "
				   "the command could re-point)", ws->guard_spell[i]);
			return false;
		}
	for (size_t i = 0; g->write && i < ng; i++)
		if (ws_path_within(g->dir, gd[i].real, NULL) ||
		    (gd[i].dir && gd[i].kind != WS_GUARD_ANCHOR &&
		     ws_path_within(gd[i].real, g->dir, NULL))) {
			ws__refuse(g, "never granted read-write: it holds or is in "
				   "the guarded %s (%s)", gd[i].real, gd[i].what);
			return false;
		}
	return true;
}

/*
 * The mount points of this mount namespace (/proc/self/mountinfo's fifth
 * field, its octal escapes undone), as one malloc'd block of strings.
 */
static int
ws__mount_points(char ***out, size_t *n)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, **v = NULL;
	size_t cap = 0, nv = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (f == NULL)
		return ws_error_errno(errno, "/proc/self/mountinfo", "open");
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		char *fld = line, *mp = NULL, **nvv;

		for (int k = 0; k < 4 && fld != NULL; k++)
			fld = strchr(fld, ' ') ? strchr(fld, ' ') + 1 : NULL;
		if (fld == NULL)
			continue;
		fld[strcspn(fld, " \n")] = '\0';
		ws__unescape(fld);
		nvv = realloc(v, (nv + 1) * sizeof(*v));
		if (nvv == NULL || (mp = strdup(fld)) == NULL) {
			v = nvv != NULL ? nvv : v;
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			break;
		}
		v = nvv;
		v[nv++] = mp;
	}
	free(line);
	fclose(f);
	if (rc < 0) {
		for (size_t i = 0; i < nv; i++)
			free(v[i]);
		free(v);
		return rc;
	}
	*out = v;
	*n = nv;
	return 0;
}

/*
 * A mount below the directory would come with it (Landlock follows the
 * hierarchy across mounts, the mount namespace clones it recursively):
 * a chroot's bind of the host's /proc or of / would hand the command
 * what wsrun never grants.
 */
static bool
ws__check_mounts(struct ws_policy_grant *g, char *const *mp, size_t nmp)
{
	for (size_t i = 0; i < nmp; i++)
		if (strcmp(mp[i], g->dir) != 0 && ws_path_within(g->dir, mp[i], NULL)) {
			ws__refuse(g, "never granted: it holds the mount point %s, "
				   "which would come with it", mp[i]);
			return false;
		}
	return true;
}

/*
 * A mount exactly at the directory is granted only when it shows a whole
 * file system (its mountinfo root is "/"): a bind of part of another tree
 * (mount --bind /etc/ssh /srv/certs) would be reached through its mount
 * point, where walking up by ".." never meets /etc.  A whole /etc or /
 * mounted there is the same directory as those, which the identity
 * checks refuse.
 */
static bool
ws__check_mount_root(struct ws_policy_grant *g)
{
	struct statx sx;
	FILE *f;
	char *line = NULL, root[PATH_MAX];
	size_t cap = 0;
	bool found = false, whole = false;

	if (statx(g->fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID,
		  &sx) < 0) {
		ws__refuse(g, "cannot be checked: statx: %s", strerror(errno));
		return false;
	}
	if (!(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)) {
		ws__refuse(g, "%s", "cannot be checked: the kernel does not say "
			   "whether it is a mount point");
		return false;
	}
	if (!(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return true;
	if (!(sx.stx_mask & STATX_MNT_ID) ||
	    (f = fopen("/proc/self/mountinfo", "re")) == NULL) {
		ws__refuse(g, "%s", "cannot be checked: it is a mount point, and "
			   "its mount cannot be found");
		return false;
	}
	while (!found && getline(&line, &cap, f) > 0) {
		unsigned long long id;
		int n = 0;

		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT ...": octal escapes
		 * ("\040") leave a root of "/" as it is. */
		if (sscanf(line, "%llu %*u %*u:%*u %4095s%n", &id, root, &n) < 2 ||
		    n == 0 || id != sx.stx_mnt_id)
			continue;
		found = true;
		whole = strcmp(root, "/") == 0;
	}
	free(line);
	fclose(f);
	if (!found)
		ws__refuse(g, "%s", "cannot be checked: it is a mount point, and "
			   "its mount cannot be found");
	else if (!whole)
		ws__refuse(g, "never granted: a bind mount of part of another tree "
			   "(%.200s) is there, which the checks by path cannot "
			   "place", root);
	return found && whole;
}

/* Open the directory from "/" with no symlink in any component. */
static bool
ws__open(struct ws_policy_grant *g, int root)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, root, g->dir + 1, &how, sizeof(how));

	if (fd >= 0) {
		g->fd = fd;
		return true;
	}
	switch (errno) {
	case ENOENT:
		ws__skip(g, "%s", "does not exist");
		break;
	case ELOOP:
		ws__refuse(g, "%s", "never granted: a symlink on the way (a grant "
			   "never follows one)");
		break;
	case ENOTDIR:
		ws__refuse(g, "%s", "not a directory");
		break;
	default:
		ws__refuse(g, "cannot be opened: %s", strerror(errno));
		break;
	}
	return false;
}

int
ws_grants_check(struct ws_ctx *ws, struct ws_policy_grant *v, size_t n,
		const char *priv, const struct ws_sandbox_path *ro, size_t nro)
{
	struct ws__ids above = {0}, inside = {0}, never = {0};
	struct ws_guarded *gd = NULL;
	char **mp = NULL;
	size_t ng = 0, nmp = 0;
	const char *home = getenv("HOME"), *tmpdir = getenv("TMPDIR");
	struct stat root_st, st;
	bool any_write = false;
	const struct ws_persist_base *xb = NULL;
	struct ws_persist_base *sb = NULL;
	size_t nxb = 0, nsb = 0;
	char *const *homes = NULL;
	char *pwhome = NULL;
	size_t nh = 0;
	int root = -1, rc = 0;

	/* A HOME the environment cannot be trusted with (unset, relative,
	 * "/") is the password file's: the user's keys are still there. */
	if (home == NULL || home[0] != '/' || strcmp(home, "/") == 0)
		home = pwhome = ws_passwd_home();
	if (home != NULL && (home[0] != '/' || strcmp(home, "/") == 0))
		home = NULL;
	if (tmpdir != NULL && (tmpdir[0] != '/' || strcmp(tmpdir, "/") == 0))
		tmpdir = NULL;
	for (size_t i = 0; i < n; i++) {
		/* A rule not of directory shape inside the boundary needs no
		 * grant: it is unlisted, not a warning. */
		if (v[i].shape) {
			struct stat sst;

			/*
			 * A rule for a file (~/.gitconfig, /dev/null) is no
			 * grant's business either, nor one for what is not
			 * there: dev-safe's ${HOME}/.gitconfig on a machine
			 * without one warned on every run, with the advice
			 * to write a rule for a directory of that name
			 * (ftu13 06). No grant could open it anyway.
			 */
			if (stat(v[i].dir, &sst) != 0 || !S_ISDIR(sst.st_mode))
				v[i].refused = false;
			for (size_t a = 0; a < ws->nanchors; a++)
				if (ws_path_within(ws->anchors[a].real, v[i].dir, NULL))
					v[i].refused = false;
			if (priv != NULL && ws_path_within(priv, v[i].dir, NULL))
				v[i].refused = false;
		}
		/*
		 * A grant at or inside the workspace or a mount that a deny
		 * or approve rule vetoed adds nothing to refuse: the command
		 * reaches that directory anyway, and what the rule names
		 * there is masked in its view (ws_view_policy()).  Saying
		 * "refused" on every run of such a policy (ws-policy(5)'s
		 * own example) would only teach the user to weaken the rule.
		 */
		if (v[i].refused && !v[i].shape && ws__vetoed_inside(ws, &v[i]))
			continue;
		/*
		 * Nor does a veto of a grant that is never given anyway (/tmp,
		 * /dev/null of dev-safe's "${GIT_ROOT:-/dev/null}", HOME): the
		 * reason that holds without the rule is the one to give, quiet
		 * where it is, or a shipped policy's "**" deny rule (dev-safe's
		 * .env) would warn on every run about what no order of rules
		 * could grant.
		 */
		if (v[i].refused && v[i].vetoed &&
		    !ws__check_names(ws, &v[i], priv, home, tmpdir))
			continue;
		v[i].granted = !v[i].refused && !v[i].shape;
		if (v[i].granted && !ws__check_names(ws, &v[i], priv, home, tmpdir))
			v[i].granted = false;
		any_write = any_write || (v[i].granted && v[i].write);
	}
	if (ws_grants_count(v, n) == 0)
		goto out;
	if (any_write && (rc = ws_guarded_list(ws, &gd, &ng)) < 0)
		goto out;
	if ((rc = ws__mount_points(&mp, &nmp)) < 0)
		goto out;
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0 || fstat(root, &root_st) < 0) {
		rc = ws_error_errno(errno, "/", "open");
		goto out;
	}
	/*
	 * The identities the descriptors are checked against, so that a
	 * directory reached by another path (a bind mount) is known: every
	 * directory above (and at) each anchor, the private directory and
	 * HOME; the anchors and the private directory themselves; the
	 * directories nothing is granted in.
	 */
	for (size_t a = 0; rc == 0 && a < ws->nanchors; a++) {
		rc = ws__ids_push_up(&above, ws->anchors[a].fd, &root_st);
		if (rc == 0 && fstat(ws->anchors[a].fd, &st) == 0)
			rc = ws__ids_push(&inside, &st);
	}
	if (rc == 0 && priv != NULL) {
		rc = ws__ids_push_path_up(&above, priv, &root_st);
		if (rc == 0 && stat(priv, &st) == 0)
			rc = ws__ids_push(&inside, &st);
	}
	if (rc == 0 && home != NULL)
		rc = ws__ids_push_path_up(&above, home, &root_st);
	if (rc == 0 && tmpdir != NULL && stat(tmpdir, &st) == 0)
		rc = ws__ids_push(&never, &st);
	for (size_t k = 0; rc == 0 && k < WS__NNEVER; k++)
		if (stat(ws__never[k].dir, &st) == 0)
			rc = ws__ids_push(ws__never[k].below ? &never : &above, &st);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct ws_policy_grant *g = &v[i];
		const char *held;

		if (!g->granted || !ws__check_guards(ws, g, gd, ng) ||
		    !ws__check_mounts(g, mp, nmp) || !ws__open(g, root) ||
		    !ws__check_mount_root(g))
			continue;
		if (fstat(g->fd, &st) < 0 || ws__ids_has(&above, &st)) {
			ws__refuse(g, "%s", "never granted: it is (by another path) /, "
				   "HOME, /opt or a directory above the workspace, "
				   "a mount or the private directory");
			continue;
		}
		if (ws__within_ids(g->fd, &never, &root_st)) {
			ws__refuse(g, "%s", "never granted: it is (by another path) in "
				   "one of the system's directories");
			continue;
		}
		if (ws__within_ids(g->fd, &inside, &root_st)) {
			ws__refuse(g, "%s", "never granted: it is (by another path) in "
				   "the workspace, a mount or the private directory");
			continue;
		}
		if ((held = ws__holds_by_alias(ws, g, gd, ng, &root_st)) != NULL) {
			ws__refuse(g, "never granted%s: it holds or is in, or may, "
				   "%s by another path (a bind mount of part of "
				   "one in the other)", g->write ? " read-write" : "",
				   held);
			continue;
		}
	}
	/* One directory named by several rules is granted once, with the
	 * most any of them allows (the first match decides per operation). */
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; v[i].granted && k < i; k++)
			if (v[k].granted && strcmp(v[k].dir, v[i].dir) == 0) {
				v[k].write = v[k].write || v[i].write;
				v[k].exec = v[k].exec || v[i].exec;
				close(v[i].fd);
				v[i].fd = -1;
				ws__skip(&v[i], "granted by rule \"%s\"", v[k].rule);
			}
	/*
	 * The very directory the caller named with --allow-read or
	 * --allow-write: the caller's flag decides.  Both would be bound at
	 * the same place, and whichever came last (the grant) would hide the
	 * other: a read grant made the caller's --allow-write read-only.
	 */
	for (size_t i = 0; i < n; i++) {
		struct stat gst, pst;

		if (!v[i].granted || fstat(v[i].fd, &gst) < 0)
			continue;
		for (size_t k = 0; k < nro; k++) {
			if (!ro[k].asked || ro[k].fd < 0 || fstat(ro[k].fd, &pst) < 0 ||
			    pst.st_dev != gst.st_dev || pst.st_ino != gst.st_ino)
				continue;
			close(v[i].fd);
			v[i].fd = -1;
			ws__skip(&v[i], "given by --allow-%s %s",
				 ro[k].write ? "write" : "read", ro[k].path);
			break;
		}
	}
	/*
	 * Landlock adds: a write grant would make writable what is granted
	 * read-only inside it (--allow-read, another rule's read grant).
	 * Read-only mounts inside it were refused above (it holds them).
	 */
	for (size_t i = 0; i < n; i++) {
		struct ws_policy_grant *g = &v[i];
		const char *hit = NULL, *how = "holds";
		struct ws__id gid;
		struct ws__ids gs = {.v = &gid, .n = 1, .cap = 1};
		unsigned long long gmnt;

		if (!g->granted || !g->write)
			continue;
		if (fstat(g->fd, &st) < 0) {
			hit = "what cannot be checked"; /* fail closed */
			how = "may hold";
		}
		gid.dev = st.st_dev;
		gid.ino = st.st_ino;
		gmnt = ws__mnt_id(g->fd);
		for (size_t k = 0; hit == NULL && k < nro; k++) {
			int w;

			if (!ro[k].asked || ro[k].fd < 0)
				continue;
			if (ws__repointed(g->dir, g->fd, &ro[k], &root_st)) {
				rc = ws_error_set(WS_EPOLICY_DENIED, ro[k].path,
						  "spelled through a symlink in %s, "
						  "which rule \"%s\" lets the command "
						  "write (it may have re-pointed it): name "
						  "what it leads to instead", g->dir,
						  g->rule);
				goto out;
			}
			w = ro[k].write ? 0 : ws__holds(&gs, g->fd, gmnt, ro[k].fd, &root_st);

			if (w != 0) {
				hit = ro[k].path;
				how = w > 0 ? "holds" : "may hold";
			}
		}
		for (size_t k = 0; hit == NULL && k < n; k++)
			if (k != i && v[k].granted && !v[k].write &&
			    ws__holds(&gs, g->fd, gmnt, v[k].fd, &root_st) != 0)
				hit = v[k].dir;
		if (hit != NULL) {
			g->write = false;
			snprintf(g->why, sizeof(g->why),
				 "read only: it %s %s, which is granted read-only",
				 how, hit);
		}
	}
	/*
	 * HOME's persistence places (ws/persist.h): what a later login,
	 * session or program runs.  Landlock cannot keep one entry of a
	 * writable tree read-only, and one that does not exist yet cannot
	 * be bound over, so a write grant that holds or is in one is read.
	 * The grant's name is canonical (opened with no symlink), as are
	 * the homes: HOME's and the password file's, both (review18 08's
	 * rule for wsrun: with a scratch HOME, the user's own ~/.config
	 * still starts their next session).
	 */
	if ((rc = ws_ctx_persist_env(ws, &xb, &nxb, &homes, &nh)) < 0)
		goto out;
	/*
	 * What a home's start-up files source (review25 08): the call's
	 * bases hold it for a home a writable anchor holds or lies in; for
	 * one that only a write grant reaches, read here.
	 */
	for (size_t h = 0; h < nh; h++) {
		bool near = false, reached = false;

		for (size_t a = 0; a < ws->nanchors && !near; a++)
			near = !ws->anchors[a].ro &&
			       (ws_path_within(homes[h], ws->anchors[a].real, NULL) ||
				ws_path_within(ws->anchors[a].real, homes[h], NULL));
		for (size_t i = 0; i < n && !near && !reached; i++)
			reached = v[i].granted && v[i].write &&
				  (ws_path_within(homes[h], v[i].dir, NULL) ||
				   ws_path_within(v[i].dir, homes[h], NULL));
		if (reached &&
		    (rc = ws_persist_sourced_add(&homes[h], 1, &sb, &nsb)) < 0)
			goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct ws_policy_grant *g = &v[i];
		const char *place = NULL, *home_real = NULL;
		char *hp;

		if (!g->granted || !g->write)
			continue;
		/* By its real name too: a grant of dotfiles/config/systemd
		 * reaches ~/.config/systemd through stow's link (review11). */
		for (size_t h = 0; h < nh && place == NULL; h++)
			if ((place = ws_home_persist_reaches(homes[h], g->dir)) != NULL)
				home_real = homes[h];
		if (place == NULL) {
			ws__grant_bases(g, xb, nxb);
			if (g->write)
				ws__grant_bases(g, sb, nsb);
			continue;
		}
		g->write = false;
		/* "~/.config/systemd", and whether the grant holds it. */
		if (asprintf(&hp, "%s/%s", home_real, place) < 0)
			hp = NULL;
		if (hp != NULL && hp[strlen(hp) - 1] == '/')
			hp[strlen(hp) - 1] = '\0';
		snprintf(g->why, sizeof(g->why),
			 "read only: it %s ~/%.*s, where a later login, session "
			 "or program finds what to run (HOME's persistence "
			 "places are never granted read-write; grant a "
			 "narrower directory)",
			 hp != NULL && ws_path_within(g->dir, hp, NULL) ? "holds"
									 : "is in",
			 (int)(strlen(place) - (place[strlen(place) - 1] == '/')), place);
		free(hp);
	}
out:
	if (root >= 0)
		close(root);
	ws_guarded_free(gd, ng);
	for (size_t i = 0; i < nmp; i++)
		free(mp[i]);
	free(mp);
	free(above.v);
	free(inside.v);
	free(never.v);
	free(pwhome);
	ws_persist_bases_free(sb, nsb);
	if (rc < 0)
		ws_grants_revoke(v, n, "not checked");
	return rc;
}

int
ws_grants_check_names(struct ws_ctx *ws, const struct ws_sandbox_path *p,
		      size_t n)
{
	struct stat root;
	bool have_root = false;

	for (size_t k = 0; k < n; k++) {
		if (!p[k].asked || p[k].fd < 0)
			continue;
		/* Only a call with --allow-* pays for this (most have none). */
		if (!have_root && stat("/", &root) < 0)
			return ws_error_errno(errno, "/", "stat");
		have_root = true;
		for (size_t a = 0; a < ws->nanchors; a++)
			if (!ws->anchors[a].ro &&
			    ws__repointed(ws->anchors[a].real, ws->anchors[a].fd,
					  &p[k], &root))
				return ws_error_set(WS_EPOLICY_DENIED, p[k].path,
						    "spelled through a symlink in "
						    "%s, which the command can write "
						    "(it may have re-pointed it): "
						    "name what it leads to instead",
						    ws->anchors[a].real);
	}
	return 0;
}

void
ws_grants_revoke(struct ws_policy_grant *v, size_t n, const char *why)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].granted)
			ws__refuse(&v[i], "%s", why);
}

size_t
ws_grants_count(const struct ws_policy_grant *v, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += v[i].granted;
	return c;
}

int
ws_grants_add(struct ws_policy_grant *v, size_t n, struct ws_sandbox_plan *plan)
{
	for (size_t i = 0; i < n; i++) {
		int rc;

		if (!v[i].granted)
			continue;
		rc = ws_sandbox_plan_add(plan, v[i].fd, v[i].dir, v[i].write, false);
		v[i].fd = -1; /* taken over, closed on failure too */
		if (rc < 0)
			return rc;
		plan->paths[plan->npaths - 1].noexec = !v[i].exec;
	}
	/* After ws_sandbox_plan_fill(): in among the plan's other paths. */
	ws_sandbox_plan_sort(plan);
	return 0;
}

int
ws_grants_probe(struct ws_ctx *ws, struct ws_policy_grant **v, size_t *n)
{
	int rc = ws_policy_grants(ws->policy, v, n);

	if (rc == 0 && (rc = ws_grants_check(ws, *v, *n, NULL, NULL, 0)) < 0) {
		ws_policy_grants_free(*v, *n);
		*v = NULL;
		*n = 0;
	}
	return rc;
}
