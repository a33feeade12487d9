/* pending.c - the places pending a command's revert (ws/pending.h). */
#include "ws/pending.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ws/path.h"
#include "ws/persist.h"

struct ws__pend {
	dev_t dev;
	ino_t ino;
	char *name;
	const void *owner;
};

static struct ws__pend *ws__pend;
static size_t ws__npend;
/* Read without the lock: no place pending, no work for the loaders. */
static atomic_size_t ws__npend_any;
static pthread_mutex_t ws__pend_mu = PTHREAD_MUTEX_INITIALIZER;

void
ws_pending_add(dev_t dev, ino_t ino, const char *name, const void *owner)
{
	struct ws__pend *nv;
	char *n = strdup(name);

	if (n == NULL)
		return;
	pthread_mutex_lock(&ws__pend_mu);
	if ((nv = realloc(ws__pend, (ws__npend + 1) * sizeof(*nv))) == NULL) {
		pthread_mutex_unlock(&ws__pend_mu);
		free(n);
		return;
	}
	ws__pend = nv;
	nv[ws__npend++] = (struct ws__pend){dev, ino, n, owner};
	atomic_fetch_add(&ws__npend_any, 1);
	pthread_mutex_unlock(&ws__pend_mu);
}

void
ws_pending_drop(const void *owner)
{
	size_t k = 0, had;

	if (atomic_load(&ws__npend_any) == 0)
		return;
	pthread_mutex_lock(&ws__pend_mu);
	had = ws__npend;
	for (size_t i = 0; i < ws__npend; i++) {
		if (ws__pend[i].owner == owner)
			free(ws__pend[i].name);
		else
			ws__pend[k++] = ws__pend[i];
	}
	ws__npend = k;
	atomic_fetch_sub(&ws__npend_any, had - k);
	if (k == 0) {
		free(ws__pend);
		ws__pend = NULL;
	}
	pthread_mutex_unlock(&ws__pend_mu);
}


/* ---- Across processes ------------------------------------------------- */

/*
 * A separate process (another wsread, wswrite, wsrun, a second server)
 * cannot see the list above.  A command's run publishes its own places
 * (wstools' configuration and policy places; lib/run.c) in a directory
 * of the user's state that no command reaches: a subdirectory a run,
 * holding the file "places", locked (flock) by the run for as long as it
 * lives, and by its guardian until its revert has run when wsrun is
 * killed.  A record nobody holds any more is stale (the run and its
 * guardian both died): ignored, and removed by the reader that finds it.
 * The directory's link count says that there is none (two links: "."
 * and its parent's entry), so that a call that finds a configuration
 * pays one stat() of it and nothing else.
 */

char *
ws_pending_dir(void)
{
	const char *x = getenv("XDG_STATE_HOME"), *h = getenv("HOME");
	char *pw = NULL, *d;

	if (x != NULL && x[0] == '/')
		return ws_path_join(x, "wstools/running");
	if (h != NULL && h[0] == '/')
		return ws_path_join(h, ".local/state/wstools/running");
	/* No HOME in the environment (a bare exec): the user's home. */
	if ((pw = ws_passwd_home()) == NULL || pw[0] != '/') {
		free(pw);
		return NULL;
	}
	d = ws_path_join(pw, ".local/state/wstools/running");
	free(pw);
	return d;
}

/* mkdir -p path, mode 0700, following links (the user's own base). */
static int
ws__mkdirs(const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(buf) || path[0] != '/')
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, 0700) < 0 && errno != EEXIST ? -errno : 0;
}

/*
 * The directory dir (ws_pending_dir()) opened, made first where missing:
 * the user's state directory as the environment names it (a ~/.local
 * that is stow's link is the user's), then wstools' own two components
 * (wstools/running) one by one, never through a symlink: one planted
 * there (by a command in a workspace that holds HOME) would have the
 * records, and the history beside them, made where it chose.  A
 * descriptor, or -errno.
 */
static int
ws__pending_dir_open(const char *dir)
{
	int below = 2, fd;
	char buf[PATH_MAX], *tail = NULL, *save = NULL;
	size_t n = strlen(dir);

	if (n >= sizeof(buf) || dir[0] != '/')
		return -ENAMETOOLONG;
	memcpy(buf, dir, n + 1);
	for (char *p = buf + n; p > buf && below > 0; p--)
		if (*p == '/' && --below == 0)
			tail = p;
	if (tail == NULL || tail == buf)
		return -EINVAL;
	*tail++ = '\0';
	if ((fd = ws__mkdirs(buf)) < 0)
		return fd;
	if ((fd = open(buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	for (char *c = strtok_r(tail, "/", &save); c != NULL;
	     c = strtok_r(NULL, "/", &save)) {
		int next;

		if (mkdirat(fd, c, 0700) < 0 && errno != EEXIST) {
			next = -errno;
			close(fd);
			return next;
		}
		next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return errno == ENOTDIR ? -ELOOP : -errno;
		fd = next;
	}
	return fd;
}

int
ws_pending_dir_make(const char *dir)
{
	int fd = ws__pending_dir_open(dir);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* Write all of n bytes of s to fd. */
static int
ws__write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int
ws_pending_publish(const struct ws_pending_place *v, size_t n,
		   struct ws_pending_rec *rec)
{
	char *dir = NULL, tmp[80];
	unsigned long long nonce;
	int dfd = -1, rfd = -1, pfd = -1, rc = 0;

	rec->dfd = rec->fd = -1;
	rec->name[0] = '\0';
	if (n == 0)
		return 0;
	if ((dir = ws_pending_dir()) == NULL)
		return -ENOENT;
	if ((dfd = ws__pending_dir_open(dir)) < 0) {
		rc = dfd;
		dfd = -1;
		goto out;
	}
	{
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		nonce = (unsigned long long)t.tv_nsec ^
			((unsigned long long)t.tv_sec << 20) ^
			(unsigned long long)(uintptr_t)rec;
	}
	snprintf(rec->name, sizeof(rec->name), "%ld-%llx", (long)getpid(), nonce);
	/* Made under a dot name, locked and filled, then renamed: a reader
	 * never sees a record that is not locked yet. */
	snprintf(tmp, sizeof(tmp), ".%s", rec->name);
	if (mkdirat(dfd, tmp, 0700) < 0 ||
	    (rfd = openat(dfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				     O_CLOEXEC)) < 0 ||
	    flock(rfd, LOCK_EX | LOCK_NB) < 0 ||
	    (pfd = openat(rfd, "places", O_WRONLY | O_CREAT | O_EXCL |
				       O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		rc = -errno;
		goto out;
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char head[80];
		int hl = snprintf(head, sizeof(head), "%llu %llu %zu:",
				  (unsigned long long)v[i].dev,
				  (unsigned long long)v[i].ino, strlen(v[i].name));

		if (ws__write_all(pfd, head, (size_t)hl) < 0 ||
		    ws__write_all(pfd, v[i].name, strlen(v[i].name)) < 0 ||
		    ws__write_all(pfd, "\n", 1) < 0)
			rc = errno ? -errno : -EIO;
	}
	if (rc == 0 && renameat(dfd, tmp, dfd, rec->name) < 0)
		rc = -errno;
out:
	if (pfd >= 0)
		close(pfd);
	if (rc < 0) {
		if (rfd >= 0) {
			(void)unlinkat(rfd, "places", 0);
			close(rfd);
		}
		if (dfd >= 0) {
			(void)unlinkat(dfd, tmp, AT_REMOVEDIR);
			close(dfd);
		}
		rec->name[0] = '\0';
		free(dir);
		return rc;
	}
	rec->dfd = dfd;
	rec->fd = rfd;
	free(dir);
	return 0;
}

/* How long a record may take to be made (seconds): one older, never
 * renamed to its name, is a dead run's (ws__published()). */
#define WS__REC_MADE_S 60

/* Remove the record name below dfd (its places file, then itself). */
static void
ws__rec_remove(int dfd, const char *name)
{
	int rfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (rfd >= 0) {
		(void)unlinkat(rfd, "places", 0);
		close(rfd);
	}
	(void)unlinkat(dfd, name, AT_REMOVEDIR);
}

void
ws_pending_unpublish(struct ws_pending_rec *rec)
{
	if (rec->dfd >= 0 && rec->name[0] != '\0')
		ws__rec_remove(rec->dfd, rec->name);
	/* Others may hold the same open file (a guardian, forked): the
	 * lock goes with the record, not when the last copy is closed. */
	if (rec->fd >= 0) {
		(void)flock(rec->fd, LOCK_UN);
		close(rec->fd);
	}
	if (rec->dfd >= 0)
		close(rec->dfd);
	rec->dfd = rec->fd = -1;
	rec->name[0] = '\0';
}

/* Parse one record's places into *v (appended). */
static void
ws__rec_parse(const char *text, struct ws__pend **v, size_t *n)
{
	const char *p = text;

	while (*p != '\0') {
		unsigned long long dev, ino;
		size_t len;
		char *end, *name;
		struct ws__pend *nv;

		dev = strtoull(p, &end, 10);
		if (end == p || *end != ' ')
			return;
		p = end + 1;
		ino = strtoull(p, &end, 10);
		if (end == p || *end != ' ')
			return;
		p = end + 1;
		len = (size_t)strtoull(p, &end, 10);
		if (end == p || *end != ':' || len == 0 || len > NAME_MAX ||
		    strnlen(end + 1, len + 1) < len + 1 || end[1 + len] != '\n')
			return;
		p = end + 1;
		if ((name = strndup(p, len)) == NULL ||
		    (nv = realloc(*v, (*n + 1) * sizeof(*nv))) == NULL) {
			free(name);
			return;
		}
		*v = nv;
		nv[(*n)++] = (struct ws__pend){(dev_t)dev, (ino_t)ino, name, NULL};
		p += len + 1;
	}
}

/*
 * The places of the runs that live now, other processes' and this
 * one's alike, into *v: nothing but one stat() when the directory holds
 * no record (or does not exist).
 */
static void
ws__published(struct ws__pend **v, size_t *n)
{
	char *dir = ws_pending_dir();
	struct dirent *e;
	struct stat st;
	DIR *d;

	*v = NULL;
	*n = 0;
	if (dir == NULL)
		return;
	/* Two links: no record (a file system that does not count them
	 * says 1: read it). */
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_nlink == 2 ||
	    (d = opendir(dir)) == NULL) {
		free(dir);
		return;
	}
	free(dir);
	while ((e = readdir(d)) != NULL) {
		char *text = NULL;
		int rfd;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		rfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY |
				 O_NOFOLLOW | O_CLOEXEC);
		if (rfd < 0)
			continue;
		/*
		 * A record being made (ws_pending_publish(): a dot name until
		 * it is locked and filled) is not read.  One nobody holds
		 * and older than WS__REC_MADE_S was left by a run killed while
		 * making it: removed, or every call would read this directory
		 * for it (its link count no longer says there is none).
		 */
		if (e->d_name[0] == '.') {
			struct stat rs;

			if (fstat(rfd, &rs) == 0 &&
			    rs.st_mtim.tv_sec + WS__REC_MADE_S < time(NULL) &&
			    flock(rfd, LOCK_EX | LOCK_NB) == 0) {
				close(rfd);
				ws__rec_remove(dirfd(d), e->d_name);
				continue;
			}
			close(rfd);
			continue;
		}
		if (flock(rfd, LOCK_EX | LOCK_NB) == 0) {
			/* Nobody holds it: its run and guardian are gone. */
			close(rfd);
			ws__rec_remove(dirfd(d), e->d_name);
			continue;
		}
		{
			int pfd = openat(rfd, "places", O_RDONLY | O_NOFOLLOW |
					 O_NONBLOCK | O_CLOEXEC);
			struct stat ps;

			if (pfd >= 0 && fstat(pfd, &ps) == 0 && S_ISREG(ps.st_mode) &&
			    ps.st_size < (1 << 20) &&
			    (text = malloc((size_t)ps.st_size + 1)) != NULL) {
				ssize_t r = pread(pfd, text, (size_t)ps.st_size, 0);

				text[r > 0 ? r : 0] = '\0';
			}
			if (pfd >= 0)
				close(pfd);
		}
		close(rfd);
		if (text != NULL)
			ws__rec_parse(text, v, n);
		free(text);
	}
	closedir(d);
}

/* Whether (dev, ino, name) is one of the n places of v. */
static bool
ws__in(const struct ws__pend *v, size_t n, const struct stat *st, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].dev == st->st_dev && v[i].ino == st->st_ino &&
		    strcmp(v[i].name, name) == 0)
			return true;
	return false;
}

bool
ws_pending_has(const char *path)
{
	char buf[PATH_MAX], *save = NULL, *c;
	struct ws__pend *pub = NULL;
	size_t npub = 0;
	bool hit = false;
	int fd;

	if (strlen(path) >= sizeof(buf))
		return false;
	ws__published(&pub, &npub);
	if (atomic_load(&ws__npend_any) == 0 && npub == 0)
		return false;
	snprintf(buf, sizeof(buf), "%s", path);
	/* Each directory on the way, as the open that follows finds it. */
	fd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (c = strtok_r(buf, "/", &save); fd >= 0 && c != NULL && !hit;
	     c = strtok_r(NULL, "/", &save)) {
		struct stat st;
		int nfd;

		if (fstat(fd, &st) < 0)
			break;
		hit = ws__in(pub, npub, &st, c);
		pthread_mutex_lock(&ws__pend_mu);
		hit = hit || ws__in(ws__pend, ws__npend, &st, c);
		pthread_mutex_unlock(&ws__pend_mu);
		nfd = openat(fd, c, O_PATH | O_CLOEXEC);
		close(fd);
		fd = nfd;
	}
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < npub; i++)
		free(pub[i].name);
	free(pub);
	return hit;
}
