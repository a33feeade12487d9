/*
 * ws/toolset.h - the tool definitions a model is given (lib/toolset.c):
 * sets made from the binaries' --schema definitions, and a check of a
 * definition set against the JSON Schema subsets that function-calling
 * APIs accept.
 *
 * A binary's --schema names every option it takes under --args, worded
 * for a person reading --help.  A model pays for every byte of its tool
 * list on every turn, and some APIs refuse parts of JSON Schema, so the
 * sets given to models keep each capability once, in short words, with
 * one type per property:
 *   "full"     every binary's --schema, as it prints it;
 *   "default"  the nine tools, short (what wstools mcp serves);
 *   "five"     read_file, write_file (edits included), list_directory,
 *              run_command, search_files, shorter still, for a small
 *              model whose tool calling handles five.
 * A binary's --args still takes every option; wstools call and wstools
 * mcp take only the keys of the set they serve (ws_cli_check_keys()).
 */
#ifndef WS_TOOLSET_H
#define WS_TOOLSET_H

#include <stdbool.h>
#include <stddef.h>

struct cJSON;

/* The set names, NULL-terminated ("full", "default", "five"). */
extern const char *const ws_toolset_names[];

/*
 * The definitions of set name, made from full (an array of --schema
 * function definitions, {"type": "function", "function": {...}}, every
 * tool once): a new array the caller frees, or NULL with the last error
 * set (INVALID_ARGUMENT for an unknown set, a tool missing from full).
 */
struct cJSON *ws_toolset_build(const char *name, const struct cJSON *full);

/* The dialects ws_toolset_check() knows, NULL-terminated. */
extern const char *const ws_toolset_dialects[];

/*
 * Whether every definition in defs (as ws_toolset_build() gives them)
 * is within dialect:
 *   "ajv-strict"     JSON Schema that Ajv compiles in strict mode: known
 *                    keywords only, one type per schema, "items" and
 *                    "properties" only under their type, every required
 *                    key a property;
 *   "gemini"         Gemini's function declarations (an OpenAPI 3.0
 *                    subset): type, description, enum, items,
 *                    properties, required, nullable, format, minimum,
 *                    maximum, minItems, maxItems; one type; no
 *                    additionalProperties, anyOf, $ref or default;
 *   "openai-strict"  OpenAI's strict function calling: every object with
 *                    additionalProperties false and every property
 *                    required, no default or format.
 * Returns true, or false with *why (malloc'd, the caller frees; may be
 * NULL without memory) naming the first offending tool, property and
 * rule.
 */
bool ws_toolset_check(const struct cJSON *defs, const char *dialect, char **why);

/*
 * Adapt defs in place to dialect, for an API that takes no other:
 * "gemini" drops additionalProperties (Gemini refuses the keyword; the
 * tools refuse unknown arguments all the same).  "ajv-strict" changes
 * nothing.  0, or INVALID_ARGUMENT for another dialect: "openai-strict"
 * needs every argument required, which optional ones cannot be.
 */
int ws_toolset_adapt(struct cJSON *defs, const char *dialect);

#endif
