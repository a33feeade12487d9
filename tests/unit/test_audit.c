/* unit-audit: SHA-256 against the FIPS 180-4 vectors, and the audit log's
 * hash chain: written, verified, tampered with, written concurrently. */
#include "wstest.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ws/audit.h"
#include "ws/error.h"
#include "ws/sha256.h"

/* The vectors, with the CPU's SHA instructions (where it has them) and
 * with the portable code; and both agree on lengths around every block
 * boundary. */
START_TEST(sha256_vectors)
{
	static const struct {
		const char *in, *hex;
	} v[] = {
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
		{"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		 "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		 "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
	};
	char hex[WS_SHA256_HEX + 1];
	struct ws_sha256 c;
	unsigned char d[WS_SHA256_LEN];
	char *a;
	int pass = _i;

	if (pass == 1 && !ws_sha256_accel(-1))
		return; /* no SHA instructions: the portable pass was all */
	a = malloc(1000000);
	ck_assert_ptr_nonnull(a);
	ws_sha256_accel(pass == 0 ? 0 : 1);
	ck_assert(pass == 0 ? !ws_sha256_accel(-1) : ws_sha256_accel(-1));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		ws_sha256_hex(v[i].in, strlen(v[i].in), hex);
		ck_assert_str_eq(hex, v[i].hex);
		/* The same fed a byte at a time (every buffer boundary). */
		ws_sha256_init(&c);
		for (size_t k = 0; v[i].in[k]; k++)
			ws_sha256_update(&c, v[i].in + k, 1);
		ws_sha256_final(&c, d);
		ws_sha256_tohex(d, hex);
		ck_assert_str_eq(hex, v[i].hex);
	}
	/* One million "a", in uneven pieces. */
	memset(a, 'a', 1000000);
	ws_sha256_init(&c);
	for (size_t off = 0, k = 1; off < 1000000; off += k, k = k * 7 % 1000 + 1)
		ws_sha256_update(&c, a + off, off + k > 1000000 ? 1000000 - off : k);
	ws_sha256_final(&c, d);
	ws_sha256_tohex(d, hex);
	ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	if (pass == 1) {
		char want[WS_SHA256_HEX + 1];

		for (size_t i = 0; i < 4096; i++)
			a[i] = (char)(i * 131 + (i >> 3));
		for (size_t n = 0; n <= 300; n++) {
			ws_sha256_accel(0);
			ws_sha256_hex(a + n % 7, n * 13 % 4000, want);
			ws_sha256_accel(1);
			ws_sha256_hex(a + n % 7, n * 13 % 4000, hex);
			ck_assert_str_eq(hex, want);
		}
	}
	ws_sha256_accel(1);
	free(a);
}
END_TEST

/* Append one line for a call of tool to log. */
static void
one_line(const char *log, const char *tool, int code)
{
	struct ws_audit *a;

	ck_assert_int_eq(ws_audit_open(log, tool, false, &a), 0);
	ws_audit_decision(a, "write", "/r/x", "/x", "p", "rule", code ? "deny" : "allow",
			  WS_AUDIT_NOT_ASKED, code);
	ws_audit_set_int(a, "bytes", 3);
	ws_audit_outcome(a, code);
	ck_assert_int_eq(ws_audit_emit(a, code ? 3 : 0), 0);
	ws_audit_free(a);
}

static void
verify(const char *log, size_t want_lines, size_t want_bad)
{
	size_t lines, bad;
	const char *why;

	ck_assert_int_eq(ws_audit_verify(log, &lines, &bad, &why), 0);
	ck_assert_uint_eq(lines, want_lines);
	ck_assert_msg(bad == want_bad, "broken at %zu (%s), expected %zu", bad,
		      why ? why : "-", want_bad);
}

/* The time is written by hand (issue 22): UTC, to the microsecond, as
 * gmtime and strftime would. */
START_TEST(time_is_utc)
{
	char *dir = wst_tmpdir(), *log = wst_path(dir, "audit.jsonl");
	char *text, *t, want[32];
	time_t before = time(NULL), after, at;
	struct tm tm = {0};
	int us = -1;

	one_line(log, "write_file", 0);
	/*
	 * time() reads the coarse clock, which may lag the line's clock
	 * (CLOCK_REALTIME) by a tick: at a second's boundary the line could
	 * say the next second while time() still says this one.
	 */
	after = time(NULL) + 1;
	text = wst_slurp(log, NULL);
	ck_assert_ptr_nonnull(t = strstr(text, "\"time\":\""));
	t += strlen("\"time\":\"");
	ck_assert_ptr_nonnull(strptime(t, "%Y-%m-%dT%H:%M:%S", &tm));
	ck_assert_int_eq(sscanf(t + 19, ".%6dZ\"", &us), 1);
	ck_assert(t[19] == '.' && t[26] == 'Z' && us >= 0);
	at = timegm(&tm);
	ck_assert(at >= before && at <= after);
	strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%S", gmtime(&at));
	ck_assert(strncmp(t, want, 19) == 0);
	free(text);
	wst_rmrf(dir);
	free(dir);
	free(log);
}
END_TEST

START_TEST(chain_and_tampering)
{
	char *dir = wst_tmpdir(), *log = wst_path(dir, "audit.jsonl");
	char *text, *p;
	size_t n;
	FILE *f;

	for (int i = 0; i < 5; i++)
		one_line(log, "write_file", i == 2 ? WS_EPOLICY_DENIED : 0);
	verify(log, 5, 0);
	text = wst_slurp(log, &n);
	ck_assert_ptr_nonnull(strstr(text, "\"outcome\":\"POLICY_DENIED\""));
	ck_assert_ptr_nonnull(strstr(text, "\"rule\":\"rule\""));
	/* One byte changed in line 3: line 3 breaks. */
	p = strstr(text, "POLICY_DENIED");
	*p = 'Q';
	wst_writen(dir, "t1", text, n);
	*p = 'P';
	{
		char *t1 = wst_path(dir, "t1");

		verify(t1, 5, 3);
		free(t1);
	}
	/* Line 2 deleted: what is now line 2 breaks. */
	{
		char *l2 = strchr(text, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
		char *t2 = wst_path(dir, "t2");

		f = fopen(t2, "w");
		fwrite(text, 1, (size_t)(l2 - text), f);
		fwrite(l3, 1, n - (size_t)(l3 - text), f);
		fclose(f);
		verify(t2, 4, 2);
		free(t2);
	}
	/* The last byte of the last line changed is found too. */
	text[n - 3] = text[n - 3] == '0' ? '1' : '0';
	wst_writen(dir, "t3", text, n);
	{
		char *t3 = wst_path(dir, "t3");

		verify(t3, 5, 5);
		free(t3);
	}
	free(text);
	wst_rmrf(dir);
	free(log);
	free(dir);
}
END_TEST

/* Writers in several processes never interleave nor fork the chain. */
START_TEST(concurrent_writers)
{
	char *dir = wst_tmpdir(), *log = wst_path(dir, "audit.jsonl");
	enum { PROCS = 16, EACH = 200 };
	pid_t pid[PROCS];

	for (int i = 0; i < PROCS; i++) {
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0) {
			int rc = 0;

			for (int k = 0; k < EACH && rc == 0; k++) {
				struct ws_audit *a;

				if (ws_audit_open(log, "write_file", false, &a) < 0) {
					rc = 1;
					break;
				}
				ws_audit_set_str(a, "path", "/a-long-enough-path-to-make-lines-differ");
				ws_audit_set_int(a, "n", k);
				if (ws_audit_emit(a, 0) < 0)
					rc = 2;
				ws_audit_free(a);
			}
			/*
			 * Freed here too: under valgrind (the unit suites'
			 * memcheck step, in-process) the child's exit is
			 * leak-checked, and its status would be 99.
			 */
			free(log);
			free(dir);
			_exit(rc);
		}
	}
	for (int i = 0; i < PROCS; i++) {
		int st;

		ck_assert_int_eq(waitpid(pid[i], &st, 0), pid[i]);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	verify(log, PROCS * EACH, 0);
	wst_rmrf(dir);
	free(log);
	free(dir);
}
END_TEST

/* Whether another open file of log can take its lock now. */
static bool
lockable(const char *log)
{
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	bool ok;

	ck_assert_int_ge(fd, 0);
	ok = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return ok;
}

/*
 * The line releases the log's lock when it is written, not when the call
 * is freed: by the close() of the call's own descriptor (issue 22: no
 * unlocking flock()), or by an unlock where the descriptor was lent
 * (ws_audit_fd()) to a process that still holds it -- a command's
 * guardian -- whose copy of the open file would otherwise keep the lock,
 * and every other writer waiting, for as long as it lives.
 */
START_TEST(line_releases_the_lock)
{
	char *dir = wst_tmpdir(), *log = wst_path(dir, "audit.jsonl");
	struct ws_audit *a;
	int go[2];
	pid_t pid;
	int st;

	one_line(log, "write_file", 0);
	ck_assert_int_eq(ws_audit_open(log, "read_file", false, &a), 0);
	ck_assert_int_eq(ws_audit_emit(a, 0), 0);
	ck_assert(lockable(log));
	ws_audit_free(a);

	ck_assert_int_eq(ws_audit_open(log, "run_command", false, &a), 0);
	ck_assert_int_ge(ws_audit_fd(a), 0);
	ck_assert_int_eq(pipe(go), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char b;

		/* The guardian: holds its copy until told to end (then
		 * frees what it has, for the memcheck step's leak check). */
		close(go[1]);
		while (read(go[0], &b, 1) < 0 && errno == EINTR)
			;
		ws_audit_free(a);
		free(log);
		free(dir);
		_exit(0);
	}
	close(go[0]);
	ck_assert_int_eq(ws_audit_emit(a, 0), 0);
	ck_assert(lockable(log));
	ws_audit_free(a);
	ck_assert(lockable(log));
	close(go[1]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	verify(log, 3, 0);
	wst_rmrf(dir);
	free(log);
	free(dir);
}
END_TEST

/*
 * A call reads the log's tail without touching its access time (opened
 * O_NOATIME where the log is ours): under relatime every read would
 * update it, as a log's access time is older than its last line, and
 * dirty the inode once more a call (issue 22).
 */
START_TEST(tail_read_keeps_atime)
{
	char *dir = wst_tmpdir(), *log = wst_path(dir, "audit.jsonl");
	struct timespec ts[2] = {{0, 0}, {0, UTIME_OMIT}};
	struct stat st;

	one_line(log, "write_file", 0);
	/* Two days back: relatime would update it whatever the mtime. */
	ts[0].tv_sec = time(NULL) - 2 * 86400;
	ck_assert_int_eq(utimensat(AT_FDCWD, log, ts, 0), 0);
	one_line(log, "write_file", 0);
	ck_assert_int_eq(stat(log, &st), 0);
	ck_assert_int_eq((long long)st.st_atim.tv_sec, (long long)ts[0].tv_sec);
	verify(log, 2, 0);
	wst_rmrf(dir);
	free(log);
	free(dir);
}
END_TEST

/*
 * A log of another owner refuses O_NOATIME (EPERM) to whoever is not
 * privileged: it is opened without, and the line written.  Needs root to
 * make the other owner (CI runs as root); elsewhere nothing to check.
 */
START_TEST(noatime_refused_log_of_another)
{
	char *dir = wst_tmpdir(), *log = wst_path(dir, "audit.jsonl");
	pid_t pid;
	int st;

	if (geteuid() != 0) {
		wst_rmrf(dir);
		free(log);
		free(dir);
		return;
	}
	one_line(log, "write_file", 0);
	ck_assert_int_eq(chmod(dir, 0777), 0);
	ck_assert_int_eq(chmod(log, 0666), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct ws_audit *a;
		int rc = 0;

		/* nobody, without CAP_FOWNER: O_NOATIME is EPERM here. */
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		/* (A temporary directory nobody cannot reach: nothing to
		 * check here.) */
		if (open(log, O_RDWR | O_NOATIME) >= 0 || errno != EPERM)
			_exit(errno == EACCES ? 5 : 4);
		if (ws_audit_open(log, "write_file", false, &a) < 0)
			_exit(1);
		if (ws_audit_emit(a, 0) < 0)
			rc = 2;
		ws_audit_free(a);
		free(log);
		free(dir);
		_exit(rc);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	if (WEXITSTATUS(st) != 5) {
		ck_assert_int_eq(WEXITSTATUS(st), 0);
		verify(log, 2, 0);
	}
	wst_rmrf(dir);
	free(log);
	free(dir);
}
END_TEST

/*
 * The members a tool adds: a key set again keeps its last value, once;
 * numbers, JSON texts and null as cJSON printed them; "operation" in
 * its place after "pid"; a name not in UTF-8 with its bytes beside it.
 */
START_TEST(members_set_and_reset)
{
	char *dir = wst_tmpdir(), *log = wst_path(dir, "audit.jsonl"), *text;
	struct ws_audit *a;
	cJSON *v;
	size_t n;

	ck_assert_int_eq(ws_audit_open(log, "write_file", false, &a), 0);
	ws_audit_set_str(a, "k", "first");
	ws_audit_set_int(a, "n", -5);
	ws_audit_set_str(a, "operation", "create");
	ws_audit_set_str(a, "k", "second");
	ws_audit_set_json(a, "j", "{\"x\": [1, true, 2.5]}");
	ws_audit_set_json(a, "bad", "{not json");
	ws_audit_set_str(a, "z", NULL);
	ws_audit_set_str(a, "name", "a\xff");
	ws_audit_set_int(a, "big", 1LL << 60);
	ck_assert_int_eq(ws_audit_emit(a, 0), 0);
	ws_audit_free(a);
	text = wst_slurp(log, &n);
	ck_assert_ptr_nonnull(strstr(text, "\"pid\":"));
	ck_assert_ptr_nonnull(strstr(strstr(text, "\"pid\":"), ",\"operation\":\"create\",\"checks\":0"));
	ck_assert_ptr_null(strstr(text, "first"));
	ck_assert_ptr_eq(strstr(text, "\"k\":"), strrchr(text, 'k') - 1);
	ck_assert_ptr_nonnull(strstr(text, ",\"j\":{\"x\":[1,true,2.5]}"));
	ck_assert_ptr_nonnull(strstr(text, ",\"big\":1.152921504606847e+18"));
	ck_assert_ptr_null(strstr(text, "\"bad\""));
	v = cJSON_Parse(text);
	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(cJSON_GetObjectItem(v, "k")->valuestring, "second");
	ck_assert_int_eq(cJSON_GetObjectItem(v, "n")->valueint, -5);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(v, "z")));
	ck_assert_str_eq(cJSON_GetObjectItem(v, "name")->valuestring, "a\xef\xbf\xbd");
	ck_assert_str_eq(cJSON_GetObjectItem(v, "name_bytes")->valuestring, "Yf8=");
	cJSON_Delete(v);
	verify(log, 1, 0);
	wst_rmrf(dir);
	free(text);
	free(log);
	free(dir);
}
END_TEST

/* One call's line (tool, member n = k) to log; 0 or which step failed. */
static int
call_line(const char *log, int k)
{
	struct ws_audit *a;
	int rc = 0;

	if (ws_audit_open(log, "write_file", false, &a) < 0)
		return 1;
	ws_audit_set_str(a, "path", "/a-long-enough-path-to-make-lines-differ");
	ws_audit_set_int(a, "n", k);
	if (ws_audit_emit(a, 0) < 0)
		rc = 2;
	ws_audit_free(a);
	return rc;
}

/*
 * The tail is read from where the log ended when the call opened it:
 * other writers adding more than the read takes before the call writes,
 * or the log cut short (and made again) meanwhile, and the call's line
 * still follows the log's last line.
 */
START_TEST(tail_after_others_wrote)
{
	char *dir = wst_tmpdir(), *log = wst_path(dir, "audit.jsonl");
	struct ws_audit *a, *b;

	for (int k = 0; k < 3; k++)
		ck_assert_int_eq(call_line(log, k), 0);
	/* a opens; forty lines (some 18 KiB) are written before it writes. */
	ck_assert_int_eq(ws_audit_open(log, "read_file", false, &a), 0);
	for (int k = 0; k < 40; k++)
		ck_assert_int_eq(call_line(log, k), 0);
	ck_assert_int_eq(ws_audit_emit(a, 0), 0);
	ws_audit_free(a);
	verify(log, 44, 0);
	/* A few lines (less than the read takes): the same. */
	ck_assert_int_eq(ws_audit_open(log, "read_file", false, &a), 0);
	for (int k = 0; k < 3; k++)
		ck_assert_int_eq(call_line(log, k), 0);
	ck_assert_int_eq(ws_audit_emit(a, 0), 0);
	ws_audit_free(a);
	verify(log, 48, 0);
	/* b opens; the log is emptied and a line written before b writes:
	 * b follows that line, not what stood where the log once ended. */
	ck_assert_int_eq(ws_audit_open(log, "read_file", false, &b), 0);
	ck_assert_int_eq(truncate(log, 0), 0);
	ck_assert_int_eq(call_line(log, 0), 0);
	ck_assert_int_eq(ws_audit_emit(b, 0), 0);
	ws_audit_free(b);
	verify(log, 2, 0);
	/* Emptied, and nothing written: b's line starts a chain. */
	ck_assert_int_eq(ws_audit_open(log, "read_file", false, &b), 0);
	ck_assert_int_eq(truncate(log, 0), 0);
	ck_assert_int_eq(ws_audit_emit(b, 0), 0);
	ws_audit_free(b);
	verify(log, 1, 0);
	wst_rmrf(dir);
	free(log);
	free(dir);
}
END_TEST

/* The descriptors this process has open. */
static int
open_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			n++;
	return n;
}

/*
 * A process that keeps the log open (wstools mcp) opens it once, and
 * still notices, call by call, a log renamed away (rotated), removed or
 * replaced: the next line goes to the file now at the path, and every
 * file's chain holds.
 */
START_TEST(kept_open_follows_the_path)
{
	char *dir = wst_tmpdir(), *log = wst_path(dir, "audit.jsonl");
	char *old = wst_path(dir, "audit.jsonl.1"), *other = wst_path(dir, "other.jsonl");
	char *text;
	int fds = open_fds();

	ws_audit_keep_open(true);
	ck_assert_int_eq(call_line(log, 0), 0);
	/* Kept: one descriptor more, and no more however many calls. */
	ck_assert_int_eq(open_fds(), fds + 1);
	ck_assert_int_eq(call_line(log, 1), 0);
	ck_assert_int_eq(call_line(log, 2), 0);
	ck_assert_int_eq(open_fds(), fds + 1);
	verify(log, 3, 0);
	/* Renamed away: the next line starts a new log at the path. */
	ck_assert_int_eq(rename(log, old), 0);
	ck_assert_int_eq(call_line(log, 3), 0);
	ck_assert_int_eq(call_line(log, 4), 0);
	verify(old, 3, 0);
	verify(log, 2, 0);
	ck_assert_int_eq(open_fds(), fds + 1);
	/* Replaced by another file (renamed over it). */
	wst_write(dir, "new.jsonl", "");
	{
		char *n = wst_path(dir, "new.jsonl");

		ck_assert_int_eq(rename(n, log), 0);
		free(n);
	}
	ck_assert_int_eq(call_line(log, 5), 0);
	verify(log, 1, 0);
	/* Removed. */
	ck_assert_int_eq(unlink(log), 0);
	ck_assert_int_eq(call_line(log, 6), 0);
	verify(log, 1, 0);
	/* Another path than the kept one: a descriptor for the call only. */
	ck_assert_int_eq(call_line(other, 0), 0);
	ck_assert_int_eq(open_fds(), fds + 1);
	verify(other, 1, 0);
	/* Replaced by a symlink: refused as when it is opened per call. */
	ck_assert_int_eq(unlink(log), 0);
	ck_assert_int_eq(symlink(old, log), 0);
	{
		struct ws_audit *a = NULL;

		ck_assert_int_eq(ws_audit_open(log, "read_file", false, &a), WS_EIO_ERROR);
		ck_assert_ptr_null(a);
	}
	text = wst_slurp(old, NULL);
	ck_assert_ptr_nonnull(text);
	ws_audit_keep_open(false);
	ck_assert_int_eq(open_fds(), fds);
	verify(old, 3, 0);
	free(text);
	wst_rmrf(dir);
	free(log);
	free(old);
	free(other);
	free(dir);
}
END_TEST

struct writer {
	const char *log;
	int each, rc;
};

static void *
writer_run(void *arg)
{
	struct writer *w = arg;

	for (int k = 0; k < w->each && w->rc == 0; k++)
		w->rc = call_line(w->log, k);
	return NULL;
}

/*
 * The threads of processes that keep the log open (the pool of wstools
 * mcp, several servers and CLI tools beside them) share a descriptor
 * within a process, which flock() does not tell apart: their lines
 * still never interleave nor fork the chain.
 */
START_TEST(kept_open_threads_and_processes)
{
	char *dir = wst_tmpdir(), *log = wst_path(dir, "audit.jsonl");
	enum { PROCS = 3, THREADS = 8, EACH = 400 };
	pid_t pid[PROCS];

	for (int i = 0; i < PROCS; i++) {
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0) {
			struct writer w[THREADS];
			pthread_t t[THREADS];
			int rc = 0;

			/* Every other process a CLI tool's way: a descriptor a call. */
			ws_audit_keep_open(i % 2 == 0);
			for (int k = 0; k < THREADS; k++) {
				w[k] = (struct writer){log, EACH, 0};
				if (pthread_create(&t[k], NULL, writer_run, &w[k]) != 0)
					rc = 3;
			}
			for (int k = 0; k < THREADS; k++) {
				pthread_join(t[k], NULL);
				if (w[k].rc != 0)
					rc = w[k].rc;
			}
			ws_audit_keep_open(false);
			free(log);
			free(dir);
			_exit(rc);
		}
	}
	for (int i = 0; i < PROCS; i++) {
		int st;

		ck_assert_int_eq(waitpid(pid[i], &st, 0), pid[i]);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	verify(log, PROCS * THREADS * EACH, 0);
	wst_rmrf(dir);
	free(log);
	free(dir);
}
END_TEST

START_TEST(unwritable_log)
{
	char *dir = wst_tmpdir(), *sub = wst_path(dir, "d");
	struct ws_audit *a = NULL;

	wst_mkdir(dir, "d");
	/* A directory cannot be the log: an error unless best effort. */
	ck_assert_int_eq(ws_audit_open(sub, "read_file", false, &a), WS_EIO_ERROR);
	ck_assert_ptr_null(a);
	ck_assert_int_eq(ws_audit_open(sub, "read_file", true, &a), 0);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(ws_audit_emit(a, 0), 0);
	ws_audit_free(a);
	wst_rmrf(dir);
	free(sub);
	free(dir);
}
END_TEST

/* Whether the kernel (or valgrind 3.19, which does not) has openat2(). */
static bool
have_openat2(void)
{
	struct open_how how = {.flags = O_RDONLY | O_CLOEXEC};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));

	if (fd >= 0)
		close(fd);
	return fd >= 0 || errno != ENOSYS;
}

/*
 * The log is opened with no symlink allowed on the way (openat2()), so
 * that the call guards its spelling without a readlink() a component
 * (issue 22): ws_audit_plain() says so (where there is openat2(): the
 * log opens all the same without).  A symlinked directory on the way
 * still opens the log (as before, without that), a symlink as the log's
 * own name is still refused, and a log made by the call is 0600.
 */
START_TEST(opened_without_symlinks)
{
	bool plain = have_openat2();
	char *dir = wst_tmpdir(), *log = wst_path(dir, "d/audit.jsonl");
	char *dotted = wst_path(dir, "d/./sub/../audit.jsonl");
	char *via = wst_path(dir, "lnk/audit.jsonl"), *own = wst_path(dir, "own.jsonl");
	struct ws_audit *a = NULL;
	struct stat st;
	size_t lines = 0, bad = 0;

	wst_mkdir(dir, "d/sub");
	wst_symlink("d", dir, "lnk");
	wst_symlink("d/audit.jsonl", dir, "own.jsonl");
	ck_assert_int_eq(ws_audit_open(log, "write_file", false, &a), 0);
	ck_assert(ws_audit_writable(a) && ws_audit_plain(a) == plain);
	ck_assert_int_eq(ws_audit_emit(a, 0), 0);
	ws_audit_free(a);
	ck_assert_int_eq(stat(log, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(ws_audit_open(dotted, "write_file", false, &a), 0);
	ck_assert(ws_audit_writable(a) && ws_audit_plain(a) == plain);
	ck_assert_int_eq(ws_audit_emit(a, 0), 0);
	ws_audit_free(a);
	ck_assert_int_eq(ws_audit_open(via, "write_file", false, &a), 0);
	ck_assert(ws_audit_writable(a) && !ws_audit_plain(a));
	ck_assert_int_eq(ws_audit_emit(a, 0), 0);
	ws_audit_free(a);
	ck_assert_int_eq(ws_audit_open(own, "write_file", false, &a), WS_EIO_ERROR);
	ck_assert_ptr_null(a);
	ck_assert_int_eq(ws_audit_verify(log, &lines, &bad, NULL), 0);
	ck_assert_uint_eq(lines, 3);
	ck_assert_uint_eq(bad, 0);
	wst_rmrf(dir);
	free(dir);
	free(log);
	free(dotted);
	free(via);
	free(own);
}
END_TEST

/*
 * ws_audit_discard() removes the empty log this call made by the
 * descriptor of the directory it made it in, not by name again: with
 * that directory renamed meanwhile and a link to another directory put
 * at its old name (holding a file of the log's name), the log made is
 * removed where it is, and the other file stays.  A log that was there
 * before the call stays too.
 */
START_TEST(discard_by_directory)
{
	char *dir = wst_tmpdir(), *log = wst_path(dir, "d/audit.jsonl");
	char *moved = wst_path(dir, "e/audit.jsonl"), *other = wst_path(dir, "o/audit.jsonl");
	struct ws_audit *a = NULL;
	struct stat st;

	wst_mkdir(dir, "d");
	wst_mkdir(dir, "o");
	wst_write(dir, "o/audit.jsonl", "");
	ck_assert_int_eq(ws_audit_open(log, "write_file", false, &a), 0);
	{
		char *from = wst_path(dir, "d"), *to = wst_path(dir, "e");

		ck_assert_int_eq(rename(from, to), 0);
		free(from);
		free(to);
	}
	wst_symlink("o", dir, "d");
	ws_audit_discard(a);
	ck_assert_int_eq(stat(moved, &st), -1);
	ck_assert_int_eq(stat(other, &st), 0);
	/* Not made by this call: it stays. */
	ck_assert_int_eq(ws_audit_open(other, "write_file", false, &a), 0);
	ws_audit_discard(a);
	ck_assert_int_eq(stat(other, &st), 0);
	wst_rmrf(dir);
	free(dir);
	free(log);
	free(moved);
	free(other);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("audit");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, sha256_vectors, 0, 2);
	tcase_add_test(tc, time_is_utc);
	tcase_add_test(tc, chain_and_tampering);
	tcase_add_test(tc, concurrent_writers);
	tcase_add_test(tc, line_releases_the_lock);
	tcase_add_test(tc, tail_after_others_wrote);
	tcase_add_test(tc, tail_read_keeps_atime);
	tcase_add_test(tc, noatime_refused_log_of_another);
	tcase_add_test(tc, members_set_and_reset);
	tcase_add_test(tc, kept_open_follows_the_path);
	tcase_add_test(tc, kept_open_threads_and_processes);
	tcase_add_test(tc, unwritable_log);
	tcase_add_test(tc, opened_without_symlinks);
	tcase_add_test(tc, discard_by_directory);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
