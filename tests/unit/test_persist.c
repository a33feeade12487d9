/*
 * unit-persist: the password file's home (ws_passwd_parse_home(),
 * ws_passwd_file_home()), read without the name service so that a
 * static binary can have it: strict about what counts as a line.
 */
#include "wstest.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws/persist.h"

/* The home of uid in text (a C string), or "(null)". */
static char got[4096];

static const char *
home(const char *text, uid_t uid)
{
	char *h = ws_passwd_parse_home(text, strlen(text), uid);

	snprintf(got, sizeof(got), "%s", h != NULL ? h : "(null)");
	free(h);
	return got;
}

START_TEST(well_formed)
{
	const char *f =
	    "root:x:0:0:root:/root:/bin/bash\n"
	    "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
	    "alice:x:1000:1000:Alice A,,,:/home/alice:/bin/zsh\n"
	    "nologin:x:4294967294:65534::/nonexistent:";	/* no newline */

	ck_assert_str_eq(home(f, 0), "/root");
	ck_assert_str_eq(home(f, 1), "/usr/sbin");
	ck_assert_str_eq(home(f, 1000), "/home/alice");
	ck_assert_str_eq(home(f, 4294967294U), "/nonexistent");
	/* A home is given as written; the callers judge it. */
	ck_assert_str_eq(home("a:x:5:5::relative/dir:/bin/sh\n", 5), "relative/dir");
	/* CRLF: the shell field holds the \r, the home is intact. */
	ck_assert_str_eq(home("a:x:5:5::/h:/bin/sh\r\n", 5), "/h");
}
END_TEST

START_TEST(uid_not_found)
{
	const char *f = "root:x:0:0:root:/root:/bin/bash\n"
			"alice:x:1000:1000::/home/alice:/bin/sh\n";

	ck_assert_str_eq(home(f, 1001), "(null)");
	ck_assert_str_eq(home(f, 100), "(null)");	/* a prefix of 1000 */
	ck_assert_str_eq(home(f, 10000), "(null)");
	ck_assert_str_eq(home("", 0), "(null)");
	ck_assert_str_eq(home("\n\n\n", 0), "(null)");
	ck_assert_ptr_null(ws_passwd_parse_home(NULL, 0, 0));
}
END_TEST

START_TEST(comments_and_nis)
{
	/* A comment that would be a line for uid 7 is not one. */
	ck_assert_str_eq(home("#c:x:7:7::/commented:/bin/sh\n"
			      "c:x:7:7::/real:/bin/sh\n", 7), "/real");
	ck_assert_str_eq(home("# just a comment\n", 0), "(null)");
	/* NIS compatibility entries are the name service's, not ours. */
	ck_assert_str_eq(home("+nis:x:8:8::/plus:/bin/sh\n"
			      "-nis:x:8:8::/minus:/bin/sh\n"
			      "+\n"
			      "n:x:8:8::/file:/bin/sh\n", 8), "/file");
	/* A comment is a line starting with '#', not a '#' inside one. */
	ck_assert_str_eq(home("h:x:9:9:#gecos:/h9:/bin/sh\n", 9), "/h9");
}
END_TEST

START_TEST(missing_fields)
{
	/* Six fields (no shell), five, two, one: skipped, the next line
	 * with the uid counts. */
	ck_assert_str_eq(home("a:x:5:5::/six\n"
			      "a:x:5:5:/five\n"
			      "a:x\n"
			      "a\n"
			      "a:x:5:5::/seven:\n", 5), "/seven");
	/* Eight fields (a colon in the shell): skipped too. */
	ck_assert_str_eq(home("a:x:5:5::/eight:/bin/sh:more\n", 5), "(null)");
	/* No name. */
	ck_assert_str_eq(home(":x:5:5::/noname:/bin/sh\n", 5), "(null)");
	/* An empty home: no home, even if a later line has one. */
	ck_assert_str_eq(home("a:x:5:5:::/bin/sh\n"
			      "b:x:5:5::/later:/bin/sh\n", 5), "(null)");
}
END_TEST

START_TEST(malformed_uid)
{
	const char *bad[] = {
		"a:x::5::/empty:/bin/sh\n",
		"a:x:-5:5::/neg:/bin/sh\n",
		"a:x:+5:5::/plus:/bin/sh\n",
		"a:x: 5:5::/blank:/bin/sh\n",
		"a:x:5 :5::/blank:/bin/sh\n",
		"a:x:5a:5::/suffix:/bin/sh\n",
		"a:x:0x5:5::/hex:/bin/sh\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(strcmp(home(bad[i], 5), "(null)") == 0,
			      "%s: got %s", bad[i], got);
	/* Beyond uid_t, and (uid_t)-1 (no uid), not wrapped to one. */
	ck_assert_str_eq(home("a:x:4294967301:5::/wrap:/bin/sh\n", 5), "(null)");
	ck_assert_str_eq(home("a:x:99999999999999999999:5::/w:/bin/sh\n", 5), "(null)");
	ck_assert_str_eq(home("a:x:4294967295:5::/minus1:/bin/sh\n", (uid_t)-1),
			 "(null)");
	/* Leading zeros are still digits. */
	ck_assert_str_eq(home("a:x:005:5::/zeros:/bin/sh\n", 5), "/zeros");
}
END_TEST

START_TEST(nul_in_line)
{
	static const char f[] = "a:x:5:5::/h\0idden:/bin/sh\nb:x:5:5::/b:/bin/sh\n";
	char *h = ws_passwd_parse_home(f, sizeof(f) - 1, 5);

	/* The line with a NUL is skipped as a whole. */
	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(h, "/b");
	free(h);
	/* The length is the caller's: nothing past it is read. */
	h = ws_passwd_parse_home("a:x:5:5::/h:/bin/sh\n", 8, 5);
	ck_assert_ptr_null(h);
}
END_TEST

START_TEST(long_lines)
{
	size_t big = 200000;
	char *f = malloc(3 * big), *p = f, *h;

	/* A long GECOS on uid 5's line, then a long line of another uid
	 * whose tail looks like a line of uid 6, then uid 6's. */
	p += sprintf(p, "a:x:5:5:");
	memset(p, 'g', big);
	p += big;
	p += sprintf(p, ":/home/a:/bin/sh\n");
	p += sprintf(p, "b:x:7:7:");
	memset(p, 'h', big);
	p += big;
	p += sprintf(p, "x:x:6:6::/tail:/bin/sh\n");
	p += sprintf(p, "c:x:6:6::/home/c:/bin/sh\n");
	/* A long home, kept whole. */
	p += sprintf(p, "d:x:8:8::/");
	memset(p, 'd', big / 2);
	p += big / 2;
	p += sprintf(p, ":/bin/sh\n");
	ck_assert_str_eq(home(f, 5), "/home/a");
	ck_assert_str_eq(home(f, 6), "/home/c");
	h = ws_passwd_parse_home(f, (size_t)(p - f), 8);
	ck_assert_ptr_nonnull(h);
	ck_assert_uint_eq(strlen(h), big / 2 + 1);
	free(h);
	free(f);
}
END_TEST

START_TEST(from_a_file)
{
	char *dir = wst_tmpdir(), *p = wst_path(dir, "passwd"), *h;

	wst_write(dir, "passwd", "# local\nu:x:4242:4242::/home/u:/bin/sh\n");
	h = ws_passwd_file_home(p, 4242);
	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(h, "/home/u");
	free(h);
	ck_assert_ptr_null(ws_passwd_file_home(p, 4243));
	/* Not a regular file, or not there: none. */
	ck_assert_ptr_null(ws_passwd_file_home(dir, 4242));
	ck_assert_ptr_null(ws_passwd_file_home("/nonexistent/passwd", 4242));
	wst_rmrf(dir);
	free(p);
	free(dir);
}
END_TEST

/* The system's file gives the caller what getpwuid() does, where the
 * caller is listed there (CI's root is). */
START_TEST(system_file_as_getpwuid)
{
	char *a = ws_passwd_file_home("/etc/passwd", getuid());
	char *b = ws_passwd_home();

	if (a != NULL) {
		ck_assert_ptr_nonnull(b);
		ck_assert_str_eq(a, b);
	}
	free(a);
	free(b);
}
END_TEST

/* The process's PATH, kept while a test sets its own. */
static char *saved_path;

/* Whether the base b has e on its way. */
static bool
has_way(const struct ws_persist_base *b, const char *e)
{
	for (size_t k = 0; k < b->nway; k++)
		if (strcmp(b->way[k], e) == 0)
			return true;
	return false;
}

static void
path_save(void)
{
	const char *v = getenv("PATH");

	free(saved_path);
	saved_path = v != NULL ? strdup(v) : NULL;
}

static void
path_restore(void)
{
	if (saved_path != NULL)
		setenv("PATH", saved_path, 1);
	else
		unsetenv("PATH");
	free(saved_path);
	saved_path = NULL;
}

/*
 * Review12 05: the bases the environment moves a part of HOME's list to,
 * resolved (a missing tail appended, ".." in it lexical), HOME's own
 * defaults skipped; each kind takes its part of the list only.  Spelled
 * through a link, a base is one by its spelling too (sec14m), not with
 * ".." (what precedes it is on the way instead: review17 03).
 */
START_TEST(bases_from_environment)
{
	struct ws_persist_base *b;
	char tmpl[] = "/tmp/ws-persist-XXXXXX", dir[4096], p[4200], sub[4200];
	size_t n;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, dir));
	path_save();
	/* The kinds review13 added, as the machine's environment has them;
	 * no PATH (bases_path). */
	unsetenv("PATH");
	unsetenv("PYENV_ROOT");
	unsetenv("CARGO_HOME");
	unsetenv("RUSTUP_HOME");
	unsetenv("NVM_DIR");
	unsetenv("BASH_ENV");
	unsetenv("ENV");
	snprintf(sub, sizeof(sub), "%s/real", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(p, sizeof(p), "%s/link", dir);
	ck_assert_int_eq(symlink("real", p), 0);
	setenv("HOME", dir, 1);
	snprintf(p, sizeof(p), "%s//.config/", dir);
	setenv("XDG_CONFIG_HOME", p, 1);	/* HOME's default: skipped */
	snprintf(p, sizeof(p), "%s/link/a/b/", dir);
	setenv("XDG_DATA_HOME", p, 1);
	setenv("ZDOTDIR", "relative/zsh", 1);	/* relative: ignored */
	snprintf(p, sizeof(p), "%s/link/nope/../x", dir);
	setenv("PYTHONUSERBASE", p, 1);		/* ".." in the missing part */
	snprintf(p, sizeof(p), "%s/link/gitconfig", dir);
	setenv("GIT_CONFIG_GLOBAL", p, 1);
	ck_assert_int_eq(ws_persist_bases(&b, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(b[0].kind, WS_PERSIST_XDG_DATA);
	snprintf(p, sizeof(p), "%s/real/a/b", dir);
	ck_assert_str_eq(b[0].dir, p);
	ck_assert_int_eq(b[1].kind, WS_PERSIST_XDG_DATA);
	snprintf(p, sizeof(p), "%s/link/a/b", dir);
	ck_assert_str_eq(b[1].dir, p);
	ck_assert_uint_eq(b[1].nway, 0);
	/* The link and what it leads to are on the way. */
	snprintf(p, sizeof(p), "%s/link", dir);
	ck_assert(has_way(&b[0], p));
	snprintf(p, sizeof(p), "%s/real", dir);
	ck_assert(has_way(&b[0], p));
	ck_assert_int_eq(b[2].kind, WS_PERSIST_PYUSER);
	snprintf(p, sizeof(p), "%s/real/x", dir);
	ck_assert_str_eq(b[2].dir, p);
	/* What precedes the "..": made a link, it would move the base. */
	snprintf(p, sizeof(p), "%s/real/nope", dir);
	ck_assert(has_way(&b[2], p));
	ck_assert_int_eq(b[3].kind, WS_PERSIST_GITCFG);
	snprintf(p, sizeof(p), "%s/real/gitconfig", dir);
	ck_assert_str_eq(b[3].dir, p);
	ck_assert_int_eq(b[4].kind, WS_PERSIST_GITCFG);
	snprintf(p, sizeof(p), "%s/link/gitconfig", dir);
	ck_assert_str_eq(b[4].dir, p);
	/* What each kind takes, and how it is shown. */
	for (size_t i = 0; i < ws_home_persist_n; i++) {
		bool cfg = strncmp(ws_home_persist[i], ".config/", 8) == 0;
		bool z = strncmp(ws_home_persist[i], ".z", 2) == 0;

		ck_assert(ws_persist_path("/x", WS_PERSIST_XDG_CONFIG, i, p,
					  sizeof(p)) == cfg);
		ck_assert(ws_persist_path("/x", WS_PERSIST_ZDOTDIR, i, p,
					  sizeof(p)) == z);
		if (strcmp(ws_home_persist[i], ".config/git/") == 0)
			ck_assert_str_eq(p, "/x/git");
		if (strcmp(ws_home_persist[i], ".gitconfig") == 0) {
			ck_assert(ws_persist_path("/x/c", WS_PERSIST_GITCFG, i, p,
						  sizeof(p)));
			ck_assert_str_eq(p, "/x/c");
			ws_persist_show(WS_PERSIST_GITCFG, ws_home_persist[i], p,
					sizeof(p));
			ck_assert_str_eq(p, "$GIT_CONFIG_GLOBAL");
		}
	}
	ck_assert_str_eq(ws_persist_in("/u/py", WS_PERSIST_PYUSER,
				       "/u/py/lib/python3.12/site-packages/a.pth"),
			 ".local/lib/");
	ck_assert_ptr_null(ws_persist_in("/u/py", WS_PERSIST_PYUSER, "/u/py/bin/x"));
	ws_persist_show(WS_PERSIST_XDG_CONFIG, ".config/git/", p, sizeof(p));
	ck_assert_str_eq(p, "$XDG_CONFIG_HOME/git");
	ws_persist_show(WS_PERSIST_HOME, ".config/git/", p, sizeof(p));
	ck_assert_str_eq(p, "~/.config/git");
	ws_persist_bases_free(b, n);
	path_restore();
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(p), 0);
}
END_TEST

/*
 * Review13 02: PYENV_ROOT, CARGO_HOME, RUSTUP_HOME and NVM_DIR take the
 * places under ~/.pyenv/, ~/.cargo/, ~/.rustup/ and ~/.nvm/; BASH_ENV
 * and ENV name the file itself (.bashrc's and .kshrc's only, not
 * .bashrc.d/); HOME's defaults are skipped.
 */
START_TEST(bases_review13)
{
	static const char *const unset[] = {
		"XDG_CONFIG_HOME", "XDG_DATA_HOME", "ZDOTDIR", "PYTHONUSERBASE",
		"GIT_CONFIG_GLOBAL",
	};
	struct ws_persist_base *b;
	char p[4200];
	size_t n, hits = 0;

	for (size_t i = 0; i < sizeof(unset) / sizeof(unset[0]); i++)
		unsetenv(unset[i]);
	path_save();
	unsetenv("PATH");
	setenv("HOME", "/tmp", 1);
	setenv("PYENV_ROOT", "/tmp/ws-review13/py", 1);
	setenv("CARGO_HOME", "/tmp/ws-review13/cargo", 1);
	setenv("RUSTUP_HOME", "/tmp/.rustup", 1);	/* HOME's default */
	setenv("NVM_DIR", "/tmp/ws-review13/nvm", 1);
	setenv("BASH_ENV", "/tmp/ws-review13/benv", 1);
	setenv("ENV", "/tmp/ws-review13/shenv", 1);
	ck_assert_int_eq(ws_persist_bases(&b, &n), 0);
	path_restore();
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(b[0].kind, WS_PERSIST_PYENV);
	ck_assert_int_eq(b[1].kind, WS_PERSIST_CARGO);
	ck_assert_int_eq(b[2].kind, WS_PERSIST_NVM);
	ck_assert_int_eq(b[3].kind, WS_PERSIST_BASH_ENV);
	ck_assert_int_eq(b[4].kind, WS_PERSIST_ENV);
	ck_assert_str_eq(b[3].dir, "/tmp/ws-review13/benv");
	ws_persist_bases_free(b, n);
	ck_assert_str_eq(ws_persist_in("/c", WS_PERSIST_CARGO,
				       "/c/registry/src/i/d-1.0/build.rs"),
			 ".cargo/registry/");
	ck_assert_ptr_nonnull(ws_persist_in("/c", WS_PERSIST_CARGO, "/c/bin/x"));
	ck_assert_ptr_null(ws_persist_in("/c", WS_PERSIST_CARGO, "/c/.package-cache"));
	ck_assert_ptr_nonnull(ws_persist_in("/r", WS_PERSIST_RUSTUP,
					    "/r/toolchains/s/bin/cargo"));
	ck_assert_ptr_nonnull(ws_persist_in("/r", WS_PERSIST_RUSTUP,
					    "/r/settings.toml"));
	ck_assert_ptr_null(ws_persist_in("/r", WS_PERSIST_RUSTUP, "/r/tmp/x"));
	ck_assert_ptr_nonnull(ws_persist_in("/p", WS_PERSIST_PYENV, "/p/shims/python3"));
	ck_assert_ptr_nonnull(ws_persist_in("/n", WS_PERSIST_NVM, "/n/nvm.sh"));
	ck_assert_ptr_nonnull(ws_persist_in("/e", WS_PERSIST_BASH_ENV, "/e"));
	ck_assert_ptr_nonnull(ws_persist_in("/k", WS_PERSIST_ENV, "/k"));
	for (size_t i = 0; i < ws_home_persist_n; i++)
		if (ws_persist_path("/e", WS_PERSIST_BASH_ENV, i, p, sizeof(p))) {
			ck_assert_str_eq(ws_home_persist[i], ".bashrc");
			ck_assert_str_eq(p, "/e");
			hits++;
		}
	ck_assert_uint_eq(hits, 1);
	ws_persist_show(WS_PERSIST_NVM, ".nvm/", p, sizeof(p));
	ck_assert_str_eq(p, "$NVM_DIR");
	ws_persist_show(WS_PERSIST_CARGO, ".cargo/registry/", p, sizeof(p));
	ck_assert_str_eq(p, "$CARGO_HOME/registry");
	ws_persist_show(WS_PERSIST_BASH_ENV, ".bashrc", p, sizeof(p));
	ck_assert_str_eq(p, "$BASH_ENV");
	ck_assert_ptr_null(ws_persist_in("/tmp", WS_PERSIST_HOME, "/tmp/.cargo/.package-cache"));
	ck_assert_ptr_nonnull(ws_persist_in("/tmp", WS_PERSIST_HOME, "/tmp/.cargo/git/x"));
	ck_assert_ptr_nonnull(ws_persist_in("/tmp", WS_PERSIST_HOME, "/tmp/.zcompdump"));
	ck_assert_ptr_nonnull(ws_persist_in("/tmp", WS_PERSIST_HOME, "/tmp/.bash_completion"));
	for (const char *const *v = (const char *const[]){"PYENV_ROOT",
		"CARGO_HOME", "RUSTUP_HOME", "NVM_DIR", "BASH_ENV", "ENV", NULL};
	     *v != NULL; v++)
		unsetenv(*v);
}
END_TEST

/*
 * Review14 01: each directory of PATH is a place, the base itself (as
 * ~/.local/bin is), resolved and taken once; ~/.local/bin spelled from
 * HOME is not a base; one spelled through a link is a base by its
 * spelling too.  Review17: an empty or relative entry is the current
 * directory or one below it (02); a dangling link's target is the base,
 * the link on its way (05); every entry is taken, however many (04).
 */
START_TEST(bases_path)
{
	static const char *const unset[] = {
		"XDG_CONFIG_HOME", "XDG_DATA_HOME", "ZDOTDIR", "PYTHONUSERBASE",
		"GIT_CONFIG_GLOBAL", "PYENV_ROOT", "CARGO_HOME", "RUSTUP_HOME",
		"NVM_DIR", "BASH_ENV", "ENV",
	};
	struct ws_persist_base *b;
	char tmpl[] = "/tmp/ws-persist-XXXXXX", dir[4096], p[20800], *pv;
	char cwd[4096];
	size_t n, hits = 0, pl;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, dir));
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(dir), 0);
	path_save();
	for (size_t i = 0; i < sizeof(unset) / sizeof(unset[0]); i++)
		unsetenv(unset[i]);
	setenv("HOME", dir, 1);
	snprintf(p, sizeof(p), "%s/venv", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/venv/bin", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/lnk", dir);
	ck_assert_int_eq(symlink("venv", p), 0);
	snprintf(p, sizeof(p), "%s/tools", dir);
	ck_assert_int_eq(symlink("realdir", p), 0);
	/* The venv's bin by its link and again by its name, a missing
	 * node_modules/.bin, ~/.local/bin, relative and empty entries, a
	 * dangling link's. */
	snprintf(p, sizeof(p), "%s/lnk/bin/::.:..:bin:%s/venv//bin:%s/.local/bin:"
		 "%s/nm/.bin:/:%s/tools/bin", dir, dir, dir, dir, dir);
	setenv("PATH", p, 1);
	ck_assert_int_eq(ws_persist_bases(&b, &n), 0);
	ck_assert_uint_eq(n, 6);
	for (size_t k = 0; k < n; k++)
		ck_assert_int_eq(b[k].kind, WS_PERSIST_PATH);
	snprintf(p, sizeof(p), "%s/venv/bin", dir);
	ck_assert_str_eq(b[0].dir, p);
	/* And by its spelling through the link, normalized (a command
	 * that replaced lnk with a directory would plant lnk/bin/ls). */
	snprintf(p, sizeof(p), "%s/lnk/bin", dir);
	ck_assert_str_eq(b[1].dir, p);
	/* "bin" is below the current directory; "" and "." are it, and
	 * not taken. */
	snprintf(p, sizeof(p), "%s/bin", dir);
	ck_assert_str_eq(b[2].dir, p);
	snprintf(p, sizeof(p), "%s/nm/.bin", dir);
	ck_assert_str_eq(b[3].dir, p);
	/* The dangling link's target, where the shell looks once it is
	 * made, and the link by its spelling; the link on the way. */
	snprintf(p, sizeof(p), "%s/realdir/bin", dir);
	ck_assert_str_eq(b[4].dir, p);
	snprintf(p, sizeof(p), "%s/tools", dir);
	ck_assert(has_way(&b[4], p));
	snprintf(p, sizeof(p), "%s/tools/bin", dir);
	ck_assert_str_eq(b[5].dir, p);
	/* The base is the place: what is in it, not what is beside it. */
	snprintf(p, sizeof(p), "%s/venv/bin/ls", dir);
	ck_assert_ptr_nonnull(ws_persist_in(b[0].dir, WS_PERSIST_PATH, p));
	ck_assert_ptr_nonnull(ws_persist_in(b[0].dir, WS_PERSIST_PATH, b[0].dir));
	snprintf(p, sizeof(p), "%s/venv/lib/x.py", dir);
	ck_assert_ptr_null(ws_persist_in(b[0].dir, WS_PERSIST_PATH, p));
	snprintf(p, sizeof(p), "%s/venv", dir);
	ck_assert_ptr_nonnull(ws_persist_reached(b[0].dir, WS_PERSIST_PATH, p));
	for (size_t i = 0; i < ws_home_persist_n; i++)
		if (ws_persist_path(b[0].dir, WS_PERSIST_PATH, i, p, sizeof(p))) {
			ck_assert_str_eq(p, b[0].dir);
			hits++;
		}
	ck_assert_uint_eq(hits, 1);
	ws_persist_show(WS_PERSIST_PATH, ".local/bin/", p, sizeof(p));
	ck_assert_str_eq(p, "a directory on $PATH");
	ws_persist_bases_free(b, n);
	/* More directories than the 64 taken before review17 04: all. */
	pl = 200 * (strlen(dir) + 16);
	ck_assert_ptr_nonnull(pv = malloc(pl));
	pv[0] = '\0';
	for (size_t i = 0; i < 200; i++)
		snprintf(pv + strlen(pv), pl - strlen(pv), "%s%s/d%zu", i ? ":" : "",
			 dir, i);
	setenv("PATH", pv, 1);
	free(pv);
	ck_assert_int_eq(ws_persist_bases(&b, &n), 0);
	path_restore();
	ck_assert_uint_eq(n, 200);
	snprintf(p, sizeof(p), "%s/d199", dir);
	ck_assert_str_eq(b[n - 1].dir, p);
	ws_persist_bases_free(b, n);
	/*
	 * Two directories through one link, and the link's own directory
	 * beside them: the resolutions share what readlink() said of each
	 * prefix (one ask a prefix, a run of bases), and each base still
	 * has the link on its way, and its target where the link led.
	 */
	snprintf(p, sizeof(p), "%s/venv/sbin", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/lnk/bin:%s/lnk/sbin:%s/venv/sbin", dir, dir, dir);
	setenv("PATH", p, 1);
	ck_assert_int_eq(ws_persist_bases(&b, &n), 0);
	path_restore();
	{
		char lnk[4200], want[4200];
		size_t real_bases = 0;

		snprintf(lnk, sizeof(lnk), "%s/lnk", dir);
		for (size_t k = 0; k < n; k++) {
			if (strstr(b[k].dir, "/lnk/") != NULL)
				continue; /* the spellings */
			real_bases++;
			snprintf(want, sizeof(want), "%s/venv/%s", dir,
				 real_bases == 1 ? "bin" : "sbin");
			ck_assert_str_eq(b[k].dir, want);
			ck_assert_msg(has_way(&b[k], lnk), "%s", b[k].dir);
		}
		ck_assert_uint_eq(real_bases, 2);
	}
	ws_persist_bases_free(b, n);
	ck_assert_int_eq(chdir(cwd), 0);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(p), 0);
}
END_TEST

/*
 * Review19 06: a PATH entry whose way holds a link loop (a/lp -> lp), or
 * a file, cannot be resolved and is where nothing is made, but a
 * command that replaced the loop (or the file) with a directory would
 * make it one the next shell looks in: it is a base by its spelling,
 * with its way up to the failure, relative ones from the current
 * directory, so that the way is pinned.
 */
START_TEST(bases_path_loop)
{
	struct ws_persist_base *b;
	char tmpl[] = "/tmp/ws-persist-XXXXXX", dir[4096], p[20800], cwd[4096];
	size_t n;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, dir));
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(dir), 0);
	path_save();
	for (const char *const *v = (const char *const[]){"XDG_CONFIG_HOME",
		"XDG_DATA_HOME", "ZDOTDIR", "PYTHONUSERBASE", "GIT_CONFIG_GLOBAL",
		"PYENV_ROOT", "CARGO_HOME", "RUSTUP_HOME", "NVM_DIR", "BASH_ENV",
		"ENV", NULL}; *v != NULL; v++)
		unsetenv(*v);
	setenv("HOME", dir, 1);
	snprintf(p, sizeof(p), "%s/a", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/a/lp", dir);
	ck_assert_int_eq(symlink("lp", p), 0);
	snprintf(p, sizeof(p), "%s/f", dir);
	ck_assert_int_ge(fd = open(p, O_CREAT | O_WRONLY, 0600), 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/a/lp/tools:%s/f/bin:a/lp/rel", dir, dir);
	setenv("PATH", p, 1);
	ck_assert_int_eq(ws_persist_bases(&b, &n), 0);
	path_restore();
	ck_assert_uint_eq(n, 3);
	snprintf(p, sizeof(p), "%s/a/lp/tools", dir);
	ck_assert_str_eq(b[0].dir, p);
	snprintf(p, sizeof(p), "%s/a/lp", dir);
	ck_assert(has_way(&b[0], p));
	snprintf(p, sizeof(p), "%s/a", dir);
	ck_assert(has_way(&b[0], p));
	snprintf(p, sizeof(p), "%s/f/bin", dir);
	ck_assert_str_eq(b[1].dir, p);
	snprintf(p, sizeof(p), "%s/f", dir);
	ck_assert(has_way(&b[1], p));
	snprintf(p, sizeof(p), "%s/a/lp/rel", dir);
	ck_assert_str_eq(b[2].dir, p);
	snprintf(p, sizeof(p), "%s/a/lp", dir);
	ck_assert(has_way(&b[2], p));
	ws_persist_bases_free(b, n);
	ck_assert_int_eq(chdir(cwd), 0);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(p), 0);
}
END_TEST

/*
 * ws_persist_places() lists exactly the places ws_persist_path() takes
 * for each kind, ascending (callers skip the others: issue 20).
 */
START_TEST(places_of_each_kind)
{
	char p[4096];

	for (int k = 0; k < WS_PERSIST_NKINDS; k++) {
		const size_t *idx;
		size_t n = ws_persist_places(k, &idx), j = 0;

		for (size_t i = 0; i < ws_home_persist_n; i++) {
			bool takes = ws_persist_path("/x", k, i, p, sizeof(p));

			if (j < n && idx[j] == i) {
				ck_assert(takes);
				j++;
			} else {
				ck_assert(!takes);
			}
		}
		ck_assert_uint_eq(j, n);
	}
	/* HOME's kind takes every place. */
	{
		const size_t *idx;

		ck_assert_uint_eq(ws_persist_places(WS_PERSIST_HOME, &idx),
				  ws_home_persist_n);
	}
}
END_TEST

/*
 * Review25 08: what the rc files source and what terminals start were
 * writable with HOME as the workspace (~/.fzf.bash: the next bash ran
 * it).  Each is a place now; a neighbour of the same stem is not.
 */
START_TEST(sourced_and_start_up_places)
{
	static const char *const in[] = {
		"/h/.fzf.bash", "/h/.p10k.zsh", "/h/.deno/env", "/h/.rye/env",
		"/h/.zinit/plugins/x.zsh", "/h/.config/ghostty/config",
		"/h/.config/foot/foot.ini", "/h/.local/share/konsole/a.profile",
		"/h/.elvish/rc.elv",
	};

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		ck_assert_msg(ws_persist_in("/h", WS_PERSIST_HOME, in[i]), "%s", in[i]);
	ck_assert(!ws_persist_in("/h", WS_PERSIST_HOME, "/h/.fzf.bash.example"));
	ck_assert(!ws_persist_in("/h", WS_PERSIST_HOME, "/h/.deno/cache"));
}
END_TEST

/*
 * Review25 08, the other half: what the start-up files source, read
 * from them.  parsed() gives ws_rc_sourced_parse()'s paths (home "/h")
 * joined by "|", in the order found.
 */
static char rcgot[8192];

static const char *
parsed(const char *text, bool cut)
{
	char **v = NULL;
	size_t n = 0, at = 0;

	ck_assert_int_eq(ws_rc_sourced_parse(text, strlen(text), cut, "/h", &v, &n), 0);
	rcgot[0] = '\0';
	for (size_t k = 0; k < n; k++) {
		at += (size_t)snprintf(rcgot + at, sizeof(rcgot) - at, "%s%s",
				       k ? "|" : "", v[k]);
		free(v[k]);
	}
	free(v);
	return rcgot;
}

START_TEST(rc_sourced_spellings)
{
	ck_assert_str_eq(parsed("source ~/.a\n", false), ".a");
	ck_assert_str_eq(parsed(". ~/.b", false), ".b");
	ck_assert_str_eq(parsed("[ -f ~/.fzf.bash ] && source ~/.fzf.bash\n", false),
			 ".fzf.bash");
	ck_assert_str_eq(parsed("[[ -s \"$HOME/.d\" ]] && . \"$HOME/.d\"\n", false), ".d");
	ck_assert_str_eq(parsed("test -r ${HOME}/.e && . ${HOME}/.e\n", false), ".e");
	ck_assert_str_eq(parsed("if [ -f ~/.f ]; then . ~/.f; fi\n", false), ".f");
	ck_assert_str_eq(parsed("if [ -f \"${HOME}/.g/env\" ]; then\n"
				"\t. \"${HOME}/.g/env\"\nfi\n", false), ".g/env");
	ck_assert_str_eq(parsed(". \"$HOME/.deno/env\"\n", false), ".deno/env");
	/* Relative: the shell starts in HOME. */
	ck_assert_str_eq(parsed("source .h\n. ./sub/../.m\n", false), ".h|.m");
	/* Absolute below the home, not beside it. */
	ck_assert_str_eq(parsed(". /h/.i\n. /h2/.x\n. /etc/bash_completion\n", false), ".i");
	/* A glob or a loop: the directory. */
	ck_assert_str_eq(parsed("for f in ~/.j.d/*.sh; do . \"$f\"; done\n", false), ".j.d/");
	ck_assert_str_eq(parsed("source ~/.k/*.zsh\n", false), ".k/");
	ck_assert_str_eq(parsed("for f in ~/.aliases ~/.functions\ndo\n  . $f\ndone\n",
				false), ".aliases|.functions");
	/* Each once; after other commands on the line; with "--". */
	ck_assert_str_eq(parsed("x=1; source ~/.a || true\nsource -- ~/.a\n", false), ".a");
	/* Single quotes: the literal path. */
	ck_assert_str_eq(parsed(". '/h/.sq'\n", false), ".sq");
}
END_TEST

START_TEST(rc_sourced_ignored)
{
	/* Comments, and source as an argument. */
	ck_assert_str_eq(parsed("# source ~/.x\n  # . ~/.y\necho source ~/.z\n", false), "");
	ck_assert_str_eq(parsed("alias s='source ~/.x'\n", false), "");
	/* Other variables and expansions than HOME's. */
	ck_assert_str_eq(parsed("source $ZDOTDIR/.z\n. \"$XDG_CONFIG_HOME/x\"\n"
				"source ${ZDOTDIR:-$HOME}/.p\n. $HOMEX/.q\n"
				"source $(brew --prefix)/x\n. `pwd`/x\n"
				"source ~other/.x\n. \"~/.lit\"x\n", false), "~/.litx");
	/* HOME itself, and above it. */
	ck_assert_str_eq(parsed("for f in ~/*; do . $f; done\nsource ~\n"
				". ~/../x\n. ../y\n", false), "");
	/* A quote left open: not a word we know. */
	ck_assert_str_eq(parsed(". \"$HOME/.open\n", false), "");
	/* Cut at the bound: its last, cut line is not looked at. */
	ck_assert_str_eq(parsed("source ~/.a\nsource ~/.partial", true), ".a");
	ck_assert_str_eq(parsed("source ~/.a\nsource ~/.partial", false), ".a|.partial");
}
END_TEST

/* Whether one of b's n bases is dir (below home) of kind SOURCED. */
static bool
has_sourced(const struct ws_persist_base *b, size_t n, const char *home,
	    const char *rel)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", home, rel);
	for (size_t k = 0; k < n; k++)
		if (b[k].kind == WS_PERSIST_SOURCED && strcmp(b[k].dir, p) == 0)
			return true;
	return false;
}

START_TEST(rc_sourced_from_files)
{
	char *h = wst_tmpdir(), *out = wst_tmpdir(), real[4096], p[4096];
	struct ws_persist_base *b = NULL;
	size_t n = 0, big = WS_RC_MAX + 100;
	char *text = malloc(big + 64), *homes[1];

	ck_assert_ptr_nonnull(realpath(h, real));
	homes[0] = real;
	unsetenv("ZDOTDIR");
	unsetenv("BASH_ENV");
	unsetenv("ENV");
	unsetenv("XDG_CONFIG_HOME");
	/* Two levels: .bashrc sources .my-env.sh, which sources .lvl2.sh;
	 * what .lvl2.sh sources is not read. */
	wst_write(real, ".bashrc", "# mine\n[ -f ~/.fzf.bash ] && source ~/.fzf.bash\n"
		  "source ~/.my-env.sh\n. /etc/profile.d/x.sh\n. ~/.bashrc.d/a\n");
	wst_write(real, ".my-env.sh", ". \"$HOME/.lvl2.sh\"\n");
	wst_write(real, ".lvl2.sh", ". ~/.lvl3.sh\n");
	/* A link out of the home is not followed; one in it is. */
	snprintf(p, sizeof(p), "%s/outside", out);
	wst_write(out, "outside", "source ~/.via-outside\n");
	wst_symlink(p, real, ".bash_profile");
	wst_mkdir(real, "dotfiles");
	wst_write(real, "dotfiles/zshrc", "source ~/.zsh-inner\n");
	wst_symlink("dotfiles/zshrc", real, ".zshrc");
	/* A link on the way (stow's ~/.config -> dotfiles/config), and a
	 * relative one that leads above the home. */
	wst_write(real, "dotfiles/config/fish/config.fish", "source ~/.fish-extra\n");
	wst_symlink("dotfiles/config", real, ".config");
	wst_write(out, "up.sh", "source ~/.via-up\n");
	snprintf(p, sizeof(p), "../../%s/up.sh", strrchr(out, '/') + 1);
	wst_symlink(p, real, "dotfiles/up");
	wst_symlink("dotfiles/up", real, ".bash_login");
	/* Past the bound: not looked at. */
	memset(text, '#', big);
	memcpy(text, "source ~/.early\n", 16);
	text[WS_RC_MAX - 1] = '\n';
	snprintf(text + big, 64, "\nsource ~/.late\n");
	wst_write(real, ".profile", text);
	free(text);
	ck_assert_int_eq(ws_persist_sourced_add(homes, 1, &b, &n), 0);
	/* Listed already (a HOME place): not taken again. */
	ck_assert(!has_sourced(b, n, real, ".fzf.bash"));
	ck_assert(has_sourced(b, n, real, ".my-env.sh"));
	ck_assert(has_sourced(b, n, real, ".lvl2.sh"));
	ck_assert(has_sourced(b, n, real, ".zsh-inner"));
	ck_assert(has_sourced(b, n, real, ".fish-extra"));
	ck_assert(has_sourced(b, n, real, ".early"));
	ck_assert(!has_sourced(b, n, real, ".lvl3.sh"));
	ck_assert(!has_sourced(b, n, real, ".via-outside"));
	ck_assert(!has_sourced(b, n, real, ".via-up"));
	ck_assert(!has_sourced(b, n, real, ".late"));
	/* A listed place is not taken again. */
	ck_assert(!has_sourced(b, n, real, ".bashrc.d/a"));
	for (size_t k = 0; k < n; k++) {
		ck_assert_int_eq(b[k].kind, WS_PERSIST_SOURCED);
		ck_assert_msg(strncmp(b[k].dir, real, strlen(real)) == 0, "%s", b[k].dir);
	}
	/* The base is the place, a file's and a directory's. */
	ck_assert_int_lt(snprintf(p, sizeof(p), "%s/.my-env.sh", real), (int)sizeof(p));
	ck_assert_ptr_nonnull(ws_persist_in(p, WS_PERSIST_SOURCED, p));
	ck_assert_int_lt(snprintf(p, sizeof(p), "%s/.d", real), (int)sizeof(p));
	ck_assert_ptr_nonnull(ws_persist_in(p, WS_PERSIST_SOURCED, "/x/nope") == NULL
			      ? "ok" : NULL);
	{
		char q[4096];

		ck_assert_int_lt(snprintf(q, sizeof(q), "%s/.d/f.sh", real), (int)sizeof(q));
		ck_assert_ptr_nonnull(ws_persist_in(p, WS_PERSIST_SOURCED, q));
		ws_persist_show(WS_PERSIST_SOURCED, ws_persist_in(p, WS_PERSIST_SOURCED, q),
				q, sizeof(q));
		ck_assert_msg(strstr(q, "start-up files sources") != NULL, "%s", q);
	}
	ws_persist_bases_free(b, n);
	wst_rmrf(h);
	wst_rmrf(out);
	free(h);
	free(out);
}
END_TEST

/*
 * All of a home's start-up files together are read up to WS_RC_BUDGET:
 * four of WS_RC_MAX each use it up, and what the fifth sources is not
 * taken (what the four do is).
 */
START_TEST(rc_sourced_budget)
{
	static const char *const rc[] = {".bashrc", ".bash_profile", ".bash_login",
					 ".profile"};
	char *h = wst_tmpdir(), real[4096], *homes[1], *text = malloc(WS_RC_MAX);
	struct ws_persist_base *b = NULL;
	size_t n = 0;

	ck_assert_int_eq(4 * WS_RC_MAX, WS_RC_BUDGET);
	ck_assert_ptr_nonnull(realpath(h, real));
	homes[0] = real;
	unsetenv("ZDOTDIR");
	unsetenv("BASH_ENV");
	unsetenv("ENV");
	unsetenv("XDG_CONFIG_HOME");
	for (size_t i = 0; i < 4; i++) {
		memset(text, '#', WS_RC_MAX);
		snprintf(text, 32, "source ~/.x%zu\n", i);
		text[strlen(text)] = '#';
		text[WS_RC_MAX - 1] = '\0';
		wst_write(real, rc[i], text);
	}
	free(text);
	wst_write(real, ".bash_aliases", "source ~/.late5\n");
	ck_assert_int_eq(ws_persist_sourced_add(homes, 1, &b, &n), 0);
	ck_assert(has_sourced(b, n, real, ".x0"));
	ck_assert(has_sourced(b, n, real, ".x3"));
	ck_assert(!has_sourced(b, n, real, ".late5"));
	ws_persist_bases_free(b, n);
	wst_rmrf(h);
	free(h);
}
END_TEST

/*
 * Review28 07: with HOME the workspace, coding agents' user configuration
 * (the MCP servers and hooks they start at the person's next session)
 * was writable.  Each is a place now; a neighbour of the same stem, and
 * Cursor's other files, are not.
 */
START_TEST(agent_config_places)
{
	static const char *const in[] = {
		"/h/.claude.json", "/h/.claude.json.backup", "/h/.claude/settings.json",
		"/h/.claude/commands/x.md", "/h/.claude/hooks/h.sh",
		"/h/.codex/config.toml", "/h/.gemini/settings.json",
		"/h/.codeium/windsurf/mcp_config.json",
		"/h/.config/opencode/opencode.json", "/h/.continue/config.yaml",
		"/h/.cursor/mcp.json",
	};

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		ck_assert_msg(ws_persist_in("/h", WS_PERSIST_HOME, in[i]), "%s", in[i]);
	ck_assert(!ws_persist_in("/h", WS_PERSIST_HOME, "/h/.claude.json.tmp"));
	ck_assert(!ws_persist_in("/h", WS_PERSIST_HOME, "/h/.claudex/x"));
	ck_assert(!ws_persist_in("/h", WS_PERSIST_HOME, "/h/.cursor/argv.json"));
	/* Under XDG_CONFIG_HOME elsewhere, opencode's moves with it. */
	ck_assert(ws_persist_in("/x", WS_PERSIST_XDG_CONFIG, "/x/opencode/opencode.json"));
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("unit-persist");
	TCase *tc = tcase_create("passwd");

	tcase_add_test(tc, well_formed);
	tcase_add_test(tc, uid_not_found);
	tcase_add_test(tc, comments_and_nis);
	tcase_add_test(tc, missing_fields);
	tcase_add_test(tc, malformed_uid);
	tcase_add_test(tc, nul_in_line);
	tcase_add_test(tc, long_lines);
	tcase_add_test(tc, from_a_file);
	tcase_add_test(tc, system_file_as_getpwuid);
	tcase_add_test(tc, bases_from_environment);
	tcase_add_test(tc, bases_review13);
	tcase_add_test(tc, bases_path);
	tcase_add_test(tc, bases_path_loop);
	tcase_add_test(tc, places_of_each_kind);
	tcase_add_test(tc, sourced_and_start_up_places);
	tcase_add_test(tc, rc_sourced_spellings);
	tcase_add_test(tc, rc_sourced_ignored);
	tcase_add_test(tc, rc_sourced_from_files);
	tcase_add_test(tc, rc_sourced_budget);
	tcase_add_test(tc, agent_config_places);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
