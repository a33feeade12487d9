/*
 * ws/error.h - error codes, exit statuses and the last-error message.
 *
 * Every libws function returns 0 (or a non-negative count) on success and a
 * negative WS_E* code on failure, after leaving a human-readable message
 * that ws_error_last() returns.  Only a tool's main() prints it.
 */
#ifndef WS_ERROR_H
#define WS_ERROR_H

#include <stdarg.h>

/* The error codes of DESIGN.md section 4, as negative integers. */
enum ws_err {
	WS_OK = 0,
	WS_EINVALID_ARGUMENT = -1,
	WS_EINVALID_PATH = -2,
	WS_EINVALID_PATTERN = -3,
	WS_EPOLICY_ERROR = -4,
	WS_EWORKSPACE_NOT_FOUND = -5,
	WS_EPATH_OUTSIDE_WORKSPACE = -6,
	WS_ESYMLINK_OUTSIDE_WORKSPACE = -7,
	WS_EREAD_ONLY = -8,
	WS_EPOLICY_DENIED = -9,
	WS_EBLOCKED_COMMAND = -10,
	WS_EAPPROVAL_REQUIRED = -11,
	WS_ENOT_FOUND = -12,
	WS_ENOT_A_DIRECTORY = -13,
	WS_EIS_A_DIRECTORY = -14,
	WS_EDIRECTORY_NOT_EMPTY = -15,
	WS_ENOT_A_REGULAR_FILE = -16,
	WS_ESYMLINK_LOOP = -17,
	WS_EFILE_TOO_LARGE = -18,
	WS_EALREADY_EXISTS = -19,
	WS_EEDIT_NO_MATCH = -20,
	WS_EEDIT_AMBIGUOUS = -21,
	WS_EPERMISSION_DENIED = -22,
	WS_EIO_ERROR = -23,
	WS_ELIMIT_EXCEEDED = -24,
	WS_ESANDBOX_UNAVAILABLE = -25,
	WS_ENOMEM = -26, /* reported as IO_ERROR */
	WS_EVERSION_MISMATCH = -27, /* wswrite --if-version: the file changed */
	WS__ECOUNT = 28
};

/* Name of an error code as it appears in JSON, e.g. "NOT_FOUND". */
const char *ws_error_name(int code);

/* Exit status of DESIGN.md section 4 for an error code (0 for WS_OK). */
int ws_error_exit_status(int code);

/*
 * Record the last error: its code, the path it concerns (may be NULL) and a
 * printf-style message.  Returns code, so callers can write
 * `return ws_error_set(WS_ENOT_FOUND, path, "no such file")`.
 */
int ws_error_set(int code, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Same as ws_error_set() with a va_list. */
int ws_error_setv(int code, const char *path, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/*
 * Map an errno value from a failed system call to a WS_E* code and record
 * it with the strerror text, prefixed by what (e.g. "open").
 */
int ws_error_errno(int err, const char *path, const char *what);

/* Translate an errno value into the closest WS_E* code, without recording. */
int ws_error_from_errno(int err);

/* The message of the last recorded error ("" if none). */
const char *ws_error_last(void);

/* The code of the last recorded error (WS_OK if none). */
int ws_error_last_code(void);

/* The path attached to the last recorded error, or NULL. */
const char *ws_error_last_path(void);

/*
 * Attach to the last error what the caller should do next, in its own
 * terms ("list the directory first", not a flag), printed as the error
 * object's "hint".  ws_error_set() forgets the previous one, so call this
 * after it.  Returns the last error's code.
 */
int ws_error_set_hint(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/*
 * Attach the policy decision behind the last error: the policy's name, the
 * rule that decided and the operation ("write", "delete"...), printed as
 * "policy", "rule" and "operation".  Any may be NULL.  Returns the code.
 */
int ws_error_set_policy(const char *policy, const char *rule,
			const char *operation);

/*
 * Name another path in the last error, keeping its code, message, hint and
 * policy fields (a resolver naming the path as the user wrote it).
 */
void ws_error_set_path(const char *path);

/* The hint, policy, rule and operation of the last error, or NULL. */
const char *ws_error_last_hint(void);
const char *ws_error_last_policy(void);
const char *ws_error_last_rule(void);
const char *ws_error_last_operation(void);

/* Forget the last error. */
void ws_error_clear(void);

#endif
