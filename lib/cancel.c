/*
 * cancel.c - a process-wide stop request and a rate-limited progress
 * hook for the long loops (grep.c's walk, run.c's wait).  See ws/cancel.h.
 */
#include "ws/cancel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

static atomic_bool ws__stop;

/*
 * The hook and the time of the last report: wsgrep reports from several
 * worker threads, so a mutex keeps the hook's calls one at a time.
 */
static pthread_mutex_t ws__pmu = PTHREAD_MUTEX_INITIALIZER;
static ws_progress_fn ws__pfn;
static void *ws__parg;
static long long ws__plast = -1;
static atomic_bool ws__pon;

void
ws_cancel_request(void)
{
	atomic_store(&ws__stop, true);
}

bool
ws_cancelled(void)
{
	return atomic_load_explicit(&ws__stop, memory_order_relaxed);
}

void
ws_cancel_reset(void)
{
	atomic_store(&ws__stop, false);
}

void
ws_progress_set(ws_progress_fn fn, void *arg)
{
	pthread_mutex_lock(&ws__pmu);
	ws__pfn = fn;
	ws__parg = arg;
	ws__plast = -1;
	atomic_store(&ws__pon, fn != NULL);
	pthread_mutex_unlock(&ws__pmu);
}

bool
ws_progress_wanted(void)
{
	return atomic_load_explicit(&ws__pon, memory_order_relaxed);
}

static long long
ws__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
ws_progress(long long done, const char *message, bool force)
{
	long long now;

	/* The common case, no hook, costs one relaxed load. */
	if (!ws_progress_wanted())
		return;
	now = ws__now_ms();
	pthread_mutex_lock(&ws__pmu);
	if (ws__pfn != NULL &&
	    (force || ws__plast < 0 || now - ws__plast >= WS_PROGRESS_MS)) {
		ws__plast = now;
		ws__pfn(ws__parg, done, message);
	}
	pthread_mutex_unlock(&ws__pmu);
}
