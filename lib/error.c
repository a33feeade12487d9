/* error.c - error codes, exit statuses and the last-error message. */
#include "ws/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	int exit_status;
} ws__errors[WS__ECOUNT] = {
	[0] = {"OK", 0},
	[1] = {"INVALID_ARGUMENT", 2},
	[2] = {"INVALID_PATH", 2},
	[3] = {"INVALID_PATTERN", 2},
	[4] = {"POLICY_ERROR", 2},
	[5] = {"WORKSPACE_NOT_FOUND", 2},
	[6] = {"PATH_OUTSIDE_WORKSPACE", 3},
	[7] = {"SYMLINK_OUTSIDE_WORKSPACE", 3},
	[8] = {"READ_ONLY", 3},
	[9] = {"POLICY_DENIED", 3},
	[10] = {"BLOCKED_COMMAND", 3},
	[11] = {"APPROVAL_REQUIRED", 4},
	[12] = {"NOT_FOUND", 5},
	[13] = {"NOT_A_DIRECTORY", 5},
	[14] = {"IS_A_DIRECTORY", 5},
	[15] = {"DIRECTORY_NOT_EMPTY", 5},
	[16] = {"NOT_A_REGULAR_FILE", 5},
	[17] = {"SYMLINK_LOOP", 5},
	[18] = {"FILE_TOO_LARGE", 5},
	[19] = {"ALREADY_EXISTS", 5},
	[20] = {"EDIT_NO_MATCH", 5},
	[21] = {"EDIT_AMBIGUOUS", 5},
	[22] = {"PERMISSION_DENIED", 5},
	[23] = {"IO_ERROR", 5},
	[24] = {"LIMIT_EXCEEDED", 6},
	[25] = {"SANDBOX_UNAVAILABLE", 6},
	[26] = {"IO_ERROR", 5},
	[27] = {"VERSION_MISMATCH", 5},
};

/* One call is one thread in every tool, but keep the state per thread so
 * that a future threaded walker cannot garble another thread's message. */
static _Thread_local int ws__last_code;
static _Thread_local char ws__last_msg[1024];
static _Thread_local char *ws__last_path;
/* What an error object may carry besides its message (DESIGN.md 4). */
static _Thread_local char ws__last_hint[512];
static _Thread_local char *ws__last_policy, *ws__last_rule, *ws__last_op;

static void
ws__clear_extras(void)
{
	ws__last_hint[0] = '\0';
	free(ws__last_policy);
	free(ws__last_rule);
	free(ws__last_op);
	ws__last_policy = ws__last_rule = ws__last_op = NULL;
}

static int
ws__index(int code)
{
	int i = -code;

	if (i < 0 || i >= WS__ECOUNT)
		return -WS_EIO_ERROR;
	return i;
}

const char *
ws_error_name(int code)
{
	return ws__errors[ws__index(code)].name;
}

int
ws_error_exit_status(int code)
{
	return ws__errors[ws__index(code)].exit_status;
}

int
ws_error_setv(int code, const char *path, const char *fmt, va_list ap)
{
	char *p = path ? strdup(path) : NULL;

	/* A new error: the old one's hint and policy no longer apply. */
	ws__clear_extras();
	ws__last_code = code;
	vsnprintf(ws__last_msg, sizeof(ws__last_msg), fmt, ap);
	free(ws__last_path);
	ws__last_path = p;
	return code;
}

int
ws_error_set_hint(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ws__last_hint, sizeof(ws__last_hint), fmt, ap);
	va_end(ap);
	return ws__last_code;
}

int
ws_error_set_policy(const char *policy, const char *rule, const char *operation)
{
	char *p = policy ? strdup(policy) : NULL;
	char *r = rule ? strdup(rule) : NULL;
	char *o = operation ? strdup(operation) : NULL;

	free(ws__last_policy);
	free(ws__last_rule);
	free(ws__last_op);
	ws__last_policy = p;
	ws__last_rule = r;
	ws__last_op = o;
	return ws__last_code;
}

void
ws_error_set_path(const char *path)
{
	/* path may be ws__last_path itself: copy before freeing. */
	char *p = path ? strdup(path) : NULL;

	free(ws__last_path);
	ws__last_path = p;
}

const char *
ws_error_last_hint(void)
{
	return ws__last_hint[0] ? ws__last_hint : NULL;
}

const char *
ws_error_last_policy(void)
{
	return ws__last_policy;
}

const char *
ws_error_last_rule(void)
{
	return ws__last_rule;
}

const char *
ws_error_last_operation(void)
{
	return ws__last_op;
}

int
ws_error_set(int code, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ws_error_setv(code, path, fmt, ap);
	va_end(ap);
	return code;
}

int
ws_error_from_errno(int err)
{
	switch (err) {
	case ENOENT:
		return WS_ENOT_FOUND;
	case ENOTDIR:
		return WS_ENOT_A_DIRECTORY;
	case EISDIR:
		return WS_EIS_A_DIRECTORY;
	case ENOTEMPTY:
		return WS_EDIRECTORY_NOT_EMPTY;
	case ELOOP:
		return WS_ESYMLINK_LOOP;
	case EEXIST:
		return WS_EALREADY_EXISTS;
	case EACCES:
	case EPERM:
		return WS_EPERMISSION_DENIED;
	case EROFS:
		return WS_EREAD_ONLY;
	case ENAMETOOLONG:
		return WS_EINVALID_PATH;
	case EFBIG:
		return WS_EFILE_TOO_LARGE;
	case ENOMEM:
		return WS_ENOMEM;
	case EXDEV:
		return WS_EPATH_OUTSIDE_WORKSPACE;
	default:
		return WS_EIO_ERROR;
	}
}

int
ws_error_errno(int err, const char *path, const char *what)
{
	return ws_error_set(ws_error_from_errno(err), path, "%s: %s", what,
			    strerror(err));
}

const char *
ws_error_last(void)
{
	return ws__last_msg;
}

int
ws_error_last_code(void)
{
	return ws__last_code;
}

const char *
ws_error_last_path(void)
{
	return ws__last_path;
}

void
ws_error_clear(void)
{
	ws__clear_extras();
	ws__last_code = 0;
	ws__last_msg[0] = '\0';
	ws__last_hint[0] = '\0';
	free(ws__last_path);
	ws__last_path = NULL;
}
