/*
 * ws/audit.h - the audit log (DESIGN.md 5, "History and audit"; issue
 * 22): one JSON line per tool call, by every tool and front end, in an
 * append-only file chosen by --audit FILE, env WS_AUDIT or the
 * configuration's "audit".
 *
 * A call gathers what it decides (every ws_check() and wsrun's command
 * check report to it) and what it did (the tool adds its operation,
 * bytes, history id, and for wsrun the command, exit status and
 * isolation), and ws_cli_finish() writes the line once the outcome is
 * known.  The line ends with "prev", the "hash" of the log's previous
 * line, and its own "hash": the SHA-256 of the line's bytes up to and
 * including the "prev" member.  A changed byte breaks that line's hash, a
 * deleted or reordered line the next line's "prev"; ws_audit_verify()
 * says where.  (Cutting lines off the end leaves a valid chain: keep the
 * last hash elsewhere, and ws_audit_check() finds it again.)
 *
 * Writing takes an exclusive flock() on the log, reads its tail (the
 * previous line's hash stands at a fixed place from its end; one pread()
 * from where the log ended when the call opened it), and appends the
 * line with one write(2) on an O_APPEND descriptor: writers in several
 * processes never interleave and never fork the chain.  A call's own
 * descriptor is closed at once after the line, which releases the lock.
 * A process that
 * keeps the log open (ws_audit_keep_open(): wstools mcp) shares one
 * descriptor among its threads and serialises their lines with a mutex
 * as well.
 */
#ifndef WS_AUDIT_H
#define WS_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "ws/policy.h"

struct ws_audit;

/*
 * Open the log at path for one call (O_RDWR | O_APPEND | O_CREAT,
 * mode 0600), for tool (the LLM tool name).  A log that cannot be opened
 * is WS_EIO_ERROR naming it -- before the call changes anything --
 * unless best_effort, when *out is still set and nothing is written.
 */
int ws_audit_open(const char *path, const char *tool, bool best_effort,
		  struct ws_audit **out);

/* Whether the call's log is open (a regular file, opened without
 * following a symlink as its last component): not when best effort
 * went on without it. */
bool ws_audit_writable(const struct ws_audit *a);

/*
 * The descriptor the call's line goes to (-1: none), for a process
 * forked to write the line later (a command's guardian, lib/run.c),
 * which closes every descriptor but the ones it names.  A call whose
 * descriptor was asked for unlocks the log after its line: another
 * process may hold the same open file, and with it the lock, after this
 * one closed it (otherwise the close is the unlock).
 */
int ws_audit_fd(struct ws_audit *a);

/*
 * Whether the call opened its log (ws_audit_writable()) with no symlink
 * on the way to it, so that its name as spelled is the way to it: the
 * entries it passes through are guarded from the spelling
 * (ws_ctx_guard_file()).  False for a log a process kept open from an
 * earlier call.
 */
bool ws_audit_plain(const struct ws_audit *a);

/*
 * Keep the log open across the calls of this process (on), or close it
 * (off; also at the end, so that nothing stays open): a long-lived
 * process such as wstools mcp then spends an lstat() of the log's path
 * a call instead of an open(), an fstat() and a close().  Each call
 * still compares the file at the path with the one kept open (device
 * and inode), so a log renamed away, removed or replaced between calls
 * (rotated) is noticed: the call's line goes to the file now at the
 * path (a new one starts its own chain).  Only the first path a call
 * asks for is kept; another one is opened per call, as without this.
 */
void ws_audit_keep_open(bool on);

/*
 * Which front end runs the calls of this process: "cli" (the default,
 * or env WS_FRONTEND, which wstools call sets for the tool it runs),
 * "mcp" (wstools mcp sets it).
 */
void ws_audit_set_frontend(const char *name);

/* Who approves this call's "approve" decisions when asked: "tty" or
 * "elicitation" (the session sets it). */
void ws_audit_set_approver(struct ws_audit *a, const char *who);

/* How an "approve" decision went, for ws_audit_decision(). */
enum ws_audit_approval {
	WS_AUDIT_NOT_ASKED,  /* the decision was not "approve" */
	WS_AUDIT_BY_FLAG,    /* --approve */
	WS_AUDIT_BY_PROMPT,  /* asked and given (tty or elicitation) */
	WS_AUDIT_REFUSED,    /* asked (or could not be) and not given */
};

/*
 * Record one decision: op on real (shown as vpath), decided by rule of
 * policy (either may be NULL: no policy, or a guard when rule names it),
 * decision "allow", "deny" or "approve", the approval, and code (0 or
 * the refusal's WS_E*).  The call's line names its first refusal (else
 * its first change, else its first decision) and counts the rest.
 */
void ws_audit_decision(struct ws_audit *a, const char *op, const char *real,
		       const char *vpath, const char *policy, const char *rule,
		       const char *decision, enum ws_audit_approval appr,
		       int code);

/*
 * Record a failure that no check decided (the resolver's: a path
 * outside, a symlink out, a missing entry): the line then names path as
 * the error gave it, and op (may be NULL) as its operation.  Does
 * nothing when the call saw a check (the line names that one) or path
 * is NULL.
 */
void ws_audit_refusal(struct ws_audit *a, const char *op, const char *path,
		      int code);

/* Add a member to the call's line ("operation", "bytes", "history_id",
 * "command", ...); a key set twice keeps the last value. */
void ws_audit_set_str(struct ws_audit *a, const char *key, const char *v);
void ws_audit_set_int(struct ws_audit *a, const char *key, long long v);
/* A JSON text, as is (wsrun's isolation summary). */
void ws_audit_set_json(struct ws_audit *a, const char *key, const char *json);

/* The call's outcome: 0 or a WS_E* (ws_cli_fail() sets it). */
void ws_audit_outcome(struct ws_audit *a, int code);

/*
 * Write the call's line (once; later calls do nothing).  Returns 0, or
 * WS_EIO_ERROR when the log could not be written (0 if best effort).
 */
int ws_audit_emit(struct ws_audit *a, int exit_status);

/*
 * In a child forked from a process that may have other threads (wsrun's
 * guardian in wstools mcp): the log's locks start unlocked, as no other
 * thread runs here to release them.
 */
void ws_audit_forked(void);

/*
 * The call's line so far as text (its log's path, the decisions, the
 * members the tool added), for another process to write it: the guardian
 * of wstools mcp (lib/run.c), which writes a command's line when the
 * server was killed during it.  NULL when out of memory.
 */
char *ws_audit_save(const struct ws_audit *a);

/*
 * A call's state from ws_audit_save()'s text, its log opened again by
 * its path (as ws_audit_open()), into *out.  The frontend saved is the
 * line's.
 */
int ws_audit_load(const char *saved, struct ws_audit **out);

/*
 * ts as the audit log and the history write a time, in UTC with
 * microseconds: 2026-11-27T18:51:28.269123Z (27 bytes and the NUL).
 * Reads no time zone (no /etc/localtime, no TZ).
 */
void ws_audit_time(const struct timespec *ts, char out[32]);

/* Free a call's state (NULL is fine). */
void ws_audit_free(struct ws_audit *a);

/*
 * Free a call's state whose log was refused after it was opened (its
 * real name turned out to lie in the workspace): no line is written, and
 * the log file is removed when this call made it and it is still empty
 * and still under its name in the directory it was made in (by that
 * directory's descriptor), so that a refused call leaves nothing.
 */
void ws_audit_discard(struct ws_audit *a);

/*
 * Check the chain of the log at path: *lines gets the number of lines
 * read, *bad the first line (1-based) whose hash or "prev" is wrong, or
 * 0 when the whole chain holds; *why (may be NULL) a static reason.
 * Errors: WS_EIO_ERROR (cannot read), WS_ENOMEM.
 */
int ws_audit_verify(const char *path, size_t *lines, size_t *bad,
		    const char **why);

/*
 * What ws_audit_check() found: the lines read, the first line whose hash
 * or "prev" is wrong (0: the chain holds) and why, the first line's
 * "prev" (64 zeros for a log begun from nothing) and the hash of the
 * last line the chain holds to (what to keep elsewhere, so that lines
 * cut off the end are noticed), "" where there is none; expect_at the
 * line whose hash is the expected one, 0 when none is (or none was
 * asked for).
 */
struct ws_audit_verdict {
	size_t lines;
	size_t bad;
	const char *why;
	char first_prev[65];
	char last_hash[65];
	size_t expect_at;
};

/*
 * ws_audit_verify(), and whether a line of the chain has the hash expect
 * (NULL: none asked): a hash kept from an earlier --verify must still be
 * in the log, else lines were cut off (ftu13 09).  Errors: WS_EIO_ERROR
 * (cannot read), WS_ENOMEM.
 */
int ws_audit_check(const char *path, const char *expect,
		   struct ws_audit_verdict *v);

/* The log a call writes to, from the command line, the environment and
 * the configuration (flag > WS_AUDIT > config); NULL for none. */
const char *ws_audit_path(const char *flag, const char *config);

#endif
