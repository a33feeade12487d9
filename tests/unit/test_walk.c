/*
 * test_walk.c - the descriptor-based directory walker (lib/walk.c).
 *
 * Each test builds a small tree in a temporary directory, walks it with
 * ws_walk() and records every callback as one line of text, so that the
 * order and the contents can be compared as strings.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wstest.h"
#include "ws/error.h"
#include "ws/policy.h"
#include "ws/vars.h"
#include "ws/walk.h"
#include "ws/workspace.h"

/* What the callbacks saw. */
struct rec {
	char log[65536];
	size_t len;
	int nentries, nerrors, last_code, last_errno;
	char errpaths[4096], last_msg[512];
	size_t nhidden;		/* leave: the directories' nhidden added up */
	/* Knobs for a test. */
	const char *skip_name;	/* entry: SKIP this name */
	const char *stop_name;	/* entry: STOP at this name */
	const char *swap_name;	/* entry: replace this dir by a symlink */
	const char *swap_target;
	const char *redir_name; /* entry: replace this dir by another dir */
	int err_rc;		/* what the error callback returns */
	bool check_at;		/* entry: openat(at_fd, at_name) must match */
	int at_mismatch;
	size_t dropped, unsorted;
};

/* Append a, b and c to the log. */
static void
logs(struct rec *r, const char *a, const char *b, const char *c)
{
	int n = snprintf(r->log + r->len, sizeof(r->log) - r->len, "%s%s%s",
			 a, b, c);

	if (n > 0 && (size_t)n < sizeof(r->log) - r->len)
		r->len += (size_t)n;
}

static int
on_enter(void *arg, const struct ws_walk_dir *d)
{
	logs(arg, "enter ", d->vpath, "\n");
	return 0;
}

static int
on_leave(void *arg, const struct ws_walk_dir *d)
{
	struct rec *r = arg;

	r->dropped += d->ndropped;
	r->unsorted += d->unsorted;
	r->nhidden += d->nhidden;
	logs(arg, "leave ", d->vpath, "\n");
	return 0;
}

static int
on_entry(void *arg, const struct ws_walk_entry *e)
{
	struct rec *r = arg;

	r->nentries++;
	logs(r, "  ", e->vpath, " ");
	logs(r, ws_walk_type(e->st.st_mode), "\n", "");
	if (r->check_at) {
		int fd = openat(e->at_fd, e->at_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;

		if (fd < 0 || fstat(fd, &st) < 0 || st.st_ino != e->st.st_ino ||
		    st.st_dev != e->st.st_dev)
			r->at_mismatch++;
		if (fd >= 0)
			close(fd);
	}
	if (r->swap_name && strcmp(e->name, r->swap_name) == 0) {
		/* The directory becomes a symlink after it was stat'ed. */
		char old[64];

		snprintf(old, sizeof(old), "%s.old", e->name);
		ck_assert_int_eq(renameat(e->at_fd, e->name, e->at_fd, old), 0);
		ck_assert_int_eq(symlinkat(r->swap_target, e->at_fd, e->name), 0);
	}
	if (r->redir_name && strcmp(e->name, r->redir_name) == 0) {
		char old[64];

		snprintf(old, sizeof(old), "%s.old", e->name);
		ck_assert_int_eq(renameat(e->at_fd, e->name, e->at_fd, old), 0);
		ck_assert_int_eq(mkdirat(e->at_fd, e->name, 0755), 0);
	}
	if (r->skip_name && strcmp(e->name, r->skip_name) == 0)
		return WS_WALK_SKIP;
	if (r->stop_name && strcmp(e->name, r->stop_name) == 0)
		return WS_WALK_STOP;
	return 0;
}

static int
on_error(void *arg, const char *vpath, const char *real, int code)
{
	struct rec *r = arg;
	size_t l = strlen(r->errpaths);

	(void)real;
	r->last_errno = errno; /* first: the walker's system error, or 0 */
	r->nerrors++;
	r->last_code = code;
	snprintf(r->last_msg, sizeof(r->last_msg), "%s", ws_error_last());
	snprintf(r->errpaths + l, sizeof(r->errpaths) - l, "%s;", vpath);
	return r->err_rc;
}

static bool
filter_no_tmp(void *arg, const struct ws_walk_dir *d, const char *name,
	      unsigned char type)
{
	(void)arg;
	(void)d;
	(void)type;
	return strstr(name, ".tmp") == NULL;
}

/* Walk dir (whose vpath is "/") with options o, recording into r. */
static int
walk(const char *dir, struct ws_walk_opts *o, struct rec *r)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc;

	ck_assert_int_ge(fd, 0);
	o->enter = on_enter;
	o->entry = on_entry;
	o->leave = on_leave;
	o->error = on_error;
	o->arg = r;
	rc = ws_walk(o, fd, "/", dir);
	close(fd);
	return rc;
}

/* A tree: b/ (x, .h), a.txt, c/ (d/ (deep)), .hidden, lnk -> c */
static char *
tree(void)
{
	char *d = wst_tmpdir();

	wst_write(d, "a.txt", "a");
	wst_write(d, "b/x", "x");
	wst_write(d, "b/.h", "h");
	wst_write(d, "c/d/deep", "deep");
	wst_write(d, ".hidden", "");
	wst_symlink("c", d, "lnk");
	return d;
}

START_TEST(order_recursive)
{
	char *d = tree();
	struct ws_walk_opts o = {.sort = WS_WALK_NAME};
	struct rec r = {0};

	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_str_eq(r.log,
			 "enter /\n"
			 "  /a.txt file\n"
			 "  /b dir\n"
			 "  /c dir\n"
			 "  /lnk symlink\n"
			 "enter /b\n"
			 "  /b/x file\n"
			 "leave /b\n"
			 "enter /c\n"
			 "  /c/d dir\n"
			 "enter /c/d\n"
			 "  /c/d/deep file\n"
			 "leave /c/d\n"
			 "leave /c\n"
			 "leave /\n");
	wst_rmrf(d);
	free(d);
}
END_TEST

START_TEST(depth_limits)
{
	char *d = tree();
	struct ws_walk_opts o = {.sort = WS_WALK_NAME, .max_depth = 1};
	struct rec r = {0};

	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_str_eq(r.log, "enter /\n  /a.txt file\n  /b dir\n  /c dir\n"
				"  /lnk symlink\nleave /\n");
	memset(&r, 0, sizeof(r));
	o.max_depth = 2;
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_ptr_nonnull(strstr(r.log, "  /c/d dir\n"));
	ck_assert_ptr_null(strstr(r.log, "deep"));
	ck_assert_ptr_null(strstr(r.log, "enter /c/d\n"));
	wst_rmrf(d);
	free(d);
}
END_TEST

START_TEST(hidden_and_filter)
{
	char *d = tree();
	struct ws_walk_opts o = {.sort = WS_WALK_NAME, .hidden = true};
	struct rec r = {0};

	wst_write(d, "junk.tmp", "");
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_ptr_nonnull(strstr(r.log, "  /.hidden file\n"));
	ck_assert_ptr_nonnull(strstr(r.log, "  /b/.h file\n"));
	ck_assert_ptr_nonnull(strstr(r.log, "  /junk.tmp file\n"));
	ck_assert_ptr_null(strstr(r.log, "/.\n"));
	ck_assert_ptr_null(strstr(r.log, "/..\n"));
	memset(&r, 0, sizeof(r));
	o.hidden = false;
	o.filter = filter_no_tmp;
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_ptr_null(strstr(r.log, "hidden"));
	ck_assert_ptr_null(strstr(r.log, "/b/.h"));
	ck_assert_ptr_null(strstr(r.log, "junk.tmp"));
	wst_rmrf(d);
	free(d);
}
END_TEST

START_TEST(skip_and_stop)
{
	char *d = tree();
	struct ws_walk_opts o = {.sort = WS_WALK_NAME};
	struct rec r = {0};

	r.skip_name = "c";
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_ptr_nonnull(strstr(r.log, "  /c dir\n"));
	ck_assert_ptr_null(strstr(r.log, "enter /c"));
	ck_assert_ptr_nonnull(strstr(r.log, "enter /b"));
	memset(&r, 0, sizeof(r));
	r.stop_name = "b";
	ck_assert_int_eq(walk(d, &o, &r), WS_WALK_STOP);
	/* Nothing after the stop: no more entries, no leave. */
	ck_assert_str_eq(r.log, "enter /\n  /a.txt file\n  /b dir\n");
	wst_rmrf(d);
	free(d);
}
END_TEST

START_TEST(symlinks_never_followed)
{
	char *d = wst_tmpdir(), *out = wst_tmpdir();
	struct ws_walk_opts o = {.sort = WS_WALK_NAME};
	struct rec r = {0};

	wst_write(out, "OUTSIDE_MARKER", "secret");
	wst_symlink(out, d, "to_out");
	wst_symlink("/", d, "to_root");
	wst_symlink("../..", d, "up");
	wst_symlink("loop", d, "loop");
	wst_mkfifo(d, "fifo");
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_ptr_null(strstr(r.log, "OUTSIDE_MARKER"));
	ck_assert_ptr_nonnull(strstr(r.log, "  /to_out symlink\n"));
	ck_assert_ptr_nonnull(strstr(r.log, "  /to_root symlink\n"));
	ck_assert_ptr_nonnull(strstr(r.log, "  /up symlink\n"));
	ck_assert_ptr_nonnull(strstr(r.log, "  /fifo other\n"));
	ck_assert_int_eq(r.nentries, 5);
	ck_assert_int_eq(r.nerrors, 0);
	wst_rmrf(d);
	wst_rmrf(out);
	free(d);
	free(out);
}
END_TEST

/* A directory replaced by a symlink to outside after it was stat'ed. */
START_TEST(swap_to_symlink_is_skipped)
{
	char *d = wst_tmpdir(), *out = wst_tmpdir();
	struct ws_walk_opts o = {.sort = WS_WALK_NAME};
	struct rec r = {0};

	wst_write(out, "OUTSIDE_MARKER", "secret");
	wst_write(d, "sub/inside", "x");
	r.swap_name = "sub";
	r.swap_target = out;
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_ptr_null(strstr(r.log, "OUTSIDE_MARKER"));
	ck_assert_ptr_null(strstr(r.log, "enter /sub"));
	ck_assert_int_eq(r.nerrors, 1);
	ck_assert_str_eq(r.errpaths, "/sub;");
	/* A race, not a system error: errno says so. */
	ck_assert_int_eq(r.last_errno, 0);
	wst_rmrf(d);
	wst_rmrf(out);
	free(d);
	free(out);
}
END_TEST

/* types_only: the same walk from d_type, and the same refusal of a swap. */
START_TEST(types_only_walk)
{
	char *d = tree(), *out = wst_tmpdir();
	struct ws_walk_opts o = {.sort = WS_WALK_NAME, .types_only = true};
	struct rec r = {0}, full = {0};

	ck_assert_int_eq(walk(d, &o, &r), 0);
	o.types_only = false;
	ck_assert_int_eq(walk(d, &o, &full), 0);
	ck_assert_str_eq(r.log, full.log);
	/* Sorting by size needs the sizes: types_only is ignored. */
	memset(&r, 0, sizeof(r));
	o.types_only = true;
	o.sort = WS_WALK_SIZE;
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_int_eq(r.nentries, full.nentries);
	/* A directory swapped for a symlink before it is entered. */
	memset(&r, 0, sizeof(r));
	o.sort = WS_WALK_NAME;
	wst_write(out, "OUTSIDE_MARKER", "secret");
	r.swap_name = "c";
	r.swap_target = out;
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_ptr_null(strstr(r.log, "OUTSIDE_MARKER"));
	ck_assert_ptr_null(strstr(r.log, "enter /c"));
	ck_assert_int_eq(r.nerrors, 1);
	ck_assert_str_eq(r.errpaths, "/c;");
	wst_rmrf(d);
	wst_rmrf(out);
	free(d);
	free(out);
}
END_TEST

/* A directory replaced by another directory: the inode check skips it. */
START_TEST(swap_to_other_dir_is_skipped)
{
	char *d = wst_tmpdir();
	struct ws_walk_opts o = {.sort = WS_WALK_NAME};
	struct rec r = {0};

	wst_write(d, "sub/inside", "x");
	r.redir_name = "sub";
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_ptr_null(strstr(r.log, "enter /sub\n"));
	ck_assert_int_eq(r.nerrors, 1);
	ck_assert_int_eq(r.last_code, WS_EIO_ERROR);
	wst_rmrf(d);
	free(d);
}
END_TEST

START_TEST(error_callback_can_abort)
{
	char *d = wst_tmpdir(), *out = wst_tmpdir();
	struct ws_walk_opts o = {.sort = WS_WALK_NAME};
	struct rec r = {0};

	wst_write(d, "sub/inside", "x");
	wst_write(d, "zzz/inside", "x");
	r.swap_name = "sub";
	r.swap_target = out;
	r.err_rc = WS_EIO_ERROR;
	ck_assert_int_eq(walk(d, &o, &r), WS_EIO_ERROR);
	ck_assert_ptr_null(strstr(r.log, "enter /zzz"));
	wst_rmrf(d);
	wst_rmrf(out);
	free(d);
	free(out);
}
END_TEST

START_TEST(at_fd_reaches_entry)
{
	char *d = tree();
	struct ws_walk_opts o = {.sort = WS_WALK_NAME, .hidden = true};
	struct rec r = {0};

	r.check_at = true;
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_int_gt(r.nentries, 5);
	ck_assert_int_eq(r.at_mismatch, 0);
	wst_rmrf(d);
	free(d);
}
END_TEST

/* Files n000..n099 with size = 100 - i and mtime = 1000 + i. */
static char *
many(int n)
{
	char *d = wst_tmpdir();

	for (int i = 0; i < n; i++) {
		char name[32], *p;
		char content[128];
		struct timespec ts[2];

		snprintf(name, sizeof(name), "n%03d", i);
		memset(content, 'x', sizeof(content));
		wst_writen(d, name, content, (size_t)(100 - i % 100));
		p = wst_path(d, name);
		ts[0].tv_sec = ts[1].tv_sec = 1000 + i;
		ts[0].tv_nsec = ts[1].tv_nsec = 0;
		utimensat(AT_FDCWD, p, ts, 0);
		free(p);
	}
	return d;
}

START_TEST(sort_orders)
{
	char *d = many(20);
	struct ws_walk_opts o = {.sort = WS_WALK_NAME, .max_depth = 1};
	struct rec r = {0};

	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_ptr_nonnull(strstr(r.log, "enter /\n  /n000 file\n  /n001 file\n"));
	memset(&r, 0, sizeof(r));
	o.sort = WS_WALK_SIZE; /* largest first: n000 has 100 bytes */
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_ptr_nonnull(strstr(r.log, "enter /\n  /n000 file\n  /n001 file\n"));
	memset(&r, 0, sizeof(r));
	o.sort = WS_WALK_MTIME; /* newest first: n019 */
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_ptr_nonnull(strstr(r.log, "enter /\n  /n019 file\n  /n018 file\n"));
	memset(&r, 0, sizeof(r));
	o.sort = WS_WALK_UNSORTED;
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_int_eq(r.nentries, 20);
	wst_rmrf(d);
	free(d);
}
END_TEST

/* strcmp order, for qsort: what the name sort must give. */
static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The name sort (keys of the first 8 bytes, then the rest) gives strcmp's
 * order, forward and reversed: names that share 8 bytes or more, that
 * end within them, that are a prefix of another, with bytes of 0x80 and
 * up (unsigned, as strcmp), in directories of 1 to 150 names (the
 * insertion sort of short runs and the merges).
 */
START_TEST(name_sort_is_strcmp_order)
{
	static const char *const base[] = {
		"a", "b", "ab", "abc", "abcdefg", "abcdefgh", "abcdefgh0",
		"abcdefgh1", "abcdefgi", "abcdefghij", "abcdefghiJ", "Z", "_",
		"file_1.txt", "file_10.txt", "file_100.txt", "file_2.txt",
		"\xc3\xa9t\xc3\xa9", "\xff", "\x7f", "0", "9", "~", "a b",
		"abcdefgh\xff", "abcdefgh\x01", "longlonglonglong_a",
		"longlonglonglong_b", "longlonglonglong",
	};
	size_t nb = sizeof(base) / sizeof(base[0]);

	for (size_t n = 1; n <= 150; n += n < 12 ? 1 : 23) {
		char *d = wst_tmpdir();
		char **names = calloc(n, sizeof(*names));

		for (size_t i = 0; i < n; i++) {
			char nm[64];

			/* Past the base set: the same names, numbered. */
			if (i < nb)
				snprintf(nm, sizeof(nm), "%s", base[i]);
			else
				snprintf(nm, sizeof(nm), "%s#%zu", base[i % nb], i / nb);
			names[i] = strdup(nm);
			wst_write(d, nm, "");
		}
		qsort(names, n, sizeof(*names), cmp_names);
		for (int rev = 0; rev < 2; rev++) {
			struct ws_walk_opts o = {.sort = WS_WALK_NAME, .max_depth = 1,
						 .hidden = true};
			struct rec r = {0};
			char *want = calloc(1, 64 * n + 64);
			size_t wl = 0;

			if (rev)
				o.sort = WS_WALK_NAME | WS_WALK_REVERSE;
			wl += (size_t)sprintf(want, "enter /\n");
			for (size_t i = 0; i < n; i++)
				wl += (size_t)sprintf(want + wl, "  /%s file\n",
						      names[rev ? n - 1 - i : i]);
			sprintf(want + wl, "leave /\n");
			ck_assert_int_eq(walk(d, &o, &r), 0);
			ck_assert_str_eq(r.log, want);
			free(want);
		}
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		wst_rmrf(d);
		free(d);
	}
}
END_TEST

/* keep_max keeps exactly the first N in sort order, whatever the
 * directory order. */
START_TEST(keep_max_heap)
{
	char *d = many(300);
	struct ws_walk_opts o = {.sort = WS_WALK_NAME, .keep_max = 7};
	struct rec r = {0};
	char want[512] = "enter /\n";

	for (int i = 0; i < 7; i++) {
		char l[32];

		snprintf(l, sizeof(l), "  /n%03d file\n", i);
		strcat(want, l);
	}
	strcat(want, "leave /\n");
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_str_eq(r.log, want);
	ck_assert_uint_eq(r.dropped, 293);
	memset(&r, 0, sizeof(r));
	o.sort = WS_WALK_MTIME;
	o.keep_max = 2;
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_str_eq(r.log, "enter /\n  /n299 file\n  /n298 file\nleave /\n");
	wst_rmrf(d);
	free(d);
}
END_TEST

/*
 * The worst case of the heap: every entry read is better than all kept
 * so far (mtimes rise in directory order), so each one evicts another and
 * the name arena must be compacted again and again.
 */
START_TEST(keep_max_evicts_in_order)
{
	char *d = wst_tmpdir();
	struct ws_walk_opts o = {.sort = WS_WALK_MTIME, .keep_max = 5,
				 .max_depth = 1};
	struct rec r = {0};
	char name[256], want[4096] = "enter /\n";
	const int n = 2000;
	int dfd, i = 0;
	DIR *dir;
	struct dirent *de;
	char (*order)[256] = calloc((size_t)n, sizeof(*order));

	dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (int k = 0; k < n; k++) {
		memset(name, 'a' + k % 26, 200);
		snprintf(name + 200, sizeof(name) - 200, "%05d", k);
		close(openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	}
	/* Rising mtimes in the order the directory gives its names. */
	dir = fdopendir(dup(dfd));
	while ((de = readdir(dir)) != NULL) {
		struct timespec ts[2] = {{100000 + i, 0}, {100000 + i, 0}};

		if (de->d_name[0] == '.')
			continue;
		ck_assert_int_eq(utimensat(dfd, de->d_name, ts, 0), 0);
		snprintf(order[i++], 256, "%s", de->d_name);
	}
	closedir(dir);
	close(dfd);
	ck_assert_int_eq(i, n);
	for (int k = n - 1; k >= n - 5; k--) {
		strcat(want, "  /");
		strcat(want, order[k]);
		strcat(want, " file\n");
	}
	strcat(want, "leave /\n");
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_str_eq(r.log, want);
	ck_assert_uint_eq(r.dropped, (size_t)n - 5);
	free(order);
	wst_rmrf(d);
	free(d);
}
END_TEST

/* Over sort_max the directory streams unsorted, and nothing is lost. */
START_TEST(sort_max_streams)
{
	char *d = many(120);
	struct ws_walk_opts o = {.sort = WS_WALK_NAME, .sort_max = 50};
	struct rec r = {0};

	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_int_eq(r.nentries, 120);
	ck_assert_uint_eq(r.unsorted, 1);
	for (int i = 0; i < 120; i++) {
		char l[32];

		snprintf(l, sizeof(l), "  /n%03d file\n", i);
		ck_assert_ptr_nonnull(strstr(r.log, l));
	}
	memset(&r, 0, sizeof(r));
	o.sort_max = 120;
	ck_assert_int_eq(walk(d, &o, &r), 0);
	ck_assert_uint_eq(r.unsorted, 0);
	wst_rmrf(d);
	free(d);
}
END_TEST

/* Mounts: shown in their parent directory, shadowing a real entry. */
START_TEST(mounts_are_entries)
{
	char *root = wst_tmpdir(), *m = wst_tmpdir(), *spec, *spec2;
	struct ws_ctx ws;
	struct ws_walk_opts o = {.sort = WS_WALK_NAME, .hidden = true};
	struct rec r = {0};
	int fd;

	wst_write(root, "file", "f");
	wst_write(root, ".skills/SHADOWED", "x");
	wst_write(root, "sub/x", "x");
	wst_write(m, "skill.md", "s");
	ck_assert_int_eq(ws_ctx_open(&ws, root, 0), 0);
	ck_assert_int_ge(asprintf(&spec, "/.skills=%s:ro", m), 0);
	ck_assert_int_ge(asprintf(&spec2, "/sub/inner=%s", m), 0);
	ck_assert_int_eq(ws_ctx_add_mount(&ws, spec), 0);
	ck_assert_int_eq(ws_ctx_add_mount(&ws, spec2), 0);
	o.ws = &ws;
	o.enter = on_enter;
	o.entry = on_entry;
	o.leave = on_leave;
	o.error = on_error;
	o.arg = &r;
	r.check_at = true;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(ws_walk(&o, fd, "/", root), 0);
	close(fd);
	ck_assert_str_eq(r.log,
			 "enter /\n"
			 "  /.skills dir\n"
			 "  /file file\n"
			 "  /sub dir\n"
			 "enter /.skills\n"
			 "  /.skills/skill.md file\n"
			 "leave /.skills\n"
			 "enter /sub\n"
			 "  /sub/inner dir\n"
			 "  /sub/x file\n"
			 "enter /sub/inner\n"
			 "  /sub/inner/skill.md file\n"
			 "leave /sub/inner\n"
			 "leave /sub\n"
			 "leave /\n");
	ck_assert_int_eq(r.at_mismatch, 0);
	/* A dot-named mount is hidden like any dot name. */
	memset(&r, 0, sizeof(r));
	o.hidden = false;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(ws_walk(&o, fd, "/", root), 0);
	close(fd);
	ck_assert_ptr_null(strstr(r.log, ".skills"));
	/* no_mounts: the real entry shows again. */
	memset(&r, 0, sizeof(r));
	o.hidden = true;
	o.no_mounts = true;
	o.max_depth = 2;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(ws_walk(&o, fd, "/", root), 0);
	close(fd);
	ck_assert_ptr_nonnull(strstr(r.log, "/.skills/SHADOWED"));
	free(spec);
	free(spec2);
	ws_ctx_close(&ws);
	wst_rmrf(root);
	wst_rmrf(m);
	free(root);
	free(m);
}
END_TEST

/* A mount of an ancestor is a loop: reported and not walked again. */
START_TEST(mount_loop_detected)
{
	char *root = wst_tmpdir(), *spec;
	struct ws_ctx ws;
	struct ws_walk_opts o = {.sort = WS_WALK_NAME};
	struct rec r = {0};
	int fd;

	wst_write(root, "a/f", "f");
	ck_assert_int_eq(ws_ctx_open(&ws, root, 0), 0);
	ck_assert_int_ge(asprintf(&spec, "/a/m=%s", root), 0);
	ck_assert_int_eq(ws_ctx_add_mount(&ws, spec), 0);
	o.ws = &ws;
	o.enter = on_enter;
	o.entry = on_entry;
	o.error = on_error;
	o.arg = &r;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(ws_walk(&o, fd, "/", root), 0);
	close(fd);
	ck_assert_int_eq(r.nerrors, 1);
	ck_assert_str_eq(r.errpaths, "/a/m;");
	ck_assert_ptr_null(strstr(r.log, "enter /a/m"));
	free(spec);
	ws_ctx_close(&ws);
	wst_rmrf(root);
	free(root);
}
END_TEST

/*
 * policy_stat: an entry the policy would not stat is neither stat'ed, nor
 * reported, nor walked, only counted; a mount too.  It takes no place in
 * keep_max.  Without policy_stat, or without a policy, all show.
 */
static int prompts;

static bool
yes_prompt(void *arg, const char *message)
{
	(void)arg;
	(void)message;
	prompts++;
	return true;
}

START_TEST(policy_stat_hides)
{
	char *root = wst_tmpdir(), *m = wst_tmpdir(), *spec, *text;
	struct ws_ctx ws;
	struct ws_vars vars;
	struct ws_walk_opts o = {.sort = WS_WALK_NAME, .hidden = true};
	struct rec r = {0};
	size_t hidden = 0;
	int fd;

	wst_write(root, "a.txt", "a");
	wst_write(root, ".env", "a much larger file than the others");
	wst_write(root, "keep/.env", "e");
	wst_write(root, "keep/k", "k");
	wst_write(root, "secret/KEY", "k");
	wst_write(root, "hid/BELOW", "b");
	wst_write(m, "MOUNTED", "m");
	ck_assert_int_eq(ws_ctx_open(&ws, root, 0), 0);
	ck_assert_int_ge(asprintf(&spec, "/mnt=%s", m), 0);
	ck_assert_int_eq(ws_ctx_add_mount(&ws, spec), 0);
	ws_vars_init(&vars);
	ck_assert_int_eq(ws_vars_set(&vars, "WORKSPACE", root), 0);
	ck_assert_int_ge(asprintf(&text,
		"{\"version\": 1, \"name\": \"t\", \"file_rules\": [\n"
		" {\"name\": \"env\", \"paths\": [\"**/.env\"], \"operations\": [\"*\"],"
		"  \"decision\": \"deny\"},\n"
		" {\"name\": \"secret\", \"paths\": [\"${WORKSPACE}/secret/**\"],"
		"  \"operations\": [\"stat\"], \"decision\": \"deny\"},\n"
		" {\"name\": \"hid\", \"paths\": [\"${WORKSPACE}/hid\"],"
		"  \"operations\": [\"stat\"], \"decision\": \"approve\"},\n"
		" {\"name\": \"mnt\", \"paths\": [\"%s\"], \"operations\": [\"stat\"],"
		"  \"decision\": \"deny\"},\n"
		" {\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
		"  \"decision\": \"allow\"}]}\n", m), 0);
	ck_assert_int_eq(ws_policy_parse(text, "t.json", &vars, &ws.policy), 0);
	/* A terminal would say yes: a listing must still never ask. */
	ws_policy_set_hooks(ws.policy, NULL, yes_prompt, NULL);
	o.ws = &ws;
	o.policy_stat = true;
	o.nhidden = &hidden;
	o.enter = on_enter;
	o.entry = on_entry;
	o.leave = on_leave;
	o.error = on_error;
	o.arg = &r;
	for (int types_only = 0; types_only < 2; types_only++) {
		memset(&r, 0, sizeof(r));
		hidden = 0;
		o.types_only = types_only;
		fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ck_assert_int_eq(ws_walk(&o, fd, "/", root), 0);
		close(fd);
		ck_assert_str_eq(r.log,
				 "enter /\n"
				 "  /a.txt file\n"
				 "  /keep dir\n"
				 "  /secret dir\n"
				 "enter /keep\n"
				 "  /keep/k file\n"
				 "leave /keep\n"
				 "enter /secret\n"
				 "leave /secret\n"
				 "leave /\n");
		ck_assert_int_eq(prompts, 0);
		/* /.env /hid /mnt /keep/.env /secret/KEY */
		ck_assert_uint_eq(hidden, 5);
		ck_assert_uint_eq(r.nhidden, 5);
		ck_assert_int_eq(r.nerrors, 0);
	}
	/* keep_max: the largest shown is not the hidden .env. */
	memset(&r, 0, sizeof(r));
	hidden = 0;
	o.types_only = false;
	o.sort = WS_WALK_SIZE;
	o.keep_max = 1;
	o.max_depth = 1;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(ws_walk(&o, fd, "/", root), 0);
	close(fd);
	ck_assert_int_eq(r.nentries, 1);
	ck_assert_ptr_null(strstr(r.log, ".env"));
	ck_assert_uint_eq(hidden, 3);
	o.sort = WS_WALK_NAME;
	o.keep_max = 0;
	o.max_depth = 0;
	/* Approved: the approval-needing one shows, and is walked. */
	memset(&r, 0, sizeof(r));
	hidden = 0;
	ws.approve = true;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(ws_walk(&o, fd, "/", root), 0);
	close(fd);
	ck_assert_ptr_nonnull(strstr(r.log, "  /hid/BELOW file\n"));
	ck_assert_uint_eq(hidden, 4);
	ws.approve = false;
	/* Not asked for: everything shows. */
	memset(&r, 0, sizeof(r));
	hidden = 0;
	o.policy_stat = false;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(ws_walk(&o, fd, "/", root), 0);
	close(fd);
	ck_assert_ptr_nonnull(strstr(r.log, "  /.env file\n"));
	ck_assert_ptr_nonnull(strstr(r.log, "  /secret/KEY file\n"));
	ck_assert_ptr_nonnull(strstr(r.log, "  /hid/BELOW file\n"));
	ck_assert_ptr_nonnull(strstr(r.log, "  /mnt/MOUNTED file\n"));
	ck_assert_uint_eq(hidden, 0);
	ck_assert_uint_eq(r.nhidden, 0);
	/* No policy: nothing to ask. */
	memset(&r, 0, sizeof(r));
	o.policy_stat = true;
	ws_policy_free(ws.policy);
	ws.policy = NULL;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(ws_walk(&o, fd, "/", root), 0);
	close(fd);
	ck_assert_ptr_nonnull(strstr(r.log, "  /.env file\n"));
	ck_assert_uint_eq(hidden, 0);
	free(text);
	free(spec);
	ws_vars_free(&vars);
	ws_ctx_close(&ws);
	wst_rmrf(root);
	wst_rmrf(m);
	free(root);
	free(m);
}
END_TEST

/*
 * Out of descriptors (the walk keeps one per level): the directory that
 * cannot be opened goes to the error callback with errno EMFILE, so that
 * a caller can tell an incomplete listing from a race.
 */
START_TEST(emfile_reported)
{
	char *d = wst_tmpdir();
	struct ws_walk_opts o = {.sort = WS_WALK_NAME};
	struct rec r = {0};
	struct rlimit old, low;
	int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	for (int i = 0; i < 80; i++) {
		int nfd;

		ck_assert_int_eq(mkdirat(fd, "d", 0755), 0);
		nfd = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ck_assert_int_ge(nfd, 0);
		close(fd);
		fd = nfd;
	}
	close(fd);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 32;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	fd = walk(d, &o, &r);
	/* The soft limit only: it goes back up. */
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	ck_assert_int_eq(fd, 0);
	ck_assert_int_eq(r.nerrors, 1);
	ck_assert_int_eq(r.last_code, WS_EIO_ERROR);
	ck_assert_int_eq(r.last_errno, EMFILE);
	ck_assert_ptr_nonnull(strstr(r.last_msg, "one descriptor open per directory level"));
	ck_assert_int_lt(r.nentries, 80);
	wst_rmrf(d);
	free(d);
}
END_TEST

START_TEST(not_a_directory)
{
	char *d = wst_tmpdir();
	struct ws_walk_opts o = {0};
	int fd;

	wst_write(d, "f", "x");
	{
		char *p = wst_path(d, "f");

		fd = open(p, O_RDONLY | O_CLOEXEC);
		free(p);
	}
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ws_walk(&o, fd, "/f", "/x/f"), WS_ENOT_A_DIRECTORY);
	close(fd);
	wst_rmrf(d);
	free(d);
}
END_TEST

START_TEST(time_format)
{
	char b[32];

	ck_assert_uint_eq(ws_walk_time(0, b), 20);
	ck_assert_str_eq(b, "1970-01-01T00:00:00Z");
	ws_walk_time(1795643380, b);
	ck_assert_str_eq(b, "2026-11-25T21:49:40Z");
	ws_walk_time(-1, b);
	ck_assert_str_eq(b, "1969-12-31T23:59:59Z");
	ws_walk_time(951782400, b); /* a leap day */
	ck_assert_str_eq(b, "2000-02-29T00:00:00Z");
	ws_walk_time(253402300799LL, b);
	ck_assert_str_eq(b, "9999-12-31T23:59:59Z");
	/* Agrees with gmtime over a range of days. */
	for (long long t = -86400LL * 800; t < 86400LL * 365 * 80; t += 86400 * 7 + 3671) {
		time_t tt = (time_t)t;
		struct tm tm;
		char want[32];

		gmtime_r(&tt, &tm);
		strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%SZ", &tm);
		ws_walk_time(t, b);
		ck_assert_str_eq(b, want);
	}
}
END_TEST

START_TEST(type_names)
{
	ck_assert_str_eq(ws_walk_type(S_IFREG | 0644), "file");
	ck_assert_str_eq(ws_walk_type(S_IFDIR | 0755), "dir");
	ck_assert_str_eq(ws_walk_type(S_IFLNK | 0777), "symlink");
	ck_assert_str_eq(ws_walk_type(S_IFIFO | 0644), "other");
	ck_assert_str_eq(ws_walk_type(S_IFSOCK | 0644), "other");
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("walk");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, order_recursive);
	tcase_add_test(tc, depth_limits);
	tcase_add_test(tc, hidden_and_filter);
	tcase_add_test(tc, skip_and_stop);
	tcase_add_test(tc, symlinks_never_followed);
	tcase_add_test(tc, swap_to_symlink_is_skipped);
	tcase_add_test(tc, swap_to_other_dir_is_skipped);
	tcase_add_test(tc, types_only_walk);
	tcase_add_test(tc, error_callback_can_abort);
	tcase_add_test(tc, at_fd_reaches_entry);
	tcase_add_test(tc, sort_orders);
	tcase_add_test(tc, name_sort_is_strcmp_order);
	tcase_add_test(tc, keep_max_heap);
	tcase_add_test(tc, keep_max_evicts_in_order);
	tcase_add_test(tc, sort_max_streams);
	tcase_add_test(tc, mounts_are_entries);
	tcase_add_test(tc, mount_loop_detected);
	tcase_add_test(tc, policy_stat_hides);
	tcase_add_test(tc, emfile_reported);
	tcase_add_test(tc, not_a_directory);
	tcase_add_test(tc, time_format);
	tcase_add_test(tc, type_names);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
