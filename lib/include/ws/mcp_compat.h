/*
 * ws/mcp_compat.h - `wstools mcp --compat mcp-filesystem`: the tools of the
 * reference MCP filesystem server (@modelcontextprotocol/server-filesystem
 * 2026.8.31) served on top of the toolbox's own tools.
 *
 * The interface, for the MCP server core:
 *
 *   struct ws_mcp_compat_fs *c;
 *   ws_mcp_compat_new(dirs, vprefixes, ndirs, &c);     once, at start
 *   cJSON *tools = ws_mcp_compat_tools();              tools/list "tools"
 *   ws_mcp_compat_call(c, name, arguments, native, arg, &result);
 *                                                      each tools/call
 *   ws_mcp_compat_free(c);
 *
 * The server (lib/mcp.c) plugs it in through its own hook,
 * ws_mcp_compat_filesystem below (lib/mcp_compat_hook.c), listed in
 * cmd/wstools.c's compats[].
 *
 * A compat call is translated into one or more native calls (toolbox tool
 * name + native arguments, exactly as `wstools call NAME JSON` takes them),
 * which the core runs in-process through `native`; their outputs are
 * rendered back into the reference server's result: a CallToolResult
 * object {"content": [...], "structuredContent": {...}} with the text
 * formatted as the reference formats it, or {"content": [{"type": "text",
 * "text": MESSAGE}], "isError": true} for a refusal or a failure.
 *
 * Paths: as in the reference server, every allowed directory given on the
 * command line is reachable at its real absolute path (and at the path as
 * spelled, when that went through a symlink); a relative path is taken
 * against the first allowed directory that contains the result.  The
 * first directory is the workspace, the others are mounts: a path under
 * DIR_k is handed to the native tool as a path relative to the workspace
 * root in the virtual view ("sub/a.txt", ".NAME/x"), so that the native
 * resolver (descriptors, guards, policies) decides, and paths in results
 * are written back under DIR_k's real path.  A path outside every
 * directory is refused here ("Access denied - path outside allowed
 * directories: ..."); a refusal of the native resolver (a symlink that
 * leaves, a guard, a policy) keeps its code and says why.
 *
 * Nothing here touches the file system except ws_mcp_compat_new(), which
 * resolves the directories once, as the reference server does at start.
 */
#ifndef WS_MCP_COMPAT_H
#define WS_MCP_COMPAT_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct ws_mcp_compat_fs;

/*
 * Run one native tool call: tool is a toolbox tool name (read_file,
 * list_directory, write_file, edit_file, create_directory, move_path),
 * args its arguments (borrowed).  On success return 0 and set *output to
 * the tool's JSON "output" object; on failure return the negative WS_E*
 * code and set *error to the error object ({"code", "message", ...}), and
 * *output to the partial output if there is one (else NULL).  Ownership of
 * both passes to the caller; either may be left NULL.
 */
typedef int (*ws_mcp_native_fn)(void *arg, const char *tool,
				const cJSON *args, cJSON **output,
				cJSON **error);

/*
 * Set up the compat translation for the allowed directories dirs[0..n)
 * as given on the command line (dirs[0] is the workspace); vprefixes[k]
 * is where the core mounted dirs[k] in the virtual view ("/" for k = 0,
 * "/.NAME" for a mount).  Each directory is made absolute (against the
 * current directory), normalised and resolved through symlinks.  Errors:
 * WS_EINVALID_ARGUMENT (n == 0, a prefix that is not absolute),
 * WS_EWORKSPACE_NOT_FOUND (a directory that cannot be resolved),
 * WS_ENOMEM.
 */
int ws_mcp_compat_new(const char *const *dirs, const char *const *vprefixes,
		      size_t n, struct ws_mcp_compat_fs **out);

/* Free c (NULL is fine). */
void ws_mcp_compat_free(struct ws_mcp_compat_fs *c);

/*
 * Record that the allowed directory real (resolved through symlinks)
 * was spelled so on the command line (made absolute and normalised,
 * not resolved): the server is given real, resolved once at its start,
 * and ws_mcp_compat_new() takes spelled as real's other name, so that a
 * path spelled through the symlink maps to the same root (lexically: no
 * later path is resolved by its string).  Both strings are borrowed and
 * must outlive every server; called at start, before any server runs
 * (the list is read without a lock).  WS_ENOMEM when full.
 */
int ws_mcp_compat_alias(const char *spelled, const char *real);

/*
 * The tools/list "tools" array of compat mode: the reference server's
 * names, titles, descriptions, input and output schemas and annotations,
 * verbatim.  A new cJSON array the caller frees; NULL when out of memory.
 */
cJSON *ws_mcp_compat_tools(void);

/*
 * Run the compat tool name with its arguments (a JSON object, borrowed;
 * NULL is taken as {}).  Returns 0 and sets *result to a new
 * CallToolResult object (a tool error is a result with "isError": true,
 * as the reference returns it: bad arguments, refused paths, failed native
 * calls).  Returns WS_EINVALID_ARGUMENT (no such tool: the core answers
 * JSON-RPC -32602) or WS_ENOMEM, with a message for ws_error_last(), and
 * *result NULL.
 */
int ws_mcp_compat_call(const struct ws_mcp_compat_fs *c, const char *name,
		       const cJSON *args, ws_mcp_native_fn native, void *arg,
		       cJSON **result);

/*
 * Map a real absolute path to the native argument that reaches it (a
 * path relative to the workspace root in the virtual view), as the compat
 * calls do.  p may be relative (taken as the reference does) or start
 * with "~".  Returns 0 with *native and (if real is not NULL) *real, the
 * normalised absolute path under the directory's real path, malloc'd; or
 * WS_EPATH_OUTSIDE_WORKSPACE with the reference's message, WS_ENOMEM.
 */
int ws_mcp_compat_path(const struct ws_mcp_compat_fs *c, const char *p,
		       char **native, char **real);

struct ws_mcp_compat;

/*
 * The mode for the MCP server (ws/mcp.h, --compat mcp-filesystem):
 * tools/list is ws_mcp_compat_tools(), each tools/call runs
 * ws_mcp_compat_call() with ws_mcp_invoke() as the native runner, on the
 * server's directories (ws_mcp_dirs(): workspace "/", then the mounts
 * "/.NAME", named as the server names them).  lib/mcp_compat_hook.c.
 */
extern const struct ws_mcp_compat ws_mcp_compat_filesystem;

/*
 * Map a virtual path of a native result ("/sub/a.txt", "/.NAME/x") back to
 * its real absolute path under the directory's real path.  malloc'd; NULL
 * when out of memory.  A virtual path under no mount is under the
 * workspace.
 */
char *ws_mcp_compat_real(const struct ws_mcp_compat_fs *c, const char *vpath);

#endif
