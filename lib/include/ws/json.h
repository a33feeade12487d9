/*
 * ws/json.h - a streaming JSON writer that stays valid for any bytes.
 *
 * Output is written as it is produced, so a listing of 100,000 entries
 * needs no tree in memory.  Strings that are not valid UTF-8 are written
 * with U+FFFD in place of each bad byte, and ws_jw_kname() adds the exact
 * bytes in base64 under "<key>_bytes" so that nothing is lost.
 * (cJSON is used to parse --args and policies; it would build a whole
 * tree for output and passes invalid UTF-8 through unchanged.)
 */
#ifndef WS_JSON_H
#define WS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define WS_JW_MAXDEPTH 32

struct ws_jbuf;

struct ws_jw {
	FILE *f;
	struct ws_jbuf *buf;	/* set: written here, not to f */
	int depth;
	bool first[WS_JW_MAXDEPTH];
	bool after_key;
	bool pretty;
};

/* Start writing to f. */
void ws_jw_init(struct ws_jw *jw, FILE *f);

/*
 * Start writing to the end of b (struct ws_jbuf below) instead of a
 * stream: what a caller that measures a value before it keeps it uses,
 * without a memory stream to rewind and flush for each value.
 */
void ws_jw_init_buf(struct ws_jw *jw, struct ws_jbuf *b);

void ws_jw_obj(struct ws_jw *jw);     /* { */
void ws_jw_obj_end(struct ws_jw *jw); /* } */
void ws_jw_arr(struct ws_jw *jw);     /* [ */
void ws_jw_arr_end(struct ws_jw *jw); /* ] */

/* An object key; the next value call writes its value. */
void ws_jw_key(struct ws_jw *jw, const char *key);

/* Values.  ws_jw_strn() takes arbitrary bytes (see above). */
void ws_jw_str(struct ws_jw *jw, const char *s);
void ws_jw_strn(struct ws_jw *jw, const char *s, size_t n);
void ws_jw_int(struct ws_jw *jw, long long v);
void ws_jw_bool(struct ws_jw *jw, bool v);
void ws_jw_null(struct ws_jw *jw);
/* Raw JSON text written as a value (must be valid JSON). */
void ws_jw_raw(struct ws_jw *jw, const char *json);
/* The same, n bytes of it. */
void ws_jw_rawn(struct ws_jw *jw, const char *json, size_t n);

/* key + value shorthands; a NULL string writes null. */
void ws_jw_kstr(struct ws_jw *jw, const char *key, const char *s);
void ws_jw_kint(struct ws_jw *jw, const char *key, long long v);
void ws_jw_kbool(struct ws_jw *jw, const char *key, bool v);
void ws_jw_knull(struct ws_jw *jw, const char *key);

/*
 * A file name or path: written as a string; if it is not valid UTF-8,
 * "<key>_bytes" follows with the exact bytes in base64.
 */
void ws_jw_kname(struct ws_jw *jw, const char *key, const char *s);

/* Base64-encode n bytes into a malloc'd NUL-terminated string. */
char *ws_base64(const void *data, size_t n);

/* Write n bytes as base64 JSON string value, streaming. */
void ws_jw_base64(struct ws_jw *jw, const void *data, size_t n);

struct cJSON;

/* ws_json_parse()'s len for a NUL-terminated text. */
#define WS_JSON_STR ((size_t)-1)

/*
 * cJSON_ParseWithLengthOpts() made safe to call from threads side by
 * side: cJSON keeps the position of its last error in one global, which
 * every parse writes, so two calls of `wstools mcp` parsing at once (a
 * configuration, a message, a journal line) would race on it; here every
 * parse holds one lock, and the error position comes back through end
 * (where it stopped on success, where it failed otherwise), never
 * through cJSON_GetErrorPtr().  len: the text's length, or WS_JSON_STR
 * for a NUL-terminated text; end may be NULL; require_null: nothing but
 * white space may follow the value.  Returns the value, or NULL.
 */
struct cJSON *ws_json_parse(const char *s, size_t len, const char **end,
			    bool require_null);

/*
 * Refuse a parsed JSON value (cJSON) in which an object holds a key more
 * than once, at any depth when deep (objects inside arrays included), or
 * only among v's own keys when not.  cJSON keeps every copy: one reader
 * takes the first (cJSON_GetObjectItem), another the last (a walk over
 * the members), so a repeated key would let a limit be checked on one
 * value and used with the other.  Returns 0, or WS_EINVALID_ARGUMENT
 * naming the key and where it is ("edits[1]"); cost: a sort of the keys
 * of each object with many of them, pairwise compares for small ones.
 */
int ws_json_unique_keys(const struct cJSON *v, bool deep);

/*
 * JSON text as cJSON_PrintUnformatted() makes it, for records that are
 * read back with cJSON_Parse() and must come back byte for byte (the
 * history's journal, the audit log): unlike ws_jw_str(), a string's
 * bytes are kept as they are (only '"', '\\' and controls escaped), so a
 * name that is not UTF-8 survives.  Written straight into a growing
 * buffer, without building a tree or going through stdio: what a
 * recorded tree of 10,000 files, or an audited call, spent most of its
 * time on (issue 22).  The text is NUL-terminated; after a failed
 * allocation oom is set and nothing more is added.
 */
struct ws_jbuf {
	char *p;	/* malloc'd; the caller frees it */
	size_t n, cap;
	bool oom;
};

/* Room for more bytes (and the NUL); false once out of memory. */
bool ws_jbuf_reserve(struct ws_jbuf *b, size_t more);

/* Raw text. */
void ws_jbuf_put(struct ws_jbuf *b, const char *s, size_t n);

/* A string literal, raw. */
#define ws_jbuf_lit(b, s) ws_jbuf_put((b), (s), sizeof(s) - 1)

/* A string, quoted. */
void ws_jbuf_str(struct ws_jbuf *b, const char *s);

/*
 * s[0..n) as a JSON string the way the writer (ws_jw_strn()) writes it:
 * valid UTF-8 as it is, U+FFFD for each bad byte.  Returns whether s was
 * valid UTF-8 (when not, a name's exact bytes are due in base64 too).
 */
bool ws_jbuf_text(struct ws_jbuf *b, const char *s, size_t n);

/* An integer, without printf. */
void ws_jbuf_int(struct ws_jbuf *b, long long v);

/* data[0..n) in base64, quoted. */
void ws_jbuf_base64(struct ws_jbuf *b, const void *data, size_t n);

/* Any item (a number as cJSON prints it: an integer as one). */
void ws_jbuf_item(struct ws_jbuf *b, const struct cJSON *v);

#endif
