/* config.c - the configuration file and JSON with comments. */
#include "ws/config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/json.h"
#include "ws/path.h"
#include "ws/pending.h"

#define WS__CONFIG_MAX (1 << 20)

void
ws_config_init(struct ws_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->detect_project_root = true;
	cfg->history = true;
	cfg->hist_max_bytes = cfg->hist_max_age = cfg->hist_max_file = -1;
	cfg->limits = (struct ws_limits){-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
}

static void
ws__strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
ws_config_free(struct ws_config *cfg)
{
	free(cfg->path);
	free(cfg->policies_dir);
	free(cfg->policy_default);
	free(cfg->audit);
	free(cfg->state_dir);
	ws__strv_free(cfg->markers, cfg->nmarkers);
	ws__strv_free(cfg->mounts, cfg->nmounts);
	ws__strv_free(cfg->guarded, cfg->nguarded);
	ws__strv_free(cfg->run_env, cfg->nrun_env);
	free(cfg->view);
	ws_config_init(cfg);
}

int
ws_config_read_fd(int fd, char **out)
{
	struct stat st;
	char *buf;
	size_t n = 0;

	*out = NULL;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if (st.st_size > WS__CONFIG_MAX)
		return -EFBIG;
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL)
		return -ENOMEM;
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

int
ws_config_read_file(const char *path, char **out)
{
	int fd, rc;

	*out = NULL;
	/* O_NONBLOCK: a FIFO named like a config file must not hang us. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	/*
	 * One a running command may just have made (ws/pending.h), in this
	 * process or another: absent, as before the command and after its
	 * revert.  Asked only of a file that is there.
	 */
	if (ws_pending_has(path)) {
		close(fd);
		return -ENOENT;
	}
	rc = ws_config_read_fd(fd, out);
	close(fd);
	return rc;
}

/* Line and column (1-based) of offset off in text. */
static void
ws__linecol(const char *text, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

int
ws_jsonc_parse(const char *text, int code, const char *origin, cJSON **out)
{
	size_t n = strlen(text), i = 0;
	char *s = strdup(text);
	const char *end = NULL;
	int line, col;

	*out = NULL;
	if (s == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	/* Blank out comments, keeping newlines so positions stay right. */
	while (i < n) {
		if (s[i] == '"') {
			for (i++; i < n && s[i] != '"'; i++)
				if (s[i] == '\\' && i + 1 < n)
					i++;
			i++;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				s[i++] = ' ';
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			size_t start = i;

			s[i++] = ' ';
			s[i++] = ' ';
			while (i < n && !(s[i] == '*' && i + 1 < n && s[i + 1] == '/')) {
				if (s[i] != '\n')
					s[i] = ' ';
				i++;
			}
			if (i >= n) {
				ws__linecol(text, start, &line, &col);
				free(s);
				return ws_error_set(code, origin,
						    "unterminated comment at line %d, column %d",
						    line, col);
			}
			s[i++] = ' ';
			s[i++] = ' ';
		} else {
			i++;
		}
	}
	*out = ws_json_parse(s, WS_JSON_STR, &end, true);
	if (*out == NULL) {
		size_t off = end != NULL && end >= s ? (size_t)(end - s) : 0;

		ws__linecol(text, off, &line, &col);
		free(s);
		return ws_error_set(code, origin,
				    "invalid JSON at line %d, column %d", line, col);
	}
	free(s);
	return 0;
}

static int ws__cfg_err(const char *origin, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A configuration error: WS_EINVALID_ARGUMENT naming the file. */
static int
ws__cfg_err(const char *origin, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = ws_error_setv(WS_EINVALID_ARGUMENT, origin, fmt, ap);
	va_end(ap);
	return rc;
}

/* Copy a JSON array of strings; key names it in messages. */
static int
ws__cfg_strv(const char *origin, const char *key, const cJSON *arr,
	     char ***out, size_t *n)
{
	const cJSON *e;
	size_t i = 0;

	if (!cJSON_IsArray(arr))
		return ws__cfg_err(origin, "\"%s\" must be an array of strings",
				   key);
	*out = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(char *));
	if (*out == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	cJSON_ArrayForEach(e, arr) {
		if (!cJSON_IsString(e) || e->valuestring[0] == '\0')
			return ws__cfg_err(origin,
					   "\"%s\" must be an array of non-empty strings",
					   key);
		(*out)[i] = strdup(e->valuestring);
		if ((*out)[i] == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		*n = ++i;
	}
	return 0;
}

bool
ws_jsonc_dup_key(const cJSON *obj, const cJSON *it)
{
	for (const cJSON *p = obj->child; p != NULL && p != it; p = p->next)
		if (p->string != NULL && strcmp(p->string, it->string) == 0)
			return true;
	return false;
}

static int
ws__cfg_policies(struct ws_config *cfg, const cJSON *obj, const char *origin)
{
	const cJSON *it;
	int rc;

	if (!cJSON_IsObject(obj))
		return ws__cfg_err(origin, "\"%s\" must be an object", "policies");
	cJSON_ArrayForEach(it, obj) {
		const char *k = it->string;

		if (ws_jsonc_dup_key(obj, it))
			return ws__cfg_err(origin, "duplicate key \"policies.%s\"", k);
		if (strcmp(k, "dir") == 0 || strcmp(k, "default") == 0) {
			char **dst = k[0] == 'd' && k[1] == 'i' ? &cfg->policies_dir
							      : &cfg->policy_default;

			if (!cJSON_IsString(it) || it->valuestring[0] == '\0')
				return ws__cfg_err(origin,
						   "\"policies.%s\" must be a non-empty string",
						   k);
			free(*dst);
			*dst = strdup(it->valuestring);
			if (*dst == NULL)
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		} else if (strcmp(k, "detect_project_root") == 0) {
			if (!cJSON_IsBool(it))
				return ws__cfg_err(origin,
						   "\"policies.%s\" must be a boolean", k);
			cfg->detect_project_root = cJSON_IsTrue(it);
		} else if (strcmp(k, "project_markers") == 0) {
			ws__strv_free(cfg->markers, cfg->nmarkers);
			cfg->markers = NULL;
			cfg->nmarkers = 0;
			rc = ws__cfg_strv(origin, "policies.project_markers", it,
					  &cfg->markers, &cfg->nmarkers);
			if (rc < 0)
				return rc;
			for (size_t i = 0; i < cfg->nmarkers; i++)
				if (strchr(cfg->markers[i], '/') != NULL ||
				    strcmp(cfg->markers[i], ".") == 0 ||
				    strcmp(cfg->markers[i], "..") == 0)
					return ws__cfg_err(origin,
							   "\"policies.project_markers\": \"%s\" is not a file name",
							   cfg->markers[i]);
		} else {
			return ws__cfg_err(origin, "unknown key \"policies.%s\"", k);
		}
	}
	return 0;
}

static int
ws__cfg_limits(struct ws_config *cfg, const cJSON *obj, const char *origin)
{
	/* min: the least value that means something (0 is "no limit" only
	 * where the tool's own option takes 0 that way). */
	static const struct {
		const char *name;
		size_t off;
		long long min;
	} keys[] = {
		{"max_bytes", offsetof(struct ws_limits, max_bytes), 1},
		{"max_entries", offsetof(struct ws_limits, max_entries), 0},
		{"max_results", offsetof(struct ws_limits, max_results), 1},
		{"max_filesize", offsetof(struct ws_limits, max_filesize), 1},
		{"max_output", offsetof(struct ws_limits, max_output), 1},
		{"max_depth", offsetof(struct ws_limits, max_depth), 1},
		{"timeout", offsetof(struct ws_limits, timeout), 1},
		{"time_budget", offsetof(struct ws_limits, time_budget), 1},
		{"scan_bytes", offsetof(struct ws_limits, scan_bytes), 1},
		{"scan_time", offsetof(struct ws_limits, scan_time), 1},
		{"tmp_size", offsetof(struct ws_limits, tmp_size), 1024 * 1024},
	};
	const cJSON *it;

	if (!cJSON_IsObject(obj))
		return ws__cfg_err(origin, "\"%s\" must be an object", "limits");
	cJSON_ArrayForEach(it, obj) {
		size_t i;

		if (ws_jsonc_dup_key(obj, it))
			return ws__cfg_err(origin, "duplicate key \"limits.%s\"",
					   it->string);
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strcmp(it->string, keys[i].name) == 0)
				break;
		if (i == sizeof(keys) / sizeof(keys[0]))
			return ws__cfg_err(origin, "unknown key \"limits.%s\"",
					   it->string);
		if (!cJSON_IsNumber(it) || it->valuedouble < (double)keys[i].min ||
		    it->valuedouble > 9007199254740992.0 ||
		    it->valuedouble != (double)(long long)it->valuedouble)
			return ws__cfg_err(origin,
					   "\"limits.%s\" must be an integer of at least %lld",
					   it->string, keys[i].min);
		*(long long *)((char *)&cfg->limits + keys[i].off) =
			(long long)it->valuedouble;
	}
	return 0;
}

/*
 * "guarded": true (the default list), false (none), or a list of paths
 * relative to the workspace, which replaces the default one.
 */
static int
ws__cfg_guarded(struct ws_config *cfg, const cJSON *it, const char *origin)
{
	int rc;

	ws__strv_free(cfg->guarded, cfg->nguarded);
	cfg->guarded = NULL;
	cfg->nguarded = 0;
	cfg->guarded_set = false;
	if (cJSON_IsBool(it)) {
		cfg->guarded_set = cJSON_IsFalse(it);
		return 0;
	}
	if (!cJSON_IsArray(it))
		return ws__cfg_err(origin, "\"guarded\" must be true, false or "
				   "an array of strings");
	rc = ws__cfg_strv(origin, "guarded", it, &cfg->guarded, &cfg->nguarded);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < cfg->nguarded; i++) {
		const char *g = cfg->guarded[i];

		if (g[0] == '\0' || g[0] == '/' || ws_path_has_dotdot(g))
			return ws__cfg_err(origin,
					   "\"guarded\": \"%s\" is not a path relative "
					   "to the workspace (no leading \"/\", no \"..\")",
					   g);
	}
	cfg->guarded_set = true;
	return 0;
}

/* "run": {"env": {"NAME": "VALUE", ...}} -- wsrun's fixed variables. */
static int
ws__cfg_run(struct ws_config *cfg, const cJSON *obj, const char *origin)
{
	const cJSON *it, *e;

	if (!cJSON_IsObject(obj))
		return ws__cfg_err(origin, "\"%s\" must be an object", "run");
	cJSON_ArrayForEach(it, obj) {
		if (ws_jsonc_dup_key(obj, it))
			return ws__cfg_err(origin, "duplicate key \"run.%s\"", it->string);
		if (strcmp(it->string, "env") != 0)
			return ws__cfg_err(origin, "unknown key \"run.%s\"", it->string);
		if (!cJSON_IsObject(it))
			return ws__cfg_err(origin, "\"run.env\" must be an object");
		ws__strv_free(cfg->run_env, cfg->nrun_env);
		cfg->run_env = NULL;
		cfg->nrun_env = 0;
		cJSON_ArrayForEach(e, it) {
			char **nv;
			size_t n;

			if (!cJSON_IsString(e) || e->string[0] == '\0' ||
			    strchr(e->string, '=') != NULL)
				return ws__cfg_err(origin, "\"run.env.%s\" must be a "
						   "string under a name without \"=\"",
						   e->string);
			nv = realloc(cfg->run_env, (cfg->nrun_env + 1) * sizeof(*nv));
			if (nv == NULL)
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			cfg->run_env = nv;
			n = strlen(e->string) + strlen(e->valuestring) + 2;
			if ((nv[cfg->nrun_env] = malloc(n)) == NULL)
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			snprintf(nv[cfg->nrun_env], n, "%s=%s", e->string, e->valuestring);
			cfg->nrun_env++;
		}
	}
	return 0;
}

int
ws_config_parse(struct ws_config *cfg, const char *text, const char *origin)
{
	cJSON *root = NULL;
	const cJSON *it;
	int rc;

	rc = ws_jsonc_parse(text, WS_EINVALID_ARGUMENT, origin, &root);
	if (rc < 0)
		return rc;
	if (!cJSON_IsObject(root)) {
		rc = ws__cfg_err(origin, "the configuration must be a JSON object");
		goto out;
	}
	cJSON_ArrayForEach(it, root) {
		const char *k = it->string;

		if (ws_jsonc_dup_key(root, it))
			rc = ws__cfg_err(origin, "duplicate key \"%s\"", k);
		else if (strcmp(k, "policies") == 0)
			rc = ws__cfg_policies(cfg, it, origin);
		else if (strcmp(k, "limits") == 0)
			rc = ws__cfg_limits(cfg, it, origin);
		else if (strcmp(k, "run") == 0)
			rc = ws__cfg_run(cfg, it, origin);
		else if (strcmp(k, "mounts") == 0) {
			ws__strv_free(cfg->mounts, cfg->nmounts);
			cfg->mounts = NULL;
			cfg->nmounts = 0;
			rc = ws__cfg_strv(origin, "mounts", it, &cfg->mounts,
					  &cfg->nmounts);
		} else if (strcmp(k, "guarded") == 0)
			rc = ws__cfg_guarded(cfg, it, origin);
		else if (strcmp(k, "view") == 0) {
			/* wsrun's default view (ws/view.h). */
			if (cJSON_IsString(it) &&
			    (strcmp(it->valuestring, "virtual") == 0 ||
			     strcmp(it->valuestring, "real") == 0)) {
				free(cfg->view);
				if ((cfg->view = strdup(it->valuestring)) == NULL)
					rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			} else {
				rc = ws__cfg_err(origin, "\"view\" must be \"virtual\" "
						 "or \"real\"");
			}
		}
		else if (strcmp(k, "audit") == 0) {
			if (!cJSON_IsString(it) || it->valuestring[0] != '/')
				rc = ws__cfg_err(origin, "\"audit\" must be an "
						 "absolute file name");
			else if ((free(cfg->audit),
				  cfg->audit = strdup(it->valuestring)) == NULL)
				rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		} else if (strcmp(k, "history") == 0) {
			if (!cJSON_IsBool(it))
				rc = ws__cfg_err(origin, "\"history\" must be true or false");
			else
				cfg->history = cJSON_IsTrue(it);
		} else if (strcmp(k, "state_dir") == 0) {
			if (!cJSON_IsString(it) || it->valuestring[0] != '/')
				rc = ws__cfg_err(origin, "\"state_dir\" must be an "
						 "absolute directory name");
			else if ((free(cfg->state_dir),
				  cfg->state_dir = strdup(it->valuestring)) == NULL)
				rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		} else if (strcmp(k, "history_max_bytes") == 0 ||
			   strcmp(k, "history_max_age") == 0 ||
			   strcmp(k, "history_max_file") == 0) {
			long long *dst = k[12] == 'b' ? &cfg->hist_max_bytes :
					 k[12] == 'a' ? &cfg->hist_max_age :
						       &cfg->hist_max_file;

			if (!cJSON_IsNumber(it) || it->valuedouble < 0 ||
			    it->valuedouble > 9e15)
				rc = ws__cfg_err(origin, "\"%s\" must be a number "
						 "(0: no bound)", k);
			else
				*dst = (long long)it->valuedouble;
		} else if (strcmp(k, "audit_best_effort") == 0) {
			if (!cJSON_IsBool(it))
				rc = ws__cfg_err(origin, "\"audit_best_effort\" "
						 "must be true or false");
			else
				cfg->audit_best_effort = cJSON_IsTrue(it);
		} else if (strcmp(k, "approve") == 0) {
			/* Who may approve at a prompt: only a person at the
			 * terminal, and only when asked for. */
			if (cJSON_IsString(it) && strcmp(it->valuestring, "tty") == 0)
				cfg->approve_tty = true;
			else if (cJSON_IsString(it) && strcmp(it->valuestring, "never") == 0)
				cfg->approve_tty = false;
			else
				rc = ws__cfg_err(origin, "\"approve\" must be \"tty\" "
						 "or \"never\"");
		}
		else
			rc = ws__cfg_err(origin, "unknown key \"%s\"", k);
		if (rc < 0)
			goto out;
	}
out:
	cJSON_Delete(root);
	return rc;
}

int
ws_config_load(struct ws_config *cfg, const char *explicit)
{
	char def[PATH_MAX];
	const char *path = explicit;
	char *text = NULL;
	int rc;

	if (explicit != NULL && explicit[0] == '\0')
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--config needs a file name");
	if (path == NULL) {
		const char *xdg = getenv("XDG_CONFIG_HOME");
		const char *home = getenv("HOME");

		if (xdg != NULL && xdg[0] == '/')
			snprintf(def, sizeof(def), "%s/wstools/config.json", xdg);
		else if (home != NULL && home[0] == '/')
			snprintf(def, sizeof(def), "%s/.config/wstools/config.json",
				 home);
		else
			def[0] = '\0';
		path = def;
		/*
		 * An implicit place that cannot be searched (sudo -u without
		 * -H leaves HOME=/root) is as good as absent: nobody asked
		 * for it.  An explicit --config must be readable.
		 */
		rc = def[0] ? ws_config_read_file(def, &text) : -ENOENT;
		if (rc == -ENOENT || rc == -EACCES || rc == -ENOTDIR) {
			path = "/etc/wstools/config.json";
			rc = ws_config_read_file(path, &text);
			if (rc == -ENOENT || rc == -EACCES || rc == -ENOTDIR)
				return 0;
		}
	} else {
		rc = ws_config_read_file(path, &text);
	}
	if (rc < 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, path,
				    "cannot read the configuration file: %s",
				    rc == -EFBIG ? "larger than 1 MiB"
				    : rc == -EINVAL ? "not a regular file"
						    : strerror(-rc));
	cfg->path = strdup(path);
	if (cfg->path == NULL) {
		free(text);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	rc = ws_config_parse(cfg, text, path);
	free(text);
	if (rc == 0 && cfg->policies_dir != NULL && cfg->policies_dir[0] != '/') {
		/* Relative to the configuration file's directory. */
		char *dir = strdup(cfg->path), *slash, *full;

		if (dir == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		slash = strrchr(dir, '/');
		if (slash != NULL)
			*slash = '\0';
		full = ws_path_join(slash != NULL ? (dir[0] ? dir : "/") : ".",
				    cfg->policies_dir);
		free(dir);
		if (full == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		free(cfg->policies_dir);
		cfg->policies_dir = full;
	}
	return rc;
}
