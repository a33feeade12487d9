/* test_vcs.c - git configuration filter, and the clean-up of repositories. */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wstest.h"
#include "ws/error.h"
#include "ws/vcs.h"
#include "ws/workspace.h"

/* Filter text against old; *removed (or NULL) gets the removed keys. */
static char *
filter(const char *text, const char *old, char **removed)
{
	char *out = NULL, *rm = NULL;

	ck_assert_int_eq(ws_gitconfig_filter(text, strlen(text), old,
					     old ? strlen(old) : 0, NULL, NULL,
					     &out, &rm), 0);
	if (removed != NULL)
		*removed = rm;
	else
		free(rm);
	return out;
}

START_TEST(allowlist)
{
	ck_assert(ws_gitconfig_allowed("core.bare"));
	ck_assert(ws_gitconfig_allowed("remote.origin.url"));
	ck_assert(ws_gitconfig_allowed("remote.a.b.url"));
	ck_assert(ws_gitconfig_allowed("user.name"));
	ck_assert(!ws_gitconfig_allowed("core.fsmonitor"));
	ck_assert(!ws_gitconfig_allowed("core.hookspath"));
	ck_assert(!ws_gitconfig_allowed("core.worktree"));
	ck_assert(!ws_gitconfig_allowed("remote.url"));
	ck_assert(!ws_gitconfig_allowed("remote.o.uploadpack"));
	ck_assert(!ws_gitconfig_allowed("core.x.bare"));
	ck_assert(!ws_gitconfig_allowed("submodule.s.update"));
	ck_assert(!ws_gitconfig_allowed("merge.x.driver"));
	ck_assert(!ws_gitconfig_allowed("include.path"));
	ck_assert(!ws_gitconfig_allowed("core."));
	ck_assert(!ws_gitconfig_allowed("nodot"));
}
END_TEST

/* What git init and git clone write passes untouched. */
START_TEST(plain_configs_untouched)
{
	const char *init = "[core]\n\trepositoryformatversion = 0\n"
			   "\tfilemode = true\n\tbare = false\n"
			   "\tlogallrefupdates = true\n"
			   "[remote \"origin\"]\n\turl = https://x/y.git\n"
			   "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
			   "[branch \"main\"]\n\tremote = origin\n"
			   "\tmerge = refs/heads/main\n"
			   "# a comment\n; another\n[user]\n\tname = A B ; c\n";

	ck_assert_ptr_null(filter(init, NULL, NULL));
	/* What was there before stays, whatever the key. */
	ck_assert_ptr_null(filter("[diff \"pdf\"]\n\ttextconv = pdftotext\n",
				  "[diff \"pdf\"]\n  textconv = pdftotext\n", NULL));
}
END_TEST

/* The ways a key can be spelled all reach the filter. */
START_TEST(spellings_removed)
{
	static const struct {
		const char *text, *removed;
	} cases[] = {
		{"[core]\n\tfsmonitor = touch x\n", "core.fsmonitor"},
		{"[Core]\n\tFSMonitor = x\n", "core.fsmonitor"},
		{"[core] fsmonitor = x\n", "core.fsmonitor"},
		{"[core]fsmonitor=x\n", "core.fsmonitor"},
		{"[core]\n\tbare = false\n\tpager = \"x \\\n y\"\n", "core.pager"},
		{"[core]\n\tbare = a\\\n\tpager = x\n", NULL /* one value */},
		{"[include]\n\tpath = /etc/x\n", "include.path"},
		{"[includeIf \"gitdir:/\"]\n\tpath = x\n", "includeif.gitdir:/.path"},
		{"[filter.lfs]\n\tsmudge = x\n", "filter.lfs.smudge"},
		{"[alias]\n\tst = !sh\n", "alias.st"},
		{"[remote \"o\"]\n\turl = u\n\tuploadpack = x\n", "remote.o.uploadpack"},
		{"[core]\n\tbare = \"x ; y\" ; c\n\teditor = e\n", "core.editor"},
		{"[core]\r\n\tsshCommand = x\r\n", "core.sshcommand"},
		{"\xef\xbb\xbf[core]\n\thooksPath = /tmp\n", "core.hookspath"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *rm = NULL, *out = filter(cases[i].text, NULL, &rm);

		if (cases[i].removed == NULL) {
			ck_assert_msg(out == NULL, "%zu: %s", i, out);
			continue;
		}
		ck_assert_msg(out != NULL, "%zu: nothing removed", i);
		ck_assert_msg(rm != NULL && strcmp(rm, cases[i].removed) == 0,
			      "%zu: %s", i, rm ? rm : "(null)");
		/* What is written is read back without the key. */
		{
			char *again = filter(out, NULL, NULL);

			ck_assert_msg(again == NULL, "%zu: %s", i, again);
		}
		free(out);
		free(rm);
	}
}
END_TEST

/* A changed value of an old key is a new entry; text git refuses keeps
 * the allowlisted entries read before the error. */
START_TEST(changed_and_broken)
{
	char *rm = NULL, *out;

	out = filter("[diff \"pdf\"]\n\ttextconv = evil\n",
		     "[diff \"pdf\"]\n\ttextconv = pdftotext\n", &rm);
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(rm, "diff.pdf.textconv");
	free(out);
	free(rm);
	out = filter("[core]\n\tbare = false\n\tpager = x\n[broken\n\teditor = y\n",
		     NULL, &rm);
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(out, "[core]\n\tbare = false\n");
	ck_assert_ptr_nonnull(strstr(rm, "could not read"));
	free(out);
	free(rm);
	/* Values that need quotes keep them; subsections are quoted. */
	out = filter("[remote \"a\\\"b\"]\n\turl = \" x#y \"\n\tvcs = z\n", NULL, &rm);
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(out, "[remote \"a\\\"b\"]\n\turl = \" x#y \"\n");
	free(out);
	free(rm);
}
END_TEST

/*
 * Issue 18, 1 (review): without network, what chooses where the host's
 * git connects later is as it was: an old remote's url and pushurl, the
 * partial-clone keys, and a branch's or the default push remote naming
 * a remote that did not exist.  A new remote stays; insteadOf is off the
 * allowlist; with network (no flag) every allowlisted change stays.
 */
START_TEST(routes_pinned)
{
	const char *old = "[remote \"origin\"]\n\turl = /srv/o.git\n"
			  "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
			  "[branch \"main\"]\n\tremote = origin\n"
			  "\tpushremote = origin\n";
	const char *now = "[remote \"origin\"]\n\turl = https://evil/x\n"
			  "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
			  "\tpushurl = https://evil/y\n\tpromisor = true\n"
			  "\tpartialclonefilter = blob:none\n"
			  "[branch \"main\"]\n\tremote = origin\n"
			  "\tpushremote = evil\n"
			  "[branch \"dev\"]\n\tremote = https://evil/z\n\tmerge = x\n"
			  "[branch \"loc\"]\n\tremote = .\n"
			  "[remote \"evil\"]\n\turl = /srv/e.git\n"
			  "[remote]\n\tpushdefault = evil\n"
			  "[extensions]\n\tpartialclone = origin\n"
			  "[url \"https://evil/\"]\n\tinsteadOf = /srv/\n"
			  "\tpushInsteadOf = /srv/\n";
	char *out = NULL, *rm = NULL, *rs = NULL;

	ck_assert(!ws_gitconfig_allowed("url.https://evil/.insteadof"));
	ck_assert(!ws_gitconfig_allowed("url.https://evil/.pushinsteadof"));
	ck_assert_int_eq(ws_gitconfig_clean(now, strlen(now), old, strlen(old),
					    WS_GITCFG_PIN_ROUTES, &out, &rm, &rs), 0);
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(out, "[remote \"origin\"]\n\turl = /srv/o.git\n"
			 "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
			 "[branch \"main\"]\n\tremote = origin\n"
			 "\tpushremote = origin\n"
			 "[branch \"dev\"]\n\tmerge = x\n"
			 "[branch \"loc\"]\n\tremote = .\n"
			 "[remote \"evil\"]\n\turl = /srv/e.git\n");
	ck_assert_str_eq(rs, "remote.origin.url, branch.main.pushremote");
	ck_assert_str_eq(rm, "remote.origin.pushurl, remote.origin.promisor, "
			 "remote.origin.partialclonefilter, branch.dev.remote, "
			 "remote.pushdefault, extensions.partialclone, "
			 "url.https://evil/.insteadof, url.https://evil/.pushinsteadof");
	free(out);
	free(rm);
	free(rs);
	/* What it wrote is as it was: nothing more to do. */
	ck_assert_int_eq(ws_gitconfig_clean(old, strlen(old), old, strlen(old),
					    WS_GITCFG_PIN_ROUTES, &out, &rm, &rs), 0);
	ck_assert_ptr_null(out);
	ck_assert_ptr_null(rs);
	/* With network: only what is off the allowlist goes (insteadOf, and
	 * remote.pushdefault, which it never held). */
	ck_assert_int_eq(ws_gitconfig_clean(now, strlen(now), old, strlen(old), 0,
					    &out, &rm, &rs), 0);
	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_null(rs);
	ck_assert_str_eq(rm, "remote.pushdefault, url.https://evil/.insteadof, "
			 "url.https://evil/.pushinsteadof");
	free(out);
	free(rm);
	/* A repository the command made keeps its new remotes and routes;
	 * a partial clone's keys go. */
	now = "[remote \"origin\"]\n\turl = /srv/o.git\n\tpromisor = true\n"
	      "[branch \"main\"]\n\tremote = origin\n";
	ck_assert_int_eq(ws_gitconfig_clean(now, strlen(now), NULL, 0,
					    WS_GITCFG_PIN_ROUTES, &out, &rm, &rs), 0);
	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_null(rs);
	ck_assert_str_eq(rm, "remote.origin.promisor");
	free(out);
	free(rm);
}
END_TEST

static char *T, *W;

static void
setup(void)
{
	T = wst_tmpdir();
	W = wst_path(T, "ws");
	wst_mkdir(W, ".git/hooks");
	wst_write(W, ".git/HEAD", "ref: refs/heads/main\n");
	wst_write(W, ".git/config", "[core]\n\tbare = false\n[x]\n\ty = 1\n");
	wst_write(W, ".git/hooks/pre-commit", "mine\n");
	wst_mkdir(W, "a/.git/modules/s/hooks");
	wst_write(W, "a/.git/modules/s/config", "[core]\n\tbare = false\n");
}

static void
teardown(void)
{
	wst_rmrf(T);
	free(T);
	free(W);
}

static char *
slurp_w(const char *rel)
{
	char *p = wst_path(W, rel), *t = wst_slurp(p, NULL);

	free(p);
	return t;
}

static bool
exists_w(const char *rel)
{
	char *p = wst_path(W, rel);
	bool e = wst_exists(p);

	free(p);
	return e;
}

static bool
has_item(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(v[i], s, strlen(s)) == 0)
			return true;
	return false;
}

/* The clean-up against a snapshot, on a workspace changed in between. */
START_TEST(snapshot_and_clean)
{
	struct ws_ctx ws;
	struct ws_vcs_snap *s = NULL;
	char **items = NULL, *t;
	size_t n = 0;

	ck_assert_int_eq(ws_ctx_open(&ws, W, 0), 0);
	ck_assert_int_eq(ws_vcs_snapshot(&ws, &s), 0);
	/* What a command might do. */
	wst_write(W, ".git/config",
		  "[core]\n\tbare = false\n\tfsmonitor = x\n[x]\n\ty = 1\n");
	wst_write(W, ".git/hooks/pre-commit", "evil\n");
	wst_write(W, ".git/hooks/post-checkout", "evil\n");
	wst_write(W, ".git/hooks/new.sample", "fine\n");
	wst_write(W, ".git/commondir", "../evil\n");
	wst_write(W, "a/.git/modules/s/config", "[core]\n\tworktree = /\n");
	wst_write(W, "a/.git/modules/s/hooks/post-merge", "evil\n");
	wst_write(W, "b/.envrc", "evil\n");
	wst_write(W, "c/.git", "gitdir: /tmp\n");
	wst_write(W, "d/.git", "gitdir: ../a/.git/modules/s\n");
	/* A worktree's git dir outside any .git, named by a .git file that
	 * the walk may meet first: its common dir is cleaned too. */
	wst_write(W, "0/.git", "gitdir: ../x/worktrees/y\n");
	wst_write(W, "x/worktrees/y/commondir", "../..\n");
	wst_write(W, "x/config", "[core]\n\tpager = evil\n");
	ws_vcs_clean(&ws, s, false, &items, &n);
	ck_assert(exists_w("0/.git"));
	ck_assert(exists_w("x/worktrees/y/commondir"));
	t = slurp_w("x/config");
	ck_assert_msg(strstr(t, "pager") == NULL, "%s", t);
	free(t);
	t = slurp_w(".git/config");
	ck_assert_str_eq(t, "[core]\n\tbare = false\n[x]\n\ty = 1\n");
	free(t);
	ck_assert(has_item(items, n, "/.git/config: removed core.fsmonitor"));
	t = slurp_w(".git/hooks/pre-commit");
	ck_assert_str_eq(t, "mine\n");
	free(t);
	ck_assert(!exists_w(".git/hooks/post-checkout"));
	ck_assert(exists_w(".git/hooks/new.sample"));
	ck_assert(!exists_w(".git/commondir"));
	ck_assert(!exists_w("a/.git/modules/s/hooks/post-merge"));
	ck_assert(has_item(items, n, "/a/.git/modules/s/config: removed core.worktree"));
	ck_assert(!exists_w("b/.envrc"));
	ck_assert(!exists_w("c/.git"));
	/* A .git file naming a git dir inside stays. */
	ck_assert(exists_w("d/.git"));
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
	ws_vcs_snap_free(s);
	ws_ctx_close(&ws);
}
END_TEST

/*
 * Review 6: entries a command makes ahead of a repository (in readdir
 * order) do not hide it from the clean-up when the workspace was within
 * the bound before the command: the walk after it goes on.
 */
START_TEST(bound_not_a_hiding_place)
{
	struct ws_ctx ws;
	struct ws_vcs_snap *s = NULL;
	char **items = NULL, *t, first[8] = "", second[8] = "", rel[64];
	size_t n = 0;
	DIR *d;
	struct dirent *e;

	/* Which of two directories the walk meets first. */
	wst_mkdir(W, "j1");
	wst_mkdir(W, "j2");
	ck_assert_ptr_nonnull(d = opendir(W));
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] == 'j')
			strcpy(first[0] ? second : first, e->d_name);
	closedir(d);
	ws_vcs_set_walk_max(30);
	ck_assert_int_eq(ws_ctx_open(&ws, W, 0), 0);
	ck_assert_int_eq(ws_vcs_snapshot(&ws, &s), 0);
	for (int i = 0; i < 60; i++) {
		snprintf(rel, sizeof(rel), "%s/f%d", first, i);
		wst_write(W, rel, "");
	}
	snprintf(rel, sizeof(rel), "%s/r/.git/HEAD", second);
	wst_write(W, rel, "ref: refs/heads/main\n");
	snprintf(rel, sizeof(rel), "%s/r/.git/config", second);
	wst_write(W, rel, "[core]\n\tfsmonitor = evil\n");
	ws_vcs_clean(&ws, s, false, &items, &n);
	ws_vcs_set_walk_max(0);
	t = slurp_w(rel);
	ck_assert_msg(strstr(t, "fsmonitor") == NULL, "%s", t);
	free(t);
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
	ws_vcs_snap_free(s);
	ws_ctx_close(&ws);
}
END_TEST

/* Make j1 and j2 in W's dir; first and second say which readdir gives first. */
static void
two_dirs(const char *dir, char *first, char *second)
{
	char rel[64], *p;
	DIR *d;
	struct dirent *e;

	first[0] = second[0] = '\0';
	snprintf(rel, sizeof(rel), "%s/j1", dir);
	wst_mkdir(W, rel);
	snprintf(rel, sizeof(rel), "%s/j2", dir);
	wst_mkdir(W, rel);
	p = wst_path(W, dir);
	ck_assert_ptr_nonnull(d = opendir(p));
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] == 'j' && strlen(e->d_name) == 2)
			memcpy(first[0] ? second : first, e->d_name, 3);
	closedir(d);
	free(p);
}

/* Plant a repository (fsmonitor, a hook) and a .envrc at rel. */
static void
plant(const char *rel)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/.git/HEAD", rel);
	wst_write(W, p, "ref: refs/heads/main\n");
	snprintf(p, sizeof(p), "%s/.git/config", rel);
	wst_write(W, p, "[core]\n\tfsmonitor = evil\n");
	snprintf(p, sizeof(p), "%s/.git/hooks/pre-commit", rel);
	wst_write(W, p, "evil\n");
	snprintf(p, sizeof(p), "%s/.envrc", rel);
	wst_write(W, p, "evil\n");
}

static void
assert_cleaned(const char *rel)
{
	char p[128], *t;

	snprintf(p, sizeof(p), "%s/.git/config", rel);
	t = slurp_w(p);
	ck_assert_msg(strstr(t, "fsmonitor") == NULL, "%s: %s", p, t);
	free(t);
	snprintf(p, sizeof(p), "%s/.git/hooks/pre-commit", rel);
	ck_assert_msg(!exists_w(p), "%s stayed", p);
	snprintf(p, sizeof(p), "%s/.envrc", rel);
	ck_assert_msg(!exists_w(p), "%s stayed", p);
}

/*
 * Review 12 (04): a workspace already past the bound before the command
 * (the command before made the entries) hides nothing either: the walk
 * after the command has no bound.
 */
START_TEST(over_bound_before_hides_nothing)
{
	struct ws_ctx ws;
	struct ws_vcs_snap *s = NULL;
	char **items = NULL, first[8], second[8], rel[64];
	size_t n = 0;

	two_dirs(".", first, second);
	for (int i = 0; i < 60; i++) {
		snprintf(rel, sizeof(rel), "%s/f%d", first, i);
		wst_write(W, rel, "");
	}
	ws_vcs_set_walk_max(30);
	ck_assert_int_eq(ws_ctx_open(&ws, W, 0), 0);
	ck_assert_int_eq(ws_vcs_snapshot(&ws, &s), 0);
	snprintf(rel, sizeof(rel), "%s/p", second);
	plant(rel);
	ws_vcs_clean(&ws, s, false, &items, &n);
	ws_vcs_set_walk_max(0);
	assert_cleaned(rel);
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
	ws_vcs_snap_free(s);
	ws_ctx_close(&ws);
}
END_TEST


/*
 * Review 12 (04), without the tests' bound: a workspace of 250,001 files
 * (past the bound the walks had) before the command, a repository
 * planted after them, and the user's repository after them, which the
 * walk before recorded and the clean-up keeps.  On a tmpfs of the test's
 * own (mknod is fast there): skipped, and said, where no mount can be
 * made.
 */
START_TEST(real_bound_hides_nothing)
{
	struct ws_ctx ws;
	struct ws_vcs_snap *s = NULL;
	char **items = NULL, first[8], second[8], rel[64], *m;
	size_t n = 0;
	int dfd;

	two_dirs(".", first, second);
	m = wst_path(W, first);
	if (unshare(CLONE_NEWNS) != 0 ||
	    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", m, "tmpfs", 0, "size=64m,nr_inodes=400000") != 0) {
		fprintf(stderr, "real_bound_hides_nothing: no mount here, not checked\n");
		free(m);
		return;
	}
	ck_assert_int_ge(dfd = open(m, O_RDONLY | O_DIRECTORY), 0);
	for (int i = 0; i < 250001; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		ck_assert_int_eq(mknodat(dfd, name, S_IFREG | 0644, 0), 0);
	}
	close(dfd);
	snprintf(rel, sizeof(rel), "%s/u", first);
	plant(rel);
	ws_vcs_set_walk_max(0);
	ck_assert_int_eq(ws_ctx_open(&ws, W, 0), 0);
	ck_assert_int_eq(ws_vcs_snapshot(&ws, &s), 0);
	/* Past the bound: in the mount after its files, and after it. */
	snprintf(rel, sizeof(rel), "%s/p", first);
	plant(rel);
	snprintf(rel, sizeof(rel), "%s/p", second);
	plant(rel);
	ws_vcs_clean(&ws, s, false, &items, &n);
	assert_cleaned(rel);
	snprintf(rel, sizeof(rel), "%s/p", first);
	assert_cleaned(rel);
	snprintf(rel, sizeof(rel), "%s/u/.git/config", first);
	{
		char *t = slurp_w(rel);

		ck_assert_msg(strstr(t, "fsmonitor = evil") != NULL, "%s", t);
		free(t);
	}
	snprintf(rel, sizeof(rel), "%s/u/.git/hooks/pre-commit", first);
	ck_assert(exists_w(rel));
	umount2(m, MNT_DETACH);
	free(m);
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
	ws_vcs_snap_free(s);
	ws_ctx_close(&ws);
}
END_TEST

/*
 * The walk ends a directory at a read that is not full where the file
 * system reads whole (ext4, tmpfs): a directory of many long names takes
 * many full reads, and what lies after the first is still seen; a
 * directory beyond a mount point (a tmpfs mounted inside, in a mount
 * namespace of the test's own where it may make one) is walked too.
 */
START_TEST(walk_reads_to_the_end)
{
	struct ws_ctx ws;
	struct ws_vcs_snap *s = NULL;
	char **items = NULL, rel[300], name[220];
	size_t n = 0;
	bool mounted = false;
	char *m;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (int i = 0; i < 600; i++) {
		snprintf(rel, sizeof(rel), "big/%04d%s", i, name + 4);
		wst_write(W, rel, "");
	}
	for (int i = 0; i < 20; i++) {
		snprintf(rel, sizeof(rel), "big/d%02d/keep", i);
		wst_write(W, rel, "");
	}
	wst_mkdir(W, "m");
	m = wst_path(W, "m");
	if (unshare(CLONE_NEWNS) == 0 &&
	    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == 0 &&
	    mount("tmpfs", m, "tmpfs", 0, "size=1m") == 0)
		mounted = true;
	else
		fprintf(stderr, "walk_reads_to_the_end: no mount here, the mount "
			"point's case is not checked\n");
	wst_write(W, "m/sub/keep", "");
	ck_assert_int_eq(ws_ctx_open(&ws, W, 0), 0);
	ck_assert_int_eq(ws_vcs_snapshot(&ws, &s), 0);
	for (int i = 0; i < 20; i++) {
		snprintf(rel, sizeof(rel), "big/d%02d/.envrc", i);
		wst_write(W, rel, "evil\n");
	}
	wst_write(W, "m/sub/.envrc", "evil\n");
	ws_vcs_clean(&ws, s, false, &items, &n);
	for (int i = 0; i < 20; i++) {
		snprintf(rel, sizeof(rel), "big/d%02d/.envrc", i);
		ck_assert_msg(!exists_w(rel), "%s stayed", rel);
	}
	ck_assert(!exists_w("m/sub/.envrc"));
	if (mounted)
		umount2(m, MNT_DETACH);
	free(m);
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
	ws_vcs_snap_free(s);
	ws_ctx_close(&ws);
}
END_TEST

/*
 * Review 6: a directory moved by the command keeps what the user had in
 * it (.envrc, a nested repository's own hooks and configuration): the
 * same untouched files at another path are not the command's.  A watched
 * file itself moved (its ctime changes) is still taken for new.
 */
START_TEST(moved_directory_keeps_user_files)
{
	struct ws_ctx ws;
	struct ws_vcs_snap *s = NULL;
	char **items = NULL, *t, *from = wst_path(W, "a"), *to = wst_path(W, "b");
	size_t n = 0;

	wst_write(W, "a/.envrc", "mine\n");
	wst_write(W, "a/.git/config", "[diff \"pdf\"]\n\ttextconv = t\n");
	wst_write(W, "a/.git/hooks/pre-commit", "mine\n");
	wst_write(W, "c/.envrc", "mine\n");
	ck_assert_int_eq(ws_ctx_open(&ws, W, 0), 0);
	ck_assert_int_eq(ws_vcs_snapshot(&ws, &s), 0);
	ck_assert_int_eq(rename(from, to), 0);
	{
		char *cf = wst_path(W, "c/.envrc"), *ct = wst_path(W, "d.envrc");

		ck_assert_int_eq(rename(cf, ct), 0);
		free(cf);
		free(ct);
		wst_mkdir(W, "e");
		cf = wst_path(W, "d.envrc");
		ct = wst_path(W, "e/.envrc");
		ck_assert_int_eq(rename(cf, ct), 0);
		free(cf);
		free(ct);
	}
	ws_vcs_clean(&ws, s, false, &items, &n);
	ck_assert(exists_w("b/.envrc"));
	ck_assert(exists_w("b/.git/hooks/pre-commit"));
	t = slurp_w("b/.git/config");
	ck_assert_msg(strstr(t, "textconv") != NULL, "%s", t);
	free(t);
	ck_assert(!exists_w("e/.envrc"));
	ck_assert_uint_eq(n, 1);
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
	free(from);
	free(to);
	ws_vcs_snap_free(s);
	ws_ctx_close(&ws);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("vcs");
	TCase *tc = tcase_create("vcs");

	tcase_add_test(tc, allowlist);
	tcase_add_test(tc, plain_configs_untouched);
	tcase_add_test(tc, spellings_removed);
	tcase_add_test(tc, changed_and_broken);
	tcase_add_test(tc, routes_pinned);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, snapshot_and_clean);
	tcase_add_test(tc, bound_not_a_hiding_place);
	tcase_add_test(tc, moved_directory_keeps_user_files);
	tcase_add_test(tc, walk_reads_to_the_end);
	tcase_add_test(tc, over_bound_before_hides_nothing);
	tcase_add_test(tc, real_bound_hides_nothing);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
