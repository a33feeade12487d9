/*
 * unit-cancel: a stop asked from another thread is seen until reset, and
 * progress reaches the hook at most every WS_PROGRESS_MS unless forced;
 * each call (ws/call.h) has its own stop, progress, output, approver,
 * mounts, ceilings and front end, and a thread without one the default.
 */
#include "wstest.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ws/call.h"
#include "ws/cancel.h"
#include "ws/cli.h"

START_TEST(request_and_reset)
{
	ws_cancel_reset();
	ck_assert(!ws_cancelled());
	ws_cancel_request();
	ck_assert(ws_cancelled());
	ws_cancel_request(); /* twice is once */
	ck_assert(ws_cancelled());
	ws_cancel_reset();
	ck_assert(!ws_cancelled());
}
END_TEST

static void *
asker(void *arg)
{
	(void)arg;
	usleep(20000);
	ws_cancel_request();
	return NULL;
}

START_TEST(seen_across_threads)
{
	pthread_t t;
	int spins = 0;

	ws_cancel_reset();
	ck_assert_int_eq(pthread_create(&t, NULL, asker, NULL), 0);
	while (!ws_cancelled() && spins++ < 5000)
		usleep(1000);
	pthread_join(t, NULL);
	ck_assert(ws_cancelled());
	ws_cancel_reset();
}
END_TEST

struct seen {
	int calls;
	long long last;
	long long total;
	char msg[32];
};

static void
hook(void *arg, long long done, long long total, const char *message)
{
	struct seen *s = arg;

	s->calls++;
	s->last = done;
	s->total = total;
	snprintf(s->msg, sizeof(s->msg), "%s", message);
}

START_TEST(progress_is_rate_limited)
{
	struct seen s;

	memset(&s, 0, sizeof(s));
	/* No hook: nothing happens, and nothing is wanted. */
	ws_progress_set(NULL, NULL);
	ck_assert(!ws_progress_wanted());
	ws_progress(1, "x", true);
	ws_progress_set(hook, &s);
	ck_assert(ws_progress_wanted());
	/* The first report goes through, the next ones wait. */
	for (int i = 1; i <= 1000; i++)
		ws_progress(i, "files", false);
	ck_assert_int_eq(s.calls, 1);
	ck_assert_int_eq(s.last, 1);
	ck_assert_str_eq(s.msg, "files");
	/* A forced one goes at once. */
	ws_progress(1001, "end", true);
	ck_assert_int_eq(s.calls, 2);
	ck_assert_int_eq(s.last, 1001);
	/* After the interval, one more. */
	usleep((WS_PROGRESS_MS + 50) * 1000);
	ws_progress(1002, "files", false);
	ws_progress(1003, "files", false);
	ck_assert_int_eq(s.calls, 3);
	ck_assert_int_eq(s.last, 1002);
	ck_assert_int_eq(s.total, 0);
	/* A total goes to the hook as given (ftu17 03). */
	ws_progress_total(5, 45, "wait", true);
	ck_assert_int_eq(s.total, 45);
	ws_progress_set(NULL, NULL);
	ws_progress(2000, "x", true);
	ck_assert_int_eq(s.calls, 4);
}
END_TEST

static bool
approver_a(void *arg, const char *message)
{
	(void)arg;
	(void)message;
	return true;
}

/*
 * Two calls entered in turn by one thread: what one sets is not the
 * other's, nor the default call's, and leaving gives the default back.
 */
START_TEST(calls_keep_their_state)
{
	struct ws_call a, b;
	struct seen sa, sb;
	static const struct ws_mount_def mnt = {"/.m", "/tmp", false};
	static const struct ws_ceiling ceil = {"read_file", "max_bytes", 10, 5};
	char *ba = NULL, *bb = NULL;
	size_t la = 0, lb = 0;
	FILE *fa = open_memstream(&ba, &la), *fb = open_memstream(&bb, &lb);
	struct ws_call *dflt = ws_call_current();

	ck_assert_ptr_nonnull(fa);
	ck_assert_ptr_nonnull(fb);
	memset(&sa, 0, sizeof(sa));
	memset(&sb, 0, sizeof(sb));
	ws_cancel_reset();
	ws_call_init(&a, "mcp");
	ws_call_init(&b, "call");
	ck_assert_ptr_nonnull(dflt);
	ws_call_enter(&a);
	ck_assert_ptr_eq(ws_call_current(), &a);
	ws_out_set(fa);
	ws_progress_set(hook, &sa);
	ws_cli_set_approver(approver_a, &sa);
	ws_cli_set_mounts(&mnt, 1);
	ws_cli_set_ceilings(&ceil, 1);
	ws_cancel_request();
	ws_call_leave();
	ws_call_enter(&b);
	ck_assert(!ws_cancelled());
	ck_assert(!ws_progress_wanted());
	ck_assert(ws_out_is_stdout());
	ws_out_set(fb);
	ws_progress_set(hook, &sb);
	fputs("b", ws_out());
	ws_progress(7, "b", true);
	ck_assert_ptr_null(b.approver);
	ck_assert_uint_eq(b.nmounts, 0);
	ck_assert_uint_eq(b.nceil, 0);
	ck_assert_str_eq(b.frontend, "call");
	ws_call_leave();
	ck_assert_ptr_eq(ws_call_current(), dflt);
	ck_assert(!ws_cancelled());
	ck_assert(!ws_progress_wanted());
	ck_assert(ws_out_is_stdout());
	ws_call_enter(&a);
	ck_assert(ws_cancelled());
	fputs("a", ws_out());
	ws_progress(3, "a", true);
	ck_assert_ptr_eq(a.approver, approver_a);
	ck_assert_uint_eq(a.nmounts, 1);
	ck_assert_uint_eq(a.nceil, 1);
	ws_call_leave();
	ck_assert_int_eq(sa.calls, 1);
	ck_assert_int_eq(sa.last, 3);
	ck_assert_int_eq(sb.calls, 1);
	ck_assert_int_eq(sb.last, 7);
	fclose(fa);
	fclose(fb);
	ck_assert_str_eq(ba, "a");
	ck_assert_str_eq(bb, "b");
	free(ba);
	free(bb);
	ws_call_fini(&a);
	ws_call_fini(&b);
}
END_TEST

/* A thread in a call: a cancel of its call, and only that, stops it. */
struct runner {
	struct ws_call *c;
	atomic_int phase; /* 1 entered, 2 checked */
	bool stopped;
};

static void *
runner_main(void *arg)
{
	struct runner *r = arg;

	ws_call_enter(r->c);
	atomic_store(&r->phase, 1);
	for (int i = 0; i < 5000 && !ws_cancelled(); i++)
		usleep(1000);
	r->stopped = ws_cancelled();
	ws_call_leave();
	atomic_store(&r->phase, 2);
	return NULL;
}

START_TEST(cancel_is_per_call)
{
	struct ws_call a, b;
	struct runner ra = {&a, 0, false}, rb = {&b, 0, false};
	pthread_t ta, tb;

	ws_cancel_reset();
	ws_call_init(&a, NULL);
	ws_call_init(&b, NULL);
	ck_assert_int_eq(pthread_create(&ta, NULL, runner_main, &ra), 0);
	ck_assert_int_eq(pthread_create(&tb, NULL, runner_main, &rb), 0);
	while (atomic_load(&ra.phase) < 1 || atomic_load(&rb.phase) < 1)
		usleep(1000);
	ws_call_cancel(&a);
	pthread_join(ta, NULL);
	ck_assert(ra.stopped);
	/* b goes on, not stopped; nor is the default call. */
	ck_assert_int_eq(atomic_load(&rb.phase), 1);
	ck_assert(!ws_cancelled());
	ws_call_cancel(&b);
	pthread_join(tb, NULL);
	ck_assert(rb.stopped);
	ws_call_fini(&a);
	ws_call_fini(&b);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("unit-cancel");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, request_and_reset);
	tcase_add_test(tc, seen_across_threads);
	tcase_add_test(tc, progress_is_rate_limited);
	tcase_add_test(tc, calls_keep_their_state);
	tcase_add_test(tc, cancel_is_per_call);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
