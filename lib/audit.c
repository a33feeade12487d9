/*
 * audit.c - the audit log: one hash-chained JSON line per call
 * (ws/audit.h).  A call costs an openat2() with no symlink allowed on the
 * way (so that guarding the log's name needs no readlink() a component)
 * and an fstat() when it starts (one lstat() in a process that keeps the
 * log open), and a getpid(), flock(), pread() of the log's tail, write()
 * and close() when it ends: seven system calls, each half a microsecond
 * to three in a process that has just started (issue 22).  The close()
 * is the unlock, but where another descriptor may share the open file
 * (a log kept open, one lent to the guardian of a command).
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ws/audit.h"
#include "ws/call.h"
#include "ws/error.h"
#include "ws/json.h"
#include "ws/sha256.h"

/* The last member of every line, with its closing brace and newline. */
#define WS__HASH_KEY ",\"hash\":\""
#define WS__TAIL (sizeof(WS__HASH_KEY) - 1 + WS_SHA256_HEX + 3)

/*
 * A log kept open across calls (ws_audit_keep_open()): the descriptor,
 * the identity of the file it was opened on, and how many calls (and the
 * cache) hold it.  The threads share one open file description, on which
 * flock() does not exclude one thread from another: ws__write_mu does.
 */
struct ws__log {
	int fd;
	dev_t dev;
	ino_t ino;
	unsigned refs; /* under ws__cache_mu */
};

static pthread_mutex_t ws__cache_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ws__write_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	/* Read without the lock by every call: a call of a process that
	 * does not keep the log touches no mutex (nor binds its symbols). */
	atomic_bool on;
	char *path;	     /* the one log kept open (the first one asked for) */
	struct ws__log *log; /* NULL: none open yet, or it was replaced */
} ws__cache;

struct ws_audit {
	char *path;	  /* path and tool: in the allocation after the struct */
	int fd;		  /* -1: best effort and not writable */
	struct ws__log *log; /* the shared log fd is, or NULL: fd is the call's */
	off_t size;	  /* the log's size when the call opened it */
	bool plain;	  /* no symlink on the way to it when opened */
	bool created;	  /* this call made the file (ws_audit_discard()) */
	int dirfd;	  /* where it made it, while created; else -1 */
	char *base;	  /* the name it made there (in the allocation) */
	bool lent;	  /* ws_audit_fd() was asked: another may hold it */
	bool best_effort;
	bool emitted;
	char *tool;
	const char *approver; /* "tty", "elicitation", or NULL */
	const char *env_fe;   /* WS_FRONTEND when the call opened the log */
	/* The decision the line names: the first refusal, else the first
	 * change, else the first decision.  Kept as plain copies, not a
	 * cJSON object: every check of a call comes here (issue 22); the
	 * copies share one allocation, op's, unless separate (a refusal
	 * before any check, a line loaded by the guardian). */
	struct {
		char *op, *vpath, *real, *policy, *rule;
		const char *decision, *by; /* static strings */
		bool asked, given;
		bool separate;
	} d;
	/* 3 refusal, 2 change, 1 other, 0 none; times two, plus one where
	 * a person was asked (ws_audit_decision()). */
	int rank;
	long long checks; /* every decision seen */
	/* The members the tool added (ws_audit_set_str() ...), as the
	 * line's text: each ,"key":value in ex, where an entry of at
	 * says (a cJSON object was ten allocations for three members;
	 * issue 22).  A key set again retires its earlier entry. */
	struct ws_jbuf ex, at;
	/* The line's buffer: allocated when the call opens the log, while
	 * the allocator is in the cache (at the end of a call, a malloc
	 * missed it), and filled when the call ends (issue 22). */
	struct ws_jbuf line;
	int code;
};

void
ws_audit_set_frontend(const char *name)
{
	ws_call_current()->frontend = name;
}

const char *
ws_audit_path(const char *flag, const char *config)
{
	const char *e = getenv("WS_AUDIT");

	if (flag != NULL)
		return flag[0] ? flag : NULL;
	if (e != NULL)
		return e[0] ? e : NULL;
	return config != NULL && config[0] ? config : NULL;
}

/* Drop a reference to a shared log; the last one closes it. */
static void
ws__log_put(struct ws__log *l)
{
	bool last;

	if (l == NULL)
		return;
	pthread_mutex_lock(&ws__cache_mu);
	last = --l->refs == 0;
	pthread_mutex_unlock(&ws__cache_mu);
	if (last) {
		close(l->fd);
		free(l);
	}
}

void
ws_audit_forked(void)
{
	pthread_mutex_init(&ws__cache_mu, NULL);
	pthread_mutex_init(&ws__write_mu, NULL);
}

void
ws_audit_keep_open(bool on)
{
	struct ws__log *l;
	char *p;

	pthread_mutex_lock(&ws__cache_mu);
	atomic_store(&ws__cache.on, on);
	l = ws__cache.log;
	p = ws__cache.path;
	if (!on) {
		ws__cache.log = NULL;
		ws__cache.path = NULL;
	}
	pthread_mutex_unlock(&ws__cache_mu);
	if (!on) {
		ws__log_put(l);
		free(p);
	}
}

/* Set once openat2() turned out not to be there (ENOSYS). */
static atomic_bool ws__no_openat2;

/* open(path, fl, 0600) with no symlink allowed on the way; -1 and errno. */
static int
ws__open_nosym(const char *path, int fl)
{
	struct open_how how = {
		.flags = (unsigned)fl,
		.mode = (fl & O_CREAT) ? 0600 : 0,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	if (atomic_load(&ws__no_openat2)) {
		errno = ENOSYS;
		return -1;
	}
	fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		atomic_store(&ws__no_openat2, true);
	return fd;
}

/*
 * Make the log path names that is not there: in its directory, opened
 * first (with no symlink on the way where it can be), so that the file
 * made is known by that directory's descriptor and its name in it, kept
 * in *dirfd for ws_audit_discard() (a removal by the whole name again
 * could be led elsewhere by a directory swapped meanwhile).  -1 and
 * errno; EEXIST when another process made it first.
 */
static int
ws__make_log(const char *path, int fl, int *dirfd)
{
	const char *sl = strrchr(path, '/');
	char *dir = sl == NULL ? strdup(".") :
		    strndup(path, sl == path ? 1 : (size_t)(sl - path));
	const char *base = sl == NULL ? path : sl + 1;
	int d, fd = -1, e;

	if (dir == NULL) {
		errno = ENOMEM;
		return -1;
	}
	d = ws__open_nosym(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (d < 0 && (errno == ELOOP || errno == ENOSYS))
		d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	e = errno;
	free(dir);
	if (d < 0) {
		errno = e;
		return -1;
	}
	fd = openat(d, base, fl | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		e = errno;
		close(d);
		errno = e;
		return -1;
	}
	*dirfd = d;
	return fd;
}

/*
 * Open the log for appending, its status in *st; -1 and errno when it
 * cannot be, EINVAL when it is not a regular file (a FIFO or a device
 * would block or lose the chain).  O_CREAT only when the file is not
 * there: an open() that may create takes the directory's lock.  Opened
 * with no symlink allowed on the way first (*plain set): then the
 * entries its name passes through are its spelling, and guarding them
 * costs no readlink() a component (ws_ctx_guard_file(); issue 22).  A
 * symlink on the way (ELOOP), or a kernel without openat2(), opens it
 * as before.
 *
 * O_NOATIME where the log is ours: a log's access time is always older
 * than its change time (each line changes it), so under relatime every
 * pread() of its tail would update it, dirtying the inode (a journal
 * transaction on ext4) that the line's write() dirties again: 0.4 to
 * 0.7 us a call (issue 22).  A log of another owner refuses the flag
 * (EPERM) and is opened without it.
 */
static int
ws__open_log(const char *path, struct stat *st, bool *plain, bool *created,
	     int *dirfd)
{
	int fl = O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
	int fd = ws__open_nosym(path, fl | O_NOATIME);

	/*
	 * Made with O_EXCL, so that *created says this call made it: a log
	 * refused after (its real name in the workspace) is removed again
	 * only then (ws_audit_discard()).  Another process making it
	 * meanwhile (EEXIST) is an open as any other.
	 */
	*created = false;
	*dirfd = -1;
	if (fd < 0 && errno == EPERM)
		fd = ws__open_nosym(path, fl);
	if (fd < 0 && errno == ENOENT) {
		fd = ws__make_log(path, fl, dirfd);
		*created = fd >= 0;
		if (fd < 0 && errno == EEXIST)
			fd = ws__open_nosym(path, fl);
		/* Made through a symlinked directory: not "plain" below. */
		if (fd >= 0 && *created) {
			int t = ws__open_nosym(path, O_PATH | O_CLOEXEC);
			struct stat a, b;

			*plain = t >= 0 && fstat(t, &a) == 0 && fstat(fd, &b) == 0 &&
				 a.st_dev == b.st_dev && a.st_ino == b.st_ino;
			if (t >= 0)
				close(t);
			goto made;
		}
	}
	*plain = fd >= 0;
	if (fd < 0)
		fd = open(path, fl | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = open(path, fl);
	if (fd < 0 && errno == ENOENT) {
		fd = ws__make_log(path, fl, dirfd);
		*created = fd >= 0;
		if (fd < 0 && errno == EEXIST)
			fd = open(path, fl);
	}
made:
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		if (*dirfd >= 0)
			close(*dirfd);
		*dirfd = -1;
		*created = false;
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/*
 * The log of a process that keeps it open: the cached descriptor while
 * the file at path is still the one it was opened on (an lstat() each
 * call: a log renamed away, removed or replaced -- rotated -- is noticed
 * and the file now at path opened), else a new one, cached for the next
 * call.  Another path than the cached one gets a descriptor of its own.
 */
static int
ws__open_kept(struct ws_audit *a, const char *path)
{
	struct ws__log *l = NULL, *old = NULL;
	struct stat st;
	bool plain;
	int fd;

	if (lstat(path, &st) == 0) {
		pthread_mutex_lock(&ws__cache_mu);
		if ((l = ws__cache.log) != NULL && l->dev == st.st_dev &&
		    l->ino == st.st_ino && strcmp(ws__cache.path, path) == 0)
			l->refs++;
		else
			l = NULL;
		pthread_mutex_unlock(&ws__cache_mu);
		if (l != NULL) {
			a->log = l;
			a->fd = l->fd;
			a->size = st.st_size;
			return 0;
		}
	}
	if ((fd = ws__open_log(path, &st, &plain, &a->created, &a->dirfd)) < 0)
		return -1;
	a->fd = fd;
	a->plain = plain;
	a->size = st.st_size;
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return 0; /* the call's own, then */
	l->fd = fd;
	l->dev = st.st_dev;
	l->ino = st.st_ino;
	l->refs = 1;
	pthread_mutex_lock(&ws__cache_mu);
	if (atomic_load(&ws__cache.on) && ws__cache.path == NULL)
		ws__cache.path = strdup(path);
	if (atomic_load(&ws__cache.on) && ws__cache.path != NULL &&
	    strcmp(ws__cache.path, path) == 0) {
		old = ws__cache.log;
		ws__cache.log = l;
		l->refs++;
	}
	pthread_mutex_unlock(&ws__cache_mu);
	a->log = l;
	ws__log_put(old);
	return 0;
}

int
ws_audit_open(const char *path, const char *tool, bool best_effort,
	      struct ws_audit **out)
{
	size_t pl = strlen(path) + 1, tl = strlen(tool ? tool : "") + 1;
	/* The struct and its two strings in one allocation: each malloc()
	 * of a call that has just started is a few cache misses. */
	struct ws_audit *a = calloc(1, sizeof(*a) + pl + tl);
	struct stat st;
	int e = 0;

	*out = NULL;
	if (a != NULL) {
		a->path = memcpy((char *)(a + 1), path, pl);
		a->tool = memcpy(a->path + pl, tool ? tool : "", tl);
		a->base = strrchr(a->path, '/') ? strrchr(a->path, '/') + 1 : a->path;
		a->dirfd = -1;
	}
	if (a == NULL || !ws_jbuf_reserve(&a->line, 1024)) {
		if (a != NULL)
			a->fd = -1;
		ws_audit_free(a);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	a->best_effort = best_effort;
	/* Read among the other variables the call reads as it starts,
	 * while they are in the cache (a scan of the environment at the
	 * end of a call was half a microsecond). */
	a->env_fe = getenv("WS_FRONTEND");
	if (atomic_load(&ws__cache.on)) {
		a->fd = -1;
		if (ws__open_kept(a, path) < 0)
			e = errno;
	} else if ((a->fd = ws__open_log(path, &st, &a->plain, &a->created,
					 &a->dirfd)) < 0) {
		e = errno;
	} else {
		a->size = st.st_size;
	}
	if (a->fd < 0 && !best_effort) {
		ws_audit_free(a);
		return ws_error_set(WS_EIO_ERROR, path,
				    "cannot open the audit log: %s (set "
				    "\"audit_best_effort\": true in the "
				    "configuration to go on without it)",
				    e == EINVAL ? "not a regular file" : strerror(e));
	}
	*out = a;
	return 0;
}

void
ws_audit_discard(struct ws_audit *a)
{
	struct stat mine, there;

	/*
	 * Only the empty file this call made, and only while its name in
	 * the directory it was made in still leads to it: a log that was
	 * there, or one another process wrote to or put in its place
	 * meanwhile, stays.  By that directory's descriptor, not by name:
	 * a directory on the way swapped for a link since would lead a
	 * removal by name elsewhere.
	 */
	if (a != NULL && a->created && a->fd >= 0 && a->dirfd >= 0 &&
	    fstat(a->fd, &mine) == 0 && mine.st_size == 0 &&
	    fstatat(a->dirfd, a->base, &there, AT_SYMLINK_NOFOLLOW) == 0 &&
	    there.st_dev == mine.st_dev && there.st_ino == mine.st_ino)
		(void)unlinkat(a->dirfd, a->base, 0);
	ws_audit_free(a);
}

bool
ws_audit_writable(const struct ws_audit *a)
{
	return a != NULL && a->fd >= 0;
}

int
ws_audit_fd(struct ws_audit *a)
{
	if (a == NULL)
		return -1;
	a->lent = true;
	return a->fd;
}

bool
ws_audit_plain(const struct ws_audit *a)
{
	return ws_audit_writable(a) && a->plain;
}

void
ws_audit_set_approver(struct ws_audit *a, const char *who)
{
	if (a != NULL)
		a->approver = who;
}

static bool
ws__is_change(const char *op)
{
	static const char *const ro[] = {"read", "open", "stat", "list",
					 "readlink", "exec"};

	for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++)
		if (strcmp(op, ro[i]) == 0)
			return false;
	return true;
}

/* Free the decision's copies (one allocation, op's, or each its own). */
static void
ws__decision_clear(struct ws_audit *a)
{
	free(a->d.op);
	if (a->d.separate) {
		free(a->d.vpath);
		free(a->d.real);
		free(a->d.policy);
		free(a->d.rule);
	}
	memset(&a->d, 0, sizeof(a->d));
}

/* A copy of s (or NULL) at *o, which moves past it. */
static char *
ws__copy(char **o, const char *s, size_t n)
{
	char *c = *o;

	if (s == NULL)
		return NULL;
	memcpy(c, s, n);
	*o += n;
	return c;
}

void
ws_audit_decision(struct ws_audit *a, const char *op, const char *real,
		  const char *vpath, const char *policy, const char *rule,
		  const char *decision, enum ws_audit_approval appr, int code)
{
	size_t ol, vl, rl, pl, ul;
	char *o;
	int rank;

	if (a == NULL)
		return;
	/*
	 * The line keeps one decision: the first of the highest rank.  Of
	 * two of one kind, the one a person was asked about wins, or a
	 * move -f whose replaced destination's delete was approved was
	 * logged as the plain rename before it, "asked": false (review20
	 * 01).
	 */
	rank = (code < 0 ? 3 : ws__is_change(op) ? 2 : 1) * 2 +
	       (appr != WS_AUDIT_NOT_ASKED);
	a->checks++;
	if (rank <= a->rank)
		return;
	ws__decision_clear(a);
	ol = strlen(op) + 1;
	vl = vpath ? strlen(vpath) + 1 : 0;
	rl = real ? strlen(real) + 1 : 0;
	pl = policy ? strlen(policy) + 1 : 0;
	ul = rule ? strlen(rule) + 1 : 0;
	/* Out of memory leaves the names out of the line. */
	if ((o = malloc(ol + vl + rl + pl + ul)) != NULL) {
		a->d.op = ws__copy(&o, op, ol);
		a->d.vpath = ws__copy(&o, vpath, vl);
		a->d.real = ws__copy(&o, real, rl);
		a->d.policy = ws__copy(&o, policy, pl);
		a->d.rule = ws__copy(&o, rule, ul);
	}
	a->d.decision = decision;
	a->d.asked = appr != WS_AUDIT_NOT_ASKED;
	a->d.given = appr == WS_AUDIT_BY_FLAG || appr == WS_AUDIT_BY_PROMPT;
	a->d.by = appr == WS_AUDIT_BY_FLAG ? "flag" :
		  appr == WS_AUDIT_BY_PROMPT ? (a->approver ? a->approver : "tty") :
					       NULL;
	a->rank = rank;
}

void
ws_audit_refusal(struct ws_audit *a, const char *op, const char *path,
		 int code)
{
	/* Not a decision of a rule: no "checked" or "decision", only
	 * what was asked, and only where no check is named already. */
	if (a == NULL || code >= 0 || a->rank > 0 || path == NULL ||
	    a->d.vpath != NULL)
		return;
	ws__decision_clear(a);
	a->d.separate = true;
	a->d.vpath = strdup(path);
	a->d.op = op != NULL ? strdup(op) : NULL;
}

static void ws__key(struct ws_jbuf *b, const char *key);
static void ws__name(struct ws_jbuf *b, const char *key, const char *s);

/* Where a member stands in ex: ,"key": is its first klen bytes. */
struct ws__member {
	size_t off, klen, len;
	bool gone; /* set again later */
};

/*
 * Add the member key with the value v (a string, else what item is;
 * neither: null) to the call's members: a string as ws__name() writes
 * a name (but "operation", which is the tool's word, as it is), any
 * other value as cJSON would print it.  Out of memory leaves it out:
 * a member is only listed once its text is whole.
 */
static void
ws__set(struct ws_audit *a, const char *key, const char *v, const cJSON *item)
{
	struct ws__member m = {a->ex.n, 0, 0, false}, *e;
	size_t n;

	/* Small to start with (jbuf's 1 KiB reached into untouched heap
	 * pages: a page fault each, more than the members cost). */
	if (a->ex.cap == 0 && (a->ex.p = malloc(256)) != NULL)
		a->ex.cap = 256;
	if (a->at.cap == 0 && (a->at.p = malloc(8 * sizeof(m))) != NULL)
		a->at.cap = 8 * sizeof(m);
	ws__key(&a->ex, key);
	m.klen = a->ex.n - m.off;
	if (v != NULL && strcmp(key, "operation") == 0)
		ws_jbuf_str(&a->ex, v);
	else if (v != NULL)
		ws__name(&a->ex, key, v);
	else if (item != NULL)
		ws_jbuf_item(&a->ex, item);
	else
		ws_jbuf_lit(&a->ex, "null");
	if (a->ex.oom)
		return;
	m.len = a->ex.n - m.off;
	e = (struct ws__member *)(void *)a->at.p;
	n = a->at.n / sizeof(*e);
	for (size_t i = 0; i < n; i++)
		if (e[i].klen == m.klen &&
		    memcmp(a->ex.p + e[i].off, a->ex.p + m.off, m.klen) == 0)
			e[i].gone = true;
	/* Whole structs from the buffer's start (malloc()'s alignment). */
	ws_jbuf_put(&a->at, (const char *)&m, sizeof(m));
}

void
ws_audit_set_str(struct ws_audit *a, const char *key, const char *v)
{
	if (a != NULL)
		ws__set(a, key, v, NULL);
}

void
ws_audit_set_int(struct ws_audit *a, const char *key, long long v)
{
	/* As a cJSON number, which the member was before. */
	cJSON num = {.type = cJSON_Number, .valuedouble = (double)v};

	if (a != NULL)
		ws__set(a, key, NULL, &num);
}

void
ws_audit_set_json(struct ws_audit *a, const char *key, const char *json)
{
	cJSON *v;

	if (a == NULL || json == NULL || (v = ws_json_parse(json, WS_JSON_STR, NULL, false)) == NULL)
		return;
	ws__set(a, key, cJSON_IsString(v) ? v->valuestring : NULL, v);
	cJSON_Delete(v);
}

void
ws_audit_outcome(struct ws_audit *a, int code)
{
	if (a != NULL)
		a->code = code;
}

/* How much of the log's end one pread() takes: the last line as the call
 * found the log when it started, and what other writers added since. */
#define WS__WINDOW 4096

/*
 * The hash the log's last line ends with, or 64 zeros (an empty log,
 * or a last line not of ours: verify then finds the break there).
 * Called under the lock, so that the log's end does not move: one
 * pread() from where the last line ended when the call opened the log
 * (size) reads to the end -- a read shorter than asked for ends there --
 * unless others wrote more than the window since, or the log shrank:
 * then an fstat() says where its end is.
 */
static void
ws__prev(int fd, off_t size, char prev[WS_SHA256_HEX + 1])
{
	char buf[WS__WINDOW];
	off_t off = size > (off_t)WS__TAIL ? size - (off_t)WS__TAIL : 0;
	ssize_t n = pread(fd, buf, sizeof(buf), off);
	static const char zeros[WS_SHA256_HEX + 1] =
		"0000000000000000000000000000000000000000000000000000000000000000";
	const char *tail;
	struct stat st;

	memcpy(prev, zeros, sizeof(zeros));
	if (n == (ssize_t)sizeof(buf) || (n < (ssize_t)WS__TAIL && off > 0)) {
		if (fstat(fd, &st) < 0 || st.st_size < (off_t)WS__TAIL)
			return;
		n = pread(fd, buf, WS__TAIL, st.st_size - (off_t)WS__TAIL);
	}
	if (n < (ssize_t)WS__TAIL)
		return;
	tail = buf + n - WS__TAIL;
	if (memcmp(tail, WS__HASH_KEY, sizeof(WS__HASH_KEY) - 1) != 0 ||
	    memcmp(tail + WS__TAIL - 3, "\"}\n", 3) != 0)
		return;
	memcpy(prev, tail + sizeof(WS__HASH_KEY) - 1, WS_SHA256_HEX);
}

/* n as w digits into o. */
static char *
ws__digits(char *o, long long n, int w)
{
	for (int i = w - 1; i >= 0; i--, n /= 10)
		o[i] = (char)('0' + n % 10);
	return o + w;
}

/*
 * ts as 2026-11-27T18:51:28.269123Z (UTC), by hand: gmtime_r, strftime
 * and snprintf were a few thousand instructions and three lazy symbol
 * bindings of a call's audit line (issue 22), and glibc's gmtime_r()
 * loads /etc/localtime (tzset) the first time, which no UTC time needs.  Days to a civil date
 * after Howard Hinnant's days_from_civil inverse (proleptic Gregorian).
 */
void
ws_audit_time(const struct timespec *ts, char out[32])
{
	long long secs = (long long)ts->tv_sec, days = secs / 86400,
		  sod = secs % 86400;
	long long z, era, doe, yoe, y, doy, mp, d, m;
	char *o = out;

	if (sod < 0) {
		sod += 86400;
		days--;
	}
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	y = yoe + era * 400 + (m <= 2);
	o = ws__digits(o, y, 4);
	*o++ = '-';
	o = ws__digits(o, m, 2);
	*o++ = '-';
	o = ws__digits(o, d, 2);
	*o++ = 'T';
	o = ws__digits(o, sod / 3600, 2);
	*o++ = ':';
	o = ws__digits(o, sod / 60 % 60, 2);
	*o++ = ':';
	o = ws__digits(o, sod % 60, 2);
	*o++ = '.';
	o = ws__digits(o, ts->tv_nsec / 1000, 6);
	*o++ = 'Z';
	*o = '\0';
}

/* ,"key": for a key spelled here, which needs no escaping. */
#define WS__LKEY(b, key) ws_jbuf_lit((b), ",\"" key "\":")

/* ,"key": */
static void
ws__key(struct ws_jbuf *b, const char *key)
{
	ws_jbuf_lit(b, ",");
	ws_jbuf_str(b, key);
	ws_jbuf_lit(b, ":");
}

/*
 * "s" after ,"key": for a name or a command, which may hold any bytes:
 * valid UTF-8 as it is, else U+FFFD for each bad byte and the exact
 * bytes in base64 under "<key>_bytes" (DESIGN.md 4, as the tools' JSON
 * writes a name: ws_jw_kname()), so that the line stays valid JSON and
 * loses nothing.
 */
static void
ws__name(struct ws_jbuf *b, const char *key, const char *s)
{
	size_t n = strlen(s);

	if (ws_jbuf_text(b, s, n))
		return;
	ws_jbuf_lit(b, ",\"");
	ws_jbuf_put(b, key, strlen(key));
	ws_jbuf_lit(b, "_bytes\":");
	ws_jbuf_base64(b, s, n);
}

/*
 * The line is written as text straight into a buffer (what
 * cJSON_PrintUnformatted() made of a tree of copies before: two thirds
 * of what a line cost; issue 22), up to the "prev" member, which is only
 * known under the lock.
 */
int
ws_audit_emit(struct ws_audit *a, int exit_status)
{
	char now[40], prev[WS_SHA256_HEX + 1], hash[WS_SHA256_HEX + 1];
	const char *fe = ws_call_current()->frontend;
	struct ws_jbuf b;
	struct timespec ts;
	const struct ws__member *mem;
	size_t len, i, nmem, op;
	ssize_t w;
	int rc = 0, e = 0;

	if (a == NULL || a->emitted)
		return 0;
	a->emitted = true;
	if (a->fd < 0)
		return 0;
	if (fe == NULL && (fe = a->env_fe) == NULL)
		fe = "cli";
	clock_gettime(CLOCK_REALTIME, &ts);
	ws_audit_time(&ts, now);
	/* The buffer the call's open reserved, the line's from now on. */
	b = a->line;
	memset(&a->line, 0, sizeof(a->line));
	/* The time and the member names need no escaping. */
	ws_jbuf_lit(&b, "{\"time\":\"");
	ws_jbuf_put(&b, now, strlen(now));
	ws_jbuf_lit(&b, "\"");
	WS__LKEY(&b, "frontend");
	ws_jbuf_str(&b, fe);
	WS__LKEY(&b, "tool");
	ws_jbuf_str(&b, a->tool);
	WS__LKEY(&b, "pid");
	ws_jbuf_int(&b, (long long)getpid());
	/* The tool's own name for what it did, else the decision's. */
	mem = (const struct ws__member *)(const void *)a->at.p;
	nmem = a->at.n / sizeof(*mem);
	for (i = 0; i < nmem; i++)
		if (!mem[i].gone && mem[i].klen == sizeof(",\"operation\":") - 1 &&
		    memcmp(a->ex.p + mem[i].off, ",\"operation\":", mem[i].klen) == 0)
			break;
	op = i < nmem ? i : SIZE_MAX;
	if (op != SIZE_MAX) {
		ws_jbuf_put(&b, a->ex.p + mem[op].off, mem[op].len);
	} else if (a->d.op != NULL) {
		WS__LKEY(&b, "operation");
		ws_jbuf_str(&b, a->d.op);
	}
	if (a->rank > 0) {
		/* The members, in the order the cJSON object had them. */
		if (a->d.op != NULL) {
			WS__LKEY(&b, "checked");
			ws_jbuf_str(&b, a->d.op);
		}
		if (a->d.vpath != NULL) {
			WS__LKEY(&b, "path");
			ws__name(&b, "path", a->d.vpath);
		}
		if (a->d.real != NULL) {
			WS__LKEY(&b, "real_path");
			ws__name(&b, "real_path", a->d.real);
		}
		if (a->d.policy != NULL) {
			WS__LKEY(&b, "policy");
			ws_jbuf_str(&b, a->d.policy);
		}
		if (a->d.rule != NULL) {
			WS__LKEY(&b, "rule");
			ws_jbuf_str(&b, a->d.rule);
		}
		WS__LKEY(&b, "decision");
		ws_jbuf_str(&b, a->d.decision ? a->d.decision : "");
		ws_jbuf_lit(&b, ",\"approval\":{\"asked\":");
		if (a->d.asked)
			ws_jbuf_lit(&b, "true,\"given\":");
		else
			ws_jbuf_lit(&b, "false,\"given\":");
		if (a->d.given)
			ws_jbuf_lit(&b, "true");
		else
			ws_jbuf_lit(&b, "false");
		if (a->d.by != NULL) {
			ws_jbuf_lit(&b, ",\"by\":");
			ws_jbuf_str(&b, a->d.by);
		}
		ws_jbuf_lit(&b, "}");
	} else if (a->d.vpath != NULL) {
		/* A refusal before any check (ws_audit_refusal()). */
		WS__LKEY(&b, "path");
		ws__name(&b, "path", a->d.vpath);
	}
	WS__LKEY(&b, "checks");
	ws_jbuf_int(&b, a->checks);
	for (i = 0; i < nmem; i++)
		if (!mem[i].gone && i != op)
			ws_jbuf_put(&b, a->ex.p + mem[i].off, mem[i].len);
	WS__LKEY(&b, "outcome");
	ws_jbuf_str(&b, a->code < 0 ? ws_error_name(a->code) : "OK");
	WS__LKEY(&b, "exit_status");
	ws_jbuf_int(&b, exit_status);
	ws_jbuf_lit(&b, ",\"prev\":\"");
	/* Room for the chain: prev, '"', the tail (and the NUL). */
	if (!ws_jbuf_reserve(&b, WS_SHA256_HEX + 1 + WS__TAIL))
		goto nomem;
	len = b.n;
	/* The threads of a process that keeps the log open share its open
	 * file description, which flock() does not tell apart. */
	if (a->log != NULL)
		pthread_mutex_lock(&ws__write_mu);
	if (flock(a->fd, LOCK_EX) < 0) {
		e = errno;
		if (a->log != NULL)
			pthread_mutex_unlock(&ws__write_mu);
		goto io;
	}
	ws__prev(a->fd, a->size, prev);
	memcpy(b.p + len, prev, WS_SHA256_HEX);
	len += WS_SHA256_HEX;
	b.p[len++] = '"';
	ws_sha256_hex(b.p, len, hash);
	memcpy(b.p + len, WS__HASH_KEY, sizeof(WS__HASH_KEY) - 1);
	len += sizeof(WS__HASH_KEY) - 1;
	memcpy(b.p + len, hash, WS_SHA256_HEX);
	len += WS_SHA256_HEX;
	memcpy(b.p + len, "\"}\n", 3);
	len += 3;
	w = write(a->fd, b.p, len);
	e = errno;
	/*
	 * The close() of the last descriptor of an open file releases its
	 * lock: one system call fewer (issue 22).  That is the call's own
	 * descriptor in a process of one call, which nobody else was given
	 * (O_CLOEXEC: no program run inherits it; the children wsrun
	 * forks close it first of all).  A log kept open for other calls,
	 * one whose descriptor a forked process holds as well
	 * (ws_audit_fd(): the guardian of a command, which may outlive
	 * this close), or any in a process that keeps logs open (wstools
	 * mcp: its inits made ahead of a call hold copies of what was open
	 * then) would stay locked by that other reference: it is unlocked.
	 */
	if (a->log == NULL && !a->lent && !atomic_load(&ws__cache.on)) {
		close(a->fd);
		a->fd = -1;
	} else {
		flock(a->fd, LOCK_UN);
	}
	if (a->log != NULL)
		pthread_mutex_unlock(&ws__write_mu);
	if (w != (ssize_t)len) {
		if (w >= 0)
			e = ENOSPC;
		goto io;
	}
	goto out;
io:
	if (!a->best_effort)
		rc = ws_error_set(WS_EIO_ERROR, a->path,
				  "cannot write the audit log: %s", strerror(e));
	goto out;
nomem:
	if (!a->best_effort)
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
out:
	free(b.p);
	return rc;
}

void
ws_audit_free(struct ws_audit *a)
{
	if (a == NULL)
		return;
	if (a->log != NULL)
		ws__log_put(a->log);
	else if (a->fd >= 0)
		close(a->fd);
	if (a->dirfd >= 0)
		close(a->dirfd);
	ws__decision_clear(a);
	free(a->ex.p);
	free(a->at.p);
	free(a->line.p);
	free(a);
}

/* Check one line (without its newline) against the previous hash. */
static const char *
ws__verify_line(const char *l, size_t n, char prev[WS_SHA256_HEX + 1])
{
	size_t pk = sizeof(",\"prev\":\"") - 1, hk = sizeof(WS__HASH_KEY) - 1;
	char hash[WS_SHA256_HEX + 1];
	size_t body;

	if (n < pk + hk + 2 * WS_SHA256_HEX + 3 || l[n - 1] != '}' ||
	    l[n - 2] != '"')
		return "not a line of the audit log";
	body = n - 2 - WS_SHA256_HEX - hk;
	if (memcmp(l + body, WS__HASH_KEY, hk) != 0 ||
	    memcmp(l + body - 1 - WS_SHA256_HEX - pk, ",\"prev\":\"", pk) != 0)
		return "not a line of the audit log";
	ws_sha256_hex(l, body, hash);
	if (memcmp(hash, l + body + hk, WS_SHA256_HEX) != 0)
		return "the line was changed (its hash does not match)";
	if (memcmp(prev, l + body - 1 - WS_SHA256_HEX, WS_SHA256_HEX) != 0)
		return "a line before it was removed, added or changed "
		       "(its \"prev\" is not the previous line's hash)";
	memcpy(prev, hash, WS_SHA256_HEX);
	return NULL;
}

int
ws_audit_check(const char *path, const char *expect, struct ws_audit_verdict *v)
{
	char prev[WS_SHA256_HEX + 1];
	char *l = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	memset(v, 0, sizeof(*v));
	memset(prev, '0', WS_SHA256_HEX);
	prev[WS_SHA256_HEX] = '\0';
	if ((f = fopen(path, "re")) == NULL)
		return ws_error_set(WS_EIO_ERROR, path, "cannot read the audit log: %s",
				    strerror(errno));
	while ((n = getline(&l, &cap, f)) > 0) {
		const char *w;
		size_t pk = sizeof(",\"prev\":\"") - 1, hk = sizeof(WS__HASH_KEY) - 1;

		++v->lines;
		if (v->bad != 0)
			continue;
		if (l[n - 1] != '\n')
			w = "the last line is cut short";
		else
			w = ws__verify_line(l, (size_t)n - 1, prev);
		/* The first line's "prev", read where the check found it. */
		if (v->lines == 1 && (size_t)n > 2 * WS_SHA256_HEX + hk + pk + 3 &&
		    (w == NULL || strncmp(w, "a line before", 13) == 0))
			memcpy(v->first_prev, l + (size_t)n - 1 - 2 - WS_SHA256_HEX -
				       hk - 1 - WS_SHA256_HEX, WS_SHA256_HEX);
		if (w != NULL) {
			v->bad = v->lines;
			v->why = w;
			continue;
		}
		memcpy(v->last_hash, prev, WS_SHA256_HEX + 1);
		if (expect != NULL && v->expect_at == 0 &&
		    strcmp(expect, prev) == 0)
			v->expect_at = v->lines;
	}
	free(l);
	fclose(f);
	return 0;
}

int
ws_audit_verify(const char *path, size_t *lines, size_t *bad, const char **why)
{
	struct ws_audit_verdict v;
	int rc = ws_audit_check(path, NULL, &v);

	*lines = v.lines;
	*bad = v.bad;
	if (why != NULL)
		*why = v.why;
	return rc;
}

/* ---- A call's line handed to another process -------------------------- */

/* key: s, or null. */
static void
ws__save_str(cJSON *o, const char *key, const char *s)
{
	cJSON_AddItemToObject(o, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

char *
ws_audit_save(const struct ws_audit *a)
{
	cJSON *o = cJSON_CreateObject();
	char *t = NULL;

	if (a == NULL || o == NULL) {
		cJSON_Delete(o);
		return NULL;
	}
	ws__save_str(o, "path", a->path);
	ws__save_str(o, "tool", a->tool);
	cJSON_AddBoolToObject(o, "best_effort", a->best_effort);
	ws__save_str(o, "approver", a->approver);
	ws__save_str(o, "frontend", ws_call_current()->frontend ?
				    ws_call_current()->frontend : a->env_fe);
	ws__save_str(o, "op", a->d.op);
	ws__save_str(o, "vpath", a->d.vpath);
	ws__save_str(o, "real", a->d.real);
	ws__save_str(o, "policy", a->d.policy);
	ws__save_str(o, "rule", a->d.rule);
	ws__save_str(o, "decision", a->d.decision);
	ws__save_str(o, "by", a->d.by);
	cJSON_AddBoolToObject(o, "asked", a->d.asked);
	cJSON_AddBoolToObject(o, "given", a->d.given);
	cJSON_AddNumberToObject(o, "rank", a->rank);
	cJSON_AddNumberToObject(o, "checks", (double)a->checks);
	cJSON_AddNumberToObject(o, "code", a->code);
	/* The members as their line text, each with its key's length. */
	{
		const struct ws__member *mem =
			(const struct ws__member *)(const void *)a->at.p;
		size_t nmem = a->at.n / sizeof(*mem);
		cJSON *arr = cJSON_AddArrayToObject(o, "members");

		for (size_t i = 0; arr != NULL && i < nmem; i++) {
			cJSON *one;
			char *txt;

			if (mem[i].gone || (txt = strndup(a->ex.p + mem[i].off,
							  mem[i].len)) == NULL)
				continue;
			if ((one = cJSON_CreateArray()) != NULL) {
				cJSON_AddItemToArray(one, cJSON_CreateNumber(
					(double)mem[i].klen));
				cJSON_AddItemToArray(one, cJSON_CreateString(txt));
				cJSON_AddItemToArray(arr, one);
			}
			free(txt);
		}
	}
	t = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return t;
}

/*
 * The static strings of a loaded line (decision, approver, frontend)
 * point into its parsed state, kept for the rest of the process (a
 * guardian writes one line or a few, then ends).
 */
static cJSON *ws__loaded[64];
static size_t ws__nloaded;

/* key's string in o, copied (own) or borrowed, or NULL. */
static const char *
ws__load_str(const cJSON *o, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(it) ? it->valuestring : NULL;
}

static char *
ws__load_dup(const cJSON *o, const char *key)
{
	const char *s = ws__load_str(o, key);

	return s != NULL ? strdup(s) : NULL;
}

int
ws_audit_load(const char *saved, struct ws_audit **out)
{
	cJSON *o = ws_json_parse(saved, WS_JSON_STR, NULL, false), *extra;
	const char *path = ws__load_str(o, "path");
	struct ws_audit *a = NULL;
	int rc;

	*out = NULL;
	if (o == NULL || path == NULL || ws__nloaded >= sizeof(ws__loaded) /
					   sizeof(ws__loaded[0])) {
		cJSON_Delete(o);
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL, "not a saved audit line");
	}
	rc = ws_audit_open(path, ws__load_str(o, "tool"),
			   cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "best_effort")),
			   &a);
	if (rc < 0) {
		cJSON_Delete(o);
		return rc;
	}
	ws__loaded[ws__nloaded++] = o;
	a->approver = ws__load_str(o, "approver");
	if (ws__load_str(o, "frontend") != NULL)
		a->env_fe = ws__load_str(o, "frontend");
	a->d.separate = true;
	a->d.op = ws__load_dup(o, "op");
	a->d.vpath = ws__load_dup(o, "vpath");
	a->d.real = ws__load_dup(o, "real");
	a->d.policy = ws__load_dup(o, "policy");
	a->d.rule = ws__load_dup(o, "rule");
	a->d.decision = ws__load_str(o, "decision");
	a->d.by = ws__load_str(o, "by");
	a->d.asked = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "asked"));
	a->d.given = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "given"));
	a->rank = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "rank"));
	a->checks = (long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "checks"));
	a->code = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "code"));
	/* The members' text back, as ws__set() left it. */
	cJSON_ArrayForEach(extra, cJSON_GetObjectItemCaseSensitive(o, "members")) {
		const cJSON *kl = cJSON_GetArrayItem(extra, 0);
		const char *txt = cJSON_GetStringValue(cJSON_GetArrayItem(extra, 1));
		struct ws__member m = {a->ex.n, 0, 0, false};

		if (!cJSON_IsNumber(kl) || txt == NULL || kl->valuedouble < 0 ||
		    (size_t)kl->valuedouble > strlen(txt))
			continue;
		ws_jbuf_put(&a->ex, txt, strlen(txt));
		if (a->ex.oom)
			break;
		m.klen = (size_t)kl->valuedouble;
		m.len = strlen(txt);
		ws_jbuf_put(&a->at, (const char *)&m, sizeof(m));
	}
	*out = a;
	return 0;
}
