/*
 * tool_grep.c - search_files (wsgrep) on the tool table: its options,
 * the search (lib/grep.c), and its results as grep -rn's plain lines, as
 * JSON (matches with their context and a summary, paged by max_results
 * and offset; --jsonl streams one object per result), and as the text a
 * model reads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/grep.h"
#include "ws/json.h"
#include "ws/path.h"
#include "ws/read.h"
#include "ws/resolve.h"
#include "ws/tool.h"
#include "ws/walk.h"

enum {
	O_PATTERN, O_REGEXP, O_FILE, O_FIXED, O_ICASE, O_SMART, O_WORD, O_LINE,
	O_INVERT, O_MULTI, O_ONLY, O_FILES_WITH, O_FILES_WITHOUT, O_COUNT,
	O_FILES, O_AFTER, O_BEFORE, O_CONTEXT, O_MAX_COUNT, O_MAX_COLUMNS,
	O_NULL, O_JSONL, O_INCLUDE, O_EXCLUDE, O_TYPE, O_TYPE_NOT, O_TYPE_LIST,
	O_HIDDEN, O_NO_IGNORE, O_MAX_FILESIZE, O_MAX_DEPTH, O_BINARY,
	O_MAX_RESULTS, O_OFFSET, O_TIME_BUDGET, O_STATS, O_UNORDERED,
	O_THREADS, O_NUMBER, O_OUTPUT_MODE, O_QUIET, O_NO_MESSAGES,
	O_WITH_FILENAME, O_NO_FILENAME, O_RECURSIVE, O_DEREF_RECURSIVE,
	O_NO_BINARY, O_EXTENDED, O_PERL, O_COUNT_
};

static const struct ws_opt opts[O_COUNT_] = {
	[O_PATTERN] = {"pattern", 0, WS_OPT_STR, "PATTERN",
		       "the PCRE2 regular expression (or literal with "
		       "fixed_strings) to search for; required unless files is "
		       "true", 0},
	[O_REGEXP] = {"regexp", 'e', WS_OPT_LIST, "PATTERN",
		      "a pattern to search for; repeatable, a line matching "
		      "any of them matches", WS_OPT_NOSCHEMA},
	[O_FILE] = {"file", 'f', WS_OPT_STR, "FILE",
		    "read patterns from FILE in the workspace, one per line",
		    WS_OPT_NOSCHEMA},
	[O_FIXED] = {"fixed-strings", 'F', WS_OPT_FLAG, NULL,
		     "the pattern is a literal string, not a regex", 0},
	[O_ICASE] = {"ignore-case", 'i', WS_OPT_FLAG, NULL,
		     "match case-insensitively", 0},
	[O_SMART] = {"smart-case", 'S', WS_OPT_FLAG, NULL,
		     "case-insensitive unless the pattern has an upper-case "
		     "letter", 0},
	[O_WORD] = {"word-regexp", 'w', WS_OPT_FLAG, NULL,
		    "match whole words only", 0},
	[O_LINE] = {"line-regexp", 'x', WS_OPT_FLAG, NULL,
		    "match whole lines only", 0},
	[O_INVERT] = {"invert-match", 'v', WS_OPT_FLAG, NULL,
		      "report the lines that do not match", 0},
	[O_MULTI] = {"multiline", 'U', WS_OPT_FLAG, NULL,
		     "let a match cross lines (\\n in the pattern)", 0},
	[O_ONLY] = {"only-matching", 'o', WS_OPT_FLAG, NULL,
		    "report each match alone, not its whole line", 0},
	[O_FILES_WITH] = {"files-with-matches", 'l', WS_OPT_FLAG, NULL,
			  "report only the names of files that match", 0},
	[O_FILES_WITHOUT] = {"files-without-match", 'L', WS_OPT_FLAG, NULL,
			     "report only the names of files that do not "
			     "match", 0},
	[O_COUNT] = {"count", 'c', WS_OPT_FLAG, NULL,
		     "report the number of matching lines per file", 0},
	[O_FILES] = {"files", 0, WS_OPT_FLAG, NULL,
		     "list the files a search would read, without searching "
		     "(find files by name with include, e.g. \"**/*.py\")", 0},
	[O_AFTER] = {"after-context", 'A', WS_OPT_INT, "N",
		     "lines of context after each match", 0},
	[O_BEFORE] = {"before-context", 'B', WS_OPT_INT, "N",
		      "lines of context before each match", 0},
	[O_CONTEXT] = {"context", 'C', WS_OPT_INT, "N",
		       "lines of context before and after each match", 0},
	[O_MAX_COUNT] = {"max-count", 'm', WS_OPT_INT, "N",
			 "stop reading a file after N matching lines", 0},
	[O_MAX_COLUMNS] = {"max-columns", 0, WS_OPT_INT, "N",
			   "cut reported lines after N bytes (JSON default "
			   "300; 0: never)", 0},
	[O_NULL] = {"null", '0', WS_OPT_FLAG, NULL,
		    "end file names with a NUL byte (with -l, -L, --files)",
		    WS_OPT_NOSCHEMA},
	[O_JSONL] = {"jsonl", 0, WS_OPT_FLAG, NULL,
		     "one JSON object per result, streamed, then the summary",
		     WS_OPT_NOSCHEMA},
	[O_INCLUDE] = {"include", 0, WS_OPT_LIST, "GLOB",
		       "search only files matching GLOB (gitignore syntax: "
		       "\"*.c\", \"src/**/test_*\"); repeatable", 0},
	[O_EXCLUDE] = {"exclude", 0, WS_OPT_LIST, "GLOB",
		       "skip files and directories matching GLOB; repeatable",
		       0},
	[O_TYPE] = {"type", 't', WS_OPT_LIST, "TYPE",
		    "search only files of TYPE (c, py, js, ...; see "
		    "--type-list)", 0},
	[O_TYPE_NOT] = {"type-not", 'T', WS_OPT_LIST, "TYPE",
			"skip files of TYPE", 0},
	[O_TYPE_LIST] = {"type-list", 0, WS_OPT_FLAG, NULL,
			 "print the file types and their globs, then exit",
			 WS_OPT_NOSCHEMA},
	[O_HIDDEN] = {"hidden", 0, WS_OPT_FLAG, NULL,
		      "search hidden files and directories too", 0},
	[O_NO_IGNORE] = {"no-ignore", 0, WS_OPT_FLAG, NULL,
			 "do not apply .gitignore rules", 0},
	[O_MAX_FILESIZE] = {"max-filesize", 0, WS_OPT_BYTES, "SIZE",
			    "skip files larger than SIZE bytes (a number; K, "
			    "M or G after it for KiB, MiB, GiB)", 0},
	[O_MAX_DEPTH] = {"max-depth", 0, WS_OPT_INT, "N",
			 "descend at most N levels (1: the directory's own "
			 "files)", 0},
	[O_BINARY] = {"binary", 0, WS_OPT_FLAG, NULL,
		      "search binary files too (reported as matching, not "
		      "printed)", 0},
	[O_MAX_RESULTS] = {"max-results", 0, WS_OPT_INT, "N",
			   "return at most N results (JSON default 50; 0: "
			   "all); summary.next_offset pages on", 0},
	[O_OFFSET] = {"offset", 0, WS_OPT_INT, "N",
		      "skip the first N results (paging)", 0},
	[O_TIME_BUDGET] = {"time-budget", 0, WS_OPT_SECONDS, "SECONDS",
			   "stop after SECONDS (a number, fractions "
			   "allowed) with what was found (default: none; 10 "
			   "under --args)", 0},
	[O_STATS] = {"stats", 0, WS_OPT_FLAG, NULL,
		     "print the summary on stderr (plain output)",
		     WS_OPT_NOSCHEMA},
	[O_UNORDERED] = {"unordered", 0, WS_OPT_FLAG, NULL,
			 "results in any order (accepted; the order is "
			 "always sorted, at no cost)", WS_OPT_NOSCHEMA},
	[O_THREADS] = {"threads", 0, WS_OPT_INT, "N",
		       "threads that walk and search (default: one per CPU "
		       "this process may use)",
		       WS_OPT_NOSCHEMA},
	[O_OUTPUT_MODE] = {"output-mode", 0, WS_OPT_STR,
			   "content|files_with_matches|files_without_match|"
			   "count|only_matching|files",
			   "what to return: matching lines (content, the "
			   "default), file names, counts per file, each match "
			   "alone, or the files a search would read", 0},
	[O_NUMBER] = {"line-number", 'n', WS_OPT_FLAG, NULL,
		      "accepted for grep compatibility (lines are always "
		      "numbered)", WS_OPT_NOSCHEMA},
	/*
	 * What scripts pass to grep out of habit.  Each is either what
	 * wsgrep does anyway (accepted, so that "grep -rnI" becomes
	 * "wsgrep -rnI" unchanged) or a plain-output switch; none is offered
	 * to models, whose results are JSON.
	 */
	[O_QUIET] = {"quiet", 'q', WS_OPT_FLAG, NULL,
		     "plain: print nothing; stop at the first match (exit "
		     "status 0 if one was found, 1 if not)", WS_OPT_NOSCHEMA},
	[O_NO_MESSAGES] = {"no-messages", 's', WS_OPT_FLAG, NULL,
			   "plain: do not print the PATHs that cannot be "
			   "searched (the exit status still says so; files "
			   "skipped inside a tree are only counted)",
			   WS_OPT_NOSCHEMA},
	[O_WITH_FILENAME] = {"with-filename", 'H', WS_OPT_FLAG, NULL,
			     "accepted for grep compatibility (names are "
			     "always printed)", WS_OPT_NOSCHEMA},
	[O_NO_FILENAME] = {"no-filename", 0, WS_OPT_FLAG, NULL,
			   "plain: print matching lines without their file "
			   "name (grep -h; -h is --help here)", WS_OPT_NOSCHEMA},
	[O_RECURSIVE] = {"recursive", 'r', WS_OPT_FLAG, NULL,
			 "accepted for grep compatibility (the search is "
			 "always recursive)", WS_OPT_NOSCHEMA},
	[O_DEREF_RECURSIVE] = {"dereference-recursive", 'R', WS_OPT_FLAG,
			       NULL, "accepted for grep compatibility "
			       "(symlinks inside the workspace are followed; "
			       "none leads out)", WS_OPT_NOSCHEMA},
	[O_NO_BINARY] = {"no-binary", 'I', WS_OPT_FLAG, NULL,
			 "skip binary files (the default; grep -I)",
			 WS_OPT_NOSCHEMA},
	[O_EXTENDED] = {"extended-regexp", 'E', WS_OPT_FLAG, NULL,
			"accepted for grep compatibility (patterns are PCRE2, "
			"a superset of extended regexps in practice)",
			WS_OPT_NOSCHEMA},
	[O_PERL] = {"perl-regexp", 'P', WS_OPT_FLAG, NULL,
		    "accepted for grep compatibility (patterns are PCRE2)",
		    WS_OPT_NOSCHEMA},
};

static const struct ws_tool ws__grep_cli = {
	.prog = "wsgrep",
	.tool = "search_files",
	.h_hint = "grep's -h (no file names) is --no-filename here; -h alone "
		  "shows the help",
	/* grep's 1, which --json keeps (success true, no matches): a
	 * script under set -e that reads only --help must learn it here. */
	.exit_help = "0 something matched, 1 nothing matched (also with\n"
		     "--json, where success is true), 2 invalid input, 3 refused by the\n"
		     "sandbox or policy, 4 approval required, 5 filesystem error, 6 limit\n"
		     "exceeded.",
	.description = "Search file contents in the workspace with a PCRE2 "
		       "regular expression (or a literal), like grep -rn, or "
		       "find files by name (output_mode files with include "
		       "globs). "
		       "Skips .git, .gitignore'd, hidden and binary files by "
		       "default. Returns matches (path, line, column, text) "
		       "and a summary; page with offset and summary.next_offset. "
		       "A path that cannot be searched is listed in "
		       "summary.operand_errors (code, message) while the "
		       "others are searched; the call then fails with the "
		       "first one's error, its matches kept.",
	.help = "Search file contents in the workspace with a PCRE2 regular "
		"expression (or a literal, -F), like grep -rn, or find files by "
		"name (--files with --include globs: wsgrep --files --include "
		"'*.py'). Skips .git, .gitignore'd, hidden and binary files by "
		"default. Prints path:line:text; --json returns the matches "
		"(path, line, column, text) and a summary, 50 at a time: "
		"--offset N reads on, N being the summary's next_offset. A PATH "
		"that cannot be searched is reported while the others are "
		"searched, and the exit status is then its error's.",
	.usage = "wsgrep [OPTION]... PATTERN [PATH]...\n"
		 "       wsgrep [OPTION]... -e PATTERN... [PATH]...\n"
		 "       wsgrep --files [OPTION]... [PATH]...",
	.pos_name = "paths",
	.pos_help = "files or directories to search (default: the whole "
		    "workspace, \"/\")",
	.pos_kind = WS_POS_ANY,
	.pos_array = true,
	.opts = opts,
	.nopts = O_COUNT_,
};

struct ctxline {
	char *text;
	size_t len;
};

struct wsgrep {
	struct ws_tcall *c;
	const struct ws_cli *cli;
	long long shown;	/* results in a model's text */
	struct ws_grep_opts o;
	bool json, jsonl, nul, tty, begun, ctx;
	/*
	 * JSON with several PATHs: the envelope is written at the end (see
	 * ws_cli_multi_begin()), so that a PATH that could not be searched
	 * makes it "success": false with the output and the first failed
	 * PATH's error, as wsread and wsls answer for several PATHs.
	 */
	bool buffered;
	struct ws_multi multi;
	bool quiet;	   /* -q: nothing printed */
	bool no_filename;  /* --no-filename: lines without "path:" */
	struct ws_jw jw;
	/* JSON: the match whose "after" lines are still coming. */
	bool open;
	struct ctxline *before;
	size_t nbefore, capbefore;
	/* Plain: for the "--" between groups. */
	char *last_path;
	long long last_line;
	bool printed;
};

/* ------------------------------------------------------------------ */
/* Options                                                             */

/* Patterns from -f FILE, read through the workspace like any file. */
static int
read_pattern_file(struct ws_ctx *ws, const char *path, const char ***pats,
		  size_t *n, char **store)
{
	struct ws_res res = {.fd = -1, .dirfd = -1};
	struct ws_read r = {0};
	struct ws_read_opts ro = {0};
	char *p;
	int rc;

	rc = ws_read_file(ws, path, &ro, &res, &r);
	ws_res_free(&res);
	if (rc < 0)
		return rc;
	*store = malloc(r.len + 1);
	if (*store == NULL) {
		ws_read_free(&r);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	memcpy(*store, r.data ? r.data : "", r.len);
	(*store)[r.len] = '\0';
	ws_read_free(&r);
	p = *store;
	while (*p) {
		char *nl = strchr(p, '\n');
		const char **np;

		if (nl)
			*nl = '\0';
		np = realloc(*pats, (*n + 1) * sizeof(*np));
		if (np == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		*pats = np;
		(*pats)[(*n)++] = p;
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

static int
get_opts(struct wsgrep *g, struct ws_cli *cli, struct ws_ctx *ws,
	 const char ***pats, char **store, const char *const **paths,
	 size_t *npaths)
{
	struct ws_grep_opts *o = &g->o;
	size_t np = 0;
	int rc;
	static const int nonneg[] = {O_AFTER, O_BEFORE, O_CONTEXT, O_MAX_COUNT,
				     O_MAX_COLUMNS, O_MAX_DEPTH, O_MAX_RESULTS,
				     O_OFFSET, O_THREADS};

	for (size_t i = 0; i < sizeof(nonneg) / sizeof(nonneg[0]); i++) {
		const struct ws_optval *v = WS_OPT(cli, nonneg[i]);

		if (v->set && v->i < 0)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "--%s must be 0 or more, not %lld",
					    opts[nonneg[i]].name, v->i);
	}
	memset(o, 0, sizeof(*o));
	*pats = NULL;
	if (WS_OPT(cli, O_OUTPUT_MODE)->set) {
		/* The agents' spelling of -l, -L, -c, -o and --files. */
		static const struct {
			const char *name;
			int opt;
		} m[] = {{"files_with_matches", O_FILES_WITH},
			 {"files_without_match", O_FILES_WITHOUT},
			 {"count", O_COUNT}, {"only_matching", O_ONLY},
			 {"files", O_FILES}, {"content", -1}};
		const char *s = WS_OPT(cli, O_OUTPUT_MODE)->s;
		size_t i;

		for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
			if (strcmp(m[i].name, s) == 0)
				break;
		if (i == sizeof(m) / sizeof(m[0]))
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "%s \"%s\": expected content, "
					    "files_with_matches, "
					    "files_without_match, count, "
					    "only_matching or files",
					    cli->from_args ? "output_mode" :
					    "--output-mode", s);
		if (m[i].opt >= 0) {
			cli->vals[m[i].opt].set = true;
			cli->vals[m[i].opt].b = true;
		}
	}
	*store = NULL;
	/* Patterns: -e and -f, else --pattern (JSON), else the first
	 * positional. */
	if (WS_OPT(cli, O_REGEXP)->set) {
		const struct ws_optval *v = WS_OPT(cli, O_REGEXP);

		*pats = calloc(v->n + 1, sizeof(**pats));
		if (*pats == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		for (size_t i = 0; i < v->n; i++)
			(*pats)[np++] = v->list[i];
	}
	if (WS_OPT(cli, O_FILE)->set &&
	    (rc = read_pattern_file(ws, WS_OPT(cli, O_FILE)->s, pats, &np,
				    store)) < 0)
		return rc;
	*paths = cli->pos;
	*npaths = cli->npos;
	if (np == 0 && !WS_OPT(cli, O_FILES)->b) {
		const char *p = NULL;

		if (WS_OPT(cli, O_PATTERN)->set) {
			p = WS_OPT(cli, O_PATTERN)->s;
		} else if (cli->npos > 0 && !cli->from_args) {
			p = cli->pos[0];
			(*paths)++;
			(*npaths)--;
		}
		if (p == NULL)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    cli->from_args ?
					    "\"pattern\" is required (or "
					    "output_mode \"files\")" :
					    "missing PATTERN (see --help)");
		*pats = realloc(*pats, (np + 1) * sizeof(**pats));
		if (*pats == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		(*pats)[np++] = p;
	}
	o->patterns = *pats;
	o->npatterns = np;
	o->fixed = WS_OPT(cli, O_FIXED)->b;
	o->icase = WS_OPT(cli, O_ICASE)->b;
	o->smart_case = WS_OPT(cli, O_SMART)->b;
	o->word = WS_OPT(cli, O_WORD)->b;
	o->line = WS_OPT(cli, O_LINE)->b;
	o->invert = WS_OPT(cli, O_INVERT)->b;
	o->multiline = WS_OPT(cli, O_MULTI)->b;
	{
		int nm = WS_OPT(cli, O_FILES_WITH)->b + WS_OPT(cli, O_FILES_WITHOUT)->b +
			 WS_OPT(cli, O_COUNT)->b + WS_OPT(cli, O_FILES)->b;

		if (nm > 1)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "-l, -L, -c and --files exclude each "
					    "other");
	}
	o->mode = WS_OPT(cli, O_FILES)->b ? WS_GREP_LIST :
		  WS_OPT(cli, O_FILES_WITH)->b ? WS_GREP_FILES_WITH :
		  WS_OPT(cli, O_FILES_WITHOUT)->b ? WS_GREP_FILES_WITHOUT :
		  WS_OPT(cli, O_COUNT)->b ? WS_GREP_COUNT :
		  WS_OPT(cli, O_ONLY)->b ? WS_GREP_ONLY : WS_GREP_LINES;
	if (WS_OPT(cli, O_CONTEXT)->set)
		o->before = o->after = (int)WS_OPT(cli, O_CONTEXT)->i;
	if (WS_OPT(cli, O_BEFORE)->set)
		o->before = (int)WS_OPT(cli, O_BEFORE)->i;
	if (WS_OPT(cli, O_AFTER)->set)
		o->after = (int)WS_OPT(cli, O_AFTER)->i;
	if (o->mode != WS_GREP_LINES)
		o->before = o->after = 0;
	g->ctx = o->before > 0 || o->after > 0;
	o->max_count = WS_OPT(cli, O_MAX_COUNT)->i;
	o->max_columns = WS_OPT(cli, O_MAX_COLUMNS)->set ?
			 WS_OPT(cli, O_MAX_COLUMNS)->i : g->json ? 300 : 0;
	o->include = WS_OPT(cli, O_INCLUDE)->list;
	o->ninclude = WS_OPT(cli, O_INCLUDE)->n;
	o->exclude = WS_OPT(cli, O_EXCLUDE)->list;
	o->nexclude = WS_OPT(cli, O_EXCLUDE)->n;
	o->types = WS_OPT(cli, O_TYPE)->list;
	o->ntypes = WS_OPT(cli, O_TYPE)->n;
	o->types_not = WS_OPT(cli, O_TYPE_NOT)->list;
	o->ntypes_not = WS_OPT(cli, O_TYPE_NOT)->n;
	o->hidden = WS_OPT(cli, O_HIDDEN)->b;
	o->no_ignore = WS_OPT(cli, O_NO_IGNORE)->b;
	o->binary = WS_OPT(cli, O_BINARY)->b;
	if (WS_OPT(cli, O_MAX_FILESIZE)->set) {
		if (WS_OPT(cli, O_MAX_FILESIZE)->i < 0)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "--max-filesize must be 0 or more");
		o->max_filesize = WS_OPT(cli, O_MAX_FILESIZE)->i;
	}
	o->max_depth = (int)WS_OPT(cli, O_MAX_DEPTH)->i;
	if (WS_OPT(cli, O_MAX_DEPTH)->set && o->max_depth == 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--max-depth must be at least 1");
	o->max_results = WS_OPT(cli, O_MAX_RESULTS)->set ?
			 WS_OPT(cli, O_MAX_RESULTS)->i : g->json && !g->jsonl ?
			 50 : 0;
	o->offset = WS_OPT(cli, O_OFFSET)->i;
	/*
	 * No budget on the command line (grep and rg search everything):
	 * only a model's call (--args: wstools call, MCP) gets 10 seconds
	 * by default; --time-budget and the configuration set one anywhere.
	 */
	o->time_budget_ms = cli->from_args ? 10000 : 0;
	if (WS_OPT(cli, O_TIME_BUDGET)->set) {
		/* Milliseconds (WS_OPT_SECONDS). */
		long long ms = WS_OPT(cli, O_TIME_BUDGET)->i;

		if (ms < 0 || ms > 86400 * 1000LL)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "--time-budget: expected seconds "
					    "(0 to 86400; 0: none)");
		o->time_budget_ms = ms;
	}
	o->threads = (int)WS_OPT(cli, O_THREADS)->i;
	o->no_stat = !g->json;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */

static void
kpath(struct wsgrep *g, const struct ws_grep_item *it)
{
	ws_jw_kname(&g->jw, "path", it->vpath);
	ws_cli_kreal(g->cli, &g->jw, "real_path", it->real);
}

/* "text" (and "text_bytes" when it is not UTF-8). */
static void
ktext(struct wsgrep *g, const char *key, const char *s, size_t n)
{
	ws_jw_key(&g->jw, key);
	ws_jw_strn(&g->jw, s, n);
	if (!ws_utf8_valid(s, n)) {
		char k[64];

		snprintf(k, sizeof(k), "%s_bytes", key);
		ws_jw_key(&g->jw, k);
		ws_jw_base64(&g->jw, s, n);
	}
}

static void
begin(struct wsgrep *g)
{
	if (g->begun)
		return;
	g->begun = true;
	if (!g->json || g->jsonl)
		return;
	if (g->buffered && ws_tcall_multi_begin(g->c, &g->jw) < 0)
		g->buffered = false; /* no memory: stream, as for one PATH */
	if (!g->buffered)
		ws_tcall_begin(g->c, &g->jw);
	ws_jw_obj(&g->jw);
	ws_jw_key(&g->jw, g->o.mode == WS_GREP_LIST ||
		  g->o.mode == WS_GREP_FILES_WITH ||
		  g->o.mode == WS_GREP_FILES_WITHOUT ? "files" :
		  g->o.mode == WS_GREP_COUNT ? "counts" : "matches");
	ws_jw_arr(&g->jw);
}

static void
close_match(struct wsgrep *g)
{
	if (!g->open)
		return;
	if (g->ctx) {
		ws_jw_arr_end(&g->jw); /* after */
	}
	ws_jw_obj_end(&g->jw);
	if (g->jsonl)
		fputc('\n', ws_out());
	g->open = false;
}

static void
drop_before(struct wsgrep *g)
{
	for (size_t i = 0; i < g->nbefore; i++)
		free(g->before[i].text);
	g->nbefore = 0;
}

/*
 * A model's text, one line a result: PATH:LINE:TEXT for a match (as grep
 * -rn), PATH:COUNT for a count (as grep -c), PATH for a file.
 */
static void
text_item(struct wsgrep *g, const struct ws_grep_item *it)
{
	FILE *f = g->c->text;

	if (g->c->mode != WS_TCALL_MODEL)
		return;
	g->shown++;
	ws_tcall_put_name(f, it->vpath ? it->vpath : "?");
	if (it->kind == WS_GREP_COUNT_OF) {
		fprintf(f, ":%lld\n", (long long)it->count);
		return;
	}
	if (it->kind == WS_GREP_MATCH) {
		size_t n = 0, bad = 0;
		char *fixed = ws_utf8_valid(it->text, it->len) ? NULL :
			      ws_read_utf8_fix(it->text, it->len, &n, &bad);

		fprintf(f, ":%lld:", (long long)it->line);
		if (fixed != NULL)
			fwrite(fixed, 1, n, f);
		else
			fwrite(it->text, 1, it->len, f);
		free(fixed);
	}
	fputc('\n', f);
}

/*
 * The end of a model's text: "no matches" (or "no files"), where a page
 * stopped with what is known of the total and the offset to read on with
 * (the search stops at the first result past the page, so the total is
 * only known to be more), then the paths not searched.
 */
static void
text_end(struct wsgrep *g, const struct ws_grep_summary *s)
{
	FILE *f = g->c->text;
	bool files = g->o.mode == WS_GREP_LIST || g->o.mode == WS_GREP_FILES_WITH ||
		     g->o.mode == WS_GREP_FILES_WITHOUT;

	if (g->c->mode != WS_TCALL_MODEL)
		return;
	if (g->shown == 0)
		fputs(files ? "no files\n" : "no matches\n", f);
	if (s->truncated) {
		const char *why = s->truncated_reason ? s->truncated_reason : "limit";

		if (s->next_offset >= 0)
			fprintf(f, "[truncated (%s): results %lld-%lld of more than "
				"%lld; read on with offset=%lld]\n", why,
				s->next_offset - g->shown + 1, s->next_offset,
				s->next_offset, s->next_offset);
		else
			fprintf(f, "[truncated: %s]\n", why);
	}
	for (size_t i = 0; i < s->noperand_errors; i++) {
		const struct ws_grep_operr *e = &s->operand_errors[i];
		char *full = NULL;

		if (e->path != NULL && asprintf(&full, "%s: %s", e->path, e->message) < 0)
			full = NULL;
		fputs("[not searched: ", f);
		ws_tcall_put_name(f, full ? full : e->message ? e->message : "?");
		fprintf(f, " (%s)]\n", ws_error_name(e->code));
		free(full);
	}
}

static int
on_item_json(struct wsgrep *g, const struct ws_grep_item *it)
{
	switch (it->kind) {
	case WS_GREP_BREAK:
		return 0;
	case WS_GREP_CONTEXT:
		if (it->after && g->open) {
			ws_jw_strn(&g->jw, it->text, it->len);
			return 0;
		}
		if (g->nbefore == g->capbefore) {
			size_t nc = g->capbefore ? g->capbefore * 2 : 8;
			struct ctxline *a = realloc(g->before, nc * sizeof(*a));

			if (a == NULL)
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			g->before = a;
			g->capbefore = nc;
		}
		g->before[g->nbefore].text = malloc(it->len + 1);
		if (g->before[g->nbefore].text == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		memcpy(g->before[g->nbefore].text, it->text, it->len);
		g->before[g->nbefore++].len = it->len;
		return 0;
	default:
		break;
	}
	close_match(g);
	if (g->jsonl)
		ws_jw_init(&g->jw, ws_out());
	ws_jw_obj(&g->jw);
	if (g->jsonl)
		ws_jw_kstr(&g->jw, "type", it->kind == WS_GREP_FILE ? "file" :
			   it->kind == WS_GREP_COUNT_OF ? "count" : "match");
	kpath(g, it);
	text_item(g, it);
	switch (it->kind) {
	case WS_GREP_FILE:
		if (g->o.mode == WS_GREP_LIST) {
			ws_jw_kint(&g->jw, "size", it->size);
			{
				char t[32];

				ws_walk_time(it->mtime, t);
				ws_jw_kstr(&g->jw, "mtime", t);
			}
		}
		ws_jw_obj_end(&g->jw);
		if (g->jsonl)
			fputc('\n', ws_out());
		return 0;
	case WS_GREP_COUNT_OF:
		ws_jw_kint(&g->jw, "count", it->count);
		ws_jw_obj_end(&g->jw);
		if (g->jsonl)
			fputc('\n', ws_out());
		return 0;
	case WS_GREP_BINARY:
		ws_jw_kbool(&g->jw, "binary", true);
		ws_jw_obj_end(&g->jw);
		if (g->jsonl)
			fputc('\n', ws_out());
		return 0;
	default:
		break;
	}
	ws_jw_kint(&g->jw, "line", it->line);
	if (it->column > 0)
		ws_jw_kint(&g->jw, "column", it->column);
	ktext(g, "text", it->text, it->len);
	if (it->text_truncated)
		ws_jw_kbool(&g->jw, "text_truncated", true);
	if (g->ctx) {
		ws_jw_key(&g->jw, "before");
		ws_jw_arr(&g->jw);
		for (size_t i = 0; i < g->nbefore; i++)
			ws_jw_strn(&g->jw, g->before[i].text, g->before[i].len);
		ws_jw_arr_end(&g->jw);
		ws_jw_key(&g->jw, "after");
		ws_jw_arr(&g->jw);
	}
	drop_before(g);
	g->open = true;
	return 0;
}

/* Plain: "--" between context groups, as grep prints it. */
static void
plain_break(struct wsgrep *g, const struct ws_grep_item *it)
{
	bool same = g->last_path && strcmp(g->last_path, it->vpath) == 0;

	if (g->ctx && g->printed && (!same || it->line > g->last_line + 1))
		fputs("--\n", ws_out());
	if (!same) {
		free(g->last_path);
		g->last_path = strdup(it->vpath);
	}
	g->last_line = it->line;
	g->printed = true;
}

/*
 * "path:N:" (or "path-N-" for context) without printf: this is the hot
 * loop of a search with many matches.
 */
static void
plain_prefix(struct wsgrep *g, const char *show, unsigned long long n,
	     char sep)
{
	char num[32], *p = num + sizeof(num);

	if (!g->no_filename)
		ws_cli_put_text(ws_out(), show, g->tty);
	*--p = sep;
	do {
		*--p = (char)('0' + n % 10);
		n /= 10;
	} while (n > 0);
	if (!g->no_filename)
		*--p = sep;
	fwrite_unlocked(p, 1, (size_t)(num + sizeof(num) - p), ws_out());
}

static int
on_item_plain(struct wsgrep *g, const struct ws_grep_item *it)
{
	const char *show = ws_cli_show_path(g->cli, it->vpath, it->real);

	switch (it->kind) {
	case WS_GREP_BREAK:
		return 0;
	case WS_GREP_FILE:
		ws_cli_put_text(ws_out(), show, g->tty);
		fputc(g->nul ? '\0' : '\n', ws_out());
		return 0;
	case WS_GREP_COUNT_OF:
		if (!g->no_filename) {
			ws_cli_put_text(ws_out(), show, g->tty);
			fputc(':', ws_out());
		}
		fprintf(ws_out(), "%lld\n", it->count);
		return 0;
	case WS_GREP_BINARY:
		fputs("Binary file ", ws_out());
		ws_cli_put_text(ws_out(), show, g->tty);
		fputs(" matches\n", ws_out());
		return 0;
	default:
		break;
	}
	plain_break(g, it);
	/*
	 * A multiline match (-U) spans lines: each gets its own "path:N:",
	 * as rg prints them, so that every output line says where it is.
	 */
	const char *t = it->text, *end = it->text + it->len;
	unsigned long long line = (unsigned long long)it->line;

	for (;;) {
		const char *nl = t < end ? memchr(t, '\n', (size_t)(end - t)) : NULL;
		const char *seg_end = nl != NULL ? nl : end;

		plain_prefix(g, show, line++, it->kind == WS_GREP_MATCH ? ':' : '-');
		fwrite_unlocked(t, 1, (size_t)(seg_end - t), ws_out());
		if (nl == NULL)
			break;
		fputc('\n', ws_out());
		t = nl + 1;
	}
	/* A group goes on after the match's last line, not its first. */
	g->last_line = (long long)line - 1;
	if (it->text_truncated)
		fputs(" [...]", ws_out());
	fputc('\n', ws_out());
	return 0;
}

static int
on_item(void *arg, const struct ws_grep_item *it)
{
	struct wsgrep *g = arg;

	if (g->quiet)
		return 0;
	begin(g);
	if (g->json)
		return on_item_json(g, it);
	return on_item_plain(g, it);
}

static void
put_summary(struct wsgrep *g, const struct ws_grep_summary *s)
{
	struct ws_jw *jw = &g->jw;

	ws_jw_obj(jw);
	if (g->jsonl)
		ws_jw_kstr(jw, "type", "summary");
	ws_jw_kint(jw, "files_searched", s->files_searched);
	ws_jw_kint(jw, "files_matched", s->files_matched);
	ws_jw_kint(jw, "matches", s->matches);
	ws_jw_kint(jw, "results", s->results);
	ws_jw_key(jw, "files_skipped");
	ws_jw_obj(jw);
	for (int k = 0; k < WS_GREP_SKIP_COUNT; k++)
		ws_jw_kint(jw, ws_grep_skip_name(k), s->skipped[k]);
	ws_jw_obj_end(jw);
	ws_jw_kbool(jw, "truncated", s->truncated);
	ws_jw_kstr(jw, "truncated_reason", s->truncated_reason);
	if (s->gave_up != NULL)
		ws_jw_kname(jw, "gave_up_on", s->gave_up);
	if (s->next_offset >= 0)
		ws_jw_kint(jw, "next_offset", s->next_offset);
	else
		ws_jw_knull(jw, "next_offset");
	ws_jw_kint(jw, "elapsed_ms", s->elapsed_ms);
	/* The PATHs not searched, each as the error it alone would give. */
	if (s->noperand_errors > 0) {
		ws_jw_key(jw, "operand_errors");
		ws_jw_arr(jw);
		for (size_t i = 0; i < s->noperand_errors; i++) {
			const struct ws_grep_operr *e = &s->operand_errors[i];
			struct ws_err_extra x = {e->hint, e->policy, e->rule,
						 e->operation};

			ws_cli_error_obj(g->cli, jw, e->code, e->message,
					 e->path, &x);
		}
		ws_jw_arr_end(jw);
	}
	ws_jw_obj_end(jw);
}

/*
 * Plain: one line per PATH that could not be searched, as grep says
 * "grep: x: No such file or directory" and goes on; -s keeps quiet.
 */
static void
warn_operands(struct wsgrep *g, const struct ws_grep_summary *s)
{
	if (g->json || WS_OPT(g->cli, O_NO_MESSAGES)->b)
		return;
	for (size_t i = 0; i < s->noperand_errors; i++) {
		const struct ws_grep_operr *e = &s->operand_errors[i];
		char *m = ws_cli_args_terms(g->cli, e->message);

		ws_cli_warn(g->cli, e->path, m ? m : e->message, e->code);
		free(m);
		if (e->hint != NULL) {
			fputs("wsgrep: hint: ", stderr);
			ws_cli_put_text(stderr, e->hint, true);
			fputc('\n', stderr);
		}
	}
}

static void
print_end(struct wsgrep *g, const struct ws_grep_summary *s)
{
	/* -q stopped at its first result on purpose: nothing to say. */
	if (g->quiet)
		return;
	begin(g);
	if (g->json) {
		close_match(g);
		if (g->jsonl) {
			ws_jw_init(&g->jw, ws_out());
			put_summary(g, s);
			fputc('\n', ws_out());
			return;
		}
		ws_jw_arr_end(&g->jw);
		ws_jw_key(&g->jw, "summary");
		put_summary(g, s);
		ws_jw_obj_end(&g->jw);
		text_end(g, s);
		if (!g->buffered) {
			ws_tcall_end(g->c, &g->jw);
			return;
		}
		for (size_t i = 0; i < s->noperand_errors; i++) {
			const struct ws_grep_operr *e = &s->operand_errors[i];

			ws_error_set(e->code, e->path, "%s", e->message);
			if (e->hint != NULL)
				ws_error_set_hint("%s", e->hint);
			if (e->policy != NULL || e->rule != NULL || e->operation != NULL)
				ws_error_set_policy(e->policy, e->rule, e->operation);
			ws_tcall_multi_fail(g->c, e->code, e->path);
		}
		/* The exit status is the caller's (the same first error). */
		(void)ws_tcall_multi_end(g->c, false);
		return;
	}
	if (WS_OPT(g->cli, O_STATS)->b) {
		fprintf(stderr, "wsgrep: %lld files searched, %lld matched, %lld "
			"matches, %lld ms", s->files_searched, s->files_matched,
			s->matches, s->elapsed_ms);
		for (int k = 0; k < WS_GREP_SKIP_COUNT; k++)
			if (s->skipped[k] > 0)
				fprintf(stderr, ", %lld skipped (%s)", s->skipped[k],
					ws_grep_skip_name(k));
		fputc('\n', stderr);
	}
	/*
	 * Files the policy kept from the search: without a word, "no match"
	 * (exit 1) reads as "not there" when the answer may be in a file the
	 * caller may not read. wsls says the same of entries it hides; -s
	 * keeps quiet, as it does about PATHs that could not be searched.
	 */
	/* --files searches nothing, so there they are "not listed"; the
	 * names stay withheld, and wspath tells why for a path one suspects
	 * (ftu17 06). */
	if (s->skipped[WS_GREP_SKIP_POLICY] > 0 &&
	    !WS_OPT(g->cli, O_NO_MESSAGES)->b)
		fprintf(stderr, "wsgrep: %lld %s not %s: the policy refuses "
			"reading %s (wspath --explain --op read PATH, with the "
			"same --policy, names the rule)\n",
			s->skipped[WS_GREP_SKIP_POLICY],
			s->skipped[WS_GREP_SKIP_POLICY] == 1 ? "entry" : "entries",
			WS_OPT(g->cli, O_FILES)->b ? "listed" : "searched",
			s->skipped[WS_GREP_SKIP_POLICY] == 1 ? "it" : "them");
	if (s->truncated && s->truncated_reason != NULL) {
		fprintf(stderr, "wsgrep: results cut (%s)", s->truncated_reason);
		if (s->gave_up != NULL)
			fprintf(stderr, ", gave up on %s", s->gave_up);
		if (s->next_offset >= 0)
			fprintf(stderr, "; --offset %lld continues",
				s->next_offset);
		fputc('\n', stderr);
	}
}

static void
print_types(void)
{
	size_t n;
	const struct ws_grep_type *t = ws_grep_types(&n);

	for (size_t i = 0; i < n; i++)
		fprintf(ws_out(), "%s: %s\n", t[i].name, t[i].globs);
}

/* Before the workspace opens: --type-list, and --jsonl's JSON errors. */
static int
grep_check(struct ws_cli *cli)
{
	if (WS_OPT(cli, O_TYPE_LIST)->b) {
		print_types();
		return 1;
	}
	if (WS_OPT(cli, O_JSONL)->b)
		cli->json = true;
	return 0;
}

/*
 * A glob given where a regular expression or a path goes ("wsgrep
 * '*.py'", "wsgrep hello '*.c'") is what people and models both type to
 * find files by name: the hint says how, in the caller's terms (flags
 * on the command line, argument names under --args and over MCP).
 */
static bool
glob_like(const char *s)
{
	return s != NULL && strpbrk(s, "*?[") != NULL;
}

static void
hint_glob_pattern(const struct ws_cli *cli, const char *pat)
{
	if (pat == NULL || (pat[0] != '*' && pat[0] != '?'))
		return;
	if (cli->from_args)
		ws_error_set_hint("pattern is a regular expression, not a glob: "
				  "to find files by name, send output_mode "
				  "\"files\" with include [\"%s\"]; to search "
				  "only those files, send include [\"%s\"] "
				  "and a regular expression as pattern", pat,
				  pat);
	else
		ws_error_set_hint("PATTERN is a regular expression, not a glob: "
				  "to find files by name, wsgrep --files "
				  "--include '%s'; to search only those files, "
				  "wsgrep PATTERN --include '%s'", pat, pat);
}

static char *
glob_path_hint(const struct ws_cli *cli, const char *path, bool files)
{
	char *h = NULL;
	const char *base = strrchr(path, '/');

	/* A glob after a directory: the last name is the include glob. */
	base = base != NULL && base[1] != '\0' ? base + 1 : path;
	if (cli->from_args) {
		if (asprintf(&h, "paths are files or directories, not globs: "
			     "send include [\"%s\"] instead%s", base,
			     files ? "" : " (with pattern, the regular "
			     "expression)") < 0)
			h = NULL;
	} else if (asprintf(&h, "PATH is a file or directory, not a glob: "
			    "say %s--include '%s' instead", files ?
			    "wsgrep --files " : "", base) < 0) {
		h = NULL;
	}
	return h;
}

/* Hint every operand given as a glob that names no file. */
static void
hint_glob_operands(const struct wsgrep *g, struct ws_grep_summary *s, int rc)
{
	bool files = g->o.mode == WS_GREP_LIST;

	for (size_t i = 0; i < s->noperand_errors; i++) {
		struct ws_grep_operr *e = &s->operand_errors[i];
		char *h;

		if (e->code != WS_ENOT_FOUND || !glob_like(e->path) ||
		    (h = glob_path_hint(g->cli, e->path, files)) == NULL)
			continue;
		free(e->hint);
		e->hint = h;
	}
	if (rc == WS_ENOT_FOUND && glob_like(ws_error_last_path())) {
		char *h = glob_path_hint(g->cli, ws_error_last_path(), files);

		if (h != NULL)
			ws_error_set_hint("%s", h);
		free(h);
	}
}

static int
grep_run(struct ws_tcall *c)
{
	struct ws_cli *cli = c->cli;
	struct wsgrep g = {0};
	struct ws_grep *cg = NULL;
	struct ws_grep_summary sum = {0};
	const char **pats = NULL;
	const char *const *paths = NULL;
	char *store = NULL;
	size_t npaths = 0, bad = 0;
	int rc, status = 0;

	g.c = c;
	g.cli = cli;
	/* A model's call answers one object (jsonl is for pipes). */
	g.jsonl = WS_OPT(cli, O_JSONL)->b && c->mode == WS_TCALL_CLI;
	g.json = cli->json;
	g.nul = WS_OPT(cli, O_NULL)->b;
	g.quiet = WS_OPT(cli, O_QUIET)->b && !g.json;
	g.no_filename = WS_OPT(cli, O_NO_FILENAME)->b;
	g.tty = ws_out_is_stdout() && isatty(1);
	if ((rc = get_opts(&g, cli, c->ws, &pats, &store, &paths, &npaths)) < 0)
		goto fail;
	/* -q: the first result decides the exit status; no need for more. */
	if (g.quiet)
		g.o.max_results = 1;
	if ((rc = ws_grep_compile(&g.o, &cg, &bad)) < 0) {
		if (rc == WS_EINVALID_PATTERN && !g.o.fixed &&
		    bad < g.o.npatterns)
			hint_glob_pattern(cli, g.o.patterns[bad]);
		goto fail;
	}
	g.buffered = g.json && !g.jsonl && npaths > 1;
	rc = ws_grep_run(cg, c->ws, paths, npaths, on_item, &g, &sum);
	hint_glob_operands(&g, &sum, rc);
	/*
	 * No PATH could be searched: plain mode names each, as grep does,
	 * and -s keeps quiet about them (grep -s prints nothing); the
	 * status is the first one's error's.  JSON fails with the first.
	 */
	if (rc < 0 && !g.begun && sum.noperand_errors > 0 && !g.json) {
		warn_operands(&g, &sum);
		status = ws_error_exit_status(rc);
		goto out;
	}
	if (rc < 0 && !g.begun)
		goto fail;
	if (rc < 0) {
		/* Output has begun: finish it, and say what went wrong. */
		if (g.buffered)
			ws_tcall_multi_fail(c, rc, ws_error_last_path());
		ws_cli_warn(cli, NULL, ws_error_last(), rc);
		print_end(&g, &sum);
		status = ws_error_exit_status(rc);
		goto out;
	}
	warn_operands(&g, &sum);
	if (sum.limit_only && !g.begun) {
		rc = ws_error_set(WS_ELIMIT_EXCEEDED, sum.gave_up,
				  "nothing could be searched within the limits "
				  "(%s)%s%s", sum.truncated_reason,
				  sum.gave_up ? ": gave up on " : "",
				  sum.gave_up ? sum.gave_up : "");
		goto fail;
	}
	print_end(&g, &sum);
	status = sum.matches > 0 || (sum.results > 0) ||
		 (g.o.mode == WS_GREP_FILES_WITHOUT && sum.results > 0) ? 0 : 1;
	if (g.o.mode == WS_GREP_LIST || g.o.mode == WS_GREP_FILES_WITHOUT)
		status = sum.results > 0 || sum.truncated ? 0 : 1;
	/*
	 * A PATH not searched makes the status its error's, as grep exits 2
	 * after "No such file" whatever matched elsewhere; -q that found a
	 * match exits 0 all the same, as grep -q does.
	 */
	if (sum.noperand_errors > 0 && !(g.quiet && status == 0))
		status = ws_error_exit_status(sum.operand_errors[0].code);
	goto out;
fail:
	status = ws_tcall_fail(c, rc);
out:
	drop_before(&g);
	free(g.before);
	free(g.last_path);
	ws_grep_summary_free(&sum);
	ws_grep_free(cg);
	free(pats);
	free(store);
	return status;
}

const struct ws_tool_def ws_tool_search_files = {
	.name = "search_files",
	.cli = &ws__grep_cli,
	.title = "Search file contents",
	.ro = true,
	.destructive = false,
	.idempotent = true,
	.output_schema =
	"{\"type\":\"object\",\"properties\":{\"matches\":{\"type\":\"array\","
	"\"items\":{\"type\":\"object\"}},\"files\":{\"type\":\"array\"},"
	"\"counts\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
	"\"summary\":{\"type\":\"object\"}}}",
	.check = grep_check,
	.run = grep_run,
};
