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
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
