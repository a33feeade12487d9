/*
 * cli.c - common options, the tool option table, --args, --schema and
 * --help.  Opening the workspace is in session.c, printing in out.c.
 */
#include "ws/cli.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ws/audit.h"
#include "ws/call.h"
#include "ws/config.h"
#include "ws/detect.h"
#include "ws/error.h"
#include "ws/json.h"
#include "ws/session.h"
#include "ws/vars.h"

enum {
	C_WORKSPACE, C_MOUNT, C_POLICY, C_CONFIG, C_PROJECT_ROOT,
	C_NO_DETECT_ROOT, C_STRICT, C_ALLOW_OUTSIDE, C_APPROVE, C_AUDIT, C_STATE_DIR,
	C_NO_HISTORY, C_JSON,
	C_PLAIN, C_ARGS, C_SCHEMA, C_PATHS, C_VERBOSE, C_HELP, C_VERSION,
	C_COUNT
};

static const struct ws_opt ws__common[C_COUNT] = {
	[C_WORKSPACE] = {"workspace", 0, WS_OPT_STR, "DIR",
			 "workspace root (env WS_ROOT; default: current directory)", 0},
	[C_MOUNT] = {"mount", 0, WS_OPT_LIST, "VPREFIX=DIR[:ro]",
		     "show DIR at virtual VPREFIX (repeatable; env WS_MOUNTS)", 0},
	[C_POLICY] = {"policy", 0, WS_OPT_STR, "NAME|FILE",
		      "policy to enforce (env WS_POLICY)", 0},
	[C_CONFIG] = {"config", 0, WS_OPT_STR, "FILE",
		      "configuration file (env WS_CONFIG)", 0},
	[C_PROJECT_ROOT] = {"project-root", 0, WS_OPT_STR, "DIR",
			    "project root for policies (skips detection)", 0},
	[C_NO_DETECT_ROOT] = {"no-detect-root", 0, WS_OPT_FLAG, NULL,
			      "use the workspace as the project root", 0},
	[C_STRICT] = {"strict", 0, WS_OPT_FLAG, NULL,
		      "reject absolute paths, backslashes and \"..\" (env WS_STRICT=1)", 0},
	[C_ALLOW_OUTSIDE] = {"allow-outside", 0, WS_OPT_FLAG, NULL,
			     "UNSAFE: turn the workspace boundary off (env WS_ALLOW_OUTSIDE=1)", 0},
	[C_APPROVE] = {"approve", 0, WS_OPT_FLAG, NULL,
		       "approve operations a policy marks \"approve\"", 0},
	[C_AUDIT] = {"audit", 0, WS_OPT_STR, "FILE",
		     "append a line for this call to the audit log FILE (env WS_AUDIT)", 0},
	[C_STATE_DIR] = {"state-dir", 0, WS_OPT_STR, "DIR",
			 "where the history is kept (default: $XDG_STATE_HOME/wstools)", 0},
	[C_NO_HISTORY] = {"no-history", 0, WS_OPT_FLAG, NULL,
			  "do not record this call's changes in the history", 0},
	[C_JSON] = {"json", 0, WS_OPT_FLAG, NULL,
		    "print one JSON object (env WS_FORMAT=json)", 0},
	[C_PLAIN] = {"plain", 0, WS_OPT_FLAG, NULL, "print plain text", 0},
	[C_ARGS] = {"args", 0, WS_OPT_STR, "JSON|-",
		    "take the tool's arguments as one JSON object (implies --json)", 0},
	[C_SCHEMA] = {"schema", 0, WS_OPT_FLAG, NULL,
		      "print the tool's function-calling definition", 0},
	[C_PATHS] = {"paths", 0, WS_OPT_STR, "virtual|relative|real",
		     "how paths are printed (env WS_PATHS)", 0},
	[C_VERBOSE] = {"verbose", 0, WS_OPT_FLAG, NULL, "log decisions to stderr", 0},
	[C_HELP] = {"help", 'h', WS_OPT_FLAG, NULL, "show this help", 0},
	[C_VERSION] = {"version", 0, WS_OPT_FLAG, NULL, "show the version", 0},
};

/*
 * A boolean environment variable: unset or empty is false; 1/true/yes/on
 * and 0/false/no/off as expected; anything else is refused, since a typo
 * in WS_STRICT must not silently turn strict mode off.
 */
static int
ws__env_bool(const char *name, bool *out)
{
	static const char *const yes[] = {"1", "true", "yes", "on"};
	static const char *const no[] = {"0", "false", "no", "off"};
	const char *v = getenv(name);

	*out = false;
	if (v == NULL || *v == '\0')
		return 0;
	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0)
			return 0;
	}
	return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
			    "%s=\"%s\": expected 1 or 0 (true/false, yes/no, on/off)",
			    name, v);
}

static int
ws__push(const char ***arr, size_t *n, const char *s)
{
	const char **a = realloc(*arr, (*n + 1) * sizeof(*a));

	if (a == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	a[(*n)++] = s;
	*arr = a;
	return 0;
}

static int
ws__parse_int(const char *opt, const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno || end == s || *end != '\0')
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--%s: \"%s\" is not an integer", opt, s);
	return 0;
}

/*
 * The one parser of durations and sizes: every front end (flags, --args,
 * wstools call, MCP) reads a limit through these before any ceiling is
 * applied to it, so that no two places can read one value two ways.
 */
int
ws_parse_seconds(const char *s, long long *ms)
{
	size_t ni = strspn(s, "0123456789"), nf = 0;
	long long v = 0, f = 0;
	bool more = false;

	if (*s == '-')
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "\"%s\": a duration must not be negative", s);
	if (ni == 0 || ni > 12)
		goto bad;
	if (s[ni] == '.') {
		nf = strspn(s + ni + 1, "0123456789");
		if (nf == 0 || nf > 64 || s[ni + 1 + nf] != '\0')
			goto bad;
	} else if (s[ni] != '\0') {
		goto bad;
	}
	for (size_t k = 0; k < ni; k++)
		v = v * 10 + (s[k] - '0');
	for (size_t k = 0; k < 3; k++)
		f = f * 10 + (k < nf ? s[ni + 1 + k] - '0' : 0);
	/* A part of a millisecond counts as a whole one: never 0, "none". */
	for (size_t k = 3; k < nf; k++)
		more |= s[ni + 1 + k] != '0';
	*ms = v * 1000 + f + more;
	return 0;
bad:
	return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
			    "\"%s\" is not a number of seconds (such as 2 or 1.5)", s);
}

int
ws_seconds_from_number(double x, long long *ms)
{
	double m;

	if (!(x >= 0))
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    x < 0 ? "a duration must not be negative" :
				    "a duration must be a number of seconds");
	if (x > 1e9)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "a duration must be at most 1e9 seconds");
	/* Up to the next millisecond, so that a positive value stays so. */
	m = x * 1000;
	*ms = (long long)m;
	if ((double)*ms < m)
		(*ms)++;
	if (x > 0 && *ms == 0)
		*ms = 1;
	return 0;
}

int
ws_parse_size(const char *s, long long *out)
{
	size_t n = strspn(s, "0123456789");
	const char *u = s + n;
	int shift = 0;
	long long v = 0;

	if (*s == '-')
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "\"%s\": a size must not be negative", s);
	if (n == 0 || n > 18)
		goto bad;
	for (size_t k = 0; k < n; k++)
		v = v * 10 + (s[k] - '0');
	switch (*u) {
	case '\0': break;
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	default: goto bad;
	}
	if (*u != '\0') {
		u++;
		if (strcmp(u, "") != 0 && strcmp(u, "B") != 0 && strcmp(u, "iB") != 0 &&
		    strcmp(u, "b") != 0)
			goto bad;
	}
	if (v > ((1LL << 62) >> shift))
		goto bad;
	*out = v << shift;
	return 0;
bad:
	return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
			    "\"%s\" is not a size (bytes, or with a suffix K, M, "
			    "G or T: 50M, 1G)", s);
}

int
ws_size_from_number(double x, long long *out)
{
	if (!(x >= -0x1p62 && x <= 0x1p62) || x != (double)(long long)x)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "a size must be a whole number of bytes");
	if (x < 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "a size must not be negative");
	*out = (long long)x;
	return 0;
}

/*
 * The last error's message again, after "--NAME: " (a flag) or
 * "argument \"KEY\": " (a key of --args, which a model reads).
 */
static int
ws__prefix_error(bool key, const char *name)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s", ws_error_last());
	if (key)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "argument \"%s\": %s", name, msg);
	return ws_error_set(WS_EINVALID_ARGUMENT, NULL, "--%s: %s", name, msg);
}

/* Set the path form from --paths, or from WS_PATHS (env true). */
static int
ws__set_paths(struct ws_cli *cli, const char *v, bool env)
{
	if (strcmp(v, "virtual") == 0)
		cli->paths = WS_PATHS_VIRTUAL;
	else if (strcmp(v, "relative") == 0)
		cli->paths = WS_PATHS_RELATIVE;
	else if (strcmp(v, "real") == 0)
		cli->paths = WS_PATHS_REAL;
	else if (env)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "WS_PATHS=\"%s\": expected virtual, relative "
				    "or real", v);
	else
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--paths takes virtual, relative or real, not \"%s\"",
				    v);
	cli->paths_set = true;
	return 0;
}

/* Apply a tool option with its (string) value from the command line. */
static int
ws__set_tool_opt(struct ws_cli *cli, size_t i, const char *val, bool neg)
{
	const struct ws_opt *o = &cli->tool->opts[i];
	struct ws_optval *v = &cli->vals[i];

	v->set = true;
	v->by_flag = true;
	switch (o->type) {
	case WS_OPT_FLAG:
		v->b = !neg;
		return 0;
	case WS_OPT_STR:
		/* Repeated pairs (wswrite --old A --new B --old C ...). */
		v->s = val;
		return ws__push(&v->list, &v->n, val);
	case WS_OPT_JSON:
		v->s = val;
		return 0;
	case WS_OPT_INT:
		return ws__parse_int(o->name, val, &v->i);
	case WS_OPT_SECONDS:
		if (ws_parse_seconds(val, &v->i) < 0)
			return ws__prefix_error(false, o->name);
		return 0;
	case WS_OPT_BYTES:
		if (ws_parse_size(val, &v->i) < 0)
			return ws__prefix_error(false, o->name);
		return 0;
	case WS_OPT_LIST:
		return ws__push(&v->list, &v->n, val);
	}
	return 0;
}

/* Apply a common option; args_val is the value of --args. */
static int
ws__set_common(struct ws_cli *cli, int c, const char *val, const char **args_val)
{
	switch (c) {
	case C_WORKSPACE:
		cli->workspace = val;
		cli->workspace_from = "--workspace";
		break;
	case C_MOUNT: return ws__push(&cli->mounts, &cli->nmounts, val);
	case C_POLICY: cli->policy = val; break;
	case C_CONFIG: cli->config = val; break;
	case C_PROJECT_ROOT: cli->project_root = val; break;
	case C_NO_DETECT_ROOT: cli->no_detect_root = true; break;
	case C_STRICT: cli->strict = true; break;
	case C_ALLOW_OUTSIDE: cli->allow_outside = true; break;
	case C_APPROVE: cli->approve = true; break;
	case C_AUDIT: cli->audit = val; break;
	case C_STATE_DIR: cli->state_dir = val; break;
	case C_NO_HISTORY: cli->no_history = true; break;
	case C_JSON: cli->json = true; break;
	case C_PLAIN: cli->json = false; break;
	case C_ARGS: *args_val = val; break;
	case C_SCHEMA: cli->action = WS_CLI_SCHEMA; break;
	case C_PATHS: return ws__set_paths(cli, val, false);
	case C_VERBOSE: cli->verbose = true; break;
	case C_HELP: cli->action = WS_CLI_HELP; break;
	case C_VERSION: cli->action = WS_CLI_VERSION; break;
	}
	return 0;
}

/*
 * cJSON turns "\u0000" into a NUL that silently ends the string, which
 * would let "a\u0000/../../etc" pass as "a".  Find such escapes in the raw
 * text first; *key gets the key of the value that holds one (or "" when a
 * key itself holds one).
 */
static bool
ws__json_nul(const char *t, char *key, size_t keysz)
{
	const char *s = t;
	char last[128] = "";

	while (*s) {
		const char *start;
		bool nul = false;

		if (*s != '"') {
			s++;
			continue;
		}
		start = ++s;
		while (*s && *s != '"') {
			if (*s == '\\') {
				if (s[1] == 'u' && strncmp(s + 2, "0000", 4) == 0)
					nul = true;
				s += s[1] ? 2 : 1;
				continue;
			}
			s++;
		}
		{
			size_t n = (size_t)(s - start);
			const char *after = *s ? s + 1 : s;

			while (*after == ' ' || *after == '\t' || *after == '\n' ||
			       *after == '\r')
				after++;
			if (*after == ':') {
				if (nul) {
					snprintf(key, keysz, "%s", "");
					return true;
				}
				if (n >= sizeof(last))
					n = sizeof(last) - 1;
				memcpy(last, start, n);
				last[n] = '\0';
			} else if (nul) {
				snprintf(key, keysz, "%s", last);
				return true;
			}
		}
		if (*s)
			s++;
	}
	return false;
}

/*
 * A value of the wrong type, said with the type given, so that a caller
 * sees at once what went wrong ("3" quoted, a list for a string); the
 * value itself is not repeated, a model's text in a message.
 */
static int
ws__args_type_error(const char *key, const char *want, const cJSON *got)
{
	bool integer = strcmp(want, "an integer") == 0;
	const char *what = integer && cJSON_IsString(got) ?
			   "a string that is not a whole number" :
			   integer && cJSON_IsNumber(got) ?
			   "a number with a fraction, or out of range" :
			   cJSON_IsString(got) ? "a string" :
			   cJSON_IsNumber(got) ? "a number" :
			   cJSON_IsBool(got) ? "a boolean" :
			   cJSON_IsNull(got) ? "null" :
			   cJSON_IsArray(got) ? "an array" :
			   cJSON_IsObject(got) ? "an object" : "another type";

	return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
			    "argument \"%s\" must be %s, not %s", key, want,
			    what);
}

static int ws__digits(const char *s, long long *out);

/*
 * Argument k's integer into *n: a JSON number that is a whole one within
 * 2^62, or one quoted ("2": models often quote numbers).
 */
static int
ws__args_int(const char *k, const cJSON *it, long long *n)
{
	if (cJSON_IsString(it))
		return ws__digits(it->valuestring, n) < 0
			       ? ws__args_type_error(k, "an integer", it) : 0;
	/* Range first: casting an out-of-range double is UB. */
	if (!cJSON_IsNumber(it) ||
	    !(it->valuedouble >= -0x1p62 && it->valuedouble <= 0x1p62) ||
	    it->valuedouble != (double)(long long)it->valuedouble)
		return ws__args_type_error(k, "an integer", it);
	*n = (long long)it->valuedouble;
	return 0;
}

/*
 * The limits a harness sets with flags (a timeout, an output cap, a
 * result count) are ceilings for the model's --args, not defaults it may
 * lift: a smaller value is taken, a larger one or 0 ("none") keeps the
 * flag's.  The configuration's limits bind the same way (session.c).
 */
static void
ws__args_ceiling(struct ws_optval *v, const struct ws_opt *o, bool by_flag,
		 long long want)
{
	static const char *const limits[] = {
		"max-bytes",   "max-entries", "max-results", "max-filesize",
		"max-output",  "timeout",     "time-budget", "scan-bytes",
		"scan-time",   "grace",	      "max-count",   "max-columns",
		"max-depth",   "memory",      "max-procs",   "max-file-size",
		"cpu-time",
	};

	if (by_flag && v->i > 0) {
		for (size_t k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
			if (strcmp(o->name, limits[k]) == 0) {
				if (want > 0 && want < v->i)
					v->i = want;
				return;
			}
		}
	}
	v->i = want;
}

/*
 * The ceilings of what a model may ask for through wstools call and MCP,
 * where nobody gives the flags that bound an --args caller.  Values are
 * in the option's unit: milliseconds for seconds, bytes, counts.
 */
const struct ws_ceiling ws_ceilings_default[WS_NCEILINGS] = {
	{"run_command", "timeout", 600000, 60000},
	{"run_command", "max_output", 1 << 20, 64 << 10},
	{"search_files", "max_results", 1000, 50},
	{"search_files", "time_budget", 60000, 10000},
	{"list_directory", "max_entries", 10000, 200},
	{"list_directory", "max_output", 1 << 20, 65536},
	{"read_file", "max_bytes", 1 << 20, 1 << 20},
};

/* ws_cli_set_ceilings(): the current call's (ws/call.h). */
void
ws_cli_set_ceilings(const struct ws_ceiling *c, size_t n)
{
	struct ws_call *call = ws_call_current();

	call->ceil = n > 0 ? c : NULL;
	call->nceil = c != NULL ? n : 0;
}

/*
 * Hold the parsed values of the model's arguments to the front end's
 * ceilings: above one is the ceiling, and so is 0 ("none", "all"), and
 * a tool default above it the ceiling.  A value a flag
 * gave (the harness's) is not the model's and stays.  A negative one is
 * left for the tool to refuse.
 */
static int
ws__front_ceilings(struct ws_cli *cli)
{
	const struct ws_tool *t = cli->tool;
	const struct ws_ceiling *tab = ws_call_current()->ceil;
	size_t n = ws_call_current()->nceil;
	bool env;
	int rc;

	/* WS_CEILINGS=1 (wstools call sets it): the built-in ones. */
	if ((rc = ws__env_bool("WS_CEILINGS", &env)) < 0)
		return rc;
	if (tab == NULL && env) {
		tab = ws_ceilings_default;
		n = WS_NCEILINGS;
	}
	for (size_t c = 0; c < n; c++) {
		const struct ws_ceiling *e = &tab[c];

		if (strcmp(e->tool, t->tool) != 0)
			continue;
		for (size_t i = 0; i < t->nopts; i++) {
			struct ws_optval *v = &cli->vals[i];
			const char *a = t->opts[i].name, *b = e->key;

			while (*a && (*a == *b || (*a == '-' && *b == '_'))) {
				a++;
				b++;
			}
			if (*a != '\0' || *b != '\0' || v->by_flag)
				continue;
			if (!v->set) {
				if (e->dflt > e->max) {
					v->set = v->from_args = true;
					v->i = e->max;
				}
			} else if (v->i == 0 || v->i > e->max) {
				/*
				 * 0 ("none", "all") is as much as the front end
				 * allows: the ceiling, as tools/list says.
				 */
				v->i = e->max;
			}
		}
	}
	return 0;
}

/*
 * A JSON string that is an integer written in decimal digits ("2", "-1"),
 * as models send numbers: nothing else (no spaces, signs alone, "1e3" or
 * hex), and within the range a JSON number is accepted in.
 */
static int
ws__digits(const char *s, long long *out)
{
	const char *d = s + (*s == '-');
	char *end;

	if (*d < '0' || *d > '9' || strspn(d, "0123456789") != strlen(d) ||
	    strlen(d) > 18)
		return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno || *end != '\0' || *out > (1LL << 62) || *out < -(1LL << 62))
		return -1;
	return 0;
}

static bool ws__plural_pos(const struct ws_tool *t);

/*
 * An unknown key names the valid ones, so that a model can correct its
 * call instead of guessing again.
 */
static int
ws__unknown_key(const struct ws_tool *t, const char *k)
{
	char list[1024];
	size_t n = 0;

	list[0] = '\0';
	if (t->pos_name != NULL)
		n += (size_t)snprintf(list, sizeof(list), "%s%s", t->pos_name,
				      ws__plural_pos(t) ? ", paths" : "");
	for (size_t i = 0; i < t->nopts && n < sizeof(list); i++) {
		if (t->opts[i].flags & WS_OPT_NOSCHEMA)
			continue;
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s",
				      n > 0 ? ", " : "");
		for (const char *c = t->opts[i].name; *c && n + 1 < sizeof(list); c++)
			list[n++] = *c == '-' ? '_' : *c;
		if (n < sizeof(list))
			list[n] = '\0';
	}
	ws_error_set(WS_EINVALID_ARGUMENT, NULL,
		     "unknown argument \"%s\" for %s; valid arguments: %s", k,
		     t->tool, list);
	return ws_error_set_hint("use only the arguments listed in the %s "
				 "definition", t->tool);
}

/* Append the strings of the JSON array it (the value of key k) to v. */
static int
ws__push_strings(const char *k, const cJSON *it, const char ***v, size_t *n)
{
	const cJSON *e;

	if (!cJSON_IsArray(it))
		return ws__args_type_error(k, "an array of strings", it);
	cJSON_ArrayForEach(e, it) {
		if (!cJSON_IsString(e))
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "argument \"%s\" must be an array of "
					    "strings, and holds %s", k,
					    cJSON_IsNumber(e) ? "a number" :
					    cJSON_IsBool(e) ? "a boolean" :
					    cJSON_IsNull(e) ? "null" :
					    cJSON_IsArray(e) ? "an array" :
					    "an object");
		if (ws__push(v, n, e->valuestring) < 0)
			return WS_ENOMEM;
	}
	return 0;
}

/* Whether a tool takes several "path"s, so that --args may say "paths". */
static bool
ws__plural_pos(const struct ws_tool *t)
{
	return t->pos_name != NULL && strcmp(t->pos_name, "path") == 0 &&
	       !t->pos_array &&
	       (t->pos_kind == WS_POS_MANY || t->pos_kind == WS_POS_ANY);
}

/*
 * The refusal of a NUL byte in the argument nulkey: a path's is
 * INVALID_PATH (as the resolver says it), any other INVALID_ARGUMENT.
 */
static int
ws__nul_refused(const struct ws_tool *t, const char *nulkey)
{
	if (strcmp(nulkey, t->pos_name ? t->pos_name : "") == 0 ||
	    strcmp(nulkey, "path") == 0 || strcmp(nulkey, "paths") == 0)
		return ws_error_set(WS_EINVALID_PATH, NULL, "path contains a NUL byte");
	return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
			    "argument \"%s\" contains a NUL byte", nulkey);
}

static int ws__apply_json(struct ws_cli *cli, const cJSON *root);

int
ws_cli_check_keys(const char *tool, const cJSON *args, const char *const *keys)
{
	const cJSON *it;
	char list[1024];
	size_t n = 0;

	if (keys == NULL || !cJSON_IsObject(args))
		return 0;
	cJSON_ArrayForEach(it, args) {
		size_t i;

		for (i = 0; keys[i] != NULL && strcmp(keys[i], it->string) != 0; i++)
			;
		if (keys[i] == NULL)
			break;
	}
	if (it == NULL)
		return 0;
	list[0] = '\0';
	for (size_t i = 0; keys[i] != NULL && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
				      i > 0 ? ", " : "", keys[i]);
	ws_error_set(WS_EINVALID_ARGUMENT, NULL,
		     "unknown argument \"%s\" for %s; valid arguments: %s",
		     it->string, tool, list);
	return ws_error_set_hint("use only the arguments listed in the %s "
				 "definition", tool);
}

/* Apply one --args JSON object: its text parsed, then decoded. */
static int
ws__apply_args(struct ws_cli *cli, const char *text)
{
	const struct ws_tool *t = cli->tool;
	char nulkey[128];
	const char *ep = NULL;
	cJSON *root;

	if (ws__json_nul(text, nulkey, sizeof(nulkey)))
		return ws__nul_refused(t, nulkey);
	/* Nothing may follow the object: a second one would be ignored. */
	root = ws_json_parse(text, WS_JSON_STR, &ep, true);
	if (root == NULL) {

		/* "near \"\"" said nothing: say what is wrong at the end. */
		if (text[strspn(text, " \t\r\n")] == '\0')
			ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				     "the arguments are empty: expected one "
				     "JSON object");
		else if (ep == NULL || ep[strspn(ep, " \t\r\n")] == '\0')
			ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				     "the arguments are not valid JSON (they "
				     "end before the object is complete)");
		else
			ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				     "the arguments are not valid JSON (near "
				     "\"%.20s\")", ep);
		return ws_error_set_hint("send the arguments of %s as one JSON "
					 "object, such as {\"%s\": ...}", t->tool,
					 t->pos_name ? t->pos_name : "key");
	}
	cli->args_json = root;
	return ws__apply_json(cli, root);
}

/*
 * Apply one arguments object, parsed already (--args, or a front end's
 * call): every key once, each a known option of the right type.
 */
static int
ws__apply_json(struct ws_cli *cli, const cJSON *root)
{
	const struct ws_tool *t = cli->tool;
	const cJSON *it;

	if (!cJSON_IsObject(root)) {
		ws_error_set(WS_EINVALID_ARGUMENT, NULL,
			     "the arguments must be a JSON object");
		return ws_error_set_hint("send the arguments of %s as one JSON "
					 "object, such as {\"%s\": ...}", t->tool,
					 t->pos_name ? t->pos_name : "key");
	}
	/*
	 * Before anything reads a key: with a repeated one, a check could
	 * read one copy and the call use the other.
	 */
	if (ws_json_unique_keys(root, true) < 0)
		return ws_error_set_hint("send each argument of %s once",
					 t->tool);
	/* Exactly what the published definition declares. */
	if (ws_cli_check_keys(t->tool, root, cli->declared) < 0)
		return WS_EINVALID_ARGUMENT;
	cJSON_ArrayForEach(it, root) {
		const char *k = it->string;
		char name[128];
		size_t i;
		struct ws_optval *v;
		bool by_flag;
		int rc;

		/*
		 * Several paths in one call: "paths" (an array) beside "path",
		 * for a tool that takes more than one (wsread a b c).
		 */
		if (ws__plural_pos(t) && strcmp(k, "paths") == 0) {
			if ((rc = ws__push_strings(k, it, &cli->pos, &cli->npos)) < 0)
				return rc;
			continue;
		}
		/*
		 * The other way round: a tool whose operands are "paths"
		 * (wsgrep) takes a single "path" too, as models write it
		 * for search tools; it is not offered, only understood.
		 */
		if (t->pos_array && !t->pos_string_ok && t->pos_name &&
		    strcmp(t->pos_name, "paths") == 0 && strcmp(k, "path") == 0) {
			rc = cJSON_IsString(it) ?
			     ws__push(&cli->pos, &cli->npos, it->valuestring) :
			     ws__push_strings(k, it, &cli->pos, &cli->npos);
			if (rc < 0)
				return rc;
			continue;
		}
		if (t->pos_name && strcmp(k, t->pos_name) == 0) {
			if (t->pos_array && t->pos_string_ok && cJSON_IsString(it)) {
				cli->pos_string = it->valuestring;
			} else if (t->pos_array) {
				if ((rc = ws__push_strings(k, it, &cli->pos, &cli->npos)) < 0)
					return rc;
			} else if (t->pos_int) {
				long long n;

				/* A number, or one quoted ("3"), as for options. */
				if ((rc = ws__args_int(k, it, &n)) < 0)
					return rc;
				snprintf(cli->pos_num, sizeof(cli->pos_num), "%lld", n);
				if (ws__push(&cli->pos, &cli->npos, cli->pos_num) < 0)
					return WS_ENOMEM;
			} else {
				if (!cJSON_IsString(it))
					return ws__args_type_error(k, "a string", it);
				if (ws__push(&cli->pos, &cli->npos, it->valuestring) < 0)
					return WS_ENOMEM;
			}
			continue;
		}
		snprintf(name, sizeof(name), "%s", k);
		for (char *c = name; *c; c++)
			if (*c == '_')
				*c = '-';
		for (i = 0; i < t->nopts; i++)
			if (strcmp(t->opts[i].name, name) == 0 &&
			    !(t->opts[i].flags & WS_OPT_NOSCHEMA))
				break;
		if (i == t->nopts || strchr(k, '-') != NULL)
			return ws__unknown_key(t, k);
		v = &cli->vals[i];
		by_flag = v->set && !v->from_args;
		v->set = true;
		v->from_args = true;
		switch (t->opts[i].type) {
		case WS_OPT_FLAG:
			if (!cJSON_IsBool(it))
				return ws__args_type_error(k, "a boolean", it);
			v->b = cJSON_IsTrue(it);
			break;
		case WS_OPT_INT: {
			long long n;

			if ((rc = ws__args_int(k, it, &n)) < 0)
				return rc;
			ws__args_ceiling(v, &t->opts[i], by_flag, n);
			break;
		}
		case WS_OPT_SECONDS: {
			long long ms;

			if (cJSON_IsString(it))
				rc = ws_parse_seconds(it->valuestring, &ms);
			else if (cJSON_IsNumber(it))
				rc = ws_seconds_from_number(it->valuedouble, &ms);
			else
				return ws__args_type_error(k, "a number of seconds", it);
			if (rc < 0)
				return ws__prefix_error(true, k);
			ws__args_ceiling(v, &t->opts[i], by_flag, ms);
			break;
		}
		case WS_OPT_BYTES: {
			long long b;

			if (cJSON_IsString(it))
				rc = ws_parse_size(it->valuestring, &b);
			else if (cJSON_IsNumber(it))
				rc = ws_size_from_number(it->valuedouble, &b);
			else
				return ws__args_type_error(k, "a size", it);
			if (rc < 0)
				return ws__prefix_error(true, k);
			ws__args_ceiling(v, &t->opts[i], by_flag, b);
			break;
		}
		case WS_OPT_STR:
			if (!cJSON_IsString(it))
				return ws__args_type_error(k, "a string", it);
			v->s = it->valuestring;
			break;
		case WS_OPT_JSON:
			v->json = it;
			break;
		case WS_OPT_LIST:
			if (cJSON_IsString(it)) {
				if (ws__push(&v->list, &v->n, it->valuestring) < 0)
					return WS_ENOMEM;
				break;
			}
			if ((rc = ws__push_strings(k, it, &v->list, &v->n)) < 0)
				return rc;
			break;
		}
	}
	return 0;
}

/* Read all of standard input (for --args -). */
static char *
ws__slurp_stdin(size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);

	while (buf != NULL) {
		size_t r;

		if (n + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (nb == NULL) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		r = fread(buf + n, 1, cap - n - 1, stdin);
		n += r;
		if (r == 0)
			break;
	}
	if (buf != NULL)
		buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * The edit distance of a[0..la) and b (insertions, deletions,
 * substitutions, a swap of two neighbours), stopping at 3: a guess
 * further away is no guess.
 */
static size_t
ws__opt_distance(const char *a, size_t la, const char *b)
{
	size_t lb = strlen(b), d[3][40];

	if (la >= 40 || lb >= 40 || (la > lb ? la - lb : lb - la) > 2)
		return 3;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *cur = d[i % 3], *prev = d[(i - 1) % 3], *pp = d[(i + 1) % 3];

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], v = prev[j - 1] + cost;

			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			cur[j] = v;
		}
	}
	return d[la % 3][lb] < 3 ? d[la % 3][lb] : 3;
}

/*
 * The tool's or the common option a mistyped --name most likely meant
 * (FTU10 12: "--lon" for --long): the only one it begins, else the
 * nearest within two edits; NULL when none or a tie.
 */
static const char *
ws__near_long(const struct ws_tool *tool, const char *name, size_t len)
{
	const struct ws_opt *sets[2] = {tool->opts, ws__common};
	size_t ns[2] = {tool->nopts, C_COUNT}, best = 3, nbest = 0, npre = 0;
	const char *pick = NULL, *pre = NULL;

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < ns[k]; i++) {
			const char *o = sets[k][i].name;
			size_t dist;

			if (o == NULL)
				continue;
			if (len >= 2 && strncmp(o, name, len) == 0) {
				pre = o;
				npre++;
			}
			dist = ws__opt_distance(name, len, o);
			if (dist < best) {
				best = dist;
				pick = o;
				nbest = 1;
			} else if (dist == best && dist < 3) {
				nbest++;
			}
		}
	if (npre == 1)
		return pre;
	return best < 3 && nbest == 1 ? pick : NULL;
}

static int
ws__find_long(const struct ws_opt *opts, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

/* The text of --args (or "-": standard input) applied to cli. */
static int
ws__args(struct ws_cli *cli, const char *args_val)
{
	int rc;

	cli->from_args = true;
	if (strcmp(args_val, "-") == 0) {
		size_t len = 0;

		cli->args_text = ws__slurp_stdin(&len);
		if (cli->args_text == NULL)
			return ws_error_set(WS_EIO_ERROR, NULL,
					    "cannot read --args from stdin");
		/* A NUL would end the text early: what follows it
		 * (a second object) would be ignored, not refused. */
		if (memchr(cli->args_text, '\0', len) != NULL)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "--args from stdin holds a NUL "
					    "byte: nothing may follow the "
					    "JSON object");
		args_val = cli->args_text;
	}
	/*
	 * --args carries every argument of the tool.  A PATH or a
	 * command word on the command line as well would be merged
	 * with the JSON's (wsread read both files, wsrun ran the words
	 * followed by the model's command): refuse it instead.
	 */
	if (cli->npos > 0 && cli->action == WS_CLI_RUN)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "the tool's arguments come as JSON "
				    "(--args): \"%s\" cannot also be "
				    "given on the command line",
				    cli->pos[0]);
	rc = ws__apply_args(cli, args_val);
	if (rc < 0)
		return rc;
	if ((rc = ws__front_ceilings(cli)) < 0)
		return rc;
	return 0;
}

/* The common settings from the environment; flags override them. */
static void
ws__cli_env(struct ws_cli *cli)
{
	cli->workspace = getenv("WS_ROOT");
	cli->workspace_from = cli->workspace != NULL ? "WS_ROOT" : NULL;
	cli->policy = getenv("WS_POLICY");
	cli->config = getenv("WS_CONFIG");
	cli->env_mounts = getenv("WS_MOUNTS");
}

/* The positionals (or their JSON key) as the tool takes them. */
static int
ws__check_pos(const struct ws_cli *cli)
{
	const struct ws_tool *tool = cli->tool;

	switch (tool->pos_kind) {
	case WS_POS_NONE:
		if (cli->npos > 0)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "unexpected argument \"%s\"", cli->pos[0]);
		break;
	case WS_POS_ONE:
		if (cli->npos != 1 && cli->from_args)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "missing required argument \"%s\"",
					    tool->pos_name);
		if (cli->npos != 1)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "expected exactly one %s (see --help)",
					    tool->pos_name);
		break;
	case WS_POS_OPT:
		if (cli->npos > 1)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "expected at most one %s", tool->pos_name);
		break;
	case WS_POS_MANY:
		if (cli->npos < 1 && cli->from_args && cli->pos_string == NULL)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "missing required argument \"%s\"",
					    tool->pos_name);
		if (cli->npos < 1)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "missing %s (see --help)", tool->pos_name);
		break;
	case WS_POS_ANY:
		break;
	}
	return 0;
}

static int
ws__cli_parse(struct ws_cli *cli, const struct ws_tool *tool, int argc, char **argv,
	      bool pos)
{
	const char *args_val = NULL, *e;
	bool only_pos = false, short_help = false;
	int rc = 0;

	memset(cli, 0, sizeof(*cli));
	cli->tool = tool;
	cli->vals = calloc(tool->nopts ? tool->nopts : 1, sizeof(*cli->vals));
	if (cli->vals == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");

	ws__cli_env(cli);
	/*
	 * The output form first, flags included, so that any error below is
	 * printed in the form asked for, wherever --json stands.
	 */
	e = getenv("WS_FORMAT");
	cli->json = e != NULL && strcmp(e, "json") == 0;
	for (int ai = 1; ai < argc; ai++) {
		if (strcmp(argv[ai], "--") == 0)
			break;
		/* A command's own --json is not ours (a value may end the
		 * scan early too: errors before it are then plain). */
		if (tool->pos_stops_options && argv[ai][0] != '-')
			break;
		if (strcmp(argv[ai], "--json") == 0 || strcmp(argv[ai], "--args") == 0 ||
		    strncmp(argv[ai], "--args=", 7) == 0)
			cli->json = true;
		else if (strcmp(argv[ai], "--plain") == 0)
			cli->json = false;
	}
	if (e != NULL && *e && strcmp(e, "json") != 0 && strcmp(e, "plain") != 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "WS_FORMAT=\"%s\": expected json or plain", e);
	if ((rc = ws__env_bool("WS_STRICT", &cli->strict)) < 0 ||
	    (rc = ws__env_bool("WS_ALLOW_OUTSIDE", &cli->allow_outside)) < 0)
		return rc;
	e = getenv("WS_PATHS");
	if (e != NULL && *e && (rc = ws__set_paths(cli, e, true)) < 0)
		return rc;

	for (int ai = 1; ai < argc; ai++) {
		char *a = argv[ai];

		if (only_pos || a[0] != '-' || a[1] == '\0') {
			if ((rc = ws__push(&cli->pos, &cli->npos, a)) < 0)
				return rc;
			if (tool->pos_stops_options)
				only_pos = true;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_pos = true;
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			const char *val = eq ? eq + 1 : NULL;
			int c = ws__find_long(ws__common, C_COUNT, name, len);
			int t = c < 0 ? ws__find_long(tool->opts, tool->nopts, name, len) : -1;
			bool neg = false;
			const struct ws_opt *o;

			if (c < 0 && t < 0 && len > 3 && strncmp(name, "no-", 3) == 0) {
				t = ws__find_long(tool->opts, tool->nopts, name + 3, len - 3);
				if (t >= 0 && !(tool->opts[t].flags & WS_OPT_NEGATABLE))
					t = -1;
				neg = t >= 0;
			}
			/* WS_FORMAT's name leads people to guess --format. */
			if (c < 0 && t < 0 && len == 6 && strncmp(name, "format", 6) == 0)
				return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
						    "unknown option --format: say --json "
						    "or --plain (or set WS_FORMAT=json in "
						    "the environment)");
			if (c < 0 && t < 0) {
				const char *near = ws__near_long(tool, name, len);

				rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
						  "unknown option --%.*s (see --help)",
						  (int)len, name);
				if (near != NULL)
					ws_error_set_hint("did you mean --%s?", near);
				return rc;
			}
			o = c >= 0 ? &ws__common[c] : &tool->opts[t];
			if (o->type == WS_OPT_FLAG) {
				if (val != NULL)
					return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
							    "--%s takes no value", o->name);
			} else if (val == NULL) {
				if (ai + 1 >= argc)
					return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
							    "--%s needs a value", o->name);
				val = argv[++ai];
			}
			rc = c >= 0 ? ws__set_common(cli, c, val, &args_val)
				    : ws__set_tool_opt(cli, (size_t)t, val, neg);
			if (rc < 0)
				return rc;
			continue;
		}
		/* A bundle of short options: -la, -n5, -A 3. */
		for (char *s = a + 1; *s; s++) {
			size_t t;

			/* -h alone is help; in a bundle (ls users type -lh)
			 * it is an unknown option, not a silent help page. */
			if (*s == 'h' && a[1] == 'h' && a[2] == '\0') {
				cli->action = WS_CLI_HELP;
				short_help = true;
				continue;
			}
			for (t = 0; t < tool->nopts; t++)
				if (tool->opts[t].short_name == *s)
					break;
			if (t == tool->nopts) {
				rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
						  "unknown option -%c (see --help)", *s);
				if (*s == 'h' && tool->h_hint != NULL)
					ws_error_set_hint("%s", tool->h_hint);
				return rc;
			}
			if (tool->opts[t].type == WS_OPT_FLAG) {
				ws__set_tool_opt(cli, t, NULL, false);
				continue;
			}
			if (s[1] != '\0') {
				rc = ws__set_tool_opt(cli, t, s + 1, false);
			} else if (ai + 1 < argc) {
				rc = ws__set_tool_opt(cli, t, argv[++ai], false);
			} else {
				return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
						    "-%c needs a value", *s);
			}
			if (rc < 0)
				return rc;
			break;
		}
	}
	/*
	 * grep users type "wsgrep -h PATTERN" for no file names: beside any
	 * other argument, -h is refused rather than taken for a help page.
	 */
	if (short_help && tool->h_hint != NULL && argc > 2) {
		cli->action = WS_CLI_RUN;
		rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				  "-h is --help here, and takes no other "
				  "argument");
		ws_error_set_hint("%s", tool->h_hint);
		return rc;
	}
	if (args_val != NULL) {
		bool plain = false;

		for (int ai = 1; ai < argc; ai++)
			if (strcmp(argv[ai], "--plain") == 0)
				plain = true;
		cli->json = !plain;
		if ((rc = ws__args(cli, args_val)) < 0)
			return rc;
	}
	if (cli->action != WS_CLI_RUN || !pos)
		return 0;
	return ws__check_pos(cli);
}

/*
 * --schema describes the tool, whatever else the command line says: a
 * caller asking for the schema gets it even beside an option that does
 * not parse (a value out of range, an unknown flag, bad --args JSON).
 * Only words where options are read count (not after "--" or, for a
 * tool whose command line ends at its first argument, after that).
 */
static int ws__parse_schema(struct ws_cli *cli, const struct ws_tool *tool, int argc,
			    char **argv, int rc);

int
ws_cli_parse(struct ws_cli *cli, const struct ws_tool *tool, int argc, char **argv)
{
	return ws__parse_schema(cli, tool, argc, argv,
				ws__cli_parse(cli, tool, argc, argv, true));
}

int
ws_cli_parse_flags(struct ws_cli *cli, const struct ws_tool *tool, int argc,
		   char **argv)
{
	return ws__parse_schema(cli, tool, argc, argv,
				ws__cli_parse(cli, tool, argc, argv, false));
}

static int
ws__parse_schema(struct ws_cli *cli, const struct ws_tool *tool, int argc,
		 char **argv, int rc)
{
	if (rc < 0 && cli->vals != NULL) {
		for (int ai = 1; ai < argc; ai++) {
			const char *a = argv[ai];

			if (strcmp(a, "--") == 0 ||
			    (tool->pos_stops_options && a[0] != '-'))
				break;
			if (strcmp(a, "--schema") == 0) {
				cli->action = WS_CLI_SCHEMA;
				return 0;
			}
			/* An option's value is not an argument: skip it. */
			if (a[0] == '-' && a[1] == '-' && strchr(a, '=') == NULL) {
				size_t len = strlen(a + 2);
				int c = ws__find_long(ws__common, C_COUNT, a + 2, len);
				int t = c < 0 ? ws__find_long(tool->opts, tool->nopts,
							      a + 2, len) : -1;
				const struct ws_opt *o = c >= 0 ? &ws__common[c] :
							 t >= 0 ? &tool->opts[t] : NULL;

				if (o != NULL && o->type != WS_OPT_FLAG)
					ai++;
			} else if (a[0] == '-' && a[1] != '-' && a[1] != '\0' &&
				   a[2] == '\0') {
				for (size_t t = 0; t < tool->nopts; t++)
					if (tool->opts[t].short_name == a[1] &&
					    tool->opts[t].type != WS_OPT_FLAG)
						ai++;
			}
		}
	}
	return rc;
}

/*
 * Where a front end's arguments hold U+0001 standing for a NUL that the
 * transport could not carry ("\u0000", read as U+0001: mcp.c): the key
 * of the value holding it, or "" when a key holds it, as ws__json_nul()
 * finds it in a text.
 */
static bool
ws__tree_nul(const cJSON *v, const char *key, char *out, size_t sz)
{
	const cJSON *e;

	if (cJSON_IsString(v) && strchr(v->valuestring, '\1') != NULL) {
		snprintf(out, sz, "%s", key);
		return true;
	}
	cJSON_ArrayForEach(e, v) {
		if (cJSON_IsObject(v) && e->string != NULL &&
		    strchr(e->string, '\1') != NULL) {
			snprintf(out, sz, "%s", "");
			return true;
		}
		if (ws__tree_nul(e, cJSON_IsObject(v) ? e->string : key, out, sz))
			return true;
	}
	return false;
}

int
ws_cli_apply_json(struct ws_cli *cli, const cJSON *args, bool nul)
{
	const struct ws_tool *t = cli->tool;
	char nulkey[128];
	int rc;

	cli->from_args = true;
	if (nul && ws__tree_nul(args, "", nulkey, sizeof(nulkey)))
		return ws__nul_refused(t, nulkey);
	/* As under --args: the operands come in the JSON only. */
	if (cli->npos > 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "the tool's arguments come as JSON "
				    "(--args): \"%s\" cannot also be "
				    "given on the command line", cli->pos[0]);
	if ((rc = ws__apply_json(cli, args)) < 0 ||
	    (rc = ws__front_ceilings(cli)) < 0)
		return rc;
	return ws__check_pos(cli);
}

int
ws_cli_apply_args(struct ws_cli *cli, const char *text)
{
	int rc;

	if ((rc = ws__args(cli, text)) < 0)
		return rc;
	return cli->action != WS_CLI_RUN ? 0 : ws__check_pos(cli);
}

int
ws_cli_from_json(struct ws_cli *cli, const struct ws_tool *tool,
		 const struct ws_cli *base, const char *workspace,
		 const cJSON *args, bool nul)
{
	int rc = ws_cli_init(cli, tool, base, workspace);

	return rc < 0 ? rc : ws_cli_apply_json(cli, args, nul);
}

int
ws_cli_set_opt(struct ws_cli *cli, const char *name, const char *val)
{
	const struct ws_tool *t = cli->tool;

	for (size_t i = 0; i < t->nopts; i++)
		if (strcmp(t->opts[i].name, name) == 0)
			return ws__set_tool_opt(cli, i, val, false);
	return ws_error_set(WS_EINVALID_ARGUMENT, NULL, "%s has no option --%s",
			    t->prog, name);
}

int
ws_cli_init(struct ws_cli *cli, const struct ws_tool *tool,
	    const struct ws_cli *base, const char *workspace)
{
	memset(cli, 0, sizeof(*cli));
	cli->tool = tool;
	cli->vals = calloc(tool->nopts ? tool->nopts : 1, sizeof(*cli->vals));
	if (cli->vals == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	cli->json = true;
	if (base == NULL) {
		ws__cli_env(cli);
	} else {
		/* The person's settings, as the front end read them. */
		cli->workspace = base->workspace;
		cli->workspace_from = base->workspace_from;
		cli->policy = base->policy;
		cli->config = base->config;
		cli->project_root = base->project_root;
		cli->audit = base->audit;
		cli->state_dir = base->state_dir;
		cli->no_history = base->no_history;
		cli->env_mounts = base->env_mounts;
		cli->no_detect_root = base->no_detect_root;
		cli->strict = base->strict;
		cli->allow_outside = base->allow_outside;
		cli->approve = base->approve;
		cli->verbose = base->verbose;
		cli->paths = base->paths;
		cli->paths_set = base->paths_set;
		for (size_t i = 0; i < base->nmounts; i++)
			if (ws__push(&cli->mounts, &cli->nmounts, base->mounts[i]) < 0)
				return WS_ENOMEM;
	}
	if (workspace != NULL) {
		cli->workspace = workspace;
		cli->workspace_from = "server";
	}
	return 0;
}

void
ws_cli_free(struct ws_cli *cli)
{
	/* Before conf is freed: it may be a remembered one. */
	ws__cli_forget(cli);
	if (cli->vals != NULL)
		for (size_t i = 0; i < cli->tool->nopts; i++)
			free(cli->vals[i].list);
	free(cli->vals);
	free(cli->pos);
	free(cli->mounts);
	cJSON_Delete(cli->args_json);
	free(cli->args_text);
	if (cli->conf != NULL)
		ws_config_free(cli->conf);
	free(cli->conf);
	if (cli->roots != NULL)
		ws_roots_free(cli->roots);
	free(cli->roots);
	if (cli->vars != NULL)
		ws_vars_free(cli->vars);
	free(cli->vars);
	ws_audit_free(cli->audit_log);
	memset(cli, 0, sizeof(*cli));
}

static void
ws__help_opt(FILE *f, const struct ws_opt *o)
{
	/* Wide enough for a metavar that lists values (wsgrep's output
	 * modes): a value cut off is a value nobody finds. */
	char left[192];
	struct ws_opt shown = *o;

	/* A JSON option's metavar is its schema: show a word instead. */
	if (o->type == WS_OPT_JSON) {
		shown.metavar = "JSON";
		o = &shown;
	}
	if (o->short_name)
		snprintf(left, sizeof(left), "-%c, --%s%s%s%s", o->short_name,
			 (o->flags & WS_OPT_NEGATABLE) ? "[no-]" : "", o->name,
			 o->metavar ? " " : "", o->metavar ? o->metavar : "");
	else
		snprintf(left, sizeof(left), "    --%s%s%s",
			 (o->flags & WS_OPT_NEGATABLE) ? "[no-]" : "", o->name,
			 "");
	if (o->metavar && !o->short_name) {
		size_t l = strlen(left);

		snprintf(left + l, sizeof(left) - l, " %s", o->metavar);
	}
	if (strlen(left) > 26)
		fprintf(f, "  %s\n  %-26s  %s\n", left, "", o->help);
	else
		fprintf(f, "  %-26s  %s\n", left, o->help);
}

void
ws_cli_print_help(const struct ws_cli *cli, FILE *f)
{
	const struct ws_tool *t = cli->tool;

	fprintf(f, "Usage: %s\n%s\n", t->usage,
		t->help != NULL ? t->help : t->description);
	if (t->nopts) {
		fprintf(f, "\nOptions:\n");
		for (size_t i = 0; i < t->nopts; i++)
			ws__help_opt(f, &t->opts[i]);
	}
	fprintf(f, "\nCommon options:\n");
	for (size_t i = 0; i < C_COUNT; i++) {
		struct ws_opt o = ws__common[i];

		if (i == C_WORKSPACE && t->workspace_help != NULL)
			o.help = t->workspace_help;
		ws__help_opt(f, &o);
	}
	if (t->exit_help != NULL)
		fprintf(f, "\nExit status: %s\nSee %s(1).\n", t->exit_help,
			t->page != NULL ? t->page : t->prog);
	else
		fprintf(f,
			"\nExit status: 0 success, 2 invalid input, 3 refused by the sandbox or\n"
			"policy, 4 approval required, 5 filesystem error, 6 limit exceeded.\n"
			"See %s(1).\n", t->page != NULL ? t->page : t->prog);
}

void
ws_cli_print_version(const struct ws_cli *cli, FILE *f)
{
	fprintf(f, "%s (wstools) %s\n", cli->tool->prog, WS_VERSION);
}

/* A property's "type" and what follows it, from a JSON fragment. */
static void
ws__schema_raw(cJSON *prop, const char *frag)
{
	char *text = NULL;
	cJSON *o, *it;

	if (asprintf(&text, "{\"type\":%s}", frag) < 0)
		return;
	o = ws_json_parse(text, WS_JSON_STR, NULL, false);
	free(text);
	while (o != NULL && (it = o->child) != NULL)
		cJSON_AddItemToObject(prop, it->string,
				      cJSON_DetachItemViaPointer(o, it));
	cJSON_Delete(o);
}

static cJSON *
ws__string_items(void)
{
	cJSON *items = cJSON_CreateObject();

	cJSON_AddStringToObject(items, "type", "string");
	return items;
}

cJSON *
ws_cli_schema(const struct ws_tool *t)
{
	cJSON *def = cJSON_CreateObject(), *fn, *params, *props, *p, *req;

	if (def == NULL)
		return NULL;
	cJSON_AddStringToObject(def, "type", "function");
	fn = cJSON_AddObjectToObject(def, "function");
	cJSON_AddStringToObject(fn, "name", t->tool);
	cJSON_AddStringToObject(fn, "description", t->description);
	params = cJSON_AddObjectToObject(fn, "parameters");
	cJSON_AddStringToObject(params, "type", "object");
	props = cJSON_AddObjectToObject(params, "properties");
	if (t->pos_name) {
		p = cJSON_AddObjectToObject(props, t->pos_name);
		if (t->pos_array && t->pos_string_ok) {
			ws__schema_raw(p, "[\"array\",\"string\"]");
			cJSON_AddItemToObject(p, "items", ws__string_items());
		} else if (t->pos_array) {
			cJSON_AddStringToObject(p, "type", "array");
			cJSON_AddItemToObject(p, "items", ws__string_items());
		} else {
			cJSON_AddStringToObject(p, "type", t->pos_int ? "integer" : "string");
		}
		cJSON_AddStringToObject(p, "description", t->pos_help);
	}
	if (ws__plural_pos(t)) {
		p = cJSON_AddObjectToObject(props, "paths");
		cJSON_AddStringToObject(p, "type", "array");
		cJSON_AddItemToObject(p, "items", ws__string_items());
		cJSON_AddStringToObject(p, "description",
					"several paths in one call, instead of path: each "
					"result comes in output.results");
	}
	for (size_t i = 0; i < t->nopts; i++) {
		const struct ws_opt *o = &t->opts[i];
		char key[128];

		if (o->flags & WS_OPT_NOSCHEMA)
			continue;
		snprintf(key, sizeof(key), "%s", o->name);
		for (char *c = key; *c; c++)
			if (*c == '-')
				*c = '_';
		p = cJSON_AddObjectToObject(props, key);
		switch (o->type) {
		case WS_OPT_FLAG: cJSON_AddStringToObject(p, "type", "boolean"); break;
		case WS_OPT_INT: cJSON_AddStringToObject(p, "type", "integer"); break;
		case WS_OPT_SECONDS: cJSON_AddStringToObject(p, "type", "number"); break;
		case WS_OPT_BYTES:
			/*
			 * A number of bytes: what models send best.  A
			 * string with a unit ("1M") is still accepted.
			 */
			cJSON_AddStringToObject(p, "type", "integer");
			break;
		case WS_OPT_STR:
			cJSON_AddStringToObject(p, "type", "string");
			/* "name|size|mtime": the choices, for the model. */
			if (o->metavar != NULL && strchr(o->metavar, '|') != NULL) {
				cJSON *e = cJSON_AddArrayToObject(p, "enum");
				const char *c = o->metavar;

				while (*c) {
					size_t n = strcspn(c, "|");
					char *w = strndup(c, n);

					if (w != NULL)
						cJSON_AddItemToArray(e, cJSON_CreateString(w));
					free(w);
					c += n + (c[n] == '|');
				}
			}
			break;
		case WS_OPT_LIST:
			cJSON_AddStringToObject(p, "type", "array");
			cJSON_AddItemToObject(p, "items", ws__string_items());
			break;
		case WS_OPT_JSON:
			/* metavar: the schema from the value of "type" on. */
			ws__schema_raw(p, o->metavar);
			break;
		}
		cJSON_AddStringToObject(p, "description", o->help);
	}
	/* Unknown keys are refused: say so, so models do not invent any. */
	cJSON_AddBoolToObject(params, "additionalProperties", false);
	req = cJSON_AddArrayToObject(params, "required");
	if (t->pos_name && (t->pos_kind == WS_POS_ONE ||
			    (t->pos_kind == WS_POS_MANY && !ws__plural_pos(t)) ||
			    t->pos_string_ok))
		cJSON_AddItemToArray(req, cJSON_CreateString(t->pos_name));
	return def;
}

void
ws_cli_print_schema(const struct ws_cli *cli, FILE *f)
{
	cJSON *def = ws_cli_schema(cli->tool);
	char *text = def ? cJSON_PrintUnformatted(def) : NULL;

	if (text != NULL)
		fputs(text, f);
	fputc('\n', f);
	free(text);
	cJSON_Delete(def);
}

bool
ws_cli_print_info(const struct ws_cli *cli, FILE *f)
{
	switch (cli->action) {
	case WS_CLI_HELP:
		ws_cli_print_help(cli, f);
		return true;
	case WS_CLI_VERSION:
		ws_cli_print_version(cli, f);
		return true;
	case WS_CLI_SCHEMA:
		ws_cli_print_schema(cli, f);
		return true;
	case WS_CLI_RUN:
		break;
	}
	return false;
}
