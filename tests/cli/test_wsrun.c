/*
 * test_wsrun.c (cli) - wsrun on temporary workspaces: the consistency
 * checks of seed 001 (the command and the file tools see one workspace),
 * confinement (files, /etc secrets, /proc, network, UNIX sockets,
 * signals, environment, descriptors, guarded paths), process control
 * (timeouts, detached processes, kill -9 of wsrun), exit statuses and
 * output caps.  The confinement checks run once per layer set: every
 * layer, no namespaces, no seccomp, no mount namespace (WS_RUN_DISABLE,
 * the test-only knob).
 *
 * Layout (base is a fresh temporary directory):
 *   base/ws          the workspace (base/ws/out -> ../outside, a symlink)
 *   base/outside/    a directory beside it, holding "secret"
 *   base/home/       the caller's $HOME, holding "secret"
 */
#include "places.h"
#include "wstest.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SECRET "SECRET-OUTSIDE-MARKER"
#define ENVSECRET "ENV-SECRET-VALUE-4711"

extern char **environ;

static char *base, *ws, *outside, *home;

static void
setup(void)
{
	base = wst_tmpdir();
	ws = wst_path(base, "ws");
	outside = wst_path(base, "outside");
	home = wst_path(base, "home");
	wst_mkdir(base, "ws");
	wst_write(outside, "secret", SECRET "\n");
	wst_write(home, "secret", SECRET "\n");
	wst_write(ws, "sub/a.txt", "alpha\n");
	wst_symlink("../outside", ws, "out");
}

static void
teardown(void)
{
	wst_rmrf(base);
	free(base);
	free(ws);
	free(outside);
	free(home);
}

/* The layer sets the confinement checks run under. */
static const char *const modes[] = {"", "userns", "seccomp", "mountns",
				    "userns,cgroup"};
/* The last one (no namespace, no cgroup: the subreaper walk) matters to
 * process control only. */
#define NMODES_CONFINE 4
#define NMODES_PROCESS 5

static const char *
mode_env(int i)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "WS_RUN_DISABLE=%s", modes[i]);
	return buf;
}

/*
 * Whether wsrun --probe says layer is available under layer set i on
 * this machine (issue 24): a chroot whose "/" is not a mount point has
 * no mount namespace, an unprivileged user may have no user namespaces.
 * The checks follow the probe: where a layer is missing they check the
 * documented fallback, and wst_layer() says on stderr what it could not
 * check.
 */
static bool
has(int i, const char *layer)
{
	return wst_layer(modes[i], layer);
}

/*
 * The suite runs twice (tests/meson.build): in the real view, asked for
 * with WS_VIEW=real, and with no WS_VIEW, in the default view, the
 * virtual one, where a mount namespace can be made.  A layer set without
 * one asks for the real view (the default is refused there:
 * tests/cli/test_view.c).
 */
static bool
virt(void)
{
	const char *v = getenv("WS_VIEW");

	return v == NULL || *v == '\0' || strcmp(v, "virtual") == 0;
}

static const char *
view_env(int i)
{
	return virt() && !has(i, "mountns") ? "WS_VIEW=real" : NULL;
}

/*
 * The view entry of an environment a test makes whole (posix_spawn with
 * its own envp): WS_VIEW=real in the real view's run, view_env() in the
 * default's; NULL (the list's end) for the default view.
 */
static const char *
suite_view(int i)
{
	return !virt() ? "WS_VIEW=real" : view_env(i);
}

/* One more NAME=VALUE for the next runs, or NULL. */
static const char *run_extra_env;
/* The next runs print plain text, not --json. */
static bool run_plain;

/* Run wsrun --json in the workspace with a layer set and arguments. */
static void
runm(struct wst_run *r, int mode, const char *stdin_data,
     const char *const *args)
{
	const char *env[6] = {mode_env(mode), "WST_SECRET=" ENVSECRET, NULL,
			      NULL, NULL, NULL};
	const char *argv[64];
	size_t n = 0;
	char hv[4200];

	snprintf(hv, sizeof(hv), "HOME=%s", home);
	env[2] = hv;
	env[3] = view_env(mode);
	env[env[3] ? 4 : 3] = run_extra_env;
	argv[n++] = "--workspace";
	argv[n++] = ws;
	if (!run_plain)
		argv[n++] = "--json";
	while (*args && n < 63)
		argv[n++] = *args++;
	argv[n] = NULL;
	wst_runv(r, stdin_data, env, "wsrun", argv);
}

#define RUNM(r, mode, ...)                                                     \
	do {                                                                   \
		const char *a_[] = {__VA_ARGS__, NULL};                        \
		runm((r), (mode), NULL, a_);                                   \
	} while (0)

static const char *
out_str(const struct wst_run *r, const char *key)
{
	const char *s = wst_output_str(r, key);

	return s ? s : "";
}

static long long
out_int(const struct wst_run *r, const char *key)
{
	cJSON *v = wst_output(r, key);

	return cJSON_IsNumber(v) ? (long long)v->valuedouble : -999;
}

static bool
out_bool(const struct wst_run *r, const char *key)
{
	return cJSON_IsTrue(wst_output(r, key));
}

/* isolation.<layer>.enforced */
static bool
enforced(const struct wst_run *r, const char *layer)
{
	cJSON *iso = wst_output(r, "isolation");
	cJSON *l = cJSON_GetObjectItem(iso, layer);

	return cJSON_IsTrue(cJSON_GetObjectItem(l, "enforced"));
}

/*
 * isolation.unix_sockets.outside_blocked: whether host UNIX sockets are
 * out of the command's reach (a mount namespace, or the seccomp filter
 * refusing connect and datagram sockets).  Without both (WS_RUN_DISABLE=
 * seccomp where there is no mount namespace) the result says they are
 * not, and the checks expect what it says.
 */
static bool
unix_outside_blocked(const struct wst_run *r, int mode)
{
	cJSON *us = cJSON_GetObjectItem(wst_output(r, "isolation"), "unix_sockets");
	bool b = cJSON_IsTrue(cJSON_GetObjectItem(us, "outside_blocked"));

	if (has(mode, "mountns") || has(mode, "seccomp"))
		ck_assert_msg(b, "%s", r->out);
	return b;
}

/* Whether "/" is a mount's root (not so in a chroot of a plain directory). */
static bool
root_is_mount(void)
{
	struct statx sx;

	return statx(AT_FDCWD, "/", 0, STATX_BASIC_STATS, &sx) == 0 &&
	       (!(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
		(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT));
}

/* Whether dir/rel exists (lstat). */
static bool
exists_in(const char *dir, const char *rel)
{
	char *p = wst_path(dir, rel);
	bool e = wst_exists(p);

	free(p);
	return e;
}

/* A run that succeeded (the command ran): status as expected. */
static void
expect_ran(const struct wst_run *r, int status)
{
	ck_assert_msg(r->status == status, "status %d (want %d), out %s, err %s",
		      r->status, status, r->out, r->err);
	ck_assert_str_eq(wst_code(r), "");
}

/*
 * The fallback of hostile review F3 where there is no mount namespace
 * (WS_RUN_DISABLE=mountns, a chroot, no user namespaces): an entry a
 * later call's boundary depends on (the policy, a mount's spelling)
 * cannot be bound read-only, so auto refuses, saying why.
 */
static void
expect_boundary_refusal(const struct wst_run *r)
{
	ck_assert_msg(r->status == 125, "%s", r->out);
	ck_assert_str_eq(wst_code(r), "SANDBOX_UNAVAILABLE");
	ck_assert_msg(strstr(r->out, "boundary depends on") != NULL, "%s", r->out);
}

/*
 * The same fallback for HOME's persistence places that exist in the
 * workspace (a directory on $PATH, ~/.config through a link, the
 * workspace as HOME): nothing could keep the command from changing
 * them, and the revert after the run removes only what it created, so
 * auto refuses, naming the place.
 */
static void
expect_place_refusal(const struct wst_run *r)
{
	ck_assert_msg(r->status == 125, "%s", r->out);
	ck_assert_str_eq(wst_code(r), "SANDBOX_UNAVAILABLE");
	ck_assert_msg(strstr(r->out, "persistence places") != NULL, "%s", r->out);
	ck_assert_msg(strstr(r->out, "--isolate none") != NULL, "%s", r->out);
}

/*
 * Where no mount namespace can be made (a chroot; no user namespace), a
 * run is refused where nothing could keep the command from what it must
 * not touch: an existing persistence place in the workspace
 * (expect_place_refusal()), wstools' history in it (HOME as the
 * workspace), a policy's deny rule inside it, or the virtual view, which
 * needs the namespace.  True, checked: nothing ran; false where the
 * layer is there, or the command ran (the caller's checks then hold).
 */
static bool
fallback_refused(const struct wst_run *r)
{
	/* A run that did run is checked by the caller as it is anywhere. */
	if (wst_layer("", "mountns") || r->status != 125)
		return false;
	ck_assert_str_eq(wst_code(r), "SANDBOX_UNAVAILABLE");
	ck_assert_msg(strstr(r->out, "persistence places") != NULL ||
		      strstr(r->out, "the virtual view") != NULL ||
		      strstr(r->out, "holds wstools' history") != NULL ||
		      strstr(r->out, "the policy refuses") != NULL, "%s", r->out);
	return true;
}

/* ---- Seed 001: one workspace seen by the command and the file tools ---- */

START_TEST(consistency_list)
{
	struct wst_run r, l;
	cJSON *e, *entries;
	int n = 0;

	wst_write(ws, "myfile.txt", "x\n");
	wst_write(ws, ".hidden", "x\n");
	RUNM(&r, _i, "--", "ls", "-A");
	expect_ran(&r, 0);
	wst_run(&l, NULL, "wsls", "--workspace", ws, "--json", "-a", "/", NULL);
	ck_assert_int_eq(l.status, 0);
	entries = wst_output(&l, "entries");
	cJSON_ArrayForEach(e, entries) {
		const char *name = cJSON_GetObjectItem(e, "name")->valuestring;
		char line[512];

		snprintf(line, sizeof(line), "%s\n", name);
		ck_assert_msg(strstr(out_str(&r, "stdout"), line) != NULL,
			      "%s listed by wsls, not by ls: %s", name,
			      out_str(&r, "stdout"));
		n++;
	}
	/* ls -A prints one name a line when not on a terminal; in the
	 * virtual view the system's names are there too. */
	{
		int lines = 0;
		cJSON *view = cJSON_GetObjectItem(wst_output(&r, "isolation"), "view");
		cJSON *sys = cJSON_GetObjectItem(view, "system");

		for (const char *p = out_str(&r, "stdout"); *p; p++)
			lines += *p == '\n';
		ck_assert_int_eq(lines, n + (cJSON_IsArray(sys) ?
					     cJSON_GetArraySize(sys) : 0));
	}
	ck_assert_int_eq(n, 4); /* sub, out, myfile.txt, .hidden */
	wst_run_free(&r);
	wst_run_free(&l);
}
END_TEST

START_TEST(consistency_write_run_read_tool)
{
	struct wst_run r, rd;

	RUNM(&r, _i, "-c", "echo 'test data' > test.txt");
	expect_ran(&r, 0);
	wst_run(&rd, NULL, "wsread", "--workspace", ws, "--json", "/test.txt", NULL);
	ck_assert_int_eq(rd.status, 0);
	ck_assert_str_eq(wst_output_str(&rd, "content"), "test data\n");
	wst_run_free(&r);
	wst_run_free(&rd);
	/* --map-paths: the virtual absolute path means the same file. */
	RUNM(&r, _i, "--map-paths", "--", "cat", "/test.txt");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "test data\n");
	wst_run_free(&r);
}
END_TEST

START_TEST(consistency_write_tool_read_run)
{
	struct wst_run w, r;

	wst_run(&w, NULL, "wswrite", "--workspace", ws, "--json", "--content",
		"api data", "/api-test.txt", NULL);
	ck_assert_int_eq(w.status, 0);
	RUNM(&r, _i, "--cwd", "/", "--", "cat", "api-test.txt");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "api data");
	wst_run_free(&w);
	wst_run_free(&r);
	/* --cwd is a workspace path; the command sees the real one. */
	RUNM(&r, _i, "--cwd", "/sub", "--", "pwd");
	expect_ran(&r, 0);
	{
		char want[4200];

		snprintf(want, sizeof(want), "%s/sub\n", ws);
		/* The virtual view (WS_VIEW=virtual): the virtual one. */
		if (virt() && has(_i, "mountns"))
			snprintf(want, sizeof(want), "/sub\n");
		ck_assert_str_eq(out_str(&r, "stdout"), want);
	}
	ck_assert_str_eq(out_str(&r, "cwd"), "/sub");
	wst_run_free(&r);
}
END_TEST

START_TEST(consistency_isolation)
{
	struct wst_run r, l;
	char cmd[8400];

	snprintf(cmd, sizeof(cmd), "ls %s; cat %s/secret", outside, outside);
	RUNM(&r, _i, "-c", cmd);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_int_ne(r.status, 0);
	ck_assert_ptr_null(strstr(r.out, SECRET));
	ck_assert_ptr_null(strstr(r.out, "secret\\n"));
	wst_run(&l, NULL, "wsls", "--workspace", ws, "--json", "../outside", NULL);
	ck_assert_str_eq(wst_code(&l), "PATH_OUTSIDE_WORKSPACE");
	wst_run_free(&r);
	wst_run_free(&l);
}
END_TEST

/* ---- Confinement, per layer set ----------------------------------------- */

START_TEST(confine_files)
{
	struct wst_run r;
	char cmd[16384];

	snprintf(cmd, sizeof(cmd),
		 "cat %s/secret && echo LEAK-read;"
		 "cat out/secret && echo LEAK-link;"
		 "echo x > %s/new && echo LEAK-write;"
		 "echo x > out/new2 && echo LEAK-write-link;"
		 "cat %s/secret && echo LEAK-home;"
		 "ls $HOME >/dev/null && echo HOME-OK;"
		 "echo ok > $TMPDIR/t && cat $TMPDIR/t;"
		 "echo inside > sub/b.txt && echo WROTE;"
		 "cat /etc/shadow; cat /etc/gshadow; cat /proc/1/environ;"
		 "env; exit 0",
		 outside, outside, home);
	RUNM(&r, _i, "-c", cmd);
	expect_ran(&r, 0);
	ck_assert_msg(strstr(r.out, "LEAK") == NULL, "%s", r.out);
	ck_assert_ptr_null(strstr(r.out, SECRET));
	ck_assert_ptr_null(strstr(r.out, ENVSECRET));
	ck_assert_msg(strstr(out_str(&r, "stdout"), "root:") == NULL, "%s",
		      out_str(&r, "stdout"));
	ck_assert_ptr_nonnull(strstr(r.out, "HOME-OK"));
	ck_assert_ptr_nonnull(strstr(r.out, "WROTE"));
	ck_assert_ptr_nonnull(strstr(r.out, "WS_SANDBOX=1"));
	ck_assert(!exists_in(outside, "new"));
	ck_assert(!exists_in(outside, "new2"));
	ck_assert(exists_in(ws, "sub/b.txt"));
	/* Names of dropped variables, never their values. */
	{
		cJSON *d = wst_output(&r, "env_dropped"), *e;
		bool found = false;

		cJSON_ArrayForEach(e, d)
			found |= strcmp(e->valuestring, "WST_SECRET") == 0;
		ck_assert(found);
	}
	ck_assert(enforced(&r, "landlock"));
	ck_assert(enforced(&r, "mountns") == has(_i, "mountns"));
	ck_assert(enforced(&r, "seccomp") == has(_i, "seccomp"));
	wst_run_free(&r);
}
END_TEST

/* ---- Policy rules of directory shape grant to the command (issue 8) ---- */

/*
 * A policy of one grant, rule NAME allowing OPS (a JSON list's items, as
 * "\"read\", \"list\"") on everything below DIR, and a rule "rest" allowing
 * everything else, so that the grant is the only thing the policy changes.
 */
static void
one_grant_policy(char *pol, size_t n, const char *name, const char *dir,
		 const char *ops)
{
	int w = snprintf(pol, n,
			 "{\"version\": 1, \"file_rules\": ["
			 "{\"name\": \"%s\", \"paths\": [\"%s/**\"],"
			 " \"operations\": [%s], \"decision\": \"allow\"},"
			 "{\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
			 " \"decision\": \"allow\"}]}", name, dir, ops);

	ck_assert(w > 0 && (size_t)w < n);
}

/*
 * A directory for grants: never under /tmp, /var/tmp, /dev/shm or TMPDIR
 * (wsrun never grants those) nor HOME, so in the current directory (the
 * build tree), else in /var/cache.  The caller removes it.
 */
static char *
grant_base(void)
{
	const char *tmpdir = getenv("TMPDIR");
	char cwd[PATH_MAX], tmpl[PATH_MAX + 32], real[PATH_MAX];
	bool in_tmp;

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	in_tmp = strncmp(cwd, "/tmp/", 5) == 0 || strcmp(cwd, "/tmp") == 0 ||
		 strncmp(cwd, "/var/tmp", 8) == 0 || strncmp(cwd, "/dev/", 5) == 0 ||
		 strncmp(cwd, "/run", 4) == 0 ||
		 (tmpdir != NULL && *tmpdir && strncmp(cwd, tmpdir, strlen(tmpdir)) == 0);
	snprintf(tmpl, sizeof(tmpl), "%s/wst-grant.XXXXXX", in_tmp ? "/var/cache" : cwd);
	ck_assert_msg(mkdtemp(tmpl) != NULL, "mkdtemp %s: %s", tmpl, strerror(errno));
	ck_assert_ptr_nonnull(realpath(tmpl, real));
	return strdup(real);
}

/* The isolation.policy_grants item of rule for dir, or NULL. */
static cJSON *
grant_of(const struct wst_run *r, const char *rule, const char *dir)
{
	cJSON *g, *v = cJSON_GetObjectItem(wst_output(r, "isolation"), "policy_grants");

	cJSON_ArrayForEach(g, v) {
		const char *ru = cJSON_GetStringValue(cJSON_GetObjectItem(g, "rule"));
		const char *pa = cJSON_GetStringValue(cJSON_GetObjectItem(g, "path"));

		if (ru != NULL && pa != NULL && strcmp(ru, rule) == 0 &&
		    (dir == NULL || strcmp(pa, dir) == 0))
			return g;
	}
	return NULL;
}

/* Whether the rule's grant (for dir) was granted, and with what access. */
static bool
granted(const struct wst_run *r, const char *rule, const char *dir,
	const char *access)
{
	cJSON *g = grant_of(r, rule, dir);

	ck_assert_msg(g != NULL, "no grant of rule %s in %s", rule, r->out);
	if (access != NULL && cJSON_IsTrue(cJSON_GetObjectItem(g, "granted")))
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(g, "access")),
				 access);
	return cJSON_IsTrue(cJSON_GetObjectItem(g, "granted"));
}

/* The reason given for the rule's grant (for dir), or "". */
static const char *
grant_why(const struct wst_run *r, const char *rule, const char *dir)
{
	const char *w = cJSON_GetStringValue(
		cJSON_GetObjectItem(grant_of(r, rule, dir), "reason"));

	return w ? w : "";
}

/*
 * A rule of directory shape grants read, or read-write where it allows
 * writing, in every layer mode that has seccomp (without it a granted
 * directory's UNIX sockets could not be kept out, so nothing is granted,
 * and isolation says why).
 */
START_TEST(policy_grants_read_write)
{
	struct wst_run r;
	char *gb = grant_base(), *pfile = wst_path(base, "grant.json");
	char pol[8192], cmd[8192];
	bool can = _i != 2; /* mode 2: no seccomp */

	wst_write(gb, "ro/data", SECRET "\n");
	wst_write(gb, "rw/data", "old\n");
	wst_write(gb, "top", "TOP-READ\n");
	snprintf(pol, sizeof(pol),
		 "{\"version\": 1, \"file_rules\": ["
		 "{\"name\": \"ro\", \"paths\": [\"%s/ro/**\"],"
		 " \"operations\": [\"read\", \"list\"], \"decision\": \"allow\"},"
		 "{\"name\": \"rw\", \"paths\": [\"%s/rw/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"empty-var\", \"paths\": [\"${WST_UNSET_VAR:-}/**\"],"
		 " \"operations\": [\"read\", \"list\"], \"decision\": \"allow\"},"
		 "{\"name\": \"noshape\", \"paths\": [\"%s/ro/*\", \"${PROJECT_ROOT}/*.c\"],"
		 " \"operations\": [\"read\", \"list\"], \"decision\": \"allow\"},"
		 "{\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
		 " \"decision\": \"allow\"}]}", gb, gb, gb);
	wst_write(base, "grant.json", pol);
	/* A program in a grant without exec, run by the dynamic loader
	 * (which maps it, no execve for Landlock to see): the mount
	 * namespace binds the grant noexec. */
	snprintf(cmd, sizeof(cmd), "cp /bin/true '%s/ro/prog'", gb);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd),
		 "cat %s/ro/data; echo x > %s/ro/new || echo RO-REFUSED;"
		 "echo new > %s/rw/made && echo RW-OK; cat %s/top || echo TOP-REFUSED;"
		 "if [ -x /lib64/ld-linux-x86-64.so.2 ]; then "
		 "/lib64/ld-linux-x86-64.so.2 %s/ro/prog 2>/dev/null && echo LDSO-RAN; fi; true",
		 gb, gb, gb, gb, gb);
	RUNM(&r, _i, "--policy", pfile, "-c", cmd);
	expect_ran(&r, 0);
	if (_i == 0 && has(_i, "mountns"))
		ck_assert_msg(strstr(out_str(&r, "stdout"), "LDSO-RAN") == NULL, "%s",
			      r.out);
	ck_assert(granted(&r, "ro", NULL, "read") == can);
	ck_assert(granted(&r, "rw", NULL, "read-write") == can);
	ck_assert_msg((strstr(out_str(&r, "stdout"), SECRET) != NULL) == can, "%s", r.out);
	ck_assert_ptr_nonnull(strstr(out_str(&r, "stdout"), "RO-REFUSED"));
	ck_assert_ptr_nonnull(strstr(out_str(&r, "stdout"), "TOP-REFUSED"));
	ck_assert(!exists_in(gb, "ro/new"));
	ck_assert((strstr(out_str(&r, "stdout"), "RW-OK") != NULL) == can);
	ck_assert(exists_in(gb, "rw/made") == can);
	if (!can)
		ck_assert_ptr_nonnull(strstr(grant_why(&r, "rw", NULL), "seccomp"));
	else
		/* A granted directory may hold a host socket: connect is off. */
		ck_assert_ptr_nonnull(strstr(r.out, "seccomp (connect and datagram sockets denied)"));
	wst_run_free(&r);
	if (_i == 0) {
		cJSON *g, *v;
		int n = 0;

		/* --probe says what the policy would add. */
		RUNM(&r, _i, "--policy", pfile, "--probe");
		v = wst_output(&r, "policy_grants");
		cJSON_ArrayForEach(g, v)
			n += cJSON_IsTrue(cJSON_GetObjectItem(g, "granted"));
		/* A rule not of "DIR/" + "**" shape outside the workspace is
		 * listed as not granted, saying the shape; one inside is not. */
		ck_assert_msg(n == 2 && cJSON_GetArraySize(v) == 4, "%s", r.out);
		ck_assert_msg(strstr(r.out, "only DIR/** rules are granted: write ") != NULL &&
			      strstr(r.out, "\"noshape\"") != NULL, "%s", r.out);
		cJSON_ArrayForEach(g, v) {
			const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(g, "status"));

			ck_assert_msg(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(g, "path")),
					     ws) != 0, "%s", r.out);
			/* status: granted, or refused (here no entry is
			 * skipped: none is inside the workspace). */
			ck_assert_msg(st != NULL &&
				      strcmp(st, cJSON_IsTrue(cJSON_GetObjectItem(g, "granted")) ?
						 "granted" : "refused") == 0, "%s", r.out);
		}
		wst_run_free(&r);
		/* Without seccomp a call grants nothing: --probe says so. */
		RUNM(&r, 2, "--policy", pfile, "--probe");
		v = wst_output(&r, "policy_grants");
		n = 0;
		cJSON_ArrayForEach(g, v)
			n += cJSON_IsTrue(cJSON_GetObjectItem(g, "granted"));
		ck_assert_msg(n == 0 && cJSON_GetArraySize(v) == 4, "%s", r.out);
		wst_run_free(&r);
		/* Plain --probe: one line a grant, a newline in a name shown
		 * as "?". */
		{
			char nl[8192];
			const char *env[] = {mode_env(0), NULL};
			const char *argv[] = {"--workspace", ws, "--policy", nl, "--probe",
					      NULL};

			snprintf(pol, sizeof(pol),
				 "{\"version\": 1, \"file_rules\": ["
				 "{\"name\": \"nl\", \"paths\": [\"%s/a\\nb/**\"],"
				 " \"operations\": [\"read\", \"list\"], \"decision\": \"allow\"}]}",
				 gb);
			wst_write(base, "nl.json", pol);
			snprintf(nl, sizeof(nl), "%s/nl.json", base);
			wst_runv(&r, NULL, env, "wsrun", argv);
			ck_assert_msg(strstr(r.out, "/a?b ") != NULL &&
				      strstr(r.out, "/a\nb") == NULL, "%s", r.out);
			wst_run_free(&r);
		}
		/* Plain mode warns on stderr of each refused grant (the
		 * command would only see "No such file or directory"), not of
		 * the granted ones; --verbose adds those as INFO lines. */
		{
			const char *env[] = {mode_env(0), NULL};
			const char *argv[] = {"--workspace", ws, "--policy", pfile,
					      "-c", "true", NULL};
			const char *argvv[] = {"--workspace", ws, "--policy", pfile,
					       "--verbose", "-c", "true", NULL};

			wst_runv(&r, NULL, env, "wsrun", argv);
			ck_assert_int_eq(r.status, 0);
			ck_assert_msg(strstr(r.err, "wsrun: policy grant rule=empty-var "
						    "dir=/ access=read: refused, ") != NULL &&
				      strstr(r.err, "rule=noshape ") != NULL &&
				      strstr(r.err, "rule=ro ") == NULL &&
				      strstr(r.err, "rule=rw ") == NULL, "%s", r.err);
			wst_run_free(&r);
			wst_runv(&r, NULL, env, "wsrun", argvv);
			ck_assert_msg(strstr(r.err, "INFO policy grant rule=ro ") != NULL &&
				      strstr(r.err, "wsrun: policy grant rule=empty-var ") != NULL &&
				      strstr(r.err, "INFO policy grant rule=empty-var") == NULL,
				      "%s", r.err);
			wst_run_free(&r);
		}
		/* ftu13 06: JSON's notes say what plain stderr warns of. */
		{
			cJSON *nt;
			int nn = 0, nshape = 0, nempty = 0;

			RUNM(&r, _i, "--policy", pfile, "-c", "true");
			cJSON_ArrayForEach(nt, wst_output(&r, "notes")) {
				const char *t = cJSON_GetStringValue(nt);

				if (t == NULL || strncmp(t, "policy grant ", 13) != 0)
					continue;
				nn++;
				nshape += strstr(t, "rule=noshape ") != NULL;
				nempty += strstr(t, "rule=empty-var dir=/ access=read: "
						    "refused, ") != NULL;
			}
			ck_assert_msg(nempty == 1 && nshape >= 1 && nn == nshape + nempty,
				      "%s", r.out);
			wst_run_free(&r);
		}
		/* Under --args (compact), only what was granted. */
		RUNM(&r, _i, "--policy", pfile, "--args", "{\"command\": \"true\"}");
		v = cJSON_GetObjectItem(wst_output(&r, "isolation"), "policy_grants");
		ck_assert_msg(cJSON_GetArraySize(v) == 2, "%s", r.out);
		wst_run_free(&r);
	}
	wst_rmrf(gb);
	free(gb);
	free(pfile);
}
END_TEST

/*
 * The attack that withdrew the first version: a command plants a symlink
 * under a granted directory (leaf: build -> hidden; component:
 * comp -> hidden, with a rule for comp/sub), and the next call's grant
 * must not follow it.  The same through a variable (the rule ${WST_GRANT_VAR}/...
 * with the value top/venv): the policy resolves variables when it loads,
 * so the symlink would be followed before openat2 could see it.
 */
START_TEST(policy_grants_symlink_planted)
{
	struct wst_run r;
	char *gb = grant_base(), *pfile = wst_path(base, "grant.json");
	char pol[8192], cmd[8192], varenv[PATH_MAX + 32], *leaf, *comp, *hidden;
	bool can = _i != 2;

	/* The target: beside top, granted by no rule (outside /tmp, so
	 * that only the symlink check stands between it and the command). */
	hidden = wst_path(gb, "hidden");
	wst_mkdir(gb, "top");
	wst_write(hidden, "secret", SECRET "\n");
	wst_write(hidden, "sub/secret", SECRET "\n");
	leaf = wst_path(gb, "top/build");
	comp = wst_path(gb, "top/comp/sub");
	snprintf(pol, sizeof(pol),
		 "{\"version\": 1, \"file_rules\": ["
		 "{\"name\": \"top\", \"paths\": [\"%s/top/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"leaf\", \"paths\": [\"%s/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"comp\", \"paths\": [\"%s/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"var\", \"paths\": [\"${WST_GRANT_VAR}/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
		 " \"decision\": \"allow\"}]}", gb, leaf, comp);
	wst_write(base, "grant.json", pol);
	snprintf(varenv, sizeof(varenv), "WST_GRANT_VAR=%s/top/venv", gb);
	run_extra_env = varenv;
	/* The first call plants them through its grant of top. */
	snprintf(cmd, sizeof(cmd), "ln -s %s %s/top/build && ln -s %s %s/top/comp && "
		 "ln -s %s %s/top/venv && echo PLANTED; true",
		 hidden, gb, hidden, gb, hidden, gb);
	RUNM(&r, _i, "--policy", pfile, "-c", cmd);
	expect_ran(&r, 0);
	ck_assert(strstr(out_str(&r, "stdout"), "PLANTED") != NULL || !can);
	wst_run_free(&r);
	if (!can) {
		wst_symlink(hidden, gb, "top/build");
		wst_symlink(hidden, gb, "top/comp");
		wst_symlink(hidden, gb, "top/venv");
	}
	/* The next call: the grants refused, hidden stays out. */
	snprintf(cmd, sizeof(cmd),
		 "cat %s/secret %s/top/build/secret %s/top/comp/sub/secret;"
		 "echo x > %s/top/build/new; echo x > %s/top/comp/sub/new;"
		 "echo x > %s/new; exit 0",
		 hidden, gb, gb, gb, gb, hidden);
	RUNM(&r, _i, "--policy", pfile, "-c", cmd);
	expect_ran(&r, 0);
	ck_assert_msg(strstr(out_str(&r, "stdout"), SECRET) == NULL, "%s", r.out);
	ck_assert(!exists_in(hidden, "new"));
	ck_assert(!exists_in(hidden, "sub/new"));
	ck_assert(!granted(&r, "leaf", NULL, NULL));
	ck_assert(!granted(&r, "comp", NULL, NULL));
	ck_assert(!granted(&r, "var", NULL, NULL));
	ck_assert_msg(strstr(grant_why(&r, "var", NULL), "variable") != NULL,
		      "%s", r.out);
	run_extra_env = NULL;
	if (can) {
		ck_assert_msg(strstr(grant_why(&r, "leaf", NULL), "symlink") != NULL,
			      "%s", r.out);
		ck_assert_msg(strstr(grant_why(&r, "comp", NULL), "symlink") != NULL,
			      "%s", r.out);
	}
	wst_run_free(&r);
	wst_rmrf(gb);
	free(gb);
	free(leaf);
	free(hidden);
	free(comp);
	free(pfile);
}
END_TEST

/*
 * The policy or the configuration spelled through a symlink inside a
 * write grant: the command could re-point it, and the next call would
 * load its own rules.  The link in the grant (data/p.json ->
 * ../cfg/p.json), a chain that passes through it (link.json ->
 * data/p.json), WS_CONFIG the same way, a ".." after a link into the
 * grant (to-sub/../p.json: data/p.json for the kernel, gb/p.json by
 * name); the real file, granted.
 */
START_TEST(policy_grants_policy_spelling)
{
	struct wst_run r;
	char *gb = grant_base(), *real, *inlink, *chain, *dotdot;
	char pol[8192], cfgenv[PATH_MAX + 32], dir[PATH_MAX];
	bool can = _i != 2;

	wst_mkdir(gb, "data");
	snprintf(dir, sizeof(dir), "%s/data", gb);
	one_grant_policy(pol, sizeof(pol), "data", dir, "\"*\"");
	wst_write(gb, "cfg/p.json", pol);
	wst_write(gb, "cfg/c.json", "{}\n");
	wst_symlink("../cfg/p.json", gb, "data/p.json");
	wst_symlink("../cfg/c.json", gb, "data/c.json");
	real = wst_path(gb, "cfg/p.json");
	inlink = wst_path(gb, "data/p.json");
	chain = wst_path(gb, "link.json");
	wst_symlink(inlink, gb, "link.json");
	/* "to-sub/..": by name gb itself, for the kernel data/ (where the
	 * link led), so the name is data/p.json, the link in the grant. */
	wst_mkdir(gb, "data/sub");
	wst_symlink("data/sub", gb, "to-sub");
	dotdot = wst_path(gb, "to-sub/../p.json");
	RUNM(&r, _i, "--policy", real, "-c", "true");
	expect_ran(&r, 0);
	ck_assert(granted(&r, "data", NULL, "read-write") == can);
	wst_run_free(&r);
	for (int k = 0; k < 4; k++) {
		if (k == 2) {
			snprintf(cfgenv, sizeof(cfgenv), "WS_CONFIG=%s/data/c.json", gb);
			run_extra_env = cfgenv;
		}
		RUNM(&r, _i, "--policy", k == 0 ? inlink : k == 1 ? chain :
		     k == 3 ? dotdot : real, "-c", "true");
		run_extra_env = NULL;
		expect_ran(&r, 0);
		ck_assert_msg(!granted(&r, "data", NULL, NULL), "%d: %s", k, r.out);
		if (can)
			ck_assert_msg(strstr(grant_why(&r, "data", NULL),
					     "spelled through") != NULL, "%d: %s", k, r.out);
		wst_run_free(&r);
	}
	wst_rmrf(gb);
	free(gb);
	free(real);
	free(inlink);
	free(chain);
	free(dotdot);
}
END_TEST

/*
 * --allow-read of a file by a second (hard) link outside a write grant:
 * its name is outside, its inode is inside, where Landlock (which only
 * adds) would let the grant write it.  The grant becomes read, so the
 * file stays as it was and nothing can be made in the grant.
 */
/*
 * A write grant that holds or is in one of HOME's persistence places
 * (issue 18): a grant of ~/.config, with systemd user units, autostart entries
 * and git's configuration in it is read-only, and isolation says why;
 * a narrower grant that reaches none stays read-write.
 */
START_TEST(policy_grant_home_persistence)
{
	struct wst_run r;
	char *gb = grant_base(), *h = wst_path(gb, "home"), *pfile = wst_path(base, "hp.json");
	char pol[4096], cmd[8192], henv[4200];
	const int m[] = {0, 3}; /* every layer; no mount namespace (Landlock) */

	wst_write(h, ".config/git/config", "[user]\n\tname = a\n");
	wst_write(h, ".config/myapp/settings", "old\n");
	snprintf(pol, sizeof(pol),
		 "{\"version\": 1, \"file_rules\": ["
		 "{\"name\": \"cfg\", \"paths\": [\"${HOME}/.config/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"app\", \"paths\": [\"${HOME}/.config/myapp/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"units\", \"paths\": [\"${HOME}/.config/systemd/user/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
		 " \"decision\": \"allow\"}]}");
	wst_write(base, "hp.json", pol);
	wst_write(h, ".config/systemd/user/old.service", "[Unit]\n");
	snprintf(cmd, sizeof(cmd),
		 "H='%s'; mkdir -p \"$H/.config/autostart\" 2>/dev/null && "
		 "echo x > \"$H/.config/autostart/x.desktop\" || echo AUTOSTART-REFUSED;"
		 "echo x > \"$H/.config/systemd/user/x.service\" || echo UNIT-REFUSED;"
		 "echo '[core]' >> \"$H/.config/git/config\" || echo GIT-REFUSED;"
		 "echo new > \"$H/.config/myapp/settings\" && echo APP-OK", h);
	snprintf(henv, sizeof(henv), "HOME=%s", h);
	run_extra_env = henv;
	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		char *c, *gc;

		RUNM(&r, m[k], "--policy", pfile, "-c", cmd);
		expect_ran(&r, 0);
		ck_assert_msg(strstr(out_str(&r, "stdout"), "AUTOSTART-REFUSED") != NULL, "%s", r.out);
		ck_assert_msg(strstr(out_str(&r, "stdout"), "UNIT-REFUSED") != NULL, "%s", r.out);
		ck_assert_msg(strstr(out_str(&r, "stdout"), "GIT-REFUSED") != NULL, "%s", r.out);
		ck_assert_msg(strstr(out_str(&r, "stdout"), "APP-OK") != NULL, "%s", r.out);
		ck_assert(!exists_in(h, ".config/autostart"));
		ck_assert(!exists_in(h, ".config/systemd/user/x.service"));
		c = wst_path(h, ".config/git/config");
		gc = wst_slurp(c, NULL);
		ck_assert_str_eq(gc, "[user]\n\tname = a\n");
		free(gc);
		free(c);
		/* What was kept read-only, and why. */
		ck_assert(granted(&r, "cfg", NULL, "read"));
		ck_assert_msg(strstr(grant_why(&r, "cfg", NULL), "holds ~/.config/") != NULL,
			      "%s", grant_why(&r, "cfg", NULL));
		ck_assert(granted(&r, "units", NULL, "read"));
		ck_assert_msg(strstr(grant_why(&r, "units", NULL), "is in ~/.config/systemd") != NULL,
			      "%s", grant_why(&r, "units", NULL));
		ck_assert(granted(&r, "app", NULL, "read-write"));
		wst_run_free(&r);
		wst_write(h, ".config/myapp/settings", "old\n");
	}
	run_extra_env = NULL;
	wst_rmrf(gb);
	free(gb);
	free(h);
	free(pfile);
}
END_TEST

/*
 * Review12 05 for grants: a policy's write grant that holds or is in a
 * persistence place below $XDG_CONFIG_HOME (not HOME's) is read-only, as
 * one of ~/.config is; one beside it stays read-write.
 */
START_TEST(policy_grant_xdg_persistence)
{
	struct wst_run r;
	char *gb = grant_base(), *x = wst_path(gb, "xdg"), *pfile = wst_path(base, "xp.json");
	char pol[4096], cmd[8192], xenv[4200];
	char *c, *gc;

	wst_write(x, "git/config", "[user]\n\tname = a\n");
	wst_write(x, "myapp/settings", "old\n");
	snprintf(pol, sizeof(pol),
		 "{\"version\": 1, \"file_rules\": ["
		 "{\"name\": \"git\", \"paths\": [\"%s/git/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"app\", \"paths\": [\"%s/myapp/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
		 " \"decision\": \"allow\"}]}", x, x);
	wst_write(base, "xp.json", pol);
	snprintf(cmd, sizeof(cmd),
		 "X='%s'; echo '[core]' >> \"$X/git/config\" || echo GIT-REFUSED;"
		 "echo new > \"$X/myapp/settings\" && echo APP-OK", x);
	snprintf(xenv, sizeof(xenv), "XDG_CONFIG_HOME=%s", x);
	run_extra_env = xenv;
	RUNM(&r, 0, "--policy", pfile, "-c", cmd);
	run_extra_env = NULL;
	expect_ran(&r, 0);
	ck_assert_msg(strstr(out_str(&r, "stdout"), "GIT-REFUSED") != NULL, "%s", r.out);
	ck_assert_msg(strstr(out_str(&r, "stdout"), "APP-OK") != NULL, "%s", r.out);
	c = wst_path(x, "git/config");
	gc = wst_slurp(c, NULL);
	ck_assert_str_eq(gc, "[user]\n\tname = a\n");
	free(gc);
	free(c);
	ck_assert(granted(&r, "git", NULL, "read"));
	ck_assert_msg(strstr(grant_why(&r, "git", NULL), "$XDG_CONFIG_HOME/git") != NULL,
		      "%s", grant_why(&r, "git", NULL));
	ck_assert(granted(&r, "app", NULL, "read-write"));
	wst_run_free(&r);
	wst_rmrf(gb);
	free(gb);
	free(x);
	free(pfile);
}
END_TEST

/*
 * Review25 08 for grants: HOME beside the workspace, and a policy's
 * write grant of ~/tools, where ~/.bashrc sources ~/tools/env: the
 * grant is read-only (what the start-up files source is a place); one
 * of ~/app, which nothing sources, stays read-write.
 */
static char *text_in(const char *dir, const char *rel);

START_TEST(policy_grant_rc_sourced)
{
	struct wst_run r;
	char *gb = grant_base(), *h = wst_path(gb, "home"), *pfile = wst_path(base, "rs.json");
	char pol[4096], cmd[8192], henv[4200];
	char *gc;

	wst_write(h, ".bashrc", "[ -f \"$HOME/tools/env\" ] && . \"$HOME/tools/env\"\n");
	wst_write(h, "tools/env", "orig\n");
	wst_write(h, "app/settings", "old\n");
	snprintf(pol, sizeof(pol),
		 "{\"version\": 1, \"file_rules\": ["
		 "{\"name\": \"tools\", \"paths\": [\"${HOME}/tools/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"app\", \"paths\": [\"${HOME}/app/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
		 " \"decision\": \"allow\"}]}");
	wst_write(base, "rs.json", pol);
	snprintf(cmd, sizeof(cmd),
		 "H='%s'; echo evil >> \"$H/tools/env\" || echo TOOLS-REFUSED;"
		 "echo new > \"$H/app/settings\" && echo APP-OK", h);
	snprintf(henv, sizeof(henv), "HOME=%s", h);
	run_extra_env = henv;
	RUNM(&r, 0, "--policy", pfile, "-c", cmd);
	run_extra_env = NULL;
	expect_ran(&r, 0);
	ck_assert_msg(strstr(out_str(&r, "stdout"), "TOOLS-REFUSED") != NULL, "%s", r.out);
	ck_assert_msg(strstr(out_str(&r, "stdout"), "APP-OK") != NULL, "%s", r.out);
	ck_assert_str_eq(gc = text_in(h, "tools/env"), "orig\n");
	free(gc);
	ck_assert(granted(&r, "tools", NULL, "read"));
	ck_assert_msg(strstr(grant_why(&r, "tools", NULL), "start-up files source") != NULL,
		      "%s", grant_why(&r, "tools", NULL));
	ck_assert(granted(&r, "app", NULL, "read-write"));
	wst_run_free(&r);
	wst_rmrf(gb);
	free(gb);
	free(h);
	free(pfile);
}
END_TEST

/*
 * Review11 03/04 for grants: HOME with stow's layout (~/.config ->
 * dotfiles/config).  A write grant of the real name of a persistence
 * place (dotfiles/config/systemd/user) reaches ~/.config/systemd as
 * much as a grant spelled through the link does: read-only, and
 * isolation says why; a grant of dotfiles/config/myapp stays
 * read-write.
 */
START_TEST(policy_grant_home_persistence_linked)
{
	struct wst_run r;
	char *gb = grant_base(), *h = wst_path(gb, "home"), *pfile = wst_path(base, "hpl.json");
	char pol[4096], cmd[8192], henv[4200];
	const int m[] = {0, 3}; /* every layer; no mount namespace (Landlock) */

	wst_write(h, "dotfiles/config/systemd/user/old.service", "[Unit]\n");
	wst_write(h, "dotfiles/config/myapp/settings", "old\n");
	wst_symlink("dotfiles/config", h, ".config");
	snprintf(pol, sizeof(pol),
		 "{\"version\": 1, \"file_rules\": ["
		 "{\"name\": \"app\", \"paths\": [\"${HOME}/dotfiles/config/myapp/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"units\", \"paths\": [\"${HOME}/dotfiles/config/systemd/user/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
		 " \"decision\": \"allow\"}]}");
	wst_write(base, "hpl.json", pol);
	snprintf(cmd, sizeof(cmd),
		 "H='%s'; echo x > \"$H/dotfiles/config/systemd/user/x.service\" || "
		 "echo UNIT-REFUSED;"
		 "echo new > \"$H/dotfiles/config/myapp/settings\" && echo APP-OK", h);
	snprintf(henv, sizeof(henv), "HOME=%s", h);
	run_extra_env = henv;
	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		RUNM(&r, m[k], "--policy", pfile, "-c", cmd);
		expect_ran(&r, 0);
		ck_assert_msg(strstr(out_str(&r, "stdout"), "UNIT-REFUSED") != NULL, "%s", r.out);
		ck_assert_msg(strstr(out_str(&r, "stdout"), "APP-OK") != NULL, "%s", r.out);
		ck_assert(!exists_in(h, "dotfiles/config/systemd/user/x.service"));
		ck_assert(granted(&r, "units", NULL, "read"));
		ck_assert_msg(strstr(grant_why(&r, "units", NULL), "~/.config/systemd") != NULL,
			      "%s", grant_why(&r, "units", NULL));
		ck_assert(granted(&r, "app", NULL, "read-write"));
		wst_run_free(&r);
		wst_write(h, "dotfiles/config/myapp/settings", "old\n");
	}
	run_extra_env = NULL;
	wst_rmrf(gb);
	free(gb);
	free(h);
	free(pfile);
}
END_TEST

START_TEST(policy_grant_narrowed_by_hard_link)
{
	struct wst_run r;
	char *gb = grant_base(), *f, *h, *txt;
	char pol[8192], dir[PATH_MAX + 8], cmd[3 * PATH_MAX];
	size_t n = 0;
	bool can = _i != 2;

	wst_write(gb, "data/f", "keep\n");
	snprintf(dir, sizeof(dir), "%s/data", gb);
	one_grant_policy(pol, sizeof(pol), "data", dir, "\"*\"");
	wst_write(gb, "p.json", pol);
	f = wst_path(gb, "data/f");
	h = wst_path(gb, "h");
	ck_assert_int_eq(link(f, h), 0);
	snprintf(cmd, sizeof(cmd), "echo x > %s; echo x > %s/new; exit 0", f, dir);
	{
		char *pfile = wst_path(gb, "p.json");

		RUNM(&r, _i, "--policy", pfile, "--allow-read", h, "-c", cmd);
		free(pfile);
	}
	expect_ran(&r, 0);
	if (can) {
		ck_assert_msg(granted(&r, "data", NULL, "read"), "%s", r.out);
		ck_assert_msg(strstr(grant_why(&r, "data", NULL), "may hold") != NULL,
			      "%s", grant_why(&r, "data", NULL));
	}
	txt = wst_slurp(f, &n);
	ck_assert_str_eq(txt, "keep\n");
	free(txt);
	{
		char *nw = wst_path(dir, "new");

		/* Without Landlock (mode 2) nothing is granted at all, and the
		 * write lands nowhere the command could reach either. */
		ck_assert_msg(access(nw, F_OK) == -1, "%s was made", nw);
		free(nw);
	}
	wst_run_free(&r);
	wst_rmrf(gb);
	free(gb);
	free(f);
	free(h);
}
END_TEST

/*
 * --allow-read of a name in a write grant that an earlier call re-pointed
 * (a symlink planted there, to a directory and a file outside): followed,
 * it granted whatever the command chose (root's keys, /etc/shadow, a raw
 * disk; tests/review/grant_allow_read_symlink.sh), and the grant stayed
 * writable, what it led to lying outside.  The call is refused, in every
 * layer set, and nothing ran.
 */
START_TEST(policy_grant_allow_read_repointed)
{
	struct wst_run r;
	char *gb = grant_base(), *pfile, *ref, *reff, *mark;
	char pol[8192], dir[PATH_MAX + 8], cmd[2 * PATH_MAX];

	wst_write(gb, "secret/id", "SECRET\n");
	wst_write(gb, "secret.txt", "SECRET\n");
	snprintf(dir, sizeof(dir), "%s/data", gb);
	wst_mkdir(gb, "data");
	one_grant_policy(pol, sizeof(pol), "data", dir, "\"*\"");
	wst_write(gb, "p.json", pol);
	pfile = wst_path(gb, "p.json");
	/* What a command given data/ read-write could leave there. */
	wst_symlink("../secret", gb, "data/ref");
	wst_symlink("../secret.txt", gb, "data/ref.txt");
	ref = wst_path(gb, "data/ref");
	reff = wst_path(gb, "data/ref.txt");
	mark = wst_path(gb, "data/ran");
	snprintf(cmd, sizeof(cmd), "cat %s/id; touch %s", ref, mark);
	for (int k = 0; k < 2; k++) {
		RUNM(&r, _i, "--policy", pfile, "--allow-read", k ? reff : ref, "-c",
		     cmd);
		ck_assert_msg(r.status == 125, "%d: %s", r.status, r.out);
		ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
		ck_assert_msg(strstr(r.out, "symlink") != NULL, "%s", r.out);
		ck_assert_msg(strstr(r.out, "SECRET") == NULL, "%s", r.out);
		wst_run_free(&r);
		ck_assert_msg(access(mark, F_OK) == -1, "%s was made", mark);
	}
	/* Named by what it leads to, it is granted as ever. */
	snprintf(cmd, sizeof(cmd), "cat %s/secret/id", gb);
	{
		char *sec = wst_path(gb, "secret");

		RUNM(&r, _i, "--policy", pfile, "--allow-read", sec, "-c", cmd);
		free(sec);
	}
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "SECRET\n");
	wst_run_free(&r);
	wst_rmrf(gb);
	free(gb);
	free(pfile);
	free(ref);
	free(reff);
	free(mark);
}
END_TEST

/*
 * --allow-read of a name in the workspace that an earlier call re-pointed
 * (a symlink to a directory outside, as with a write grant): followed, it
 * granted what the command chose; refused in every layer set.  The
 * directory outside named directly is granted as ever.  (A link that
 * stays inside is not refused, but the mount namespace cannot bind onto
 * a symlink: SANDBOX_UNAVAILABLE, as before.)
 */
START_TEST(allow_read_repointed_in_workspace)
{
	struct wst_run r;
	char *gb = grant_base(), *lnk = wst_path(ws, "ref");
	char *sec = wst_path(gb, "secret");
	char cmd[2 * PATH_MAX];

	wst_write(gb, "secret/id", "SECRET\n");
	wst_symlink(sec, ws, "ref");
	snprintf(cmd, sizeof(cmd), "cat %s/id %s/id", lnk, sec);
	RUNM(&r, _i, "--allow-read", lnk, "-c", cmd);
	ck_assert_msg(r.status == 125, "%d: %s", r.status, r.out);
	ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
	ck_assert_msg(strstr(r.out, "SECRET") == NULL, "%s", r.out);
	wst_run_free(&r);
	snprintf(cmd, sizeof(cmd), "cat %s/id", sec);
	RUNM(&r, _i, "--allow-read", sec, "-c", cmd);
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "SECRET\n");
	wst_run_free(&r);
	unlink(lnk);
	wst_rmrf(gb);
	free(gb);
	free(lnk);
	free(sec);
}
END_TEST

/*
 * --allow-read of a relative name (wsrun's current directory's): the
 * mount namespace bound it at "/tmp" + the name, which made that
 * directory at the host's "/" (as root) and left the command without it.
 * It is read at its place in every layer set, and nothing is made.
 */
START_TEST(allow_read_relative)
{
	struct wst_run r;
	char *gb = grant_base(), cwd[PATH_MAX], rel[PATH_MAX], junk[PATH_MAX + 8];
	char cmd[2 * PATH_MAX];
	char *slash = strrchr(gb, '/');

	wst_write(gb, "ro/f", "REL\n");
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	*slash = '\0';
	ck_assert_int_eq(chdir(gb), 0);
	snprintf(rel, sizeof(rel), "%s/ro", slash + 1);
	*slash = '/';
	snprintf(junk, sizeof(junk), "/tmp%s", rel);
	snprintf(cmd, sizeof(cmd), "cat %s/ro/f", gb);
	RUNM(&r, _i, "--allow-read", rel, "-c", cmd);
	ck_assert_int_eq(chdir(cwd), 0);
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "REL\n");
	wst_run_free(&r);
	*strrchr(junk, '/') = '\0';
	ck_assert_msg(access(junk, F_OK) == -1, "%s was made", junk);
	wst_rmrf(gb);
	free(gb);
}
END_TEST

/*
 * Rules that must never grant: "..", "/" (an empty variable), an
 * ancestor of the workspace, /etc, /proc, HOME, and a directory below
 * which a deny rule could match; a write grant holding the policy file
 * (a guarded entry) is refused; a write grant holding an --allow-read
 * directory becomes read.
 */
START_TEST(policy_grants_refused)
{
	struct wst_run r;
	char *gb = grant_base(), *pfile, *saved_ws, *wsg, *anc;
	char pol[16384], cmd[8192], dots[PATH_MAX * 2], xdg[PATH_MAX + 32];
	bool can = _i != 2;

	/* The workspace in gb, so that gb is an ancestor outside /tmp. */
	saved_ws = ws;
	wsg = wst_path(gb, "a/ws");
	anc = wst_path(gb, "a");
	wst_mkdir(gb, "a/ws");
	/* Enough ".." to reach / from gb, then outside. */
	snprintf(dots, sizeof(dots), "%s", gb);
	for (int k = 0; k < 40; k++)
		strcat(dots, "/..");
	strcat(dots, outside);
	wst_write(gb, "d/secret", SECRET "\n");
	wst_write(gb, "d/open", "OPEN-OK\n");
	wst_write(gb, "w/ro/keep", "keep\n");
	wst_mkdir(gb, "pol");
	pfile = wst_path(gb, "pol/grant.json");
	snprintf(pol, sizeof(pol),
		 "{\"version\": 1, \"file_rules\": ["
		 "{\"name\": \"no-secret\", \"paths\": [\"%s/d/secret\"],"
		 " \"operations\": [\"read\"], \"decision\": \"deny\"},"
		 "{\"name\": \"dots\", \"paths\": [\"%s/**\"],"
		 " \"operations\": [\"read\", \"list\"], \"decision\": \"allow\"},"
		 "{\"name\": \"root\", \"paths\": [\"${WST_UNSET_VAR:-}/**\"],"
		 " \"operations\": [\"read\", \"list\"], \"decision\": \"allow\"},"
		 "{\"name\": \"ancestor\", \"paths\": [\"%s/**\"],"
		 " \"operations\": [\"read\", \"list\"], \"decision\": \"allow\"},"
		 "{\"name\": \"etc\", \"paths\": [\"/etc/**\", \"/etc/ssh/**\"],"
		 " \"operations\": [\"read\", \"list\"], \"decision\": \"allow\"},"
		 "{\"name\": \"proc\", \"paths\": [\"/proc/**\"],"
		 " \"operations\": [\"read\", \"list\"], \"decision\": \"allow\"},"
		 "{\"name\": \"home\", \"paths\": [\"%s/**\"],"
		 " \"operations\": [\"read\", \"list\"], \"decision\": \"allow\"},"
		 "{\"name\": \"denied-below\", \"paths\": [\"%s/d/**\"],"
		 " \"operations\": [\"read\", \"list\"], \"decision\": \"allow\"},"
		 "{\"name\": \"policy-dir\", \"paths\": [\"%s/pol/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"holds-ro\", \"paths\": [\"%s/w/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"config\", \"paths\": [\"%s/cfg/**\"],"
		 " \"operations\": [\"*\"], \"decision\": \"allow\"},"
		 "{\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
		 " \"decision\": \"allow\"}]}",
		 gb, dots, anc, home, gb, gb, gb, gb);
	wst_write(gb, "pol/grant.json", pol);
	snprintf(cmd, sizeof(cmd),
		 "cat %s/secret %s/secret %s/d/secret %s/d/open; head -c 5 /etc/shadow;"
		 "echo x > %s; echo x > %s/w/ro/keep; echo x > %s/w/new;"
		 "mkdir %s/cfg/wstools; exit 0",
		 outside, home, gb, gb, pfile, gb, gb, gb);
	/* wstools' configuration place, which does not exist yet. */
	wst_mkdir(gb, "cfg");
	snprintf(xdg, sizeof(xdg), "XDG_CONFIG_HOME=%s/cfg", gb);
	run_extra_env = xdg;
	{
		char ro[PATH_MAX + 16];

		snprintf(ro, sizeof(ro), "%s/w/ro", gb);
		ws = wsg;
		RUNM(&r, _i, "--policy", pfile, "--allow-read", ro, "-c", cmd);
		ws = saved_ws;
		run_extra_env = NULL;
	}
	expect_ran(&r, 0);
	ck_assert(!granted(&r, "dots", NULL, NULL));
	ck_assert_ptr_nonnull(strstr(grant_why(&r, "dots", NULL), "\"..\""));
	ck_assert(!granted(&r, "root", NULL, NULL));
	ck_assert(!granted(&r, "ancestor", NULL, NULL));
	ck_assert_ptr_nonnull(strstr(grant_why(&r, "ancestor", NULL), "workspace"));
	ck_assert(!granted(&r, "etc", "/etc", NULL));
	ck_assert(!granted(&r, "etc", "/etc/ssh", NULL));
	ck_assert(!granted(&r, "proc", NULL, NULL));
	ck_assert(!granted(&r, "home", NULL, NULL));
	ck_assert(!granted(&r, "denied-below", NULL, NULL));
	ck_assert_ptr_nonnull(strstr(grant_why(&r, "denied-below", NULL), "no-secret"));
	ck_assert(!granted(&r, "policy-dir", NULL, NULL));
	ck_assert_msg(strstr(grant_why(&r, "policy-dir", NULL), pfile) != NULL, "%s",
		      grant_why(&r, "policy-dir", NULL));
	ck_assert_msg(granted(&r, "holds-ro", NULL, "read") == can, "%s", grant_why(&r, "holds-ro", NULL));
	ck_assert_msg(strstr(out_str(&r, "stdout"), SECRET) == NULL, "%s", r.out);
	ck_assert_ptr_null(strstr(out_str(&r, "stdout"), "OPEN-OK"));
	ck_assert_ptr_null(strstr(out_str(&r, "stdout"), "root:"));
	{
		size_t n = 0;
		char *kept = wst_path(gb, "w/ro/keep"), *txt = wst_slurp(kept, &n);

		ck_assert_str_eq(txt, "keep\n");
		free(txt);
		free(kept);
		txt = wst_slurp(pfile, &n);
		ck_assert_str_eq(txt, pol);
		free(txt);
	}
	ck_assert(!exists_in(gb, "w/new"));
	ck_assert(!granted(&r, "config", NULL, NULL));
	ck_assert_msg(strstr(grant_why(&r, "config", NULL), "wstools' own") != NULL,
		      "%s", grant_why(&r, "config", NULL));
	ck_assert(!exists_in(gb, "cfg/wstools"));
	wst_run_free(&r);
	wst_rmrf(gb);
	free(gb);
	free(wsg);
	free(anc);
	free(pfile);
}
END_TEST

/*
 * FTU8 04: ws-policy(5)'s own example (a deny rule for .env before an
 * allow-read rule of the whole project) warned "refused ... move this
 * allow rule above" on every run, advice that weakens the deny rule.
 * A vetoed grant inside the workspace adds nothing (the command reaches
 * the workspace anyway; the deny rule is masked in its view): skipped,
 * said so, no warning; and the .env stays unreadable.
 */
START_TEST(policy_grant_vetoed_inside_workspace)
{
	struct wst_run r;
	char pol[2048], *pfile;
	const char *g;

	wst_write(ws, ".env", SECRET "\n");
	wst_write(ws, "src/a.c", "int a;\n");
	snprintf(pol, sizeof(pol),
		 "{\"version\": 1, \"name\": \"agent\", \"file_rules\": ["
		 "{\"name\": \"deny-env\", \"paths\": [\"**/.env\"],"
		 " \"operations\": [\"*\"], \"decision\": \"deny\"},"
		 "{\"name\": \"read\", \"paths\": [\"${PROJECT_ROOT}\","
		 " \"${PROJECT_ROOT}/**\"], \"operations\": [\"read\", \"open\","
		 " \"stat\", \"list\", \"readlink\"], \"decision\": \"allow\"}]}");
	wst_write(base, "agent.json", pol);
	pfile = wst_path(base, "agent.json");
	RUNM(&r, _i, "--policy", pfile, "-c", "cat src/a.c .env; exit 0");
	if (fallback_refused(&r)) {
		wst_run_free(&r);
		return;
	}
	expect_ran(&r, 0);
	ck_assert(!granted(&r, "read", NULL, NULL));
	g = cJSON_GetStringValue(cJSON_GetObjectItem(grant_of(&r, "read", NULL), "status"));
	ck_assert_msg(g != NULL && strcmp(g, "skipped") == 0, "%s", r.out);
	ck_assert_msg(strstr(grant_why(&r, "read", NULL), "nothing to add") != NULL,
		      "%s", grant_why(&r, "read", NULL));
	ck_assert_ptr_nonnull(strstr(out_str(&r, "stdout"), "int a;"));
	ck_assert_msg(strstr(r.out, SECRET) == NULL, "%s", r.out);
	ck_assert_msg(strstr(r.err, "policy grant") == NULL, "%s", r.err);
	wst_run_free(&r);
	free(pfile);
}
END_TEST

/*
 * Review25 05: a command made links at names the policy refuses to read
 * (app/.env -> ../notes.txt; config/.env a hard link of config/log.txt;
 * secrets -> pub for a rule of secrets and all below), so that what the
 * person wrote there later (the keys an agent asked them to fill in)
 * went into files the agent may read.  After the command they are
 * removed and said; a plain new .env stays, and so does the person's
 * own link at a refused name from before the command, even with its
 * ctime changed by the command (touch -h).
 */
static char *text_in(const char *dir, const char *rel);
static bool reverted_has(const struct wst_run *r, const char *s);
static bool kept_has(const struct wst_run *r, const char *s);

START_TEST(policy_denied_links_removed)
{
	struct wst_run r;
	char pol[2048], *pfile, *p;
	struct stat st;

	wst_write(ws, "notes.txt", "notes\n");
	wst_write(ws, "config/log.txt", "log\n");
	wst_write(ws, "keep/target.txt", "t\n");
	p = wst_path(ws, "keep/.env");
	ck_assert_int_eq(symlink("target.txt", p), 0);
	free(p);
	/* And a hard-linked .env of the person's (review29 01). */
	wst_write(ws, "keep2/other.txt", "SECRET=1\n");
	{
		char *a = wst_path(ws, "keep2/other.txt"), *b = wst_path(ws, "keep2/.env");

		ck_assert_int_eq(link(a, b), 0);
		free(a);
		free(b);
	}
	/* Its ctime well before the command's start (a coarse clock). */
	usleep(60 * 1000);
	snprintf(pol, sizeof(pol),
		 "{\"version\": 1, \"name\": \"agent\", \"file_rules\": ["
		 "{\"name\": \"deny-env\", \"paths\": [\"**/.env\"],"
		 " \"operations\": [\"*\"], \"decision\": \"deny\"},"
		 "{\"name\": \"deny-secrets\", \"paths\": [\"${WORKSPACE}/secrets/**\"],"
		 " \"operations\": [\"read\"], \"decision\": \"deny\"}]}");
	wst_write(base, "agent.json", pol);
	pfile = wst_path(base, "agent.json");
	RUNM(&r, _i, "--policy", pfile, "-c",
	     "mkdir -p app other pub && ln -s ../notes.txt app/.env && "
	     "ln config/log.txt config/.env && ln -s pub secrets && "
	     "echo plain > other/.env && echo new > keep/new.txt && "
	     "touch -h keep/.env && touch keep2/other.txt keep2/new; exit 0");
	if (fallback_refused(&r)) {
		wst_run_free(&r);
		free(pfile);
		return;
	}
	expect_ran(&r, 0);
	ck_assert_msg(reverted_has(&r, "/app/.env: removed (a symbolic link"), "%s", r.out);
	ck_assert_msg(reverted_has(&r, "/config/.env: removed (a hard link"), "%s", r.out);
	ck_assert_msg(reverted_has(&r, "/secrets: removed (a symbolic link"), "%s", r.out);
	ck_assert(!exists_in(ws, "app/.env") && !exists_in(ws, "config/.env"));
	p = wst_path(ws, "secrets");
	ck_assert_int_eq(lstat(p, &st), -1);
	free(p);
	ck_assert(exists_in(ws, "pub") && exists_in(ws, "notes.txt"));
	p = text_in(ws, "config/log.txt");
	ck_assert_str_eq(p, "log\n");
	free(p);
	p = text_in(ws, "other/.env");
	ck_assert_str_eq(p, "plain\n");
	free(p);
	p = wst_path(ws, "keep/.env");
	ck_assert_msg(lstat(p, &st) == 0 && S_ISLNK(st.st_mode), "%s", r.out);
	free(p);
	ck_assert(!reverted_has(&r, "/keep/.env") && !reverted_has(&r, "/other/.env"));
	ck_assert_msg(exists_in(ws, "keep2/.env") && !reverted_has(&r, "/keep2/.env"),
		      "%s", r.out);
	wst_run_free(&r);
	free(pfile);
}
END_TEST

/*
 * Review25 06: the person kept working while a command ran (a pre-commit
 * install into .git/hooks, an IDE's save of .vscode/settings.json), and
 * the clean-up after the command removed and reverted it all, as the
 * command's.  Both were read-only binds in the command's namespace: the
 * command could not have made those changes, so they are left as they
 * are, and said.  A hook made where the command could write (a new
 * .git/hooks after moving .git away, the real view) still goes.
 * ftu17 09: said as "kept" (plain) and in "kept" (JSON), not as
 * "cleaned" and in "reverted", the list of what was undone.
 */
START_TEST(person_edits_during_run_kept)
{
	struct wst_run r;
	pid_t pid;
	char *t, *p;

	if (!has(_i, "mountns"))
		return;
	wst_write(ws, ".git/HEAD", "ref: refs/heads/main\n");
	wst_write(ws, ".git/config", "[core]\n\tbare = false\n");
	wst_write(ws, ".git/hooks/pre-push.sample", "#\n");
	/* A name made at the virtual root shows only after the command. */
	wst_write(ws, "sub/.keep", "");
	for (int pass = 0; pass < 2; pass++) {
		wst_write(ws, ".vscode/settings.json", "{}\n");
		p = wst_path(ws, ".git/hooks/pre-commit");
		(void)unlink(p);
		free(p);
		p = wst_path(ws, "sub/started");
		(void)unlink(p);
		free(p);
		run_plain = pass == 1;
		if ((pid = fork()) == 0) {
			/* Once the command runs (the walk before it is done). */
			for (int k = 0; k < 3000 && !exists_in(ws, "sub/started"); k++)
				usleep(10 * 1000);
			wst_write(ws, ".git/hooks/pre-commit", "#!/bin/sh\necho person\n");
			wst_write(ws, ".vscode/settings.json", "{\"person\": 1}\n");
			_exit(0);
		}
		ck_assert_int_gt(pid, 0);
		RUNM(&r, _i, "-c", "touch sub/started; sleep 3; exit 0");
		run_plain = false;
		ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
		if (pass == 0 && fallback_refused(&r)) {
			wst_run_free(&r);
			return;
		}
		t = text_in(ws, ".git/hooks/pre-commit");
		ck_assert_msg(strcmp(t, "#!/bin/sh\necho person\n") == 0, "%s", r.out);
		free(t);
		t = text_in(ws, ".vscode/settings.json");
		ck_assert_msg(strcmp(t, "{\"person\": 1}\n") == 0, "%s", r.out);
		free(t);
		if (pass == 1) {
			ck_assert_msg(r.status == 0 && strstr(r.err, "wsrun: kept "
				      "/.git/hooks/pre-commit: ") != NULL &&
				      strstr(r.err, "wsrun: kept /.vscode/settings.json: ")
				      != NULL && strstr(r.err, "left as it is") == NULL &&
				      strstr(r.err, "cleaned /.vscode") == NULL &&
				      strstr(r.err, "cleaned /.git/hooks") == NULL,
				      "%d %s", r.status, r.err);
			wst_run_free(&r);
			break;
		}
		expect_ran(&r, 0);
		ck_assert_msg(kept_has(&r, "/.git/hooks/pre-commit: made while the command ran") ||
			      kept_has(&r, "/.git/hooks/pre-commit: changed while the command ran"),
			      "%s", r.out);
		ck_assert_msg(kept_has(&r, "/.vscode/settings.json: changed while the command ran"),
			      "%s", r.out);
		ck_assert_msg(!reverted_has(&r, "/.git/hooks/pre-commit") &&
			      !reverted_has(&r, "/.vscode/settings.json"), "%s", r.out);
		wst_run_free(&r);
	}
	if (virt())
		return;
	/* Where the command could write: its own .git, the old moved away. */
	RUNM(&r, _i, "-c", "mv .git .git-old && mkdir -p .git/hooks && "
	     "printf '#!/bin/sh\\necho agent\\n' > .git/hooks/pre-commit && "
	     "echo 'ref: refs/heads/main' > .git/HEAD; exit 0");
	expect_ran(&r, 0);
	t = text_in(ws, ".git/hooks/pre-commit");
	ck_assert_msg(strstr(t, "agent") == NULL, "%s", r.out);
	free(t);
	wst_run_free(&r);
}
END_TEST

/*
 * The shipped dev-safe denies every .env first (ftu11 06): every allow rule
 * after it was vetoed, and wsrun warned on every run about its /tmp and
 * "${GIT_ROOT:-/dev/null}" grants, which no order of rules could give
 * (/tmp and /dev are never granted).  The reason without the rule, and
 * quiet; the .env stays unreadable.
 */
START_TEST(policy_shipped_dev_safe_quiet)
{
	struct wst_run r;
	const char *g;

	wst_write(ws, ".env", SECRET "\n");
	wst_write(ws, "src/a.c", "int a;\n");
	RUNM(&r, _i, "--policy", "dev-safe", "-c", "cat src/a.c .env; exit 0");
	if (fallback_refused(&r)) {
		wst_run_free(&r);
		return;
	}
	expect_ran(&r, 0);
	ck_assert_msg(strstr(r.err, "policy grant") == NULL, "%s", r.err);
	g = grant_why(&r, "allow-tmp", NULL);
	ck_assert_msg(g != NULL && strstr(g, "never granted") != NULL, "%s", r.out);
	ck_assert_ptr_nonnull(strstr(out_str(&r, "stdout"), "int a;"));
	ck_assert_msg(strstr(r.out, SECRET) == NULL, "%s", r.out);
	wst_run_free(&r);
}
END_TEST

/*
 * ftu13 06: dev-safe allows reading ${HOME}/.gitconfig, a file, and on a
 * home without one every plain wsrun warned "policy grant rule=allow-home-
 * configs dir=~/.gitconfig: refused, not a grant: ... write ~/.gitconfig/ + "**"",
 * advice that fits neither a file nor what is not there. Nothing to grant,
 * nothing said, in plain output as in JSON's notes.
 */
START_TEST(policy_dev_safe_no_gitconfig_quiet)
{
	struct wst_run r;
	char hv[4200];
	const char *env[] = {mode_env(_i), hv, suite_view(_i), NULL};
	const char *argv[] = {"--workspace", ws, "--policy", "dev-safe", "-c",
			      "true", NULL};
	const char *argvj[] = {"--workspace", ws, "--policy", "dev-safe", "--json",
			       "-c", "true", NULL};
	char *gc = wst_path(home, ".gitconfig");

	ck_assert(!wst_exists(gc));
	snprintf(hv, sizeof(hv), "HOME=%s", home);
	wst_write(ws, "src/a.c", "int a;\n");
	wst_runv(&r, NULL, env, "wsrun", argvj);
	if (fallback_refused(&r)) {
		wst_run_free(&r);
		free(gc);
		return;
	}
	expect_ran(&r, 0);
	ck_assert_msg(strstr(r.out, ".gitconfig/**") == NULL, "%s", r.out);
	wst_run_free(&r);
	wst_runv(&r, NULL, env, "wsrun", argv);
	ck_assert_msg(r.status == 0 && strstr(r.err, "policy grant") == NULL,
		      "status %d: %s", r.status, r.err);
	wst_run_free(&r);
	free(gc);
}
END_TEST

/*
 * ftu11 03: ws-policy(5)'s example says "write only under src/", which a
 * wsrun command does not keep (no rule matching is not masked); the rule
 * the page adds after it makes the project's other files read-only in a
 * command, src/ staying writable.
 */
START_TEST(policy_example_no_other_writes)
{
	struct wst_run r;
	char pol[2048], *pfile, *c;

	wst_write(ws, "README", "keep\n");
	wst_write(ws, "src/a.c", "int a;\n");
	snprintf(pol, sizeof(pol),
		 "{\"version\": 1, \"name\": \"agent\", \"file_rules\": ["
		 "{\"name\": \"read\", \"paths\": [\"${PROJECT_ROOT}\","
		 " \"${PROJECT_ROOT}/**\"], \"operations\": [\"read\", \"open\","
		 " \"stat\", \"list\", \"readlink\"], \"decision\": \"allow\"},"
		 "{\"name\": \"write-src\", \"paths\": [\"${PROJECT_ROOT}/src/**\"],"
		 " \"operations\": [\"write\", \"create\", \"mkdir\", \"rename\"],"
		 " \"decision\": \"allow\"},"
		 "{\"name\": \"no-other-writes\", \"paths\": [\"${PROJECT_ROOT}\","
		 " \"${PROJECT_ROOT}/**\"], \"operations\": [\"write\", \"create\","
		 " \"mkdir\", \"rename\", \"delete\", \"rmdir\", \"chmod\"],"
		 " \"decision\": \"deny\"}]}");
	wst_write(base, "agent.json", pol);
	pfile = wst_path(base, "agent.json");
	RUNM(&r, _i, "--policy", pfile, "-c",
	     "echo no > README; echo 'int b;' > src/a.c; exit 0");
	if (fallback_refused(&r)) {
		wst_run_free(&r);
		return;
	}
	expect_ran(&r, 0);
	wst_run_free(&r);
	c = wst_path(ws, "README");
	free(pfile);
	pfile = wst_slurp(c, NULL);
	ck_assert_str_eq(pfile, "keep\n");
	free(pfile);
	free(c);
	c = wst_path(ws, "src/a.c");
	pfile = wst_slurp(c, NULL);
	ck_assert_str_eq(pfile, "int b;\n");
	free(pfile);
	free(c);
}
END_TEST

/*
 * A chroot-like directory holding a bind of the host's /proc: granting it
 * would hand the command /proc (every process's environment), so it is
 * refused.  Needs mount(2); where the suite may not mount, it checks
 * nothing and says so.
 */
START_TEST(policy_grants_submount)
{
	struct wst_run r;
	char *gb = grant_base(), *pfile = wst_path(base, "grant.json");
	char pol[8192], cmd[8192], dir[PATH_MAX], *mp;

	wst_mkdir(gb, "ch/proc");
	mp = wst_path(gb, "ch/proc");
	if (mount("/proc", mp, NULL, MS_BIND, NULL) < 0) {
		fprintf(stderr, "policy_grants_submount: mount: %s: not checked\n",
			strerror(errno));
		goto out;
	}
	snprintf(dir, sizeof(dir), "%s/ch", gb);
	one_grant_policy(pol, sizeof(pol), "chroot", dir, "\"read\", \"list\"");
	wst_write(base, "grant.json", pol);
	/* This process's environment, through the host's /proc. */
	setenv("WST_GRANT_PROBE", "PROBE-4242", 1);
	snprintf(cmd, sizeof(cmd), "cat %s/%ld/environ; exit 0", mp, (long)getpid());
	RUNM(&r, _i, "--policy", pfile, "-c", cmd);
	umount2(mp, MNT_DETACH);
	expect_ran(&r, 0);
	ck_assert_msg(strstr(out_str(&r, "stdout"), "PROBE-4242") == NULL, "%s", r.out);
	ck_assert(!granted(&r, "chroot", NULL, NULL));
	ck_assert_msg(strstr(grant_why(&r, "chroot", NULL), "mount point") != NULL,
		      "%s", r.out);
	wst_run_free(&r);
out:
	wst_rmrf(gb);
	free(mp);
	free(gb);
	free(pfile);
}
END_TEST

/*
 * A bind mount exactly at the granted directory of part of another tree
 * (mount --bind /etc/ssh /srv/certs): walking up from it by ".." never
 * meets where it comes from, so it is refused.
 */
START_TEST(policy_grants_bind_alias)
{
	struct wst_run r;
	char *gb = grant_base(), *pfile = wst_path(base, "grant.json");
	char pol[8192], cmd[8192], *src, *mp;

	wst_write(gb, "hidden/inner/secret", SECRET "\n");
	wst_mkdir(gb, "certs");
	src = wst_path(gb, "hidden/inner");
	mp = wst_path(gb, "certs");
	if (mount(src, mp, NULL, MS_BIND, NULL) < 0) {
		fprintf(stderr, "policy_grants_bind_alias: mount: %s: not checked\n",
			strerror(errno));
		goto out;
	}
	one_grant_policy(pol, sizeof(pol), "certs", mp, "\"read\", \"list\"");
	wst_write(base, "grant.json", pol);
	snprintf(cmd, sizeof(cmd), "cat %s/secret; exit 0", mp);
	RUNM(&r, _i, "--policy", pfile, "-c", cmd);
	umount2(mp, MNT_DETACH);
	expect_ran(&r, 0);
	ck_assert_msg(strstr(out_str(&r, "stdout"), SECRET) == NULL, "%s", r.out);
	ck_assert(!granted(&r, "certs", NULL, NULL));
	if (_i != 2)
		ck_assert_msg(strstr(grant_why(&r, "certs", NULL), "bind mount") != NULL,
			      "%s", r.out);
	wst_run_free(&r);
	/* A whole file system mounted there is granted. */
	if (mount("tmpfs", mp, "tmpfs", 0, "size=64k") == 0) {
		RUNM(&r, _i, "--policy", pfile, "-c", "true");
		umount2(mp, MNT_DETACH);
		expect_ran(&r, 0);
		/* In a chroot whose "/" is a plain directory the walk up from
		 * the workspace never meets a mount's root: that it may hold
		 * the workspace by another path cannot be ruled out, so the
		 * grant is refused, saying so. */
		if (root_is_mount())
			ck_assert_msg(granted(&r, "certs", NULL, "read") == (_i != 2),
				      "%s", r.out);
		else
			ck_assert_msg(!granted(&r, "certs", NULL, NULL) &&
				      (_i == 2 || strstr(grant_why(&r, "certs", NULL),
							 "by another path") != NULL),
				      "%s", r.out);
		wst_run_free(&r);
	}
out:
	wst_rmrf(gb);
	free(src);
	free(mp);
	free(gb);
	free(pfile);
}
END_TEST

/*
 * --allow-read /etc without a mount namespace to mask its secrets: /etc
 * is granted entry by entry, as by default, and /etc/shadow stays out.
 */
START_TEST(allow_read_etc)
{
	struct wst_run r;

	RUNM(&r, _i, "--allow-read", "/etc", "--allow-read", "//etc/", "-c",
	     "head -c 5 /etc/shadow; echo; cat /etc/hostname >/dev/null && echo ETC-OK");
	expect_ran(&r, 0);
	ck_assert_msg(strstr(out_str(&r, "stdout"), "root:") == NULL, "%s",
		      out_str(&r, "stdout"));
	ck_assert_ptr_nonnull(strstr(out_str(&r, "stdout"), "ETC-OK"));
	wst_run_free(&r);
}
END_TEST

START_TEST(confine_fds_and_signals)
{
	struct wst_run r;
	char cmd[1024];
	pid_t victim = fork();
	int st;

	if (victim == 0) {
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	snprintf(cmd, sizeof(cmd),
		 "perl -e 'for (3..64) { print \"OPENFD$_\\n\" if open(my $f, "
		 "\"<&=\", $_) }'; kill %d && echo LEAK-kill; exit 0", (int)victim);
	RUNM(&r, _i, "-c", cmd);
	expect_ran(&r, 0);
	ck_assert_msg(strstr(r.out, "OPENFD") == NULL, "%s", r.out);
	ck_assert_msg(strstr(r.out, "LEAK") == NULL, "%s", r.out);
	ck_assert_int_eq(waitpid(victim, &st, WNOHANG), 0);
	kill(victim, SIGKILL);
	waitpid(victim, &st, 0);
	wst_run_free(&r);
}
END_TEST

/* A listening TCP socket, a UDP socket and a UNIX socket outside. */
struct servers {
	int tcp, udp, unx;
	int tport, uport;
	char upath[4200];
};

static void
servers_start(struct servers *s)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	socklen_t al = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_eq(bind(s->tcp, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(s->tcp, 8), 0);
	getsockname(s->tcp, (struct sockaddr *)&a, &al);
	s->tport = ntohs(a.sin_port);
	a.sin_port = 0;
	s->udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	ck_assert_int_eq(bind(s->udp, (struct sockaddr *)&a, sizeof(a)), 0);
	al = sizeof(a);
	getsockname(s->udp, (struct sockaddr *)&a, &al);
	s->uport = ntohs(a.sin_port);
	snprintf(s->upath, sizeof(s->upath), "%s/sock", outside);
	ck_assert_uint_lt(strlen(s->upath), sizeof(u.sun_path));
	memcpy(u.sun_path, s->upath, strlen(s->upath) + 1);
	s->unx = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_eq(bind(s->unx, (struct sockaddr *)&u, sizeof(u)), 0);
	ck_assert_int_eq(listen(s->unx, 8), 0);
}

static void
servers_stop(struct servers *s)
{
	close(s->tcp);
	close(s->udp);
	close(s->unx);
}

static void
net_script(const struct servers *s, char *buf, size_t n)
{
	snprintf(buf, n,
		 "use IO::Socket::INET; use IO::Socket::UNIX;"
		 "my $t = IO::Socket::INET->new(PeerAddr => '127.0.0.1', "
		 "PeerPort => %d, Proto => 'tcp', Timeout => 2);"
		 "print $t ? \"TCP-OK\\n\" : \"TCP-DENIED\\n\";"
		 "my $u = IO::Socket::INET->new(PeerAddr => '127.0.0.1', "
		 "PeerPort => %d, Proto => 'udp');"
		 "print(($u && $u->send('UDPDATA')) ? \"UDP-SENT\\n\" : \"UDP-DENIED\\n\");"
		 "my $x = IO::Socket::UNIX->new(Peer => '%s', Type => SOCK_STREAM);"
		 "print $x ? \"UNIX-OK\\n\" : \"UNIX-DENIED\\n\";",
		 s->tport, s->uport, s->upath);
}

START_TEST(confine_network)
{
	struct servers s;
	struct wst_run r;
	char script[8192], buf[64];

	servers_start(&s);
	net_script(&s, script, sizeof(script));
	RUNM(&r, _i, "--", "perl", "-e", script);
	expect_ran(&r, 0);
	/* In a network namespace a datagram may be sent: to nobody. */
	ck_assert_msg(strstr(r.out, "TCP-DENIED") &&
		      (strstr(r.out, "UNIX-DENIED") || !unix_outside_blocked(&r, _i)) &&
		      (strstr(r.out, "UDP-DENIED") || enforced(&r, "netns")),
		      "%s", r.out);
	/* Where the command may open an Internet socket (no seccomp), the
	 * namespace's own loopback is up: the datagram leaves, to nobody. */
	if (strcmp(modes[_i], "seccomp") == 0 && enforced(&r, "netns"))
		ck_assert_msg(strstr(r.out, "UDP-SENT"), "%s", r.out);
	ck_assert_int_lt(recv(s.udp, buf, sizeof(buf), 0), 0);
	{
		cJSON *net = cJSON_GetObjectItem(wst_output(&r, "isolation"), "network");

		ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(net, "enforced")));
	}
	wst_run_free(&r);
	/* --net: the host network, the same servers reachable. */
	RUNM(&r, _i, "--net", "--", "perl", "-e", script);
	expect_ran(&r, 0);
	ck_assert_msg(strstr(r.out, "TCP-OK") && strstr(r.out, "UDP-SENT"), "%s",
		      r.out);
	ck_assert_int_eq(recv(s.udp, buf, sizeof(buf), 0), 7);
	wst_run_free(&r);
	servers_stop(&s);
}
END_TEST

/*
 * A UNIX socket that a host process keeps inside the workspace (issue
 * 18): reachable under auto in a mount namespace, which cannot hide it
 * (wsrun(1) says so, and isolation.unix_sockets.inside_blocked false);
 * refused under --isolate strict, and without a mount namespace.  The
 * command's socketpair() keeps working.
 */
START_TEST(unix_socket_in_workspace)
{
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	struct wst_run r;
	char *path = wst_path(ws, "app.sock"), script[1024];
	int srv;
	struct {
		int mode;
		const char *isolate;
		bool reached;
	} cases[] = {{0, "auto", true}, {0, "strict", false}, {3, "auto", false}};

	ck_assert_uint_lt(strlen(path), sizeof(u.sun_path));
	memcpy(u.sun_path, path, strlen(path) + 1);
	srv = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_eq(bind(srv, (struct sockaddr *)&u, sizeof(u)), 0);
	ck_assert_int_eq(listen(srv, 8), 0);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		cJSON *us;

		/* In the virtual view the socket is at /app.sock. */
		snprintf(script, sizeof(script),
			 "use IO::Socket::UNIX; use Socket;"
			 "my $x = IO::Socket::UNIX->new(Peer => '%s', Type => SOCK_STREAM);"
			 "print $x ? \"UNIX-OK\\n\" : \"UNIX-DENIED\\n\";"
			 "socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, 0) and print \"PAIR-OK\\n\";",
			 virt() && view_env(cases[k].mode) == NULL ? "/app.sock" : path);

		RUNM(&r, cases[k].mode, "--isolate", cases[k].isolate, "--", "perl",
		     "-e", script);
		/* strict needs every layer: refused where one is missing. */
		if (strcmp(cases[k].isolate, "strict") == 0 &&
		    !has(cases[k].mode, "mountns")) {
			ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
			wst_run_free(&r);
			continue;
		}
		/* auto reaches it only through a mount namespace (without
		 * one the filter refuses every connect). */
		if (!has(cases[k].mode, "mountns"))
			cases[k].reached = false;
		expect_ran(&r, 0);
		ck_assert_msg(strstr(out_str(&r, "stdout"), cases[k].reached ? "UNIX-OK"
									    : "UNIX-DENIED")
				      != NULL, "%s %s: %s", modes[cases[k].mode],
			      cases[k].isolate, r.out);
		ck_assert_msg(strstr(out_str(&r, "stdout"), "PAIR-OK") != NULL, "%s", r.out);
		us = cJSON_GetObjectItem(wst_output(&r, "isolation"), "unix_sockets");
		ck_assert(cJSON_IsBool(cJSON_GetObjectItem(us, "inside_blocked")));
		ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(us, "inside_blocked")) ==
			  !cases[k].reached);
		wst_run_free(&r);
	}
	close(srv);
	unlink(path);
	free(path);
}
END_TEST

/*
 * A host datagram socket, outside: no unconnected datagram socket may
 * exist where the filter stands for the mount namespace (none, or a grant
 * that shows the host's socket), since sendmsg and sendmmsg keep the
 * address in memory, and sendto's address pointer is 64 bits (one at a
 * 4 GiB boundary has its low half 0).  Without a policy, then with a
 * grant of the socket's directory.
 */
START_TEST(confine_unix_datagram)
{
#if defined(__x86_64__)
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	struct wst_run r;
	char *gb = grant_base(), *pfile = wst_path(base, "grant.json");
	char pol[8192], script[8192], dir[PATH_MAX], buf[64];
	int srv;

	wst_mkdir(gb, "sock");
	snprintf(u.sun_path, sizeof(u.sun_path), "%s/sock/s", gb);
	ck_assert_uint_lt(strlen(gb) + 8, sizeof(u.sun_path));
	srv = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	ck_assert_int_eq(bind(srv, (struct sockaddr *)&u, sizeof(u)), 0);
	snprintf(dir, sizeof(dir), "%s/sock", gb);
	one_grant_policy(pol, sizeof(pol), "sock", dir, "\"*\"");
	wst_write(base, "grant.json", pol);
	/* Raw system calls: perl has no sendmsg of its own. */
	snprintf(script, sizeof(script),
		 "use Socket; my $a = pack_sockaddr_un('%s'); my $m = 'LEAK';"
		 "sub say_ { print $_[0], ($_[1] >= 0 ? '-SENT' : '-DENIED'), \"\\n\" }"
		 "if (!socket(S, PF_UNIX, SOCK_DGRAM, 0)) { print \"SOCKET-DENIED\\n\";"
		 " print \"DONE\\n\"; exit 0 }"
		 "my $fd = fileno(S);"
		 "say_('sendto', syscall(%d, $fd, $m, 4, 0, $a, length($a)));"
		 "my $hi = syscall(%d, 0x700000000000, 4096, 3, 0x100022, -1, 0);"
		 "pipe(R, W); syswrite(W, $a); syscall(%d, fileno(R), $hi, length($a));"
		 "say_('sendto_hi', syscall(%d, $fd, $m, 4, 0, $hi, length($a)));"
		 "my $iov = pack('QQ', unpack('Q', pack('p', $m)), 4);"
		 "my $mh = pack('QLx4QQQQLx4', unpack('Q', pack('p', $a)), length($a),"
		 " unpack('Q', pack('p', $iov)), 1, 0, 0, 0);"
		 "say_('sendmsg', syscall(%d, $fd, $mh, 0));"
		 "my $mm = $mh . pack('Lx4', 0);"
		 "say_('sendmmsg', syscall(%d, $fd, $mm, 1, 0));"
		 "print \"DONE\\n\";",
		 u.sun_path, (int)SYS_sendto, (int)SYS_mmap, (int)SYS_read,
		 (int)SYS_sendto, (int)SYS_sendmsg, (int)SYS_sendmmsg);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0)
			RUNM(&r, _i, "--", "perl", "-e", script);
		else
			RUNM(&r, _i, "--policy", pfile, "--", "perl", "-e", script);
		expect_ran(&r, 0);
		ck_assert_msg(strstr(out_str(&r, "stdout"), "DONE") != NULL, "%s", r.out);
		if (!unix_outside_blocked(&r, _i)) {
			/* Nothing stands for the mount namespace: said so. */
			while (recv(srv, buf, sizeof(buf), 0) >= 0)
				;
			wst_run_free(&r);
			continue;
		}
		ck_assert_msg(strstr(out_str(&r, "stdout"), "-SENT") == NULL,
			      "pass %d: %s", pass, r.out);
		ck_assert_msg(recv(srv, buf, sizeof(buf), 0) < 0, "pass %d: %s", pass,
			      r.out);
		wst_run_free(&r);
	}
	/* The control: with --net the filter lets it through. */
	if (_i == 3) {
		RUNM(&r, _i, "--net", "--", "perl", "-e", script);
		ck_assert_msg(strstr(out_str(&r, "stdout"), "sendmsg-SENT") != NULL,
			      "%s", r.out);
		ck_assert_int_eq(recv(srv, buf, sizeof(buf), 0), 4);
		wst_run_free(&r);
	}
	close(srv);
	wst_rmrf(gb);
	free(gb);
	free(pfile);
#endif
}
END_TEST

START_TEST(confine_guards)
{
	struct wst_run r;
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "cd '%s' && git init -q . && "
		 "git -c user.name=t -c user.email=t@e commit -q --allow-empty "
		 "-m init", ws);
	ck_assert_int_eq(system(cmd), 0);
	wst_write(ws, ".git/hooks/pre-commit.sample", "#!/bin/sh\n");
	wst_write(ws, ".bashrc", "# rc\n");
	wst_write(ws, ".git/modules/lib/hooks/README", "x\n");
	RUNM(&r, _i, "-c",
	     "echo 'touch PWNED' > .git/hooks/pre-commit; chmod +x "
	     ".git/hooks/pre-commit; echo evil >> .bashrc;"
	     "echo x > .git/modules/lib/hooks/post-checkout;"
	     "echo '[core]' >> .git/config;"
	     "echo hi > f.txt && git add f.txt && git -c user.name=t -c "
	     "user.email=t@e commit -q -m work && echo COMMITTED");
	ck_assert_str_eq(wst_code(&r), "");
	if (enforced(&r, "guards")) {
		ck_assert_msg(strstr(r.out, "COMMITTED") != NULL, "%s %s", r.out, r.err);
		ck_assert(!exists_in(ws, ".git/hooks/pre-commit"));
		ck_assert(!exists_in(ws, ".git/modules/lib/hooks/post-checkout"));
		{
			char *p = wst_path(ws, ".bashrc");
			char *rc = wst_slurp(p, NULL);

			ck_assert_str_eq(rc, "# rc\n");
			free(rc);
			free(p);
		}
		ck_assert(!exists_in(ws, "PWNED"));
	} else {
		/* Without a mount namespace, isolation says so. */
		cJSON *g = cJSON_GetObjectItem(wst_output(&r, "isolation"), "guards");

		ck_assert_ptr_nonnull(cJSON_GetObjectItem(g, "reason"));
	}
	wst_run_free(&r);
}
END_TEST

/* The policy in use, inside the workspace, stays as it is. */
START_TEST(guards_own_policy)
{
	struct wst_run r;
	char *pol = wst_path(ws, "pol.json");
	const char *text = "{\"version\": 1, \"name\": \"p\", \"file_rules\": "
			   "[{\"name\": \"all\", \"paths\": [\"**\"], "
			   "\"operations\": [\"*\"], \"decision\": \"allow\"}]}";
	char *after;

	wst_write(ws, "pol.json", text);
	RUNM(&r, 0, "--policy", pol, "-c", "echo '{}' > pol.json; echo ran");
	if (has(0, "mountns")) {
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "ran\n");
	} else {
		expect_boundary_refusal(&r);
	}
	after = wst_slurp(pol, NULL);
	ck_assert_str_eq(after, text);
	free(after);
	free(pol);
	wst_run_free(&r);
}
END_TEST

/*
 * Issue 12, section 1, through wsrun: the mount /.skills is spelled
 * through a symlink inside the workspace; a command that moves another
 * link over it (or deletes it) would redirect the next call's mount.
 * The entry is bound onto itself: the command cannot change it, and the
 * next call still reads the real skills.
 */
START_TEST(guards_anchor_spelling)
{
	struct wst_run r;
	char *skills = wst_path(base, "skills"), *lnk = wst_path(ws, "skills");
	char mnt[4200], target[4200];
	ssize_t n;

	wst_write(skills, "howto.md", "howto\n");
	wst_symlink(skills, ws, "skills");
	wst_symlink("../outside", ws, "vendor-link");
	snprintf(mnt, sizeof(mnt), "/.skills=%s:ro", lnk);
	RUNM(&r, 0, "--mount", mnt, "-c",
	     "mv -T -f vendor-link skills; ln -sfn ../outside skills; rm -f skills;"
	     " echo done");
	if (has(0, "mountns")) {
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "done\n");
	} else {
		expect_boundary_refusal(&r);
	}
	wst_run_free(&r);
	n = readlink(lnk, target, sizeof(target) - 1);
	ck_assert_int_gt(n, 0);
	target[n] = '\0';
	ck_assert_str_eq(target, skills);
	free(skills);
	free(lnk);
}
END_TEST

/*
 * Hostile review F1 and F5: a guarded entry's parent cannot be renamed
 * away and replaced by a copy (mv .git .git.orig; mkdir .git ...), and a
 * ".git" file (a worktree's gitdir) cannot be rewritten.
 */
START_TEST(guards_parents_pinned)
{
	struct wst_run r;
	char *w2 = wst_path(base, "ws2"), *gitf = wst_path(w2, ".git"), *t;
	const char *argv[] = {"--workspace", w2, "--json", "-c",
			      "echo 'gitdir: /tmp/evil' > .git; echo ran", NULL};

	wst_write(ws, ".git/hooks/pre-commit.sample", "#!/bin/sh\n");
	wst_write(ws, ".git/config", "[core]\n");
	RUNM(&r, 0, "-c", "mv .git .git.orig; mkdir -p .git/hooks; echo ran");
	expect_ran(&r, 0);
	if (enforced(&r, "guards")) {
		ck_assert(!exists_in(ws, ".git.orig"));
		ck_assert(exists_in(ws, ".git/hooks/pre-commit.sample"));
	}
	wst_run_free(&r);
	wst_write(w2, ".git", "gitdir: /nowhere\n");
	wst_runv(&r, NULL, NULL, "wsrun", argv);
	ck_assert_int_eq(r.status, 0);
	t = wst_slurp(gitf, NULL);
	ck_assert_str_eq(t, "gitdir: /nowhere\n");
	free(t);
	wst_run_free(&r);
	free(gitf);
	free(w2);
}
END_TEST

/*
 * Hostile review F3: without a mount namespace, a mount spelled through
 * a symlink inside the workspace cannot be kept as it is: auto refuses.
 */
START_TEST(fallback_refuses_boundary_entries)
{
	struct wst_run r;
	char *real = wst_path(ws, "realskills"), mnt[4200];

	wst_mkdir(ws, "realskills");
	wst_symlink("realskills", ws, "skills");
	snprintf(mnt, sizeof(mnt), "/.skills=%s/skills:ro", ws);
	RUNM(&r, 3, "--mount", mnt, "-c", "rm -f skills; echo ran");
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
	ck_assert(exists_in(ws, "skills"));
	wst_run_free(&r);
	/* With the mount namespace, the link is bound and the call runs. */
	RUNM(&r, 0, "--mount", mnt, "-c", "rm -f skills; echo ran");
	if (has(0, "mountns"))
		expect_ran(&r, 0);
	else
		expect_boundary_refusal(&r);
	ck_assert(exists_in(ws, "skills"));
	wst_run_free(&r);
	free(real);
}
END_TEST

/*
 * Hostile review F2: with HOME as the workspace, a command that creates
 * .config/wstools/config.json (a mount of / for the next call) has it
 * removed after it ends, and the result says so.
 */
START_TEST(own_config_place_reverted)
{
	struct wst_run r;
	char hv[4200];
	const char *env[] = {hv, "XDG_CONFIG_HOME=", NULL};
	const char *argv[] = {"--workspace", ws, "--json", "-c",
			      "mkdir -p .config/wstools && echo '{\"mounts\": "
			      "[\"/.x=/\"]}' > .config/wstools/config.json; echo made",
			      NULL};

	snprintf(hv, sizeof(hv), "HOME=%s", ws);
	wst_mkdir(ws, ".config");
	wst_runv(&r, NULL, env, "wsrun", argv);
	if (fallback_refused(&r)) {
		wst_run_free(&r);
		return;
	}
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
	ck_assert(!exists_in(ws, ".config/wstools"));
	ck_assert(exists_in(ws, ".config"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"reverted\":[\"/.config/wstools\"]"));
	wst_run_free(&r);
}
END_TEST

/*
 * Review 10 (03, 03d), the other processes' side: while a command that
 * made .config/wstools/config.json (HOME as the workspace; a mount of a
 * directory outside) still runs, a wsread, a wswrite and a second wsrun
 * started meanwhile as separate processes take it as absent, as the
 * server's own calls did already (ws/pending.h): the run publishes the
 * places in the user's state, out of the command's reach.  After the
 * command, the revert removes it.  In each view (_i 0: real, 1: virtual).
 */
START_TEST(own_config_place_absent_for_other_calls)
{
	char cmd[2048], hv[4200], mnt[4200], *go;
	const char *argv[] = {wst_bin("wsrun"), "--workspace", ws, "-c", cmd, NULL};
	const char *envp[] = {hv, "XDG_CONFIG_HOME=", "XDG_STATE_HOME=",
			      "PATH=/usr/bin:/bin",
			      _i ? "WS_VIEW=virtual" : "WS_VIEW=real", NULL};
	const char *env[] = {hv, "XDG_CONFIG_HOME=", "XDG_STATE_HOME=",
			     _i ? "WS_VIEW=virtual" : "WS_VIEW=real", NULL};
	const char *rd[] = {"--workspace", ws, "--json", "/h/secret", NULL};
	const char *wr[] = {"--workspace", ws, "--json", "--content", "x",
			    "/h/planted", NULL};
	const char *run2[] = {"--workspace", ws, "--json", "-c", "cat /h/secret",
			      NULL};
	posix_spawn_file_actions_t fa;
	struct wst_run r;
	bool up = false;
	pid_t pid;
	int st;

	if (_i == 1 && !has(0, "mountns"))
		return;
	snprintf(hv, sizeof(hv), "HOME=%s", ws);
	snprintf(mnt, sizeof(mnt), "/h=%s", outside);
	wst_mkdir(ws, ".config");
	/* In sub (it exists): the virtual view copies new top names only
	 * after the command. */
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p .config/wstools && echo '{\"mounts\": [\"%.900s\"]}' > "
		 ".config/wstools/config.json && touch sub/made; "
		 "i=0; while [ ! -e sub/go ] && [ $i -lt 400 ]; do sleep 0.05; "
		 "i=$((i+1)); done",
		 mnt);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv,
				     (char *const *)envp), 0);
	for (int i = 0; i < 500 && !up; i++) {
		up = exists_in(ws, "sub/made");
		if (!up)
			usleep(20000);
	}
	ck_assert_msg(up, "the command never made its configuration");
	ck_assert(exists_in(ws, ".config/wstools/config.json"));
	/* Meanwhile: no mount of the outside directory for anyone. */
	wst_runv(&r, NULL, env, "wsread", rd);
	ck_assert_msg(strstr(r.out, SECRET) == NULL, "wsread loaded it: %s", r.out);
	ck_assert_str_eq(wst_code(&r), "NOT_FOUND");
	wst_run_free(&r);
	wst_runv(&r, NULL, env, "wswrite", wr);
	{
		/* Freed: the ASan step's leak check aborts the test otherwise. */
		char *planted = wst_path(outside, "planted");

		ck_assert(!wst_exists(planted));
		free(planted);
	}
	wst_run_free(&r);
	wst_runv(&r, NULL, env, "wsrun", run2);
	ck_assert_msg(strstr(r.out, SECRET) == NULL, "wsrun loaded it: %s", r.out);
	wst_run_free(&r);
	go = wst_path(ws, "sub/go");
	wst_write(ws, "sub/go", "");
	waitpid(pid, &st, 0);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert(!exists_in(ws, ".config/wstools"));
	free(go);
	posix_spawn_file_actions_destroy(&fa);
}
END_TEST

/*
 * A record whose run and guardian are gone (nobody holds its lock: a
 * machine that went down mid-run) is not obeyed: the configuration
 * there loads, and the record is removed.
 */
START_TEST(own_config_place_stale_record)
{
	char hv[4200], line[256], *dir, *rec;
	const char *env[] = {hv, "XDG_CONFIG_HOME=", "XDG_STATE_HOME=", NULL};
	const char *rd[] = {"--workspace", ws, "--json", "/h/secret", NULL};
	struct wst_run r;
	struct stat st;

	snprintf(hv, sizeof(hv), "HOME=%s", home);
	snprintf(line, sizeof(line), "{\"mounts\": [\"/h=%.200s\"]}", outside);
	wst_write(home, ".config/wstools/config.json", line);
	dir = wst_path(home, ".config");
	ck_assert_int_eq(stat(dir, &st), 0);
	free(dir);
	snprintf(line, sizeof(line), "%llu %llu 7:wstools\n",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	wst_write(home, ".local/state/wstools/running/1-dead/places", line);
	wst_runv(&r, NULL, env, "wsread", rd);
	ck_assert_msg(strstr(r.out, SECRET) != NULL, "%s", r.out);
	wst_run_free(&r);
	rec = wst_path(home, ".local/state/wstools/running/1-dead");
	ck_assert(!wst_exists(rec));
	free(rec);
}
END_TEST

/*
 * Review 13 (01): wstools' history (~/.local/state/wstools, the default
 * state directory) keeps the old contents of files of every workspace;
 * the file tools refuse to read it, and a command in a workspace that
 * holds HOME sees an empty directory there, read-only, in both views
 * (isolation.view.masked names it).  Without a mount namespace nothing
 * can hide it: refused (_i 1).
 */
START_TEST(history_hidden_from_command)
{
	char hv[4200];
	const char *env[] = {hv, "XDG_CONFIG_HOME=", "XDG_STATE_HOME=",
			     _i ? "WS_RUN_DISABLE=mountns" : suite_view(0),
			     _i ? suite_view(3) : NULL, NULL};
	const char *argv[] = {"--workspace", ws, "--json", "-c",
			      "cat .local/state/wstools/abc/journal; "
			      "echo forged >> .local/state/wstools/abc/journal; "
			      "ls -a .local/state/wstools", NULL};
	struct wst_run r;
	char *j, *p;

	if (_i == 0 && !has(0, "mountns"))
		return;
	snprintf(hv, sizeof(hv), "HOME=%s", ws);
	wst_write(ws, ".local/state/wstools/abc/journal", SECRET "\n");
	wst_runv(&r, NULL, env, "wsrun", argv);
	ck_assert_msg(strstr(r.out, SECRET) == NULL, "the command read the "
		      "history: %s", r.out);
	if (_i == 1) {
		ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
	} else {
		expect_ran(&r, 0);
		ck_assert_ptr_nonnull(strstr(r.out, "\"masked\":[\"/.local/state/wstools\"]"));
		ck_assert_ptr_null(strstr(out_str(&r, "stdout"), "abc"));
		/*
		 * ftu12 04: said in JSON's notes as wstools' own, not as the
		 * policy's (none is loaded); plain output, on every call in
		 * such a workspace, says it only under --verbose.
		 */
		ck_assert_msg(strstr(r.out, "hidden by wstools") != NULL &&
			      strstr(r.out, "by the policy") == NULL, "%s", r.out);
		wst_run_free(&r);
		argv[2] = "--plain";
		wst_runv(&r, NULL, env, "wsrun", argv);
		ck_assert_msg(r.status == 0 && strstr(r.err, "wstools' history") == NULL &&
			      strstr(r.err, "policy") == NULL, "%s", r.err);
		wst_run_free(&r);
		argv[2] = "--verbose";
		wst_runv(&r, NULL, env, "wsrun", argv);
		ck_assert_msg(r.status == 0 && strstr(r.err, "hidden by wstools, so the "
			      "command reads them as empty: /.local/state/wstools "
			      "(wstools' history)") != NULL, "%s", r.err);
	}
	wst_run_free(&r);
	p = wst_path(ws, ".local/state/wstools/abc/journal");
	j = wst_slurp(p, NULL);
	free(p);
	ck_assert_str_eq(j, SECRET "\n");
	free(j);
}
END_TEST

/*
 * Review 13 (03): a write grant that holds the state directory
 * (--allow-write of HOME, the workspace elsewhere) shows it masked too,
 * at the grant's path: the command neither reads another workspace's
 * journal nor appends the entries the user's next undo would obey.
 */
START_TEST(history_masked_under_grant)
{
	char hv[4200], cmd[9000];
	const char *env[] = {hv, "XDG_CONFIG_HOME=", "XDG_STATE_HOME=",
			     suite_view(0), NULL};
	const char *argv[] = {"--workspace", ws, "--json", "--allow-write", home,
			      "-c", cmd, NULL};
	struct wst_run r;
	char *j, *p;

	if (!has(0, "mountns"))
		return;
	snprintf(hv, sizeof(hv), "HOME=%s", home);
	snprintf(cmd, sizeof(cmd), "cat %s/.local/state/wstools/abc/journal; "
		 "echo forged >> %s/.local/state/wstools/abc/journal; "
		 "echo made > %s/made", home, home, home);
	wst_write(home, ".local/state/wstools/abc/journal", SECRET "\n");
	wst_runv(&r, NULL, env, "wsrun", argv);
	ck_assert_msg(strstr(r.out, SECRET) == NULL, "the command read the "
		      "history: %s", r.out);
	expect_ran(&r, 0);
	/* The grant itself is writable. */
	ck_assert(exists_in(home, "made"));
	wst_run_free(&r);
	p = wst_path(home, ".local/state/wstools/abc/journal");
	j = wst_slurp(p, NULL);
	free(p);
	ck_assert_str_eq(j, SECRET "\n");
	free(j);
}
END_TEST

/*
 * Each rule of the seccomp filter, by number (x86_64): the filter is a
 * search over the numbers that have a rule (lib/sandbox.c), and a number
 * misplaced in it would be allowed.  Denied: EPERM, clone3 ENOSYS,
 * Internet sockets EAFNOSUPPORT, the terminal ioctls, the set-id bits
 * by chmod and in a file created (open, openat with O_CREAT or
 * O_TMPFILE, creat, mknod, mknodat; openat2 ENOSYS), new namespaces by
 * clone; the calls around them allowed.
 */
START_TEST(seccomp_each_rule)
{
#if defined(__x86_64__)
	struct wst_run r;

	wst_write(ws, "rules.pl",
		  "$SIG{PIPE} = 'IGNORE';\n"
		  "sub t { my ($n, @a) = @_; $! = 0; my $r = syscall($n, @a);\n"
		  "  printf '%s ', $r < 0 ? 'E' . ($! + 0) : 'ok'; }\n"
		  "t(101, 0, 0, 0, 0); t(165, 0, 0, 0, 0, 0); t(272, 0x20000000);\n"
		  "t(321, 0, 0, 0); t(425, 0, 0); t(310, 0, 0, 0, 0, 0, 0);\n"
		  "t(250, 0, 0, 0); t(248, 0, 0, 0, 0); t(246, 0, 0, 0, 0);\n"
		  "t(169, 0, 0, 0, 0); t(167, 0, 0); t(163, 0); t(172, 0);\n"
		  "t(308, 0, 0); t(428, 0, 0, 0); t(429, 0, 0, 0, 0, 0); t(442, 0, 0, 0, 0, 0);\n"
		  "t(435, 0, 0); t(41, 2, 1, 0); t(41, 10, 1, 0);\n"
		  "t(16, 0, 0x5412, 0); t(16, 0, 0x541C, 0); t(16, 99, 0x5401, 0);\n"
		  "t(16, 0, 0x800c6613, 0); t(16, 0, 0xc0506617, 0); t(16, 0, 0xc0406618, 0);\n"
		  "t(16, 0, 0xc0406619, 0);\n"
		  "open(F, '>x.tmp'); close F;\n"
		  "t(90, 'x.tmp', 04755); t(268, -100, 'x.tmp', 02755);\n"
		  "t(452, -100, 'x.tmp', 04755, 0);\n"
		  "open(F, '<x.tmp'); t(91, fileno(F), 06755); close F;\n"
		  "t(56, 0x20000000 | 17, 0, 0, 0, 0);\n"
		  "t(2, 'y.tmp', 0101, 06755); t(257, -100, 'y.tmp', 0101, 04755);\n"
		  "t(257, -100, '.', 020200001, 02755); t(85, 'y.tmp', 04755);\n"
		  "t(133, 'y.tmp', 0104755, 0); t(259, -100, 'y.tmp', 0102755, 0);\n"
		  "t(437, -100, 'x.tmp', 0, 24);\n"
		  "print \"| \";\n"
		  "t(41, 1, 1, 0); t(90, 'x.tmp', 0600); t(39); t(102); t(0, 99, 0, 0);\n"
		  "t(72, 99, 1); t(2, 'x.tmp', 0); t(257, -100, 'x.tmp', 0, 06755);\n"
		  "t(2, 'z.tmp', 0101, 0644); t(259, -100, 'w.tmp', 0100644, 0);\n"
		  "print \"\\n\"; unlink 'x.tmp', 'y.tmp', 'z.tmp', 'w.tmp';\n");
	RUNM(&r, _i, "perl", "rules.pl");
	expect_ran(&r, 0);
	if (enforced(&r, "seccomp"))
		ck_assert_str_eq(out_str(&r, "stdout"),
				 "E1 E1 E1 E1 E1 E1 E1 E1 E1 E1 E1 E1 E1 E1 E1 E1 E1 "
				 "E38 E97 E97 E1 E1 E9 E1 E1 E1 E1 E1 E1 E1 E1 E1 "
				 "E1 E1 E1 E1 E1 E1 E38 | "
				 "ok ok ok ok E9 E9 ok ok ok ok \n");
	wst_run_free(&r);
#endif
}
END_TEST

/*
 * Review 10 (01): with HOME as the workspace, wsrun keeps HOME's
 * persistence places (ws/persist.h, the ones the file tools refuse)
 * from the command: existing ones read-only, missing ones removed after
 * it (only the place: the rest of a ~/.local it made stays).  A
 * workspace inside such a place is read-only as a whole.
 */
static char *text_in(const char *dir, const char *rel);

START_TEST(home_persist_places)
{
	struct wst_run r;
	char hv[4200], *t, sub[4300];
	const char *env[] = {hv, "XDG_CONFIG_HOME=", NULL};
	const char *argv[] = {"--workspace", ws, "--json", "-c",
			      "echo evil >> .ssh/authorized_keys; echo evil >> .gitconfig; "
			      "echo evil >> .bash_aliases; mkdir -p .config/systemd/user && "
			      "echo evil > .config/systemd/user/e.service; mkdir -p .local/bin "
			      ".local/src && echo evil > .local/bin/ls && echo ok > .local/src/x; "
			      "echo made", NULL};
	const char *argv2[] = {"--workspace", sub, "--json", "-c",
			       "echo evil > ls; echo evil >> tool; echo made", NULL};

	snprintf(hv, sizeof(hv), "HOME=%s", ws);
	wst_mkdir(ws, ".ssh");
	wst_mkdir(ws, ".config");
	/* ~/.local there: only the place goes, a .local/src made stays (not
	 * .local/state, which holds mise's place: a missing parent of a
	 * place goes from its first missing component). */
	wst_mkdir(ws, ".local");
	wst_write(ws, ".ssh/authorized_keys", "orig\n");
	wst_write(ws, ".gitconfig", "[core]\n");
	wst_write(ws, ".bash_aliases", "# a\n");
	wst_runv(&r, NULL, env, "wsrun", argv);
	if (fallback_refused(&r)) {
		wst_run_free(&r);
		return;
	}
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
	ck_assert_str_eq(t = text_in(ws, ".ssh/authorized_keys"), "orig\n");
	free(t);
	ck_assert_str_eq(t = text_in(ws, ".gitconfig"), "[core]\n");
	free(t);
	ck_assert_str_eq(t = text_in(ws, ".bash_aliases"), "# a\n");
	free(t);
	ck_assert_msg(!exists_in(ws, ".config/systemd"), "%s", r.out);
	ck_assert_msg(!exists_in(ws, ".local/bin"), "%s", r.out);
	ck_assert(exists_in(ws, ".local/src/x"));
	wst_run_free(&r);
	/*
	 * Review11 (01): a place whose parent is missing, made through a
	 * link the command made for the parent (~/go -> x/go): the first
	 * missing component goes, link and all, not a place nobody finds.
	 */
	{
		const char *argv3[] = {"--workspace", ws, "--json", "-c",
				       "mkdir -p x/go/bin x/cargo/bin x/share/applications && "
				       "echo evil > x/go/bin/git && echo evil > x/cargo/bin/ls && "
				       "echo evil > x/share/applications/e.desktop && "
				       "ln -s x/go go && ln -s x/cargo .cargo && "
				       "ln -s ../x/share .local/share; echo made", NULL};

		for (int view = 0; view < 2; view++) {
			const char *a4[16];
			size_t k = 0;

			for (size_t j = 0; argv3[j] != NULL; j++) {
				a4[k++] = argv3[j];
				if (j == 2)
					a4[k++] = view ? "--view=virtual" : "--view=real";
			}
			a4[k] = NULL;
			wst_runv(&r, NULL, env, "wsrun", a4);
			expect_ran(&r, 0);
			ck_assert_msg(!exists_in(ws, "go/bin/git") && !exists_in(ws, "go"),
				      "view %d: %s", view, r.out);
			ck_assert_msg(!exists_in(ws, ".cargo/bin/ls"), "view %d: %s", view, r.out);
			ck_assert_msg(!exists_in(ws, ".local/share/applications/e.desktop"),
				      "view %d: %s", view, r.out);
			wst_run_free(&r);
			{
				char *x = wst_path(ws, "x");

				wst_rmrf(x);
				free(x);
			}
		}
	}
	/* The workspace is ~/.local/bin (made above as a plain directory). */
	wst_mkdir(ws, ".local/bin");
	wst_write(ws, ".local/bin/tool", "orig\n");
	snprintf(sub, sizeof(sub), "%s/.local/bin", ws);
	wst_runv(&r, NULL, env, "wsrun", argv2);
	expect_ran(&r, 0);
	ck_assert(!exists_in(ws, ".local/bin/ls"));
	ck_assert_str_eq(t = text_in(ws, ".local/bin/tool"), "orig\n");
	free(t);
	wst_run_free(&r);
}
END_TEST

/*
 * Review25 08, the other half: with HOME as the workspace, what the
 * person's .bashrc sources (read from it: `source ~/.my-env.sh`, a
 * missing `[ -f ~/.absent.sh ] && . ~/.absent.sh`, a loop over the
 * *.sh files of ~/.rc.d) is kept from a command, in either view: an
 * existing one read-only, a missing one removed after the run; the rest
 * of what the command wrote stays.
 */
START_TEST(home_rc_sourced_places)
{
	struct wst_run r;
	char hv[4200], *t;
	const char *env[] = {hv, "XDG_CONFIG_HOME=", NULL};

	snprintf(hv, sizeof(hv), "HOME=%s", ws);
	wst_write(ws, ".bashrc", "source ~/.my-env.sh\n"
		  "[ -f ~/.absent.sh ] && . ~/.absent.sh\n"
		  "for f in ~/.rc.d/*.sh; do . \"$f\"; done\n");
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "echo evil >> .my-env.sh; echo evil > .absent.sh; "
				      "echo evil >> .rc.d/a.sh; echo evil > .rc.d/b.sh; "
				      "echo ok > notes.txt; echo made", NULL};

		wst_write(ws, ".my-env.sh", "orig\n");
		wst_write(ws, ".rc.d/a.sh", "orig\n");
		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			return;
		}
		expect_ran(&r, 0);
		ck_assert_msg(strstr(r.out, "made") != NULL, "view %d: %s", view, r.out);
		ck_assert_str_eq(t = text_in(ws, ".my-env.sh"), "orig\n");
		free(t);
		ck_assert_str_eq(t = text_in(ws, ".rc.d/a.sh"), "orig\n");
		free(t);
		ck_assert_msg(!exists_in(ws, ".absent.sh"), "view %d: %s", view, r.out);
		ck_assert_msg(!exists_in(ws, ".rc.d/b.sh"), "view %d: %s", view, r.out);
		ck_assert_str_eq(t = text_in(ws, "notes.txt"), "ok\n");
		free(t);
		wst_run_free(&r);
	}
}
END_TEST

/*
 * Review18 08: HOME in the environment is a scratch directory (as
 * harnesses give an MCP server) and the password file's home is another:
 * wsrun keeps the places of both from the command, as the file tools
 * refuse both.  In a private mount namespace, with a password file whose
 * home for our uid is the test's: nothing real is touched.  The password
 * file's home is the workspace (its places read-only or reverted, in
 * either view), then holds the workspace in one of its places (read-only
 * as a whole), then lies outside it with ~/.config/git a link to a
 * directory in the workspace yet to be made (what the command makes
 * there is reverted; the file tools refuse it).
 */
static void
passwd_home_bind(const char *pw, const char *dir)
{
	char *line = NULL;

	ck_assert(asprintf(&line, "me:x:%u:%u::%s:/bin/sh\n", (unsigned)getuid(),
			   (unsigned)getgid(), dir) > 0);
	wst_write(base, "passwd", line);
	free(line);
	ck_assert_int_eq(mount(pw, "/etc/passwd", NULL, MS_BIND, NULL), 0);
}

START_TEST(home_persist_passwd_home)
{
	struct wst_run r;
	char hv[4200], *t, *wrapper = NULL, *pw = wst_path(base, "passwd");
	char *sub = wst_path(ws, ".local/bin"), *pwh = wst_path(base, "pwhome");
	const char *wv, *env[] = {hv, "XDG_CONFIG_HOME=", "XDG_DATA_HOME=", NULL};

	snprintf(hv, sizeof(hv), "HOME=%s", home);
	wst_write(base, "passwd", "");
	if (unshare(CLONE_NEWNS) != 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		fprintf(stderr, "home_persist_passwd_home: no mount namespace "
			"here (%s), not checked\n", strerror(errno));
		goto out;
	}
	/*
	 * The tools run here, not through the valgrind step's wrapper: its
	 * server lives outside this test's mount namespace, where the
	 * password file is not.
	 */
	if ((wv = getenv("WST_TOOL_WRAPPER")) != NULL) {
		wrapper = strdup(wv);
		unsetenv("WST_TOOL_WRAPPER");
	}
	passwd_home_bind(pw, ws);
	wst_write(ws, ".gitconfig", "[user]\n");
	wst_mkdir(ws, ".config");
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "printf '[core]\\n\\tpager = evil\\n' >> .gitconfig; "
				      "mkdir -p .ssh .config/systemd/user; "
				      "echo evil >> .ssh/authorized_keys; "
				      "echo evil > .config/systemd/user/e.service; "
				      "echo ok > notes; echo made", NULL};

		wst_runv(&r, NULL, env, "wsrun", argv);
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		ck_assert_str_eq(t = text_in(ws, ".gitconfig"), "[user]\n");
		free(t);
		ck_assert_msg(!exists_in(ws, ".ssh/authorized_keys"), "view %d: %s",
			      view, r.out);
		ck_assert_msg(!exists_in(ws, ".config/systemd"), "view %d: %s",
			      view, r.out);
		ck_assert(exists_in(ws, "notes"));
		wst_run_free(&r);
	}
	/* The workspace is the password file's home's ~/.local/bin. */
	wst_write(ws, ".local/bin/tool", "orig\n");
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", sub, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "echo evil > ls; echo evil >> tool; echo made", NULL};

		wst_runv(&r, NULL, env, "wsrun", argv);
		expect_ran(&r, 0);
		ck_assert_msg(!exists_in(sub, "ls"), "view %d: %s", view, r.out);
		ck_assert_str_eq(t = text_in(sub, "tool"), "orig\n");
		free(t);
		wst_run_free(&r);
	}
	/* The password file's home elsewhere: ~/.config/git leads into the
	 * workspace, to a directory not made yet. */
	umount2("/etc/passwd", MNT_DETACH);
	wst_mkdir(base, "pwhome/.config");
	t = wst_path(ws, "gitcfg");
	wst_symlink(t, pwh, ".config/git");
	free(t);
	passwd_home_bind(pw, pwh);
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "mkdir -p gitcfg && echo evil > gitcfg/config; "
				      "echo made", NULL};

		wst_runv(&r, NULL, env, "wsrun", argv);
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		ck_assert_msg(!exists_in(ws, "gitcfg"), "view %d: %s", view, r.out);
		wst_run_free(&r);
	}
	{
		const char *w[] = {"--workspace", ws, "--json", "--content", "x",
				   "gitcfg/config", NULL};

		wst_runv(&r, NULL, env, "wswrite", w);
		ck_assert_msg(strcmp(wst_code(&r), "POLICY_DENIED") == 0, "%s", r.out);
		ck_assert(!exists_in(ws, "gitcfg"));
		wst_run_free(&r);
	}
	umount2("/etc/passwd", MNT_DETACH);
out:
	if (wrapper != NULL)
		setenv("WST_TOOL_WRAPPER", wrapper, 1);
	free(wrapper);
	free(pw);
	free(pwh);
	free(sub);
}
END_TEST

/*
 * Review11 03/04: the workspace is HOME with stow's layout (~/.config ->
 * dotfiles/config, ~/.ssh -> dotfiles/ssh): what a command writes to the
 * places through the links does not stay, in either view, and the
 * existing ones are read-only by either name.
 */
START_TEST(home_persist_linked_parents)
{
	struct wst_run r;
	char hv[4200], *t;
	const char *env[] = {hv, "XDG_CONFIG_HOME=", NULL};

	snprintf(hv, sizeof(hv), "HOME=%s", ws);
	wst_write(ws, "dotfiles/ssh/authorized_keys", "orig\n");
	wst_mkdir(ws, "dotfiles/config");
	wst_symlink("dotfiles/config", ws, ".config");
	wst_symlink("dotfiles/ssh", ws, ".ssh");
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "mkdir -p .config/autostart .config/git; "
				      "echo evil > .config/autostart/x.desktop; "
				      "echo evil > .config/git/config; "
				      "echo evil >> .ssh/authorized_keys; "
				      "echo evil >> dotfiles/ssh/authorized_keys; "
				      "mkdir -p dotfiles/config/systemd/user; "
				      "echo evil > dotfiles/config/systemd/user/e.service; "
				      "echo made", NULL};

		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			return;
		}
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		ck_assert_str_eq(t = text_in(ws, "dotfiles/ssh/authorized_keys"), "orig\n");
		free(t);
		ck_assert_msg(!exists_in(ws, "dotfiles/config/autostart/x.desktop"),
			      "view %d: %s", view, r.out);
		ck_assert_msg(!exists_in(ws, "dotfiles/config/git/config"),
			      "view %d: %s", view, r.out);
		ck_assert_msg(!exists_in(ws, "dotfiles/config/systemd"),
			      "view %d: %s", view, r.out);
		wst_run_free(&r);
	}
}
END_TEST

/*
 * Review16 03: HOME outside the workspace, a place (~/.config/git) and
 * a directory holding places (~/.local) links into it whose targets do
 * not exist: what the command makes there (the host's
 * ~/.config/git/config, ~/.local/bin/ls) does not stay, in either view.
 */
START_TEST(home_persist_dangling_into_ws)
{
	struct wst_run r;
	char hv[4200], *t;
	const char *env[] = {hv, "XDG_CONFIG_HOME=", "XDG_DATA_HOME=", NULL};

	snprintf(hv, sizeof(hv), "HOME=%s", home);
	wst_mkdir(home, ".config");
	t = wst_path(ws, "gitcfg");
	wst_symlink(t, home, ".config/git");
	free(t);
	t = wst_path(ws, "loc");
	wst_symlink(t, home, ".local");
	free(t);
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "mkdir -p gitcfg loc/bin && "
				      "echo evil > gitcfg/config && "
				      "echo evil > loc/bin/ls && echo made", NULL};
		char *loc = wst_path(ws, "loc");

		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			return;
		}
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		ck_assert_msg(!exists_in(ws, "gitcfg"), "view %d: %s", view, r.out);
		ck_assert_msg(!exists_in(ws, "loc/bin"), "view %d: %s", view, r.out);
		wst_run_free(&r);
		wst_rmrf(loc);
		free(loc);
	}
}
END_TEST

/*
 * Review17 05 and 03: HOME outside the workspace; PATH holds
 * <ws>/tools/bin with tools -> realdir not made yet, and <ws>/a/../scripts;
 * XDG_CONFIG_HOME is <ws>/cfg with cfg -> realcfg not made yet;
 * ~/.config -> <ws>/b/../dots with b missing.  In either view the
 * command makes the links' targets and plants ls and git's
 * configuration there, makes b a link to plant ~/.config/git/config
 * through it, makes a a link to plant what a/../scripts finds, and
 * re-points tools; CARGO_HOME is <ws>/cg with cg -> cgreal, and the
 * command replaces cg with a directory to plant registry/x (sec14m):
 * what it made at the places and on their ways is removed after it, the
 * links on the ways stand, and what is beside them stays.
 */
START_TEST(persist_bases_ways)
{
	struct wst_run r;
	char hv[4200], pv[4200], xv[4200], cv[4200], lnk[PATH_MAX], *t;
	const char *env[] = {hv, pv, xv, cv, "XDG_DATA_HOME=", NULL};
	struct stat st;
	ssize_t ll;

	snprintf(hv, sizeof(hv), "HOME=%s", home);
	snprintf(pv, sizeof(pv), "PATH=%s/tools/bin:%s/a/../scripts:/usr/bin:/bin",
		 ws, ws);
	snprintf(xv, sizeof(xv), "XDG_CONFIG_HOME=%s/cfg", ws);
	/* sec14m: a base through a link that exists, replaced by the
	 * command with a directory of its own. */
	snprintf(cv, sizeof(cv), "CARGO_HOME=%s/cg", ws);
	wst_mkdir(ws, "cgreal");
	wst_symlink("cgreal", ws, "cg");
	wst_symlink("realdir", ws, "tools");
	wst_symlink("realcfg", ws, "cfg");
	wst_mkdir(ws, "a");
	wst_mkdir(ws, "scripts");
	t = wst_path(ws, "b/../dots");
	wst_symlink(t, home, ".config");
	free(t);
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "mkdir -p realdir/bin realcfg/git z/y z/dots/git "
				      "x/y x/scripts; echo evil > realdir/bin/ls; "
				      "echo evil > realcfg/git/config; ln -s z/y b; "
				      "echo evil > z/dots/git/config; rm -r a; mv a a2; "
				      "ln -s x/y a; echo evil > x/scripts/ls; rm tools; "
				      "ln -sfn other tools; rm cg; mkdir -p cg/registry; "
				      "echo evil > cg/registry/x; echo ok > a/kept; "
				      "echo made",
				      NULL};

		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			continue;
		}
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		ck_assert_msg(!exists_in(ws, "realdir/bin/ls"), "view %d: %s", view, r.out);
		ck_assert_msg(!exists_in(ws, "realcfg/git/config"), "view %d: %s",
			      view, r.out);
		t = wst_path(ws, "b");
		ck_assert_msg(lstat(t, &st) < 0, "view %d: %s", view, r.out);
		free(t);
		ck_assert_msg(!exists_in(home, ".config/git/config"), "view %d: %s",
			      view, r.out);
		t = wst_path(ws, "a");
		ck_assert_msg(lstat(t, &st) == 0 && S_ISDIR(st.st_mode), "view %d: %s",
			      view, r.out);
		free(t);
		t = wst_path(ws, "tools");
		ll = readlink(t, lnk, sizeof(lnk) - 1);
		free(t);
		ck_assert_msg(ll == 7 && memcmp(lnk, "realdir", 7) == 0, "view %d: %s",
			      view, r.out);
		ck_assert_str_eq(t = text_in(ws, "a/kept"), "ok\n");
		free(t);
		ck_assert(exists_in(ws, "x/scripts/ls"));
		t = wst_path(ws, "cg");
		ck_assert_msg(lstat(t, &st) == 0 && S_ISLNK(st.st_mode), "view %d: %s",
			      view, r.out);
		free(t);
		ck_assert_msg(!exists_in(ws, "cgreal/registry/x"), "view %d: %s",
			      view, r.out);
		wst_run_free(&r);
		/* What the run made, away for the next view. */
		for (size_t k = 0; k < 6; k++) {
			static const char *const made[] = {"realdir", "realcfg", "z",
							   "x", "a/kept", "a/y"};

			t = wst_path(ws, made[k]);
			wst_rmrf(t);
			free(t);
		}
	}
}
END_TEST

/*
 * Review17 07: a PATH directory above the workspace (the directory that
 * holds it: ~ on PATH, the project in ~/proj) leaves the workspace
 * writable in either view; only what that directory's own links lead to
 * in it (base/tool -> ws/build/tool, run as tool) is a place.  A PATH
 * directory that is the workspace keeps it read-only as a whole.
 */
/*
 * chrootfb: without a mount namespace (a chroot whose "/" is no mount
 * point; here WS_RUN_DISABLE=mountns), a file in a directory on $PATH
 * that lies in the workspace stayed writable: the command wrote "evil"
 * into build/tool and it stayed.  Now auto refuses, naming it; --isolate
 * none is the way out, and runs.
 */
START_TEST(persist_place_fallback_refused)
{
	struct wst_run r;
	char hv[4200], pv[4200], *t;
	const char *env[] = {hv, pv, "WS_RUN_DISABLE=mountns", NULL};
	const char *argv[] = {"--workspace", ws, "--json", "--view=real", "-c",
			      "echo evil > build/tool; echo made", NULL};
	const char *none[] = {"--workspace", ws, "--json", "--view=real",
			      "--isolate", "none", "-c", "echo made", NULL};

	snprintf(hv, sizeof(hv), "HOME=%s", home);
	snprintf(pv, sizeof(pv), "PATH=%s/build:/usr/bin:/bin", ws);
	wst_write(ws, "build/tool", "orig\n");
	wst_runv(&r, NULL, env, "wsrun", argv);
	expect_place_refusal(&r);
	ck_assert_msg(strstr(r.out, "build") != NULL, "%s", r.out);
	ck_assert_str_eq(t = text_in(ws, "build/tool"), "orig\n");
	free(t);
	wst_run_free(&r);
	wst_runv(&r, NULL, env, "wsrun", none);
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
	wst_run_free(&r);
}
END_TEST

START_TEST(path_dir_above_ws)
{
	struct wst_run r;
	char hv[4200], pv[4200], *t;
	const char *env[] = {hv, pv, NULL};

	snprintf(hv, sizeof(hv), "HOME=%s", home);
	snprintf(pv, sizeof(pv), "PATH=%s:/usr/bin:/bin", base);
	wst_write(ws, "build/tool", "orig\n");
	wst_symlink("ws/build/tool", base, "tool");
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "echo evil > build/tool; echo ok > src.c; "
				      "echo made", NULL};

		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			continue;
		}
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		ck_assert_str_eq(t = text_in(ws, "build/tool"), "orig\n");
		free(t);
		ck_assert_msg(strcmp(t = text_in(ws, "src.c"), "ok\n") == 0,
			      "view %d: %s", view, r.out);
		free(t);
		wst_run_free(&r);
		t = wst_path(ws, "src.c");
		unlink(t);
		free(t);
	}
	snprintf(pv, sizeof(pv), "PATH=%s:/usr/bin:/bin", ws);
	{
		const char *argv[] = {"--workspace", ws, "--json", "-c",
				      "echo ok > src.c; echo made", NULL};

		wst_runv(&r, NULL, env, "wsrun", argv);
		expect_ran(&r, 0);
		ck_assert(!exists_in(ws, "src.c"));
		wst_run_free(&r);
	}
}
END_TEST

/*
 * sec16c: HOME outside the workspace, a place reached through a link in
 * the workspace (~/.config/git -> WS/a/gitcfg, WS/a -> b; ~/.local ->
 * WS/d/l, WS/d/l -> m, a level down, where the virtual view binds no
 * top-level entry): the command can neither remove nor re-point the
 * link to plant the host's ~/.config/git/config or ~/.local/bin/ls
 * (the links are pinned), in either view; what they lead to stays
 * writable.
 */
START_TEST(home_persist_linked_through_ws)
{
	struct wst_run r;
	char hv[4200], lnk[PATH_MAX], *t;
	const char *env[] = {hv, "XDG_CONFIG_HOME=", "XDG_DATA_HOME=", NULL};
	ssize_t ll;

	snprintf(hv, sizeof(hv), "HOME=%s", home);
	wst_write(ws, "b/gitcfg/config", "orig\n");
	wst_mkdir(ws, "d/m");
	wst_symlink("b", ws, "a");
	wst_symlink("m", ws, "d/l");
	wst_mkdir(home, ".config");
	t = wst_path(ws, "a/gitcfg");
	wst_symlink(t, home, ".config/git");
	free(t);
	t = wst_path(ws, "d/l");
	wst_symlink(t, home, ".local");
	free(t);
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "rm a; mv a a2; mkdir -p a/gitcfg; "
				      "echo evil > a/gitcfg/config; "
				      "rm d/l; mv d/l d/l2; mv d d2; mkdir -p d/l/bin; "
				      "echo evil > d/l/bin/ls; "
				      "echo ok > b/other; echo ok > d/m/other; "
				      "echo made", NULL};
		char *p;

		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			continue;
		}
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		ck_assert_str_eq(t = text_in(home, ".config/git/config"), "orig\n");
		free(t);
		ck_assert_msg(!exists_in(home, ".local/bin/ls"), "view %d: %s",
			      view, r.out);
		p = wst_path(ws, "a");
		ll = readlink(p, lnk, sizeof(lnk) - 1);
		free(p);
		ck_assert_msg(ll == 1 && lnk[0] == 'b', "view %d: %s", view, r.out);
		p = wst_path(ws, "d/l");
		ll = readlink(p, lnk, sizeof(lnk) - 1);
		free(p);
		ck_assert_msg(ll == 1 && lnk[0] == 'm', "view %d: %s", view, r.out);
		ck_assert_str_eq(t = text_in(ws, "b/other"), "ok\n");
		free(t);
		ck_assert_str_eq(t = text_in(ws, "d/m/other"), "ok\n");
		free(t);
		wst_run_free(&r);
		/* What a failing run made, away for the next view. */
		p = wst_path(ws, "a2");
		wst_rmrf(p);
		free(p);
		p = wst_path(ws, "d2");
		wst_rmrf(p);
		free(p);
	}
}
END_TEST

/*
 * Review11 03/04 for the workspace itself: the workspace is the real
 * name of ~/.config/systemd (stow's ~/.config -> dotfiles/config): it
 * is read-only as a whole in either view, as ~/.config/systemd spelled
 * so is.
 */
START_TEST(home_persist_anchor_linked)
{
	struct wst_run r;
	char hv[4200], *units, *t;
	const char *env[] = {hv, "XDG_CONFIG_HOME=", NULL};

	snprintf(hv, sizeof(hv), "HOME=%s", home);
	wst_write(home, "dotfiles/config/systemd/user/old.service", "[Unit]\n");
	wst_symlink("dotfiles/config", home, ".config");
	units = wst_path(home, "dotfiles/config/systemd");
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", units, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "echo evil > user/e.service; "
				      "echo evil >> user/old.service; echo made", NULL};

		if (view == 1 && !has(0, "mountns"))
			continue;
		wst_runv(&r, NULL, env, "wsrun", argv);
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		ck_assert_msg(!exists_in(units, "user/e.service"), "view %d: %s", view, r.out);
		ck_assert_str_eq(t = text_in(units, "user/old.service"), "[Unit]\n");
		free(t);
		wst_run_free(&r);
	}
	free(units);
}
END_TEST

/*
 * Review12 02: the places review12 found missing from HOME's list, with
 * HOME the workspace: Python's user site (a .pth there runs in every
 * later python3), IPython's start-up, Gradle's init scripts, ~/.hgrc,
 * ~/.gdbinit, VS Code's user settings, Neovim's site.  What the command
 * made there does not stay, in either view, where ~/.local/lib exists
 * (read-only then) or not (removed after).
 */
START_TEST(home_persist_places_review12)
{
	static const char *const made[] = {
		".local/lib/python3.11/site-packages/a.pth",
		".ipython/profile_default/startup/a.py", ".gradle/init.d/a.gradle",
		".hgrc", ".gdbinit", ".config/Code/User/tasks.json",
		".local/share/nvim/site/plugin/a.vim",
		/* Review13 02. */
		".bash_completion", ".zcompdump", ".pyenv/shims/python3",
		".pyenv/version", ".rustup/toolchains/stable/bin/cargo",
		".cargo/registry/src/idx/dep-1.0/build.rs", ".terraformrc",
		".julia/config/startup.jl", ".ghci", ".condarc", ".nvm/nvm.sh",
	};
	struct wst_run r;
	char hv[4200];
	const char *env[] = {hv, "XDG_CONFIG_HOME=", NULL};

	snprintf(hv, sizeof(hv), "HOME=%s", ws);
	for (int round = 0; round < 4; round++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      round % 2 ? "--view=virtual" : "--view=real", "-c",
				      "for f in .local/lib/python3.11/site-packages/a.pth "
				      ".ipython/profile_default/startup/a.py "
				      ".gradle/init.d/a.gradle .hgrc .gdbinit "
				      ".config/Code/User/tasks.json "
				      ".local/share/nvim/site/plugin/a.vim "
				      ".bash_completion .zcompdump .pyenv/shims/python3 "
				      ".pyenv/version .rustup/toolchains/stable/bin/cargo "
				      ".cargo/registry/src/idx/dep-1.0/build.rs "
				      ".terraformrc .julia/config/startup.jl .ghci "
				      ".condarc .nvm/nvm.sh; do "
				      "mkdir -p \"$(dirname $f)\"; echo evil > $f; done; "
				      "echo made", NULL};

		if (round == 2) {
			wst_mkdir(ws, ".local/lib");
			wst_mkdir(ws, ".config");
			wst_mkdir(ws, ".pyenv/shims");
			wst_mkdir(ws, ".cargo/registry/src/idx/dep-1.0");
			wst_mkdir(ws, ".rustup/toolchains/stable/bin");
		}
		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			return;
		}
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
			ck_assert_msg(!exists_in(ws, made[i]), "round %d: %s: %s",
				      round, made[i], r.out);
		wst_run_free(&r);
	}
}
END_TEST

/*
 * With HOME the workspace (~/.config and ~/.local/share there, as in any
 * used HOME), what a command plants in each of places does not stay, in
 * either view.
 */
static void
places_kept_out(const char *const *places, size_t np)
{
	struct wst_run r;
	char hv[4200], *cmd;
	size_t cl = 64;
	const char *env[] = {hv, "XDG_CONFIG_HOME=", "XDG_DATA_HOME=", NULL};

	for (size_t i = 0; i < np; i++)
		cl += 2 * strlen(places[i]) + 64;
	ck_assert((cmd = malloc(cl)) != NULL);
	strcpy(cmd, "for f in");
	for (size_t i = 0; i < np; i++) {
		strcat(cmd, " ");
		strcat(cmd, places[i]);
	}
	strcat(cmd, "; do mkdir -p \"$(dirname $f)\"; echo evil > $f; done; echo made");
	snprintf(hv, sizeof(hv), "HOME=%s", ws);
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      cmd, NULL};

		wst_mkdir(ws, ".config");
		wst_mkdir(ws, ".local/share");
		wst_runv(&r, NULL, env, "wsrun", argv);
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		for (size_t i = 0; i < np; i++)
			ck_assert_msg(!exists_in(ws, places[i]), "view %d: %s: %s",
				      view, places[i], r.out);
		wst_run_free(&r);
	}
	free(cmd);
}

/*
 * Review14 02: with HOME the workspace (~/.config and ~/.local/share
 * there, as in any used HOME), what a command plants in each of the
 * places of tests/common/places.c (the file tools' suite checks the same
 * list) does not stay, in either view; nor with XDG_CONFIG_HOME and
 * XDG_DATA_HOME elsewhere in the workspace, for the ones below them.
 */
START_TEST(home_persist_places_review14)
{
	struct wst_run r;
	char hv[4200], *xc, *xd;
	const char *env[] = {hv, "XDG_CONFIG_HOME=", "XDG_DATA_HOME=", NULL};

	places_kept_out(wst_review14_places, wst_review14_nplaces);
	snprintf(hv, sizeof(hv), "HOME=%s", ws);
	/* The XDG bases elsewhere in the workspace take theirs. */
	ck_assert(asprintf(&xc, "XDG_CONFIG_HOME=%s/xc", ws) > 0);
	ck_assert(asprintf(&xd, "XDG_DATA_HOME=%s/xd", ws) > 0);
	env[1] = xc;
	env[2] = xd;
	wst_mkdir(ws, "xc");
	/* Jupyter's own directory there: the first missing component of a
	 * place goes as a whole, the rest of an existing one stays. */
	wst_mkdir(ws, "xd/jupyter");
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "mkdir -p xc/mise xc/kitty xd/jupyter/kernels/p xd/pnpm && "
				      "echo evil > xc/mise/config.toml && echo evil > xc/kitty/kitty.conf && "
				      "echo evil > xd/jupyter/kernels/p/kernel.json && "
				      "echo evil > xd/pnpm/pnpm && mkdir -p xd/jupyter/other && "
				      "echo ok > xd/jupyter/other/x; echo made", NULL};

		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			return;
		}
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		ck_assert_msg(!exists_in(ws, "xc/mise/config.toml"), "view %d: %s", view, r.out);
		ck_assert_msg(!exists_in(ws, "xc/kitty/kitty.conf"), "view %d: %s", view, r.out);
		ck_assert_msg(!exists_in(ws, "xd/jupyter/kernels/p/kernel.json"), "view %d: %s",
			      view, r.out);
		ck_assert_msg(!exists_in(ws, "xd/pnpm/pnpm"), "view %d: %s", view, r.out);
		/* The rest of the base is the command's. */
		ck_assert_msg(exists_in(ws, "xd/jupyter/other/x"), "view %d: %s", view, r.out);
		wst_run_free(&r);
	}
	free(xc);
	free(xd);
}
END_TEST

/*
 * Review16 01: with HOME the workspace, what a command plants in each of
 * those places does not stay, in either view; nor with XDG_CONFIG_HOME
 * and XDG_DATA_HOME elsewhere in the workspace, for some below them.
 */
START_TEST(home_persist_places_review16)
{
	struct wst_run r;
	char hv[4200], *xc, *xd;
	const char *env[] = {hv, "XDG_CONFIG_HOME=", "XDG_DATA_HOME=", NULL};

	places_kept_out(wst_review16_places, wst_review16_nplaces);
	snprintf(hv, sizeof(hv), "HOME=%s", ws);
	/* The XDG bases elsewhere in the workspace take theirs. */
	ck_assert(asprintf(&xc, "XDG_CONFIG_HOME=%s/xc", ws) > 0);
	ck_assert(asprintf(&xd, "XDG_DATA_HOME=%s/xd", ws) > 0);
	env[1] = xc;
	env[2] = xd;
	wst_mkdir(ws, "xc");
	wst_mkdir(ws, "xd/uv");
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "mkdir -p xc/go xc/helix xd/direnv/allow xd/uv/tools/x "
				      "xd/uv/cache && echo evil > xc/go/env && "
				      "echo evil > xc/helix/languages.toml && "
				      "echo evil > xd/direnv/allow/h && echo evil > xd/uv/tools/x/x && "
				      "echo ok > xd/uv/cache/x; echo made", NULL};

		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			return;
		}
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		ck_assert_msg(!exists_in(ws, "xc/go/env"), "view %d: %s", view, r.out);
		ck_assert_msg(!exists_in(ws, "xc/helix/languages.toml"), "view %d: %s", view, r.out);
		ck_assert_msg(!exists_in(ws, "xd/direnv/allow/h"), "view %d: %s", view, r.out);
		ck_assert_msg(!exists_in(ws, "xd/uv/tools/x/x"), "view %d: %s", view, r.out);
		/* The rest of the base is the command's. */
		ck_assert_msg(exists_in(ws, "xd/uv/cache/x"), "view %d: %s", view, r.out);
		wst_run_free(&r);
	}
	free(xc);
	free(xd);
}
END_TEST

/*
 * Review18 05: with HOME the workspace, what a command plants in each of
 * the places review18 found missing does not stay, in either view.
 */
START_TEST(home_persist_places_review18)
{
	places_kept_out(wst_review18_places, wst_review18_nplaces);
}
END_TEST

/*
 * Review28 07: with HOME the workspace, coding agents' user configuration
 * (the MCP servers and hooks they start at the person's next session):
 * what a command plants in a missing one does not stay, and one that
 * exists (Claude Code's ~/.claude.json, Codex's config.toml) is as it
 * was, in either view.
 */
START_TEST(home_persist_places_review28)
{
	struct wst_run r;
	char hv[4200], *t;
	const char *env[] = {hv, NULL};

	places_kept_out(wst_review28_places, wst_review28_nplaces);
	snprintf(hv, sizeof(hv), "HOME=%s", ws);
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "echo '{\"mcpServers\":{}}' > .claude.json; "
				      "echo '[mcp_servers.x]' >> .codex/config.toml; "
				      "echo ok > notes.txt; echo made", NULL};

		wst_write(ws, ".claude.json", "{\"numStartups\":3}\n");
		wst_write(ws, ".codex/config.toml", "model = \"x\"\n");
		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			continue;
		}
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		ck_assert_str_eq(t = text_in(ws, ".claude.json"), "{\"numStartups\":3}\n");
		free(t);
		ck_assert_str_eq(t = text_in(ws, ".codex/config.toml"), "model = \"x\"\n");
		free(t);
		ck_assert(exists_in(ws, "notes.txt"));
		wst_run_free(&r);
	}
}
END_TEST

/*
 * Review14 01: wsrun's own PATH holds directories in the workspace (an
 * activated venv's bin/, a node_modules/.bin not made yet, a relative
 * "." entry).  In either view, what a command drops in an existing one
 * is refused (read-only) and a missing one it makes goes after the run
 * from its first missing component; the venv's other directories, and
 * the workspace's top (the relative entry is no place), stay the
 * command's.
 */
START_TEST(path_dirs_places)
{
	struct wst_run r;
	char *pv, *t;
	const char *env[] = {NULL, NULL};

	ck_assert(asprintf(&pv, "PATH=%s/.venv/bin:%s/nm/.bin:.:%s", ws, ws,
			   getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin") > 0);
	env[0] = pv;
	wst_mkdir(ws, ".venv/lib");
	wst_write(ws, ".venv/bin/pip", "#!/bin/sh\necho pip\n");
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "echo evil > .venv/bin/ls; echo evil >> .venv/bin/pip; "
				      "mkdir -p nm/.bin && echo evil > nm/.bin/git; "
				      "echo ok > .venv/lib/x.py; echo ok > top; echo made", NULL};

		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			continue;
		}
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		ck_assert_msg(!exists_in(ws, ".venv/bin/ls"), "view %d: %s", view, r.out);
		ck_assert_str_eq(t = text_in(ws, ".venv/bin/pip"), "#!/bin/sh\necho pip\n");
		free(t);
		ck_assert_msg(!exists_in(ws, "nm"), "view %d: %s", view, r.out);
		ck_assert_msg(exists_in(ws, ".venv/lib/x.py"), "view %d: %s", view, r.out);
		ck_assert_msg(exists_in(ws, "top"), "view %d: %s", view, r.out);
		wst_run_free(&r);
	}
	free(pv);
}
END_TEST

/*
 * Review12 05: HOME outside the workspace, XDG_CONFIG_HOME, XDG_DATA_HOME,
 * ZDOTDIR, PYTHONUSERBASE and GIT_CONFIG_GLOBAL (of wsrun's environment:
 * the host programs' one) in it.  What a command makes in their places
 * does not stay, in either view; an existing one is kept as it was; the
 * rest of each base is the command's.
 */
START_TEST(xdg_persist_places)
{
	static const char *const made[] = {
		"xdg/git/config", "xdg/systemd/user/x.service", "data/applications/x.desktop",
		"zdot/.zshenv", "pyu/lib/python3.11/site-packages/a.pth", "gitcfg",
	};
	struct wst_run r;
	char *e[6], *t;
	const char *env[7];

	ck_assert(asprintf(&e[0], "XDG_CONFIG_HOME=%s/xdg", ws) > 0);
	ck_assert(asprintf(&e[1], "XDG_DATA_HOME=%s/data", ws) > 0);
	ck_assert(asprintf(&e[2], "ZDOTDIR=%s/zdot", ws) > 0);
	ck_assert(asprintf(&e[3], "PYTHONUSERBASE=%s/pyu", ws) > 0);
	ck_assert(asprintf(&e[4], "GIT_CONFIG_GLOBAL=%s/gitcfg", ws) > 0);
	ck_assert(asprintf(&e[5], "HOME=%s", home) > 0);
	for (size_t i = 0; i < 6; i++)
		env[i] = e[i];
	env[6] = NULL;
	wst_mkdir(ws, "xdg");
	wst_write(ws, "data/systemd/user/keep.service", "orig\n");
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "for f in xdg/git/config xdg/systemd/user/x.service "
				      "data/applications/x.desktop zdot/.zshenv "
				      "pyu/lib/python3.11/site-packages/a.pth gitcfg; do "
				      "mkdir -p \"$(dirname $f)\"; echo evil > $f; done; "
				      "echo evil >> data/systemd/user/keep.service; "
				      "mkdir -p xdg/myapp && echo ok > xdg/myapp/x; echo made", NULL};

		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			continue;
		}
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
			ck_assert_msg(!exists_in(ws, made[i]), "view %d: %s: %s",
				      view, made[i], r.out);
		ck_assert_str_eq(t = text_in(ws, "data/systemd/user/keep.service"), "orig\n");
		free(t);
		ck_assert(exists_in(ws, "xdg/myapp/x"));
		wst_run_free(&r);
	}
	for (size_t i = 0; i < 6; i++)
		free(e[i]);
}
END_TEST

/*
 * Hostile review F6: no setuid or setgid file is left in the workspace
 * (nosuid inside, but not on the host): chmod, fchmod and fchmodat refuse
 * the bits, and open with O_CREAT refuses a mode with them, whatever the
 * layer set that holds seccomp.
 */
START_TEST(no_setid_bits)
{
	struct wst_run r;
	struct stat st;
	char *p = wst_path(ws, "suid");

	RUNM(&r, _i, "-c", "cp /bin/sh suid; chmod 4755 suid; chmod g+s suid; "
	     "install -m 6755 /bin/sh suid2 2>/dev/null; "
	     "perl -MFcntl -e 'sysopen(F, \"suid3\", O_WRONLY | O_CREAT, 06755)'; "
	     "echo done");
	expect_ran(&r, 0);
	if (enforced(&r, "seccomp")) {
		ck_assert_int_eq(stat(p, &st), 0);
		ck_assert_int_eq(st.st_mode & (S_ISUID | S_ISGID), 0);
		free(p);
		p = wst_path(ws, "suid2");
		if (stat(p, &st) == 0)
			ck_assert_int_eq(st.st_mode & (S_ISUID | S_ISGID), 0);
		/* Created with the bits (review12 03): not made at all. */
		free(p);
		p = wst_path(ws, "suid3");
		if (stat(p, &st) == 0)
			ck_assert_int_eq(st.st_mode & (S_ISUID | S_ISGID), 0);
	}
	wst_run_free(&r);
	free(p);
}
END_TEST

/*
 * Hostile review F2 (persistence): .envrc, .vscode/ and rc files that did
 * not exist are removed when a command creates them; git init in a
 * subdirectory still makes its .git (at the top it would move GIT_ROOT:
 * git_init_top_reverted).
 */
START_TEST(persist_guards_reverted)
{
	struct wst_run r;

	RUNM(&r, 0, "-c", "echo 'export X=1' > .envrc; mkdir -p .vscode; "
	     "echo {} > .vscode/tasks.json; echo x > .bashrc; git init -q sub; "
	     "echo made");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
	ck_assert(!exists_in(ws, ".envrc"));
	ck_assert(!exists_in(ws, ".vscode"));
	ck_assert(!exists_in(ws, ".bashrc"));
	ck_assert(exists_in(ws, "sub/.git/HEAD"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"/.envrc\""));
	wst_run_free(&r);
}
END_TEST

/*
 * Review22 01: an editor opening a subdirectory as its folder reads its
 * .vscode/ (tasks.json "runOn": "folderOpen") or .idea/ (run
 * configurations) too: below the top, one a command made is removed, and
 * what a user's held is as it was, also in its subdirectories.
 */
START_TEST(nested_editor_settings_reverted)
{
	struct wst_run r;
	char *t;

	wst_write(ws, "sub/.vscode/settings.json", "{\"a\":1}\n");
	wst_write(ws, "b/.idea/runConfigurations/x.xml", "<r/>\n");
	/*
	 * The top's are read-only in the command's mount namespace; in the
	 * fallback without one (mode 3), the walk puts them back too (they
	 * stayed changed: a tasks.json made there runs when the person opens
	 * the folder).
	 */
	wst_write(ws, ".vscode/settings.json", "{\"top\":1}\n");
	RUNM(&r, _i, "-c", "echo x >> .vscode/settings.json; "
	     "echo '{\"tasks\":[]}' > .vscode/tasks.json; "
	     "echo x >> sub/.vscode/settings.json; "
	     "echo '{\"tasks\":[]}' > sub/.vscode/tasks.json; mkdir -p a/.idea; "
	     "echo z > a/.idea/workspace.xml; echo evil > b/.idea/runConfigurations/x.xml; "
	     "mkdir b/.idea/n; echo q > b/.idea/n/y; echo made");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
	ck_assert(!exists_in(ws, "sub/.vscode/tasks.json"));
	ck_assert(!exists_in(ws, "a/.idea"));
	ck_assert(!exists_in(ws, "b/.idea/n"));
	t = text_in(ws, "sub/.vscode/settings.json");
	ck_assert_str_eq(t, "{\"a\":1}\n");
	free(t);
	t = text_in(ws, "b/.idea/runConfigurations/x.xml");
	ck_assert_str_eq(t, "<r/>\n");
	free(t);
	t = text_in(ws, ".vscode/settings.json");
	ck_assert_str_eq(t, "{\"top\":1}\n");
	free(t);
	ck_assert(!exists_in(ws, ".vscode/tasks.json"));
	wst_run_free(&r);
}
END_TEST

/*
 * Review28 03: the folder settings other programs run from
 * (.claude/settings.json, .devcontainer/devcontainer.json, ...) were
 * removed after a command only where their folder existed: in a project
 * without .claude/, a command's mkdir .claude and hooks file stayed.  A
 * folder the command made goes whole now, with what else it put there
 * (the result names it); in a folder that was there only the guarded
 * file goes.
 */
START_TEST(folder_guards_missing_folder)
{
	struct wst_run r;
	static const char *const gone[] = {
		".claude", ".devcontainer", ".cursor", ".helix", ".zed/tasks.json",
		".zed/settings.json",
	};

	wst_write(ws, ".zed/keep.json", "{}\n");
	RUNM(&r, _i, "-c", "mkdir -p .claude/commands .devcontainer .cursor .helix && "
	     "echo '{\"hooks\":{}}' > .claude/settings.json && "
	     "echo '{}' > .claude/settings.local.json && echo c > .claude/commands/c.md && "
	     "echo '{}' > .devcontainer/devcontainer.json && "
	     "echo FROM > .devcontainer/Dockerfile && echo '{}' > .cursor/mcp.json && "
	     "echo x > .helix/languages.toml && echo '[]' > .zed/tasks.json && "
	     "echo '{}' > .zed/settings.json && echo o > .zed/other.json && echo made");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		ck_assert_msg(!exists_in(ws, gone[i]), "mode %d: %s stayed: %s", _i,
			      gone[i], r.out);
	ck_assert(reverted_has(&r, "/.claude"));
	ck_assert(reverted_has(&r, "/.devcontainer"));
	ck_assert(reverted_has(&r, "/.zed/tasks.json"));
	/* What the folder held before, and the rest of it, stay. */
	ck_assert(exists_in(ws, ".zed/keep.json"));
	ck_assert(exists_in(ws, ".zed/other.json"));
	wst_run_free(&r);
}
END_TEST

/* Whether git is installed (CI has it); git tests skip without it. */
static bool
have_git(void)
{
	return system("git --version >/dev/null 2>&1") == 0;
}

/* The text of dir/rel, or "" (malloc'd). */
static char *
text_in(const char *dir, const char *rel)
{
	char *p = wst_path(dir, rel), *t = wst_slurp(p, NULL);

	free(p);
	return t != NULL ? t : strdup("");
}

/* Whether the result's "reverted" holds an entry starting with s. */
static bool
reverted_has(const struct wst_run *r, const char *s)
{
	cJSON *rv = wst_output(r, "reverted"), *e;

	cJSON_ArrayForEach(e, rv)
		if (cJSON_IsString(e) && strncmp(e->valuestring, s, strlen(s)) == 0)
			return true;
	return false;
}

/* Whether the result's "kept" holds an entry starting with s. */
static bool
kept_has(const struct wst_run *r, const char *s)
{
	cJSON *rv = wst_output(r, "kept"), *e;

	cJSON_ArrayForEach(e, rv)
		if (cJSON_IsString(e) && strncmp(e->valuestring, s, strlen(s)) == 0)
			return true;
	return false;
}

/*
 * Review14 01, the edge: a directory on wsrun's PATH that does not exist
 * when the command starts may not be made by it either (a later shell
 * with that PATH would run what the command put there, as from one that
 * existed).  A venv made under an activated but missing .venv/bin goes
 * whole, from its first missing directory, and the result says so; with
 * .venv there and only its bin/ missing, bin/ goes and the rest of the
 * venv stays; both views.  The same venv made with a PATH without it
 * stays (wsrun(1), PATH directories: the way to make one on purpose).
 */
START_TEST(path_dir_missing_made)
{
	static const char *const mk =
		"mkdir -p .venv/bin .venv/lib && echo home > .venv/pyvenv.cfg && "
		"printf '#!/bin/sh\\necho evil\\n' > .venv/bin/ls && "
		"chmod 755 .venv/bin/ls && echo made";
	struct wst_run r;
	char *pv, *plain, *rm;
	const char *env[] = {NULL, NULL};

	ck_assert(asprintf(&pv, "PATH=%s/.venv/bin:/usr/bin:/bin", ws) > 0);
	ck_assert(asprintf(&rm, "rm -rf '%s/.venv'", ws) > 0);
	ck_assert(asprintf(&plain, "PATH=/usr/bin:/bin") > 0);
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      mk, NULL};

		env[0] = pv;
		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			return;
		}
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "made\n");
		ck_assert_msg(!exists_in(ws, ".venv"), "view %d: %s", view, r.out);
		ck_assert_msg(reverted_has(&r, "/.venv"), "view %d: %s",
			      view, r.out);
		wst_run_free(&r);
		/* .venv there, its bin/ not: bin/ goes, the rest stays. */
		wst_mkdir(ws, ".venv/lib");
		wst_runv(&r, NULL, env, "wsrun", argv);
		expect_ran(&r, 0);
		ck_assert_msg(!exists_in(ws, ".venv/bin"), "view %d: %s", view, r.out);
		ck_assert_msg(exists_in(ws, ".venv/pyvenv.cfg"), "view %d: %s", view,
			      r.out);
		wst_run_free(&r);
		ck_assert_int_eq(system(rm), 0);
		/* Made on purpose, the directory off PATH: it stays. */
		env[0] = plain;
		wst_runv(&r, NULL, env, "wsrun", argv);
		expect_ran(&r, 0);
		ck_assert_msg(exists_in(ws, ".venv/bin/ls"), "view %d: %s", view, r.out);
		wst_run_free(&r);
		ck_assert_int_eq(system(rm), 0);
	}
	free(pv);
	free(plain);
	free(rm);
}
END_TEST

/*
 * Review14 01: a PATH directory spelled through a link the workspace
 * holds (PATH=<ws>/tools/bin, tools -> a directory elsewhere): its real
 * path is no place of the workspace, but its spelling is, or a command
 * removes the link, makes tools/bin itself and plants tools/bin/ls
 * there for the next shell.  The link is pinned (real view); the
 * virtual view's copy of it changes nothing.
 */
START_TEST(path_dir_spelled_through_link)
{
	struct wst_run r;
	char *pv, *other = wst_path(base, "path-elsewhere");
	const char *env[] = {NULL, NULL};

	wst_mkdir(base, "path-elsewhere/bin");
	wst_symlink(other, ws, "tools");
	ck_assert(asprintf(&pv, "PATH=%s/tools/bin:/usr/bin:/bin", ws) > 0);
	env[0] = pv;
	for (int view = 0; view < 2; view++) {
		const char *argv[] = {"--workspace", ws, "--json",
				      view ? "--view=virtual" : "--view=real", "-c",
				      "rm tools; mkdir -p tools/bin; echo evil > tools/bin/ls; "
				      "chmod 755 tools/bin/ls; echo done", NULL};
		struct stat st;
		char *lnk = wst_path(ws, "tools");

		wst_runv(&r, NULL, env, "wsrun", argv);
		if (fallback_refused(&r)) {
			wst_run_free(&r);
			continue;
		}
		expect_ran(&r, 0);
		ck_assert_msg(lstat(lnk, &st) == 0 && S_ISLNK(st.st_mode),
			      "view %d: %s", view, r.out);
		ck_assert_msg(!exists_in(other, "bin/ls"), "view %d: %s", view, r.out);
		wst_run_free(&r);
		free(lnk);
	}
	free(pv);
	free(other);
}
END_TEST

/*
 * Issue 18, 1: whatever a command leaves in a repository's own directory,
 * at any depth, old or made by it, a later git on the host runs nothing
 * it chose and reads no configuration from elsewhere: config keys off
 * the allowlist that were not there before, commondir, config.worktree,
 * a worktree's commondir elsewhere, alternates, new or changed hooks, a
 * ".git" file pointing outside, a nested repository's hooks and config;
 * .hg/hgrc and .envrc at any depth.  What the user had stays.  Every
 * confinement mode: the clean-up does not depend on a mount namespace.
 */
/*
 * review20 04: a command made .hg (or .sl, .jj) a link to a directory of
 * its own holding an hgrc with hooks: the walk looked for directories of
 * that name only, so the links stayed, and hg follows them.  Removed as
 * a .git link is; the file tools refuse .hg/hgrc through such a link.
 */
START_TEST(vcs_dir_links_removed)
{
	struct wst_run r;
	static const char *const links[] = {".hg", "sub/.hg", "a/.sl", "b/.jj"};

	RUNM(&r, _i, "-c",
	     "mkdir -p gd sub a b && printf '[hooks]\\npre-status = touch PWNED\\n' > gd/hgrc;"
	     "ln -s gd .hg; ln -s ../gd sub/.hg; ln -s ../gd a/.sl; ln -s ../gd b/.jj;"
	     "echo done");
	if (r.status == 125 && strcmp(wst_code(&r), "SANDBOX_UNAVAILABLE") == 0) {
		wst_run_free(&r);
		return;
	}
	expect_ran(&r, 0);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		char *p = wst_path(ws, links[i]);
		struct stat st;

		ck_assert_msg(lstat(p, &st) < 0, "%s kept: %s", links[i], r.out);
		free(p);
	}
	wst_run_free(&r);
	/* A link of the user's: the file tools refuse what is behind it
	 * by the name hg reads. */
	{
		char *p = wst_path(ws, ".hg");
		const char *argv[] = {"--workspace", ws, "--json", "--content",
				      "[hooks]\n", ".hg/hgrc", NULL};

		ck_assert_int_eq(symlink("gd", p), 0);
		wst_run(&r, NULL, "wswrite", argv[0], argv[1], argv[2], argv[3],
			argv[4], argv[5], NULL);
		ck_assert_msg(r.status != 0 && strcmp(wst_code(&r), "POLICY_DENIED") == 0,
			      "%s", r.out);
		wst_run_free(&r);
		free(p);
	}
}
END_TEST

/*
 * review20 02: jj reads the config.toml of the repository that .jj/repo
 * names when it is a file (a secondary workspace) or a link, and its
 * workspace-config.toml; Sapling a share's sharedpath as Mercurial does.
 * What the command made of them is removed.
 */
/*
 * review21 04: a user's .hg (or .sl, .jj) that is a link to a directory
 * of the workspace: a command wrote hooks into the hgrc behind it, by the
 * name hg reads, and they stayed.  That directory is the repository's
 * own, watched as a real .hg is.
 */
START_TEST(vcs_link_targets_watched)
{
	struct wst_run r;
	static const char *const made[] = {"hgdata/hgrc", "sldata/config",
					   "jjdata/repo/config.toml"};

	wst_mkdir(ws, "hgdata");
	wst_mkdir(ws, "sldata");
	wst_mkdir(ws, "jjdata/repo");
	wst_symlink("hgdata", ws, ".hg");
	wst_symlink("sldata", ws, ".sl");
	wst_symlink("jjdata", ws, ".jj");
	RUNM(&r, _i, "-c",
	     "printf '[hooks]\\npre-status = touch PWNED\\n' > .hg/hgrc;"
	     "cp .hg/hgrc .sl/config; cp .hg/hgrc .jj/repo/config.toml; echo done");
	if (r.status == 125 && strcmp(wst_code(&r), "SANDBOX_UNAVAILABLE") == 0) {
		wst_run_free(&r);
		return;
	}
	expect_ran(&r, 0);
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		ck_assert_msg(!exists_in(ws, made[i]), "%s kept: %s", made[i], r.out);
	ck_assert(exists_in(ws, ".hg"));
	wst_run_free(&r);
}
END_TEST

START_TEST(jj_repo_redirect_removed)
{
	struct wst_run r;
	static const char *const made[] = {"sub/.jj/repo", "sub2/.jj/repo",
					   "sub3/.jj/workspace-config.toml",
					   "s/.sl/sharedpath"};

	RUNM(&r, _i, "-c",
	     "mkdir -p evil sub/.jj sub2/.jj sub3/.jj s/.sl;"
	     "printf '[ui]\\npager = \"touch PWNED\"\\n' > evil/config.toml;"
	     "printf ../../evil > sub/.jj/repo; ln -s ../../evil sub2/.jj/repo;"
	     "cp evil/config.toml sub3/.jj/workspace-config.toml;"
	     "echo ../../evil > s/.sl/sharedpath; echo done");
	if (r.status == 125 && strcmp(wst_code(&r), "SANDBOX_UNAVAILABLE") == 0) {
		wst_run_free(&r);
		return;
	}
	expect_ran(&r, 0);
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		char *p = wst_path(ws, made[i]);
		struct stat st;

		ck_assert_msg(lstat(p, &st) < 0, "%s kept: %s", made[i], r.out);
		free(p);
	}
	wst_run_free(&r);
}
END_TEST

START_TEST(git_dirs_cleaned)
{
	struct wst_run r;
	char cmd[8192], *t;

	if (!have_git())
		return;
	snprintf(cmd, sizeof(cmd), "cd '%s' && git init -q . && git init -q vendor/lib && "
		 "git config diff.pdf.textconv cat && "
		 "printf '#!/bin/sh\\nexit 0\\n' > vendor/lib/.git/hooks/pre-commit && "
		 "printf 'keep\\n' > vendor/lib/.git/hooks/post-merge", ws);
	ck_assert_int_eq(system(cmd), 0);
	RUNM(&r, _i, "-c",
	     "printf '[core]\\n\\tfsmonitor = touch PWNED1\\n[include]\\n\\tpath = /tmp/x\\n' >> .git/config;"
	     "mkdir -p evil && printf '[core]\\n\\tfsmonitor = touch PWNED2\\n' > evil/config;"
	     "echo ../evil > .git/commondir;"
	     "printf '[core]\\n\\thooksPath = /tmp\\n' > .git/config.worktree;"
	     "mkdir -p .git/worktrees/x && echo ../../../evil > .git/worktrees/x/commondir;"
	     "mkdir -p .git/objects/info && echo /etc > .git/objects/info/alternates;"
	     "printf '#!/bin/sh\\ntouch PWNED3\\n' > vendor/lib/.git/hooks/post-checkout;"
	     "chmod +x vendor/lib/.git/hooks/post-checkout;"
	     "echo changed > vendor/lib/.git/hooks/pre-commit;"
	     "git -C vendor/lib config core.sshCommand evil;"
	     "git init -q new/repo && git -C new/repo config core.pager 'touch PWNED4' &&"
	     "git -C new/repo config alias.st '!touch PWNED5' &&"
	     "git -C new/repo config user.name Kept &&"
	     "cp vendor/lib/.git/hooks/post-checkout new/repo/.git/hooks/pre-push;"
	     "mkdir -p wt && echo 'gitdir: /tmp/elsewhere' > wt/.git;"
	     "mkdir -p h/.hg && printf '[hooks]\\nupdate = touch PWNED6\\n' > h/.hg/hgrc;"
	     "echo 'touch PWNED7' > h/.envrc;"
	     "mkdir -p j/.jj/repo && printf '[ui]\\npager = \"touch PWNED8\"\\n' > j/.jj/repo/config.toml;"
	     "mkdir -p s/.sl && printf '[hooks]\\nupdate = touch PWNED9\\n' > s/.sl/config;"
	     "echo done");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "done\n");
	/* The top repository: its own entries and the allowlisted ones. */
	t = text_in(ws, ".git/config");
	ck_assert_msg(strstr(t, "fsmonitor") == NULL && strstr(t, "include") == NULL,
		      "%s", t);
	ck_assert_msg(strstr(t, "textconv") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "repositoryformatversion") != NULL, "%s", t);
	free(t);
	/*
	 * Where the guards are bound (a mount namespace), the top
	 * repository's configuration is read-only and the append failed
	 * (review23 16: while the command ran, the person's git read it);
	 * elsewhere it is cleaned after.
	 */
	ck_assert(enforced(&r, "guards") ||
		  reverted_has(&r, "/.git/config: removed core.fsmonitor, include.path"));
	ck_assert(!exists_in(ws, ".git/commondir"));
	ck_assert(reverted_has(&r, "/.git/commondir: removed"));
	t = text_in(ws, ".git/config.worktree");
	ck_assert_msg(strstr(t, "hooks") == NULL, "%s", t);
	free(t);
	ck_assert(!exists_in(ws, ".git/worktrees/x/commondir"));
	ck_assert(!exists_in(ws, ".git/objects/info/alternates"));
	/* A nested repository: hooks as they were, config cleaned. */
	ck_assert(!exists_in(ws, "vendor/lib/.git/hooks/post-checkout"));
	t = text_in(ws, "vendor/lib/.git/hooks/pre-commit");
	ck_assert_str_eq(t, "#!/bin/sh\nexit 0\n");
	free(t);
	ck_assert(reverted_has(&r, "/vendor/lib/.git/hooks/pre-commit: restored"));
	ck_assert(exists_in(ws, "vendor/lib/.git/hooks/post-merge"));
	t = text_in(ws, "vendor/lib/.git/config");
	ck_assert_msg(strstr(t, "sshcommand") == NULL && strstr(t, "sshCommand") == NULL,
		      "%s", t);
	free(t);
	/* A repository the command made: cleaned, its samples and name kept. */
	t = text_in(ws, "new/repo/.git/config");
	ck_assert_msg(strstr(t, "pager") == NULL && strstr(t, "alias") == NULL &&
		      strstr(t, "name = Kept") != NULL, "%s", t);
	free(t);
	ck_assert(!exists_in(ws, "new/repo/.git/hooks/pre-push"));
	ck_assert(exists_in(ws, "new/repo/.git/hooks/pre-commit.sample"));
	ck_assert(!exists_in(ws, "wt/.git"));
	ck_assert(!exists_in(ws, "h/.hg/hgrc"));
	/* Review12: Jujutsu's and Sapling's, as Mercurial's. */
	ck_assert(!exists_in(ws, "j/.jj/repo/config.toml"));
	ck_assert(!exists_in(ws, "s/.sl/config"));
	ck_assert(!exists_in(ws, "h/.envrc"));
	ck_assert(reverted_has(&r, "/h/.envrc: removed"));
	wst_run_free(&r);
	/* And git on the host, the proof: it runs nothing planted. */
	snprintf(cmd, sizeof(cmd), "cd '%s' && git status >/dev/null 2>&1; "
		 "git -C vendor/lib status >/dev/null 2>&1; "
		 "git -C new/repo log >/dev/null 2>&1; true", ws);
	ck_assert_int_eq(system(cmd), 0);
	for (int k = 1; k <= 7; k++) {
		char n[16];

		snprintf(n, sizeof(n), "PWNED%d", k);
		ck_assert_msg(!exists_in(ws, n), "%s", n);
		ck_assert_msg(!exists_in(ws, "vendor/lib") || !exists_in(ws, n), "%s", n);
	}
}
END_TEST

/*
 * Issue 18, 1 (review): a command without network chooses no host the
 * user's git connects to later: an existing origin's url and pushurl
 * changed, partial-clone keys (with which even git diff fetches) and
 * branch.main.pushremote set to a remote it added are put back; that
 * remote itself stays.  With --net the command could reach those hosts
 * itself: the same changes stay.
 */
START_TEST(git_remotes_pinned)
{
	static const char *const script =
		"git remote set-url origin https://evil.example/a.git &&"
		"git remote set-url --push origin https://evil.example/b.git &&"
		"git config remote.origin.promisor true &&"
		"git config remote.origin.partialclonefilter blob:none &&"
		"git config extensions.partialclone origin &&"
		"git remote add evil /srv/evil.git &&"
		"git config branch.main.pushremote evil && echo done";

	if (!have_git())
		return;
	for (int net = 0; net < 2; net++) {
		struct wst_run r;
		char cmd[8192], *t;

		snprintf(cmd, sizeof(cmd), "cd '%s' && rm -rf .git && git init -q . && "
			 "git remote add origin /srv/origin.git && "
			 "git config branch.main.remote origin", ws);
		ck_assert_int_eq(system(cmd), 0);
		if (net)
			RUNM(&r, _i, "--net", "--", "sh", "-c", script);
		else
			RUNM(&r, _i, "--", "sh", "-c", script);
		t = text_in(ws, ".git/config");
		/*
		 * Read-only where the guards are bound (review23 16): git's
		 * first change fails, and nothing of it is there.
		 */
		if (enforced(&r, "guards")) {
			ck_assert_int_ne(r.status, 0);
			ck_assert_msg(strstr(t, "evil") == NULL &&
				      strstr(t, "url = /srv/origin.git") != NULL, "%s", t);
			free(t);
			wst_run_free(&r);
			continue;
		}
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "done\n");
		/* The new remote stays either way. */
		ck_assert_msg(strstr(t, "/srv/evil.git") != NULL, "%s", t);
		if (net) {
			ck_assert_msg(strstr(t, "evil.example/a.git") != NULL &&
				      strstr(t, "evil.example/b.git") != NULL &&
				      strstr(t, "promisor") != NULL &&
				      strstr(t, "partialclone") != NULL &&
				      strstr(t, "pushremote = evil") != NULL, "%s", t);
			ck_assert_msg(wst_output(&r, "reverted") == NULL, "%s", r.out);
		} else {
			ck_assert_msg(strstr(t, "evil.example") == NULL &&
				      strstr(t, "promisor") == NULL &&
				      strstr(t, "partialclone") == NULL &&
				      strstr(t, "pushremote") == NULL &&
				      strstr(t, "url = /srv/origin.git") != NULL &&
				      strstr(t, "remote = origin") != NULL, "%s", t);
			/* Each named, in the order of the file. */
			ck_assert_msg(reverted_has(&r, "/.git/config: removed "
						   "remote.origin.pushurl, "
						   "remote.origin.promisor, "
						   "remote.origin.partialclonefilter, "
						   "branch.main.pushremote, "
						   "extensions.partialclone"), "%s", r.out);
			ck_assert_msg(reverted_has(&r, "/.git/config: restored "
						   "remote.origin.url"), "%s", r.out);
		}
		free(t);
		wst_run_free(&r);
		/* And git on the host: origin is where it was. */
		snprintf(cmd, sizeof(cmd), "cd '%s' && test \"$(git remote get-url --push "
			 "origin)\" = %s && git remote get-url evil >/dev/null", ws,
			 net ? "https://evil.example/b.git" : "/srv/origin.git");
		ck_assert_int_eq(system(cmd), 0);
	}
}
END_TEST

/*
 * Review 6: a directory git takes for a bare repository without objects/
 * and refs/ directories of its own, which git's is_git_directory() finds
 * by access() (following symlinks) or in the directory a "commondir"
 * names, is cleaned like any other: the host's git in /src or /sub then
 * reads no core.pager the command planted; and a common dir that a
 * "commondir" already there names is cleaned too, whatever its name.
 */
START_TEST(git_disguised_bare_cleaned)
{
	struct wst_run r;
	char cmd[8192], *t;

	if (!have_git())
		return;
	snprintf(cmd, sizeof(cmd), "cd '%s' && git init -q . && "
		 "git -c user.name=t -c user.email=t@e commit -q --allow-empty -m i && "
		 "mkdir -p old c/objects c/refs && git symbolic-ref HEAD > old/HEAD && "
		 "echo ../c > old/commondir", ws);
	ck_assert_int_eq(system(cmd), 0);
	RUNM(&r, _i, "-c",
	     "mkdir -p src sub x; git symbolic-ref HEAD > src/HEAD;"
	     "ln -s ../.git/objects src/objects; ln -s ../.git/refs src/refs;"
	     "printf '[core]\n\tpager = touch PWNED1\n' > src/config;"
	     "cp src/HEAD sub/HEAD; echo ../x > sub/commondir;"
	     "cp -r .git/objects .git/refs x/;"
	     "printf '[core]\n\tpager = touch PWNED2\n' > x/config;"
	     "printf '[core]\n\tpager = touch PWNED3\n' > c/config;"
	     "echo done");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "done\n");
	ck_assert_msg(reverted_has(&r, "/src/config: removed core.pager"), "%s", r.out);
	ck_assert_msg(reverted_has(&r, "/sub/commondir: removed"), "%s", r.out);
	ck_assert_msg(reverted_has(&r, "/c/config: removed core.pager"), "%s", r.out);
	wst_run_free(&r);
	for (int k = 0; k < 3; k++) {
		static const char *const dir[] = {"src", "sub", "old"};

		snprintf(cmd, sizeof(cmd), "cd '%s/%s' && git config core.pager 2>/dev/null",
			 ws, dir[k]);
		ck_assert_msg(system(cmd) != 0, "%s", dir[k]);
	}
	t = text_in(ws, "x/config");
	ck_assert_msg(strstr(t, "pager") != NULL, "%s", t); /* no repository now */
	free(t);
}
END_TEST

/*
 * Review18 01: a bare-like repository whose refs is a dangling link
 * (HEAD, objects, config with a pager, refs -> t): git takes it for none
 * yet, but a file tool's later mkdir of t would make it one, with the
 * command's config.  The walk after the command takes refs as named, so
 * the config's pager is removed now.
 */
START_TEST(git_bare_dangling_refs_cleaned)
{
	struct wst_run r;

	RUNM(&r, _i, "-c",
	     "mkdir -p docs/objects && ln -s t docs/refs &&"
	     " echo 'ref: refs/heads/main' > docs/HEAD &&"
	     " printf '[core]\n\tpager = touch PWNED\n' > docs/config && echo done");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "done\n");
	ck_assert_msg(reverted_has(&r, "/docs/config: removed core.pager"), "%s", r.out);
	wst_run_free(&r);
}
END_TEST

/*
 * Review23 01: a repository, an .envrc and an editor folder planted past
 * the walk's reach (4096 bytes of path, made one level at a time) were
 * left, with a note; a file tool's move of an ancestor then brought them
 * within reach, where git ran the configuration's fsmonitor.  The tree
 * the command made that deep is removed, whole, and said; one that was
 * there before the command refuses the run (LIMIT_EXCEEDED), as the
 * walk after it could not tell it from the command's.
 */
/*
 * The walk after the command does not read again a directory whose ctime
 * is the one the walk before read (lib/vcs.c ws__walk_unchanged()), only
 * where that ctime is older than the walk by a second: here the tree is
 * made, then left two seconds, so that the walk after enters unchanged
 * directories from its records.  What the command plants below them, in
 * a directory it changed, a directory it made, a tree it moved, is
 * found and removed as in a tree the walk reads whole, and named by its
 * path.
 */
START_TEST(unchanged_dirs_walked_after)
{
	struct wst_run r;
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "cd '%s' && mkdir -p a/b/c/d a/b/c2 e/f old/x/y/z/w g "
		 "q/r/s && echo 1 > a/b/c/d/file && echo 2 > q/r/s/file", ws);
	ck_assert_int_eq(system(cmd), 0);
	usleep(2100 * 1000);
	RUNM(&r, _i, "-c",
	     "echo 'touch PWNED1' > a/b/c/d/.envrc;"
	     "mkdir -p a/b/c2/n/.hg && printf '[hooks]\\nupdate = touch PWNED2\\n' > a/b/c2/n/.hg/hgrc;"
	     "mv old/x/y g/y && echo 'touch PWNED3' > g/y/z/w/.envrc;"
	     "mkdir e/f/.vscode && echo '{}' > e/f/.vscode/tasks.json;"
	     "mv q/r/s q/r/t && mkdir -p q/r/t/u/.git && echo x > q/r/t/u/.git/HEAD;"
	     "echo done");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "done\n");
	ck_assert(!exists_in(ws, "a/b/c/d/.envrc"));
	ck_assert_msg(reverted_has(&r, "/a/b/c/d/.envrc: removed"), "%s", r.out);
	ck_assert(exists_in(ws, "a/b/c/d/file"));
	ck_assert(!exists_in(ws, "a/b/c2/n/.hg/hgrc"));
	ck_assert(!exists_in(ws, "g/y/z/w/.envrc"));
	ck_assert_msg(reverted_has(&r, "/g/y/z/w/.envrc: removed"), "%s", r.out);
	ck_assert(!exists_in(ws, "e/f/.vscode/tasks.json"));
	ck_assert(!exists_in(ws, "q/r/t/u/.git/HEAD") || !exists_in(ws, "q/r/t/u/.git/config"));
	ck_assert(exists_in(ws, "q/r/t/file"));
	wst_run_free(&r);
	/* A second run over the same, now changed, tree: nothing to do. */
	RUNM(&r, _i, "-c", "echo again");
	expect_ran(&r, 0);
	ck_assert_msg(!reverted_has(&r, "/a/") && !reverted_has(&r, "/g/"), "%s", r.out);
	wst_run_free(&r);
	/* And once more, the tree left long enough to be skipped again. */
	usleep(2100 * 1000);
	RUNM(&r, _i, "-c", "echo 'touch PWNED4' > a/b/c/d/.envrc; echo 'x' > q/r/t/.envrc");
	expect_ran(&r, 0);
	ck_assert(!exists_in(ws, "a/b/c/d/.envrc"));
	ck_assert(!exists_in(ws, "q/r/t/.envrc"));
	ck_assert_msg(reverted_has(&r, "/q/r/t/.envrc: removed"), "%s", r.out);
	wst_run_free(&r);
}
END_TEST

/*
 * The walk before the command trusts the records the last run's walk
 * before kept in the state directory (lib/vcs.c ws__recs_load()), for
 * directories unchanged since.  What the person changed between the
 * runs, deep below unchanged directories, is seen as the person's: a
 * repository's hook and an .envrc made between the runs are put back as
 * they were after the command changes them, not removed as the
 * command's.  And with the kept records made garbage, the same.
 */
START_TEST(recorded_walk_sees_person_changes)
{
	struct wst_run r;
	char cmd[8192];

	/* A write with its history marks the state directory, where the
	 * records are kept only once marked. */
	wst_run(&r, NULL, "wswrite", "--workspace", ws, "--json", "--content",
		"x", "/marked.txt", NULL);
	ck_assert_int_eq(r.status, 0);
	wst_run_free(&r);
	for (int round = 0; round < 2; round++) {
		char *t;

		snprintf(cmd, sizeof(cmd), "cd '%s' && rm -rf a e && mkdir -p a/b/c/d e/f/g", ws);
		ck_assert_int_eq(system(cmd), 0);
		usleep(2100 * 1000);
		/* The first run keeps the records. */
		RUNM(&r, _i, "-c", "true");
		expect_ran(&r, 0);
		wst_run_free(&r);
		snprintf(cmd, sizeof(cmd), "ls '%s'/wstools/walks/ | grep -q .",
			 getenv("XDG_STATE_HOME"));
		ck_assert_msg(system(cmd) == 0, "no records kept");
		if (round == 1) {
			snprintf(cmd, sizeof(cmd), "for f in '%s'/wstools/walks/*; do "
				 "[ -f \"$f\" ] && head -c 100000 /dev/urandom > \"$f\"; done; true",
				 getenv("XDG_STATE_HOME"));
			ck_assert_int_eq(system(cmd), 0);
		}
		/* The person's, between the runs. */
		snprintf(cmd, sizeof(cmd), "cd '%s' && mkdir -p a/b/c/d/repo/.git/hooks "
			 "a/b/c/d/repo/.git/refs a/b/c/d/repo/.git/objects && "
			 "echo 'ref: refs/heads/main' > a/b/c/d/repo/.git/HEAD && "
			 "echo keep > a/b/c/d/repo/.git/hooks/pre-commit && "
			 "echo person > e/f/g/.envrc", ws);
		ck_assert_int_eq(system(cmd), 0);
		RUNM(&r, _i, "-c", "echo changed > a/b/c/d/repo/.git/hooks/pre-commit;"
		     "echo command > e/f/g/.envrc; echo done");
		expect_ran(&r, 0);
		ck_assert_str_eq(out_str(&r, "stdout"), "done\n");
		t = text_in(ws, "a/b/c/d/repo/.git/hooks/pre-commit");
		ck_assert_msg(strcmp(t, "keep\n") == 0, "round %d: %s\n%s", round, t, r.out);
		free(t);
		t = text_in(ws, "e/f/g/.envrc");
		ck_assert_msg(strcmp(t, "person\n") == 0, "round %d: %s\n%s", round, t, r.out);
		free(t);
		wst_run_free(&r);
	}
}
END_TEST

/*
 * A person who only runs commands: the default state directory under the
 * home, never marked by a history, keeps the walk's records all the same
 * (lib/vcs.c ws__recs_path()), and a later write with its history marks
 * and uses that directory (the history takes the default place whatever
 * it holds; a file in an unmarked other one is refused as forged).
 */
START_TEST(default_state_dir_keeps_records)
{
	struct wst_run r;
	char cmd[8192];
	const char *env[3];
	char hv[4200];

	snprintf(cmd, sizeof(cmd), "cd '%s' && mkdir -p a/b && rm -rf '%s/.local/state/wstools'",
		 ws, home);
	ck_assert_int_eq(system(cmd), 0);
	run_extra_env = "XDG_STATE_HOME";
	RUNM(&r, _i, "-c", "true");
	run_extra_env = NULL;
	expect_ran(&r, 0);
	wst_run_free(&r);
	snprintf(cmd, sizeof(cmd), "ls '%s/.local/state/wstools/walks/' | grep -q .", home);
	ck_assert_msg(system(cmd) == 0, "no records in the default state directory");
	snprintf(hv, sizeof(hv), "HOME=%s", home);
	env[0] = hv;
	env[1] = "XDG_STATE_HOME";
	env[2] = NULL;
	{
		const char *w[] = {"--workspace", ws, "--json", "--content", "x", "/w.txt", NULL};

		wst_runv(&r, NULL, env, "wswrite", w);
	}
	ck_assert_msg(r.status == 0, "%s", r.out);
	wst_run_free(&r);
}
END_TEST

START_TEST(deep_tree_removed)
{
	struct wst_run r;

	wst_write(ws, "plant.py",
		  "import os\n"
		  "d = 'd' + '0' * 200\n"
		  "for i in range(25):\n"
		  "    os.makedirs(d, exist_ok=True); os.chdir(d)\n"
		  "os.makedirs('r/.git/objects', exist_ok=True)\n"
		  "open('r/.git/HEAD', 'w').write('ref: refs/heads/main\\n')\n"
		  "open('r/.git/config', 'w').write('[core]\\n\\tfsmonitor = touch PWNED\\n')\n"
		  "open('r/.envrc', 'w').write('touch PWNED\\n')\n"
		  "print('planted')\n");
	RUNM(&r, _i, "-c", "python3 plant.py");
	if (r.status == 127 || strstr(r.out, "python3: not found") != NULL) {
		wst_run_free(&r);
		return;
	}
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "planted\n");
	ck_assert_msg(strstr(r.out, "removed: a directory tree deeper than wsrun "
			     "can check") != NULL, "%s", r.out);
	wst_run_free(&r);
	/* Nothing the command planted is left at any depth. */
	{
		char cmd[8192];

		snprintf(cmd, sizeof(cmd), "cd '%s' && find . -name .git -o -name .envrc "
			 "| grep -q .", ws);
		ck_assert_int_ne(system(cmd), 0);
	}
	/* Made outside wsrun: the next run is refused, the tree kept. */
	{
		char cmd[8192];

		snprintf(cmd, sizeof(cmd), "cd '%s' && python3 plant.py >/dev/null", ws);
		ck_assert_int_eq(system(cmd), 0);
	}
	RUNM(&r, _i, "-c", "echo ran");
	ck_assert_msg(strstr(r.out, "LIMIT_EXCEEDED") != NULL &&
		      strstr(r.out, "deeper than wsrun can check") != NULL, "%s", r.out);
	ck_assert_ptr_null(strstr(r.out, "\"ran\\n\""));
	wst_run_free(&r);
}
END_TEST

/*
 * Review23 11: under a hard limit of 1024 descriptors the walk after the
 * command ran out of them (one a level) and only said so: a repository
 * planted 1,100 levels down kept its core.fsmonitor.  The walk now goes
 * as deep as the limit lets and takes what lies deeper for a tree past
 * its reach: the command's, removed.
 */
START_TEST(walk_within_descriptor_limit)
{
	char cmd[8192];

	if (getenv("WST_TOOL_WRAPPER") != NULL && *getenv("WST_TOOL_WRAPPER") != '\0')
		return;
	wst_write(ws, "plant.py",
		  "import os\n"
		  "os.chdir('sub')\n"
		  "for i in range(1100):\n"
		  "    os.mkdir('a'); os.chdir('a')\n"
		  "os.makedirs('r/.git/objects'); os.makedirs('r/.git/refs/heads')\n"
		  "open('r/.git/HEAD', 'w').write('ref: refs/heads/main\\n')\n"
		  "open('r/.git/config', 'w').write('[core]\\n\\tfsmonitor = touch PWNED\\n')\n");
	if (system("command -v python3 >/dev/null 2>&1") != 0)
		return;
	/*
	 * Below an existing top-level directory, so that in the virtual view
	 * too it is the walk that meets it (a new top-level tree is the
	 * view's copy's).  The walk past its reach removed it, and said so;
	 * nothing is left.
	 */
	wst_mkdir(ws, "sub");
	snprintf(cmd, sizeof(cmd), "cd '%s' && (ulimit -Sn 1024 && ulimit -Hn 1024 && "
		 "'%s' --json -- python3 plant.py) 2>&1 | "
		 "grep -q 'removed: a directory tree deeper than wsrun can check'",
		 ws, wst_bin("wsrun"));
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "cd '%s' && find . -name .git | grep -q .", ws);
	ck_assert_int_ne(system(cmd), 0);
}
END_TEST

/*
 * Review23 03: a home deeper than the top of the workspace
 * (srv/users/bob) had its history open to a command, which the file
 * tools refuse; the view masks only the top's and /home's.  Such a
 * state directory now refuses the run; a top-level home's is masked and
 * runs.
 */
START_TEST(deep_home_state_refused)
{
	struct wst_run r;

	wst_write(ws, "srv/users/bob/.local/state/wstools/0123/journal", "{}\n");
	RUNM(&r, 0, "-c", "cat srv/users/bob/.local/state/wstools/0123/journal");
	ck_assert_msg(strstr(r.out, "SANDBOX_UNAVAILABLE") != NULL &&
		      strstr(r.out, "state directory of another home") != NULL, "%s", r.out);
	wst_run_free(&r);
	{
		char *srv = wst_path(ws, "srv");

		wst_rmrf(srv);
		free(srv);
	}
	wst_write(ws, "bob/.local/state/wstools/0123/journal", "{}\n");
	RUNM(&r, 0, "-c", "cat bob/.local/state/wstools/0123/journal; echo ran");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "ran\n");
	wst_run_free(&r);
}
END_TEST

/*
 * Review26 01: the person's state directory, new, inside the agent's
 * workspace (HOME as the workspace), made during a run: the command (in
 * the real view) could write its journal, and the clean-up took the
 * person's mark for the command's.  The person's call does not start a
 * history there while a command runs in a workspace that holds it.
 */
START_TEST(state_dir_not_started_during_run)
{
	char cmd[8192], *proj = wst_path(base, "proj"), *st = wst_path(ws, "x/state");
	/* wst_bin() answers in one buffer: one copy each. */
	char *run = strdup(wst_bin("wsrun")), *wr = strdup(wst_bin("wswrite"));
	struct stat sb;

	wst_write(base, "proj/f.txt", "one\n");
	wst_mkdir(ws, "x");
	/* The command says it runs (a file below a top-level directory:
	 * live in both views), the person's call meanwhile is refused,
	 * and once the command ended it goes. */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && { '%s' -c 'touch sub/started; sleep 3' >../run.out 2>&1 & "
		 "pid=$!; for i in $(seq 300); do [ -e sub/started ] && break; sleep 0.1; done; "
		 "XDG_STATE_HOME='%s' '%s' --workspace '%s' --json --content two f.txt "
		 ">../call.out 2>&1; grep -q 'runs in a workspace that holds it' ../call.out; "
		 "r=$?; wait $pid; exit $r; }",
		 ws, run, st, wr, proj);
	if (system(cmd) != 0) {
		char *a = wst_path(base, "run.out"), *b = wst_path(base, "call.out");
		char *ta = wst_slurp(a, NULL), *tb = wst_slurp(b, NULL);

		ck_abort_msg("run: %s\ncall: %s", ta ? ta : "", tb ? tb : "");
	}
	{
		char *mark = wst_path(st, "wstools/.wstools-state");

		ck_assert(stat(mark, &sb) != 0);
		free(mark);
	}
	snprintf(cmd, sizeof(cmd), "XDG_STATE_HOME='%s' '%s' --workspace '%s' --content two "
		 "f.txt >/dev/null", st, wr, proj);
	ck_assert_int_eq(system(cmd), 0);
	/*
	 * Review28 09: the command makes the state directory whole, mark
	 * included (the forged journal would go beside it): the person's
	 * call during the run is refused all the same.
	 */
	/* The person's, made above, would refuse the run (review23 03);
	 * the word of the first run is taken back. */
	wst_rmrf(st);
	free(st);
	st = wst_path(ws, "sub/started");
	ck_assert_int_eq(unlink(st), 0);
	free(st);
	st = wst_path(ws, "x/state2");
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && { '%s' -c 'mkdir -p x/state2/wstools && "
		 "touch x/state2/wstools/.wstools-state sub/started; sleep 3' "
		 ">../run.out 2>&1 & "
		 "pid=$!; for i in $(seq 300); do [ -e sub/started ] && break; sleep 0.1; done; "
		 "XDG_STATE_HOME='%s' '%s' --workspace '%s' --json --content three f.txt "
		 ">../call.out 2>&1; grep -q 'a command (wsrun) runs now' ../call.out; "
		 "r=$?; wait $pid; exit $r; }",
		 ws, run, st, wr, proj);
	if (system(cmd) != 0) {
		char *a = wst_path(base, "run.out"), *b = wst_path(base, "call.out");
		char *ta = wst_slurp(a, NULL), *tb = wst_slurp(b, NULL);

		ck_abort_msg("run: %s\ncall: %s", ta ? ta : "", tb ? tb : "");
	}
	{
		char *f = wst_path(proj, "f.txt"), *t = wst_slurp(f, NULL);

		ck_assert_str_eq(t, "two");
		free(t);
		free(f);
	}
	/*
	 * Review29 02: spelled as a home's default place ends (x/.local/
	 * state), which every view masks, but not a home's: refused too.
	 */
	free(st);
	st = wst_path(ws, "x/state2");
	wst_rmrf(st);
	free(st);
	st = wst_path(ws, "sub/started");
	unlink(st);
	free(st);
	st = wst_path(ws, "y/.local/state");
	wst_mkdir(ws, "y");
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && { '%s' -c 'mkdir -p y/.local/state/wstools && "
		 "touch y/.local/state/wstools/.wstools-state sub/started; sleep 3' "
		 ">../run.out 2>&1 & "
		 "pid=$!; for i in $(seq 300); do [ -e sub/started ] && break; sleep 0.1; done; "
		 "XDG_STATE_HOME='%s' '%s' --workspace '%s' --json --content four f.txt "
		 ">../call.out 2>&1; grep -q 'a command (wsrun) runs now' ../call.out; "
		 "r=$?; wait $pid; exit $r; }",
		 ws, run, st, wr, proj);
	if (system(cmd) != 0) {
		char *b = wst_path(base, "call.out"), *tb = wst_slurp(b, NULL);

		ck_abort_msg("call (y/.local/state): %s", tb ? tb : "");
	}
	free(proj);
	free(st);
	free(run);
	free(wr);
}
END_TEST

/*
 * A state directory's first use beside a running command: the run's
 * record in running/ (lib/pending.c) is wstools' own, not a history, and
 * a person's first write in another workspace marks the directory and
 * goes.  It was refused as a forged state directory ("holds histories
 * but not the mark") for as long as any command ran, which the CI's
 * stage as nobody met: two suites side by side on one XDG_STATE_HOME.
 */
START_TEST(state_dir_first_use_beside_run)
{
	char cmd[8192], *st = wst_path(base, "fresh-state"), *mark;
	char *run = strdup(wst_bin("wsrun")), *wr = strdup(wst_bin("wswrite"));
	struct stat sb;

	wst_write(base, "proj/f.txt", "one\n");
	wst_rmrf(st);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && { XDG_STATE_HOME='%s' '%s' --workspace . -c "
		 "'touch sub/started; sleep 3' >../run.out 2>&1 & "
		 "pid=$!; for i in $(seq 300); do [ -e sub/started ] && break; sleep 0.1; done; "
		 "[ -n \"$(ls '%s/wstools/running')\" ] || { wait $pid; exit 7; }; "
		 "XDG_STATE_HOME='%s' '%s' --workspace ../proj --json --content two f.txt "
		 ">../call.out 2>&1; r=$?; wait $pid || r=5; exit $r; }",
		 ws, st, run, st, st, wr);
	if (system(cmd) != 0) {
		char *a = wst_path(base, "run.out"), *b = wst_path(base, "call.out");
		char *ta = wst_slurp(a, NULL), *tb = wst_slurp(b, NULL);

		ck_abort_msg("run: %s\ncall: %s", ta ? ta : "", tb ? tb : "");
	}
	mark = wst_path(st, "wstools/.wstools-state");
	ck_assert_msg(stat(mark, &sb) == 0, "the state directory was not marked");
	free(mark);
	wst_rmrf(st);
	free(st);
	free(run);
	free(wr);
}
END_TEST

/*
 * The tests of a person who is not root run as the suite's own user where
 * that is not root (scripts/dev.sh runs the CLI suites as nobody too), and
 * as root become nobody: setpriv(1) before the command, the files it needs
 * given to it first ("chown -R 65534:65534 FILES", where "true FILES"
 * does nothing for a user who owns them already).  Whether they can run
 * at all (as root, setpriv(1) is needed): said when not.
 */
static bool
unpriv_ready(const char *test)
{
	struct stat st;

	if (geteuid() != 0 || stat("/usr/bin/setpriv", &st) == 0)
		return true;
	fprintf(stderr, "%s: not checked (no /usr/bin/setpriv to become nobody)\n", test);
	return false;
}

/*
 * Whether a script run as nobody may run the build's tools: a checkout
 * under a directory only root may enter (a clone in /root, mode 0700)
 * keeps them from it (ftu18 14), as tests/unprivileged.sh says too.
 * (setpriv(1) itself still starts one: it keeps its capabilities until
 * its exec, so the checks that run the tool directly need no such test.)
 * Tried as nobody first, and said on standard error where not, rather
 * than failed: the build is not at fault.
 */
static bool
nobody_reaches(const char *test)
{
	char cmd[16384], *run;
	struct stat st;
	bool ok;

	/* Not root, or no setpriv: the callers' own checks say so. */
	if (geteuid() != 0 || stat("/usr/bin/setpriv", &st) != 0)
		return true;
	run = strdup(wst_bin("wsrun"));
	ck_assert_ptr_nonnull(run);
	snprintf(cmd, sizeof(cmd),
		 "setpriv --reuid=65534 --regid=65534 --clear-groups "
		 "test -x '%s' -a -x '%s' >/dev/null 2>&1", run, wst_bin("wswrite"));
	ok = system(cmd) == 0;
	if (!ok)
		fprintf(stderr, "%s: not checked (nobody cannot run %s: a "
			"directory above it is closed to others, such as /root)\n",
			test, run);
	free(run);
	return ok;
}

static const char *
unpriv_setpriv(void)
{
	return geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
}

static const char *
unpriv_chown(void)
{
	return geteuid() == 0 ? "chown -R 65534:65534" : "true";
}

/*
 * Review28 08 on the command line: a change made while a command runs
 * in the workspace waits until the command has ended and been cleaned up
 * after, and says once that it waits (ftu17 02); then it is made.
 */
START_TEST(cli_change_waits_for_command)
{
	char cmd[8192];
	char *run = strdup(wst_bin("wsrun")), *wr = strdup(wst_bin("wswrite"));
	char *wt = strdup(wst_bin("wstools"));
	char *t;

	wst_mkdir(ws, "sub");
	/* The history's listing changes nothing: not held. */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && { '%s' -c 'touch sub/started; sleep 2; echo done > sub/ran' "
		 ">../run.out 2>&1 & "
		 "pid=$!; for i in $(seq 300); do [ -e sub/started ] && break; sleep 0.1; done; "
		 "h=0; '%s' history --workspace . >../hist.out 2>&1; [ -e sub/ran ] && h=7; "
		 "'%s' --workspace . --content after w.txt >../call.out 2>&1; r=$?; "
		 "[ -e sub/ran ] || r=9; "
		 "grep -q 'waiting for a command running in this workspace' ../call.out || r=8; "
		 "[ $h = 0 ] || r=$h; wait $pid; exit $r; }",
		 ws, run, wt, wr);
	if (system(cmd) != 0) {
		char *b = wst_path(base, "call.out"), *tb = wst_slurp(b, NULL);

		ck_abort_msg("call: %s", tb ? tb : "");
	}
	t = text_in(ws, "w.txt");
	ck_assert_str_eq(t, "after");
	free(t);
	free(run);
	free(wr);
	free(wt);
}
END_TEST

/*
 * Review30 01: workspaces nest (a server on W, another on W/proj).  A
 * command runs in FIRST (relative to the workspace W: "." or "proj"),
 * writing FIRST/m/started, then FIRST/m/ran after 2 s (in a directory:
 * the virtual view makes a new entry of the root at the end); once it
 * has started, SECOND (a shell command run in W, @RUN@ the wsrun, @WR@
 * the wswrite) must end after the command did: FIRST/m/ran is there when
 * it ends (or, when SECOND deletes it, the command could write it: it
 * ends well).
 * What it says is in ../nested2.out.
 */
static void
nested_waits(const char *first, const char *second, bool gone, const char *what)
{
	char cmd[8192], sec[2048];
	char *run = strdup(wst_bin("wsrun")), *wr = strdup(wst_bin("wswrite"));
	size_t k = 0;
	int rc;

	for (const char *p = second; *p != '\0' && k + 1 < sizeof(sec);) {
		const char *v = strncmp(p, "@RUN@", 5) == 0 ? run :
				strncmp(p, "@WR@", 4) == 0 ? wr : NULL;

		if (v == NULL) {
			sec[k++] = *p++;
			continue;
		}
		p += v == run ? 5 : 4;
		k += (size_t)snprintf(sec + k, sizeof(sec) - k, "%s", v);
		if (k >= sizeof(sec))
			k = sizeof(sec) - 1;
	}
	sec[k] = '\0';
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && rm -rf '%s/m' && mkdir '%s/m' && "
		 "{ (cd '%s' && exec '%s' --workspace . -c "
		 "'touch m/started; sleep 2; echo done > m/ran') >../nested1.out 2>&1 & "
		 "pid=$!; for i in $(seq 300); do [ -e '%s/m/started' ] && break; sleep 0.1; done; "
		 "[ -e '%s/m/started' ] || { wait $pid; exit 6; }; "
		 "%s >../nested2.out 2>&1; r=$?; "
		 "[ $r = 0 ] && { [ -e '%s/m/ran' ] || [ %d = 1 ] || r=9; }; "
		 "wait $pid || r=5; exit $r; }",
		 ws, first, first, first, run, first, first, sec, first, gone);
	rc = system(cmd);
	if (rc != 0) {
		char *b = wst_path(base, "nested2.out"), *tb = wst_slurp(b, NULL);
		char *b1 = wst_path(base, "nested1.out"), *tb1 = wst_slurp(b1, NULL);

		ck_abort_msg("%s: status %d (9: it did not wait for the command; 5: "
			     "the command failed): "
			     "%s / command: %s", what, WEXITSTATUS(rc), tb ? tb : "",
			     tb1 ? tb1 : "");
	}
	free(run);
	free(wr);
}

/* (a) A change from a context on W in W/proj/sub waits for a command
 * whose workspace is W/proj, and says it waits. */
START_TEST(nested_change_waits_for_inner_command)
{
	char *t, *b, *tb;

	wst_mkdir(ws, "proj/sub");
	nested_waits("proj", "'@WR@' --workspace . --content after proj/sub/w.txt",
		     false,
		     "a write from W into W/proj/sub");
	t = text_in(ws, "proj/sub/w.txt");
	ck_assert_str_eq(t, "after");
	free(t);
	b = wst_path(base, "nested2.out");
	tb = wst_slurp(b, NULL);
	ck_assert_msg(tb != NULL && strstr(tb, "waiting for a command running in "
					   "this workspace") != NULL,
		      "the write did not say it waits: %s", tb ? tb : "");
	free(tb);
	free(b);
}
END_TEST

/* (b) A change from a context on W/proj waits for a command whose
 * workspace is W. */
START_TEST(nested_change_waits_for_outer_command)
{
	char *t;

	wst_mkdir(ws, "proj/sub");
	nested_waits(".", "(cd proj && exec '@WR@' --workspace . --content after sub/w.txt)",
		     false,
		     "a write from W/proj during a command in W");
	t = text_in(ws, "proj/sub/w.txt");
	ck_assert_str_eq(t, "after");
	free(t);
}
END_TEST

/* A change through a mount of W/proj, from a workspace elsewhere (W's
 * sibling "other"), waits for a command in W/proj (the lock was the
 * call's workspace top's only). */
START_TEST(nested_change_through_mount_waits)
{
	char *t;

	wst_mkdir(ws, "proj/sub");
	wst_mkdir(ws, "other");
	nested_waits("proj", "(cd other && exec '@WR@' --workspace . --mount "
		     "\"/.p=$(cd ../proj && pwd)\" --content after /.p/sub/w.txt)",
		     false, "a write through a mount of W/proj");
	t = text_in(ws, "proj/sub/w.txt");
	ck_assert_str_eq(t, "after");
	free(t);
}
END_TEST

/* (c) Commands in nested workspaces run one at a time, either way. */
START_TEST(nested_runs_one_at_a_time)
{
	wst_mkdir(ws, "proj");
	nested_waits(".", "(cd proj && exec '@RUN@' --workspace . -c true)",
		     false,
		     "a command in W/proj during one in W");
	nested_waits("proj", "'@RUN@' --workspace . -c true", false,
		     "a command in W during one in W/proj");
}
END_TEST

/* (d) A move from a context on W whose destination only is in W/proj
 * (below its top) waits for the command there; a recursive delete of a
 * tree that holds W/proj's files too. */
START_TEST(nested_move_and_delete_wait)
{
	char *t;

	wst_mkdir(ws, "from");
	wst_mkdir(ws, "proj/sub");
	wst_write(ws, "from/m.txt", "moved");
	nested_waits("proj", "'@WR@' --workspace . --move proj/sub/m.txt from/m.txt",
		     false,
		     "a move from W/from into W/proj/sub");
	t = text_in(ws, "proj/sub/m.txt");
	ck_assert_str_eq(t, "moved");
	free(t);
	/* The tree's top is W/tree, the command's W/tree/proj; the delete
	 * resolves W/tree, then goes down into W/tree/proj/sub. */
	wst_mkdir(ws, "tree/proj/sub");
	wst_write(ws, "tree/proj/sub/f.txt", "f");
	nested_waits("tree/proj", "'@WR@' --workspace . --delete -r tree", true,
		     "a recursive delete of W/tree over W/tree/proj");
	{
		char *p = wst_path(ws, "tree");
		struct stat st;

		ck_assert_msg(lstat(p, &st) < 0, "the tree was not deleted");
		free(p);
	}
}
END_TEST

/*
 * Review25 01 and 02 (a person who is not root; as root the modes do not
 * matter, so the test becomes nobody): a command planted a repository
 * (core.fsmonitor) and chmod 311'd the directory above it, which the
 * walk after it then skipped without a word; or chmod 555'd the last
 * level the walk enters above a tree past its reach, and every rename of
 * the removal failed.  Either way a file tool's move lifted the
 * repository where git ran its fsmonitor.  The owner's rwx bits are put
 * back after the run (said), so both are cleaned; a directory of the
 * person's that was so before the run is walked after it and gets its
 * mode back.
 */
START_TEST(unreadable_dirs_checked)
{
	char cmd[8192], *script = wst_path(base, "unread.sh");

	if (!unpriv_ready("unreadable_dirs_checked") ||
	    !nobody_reaches("unreadable_dirs_checked"))
		return;
	if (system("command -v python3 >/dev/null 2>&1") != 0) {
		fprintf(stderr, "unreadable_dirs_checked: not checked (no python3)\n");
		return;
	}
	wst_write(base, "unread.sh",
		  "set -u\n"
		  "W=\"$1\"; B=\"$2\"; export HOME=$B/nhome XDG_STATE_HOME=$B/nstate\n"
		  "mkdir -p \"$HOME\" && cd \"$W\" || exit 2\n"
		  "run() { \"$WSRUN\" --view real \"$@\"; }\n"
		  /* Before: a directory of the person's that may not be read. */
		  "mkdir locked && chmod 311 locked\n"
		  "run -- true 2>err || { echo \"BUG before: $(cat err)\"; exit 1; }\n"
		  "[ \"$(stat -c %a locked)\" = 311 ] || { echo \"BUG before: mode $(stat -c %a locked)\"; exit 1; }\n"
		  "chmod 755 locked && rmdir locked\n"
		  /* 01: a repository below a directory made 311. */
		  "run -c 'mkdir -p app/sub/.git/objects app/sub/.git/refs/heads &&"
		  " echo \"ref: refs/heads/master\" > app/sub/.git/HEAD &&"
		  " printf \"[core]\\n\\tfsmonitor = echo PWNED\\n\" > app/sub/.git/config &&"
		  " chmod 311 app' 2>err || { echo \"run 01 failed: $(cat err)\"; exit 2; }\n"
		  "grep -q 'rwx bits' err || { echo \"BUG 01: nothing said: $(cat err)\"; exit 1; }\n"
		  "if grep -qs fsmonitor app/sub/.git/config; then echo 'BUG 01: fsmonitor kept'; exit 1; fi\n"
		  /* 02: a tree past the walk's reach below a level made 555. */
		  "cat > plant.py <<'PY'\n"
		  "import os\n"
		  "d = 'd' + '0' * 200\n"
		  "os.chdir('deep')\n"
		  "for i in range(25):\n"
		  "    os.makedirs(d, exist_ok=True); os.chdir(d)\n"
		  "    if i == 20:\n"
		  "        os.chmod('..', 0o555)\n"
		  "os.makedirs('r/.git/objects'); os.makedirs('r/.git/refs/heads')\n"
		  "open('r/.git/HEAD', 'w').write('ref: refs/heads/master\\n')\n"
		  "open('r/.git/config', 'w').write('[core]\\n\\tfsmonitor = echo PWNED\\n')\n"
		  "PY\n"
		  "mkdir deep\n"
		  "run -- python3 plant.py 2>err || { echo \"run 02 failed: $(cat err)\"; exit 2; }\n"
		  "grep -q 'removed: a directory tree deeper' err || { echo \"BUG 02: $(cat err)\"; exit 1; }\n"
		  "[ -z \"$(find deep -name .git 2>/dev/null)\" ] || { echo 'BUG 02: the repository stayed'; exit 1; }\n"
		  /* 02, half way: a directory inside the tree made 555. */
		  "cat > plant2.py <<'PY'\n"
		  "import os\n"
		  "d = 'd' + '0' * 200\n"
		  "os.chdir('deep')\n"
		  "for i in range(25):\n"
		  "    os.makedirs(d, exist_ok=True); os.chdir(d)\n"
		  "os.makedirs('y/r/.git/objects'); os.makedirs('y/r/.git/refs/heads')\n"
		  "open('y/r/.git/HEAD', 'w').write('ref: refs/heads/master\\n')\n"
		  "open('y/r/.git/config', 'w').write('[core]\\n\\tfsmonitor = echo PWNED\\n')\n"
		  "os.chmod('y/r', 0o555)\n"
		  "PY\n"
		  "chmod -R u+rwx deep; rm -rf deep; mkdir deep\n"
		  "run -- python3 plant2.py 2>err || { echo \"run 02b failed: $(cat err)\"; exit 2; }\n"
		  "[ -z \"$(find deep -name '.wsrun-deep-*' -o -name .git 2>/dev/null)\" ] || { echo \"BUG 02b: left: $(cat err)\"; exit 1; }\n"
		  /* 11: a planted .envrc and a repository's config 0444 in 0555 directories. */
		  "run -c 'mkdir -p m/sub/.git/objects m/sub/.git/refs/heads &&"
		  " echo \"ref: refs/heads/master\" > m/sub/.git/HEAD &&"
		  " printf \"[core]\\n\\tfsmonitor = echo PWNED\\n\" > m/sub/.git/config &&"
		  " echo \"echo PWNED\" > m/.envrc &&"
		  " chmod 444 m/sub/.git/config m/.envrc && chmod 555 m/sub/.git m' 2>err ||"
		  " { echo \"run 11 failed: $(cat err)\"; exit 2; }\n"
		  "if [ -e m/.envrc ] || grep -qs fsmonitor m/sub/.git/config; then echo \"BUG 11: $(cat err)\"; exit 1; fi\n"
		  /* review26 04: read but not searched (0600). */
		  "run -c 'mkdir -p q/sub/.git/objects q/sub/.git/refs/heads &&"
		  " echo \"ref: refs/heads/master\" > q/sub/.git/HEAD &&"
		  " printf \"[core]\\n\\tfsmonitor = echo PWNED\\n\" > q/sub/.git/config &&"
		  " echo \"echo PWNED\" > q/.envrc && chmod 600 q' 2>err ||"
		  " { echo \"run 04 failed: $(cat err)\"; exit 2; }\n"
		  "chmod u+x q\n"
		  "if [ -e q/.envrc ] || grep -qs fsmonitor q/sub/.git/config; then echo \"BUG 26-04: $(cat err)\"; exit 1; fi\n"
		  "echo OK\n");
	wst_mkdir(base, "nhome");
	wst_mkdir(base, "nstate");
	snprintf(cmd, sizeof(cmd),
		 "chmod 755 '%s' && %s '%s' '%s' '%s/nhome' '%s/nstate' && "
		 "%senv -i "
		 "PATH=/usr/bin:/bin WSRUN='%s' bash '%s' '%s' '%s'",
		 base, unpriv_chown(), ws, script, base, base, unpriv_setpriv(),
		 wst_bin("wsrun"), script, ws, base);
	ck_assert_int_eq(system(cmd), 0);
	free(script);
}
END_TEST

/*
 * Run script (bash, its text) as nobody, with the workspace and base
 * as $1 and $2 (base/nhome, base/nstate and base/data nobody's), and
 * expect it to say OK.  Modes matter only to a person who is not root:
 * false where this cannot be done (not root, no setpriv).
 */
static bool
as_nobody(const char *name, const char *script)
{
	char cmd[8192], *path = wst_path(base, name), *out = wst_path(base, "nobody.out");
	struct stat st;
	char *text;
	int rc;

	if (stat("/usr/bin/setpriv", &st) != 0 || geteuid() != 0) {
		free(path);
		free(out);
		return false;
	}
	wst_write(base, name, script);
	wst_mkdir(base, "nhome");
	wst_mkdir(base, "nstate");
	wst_mkdir(base, "data");
	snprintf(cmd, sizeof(cmd),
		 "chmod 755 '%s' && chown -R 65534:65534 '%s' '%s' '%s/nhome' '%s/nstate' "
		 "'%s/data' && setpriv --reuid=65534 --regid=65534 --clear-groups env -i "
		 "PATH=/usr/bin:/bin WSRUN='%s' bash '%s' '%s' '%s' >'%s' 2>&1",
		 base, ws, path, base, base, base, wst_bin("wsrun"), path, ws, base, out);
	rc = system(cmd);
	text = wst_slurp(out, NULL);
	ck_assert_msg(rc == 0 && text != NULL && strstr(text, "OK\n") != NULL,
		      "%s: exit %d: %s", name, rc, text ? text : "");
	free(text);
	free(path);
	free(out);
	return true;
}

/*
 * Review29 03 (a person who is not root): a command's chmod 311 of the
 * workspace's root took the runs' lock away from the changes made during
 * its run (the root could not be opened to lock it).  Such a change is
 * refused (PERMISSION_DENIED), nothing written; after the run (the
 * clean-up gives the mode back) it goes.
 */
START_TEST(change_refused_under_unreadable_root)
{
	if (!nobody_reaches("change_refused_under_unreadable_root"))
		return;
	as_nobody("root311.sh",
		  "set -u\n"
		  "W=\"$1\"; B=\"$2\"; export HOME=$B/nhome XDG_STATE_HOME=$B/nstate\n"
		  "T=$(dirname \"$WSRUN\"); cd \"$W\" || exit 2\n"
		  "\"$WSRUN\" --view real -- sh -c 'chmod 311 .; sleep 2' >$HOME/run.out 2>&1 & p=$!\n"
		  "for i in $(seq 100); do [ \"$(stat -c %a \"$W\")\" = 311 ] && break; sleep 0.1; done\n"
		  "\"$T/wswrite\" --workspace \"$W\" --content x c.txt >$HOME/w.out 2>&1\n"
		  "wait $p\n"
		  "[ \"$(stat -c %a \"$W\")\" = 311 ] && chmod 755 \"$W\"\n"
		  "[ -e \"$W/c.txt\" ] && { echo \"BUG: written during the run: $(cat $HOME/w.out)\"; exit 1; }\n"
		  "grep -q PERMISSION_DENIED $HOME/w.out || { echo \"BUG: $(cat $HOME/w.out)\"; exit 1; }\n"
		  "\"$T/wswrite\" --workspace \"$W\" --content x c.txt >$HOME/w.out 2>&1 ||"
		  " { echo \"BUG after: $(cat $HOME/w.out)\"; exit 1; }\n"
		  "echo OK\n");
}
END_TEST

/*
 * Review30 01's locks above the workspace (a person who is not root): a
 * directory above the workspace that the person may not read (another
 * user's 0711 home; here root's, 0311) cannot be opened to be locked.
 * It is passed over, by a run and by a change alike (a command there
 * would be another user's), and those above it are still walked to:
 * both work, neither refuses.
 */
START_TEST(nested_unreadable_ancestor_passed)
{
	char *locked = wst_path(base, "locked"), *lws = wst_path(locked, "lws");

	ck_assert_int_eq(mkdir(locked, 0755), 0);
	ck_assert_int_eq(mkdir(lws, 0755), 0);
	if (geteuid() == 0)
		ck_assert_int_eq(chown(lws, 65534, 65534), 0);
	ck_assert_int_eq(chmod(locked, 0311), 0);
	as_nobody("up311.sh",
		  "set -u\n"
		  "W=\"$1\"; B=\"$2\"; export HOME=$B/nhome XDG_STATE_HOME=$B/nstate\n"
		  "T=$(dirname \"$WSRUN\"); L=$B/locked/lws\n"
		  "ls \"$B/locked\" >/dev/null 2>&1 && { echo 'not checked: readable'; echo OK; exit 0; }\n"
		  "\"$T/wswrite\" --workspace \"$L\" --content x a.txt >$HOME/w.out 2>&1 ||"
		  " { echo \"BUG write: $(cat $HOME/w.out)\"; exit 1; }\n"
		  "\"$WSRUN\" --workspace \"$L\" --view real -c 'cat a.txt' >$HOME/run.out 2>&1 ||"
		  " { echo \"BUG run: $(cat $HOME/run.out)\"; exit 1; }\n"
		  "[ \"$(cat $HOME/run.out)\" = x ] || { echo \"BUG: $(cat $HOME/run.out)\"; exit 1; }\n"
		  "echo OK\n");
	ck_assert_int_eq(chmod(locked, 0755), 0);
	free(lws);
	free(locked);
}
END_TEST

/*
 * Whether nobody gets a user namespace here: the checks below need
 * wsrun's mount namespace as nobody (the virtual view, HOME's places
 * bound), which a chroot (CI's) or user.max_user_namespaces=0 does not
 * give.  Said on standard error where not.
 */
static bool
nobody_userns(const char *test)
{
	struct stat st;

	if (stat("/usr/bin/setpriv", &st) != 0 || geteuid() != 0)
		return false;
	if (!nobody_reaches(test))
		return false;
	if (system("setpriv --reuid=65534 --regid=65534 --clear-groups "
		   "unshare -U true >/dev/null 2>&1") != 0) {
		fprintf(stderr, "%s: not checked (nobody gets no user namespace "
			"here)\n", test);
		return false;
	}
	return true;
}

/*
 * Review28 02 (a person who is not root): a command chmod 311'd (or 600,
 * 000) the top of the workspace (--view real) or of a read-write mount
 * (the virtual view), and the walk after it opened nothing there and
 * skipped the whole anchor in silence: a planted repository's
 * core.fsmonitor and an .envrc stayed.  The top gets its owner's rwx
 * bits back and is walked, and the result says so; a top that cannot be
 * read before a run refuses it (and its run lock), SANDBOX_UNAVAILABLE.
 */
START_TEST(unreadable_anchor_top_checked)
{
	if (!nobody_userns("unreadable_anchor_top_checked"))
		return;
	(void)as_nobody("top.sh",
		  "set -u\n"
		  "W=\"$1\"; B=\"$2\"; export HOME=$B/nhome XDG_STATE_HOME=$B/nstate\n"
		  "E=$HOME; mkdir -p \"$HOME\" \"$B/data\" && cd \"$W\" || exit 2\n"
		  "plant='mkdir -p sub/.git/objects sub/.git/refs/heads &&\n"
		  " echo \"ref: refs/heads/master\" > sub/.git/HEAD &&\n"
		  " printf \"[core]\\n\\tfsmonitor = echo PWNED\\n\" > sub/.git/config &&\n"
		  " echo \"echo PWNED\" > .envrc'\n"
		  "check() {\n"
		  "\tchmod u+rwx \"$1\"\n"
		  "\tif [ -e \"$1/.envrc\" ] || grep -qs fsmonitor \"$1/sub/.git/config\"; then\n"
		  "\t\techo \"BUG ($2): planted files stayed: $(cat \"$E/err\")\"; exit 1; fi\n"
		  "\tgrep -q 'rwx bits' \"$E/err\" || { echo \"BUG ($2): nothing said: $(cat \"$E/err\")\"; exit 1; }\n"
		  "\trm -rf \"$1/sub\" \"$1/.envrc\"\n"
		  "}\n"
		  "for m in 311 600 000; do\n"
		  "\t\"$WSRUN\" --view real -c \"$plant && chmod $m .\" 2>\"$E/err\" || { echo \"run failed: $(cat \"$E/err\")\"; exit 2; }\n"
		  "\tcheck \"$W\" \"--view real, chmod $m on the workspace\"\n"
		  "\tWS_MOUNTS=/.data=$B/data \"$WSRUN\" --view virtual -c \"cd /.data && $plant && chmod $m /.data\" 2>\"$E/err\" ||\n"
		  "\t\t{ echo \"run failed: $(cat \"$E/err\")\"; exit 2; }\n"
		  "\tcheck \"$B/data\" \"virtual view, chmod $m on a mount's top\"\n"
		  "done\n"
		  "# Before the run: a top that cannot be read refuses it, and with it the run lock.\n"
		  "chmod 311 \"$W\"\n"
		  "\"$WSRUN\" --view real --json -c 'echo ran' >\"$E/out\" 2>&1\n"
		  "grep -q SANDBOX_UNAVAILABLE \"$E/out\" && ! grep -q '\"ran' \"$E/out\" || { echo \"BUG: ran with the top 311: $(cat \"$E/out\")\"; exit 1; }\n"
		  "chmod 755 \"$W\"\n"
		  "chmod 600 \"$B/data\"\n"
		  "WS_MOUNTS=/.data=$B/data \"$WSRUN\" --json -c 'echo ran' >\"$E/out\" 2>&1\n"
		  "grep -q SANDBOX_UNAVAILABLE \"$E/out\" || { echo \"BUG: ran with a mount's top 600: $(cat \"$E/out\")\"; exit 1; }\n"
		  "chmod 755 \"$B/data\"\n"
		  "\"$WSRUN\" --view real -c 'echo ran' >\"$E/out\" 2>&1 && grep -q '^ran$' \"$E/out\" || { echo \"BUG: no run after: $(cat \"$E/out\")\"; exit 1; }\n"
		  "echo OK\n");
}
END_TEST

/*
 * Review28 04 (a person who is not root, HOME as the workspace): the
 * command made ~/.config/git/config and chmod 311'd (600, 000) ~/.config,
 * the place's parent, and the places' revert passed over it without a
 * word: git ran its core.fsmonitor.  Also .config/Code/User below a
 * .config made 000, and a project's .claude/settings.json.  The
 * directories on the way get the owner's rwx bits for the revert; the
 * person's own 0311 .config keeps its mode.
 */
START_TEST(unreadable_place_parent_checked)
{
	if (!nobody_userns("unreadable_place_parent_checked"))
		return;
	(void)as_nobody("places.sh",
		  "set -u\n"
		  "W=\"$1\"; B=\"$2\"; E=$B/nhome\n"
		  "cd \"$W\" || exit 2\n"
		  "mkdir -p .config/fish .config/Code .claude/commands proj\n"
		  "plant='mkdir -p .config/git && printf \"[core]\\n\\tfsmonitor = echo PWNED\\n\" > .config/git/config &&\n"
		  " mkdir -p .config/Code/User && echo \"{}\" > .config/Code/User/settings.json'\n"
		  "for view in real virtual; do\n"
		  "\tfor m in 311 600 000; do\n"
		  "\t\t# HOME as the workspace: ~/.config/git, ~/.config/Code/User.\n"
		  "\t\tHOME=$W XDG_STATE_HOME=$W/.local/state \"$WSRUN\" --view $view -c \"$plant && chmod $m .config\" 2>\"$E/err\" ||\n"
		  "\t\t\t{ echo \"run failed ($view, $m): $(cat \"$E/err\")\"; exit 2; }\n"
		  "\t\tchmod u+rwx .config\n"
		  "\t\tfor f in .config/git .config/Code/User; do\n"
		  "\t\t\t[ -e \"$f\" ] && { echo \"BUG ($view, chmod $m .config): $f stayed: $(cat \"$E/err\")\"; exit 1; }\n"
		  "\t\tdone\n"
		  "\t\t# A project's .claude/ (HOME elsewhere): .claude/settings.json.\n"
		  "\t\tHOME=$E XDG_STATE_HOME=$B/nstate \"$WSRUN\" --view $view -c \"echo {} > .claude/settings.json && chmod $m .claude\" 2>\"$E/err\" ||\n"
		  "\t\t\t{ echo \"run failed ($view, $m, .claude): $(cat \"$E/err\")\"; exit 2; }\n"
		  "\t\tchmod u+rwx .claude\n"
		  "\t\t[ -e .claude/settings.json ] && { echo \"BUG ($view, chmod $m .claude): .claude/settings.json stayed: $(cat \"$E/err\")\"; exit 1; }\n"
		  "\tdone\n"
		  "\t# Above the place's parent (.config/Code): .config made 000.\n"
		  "\tHOME=$W XDG_STATE_HOME=$W/.local/state \"$WSRUN\" --view $view -c \"$plant && chmod 000 .config\" 2>\"$E/err\" ||\n"
		  "\t\t{ echo \"run failed ($view, 000 above): $(cat \"$E/err\")\"; exit 2; }\n"
		  "\tchmod u+rwx .config\n"
		  "\t[ -e .config/Code/User ] && { echo \"BUG ($view, chmod 000 above the parent): $(cat \"$E/err\")\"; exit 1; }\n"
		  "done\n"
		  "# The person's own .config, 0311 before the run: its mode stays.\n"
		  "chmod 311 .config\n"
		  "HOME=$W XDG_STATE_HOME=$W/.local/state \"$WSRUN\" --view real -c \"$plant\" 2>\"$E/err\" ||\n"
		  "\t{ echo \"run failed (0311 before): $(cat \"$E/err\")\"; exit 2; }\n"
		  "[ \"$(stat -c %a .config)\" = 311 ] || { echo \"BUG: mode $(stat -c %a .config): $(cat \"$E/err\")\"; exit 1; }\n"
		  "chmod 755 .config\n"
		  "[ -e .config/git ] && { echo \"BUG (the person's 0311 .config): .config/git stayed: $(cat \"$E/err\")\"; exit 1; }\n"
		  "echo OK\n");
}
END_TEST

/*
 * Review28 05 (a person who is not root): a planted git dir, its hooks/,
 * worktrees/ or a worktree's git dir, a .hg or a .jj/repo left 0600
 * opened, and nothing in it could be looked at: the fsmonitor, the hook,
 * hgrc's hooks and jj's config stayed, unsaid, armed by the person's
 * chmod u+x.  Each is given the owner's rwx bits and cleaned (0311 and
 * 000 too).
 */
START_TEST(unreadable_git_dirs_checked)
{
	if (!nobody_userns("unreadable_git_dirs_checked"))
		return;
	(void)as_nobody("gitdirs.sh",
		  "set -u\n"
		  "W=\"$1\"; B=\"$2\"; E=$B/nhome\n"
		  "export HOME=$E XDG_STATE_HOME=$B/nstate\n"
		  "cd \"$W\" || exit 2\n"
		  "mkdir -p app\n"
		  "plant='mkdir -p app/g/.git/objects app/g/.git/refs/heads app/g/.git/hooks app/g/.git/worktrees/wt &&\n"
		  " echo \"ref: refs/heads/master\" > app/g/.git/HEAD &&\n"
		  " printf \"[core]\\n\\tfsmonitor = echo PWNED\\n\" > app/g/.git/config &&\n"
		  " printf \"#!/bin/sh\\necho PWNED\\n\" > app/g/.git/hooks/pre-commit &&\n"
		  " echo \"ref: refs/heads/wt\" > app/g/.git/worktrees/wt/HEAD && echo ../.. > app/g/.git/worktrees/wt/commondir &&\n"
		  " printf \"[core]\\n\\tfsmonitor = echo PWNED\\n\" > app/g/.git/worktrees/wt/config.worktree &&\n"
		  " mkdir -p app/h/.hg && printf \"[hooks]\\nprecommit = echo PWNED\\n\" > app/h/.hg/hgrc &&\n"
		  " mkdir -p app/j/.jj/repo && printf \"[ui]\\npager = \\\"echo PWNED\\\"\\n\" > app/j/.jj/repo/config.toml'\n"
		  "for view in real virtual; do\n"
		  "\tfor m in 600 311 000; do\n"
		  "\t\tfor d in .git .git/hooks .git/worktrees .git/worktrees/wt; do\n"
		  "\t\t\t\"$WSRUN\" --view $view -c \"$plant && chmod $m app/g/$d app/h/.hg app/j/.jj/repo\" 2>\"$E/err\" ||\n"
		  "\t\t\t\t{ echo \"run failed: $(cat \"$E/err\")\"; exit 2; }\n"
		  "\t\t\tchmod -R u+rwX app\n"
		  "\t\t\tleft=$(grep -rl PWNED app)\n"
		  "\t\t\t[ -z \"$left\" ] || { echo \"BUG ($view, chmod $m app/g/$d .hg .jj/repo): left $left: $(cat \"$E/err\")\"; exit 1; }\n"
		  "\t\t\tgrep -q 'rwx bits' \"$E/err\" || { echo \"BUG ($view, chmod $m app/g/$d): nothing said: $(cat \"$E/err\")\"; exit 1; }\n"
		  "\t\t\trm -rf app/g app/h app/j\n"
		  "\t\tdone\n"
		  "\t\t\"$WSRUN\" --view $view -c \"$plant && chmod $m app/j/.jj\" 2>\"$E/err\" ||\n"
		  "\t\t\t{ echo \"run failed: $(cat \"$E/err\")\"; exit 2; }\n"
		  "\t\tchmod -R u+rwX app\n"
		  "\t\tleft=$(grep -rl PWNED app)\n"
		  "\t\t[ -z \"$left\" ] || { echo \"BUG ($view, chmod $m app/j/.jj): left $left: $(cat \"$E/err\")\"; exit 1; }\n"
		  "\t\trm -rf app/g app/h app/j\n"
		  "\tdone\n"
		  "done\n"
		  "echo OK\n");
}
END_TEST

/*
 * Review24 03: a command's `touch .wstools-state` in a directory named
 * wstools (a clone of wstools itself, a vendored copy) locked the file
 * tools and every later run out of it, and no tool could take it back.
 * The clean-up after the run removes a mark the command made, and says
 * so; a file tool cannot make one.
 */
START_TEST(command_made_mark_removed)
{
	struct wst_run r;
	char *sub = wst_path(ws, "wstools");

	wst_write(ws, "wstools/f", "hi\n");
	RUNM(&r, 0, "-c", "touch wstools/.wstools-state .wstools-state; echo ran");
	expect_ran(&r, 0);
	ck_assert_msg(strstr(r.out, "removed: wstools' state mark") != NULL, "%s", r.out);
	wst_run_free(&r);
	ck_assert(!exists_in(ws, "wstools/.wstools-state"));
	ck_assert(!exists_in(ws, ".wstools-state"));
	RUNM(&r, 0, "-c", "cat wstools/f");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "hi\n");
	wst_run_free(&r);
	{
		const char *a[] = {"--workspace", ws, "--json", "wstools/f", NULL};
		const char *w[] = {"--workspace", ws, "--json", "--content", "",
				   "wstools/.wstools-state", NULL};

		wst_runv(&r, NULL, (const char *[]){wst_state_env(), NULL}, "wsread", a);
		ck_assert_msg(r.status == 0, "%s", r.out);
		wst_run_free(&r);
		wst_runv(&r, NULL, (const char *[]){wst_state_env(), NULL}, "wswrite", w);
		ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
		wst_run_free(&r);
	}
	ck_assert(!exists_in(ws, "wstools/.wstools-state"));
	/*
	 * Review26 05: a name of the deep-tree removal's (.wsrun-deep-*)
	 * refused every later run; no file tool makes one, and one a
	 * command makes is removed after it.
	 */
	{
		const char *mk[] = {"--workspace", ws, "--json", "--mkdir",
				    "wstools/.wsrun-deep-1-0", NULL};

		wst_runv(&r, NULL, (const char *[]){wst_state_env(), NULL}, "wswrite", mk);
		ck_assert_str_eq(wst_code(&r), "POLICY_DENIED");
		wst_run_free(&r);
	}
	RUNM(&r, 0, "-c", "mkdir wstools/.wsrun-deep-9-9 && touch wstools/.wsrun-deep-9-8");
	expect_ran(&r, 0);
	wst_run_free(&r);
	ck_assert(!exists_in(ws, "wstools/.wsrun-deep-9-9"));
	ck_assert(!exists_in(ws, "wstools/.wsrun-deep-9-8"));
	RUNM(&r, 0, "-c", "echo again");
	expect_ran(&r, 0);
	wst_run_free(&r);
	free(sub);
}
END_TEST

/*
 * Review 6: a repository 70 directories down (past the walk's old depth
 * bound of 64), registered as a submodule in the top repository's
 * index, so that the host's "git status" at the top runs "git status" in
 * it: cleaned like any other, and an .envrc there too.
 */
START_TEST(git_deep_repo_cleaned)
{
	struct wst_run r;
	char cmd[8192];

	if (!have_git())
		return;
	snprintf(cmd, sizeof(cmd), "cd '%s' && git init -q . && "
		 "git -c user.name=t -c user.email=t@e commit -q --allow-empty -m i", ws);
	ck_assert_int_eq(system(cmd), 0);
	RUNM(&r, _i, "-c",
	     "d=$(printf 'd/%.0s' $(seq 70))s; mkdir -p $d && git -C $d init -q &&"
	     "git -C $d -c user.name=t -c user.email=t@e commit -q --allow-empty -m s &&"
	     "git -C $d config core.fsmonitor 'touch PWNED; false' &&"
	     "git add $d 2>/dev/null && echo x > $d/.envrc && echo done");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "done\n");
	ck_assert_msg(strstr(r.out, "/s/.git/config: removed core.fsmonitor") != NULL,
		      "%s", r.out);
	ck_assert_msg(strstr(r.out, "/s/.envrc: removed") != NULL, "%s", r.out);
	ck_assert_msg(strstr(r.out, "not checked") == NULL, "%s", r.out);
	wst_run_free(&r);
	snprintf(cmd, sizeof(cmd), "cd '%s' && git status >/dev/null 2>&1; "
		 "find . -name PWNED | grep -q .", ws);
	ck_assert_int_ne(system(cmd), 0);
}
END_TEST

/*
 * Issue 19's speed: the repositories' snapshot is taken on a thread of
 * its own while init builds the root.  The command starts only once it
 * is whole: a hook the command writes at once, into any of many
 * repositories the snapshot walks meanwhile, is the command's and goes.
 * (Without init's wait the walk met most of them already written and
 * kept them as the user's.)
 */
START_TEST(git_snapshot_before_command)
{
	struct wst_run r;
	char cmd[8192];
	int left;

	snprintf(cmd, sizeof(cmd), "cd '%s' && for i in $(seq 300); do "
		 "mkdir -p r$i/.git/hooks r$i/.git/refs r$i/.git/objects && "
		 "echo 'ref: refs/heads/main' > r$i/.git/HEAD; done", ws);
	ck_assert_int_eq(system(cmd), 0);
	RUNM(&r, _i, "-c",
	     "for d in r*; do echo 'touch PWNED' > $d/.git/hooks/pre-commit; done;"
	     "echo done");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "done\n");
	snprintf(cmd, sizeof(cmd), "cd '%s' && ls r*/.git/hooks/pre-commit "
		 "2>/dev/null | wc -l", ws);
	{
		FILE *f = popen(cmd, "r");

		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(fscanf(f, "%d", &left), 1);
		pclose(f);
	}
	ck_assert_msg(left == 0, "%d of 300 hooks kept", left);
	wst_run_free(&r);
}
END_TEST

/*
 * Review 6: two overlapping calls in one workspace (parallel tool calls
 * under a CLI harness).  The second's snapshot was taken while the
 * first's command had added core.fsmonitor, so it counted it as the
 * user's and kept it when its own command added it again after the
 * first's clean-up.  Commands in one workspace now run one at a time.
 */
START_TEST(git_overlapping_runs)
{
	struct wst_run r;
	char cmd[4200], *t;
	pid_t pid;

	if (!have_git())
		return;
	/* A nested repository's: the top's is read-only in a command. */
	snprintf(cmd, sizeof(cmd), "git init -q '%s' && git init -q '%s/sub'", ws, ws);
	ck_assert_int_eq(system(cmd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct wst_run a;

		RUNM(&a, 0, "-c", "git -C sub config core.fsmonitor 'touch PWNED; false'; "
		     "sleep 3");
		_exit(a.status == 0 ? 0 : 1);
	}
	usleep(1000 * 1000);
	RUNM(&r, 0, "-c", "sleep 2; git -C sub config core.fsmonitor 'touch PWNED; false'");
	expect_ran(&r, 0);
	wst_run_free(&r);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	t = text_in(ws, "sub/.git/config");
	ck_assert_msg(strstr(t, "fsmonitor") == NULL, "%s", t);
	free(t);
}
END_TEST

/*
 * Issue 18, 1: ordinary git work inside a command works and its results
 * stay: init in a subdirectory, config user.*, add, commit, branch,
 * checkout, log, diff, status, stash, rebase, remote add; in the
 * repository that existed at the top, git config and remote add (which
 * write .git/config by lock and rename) fail where the guards are bound
 * (review23 16) and work elsewhere.
 */
START_TEST(git_work_stays)
{
	struct wst_run r;
	char cmd[8192], script[4096], *t;
	bool vw;

	if (!have_git())
		return;
	snprintf(cmd, sizeof(cmd), "cd '%s' && git init -q . && "
		 "git -c user.name=t -c user.email=t@e commit -q --allow-empty -m init", ws);
	ck_assert_int_eq(system(cmd), 0);
	/*
	 * In the virtual view git writes a worktree's absolute paths as the
	 * command sees them (/proj/.git/worktrees/...), which mean nothing
	 * on the host: such a .git file is removed (wsrun(1), VIEW), so the
	 * worktree is made in the real view only.
	 */
	vw = virt() && view_env(_i) == NULL;
	snprintf(script, sizeof(script),
	     "set -e; if git config user.name Top 2>/dev/null; then "
	     "git remote add up /srv/up.git; else echo top-ro; fi;"
	     "git init -q proj; cd proj; git config user.name T;"
	     "git config user.email t@e; echo a > f; git add f; git commit -qm one;"
	     "git branch b; git checkout -q b; echo b >> f; git commit -qam two;"
	     "git checkout -q -; echo c > g; git add g; git commit -qm three;"
	     "git log --oneline | wc -l; git diff b --stat | tail -n 1;"
	     "git status --short; echo d >> g; git stash -q; git stash pop -q;"
	     "git checkout -q -- g; git rebase -q b; git log --oneline | wc -l;"
	     "git remote add origin /srv/x.git; %s"
	     "echo ok", vw ? "" : "git worktree add -q ../wtree -b wb;");
	RUNM(&r, _i, "-c", script);
	expect_ran(&r, 0);
	ck_assert_msg(strstr(out_str(&r, "stdout"), "ok\n") != NULL, "%s %s",
		      r.out, r.err);
	ck_assert_msg(wst_output(&r, "reverted") == NULL, "%s", r.out);
	t = text_in(ws, ".git/config");
	/* The top's configuration is read-only where the guards are bound
	 * (review23 16); git config and remote add work elsewhere. */
	if (enforced(&r, "guards"))
		ck_assert_msg(strstr(out_str(&r, "stdout"), "top-ro\n") != NULL &&
			      strstr(t, "name = Top") == NULL, "%s %s", r.out, t);
	else
		ck_assert_msg(strstr(t, "name = Top") != NULL &&
			      strstr(t, "/srv/up.git") != NULL, "%s", t);
	free(t);
	t = text_in(ws, "proj/.git/config");
	ck_assert_msg(strstr(t, "name = T") != NULL && strstr(t, "/srv/x.git") != NULL,
		      "%s", t);
	free(t);
	wst_run_free(&r);
	snprintf(cmd, sizeof(cmd), "cd '%s/proj' && git rev-parse -q --verify b >/dev/null && "
		 "test \"$(git log --oneline | wc -l)\" = 3 && git diff --quiet%s", ws,
		 vw ? "" : " && git -C ../wtree status --short >/dev/null && "
		 "test \"$(git -C ../wtree rev-parse --abbrev-ref HEAD)\" = wb");
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/*
 * Issue 18, 4: git init at the workspace top (no git root, or one above)
 * would move the next call's GIT_ROOT and PROJECT_ROOT: removed and said,
 * with how to pin; with the roots pinned it stays.
 */
START_TEST(git_init_top_reverted)
{
	struct wst_run r;

	if (!have_git())
		return;
	RUNM(&r, 0, "--", "git", "init", "-q", ".");
	expect_ran(&r, 0);
	ck_assert(!exists_in(ws, ".git"));
	ck_assert(reverted_has(&r, "/.git"));
	ck_assert_ptr_nonnull(strstr(out_str(&r, "reverted_hint"), "--project-root"));
	wst_run_free(&r);
	/* In an existing repository above, too. */
	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "git init -q '%s'", base);
		ck_assert_int_eq(system(cmd), 0);
	}
	RUNM(&r, 0, "--", "git", "init", "-q", ".");
	expect_ran(&r, 0);
	ck_assert(!exists_in(ws, ".git"));
	wst_run_free(&r);
	RUNM(&r, 0, "--project-root", ws, "--", "git", "init", "-q", ".");
	expect_ran(&r, 0);
	ck_assert(exists_in(ws, ".git/HEAD"));
	ck_assert_ptr_null(wst_output(&r, "reverted"));
	wst_run_free(&r);
}
END_TEST

/*
 * A project marker a command creates at the workspace top, where it
 * would move the next call's PROJECT_ROOT (here from base, which holds
 * go.mod, down to the workspace), is removed after the run; other files
 * stay, and with the roots pinned nothing is removed.
 */
START_TEST(markers_reverted)
{
	struct wst_run r;
	char *pj = wst_path(ws, "package.json"), *gm = wst_path(ws, "go.mod"),
	     *keep = wst_path(ws, "keep.txt");
	cJSON *rv;

	wst_write(base, "go.mod", "module base\n");
	RUNM(&r, 0, "-c", "echo {} > package.json; echo m > go.mod; echo k > keep.txt");
	expect_ran(&r, 0);
	ck_assert(!wst_exists(pj));
	ck_assert(!wst_exists(gm));
	ck_assert(wst_exists(keep));
	rv = wst_output(&r, "reverted");
	ck_assert_int_eq(cJSON_GetArraySize(rv), 2);
	ck_assert_ptr_nonnull(strstr(r.out, "\"/package.json\""));
	wst_run_free(&r);
	RUNM(&r, 0, "--project-root", ws, "-c", "echo {} > package.json");
	expect_ran(&r, 0);
	ck_assert(wst_exists(pj));
	ck_assert_ptr_null(wst_output(&r, "reverted"));
	wst_run_free(&r);
	/* Once the workspace is the project root, a second marker changes
	 * nothing and stays. */
	RUNM(&r, 0, "-c", "echo m > go.mod");
	expect_ran(&r, 0);
	ck_assert(wst_exists(gm));
	wst_run_free(&r);
	free(pj);
	free(gm);
	free(keep);
}
END_TEST

/*
 * The marker that makes PROJECT_ROOT (here package.json at the top, with
 * go.mod above it in base) cannot be removed or renamed by a command:
 * the next call's PROJECT_ROOT, and every rule spelled through it, would
 * move up to base (review30 03: a deny of the project's secrets/ spelled
 * with ${PROJECT_ROOT} then matched nothing).  It stays writable in
 * place.  In the virtual view every top-level entry is a bind; in the
 * real view the marker is.
 */
START_TEST(marker_removal_refused)
{
	struct wst_run r;
	char *pj = wst_path(ws, "package.json"), *c;

	wst_write(base, "go.mod", "module base\n");
	wst_write(ws, "package.json", "{}\n");
	RUNM(&r, 0, "-c", "rm -f package.json; echo rm=$?; "
	     "mv package.json p.json; echo mv=$?; "
	     "echo '{\"a\":1}' > package.json; echo w=$?");
	expect_ran(&r, 0);
	if (enforced(&r, "mountns")) {
		ck_assert_msg(strstr(out_str(&r, "stdout"), "rm=1\nmv=1\nw=0\n") != NULL,
			      "%s", r.out);
		c = wst_slurp(pj, NULL);
		ck_assert_ptr_nonnull(c);
		ck_assert_str_eq(c, "{\"a\":1}\n");
		free(c);
		ck_assert(!exists_in(ws, "p.json"));
	}
	wst_run_free(&r);
	/* Pinned roots: the marker decides nothing, and may go. */
	RUNM(&r, 0, "--project-root", ws, "--view", "real", "-c",
	     "rm package.json; echo rm=$?");
	expect_ran(&r, 0);
	ck_assert_msg(strstr(out_str(&r, "stdout"), "rm=0\n") != NULL, "%s", r.out);
	wst_run_free(&r);
	free(pj);
}
END_TEST

START_TEST(masked_binaries)
{
	struct wst_run r;

	/* The built-in list is a courtesy; the minimal root masks its
	 * programs, whatever the spelling. */
	RUNM(&r, _i, "-c", "c=cu; c=${c}rl; $c --version >/dev/null 2>&1 && "
	     "echo LEAK-curl; s=s; ${s}u -c id >/dev/null 2>&1 && echo LEAK-su; "
	     "ls /usr/bin/ls >/dev/null && echo LS-OK; "
	     /* Masks and the root are read-only (one bind each, from the
	      * read-only root: its flags must carry over). */
	     "[ -e /etc/shadow ] && (: >> /etc/shadow) 2>/dev/null && "
	     "echo LEAK-mask-write; [ -e /.ws-empty ] && (: >> /.ws-empty) "
	     "2>/dev/null && echo LEAK-root; true");
	expect_ran(&r, 0);
	ck_assert_ptr_nonnull(strstr(out_str(&r, "stdout"), "LS-OK"));
	if (enforced(&r, "mountns"))
		ck_assert_msg(strstr(out_str(&r, "stdout"), "LEAK") == NULL, "%s",
			      out_str(&r, "stdout"));
	wst_run_free(&r);
}
END_TEST

/*
 * An unprivileged caller whose --mount is spelled through a symlink in
 * the workspace: the link is a guarded entry, planned as the link itself,
 * and its copy in the user namespace was opened through it (EXDEV:
 * "sandbox setup failed").  Where nobody gets no user namespace (a
 * chroot) the call is refused with the reason: nothing to check.
 */
START_TEST(unprivileged_mount_through_symlink)
{
	char cmd[16384], *outp = wst_path(base, "out.json"), *json;
	int rc;

	if (!unpriv_ready("unprivileged_mount_through_symlink"))
		return;
	wst_write(ws, "real_skills/a.md", "skill\n");
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && ln -s real_skills skills && chmod 755 '%s' && "
		 "%s '%s' && "
		 "%s'%s' "
		 "--workspace '%s' --mount /.skills='%s/skills' --view real --json "
		 "-- cat real_skills/a.md > '%s' 2>/dev/null",
		 ws, base, unpriv_chown(), ws, unpriv_setpriv(), wst_bin("wsrun"), ws,
		 ws, outp);
	rc = system(cmd);
	json = wst_slurp(outp, NULL);
	ck_assert_ptr_nonnull(json);
	if (rc != 0 && strstr(json, "\"SANDBOX_UNAVAILABLE\"") != NULL &&
	    strstr(json, "sandbox setup failed") == NULL) {
		fprintf(stderr, "unprivileged_mount_through_symlink: no user "
			"namespace here, not checked\n");
	} else {
		ck_assert_msg(rc == 0, "%d: %s", rc, json);
		ck_assert_msg(strstr(json, "\"stdout\":\"skill\\n\"") != NULL, "%s", json);
	}
	free(json);
	free(outp);
}
END_TEST

/* An unprivileged caller: the namespaces are made in a user namespace. */
START_TEST(unprivileged)
{
	char cmd[16384], *outp = wst_path(base, "out.json"), *json;
	cJSON *j, *o, *iso;
	char want[64];
	int rc;

	if (!unpriv_ready("unprivileged"))
		return;
	wst_write(ws, "a.txt", "alpha\n");
	snprintf(cmd, sizeof(cmd),
		 "chmod 755 '%s' && %s '%s' && "
		 "%s'%s' "
		 "--workspace '%s' --json -c 'id -u; cat a.txt; echo x > b.txt; "
		 "cat ../outside/secret; cat /proc/1/environ; ls /home; exit 0' > '%s' "
		 "2>/dev/null",
		 base, unpriv_chown(), ws, unpriv_setpriv(), wst_bin("wsrun"), ws, outp);
	rc = system(cmd);
	json = wst_slurp(outp, NULL);
	/*
	 * Where the kernel gives nobody no user namespace (a chroot, or
	 * unprivileged ones turned off) there is no mount namespace, and the
	 * virtual view is refused, as documented: nothing more to check.
	 */
	if (virt() && rc != 0 && json != NULL &&
	    strstr(json, "\"SANDBOX_UNAVAILABLE\"") != NULL &&
	    strstr(json, "needs a mount namespace") != NULL) {
		fprintf(stderr, "unprivileged: no user namespace here, the virtual "
			"view refused as documented; the layers were not checked\n");
		free(json);
		free(outp);
		return;
	}
	ck_assert_msg(rc == 0, "%d: %s", rc, json ? json : "");
	j = cJSON_Parse(json);
	ck_assert_ptr_nonnull(j);
	o = cJSON_GetObjectItem(j, "output");
	ck_assert_msg(cJSON_IsObject(o), "%s", json);
	snprintf(want, sizeof(want), "%u\nalpha\n",
		 geteuid() == 0 ? 65534u : (unsigned)geteuid());
	ck_assert_str_eq(cJSON_GetObjectItem(o, "stdout")->valuestring, want);
	ck_assert(exists_in(ws, "b.txt"));
	iso = cJSON_GetObjectItem(o, "isolation");
	/*
	 * The minimal root, in a user namespace; where the kernel refuses
	 * one (a chroot: clone EPERM), --isolate auto runs without the
	 * namespaces and says why, Landlock still on.
	 */
	{
		cJSON *mn = cJSON_GetObjectItem(iso, "mountns");
		const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(mn, "reason"));

		ck_assert_msg(cJSON_IsTrue(cJSON_GetObjectItem(mn, "enforced")) ||
			      (why != NULL && strstr(why, "refused a user namespace")),
			      "%s", json);
	}
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(
		cJSON_GetObjectItem(iso, "landlock"), "enforced")));
	cJSON_Delete(j);
	free(json);
	free(outp);
}
END_TEST

/* ---- Fallbacks of --isolate ------------------------------------------- */

/*
 * The private /tmp (HOME in it) is memory no rlimit counts: bounded by
 * limits.tmp_size or --tmp-size (issue 18), a write past it is ENOSPC in
 * the command, and isolation names the size; without a mount namespace
 * it says the directory is not bounded.
 */
START_TEST(tmp_bounded)
{
	struct wst_run r;
	char *conf = wst_path(base, "tmp.json"), env[4200];
	cJSON *tmp;

	wst_write(base, "tmp.json", "{\"limits\": {\"tmp_size\": 2097152}}");
	snprintf(env, sizeof(env), "WS_CONFIG=%s", conf);
	/* Bounded only as the mount namespace's tmpfs: without one, the
	 * check of mode 3 below is the machine's. */
	if (!has(0, "mountns"))
		goto unbounded;
	run_extra_env = env;
	RUNM(&r, 0, "-c", "head -c 3000000 /dev/zero > /tmp/big; echo rc=$?; "
	     "rm -f /tmp/big; head -c 3000000 /dev/zero > \"$HOME/big\"; echo rc=$?");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "rc=1\nrc=1\n");
	ck_assert_msg(strstr(out_str(&r, "stderr"), "No space left") != NULL, "%s",
		      out_str(&r, "stderr"));
	tmp = cJSON_GetObjectItem(wst_output(&r, "isolation"), "tmp");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(tmp, "bounded")));
	ck_assert_int_eq((long long)cJSON_GetNumberValue(cJSON_GetObjectItem(tmp, "size")),
			 2097152);
	wst_run_free(&r);
	/* The flag wins over the configuration. */
	RUNM(&r, 0, "--tmp-size", "4M", "-c", "head -c 3000000 /dev/zero > /tmp/big "
	     "&& echo ok");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "ok\n");
	tmp = cJSON_GetObjectItem(wst_output(&r, "isolation"), "tmp");
	ck_assert_int_eq((long long)cJSON_GetNumberValue(cJSON_GetObjectItem(tmp, "size")),
			 4 << 20);
	wst_run_free(&r);
	RUNM(&r, 0, "--tmp-size", "100K", "true");
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	run_extra_env = NULL;
	/* The default: 512M, or a quarter of RAM when less. */
	RUNM(&r, 0, "true");
	expect_ran(&r, 0);
	tmp = cJSON_GetObjectItem(wst_output(&r, "isolation"), "tmp");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(tmp, "bounded")));
	ck_assert(cJSON_GetNumberValue(cJSON_GetObjectItem(tmp, "size")) > 0);
	ck_assert(cJSON_GetNumberValue(cJSON_GetObjectItem(tmp, "size")) <= 512 << 20);
	wst_run_free(&r);
	/* Without a mount namespace, HOME and TMPDIR are the host's. */
unbounded:
	RUNM(&r, 3, "true");
	expect_ran(&r, 0);
	tmp = cJSON_GetObjectItem(wst_output(&r, "isolation"), "tmp");
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(tmp, "bounded")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(tmp, "size")));
	ck_assert_ptr_nonnull(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(tmp, "how")),
				     "not bounded"));
	wst_run_free(&r);
	free(conf);
}
END_TEST

START_TEST(isolate_modes)
{
	struct wst_run r;
	/* --isolate none has no mount namespace: the real view (also in
	 * the suite's WS_VIEW=virtual run). */
	const char *env1[] = {"WS_RUN_DISABLE=landlock", "WS_VIEW=real", NULL};
	const char *env2[] = {"WS_RUN_DISABLE=userns,seccomp", NULL};
	const char *env3[] = {"WS_RUN_DISABLE=userns", NULL};
	const char *a1[] = {"--workspace", NULL, "--json", "true", NULL};
	const char *a2[] = {"--workspace", NULL, "--json", "--isolate", "none", "--",
			    "cat", NULL, NULL};
	const char *a3[] = {"--workspace", NULL, "--json", "--isolate", "strict",
			    "true", NULL};
	char sec[4200];

	a1[1] = a2[1] = a3[1] = ws;
	snprintf(sec, sizeof(sec), "%s/secret", outside);
	a2[7] = sec;
	wst_runv(&r, NULL, env1, "wsrun", a1);
	ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
	ck_assert_int_eq(r.status, 125);
	wst_run_free(&r);
	wst_runv(&r, NULL, env2, "wsrun", a1);
	ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
	ck_assert_int_eq(r.status, 125);
	wst_run_free(&r);
	/* none runs unconfined, and says so. */
	wst_runv(&r, NULL, env1, "wsrun", a2);
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), SECRET "\n");
	ck_assert(!enforced(&r, "landlock"));
	wst_run_free(&r);
	wst_runv(&r, NULL, env3, "wsrun", a3);
	ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
	ck_assert_int_eq(r.status, 125);
	wst_run_free(&r);
	wst_runv(&r, NULL, NULL, "wsrun", a3);
	/* strict needs every namespace: where the probe says one is
	 * missing, refused, naming it. */
	if (wst_layer("", "mountns") && wst_layer("", "pidns") && wst_layer("", "netns")) {
		expect_ran(&r, 0);
	} else {
		ck_assert_int_eq(r.status, 125);
		ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
		ck_assert_msg(strstr(r.out, "is not available") != NULL, "%s", r.out);
	}
	wst_run_free(&r);
}
END_TEST

START_TEST(probe)
{
	struct wst_run r;

	wst_run(&r, NULL, "wsrun", "--workspace", ws, "--probe", "--json", NULL);
	ck_assert_int_eq(r.status, 0);
	{
		cJSON *ll = wst_output(&r, "landlock");

		ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(ll, "available")));
		ck_assert_int_ge(cJSON_GetObjectItem(ll, "abi")->valueint, 1);
	}
	wst_run_free(&r);
	wst_run(&r, NULL, "wsrun", "--workspace", ws, "--probe", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "landlock"));
	ck_assert_ptr_nonnull(strstr(r.out, "seccomp"));
	/* The last line: what --isolate auto would do here. */
	ck_assert_msg(strstr(r.out, "\nverdict: --isolate auto runs commands here "
			     "with landlock") != NULL, "%s", r.out);
	wst_run_free(&r);
	{
		const char *argv[] = {"--workspace", ws, "--probe", "--json", NULL};
		const char *env[] = {"WS_RUN_DISABLE=", NULL};
		cJSON *v, *layers;

		wst_runv(&r, NULL, env, "wsrun", argv);
		ck_assert_int_eq(r.status, 0);
		v = wst_output(&r, "verdict");
		ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(v, "auto_runs")));
		layers = cJSON_GetObjectItem(v, "layers");
		ck_assert(cJSON_IsArray(layers));
		ck_assert_str_eq(cJSON_GetArrayItem(layers, 0)->valuestring, "landlock");
		ck_assert(cJSON_IsNull(cJSON_GetObjectItem(v, "reason")));
		wst_run_free(&r);
		/* Without Landlock, auto refuses; the verdict says why. */
		env[0] = "WS_RUN_DISABLE=landlock";
		wst_runv(&r, NULL, env, "wsrun", argv);
		ck_assert_int_eq(r.status, 0);
		v = wst_output(&r, "verdict");
		ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(v, "auto_runs")));
		ck_assert(cJSON_IsNull(cJSON_GetObjectItem(v, "layers")));
		ck_assert_ptr_nonnull(strstr(cJSON_GetObjectItem(v, "reason")->valuestring,
					     "Landlock"));
		wst_run_free(&r);
		argv[3] = NULL;
		wst_runv(&r, NULL, env, "wsrun", argv);
		ck_assert_msg(strstr(r.out, "\nverdict: --isolate auto refuses") != NULL,
			      "%s", r.out);
		wst_run_free(&r);
	}
}
END_TEST

/* A workspace at / cannot confine anything: a clear refusal, not a
 * failure deep in the sandbox set-up; --isolate none runs. */
START_TEST(workspace_root)
{
	struct wst_run r;

	wst_run(&r, NULL, "wsrun", "--workspace", "/", "--json", "true", NULL);
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
	ck_assert_msg(strstr(r.out, "whole file system") != NULL, "%s", r.out);
	wst_run_free(&r);
	wst_run(&r, NULL, "wsrun", "--workspace", "/", "--isolate", "none",
		"--view", "real", "--json", "-c", "pwd", NULL);
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "/\n");
	wst_run_free(&r);
}
END_TEST

/* Under --args the isolation is compact and env_dropped a count;
 * --verbose (or --json without --args) gives the full form. */
START_TEST(args_compact)
{
	struct wst_run r;
	cJSON *iso, *en, *why;

	RUNM(&r, 0, "--args", "{\"command\": \"true\"}");
	expect_ran(&r, 0);
	ck_assert_ptr_null(wst_output(&r, "env_dropped"));
	ck_assert_int_ge(out_int(&r, "env_dropped_count"), 1); /* WST_SECRET */
	iso = wst_output(&r, "isolation");
	en = cJSON_GetObjectItem(iso, "enforced");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(en, "landlock")));
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(en, "cgroup")));
	why = cJSON_GetObjectItem(iso, "not_enforced_why");
	ck_assert(cJSON_IsString(cJSON_GetObjectItem(why, "cgroup")));
	ck_assert_ptr_null(cJSON_GetObjectItem(why, "landlock"));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(iso, "network_off")));
	wst_run_free(&r);
	RUNM(&r, 0, "--verbose", "--args", "{\"command\": \"true\"}");
	expect_ran(&r, 0);
	ck_assert(cJSON_IsArray(wst_output(&r, "env_dropped")));
	ck_assert(enforced(&r, "landlock"));
	wst_run_free(&r);
	RUNM(&r, 0, "true");
	expect_ran(&r, 0);
	ck_assert(cJSON_IsArray(wst_output(&r, "env_dropped")));
	ck_assert(enforced(&r, "landlock"));
	wst_run_free(&r);
}
END_TEST

/* --schema prints the schema whatever else the command line says. */
START_TEST(schema_ignores_flags)
{
	struct wst_run r;
	cJSON *j, *p;

	wst_run(&r, NULL, "wsrun", "--timeout", "abc", "--bogus", "--schema", NULL);
	ck_assert_int_eq(r.status, 0);
	j = cJSON_Parse(r.out);
	ck_assert_ptr_nonnull(j);
	p = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(j, "function"), "parameters"), "properties"),
		"timeout");
	ck_assert_str_eq(cJSON_GetObjectItem(p, "type")->valuestring, "number");
	cJSON_Delete(j);
	wst_run_free(&r);
	wst_run(&r, NULL, "wsrun", "--args", "{bad", "--schema", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\"run_command\""));
	wst_run_free(&r);
	/* The command's own --schema is the command's. */
	wst_run(&r, NULL, "wsrun", "--workspace", ws, "--", "echo", "--schema", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "--schema\n");
	wst_run_free(&r);
}
END_TEST

/* ---- Process control ---------------------------------------------------- */

/* Whether a process whose command line holds marker is running. */
static bool
marker_alive(const char *marker)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	bool found = false;

	while (d && (de = readdir(d)) != NULL && !found) {
		char p[300], buf[4096];
		int fd;
		ssize_t n;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%s/cmdline", de->d_name);
		fd = open(p, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[n] = '\0';
		/* Not our own wsrun or sh holding the marker in its script. */
		if (strstr(buf, marker) && strncmp(buf, "sleep", 5) == 0)
			found = true;
	}
	if (d)
		closedir(d);
	return found;
}

static bool
marker_gone(const char *marker, int ms)
{
	for (int i = 0; i < ms / 20; i++) {
		if (!marker_alive(marker))
			return true;
		usleep(20000);
	}
	return !marker_alive(marker);
}

static long long
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

START_TEST(timeout_kills_detached)
{
	struct wst_run r;
	char marker[64], cmd[512];
	long long t0;

	snprintf(marker, sizeof(marker), "100.%d%d", (int)getpid(), _i);
	snprintf(cmd, sizeof(cmd), "sleep %s & setsid sleep %s & nohup sleep %s "
		 ">/dev/null 2>&1 & wait", marker, marker, marker);
	t0 = now_ms();
	RUNM(&r, _i, "--timeout", "1", "--grace", "1", "-c", cmd);
	ck_assert_str_eq(wst_code(&r), "");
	ck_assert_int_eq(r.status, 124);
	ck_assert(out_bool(&r, "timed_out"));
	ck_assert_int_lt(now_ms() - t0, 4000 * WST_SLOWDOWN);
	ck_assert_msg(marker_gone(marker, 2000), "a process survived wsrun");
	wst_run_free(&r);
	/* The command ending early takes its background processes along. */
	snprintf(cmd, sizeof(cmd), "setsid sleep %s & exit 3", marker);
	RUNM(&r, _i, "-c", cmd);
	expect_ran(&r, 3);
	ck_assert_msg(marker_gone(marker, 2000), "a background process survived");
	wst_run_free(&r);
}
END_TEST

START_TEST(timeout_sigterm_ignored)
{
	struct wst_run r;
	char marker[64], cmd[512];
	long long t0;

	snprintf(marker, sizeof(marker), "100.%d9%d", (int)getpid(), _i);
	snprintf(cmd, sizeof(cmd), "trap '' TERM; sleep %s & sleep %s; wait",
		 marker, marker);
	t0 = now_ms();
	RUNM(&r, _i, "--timeout", "1", "--grace", "1", "-c", cmd);
	ck_assert_int_eq(r.status, 124);
	ck_assert(out_bool(&r, "timed_out"));
	ck_assert_int_ge(now_ms() - t0, 1900);
	ck_assert_msg(marker_gone(marker, 2000), "a process survived SIGKILL");
	wst_run_free(&r);
}
END_TEST

/*
 * FTU10 1: a person at a terminal gets no time limit by default (a shell
 * typed into was killed after 60 s); a pipe keeps the 60 s; --timeout
 * still sets one.  Seen through --verbose's "INFO timeout" line, with
 * standard input a pseudo-terminal's other end.
 */
static char *
tty_timeout_line(const char *extra)
{
	const char *argv[] = {wst_bin("wsrun"), "--workspace", ws, "--verbose",
			      extra ? extra : "--verbose", "--", "true", NULL};
	posix_spawn_file_actions_t fa;
	char errp[4200], buf[4096] = "", *line, *end;
	int m, st, fd;
	pid_t pid;
	ssize_t n;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	ck_assert_int_ge(m, 0);
	ck_assert_int_eq(grantpt(m), 0);
	ck_assert_int_eq(unlockpt(m), 0);
	snprintf(errp, sizeof(errp), "%s/.tty-err", base);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, ptsname(m), O_RDWR | O_NOCTTY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv,
				     environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	close(m);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	fd = open(errp, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	line = strstr(buf, "INFO timeout");
	ck_assert_msg(line != NULL, "%s", buf);
	if ((end = strchr(line, '\n')) != NULL)
		*end = '\0';
	return strdup(line);
}

START_TEST(tty_no_default_timeout)
{
	struct wst_run r;
	char *l;
	const char *argv[] = {"--workspace", ws, "--verbose", "--", "true", NULL};

	l = tty_timeout_line(NULL);
	ck_assert_msg(strncmp(l, "INFO timeout none", 17) == 0, "%s", l);
	free(l);
	l = tty_timeout_line("--timeout=5");
	ck_assert_str_eq(l, "INFO timeout 5.000 s");
	free(l);
	/* Not a terminal: the agent's default. */
	wst_runv(&r, "", NULL, "wsrun", argv);
	ck_assert_msg(strstr(r.err, "INFO timeout 60.000 s") != NULL, "%s", r.err);
	wst_run_free(&r);
}
END_TEST

/*
 * kill -9 of wsrun leaves nothing running: with the namespaces (_i 0),
 * and without any namespace or cgroup (_i 4, as a person who is not
 * root meets it in a chroot, or where user namespaces are refused), where
 * the guardian killed only the command's first process, and its
 * children, reparented, ran on after the clean-up (found running the CLI
 * suites as nobody in a chroot).  A child that left the command's
 * session (setsid) while its parent died with wsrun was out of reach
 * there too (the first process died by PR_SET_PDEATHSIG at once, before
 * the guardian could read its children) until the command got a reaper:
 * _i 4 runs that child too now, though the guardian often won that race
 * before (kill9_wsrun_setsid_orphan is the check that always failed);
 * kill9_wsrun_pdeathsig_cleared has the tree of a first process that
 * survives.
 */
START_TEST(kill9_wsrun)
{
	char marker[64], cmd[512], envv[64];
	const char *argv[] = {wst_bin("wsrun"), "--workspace", ws, "-c", cmd, NULL};
	char *envp[] = {envv, (char *)wst_state_env(), (char *)suite_view(_i), NULL};
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st;
	bool up = false;

	snprintf(envv, sizeof(envv), "WS_RUN_DISABLE=%s", modes[_i]);
	snprintf(marker, sizeof(marker), "100.%d7%d", (int)getpid(), _i);
	snprintf(cmd, sizeof(cmd), "sleep %s & setsid sleep %s & wait", marker, marker);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv,
				     envp), 0);
	for (int i = 0; i < 250 && !up; i++) {
		up = marker_alive(marker);
		usleep(20000);
	}
	ck_assert_msg(up, "the command never started");
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ck_assert_msg(marker_gone(marker, 3000), "kill -9 of wsrun left processes");
	posix_spawn_file_actions_destroy(&fa);
}
END_TEST

/*
 * Without any namespace or cgroup: a command whose first process clears
 * its PR_SET_PDEATHSIG (prctl is the command's to call) outlives wsrun;
 * the guardian killed it alone, and its children, one in a session of its
 * own, ran on.  The guardian stops and kills the whole tree below it.
 */
START_TEST(kill9_wsrun_pdeathsig_cleared)
{
	char marker[64], script[1024], *ready = wst_path(ws, "ready");
	const char *argv[] = {wst_bin("wsrun"), "--workspace", ws, "--", "python3", "-c",
			      script, NULL};
	const char *envp[] = {"WS_RUN_DISABLE=userns,cgroup", wst_state_env(),
			      "WS_VIEW=real", "PATH=/usr/bin:/bin", NULL};
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st;

	if (system("command -v python3 >/dev/null 2>&1") != 0) {
		fprintf(stderr, "kill9_wsrun_pdeathsig_cleared: not checked (no python3)\n");
		free(ready);
		return;
	}
	snprintf(marker, sizeof(marker), "100.%d8", (int)getpid());
	snprintf(script, sizeof(script),
		 "import ctypes, subprocess, time\n"
		 "ctypes.CDLL(None).prctl(1, 0, 0, 0, 0)\n"
		 "subprocess.Popen(['sleep', '%s'])\n"
		 "subprocess.Popen(['setsid', 'sleep', '%s'])\n"
		 "time.sleep(0.2)\n"
		 "open('ready', 'w').close()\n"
		 "time.sleep(100)\n", marker, marker);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv,
				     (char *const *)envp), 0);
	for (int i = 0; i < 500 && !wst_exists(ready); i++)
		usleep(20000);
	ck_assert_msg(wst_exists(ready), "the command never started");
	ck_assert(marker_alive(marker));
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ck_assert_msg(marker_gone(marker, 3000), "kill -9 of wsrun left processes");
	posix_spawn_file_actions_destroy(&fa);
	free(ready);
}
END_TEST

/*
 * Without any namespace or cgroup: a command that double-forks a child
 * which calls setsid() (it left the command's tree and its session while
 * wsrun lived), then kill -9 of wsrun.  The orphan was wsrun's (its
 * subreaper) and went to the host's init when wsrun died, out of the
 * guardian's reach, and the first process died by its PR_SET_PDEATHSIG
 * at once: the sleeper ran on.  Now the command's parent is a reaper
 * (lib/run.c, ws__reaper_main()), a subreaper that outlives wsrun and
 * kills everything below it.
 */
START_TEST(kill9_wsrun_setsid_orphan)
{
	char m1[64], m2[64], cmd[512];
	const char *argv[] = {wst_bin("wsrun"), "--workspace", ws, "-c", cmd, NULL};
	const char *envp[] = {"WS_RUN_DISABLE=userns,cgroup", wst_state_env(),
			      "WS_VIEW=real", "PATH=/usr/bin:/bin", NULL};
	posix_spawn_file_actions_t fa;
	bool up = false;
	pid_t pid;
	int st;

	if (system("command -v setsid >/dev/null 2>&1") != 0) {
		fprintf(stderr, "kill9_wsrun_setsid_orphan: not checked (no setsid)\n");
		return;
	}
	snprintf(m1, sizeof(m1), "101.%d1", (int)getpid());
	snprintf(m2, sizeof(m2), "101.%d2", (int)getpid());
	snprintf(cmd, sizeof(cmd), "(setsid sleep %s &); sleep %s", m2, m1);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv,
				     (char *const *)envp), 0);
	for (int i = 0; i < 250 && !up; i++) {
		up = marker_alive(m1) && marker_alive(m2);
		usleep(20000);
	}
	ck_assert_msg(up, "the command never started");
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ck_assert_msg(marker_gone(m2, 3000),
		      "kill -9 of wsrun left the setsid'd orphan running");
	ck_assert_msg(marker_gone(m1, 3000), "kill -9 of wsrun left processes");
	posix_spawn_file_actions_destroy(&fa);
}
END_TEST

/*
 * Review 10 (03c, 06, 09): kill -9 of wsrun (a harness's timeout) no
 * longer skips the clean-up: its guardian (lib/run.c) kills the command,
 * removes what it made at guarded places (wstools' configuration with
 * HOME as the workspace, .envrc), cleans a nested repository's
 * core.fsmonitor, and writes the call's audit line saying so.  In each
 * view (_i 0: real, 1: virtual).
 */
START_TEST(kill9_wsrun_cleans_up)
{
	char marker[64], cmd[1024], hv[4200], av[4200], *audit, *log, *cfg;
	const char *argv[] = {wst_bin("wsrun"), "--workspace", ws, "-c", cmd, NULL};
	const char *envp[] = {hv, av, "XDG_CONFIG_HOME=", "PATH=/usr/bin:/bin", wst_state_env(),
			      _i ? "WS_VIEW=virtual" : "WS_VIEW=real", NULL};
	posix_spawn_file_actions_t fa;
	bool git = have_git(), up = false, clean = false;
	pid_t pid;
	int st;

	snprintf(cmd, sizeof(cmd), "../kill9-audit-%d.jsonl", (int)getpid());
	audit = wst_path(ws, cmd);
	snprintf(hv, sizeof(hv), "HOME=%s", ws);
	snprintf(av, sizeof(av), "WS_AUDIT=%s", audit);
	snprintf(marker, sizeof(marker), "100.%d%d9", (int)getpid(), _i);
	wst_mkdir(ws, ".config");
	wst_mkdir(ws, "sub");
	/*
	 * Without a mount namespace (a chroot) a run with HOME as the
	 * workspace is refused before any command starts: the workspace
	 * holds wstools' default history, which nothing could hide (real
	 * view), and the virtual view needs the namespace.  Nothing to kill.
	 */
	if (!wst_layer("", "mountns")) {
		struct wst_run r;
		const char *a[] = {"--workspace", ws, "--json", "-c",
				   "echo x > .envrc", NULL};

		wst_runv(&r, NULL, envp, "wsrun", a);
		ck_assert_msg(r.status == 125, "%s", r.out);
		ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
		ck_assert(!exists_in(ws, ".envrc"));
		wst_run_free(&r);
		free(audit);
		return;
	}
	if (git) {
		snprintf(cmd, sizeof(cmd), "git init -q '%s/sub/repo'", ws);
		ck_assert_int_eq(system(cmd), 0);
	}
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p .config/wstools && echo '{\"mounts\": [\"/h=/\"]}' > "
		 ".config/wstools/config.json; echo x > .envrc; echo x > sub/.envrc; "
		 "%s sleep %s",
		 git ? "git -C sub/repo config core.fsmonitor /bin/false;" : "",
		 marker);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv,
				     (char *const *)envp), 0);
	for (int i = 0; i < 250 && !up; i++) {
		up = marker_alive(marker);
		usleep(20000);
	}
	ck_assert_msg(up, "the command never started");
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ck_assert_msg(marker_gone(marker, 3000), "kill -9 of wsrun left processes");
	/* The guardian works after wsrun's end: give it a moment. */
	for (int i = 0; i < 250 && !clean; i++) {
		cfg = git ? text_in(ws, "sub/repo/.git/config") : strdup("");
		clean = !exists_in(ws, ".config/wstools") && !exists_in(ws, "sub/.envrc") &&
			!exists_in(ws, ".envrc") && strstr(cfg, "fsmonitor") == NULL;
		free(cfg);
		if (!clean)
			usleep(20000);
	}
	ck_assert_msg(!exists_in(ws, ".config/wstools"), "the config stayed");
	ck_assert_msg(!exists_in(ws, "sub/.envrc"), "sub/.envrc stayed");
	ck_assert_msg(!exists_in(ws, ".envrc"), ".envrc stayed");
	ck_assert_msg(clean, "core.fsmonitor stayed");
	for (int i = 0; i < 100; i++) {
		log = wst_slurp(audit, NULL);
		if (log != NULL && strstr(log, "\"killed\":") != NULL)
			break;
		free(log);
		log = NULL;
		usleep(20000);
	}
	ck_assert_ptr_nonnull(log);
	ck_assert_msg(strstr(log, "\"killed\":") != NULL &&
		      strstr(log, "\"exit_status\":137") != NULL &&
		      strstr(log, marker) != NULL, "%s", log);
	free(log);
	unlink(audit);
	free(audit);
	posix_spawn_file_actions_destroy(&fa);
}
END_TEST

/*
 * The namespace init runs in wsrun's own memory (lib/run.c,
 * ws__spawn_init()), so /proc/1/environ would be wsrun's environment, with
 * the caller's secrets: it is pointed at nothing.  Read from outside, as
 * root, where no layer of the sandbox stands in the way.
 */
START_TEST(init_environ_hidden)
{
	char marker[64], cmd[512], path[128], buf[65536];
	const char *argv[] = {wst_bin("wsrun"), "--workspace", ws, "-c", cmd, NULL};
	const char *envp[] = {"WST_SECRET=" ENVSECRET, "WS_RUN_DISABLE=", wst_state_env(), suite_view(0),
			      NULL};
	posix_spawn_file_actions_t fa;
	pid_t pid, init = 0;
	int st, fd;
	ssize_t n = 0;
	bool up = false;
	FILE *f;

	snprintf(marker, sizeof(marker), "100.%d3", (int)getpid());
	snprintf(cmd, sizeof(cmd), "sleep %s", marker);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv,
				     (char *const *)envp), 0);
	for (int i = 0; i < 250 && !up; i++) {
		up = marker_alive(marker);
		usleep(20000);
	}
	ck_assert_msg(up, "the command never started");
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &init), 1);
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)init);
	fd = open(path, O_RDONLY);
	if (fd < 0 && errno == EACCES && geteuid() != 0) {
		/* init is not dumpable: only root reads it from outside. */
		fprintf(stderr, "init_environ_hidden: not root: not checked\n");
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		posix_spawn_file_actions_destroy(&fa);
		return;
	}
	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	posix_spawn_file_actions_destroy(&fa);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = '\n';
	ck_assert_msg(strstr(buf, ENVSECRET) == NULL, "init's environ: %s", buf);
	ck_assert(marker_gone(marker, 3000));
}
END_TEST

/*
 * Once the command runs, the namespace init holds no descriptor but its
 * status pipe: its copies of wsrun's (the caller's standard output) would
 * otherwise be released only at init's exit, after the namespaces'
 * teardown that the wsrun program does not wait for, and a reader of
 * wsrun's output would wait for that end of file.  Read from outside, as
 * root.
 */
static int
count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

START_TEST(init_holds_no_descriptor)
{
	char marker[64], cmd[512], path[128];
	const char *argv[] = {wst_bin("wsrun"), "--workspace", ws, "-c", cmd, NULL};
	const char *envp[] = {"WS_RUN_DISABLE=", wst_state_env(), suite_view(0), NULL};
	posix_spawn_file_actions_t fa;
	pid_t pid, init = 0;
	int st, n = -1;
	bool up = false;
	FILE *f;

	if (geteuid() != 0) {
		fprintf(stderr, "init_holds_no_descriptor: not root: not checked\n");
		return;
	}
	snprintf(marker, sizeof(marker), "100.%d4", (int)getpid());
	snprintf(cmd, sizeof(cmd), "sleep %s", marker);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv,
				     (char *const *)envp), 0);
	for (int i = 0; i < 250 && !up; i++) {
		up = marker_alive(marker);
		usleep(20000);
	}
	ck_assert_msg(up, "the command never started");
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &init), 1);
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)init);
	/* init closes them just after the command's exec: a moment. */
	for (int i = 0; i < 100 && (n = count_dir(path)) != 1; i++)
		usleep(20000);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	posix_spawn_file_actions_destroy(&fa);
	ck_assert_msg(n == 1, "init holds %d descriptors", n);
	ck_assert(marker_gone(marker, 3000));
}
END_TEST

/* SIGTERM to wsrun stops the whole tree, with or without namespaces. */
START_TEST(sigterm_wsrun)
{
	char marker[64], cmd[512], envv[64];
	const char *argv[] = {wst_bin("wsrun"), "--workspace", ws, "--grace", "1",
			      "-c", cmd, NULL};
	char *envp[] = {envv, (char *)wst_state_env(), (char *)suite_view(_i), NULL};
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st;
	bool up = false;

	snprintf(envv, sizeof(envv), "WS_RUN_DISABLE=%s", modes[_i]);
	snprintf(marker, sizeof(marker), "100.%d5%d", (int)getpid(), _i);
	snprintf(cmd, sizeof(cmd), "sleep %s & setsid sleep %s & wait", marker, marker);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv,
				     envp), 0);
	for (int i = 0; i < 250 && !up; i++) {
		up = marker_alive(marker);
		usleep(20000);
	}
	ck_assert_msg(up, "the command never started");
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 128 + SIGTERM);
	ck_assert_msg(marker_gone(marker, 3000), "SIGTERM of wsrun left processes");
	posix_spawn_file_actions_destroy(&fa);
}
END_TEST

/*
 * A SIGTERM that reaches the namespace init before its wait (here: init
 * is stopped as soon as it exists, then sent SIGTERM and let go, so the
 * signal lands during its setup) is forwarded to the command once it
 * runs.  init used to take it with a handler that set a flag read only
 * after a wait4() interrupted by it: a signal that came before the
 * wait4() was lost, and the command ran on to its end (wsrun's own
 * cancellations landed there: they wait for the command's exec).
 */
START_TEST(init_term_before_wait)
{
	char marker[64], cmd[512], envv[64], path[128];
	const char *argv[] = {wst_bin("wsrun"), "--workspace", ws, "--grace", "30",
			      "-c", cmd, NULL};
	char *envp[] = {envv, (char *)wst_state_env(), (char *)suite_view(_i / 4), NULL};
	posix_spawn_file_actions_t fa;
	pid_t pid, init = 0, w = 0;
	int st = 0;

	snprintf(envv, sizeof(envv), "WS_RUN_DISABLE=%s", modes[_i / 4]);
	snprintf(marker, sizeof(marker), "30.%d7%02d", (int)getpid(), _i);
	snprintf(cmd, sizeof(cmd), "sleep %s", marker);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv,
				     envp), 0);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	/* As soon as it is there: its setup takes a millisecond or more. */
	for (long i = 0; i < 2000000 && init <= 0; i++) {
		FILE *f = fopen(path, "r");

		if (f == NULL)
			break;
		if (fscanf(f, "%d", &init) != 1)
			init = 0;
		fclose(f);
	}
	ck_assert_int_gt(init, 0);
	/* Past its start (where the signal would find wsrun's handler, a
	 * cancellation of wsrun's): somewhere in the setup. */
	usleep(_i % 4 * 400);
	kill(init, SIGSTOP);
	kill(init, SIGTERM);
	kill(init, SIGCONT);
	/* The command's sleep lasts 30 s: it must go well before. */
	for (int i = 0; i < 500 && w == 0; i++) {
		w = waitpid(pid, &st, WNOHANG);
		if (w == 0)
			usleep(20000);
	}
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	posix_spawn_file_actions_destroy(&fa);
	ck_assert_msg(w == pid, "the command ran on after init's SIGTERM");
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 128 + SIGTERM);
	ck_assert(marker_gone(marker, 3000));
}
END_TEST

/* SIGINT to wsrun reaches the command as SIGINT (a shell's INT trap
 * runs), not as SIGTERM; the status is 130. */
/*
 * SIGINT to wsrun once the command has set its traps: the command gets
 * SIGINT (its trap runs), wsrun ends with 128 + SIGINT.  With delay,
 * init is made to wait that long after the command's exec before it
 * tells wsrun (WS_RUN_READY_DELAY_MS): a busy machine's scheduling, which
 * twice let the SIGINT come while wsrun still waited for init, and wsrun
 * then killed the namespace (the command got SIGKILL, no trap ran).
 */
static void
sigint_run(int mode, const char *delay)
{
	/* In a directory: a new top-level name of the virtual view shows
	 * in the workspace only when the command ends. */
	char envv[64], *sig = wst_path(ws, "sigd/sig"), *up = wst_path(ws, "sigd/up"), *got;
	const char *cmd = "trap 'echo INT > sig; exit 3' INT; "
			  "trap 'echo TERM > sig; exit 4' TERM; "
			  "echo > up; while :; do sleep 0.05; done";
	const char *argv[] = {wst_bin("wsrun"), "--workspace", ws, "--grace", "5",
			      "--cwd", "/sigd", "-c", cmd, NULL};
	char *envp[] = {envv, (char *)wst_state_env(), (char *)delay,
			(char *)suite_view(mode), NULL};
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st;

	if (delay == NULL) {
		envp[2] = envp[3];
		envp[3] = NULL;
	}
	snprintf(envv, sizeof(envv), "WS_RUN_DISABLE=%s", modes[mode]);
	wst_mkdir(ws, "sigd");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv,
				     envp), 0);
	for (int i = 0; i < 500 && !wst_exists(up); i++)
		usleep(20000);
	ck_assert_msg(wst_exists(up), "the command never started");
	kill(pid, SIGINT);
	waitpid(pid, &st, 0);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 128 + SIGINT);
	got = wst_slurp(sig, NULL);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, "INT\n");
	free(got);
	free(sig);
	free(up);
	posix_spawn_file_actions_destroy(&fa);
}

START_TEST(sigint_wsrun)
{
	sigint_run(_i, NULL);
}
END_TEST

/*
 * Standard output and error one pipe (a terminal, "2>&1"): wsrun keeps
 * one pipe for both and closed the other's write end only at the end,
 * after the guardian (forked before) had taken a copy: every call then
 * waited for that copy's end of file until its poll gave up, 250 ms.
 * Ten calls must take well under ten such waits.
 */
START_TEST(one_pipe_no_wait)
{
	struct timespec t0, t1;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 10; i++) {
		int p[2], st;
		pid_t pid;
		char buf[4096];

		ck_assert_int_eq(pipe(p), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			dup2(p[1], 1);
			dup2(p[1], 2);
			close(p[0]);
			close(p[1]);
			execl(wst_bin("wsrun"), "wsrun", "--workspace", ws, "true",
			      (char *)NULL);
			_exit(127);
		}
		close(p[1]);
		while (read(p[0], buf, sizeof(buf)) > 0)
			;
		close(p[0]);
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	ck_assert_msg(ms < 2500, "ten runs took %ld ms: a wait for an end of "
		      "file someone else held?", ms);
}
END_TEST

START_TEST(sigint_before_ready)
{
	sigint_run(_i, "WS_RUN_READY_DELAY_MS=2000");
}
END_TEST

/* Fractional seconds and size suffixes, on the command line and in
 * --args; the schema types say so. */
START_TEST(units)
{
	struct wst_run r;

	RUNM(&r, 0, "--timeout", "0.5", "--grace", "0.2", "-c", "sleep 5");
	ck_assert(out_bool(&r, "timed_out"));
	ck_assert_int_lt(out_int(&r, "duration_ms"), 3000 * WST_SLOWDOWN);
	wst_run_free(&r);
	RUNM(&r, 0, "--args", "{\"command\": \"sleep 5\", \"timeout\": 0.5}");
	ck_assert(out_bool(&r, "timed_out"));
	wst_run_free(&r);
	RUNM(&r, 0, "--memory", "50M", "-c", "ulimit -v");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "51200\n");
	wst_run_free(&r);
	RUNM(&r, 0, "--memory", "1G", "--max-file-size", "1k", "-c",
	     "ulimit -v; ulimit -f");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "1048576\n2\n"); /* 512-byte blocks */
	wst_run_free(&r);
	RUNM(&r, 0, "--memory", "5X", "true");
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	RUNM(&r, 0, "--timeout", "1e3", "true");
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	RUNM(&r, 0, "--grace", "-0.5", "true");
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
}
END_TEST

/*
 * The command is looked up on its PATH once (lib/run.c, ws__find_exe()),
 * as execvp(3) and the shells look: a directory of the command's name in
 * an earlier PATH entry is passed over (the execve() of each entry in
 * turn stopped at its EACCES: status 126), and a relative entry is the
 * working directory's.
 */
START_TEST(path_search_skips_directory)
{
	struct wst_run r;
	char *hello = wst_path(ws, "pbin/hello");

	wst_mkdir(ws, "pbin");
	wst_mkdir(ws, "pbin/true");
	wst_write(ws, "pbin/hello", "#!/bin/sh\necho found-in-pbin\n");
	ck_assert_int_eq(chmod(hello, 0755), 0);
	free(hello);
	RUNM(&r, _i, "--env", "PATH=pbin:/usr/bin:/bin", "--", "true");
	expect_ran(&r, 0);
	wst_run_free(&r);
	RUNM(&r, _i, "--env", "PATH=/usr/bin:pbin:/bin", "--", "hello");
	expect_ran(&r, 0);
	ck_assert_ptr_nonnull(strstr(out_str(&r, "stdout"), "found-in-pbin"));
	wst_run_free(&r);
	RUNM(&r, _i, "--env", "PATH=pbin", "--", "no-such-command-wsrun");
	ck_assert_int_eq(r.status, 127);
	ck_assert_str_eq(wst_code(&r), "NOT_FOUND");
	wst_run_free(&r);
}
END_TEST

/*
 * The lookup passes over the PATH entries below a first component the
 * root lacks, once it has seen that name missing (ws__find_exe(), issue
 * 20): only those.  A name that begins another's (/us, /usrr; /tm and
 * /tmp) is not that one, an entry missing below a first component that
 * is there (/usr/no-such) does not hide the next ones below it, and
 * "//usr/bin" is /usr/bin.  (A lookup that finds nothing leaves the
 * search to the exec, which finds the first; one that passes over the
 * first finds a later one: "two", from the relative entry.)
 */
START_TEST(path_search_missing_first_component)
{
	struct wst_run r;
	char *one = wst_path(ws, "pone/hello"), *two = wst_path(ws, "ptwo/hello");
	char *pv = NULL;
	const char *wsp, *top;

	wst_mkdir(ws, "pone");
	wst_mkdir(ws, "ptwo");
	wst_write(ws, "pone/hello", "#!/bin/sh\necho one\n");
	wst_write(ws, "ptwo/hello", "#!/bin/sh\necho two\n");
	ck_assert_int_eq(chmod(one, 0755), 0);
	ck_assert_int_eq(chmod(two, 0755), 0);
	free(one);
	free(two);
	RUNM(&r, _i, "--env",
	     "PATH=/no-such-top-wsrun/bin:/no-such-top-wsrun/x/y:/us:/usrr/bin:"
	     "/usr/no-such-wsrun:/usr/bin:/bin", "--", "true");
	expect_ran(&r, 0);
	wst_run_free(&r);
	RUNM(&r, _i, "--env", "PATH=/usr/no-such-wsrun://usr/bin", "--", "true");
	expect_ran(&r, 0);
	wst_run_free(&r);
	/*
	 * The workspace as the command sees it ("/" in the virtual view),
	 * after an entry whose only component is the first of pone's but
	 * its last letter ("/tm" for "/tmp/...", "/pon" for "/pone"):
	 * missing, and not pone's.
	 */
	wsp = virt() && has(_i, "mountns") ? "" : ws;
	top = (*wsp ? wsp : "/pone") + 1;
	ck_assert(asprintf(&pv, "PATH=/no-such-top-wsrun/bin:/%.*s:%s/no-such:"
			   "%s/pone:ptwo", (int)strcspn(top, "/") - 1, top, wsp,
			   wsp) > 0);
	RUNM(&r, _i, "--env", pv, "--", "hello");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "one\n");
	wst_run_free(&r);
	free(pv);
	RUNM(&r, _i, "--env", "PATH=/no-such-top-wsrun/bin:/no-such-top-wsrun",
	     "--", "true");
	ck_assert_int_eq(r.status, 127);
	ck_assert_str_eq(wst_code(&r), "NOT_FOUND");
	wst_run_free(&r);
}
END_TEST

START_TEST(exit_statuses)
{
	struct wst_run r;

	RUNM(&r, 0, "--", "sh", "-c", "exit 7");
	expect_ran(&r, 7);
	ck_assert_int_eq(out_int(&r, "exit_code"), 7);
	wst_run_free(&r);
	RUNM(&r, 0, "-c", "kill -9 $$");
	expect_ran(&r, 137);
	ck_assert_int_eq(out_int(&r, "signal"), 9);
	wst_run_free(&r);
	RUNM(&r, 0, "--", "no-such-command-wsrun");
	ck_assert_int_eq(r.status, 127);
	ck_assert_str_eq(wst_code(&r), "NOT_FOUND");
	/* Which command: the message says, in either view (the virtual
	 * view's clean-up had wiped it to ""). */
	ck_assert_msg(strstr(r.out, "\"no-such-command-wsrun: command not found\"") != NULL,
		      "%s", r.out);
	/* A command with no slip in it gets no hint. */
	ck_assert_msg(strstr(r.out, "\"hint\"") == NULL, "%s", r.out);
	wst_run_free(&r);
	/*
	 * FTU9 10: a whole command given as one argument, and a shell
	 * builtin, say what to type instead.
	 */
	RUNM(&r, 0, "ls -l");
	ck_assert_int_eq(r.status, 127);
	ck_assert_msg(strstr(r.out, "one argument holding a space") != NULL &&
		      strstr(r.out, "(wsrun -c 'ls -l')") != NULL, "%s", r.out);
	wst_run_free(&r);
	RUNM(&r, 0, "cd", "/tmp");
	ck_assert_int_eq(r.status, 127);
	ck_assert_msg(strstr(r.out, "cd is a shell builtin, not a program: run "
			     "the command in a directory with --cwd VPATH")
		      != NULL, "%s", r.out);
	wst_run_free(&r);
	wst_write(ws, "script", "#!/bin/sh\necho hi\n");
	RUNM(&r, 0, "--", "./script");
	ck_assert_int_eq(r.status, 126);
	ck_assert_str_eq(wst_code(&r), "PERMISSION_DENIED");
	ck_assert_msg(strstr(r.out, "\"./script: Permission denied\"") != NULL,
		      "%s", r.out);
	wst_run_free(&r);
	RUNM(&r, 0, "--", "sudo", "ls");
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "BLOCKED_COMMAND");
	wst_run_free(&r);
	RUNM(&r, 0, "-c", "echo a; curl http://example.com");
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "BLOCKED_COMMAND");
	/*
	 * The built-in list refuses curl also where the network is allowed
	 * (--net-allow): the hint says what replaces the list.
	 */
	ck_assert_msg(strstr(r.out, "\"hint\":") != NULL &&
		      strstr(r.out, "command_rules") != NULL, "%s", r.out);
	wst_run_free(&r);
	RUNM(&r, 0, "--timeout", "-1", "true");
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	wst_run_free(&r);
	RUNM(&r, 0, "--cwd", "/nonexistent", "true");
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "NOT_FOUND");
	/* Which argument it was: the message says. */
	ck_assert_msg(strstr(r.out, "(the --cwd directory)") != NULL, "%s", r.out);
	wst_run_free(&r);
	RUNM(&r, 0, "--cwd", "../outside", "true");
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "PATH_OUTSIDE_WORKSPACE");
	wst_run_free(&r);
	/* A command's own options are its own: --json is ls's here. */
	wst_run(&r, NULL, "wsrun", "--workspace", ws, "--", "echo", "--json", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "--json\n");
	wst_run_free(&r);
	wst_run(&r, NULL, "wsrun", "--workspace", ws, "echo", "-n", "x", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "x");
	wst_run_free(&r);
}
END_TEST

/*
 * Ftu18 10: a policy's command_rules refusals read as a file rule's do:
 * the rule's message shown, the policy and rule named, "--approve" said
 * on the command line, the decision in fields, and a hint.  The built-in
 * list's words (README) stay as they were.
 */
START_TEST(policy_command_refusals)
{
	struct wst_run r;
	char *pfile = wst_path(base, "cmdpol.json");
	cJSON *j, *e;

	wst_write(base, "cmdpol.json",
		  "{\"version\": 1, \"name\": \"cmdpol\", \"file_rules\": ["
		  "{\"name\": \"rest\", \"paths\": [\"**\"], \"operations\": [\"*\"],"
		  " \"decision\": \"allow\"}], \"command_rules\": ["
		  "{\"name\": \"deny-sudo\", \"patterns\": [\"^sudo\\\\b\"],"
		  " \"decision\": \"deny\", \"message\": \"privilege escalation is not allowed\"},"
		  "{\"name\": \"deny-dd\", \"patterns\": [\"^dd\\\\b\"], \"decision\": \"deny\"},"
		  "{\"name\": \"approve-push\", \"patterns\": [\"^git push\\\\b\"],"
		  " \"decision\": \"approve\", \"message\": \"git push needs approval\"}]}");
	/* The command line's words. */
	wst_run(&r, NULL, "wsrun", "--workspace", ws, "--policy", pfile, "sudo", "ls", NULL);
	ck_assert_int_eq(r.status, 125);
	ck_assert_msg(strstr(r.err, "wsrun: command blocked by rule \"deny-sudo\" of "
			     "policy \"cmdpol\": privilege escalation is not allowed "
			     "(BLOCKED_COMMAND)\nwsrun: hint: the policy refuses this "
			     "command line; retrying will not help") != NULL, "%s", r.err);
	wst_run_free(&r);
	wst_run(&r, NULL, "wsrun", "--workspace", ws, "--policy", pfile, "dd", NULL);
	ck_assert_int_eq(r.status, 125);
	ck_assert_msg(strstr(r.err, "wsrun: command blocked by rule \"deny-dd\" of "
			     "policy \"cmdpol\" (BLOCKED_COMMAND)") != NULL, "%s", r.err);
	wst_run_free(&r);
	wst_run(&r, NULL, "wsrun", "--workspace", ws, "--policy", pfile, "git", "push",
		NULL);
	ck_assert_int_eq(r.status, 125);
	ck_assert_msg(strstr(r.err, "wsrun: git push needs approval (policy \"cmdpol\", "
			     "rule \"approve-push\"; pass --approve to allow it) "
			     "(APPROVAL_REQUIRED)\nwsrun: hint: a person must approve "
			     "this command; ask the user, who can rerun it with "
			     "--approve") != NULL, "%s", r.err);
	wst_run_free(&r);
	/* The JSON's fields, as a file rule's refusal has them. */
	for (int k = 0; k < 2; k++) {
		wst_run(&r, NULL, "wsrun", "--workspace", ws, "--policy", pfile, "--json",
			k == 0 ? "sudo" : "git", k == 0 ? "ls" : "push", NULL);
		j = cJSON_Parse(r.out);
		ck_assert_ptr_nonnull(j);
		e = cJSON_GetObjectItem(j, "error");
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "code")),
				 k == 0 ? "BLOCKED_COMMAND" : "APPROVAL_REQUIRED");
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "policy")),
				 "cmdpol");
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "rule")),
				 k == 0 ? "deny-sudo" : "approve-push");
		ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "operation")),
				 "exec");
		ck_assert_ptr_nonnull(cJSON_GetStringValue(cJSON_GetObjectItem(e, "hint")));
		cJSON_Delete(j);
		wst_run_free(&r);
	}
	/* The built-in list: its words, no policy named. */
	wst_run(&r, NULL, "wsrun", "--workspace", ws, "--json", "sudo", "ls", NULL);
	ck_assert_int_eq(r.status, 125);
	ck_assert_msg(strstr(r.out, "\"command blocked by rule \\\"no-privilege\\\" of "
			     "wsrun-builtin\"") != NULL &&
		      strstr(r.out, "\"policy\"") == NULL, "%s", r.out);
	wst_run_free(&r);
	free(pfile);
}
END_TEST

START_TEST(output_caps)
{
	struct wst_run r;
	struct rusage ru;
	const char *s;

	RUNM(&r, 0, "--max-output", "1000", "-c",
	     "printf HEAD; head -c 100000 /dev/zero | tr '\\0' a; printf TAIL; "
	     "echo err >&2");
	expect_ran(&r, 0);
	s = out_str(&r, "stdout");
	ck_assert(out_bool(&r, "stdout_truncated"));
	ck_assert_int_eq(out_int(&r, "stdout_bytes"), 100008);
	ck_assert_int_lt((long long)strlen(s), 1100);
	ck_assert(strncmp(s, "HEAD", 4) == 0);
	ck_assert(strcmp(s + strlen(s) - 4, "TAIL") == 0);
	ck_assert_ptr_nonnull(strstr(s, "bytes omitted"));
	ck_assert_str_eq(out_str(&r, "stderr"), "err\n");
	ck_assert(!out_bool(&r, "stderr_truncated"));
	wst_run_free(&r);
	/* A flood keeps wsrun's memory bounded. */
	RUNM(&r, 0, "-c", "head -c 300000000 /dev/zero");
	expect_ran(&r, 0);
	ck_assert_int_eq(out_int(&r, "stdout_bytes"), 300000000);
	ck_assert(out_bool(&r, "stdout_truncated"));
	getrusage(RUSAGE_CHILDREN, &ru);
	ck_assert_int_lt(ru.ru_maxrss, 64 * 1024 * (WST_SLOWDOWN > 1 ? 8 : 1));
	wst_run_free(&r);
	/* Non-UTF-8 output travels as base64. */
	RUNM(&r, 0, "-c", "printf '\\377\\376'");
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "//4=");
	ck_assert_str_eq(out_str(&r, "stdout_encoding"), "base64");
	wst_run_free(&r);
}
END_TEST

START_TEST(limits)
{
	struct wst_run r;
	struct stat st;
	char *f = wst_path(ws, "big");

	RUNM(&r, 0, "--max-file-size", "1000", "-c",
	     "head -c 5000 /dev/zero > big; echo $?");
	expect_ran(&r, 0);
	ck_assert_str_ne(out_str(&r, "stdout"), "0\n");
	ck_assert_int_eq(stat(f, &st), 0);
	ck_assert_int_le(st.st_size, 1000);
	wst_run_free(&r);
	RUNM(&r, 0, "--cpu-time", "1", "--timeout", "20", "-c",
	     "while :; do :; done");
	/* SIGXCPU at the soft limit, SIGKILL at the hard one (the same). */
	ck_assert(out_int(&r, "signal") == 9 || out_int(&r, "signal") == 24);
	ck_assert(!out_bool(&r, "timed_out"));
	wst_run_free(&r);
	free(f);
}
END_TEST

START_TEST(plain_and_args)
{
	struct wst_run r;

	/* Plain: streamed output, stdin passed through, the status. */
	wst_run(&r, "in-data", "wsrun", "--workspace", ws, "-c",
		"cat; echo out; echo err >&2; exit 4", NULL);
	ck_assert_int_eq(r.status, 4);
	ck_assert_str_eq(r.out, "in-dataout\n");
	ck_assert_str_eq(r.err, "err\n");
	wst_run_free(&r);
	/* JSON: stdin is /dev/null unless given. */
	wst_run(&r, "in-data", "wsrun", "--workspace", ws, "--json", "cat", NULL);
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "");
	wst_run_free(&r);
	/* --args: command as an array or a string, stdin as a key. */
	wst_run(&r, NULL, "wsrun", "--workspace", ws, "--args",
		"{\"command\": [\"cat\"], \"stdin\": \"fed\", \"cwd\": \"/sub\"}",
		NULL);
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "fed");
	wst_run_free(&r);
	wst_run(&r, NULL, "wsrun", "--workspace", ws, "--args",
		"{\"command\": \"echo $((6*7)) | tr 4 x\"}", NULL);
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "x2\n");
	wst_run_free(&r);
	/* Widening the sandbox is not the model's to ask. */
	wst_run(&r, NULL, "wsrun", "--workspace", ws, "--args",
		"{\"command\": [\"true\"], \"net\": true}", NULL);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_int_eq(r.status, 125);
	wst_run_free(&r);
	wst_run(&r, NULL, "wsrun", "--schema", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\"run_command\""));
	ck_assert_ptr_null(strstr(r.out, "allow_write"));
	wst_run_free(&r);
}
END_TEST

START_TEST(config_env)
{
	struct wst_run r;
	char *cfg = wst_path(base, "config.json");
	const char *env[] = {"KEEPME=kept", "WST_SECRET=" ENVSECRET, NULL};
	const char *argv[] = {"--workspace", NULL, "--config", NULL, "--keep-env",
			      "KEEPME", "--env", "B=flag", "-c",
			      "echo $A $B $KEEPME $WST_SECRET", NULL};

	wst_write(base, "config.json",
		  "{\"run\": {\"env\": {\"A\": \"from-config\", \"B\": \"x\"}}}");
	argv[1] = ws;
	argv[3] = cfg;
	wst_runv(&r, NULL, env, "wsrun", argv);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "from-config flag kept\n");
	wst_run_free(&r);
	wst_write(base, "config.json", "{\"run\": {\"env\": {\"A=B\": \"x\"}}}");
	wst_runv(&r, NULL, env, "wsrun", argv);
	ck_assert_int_eq(r.status, 125);
	wst_run_free(&r);
	free(cfg);
}
END_TEST

/*
 * The harness's flags are ceilings for the model's --args: a larger
 * value or 0 ("none") keeps the flag's, a smaller one is taken.
 */
START_TEST(flags_bound_args)
{
	struct wst_run r;

	RUNM(&r, 0, "--timeout", "1", "--grace", "1", "--args",
	     "{\"command\": \"sleep 5\", \"timeout\": 0}");
	ck_assert_msg(out_bool(&r, "timed_out"), "%s", r.out);
	ck_assert_int_lt(out_int(&r, "duration_ms"), 4000 * WST_SLOWDOWN);
	wst_run_free(&r);
	RUNM(&r, 0, "--max-output", "1000", "--args",
	     "{\"command\": \"yes | head -c 200000\", \"max_output\": 100000000}");
	ck_assert(out_bool(&r, "stdout_truncated"));
	ck_assert_int_lt((long long)strlen(out_str(&r, "stdout")), 2000);
	wst_run_free(&r);
	/* A smaller value from the model is taken. */
	RUNM(&r, 0, "--timeout", "30", "--args",
	     "{\"command\": \"sleep 5\", \"timeout\": 1}");
	ck_assert(out_bool(&r, "timed_out"));
	wst_run_free(&r);
}
END_TEST

/*
 * Issue 18: a repeated key is refused (it ran the command with no
 * timeout past --timeout 2); a positive timeout never rounds to "none"
 * (0.0001 ran a 6 s sleep under --timeout 2), a negative one is refused
 * however small, and a size string is held to the flag like a number.
 */
START_TEST(args_repeated_key_and_units)
{
	struct wst_run r;
	long long t0 = now_ms();

	RUNM(&r, 0, "--timeout", "2", "--args",
	     "{\"command\":[\"sleep\",\"5\"],\"timeout\":1,\"timeout\":0}");
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_msg(strstr(r.out, "\\\"timeout\\\" is given more than once"),
		      "%s", r.out);
	wst_run_free(&r);
	RUNM(&r, 0, "--timeout", "2", "--grace", "1", "--args",
	     "{\"command\":[\"sleep\",\"6\"],\"timeout\":0.0001}");
	ck_assert_msg(out_bool(&r, "timed_out"), "%s", r.out);
	wst_run_free(&r);
	RUNM(&r, 0, "--timeout", "2", "--grace", "1", "--args",
	     "{\"command\":[\"sleep\",\"6\"],\"timeout\":\"0.0001\"}");
	ck_assert_msg(out_bool(&r, "timed_out"), "%s", r.out);
	wst_run_free(&r);
	ck_assert_int_lt(now_ms() - t0, 5000 * WST_SLOWDOWN);
	RUNM(&r, 0, "--timeout", "2", "--args",
	     "{\"command\":[\"sleep\",\"6\"],\"timeout\":-0.0001}");
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "INVALID_ARGUMENT");
	ck_assert_msg(strstr(r.out, "negative"), "%s", r.out);
	wst_run_free(&r);
	RUNM(&r, 0, "--max-output", "1000", "--args",
	     "{\"command\":\"yes | head -c 200000\",\"max_output\":\"1G\"}");
	ck_assert(out_bool(&r, "stdout_truncated"));
	ck_assert_int_lt((long long)strlen(out_str(&r, "stdout")), 2000);
	wst_run_free(&r);
}
END_TEST

/* Plain mode with 2>&1: the command's lines keep their order. */
START_TEST(plain_merged_order)
{
	char cmd[8192], *out, *f = wst_path(base, "merged.out");

	snprintf(cmd, sizeof(cmd),
		 "'%s' --workspace '%s' -c 'echo 1; echo 2 >&2; echo 3; "
		 "echo 4 >&2; echo 5' >'%s' 2>&1", wst_bin("wsrun"), ws, f);
	ck_assert_int_eq(system(cmd), 0);
	out = wst_slurp(f, NULL);
	ck_assert_str_eq(out, "1\n2\n3\n4\n5\n");
	free(out);
	free(f);
}
END_TEST

/*
 * The virtual view where this machine has no mount namespace (a chroot
 * whose "/" is not a mount point, no user namespaces): refused with the
 * probe's reason, never the real view in silence (issue 24).
 */
START_TEST(virtual_unavailable_here)
{
	struct wst_run r;
	const char *m;

	RUNM(&r, 0, "--view", "virtual", "--", "true");
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
	m = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(r.json, "error"),
						     "message"));
	ck_assert_msg(m != NULL && strstr(m, wst_layer_why("", "mountns")) != NULL,
		      "%s", r.out);
	wst_run_free(&r);
	RUNM(&r, 0, "--view", "real", "--", "true");
	expect_ran(&r, 0);
	ck_assert(!enforced(&r, "mountns"));
	wst_run_free(&r);
	/* The default view (no WS_VIEW here): the same refusal, the way
	 * out as its hint, and the probe's verdict says so. */
	{
		const char *a[] = {"--workspace", ws, "--json", "--", "true", NULL};
		const char *ap[] = {"--workspace", ws, "--probe", "--json", NULL};
		const char *env[] = {"WS_RUN_DISABLE=", NULL};
		cJSON *v;

		wst_runv(&r, NULL, env, "wsrun", a);
		ck_assert_int_eq(r.status, 125);
		ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
		m = cJSON_GetStringValue(cJSON_GetObjectItem(
			cJSON_GetObjectItem(r.json, "error"), "hint"));
		ck_assert_msg(m != NULL && strstr(m, "--view real") != NULL, "%s", r.out);
		wst_run_free(&r);
		wst_runv(&r, NULL, env, "wsrun", ap);
		v = wst_output(&r, "verdict");
		ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(v, "auto_runs")));
		m = cJSON_GetStringValue(cJSON_GetObjectItem(v, "reason"));
		ck_assert_msg(m != NULL && strstr(m, "--view real runs commands here") != NULL,
			      "%s", r.out);
		wst_run_free(&r);
	}
}
END_TEST

/*
 * ftu12 07: where the kernel refuses the user namespace the probe counted
 * on (non-root in a chroot; simulated with WS_RUN_DISABLE=userns-refused,
 * which fails the namespaces' clone with EPERM, as root too), --isolate
 * none runs as auto --view real does, without the PID namespace, saying
 * why; strict refuses naming the layers and the cause.  It was "cannot
 * start the command (clone: Operation not permitted)" for both.
 */
START_TEST(userns_refused_none_runs)
{
	struct wst_run r;
	char dis[128];
	const char *sim = getenv("WST_RUN_DISABLE");
	const char *env[] = {dis, "WS_VIEW=real", NULL};
	const char *a1[] = {"--workspace", ws, "--json", "--isolate", "none", "--",
			    "echo", "ran", NULL};
	const char *a2[] = {"--workspace", ws, "--json", "--isolate", "strict", "--",
			    "true", NULL};
	const char *a3[] = {"--workspace", ws, "--json", "--", "echo", "ran", NULL};
	const char *a4[] = {"--workspace", ws, "--isolate", "none", "--", "echo", "ran",
			    NULL};
	cJSON *pid;
	const char *why, *m;
	bool landlock = wst_layer(sim ? sim : "", "landlock");

	snprintf(dis, sizeof(dis), "WS_RUN_DISABLE=%s%suserns-refused",
		 sim ? sim : "", sim && *sim ? "," : "");
	wst_runv(&r, NULL, env, "wsrun", a1);
	expect_ran(&r, 0);
	ck_assert_str_eq(out_str(&r, "stdout"), "ran\n");
	ck_assert(!enforced(&r, "pidns"));
	pid = cJSON_GetObjectItem(wst_output(&r, "isolation"), "pidns");
	why = cJSON_GetStringValue(cJSON_GetObjectItem(pid, "reason"));
	ck_assert_msg(why != NULL && strstr(why, "refused a user namespace") != NULL,
		      "%s", r.out);
	wst_run_free(&r);
	/* Plain, as the person typed it. */
	wst_runv(&r, NULL, env, "wsrun", a4);
	ck_assert_msg(r.status == 0 && strcmp(r.out, "ran\n") == 0, "%d %s %s",
		      r.status, r.out, r.err);
	wst_run_free(&r);
	if (!landlock)
		return;
	wst_runv(&r, NULL, env, "wsrun", a3);
	expect_ran(&r, 0);
	wst_run_free(&r);
	wst_runv(&r, NULL, env, "wsrun", a2);
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
	m = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(r.json, "error"),
						     "message"));
	ck_assert_msg(m != NULL && strstr(m, "pidns") != NULL &&
		      strstr(m, "refused a user namespace") != NULL, "%s", r.out);
	wst_run_free(&r);
}
END_TEST

/*
 * A kernel without Landlock (or WST_RUN_DISABLE=landlock, which
 * simulates one for this suite): --isolate auto and strict refuse with
 * SANDBOX_UNAVAILABLE naming Landlock, --isolate none runs unconfined
 * and says so (issue 24).
 */
/*
 * ftu12 18: without Landlock the one way out named was --isolate none,
 * which drops every layer: the hint says what none means and how to get
 * Landlock back.
 */
START_TEST(no_landlock_hint)
{
	struct wst_run r;
	const char *env[] = {"WS_RUN_DISABLE=landlock", "WS_VIEW=real", NULL};
	const char *a[] = {"--workspace", ws, "--json", "--", "true", NULL};
	const char *h;

	wst_runv(&r, NULL, env, "wsrun", a);
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
	h = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(r.json, "error"),
						     "hint"));
	ck_assert_msg(h != NULL && strstr(h, "your own rights") != NULL &&
		      strstr(h, "lsm=") != NULL, "%s", r.out);
	wst_run_free(&r);
}
END_TEST

START_TEST(no_landlock_here)
{
	struct wst_run r;
	char dis[128];
	const char *env[] = {dis, "WS_VIEW=real", NULL};
	const char *a1[] = {"--workspace", ws, "--json", "--", "true", NULL};
	const char *a2[] = {"--workspace", ws, "--json", "--isolate", "strict", "--",
			    "true", NULL};
	const char *a3[] = {"--workspace", ws, "--json", "--isolate", "none", "--",
			    "true", NULL};
	const char *m;

	snprintf(dis, sizeof(dis), "WS_RUN_DISABLE=%s",
		 getenv("WST_RUN_DISABLE") ? getenv("WST_RUN_DISABLE") : "");
	wst_runv(&r, NULL, env, "wsrun", a1);
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
	m = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(r.json, "error"),
						     "message"));
	ck_assert_msg(m != NULL && strcasestr(m, "landlock") != NULL, "%s", r.out);
	wst_run_free(&r);
	wst_runv(&r, NULL, env, "wsrun", a2);
	ck_assert_int_eq(r.status, 125);
	ck_assert_str_eq(wst_code(&r), "SANDBOX_UNAVAILABLE");
	wst_run_free(&r);
	wst_runv(&r, NULL, env, "wsrun", a3);
	expect_ran(&r, 0);
	ck_assert(!enforced(&r, "landlock"));
	wst_run_free(&r);
}
END_TEST

/*
 * fix24: what wsrun removed after the command is said with the kind of
 * place it is (the file tools' own sentence: HOME's persistence place, a
 * directory on PATH), not "wstools' configuration, a project marker or
 * .git" for all of them.
 */
START_TEST(removed_names_the_place)
{
	struct wst_run r;
	char hv[4200], pv[4300];
	const char *env[] = {hv, pv, "XDG_CONFIG_HOME=", NULL};
	cJSON *why;

	snprintf(hv, sizeof(hv), "HOME=%s", ws);
	snprintf(pv, sizeof(pv), "PATH=%s/tools/bin:/usr/bin:/bin", ws);
	for (int json = 0; json < 2; json++) {
		const char *argv[] = {"--workspace", ws, json ? "--json" : "--plain",
				      "-c", "echo x > .gdbinit; mkdir -p tools/bin; "
				      "echo x > tools/bin/ls; echo made", NULL};

		wst_runv(&r, NULL, env, "wsrun", argv);
		ck_assert_msg(r.status == 0, "%d %s %s", r.status, r.out, r.err);
		ck_assert(!exists_in(ws, ".gdbinit"));
		ck_assert(!exists_in(ws, "tools"));
		if (!json) {
			ck_assert_msg(strstr(r.err, "/.gdbinit: removed (the command "
					     "created it): it is (or is in) ~/.gdbinit, "
					     "where a later login") != NULL, "%s", r.err);
			ck_assert_msg(strstr(r.err, "/tools: removed (the command "
					     "created it): it is (or holds) ") != NULL &&
				      strstr(r.err, "/tools/bin), where a later "
					     "login") != NULL, "%s", r.err);
			ck_assert_msg(strstr(r.err, "wstools' configuration") == NULL,
				      "%s", r.err);
		} else {
			why = wst_output(&r, "reverted_why");
			ck_assert_int_eq(cJSON_GetArraySize(why), 2);
			ck_assert_msg(strstr(out_str(&r, "reverted_hint"),
					     "reverted_why") != NULL, "%s", r.out);
			ck_assert_msg(strstr(r.out, "~/.gdbinit, where") != NULL, "%s", r.out);
		}
		wst_run_free(&r);
	}
}
END_TEST

/*
 * FTU10 12: the caller's PATH reaches the command as it is; --verbose
 * names once the entries the virtual view does not hold (the caller's
 * build directory), and not the system's or the workspace's.  The real
 * view keeps the host's layout: nothing is said there.
 */
START_TEST(verbose_path_unseen)
{
	struct wst_run r;
	const char *env[] = {"PATH=/nonexistent-fix24/bin:/tools/bin:/usr/bin:"
			     "/bin:/nonexistent-fix24/bin", NULL};
	const char *argv[] = {"--workspace", ws, "--plain", "--verbose", "--",
			      "true", NULL};
	const char *line;

	wst_mkdir(ws, "tools/bin");
	wst_runv(&r, NULL, env, "wsrun", argv);
	ck_assert_msg(r.status == 0, "%d %s", r.status, r.err);
	line = strstr(r.err, "INFO PATH entries not in the command's view");
	if (!virt()) {
		ck_assert_msg(line == NULL, "%s", r.err);
	} else {
		ck_assert_msg(line != NULL, "%s", r.err);
		ck_assert_msg(strncmp(strchr(line, ':'), ": /nonexistent-fix24/bin\n",
				      25) == 0, "%s", r.err);
	}
	wst_run_free(&r);
	/* Without --verbose, nothing. */
	argv[3] = "--plain";
	wst_runv(&r, NULL, env, "wsrun", argv);
	ck_assert_msg(r.status == 0, "%d %s", r.status, r.err);
	ck_assert_ptr_null(strstr(r.err, "INFO PATH"));
	wst_run_free(&r);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("cli-wsrun");
	TCase *tc = tcase_create("consistency");
	TCase *tf = tcase_create("confinement");
	TCase *tp = tcase_create("process");
	TCase *tn = tcase_create("nested");
	int nm = NMODES_CONFINE;
	const char *sim = getenv("WST_RUN_DISABLE");

	/* Each run here chooses its view itself (see wst_view_own). */
	wst_view_own = true;

	/*
	 * What this machine cannot do is checked by its fallback only
	 * (wst_layer() says on stderr which layer and why): no Landlock
	 * (or WST_RUN_DISABLE=landlock simulating a kernel without it),
	 * then no run is confined at all; no mount namespace, then the
	 * suite's WS_VIEW=virtual run has nothing to run in.
	 */
	if (!wst_layer(sim ? sim : "", "landlock")) {
		tcase_add_checked_fixture(tf, setup, teardown);
		tcase_add_test(tf, no_landlock_here);
		tcase_add_test(tf, userns_refused_none_runs);
		suite_add_tcase(s, tf);
		return s;
	}
	if (virt() && !wst_layer("", "mountns")) {
		tcase_add_checked_fixture(tf, setup, teardown);
		tcase_add_test(tf, virtual_unavailable_here);
		suite_add_tcase(s, tf);
		return s;
	}

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, consistency_list, 0, 2);
	tcase_add_loop_test(tc, consistency_write_run_read_tool, 0, 2);
	tcase_add_loop_test(tc, consistency_write_tool_read_run, 0, 2);
	tcase_add_loop_test(tc, consistency_isolation, 0, nm);
	suite_add_tcase(s, tc);
	/* Nested workspaces' commands and changes (review30 01). */
	tcase_add_checked_fixture(tn, setup, teardown);
	tcase_add_test(tn, nested_change_waits_for_inner_command);
	tcase_add_test(tn, nested_change_waits_for_outer_command);
	tcase_add_test(tn, nested_change_through_mount_waits);
	tcase_add_test(tn, nested_runs_one_at_a_time);
	tcase_add_test(tn, nested_move_and_delete_wait);
	tcase_add_test(tn, nested_unreadable_ancestor_passed);
	suite_add_tcase(s, tn);
	tcase_add_checked_fixture(tf, setup, teardown);
	tcase_add_loop_test(tf, confine_files, 0, nm);
	tcase_add_loop_test(tf, allow_read_etc, 0, nm);
	tcase_add_loop_test(tf, policy_grants_read_write, 0, nm);
	tcase_add_loop_test(tf, policy_grants_symlink_planted, 0, nm);
	tcase_add_loop_test(tf, policy_grants_refused, 0, nm);
	/* The default layers: masks need the mount namespace. */
	tcase_add_loop_test(tf, policy_grant_vetoed_inside_workspace, 0, 1);
	tcase_add_loop_test(tf, policy_denied_links_removed, 0, 1);
	tcase_add_loop_test(tf, person_edits_during_run_kept, 0, 1);
	tcase_add_loop_test(tf, policy_shipped_dev_safe_quiet, 0, 1);
	tcase_add_loop_test(tf, policy_dev_safe_no_gitconfig_quiet, 0, 1);
	tcase_add_test(tf, no_landlock_hint);
	tcase_add_loop_test(tf, policy_example_no_other_writes, 0, 1);
	tcase_add_test(tf, policy_grant_xdg_persistence);
	tcase_add_test(tf, policy_grant_rc_sourced);
	tcase_add_loop_test(tf, policy_grant_narrowed_by_hard_link, 0, nm);
	tcase_add_loop_test(tf, policy_grant_allow_read_repointed, 0, nm);
	tcase_add_loop_test(tf, allow_read_relative, 0, nm);
	tcase_add_loop_test(tf, allow_read_repointed_in_workspace, 0, nm);
	tcase_add_loop_test(tf, policy_grants_policy_spelling, 0, nm);
	tcase_add_loop_test(tf, policy_grants_submount, 0, nm);
	tcase_add_loop_test(tf, policy_grants_bind_alias, 0, nm);
	tcase_add_loop_test(tf, confine_fds_and_signals, 0, nm);
	tcase_add_loop_test(tf, confine_network, 0, nm);
	tcase_add_loop_test(tf, confine_unix_datagram, 0, nm);
	tcase_add_loop_test(tf, confine_guards, 0, nm);
	tcase_add_loop_test(tf, masked_binaries, 0, nm);
	tcase_add_loop_test(tf, no_setid_bits, 0, nm);
	tcase_add_loop_test(tf, seccomp_each_rule, 0, nm);
	tcase_add_test(tf, guards_own_policy);
	tcase_add_test(tf, guards_anchor_spelling);
	tcase_add_test(tf, guards_parents_pinned);
	tcase_add_test(tf, fallback_refuses_boundary_entries);
	tcase_add_test(tf, own_config_place_reverted);
	tcase_add_loop_test(tf, own_config_place_absent_for_other_calls, 0, 2);
	tcase_add_test(tf, own_config_place_stale_record);
	tcase_add_loop_test(tf, history_hidden_from_command, 0, 2);
	tcase_add_test(tf, history_masked_under_grant);
	tcase_add_test(tf, home_persist_places);
	tcase_add_test(tf, home_rc_sourced_places);
	tcase_add_test(tf, home_persist_passwd_home);
	tcase_add_test(tf, home_persist_linked_parents);
	tcase_add_test(tf, home_persist_dangling_into_ws);
	tcase_add_test(tf, home_persist_linked_through_ws);
	tcase_add_test(tf, persist_bases_ways);
	tcase_add_test(tf, path_dir_above_ws);
	tcase_add_test(tf, persist_place_fallback_refused);
	tcase_add_test(tf, home_persist_anchor_linked);
	tcase_add_test(tf, home_persist_places_review12);
	tcase_add_test(tf, home_persist_places_review14);
	tcase_add_test(tf, home_persist_places_review16);
	tcase_add_test(tf, home_persist_places_review18);
	tcase_add_test(tf, home_persist_places_review28);
	tcase_add_test(tf, path_dirs_places);
	tcase_add_test(tf, path_dir_missing_made);
	tcase_add_test(tf, path_dir_spelled_through_link);
	tcase_add_test(tf, xdg_persist_places);
	tcase_add_test(tf, persist_guards_reverted);
	tcase_add_loop_test(tf, nested_editor_settings_reverted, 0, nm);
	tcase_add_loop_test(tf, folder_guards_missing_folder, 0, nm);
	tcase_add_test(tf, markers_reverted);
	tcase_add_test(tf, marker_removal_refused);
	tcase_add_loop_test(tf, git_dirs_cleaned, 0, nm);
	tcase_add_loop_test(tf, vcs_dir_links_removed, 0, nm);
	tcase_add_loop_test(tf, jj_repo_redirect_removed, 0, nm);
	tcase_add_loop_test(tf, vcs_link_targets_watched, 0, nm);
	tcase_add_loop_test(tf, git_work_stays, 0, nm);
	tcase_add_loop_test(tf, git_remotes_pinned, 0, nm);
	tcase_add_loop_test(tf, git_disguised_bare_cleaned, 0, nm);
	tcase_add_loop_test(tf, git_bare_dangling_refs_cleaned, 0, nm);
	tcase_add_loop_test(tf, git_deep_repo_cleaned, 0, nm);
	tcase_add_loop_test(tf, deep_tree_removed, 0, nm);
	tcase_add_loop_test(tf, unchanged_dirs_walked_after, 0, nm);
	tcase_add_loop_test(tf, recorded_walk_sees_person_changes, 0, nm);
	tcase_add_loop_test(tf, default_state_dir_keeps_records, 0, nm);
	tcase_add_test(tf, walk_within_descriptor_limit);
	tcase_add_test(tf, deep_home_state_refused);
	tcase_add_test(tf, command_made_mark_removed);
	tcase_add_test(tf, unreadable_dirs_checked);
	tcase_add_test(tf, unreadable_anchor_top_checked);
	tcase_add_test(tf, change_refused_under_unreadable_root);
	tcase_add_test(tf, unreadable_place_parent_checked);
	tcase_add_test(tf, unreadable_git_dirs_checked);
	tcase_add_test(tf, state_dir_not_started_during_run);
	tcase_add_test(tf, state_dir_first_use_beside_run);
	tcase_add_test(tf, cli_change_waits_for_command);
	tcase_add_loop_test(tf, git_snapshot_before_command, 0, nm);
	tcase_add_test(tf, git_overlapping_runs);
	tcase_add_test(tf, git_init_top_reverted);
	tcase_add_test(tf, unprivileged);
	tcase_add_test(tf, unprivileged_mount_through_symlink);
	tcase_add_test(tf, isolate_modes);
	tcase_add_test(tf, userns_refused_none_runs);
	tcase_add_test(tf, unix_socket_in_workspace);
	tcase_add_test(tf, policy_grant_home_persistence);
	tcase_add_test(tf, policy_grant_home_persistence_linked);
	tcase_add_test(tf, tmp_bounded);
	tcase_add_test(tf, probe);
	tcase_add_test(tf, workspace_root);
	tcase_add_test(tf, args_compact);
	tcase_add_test(tf, schema_ignores_flags);
	tcase_add_test(tf, tty_no_default_timeout);
	suite_add_tcase(s, tf);
	tcase_add_checked_fixture(tp, setup, teardown);
	tcase_add_loop_test(tp, timeout_kills_detached, 0, NMODES_PROCESS);
	tcase_add_loop_test(tp, timeout_sigterm_ignored, 0, 2);
	tcase_add_loop_test(tp, kill9_wsrun, 0, 1);
	tcase_add_loop_test(tp, kill9_wsrun, 4, 5);
	tcase_add_test(tp, kill9_wsrun_pdeathsig_cleared);
	tcase_add_test(tp, kill9_wsrun_setsid_orphan);
	tcase_add_loop_test(tp, kill9_wsrun_cleans_up, 0, 2);
	tcase_add_test(tp, init_environ_hidden);
	tcase_add_test(tp, init_holds_no_descriptor);
	/* Four points of the setup in each of the modes. */
	tcase_add_loop_test(tp, init_term_before_wait, 0, 4 * NMODES_CONFINE);
	tcase_add_loop_test(tp, sigterm_wsrun, 0, 2);
	tcase_add_loop_test(tp, sigterm_wsrun, 4, 5);
	tcase_add_loop_test(tp, sigint_wsrun, 0, 1);
	tcase_add_loop_test(tp, sigint_wsrun, 4, 5);
	tcase_add_test(tp, sigint_before_ready);
	tcase_add_test(tp, one_pipe_no_wait);
	tcase_add_test(tp, units);
	tcase_add_test(tp, exit_statuses);
	tcase_add_test(tp, policy_command_refusals);
	tcase_add_loop_test(tp, path_search_skips_directory, 0, NMODES_PROCESS);
	tcase_add_loop_test(tp, path_search_missing_first_component, 0,
			    NMODES_PROCESS);
	tcase_add_test(tp, output_caps);
	tcase_add_test(tp, limits);
	tcase_add_test(tp, flags_bound_args);
	tcase_add_test(tp, args_repeated_key_and_units);
	tcase_add_test(tp, plain_and_args);
	tcase_add_test(tp, plain_merged_order);
	tcase_add_test(tp, config_env);
	tcase_add_test(tp, verbose_path_unseen);
	tcase_add_test(tp, removed_names_the_place);
	suite_add_tcase(s, tp);
	return s;
}

WST_MAIN(suite)
