/*
 * history.c - the journal of changes and undo (ws/history.h).
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ws/audit.h"
#include "ws/call.h"
#include "ws/cancel.h"
#include "ws/error.h"
#include "ws/guard.h"
#include "ws/history.h"
#include "ws/json.h"
#include "ws/path.h"
#include "ws/policy.h"
#include "ws/persist.h"
#include "ws/resolve.h"
#include "ws/sha256.h"
#include "ws/version.h"
#include "ws/workspace.h"
#include "ws/write.h"

/* Contents up to this size are kept in the record (base64), larger ones
 * as objects: a small file's change then costs one fsync, not three. */
#define WS__HIST_INLINE 4096

/* Most entries one recursive delete records. */
#define WS__HIST_MAX_ENTRIES 1000000

/*
 * An entry a recorded tree delete captured: its inode, and for a file
 * the size and modification time of the content recorded.  The delete
 * removes only entries found here (ws_hist_covers()).
 */
struct ws__seen {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtim;
	bool used;
};

struct ws_history {
	char *dir;
	int dfd, objfd, jfd;
	struct ws_hist_bounds b;
	char *tool;
	const char *frontend;
	bool nosync;
	bool pending;	  /* a change's begin record is in the journal */
	long long pending_id;
	long long undo_of; /* set while an undo runs */
	/* Set while a forced undo runs: a file whose content was not kept
	 * is passed over (and counted) rather than fail the undo. */
	bool skip_unkept;
	long long unkept;
	long long last_id; /* the last entry this context made */
	long long objects_new; /* bytes of objects written by this context */
	struct ws__seen *seen;	/* a recorded tree delete's entries: a hash */
	size_t nseen, capseen;	/* table on the inode, capseen a power of 2 */
	bool collect;		/* ws__capture() fills seen */
	/* The directories the pending change made above its name
	 * (ws_hist_parents()), for its done record: "made_dirs". */
	cJSON *made;
};

static int
ws__hist_io(const char *what, const char *path)
{
	return ws_error_set(WS_EIO_ERROR, path, "history: %s: %s", what,
			    strerror(errno));
}

/* XDG_STATE_HOME when it is usable (absolute), else NULL. */
static const char *
ws__xdg_state(void)
{
	const char *x = getenv("XDG_STATE_HOME");

	return x != NULL && x[0] == '/' ? x : NULL;
}

char *
ws_hist_dir(const char *base, const char *root)
{
	char hex[WS_SHA256_HEX + 1], *b = NULL, *d, *pwhome = NULL, *nb = NULL;

	if (base == NULL) {
		const char *x = ws__xdg_state(), *h = getenv("HOME");

		if (x != NULL)
			b = ws_path_join(x, "wstools");
		else if (h != NULL && h[0] == '/')
			b = ws_path_join(h, ".local/state/wstools");
		else if ((pwhome = ws_passwd_home()) != NULL &&
			 pwhome[0] == '/')
			/* No HOME in the environment (a bare exec): the
			 * user's home all the same. */
			b = ws_path_join(pwhome, ".local/state/wstools");
		else {
			free(pwhome);
			ws_error_set(WS_EIO_ERROR, NULL, "history: no state directory "
				     "(set XDG_STATE_HOME or HOME, or --state-dir)");
			return NULL;
		}
		free(pwhome);
		if (b == NULL) {
			ws_error_set(WS_ENOMEM, NULL, "out of memory");
			return NULL;
		}
		base = b;
	}
	/*
	 * Lexically normal, so that the name checked (ws__hist_outside()),
	 * the directories made and the one opened are one: spelled
	 * NONEXISTENT/../WS/x, the deepest part that exists was outside
	 * the workspace, and what was made inside it (review12 01).
	 */
	if (base[0] == '/' && ws_path_normalize(base, WS_NORM_CLAMP, &nb) < 0) {
		free(b);
		return NULL;
	}
	ws_sha256_hex(root, strlen(root), hex);
	hex[16] = '\0';
	d = ws_path_join(nb != NULL ? nb : base, hex);
	free(nb);
	free(b);
	if (d == NULL)
		ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return d;
}

/* The key of the directory real, found at (dfd, name, flags) by statx. */
static char *
ws__root_key(const char *real, int dfd, const char *name, int flags)
{
	struct statx sx;
	char *k = NULL;
	int n;

	/*
	 * Not the device: a device number may change across boots (LVM,
	 * the order disks are found in).  The inode alone may be reused
	 * at once (ext4, rm -rf d && mkdir d); with the birth time, where
	 * the file system keeps one, it is not.
	 */
	if (statx(dfd, name, flags, STATX_INO | STATX_BTIME, &sx) < 0)
		n = asprintf(&k, "%s", real);
	else if (sx.stx_mask & STATX_BTIME)
		n = asprintf(&k, "%s\n%llu %lld.%09u", real,
			     (unsigned long long)sx.stx_ino,
			     (long long)sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec);
	else
		n = asprintf(&k, "%s\n%llu", real, (unsigned long long)sx.stx_ino);
	if (n < 0) {
		ws_error_set(WS_ENOMEM, NULL, "out of memory");
		return NULL;
	}
	return k;
}

char *
ws_hist_root_key(const struct ws_ctx *ws)
{
	return ws__root_key(ws->anchors[0].real, ws->anchors[0].fd, "", AT_EMPTY_PATH);
}

/* mkdir -p, mode 0700. */
static int
ws__mkdirs(const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0700) < 0 && errno != EEXIST ? -1 : 0;
}

int
ws_hist_guard(struct ws_ctx *ws, const char *dir)
{
	char *base = strdup(dir), *slash;
	int rc;

	if (base == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if ((slash = strrchr(base, '/')) != NULL && slash != base)
		*slash = '\0';
	rc = ws_ctx_guard(ws, base);
	/* Nor read (policy.c): kept, resolved by the first read check. */
	if (rc == 0) {
		free(ws->hist_base);
		free(ws->hist_real);
		ws->hist_base = base;
		ws->hist_real = NULL;
		ws->hist_resolved = false;
		base = NULL;
	}
	free(base);
	return rc;
}

/*
 * Whether the directory fd holds, or is, an anchor (as[], fstat()ed; a
 * st_nlink of 0 is not counted): its identity and that of each directory
 * above it, through "..", as the kernel walks it (across mounts too),
 * until "/" (its own parent).  0, or INVALID_ARGUMENT naming dir.
 */
static int
ws__hist_walk(const struct ws_ctx *ws, const struct stat *as, int fd,
	      const char *dir)
{
	struct stat st, prev;
	int cur = fd, rc = 0;

	if (fstat(cur, &st) < 0)
		return ws__hist_io("cannot open the state directory", dir);
	for (;;) {
		int up;

		for (size_t i = 0; i < ws->nanchors; i++)
			if (as[i].st_nlink != 0 && as[i].st_dev == st.st_dev &&
			    as[i].st_ino == st.st_ino) {
				rc = ws_error_set(WS_EINVALID_ARGUMENT, dir,
						  "the state directory lies inside "
						  "the workspace or a mount (%s): a "
						  "command could edit its journal",
						  ws->anchors[i].vprefix);
				goto out;
			}
		prev = st;
		up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (up < 0 || fstat(up, &st) < 0) {
			rc = ws__hist_io("cannot open the state directory", dir);
			if (up >= 0)
				close(up);
			goto out;
		}
		if (cur != fd)
			close(cur);
		cur = up;
		if (st.st_dev == prev.st_dev && st.st_ino == prev.st_ino)
			break; /* "/" */
	}
out:
	if (cur != fd)
		close(cur);
	return rc;
}

/* The identities of the anchors for ws__hist_walk() (calloc'd). */
static struct stat *
ws__hist_anchors(const struct ws_ctx *ws)
{
	struct stat *as = calloc(ws->nanchors, sizeof(*as));

	if (as == NULL) {
		ws_error_set(WS_ENOMEM, NULL, "out of memory");
		return NULL;
	}
	/* A workspace of "/" has no outside (and wsrun refuses to confine
	 * one): not counted (st_nlink 0 marks it). */
	for (size_t i = 0; i < ws->nanchors; i++)
		if (strcmp(ws->anchors[i].real, "/") == 0 ||
		    fstat(ws->anchors[i].fd, &as[i]) < 0)
			as[i].st_nlink = 0;
	return as;
}

/*
 * A state directory named by the caller (--state-dir, state_dir, or
 * XDG_STATE_HOME) must lie outside the workspace and its mounts: inside,
 * a command could edit the journal that undo trusts.  Compared by device
 * and inode from the deepest part of dir (lexically normal, ws_hist_dir())
 * that exists up to "/", so that a symlink or a bind mount leading into
 * the workspace is caught too, before anything is made; the directory
 * opened is walked again (ws_hist_open()).
 */
static int
ws__hist_outside(const struct ws_ctx *ws, const char *dir)
{
	char buf[PATH_MAX];
	size_t n = strlen(dir);
	struct stat *as;
	int fd, rc;

	if (n >= sizeof(buf))
		return ws_error_set(WS_EINVALID_ARGUMENT, dir,
				    "the state directory's name is too long");
	if ((as = ws__hist_anchors(ws)) == NULL)
		return ws_error_last_code();
	memcpy(buf, dir, n + 1);
	while ((fd = open(buf, O_PATH | O_CLOEXEC)) < 0) {
		char *slash = strrchr(buf, '/');

		if (errno != ENOENT || slash == NULL) {
			free(as);
			return ws__hist_io("cannot open the state directory", dir);
		}
		slash[slash == buf] = '\0';
	}
	rc = ws__hist_walk(ws, as, fd, dir);
	close(fd);
	free(as);
	return rc;
}

/* ws__hist_outside() for the directory dfd. */
static int
ws__hist_outside_fd(const struct ws_ctx *ws, int dfd, const char *dir)
{
	struct stat *as = ws__hist_anchors(ws);
	int rc;

	if (as == NULL)
		return ws_error_last_code();
	rc = ws__hist_walk(ws, as, dfd, dir);
	free(as);
	return rc;
}

/*
 * Whether the directory dfd holds nothing but empty directories (depth
 * 0; at depth 1, nothing at all), running/ aside (the records of the
 * commands running now): 1 yes, 0 no, -1 unreadable.  A
 * history's directory is made empty, and only filled once its state
 * directory is marked, so calls making theirs side by side on a fresh
 * state directory leave it bare for each other.
 */
static int
ws__hist_bare(int dfd, int depth)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *e;
	int bare = 1;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (bare == 1 && (e = readdir(d)) != NULL) {
		int sfd;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (depth > 0) {
			bare = 0;
			continue;
		}
		sfd = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			     O_CLOEXEC);
		/* Not a directory: not bare; else unreadable.  running/ holds
		 * the records of commands running now (lib/pending.c), made
		 * by every run whatever the mark, and trusted by nothing the
		 * mark vouches for: a first use beside a run is bare. */
		if (sfd < 0)
			bare = errno == ENOTDIR || errno == ELOOP ? 0 : -1;
		else if (strcmp(e->d_name, "running") != 0)
			bare = ws__hist_bare(sfd, depth + 1);
		if (sfd >= 0)
			close(sfd);
	}
	closedir(d);
	return bare;
}

/*
 * Whether a wsrun command runs in a workspace that holds the directory
 * fd (it or a directory above it): wsrun holds an exclusive flock on the
 * workspace root for the whole run (lib/run.c ws__ws_lock()), so a
 * shared one that would block says so.  A directory that cannot be
 * opened is passed.
 */
bool
ws__hist_run_above(int fd)
{
	int cur = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	bool run = false;

	for (int i = 0; cur >= 0 && i < 256 && !run; i++) {
		struct stat a, b;
		int up;

		if (flock(cur, LOCK_SH | LOCK_NB) == 0)
			(void)flock(cur, LOCK_UN);
		else if (errno == EWOULDBLOCK)
			run = true;
		up = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (up < 0 || fstat(up, &a) < 0 || fstat(cur, &b) < 0 ||
		    (a.st_dev == b.st_dev && a.st_ino == b.st_ino)) {
			if (up >= 0)
				close(up);
			break;
		}
		close(cur);
		cur = up;
	}
	if (cur >= 0)
		close(cur);
	return run;
}

/* The refusal of ws__hist_run_above(): the state directory dir's head. */
static int
ws__hist_running(const char *dir, size_t wl)
{
	ws_error_set(WS_EPOLICY_DENIED, NULL,
		     "history: the state directory %.*s is new, and a command "
		     "(wsrun) runs in a workspace that holds it: its history is "
		     "not started while the command could write there",
		     (int)wl - 1, dir);
	ws_error_set_hint("run this again once that command has ended, or use "
			  "a state directory outside the agent's workspace "
			  "(XDG_STATE_HOME or --state-dir)");
	return WS_EPOLICY_DENIED;
}

bool
ws__hist_home_place(const struct stat *st, char *const *home, size_t nh)
{
	bool is = false;

	for (size_t h = 0; h < nh && !is; h++) {
		char *d = ws_path_join(home[h], ".local/state/wstools");
		struct stat hs;

		is = d != NULL && stat(d, &hs) == 0 && hs.st_dev == st->st_dev &&
		     hs.st_ino == st->st_ino;
		free(d);
	}
	return is;
}

/*
 * The state directory's mark (WS_STATE_MARK) beside the workspaces'
 * histories, in the "wstools" directory above dfd (the history's own,
 * dir): a call under another XDG_STATE_HOME knows that directory by it
 * and refuses it to the file tools (review23 02).  There already: one
 * system call.
 *
 * Where it is missing, the directory was made by a wstools older than
 * the mark, or by someone else: an agent that moved the person's
 * state directory away (a grandparent of it, which no check by name
 * sees) and made one of its own there, with a forged journal that the
 * person's next undo would trust (review24 01).  Bare (nothing in it but
 * empty directories: this history's own, another call's made beside it),
 * it is marked and used.  Holding
 * histories, it is refused, and the person says which it is; the
 * default place under a home, which no tool or command can reach
 * (ws__in_state_dir() knows it by name, the view masks it), is marked
 * as it is.
 */
static int
ws__hist_mark(int dfd, const char *dir, char *const *home, size_t nh)
{
	static const char dflt[] = "/.local/state/wstools/";
	const char *slash = strrchr(dir, '/');
	struct stat sb;
	int wfd, m, bare;
	bool dflt_place;
	size_t wl;

	if (slash == NULL)
		return ws__hist_io("cannot read the state directory's mark", dir);
	wl = (size_t)(slash - dir) + 1;
	dflt_place = wl >= sizeof(dflt) - 1 &&
		     strncmp(slash + 1 - (sizeof(dflt) - 1), dflt, sizeof(dflt) - 1) == 0;
	/*
	 * The default place of one of the homes by identity, not only by
	 * its name's end: XDG_STATE_HOME=~/x/.local/state in the agent's
	 * workspace is spelled alike, and no view masks it (review29 02).
	 */
	if (dflt_place)
		dflt_place = fstatat(dfd, "..", &sb, 0) == 0 &&
			     ws__hist_home_place(&sb, home, nh);
	if (fstatat(dfd, "../" WS_STATE_MARK, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
		bool run;

		/*
		 * Marked, but in a workspace where a command runs now: the
		 * command may have made the whole directory, mark and forged
		 * journal included, and the clean-up after it has not run
		 * yet (review28 09).  Not trusted until it ends.  The
		 * default place is masked in every command's view.
		 */
		if (dflt_place)
			return 0;
		if ((wfd = openat(dfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			return ws__hist_io("cannot open the state directory", dir);
		run = ws__hist_run_above(wfd);
		close(wfd);
		if (!run)
			return 0;
		ws_error_set(WS_EPOLICY_DENIED, NULL,
			     "history: the state directory %.*s lies in a "
			     "workspace where a command (wsrun) runs now, which "
			     "could have written it (its mark and journals "
			     "included): it is not used until that command has "
			     "ended and been cleaned up after", (int)wl - 1, dir);
		ws_error_set_hint("run this again once that command has ended, "
				  "or use a state directory outside the agent's "
				  "workspace (XDG_STATE_HOME or --state-dir)");
		return WS_EPOLICY_DENIED;
	}
	if (errno != ENOENT)
		return ws__hist_io("cannot read the state directory's mark", dir);
	wfd = openat(dfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (wfd < 0)
		return ws__hist_io("cannot open the state directory", dir);
	if (dflt_place)
		bare = 1;
	else
		bare = ws__hist_bare(wfd, 0);
	/*
	 * Another call's first use, side by side with this one, marks the
	 * directory before it puts anything in it: holding something, and
	 * marked now, it is that call's.
	 */
	if (bare == 0 && fstatat(wfd, WS_STATE_MARK, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
		close(wfd);
		return 0;
	}
	if (bare != 1) {
		close(wfd);
		if (bare < 0)
			return ws__hist_io("cannot read the state directory", dir);
		ws_error_set(WS_EPOLICY_DENIED, NULL,
			     "history: the state directory %.*s holds histories "
			     "but not the mark (%s) that wstools leaves in "
			     "every one it uses: it was made by a wstools older "
			     "than the mark, or by another program (an agent "
			     "that moved the real one away and forged this "
			     "one), so its journals are not trusted",
			     (int)wl - 1, dir, WS_STATE_MARK);
		ws_error_set_hint("if you made these histories yourself with an "
				  "older wstools, and no agent could write there "
				  "meanwhile, accept them: touch '%.*s/%s'; else "
				  "move that directory away and look at what it "
				  "holds", (int)wl - 1, dir, WS_STATE_MARK);
		return WS_EPOLICY_DENIED;
	}
	/*
	 * Not while a command runs in a workspace that holds it: its walk
	 * before the run did not see this directory (it is new), so the
	 * command, in the real view, could write the journal this call is
	 * about to start, and the clean-up after it would take the mark for
	 * the command's (review26 01).  Asked before and after the mark is
	 * made: a run that takes its lock in between sees the mark in its
	 * walk and is refused.
	 */
	if (!dflt_place && ws__hist_run_above(wfd)) {
		close(wfd);
		return ws__hist_running(dir, wl);
	}
	m = openat(wfd, WS_STATE_MARK, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
		   0600);
	if (m < 0) {
		close(wfd);
		return ws__hist_io("cannot make the state directory's mark", dir);
	}
	close(m);
	if (!dflt_place && ws__hist_run_above(wfd)) {
		(void)unlinkat(wfd, WS_STATE_MARK, 0);
		close(wfd);
		return ws__hist_running(dir, wl);
	}
	close(wfd);
	return 0;
}

int
ws_hist_open(struct ws_ctx *ws, const char *base, const struct ws_hist_bounds *b,
	     const char *tool, const char *frontend)
{
	struct ws_history *h;
	char *key = ws_hist_root_key(ws), *dir;
	char *const *home;
	size_t nh;
	int rc, pre;

	if (key == NULL)
		return ws_error_last_code();
	dir = ws_hist_dir(base, key);
	free(key);
	if (dir == NULL)
		return ws_error_last_code();
	/*
	 * The default place under HOME is left to the HOME guard (a
	 * workspace may be HOME itself); one the caller chose is checked.
	 * By its name before anything is made, where something is to be
	 * made: one that is there already is opened and checked as opened
	 * (below), which is the check that counts (a walk up by name, then
	 * the same walk by descriptor, was a dozen calls each time).
	 */
	pre = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pre < 0 && (base != NULL || ws__xdg_state() != NULL) &&
	    (rc = ws__hist_outside(ws, dir)) < 0) {
		free(dir);
		return rc;
	}
	/* Guarded before anything is made: no tool writes into it, nor
	 * into another workspace's history beside it. */
	if ((rc = ws_hist_guard(ws, dir)) < 0) {
		if (pre >= 0)
			close(pre);
		free(dir);
		return rc;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL || (h->tool = strdup(tool ? tool : "")) == NULL) {
		if (pre >= 0)
			close(pre);
		free(h);
		free(dir);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	h->dir = dir;
	h->dfd = pre;
	h->objfd = h->jfd = -1;
	h->b = *b;
	h->frontend = frontend;
	if (h->dfd < 0 && (ws__mkdirs(dir) < 0 ||
	    (h->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)) {
		rc = ws__hist_io("cannot open the state directory", dir);
		ws->history = h;
		ws_hist_close(ws);
		return rc;
	}
	/* The directory opened, not its name: a symlink swapped in on the
	 * way since the check leads nowhere inside either. */
	if ((base != NULL || ws__xdg_state() != NULL) &&
	    (rc = ws__hist_outside_fd(ws, h->dfd, dir)) < 0) {
		ws->history = h;
		ws_hist_close(ws);
		return rc;
	}
	if ((rc = ws_ctx_persist_env(ws, NULL, NULL, &home, &nh)) < 0 ||
	    (rc = ws__hist_mark(h->dfd, dir, home, nh)) < 0) {
		ws->history = h;
		ws_hist_close(ws);
		return rc;
	}
	if ((mkdirat(h->dfd, "objects", 0700) < 0 && errno != EEXIST) ||
	    (h->objfd = openat(h->dfd, "objects", O_RDONLY | O_DIRECTORY |
			       O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (h->jfd = openat(h->dfd, "journal", O_RDWR | O_APPEND | O_CREAT |
			     O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		rc = ws__hist_io("cannot open the state directory", dir);
		ws->history = h;
		ws_hist_close(ws);
		return rc;
	}
	ws->history = h;
	return 0;
}

void
ws_hist_close(struct ws_ctx *ws)
{
	struct ws_history *h = ws->history;

	if (h == NULL)
		return;
	if (h->dfd >= 0)
		close(h->dfd);
	if (h->objfd >= 0)
		close(h->objfd);
	if (h->jfd >= 0)
		close(h->jfd);
	free(h->dir);
	free(h->tool);
	free(h->seen);
	cJSON_Delete(h->made);
	free(h);
	ws->history = NULL;
}

void
ws_hist_nosync(struct ws_ctx *ws, bool nosync)
{
	if (ws->history != NULL)
		ws->history->nosync = nosync;
}

/* Store data as an object; hex gets its name. */
static int
ws__put(struct ws_history *h, const void *data, size_t n,
	char hex[WS_SHA256_HEX + 1])
{
	char tmp[64];
	int fd, rc = 0;

	ws_sha256_hex(data, n, hex);
	if (faccessat(h->objfd, hex, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return 0; /* stored once */
	snprintf(tmp, sizeof(tmp), ".tmp-%ld-%lx", (long)getpid(),
		 (unsigned long)random());
	fd = openat(h->objfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			   O_CLOEXEC, 0600);
	if (fd < 0)
		return ws__hist_io("cannot store an object", h->dir);
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, (const char *)data + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = ws__hist_io("cannot store an object", h->dir);
			break;
		}
		off += (size_t)w;
	}
	if (rc == 0 && !h->nosync && fsync(fd) < 0)
		rc = ws__hist_io("cannot store an object", h->dir);
	close(fd);
	if (rc == 0 && renameat(h->objfd, tmp, h->objfd, hex) < 0)
		rc = ws__hist_io("cannot store an object", h->dir);
	if (rc < 0)
		unlinkat(h->objfd, tmp, 0);
	else
		h->objects_new += (long long)n;
	return rc;
}

/* Whether s names an object: 64 lowercase hexadecimal digits. */
static bool
ws__is_object(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == WS_SHA256_HEX;
}

/*
 * Read an object (malloc'd) for the entry at vpath.  The journal is not
 * trusted with a name: "../../secret" made undo copy a host file into the
 * workspace (review12 01).  Only a SHA-256 in hexadecimal is opened, a
 * plain name in the store, no symlink, a regular file only (a FIFO would
 * block), and what it holds must have that hash.
 */
static int
ws__get(struct ws_history *h, const char *hex, const char *vpath, char **out,
	size_t *n)
{
	char got[WS_SHA256_HEX + 1];
	struct stat st;
	char *buf;
	size_t off = 0;
	int fd;

	if (!ws__is_object(hex))
		return ws_error_set(WS_EIO_ERROR, vpath, "history: the entry names "
				    "the object \"%.80s\", not a SHA-256 in "
				    "hexadecimal: the journal was changed outside "
				    "wstools; nothing restored", hex);
	fd = openat(h->objfd, hex, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return ws_error_set(WS_EIO_ERROR, vpath, "history: object %.12s is "
				    "missing (evicted?)", hex);
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	while (off < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + off, (size_t)st.st_size - off);

		if (r <= 0)
			break;
		off += (size_t)r;
	}
	close(fd);
	ws_sha256_hex(buf, off, got);
	if (strcmp(got, hex) != 0) {
		free(buf);
		return ws_error_set(WS_EIO_ERROR, vpath, "history: object %.12s "
				    "does not hold what its name says (changed "
				    "outside wstools); nothing restored", hex);
	}
	buf[off] = '\0';
	*out = buf;
	*n = off;
	return 0;
}

/*
 * Open name in dirfd to read what a change replaces, without touching its
 * access time where the caller may (its owner, or CAP_FOWNER): the first
 * read after a write updates it even under relatime, and that dirtied the
 * inode of every file a recorded tree delete read, a journal transaction
 * each (issue 22).  *noatime is cleared after an EPERM, so that another
 * owner's tree costs one extra open, not one a file.
 */
static int
ws__open_read(int dirfd, const char *name, bool *noatime)
{
	int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, fd;

	if (*noatime) {
		if ((fd = openat(dirfd, name, flags | O_NOATIME)) >= 0 || errno != EPERM)
			return fd;
		*noatime = false;
	}
	return openat(dirfd, name, flags);
}

/* Directories below a recorded tree's top, at most (ws__capture()
 * takes a call a level, ~4.3 KiB of stack: 512 are ~2.2 MiB). */
#define WS__HIST_MAX_DEPTH 512
#define WS__STR2(x) #x
#define WS__STR(x) WS__STR2(x)

/*
 * The begin record is written as JSON text straight into a buffer
 * (ws_jbuf), not built as a cJSON tree and printed: a tree of 10,000 files
 * made 30 allocations, two number round trips through printf/scanf and
 * a base64 copy per file, most of what recording a recursive delete cost
 * (issue 22's target, 1.5x of the plain delete).  The text is what
 * cJSON_PrintUnformatted() made: the reader (ws__load) is unchanged.
 */
struct ws__cap {
	struct ws_history *h;
	struct ws_jbuf b;	 /* the record */
	char *rel;	 /* the entry's path below the top, growing */
	size_t rlen, rcap;
	size_t count;
	size_t depth;	 /* directories entered below the top */
	size_t vlen;	 /* the top's virtual path's length */
	bool first;	 /* no entry in the array yet */
	bool noatime;	 /* O_NOATIME still worth trying */
	char buf[WS__HIST_INLINE + 1];
};

/* ,"key":"value" and ,"key":n; key a literal, written as it is. */
#define ws__jkstr(f, key, v) \
	(ws_jbuf_lit((f), ",\"" key "\":"), ws_jbuf_str((f), (v)))
#define ws__jkint(f, key, v) \
	(ws_jbuf_lit((f), ",\"" key "\":"), ws_jbuf_int((f), (v)))

/* Append "/name" (or "name" at the top) to c->rel; the old length. */
static int
ws__rel_push(struct ws__cap *c, const char *name, size_t *old)
{
	size_t n = strlen(name), need = c->rlen + n + 2;

	*old = c->rlen;
	if (need > c->rcap) {
		size_t cap = c->rcap ? c->rcap : 256;
		char *p;

		while (cap < need)
			cap *= 2;
		if ((p = realloc(c->rel, cap)) == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		c->rel = p;
		c->rcap = cap;
	}
	if (c->rlen > 0)
		c->rel[c->rlen++] = '/';
	memcpy(c->rel + c->rlen, name, n + 1);
	c->rlen += n;
	return 0;
}

/*
 * Content is copied into the record or the store, never hard-linked
 * there, even for a delete, where the workspace's entry goes away anyway
 * (issue 22 weighed it): a file up to WS__HIST_INLINE bytes goes into the
 * record, and one read of it costs less than a link, which is a change
 * of the store's directory for the filesystem to journal; a larger one
 * must be read all the same to be named by its hash (content-addressed,
 * stored once); and a linked inode is not the content recorded: a
 * process that holds the file open (a wsrun command left running, an
 * editor) could still write to it after the unlink, and the store would
 * no longer hold what its name says.
 */

static size_t
ws__seen_slot(const struct ws__seen *t, size_t cap, dev_t dev, ino_t ino)
{
	/*
	 * Runs of 64 consecutive inodes keep their order in the table, the
	 * runs themselves hashed: a tree's files, made one after another,
	 * have neighbouring inodes, and the delete's check of each entry
	 * (ws_hist_covers()) then reads slots a few cache lines apart,
	 * where a hash of the whole inode made each one a cache miss in a
	 * table of 1.5 MB (3% of a recorded 10,000-file delete; issue 22).
	 * cap is at least 1024, so the low six bits are kept whole.
	 */
	uint64_t run = ((uint64_t)ino >> 6 ^ (uint64_t)dev) * 0x9E3779B97F4A7C15ULL;
	size_t i = (size_t)((run >> 32 << 6) | ((uint64_t)ino & 63)) & (cap - 1);

	while (t[i].used && (t[i].ino != ino || t[i].dev != dev))
		i = (i + 1) & (cap - 1);
	return i;
}

/* Remember st as recorded (its last sighting wins). */
static int
ws__seen_add(struct ws_history *h, const struct stat *st)
{
	size_t i;

	if (2 * (h->nseen + 1) > h->capseen) {
		size_t cap = h->capseen ? 2 * h->capseen : 1024;
		struct ws__seen *t = calloc(cap, sizeof(*t));

		if (t == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		for (size_t j = 0; j < h->capseen; j++)
			if (h->seen[j].used)
				t[ws__seen_slot(t, cap, h->seen[j].dev,
						h->seen[j].ino)] = h->seen[j];
		free(h->seen);
		h->seen = t;
		h->capseen = cap;
	}
	i = ws__seen_slot(h->seen, h->capseen, st->st_dev, st->st_ino);
	if (!h->seen[i].used)
		h->nseen++;
	h->seen[i] = (struct ws__seen){st->st_dev, st->st_ino, st->st_size,
				       st->st_mtim, true};
	return 0;
}

static void
ws__seen_clear(struct ws_history *h)
{
	free(h->seen);
	h->seen = NULL;
	h->nseen = h->capseen = 0;
	h->collect = false;
}

bool
ws_hist_covers(const struct ws_ctx *ws, const struct stat *st)
{
	const struct ws_history *h = ws->history;
	const struct ws__seen *e;

	if (h == NULL || h->capseen == 0)
		return true;
	e = &h->seen[ws__seen_slot(h->seen, h->capseen, st->st_dev, st->st_ino)];
	if (!e->used)
		return false;
	/* A file written since was not recorded as it is now. */
	return !S_ISREG(st->st_mode) ||
	       (e->size == st->st_size && e->mtim.tv_sec == st->st_mtim.tv_sec &&
		e->mtim.tv_nsec == st->st_mtim.tv_nsec);
}

/* Record one entry (name in pfd, lstat st) at c->rel; a tree with
 * recursive, parents before their children.  fd: the regular file
 * already open for reading (st its fstat), which is closed; or -1. */
/* Whether name is a version control system's own directory. */
static bool
ws__repo_dir_name(const char *name)
{
	return name[0] == '.' && (strcmp(name, ".git") == 0 || strcmp(name, ".hg") == 0 ||
				  strcmp(name, ".jj") == 0 || strcmp(name, ".sl") == 0);
}

static int
ws__capture(struct ws__cap *c, int pfd, const char *name, const struct stat *st,
	    int fd, bool recursive)
{
	struct ws_history *h = c->h;
	struct ws_jbuf *f = &c->b;
	const char *rel = c->rel ? c->rel : "";
	int rc = 0;

	if (++c->count > WS__HIST_MAX_ENTRIES)
		return ws_error_set(WS_ELIMIT_EXCEEDED, NULL, "history: over %d "
				    "entries to record", WS__HIST_MAX_ENTRIES);
	/*
	 * What an undo could not put back is refused before anything
	 * changes, as a repository inside is: an entry whose virtual path
	 * is past WS_PATH_MAX, which the undo's resolver refuses (review23
	 * 05: the deep part was lost for good), or a tree deeper than
	 * WS__HIST_MAX_DEPTH, which this walk, one call a level, would
	 * overflow the stack on (review23 10: a 2,000-level tree killed
	 * wstools mcp with SIGSEGV).
	 */
	if (c->vlen + 1 + c->rlen > WS_PATH_MAX || c->depth > WS__HIST_MAX_DEPTH) {
		if (fd >= 0)
			close(fd);
		rc = ws_error_set(WS_ELIMIT_EXCEEDED, NULL, "the tree holds %s "
				  "(%.60s...): an undo could not put it back, so "
				  "the file tools do not change it with the history "
				  "on", c->depth > WS__HIST_MAX_DEPTH ?
				  "a directory more than " WS__STR(WS__HIST_MAX_DEPTH)
				  " levels down" : "a path longer than "
				  WS__STR(WS_PATH_MAX) " bytes", rel);
		ws_error_set_hint("if that is meant, a person does it with "
				  "--no-history (it cannot be undone then)");
		return rc;
	}
	if (h->collect && (rc = ws__seen_add(h, st)) < 0) {
		if (fd >= 0)
			close(fd);
		return rc;
	}
	/*
	 * A repository strictly inside a tree a delete removes goes with it
	 * (ws->whole), but an undo could not put it back: the file tools
	 * never make a .git, and a journal is not trusted to (the command
	 * that made it may not have been cleaned after yet).  So the delete
	 * is refused before anything goes, rather than half undoable
	 * (review18 11).  A submodule's .git file is one too (review19 04).
	 */
	if (h->collect && rel[0] != '\0' && ws__repo_dir_name(name) &&
	    (S_ISDIR(st->st_mode) || strcmp(name, ".git") == 0)) {
		rc = ws_error_set(WS_EPOLICY_DENIED, NULL,
				  "the tree holds a repository (%s): an undo could "
				  "not put it back, so the file tools do not delete "
				  "it (its commits would be gone for good)", rel);
		ws_error_set_hint("if that is meant, a person deletes it with "
				  "--no-history, or a command with rm -rf; neither "
				  "can be undone");
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (!c->first)
		ws_jbuf_lit(f, ",");
	c->first = false;
	ws_jbuf_lit(f, "{");
	ws_jbuf_lit(f, "\"rel\":");
	ws_jbuf_str(f, rel);
	ws__jkint(f, "mode", st->st_mode & 07777);
	if (S_ISREG(st->st_mode)) {
		char tok[WS_VERSION_LEN], hex[WS_SHA256_HEX + 1];
		char *buf = c->buf;
		size_t len = 0;

		ws__jkstr(f, "type", "file");
		ws__jkint(f, "size", (long long)st->st_size);
		ws__jkstr(f, "version", ws_version_token(st, tok));
		if (h->b.max_file > 0 && st->st_size > h->b.max_file) {
			if (fd >= 0)
				close(fd);
			ws_jbuf_lit(f, ",\"kept\":false}");
			return 0;
		}
		if (fd < 0)
			fd = ws__open_read(pfd, name, &c->noatime);
		if (fd < 0)
			return ws__hist_io("cannot read what the change replaces",
					   rel[0] ? rel : ".");
		if (st->st_size > WS__HIST_INLINE &&
		    (buf = malloc((size_t)st->st_size + 1)) == NULL) {
			close(fd);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		for (;;) {
			ssize_t r = read(fd, buf + len, (size_t)st->st_size - len);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0 || (len += (size_t)r) >= (size_t)st->st_size)
				break;
		}
		close(fd);
		if (len <= WS__HIST_INLINE) {
			/* Small: in the record itself, one fsync less. */
			ws_jbuf_lit(f, ",\"data\":");
			ws_jbuf_base64(f, buf, len);
		} else {
			rc = ws__put(h, buf, len, hex);
			if (rc == 0)
				ws__jkstr(f, "object", hex);
		}
		if (buf != c->buf)
			free(buf);
		ws_jbuf_lit(f, "}");
		return rc;
	}
	if (fd >= 0)
		close(fd);
	if (S_ISLNK(st->st_mode)) {
		char t[PATH_MAX];
		ssize_t n = readlinkat(pfd, name, t, sizeof(t) - 1);

		ws__jkstr(f, "type", "symlink");
		if (n >= 0) {
			t[n] = '\0';
			ws__jkstr(f, "target", t);
		}
		ws_jbuf_lit(f, "}");
		return 0;
	}
	if (!S_ISDIR(st->st_mode)) {
		ws__jkstr(f, "type", "other");
		ws_jbuf_lit(f, ",\"kept\":false}");
		return 0;
	}
	/* A bare one (HEAD with refs or commondir), whatever its name. */
	if (h->collect && rel[0] != '\0' && ws__bare_at(pfd, name))
		return ws_error_set(WS_EPOLICY_DENIED, NULL,
				    "the tree holds a repository (%s, a bare one): an "
				    "undo could not put it back, so the file tools do "
				    "not delete it", rel);
	ws__jkstr(f, "type", "dir");
	ws_jbuf_lit(f, "}");
	if (recursive) {
		int dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					      O_CLOEXEC);
		DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
		struct dirent *de;

		if (d == NULL) {
			if (dfd >= 0)
				close(dfd);
			return ws__hist_io("cannot read what the change replaces",
					   rel[0] ? rel : ".");
		}
		while (rc == 0 && (de = readdir(d)) != NULL) {
			struct stat cst;
			size_t old;
			int cfd = -1;

			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			/*
			 * A file is opened first and its descriptor looked at:
			 * one lookup of the name, not two, and the size and
			 * version are those of the content read.
			 */
			if (de->d_type == DT_REG &&
			    (cfd = ws__open_read(dirfd(d), de->d_name, &c->noatime)) >= 0 &&
			    (fstat(cfd, &cst) < 0 || !S_ISREG(cst.st_mode))) {
				close(cfd);
				cfd = -1;
			}
			if (cfd < 0 &&
			    fstatat(dirfd(d), de->d_name, &cst, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			/* Stopped (MCP's notifications/cancelled): the record
			 * is not made, so nothing is changed (review23 14). */
			if (ws_cancelled()) {
				if (cfd >= 0)
					close(cfd);
				rc = ws_error_set(WS_EIO_ERROR, NULL, "cancelled while "
						  "recording the tree; nothing was "
						  "changed");
				break;
			}
			if ((rc = ws__rel_push(c, de->d_name, &old)) < 0) {
				if (cfd >= 0)
					close(cfd);
				break;
			}
			c->depth++;
			rc = ws__capture(c, dirfd(d), de->d_name, &cst, cfd, true);
			c->depth--;
			c->rlen = old;
			c->rel[old] = '\0';
		}
		closedir(d);
	}
	return rc;
}

/* "key":[entries] for the entry name in dirfd (none when st is NULL). */
static int
ws__capture_array(struct ws__cap *c, const char *key, int dirfd, const char *name,
		  const struct stat *st, bool recursive)
{
	int rc = 0;

	ws_jbuf_lit(&c->b, ",");
	ws_jbuf_str(&c->b, key);
	ws_jbuf_lit(&c->b, ":[");
	c->first = true;
	c->rlen = 0;
	if (c->rel != NULL)
		c->rel[0] = '\0';
	if (st != NULL)
		rc = ws__capture(c, dirfd, name, st, -1, recursive);
	ws_jbuf_lit(&c->b, "]");
	return rc;
}

/*
 * Now, as the audit log writes it (UTC): not gmtime_r() and strftime(),
 * which load /etc/localtime (seven system calls) in every call that
 * records a change, for a time that needs no zone.
 */
static void
ws__now(char buf[32])
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ws_audit_time(&ts, buf);
}

/*
 * Append rec to the journal as one line, with id first (*id: 0 takes
 * the next from seq).
 */
/* The largest id in the journal (after a crash lost seq). */
static long long
ws__last_id(int jfd)
{
	long long max = 0;
	char *l = NULL;
	size_t cap = 0;
	int fd = dup(jfd);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (f == NULL) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewind(f);
	while (getline(&l, &cap, f) > 0) {
		long long v;

		if (sscanf(l, "{\"id\":%lld", &v) == 1 && v > max)
			max = v;
	}
	free(l);
	fclose(f);
	return max;
}

/* body: the record as JSON text, an object ("{...}"); it is freed. */
static int
ws__append(struct ws_history *h, char *body, long long *id)
{
	bool done = *id != 0;
	char *line = NULL, sq[32];
	int rc = 0, sfd = -1;
	size_t n;
	ssize_t w;

	if (body == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (;;) {
		struct stat a, b;
		int nfd;

		if (flock(h->jfd, LOCK_EX) < 0) {
			free(body);
			return ws__hist_io("cannot lock the journal", h->dir);
		}
		/* history --gc may have renamed a new journal over the one
		 * this context opened: append to the journal of the name. */
		if (fstat(h->jfd, &a) == 0 &&
		    fstatat(h->dfd, "journal", &b, AT_SYMLINK_NOFOLLOW) == 0 &&
		    a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			break;
		flock(h->jfd, LOCK_UN);
		nfd = openat(h->dfd, "journal", O_RDWR | O_APPEND | O_CREAT |
			     O_NOFOLLOW | O_CLOEXEC, 0600);
		if (nfd < 0) {
			free(body);
			return ws__hist_io("cannot open the journal", h->dir);
		}
		close(h->jfd);
		h->jfd = nfd;
	}
	/*
	 * seq holds "ID SIZE": the last id given and the journal's size
	 * after its record.  It is not fsync'd: when a crash lost it, the
	 * size no longer matches, and the last id is read from the journal.
	 */
	sfd = openat(h->dfd, "seq", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (sfd < 0) {
		rc = ws__hist_io("cannot open seq", h->dir);
		goto out;
	}
	if (*id == 0) {
		long long last = 0, size = -1;
		struct stat jst;
		ssize_t r = pread(sfd, sq, sizeof(sq) - 1, 0);

		sq[r > 0 ? r : 0] = '\0';
		if (sscanf(sq, "%lld %lld", &last, &size) != 2)
			size = -1;
		if (fstat(h->jfd, &jst) == 0 && jst.st_size != size)
			last = ws__last_id(h->jfd);
		*id = last + 1;
	}
	n = strlen(body);
	if ((line = malloc(n + 40)) == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	n = (size_t)sprintf(line, "{\"id\":%lld%s%s\n", *id, n > 2 ? "," : "", body + 1);
	{
		/*
		 * A short write (ENOSPC, EDQUOT, EFBIG) left part of a line
		 * with no newline, and the next record was glued to it: that
		 * change vanished from the history, its old content with it
		 * (review25 04).  Cut back to the size before, under the
		 * lock (asked only then: no system call added to an append
		 * that went whole); errno said nothing of a short write.
		 */
		struct stat jb;

		errno = 0;
		w = write(h->jfd, line, n);
		if (w != (ssize_t)n) {
			int e = w < 0 ? errno : ENOSPC;

			/* No other append meanwhile: the flock is held. */
			if (w > 0 && fstat(h->jfd, &jb) == 0 && jb.st_size >= w)
				(void)ftruncate(h->jfd, jb.st_size - w);
			errno = e;
			rc = ws__hist_io("cannot write the journal", h->dir);
		}
	}
	/* A done record is not fsync'd: lost, the change is "unconfirmed"
	 * and undo asks for --force. */
	if (rc == 0 && !h->nosync && !done && fdatasync(h->jfd) < 0)
		rc = ws__hist_io("cannot write the journal", h->dir);
	if (rc == 0) {
		struct stat jst;
		long long top = *id;

		if (done) {
			ssize_t r = pread(sfd, sq, sizeof(sq) - 1, 0);

			sq[r > 0 ? r : 0] = '\0';
			top = strtoll(sq, NULL, 10);
		}
		if (fstat(h->jfd, &jst) == 0) {
			n = (size_t)snprintf(sq, sizeof(sq), "%lld %lld\n", top,
					     (long long)jst.st_size);
			if (pwrite(sfd, sq, n, 0) == (ssize_t)n)
				(void)ftruncate(sfd, (off_t)n);
		}
	}
out:
	flock(h->jfd, LOCK_UN);
	if (sfd >= 0)
		close(sfd);
	free(body);
	free(line);
	return rc;
}

int
ws_hist_begin(struct ws_ctx *ws, const char *op, int dirfd, const char *name,
	      const char *vpath, const char *real, const struct stat *st,
	      bool recursive, int ddirfd, const char *dname, const char *dvpath,
	      const char *dreal, const struct stat *dst)
{
	struct ws_history *h = ws->history;
	struct ws__cap *c;
	char now[40], *body;
	int rc = 0;

	if (h == NULL)
		return 0;
	h->pending = false;
	h->pending_id = 0;
	cJSON_Delete(h->made);
	h->made = NULL;
	ws__seen_clear(h);
	/* A tree delete removes only what this record holds. */
	h->collect = recursive && strcmp(op, "delete") == 0;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	c->h = h;
	c->noatime = true;
	ws__now(now);
	ws_jbuf_lit(&c->b, "{");
	ws_jbuf_lit(&c->b, "\"t\":\"begin\"");
	ws__jkstr(&c->b, "time", now);
	ws__jkstr(&c->b, "tool", h->tool);
	ws__jkstr(&c->b, "frontend", h->frontend ? h->frontend : "cli");
	ws__jkstr(&c->b, "op", op);
	ws__jkstr(&c->b, "path", vpath);
	ws__jkstr(&c->b, "real_path", real);
	if (h->undo_of > 0)
		ws__jkint(&c->b, "undo_of", h->undo_of);
	c->vlen = vpath != NULL ? strlen(vpath) : 0;
	rc = ws__capture_array(c, "before", dirfd, name, st, recursive);
	h->collect = false;
	if (rc == 0 && dvpath != NULL) {
		ws__jkstr(&c->b, "dest", dvpath);
		ws__jkstr(&c->b, "dest_real", dreal);
		c->vlen = strlen(dvpath);
		c->depth = 0;
		if (dst != NULL)
			rc = ws__capture_array(c, "dest_before", ddirfd, dname, dst,
					       true);
	}
	ws_jbuf_lit(&c->b, "}");
	if (c->b.oom && rc == 0)
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
	body = c->b.p;
	free(c->rel);
	free(c);
	/* The objects are durable before the record that names them. */
	if (rc == 0 && !h->nosync && h->objects_new > 0 && fsync(h->objfd) < 0)
		rc = ws__hist_io("cannot sync the objects", h->dir);
	if (rc < 0) {
		free(body);
		return rc;
	}
	if ((rc = ws__append(h, body, &h->pending_id)) < 0)
		return rc;
	h->pending = true;
	return 0;
}

void
ws_hist_parents(struct ws_ctx *ws, const struct ws_res *res)
{
	struct ws_history *h = ws->history;

	if (h == NULL || !h->pending || res->nmade == 0 || res->vpath == NULL)
		return;
	if (h->made == NULL && (h->made = cJSON_CreateArray()) == NULL)
		return;
	for (size_t i = 0; i < res->nmade; i++) {
		char *p = strdup(res->vpath), num[32];
		cJSON *o;
		unsigned up = res->made[i].up;

		if (p == NULL)
			return;
		/* Its name: the virtual path, up levels above the name. */
		while (up-- > 0) {
			char *sl = strrchr(p, '/');

			if (sl == NULL || sl == p) {
				p[0] = '\0';
				break;
			}
			*sl = '\0';
		}
		if (p[0] != '/' || (o = cJSON_CreateObject()) == NULL) {
			free(p);
			continue;
		}
		cJSON_AddStringToObject(o, "path", p);
		/* As strings: an inode number may not fit a double. */
		snprintf(num, sizeof(num), "%ju", (uintmax_t)res->made[i].dev);
		cJSON_AddStringToObject(o, "dev", num);
		snprintf(num, sizeof(num), "%ju", (uintmax_t)res->made[i].ino);
		cJSON_AddStringToObject(o, "ino", num);
		cJSON_AddItemToArray(h->made, o);
		free(p);
	}
}

/* The SHA-256 of a regular file no larger than the bound. */
static int
ws__hash_file(int dirfd, const char *name, const struct stat *st,
	      const struct ws_history *h, char hex[WS_SHA256_HEX + 1])
{
	struct ws_sha256 c;
	unsigned char d[WS_SHA256_LEN], buf[65536];
	bool noatime = true;
	ssize_t r;
	int fd;

	if (h->b.max_file > 0 && st->st_size > h->b.max_file)
		return -1;
	fd = ws__open_read(dirfd, name, &noatime);
	if (fd < 0)
		return -1;
	ws_sha256_init(&c);
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		ws_sha256_update(&c, buf, (size_t)r);
	close(fd);
	if (r < 0)
		return -1;
	ws_sha256_final(&c, d);
	ws_sha256_tohex(d, hex);
	return 0;
}

long long
ws_hist_end(struct ws_ctx *ws, int rc, int dirfd, const char *name)
{
	struct ws_history *h = ws->history;
	struct stat st;
	char tok[WS_VERSION_LEN];
	cJSON *rec;
	long long id;

	if (h == NULL)
		return 0;
	ws__seen_clear(h);
	if (!h->pending)
		return 0;
	id = h->pending_id;
	h->pending = false;
	if ((rec = cJSON_CreateObject()) == NULL)
		return id;
	cJSON_AddStringToObject(rec, "t", "done");
	cJSON_AddBoolToObject(rec, "ok", rc == 0);
	if (h->made != NULL) {
		cJSON_AddItemToObject(rec, "made_dirs", h->made);
		h->made = NULL;
	}
	if (rc == 0 && name != NULL &&
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		char hex[WS_SHA256_HEX + 1];

		cJSON_AddStringToObject(rec, "after", ws_version_token(&st, tok));
		/* And its content's hash: a file put back by another undo
		 * is a new inode with the same content. */
		if (S_ISREG(st.st_mode) && ws__hash_file(dirfd, name, &st, h, hex) == 0)
			cJSON_AddStringToObject(rec, "after_sha256", hex);
	}
	/* A lost done record is a begin alone: undo then checks content. */
	(void)ws__append(h, cJSON_PrintUnformatted(rec), &id);
	cJSON_Delete(rec);
	h->last_id = rc == 0 ? id : 0;
	return h->last_id;
}

/* ---- Reading the journal -------------------------------------------- */

struct ws__entry {
	long long id;
	cJSON *begin; /* owned */
	bool done, ok;
	const char *after; /* in done */
	const char *after_sha; /* in done */
	cJSON *done_rec;
	bool undone;
	long long undone_by; /* the entry that undid it, once undone */
};

static void
ws__entries_free(struct ws__entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		cJSON_Delete(v[i].begin);
		cJSON_Delete(v[i].done_rec);
	}
	free(v);
}

/* Every entry of the journal, oldest first. */
static int
ws__load(struct ws_history *h, struct ws__entry **out, size_t *nout)
{
	struct ws__entry *v = NULL;
	size_t n = 0, cap = 0;
	char *l = NULL;
	size_t lcap = 0;
	ssize_t len;
	int fd = dup(h->jfd);
	FILE *f;

	if (fd < 0 || (f = fdopen(fd, "r")) == NULL) {
		if (fd >= 0)
			close(fd);
		return ws__hist_io("cannot read the journal", h->dir);
	}
	rewind(f);
	while ((len = getline(&l, &lcap, f)) > 0) {
		cJSON *j = ws_json_parse(l, WS_JSON_STR, NULL, false);
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(j, "t"));
		long long id = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id"));

		if (j == NULL || t == NULL || id <= 0) {
			cJSON_Delete(j); /* a torn last line: ignored */
			continue;
		}
		if (strcmp(t, "begin") == 0) {
			if (n == cap) {
				struct ws__entry *nv;

				cap = cap ? cap * 2 : 64;
				if ((nv = realloc(v, cap * sizeof(*v))) == NULL) {
					cJSON_Delete(j);
					break;
				}
				v = nv;
			}
			memset(&v[n], 0, sizeof(v[n]));
			v[n].id = id;
			v[n].begin = j;
			n++;
			continue;
		}
		for (size_t i = n; i-- > 0;) {
			if (v[i].id != id)
				continue;
			if (v[i].done_rec == NULL) {
				v[i].done = true;
				v[i].ok = cJSON_IsTrue(cJSON_GetObjectItem(j, "ok"));
				v[i].after = cJSON_GetStringValue(cJSON_GetObjectItem(j, "after"));
				v[i].after_sha = cJSON_GetStringValue(
					cJSON_GetObjectItem(j, "after_sha256"));
				v[i].done_rec = j;
				j = NULL;
			}
			break;
		}
		cJSON_Delete(j);
	}
	free(l);
	fclose(f);
	/*
	 * What later entries undid.  An undo can itself be undone by its id
	 * (a forced undo replaced what a person made since; its entry kept
	 * that, and undoing it brings it back: ftu13 12), so an entry is
	 * undone when a later undo of it succeeded and is not undone itself:
	 * decided newest first, where each undo's own state is already
	 * known (an undo names an older entry only).  undone_by is the
	 * newest such undo.
	 */
	for (size_t i = n; i-- > 0;) {
		const cJSON *u = cJSON_GetObjectItem(v[i].begin, "undo_of");

		if (!cJSON_IsNumber(u) || (v[i].done && !v[i].ok) || v[i].undone)
			continue;
		for (size_t k = i; k-- > 0;)
			if (v[k].id == (long long)u->valuedouble) {
				if (!v[k].undone) {
					v[k].undone = true;
					v[k].undone_by = v[i].id;
				}
				break;
			}
	}
	*out = v;
	*nout = n;
	return 0;
}

/*
 * Whether the policy hides the virtual path vpath from a listing: it
 * refuses to stat what the path names now (or would name, for a path
 * that is gone), or the path no longer resolves inside the workspace
 * (then no rule can be asked, and a listing says nothing rather than
 * too much).  The history keeps names, sizes and version tokens, which
 * a rule that denies every operation hides everywhere else (review18
 * 06).  The file rules alone are asked, so nothing prompts and nothing
 * is logged as a decision: a listing decides nothing.
 */
static bool
ws__hist_hidden(struct ws_ctx *ws, const char *vpath)
{
	struct ws_res res = {0};
	bool hidden = true;

	if (ws->policy == NULL || vpath == NULL)
		return false;
	if (ws_resolve(ws, vpath, WS_R_MISSING_OK | WS_R_NOFOLLOW |
			      WS_R__NO_DENY_CHECK, &res) == 0)
		hidden = ws_policy_check_file(ws->policy, WS_OP_STAT, res.real, NULL) !=
			 WS_DECISION_ALLOW;
	ws_res_free(&res);
	return hidden;
}

/* Whether the begin record b is of operation op. */
static bool
ws__op_is(const cJSON *b, const char *op)
{
	const char *o = cJSON_GetStringValue(cJSON_GetObjectItem(b, "op"));

	return o != NULL && strcmp(o, op) == 0;
}

int
ws_hist_list(struct ws_ctx *ws, const char *path, cJSON **out)
{
	struct ws_history *h = ws->history;
	struct ws__entry *v = NULL;
	size_t n = 0;
	cJSON *arr;
	int rc;

	if (h == NULL)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "the history is off (--no-history, or "
				    "\"history\": false)");
	/* Asked about a path the policy hides: no answer tells whether it
	 * was ever written (review19 07). */
	if (path != NULL && ws__hist_hidden(ws, path))
		return ws_error_set(WS_EPOLICY_DENIED, path, "the policy refuses to "
				    "stat it (or it does not resolve in the "
				    "workspace), so its history is not listed");
	if ((rc = ws__load(h, &v, &n)) < 0)
		return rc;
	arr = cJSON_CreateArray();
	for (size_t i = n; arr != NULL && i-- > 0;) {
		const cJSON *b = v[i].begin, *before = cJSON_GetObjectItem(b, "before");
		const cJSON *top = cJSON_GetArrayItem(before, 0);
		const char *p = cJSON_GetStringValue(cJSON_GetObjectItem(b, "path"));
		const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(b, "dest"));
		cJSON *e;

		/* A change that failed changed nothing -- but a delete of a
		 * tree may have removed part of it before it failed. */
		if (v[i].done && !v[i].ok &&
		    strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(v[i].begin, "op")),
			   "delete") != 0)
			continue;
		/*
		 * A change to PATH or below it, or the delete or move of a
		 * directory that held PATH: what took a file away is the
		 * answer to "what happened to it".
		 */
		if (path != NULL && !(p && ws_path_within(path, p, NULL)) &&
		    !(d && ws_path_within(path, d, NULL)) &&
		    !(ws__op_is(b, "delete") && p && ws_path_within(p, path, NULL)) &&
		    !(ws__op_is(b, "move") && ((p && ws_path_within(p, path, NULL)) ||
					      (d && ws_path_within(d, path, NULL)))))
			continue;
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "id", (double)v[i].id);
		cJSON_AddItemToObject(e, "time", cJSON_Duplicate(cJSON_GetObjectItem(b, "time"), 1));
		cJSON_AddItemToObject(e, "tool", cJSON_Duplicate(cJSON_GetObjectItem(b, "tool"), 1));
		cJSON_AddItemToObject(e, "frontend", cJSON_Duplicate(cJSON_GetObjectItem(b, "frontend"), 1));
		cJSON_AddItemToObject(e, "operation", cJSON_Duplicate(cJSON_GetObjectItem(b, "op"), 1));
		if (ws__hist_hidden(ws, p) || ws__hist_hidden(ws, d)) {
			/* The entry is there; what it names is not said. */
			cJSON_AddNullToObject(e, "path");
			cJSON_AddBoolToObject(e, "hidden", true);
			cJSON_AddBoolToObject(e, "done", v[i].done);
			cJSON_AddBoolToObject(e, "undone", v[i].undone);
			cJSON_AddItemToArray(arr, e);
			continue;
		}
		cJSON_AddStringToObject(e, "path", p ? p : "");
		if (d != NULL)
			cJSON_AddStringToObject(e, "destination", d);
		cJSON_AddNumberToObject(e, "entries_before", cJSON_GetArraySize(before));
		if (top != NULL && cJSON_GetObjectItem(top, "size") != NULL)
			cJSON_AddItemToObject(e, "size_before",
					      cJSON_Duplicate(cJSON_GetObjectItem(top, "size"), 1));
		if (top != NULL && cJSON_GetObjectItem(top, "version") != NULL)
			cJSON_AddItemToObject(e, "version_before",
					      cJSON_Duplicate(cJSON_GetObjectItem(top, "version"), 1));
		if (v[i].after != NULL)
			cJSON_AddStringToObject(e, "version_after", v[i].after);
		/*
		 * What a move replaced at its destination (a forced undo puts
		 * a file back over what a person made since): said, so that
		 * the listing shows what undoing this entry brings back
		 * (ftu13 12).
		 */
		{
			const cJSON *db = cJSON_GetObjectItem(b, "dest_before");
			const cJSON *dtop = cJSON_GetArrayItem(db, 0);

			if (cJSON_GetArraySize(db) > 0)
				cJSON_AddNumberToObject(e, "destination_entries_before",
							cJSON_GetArraySize(db));
			if (dtop != NULL && cJSON_IsNumber(cJSON_GetObjectItem(dtop, "size")))
				cJSON_AddItemToObject(e, "destination_size_before",
						      cJSON_Duplicate(cJSON_GetObjectItem(dtop, "size"), 1));
		}
		/* The directories it made on the way, which its undo takes
		 * away (ftu13 02). */
		{
			const cJSON *m;
			cJSON *md = NULL;

			cJSON_ArrayForEach(m, cJSON_GetObjectItem(v[i].done_rec, "made_dirs")) {
				const char *mp = cJSON_GetStringValue(cJSON_GetObjectItem(m, "path"));

				if (mp == NULL || ws__hist_hidden(ws, mp))
					continue;
				if (md == NULL && (md = cJSON_AddArrayToObject(e, "made_dirs")) == NULL)
					break;
				cJSON_AddItemToArray(md, cJSON_CreateString(mp));
			}
		}
		cJSON_AddBoolToObject(e, "done", v[i].done);
		if (cJSON_GetObjectItem(b, "undo_of") != NULL)
			cJSON_AddItemToObject(e, "undo_of",
					      cJSON_Duplicate(cJSON_GetObjectItem(b, "undo_of"), 1));
		cJSON_AddBoolToObject(e, "undone", v[i].undone);
		cJSON_AddItemToArray(arr, e);
	}
	ws__entries_free(v, n);
	if (arr == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	*out = arr;
	return 0;
}

/* ---- Undo -------------------------------------------------------------- */

/* The virtual path of rel below vpath. */
static char *
ws__below(const char *vpath, const char *rel)
{
	return rel[0] ? ws_path_join(vpath, rel) : strdup(vpath);
}

/* lstat of vpath through the resolver (*exists false when missing). */
static int
ws__stat(struct ws_ctx *ws, const char *vpath, struct stat *st, bool *exists)
{
	struct ws_res res;
	int rc = ws_resolve(ws, vpath, WS_R_MISSING_OK | WS_R_NOFOLLOW, &res);

	*exists = false;
	if (rc == 0) {
		*exists = res.exists;
		if (res.exists)
			*st = res.st;
	}
	ws_res_free(&res);
	return rc;
}

/* Whether this call came from a model through wstools mcp. */
static bool
ws__from_mcp(void)
{
	const struct ws_call *c = ws_call_current();
	const char *fe = c->frontend != NULL ? c->frontend : getenv("WS_FRONTEND");

	return c->approver != NULL || (fe != NULL && strcmp(fe, "mcp") == 0);
}

static int
ws__mismatch(const char *vpath, const char *what, bool dir)
{
	bool mcp = ws__from_mcp();
	int rc = ws_error_set(WS_EVERSION_MISMATCH, vpath,
			      "changed since the entry was recorded (%s)%s", what,
			      mcp ? "" : "; undo --force reverts it all the same, and "
			      "keeps what it replaces: undo that undo by its id to "
			      "bring it back");

	/*
	 * A model is not the one to decide that a change made since (the
	 * person's own edit, often) may be thrown away (ftu12 24).
	 */
	if (mcp)
		ws_error_set_hint("someone changed it after this entry, perhaps "
				  "the person: read it and ask the person; only if "
				  "they agree that the recorded state should replace "
				  "what is there now, undo it with force");
	else
		/* A directory is looked at with wsls: wsread refuses it. */
		ws_error_set_hint("look at it (%s), then undo --force if the "
				  "recorded state should win, or undo another entry "
				  "by its id (wstools history lists them)",
				  dir ? "wsls" : "wsread");
	return rc;
}

/*
 * Whether the paths of entry e (its path, a move's destination) name the
 * real places they named when the change was made.  The history is kept
 * per workspace root, not per mount table: a path that was a plain
 * workspace file for the agent's server (/.skills/evil.md) named, for
 * the person's undo with a mount there (WS_MOUNTS=/.skills=~/skills),
 * the mount's directory, and the undo restored the agent's bytes outside
 * the workspace (review25 07).  Refused, force or not.
 */
static int
ws__same_place(struct ws_ctx *ws, const struct ws__entry *e)
{
	static const char *const keys[][2] = {{"path", "real_path"}, {"dest", "dest_real"}};

	for (size_t i = 0; i < 2; i++) {
		const char *vp = cJSON_GetStringValue(cJSON_GetObjectItem(e->begin, keys[i][0]));
		const char *was = cJSON_GetStringValue(cJSON_GetObjectItem(e->begin, keys[i][1]));
		struct ws_res res;
		bool same;

		if (vp == NULL || was == NULL)
			continue;
		if (ws_resolve(ws, vp, WS_R_MISSING_OK | WS_R_NOFOLLOW, &res) < 0)
			return ws_error_last_code();
		same = res.real != NULL && strcmp(res.real, was) == 0;
		if (!same) {
			int rc = ws_error_set(WS_EPOLICY_DENIED, vp,
					      "entry %lld: this path names %s now, not "
					      "%s as when the change was made (the "
					      "workspace's mounts differ from that "
					      "call's), so it is not undone there",
					      (long long)e->id, res.real ? res.real : "?",
					      was);

			ws_error_set_hint("undo it with the mounts of the call that "
					  "made it (wstools history shows its paths), "
					  "or undo another entry by its id");
			ws_res_free(&res);
			return rc;
		}
		ws_res_free(&res);
	}
	return 0;
}

/*
 * The undo of a move of src to dst cannot move dst back: what is at src
 * now is what no rename replaces (ws_move_replaceable() said why, naming
 * src).  The hint says what to do about src, for undo (ftu13 13).
 */
static int
ws__blocked_back(const char *src, const char *dst)
{
	if (ws__from_mcp())
		return ws_error_set_hint("undo moves %s back to %s, where something "
					 "else is now: list it and ask the person "
					 "whether to move it away or delete it, then "
					 "undo again", dst, src);
	return ws_error_set_hint("undo moves %s back to %s: move %s away or "
				 "delete it first (wsls %s shows what it holds), "
				 "then undo again; or undo another entry by its id "
				 "(wstools history lists them)", dst, src, src, src);
}

/* Whether vpath still is what entry e left; 0, or VERSION_MISMATCH. */
static int
ws__check_after(struct ws_ctx *ws, const struct ws__entry *e)
{
	const cJSON *b = e->begin;
	const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(b, "op"));
	const char *p = cJSON_GetStringValue(cJSON_GetObjectItem(b, "path"));
	const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(b, "dest"));
	struct stat st;
	bool ex;
	int rc;

	if (strcmp(op, "delete") == 0) {
		if ((rc = ws__stat(ws, p, &st, &ex)) < 0)
			return rc;
		/* A tree whose delete failed part way is still there. */
		if (ex && e->done && !e->ok && S_ISDIR(st.st_mode))
			return 0;
		return ex ? ws__mismatch(p, "something is there again",
					 S_ISDIR(st.st_mode)) : 0;
	}
	if (strcmp(op, "mkdir") == 0) {
		if ((rc = ws__stat(ws, p, &st, &ex)) < 0)
			return rc;
		return ex && S_ISDIR(st.st_mode) ? 0 : ws__mismatch(p, "not the "
								    "directory made", false);
	}
	if (strcmp(op, "move") == 0) {
		if ((rc = ws__stat(ws, p, &st, &ex)) < 0)
			return rc;
		if (ex) {
			/*
			 * What the move back could not replace, forced or not
			 * (a directory holding entries, a file where a
			 * directory goes): said as such, not "--force"
			 * (ftu13 13).
			 */
			if ((rc = ws_move_replaceable(ws, d, p)) < 0)
				return ws__blocked_back(p, d);
			return ws__mismatch(p, "something is at the source again",
					    S_ISDIR(st.st_mode));
		}
		p = d;
	}
	if ((rc = ws__stat(ws, p, &st, &ex)) < 0)
		return rc;
	if (!ex)
		return ws__mismatch(p, "it is gone", false);
	if (e->after != NULL && !ws_version_matches(&st, e->after)) {
		char hex[WS_SHA256_HEX + 1];
		struct ws_res res;
		bool same = false;

		/* The same content (put back by an undo) is no change. */
		if (e->after_sha != NULL && S_ISREG(st.st_mode)) {
			if (ws_resolve(ws, p, WS_R_NOFOLLOW, &res) == 0 &&
			    ws__hash_file(res.dirfd, res.name, &res.st, ws->history,
					  hex) == 0)
				same = strcmp(hex, e->after_sha) == 0;
			ws_res_free(&res);
		}
		if (!same)
			return ws__mismatch(p, "its content is not what the "
					    "change left", false);
	}
	if (e->after == NULL && !S_ISDIR(st.st_mode))
		return ws__mismatch(p, "the change never said it was done (a crash?)",
				    false);
	return 0;
}

static int ws__restore_names(struct ws_ctx *ws, struct ws_history *h,
			     const char *vpath, const cJSON *arr, bool replace);

/*
 * Put back the recorded entries arr below vpath (parents first).  Their
 * "rel" names were read from the disk: a backslash in one is a byte of
 * the name, not a separator (DESIGN.md 3 makes it one in a requested
 * path), so the paths are resolved with WS__DISK_NAMES; vpath itself is
 * a resolved virtual path, with no backslash left to split.
 */
static int
ws__restore(struct ws_ctx *ws, struct ws_history *h, const char *vpath,
	    const cJSON *arr, bool replace)
{
	unsigned saved = ws->flags;
	int rc;

	ws->flags |= WS__DISK_NAMES;
	rc = ws__restore_names(ws, h, vpath, arr, replace);
	ws->flags = saved;
	return rc;
}

static int
ws__restore_names(struct ws_ctx *ws, struct ws_history *h, const char *vpath,
		  const cJSON *arr, bool replace)
{
	const cJSON *it;
	int rc = 0;

	cJSON_ArrayForEach(it, arr) {
		const char *rel = cJSON_GetStringValue(cJSON_GetObjectItem(it, "rel"));
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(it, "type"));
		const char *obj = cJSON_GetStringValue(cJSON_GetObjectItem(it, "object"));
		const char *inl = cJSON_GetStringValue(cJSON_GetObjectItem(it, "data"));
		char *p = ws__below(vpath, rel ? rel : "");
		struct ws_wresult r = {0};

		if (p == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		if (!replace && strcmp(type, "dir") != 0) {
			struct stat cur;
			bool ex = false;

			/* What a failed delete left is there already. */
			if ((rc = ws__stat(ws, p, &cur, &ex)) < 0 || ex) {
				free(p);
				if (rc < 0)
					return rc;
				continue;
			}
		}
		if (strcmp(type, "dir") == 0) {
			rc = ws_mkdir(ws, p, true, false, &r);
		} else if (strcmp(type, "file") == 0 && (obj != NULL || inl != NULL)) {
			struct ws_wopts o = {0};
			char *data = NULL;
			size_t n = 0;

			if (inl != NULL)
				rc = ws_b64_decode(inl, (void **)&data, &n);
			else
				rc = ws__get(h, obj, p, &data, &n);
			if (rc == 0) {
				o.content = data;
				o.len = n;
				o.parents = true;
				o.create_only = !replace;
				o.nosync = h->nosync;
				rc = ws_write(ws, p, &o, &r);
				/* The mode it had (ws_write keeps a replaced
				 * file's, and makes a new one 0666 &~umask),
				 * its permission bits only: a journal is not
				 * trusted to make set-id or sticky files. */
				if (rc == 0) {
					struct ws_res res;

					/* Never through a link swapped in for
					 * the name since it was resolved. */
					if (ws_resolve(ws, p, WS_R_NOFOLLOW, &res) == 0 &&
					    res.exists && S_ISREG(res.st.st_mode))
						(void)fchmodat(res.dirfd, res.name,
							       (mode_t)cJSON_GetNumberValue(
								   cJSON_GetObjectItem(it, "mode")) & 0777,
							       AT_SYMLINK_NOFOLLOW);
					ws_res_free(&res);
				}
			}
			free(data);
		} else if (strcmp(type, "symlink") == 0) {
			const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(it, "target"));
			const char *sl = strrchr(p, '/');
			struct ws_res res = {0};

			/*
			 * The missing directories above it as ws_mkdir() makes
			 * them, each through the guards: made bare on the way,
			 * one named refs turned a directory holding HEAD and a
			 * config into a repository (review18 10).
			 */
			if (sl != NULL && sl != p) {
				char *dir = strndup(p, (size_t)(sl - p));
				struct ws_wresult dr = {0};

				rc = dir == NULL ? ws_error_set(WS_ENOMEM, NULL, "out of memory")
						 : ws_mkdir(ws, dir, true, false, &dr);
				ws_wresult_free(&dr);
				free(dir);
				if (rc < 0) {
					ws_wresult_free(&r);
					free(p);
					return rc;
				}
			}
			/* Through the resolver and the policy, like a create. */
			rc = ws_resolve(ws, p, WS_R_MISSING_OK | WS_R_NOFOLLOW, &res);
			if (rc == 0 && (rc = ws_res_check_writable(ws, &res)) == 0 &&
			    (rc = ws_check(ws, WS_OP_CREATE, res.real, res.vpath)) == 0 &&
			    (rc = ws_res_make_parents(&res, false, 0777)) == 0 &&
			    t != NULL && symlinkat(t, res.dirfd, res.name) < 0)
				rc = ws_error_errno(errno, p, "symlink");
			ws_res_free(&res);
		} else if (h->skip_unkept) {
			h->unkept++;
		} else {
			rc = ws_error_set(WS_EIO_ERROR, p, "history: its content was not "
					  "kept (larger than \"history_max_file\", or "
					  "not a file)");
		}
		ws_wresult_free(&r);
		free(p);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * The first file of an entry's record (arr: "before" or "dest_before")
 * whose content was not kept (larger than history_max_file, or a special
 * file), as its rel ("" for the path itself), or NULL.
 */
static const char *
ws__unkept(const cJSON *arr)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, arr) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(it, "type"));
		const char *rel = cJSON_GetStringValue(cJSON_GetObjectItem(it, "rel"));

		if (type == NULL || strcmp(type, "dir") == 0 ||
		    strcmp(type, "symlink") == 0)
			continue;
		if (strcmp(type, "file") != 0 ||
		    (cJSON_GetObjectItem(it, "object") == NULL &&
		     cJSON_GetObjectItem(it, "data") == NULL))
			return rel != NULL ? rel : "";
	}
	return NULL;
}

/*
 * Refuse to undo e, before anything is changed (a dry run too), when a
 * file it would bring back was not kept: the undo would fail half way,
 * having restored the rest (ftu12 21).  --force restores what was kept.
 */
static int
ws__check_kept(const struct ws__entry *e)
{
	const cJSON *b = e->begin;
	const char *p = cJSON_GetStringValue(cJSON_GetObjectItem(b, "path"));
	const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(b, "dest"));
	const char *rel = ws__unkept(cJSON_GetObjectItem(b, "before"));
	const char *at = p;

	if (rel == NULL && (rel = ws__unkept(cJSON_GetObjectItem(b, "dest_before"))) != NULL)
		at = d;
	if (rel == NULL)
		return 0;
	ws_error_set(WS_EIO_ERROR, NULL, "history entry %lld: the old content of "
		     "%s%s%s was not kept (larger than \"history_max_file\", or not "
		     "a regular file), so it cannot be brought back", e->id,
		     at != NULL ? at : "?", rel[0] != '\0' ? "/" : "", rel);
	return ws_error_set_hint("undo --force restores what was kept and passes "
				 "over the rest (the result counts it as "
				 "\"not_kept\")");
}

/* Revert entry e. */
static int
ws__revert(struct ws_ctx *ws, struct ws_history *h, const struct ws__entry *e,
	   bool force)
{
	const cJSON *b = e->begin, *before = cJSON_GetObjectItem(b, "before");
	const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(b, "op"));
	const char *p = cJSON_GetStringValue(cJSON_GetObjectItem(b, "path"));
	const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(b, "dest"));
	struct ws_wresult r = {0};
	int rc;

	if (strcmp(op, "move") == 0) {
		/*
		 * Forced, what is at the source again is replaced, as a
		 * forced undo of a delete replaces what is there (the undo's
		 * entry keeps what it replaced).
		 */
		rc = ws_move(ws, d, p, force, true, false, NULL, &r);
		ws_wresult_free(&r);
		if (rc == WS_EDIRECTORY_NOT_EMPTY || rc == WS_EIS_A_DIRECTORY ||
		    rc == WS_ENOT_A_DIRECTORY)
			ws__blocked_back(p, d);
		if (rc == 0 && cJSON_GetArraySize(cJSON_GetObjectItem(b, "dest_before")) > 0)
			rc = ws__restore(ws, h, d, cJSON_GetObjectItem(b, "dest_before"), false);
		return rc;
	}
	if (cJSON_GetArraySize(before) == 0) {
		/* It was made by the change: take it away. */
		rc = ws_delete(ws, p, strcmp(op, "mkdir") != 0, false, NULL, &r);
		ws_wresult_free(&r);
		/* Not wswrite's "use --recursive": undo has none, and what
		 * is in the directory was not made by this change. */
		if (rc == WS_EDIRECTORY_NOT_EMPTY)
			rc = ws_error_set(rc, p, "holds entries this change did not "
					  "make, which undo does not delete: move "
					  "them away first, or undo another entry "
					  "by its id (wstools history lists them)");
		return rc;
	}
	/* Forced, what is there now is replaced by what was deleted. */
	if (strcmp(op, "delete") == 0)
		return ws__restore(ws, h, p, before, force);
	return ws__restore(ws, h, p, before, true);
}


/*
 * After entry e was undone: the directories its change made on the way
 * ("made_dirs" of its done record; an older journal has none, and its
 * entries undo as they did), deepest first, each removed while empty and
 * still the directory made (ws_rmdir_made()), so that the tree is as it
 * was before the change (ftu13 02).  One that stays keeps those above
 * it (they hold it): item gets "removed_dirs" and "kept_dirs", and
 * "kept_why" for the first kept.  One already gone is passed over; one
 * the policy hides stays, unnamed.  Nothing here fails the undo: the
 * change itself is undone.
 */
static void
ws__rm_made(struct ws_ctx *ws, const struct ws__entry *e, cJSON *item)
{
	const cJSON *made = cJSON_GetObjectItem(e->done_rec, "made_dirs");
	cJSON *removed = NULL, *kept = NULL;
	bool stop = false;

	for (int i = cJSON_GetArraySize(made); i-- > 0;) {
		const cJSON *m = cJSON_GetArrayItem(made, i);
		const char *p = cJSON_GetStringValue(cJSON_GetObjectItem(m, "path"));
		const char *dev = cJSON_GetStringValue(cJSON_GetObjectItem(m, "dev"));
		const char *ino = cJSON_GetStringValue(cJSON_GetObjectItem(m, "ino"));
		char *end1 = NULL, *end2 = NULL;
		unsigned long long dv, in;
		int rc;

		if (p == NULL || dev == NULL || ino == NULL || p[0] != '/')
			continue;
		if (ws__hist_hidden(ws, p))
			break;
		dv = strtoull(dev, &end1, 10);
		in = strtoull(ino, &end2, 10);
		if (stop || *end1 != '\0' || *end2 != '\0') {
			rc = WS_EINVALID_ARGUMENT;
		} else {
			rc = ws_rmdir_made(ws, p, (dev_t)dv, (ino_t)in);
			if (rc == WS_ENOT_FOUND) {
				ws_error_clear();
				continue;
			}
		}
		if (rc == 0) {
			if (removed == NULL)
				removed = cJSON_AddArrayToObject(item, "removed_dirs");
			cJSON_AddItemToArray(removed, cJSON_CreateString(p));
			continue;
		}
		if (kept == NULL) {
			const char *why = rc == WS_EDIRECTORY_NOT_EMPTY ?
					  "it holds entries the change did not make" :
					  rc == WS_EVERSION_MISMATCH ?
					  "another directory is there now" :
					  ws_error_last();

			kept = cJSON_AddArrayToObject(item, "kept_dirs");
			cJSON_AddStringToObject(item, "kept_why", why ? why : "");
		}
		cJSON_AddItemToArray(kept, cJSON_CreateString(p));
		ws_error_clear();
		stop = true;
	}
}

/*
 * Why an undo picked nothing, said so that the person knows what to do:
 * the entry asked for was undone already (by which), is itself an undo,
 * or failed; or no entry is left to undo.
 */
static int
ws__nothing_why(const struct ws__entry *v, size_t n, long long id)
{
	for (size_t i = 0; id > 0 && i < n; i++) {
		if (v[i].id != id)
			continue;
		if (v[i].undone)
			return ws_error_set(WS_ENOT_FOUND, NULL, "nothing to undo: "
					    "entry %lld was undone already, by "
					    "entry %lld", id, v[i].undone_by);
		return ws_error_set(WS_ENOT_FOUND, NULL, "nothing to undo: "
				    "entry %lld failed and changed nothing", id);
	}
	return ws_error_set(WS_ENOT_FOUND, NULL, "nothing to undo: every "
			    "entry is undone already or is an undo "
			    "(wstools history lists them)");
}

/*
 * The nearest directory above the workspace root (root, real) whose own
 * history has entries, as histories are kept per root (ws_hist_dir(),
 * under the same base as dir, this workspace's): run from a project's
 * src/, the workspace is src/ and its history empty, while the project's
 * is one level up (ftu12 22).  malloc'd, or NULL.  A stat a level.
 */
static char *
ws__hist_above(const char *dir, const char *root)
{
	const char *sl = strrchr(dir, '/');
	char *base, *up = strdup(root), *found = NULL;

	if (sl == NULL || up == NULL || (base = strndup(dir, (size_t)(sl - dir))) == NULL) {
		free(up);
		return NULL;
	}
	while (found == NULL && strcmp(up, "/") != 0) {
		char *cut = strrchr(up, '/'), *d, *j, *key = NULL;
		struct stat st;

		if (cut == NULL)
			break;
		cut[cut == up ? 1 : 0] = '\0';
		if ((key = ws__root_key(up, AT_FDCWD, up, 0)) == NULL ||
		    (d = ws_hist_dir(base, key)) == NULL) {
			free(key);
			ws_error_clear();
			break;
		}
		free(key);
		j = ws_path_join(d, "journal");
		if (j != NULL && stat(j, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size > 0)
			found = strdup(up);
		free(j);
		free(d);
	}
	free(up);
	free(base);
	return found;
}

char *
ws_hist_above(const struct ws_ctx *ws)
{
	if (ws == NULL || ws->history == NULL || ws->nanchors == 0)
		return NULL;
	return ws__hist_above(ws->history->dir, ws->anchors[0].real);
}

/* ws__nothing_why() when this workspace has no entry at all. */
static int
ws__nothing_here(const struct ws_ctx *ws, const struct ws_history *h)
{
	char *above = ws__hist_above(h->dir, ws->anchors[0].real);

	ws_error_set(WS_ENOT_FOUND, NULL, "nothing to undo: no change is "
		     "recorded for this workspace (%s)", ws->anchors[0].real);
	if (above != NULL)
		ws_error_set_hint("%s, above it, has changes recorded: run "
				  "wstools history and undo from there, or with "
				  "--workspace %s", above, above);
	free(above);
	return WS_ENOT_FOUND;
}

/*
 * One undo at a time, across processes and across the calls side by side
 * in one (wstools mcp --jobs): an undo holds flock(LOCK_EX) on the state
 * directory itself from reading the journal, which says what is left to
 * undo, until what it chose is restored and recorded; two undos of the
 * newest change then undo two changes, never one change twice.  It is
 * a lock on a descriptor this call opens (its own open file description),
 * apart from the journal's, which the writes of the undo take and drop;
 * nothing is created for it.  The wait is bounded (WS__UNDO_WAIT_MS).
 */
#define WS__UNDO_WAIT_MS 30000

static int
ws__undo_lock(struct ws_history *h, int *fdp)
{
	struct timespec t0, t, nap = {0, 1000000};
	int fd;

	*fdp = -1;
	fd = openat(h->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return ws__hist_io("cannot open the state directory", h->dir);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			close(fd);
			return ws__hist_io("cannot lock the state directory", h->dir);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (ws_cancelled()) {
			close(fd);
			return ws_error_set(WS_EIO_ERROR, NULL, "cancelled while "
					    "waiting for another undo to end; "
					    "nothing was undone");
		}
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 >= WS__UNDO_WAIT_MS) {
			close(fd);
			ws_error_set(WS_EIO_ERROR, NULL, "another undo has been "
				     "running for %d s; nothing was undone",
				     WS__UNDO_WAIT_MS / 1000);
			ws_error_set_hint("try again when it is done");
			return WS_EIO_ERROR;
		}
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 32000000)
			nap.tv_nsec *= 2;
	}
	*fdp = fd;
	return 0;
}

int
ws_hist_undo(struct ws_ctx *ws, const struct ws_undo_opts *o, cJSON **out)
{
	struct ws_history *h = ws->history;
	struct ws__entry *v = NULL;
	size_t n = 0, want = o->n > 0 ? (size_t)o->n : 1, picked = 0;
	cJSON *arr = NULL;
	int rc, lfd = -1;

	*out = NULL;
	if (h == NULL)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "the history is off (--no-history, or "
				    "\"history\": false): nothing to undo");
	/* From the choice of what to undo to the record of its undo. */
	if (!o->dry_run && (rc = ws__undo_lock(h, &lfd)) < 0)
		return rc;
	if ((rc = ws__load(h, &v, &n)) < 0)
		goto out;
	if ((arr = cJSON_CreateArray()) == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	if (o->id > 0) {
		bool found = false;

		for (size_t i = 0; i < n; i++)
			if (v[i].id == o->id)
				found = true;
		if (!found) {
			rc = ws_error_set(WS_ENOT_FOUND, NULL, "no history entry %lld",
					  o->id);
			goto out;
		}
	}
	/* Newest first: each undo sees what the later ones left. */
	for (size_t i = n; i-- > 0;) {
		struct ws__entry *e = &v[i];
		cJSON *item;

		/*
		 * An undo is taken back only when asked for by its id: a plain
		 * undo steps back through the changes, never through undos.
		 */
		if (e->undone || (o->id != e->id &&
				  cJSON_GetObjectItem(e->begin, "undo_of") != NULL))
			continue;
		if (e->done && !e->ok &&
		    strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e->begin, "op")),
			   "delete") != 0)
			continue;
		if (o->id > 0 && e->id != o->id)
			continue;
		if (o->to > 0 && e->id < o->to)
			break;
		if (o->id == 0 && o->to == 0 && picked == want)
			break;
		picked++;
		/*
		 * An entry of a path the policy hides (one a person changed
		 * beside the model, say): refused before anything is checked
		 * or named, in a dry run too, and without its name, which the
		 * listing keeps from the caller (ftu13 21).
		 */
		{
			const char *hp = cJSON_GetStringValue(cJSON_GetObjectItem(e->begin, "path"));
			const char *hd = cJSON_GetStringValue(cJSON_GetObjectItem(e->begin, "dest"));

			if (ws__hist_hidden(ws, hp) || ws__hist_hidden(ws, hd)) {
				rc = ws_error_set(WS_EPOLICY_DENIED, NULL,
						  "entry %lld changed a path the policy "
						  "hides: it cannot be undone under this "
						  "policy", (long long)e->id);
				ws_error_set_hint("undo another entry by its id "
						  "(history lists them), or ask the "
						  "person to undo entry %lld without "
						  "this policy", (long long)e->id);
				goto out;
			}
		}
		if ((rc = ws__same_place(ws, e)) < 0)
			goto out;
		/* A dry run cannot see what undoing the later ones leaves:
		 * only the newest is checked. */
		if (!o->force && (!o->dry_run || picked == 1) &&
		    (rc = ws__check_after(ws, e)) < 0)
			goto out;
		if (!o->force && (rc = ws__check_kept(e)) < 0)
			goto out;
		item = cJSON_CreateObject();
		cJSON_AddNumberToObject(item, "id", (double)e->id);
		cJSON_AddItemToObject(item, "operation",
				      cJSON_Duplicate(cJSON_GetObjectItem(e->begin, "op"), 1));
		/*
		 * Named as the listing names it: a move's destination too
		 * (ftu12 15), and nothing of a path the policy hides.
		 */
		{
			const char *ip = cJSON_GetStringValue(cJSON_GetObjectItem(e->begin, "path"));
			const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(e->begin, "dest"));

			if (ws__hist_hidden(ws, ip) || ws__hist_hidden(ws, id)) {
				cJSON_AddNullToObject(item, "path");
				cJSON_AddBoolToObject(item, "hidden", true);
			} else {
				cJSON_AddStringToObject(item, "path", ip ? ip : "");
				if (id != NULL)
					cJSON_AddStringToObject(item, "destination", id);
			}
		}
		cJSON_AddItemToArray(arr, item);
		if (o->dry_run)
			continue;
		h->undo_of = e->id;
		h->skip_unkept = o->force;
		h->unkept = 0;
		h->last_id = 0;
		rc = ws__revert(ws, h, e, o->force);
		h->undo_of = 0;
		h->skip_unkept = false;
		if (rc < 0)
			goto out;
		/* The entry the undo made (its "undo_of" is e), for the
		 * audit line to tie the two together (ftu13 10). */
		if (h->last_id > 0)
			cJSON_AddNumberToObject(item, "history_id", (double)h->last_id);
		if (h->unkept > 0)
			cJSON_AddNumberToObject(item, "not_kept", (double)h->unkept);
		ws__rm_made(ws, e, item);
		if (o->id > 0)
			break;
	}
	if (picked == 0) {
		rc = n == 0 ? ws__nothing_here(ws, h) : ws__nothing_why(v, n, o->id);
		goto out;
	}
	*out = arr;
	arr = NULL;
out:
	if (lfd >= 0) {
		/*
		 * Unlocked, not only closed: a process forked meanwhile (a
		 * command's guardian) may hold a copy of the descriptor, and
		 * with it the lock, for as long as it lives.
		 */
		(void)flock(lfd, LOCK_UN);
		close(lfd);
	}
	cJSON_Delete(arr);
	ws__entries_free(v, n);
	return rc;
}

/* ---- Bounds -------------------------------------------------------------- */

/* Add the objects entry list arr names to the set (a cJSON object). */
static void
ws__refs(const cJSON *arr, cJSON *set)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, arr) {
		const char *o = cJSON_GetStringValue(cJSON_GetObjectItem(it, "object"));

		if (o != NULL && cJSON_GetObjectItemCaseSensitive(set, o) == NULL)
			cJSON_AddItemToObject(set, o, cJSON_CreateTrue());
	}
}

int
ws_hist_gc(struct ws_ctx *ws, long long *dropped, long long *freed)
{
	struct ws_history *h = ws->history;
	struct ws__entry *v = NULL;
	size_t n = 0, first = 0;
	cJSON *keep = NULL;
	long long total = 0;
	time_t now = time(NULL);
	FILE *f = NULL;
	int rc, fd = -1;
	DIR *d = NULL;
	struct dirent *de;

	*dropped = *freed = 0;
	if (h == NULL)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL, "the history is off");
	if (flock(h->jfd, LOCK_EX) < 0)
		return ws__hist_io("cannot lock the journal", h->dir);
	if ((rc = ws__load(h, &v, &n)) < 0)
		goto out;
	/* Age: the first entry young enough. */
	for (; h->b.max_age > 0 && first < n; first++) {
		struct tm tm = {0};
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(v[first].begin, "time"));

		if (t == NULL || strptime(t, "%Y-%m-%dT%H:%M:%S", &tm) == NULL ||
		    now - timegm(&tm) <= h->b.max_age)
			break;
	}
	/* Bytes: the newest entries whose objects fit. */
	for (size_t i = n; h->b.max_bytes > 0 && i-- > first;) {
		const cJSON *it;
		long long sz = 0;

		cJSON_ArrayForEach(it, cJSON_GetObjectItem(v[i].begin, "before"))
			sz += (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(it, "size")) *
			      (cJSON_GetObjectItem(it, "object") != NULL ||
			       cJSON_GetObjectItem(it, "data") != NULL);
		if (total + sz > h->b.max_bytes) {
			first = i + 1;
			break;
		}
		total += sz;
	}
	*dropped = (long long)first;
	keep = cJSON_CreateObject();
	for (size_t i = first; i < n; i++) {
		ws__refs(cJSON_GetObjectItem(v[i].begin, "before"), keep);
		ws__refs(cJSON_GetObjectItem(v[i].begin, "dest_before"), keep);
	}
	if (first > 0) {
		/* The journal rewritten whole, then renamed over the old. */
		fd = openat(h->dfd, "journal.new", O_WRONLY | O_CREAT | O_TRUNC |
				    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
			rc = ws__hist_io("cannot rewrite the journal", h->dir);
			goto out;
		}
		fd = -1;
		for (size_t i = first; i < n; i++) {
			char *a = cJSON_PrintUnformatted(v[i].begin);
			char *b = v[i].done_rec ? cJSON_PrintUnformatted(v[i].done_rec) : NULL;

			if (a != NULL)
				fprintf(f, "%s\n", a);
			if (b != NULL)
				fprintf(f, "%s\n", b);
			free(a);
			free(b);
		}
		if (fflush(f) != 0 || (!h->nosync && fsync(fileno(f)) < 0) ||
		    renameat(h->dfd, "journal.new", h->dfd, "journal") < 0) {
			rc = ws__hist_io("cannot rewrite the journal", h->dir);
			goto out;
		}
	}
	if ((fd = dup(h->objfd)) >= 0 && (d = fdopendir(fd)) != NULL) {
		fd = -1;
		rewinddir(d);
		while ((de = readdir(d)) != NULL) {
			struct stat st;

			/* A temporary whose writer died (kill -9) older than a
			 * minute goes too. */
			if (strncmp(de->d_name, ".tmp-", 5) == 0) {
				if (fstatat(h->objfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				    now - st.st_mtime > 60 &&
				    unlinkat(h->objfd, de->d_name, 0) == 0)
					*freed += st.st_size;
				continue;
			}
			if (de->d_name[0] == '.' ||
			    cJSON_GetObjectItemCaseSensitive(keep, de->d_name) != NULL)
				continue;
			if (fstatat(h->objfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    unlinkat(h->objfd, de->d_name, 0) == 0)
				*freed += st.st_size;
		}
	}
out:
	if (d != NULL)
		closedir(d);
	if (fd >= 0)
		close(fd);
	if (f != NULL)
		fclose(f);
	cJSON_Delete(keep);
	ws__entries_free(v, n);
	flock(h->jfd, LOCK_UN);
	return rc;
}
