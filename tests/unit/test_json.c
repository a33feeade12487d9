/* test_json.c - the streaming JSON writer stays valid for any bytes. */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef WST_JSON_PORTABLE
/*
 * The same suite on the writer built without SSE2: the word-at-a-time
 * scan that other machines run, here on x86_64 too.  Its definitions
 * take the place of libws's json.c in this program.
 */
#define WS_JSON_NO_SIMD 1
#include "../../lib/json.c"
#endif

#include "wstest.h"
#include "ws/error.h"
#include "ws/json.h"
#include "ws/path.h"

/* Run fn on a writer to a memory stream; return what it wrote. */
static char *
capture(void (*fn)(struct ws_jw *))
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct ws_jw jw;

	ws_jw_init(&jw, f);
	fn(&jw);
	fclose(f);
	return buf;
}

static void
w_nested(struct ws_jw *jw)
{
	ws_jw_obj(jw);
	ws_jw_kstr(jw, "a", "x\"y\\z\n\t\x01");
	ws_jw_kint(jw, "n", -42);
	ws_jw_kbool(jw, "t", true);
	ws_jw_knull(jw, "z");
	ws_jw_key(jw, "arr");
	ws_jw_arr(jw);
	ws_jw_int(jw, 1);
	ws_jw_obj(jw);
	ws_jw_obj_end(jw);
	ws_jw_arr(jw);
	ws_jw_arr_end(jw);
	ws_jw_str(jw, NULL);
	ws_jw_arr_end(jw);
	ws_jw_obj_end(jw);
}

START_TEST(nested_values)
{
	char *s = capture(w_nested);
	cJSON *j = cJSON_Parse(s);

	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "a")->valuestring, "x\"y\\z\n\t\x01");
	ck_assert_int_eq(cJSON_GetObjectItem(j, "n")->valueint, -42);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "t")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "z")));
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "arr")), 4);
	cJSON_Delete(j);
	free(s);
}
END_TEST

static void
w_badname(struct ws_jw *jw)
{
	ws_jw_obj(jw);
	ws_jw_kname(jw, "name", "bad\xff\xfename");
	ws_jw_kname(jw, "good", "caf\xc3\xa9");
	ws_jw_obj_end(jw);
}

START_TEST(non_utf8_names_are_reversible)
{
	char *s = capture(w_badname);
	cJSON *j = cJSON_Parse(s);
	const char *b;

	ck_assert_ptr_nonnull(j);
	/* Lossy form for people, exact bytes in base64 for programs. */
	ck_assert_str_eq(cJSON_GetObjectItem(j, "name")->valuestring,
			 "bad\xef\xbf\xbd\xef\xbf\xbdname");
	b = cJSON_GetObjectItem(j, "name_bytes")->valuestring;
	ck_assert_str_eq(b, "YmFk//5uYW1l");
	ck_assert_str_eq(cJSON_GetObjectItem(j, "good")->valuestring, "caf\xc3\xa9");
	ck_assert_ptr_null(cJSON_GetObjectItem(j, "good_bytes"));
	cJSON_Delete(j);
	free(s);
}
END_TEST

/*
 * A repeated key is found at any depth (inside arrays too), named with
 * where it is, in small objects and in large ones (sorted), and only at
 * the top when not deep.
 */
START_TEST(unique_keys)
{
	static const struct {
		const char *json;
		const char *where; /* NULL: no repeated key */
	} cases[] = {
		{"{}", NULL},
		{"{\"a\":1,\"b\":{\"a\":1}}", NULL},
		{"[1,{\"x\":[{\"y\":1}]}]", NULL},
		{"{\"a\":1,\"a\":1}", "key \"a\" is given more than once:"},
		{"{\"edits\":[{\"old\":\"a\"},{\"old\":\"a\",\"new\":1,\"old\":2}]}",
		 "key \"old\" is given more than once in \"edits[1]\""},
		{"{\"a\":{\"b\":[[{\"c\":{\"d\":1,\"d\":2}}]]}}",
		 "in \"a.b[0][0].c\""},
		{"[{\"\":1,\"\":2}]", "key \"\" is given more than once in \"[0]\""},
	};
	char big[8192];
	size_t n = 0;
	cJSON *j;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		j = cJSON_Parse(cases[i].json);
		ck_assert_ptr_nonnull(j);
		if (cases[i].where == NULL) {
			ck_assert_int_eq(ws_json_unique_keys(j, true), 0);
		} else {
			ck_assert_int_eq(ws_json_unique_keys(j, true),
					 WS_EINVALID_ARGUMENT);
			ck_assert_msg(strstr(ws_error_last(), cases[i].where) != NULL,
				      "%s: %s", cases[i].json, ws_error_last());
		}
		cJSON_Delete(j);
	}
	/* Nested ones are not looked at when not deep. */
	j = cJSON_Parse("{\"a\":{\"b\":1,\"b\":2}}");
	ck_assert_int_eq(ws_json_unique_keys(j, false), 0);
	ck_assert_int_eq(ws_json_unique_keys(j, true), WS_EINVALID_ARGUMENT);
	cJSON_Delete(j);
	/* 500 keys: sorted, not compared pairwise; the repeat is the last. */
	n += (size_t)snprintf(big + n, sizeof(big) - n, "{");
	for (int i = 0; i < 500; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "\"k%d\":%d,", i, i);
	snprintf(big + n, sizeof(big) - n, "\"k0\":1}");
	j = cJSON_Parse(big);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(ws_json_unique_keys(j, true), WS_EINVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "\"k0\""));
	cJSON_DeleteItemFromArray(j, 500);
	ck_assert_int_eq(ws_json_unique_keys(j, true), 0);
	cJSON_Delete(j);
}
END_TEST

START_TEST(base64)
{
	static const struct {
		const char *in, *out;
	} t[] = {{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
		 {"foobar", "Zm9vYmFy"}};

	for (size_t i = 0; i < 5; i++) {
		char *o = ws_base64(t[i].in, strlen(t[i].in));

		ck_assert_str_eq(o, t[i].out);
		free(o);
	}
}
END_TEST

static void
w_bigb64(struct ws_jw *jw)
{
	static unsigned char data[10000];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7);
	ws_jw_base64(jw, data, sizeof(data));
}

START_TEST(streamed_base64_matches)
{
	static unsigned char data[10000];
	char *s = capture(w_bigb64), *want;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7);
	want = ws_base64(data, sizeof(data));
	ck_assert_uint_eq(strlen(s), strlen(want) + 2);
	ck_assert(strncmp(s + 1, want, strlen(want)) == 0);
	{
		/* Into a ws_jbuf, after and before long raw text. */
		struct ws_jbuf b = {0};
		struct ws_jw jw;
		char *raw = malloc(5001);

		ck_assert_ptr_nonnull(raw);
		memset(raw, '1', 5000);
		raw[5000] = '\0';
		ws_jw_init_buf(&jw, &b);
		ws_jw_arr(&jw);
		ws_jw_raw(&jw, raw);
		w_bigb64(&jw);
		ws_jw_rawn(&jw, raw, 1500);
		ws_jw_arr_end(&jw);
		ck_assert(!b.oom);
		ck_assert_uint_eq(b.n, 1 + 5000 + 1 + strlen(s) + 1 + 1500 + 1);
		ck_assert(strncmp(b.p + 1, raw, 5000) == 0);
		ck_assert(strncmp(b.p + 5002, s, strlen(s)) == 0);
		ck_assert(strncmp(b.p + 5003 + strlen(s), raw, 1500) == 0);
		ck_assert_str_eq(b.p + 6503 + strlen(s), "]");
		free(raw);
		free(b.p);
	}
	free(want);
	free(s);
}
END_TEST


/*
 * The escaper as it was before it scanned in blocks (issue 20), kept as
 * the reference: the new one must write the same bytes for any input.
 */
static size_t
ref_utf8_seq(const unsigned char *s, size_t n)
{
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	return ws_utf8_valid((const char *)s, len) ? len : 0;
}

static void
ref_string(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	putc('"', f);
	while (i < n) {
		unsigned char c = s[i];
		size_t l;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			run++;
			continue;
		}
		if (run) {
			fwrite(s + i - run, 1, run, f);
			run = 0;
		}
		switch (c) {
		case '"': fputs("\\\"", f); i++; continue;
		case '\\': fputs("\\\\", f); i++; continue;
		case '\n': fputs("\\n", f); i++; continue;
		case '\r': fputs("\\r", f); i++; continue;
		case '\t': fputs("\\t", f); i++; continue;
		default: break;
		}
		if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		l = ref_utf8_seq(s + i, n - i);
		if (l == 0) {
			fputs("\xef\xbf\xbd", f);
			i++;
			continue;
		}
		fwrite(s + i, 1, l, f);
		i += l;
	}
	if (run)
		fwrite(s + i - run, 1, run, f);
	putc('"', f);
}

static char *
ref_escape(const char *s, size_t n, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	ck_assert_ptr_nonnull(f);
	ref_string(f, s, n);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

/*
 * s[0..n) through ws_jw_strn(), from a copy in a buffer of exactly n
 * bytes (so that ASan sees a block load past its end), to a stream and
 * to a ws_jbuf; both must be the reference's bytes.  With names, also as
 * a key and through ws_jw_kname() (its _bytes when not UTF-8).
 */
static void
check_escape_as(const char *s, size_t n, bool names)
{
	char *copy = malloc(n ? n : 1), *got = NULL, *want;
	size_t glen = 0, wlen;
	FILE *f = open_memstream(&got, &glen);
	struct ws_jbuf b = {0};
	struct ws_jw jw;

	ck_assert_ptr_nonnull(copy);
	ck_assert_ptr_nonnull(f);
	memcpy(copy, s, n);
	ws_jw_init(&jw, f);
	ws_jw_strn(&jw, copy, n);
	ck_assert_int_eq(fclose(f), 0);
	ws_jw_init_buf(&jw, &b);
	ws_jw_strn(&jw, copy, n);
	want = ref_escape(s, n, &wlen);
	if (glen != wlen || memcmp(got, want, wlen) != 0) {
		size_t i = 0;

		while (i < glen && i < wlen && got[i] == want[i])
			i++;
		ck_abort_msg("escaping %zu bytes differs at output byte %zu "
			     "(%zu bytes, want %zu)", n, i, glen, wlen);
	}
	ck_assert(!b.oom);
	ck_assert_uint_eq(b.n, wlen);
	ck_assert(memcmp(b.p, want, wlen) == 0);
	free(b.p);
	if (names && memchr(s, '\0', n) == NULL) {
		/* As a key, and as a name: _bytes when not UTF-8. */
		char *z = malloc(n + 1);
		bool valid = ws_utf8_valid(s, n);

		ck_assert_ptr_nonnull(z);
		memcpy(z, s, n);
		z[n] = '\0';
		memset(&b, 0, sizeof(b));
		ws_jw_init_buf(&jw, &b);
		ws_jw_obj(&jw);
		ws_jw_kstr(&jw, z, "v");
		ws_jw_kname(&jw, "k", z);
		ws_jw_obj_end(&jw);
		ck_assert_uint_ge(b.n, wlen + 10);
		ck_assert(b.p[0] == '{');
		ck_assert(memcmp(b.p + 1, want, wlen) == 0);
		ck_assert(memcmp(b.p + 1 + wlen, ":\"v\",\"k\":", 9) == 0);
		ck_assert(memcmp(b.p + 10 + wlen, want, wlen) == 0);
		if (valid)
			ck_assert_str_eq(b.p + 10 + 2 * wlen, "}");
		else
			ck_assert(strncmp(b.p + 10 + 2 * wlen, ",\"k_bytes\":\"",
					  12) == 0);
		free(b.p);
		free(z);
	}
	free(want);
	free(got);
	free(copy);
}

/* The same, as a key and as a name too. */
static void
check_escape(const char *s, size_t n)
{
	check_escape_as(s, n, true);
}

/* Every byte value, alone and inside runs of plain ASCII. */
START_TEST(escape_every_byte)
{
	char buf[80];

	for (int c = 0; c < 256; c++) {
		buf[0] = (char)c;
		check_escape(buf, 1);
		for (size_t pre = 0; pre < 40; pre += 7) {
			memset(buf, 'a', sizeof(buf));
			buf[pre] = (char)c;
			check_escape(buf, pre + 1);
			check_escape(buf, pre + 1 + 20);
			check_escape(buf, sizeof(buf));
		}
	}
}
END_TEST

/*
 * A byte that needs work at every position 0-64 of inputs of every
 * length up to 80: each block boundary and each tail of the 16- and
 * 8-byte scans.
 */
START_TEST(escape_block_boundaries)
{
	static const char *const special[] = {
		"\0", "\"", "\\", "\n", "\x1f", "\x7f", "\x80", "\xff",
		"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xe2\x82",
		"\xed\xa0\x80", "\xc0\xaf", " ", "~",
	};
	char buf[96];

	for (size_t k = 0; k < sizeof(special) / sizeof(special[0]); k++) {
		size_t sl = k == 0 ? 1 : strlen(special[k]);

		for (size_t pos = 0; pos <= 64; pos++)
			for (size_t n = pos + sl; n <= 80; n++) {
				/* Each tail after it up to a block long
				 * (where the word and the bytes one by one
				 * take over), and the longest. */
				if (n > pos + sl + 17 && n < 80)
					continue;
				memset(buf, 'x', sizeof(buf));
				memcpy(buf + pos, special[k], sl);
				check_escape_as(buf, n, false);
				/* Two of them, one block apart. */
				if (n == 80 && pos + 16 + sl <= n) {
					memcpy(buf + pos + 16, special[k], sl);
					check_escape_as(buf, n, false);
				}
			}
	}
}
END_TEST

/* Valid and invalid UTF-8 of each length, also cut short at the end. */
START_TEST(escape_utf8)
{
	static const char *const seq[] = {
		/* valid: the least and the most of each length */
		"\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xef\xbf\xbf",
		"\xed\x9f\xbf", "\xee\x80\x80", "\xf0\x90\x80\x80",
		"\xf4\x8f\xbf\xbf",
		/* overlong */
		"\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf",
		"\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf",
		/* surrogates */
		"\xed\xa0\x80", "\xed\xbf\xbf",
		/* past U+10FFFF, lead bytes that cannot lead */
		"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf7\xbf\xbf\xbf",
		"\xf8\x88\x80\x80\x80", "\xfc\x84\x80\x80\x80\x80", "\xfe", "\xff",
		/* continuation bytes alone, bad continuations */
		"\x80", "\xbf", "\x80\x80\x80", "\xc3\x28", "\xe2\x28\xa1",
		"\xe2\x82\x28", "\xf0\x28\x8c\xbc", "\xf0\x90\x28\xbc",
		"\xf0\x90\x8c\x28", "\xc3\xc3\xa9",
	};
	char buf[64];

	for (size_t k = 0; k < sizeof(seq) / sizeof(seq[0]); k++) {
		size_t sl = strlen(seq[k]);

		check_escape(seq[k], sl);
		/* Every cut of it at the end of the input. */
		for (size_t cut = 1; cut < sl; cut++) {
			check_escape(seq[k], cut);
			memset(buf, 'a', sizeof(buf));
			memcpy(buf + 20, seq[k], cut);
			check_escape(buf, 20 + cut);
		}
		/* Twice in a row, then plain text, then once more. */
		snprintf(buf, sizeof(buf), "%s%sabc\n%s", seq[k], seq[k], seq[k]);
		check_escape(buf, strlen(buf));
	}
}
END_TEST

/* A pseudo-random generator of our own: the same inputs every run. */
static uint64_t
rnd(uint64_t *st)
{
	*st ^= *st << 13;
	*st ^= *st >> 7;
	*st ^= *st << 17;
	return *st;
}

/*
 * Long inputs: text with a special byte now and then, text in several
 * scripts, random bytes, and one long clean run (written past the
 * writer's buffer in one go).
 */
START_TEST(escape_long_inputs)
{
	static const char *const pieces[] = {
		"int x = 1;", "\n", "\t", "\"q\"", "a\\b", "caf\xc3\xa9",
		"\xe4\xb8\xad\xe6\x96\x87", "\xf0\x9f\x98\x80", "\xff", "\x01",
		"\r\n", "                                                ",
	};
	size_t n = 60000;
	char *buf = malloc(n);
	uint64_t st = 0x9e3779b97f4a7c15u;

	ck_assert_ptr_nonnull(buf);
	for (int round = 0; round < 4; round++) {
		size_t i = 0;

		while (i < n) {
			const char *p = pieces[rnd(&st) % (sizeof(pieces) / sizeof(pieces[0]))];
			size_t l = strlen(p);

			if (round == 2) {
				buf[i++] = (char)(rnd(&st) & 0xff);
				continue;
			}
			if (round == 3) {
				buf[i++] = (char)(' ' + rnd(&st) % 95);
				if (buf[i - 1] == '"' || buf[i - 1] == '\\')
					buf[i - 1] = '.';
				continue;
			}
			if (round == 1 && (rnd(&st) & 1))
				p = pieces[6];
			l = strlen(p);
			if (l > n - i)
				l = n - i;
			memcpy(buf + i, p, l);
			i += l;
		}
		check_escape(buf, n);
		/* And shorter ones, from each start modulo the block size. */
		for (size_t off = 0; off < 17; off++)
			check_escape(buf + off, 5000 - off * 3);
	}
	free(buf);
}
END_TEST

/* The text buffer writes integers as the writer and "%lld" do. */
START_TEST(jbuf_integers)
{
	static const long long v[] = {LLONG_MIN, LLONG_MIN + 1, -10, -1, 0, 9,
				      10, 1234567890123LL, LLONG_MAX};
	struct ws_jbuf b = {0};
	char want[32];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		b.n = 0;
		ws_jbuf_int(&b, v[i]);
		snprintf(want, sizeof(want), "%lld", v[i]);
		ck_assert_str_eq(b.p, want);
	}
	free(b.p);
}
END_TEST

/* Keys, integers and the _bytes of names, byte for byte as before. */
static void
w_values(struct ws_jw *jw)
{
	ws_jw_obj(jw);
	ws_jw_kint(jw, "min", LLONG_MIN);
	ws_jw_kint(jw, "max", LLONG_MAX);
	ws_jw_kint(jw, "zero", 0);
	ws_jw_kint(jw, "neg", -10);
	ws_jw_kname(jw, "good", "caf\xc3\xa9");
	ws_jw_kname(jw, "cut", "caf\xc3");
	ws_jw_kname(jw, "none", NULL);
	ws_jw_kstr(jw, "k\"ey\x01", "v");
	ws_jw_key(jw, "a");
	ws_jw_arr(jw);
	ws_jw_int(jw, 7);
	ws_jw_bool(jw, false);
	ws_jw_rawn(jw, "{\"r\":1}xyz", 7);
	ws_jw_null(jw);
	ws_jw_base64(jw, "hi", 2);
	ws_jw_arr_end(jw);
	ws_jw_knull(jw, "n");
	ws_jw_kbool(jw, "t", true);
	ws_jw_obj_end(jw);
}

START_TEST(values_byte_for_byte)
{
	char *s = capture(w_values);
	struct ws_jbuf b = {0};
	struct ws_jw jw;

	ck_assert_str_eq(s, "{\"min\":-9223372036854775808,"
			 "\"max\":9223372036854775807,\"zero\":0,\"neg\":-10,"
			 "\"good\":\"caf\xc3\xa9\",\"cut\":\"caf\xef\xbf\xbd\","
			 "\"cut_bytes\":\"Y2Fmww==\",\"none\":null,"
			 "\"k\\\"ey\\u0001\":\"v\",\"a\":[7,false,{\"r\":1},null,"
			 "\"aGk=\"],\"n\":null,\"t\":true}");
	/* The same into a buffer. */
	ws_jw_init_buf(&jw, &b);
	w_values(&jw);
	ck_assert_str_eq(b.p, s);
	free(b.p);
	free(s);
}
END_TEST

/*
 * ws_json_parse(): cJSON's parse with the error position returned, not
 * kept in cJSON's global (calls side by side in wstools mcp), and the
 * same answers from threads parsing at once.
 */
struct parse_job {
	const char *text;
	int bad;
};

static void *
parse_many(void *arg)
{
	struct parse_job *j = arg;

	for (int i = 0; i < 2000; i++) {
		const char *end = NULL;
		cJSON *v = ws_json_parse(j->text, WS_JSON_STR, &end, true);

		if ((v == NULL) != (strchr(j->text, '!') != NULL))
			j->bad++;
		else if (v == NULL && (end == NULL || *end != '!'))
			j->bad++;
		cJSON_Delete(v);
	}
	return NULL;
}

START_TEST(parse_error_position)
{
	const char *end = NULL, *t = "{\"a\": [1, 2,, 3]}";
	struct parse_job jobs[4] = {{"{\"k\": \"v\"}", 0}, {"[1, !2]", 0},
				    {"{\"x\": !}", 0}, {"\"s\"", 0}};
	pthread_t th[4];
	cJSON *v;

	ck_assert_ptr_null(ws_json_parse(t, WS_JSON_STR, &end, true));
	ck_assert_ptr_eq(end, strstr(t, ",,") + 1);
	/* Something after the value: refused only when asked. */
	ck_assert_ptr_null(ws_json_parse("{} x", WS_JSON_STR, &end, true));
	v = ws_json_parse("{} x", WS_JSON_STR, &end, false);
	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(end, " x");
	cJSON_Delete(v);
	/* A length that stops before the text does. */
	v = ws_json_parse("[1][2]", 3, NULL, false);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(cJSON_GetArraySize(v), 1);
	cJSON_Delete(v);
	ck_assert_ptr_null(ws_json_parse(NULL, 0, &end, false));
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, parse_many, &jobs[i]), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(jobs[i].bad, 0);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, nested_values);
	tcase_add_test(tc, non_utf8_names_are_reversible);
	tcase_add_test(tc, base64);
	tcase_add_test(tc, unique_keys);
	tcase_add_test(tc, streamed_base64_matches);
	tcase_add_test(tc, escape_every_byte);
	tcase_add_test(tc, escape_block_boundaries);
	tcase_add_test(tc, escape_utf8);
	tcase_add_test(tc, escape_long_inputs);
	tcase_add_test(tc, values_byte_for_byte);
	tcase_add_test(tc, jbuf_integers);
	tcase_add_test(tc, parse_error_position);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
