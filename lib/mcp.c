/*
 * mcp.c - the toolbox as an MCP server (see ws/mcp.h): the JSON-RPC loop
 * on a reading thread, the tool calls on a small pool of workers (the
 * main thread and --jobs - 1 more), and the server's own requests
 * (roots/list, elicitation/create) in between.
 *
 * Threads: the reader parses every line and answers what needs no tool
 * (initialize, ping, tools/list, errors) itself; a tools/call goes to a
 * queue that the workers take calls from in order, each call then running
 * beside the others with a state of its own (struct ws_call, ws/call.h:
 * its output, cancellation, progress, approver, mounts, ceilings; and
 * here its progress token and its elicitation).  One mutex (out_mu)
 * keeps the threads' messages whole on the output; another (mu) guards
 * the queue, the running calls, the workspace from roots and the pending
 * server requests.  When nothing runs and nothing waits, the reader runs
 * a short call itself (ws__inline_ok()): no hand-off, no wake-up.  What
 * the calls open (configuration, workspace, policy) is opened once per
 * root set and re-checked per call (the server's ws_session, lib/session.c).
 */
#include "ws/mcp.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ws/call.h"
#include "ws/cancel.h"
#include "ws/cli.h"
#include "ws/error.h"
#include "ws/glob.h"
#include "ws/json.h"
#include "ws/read.h"
#include "ws/run.h"
#include "ws/session.h"
#include "ws/tool.h"
#include "ws/toolset.h"
#include "ws/write.h"

/*
 * Newest first: the answer to a client that asks for a version we do not
 * know.  The older two are still spoken by clients in use (the
 * TypeScript SDK 1.12 asks for 2025-03-26 and refuses any other answer);
 * what they do not know of the newer ones (structuredContent, titles,
 * elicitation) they ignore or never offer.
 */
const char *const ws_mcp_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
				       "2024-11-05", NULL};

/* What a call waits for on the reader: a response to our request. */
enum ws__wait { WS__NONE, WS__WAITING, WS__ANSWERED };

/* A tools/call waiting for, or running on, a worker. */
struct ws__job {
	struct ws_mcp *s;
	cJSON *req;	    /* the whole request (id, params) */
	const cJSON *id;
	bool cancelled;	    /* notifications/cancelled named it */
	bool answered;	    /* its answer goes out: its id is free again */
	size_t size;	    /* the length of its message (backpressure) */
	bool cmd;	    /* a run_command (ws__eligible()) */
	unsigned long long order; /* a command's, as received (struct ws_call) */
	bool nul_args;	    /* its arguments hold "\u0000" (read as U+0001) */
	struct ws__job *next;	    /* in the queue, or among the running */
	/* The call's own state, set up when a worker takes it. */
	struct ws_call call;
	/* Its progress token (JSON text) and last value. */
	char *progress_token;
	const cJSON *progress_tok; /* in req; a string is written as text */
	long long progress_last;
	/* The elicitation it waits for (under mu). */
	long long elicit_id;
	enum ws__wait elicit;
	bool elicit_ok;
	/*
	 * A compat call's directories (ws_mcp_dirs()), taken once: its path
	 * translation and every native call it makes (ws_mcp_invoke()) use
	 * this one workspace and these mounts, whatever roots/list answers
	 * meanwhile.  snap_rc: why there is no workspace (snap_msg, hint).
	 */
	bool snap;
	int snap_rc;
	char *snap_msg, *snap_hint;
	char *snap_ws;
	struct ws_mount_def *snap_mounts;
	size_t snap_nm;
	const char **dirs, **dir_prefixes;
	char **dir_owned;
	size_t ndir_owned;
};

/*
 * An idle worker, on the stack of idle workers: the last one to go idle
 * is woken first, its memory still in the caches (and the others stay
 * asleep: one wake-up per call).
 */
struct ws__idle {
	pthread_cond_t cv;
	bool woken;
	struct ws__idle *next;
};

/*
 * The job the calling thread runs (NULL on the reader, between calls):
 * what ws_mcp_invoke(), called back by a compat mode, needs of its call.
 * Kept in the call's own state (struct ws_call's owner), not in the
 * thread's: nothing of a call outlives it.
 */
static struct ws__job *
ws__self(void)
{
	return ws_call_current()->owner;
}

struct ws_mcp {
	const struct ws_mcp_opts *o;
	pthread_mutex_t out_mu;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ws__job *head, *tail, *running; /* running: a list */
	/*
	 * Backpressure: the reader reads no further while qmax calls are
	 * queued or their messages hold more than max_message bytes
	 * (ws__room_reading()); room is signalled when a worker takes one.
	 * run_commands are counted apart (ncmdq, cmdqbytes), with a bound of
	 * their own (cmdqmax, max_message bytes): a command waits for a
	 * worker or the workspace's lock for as long as the one before it
	 * runs, and the reader must read on past it, or a read_file sent
	 * behind qmax commands waited for them (review21 02).  A command
	 * past that bound is answered at once (ws__call(), ws__busy()).
	 */
	size_t nqueued, qbytes, qmax, max_message;
	size_t ncmdq, cmdqbytes, cmdqmax;
	unsigned long long ncmd_received; /* the commands' order */
	pthread_cond_t room;
	bool reader_waits;
	/* The reader reads on while the queue is full (ws__room_reading()):
	 * room is said on the wake pipe then. */
	bool reader_polls;
	int nelicit; /* calls waiting for the client's elicitation answer */
	struct ws__idle *idle;	/* the idle workers, the last first */
	/* run_commands on workers, and how many may be (ws__eligible()). */
	int ncmd, cmdmax;
	const char *frontend;	/* the serving thread's (ws_audit_set_frontend) */
	bool eof, out_failed, gone;
	int wake[2]; /* written when the client is gone: the reader stops */
	/* From initialize. */
	bool cap_roots, cap_elicit, initialized, init_done;
	/* The workspace and mounts from roots/list (when not pinned). */
	char *root_ws;
	struct ws_mount_def *root_mounts; /* owned strings */
	size_t nroot_mounts;
	char *roots_error; /* why the client's roots gave no workspace */
	/* The mounts of the DIRs after the workspace (owned strings). */
	struct ws_mount_def *dir_mounts;
	size_t ndir_mounts;
	bool roots_pending;
	long long roots_id; /* id of our roots/list request, or -1 */
	struct timespec roots_deadline; /* CLOCK_REALTIME, for the cv */
	long long next_id;
	/* tools/list's "tools" array, built once. */
	char *tools_json;
	/* The isolation of the first run_command (ws__lean_isolation()). */
	char *iso_default;
	/* The streams of the calls the reader runs itself (ws__call()). */
	struct ws__bufs *rbufs;
	struct ws_run_ahead *run_ahead; /* run_command's inits made ahead */
	void *compat_state; /* the compat mode's start() */
	/* What the calls remember between them (ws/session.h). */
	struct ws_session *session;
	/* Each listed tool's declared arguments (ws__declare()). */
	struct ws__decl *decl;
	size_t ndecl;
};

/* ---- Mount names ----------------------------------------------------- */

char *
ws_mcp_mount_name(const char *dir, const char *const *taken, size_t n)
{
	size_t len = strlen(dir), b;
	char *name = NULL;

	/* The last component, trailing slashes aside. */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (b = len; b > 0 && dir[b - 1] != '/'; b--)
		;
	if (len - b == 0 || (len - b == 1 && dir[b] == '.') ||
	    (len - b == 2 && dir[b] == '.' && dir[b + 1] == '.')) {
		dir = "root";
		b = 0;
		len = 4;
	}
	for (unsigned k = 1;; k++) {
		bool used = false;

		free(name);
		if ((k == 1 ? asprintf(&name, "/.%.*s", (int)(len - b), dir + b)
			    : asprintf(&name, "/.%.*s-%u", (int)(len - b), dir + b, k)) < 0)
			return NULL;
		for (size_t i = 0; i < n && !used; i++)
			used = taken[i] != NULL && strcmp(taken[i], name) == 0;
		if (!used)
			return name;
	}
}

static void
ws__mounts_free(struct ws_mount_def *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)m[i].vprefix);
		free((char *)m[i].dir);
	}
	free(m);
}

/*
 * Name the mounts of dirs[0..n) (ws_mcp_mount_name()), after the
 * prefixes of the --mount flags in the common options: *out owns its
 * strings.
 */
static int
ws__mounts_build(const struct ws_mcp_opts *o, const char *const *dirs, size_t n,
		 struct ws_mount_def **out)
{
	struct ws_mount_def *m = calloc(n + 1, sizeof(*m));
	const char **taken = calloc(n + o->ncommon + 1, sizeof(*taken));
	char **flag = calloc(o->ncommon + 1, sizeof(*flag));
	size_t nt = 0, nf = 0;
	int rc = 0;

	if (m == NULL || taken == NULL || flag == NULL)
		goto oom;
	for (size_t i = 0; i + 1 < o->ncommon; i++)
		if (strcmp(o->common[i], "--mount") == 0) {
			const char *v = o->common[++i];

			if ((flag[nf] = strndup(v, strcspn(v, "="))) == NULL)
				goto oom;
			taken[nt++] = flag[nf++];
		}
	for (size_t i = 0; i < n; i++) {
		char *name = ws_mcp_mount_name(dirs[i], taken, nt);
		char *d = strdup(dirs[i]);

		m[i].vprefix = name;
		m[i].dir = d;
		if (name == NULL || d == NULL) {
			ws__mounts_free(m, i + 1);
			m = NULL;
			goto oom;
		}
		taken[nt++] = name;
	}
	*out = m;
	m = NULL;
	goto out;
oom:
	rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
out:
	free(m);
	for (size_t i = 0; i < nf; i++)
		free(flag[i]);
	free(flag);
	free(taken);
	return rc;
}

/* ---- Output ---------------------------------------------------------- */

static bool ws__wake_one(struct ws_mcp *s);
static bool ws__out_closed(struct ws_mcp *s);

/*
 * The client is gone (end of input, or a write to it failed), under mu:
 * the calls still queued are dropped unrun (a write nobody will hear of,
 * a command nobody waits for), the running ones are cancelled as
 * notifications/cancelled cancels them, and every thread is told to end
 * (the reader through the wake pipe, should it still wait for input).
 */
static void
ws__gone(struct ws_mcp *s)
{
	struct ws__job *j;

	if (s->gone)
		return;
	s->gone = s->eof = true;
	while ((j = s->head) != NULL) {
		s->head = j->next;
		cJSON_Delete(j->req);
		free(j);
	}
	s->tail = NULL;
	s->nqueued = s->qbytes = 0;
	s->ncmdq = s->cmdqbytes = 0;
	pthread_cond_signal(&s->room);
	for (j = s->running; j != NULL; j = j->next) {
		j->cancelled = true;
		ws_call_cancel(&j->call);
	}
	pthread_cond_broadcast(&s->cv);
	while (ws__wake_one(s))
		;
	if (s->wake[1] >= 0)
		(void)!write(s->wake[1], "x", 1);
}


/*
 * Write one message (a NUL-terminated JSON text) and its newline: one
 * writev(2), so that a client reading a pipe gets the line in one piece
 * and the server makes one system call a message; the rest of a short
 * write goes out under the same lock.
 */
static void
ws__send(struct ws_mcp *s, const char *text, size_t len)
{
	struct iovec v[2] = {{(void *)text, len}, {(void *)"\n", 1}};
	struct iovec *p = v;
	int n = 2;

	bool failed = false;

	pthread_mutex_lock(&s->out_mu);
	while (!s->out_failed && n > 0) {
		ssize_t w = writev(s->o->out_fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			s->out_failed = failed = true;
			break;
		}
		while (n > 0 && (size_t)w >= p->iov_len) {
			w -= (ssize_t)p->iov_len;
			p++;
			n--;
		}
		if (n > 0) {
			p->iov_base = (char *)p->iov_base + w;
			p->iov_len -= (size_t)w;
		}
	}
	pthread_mutex_unlock(&s->out_mu);
	/* Nobody reads the answers: nothing more is run for them. */
	if (failed) {
		pthread_mutex_lock(&s->mu);
		ws__gone(s);
		pthread_mutex_unlock(&s->mu);
	}
}

/*
 * A memory stream kept from call to call by the thread that runs them:
 * open_memstream() allocates and zeroes a buffer and a FILE each time
 * (some 9,000 instructions, three times a call).  Taken again, it is
 * rewound and written over; its text is buf[0..len) after a flush (no
 * NUL is promised there).  One grown past WS__MS_KEEP by a large answer
 * is given back after its call, so that a thread keeps little memory.
 */
struct ws__mstream {
	FILE *f;
	char *buf;
	size_t len;
};

/* What a thread that runs calls keeps: the output, the text, the answer. */
struct ws__bufs {
	struct ws__mstream out, text, msg;
};

#define WS__MS_KEEP (256 << 10)

static FILE *
ws__ms_take(struct ws__mstream *m)
{
	if (m->f == NULL) {
		m->buf = NULL;
		m->len = 0;
		m->f = open_memstream(&m->buf, &m->len);
		return m->f;
	}
	rewind(m->f);
	clearerr(m->f);
	return m->f;
}

static void
ws__ms_free(struct ws__mstream *m)
{
	if (m->f != NULL)
		fclose(m->f);
	free(m->buf);
	memset(m, 0, sizeof(*m));
}

/* After a call: a stream that grew large is let go. */
static void
ws__bufs_trim(struct ws__bufs *b)
{
	struct ws__mstream *all[] = {&b->out, &b->text, &b->msg};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i]->f != NULL && all[i]->len > WS__MS_KEEP)
			ws__ms_free(all[i]);
}

static void
ws__bufs_free(struct ws__bufs *b)
{
	ws__ms_free(&b->out);
	ws__ms_free(&b->text);
	ws__ms_free(&b->msg);
}

/* A message being written: a JSON writer on memory. */
struct ws__msg {
	FILE *f;
	char *buf;
	size_t len;
	struct ws__mstream *kept; /* a thread's stream, or NULL: its own */
	struct ws_jw jw;
};

/*
 * Write a cJSON value through the JSON writer: its strings (and keys)
 * as ws_jw_str() writes them, valid UTF-8 whatever bytes the client
 * sent (cJSON's printer passes them through: an id, a progress token,
 * a compat mode's text naming what the client sent).
 */
static void
ws__jw_cjson(struct ws_jw *jw, const cJSON *v)
{
	const cJSON *c;
	char *t;

	if (cJSON_IsString(v)) {
		ws_jw_str(jw, v->valuestring);
	} else if (cJSON_IsObject(v)) {
		ws_jw_obj(jw);
		cJSON_ArrayForEach(c, v) {
			ws_jw_key(jw, c->string ? c->string : "");
			ws__jw_cjson(jw, c);
		}
		ws_jw_obj_end(jw);
	} else if (cJSON_IsArray(v)) {
		ws_jw_arr(jw);
		cJSON_ArrayForEach(c, v)
			ws__jw_cjson(jw, c);
		ws_jw_arr_end(jw);
	} else if (cJSON_IsBool(v)) {
		ws_jw_bool(jw, cJSON_IsTrue(v));
	} else if (cJSON_IsNumber(v) && (t = cJSON_PrintUnformatted(v)) != NULL) {
		ws_jw_raw(jw, t);
		free(t);
	} else {
		ws_jw_null(jw);
	}
}

/* Begin a message on a kept stream (ms), or on one of its own (NULL). */
static int
ws__msg_begin_on(struct ws__msg *m, const cJSON *id, struct ws__mstream *ms)
{
	memset(m, 0, sizeof(*m));
	m->kept = ms;
	m->f = ms != NULL ? ws__ms_take(ms) : open_memstream(&m->buf, &m->len);
	if (m->f == NULL)
		return -1;
	ws_jw_init(&m->jw, m->f);
	ws_jw_obj(&m->jw);
	ws_jw_kstr(&m->jw, "jsonrpc", "2.0");
	if (id != NULL && cJSON_IsNumber(id) && id->valuestring != NULL) {
		/* A client's numeric id, as it wrote it (ws__keep_raw_id()). */
		ws_jw_key(&m->jw, "id");
		ws_jw_raw(&m->jw, id->valuestring);
	} else if (id != NULL) {
		ws_jw_key(&m->jw, "id");
		ws__jw_cjson(&m->jw, id);
	}
	return 0;
}

static int
ws__msg_begin(struct ws__msg *m, const cJSON *id)
{
	return ws__msg_begin_on(m, id, NULL);
}

static void
ws__msg_send(struct ws_mcp *s, struct ws__msg *m)
{
	ws_jw_obj_end(&m->jw);
	if (m->kept != NULL) {
		if (fflush(m->f) == 0 && !ferror(m->f) && m->kept->buf != NULL)
			ws__send(s, m->kept->buf, m->kept->len);
		return;
	}
	if (fclose(m->f) == 0 && m->buf != NULL)
		ws__send(s, m->buf, m->len);
	free(m->buf);
}

/* A JSON-RPC error response (id NULL: "id": null). */
static void
ws__error(struct ws_mcp *s, const cJSON *id, int code, const char *msg)
{
	struct ws__msg m;
	cJSON null_id = {.type = cJSON_NULL};

	if (ws__msg_begin(&m, id != NULL ? id : &null_id) < 0)
		return;
	ws_jw_key(&m.jw, "error");
	ws_jw_obj(&m.jw);
	ws_jw_kint(&m.jw, "code", code);
	ws_jw_kstr(&m.jw, "message", msg);
	ws_jw_obj_end(&m.jw);
	ws__msg_send(s, &m);
}

/*
 * The answer to a run_command past the bound of the commands queued
 * (cmdqmax): an isError result naming LIMIT_EXCEEDED, as the tool's own
 * refusals are, so that the model waits for answers before sending more.
 */
static void
ws__busy(struct ws_mcp *s, const cJSON *id, size_t queued)
{
	static const char hint[] = "wait for the answers of the commands "
				   "already sent, then send this one again";
	struct ws__msg m;
	char *msg = NULL, *text = NULL;

	if (asprintf(&msg, "%zu run_command calls are already waiting in this "
		     "server (commands in one workspace run one at a time): this "
		     "one was not run", queued) < 0)
		msg = NULL;
	if (msg == NULL || asprintf(&text, "%s: %s\nhint: %s",
				    ws_error_name(WS_ELIMIT_EXCEEDED), msg, hint) < 0)
		text = NULL;
	if (ws__msg_begin(&m, id) < 0)
		goto out;
	ws_jw_key(&m.jw, "result");
	ws_jw_obj(&m.jw);
	ws_jw_key(&m.jw, "content");
	ws_jw_arr(&m.jw);
	ws_jw_obj(&m.jw);
	ws_jw_kstr(&m.jw, "type", "text");
	ws_jw_kstr(&m.jw, "text", text ? text : "LIMIT_EXCEEDED");
	ws_jw_obj_end(&m.jw);
	ws_jw_arr_end(&m.jw);
	ws_jw_key(&m.jw, "structuredContent");
	ws_jw_obj(&m.jw);
	ws_jw_key(&m.jw, "error");
	ws_jw_obj(&m.jw);
	ws_jw_kstr(&m.jw, "code", ws_error_name(WS_ELIMIT_EXCEEDED));
	ws_jw_kstr(&m.jw, "message", msg ? msg : "too many commands queued");
	ws_jw_kstr(&m.jw, "hint", hint);
	ws_jw_obj_end(&m.jw);
	ws_jw_obj_end(&m.jw);
	ws_jw_kbool(&m.jw, "isError", true);
	ws_jw_obj_end(&m.jw);
	ws__msg_send(s, &m);
out:
	free(msg);
	free(text);
}

/* A result response whose value is raw JSON. */
static void
ws__result_raw(struct ws_mcp *s, const cJSON *id, const char *json)
{
	struct ws__msg m;

	if (ws__msg_begin(&m, id) < 0)
		return;
	ws_jw_key(&m.jw, "result");
	ws_jw_raw(&m.jw, json);
	ws__msg_send(s, &m);
}

/*
 * The ceilings of the sizes and times a model may ask for under MCP (the
 * CLI's flags do this for an --args caller; here nobody gives flags):
 * a value above the ceiling becomes the ceiling, and so does 0 ("none",
 * "all", "unlimited": as much as the server allows).  Seconds are in
 * ms.  tools/list describes each with its default and ceiling (what).
 */
static const struct {
	const char *tool, *key;
	bool seconds;
	long long dflt; /* the ceiling when the server's options do not say */
	long long tool_dflt; /* the tool's own default under --args */
	const char *what; /* the property's description in tools/list */
} ws__ceiling_doc[] = {
	{"run_command", "timeout", true, 600000, 60000,
	 "seconds before the command is killed"},
	{"run_command", "max_output", false, 1 << 20, 64 << 10,
	 "bytes kept of stdout and of stderr each"},
	{"search_files", "max_results", false, 1000, 50,
	 "most results"},
	{"search_files", "time_budget", true, 60000, 10000,
	 "seconds before returning what was found"},
	{"list_directory", "max_entries", false, 10000, 200,
	 "most entries"},
	{"list_directory", "max_output", false, 1 << 20, 65536,
	 "most bytes of a page"},
	{"read_file", "max_bytes", false, 1 << 20, 1 << 20,
	 "most bytes of content returned"},
};

/* Ceiling i of the table for this server (its options may lower it). */
static long long
ws__cap_of(const struct ws_mcp_opts *o, size_t i)
{
	if (strcmp(ws__ceiling_doc[i].tool, "run_command") != 0)
		return ws__ceiling_doc[i].dflt;
	if (strcmp(ws__ceiling_doc[i].key, "timeout") == 0 && o->run_timeout_ms > 0)
		return o->run_timeout_ms;
	if (strcmp(ws__ceiling_doc[i].key, "max_output") == 0 && o->run_max_output > 0)
		return o->run_max_output;
	return ws__ceiling_doc[i].dflt;
}

/*
 * In a tool's input schema for tools/list, the properties the server
 * holds to a ceiling say so, default and ceiling in the unit of the
 * property: what the model reads is what the server does.
 */
static void
ws__describe_ceilings(const struct ws_mcp_opts *o, const char *tool, cJSON *schema)
{
	cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");

	for (size_t i = 0; i < sizeof(ws__ceiling_doc) / sizeof(ws__ceiling_doc[0]); i++) {
		cJSON *p = cJSON_GetObjectItemCaseSensitive(props, ws__ceiling_doc[i].key);
		long long cap = ws__cap_of(o, i);
		double unit = ws__ceiling_doc[i].seconds ? 1000.0 : 1.0;
		double d = (double)(ws__ceiling_doc[i].tool_dflt < cap ?
				    ws__ceiling_doc[i].tool_dflt : cap) / unit;
		char *text = NULL;

		if (strcmp(ws__ceiling_doc[i].tool, tool) != 0 || !cJSON_IsObject(p))
			continue;
		if (asprintf(&text, "%s (default %.15g, at most %.15g; 0: %.15g)",
			     ws__ceiling_doc[i].what, d, (double)cap / unit,
			     (double)cap / unit) < 0)
			continue;
		cJSON_DeleteItemFromObjectCaseSensitive(p, "description");
		cJSON_AddStringToObject(p, "description", text);
		free(text);
	}
}

/* ---- tools/list ------------------------------------------------------ */

/* Add one tool definition (a --schema function object) to arr. */
static void
ws__list_add(struct ws_mcp *s, cJSON *arr, cJSON *def)
{
	cJSON *fn = cJSON_GetObjectItemCaseSensitive(def, "function");
	cJSON *name = cJSON_GetObjectItemCaseSensitive(fn, "name");
	const struct ws_tool_def *td;
	cJSON *t, *ann;

	if (!cJSON_IsString(name))
		return;
	/* Title, annotations and output schema: the tool table's. */
	td = ws_tool_by_name(name->valuestring);
	if (td != NULL && td->title == NULL)
		td = NULL; /* history, undo: as --schema gives them */
	t = cJSON_CreateObject();
	cJSON_AddStringToObject(t, "name", name->valuestring);
	if (td != NULL)
		cJSON_AddStringToObject(t, "title", td->title);
	cJSON_AddItemToObject(t, "description", cJSON_DetachItemFromObjectCaseSensitive(
							  fn, "description"));
	ws__describe_ceilings(s->o, name->valuestring,
			      cJSON_GetObjectItemCaseSensitive(fn, "parameters"));
	cJSON_AddItemToObject(t, "inputSchema", cJSON_DetachItemFromObjectCaseSensitive(
							  fn, "parameters"));
	if (td != NULL) {
		cJSON *os = ws_json_parse(td->output_schema, WS_JSON_STR, NULL, false);

		/*
		 * A failed call's structuredContent is {"error": {...}}: the
		 * schema says so, so that a client validating isError results
		 * too finds them conform.
		 */
		cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(os, "properties"),
				      "error", ws_json_parse("{\"type\":\"object\"}", WS_JSON_STR, NULL, false));
		cJSON_AddItemToObject(t, "outputSchema", os);
		ann = cJSON_AddObjectToObject(t, "annotations");
		cJSON_AddStringToObject(ann, "title", td->title);
		cJSON_AddBoolToObject(ann, "readOnlyHint", td->ro);
		cJSON_AddBoolToObject(ann, "destructiveHint", td->destructive);
		cJSON_AddBoolToObject(ann, "idempotentHint", td->idempotent);
		cJSON_AddBoolToObject(ann, "openWorldHint",
				      strcmp(td->name, "run_command") == 0 && s->o->net);
	}
	cJSON_AddItemToArray(arr, t);
}

/*
 * A tool's arguments as tools/list declares them: the only keys a call
 * may send (ws_cli_check_keys()), though the tool takes more on its
 * command line (the published set only advertises the short ones).
 */
struct ws__decl {
	char *name;
	char **keys; /* NULL-terminated, in the schema's order */
};

static void
ws__decl_free(struct ws_mcp *s)
{
	for (size_t i = 0; i < s->ndecl; i++) {
		for (size_t k = 0; s->decl[i].keys != NULL && s->decl[i].keys[k]; k++)
			free(s->decl[i].keys[k]);
		free(s->decl[i].keys);
		free(s->decl[i].name);
	}
	free(s->decl);
	s->decl = NULL;
	s->ndecl = 0;
}

/* Record the declared arguments of every tool of the list arr. */
static int
ws__declare(struct ws_mcp *s, const cJSON *arr)
{
	const cJSON *t;

	if ((s->decl = calloc((size_t)cJSON_GetArraySize(arr) + 1,
			      sizeof(*s->decl))) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	cJSON_ArrayForEach(t, arr) {
		const cJSON *props = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(t, "inputSchema"), "properties");
		const char *name = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(t, "name"));
		struct ws__decl *d = &s->decl[s->ndecl];
		const cJSON *p;
		size_t k = 0;

		if (name == NULL)
			continue;
		s->ndecl++;
		if ((d->name = strdup(name)) == NULL ||
		    (d->keys = calloc((size_t)cJSON_GetArraySize(props) + 1,
				      sizeof(*d->keys))) == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		cJSON_ArrayForEach(p, props)
			if ((d->keys[k++] = strdup(p->string)) == NULL)
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	return 0;
}

/* The arguments tools/list declares for tool name (NULL: none listed). */
static const char *const *
ws__declared(const struct ws_mcp *s, const char *name)
{
	for (size_t i = 0; i < s->ndecl; i++)
		if (strcmp(s->decl[i].name, name) == 0)
			return (const char *const *)s->decl[i].keys;
	return NULL;
}

/* Whether the server offers tool name and runs it from the table. */
static const struct ws_tool_def *
ws__table_tool(struct ws_mcp *s, const char *name)
{
	const struct ws_tool_def *t = ws_tool_by_name(name);
	bool offered = false;

	for (size_t i = 0; t != NULL && i < s->o->ntools; i++)
		offered |= strcmp(s->o->tools[i].name, name) == 0;
	return offered && t->run != NULL && t->cli != NULL ? t : NULL;
}

/*
 * The tools/list result, once: each tool's definition from its option
 * table on the tool table (ws_cli_schema()), in the order of the
 * server's tools.
 */
static int
ws__build_list(struct ws_mcp *s)
{
	cJSON *arr = s->o->compat ? s->o->compat->list(s) : cJSON_CreateArray();
	cJSON *full = cJSON_CreateArray(), *set, *d;
	cJSON *res;

	if (arr == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; s->o->compat == NULL && i < s->o->ntools; i++) {
		const struct ws_mcp_tool *t = &s->o->tools[i];
		const struct ws_tool_def *td = ws__table_tool(s, t->name);
		cJSON *def;

		/* On the table: its definition, from its option table. */
		if (td != NULL) {
			if ((def = ws_cli_schema(td->cli)) == NULL) {
				cJSON_Delete(arr);
				cJSON_Delete(full);
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			}
			cJSON_AddItemToArray(full, def);
			continue;
		}
		cJSON_Delete(arr);
		cJSON_Delete(full);
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "%s is not on the tool table", t->name);
	}
	/*
	 * The model is given the short "default" set (ws/toolset.h): every
	 * tool and capability once, in fewer bytes than --schema's words
	 * for people; the tools still take every --args option.
	 */
	if (s->o->compat == NULL) {
		if ((set = ws_toolset_build("default", full)) == NULL) {
			cJSON_Delete(arr);
			cJSON_Delete(full);
			return ws_error_last_code();
		}
		cJSON_ArrayForEach(d, set)
			ws__list_add(s, arr, d);
		/* Tools outside the set (history and undo, when the server
		 * offers them) as their --schema gives them. */
		cJSON_ArrayForEach(d, full) {
			const char *nm = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(d, "function"), "name"));
			bool in = false;
			const cJSON *e;

			cJSON_ArrayForEach(e, set) {
				const char *en = cJSON_GetStringValue(
					cJSON_GetObjectItemCaseSensitive(
						cJSON_GetObjectItemCaseSensitive(e, "function"),
						"name"));

				if (nm != NULL && en != NULL && strcmp(nm, en) == 0)
					in = true;
			}
			if (nm != NULL && !in)
				ws__list_add(s, arr, d);
		}
		cJSON_Delete(set);
	}
	cJSON_Delete(full);
	if (s->o->compat == NULL && ws__declare(s, arr) < 0) {
		cJSON_Delete(arr);
		return WS_ENOMEM;
	}
	res = cJSON_CreateObject();
	cJSON_AddItemToObject(res, "tools", arr);
	s->tools_json = cJSON_PrintUnformatted(res);
	cJSON_Delete(res);
	return s->tools_json ? 0 : ws_error_set(WS_ENOMEM, NULL, "out of memory");
}

/* ---- Rendering a result ---------------------------------------------- */

/* ---- Running a call (worker thread) ---------------------------------- */

/* An isError tool result with one text (the compat mode's form). */
static cJSON *
ws__text_error(const char *msg)
{
	cJSON *r = cJSON_CreateObject(), *content, *block;

	content = cJSON_AddArrayToObject(r, "content");
	block = cJSON_CreateObject();
	cJSON_AddStringToObject(block, "type", "text");
	cJSON_AddStringToObject(block, "text", msg);
	cJSON_AddItemToArray(content, block);
	cJSON_AddBoolToObject(r, "isError", true);
	return r;
}

/* A CLI envelope for an error the server itself finds. */
static cJSON *
ws__env_error(const char *tool, int code, const char *msg, const char *hint)
{
	cJSON *env = cJSON_CreateObject(), *err;

	cJSON_AddBoolToObject(env, "success", false);
	cJSON_AddStringToObject(env, "tool", tool);
	cJSON_AddNullToObject(env, "output");
	err = cJSON_AddObjectToObject(env, "error");
	cJSON_AddStringToObject(err, "code", ws_error_name(code));
	cJSON_AddStringToObject(err, "message", msg);
	if (hint != NULL)
		cJSON_AddStringToObject(err, "hint", hint);
	return env;
}

/* An absolute CLOCK_REALTIME time ms from now (the cv's clock). */
static struct timespec
ws__deadline(long long ms)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

/*
 * Wait until a roots/list we sent is answered, input ends, the call is
 * cancelled (false) or the client has let the roots timeout pass: then
 * the roots count as none, with a reason the calls report (a late answer
 * is still taken).
 */
static bool
ws__wait_roots(struct ws_mcp *s)
{
	bool ok = true;

	pthread_mutex_lock(&s->mu);
	while (s->roots_pending && !s->eof) {
		if (ws__self() != NULL && ws__self()->cancelled) {
			ok = false;
			break;
		}
		if (pthread_cond_timedwait(&s->cv, &s->mu, &s->roots_deadline) ==
			    ETIMEDOUT && s->roots_pending) {
			s->roots_pending = false;
			free(s->roots_error);
			if (asprintf(&s->roots_error, "no workspace: the client did not "
				     "answer roots/list within %lld s",
				     (long long)(s->o->roots_timeout_ms ?
						 s->o->roots_timeout_ms : 10000) / 1000) < 0)
				s->roots_error = NULL;
		}
	}
	pthread_mutex_unlock(&s->mu);
	return ok;
}

/*
 * The ceilings of the sizes and times a model may ask for under MCP (the
 * CLI's flags do this for an --args caller; here nobody gives flags):
 * the built-in ones, run_command's from the server's --timeout and
 * --max-output.  The tool's own parser applies them to the values it
 * parsed (ws_cli_set_ceilings()), so no reading of the JSON here can
 * differ from the tool's.
 */
static void
ws__ceilings(const struct ws_mcp_opts *o, struct ws_ceiling *c)
{
	for (size_t i = 0; i < WS_NCEILINGS; i++) {
		c[i] = ws_ceilings_default[i];
		if (strcmp(c[i].tool, "run_command") != 0)
			continue;
		if (strcmp(c[i].key, "timeout") == 0 && o->run_timeout_ms > 0)
			c[i].max = o->run_timeout_ms;
		if (strcmp(c[i].key, "max_output") == 0 && o->run_max_output > 0)
			c[i].max = o->run_max_output;
	}
}

/* A copy of mounts src[0..nm) into *out (owned strings), or -1. */
static int
ws__mounts_copy(const struct ws_mount_def *src, size_t nm, struct ws_mount_def **out)
{
	struct ws_mount_def *m = calloc(nm + 1, sizeof(*m));
	bool bad = m == NULL;

	for (size_t i = 0; m != NULL && i < nm; i++) {
		m[i].vprefix = strdup(src[i].vprefix);
		m[i].dir = strdup(src[i].dir);
		m[i].ro = src[i].ro;
		bad |= m[i].vprefix == NULL || m[i].dir == NULL;
	}
	if (bad) {
		if (m != NULL)
			ws__mounts_free(m, nm);
		*out = NULL;
		return -1;
	}
	*out = m;
	return 0;
}

/*
 * What every call needs before it runs: the client's roots answered, and
 * a copy of the workspace and the mounts (a roots/list answer may
 * replace them while the call runs).  Fails with the error set.
 */
static int
ws__prepare_live(struct ws_mcp *s, char **wsp, struct ws_mount_def **mountsp,
		 size_t *nmp)
{
	const struct ws_mcp_opts *o = s->o;
	const struct ws_mount_def *src;
	struct ws_mount_def *mounts;
	const char *ws;
	size_t nm;

	*wsp = NULL;
	*mountsp = NULL;
	*nmp = 0;
	if (!ws__wait_roots(s))
		return ws_error_set(WS_EIO_ERROR, NULL, "cancelled while waiting for "
				    "the client's roots");
	pthread_mutex_lock(&s->mu);
	ws = o->workspace ? o->workspace : s->root_ws ? s->root_ws :
		s->roots_error ? NULL : o->fallback;
	if (ws == NULL) {
		ws_error_set(WS_EWORKSPACE_NOT_FOUND, NULL, "%s", s->roots_error ?
			     s->roots_error :
			     "no workspace: the server was started without "
			     "--workspace or DIR and the client gave no root");
		pthread_mutex_unlock(&s->mu);
		return ws_error_set_hint("start wstools mcp with --workspace DIR, or "
					 "use a client that offers roots");
	}
	src = o->workspace ? s->dir_mounts : s->root_mounts;
	nm = o->workspace ? s->ndir_mounts : s->nroot_mounts;
	mounts = calloc(nm + 1, sizeof(*mounts));
	for (size_t i = 0; mounts != NULL && i < nm; i++) {
		mounts[i].vprefix = strdup(src[i].vprefix);
		mounts[i].dir = strdup(src[i].dir);
		mounts[i].ro = src[i].ro;
	}
	*wsp = strdup(ws);
	pthread_mutex_unlock(&s->mu);
	if (mounts == NULL || *wsp == NULL) {
		if (mounts != NULL)
			ws__mounts_free(mounts, nm);
		free(*wsp);
		*wsp = NULL;
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	*mountsp = mounts;
	*nmp = nm;
	return 0;
}

/*
 * The workspace and mounts of a call: those the call took already
 * (ws_mcp_dirs(), a compat call), else the server's now.
 */
static int
ws__prepare(struct ws_mcp *s, char **wsp, struct ws_mount_def **mountsp, size_t *nmp)
{
	const struct ws__job *j = ws__self();

	if (j == NULL || !j->snap)
		return ws__prepare_live(s, wsp, mountsp, nmp);
	*wsp = NULL;
	*mountsp = NULL;
	*nmp = 0;
	if (j->snap_ws == NULL) {
		ws_error_set(j->snap_rc, NULL, "%s", j->snap_msg ? j->snap_msg :
			     "no workspace");
		return j->snap_hint ? ws_error_set_hint("%s", j->snap_hint) : j->snap_rc;
	}
	if ((*wsp = strdup(j->snap_ws)) == NULL ||
	    ws__mounts_copy(j->snap_mounts, j->snap_nm, mountsp) < 0) {
		free(*wsp);
		*wsp = NULL;
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	*nmp = j->snap_nm;
	return 0;
}

/* A call of a tool on the table: its result as it wrote it. */
struct ws__tres {
	struct ws_tcall c;
	char *out, *text; /* the output value's JSON, the model's text */
	size_t out_len, text_len;
	struct ws__bufs *kept; /* the thread's streams, or NULL: its own */
};

/* Keep the last error as the call's (a failure before the tool ran). */
static void
ws__tres_fail(struct ws__tres *r)
{
	const char *h = ws_error_last_hint();

	r->c.err.code = ws_error_last_code() ? ws_error_last_code() : WS_EIO_ERROR;
	r->c.err.message = strdup(ws_error_last());
	r->c.err.hint = h ? strdup(h) : NULL;
}

/* A call the server itself refuses (a repeated key, an unknown tool). */
static void
ws__tres_server_error(struct ws__tres *r, int code, const char *msg,
		      const char *hint)
{
	memset(r, 0, sizeof(*r));
	r->c.err.code = code;
	r->c.err.message = strdup(msg);
	r->c.err.hint = hint ? strdup(hint) : NULL;
}

/*
 * The server's settings of run_command, as the flags a harness gives
 * wsrun: the network (--net), by name through the proxy in this server
 * (--net-allow, --net-deny).
 */
static int
ws__run_flags(const struct ws_mcp_opts *o, const struct ws_tool_def *t,
	      struct ws_cli *cli)
{
	int rc = 0;

	if (strcmp(t->name, "run_command") != 0)
		return 0;
	if (o->net)
		rc = ws_cli_set_opt(cli, "net", NULL);
	for (size_t i = 0; rc == 0 && i < o->nnet_allow; i++)
		rc = ws_cli_set_opt(cli, "net-allow", o->net_allow[i]);
	for (size_t i = 0; rc == 0 && i < o->nnet_deny; i++)
		rc = ws_cli_set_opt(cli, "net-deny", o->net_deny[i]);
	return rc;
}

/*
 * Run tool t of the table with a model's arguments: the arguments
 * decoded into a struct ws_cli from the server's settings (no argv, no
 * JSON text), the call, and its output value and text written to memory
 * as the tool renders them.  nul: U+0001 in args stands for "\u0000".
 * media_ok: an image or audio file may become a media block; not for the
 * compat mode, which takes the bytes from the output it reads.
 */
static void
ws__invoke_table(struct ws_mcp *s, const struct ws_tool_def *t, const cJSON *args,
		 bool nul, bool media_ok, struct ws__bufs *kept, struct ws__tres *r)
{
	struct ws_cli cli;
	struct ws_cli base = {0};
	struct ws_ceiling ceil[WS_NCEILINGS];
	struct ws_mount_def *mounts = NULL;
	cJSON *none = NULL;
	char *ws = NULL;
	size_t nm = 0;

	memset(r, 0, sizeof(*r));
	r->c.mode = WS_TCALL_MODEL;
	r->c.media_ok = media_ok;
	r->kept = kept;
	if (kept != NULL) {
		r->c.out = ws__ms_take(&kept->out);
		r->c.text = ws__ms_take(&kept->text);
	} else {
		r->c.out = open_memstream(&r->out, &r->out_len);
		r->c.text = open_memstream(&r->text, &r->text_len);
	}
	if (r->c.out == NULL || r->c.text == NULL) {
		ws_error_set(WS_ENOMEM, NULL, "out of memory");
		ws__tres_fail(r);
		return;
	}
	if (ws__prepare(s, &ws, &mounts, &nm) < 0) {
		ws__tres_fail(r);
		return;
	}
	if (s->o->base != NULL)
		base = *s->o->base;
	/*
	 * The native server serves virtual paths only: the host layout
	 * (real_path in every entry and match) is no business of a model,
	 * unless the server was started with --paths.
	 */
	if (s->o->compat == NULL && !base.paths_set) {
		base.paths = WS_PATHS_VIRTUAL;
		base.paths_set = true;
	}
	if (args == NULL)
		args = none = cJSON_CreateObject();
	/* The mounts go as data: no directory name is parsed as a spec. */
	ws_cli_set_mounts(mounts, nm);
	ws__ceilings(s->o, ceil);
	ws_cli_set_ceilings(ceil, WS_NCEILINGS);
	r->c.cli = &cli;
	/* Set once, by the first run: under mu for calls side by side. */
	pthread_mutex_lock(&s->mu);
	r->c.iso_default = s->iso_default;
	pthread_mutex_unlock(&s->mu);
	if (ws_cli_init(&cli, t->cli, &base, ws) < 0 ||
	    ws__run_flags(s->o, t, &cli) < 0 ||
	    ws_cli_apply_json(&cli, args, nul) < 0)
		ws_tcall_fail(&r->c, 0);
	else
		ws_tool_invoke(t, &cli, &r->c);
	/* The first run's isolation: later ones that match leave it out. */
	pthread_mutex_lock(&s->mu);
	if (r->c.iso_first != NULL && s->iso_default == NULL) {
		s->iso_default = r->c.iso_first;
		r->c.iso_first = NULL;
	}
	pthread_mutex_unlock(&s->mu);
	ws_cli_set_ceilings(NULL, 0);
	ws_cli_set_mounts(NULL, 0);
	ws_cli_free(&cli);
	r->c.cli = NULL;
	ws__mounts_free(mounts, nm);
	free(ws);
	cJSON_Delete(none);
}

static void
ws__tres_free(struct ws__tres *r)
{
	/* A thread's kept streams stay with it (ws__bufs_trim()). */
	if (r->kept == NULL) {
		if (r->c.out != NULL)
			fclose(r->c.out);
		if (r->c.text != NULL)
			fclose(r->c.text);
		free(r->out);
		free(r->text);
	}
	ws_tcall_free(&r->c);
	memset(r, 0, sizeof(*r));
}

/* Close the call's streams: out and text are then complete. */
static void
ws__tres_close(struct ws__tres *r)
{
	bool bad;

	if (r->kept != NULL) {
		bad = r->c.out != NULL && (fflush(r->c.out) != 0 || ferror(r->c.out));
		if (r->c.text != NULL)
			fflush(r->c.text);
		if (r->c.out != NULL) {
			r->out = r->kept->out.buf;
			r->out_len = r->kept->out.len;
		}
		if (r->c.text != NULL) {
			r->text = r->kept->text.buf;
			r->text_len = r->kept->text.len;
		}
	} else {
		bad = r->c.out != NULL && fclose(r->c.out) != 0;
		if (r->c.text != NULL)
			fclose(r->c.text);
	}
	if (bad && r->c.err.code == 0) {
		ws_error_set(WS_ENOMEM, NULL, "out of memory");
		ws__tres_fail(r);
	}
	r->c.out = NULL;
	r->c.text = NULL;
}

/* The words of the command line that do not apply over MCP. */
static const char *const ws__cli_words[] = {"; pass --approve to allow it",
					    " (--approve)"};

/*
 * The call's error object, as the command line writes it, or, for
 * APPROVAL_REQUIRED, as the model should read it over MCP: the command
 * line's "pass --approve" would have the model ask the person to restart
 * the server with approval for everything, where the person approves one
 * operation through the client's question (elicitation) instead.  msg
 * and hint are what the text says too.
 */
static void
ws__tres_error(struct ws_jw *jw, const struct ws_tcall_err *e, const char *msg,
	       const char *hint, bool approval)
{
	ws_jw_obj(jw);
	ws_jw_kstr(jw, "code", ws_error_name(e->code));
	ws_jw_kstr(jw, "message", msg);
	if (e->path != NULL)
		ws_jw_kname(jw, "path", e->path);
	if (hint != NULL && !approval)
		ws_jw_kstr(jw, "hint", hint);
	if (e->policy != NULL)
		ws_jw_kstr(jw, "policy", e->policy);
	if (e->rule != NULL)
		ws_jw_kstr(jw, "rule", e->rule);
	if (e->operation != NULL)
		ws_jw_kstr(jw, "operation", e->operation);
	if (hint != NULL && approval)
		ws_jw_kstr(jw, "hint", hint);
	ws_jw_obj_end(jw);
}

/*
 * Write the CallToolResult of a call of the table into jw: the text the
 * tool wrote for a model, a media block, and structuredContent spliced
 * from the output value the tool wrote (the error beside it when the call
 * failed), never printed again.
 */
static void
ws__table_result(struct ws_jw *jw, struct ws__tres *r, bool elicit)
{
	const struct ws_tcall *c = &r->c;
	const struct ws_tcall_err *e = &c->err;
	bool ok = e->code == 0;
	bool approval = !ok && e->code == WS_EAPPROVAL_REQUIRED;
	char *msg = NULL, *text = NULL;
	const char *hint = e->hint;

	if (!ok) {
		msg = strdup(e->message ? e->message : "failed");
		for (size_t i = 0; msg != NULL && approval &&
		     i < sizeof(ws__cli_words) / sizeof(ws__cli_words[0]); i++) {
			char *at = strstr(msg, ws__cli_words[i]);
			size_t wl = strlen(ws__cli_words[i]);

			if (at != NULL)
				memmove(at, at + wl, strlen(at + wl) + 1);
		}
		if (approval)
			hint = elicit ?
			"a person must approve this: the client asked them and they did "
			"not approve; ask the user in the conversation whether to try "
			"again (the client will ask them once more). Never suggest "
			"restarting the server with --approve" :
			"a person must approve this, and this client cannot ask them "
			"(no elicitation): tell the user what needs approval, so that "
			"they do it themselves or approve it through a client that asks. "
			"Never suggest restarting the server with --approve";
		/* The error first, then what the call gave (several paths). */
		if (asprintf(&text, "%s: %s%s%s%s%.*s", ws_error_name(e->code),
			     msg ? msg : "failed", hint ? "\nhint: " : "",
			     hint ? hint : "", r->text_len > 0 ? "\n" : "",
			     (int)r->text_len, r->text ? r->text : "") < 0)
			text = NULL;
	}
	ws_jw_obj(jw);
	ws_jw_key(jw, "content");
	ws_jw_arr(jw);
	ws_jw_obj(jw);
	ws_jw_kstr(jw, "type", "text");
	ws_jw_key(jw, "text");
	if (ok)
		ws_jw_strn(jw, r->text ? r->text : "", r->text_len);
	else
		ws_jw_str(jw, text ? text : "");
	ws_jw_obj_end(jw);
	if (ok && c->media != NULL && c->media_data != NULL) {
		ws_jw_obj(jw);
		ws_jw_kstr(jw, "type", strncmp(c->media, "image/", 6) == 0 ? "image" :
			   "audio");
		ws_jw_kstr(jw, "data", c->media_data);
		ws_jw_kstr(jw, "mimeType", c->media);
		ws_jw_obj_end(jw);
	}
	ws_jw_arr_end(jw);
	ws_jw_key(jw, "structuredContent");
	if (ok && c->has_output && r->out_len > 0) {
		ws_jw_raw(jw, "");
		fwrite(r->out, 1, r->out_len, jw->f);
	} else if (ok) {
		ws_jw_raw(jw, "{\"value\":null}");
	} else {
		size_t n = r->out_len;
		struct ws_jw inner;

		/* The output (an object the tool wrote) with the error added. */
		while (n > 0 && r->out[n - 1] != '}')
			n--;
		ws_jw_raw(jw, "");
		if (c->has_output && n > 1) {
			size_t k = n - 1;

			while (k > 0 && (r->out[k - 1] == ' ' || r->out[k - 1] == '\n'))
				k--;
			fwrite(r->out, 1, n - 1, jw->f);
			fputs(k > 0 && r->out[k - 1] == '{' ? "\"error\":" : ",\"error\":",
			      jw->f);
		} else {
			fputs("{\"error\":", jw->f);
		}
		ws_jw_init(&inner, jw->f);
		ws__tres_error(&inner, e, msg ? msg : "failed", hint, approval);
		fputc('}', jw->f);
	}
	ws_jw_kbool(jw, "isError", !ok);
	ws_jw_obj_end(jw);
	free(msg);
	free(text);
}

/*
 * The command line's envelope of a call of the table, for the compat
 * mode only (it translates our results from a cJSON tree): the output
 * value the tool wrote is parsed here, once, for that translation.
 */
static cJSON *
ws__tres_envelope(const char *tool, struct ws__tres *r)
{
	const struct ws_tcall_err *e = &r->c.err;
	cJSON *env = cJSON_CreateObject(), *out = NULL, *err;

	if (r->c.has_output && r->out != NULL)
		out = ws_json_parse(r->out, r->out_len, NULL, false);
	cJSON_AddBoolToObject(env, "success", e->code == 0);
	cJSON_AddStringToObject(env, "tool", tool);
	cJSON_AddItemToObject(env, "output", out ? out : cJSON_CreateNull());
	if (e->code == 0) {
		cJSON_AddNullToObject(env, "error");
		return env;
	}
	err = cJSON_AddObjectToObject(env, "error");
	cJSON_AddStringToObject(err, "code", ws_error_name(e->code));
	cJSON_AddStringToObject(err, "message", e->message ? e->message : "failed");
	if (e->path != NULL)
		cJSON_AddStringToObject(err, "path", e->path);
	if (e->hint != NULL)
		cJSON_AddStringToObject(err, "hint", e->hint);
	if (e->policy != NULL)
		cJSON_AddStringToObject(err, "policy", e->policy);
	if (e->rule != NULL)
		cJSON_AddStringToObject(err, "rule", e->rule);
	if (e->operation != NULL)
		cJSON_AddStringToObject(err, "operation", e->operation);
	return env;
}

cJSON *
ws_mcp_invoke(struct ws_mcp *s, const char *tool, const cJSON *args)
{
	const struct ws_tool_def *t = ws__table_tool(s, tool);
	const struct ws__job *j = ws__self();
	struct ws__tres r;
	cJSON *env;

	if (t == NULL)
		return ws__env_error(tool, WS_EINVALID_ARGUMENT, "unknown tool",
				     "call one of the tools that tools/list lists");
	/* The compat mode reads the bytes from the output: no media block. */
	ws__invoke_table(s, t, args, j != NULL && j->nul_args, false, NULL, &r);
	ws__tres_close(&r);
	env = ws__tres_envelope(tool, &r);
	ws__tres_free(&r);
	return env;
}

void *
ws_mcp_compat_state(struct ws_mcp *s)
{
	return s->compat_state;
}

/* Free what ws_mcp_dirs() took for job j. */
static void
ws__snap_free(struct ws__job *j)
{
	free(j->snap_msg);
	free(j->snap_hint);
	free(j->snap_ws);
	if (j->snap_mounts != NULL)
		ws__mounts_free(j->snap_mounts, j->snap_nm);
	free(j->dirs);
	free(j->dir_prefixes);
	for (size_t i = 0; i < j->ndir_owned; i++)
		free(j->dir_owned[i]);
	free(j->dir_owned);
}

const char *const *
ws_mcp_dirs(struct ws_mcp *s, const char *const **prefixes)
{
	const struct ws_mcp_opts *o = s->o;
	struct ws__job *j = ws__self();
	size_t n = 0, nmm;

	if (j == NULL)
		return NULL;
	if (j->dirs != NULL)
		goto done;
	/*
	 * Once per call, after the roots are answered (as a native call
	 * waits for them): the translation and the native calls then see
	 * the same directories.
	 */
	if (!j->snap) {
		j->snap = true;
		if (ws__prepare_live(s, &j->snap_ws, &j->snap_mounts, &j->snap_nm) < 0) {
			const char *h = ws_error_last_hint();

			j->snap_rc = ws_error_last_code();
			j->snap_msg = strdup(ws_error_last());
			j->snap_hint = h ? strdup(h) : NULL;
		}
	}
	nmm = j->snap_nm;
	j->dirs = calloc(2 + o->ncommon + nmm, sizeof(*j->dirs));
	j->dir_prefixes = calloc(2 + o->ncommon + nmm, sizeof(*j->dir_prefixes));
	j->dir_owned = calloc(2 * (1 + o->ncommon + nmm), sizeof(*j->dir_owned));
	if (j->dirs == NULL || j->dir_prefixes == NULL || j->dir_owned == NULL) {
		free(j->dirs);
		free(j->dir_prefixes);
		free(j->dir_owned);
		j->dirs = j->dir_prefixes = NULL;
		j->dir_owned = NULL;
		return NULL;
	}
	/* No workspace: no directory at all (the mounts hang off it). */
	if (j->snap_ws == NULL)
		goto done;
	j->dir_prefixes[n] = "/";
	j->dirs[n++] = j->snap_ws;
	/* "--mount VPREFIX=DIR[:ro]" flags: the prefix and the DIR. */
	for (size_t i = 0; i + 1 < o->ncommon; i++) {
		const char *v;
		char *p, *d;
		size_t dl;

		if (strcmp(o->common[i], "--mount") != 0 ||
		    strchr(o->common[i + 1], '=') == NULL)
			continue;
		v = o->common[++i];
		p = strndup(v, strcspn(v, "="));
		d = strdup(strchr(v, '=') + 1);
		if (p == NULL || d == NULL) {
			free(p);
			free(d);
			continue;
		}
		dl = strlen(d);
		if (dl > 3 && (strcmp(d + dl - 3, ":ro") == 0 ||
			       strcmp(d + dl - 3, ":rw") == 0))
			d[dl - 3] = '\0';
		j->dir_owned[j->ndir_owned++] = p;
		j->dir_owned[j->ndir_owned++] = d;
		j->dir_prefixes[n] = p;
		j->dirs[n++] = d;
	}
	for (size_t i = 0; i < nmm; i++) {
		j->dir_prefixes[n] = j->snap_mounts[i].vprefix;
		j->dirs[n++] = j->snap_mounts[i].dir;
	}
done:
	if (prefixes != NULL)
		*prefixes = j->dir_prefixes;
	return j->dirs;
}

/* The progress hook: notifications/progress with the call's token. */
static void
ws__progress(void *arg, long long done, long long total, const char *message)
{
	struct ws__job *j = arg;
	struct ws_mcp *s = j->s;
	struct ws__msg m;

	/* Called one at a time per call (the call's pmu, ws_progress()). */
	if (j->progress_token == NULL || done <= j->progress_last)
		return;
	j->progress_last = done;
	if (ws__msg_begin(&m, NULL) < 0)
		return;
	ws_jw_kstr(&m.jw, "method", "notifications/progress");
	ws_jw_key(&m.jw, "params");
	ws_jw_obj(&m.jw);
	ws_jw_key(&m.jw, "progressToken");
	if (cJSON_IsString(j->progress_tok))
		ws_jw_str(&m.jw, j->progress_tok->valuestring);
	else
		ws_jw_raw(&m.jw, j->progress_token);
	ws_jw_kint(&m.jw, "progress", done);
	if (total > 0)
		ws_jw_kint(&m.jw, "total", total);
	ws_jw_kstr(&m.jw, "message", message);
	ws_jw_obj_end(&m.jw);
	ws__msg_send(s, &m);
}

/*
 * The approver (a policy's "approve"): ask the person through the
 * client's elicitation and wait for the answer; without that capability,
 * or if input ends or the call is cancelled, the answer is no.  Each
 * call asks with an id of its own and takes only the answer to it.
 */
static bool
ws__approve(void *arg, const char *message)
{
	struct ws__job *j = arg;
	struct ws_mcp *s = j->s;
	struct ws__msg m;
	struct timespec deadline;
	long long id;
	bool ok;

	pthread_mutex_lock(&s->mu);
	if (!s->cap_elicit || s->eof || j->cancelled) {
		pthread_mutex_unlock(&s->mu);
		return false;
	}
	id = j->elicit_id = s->next_id++;
	j->elicit = WS__WAITING;
	j->elicit_ok = false;
	/* The reader must read the answer, however full the queue. */
	s->nelicit++;
	pthread_cond_signal(&s->room);
	pthread_mutex_unlock(&s->mu);
	if (ws__msg_begin(&m, NULL) < 0) {
		pthread_mutex_lock(&s->mu);
		j->elicit = WS__NONE;
		s->nelicit--;
		pthread_mutex_unlock(&s->mu);
		return false;
	}
	ws_jw_kint(&m.jw, "id", id);
	ws_jw_kstr(&m.jw, "method", "elicitation/create");
	ws_jw_key(&m.jw, "params");
	ws_jw_obj(&m.jw);
	ws_jw_kstr(&m.jw, "message", message);
	ws_jw_key(&m.jw, "requestedSchema");
	ws_jw_raw(&m.jw, "{\"type\":\"object\",\"properties\":{\"approve\":"
			 "{\"type\":\"boolean\",\"title\":\"Approve\","
			 "\"description\":\"Allow this operation\"}},"
			 "\"required\":[\"approve\"]}");
	ws_jw_obj_end(&m.jw);
	ws__msg_send(s, &m);
	deadline = ws__deadline(s->o->approval_timeout_ms ? s->o->approval_timeout_ms
							 : 120000);
	pthread_mutex_lock(&s->mu);
	/* Unanswered for --approval-timeout: no, and the calls go on. */
	while (j->elicit == WS__WAITING && !s->eof && !j->cancelled)
		if (pthread_cond_timedwait(&s->cv, &s->mu, &deadline) == ETIMEDOUT)
			break;
	ok = j->elicit == WS__ANSWERED && j->elicit_ok;
	j->elicit = WS__NONE;
	s->nelicit--;
	pthread_mutex_unlock(&s->mu);
	return ok;
}

/*
 * Run one tools/call and answer it (unless it was cancelled), on the
 * streams the running thread keeps (b).
 */
static void
ws__run_job(struct ws_mcp *s, struct ws__job *j, struct ws__bufs *b)
{
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(j->req, "params");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	const cJSON *token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
	cJSON *res = NULL;
	const struct ws_tool_def *td;
	struct ws__tres tr;
	struct ws__msg m;
	bool cancelled, table = false;

	j->progress_token = NULL;
	j->progress_last = -1;
	if (token != NULL && (cJSON_IsString(token) || cJSON_IsNumber(token))) {
		j->progress_tok = token;
		j->progress_token = cJSON_PrintUnformatted(token);
		ws_progress_set(ws__progress, j);
		ws__progress(j, 0, 0, "started");
	}
	/*
	 * A repeated key, at any depth, before anything reads the
	 * arguments (the compat mode's translation included).
	 */
	if (ws_json_unique_keys(args, true) < 0) {
		char *t = NULL;

		if (s->o->compat != NULL) {
			if (asprintf(&t, "MCP error -32602: Input validation error: "
				     "%s", ws_error_last()) < 0)
				t = NULL;
			res = ws__text_error(t ? t : "repeated key");
		} else {
			ws__tres_server_error(&tr, WS_EINVALID_ARGUMENT, ws_error_last(),
					      "send each argument once");
			table = true;
		}
		free(t);
	} else if (s->o->compat != NULL) {
		res = s->o->compat->call(s, name->valuestring, args);
	} else if (ws_cli_check_keys(name->valuestring, args,
				     ws__declared(s, name->valuestring)) < 0) {
		/* Only what tools/list declares: the tool takes more. */
		ws__tres_server_error(&tr, WS_EINVALID_ARGUMENT, ws_error_last(),
				      ws_error_last_hint());
		table = true;
	} else if ((td = ws__table_tool(s, name->valuestring)) != NULL) {
		ws__invoke_table(s, td, args, j->nul_args, true, b, &tr);
		ws__tres_close(&tr);
		table = true;
	} else {
		/* Every tool the server offers is on the table. */
		ws__tres_server_error(&tr, WS_EINVALID_ARGUMENT, "unknown tool",
				      "call one of the tools that tools/list lists");
		table = true;
	}
	ws_progress_set(NULL, NULL);
	free(j->progress_token);
	j->progress_token = NULL;
	pthread_mutex_lock(&s->mu);
	cancelled = j->cancelled;
	j->answered = true;
	pthread_mutex_unlock(&s->mu);
	/* A cancelled request gets no response (MCP, cancellation). */
	if (!cancelled && res == NULL && !table) {
		char *t = NULL;

		/* The compat mode does not know the name. */
		if (asprintf(&t, "Unknown tool: %s", name->valuestring) < 0)
			t = NULL;
		ws__error(s, j->id, -32602, t ? t : "Unknown tool");
		free(t);
	} else if (!cancelled && ws__msg_begin_on(&m, j->id, &b->msg) == 0) {
		ws_jw_key(&m.jw, "result");
		if (res != NULL) {
			ws__jw_cjson(&m.jw, res);
		} else if (table) {
			ws__table_result(&m.jw, &tr, s->cap_elicit);
		} else {
			ws_jw_raw(&m.jw, "{}");
		}
		ws__msg_send(s, &m);
	}
	cJSON_Delete(res);
	if (table)
		ws__tres_free(&tr);
	ws__bufs_trim(b);
}

/* Take j off the list of running calls (under mu). */
static void
ws__unlist(struct ws_mcp *s, struct ws__job *j)
{
	for (struct ws__job **pp = &s->running; *pp != NULL; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			break;
		}
}

/*
 * Run job j on the calling thread, in a state of its own (ws/call.h),
 * answer it and free it.  Called with mu held (a cancel for this call
 * cannot come in between its listing and its state); returns without.
 */
static void
ws__exec(struct ws_mcp *s, struct ws__job *j, struct ws__bufs *b)
{
	struct ws__job *outer = ws__self();

	ws_call_init(&j->call, s->frontend);
	j->call.session = s->session;
	j->call.owner = j;
	j->call.order = j->order;
	j->next = s->running;
	s->running = j;
	pthread_mutex_unlock(&s->mu);
	ws_call_enter(&j->call);
	ws_cli_set_approver(ws__approve, j);
	ws__run_job(s, j, b);
	ws_call_leave();
	if (outer != NULL)
		ws_call_enter(&outer->call);
	pthread_mutex_lock(&s->mu);
	ws__unlist(s, j);
	pthread_mutex_unlock(&s->mu);
	ws_call_fini(&j->call);
	ws__snap_free(j);
	cJSON_Delete(j->req);
	free(j);
}

/* Job j left the queue (under mu): room for the reader to read on. */
static void
ws__dequeued(struct ws_mcp *s, const struct ws__job *j)
{
	if (j->cmd) {
		/* The reader never waits for commands: no room to say. */
		s->ncmdq--;
		s->cmdqbytes -= j->size;
		return;
	}
	s->nqueued--;
	s->qbytes -= j->size;
	if (s->reader_waits)
		pthread_cond_signal(&s->room);
	if (s->reader_polls && s->wake[1] >= 0) {
		/* One byte, which the reader takes back (under mu). */
		s->reader_polls = false;
		(void)!write(s->wake[1], "r", 1);
	}
}

/*
 * The oldest queued call a worker may take (under mu), and in *prev the
 * one before it in the queue (NULL: it is the head); NULL when none may.
 * Commands in one workspace run one at a time (ws__ws_lock() in
 * lib/run.c), and one waiting for the other polls on its worker: with
 * every worker on a command, a read_file sent beside them waited for a
 * command to end (ftu12 05).  So run_commands take at most --jobs - 1
 * workers (one with --jobs 1), and the others are always free for the
 * other calls; a command beyond that waits in the queue, in order, and
 * a cancel drops it there.
 */
static struct ws__job *
ws__eligible(struct ws_mcp *s, struct ws__job **prev)
{
	*prev = NULL;
	for (struct ws__job *j = s->head; j != NULL; *prev = j, j = j->next)
		if (!j->cmd || s->ncmd < s->cmdmax)
			return j;
	return NULL;
}

/*
 * A worker: take the oldest queued call it may (ws__eligible()), run it
 * in a state of its own (ws/call.h) and answer it, until input ended and
 * the queue is empty.
 */
static void
ws__worker(struct ws_mcp *s)
{
	/*
	 * No signal is blocked here: wsrun's children inherit this thread's
	 * mask, and a command must die of the SIGTERM that stops it.
	 */
	struct ws__idle me = {.woken = false};
	struct ws__bufs bufs = {0};
	bool was_cmd = false;

	pthread_cond_init(&me.cv, NULL);
	for (;;) {
		struct ws__job *j, *prev;

		pthread_mutex_lock(&s->mu);
		if (was_cmd)
			s->ncmd--;
		was_cmd = false;
		while ((j = ws__eligible(s, &prev)) == NULL &&
		       !(s->eof && s->head == NULL)) {
			me.woken = false;
			me.next = s->idle;
			s->idle = &me;
			while (!me.woken)
				pthread_cond_wait(&me.cv, &s->mu);
		}
		if (j == NULL) {
			/* The others may sleep on a command that was queued
			 * then: all is done, they end too. */
			while (ws__wake_one(s))
				;
			pthread_mutex_unlock(&s->mu);
			break;
		}
		if (prev != NULL)
			prev->next = j->next;
		else
			s->head = j->next;
		if (s->tail == j)
			s->tail = prev;
		j->next = NULL;
		if ((was_cmd = j->cmd))
			s->ncmd++;
		/* A command that ended here may have made one queued behind
		 * the limit eligible: another worker takes what is left. */
		if (ws__eligible(s, &prev) != NULL)
			(void)ws__wake_one(s);
		ws__dequeued(s, j);
		ws__exec(s, j, &bufs);
	}
	ws__bufs_free(&bufs);
	pthread_cond_destroy(&me.cv);
}

/* Wake the last idle worker (under mu); false if none is idle. */
static bool
ws__wake_one(struct ws_mcp *s)
{
	struct ws__idle *w = s->idle;

	if (w == NULL)
		return false;
	s->idle = w->next;
	w->woken = true;
	pthread_cond_signal(&w->cv);
	return true;
}

/* The workers beside the main thread. */
static void *
ws__worker_thread(void *arg)
{
	ws__worker(arg);
	/* What the calls left in this thread's storage. */
	ws_error_clear();
	ws_glob_thread_end();
	return NULL;
}

/* ---- Requests (reader thread) ---------------------------------------- */

static const char ws__instructions[] =
	"wstools serves the files of one workspace through descriptor-based "
	"containment. Paths are virtual: \"/\" is the workspace root, a "
	"relative path starts from it (\"src/a.c\" is \"/src/a.c\"), and extra "
	"directories are mounted at \"/.NAME\" (list them with list_directory "
	"{\"path\": \"/\", \"all\": true}). Paths that leave the workspace, "
	"\"..\" above the root and symlinks that point out are refused "
	"(PATH_OUTSIDE_WORKSPACE, SYMLINK_OUTSIDE_WORKSPACE). run_command runs "
	"in a sandbox with the workspace root as its working directory; the "
	"sandbox confines it, and what the policy refuses to read reads as "
	"empty there (a note says so: do not take it for an empty file), what "
	"it refuses to write is read-only. A call that changes files waits "
	"while a run_command runs in the workspace (45 s at most): do not "
	"change files while your own long command runs. Commands run one at "
	"a time: a run_command sent beside another waits for it, and its "
	"timeout covers that wait. A "
	"failed call is a result with isError true and structuredContent.error "
	"holding code, message and often a hint: correct the call as it says.";

static void
ws__initialize(struct ws_mcp *s, const cJSON *id, const cJSON *params)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	const cJSON *caps = cJSON_GetObjectItemCaseSensitive(params, "capabilities");
	const char *ver = ws_mcp_versions[0];
	struct ws__msg m;

	if (!cJSON_IsObject(params) || !cJSON_IsString(v)) {
		ws__error(s, id, -32602, "initialize needs params.protocolVersion");
		return;
	}
	/* The session is set up once: a second one cannot change it. */
	if (s->init_done) {
		ws__error(s, id, -32600, "Invalid Request: already initialized");
		return;
	}
	s->init_done = true;
	for (size_t i = 0; ws_mcp_versions[i] != NULL; i++)
		if (strcmp(v->valuestring, ws_mcp_versions[i]) == 0)
			ver = ws_mcp_versions[i];
	pthread_mutex_lock(&s->mu);
	s->cap_roots = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps, "roots"));
	{
		/*
		 * Form elicitation: {} (2025-06-18) or {"form": {}}; a client
		 * that offers only "url" cannot show our yes/no question.
		 */
		const cJSON *el = cJSON_GetObjectItemCaseSensitive(caps, "elicitation");

		s->cap_elicit = cJSON_IsObject(el) &&
				(el->child == NULL ||
				 cJSON_GetObjectItemCaseSensitive(el, "form") != NULL);
	}
	if (s->o->workspace == NULL && s->o->fallback == NULL && !s->cap_roots)
		fprintf(stderr, "wstools mcp: warning: no workspace: start it with "
			"--workspace DIR (or a DIR), set WS_ROOT, or use a client "
			"that offers roots; every call fails until then\n");
	pthread_mutex_unlock(&s->mu);
	if (ws__msg_begin(&m, id) < 0)
		return;
	ws_jw_key(&m.jw, "result");
	ws_jw_obj(&m.jw);
	ws_jw_kstr(&m.jw, "protocolVersion", ver);
	ws_jw_key(&m.jw, "capabilities");
	ws_jw_raw(&m.jw, "{\"tools\":{\"listChanged\":false}}");
	ws_jw_key(&m.jw, "serverInfo");
	ws_jw_obj(&m.jw);
	ws_jw_kstr(&m.jw, "name", "wstools");
	ws_jw_kstr(&m.jw, "title", "wstools: sandboxed file tools");
	ws_jw_kstr(&m.jw, "version", WS_VERSION);
	ws_jw_obj_end(&m.jw);
	ws_jw_kstr(&m.jw, "instructions",
		   s->o->compat && s->o->compat->instructions
			   ? s->o->compat->instructions : ws__instructions);
	ws_jw_obj_end(&m.jw);
	ws__msg_send(s, &m);
}

/* Ask the client for its roots (when they may set the workspace). */
static void
ws__ask_roots(struct ws_mcp *s)
{
	struct ws__msg m;
	long long id;

	pthread_mutex_lock(&s->mu);
	if (s->o->workspace != NULL || !s->cap_roots) {
		pthread_mutex_unlock(&s->mu);
		return;
	}
	id = s->roots_id = s->next_id++;
	s->roots_pending = true;
	s->roots_deadline = ws__deadline(s->o->roots_timeout_ms ? s->o->roots_timeout_ms
							    : 10000);
	pthread_mutex_unlock(&s->mu);
	if (ws__msg_begin(&m, NULL) < 0)
		return;
	ws_jw_kint(&m.jw, "id", id);
	ws_jw_kstr(&m.jw, "method", "roots/list");
	ws__msg_send(s, &m);
}

/* "file:///a%20b" -> "/a b" (malloc'd), NULL if not a local file URI. */
static char *
ws__file_uri(const char *uri)
{
	const char *p;
	char *out, *o;

	if (strncmp(uri, "file://", 7) != 0)
		return NULL;
	p = uri + 7;
	if (strncmp(p, "localhost/", 10) == 0)
		p += 9;
	if (*p != '/')
		return NULL;
	out = o = malloc(strlen(p) + 1);
	if (out == NULL)
		return NULL;
	for (; *p; p++) {
		if (*p == '%' && p[1] && p[2]) {
			char hex[3] = {p[1], p[2], 0}, *end;
			long v = strtol(hex, &end, 16);

			if (*end != '\0' || v == 0) {
				free(out);
				return NULL;
			}
			*o++ = (char)v;
			p += 2;
		} else if (*p == '?' || *p == '#') {
			break;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

/*
 * The client's answer to roots/list: the first usable root is the
 * workspace, the others are mounted (as data, named by
 * ws_mcp_mount_name()).  A root that is not a local file:// URI is
 * skipped with a line on stderr; when roots were offered and none is
 * usable, calls fail with WORKSPACE_NOT_FOUND saying why rather than
 * fall back to WS_ROOT, a directory the person did not choose here.
 */
static void
ws__roots_answer(struct ws_mcp *s, const cJSON *msg)
{
	const cJSON *roots = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(msg, "result"), "roots");
	const cJSON *r;
	char *ws = NULL, *why = NULL;
	const char **dirs = calloc((size_t)cJSON_GetArraySize(roots) + 1, sizeof(*dirs));
	struct ws_mount_def *mounts = NULL;
	size_t nd = 0, offered = 0;

	cJSON_ArrayForEach(r, roots) {
		const char *uri = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(r, "uri"));
		char *path = uri ? ws__file_uri(uri) : NULL;

		offered++;
		if (path == NULL) {
			fprintf(stderr, "wstools mcp: root %s skipped: not a local "
				"file:///PATH URI\n", uri ? uri : "(without uri)");
			continue;
		}
		if (ws == NULL)
			ws = path;
		else if (dirs != NULL)
			dirs[nd++] = path;
		else
			free(path);
	}
	if (ws == NULL && offered > 0 &&
	    asprintf(&why, "no workspace: none of the client's %zu root(s) is a "
		     "local file:///PATH URI", offered) < 0)
		why = NULL;
	if (dirs == NULL || ws__mounts_build(s->o, dirs, nd, &mounts) < 0) {
		ws_error_clear();
		mounts = NULL;
		nd = 0;
	}
	for (size_t i = 0; dirs != NULL && dirs[i] != NULL; i++)
		free((char *)dirs[i]);
	free(dirs);
	pthread_mutex_lock(&s->mu);
	free(s->root_ws);
	free(s->roots_error);
	ws__mounts_free(s->root_mounts, s->nroot_mounts);
	s->root_ws = ws;
	s->roots_error = why;
	s->root_mounts = mounts;
	s->nroot_mounts = nd;
	s->roots_pending = false;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	/*
	 * A new root set: what was opened for the old one is let go (calls
	 * still running on it keep theirs), and the next call opens afresh.
	 */
	ws_session_forget(s->session);
}

/* A response from the client to one of our requests. */
static void
ws__response(struct ws_mcp *s, const cJSON *msg)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	long long n;

	/*
	 * Exactly one of our integer ids: 1.5 is not 1, and 1e309 or 1e19
	 * is none (checked before the conversion, which they would make
	 * undefined).  Ours count from 1, far below 2^53.
	 */
	if (!cJSON_IsNumber(id) || !(id->valuedouble >= 0 &&
				     id->valuedouble < 9007199254740992.0) ||
	    id->valuedouble != (double)(long long)id->valuedouble)
		return;
	n = (long long)id->valuedouble;
	pthread_mutex_lock(&s->mu);
	/* A late answer (after the timeout) still sets the roots. */
	if (s->roots_id >= 0 && n == s->roots_id) {
		pthread_mutex_unlock(&s->mu);
		if (cJSON_GetObjectItemCaseSensitive(msg, "result") != NULL) {
			ws__roots_answer(s, msg);
		} else {
			/* The client refused: no workspace from roots. */
			pthread_mutex_lock(&s->mu);
			s->roots_pending = false;
			pthread_cond_broadcast(&s->cv);
			pthread_mutex_unlock(&s->mu);
		}
		return;
	}
	for (struct ws__job *j = s->running; j != NULL; j = j->next) {
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(msg, "result");
		const cJSON *action = cJSON_GetObjectItemCaseSensitive(res, "action");
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(res, "content");

		if (j->elicit != WS__WAITING || n != j->elicit_id)
			continue;
		/* Only an explicit "accept" with approve: true allows. */
		j->elicit_ok = cJSON_IsString(action) &&
			       strcmp(action->valuestring, "accept") == 0 &&
			       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(content,
									   "approve"));
		j->elicit = WS__ANSWERED;
		pthread_cond_broadcast(&s->cv);
		break;
	}
	pthread_mutex_unlock(&s->mu);
}

/*
 * Whether two request ids are the same: by their JSON text, not their
 * value (9007199254740992 and 9007199254740993 are one double): a
 * number's text as the client wrote it (ws__keep_raw_id(),
 * ws__raw_request_id()), a string's bytes.
 */
static bool
ws__same_id(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) {
		if (a->valuestring != NULL && b->valuestring != NULL)
			return strcmp(a->valuestring, b->valuestring) == 0;
		return a->valuestring == NULL && b->valuestring == NULL &&
		       a->valuedouble == b->valuedouble;
	}
	return cJSON_IsString(a) && cJSON_IsString(b) &&
	       strcmp(a->valuestring, b->valuestring) == 0;
}

/* notifications/cancelled: drop a queued call, or stop a running one. */
static void
ws__cancel(struct ws_mcp *s, const cJSON *params)
{
	const cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
	struct ws__job **pp, *drop = NULL;

	if (rid == NULL)
		return;
	pthread_mutex_lock(&s->mu);
	for (struct ws__job *j = s->running; j != NULL; j = j->next)
		if (ws__same_id(j->id, rid)) {
			j->cancelled = true;
			ws_call_cancel(&j->call);
			pthread_cond_broadcast(&s->cv); /* an approval wait ends */
		}
	for (pp = &s->head; *pp != NULL; pp = &(*pp)->next) {
		if (ws__same_id((*pp)->id, rid)) {
			drop = *pp;
			*pp = drop->next;
			break;
		}
	}
	s->tail = NULL;
	for (struct ws__job *j = s->head; j != NULL; j = j->next)
		s->tail = j;
	if (drop != NULL)
		ws__dequeued(s, drop);
	pthread_mutex_unlock(&s->mu);
	if (drop != NULL) {
		cJSON_Delete(drop->req);
		free(drop);
	}
}

/*
 * The idle fast path: whether the reader runs this call itself (under
 * mu).  Handing a call to a worker costs a wake-up and a switch of
 * threads (a futex each way, and on a busy machine a wait for a CPU);
 * when nothing runs and nothing waits, the reader has nothing else to
 * do.  But while it runs a call it reads nothing, so it takes only
 * calls that end soon of themselves and wait for nobody:
 *  - nothing else running or queued (else it goes behind them, and a
 *    read during a command is answered by a worker at once);
 *  - not run_command, search_files or directory_tree, which may take
 *    seconds (a cancel must be read while they run), nor a call that
 *    changes files, which waits for a command that runs;
 *  - no answer from the client can be needed: the roots answered
 *    already, and the client offers no elicitation (a policy's
 *    "approve" would ask it, and only the reader reads the answer).
 */
static bool
ws__inline_ok(struct ws_mcp *s, const char *name)
{
	/*
	 * Calls that may take long go to the pool, so that the reader is
	 * free to read their cancellation: edit_file (up to 1,000 edits of
	 * a large file) and delete_path (a tree) among them.  So does every
	 * call that changes files: it waits for a command that runs in the
	 * workspace (ws_ctx_wait_runs(), up to 45 s), which may be another
	 * process's that this server does not know of, and on the reader
	 * no ping or cancel was read meanwhile (review30 05).
	 */
	static const char *const slow[] = {"run_command", "search_files",
					   "directory_tree", "history", "undo",
					   "edit_file", "delete_path", "write_file",
					   "create_directory", "move_path",
					   "move_file"};

	if (s->rbufs == NULL || s->running != NULL || s->head != NULL ||
	    s->roots_pending || s->cap_elicit)
		return false;
	for (size_t i = 0; i < sizeof(slow) / sizeof(slow[0]); i++)
		if (strcmp(name, slow[i]) == 0)
			return false;
	return true;
}

/* Queue a tools/call for the worker, after checking its params. */
static void
ws__call(struct ws_mcp *s, cJSON *req, const cJSON *id, const cJSON *params, bool nul,
	 size_t size)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	struct ws__job *j;
	bool known = s->o->compat != NULL, dup = false;

	if (!cJSON_IsObject(params) || !cJSON_IsString(name)) {
		ws__error(s, id, -32602, "tools/call needs params.name (a string)");
		cJSON_Delete(req);
		return;
	}
	if (args != NULL && !cJSON_IsObject(args) && !cJSON_IsNull(args)) {
		ws__error(s, id, -32602, "tools/call params.arguments must be an object");
		cJSON_Delete(req);
		return;
	}
	/* Two "name"s or "arguments": which one would be called? */
	if (ws_json_unique_keys(params, false) < 0) {
		char *msg = NULL;

		if (asprintf(&msg, "Invalid params: %s", ws_error_last()) < 0)
			msg = NULL;
		ws__error(s, id, -32602, msg ? msg : "Invalid params");
		free(msg);
		cJSON_Delete(req);
		return;
	}
	for (size_t i = 0; !known && i < s->o->ntools; i++)
		known = strcmp(s->o->tools[i].name, name->valuestring) == 0;
	if (!known) {
		char *msg = NULL;

		if (asprintf(&msg, "Unknown tool: %s", name->valuestring) < 0)
			msg = NULL;
		ws__error(s, id, -32602, msg ? msg : "Unknown tool");
		free(msg);
		cJSON_Delete(req);
		return;
	}
	j = calloc(1, sizeof(*j));
	if (j == NULL) {
		ws__error(s, id, -32603, "out of memory");
		cJSON_Delete(req);
		return;
	}
	j->s = s;
	j->req = req;
	j->id = id;
	j->nul_args = nul;
	j->size = size;
	j->cmd = s->o->compat == NULL && strcmp(name->valuestring, "run_command") == 0;
	pthread_mutex_lock(&s->mu);
	/*
	 * An id in flight already: which call would an answer or a cancel
	 * name?  Refused, the first one runs on.
	 */
	for (struct ws__job *q = s->running; q != NULL && !dup; q = q->next)
		dup = !q->answered && ws__same_id(q->id, id);
	for (struct ws__job *q = s->head; q != NULL && !dup; q = q->next)
		dup = ws__same_id(q->id, id);
	if (dup) {
		pthread_mutex_unlock(&s->mu);
		ws__error(s, id, -32600, "Invalid Request: a request with this id is "
			  "still in flight");
		cJSON_Delete(req);
		free(j);
		return;
	}
	/* The client is gone: nothing is run for it any more. */
	if (s->eof) {
		pthread_mutex_unlock(&s->mu);
		cJSON_Delete(req);
		free(j);
		return;
	}
	if (ws__inline_ok(s, name->valuestring)) {
		ws__exec(s, j, s->rbufs);
		return;
	}
	/*
	 * The commands queued are bounded apart (cmdqmax, max_message
	 * bytes), and the reader reads on past them: one past the bound is
	 * answered now, never held (nor does it hold the calls behind it).
	 */
	if (j->cmd && (s->ncmdq >= s->cmdqmax ||
		       (s->ncmdq > 0 && s->cmdqbytes + j->size > s->max_message))) {
		size_t n = s->ncmdq;

		pthread_mutex_unlock(&s->mu);
		ws__busy(s, id, n);
		cJSON_Delete(req);
		free(j);
		return;
	}
	if (s->tail != NULL)
		s->tail->next = j;
	else
		s->head = j;
	s->tail = j;
	if (j->cmd) {
		j->order = ++s->ncmd_received;
		s->ncmdq++;
		s->cmdqbytes += j->size;
	} else {
		s->nqueued++;
		s->qbytes += j->size;
	}
	/* One worker is enough: waking all of them costs the idle case. */
	(void)ws__wake_one(s);
	pthread_mutex_unlock(&s->mu);
}

/*
 * One JSON value and nothing after it but white space ("{..}{..}" is not
 * a message), or NULL.
 */
static cJSON *
ws__parse(const char *text, size_t len)
{
	const char *end = NULL;
	cJSON *j = ws_json_parse(text, len, &end, false);

	if (j == NULL)
		return NULL;
	while (end < text + len && (*end == ' ' || *end == '\t' || *end == '\r' ||
				    *end == '\n'))
		end++;
	if (end != text + len) {
		cJSON_Delete(j);
		return NULL;
	}
	return j;
}

/*
 * Whether text holds the escape "\u0000" (backslashes occur only inside
 * JSON strings, so no string tracking is needed); if out is not NULL (a
 * copy of text), each of them becomes "\u0001" there.
 */
static bool
ws__nul_escapes(const char *text, size_t len, char *out)
{
	bool found = false;

	for (size_t i = 0; i + 1 < len; i++) {
		if (text[i] != '\\')
			continue;
		if (text[i + 1] == 'u' && i + 5 < len && memcmp(text + i + 2, "0000", 4) == 0) {
			found = true;
			if (out != NULL)
				out[i + 5] = '1';
		}
		i++;
	}
	return found;
}

/* Past the JSON string that starts at p (at its '"'), or NULL. */
static const char *
ws__skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/*
 * Whether s[0..n) is a number as JSON writes it (RFC 8259, 6):
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.  cJSON reads more
 * ("01", "1.", "1.E5"), which must not come back in an answer as written.
 */
static bool
ws__json_number(const char *s, size_t n)
{
	size_t i = 0, d;

	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0') {
		i++;
	} else {
		for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d)
			return false;
	}
	if (i < n && s[i] == '.') {
		for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d)
			return false;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d)
			return false;
	}
	return i == n;
}

/*
 * The text of a top-level "id" that is a number, as the client wrote it
 * (9007199254740993 is no double, and must come back as sent): kept in
 * the number item's valuestring, which ws__msg_begin() prints and
 * cJSON_Delete() frees.  line is one JSON object (parsed already).
 * False when that text is no JSON number: the answer would not be JSON.
 */
static bool
ws__keep_raw_id(const char *line, size_t len, cJSON *id)
{
	const char *p = line, *end = line + len;
	int depth = 0;

	if (!cJSON_IsNumber(id) || id->valuestring != NULL)
		return true;
	while (p < end) {
		if (*p == '"') {
			const char *k = p, *after = ws__skip_string(p, end);

			if (after == NULL)
				return true;
			p = after;
			if (depth != 1)
				continue;
			while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
				p++;
			if (p < end && *p == ':' && after - k == 4 && memcmp(k, "\"id\"", 4) == 0) {
				const char *v;

				for (p++; p < end && (*p == ' ' || *p == '\t' || *p == '\r' ||
						      *p == '\n'); p++)
					;
				v = p;
				while (p < end && strchr("+-0123456789.eE", *p) != NULL)
					p++;
				/* The first "id" only, the one cJSON returned. */
				if (!ws__json_number(v, (size_t)(p - v)))
					return false;
				id->valuestring = strndup(v, (size_t)(p - v));
				return true;
			}
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		p++;
	}
	return true;
}

/* Past the JSON value that starts at p (white space skipped), or NULL. */
static const char *
ws__skip_value(const char *p, const char *end)
{
	int depth = 0;

	while (p < end) {
		if (*p == '"') {
			if ((p = ws__skip_string(p, end)) == NULL)
				return NULL;
			if (depth == 0)
				return p;
			continue;
		}
		if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (--depth <= 0)
				return depth == 0 ? p + 1 : NULL;
		} else if (depth == 0 && strchr(" \t\r\n", *p) == NULL) {
			while (p < end && strchr(",}] \t\r\n", *p) == NULL)
				p++;
			return p;
		}
		p++;
	}
	return NULL;
}

/*
 * The first member key of the object at obj[0..end) ('{' first): its
 * value's text in [*v, *ve), or false.
 */
static bool
ws__member(const char *obj, const char *end, const char *key, const char **v,
	   const char **ve)
{
	const char *p = obj + 1;
	size_t kl = strlen(key);

	for (;;) {
		const char *k, *after;

		while (p < end && strchr(" \t\r\n,", *p) != NULL)
			p++;
		if (p >= end || *p != '"')
			return false;
		k = p;
		if ((after = ws__skip_string(p, end)) == NULL)
			return false;
		for (p = after; p < end && strchr(" \t\r\n:", *p) != NULL; p++)
			;
		*v = p;
		if ((p = ws__skip_value(p, end)) == NULL)
			return false;
		if ((size_t)(after - k) == kl + 2 && memcmp(k + 1, key, kl) == 0) {
			*ve = p;
			return true;
		}
	}
}

/*
 * The text of params.requestId of a notifications/cancelled, kept as
 * ws__keep_raw_id() keeps an id's, so that the cancel names the request
 * by the text it was sent with (ws__same_id()).
 */
static void
ws__raw_request_id(const char *line, size_t len, cJSON *rid)
{
	const char *end = line + len, *p = line, *v, *ve, *r, *re;

	if (!cJSON_IsNumber(rid) || rid->valuestring != NULL)
		return;
	while (p < end && *p != '{')
		p++;
	if (p < end && ws__member(p, end, "params", &v, &ve) && *v == '{' &&
	    ws__member(v, ve, "requestId", &r, &re) &&
	    ws__json_number(r, (size_t)(re - r)))
		rid->valuestring = strndup(r, (size_t)(re - r));
}

/* One line of input: a request, a notification or a response. */
static void
ws__line(struct ws_mcp *s, const char *line, size_t len)
{
	bool nul = false;
	cJSON *msg, *id;
	const cJSON *method, *params;
	const char *m;

	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
			   line[len - 1] == '\t'))
		len--;
	if (len == 0)
		return;
	msg = ws__parse(line, len);
	if (msg == NULL) {
		ws__error(s, NULL, -32700, "Parse error: the line is not one JSON value");
		return;
	}
	/*
	 * cJSON ends a string at "\u0000": read the line again with those
	 * escapes as U+0001 and see what they were in.  An id with one is
	 * refused; arguments with one go to the tool with the escape back
	 * in place, for the CLI's own check (INVALID_PATH...).
	 */
	if (ws__nul_escapes(line, len, NULL)) {
		char *copy = malloc(len);
		cJSON *alt = NULL;

		if (copy != NULL) {
			memcpy(copy, line, len);
			ws__nul_escapes(line, len, copy);
			alt = ws__parse(copy, len);
			free(copy);
		}
		if (alt == NULL ||
		    !cJSON_Compare(cJSON_GetObjectItemCaseSensitive(msg, "id"),
				   cJSON_GetObjectItemCaseSensitive(alt, "id"), 1)) {
			cJSON_Delete(alt);
			cJSON_Delete(msg);
			ws__error(s, NULL, -32600, "Invalid Request: the id holds a NUL "
				  "character (\\u0000)");
			return;
		}
		if (!cJSON_Compare(msg, alt, 1)) {
			/* The message as read with U+0001: marked for ws__invoke. */
			cJSON_Delete(msg);
			msg = alt;
			nul = true;
		} else {
			cJSON_Delete(alt);
		}
	}
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	if (cJSON_IsObject(msg) && !ws__keep_raw_id(line, len, id)) {
		ws__error(s, NULL, -32700, "Parse error: the id is not a JSON number "
			  "(such as 01 or 1.)");
		goto out;
	}
	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	if (!cJSON_IsObject(msg) || cJSON_IsArray(msg)) {
		ws__error(s, NULL, -32600, "Invalid Request: not a JSON-RPC object");
		goto out;
	}
	/* Two ids or methods: neither can be trusted to be the one meant. */
	if (ws_json_unique_keys(msg, false) < 0) {
		char *t = NULL;

		if (asprintf(&t, "Invalid Request: %s", ws_error_last()) < 0)
			t = NULL;
		ws__error(s, NULL, -32600, t ? t : "Invalid Request");
		free(t);
		goto out;
	}
	{
		const cJSON *ver = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");

		if (!cJSON_IsString(ver) || strcmp(ver->valuestring, "2.0") != 0) {
			if (method != NULL || id == NULL)
				ws__error(s, cJSON_IsString(id) || cJSON_IsNumber(id) ? id : NULL,
					  -32600, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
			goto out;
		}
	}
	if (method == NULL && id != NULL) {
		ws__response(s, msg);
		goto out;
	}
	if (!cJSON_IsString(method) ||
	    (id != NULL && !cJSON_IsString(id) && !cJSON_IsNumber(id))) {
		if (id != NULL || method != NULL)
			ws__error(s, cJSON_IsString(id) || cJSON_IsNumber(id) ? id : NULL,
				  -32600, "Invalid Request: method and id malformed");
		goto out;
	}
	m = method->valuestring;
	if (id == NULL) {
		/* Notifications never get a response. */
		if (strcmp(m, "notifications/initialized") == 0) {
			s->initialized = true;
			ws__ask_roots(s);
		} else if (strcmp(m, "notifications/cancelled") == 0) {
			ws__raw_request_id(line, len, cJSON_GetObjectItemCaseSensitive(
						   params, "requestId"));
			ws__cancel(s, params);
		} else if (strcmp(m, "notifications/roots/list_changed") == 0) {
			ws__ask_roots(s);
		}
		goto out;
	}
	if (params != NULL && !cJSON_IsObject(params)) {
		ws__error(s, id, -32602, "Invalid params: params must be an object");
		goto out;
	}
	/*
	 * Until initialize is answered, only ping is (MCP lifecycle: a
	 * client sends no other request before it; the SDKs' servers refuse
	 * one as the TypeScript SDK's HTTP transport does, -32000 "Server not
	 * initialized").  A tool call before it would run on no negotiated
	 * version, capabilities or roots.
	 */
	if (!s->init_done && strcmp(m, "initialize") != 0 && strcmp(m, "ping") != 0) {
		char *t = NULL;

		if (asprintf(&t, "Server not initialized: send initialize before %s "
			     "(only ping is answered until then)", m) < 0)
			t = NULL;
		ws__error(s, id, -32000, t ? t : "Server not initialized");
		free(t);
		goto out;
	}
	if (strcmp(m, "initialize") == 0) {
		ws__initialize(s, id, params);
	} else if (strcmp(m, "ping") == 0) {
		ws__result_raw(s, id, "{}");
	} else if (strcmp(m, "tools/list") == 0) {
		ws__result_raw(s, id, s->tools_json);
	} else if (strcmp(m, "tools/call") == 0) {
		ws__call(s, msg, id, params, nul, len);
		return; /* the job owns msg now */
	} else {
		char *t = NULL;

		if (asprintf(&t, "Method not found: %s", m) < 0)
			t = NULL;
		ws__error(s, id, -32601, t ? t : "Method not found");
		free(t);
	}
out:
	cJSON_Delete(msg);
}

/*
 * The top-level "id" of a message too long to hold, found while its bytes
 * go by and are dropped: a scanner of JSON nesting and strings that keeps
 * only the id's text, so that the error answers the request even when
 * its id comes last (as the TypeScript SDK writes it).  Bounded memory:
 * an id longer than val is no id a client sends, and counts as none.
 */
struct ws__idscan {
	int depth;
	bool in_str, esc;
	bool key_next;	/* at depth 1, the next string is a key */
	bool is_key;	/* the string being read is such a key */
	bool key_odd;	/* it has an escape: not the plain "id" */
	size_t keyn;
	char key[2];
	bool after_key; /* a key read, its ':' to come */
	bool in_val;	/* reading the value of "id" */
	bool bad, found;
	size_t valn;
	char val[256];
};

/* The end of the id's value: kept if it was short and no object. */
static void
ws__idscan_end(struct ws__idscan *sc)
{
	sc->in_val = false;
	if (!sc->bad && sc->valn > 0 && sc->valn < sizeof(sc->val)) {
		sc->val[sc->valn] = '\0';
		sc->found = true;
	}
}

static void
ws__idscan(struct ws__idscan *sc, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = p[i];

		if (sc->in_val &&
		    (sc->in_str || (strchr(" \t\r\n", c) == NULL &&
				    !(sc->depth == 1 && (c == ',' || c == '}'))))) {
			if (sc->valn < sizeof(sc->val) - 1)
				sc->val[sc->valn++] = c;
			else
				sc->bad = true;
			if (!sc->in_str && (c == '{' || c == '['))
				sc->bad = true;
		}
		if (sc->in_str) {
			if (sc->esc) {
				sc->esc = false;
			} else if (c == '\\') {
				sc->esc = true;
				sc->key_odd = true;
			} else if (c == '"') {
				sc->in_str = false;
				if (sc->is_key) {
					sc->is_key = false;
					sc->after_key = true;
				}
			} else if (sc->is_key) {
				if (sc->keyn < sizeof(sc->key))
					sc->key[sc->keyn] = c;
				sc->keyn++;
			}
			continue;
		}
		switch (c) {
		case '"':
			sc->in_str = true;
			if (sc->depth == 1 && sc->key_next) {
				sc->key_next = false;
				sc->is_key = true;
				sc->key_odd = false;
				sc->keyn = 0;
			}
			break;
		case '{':
		case '[':
			sc->depth++;
			sc->key_next = c == '{' && sc->depth == 1;
			break;
		case '}':
		case ']':
			if (sc->in_val && sc->depth == 1)
				ws__idscan_end(sc);
			sc->depth--;
			break;
		case ',':
			if (sc->depth == 1) {
				if (sc->in_val)
					ws__idscan_end(sc);
				sc->key_next = true;
			}
			break;
		case ':':
			if (sc->depth == 1 && sc->after_key) {
				sc->after_key = false;
				if (!sc->found && !sc->key_odd && sc->keyn == 2 &&
				    memcmp(sc->key, "id", 2) == 0) {
					sc->in_val = true;
					sc->bad = false;
					sc->valn = 0;
				}
			}
			break;
		default:
			break;
		}
	}
}

/* Answer a message over the limit, with its id when one was found. */
static void
ws__too_long(struct ws_mcp *s, const struct ws__idscan *sc)
{
	cJSON *id = sc->found ? ws_json_parse(sc->val, WS_JSON_STR, NULL, false) : NULL;

	if (cJSON_IsNumber(id) && ws__json_number(sc->val, strlen(sc->val))) {
		/* As the client wrote it (ws__keep_raw_id()). */
		id->valuestring = strdup(sc->val);
	} else if (cJSON_IsNumber(id)) {
		cJSON_Delete(id);
		id = NULL;
	} else if (!cJSON_IsString(id)) {
		cJSON_Delete(id);
		id = NULL;
	}
	ws__error(s, id, -32600, "Invalid Request: message longer than the "
		  "--max-message limit");
	cJSON_Delete(id);
}

/*
 * Whether a line held behind a full queue is one the reader acts on at
 * once (ws__room_reading()): a ping, or a notifications/cancelled of a
 * call queued or running.  A cancellation of a call not read yet (held
 * too) waits its turn: acted on before that call, it would find nothing.
 */
static bool
ws__urgent(struct ws_mcp *s, const char *line, size_t len)
{
	const cJSON *m, *id;
	cJSON *msg, *rid;
	bool yes = false;

	/* Most held lines are calls: no parse for them. */
	if (memmem(line, len, "\"ping\"", 6) == NULL &&
	    memmem(line, len, "notifications/cancelled", 23) == NULL)
		return false;
	if ((msg = ws__parse(line, len)) == NULL)
		return false;
	m = cJSON_GetObjectItemCaseSensitive(msg, "method");
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	if (cJSON_IsString(m) && id != NULL && strcmp(m->valuestring, "ping") == 0) {
		yes = true;
	} else if (cJSON_IsString(m) && id == NULL &&
		   strcmp(m->valuestring, "notifications/cancelled") == 0 &&
		   (rid = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
					msg, "params"), "requestId")) != NULL) {
		ws__raw_request_id(line, len, rid);
		pthread_mutex_lock(&s->mu);
		for (const struct ws__job *j = s->running; j != NULL && !yes; j = j->next)
			yes = ws__same_id(j->id, rid);
		for (const struct ws__job *j = s->head; j != NULL && !yes; j = j->next)
			yes = ws__same_id(j->id, rid);
		pthread_mutex_unlock(&s->mu);
	}
	cJSON_Delete(msg);
	return yes;
}

/*
 * Backpressure: wait until the queue has room for one more call before
 * taking the next line (buf[0..ll), what follows it held in the read
 * loop's buffer), so that a client that sends calls without reading the
 * answers (the workers block on the full pipe) holds at most qmax calls
 * and max_message bytes of them in this process (run_commands are
 * bounded apart, and never make it wait: struct ws_mcp).  While a call waits
 * for the client (its roots, an approval), the reader must go on to
 * read that answer: the queue may then hold 8 times as much.  While the
 * queue is full, the
 * reader reads on, into that buffer, WS__READ_AHEAD bytes at most past
 * that line, and acts on a cancellation of a queued or running
 * call, and on a ping, out of turn (ws__urgent()): a client can cancel
 * the calls of a long queue without waiting for it.  The other lines
 * wait their turn, in order; nothing is dropped, and once the buffer is
 * full the reader waits for room as before.  False when the client is
 * gone.
 */
#define WS__READ_AHEAD (64u << 10)

static bool
ws__room_reading(struct ws_mcp *s, char *buf, size_t *lenp, size_t cap,
		 size_t max, size_t ll)
{
	/* What is read ahead: small, as cancellations are. */
	size_t lim = ll + 1 + WS__READ_AHEAD < cap ? ll + 1 + WS__READ_AHEAD : cap;
	bool in_eof = false;

	for (;;) {
		struct pollfd pf[2] = {{.fd = s->o->in_fd, .events = POLLIN},
				       {.fd = s->wake[0], .events = POLLIN}};
		struct timespec deadline;
		bool room, acted = false;
		size_t off = ll + 1;
		char *e;
		int pr;

		pthread_mutex_lock(&s->mu);
		room = s->eof ||
		       (s->nqueued < (s->roots_pending || s->nelicit > 0 ? 8 : 1) * s->qmax &&
			s->qbytes <= (s->roots_pending || s->nelicit > 0 ? 8 : 1) *
					     s->max_message);
		if (room) {
			room = !s->eof;
			pthread_mutex_unlock(&s->mu);
			return room;
		}
		pthread_mutex_unlock(&s->mu);
		/* The line itself may be one that needs no room. */
		if (ll <= max && ws__urgent(s, buf, ll))
			return true;
		while (off < *lenp &&
		       (e = memchr(buf + off, '\n', *lenp - off)) != NULL) {
			size_t l = (size_t)(e - (buf + off));

			if (l <= max && ws__urgent(s, buf + off, l)) {
				ws__line(s, buf + off, l);
				memmove(buf + off, e + 1, *lenp - off - l - 1);
				*lenp -= l + 1;
				acted = true;
			} else {
				off += l + 1;
			}
		}
		if (acted)
			continue; /* a cancellation may have made room */
		if (in_eof || *lenp >= lim || s->wake[0] < 0) {
			/* Holding all it may: wait for room, as before. */
			pthread_mutex_lock(&s->mu);
			if (!s->eof) {
				s->reader_waits = true;
				deadline = ws__deadline(200);
				if (pthread_cond_timedwait(&s->room, &s->mu, &deadline) ==
				    ETIMEDOUT && ws__out_closed(s))
					ws__gone(s);
				s->reader_waits = false;
			}
			pthread_mutex_unlock(&s->mu);
			continue;
		}
		pthread_mutex_lock(&s->mu);
		s->reader_polls = true;
		pthread_mutex_unlock(&s->mu);
		pr = poll(pf, 2, 200);
		pthread_mutex_lock(&s->mu);
		if (!s->reader_polls) {
			char b;

			/* Room was said: take the byte back (written under mu). */
			(void)!read(s->wake[0], &b, 1);
		}
		s->reader_polls = false;
		if (pr == 0 && ws__out_closed(s))
			ws__gone(s);
		pthread_mutex_unlock(&s->mu);
		if (pr > 0 && (pf[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t r = read(s->o->in_fd, buf + *lenp, lim - *lenp);

			if (r > 0)
				*lenp += (size_t)r;
			else if (r == 0 || (errno != EINTR && errno != EAGAIN))
				in_eof = true;
		}
	}
}

/*
 * Read lines: a line longer than max is dropped as it goes by, never held
 * whole, and answered at its end with the id it had.
 */
static void
ws__read_loop(struct ws_mcp *s)
{
	size_t max = s->o->max_message ? s->o->max_message : WS_MCP_MAX_MESSAGE;
	size_t cap = 65536, len = 0, scan = 0;
	char *buf = malloc(cap);
	bool skipping = false;
	struct ws__idscan sc;

	if (buf == NULL)
		return;
	for (;;) {
		char *nl;
		ssize_t r;

		if (len == cap) {
			size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			char *nb = ncap > cap ? realloc(buf, ncap) : NULL;

			if (nb == NULL) {
				/* No room: drop what is held, then the rest. */
				if (!skipping)
					memset(&sc, 0, sizeof(sc));
				ws__idscan(&sc, buf, len);
				skipping = true;
				len = scan = 0;
			} else {
				buf = nb;
				cap = ncap;
			}
		}
		/* Input, or the word that the client is gone (ws__gone()). */
		{
			struct pollfd pf[2] = {{.fd = s->o->in_fd, .events = POLLIN},
					       {.fd = s->wake[0], .events = POLLIN}};

			if (poll(pf, s->wake[0] >= 0 ? 2 : 1, -1) < 0 && errno != EINTR)
				break;
			if (pf[1].revents != 0) {
				len = 0;
				skipping = false;
				break;
			}
			if (pf[0].revents == 0)
				continue;
		}
		r = read(s->o->in_fd, buf + len, cap - len);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		while ((nl = memchr(buf + scan, '\n', len - scan)) != NULL) {
			size_t ll = (size_t)(nl - buf);

			if (!ws__room_reading(s, buf, &len, cap, max, ll))
				break;
			if (skipping || ll > max) {
				if (!skipping)
					memset(&sc, 0, sizeof(sc));
				ws__idscan(&sc, buf, ll);
				ws__too_long(s, &sc);
				skipping = false;
			} else {
				ws__line(s, buf, ll);
			}
			/* (ws__room_reading() may have read on: len from it.) */
			memmove(buf, buf + ll + 1, len - ll - 1);
			len -= ll + 1;
			scan = 0;
		}
		scan = len;
		if (skipping || len > max) {
			if (!skipping)
				memset(&sc, 0, sizeof(sc));
			ws__idscan(&sc, buf, len);
			skipping = true;
			len = scan = 0;
		}
		if (s->out_failed)
			break;
	}
	/* A last line without its newline still counts. */
	if (skipping && !s->out_failed) {
		ws__idscan(&sc, buf, len);
		ws__too_long(s, &sc);
	} else if (len > 0 && !s->out_failed) {
		ws__line(s, buf, len);
	}
	free(buf);
}

/*
 * At the end of input: whether the client is gone, its end of our output
 * closed too (a pipe or socket nobody reads reports POLLERR or POLLHUP),
 * or a write to it failed already.  A client that only closed our input
 * (printf ... | wstools mcp) still reads the answers.
 */
static bool
ws__out_closed(struct ws_mcp *s)
{
	struct pollfd pf = {.fd = s->o->out_fd, .events = POLLOUT};

	if (s->out_failed)
		return true;
	return poll(&pf, 1, 0) > 0 && (pf.revents & (POLLERR | POLLHUP | POLLNVAL)) != 0;
}

/* The reading thread: every line until EOF, then the worker is told. */
static void *
ws__reader(void *arg)
{
	struct ws_mcp *s = arg;

	ws__read_loop(s);
	/* What the calls it ran left in this thread's storage. */
	ws_error_clear();
	ws_glob_thread_end();
	pthread_mutex_lock(&s->mu);
	if (ws__out_closed(s)) {
		ws__gone(s);
	} else {
		/* A client that still reads gets the answers to what it sent. */
		s->eof = true;
		pthread_cond_broadcast(&s->cv);
		pthread_cond_signal(&s->room);
		while (ws__wake_one(s))
			;
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

int
ws_mcp_serve(const struct ws_mcp_opts *o)
{
	struct ws_mcp s;
	pthread_t reader, *pool = NULL;
	int rc, njobs = o->jobs > 0 ? o->jobs : WS_MCP_JOBS, npool = 0;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.next_id = 1;
	s.roots_id = -1;
	s.frontend = ws_call_current()->frontend;
	pthread_mutex_init(&s.out_mu, NULL);
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.cv, NULL);
	pthread_cond_init(&s.room, NULL);
	s.qmax = njobs < 4 ? 8 : 2 * (size_t)njobs;
	s.cmdqmax = 8 * s.qmax;
	s.cmdmax = njobs > 1 ? njobs - 1 : 1;
	s.max_message = o->max_message ? o->max_message : WS_MCP_MAX_MESSAGE;
	if (pipe2(s.wake, O_CLOEXEC | O_NONBLOCK) < 0)
		s.wake[0] = s.wake[1] = -1;
	/* A client that goes away is an error on write, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	/*
	 * The configuration, the workspace and the policy are opened once
	 * per root set and re-checked per call (lib/session.c).
	 */
	if ((s.session = ws_session_new()) == NULL) {
		rc = WS_ENOMEM;
		goto out;
	}
	if ((rc = ws__mounts_build(o, o->mounts, o->nmounts, &s.dir_mounts)) < 0)
		goto out;
	s.ndir_mounts = o->nmounts;
	if ((rc = ws__build_list(&s)) < 0)
		goto out;
	if (o->compat != NULL && o->compat->start != NULL &&
	    (s.compat_state = o->compat->start()) == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	/* Without them, every call goes to a worker (WS_MCP_INLINE=0 too). */
	if (getenv("WS_MCP_INLINE") == NULL || strcmp(getenv("WS_MCP_INLINE"), "0") != 0)
		s.rbufs = calloc(1, sizeof(*s.rbufs));
	/*
	 * The calls run on this thread and njobs - 1 more, the reading on
	 * another.  A command's parent-death signal follows the thread that
	 * started it: every worker lives until input ends and waits for its
	 * command within the call, so none ends first.
	 */
	/* Before any thread: a small copy of this process, forked once. */
	(void)ws_run_guardian_start();
	ws_error_clear();
	s.run_ahead = ws_run_ahead_start();
	if (pthread_create(&reader, NULL, ws__reader, &s) != 0) {
		rc = ws_error_set(WS_EIO_ERROR, NULL, "cannot start the reading thread");
		goto out;
	}
	if (njobs > 1 && (pool = calloc((size_t)njobs - 1, sizeof(*pool))) != NULL)
		for (int i = 0; i < njobs - 1; i++) {
			/* Fewer workers do the same work. */
			if (pthread_create(&pool[npool], NULL, ws__worker_thread, &s) != 0)
				break;
			npool++;
		}
	ws__worker(&s);
	for (int i = 0; i < npool; i++)
		pthread_join(pool[i], NULL);
	free(pool);
	pthread_join(reader, NULL);
	rc = s.out_failed ? ws_error_set(WS_EIO_ERROR, NULL,
					 "cannot write to standard output") : 0;
out:
	if (s.compat_state != NULL && o->compat->stop != NULL)
		o->compat->stop(s.compat_state);
	ws_run_ahead_stop(s.run_ahead);
	ws_run_guardian_stop();
	ws_session_free(s.session);
	if (s.rbufs != NULL)
		ws__bufs_free(s.rbufs);
	free(s.rbufs);
	free(s.tools_json);
	ws__decl_free(&s);
	free(s.iso_default);
	free(s.root_ws);
	free(s.roots_error);
	ws__mounts_free(s.root_mounts, s.nroot_mounts);
	ws__mounts_free(s.dir_mounts, s.ndir_mounts);
	if (s.wake[0] >= 0) {
		close(s.wake[0]);
		close(s.wake[1]);
	}
	pthread_mutex_destroy(&s.out_mu);
	pthread_mutex_destroy(&s.mu);
	pthread_cond_destroy(&s.cv);
	pthread_cond_destroy(&s.room);
	return rc;
}
