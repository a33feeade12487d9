/*
 * test_rxdfa.c - the DFA that finds wsgrep's matching lines (lib/rxdfa.c)
 * against PCRE2 itself: which patterns it takes and declines, every byte
 * against each class, and line by line on generated text, where it must
 * say "matches" of exactly the lines PCRE2 finds a match in.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wstest.h"
#include "ws/rxdfa.h"

static struct ws_rxdfa *
compile1(const char *p, bool icase)
{
	struct ws_rxdfa *d = NULL;

	ck_assert_int_eq(ws_rxdfa_compile(&p, 1, icase, &d), 0);
	return d;
}

/* Whether PCRE2 (no UTF, as wsgrep compiles it) matches in s[0..n). */
static bool
pcre2_has(const char *p, bool icase, const char *s, size_t n)
{
	int err;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)p, PCRE2_ZERO_TERMINATED,
				       PCRE2_MULTILINE |
				       (icase ? PCRE2_CASELESS : 0), &err, &off,
				       NULL);
	pcre2_match_data *md;
	int rc;

	ck_assert_msg(re != NULL, "PCRE2 refused %s", p);
	md = pcre2_match_data_create(1, NULL);
	rc = pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return rc >= 0;
}

START_TEST(declines)
{
	static const char *const no[] = {
		"^ab", "ab$", "\\bfoo", "foo\\B", "(?=a)b", "(?!a)b", "(?<=a)b",
		"(a)\\1", "(?i)ab", "a++b", "a*+b", "", "a*", "(a|)", "x?",
		"[^a]b", "a.b", "a{2", "a{,3}", "[[:alpha:]]b", "\\x41",
		"\\Aab", "ab\\z", "\\Kab", "(*UTF)a", "a\\Qb\\E", "\\h+a",
		"caf\xc3\xa9", "[]a]", "a]", "a}", "a{3}{2}", "\\w-a[\\w-z]",
		"(?<n>a)", "(?|a)", "\\",
	};

	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		struct ws_rxdfa *d = compile1(no[i], false);

		ck_assert_msg(d == NULL, "took %s", no[i]);
	}
}
END_TEST

START_TEST(takes)
{
	static const char *const yes[] = {
		"\\w{5}\\s+\\w{5}\\s+\\w{5}", "(foo|bar)\\d+", "[a-z_]+\\s*\\{",
		"a{2,}b?", "x{1,3}?y", "(?:ab|cd)*e", "[-a]x", "[a-]x", "\\.\\*",
		"[\\w.]+@[\\w.]+", "a{0}b", "\\t\\r\\f\\n|z",
	};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		struct ws_rxdfa *d = compile1(yes[i], false);

		ck_assert_msg(d != NULL, "declined %s", yes[i]);
		ws_rxdfa_free(d);
	}
}
END_TEST

/* Each class against every byte but '\n', with and without -i. */
START_TEST(classes_every_byte)
{
	static const char *const cls[] = {
		"\\w", "\\s", "\\d", "[a-f]", "[K-Q_]", "[\\d\\s]", "[Z-a]", "q",
		"Q", "[\\]\\-\\\\]", "[!-/]", "\\?", "\\t", "\\r",
	};

	for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++) {
		for (int ic = 0; ic < 2; ic++) {
			struct ws_rxdfa *d = compile1(cls[i], ic);

			ck_assert_msg(d != NULL, "declined %s", cls[i]);
			for (unsigned b = 0; b < 256; b++) {
				char s[1] = {(char)b};
				bool want = b != '\n' && pcre2_has(cls[i], ic, s, 1);

				ck_assert_msg((ws_rxdfa_scan(d, s, 1) < 1) == want,
					      "%s (icase %d) on byte %u", cls[i],
					      ic, b);
			}
			ws_rxdfa_free(d);
		}
	}
}
END_TEST

/*
 * Generated lines over a small alphabet (letters of both cases, digits,
 * blanks, punctuation, a high byte): every line that PCRE2 matches, and
 * only those, and a scan of the whole text stops in the first of them.
 */
static size_t
nlines(const char *s, size_t n)
{
	size_t k = 1;

	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

START_TEST(lines_as_pcre2)
{
	static const char *const pats[] = {
		"\\w{5}\\s+\\w{5}\\s+\\w{5}", "\\w{2}\\s+\\w{2}", "(ab|Cd)+e",
		"[a-c]{2,3}\\d", "x\\d*y", "(?:a|b)(?:c|d){2}", "\\s\\s\\w",
		"a{2,}b?c", "[!-/]\\w", "(foo|fo)o", "\\d{3,}", "_\\w+_",
		"(a+)+b", "ab|b\\s*c", "q{1,2}?r",
	};
	static const char word[] = "abcdeABCDEfoqrxy_0123";
	static const char sep[] = " \t\x0b\r.!-\xe9";
	size_t n = 60000, i = 0;
	char *text = malloc(n);
	unsigned seed = 21;

	/* Words of 1 to 8 bytes, one or two separators, a newline at times. */
	while (i < n) {
		seed = seed * 1103515245u + 12345u;
		for (unsigned k = 1 + (seed >> 8) % 8; k > 0 && i < n; k--) {
			seed = seed * 1103515245u + 12345u;
			text[i++] = word[(seed >> 8) % (sizeof(word) - 1)];
		}
		seed = seed * 1103515245u + 12345u;
		for (unsigned k = 1 + (seed >> 20) % 2; k > 0 && i < n; k--) {
			seed = seed * 1103515245u + 12345u;
			text[i++] = (seed >> 16) % 9 == 0 ? '\n' :
				    sep[(seed >> 8) % (sizeof(sep) - 1)];
		}
	}
	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		for (int ic = 0; ic < 2; ic++) {
			struct ws_rxdfa *d = compile1(pats[i], ic);
			size_t first = n, got = 0, want = 0;

			ck_assert_msg(d != NULL, "declined %s", pats[i]);
			for (size_t ls = 0; ls < n;) {
				const char *nl = memchr(text + ls, '\n', n - ls);
				size_t le = nl ? (size_t)(nl - text) : n;
				bool p = pcre2_has(pats[i], ic, text + ls, le - ls);
				bool q = ws_rxdfa_scan(d, text + ls, le - ls) <
					 le - ls;

				ck_assert_msg(p == q, "%s (icase %d), line at %zu: "
					      "PCRE2 %d, DFA %d", pats[i], ic,
					      ls, p, q);
				if (p && first == n)
					first = ls;
				want += p;
				got += q;
				ls = le + 1;
			}
			/* Some lines match and some do not: the test means it. */
			ck_assert_msg(want > 0 && want < nlines(text, n),
				      "%s (icase %d): %zu lines", pats[i], ic, want);
			{
				size_t k = ws_rxdfa_scan(d, text, n);

				ck_assert(k < n);
				ck_assert(k >= first);
				ck_assert(memchr(text + first, '\n', k - first) ==
					  NULL);
			}
			ws_rxdfa_free(d);
		}
	}
	free(text);
}
END_TEST

/* Several patterns are their alternation (wsgrep -e A -e B). */
START_TEST(several_patterns)
{
	const char *p[] = {"\\d\\d\\d", "[xy]{3}"};
	struct ws_rxdfa *d = NULL;
	const char *s = "a1b2\nxyx\nq";

	ck_assert_int_eq(ws_rxdfa_compile(p, 2, false, &d), 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(ws_rxdfa_scan(d, s, strlen(s)), 7);
	ck_assert_uint_eq(ws_rxdfa_scan(d, "12\n3", 4), 4);
	ws_rxdfa_free(d);
	p[1] = "(?=x)";
	ck_assert_int_eq(ws_rxdfa_compile(p, 2, false, &d), 0);
	ck_assert_ptr_null(d);
}
END_TEST

static Suite *
rxdfa_suite(void)
{
	Suite *s = suite_create("rxdfa");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, declines);
	tcase_add_test(tc, takes);
	tcase_add_test(tc, classes_every_byte);
	tcase_add_test(tc, lines_as_pcre2);
	tcase_add_test(tc, several_patterns);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(rxdfa_suite)
