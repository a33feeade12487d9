/* test_json.c - the streaming JSON writer stays valid for any bytes. */
#include <stdlib.h>
#include <string.h>

#include "wstest.h"
#include "ws/error.h"
#include "ws/json.h"

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
	free(want);
	free(s);
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
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
