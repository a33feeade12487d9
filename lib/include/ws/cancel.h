/*
 * ws/cancel.h - asking a long call to stop, and hearing how far it got
 * (lib/cancel.c).
 *
 * A long-lived front end (wstools mcp) runs tool calls on worker threads
 * while another thread reads requests: when the client cancels one, that
 * thread calls ws_call_cancel() on its call (ws/call.h), and the loops
 * that can run long (wsgrep's walk and search, wsrun's wait) see
 * ws_cancelled() and stop as they do at a time limit.  The same loops
 * report progress through ws_progress(), which calls the hook at most
 * every few hundred milliseconds.  All of it is the current call's
 * (ws_call_current()): calls that run side by side stop and report apart.
 */
#ifndef WS_CANCEL_H
#define WS_CANCEL_H

#include <stdbool.h>

/* Ask the current call to stop (async-signal-safe). */
void ws_cancel_request(void);

/* Whether a stop was asked since the last ws_cancel_reset(). */
bool ws_cancelled(void);

/* Forget a stop asked before: called before each call starts. */
void ws_cancel_reset(void);

/*
 * The progress hook: called with how much is done (files searched,
 * milliseconds run), the total it goes to (0: not known) and a message
 * that reads on its own, as a client shows it without the numbers
 * ("waiting for ... (5 s of at most 45 s)", ftu17 03).  NULL: none (the
 * default).
 */
typedef void (*ws_progress_fn)(void *arg, long long done, long long total,
			       const char *message);
void ws_progress_set(ws_progress_fn fn, void *arg);

/* Whether a progress hook is set (a loop may then wake up to report). */
bool ws_progress_wanted(void);

/*
 * Report progress: the hook runs on the first report after
 * ws_progress_set() and then at most every WS_PROGRESS_MS; force
 * reports now (a start or an end).
 */
#define WS_PROGRESS_MS 200
void ws_progress(long long done, const char *message, bool force);
/* The same with a total (0: not known). */
void ws_progress_total(long long done, long long total, const char *message,
		       bool force);

#endif
