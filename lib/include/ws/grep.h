/*
 * ws/grep.h - searching file contents (and finding files by name) for
 * wsgrep, tool name search_files.
 *
 * ws_grep_compile() checks and compiles the patterns once; ws_grep_run()
 * walks the given paths and searches their files on worker threads that
 * do both (each reads whichever directory or file is next in the walk's
 * order), applies the filters (.gitignore rules through ws/ignore.h,
 * hidden names, globs, types, size) and the policy (list before a
 * directory is entered, read before a file is opened).
 * Results reach the caller's callback from one thread at a time, in a
 * stable order: paths sorted by name within each directory, depth first
 * (the order of `rg --sort path`), lines in file order, whatever thread
 * found them.  Paging (offset, max_results) counts results in that order.
 *
 * Every directory and file is opened relative to the descriptor of the
 * directory that listed it, with O_NOFOLLOW | O_NONBLOCK (a name swapped
 * for a symlink fails, one swapped for a FIFO cannot block), and checked
 * with fstat: only regular files on filesystems that hold data are read,
 * a directory that is its own ancestor is skipped.  Entries listed as
 * FIFOs, sockets and devices are never opened.  A symlink is
 * resolved inside the sandbox (ws_resolve) and its target, if a regular
 * file, is searched under the link's path; a directory symlink is not
 * entered.  Each worker reads through one bounded buffer (a line longer
 * than WS_GREP_LINE_MAX is searched in windows and reported cut), so
 * memory stays bounded whatever the files.
 */
#ifndef WS_GREP_H
#define WS_GREP_H

#include <stdbool.h>
#include <stddef.h>

struct ws_ctx;
struct ws_grep;

#define WS_GREP_LINE_MAX (8 * 1024 * 1024) /* longest line kept whole */

/* What is reported. */
enum ws_grep_mode {
	WS_GREP_LINES,	       /* matching lines (default) */
	WS_GREP_ONLY,	       /* -o: each match alone */
	WS_GREP_FILES_WITH,    /* -l */
	WS_GREP_FILES_WITHOUT, /* -L */
	WS_GREP_COUNT,	       /* -c */
	WS_GREP_LIST,	       /* --files: the files a search would read */
};

/* Options of a search.  Zero-initialize, then set. */
struct ws_grep_opts {
	const char *const *patterns; /* -e PAT..., or the PATTERN (any bytes) */
	size_t npatterns;
	bool fixed;	 /* -F: patterns are literal strings */
	bool icase;	 /* -i */
	bool smart_case; /* -S: -i unless a pattern has an upper-case letter */
	bool word;	 /* -w: whole words */
	bool line;	 /* -x: whole lines */
	bool invert;	 /* -v: lines that do not match */
	bool multiline;	 /* -U: a match may cross lines */
	enum ws_grep_mode mode;
	int before, after;	/* -B, -A */
	long long max_count;	/* per file; 0: unlimited */
	long long max_columns;	/* longest text reported; 0: unlimited */
	const char *const *include, *const *exclude; /* gitignore-style globs */
	size_t ninclude, nexclude;
	const char *const *types, *const *types_not; /* -t, -T */
	size_t ntypes, ntypes_not;
	bool hidden;		/* search names starting with "." */
	bool no_ignore;		/* do not apply .gitignore (.git/ still skipped
				   unless hidden) */
	bool binary;		/* search binary files too */
	long long max_filesize; /* 0: unlimited */
	int max_depth;		/* 0: unlimited */
	long long max_results;	/* 0: unlimited */
	long long offset;	/* results to skip first */
	long long time_budget_ms; /* 0: unlimited */
	int threads;		/* 0: one per CPU this process may use
				   (sched_getaffinity); 1: the calling
				   thread alone */
	bool no_stat;		/* WS_GREP_LIST: size and mtime are not needed,
				   so entries are not stat'ed (types only) */
	/* PCRE2 limits per match attempt; 0: the defaults below. */
	unsigned long match_limit, depth_limit, heap_limit_kib;
};

#define WS_GREP_MATCH_LIMIT 5000000UL
#define WS_GREP_DEPTH_LIMIT 100000UL
#define WS_GREP_HEAP_LIMIT_KIB 16384UL

/* Why an entry was skipped (summary.skipped[]). */
enum ws_grep_skip {
	WS_GREP_SKIP_BINARY,
	WS_GREP_SKIP_IGNORED,
	WS_GREP_SKIP_TOO_LARGE,
	WS_GREP_SKIP_POLICY,
	WS_GREP_SKIP_SYMLINK_OUTSIDE,
	WS_GREP_SKIP_SPECIAL,
	WS_GREP_SKIP_UNREADABLE,
	WS_GREP_SKIP_LOOP,
	WS_GREP_SKIP_COUNT
};

/* The summary's name of a skip reason ("binary", ...). */
const char *ws_grep_skip_name(enum ws_grep_skip s);

/* One result, or a context line, handed to the callback. */
enum ws_grep_kind {
	WS_GREP_MATCH,	 /* a matching line (or with -o one match) */
	WS_GREP_CONTEXT, /* a context line; after says whose */
	WS_GREP_BREAK,	 /* a gap between context groups ("--") */
	WS_GREP_FILE,	 /* -l, -L, --files: a file */
	WS_GREP_COUNT_OF, /* -c: a file's count */
	WS_GREP_BINARY,	 /* --binary: a binary file matches */
};

struct ws_grep_item {
	enum ws_grep_kind kind;
	const char *vpath, *real; /* the file */
	long long line;		  /* 1-based line number */
	long long column;	  /* 1-based byte column of the match */
	const char *text;	  /* the line (without its newline), or the
				     match with -o; not NUL-terminated */
	size_t len;
	bool text_truncated;	  /* cut at max_columns (or a window of a
				     line longer than WS_GREP_LINE_MAX) */
	bool after;		  /* CONTEXT: after the previous match, else
				     before the next one */
	long long count;	  /* COUNT_OF */
	long long size, mtime;	  /* FILE with --files: size, mtime (s) */
};

/*
 * A PATH operand that could not be searched (grep's "grep: x: No such
 * file or directory" while the other operands are searched): the error
 * the operand alone would have failed the call with.
 */
struct ws_grep_operr {
	char *path;	/* as the error names it: the operand as given, or
			   its virtual path once resolved */
	int code;	/* WS_E* */
	char *message;	/* ws_error_last() of the refusal */
	char *hint, *policy, *rule, *operation; /* NULL when absent */
};

/* What a search found, beyond the items. */
struct ws_grep_summary {
	long long files_searched, files_matched, matches;
	long long skipped[WS_GREP_SKIP_COUNT];
	long long results;	    /* results in the stream (with offset) */
	bool truncated;
	const char *truncated_reason; /* "max_results", "time_budget",
					 "match_limit", or NULL */
	char *gave_up;		    /* vpath of the file a limit stopped */
	long long next_offset;	    /* -1: nothing more */
	long long elapsed_ms;
	bool limit_only;	    /* nothing was searched to its end: only
				       limits were hit (LIMIT_EXCEEDED) */
	struct ws_grep_operr *operand_errors; /* in operand order */
	size_t noperand_errors;
};

/*
 * Check and compile the options.  Errors: WS_EINVALID_PATTERN with
 * PCRE2's message and the offset in the pattern given (and that
 * pattern's index in *bad if not NULL), WS_EINVALID_ARGUMENT (unknown
 * type, bad glob), WS_ENOMEM.
 */
int ws_grep_compile(const struct ws_grep_opts *o, struct ws_grep **out,
		    size_t *bad);

/*
 * The callback: return 0 to go on, a negative WS_E* code to stop with it.
 */
typedef int (*ws_grep_cb)(void *arg, const struct ws_grep_item *it);

/*
 * Search paths (virtual paths or any input form; none means "/") in ws
 * with g; results go to cb in order; sum is filled (free it with
 * ws_grep_summary_free()).  Every path is resolved and checked against
 * the policy before anything is searched.  A path that cannot be
 * searched for its own reasons (not found, outside the workspace, a
 * symlink that leaves, refused by the policy, not openable) is never
 * searched: its error goes to sum->operand_errors and the other paths
 * are searched, as grep goes on past a missing operand.  When no path
 * can be searched, the call fails with the first path's error (its code,
 * message and path, as ws_error_last() reports them), and every path's
 * error is in sum->operand_errors all the same.  Returns 0, or a
 * negative code (that error, cb's, or WS_ENOMEM).
 */
int ws_grep_run(struct ws_grep *g, struct ws_ctx *ws,
		const char *const *paths, size_t npaths, ws_grep_cb cb,
		void *arg, struct ws_grep_summary *sum);

void ws_grep_summary_free(struct ws_grep_summary *sum);

/* Free a compiled search (NULL is fine). */
void ws_grep_free(struct ws_grep *g);

/* The built-in type table: name and its globs, for --type-list. */
struct ws_grep_type {
	const char *name;
	const char *globs; /* space-separated */
};
const struct ws_grep_type *ws_grep_types(size_t *n);

#endif
