/*
 * test_run.c - unit tests for lib/run.c and lib/sandbox.c: the command
 * line, the built-in blocked list and policy command rules, option
 * checks, layer names, and ws_run() in-process: output capture (head,
 * tail, marker), stdin, exit statuses, timeouts, the working directory
 * and the environment.
 */
#include "wstest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ws/config.h"
#include "ws/error.h"
#include "ws/pending.h"
#include "ws/policy.h"
#include "ws/run.h"
#include "ws/sandbox.h"
#include "ws/workspace.h"

static char *dir;
static struct ws_ctx ws;

static void
setup(void)
{
	dir = wst_tmpdir();
	wst_write(dir, "sub/a.txt", "alpha\n");
	memset(&ws, 0, sizeof(ws));
	ck_assert_int_eq(ws_ctx_open(&ws, dir, 0), 0);
}

static void
teardown(void)
{
	ws_ctx_close(&ws);
	wst_rmrf(dir);
	free(dir);
}

static void
opts_init(struct ws_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_ms = 20000;
	o->grace_ms = 1000;
	o->max_output = WS_RUN_MAX_OUTPUT_DEFAULT;
	o->stream_out = o->stream_err = -1;
}

/* Run /bin/sh -c script with o (stdin_data etc. already set). */
static int
run_sh(struct ws_run_opts *o, const char *script, struct ws_run_result *r)
{
	o->shell = script;
	return ws_run(&ws, o, r);
}

START_TEST(cmdline)
{
	const char *argv[] = {"ls", "-la", "a b"};
	struct ws_run_opts o;
	char *s;

	opts_init(&o);
	o.argv = argv;
	o.argc = 3;
	s = ws_run_cmdline(&o);
	ck_assert_str_eq(s, "ls -la a b");
	free(s);
	o.shell = "echo hi | wc";
	s = ws_run_cmdline(&o);
	ck_assert_str_eq(s, "echo hi | wc");
	free(s);
}
END_TEST

START_TEST(blocked_builtin)
{
	static const char *const blocked[] = {
		"sudo ls", "  sudo -i", "echo x; sudo rm a", "/usr/bin/sudo ls",
		"su -", "rm -rf /", "rm -fr /*", "rm -rf ~", "rm -r -f /",
		"mkfs.ext4 /dev/sda1", "dd if=/dev/zero of=/dev/sda",
		"shutdown -h now", "reboot", "curl http://x", "wget x",
		"nc -l 80", "a && curl x", "$(curl x)", "chmod 777 /",
	};
	static const char *const allowed[] = {
		"ls", "sudoku", "echo sudo", "rm -rf build", "rm -rf ./",
		"make", "dd if=a of=b", "git commit -m 'curl support'",
		"cat README", "grep -r wget .",
	};

	for (size_t i = 0; i < sizeof(blocked) / sizeof(blocked[0]); i++)
		ck_assert_msg(ws_run_check_command(&ws, blocked[i]) ==
			      WS_EBLOCKED_COMMAND, "not blocked: %s", blocked[i]);
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		ck_assert_msg(ws_run_check_command(&ws, allowed[i]) == 0,
			      "blocked: %s (%s)", allowed[i], ws_error_last());
}
END_TEST

START_TEST(blocked_policy)
{
	struct ws_policy *p = NULL;

	ck_assert_int_eq(ws_policy_parse(
		"{\"version\": 1, \"name\": \"t\", \"file_rules\": [],"
		" \"command_rules\": ["
		"  {\"name\": \"no-make\", \"patterns\": [\"^make\\\\b\"], \"decision\": \"deny\"},"
		"  {\"name\": \"ask-git\", \"patterns\": [\"^git push\"], \"decision\": \"approve\"}"
		"]}", "test", NULL, &p), 0);
	ws.policy = p;
	ck_assert_int_eq(ws_run_check_command(&ws, "make all"), WS_EBLOCKED_COMMAND);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "no-make"));
	ck_assert_int_eq(ws_run_check_command(&ws, "git push"), WS_EAPPROVAL_REQUIRED);
	ws.approve = true;
	ck_assert_int_eq(ws_run_check_command(&ws, "git push"), 0);
	/* A policy with command rules replaces the built-in list. */
	ck_assert_int_eq(ws_run_check_command(&ws, "sudo ls"), 0);
	ws.policy = NULL;
	ws_policy_free(p);
}
END_TEST

START_TEST(opts_and_names)
{
	struct ws_run_opts o;
	const char *bad_env[] = {"NOEQUALS"};
	const char *argv[] = {"true"};
	unsigned bits;
	enum ws_isolate m;

	opts_init(&o);
	ck_assert_int_eq(ws_run_check_opts(&o), WS_EINVALID_ARGUMENT);
	o.argv = argv;
	o.argc = 1;
	ck_assert_int_eq(ws_run_check_opts(&o), 0);
	o.timeout_ms = -1;
	ck_assert_int_eq(ws_run_check_opts(&o), WS_EINVALID_ARGUMENT);
	o.timeout_ms = 0;
	o.env = bad_env;
	o.nenv = 1;
	ck_assert_int_eq(ws_run_check_opts(&o), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_layers_parse("mountns,landlock", &bits), 0);
	ck_assert_uint_eq(bits, 1U << WS_LAYER_MOUNTNS | 1U << WS_LAYER_LANDLOCK);
	ck_assert_int_eq(ws_layers_parse("userns", &bits), 0);
	ck_assert_uint_eq(bits, 1U << WS_LAYER_MOUNTNS | 1U << WS_LAYER_PIDNS |
				1U << WS_LAYER_NETNS | WS_LAYERS_USERNS_BIT);
	ck_assert_int_eq(ws_layers_parse("bogus", &bits), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_isolate_parse("strict", &m), 0);
	ck_assert_int_eq(m, WS_ISOLATE_STRICT);
	ck_assert_int_eq(ws_isolate_parse("off", &m), WS_EINVALID_ARGUMENT);
	ck_assert_str_eq(ws_layer_name(WS_LAYER_SECCOMP), "seccomp");
}
END_TEST

START_TEST(probe_disable)
{
	struct ws_isolation iso;

	ws_sandbox_probe(&iso, 1U << WS_LAYER_PIDNS, false);
	ck_assert(!iso.layer[WS_LAYER_PIDNS].available);
	/* The minimal root needs the PID namespace's fresh /proc. */
	ck_assert(!iso.layer[WS_LAYER_MOUNTNS].available);
	ck_assert(!iso.layer[WS_LAYER_GUARDS].available);
	ck_assert_ptr_nonnull(strstr(iso.layer[WS_LAYER_PIDNS].why, "WS_RUN_DISABLE"));
}
END_TEST

/*
 * In a chroot whose "/" is not a mount point the kernel refuses to make
 * "/" private: the probe says the minimal root is unavailable (so that
 * --isolate auto runs without it) instead of the run failing later.
 */
START_TEST(probe_chroot)
{
	char *jail = wst_tmpdir();
	int st;
	pid_t pid;

	if (geteuid() != 0) {
		free(jail);
		return; /* chroot(2) needs root */
	}
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct ws_isolation iso;

		if (chroot(jail) < 0 || chdir("/") < 0)
			_exit(2);
		ws_sandbox_probe(&iso, 0, false);
		_exit(!iso.layer[WS_LAYER_MOUNTNS].available &&
		      strstr(iso.layer[WS_LAYER_MOUNTNS].why, "chroot") != NULL &&
		      !iso.layer[WS_LAYER_GUARDS].available &&
		      iso.layer[WS_LAYER_SECCOMP].available ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	/* Outside the chroot, where "/" is a mount (this test may itself
	 * run in a chroot), nothing changes. */
	{
		struct ws_isolation iso;
		struct statx sx;

		ws_sandbox_probe(&iso, 0, false);
		if (statx(AT_FDCWD, "/", 0, STATX_BASIC_STATS, &sx) == 0 &&
		    (sx.stx_attributes & 0x2000 /* STATX_ATTR_MOUNT_ROOT */))
			ck_assert_ptr_null(strstr(iso.layer[WS_LAYER_MOUNTNS].why,
						  "chroot"));
	}
	wst_rmrf(jail);
	free(jail);
}
END_TEST

START_TEST(capture_head_tail)
{
	struct ws_run_opts o;
	struct ws_run_result r;

	opts_init(&o);
	o.max_output = 100;
	ck_assert_int_eq(run_sh(&o, "printf 'HEAD%0500dTAIL'  0; printf e >&2", &r), 0);
	ck_assert_int_eq(r.status, 0);
	ck_assert(r.out.truncated);
	ck_assert_int_eq(r.out.bytes, 508);
	ck_assert(strncmp(r.out.data, "HEAD", 4) == 0);
	ck_assert_str_eq(r.out.data + r.out.len - 4, "TAIL");
	ck_assert_ptr_nonnull(strstr(r.out.data, "[... 408 bytes omitted by wsrun ...]"));
	ck_assert_str_eq(r.err.data, "e");
	ck_assert(!r.err.truncated);
	ws_run_free(&r);
	/* Exactly at the cap: nothing left out, no marker. */
	ck_assert_int_eq(run_sh(&o, "printf '%0100d' 0", &r), 0);
	ck_assert(!r.out.truncated);
	ck_assert_uint_eq(r.out.len, 100);
	ws_run_free(&r);
}
END_TEST

START_TEST(stdin_status_cwd_env)
{
	struct ws_run_opts o;
	struct ws_run_result r;
	const char *env[] = {"FOO=bar"};

	opts_init(&o);
	o.stdin_data = "abc";
	o.stdin_len = 3;
	o.cwd = "/sub";
	o.env = env;
	o.nenv = 1;
	ck_assert_int_eq(run_sh(&o, "cat; cat a.txt; echo $FOO $WS_SANDBOX; "
				"test -d \"$HOME\" && test -d \"$TMPDIR\" && exit 9", &r), 0);
	ck_assert_str_eq(r.out.data, "abcalpha\nbar 1\n");
	ck_assert_int_eq(r.exit_code, 9);
	ck_assert_int_eq(r.status, 9);
	ck_assert_str_eq(r.cwd, "/sub");
	ws_run_free(&r);
	opts_init(&o);
	ck_assert_int_eq(run_sh(&o, "kill -TERM $$", &r), 0);
	ck_assert_int_eq(r.signal, 15);
	ck_assert_int_eq(r.status, 128 + 15);
	ws_run_free(&r);
}
END_TEST

START_TEST(timeout)
{
	struct ws_run_opts o;
	struct ws_run_result r;

	opts_init(&o);
	o.timeout_ms = 300;
	o.grace_ms = 300;
	ck_assert_int_eq(run_sh(&o, "trap '' TERM; sleep 30", &r), 0);
	ck_assert(r.timed_out);
	ck_assert_int_eq(r.status, WS_RUN_EXIT_TIMEOUT);
	ck_assert_int_ge(r.duration_ms, 550);
	ck_assert_int_lt(r.duration_ms, 5000 * WST_SLOWDOWN);
	ws_run_free(&r);
}
END_TEST

START_TEST(not_found)
{
	struct ws_run_opts o;
	struct ws_run_result r;
	const char *argv[] = {"no-such-command-here"};

	opts_init(&o);
	o.argv = argv;
	o.argc = 1;
	ck_assert_int_eq(ws_run(&ws, &o, &r), WS_ENOT_FOUND);
	ck_assert_int_eq(r.status, WS_RUN_EXIT_NOTFOUND);
	ws_run_free(&r);
	o.cwd = "/sub/a.txt";
	ck_assert_int_eq(ws_run(&ws, &o, &r), WS_ENOT_A_DIRECTORY);
	ws_run_free(&r);
}
END_TEST

/* The mappings of this process but the heap's (which malloc may grow). */
static int
count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int n = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, "[heap]") == NULL;
	fclose(f);
	return n;
}

static int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

/*
 * With the environment detached (as the wsrun program does), the
 * namespace init runs in this process's memory on a stack of its own;
 * without (wstools mcp), it is a copy.  Either way, many runs in one
 * process, some killed by a timeout during init's setup, some whose
 * command cannot be run, leave no mapping, descriptor or child behind,
 * and the caller's SIGTERM handler never runs in init (Check's, which
 * kills the test's process group, did: a timeout's SIGTERM reached init
 * before it had blocked it).
 */
static void
init_repeat(bool detach)
{
	struct ws_run_opts o;
	struct ws_run_result r;
	const char *argv[] = {"no-such-command-here"};
	int maps, fds;

	if (detach)
		ck_assert_int_eq(ws_run_detach_environ(), 0);
	/* A first run: whatever it sets up once (libraries, caches). */
	opts_init(&o);
	ck_assert_int_eq(run_sh(&o, "true", &r), 0);
	ws_run_free(&r);
	maps = count_maps();
	fds = count_fds();
	for (int i = 0; i < 24; i++) {
		opts_init(&o);
		switch (i % 3) {
		case 0:
			ck_assert_int_eq(run_sh(&o, "exit 3", &r), 0);
			ck_assert_int_eq(r.status, 3);
			break;
		case 1:
			o.timeout_ms = 1 + i % 4;
			o.grace_ms = 10;
			ck_assert_int_eq(run_sh(&o, "sleep 5", &r), 0);
			ck_assert(r.timed_out);
			break;
		default:
			o.argv = argv;
			o.argc = 1;
			ck_assert_int_eq(ws_run(&ws, &o, &r), WS_ENOT_FOUND);
			break;
		}
		ws_run_free(&r);
	}
#ifndef __SANITIZE_ADDRESS__
	/* (AddressSanitizer's allocator maps as it goes; init forks there.) */
	ck_assert_int_eq(count_maps(), maps);
#else
	(void)maps;
#endif
	ck_assert_int_eq(count_fds(), fds);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
}

START_TEST(shared_init_repeat)
{
	init_repeat(true);
}
END_TEST

START_TEST(fork_init_repeat)
{
	init_repeat(false);
}
END_TEST

static int
count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * Network by name in process (as wstools mcp runs it): when ws_run()
 * returns, the proxy is gone -- no thread, no descriptor (listener,
 * socketpair, eventfd, connection) left -- even though the command
 * left a connection open, half a request sent, in a detached process.
 */
START_TEST(net_proxy_gone)
{
	const char *allow[] = {"web.test"};
	struct ws_run_opts o;
	struct ws_run_result r;
	int threads, fds, rc;

	if (access("/usr/bin/python3", X_OK) != 0)
		return;
	threads = count_entries("/proc/self/task");
	fds = count_entries("/proc/self/fd");
	for (int i = 0; i < 2; i++) {
		const char *argv[] = {"/usr/bin/python3", "-c",
			"import socket,os,time\n"
			"s=socket.create_connection(('127.0.0.1',3128))\n"
			"s.send(b'GET http://web.test/ HTTP/1.1\\r\\n')\n"
			"t=socket.create_connection(('127.0.0.1',3128))\n"
			"if os.fork()==0:\n os.setsid(); time.sleep(60)\n"
			"print('ok')\n"};

		opts_init(&o);
		o.argv = argv;
		o.argc = 3;
		o.net_allow = allow;
		o.nnet_allow = 1;
		rc = ws_run(&ws, &o, &r);
		if (rc == WS_ESANDBOX_UNAVAILABLE) {
			ws_run_free(&r);
			return; /* no network namespace here */
		}
		ck_assert_msg(rc == 0, "%s", ws_error_last());
		ck_assert_int_eq(r.exit_code, 0);
		ck_assert_str_eq(r.out.data, "ok\n");
		ck_assert(r.net_filtered);
		ws_run_free(&r);
		ck_assert_int_eq(count_entries("/proc/self/task"), threads);
		ck_assert_int_eq(count_entries("/proc/self/fd"), fds);
	}
}
END_TEST

static void *
pending_runner(void *arg)
{
	struct ws_run_opts o;
	struct ws_run_result *r = arg;

	opts_init(&o);
	o.shell = "mkdir -p .config/wstools && echo '{\"mounts\": [\"/h=/\"]}' > "
		  ".config/wstools/config.json && touch made && sleep 2";
	ck_assert_int_eq(ws_run(&ws, &o, r), 0);
	return NULL;
}

/*
 * Review 10 (03b): while a command runs in this process (wstools mcp), a
 * configuration it made at wstools' own place (HOME/.config/wstools, HOME
 * the workspace) is absent for the loader of a parallel call; once its
 * revert has run, nothing is pending.
 */
START_TEST(config_place_pending)
{
	struct ws_run_result r;
	struct ws_config cfg;
	char *made = wst_path(dir, "made"), *cf;
	pthread_t t;
	int i;

	cf = wst_path(dir, ".config/wstools/config.json");
	/* The context reads HOME for its guarded places: open it again. */
	ws_ctx_close(&ws);
	setenv("HOME", dir, 1);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("WS_CONFIG");
	wst_mkdir(dir, ".config");
	memset(&ws, 0, sizeof(ws));
	ck_assert_int_eq(ws_ctx_open(&ws, dir, 0), 0);
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(pthread_create(&t, NULL, pending_runner, &r), 0);
	for (i = 0; i < 500 && access(made, F_OK) != 0; i++)
		usleep(10000);
	ck_assert_msg(i < 500, "the command never ran");
	ck_assert_int_eq(access(cf, F_OK), 0);
	ck_assert(ws_pending_has(cf));
	ws_config_init(&cfg);
	ck_assert_int_eq(ws_config_load(&cfg, NULL), 0);
	ck_assert(cfg.path == NULL || strcmp(cfg.path, cf) != 0);
	ws_config_free(&cfg);
	pthread_join(t, NULL);
	ck_assert_int_eq(access(cf, F_OK), -1);
	ck_assert(!ws_pending_has(cf));
	ck_assert_int_ge(r.nreverted, 1);
	ws_run_free(&r);
	free(cf);
	free(made);
}
END_TEST

static void *
sleep_runner(void *arg)
{
	struct ws_run_opts o;
	struct ws_run_result *r = arg;

	opts_init(&o);
	o.shell = "touch made && sleep 2";
	ck_assert_int_eq(ws_run(&ws, &o, r), 0);
	return NULL;
}

/*
 * 7645bcb: the children a run forks or clones without exec (the guardian,
 * the namespace init) keep no descriptor of another call in the same
 * process: a copy of it keeps that call's flock() on the file for as
 * long as the child lives, and the next write of the file waits for the
 * command's end.  The other call here holds a lock on a file outside the
 * workspace while the command starts, and drops it while the command
 * runs: the file is free at once.  (cli-mcp's forked_children_keep_no_lock
 * cannot show it any more: a command now starts only once the changes
 * in its workspace have ended, review28 08.)
 */
START_TEST(forked_children_drop_locks)
{
	struct ws_run_result r;
	char *other = wst_tmpdir(), *lf = wst_path(other, "held"), *made;
	pthread_t t;
	int fd, fd2, i;

	wst_write(other, "held", "x");
	made = wst_path(dir, "made");
	fd = open(lf, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(pthread_create(&t, NULL, sleep_runner, &r), 0);
	for (i = 0; i < 500 && access(made, F_OK) != 0; i++)
		usleep(10000);
	ck_assert_msg(i < 500, "the command never ran");
	close(fd);
	fd2 = open(lf, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(fd2, 0);
	ck_assert_msg(flock(fd2, LOCK_EX | LOCK_NB) == 0,
		      "a child of the run keeps the other call's lock (%s)",
		      strerror(errno));
	close(fd2);
	pthread_join(t, NULL);
	ck_assert_int_eq(r.exit_code, 0);
	ws_run_free(&r);
	wst_rmrf(other);
	free(other);
	free(lf);
	free(made);
}
END_TEST

/*
 * Review 13 (03): the records' directory (and the history beside it) is
 * never made through a symlink planted as wstools/ or running/ in the
 * user's state: it would have them made where the link's maker chose.
 * The user's own base (XDG_STATE_HOME here, a link) is followed.
 */
START_TEST(pending_dir_no_symlink)
{
	char *state = wst_path(dir, "state"), *pd, *away;

	wst_mkdir(dir, "real-state");
	wst_mkdir(dir, "away");
	wst_symlink("real-state", dir, "state");
	setenv("XDG_STATE_HOME", state, 1);
	pd = ws_pending_dir();
	ck_assert_ptr_nonnull(pd);
	/* The base followed, wstools/running made in it. */
	ck_assert_int_eq(ws_pending_dir_make(pd), 0);
	away = wst_path(dir, "real-state/wstools/running");
	ck_assert(wst_exists(away));
	free(away);
	away = wst_path(dir, "real-state/wstools");
	wst_rmrf(away);
	free(away);
	/* wstools/ a link elsewhere: refused, nothing made there. */
	wst_symlink("../away", dir, "real-state/wstools");
	ck_assert_int_eq(ws_pending_dir_make(pd), -ELOOP);
	away = wst_path(dir, "away/running");
	ck_assert(!wst_exists(away));
	unsetenv("XDG_STATE_HOME");
	free(away);
	free(pd);
	free(state);
}
END_TEST

/*
 * A record a run was making when it was killed (a dot name, never
 * renamed) is removed by the next reader once nobody holds it and it is
 * older than a record takes to make; a young one, or one held, stays.
 * Kept, it made every call read the records' directory (the link count
 * no longer said there was none).
 */
START_TEST(pending_half_made_record_removed)
{
	char *state = wst_path(dir, "state"), *p;
	struct timespec old[2] = {{time(NULL) - 600, 0}, {time(NULL) - 600, 0}};
	int held;

	setenv("XDG_STATE_HOME", state, 1);
	wst_write(state, "wstools/running/.1-dead/places", "");
	wst_write(state, "wstools/running/.2-young/places", "");
	wst_write(state, "wstools/running/.3-held/places", "");
	p = wst_path(state, "wstools/running/.1-dead");
	ck_assert_int_eq(utimensat(AT_FDCWD, p, old, 0), 0);
	free(p);
	p = wst_path(state, "wstools/running/.3-held");
	ck_assert_int_eq(utimensat(AT_FDCWD, p, old, 0), 0);
	held = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(held, 0);
	ck_assert_int_eq(flock(held, LOCK_EX), 0);
	free(p);
	ck_assert(!ws_pending_has(dir));
	/* Each name, and whether it must be left. */
	static const struct {
		const char *rec;
		bool left;
	} want[] = {{".1-dead", false}, {".2-young", true}, {".3-held", true}};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char *rel = NULL;

		ck_assert_int_ge(asprintf(&rel, "wstools/running/%s", want[i].rec), 0);
		p = wst_path(state, rel);
		ck_assert_msg(wst_exists(p) == want[i].left, "%s: %s", want[i].rec,
			      want[i].left ? "removed" : "left");
		free(p);
		free(rel);
	}
	close(held);
	unsetenv("XDG_STATE_HOME");
	free(state);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("unit-run");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, cmdline);
	tcase_add_test(tc, blocked_builtin);
	tcase_add_test(tc, blocked_policy);
	tcase_add_test(tc, opts_and_names);
	tcase_add_test(tc, probe_disable);
	tcase_add_test(tc, probe_chroot);
	tcase_add_test(tc, capture_head_tail);
	tcase_add_test(tc, stdin_status_cwd_env);
	tcase_add_test(tc, timeout);
	tcase_add_test(tc, not_found);
	tcase_add_test(tc, shared_init_repeat);
	tcase_add_test(tc, fork_init_repeat);
	tcase_add_test(tc, net_proxy_gone);
	tcase_add_test(tc, config_place_pending);
	tcase_add_test(tc, forked_children_drop_locks);
	tcase_add_test(tc, pending_dir_no_symlink);
	tcase_add_test(tc, pending_half_made_record_removed);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
