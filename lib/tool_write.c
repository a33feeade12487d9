/*
 * tool_write.c - write_file, edit_file, create_directory, move_path and
 * delete_path (wswrite) on the tool table: their options, the calls
 * (ws_write, ws_mkdir, ws_delete, ws_move in ws/write.h), and the result
 * as a plain line, as JSON and as the text a model reads.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ws/audit.h"
#include "ws/error.h"
#include "ws/history.h"
#include "ws/json.h"
#include "ws/path.h"
#include "ws/policy.h"
#include "ws/resolve.h"
#include "ws/tool.h"
#include "ws/write.h"

/*
 * The options of every tool wswrite serves, each tool taking the ones
 * that concern it (write_file takes them all, for harnesses that want one
 * tool).  main() finds values by name (val()), since each tool's table
 * has its own order.
 */
#define OPT_CONTENT {"content", 0, WS_OPT_STR, "STR", \
		     "the content to write (give it or content_base64)", 0}
#define OPT_CONTENT_B64 {"content-base64", 0, WS_OPT_STR, "B64", \
			 "the content to write, base64-encoded (binary data)", 0}
#define OPT_APPEND {"append", 'a', WS_OPT_FLAG, NULL, \
		    "append to the file instead of replacing it", 0}
#define OPT_CREATE_ONLY {"create-only", 0, WS_OPT_FLAG, NULL, \
			 "fail with ALREADY_EXISTS if the file exists", 0}
#define OPT_PARENTS {"parents", 'p', WS_OPT_FLAG, NULL, \
		     "create missing parent directories (default: true)", \
		     WS_OPT_NEGATABLE}
#define OPT_EDIT {"edit", 0, WS_OPT_FLAG, NULL, \
		  "replace the exact text OLD by NEW in the file", 0}
#define OPT_OLD {"old", 0, WS_OPT_STR, "S", \
		 "edit: the exact text to replace (must match once, unless " \
		 "all); several edits in one call: edits", 0}
#define OPT_NEW {"new", 0, WS_OPT_STR, "S", "edit: the replacement text", 0}
#define OPT_ALL {"all", 0, WS_OPT_FLAG, NULL, \
		 "edit: replace every occurrence of old", 0}
#define OPT_EDITS {"edits", 0, WS_OPT_JSON, \
		   "\"array\",\"maxItems\":1000,\"items\":{\"type\":\"object\",\"properties\":{" \
		   "\"old\":{\"type\":\"string\"},\"new\":{\"type\":\"string\"}," \
		   "\"all\":{\"type\":\"boolean\"}},\"required\":[\"old\",\"new\"]," \
		   "\"additionalProperties\":false}", \
		   "edit: several replacements [{old, new, all}], applied in " \
		   "order to the evolving text, all or nothing", 0}
#define OPT_DRY_RUN {"dry-run", 0, WS_OPT_FLAG, NULL, \
		     "change nothing; show the unified diff that would apply", 0}
#define OPT_DIFF {"diff", 0, WS_OPT_FLAG, NULL, \
		  "give the diff of a write or append too (edits always do)", 0}
#define OPT_IF_VERSION {"if-version", 0, WS_OPT_STR, "V", \
			"change nothing (VERSION_MISMATCH) unless the file still " \
			"has this version token (from wsread or wsls)", 0}
#define OPT_MKDIR {"mkdir", 0, WS_OPT_FLAG, NULL, \
		   "create PATH as a directory", 0}
#define OPT_DELETE {"delete", 0, WS_OPT_FLAG, NULL, \
		    "delete PATH (a symlink itself; a directory if empty)", 0}
#define OPT_RECURSIVE {"recursive", 'r', WS_OPT_FLAG, NULL, \
		       "delete: remove a directory tree (never follows links)", 0}
#define OPT_MOVE {"move", 0, WS_OPT_STR, "DEST", \
		  "move (rename) PATH to DEST (DEST/: into that directory)", 0}
#define OPT_FORCE {"force", 'f', WS_OPT_FLAG, NULL, \
		   "move: replace DEST if it exists", 0}
#define OPT_ALLOW_EMPTY {"allow-empty", 0, WS_OPT_FLAG, NULL, \
			 "let standard input that gives nothing empty a " \
			 "non-empty file (refused otherwise)", WS_OPT_NOSCHEMA}
#define OPT_NO_SYNC {"no-sync", 0, WS_OPT_FLAG, NULL, \
		     "skip fsync (faster, not crash-safe)", WS_OPT_NOSCHEMA}
#define OPT_TOOL {"tool", 0, WS_OPT_STR, "NAME", \
		  "run one of the tools --schema lists (write_file, edit_file, " \
		  "create_directory, move_path, delete_path)", WS_OPT_NOSCHEMA}

static const struct ws_opt write_opts[] = {
	OPT_CONTENT, OPT_CONTENT_B64, OPT_APPEND, OPT_CREATE_ONLY, OPT_PARENTS,
	OPT_EDIT, OPT_OLD, OPT_NEW, OPT_ALL, OPT_EDITS, OPT_DRY_RUN, OPT_DIFF,
	OPT_IF_VERSION, OPT_MKDIR, OPT_DELETE, OPT_RECURSIVE, OPT_MOVE,
	OPT_FORCE, OPT_ALLOW_EMPTY, OPT_NO_SYNC, OPT_TOOL,
};
static const struct ws_opt edit_opts[] = {
	OPT_OLD, OPT_NEW, OPT_ALL, OPT_EDITS, OPT_DRY_RUN, OPT_IF_VERSION,
	OPT_NO_SYNC,
};
static const struct ws_opt mkdir_opts[] = {OPT_PARENTS, OPT_DRY_RUN};
static const struct ws_opt move_opts[] = {
	{"destination", 0, WS_OPT_STR, "DEST",
	 "where to move it (ending in \"/\": into that directory, created "
	 "when parents is on)", 0},
	OPT_FORCE, OPT_PARENTS, OPT_DRY_RUN, OPT_IF_VERSION,
};
static const struct ws_opt delete_opts[] = {OPT_RECURSIVE, OPT_DRY_RUN,
					    OPT_IF_VERSION};

#define NOPTS(a) (sizeof(a) / sizeof((a)[0]))

enum { T_WRITE, T_EDIT, T_MKDIR, T_MOVE, T_DELETE, T_COUNT };

static const struct ws_tool ws__write_cli[T_COUNT] = {
	[T_WRITE] = {
		.prog = "wswrite",
		.tool = "write_file",
		.description = "Create or overwrite a file with the given content "
			       "(atomically, creating parent directories), append to "
			       "it, or edit it by replacing an exact text (old -> new, "
			       "or several edits). Also creates directories (mkdir), "
			       "deletes (delete, recursive) and moves (move). Paths "
			       "are relative to the workspace root.",
		.help = "Create or overwrite a file with the given content "
			"(atomically, creating parent directories), append to it "
			"(--append), or edit it by replacing an exact text "
			"(--edit --old S --new S, repeatable). Also creates "
			"directories (--mkdir), deletes (--delete, -r for a tree) "
			"and moves (--move DEST). Paths are relative to the "
			"workspace root.",
		.usage = "wswrite [OPTION]... PATH\n"
			 "       wswrite --edit --old S --new S [--old S --new S]... "
			 "[--all] [OPTION]... PATH\n"
			 "       wswrite --mkdir [OPTION]... PATH\n"
			 "       wswrite --delete [-r] [OPTION]... PATH\n"
			 "       wswrite --move DEST [-f] [OPTION]... PATH\n"
			 "       wswrite --tool NAME --args JSON|-\n"
			 "The content comes from --content, --content-base64, or "
			 "standard input.",
		.pos_name = "path",
		.pos_help = "the file (or directory) to write, relative to the "
			    "workspace root",
		.pos_kind = WS_POS_ONE,
		.opts = write_opts,
		.nopts = NOPTS(write_opts),
	},
	[T_EDIT] = {
		.prog = "wswrite",
		.tool = "edit_file",
		.description = "Edit a file by replacing an exact text: old -> new "
			       "(old must match once unless all), or several edits "
			       "applied in order, all or nothing. Returns the diff.",
		.usage = "wswrite --tool edit_file --old S --new S [OPTION]... PATH",
		.pos_name = "path",
		.pos_help = "the file to edit, relative to the workspace root",
		.pos_kind = WS_POS_ONE,
		.opts = edit_opts,
		.nopts = NOPTS(edit_opts),
	},
	[T_MKDIR] = {
		.prog = "wswrite",
		.tool = "create_directory",
		.description = "Create a directory (and its missing parents). An "
			       "existing directory is a success.",
		.usage = "wswrite --tool create_directory [OPTION]... PATH",
		.pos_name = "path",
		.pos_help = "the directory to create, relative to the workspace root",
		.pos_kind = WS_POS_ONE,
		.opts = mkdir_opts,
		.nopts = NOPTS(mkdir_opts),
	},
	[T_MOVE] = {
		.prog = "wswrite",
		.tool = "move_path",
		.description = "Move or rename a file, directory or symlink inside "
			       "the workspace. An existing destination is refused "
			       "unless force.",
		.usage = "wswrite --tool move_path --destination DEST [OPTION]... SOURCE",
		.pos_name = "source",
		.pos_help = "what to move, relative to the workspace root",
		.pos_kind = WS_POS_ONE,
		.opts = move_opts,
		.nopts = NOPTS(move_opts),
	},
	[T_DELETE] = {
		.prog = "wswrite",
		.tool = "delete_path",
		.description = "Delete a file, a symlink (the link itself) or an "
			       "empty directory; a directory tree with recursive.",
		.usage = "wswrite --tool delete_path [-r] [OPTION]... PATH",
		.pos_name = "path",
		.pos_help = "what to delete, relative to the workspace root",
		.pos_kind = WS_POS_ONE,
		.opts = delete_opts,
		.nopts = NOPTS(delete_opts),
	},
};

/* The value of the option called name, or an unset one if the tool has none. */
static const struct ws_optval *
val(const struct ws_cli *c, const char *name)
{
	static const struct ws_optval unset;

	for (size_t i = 0; i < c->tool->nopts; i++)
		if (strcmp(c->tool->opts[i].name, name) == 0)
			return &c->vals[i];
	return &unset;
}

#define SET(n) (val(cli, (n))->set)
#define FLAG(n) (val(cli, (n))->b)
#define STR(n) (val(cli, (n))->s)

/* Read all of standard input. */
static int
read_stdin(char **out, size_t *outlen)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);

	if (buf == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb = realloc(buf, cap * 2);

			if (nb == NULL) {
				free(buf);
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			}
			buf = nb;
			cap *= 2;
		}
		r = read(0, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return ws_error_errno(errno, NULL, "read standard input");
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*out = buf;
	*outlen = n;
	return 0;
}

/* Reject options that make no sense together. */
static int
check_combinations(struct ws_cli *c)
{
	bool edit = val(c, "edit")->b || val(c, "old")->set || val(c, "edits")->set;
	int actions = val(c, "mkdir")->b + val(c, "delete")->b +
		      val(c, "move")->set + edit;
	bool writes = !val(c, "mkdir")->b && !val(c, "delete")->b &&
		      !val(c, "move")->set;
	bool content = val(c, "content")->set || val(c, "content-base64")->set;

	if (actions > 1)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "choose one of edit, mkdir, delete and move");
	if (val(c, "content")->set && val(c, "content-base64")->set)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "give content or content_base64, not both");
	if (content && (!writes || edit))
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "content is only for writing a file "
				    "(an edit takes old and new)");
	if ((val(c, "append")->b || val(c, "create-only")->b) && (!writes || edit))
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "append and create_only are only for writing a file");
	if (val(c, "edits")->set && (val(c, "old")->set || val(c, "new")->set))
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "give edits or old and new, not both");
	if (edit && !val(c, "edits")->set && !val(c, "old")->set)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "edit needs old (the exact text to replace)");
	if (edit && !val(c, "edits")->set && !val(c, "new")->set)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "edit needs new (the replacement text)");
	if (val(c, "old")->n != val(c, "new")->n)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--old and --new come in pairs (%zu old, %zu new)",
				    val(c, "old")->n, val(c, "new")->n);
	if (!edit && (val(c, "new")->set || val(c, "all")->b))
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "new and all are only for an edit");
	if (val(c, "edits")->set && val(c, "all")->b)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "with edits, give all in each edit");
	if (val(c, "recursive")->b && !val(c, "delete")->b &&
	    c->tool != &ws__write_cli[T_DELETE])
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "recursive is only for delete");
	if (val(c, "force")->b && !val(c, "move")->set && c->tool != &ws__write_cli[T_MOVE])
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "force is only for move");
	if (val(c, "diff")->b && !writes)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "diff is only for writing or editing a file");
	if (val(c, "if-version")->set && val(c, "mkdir")->b)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "if_version is for write, append, edit, delete "
				    "and move");
	if (c->tool == &ws__write_cli[T_MOVE] && !val(c, "destination")->set)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "move_path needs destination");
	if (c->tool == &ws__write_cli[T_EDIT] && !edit)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "edit_file needs old and new, or edits");
	return 0;
}

/*
 * The edits of a call: the JSON edits array (from --args, or --edits
 * JSON on the command line), else the --old/--new pairs, else the one
 * old/new of --args.  *out is malloc'd; *doc holds what a --edits text
 * parsed into (the strings point into it).
 */
static int
collect_edits(struct ws_cli *c, struct ws_edit **out, size_t *n, cJSON **doc)
{
	const struct ws_optval *ev = val(c, "edits");
	const struct ws_optval *ov = val(c, "old"), *nv = val(c, "new");
	const cJSON *arr = ev->json, *it;
	struct ws_edit *e;
	size_t k = 0, cnt;
	int rc;

	*out = NULL;
	*n = 0;
	*doc = NULL;
	if (ev->set && arr == NULL) {
		*doc = ws_json_parse(ev->s, WS_JSON_STR, NULL, false);
		if (*doc == NULL)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "--edits is not valid JSON");
		arr = *doc;
	}
	if (!ev->set) {
		cnt = ov->n > 1 ? ov->n : 1;
		e = calloc(cnt, sizeof(*e));
		if (e == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		for (k = 0; k < cnt; k++) {
			e[k].old = ov->n > 1 ? ov->list[k] : ov->s;
			e[k].repl = nv->n > 1 ? nv->list[k] : nv->s;
			e[k].oldlen = strlen(e[k].old);
			e[k].repllen = strlen(e[k].repl);
			e[k].all = val(c, "all")->b;
		}
		*out = e;
		*n = cnt;
		return 0;
	}
	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "edits must be a non-empty array of "
				    "{old, new, all} objects");
	cnt = (size_t)cJSON_GetArraySize(arr);
	if (cnt > WS_EDITS_MAX)
		return ws_error_set(WS_ELIMIT_EXCEEDED, NULL, "%zu edits in one "
				    "call, over the limit of %d", cnt,
				    WS_EDITS_MAX);
	e = calloc(cnt, sizeof(*e));
	if (e == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	cJSON_ArrayForEach(it, arr) {
		const cJSON *m;

		if (!cJSON_IsObject(it))
			goto bad;
		cJSON_ArrayForEach(m, it) {
			if (strcmp(m->string, "old") == 0 && cJSON_IsString(m))
				e[k].old = m->valuestring;
			else if (strcmp(m->string, "new") == 0 && cJSON_IsString(m))
				e[k].repl = m->valuestring;
			else if (strcmp(m->string, "all") == 0 && cJSON_IsBool(m))
				e[k].all = cJSON_IsTrue(m);
			else
				goto bad;
		}
		if (e[k].old == NULL || e[k].repl == NULL)
			goto bad;
		e[k].oldlen = strlen(e[k].old);
		e[k].repllen = strlen(e[k].repl);
		k++;
	}
	*out = e;
	*n = cnt;
	return 0;
bad:
	free(e);
	rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
			  "edits[%zu]: each edit is an object with old and new "
			  "(strings) and an optional all (boolean), nothing else", k);
	/* The reference filesystem server's spelling: its clients have a
	 * mode of their own here. */
	if (cJSON_IsObject(it) && (cJSON_GetObjectItemCaseSensitive(it, "oldText") ||
				   cJSON_GetObjectItemCaseSensitive(it, "newText")))
		ws_error_set_hint("say old and new for oldText and newText (a "
				  "person whose client is made for the "
				  "reference filesystem server can start "
				  "wstools mcp --compat mcp-filesystem, which "
				  "takes those names)");
	return rc;
}

/*
 * What the result says when the call made a top-level directory named
 * like a host system directory ("/tmp"): the workspace's, not the
 * host's (malloc'd; NULL when out of memory).
 */
static char *
made_top_note(const struct ws_wresult *r)
{
	char *s;

	if (asprintf(&s, "%s %s made in the workspace, not the host's %s: "
		     "absolute paths are the workspace's", r->made_top,
		     r->dry_run ? "would be" : "was", r->made_top) < 0)
		return NULL;
	return s;
}

static void
print_json(struct ws_tcall *c, const struct ws_wresult *r, bool show_diff)
{
	struct ws_cli *cli = c->cli;
	struct ws_jw jw;
	bool file = strcmp(r->action, "write") == 0 ||
		    strcmp(r->action, "create") == 0 ||
		    strcmp(r->action, "append") == 0 ||
		    strcmp(r->action, "edit") == 0;

	ws_tcall_begin(c, &jw);
	ws_jw_obj(&jw);
	ws_jw_kname(&jw, "path", r->vpath);
	ws_cli_kreal(cli, &jw, "real_path", r->real);
	ws_jw_kstr(&jw, "action", r->action);
	ws_jw_kbool(&jw, "created", r->created);
	ws_jw_kbool(&jw, "dry_run", r->dry_run);
	if (file) {
		ws_jw_kint(&jw, "bytes_written", r->bytes_written);
		ws_jw_kint(&jw, "lines", r->lines);
		/* The next --if-version's token, with no read between. */
		if (r->version[0] != '\0')
			ws_jw_kstr(&jw, "version", r->version);
	}
	if (strcmp(r->action, "edit") == 0)
		ws_jw_kint(&jw, "replacements", (long long)r->replacements);
	if (r->type != NULL)
		ws_jw_kstr(&jw, "type", r->type);
	if (strcmp(r->action, "delete") == 0)
		ws_jw_kint(&jw, "removed", (long long)r->removed);
	if (r->dest_vpath != NULL) {
		ws_jw_kname(&jw, "destination", r->dest_vpath);
		ws_cli_kreal(cli, &jw, "destination_real_path", r->dest_real);
	}
	if (r->made_top != NULL) {
		char *note = made_top_note(r);

		if (note != NULL)
			ws_jw_kstr(&jw, "note", note);
		free(note);
	}
	/*
	 * A create or an overwrite is a summary unless the diff was asked
	 * for: its diff is the content again, which the caller just sent.
	 */
	if (file && show_diff) {
		/*
		 * A diff of files that are not UTF-8 would lose their bytes
		 * to U+FFFD in a JSON string, and a patch made from it would
		 * not apply: it comes as base64 then, and diff_encoding says
		 * which.
		 */
		bool utf8 = r->diff == NULL || ws_utf8_valid(r->diff, r->difflen);

		ws_jw_key(&jw, "diff");
		if (r->diff == NULL)
			ws_jw_null(&jw);
		else if (utf8)
			ws_jw_strn(&jw, r->diff, r->difflen);
		else
			ws_jw_base64(&jw, r->diff, r->difflen);
		if (r->diff == NULL)
			ws_jw_knull(&jw, "diff_encoding");
		else
			ws_jw_kstr(&jw, "diff_encoding", utf8 ? "utf-8" : "base64");
		ws_jw_kbool(&jw, "diff_truncated", r->diff_truncated);
	}
	ws_jw_obj_end(&jw);
	ws_tcall_end(c, &jw);
}

static void
print_plain(struct ws_cli *cli, const struct ws_wresult *r)
{
	const char *a = r->action;
	bool dry = r->dry_run;
	FILE *f = ws_out();
	char *p, *dest = NULL;

	if (dry && r->diff != NULL && r->difflen > 0) {
		fwrite(r->diff, 1, r->difflen, ws_out());
		if (r->diff_truncated)
			fprintf(ws_out(), "... (diff truncated)\n");
		f = stderr; /* keep stdout a clean patch */
	}
	/* Names on a terminal: control bytes as "?", as wsls shows them. */
	p = ws_cli_masked(ws_cli_show_path(cli, r->vpath, r->real),
			  isatty(fileno(f)));
	if (strcmp(a, "move") == 0)
		dest = ws_cli_masked(ws_cli_show_path(cli, r->dest_vpath, r->dest_real),
				     isatty(fileno(f)));
	if (p == NULL || (strcmp(a, "move") == 0 && dest == NULL)) {
		free(p);
		free(dest);
		return;
	}
	if (strcmp(a, "write") == 0 || strcmp(a, "create") == 0)
		fprintf(f, "%s %lld byte%s to %s%s\n", dry ? "would write" : "wrote",
			r->bytes_written, r->bytes_written == 1 ? "" : "s", p,
			r->created ? " (created)" : "");
	else if (strcmp(a, "append") == 0)
		fprintf(f, "%s %lld byte%s to %s%s\n",
			dry ? "would append" : "appended", r->bytes_written,
			r->bytes_written == 1 ? "" : "s", p,
			r->created ? " (created)" : "");
	else if (strcmp(a, "edit") == 0)
		fprintf(f, "%s %s: %zu replacement%s\n", dry ? "would edit" : "edited",
			p, r->replacements, r->replacements == 1 ? "" : "s");
	else if (strcmp(a, "mkdir") == 0 && !r->created)
		fprintf(f, "directory %s already exists\n", p);
	else if (strcmp(a, "mkdir") == 0)
		fprintf(f, "%s directory %s\n", dry ? "would create" : "created", p);
	else if (strcmp(a, "delete") == 0 && r->removed > 1)
		fprintf(f, "%s %s (%zu entries)\n", dry ? "would delete" : "deleted",
			p, r->removed);
	else if (strcmp(a, "delete") == 0)
		fprintf(f, "%s %s\n", dry ? "would delete" : "deleted", p);
	else if (strcmp(a, "move") == 0)
		fprintf(f, "%s %s to %s\n", dry ? "would move" : "moved", p, dest);
	if (dry && f == ws_out())
		fprintf(ws_out(), "(dry run: nothing was changed)\n");
	if (r->made_top != NULL)
		fprintf(stderr, "wswrite: note: %s %s made in the workspace (%s), "
			"not the host's %s: absolute paths are the workspace's\n",
			r->made_top, dry ? "would be" : "was", r->made_top_real,
			r->made_top);
	free(p);
	free(dest);
}

/*
 * The short summary of a change a model reads, and the diff where the
 * JSON has one (an edit, a dry run, or when asked).
 */
static void
print_text(FILE *f, const struct ws_wresult *r, bool show_diff)
{
	const char *a = r->action, *path = r->vpath ? r->vpath : "?";
	bool file = strcmp(a, "write") == 0 || strcmp(a, "create") == 0 ||
		    strcmp(a, "append") == 0 || strcmp(a, "edit") == 0;

	if (r->dry_run)
		fputs("dry run, nothing changed: would have ", f);
	if (strcmp(a, "create") == 0 || strcmp(a, "write") == 0 ||
	    strcmp(a, "append") == 0)
		fprintf(f, "%s %lld byte%s to %s%s\n", r->dry_run ? "written" : "wrote",
			r->bytes_written, r->bytes_written == 1 ? "" : "s", path,
			r->created ? " (new file)" : "");
	else if (strcmp(a, "edit") == 0)
		fprintf(f, "edited %s: %zu replacement%s\n", path, r->replacements,
			r->replacements == 1 ? "" : "s");
	else if (strcmp(a, "mkdir") == 0 && r->created)
		fprintf(f, "created directory %s\n", path);
	else if (strcmp(a, "mkdir") == 0)
		fprintf(f, "directory %s exists already\n", path);
	else if (strcmp(a, "move") == 0)
		fprintf(f, "moved %s to %s\n", path, r->dest_vpath ? r->dest_vpath : "?");
	else if (strcmp(a, "delete") == 0 && r->removed > 1)
		fprintf(f, "deleted %s (%zu entries)\n", path, r->removed);
	else if (strcmp(a, "delete") == 0)
		fprintf(f, "deleted %s\n", path);
	else
		fprintf(f, "%s %s\n", a, path);
	if (r->made_top != NULL) {
		char *note = made_top_note(r);

		if (note != NULL)
			fprintf(f, "note: %s\n", note);
		free(note);
	}
	if (!file || !show_diff)
		return;
	/* A diff that is not UTF-8 is base64 in the JSON: not shown here. */
	if (r->diff != NULL && r->difflen > 0 && ws_utf8_valid(r->diff, r->difflen)) {
		fwrite(r->diff, 1, r->difflen, f);
		if (r->diff[r->difflen - 1] != '\n')
			fputc('\n', f);
	}
	if (r->diff_truncated)
		fputs("[diff truncated]\n", f);
}

/*
 * "wswrite --move d/a.txt e/" is mv's order: the path to move (e/) is
 * missing while the --move argument exists.  After a NOT_FOUND on the
 * path, when the destination given exists (resolved as an input is, and
 * visible under the policy), the hint gives the order back.  The error
 * stays as it was.
 */
static void
move_order_hint(struct ws_tcall *c, const char *path, const char *dest,
		bool option)
{
	struct ws_ctx *ws = c->ws;
	struct ws_res m;
	char *msg, *epath;
	bool np = ws->no_prompt, found = false;

	if (ws_error_last_code() != WS_ENOT_FOUND || ws_error_last_path() == NULL ||
	    strcmp(ws_error_last_path(), path) != 0)
		return;
	msg = strdup(ws_error_last());
	epath = strdup(path);
	if (msg == NULL || epath == NULL)
		goto out;
	ws->no_prompt = true;
	if (ws_resolve(ws, dest, WS_R__NO_DENY_CHECK, &m) == 0) {
		found = m.exists && ws_check(ws, WS_OP_STAT, m.real, m.vpath) == 0;
		ws_res_free(&m);
	}
	ws->no_prompt = np;
	ws_error_set(WS_ENOT_FOUND, epath, "%s", msg);
	if (found && !option)
		ws_error_set_hint("%s exists and %s does not: source is what to "
				  "move, destination where to", dest, path);
	else if (found)
		ws_error_set_hint("--move takes the destination, then the path to "
				  "move: wswrite --move %s %s", path, dest);
out:
	free(msg);
	free(epath);
}

/* The checks of the options' combinations, before the workspace opens. */
static int
write_check(struct ws_cli *cli)
{
	return check_combinations(cli);
}

/* Any of the five tools: t says which (wswrite --tool NAME). */
static int
write_run(struct ws_tcall *c, int t)
{
	struct ws_cli *cli = c->cli;
	struct ws_ctx *ws = c->ws;
	struct ws_wresult r = {0};
	struct ws_wopts o = {0};
	struct ws_edit *edits = NULL;
	cJSON *edits_doc = NULL;
	char *input = NULL;
	void *decoded = NULL;
	const char *path;
	bool show_diff;
	int rc, status = 0;

	/*
	 * Over RLIMIT_FSIZE, write(2) must fail with EFBIG, so that the
	 * temporary file is removed, rather than the signal killing us.
	 */
	signal(SIGXFSZ, SIG_IGN);
	path = cli->pos[0];
	ws_hist_nosync(ws, FLAG("no-sync"));
	o.parents = SET("parents") ? FLAG("parents") : true;
	o.dry_run = FLAG("dry-run");
	o.if_version = STR("if-version");
	if (FLAG("mkdir") || t == T_MKDIR) {
		rc = ws_mkdir(ws, path, o.parents, o.dry_run, &r);
	} else if (FLAG("delete") || t == T_DELETE) {
		rc = ws_delete(ws, path, FLAG("recursive"), o.dry_run,
			       o.if_version, &r);
	} else if (SET("move") || t == T_MOVE) {
		rc = ws_move(ws, path, SET("move") ? STR("move") : STR("destination"),
			     FLAG("force"), o.parents, o.dry_run, o.if_version, &r);
		if (rc == WS_ENOT_FOUND)
			move_order_hint(c, path, SET("move") ? STR("move") :
					STR("destination"), SET("move"));
	} else {
		o.edit = FLAG("edit") || SET("old") || SET("edits");
		o.append = FLAG("append");
		o.create_only = FLAG("create-only");
		o.all = FLAG("all");
		o.nosync = FLAG("no-sync");
		/*
		 * A diff costs a read of the old file: only where it is
		 * shown, and for a create or overwrite only when asked.
		 */
		o.want_diff = cli->json && (o.edit || FLAG("diff"));
		if (o.edit) {
			rc = collect_edits(cli, &edits, &o.nedits, &edits_doc);
			if (rc < 0)
				goto fail;
			o.edits = edits;
		} else if (SET("content")) {
			o.content = STR("content");
			o.len = strlen(STR("content"));
		} else if (SET("content-base64")) {
			rc = ws_b64_decode(STR("content-base64"), &decoded, &o.len);
			if (rc < 0)
				goto fail;
			o.content = decoded;
		} else if (cli->from_args) {
			/*
			 * A function call carries its content: standard input
			 * is not part of it (with --args - it held the JSON),
			 * and an agent's tool runner may leave it open, so
			 * reading it would wait forever.
			 */
			rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					  "content is required (give content or "
					  "content_base64)%s", cli->args_text != NULL ?
					  "; standard input held the call's arguments" :
					  "");
			goto fail;
		} else {
			struct stat in;

			/*
			 * Standard input that is /dev/null (or closed) is a
			 * script or a runner that gave no content, not an
			 * empty file asked for: writing nothing over the file
			 * would lose it silently.  A pipe may be empty on
			 * purpose; --content '' says so outright.
			 */
			bool closed = fstat(0, &in) < 0;

			if (closed || (S_ISCHR(in.st_mode) && !isatty(0))) {
				rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
						  "no content: standard input is %s; "
						  "give --content TEXT (--content '' "
						  "writes an empty file) or pipe the "
						  "content in", closed ? "closed" :
						  "a device, not a pipe or a file "
						  "(/dev/null?)");
				goto fail;
			}
			if (isatty(0) && !cli->json)
				fprintf(stderr, "wswrite: reading the content from "
					"standard input (end it with Ctrl-D)\n");
			rc = read_stdin(&input, &o.len);
			if (rc < 0)
				goto fail;
			o.content = input;
			/*
			 * A pipe that gave nothing is a command upstream that
			 * failed ("wsread nosuch | wswrite notes.txt") far
			 * more often than a wish to empty the file: a
			 * non-empty file keeps its content unless that is said
			 * (--content '', --allow-empty).  A terminal's Ctrl-D
			 * at once is said on purpose.
			 */
			o.keep_nonempty = !isatty(0) && !FLAG("allow-empty");
		}
		rc = ws_write(ws, path, &o, &r);
	}
	if (r.action != NULL) {
		ws_audit_set_str(cli->audit_log, "operation", r.action);
		if (r.dest_vpath != NULL)
			ws_audit_set_str(cli->audit_log, "destination", r.dest_vpath);
		if (rc == 0)
			ws_audit_set_int(cli->audit_log, "bytes", r.bytes_written);
		if (r.dry_run)
			ws_audit_set_json(cli->audit_log, "dry_run", "true");
		if (r.history_id > 0)
			ws_audit_set_int(cli->audit_log, "history_id", r.history_id);
	}
	if (rc < 0)
		goto fail;
	show_diff = o.edit || o.dry_run || FLAG("diff");
	if (cli->json)
		print_json(c, &r, show_diff);
	else
		print_plain(cli, &r);
	if (c->mode == WS_TCALL_MODEL)
		print_text(c->text, &r, show_diff);
	goto out;
fail:
	status = ws_tcall_fail(c, rc);
out:
	ws_wresult_free(&r);
	free(input);
	free(decoded);
	free(edits);
	cJSON_Delete(edits_doc);
	return status;
}

static int write_file_run(struct ws_tcall *c) { return write_run(c, T_WRITE); }
static int edit_file_run(struct ws_tcall *c) { return write_run(c, T_EDIT); }
static int mkdir_run(struct ws_tcall *c) { return write_run(c, T_MKDIR); }
static int move_run(struct ws_tcall *c) { return write_run(c, T_MOVE); }
static int delete_run(struct ws_tcall *c) { return write_run(c, T_DELETE); }

#define WS__S "{\"type\":\"string\"}"
#define WS__I "{\"type\":\"integer\"}"
#define WS__B "{\"type\":\"boolean\"}"
const struct ws_tool_def ws_tool_write_file = {
	"write_file", &ws__write_cli[T_WRITE], "Write a file", false, true, false,
	"{\"type\":\"object\",\"properties\":{\"path\":" WS__S ",\"action\":" WS__S
	",\"bytes_written\":" WS__I ",\"version\":" WS__S ",\"diff\":" WS__S "}}",
	.want_history = true, .check = write_check, .run = write_file_run,
};
const struct ws_tool_def ws_tool_edit_file = {
	"edit_file", &ws__write_cli[T_EDIT], "Edit a file", false, true, false,
	"{\"type\":\"object\",\"properties\":{\"path\":" WS__S ",\"replacements\":"
	WS__I ",\"version\":" WS__S ",\"diff\":" WS__S "}}",
	.want_history = true, .check = write_check, .run = edit_file_run,
};
const struct ws_tool_def ws_tool_create_directory = {
	"create_directory", &ws__write_cli[T_MKDIR], "Create a directory", false,
	false, true,
	"{\"type\":\"object\",\"properties\":{\"path\":" WS__S ",\"created\":" WS__B
	"}}",
	.want_history = true, .check = write_check, .run = mkdir_run,
};
const struct ws_tool_def ws_tool_move_path = {
	"move_path", &ws__write_cli[T_MOVE], "Move or rename", false, true, false,
	"{\"type\":\"object\",\"properties\":{\"path\":" WS__S ",\"destination\":"
	WS__S "}}",
	.want_history = true, .check = write_check, .run = move_run,
};
const struct ws_tool_def ws_tool_delete_path = {
	"delete_path", &ws__write_cli[T_DELETE], "Delete a file or directory", false,
	true, true,
	"{\"type\":\"object\",\"properties\":{\"path\":" WS__S ",\"removed\":" WS__I
	"}}",
	.want_history = true, .check = write_check, .run = delete_run,
};
#undef WS__S
#undef WS__I
#undef WS__B
