/*
 * test_ignore.c - .gitignore semantics.  Each case builds a tree, walks it
 * with the rule stack the way wsgrep does (push on enter, pop on leave,
 * ignored directories not entered) and compares the files left with a
 * recorded expectation and, where git is installed, with
 * `git ls-files --others --exclude-standard` run on the same tree.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wstest.h"
#include "ws/error.h"
#include "ws/ignore.h"

struct icase {
	const char *name;
	const char *files[24]; /* path, content, ..., NULL */
	const char *expect;    /* files not ignored, sorted, one per line */
};

static const struct icase cases[] = {
	{"basic", {".gitignore", "*.o\nbuild/\n", "a.c", "", "a.o", "",
		   "sub/b.o", "", "build/x", "", "sub/build/y", "", "notbuild",
		   "", NULL},
	 ".gitignore\na.c\nnotbuild\n"},
	{"negation", {".gitignore", "*.log\n!keep.log\n", "a.log", "",
		      "keep.log", "", "sub/keep.log", "", "sub/b.log", "", NULL},
	 ".gitignore\nkeep.log\nsub/keep.log\n"},
	{"dir_only", {".gitignore", "foo/\n", "foo/x", "", "bar/foo", "", NULL},
	 ".gitignore\nbar/foo\n"},
	{"anchored", {".gitignore", "/top.txt\n", "top.txt", "", "sub/top.txt",
		      "", NULL},
	 ".gitignore\nsub/top.txt\n"},
	{"middle_slash", {".gitignore", "doc/*.txt\n", "doc/a.txt", "",
			  "doc/sub/b.txt", "", "x/doc/a.txt", "", NULL},
	 ".gitignore\ndoc/sub/b.txt\nx/doc/a.txt\n"},
	{"starstar_lead", {".gitignore", "**/tmp\n", "tmp/a", "", "x/tmp/b", "",
			   "x/y/tmp/c", "", "x/tmpx", "", NULL},
	 ".gitignore\nx/tmpx\n"},
	{"starstar_mid", {".gitignore", "a/**/z\n", "a/z", "", "a/b/z", "",
			  "a/b/c/z", "", "a/b/zz", "", "q/a/z", "", NULL},
	 ".gitignore\na/b/zz\nq/a/z\n"},
	{"starstar_tail", {".gitignore", "logs/**\n!logs/keep\n", "logs/a", "",
			   "logs/d/b", "", "logs/keep", "", "x/logs/c", "", NULL},
	 ".gitignore\nlogs/keep\nx/logs/c\n"},
	{"escapes", {".gitignore", "\\#hash\n\\!bang\nsp\\ \n\\*star\n",
		     "#hash", "", "!bang", "", "sp ", "", "sp", "", "*star", "",
		     "xstar", "", NULL},
	 ".gitignore\nsp\nxstar\n"},
	{"trailing_spaces", {".gitignore", "trail   \n", "trail", "",
			     "trail ", "", NULL},
	 ".gitignore\ntrail \n"},
	{"comments", {".gitignore", "# comment\n\n   \n#x\n", "#x", "",
		      "# comment", "", NULL},
	 "# comment\n#x\n.gitignore\n"},
	{"nested_override", {".gitignore", "*.txt\n", "sub/.gitignore",
			     "!keep.txt\n", "a.txt", "", "sub/keep.txt", "",
			     "sub/other.txt", "", NULL},
	 ".gitignore\nsub/.gitignore\nsub/keep.txt\n"},
	{"nested_anchored", {"sub/.gitignore", "/x\n", "sub/x", "", "sub/y/x",
			     "", "x", "", NULL},
	 "sub/.gitignore\nsub/y/x\nx\n"},
	{"no_reinclude_in_ignored_dir", {".gitignore", "build/\n!build/keep\n",
					 "build/keep", "", "a", "", NULL},
	 ".gitignore\na\n"},
	{"info_exclude", {".git/info/exclude", "*.tmp\nsecret\n", ".gitignore",
			  "!keep.tmp\n", "x.tmp", "", "keep.tmp", "", "secret",
			  "", "a/secret", "", "a/b", "", NULL},
	 ".gitignore\na/b\nkeep.tmp\n"},
	{"classes", {".gitignore", "file[0-9].txt\n?.md\n[!a]*.c\nz[[:digit:]]\n",
		     "file1.txt", "", "fileA.txt", "", "a.md", "", "ab.md", "",
		     "a.c", "", "b.c", "", "z1", "", "zz", "", NULL},
	 ".gitignore\na.c\nab.md\nfileA.txt\nzz\n"},
	{"deep_basename", {".gitignore", "node_modules\n",
			   "x/y/node_modules/z", "", "node_modules_x", "", NULL},
	 ".gitignore\nnode_modules_x\n"},
	{"star_one_level", {".gitignore", "a/*/c\n", "a/b/c", "", "a/b/d/c", "",
			    NULL},
	 ".gitignore\na/b/d/c\n"},
	{"only_c", {".gitignore", "*\n!*/\n!*.c\n", "a.c", "", "a.h", "",
		    "d/b.c", "", "d/b.h", "", NULL},
	 "a.c\nd/b.c\n"},
	{"negate_dir_then_file", {".gitignore", "d/*\n!d/keep/\n", "d/a", "",
				  "d/keep/x", "", NULL},
	 ".gitignore\nd/keep/x\n"},
	{"star_in_name", {".gitignore", "*~\nfoo*bar\n", "a~", "", "foobar", "",
			  "fooxbar", "", "foo/bar", "", NULL},
	 ".gitignore\nfoo/bar\n"},
	{"trailing_slash_glob", {".gitignore", "*.d/\n", "x.d/y", "", "z.d", "",
				 NULL},
	 ".gitignore\nz.d\n"},
};

/* Walk dir (relative path rel) with the rule stack, appending kept files. */
static void
walk(struct ws_ignore *ig, int dfd, const char *rel, char ***out, size_t *n)
{
	DIR *d;
	struct dirent *de;
	int fd2 = dup(dfd);

	ck_assert_int_eq(ws_ignore_push(ig, dfd, rel), 0);
	d = fdopendir(fd2);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL) {
		char sub[4096];
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
			 de->d_name);
		ck_assert_int_eq(fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW), 0);
		if (ws_ignore_match(ig, sub, S_ISDIR(st.st_mode)))
			continue;
		if (S_ISDIR(st.st_mode)) {
			int c = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY);

			ck_assert_int_ge(c, 0);
			walk(ig, c, sub, out, n);
			close(c);
		} else {
			*out = realloc(*out, (*n + 1) * sizeof(char *));
			(*out)[(*n)++] = strdup(sub);
		}
	}
	closedir(d);
	ws_ignore_pop(ig);
}

/*
 * The same walk with the per-directory chain (ws_ignore_dir_*, wsgrep's
 * threads): each directory keeps the chain it was entered with, and the
 * stack below holds .git/info/exclude only.
 */
static void
walk_chain(const struct ws_ignore *ig, struct ws_ignore_dir *parent, int dfd,
	   const char *rel, char ***out, size_t *n)
{
	struct ws_ignore_dir *me;
	DIR *d;
	struct dirent *de;
	int fd2 = dup(dfd);

	ck_assert_int_eq(ws_ignore_dir_new(parent, dfd, rel, &me), 0);
	d = fdopendir(fd2);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL) {
		char sub[4096];
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
			 de->d_name);
		ck_assert_int_eq(fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW), 0);
		if (ws_ignore_dir_match(ig, me, sub, S_ISDIR(st.st_mode)))
			continue;
		if (S_ISDIR(st.st_mode)) {
			int c = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY);

			ck_assert_int_ge(c, 0);
			walk_chain(ig, me, c, sub, out, n);
			close(c);
		} else {
			*out = realloc(*out, (*n + 1) * sizeof(char *));
			(*out)[(*n)++] = strdup(sub);
		}
	}
	closedir(d);
	ws_ignore_dir_unref(me);
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The files of tree dir that the rules keep, sorted, one per line: by
 * the stack, or (chain) by the per-directory chain.
 */
static char *
kept(const char *dir, bool chain)
{
	struct ws_ignore *ig;
	char **v = NULL, *s;
	size_t n = 0, len = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	ck_assert_int_eq(ws_ignore_new(&ig), 0);
	ck_assert_int_eq(ws_ignore_load_exclude(ig, fd), 0);
	if (chain)
		walk_chain(ig, NULL, fd, "", &v, &n);
	else
		walk(ig, fd, "", &v, &n);
	close(fd);
	ws_ignore_free(ig);
	qsort(v, n, sizeof(*v), cmpstr);
	s = calloc(1, 1);
	for (size_t i = 0; i < n; i++) {
		s = realloc(s, len + strlen(v[i]) + 2);
		len += (size_t)sprintf(s + len, "%s\n", v[i]);
		free(v[i]);
	}
	free(v);
	return s;
}

static bool
have_git(void)
{
	return system("git --version >/dev/null 2>&1") == 0;
}

/* git's answer for the tree at dir (already a repository), sorted. */
static char *
git_kept(const char *dir)
{
	char cmd[8192], *out;
	size_t n;
	char *tmp = wst_path(dir, "../git.out");

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 "
		 "XDG_CONFIG_HOME=/nonexistent git -c core.quotepath=off "
		 "ls-files --others --exclude-standard -z | tr '\\0' '\\n' | "
		 "LC_ALL=C sort > '%s'", dir, tmp);
	ck_assert_int_eq(system(cmd), 0);
	out = wst_slurp(tmp, &n);
	unlink(tmp);
	free(tmp);
	return out;
}

START_TEST(gitignore_cases)
{
	const struct icase *c = &cases[_i];
	char *top = wst_tmpdir();
	char *dir = wst_path(top, "t");
	bool git = have_git();
	char *got;

	wst_mkdir(top, "t");
	if (git) {
		char cmd[4096];

		snprintf(cmd, sizeof(cmd), "git init -q '%s'", dir);
		ck_assert_int_eq(system(cmd), 0);
	}
	for (size_t i = 0; c->files[i] != NULL; i += 2)
		wst_write(dir, c->files[i], c->files[i + 1]);
	got = kept(dir, true);
	ck_assert_msg(strcmp(got, c->expect) == 0, "%s (chain): got\n%s\nwant\n%s",
		      c->name, got, c->expect);
	free(got);
	got = kept(dir, false);
	ck_assert_msg(strcmp(got, c->expect) == 0, "%s: got\n%s\nwant\n%s",
		      c->name, got, c->expect);
	if (git) {
		char *g = git_kept(dir);

		ck_assert_msg(strcmp(got, g) == 0, "%s: ours\n%s\ngit\n%s",
			      c->name, got, g);
		free(g);
	}
	free(got);
	free(dir);
	wst_rmrf(top);
	free(top);
}
END_TEST

START_TEST(wildmatch_table)
{
	static const struct {
		const char *p, *t;
		bool icase, want;
	} t[] = {
		{"*.c", "a.c", false, true},
		{"*.c", "d/a.c", false, false},
		{"**/*.c", "d/e/a.c", false, true},
		{"**/*.c", "a.c", false, true},
		{"src/**/test_*", "src/a/b/test_x", false, true},
		{"src/**/test_*", "src/test_x", false, true},
		{"src/**/test_*", "src/a/test_x/y", false, false},
		{"a/**", "a/b/c", false, true},
		{"a/**", "a", false, false},
		{"a**b", "axxb", false, true},
		{"a**b", "ax/xb", false, false},
		{"?", "/", false, false},
		{"[a-c]x", "bx", false, true},
		{"[!a-c]x", "bx", false, false},
		{"[]]", "]", false, true},
		{"\\*", "*", false, true},
		{"\\*", "x", false, false},
		{"*.C", "a.c", true, true},
		{"*.C", "a.c", false, false},
		{"[", "[", false, false},
		{"abc\\", "abc", false, false},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_msg(ws_wildmatch(t[i].p, t[i].t, t[i].icase) == t[i].want,
			      "%s vs %s", t[i].p, t[i].t);
}
END_TEST

START_TEST(stack_push_pop)
{
	struct ws_ignore *ig;

	ck_assert_int_eq(ws_ignore_new(&ig), 0);
	ck_assert_int_eq(ws_ignore_push_text(ig, "", "*.o\n", 4), 0);
	ck_assert_int_eq(ws_ignore_push_text(ig, "sub", "!x.o\n", 5), 0);
	ck_assert(!ws_ignore_match(ig, "sub/x.o", false));
	ck_assert(ws_ignore_match(ig, "sub/y.o", false));
	ws_ignore_pop(ig);
	ck_assert_int_eq(ws_ignore_push_text(ig, "other", "", 0), 0);
	ck_assert(ws_ignore_match(ig, "other/x.o", false));
	ck_assert(ws_ignore_match(ig, ".git", true));
	ck_assert(ws_ignore_match(ig, "other/.git", false));
	ck_assert(!ws_ignore_match(ig, "other/.gitx", false));
	/* Popping past the bottom is harmless. */
	for (int i = 0; i < 5; i++)
		ws_ignore_pop(ig);
	ck_assert(!ws_ignore_match(ig, "x.o", false));
	ws_ignore_free(ig);
}
END_TEST

/* A directory without a .gitignore shares its parent's level. */
START_TEST(chain_shares_levels)
{
	char *top = wst_tmpdir();
	struct ws_ignore_dir *a, *b, *c;
	int fd, sub, sub2;

	wst_write(top, ".gitignore", "*.o\n");
	wst_write(top, "s/keep", "");
	wst_write(top, "s/t/.gitignore", "!x.o\n");
	fd = open(top, O_RDONLY | O_DIRECTORY);
	sub = openat(fd, "s", O_RDONLY | O_DIRECTORY);
	sub2 = openat(sub, "t", O_RDONLY | O_DIRECTORY);
	ck_assert_int_eq(ws_ignore_dir_new(NULL, fd, "", &a), 0);
	ck_assert_int_eq(ws_ignore_dir_new(a, sub, "s", &b), 0);
	ck_assert_ptr_eq(a, b);
	ck_assert_int_eq(ws_ignore_dir_new(b, sub2, "s/t", &c), 0);
	ck_assert_ptr_ne(c, b);
	ck_assert(ws_ignore_dir_match(NULL, b, "s/x.o", false));
	ck_assert(!ws_ignore_dir_match(NULL, c, "s/t/x.o", false));
	ck_assert(ws_ignore_dir_match(NULL, c, "s/t/y.o", false));
	ck_assert(ws_ignore_dir_match(NULL, c, "s/t/.git", true));
	/* Dropped in any order: the last reference frees each level. */
	ws_ignore_dir_unref(a);
	ws_ignore_dir_unref(b);
	ck_assert(ws_ignore_dir_match(NULL, c, "s/t/y.o", false));
	ws_ignore_dir_unref(c);
	ws_ignore_dir_unref(NULL);
	close(sub2);
	close(sub);
	close(fd);
	wst_rmrf(top);
	free(top);
}
END_TEST

START_TEST(symlinked_gitignore_not_read)
{
	char *top = wst_tmpdir();
	struct ws_ignore *ig;
	int fd;

	/* A .gitignore that is a symlink (maybe to outside) is not read. */
	wst_write(top, "real", "*.c\n");
	wst_symlink("real", top, ".gitignore");
	fd = open(top, O_RDONLY | O_DIRECTORY);
	ck_assert_int_eq(ws_ignore_new(&ig), 0);
	ck_assert_int_eq(ws_ignore_push(ig, fd, ""), 0);
	ck_assert(!ws_ignore_match(ig, "a.c", false));
	ws_ignore_free(ig);
	/* A FIFO named .gitignore does not block. */
	{
		char *gi = wst_path(top, ".gitignore");

		unlink(gi);
		free(gi);
	}
	wst_mkfifo(top, ".gitignore");
	ck_assert_int_eq(ws_ignore_new(&ig), 0);
	ck_assert_int_eq(ws_ignore_push(ig, fd, ""), 0);
	ck_assert(!ws_ignore_match(ig, "a.c", false));
	ws_ignore_free(ig);
	close(fd);
	wst_rmrf(top);
	free(top);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("ignore");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, gitignore_cases, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, wildmatch_table);
	tcase_add_test(tc, stack_push_pop);
	tcase_add_test(tc, symlinked_gitignore_not_read);
	tcase_add_test(tc, chain_shares_levels);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
