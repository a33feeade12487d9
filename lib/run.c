/*
 * run.c - running a command confined to the workspace, with a timeout and
 * nothing left running afterwards.  See ws/run.h.
 *
 * Process shape.  Where the kernel allows (root), the child is cloned
 * into new PID, mount and network namespaces and acts as the
 * namespace's init: it builds the minimal root, forks the command, reaps
 * everything and reports the command's status on a pipe.  When init
 * exits -- because the command ended, because wsrun killed it, or because
 * wsrun died (PR_SET_PDEATHSIG) -- the kernel kills every process left in
 * the namespace, however it detached.  Elsewhere the command's parent is
 * a reaper, wsrun's direct child (ws__reaper_main()): a subreaper that
 * kills every process below it when the command ends or wsrun dies, in
 * a cgroup v2 child (killed with cgroup.kill) when one can be made; wsrun
 * is a subreaper too, that walks and kills the tree.
 *
 * Output: two pipes, read in one poll loop with the timeout; each stream
 * is either copied live to a descriptor (plain mode) or kept as a
 * bounded head and a ring-buffer tail, so memory stays bounded whatever
 * the command prints.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ws/audit.h"
#include "ws/call.h"
#include "ws/cancel.h"
#include "ws/detect.h"
#include "ws/error.h"
#include "ws/grant.h"
#include "ws/guard.h"
#include "ws/netproxy.h"
#include "ws/pending.h"
#include "ws/persist.h"
#include "ws/path.h"
#include "ws/policy.h"
#include "ws/resolve.h"
#include "ws/run.h"
#include "ws/vcs.h"
#include "ws/walk.h"
#include "ws/workspace.h"

extern char **environ;

/* HOME and TMPDIR in the minimal root: in its private /tmp. */
#define WS__PRIV_IN_ROOT "/tmp/wsrun"

char *ws__sandbox_cgroup_dir(void);

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* ---- Blocked commands -------------------------------------------- */

/*
 * The built-in list, used when no policy has command_rules.  It is a
 * courtesy that catches the obvious (the kernel layers are the
 * boundary): each pattern matches at the start of the line or after a
 * shell separator.
 */
#define WS__CMD_START "(?:^|[;&|(`\\\\n]|\\\\$\\\\()\\\\s*(?:\\\\S*/)?"
static const char ws__builtin_rules[] =
	"{\"version\": 1, \"name\": \"wsrun-builtin\", \"command_rules\": ["
	"{\"name\": \"no-privilege\", \"decision\": \"deny\", \"patterns\": "
	"[\"" WS__CMD_START "(?:sudo|su|doas|pkexec|run0)(?:\\\\s|$)\"]},"
	"{\"name\": \"no-rm-root\", \"decision\": \"deny\", \"patterns\": "
	"[\"" WS__CMD_START "rm\\\\s+(?:-\\\\S+\\\\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\\\\s+"
	"(?:-\\\\S+\\\\s+)*(?:/|/\\\\*|~|~/|\\\\$HOME/?)(?:\\\\s|$)\"]},"
	"{\"name\": \"no-mkfs\", \"decision\": \"deny\", \"patterns\": "
	"[\"" WS__CMD_START "(?:mkfs(?:\\\\.\\\\w+)?|mke2fs|mkswap|wipefs|fdisk|"
	"sfdisk|parted)(?:\\\\s|$)\"]},"
	"{\"name\": \"no-dd-device\", \"decision\": \"deny\", \"patterns\": "
	"[\"" WS__CMD_START "dd\\\\s.*\\\\bof=/dev/\"]},"
	"{\"name\": \"no-power\", \"decision\": \"deny\", \"patterns\": "
	"[\"" WS__CMD_START "(?:shutdown|reboot|halt|poweroff)(?:\\\\s|$)\"]},"
	"{\"name\": \"no-network-tools\", \"decision\": \"deny\", \"patterns\": "
	"[\"" WS__CMD_START "(?:curl|wget|nc|ncat|netcat|socat|telnet)(?:\\\\s|$)\"]},"
	"{\"name\": \"no-chmod-777-root\", \"decision\": \"deny\", \"patterns\": "
	"[\"" WS__CMD_START "chmod\\\\s+(?:-\\\\S+\\\\s+)*777\\\\s+/(?:\\\\s|$)\"]}"
	"]}";

/*
 * The built-in list, parsed on first use.  Its patterns compile lazily
 * and share one match data, so calls that run side by side (wstools mcp)
 * check against it one at a time, under ws__builtin_mu.
 */
static struct ws_policy *ws__builtin;
static pthread_mutex_t ws__builtin_mu = PTHREAD_MUTEX_INITIALIZER;

/*
 * The words the built-in rules start with.  A command line holding none
 * of them (as a word) cannot match, and skips compiling the patterns:
 * PCRE2 JIT compilation would cost more than the rest of a run.
 */
static bool
ws__builtin_may_match(const char *cmdline)
{
	static const char *const words[] = {
		"sudo", "su", "doas", "pkexec", "run0", "rm", "mkfs", "mke2fs",
		"mkswap", "wipefs", "fdisk", "sfdisk", "parted", "dd", "shutdown",
		"reboot", "halt", "poweroff", "curl", "wget", "nc", "ncat",
		"netcat", "socat", "telnet", "chmod",
	};
	const char *p = cmdline;

	while (*p) {
		const char *w;
		size_t n;

		while (*p && !(isalnum((unsigned char)*p) || *p == '_'))
			p++;
		w = p;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		n = (size_t)(p - w);
		/* mkfs.ext4: the word before the dot decides. */
		for (size_t i = 0; n > 0 && i < sizeof(words) / sizeof(words[0]); i++)
			if (strlen(words[i]) == n && memcmp(words[i], w, n) == 0)
				return true;
	}
	return false;
}

int
ws_run_check_command(struct ws_ctx *ws, const char *cmdline)
{
	struct ws_policy *p = ws->policy;
	struct ws_policy_match m = {0};
	int d;

	if (p == NULL || ws_policy_ncommand_rules(p) == 0) {
		if (!ws__builtin_may_match(cmdline))
			return 0;
		pthread_mutex_lock(&ws__builtin_mu);
		if (ws__builtin == NULL) {
			int rc = ws_policy_parse(ws__builtin_rules, "wsrun built-in list",
						 NULL, &ws__builtin);

			if (rc < 0) {
				pthread_mutex_unlock(&ws__builtin_mu);
				return rc;
			}
		}
		p = ws__builtin;
		d = ws_policy_check_command(p, cmdline, &m);
		pthread_mutex_unlock(&ws__builtin_mu);
	} else {
		d = ws_policy_check_command(p, cmdline, &m);
	}
	if (d < 0)
		return d;
	if (d == WS_DECISION_DENY) {
		char *msg = p != ws__builtin && m.message != NULL ?
				    ws_policy_render(m.message, cmdline, "exec", m.rule) :
				    NULL;
		int rc;

		/*
		 * A policy's refusal as a file rule's (ftu18 10): its policy
		 * and rule named, the rule's message shown, the decision in
		 * fields, and a hint.  The built-in list's words stay.
		 */
		if (p == ws__builtin)
			rc = ws_error_set(WS_EBLOCKED_COMMAND, NULL,
					  "command blocked by rule \"%s\" of %s",
					  m.rule ? m.rule : "?", ws_policy_name(p));
		else
			rc = ws_error_set(WS_EBLOCKED_COMMAND, NULL,
					  "command blocked by rule \"%s\" of policy "
					  "\"%s\"%s%s", m.rule ? m.rule : "?",
					  ws_policy_name(p), msg ? ": " : "", msg ? msg : "");
		free(msg);

		/*
		 * No path: the command line is the line's "command", and a
		 * "path" holding it (ftu13 10) read as a file's name.
		 */
		ws_audit_decision(ws->audit, "exec", NULL, NULL, ws_policy_name(p),
				  m.rule, "deny", WS_AUDIT_NOT_ASKED, rc);
		/*
		 * The built-in list holds also where the network is allowed
		 * (--net-allow, then curl is what one runs): say what
		 * replaces it, and that retrying will not help.
		 */
		if (p == ws__builtin)
			return ws_error_set_hint("wsrun's built-in list of "
				"blocked commands refuses this command line, "
				"also with --net or --net-allow: retrying will "
				"not help; a policy with command_rules replaces "
				"the list (ws-policy(5))");
		ws_error_set_policy(ws_policy_name(p), m.rule, "exec");
		return ws_error_set_hint("the policy refuses this command line; "
					 "retrying will not help: do without it, "
					 "or ask the user");
	}
	if (d == WS_DECISION_APPROVE && ws->approve)
		ws_audit_decision(ws->audit, "exec", NULL, NULL, ws_policy_name(p),
				  m.rule, "approve", WS_AUDIT_BY_FLAG, 0);
	else if (d == WS_DECISION_ALLOW)
		ws_audit_decision(ws->audit, "exec", NULL, NULL, ws_policy_name(p),
				  m.rule, "allow", WS_AUDIT_NOT_ASKED, 0);
	if (d == WS_DECISION_APPROVE && !ws->approve) {
		char *msg = m.message ? ws_policy_render(m.message, cmdline, "exec",
							  m.rule) : NULL;
		struct ws_ask ask = {"exec", cmdline, ws_policy_name(p), m.rule, msg};
		int rc = 0;

		/*
		 * Ask as a file rule's approval is asked (the terminal, or the
		 * MCP client's elicitation): the hooks are the session's
		 * policy's, also when the built-in list decided.
		 */
		/*
		 * Refused as a file rule's approval is (ftu18 10): the
		 * policy and rule named, "--approve" in the words the MCP
		 * server takes out (it asks the person instead), the
		 * decision in fields, and a hint.
		 */
		if (!ws_policy_ask(ws->policy, ws, &ask)) {
			rc = ws_error_set(WS_EAPPROVAL_REQUIRED, NULL,
					  "%s (policy \"%s\", rule \"%s\"; pass "
					  "--approve to allow it)",
					  msg ? msg : "command needs approval",
					  ws_policy_name(p), m.rule ? m.rule : "?");
			ws_error_set_policy(ws_policy_name(p), m.rule, "exec");
			ws_error_set_hint("a person must approve this command; ask "
					  "the user, who can rerun it with --approve");
		}
		ws_audit_decision(ws->audit, "exec", NULL, NULL, ws_policy_name(p),
				  m.rule, "approve", rc < 0 ? WS_AUDIT_REFUSED
							    : WS_AUDIT_BY_PROMPT, rc);
		free(msg);
		return rc;
	}
	return 0;
}

char *
ws_run_cmdline(const struct ws_run_opts *o)
{
	size_t n = 1;
	char *s, *q;

	if (o->shell)
		return strdup(o->shell);
	for (size_t i = 0; i < o->argc; i++)
		n += strlen(o->argv[i]) + 1;
	s = malloc(n);
	if (s == NULL)
		return NULL;
	q = s;
	*q = '\0';
	for (size_t i = 0; i < o->argc; i++) {
		size_t l = strlen(o->argv[i]);

		if (i > 0)
			*q++ = ' ';
		memcpy(q, o->argv[i], l);
		q += l;
	}
	*q = '\0';
	return s;
}

long long
ws_run_tmp_size_default(void)
{
	struct sysinfo si;
	long long quarter;

	if (sysinfo(&si) != 0)
		return WS_RUN_TMP_SIZE_DEFAULT;
	quarter = (long long)si.totalram * si.mem_unit / 4;
	return quarter >= WS_RUN_TMP_SIZE_MIN && quarter < WS_RUN_TMP_SIZE_DEFAULT
		       ? quarter : WS_RUN_TMP_SIZE_DEFAULT;
}

int
ws_run_check_opts(const struct ws_run_opts *o)
{
	if (o->shell == NULL && o->argc == 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL, "no command given");
	if (o->timeout_ms < 0 || o->grace_ms < 0 || o->max_output < 0 ||
	    o->memory < 0 || o->max_procs < 0 || o->max_file_size < 0 ||
	    o->cpu_time < 0 || o->tmp_size < 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "timeouts and limits cannot be negative");
	if (o->tmp_size > 0 && o->tmp_size < WS_RUN_TMP_SIZE_MIN)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "tmp size %lld is less than 1M, the least "
				    "the private /tmp and HOME can work in",
				    o->tmp_size);
	for (size_t i = 0; i < o->nenv; i++)
		if (strchr(o->env[i], '=') == NULL || o->env[i][0] == '=')
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "env \"%s\": expected NAME=VALUE", o->env[i]);
	if (o->net && (o->nnet_allow > 0 || o->nnet_deny > 0))
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--net (every host) and --net-allow or "
				    "--net-deny (hosts by name) exclude each other");
	for (size_t i = 0; i < o->nnet_allow; i++) {
		int rc = ws_net_pattern_check(o->net_allow[i]);

		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; i < o->nnet_deny; i++) {
		int rc = ws_net_pattern_check(o->net_deny[i]);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- Output capture ----------------------------------------------- */

struct ws__cap {
	int fd;		/* read end, -1 when closed */
	int stream;	/* copy here live, or -1 to keep */
	char *head;
	size_t hcap, hlen;
	char *ring;
	size_t rcap, rlen, rpos; /* rlen bytes held, next write at rpos */
	long long total;
};

static int
ws__cap_init(struct ws__cap *c, int fd, int stream, long long max)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->stream = stream;
	if (stream >= 0)
		return 0;
	c->hcap = (size_t)(max / 2);
	c->rcap = (size_t)max - c->hcap;
	c->head = malloc(c->hcap + 1);
	c->ring = malloc(c->rcap + 1);
	if (c->head == NULL || c->ring == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

static void
ws__cap_put(struct ws__cap *c, const char *b, size_t n)
{
	c->total += (long long)n;
	if (c->stream >= 0) {
		while (n > 0) {
			ssize_t w = write(c->stream, b, n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				/* A reader that went away gets nothing more. */
				c->stream = -2;
				return;
			}
			b += w;
			n -= (size_t)w;
		}
		return;
	}
	if (c->stream == -2)
		return;
	if (c->hlen < c->hcap) {
		size_t k = c->hcap - c->hlen < n ? c->hcap - c->hlen : n;

		memcpy(c->head + c->hlen, b, k);
		c->hlen += k;
		b += k;
		n -= k;
	}
	if (c->rcap == 0)
		return;
	if (n > c->rcap) {
		b += n - c->rcap;
		n = c->rcap;
	}
	while (n > 0) {
		size_t k = c->rcap - c->rpos < n ? c->rcap - c->rpos : n;

		memcpy(c->ring + c->rpos, b, k);
		c->rpos = (c->rpos + k) % c->rcap;
		c->rlen = c->rlen + k > c->rcap ? c->rcap : c->rlen + k;
		b += k;
		n -= k;
	}
}

/* Read what is there; returns false at end of file. */
static bool
ws__cap_read(struct ws__cap *c)
{
	char buf[65536];
	ssize_t n = read(c->fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	ws__cap_put(c, buf, (size_t)n);
	return true;
}

/* The kept bytes: head, a marker if bytes were left out, tail. */
static int
ws__cap_finish(struct ws__cap *c, struct ws_run_out *o)
{
	long long kept = (long long)(c->hlen + c->rlen);
	char marker[96];
	size_t mlen = 0, start;

	o->bytes = c->total;
	o->truncated = c->total > kept && c->stream == -1;
	if (c->stream != -1 && c->head == NULL)
		return 0;
	if (o->truncated)
		mlen = (size_t)snprintf(marker, sizeof(marker),
					"\n[... %lld bytes omitted by wsrun ...]\n",
					c->total - kept);
	o->data = malloc(c->hlen + mlen + c->rlen + 1);
	if (o->data == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	memcpy(o->data, c->head, c->hlen);
	memcpy(o->data + c->hlen, marker, mlen);
	start = c->rlen < c->rcap ? 0 : c->rpos;
	if (c->rlen < c->rcap)
		start = (c->rpos + c->rcap - c->rlen) % c->rcap;
	for (size_t i = 0; i < c->rlen; i++)
		o->data[c->hlen + mlen + i] = c->ring[(start + i) % c->rcap];
	o->len = c->hlen + mlen + c->rlen;
	o->data[o->len] = '\0';
	return 0;
}

static void
ws__cap_free(struct ws__cap *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->head);
	free(c->ring);
	c->fd = -1;
	c->head = c->ring = NULL;
}

/* ---- Environment -------------------------------------------------- */

static bool
ws__env_allowed(const char *name, size_t n, const struct ws_run_opts *o)
{
	static const char *const allow[] = {"PATH", "LANG", "TERM", "TZ", "USER",
					    "LOGNAME", "COLORTERM", "NO_COLOR"};

	for (size_t i = 0; i < sizeof(allow) / sizeof(allow[0]); i++)
		if (strlen(allow[i]) == n && strncmp(allow[i], name, n) == 0)
			return true;
	if (n > 3 && strncmp(name, "LC_", 3) == 0)
		return true;
	for (size_t i = 0; i < o->nkeep_env; i++)
		if (strlen(o->keep_env[i]) == n && strncmp(o->keep_env[i], name, n) == 0)
			return true;
	return false;
}

struct ws__env {
	char **v;
	size_t n, cap;
};

static int
ws__env_set(struct ws__env *e, const char *kv)
{
	size_t kl = (size_t)(strchr(kv, '=') - kv);
	char *d = strdup(kv);

	if (d == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; i < e->n; i++)
		if (strncmp(e->v[i], kv, kl + 1) == 0) {
			free(e->v[i]);
			e->v[i] = d;
			return 0;
		}
	if (e->n + 2 > e->cap) {
		size_t nc = e->cap ? e->cap * 2 : 32;
		char **nv = realloc(e->v, nc * sizeof(*nv));

		if (nv == NULL) {
			free(d);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		e->v = nv;
		e->cap = nc;
	}
	e->v[e->n++] = d;
	e->v[e->n] = NULL;
	return 0;
}

static void
ws__env_free(struct ws__env *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
}

static int
ws__env_build(const struct ws_run_opts *o, const char *priv, struct ws__env *e,
	      struct ws_run_result *r, bool net_proxy)
{
	char kv[4352];
	int rc = 0;

	for (char **p = environ; rc == 0 && p && *p; p++) {
		const char *eq = strchr(*p, '=');
		size_t n = eq ? (size_t)(eq - *p) : strlen(*p);

		if (eq && ws__env_allowed(*p, n, o)) {
			rc = ws__env_set(e, *p);
		} else {
			char **nd = realloc(r->env_dropped,
					    (r->nenv_dropped + 1) * sizeof(char *));

			if (nd == NULL)
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			r->env_dropped = nd;
			if ((nd[r->nenv_dropped] = strndup(*p, n)) == NULL)
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			r->nenv_dropped++;
		}
	}
	if (rc == 0 && getenv("PATH") == NULL)
		rc = ws__env_set(e, "PATH=/usr/local/bin:/usr/bin:/bin");
	snprintf(kv, sizeof(kv), "HOME=%s/home", priv);
	if (rc == 0)
		rc = ws__env_set(e, kv);
	snprintf(kv, sizeof(kv), "TMPDIR=%s/tmp", priv);
	if (rc == 0)
		rc = ws__env_set(e, kv);
	if (rc == 0)
		rc = ws__env_set(e, "WS_SANDBOX=1");
	for (size_t i = 0; rc == 0 && i < o->nenv; i++)
		rc = ws__env_set(e, o->env[i]);
	/*
	 * Network by name: the proxy, last so that it wins.  A command that
	 * unsets them reaches nothing: the namespace has only loopback.
	 */
	if (net_proxy) {
		static const char *const names[] = {
			"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
			"http_proxy", "https_proxy", "all_proxy",
		};

		for (size_t i = 0; rc == 0 && i < sizeof(names) / sizeof(names[0]); i++) {
			snprintf(kv, sizeof(kv), "%s=http://127.0.0.1:%d", names[i],
				 WS_NETPROXY_PORT);
			rc = ws__env_set(e, kv);
		}
		if (rc == 0)
			rc = ws__env_set(e, "NO_PROXY=localhost,127.0.0.1,::1");
		if (rc == 0)
			rc = ws__env_set(e, "no_proxy=localhost,127.0.0.1,::1");
		/* Node 22.21 and 24 read them for fetch() when asked to. */
		if (rc == 0)
			rc = ws__env_set(e, "NODE_USE_ENV_PROXY=1");
	}
	return rc;
}

/* ---- The private directory ------------------------------------------ */

/* Remove name in dirfd and everything below it, through descriptors. */
static void
ws__rm_at(int pfd, const char *name, int depth)
{
	int fd;
	DIR *d;
	struct dirent *de;

	/* A command may have made the directory read-only (review25 12). */
	ws__dir_own_rwx(pfd, NULL);
	if (unlinkat(pfd, name, 0) == 0 || errno == ENOENT)
		return;
	if (depth > 256)
		return;
	ws__dir_own_rwx(pfd, name);
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, ".."))
			ws__rm_at(dirfd(d), de->d_name, depth + 1);
	closedir(d);
	unlinkat(pfd, name, AT_REMOVEDIR);
}

/*
 * Where the private HOME and TMPDIR go without a mount namespace: a
 * memory file system when the system has one at /dev/shm (sticky and
 * world-writable like /tmp), else /tmp.  On a disk file system the
 * mkdir and rmdir wait for its journal: measured 3 to 10 ms a call on
 * ext4 under load, more than the whole rest of wsrun's own work.
 */
static const char *
ws__priv_base(void)
{
	struct statfs sf;
	struct stat st;

	if (statfs("/dev/shm", &sf) == 0 && sf.f_type == TMPFS_MAGIC &&
	    stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_mode & S_ISVTX) && st.st_uid == 0)
		return "/dev/shm";
	return "/tmp";
}

static int
ws__priv_make(char **path, int *fd)
{
	const char *base = ws__priv_base();
	char *p = malloc(strlen(base) + sizeof("/wsrun-XXXXXX"));

	*fd = -1;
	if (p == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	sprintf(p, "%s/wsrun-XXXXXX", base);
	if (mkdtemp(p) == NULL) {
		int rc = ws_error_errno(errno, base, "mkdtemp");

		free(p);
		return rc;
	}
	*fd = open(p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0 || mkdirat(*fd, "home", 0700) < 0 || mkdirat(*fd, "tmp", 0700) < 0) {
		int rc = ws_error_errno(errno, p, "private directory");

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		rmdir(p);
		free(p);
		return rc;
	}
	*path = p;
	return 0;
}

static void
ws__priv_remove(const char *path, int fd)
{
	int dfd;

	if (path == NULL)
		return;
	/* The contents through the held descriptor, then the directory. */
	dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		ws__rm_at(dfd, "home", 0);
		ws__rm_at(dfd, "tmp", 0);
		close(dfd);
	}
	rmdir(path);
}


/*
 * Guarded places that lie in a writable anchor and do not exist yet:
 * wstools' own configuration places (the config file's locations, the
 * policy directories), where a command could create a config that
 * redefines the next call's boundary (a mount of /), and the literal
 * persistence guards (.envrc, .vscode/, rc files), which act later
 * outside any sandbox.  Only existing entries can be bound read-only, so
 * what the command created there is removed after it ends, through
 * descriptors, and reported.
 */
struct ws__place {
	int anchor;
	char *parent; /* "" or "a/b": the deepest existing directory */
	char *name;   /* the first missing component below it */
	bool own;     /* wstools' own configuration or policy place */
	/* A project marker: other calls' detection takes it as absent
	 * while the command runs (review31 02), this process's and, where
	 * the record can be written, others'. */
	bool marker;
};

static void
ws__places_free(struct ws__place *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].parent);
		free(v[i].name);
	}
	free(v);
}

/* An O_PATH descriptor of rel below the anchor (a directory, with dir),
 * following no link. */
static int
ws__open_beneath(struct ws_ctx *ws, int anchor, const char *rel, bool dir)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | O_NOFOLLOW | (dir ? O_DIRECTORY : 0),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, ws->anchors[anchor].fd,
			    rel[0] ? rel : ".", &how, sizeof(how));
}

/* Record rel below anchor a if it does not exist (see struct ws__place). */
/*
 * With last_only, only when rel's parent exists: a persistence guard such
 * as .git/config is not a reason to remove a whole .git a command made
 * (git init).
 */
static int
ws__place_add(struct ws_ctx *ws, int a, const char *relin, bool last_only,
	      struct ws__place **out, size_t *n)
{
	char *rel, *sl, *name, *end;
	struct ws__place *nv;
	int fd;

	if (strchr(relin, '/') == NULL && relin[0] != '\0' &&
	    strcmp(relin, ".") != 0 && strcmp(relin, "..") != 0) {
		struct stat st;

		/*
		 * One name at the anchor's top (the literal guards): one
		 * fstatat() on the anchor says what the walk below would
		 * (its parent is the anchor itself), three calls fewer.
		 */
		if (fstatat(ws->anchors[a].fd, relin, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return 0;
		nv = realloc(*out, (*n + 1) * sizeof(*nv));
		if (nv == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		*out = nv;
		nv[*n].name = strdup(relin);
		nv[*n].parent = strdup("");
		nv[*n].anchor = a;
		(*n)++;
		if (nv[*n - 1].name == NULL || nv[*n - 1].parent == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		return 0;
	}
	if ((rel = strdup(relin)) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	/* Existing (a file, a directory, a link): bound already. */
	if ((fd = ws__open_beneath(ws, a, rel, false)) >= 0) {
		close(fd);
		free(rel);
		return 0;
	}
	/* Find the deepest existing directory on the way. */
	for (sl = rel + strlen(rel); ; ) {
		char save = *sl;

		*sl = '\0';
		fd = ws__open_beneath(ws, a, rel, true);
		*sl = save;
		if (fd >= 0 || sl == rel)
			break;
		while (sl > rel && *--sl != '/')
			;
	}
	if (fd < 0 || *sl == '\0' ||
	    (last_only && strchr(sl + (*sl == '/'), '/') != NULL)) {
		if (fd >= 0)
			close(fd);
		free(rel);
		return 0;
	}
	name = sl + (*sl == '/');
	if ((end = strchr(name, '/')) != NULL)
		*end = '\0';
	/*
	 * The first missing component, or nothing: one that exists but
	 * could not be opened without following a link (the user's own
	 * ~/.config -> dotfiles/config) is not the command's to be removed.
	 */
	{
		struct stat st;
		bool there = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
			     errno != ENOENT;

		close(fd);
		if (there) {
			free(rel);
			return 0;
		}
	}
	nv = realloc(*out, (*n + 1) * sizeof(*nv));
	if (nv == NULL) {
		free(rel);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	*out = nv;
	nv[*n].name = strdup(name);
	*sl = '\0';
	nv[*n].parent = strdup(rel);
	nv[*n].anchor = a;
	(*n)++;
	free(rel);
	if (nv[*n - 1].name == NULL || nv[*n - 1].parent == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

/*
 * Project markers (go.mod, package.json, ..., and .git) missing from a
 * directory where creating one would give the next call another
 * PROJECT_ROOT (or GIT_ROOT), and with it every policy rule spelled
 * through it: the workspace's top directory
 * and its ancestors below the project root detection finds now (one
 * detection, as the session's: the first directory holding a marker
 * wins), inside a writable anchor.  The same outcome as asking
 * ws_ctx_marker_guarded() (the test wswrite refuses such a create by)
 * for each, at the cost of one detection instead of two per marker.
 * Nothing when the roots are pinned.  *proot_marker: the language marker
 * that makes the project root now, where it lies in a writable anchor
 * (its real path, malloc'd), or NULL.
 */
static int
ws__markers_snapshot(struct ws_ctx *ws, struct ws__place **out, size_t *n,
		     char **proot_marker)
{
	const char *const *mk = ws->markers ? (const char *const *)ws->markers
					    : ws_detect_default_markers;
	size_t nmk = ws->markers ? ws->nmarkers : ws_detect_ndefault_markers;
	struct ws_detect_opts o = {.markers = mk, .nmarkers = nmk};
	struct ws_roots now;
	char dir[4096], path[4352];
	int rc = 0;

	if (ws->roots_pinned || ws->nanchors == 0 ||
	    strlen(ws->anchors[0].real) >= sizeof(dir))
		return 0;
	if (ws_detect(ws->anchors[0].real, &o, &now) < 0)
		return 0; /* the session's own detection would fail as well */
	if (now.marker != NULL && now.project_root != NULL &&
	    snprintf(path, sizeof(path), "%s%s%s", now.project_root,
		     strcmp(now.project_root, "/") == 0 ? "" : "/", now.marker) <
	    (int)sizeof(path)) {
		const char *rest = NULL;
		int a = ws_ctx_anchor_of_real(ws, path, &rest);

		if (a >= 0 && !ws->anchors[a].ro && rest != NULL && *rest != '\0' &&
		    (*proot_marker = strdup(path)) == NULL) {
			ws_roots_free(&now);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
	}
	snprintf(dir, sizeof(dir), "%s", ws->anchors[0].real);
	while (rc == 0 && now.project_root != NULL &&
	       strcmp(dir, now.project_root) != 0 &&
	       (now.stopped_at == NULL || strcmp(dir, now.stopped_at) != 0)) {
		char *sl;

		for (size_t i = 0; rc == 0 && i < nmk; i++) {
			const char *rest = NULL;
			struct stat st;
			int a;

			if (strcmp(mk[i], ".git") == 0 || strlen(mk[i]) > 200)
				continue;
			snprintf(path, sizeof(path), "%s%s%.200s", dir,
				 strcmp(dir, "/") == 0 ? "" : "/", mk[i]);
			a = ws_ctx_anchor_of_real(ws, path, &rest);
			while (rest != NULL && *rest == '/')
				rest++;
			if (a < 0 || ws->anchors[a].ro || rest == NULL ||
			    *rest == '\0' || lstat(path, &st) == 0)
				continue;
			rc = ws__place_add(ws, a, rest, true, out, n);
		}
		if (strcmp(dir, "/") == 0)
			break;
		sl = strrchr(dir, '/');
		if (sl == NULL)
			break;
		if (sl == dir)
			sl[1] = '\0';
		else
			*sl = '\0';
	}
	/*
	 * .git (git init, git clone .) in the top directory or an ancestor
	 * below the git root detection finds now (or below the top of the
	 * file system when there is none) would give the next call another
	 * GIT_ROOT, and PROJECT_ROOT with it (issue 18, 4): the same rule as
	 * wswrite --mkdir .git.  In subdirectories git init stays.
	 */
	for (size_t i = 0; rc == 0 && i < nmk; i++) {
		if (strcmp(mk[i], ".git") != 0)
			continue;
		snprintf(dir, sizeof(dir), "%s", ws->anchors[0].real);
		while (rc == 0 && (now.git_root == NULL || strcmp(dir, now.git_root) != 0) &&
		       (now.stopped_at == NULL || strcmp(dir, now.stopped_at) != 0)) {
			const char *rest = NULL;
			struct stat st;
			char *sl;
			int a;

			snprintf(path, sizeof(path), "%s%s.git", dir,
				 strcmp(dir, "/") == 0 ? "" : "/");
			a = ws_ctx_anchor_of_real(ws, path, &rest);
			while (rest != NULL && *rest == '/')
				rest++;
			if (a >= 0 && !ws->anchors[a].ro && rest != NULL &&
			    *rest != '\0' && lstat(path, &st) < 0)
				rc = ws__place_add(ws, a, rest, true, out, n);
			if (strcmp(dir, "/") == 0 || (sl = strrchr(dir, '/')) == NULL)
				break;
			if (sl == dir)
				sl[1] = '\0';
			else
				*sl = '\0';
		}
		break;
	}
	ws_roots_free(&now);
	return rc;
}

/*
 * HOME's persistence places (ws/persist.h) missing from a writable
 * anchor (the existing ones are bound read-only, lib/sandbox.c): the
 * place itself is removed after the command if it made it, not the first
 * missing directory on the way (a command's ~/.local/lib stays when
 * ~/.local/bin goes).  Its parent is opened then without following a
 * link.  hp (nhp) is the call's resolution of the places
 * (ws_ctx_home_places(), the sandbox plan's); whether each exists is
 * asked here, now.
 */
static int
ws__home_places(struct ws_ctx *ws, const struct ws_home_place *hp, size_t nhp,
		struct ws__place **out, size_t *n)
{
	int rc = 0;

	for (size_t j = 0; rc == 0 && j < nhp; j++) {
		const char *rest = hp[j].rest, *sl;
		struct ws__place *nv;
		struct stat st;
		int a = hp[j].anchor;

		if (fstatat(ws->anchors[a].fd, rest, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
		    errno != ENOENT)
			continue;
		/*
		 * The place's parent missing too: its first missing component
		 * is the place (review11: a command made ~/go a link to its
		 * own tree, and ~/go/bin/git was then found nowhere to revert,
		 * its parent not openable without following that link).
		 */
		if ((sl = strrchr(rest, '/')) != NULL) {
			char parent[4352];

			snprintf(parent, sizeof(parent), "%.*s", (int)(sl - rest), rest);
			if (fstatat(ws->anchors[a].fd, parent, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
			    errno == ENOENT) {
				if ((rc = ws__place_add(ws, a, rest, false, out, n)) < 0)
					break;
				continue;
			}
		}
		if ((nv = realloc(*out, (*n + 1) * sizeof(*nv))) == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			break;
		}
		*out = nv;
		nv[*n].anchor = a;
		nv[*n].parent = sl ? strndup(rest, (size_t)(sl - rest)) : strdup("");
		nv[*n].name = strdup(sl ? sl + 1 : rest);
		(*n)++;
		if (nv[*n - 1].name == NULL || nv[*n - 1].parent == NULL)
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	return rc;
}

/*
 * Whether the literal guard lit lies in a repository's own directory
 * (.git, .hg, .jj, .sl: the repositories' walk, lib/vcs.c, cleans them).
 */
static bool
ws__vcs_dir_guard(const char *lit)
{
	static const char *const dirs[] = {".git", ".hg", ".jj", ".sl"};
	size_t n = strcspn(lit, "/");

	if (lit[n] != '/')
		return false;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (strlen(dirs[i]) == n && strncmp(lit, dirs[i], n) == 0)
			return true;
	return false;
}

/*
 * Whether the program the command could not execute (prog, as it was
 * named: with a "/", from the command's working directory; a name looked
 * up on PATH is not asked about) lies where
 * the policy's exec rules bound it without execute (vi->no_exec, virtual
 * paths): then the refusal is the policy's, and said so, with its rule
 * and a hint (ftu18 02: a bare "Permission denied" led a model to chmod
 * it, or to believe the sandbox broken).  The error is set here.
 */
static bool
ws__exec_refused(struct ws_ctx *ws, const struct ws_sandbox_plan *p, bool virt,
		 const char *prog, const struct ws_view_info *vi)
{
	struct ws_policy_match m = {0};
	char *abs = NULL, *v = NULL, real[4352];
	const char *cwd, *rest = NULL, *in = NULL;
	bool hit = false;
	int a;

	if (ws->policy == NULL || vi->no_exec.n == 0 || strchr(prog, '/') == NULL)
		return false;
	cwd = virt ? (p->cwd_in != NULL ? p->cwd_in : "/") : p->cwd_real;
	if (cwd == NULL ||
	    (abs = prog[0] == '/' ? strdup(prog) : ws_path_join(cwd, prog)) == NULL ||
	    ws_path_normalize(abs, 0, &v) < 0)
		goto out;
	/* Its place in the virtual paths the walk named, and its real path. */
	if (virt) {
		if ((a = ws_ctx_anchor_of_virtual(ws, v, &rest)) < 0)
			goto out;
		snprintf(real, sizeof(real), "%s%s%s", ws->anchors[a].real,
			 rest && *rest ? "/" : "", rest ? rest : "");
		in = v;
	} else {
		if ((a = ws_ctx_anchor_of_real(ws, v, &rest)) < 0)
			goto out;
		while (rest != NULL && *rest == '/')
			rest++;
		snprintf(real, sizeof(real), "%s", v);
		free(abs);
		if (asprintf(&abs, "%s%s%s", strcmp(ws->anchors[a].vprefix, "/") == 0 ?
			     "" : ws->anchors[a].vprefix, rest && *rest ? "/" : "",
			     rest ? rest : "") < 0) {
			abs = NULL;
			goto out;
		}
		in = abs[0] ? abs : "/";
	}
	for (size_t i = 0; i < vi->no_exec.n && !hit; i++)
		hit = ws_path_within(vi->no_exec.name[i], in, NULL);
	if (hit && (ws_policy_check_file(ws->policy, WS_OP_EXEC, real, &m) ==
		    WS_DECISION_ALLOW || m.rule == NULL))
		hit = false;
	if (hit) {
		char *msg = m.message ? ws_policy_render(m.message, in, "exec",
							 m.rule) : NULL;

		ws_error_set(WS_EPOLICY_DENIED, in, "not run: the policy "
			     "refuses to execute it (policy \"%s\", rule \"%s\", "
			     "operation exec)%s%s", ws_policy_name(ws->policy),
			     m.rule, msg ? ": " : "", msg ? msg : "");
		free(msg);
		ws_error_set_policy(ws_policy_name(ws->policy), m.rule, "exec");
		ws_error_set_hint("the policy keeps programs there from running; "
				  "retrying will not help: ask the user if it "
				  "must run");
	}
out:
	free(abs);
	free(v);
	return hit;
}

/*
 * The real view: the language marker that makes PROJECT_ROOT (real, in a
 * writable anchor: the workspace's top) bound onto itself, writable, so
 * that the command cannot remove or rename it (EBUSY), as in the virtual
 * view, where every top-level entry is a bind.  Removing it gave the next
 * call another PROJECT_ROOT (the directory of the next marker above), and
 * every policy rule spelled through it a new meaning: a deny of the
 * project's secrets/ spelled with ${PROJECT_ROOT} no longer matched
 * (review30 03).  A marker
 * the command creates is removed after it (ws__markers_snapshot()); the
 * file tools do neither.  Opened beneath its anchor, following no link.
 */
static int
ws__pin_marker(struct ws_ctx *ws, struct ws_sandbox_plan *p, const char *real)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	const char *rest = NULL;
	int a = ws_ctx_anchor_of_real(ws, real, &rest), fd, rc;

	while (rest != NULL && *rest == '/')
		rest++;
	if (a < 0 || rest == NULL || *rest == '\0')
		return 0;
	fd = (int)syscall(SYS_openat2, ws->anchors[a].fd, rest, &how, sizeof(how));
	/* Gone, or a link (a marker through a link is not pinned here). */
	if (fd < 0)
		return 0;
	if ((rc = ws_sandbox_plan_add_guard(p, fd, real, false)) < 0)
		return rc;
	p->guards[p->nguards - 1].write = true;
	p->guards[p->nguards - 1].pin = false;
	return 0;
}

/*
 * plan: the call's sandbox plan, whose resolution of HOME's places the
 * snapshot takes when it made one (home_done); NULL, or none made: the
 * places are resolved here.  *proot_marker: see ws__markers_snapshot().
 */
static int
ws__places_snapshot(struct ws_ctx *ws, const struct ws_sandbox_plan *plan,
		    struct ws__place **out, size_t *n, char **proot_marker)
{
	struct ws_home_place *hp = NULL;
	const char *lit;
	size_t nown, nmark, nhp = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	/*
	 * wstools' own configuration places and policy directories, as
	 * the context canonicalised them once (ws_ctx_guarded(); the plan
	 * asked already): not a second readlink() per component.
	 */
	(void)ws_ctx_guarded(ws, "/", false);
	for (size_t i = 0; rc == 0 && i < ws->nguard; i++) {
		const char *rest = NULL;
		int a = ws_ctx_anchor_of_real(ws, ws->guard[i], &rest);

		while (rest != NULL && *rest == '/')
			rest++;
		if (a >= 0 && !ws->anchors[a].ro && rest != NULL && *rest != '\0')
			rc = ws__place_add(ws, a, rest, false, out, n);
	}
	nown = *n;
	/*
	 * The literal persistence guards (.envrc, .vscode, rc files, ...)
	 * at the top of every writable anchor.  One below a repository's
	 * own directory (.git/config) is a place only where that directory
	 * exists: a git init must not lose its whole .git, which the
	 * repositories' walk cleans.  Any other (.claude/settings.json,
	 * .devcontainer/devcontainer.json) is one from its first missing
	 * component, which goes whole if the command made it, as a new
	 * .vscode does: else a command's mkdir .claude and hooks file
	 * stayed in a project without .claude (review28 03).
	 */
	for (size_t k = 0; rc == 0 && (lit = ws_guard_literal(ws, k)) != NULL; k++) {
		bool vcs = ws__vcs_dir_guard(lit);

		for (size_t a = 0; rc == 0 && a < ws->nanchors; a++)
			if (!ws->anchors[a].ro)
				rc = ws__place_add(ws, (int)a, lit, vcs, out, n);
	}
	if (rc == 0 && plan != NULL && plan->home_done)
		rc = ws__home_places(ws, plan->home_places, plan->nhome_places,
				     out, n);
	else if (rc == 0 && (rc = ws_ctx_home_places(ws, &hp, &nhp)) == 0)
		rc = ws__home_places(ws, hp, nhp, out, n);
	ws_home_places_free(hp, nhp);
	nmark = *n;
	if (rc == 0)
		rc = ws__markers_snapshot(ws, out, n, proot_marker);
	for (size_t i = 0; i < *n; i++) {
		(*out)[i].own = i < nown;
		(*out)[i].marker = i >= nmark;
	}
	return rc;
}

/*
 * The person's directories on the way to a place that its revert gave
 * their owner's rwx bits (ws__place_parent()): a descriptor of each and
 * the mode it had, put back by ws__rwx_back() once the place is done.
 */
struct ws__rwx {
	int fd[16];
	mode_t mode[16];
	size_t n;
};

static void
ws__rwx_give(struct ws__rwx *u, int fd)
{
	struct stat st;
	int keep;

	if (u->n >= sizeof(u->fd) / sizeof(u->fd[0]) || fstat(fd, &st) < 0 ||
	    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & S_IRWXU) == S_IRWXU ||
	    (keep = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return;
	if (ws__fd_chmod(keep, (st.st_mode & 07777) | S_IRWXU) < 0) {
		close(keep);
		return;
	}
	u->fd[u->n] = keep;
	u->mode[u->n++] = st.st_mode & 07777;
}

static void
ws__rwx_back(struct ws__rwx *u)
{
	while (u->n > 0) {
		u->n--;
		(void)ws__fd_chmod(u->fd[u->n], u->mode[u->n]);
		close(u->fd[u->n]);
	}
}

/*
 * A descriptor (read, a directory) of a place's parent, rel below the
 * anchor, or -1 with errno.  The command runs as the person and can make
 * the parent, or a directory on the way to it, unreadable (chmod 311,
 * 600, 000): its place was passed over in silence, and a
 * ~/.config/git/config it wrote stayed (review28 04).  With rwx, the
 * person's directories on the way that lack a bit get their owner's rwx
 * bits, one component at a time (never following a link), noted in *u:
 * the revert puts each mode back after, and the repositories' walk that
 * comes next decides on it as on any other directory.
 */
static int
ws__place_parent(struct ws_ctx *ws, int anchor, const char *rel, bool rwx,
		 struct ws__rwx *u)
{
	const char *c = rel;
	int fd, cur;

	if (!rwx) {
		if ((fd = ws__open_beneath(ws, anchor, rel, true)) < 0)
			return -1;
		cur = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		return cur;
	}
	if ((cur = fcntl(ws->anchors[anchor].fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return -1;
	for (;;) {
		char name[256];
		size_t len;
		int nfd;

		ws__rwx_give(u, cur);
		while (*c == '/')
			c++;
		if (*c == '\0')
			break;
		len = strcspn(c, "/");
		if (len >= sizeof(name) || (len == 2 && c[0] == '.' && c[1] == '.')) {
			close(cur);
			errno = len >= sizeof(name) ? ENAMETOOLONG : EXDEV;
			return -1;
		}
		memcpy(name, c, len);
		name[len] = '\0';
		c += len;
		nfd = openat(cur, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		close(cur);
		if ((cur = nfd) < 0)
			return -1;
	}
	fd = openat(cur, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(cur);
	return fd;
}

/* msg ("PATH: ...") to *left; freed where it cannot go there. */
static void
ws__left_add(char ***left, size_t *nleft, char *msg)
{
	char **nl;

	if (msg != NULL && (nl = realloc(*left, (*nleft + 1) * sizeof(*nl))) != NULL) {
		*left = nl;
		nl[(*nleft)++] = msg;
		return;
	}
	free(msg);
}

/*
 * Remove what the command created at the places; say which.  One that
 * could not be removed goes to *left ("PATH: could not be removed"), said
 * after the others: it was said removed while it stayed (review25 12).
 * So does one that could not be looked at (review28 04).
 */
static void
ws__places_revert(struct ws_ctx *ws, const struct ws__place *v, size_t n,
		  const struct ws_vcs_snap *vcs, struct ws_run_result *r,
		  char ***left, size_t *nleft)
{
	for (size_t i = 0; i < n; i++) {
		int dfd, err;
		struct stat st;
		struct ws__rwx u = {.n = 0};
		char *vp = NULL, rel[4352], **nl;

		/* Mostly nothing was made: at the anchor's top one fstatat()
		 * on the anchor says so. */
		if (v[i].parent[0] == '\0' &&
		    fstatat(ws->anchors[v[i].anchor].fd, v[i].name, &st,
			    AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
			continue;
		/*
		 * The parent as it is; where it, or a directory on the way,
		 * cannot be read or searched (EACCES, from the open or from
		 * the look at the place), again with the owner's rwx bits.
		 */
		for (int k = 0; k < 2; k++) {
			dfd = ws__place_parent(ws, v[i].anchor, v[i].parent, k == 1, &u);
			err = dfd < 0 ? errno :
			      fstatat(dfd, v[i].name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno;
			if (err != EACCES)
				break;
			if (dfd >= 0)
				close(dfd);
			dfd = -1;
		}
		/*
		 * Gone with its parent (or a file in its place): nothing to
		 * remove.  Any other failure is said, never passed over: the
		 * place may hold what the command wrote (review28 04).
		 */
		if (err != 0 && err != ENOENT && err != ENOTDIR) {
			char *m = NULL;

			snprintf(rel, sizeof(rel), "%s%s%s", v[i].parent,
				 v[i].parent[0] ? "/" : "", v[i].name);
			if (ws_ctx_virtual_of(ws, v[i].anchor, rel, &vp) == 0 &&
			    asprintf(&m, "%s: could not be checked for what the "
				     "command made there (%s): look at it before "
				     "git, a shell or an editor reads it", vp,
				     strerror(err)) < 0)
				m = NULL;
			ws__left_add(left, nleft, m);
			free(vp);
		}
		if (err == 0) {
			struct stat pst;
			bool stayed;

			/*
			 * Made in a directory the command's namespace bound
			 * read-only (the same directory now): not by the
			 * command, by the person most likely (a pre-commit
			 * install into .git/hooks while it ran, review25 06).
			 */
			if (fstat(dfd, &pst) == 0 && ws_vcs_snap_held(vcs, NULL, &pst)) {
				char *m = NULL;

				snprintf(rel, sizeof(rel), "%s%s%s", v[i].parent,
					 v[i].parent[0] ? "/" : "", v[i].name);
				if (ws_ctx_virtual_of(ws, v[i].anchor, rel, &vp) == 0 &&
				    asprintf(&m, "%s: made while the command ran, "
					     "in a place the command could only read",
					     vp) < 0)
					m = NULL;
				/* Kept, apart from what was undone (ftu17 09). */
				ws__left_add(&r->kept, &r->nkept, m);
				free(vp);
				goto next;
			}
			ws__rm_at(dfd, v[i].name, 0);
			stayed = fstatat(dfd, v[i].name, &st, AT_SYMLINK_NOFOLLOW) == 0;
			snprintf(rel, sizeof(rel), "%s%s%s", v[i].parent,
				 v[i].parent[0] ? "/" : "", v[i].name);
			if (ws_ctx_virtual_of(ws, v[i].anchor, rel, &vp) == 0 && stayed) {
				char *m = NULL;

				if (asprintf(&m, "%s: made by the command, could not be "
					     "removed: remove it by hand before git, a "
					     "shell or an editor reads it", vp) < 0)
					m = NULL;
				ws__left_add(left, nleft, m);
			} else if (vp != NULL &&
				   (nl = realloc(r->reverted, (r->nreverted + 1) *
							      sizeof(*nl))) != NULL) {
				r->reverted = nl;
				r->reverted[r->nreverted++] = vp;
				vp = NULL;
			}
			free(vp);
		}
next:
		if (dfd >= 0)
			close(dfd);
		ws__rwx_back(&u);
	}
}

/* ---- The child -------------------------------------------------------- */

enum { WS__STAGE_EXEC = 1, WS__STAGE_SETUP = 2 };

struct ws__report {
	int stage;
	int err;
	char msg[200];
};

/* The reaper's PR_SET_PDEATHSIG (see ws__reaper_main()): taken, not
 * fatal, so that it outlives wsrun long enough to kill the tree. */
#define WS__REAPER_DEATHSIG SIGUSR1

struct ws__child {
	const struct ws_run_opts *o;
	struct ws_sandbox_plan *plan;
	char *const *argv;
	char **envp;
	int in_fd, out_w, err_w, rep_w, status_w, sync_r;
	int net_w;	/* network by name: the listener goes out here, or -1 */
	bool pidns, landlock, seccomp, caps;
	bool shared_vm; /* init runs in wsrun's memory (ws__spawn_init()) */
	/* Without a PID namespace: the command's parent is the reaper
	 * (ws__reaper_main()), wsrun's child; parent is wsrun's pid. */
	bool reaper;
	pid_t parent;
	int cwd_fd;
	const char *exe;   /* argv[0] found on PATH (ws__find_exe()), or NULL */
	int view_w;	   /* the virtual view: its root is sent here, or -1 */
	/* Tests: init waits this long after the command's exec before it
	 * says "r" (WS_RUN_READY_DELAY_MS; see ws__wait_init_ready()). */
	int ready_delay_ms;
	int *snap_state;   /* the command waits for it (ws__vsnap), or NULL */
	/*
	 * The descriptors above 2 that init and the command's child use
	 * (ws__child_keep()), ascending: the child closes every other one
	 * when it starts (ws__close_except()), the parent's ends of the
	 * pipes among them (a held write end of stdin would keep the
	 * command from ever seeing end of file).
	 */
	const int *keep;
	size_t nkeep;
	/* The soft RLIMIT_NOFILE the command gets back (nofile_back): wsrun
	 * raised its own for its walks (ws__nofile_raise()). */
	bool nofile_back;
	rlim_t nofile_soft;
};

static void
ws__report(int fd, int stage, int err, const char *msg)
{
	struct ws__report rep;

	memset(&rep, 0, sizeof(rep));
	rep.stage = stage;
	rep.err = err;
	snprintf(rep.msg, sizeof(rep.msg), "%s", msg ? msg : "");
	if (write(fd, &rep, sizeof(rep)) < 0)
		return;
}

static void
ws__setrl(int res, long long v)
{
	struct rlimit rl = {(rlim_t)v, (rlim_t)v};

	if (v > 0)
		setrlimit(res, &rl);
}

/*
 * execvp(3) with the command's own PATH (from envp), touching no global
 * state: the child may share its memory with its parent (vfork).  Returns
 * the errno that matters (the first one other than ENOENT, as execvp).
 */
static int
ws__execvpe(const char *file, char *const *argv, char *const *envp)
{
	const char *path = "/usr/local/bin:/usr/bin:/bin";
	char buf[4352];
	int err = ENOENT;

	if (strchr(file, '/') != NULL) {
		execve(file, argv, envp);
		return errno;
	}
	for (size_t i = 0; envp[i]; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			path = envp[i] + 5;
	for (const char *p = path;; p++) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n + strlen(file) + 2 < sizeof(buf)) {
			if (n == 0)
				snprintf(buf, sizeof(buf), "%s", file);
			else
				snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, file);
			execve(buf, argv, envp);
			if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE &&
			    errno != ELOOP && errno != ENAMETOOLONG)
				err = errno;
			if (errno == EACCES || errno == ENOEXEC || errno == EPERM)
				return errno;
		}
		if (e == NULL)
			break;
		p = e;
	}
	return err;
}

/*
 * The program file (argv[0]) names, found once on the command's PATH as
 * the command sees the file system (in the namespace init: after the
 * pivot, so the new root's, and relative entries from its working
 * directory cwd_fd): the first regular file with an execute bit, into
 * buf.  The command's child then makes one execve() instead of one per
 * PATH entry.  A directory or a file without an execute bit is passed
 * over, as execvp(3) and the shells pass them (the search went on past
 * EACCES); NULL when there is nothing to run, and ws__execvpe() searches
 * itself (for its errno).  Touches no heap (init, see ws__spawn_init()).
 */
static const char *
ws__find_exe(const char *file, char *const *envp, int cwd_fd, char *buf,
	     size_t len)
{
	const char *path = "/usr/local/bin:/usr/bin:/bin";
	size_t fl = strlen(file), ntop = 0;
	/*
	 * The first components of the absolute entries looked at, and
	 * whether the root has that name: the entries below one it lacks
	 * (a host's ~/.local/bin, ~/.cargo/bin, ~/.pyenv/shims, where HOME
	 * is not in the view) are passed over without a lookup each, and a
	 * missing name's lookup is a slow one in a root made for this call
	 * (issue 20).  Nothing changes that root's top while init looks: the
	 * command has not started.  (Without a namespace init, the host's
	 * root: no more a snapshot than a lookup an entry was.)
	 */
	struct {
		const char *s;
		size_t n;
		bool there;
	} top[8];

	if (strchr(file, '/') != NULL || fl == 0)
		return file;
	for (size_t i = 0; envp[i]; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			path = envp[i] + 5;
	for (const char *p = path;; p++) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		struct stat st;
		const char *t = p;
		size_t tl = 0, k = 0;

		/* The entry's first component: t, tl bytes (0: none). */
		while (t < p + n && *t == '/')
			t++;
		if (p[0] == '/' && n > 0)
			tl = strcspn(t, "/:");
		if (tl > 0 && t + tl > p + n)
			tl = 0;
		for (k = 0; tl > 0 && k < ntop; k++)
			if (top[k].n == tl && memcmp(top[k].s, t, tl) == 0)
				break;
		if (tl > 0 && k < ntop && !top[k].there)
			goto next;
		if (n + fl + 2 < len) {
			if (n == 0)
				memcpy(buf, file, fl + 1);
			else
				snprintf(buf, len, "%.*s/%s", (int)n, p, file);
			if (fstatat(cwd_fd, buf, &st, 0) == 0) {
				if (S_ISREG(st.st_mode) && (st.st_mode & 0111))
					return buf;
			} else if (errno == ENOENT && tl > 0 && k == ntop &&
				   ntop < sizeof(top) / sizeof(top[0])) {
				/* Not here: is the first component? */
				snprintf(buf, len, "/%.*s", (int)tl, t);
				top[ntop].s = t;
				top[ntop].n = tl;
				top[ntop++].there =
					fstatat(cwd_fd, buf, &st,
						AT_SYMLINK_NOFOLLOW) == 0 ||
					errno != ENOENT;
			}
		}
next:
		if (e == NULL)
			break;
		p = e;
	}
	return NULL;
}

/* Become the command: descriptors, limits, layers, exec.  Never returns. */
static void __attribute__((noreturn))
ws__exec_child(struct ws__child *c)
{
	char msg[200], exe[4352];
	const char *path;
	int rc;

	if (!c->pidns) {
		/* Under the reaper, its session and process group (it made
		 * them): wsrun's kill of the group reaches both. */
		if (!c->reaper)
			setsid();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	}
	signal(SIGPIPE, SIG_DFL);
	signal(WS__REAPER_DEATHSIG, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	{
		/* init blocks them (see ws__init_main()); the command must not. */
		sigset_t stop;

		sigemptyset(&stop);
		sigaddset(&stop, SIGTERM);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGHUP);
		sigaddset(&stop, SIGCHLD);
		sigaddset(&stop, WS__REAPER_DEATHSIG);
		sigprocmask(SIG_UNBLOCK, &stop, NULL);
	}
	if (dup2(c->in_fd, 0) < 0 || dup2(c->out_w, 1) < 0 || dup2(c->err_w, 2) < 0) {
		ws__report(c->rep_w, WS__STAGE_SETUP, errno, "dup2");
		_exit(WS_RUN_EXIT_FAILED);
	}
	if (fchdir(c->cwd_fd) < 0) {
		ws__report(c->rep_w, WS__STAGE_SETUP, errno, "fchdir");
		_exit(WS_RUN_EXIT_FAILED);
	}
	/* Without a namespace init, found here (the same view). */
	path = c->pidns ? c->exe : ws__find_exe(c->argv[0], c->envp, AT_FDCWD,
						exe, sizeof(exe));
	ws__setrl(RLIMIT_AS, c->o->memory);
	ws__setrl(RLIMIT_NPROC, c->o->max_procs);
	ws__setrl(RLIMIT_FSIZE, c->o->max_file_size);
	ws__setrl(RLIMIT_CPU, c->o->cpu_time);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		ws__report(c->rep_w, WS__STAGE_SETUP, errno, "no_new_privs");
		_exit(WS_RUN_EXIT_FAILED);
	}
	if (c->landlock && (rc = ws_sandbox_landlock(c->plan, msg, sizeof(msg))) < 0) {
		ws__report(c->rep_w, WS__STAGE_SETUP, -rc, msg);
		_exit(WS_RUN_EXIT_FAILED);
	}
	if (c->caps && (rc = ws_sandbox_drop_caps(msg, sizeof(msg))) < 0) {
		ws__report(c->rep_w, WS__STAGE_SETUP, -rc, msg);
		_exit(WS_RUN_EXIT_FAILED);
	}
	/* Only 0-2 reach the command; the report pipe closes at exec. */
	if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		for (int fd = 3; fd < 65536; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	/*
	 * The soft descriptor limit wsrun was started with: the one it
	 * raised for its walks is not the command's (review31 04).  Last,
	 * as nothing opens a descriptor after it: the plan's, still open
	 * until the exec, may lie past it.
	 */
	if (c->nofile_back) {
		struct rlimit rl;
		int bad = getrlimit(RLIMIT_NOFILE, &rl);

		if (bad == 0) {
			rl.rlim_cur = c->nofile_soft < rl.rlim_max ? c->nofile_soft
								   : rl.rlim_max;
			bad = setrlimit(RLIMIT_NOFILE, &rl);
		}
		if (bad < 0) {
			ws__report(c->rep_w, WS__STAGE_SETUP, errno, "RLIMIT_NOFILE");
			_exit(WS_RUN_EXIT_FAILED);
		}
	}
	if (c->seccomp && (rc = ws_sandbox_seccomp(c->plan, msg, sizeof(msg))) < 0) {
		ws__report(c->rep_w, WS__STAGE_SETUP, -rc, msg);
		_exit(WS_RUN_EXIT_FAILED);
	}
	rc = ws__execvpe(path ? path : c->argv[0], c->argv, c->envp);
	ws__report(c->rep_w, WS__STAGE_EXEC, rc, c->argv[0]);
	_exit(rc == ENOENT ? WS_RUN_EXIT_NOTFOUND : WS_RUN_EXIT_NOEXEC);
}

/*
 * init shares wsrun's memory (see ws__spawn_init()), and once wsrun runs
 * on, init must not touch what the two could both write: the heap, stdio,
 * and errno, which lives in the thread-local block they share.  So its
 * waiting loop makes system calls directly: the result is -errno, and no
 * wrapper, sanitizer interceptor or cancellation point runs.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WS__ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define WS__ASAN 1
#endif
#if defined(__x86_64__) && !defined(WS__ASAN)
#define WS__INIT_SHARES_VM 1
static long
ws__sys4(long n, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The same with six arguments (mmap), for the thread of ws_run_ahead. */
static long
ws__sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__) && !defined(WS__ASAN)
#define WS__INIT_SHARES_VM 1
static long
ws__sys4(long n, long a, long b, long c, long d)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3)
			 : "memory");
	return x0;
}

static long
ws__sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}
#else
/*
 * Elsewhere init is a copy of wsrun (a fork), and the wrappers are safe.
 * So under AddressSanitizer, whose per-thread records (in the thread-local
 * block) and vfork interceptor assume one stack per thread: a task on a
 * stack of its own in the same memory makes it unpoison a range between
 * the two stacks, and fault.  The ASan runs test the fork; the others the
 * shared memory.
 */
#define WS__INIT_SHARES_VM 0
static long
ws__sys4(long n, long a, long b, long c, long d)
{
	long r = syscall(n, a, b, c, d);

	return r < 0 ? -errno : r;
}
#endif

/*
 * A child forked or cloned without exec (the namespace init, one made
 * ahead once its call takes it, the command's reaper, the
 * guardian) starts with a copy of every descriptor of this process at
 * that moment: in a process of several calls (wstools mcp) another
 * call's too, such as the one a change holds a file's flock() on.  The
 * lock belongs to the open file, which the copy keeps open, so it would
 * stay held for as long as the child lives (the guardian: the whole
 * command), and the next change of that file waited for it.  So the
 * child closes every descriptor above 2 but keep[] (ascending) first of
 * all.  Direct system calls only (the child may share this memory).
 */
static void
ws__close_from_to(unsigned lo, unsigned hi)
{
	if (lo > hi)
		return;
	if (ws__sys4(SYS_close_range, lo, hi, 0, 0) == -ENOSYS)
		for (unsigned fd = lo; fd <= hi && fd < 65536; fd++)
			ws__sys4(SYS_close, fd, 0, 0, 0);
}

static void
ws__close_except(const int *keep, size_t n)
{
	unsigned lo = 3;

	for (size_t i = 0; i < n; i++) {
		if (keep[i] < (int)lo)
			continue;
		ws__close_from_to(lo, (unsigned)keep[i] - 1);
		lo = (unsigned)keep[i] + 1;
	}
	ws__close_from_to(lo, ~0U);
}

static int
ws__int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Sort v ascending and drop the duplicates and the numbers below 3
 * (closed or not, 0-2 stay); returns how many are left. */
static size_t
ws__keep_sort(int *v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof(*v), ws__int_cmp);
	for (size_t i = 0; i < n; i++)
		if (v[i] > 2 && (k == 0 || v[k - 1] != v[i]))
			v[k++] = v[i];
	return k;
}

/*
 * init's wait: reap every process until the command ends, forward the
 * stopping signal to all of them, and report the command's status and
 * the peak memory of its processes, then end.  Only direct system calls
 * (see ws__sys4()).  (Out of ws__init_main(): its locals would be
 * clobbered by the vfork.)
 */
static void __attribute__((noreturn))
ws__init_wait(pid_t cmd, int status_w)
{
	/* The kernel's sigset (rt_sigprocmask, rt_sigtimedwait): one word. */
	unsigned long set = 1UL << (SIGTERM - 1) | 1UL << (SIGINT - 1) |
			    1UL << (SIGHUP - 1) | 1UL << (SIGCHLD - 1);
	struct rusage ru;
	long maxrss = 0, w;
	int32_t rep[3];
	int st = 0, wst, sig, fwd = 0;

	/*
	 * The stopping signals wait pending from here, and the loop takes
	 * them with rt_sigtimedwait(): a flag set by the handler and read
	 * after a wait4() that failed with EINTR loses the signal that lands
	 * before the wait4() has begun (after the handler was installed, in
	 * the vfork, or just after "r", when wsrun sends a cancellation it
	 * got meanwhile): init then waited for the command, which never
	 * heard of it, until the grace's SIGKILL.  SIGCHLD is blocked too,
	 * so that a child's end, however early, wakes the wait.  (The
	 * first three have been blocked since the clone: see
	 * ws__init_main().)
	 */
	ws__sys4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&set, 0, sizeof(set));
	for (;;) {
		if (fwd != 0) {
			/* The signal wsrun was stopped by: SIGINT stays SIGINT. */
			ws__sys4(SYS_kill, -1, fwd, 0, 0);
			fwd = 0;
		}
		w = ws__sys4(SYS_wait4, -1, (long)&wst, WNOHANG, (long)&ru);
		if (w > 0 && ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
		if (w == cmd) {
			st = wst;
			break;
		}
		if (w < 0 && w != -EINTR)
			break;
		if (w != 0)
			continue;
		sig = (int)ws__sys4(SYS_rt_sigtimedwait, (long)&set, 0, 0, sizeof(set));
		if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP)
			fwd = sig;
	}
	/*
	 * Nothing the command started outlives it: kill and reap the rest
	 * here, so that the status means the tree is gone and wsrun may go
	 * on without waiting for init's own exit (which tears the
	 * namespaces down: a few hundred microseconds).
	 */
	ws__sys4(SYS_kill, -1, SIGKILL, 0, 0);
	for (;;) {
		w = ws__sys4(SYS_wait4, -1, (long)&wst, 0, (long)&ru);
		if (w > 0 && ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
		if (w < 0 && w != -EINTR)
			break;
	}
	rep[0] = st;
	rep[1] = (int32_t)maxrss;
	rep[2] = 1;
	w = ws__sys4(SYS_write, status_w, (long)rep, sizeof(rep), 0);
	for (;;)
		ws__sys4(SYS_exit_group, w == (long)sizeof(rep) ? 0 : WS_RUN_EXIT_FAILED,
			 0, 0, 0);
}

/* In init, before the command starts: the side thread's work done (the
 * snapshot whole, the guardian started: see struct ws__vsnap), or init
 * ends (wsrun reports the thread's error).  Direct system calls only. */
static void
ws__vsnap_wait(int *state)
{
	int v;

	while ((v = __atomic_load_n(state, __ATOMIC_ACQUIRE)) == 0)
		ws__sys4(SYS_futex, (long)state, FUTEX_WAIT, 0, 0);
	if (v < 0)
		for (;;)
			ws__sys4(SYS_exit_group, WS_RUN_EXIT_FAILED, 0, 0, 0);
}

/*
 * PID 1 of the namespace: build the root, fork the command, reap every
 * process, forward SIGTERM to all of them, report the command's status.
 */
static void __attribute__((noreturn))
ws__init_main(struct ws__child *c)
{
	struct sigaction sa;
	struct pollfd pf = {.fd = c->sync_r, .events = POLLIN};
	char msg[200], exe[4352];
	sigset_t stop;
	pid_t cmd;
	int rc;

	/*
	 * The stopping signals wait pending until ws__init_wait() takes
	 * them, however early they come (wsrun blocked them around the
	 * clone; this is for a caller that did not): a handler that ran
	 * during the setup would be the caller's own, and its signal would
	 * be lost to init's wait.  The command's child unblocks them.
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (c->plan->userns) {
		/* Wait for the id maps; end of file: wsrun is gone. */
		char go;

		if (read(c->sync_r, &go, 1) != 1)
			_exit(WS_RUN_EXIT_FAILED);
	} else if (poll(&pf, 1, 0) > 0 && (pf.revents & (POLLHUP | POLLERR))) {
		/* wsrun died before PDEATHSIG was set: its pipe says. */
		_exit(WS_RUN_EXIT_FAILED);
	}
	prctl(PR_SET_DUMPABLE, 0);
	/*
	 * The inherited environment is nobody's business in /proc/1.  When
	 * init shares wsrun's memory, ws_run_detach_environ() has zeroed it
	 * already (wsrun reads its copy on the heap).
	 */
	if (!c->shared_vm)
		for (char **p = environ; p && *p; p++)
			memset(*p, 0, strlen(*p));
	setsid();
	/*
	 * No handler: they stay blocked, and ws__init_wait() takes them
	 * with rt_sigtimedwait().  The caller's handlers (wsrun's, in its
	 * own memory) are dropped all the same, so that none could ever run
	 * here.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/*
	 * Loopback up: the command's own servers, when it may open an
	 * Internet socket at all.  Under the seccomp filter (no --net) only
	 * AF_UNIX sockets exist, and nothing could use it: the ~0.4 ms it
	 * takes (the kernel's IPv4 and IPv6 set-up of the device) is saved.
	 */
	if (c->plan->netns && (!c->seccomp || c->plan->net_proxy) &&
	    (rc = ws_sandbox_loopback_up()) < 0) {
		ws__report(c->rep_w, WS__STAGE_SETUP, -rc, "loopback up");
		_exit(WS_RUN_EXIT_FAILED);
	}
	/* Network by name: the proxy's listener, handed out to wsrun. */
	if (c->net_w >= 0) {
		if ((rc = ws_netproxy_listen(c->net_w)) < 0) {
			ws__report(c->rep_w, WS__STAGE_SETUP, -rc, "proxy listener");
			_exit(WS_RUN_EXIT_FAILED);
		}
		close(c->net_w);
	}
	if (c->plan->mountns) {
		int fd;

		rc = ws_sandbox_mount(c->plan, &fd, msg, sizeof(msg));
		if (rc < 0) {
			ws__report(c->rep_w, WS__STAGE_SETUP, -rc, msg);
			_exit(WS_RUN_EXIT_FAILED);
		}
		c->cwd_fd = fd;
		if (c->view_w >= 0 && ws_view_send_root(c->view_w) < 0) {
			ws__report(c->rep_w, WS__STAGE_SETUP, errno,
				   "sending the view's root");
			_exit(WS_RUN_EXIT_FAILED);
		}
	}
	/* The program, looked up once in the new root (see there). */
	c->exe = ws__find_exe(c->argv[0], c->envp, c->cwd_fd, exe, sizeof(exe));
	if (c->snap_state != NULL)
		ws__vsnap_wait(c->snap_state);
	/*
	 * A stopping signal that came during the setup (wsrun sends a
	 * cancellation so, see ws__wait_init_ready()): the command never
	 * starts, rather than start and get it in its first instants (a
	 * shell then catches SIGINT for itself and execs its last command,
	 * which never hears of it: the grace's SIGKILL ended the call).
	 */
	{
		sigset_t pend;

		if (sigpending(&pend) == 0) {
			int s = sigismember(&pend, SIGINT) ? SIGINT :
				sigismember(&pend, SIGHUP) ? SIGHUP :
				sigismember(&pend, SIGTERM) ? SIGTERM : 0;

			if (s != 0)
				_exit(128 + s);
		}
	}
	/* vfork: no copy of the address space (a fork costs ~1 ms). */
	cmd = vfork();
	if (cmd < 0) {
		ws__report(c->rep_w, WS__STAGE_SETUP, errno, "fork");
		_exit(WS_RUN_EXIT_FAILED);
	}
	if (cmd == 0)
		ws__exec_child(c);
	/* The output pipes end with the command's tree, not with init. */
	close(c->rep_w);
	close(c->out_w);
	if (c->err_w != c->out_w)
		close(c->err_w);
	/* wsrun may go on: from here init makes direct system calls only. */
	if (c->shared_vm && c->ready_delay_ms > 0) {
		struct timespec d = {c->ready_delay_ms / 1000,
				     (c->ready_delay_ms % 1000) * 1000000L};

		ws__sys4(SYS_nanosleep, (long)&d, 0, 0, 0);
	}
	if (c->shared_vm &&
	    ws__sys4(SYS_write, c->sync_r, (long)"r", 1, 0) != 1)
		ws__sys4(SYS_exit_group, WS_RUN_EXIT_FAILED, 0, 0, 0);
	/*
	 * Every descriptor but the status pipe goes now: init's copies of
	 * wsrun's (its standard output, say) would otherwise be released at
	 * init's exit, after the namespaces' teardown that the wsrun program
	 * does not wait for (ws_run_exit_soon()), and a reader of wsrun's
	 * output would wait for that end of file.
	 */
	if (c->status_w > 0)
		ws__sys4(SYS_close_range, 0, c->status_w - 1, 0, 0);
	ws__sys4(SYS_close_range, c->status_w + 1, ~0U, 0, 0);
	ws__init_wait(cmd, c->status_w);
}

/* ---- The parent ------------------------------------------------------ */

static long long
ws__now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Send sig to every descendant of this process (the subreaper walk). */
static int
ws__signal_tree(pid_t root, int sig)
{
	pid_t stack[4096];
	size_t n = 0;
	int found = 0;

	stack[n++] = root;
	while (n > 0) {
		pid_t p = stack[--n];
		char path[64], buf[8192];
		int fd;
		ssize_t k;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)p, (int)p);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		k = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (k <= 0)
			continue;
		buf[k] = '\0';
		for (char *s = buf, *e; *s; s = e) {
			long v = strtol(s, &e, 10);

			if (e == s)
				break;
			if (v > 0) {
				kill((pid_t)v, sig);
				found++;
				if (n < sizeof(stack) / sizeof(stack[0]))
					stack[n++] = (pid_t)v;
			}
		}
	}
	return found;
}

struct ws__proc {
	pid_t pid;
	int pidfd;
	bool pidns;
	int cg_fd;	/* cgroup directory, or -1 */
	char *cg_path;
};

static void
ws__cg_kill(struct ws__proc *p, int sig)
{
	if (p->cg_fd < 0)
		return;
	if (sig == SIGKILL) {
		int fd = openat(p->cg_fd, "cgroup.kill", O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			if (write(fd, "1", 1) < 0) {
				/* fall through to the walk */
			}
			close(fd);
		}
	} else {
		int fd = openat(p->cg_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
		FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
		long v;

		if (f == NULL) {
			if (fd >= 0)
				close(fd);
			return;
		}
		while (fscanf(f, "%ld", &v) == 1)
			kill((pid_t)v, sig);
		fclose(f);
	}
}

/*
 * Wait (100 ms at most) until pid is stopped, or gone: a SIGSTOP sent is
 * not yet taken, and until it is the process may still fork a child the
 * walk has already passed.
 */
static void
ws__wait_stopped(pid_t pid)
{
	char path[64], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 200; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t k = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		char *rp;

		if (fd >= 0)
			close(fd);
		if (k <= 0)
			return;
		buf[k] = '\0';
		/* "pid (comm) S ...": the state follows the last ')'. */
		if ((rp = strrchr(buf, ')')) == NULL || rp[1] == '\0' ||
		    strchr("TtZX", rp[2]) != NULL)
			return;
		usleep(500);
	}
}

/*
 * Append pid's children (every thread's) to *v, stopping each new one;
 * false when the list is full.  A stopped process forks no more, and its
 * children stay its own until it dies.
 */
static bool
ws__stop_children(pid_t pid, pid_t *v, size_t *n, size_t cap, bool *grew)
{
	char path[64], buf[8192];
	union {
		char b[4096];
		uint64_t align;
	} dents;
	long got;
	int dfd;

	/*
	 * getdents64 rather than opendir(): the reaper walks here too, a
	 * fork of a process that may have threads (wstools mcp), where
	 * malloc() might wait for a lock no thread of its will release.
	 */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return true;
	while ((got = syscall(SYS_getdents64, dfd, dents.b, sizeof(dents.b))) > 0)
		for (long off = 0; off < got;) {
			struct ws__dirent64 {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *e = (struct ws__dirent64 *)(void *)(dents.b + off);
			ssize_t k;
			int fd;

			off += e->reclen;
			if (e->name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%.20s/children",
				 (int)pid, e->name);
			if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
				continue;
			k = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			buf[k > 0 ? k : 0] = '\0';
			for (char *t = buf, *end; *t; t = end) {
				long c = strtol(t, &end, 10);
				bool known = false;

				if (end == t)
					break;
				for (size_t i = 0; i < *n && !known; i++)
					known = v[i] == (pid_t)c;
				if (c <= 0 || known)
					continue;
				if (*n == cap) {
					close(dfd);
					return false;
				}
				kill((pid_t)c, SIGSTOP);
				ws__wait_stopped((pid_t)c);
				v[(*n)++] = (pid_t)c;
				*grew = true;
			}
		}
	close(dfd);
	return true;
}

/*
 * The guardians' kill where no PID namespace holds the command's tree:
 * wsrun (or the server), its subreaper, is gone, so the tree is what is
 * still below root, the command's reaper (ws__reaper_main(), which kills
 * it too when wsrun dies: this is the backstop), or the first process
 * itself (a cgroup, where there is one, is killed after).  Each process is stopped as it is found, the
 * walk repeated until it finds none new, then every one is killed:
 * killed as found, a process's children would be reparented out of
 * reach before they were read.  Root is stopped through its pidfd, so
 * that a number reused since it ended is never signalled; a stopped
 * process reaps nothing, so its children's numbers stay theirs.  A
 * process that left the tree while wsrun lived (a double fork) is the
 * reaper's, a subreaper, and in reach here.
 */
static void
ws__kill_orphaned_tree(pid_t root, int pidfd)
{
	enum { CAP = 16384 };
	pid_t *v;
	size_t n = 0;
	bool grew = true;

	if (root <= 0 || pidfd < 0 ||
	    syscall(SYS_pidfd_send_signal, pidfd, SIGSTOP, NULL, 0) < 0)
		return;
	ws__wait_stopped(root);
	if ((v = malloc(CAP * sizeof(*v))) == NULL) {
		kill(-root, SIGKILL);
		return;
	}
	v[n++] = root;
	for (int round = 0; grew && round < 1000; round++) {
		grew = false;
		for (size_t i = 0; i < n; i++)
			if (!ws__stop_children(v[i], v, &n, CAP, &grew))
				break;
	}
	/* Root last, by its pidfd (the caller's SIGKILL); alive until then,
	 * its process group's number is still its own. */
	for (size_t i = n; i-- > 1;)
		kill(v[i], SIGKILL);
	kill(-root, SIGKILL);
	free(v);
}

/* The process a pidfd refers to (its fdinfo's Pid:), or -1. */
static pid_t
ws__pidfd_pid(int pidfd)
{
	char path[64], line[128];
	long pid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if (pidfd < 0 || (f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Pid: %ld", &pid) == 1)
			break;
	fclose(f);
	return pid > 0 ? (pid_t)pid : -1;
}

/* Signal the whole tree the command started. */
static void
ws__kill_all(struct ws__proc *p, int sig)
{
	if (p->pidns) {
		/* init forwards SIGTERM; SIGKILL of init ends the namespace. */
		kill(p->pid, sig);
		return;
	}
	ws__cg_kill(p, sig);
	kill(-p->pid, sig);
	kill(p->pid, sig);
	ws__signal_tree(getpid(), sig);
}

static int
ws__write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

/* Map the caller's uid and gid to themselves in the child's user ns. */
static int
ws__userns_map(pid_t pid)
{
	char path[64], map[64];
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)pid);
	if ((rc = ws__write_file(path, "deny")) < 0 && rc != -ENOENT)
		return ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
				    "user namespace: setgroups: %s", strerror(-rc));
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)geteuid(),
		 (unsigned)geteuid());
	if ((rc = ws__write_file(path, map)) < 0)
		return ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
				    "user namespace: uid_map: %s", strerror(-rc));
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)getegid(),
		 (unsigned)getegid());
	if ((rc = ws__write_file(path, map)) < 0)
		return ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
				    "user namespace: gid_map: %s", strerror(-rc));
	return 0;
}

/* The namespace init: a fork into new namespaces (clone3 for the pidfd). */
static pid_t
ws__clone(unsigned long flags, int cg_fd, int *pidfd)
{
	struct clone_args a;

	memset(&a, 0, sizeof(a));
	a.flags = flags | CLONE_PIDFD;
	a.pidfd = (uint64_t)(uintptr_t)pidfd;
	a.exit_signal = SIGCHLD;
	if (cg_fd >= 0) {
		a.flags |= CLONE_INTO_CGROUP;
		a.cgroup = (uint64_t)cg_fd;
	}
	return (pid_t)syscall(SYS_clone3, &a, sizeof(a));
}

/* Set by ws_run_exit_soon(): calls do not wait for init's exit. */
static bool ws__exit_soon;

void
ws_run_exit_soon(void)
{
	ws__exit_soon = true;
}

/* Set by ws_run_detach_environ(): init may share this memory. */
static bool ws__environ_detached;
/*
 * The detached array, kept here too: a later setenv() that adds a name
 * replaces environ with an array of libc's own and leaves this one (and
 * its strings, still in use) to whoever made it.  Held, it is not a leak.
 */
static char **volatile ws__environ_copy;

int
ws_run_detach_environ(void)
{
	size_t n = 0;
	char **copy;

	while (environ != NULL && environ[n] != NULL)
		n++;
	if ((copy = calloc(n + 1, sizeof(*copy))) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; i < n; i++)
		if ((copy[i] = strdup(environ[i])) == NULL) {
			while (i > 0)
				free(copy[--i]);
			free(copy);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
	for (size_t i = 0; i < n; i++)
		explicit_bzero(environ[i], strlen(environ[i]));
	environ = ws__environ_copy = copy;
	ws__environ_detached = true;
	return 0;
}

static int
ws__init_entry(void *arg)
{
	struct ws__child *c = arg;

	ws__close_except(c->keep, c->nkeep);
	ws__init_main(c);
}

/*
 * Start the namespace init in wsrun's own memory (CLONE_VM), on a stack of
 * its own, rather than as a copy of wsrun.  On this kind of machine the
 * copy was the largest cost of a call: copying the page tables at the
 * clone, faulting in copied pages in both processes after it, tearing the
 * copy down at init's exit (some 1-2 ms together, measured with ftrace).
 * The price is discipline, kept by both sides:
 *   - until init says "r" on the sync socket (the command has exec'd, or
 *     failed to), wsrun makes direct system calls only
 *     (ws__wait_init_ready()), and init and the command's child use no
 *     heap (lib/sandbox.c reads directories with getdents64), so that
 *     killing them at a timeout leaves wsrun's heap whole;
 *   - after it, init makes direct system calls only (ws__init_wait()).
 * The stack is unmapped once init is reaped.  Only in a process whose
 * environment ws_run_detach_environ() moved (the wsrun and wstools
 * programs; wstools mcp's reading thread may run meanwhile: init and the
 * command's child take no lock it could hold, no heap, no stdio), not
 * with a user namespace (init copies trees there, using the heap), not on
 * architectures without ws__sys4(): those fork as before.
 */
static pid_t
ws__spawn_init(struct ws__child *c, unsigned long flags, int *pidfd,
	       void **stack, size_t *stack_sz)
{
	size_t sz = 1024 * 1024, guard = 4096;
	char *stk = mmap(NULL, sz + guard, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE,
			 -1, 0);
	pid_t pid;

	if (stk == MAP_FAILED)
		return -1;
	/* A stack overflow faults rather than writing over wsrun's memory. */
	if (mprotect(stk, guard, PROT_NONE) < 0) {
		munmap(stk, sz + guard);
		return -1;
	}
	pid = clone(ws__init_entry, stk + sz + guard,
		    (int)(CLONE_VM | CLONE_PIDFD | SIGCHLD | flags), c, pidfd);
	if (pid < 0) {
		int e = errno;

		munmap(stk, sz + guard);
		errno = e;
		return -1;
	}
	*stack = stk;
	*stack_sz = sz + guard;
	return pid;
}

/*
 * Wait for init's "r" (or its end) with direct system calls only: init
 * runs in this memory meanwhile and writes errno, which the libc wrappers
 * would read.  A deadline kills init (PID 1: the whole namespace goes),
 * whose setup holds no heap to leave half-changed.  A cancellation (the
 * process-wide one, or the caller's o->cancel, which the wsrun program's
 * signal handler sets) sends init the stopping signal instead, as the
 * wait for the command does: "r" comes after the command's exec, which
 * may have run for a while by then (init is woken after it, and a busy
 * machine may not run it at once), set its traps and be owed its SIGINT
 * (it got a SIGKILL); init, which has the signal blocked, forwards it
 * once the command runs.  Only if init has not said "r" grace_ms later is
 * it killed.  Returns the cancelling signal (as ws_run() records it), or
 * 0.
 */
static int
ws__wait_init_ready(int sock, int pidfd, long long deadline_ms,
		    volatile int *cancel, long long grace_ms)
{
	struct pollfd pf[2] = {{.fd = sock, .events = POLLIN},
			       {.fd = pidfd, .events = POLLIN}};
	struct timespec ts, now;
	long long ms, killtime = -1;
	bool killed = false;
	int sent = 0;
	char b;

	for (;;) {
		long r;

		ts.tv_sec = 0;
		ts.tv_nsec = 50 * 1000 * 1000;
		r = ws__sys4(SYS_ppoll, (long)pf, 2, (long)&ts, 0);
		if (r > 0 && (pf[1].revents || pf[0].revents)) {
			if (pf[1].revents)
				return sent; /* init is gone */
			r = ws__sys4(SYS_read, sock, (long)&b, 1, 0);
			if (r != -EAGAIN && r != -EINTR)
				return sent; /* "r", or end of file: init failed */
			continue;
		}
		if (killed)
			continue;
		ws__sys4(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&now, 0, 0);
		ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
		if ((deadline_ms >= 0 && ms >= deadline_ms) ||
		    (killtime >= 0 && ms >= killtime)) {
			ws__sys4(SYS_pidfd_send_signal, pidfd, SIGKILL, 0, 0);
			killed = true;
		} else if (sent == 0 && (ws_cancelled() || (cancel != NULL && *cancel))) {
			sent = cancel != NULL && *cancel ? *cancel : SIGTERM;
			ws__sys4(SYS_pidfd_send_signal, pidfd,
				 sent == SIGINT || sent == SIGHUP ? sent : SIGTERM, 0, 0);
			killtime = ms + grace_ms;
		}
	}
}

/* The direct child without namespaces: join the cgroup, become the
 * reaper (ws__reaper_main()), which forks the command.  It runs on its
 * own stack, in a copy of its parent's memory. */
struct ws__vfork_arg {
	struct ws__child *c;
	int cg_fd;	/* the cgroup to join, or -1 (there already) */
};

#if defined(__x86_64__) || defined(__aarch64__)
/*
 * clone3(2) with fn(arg) run in the child on the stack that args names,
 * as glibc's internal __clone3(): the child cannot return into its
 * parent's frames.  Returns the child's pid, or -errno.
 */
pid_t ws__clone3_fn(struct clone_args *args, size_t size, int (*fn)(void *),
		    void *arg) __attribute__((visibility("hidden")));
#if defined(__x86_64__)
__asm__(".text\n"
	".globl ws__clone3_fn\n"
	".type ws__clone3_fn, @function\n"
	"ws__clone3_fn:\n"
	"	mov %rcx, %r8\n"		/* arg: kept by the syscall */
	"	mov $435, %eax\n"		/* SYS_clone3 */
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jz 1f\n"
	"	ret\n"
	"1:	xor %ebp, %ebp\n"		/* the child: the outermost frame */
	"	and $-16, %rsp\n"
	"	mov %r8, %rdi\n"
	"	call *%rdx\n"			/* fn: kept by the syscall */
	"	mov %rax, %rdi\n"
	"	mov $60, %eax\n"		/* SYS_exit */
	"	syscall\n"
	"	hlt\n"
	".size ws__clone3_fn, .-ws__clone3_fn\n");
#else
__asm__(".text\n"
	".globl ws__clone3_fn\n"
	".type ws__clone3_fn, %function\n"
	"ws__clone3_fn:\n"
	"	mov x10, x2\n"			/* fn and arg: kept by the syscall */
	"	mov x11, x3\n"
	"	mov x8, #435\n"		/* SYS_clone3 */
	"	svc #0\n"
	"	cbz x0, 1f\n"
	"	ret\n"
	"1:	mov x29, #0\n"			/* the child: the outermost frame */
	"	mov x30, #0\n"
	"	mov x0, x11\n"
	"	blr x10\n"
	"	mov x8, #93\n"			/* SYS_exit */
	"	svc #0\n"
	".size ws__clone3_fn, .-ws__clone3_fn\n");
#endif
#define WS__HAVE_CLONE3_FN 1
#else
#define WS__HAVE_CLONE3_FN 0
#endif

/* ---- The reaper (no PID namespace) ----------------------------------- */

/*
 * In the reaper: stop every process below it, as found, until a walk
 * finds none new, then kill them all and reap them (see
 * ws__kill_orphaned_tree(): killed as found, a process's children would
 * move before they were read).  The reaper is a subreaper: whatever is
 * orphaned below it, a double fork's child that called setsid() among
 * them, comes back to it, never to the host's init.  No malloc() (see
 * ws__stop_children()): the list is on the stack, and a list that
 * filled up is walked again once the first part is dead.
 */
static void
ws__reaper_kill_below(void)
{
	enum { CAP = 4096 };
	pid_t v[CAP];

	for (int pass = 0; pass < 64; pass++) {
		size_t n = 1;
		bool grew = true, full = false;

		v[0] = getpid();
		for (int round = 0; grew && !full && round < 1000; round++) {
			grew = false;
			for (size_t i = 0; i < n && !full; i++)
				full = !ws__stop_children(v[i], v, &n, CAP, &grew);
		}
		for (size_t i = 1; i < n; i++)
			kill(v[i], SIGKILL);
		if (!full) {
			/* Each one killed dies, and is its own or comes back
			 * to it: wait for them all. */
			while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
				;
			return;
		}
		while (waitpid(-1, NULL, __WALL | WNOHANG) > 0)
			;
	}
}

/*
 * Without a PID namespace, the command's parent: wsrun's child, a
 * subreaper in a session of its own, that forks the command, waits for
 * it, kills what it left (ws__reaper_kill_below()) and ends as it did
 * (its exit status, or its signal), so that wsrun's wait and its
 * process-group kill read it as the command's own.  When wsrun dies
 * its PR_SET_PDEATHSIG (WS__REAPER_DEATHSIG, taken) has it kill the
 * whole tree before it ends: the command's first process no longer dies
 * with wsrun and orphans its children, nor do the ones that left its
 * tree (a double fork) go to the host's init; they are the reaper's.
 * The guardian still kills the tree below the reaper (a backstop, and
 * the reaper's own end).  Only a command that kills its reaper first
 * and wsrun next gets past it: a cgroup holds that one, where there is
 * one.
 */
static void __attribute__((noreturn)) ws__reaper_wait(pid_t cmd, pid_t parent);

static void __attribute__((noreturn))
ws__reaper_main(struct ws__child *c)
{
	sigset_t set;
	pid_t cmd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, WS__REAPER_DEATHSIG);
	sigprocmask(SIG_BLOCK, &set, NULL);
	setsid();
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	prctl(PR_SET_PDEATHSIG, WS__REAPER_DEATHSIG);
	if (getppid() != c->parent)
		_exit(WS_RUN_EXIT_FAILED); /* wsrun died before the prctl */
	cmd = vfork();
	if (cmd < 0) {
		ws__report(c->rep_w, WS__STAGE_SETUP, errno, "fork");
		_exit(WS_RUN_EXIT_FAILED);
	}
	if (cmd == 0)
		ws__exec_child(c);
	/* No pipe's end of the command's stays open here. */
	(void)syscall(SYS_close_range, 0, ~0U, 0);
	ws__reaper_wait(cmd, c->parent);
}

/* The reaper's wait (out of ws__reaper_main(): its locals would be
 * clobbered by the vfork). */
static void __attribute__((noreturn))
ws__reaper_wait(pid_t cmd, pid_t parent)
{
	sigset_t set;
	siginfo_t si;
	pid_t w;
	int st = 0, wst, sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, WS__REAPER_DEATHSIG);
	for (;;) {
		w = waitpid(-1, &wst, __WALL | WNOHANG);
		if (w == cmd) {
			st = wst;
			break;
		}
		if (w > 0 || (w < 0 && errno == EINTR))
			continue;
		if (w < 0)
			break;
		memset(&si, 0, sizeof(si));
		sig = sigwaitinfo(&set, &si);
		if (sig == WS__REAPER_DEATHSIG && getppid() != parent) {
			ws__reaper_kill_below();
			_exit(128 + SIGKILL);
		}
		/* A stopping signal sent to the reaper by another than wsrun
		 * (wsrun's own went to the process group and the tree as
		 * well: a second copy would run a shell's trap twice) is the
		 * command's, as a namespace init forwards it
		 * (ws__init_wait()). */
		if ((sig == SIGTERM || sig == SIGINT || sig == SIGHUP) &&
		    si.si_pid != parent)
			(void)ws__signal_tree(getpid(), sig);
	}
	ws__reaper_kill_below();
	if (WIFSIGNALED(st)) {
		struct rlimit none = {0, 0};

		sig = WTERMSIG(st);
		setrlimit(RLIMIT_CORE, &none);
		signal(sig, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		kill(getpid(), sig);
		_exit(128 + sig);
	}
	_exit(WEXITSTATUS(st));
}

static int
ws__direct_child(void *arg)
{
	struct ws__vfork_arg *a = arg;

	/* The cgroup's descriptor, when it joins by the write, too. */
	ws__close_except(a->c->keep, a->c->nkeep);
	if (a->cg_fd >= 0) {
		int fd = openat(a->cg_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);

		/* "0" moves the writer; failing that, the walk still works. */
		if (fd >= 0) {
			if (write(fd, "0", 1) < 0) {
				/* reported as the cgroup not holding the tree */
			}
			close(fd);
		}
	}
	if (a->c->reaper)
		ws__reaper_main(a->c);
	ws__exec_child(a->c);
}

/*
 * Start the direct child, the reaper (ws__reaper_main(), a copy of this
 * memory), on a stack of its own.  (Without the reaper it was the command,
 * started like vfork(2): no copy, wsrun waiting until it had exec'd.)
 */
/*
 * The child is born in the cgroup (clone3's CLONE_INTO_CGROUP, Linux 5.7)
 * rather than moved there by a write to cgroup.procs: that write takes
 * the cgroup threadgroup lock for writing, which waits for an RCU grace
 * period (measured: 8 to 14 ms a call on a loaded machine).  The write
 * stays for a kernel without it.
 */
static pid_t
ws__spawn_direct(struct ws__child *c, int cg_fd, int *pidfd)
{
	struct ws__vfork_arg a = {c, cg_fd};
	/*
	 * The reaper (ws__reaper_main()) never execs: a copy of this
	 * memory, and no waiting for it.  Without it, the command itself.
	 */
	unsigned long share = c->reaper ? 0 : CLONE_VM | CLONE_VFORK;
	size_t sz = 256 * 1024;
	void *stk;
	pid_t pid = -1;

#ifdef WS__ASAN
	/*
	 * AddressSanitizer cannot follow a copy of this process onto a stack
	 * of its own that runs for long (its no-return handler took the
	 * whole main stack's range for this one, and faulted writing its
	 * shadow): the sanitized build starts the reaper by fork(), joining
	 * the cgroup by the write.
	 */
	if (c->reaper) {
		a.cg_fd = cg_fd;
		pid = fork();
		if (pid == 0) {
			ws__direct_child(&a);
			_exit(WS_RUN_EXIT_FAILED);
		}
		if (pid > 0 && (*pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			pid = -1;
		}
		return pid;
	}
#endif
	stk = mmap(NULL, sz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stk == MAP_FAILED)
		return -1;
#if WS__HAVE_CLONE3_FN
	if (cg_fd >= 0) {
		struct clone_args ca;

		memset(&ca, 0, sizeof(ca));
		ca.flags = share | CLONE_PIDFD | CLONE_INTO_CGROUP;
		ca.pidfd = (uint64_t)(uintptr_t)pidfd;
		ca.exit_signal = SIGCHLD;
		ca.stack = (uint64_t)(uintptr_t)stk;
		ca.stack_size = sz;
		ca.cgroup = (uint64_t)cg_fd;
		a.cg_fd = -1;
		pid = ws__clone3_fn(&ca, sizeof(ca), ws__direct_child, &a);
		if (pid < 0) {
			/* No clone3 or no CLONE_INTO_CGROUP: join by the write. */
			a.cg_fd = cg_fd;
			pid = -1;
		}
	}
#endif
	if (pid < 0)
		pid = clone(ws__direct_child, (char *)stk + sz,
			    (int)share | CLONE_PIDFD | SIGCHLD, &a, pidfd);
	munmap(stk, sz);
	return pid;
}

/* ---- Inits made ahead of the call (ws_run_ahead_start()) ------------- */

/*
 * A namespace init cloned before its call comes: new PID, mount and
 * network namespaces, in this memory and sharing the descriptor table
 * (CLONE_VM | CLONE_FILES), blocked on a pipe.  The call writes the
 * address of its ws__child there; the init then takes a private copy of
 * the descriptor table (unshare(CLONE_FILES): the call's pipes and the
 * plan's descriptors are in it, as in a copy made by a clone at that
 * moment) and goes on as an init cloned by the call would.  Each is used
 * by one call and dies with its command: nothing of a namespace is ever
 * shared between calls, and the kernel's cost of making them (the
 * network namespace alone is ~0.5 ms) is paid between calls.
 *
 * It also builds, before its call, the part of the minimal root that no
 * call and no workspace changes (ws_sandbox_mount_base(), then
 * ws_sandbox_mount_system(): the system's directories and device nodes,
 * /etc's secrets and the built-in blocked programs masked; about 0.6 ms
 * of a call's root, measured).  What depends on the call or on the
 * workspace as it is when the call starts stays the call's: the
 * workspace's entries (read at the call), the policy's masks (its walk
 * at the call), the guards, the working directory, the trees, the
 * rules.  What it built depends only on the plan's view, /tmp size and
 * mask_blocked (struct ws__base): a call whose plan wants another takes
 * none (the thread makes the next one for it), so a policy swapped
 * between calls is in force in the next one.
 */
/*
 * The part of the minimal root an init made ahead builds before its call
 * (ws_sandbox_mount_base()): for calls of this view and /tmp size only;
 * with sys, the system's part too (ws_sandbox_mount_system(), for calls
 * of this mask_blocked), which sys_done says was made (a host with a
 * nosymfollow mount declines it: the call then binds them itself).
 */
struct ws__base {
	bool on;
	bool virt;
	long long tmp_size;
	bool sys;
	bool blocked;
	bool sys_done;
};

struct ws__zygote {
	pid_t pid;		/* 0: none */
	int pidfd;
	int go[2];		/* the call writes its ws__child pointer in go[1] */
	void *stack;
	size_t stack_sz;
	unsigned long flags;	/* its namespaces (CLONE_NEW*) */
	struct ws__base base;	/* what of the minimal root it made */
};

/* An init whose command has ended: reaped by the thread, stack unmapped. */
struct ws__dead {
	pid_t pid;
	void *stack;
	size_t stack_sz;
};

#define WS__AHEAD_DEAD 32

struct ws_run_ahead {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thr;
	bool stop;
	/*
	 * An init made here runs on this thread's thread-local block (errno,
	 * lib/sandbox.c's _Thread_local descriptors) until it says "r", as
	 * an init cloned by a call runs on the call's: so one at a time is
	 * between taken and "r", and this thread makes direct system calls
	 * only (no errno), besides the mutex and condition variable.
	 */
	bool busy;
	/*
	 * The next init is made when a call has ended (ws__ahead_done()),
	 * between calls, where it takes no CPU and no lock from one: made
	 * at the take, it was born on the CPU that then made its namespaces
	 * and woke there late, and its making took the mount namespace lock
	 * from the taken init's setup (half the takes 0.5 ms slower); made
	 * at the taken init's "r", it slowed that call's command as much on
	 * a busy two-CPU machine (interleaved runs: no gain).  making: one
	 * is being made (with making_flags), or reserved by a call's end;
	 * a call that wants it waits for it, which is never longer than
	 * cloning one itself.
	 */
	bool making;
	unsigned long making_flags;
	unsigned long want;	/* the namespaces calls asked for; 0: none yet */
	struct ws__base want_base;
	unsigned long refused;	/* flags the kernel refused here: not again */
	struct ws__zygote spare;
	struct ws__dead dead[WS__AHEAD_DEAD];
	size_t ndead;
};

#if WS__INIT_SHARES_VM && WS__HAVE_CLONE3_FN
/* The one in use in this process, or NULL (then calls clone their init). */
static struct ws_run_ahead *_Atomic ws__ahead;

static bool
ws__base_eq(const struct ws__base *a, const struct ws__base *b)
{
	return a->on == b->on &&
	       (!a->on || (a->virt == b->virt && a->tmp_size == b->tmp_size &&
			   a->sys == b->sys &&
			   (!a->sys || a->blocked == b->blocked)));
}

/* What ws__zygote_main() is given (read before it says it is ready). */
struct ws__zarg {
	int go_r, ready_w;
	int server;		/* a pidfd of this process */
	struct ws__base base;
};

/*
 * The made-ahead init: build the base of the minimal root, say so, wait
 * for the call, then be its init.  The base is built with the libc
 * wrappers, on the thread's thread-local block: meanwhile the thread
 * waits for the word with direct system calls and no taken init sets up
 * (a call waits while one is being made, see ws__ahead_take()).
 */
static int
ws__zygote_main(void *arg)
{
	struct ws__zarg *za = arg;
	int go_r = za->go_r;
	struct ws__child *c = NULL;
	char msg[200];
	long n;
	int sys = 0;

	/*
	 * It dies with this process even while it waits (the descriptor
	 * table it shares holds its pipe open: no end of file would come);
	 * the parent is the thread, which ends only after killing it.  A
	 * process that died before the prctl says so on its pidfd (in a PID
	 * namespace of its own, getppid() says 0 whatever happened).
	 */
	{
		struct pollfd pf = {.fd = za->server, .events = POLLIN};
		struct timespec now = {0, 0};

		if (ws__sys4(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0) < 0 ||
		    ws__sys4(SYS_ppoll, (long)&pf, 1, (long)&now, 0) != 0)
			for (;;)
				ws__sys4(SYS_exit_group, WS_RUN_EXIT_FAILED, 0, 0, 0);
	}
	if (za->base.on &&
	    (ws_sandbox_mount_base(true, za->base.virt, za->base.tmp_size,
				   WS__PRIV_IN_ROOT, msg, sizeof(msg)) < 0 ||
	     (za->base.sys &&
	      (sys = ws_sandbox_mount_system(za->base.blocked, msg,
					     sizeof(msg))) < 0)))
		for (;;)
			ws__sys4(SYS_exit_group, WS_RUN_EXIT_FAILED, 0, 0, 0);
	/* "s": the system's part is made too. */
	if (ws__sys4(SYS_write, za->ready_w, (long)(sys > 0 ? "s" : "b"), 1, 0) != 1)
		for (;;)
			ws__sys4(SYS_exit_group, WS_RUN_EXIT_FAILED, 0, 0, 0);
	do
		n = ws__sys4(SYS_read, go_r, (long)&c, sizeof(c), 0);
	while (n == -EINTR);
	if (n != (long)sizeof(c) || c == NULL ||
	    ws__sys4(SYS_unshare, CLONE_FILES, 0, 0, 0) < 0)
		for (;;)
			ws__sys4(SYS_exit_group, WS_RUN_EXIT_FAILED, 0, 0, 0);
	return ws__init_entry(c);
}

static void ws__zygote_end(struct ws__zygote *z);

/* Make one (on this thread: direct system calls only).  0 or -errno. */
static int
ws__zygote_make(unsigned long flags, const struct ws__base *base,
		struct ws__zygote *z)
{
	size_t sz = 1024 * 1024, guard = 4096;
	struct clone_args ca;
	struct ws__zarg za;
	int ready[2] = {-1, -1};
	long stk, rc;

	memset(z, 0, sizeof(*z));
	z->go[0] = z->go[1] = -1;
	if ((rc = ws__sys4(SYS_pipe2, (long)ready, O_CLOEXEC, 0, 0)) < 0)
		return (int)rc;
	if ((rc = ws__sys4(SYS_pipe2, (long)z->go, O_CLOEXEC, 0, 0)) < 0) {
		ws__sys4(SYS_close, ready[0], 0, 0, 0);
		ws__sys4(SYS_close, ready[1], 0, 0, 0);
		return (int)rc;
	}
	stk = ws__sys6(SYS_mmap, 0, (long)(sz + guard), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
	if (stk < 0 && stk > -4096) {
		rc = stk;
		goto fail;
	}
	/* A stack overflow faults rather than writing over this memory. */
	if ((rc = ws__sys4(SYS_mprotect, stk, (long)guard, PROT_NONE, 0)) < 0) {
		ws__sys4(SYS_munmap, stk, (long)(sz + guard), 0, 0);
		goto fail;
	}
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_VM | CLONE_FILES | CLONE_PIDFD | flags;
	ca.pidfd = (uint64_t)(uintptr_t)&z->pidfd;
	ca.exit_signal = SIGCHLD;
	ca.stack = (uint64_t)stk;
	ca.stack_size = sz + guard;
	za.go_r = z->go[0];
	za.ready_w = ready[1];
	za.server = (int)ws__sys4(SYS_pidfd_open, ws__sys4(SYS_getpid, 0, 0, 0, 0),
				  0, 0, 0);
	if (za.server < 0) {
		rc = za.server;
		ws__sys4(SYS_munmap, stk, (long)(sz + guard), 0, 0);
		goto fail;
	}
	za.base = *base;
	rc = ws__clone3_fn(&ca, sizeof(ca), ws__zygote_main, &za);
	if (rc < 0) {
		ws__sys4(SYS_close, za.server, 0, 0, 0);
		ws__sys4(SYS_munmap, stk, (long)(sz + guard), 0, 0);
		goto fail;
	}
	z->pid = (pid_t)rc;
	z->stack = (void *)stk;
	z->stack_sz = sz + guard;
	z->flags = flags;
	z->base = *base;
	/* Its word that the base is built (za is read by then), or its end. */
	{
		struct pollfd pf[2] = {{.fd = ready[0], .events = POLLIN},
				       {.fd = z->pidfd, .events = POLLIN}};
		/* Bounded: a call may be waiting for it. */
		struct timespec limit = {2, 0};
		char b = 0;

		do
			rc = ws__sys4(SYS_ppoll, (long)pf, 2, (long)&limit, 0);
		while (rc == -EINTR);
		if (rc > 0 && pf[0].revents)
			rc = ws__sys4(SYS_read, ready[0], (long)&b, 1, 0);
		ws__sys4(SYS_close, za.server, 0, 0, 0);
		z->base.sys_done = b == 's';
		if (b != 'b' && b != 's') {
			/* Its pipes and stack go with it. */
			ws__zygote_end(z);
			z->go[0] = z->go[1] = -1;
			ws__sys4(SYS_close, ready[0], 0, 0, 0);
			ws__sys4(SYS_close, ready[1], 0, 0, 0);
			return -EIO;
		}
	}
	ws__sys4(SYS_close, ready[0], 0, 0, 0);
	ws__sys4(SYS_close, ready[1], 0, 0, 0);
	return 0;
fail:
	ws__sys4(SYS_close, ready[0], 0, 0, 0);
	ws__sys4(SYS_close, ready[1], 0, 0, 0);
	ws__sys4(SYS_close, z->go[0], 0, 0, 0);
	ws__sys4(SYS_close, z->go[1], 0, 0, 0);
	z->go[0] = z->go[1] = -1;
	return (int)rc;
}

/* Kill an unused one (or reap a dead init) and free what it held. */
static void
ws__zygote_end(struct ws__zygote *z)
{
	if (z->pid <= 0)
		return;
	ws__sys4(SYS_pidfd_send_signal, z->pidfd, SIGKILL, 0, 0);
	while (ws__sys4(SYS_wait4, z->pid, 0, 0, 0) == -EINTR)
		;
	ws__sys4(SYS_close, z->pidfd, 0, 0, 0);
	ws__sys4(SYS_close, z->go[0], 0, 0, 0);
	ws__sys4(SYS_close, z->go[1], 0, 0, 0);
	ws__sys4(SYS_munmap, (long)z->stack, (long)z->stack_sz, 0, 0);
	z->pid = 0;
}

static void *
ws__ahead_thread(void *arg)
{
	struct ws_run_ahead *a = arg;
	/* The mask the inits made here start with (ws__init_main()). */
	unsigned long set = 1UL << (SIGTERM - 1) | 1UL << (SIGINT - 1) |
			    1UL << (SIGHUP - 1);

	ws__sys4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&set, 0, sizeof(set));
	pthread_mutex_lock(&a->mu);
	for (;;) {
		struct ws__dead d[WS__AHEAD_DEAD];
		struct ws__zygote old = {.pid = 0}, z;
		struct ws__base want_base;
		size_t nd;
		unsigned long want;
		bool make;
		int rc;

		if (a->stop && a->spare.pid == 0 && a->ndead == 0 && !a->busy)
			break;
		/*
		 * Reserved by a call's end (ws__ahead_done()), and made once
		 * no taken init sets up: both run on this thread's
		 * thread-local block (errno, lib/sandbox.c's descriptors of
		 * the new root), and one call's end may come while another
		 * call's init builds its root.  The taken one settles soon
		 * (its "r"), and wakes this thread.
		 */
		make = !a->stop && a->spare.pid == 0 && a->want != 0 && a->making &&
		       !a->busy;
		if (a->spare.pid > 0 && (a->stop || a->spare.flags != a->want ||
					 !ws__base_eq(&a->spare.base, &a->want_base))) {
			old = a->spare;
			a->spare.pid = 0;
		}
		if (!make && old.pid == 0 && a->ndead == 0) {
			pthread_cond_wait(&a->cv, &a->mu);
			continue;
		}
		nd = a->ndead;
		memcpy(d, a->dead, nd * sizeof(d[0]));
		a->ndead = 0;
		want = a->want;
		want_base = a->want_base;
		if (make) {
			a->making = true;
			a->making_flags = want;
		}
		pthread_mutex_unlock(&a->mu);
		/*
		 * The next call's init first: a call may be waiting for it.
		 * Reaping waits for the namespaces' teardown (an RCU grace
		 * period: up to milliseconds on a busy machine), so it comes
		 * after.
		 */
		if (make) {
			rc = ws__zygote_make(want, &want_base, &z);
			pthread_mutex_lock(&a->mu);
			a->making = false;
			pthread_cond_broadcast(&a->cv);
			if (rc == 0) {
				a->spare = z;
			} else {
				/* Not here (a user namespace's rules, a limit):
				 * calls clone their own, as without this thread. */
				a->refused = want;
				if (a->want == want)
					a->want = 0;
			}
			pthread_mutex_unlock(&a->mu);
		}
		/* The ended inits are gone or going: wait, then free. */
		for (size_t i = 0; i < nd; i++) {
			while (ws__sys4(SYS_wait4, d[i].pid, 0, 0, 0) == -EINTR)
				;
			ws__sys4(SYS_munmap, (long)d[i].stack, (long)d[i].stack_sz, 0, 0);
		}
		ws__zygote_end(&old);
		pthread_mutex_lock(&a->mu);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

struct ws_run_ahead *
ws_run_ahead_start(void)
{
	struct ws_run_ahead *a, *none = NULL;
	const char *e = getenv("WS_RUN_AHEAD");

	/* Only where init may share this memory (see ws__spawn_init()). */
	if (!ws__environ_detached || (e != NULL && strcmp(e, "0") == 0) ||
	    (a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	/*
	 * An init made ahead keeps the limits of the moment it is cloned:
	 * the soft descriptor limit raised first, as a call's walks raise
	 * it (ws__nofile_raise()), or one whose policy binds more files
	 * than the old limit could not bind them.
	 */
	ws__nofile_raise();
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	if (pthread_create(&a->thr, NULL, ws__ahead_thread, a) != 0) {
		pthread_mutex_destroy(&a->mu);
		pthread_cond_destroy(&a->cv);
		free(a);
		return NULL;
	}
	/* One per process: a second caller runs without. */
	if (!atomic_compare_exchange_strong(&ws__ahead, &none, a)) {
		ws_run_ahead_stop(a);
		return NULL;
	}
	return a;
}

void
ws_run_ahead_stop(struct ws_run_ahead *a)
{
	struct ws_run_ahead *me = a;

	if (a == NULL)
		return;
	atomic_compare_exchange_strong(&ws__ahead, &me, NULL);
	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thr, NULL);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	free(a);
}

/*
 * Take the init made ahead for a call wanting these namespaces, if one
 * is ready and none other is setting up; the thread then makes the next.
 * Asking also tells the thread what to make.
 */
static bool
ws__ahead_take(unsigned long flags, const struct ws__base *base,
	       struct ws__zygote *z)
{
	struct ws_run_ahead *a = atomic_load(&ws__ahead);
	bool got = false;

	if (a == NULL)
		return false;
	pthread_mutex_lock(&a->mu);
	if (flags != a->refused) {
		a->want = flags;
		a->want_base = *base;
	}
	while (a->making && a->making_flags == flags && !a->stop)
		pthread_cond_wait(&a->cv, &a->mu);
	if (!a->busy && !a->stop && a->spare.pid > 0 && a->spare.flags == flags &&
	    ws__base_eq(&a->spare.base, base)) {
		*z = a->spare;
		a->spare.pid = 0;
		a->busy = true;
		got = true;
	}
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	return got;
}

/* The taken init said "r" (or is gone): it no longer uses the thread's
 * thread-local block.  Its pipe is closed. */
static void
ws__ahead_settled(struct ws__zygote *z)
{
	struct ws_run_ahead *a = atomic_load(&ws__ahead);

	close(z->go[0]);
	close(z->go[1]);
	z->go[0] = z->go[1] = -1;
	if (a == NULL)
		return;
	pthread_mutex_lock(&a->mu);
	a->busy = false;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

/* A call that asked ws__ahead_take() has ended: the next init is made. */
static void
ws__ahead_done(void)
{
	struct ws_run_ahead *a = atomic_load(&ws__ahead);

	if (a == NULL)
		return;
	pthread_mutex_lock(&a->mu);
	/* From now: a call coming before the thread wakes waits for it
	 * rather than clone its own. */
	if (!a->stop && a->spare.pid == 0 && a->want != 0 && !a->making) {
		a->making = true;
		a->making_flags = a->want;
	}
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

/*
 * Leave an ended init (its status is in: every process of the command is
 * gone) to the thread, which waits for the namespaces' teardown and
 * unmaps its stack.  false: do it here.
 */
static bool
ws__ahead_reap(pid_t pid, void *stack, size_t stack_sz)
{
	struct ws_run_ahead *a = atomic_load(&ws__ahead);
	bool ok = false;

	if (a == NULL)
		return false;
	pthread_mutex_lock(&a->mu);
	if (!a->stop && a->ndead < WS__AHEAD_DEAD) {
		a->dead[a->ndead++] = (struct ws__dead){pid, stack, stack_sz};
		pthread_cond_signal(&a->cv);
		ok = true;
	}
	pthread_mutex_unlock(&a->mu);
	return ok;
}
#else
struct ws_run_ahead *
ws_run_ahead_start(void)
{
	return NULL;
}

void
ws_run_ahead_stop(struct ws_run_ahead *a)
{
	(void)a;
}

static bool
ws__ahead_take(unsigned long flags, const struct ws__base *base,
	       struct ws__zygote *z)
{
	(void)flags;
	(void)base;
	(void)z;
	return false;
}

static void
ws__ahead_settled(struct ws__zygote *z)
{
	(void)z;
}

static void
ws__ahead_done(void)
{
}

static bool
ws__ahead_reap(pid_t pid, void *stack, size_t stack_sz)
{
	(void)pid;
	(void)stack;
	(void)stack_sz;
	return false;
}
#endif

/* Make a cgroup v2 child for the command; fills p->cg_fd and cg_path. */
static void
ws__cg_make(struct ws__proc *p, struct ws_isolation *iso)
{
	/* Atomic: two calls of one server (wstools mcp) never share a name. */
	static atomic_uint seq;
	char *dir = ws__sandbox_cgroup_dir();
	char path[4352];

	p->cg_fd = -1;
	if (dir == NULL) {
		snprintf(iso->layer[WS_LAYER_CGROUP].why,
			 sizeof(iso->layer[WS_LAYER_CGROUP].why),
			 "no cgroup v2 with cgroup.kill");
		return;
	}
	snprintf(path, sizeof(path), "%s/wsrun-%d-%u", dir, (int)getpid(),
		 atomic_fetch_add(&seq, 1));
	free(dir);
	if (mkdir(path, 0755) < 0) {
		snprintf(iso->layer[WS_LAYER_CGROUP].why,
			 sizeof(iso->layer[WS_LAYER_CGROUP].why), "mkdir: %s",
			 strerror(errno));
		return;
	}
	p->cg_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->cg_fd < 0) {
		rmdir(path);
		return;
	}
	p->cg_path = strdup(path);
}

static void
ws__cg_remove(struct ws__proc *p)
{
	if (p->cg_fd >= 0)
		close(p->cg_fd);
	if (p->cg_path) {
		/* Its processes may take a moment to leave after the kill. */
		for (int i = 0; i < 100 && rmdir(p->cg_path) < 0 && errno == EBUSY; i++)
			usleep(1000);
		free(p->cg_path);
	}
	p->cg_fd = -1;
	p->cg_path = NULL;
}

/* Decide the layers of this call from the probe, the mode and --net. */
static int
ws__plan_layers(const struct ws_run_opts *o, struct ws_isolation *iso,
		struct ws_sandbox_plan *plan)
{
	struct ws_layer_state *L = iso->layer;
	bool none = o->isolate == WS_ISOLATE_NONE;

	iso->mode = o->isolate;
	iso->net_allowed = o->net;
	for (int l = 0; l < WS__LAYER_COUNT; l++) {
		/* Process control is not confinement: none keeps it. */
		bool keep = l == WS_LAYER_PIDNS || l == WS_LAYER_CGROUP;

		L[l].planned = (!none || keep) && L[l].available;
		if (none && !keep && L[l].available)
			snprintf(L[l].why, sizeof(L[l].why), "--isolate none");
	}
	/* Without a namespace of its own, the tree is killed via cgroup. */
	L[WS_LAYER_CGROUP].planned = L[WS_LAYER_CGROUP].planned &&
				     !L[WS_LAYER_PIDNS].planned;
	if (L[WS_LAYER_CGROUP].available && L[WS_LAYER_PIDNS].planned)
		snprintf(L[WS_LAYER_CGROUP].why, sizeof(L[WS_LAYER_CGROUP].why),
			 "not needed: the PID namespace holds the tree");
	if (o->net) {
		L[WS_LAYER_NETNS].planned = false;
		if (L[WS_LAYER_NETNS].available)
			snprintf(L[WS_LAYER_NETNS].why, sizeof(L[WS_LAYER_NETNS].why),
				 "--net: the host network is used");
	}
	plan->landlock_abi = L[WS_LAYER_LANDLOCK].planned ? iso->landlock_abi : 0;
	plan->seccomp = L[WS_LAYER_SECCOMP].planned;
	plan->caps = L[WS_LAYER_CAPS].planned;
	plan->mountns = L[WS_LAYER_MOUNTNS].planned;
	plan->netns = L[WS_LAYER_NETNS].planned;
	plan->net = o->net;
	plan->use_proc = plan->mountns;
	/*
	 * A host process's UNIX socket inside the workspace (or a mount) is
	 * in the command's view whatever the namespaces, and Landlock before
	 * ABI 9 (LANDLOCK_ACCESS_FS_RESOLVE_UNIX) has no rule for connecting
	 * to a socket by its path.  auto leaves it reachable (wsrun(1) says
	 * so); strict refuses connect() as it is refused without a mount
	 * namespace, the command's own sockets included (socketpair stays).
	 */
	plan->deny_unix_connect = !plan->mountns || o->isolate == WS_ISOLATE_STRICT;
	if (none)
		return 0;
	/* The baseline of auto: Landlock filesystem rules and no network. */
	if (!L[WS_LAYER_LANDLOCK].planned) {
		ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
			     "Landlock is not available (%s); use --isolate "
			     "none to run unconfined", L[WS_LAYER_LANDLOCK].why);
		/* What none means, before one reaches for it (ftu12 18). */
		return ws_error_set_hint("--isolate none runs the command with "
					 "your own rights on every file; to keep "
					 "the boundary, enable Landlock (Linux 5.13 "
					 "or later, \"landlock\" in the lsm= boot "
					 "list: see /sys/kernel/security/lsm)");
	}
	if (!o->net && !plan->seccomp && !plan->netns)
		return ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
				    "the network cannot be turned off (no seccomp, "
				    "no network namespace); use --net or --isolate none");
	if (o->isolate == WS_ISOLATE_STRICT)
		for (int l = 0; l < WS__LAYER_COUNT; l++) {
			if (l == WS_LAYER_CGROUP || (l == WS_LAYER_NETNS && o->net))
				continue;
			if (!L[l].planned)
				return ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
						    "--isolate strict: %s is not "
						    "available (%s)", ws_layer_name(l),
						    L[l].why);
		}
	return 0;
}

int
ws_run_auto_verdict(const struct ws_isolation *probe, char *buf, size_t len)
{
	struct ws_isolation iso = *probe;
	struct ws_run_opts o;
	struct ws_sandbox_plan plan;
	size_t n = 0;

	memset(&o, 0, sizeof(o));
	memset(&plan, 0, sizeof(plan));
	o.isolate = WS_ISOLATE_AUTO;
	if (ws__plan_layers(&o, &iso, &plan) < 0) {
		snprintf(buf, len, "%s", ws_error_last());
		return 0;
	}
	buf[0] = '\0';
	for (int l = 0; l < WS__LAYER_COUNT && n < len; l++)
		if (iso.layer[l].planned)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      ws_layer_name((enum ws_layer)l));
	return 1;
}

static void
ws__iso_finish(struct ws_isolation *iso, const struct ws_sandbox_plan *plan,
	       bool ran)
{
	struct ws_layer_state *L = iso->layer;
	char *h = iso->net_how;

	for (int l = 0; l < WS__LAYER_COUNT; l++)
		L[l].enforced = ran && L[l].planned;
	h[0] = '\0';
	if (!iso->net_allowed && ran) {
		if (L[WS_LAYER_SECCOMP].enforced)
			strcat(h, "seccomp");
		if (L[WS_LAYER_NETNS].enforced)
			strcat(strcat(h, *h ? "+" : ""), "netns");
		if (L[WS_LAYER_LANDLOCK].enforced && iso->landlock_abi >= 4)
			strcat(strcat(h, *h ? "+" : ""), "landlock");
	}
	iso->net_enforced = *h != '\0';
	iso->unix_how[0] = '\0';
	if (ran && !iso->net_allowed) {
		if (L[WS_LAYER_MOUNTNS].enforced)
			strcat(iso->unix_how, "mountns");
		if (L[WS_LAYER_SECCOMP].enforced && plan->deny_unix_connect)
			strcat(strcat(iso->unix_how, *iso->unix_how ? "+" : ""),
			       "seccomp (connect and datagram sockets denied)");
	}
	iso->unix_outside_blocked = iso->unix_how[0] != '\0';
	iso->unix_inside_blocked = ran && !iso->net_allowed &&
				   L[WS_LAYER_SECCOMP].enforced && plan->deny_unix_connect;
	/*
	 * The private /tmp is bounded only as the minimal root's tmpfs;
	 * without a mount namespace HOME and TMPDIR are a directory of the
	 * host's, which nothing of wsrun's bounds (--max-file-size bounds
	 * each file, not the sum).
	 */
	iso->tmp_size = 0;
	iso->tmp_how[0] = '\0';
	if (ran && L[WS_LAYER_MOUNTNS].enforced) {
		iso->tmp_size = plan->tmp_size;
		snprintf(iso->tmp_how, sizeof(iso->tmp_how),
			 "tmpfs of the minimal root, HOME and TMPDIR in it");
	} else if (ran && plan->priv_real != NULL) {
		snprintf(iso->tmp_how, sizeof(iso->tmp_how),
			 "no mount namespace: HOME and TMPDIR are a directory "
			 "of the host's %s, not bounded", ws__priv_base());
	}
	if (ran && L[WS_LAYER_LANDLOCK].enforced)
		snprintf(L[WS_LAYER_LANDLOCK].why, sizeof(L[WS_LAYER_LANDLOCK].why),
			 "ABI %d", iso->landlock_abi);
	if (ran && L[WS_LAYER_GUARDS].enforced)
		snprintf(L[WS_LAYER_GUARDS].why, sizeof(L[WS_LAYER_GUARDS].why),
			 "%zu existing guarded entr%s bound read-only",
			 plan->nguards, plan->nguards == 1 ? "y" : "ies");
	if (ran && L[WS_LAYER_MOUNTNS].enforced)
		snprintf(L[WS_LAYER_MOUNTNS].why, sizeof(L[WS_LAYER_MOUNTNS].why),
			 "%s: system dirs read-only, fresh /proc, private /tmp, "
			 "/etc secrets masked", plan->virt ?
			 "virtual view (the workspace at /)" : "minimal root");
}

/* --map-paths: virtual absolute arguments become real paths. */
static int
ws__map_args(struct ws_ctx *ws, const struct ws_run_opts *o, bool map,
	     char ***out)
{
	char **v = calloc(o->argc + 1, sizeof(char *));

	if (v == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; i < o->argc; i++) {
		struct ws_res res = {.fd = -1, .dirfd = -1};
		const char *a = o->argv[i];

		if (i > 0 && map && a[0] == '/' &&
		    ws_resolve(ws, a, WS_R_MISSING_OK | WS_R_NOFOLLOW, &res) == 0 &&
		    strcmp(res.form, "absolute-inside") != 0)
			v[i] = strdup(res.real);
		else
			v[i] = strdup(a);
		ws_res_free(&res);
		if (v[i] == NULL) {
			*out = v;
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
	}
	ws_error_clear();
	*out = v;
	return 0;
}

static void
ws__free_argv(char **v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

/* The shell form: /bin/sh -c STRING [ARG...]. */
static int
ws__shell_argv(const struct ws_run_opts *o, char ***out)
{
	char **v = calloc(o->argc + 4, sizeof(char *));
	size_t n = 0;

	if (v == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	v[n++] = strdup("/bin/sh");
	v[n++] = strdup("-c");
	v[n++] = strdup(o->shell);
	for (size_t i = 0; i < o->argc; i++)
		v[n++] = strdup(o->argv[i]);
	*out = v;
	for (size_t i = 0; i < n; i++)
		if (v[i] == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

static void
ws__close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * The turns of this process's commands at one workspace (ws__ws_lock()):
 * the flock alone, polled by each waiting worker, is taken by whichever
 * polls first once it is free, so a call queued first could lose every
 * race and time out while later ones ran (review21 05).  Here the
 * waiters of one process line up, in the order the front end received
 * their calls (struct ws_call's order: two workers' set-ups may end in
 * either order), and only the first of the line polls the flock (other
 * processes' commands still meet it there).  One that joins ahead of a
 * first that just took the flock waits on the flock itself: the line
 * orders, the flock excludes.  One line per workspace root (device and
 * inode), made by its first waiter and freed with its last: state of the
 * process on purpose, shared by its calls under ws__turn_mu, and empty
 * whenever no command waits or runs.
 */
struct ws__turn {
	struct ws__turn *next;
	struct ws__turnq *q;
	unsigned long long order; /* struct ws_call's */
};

struct ws__turnq {
	dev_t dev;
	ino_t ino;
	struct ws__turn *head, *tail;
	struct ws__turnq *next;
};

static pthread_mutex_t ws__turn_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ws__turn_cv = PTHREAD_COND_INITIALIZER;
static struct ws__turnq *ws__turnqs;

/* Join the line of the workspace fd is the root of (0, or WS_ENOMEM). */
static int
ws__turn_join(int fd, struct ws__turn *t)
{
	struct ws__turnq *q;
	struct ws__turn **pp;
	struct stat st;

	t->next = NULL;
	t->q = NULL;
	t->order = ws_call_current()->order;
	if (fstat(fd, &st) < 0)
		return 0; /* no line: the flock alone, as before */
	pthread_mutex_lock(&ws__turn_mu);
	for (q = ws__turnqs; q != NULL; q = q->next)
		if (q->dev == st.st_dev && q->ino == st.st_ino)
			break;
	if (q == NULL) {
		if ((q = calloc(1, sizeof(*q))) == NULL) {
			pthread_mutex_unlock(&ws__turn_mu);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		q->dev = st.st_dev;
		q->ino = st.st_ino;
		q->next = ws__turnqs;
		ws__turnqs = q;
	}
	/* Behind every one received before it (or without an order). */
	for (pp = &q->head; *pp != NULL && (t->order == 0 || (*pp)->order == 0 ||
					    (*pp)->order <= t->order);
	     pp = &(*pp)->next)
		;
	t->next = *pp;
	*pp = t;
	if (t->next == NULL)
		q->tail = t;
	t->q = q;
	pthread_mutex_unlock(&ws__turn_mu);
	return 0;
}

/*
 * Wait up to ms for t to be first of its line; true when it is.  The
 * wait is short: the caller checks its cancellation and its timeout and
 * says it still waits between two.
 */
static bool
ws__turn_wait(struct ws__turn *t, long ms)
{
	struct timespec d;
	bool first;

	if (t->q == NULL)
		return true;
	clock_gettime(CLOCK_REALTIME, &d);
	d.tv_nsec += ms * 1000000L;
	d.tv_sec += d.tv_nsec / 1000000000L;
	d.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&ws__turn_mu);
	if (t->q->head != t)
		(void)pthread_cond_timedwait(&ws__turn_cv, &ws__turn_mu, &d);
	first = t->q->head == t;
	pthread_mutex_unlock(&ws__turn_mu);
	return first;
}

/*
 * Leave the line, whether t had its turn (its command is cleaned) or
 * gave up waiting (cancelled, timed out): the next one in it goes on.
 */
static void
ws__turn_leave(struct ws__turn *t)
{
	struct ws__turnq *q = t->q, **qp;
	struct ws__turn **pp;

	if (q == NULL)
		return;
	pthread_mutex_lock(&ws__turn_mu);
	for (pp = &q->head; *pp != NULL && *pp != t; pp = &(*pp)->next)
		;
	if (*pp == t) {
		*pp = t->next;
		if (q->tail == t) {
			q->tail = NULL;
			for (struct ws__turn *u = q->head; u != NULL; u = u->next)
				q->tail = u;
		}
	}
	if (q->head == NULL) {
		for (qp = &ws__turnqs; *qp != NULL && *qp != q; qp = &(*qp)->next)
			;
		if (*qp == q)
			*qp = q->next;
		free(q);
	}
	pthread_cond_broadcast(&ws__turn_cv);
	pthread_mutex_unlock(&ws__turn_mu);
	t->q = NULL;
	t->next = NULL;
}

/*
 * The real directories above a command's workspace top, each held
 * shared by its run (ws__up_lock()): fd[0] is the top's parent, the
 * last is "/"; -1 for one that cannot be opened for reading.
 */
struct ws__up {
	int *fd;
	size_t n;
};

static void
ws__up_unlock(struct ws__up *up)
{
	for (size_t i = 0; i < up->n; i++)
		if (up->fd[i] >= 0) {
			/* A guardian holds the same open files. */
			(void)flock(up->fd[i], LOCK_UN);
			close(up->fd[i]);
		}
	free(up->fd);
	up->fd = NULL;
	up->n = 0;
}

/*
 * Workspaces nest: a server on ~/src and one on ~/src/proj, or a mount
 * of ~/src/proj.  A command in W/proj and one in W must not run at once
 * either (each one's snapshot would take what the other plants for the
 * person's, and its changes could cross the other's clean-up walk;
 * review30 01), and the file tools' changes below W/proj wait for both
 * (ws_ctx_wait_runs(), ws_ctx_hold_dir()).  So a run also holds the
 * lock of each real directory above its top, shared, taken from "/"
 * down before the top's exclusive one: a run in W then waits for the
 * one in W/proj, and the reverse, and since every exclusive holder
 * took its shared ones from the root down, and the file tools take only
 * shared ones, no two wait for each other.  Found by ".." from the
 * top's descriptor; a directory that cannot be opened for reading
 * (another user's 0711 home) is passed over: a run there would be
 * another user's.  Waited for as the top's lock is (the call's timeout,
 * its cancellation; *blocked set when it waited).
 */
static int
ws__up_lock(int top, const struct ws_run_opts *o, long long t0,
	    long long until, struct ws__up *up, bool *blocked)
{
	struct stat st, pst;
	int cur = top, walk = -1, rc = 0;
	size_t cap = 0;

	up->fd = NULL;
	up->n = 0;
	if (fstat(top, &st) < 0)
		return 0;
	for (;;) {
		int fd = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC), w = -1;

		if (fd < 0 && (errno == EACCES || errno == EPERM))
			w = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if ((fd < 0 && w < 0) || fstat(fd >= 0 ? fd : w, &pst) < 0 ||
		    (pst.st_dev == st.st_dev && pst.st_ino == st.st_ino)) {
			/* "/" is its own "..": done. */
			if (fd >= 0)
				close(fd);
			if (w >= 0)
				close(w);
			break;
		}
		if (up->n == cap) {
			int *v = realloc(up->fd, (cap = cap ? 2 * cap : 8) * sizeof(*v));

			if (v == NULL) {
				if (fd >= 0)
					close(fd);
				if (w >= 0)
					close(w);
				rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
				goto out;
			}
			up->fd = v;
		}
		up->fd[up->n++] = fd;
		if (walk >= 0)
			close(walk);
		walk = w;
		cur = fd >= 0 ? fd : w;
		st = pst;
	}
	/* From the root down. */
	for (size_t i = up->n; i-- > 0;) {
		int fd = up->fd[i];

		while (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) < 0) {
			if (errno != EWOULDBLOCK && errno != EINTR) {
				/* No lock to take: as for the top. */
				close(fd);
				up->fd[i] = fd = -1;
				break;
			}
			if ((o->cancel != NULL && *o->cancel) || ws_cancelled() ||
			    (until >= 0 && ws__now_ms() >= until)) {
				rc = ws_error_set(WS_ELIMIT_EXCEEDED, NULL,
						  "a command is running in a workspace "
						  "around this one and did not end within "
						  "this call's timeout (commands in nested "
						  "workspaces run one at a time, so that "
						  "what one leaves in a repository is never "
						  "taken for the user's by another)");
				goto out;
			}
			*blocked = true;
			ws_progress(ws__now_ms() - t0, "ms waiting for another command "
				    "in this workspace to end", false);
			(void)nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
		}
	}
out:
	if (walk >= 0)
		close(walk);
	if (rc < 0)
		ws__up_unlock(up);
	return rc;
}

/*
 * One command at a time in a workspace, as wstools mcp runs its calls:
 * what the snapshots before a command record is kept after it as the
 * user's, so they must be taken while no other call's command runs
 * there, or a hook or a core.fsmonitor the other one planted would be
 * counted as the user's and kept (review 6).  An exclusive lock on the
 * workspace root, held from before the snapshots to after the clean-up,
 * waited for up to the call's own timeout (the command's own timeout
 * starts after it: *waited); a cancellation ends the wait.  The calls
 * of this process wait their turn in line first (struct ws__turn), so
 * they take it in the order they came; ws__ws_unlock() gives it back.
 * A wsrun inside a command (WS_SANDBOX) takes none: the outer call
 * holds it and cleans after both.
 */
static int
ws__ws_lock(struct ws_ctx *ws, const struct ws_run_opts *o, int *out,
	    struct ws__up *up, struct ws__turn *turn, long long *waited,
	    bool *blocked)
{
	long long t0 = ws__now_ms();
	long long until = o->timeout_ms > 0 ? t0 + o->timeout_ms : -1;
	const char *sb = getenv("WS_SANDBOX");
	int fd, rc;

	*out = -1;
	*waited = 0;
	*blocked = false;
	up->fd = NULL;
	up->n = 0;
	turn->q = NULL;
	turn->next = NULL;
	if (sb != NULL && strcmp(sb, "1") == 0)
		return 0;
	fd = openat(ws->anchors[0].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/*
	 * A root that cannot be opened (a command before made it 0311 or
	 * 0600, review28 02) has no lock to take, and the walk before the
	 * command cannot read it either: refused, never run without the
	 * lock.  A read-only root is not walked: nothing to lock, as before.
	 */
	if (fd < 0 && ws->anchors[0].ro)
		return 0;
	if (fd < 0) {
		int err = errno;

		rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, ws->anchors[0].vprefix,
				  "the workspace's top cannot be read (%s): wsrun "
				  "takes its lock there so that commands in it run one "
				  "at a time, and checks it for repositories and .envrc "
				  "files before and after each: refused rather than "
				  "run with it unchecked", strerror(err));
		ws_error_set_hint("give it back its owner's read and search bits "
				  "(chmod u+rx), then run the command again");
		return rc;
	}
	/* The directories above it first (see ws__up_lock()). */
	if ((rc = ws__up_lock(fd, o, t0, until, up, blocked)) < 0) {
		close(fd);
		return rc;
	}
	if ((rc = ws__turn_join(fd, turn)) < 0) {
		ws__up_unlock(up);
		close(fd);
		return rc;
	}
	for (;;) {
		/* Only the first in line tries the flock. */
		if (ws__turn_wait(turn, 20)) {
			if (flock(fd, LOCK_EX | LOCK_NB) == 0)
				break;
			if (errno != EWOULDBLOCK && errno != EINTR) {
				/* No lock to take: run, as before (in turn). */
				close(fd);
				fd = -1;
				break;
			}
		}
		if ((o->cancel != NULL && *o->cancel) || ws_cancelled() ||
		    (until >= 0 && ws__now_ms() >= until)) {
			ws__turn_leave(turn);
			ws__up_unlock(up);
			close(fd);
			return ws_error_set(WS_ELIMIT_EXCEEDED, NULL,
					    "another command is running in this workspace "
					    "and did not end within this call's timeout "
					    "(commands in one workspace run one at a time, "
					    "so that what one leaves in a repository is "
					    "never taken for the user's by another)");
		}
		*blocked = true;
		/*
		 * A client that resets its timeout on progress (the SDK's
		 * resetTimeoutOnProgress) would give up on a call queued
		 * behind a long command: say what it waits for.
		 */
		if (ws_progress_wanted()) {
			long long w = ws__now_ms() - t0;
			char msg[160];

			/* Reads on its own (ftu17 03); the end is the call's
			 * timeout, where there is one. */
			if (o->timeout_ms > 0)
				snprintf(msg, sizeof(msg), "waiting for another "
					 "command in this workspace to end (%lld s "
					 "of at most %lld s)", w / 1000,
					 (long long)o->timeout_ms / 1000);
			else
				snprintf(msg, sizeof(msg), "waiting for another "
					 "command in this workspace to end (%lld s)",
					 w / 1000);
			ws_progress_total(w, o->timeout_ms > 0 ? (long long)o->timeout_ms
						 : 0, msg, false);
		}
		if (turn->q == NULL || ws__turn_wait(turn, 0))
			(void)nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
	}
	*out = fd;
	*waited = ws__now_ms() - t0;
	return 0;
}

/* Give the workspace back: the flocks, then this process's turn. */
static void
ws__ws_unlock(int *fd, struct ws__up *up, struct ws__turn *turn)
{
	/* The guardian holds the same open file: unlock it, not only close. */
	if (*fd >= 0)
		(void)flock(*fd, LOCK_UN);
	ws__close(fd);
	ws__up_unlock(up);
	ws__turn_leave(turn);
}

/*
 * The directories the policy's allow rules grant (ws/grant.h), weighed
 * against the plan's own paths (filled first: a write grant holding one
 * of its read-only descriptors is narrowed to read), into the plan, and
 * into r for isolation.  A granted
 * directory may hold a host service's UNIX socket, which no mount
 * namespace hides then: with any grant and no --net, the seccomp filter
 * denies connect() as it does without a mount namespace, and without
 * seccomp nothing is granted.
 */
static int
ws__policy_grants(struct ws_ctx *ws, struct ws_sandbox_plan *plan,
		  const struct ws_run_opts *o, struct ws_run_result *r)
{
	int rc;

	if (ws->policy == NULL)
		return 0;
	if ((rc = ws_policy_grants(ws->policy, &r->grants, &r->ngrants)) < 0)
		return rc;
	rc = ws_grants_check(ws, r->grants, r->ngrants, plan->priv_real,
			     plan->paths, plan->npaths);
	if (rc < 0 || ws_grants_count(r->grants, r->ngrants) == 0)
		return rc;
	if (!o->net && !plan->seccomp)
		ws_grants_revoke(r->grants, r->ngrants,
				 "not granted: no seccomp filter to keep the command "
				 "from connecting to a host UNIX socket in it");
	else if (!o->net)
		plan->deny_unix_connect = true;
	return ws_grants_add(r->grants, r->ngrants, plan);
}

/*
 * Say that the failed path was --cwd's ("nosuch: no such file or
 * directory" alone does not tell which argument it was), keeping the
 * code, the path and the hint.
 */
static void
ws__error_about_cwd(int rc)
{
	const char *lp = ws_error_last_path(), *lh = ws_error_last_hint();
	char *msg = strdup(ws_error_last()), *path = lp ? strdup(lp) : NULL;
	char *hint = lh ? strdup(lh) : NULL;

	if (msg != NULL) {
		ws_error_set(rc, path, "%s (the --cwd directory)", msg);
		if (hint != NULL)
			ws_error_set_hint("%s", hint);
	}
	free(msg);
	free(path);
	free(hint);
}

/*
 * The virtual view needs the mount namespace: without it the command
 * would see the host's layout, so the call is refused, never run in the
 * real view instead.
 */
static int
ws__view_check(const struct ws_run_opts *o, const struct ws_isolation *iso)
{
	const struct ws_layer_state *m = &iso->layer[WS_LAYER_MOUNTNS];

	int rc;

	if (m->planned)
		return 0;
	rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
			  "the virtual view (the workspace at /%s) needs a mount "
			  "namespace, and there is none: %s; --view real runs "
			  "the command with the workspace at its real path",
			  o->view_from_paths ? ", the default with --paths "
			  "virtual" : "",
			  o->isolate == WS_ISOLATE_NONE ? "--isolate none" :
			  m->why[0] ? m->why : "not available");
	ws_error_set_hint("--view real (or WS_VIEW=real) runs it with the "
			  "workspace at its real path");
	return rc;
}

/*
 * One attempt of ws_run().  *userns_refused is set when the kernel refused
 * to make the user namespace the plan counted on (clone(2) EPERM: in a
 * chroot, say, which the probe cannot see without a clone of its own),
 * before anything of the command ran.
 */
/*
 * Network by name: the rules of this call (--net-deny, --net-allow, then
 * the policy's network_rules) and a proxy deciding by them, when there
 * are any and --net is not given.  It needs the command's own network
 * namespace (only loopback in it), made with its PID namespace.
 */
static int
ws__net_by_name(struct ws_ctx *ws, const struct ws_run_opts *o,
		struct ws_run_result *r, struct ws_sandbox_plan *plan,
		struct ws_netproxy **proxy)
{
	size_t npol = ws->policy ? ws_policy_nnetwork_rules(ws->policy) : 0;
	size_t n = o->nnet_deny + o->nnet_allow + npol, k = 0;
	struct ws_net_rule *v;
	int rc;

	if (o->net || n == 0)
		return 0;
	if (o->isolate == WS_ISOLATE_NONE || !plan->netns ||
	    !r->iso.layer[WS_LAYER_PIDNS].planned)
		return ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
				    "network by name (--net-allow, --net-deny, "
				    "network_rules) needs a network namespace of "
				    "the command's own: %s",
				    o->isolate == WS_ISOLATE_NONE ? "--isolate none" :
				    !plan->netns ? r->iso.layer[WS_LAYER_NETNS].why :
				    r->iso.layer[WS_LAYER_PIDNS].why);
	if ((v = calloc(n, sizeof(*v))) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; i < o->nnet_deny; i++)
		v[k++] = (struct ws_net_rule){o->net_deny[i], WS_NET_DENY,
					      "--net-deny", NULL, NULL};
	for (size_t i = 0; i < o->nnet_allow; i++)
		v[k++] = (struct ws_net_rule){o->net_allow[i], WS_NET_ALLOW,
					      "--net-allow", NULL, NULL};
	for (size_t i = 0; i < npol; i++)
		ws_policy_network_rule(ws->policy, i, &v[k++]);
	rc = ws_netproxy_new(ws, v, k, proxy);
	free(v);
	if (rc < 0)
		return rc;
	plan->net_proxy = true;
	r->net_filtered = true;
	return 0;
}

/*
 * What wsrun does after the command, in one place: the revert of the
 * places, then the repositories' and .envrc clean-up (ws/vcs.h).  wsrun
 * calls it when the command has ended, its guardian when wsrun was killed.
 */
static void
ws__cleanup(struct ws_ctx *ws, const struct ws_run_opts *o,
	    const struct ws__place *places, size_t nplaces,
	    const struct ws_vcs_snap *vcs, struct ws_run_result *r)
{
	char **left = NULL, **nl;
	size_t nleft = 0;

	ws__places_revert(ws, places, nplaces, vcs, r, &left, &nleft);
	r->nreverted_created = r->nreverted;
	if (nleft > 0 && (nl = realloc(r->reverted, (r->nreverted + nleft) *
						    sizeof(*nl))) != NULL) {
		r->reverted = nl;
		for (size_t i = 0; i < nleft; i++)
			nl[r->nreverted++] = left[i];
	} else {
		for (size_t i = 0; i < nleft; i++)
			free(left[i]);
	}
	free(left);
	if (vcs != NULL)
		ws_vcs_clean_kept(ws, vcs, o->net, &r->reverted, &r->nreverted,
				  &r->kept, &r->nkept);
}

/* ---- Places pending a revert ----------------------------------------- */

/*
 * While a command runs, what it made at its places is live until the
 * revert: a call made meanwhile (a parallel call of wstools mcp, or
 * another wsread, wswrite or wsrun process) would load a configuration
 * or policy the command just wrote there (a mount of /).  The places of
 * the commands in flight go into ws/pending.h's list, as their parent
 * directory's identity and the name, and the loaders take a file inside
 * one as absent.  wstools' own configuration and policy places are
 * published for other processes too (*rec, removed after the revert;
 * the guardian keeps it locked by its copy of the descriptor until its
 * own revert has run): a run that cannot publish them does not start.
 */
static int
ws__pending_add(struct ws_ctx *ws, const struct ws__place *v, size_t n,
		const void *owner, struct ws_pending_rec *rec)
{
	struct ws_pending_place *pub = NULL;
	size_t npub = 0, nown = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		struct stat st;
		int fd;

		/* The list is for this process's other calls: wsrun has none. */
		if (ws__exit_soon && !v[i].own && !v[i].marker)
			continue;
		fd = v[i].parent[0] ? ws__open_beneath(ws, v[i].anchor, v[i].parent, true)
				    : -1;
		if ((fd >= 0 ? fstat(fd, &st)
			     : v[i].parent[0] ? -1
					      : fstat(ws->anchors[v[i].anchor].fd, &st)) == 0) {
			if (!ws__exit_soon)
				ws_pending_add(st.st_dev, st.st_ino, v[i].name, owner);
			if ((v[i].own || v[i].marker) &&
			    (pub != NULL || (pub = calloc(n, sizeof(*pub))) != NULL)) {
				pub[npub++] = (struct ws_pending_place){st.st_dev, st.st_ino,
									v[i].name};
				nown += v[i].own;
			}
		}
		if (fd >= 0)
			close(fd);
	}
	/*
	 * Markers alone are published where the record can be written (a
	 * state directory another user owns, as for a test's nobody, is
	 * not fatal for them: this process's list holds them still).
	 */
	if (npub > 0 && (rc = ws_pending_publish(pub, npub, rec)) < 0 && nown == 0)
		rc = 0;
	else if (rc < 0) {
		char *dir = ws_pending_dir();

		rc = ws_error_set(WS_EIO_ERROR, dir,
				  "cannot record the places of wstools' configuration "
				  "and policy that the command may create (%s): a call "
				  "made while it runs would load what it writes there; "
				  "set XDG_STATE_HOME to a writable directory",
				  strerror(-rc));
		free(dir);
	}
	free(pub);
	return rc;
}

/*
 * Runs publish in a directory of the user's state (ws/pending.h) that
 * every call guards.  Where it lies in a writable anchor (a workspace
 * that is HOME) it must exist before the plan binds the guarded entries
 * read-only, or the command could make it and forge or hide a record.
 * Made wherever it is (finding out whether an anchor holds it costs more
 * than the mkdir() once): one stat() a run when it exists.
 */
static void
ws__pending_dir_ready(void)
{
	char *d = ws_pending_dir();
	struct stat st;

	if (d != NULL && stat(d, &st) < 0 && errno == ENOENT)
		(void)ws_pending_dir_make(d);
	free(d);
}

/* ---- The guardian ----------------------------------------------------- */

/*
 * The clean-up above and the audit line must not depend on wsrun living
 * to do them: SIGKILL of wsrun (a harness's timeout) would leave a
 * configuration that mounts /, or a hook the user's next git runs, for
 * good.  As soon as the command's init exists (it builds the sandbox
 * meanwhile, and where it shares wsrun's memory it starts the command
 * only once the guardian exists, see struct ws__vsnap; a kill before
 * the fork ends init by its PDEATHSIG) wsrun forks a guardian: a copy of its
 * memory at that moment (the places, the repositories' snapshot, the
 * anchors' descriptors, the command's pidfd, the call's audit line so
 * far) waiting on one end of a socket whose other end only wsrun holds.
 * wsrun sends "d" once it has cleaned up itself; the end of the socket
 * without "d" means wsrun died: the
 * guardian kills the command's tree (SIGKILL of init ends its PID
 * namespace), waits until it is gone, runs ws__cleanup() and writes the
 * audit line.  It holds the workspace's lock (the same open file) until
 * then, so that the next command waits for it.  It leaves wsrun's
 * session (a harness kills the process group) and keeps no pipe or
 * socket but its own: nobody waits for an end of file it holds.
 */
struct ws__guardian {
	pid_t pid;
	int pidfd;
	int sock;
	uint64_t id; /* a run of the server's guardian (see there), or 0 */
};

/*
 * In the guardian: standard streams to /dev/null, so that nobody waits
 * for an end of file it holds.  Every other descriptor but the ones it
 * uses went at its start (ws__guardian_keep()).
 */
static void
ws__guardian_fds(void)
{
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

	for (int fd = 0; nul >= 0 && fd <= 2; fd++)
		(void)dup2(nul, fd);
	if (nul > 2)
		close(nul);
}

/* The guardian's audit line: the call as wsrun would have written it,
 * saying that wsrun was killed (exit status 128 + SIGKILL). */
static void
ws__guardian_audit(struct ws_audit *au, const char *cmd,
		   const struct ws_run_result *r)
{
	cJSON *a = NULL, *ka = NULL;
	char *t = NULL, *kt = NULL;

	ws_audit_forked();
	ws_audit_set_str(au, "operation", "exec");
	ws_audit_set_str(au, "command", cmd);
	ws_audit_set_int(au, "command_signal", SIGKILL);
	ws_audit_set_str(au, "killed",
			 "wsrun was killed before the command ended: its guardian "
			 "killed the command and cleaned up");
	if (r->nreverted > 0 &&
	    (a = cJSON_CreateStringArray((const char *const *)r->reverted,
					 (int)r->nreverted)) != NULL &&
	    (t = cJSON_PrintUnformatted(a)) != NULL)
		ws_audit_set_json(au, "reverted", t);
	if (r->nkept > 0 &&
	    (ka = cJSON_CreateStringArray((const char *const *)r->kept,
					  (int)r->nkept)) != NULL &&
	    (kt = cJSON_PrintUnformatted(ka)) != NULL)
		ws_audit_set_json(au, "kept", kt);
	ws_audit_outcome(au, WS_ESANDBOX_UNAVAILABLE);
	(void)ws_audit_emit(au, 128 + SIGKILL);
	free(t);
	cJSON_Delete(a);
	free(kt);
	cJSON_Delete(ka);
}

static void __attribute__((noreturn))
ws__guardian_main(struct ws_ctx *ws, const struct ws_run_opts *o,
		  const struct ws__place *places, size_t nplaces,
		  const struct ws_vcs_snap *vcs, const struct ws__proc *p, int sock)
{
	struct ws_run_result r;
	struct pollfd pf = {.fd = p->pidfd, .events = POLLIN};
	char b = 0;
	ssize_t n;
	sigset_t stop;

	/* Out of the caller's process group and its signals (blocked, they
	 * never end it); a direct SIGKILL still does. */
	(void)setsid();
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigaddset(&stop, SIGPIPE);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	ws__guardian_fds();
	while ((n = read(sock, &b, 1)) < 0 && errno == EINTR)
		;
	if (n == 1 && b == 'd')
		_exit(0);
	/* wsrun is gone: first the command, all of it (SIGKILL of init
	 * ends its PID namespace), and wait until it is.  Without a PID
	 * namespace, what is below the command's reaper first (it kills it
	 * itself when wsrun dies: see ws__reaper_main()): the pidfd's
	 * SIGKILL alone orphaned its children, which ran on. */
	if (!p->pidns)
		ws__kill_orphaned_tree(p->pid, p->pidfd);
	if (p->pidfd >= 0) {
		(void)syscall(SYS_pidfd_send_signal, p->pidfd, SIGKILL, NULL, 0);
		while (poll(&pf, 1, -1) < 0 && errno == EINTR)
			;
	}
	if (!p->pidns) {
		struct ws__proc q = *p;

		ws__cg_kill(&q, SIGKILL);
	}
	memset(&r, 0, sizeof(r));
	ws__cleanup(ws, o, places, nplaces, vcs, &r);
	if (o->audit != NULL) {
		char *cmd = ws_run_cmdline(o);

		ws__guardian_audit(o->audit, cmd, &r);
		free(cmd);
	}
	_exit(0);
}

/*
 * What the guardian keeps (see ws__close_except()): its end of the
 * socket, init's pidfd, the cgroup, the workspace's lock and those above
 * it (ws__up_lock(): a run in a workspace around this one waits for the
 * guardian's clean-up too), the anchors
 * (the clean-up's walks start there), "/" (ALLOW_OUTSIDE), the audit
 * log, and the run's pending record (ws/pending.h: locked until the
 * revert is done, so that other calls ignore what the command made at
 * wstools' own places until then).  Every other descriptor it closes at once: a pipe's end it held
 * would keep a reader waiting, a flock() held on another call's
 * descriptor would be held for as long as the command runs.  The
 * ascending list, in *out (the caller frees it).
 */
static int
ws__guardian_keep(struct ws_ctx *ws, const struct ws_run_opts *o,
		  const struct ws__proc *p, int sock, int wslock,
		  const struct ws__up *up, int prec_fd, int **out, size_t *n)
{
	int *v = malloc((7 + ws->nanchors + up->n) * sizeof(*v));
	size_t k = 0;

	if (v == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	v[k++] = sock;
	v[k++] = p->pidfd;
	v[k++] = p->cg_fd;
	v[k++] = wslock;
	v[k++] = ws->host_fd;
	v[k++] = ws_audit_fd(o->audit);
	v[k++] = prec_fd;
	for (size_t i = 0; i < ws->nanchors; i++)
		v[k++] = ws->anchors[i].fd;
	for (size_t i = 0; i < up->n; i++)
		v[k++] = up->fd[i];
	*n = ws__keep_sort(v, k);
	*out = v;
	return 0;
}

/* Start the guardian (see struct ws__guardian), or say why not. */
static int
ws__guardian_start(struct ws_ctx *ws, const struct ws_run_opts *o,
		   const struct ws__place *places, size_t nplaces,
		   const struct ws_vcs_snap *vcs, const struct ws__proc *p,
		   int wslock, const struct ws__up *up, int prec_fd,
		   struct ws__guardian *g)
{
	int sv[2], *keep = NULL;
	size_t nkeep = 0;
	pid_t pid;
	int rc;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return ws_error_errno(errno, NULL, "socketpair");
	if ((rc = ws__guardian_keep(ws, o, p, sv[1], wslock, up, prec_fd, &keep,
				    &nkeep)) < 0) {
		close(sv[0]);
		close(sv[1]);
		return rc;
	}
	if ((pid = fork()) < 0) {
		free(keep);
		close(sv[0]);
		close(sv[1]);
		return ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
				    "cannot start the command's guardian (fork: %s)",
				    strerror(errno));
	}
	if (pid == 0) {
		/* First of all: see ws__guardian_keep(). */
		ws__close_except(keep, nkeep);
		free(keep);
		ws__guardian_main(ws, o, places, nplaces, vcs, p, sv[1]);
	}
	free(keep);
	close(sv[1]);
	g->pid = pid;
	g->sock = sv[0];
	g->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return 0;
}

/* wsrun cleaned up: the guardian ends. */
static void
ws__guardian_done(struct ws__guardian *g)
{
	if (g->sock < 0)
		return;
	(void)send(g->sock, "d", 1, MSG_NOSIGNAL);
	ws__close(&g->sock);
}

/*
 * Last: a process that exits after the call leaves the guardian to its
 * parent; a long-running one (wstools mcp) reaps it, so that a call
 * leaves no child (it was told to end before the rest of the clean-up).
 */
static void
ws__guardian_reap(struct ws__guardian *g)
{
	siginfo_t si;

	if (g->pidfd >= 0 && !ws__exit_soon)
		while (waitid((idtype_t)P_PIDFD, (id_t)g->pidfd, &si, WEXITED) < 0 &&
		       errno == EINTR)
			;
	else if (g->pidfd < 0 && g->pid > 0 && !ws__exit_soon)
		while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
			;
	ws__close(&g->pidfd);
	g->pid = -1;
}

/*
 * What init and the command's child keep (struct ws__child's keep): the
 * child's ends of the pipes, the working directory, the plan's paths and
 * their trees, the private directory, the cgroup (a direct child joins
 * it by a write).  *buf is the caller's to free, after the child said
 * "r" or is gone (init may share this memory).
 */
static int
ws__child_keep(struct ws__child *c, const struct ws_sandbox_plan *p, int cg_fd,
	       int **buf)
{
	size_t n = 0;
	int *v = malloc((12 + 2 * (p->npaths + p->nguards)) * sizeof(*v));

	if (v == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	v[n++] = c->in_fd;
	v[n++] = c->out_w;
	v[n++] = c->err_w;
	v[n++] = c->rep_w;
	v[n++] = c->status_w;
	v[n++] = c->sync_r;
	v[n++] = c->net_w;
	v[n++] = c->view_w;
	v[n++] = c->cwd_fd;
	v[n++] = p->cwd_fd;
	v[n++] = p->priv_fd;
	v[n++] = cg_fd;
	for (size_t i = 0; i < p->npaths; i++) {
		v[n++] = p->paths[i].fd;
		v[n++] = p->paths[i].tree;
	}
	for (size_t i = 0; i < p->nguards; i++) {
		v[n++] = p->guards[i].fd;
		v[n++] = p->guards[i].tree;
	}
	c->nkeep = ws__keep_sort(v, n);
	c->keep = v;
	*buf = v;
	return 0;
}

/* ---- The server's guardian -------------------------------------------- */

/*
 * In a process of many calls (wstools mcp: ws_run_guardian_start()) the
 * guardian is one small process forked once, when the server starts,
 * instead of a copy of the whole server per command (that fork was
 * ~0.8 ms of a run_command's 3-4, measured).  It closes every
 * descriptor but its socket at once, so that it holds no other call's
 * pipe or locked file.  Each command sends it, on that socket (whose
 * other end only the server holds), a message "s" with the command's
 * id and, as SCM_RIGHTS, init's pidfd, the workspace's lock (the same
 * open file: it holds the lock once the server is gone), the command's
 * cgroup without a PID namespace, the anchors' descriptors, and a memfd
 * with the rest of what the clean-up needs: the anchors' names, the
 * places, the repositories' snapshot, the command line, the audit line
 * so far (ws__gs_save()).  "d" and the id once the server cleaned up
 * itself.  End of file on the socket with commands not done means the
 * server died: the guardian kills each one's tree, waits until they are
 * gone, and for each one runs ws__cleanup() on what it was sent and
 * writes its audit line, as the per-command guardian above does.
 * Several commands at once: one list of those in flight.
 */
struct ws__gs_msg {
	char op;		/* 's' a command started, 'd' it was cleaned up */
	unsigned char pidns;	/* the command has a PID namespace */
	unsigned char has_lock, has_cg;
	unsigned char has_prec;	/* the pending record's lock (ws/pending.h) */
	uint32_t nanchors;
	uint32_t nup;		/* the locks above the workspace (ws__up_lock()) */
	uint64_t id;
};

/* At most this many anchors and locks above the workspace a message (the
 * rest of SCM_MAX_FD's 253). */
#define WS__GS_ANCHORS 240

static struct {
	pthread_mutex_t mu;
	_Atomic int sock; /* the server's end, or -1 */
	pid_t pid;
	_Atomic uint64_t next;
} ws__gs = {PTHREAD_MUTEX_INITIALIZER, -1, -1, 1};

/* n bytes at p (NULL: none) on f, their length first. */
static void
ws__gs_put(FILE *f, const void *p, size_t n)
{
	size_t len = p != NULL ? n : SIZE_MAX;

	fwrite(&len, sizeof(len), 1, f);
	if (p != NULL && n > 0)
		fwrite(p, 1, n, f);
}

static void
ws__gs_puts(FILE *f, const char *s)
{
	ws__gs_put(f, s, s != NULL ? strlen(s) : 0);
}

/* What ws__gs_put() wrote, NUL-terminated (NULL stays NULL); false when
 * f ends early. */
static bool
ws__gs_get(FILE *f, char **p)
{
	size_t len;

	*p = NULL;
	if (fread(&len, sizeof(len), 1, f) != 1)
		return false;
	if (len == SIZE_MAX)
		return true;
	if (len > (1UL << 30) || (*p = malloc(len + 1)) == NULL)
		return false;
	if (len > 0 && fread(*p, 1, len, f) != len) {
		free(*p);
		*p = NULL;
		return false;
	}
	(*p)[len] = '\0';
	return true;
}

/* What the guardian needs of a command but its descriptors, in a memfd. */
static int
ws__gs_save(struct ws_ctx *ws, const struct ws_run_opts *o,
	    const struct ws__place *places, size_t nplaces,
	    const struct ws_vcs_snap *vcs)
{
	char *buf = NULL, *cmd = ws_run_cmdline(o), *au = NULL;
	size_t len = 0, off = 0;
	unsigned char net = o->net;
	FILE *f = open_memstream(&buf, &len);
	int fd = -1;

	if (f == NULL || cmd == NULL ||
	    (o->audit != NULL && (au = ws_audit_save(o->audit)) == NULL))
		goto out;
	fwrite(&ws->nanchors, sizeof(ws->nanchors), 1, f);
	for (size_t i = 0; i < ws->nanchors; i++) {
		unsigned char ro = ws->anchors[i].ro;

		ws__gs_puts(f, ws->anchors[i].vprefix);
		ws__gs_puts(f, ws->anchors[i].real);
		fwrite(&ro, 1, 1, f);
	}
	fwrite(&nplaces, sizeof(nplaces), 1, f);
	for (size_t i = 0; i < nplaces; i++) {
		fwrite(&places[i].anchor, sizeof(places[i].anchor), 1, f);
		ws__gs_puts(f, places[i].parent);
		ws__gs_puts(f, places[i].name);
	}
	fwrite(&net, 1, 1, f);
	ws__gs_puts(f, cmd);
	ws__gs_puts(f, au);
	if (ws_vcs_snap_save(vcs, f) < 0 || fflush(f) != 0 || ferror(f))
		goto out;
	if ((fd = (int)syscall(SYS_memfd_create, "wstools-guardian",
			       MFD_CLOEXEC)) < 0)
		goto out;
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ws__close(&fd);
			break;
		}
		off += (size_t)w;
	}
out:
	if (f != NULL)
		fclose(f);
	free(buf);
	free(cmd);
	free(au);
	return fd;
}

/* One command in flight, in the guardian. */
struct ws__gs_run {
	uint64_t id;
	bool pidns;
	int pidfd, memfd, lock, cg, prec;
	int *afd;
	uint32_t nafd;
	int *up;	/* the locks above the workspace, held until cleaned */
	uint32_t nup;
};

static void
ws__gs_run_close(struct ws__gs_run *r)
{
	ws__close(&r->pidfd);
	ws__close(&r->memfd);
	ws__close(&r->lock);
	ws__close(&r->cg);
	ws__close(&r->prec);
	for (uint32_t i = 0; i < r->nafd; i++)
		if (r->afd[i] >= 0)
			close(r->afd[i]);
	free(r->afd);
	r->afd = NULL;
	r->nafd = 0;
	for (uint32_t i = 0; i < r->nup; i++)
		close(r->up[i]);
	free(r->up);
	r->up = NULL;
	r->nup = 0;
}

/* The server is gone: clean up after one command whose tree is dead. */
static void
ws__gs_clean(struct ws__gs_run *g)
{
	struct ws_ctx w = {.host_fd = -1};
	struct ws_run_opts o = {0};
	struct ws_run_result r;
	struct ws__place *places = NULL;
	struct ws_vcs_snap *vcs = NULL;
	struct ws_audit *au = NULL;
	size_t na = 0, np = 0;
	unsigned char net = 0;
	char *cmd = NULL, *saved = NULL;
	int fd = dup(g->memfd);
	FILE *f = fd >= 0 && lseek(fd, 0, SEEK_SET) == 0 ? fdopen(fd, "r") : NULL;

	if (f == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if (fread(&na, sizeof(na), 1, f) != 1 || na != g->nafd ||
	    (na > 0 && (w.anchors = calloc(na, sizeof(*w.anchors))) == NULL))
		goto out;
	for (; w.nanchors < na; w.nanchors++) {
		struct ws_anchor *an = &w.anchors[w.nanchors];
		unsigned char ro = 0;

		an->fd = g->afd[w.nanchors];
		if (!ws__gs_get(f, &an->vprefix) || !ws__gs_get(f, &an->real) ||
		    an->vprefix == NULL || an->real == NULL ||
		    fread(&ro, 1, 1, f) != 1) {
			w.nanchors++;
			goto out;
		}
		an->ro = ro;
	}
	if (fread(&np, sizeof(np), 1, f) != 1 || np > (1UL << 20) ||
	    (np > 0 && (places = calloc(np, sizeof(*places))) == NULL))
		goto out;
	for (size_t i = 0; i < np; i++)
		if (fread(&places[i].anchor, sizeof(places[i].anchor), 1, f) != 1 ||
		    !ws__gs_get(f, &places[i].parent) || !ws__gs_get(f, &places[i].name) ||
		    places[i].parent == NULL || places[i].name == NULL ||
		    places[i].anchor < 0 || (size_t)places[i].anchor >= na) {
			np = i + 1;
			goto out;
		}
	if (fread(&net, 1, 1, f) != 1 || !ws__gs_get(f, &cmd) ||
	    !ws__gs_get(f, &saved) || ws_vcs_snap_load(f, &vcs) < 0)
		goto out;
	o.net = net;
	if (saved != NULL && ws_audit_load(saved, &au) == 0)
		o.audit = au;
	memset(&r, 0, sizeof(r));
	ws__cleanup(&w, &o, places, np, vcs, &r);
	if (au != NULL)
		ws__guardian_audit(au, cmd, &r);
	ws_run_free(&r);
out:
	fclose(f);
	ws_audit_free(au);
	ws_vcs_snap_free(vcs);
	ws__places_free(places, np);
	for (size_t i = 0; i < w.nanchors; i++) {
		free(w.anchors[i].vprefix);
		free(w.anchors[i].real);
	}
	free(w.anchors);
	free(cmd);
	free(saved);
}

/* The server died: every command in flight goes, then its clean-up. */
static void
ws__gs_server_died(struct ws__gs_run *v, size_t n)
{
	/* Without a PID namespace, the tree below each command's first
	 * process first (see ws__guardian_main()). */
	for (size_t i = 0; i < n; i++)
		if (!v[i].pidns && v[i].pidfd >= 0)
			ws__kill_orphaned_tree(ws__pidfd_pid(v[i].pidfd), v[i].pidfd);
	for (size_t i = 0; i < n; i++)
		if (v[i].pidfd >= 0)
			(void)syscall(SYS_pidfd_send_signal, v[i].pidfd, SIGKILL,
				      NULL, 0);
	for (size_t i = 0; i < n; i++) {
		struct pollfd pf = {.fd = v[i].pidfd, .events = POLLIN};

		while (v[i].pidfd >= 0 && poll(&pf, 1, -1) < 0 && errno == EINTR)
			;
		if (!v[i].pidns) {
			struct ws__proc q = {.pid = -1, .pidfd = -1, .cg_fd = v[i].cg};

			ws__cg_kill(&q, SIGKILL);
		}
	}
	for (size_t i = 0; i < n; i++) {
		ws__gs_clean(&v[i]);
		/* Cleaned: the next command in this workspace may start. */
		ws__gs_run_close(&v[i]);
	}
}

/* One message: a command started (appended to *v) or done (dropped). */
static void
ws__gs_take(const struct ws__gs_msg *m, const int *fds, size_t nfds,
	    struct ws__gs_run **v, size_t *n)
{
	struct ws__gs_run g = {.id = m->id, .pidns = m->pidns, .pidfd = -1,
			       .memfd = -1, .lock = -1, .cg = -1, .prec = -1};
	size_t k = 0, want = 2 + m->has_lock + m->has_cg + m->has_prec +
			     (size_t)m->nanchors + m->nup;
	struct ws__gs_run *nv;

	if (m->op == 'd') {
		for (size_t i = 0; i < *n; i++)
			if ((*v)[i].id == m->id) {
				ws__gs_run_close(&(*v)[i]);
				(*v)[i] = (*v)[--*n];
				break;
			}
		return;
	}
	if (m->op != 's' || nfds != want ||
	    (g.afd = calloc(m->nanchors ? m->nanchors : 1, sizeof(int))) == NULL ||
	    (g.up = calloc(m->nup ? m->nup : 1, sizeof(int))) == NULL ||
	    (nv = realloc(*v, (*n + 1) * sizeof(*nv))) == NULL) {
		free(g.afd);
		free(g.up);
		for (size_t i = 0; i < nfds; i++)
			close(fds[i]);
		return;
	}
	g.pidfd = fds[k++];
	g.memfd = fds[k++];
	if (m->has_lock)
		g.lock = fds[k++];
	if (m->has_cg)
		g.cg = fds[k++];
	if (m->has_prec)
		g.prec = fds[k++];
	for (g.nafd = 0; g.nafd < m->nanchors; g.nafd++)
		g.afd[g.nafd] = fds[k++];
	for (g.nup = 0; g.nup < m->nup; g.nup++)
		g.up[g.nup] = fds[k++];
	*v = nv;
	(*v)[(*n)++] = g;
}

static void __attribute__((noreturn))
ws__gs_main(int sock)
{
	union {
		char b[CMSG_SPACE(sizeof(int) * (5 + WS__GS_ANCHORS))];
		struct cmsghdr align;
	} cb;
	struct ws__gs_run *v = NULL;
	size_t n = 0;
	sigset_t stop;
	int nul;

	/* Out of the server's process group and its signals, as the
	 * per-command guardian; its streams and every other descriptor
	 * closed at once (another call's pipe, a locked file). */
	(void)setsid();
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigaddset(&stop, SIGPIPE);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	ws_audit_forked();
	ws_audit_keep_open(false);
	if (sock != 3) {
		(void)dup2(sock, 3);
		sock = 3;
	}
	if ((nul = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0)
		for (int fd = 0; fd <= 2; fd++)
			(void)dup2(nul, fd);
	if (syscall(SYS_close_range, 4, ~0U, 0) < 0)
		for (int fd = 4; fd < 65536; fd++)
			(void)close(fd);
	for (;;) {
		struct ws__gs_msg m;
		struct iovec iov = {.iov_base = &m, .iov_len = sizeof(m)};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = cb.b, .msg_controllen = sizeof(cb.b)};
		int fds[5 + WS__GS_ANCHORS];
		size_t nfds = 0;
		ssize_t r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL;
		     c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

				for (size_t i = 0; i < k; i++) {
					int fd;

					memcpy(&fd, CMSG_DATA(c) + i * sizeof(int),
					       sizeof(int));
					if (nfds < sizeof(fds) / sizeof(fds[0]))
						fds[nfds++] = fd;
					else
						close(fd);
				}
			}
		if (r != (ssize_t)sizeof(m) || (mh.msg_flags & MSG_CTRUNC)) {
			for (size_t i = 0; i < nfds; i++)
				close(fds[i]);
			continue;
		}
		ws__gs_take(&m, fds, nfds, &v, &n);
	}
	/* The server's end is closed: by its stop (nothing in flight), or
	 * by its death. */
	ws__gs_server_died(v, n);
	_exit(0);
}

int
ws_run_guardian_start(void)
{
	int sv[2], rc = 0;
	pid_t pid;

	pthread_mutex_lock(&ws__gs.mu);
	if (atomic_load(&ws__gs.sock) >= 0)
		goto out;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		rc = ws_error_errno(errno, NULL, "socketpair");
		goto out;
	}
	if ((pid = fork()) < 0) {
		rc = ws_error_errno(errno, NULL, "fork");
		close(sv[0]);
		close(sv[1]);
		goto out;
	}
	if (pid == 0) {
		close(sv[0]);
		ws__gs_main(sv[1]);
	}
	close(sv[1]);
	ws__gs.pid = pid;
	atomic_store(&ws__gs.sock, sv[0]);
out:
	pthread_mutex_unlock(&ws__gs.mu);
	return rc;
}

void
ws_run_guardian_stop(void)
{
	int sock;

	pthread_mutex_lock(&ws__gs.mu);
	sock = atomic_exchange(&ws__gs.sock, -1);
	if (sock >= 0) {
		close(sock);
		while (waitpid(ws__gs.pid, NULL, 0) < 0 && errno == EINTR)
			;
		ws__gs.pid = -1;
	}
	pthread_mutex_unlock(&ws__gs.mu);
}

/*
 * Hand a command to the server's guardian, if there is one: 0 (g->id
 * set), or 1 when the call forks its own (none, more anchors than a
 * message carries, the guardian gone).
 */
static int
ws__gs_start(struct ws_ctx *ws, const struct ws_run_opts *o,
	     const struct ws__place *places, size_t nplaces,
	     const struct ws_vcs_snap *vcs, const struct ws__proc *p, int wslock,
	     const struct ws__up *up, int prec_fd, struct ws__guardian *g)
{
	int sock = atomic_load(&ws__gs.sock), memfd, k = 0;
	size_t nup = 0;
	struct ws__gs_msg m = {.op = 's', .pidns = p->pidns};
	int fds[5 + WS__GS_ANCHORS];
	union {
		char b[CMSG_SPACE(sizeof(fds))];
		struct cmsghdr align;
	} cb;
	struct iovec iov = {.iov_base = &m, .iov_len = sizeof(m)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb.b};
	struct cmsghdr *c;
	ssize_t w;

	for (size_t i = 0; i < up->n; i++)
		nup += up->fd[i] >= 0;
	if (sock < 0 || p->pidfd < 0 || ws->nanchors + nup > WS__GS_ANCHORS)
		return 1;
	if ((memfd = ws__gs_save(ws, o, places, nplaces, vcs)) < 0)
		return 1;
	m.id = atomic_fetch_add(&ws__gs.next, 1);
	m.has_lock = wslock >= 0;
	m.has_cg = !p->pidns && p->cg_fd >= 0;
	m.has_prec = prec_fd >= 0;
	m.nanchors = (uint32_t)ws->nanchors;
	m.nup = (uint32_t)nup;
	fds[k++] = p->pidfd;
	fds[k++] = memfd;
	if (m.has_lock)
		fds[k++] = wslock;
	if (m.has_cg)
		fds[k++] = p->cg_fd;
	if (m.has_prec)
		fds[k++] = prec_fd;
	for (size_t i = 0; i < ws->nanchors; i++)
		fds[k++] = ws->anchors[i].fd;
	for (size_t i = 0; i < up->n; i++)
		if (up->fd[i] >= 0)
			fds[k++] = up->fd[i];
	memset(&cb, 0, sizeof(cb));
	mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)k);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)k);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)k);
	while ((w = sendmsg(sock, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	close(memfd);
	if (w != (ssize_t)sizeof(m))
		return 1;
	g->id = m.id;
	return 0;
}

/* The server cleaned up after the command: its guardian forgets it. */
static void
ws__gs_done(struct ws__guardian *g)
{
	struct ws__gs_msg m = {.op = 'd', .id = g->id};
	int sock = atomic_load(&ws__gs.sock);

	if (g->id == 0 || sock < 0)
		return;
	while (send(sock, &m, sizeof(m), MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
	g->id = 0;
}

/*
 * The call's side thread, where init shares this memory (ch.shared_vm):
 * what wsrun's thread would otherwise do with the C library while init
 * builds the root.  Init shares the thread-local storage of the thread
 * that cloned it (CLONE_VM without CLONE_SETTLS, see ws__spawn_init()),
 * errno among it, and the C library writes errno behind a caller's back:
 * free() saves and restores it around its work, so a free() in wsrun's
 * thread put back a stale EEXIST over the ENOENT init had just got from
 * openat2(), and init took /tmp for made already ("mount tmpfs /tmp:
 * File exists", seen in CI).  So wsrun's thread makes direct system calls
 * only from the clone to init's "r", and this thread, with an errno and a
 * heap cache of its own, does the rest:
 *   - the repositories' snapshot (ws_vcs_snapshot(): a walk of the whole
 *     workspace, a few microseconds a directory) when the workspace is
 *     large enough for a thread to pay (ws__vsnap_worth()): init and the
 *     walk then share the machine's cores, where before the clone the
 *     walk was in series with the root;
 *   - the guardian's start (struct ws__guardian), once wsrun's thread
 *     says init exists (the cloned word: the guardian takes init's
 *     pidfd).
 * Init waits on the state word (ws__vsnap_wait()) before the command
 * starts, so the command never runs before its guardian exists, and it
 * waits only when this thread is the slower: at 20 top-level entries the
 * root takes several times as long.
 */
/*
 * The identities of what the plan binds read-only (or masks) in the
 * command's mount namespace, for the clean-up after it
 * (ws_vcs_snap_hold(), review25 06): its guards that are bound, not
 * copied or left out.  None without a mount namespace.  *out malloc'd.
 */
static void
ws__held_ids(const struct ws_ctx *ws, const struct ws_sandbox_plan *p,
	     struct ws_vcs_id **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!p->mountns || p->nguards == 0 ||
	    (*out = calloc(p->nguards, sizeof(**out))) == NULL)
		return;
	for (size_t i = 0; i < p->nguards; i++) {
		const struct ws_sandbox_path *g = &p->guards[i];
		bool other_way = false;
		struct stat st;

		if (g->unbound || g->link_copy || (g->write && !g->mask))
			continue;
		/* A writable mount in it reaches what it holds another way. */
		for (size_t a = 1; a < ws->nanchors && !other_way; a++)
			other_way = !ws->anchors[a].ro &&
				    ws_path_within(g->path, ws->anchors[a].real, NULL);
		if (!other_way && fstat(g->fd, &st) == 0)
			(*out)[(*n)++] = (struct ws_vcs_id){st.st_dev, st.st_ino};
	}
}

struct ws__vsnap {
	struct ws_ctx *ws;
	bool walk;			/* the snapshot is this thread's to take */
	struct ws_vcs_snap *vcs;	/* taken here, or before the clone */
	/* What the namespace binds read-only, held by the snapshot. */
	const struct ws_vcs_id *held;
	size_t nheld;
	/* The guardian's start (guard NULL: none for this call). */
	const struct ws_run_opts *o;
	const struct ws__place *places;
	size_t nplaces;
	const struct ws__proc *proc;
	int wslock, prec_fd;
	const struct ws__up *up;
	struct ws__guardian *guard;
	int cloned;	/* futex word: 0 until init exists (1) or will not (-1) */
	bool released;	/* the cloned word set (wsrun's thread's own) */
	int rc;
	char msg[256];
	int state;	/* 0 being done, 1 done, -1 failed (a futex word) */
	pthread_t thr;
	bool started;
};

/* Start the guardian: the server's, or one forked for this call. */
static int
ws__guard_begin(struct ws_ctx *ws, const struct ws_run_opts *o,
		const struct ws__place *places, size_t nplaces,
		const struct ws_vcs_snap *vcs, const struct ws__proc *p,
		int wslock, const struct ws__up *up, int prec_fd,
		struct ws__guardian *g)
{
	if (ws__gs_start(ws, o, places, nplaces, vcs, p, wslock, up, prec_fd,
			 g) == 0)
		return 0;
	return ws__guardian_start(ws, o, places, nplaces, vcs, p, wslock, up,
				  prec_fd, g);
}

static void *
ws__vsnap_main(void *arg)
{
	struct ws__vsnap *s = arg;
	int c;

	s->rc = s->walk ? ws_vcs_snapshot(s->ws, &s->vcs) : 0;
	/* Before the guardian gets (or forks with) the snapshot. */
	if (s->rc == 0 && s->walk && s->vcs != NULL)
		s->rc = ws_vcs_snap_hold(s->vcs, s->held, s->nheld);
	if (s->rc == 0 && s->guard != NULL) {
		while ((c = __atomic_load_n(&s->cloned, __ATOMIC_ACQUIRE)) == 0)
			syscall(SYS_futex, &s->cloned, FUTEX_WAIT, 0, NULL, NULL, 0);
		/*
		 * No init (the call failed before it): no command either.
		 * The call's own error is the one reported; this one says
		 * why the guardian did not start, should it ever be read.
		 */
		s->rc = c > 0 ? ws__guard_begin(s->ws, s->o, s->places, s->nplaces,
						s->vcs, s->proc, s->wslock,
						s->up, s->prec_fd, s->guard)
			      : ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
					     "the command's init process was "
					     "not started, so neither was its "
					     "guardian");
	}
	if (s->rc < 0)
		snprintf(s->msg, sizeof(s->msg), "%s", ws_error_last());
	__atomic_store_n(&s->state, s->rc < 0 ? -1 : 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &s->state, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	return NULL;
}

/*
 * In wsrun's thread: init exists (1) or will not (-1).  Direct system
 * calls only (init may run in this memory already).  Once a call.
 */
static void
ws__vsnap_release(struct ws__vsnap *s, int cloned)
{
	if (!s->started || s->released)
		return;
	s->released = true;
	__atomic_store_n(&s->cloned, cloned, __ATOMIC_RELEASE);
	ws__sys4(SYS_futex, (long)&s->cloned, FUTEX_WAKE, INT32_MAX, 0);
}

/*
 * Whether the walk is likely to outweigh a thread's start (~0.1 ms at
 * 20 top-level entries, measured, where the walk is a few dozen
 * microseconds): the workspace's top holds 16 directories or more, as
 * its link count says (2 and one a subdirectory on ext4, xfs, tmpfs;
 * 1 where the file system does not count them: taken as many).
 */
static bool
ws__vsnap_worth(struct ws_ctx *ws)
{
	struct stat st;

	return fstat(ws->anchors[0].fd, &st) == 0 &&
	       (st.st_nlink == 1 || st.st_nlink >= 2 + 16);
}

/*
 * The side thread joined (once init said "r", or ended), its snapshot
 * taken into *vcs where it took one, and its error (the walk's, the
 * guardian's) made the call's.
 */
static int
ws__vsnap_join(struct ws__vsnap *s, struct ws_vcs_snap **vcs)
{
	if (!s->started)
		return 0;
	ws__vsnap_release(s, -1);
	pthread_join(s->thr, NULL);
	s->started = false;
	if (s->walk)
		*vcs = s->vcs;
	return s->rc < 0 ? ws_error_set(s->rc, NULL, "%s", s->msg) : 0;
}

static int
ws__run_once(struct ws_ctx *ws, const struct ws_run_opts *o,
	     struct ws_run_result *r, bool *userns_refused)
{
	struct ws_sandbox_plan plan = {.cwd_fd = -1, .priv_fd = -1};
	struct ws_res cwd = {.fd = -1, .dirfd = -1};
	struct ws__env env = {0};
	struct ws__cap cap[2] = {{.fd = -1}, {.fd = -1}};
	struct ws__proc proc = {.pid = -1, .pidfd = -1, .cg_fd = -1};
	struct ws__child ch;
	struct ws__report rep;
	int outp[2] = {-1, -1}, errp[2] = {-1, -1}, repp[2] = {-1, -1};
	int statp[2] = {-1, -1}, syncp[2] = {-1, -1}, inp[2] = {-1, -1};
	int viewp[2] = {-1, -1}, view_root = -1;
	bool virt = o->view == WS_VIEW_VIRTUAL;
	int in_fd = -1, status_raw = 0, rc, err_w;
	char *proot_marker = NULL;
	struct ws__place *places = NULL;
	size_t nplaces = 0;
	struct ws_vcs_snap *vcs = NULL;
	struct ws_vcs_id *held = NULL;
	size_t nheld = 0;
	struct ws__vsnap vsnap = {.ws = ws};
	bool vcs_async;
	bool need_guard = o->isolate != WS_ISOLATE_NONE || o->audit != NULL;
	int wslock = -1;
	struct ws__up up = {NULL, 0};
	struct ws__turn turn = {0};
	long long waited = 0;
	int32_t irep[3] = {0, 0, 0};
	bool got_rep = false, got_status = false, exited = false, reap_later = false;
	int cancelled = 0;
	char **argv = NULL, *cmdline = NULL;
	long long start = ws__now_ms(), deadline, killtime = -1;
	size_t in_off = 0;
	unsigned long flags = 0;
	struct rusage ru;
	void *init_stack = NULL;
	size_t init_stack_sz = 0;
	struct ws__zygote zyg = {.pid = 0, .go = {-1, -1}};
	struct ws__base zbase = {.on = false};
	bool ahead_asked = false, taken = false, blocked = false, refuse = false;
	struct ws_netproxy *proxy = NULL;
	struct ws__guardian guard = {.pid = -1, .pidfd = -1, .sock = -1, .id = 0};
	struct ws_pending_rec prec = {.dfd = -1, .fd = -1};
	int netp[2] = {-1, -1}, *keep = NULL;
	unsigned long stopset = 1UL << (SIGTERM - 1) | 1UL << (SIGINT - 1) |
				1UL << (SIGHUP - 1), oldset = 0;

	memset(r, 0, sizeof(*r));
	r->max_rss_kb = -1;
	r->status = WS_RUN_EXIT_FAILED;
	if ((rc = ws_run_check_opts(o)) < 0)
		return rc;
	/*
	 * The command writes the workspace itself: a hard link there to
	 * the audit log, the policy or the configuration would let it
	 * change that file, which the views bind read-only only at its own
	 * path (the tools refuse such a link by its inode, lib/write.c).
	 */
	if (o->isolate != WS_ISOLATE_NONE) {
		const char *g = ws_ctx_guard_linked(ws);

		if (g != NULL)
			return ws_error_set(WS_EPOLICY_DENIED, g, "is wstools' own "
					    "configuration, policy or audit log and has "
					    "another hard link on the workspace's file "
					    "system: a command could change it through "
					    "that name; remove the other link");
	}
	ws_sandbox_probe(&r->iso, o->disable, false);
	r->view.view = o->view;
	r->view.from_paths = o->view_from_paths;
	if ((rc = ws__plan_layers(o, &r->iso, &plan)) < 0 ||
	    (virt && (rc = ws__view_check(o, &r->iso)) < 0))
		goto out;
	if ((rc = ws__net_by_name(ws, o, r, &plan, &proxy)) < 0)
		goto out;
	/*
	 * A workspace (or a mount) at / is the whole file system: there is
	 * nothing to confine the command to.  Say so plainly rather than
	 * fail later in the minimal root.
	 */
	for (size_t a = 0; o->isolate != WS_ISOLATE_NONE && a < ws->nanchors; a++)
		if (strcmp(ws->anchors[a].real, "/") == 0) {
			rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, ws->anchors[a].vprefix,
					  "the %s is / (the whole file system): a "
					  "command cannot be confined to it; give a "
					  "narrower --workspace, or --isolate none to "
					  "run it unconfined",
					  a == 0 ? "workspace" : "mount");
			goto out;
		}
	if ((cmdline = ws_run_cmdline(o)) == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	if ((rc = ws_run_check_command(ws, cmdline)) < 0)
		goto out;
	plan.mask_blocked = ws->policy == NULL ||
			    ws_policy_ncommand_rules(ws->policy) == 0;
	/* The working directory, resolved on descriptors like any path. */
	if ((rc = ws_resolve(ws, o->cwd ? o->cwd : "/", 0, &cwd)) < 0) {
		if (o->cwd != NULL)
			ws__error_about_cwd(rc);
		goto out;
	}
	if (!S_ISDIR(cwd.st.st_mode)) {
		rc = ws_error_set(WS_ENOT_A_DIRECTORY, cwd.vpath,
				  "--cwd is not a directory");
		goto out;
	}
	if ((r->cwd = strdup(cwd.vpath)) == NULL ||
	    (plan.cwd_real = strdup(cwd.real)) == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	plan.cwd_fd = cwd.fd;
	/*
	 * In the virtual view, the directory the resolver reached (through
	 * any symlink inside the workspace) under its own virtual name: the
	 * view holds no symlink's target under the link's name, and the
	 * sandbox checks that name against cwd_fd's inode.
	 */
	if (virt && cwd.final_anchor != WS_ANCHOR_HOST)
		rc = ws_ctx_to_virtual(ws, cwd.real, &plan.cwd_in);
	else if (virt && (plan.cwd_in = strdup(cwd.vpath)) == NULL)
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if (rc < 0)
		goto out;
	if (virt && cwd.final_anchor <= 0) {
		char top[300];

		if (ws_view_shadowed(plan.cwd_in, top, sizeof(top))) {
			rc = ws_error_set(WS_EINVALID_ARGUMENT, cwd.vpath,
					  "hidden in the virtual view by the system's "
					  "%s (the --cwd directory); use --view real",
					  top);
			goto out;
		}
	}
	/*
	 * HOME and TMPDIR: in the minimal root they live in its private
	 * /tmp, which vanishes with the namespace; elsewhere a directory
	 * is made for the call and removed after it.
	 */
	plan.tmp_size = o->tmp_size > 0 ? o->tmp_size : ws_run_tmp_size_default();
	if (plan.mountns) {
		if ((plan.priv_real = strdup(WS__PRIV_IN_ROOT)) == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			goto out;
		}
	} else if ((rc = ws__priv_make(&plan.priv_real, &plan.priv_fd)) < 0) {
		goto out;
	}
	if (o->isolate != WS_ISOLATE_NONE)
		ws__pending_dir_ready();
	if (plan.landlock_abi > 0 || plan.mountns) {
		rc = ws_sandbox_plan_fill(&plan, ws, o->allow_read, o->nallow_read,
					  o->allow_write, o->nallow_write,
					  !plan.mountns);
		if (rc < 0 ||
		    (rc = ws_grants_check_names(ws, plan.paths, plan.npaths)) < 0 ||
		    (rc = ws__policy_grants(ws, &plan, o, r)) < 0 ||
		    (o->isolate != WS_ISOLATE_NONE &&
		     (rc = ws_view_policy(ws, &plan, &r->view, plan.mountns)) < 0) ||
		    (virt && (rc = ws_view_plan(ws, &plan, &r->view)) < 0))
			goto out;
	}
	/*
	 * Without a mount namespace nothing keeps the entries a later call's
	 * boundary depends on (a symlink the root or a mount is spelled
	 * through, wstools' own configuration, a read-only mount inside the
	 * workspace) from being changed: a command could redirect the next
	 * call.  auto refuses rather than run with that hole.
	 */
	if (!plan.mountns && o->isolate != WS_ISOLATE_NONE && plan.nboundary > 0) {
		rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
				  "the workspace holds %zu entr%s that a later call's "
				  "boundary depends on (a symlink the root or a mount "
				  "is spelled through, wstools' own configuration or "
				  "policy, a read-only mount inside a writable one), "
				  "and without a mount namespace they cannot be kept "
				  "read-only; spell the root and mounts by real paths, "
				  "keep the configuration outside, or use --isolate none",
				  plan.nboundary, plan.nboundary == 1 ? "y" : "ies");
		goto out;
	}
	/*
	 * Likewise HOME's persistence places that exist in a writable anchor
	 * (the workspace is HOME, a directory on $PATH lies in it, or
	 * ~/.config is a link into it): a mount namespace binds each
	 * read-only; without one the command could change what the user's
	 * next login, shell or editor runs, and the revert after the run
	 * removes only what it created, not what it changed.  Refused, named.
	 */
	if (!plan.mountns && o->isolate != WS_ISOLATE_NONE &&
	    plan.nheld_places > 0) {
		rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, plan.held_place,
				  "is one of HOME's persistence places (or on the way "
				  "to one: $PATH's directories, $XDG_CONFIG_HOME's, "
				  "...), where a later login, session or program of the "
				  "user's finds what to run, and without a mount "
				  "namespace a command cannot be kept from changing it "
				  "(%zu such entr%s); use --isolate none to run "
				  "unconfined", plan.nheld_places,
				  plan.nheld_places == 1 ? "y" : "ies");
		goto out;
	}
	/* A user namespace's init copies the trees itself (see there). */
	plan.userns = r->iso.userns && r->iso.layer[WS_LAYER_PIDNS].planned;
	/*
	 * What the command may create and the call reverts, as it is
	 * before the command runs: the places here, the repositories' walk
	 * here too or, where init shares this memory and the workspace is
	 * large enough (ch.shared_vm below; see ws__vsnap), on a thread
	 * while init builds the root.  (Taken in this thread after the
	 * clone, init waited for a word on its socket: on a loaded machine
	 * a time slice more, measured.  Init waits on the thread's futex
	 * only when the walk is the slower.)  HOME's places as the plan
	 * resolved them a moment ago, in this thread (whether each exists
	 * is asked again); after a wait for another command's lock,
	 * resolved again: that command may have changed the way to them.
	 */
	vcs_async = o->isolate != WS_ISOLATE_NONE && WS__INIT_SHARES_VM &&
		    ws__environ_detached && r->iso.layer[WS_LAYER_PIDNS].planned &&
		    !plan.userns && ws__vsnap_worth(ws);
	if (o->isolate != WS_ISOLATE_NONE &&
	    ((rc = ws__ws_lock(ws, o, &wslock, &up, &turn, &waited, &blocked)) < 0 ||
	     (rc = ws__places_snapshot(ws, blocked ? NULL : &plan, &places,
				       &nplaces, &proot_marker)) < 0 ||
	     (plan.mountns && !virt && proot_marker != NULL &&
	      (rc = ws__pin_marker(ws, &plan, proot_marker)) < 0) ||
	     (!vcs_async && (rc = ws_vcs_snapshot(ws, &vcs)) < 0)))
		goto out;
	if (o->isolate != WS_ISOLATE_NONE)
		ws__held_ids(ws, &plan, &held, &nheld);
	if (vcs != NULL && (rc = ws_vcs_snap_hold(vcs, held, nheld)) < 0)
		goto out;
	/* What it makes there counts as absent for other calls meanwhile. */
	if (o->isolate != WS_ISOLATE_NONE &&
	    (rc = ws__pending_add(ws, places, nplaces, r, &prec)) < 0)
		goto out;
	/* Waiting for another command is not this command's time. */
	start += waited;
	r->waited_ms = waited;
	if ((rc = ws__env_build(o, plan.priv_real, &env, r, plan.net_proxy)) < 0)
		goto out;
	/* In the virtual view a virtual path is the command's own. */
	r->view.map_paths_ignored = virt && o->map_paths;
	rc = o->shell ? ws__shell_argv(o, &argv)
		      : ws__map_args(ws, o, o->map_paths && !virt, &argv);
	if (rc < 0)
		goto out;
	if (o->planned != NULL)
		o->planned(o->planned_arg, r);
	if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
	    pipe2(repp, O_CLOEXEC) < 0 || pipe2(statp, O_CLOEXEC) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, syncp) < 0 ||
	    (virt && socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, viewp) < 0) ||
	    (proxy != NULL &&
	     socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, netp) < 0)) {
		rc = ws_error_errno(errno, NULL, "pipe");
		goto out;
	}
	if (o->stdin_data) {
		if (pipe2(inp, O_CLOEXEC) < 0) {
			rc = ws_error_errno(errno, NULL, "pipe");
			goto out;
		}
		in_fd = inp[0];
		fcntl(inp[1], F_SETFL, O_NONBLOCK);
		signal(SIGPIPE, SIG_IGN);
	} else if (o->stdin_inherit) {
		in_fd = 0;
	} else if ((in_fd = inp[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		rc = ws_error_errno(errno, "/dev/null", "open");
		goto out;
	}
	err_w = errp[1];
	/*
	 * Plain mode with standard output and error going to the same place
	 * (a terminal, "2>&1", ">log 2>&1"): one pipe for both, so that the
	 * command's lines keep their order, as when it runs directly.
	 */
	if (o->stream_out >= 0 && o->stream_err >= 0) {
		struct stat so, se;

		if (fstat(o->stream_out, &so) == 0 && fstat(o->stream_err, &se) == 0 &&
		    so.st_dev == se.st_dev && so.st_ino == se.st_ino)
			err_w = outp[1];
	}
	/*
	 * The unused pipe's write end goes now: a process forked later (the
	 * guardian) would hold a copy of it, and standard error's end of
	 * file would wait for that process (250 ms a call, measured).
	 */
	if (err_w != errp[1])
		ws__close(&errp[1]);
	if ((rc = ws__cap_init(&cap[0], outp[0], o->stream_out, o->max_output)) < 0 ||
	    (rc = ws__cap_init(&cap[1], errp[0], o->stream_err, o->max_output)) < 0)
		goto out;
	outp[0] = errp[0] = -1;

	proc.pidns = r->iso.layer[WS_LAYER_PIDNS].planned;
	if (proc.pidns) {
		flags = CLONE_NEWPID | (plan.userns ? CLONE_NEWUSER : 0);
		if (plan.mountns)
			flags |= CLONE_NEWNS;
		if (plan.netns)
			flags |= CLONE_NEWNET;
	} else {
		if (r->iso.layer[WS_LAYER_CGROUP].planned) {
			ws__cg_make(&proc, &r->iso);
			r->iso.layer[WS_LAYER_CGROUP].planned = proc.cg_fd >= 0;
		}
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	}
	/*
	 * The soft descriptor limit raised now if the policy's walk has not
	 * (ws__nofile_raise()): the repositories' walk may raise it on a
	 * thread of its own while the child starts, and the limit the
	 * command gets back must be known before it does.
	 */
	ws__nofile_raise();
	ch = (struct ws__child){
		.o = o, .plan = &plan, .argv = argv, .envp = env.v,
		.in_fd = in_fd, .out_w = outp[1], .err_w = err_w,
		.rep_w = repp[1], .status_w = statp[1], .sync_r = syncp[0],
		.net_w = netp[1], .pidns = proc.pidns, .landlock = plan.landlock_abi > 0,
		.seccomp = plan.seccomp, .caps = plan.caps, .cwd_fd = cwd.fd,
		.view_w = viewp[1], .reaper = !proc.pidns, .parent = getpid(),
	};
	ch.nofile_back = ws__nofile_soft(&ch.nofile_soft);
	fflush(NULL);
	/* The test-only "userns-refused" (WS_RUN_DISABLE): the clone below
	 * fails as a chroot's does; nothing is made ahead for it. */
	refuse = proc.pidns && (o->disable & WS_LAYERS_USERNS_REFUSED_BIT);
	ch.shared_vm = WS__INIT_SHARES_VM && ws__environ_detached && proc.pidns &&
		       !plan.userns && !refuse;
	/*
	 * Where init will share this thread's errno, what this thread did
	 * with the C library after the clone goes to a thread of its own
	 * (see struct ws__vsnap); without one, init gets a memory of its
	 * own (a copy, as without ws__environ_detached).
	 */
	vsnap.walk = vcs_async;
	vsnap.vcs = vcs;
	vsnap.held = held;
	vsnap.nheld = nheld;
	vsnap.o = o;
	vsnap.places = places;
	vsnap.nplaces = nplaces;
	vsnap.proc = &proc;
	vsnap.wslock = wslock;
	vsnap.up = &up;
	vsnap.prec_fd = prec.fd;
	vsnap.guard = need_guard ? &guard : NULL;
	if (ch.shared_vm && (vcs_async || need_guard)) {
		if (pthread_create(&vsnap.thr, NULL, ws__vsnap_main, &vsnap) == 0) {
			vsnap.started = true;
			ch.snap_state = &vsnap.state;
		} else {
			ch.shared_vm = false;
		}
	}
	if (vcs_async && !vsnap.started &&
	    ((rc = ws_vcs_snapshot(ws, &vcs)) < 0 ||
	     (rc = ws_vcs_snap_hold(vcs, held, nheld)) < 0))
		goto out;
	/*
	 * The base of the minimal root, for a plan that has HOME there, and
	 * the system's part of it when no bind of the plan lands in it.
	 */
	zbase.on = plan.mountns && plan.priv_fd < 0 && plan.priv_real != NULL &&
		   strcmp(plan.priv_real, WS__PRIV_IN_ROOT) == 0;
	zbase.virt = plan.virt;
	zbase.tmp_size = plan.tmp_size;
	zbase.sys = zbase.on && ws_sandbox_plan_system_apart(&plan);
	zbase.blocked = plan.mask_blocked;
	ahead_asked = ch.shared_vm;
	taken = ch.shared_vm && ws__ahead_take(flags, &zbase, &zyg);
	if (taken) {
		/* Made ahead (see ws_run_ahead_start()); from here the way
		 * out kills and reaps it. */
		plan.base_ready = zyg.base.on;
		plan.base_sys = zyg.base.on && zyg.base.sys_done;
		proc.pid = zyg.pid;
		proc.pidfd = zyg.pidfd;
		init_stack = zyg.stack;
		init_stack_sz = zyg.stack_sz;
	}
	/* The detached trees, but the system's that init holds already. */
	if (plan.mountns && !plan.userns && (rc = ws_sandbox_plan_trees(&plan)) < 0)
		goto out;
	{
		const char *d = getenv("WS_RUN_READY_DELAY_MS");

		if (d != NULL && *d != '\0')
			ch.ready_delay_ms = (int)strtol(d, NULL, 10) % 10000;
	}
	if ((rc = ws__child_keep(&ch, &plan, proc.cg_fd, &keep)) < 0)
		goto out;
	/*
	 * The child starts with the stopping signals blocked (init takes
	 * them in ws__init_wait(), the command's child unblocks them): one
	 * that came before init's own sigprocmask() would run the caller's
	 * handler in init (wsrun's in its memory, a test runner's that
	 * kills its process group in a copy).  Direct calls: init may run
	 * in this memory already when the mask is put back.
	 */
	ws__sys4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&stopset, (long)&oldset,
		 sizeof(stopset));
	if (taken) {
		/* It starts now. */
		struct ws__child *chp = &ch;

		if (ws__sys4(SYS_write, zyg.go[1], (long)&chp, sizeof(chp), 0) !=
		    (long)sizeof(chp))
			ws__sys4(SYS_pidfd_send_signal, zyg.pidfd, SIGKILL, 0, 0);
	} else if (ch.shared_vm)
		proc.pid = ws__spawn_init(&ch, flags, &proc.pidfd, &init_stack,
					  &init_stack_sz);
	else if (refuse)
		errno = EPERM;
	else if (proc.pidns)
		proc.pid = ws__clone(flags, -1, &proc.pidfd);
	else
		proc.pid = ws__spawn_direct(&ch, proc.cg_fd, &proc.pidfd);
	/* (No errno touched: init may be using it.) */
	if (proc.pid != 0)
		ws__sys4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&oldset, 0,
			 sizeof(oldset));
	if (proc.pid < 0) {
		*userns_refused = (plan.userns || refuse) && errno == EPERM;
		rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
				  "cannot start the command (clone: %s)",
				  strerror(errno));
		goto out;
	}
	if (proc.pid == 0)
		ws__init_entry(&ch);
	/*
	 * From here the clean-up survives wsrun (see struct ws__guardian).
	 * Where init shares this memory, the side thread starts the
	 * guardian and this thread waits for init's "r" with direct system
	 * calls; then the thread's result is the call's.  Otherwise, here.
	 */
	if (vsnap.started) {
		ws__vsnap_release(&vsnap, 1);
	} else if (need_guard &&
		   (rc = ws__guard_begin(ws, o, places, nplaces, vcs, &proc,
					 wslock, &up, prec.fd, &guard)) < 0) {
		goto out;
	}
	if (ch.shared_vm &&
	    (cancelled = ws__wait_init_ready(syncp[1], proc.pidfd,
					     o->timeout_ms > 0 ? start + o->timeout_ms : -1,
					     o->cancel, o->grace_ms)) != 0)
		killtime = ws__now_ms() + o->grace_ms;
	if ((rc = ws__vsnap_join(&vsnap, &vcs)) < 0)
		goto out;
	if (zyg.pid > 0) {
		ws__ahead_settled(&zyg);
		if (zyg.flags & CLONE_NEWNET)
			snprintf(r->iso.layer[WS_LAYER_NETNS].why,
				 sizeof(r->iso.layer[WS_LAYER_NETNS].why), "%s",
				 "new, made ahead of the call, for this call only");
		snprintf(r->iso.layer[WS_LAYER_PIDNS].why,
			 sizeof(r->iso.layer[WS_LAYER_PIDNS].why), "%s",
			 "new, made ahead of the call, for this call only");
	}
	ws__close(&outp[1]);
	ws__close(&errp[1]);
	ws__close(&repp[1]);
	ws__close(&statp[1]);
	ws__close(&syncp[0]);
	ws__close(&viewp[1]);
	if (plan.userns) {
		/* The same ids inside; then init may go on. */
		if ((rc = ws__userns_map(proc.pid)) < 0 ||
		    send(syncp[1], "g", 1, MSG_NOSIGNAL) != 1) {
			if (rc == 0)
				rc = ws_error_errno(errno, NULL, "user namespace");
			goto out;
		}
	}
	if (o->stdin_data)
		ws__close(&inp[0]);
	else if (!o->stdin_inherit)
		ws__close(&inp[0]);
	/* Network by name: the proxy takes the listener when init sends it. */
	ws__close(&netp[1]);
	if (proxy != NULL) {
		rc = ws_netproxy_start(proxy, netp[0]);
		netp[0] = -1;
		if (rc < 0)
			goto out;
	}

	deadline = o->timeout_ms > 0 ? start + o->timeout_ms : -1;
	for (;;) {
		struct pollfd pf[6];
		int np = 0, ip = -1, ir = -1, is = -1, ipid = -1, io[2] = {-1, -1};
		long long now = ws__now_ms(), wait_ms = -1;

		for (int k = 0; k < 2; k++)
			if (cap[k].fd >= 0) {
				io[k] = np;
				pf[np++] = (struct pollfd){.fd = cap[k].fd, .events = POLLIN};
			}
		if (!exited) {
			ipid = np;
			pf[np++] = (struct pollfd){.fd = proc.pidfd, .events = POLLIN};
		}
		/*
		 * The report is read once the process is gone (it waits in its
		 * pipe): no wake-up when the command's exec closes the pipe.
		 * init's status says the tree is gone (see ws__init_wait()).
		 */
		if (repp[0] >= 0 && exited) {
			ir = np;
			pf[np++] = (struct pollfd){.fd = repp[0], .events = POLLIN};
		}
		if (statp[0] >= 0) {
			is = np;
			pf[np++] = (struct pollfd){.fd = statp[0], .events = POLLIN};
		}
		if (inp[1] >= 0) {
			ip = np;
			pf[np++] = (struct pollfd){.fd = inp[1], .events = POLLOUT};
		}
		if (exited && cap[0].fd < 0 && cap[1].fd < 0 && repp[0] < 0 &&
		    statp[0] < 0)
			break;
		if (deadline >= 0 && !r->timed_out)
			wait_ms = deadline > now ? deadline - now : 0;
		if (killtime >= 0)
			wait_ms = killtime > now ? killtime - now : 0;
		if (exited)
			wait_ms = 2000; /* drain: the tree is dead or dying */
		/* A signal just before poll() would wait unseen: look again. */
		if (wait_ms < 0 || wait_ms > 250)
			wait_ms = 250;
		rc = poll(pf, (nfds_t)np, wait_ms > INT32_MAX ? INT32_MAX : (int)wait_ms);
		if (rc < 0 && errno != EINTR) {
			rc = ws_error_errno(errno, NULL, "poll");
			break;
		}
		now = ws__now_ms();
		if (rc == 0 && exited) {
			/* Someone still holds the pipes: stop reading. */
			ws__kill_all(&proc, SIGKILL);
			ws__close(&cap[0].fd);
			ws__close(&cap[1].fd);
			ws__close(&repp[0]);
			ws__close(&statp[0]);
			continue;
		}
		if (!exited && ws_progress_wanted()) {
			char msg[128];

			/* Reads on its own (ftu17 03), with the timeout. */
			if (o->timeout_ms > 0)
				snprintf(msg, sizeof(msg), "the command is running "
					 "(%lld s of at most %lld s)",
					 (now - start) / 1000,
					 (long long)o->timeout_ms / 1000);
			else
				snprintf(msg, sizeof(msg), "the command is running "
					 "(%lld s)", (now - start) / 1000);
			ws_progress_total(now - start, o->timeout_ms > 0
					  ? (long long)o->timeout_ms : 0, msg, false);
		}
		if (((o->cancel && *o->cancel) || ws_cancelled()) && !cancelled &&
		    !exited) {
			/* The caller was interrupted (a signal, or a client's
			 * cancellation): the tree goes too, with SIGINT or
			 * SIGHUP as sent, else SIGTERM. */
			cancelled = o->cancel && *o->cancel ? *o->cancel : SIGTERM;
			ws__kill_all(&proc, cancelled == SIGINT || cancelled == SIGHUP ?
					    cancelled : SIGTERM);
			killtime = now + o->grace_ms;
		} else if (deadline >= 0 && !r->timed_out && now >= deadline && !exited) {
			r->timed_out = true;
			ws__kill_all(&proc, SIGTERM);
			killtime = now + o->grace_ms;
		} else if (killtime >= 0 && now >= killtime) {
			ws__kill_all(&proc, SIGKILL);
			killtime = -1;
		}
		if (rc <= 0)
			continue;
		for (int k = 0; k < 2; k++)
			if (io[k] >= 0 && pf[io[k]].revents && !ws__cap_read(&cap[k]))
				ws__close(&cap[k].fd);
		if (ir >= 0 && pf[ir].revents) {
			ssize_t n = read(repp[0], &rep, sizeof(rep));

			if (n == (ssize_t)sizeof(rep))
				got_rep = true;
			if (n <= 0 || got_rep)
				ws__close(&repp[0]);
		}
		if (is >= 0 && pf[is].revents) {
			ssize_t n = read(statp[0], irep, sizeof(irep));

			got_status = n == (ssize_t)sizeof(irep);
			ws__close(&statp[0]);
			if (got_status && proc.pidns && !exited) {
				/* Reaped later: init's exit is the teardown. */
				exited = true;
				reap_later = true;
				killtime = -1;
			}
		}
		if (ip >= 0 && pf[ip].revents) {
			ssize_t n = pf[ip].revents & POLLOUT ?
				    write(inp[1], o->stdin_data + in_off,
					  o->stdin_len - in_off) : -1;

			if (n > 0)
				in_off += (size_t)n;
			if (n < 0 && errno == EAGAIN)
				n = 0;
			if (n < 0 || in_off >= o->stdin_len)
				ws__close(&inp[1]);
		}
		if (ipid >= 0 && pf[ipid].revents) {
			exited = true;
			killtime = -1;
			if (wait4(proc.pid, &status_raw, 0, &ru) == proc.pid)
				r->max_rss_kb = ru.ru_maxrss;
			/* The command is done: nothing it started lives on. */
			if (!proc.pidns)
				ws__kill_all(&proc, SIGKILL);
		}
	}
	r->duration_ms = ws__now_ms() - start;
	/* The tree is gone: so is every connection it had; the proxy ends. */
	ws_netproxy_stop(proxy, &r->net_conns, &r->nnet_conns);
	if (!proc.pidns) {
		/* Reap what the subreaper inherited. */
		ws__kill_all(&proc, SIGKILL);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		getrusage(RUSAGE_CHILDREN, &ru);
		if (ru.ru_maxrss > r->max_rss_kb)
			r->max_rss_kb = ru.ru_maxrss;
		prctl(PR_SET_CHILD_SUBREAPER, 0);
	} else if (got_status) {
		status_raw = irep[0];
		r->max_rss_kb = irep[1];
	} else if (WIFEXITED(status_raw) && !got_rep &&
		   (WEXITSTATUS(status_raw) == 128 + SIGINT ||
		    WEXITSTATUS(status_raw) == 128 + SIGHUP ||
		    WEXITSTATUS(status_raw) == 128 + SIGTERM)) {
		/* A stopping signal came during init's setup: the command
		 * never started (ws__init_main()), as if it died of it. */
		status_raw = WEXITSTATUS(status_raw) - 128;
	} else if (WIFEXITED(status_raw)) {
		/* init failed before the command ran (its report says why). */
		status_raw = 0;
		if (!got_rep) {
			got_rep = true;
			rep.stage = WS__STAGE_SETUP;
			rep.err = EIO;
			snprintf(rep.msg, sizeof(rep.msg), "the namespace init failed");
		}
	}
	if (got_rep && !r->timed_out) {
		if (rep.stage == WS__STAGE_EXEC && rep.err == EACCES &&
		    ws__exec_refused(ws, &plan, virt, rep.msg, &r->view)) {
			r->status = WS_RUN_EXIT_NOEXEC;
			rc = WS_EPOLICY_DENIED;
		} else if (rep.stage == WS__STAGE_EXEC) {
			r->status = rep.err == ENOENT ? WS_RUN_EXIT_NOTFOUND
						      : WS_RUN_EXIT_NOEXEC;
			rc = ws_error_set(rep.err == ENOENT ? WS_ENOT_FOUND
							    : WS_EPERMISSION_DENIED,
					  NULL, "%s: %s", rep.msg,
					  rep.err == ENOENT ? "command not found"
							    : strerror(rep.err));
		} else {
			rc = ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
					  "sandbox setup failed: %s", rep.msg);
		}
		ws__iso_finish(&r->iso, &plan, false);
		goto out;
	}
	ws__iso_finish(&r->iso, &plan, true);
	if (WIFSIGNALED(status_raw)) {
		r->signal = WTERMSIG(status_raw);
		r->exit_code = -1;
		r->status = 128 + r->signal;
	} else {
		r->exit_code = WEXITSTATUS(status_raw);
		r->status = r->exit_code;
	}
	if (r->timed_out)
		r->status = WS_RUN_EXIT_TIMEOUT;
	if (cancelled)
		r->status = 128 + cancelled;
	if ((rc = ws__cap_finish(&cap[0], &r->out)) < 0 ||
	    (rc = ws__cap_finish(&cap[1], &r->err)) < 0)
		goto out;
	rc = 0;
out:
	/* A call that failed before the join: the snapshot, taken or not,
	 * is freed below; its error is not the call's. */
	if (vsnap.started) {
		ws__vsnap_release(&vsnap, -1);
		pthread_join(vsnap.thr, NULL);
		vsnap.started = false;
		if (vsnap.walk)
			vcs = vsnap.vcs;
	}
	if (r->duration_ms == 0)
		r->duration_ms = ws__now_ms() - start;
	if (rc < 0 && proc.pid > 0 && !exited) {
		ws__kill_all(&proc, SIGKILL);
		waitpid(proc.pid, NULL, 0);
	}
	/*
	 * Every process of the command is gone: the names it made at the
	 * top of the virtual root go into the workspace (before the revert,
	 * which then removes what no tool may create), then undo what it
	 * created.
	 */
	if (viewp[0] >= 0 && (view_root = ws_view_recv_root(viewp[0], &r->view)) >= 0) {
		ws_view_apply(ws, view_root, &r->view);
		ws__close(&view_root);
	}
	if (zyg.go[0] >= 0)
		ws__ahead_settled(&zyg);
	ws__cleanup(ws, o, places, nplaces, vcs, r);
	ws_pending_drop(r);
	ws_pending_unpublish(&prec);
	ws__places_free(places, nplaces);
	free(proot_marker);
	ws_vcs_snap_free(vcs);
	free(held);
	ws__guardian_done(&guard);
	ws__gs_done(&guard);
	/* Cleaned: the next command in this workspace may start. */
	ws__ws_unlock(&wslock, &up, &turn);
	ws__cg_remove(&proc);
	ws__close(&proc.pidfd);
	for (int k = 0; k < 2; k++)
		ws__cap_free(&cap[k]);
	ws__close(&outp[0]); ws__close(&outp[1]);
	ws__close(&errp[0]); ws__close(&errp[1]);
	ws__close(&repp[0]); ws__close(&repp[1]);
	ws__close(&statp[0]); ws__close(&statp[1]);
	ws__close(&syncp[0]); ws__close(&syncp[1]);
	ws__close(&inp[0]); ws__close(&inp[1]);
	ws__close(&viewp[0]); ws__close(&viewp[1]);
	ws__close(&netp[0]); ws__close(&netp[1]);
	if (r->net_conns == NULL)
		ws_netproxy_stop(proxy, &r->net_conns, &r->nnet_conns);
	ws_netproxy_counts(proxy, &r->net_total, &r->net_refused);
	ws_netproxy_free(proxy);
	if (plan.priv_fd >= 0)
		ws__priv_remove(plan.priv_real, plan.priv_fd);
	free(plan.priv_real);
	free(plan.cwd_real);
	free(plan.cwd_in);
	plan.cwd_fd = -1;
	if (plan.priv_fd >= 0)
		close(plan.priv_fd);
	ws_sandbox_plan_free(&plan);
	ws_res_free(&cwd);
	ws__env_free(&env);
	ws__free_argv(argv);
	free(cmdline);
	/*
	 * Last: what came before overlapped init's exit (the teardown).  A
	 * program that exits after the call does not wait for it (see
	 * ws_run_exit_soon()); init's stack then stays mapped, as init may
	 * still run on it, until the process ends.
	 */
	if (reap_later && ws__exit_soon)
		init_stack = NULL;
	else if (reap_later && init_stack != NULL &&
		 ws__ahead_reap(proc.pid, init_stack, init_stack_sz))
		init_stack = NULL; /* reaped and unmapped by that thread */
	else if (reap_later)
		while (waitpid(proc.pid, NULL, 0) < 0 && errno == EINTR)
			;
	ws__guardian_reap(&guard);
	if (ahead_asked)
		ws__ahead_done();
	/* init is reaped on every way here: its stack is free. */
	if (init_stack != NULL)
		munmap(init_stack, init_stack_sz);
	free(keep);
	return rc;
}

#define WS__USERNS_REFUSED "the kernel refused a user namespace (clone: EPERM; in a chroot?)"

int
ws_run(struct ws_ctx *ws, const struct ws_run_opts *o, struct ws_run_result *r)
{
	bool refused = false;
	int rc = ws__run_once(ws, o, r, &refused);

	/*
	 * The kernel refused the user namespace the probe counted on (a
	 * chroot: unprivileged user namespaces are on, but not for a
	 * chrooted process).  --isolate auto: the namespaces go, and
	 * Landlock and seccomp still hold what isolation then reports.
	 * --isolate none: the command starts without its PID namespace,
	 * its tree killed through a cgroup or its process group, as where
	 * the probe finds no namespaces; none runs wherever auto does.
	 * --isolate strict needs them: refused, saying which and why.
	 */
	if (rc == WS_ESANDBOX_UNAVAILABLE && refused && o->isolate == WS_ISOLATE_STRICT)
		return ws_error_set(WS_ESANDBOX_UNAVAILABLE, NULL,
				    "--isolate strict: mountns, pidns and netns are "
				    "not available: %s; --isolate auto runs the "
				    "command with the other layers", WS__USERNS_REFUSED);
	if (rc == WS_ESANDBOX_UNAVAILABLE && refused) {
		struct ws_run_opts again = *o;
		bool unused = false;

		again.disable |= WS_LAYERS_USERNS_BIT;
		/* The simulation runs as root too, which needs no user
		 * namespace: its namespaces go by name. */
		if (o->disable & WS_LAYERS_USERNS_REFUSED_BIT)
			again.disable |= 1U << WS_LAYER_MOUNTNS |
					 1U << WS_LAYER_PIDNS | 1U << WS_LAYER_NETNS;
		again.disable &= ~WS_LAYERS_USERNS_REFUSED_BIT;
		ws_run_free(r);
		rc = ws__run_once(ws, &again, r, &unused);
		for (int l = WS_LAYER_MOUNTNS; l <= WS_LAYER_NETNS; l++)
			if (!r->iso.layer[l].enforced &&
			    (o->isolate != WS_ISOLATE_NONE || l == WS_LAYER_PIDNS))
				snprintf(r->iso.layer[l].why, sizeof(r->iso.layer[l].why),
					 "%s", WS__USERNS_REFUSED);
	}
	return rc;
}

void
ws_run_free(struct ws_run_result *r)
{
	free(r->out.data);
	free(r->err.data);
	free(r->cwd);
	for (size_t i = 0; i < r->nenv_dropped; i++)
		free(r->env_dropped[i]);
	free(r->env_dropped);
	for (size_t i = 0; i < r->nreverted; i++)
		free(r->reverted[i]);
	free(r->reverted);
	for (size_t i = 0; i < r->nkept; i++)
		free(r->kept[i]);
	free(r->kept);
	ws_policy_grants_free(r->grants, r->ngrants);
	ws_view_info_free(&r->view);
	ws_net_conns_free(r->net_conns, r->nnet_conns);
	memset(r, 0, sizeof(*r));
}
