/* json.c - streaming JSON writer, valid for any bytes. */
#include "ws/json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/error.h"
#include "ws/path.h"

void
ws_jw_init(struct ws_jw *jw, FILE *f)
{
	memset(jw, 0, sizeof(*jw));
	jw->f = f;
}

/* Write the comma that separates this value from the previous one. */
static void
ws__sep(struct ws_jw *jw)
{
	if (jw->after_key) {
		jw->after_key = false;
		return;
	}
	if (jw->depth > 0) {
		if (!jw->first[jw->depth])
			putc_unlocked(',', jw->f);
		jw->first[jw->depth] = false;
	}
}

static void
ws__open(struct ws_jw *jw, int c)
{
	ws__sep(jw);
	putc_unlocked(c, jw->f);
	if (jw->depth < WS_JW_MAXDEPTH - 1)
		jw->depth++;
	jw->first[jw->depth] = true;
}

static void
ws__close(struct ws_jw *jw, int c)
{
	if (jw->depth > 0)
		jw->depth--;
	putc_unlocked(c, jw->f);
}

void ws_jw_obj(struct ws_jw *jw) { ws__open(jw, '{'); }
void ws_jw_obj_end(struct ws_jw *jw) { ws__close(jw, '}'); }
void ws_jw_arr(struct ws_jw *jw) { ws__open(jw, '['); }
void ws_jw_arr_end(struct ws_jw *jw) { ws__close(jw, ']'); }

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t
ws__utf8_seq(const unsigned char *s, size_t n)
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
ws__string(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	putc_unlocked('"', f);
	while (i < n) {
		unsigned char c = s[i];
		size_t l;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			run++;
			continue;
		}
		if (run) {
			fwrite_unlocked(s + i - run, 1, run, f);
			run = 0;
		}
		switch (c) {
		case '"': fputs_unlocked("\\\"", f); i++; continue;
		case '\\': fputs_unlocked("\\\\", f); i++; continue;
		case '\n': fputs_unlocked("\\n", f); i++; continue;
		case '\r': fputs_unlocked("\\r", f); i++; continue;
		case '\t': fputs_unlocked("\\t", f); i++; continue;
		default: break;
		}
		if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		l = ws__utf8_seq(s + i, n - i);
		if (l == 0) {
			fputs_unlocked("\xef\xbf\xbd", f); /* U+FFFD for a bad byte */
			i++;
			continue;
		}
		fwrite_unlocked(s + i, 1, l, f);
		i += l;
	}
	if (run)
		fwrite_unlocked(s + i - run, 1, run, f);
	putc_unlocked('"', f);
}

void
ws_jw_key(struct ws_jw *jw, const char *key)
{
	ws__sep(jw);
	ws__string(jw->f, key, strlen(key));
	putc_unlocked(':', jw->f);
	jw->after_key = true;
}

void
ws_jw_strn(struct ws_jw *jw, const char *s, size_t n)
{
	ws__sep(jw);
	ws__string(jw->f, s, n);
}

void
ws_jw_str(struct ws_jw *jw, const char *s)
{
	if (s == NULL) {
		ws_jw_null(jw);
		return;
	}
	ws_jw_strn(jw, s, strlen(s));
}

void
ws_jw_int(struct ws_jw *jw, long long v)
{
	ws__sep(jw);
	fprintf(jw->f, "%lld", v);
}

void
ws_jw_bool(struct ws_jw *jw, bool v)
{
	ws__sep(jw);
	fputs_unlocked(v ? "true" : "false", jw->f);
}

void
ws_jw_null(struct ws_jw *jw)
{
	ws__sep(jw);
	fputs_unlocked("null", jw->f);
}

void
ws_jw_raw(struct ws_jw *jw, const char *json)
{
	ws__sep(jw);
	fputs_unlocked(json, jw->f);
}

void
ws_jw_kstr(struct ws_jw *jw, const char *key, const char *s)
{
	ws_jw_key(jw, key);
	ws_jw_str(jw, s);
}

void
ws_jw_kint(struct ws_jw *jw, const char *key, long long v)
{
	ws_jw_key(jw, key);
	ws_jw_int(jw, v);
}

void
ws_jw_kbool(struct ws_jw *jw, const char *key, bool v)
{
	ws_jw_key(jw, key);
	ws_jw_bool(jw, v);
}

void
ws_jw_knull(struct ws_jw *jw, const char *key)
{
	ws_jw_key(jw, key);
	ws_jw_null(jw);
}

static const char ws__b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Encode n bytes (n % 3 == 0 except for the last chunk) into out. */
static size_t
ws__b64_chunk(const unsigned char *d, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)d[i] << 16;

		if (i + 1 < n)
			v |= (unsigned)d[i + 1] << 8;
		if (i + 2 < n)
			v |= d[i + 2];
		out[o++] = ws__b64[(v >> 18) & 63];
		out[o++] = ws__b64[(v >> 12) & 63];
		out[o++] = i + 1 < n ? ws__b64[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? ws__b64[v & 63] : '=';
	}
	return o;
}

char *
ws_base64(const void *data, size_t n)
{
	char *out = malloc((n + 2) / 3 * 4 + 1);

	if (out == NULL)
		return NULL;
	out[ws__b64_chunk(data, n, out)] = '\0';
	return out;
}

void
ws_jw_base64(struct ws_jw *jw, const void *data, size_t n)
{
	const unsigned char *d = data;
	char buf[4096];

	ws__sep(jw);
	putc_unlocked('"', jw->f);
	while (n > 0) {
		size_t take = n > 3072 ? 3072 : n;

		fwrite_unlocked(buf, 1, ws__b64_chunk(d, take, buf), jw->f);
		d += take;
		n -= take;
	}
	putc_unlocked('"', jw->f);
}

void
ws_jw_kname(struct ws_jw *jw, const char *key, const char *s)
{
	size_t n;

	ws_jw_kstr(jw, key, s);
	if (s == NULL)
		return;
	n = strlen(s);
	if (!ws_utf8_valid(s, n)) {
		char k[64];

		snprintf(k, sizeof(k), "%s_bytes", key);
		ws_jw_key(jw, k);
		ws_jw_base64(jw, s, n);
	}
}

/* Objects with up to this many keys are checked pair by pair. */
#define WS__PAIRWISE_MAX 16

static int
ws__key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The repeated key among the members of object o, or NULL (or ENOMEM). */
static const char *
ws__repeated_key(const cJSON *o, int *rc)
{
	const cJSON *a, *b;
	const char **keys, *dup = NULL;
	size_t n = 0, i = 0;

	*rc = 0;
	cJSON_ArrayForEach(a, o)
		n++;
	if (n <= WS__PAIRWISE_MAX) {
		cJSON_ArrayForEach(a, o)
			for (b = a->next; b != NULL; b = b->next)
				if (a->string != NULL && b->string != NULL &&
				    strcmp(a->string, b->string) == 0)
					return a->string;
		return NULL;
	}
	keys = malloc(n * sizeof(*keys));
	if (keys == NULL) {
		*rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		return NULL;
	}
	cJSON_ArrayForEach(a, o)
		keys[i++] = a->string != NULL ? a->string : "";
	qsort(keys, n, sizeof(*keys), ws__key_cmp);
	for (i = 1; i < n && dup == NULL; i++)
		if (strcmp(keys[i - 1], keys[i]) == 0)
			dup = keys[i];
	free(keys);
	return dup;
}

/*
 * Walk v; where holds the path of v ("edits[1].x"), at most wsz bytes:
 * a path cut short still names the key.
 */
static int
ws__unique(const cJSON *v, bool deep, char *where, size_t wsz)
{
	size_t wl = strlen(where);
	const cJSON *c;
	long idx = 0;
	int rc;

	if (cJSON_IsObject(v)) {
		const char *dup = ws__repeated_key(v, &rc);

		if (rc < 0)
			return rc;
		if (dup != NULL && wl == 0)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "key \"%s\" is given more than once: "
					    "each key may appear once", dup);
		if (dup != NULL)
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "key \"%s\" is given more than once in "
					    "\"%s\": each key may appear once",
					    dup, where);
	} else if (!cJSON_IsArray(v)) {
		return 0;
	}
	if (!deep)
		return 0;
	cJSON_ArrayForEach(c, v) {
		if (!cJSON_IsObject(c) && !cJSON_IsArray(c)) {
			idx++;
			continue;
		}
		if (cJSON_IsObject(v))
			snprintf(where + wl, wsz - wl, "%s%s", wl ? "." : "",
				 c->string ? c->string : "");
		else
			snprintf(where + wl, wsz - wl, "[%ld]", idx);
		rc = ws__unique(c, true, where, wsz);
		where[wl] = '\0';
		if (rc < 0)
			return rc;
		idx++;
	}
	return 0;
}

int
ws_json_unique_keys(const cJSON *v, bool deep)
{
	char where[256] = "";

	return ws__unique(v, deep, where, sizeof(where));
}

/* ---- Text as cJSON_PrintUnformatted() makes it ----------------------- */

bool
ws_jbuf_reserve(struct ws_jbuf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->oom)
		return false;
	if (b->n + more < b->cap)
		return true;
	cap = b->cap ? b->cap : 1024;
	while (cap <= b->n + more)
		cap *= 2;
	if ((p = realloc(b->p, cap)) == NULL) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void
ws_jbuf_put(struct ws_jbuf *b, const char *s, size_t n)
{
	if (!ws_jbuf_reserve(b, n))
		return;
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

void
ws_jbuf_str(struct ws_jbuf *b, const char *str)
{
	static const char hx[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);
	char *o;

	/* At most six bytes a byte (\u00XX), and the quotes. */
	if (!ws_jbuf_reserve(b, 6 * n + 2))
		return;
	o = b->p + b->n;
	*o++ = '"';
	for (; *s; s++) {
		unsigned char c = *s;

		if (c >= 0x20 && c != '"' && c != '\\') {
			*o++ = (char)c;
			continue;
		}
		*o++ = '\\';
		switch (c) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '\b': *o++ = 'b'; break;
		case '\f': *o++ = 'f'; break;
		case '\n': *o++ = 'n'; break;
		case '\r': *o++ = 'r'; break;
		case '\t': *o++ = 't'; break;
		default:
			*o++ = 'u';
			*o++ = '0';
			*o++ = '0';
			*o++ = hx[c >> 4];
			*o++ = hx[c & 15];
		}
	}
	*o++ = '"';
	*o = '\0';
	b->n = (size_t)(o - b->p);
}

void
ws_jbuf_int(struct ws_jbuf *b, long long v)
{
	char d[24];
	int i = (int)sizeof(d);
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v :
				       (unsigned long long)v;

	do
		d[--i] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		d[--i] = '-';
	ws_jbuf_put(b, d + i, sizeof(d) - (size_t)i);
}

void
ws_jbuf_base64(struct ws_jbuf *b, const void *data, size_t n)
{
	if (!ws_jbuf_reserve(b, (n + 2) / 3 * 4 + 2))
		return;
	b->p[b->n++] = '"';
	b->n += ws__b64_chunk(data, n, b->p + b->n);
	b->p[b->n++] = '"';
	b->p[b->n] = '\0';
}

void
ws_jbuf_item(struct ws_jbuf *b, const cJSON *v)
{
	const cJSON *it;
	bool first = true;

	if (cJSON_IsString(v)) {
		ws_jbuf_str(b, v->valuestring ? v->valuestring : "");
	} else if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;
		char buf[32];

		if (isnan(d) || isinf(d)) {
			ws_jbuf_lit(b, "null");
		} else if (d > -9007199254740992.0 && d < 9007199254740992.0 &&
			   d == (double)(long long)d) {
			ws_jbuf_int(b, (long long)d);
		} else {
			/* As cJSON: 15 digits, 17 where 15 do not read back. */
			snprintf(buf, sizeof(buf), "%1.15g", d);
			if (strtod(buf, NULL) != d)
				snprintf(buf, sizeof(buf), "%1.17g", d);
			ws_jbuf_put(b, buf, strlen(buf));
		}
	} else if (cJSON_IsBool(v)) {
		if (cJSON_IsTrue(v))
			ws_jbuf_lit(b, "true");
		else
			ws_jbuf_lit(b, "false");
	} else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
		ws_jbuf_put(b, cJSON_IsArray(v) ? "[" : "{", 1);
		cJSON_ArrayForEach(it, v) {
			if (!first)
				ws_jbuf_lit(b, ",");
			first = false;
			if (cJSON_IsObject(v)) {
				ws_jbuf_str(b, it->string ? it->string : "");
				ws_jbuf_lit(b, ":");
			}
			ws_jbuf_item(b, it);
		}
		ws_jbuf_put(b, cJSON_IsArray(v) ? "]" : "}", 1);
	} else if (cJSON_IsRaw(v) && v->valuestring != NULL) {
		ws_jbuf_put(b, v->valuestring, strlen(v->valuestring));
	} else {
		ws_jbuf_lit(b, "null");
	}
}
