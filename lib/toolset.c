/*
 * toolset.c - the tool definitions a model is given (see ws/toolset.h):
 * the "default" and "five" sets as tables over the binaries' --schema
 * definitions, and a checker of the schema subsets of function-calling
 * APIs.
 *
 * A set names, for each tool, its description and the properties it
 * advertises, each with a short description; the property's schema
 * (type, items, enum) is the binary's, unless the set gives one (one
 * type where the CLI takes two).  A property the binary no longer has
 * is an error, so that a set cannot drift from the tools unnoticed.
 */
#include "ws/toolset.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/error.h"
#include "ws/json.h"

const char *const ws_toolset_names[] = {"full", "default", "five", NULL};
const char *const ws_toolset_dialects[] = {"ajv-strict", "gemini", "openai-strict",
					   NULL};

struct ws__prop {
	const char *name, *desc;
	const char *schema; /* JSON in place of the binary's, or NULL */
};

struct ws__tool {
	const char *name, *from, *desc; /* from: the --schema definition */
	const struct ws__prop *props;
	size_t nprops;
	const char *required; /* a JSON array, NULL: the binary's (those kept) */
};

#define PROPS(a) a, sizeof(a) / sizeof(a[0])

/* One type: an argv array (the CLI also takes a shell string). */
static const char ws__argv[] =
	"{\"type\":\"array\",\"items\":{\"type\":\"string\"}}";

/* ---- The default set: the nine tools -------------------------------- */

static const struct ws__prop ws__d_ls[] = {
	{"path", "directory (or file); default \"/\", the workspace root", NULL},
	{"paths", "several paths, instead of path", NULL},
	{"all", "include dot entries (and mounts)", NULL},
	{"long", "add size, mtime, mode and version", NULL},
	{"recursive", "the whole tree (skips .git and .gitignored)", NULL},
	{"depth", "levels: 1 (default) the entries, 2 theirs too, ...", NULL},
	{"sort", "name (default), size (largest first) or mtime (newest first)", NULL},
	{"exclude", "leave out entries matching these globs", NULL},
	{"no_ignore", "recursive: do not skip .git and .gitignored", NULL},
	{"directory", "the directory itself, not its entries", NULL},
	{"max_entries", "most entries returned (default 200; 0: all)", NULL},
	{"offset", "skip N entries: next_offset of the previous page", NULL},
};

static const struct ws__prop ws__d_read[] = {
	{"path", "file: relative to the workspace root, or virtual (/src/a.c)", NULL},
	{"paths", "several files, instead of path", NULL},
	{"start_line", "first line, 1-based", NULL},
	{"end_line", "last line, inclusive", NULL},
	{"tail", "the last N lines", NULL},
	{"line_numbers", "number the lines", NULL},
	{"base64", "the content base64-encoded (binary files)", NULL},
	{"max_bytes", "most bytes of content (default 1048576)", NULL},
};

static const struct ws__prop ws__d_write[] = {
	{"path", "the file, relative to the workspace root", NULL},
	{"content", "the text to write", NULL},
	{"content_base64", "the bytes to write, base64 (instead of content)", NULL},
	{"append", "append instead of replacing", NULL},
	{"create_only", "fail if the file exists", NULL},
	{"dry_run", "change nothing; show the diff", NULL},
	{"diff", "show the diff of the change", NULL},
	{"if_version", "only if the file still has this version", NULL},
};

static const struct ws__prop ws__d_edit[] = {
	{"path", "the file, relative to the workspace root", NULL},
	{"old", "the exact text to replace (must match once unless all)", NULL},
	{"new", "the replacement", NULL},
	{"all", "replace every occurrence", NULL},
	{"edits", "several {old, new, all}, in order, all or nothing", NULL},
	{"dry_run", "change nothing; show the diff", NULL},
	{"if_version", "only if the file still has this version", NULL},
};

static const struct ws__prop ws__d_mkdir[] = {
	{"path", "the directory, relative to the workspace root", NULL},
	{"dry_run", "change nothing", NULL},
};

static const struct ws__prop ws__d_move[] = {
	{"source", "what to move", NULL},
	{"destination", "where to (ending in \"/\": into that directory)", NULL},
	{"force", "replace an existing destination", NULL},
	{"dry_run", "change nothing", NULL},
	{"if_version", "only if the source still has this version", NULL},
};

static const struct ws__prop ws__d_delete[] = {
	{"path", "what to delete", NULL},
	{"recursive", "a directory tree (links are not followed)", NULL},
	{"dry_run", "change nothing", NULL},
	{"if_version", "only if the file still has this version", NULL},
};

static const struct ws__prop ws__d_grep[] = {
	{"pattern", "PCRE2 regex (a literal with fixed_strings); not for "
		    "output_mode files", NULL},
	{"paths", "files or directories (default: the whole workspace)", NULL},
	{"output_mode", "what to return (default content, the lines; files: the "
			"files a search reads, to find them by name)", NULL},
	{"fixed_strings", "the pattern is a literal", NULL},
	{"ignore_case", "case-insensitive", NULL},
	{"word_regexp", "whole words only", NULL},
	{"invert_match", "the lines that do not match", NULL},
	{"multiline", "a match may span lines", NULL},
	{"context", "lines before and after each match", NULL},
	{"before_context", "lines before each match", NULL},
	{"after_context", "lines after each match", NULL},
	{"max_count", "most matching lines per file", NULL},
	{"include", "only files matching these globs (\"*.c\", \"src/**\")", NULL},
	{"exclude", "skip files and directories matching these globs", NULL},
	{"type", "only files of these types (c, py, js, ...)", NULL},
	{"hidden", "search hidden files too", NULL},
	{"no_ignore", "do not apply .gitignore", NULL},
	{"max_depth", "descend at most N levels", NULL},
	{"max_results", "most results (default 50; 0: all)", NULL},
	{"offset", "skip N results: summary.next_offset of the previous page", NULL},
	{"time_budget", "seconds to search before returning what was found "
			"(default 10)", NULL},
};

static const struct ws__prop ws__d_run[] = {
	{"command", "argv, run directly; for pipes and redirections "
		    "[\"sh\", \"-c\", \"...\"]", ws__argv},
	{"cwd", "working directory (default \"/\", the workspace root)", NULL},
	{"timeout", "seconds before the command is killed (default 60)", NULL},
	{"stdin", "text for its standard input", NULL},
	{"env", "NAME=VALUE variables for it", NULL},
	{"max_output", "bytes kept of stdout and of stderr each (default 65536)",
	 "{\"type\":\"integer\"}"},
};

static const struct ws__tool ws__default[] = {
	{"list_directory", "list_directory",
	 "List a directory (names, types, symlink targets), or its tree. Paged: "
	 "when truncated, call again with offset=next_offset.",
	 PROPS(ws__d_ls)},
	{"read_file", "read_file",
	 "Read a file, or lines start_line..end_line, or the last tail lines. A "
	 "long file comes a page at a time: read on from next_start_line. Binary "
	 "files: metadata unless base64.",
	 PROPS(ws__d_read)},
	{"write_file", "write_file",
	 "Create or overwrite a file (atomically, parents created), or append to "
	 "it.",
	 PROPS(ws__d_write)},
	{"edit_file", "edit_file",
	 "Replace exact text in a file (old by new, or several edits in order, all "
	 "or nothing); returns the diff.",
	 PROPS(ws__d_edit)},
	{"create_directory", "create_directory",
	 "Create a directory and its missing parents; an existing one is a "
	 "success.",
	 PROPS(ws__d_mkdir)},
	{"move_path", "move_path",
	 "Move or rename a file or directory; an existing destination is refused "
	 "unless force.",
	 PROPS(ws__d_move)},
	{"delete_path", "delete_path",
	 "Delete a file, a symlink or an empty directory; a tree with recursive.",
	 PROPS(ws__d_delete)},
	{"search_files", "search_files",
	 "Search file contents like grep -rn (skips .git, .gitignored, hidden and "
	 "binary files), or find files by name (output_mode files, include "
	 "globs). Paged: read on with offset=summary.next_offset.",
	 PROPS(ws__d_grep)},
	{"run_command", "run_command",
	 "Run a command in a sandbox confined to the workspace (no network, "
	 "nothing outside), with a timeout; returns exit_code, stdout and stderr. "
	 "Commands in one workspace run one at a time: one sent beside another "
	 "waits for it, within its own timeout.",
	 PROPS(ws__d_run)},
};

/* ---- The five tools --------------------------------------------------- */

static const struct ws__prop ws__5_ls[] = {
	{"path", "directory; default \"/\"", NULL},
	{"recursive", "the whole tree", NULL},
	{"depth", "levels (default 1)", NULL},
	{"all", "include dot entries", NULL},
	{"offset", "skip N entries (next_offset)", NULL},
};

static const struct ws__prop ws__5_read[] = {
	{"path", "file", NULL},
	{"start_line", "first line, 1-based", NULL},
	{"end_line", "last line", NULL},
	{"tail", "the last N lines", NULL},
};

static const struct ws__prop ws__5_write[] = {
	{"path", "file", NULL},
	{"content", "the whole new content", NULL},
	{"append", "append content", NULL},
	{"old", "edit: exact text to replace", NULL},
	{"new", "edit: its replacement", NULL},
	{"all", "edit: every occurrence", NULL},
	{"edits", "several {old, new} edits", NULL},
};

static const struct ws__prop ws__5_grep[] = {
	{"pattern", "regex", NULL},
	{"paths", "where (default: everywhere)", NULL},
	{"fixed_strings", "pattern is literal", NULL},
	{"ignore_case", "case-insensitive", NULL},
	{"include", "only files matching these globs", NULL},
	{"output_mode", "content (default), files_with_matches, count or files", NULL},
	{"context", "lines around each match", NULL},
	{"offset", "skip N results (summary.next_offset)", NULL},
};

static const struct ws__prop ws__5_run[] = {
	{"command", "argv; [\"sh\", \"-c\", \"...\"] for a shell line", ws__argv},
	{"cwd", "working directory", NULL},
	{"timeout", "seconds (default 60)", NULL},
	{"stdin", "standard input", NULL},
};

static const struct ws__tool ws__five[] = {
	{"read_file", "read_file", "Read a file, or some of its lines.",
	 PROPS(ws__5_read), "[\"path\"]"},
	{"write_file", "write_file",
	 "Write a file, or edit it: replace old by new (once unless all), or "
	 "several edits.",
	 PROPS(ws__5_write)},
	{"list_directory", "list_directory", "List a directory.", PROPS(ws__5_ls)},
	{"run_command", "run_command",
	 "Run a command in the workspace, sandboxed; returns exit_code, stdout, "
	 "stderr.",
	 PROPS(ws__5_run)},
	{"search_files", "search_files",
	 "Search file contents (regex), or find files by name (output_mode files).",
	 PROPS(ws__5_grep)},
};

/* ---- Building --------------------------------------------------------- */

/* The "function" object of the definition of tool name in full. */
static const cJSON *
ws__find(const cJSON *full, const char *name)
{
	const cJSON *d;

	cJSON_ArrayForEach(d, full) {
		const cJSON *fn = cJSON_GetObjectItemCaseSensitive(d, "function");

		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(fn, "name")) &&
		    strcmp(cJSON_GetObjectItemCaseSensitive(fn, "name")->valuestring,
			   name) == 0)
			return fn;
	}
	return NULL;
}

/* One definition of a set, or NULL with the last error set. */
static cJSON *
ws__build_one(const struct ws__tool *t, const cJSON *full)
{
	const cJSON *fn = ws__find(full, t->from);
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(fn, "parameters");
	const cJSON *have = cJSON_GetObjectItemCaseSensitive(params, "properties");
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(params, "required"), *r;
	cJSON *def = cJSON_CreateObject(), *f, *p, *props, *required;

	if (fn == NULL) {
		cJSON_Delete(def);
		ws_error_set(WS_EINVALID_ARGUMENT, NULL, "no definition of %s to make "
			     "%s from", t->from, t->name);
		return NULL;
	}
	cJSON_AddStringToObject(def, "type", "function");
	f = cJSON_AddObjectToObject(def, "function");
	cJSON_AddStringToObject(f, "name", t->name);
	cJSON_AddStringToObject(f, "description", t->desc);
	p = cJSON_AddObjectToObject(f, "parameters");
	cJSON_AddStringToObject(p, "type", "object");
	props = cJSON_AddObjectToObject(p, "properties");
	for (size_t i = 0; i < t->nprops; i++) {
		const struct ws__prop *q = &t->props[i];
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(have, q->name);
		cJSON *s = q->schema ? ws_json_parse(q->schema, WS_JSON_STR, NULL, false) :
			   src ? cJSON_Duplicate(src, 1) : NULL;

		if (s == NULL) {
			cJSON_Delete(def);
			ws_error_set(WS_EINVALID_ARGUMENT, NULL, "%s has no property %s",
				     t->from, q->name);
			return NULL;
		}
		cJSON_DeleteItemFromObjectCaseSensitive(s, "description");
		cJSON_AddStringToObject(s, "description", q->desc);
		cJSON_AddItemToObject(props, q->name, s);
	}
	cJSON_AddFalseToObject(p, "additionalProperties");
	if (t->required != NULL) {
		cJSON_AddItemToObject(p, "required", ws_json_parse(t->required, WS_JSON_STR, NULL, false));
		return def;
	}
	required = cJSON_AddArrayToObject(p, "required");
	cJSON_ArrayForEach(r, req)
		if (cJSON_IsString(r) &&
		    cJSON_GetObjectItemCaseSensitive(props, r->valuestring) != NULL)
			cJSON_AddItemToArray(required, cJSON_CreateString(r->valuestring));
	return def;
}

cJSON *
ws_toolset_build(const char *name, const cJSON *full)
{
	const struct ws__tool *set;
	size_t n;
	cJSON *out;

	if (strcmp(name, "full") == 0) {
		if ((out = cJSON_Duplicate(full, 1)) == NULL)
			ws_error_set(WS_ENOMEM, NULL, "out of memory");
		return out;
	}
	if (strcmp(name, "default") == 0) {
		set = ws__default;
		n = sizeof(ws__default) / sizeof(ws__default[0]);
	} else if (strcmp(name, "five") == 0) {
		set = ws__five;
		n = sizeof(ws__five) / sizeof(ws__five[0]);
	} else {
		ws_error_set(WS_EINVALID_ARGUMENT, NULL, "no tool set \"%s\" (sets: "
			     "full, default, five)", name);
		return NULL;
	}
	if ((out = cJSON_CreateArray()) == NULL) {
		ws_error_set(WS_ENOMEM, NULL, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		cJSON *d = ws__build_one(&set[i], full);

		if (d == NULL) {
			cJSON_Delete(out);
			return NULL;
		}
		cJSON_AddItemToArray(out, d);
	}
	return out;
}

/* ---- Checking --------------------------------------------------------- */

enum ws__dialect { WS__AJV, WS__GEMINI, WS__OPENAI };

/* The keywords each dialect knows (Ajv: those of draft 7 we could use). */
static const char *const ws__kw_ajv[] = {
	"type", "description", "enum", "items", "properties", "required",
	"additionalProperties", "minimum", "maximum", "minItems", "maxItems",
	"minLength", "maxLength", "pattern", "default", "const", "anyOf", "oneOf",
	"allOf", "title", NULL};
static const char *const ws__kw_gemini[] = {
	"type", "description", "enum", "items", "properties", "required",
	"nullable", "format", "minimum", "maximum", "minItems", "maxItems", NULL};

static bool
ws__in(const char *const *list, const char *s)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/* A reason, for *why: false, always. */
static bool ws__why(char **why, const char *tool, const char *where, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));

static bool
ws__why(char **why, const char *tool, const char *where, const char *fmt, ...)
{
	char *rule = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&rule, fmt, ap) < 0)
		rule = NULL;
	va_end(ap);
	if (asprintf(why, "%s: %s: %s", tool, *where ? where : "parameters",
		     rule ? rule : "out of memory") < 0)
		*why = NULL;
	free(rule);
	return false;
}

/* Check one schema s (at where, in tool) and what it holds. */
static bool
ws__check_schema(const cJSON *s, enum ws__dialect d, const char *tool,
		 const char *where, char **why)
{
	const cJSON *k, *type = cJSON_GetObjectItemCaseSensitive(s, "type");
	const char *t = cJSON_GetStringValue(type);
	char sub[256];

	if (!cJSON_IsObject(s))
		return ws__why(why, tool, where, "a schema must be an object%s", "");
	cJSON_ArrayForEach(k, s) {
		if (d == WS__AJV && !ws__in(ws__kw_ajv, k->string))
			return ws__why(why, tool, where, "keyword \"%s\" is unknown "
				       "to strict mode", k->string);
		if (d == WS__GEMINI && !ws__in(ws__kw_gemini, k->string))
			return ws__why(why, tool, where, "Gemini refuses \"%s\"",
				       k->string);
		if (d == WS__OPENAI && (strcmp(k->string, "default") == 0 ||
					strcmp(k->string, "format") == 0))
			return ws__why(why, tool, where, "OpenAI strict refuses "
				       "\"%s\"", k->string);
	}
	if (type != NULL && !cJSON_IsString(type) && d != WS__OPENAI)
		return ws__why(why, tool, where, "one type per schema%s (no union of "
			       "types)", "");
	if (type == NULL && d == WS__GEMINI)
		return ws__why(why, tool, where, "Gemini needs a type%s", "");
	if (d == WS__AJV && t != NULL) {
		bool obj = strcmp(t, "object") == 0, arr = strcmp(t, "array") == 0;

		if (!arr && (cJSON_GetObjectItemCaseSensitive(s, "items") ||
			     cJSON_GetObjectItemCaseSensitive(s, "minItems")))
			return ws__why(why, tool, where, "\"items\" without type "
				       "array%s", "");
		if (!obj && (cJSON_GetObjectItemCaseSensitive(s, "properties") ||
			     cJSON_GetObjectItemCaseSensitive(s, "required")))
			return ws__why(why, tool, where, "\"properties\" without type "
				       "object%s", "");
	}
	if (t != NULL && strcmp(t, "object") == 0) {
		const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
		const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required"), *r, *p;
		const cJSON *ap = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");

		cJSON_ArrayForEach(r, req)
			if (!cJSON_IsString(r) ||
			    cJSON_GetObjectItemCaseSensitive(props, r->valuestring) == NULL)
				return ws__why(why, tool, where, "required \"%s\" is not a "
					       "property", cJSON_IsString(r) ?
					       r->valuestring : "?");
		if (d == WS__OPENAI && !cJSON_IsFalse(ap))
			return ws__why(why, tool, where, "OpenAI strict needs "
				       "additionalProperties false%s", "");
		cJSON_ArrayForEach(p, props) {
			bool listed = false;

			cJSON_ArrayForEach(r, req)
				listed |= cJSON_IsString(r) &&
					  strcmp(r->valuestring, p->string) == 0;
			if (d == WS__OPENAI && !listed)
				return ws__why(why, tool, where, "OpenAI strict needs every "
					       "property required: \"%s\" is optional",
					       p->string);
			snprintf(sub, sizeof(sub), "%s%s%s", where, *where ? "." : "",
				 p->string);
			if (!ws__check_schema(p, d, tool, sub, why))
				return false;
		}
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "items")) != NULL) {
		snprintf(sub, sizeof(sub), "%s%sitems", where, *where ? "." : "");
		if (!ws__check_schema(k, d, tool, sub, why))
			return false;
	}
	return true;
}

bool
ws_toolset_check(const cJSON *defs, const char *dialect, char **why)
{
	enum ws__dialect d;
	const cJSON *def;

	*why = NULL;
	if (strcmp(dialect, "ajv-strict") == 0)
		d = WS__AJV;
	else if (strcmp(dialect, "gemini") == 0)
		d = WS__GEMINI;
	else if (strcmp(dialect, "openai-strict") == 0)
		d = WS__OPENAI;
	else
		return ws__why(why, "?", "", "unknown dialect \"%s\"", dialect);
	cJSON_ArrayForEach(def, defs) {
		const cJSON *fn = cJSON_GetObjectItemCaseSensitive(def, "function");
		const char *name = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(fn, "name"));
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(fn, "parameters");

		if (name == NULL)
			return ws__why(why, "?", "", "a definition without a name%s", "");
		if (!ws__check_schema(p, d, name, "", why))
			return false;
	}
	return true;
}

/* ---- Adapting ----------------------------------------------------------- */

/* Drop additionalProperties from schema s and what it holds. */
static void
ws__adapt_gemini(cJSON *s)
{
	cJSON *p, *items = cJSON_GetObjectItemCaseSensitive(s, "items");

	cJSON_DeleteItemFromObjectCaseSensitive(s, "additionalProperties");
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(s, "properties"))
		ws__adapt_gemini(p);
	if (cJSON_IsObject(items))
		ws__adapt_gemini(items);
}

int
ws_toolset_adapt(cJSON *defs, const char *dialect)
{
	cJSON *def;

	if (strcmp(dialect, "ajv-strict") == 0)
		return 0;
	if (strcmp(dialect, "gemini") != 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL, "cannot adapt a set "
				    "to \"%s\" (only to gemini; openai-strict needs "
				    "every argument required, which optional ones "
				    "cannot be)", dialect);
	cJSON_ArrayForEach(def, defs)
		ws__adapt_gemini(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(def, "function"), "parameters"));
	return 0;
}
