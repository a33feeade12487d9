/*
 * ws/policy.h - operations and the policy gate every tool asks before it
 * acts (DESIGN.md section 6).
 *
 * A workspace without a policy allows every operation inside the boundary,
 * and ws_check() then returns at once: calls with no policy do not pay for
 * the policy code.
 */
#ifndef WS_POLICY_H
#define WS_POLICY_H

#include <stdbool.h>

struct ws_ctx;

/* The operations of DESIGN.md section 6. */
enum ws_op {
	WS_OP_READ,
	WS_OP_OPEN,
	WS_OP_STAT,
	WS_OP_LIST,
	WS_OP_READLINK,
	WS_OP_WRITE,
	WS_OP_CREATE,
	WS_OP_MKDIR,
	WS_OP_CHMOD,
	WS_OP_RENAME,
	WS_OP_DELETE,
	WS_OP_RMDIR,
	WS_OP_EXEC,
	WS__OP_COUNT
};

/* The name of an operation ("read", ...). */
const char *ws_op_name(enum ws_op op);

/* Parse an operation name; returns 0 or WS_EINVALID_ARGUMENT. */
int ws_op_parse(const char *name, enum ws_op *op);

/*
 * Ask the workspace's policy whether op may act on the real path real
 * (vpath is used in messages).  Returns 0 when allowed (or when no policy
 * is loaded), WS_EPOLICY_DENIED, or WS_EAPPROVAL_REQUIRED with the rule's
 * rendered message, unless the operation was approved (--approve, or yes
 * at the terminal prompt).
 */
int ws_check(struct ws_ctx *ws, enum ws_op op, const char *real,
	     const char *vpath);

#endif
