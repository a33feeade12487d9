/*
 * call.c - the state of one tool call, and which call a thread runs (see
 * ws/call.h).
 */
#include "ws/call.h"

#include <string.h>

/*
 * The call of a thread that entered none: a CLI's one call.  Its mutex
 * is initialised statically, so that it works before main() does
 * anything.
 */
static struct ws_call ws__default_call = {
	.pmu = PTHREAD_MUTEX_INITIALIZER,
	.plast = -1,
};

/*
 * The calling thread's call.  Static TLS (libws is linked into the
 * programs), so that reading it from a signal handler is safe.
 */
static _Thread_local struct ws_call *ws__cur;

void
ws_call_init(struct ws_call *c, const char *frontend)
{
	memset(c, 0, sizeof(*c));
	atomic_init(&c->stop, false);
	atomic_init(&c->pon, false);
	pthread_mutex_init(&c->pmu, NULL);
	c->plast = -1;
	c->frontend = frontend;
}

void
ws_call_fini(struct ws_call *c)
{
	pthread_mutex_destroy(&c->pmu);
}

void
ws_call_enter(struct ws_call *c)
{
	ws__cur = c;
}

void
ws_call_leave(void)
{
	ws__cur = NULL;
}

struct ws_call *
ws_call_current(void)
{
	struct ws_call *c = ws__cur;

	return c != NULL ? c : &ws__default_call;
}

void
ws_call_cancel(struct ws_call *c)
{
	atomic_store(&c->stop, true);
}
