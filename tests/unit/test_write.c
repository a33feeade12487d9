/*
 * test_write.c - unit tests for lib/write.c: the unified diff (checked by
 * applying it back), exact-text edits, base64 decoding, atomic
 * replacement (mode kept, no temporary left, failure under RLIMIT_FSIZE
 * leaves the old file), and the operations on a real workspace, including
 * a race against a directory swapped for a symlink to outside.
 */
#include "wstest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/json.h"
#include "ws/policy.h"
#include "ws/vars.h"
#include "ws/version.h"
#include "ws/workspace.h"
#include "ws/write.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* ------------------------------------------------------------------ */
/* A small unified-diff applier, to check diffs by what they do.        */

struct lines {
	char **l;
	size_t n;
};

static void
split(const char *s, size_t len, struct lines *out)
{
	out->l = NULL;
	out->n = 0;
	for (size_t k = 0; k < len;) {
		const char *e = memchr(s + k, '\n', len - k);
		size_t m = e ? (size_t)(e - (s + k)) + 1 : len - k;

		out->l = realloc(out->l, (out->n + 1) * sizeof(char *));
		out->l[out->n++] = strndup(s + k, m);
		k += m;
	}
}

static void
lines_free(struct lines *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->l[i]);
	free(x->l);
}

static void
emit(char **buf, size_t *n, const char *s)
{
	size_t m = strlen(s);

	*buf = realloc(*buf, *n + m + 1);
	memcpy(*buf + *n, s, m);
	*n += m;
	(*buf)[*n] = '\0';
}

/* Apply diff to a; return the result (NULL if the diff does not fit a). */
static char *
apply(const char *a, size_t alen, const char *diff, size_t *outlen)
{
	struct lines al, dl;
	char *out = calloc(1, 1);
	size_t n = 0, cur = 0, i = 0;
	bool ok = true;

	split(a, alen, &al);
	split(diff, strlen(diff), &dl);
	if (dl.n >= 2 && strncmp(dl.l[0], "--- ", 4) == 0 &&
	    strncmp(dl.l[1], "+++ ", 4) == 0)
		i = 2;
	while (ok && i < dl.n) {
		unsigned long os, oc = 1, ns, nc = 1;
		size_t start;

		if (sscanf(dl.l[i], "@@ -%lu,%lu +%lu", &os, &oc, &ns) != 3) {
			oc = 1;
			if (sscanf(dl.l[i], "@@ -%lu +%lu", &os, &ns) != 2 &&
			    sscanf(dl.l[i], "@@ -%lu +%lu,%lu", &os, &ns, &nc) != 3) {
				ok = false;
				break;
			}
		}
		start = oc == 0 ? os : os - 1;
		for (; cur < start && cur < al.n; cur++)
			emit(&out, &n, al.l[cur]);
		for (i++; i < dl.n && dl.l[i][0] != '@'; i++) {
			char *t = strdup(dl.l[i] + 1);
			char c = dl.l[i][0];

			if (c == '\\') {
				free(t);
				continue;
			}
			if (i + 1 < dl.n && dl.l[i + 1][0] == '\\') {
				size_t tl = strlen(t);

				if (tl && t[tl - 1] == '\n')
					t[tl - 1] = '\0';
			}
			if (c == '+') {
				emit(&out, &n, t);
			} else if (cur < al.n && strcmp(al.l[cur], t) == 0) {
				if (c == ' ')
					emit(&out, &n, t);
				cur++;
			} else {
				ok = false;
			}
			free(t);
		}
	}
	for (; ok && cur < al.n; cur++)
		emit(&out, &n, al.l[cur]);
	lines_free(&al);
	lines_free(&dl);
	if (!ok) {
		free(out);
		return NULL;
	}
	*outlen = n;
	return out;
}

static char *
diff_of(const char *a, const char *b, size_t cap, bool *trunc)
{
	char *d;
	size_t dn;
	bool t;

	ck_assert_int_eq(ws_diff_unified(a, strlen(a), b, strlen(b), "/x", "/x",
					 cap, &d, &dn, &t), 0);
	ck_assert_uint_eq(strlen(d), dn);
	if (trunc)
		*trunc = t;
	return d;
}

/* ------------------------------------------------------------------ */
/* Diff                                                                 */

START_TEST(diff_equal_is_empty)
{
	char *d = diff_of("a\nb\n", "a\nb\n", WS_DIFF_CAP, NULL);

	ck_assert_str_eq(d, "");
	free(d);
}
END_TEST

START_TEST(diff_one_change)
{
	char *d = diff_of("1\n2\n3\n4\n5\n6\n7\n8\n9\n",
			  "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n", WS_DIFF_CAP, NULL);

	ck_assert_str_eq(d, "--- /x\n+++ /x\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n"
			 "-5\n+FIVE\n 6\n 7\n 8\n");
	free(d);
}
END_TEST

START_TEST(diff_new_file_and_no_newline)
{
	char *d;
	size_t dn;
	bool t;

	ck_assert_int_eq(ws_diff_unified("", 0, "hi", 2, "/dev/null", "/n", 100,
					 &d, &dn, &t), 0);
	ck_assert_str_eq(d, "--- /dev/null\n+++ /n\n@@ -0,0 +1 @@\n+hi\n"
			 "\\ No newline at end of file\n");
	free(d);
	d = diff_of("a\nb", "a\nb\n", WS_DIFF_CAP, NULL);
	ck_assert_str_eq(d, "--- /x\n+++ /x\n@@ -1,2 +1,2 @@\n a\n-b\n"
			 "\\ No newline at end of file\n+b\n");
	free(d);
	/* Everything removed. */
	d = diff_of("a\nb\n", "", WS_DIFF_CAP, NULL);
	ck_assert_str_eq(d, "--- /x\n+++ /x\n@@ -1,2 +0,0 @@\n-a\n-b\n");
	free(d);
}
END_TEST

START_TEST(diff_two_hunks_and_merge)
{
	char a[512] = "", b[512] = "", *d;

	for (int i = 1; i <= 30; i++) {
		char l[16];

		snprintf(l, sizeof(l), "%d\n", i);
		strcat(a, l);
		strcat(b, i == 3 || i == 25 ? "X\n" : l);
	}
	d = diff_of(a, b, WS_DIFF_CAP, NULL);
	ck_assert_str_eq(d, "--- /x\n+++ /x\n"
			 "@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+X\n 4\n 5\n 6\n"
			 "@@ -22,7 +22,7 @@\n 22\n 23\n 24\n-25\n+X\n 26\n 27\n 28\n");
	free(d);
	/* Changes 6 lines apart share one hunk (contexts touch). */
	b[0] = '\0';
	for (int i = 1; i <= 30; i++) {
		char l[16];

		snprintf(l, sizeof(l), "%d\n", i);
		strcat(b, i == 10 || i == 17 ? "X\n" : l);
	}
	d = diff_of(a, b, WS_DIFF_CAP, NULL);
	ck_assert_ptr_nonnull(strstr(d, "@@ -7,14 +7,14 @@\n"));
	ck_assert_ptr_null(strstr(strstr(d, "\n@@ ") + 1, "\n@@ "));
	free(d);
}
END_TEST

START_TEST(diff_binary_and_cap)
{
	char *d;
	size_t dn;
	bool t;
	char big[20000];

	ck_assert_int_eq(ws_diff_unified("a\0b", 3, "a", 1, "/b", "/b", 100, &d,
					 &dn, &t), 0);
	ck_assert_str_eq(d, "Binary files /b and /b differ\n");
	free(d);
	for (size_t i = 0; i < sizeof(big) - 1; i++)
		big[i] = i % 10 == 9 ? '\n' : 'x';
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(ws_diff_unified("", 0, big, strlen(big), "/a", "/b", 1000,
					 &d, &dn, &t), 0);
	ck_assert(t);
	ck_assert_uint_le(dn, 1000);
	ck_assert_uint_gt(dn, 900);
	ck_assert_int_eq(d[dn - 1], '\n'); /* cut at a line boundary */
	free(d);
}
END_TEST

/* Random files and edits: the diff applied to a must give b. */
START_TEST(diff_random_roundtrip)
{
	unsigned seed = 12345;

	for (int iter = 0; iter < 3000; iter++) {
		char a[4096] = "", b[4096] = "", *d, *res;
		int na = (int)(rand_r(&seed) % 40);
		size_t rn;
		bool t;

		for (int i = 0; i < na; i++) {
			char l[8];

			snprintf(l, sizeof(l), "%c\n", 'a' + rand_r(&seed) % 4);
			strcat(a, l);
		}
		/* b: a with random deletions, insertions and changes. */
		for (const char *p = a; *p; p += 2) {
			int op = (int)(rand_r(&seed) % 8);
			char l[8];

			if (op == 0)
				continue;
			if (op == 1) {
				snprintf(l, sizeof(l), "%c\n", 'a' + rand_r(&seed) % 5);
				strcat(b, l);
			}
			if (op != 2) {
				size_t bl = strlen(b);

				b[bl] = p[0];
				b[bl + 1] = p[1];
				b[bl + 2] = '\0';
			} else {
				snprintf(l, sizeof(l), "%c\n", 'e' + rand_r(&seed) % 2);
				strcat(b, l);
			}
		}
		if (iter % 3 == 0 && strlen(b) > 0)
			b[strlen(b) - 1] = '\0'; /* no final newline */
		if (iter % 5 == 0 && strlen(a) > 0)
			a[strlen(a) - 1] = '\0';
		d = diff_of(a, b, 1 << 20, &t);
		ck_assert(!t);
		res = apply(a, strlen(a), d, &rn);
		ck_assert_msg(res != NULL, "diff does not apply:\n%s", d);
		ck_assert_msg(rn == strlen(b) && memcmp(res, b, rn) == 0,
			      "a=\n%s\nb=\n%s\ndiff=\n%s\ngot=\n%s", a, b, d, res);
		free(res);
		free(d);
	}
}
END_TEST

/* Past the effort bound the diff is coarse, but still correct. */
START_TEST(diff_large_rewrite_fallback)
{
	size_t n = 3000 * 8;
	char *a = calloc(1, n + 1), *b = calloc(1, n + 1), *d, *res;
	size_t rn;
	bool t;
	unsigned seed = 7;

	for (int i = 0; i < 3000; i++) {
		char l[16];

		snprintf(l, sizeof(l), "%06u\n", rand_r(&seed) % 1000000);
		strcat(a, l);
		snprintf(l, sizeof(l), "%06u\n", rand_r(&seed) % 1000000);
		strcat(b, l);
	}
	d = diff_of(a, b, 1 << 24, &t);
	ck_assert(!t);
	res = apply(a, strlen(a), d, &rn);
	ck_assert_ptr_nonnull(res);
	ck_assert(rn == strlen(b) && memcmp(res, b, rn) == 0);
	free(res);
	free(d);
	free(a);
	free(b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Edit, base64                                                         */

START_TEST(edit_cases)
{
	char *o;
	size_t n, c;

	ck_assert_int_eq(ws_edit_replace("hello world", 11, "world", 5, "there", 5,
					 false, &o, &n, &c), 0);
	ck_assert_str_eq(o, "hello there");
	ck_assert_uint_eq(n, 11);
	ck_assert_uint_eq(c, 1);
	free(o);
	ck_assert_int_eq(ws_edit_replace("abc", 3, "x", 1, "y", 1, false, &o, &n,
					 &c), WS_EEDIT_NO_MATCH);
	ck_assert_ptr_null(o);
	ck_assert_int_eq(ws_edit_replace("a-a-a", 5, "a", 1, "bb", 2, false, &o,
					 &n, &c), WS_EEDIT_AMBIGUOUS);
	ck_assert_uint_eq(c, 3);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "3 times"));
	ck_assert_int_eq(ws_edit_replace("a-a-a", 5, "a", 1, "bb", 2, true, &o,
					 &n, &c), 0);
	ck_assert_str_eq(o, "bb-bb-bb");
	ck_assert_uint_eq(c, 3);
	free(o);
	/* Matches do not overlap: "aaa" holds one "aa". */
	ck_assert_int_eq(ws_edit_replace("aaa", 3, "aa", 2, "", 0, false, &o, &n,
					 &c), 0);
	ck_assert_str_eq(o, "a");
	free(o);
	ck_assert_int_eq(ws_edit_replace("abc", 3, "", 0, "x", 1, true, &o, &n,
					 &c), WS_EINVALID_ARGUMENT);
	/* Shrinking to nothing. */
	ck_assert_int_eq(ws_edit_replace("xyz", 3, "xyz", 3, "", 0, false, &o, &n,
					 &c), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_str_eq(o, "");
	free(o);
}
END_TEST

/*
 * The result of an edit is capped at WS_EDIT_MAX like its input, checked
 * before it is allocated: 1 MiB of "a" each replaced by 64 bytes is
 * exactly the cap, by 65 one MiB over.
 */
START_TEST(edit_result_capped)
{
	size_t n = 1 << 20, on, c;
	char *text = malloc(n), repl[65], *o;

	memset(text, 'a', n);
	memset(repl, 'b', sizeof(repl));
	ck_assert_int_eq(ws_edit_replace(text, n, "a", 1, repl, 64, true, &o, &on,
					 &c), 0);
	ck_assert_uint_eq(on, WS_EDIT_MAX);
	ck_assert_uint_eq(c, n);
	free(o);
	ck_assert_int_eq(ws_edit_replace(text, n, "a", 1, repl, 65, true, &o, &on,
					 &c), WS_EFILE_TOO_LARGE);
	ck_assert_ptr_null(o);
	ck_assert_msg(strstr(ws_error_last(), "68157440 bytes") != NULL, "%s",
		      ws_error_last());
	/* Shrinking a large text stays fine. */
	ck_assert_int_eq(ws_edit_replace(text, n, "aa", 2, "", 0, true, &o, &on,
					 &c), 0);
	ck_assert_uint_eq(on, 0);
	free(o);
	free(text);
}
END_TEST

START_TEST(b64_cases)
{
	const unsigned char data[] = {0, 1, 2, 0xff, 0xfe, 'a', 0, 'z'};
	char *enc = ws_base64(data, sizeof(data));
	void *out;
	size_t n;

	ck_assert_int_eq(ws_b64_decode(enc, &out, &n), 0);
	ck_assert_uint_eq(n, sizeof(data));
	ck_assert_int_eq(memcmp(out, data, n), 0);
	free(out);
	free(enc);
	ck_assert_int_eq(ws_b64_decode("aGk", &out, &n), 0); /* no padding */
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(memcmp(out, "hi", 2), 0);
	free(out);
	ck_assert_int_eq(ws_b64_decode("_-8=", &out, &n), 0); /* URL-safe */
	ck_assert_uint_eq(n, 2);
	free(out);
	ck_assert_int_eq(ws_b64_decode("a*b=", &out, &n), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_b64_decode("aGk=aGk=", &out, &n), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_b64_decode("a", &out, &n), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_b64_decode("", &out, &n), 0);
	ck_assert_uint_eq(n, 0);
	free(out);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Atomic replacement                                                   */

static int
count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static bool
has_temp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		if (strstr(e->d_name, ".wswrite-") != NULL)
			found = true;
	closedir(d);
	return found;
}

START_TEST(atomic_replace_keeps_mode)
{
	char *dir = wst_tmpdir(), *p = wst_path(dir, "f"), *s;
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	wst_write(dir, "f", "old");
	chmod(p, 0640);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(ws_write_atomic(dfd, "f", "new content", 11, &st, 0), 0);
	s = wst_slurp(p, NULL);
	ck_assert_str_eq(s, "new content");
	free(s);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	ck_assert(!has_temp(dir));
	/* A new file: 0666 less the umask. */
	umask(027);
	ck_assert_int_eq(ws_write_atomic(dfd, "g", "x", 1, NULL, WS_ATOMIC_NOREPLACE), 0);
	free(p);
	p = wst_path(dir, "g");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	/* NOREPLACE refuses an existing name and leaves no temporary. */
	ck_assert_int_eq(ws_write_atomic(dfd, "g", "yy", 2, NULL, WS_ATOMIC_NOREPLACE),
			 WS_EALREADY_EXISTS);
	s = wst_slurp(p, NULL);
	ck_assert_str_eq(s, "x");
	free(s);
	ck_assert(!has_temp(dir));
	/* A name at the length limit still gets a temporary that fits. */
	{
		char longname[256];

		memset(longname, 'n', 255);
		longname[255] = '\0';
		ck_assert_int_eq(ws_write_atomic(dfd, longname, "z", 1, NULL, 0), 0);
		ck_assert(!has_temp(dir));
	}
	close(dfd);
	wst_rmrf(dir);
	free(p);
	free(dir);
}
END_TEST

START_TEST(atomic_replace_fsize_failure)
{
	char *dir = wst_tmpdir(), *p = wst_path(dir, "f"), *s;
	pid_t pid;
	int status;

	wst_write(dir, "f", "old content");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit rl = {1000, 1000};
		int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		static char big[8192];
		struct stat st;
		int rc1, rc2;

		memset(big, 'B', sizeof(big));
		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		fstatat(dfd, "f", &st, 0);
		rc1 = ws_write_atomic(dfd, "f", big, sizeof(big), &st, 0);
		rc2 = ws_write_atomic(dfd, "new", big, sizeof(big), NULL, 0);
		/* Freed so that a leak checker (valgrind) does not change
		 * this child's exit status. */
		free(p);
		free(dir);
		_exit(rc1 == WS_EFILE_TOO_LARGE && rc2 == WS_EFILE_TOO_LARGE ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	s = wst_slurp(p, NULL);
	ck_assert_str_eq(s, "old content");
	free(s);
	ck_assert(!has_temp(dir));
	free(p);
	p = wst_path(dir, "new");
	ck_assert(!wst_exists(p));
	wst_rmrf(dir);
	free(p);
	free(dir);
}
END_TEST

/*
 * The named temporary file (the fallback where O_TMPFILE is missing): a
 * SIGTERM while it is being written removes it, and the process still
 * dies of the signal.  A child writes 200 MB; once the temporary file
 * shows up, it gets SIGTERM.
 */
START_TEST(atomic_named_sigterm)
{
	char *dir = wst_tmpdir(), *p = wst_path(dir, "f"), *s;
	bool seen = false;
	pid_t pid;
	int status;

	wst_write(dir, "f", "old content");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		size_t n = 200u << 20;
		char *big = malloc(n);
		int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		struct stat st;

		if (big == NULL)
			_exit(2);
		memset(big, 'B', n);
		signal(SIGTERM, SIG_DFL);
		fstatat(dfd, "f", &st, 0);
		ws_write_atomic(dfd, "f", big, n, &st, WS_ATOMIC_NAMED);
		_exit(3); /* too fast: the parent never saw the file */
	}
	for (int i = 0; i < 2000000 && !seen; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		seen = has_temp(dir);
	}
	ck_assert_msg(seen, "never saw the temporary file");
	kill(pid, SIGTERM);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
		      "status %d", status);
	ck_assert(!has_temp(dir));
	s = wst_slurp(p, NULL);
	ck_assert_str_eq(s, "old content");
	free(s);
	wst_rmrf(dir);
	free(p);
	free(dir);
}
END_TEST

/* How many named temporary files dir holds. */
static int
count_temps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		if (strstr(e->d_name, ".wswrite-") != NULL)
			n++;
	closedir(d);
	return n;
}

/* One of atomic_named_sigterm_threads' writers: f<k>, over and over. */
struct big_writer {
	int dfd, k;
	const char *data;
	size_t n;
};

static void *
big_writer_main(void *arg)
{
	struct big_writer *w = arg;
	char name[8];

	snprintf(name, sizeof(name), "f%d", w->k);
	for (;;)
		ws_write_atomic(w->dfd, name, w->data, w->n, NULL,
				WS_ATOMIC_NAMED | WS_ATOMIC_NOSYNC);
	return NULL;
}

/*
 * Several threads of one process (the calls of wstools mcp) each writing
 * through a named temporary file: a SIGTERM removes every one of them,
 * not only the last armed, and the process dies of it.
 */
START_TEST(atomic_named_sigterm_threads)
{
	enum { NW = 3, ROUNDS = 4 };
	char *dir = wst_tmpdir();

	/* A few rounds: where it fails, it fails at some moments only. */
	for (int r = 0; r < ROUNDS; r++) {
		bool seen = false;
		pid_t pid;
		int status;

		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			static struct big_writer w[NW];
			size_t n = 32u << 20;
			char *big = malloc(n);
			int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
			pthread_t t;

			if (big == NULL)
				_exit(2);
			memset(big, 'B', n);
			signal(SIGTERM, SIG_DFL);
			for (int k = 0; k < NW; k++) {
				w[k] = (struct big_writer){dfd, k, big, n};
				if (pthread_create(&t, NULL, big_writer_main, &w[k]) != 0)
					_exit(4);
			}
			for (;;)
				pause();
		}
		/* Wait until every writer has its temporary file at once. */
		for (int i = 0; i < 2000000 && !seen; i++) {
			if (waitpid(pid, &status, WNOHANG) == pid)
				break;
			seen = count_temps(dir) == NW;
		}
		ck_assert_msg(seen, "never saw %d temporary files at once", NW);
		kill(pid, SIGTERM);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
			      "status %d", status);
		ck_assert_msg(count_temps(dir) == 0, "round %d: %d temporary files "
			      "left behind", r, count_temps(dir));
	}
	wst_rmrf(dir);
	free(dir);
}
END_TEST

/*
 * Both ways leave the signal dispositions and mask as they were, and the
 * named way leaves a program's own choice (here: ignoring SIGHUP) alone.
 */
START_TEST(atomic_signals_restored)
{
	char *dir = wst_tmpdir(), *p = wst_path(dir, "f"), *s;
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct sigaction sa;
	sigset_t mask;

	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	ck_assert_int_eq(ws_write_atomic(dfd, "f", "one", 3, NULL,
					 WS_ATOMIC_NOSYNC), 0);
	ck_assert_int_eq(ws_write_atomic(dfd, "f", "two", 3, NULL,
					 WS_ATOMIC_NOSYNC | WS_ATOMIC_NAMED), 0);
	ck_assert_int_eq(ws_write_atomic(dfd, "f", "three", 5, NULL,
					 WS_ATOMIC_NOSYNC | WS_ATOMIC_NAMED |
					 WS_ATOMIC_NOREPLACE), WS_EALREADY_EXISTS);
	s = wst_slurp(p, NULL);
	ck_assert_str_eq(s, "two");
	free(s);
	ck_assert(!has_temp(dir));
	ck_assert_int_eq(sigaction(SIGTERM, NULL, &sa), 0);
	ck_assert(sa.sa_handler == SIG_DFL);
	ck_assert_int_eq(sigaction(SIGHUP, NULL, &sa), 0);
	ck_assert(sa.sa_handler == SIG_IGN);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, NULL, &mask), 0);
	ck_assert(!sigismember(&mask, SIGTERM));
	ck_assert(!sigismember(&mask, SIGINT));
	ck_assert(!sigismember(&mask, SIGHUP));
	signal(SIGHUP, SIG_DFL);
	close(dfd);
	wst_rmrf(dir);
	free(p);
	free(dir);
}
END_TEST

/*
 * The sweep after a write: a temporary file of the exact shape that no
 * writer holds (a killed writer's) goes; one a live writer holds (its
 * lock), near misses of the shape, and non-files of the shape stay.  Both
 * ways of writing sweep, and the target's data is right.
 */
START_TEST(atomic_sweeps_dead_writers_temps)
{
	static const char *const keep[] = {
		".f.wswrite-abcdef",		/* an older wstools' shape */
		".f.wswrite-ABCDEFGHIJK",	/* 11 */
		".f.wswrite-ABCDEFGHIJKLM",	/* 13 */
		".f.wswrite-ABCDEFGHIJ-L",	/* not a letter or digit */
		"f.wswrite-ABCDEFGHIJKL",	/* no leading dot */
		".wswrite-ABCDEFGHIJKL",	/* no NAME */
		".f.wswrite_ABCDEFGHIJKL",
		"notes.txt",
		NULL,
	};
	char *dir = wst_tmpdir(), *p;
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), lfd;

	for (int named = 0; named < 2; named++) {
		unsigned fl = WS_ATOMIC_NOSYNC | (named ? WS_ATOMIC_NAMED : 0);

		for (size_t i = 0; keep[i]; i++)
			wst_write(dir, keep[i], "user data");
		wst_write(dir, ".f.wswrite-Stale0000001", "partial");
		wst_write(dir, ".other.txt.wswrite-Stale0000002", "partial");
		/* A live writer's: locked through its own open file. */
		wst_write(dir, ".g.wswrite-LiveWriter01", "in progress");
		p = wst_path(dir, ".g.wswrite-LiveWriter01");
		lfd = open(p, O_RDONLY | O_CLOEXEC);
		free(p);
		ck_assert_int_ge(lfd, 0);
		ck_assert_int_eq(flock(lfd, LOCK_EX | LOCK_NB), 0);
		wst_mkdir(dir, ".d.wswrite-Directory001");
		wst_symlink("notes.txt", dir, ".s.wswrite-SymbolicLnk1");

		ck_assert_int_eq(ws_write_atomic(dfd, "f", "new", 3, NULL, fl), 0);
		for (size_t i = 0; keep[i]; i++) {
			p = wst_path(dir, keep[i]);
			ck_assert_msg(wst_exists(p), "%s was removed", keep[i]);
			free(p);
		}
		p = wst_path(dir, ".f.wswrite-Stale0000001");
		ck_assert_msg(!wst_exists(p), "a dead writer's temp is left");
		free(p);
		p = wst_path(dir, ".other.txt.wswrite-Stale0000002");
		ck_assert_msg(!wst_exists(p), "a dead writer's temp is left");
		free(p);
		p = wst_path(dir, ".g.wswrite-LiveWriter01");
		ck_assert_msg(wst_exists(p), "a live writer's temp was removed");
		free(p);
		p = wst_path(dir, ".d.wswrite-Directory001");
		ck_assert(wst_exists(p));
		free(p);
		p = wst_path(dir, ".s.wswrite-SymbolicLnk1");
		ck_assert(wst_exists(p));
		free(p);
		p = wst_path(dir, "f");
		{
			char *s = wst_slurp(p, NULL);

			ck_assert_str_eq(s, "new");
			free(s);
		}
		free(p);
		/* Once its writer is gone, the next write removes it. */
		close(lfd);
		ck_assert_int_eq(ws_write_atomic(dfd, "f", "newer", 5, NULL, fl), 0);
		p = wst_path(dir, ".g.wswrite-LiveWriter01");
		ck_assert(!wst_exists(p));
		free(p);
		p = wst_path(dir, "notes.txt");
		ck_assert(wst_exists(p));
		free(p);
		/* 8 near misses, the directory, the link, f. */
		ck_assert_int_eq(count_entries(dir), 11);
		wst_rmrf(dir);
		ck_assert_int_eq(mkdir(dir, 0700), 0);
		close(dfd);
		dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	close(dfd);
	wst_rmrf(dir);
	free(dir);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Operations on a workspace                                            */

static char *base, *root, *outside;

/* Several edits: in order, on the evolving text, all or nothing. */
START_TEST(edit_apply_multi)
{
	const char *t = "alpha\nbeta\ngamma\nbeta\n";
	struct ws_edit e[] = {
		{"alpha", "ALPHA", 5, 5, false},
		{"ALPHA\nbeta", "one", 10, 3, false}, /* sees the first edit */
		{"beta", "B", 4, 1, true},
	};
	char *out;
	size_t n, c;

	ck_assert_int_eq(ws_edit_apply(t, strlen(t), e, 3, &out, &n, &c), 0);
	ck_assert_str_eq(out, "one\ngamma\nB\n");
	ck_assert_uint_eq(n, strlen(out));
	ck_assert_uint_eq(c, 3);
	free(out);
	/* The third fails: nothing comes out, and the message says which. */
	e[2].old = "delta";
	e[2].oldlen = 5;
	ck_assert_int_eq(ws_edit_apply(t, strlen(t), e, 3, &out, &n, &c),
			 WS_EEDIT_NO_MATCH);
	ck_assert_ptr_null(out);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "edit 3 of 3"));
	/* A single edit keeps the plain message. */
	ck_assert_int_eq(ws_edit_apply(t, strlen(t), e + 2, 1, &out, &n, &c),
			 WS_EEDIT_NO_MATCH);
	ck_assert_ptr_null(strstr(ws_error_last(), "edit 1"));
	ck_assert_int_eq(ws_edit_apply(t, strlen(t), e, 0, &out, &n, &c),
			 WS_EINVALID_ARGUMENT);
}
END_TEST

/* EDIT_AMBIGUOUS names every match's line. */
START_TEST(edit_ambiguous_lines)
{
	const char *t = "x = 1\ny = 2\nx = 3\n\n\nx = 4\n";
	char *out, big[4096];
	size_t n, c;

	ck_assert_int_eq(ws_edit_replace(t, strlen(t), "x =", 3, "z =", 3, false,
					 &out, &n, &c), WS_EEDIT_AMBIGUOUS);
	ck_assert_uint_eq(c, 3);
	ck_assert_msg(strstr(ws_error_last(), "lines 1, 3 and 6") != NULL, "%s",
		      ws_error_last());
	ck_assert_ptr_nonnull(ws_error_last_hint());
	/* Many matches: the first ones, then "...". */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (size_t i = 1; i < sizeof(big) - 1; i += 2)
		big[i] = '\n';
	ck_assert_int_eq(ws_edit_replace(big, strlen(big), "a", 1, "b", 1, false,
					 &out, &n, &c), WS_EEDIT_AMBIGUOUS);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "lines 1, 2, 3"));
	ck_assert_ptr_nonnull(strstr(ws_error_last(), ", ..."));
	ck_assert_ptr_null(strstr(ws_error_last(), " 21,"));
}
END_TEST

static void
no_match(const char *text, const char *old, const char *want, bool hint_lines)
{
	char *out;
	size_t n, c;

	ck_assert_int_eq(ws_edit_replace(text, strlen(text), old, strlen(old), "N",
					 1, false, &out, &n, &c), WS_EEDIT_NO_MATCH);
	ck_assert_msg(strstr(ws_error_last(), want) != NULL, "want \"%s\" in \"%s\"",
		      want, ws_error_last());
	ck_assert_ptr_nonnull(ws_error_last_hint());
	ck_assert_int_eq(strstr(ws_error_last_hint(), "read lines") != NULL,
			 hint_lines);
}

/* EDIT_NO_MATCH says what nearly matched, and where. */
START_TEST(edit_near_match)
{
	/* Tabs against spaces, and runs of spaces. */
	no_match("int a;\nif (x) {\n\treturn  1;\n}\n", "if (x) {\n    return 1;",
		 "lines 2-3 if whitespace is ignored", true);
	/* CRLF line ends. */
	no_match("a\r\nb\r\nc\r\n", "b\nc", "lines 2-3 but for its line ends "
		 "(the file has CRLF", true);
	/* A trailing newline the file's last line lacks. */
	no_match("one\ntwo", "two\n", "line 2 but for its trailing newline "
		 "(the file does not end with one)", true);
	/* Nothing near: the plain message. */
	no_match("one\ntwo\n", "three", "not found (it must match exactly", false);
	/* Whitespace only is never "nearly" anything. */
	no_match("a b\n", "  \t", "not found (it must match exactly", false);
}
END_TEST

/* The version check: a token from the same stat passes, any change fails. */
START_TEST(check_version)
{
	struct stat st = {.st_dev = 1, .st_ino = 2, .st_size = 3};
	char tok[WS_VERSION_LEN];

	ws_version_token(&st, tok);
	ck_assert_int_eq(ws_check_version(&st, tok, "f"), 0);
	ck_assert_int_eq(ws_check_version(&st, NULL, "f"), 0);
	st.st_mtim.tv_nsec = 1;
	ck_assert_int_eq(ws_check_version(&st, tok, "f"), WS_EVERSION_MISMATCH);
	ck_assert_ptr_nonnull(ws_error_last_hint());
	ck_assert_int_eq(ws_check_version(NULL, tok, "f"), WS_EVERSION_MISMATCH);
	ck_assert_int_eq(ws_check_version(&st, "bogus", "f"), WS_EVERSION_MISMATCH);
}
END_TEST

static struct ws_ctx ctx;

static void
setup(void)
{
	base = wst_tmpdir();
	root = wst_path(base, "ws");
	outside = wst_path(base, "out");
	mkdir(root, 0755);
	mkdir(outside, 0755);
	memset(&ctx, 0, sizeof(ctx));
	ck_assert_int_eq(ws_ctx_open(&ctx, root, 0), 0);
}

static void
teardown(void)
{
	ws_ctx_close(&ctx);
	wst_rmrf(base);
	free(base);
	free(root);
	free(outside);
}

static struct ws_wopts
content_opts(const char *s)
{
	struct ws_wopts o = {.content = s, .len = strlen(s), .parents = true,
			     .nosync = true};

	return o;
}


/* Helper: the version token of root/rel. */
static void
token_of(const char *rel, char *tok)
{
	char *p = wst_path(root, rel);
	struct stat st;

	ck_assert_int_eq(lstat(p, &st), 0);
	ws_version_token(&st, tok);
	free(p);
}

/* --if-version on write, append, edit, delete and move. */
START_TEST(op_if_version)
{
	struct ws_wopts o = content_opts("v1\n");
	struct ws_wresult r;
	char tok[WS_VERSION_LEN], stale[WS_VERSION_LEN];
	char *s, *p;

	ck_assert_int_eq(ws_write(&ctx, "f", &o, &r), 0);
	ws_wresult_free(&r);
	token_of("f", tok);
	o = content_opts("v2\n");
	o.if_version = tok;
	ck_assert_int_eq(ws_write(&ctx, "f", &o, &r), 0);
	ws_wresult_free(&r);
	memcpy(stale, tok, sizeof(tok));
	/* The same token again: the file has changed since. */
	o = content_opts("v3\n");
	o.if_version = stale;
	ck_assert_int_eq(ws_write(&ctx, "f", &o, &r), WS_EVERSION_MISMATCH);
	ws_wresult_free(&r);
	o.append = true;
	ck_assert_int_eq(ws_write(&ctx, "f", &o, &r), WS_EVERSION_MISMATCH);
	ws_wresult_free(&r);
	o = content_opts("");
	o.edit = true;
	o.old = "v2";
	o.oldlen = 2;
	o.repl = "x";
	o.repllen = 1;
	o.if_version = stale;
	ck_assert_int_eq(ws_write(&ctx, "f", &o, &r), WS_EVERSION_MISMATCH);
	ws_wresult_free(&r);
	ck_assert_int_eq(ws_delete(&ctx, "f", false, false, stale, &r),
			 WS_EVERSION_MISMATCH);
	ws_wresult_free(&r);
	ck_assert_int_eq(ws_move(&ctx, "f", "g", false, true, false, stale, &r),
			 WS_EVERSION_MISMATCH);
	ws_wresult_free(&r);
	p = wst_path(root, "f");
	s = wst_slurp(p, NULL);
	ck_assert_str_eq(s, "v2\n");
	free(s);
	free(p);
	/* The current token works for each. */
	token_of("f", tok);
	o.if_version = tok;
	ck_assert_int_eq(ws_write(&ctx, "f", &o, &r), 0);
	ws_wresult_free(&r);
	token_of("f", tok);
	ck_assert_int_eq(ws_move(&ctx, "f", "g", false, true, false, tok, &r), 0);
	ws_wresult_free(&r);
	token_of("g", tok);
	ck_assert_int_eq(ws_delete(&ctx, "g", false, false, tok, &r), 0);
	ws_wresult_free(&r);
	/* A file that is gone has no version. */
	o = content_opts("new\n");
	o.if_version = tok;
	ck_assert_int_eq(ws_write(&ctx, "g", &o, &r), WS_EVERSION_MISMATCH);
	ws_wresult_free(&r);
}
END_TEST

/* Lines counted; a move to "dir/" goes into it, made when parents is on. */
START_TEST(op_lines_and_move_into)
{
	struct ws_wopts o = content_opts("a\nb\nc");
	struct ws_wresult r;
	char *p;

	ck_assert_int_eq(ws_write(&ctx, "f", &o, &r), 0);
	ck_assert_int_eq(r.lines, 3);
	ck_assert_ptr_null(r.diff);
	ws_wresult_free(&r);
	ck_assert_int_eq(ws_move(&ctx, "f", "nd/", false, false, false, NULL, &r),
			 WS_ENOT_A_DIRECTORY);
	ws_wresult_free(&r);
	ck_assert_int_eq(ws_move(&ctx, "f", "nd/sub/", false, true, false, NULL, &r),
			 0);
	ck_assert_str_eq(r.dest_vpath, "/nd/sub/f");
	ws_wresult_free(&r);
	p = wst_path(root, "nd/sub/f");
	ck_assert(wst_exists(p));
	free(p);
}
END_TEST

START_TEST(op_write_edit_append)
{
	struct ws_wopts o = content_opts("one\ntwo\n");
	struct ws_wresult r;
	char *p = wst_path(root, "d/f.txt"), *s;

	o.want_diff = true;
	ck_assert_int_eq(ws_write(&ctx, "d/f.txt", &o, &r), 0);
	ck_assert_str_eq(r.action, "create");
	ck_assert(r.created);
	ck_assert_str_eq(r.vpath, "/d/f.txt");
	ck_assert_str_eq(r.real, p);
	ck_assert_int_eq(r.bytes_written, 8);
	ck_assert_str_eq(r.diff, "--- /dev/null\n+++ /d/f.txt\n@@ -0,0 +1,2 @@\n"
			 "+one\n+two\n");
	ws_wresult_free(&r);

	o = content_opts("three\n");
	o.append = true;
	ck_assert_int_eq(ws_write(&ctx, "/d/f.txt", &o, &r), 0);
	ck_assert_str_eq(r.action, "append");
	ck_assert(!r.created);
	ck_assert_int_eq(r.bytes_written, 6);
	ws_wresult_free(&r);

	o = content_opts("");
	o.edit = true;
	o.old = "two";
	o.oldlen = 3;
	o.repl = "2";
	o.repllen = 1;
	o.dry_run = true;
	ck_assert_int_eq(ws_write(&ctx, "d/f.txt", &o, &r), 0);
	ck_assert_str_eq(r.diff, "--- /d/f.txt\n+++ /d/f.txt\n@@ -1,3 +1,3 @@\n"
			 " one\n-two\n+2\n three\n");
	ws_wresult_free(&r);
	s = wst_slurp(p, NULL);
	ck_assert_str_eq(s, "one\ntwo\nthree\n"); /* dry run: unchanged */
	free(s);
	o.dry_run = false;
	ck_assert_int_eq(ws_write(&ctx, "d/f.txt", &o, &r), 0);
	ck_assert_uint_eq(r.replacements, 1);
	ws_wresult_free(&r);
	s = wst_slurp(p, NULL);
	ck_assert_str_eq(s, "one\n2\nthree\n");
	free(s);
	free(p);
}
END_TEST

/*
 * A change unlocks the file's lock, not only closes its descriptor: a
 * process forked meanwhile that does not exec (in wstools mcp, the
 * guardian of a command another call starts) holds a copy of the
 * descriptor, and flock() locks belong to the open file, so a close left
 * the file locked for as long as that process lived.  An edit holds the
 * lock (WS_TEST_EDIT_HOLD_MS), a child is forked meanwhile and keeps its
 * copy; once the edit is done the file must be free.
 */
struct held_edit {
	struct ws_ctx *ctx;
	int rc;
};

static void *
held_edit_main(void *arg)
{
	struct held_edit *h = arg;
	struct ws_wopts o = content_opts("");
	struct ws_wresult r;

	o.edit = true;
	o.old = "absent";
	o.oldlen = 6;
	o.repl = "x";
	o.repllen = 1;
	h->rc = ws_write(h->ctx, "d/held.txt", &o, &r);
	ws_wresult_free(&r);
	ws_error_clear();
	return NULL;
}

START_TEST(lock_unlocked_not_only_closed)
{
	struct held_edit h = {&ctx, 0};
	char *p, hold[32];
	pthread_t t;
	pid_t child;
	int fd, st;
	bool held = false;

	wst_write(root, "d/held.txt", "one\n");
	p = wst_path(root, "d/held.txt");
	fd = open(p, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	snprintf(hold, sizeof(hold), "%d", (int)(300 * WST_SLOWDOWN));
	setenv("WS_TEST_EDIT_HOLD_MS", hold, 1);
	ck_assert_int_eq(pthread_create(&t, NULL, held_edit_main, &h), 0);
	/* The edit holds the lock: fork now. */
	for (int i = 0; i < 10000 * WST_SLOWDOWN && !held; i++) {
		held = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
		if (!held) {
			flock(fd, LOCK_UN);
			usleep(1000);
		}
	}
	ck_assert_msg(held, "the edit never held the lock");
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		/* A copy of every descriptor, kept: no exec. */
		sleep(30);
		_exit(0);
	}
	pthread_join(t, NULL);
	unsetenv("WS_TEST_EDIT_HOLD_MS");
	ck_assert_int_eq(h.rc, WS_EEDIT_NO_MATCH);
	ck_assert_msg(flock(fd, LOCK_EX | LOCK_NB) == 0,
		      "the file stays locked by the forked copy: %s", strerror(errno));
	kill(child, SIGKILL);
	ck_assert_int_eq(waitpid(child, &st, 0), child);
	close(fd);
	free(p);
}
END_TEST

START_TEST(op_mkdir_delete_move)
{
	struct ws_wresult r;
	char *p, *q;

	ck_assert_int_eq(ws_mkdir(&ctx, "a/b/c", true, false, &r), 0);
	ck_assert(r.created);
	ws_wresult_free(&r);
	ck_assert_int_eq(ws_mkdir(&ctx, "a/b/c", true, false, &r), 0);
	ck_assert(!r.created);
	ws_wresult_free(&r);
	ck_assert_int_eq(ws_mkdir(&ctx, "x/y", false, false, &r), WS_ENOT_FOUND);
	ws_wresult_free(&r);
	wst_write(root, "a/b/c/f", "f");
	wst_symlink(outside, root, "a/b/out");
	wst_write(outside, "keep", "k");
	ck_assert_int_eq(ws_delete(&ctx, "a", false, false, NULL, &r),
			 WS_EDIRECTORY_NOT_EMPTY);
	ws_wresult_free(&r);
	ck_assert_int_eq(ws_delete(&ctx, "a", true, true, NULL, &r), 0);
	ck_assert_uint_eq(r.removed, 5);
	ws_wresult_free(&r);
	ck_assert_int_eq(ws_move(&ctx, "a", "z/moved", false, true, false, NULL, &r), 0);
	ck_assert_str_eq(r.dest_vpath, "/z/moved");
	ws_wresult_free(&r);
	ck_assert_int_eq(ws_delete(&ctx, "z", true, false, NULL, &r), 0);
	ck_assert_uint_eq(r.removed, 6);
	ws_wresult_free(&r);
	p = wst_path(root, "z");
	ck_assert(!wst_exists(p));
	q = wst_path(outside, "keep");
	ck_assert(wst_exists(q));
	free(p);
	free(q);
	ck_assert_int_eq(ws_delete(&ctx, "/", true, false, NULL, &r), WS_EINVALID_ARGUMENT);
	ws_wresult_free(&r);
}
END_TEST

/*
 * The prompt of the policy below: says yes, and first moves the file
 * named by sneak (if any) into the tree, between the CHECK pass and the
 * removals.
 */
static int prompts;
static const char *sneak;

static bool
approve_and_sneak(void *arg, const char *message)
{
	(void)arg;
	(void)message;
	prompts++;
	if (sneak != NULL) {
		char *to = wst_path(root, "t/protected");

		ck_assert_int_eq(rename(sneak, to), 0);
		free(to);
		sneak = NULL;
	}
	return true;
}

/*
 * A recursive delete asks the policy about every entry again right before
 * removing it: a file moved into the tree after the first pass (here by
 * the approval prompt of that pass) is not removed despite a deny, and
 * what was approved at the prompt is not asked twice.
 */
START_TEST(op_delete_rechecks)
{
	static const char rules[] =
		"{\"version\": 1, \"name\": \"t\", \"file_rules\": [\n"
		" {\"name\": \"keep\", \"paths\": [\"**/protected\"],\n"
		"  \"operations\": [\"delete\"], \"decision\": \"deny\"},\n"
		" {\"name\": \"ask\", \"paths\": [\"**/ask\"],\n"
		"  \"operations\": [\"delete\"], \"decision\": \"approve\"},\n"
		" {\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],\n"
		"  \"decision\": \"allow\"}]}\n";
	struct ws_vars vars;
	struct ws_wresult r;
	char *src = wst_path(root, "protected"), *in = wst_path(root, "t/protected");
	char *t = wst_path(root, "t");

	ws_vars_init(&vars);
	ck_assert_int_eq(ws_policy_parse(rules, "t.json", &vars, &ctx.policy), 0);
	ws_policy_set_hooks(ctx.policy, NULL, approve_and_sneak, NULL);
	wst_write(root, "t/ask", "a");
	wst_write(root, "t/z", "z");
	wst_write(root, "protected", "keep me");
	prompts = 0;
	sneak = src;
	ck_assert_int_eq(ws_delete(&ctx, "t", true, false, NULL, &r),
			 WS_EPOLICY_DENIED);
	ws_wresult_free(&r);
	ck_assert_int_eq(prompts, 1);
	ck_assert_msg(wst_exists(in), "the denied file was deleted");
	/* Without it, the tree goes, and "ask" is asked about once. */
	ck_assert_int_eq(rename(in, src), 0);
	wst_write(root, "t/ask", "a");
	prompts = 0;
	ck_assert_int_eq(ws_delete(&ctx, "t", true, false, NULL, &r), 0);
	ws_wresult_free(&r);
	ck_assert_int_eq(prompts, 1);
	ck_assert(!wst_exists(t));
	ck_assert(wst_exists(src));
	ws_vars_free(&vars);
	free(src);
	free(in);
	free(t);
}
END_TEST

/*
 * In-process race: a child swaps a workspace directory with a symlink to
 * outside, over and over, while we write into the directory 10,000 times.
 * Nothing may ever land outside.
 */
START_TEST(op_race_swap)
{
	char *d = wst_path(root, "d"), *l = wst_path(root, "l");
	pid_t pid;
	int ok = 0, refused = 0;
	DIR *dir;
	struct dirent *e;

	wst_mkdir(root, "d");
	wst_symlink(outside, root, "l");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		for (;;)
			renameat2(AT_FDCWD, d, AT_FDCWD, l, RENAME_EXCHANGE);
	}
	for (int i = 0; i < 10000; i++) {
		struct ws_wopts o = content_opts("x");
		struct ws_wresult r;
		char name[32];

		snprintf(name, sizeof(name), "d/f%d", i % 50);
		if (ws_write(&ctx, name, &o, &r) == 0)
			ok++;
		else
			refused++;
		ws_wresult_free(&r);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	dir = opendir(outside);
	ck_assert_ptr_nonnull(dir);
	while ((e = readdir(dir)) != NULL)
		ck_assert_msg(e->d_name[0] == '.', "escaped: %s", e->d_name);
	closedir(dir);
	ck_assert_int_gt(ok, 0);
	ck_assert_int_gt(refused, 0);
	free(d);
	free(l);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("write");
	TCase *tc = tcase_create("diff");
	TCase *tw = tcase_create("ops");

	tcase_add_test(tc, diff_equal_is_empty);
	tcase_add_test(tc, diff_one_change);
	tcase_add_test(tc, diff_new_file_and_no_newline);
	tcase_add_test(tc, diff_two_hunks_and_merge);
	tcase_add_test(tc, diff_binary_and_cap);
	tcase_add_test(tc, diff_random_roundtrip);
	tcase_add_test(tc, diff_large_rewrite_fallback);
	tcase_add_test(tc, edit_cases);
	tcase_add_test(tc, edit_result_capped);
	tcase_add_test(tc, b64_cases);
	tcase_add_test(tc, atomic_replace_keeps_mode);
	tcase_add_test(tc, atomic_replace_fsize_failure);
	tcase_add_test(tc, atomic_named_sigterm);
	tcase_add_test(tc, atomic_named_sigterm_threads);
	tcase_add_test(tc, atomic_signals_restored);
	tcase_add_test(tc, atomic_sweeps_dead_writers_temps);
	tcase_add_test(tc, edit_apply_multi);
	tcase_add_test(tc, edit_ambiguous_lines);
	tcase_add_test(tc, edit_near_match);
	tcase_add_test(tc, check_version);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tw, setup, teardown);
	tcase_add_test(tw, op_write_edit_append);
	tcase_add_test(tw, lock_unlocked_not_only_closed);
	tcase_add_test(tw, op_mkdir_delete_move);
	tcase_add_test(tw, op_delete_rechecks);
	tcase_add_test(tw, op_race_swap);
	tcase_add_test(tw, op_if_version);
	tcase_add_test(tw, op_lines_and_move_into);
	suite_add_tcase(s, tw);
	return s;
}

WST_MAIN(suite)
