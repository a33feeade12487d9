/* wstest.c - helpers shared by the Check suites. */
#include "wstest.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ws-config.h"

/*
 * The suites need a state directory of their own: meson gives them one
 * (XDG_STATE_HOME in tests/meson.build).  Run by hand, without it, the
 * tools would fall back to $HOME/.local/state, and the tests that point
 * HOME at a workspace would find the state directory inside it (masked
 * and guarded there), and fail for a reason no test states.  So a run
 * without one gets a temporary one, removed when the suite's first
 * process exits (Check forks a child per test; those leave it alone).
 * Check's default timeout is taken from meson's likewise.
 */
static char *wst_state_made;
static pid_t wst_state_owner;

static void __attribute__((constructor))
wst_state_default(void)
{
	const char *s = getenv("XDG_STATE_HOME");

	/* meson's timeout too: Check's own 4 s is shorter than some tests. */
	setenv("CK_DEFAULT_TIMEOUT", "120", 0);
	if (s != NULL && *s != '\0')
		return;
	wst_state_made = wst_tmpdir();
	wst_state_owner = getpid();
	setenv("XDG_STATE_HOME", wst_state_made, 1);
}

const char *
wst_state_env(void)
{
	static char buf[4200];

	snprintf(buf, sizeof(buf), "XDG_STATE_HOME=%s", getenv("XDG_STATE_HOME"));
	return buf;
}

static void __attribute__((destructor))
wst_state_remove(void)
{
	if (wst_state_made != NULL && getpid() == wst_state_owner)
		wst_rmrf(wst_state_made);
	free(wst_state_made);
	wst_state_made = NULL;
}

char *
wst_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char tmpl[PATH_MAX], real[PATH_MAX];

	snprintf(tmpl, sizeof(tmpl), "%s/wst.XXXXXX", t && *t ? t : "/tmp");
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, real) == NULL) {
		perror("mkdtemp");
		abort();
	}
	return strdup(real);
}

/*
 * Remove name in the current directory, recursively, never following a
 * link.  It works from inside each directory (chdir), so that trees
 * deeper than PATH_MAX, which some tests build on purpose, go too, and
 * it holds no descriptor per level.
 */
static void
rm_here(const char *name)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;

	if (lstat(name, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(name);
		return;
	}
	if (chdir(name) < 0)
		return;
	d = opendir(".");
	while (d != NULL && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup(e->d_name);
	}
	if (d != NULL)
		closedir(d);
	for (size_t i = 0; i < n; i++) {
		rm_here(names[i]);
		free(names[i]);
	}
	free(names);
	if (chdir("..") == 0)
		rmdir(name);
}

void
wst_rmrf(const char *path)
{
	int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *copy = strdup(path), *slash = strrchr(copy, '/');

	if (slash == NULL) {
		rm_here(copy);
	} else {
		*slash = '\0';
		if (chdir(*copy ? copy : "/") == 0)
			rm_here(slash + 1);
	}
	if (cwd >= 0) {
		if (fchdir(cwd) < 0)
			abort();
		close(cwd);
	}
	free(copy);
}

char *
wst_path(const char *dir, const char *rel)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, rel) < 0)
		abort();
	return p;
}

static void
mkparents(const char *full)
{
	char *c = strdup(full);

	for (char *s = c + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(c, 0755);
			*s = '/';
		}
	}
	free(c);
}

void
wst_writen(const char *dir, const char *rel, const void *data, size_t n)
{
	char *p = wst_path(dir, rel);
	FILE *f;

	mkparents(p);
	f = fopen(p, "wb");
	if (f == NULL) {
		perror(p);
		abort();
	}
	fwrite(data, 1, n, f);
	fclose(f);
	free(p);
}

void
wst_write(const char *dir, const char *rel, const char *content)
{
	wst_writen(dir, rel, content, strlen(content));
}

void
wst_mkdir(const char *dir, const char *rel)
{
	char *p = wst_path(dir, rel);

	mkparents(p);
	mkdir(p, 0755);
	free(p);
}

void
wst_symlink(const char *target, const char *dir, const char *rel)
{
	char *p = wst_path(dir, rel);

	mkparents(p);
	if (symlink(target, p) < 0) {
		perror(p);
		abort();
	}
	free(p);
}

void
wst_mkfifo(const char *dir, const char *rel)
{
	char *p = wst_path(dir, rel);

	mkparents(p);
	if (mkfifo(p, 0644) < 0) {
		perror(p);
		abort();
	}
	free(p);
}

char *
wst_slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (f == NULL)
		return NULL;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
		}
		size_t r = fread(buf + len, 1, cap - len - 1, f);

		len += r;
		if (r == 0)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	if (n)
		*n = len;
	return buf;
}

bool
wst_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

double
wst_slowdown(void)
{
	const char *e = getenv("WST_SLOWDOWN");
	double v = e ? strtod(e, NULL) : 0;

	return v >= 1 ? v : WST_SLOWDOWN_BUILD;
}

int
wst_race_iterations(int dflt)
{
	const char *e = getenv("WST_RACE_ITERATIONS");
	long v = e ? strtol(e, NULL, 10) : 0;

	return v > 0 && v < 100000000 ? (int)v : dflt;
}

const char *
wst_bin(const char *tool)
{
	static char buf[PATH_MAX];
	const char *dir = getenv("WS_BIN_DIR");

	snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : WS_BUILD_ROOT "/cmd", tool);
	return buf;
}

static void
append(char **buf, size_t *len, size_t *cap, const char *d, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = realloc(*buf, *cap);
	}
	memcpy(*buf + *len, d, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/*
 * WST_TOOL_WRAPPER: words put before every tool run (the valgrind pass
 * sets "valgrind -q --error-exitcode=99 ..."), split at spaces.  Returns
 * a NULL-terminated vector: the words, then bin, then argv[0..n) (argv
 * without its program name).  malloc'd; the strings are borrowed, but for
 * the words' copy in *words.
 */
static const char **
wrap_argv(const char *bin, const char *const *argv, char **words)
{
	const char *w = getenv("WST_TOOL_WRAPPER");
	size_t n = 0, nw = 0, k = 0;
	const char **av;

	while (argv[n])
		n++;
	*words = w && *w ? strdup(w) : NULL;
	if (*words)
		for (const char *p = *words; *p; p++)
			nw += *p != ' ' && (p == *words || p[-1] == ' ');
	av = calloc(nw + n + 2, sizeof(*av));
	if (av == NULL)
		abort();
	if (*words) {
		char *save = NULL;

		for (char *t = strtok_r(*words, " ", &save); t != NULL;
		     t = strtok_r(NULL, " ", &save))
			av[k++] = t;
	}
	av[k++] = bin;
	for (size_t i = 0; i < n; i++)
		av[k++] = argv[i];
	return av;
}

void
wst_execv(const char *tool, const char *const *argv)
{
	char *words;
	const char **av = wrap_argv(wst_bin(tool), argv + 1, &words);

	execvp(av[0], (char *const *)av);
	free(av);
	free(words);
}

/* Whether tool runs go through a wrapper (they are then much slower). */
static bool
wrapped(void)
{
	const char *w = getenv("WST_TOOL_WRAPPER");

	return w != NULL && *w != '\0';
}

/*
 * Seconds a tool run may take before the suite kills it: 20, ten times
 * that through a wrapper, and times CK_TIMEOUT_MULTIPLIER where the
 * sanitizer pass stretches the suites' own timeouts (an ASan build runs
 * many times slower, and 600 proxied requests took more than 20 s there
 * with the other suite running beside it).
 */
static long
run_limit_s(void)
{
	const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
	long k = m != NULL ? strtol(m, NULL, 10) : 1;

	return (wrapped() ? 200 : 20) * (k > 1 && k < 100 ? k : 1);
}

static cJSON *probe_out(const char *disable);
static bool probe_has(cJSON *out, const char *layer);

bool wst_view_own;

/* NAME's value in env (given to wst_runv()), else in environ, or NULL. */
static const char *
env_value(const char *const *env, const char *name)
{
	size_t n = strlen(name);
	const char *v = NULL;

	/* A later one of the same name wins, as in wst_runv(). */
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			v = env[i] + n + 1;
	return v != NULL ? v : getenv(name);
}

/* WS_VIEW=real where the run's layer set has no mount namespace, or
 * NULL (see wst_view_own). */
static const char *
view_for_run(const char *const *env, const char *tool)
{
	const char *dis;

	if (wst_view_own || (strcmp(tool, "wsrun") != 0 && strcmp(tool, "wstools") != 0) ||
	    env_value(env, "WS_VIEW") != NULL)
		return NULL;
	dis = env_value(env, "WS_RUN_DISABLE");
	return probe_has(probe_out(dis ? dis : ""), "mountns") ? NULL : "WS_VIEW=real";
}

void
wst_runv(struct wst_run *r, const char *stdin_data, const char *const *env,
	 const char *tool, const char *const *argv)
{
	int in[2], out[2], err[2];
	pid_t pid;
	size_t olen = 0, ocap = 0, elen = 0, ecap = 0;
	struct timespec start, now;
	int st;

	static const char *const drop[] = {
		"WS_ROOT=", "WS_MOUNTS=", "WS_POLICY=", "WS_FORMAT=", "WS_PATHS=",
		"WS_STRICT=", "WS_ALLOW_OUTSIDE=", "WS_CONFIG=", "XDG_CONFIG_HOME=",
	};
	const char **av, **envp;
	char *words;
	size_t ne = 0, k = 0;

	memset(r, 0, sizeof(*r));
	/*
	 * Everything the child needs is made here, before the fork: the
	 * suites run servers on threads of their own (test_wsrun_net.c), and
	 * a child that allocated could wait for ever on a lock one of them
	 * held at the fork (seen under ASan: a run that never started).  The
	 * child only moves descriptors and execs.
	 */
	const char *view = view_for_run(env, tool);

	av = wrap_argv(wst_bin(tool), argv, &words);
	while (environ[ne] != NULL)
		ne++;
	for (size_t i = 0; env && env[i]; i++)
		ne++;
	if ((envp = calloc(ne + 3, sizeof(*envp))) == NULL)
		abort();
	for (size_t i = 0; environ[i] != NULL; i++) {
		bool skip = false;

		for (size_t d = 0; d < sizeof(drop) / sizeof(drop[0]) && !skip; d++)
			skip = strncmp(environ[i], drop[d], strlen(drop[d])) == 0;
		/*
		 * A name the caller gives goes (its value wins; "NAME"
		 * alone, as for putenv(3), only takes it away).
		 */
		for (size_t j = 0; env && env[j] && !skip; j++) {
			const char *eq = strchr(env[j], '=');
			size_t n = eq ? (size_t)(eq - env[j]) : strlen(env[j]);

			skip = strncmp(environ[i], env[j], n) == 0 && environ[i][n] == '=';
		}
		if (!skip)
			envp[k++] = environ[i];
	}
	{
		bool xdg = false;

		size_t first = k;

		for (size_t i = 0; env && env[i]; i++) {
			const char *eq = strchr(env[i], '=');
			size_t j = first;

			if (eq == NULL)
				continue;
			xdg = xdg || strncmp(env[i], "XDG_CONFIG_HOME=", 16) == 0;
			/* A later one of the same name wins, as with putenv(3). */
			while (j < k && strncmp(envp[j], env[i], (size_t)(eq - env[i]) + 1) != 0)
				j++;
			envp[j] = env[i];
			if (j == k)
				k++;
		}
		if (!xdg)
			envp[k++] = "XDG_CONFIG_HOME=/nonexistent-wstest";
		if (view != NULL)
			envp[k++] = view;
	}
	envp[k] = NULL;
	if (pipe(in) < 0 || pipe(out) < 0 || pipe(err) < 0)
		abort();
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(in[1]);
		close(out[0]);
		close(err[0]);
		execvpe(av[0], (char *const *)av, (char *const *)envp);
		_exit(127);
	}
	free(av);
	free(words);
	free(envp);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	signal(SIGPIPE, SIG_IGN);
	if (stdin_data != NULL) {
		size_t left = strlen(stdin_data);
		const char *p = stdin_data;

		while (left > 0) {
			ssize_t w = write(in[1], p, left);

			if (w <= 0)
				break;
			p += w;
			left -= (size_t)w;
		}
	}
	close(in[1]);
	r->out = calloc(1, 1);
	r->err = calloc(1, 1);
	clock_gettime(CLOCK_MONOTONIC, &start);
	{
		struct pollfd pfd[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
		int open_fds = 2;

		while (open_fds > 0) {
			char buf[65536];
			int pr = poll(pfd, 2, 200);

			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - start.tv_sec > run_limit_s()) {
				kill(pid, SIGKILL);
				waitpid(pid, &st, 0);
				r->status = -1;
				close(out[0]);
				close(err[0]);
				return;
			}
			if (pr <= 0)
				continue;
			for (int i = 0; i < 2; i++) {
				if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP)))
					continue;
				ssize_t n = read(pfd[i].fd, buf, sizeof(buf));

				if (n <= 0) {
					close(pfd[i].fd);
					pfd[i].fd = -1;
					open_fds--;
				} else if (i == 0) {
					append(&r->out, &olen, &ocap, buf, (size_t)n);
				} else {
					append(&r->err, &elen, &ecap, buf, (size_t)n);
				}
			}
		}
	}
	waitpid(pid, &st, 0);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->outlen = olen;
	r->json = cJSON_Parse(r->out);
}

void
wst_run(struct wst_run *r, const char *stdin_data, const char *tool, ...)
{
	const char *argv[256];
	size_t n = 0;
	va_list ap;

	va_start(ap, tool);
	while (n < 255 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	wst_runv(r, stdin_data, NULL, tool, argv);
}

void
wst_run_free(struct wst_run *r)
{
	free(r->out);
	free(r->err);
	cJSON_Delete(r->json);
	memset(r, 0, sizeof(*r));
}

const char *
wst_code(const struct wst_run *r)
{
	cJSON *e = cJSON_GetObjectItem(r->json, "error");
	cJSON *c = cJSON_GetObjectItem(e, "code");

	if (r->json == NULL)
		return "(no JSON)";
	return cJSON_IsString(c) ? c->valuestring : "";
}

cJSON *
wst_output(const struct wst_run *r, const char *key)
{
	return cJSON_GetObjectItem(cJSON_GetObjectItem(r->json, "output"), key);
}

const char *
wst_output_str(const struct wst_run *r, const char *key)
{
	cJSON *v = wst_output(r, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int
wst_spawn(const char *tool, const char *const *argv, const char *const *env,
	  char **out, size_t *outlen)
{
	extern char **environ;
	const char *asan_env = getenv("ASAN_OPTIONS");
	posix_spawn_file_actions_t fa;
	const char **av;
	char **envp, *asan = NULL, *words;
	size_t ne = 0, n = 0, cap = 4096;
	int p[2], st, rc;
	pid_t pid;

	for (char **e = environ; *e; e++)
		ne++;
	for (size_t i = 0; env && env[i]; i++)
		ne++;
	envp = calloc(ne + 3, sizeof(*envp));
	ne = 0;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "WS_", 3) != 0 && strncmp(*e, "ASAN_OPTIONS=", 13) != 0)
			envp[ne++] = *e;
	for (size_t i = 0; env && env[i]; i++)
		envp[ne++] = (char *)env[i];
	if (asprintf(&asan, "ASAN_OPTIONS=%s%sdetect_leaks=0",
		     asan_env ? asan_env : "", asan_env ? ":" : "") < 0)
		abort();
	envp[ne++] = asan;
	av = wrap_argv(wst_bin(tool), argv, &words);
	if (pipe2(p, O_CLOEXEC) < 0)
		abort();
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	rc = posix_spawnp(&pid, av[0], &fa, NULL, (char *const *)av, envp);
	posix_spawn_file_actions_destroy(&fa);
	free(envp);
	free(asan);
	free(av);
	free(words);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		fprintf(stderr, "posix_spawn %s: %s\n", tool, strerror(rc));
		abort();
	}
	*out = malloc(cap);
	for (;;) {
		ssize_t k;

		if (n + 1 >= cap)
			*out = realloc(*out, cap *= 2);
		k = read(p[0], *out + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	(*out)[n] = '\0';
	*outlen = n;
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			abort();
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int wst_race_pause_us;

/*
 * The swapper's rest after flip n (wst_race_pause_us): short, and every
 * thirty-second flip (an even one: the first state) fifty times as long,
 * so that a slow build's attempt (ASan: tens of milliseconds) also meets
 * a stretch with no flip at all.
 */
static void
wst__race_rest(unsigned long n)
{
	if (wst_race_pause_us > 0)
		usleep((useconds_t)wst_race_pause_us * (n % 32 == 0 ? 50 : 1));
}

unsigned long
wst_race(const char *a, const char *b, enum wst_race_how how, int attempts,
	 wst_race_fn attempt, void *arg)
{
	volatile unsigned long *flips;
	unsigned long n;
	pid_t pid;

	flips = mmap(NULL, sizeof(*flips), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (flips == MAP_FAILED)
		abort();
	*flips = 0;
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		/* Die with the test, even if an assertion ends it early. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(0);
		for (;;) {
			if (how == WST_RACE_EXCHANGE) {
				if (renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0)
					(*flips)++;
			} else if (rename(a, b) == 0) {
				(*flips)++;
				/* Moved out for as long as it is in. */
				wst__race_rest(*flips);
				while (rename(b, a) != 0)
					;
				(*flips)++;
			}
			wst__race_rest(*flips);
		}
	}
	/* Under load the swapper may start late: the first attempt waits. */
	while (*flips == 0)
		sched_yield();
	for (int i = 0; i < attempts; i++)
		attempt(arg, i);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	n = *flips;
	munmap((void *)flips, sizeof(*flips));
	return n;
}

/* ---- What wsrun --probe says (wst_layer) -------------------------------- */

struct wst_probe {
	char *disable;
	cJSON *out;	/* the probe's output object */
};

static struct wst_probe probes[16];
static size_t nprobes;

/*
 * The probe's output under WS_RUN_DISABLE=disable (cached), or NULL.
 * Run through popen(), with no Check assertion on the way: a suite's
 * constructor asks too, outside any test, where Check cannot report.
 */
static cJSON *
probe_out(const char *disable)
{
	const char *t = getenv("TMPDIR");
	char dir[PATH_MAX], cmd[3 * PATH_MAX], *buf = NULL;
	size_t len = 0, cap = 0;
	cJSON *j, *o = NULL;
	FILE *f;

	for (size_t i = 0; i < nprobes; i++)
		if (strcmp(probes[i].disable, disable) == 0)
			return probes[i].out;
	snprintf(dir, sizeof(dir), "%s/wst-probe.XXXXXX", t && *t ? t : "/tmp");
	if (mkdtemp(dir) == NULL || strpbrk(disable, "'\\") != NULL)
		return NULL;
	snprintf(cmd, sizeof(cmd), "env -u WS_VIEW WS_RUN_DISABLE='%s' '%s' "
		 "--workspace '%s' --probe --json 2>/dev/null", disable,
		 wst_bin("wsrun"), dir);
	f = popen(cmd, "r");
	while (f != NULL) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 8192);

			if (nb == NULL)
				break;
			buf = nb;
		}
		size_t n = fread(buf + len, 1, 4096, f);

		if (n == 0)
			break;
		len += n;
	}
	if (f != NULL)
		pclose(f);
	rmdir(dir);
	if (buf == NULL)
		return NULL;
	buf[len] = '\0';
	j = cJSON_Parse(buf);
	free(buf);
	if (j != NULL)
		o = cJSON_DetachItemFromObject(j, "output");
	cJSON_Delete(j);
	if (o != NULL && nprobes < sizeof(probes) / sizeof(probes[0])) {
		probes[nprobes].disable = strdup(disable);
		probes[nprobes].out = o;
		nprobes++;
	}
	return o;
}

/* Whether the probe's output says layer is available. */
static bool
probe_has(cJSON *out, const char *layer)
{
	return cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(out, layer),
						"available"));
}

bool
wst_layer(const char *disable, const char *layer)
{
	static char said[256] = ",";
	bool ok = probe_has(probe_out(disable), layer);
	char key[sizeof(said)];

	/* Missing on the machine itself: say once what is not checked. */
	snprintf(key, sizeof(key), ",%s,", layer);
	if (!ok && !probe_has(probe_out(""), layer) && strstr(said, key) == NULL &&
	    strlen(said) + strlen(key) < sizeof(said)) {
		fprintf(stderr, "wstest: layer %s is unavailable here (%s): "
			"its checks check the fallback instead\n", layer,
			wst_layer_why("", layer));
		strcat(said, key + 1);
	}
	return ok;
}

const char *
wst_layer_why(const char *disable, const char *layer)
{
	cJSON *l = cJSON_GetObjectItem(probe_out(disable), layer);
	const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(l, "detail"));

	return d ? d : "";
}

/* What a run under a lowered descriptor limit hands back. */
#define WST_NOFILE_SHM (8u << 20)
struct wst_nofile_shm {
	int status;
	size_t outlen, errlen;
	char buf[];
};

void
wst_runv_nofile(struct wst_run *r, const char *const *env, const char *tool,
		const char *const *argv, unsigned long soft, unsigned long hard)
{
	struct wst_nofile_shm *m;
	pid_t pid;
	int st;

	m = mmap(NULL, WST_NOFILE_SHM, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		abort();
	m->status = -2;
	if ((pid = fork()) < 0)
		abort();
	if (pid == 0) {
		struct rlimit rl;
		struct wst_run c;
		size_t room = (WST_NOFILE_SHM - sizeof(*m)) / 2;

		if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
			_exit(3);
		rl.rlim_cur = soft;
		if (hard > 0)
			rl.rlim_max = hard;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			_exit(3);
		unsetenv("WST_TOOL_WRAPPER");
		wst_runv(&c, NULL, env, tool, argv);
		m->outlen = c.outlen < room ? c.outlen : room;
		m->errlen = strlen(c.err) < room ? strlen(c.err) : room;
		memcpy(m->buf, c.out, m->outlen);
		memcpy(m->buf + m->outlen, c.err, m->errlen);
		m->status = c.status;
		wst_run_free(&c);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	memset(r, 0, sizeof(*r));
	r->status = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? m->status : -3;
	r->outlen = m->outlen;
	r->out = calloc(1, m->outlen + 1);
	r->err = calloc(1, m->errlen + 1);
	if (r->out == NULL || r->err == NULL)
		abort();
	memcpy(r->out, m->buf, m->outlen);
	memcpy(r->err, m->buf + m->outlen, m->errlen);
	r->json = cJSON_Parse(r->out);
	munmap(m, WST_NOFILE_SHM);
}
