/*
 * test_resolve.c - the descriptor-based resolver: input forms, "..",
 * symlinks in every position, creation of missing paths, mounts, strict
 * mode, allow-outside, magic links and a rename race.  Every case runs
 * twice: with the openat2 fast path and with the component walker alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wstest.h"
#include "ws/error.h"
#include "ws/resolve.h"
#include "ws/workspace.h"

static char *T;	 /* temporary base */
static char *W;	 /* T/ws, the workspace root */
static struct ws_ctx ws;
static unsigned mode; /* 0 or WS_R_SLOW, set per loop iteration */

static char *
tp(const char *rel)
{
	return wst_path(T, rel);
}

static void
setup(void)
{
	char *t;

	T = wst_tmpdir();
	W = tp("ws");
	wst_write(T, "ws/src/a.c", "A\n");
	wst_write(T, "ws/..test", "dots1");
	wst_write(T, "ws/te..st", "dots2");
	wst_write(T, "ws/...", "dots3");
	wst_write(T, "ws2/secret", "SIBLING");
	wst_write(T, "ws_backup/secret", "SIBLING");
	wst_write(T, "ws-evil/secret", "SIBLING");
	wst_write(T, "outside/secret", "OUTSIDE");
	wst_write(T, "skills/s.md", "skill");
	wst_symlink("src", T, "ws/lnk");
	t = tp("ws/src/a.c");
	wst_symlink(t, T, "ws/abs_in");
	free(t);
	wst_symlink("../outside", T, "ws/esc_rel");
	t = tp("outside/secret");
	wst_symlink(t, T, "ws/esc_abs");
	free(t);
	wst_symlink("chain2", T, "ws/chain1");
	wst_symlink("chain3", T, "ws/chain2");
	wst_symlink("src/a.c", T, "ws/chain3");
	wst_symlink("loop2", T, "ws/loop1");
	wst_symlink("loop1", T, "ws/loop2");
	t = tp("outside/newfile");
	wst_symlink(t, T, "ws/dangle_out");
	free(t);
	wst_symlink("../outside/newfile2", T, "ws/dangle_out_rel");
	wst_symlink("src/new.c", T, "ws/dangle_in");
	wst_symlink("..", T, "ws/sub/up");
	wst_symlink("../..", T, "ws/sub/deep_up");
	wst_symlink("/", T, "ws/to_root");
	t = tp("skills/s.md");
	wst_symlink(t, T, "ws/to_skill");
	free(t);
	wst_mkfifo(T, "ws/fifo");
	ck_assert_int_eq(ws_ctx_open(&ws, W, 0), 0);
	t = NULL;
	ck_assert(asprintf(&t, "/.skills=%s/skills:ro", T) > 0);
	ck_assert_int_eq(ws_ctx_add_mount(&ws, t), 0);
	free(t);
}

static void
teardown(void)
{
	ws_ctx_close(&ws);
	wst_rmrf(T);
	free(T);
	free(W);
}

/* Resolve and expect success with real path T/<rel_real>. */
static void
ok(const char *in, unsigned flags, const char *rel_real)
{
	struct ws_res r;
	char *want = tp(rel_real);
	int rc = ws_resolve(&ws, in, flags | mode, &r);

	ck_assert_msg(rc == 0, "[%s] mode %u: %s (%s)", in, mode,
		      ws_error_last(), ws_error_name(rc));
	ck_assert_msg(strcmp(r.real, want) == 0, "[%s] real %s, want %s", in,
		      r.real, want);
	ck_assert(r.dirfd >= 0);
	ck_assert(r.name != NULL);
	ws_res_free(&r);
	free(want);
}

static void
err(const char *in, unsigned flags, int code)
{
	struct ws_res r;
	int rc = ws_resolve(&ws, in, flags | mode, &r);

	ck_assert_msg(rc == code, "[%s] mode %u: got %s (%s), want %s", in, mode,
		      ws_error_name(rc), rc ? ws_error_last() : r.real,
		      ws_error_name(code));
	if (rc == 0)
		ws_res_free(&r);
}

#define BOTH_MODES for (mode = 0; mode <= WS_R_SLOW; mode += WS_R_SLOW)

START_TEST(input_forms)
{
	char *abs = tp("ws/src/a.c");

	BOTH_MODES {
		ok("", 0, "ws");
		ok(".", 0, "ws");
		ok("/", 0, "ws");
		ok("src/a.c", 0, "ws/src/a.c");
		ok("/src/a.c", 0, "ws/src/a.c");
		ok(abs, 0, "ws/src/a.c");
		ok("src\\a.c", 0, "ws/src/a.c");
		ok("./src//a.c", 0, "ws/src/a.c");
		ok("/.skills/s.md", 0, "skills/s.md");
		ok(".skills/s.md", 0, "skills/s.md");
		ok("/.skills", 0, "skills");
		ok("..test", 0, "ws/..test");
		ok("te..st", 0, "ws/te..st");
		ok("...", 0, "ws/...");
		ok("src/../src/a.c", 0, "ws/src/a.c");
	}
	free(abs);
}
END_TEST

START_TEST(dotdot_everywhere)
{
	char *sib = tp("ws/../ws2/secret");
	char *mnt = NULL;

	ck_assert(asprintf(&mnt, "%s/skills/../outside/secret", T) > 0);
	BOTH_MODES {
		err("..", 0, WS_EPATH_OUTSIDE_WORKSPACE);
		err("../outside/secret", 0, WS_EPATH_OUTSIDE_WORKSPACE);
		err("src/../../outside/secret", 0, WS_EPATH_OUTSIDE_WORKSPACE);
		err("src/../..", 0, WS_EPATH_OUTSIDE_WORKSPACE);
		err("/..", 0, WS_EPATH_OUTSIDE_WORKSPACE);
		err("/src/../../x", WS_R_MISSING_OK, WS_EPATH_OUTSIDE_WORKSPACE);
		/* Starts inside the root, then climbs out: not a shorthand. */
		err(sib, 0, WS_EPATH_OUTSIDE_WORKSPACE);
		err(sib, WS_R_MISSING_OK, WS_EPATH_OUTSIDE_WORKSPACE);
		/* Climbing above a mount's top is refused too. */
		err("/.skills/../src/a.c", 0, WS_EPATH_OUTSIDE_WORKSPACE);
		err(mnt, 0, WS_EPATH_OUTSIDE_WORKSPACE);
		/* ".." after a symlink is lexical: lnk/.. is the root. */
		ok("lnk/../src/a.c", 0, "ws/src/a.c");
		err("lnk/../../outside", 0, WS_EPATH_OUTSIDE_WORKSPACE);
	}
	free(sib);
	free(mnt);
}
END_TEST

START_TEST(sibling_prefixes)
{
	static const char *const sibs[] = {"ws2", "ws_backup", "ws-evil"};

	BOTH_MODES {
		for (size_t i = 0; i < 3; i++) {
			char *p = NULL, *want = NULL;

			/* An absolute path into a sibling is a shorthand inside. */
			ck_assert(asprintf(&p, "%s/%s/secret", T, sibs[i]) > 0);
			err(p, 0, WS_ENOT_FOUND);
			ck_assert(asprintf(&want, "ws%s", p) > 0);
			ok(p, WS_R_MISSING_OK, want);
			free(p);
			free(want);
		}
	}
}
END_TEST

START_TEST(symlinks)
{
	BOTH_MODES {
		ok("lnk/a.c", 0, "ws/src/a.c");
		ok("lnk", 0, "ws/src");
		ok("lnk/", 0, "ws/src");
		ok("abs_in", 0, "ws/src/a.c");
		ok("chain1", 0, "ws/src/a.c");
		ok("sub/up/src/a.c", 0, "ws/src/a.c");
		ok("to_skill", 0, "skills/s.md");
		err("esc_rel", 0, WS_ESYMLINK_OUTSIDE_WORKSPACE);
		err("esc_rel/secret", 0, WS_ESYMLINK_OUTSIDE_WORKSPACE);
		err("esc_abs", 0, WS_ESYMLINK_OUTSIDE_WORKSPACE);
		err("sub/deep_up", 0, WS_ESYMLINK_OUTSIDE_WORKSPACE);
		err("sub/deep_up/outside/secret", 0, WS_ESYMLINK_OUTSIDE_WORKSPACE);
		err("to_root/etc/passwd", 0, WS_ESYMLINK_OUTSIDE_WORKSPACE);
		err("loop1", 0, WS_ESYMLINK_LOOP);
		err("loop1/x", WS_R_MISSING_OK, WS_ESYMLINK_LOOP);
		err("dangle_in", 0, WS_ENOT_FOUND);
		err("abs_in/", 0, WS_ENOT_A_DIRECTORY);
		err("src/a.c/x", 0, WS_ENOT_A_DIRECTORY);
		/* A trailing slash follows the link, even when asked not to. */
		err("esc_rel/", 0, WS_ESYMLINK_OUTSIDE_WORKSPACE);
		err("esc_rel/", WS_R_NOFOLLOW, WS_ESYMLINK_OUTSIDE_WORKSPACE);
		/* NOFOLLOW keeps the link itself, inside the workspace. */
		ok("esc_abs", WS_R_NOFOLLOW, "ws/esc_abs");
		ok("loop1", WS_R_NOFOLLOW, "ws/loop1");
	}
}
END_TEST

START_TEST(create_targets)
{
	char *out1 = tp("outside/newfile"), *out2 = tp("outside/newfile2");

	BOTH_MODES {
		struct ws_res r;
		int fd;

		/* Dangling links that point outside are never a way out. */
		err("dangle_out", WS_R_MISSING_OK, WS_ESYMLINK_OUTSIDE_WORKSPACE);
		err("dangle_out_rel", WS_R_MISSING_OK, WS_ESYMLINK_OUTSIDE_WORKSPACE);
		ck_assert(!wst_exists(out1));
		ck_assert(!wst_exists(out2));
		/* A dangling link inside leads to where its target will be. */
		ok("dangle_in", WS_R_MISSING_OK, "ws/src/new.c");

		ck_assert_int_eq(ws_resolve(&ws, "new/dir/f", WS_R_MISSING_OK | mode, &r), 0);
		ck_assert(!r.exists);
		ck_assert_str_eq(r.missing, "new/dir/f");
		ck_assert_str_eq(r.name, "f");
		ck_assert_int_eq(ws_res_create_file(&r, 0644, &fd), WS_ENOT_FOUND);
		ck_assert_int_eq(ws_res_make_parents(&r, false, 0755), WS_ENOT_FOUND);
		ck_assert_int_eq(ws_res_make_parents(&r, true, 0755), 0);
		ck_assert_int_eq(ws_res_create_file(&r, 0644, &fd), 0);
		ck_assert_int_eq(write(fd, "x", 1), 1);
		close(fd);
		ws_res_free(&r);
		ok("new/dir/f", 0, "ws/new/dir/f");
		{
			char *p = tp("ws/new");

			wst_rmrf(p);
			free(p);
		}
		/* An existing name is never created again. */
		ck_assert_int_eq(ws_resolve(&ws, "src/a.c", mode, &r), 0);
		ck_assert_int_eq(ws_res_create_file(&r, 0644, &fd), WS_EALREADY_EXISTS);
		ws_res_free(&r);
	}
	free(out1);
	free(out2);
}
END_TEST

START_TEST(fifo_never_blocks)
{
	BOTH_MODES {
		struct ws_res r;
		int fd;
		time_t t0 = time(NULL);

		ck_assert_int_eq(ws_resolve(&ws, "fifo", mode, &r), 0);
		ck_assert(S_ISFIFO(r.st.st_mode));
		ck_assert_int_eq(ws_res_open(&r, O_RDONLY, &fd), WS_ENOT_A_REGULAR_FILE);
		ck_assert_int_eq(ws_res_open(&r, O_WRONLY, &fd), WS_ENOT_A_REGULAR_FILE);
		ck_assert(time(NULL) - t0 < 2);
		ws_res_free(&r);
		ck_assert_int_eq(ws_resolve(&ws, "src", mode, &r), 0);
		ck_assert_int_eq(ws_res_open(&r, O_RDONLY, &fd), WS_EIS_A_DIRECTORY);
		ck_assert_int_eq(ws_res_open(&r, O_RDONLY | O_DIRECTORY, &fd), 0);
		close(fd);
		ws_res_free(&r);
	}
}
END_TEST

START_TEST(limits)
{
	char *p = malloc(5000);

	BOTH_MODES {
		memset(p, 'a', 4096);
		for (int i = 100; i < 4096; i += 100)
			p[i] = '/';
		p[4096] = '\0';
		err(p, WS_R_MISSING_OK, WS_EINVALID_PATH);
		/* 4095 bytes is allowed: it resolves (as missing). */
		p[4095] = '\0';
		{
			struct ws_res r;
			char *want = wst_path(W, p);

			ck_assert_int_eq(ws_resolve(&ws, p, WS_R_MISSING_OK | mode, &r), 0);
			ck_assert_str_eq(r.real, want);
			ck_assert(!r.exists);
			ws_res_free(&r);
			free(want);
		}
		memset(p, 'b', 256);
		p[256] = '\0';
		err(p, WS_R_MISSING_OK, WS_EINVALID_PATH);
	}
	free(p);
}
END_TEST

START_TEST(strict_mode)
{
	struct ws_ctx s;

	ck_assert_int_eq(ws_ctx_open(&s, W, WS_STRICT), 0);
	BOTH_MODES {
		struct ws_res r;

		ck_assert_int_eq(ws_resolve(&s, "src/a.c", mode, &r), 0);
		ws_res_free(&r);
		ck_assert_int_eq(ws_resolve(&s, "/src/a.c", mode, &r), WS_EINVALID_PATH);
		ck_assert_int_eq(ws_resolve(&s, "src/../src/a.c", mode, &r), WS_EINVALID_PATH);
		ck_assert_int_eq(ws_resolve(&s, "../etc/passwd", mode, &r), WS_EINVALID_PATH);
		ck_assert_int_eq(ws_resolve(&s, "src\\a.c", mode, &r), WS_EINVALID_PATH);
		/* Symlinks stay confined in strict mode too. */
		ck_assert_int_eq(ws_resolve(&s, "esc_abs", mode, &r),
				 WS_ESYMLINK_OUTSIDE_WORKSPACE);
		/* New files are fine (seed 003). */
		ck_assert_int_eq(ws_resolve(&s, "src/new_module.rs", WS_R_MISSING_OK | mode, &r), 0);
		ws_res_free(&r);
	}
	ws_ctx_close(&s);
}
END_TEST

/* The four cases of the test plan of seed 000, as written. */
START_TEST(seed000_cases)
{
	struct ws_ctx s;
	struct ws_res r;
	char *root = tp("tmp/root"), *logs = tp("tmp/root/logs/output.log");

	wst_write(T, "tmp/root/logs/output.log", "log");
	BOTH_MODES {
		/* Absolute path inside root is accepted and preserved. */
		ck_assert_int_eq(ws_ctx_open(&s, root, 0), 0);
		ck_assert_int_eq(ws_resolve(&s, logs, mode, &r), 0);
		ck_assert_str_eq(r.real, logs);
		ck_assert_str_eq(r.form, "absolute-inside");
		ws_res_free(&r);
		/* Workspace-root-relative shorthand remains supported. */
		ck_assert_int_eq(ws_resolve(&s, "/logs/output.log", mode, &r), 0);
		ck_assert_str_eq(r.real, logs);
		ck_assert_str_eq(r.form, "shorthand");
		ws_res_free(&r);
		ws_ctx_close(&s);
		/* Workspace root / does not reject valid absolute paths. */
		ck_assert_int_eq(ws_ctx_open(&s, "/", 0), 0);
		ck_assert_int_eq(ws_resolve(&s, logs, mode, &r), 0);
		ck_assert_str_eq(r.real, logs);
		ws_res_free(&r);
		ck_assert_int_eq(ws_resolve(&s, "/home/kevin/worktrees/assistant",
					    WS_R_MISSING_OK | mode, &r), 0);
		ck_assert_str_eq(r.real, "/home/kevin/worktrees/assistant");
		ws_res_free(&r);
		ck_assert_int_eq(ws_resolve(&s, "/", mode, &r), 0);
		ck_assert_str_eq(r.real, "/");
		ws_res_free(&r);
		/* Magic links are refused even when the root is /. */
		ck_assert_int_eq(ws_resolve(&s, "/proc/self/root/etc/passwd", mode, &r),
				 WS_ESYMLINK_OUTSIDE_WORKSPACE);
		ck_assert_int_eq(ws_resolve(&s, "/proc/self/cwd", mode, &r),
				 WS_ESYMLINK_OUTSIDE_WORKSPACE);
		ws_ctx_close(&s);
		/* allow-outside disables the boundary check for absolute paths. */
		ck_assert_int_eq(ws_ctx_open(&s, root, WS_ALLOW_OUTSIDE), 0);
		ck_assert_int_eq(ws_resolve(&s, "/etc/passwd", mode, &r), 0);
		ck_assert_str_eq(r.real, "/etc/passwd");
		ck_assert_int_eq(r.final_anchor, WS_ANCHOR_HOST);
		ws_res_free(&r);
		ck_assert_int_eq(ws_resolve(&s, "/", mode, &r), 0);
		ck_assert_str_eq(r.real, "/");
		ws_res_free(&r);
		ws_ctx_close(&s);
		/* Without it, /etc/passwd is a shorthand inside the root. */
		ck_assert_int_eq(ws_ctx_open(&s, root, 0), 0);
		ck_assert_int_eq(ws_resolve(&s, "/etc/passwd", mode, &r), WS_ENOT_FOUND);
		ws_ctx_close(&s);
	}
	free(root);
	free(logs);
}
END_TEST

/* The mapping examples of seed 001, both ways, with a /.solven mount. */
START_TEST(seed001_mapping)
{
	struct ws_ctx s;
	struct ws_res r;
	char *base = tp("threads/thread-123"), *spec = NULL, *v = NULL;
	char *file = tp("threads/thread-123/file.txt");
	char *skill = tp("solven/skills/system/x.md");

	wst_write(T, "threads/thread-123/file.txt", "hello");
	wst_write(T, "solven/skills/system/x.md", "skill");
	ck_assert_int_eq(ws_ctx_open(&s, base, 0), 0);
	ck_assert(asprintf(&spec, "/.solven=%s/solven", T) > 0);
	ck_assert_int_eq(ws_ctx_add_mount(&s, spec), 0);
	BOTH_MODES {
		ck_assert_int_eq(ws_resolve(&s, "/", mode, &r), 0);
		ck_assert_str_eq(r.real, base);
		ws_res_free(&r);
		ck_assert_int_eq(ws_resolve(&s, "/file.txt", mode, &r), 0);
		ck_assert_str_eq(r.real, file);
		ck_assert_str_eq(r.vpath, "/file.txt");
		ws_res_free(&r);
		ck_assert_int_eq(ws_resolve(&s, "/.solven/skills/system/x.md", mode, &r), 0);
		ck_assert_str_eq(r.real, skill);
		ws_res_free(&r);
	}
	ck_assert_int_eq(ws_ctx_to_virtual(&s, file, &v), 0);
	ck_assert_str_eq(v, "/file.txt");
	free(v);
	ck_assert_int_eq(ws_ctx_to_virtual(&s, base, &v), 0);
	ck_assert_str_eq(v, "/");
	free(v);
	ck_assert_int_eq(ws_ctx_to_virtual(&s, skill, &v), 0);
	ck_assert_str_eq(v, "/.solven/skills/system/x.md");
	free(v);
	ck_assert_int_eq(ws_ctx_to_virtual(&s, "/etc/passwd", &v),
			 WS_EPATH_OUTSIDE_WORKSPACE);
	/* A workspace entry hidden behind the mount has no virtual path. */
	wst_write(T, "threads/thread-123/.solven/hidden", "h");
	free(spec);
	ck_assert(asprintf(&spec, "%s/.solven/hidden", base) > 0);
	ck_assert_int_eq(ws_ctx_to_virtual(&s, spec, &v), WS_EPATH_OUTSIDE_WORKSPACE);
	ws_ctx_close(&s);
	free(spec);
	free(base);
	free(file);
	free(skill);
}
END_TEST

START_TEST(mounts)
{
	BOTH_MODES {
		struct ws_res r;

		ck_assert_int_eq(ws_resolve(&ws, "/.skills/s.md", mode, &r), 0);
		ck_assert_int_eq(r.final_anchor, 1);
		ck_assert_int_eq(ws_res_check_writable(&ws, &r), WS_EREAD_ONLY);
		ws_res_free(&r);
		/* Through an absolute link into the read-only mount: still ro. */
		ck_assert_int_eq(ws_resolve(&ws, "to_skill", mode, &r), 0);
		ck_assert_int_eq(ws_res_check_writable(&ws, &r), WS_EREAD_ONLY);
		ws_res_free(&r);
		ck_assert_int_eq(ws_resolve(&ws, "src/a.c", mode, &r), 0);
		ck_assert_int_eq(ws_res_check_writable(&ws, &r), 0);
		ws_res_free(&r);
	}
	{
		struct ws_ctx s;

		ck_assert_int_eq(ws_ctx_open(&s, W, 0), 0);
		ck_assert_int_eq(ws_ctx_add_mount(&s, "/=/tmp"), WS_EINVALID_ARGUMENT);
		ck_assert_int_eq(ws_ctx_add_mount(&s, "rel=/tmp"), WS_EINVALID_ARGUMENT);
		ck_assert_int_eq(ws_ctx_add_mount(&s, "/x"), WS_EINVALID_ARGUMENT);
		ck_assert_int_eq(ws_ctx_add_mount(&s, "/x=/nonexistent-wst"),
				 WS_EWORKSPACE_NOT_FOUND);
		ck_assert_int_eq(ws_ctx_add_mounts(&s, "/a=/tmp,/b=/tmp:ro"), 0);
		ck_assert_int_eq((int)s.nanchors, 3);
		ck_assert(s.anchors[2].ro);
		ws_ctx_close(&s);
	}
}
END_TEST

START_TEST(workspace_root)
{
	struct ws_ctx s;
	char *lnk = tp("wslink"), *file = tp("ws/src/a.c");

	wst_symlink(W, T, "wslink");
	/* A symlinked workspace is its target. */
	ck_assert_int_eq(ws_ctx_open(&s, lnk, 0), 0);
	ck_assert_str_eq(s.anchors[0].real, W);
	ws_ctx_close(&s);
	ck_assert_int_eq(ws_ctx_open(&s, file, 0), WS_EWORKSPACE_NOT_FOUND);
	ws_ctx_close(&s);
	ck_assert_int_eq(ws_ctx_open(&s, "/nonexistent-wstest", 0),
			 WS_EWORKSPACE_NOT_FOUND);
	ws_ctx_close(&s);
	free(lnk);
	free(file);
}
END_TEST

START_TEST(trace_records_steps)
{
	struct ws_res r;
	bool saw_link = false;

	ck_assert_int_eq(ws_resolve(&ws, "lnk/a.c", WS_R_TRACE, &r), 0);
	for (size_t i = 0; i < r.nsteps; i++)
		if (strcmp(r.steps[i].kind, "symlink") == 0 &&
		    strstr(r.steps[i].text, "lnk -> src"))
			saw_link = true;
	ck_assert(saw_link);
	ck_assert_int_eq(r.hops, 1);
	ws_res_free(&r);
	/* Steps survive a failure, for --explain. */
	ck_assert_int_eq(ws_resolve(&ws, "esc_rel/secret", WS_R_TRACE, &r),
			 WS_ESYMLINK_OUTSIDE_WORKSPACE);
	ck_assert(r.nsteps >= 3);
	ws_res_free(&r);
}
END_TEST

/* A thread swaps a directory with a symlink to outside, again and again. */
static atomic_int stop_race;

static void *
swapper(void *arg)
{
	int dfd = open(W, O_PATH | O_DIRECTORY);

	(void)arg;
	while (!atomic_load(&stop_race))
		syscall(SYS_renameat2, dfd, "swap", dfd, "swap_tmp", RENAME_EXCHANGE);
	close(dfd);
	return NULL;
}

START_TEST(race_swap_dir_for_symlink)
{
	pthread_t th;
	char *out = tp("outside");
	int reads = 0, refused = 0;

	wst_write(T, "ws/swap/secret", "INSIDE");
	wst_symlink(out, T, "ws/swap_tmp");
	atomic_store(&stop_race, 0);
	pthread_create(&th, NULL, swapper, NULL);
	/* At least 10,000 attempts, more (up to 200,000) until both outcomes
	 * were seen: under load the swapper thread may run late. */
	for (int i = 0, runs = wst_race_iterations(10000);
	     i < runs || ((reads == 0 || refused == 0) && i < 20 * runs); i++) {
		struct ws_res r;
		char buf[64] = "";
		int fd;

		mode = (i & 1) ? WS_R_SLOW : 0;
		if (ws_resolve(&ws, "swap/secret", mode, &r) < 0) {
			refused++;
			continue;
		}
		ck_assert_msg(strncmp(r.real, W, strlen(W)) == 0, "escaped: %s", r.real);
		if (ws_res_open(&r, O_RDONLY, &fd) == 0) {
			ssize_t n = read(fd, buf, sizeof(buf) - 1);

			if (n > 0)
				buf[n] = '\0';
			close(fd);
			ck_assert_msg(strcmp(buf, "OUTSIDE") != 0, "read outside at %d", i);
			reads++;
		}
		ws_res_free(&r);
	}
	atomic_store(&stop_race, 1);
	pthread_join(th, NULL);
	/* Both outcomes must have happened for the test to mean anything. */
	ck_assert_int_gt(reads, 0);
	ck_assert_int_gt(refused, 0);
	free(out);
}
END_TEST


/* Regressions from the security review of the resolver. */

/* mkdir -p a chain of n directories named name below the cwd, and cd in. */
static void
deep_chdir(const char *name, int n)
{
	for (int i = 0; i < n; i++) {
		mkdir(name, 0755);
		ck_assert_int_eq(chdir(name), 0);
	}
}

START_TEST(real_path_longer_than_path_max)
{
	/* The fast path cannot readlink a parent over PATH_MAX: fall back. */
	char comp[201], *root = NULL, rel[2000] = "";
	struct ws_ctx s;
	struct ws_res r;
	int fd;

	memset(comp, 'c', 200);
	comp[200] = '\0';
	ck_assert_int_eq(chdir(T), 0);
	deep_chdir(comp, 15); /* a root about 3000 bytes long */
	root = getcwd(NULL, 0);
	ck_assert_ptr_nonnull(root);
	deep_chdir(comp, 6);
	fd = open("f", O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	for (int i = 0; i < 6; i++) {
		strcat(rel, comp);
		strcat(rel, "/");
	}
	strcat(rel, "f");
	ck_assert_int_eq(ws_ctx_open(&s, root, 0), 0);
	BOTH_MODES {
		ck_assert_int_eq(ws_resolve(&s, rel, mode, &r), 0);
		ck_assert_uint_gt(strlen(r.real), 4096);
		ck_assert(S_ISREG(r.st.st_mode));
		ws_res_free(&r);
	}
	ws_ctx_close(&s);
	ck_assert_int_eq(chdir("/"), 0);
	free(root);
}
END_TEST

START_TEST(dotdot_in_links_is_not_quadratic)
{
	/* 800 levels deep, 39 links each climbing 300 levels and back: a
	 * re-walk from the anchor per ".." took about 10 s here. */
	char *deep = malloc(4096), *target = malloc(4096), name[16];
	struct timespec t0, t1;
	struct ws_res r;
	int rc;

	ck_assert_int_eq(chdir(W), 0);
	deep[0] = '\0';
	for (int i = 0; i < 800; i++)
		strcat(deep, "d/");
	deep_chdir("d", 801);
	ck_assert_int_eq(chdir(".."), 0);
	for (int i = 1; i < 40; i++) {
		target[0] = '\0';
		for (int k = 0; k < 300; k++)
			strcat(target, "d/../");
		snprintf(name, sizeof(name), "L%d", i + 1);
		strcat(target, name);
		snprintf(name, sizeof(name), "L%d", i);
		ck_assert_int_eq(symlink(target, name), 0);
	}
	ck_assert_int_eq(symlink("d", "L40"), 0);
	ck_assert_int_eq(chdir("/"), 0);
	strcat(deep, "L1/missing");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = ws_resolve(&ws, deep, WS_R_MISSING_OK, &r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_msg(rc == 0, "%s", ws_error_last());
	ck_assert(!r.exists);
	ws_res_free(&r);
	ck_assert_msg(t1.tv_sec - t0.tv_sec < 2, "took %ld s", (long)(t1.tv_sec - t0.tv_sec));
	free(deep);
	free(target);
}
END_TEST

START_TEST(nested_mounts_shadow)
{
	struct ws_ctx s;
	struct ws_res r;
	char *a = NULL, *b = NULL, *x = tp("outer"), *y = tp("inner"), *v = NULL;
	char *hidden = tp("outer/b/f");

	wst_write(T, "outer/b/f", "HIDDEN");
	wst_write(T, "outer/x/keep", "k");
	wst_write(T, "inner/f", "INNER");
	ck_assert(asprintf(&a, "/.a=%s", x) > 0);
	ck_assert(asprintf(&b, "/.a/b=%s:ro", y) > 0);
	ck_assert_int_eq(ws_ctx_open(&s, W, 0), 0);
	ck_assert_int_eq(ws_ctx_add_mount(&s, a), 0);
	ck_assert_int_eq(ws_ctx_add_mount(&s, b), 0);
	BOTH_MODES {
		ck_assert_int_eq(ws_resolve(&s, "/.a/x/../b/f", mode, &r), 0);
		ck_assert_str_eq(r.vpath, "/.a/b/f");
		ck_assert_str_eq(r.real + strlen(T), "/inner/f");
		ck_assert_int_eq(ws_res_check_writable(&s, &r), WS_EREAD_ONLY);
		ws_res_free(&r);
	}
	ck_assert_int_eq(ws_ctx_to_virtual(&s, hidden, &v), WS_EPATH_OUTSIDE_WORKSPACE);
	ws_ctx_close(&s);
	free(a);
	free(b);
	free(x);
	free(y);
	free(hidden);
}
END_TEST

START_TEST(ro_mount_of_the_root_stays_ro)
{
	struct ws_ctx s;
	struct ws_res r;
	char *spec = NULL;

	ck_assert(asprintf(&spec, "/.view=%s:ro", W) > 0);
	ck_assert_int_eq(ws_ctx_open(&s, W, 0), 0);
	ck_assert_int_eq(ws_ctx_add_mount(&s, spec), 0);
	BOTH_MODES {
		ck_assert_int_eq(ws_resolve(&s, "/.view/src/new", WS_R_MISSING_OK | mode, &r), 0);
		ck_assert_int_eq(ws_res_check_writable(&s, &r), WS_EREAD_ONLY);
		ws_res_free(&r);
		ck_assert_int_eq(ws_resolve(&s, "/src/new", WS_R_MISSING_OK | mode, &r), 0);
		ck_assert_int_eq(ws_res_check_writable(&s, &r), 0);
		ws_res_free(&r);
	}
	ws_ctx_close(&s);
	free(spec);
}
END_TEST

START_TEST(open_never_truncates_a_swapped_file)
{
	struct ws_res r;
	char *f = tp("ws/src/t"), *g = tp("ws/src/g"), *data;
	int fd;

	wst_write(T, "ws/src/t", "T");
	wst_write(T, "ws/src/g", "KEEP ME");
	ck_assert_int_eq(ws_resolve(&ws, "src/t", 0, &r), 0);
	ck_assert_int_eq(rename(g, f), 0);
	ck_assert_int_eq(ws_res_open(&r, O_WRONLY | O_TRUNC, &fd), WS_EIO_ERROR);
	data = wst_slurp(f, NULL);
	ck_assert_str_eq(data, "KEEP ME");
	free(data);
	ck_assert_int_eq(ws_res_open(&r, O_WRONLY | O_CREAT, &fd), WS_EINVALID_ARGUMENT);
	ws_res_free(&r);
	/* On the right file, O_TRUNC still truncates. */
	ck_assert_int_eq(ws_resolve(&ws, "src/t", 0, &r), 0);
	ck_assert_int_eq(ws_res_open(&r, O_WRONLY | O_TRUNC, &fd), 0);
	close(fd);
	data = wst_slurp(f, NULL);
	ck_assert_str_eq(data, "");
	free(data);
	ws_res_free(&r);
	free(f);
	free(g);
}
END_TEST

START_TEST(limits_after_backslashes_and_messages)
{
	char p[600];
	struct ws_res r;

	BOTH_MODES {
		memset(p, 'a', 200);
		p[200] = '\\';
		memset(p + 201, 'b', 200);
		p[401] = '\0';
		{
			char *want = NULL;

			ck_assert(asprintf(&want, "ws/%.200s/%s", p, p + 201) > 0);
			ok(p, WS_R_MISSING_OK, want);
			free(want);
		}
	}
	memset(p, 'a', 300);
	p[300] = '\0';
	ck_assert_int_eq(ws_resolve(&ws, p, 0, &r), WS_EINVALID_PATH);
	ck_assert(strstr(ws_error_last(), "255") != NULL);
	BOTH_MODES {
		err("src/a.c/.", 0, WS_ENOT_A_DIRECTORY);
		ok("src/.", 0, "ws/src");
	}
}
END_TEST

/*
 * Kernel pseudo-filesystems are told apart by statfs f_type (sign-extended
 * too), and ws_res_open() refuses their files before opening them, while
 * their directories still open for listing.
 */
START_TEST(pseudo_filesystems)
{
	struct ws_ctx root;
	struct ws_res res;
	int fd;

	ck_assert_str_eq(ws_fs_pseudo_name(0x9fa0), "procfs");
	ck_assert_str_eq(ws_fs_pseudo_name(0x62656572), "sysfs");
	ck_assert_str_eq(ws_fs_pseudo_name((unsigned long)(long)(int32_t)0xcafe4a11),
			 "bpffs");
	ck_assert_str_eq(ws_fs_pseudo_name(0x74726163), "tracefs");
	ck_assert_ptr_null(ws_fs_pseudo_name(0xef53));	    /* ext4 */
	ck_assert_ptr_null(ws_fs_pseudo_name(0x01021994)); /* tmpfs */

	fd = open("/proc/self/status", O_PATH | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ws_fd_check_fs(fd), WS_ENOT_A_REGULAR_FILE);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "on procfs"));
	close(fd);
	fd = open(W, O_PATH | O_CLOEXEC);
	ck_assert_int_eq(ws_fd_check_fs(fd), 0);
	close(fd);

	ck_assert_int_eq(ws_ctx_open(&root, "/", 0), 0);
	ck_assert_int_eq(ws_resolve(&root, "/proc/self/status", 0, &res), 0);
	ck_assert_int_eq(ws_res_open(&res, O_RDONLY, &fd), WS_ENOT_A_REGULAR_FILE);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(ws_res_open(&res, O_WRONLY | O_APPEND, &fd),
			 WS_ENOT_A_REGULAR_FILE);
	ws_res_free(&res);
	ck_assert_int_eq(ws_resolve(&root, "/proc/self", 0, &res), 0);
	ck_assert_int_eq(ws_res_open(&res, O_RDONLY | O_DIRECTORY, &fd), 0);
	close(fd);
	ws_res_free(&res);
	ws_ctx_close(&root);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("resolve");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, input_forms);
	tcase_add_test(tc, dotdot_everywhere);
	tcase_add_test(tc, sibling_prefixes);
	tcase_add_test(tc, symlinks);
	tcase_add_test(tc, create_targets);
	tcase_add_test(tc, fifo_never_blocks);
	tcase_add_test(tc, limits);
	tcase_add_test(tc, strict_mode);
	tcase_add_test(tc, seed000_cases);
	tcase_add_test(tc, seed001_mapping);
	tcase_add_test(tc, mounts);
	tcase_add_test(tc, workspace_root);
	tcase_add_test(tc, trace_records_steps);
	tcase_add_test(tc, race_swap_dir_for_symlink);
	tcase_add_test(tc, real_path_longer_than_path_max);
	tcase_add_test(tc, dotdot_in_links_is_not_quadratic);
	tcase_add_test(tc, nested_mounts_shadow);
	tcase_add_test(tc, ro_mount_of_the_root_stays_ro);
	tcase_add_test(tc, open_never_truncates_a_swapped_file);
	tcase_add_test(tc, limits_after_backslashes_and_messages);
	tcase_add_test(tc, pseudo_filesystems);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
