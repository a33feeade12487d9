/*
 * ws/call.h - the state of one tool call (lib/call.c).
 *
 * A tool reads what its front end set up for the call through a few
 * setters and getters: where its output goes (ws_out()), whether it was
 * asked to stop (ws_cancelled()), whom to tell how far it got
 * (ws_progress()), who approves a policy's "approve" (the approver), the
 * mounts and the ceilings a front end passes as data, and which front
 * end runs it (the audit log's "frontend").  All of that lives in a
 * struct ws_call, so that a server can run several calls side by side,
 * each on its own thread with its own state.
 *
 * A thread runs a call once it entered it (ws_call_enter()); a thread
 * that entered none (a CLI's main(), or any thread before it enters)
 * uses the process's default call, so that a program with one call at a
 * time needs nothing of this header.  The old setters (ws_out_set(),
 * ws_cancel_*(), ws_progress_set(), ws_cli_set_approver(),
 * ws_cli_set_mounts(), ws_cli_set_ceilings(), ws_audit_set_frontend())
 * set the current call's state.  Threads a call starts for itself
 * (wsgrep's search threads) enter the same call.
 */
#ifndef WS_CALL_H
#define WS_CALL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ws/cancel.h"

struct ws_mount_def;
struct ws_ceiling;
struct ws_session;

struct ws_call {
	/* The output sink (NULL: stdout). */
	FILE *out;
	/* Set by ws_call_cancel() from any thread, or a signal handler. */
	atomic_bool stop;
	/*
	 * The progress hook and the time of its last report: a call's own
	 * threads report too, so pmu keeps the hook's calls one at a time.
	 */
	pthread_mutex_t pmu;
	ws_progress_fn pfn;
	void *parg;
	long long plast;
	atomic_bool pon;
	/* Who answers a policy's "approve" (NULL: the terminal). */
	bool (*approver)(void *arg, const char *message);
	void *approver_arg;
	/* Mounts passed as data (not owned). */
	const struct ws_mount_def *mounts;
	size_t nmounts;
	/* The front end's ceilings of a model's values (not owned). */
	const struct ws_ceiling *ceil;
	size_t nceil;
	/* "cli", "call", "mcp" or NULL (the environment, else "cli"). */
	const char *frontend;
	/*
	 * What the call's server remembers between calls (ws/session.h;
	 * not owned), or NULL: the call opens everything itself.
	 */
	struct ws_session *session;
	/* The front end's own state of the call (not owned), or NULL. */
	void *owner;
	/*
	 * The order the front end received the call in (1, 2, ...; 0:
	 * none): the commands of one process take a workspace's lock in
	 * this order (lib/run.c, ws__ws_lock()).
	 */
	unsigned long long order;
};

/*
 * Make c an empty call (no sink, no hook, not stopped) of the front end
 * named frontend (a string that outlives c, or NULL).  Free it with
 * ws_call_fini().
 */
void ws_call_init(struct ws_call *c, const char *frontend);

/* Free what ws_call_init() made; c must be bound to no thread. */
void ws_call_fini(struct ws_call *c);

/*
 * Bind c to the calling thread: until ws_call_leave(), every setter and
 * getter above acts on c.  Several threads may be in one call.
 */
void ws_call_enter(struct ws_call *c);

/* Unbind the calling thread: it uses the process's default call again. */
void ws_call_leave(void);

/* The calling thread's call, or the process's default call: never NULL. */
struct ws_call *ws_call_current(void);

/*
 * Ask call c to stop (any thread, async-signal-safe): its loops see
 * ws_cancelled() as a thread in c.
 */
void ws_call_cancel(struct ws_call *c);

#endif
