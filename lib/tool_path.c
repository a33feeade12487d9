/*
 * tool_path.c - wspath on the tool table (for people, not models): the
 * real path a virtual path resolves to (like realpath -m), real paths
 * mapped back with --to-virtual, and with --explain every step the
 * resolver took and the policy rule that decides an operation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws/detect.h"
#include "ws/error.h"
#include "ws/path.h"
#include "ws/policy.h"
#include "ws/resolve.h"
#include "ws/session.h"
#include "ws/tool.h"
#include "ws/vars.h"
#include "ws/view.h"

enum { O_TO_VIRTUAL, O_EXPLAIN, O_EXISTING, O_OP, O_COUNT };

static const struct ws_opt opts[O_COUNT] = {
	[O_TO_VIRTUAL] = {"to-virtual", 0, WS_OPT_FLAG, NULL,
			  "map real paths back to virtual ones", 0},
	[O_EXPLAIN] = {"explain", 0, WS_OPT_FLAG, NULL,
		       "trace every step of the resolution", 0},
	[O_EXISTING] = {"existing", 'e', WS_OPT_FLAG, NULL,
			"fail with NOT_FOUND unless the path exists", 0},
	[O_OP] = {"op", 0, WS_OPT_STR, "OP",
		  "explain which policy rule decides OP (read, write, delete...) "
		  "on the path (implies --explain)", 0},
};

static const struct ws_tool ws__path_cli = {
	.prog = "wspath",
	.tool = "wspath",
	.description = "Show the real path a workspace path resolves to, or the "
		       "virtual path of a real one, and explain each step.",
	.usage = "wspath [OPTION]... PATH...\n"
		 "       wspath --to-virtual [OPTION]... REAL...",
	.pos_name = "path",
	.pos_help = "path to resolve (virtual, relative or absolute)",
	.pos_kind = WS_POS_MANY,
	.opts = opts,
	.nopts = O_COUNT,
};

static const char *
type_name(const struct ws_res *r)
{
	if (!r->exists)
		return NULL;
	if (S_ISREG(r->st.st_mode))
		return "file";
	if (S_ISDIR(r->st.st_mode))
		return "dir";
	if (S_ISLNK(r->st.st_mode))
		return "symlink";
	return "other";
}

static void
json_error(struct ws_jw *jw, int rc)
{
	ws_jw_key(jw, "error");
	ws_jw_obj(jw);
	ws_jw_kstr(jw, "code", ws_error_name(rc));
	ws_jw_kstr(jw, "message", ws_error_last());
	ws_jw_obj_end(jw);
}

static void
json_steps(struct ws_jw *jw, const struct ws_res *r)
{
	ws_jw_key(jw, "steps");
	ws_jw_arr(jw);
	for (size_t i = 0; i < r->nsteps; i++) {
		ws_jw_obj(jw);
		ws_jw_kstr(jw, "step", r->steps[i].kind);
		ws_jw_kname(jw, "detail", r->steps[i].text);
		ws_jw_obj_end(jw);
	}
	ws_jw_arr_end(jw);
}

/*
 * The operation of --op into *op, when given: false when not.  Parsed
 * again where it is used (path_check() refused one that does not parse),
 * so that nothing of a call outlives it.
 */
static bool
path_op(const struct ws_cli *cli, enum ws_op *op)
{
	const struct ws_optval *v = &cli->vals[O_OP];

	return v->set && ws_op_parse(v->s, op) == 0;
}

/* Why the policy decided as it did on the_op, in one sentence (malloc'd). */
static char *
policy_reason(const struct ws_ctx *ws, enum ws_op the_op,
	      const struct ws_policy_match *m)
{
	char *s = NULL;
	int n;

	if (ws->policy == NULL)
		n = asprintf(&s, "no policy is loaded: every operation inside the "
			     "boundary is allowed");
	else if (m->rule == NULL)
		n = asprintf(&s, "no file rule matches %s on this path, so it is "
			     "denied", ws_op_name(the_op));
	else if (strcmp(m->pattern, m->expanded) == 0)
		n = asprintf(&s, "rule \"%s\" (file_rules[%d]) is the first whose "
			     "operations include %s and whose path glob \"%s\" "
			     "matches", m->rule, m->index, ws_op_name(the_op),
			     m->pattern);
	else
		n = asprintf(&s, "rule \"%s\" (file_rules[%d]) is the first whose "
			     "operations include %s and whose path glob \"%s\" "
			     "(expanded: \"%s\") matches", m->rule, m->index,
			     ws_op_name(the_op), m->pattern, m->expanded);
	return n < 0 ? NULL : s;
}

/* The roots, variables and policy decision of --explain, as JSON. */
static void
json_policy(const struct ws_cli *cli, struct ws_ctx *ws, struct ws_jw *jw,
	    const struct ws_res *r)
{
	const struct ws_roots *roots = cli->roots;
	enum ws_op the_op;
	char *note = ws_cli_workspace_note(cli);

	/* Where the workspace came from (FTU10 11). */
	ws_jw_kname(jw, "workspace", ws->anchors[0].real);
	ws_jw_kstr(jw, "workspace_from", cli->workspace_from ?
		   cli->workspace_from : "cwd");
	ws_jw_kname(jw, "workspace_note", note);
	free(note);
	ws_jw_kname(jw, "project_root", roots ? roots->project_root : NULL);
	ws_jw_kname(jw, "git_root", roots ? roots->git_root : NULL);
	ws_jw_kstr(jw, "project_marker", roots ? roots->marker : NULL);
	if (cli->vars != NULL) {
		ws_jw_key(jw, "variables");
		ws_jw_obj(jw);
		for (size_t i = 0; i < cli->vars->nused; i++)
			ws_jw_kname(jw, cli->vars->used[i].name,
				    cli->vars->used[i].value);
		ws_jw_obj_end(jw);
	}
	if (path_op(cli, &the_op)) {
		struct ws_policy_match m = {WS_DECISION_ALLOW, NULL, -1, NULL,
					    NULL, NULL};
		char *why;

		if (ws->policy != NULL)
			ws_policy_check_file(ws->policy, the_op, r->real, &m);
		why = policy_reason(ws, the_op, &m);
		ws_jw_key(jw, "policy");
		ws_jw_obj(jw);
		ws_jw_kstr(jw, "name", ws->policy ? ws_policy_name(ws->policy) : NULL);
		ws_jw_kname(jw, "file", ws->policy ? ws_policy_path(ws->policy) : NULL);
		ws_jw_kstr(jw, "operation", ws_op_name(the_op));
		ws_jw_kstr(jw, "rule", m.rule);
		ws_jw_kstr(jw, "decision", ws_decision_name(m.decision));
		ws_jw_kname(jw, "pattern", m.pattern);
		ws_jw_kname(jw, "glob", m.expanded);
		if (m.decision == WS_DECISION_APPROVE)
			ws_jw_kbool(jw, "approved", ws->approve);
		ws_jw_kname(jw, "reason", why);
		ws_jw_obj_end(jw);
		free(why);
	}
}

/* The same as plain lines. */
static void
plain_policy(const struct ws_cli *cli, struct ws_ctx *ws, const struct ws_res *r)
{
	const struct ws_roots *roots = cli->roots;
	enum ws_op the_op;
	char *note = ws_cli_workspace_note(cli);

	fprintf(ws_out(), "%-10s %s (%s)\n", "workspace", ws->anchors[0].real,
		ws_cli_workspace_from(cli));
	if (note != NULL)
		fprintf(ws_out(), "%-10s %s\n", "note", note);
	free(note);
	if (roots != NULL) {
		fprintf(ws_out(), "%-10s %s", "project", roots->project_root);
		if (roots->marker != NULL)
			fprintf(ws_out(), " (%s)\n", roots->marker);
		else if (!roots->detected)
			fprintf(ws_out(), " (given, or detection off)\n");
		else if (roots->git_root != NULL)
			fprintf(ws_out(), " (no language marker: the git root)\n");
		else
			fprintf(ws_out(), " (no marker: the workspace)\n");
		fprintf(ws_out(), "%-10s %s\n", "git", roots->git_root ? roots->git_root
							   : "(none)");
	}
	if (cli->vars != NULL)
		for (size_t i = 0; i < cli->vars->nused; i++)
			fprintf(ws_out(), "%-10s %s=%s%s\n", "variable", cli->vars->used[i].name,
			       cli->vars->used[i].value ? cli->vars->used[i].value : "",
			       cli->vars->used[i].fallback ? " (fallback)" : "");
	if (path_op(cli, &the_op)) {
		struct ws_policy_match m = {WS_DECISION_ALLOW, NULL, -1, NULL,
					    NULL, NULL};
		char *why;

		if (ws->policy != NULL) {
			ws_policy_check_file(ws->policy, the_op, r->real, &m);
			fprintf(ws_out(), "%-10s %s (%s)\n", "policy", ws_policy_name(ws->policy),
			       ws_policy_path(ws->policy) ? ws_policy_path(ws->policy)
							  : "?");
		} else {
			fprintf(ws_out(), "%-10s (none)\n", "policy");
		}
		why = policy_reason(ws, the_op, &m);
		fprintf(ws_out(), "%-10s %s %s: %s%s\n", "decision", ws_op_name(the_op),
		       m.rule ? m.rule : "(no rule)", ws_decision_name(m.decision),
		       m.decision == WS_DECISION_APPROVE
			       ? (ws->approve ? " (approved by --approve)"
					      : " (needs --approve)")
			       : "");
		fprintf(ws_out(), "%-10s %s\n", "why", why ? why : "?");
		free(why);
	}
}

/*
 * How the path maps inside a wsrun command (wsrun(1), VIEW): in the
 * virtual view at its virtual path, unless a system name at "/" hides
 * it; in the real view at its real path.  NULL where it has none.
 */
static const char *
command_virtual(struct ws_ctx *ws, const struct ws_res *r, const char *vres,
		char *top, size_t len)
{
	top[0] = '\0';
	if (vres == NULL)
		return NULL;
	if (r->final_anchor <= 0 && ws_view_shadowed(vres, top, len))
		return NULL;
	(void)ws;
	return vres;
}

static void
json_command(const struct ws_cli *cli, struct ws_ctx *ws, struct ws_jw *jw,
	     const struct ws_res *r, const char *vres)
{
	char top[300];
	const char *v = command_virtual(ws, r, vres, top, sizeof(top));

	ws_jw_key(jw, "in_command");
	ws_jw_obj(jw);
	ws_jw_kname(jw, "virtual_view", v);
	if (top[0])
		ws_jw_kname(jw, "shadowed_by", top);
	ws_cli_kreal(cli, jw, "real_view", r->real);
	ws_jw_obj_end(jw);
}

static void
plain_command(struct ws_ctx *ws, const struct ws_res *r, const char *vres,
	      bool tty)
{
	char top[300];
	const char *v = command_virtual(ws, r, vres, top, sizeof(top));

	fprintf(ws_out(), "%-10s ", "command");
	if (v != NULL) {
		ws_cli_put_text(ws_out(), v, tty);
		fprintf(ws_out(), " (wsrun --view virtual); ");
	} else if (top[0]) {
		fprintf(ws_out(), "hidden by the system's %s (wsrun --view virtual); ", top);
	}
	ws_cli_put_text(ws_out(), r->real, tty);
	fprintf(ws_out(), " (--view real)\n");
}

/*
 * --op on a path the policy refuses to stat (or asks about): the answer
 * asked for is the decision on OP, which wspath(1) promises and which is
 * what someone runs --op for ("why is this refused?": ftu13 03).  It is
 * given, and nothing of the path itself: not whether it exists, nor its
 * type, real path or steps (a stat the policy refuses).  The decision
 * is the file rules' on the path as named (resolved again without the
 * stat check, and a link at its end not followed: where it leads would
 * tell what the stat hides); msg says why stat was refused.  0, or the
 * refusal again when the path does not resolve even so.
 */
static int
op_hidden(struct ws_cli *cli, struct ws_ctx *ws, struct ws_jw *jw,
	  const char *in, int code, const char *msg)
{
	struct ws_res r;
	int rc;

	rc = ws_resolve(ws, in, WS_R_MISSING_OK | WS_R_NOFOLLOW | WS_R__NO_DENY_CHECK,
			&r);
	if (rc < 0) {
		ws_res_free(&r);
		return ws_error_set(code, in, "%s", msg);
	}
	if (cli->json) {
		ws_jw_obj(jw);
		ws_jw_kname(jw, "input", in);
		ws_jw_kbool(jw, "hidden", true);
		ws_jw_kstr(jw, "hidden_why", msg);
		ws_jw_kstr(jw, "hidden_code", ws_error_name(code));
		json_policy(cli, ws, jw, &r);
		ws_jw_obj_end(jw);
	} else {
		fprintf(ws_out(), "%-10s ", "input");
		ws_cli_put_text(ws_out(), in, ws_out_is_stdout() && isatty(STDOUT_FILENO));
		fprintf(ws_out(), "\n%-10s %s (%s): its existence, type and steps "
			"are not shown\n", "hidden", msg, ws_error_name(code));
		plain_policy(cli, ws, &r);
	}
	ws_res_free(&r);
	return 0;
}

/* Resolve one path; write its JSON object or plain lines. */
static int
one_path(struct ws_cli *cli, struct ws_ctx *ws, struct ws_jw *jw,
	 const char *in)
{
	bool explain = WS_OPT(cli, O_EXPLAIN)->b;
	unsigned flags = WS_R_MISSING_OK | (explain ? WS_R_TRACE : 0);
	struct ws_res r;
	char *vres = NULL;
	int rc;

	rc = ws_resolve(ws, in, flags, &r);
	/*
	 * With a policy, wspath shows only what the caller may stat: the
	 * path and every step on the way (a directory above the path is
	 * implied by the path itself; a link or a directory left behind is
	 * not).  A denied one is POLICY_DENIED whether it exists or not,
	 * and no step is shown.
	 */
	if (ws->policy != NULL && rc != WS_EPOLICY_DENIED &&
	    rc != WS_EAPPROVAL_REQUIRED) {
		int c = rc == 0 ? ws_check(ws, WS_OP_STAT, r.real, in) : 0;

		for (size_t i = 0; c == 0 && i < r.nsteps; i++)
			if (r.steps[i].real != NULL &&
			    (rc < 0 || !ws_path_within(r.steps[i].real, r.real, NULL)))
				c = ws_check(ws, WS_OP_STAT, r.steps[i].real, in);
		if (c < 0)
			rc = c;
	}
	if (rc == WS_EPOLICY_DENIED || rc == WS_EAPPROVAL_REQUIRED) {
		char *msg = strdup(ws_error_last());
		enum ws_op op;

		/* The trace would show what the policy hides. */
		ws_res_free(&r);
		ws_error_set(rc, in, "%s", msg ? msg : "denied by the policy");
		/* Asked for the decision on an operation: that is shown. */
		if (msg != NULL && path_op(cli, &op) && !WS_OPT(cli, O_EXISTING)->b) {
			rc = op_hidden(cli, ws, jw, in, rc, msg);
			free(msg);
			return rc;
		}
		free(msg);
	}
	if (rc == 0 && WS_OPT(cli, O_EXISTING)->b && !r.exists)
		rc = ws_error_set(WS_ENOT_FOUND, in, "does not exist");
	if (rc == 0 && ws_ctx_to_virtual(ws, r.real, &vres) < 0)
		vres = NULL;
	if (cli->json) {
		ws_jw_obj(jw);
		ws_jw_kname(jw, "input", in);
		if (rc == 0) {
			ws_jw_kname(jw, "path", r.vpath);
			ws_cli_kreal(cli, jw, "real_path", r.real);
			ws_jw_kname(jw, "resolved_path", vres);
			ws_jw_kbool(jw, "exists", r.exists);
			ws_jw_kstr(jw, "type", type_name(&r));
			ws_jw_kstr(jw, "form", r.form);
			ws_jw_kstr(jw, "mount", r.final_anchor > 0 ?
				   ws->anchors[r.final_anchor].vprefix : NULL);
			ws_jw_kbool(jw, "read_only", r.final_anchor > 0 &&
				    ws->anchors[r.final_anchor].ro);
			/* Only the walker (--explain) counts links: the
			 * kernel's fast path follows them silently. */
			if (explain)
				ws_jw_kint(jw, "symlinks_followed", r.hops);
		} else {
			json_error(jw, rc);
		}
		if (explain)
			json_steps(jw, &r);
		if (explain && rc == 0)
			json_command(cli, ws, jw, &r, vres);
		if (explain && rc == 0)
			json_policy(cli, ws, jw, &r);
		ws_jw_obj_end(jw);
	} else {
		/* Names on a terminal: control bytes as "?", as wsls. */
		bool tty = ws_out_is_stdout() && isatty(STDOUT_FILENO);

		if (explain) {
			for (size_t i = 0; i < r.nsteps; i++) {
				fprintf(ws_out(), "%-10s ", r.steps[i].kind);
				ws_cli_put_text(ws_out(), r.steps[i].text, tty);
				ws_out_putc('\n');
			}
			if (rc == 0) {
				fprintf(ws_out(), "%-10s ", "virtual");
				ws_cli_put_text(ws_out(), vres ? vres : "(none)", tty);
				fprintf(ws_out(), "%s\n", r.exists ? "" : " (does not exist yet)");
				plain_command(ws, &r, vres, tty);
				plain_policy(cli, ws, &r);
			}
		} else if (rc == 0) {
			ws_cli_put_text(ws_out(), ws_cli_show_path(cli, vres ? vres : r.vpath,
								 r.real), tty);
			ws_out_putc('\n');
			/*
			 * A host path (wspath ~, wspath /etc) read as the
			 * workspace's own, which does not exist: say so, as
			 * --explain does, rather than answer with a path that
			 * leads nowhere and nothing else (FTU10 8).
			 */
			if (!r.exists && r.form != NULL &&
			    strcmp(r.form, "shorthand") == 0)
				fprintf(stderr, "wspath: note: %s does not exist: an "
					"absolute path outside the workspace is read "
					"as the workspace's own, from its root "
					"(wspath --explain shows each step)\n",
					r.vpath);
		}
	}
	free(vres);
	ws_res_free(&r);
	return rc;
}

/* Map one real path back; write its JSON object or plain line. */
static int
one_real(struct ws_cli *cli, struct ws_ctx *ws, struct ws_jw *jw,
	 const char *in)
{
	char *v = NULL;
	int rc = ws_ctx_to_virtual(ws, in, &v);

	if (cli->json) {
		ws_jw_obj(jw);
		ws_jw_kname(jw, "input", in);
		if (rc == 0)
			ws_jw_kname(jw, "path", v);
		else
			json_error(jw, rc);
		ws_jw_obj_end(jw);
	} else if (rc == 0) {
		fprintf(ws_out(), "%s\n", v);
	}
	free(v);
	return rc;
}

/*
 * Before the workspace opens: real paths unless asked otherwise, --op
 * (which implies --explain), and the roots --explain shows.
 */
static int
path_check(struct ws_cli *cli)
{
	enum ws_op op;
	int rc;

	/* wspath shows real paths unless asked otherwise. */
	if (getenv("WS_PATHS") == NULL && !WS_OPT(cli, O_TO_VIRTUAL)->b &&
	    !cli->paths_set)
		cli->paths = WS_PATHS_REAL;
	if (WS_OPT(cli, O_OP)->set) {
		rc = ws_op_parse(WS_OPT(cli, O_OP)->s, &op);
		if (rc < 0)
			return rc;
		WS_OPT(cli, O_EXPLAIN)->b = true; /* --op implies --explain */
	}
	/* --explain shows the project and git roots, policy or not. */
	cli->want_roots = WS_OPT(cli, O_EXPLAIN)->b;
	return 0;
}

static int
path_run(struct ws_tcall *c)
{
	struct ws_cli *cli = c->cli;
	struct ws_jw jw;
	int rc, first_rc = 0, status = 0;

	if (cli->json) {
		rc = ws_tcall_multi_begin(c, &jw);
		if (rc < 0)
			return ws_tcall_fail(c, rc);
		if (cli->npos > 1) {
			ws_jw_obj(&jw);
			ws_jw_key(&jw, "results");
			ws_jw_arr(&jw);
		}
	}
	for (size_t i = 0; i < cli->npos; i++) {
		rc = WS_OPT(cli, O_TO_VIRTUAL)->b
			     ? one_real(cli, c->ws, &jw, cli->pos[i])
			     : one_path(cli, c->ws, &jw, cli->pos[i]);
		if (rc < 0) {
			if (first_rc == 0)
				first_rc = rc;
			ws_tcall_multi_fail(c, rc, ws_error_last_path() ?
					    ws_error_last_path() : cli->pos[i]);
		}
		if (rc < 0 && !cli->json) {
			/* Like realpath: report and go on with the next one. */
			ws_cli_warn(cli, cli->pos[i], ws_error_last(), rc);
		}
	}
	if (cli->json) {
		if (cli->npos > 1) {
			ws_jw_arr_end(&jw);
			ws_jw_obj_end(&jw);
		}
		/* A lone failed path has no output, unless its trace was asked. */
		status = ws_tcall_multi_end(c, first_rc < 0 && cli->npos == 1 &&
					    !WS_OPT(cli, O_EXPLAIN)->b);
	} else if (first_rc < 0) {
		status = ws_error_exit_status(first_rc);
	}
	return status;
}

/* Not a tool for models: on no front end's list, for its binary only. */
const struct ws_tool_def ws_tool_wspath = {
	.name = "wspath",
	.cli = &ws__path_cli,
	.title = "Show how a path maps",
	.ro = true,
	.destructive = false,
	.idempotent = true,
	.output_schema = "{\"type\":\"object\"}",
	.check = path_check,
	.run = path_run,
};
