/*
 * cancel.c - a call's stop request and its rate-limited progress hook
 * for the long loops (grep.c's walk, run.c's wait).  See ws/cancel.h.
 */
#include "ws/cancel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#include "ws/call.h"

/*
 * The stop request and the progress hook are the current call's (see
 * ws/call.h): calls that run side by side stop and report apart.
 */

void
ws_cancel_request(void)
{
	ws_call_cancel(ws_call_current());
}

bool
ws_cancelled(void)
{
	return atomic_load_explicit(&ws_call_current()->stop, memory_order_relaxed);
}

void
ws_cancel_reset(void)
{
	atomic_store(&ws_call_current()->stop, false);
}

void
ws_progress_set(ws_progress_fn fn, void *arg)
{
	struct ws_call *c = ws_call_current();

	pthread_mutex_lock(&c->pmu);
	c->pfn = fn;
	c->parg = arg;
	c->plast = -1;
	atomic_store(&c->pon, fn != NULL);
	pthread_mutex_unlock(&c->pmu);
}

bool
ws_progress_wanted(void)
{
	return atomic_load_explicit(&ws_call_current()->pon, memory_order_relaxed);
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
	ws_progress_total(done, 0, message, force);
}

void
ws_progress_total(long long done, long long total, const char *message,
		  bool force)
{
	struct ws_call *c = ws_call_current();
	long long now;

	/* The common case, no hook, costs one relaxed load. */
	if (!atomic_load_explicit(&c->pon, memory_order_relaxed))
		return;
	now = ws__now_ms();
	pthread_mutex_lock(&c->pmu);
	if (c->pfn != NULL &&
	    (force || c->plast < 0 || now - c->plast >= WS_PROGRESS_MS)) {
		c->plast = now;
		c->pfn(c->parg, done, total, message);
	}
	pthread_mutex_unlock(&c->pmu);
}
