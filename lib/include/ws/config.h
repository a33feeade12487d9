/*
 * ws/config.h - the configuration file (DESIGN.md section 6) and the
 * JSON-with-comments reader that policies share.
 *
 * The file is --config FILE, else env WS_CONFIG, else
 * $XDG_CONFIG_HOME/wstools/config.json (XDG_CONFIG_HOME defaults to
 * ~/.config), else /etc/wstools/config.json.  A missing default file is
 * fine (it costs one failed open()); a missing --config or WS_CONFIG file
 * is an error.  Form:
 *
 *   {"policies": {"dir": DIR, "default": NAME|FILE,
 *                 "detect_project_root": BOOL, "project_markers": [...]},
 *    "mounts": ["VPREFIX=DIR[:ro]", ...],
 *    "guarded": true | false | ["PATH-OR-GLOB", ...],
 *    "approve": "tty" | "never",
 *    "audit": FILE, "audit_best_effort": BOOL,
 *    "history": BOOL, "state_dir": DIR, "history_max_bytes": N,
 *    "history_max_age": SECONDS, "history_max_file": N,
 *    "limits": {"max_bytes": N, "max_entries": N, ...},
 *    "run": {"env": {"NAME": "VALUE", ...}}}
 *
 * A relative policies.dir is relative to the file's directory.  Unknown
 * keys and wrong types are WS_EINVALID_ARGUMENT naming the key.
 */
#ifndef WS_CONFIG_H
#define WS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct cJSON;

/*
 * Limits a configuration may set for the tools; -1 means "not set" (the
 * tool's own default applies, and a command-line option wins over both).
 */
struct ws_limits {
	long long max_bytes;	/* wsread --max-bytes */
	long long max_entries;	/* wsls --max-entries */
	long long max_results;	/* wsgrep --max-results */
	long long max_filesize; /* wsgrep --max-filesize */
	long long max_output;	/* wsrun --max-output */
	long long max_depth;	/* wsls: recursion is capped at this depth */
	long long timeout;	/* wsrun --timeout, seconds */
	long long time_budget;	/* wsgrep --time-budget, seconds */
	long long scan_bytes;	/* wsread --scan-bytes */
	long long scan_time;	/* wsread --scan-time, seconds */
	long long tmp_size;	/* wsrun --tmp-size, bytes */
};

struct ws_config {
	char *path;		/* the file read, or NULL if none */
	char *policies_dir;	/* absolute, or NULL */
	char *policy_default;	/* NAME or FILE, or NULL */
	bool detect_project_root; /* default true */
	char **markers;		/* NULL: the default list */
	size_t nmarkers;
	char **mounts;		/* "VPREFIX=DIR[:ro]" specs */
	size_t nmounts;
	bool approve_tty;	/* "approve": "tty": ask on /dev/tty */
	char *audit;		/* the audit log (ws/audit.h), or NULL */
	bool audit_best_effort;	/* a log that cannot be written is no error */
	bool history;		/* record changes (default true) */
	char *state_dir;	/* where histories live, or NULL: the default */
	long long hist_max_bytes, hist_max_age, hist_max_file; /* -1: default */
	bool guarded_set;	/* "guarded" replaces the default guards */
	char **guarded;		/* with it: the patterns (none for false) */
	size_t nguarded;
	char **run_env;		/* "NAME=VALUE": wsrun's run.env */
	size_t nrun_env;
	char *view;		/* "view": wsrun's default view, or NULL */
	struct ws_limits limits;
};

/* Defaults: no file, detection on, no limits set. */
void ws_config_init(struct ws_config *cfg);

/*
 * Load the configuration.  explicit is the --config or WS_CONFIG value
 * (NULL: the default locations).  Errors: WS_EINVALID_ARGUMENT (missing
 * explicit file, bad JSON, unknown key, wrong type), WS_ENOMEM.
 */
int ws_config_load(struct ws_config *cfg, const char *explicit);

/* Parse a configuration from text; origin names it in messages. */
int ws_config_parse(struct ws_config *cfg, const char *text,
		    const char *origin);

/* Free what ws_config_load() or ws_config_parse() filled. */
void ws_config_free(struct ws_config *cfg);

/*
 * Parse JSON that may hold // and block comments (outside strings) into
 * *out (cJSON_Delete() it).  Errors carry code (WS_EPOLICY_ERROR for
 * policies, WS_EINVALID_ARGUMENT for the configuration) and name origin
 * with the line and column.
 */
int ws_jsonc_parse(const char *text, int code, const char *origin,
		   struct cJSON **out);

/*
 * Read a whole regular file of at most 1 MiB into *out (NUL-terminated,
 * malloc'd).  Never blocks on a FIFO.  Returns 0, or -errno (ENOENT for a
 * missing file) without recording an error.
 */
int ws_config_read_file(const char *path, char **out);

/*
 * The same for an open descriptor (left open): a regular file of at most
 * 1 MiB into *out.  0, or -errno (EISDIR, EINVAL for another kind,
 * EFBIG).
 */
int ws_config_read_fd(int fd, char **out);

/* Whether the key of member it appears earlier in obj: cJSON keeps both
 * copies of a duplicated key, and a policy or config must not. */
bool ws_jsonc_dup_key(const struct cJSON *obj, const struct cJSON *it);

#endif
