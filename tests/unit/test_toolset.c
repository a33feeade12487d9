/*
 * test_toolset.c - the tool sets given to models (lib/toolset.c): built
 * from --schema definitions, a property a binary lost is an error, and
 * the dialect checker's rules, each shown failing on a schema that breaks
 * it and passing on one that does not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "wstest.h"
#include "ws/error.h"
#include "ws/toolset.h"

/* One definition: name, and parameters as JSON text. */
static cJSON *
def(const char *name, const char *params)
{
	cJSON *d = cJSON_CreateObject(), *fn = cJSON_AddObjectToObject(d, "function");

	cJSON_AddStringToObject(d, "type", "function");
	cJSON_AddStringToObject(fn, "name", name);
	cJSON_AddStringToObject(fn, "description", "a long description for people");
	cJSON_AddItemToObject(fn, "parameters", cJSON_Parse(params));
	return d;
}

/* An array of one definition. */
static cJSON *
one(const char *params)
{
	cJSON *a = cJSON_CreateArray();

	cJSON_AddItemToArray(a, def("t", params));
	return a;
}

/* Whether params pass dialect; *why kept for the caller in w (or freed). */
static bool
passes(const char *params, const char *dialect, char **w)
{
	cJSON *a = one(params);
	char *why = NULL;
	bool ok = ws_toolset_check(a, dialect, &why);

	cJSON_Delete(a);
	if (w != NULL)
		*w = why;
	else
		free(why);
	return ok;
}

START_TEST(checker_rules)
{
	char *why = NULL;

	/* Ajv strict: one type, known keywords, required among properties. */
	ck_assert(passes("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},"
			 "\"additionalProperties\":false,\"required\":[\"a\"]}",
			 "ajv-strict", NULL));
	ck_assert(!passes("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
			  "[\"array\",\"string\"],\"items\":{\"type\":\"string\"}}}}",
			  "ajv-strict", &why));
	ck_assert_msg(strstr(why, "t: a: one type") != NULL, "%s", why);
	free(why);
	ck_assert(!passes("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\","
			  "\"format\":\"uri\"}}}", "ajv-strict", NULL));
	ck_assert(!passes("{\"type\":\"object\",\"properties\":{},\"required\":[\"b\"]}",
			  "ajv-strict", &why));
	ck_assert_msg(strstr(why, "required \"b\"") != NULL, "%s", why);
	free(why);
	ck_assert(!passes("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\","
			  "\"items\":{\"type\":\"string\"}}}}", "ajv-strict", NULL));
	/* Gemini: no additionalProperties, a type everywhere, nested too. */
	ck_assert(passes("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\","
			 "\"items\":{\"type\":\"string\"}}}}", "gemini", NULL));
	ck_assert(!passes("{\"type\":\"object\",\"properties\":{},"
			  "\"additionalProperties\":false}", "gemini", NULL));
	ck_assert(!passes("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\","
			  "\"items\":{\"anyOf\":[{\"type\":\"string\"}]}}}}", "gemini", &why));
	ck_assert_msg(strstr(why, "a.items") != NULL, "%s", why);
	free(why);
	/* OpenAI strict: additionalProperties false and every property required. */
	ck_assert(passes("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
			 "[\"string\",\"null\"]}},\"additionalProperties\":false,"
			 "\"required\":[\"a\"]}", "openai-strict", NULL));
	ck_assert(!passes("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},"
			  "\"additionalProperties\":false}", "openai-strict", &why));
	ck_assert_msg(strstr(why, "\"a\" is optional") != NULL, "%s", why);
	free(why);
	ck_assert(!passes("{\"type\":\"object\",\"properties\":{}}", "nosuch", NULL));
}
END_TEST

/* The nine definitions a set is made from, each with the properties the
 * sets name (a copy of what the binaries print is not needed). */
static cJSON *
full_set(const char *drop)
{
	static const char *const tools[][2] = {
		{"list_directory", "path,paths,all,long,recursive,depth,sort,exclude,"
				   "no_ignore,directory,max_entries,offset,fields"},
		{"read_file", "path,paths,start_line,end_line,tail,line_numbers,base64,"
			      "max_bytes"},
		{"write_file", "path,content,content_base64,append,create_only,dry_run,"
			       "diff,if_version,old,new,all,edits,mkdir"},
		{"edit_file", "path,old,new,all,edits,dry_run,if_version"},
		{"create_directory", "path,dry_run"},
		{"move_path", "source,destination,force,dry_run,if_version"},
		{"delete_path", "path,recursive,dry_run,if_version"},
		{"search_files", "pattern,paths,output_mode,fixed_strings,ignore_case,"
				 "word_regexp,invert_match,multiline,context,before_context,"
				 "after_context,max_count,include,exclude,type,hidden,"
				 "no_ignore,max_depth,max_results,offset,time_budget,count"},
		{"run_command", "command,cwd,timeout,stdin,env,max_output"},
	};
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		cJSON *d = def(tools[i][0], "{\"type\":\"object\",\"properties\":{},"
				"\"required\":[\"path\"]}");
		cJSON *props = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
			d, "function"), "parameters"), "properties");
		char *list = strdup(tools[i][1]), *save = NULL;

		for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
			cJSON *s = cJSON_CreateObject();

			if (drop != NULL && strcmp(p, drop) == 0 &&
			    strcmp(tools[i][0], "search_files") == 0) {
				cJSON_Delete(s);
				continue;
			}
			cJSON_AddStringToObject(s, "type", "string");
			cJSON_AddStringToObject(s, "description", "long words");
			cJSON_AddItemToObject(props, p, s);
		}
		free(list);
		cJSON_AddItemToArray(a, d);
	}
	return a;
}

START_TEST(sets_from_definitions)
{
	cJSON *full = full_set(NULL), *set, *d;
	char *why = NULL;
	int n = 0;

	set = ws_toolset_build("five", full);
	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(cJSON_GetArraySize(set), 5);
	cJSON_ArrayForEach(d, set) {
		cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "function"), "parameters");
		char *text = cJSON_PrintUnformatted(p);

		/* Only the set's properties, its own words, no "long words". */
		ck_assert_ptr_null(strstr(text, "long words"));
		free(text);
		ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(p, "additionalProperties")));
		n++;
	}
	ck_assert(ws_toolset_check(set, "ajv-strict", &why));
	ck_assert_ptr_null(why);
	/* Adapted to Gemini: no additionalProperties left. */
	ck_assert(!ws_toolset_check(set, "gemini", &why));
	free(why);
	ck_assert_int_eq(ws_toolset_adapt(set, "gemini"), 0);
	ck_assert(ws_toolset_check(set, "gemini", &why));
	ck_assert_int_eq(ws_toolset_adapt(set, "openai-strict"), WS_EINVALID_ARGUMENT);
	cJSON_Delete(set);
	/* run_command's command is one type whatever the binary says. */
	set = ws_toolset_build("default", full);
	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(cJSON_GetArraySize(set), 9);
	d = cJSON_GetArrayItem(set, 8);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "function"),
							"parameters"), "properties"),
		"command"), "type")), "array");
	/* search_files' "count" boolean is not advertised (output_mode is). */
	ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(cJSON_GetArrayItem(set, 7), "function"), "parameters"),
		"properties"), "count"));
	cJSON_Delete(set);
	set = ws_toolset_build("full", full);
	ck_assert(cJSON_Compare(set, full, 1));
	cJSON_Delete(set);
	ck_assert_ptr_null(ws_toolset_build("nine", full));
	ck_assert_int_eq(ws_error_last_code(), WS_EINVALID_ARGUMENT);
	cJSON_Delete(full);
	/* A property the binary lost: an error naming it, not a silent gap. */
	full = full_set("time_budget");
	ck_assert_ptr_null(ws_toolset_build("default", full));
	ck_assert_ptr_nonnull(strstr(ws_error_last(), "time_budget"));
	cJSON_Delete(full);
	ws_error_clear();
	ck_assert_int_eq(n, 5);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("toolset");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, checker_rules);
	tcase_add_test(tc, sets_from_definitions);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
