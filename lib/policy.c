/*
 * policy.c - policies: loading, validation, variable expansion, the file
 * and command rules, and the gate ws_check() every tool calls.
 */
#include "ws/policy.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws-config.h"
#include "ws/audit.h"
#include "ws/config.h"
#include "ws/error.h"
#include "ws/glob.h"
#include "ws/guard.h"
#include "ws/history.h"
#include "ws/netproxy.h"
#include "ws/path.h"
#include "ws/pending.h"
#include "ws/persist.h"
#include "ws/vars.h"
#include "ws/workspace.h"

static const char *const ws__ops[WS__OP_COUNT] = {
	"read", "open", "stat", "list", "readlink", "write", "create",
	"mkdir", "chmod", "rename", "delete", "rmdir", "exec",
};

static const char *const ws__decisions[] = {"allow", "deny", "approve"};

#define WS__ALL_OPS ((1u << WS__OP_COUNT) - 1)
#define WS__STR2(x) #x
#define WS__STR(x) WS__STR2(x)

struct ws__frule {
	char *name;
	unsigned ops; /* bit per enum ws_op */
	enum ws_decision decision;
	char *message;
	char **raw;		 /* paths as written */
	struct ws_glob **globs;	 /* NULL where a path expanded to "" */
	bool *resolved;		 /* a variable in it was resolved (ws_vars_resolved) */
	size_t n;
};

struct ws__crule {
	char *name;
	enum ws_decision decision;
	char *message;
	char **patterns;
	pcre2_code **codes; /* compiled on first use */
	size_t n;
};

/* A network rule: host patterns (variables expanded) and a decision. */
struct ws__nrule {
	char *name;
	enum ws_decision decision;
	char *message;
	char **hosts;
	size_t n;
};

struct ws_policy {
	char *name, *description, *path;
	bool strict;
	struct ws__nrule *nrules;
	size_t nn;
	size_t nn_hosts; /* hosts of all of them */
	struct ws__frule *frules;
	size_t nf;
	bool open_split; /* a rule names one of read and open, not both */
	struct ws__crule *crules;
	size_t nc;
	bool crules_compiled;
	pcre2_match_data *cmd_md;
	/* A call's view of a shared policy (ws_policy_view()): owns only
	 * itself and cmd_md. */
	bool view;
	ws_policy_log_fn log;
	ws_policy_prompt_fn prompt;
	void *hook_arg;
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
			    "unknown operation \"%s\" (read, open, stat, list, "
			    "readlink, write, create, mkdir, chmod, rename, "
			    "delete, rmdir or exec)", name);
}

const char *
ws_decision_name(enum ws_decision d)
{
	return (unsigned)d < 3 ? ws__decisions[d] : "?";
}

/* ---- Freeing and accessors ---- */

static void
ws__strv_free(char **v, size_t n)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
ws_policy_free(struct ws_policy *p)
{
	if (p == NULL)
		return;
	if (p->view) {
		pcre2_match_data_free(p->cmd_md);
		free(p);
		return;
	}
	for (size_t i = 0; i < p->nf; i++) {
		struct ws__frule *r = &p->frules[i];

		free(r->name);
		free(r->message);
		ws__strv_free(r->raw, r->n);
		if (r->globs != NULL)
			for (size_t j = 0; j < r->n; j++)
				ws_glob_free(r->globs[j]);
		free(r->globs);
		free(r->resolved);
	}
	free(p->frules);
	for (size_t i = 0; i < p->nc; i++) {
		struct ws__crule *r = &p->crules[i];

		free(r->name);
		free(r->message);
		ws__strv_free(r->patterns, r->n);
		if (r->codes != NULL)
			for (size_t j = 0; j < r->n; j++)
				pcre2_code_free(r->codes[j]);
		free(r->codes);
	}
	free(p->crules);
	for (size_t i = 0; i < p->nn; i++) {
		free(p->nrules[i].name);
		free(p->nrules[i].message);
		ws__strv_free(p->nrules[i].hosts, p->nrules[i].n);
	}
	free(p->nrules);
	pcre2_match_data_free(p->cmd_md);
	free(p->name);
	free(p->description);
	free(p->path);
	free(p);
}

const char *ws_policy_name(const struct ws_policy *p) { return p->name; }
const char *ws_policy_path(const struct ws_policy *p) { return p->path; }
const char *ws_policy_description(const struct ws_policy *p) { return p->description; }
bool ws_policy_strict(const struct ws_policy *p) { return p->strict; }
size_t ws_policy_nfile_rules(const struct ws_policy *p) { return p->nf; }
size_t ws_policy_ncommand_rules(const struct ws_policy *p) { return p->nc; }
size_t ws_policy_nnetwork_rules(const struct ws_policy *p) { return p->nn_hosts; }

void
ws_policy_network_rule(const struct ws_policy *p, size_t i,
		       struct ws_net_rule *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t r = 0; r < p->nn; r++) {
		const struct ws__nrule *n = &p->nrules[r];

		if (i >= n->n) {
			i -= n->n;
			continue;
		}
		out->pattern = n->hosts[i];
		out->decision = n->decision == WS_DECISION_ALLOW ? WS_NET_ALLOW :
				n->decision == WS_DECISION_DENY ? WS_NET_DENY :
				WS_NET_APPROVE;
		out->name = n->name;
		out->policy = p->name;
		out->message = n->message;
		return;
	}
}

void
ws_policy_set_hooks(struct ws_policy *p, ws_policy_log_fn log,
		    ws_policy_prompt_fn prompt, void *arg)
{
	p->log = log;
	p->prompt = prompt;
	p->hook_arg = arg;
}

bool
ws_policy_ask(const struct ws_policy *p, const struct ws_ctx *ws,
	      const struct ws_ask *a)
{
	char *q;
	bool yes;

	if (p == NULL || p->prompt == NULL || ws->no_prompt)
		return false;
	/* Out of memory: no question can be put, so the answer is no. */
	if ((q = ws_policy_question(a)) == NULL)
		return false;
	yes = p->prompt(p->hook_arg, q);
	free(q);
	return yes;
}

/* ---- Parsing ---- */

/* Where a parse error is: the section, the rule's index and name. */
struct ws__where {
	const char *origin;
	const char *section; /* "file_rules", "command_rules" or NULL (top) */
	int index;
	const char *rule;
};

static int ws__perr(const struct ws__where *w, const char *field,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * A POLICY_ERROR naming the rule and the field:
 *   file_rules[2] "allow-x": field "operations": unknown operation "reed"
 */
static int
ws__perr(const struct ws__where *w, const char *field, const char *fmt, ...)
{
	char msg[1024], where[512] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (w->section != NULL && w->rule != NULL)
		snprintf(where, sizeof(where), "%s[%d] \"%s\": ", w->section,
			 w->index, w->rule);
	else if (w->section != NULL)
		snprintf(where, sizeof(where), "%s[%d]: ", w->section, w->index);
	if (field != NULL) {
		size_t l = strlen(where);

		snprintf(where + l, sizeof(where) - l, "field \"%s\": ", field);
	}
	return ws_error_set(WS_EPOLICY_ERROR, w->origin, "%s%s", where, msg);
}


static const char *
ws__json_type(const cJSON *j)
{
	if (cJSON_IsString(j))
		return "a string";
	if (cJSON_IsNumber(j))
		return "a number";
	if (cJSON_IsBool(j))
		return "a boolean";
	if (cJSON_IsArray(j))
		return "an array";
	if (cJSON_IsObject(j))
		return "an object";
	return "null";
}

/* Copy a non-empty array of strings. */
static int
ws__strv(const struct ws__where *w, const char *field, const cJSON *arr,
	 char ***out, size_t *n)
{
	const cJSON *e;
	size_t i = 0;

	if (!cJSON_IsArray(arr))
		return ws__perr(w, field, "must be an array of strings, not %s",
				ws__json_type(arr));
	if (cJSON_GetArraySize(arr) == 0)
		return ws__perr(w, field, "must not be empty");
	*out = calloc((size_t)cJSON_GetArraySize(arr), sizeof(char *));
	if (*out == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	cJSON_ArrayForEach(e, arr) {
		if (!cJSON_IsString(e))
			return ws__perr(w, field, "element %zu must be a string, not %s",
					i, ws__json_type(e));
		(*out)[i] = strdup(e->valuestring);
		if ((*out)[i] == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		*n = ++i;
	}
	return 0;
}

static int
ws__decision(const struct ws__where *w, const cJSON *j, enum ws_decision *d)
{
	if (!cJSON_IsString(j))
		return ws__perr(w, "decision", "must be a string, not %s",
				ws__json_type(j));
	for (int i = 0; i < 3; i++) {
		if (strcmp(j->valuestring, ws__decisions[i]) == 0) {
			*d = (enum ws_decision)i;
			return 0;
		}
	}
	return ws__perr(w, "decision",
			"unknown decision \"%s\" (allow, deny or approve)",
			j->valuestring);
}

/* Whether every {{...}} in a template is a known placeholder. */
static int
ws__check_template(const struct ws__where *w, const char *t)
{
	for (const char *s = strstr(t, "{{"); s != NULL; s = strstr(s, "{{")) {
		const char *e = strstr(s + 2, "}}"), *a = s + 2, *b;

		if (e == NULL)
			return ws__perr(w, "message", "unterminated \"{{\" at offset %zu",
					(size_t)(s - t));
		b = e;
		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		if (!((b - a == 5 && strncmp(a, ".Path", 5) == 0) ||
		      (b - a == 10 && strncmp(a, ".Operation", 10) == 0) ||
		      (b - a == 5 && strncmp(a, ".Rule", 5) == 0)))
			return ws__perr(w, "message",
					"unknown placeholder \"{{%.*s}}\" at offset %zu "
					"({{.Path}}, {{.Operation}} or {{.Rule}})",
					(int)(e - s - 2), s + 2, (size_t)(s - t));
		s = e + 2;
	}
	return 0;
}

/* Collapse runs of "/" (PROJECT_ROOT "/" + "/ **" must still work). */
static void
ws__squeeze_slashes(char *s)
{
	char *o = s;

	for (char *p = s; *p; p++)
		if (!(*p == '/' && o > s && o[-1] == '/'))
			*o++ = *p;
	*o = '\0';
}

/* Whether a glob holds a "{" that no backslash escapes. */
static bool
ws__unescaped_brace(const char *g)
{
	for (const char *c = g; *c; c++) {
		if (*c == '\\' && c[1] != '\0')
			c++;
		else if (*c == '{')
			return true;
	}
	return false;
}

/*
 * The part every rule starts with: an object with a non-empty "name"
 * (copied into *out, and named in later messages through w).
 */
static int
ws__rule_name(struct ws__where *w, const cJSON *obj, const cJSON *name,
	      char **out)
{
	if (!cJSON_IsObject(obj))
		return ws__perr(w, NULL, "must be an object, not %s",
				ws__json_type(obj));
	if (name == NULL)
		return ws__perr(w, "name", "is missing");
	if (!cJSON_IsString(name) || name->valuestring[0] == '\0')
		return ws__perr(w, "name", "must be a non-empty string");
	w->rule = name->valuestring;
	*out = strdup(name->valuestring);
	if (*out == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

/*
 * A rule's "message": a string whose template
 * ({{.Path}}, ...) is checked here, copied to *out.
 */
static int
ws__rule_message(struct ws__where *w, const cJSON *it, char **out)
{
	int rc;

	if (!cJSON_IsString(it))
		return ws__perr(w, "message", "must be a string, not %s",
				ws__json_type(it));
	if ((rc = ws__check_template(w, it->valuestring)) < 0)
		return rc;
	if ((*out = strdup(it->valuestring)) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

/* The password database's home, looked up once a policy (NULL: HOME's). */
struct ws__uhome {
	bool done;
	char *pw;
};

/*
 * A rule's paths that name ${HOME} name the user's home from the
 * password database too, as ${USER_HOME}, where it is another directory:
 * a harness may start a server with a scratch HOME while the workspace
 * holds the user's own, and a rule denying ${HOME}/.ssh/... then guarded
 * the scratch one only (review23 07), where the guards and the view take
 * both homes (ws_homes()).  Each such path gets a twin after the rule's
 * paths; USER_HOME is set in vars for them.  The home is looked up at
 * the first rule that needs it, once for the policy (uh).
 */
static int
ws__user_home_paths(struct ws__frule *r, struct ws_vars *vars, struct ws__uhome *uh)
{
	size_t add = 0, n = r->n;
	char **nv;

	for (size_t i = 0; i < n; i++)
		if (strstr(r->raw[i], "${HOME}") != NULL || strstr(r->raw[i], "${HOME:") != NULL)
			add++;
	if (add == 0)
		return 0;
	if (!uh->done) {
		const char *h = ws_vars_get(vars, "HOME");
		struct stat a, b;

		uh->done = true;
		uh->pw = ws_passwd_home();
		/* The same directory, however spelled: nothing to add. */
		if (uh->pw != NULL && (uh->pw[0] != '/' ||
		    (h != NULL && (strcmp(h, uh->pw) == 0 ||
				   (stat(h, &a) == 0 && stat(uh->pw, &b) == 0 &&
				    a.st_dev == b.st_dev && a.st_ino == b.st_ino))))) {
			free(uh->pw);
			uh->pw = NULL;
		}
		if (uh->pw != NULL) {
			int rc = ws_vars_set(vars, "USER_HOME", uh->pw);

			if (rc < 0)
				return rc;
		}
	}
	if (uh->pw == NULL)
		return 0;
	if ((nv = realloc(r->raw, (n + add) * sizeof(*nv))) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	r->raw = nv;
	for (size_t i = 0; i < n; i++) {
		const char *q = r->raw[i], *m;
		char *t;

		if (strstr(q, "${HOME}") == NULL && strstr(q, "${HOME:") == NULL)
			continue;
		/* Each "${HOME}" or "${HOME:-..." gets "USER_": 5 bytes more. */
		if ((t = malloc(strlen(q) * 2 + 1)) == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		t[0] = '\0';
		for (; (m = strstr(q, "${HOME")) != NULL; q = m + 6) {
			strncat(t, q, (size_t)(m - q));
			strcat(t, m[6] == '}' || m[6] == ':' ? "${USER_HOME" : "${HOME");
		}
		strcat(t, q);
		r->raw[r->n++] = t;
	}
	return 0;
}

/* Most entries of a directory ws__dir_matches() looks at. */
#define WS__TWIN_SCAN_MAX 20000

/*
 * Whether an entry of the directory dir (not "." or "..") has a name g
 * matches: 1, 0, or -1 when dir cannot be read or holds more entries
 * than are looked at (the caller decides which way that goes).
 */
static int
ws__dir_matches(const char *dir, struct ws_glob *g)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t seen = 0;
	int found = 0;

	if (d == NULL)
		return -1;
	while (found == 0 && (de = readdir(d)) != NULL) {
		const char *nm = de->d_name;

		if (nm[0] == '.' && (nm[1] == '\0' || (nm[1] == '.' && nm[2] == '\0')))
			continue;
		if (++seen > WS__TWIN_SCAN_MAX) {
			found = -1;
			break;
		}
		found = ws_glob_match(g, nm, strlen(nm)) == 1;
	}
	closedir(d);
	return found;
}

/*
 * Whether a glob written from "/" without a variable names, by its first
 * component, no host path but an entry of the workspace ("/secret.txt"
 * where the workspace holds secret.txt): a path as the tools show it.
 * One lstat, or two.  A first component with a wildcard ("/" "*.pem",
 * "/.env*": review28 06) is matched against the names at the host's "/"
 * and at the workspace's top, a few dozen at "/": none there and one in
 * the workspace is a path as the tools show it.  Where a directory
 * cannot be read through (or is too large to), the answer leans to a
 * twin, which only refuses more.
 */
static bool
ws__virtual_looking(const char *ws, const char *raw)
{
	size_t c = strcspn(raw + 1, "/");
	size_t n = strcspn(raw + 1, "/*?[\\$");
	char host[PATH_MAX], in[PATH_MAX];
	struct ws_glob *g = NULL;
	struct stat st;
	char *comp;
	bool twin;

	if (c == 0 || memchr(raw + 1, '$', c) != NULL)
		return false;
	if (n < c) {
		/* "*" or "**" matches a name at "/": the host's rule. */
		if ((comp = strndup(raw + 1, c)) == NULL)
			return false;
		if (ws_glob_compile(comp, 0, &g, NULL) < 0) {
			free(comp);
			return false; /* the whole glob's compile says why */
		}
		free(comp);
		twin = ws__dir_matches("/", g) != 1 && ws__dir_matches(ws, g) != 0;
		ws_glob_free(g);
		return twin;
	}
	if (snprintf(host, sizeof(host), "/%.*s", (int)n, raw + 1) >= (int)sizeof(host) ||
	    snprintf(in, sizeof(in), "%s/%.*s", ws, (int)n, raw + 1) >= (int)sizeof(in))
		return false;
	return lstat(host, &st) < 0 && errno == ENOENT && lstat(in, &st) == 0;
}

/*
 * A deny or approve glob written as the tools show paths ("/secret.txt")
 * matched only the host's path, since globs match real paths, so it
 * protected nothing in the workspace, silently (review23 04).  Refusing
 * such a policy instead let an agent break the person's policy by making
 * a directory of a host path's name ("/nix/...": review26 02).  So such a
 * glob gets a twin under ${WORKSPACE}: it refuses further, never less;
 * at worst the agent refuses itself the directory it made.
 */
static int
ws__workspace_twins(struct ws__frule *r, const struct ws_vars *vars)
{
	const char *ws = ws_vars_get(vars, "WORKSPACE");
	size_t n = r->n;

	if (r->decision == WS_DECISION_ALLOW || ws == NULL || ws[0] != '/')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char **nv, *t;

		if (r->raw[i][0] != '/' || !ws__virtual_looking(ws, r->raw[i]))
			continue;
		if ((nv = realloc(r->raw, (r->n + 1) * sizeof(*nv))) == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		r->raw = nv;
		if (asprintf(&t, "${WORKSPACE}%s", r->raw[i]) < 0)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		r->raw[r->n++] = t;
	}
	return 0;
}

static int
ws__parse_frule(struct ws_policy *p, struct ws__where *w, const cJSON *obj,
		struct ws_vars *vars, struct ws__uhome *uh)
{
	struct ws__frule *r = &p->frules[p->nf];
	const cJSON *it, *name = cJSON_GetObjectItemCaseSensitive(obj, "name");
	bool has_paths = false, has_ops = false, has_dec = false;
	char **ops = NULL;
	size_t nops = 0;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	p->nf++;
	if ((rc = ws__rule_name(w, obj, name, &r->name)) < 0)
		return rc;
	for (size_t i = 0; i + 1 < p->nf; i++)
		if (strcmp(p->frules[i].name, r->name) == 0)
			return ws__perr(w, "name", "duplicate rule name (also file_rules[%zu])", i);
	cJSON_ArrayForEach(it, obj) {
		const char *k = it->string;

		if (ws_jsonc_dup_key(obj, it)) {
			rc = ws__perr(w, k, "duplicate key");
			goto out;
		}
		if (strcmp(k, "name") == 0) {
			continue;
		} else if (strcmp(k, "paths") == 0) {
			has_paths = true;
			if ((rc = ws__strv(w, "paths", it, &r->raw, &r->n)) < 0)
				goto out;
		} else if (strcmp(k, "operations") == 0) {
			has_ops = true;
			ws__strv_free(ops, nops);
			ops = NULL;
			nops = 0;
			if ((rc = ws__strv(w, "operations", it, &ops, &nops)) < 0)
				goto out;
		} else if (strcmp(k, "decision") == 0) {
			has_dec = true;
			if ((rc = ws__decision(w, it, &r->decision)) < 0)
				goto out;
		} else if (strcmp(k, "message") == 0) {
			if ((rc = ws__rule_message(w, it, &r->message)) < 0)
				goto out;
		} else {
			rc = ws__perr(w, k, "unknown key (a file rule has name, paths, "
				      "operations, decision, message)");
			goto out;
		}
	}
	if (!has_paths || !has_ops || !has_dec) {
		rc = ws__perr(w, !has_paths ? "paths" : !has_ops ? "operations" : "decision",
			      "is missing");
		goto out;
	}
	for (size_t i = 0; i < nops; i++) {
		enum ws_op op;

		if (strcmp(ops[i], "*") == 0) {
			r->ops = WS__ALL_OPS;
			continue;
		}
		if (ws_op_parse(ops[i], &op) < 0) {
			rc = ws__perr(w, "operations",
				      "unknown operation \"%s\" (read, open, stat, list, "
				      "readlink, write, create, mkdir, chmod, rename, "
				      "delete, rmdir, exec or \"*\")", ops[i]);
			goto out;
		}
		r->ops |= 1u << op;
	}
	if ((rc = ws__user_home_paths(r, vars, uh)) < 0 ||
	    (rc = ws__workspace_twins(r, vars)) < 0)
		goto out;
	r->globs = calloc(r->n, sizeof(*r->globs));
	r->resolved = calloc(r->n, sizeof(*r->resolved));
	if (r->globs == NULL || r->resolved == NULL) {
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->n; i++) {
		char field[32], *exp = NULL;
		size_t off = 0;

		snprintf(field, sizeof(field), "paths[%zu]", i);
		if (ws_vars_expand(vars, r->raw[i], WS_VARS_GLOB, &exp, &off) < 0) {
			char msg[1024];

			snprintf(msg, sizeof(msg), "%s", ws_error_last());
			rc = ws__perr(w, field, "%s", msg);
			goto out;
		}
		r->resolved[i] = ws_vars_resolved(vars, r->raw[i]);
		ws__squeeze_slashes(exp);
		if (exp[0] == '\0') {
			/* "${GIT_ROOT:-}" alone outside git: matches nothing. */
			free(exp);
			continue;
		}
		/* "*.pem" would compile to a pattern no absolute path can
		 * match, and a deny rule that never matches is worse than an
		 * error; "{a,b}" is not glob syntax here. */
		if (exp[0] != '/' && strncmp(exp, "**", 2) != 0) {
			/* A shell's "~" means nothing here. */
			rc = ws__perr(w, field,
				      "\"%s\" is relative, but globs match absolute real "
				      "paths (start it with \"/\", \"**\" or a variable "
				      "like ${PROJECT_ROOT}%s)", exp,
				      exp[0] == '~' ? "; for \"~\" use ${HOME}" : "");
			free(exp);
			goto out;
		}
		if (ws__unescaped_brace(exp)) {
			rc = ws__perr(w, field,
				      "\"%s\": braces are not glob syntax (write one "
				      "path per alternative)", exp);
			free(exp);
			goto out;
		}
		rc = ws_glob_compile(exp, WS_GLOB_LAZY, &r->globs[i], &off);
		if (rc < 0) {
			char msg[1024];

			snprintf(msg, sizeof(msg), "%s", ws_error_last());
			rc = ws__perr(w, field, "%s", msg);
			free(exp);
			goto out;
		}
		free(exp);
	}
out:
	ws__strv_free(ops, nops);
	return rc;
}

static int
ws__parse_crule(struct ws_policy *p, struct ws__where *w, const cJSON *obj)
{
	struct ws__crule *r = &p->crules[p->nc];
	const cJSON *it, *name = cJSON_GetObjectItemCaseSensitive(obj, "name");
	bool has_pat = false, has_dec = false;
	int rc;

	memset(r, 0, sizeof(*r));
	p->nc++;
	if ((rc = ws__rule_name(w, obj, name, &r->name)) < 0)
		return rc;
	for (size_t i = 0; i + 1 < p->nc; i++)
		if (strcmp(p->crules[i].name, r->name) == 0)
			return ws__perr(w, "name", "duplicate rule name (also command_rules[%zu])", i);
	cJSON_ArrayForEach(it, obj) {
		const char *k = it->string;

		if (ws_jsonc_dup_key(obj, it))
			return ws__perr(w, k, "duplicate key");
		if (strcmp(k, "name") == 0) {
			continue;
		} else if (strcmp(k, "patterns") == 0) {
			has_pat = true;
			if ((rc = ws__strv(w, "patterns", it, &r->patterns, &r->n)) < 0)
				return rc;
		} else if (strcmp(k, "decision") == 0) {
			has_dec = true;
			if ((rc = ws__decision(w, it, &r->decision)) < 0)
				return rc;
		} else if (strcmp(k, "message") == 0) {
			if ((rc = ws__rule_message(w, it, &r->message)) < 0)
				return rc;
		} else {
			return ws__perr(w, k, "unknown key (a command rule has name, "
					"patterns, decision, message)");
		}
	}
	if (!has_pat || !has_dec)
		return ws__perr(w, !has_pat ? "patterns" : "decision", "is missing");
	r->codes = calloc(r->n, sizeof(*r->codes));
	if (r->codes == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

/*
 * A network rule: {"name", "hosts": [...], "decision", "message"}, the
 * shape of a command rule with host patterns (ws_net_match()) for
 * patterns; variables in hosts are expanded once, here.
 */
static int
ws__parse_nrule(struct ws_policy *p, struct ws__where *w, const cJSON *obj,
		struct ws_vars *vars)
{
	struct ws__nrule *r = &p->nrules[p->nn];
	const cJSON *it, *name = cJSON_GetObjectItemCaseSensitive(obj, "name");
	bool has_hosts = false, has_dec = false;
	int rc;

	memset(r, 0, sizeof(*r));
	p->nn++;
	if ((rc = ws__rule_name(w, obj, name, &r->name)) < 0)
		return rc;
	for (size_t i = 0; i + 1 < p->nn; i++)
		if (strcmp(p->nrules[i].name, r->name) == 0)
			return ws__perr(w, "name", "duplicate rule name (also network_rules[%zu])", i);
	cJSON_ArrayForEach(it, obj) {
		const char *k = it->string;

		if (ws_jsonc_dup_key(obj, it))
			return ws__perr(w, k, "duplicate key");
		if (strcmp(k, "name") == 0) {
			continue;
		} else if (strcmp(k, "hosts") == 0) {
			has_hosts = true;
			if ((rc = ws__strv(w, "hosts", it, &r->hosts, &r->n)) < 0)
				return rc;
		} else if (strcmp(k, "decision") == 0) {
			has_dec = true;
			if ((rc = ws__decision(w, it, &r->decision)) < 0)
				return rc;
		} else if (strcmp(k, "message") == 0) {
			if ((rc = ws__rule_message(w, it, &r->message)) < 0)
				return rc;
		} else {
			return ws__perr(w, k, "unknown key (a network rule has name, "
					"hosts, decision, message)");
		}
	}
	if (!has_hosts || !has_dec)
		return ws__perr(w, !has_hosts ? "hosts" : "decision", "is missing");
	for (size_t i = 0; i < r->n; i++) {
		char *exp = NULL;
		size_t off = 0;

		if (vars != NULL) {
			if (ws_vars_expand(vars, r->hosts[i], 0, &exp, &off) < 0) {
				char msg[1024];

				snprintf(msg, sizeof(msg), "%s", ws_error_last());
				return ws__perr(w, "hosts", "%s", msg);
			}
			free(r->hosts[i]);
			r->hosts[i] = exp;
		}
		if (ws_net_pattern_check(r->hosts[i]) < 0) {
			char msg[1024];

			snprintf(msg, sizeof(msg), "%s", ws_error_last());
			return ws__perr(w, "hosts", "%s", msg);
		}
	}
	p->nn_hosts += r->n;
	return 0;
}

static int
ws__parse_nrules(struct ws_policy *p, const char *origin, const cJSON *arr,
		 struct ws_vars *vars)
{
	struct ws__where w = {origin, "network_rules", 0, NULL};
	const cJSON *e;
	size_t n;
	int rc;

	if (!cJSON_IsArray(arr))
		return ws__perr(&w, NULL, "must be an array, not %s", ws__json_type(arr));
	n = (size_t)cJSON_GetArraySize(arr);
	if ((p->nrules = calloc(n ? n : 1, sizeof(*p->nrules))) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	cJSON_ArrayForEach(e, arr) {
		w.rule = NULL;
		if ((rc = ws__parse_nrule(p, &w, e, vars)) < 0)
			return rc;
		w.index++;
	}
	return 0;
}

static int
ws__parse_rules(struct ws_policy *p, const char *origin, const cJSON *arr,
		bool files, struct ws_vars *vars)
{
	struct ws__where w = {origin, files ? "file_rules" : "command_rules", 0, NULL};
	struct ws__uhome uh = {false, NULL};
	size_t n;
	const cJSON *e;
	int rc = 0;

	if (!cJSON_IsArray(arr))
		return ws__perr(&w, NULL, "must be an array, not %s", ws__json_type(arr));
	n = (size_t)cJSON_GetArraySize(arr);
	if (files)
		p->frules = calloc(n ? n : 1, sizeof(*p->frules));
	else
		p->crules = calloc(n ? n : 1, sizeof(*p->crules));
	if (files ? p->frules == NULL : p->crules == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	cJSON_ArrayForEach(e, arr) {
		w.rule = NULL;
		rc = files ? ws__parse_frule(p, &w, e, vars, &uh) : ws__parse_crule(p, &w, e);
		if (rc < 0)
			break;
		w.index++;
	}
	free(uh.pw);
	if (rc < 0)
		return rc;
	/* Whether a read needs a second pass for "open" (ws_policy_check_file()),
	 * decided once rather than at every check. */
	for (size_t i = 0; files && i < p->nf && !p->open_split; i++)
		p->open_split = !(p->frules[i].ops & 1u << WS_OP_READ) !=
				!(p->frules[i].ops & 1u << WS_OP_OPEN);
	return 0;
}

int
ws_policy_parse(const char *text, const char *origin, struct ws_vars *vars,
		struct ws_policy **out)
{
	struct ws__where w = {origin, NULL, 0, NULL};
	struct ws_policy *p;
	cJSON *root = NULL;
	const cJSON *it, *fr = NULL, *cr = NULL, *nr = NULL;
	bool has_version = false;
	int rc;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	rc = ws_jsonc_parse(text, WS_EPOLICY_ERROR, origin, &root);
	if (rc < 0)
		goto out;
	if (!cJSON_IsObject(root)) {
		rc = ws__perr(&w, NULL, "a policy must be a JSON object");
		goto out;
	}
	cJSON_ArrayForEach(it, root) {
		const char *k = it->string;

		if (ws_jsonc_dup_key(root, it)) {
			rc = ws__perr(&w, k, "duplicate key");
			goto out;
		}
		if (strcmp(k, "version") == 0) {
			has_version = true;
			if (!cJSON_IsNumber(it) || it->valuedouble != 1.0) {
				rc = ws__perr(&w, k, "must be 1");
				goto out;
			}
		} else if (strcmp(k, "name") == 0 || strcmp(k, "description") == 0) {
			char **dst = k[0] == 'n' ? &p->name : &p->description;

			if (!cJSON_IsString(it)) {
				rc = ws__perr(&w, k, "must be a string, not %s",
					      ws__json_type(it));
				goto out;
			}
			if ((*dst = strdup(it->valuestring)) == NULL) {
				rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
				goto out;
			}
		} else if (strcmp(k, "strict") == 0) {
			if (!cJSON_IsBool(it)) {
				rc = ws__perr(&w, k, "must be a boolean, not %s",
					      ws__json_type(it));
				goto out;
			}
			p->strict = cJSON_IsTrue(it);
		} else if (strcmp(k, "file_rules") == 0) {
			fr = it;
		} else if (strcmp(k, "command_rules") == 0) {
			cr = it;
		} else if (strcmp(k, "network_rules") == 0) {
			nr = it;
		} else {
			rc = ws__perr(&w, k, "unknown key (a policy has version, name, "
				      "description, strict, file_rules, command_rules, "
				      "network_rules)");
			goto out;
		}
	}
	if (!has_version) {
		rc = ws__perr(&w, "version", "is missing (write \"version\": 1)");
		goto out;
	}
	if (fr != NULL && (rc = ws__parse_rules(p, origin, fr, true, vars)) < 0)
		goto out;
	if (cr != NULL && (rc = ws__parse_rules(p, origin, cr, false, vars)) < 0)
		goto out;
	if (nr != NULL && (rc = ws__parse_nrules(p, origin, nr, vars)) < 0)
		goto out;
	if (p->name == NULL) {
		/* The file's stem, else "policy". */
		const char *b = origin ? strrchr(origin, '/') : NULL;
		const char *base = b ? b + 1 : origin ? origin : "policy";
		size_t l = strlen(base);

		if (l > 5 && strcmp(base + l - 5, ".json") == 0)
			l -= 5;
		if ((p->name = strndup(base, l)) == NULL) {
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			goto out;
		}
	}
out:
	cJSON_Delete(root);
	if (rc < 0) {
		ws_policy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

/* ---- Finding and loading ---- */

/* Whether this binary runs from its build tree (not installed). */
static bool
ws__in_build_tree(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t bl = strlen(WS_BUILD_ROOT);

	if (n <= 0)
		return false;
	exe[n] = '\0';
	return strncmp(exe, WS_BUILD_ROOT, bl) == 0 && exe[bl] == '/';
}

static bool
ws__name_ok(const char *s)
{
	if (s[0] == '\0' || s[0] == '.')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
		      *s == '.'))
			return false;
	return true;
}

int
ws_policy_find(const char *spec, const char *dir, char **path)
{
	const char *dirs[3];
	size_t nd = 0, l = strlen(spec);
	char looked[2048] = "";

	*path = NULL;
	if (l == 0)
		return ws_error_set(WS_EPOLICY_ERROR, NULL, "empty policy name");
	if (strchr(spec, '/') != NULL || (l > 5 && strcmp(spec + l - 5, ".json") == 0)) {
		*path = strdup(spec);
		return *path ? 0 : ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	if (!ws__name_ok(spec))
		return ws_error_set(WS_EPOLICY_ERROR, spec,
				    "a policy name has only letters, digits, \".\", "
				    "\"-\" and \"_\" (or give a file with a \"/\")");
	if (dir != NULL)
		dirs[nd++] = dir;
	/*
	 * A binary run from its build tree is not installed: it uses the
	 * source tree's policies, so tests never see stale installed ones.
	 */
	if (ws__in_build_tree())
		dirs[nd++] = WS_POLICIES_SOURCE;
	dirs[nd++] = WS_POLICIES_INSTALLED;
	for (size_t i = 0; i < nd; i++) {
		char *p;
		size_t ll = strlen(looked);

		if (asprintf(&p, "%s/%s.json", dirs[i], spec) < 0)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		/* One a running command may just have made: absent (ws/pending.h). */
		if (access(p, F_OK) == 0 && !ws_pending_has(p)) {
			*path = p;
			return 0;
		}
		free(p);
		snprintf(looked + ll, sizeof(looked) - ll, "%s%s", ll ? ", " : "",
			 dirs[i]);
	}
	return ws_error_set(WS_EPOLICY_ERROR, spec,
			    "no such policy (looked for %s.json in %s)", spec, looked);
}

int
ws_policy_load(const char *spec, const char *dir, struct ws_vars *vars,
	       struct ws_policy **out)
{
	char *path = NULL, *text = NULL;
	int rc;

	*out = NULL;
	rc = ws_policy_find(spec, dir, &path);
	if (rc < 0)
		return rc;
	rc = ws_config_read_file(path, &text);
	if (rc < 0) {
		rc = ws_error_set(WS_EPOLICY_ERROR, path, "cannot read the policy: %s",
				  rc == -EFBIG ? "larger than 1 MiB"
				  : rc == -EINVAL ? "not a regular file"
						  : strerror(-rc));
		goto out;
	}
	rc = ws_policy_parse(text, path, vars, out);
	if (rc == 0) {
		(*out)->path = path;
		path = NULL;
	}
out:
	free(text);
	free(path);
	return rc;
}

/* ---- Deciding ---- */

bool
ws_policy_catch_all(const char *pattern)
{
	return pattern != NULL && (strcmp(pattern, "**") == 0 ||
				   strcmp(pattern, "/**") == 0);
}

bool
ws_policy_refuses(struct ws_policy *p, enum ws_op op, const char *real)
{
	struct ws_policy_match m = {WS_DECISION_ALLOW, NULL, -1, NULL, NULL, NULL};
	enum ws_decision d = ws_policy_check_file(p, op, real, &m);

	return d != WS_DECISION_ALLOW && m.rule != NULL &&
	       !ws_policy_catch_all(m.expanded) && !ws_policy_catch_all(m.pattern);
}

static bool
ws__may_refuse_below(const struct ws_policy *p, unsigned bits, const char *dir)
{
	for (size_t i = 0; i < p->nf; i++) {
		const struct ws__frule *r = &p->frules[i];

		if (r->decision == WS_DECISION_ALLOW || !(r->ops & bits))
			continue;
		for (size_t j = 0; j < r->n; j++) {
			const char *src = r->globs[j] ? ws_glob_source(r->globs[j]) : NULL;
			char pre[4096];
			size_t n;
			char *sl;

			/* A catch-all ("**": the shipped policies' default-deny)
			 * is the policy's default, not a rule naming files. */
			if (src == NULL || ws_policy_catch_all(src))
				continue;
			/* The literal directory the pattern starts with. */
			n = strcspn(src, "*?[{\\");
			if (n >= sizeof(pre) || src[0] != '/')
				return true;
			memcpy(pre, src, n);
			pre[n] = '\0';
			if (src[n] != '\0' && (sl = strrchr(pre, '/')) != NULL)
				sl[sl == pre ? 1 : 0] = '\0';
			if (ws_path_within(pre, dir, NULL) || ws_path_within(dir, pre, NULL))
				return true;
		}
	}
	return false;
}

static bool ws__prefix_reaches(const char *pre, const char *dir);
static bool ws__literal_reaches(const char *lit, const char *dir);

const char *
ws_policy_refusal_outside(const struct ws_policy *p, enum ws_op op,
			  const char *const *dirs, size_t ndirs,
			  const char **pattern)
{
	for (size_t i = 0; p != NULL && i < p->nf; i++) {
		const struct ws__frule *r = &p->frules[i];

		/* A rule for every operation ("*": ~/.ssh) is about files, and
		 * the file tools keep it; one that names op is about op. */
		if (r->decision == WS_DECISION_ALLOW || !(r->ops & 1u << op) ||
		    r->ops == WS__ALL_OPS)
			continue;
		for (size_t j = 0; j < r->n; j++) {
			const char *src = r->globs[j] ? ws_glob_source(r->globs[j]) : NULL;
			const char *pre = r->globs[j] ? ws_glob_prefix(r->globs[j]) : "";
			bool near = false;

			/* A catch-all, or a wildcard first: not a place. */
			if (src == NULL || pre[0] != '/' || ws_policy_catch_all(src))
				continue;
			for (size_t k = 0; k < ndirs && !near; k++)
				near = ws__prefix_reaches(pre, dirs[k]) ||
				       ws_path_within(dirs[k], pre, NULL);
			if (!near) {
				*pattern = r->raw[j];
				return r->name;
			}
		}
	}
	return NULL;
}

bool
ws_policy_may_refuse_below(const struct ws_policy *p, const char *dir)
{
	return ws__may_refuse_below(p, 1u << WS_OP_READ | 1u << WS_OP_OPEN |
				    1u << WS_OP_WRITE | 1u << WS_OP_EXEC, dir);
}

bool
ws_policy_may_refuse_op_below(const struct ws_policy *p, enum ws_op op,
			      const char *dir)
{
	return p != NULL && ws__may_refuse_below(p, 1u << op, dir);
}


/*
 * Whether glob g, of the shape X + "/" + "**" with wildcards in X (such
 * as "**" + "/scripts/" + "**"), matches every path below dir: it does
 * when it matches a name below dir that no pattern names (a control
 * byte in it), one level down and two levels down through a hidden
 * directory.  For "X/" + "**" to match "dir/<name>", X must have matched
 * dir or a directory above it (the name is no part X could name), and
 * then it matches all below.
 */
static bool
ws__tail_covers(struct ws_glob *g, const char *dir)
{
	const char *src = ws_glob_source(g);
	size_t n = strlen(src), dl = strlen(dir);
	char probe[4352];

	if (n < 3 || strcmp(src + n - 3, "/**") != 0 || dl + 16 >= sizeof(probe))
		return false;
	snprintf(probe, sizeof(probe), "%s/\x01ws", strcmp(dir, "/") ? dir : "");
	if (ws_glob_match(g, probe, strlen(probe)) != 1)
		return false;
	snprintf(probe, sizeof(probe), "%s/.\x01ws/\x01ws", strcmp(dir, "/") ? dir : "");
	return ws_glob_match(g, probe, strlen(probe)) == 1;
}

bool
ws_policy_refuses_all_below(const struct ws_policy *p, enum ws_op op,
			    const char *dir, bool approved)
{
	unsigned bit = 1u << op;

	if (p == NULL)
		return false;
	/*
	 * The rules in their order, as ws__check_file_op() takes them: the
	 * first whose pattern is "D/" + "**" with dir at or below D (or
	 * "X/" + "**" with X matching dir or above, ws__tail_covers()) decides
	 * everything below dir that no earlier rule decided.  Before it, an
	 * allow rule that could match below dir makes a hole; a refusing
	 * one only refuses more.
	 */
	for (size_t i = 0; i < p->nf; i++) {
		const struct ws__frule *r = &p->frules[i];

		if (!(r->ops & bit))
			continue;
		for (size_t j = 0; j < r->n; j++) {
			const char *pre;
			char *d;
			bool covers;

			if (r->globs[j] == NULL)
				continue;
			/* The default, not a rule naming files: not counted
			 * (ws_policy_refuses()), so nothing is refused whole. */
			if (ws_policy_catch_all(ws_glob_source(r->globs[j])))
				return false;
			if ((d = ws_glob_directory(r->globs[j])) != NULL) {
				covers = ws_path_within(d, dir, NULL);
				free(d);
			} else {
				covers = ws__tail_covers(r->globs[j], dir);
			}
			/* Approved (--approve): an approve rule allows. */
			if (covers)
				return r->decision == WS_DECISION_DENY ||
				       (r->decision == WS_DECISION_APPROVE && !approved);
			if (r->decision == WS_DECISION_DENY ||
			    (r->decision == WS_DECISION_APPROVE && !approved))
				continue;
			pre = ws_glob_prefix(r->globs[j]);
			if (pre[0] == '\0')
				return false;
			if (strcmp(pre, ws_glob_source(r->globs[j])) == 0 ?
			    ws__literal_reaches(pre, dir) : ws__prefix_reaches(pre, dir))
				return false;
		}
	}
	return false;
}

static enum ws_decision
ws__check_file_op(struct ws_policy *p, enum ws_op op, const char *real,
		  struct ws_policy_match *m)
{
	size_t len = strlen(real);
	unsigned bit = 1u << op;

	for (size_t i = 0; i < p->nf; i++) {
		struct ws__frule *r = &p->frules[i];

		if (!(r->ops & bit))
			continue;
		for (size_t j = 0; j < r->n; j++) {
			int hit = r->globs[j] ? ws_glob_match(r->globs[j], real, len) : 0;

			if (hit < 0) {
				/* A glob that cannot compile now (no memory): fail closed. */
				if (m != NULL)
					*m = (struct ws_policy_match){WS_DECISION_DENY,
								      r->name, (int)i, r->raw[j],
								      ws_glob_source(r->globs[j]),
								      "{{.Path}}: the policy could not be evaluated"};
				return WS_DECISION_DENY;
			}
			if (hit == 0)
				continue;
			if (m != NULL) {
				m->decision = r->decision;
				m->rule = r->name;
				m->index = (int)i;
				m->pattern = r->raw[j];
				m->expanded = ws_glob_source(r->globs[j]);
				m->message = r->message;
			}
			return r->decision;
		}
	}
	if (m != NULL)
		*m = (struct ws_policy_match){WS_DECISION_DENY, NULL, -1, NULL,
					      NULL, NULL};
	return WS_DECISION_DENY;
}

/*
 * A read is an open too (ws-policy(5)): a rule that refuses "open"
 * refuses every reader (wsgrep, a command's mask walk), not wsread alone.
 * Only a rule counts; the default with no rule for "open" leaves the read
 * as its own rules decide.
 */
enum ws_decision
ws_policy_check_file(struct ws_policy *p, enum ws_op op, const char *real,
		     struct ws_policy_match *m)
{
	struct ws_policy_match om;
	enum ws_decision d = ws__check_file_op(p, op, real, m), od;

	if (op != WS_OP_READ || d != WS_DECISION_ALLOW)
		return d;
	/* Where every rule names both or neither, the first rule for an
	 * open is the read's: no second pass. */
	if (!p->open_split)
		return d;
	od = ws__check_file_op(p, WS_OP_OPEN, real, &om);
	if (od == WS_DECISION_ALLOW || om.rule == NULL)
		return d;
	if (m != NULL)
		*m = om;
	return od;
}

static int ws__compile_commands(struct ws_policy *p);

int
ws_policy_prepare(struct ws_policy *p)
{
	int rc;

	for (size_t i = 0; i < p->nf; i++)
		for (size_t j = 0; p->frules[i].globs != NULL && j < p->frules[i].n; j++)
			if (p->frules[i].globs[j] != NULL &&
			    (rc = ws_glob_prepare(p->frules[i].globs[j])) < 0)
				return rc;
	return ws__compile_commands(p);
}

struct ws_policy *
ws_policy_view(const struct ws_policy *p)
{
	struct ws_policy *v = malloc(sizeof(*v));

	if (v == NULL)
		return NULL;
	*v = *p;
	v->view = true;
	v->log = NULL;
	v->prompt = NULL;
	v->hook_arg = NULL;
	/* The match block is the one thing a check writes. */
	v->cmd_md = p->crules_compiled ? pcre2_match_data_create(1, NULL) : NULL;
	if (p->crules_compiled && v->cmd_md == NULL) {
		free(v);
		return NULL;
	}
	return v;
}

/* Compile every command pattern (once), with JIT where available. */
static int
ws__compile_commands(struct ws_policy *p)
{
	if (p->crules_compiled)
		return 0;
	for (size_t i = 0; i < p->nc; i++) {
		struct ws__crule *r = &p->crules[i];

		for (size_t j = 0; j < r->n; j++) {
			struct ws__where w = {p->path, "command_rules", (int)i, r->name};
			char field[32];
			PCRE2_SIZE eo;
			int ec;

			if (r->codes[j] != NULL)
				continue;
			r->codes[j] = pcre2_compile((PCRE2_SPTR)r->patterns[j],
						    PCRE2_ZERO_TERMINATED, 0, &ec,
						    &eo, NULL);
			if (r->codes[j] == NULL) {
				PCRE2_UCHAR msg[256];

				pcre2_get_error_message(ec, msg, sizeof(msg));
				snprintf(field, sizeof(field), "patterns[%zu]", j);
				return ws__perr(&w, field, "bad pattern at offset %zu: %s",
						(size_t)eo, (const char *)msg);
			}
			(void)pcre2_jit_compile(r->codes[j], PCRE2_JIT_COMPLETE);
		}
	}
	p->cmd_md = pcre2_match_data_create(1, NULL);
	if (p->cmd_md == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	p->crules_compiled = true;
	return 0;
}

static void ws__log(struct ws_policy *p, const char *level, const char *fmt,
		    ...) __attribute__((format(printf, 3, 4)));

static void
ws__log(struct ws_policy *p, const char *level, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;

	if (p->log == NULL)
		return;
	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (line != NULL)
		p->log(p->hook_arg, level, line);
	free(line);
}

int
ws_policy_check_command(struct ws_policy *p, const char *cmdline,
			struct ws_policy_match *m)
{
	size_t len = strlen(cmdline);
	int rc = ws__compile_commands(p);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < p->nc; i++) {
		struct ws__crule *r = &p->crules[i];

		for (size_t j = 0; j < r->n; j++) {
			if (pcre2_match(r->codes[j], (PCRE2_SPTR)cmdline, len, 0, 0,
					p->cmd_md, NULL) < 0)
				continue;
			if (m != NULL)
				*m = (struct ws_policy_match){r->decision, r->name,
							      (int)i, r->patterns[j],
							      r->patterns[j], r->message};
			if (p->log != NULL) {
				char *q = ws_log_quote(cmdline);

				ws__log(p, "INFO",
					"policy command decision command=%s rule=%s decision=%s",
					q ? q : "?", r->name, ws__decisions[r->decision]);
				free(q);
			}
			return (int)r->decision;
		}
	}
	if (m != NULL)
		*m = (struct ws_policy_match){WS_DECISION_ALLOW, NULL, -1, NULL,
					      NULL, NULL};
	if (p->log != NULL) {
		char *q = ws_log_quote(cmdline);

		ws__log(p, "INFO",
			"policy command decision command=%s rule=none decision=allow",
			q ? q : "?");
		free(q);
	}
	return WS_DECISION_ALLOW;
}

/* ---- Messages ---- */

char *
ws_policy_render(const char *tmpl, const char *path, const char *op,
		 const char *rule)
{
	char *out = NULL;
	size_t cap = 0;
	FILE *f = open_memstream(&out, &cap);
	const char *s = tmpl;

	if (f == NULL)
		return NULL;
	while (*s) {
		const char *e, *a, *b, *val = NULL;
		char *shown;

		if (s[0] != '{' || s[1] != '{' || (e = strstr(s + 2, "}}")) == NULL) {
			fputc(*s++, f);
			continue;
		}
		a = s + 2;
		b = e;
		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		if (b - a == 5 && strncmp(a, ".Path", 5) == 0)
			val = path;
		else if (b - a == 10 && strncmp(a, ".Operation", 10) == 0)
			val = op;
		else if (b - a == 5 && strncmp(a, ".Rule", 5) == 0)
			val = rule;
		if (val == NULL) {
			fputc(*s++, f);
			continue;
		}
		/* A path or command line is the caller's: shown escaped and
		 * cut, so that it cannot redraw the message around it. */
		shown = ws_shown_value(val, WS_SHOWN_MAX, NULL);
		if (shown == NULL) {
			fclose(f);
			free(out);
			return NULL;
		}
		fputs(shown, f);
		free(shown);
		s = e + 2;
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/*
 * The length of the UTF-8 sequence at s (1 to 4) and its code point, or
 * 0 when s does not start a valid, shortest-form sequence.
 */
static size_t
ws__utf8(const unsigned char *s, unsigned long *cp)
{
	size_t n;
	unsigned long c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2, c = s[0] & 0x1f, min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3, c = s[0] & 0x0f, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/*
 * Characters a terminal or a client draws as nothing, or that reorder
 * the text around them: a name holding them can look like another.
 */
static bool
ws__invisible(unsigned long c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0xad || c == 0x61c ||
	       (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) ||
	       (c >= 0x2060 && c <= 0x206f) || c == 0xfeff ||
	       (c >= 0xfff9 && c <= 0xfffb) ||
	       /*
		* Blanks that are not U+0020, whose runs are not counted as
		* spaces' are (a wide one such as the Hangul fillers or the
		* ideographic space pushes the rest of a value out of sight
		* in a third of the bytes), and characters drawn as nothing:
		* the combining grapheme joiner, Khmer and Mongolian ones,
		* variation selectors, musical formatting, and the tag
		* characters, which carry hidden ASCII.
		*/
	       c == 0xa0 || c == 0x34f || c == 0x115f || c == 0x1160 ||
	       c == 0x17b4 || c == 0x17b5 || (c >= 0x180b && c <= 0x180f) ||
	       (c >= 0x2000 && c <= 0x200a) || c == 0x202f || c == 0x205f ||
	       c == 0x2800 || c == 0x3000 || c == 0x3164 || c == 0xffa0 ||
	       (c >= 0xfe00 && c <= 0xfe0f) || (c >= 0x1d173 && c <= 0x1d17a) ||
	       (c >= 0xe0000 && c <= 0xe0fff);
}

char *
ws_shown_value(const char *v, size_t max, bool *escaped)
{
	const unsigned char *s = (const unsigned char *)v;
	char *out = NULL;
	size_t cap = 0;
	bool esc = false;
	FILE *f = open_memstream(&out, &cap);

	if (f == NULL)
		return NULL;
	while (*s) {
		unsigned long c;
		size_t n;
		long at = ftell(f);

		if (at >= 0 && (size_t)at >= max) {
			/* The rest, counted: a long value cannot push what
			 * follows it out of sight. */
			fprintf(f, "\u2026(%zu more bytes)", strlen((const char *)s));
			esc = true;
			break;
		}
		if (*s == ' ') {
			for (n = 0; s[n] == ' '; n++)
				;
			if (n > 8) {
				fprintf(f, " \u2026(%zu spaces)\u2026 ", n);
				esc = true;
			} else {
				fwrite(s, 1, n, f);
			}
			s += n;
			continue;
		}
		if (*s < 0x20 || *s == 0x7f) {
			if (*s == '\n')
				fputs("\\n", f);
			else if (*s == '\r')
				fputs("\\r", f);
			else if (*s == '\t')
				fputs("\\t", f);
			else
				fprintf(f, "\\x%02x", *s);
			esc = true;
			s++;
			continue;
		}
		if ((n = ws__utf8(s, &c)) == 0) {
			fprintf(f, "\\x%02x", *s++);
			esc = true;
			continue;
		}
		if (ws__invisible(c)) {
			fprintf(f, c > 0xffff ? "\\U%08lx" : "\\u%04lx", c);
			esc = true;
		} else {
			fwrite(s, 1, n, f);
		}
		s += n;
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	if (escaped != NULL)
		*escaped = esc;
	return out;
}

char *
ws_policy_question(const struct ws_ask *a)
{
	char *subject, *msg = NULL, *out = NULL;
	size_t cap = 0;
	char *rule = NULL, *pol = NULL;
	bool esc = false;
	FILE *f;

	subject = ws_shown_value(a->subject ? a->subject : "", WS_SHOWN_MAX, &esc);
	if (subject == NULL)
		return NULL;
	/* The message was rendered with its values escaped; what is left is
	 * the rule's own text, which must stay on its own line too. */
	if ((a->message != NULL &&
	     (msg = ws_shown_value(a->message, 4 * WS_SHOWN_MAX, NULL)) == NULL) ||
	    (a->rule != NULL &&
	     (rule = ws_shown_value(a->rule, WS_SHOWN_MAX, NULL)) == NULL) ||
	    (a->policy != NULL &&
	     (pol = ws_shown_value(a->policy, WS_SHOWN_MAX, NULL)) == NULL) ||
	    (f = open_memstream(&out, &cap)) == NULL) {
		free(subject);
		free(msg);
		free(rule);
		free(pol);
		return NULL;
	}
	fprintf(f, "Allow %s: %s?",
		a->op == NULL ? "operation"
		: strcmp(a->op, "exec") == 0 ? "command" : a->op,
		subject);
	/*
	 * A message that is itself this question, naming the subject and
	 * ending in "?" (dev-safe's "Delete {{.Path}}?"), would ask it twice
	 * (ftu18 07): the rule and the policy are named without it.
	 */
	if (msg != NULL && msg[0] != '\0' && msg[strlen(msg) - 1] == '?' &&
	    subject[0] != '\0' && strstr(msg, subject) != NULL) {
		free(msg);
		msg = NULL;
	}
	if (rule != NULL || pol != NULL) {
		fputs("\nAsked by", f);
		if (rule != NULL)
			fprintf(f, " rule \"%s\"", rule);
		if (pol != NULL)
			fprintf(f, "%s policy \"%s\"", rule ? " of" : "", pol);
		if (msg != NULL)
			fprintf(f, ": %s", msg);
	} else if (msg != NULL) {
		fprintf(f, "\n%s", msg);
	}
	if (esc)
		fputs("\n(The value is shown escaped: control bytes and bytes "
		      "that are not UTF-8 as \\xNN, \\n, \\r, \\t, invisible "
		      "characters and blanks other than the space as \\uNNNN or "
		      "\\UNNNNNNNN, long runs of spaces counted, "
		      "and anything past " WS__STR(WS_SHOWN_MAX)
		      " bytes cut.)", f);
	free(subject);
	free(msg);
	free(rule);
	free(pol);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

char *
ws_log_quote(const char *v)
{
	bool plain = v[0] != '\0';
	char *out = NULL;
	size_t cap = 0;
	FILE *f;

	for (const unsigned char *s = (const unsigned char *)v; *s && plain; s++)
		if (*s <= ' ' || *s == '"' || *s == '=' || *s == '\\' || *s >= 0x7f)
			plain = false;
	if (plain)
		return strdup(v);
	f = open_memstream(&out, &cap);
	if (f == NULL)
		return NULL;
	fputc('"', f);
	for (const unsigned char *s = (const unsigned char *)v; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s < ' ' || *s == 0x7f)
			fprintf(f, "\\x%02x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* ---- The gate ---- */

/*
 * A refusal that no policy decides (the guarded entries of DESIGN.md 2):
 * say which operation, and that retrying or another policy will not help.
 */
static int
ws__guard_refusal(int rc, enum ws_op op)
{
	ws_error_set_policy(NULL, NULL, ws__ops[op]);
	ws_error_set_hint("wstools protects this path on every call, whatever "
			  "the policy: leave it as it is, or ask the user");
	return rc;
}

/*
 * HOME's persistence places (ws/persist.h), when a workspace or a mount
 * holds them: no tool changes one, nor (anc: a rename, a delete) what
 * holds one, whatever the policy says.  The list is wsrun's too (a
 * policy grant that reaches one is read-only there).
 */
/*
 * The homes as this workspace's real paths spell them: each canonical
 * home, and each other spelling that a bind mount gives it (a container's
 * /workspace that is the home, or a workspace that is a bind of one of
 * its parents), found by device and inode once for a workspace and HOME
 * (key), not at every check: a check then compares strings only.
 */
static struct {
	char *key;
	char **alias;
	int *kind; /* each alias's base kind (enum ws_persist_kind) */
	size_t n;
	/*
	 * The places reached through a link below a home that holds a
	 * writable anchor or lies in one (stow's ~/.config ->
	 * dotfiles/config): each one's real path and its index in
	 * ws_home_persist[], and every entry those links were resolved
	 * through with the place it leads to (re-pointing one moves the
	 * place).  Resolved once per workspace and HOME, as the aliases.
	 */
	char **real;
	size_t *real_i;
	size_t nreal;
	char **link;
	size_t *link_i;
	size_t nlink;
	bool failed; /* out of memory building it: refuse */
} ws__homes;
static pthread_mutex_t ws__homes_mu = PTHREAD_MUTEX_INITIALIZER;

static void
ws__homes_add(const char *a, size_t n, int kind)
{
	char **v = realloc(ws__homes.alias, (ws__homes.n + 1) * sizeof(*v));
	int *k;

	if (v == NULL)
		return;
	ws__homes.alias = v;
	if ((k = realloc(ws__homes.kind, (ws__homes.n + 1) * sizeof(*k))) == NULL)
		return;
	ws__homes.kind = k;
	k[ws__homes.n] = kind;
	if ((v[ws__homes.n] = strndup(a, n)) != NULL)
		ws__homes.n++;
}

/* Append s (taken) with place index i to v/vi/n; false out of memory. */
static bool
ws__homes_push(char ***v, size_t **vi, size_t *n, char *s, size_t i)
{
	char **nv;
	size_t *ni;

	if (s == NULL)
		return false;
	if ((nv = realloc(*v, (*n + 1) * sizeof(*nv))) == NULL) {
		free(s);
		return false;
	}
	*v = nv;
	if ((ni = realloc(*vi, (*n + 1) * sizeof(*ni))) == NULL) {
		free(s);
		return false;
	}
	*vi = ni;
	nv[*n] = s;
	ni[(*n)++] = i;
	return true;
}

/*
 * ws__homes' places reached through links (under ws__homes_mu), for the
 * homes that hold a writable anchor or lie in one: elsewhere no tool
 * writes below them at all, and the resolution (an lstat() per existing
 * component, a readlink() per component of a link's way) is not paid.
 */
static void
ws__homes_resolve(const struct ws_ctx *ws)
{
	char lex[PATH_MAX], out[PATH_MAX];
	struct ws_place_memo memo = {0};

	for (size_t k = 0; k < ws__homes.nreal; k++)
		free(ws__homes.real[k]);
	for (size_t k = 0; k < ws__homes.nlink; k++)
		free(ws__homes.link[k]);
	ws__homes.nreal = ws__homes.nlink = 0;
	for (size_t h = 0; h < ws__homes.n; h++) {
		const char *hm = ws__homes.alias[h];
		size_t hl = strcmp(hm, "/") == 0 ? 0 : strlen(hm);
		bool writable = false;

		for (size_t a = 0; a < ws->nanchors && !writable; a++)
			writable = !ws->anchors[a].ro &&
				   (ws_path_within(hm, ws->anchors[a].real, NULL) ||
				    ws_path_within(ws->anchors[a].real, hm, NULL));
		for (size_t i = 0; writable && i < ws_home_persist_n; i++) {
			char **e = NULL;
			size_t ne = 0;
			int r;

			if (!ws_persist_path(hm, ws__homes.kind[h], i, lex, sizeof(lex)))
				continue;
			r = ws_home_place_resolve(lex, hl, out, sizeof(out), &e, &ne,
						  &memo);
			if (r > 0)
				(void)ws__homes_push(&ws__homes.real, &ws__homes.real_i,
						     &ws__homes.nreal, strdup(out),
						     i * WS_PERSIST_NKINDS +
						     (size_t)ws__homes.kind[h]);
			for (size_t k = 0; k < ne; k++) {
				/* Home and what holds it are no place's own. */
				if (r > 0 && !ws_path_within(e[k], hm, NULL)) {
					(void)ws__homes_push(&ws__homes.link, &ws__homes.link_i,
							     &ws__homes.nlink, e[k],
							     i * WS_PERSIST_NKINDS +
							     (size_t)ws__homes.kind[h]);
					continue;
				}
				free(e[k]);
			}
			free(e);
		}
		ws_place_memo_free(&memo);
	}
}

/* Rebuild ws__homes for ws (under ws__homes_mu). */
static void
ws__homes_build(struct ws_ctx *ws)
{
	char buf[PATH_MAX];
	char *const *home;
	const struct ws_persist_base *xb = NULL;
	size_t nh, nxb = 0;
	struct stat hst[2], st;

	for (size_t i = 0; i < ws__homes.n; i++)
		free(ws__homes.alias[i]);
	ws__homes.n = 0;
	/* Out of memory: every check refuses until it is built again.  The
	 * call's own resolution: its home places use the same one. */
	if ((ws__homes.failed = ws_ctx_persist_env(ws, &xb, &nxb, &home, &nh) < 0)) {
		ws_error_clear();
		free(ws__homes.key);
		ws__homes.key = NULL;
		return;
	}
	/* The bases the environment moves (review12 05), resolved. */
	for (size_t k = 0; k < nxb; k++)
		ws__homes_add(xb[k].dir, strlen(xb[k].dir), xb[k].kind);
	for (size_t h = 0; h < nh; h++) {
		ws__homes_add(home[h], strlen(home[h]), WS_PERSIST_HOME);
		if (stat(home[h], &hst[h]) < 0)
			hst[h].st_nlink = 0;
	}
	for (size_t a = 0; a < ws->nanchors; a++) {
		const char *r = ws->anchors[a].real;
		struct stat ast;
		size_t n = strlen(r);

		if (n >= sizeof(buf) || fstat(ws->anchors[a].fd, &ast) < 0)
			continue;
		/* The anchor or a directory above it is a home. */
		memcpy(buf, r, n + 1);
		while (n > 1) {
			bool seen = stat(buf, &st) == 0;

			for (size_t h = 0; seen && h < nh; h++)
				if (hst[h].st_nlink != 0 &&
				    st.st_dev == hst[h].st_dev &&
				    st.st_ino == hst[h].st_ino)
					ws__homes_add(buf, n, WS_PERSIST_HOME);
			while (n > 1 && buf[n - 1] != '/')
				n--;
			buf[n > 1 ? --n : n] = '\0';
		}
		/* A home lies below the anchor, reached from one of the
		 * home's parents that the anchor is. */
		for (size_t h = 0; h < nh; h++) {
			size_t hn = strlen(home[h]);

			memcpy(buf, home[h], hn + 1);
			while (hn > 1) {
				while (hn > 1 && buf[hn - 1] != '/')
					hn--;
				buf[hn > 1 ? --hn : hn] = '\0';
				if (stat(buf, &st) == 0 && st.st_dev == ast.st_dev &&
				    st.st_ino == ast.st_ino &&
				    snprintf(buf, sizeof(buf), "%s%s",
					     strcmp(r, "/") == 0 ? "" : r,
					     home[h] + (hn > 1 ? hn : 0)) > 0) {
					ws__homes_add(buf, strlen(buf), WS_PERSIST_HOME);
					break;
				}
			}
		}
	}
	ws__homes_resolve(ws);
}

/* Whether dir lies in no anchor of ws (and so holds any it reaches). */
static bool
ws__above_anchors(const struct ws_ctx *ws, const char *dir)
{
	for (size_t a = 0; a < ws->nanchors; a++)
		if (ws_path_within(ws->anchors[a].real, dir, NULL))
			return false;
	return true;
}

static int
ws__home_persist_check(struct ws_ctx *ws, enum ws_op op, const char *real,
		       const char *shown, bool anc)
{
	const char *place = NULL;
	const struct ws_persist_base *xb;
	size_t kn, en, nxb;
	int kind = WS_PERSIST_HOME;
	char *env, *key, shown_place[PATH_MAX + 32];
	int rc = 0;

	/*
	 * The key: everything the bases come from (every kind's variable,
	 * not a list of our own that a new kind would outgrow: a server
	 * whose CARGO_HOME changed kept the old places), and the anchors.
	 */
	if ((rc = ws_ctx_persist_env(ws, &xb, &nxb, NULL, NULL)) < 0)
		return rc;
	if ((env = ws_persist_env_key()) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	en = strlen(env) + 1;
	kn = en + 1;
	for (size_t a = 0; a < ws->nanchors; a++)
		kn += strlen(ws->anchors[a].real) + 1;
	/*
	 * And what the start-up files source (read once a call): a file
	 * the person's .bashrc sources from now on is a place at the next
	 * call of a server that built this before (review25 08).
	 */
	for (size_t k = 0; k < nxb; k++)
		if (xb[k].kind == WS_PERSIST_SOURCED)
			kn += strlen(xb[k].dir) + 2;
	if ((key = realloc(env, kn)) == NULL) {
		free(env);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	kn = en;
	key[kn - 1] = '\n';
	key[kn] = '\0';
	for (size_t a = 0; a < ws->nanchors; a++)
		kn += (size_t)sprintf(key + kn, "%s\n", ws->anchors[a].real);
	for (size_t k = 0; k < nxb; k++)
		if (xb[k].kind == WS_PERSIST_SOURCED)
			kn += (size_t)sprintf(key + kn, "\1%s\n", xb[k].dir);
	pthread_mutex_lock(&ws__homes_mu);
	if (ws__homes.key == NULL || strcmp(ws__homes.key, key) != 0) {
		free(ws__homes.key);
		ws__homes.key = key;
		key = NULL;
		ws__homes_build(ws);
	}
	if (ws__homes.failed) {
		pthread_mutex_unlock(&ws__homes_mu);
		free(key);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	for (size_t i = 0; i < ws__homes.n && place == NULL; i++) {
		const char *h = ws__homes.alias[i];

		const char *rest;

		/* Only what lies in it: reached() also matches its parents. */
		if (!ws_path_within(h, real, &rest))
			continue;
		kind = ws__homes.kind[i];
		/*
		 * A PATH directory above the anchors (~ on PATH, the project
		 * in ~/proj): a shell runs its own entries, not what lies
		 * deeper in the workspace (review17 07); what its links lead
		 * to there are places of the call's (ws_ctx_home_places_of()).
		 */
		if (kind == WS_PERSIST_PATH && ws__above_anchors(ws, h) &&
		    strchr(rest + strspn(rest, "/"), '/') != NULL)
			continue;
		place = anc ? ws_persist_reached(h, kind, real)
			    : ws_persist_in(h, kind, real);
	}
	/* Reached through a link on its way: by its real name, or by
	 * re-pointing a link the way passes (review11). */
	for (size_t k = 0; k < ws__homes.nreal && place == NULL; k++) {
		const char *r = ws__homes.real[k];

		if (ws_path_within(r, real, NULL) ||
		    (anc && ws_path_within(real, r, NULL))) {
			place = ws_home_persist[ws__homes.real_i[k] / WS_PERSIST_NKINDS];
			kind = (int)(ws__homes.real_i[k] % WS_PERSIST_NKINDS);
		}
	}
	for (size_t k = 0; k < ws__homes.nlink && place == NULL; k++) {
		const char *e = ws__homes.link[k];

		if (strcmp(e, real) == 0 || (anc && ws_path_within(real, e, NULL))) {
			place = ws_home_persist[ws__homes.link_i[k] / WS_PERSIST_NKINDS];
			kind = (int)(ws__homes.link_i[k] % WS_PERSIST_NKINDS);
		}
	}
	pthread_mutex_unlock(&ws__homes_mu);
	free(key);
	/*
	 * The places as the call resolved them for wsrun too
	 * (ws_ctx_home_places_call()): what a link from a HOME outside the
	 * workspace leads to in it (~/.config/git -> a directory here, the
	 * symlinked dotfiles' layout), even where it does not exist yet
	 * (review16 02, 03).
	 */
	if (place == NULL && rc == 0) {
		const struct ws_home_place *hp;
		size_t nhp;
		char pp[PATH_MAX];

		if ((rc = ws_ctx_home_places_call(ws, &hp, &nhp)) < 0)
			return rc;
		for (size_t k = 0; k < nhp; k++) {
			const char *ar = ws->anchors[hp[k].anchor].real;

			if (snprintf(pp, sizeof(pp), "%s/%s", strcmp(ar, "/") == 0
				     ? "" : ar, hp[k].rest) >= (int)sizeof(pp))
				continue;
			if (hp[k].way && (strcmp(pp, real) == 0 ||
					  (anc && ws_path_within(real, pp, NULL)))) {
				/*
				 * On a place's way (a link the place is
				 * reached through, what precedes a ".."):
				 * re-pointed, removed or made, it moves the
				 * place (sec16c, review17 03, 05).
				 */
				rc = ws_error_set(WS_EPOLICY_DENIED, shown,
						  "is (or %s) %s, on the way to one "
						  "of the persistence places (HOME's, "
						  "a directory on $PATH, "
						  "$XDG_CONFIG_HOME's, ...), where a "
						  "later login, session or program of "
						  "the user's finds what to run: "
						  "changed, it would move the place, "
						  "so no tool may %s it",
						  anc ? "holds" : "is", pp, ws__ops[op]);
				return ws__guard_refusal(rc, op);
			}
			if (!hp[k].way && (ws_path_within(pp, real, NULL) ||
					   (anc && ws_path_within(real, pp, NULL)))) {
				rc = ws_error_set(WS_EPOLICY_DENIED, shown,
						  "is (or %s) the real location of "
						  "one of HOME's persistence places "
						  "(%s), where a later login, session "
						  "or program of the user's finds "
						  "what to run: no tool may %s it",
						  anc ? "holds" : "is in", pp,
						  ws__ops[op]);
				return ws__guard_refusal(rc, op);
			}
		}
	}
	if (place != NULL) {
		ws_persist_show(kind, place, shown_place, sizeof(shown_place));
		rc = ws_error_set(WS_EPOLICY_DENIED, shown,
				  "is (or %s) %s, where a later login, "
				  "session or program of the user's finds what "
				  "to run: no tool may %s it",
				  anc ? "holds" : "is in", shown_place,
				  ws__ops[op]);
		rc = ws__guard_refusal(rc, op);
	}
	return rc;
}

/*
 * Whether real lies in the history's state directory (ws->hist_base),
 * resolved once a context, by the first read that is checked: a link on
 * the way (~/.local/state -> elsewhere) moves it, and a workspace holding
 * HOME may hold what it leads to.  One that does not exist yet holds
 * nothing to read.
 *
 * A search's workers check reads of one context at once (lib/grep.c,
 * without a policy, takes no lock), so the first checks may race: each
 * resolves into its own variable, the first answer is published by a
 * compare-and-swap, and only then is the context marked resolved.  A
 * thread that sees it resolved therefore sees the answer, never the
 * NULL it had before (which would let the read through).
 */
static bool
ws__in_history(struct ws_ctx *ws, const char *real)
{
	const char *h;

	if (!__atomic_load_n(&ws->hist_resolved, __ATOMIC_ACQUIRE)) {
		char *r = NULL, *none = NULL;

		if (access(ws->hist_base, F_OK) == 0 &&
		    ws_canonical_path(ws->hist_base, &r) < 0) {
			/* Unresolved: compared as named, lexically normal. */
			ws_error_clear();
			r = NULL;
			(void)ws_path_normalize(ws->hist_base, WS_NORM_CLAMP, &r);
		}
		if (r != NULL &&
		    !__atomic_compare_exchange_n(&ws->hist_real, &none, r, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			free(r);
		__atomic_store_n(&ws->hist_resolved, true, __ATOMIC_RELEASE);
	}
	h = __atomic_load_n(&ws->hist_real, __ATOMIC_ACQUIRE);
	return h != NULL && ws_path_within(h, real, NULL);
}

/*
 * Whether real lies in wstools' state in a home, the one this call uses
 * or another: <home>/.local/state/wstools, whichever home (the
 * environment's, the password file's, another user's, seen through any
 * mount).  A server given another XDG_STATE_HOME or --state-dir guarded
 * only its own, so with the workspace holding HOME the person's journal
 * (deleted files' contents, and what the next undo trusts) was read and
 * written by the tools (review18 09).  Lexical on the canonical path, so
 * a call pays a strstr(); a state directory reached through a link of
 * another name is covered where it is this call's (ws__in_history()) and
 * in commands (the view masks each home's).
 */
static bool
ws__in_state_dir(const char *real, bool anc)
{
	static const char st[] = "/.local/state/wstools";
	const size_t n = sizeof(st) - 1;

	for (const char *p = strstr(real, st); p != NULL; p = strstr(p + 1, st))
		if (p[n] == '\0' || p[n] == '/')
			return true;
	/*
	 * A state directory under another XDG_STATE_HOME than this call's
	 * (the person's shell sets one, the agent's server was started
	 * without it): "wstools" holding the mark ws_hist_open() leaves,
	 * WS_STATE_MARK (review23 02).  One lstat a component of that name,
	 * which few paths have.
	 */
	for (const char *p = strstr(real, "/wstools"); p != NULL;
	     p = strstr(p + 1, "/wstools")) {
		char q[PATH_MAX];
		struct stat sb;

		if ((p[8] == '\0' || p[8] == '/') &&
		    snprintf(q, sizeof(q), "%.*s/%s", (int)(p + 8 - real), real,
			     WS_STATE_MARK) < (int)sizeof(q) &&
		    lstat(q, &sb) == 0)
			return true;
	}
	if (anc) {
		char q[PATH_MAX];
		struct stat sb;

		if (snprintf(q, sizeof(q), "%s/wstools/%s", real, WS_STATE_MARK) <
		    (int)sizeof(q) && lstat(q, &sb) == 0)
			return true;
	}
	/*
	 * Nor is a directory above it renamed or deleted (.local/state
	 * moved away and back, the journal forged meanwhile under a name
	 * the text above does not match: review19 01).  One lstat, only for
	 * such a name.
	 */
	if (anc) {
		size_t rl = strlen(real);
		struct stat sb;
		char q[PATH_MAX];

		if ((rl >= 7 && strcmp(real + rl - 7, "/.local") == 0 &&
		     snprintf(q, sizeof(q), "%s/state/wstools", real) < (int)sizeof(q) &&
		     lstat(q, &sb) == 0) ||
		    (rl >= 13 && strcmp(real + rl - 13, "/.local/state") == 0 &&
		     snprintf(q, sizeof(q), "%s/wstools", real) < (int)sizeof(q) &&
		     lstat(q, &sb) == 0))
			return true;
	}
	return false;
}

/*
 * Whether real's last component is the state directory's mark: no tool
 * makes, changes or moves one, so an agent cannot mark a "wstools"
 * directory of the workspace and lock the file tools and wsrun out of
 * it (review24 03), nor mark a state directory of its own making as the
 * person's (ws__hist_mark()).  Deleting one where it guards nothing (a
 * directory of another name) stays allowed.
 */
static bool
ws__names_mark(const char *real)
{
	const char *b = strrchr(real, '/');

	b = b != NULL ? b + 1 : real;
	/* And what a deep tree's removal names its pieces, which refuses
	 * the next run (review26 05). */
	return strcmp(b, WS_STATE_MARK) == 0 || strncmp(b, ".wsrun-deep-", 12) == 0;
}

/*
 * Whether real lies in HOME's .local/state/wstools reached by a real path
 * that ws__in_state_dir() does not recognise (~/.local or .local/state a
 * link: review19 09).  Found at the first check of a context: an open()
 * that fails where there is no such directory, else a readlink() of the
 * descriptor's name.
 */
static bool
ws__in_state_alias(struct ws_ctx *ws, const char *real)
{
	const char *a;

	/* Published as ws__in_history() publishes hist_real (same race). */
	if (!__atomic_load_n(&ws->state_alias_done, __ATOMIC_ACQUIRE)) {
		const char *h = getenv("HOME");
		char p[PATH_MAX], l[64], r[PATH_MAX], *dup = NULL, *none = NULL;
		ssize_t n = -1;
		int fd;

		if (h != NULL && h[0] == '/' &&
		    snprintf(p, sizeof(p), "%s/.local/state/wstools", h) < (int)sizeof(p) &&
		    (fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0) {
			snprintf(l, sizeof(l), "/proc/self/fd/%d", fd);
			n = readlink(l, r, sizeof(r) - 1);
			close(fd);
		}
		if (n > 0) {
			r[n] = '\0';
			if (r[0] == '/' && !ws__in_state_dir(r, false))
				dup = strdup(r);
		}
		if (dup != NULL &&
		    !__atomic_compare_exchange_n(&ws->state_alias, &none, dup, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			free(dup);
		__atomic_store_n(&ws->state_alias_done, true, __ATOMIC_RELEASE);
	}
	a = __atomic_load_n(&ws->state_alias, __ATOMIC_ACQUIRE);
	return a != NULL && ws_path_within(a, real, NULL);
}

/* How ws__check() decided, for the audit log. */
struct ws__verdict {
	const char *policy, *rule, *decision;
	enum ws_audit_approval appr;
	/* Asked: the guards alone, no policy (ws_check_guards()); what
	 * real holds guarded too, whatever the operation. */
	bool guards_only, holds;
};

static int ws__check(struct ws_ctx *ws, enum ws_op op, const char *real,
		     const char *vpath, struct ws__verdict *v);

int
ws_check(struct ws_ctx *ws, enum ws_op op, const char *real, const char *vpath)
{
	struct ws__verdict v = {NULL, NULL, "allow", WS_AUDIT_NOT_ASKED};
	int rc;

	if (ws->audit == NULL)
		return ws__check(ws, op, real, vpath, &v);
	/* Every decision is seen here once, allowed or refused. */
	rc = ws__check(ws, op, real, vpath, &v);
	ws_audit_decision(ws->audit, ws__ops[op], real, vpath, v.policy, v.rule,
			  rc < 0 && v.appr == WS_AUDIT_NOT_ASKED ? "deny" : v.decision,
			  v.appr, rc);
	return rc;
}

int
ws_check_guards(struct ws_ctx *ws, enum ws_op op, const char *real,
		const char *vpath, bool holds, const char **rule)
{
	struct ws__verdict v = {NULL, NULL, "allow", WS_AUDIT_NOT_ASKED, true, holds};
	int rc = ws__check(ws, op, real, vpath, &v);

	if (rule != NULL)
		*rule = rc < 0 ? v.rule : NULL;
	return rc;
}

/* The refusal of a guarded path (pattern pat) to op, shown as shown. */
static int
ws__persist_refusal(const char *shown, const char *pat, enum ws_op op)
{
	int rc = ws__guard_refusal(ws_error_set(WS_EPOLICY_DENIED, shown,
				   "is (or holds) a guarded path (\"%s\": it "
				   "acts after this call, when git, a shell or "
				   "an editor runs): no tool may %s it; the "
				   "configuration's \"guarded\" list sets these",
				   pat ? pat : "?", ws__ops[op]), op);

	/* A repository's own directory is git's to change. */
	if (pat != NULL && (strncmp(pat, ".git/", 5) == 0 ||
			    strstr(pat, "/.git/") != NULL ||
			    strstr(pat, "/.hg/") != NULL ||
			    strstr(pat, "/.jj/") != NULL ||
			    strstr(pat, "/.sl/") != NULL ||
			    strstr(pat, "repository's own") != NULL))
		ws_error_set_hint("the file tools never change a "
				  "repository's own directory (.git, "
				  ".hg): run git itself through "
				  "run_command (wsrun -- git ...), "
				  "which keeps its work and removes "
				  "what would run code later");
	return rc;
}

static int
ws__check(struct ws_ctx *ws, enum ws_op op, const char *real, const char *vpath,
	  struct ws__verdict *v)
{
	struct ws_policy *p = v->guards_only ? NULL : ws->policy;
	struct ws_policy_match m;
	const char *shown = vpath != NULL ? vpath : real;
	const char *rule;
	char *msg = NULL;
	int rc = 0;

	/*
	 * Policy or not, no tool reads the history (a workspace that holds
	 * HOME holds ~/.local/state/wstools): its objects keep what files
	 * held before a change, a secret's content after its delete, a
	 * file the policy refuses to read, other workspaces' files.
	 */
	if (real != NULL &&
	    (((op == WS_OP_READ || op == WS_OP_OPEN || op == WS_OP_LIST) &&
	      ws->hist_base != NULL && ws__in_history(ws, real)) ||
	     ((op == WS_OP_WRITE || op == WS_OP_CREATE || op == WS_OP_MKDIR ||
	       op == WS_OP_CHMOD || op == WS_OP_RENAME) && ws__names_mark(real)) ||
	     ws__in_state_dir(real, op == WS_OP_RENAME || op == WS_OP_DELETE ||
				   op == WS_OP_RMDIR) ||
	     ws__in_state_alias(ws, real))) {
		v->rule = "guard:history";
		rc = ws__guard_refusal(ws_error_set(WS_EPOLICY_DENIED, shown,
				  "is (or is in) wstools' history, which keeps "
				  "what files held before each change, other "
				  "workspaces' too: no tool may %s it",
				  ws__ops[op]), op);
		/* A mark where there is no history (a clone of a repository
		 * that holds one) locks its directory until a person takes
		 * it away: say how (review24 03). */
		ws_error_set_hint("wstools protects its history on every call, "
				  "whatever the policy: leave it as it is, or ask "
				  "the user. A directory named wstools that holds "
				  "a file %s is taken for wstools' state "
				  "directory; where it is not one, the person "
				  "removes that file by hand", WS_STATE_MARK);
		return rc;
	}
	/*
	 * Policy or not, no tool rewrites wstools' own rules or moves the
	 * boundary of the next call.
	 */
	if (real != NULL && op != WS_OP_READ && op != WS_OP_OPEN &&
	    op != WS_OP_STAT && op != WS_OP_LIST && op != WS_OP_READLINK &&
	    op != WS_OP_EXEC) {
		bool anc = op == WS_OP_RENAME || op == WS_OP_DELETE ||
			   op == WS_OP_RMDIR || v->holds;
		const char *pat = NULL;

		switch (ws_ctx_guarded(ws, real, anc)) {
		case WS_GUARD_OWN:
			v->rule = "guard:own";
			return ws__guard_refusal(ws_error_set(WS_EPOLICY_DENIED, shown,
					    "is (or holds) wstools' own configuration, "
					    "policy or audit log: no tool may %s it", ws__ops[op]), op);
		case WS_GUARD_ANCHOR:
			v->rule = "guard:anchor";
			return ws__guard_refusal(ws_error_set(WS_EPOLICY_DENIED, shown,
					    "is (or holds) an entry that the workspace "
					    "root or a mount is spelled through: no tool "
					    "may %s it, or the next call's boundary "
					    "would move", ws__ops[op]), op);
		case WS_GUARD_PERSIST:
			v->rule = "guard:persist";
			(void)ws_guard_persist_match(ws, real, anc, &pat);
			return ws__persist_refusal(shown, pat, op);
		default:
			break;
		}
		/*
		 * The way as spelled, where a link on it makes it differ from
		 * the real path: .hg -> gd, made by a command, put gd/hgrc
		 * (the real path, in no guard's pattern) behind .hg/hgrc,
		 * which hg reads (review20 04).  A guarded pattern on the way
		 * refuses as it does on the real path.
		 */
		/* Only a virtual path: a recursive call's entries come with
		 * their real path as vpath. */
		if (vpath != NULL && vpath[0] == '/' && strcmp(vpath, real) != 0 &&
		    ws_ctx_anchor_of_real(ws, vpath, NULL) < 0) {
			const char *rest = NULL;
			int a = ws_ctx_anchor_of_virtual(ws, vpath, &rest);
			char *spelled = NULL;

			if (a >= 0 && rest != NULL && rest[0] != '\0' &&
			    (spelled = ws_path_join(ws->anchors[a].real, rest)) != NULL &&
			    strcmp(spelled, real) != 0 &&
			    ws_guard_persist_match(ws, spelled, anc, &pat)) {
				free(spelled);
				v->rule = "guard:persist";
				return ws__persist_refusal(shown, pat, op);
			}
			free(spelled);
		}
		if ((rc = ws__home_persist_check(ws, op, real, shown, anc)) < 0) {
			v->rule = "guard:home";
			return rc;
		}
	}
	/*
	 * Nor may a call move the project or git root that the next call's
	 * policy variables come from, by adding or taking away a marker.
	 */
	if (real != NULL && (op == WS_OP_CREATE || op == WS_OP_MKDIR ||
			     op == WS_OP_RENAME || op == WS_OP_DELETE ||
			     op == WS_OP_RMDIR)) {
		unsigned how = op == WS_OP_RENAME ? WS_CHANGE_CREATES | WS_CHANGE_REMOVES
			     : op == WS_OP_CREATE || op == WS_OP_MKDIR ? WS_CHANGE_CREATES
								       : WS_CHANGE_REMOVES;
		char *before = NULL, *after = NULL;

		if (ws_ctx_marker_guarded(ws, real, how, &before, &after)) {
			v->rule = "guard:marker";
			rc = ws_error_set(WS_EPOLICY_DENIED, shown,
					  "is a project marker: to %s it would change "
					  "what project detection finds (%s, then %s), "
					  "which the policy's variables come from; pin "
					  "the roots (--project-root DIR, or "
					  "\"detect_project_root\": false in the "
					  "configuration) to change markers",
					  ws__ops[op], before ? before : "?",
					  after ? after : "?");
			free(before);
			free(after);
			return rc;
		}
	}
	if (p == NULL)
		return 0;
	ws_policy_check_file(p, op, real, &m);
	rule = m.rule != NULL ? m.rule : "(no rule matched)";
	v->policy = p->name;
	v->rule = m.rule;
	v->decision = ws__decisions[m.decision];
	if (p->log != NULL) {
		char *q = ws_log_quote(real);

		ws__log(p, "INFO", "policy decision op=%s path=%s rule=%s decision=%s%s",
			ws__ops[op], q ? q : "?", m.rule ? m.rule : "none",
			ws__decisions[m.decision],
			m.decision == WS_DECISION_APPROVE && ws->approve
				? " approved=flag" : "");
		free(q);
	}
	if (m.decision == WS_DECISION_ALLOW)
		return 0;
	if (m.decision == WS_DECISION_APPROVE && ws->approve) {
		v->appr = WS_AUDIT_BY_FLAG;
		return 0;
	}
	if (m.decision == WS_DECISION_APPROVE) {
		v->appr = WS_AUDIT_REFUSED;
		struct ws_ask ask = {ws__ops[op], shown, p->name, m.rule, NULL};

		if (m.message != NULL)
			ask.message = msg = ws_policy_render(m.message, shown,
							     ws__ops[op], rule);
		if (ws_policy_ask(p, ws, &ask)) {
			ws__log(p, "INFO", "policy approval op=%s rule=%s approved=prompt",
				ws__ops[op], rule);
			v->appr = WS_AUDIT_BY_PROMPT;
			free(msg);
			return 0;
		}
		if (msg == NULL)
			msg = ws_policy_render("{{.Operation}} {{.Path}} needs approval",
					       shown, ws__ops[op], rule);
		rc = ws_error_set(WS_EAPPROVAL_REQUIRED, shown,
				  "%s (policy \"%s\", rule \"%s\"; pass --approve "
				  "to allow it)", msg ? msg : "needs approval",
				  p->name, rule);
	} else if (m.message != NULL &&
		   (msg = ws_policy_render(m.message, shown, ws__ops[op], rule)) != NULL) {
		rc = ws_error_set(WS_EPOLICY_DENIED, shown,
				  "%s (policy \"%s\", rule \"%s\", operation %s)",
				  msg, p->name, rule, ws__ops[op]);
	} else if (m.rule == NULL) {
		rc = ws_error_set(WS_EPOLICY_DENIED, shown,
				  "%s denied by policy \"%s\": no file rule matches",
				  ws__ops[op], p->name);
	} else {
		rc = ws_error_set(WS_EPOLICY_DENIED, shown,
				  "%s denied by policy \"%s\" (rule \"%s\")",
				  ws__ops[op], p->name, rule);
	}
	/* The decision, for a harness to act on without parsing the text. */
	ws_error_set_policy(p->name, m.rule, ws__ops[op]);
	if (m.decision == WS_DECISION_APPROVE)
		ws_error_set_hint("a person must approve this %s; ask the user, "
				  "who can rerun it with --approve",
				  ws__ops[op]);
	else if (m.rule == NULL)
		/*
		 * No rule denied this: the policy is silent about the path,
		 * and silence denies. That surprises whoever wrote a policy
		 * of deny rules only, and the fix is one line in the policy,
		 * so the hint says which line rather than "ask the user".
		 */
		ws_error_set_hint("what no rule of a policy matches is denied: "
				  "add a rule that allows this %s, or end the "
				  "policy with a catch-all {\"paths\": [\"**\"], "
				  "\"operations\": [\"*\"], \"decision\": "
				  "\"allow\"}; retrying will not help",
				  ws__ops[op]);
	else
		ws_error_set_hint("the policy forbids this %s here; retrying will "
				  "not help: choose another path or ask the user",
				  ws__ops[op]);
	free(msg);
	return rc;
}

/* The operations a read grant exposes, and those a write grant adds. */
#define WS__GRANT_RD                                                          \
	(1u << WS_OP_READ | 1u << WS_OP_OPEN | 1u << WS_OP_STAT |             \
	 1u << WS_OP_LIST | 1u << WS_OP_READLINK)
#define WS__GRANT_WR                                                          \
	(1u << WS_OP_WRITE | 1u << WS_OP_CREATE | 1u << WS_OP_MKDIR |         \
	 1u << WS_OP_CHMOD | 1u << WS_OP_RENAME | 1u << WS_OP_DELETE |        \
	 1u << WS_OP_RMDIR)
/* What a rule must allow for each: Landlock cannot tell the others apart
 * (stat, readlink and chmod it does not govern at all). */
#define WS__GRANT_NEED_RD (1u << WS_OP_READ | 1u << WS_OP_LIST)
#define WS__GRANT_NEED_WR                                                     \
	(1u << WS_OP_WRITE | 1u << WS_OP_CREATE | 1u << WS_OP_MKDIR |         \
	 1u << WS_OP_RENAME | 1u << WS_OP_DELETE | 1u << WS_OP_RMDIR)

/* Whether a glob whose paths all start with pre could match dir or below
 * it.  A prefix no longer than dir that names no whole directory yet ("/op"
 * of "/op*") compares as text: the glob may still extend it into dir.  A
 * prefix longer than dir must continue dir by a whole component: the deny
 * rule "/srv/out-old/" + "**" cannot match below "/srv/out". */
static bool
ws__prefix_reaches(const char *pre, const char *dir)
{
	size_t n = strlen(dir), m = strlen(pre);

	if (m <= n)
		return strncmp(pre, dir, m) == 0;
	return strncmp(pre, dir, n) == 0 &&
	       (n == 0 || dir[n - 1] == '/' || pre[n] == '/');
}

/* Whether the one path a glob without a wildcard matches (lit) is dir
 * or below it: the deny rule "/srv/x" names neither "/srv/x-out" nor
 * anything in it, though its text starts that name. */
static bool
ws__literal_reaches(const char *lit, const char *dir)
{
	size_t n = strlen(dir), m = strlen(lit);

	while (m > 1 && lit[m - 1] == '/')
		m--;
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (m < n || strncmp(lit, dir, n) != 0)
		return false;
	return m == n || lit[n] == '/' || (n == 1 && dir[0] == '/');
}

/* Why dir cannot be granted by its spelling, or NULL. */
static const char *
ws__grant_spelling(const char *dir)
{
	if (dir[0] != '/')
		return "not an absolute path";
	if (strcmp(dir, "/") == 0)
		return "it is / (the whole file system; a variable that expanded to "
		       "nothing?)";
	for (const char *c = dir + 1;; ) {
		size_t len = strcspn(c, "/");

		if (len == 0 || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return "spelled with an empty, \".\" or \"..\" component";
		if (c[len] == '\0')
			return NULL;
		c += len + 1;
	}
}

/*
 * The literal directory of a glob not of directory shape, for a rule that
 * names one: "/x" of "/x", "/x/", "/x/" + "*" or "/x/" + "**" + "/" + "*.o";
 * *dir NULL when there is none ("**", a relative glob) or it is "/".
 * Errors: WS_ENOMEM.
 */
static int
ws__shape_dir(const struct ws_glob *g, char **dir)
{
	const char *pre = ws_glob_prefix(g);
	size_t len = strlen(pre);

	*dir = NULL;
	if (pre[0] != '/')
		return 0;
	/* A wildcard follows: the directory is up to the last slash. */
	if (strcmp(pre, ws_glob_source(g)) != 0)
		while (len > 0 && pre[len - 1] != '/')
			len--;
	while (len > 0 && pre[len - 1] == '/')
		len--;
	if (len == 0)
		return 0;
	if ((*dir = strndup(pre, len)) == NULL)
		return WS_ENOMEM;
	return 0;
}

/*
 * The deny or approve rule that keeps grant g of rule i off for the
 * operations ops, or NULL.
 */
static const struct ws__frule *
ws__grant_veto(const struct ws_policy *p, size_t i, const char *dir,
	       unsigned ops)
{
	for (size_t d = 0; d < p->nf; d++) {
		const struct ws__frule *o = &p->frules[d];

		if (d == i || o->decision == WS_DECISION_ALLOW || !(o->ops & ops))
			continue;
		for (size_t k = 0; k < o->n; k++) {
			const char *pre;

			if (o->globs[k] == NULL)
				continue;
			pre = ws_glob_prefix(o->globs[k]);
			/* After the allow rule, a rule for everything ("**",
			 * or a wildcard first) is not reached: the allow rule
			 * decides first.  Before it, it is. */
			if (d > i && pre[0] == '\0')
				continue;
			/* Its prefix is all of it (nothing escaped, no
			 * wildcard): it matches that one path. */
			if (strcmp(pre, ws_glob_source(o->globs[k])) == 0) {
				if (ws__literal_reaches(pre, dir))
					return o;
				continue;
			}
			if (ws__prefix_reaches(pre, dir))
				return o;
		}
	}
	return NULL;
}

/*
 * Why veto keeps g (of rule r) off, and how to fix it: a rule before r
 * can be moved below it or narrowed; one after it names a path inside,
 * which moving would not help (it would then never decide).
 */
static void
ws__veto_why(struct ws_policy_grant *g, const char *lead,
	     const struct ws__frule *r, const struct ws__frule *veto)
{
	if (veto < r)
		snprintf(g->why, sizeof(g->why),
			 "%searlier %s rule \"%s\" could match in it (Landlock "
			 "can only add): move this allow rule above rule \"%s\", "
			 "or narrow that rule", lead, ws__decisions[veto->decision],
			 veto->name, veto->name);
	else
		snprintf(g->why, sizeof(g->why),
			 "%slater %s rule \"%s\" names a path inside; Landlock "
			 "can only add", lead, ws__decisions[veto->decision],
			 veto->name);
}

int
ws_policy_grants(const struct ws_policy *p, struct ws_policy_grant **out,
		 size_t *n)
{
	struct ws_policy_grant *v = NULL;
	size_t nv = 0;

	*out = NULL;
	*n = 0;
	if (p == NULL)
		return 0;
	for (size_t i = 0; i < p->nf; i++) {
		const struct ws__frule *r = &p->frules[i];

		if (r->decision != WS_DECISION_ALLOW)
			continue;
		for (size_t j = 0; j < r->n; j++) {
			char *dir = ws_glob_directory(r->globs[j]);
			struct ws_policy_grant *g, *nvv;
			const struct ws__frule *veto;
			const char *bad;
			unsigned ops;
			bool shape = false;

			if (dir == NULL && r->globs[j] != NULL) {
				/* Not a grant: listed, so that its author
				 * learns the shape a grant needs. */
				shape = true;
				if (ws__shape_dir(r->globs[j], &dir) < 0)
					goto nomem;
			}
			if (dir == NULL)
				continue;
			nvv = realloc(v, (nv + 1) * sizeof(*v));
			if (nvv == NULL || (nvv[nv].rule = strdup(r->name)) == NULL) {
				free(dir);
				v = nvv != NULL ? nvv : v;
				ws_policy_grants_free(v, nv);
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			}
			v = nvv;
			g = &v[nv++];
			g->dir = dir;
			g->fd = -1;
			g->granted = false;
			g->refused = true;
			g->shape = shape;
			g->quiet = false;
			g->vetoed = false;
			g->why[0] = '\0';
			if (shape) {
				g->write = false;
				g->exec = false;
				snprintf(g->why, sizeof(g->why),
					 "not a grant: only DIR/** rules are granted: "
					 "write %s/**", dir);
				continue;
			}
			g->exec = (r->ops & 1u << WS_OP_EXEC) != 0;
			g->write = (r->ops & WS__GRANT_NEED_WR) == WS__GRANT_NEED_WR;
			if ((r->ops & WS__GRANT_NEED_RD) != WS__GRANT_NEED_RD) {
				bool rd = r->ops & 1u << WS_OP_READ;
				bool ls = r->ops & 1u << WS_OP_LIST;

				snprintf(g->why, sizeof(g->why),
					 "the rule does not allow read and list, "
					 "the least a directory grant gives: add %s",
					 !rd && !ls ? "\"read\" and \"list\"" :
					 !rd ? "\"read\"" : "\"list\"");
				g->quiet = true;
				continue;
			}
			/*
			 * The file tools match the resolved value, but a grant
			 * is a descriptor opened at each call: a symlink the
			 * command planted where the variable points would be
			 * followed by the resolution before openat2 could
			 * refuse it.
			 */
			if (r->resolved[j]) {
				snprintf(g->why, sizeof(g->why), "%s",
					 "a variable in it leads through a symlink "
					 "(or \".\", \"..\"); a grant never follows one: "
					 "spell the real directory");
				continue;
			}
			if ((bad = ws__grant_spelling(dir)) != NULL) {
				snprintf(g->why, sizeof(g->why), "%s", bad);
				continue;
			}
			ops = WS__GRANT_RD | (g->exec ? 1u << WS_OP_EXEC : 0);
			if ((veto = ws__grant_veto(p, i, dir, ops)) != NULL) {
				ws__veto_why(g, "", r, veto);
				g->vetoed = true;
				continue;
			}
			if (g->write &&
			    (veto = ws__grant_veto(p, i, dir, WS__GRANT_WR)) != NULL) {
				g->write = false;
				ws__veto_why(g, "read only: ", r, veto);
			}
			g->refused = false;
		}
	}
	*out = v;
	*n = nv;
	return 0;
nomem:
	ws_policy_grants_free(v, nv);
	return ws_error_set(WS_ENOMEM, NULL, "out of memory");
}

void
ws_policy_grants_free(struct ws_policy_grant *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].rule);
		free(v[i].dir);
		if (v[i].fd >= 0)
			close(v[i].fd);
	}
	free(v);
}
