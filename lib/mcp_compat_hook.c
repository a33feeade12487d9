/*
 * mcp_compat_hook.c - `--compat mcp-filesystem` plugged into the MCP
 * server (ws/mcp.h): the server's struct ws_mcp_compat hook, whose call()
 * runs the translation of lib/mcp_compat.c with ws_mcp_invoke() as its
 * native runner.
 *
 * The allowed directories are the server's (ws_mcp_dirs(): the
 * workspace, then the mounts of further DIRs or of the client's roots);
 * the translation is rebuilt when they change (roots/list_changed); the
 * calls of one server that run side by side share it under a lock and a
 * count, kept off the server (ws_mcp_compat_state()), not the process.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ws/error.h"
#include "ws/mcp.h"
#include "ws/mcp_compat.h"

/*
 * The translation for the directories it was built for, shared by the
 * calls of one server that run side by side: each call holds a
 * reference, so that a rebuild (the roots changed) while another call
 * uses the old one frees it only when that call is done.
 */
struct ws__hook_tr {
	struct ws_mcp_compat_fs *fs;
	char **dirs;
	size_t ndirs;
	size_t refs; /* the current pointer's one, and each call's */
};

/*
 * A server's state (ws_mcp_compat_state()): its current translation;
 * mu guards it and the counts.  Two servers in one process each have
 * their own.
 */
struct ws__hook_state {
	pthread_mutex_t mu;
	struct ws__hook_tr *cur;
};

static void
ws__hook_free(struct ws__hook_tr *t)
{
	if (t == NULL)
		return;
	ws_mcp_compat_free(t->fs);
	for (size_t i = 0; i < t->ndirs; i++)
		free(t->dirs[i]);
	free(t->dirs);
	free(t);
}

/* Drop one reference to t (under the state's mu). */
static void
ws__hook_unref(struct ws__hook_tr *t)
{
	if (t != NULL && --t->refs == 0)
		ws__hook_free(t);
}

/*
 * The translation for the server's directories and their virtual
 * prefixes as ws_mcp_dirs() gives them (the server names the mounts, one
 * rule: ws_mcp_mount_name()).
 */
static int
ws__hook_build(const char *const *dirs, const char *const *prefixes, size_t n,
	       struct ws__hook_tr **out)
{
	struct ws__hook_tr *t = calloc(1, sizeof(*t));
	int rc = 0;

	*out = NULL;
	if (t == NULL || (t->dirs = calloc(n + 1, sizeof(*t->dirs))) == NULL) {
		free(t);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	for (size_t k = 0; k < n; k++) {
		if ((t->dirs[k] = strdup(dirs[k])) == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			goto out;
		}
		t->ndirs++;
	}
	rc = ws_mcp_compat_new(dirs, prefixes, n, &t->fs);
out:
	if (rc < 0) {
		ws__hook_free(t);
		return rc;
	}
	t->refs = 1;
	*out = t;
	return 0;
}

/*
 * The translation for the server's directories now, with a reference
 * the caller drops (ws__hook_release()).
 */
static struct ws__hook_tr *
ws__hook_current(struct ws_mcp *srv, cJSON **err)
{
	struct ws__hook_state *st = ws_mcp_compat_state(srv);
	const char *const *prefixes = NULL;
	const char *const *dirs;
	struct ws__hook_tr *t = NULL;
	size_t n = 0;
	bool same;

	if (st == NULL) {
		*err = cJSON_CreateString("out of memory");
		return NULL;
	}
	/* The call's own directories, taken once (waits for the roots). */
	dirs = ws_mcp_dirs(srv, &prefixes);
	pthread_mutex_lock(&st->mu);
	while (dirs != NULL && dirs[n] != NULL)
		n++;
	same = st->cur != NULL && n == st->cur->ndirs;
	for (size_t i = 0; same && i < n; i++)
		same = strcmp(dirs[i], st->cur->dirs[i]) == 0;
	if (same) {
		t = st->cur;
	} else if (n == 0) {
		*err = cJSON_CreateString("Server cannot operate: no allowed directories "
					  "(start it with DIR arguments, or use a client "
					  "that offers roots) (WORKSPACE_NOT_FOUND)");
	} else if (ws__hook_build(dirs, prefixes, n, &t) < 0) {
		*err = cJSON_CreateString(ws_error_last());
	} else {
		ws__hook_unref(st->cur);
		st->cur = t;
	}
	if (t != NULL)
		t->refs++;
	pthread_mutex_unlock(&st->mu);
	return t;
}

static void
ws__hook_release(struct ws_mcp *srv, struct ws__hook_tr *t)
{
	struct ws__hook_state *st = ws_mcp_compat_state(srv);

	pthread_mutex_lock(&st->mu);
	ws__hook_unref(t);
	pthread_mutex_unlock(&st->mu);
}

static void *
ws__hook_start(void)
{
	struct ws__hook_state *st = calloc(1, sizeof(*st));

	if (st != NULL)
		pthread_mutex_init(&st->mu, NULL);
	return st;
}

/* After the server's last call: its translation goes. */
static void
ws__hook_stop(void *arg)
{
	struct ws__hook_state *st = arg;

	ws__hook_unref(st->cur);
	pthread_mutex_destroy(&st->mu);
	free(st);
}

/* The native runner: one of our tools, in-process, through the server. */
static int
ws__hook_native(void *arg, const char *tool, const cJSON *args, cJSON **output,
		cJSON **error)
{
	cJSON *env = ws_mcp_invoke(arg, tool, args);
	bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(env, "success"));
	cJSON *o = cJSON_DetachItemFromObjectCaseSensitive(env, "output");
	cJSON *e = cJSON_DetachItemFromObjectCaseSensitive(env, "error");

	cJSON_Delete(env);
	if (cJSON_IsObject(o))
		*output = o;
	else
		cJSON_Delete(o);
	if (cJSON_IsObject(e))
		*error = e;
	else
		cJSON_Delete(e);
	return ok ? 0 : WS_EIO_ERROR;
}

static cJSON *
ws__hook_list(struct ws_mcp *srv)
{
	(void)srv;
	return ws_mcp_compat_tools();
}

/* A result with isError true and text as its only content. */
static cJSON *
ws__hook_error(const char *text)
{
	cJSON *r = cJSON_CreateObject(), *content = cJSON_AddArrayToObject(r, "content");
	cJSON *b = cJSON_CreateObject();

	if (content == NULL || b == NULL) {
		cJSON_Delete(b);
		cJSON_Delete(r);
		return NULL;
	}
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	cJSON_AddItemToArray(content, b);
	cJSON_AddBoolToObject(r, "isError", 1);
	return r;
}

static cJSON *
ws__hook_call(struct ws_mcp *srv, const char *name, const cJSON *args)
{
	cJSON *err = NULL, *res = NULL;
	struct ws__hook_tr *tr = ws__hook_current(srv, &err);
	char *t = NULL;
	int rc;

	if (tr == NULL) {
		ws_error_clear();
		res = ws__hook_error(cJSON_IsString(err) ? err->valuestring : "out of memory");
		cJSON_Delete(err);
		return res;
	}
	/*
	 * The last error is this thread's and outlives the call: the
	 * result carries everything, so it is forgotten here (a calls'
	 * thread that exits would leak its path otherwise).
	 */
	rc = ws_mcp_compat_call(tr->fs, name, args, ws__hook_native, srv, &res);
	ws__hook_release(srv, tr);
	ws_error_clear();
	if (rc == WS_EINVALID_ARGUMENT && res == NULL) {
		/*
		 * A tool it does not serve: the reference's SDK catches the
		 * McpError it throws and answers a tool error with its
		 * message, not a JSON-RPC error; a drop-in does the same.
		 */
		if (asprintf(&t, "MCP error -32602: Tool %s not found", name) < 0)
			return NULL;
		res = ws__hook_error(t);
		free(t);
		return res;
	}
	return rc < 0 ? NULL : res;
}

const struct ws_mcp_compat ws_mcp_compat_filesystem = {
	.name = "mcp-filesystem",
	.instructions =
		"Filesystem tools of @modelcontextprotocol/server-filesystem, served "
		"by wstools. Paths are real absolute paths inside the allowed "
		"directories (list_allowed_directories); a relative path is taken "
		"inside the first one. Every path is resolved on descriptors: a "
		"symlink that leaves the allowed directories, a guarded entry "
		"(.git/hooks, shell rc files, the policy) or a policy refusal is an "
		"error whose message ends with its code.",
	.list = ws__hook_list,
	.call = ws__hook_call,
	.start = ws__hook_start,
	.stop = ws__hook_stop,
};
