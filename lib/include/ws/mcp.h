/*
 * ws/mcp.h - the toolbox as a Model Context Protocol server on a pair of
 * descriptors (lib/mcp.c): JSON-RPC 2.0, one message per line.
 *
 * The server runs each tools/call in-process, on the calling thread, by
 * calling the tool's command-line function (cmd/cmds.h) with the
 * arguments the CLI would get (--args JSON and the server's common
 * options), and captures the JSON envelope it prints (ws_out_set()).  The
 * reading thread meanwhile handles pings, cancellations and the answers
 * to the server's own requests (roots/list, elicitation/create).
 */
#ifndef WS_MCP_H
#define WS_MCP_H

#include <stdbool.h>
#include <stddef.h>

struct cJSON;
struct ws_mcp;

struct ws_cli;

/*
 * One tool served, by its LLM name: the server runs it from the tool
 * table (ws/tool.h), never through argv; prog, by_tool and run name its
 * binary and command-line function for the caller's own use.
 */
struct ws_mcp_tool {
	const char *name;	       /* "read_file" */
	const char *prog;	       /* "wsread" */
	bool by_tool;		       /* the binary needs --tool NAME */
	int (*run)(int argc, char **argv);
};

/*
 * A compatibility mode (--compat NAME): other tool names and arguments,
 * translated to ours.  list() returns the tools/list "tools" array;
 * call() one tools/call's result object ({"content": [...],
 * "structuredContent": {...}, "isError": bool}), or NULL when name is
 * none of its tools (the server answers -32602).  call() runs on a
 * worker thread, beside other calls (--jobs), and may run any of our
 * tools with ws_mcp_invoke(), as often as it needs.  Both return cJSON
 * trees the server frees.
 */
struct ws_mcp_compat {
	const char *name;	  /* "mcp-filesystem" */
	const char *instructions; /* for initialize; NULL: the server's own */
	struct cJSON *(*list)(struct ws_mcp *srv);
	struct cJSON *(*call)(struct ws_mcp *srv, const char *name,
			      const struct cJSON *args);
	/*
	 * The mode's state for one server (ws_mcp_compat_state()), made
	 * before any call and freed after the last: two servers in one
	 * process share nothing.  NULL from start() fails the server
	 * (out of memory); either may be NULL (no state).
	 */
	void *(*start)(void);
	void (*stop)(void *state);
};

struct ws_mcp_opts {
	const struct ws_mcp_tool *tools;
	size_t ntools;
	/*
	 * The workspace (--workspace, or the first DIR): pinned, roots from
	 * the client are then ignored.  NULL: the client's first root, else
	 * fallback (WS_ROOT), else every call fails with WORKSPACE_NOT_FOUND.
	 */
	const char *workspace;
	const char *fallback;
	/*
	 * Directories mounted at /.NAME (ws_mcp_mount_name()): the DIRs
	 * after the workspace, passed to every call as data, never through
	 * a "--mount VPREFIX=DIR" string.
	 */
	const char *const *mounts;
	size_t nmounts;
	/*
	 * The server's own common settings (--policy, --mount, --strict...,
	 * as the person gave them): every call of a tool on the table
	 * (ws/tool.h) starts from them (ws_cli_from_json()).
	 */
	const struct ws_cli *base;
	/* The same settings as command-line words (--mount M, --policy P...). */
	const char *const *common;
	size_t ncommon;
	bool net;		/* run_command calls get --net */
	/* run_command calls get --net-allow and --net-deny for each. */
	const char *const *net_allow;
	size_t nnet_allow;
	const char *const *net_deny;
	size_t nnet_deny;
	size_t max_message;	/* longest line read, in bytes (0: 32 MiB) */
	/*
	 * The ceilings of run_command's timeout (ms) and max_output (bytes)
	 * a model may ask for (0: 600 s and 1 MiB).  Other sizes and times
	 * have fixed ceilings (ws_ceilings_default, ws/cli.h).
	 */
	long long run_timeout_ms, run_max_output;
	/* How long a call waits for an answer to elicitation (0: 120 s). */
	long long approval_timeout_ms;
	/* How long a call waits for the client's roots (0: 10 s). */
	long long roots_timeout_ms;
	const struct ws_mcp_compat *compat; /* NULL: our tools */
	/* How many calls run side by side (--jobs; 0: WS_MCP_JOBS). */
	int jobs;
	int in_fd, out_fd;
};

/* The default --jobs: a long run_command never delays a read. */
#define WS_MCP_JOBS 4

/*
 * The default --max-message: a write_file of 5 MiB (as the reference
 * server's tests write) fits even when every byte is escaped as \u00XX
 * (6 bytes in JSON), and the line is only held as long as it is.
 */
#define WS_MCP_MAX_MESSAGE (32u << 20)

/* The protocol versions served, newest first, NULL-terminated. */
extern const char *const ws_mcp_versions[];

/*
 * Serve until end of input: returns 0 at EOF, or a negative WS_E* code
 * when the server cannot start or write its output.  When the client is
 * gone (a write to it failed, or at EOF its end of the output is closed
 * too), calls still queued are dropped unrun and running ones are
 * cancelled (as notifications/cancelled does); a client that only
 * closed the input gets the answers to the calls it sent.
 */
int ws_mcp_serve(const struct ws_mcp_opts *o);

/*
 * Run one of our tools (by LLM name) in-process with args (a JSON object;
 * NULL means {}), with the server's workspace and options, and return the
 * CLI's JSON envelope ({"success", "tool", "output", "error"}) as a cJSON
 * tree the caller frees.  Never NULL: a failure to run is an envelope
 * with an error.  Only from ws_mcp_compat.call (a worker thread, in the
 * call's own state).
 */
struct cJSON *ws_mcp_invoke(struct ws_mcp *srv, const char *tool,
			    const struct cJSON *args);

/* The compat mode's state for this server (its start()), or NULL. */
void *ws_mcp_compat_state(struct ws_mcp *srv);

/*
 * The directories the server serves (workspace first, then the --mount
 * flags', then the mounts of DIRs or roots), for a compat mode's "allowed
 * directories": a NULL-terminated array, and in *prefixes (if not NULL)
 * the virtual prefix of each ("/" for the workspace).  Only from
 * ws_mcp_compat.call.  Taken once per call, after the client's roots
 * are answered (a call waits for them as a native one does): the array
 * is the call's own, lives until the call ends, and every
 * ws_mcp_invoke() of the call runs on this same workspace and mounts,
 * whatever roots/list answers meanwhile.  Empty when there is no
 * workspace (the invoked tools then say why); NULL when out of memory.
 */
const char *const *ws_mcp_dirs(struct ws_mcp *srv, const char *const **prefixes);

/*
 * The one naming rule for the mounts of DIRs and roots: "/.NAME", NAME
 * the last component of dir ("root" if it has none or it is "." or
 * ".."), or "/.NAME-2", "/.NAME-3"... when the names in taken[0..n) hold
 * it already.  malloc'd; NULL when out of memory.
 */
char *ws_mcp_mount_name(const char *dir, const char *const *taken, size_t n);

#endif
