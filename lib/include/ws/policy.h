/*
 * ws/policy.h - operations, policies and the policy gate every tool asks
 * before it acts (DESIGN.md section 6; the file format is in ws-policy(5)).
 *
 * A workspace without a policy allows every operation inside the boundary,
 * and ws_check() then returns at once: calls with no policy do not pay for
 * the policy code.
 *
 * A policy has file_rules (globs over real, resolved paths, a set of
 * operations and a decision) and command_rules (PCRE2 patterns over a
 * command line, for wsrun).  Rules are tried in order and the first that
 * matches decides; no file rule matching denies, no command rule matching
 * allows.  Variables (ws/vars.h) in file-rule paths are expanded once,
 * when the policy is loaded, before the globs compile.
 */
#ifndef WS_POLICY_H
#define WS_POLICY_H

#include <stdbool.h>
#include <stddef.h>

struct ws_ctx;
struct ws_vars;
struct ws_policy;

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

/* The decision of a rule. */
enum ws_decision {
	WS_DECISION_ALLOW,
	WS_DECISION_DENY,
	WS_DECISION_APPROVE,
};

/* The name of an operation ("read", ...). */
const char *ws_op_name(enum ws_op op);

/* Parse an operation name; returns 0 or WS_EINVALID_ARGUMENT. */
int ws_op_parse(const char *name, enum ws_op *op);

/* The name of a decision ("allow", "deny", "approve"). */
const char *ws_decision_name(enum ws_decision d);

/*
 * Ask the workspace's policy whether op may act on the real path real
 * (vpath is used in messages).  Returns 0 when allowed (or when no policy
 * is loaded), WS_EPOLICY_DENIED, or WS_EAPPROVAL_REQUIRED with the rule's
 * rendered message, unless the operation was approved (--approve, or yes
 * at the terminal prompt).
 */
int ws_check(struct ws_ctx *ws, enum ws_op op, const char *real,
	     const char *vpath);

/*
 * The guarded entries of DESIGN.md 2 alone, whatever the policy: whether
 * a tool may op the real path real (vpath in messages), and with holds
 * what real holds too (as a rename or delete is asked).  0 when nothing
 * guards it, else WS_EPOLICY_DENIED with the sentence the file tools
 * refuse with, and *rule (when not NULL) the guard that answered
 * ("guard:own", "guard:anchor", "guard:persist", "guard:home",
 * "guard:marker", "guard:history").  No audit line: nothing is decided.
 * wsrun says so why it removed what a command created.
 */
int ws_check_guards(struct ws_ctx *ws, enum ws_op op, const char *real,
		    const char *vpath, bool holds, const char **rule);

/* Which rule decided, and why (for --explain and --verbose). */
struct ws_policy_match {
	enum ws_decision decision;
	const char *rule;     /* the rule's name; NULL: no rule matched */
	int index;	      /* its index in file_rules/command_rules, or -1 */
	const char *pattern;  /* the path glob or command pattern as written */
	const char *expanded; /* the glob after variable expansion */
	const char *message;  /* the rule's message template, or NULL */
};

/*
 * Find a policy file: spec containing "/" or ending in ".json" is a file;
 * else it is a NAME looked up as NAME.json in dir (the configuration's
 * policies.dir; may be NULL), then in the installed policies directory --
 * or, for a binary run from its build tree, the source tree's policies/.
 * *path is malloc'd.  Errors: WS_EPOLICY_ERROR naming where it looked.
 */
int ws_policy_find(const char *spec, const char *dir, char **path);

/*
 * Load and compile the policy spec names (see ws_policy_find()), expanding
 * variables from vars (whose used list then says which were expanded).
 * Errors: WS_EPOLICY_ERROR naming the file, the rule and the field.
 */
int ws_policy_load(const char *spec, const char *dir, struct ws_vars *vars,
		   struct ws_policy **out);

/* The same from text; origin names it in messages. */
int ws_policy_parse(const char *text, const char *origin, struct ws_vars *vars,
		    struct ws_policy **out);

/* Free a policy (NULL is fine). */
void ws_policy_free(struct ws_policy *p);

/*
 * Compile everything of p that is otherwise compiled on first use (its
 * globs, JIT included, and its command patterns), so that deciding
 * changes nothing in it: then several calls may share it, each through
 * a view.
 */
int ws_policy_prepare(struct ws_policy *p);

/*
 * A call's own handle on p (prepared, and kept alive by the caller for
 * as long as the view lives): its hooks (ws_policy_set_hooks()) and its
 * match block are its own, the rules are p's.  ws_policy_free() frees
 * only the view.  NULL when out of memory.
 */
struct ws_policy *ws_policy_view(const struct ws_policy *p);

/*
 * One directory that an allow rule names in directory shape ("D/" then
 * "**", after its variables are expanded), as wsrun weighs it for a
 * Landlock grant to the command: ws_policy_grants() says what the policy
 * allows there, ws_grants_check() (ws/grant.h) what the file system and
 * the call allow.
 */
struct ws_policy_grant {
	char *rule;	/* the rule's name */
	char *dir;	/* the directory, expanded and unescaped */
	bool write;	/* read-write (else read and list) */
	bool exec;	/* execute too (the rule allows exec) */
	bool granted;	/* given to the command */
	bool refused;	/* never given; why says why */
	/* Not of directory shape ("/x", "/x/" + "*"): never a grant, listed
	 * (dir is its literal directory) so that its author learns why;
	 * ws_grants_check() unlists one inside the workspace (refused false). */
	bool shape;
	/* Refused for a reason a plain wsrun does not warn of: a system
	 * directory (ws/grant.h: never granted), or a rule that allows less
	 * than read and list (one meant for the file tools). */
	bool quiet;
	/* Refused because a deny or approve rule could match below it
	 * (Landlock can only add): ws_grants_check() gives the reason that
	 * holds without the rule where there is one (never granted). */
	bool vetoed;
	int fd;		/* O_PATH of the checked directory, or -1 */
	char why[320];	/* why it is refused, or a note ("" for none) */
};

/*
 * The grant candidates of p's allow rules of directory shape, in rule
 * order: read (and list) when the rule allows read and list, read-write
 * when it allows every write operation too (write, create, mkdir,
 * rename, delete, rmdir), execute when it allows exec.  Refused here (kept
 * in the list with refused and why, so that a user sees them): a rule
 * that allows less than read and list; a directory that is "/", not
 * absolute, or spelled with an empty, "." or ".." component; one below
 * which a deny or approve rule could match (Landlock can only add, so
 * that rule would not hold for the command) -- any such rule before the
 * allow rule whose operations meet the grant's, and any after it that
 * names a path there (a catch-all "**" after it does not: the allow rule
 * decides first).  A write grant that only a rule about writes keeps off
 * becomes read.  An allow rule of any other shape whose literal start is
 * an absolute directory other than "/" is listed too, refused with shape
 * set ("**" alone, or "/" then "**" then "/" + "*.o", are not).  *out (free with
 * ws_policy_grants_free()) gets *n items, fd -1.  Errors: WS_ENOMEM.
 */
int ws_policy_grants(const struct ws_policy *p, struct ws_policy_grant **out,
		     size_t *n);

/* Free what ws_policy_grants() gave (closing the descriptors). */
void ws_policy_grants_free(struct ws_policy_grant *v, size_t n);

/* The policy's name, its file (or NULL), its description (or NULL). */
const char *ws_policy_name(const struct ws_policy *p);
const char *ws_policy_path(const struct ws_policy *p);
const char *ws_policy_description(const struct ws_policy *p);

/* Whether the policy asks for strict mode ("strict": true). */
bool ws_policy_strict(const struct ws_policy *p);

/* The number of file and command rules. */
size_t ws_policy_nfile_rules(const struct ws_policy *p);
size_t ws_policy_ncommand_rules(const struct ws_policy *p);

/* Whether a path pattern matches every path (two stars, alone or after
 * the root's slash). */
bool ws_policy_catch_all(const char *pattern);

/*
 * Whether a deny or approve rule for read, write or exec may match inside the
 * real directory dir, or dir itself (its pattern's literal start lies in
 * dir or above it; a catch-all pattern is the policy's default, not
 * counted): where not, nothing below dir needs checking.
 */
bool ws_policy_may_refuse_below(const struct ws_policy *p, const char *dir);

/*
 * The first deny or approve rule naming op (not "*") whose pattern starts at a place
 * outside every directory of dirs (ndirs; a literal start neither in
 * one nor above one): its name, and the pattern as written in *pattern;
 * NULL if none.  wsrun says such exec rules do not reach a command,
 * whose view binds what the workspace and its mounts hold only.
 */
const char *ws_policy_refusal_outside(const struct ws_policy *p, enum ws_op op,
				      const char *const *dirs, size_t ndirs,
				      const char **pattern);

/* The same question for the one operation op. */
bool ws_policy_may_refuse_op_below(const struct ws_policy *p, enum ws_op op,
				   const char *dir);

/*
 * Whether a rule of p refuses op on the real path real: a deny or
 * approve rule, not the default (no rule matched) nor a catch-all
 * pattern ("**", which the shipped policies use as their default).  What
 * the policy's view of a command masks or makes read-only, and where a
 * link a command made is taken out after it (ws/vcs.h).
 */
bool ws_policy_refuses(struct ws_policy *p, enum ws_op op, const char *real);

/*
 * Whether a rule of p refuses op on every path below the real directory
 * dir, itself not counted: a deny or approve rule of the shape "D/" +
 * "**" with dir at or below D, or "X/" + "**" with X matching dir or a
 * directory above it ("**" + "/scripts/" + "**"), before which no allow
 * rule could match below dir.  False where the default or a catch-all decides, as for
 * ws_policy_refuses().  What a command's view makes non-executable
 * whole (wsrun: the policy's exec rules).  approved: the person approved
 * what the policy asks about (--approve), so an approve rule allows.
 */
bool ws_policy_refuses_all_below(const struct ws_policy *p, enum ws_op op,
				 const char *dir, bool approved);

/*
 * Network rules: how many host patterns they hold together, and the
 * i-th of them as a rule of the proxy (ws/netproxy.h), in order, each
 * naming its rule, decision and message (pointers into p).
 */
struct ws_net_rule;
size_t ws_policy_nnetwork_rules(const struct ws_policy *p);
void ws_policy_network_rule(const struct ws_policy *p, size_t i,
			    struct ws_net_rule *out);

/*
 * The decision of the file rules for op on the real path real, with which
 * rule decided in *m (if not NULL).  No matching rule: deny.
 */
enum ws_decision ws_policy_check_file(struct ws_policy *p, enum ws_op op,
				      const char *real,
				      struct ws_policy_match *m);

/*
 * The decision of the command rules for a command line (as wsrun shows
 * it: the argv joined by spaces, or the -c string), with the rule in *m.
 * No matching rule: allow.  The patterns are compiled (and JIT-compiled)
 * on first use; a pattern that does not compile is WS_EPOLICY_ERROR
 * naming the rule, the field and the offset.  Returns the decision (>= 0)
 * or a negative error.
 */
int ws_policy_check_command(struct ws_policy *p, const char *cmdline,
			    struct ws_policy_match *m);

/*
 * Render a message template: {{.Path}}, {{.Operation}} and {{.Rule}}
 * (spaces inside the braces allowed) become path, op and rule, each as
 * ws_shown_value() shows it (escaped, cut at WS_SHOWN_MAX bytes): the
 * message reaches a person, and a name must not redraw it.  malloc'd,
 * NULL on allocation failure.
 */
char *ws_policy_render(const char *tmpl, const char *path, const char *op,
		       const char *rule);

/*
 * Hooks a tool's command line sets: log receives one line per decision
 * (level "INFO", "DEBUG" or "WARN", and the rest in logfmt form) for
 * --verbose; prompt asks a person to approve an operation (returns true
 * for yes).  Either may be NULL.
 */
typedef void (*ws_policy_log_fn)(void *arg, const char *level,
				 const char *line);
typedef bool (*ws_policy_prompt_fn)(void *arg, const char *message);
void ws_policy_set_hooks(struct ws_policy *p, ws_policy_log_fn log,
			 ws_policy_prompt_fn prompt, void *arg);

/* What an approval asks about. */
struct ws_ask {
	const char *op;	     /* the operation's name ("delete", "exec") */
	const char *subject; /* the path as shown, or the command line */
	const char *policy;  /* the deciding policy's name, or NULL */
	const char *rule;    /* the deciding rule's name, or NULL */
	const char *message; /* the rule's rendered message, or NULL */
};

/* How many bytes of one value a prompt or a rendered message shows. */
#define WS_SHOWN_MAX 240

/*
 * v as a person may be shown it on one line, whatever it holds: control
 * bytes become \n, \r, \t or \xNN, bytes that are not UTF-8 \xNN,
 * C1 controls and the invisible or bidirectional format characters
 * (U+200B..U+200F, U+202A..U+202E, U+2066..U+2069, U+FEFF...) \uNNNN, a
 * run of more than 8 spaces "…(N spaces)…", and what is past max bytes
 * of output is cut as "…(N more bytes)".  *escaped (if not NULL) is set
 * when anything was escaped or collapsed.  malloc'd, NULL if out of
 * memory.
 */
char *ws_shown_value(const char *v, size_t max, bool *escaped);

/*
 * The question an approval puts to a person: the first line names the
 * operation and its subject alone ("Allow delete: src/a.c?"), shown by
 * ws_shown_value(); the lines after it say which rule asks, the rule's
 * message, and how escaped bytes are shown.  malloc'd, NULL if out of
 * memory.
 */
char *ws_policy_question(const struct ws_ask *a);

/*
 * Ask the person through p's prompt hook (the terminal, or wstools mcp's
 * elicitation) to approve an operation, with ws_policy_question(a): true
 * only when a hook is set, ws does not forbid prompting, and the answer
 * is yes.  The one way an "approve" decision is asked, for file rules and
 * command rules alike.
 */
bool ws_policy_ask(const struct ws_policy *p, const struct ws_ctx *ws,
		   const struct ws_ask *a);

/*
 * A value quoted for a logfmt line: as is when it is plain, else in
 * double quotes with \" \\ and \xNN escapes.  malloc'd, NULL on failure.
 */
char *ws_log_quote(const char *v);

#endif
