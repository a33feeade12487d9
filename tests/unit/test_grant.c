/*
 * test_grant.c - the file-system side of a policy's grants to a wsrun
 * command (lib/grant.c): what is opened, on which descriptor, and what is
 * never granted whatever the policy says.
 *
 * The grant directories live in the current directory (the build tree)
 * or /var/cache, never under /tmp, TMPDIR or HOME, which are never
 * granted; so does the workspace.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wstest.h"
#include "ws/error.h"
#include "ws/grant.h"
#include "ws/persist.h"
#include "ws/sandbox.h"
#include "ws/workspace.h"

static char *W, *G;
static struct ws_ctx ws;

static void
setup(void)
{
	const char *tmpdir = getenv("TMPDIR");
	char cwd[PATH_MAX], tmpl[PATH_MAX + 32], real[PATH_MAX];
	bool in_tmp;

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	in_tmp = strncmp(cwd, "/tmp", 4) == 0 || strncmp(cwd, "/var/tmp", 8) == 0 ||
		 strncmp(cwd, "/dev/", 5) == 0 || strncmp(cwd, "/run", 4) == 0 ||
		 (tmpdir != NULL && *tmpdir && strncmp(cwd, tmpdir, strlen(tmpdir)) == 0);
	/*
	 * Nor under the password file's HOME (a checkout in /root, as CI
	 * has it): home_from_password_file needs HOME refused for being
	 * HOME, not for holding the workspace.
	 */
	{
		const struct passwd *pw = getpwuid(getuid());
		size_t n = pw != NULL ? strlen(pw->pw_dir) : 0;

		if (n > 1 && strncmp(cwd, pw->pw_dir, n) == 0 &&
		    (cwd[n] == '/' || cwd[n] == '\0'))
			in_tmp = true;
	}
	snprintf(tmpl, sizeof(tmpl), "%s/wst-grant.XXXXXX", in_tmp ? "/var/cache" : cwd);
	ck_assert_msg(mkdtemp(tmpl) != NULL, "mkdtemp %s: %s", tmpl, strerror(errno));
	ck_assert_ptr_nonnull(realpath(tmpl, real));
	G = strdup(real);
	/* The workspace in G too: outside /tmp, which is refused first. */
	W = wst_path(G, "ws");
	wst_mkdir(W, "src");
	wst_write(G, "data/file", "x\n");
	wst_mkdir(G, "w/ro");
	wst_mkdir(G, "w2/ro");
	wst_mkdir(G, "home/.cache");
	wst_mkdir(G, "tmpd/x");
	wst_symlink("data", G, "link");
	wst_symlink(W, G, "to-ws");
	setenv("HOME", "/nonexistent-home", 1);
	unsetenv("TMPDIR");
	ck_assert_int_eq(ws_ctx_open(&ws, W, 0), 0);
}

static void
teardown(void)
{
	ws_ctx_close(&ws);
	wst_rmrf(G);
	free(W);
	free(G);
}

/* Candidates as ws_policy_grants() gives them: rel below G ("" for G),
 * or an absolute path. */
struct spec {
	const char *path;
	bool write, exec;
};

static struct ws_policy_grant *
cands(const struct spec *s, size_t n)
{
	struct ws_policy_grant *v = calloc(n, sizeof(*v));

	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < n; i++) {
		char name[24];

		snprintf(name, sizeof(name), "r%zu", i);
		v[i].rule = strdup(name);
		v[i].dir = s[i].path[0] == '/' ? strdup(s[i].path)
		       : s[i].path[0] == '\0' ? strdup(G) : wst_path(G, s[i].path);
		v[i].write = s[i].write;
		v[i].exec = s[i].exec;
		v[i].fd = -1;
	}
	return v;
}

static void
expect(const struct ws_policy_grant *g, bool granted, const char *why)
{
	ck_assert_msg(g->granted == granted, "%s: granted %d (%s)", g->dir,
		      g->granted, g->why);
	ck_assert_msg(granted == (g->fd >= 0), "%s: fd %d", g->dir, g->fd);
	if (why != NULL)
		ck_assert_msg(strstr(g->why, why) != NULL, "%s: \"%s\" not in \"%s\"",
			      g->dir, why, g->why);
}

START_TEST(opened_without_symlinks)
{
	const struct spec s[] = {
		{"data", false, false},	     /* 0 granted */
		{"link", false, false},	     /* 1 a symlink itself */
		{"link/sub", false, false},  /* 2 a symlink on the way */
		{"to-ws/src", true, false},  /* 3 through a link into the workspace */
		{"missing", false, false},   /* 4 skipped */
		{"data/file", false, false}, /* 5 not a directory */
	};
	struct ws_policy_grant *v = cands(s, 6);
	struct stat a, b;
	char *data = wst_path(G, "data");

	ck_assert_int_eq(ws_grants_check(&ws, v, 6, NULL, NULL, 0), 0);
	expect(&v[0], true, NULL);
	/* The descriptor is the directory that was checked. */
	ck_assert_int_eq(fstat(v[0].fd, &a), 0);
	ck_assert_int_eq(stat(data, &b), 0);
	ck_assert(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	expect(&v[1], false, "symlink");
	expect(&v[2], false, "symlink");
	expect(&v[3], false, "symlink");
	expect(&v[4], false, "does not exist");
	ck_assert(!v[4].refused);
	expect(&v[5], false, "not a directory");
	ck_assert_uint_eq(ws_grants_count(v, 6), 1);
	ws_policy_grants_free(v, 6);
	free(data);
}
END_TEST

START_TEST(never_granted)
{
	char home[PATH_MAX + 16], tmpd[PATH_MAX + 16];
	const struct spec s[] = {
		{"/", false, false},	      /* 0 */
		{"/etc", false, false},	      /* 1 */
		{"/etc/ssh", false, false},   /* 2 */
		{"/proc/self", false, false}, /* 3 */
		{"/usr/share", true, false},  /* 4 */
		{"/opt", true, false},	      /* 5 */
		{"/tmp", true, false},	      /* 6 */
		{"home", false, false},	      /* 7 HOME */
		{"", false, false},	      /* 8 above HOME */
		{"home/.cache", false, false},/* 9 in HOME: allowed */
		{"tmpd/x", true, false},      /* 10 in TMPDIR */
	};
	struct ws_policy_grant *v = cands(s, 11);

	snprintf(home, sizeof(home), "%s/home", G);
	snprintf(tmpd, sizeof(tmpd), "%s/tmpd", G);
	setenv("HOME", home, 1);
	setenv("TMPDIR", tmpd, 1);
	ck_assert_int_eq(ws_grants_check(&ws, v, 11, NULL, NULL, 0), 0);
	for (int i = 0; i <= 6; i++)
		expect(&v[i], false, "never granted");
	expect(&v[1], false, "/etc");
	expect(&v[3], false, "/proc");
	expect(&v[7], false, "HOME");
	expect(&v[8], false, "never granted");
	expect(&v[9], true, NULL);
	expect(&v[10], false, "TMPDIR");
	ws_policy_grants_free(v, 11);
}
END_TEST

/*
 * HOME the environment cannot be trusted with ("/", relative, unset):
 * the password file's is never granted.
 */
/*
 * ws_passwd_home() (/etc/passwd read by libws, thread-safe for wstools
 * mcp's threads) says what getpwuid() says for the caller's uid.
 */
START_TEST(passwd_home_as_getpwuid)
{
	const struct passwd *pw = getpwuid(getuid());
	char *h = ws_passwd_home();

	if (pw == NULL || pw->pw_dir == NULL) {
		ck_assert_ptr_null(h);
		return;
	}
	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(h, pw->pw_dir);
	free(h);
}
END_TEST

START_TEST(home_from_password_file)
{
	const struct passwd *pw = getpwuid(getuid());
	const char *bad[] = {"/", "relative/home", NULL};
	const struct spec s[] = {{"/", false, false}};
	struct stat st;

	if (pw == NULL || pw->pw_dir[0] != '/' || strcmp(pw->pw_dir, "/") == 0 ||
	    stat(pw->pw_dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return; /* nothing to check */
	for (int k = 0; k < 3; k++) {
		struct ws_policy_grant *v = cands(s, 1);

		free(v[0].dir);
		v[0].dir = strdup(pw->pw_dir);
		if (bad[k] != NULL)
			setenv("HOME", bad[k], 1);
		else
			unsetenv("HOME");
		ck_assert_int_eq(ws_grants_check(&ws, v, 1, NULL, NULL, 0), 0);
		expect(&v[0], false, "HOME");
		ws_policy_grants_free(v, 1);
	}
	setenv("HOME", "/nonexistent-home", 1);
}
END_TEST

/*
 * With a scratch HOME, the password file's home is still the user's: a
 * write grant of it (it holds ~/.bashrc, ~/.config/systemd) is read
 * only, as for HOME's own (sec18h: grants looked at HOME's alone).
 */
START_TEST(passwd_home_places_read_only)
{
	const struct passwd *pw = getpwuid(getuid());
	const struct spec s[] = {{"/", true, false}};
	char home[PATH_MAX + 16];
	struct ws_policy_grant *v;
	struct stat st;

	if (pw == NULL || pw->pw_dir[0] != '/' || strcmp(pw->pw_dir, "/") == 0 ||
	    stat(pw->pw_dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return; /* nothing to check */
	v = cands(s, 1);
	free(v[0].dir);
	v[0].dir = strdup(pw->pw_dir);
	snprintf(home, sizeof(home), "%s/home", G);
	setenv("HOME", home, 1);
	ck_assert_int_eq(ws_grants_check(&ws, v, 1, NULL, NULL, 0), 0);
	if (v[0].granted) {
		ck_assert_msg(!v[0].write, "%s granted read-write", v[0].dir);
		ck_assert_msg(strstr(v[0].why, "persistence places") != NULL,
			      "%s", v[0].why);
	}
	ws_policy_grants_free(v, 1);
	setenv("HOME", "/nonexistent-home", 1);
}
END_TEST

START_TEST(boundary_kept)
{
	char *priv = wst_path(G, "w2");
	const struct spec s[] = {
		{W, false, false},		/* 0 the workspace: nothing to add */
		{"/src", false, false},		/* 1 placeholder, set below */
		{"", false, false},		/* 2 above the workspace */
		{"w2", true, false},		/* 3 the private directory */
		{"w2/ro", true, false},		/* 4 inside it */
	};
	struct ws_policy_grant *v = cands(s, 5);

	free(v[1].dir);
	v[1].dir = wst_path(W, "src");
	ck_assert_int_eq(ws_grants_check(&ws, v, 5, priv, NULL, 0), 0);
	expect(&v[0], false, "nothing to add");
	ck_assert(!v[0].refused);
	expect(&v[1], false, "nothing to add");
	expect(&v[2], false, "holds the workspace");
	expect(&v[3], false, "private");
	expect(&v[4], false, "private");
	ws_policy_grants_free(v, 5);
	free(priv);
}
END_TEST

START_TEST(merged_and_read_only_inside)
{
	char *ro = wst_path(G, "w2/ro");
	struct ws_sandbox_path ros[] = {{.fd = open(ro, O_PATH | O_CLOEXEC),
					 .path = ro, .tree = -1, .asked = true}};
	const struct spec s[] = {
		{"data", false, false}, /* 0 */
		{"data", true, true},	/* 1 the same: merged into 0 */
		{"w", true, false},	/* 2 holds 3, read: becomes read */
		{"w/ro", false, false}, /* 3 */
		{"w2", true, false},	/* 4 holds --allow-read w2/ro: read */
	};
	struct ws_policy_grant *v = cands(s, 5);
	struct ws_sandbox_plan plan = {.cwd_fd = -1, .priv_fd = -1};

	ck_assert_int_eq(ws_grants_check(&ws, v, 5, NULL, ros, 1), 0);
	expect(&v[0], true, NULL);
	ck_assert(v[0].write && v[0].exec);
	expect(&v[1], false, "r0");
	expect(&v[2], true, "read only");
	ck_assert(!v[2].write);
	expect(&v[3], true, NULL);
	expect(&v[4], true, "read only");
	ck_assert(!v[4].write);
	/* Into a plan: the descriptors move, exec only where allowed. */
	ck_assert_int_eq(ws_grants_add(v, 5, &plan), 0);
	ck_assert_uint_eq(plan.npaths, 4);
	ck_assert(plan.paths[0].write && !plan.paths[0].noexec);
	ck_assert(!plan.paths[1].write && plan.paths[1].noexec);
	for (size_t i = 0; i < 5; i++)
		ck_assert_int_eq(v[i].fd, -1);
	ws_sandbox_plan_free(&plan);
	ws_policy_grants_free(v, 5);
	close(ros[0].fd);
	free(ro);
}
END_TEST

/*
 * One write grant of G/w3 and one read-only path, given as the plan
 * holds it (an O_PATH descriptor opened through its name, symlinks
 * followed, as ws_sandbox_plan_fill() opens --allow-read): whether the
 * grant was narrowed to read, and why.
 */
static int
check_one(const char *ro_name, bool write, char *why, size_t len)
{
	const struct spec s[] = {{"w3", true, false}};
	struct ws_policy_grant *v = cands(s, 1);
	struct ws_sandbox_path ro = {.fd = open(ro_name, O_PATH | O_CLOEXEC),
				     .path = (char *)ro_name, .tree = -1,
				     .write = write, .asked = true};
	int rc;

	ck_assert_msg(ro.fd >= 0, "open %s: %s", ro_name, strerror(errno));
	rc = ws_grants_check(&ws, v, 1, NULL, &ro, 1);
	if (rc == 0) {
		expect(&v[0], true, NULL);
		snprintf(why, len, "%s", v[0].why);
		rc = !v[0].write;
	} else {
		expect(&v[0], false, NULL);
		snprintf(why, len, "%s", ws_error_last());
	}
	close(ro.fd);
	ws_policy_grants_free(v, 1);
	return rc;
}

static bool
narrowed(const char *ro_name, char *why, size_t len)
{
	int rc = check_one(ro_name, false, why, len);

	ck_assert_msg(rc >= 0, "%s: refused: %s", ro_name, why);
	return rc == 1;
}

/*
 * --allow-read of what lies in a write grant narrows the grant, decided
 * on the descriptor, whatever name it was given by: a symlink outside
 * to a file or directory inside, a hard link outside of a file inside.
 * What lies outside (a file beside it, a symlink from inside to
 * outside) does not.
 */
START_TEST(narrowed_by_descriptor)
{
	char why[512];
	char *in_file = wst_path(G, "w3/secret.txt");
	char *out_file = wst_path(G, "outside.txt");
	char *hard = wst_path(G, "hard.txt");
	char *lnk_file = wst_path(G, "to-secret");
	char *lnk_dir = wst_path(G, "to-w3-sub");
	char *in_lnk = wst_path(G, "w3/to-outside");

	wst_write(G, "w3/secret.txt", "s\n");
	wst_mkdir(G, "w3/sub");
	wst_write(G, "outside.txt", "o\n");
	wst_symlink(in_file, G, "to-secret");
	wst_symlink("w3/sub", G, "to-w3-sub");
	wst_symlink(out_file, G, "w3/to-outside");

	ck_assert_msg(narrowed(lnk_file, why, sizeof(why)), "%s", why);
	ck_assert_msg(strstr(why, "holds") != NULL, "%s", why);
	ck_assert_msg(narrowed(lnk_dir, why, sizeof(why)), "%s", why);
	ck_assert_msg(!narrowed(out_file, why, sizeof(why)), "%s", why);
	/* A second link of the file inside, made outside: its name
	 * (realpath) is outside, its inode is writable through the grant. */
	ck_assert_int_eq(link(in_file, hard), 0);
	ck_assert_msg(narrowed(hard, why, sizeof(why)), "%s", why);
	ck_assert_msg(strstr(why, "may hold") != NULL, "%s", why);
	free(in_file);
	free(out_file);
	free(hard);
	free(lnk_file);
	free(lnk_dir);
	free(in_lnk);
}
END_TEST

/*
 * A private mount namespace for this test's process (root only), with
 * the workspace opened again in it: a descriptor opened before is on a
 * mount of the old namespace, which this one's mountinfo does not list.
 */
static bool
private_mounts(void)
{
	if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return false;
	ws_ctx_close(&ws);
	ck_assert_int_eq(ws_ctx_open(&ws, W, 0), 0);
	return true;
}

/*
 * A name given through a symlink inside a write grant that leads
 * outside it: the command could have planted or re-pointed that link in
 * an earlier call, so what the caller grants would be the command's
 * choice (here a file and a directory outside; root's keys, /etc/shadow
 * in the repro tests/review/grant_allow_read_symlink.sh), and the grant would
 * stay writable.  The call is refused, for --allow-write too, however the
 * name is spelled (relative).  A link in the grant that stays inside it
 * narrows as before.
 */
START_TEST(refused_when_repointable)
{
	char why[512], cwd[PATH_MAX];
	char *out_file = wst_path(G, "outside.txt");
	char *out_dir = wst_path(G, "outside-dir");
	char *lnk_file = wst_path(G, "w3/to-outside");
	char *lnk_dir = wst_path(G, "w3/to-outside-dir");
	char *lnk_deep = wst_path(G, "w3/to-outside-dir/deeper");
	char *lnk_in = wst_path(G, "w3/to-sub");

	wst_write(G, "outside.txt", "o\n");
	wst_mkdir(G, "outside-dir/deeper");
	wst_mkdir(G, "w3/sub");
	wst_symlink(out_file, G, "w3/to-outside");
	wst_symlink("../outside-dir", G, "w3/to-outside-dir");
	wst_symlink("sub", G, "w3/to-sub");

	ck_assert_int_eq(check_one(lnk_file, false, why, sizeof(why)),
			 WS_EPOLICY_DENIED);
	ck_assert_msg(strstr(why, "symlink") != NULL, "%s", why);
	ck_assert_int_eq(check_one(lnk_dir, false, why, sizeof(why)),
			 WS_EPOLICY_DENIED);
	ck_assert_int_eq(check_one(lnk_deep, false, why, sizeof(why)),
			 WS_EPOLICY_DENIED);
	ck_assert_int_eq(check_one(lnk_dir, true, why, sizeof(why)),
			 WS_EPOLICY_DENIED);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(G), 0);
	ck_assert_int_eq(check_one("w3/to-outside", false, why, sizeof(why)),
			 WS_EPOLICY_DENIED);
	ck_assert_int_eq(chdir(cwd), 0);
	/* "..", after a link outside that leads into the grant: the kernel
	 * goes up from where the link led (w3), and on to the link there. */
	wst_symlink(lnk_in, G, "to-w3-sub");
	{
		char *dd = wst_path(G, "to-w3-sub/../to-outside");
		char *plain = wst_path(G, "w3/sub/../sub");

		ck_assert_int_eq(check_one(dd, false, why, sizeof(why)),
				 WS_EPOLICY_DENIED);
		/* A ".." with no symlink is what it says. */
		ck_assert_msg(narrowed(plain, why, sizeof(why)), "%s", why);
		free(dd);
		free(plain);
	}
	/* Inside, through a link inside: narrowed, not refused. */
	ck_assert_msg(narrowed(lnk_in, why, sizeof(why)), "%s", why);
	/* What is outside, named directly: neither. */
	ck_assert_msg(!narrowed(out_file, why, sizeof(why)), "%s", why);
	free(out_file);
	free(out_dir);
	free(lnk_file);
	free(lnk_dir);
	free(lnk_deep);
	free(lnk_in);
}
END_TEST

/*
 * A file beneath the grant with a device of its own, on the grant's own
 * mount: an overlay whose lower layer is another file system (a tmpfs)
 * gives its files that layer's st_dev.  It is still beneath the grant,
 * which is narrowed (it was taken for "another file system" by st_dev).
 * Needs root; says so when not checked.
 */
START_TEST(narrowed_on_an_overlay)
{
	char why[512], opts[3 * PATH_MAX + 64];
	char *lower = wst_path(G, "lower"), *upper = wst_path(G, "upper");
	char *work = wst_path(G, "work"), *w3 = wst_path(G, "w3");
	char *f = wst_path(G, "w3/lowfile");
	struct stat a, b;

	if (!private_mounts()) {
		fprintf(stderr, "narrowed_on_an_overlay: not checked (%s)\n",
			geteuid() != 0 ? "not root" : strerror(errno));
		goto out;
	}
	wst_mkdir(G, "lower");
	wst_mkdir(G, "upper");
	wst_mkdir(G, "work");
	wst_mkdir(G, "w3");
	ck_assert_msg(mount("tmpfs", lower, "tmpfs", 0, NULL) == 0, "tmpfs: %s",
		      strerror(errno));
	wst_write(lower, "lowfile", "l\n");
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower,
		 upper, work);
	if (mount("overlay", w3, "overlay", 0, opts) < 0) {
		fprintf(stderr, "narrowed_on_an_overlay: not checked (overlay: %s)\n",
			strerror(errno));
		umount2(lower, MNT_DETACH);
		goto out;
	}
	/* The case itself: a device of its own, beneath the grant. */
	ck_assert_int_eq(stat(w3, &a), 0);
	ck_assert_int_eq(stat(f, &b), 0);
	if (a.st_dev == b.st_dev)
		fprintf(stderr, "narrowed_on_an_overlay: the file has the "
			"overlay's device here (not the case checked)\n");
	ck_assert_msg(narrowed(f, why, sizeof(why)), "%s", why);
	umount2(w3, MNT_DETACH);
	umount2(lower, MNT_DETACH);
out:
	free(lower);
	free(upper);
	free(work);
	free(w3);
	free(f);
}
END_TEST

/*
 * The same directory by another mount (a bind of part of the grant
 * elsewhere): its name says outside, walking up from it never meets the
 * grant (".." at the bind's root leaves for the mount's parent), yet it
 * is writable through the grant.  Needs root (a private mount
 * namespace for this test's process); says so when not checked.
 */
START_TEST(narrowed_through_a_bind)
{
	char why[512];
	char *w3 = wst_path(G, "w3/sub");
	char *bind = wst_path(G, "bind-of-w3");
	char *via = wst_path(G, "bind-of-w3/deeper");
	char *beside = wst_path(G, "beside");
	char *f = wst_path(G, "w3/sub/f"), *f2 = wst_path(G, "w3/sub/f2");
	char *fvia = wst_path(G, "bind-of-w3/f2");

	if (!private_mounts()) {
		fprintf(stderr, "narrowed_through_a_bind: not checked (%s)\n",
			geteuid() != 0 ? "not root" : strerror(errno));
		goto out;
	}
	wst_mkdir(G, "w3/sub/deeper");
	wst_mkdir(G, "bind-of-w3");
	ck_assert_msg(mount(w3, bind, NULL, MS_BIND, NULL) == 0, "bind: %s",
		      strerror(errno));
	ck_assert_msg(narrowed(via, why, sizeof(why)), "%s", why);
	ck_assert_msg(strstr(why, "holds") != NULL, "%s", why);
	/* A hard-linked file there: one of its links may be beneath. */
	wst_write(G, "w3/sub/f", "f\n");
	ck_assert_int_eq(link(f, f2), 0);
	ck_assert_msg(narrowed(fvia, why, sizeof(why)), "%s", why);
	ck_assert_msg(strstr(why, "may hold") != NULL, "%s", why);
	umount2(bind, MNT_DETACH);
	/* A bind of what lies beside the grant, on its file system (where
	 * it lies there is told from mountinfo): not narrowed. */
	wst_mkdir(G, "beside/deeper");
	ck_assert_msg(mount(beside, bind, NULL, MS_BIND, NULL) == 0, "bind: %s",
		      strerror(errno));
	ck_assert_msg(!narrowed(via, why, sizeof(why)), "%s", why);
	umount2(bind, MNT_DETACH);
out:
	free(w3);
	free(bind);
	free(via);
	free(beside);
	free(f);
	free(f2);
	free(fvia);
}
END_TEST

/*
 * A grant that holds the workspace by another path: the workspace is
 * opened through a bind of a directory inside the grant, so neither its
 * name nor a walk up from it (which leaves the bind at its root) meets
 * the grant, and the guards bound read-only at the workspace's path
 * (.git/hooks, .git/config) would be writable at the grant's
 * (tests/review/grant_workspace_alias.sh).  Refused, read or write.  A bind of
 * what lies beside the grant is not its business.  Needs root.
 */
START_TEST(refused_holding_the_workspace_by_a_bind)
{
	const struct spec s[] = {{"w3", true, false}, {"w3", false, false}};
	char *sub = wst_path(G, "w3/sub"), *bind = wst_path(G, "wsbind");
	char *beside = wst_path(G, "beside"), *proj = wst_path(G, "wsbind/proj");
	struct ws_policy_grant *v;

	if (!private_mounts()) {
		fprintf(stderr, "refused_holding_the_workspace_by_a_bind: not "
			"checked\n");
		goto out;
	}
	wst_mkdir(G, "w3/sub/proj/.git/hooks");
	wst_mkdir(G, "beside/proj");
	wst_mkdir(G, "wsbind");
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(mount(k == 0 ? sub : beside, bind, NULL, MS_BIND,
				       NULL), 0);
		ws_ctx_close(&ws);
		ck_assert_int_eq(ws_ctx_open(&ws, proj, 0), 0);
		for (int i = 0; i < 2; i++) {
			v = cands(&s[i], 1);
			ck_assert_int_eq(ws_grants_check(&ws, v, 1, NULL, NULL, 0), 0);
			if (k == 0)
				expect(&v[0], false, "by another path");
			else
				expect(&v[0], true, NULL);
			ws_policy_grants_free(v, 1);
		}
		ws_ctx_close(&ws);
		ck_assert_int_eq(ws_ctx_open(&ws, W, 0), 0);
		umount2(bind, MNT_DETACH);
	}
out:
	free(sub);
	free(bind);
	free(beside);
	free(proj);
}
END_TEST

/*
 * The other way round: a grant inside the workspace by another path (in
 * a bind of the workspace's src elsewhere; the walk up from it leaves the
 * bind at its root, never meeting the workspace), which would bind the
 * workspace's guarded entries read-write at the grant's path
 * (tests/review/grant_inside_workspace_alias.sh).  And the workspace spelled
 * through a symlink in a bind of part of a write grant: the command could
 * re-point it, and the next call would run in a workspace of its choosing
 * (tests/review/grant_spelling_alias.sh); a read grant may hold it.  Needs root.
 */
START_TEST(refused_by_a_bind_the_other_way)
{
	const struct spec in[] = {{"wsbind/deeper", true, false}};
	const struct spec w3[] = {{"w3", true, false}, {"w3", false, false}};
	char *src = wst_path(W, "src"), *bind = wst_path(G, "wsbind");
	char *sub = wst_path(G, "w3/sub"), *real = wst_path(G, "realws");
	char *spelled = wst_path(G, "wsbind/link");
	struct ws_policy_grant *v;

	if (!private_mounts()) {
		fprintf(stderr, "refused_by_a_bind_the_other_way: not checked\n");
		goto out;
	}
	wst_mkdir(W, "src/deeper");
	wst_mkdir(G, "wsbind");
	ck_assert_int_eq(mount(src, bind, NULL, MS_BIND, NULL), 0);
	v = cands(in, 1);
	ck_assert_int_eq(ws_grants_check(&ws, v, 1, NULL, NULL, 0), 0);
	expect(&v[0], false, "by another path");
	ws_policy_grants_free(v, 1);
	umount2(bind, MNT_DETACH);

	wst_mkdir(G, "realws");
	wst_mkdir(G, "w3/sub");
	wst_symlink(real, G, "w3/sub/link");
	ck_assert_int_eq(mount(sub, bind, NULL, MS_BIND, NULL), 0);
	ws_ctx_close(&ws);
	ck_assert_int_eq(ws_ctx_open(&ws, spelled, 0), 0);
	for (int i = 0; i < 2; i++) {
		v = cands(&w3[i], 1);
		ck_assert_int_eq(ws_grants_check(&ws, v, 1, NULL, NULL, 0), 0);
		if (i == 0)
			expect(&v[0], false, "by another path");
		else
			expect(&v[0], true, NULL);
		ws_policy_grants_free(v, 1);
	}
	ws_ctx_close(&ws);
	ck_assert_int_eq(ws_ctx_open(&ws, W, 0), 0);
	umount2(bind, MNT_DETACH);
out:
	free(src);
	free(bind);
	free(sub);
	free(real);
	free(spelled);
}
END_TEST

/*
 * A grant of the very directory the caller named with --allow-write or
 * --allow-read is left to the caller's flag: bound after it, a read
 * grant made the caller's --allow-write read-only.
 */
START_TEST(caller_flag_wins_for_the_same_directory)
{
	const struct spec s[] = {{"w3", false, false}, {"w3", true, true}};
	char *w3 = wst_path(G, "w3");

	wst_mkdir(G, "w3");
	for (int k = 0; k < 2; k++) {
		struct ws_policy_grant *v = cands(&s[k], 1);
		struct ws_sandbox_path p = {.fd = open(w3, O_PATH | O_CLOEXEC),
					    .path = w3, .write = k == 0,
					    .tree = -1, .asked = true};

		ck_assert_int_ge(p.fd, 0);
		ck_assert_int_eq(ws_grants_check(&ws, v, 1, NULL, &p, 1), 0);
		expect(&v[0], false, k == 0 ? "given by --allow-write" :
					      "given by --allow-read");
		ck_assert(!v[0].refused);
		close(p.fd);
		ws_policy_grants_free(v, 1);
	}
	free(w3);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("grant");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, opened_without_symlinks);
	tcase_add_test(tc, never_granted);
	tcase_add_test(tc, home_from_password_file);
	tcase_add_test(tc, passwd_home_places_read_only);
	tcase_add_test(tc, passwd_home_as_getpwuid);
	tcase_add_test(tc, boundary_kept);
	tcase_add_test(tc, merged_and_read_only_inside);
	tcase_add_test(tc, narrowed_by_descriptor);
	tcase_add_test(tc, caller_flag_wins_for_the_same_directory);
	tcase_add_test(tc, narrowed_through_a_bind);
	tcase_add_test(tc, refused_when_repointable);
	tcase_add_test(tc, narrowed_on_an_overlay);
	tcase_add_test(tc, refused_holding_the_workspace_by_a_bind);
	tcase_add_test(tc, refused_by_a_bind_the_other_way);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
