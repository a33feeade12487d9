/*
 * unit-cancel: a stop asked from another thread is seen until reset, and
 * progress reaches the hook at most every WS_PROGRESS_MS unless forced.
 */
#include "wstest.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ws/cancel.h"

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
	char msg[32];
};

static void
hook(void *arg, long long done, const char *message)
{
	struct seen *s = arg;

	s->calls++;
	s->last = done;
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
	ws_progress_set(NULL, NULL);
	ws_progress(2000, "x", true);
	ck_assert_int_eq(s.calls, 3);
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
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
