/* policy.c - the policy gate.  (Stub until the policy issue lands.) */
#include "ws/policy.h"

#include <string.h>

#include "ws/error.h"
#include "ws/workspace.h"

static const char *const ws__ops[WS__OP_COUNT] = {
	"read", "open", "stat", "list", "readlink", "write", "create",
	"mkdir", "chmod", "rename", "delete", "rmdir", "exec",
};

const char *
ws_op_name(enum ws_op op)
{
	return (unsigned)op < WS__OP_COUNT ? ws__ops[op] : "?";
}

int
ws_op_parse(const char *name, enum ws_op *op)
{
	for (int i = 0; i < WS__OP_COUNT; i++) {
		if (strcmp(name, ws__ops[i]) == 0) {
			*op = (enum ws_op)i;
			return 0;
		}
	}
	return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
			    "unknown operation \"%s\"", name);
}

int
ws_check(struct ws_ctx *ws, enum ws_op op, const char *real, const char *vpath)
{
	(void)op;
	(void)real;
	(void)vpath;
	if (ws->policy == NULL)
		return 0;
	return 0;
}
