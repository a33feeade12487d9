/* test_workspace.c - anchors, mounts and mapping between virtual and real. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "wstest.h"
#include "ws/error.h"
#include "ws/workspace.h"

static char *T, *W, *M;
static struct ws_ctx ws;

static void
setup(void)
{
	char *spec = NULL;

	T = wst_tmpdir();
	W = wst_path(T, "ws");
	M = wst_path(T, "skills");
	wst_mkdir(T, "ws");
	wst_mkdir(T, "skills/nested");
	ck_assert_int_eq(ws_ctx_open(&ws, W, 0), 0);
	ck_assert(asprintf(&spec, "/.skills=%s:ro", M) > 0);
	ck_assert_int_eq(ws_ctx_add_mount(&ws, spec), 0);
	free(spec);
}

static void
teardown(void)
{
	ws_ctx_close(&ws);
	wst_rmrf(T);
	free(T);
	free(W);
	free(M);
}

START_TEST(anchors)
{
	ck_assert_int_eq((int)ws.nanchors, 2);
	ck_assert_str_eq(ws.anchors[0].vprefix, "/");
	ck_assert_str_eq(ws.anchors[0].real, W);
	ck_assert_str_eq(ws.anchors[1].vprefix, "/.skills");
	ck_assert_str_eq(ws.anchors[1].real, M);
	ck_assert(ws.anchors[1].ro);
	ck_assert_int_ge(ws_ctx_anchor_fd(&ws, 0), 0);
	ck_assert_int_ge(ws_ctx_anchor_fd(&ws, 1), 0);
	/* The host root is opened only when asked for. */
	ck_assert_int_eq(ws.host_fd, -1);
	ck_assert_int_ge(ws_ctx_anchor_fd(&ws, WS_ANCHOR_HOST), 0);
	ck_assert_str_eq(ws_ctx_anchor_real(&ws, WS_ANCHOR_HOST), "/");
}
END_TEST

/*
 * A context shared from another (a server's call): the same anchors and
 * descriptors, strings of its own; closing it leaves the other's open.
 */
START_TEST(shared_context)
{
	struct ws_ctx a;

	ck_assert_int_eq(ws_ctx_share(&a, &ws), 0);
	ck_assert_int_eq((int)a.nanchors, 2);
	ck_assert_str_eq(a.anchors[0].real, W);
	ck_assert_ptr_ne(a.anchors[0].real, ws.anchors[0].real);
	ck_assert_str_eq(a.anchors[1].vprefix, "/.skills");
	ck_assert(a.anchors[1].ro);
	ck_assert_int_eq(a.anchors[1].fd, ws.anchors[1].fd);
	ck_assert_int_eq((int)a.nguard, 0);
	ck_assert_ptr_null(a.policy);
	ws_ctx_close(&a);
	/* The original's descriptors are still open. */
	ck_assert_int_ge(fcntl(ws.anchors[0].fd, F_GETFD), 0);
	ck_assert_int_ge(fcntl(ws.anchors[1].fd, F_GETFD), 0);
}
END_TEST

START_TEST(anchor_lookups)
{
	const char *rest;
	char *p = wst_path(M, "nested/x"), *sib = NULL;

	ck_assert_int_eq(ws_ctx_anchor_of_real(&ws, p, &rest), 1);
	ck_assert_str_eq(rest, "nested/x");
	ck_assert_int_eq(ws_ctx_anchor_of_real(&ws, W, &rest), 0);
	ck_assert_str_eq(rest, "");
	ck_assert(asprintf(&sib, "%s2/x", W) > 0);
	ck_assert_int_eq(ws_ctx_anchor_of_real(&ws, sib, NULL), -1);
	ck_assert_int_eq(ws_ctx_anchor_of_virtual(&ws, "/.skills/a", &rest), 1);
	ck_assert_str_eq(rest, "a");
	ck_assert_int_eq(ws_ctx_anchor_of_virtual(&ws, "/.skillsx/a", &rest), 0);
	ck_assert_str_eq(rest, ".skillsx/a");
	free(p);
	free(sib);
}
END_TEST

START_TEST(mapping_both_ways)
{
	char *v = NULL, *in = wst_path(W, "a/b"), *inm = wst_path(M, "nested");
	char *dotted = NULL;

	ck_assert_int_eq(ws_ctx_to_virtual(&ws, in, &v), 0);
	ck_assert_str_eq(v, "/a/b");
	free(v);
	ck_assert_int_eq(ws_ctx_to_virtual(&ws, inm, &v), 0);
	ck_assert_str_eq(v, "/.skills/nested");
	free(v);
	ck_assert(asprintf(&dotted, "%s/./a//b/../c", W) > 0);
	ck_assert_int_eq(ws_ctx_to_virtual(&ws, dotted, &v), 0);
	ck_assert_str_eq(v, "/a/c");
	free(v);
	ck_assert_int_eq(ws_ctx_to_virtual(&ws, "relative/path", &v), WS_EINVALID_PATH);
	ck_assert_int_eq(ws_ctx_to_virtual(&ws, "/etc", &v), WS_EPATH_OUTSIDE_WORKSPACE);
	ck_assert_int_eq(ws_ctx_virtual_of(&ws, 1, "x/y", &v), 0);
	ck_assert_str_eq(v, "/.skills/x/y");
	free(v);
	ck_assert_int_eq(ws_ctx_virtual_of(&ws, 0, "", &v), 0);
	ck_assert_str_eq(v, "/");
	free(v);
	free(in);
	free(inm);
	free(dotted);
}
END_TEST

START_TEST(to_virtual_through_a_symlinked_spelling)
{
	/* The caller spells the root through a link; anchors are resolved. */
	char *alias = wst_path(T, "alias"), *p = NULL, *v = NULL;

	wst_symlink(W, T, "alias");
	ck_assert(asprintf(&p, "%s/new/file", alias) > 0);
	ck_assert_int_eq(ws_ctx_to_virtual(&ws, p, &v), 0);
	ck_assert_str_eq(v, "/new/file");
	free(v);
	free(p);
	free(alias);
}
END_TEST

/* Whether e is among the entries recorded for the anchors of c. */
static bool
has_entry(const struct ws_ctx *c, const char *dir, const char *rel)
{
	char *p = rel ? wst_path(dir, rel) : strdup(dir);
	bool found = false;

	for (size_t i = 0; i < c->nentries && !found; i++)
		found = strcmp(c->entries[i], p) == 0;
	free(p);
	return found;
}

/*
 * Every entry the spellings pass through is recorded while they resolve:
 * the components as spelled (links included) and those a link leads
 * through; only they and what holds them are guarded, not their contents.
 */
START_TEST(spelling_entries_guarded)
{
	struct ws_ctx c;
	char *spelled = wst_path(T, "shared/current/sub");
	char *spec = NULL, *l2 = wst_path(T, "l2");

	wst_mkdir(T, "shared/releases/v1/sub");
	wst_symlink("releases/v1", T, "shared/current");
	wst_symlink(M, T, "l2");
	ck_assert_int_eq(ws_ctx_open(&c, spelled, 0), 0);
	ck_assert(asprintf(&spec, "/.m=%s/../l2/./nested", W) > 0);
	ck_assert_int_eq(ws_ctx_add_mount(&c, spec), 0);
	ck_assert(has_entry(&c, T, NULL));
	ck_assert(has_entry(&c, T, "shared"));
	ck_assert(has_entry(&c, T, "shared/current"));
	ck_assert(has_entry(&c, T, "shared/releases"));
	ck_assert(has_entry(&c, T, "shared/releases/v1"));
	ck_assert(has_entry(&c, T, "shared/releases/v1/sub"));
	ck_assert(has_entry(&c, T, "ws"));
	ck_assert(has_entry(&c, T, "l2"));
	ck_assert(has_entry(&c, T, "skills/nested"));
	ck_assert(!has_entry(&c, T, "shared/current/sub"));
	{
		char *mn = wst_path(M, "nested");

		ck_assert_str_eq(c.anchors[1].real, mn);
		free(mn);
	}
	/* The entry itself, any change; what holds it, rename or delete;
	 * what it holds, nothing. */
	{
		char *e = wst_path(T, "shared/current"), *in = wst_path(T, "shared/releases/v1/sub/x");
		char *rel = wst_path(T, "shared/releases"), *sib = wst_path(T, "shared/other");

		ck_assert_int_eq(ws_ctx_guarded(&c, e, false), WS_GUARD_ANCHOR);
		ck_assert_int_eq(ws_ctx_guarded(&c, l2, false), WS_GUARD_ANCHOR);
		ck_assert_int_eq(ws_ctx_guarded(&c, rel, true), WS_GUARD_ANCHOR);
		ck_assert_int_eq(ws_ctx_guarded(&c, rel, false), WS_GUARD_ANCHOR);
		ck_assert_int_eq(ws_ctx_guarded(&c, in, true), WS_GUARD_NONE);
		ck_assert_int_eq(ws_ctx_guarded(&c, sib, true), WS_GUARD_NONE);
		free(e);
		free(in);
		free(rel);
		free(sib);
	}
	ws_ctx_close(&c);
	free(spelled);
	free(spec);
	free(l2);
}
END_TEST

/*
 * A guard's spelling (the policy in use, spelled through a link in the
 * workspace) guards the entries it passes through, recorded by the first
 * check that may change something and not before (issue 20: a call that
 * only reads paid a readlink() per component of every guard).
 */
START_TEST(guard_spelling_recorded_on_first_check)
{
	struct ws_ctx c;
	char *pol = wst_path(W, "d/conf/pol.json"), *link = wst_path(W, "d/conf");
	char *in = wst_path(W, "d/conf-a/other.json"), *tgt = wst_path(W, "d/conf-a/pol.json");

	wst_write(W, "d/conf-a/pol.json", "{}");
	wst_symlink("conf-a", W, "d/conf");
	ck_assert_int_eq(ws_ctx_open(&c, W, 0), 0);
	ck_assert_int_eq(ws_ctx_guard(&c, pol), 0);
	/* Nothing resolved yet: a call that only reads stops here. */
	ck_assert(!has_entry(&c, W, "d/conf"));
	ck_assert(!has_entry(&c, W, "d/conf-a"));
	ck_assert_int_eq(ws_ctx_guarded(&c, in, false), WS_GUARD_NONE);
	ck_assert(has_entry(&c, W, "d/conf"));
	ck_assert(has_entry(&c, W, "d/conf-a"));
	ck_assert_int_eq(ws_ctx_guarded(&c, link, false), WS_GUARD_ANCHOR);
	ck_assert_int_eq(ws_ctx_guarded(&c, tgt, false), WS_GUARD_OWN);
	/* A guard added after the first check is recorded by the next. */
	ck_assert_int_eq(ws_ctx_guard(&c, "/nonexistent-i20/x"), 0);
	wst_symlink("d/conf-a", W, "e");
	{
		char *p2 = wst_path(W, "e/pol.json"), *l2 = wst_path(W, "e");

		ck_assert_int_eq(ws_ctx_guard(&c, p2), 0);
		ck_assert(!has_entry(&c, W, "e"));
		ck_assert_int_eq(ws_ctx_guarded(&c, l2, false), WS_GUARD_ANCHOR);
		free(p2);
		free(l2);
	}
	ws_ctx_close(&c);
	free(pol);
	free(link);
	free(in);
	free(tgt);
}
END_TEST

/* A spelling with a loop or a missing part fails as realpath(3) would. */
START_TEST(spelling_errors)
{
	struct ws_ctx c;
	char *p = wst_path(T, "loop/x"), *q = wst_path(T, "ws/missing");

	wst_symlink("loop", T, "loop");
	ck_assert_int_eq(ws_ctx_open(&c, p, 0), WS_EWORKSPACE_NOT_FOUND);
	ws_ctx_close(&c);
	ck_assert_int_eq(ws_ctx_open(&c, q, 0), WS_EWORKSPACE_NOT_FOUND);
	ws_ctx_close(&c);
	free(p);
	free(q);
}
END_TEST

/*
 * ws_ctx_marker_guarded(): a change of whether a marker is there, in the
 * top directory or an ancestor, is guarded when detection would find
 * other roots; anything else is not, and pinned roots guard nothing.
 */
START_TEST(marker_changes)
{
	struct ws_ctx c;
	char *app = wst_path(T, "repo/app"), *b = NULL, *a = NULL;
	char *gomod = wst_path(app, "go.mod"), *pkg = wst_path(app, "package.json");
	char *rgit = wst_path(T, "repo/.git"), *agit = wst_path(app, ".git");
	char *rpkg = wst_path(T, "repo/package.json"), *deep = wst_path(app, "sub/go.mod");
	char *other = wst_path(app, "go.sum");
	const char *mine[] = {".git", "BUILD"};
	const unsigned both = WS_CHANGE_CREATES | WS_CHANGE_REMOVES;

	wst_mkdir(T, "repo/.git");
	wst_write(T, "repo/app/go.mod", "module app\n");
	ck_assert_int_eq(ws_ctx_open(&c, app, 0), 0);
	/* The only marker of the project root: removing it moves the root. */
	ck_assert(ws_ctx_marker_guarded(&c, gomod, WS_CHANGE_REMOVES, &b, &a));
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(strstr(b, "PROJECT_ROOT="));
	ck_assert_ptr_nonnull(strstr(a, "/repo"));
	free(b);
	free(a);
	/* Creating what is there already, or removing what is not: no change. */
	ck_assert(!ws_ctx_marker_guarded(&c, gomod, WS_CHANGE_CREATES, NULL, NULL));
	ck_assert(!ws_ctx_marker_guarded(&c, pkg, WS_CHANGE_REMOVES, NULL, NULL));
	/* A second marker next to it changes nothing. */
	ck_assert(!ws_ctx_marker_guarded(&c, pkg, both, NULL, NULL));
	/* .git: removed from the ancestor, or created in the top. */
	ck_assert(ws_ctx_marker_guarded(&c, rgit, both, NULL, NULL));
	ck_assert(ws_ctx_marker_guarded(&c, agit, WS_CHANGE_CREATES, NULL, NULL));
	/* Above the project root, below the workspace, not a marker: free. */
	ck_assert(!ws_ctx_marker_guarded(&c, rpkg, both, NULL, NULL));
	ck_assert(!ws_ctx_marker_guarded(&c, deep, both, NULL, NULL));
	ck_assert(!ws_ctx_marker_guarded(&c, other, both, NULL, NULL));
	/* Configured markers replace the default list. */
	ck_assert_int_eq(ws_ctx_set_detection(&c, mine, 2, false), 0);
	ck_assert(!ws_ctx_marker_guarded(&c, gomod, both, NULL, NULL));
	{
		char *bld = wst_path(app, "BUILD");

		ck_assert(ws_ctx_marker_guarded(&c, bld, both, NULL, NULL));
		free(bld);
	}
	ws_ctx_close(&c);
	/* Pinned: nothing is guarded. */
	ck_assert_int_eq(ws_ctx_open(&c, app, 0), 0);
	ck_assert_int_eq(ws_ctx_set_detection(&c, NULL, 0, true), 0);
	ck_assert(!ws_ctx_marker_guarded(&c, gomod, both, NULL, NULL));
	ck_assert(!ws_ctx_marker_guarded(&c, rgit, both, NULL, NULL));
	ws_ctx_close(&c);
	free(app);
	free(gomod);
	free(pkg);
	free(rgit);
	free(agit);
	free(rpkg);
	free(deep);
	free(other);
}
END_TEST

START_TEST(mount_specs)
{
	struct ws_ctx s;

	ck_assert_int_eq(ws_ctx_open(&s, W, 0), 0);
	ck_assert_int_eq(ws_ctx_add_mount(&s, "/a/../b=/tmp"), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_ctx_add_mount(&s, "=/tmp"), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_ctx_add_mount(&s, "/x="), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_ctx_add_mount(&s, "//x//=/tmp:rw"), 0);
	ck_assert_str_eq(s.anchors[1].vprefix, "/x");
	ck_assert(!s.anchors[1].ro);
	ck_assert_int_eq(ws_ctx_add_mount(&s, "/x=/tmp"), WS_EINVALID_ARGUMENT);
	ck_assert_int_eq(ws_ctx_add_mounts(&s, ",/y=/tmp,,"), 0);
	ck_assert_int_eq((int)s.nanchors, 3);
	ws_ctx_close(&s);
	/* Closing twice, or a context never opened, is harmless. */
	ws_ctx_close(&s);
	{
		struct ws_ctx z = {0};
		int fd = dup(1);

		/* A zeroed context owns no descriptor: fd 0 must survive. */
		ck_assert_int_eq(dup2(fd, 0), 0);
		ws_ctx_close(&z);
		ck_assert_int_ge(fcntl(0, F_GETFD), 0);
		close(fd);
	}
}
END_TEST

/*
 * The audit log opened with no symlink on the way (ws_audit_plain()):
 * the entries its spelling passes through are recorded from the
 * spelling, without a system call, and are those the resolution records
 * ("//", "." and ".." included; issue 22).
 */
START_TEST(file_guard_entries_from_spelling)
{
	struct ws_ctx a, b;
	char *real = realpath(T, NULL), *log = NULL;

	ck_assert_ptr_nonnull(real);
	wst_mkdir(T, "logs/sub");
	wst_write(T, "logs/audit.jsonl", "");
	ck_assert(asprintf(&log, "%s//logs/./sub/../audit.jsonl", real) > 0);
	ck_assert_int_eq(ws_ctx_open(&a, W, 0), 0);
	ck_assert_int_eq(ws_ctx_open(&b, W, 0), 0);
	ck_assert_int_eq(ws_ctx_guard_file(&a, log, true), 0);
	ck_assert_int_eq(ws_ctx_guard_file(&b, log, false), 0);
	/* b's spelling is recorded by its first check (i20-list); a's was
	 * recorded at once, and the check adds nothing to it. */
	(void)ws_ctx_guarded(&a, "/", false);
	(void)ws_ctx_guarded(&b, "/", false);
	ck_assert_uint_eq(a.nentries, b.nentries);
	for (size_t i = 0; i < a.nentries; i++)
		ck_assert_str_eq(a.entries[i], b.entries[i]);
	ck_assert(has_entry(&a, real, "logs"));
	ck_assert(has_entry(&a, real, "logs/audit.jsonl"));
	/* The log and what holds it are guarded all the same. */
	{
		char *f = wst_path(real, "logs/audit.jsonl"), *d = wst_path(real, "logs");

		ck_assert_int_ne(ws_ctx_guarded(&a, f, false), WS_GUARD_NONE);
		ck_assert_int_ne(ws_ctx_guarded(&a, d, true), WS_GUARD_NONE);
		free(f);
		free(d);
	}
	ws_ctx_close(&a);
	ws_ctx_close(&b);
	free(log);
	free(real);
}
END_TEST

/*
 * ws_home_place_resolve() with a memo (home's names read once, the first
 * component looked up there) finds what it finds without one: a link on
 * the way resolved, a missing or plain first component no link.
 */
START_TEST(place_resolve_memo)
{
	static const char *const rels[] = {
		".config/git", ".config", ".ssh/rc", ".missing/x", ".bashrc",
		".dangling/x", ".local/bin", "plain", "plain/x",
	};
	char tmpl[] = "/tmp/ws-resolve-XXXXXX", home[4096], p[4300];
	struct ws_place_memo memo = {0};

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, home));
	snprintf(p, sizeof(p), "%s/dotfiles/config/git", home);
	wst_mkdir(home, "dotfiles/config/git");
	wst_mkdir(home, "dotfiles/ssh");
	wst_mkdir(home, ".local");
	wst_write(home, "plain", "x\n");
	wst_symlink("dotfiles/config", home, ".config");
	wst_symlink("dotfiles/ssh", home, ".ssh");
	wst_symlink("nowhere", home, ".dangling");
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < sizeof(rels) / sizeof(rels[0]); i++) {
			char a[4300], b[4300], **e1, **e2;
			size_t n1, n2;
			int r1, r2;

			snprintf(p, sizeof(p), "%s/%s", home, rels[i]);
			a[0] = b[0] = '\0';
			r1 = ws_home_place_resolve(p, strlen(home), a, sizeof(a), &e1,
						   &n1, NULL);
			r2 = ws_home_place_resolve(p, strlen(home), b, sizeof(b), &e2,
						   &n2, &memo);
			ck_assert_msg(r1 == r2, "%s: %d %d", rels[i], r1, r2);
			if (r1 > 0)
				ck_assert_str_eq(a, b);
			for (size_t k = 0; k < n1; k++)
				free(e1[k]);
			for (size_t k = 0; k < n2; k++)
				free(e2[k]);
			free(e1);
			free(e2);
		}
	snprintf(p, sizeof(p), "%s/.config/git", home);
	{
		char out[4300], **e;
		size_t n;

		ck_assert_int_eq(ws_home_place_resolve(p, strlen(home), out, sizeof(out),
						       &e, &n, &memo), 1);
		snprintf(p, sizeof(p), "%s/dotfiles/config/git", home);
		ck_assert_str_eq(out, p);
		for (size_t k = 0; k < n; k++)
			free(e[k]);
		free(e);
	}
	ck_assert_int_eq(memo.listed, 1);
	ws_place_memo_free(&memo);
	wst_rmrf(home);
}
END_TEST

/*
 * ws_canonical_path() against realpath(3) of the deepest part that
 * exists, the rest applied lexically: through links (relative, chained,
 * to a file), "..", links that lead nowhere or into a loop, and a
 * file's name with more after it.  It asks the kernel for the whole
 * path at once (issue 20), so each of these must come out as
 * realpath(3) has it.
 */
START_TEST(canonical_path_as_realpath)
{
	static const struct {
		const char *rel, *want; /* want: below T's real path */
	} cases[] = {
		{"ws", "ws"},
		{"ws/missing/deeper", "ws/missing/deeper"},
		{"ln", "skills/nested"},
		{"ln/x/y", "skills/nested/x/y"},
		{"ln2/z", "skills/nested/z"},
		{"ln/../../ws/a", "ws/a"},
		{"ws/../skills/./nested", "skills/nested"},
		{"dangling", "dangling"},
		{"dangling/x", "dangling/x"},
		{"loop/x", "loop/x"},
		{"ws/f.txt", "ws/f.txt"},
		{"ws/f.txt/more", "ws/f.txt/more"},
		{"tofile", "ws/f.txt"},
	};
	char real[4096];

	ck_assert_ptr_nonnull(realpath(T, real));
	wst_write(W, "f.txt", "x\n");
	wst_symlink("skills/nested", T, "ln");
	wst_symlink("ln", T, "ln2");
	wst_symlink("nowhere", T, "dangling");
	wst_symlink("loop", T, "loop");
	wst_symlink("ws/f.txt", T, "tofile");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char in[4200], want[4200], *out = NULL;

		snprintf(in, sizeof(in), "%s/%s", T, cases[i].rel);
		snprintf(want, sizeof(want), "%s/%s", real, cases[i].want);
		ck_assert_int_eq(ws_canonical_path(in, &out), 0);
		ck_assert_msg(strcmp(out, want) == 0, "%s: %s, not %s", cases[i].rel,
			      out, want);
		free(out);
	}
	{
		char *out = NULL;

		ck_assert_int_eq(ws_canonical_path("/", &out), 0);
		ck_assert_str_eq(out, "/");
		free(out);
	}
}
END_TEST

/*
 * Review16 03: a link on a place's way that points at nothing resolves
 * to what it names, where the place would be made through it: an
 * absolute target, a relative one (with ".." over a missing directory,
 * taken lexically), and one through an existing link to a missing
 * directory; a link that loops is no place.
 */
START_TEST(place_resolve_dangling)
{
	static const char *const cases[][2] = {
		{".config/git", "ws/gitcfg"},
		{".config/git/config", "ws/gitcfg/config"},
		{".local/bin", "ws/loc/bin"},
		{".ssh/rc", "ws/real/ssh/rc"},
	};
	char tmpl[] = "/tmp/ws-dangle-XXXXXX", home[4096], p[4300], t[4300];
	struct ws_place_memo memo = {0};

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, home));
	wst_mkdir(home, ".config");
	wst_mkdir(home, "ws/real");
	snprintf(t, sizeof(t), "%s/ws/gitcfg", home);
	wst_symlink(t, home, ".config/git");
	wst_symlink("gone/../ws/loc", home, ".local");
	wst_symlink("real", home, "ws/via");
	wst_symlink("ws/via/ssh", home, ".ssh");
	wst_symlink(".loop", home, ".loop");
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			char out[4300], **e;
			size_t n;

			snprintf(p, sizeof(p), "%s/%s", home, cases[i][0]);
			ck_assert_int_eq(ws_home_place_resolve(p, strlen(home), out,
							       sizeof(out), &e, &n,
							       pass ? &memo : NULL), 1);
			snprintf(t, sizeof(t), "%s/%s", home, cases[i][1]);
			ck_assert_str_eq(out, t);
			for (size_t k = 0; k < n; k++)
				free(e[k]);
			free(e);
		}
		{
			char out[4300], **e;
			size_t n;

			snprintf(p, sizeof(p), "%s/.loop/x", home);
			ck_assert_int_eq(ws_home_place_resolve(p, strlen(home), out,
							       sizeof(out), &e, &n,
							       pass ? &memo : NULL), 0);
			for (size_t k = 0; k < n; k++)
				free(e[k]);
			free(e);
		}
	}
	ws_place_memo_free(&memo);
	wst_rmrf(home);
}
END_TEST

/*
 * sec16c: a place reached through a link in the workspace
 * (~/.config/git -> WS/a/gitcfg, WS/a -> b) is WS/b/gitcfg, and the
 * entries its resolution passed through are handed out (WS/a, WS/b) for
 * the sandbox to pin.
 */
START_TEST(home_places_ways)
{
	const char *wr = ws.anchors[0].real;
	char home[4300], t[4300], **ways = NULL, *homes[1] = {t};
	struct ws_home_place *hp = NULL;
	size_t nhp = 0, nways = 0;
	bool place = false, a = false, b = false;

	snprintf(home, sizeof(home), "%s/../home", wr);
	wst_mkdir(wr, "b/gitcfg");
	wst_symlink("b", wr, "a");
	wst_mkdir(home, ".config");
	snprintf(t, sizeof(t), "%s/a/gitcfg", wr);
	wst_symlink(t, home, ".config/git");
	ck_assert_ptr_nonnull(realpath(home, t));
	ck_assert_int_eq(ws_ctx_home_places_of(&ws, homes, 1, NULL, 0, &hp, &nhp,
					       &ways, &nways), 0);
	for (size_t i = 0; i < nhp; i++)
		place = place || (hp[i].anchor == 0 &&
				  strcmp(hp[i].rest, "b/gitcfg") == 0);
	for (size_t i = 0; i < nways; i++) {
		snprintf(t, sizeof(t), "%s/a", wr);
		a = a || strcmp(ways[i], t) == 0;
		snprintf(t, sizeof(t), "%s/b", wr);
		b = b || strcmp(ways[i], t) == 0;
		free(ways[i]);
	}
	free(ways);
	ws_home_places_free(hp, nhp);
	ck_assert(place);
	ck_assert(a);
	ck_assert(b);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("workspace");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, anchors);
	tcase_add_test(tc, shared_context);
	tcase_add_test(tc, anchor_lookups);
	tcase_add_test(tc, guard_spelling_recorded_on_first_check);
	tcase_add_test(tc, mapping_both_ways);
	tcase_add_test(tc, to_virtual_through_a_symlinked_spelling);
	tcase_add_test(tc, mount_specs);
	tcase_add_test(tc, spelling_entries_guarded);
	tcase_add_test(tc, file_guard_entries_from_spelling);
	tcase_add_test(tc, spelling_errors);
	tcase_add_test(tc, marker_changes);
	tcase_add_test(tc, place_resolve_memo);
	tcase_add_test(tc, canonical_path_as_realpath);
	tcase_add_test(tc, place_resolve_dangling);
	tcase_add_test(tc, home_places_ways);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
