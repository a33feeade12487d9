/* json.c - streaming JSON writer, valid for any bytes. */
#include "ws/json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/error.h"
#include "ws/path.h"

#if defined(__SSE2__) && !defined(WS_JSON_NO_SIMD)
#include <emmintrin.h>
#endif

/*
 * Everything the writer writes goes through a small buffer on the stack
 * of the call that writes it, and leaves at the end of that call in one
 * write: a key, its comma and its value cost one stdio call, and a
 * string's escapes a store each, not a stdio call each (escaping was
 * most of a read_file call through MCP, issue 20).  Nothing stays
 * buffered between calls, so a caller may write to jw->f itself between
 * two of them.
 */
#define WS__OB_SIZE 2048

struct ws__ob {
	struct ws_jw *jw;
	size_t n;
	char p[WS__OB_SIZE];
};

static void
ws__write(struct ws_jw *jw, const char *s, size_t n)
{
	struct ws_jbuf *b = jw->buf;

	if (n == 0)
		return;
	if (b == NULL) {
		fwrite_unlocked(s, 1, n, jw->f);
	} else if (b->n + n < b->cap) {
		memcpy(b->p + b->n, s, n);
		b->n += n;
		b->p[b->n] = '\0';
	} else {
		ws_jbuf_put(b, s, n);
	}
}

static void
ws__write1(struct ws_jw *jw, char c)
{
	struct ws_jbuf *b = jw->buf;

	if (b == NULL) {
		putc_unlocked(c, jw->f);
	} else if (b->n + 1 < b->cap) {
		b->p[b->n++] = c;
		b->p[b->n] = '\0';
	} else {
		ws_jbuf_put(b, &c, 1);
	}
}

static void
ws__ob_flush(struct ws__ob *o)
{
	ws__write(o->jw, o->p, o->n);
	o->n = 0;
}

/* Room for k more bytes (k <= WS__OB_SIZE). */
static inline void
ws__ob_room(struct ws__ob *o, size_t k)
{
	if (WS__OB_SIZE - o->n < k)
		ws__ob_flush(o);
}

static inline void
ws__ob_c(struct ws__ob *o, char c)
{
	ws__ob_room(o, 1);
	o->p[o->n++] = c;
}

/* n bytes; a long run goes out as it is rather than through the buffer. */
static void
ws__ob_put(struct ws__ob *o, const char *s, size_t n)
{
	if (n > WS__OB_SIZE - o->n) {
		ws__ob_flush(o);
		if (n >= WS__OB_SIZE / 2) {
			ws__write(o->jw, s, n);
			return;
		}
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
}

#define ws__ob_lit(o, s) ws__ob_put((o), (s), sizeof(s) - 1)

void
ws_jw_init(struct ws_jw *jw, FILE *f)
{
	memset(jw, 0, sizeof(*jw));
	jw->f = f;
}

void
ws_jw_init_buf(struct ws_jw *jw, struct ws_jbuf *b)
{
	memset(jw, 0, sizeof(*jw));
	jw->buf = b;
}

/* The comma that separates this value from the previous one. */
static void
ws__sep(struct ws_jw *jw, struct ws__ob *o)
{
	if (jw->after_key) {
		jw->after_key = false;
		return;
	}
	if (jw->depth > 0) {
		if (!jw->first[jw->depth])
			ws__ob_c(o, ',');
		jw->first[jw->depth] = false;
	}
}

static void
ws__open(struct ws_jw *jw, char c)
{
	/* As ws__sep(), without a buffer for two bytes. */
	if (jw->after_key) {
		jw->after_key = false;
	} else if (jw->depth > 0) {
		if (!jw->first[jw->depth])
			ws__write1(jw, ',');
		jw->first[jw->depth] = false;
	}
	ws__write1(jw, c);
	if (jw->depth < WS_JW_MAXDEPTH - 1)
		jw->depth++;
	jw->first[jw->depth] = true;
}

static void
ws__close(struct ws_jw *jw, char c)
{
	if (jw->depth > 0)
		jw->depth--;
	ws__write1(jw, c);
}

void ws_jw_obj(struct ws_jw *jw) { ws__open(jw, '{'); }
void ws_jw_obj_end(struct ws_jw *jw) { ws__close(jw, '}'); }
void ws_jw_arr(struct ws_jw *jw) { ws__open(jw, '['); }
void ws_jw_arr_end(struct ws_jw *jw) { ws__close(jw, ']'); }

/* The bytes written as they are: printable ASCII other than '"' and '\\'. */
#define WS__R16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
static const bool ws__plain_tab[256] = {
	WS__R16(0), WS__R16(0),
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* 0x22 '"' */
	WS__R16(1), WS__R16(1),
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,	/* 0x5c '\\' */
	WS__R16(1), WS__R16(1),
	WS__R16(0), WS__R16(0), WS__R16(0), WS__R16(0),
	WS__R16(0), WS__R16(0), WS__R16(0), WS__R16(0),
};

static inline bool
ws__plain(unsigned char c)
{
	return ws__plain_tab[c];
}

/*
 * The bytes that need work are found a block at a time: 16 bytes with
 * SSE2 (part of x86_64), 8 in a word elsewhere and for shorter tails.
 * Each block is copied to the output as it is looked at (d has room for
 * it); the caller keeps the clean bytes and writes over the rest.  A
 * block is only loaded whole within the input: the last few bytes are
 * looked at one by one.  Each returns the index of the first byte that
 * needs work, or the block's size.
 */
static inline unsigned
ws__blk8(char *d, const unsigned char *s)
{
	const uint64_t lo = UINT64_C(0x0101010101010101);
	const uint64_t hi = UINT64_C(0x8080808080808080);
	uint64_t w, q, b;

	memcpy(&w, s, 8);
	memcpy(d, &w, 8);
	q = w ^ (lo * '"');
	b = w ^ (lo * '\\');
	/*
	 * Some byte has its high bit set, is below 0x20, or is '"' or '\\'
	 * (a zero byte in q or b): exact as to whether one does, not as to
	 * which (a borrow runs on), so that is found byte by byte.
	 */
	if (((w | ((w - lo * 0x20) & ~w) | ((q - lo) & ~q) |
	      ((b - lo) & ~b)) & hi) == 0)
		return 8;
	for (unsigned j = 0; j < 8; j++)
		if (!ws__plain(s[j]))
			return j;
	return 8;
}

#if defined(__SSE2__) && !defined(WS_JSON_NO_SIMD)
#define WS__BLK 16

static inline unsigned
ws__blk16(char *d, const unsigned char *s)
{
	const __m128i sp = _mm_set1_epi8(0x20);
	const __m128i qu = _mm_set1_epi8('"');
	const __m128i bs = _mm_set1_epi8('\\');
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
	/* Compared as signed bytes, 0x80 and up are below 0x20 too. */
	__m128i m = _mm_or_si128(_mm_cmplt_epi8(v, sp),
				 _mm_or_si128(_mm_cmpeq_epi8(v, qu),
					      _mm_cmpeq_epi8(v, bs)));
	unsigned bits = (unsigned)_mm_movemask_epi8(m);

	_mm_storeu_si128((__m128i *)(void *)d, v);
	return bits != 0 ? (unsigned)__builtin_ctz(bits) : 16;
}
#else
#define WS__BLK 8
#define ws__blk16 ws__blk8
#endif

/*
 * Length of the valid UTF-8 sequence at s (s[0] >= 0x80, at most n
 * bytes), or 0: overlong forms, surrogates, values past U+10FFFF and a
 * sequence cut short are not valid (as ws_utf8_valid()).
 */
static size_t
ws__utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	uint32_t cp, min;
	size_t len;

	if ((c & 0xe0) == 0xc0) {
		len = 2;
		cp = c & 0x1f;
		min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3;
		cp = c & 0x0f;
		min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4;
		cp = c & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t j = 1; j < len; j++) {
		if ((s[j] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[j] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/*
 * The second byte of the two-byte escape of c (a control byte, '"' or
 * '\\'), or 0 for \u00XX.
 */
static const char ws__esc2[0x60] = {
	['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't', ['"'] = '"', ['\\'] = '\\',
};

/* Room for k more bytes in o, which holds on: the new count. */
static inline size_t
ws__room(struct ws__ob *o, size_t on, size_t k)
{
	if (WS__OB_SIZE - on >= k)
		return on;
	o->n = on;
	ws__ob_flush(o);
	return 0;
}

/*
 * s[0..n) as a JSON string: '"', '\\', \n, \r and \t escaped as such,
 * other control bytes (NUL too) as \u00XX, valid UTF-8 as it is, and
 * U+FFFD in place of each byte that is not part of a valid sequence.
 * Returns whether s was valid UTF-8 (nothing replaced).  The count of
 * the buffer is kept in a local (on) so that it stays in a register.
 */
static bool
ws__string_all(struct ws__ob *o, const char *str, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	char *const op = o->p;
	size_t i = 0, on = ws__room(o, o->n, 1);
	bool valid = true;

	op[on++] = '"';
	while (i < n) {
		unsigned char c;
		unsigned k;

		/* Clean bytes are copied as they are found. */
		while (n - i >= WS__BLK) {
			on = ws__room(o, on, WS__BLK);
			k = ws__blk16(op + on, s + i);
			on += k;
			i += k;
			if (k < WS__BLK)
				goto work;
		}
		if (n - i >= 8) {
			on = ws__room(o, on, 8);
			k = ws__blk8(op + on, s + i);
			on += k;
			i += k;
			if (k < 8)
				goto work;
		}
		on = ws__room(o, on, 8);
		while (i < n && ws__plain(s[i]))
			op[on++] = str[i++];
		if (i == n)
			break;
work:
		c = s[i];
		if (c >= 0x80) {
			/* A run of non-ASCII characters stays here. */
			do {
				size_t l = ws__utf8_seq(s + i, n - i);

				on = ws__room(o, on, 4);
				if (l == 0) {
					/* U+FFFD for a bad byte. */
					op[on++] = (char)0xef;
					op[on++] = (char)0xbf;
					op[on++] = (char)0xbd;
					valid = false;
					i++;
				} else {
					memcpy(op + on, s + i, l);
					on += l;
					i += l;
				}
			} while (i < n && s[i] >= 0x80);
			continue;
		}
		on = ws__room(o, on, 6);
		op[on] = '\\';
		if (ws__esc2[c] != 0) {
			op[on + 1] = ws__esc2[c];
			on += 2;
		} else {
			op[on + 1] = 'u';
			op[on + 2] = '0';
			op[on + 3] = '0';
			op[on + 4] = hx[c >> 4];
			op[on + 5] = hx[c & 15];
			on += 6;
		}
		i++;
	}
	on = ws__room(o, on, 1);
	op[on++] = '"';
	o->n = on;
	return valid;
}

/*
 * ws__string_all(), with a short string that needs no escaping (a name,
 * a type) copied here: the set-up of the block scan costs more than such
 * a string.
 */
/* The room ws__short() needs at d for n bytes: the blocks' stores too. */
#define WS__SHORT_ROOM(n) ((n) + 2 + WS__BLK)

/*
 * A string of at most 32 bytes that needs no escaping, quoted, to d
 * (WS__SHORT_ROOM(n) bytes); false (and bytes at d to forget) if it
 * needs escaping.
 */
static inline bool
ws__short(char *d, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	d[0] = '"';
	d++;
	while (n - i >= WS__BLK) {
		if (ws__blk16(d + i, s + i) < WS__BLK)
			return false;
		i += WS__BLK;
	}
	if (n - i >= 8) {
		if (ws__blk8(d + i, s + i) < 8)
			return false;
		i += 8;
	}
	for (; i < n; i++) {
		if (!ws__plain(s[i]))
			return false;
		d[i] = str[i];
	}
	d[n] = '"';
	return true;
}

static inline bool
ws__string(struct ws__ob *o, const char *str, size_t n)
{
	if (n <= 32 && WS__OB_SIZE - o->n >= WS__SHORT_ROOM(n) &&
	    ws__short(o->p + o->n, str, n)) {
		o->n += n + 2;
		return true;
	}
	return ws__string_all(o, str, n);
}

/* The separator and "key": into o. */
static void
ws__key(struct ws_jw *jw, struct ws__ob *o, const char *key)
{
	char *d;
	size_t i;

	ws__sep(jw, o);
	/* Most keys are short literals that need no escaping: no strlen. */
	ws__ob_room(o, 36);
	d = o->p + o->n;
	d[0] = '"';
	for (i = 0; i < 32 && ws__plain((unsigned char)key[i]); i++)
		d[i + 1] = key[i];
	if (key[i] == '\0') {
		d[i + 1] = '"';
		d[i + 2] = ':';
		o->n += i + 3;
		return;
	}
	ws__string_all(o, key, strlen(key));
	ws__ob_c(o, ':');
}

void
ws_jw_key(struct ws_jw *jw, const char *key)
{
	struct ws__ob o;

	o.jw = jw;
	o.n = 0;
	ws__key(jw, &o, key);
	ws__ob_flush(&o);
	jw->after_key = true;
}

void
ws_jw_strn(struct ws_jw *jw, const char *s, size_t n)
{
	struct ws__ob o;

	o.jw = jw;
	o.n = 0;
	ws__sep(jw, &o);
	ws__string(&o, s, n);
	ws__ob_flush(&o);
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

/* v in decimal, as "%lld" writes it, at the end of d; where it starts.
 * The one integer writer of both the writer and the text buffer. */
static const char *
ws__digits(char d[24], long long v)
{
	int i = 24;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v :
				       (unsigned long long)v;

	do
		d[--i] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		d[--i] = '-';
	return d + i;
}

static void
ws__int(struct ws__ob *o, long long v)
{
	char d[24];
	const char *s = ws__digits(d, v);

	ws__ob_put(o, s, (size_t)(d + sizeof(d) - s));
}

void
ws_jw_int(struct ws_jw *jw, long long v)
{
	struct ws__ob o;

	o.jw = jw;
	o.n = 0;
	ws__sep(jw, &o);
	ws__int(&o, v);
	ws__ob_flush(&o);
}

void
ws_jw_bool(struct ws_jw *jw, bool v)
{
	ws_jw_rawn(jw, v ? "true" : "false", v ? 4 : 5);
}

void
ws_jw_null(struct ws_jw *jw)
{
	ws_jw_rawn(jw, "null", 4);
}

void
ws_jw_raw(struct ws_jw *jw, const char *json)
{
	ws_jw_rawn(jw, json, strlen(json));
}

void
ws_jw_rawn(struct ws_jw *jw, const char *json, size_t n)
{
	struct ws__ob o;

	o.jw = jw;
	o.n = 0;
	ws__sep(jw, &o);
	ws__ob_put(&o, json, n);
	ws__ob_flush(&o);
}

void
ws_jw_kstr(struct ws_jw *jw, const char *key, const char *s)
{
	struct ws__ob o;

	o.jw = jw;
	o.n = 0;
	ws__key(jw, &o, key);
	if (s == NULL)
		ws__ob_lit(&o, "null");
	else
		ws__string(&o, s, strlen(s));
	ws__ob_flush(&o);
}

void
ws_jw_kint(struct ws_jw *jw, const char *key, long long v)
{
	struct ws__ob o;

	o.jw = jw;
	o.n = 0;
	ws__key(jw, &o, key);
	ws__int(&o, v);
	ws__ob_flush(&o);
}

void
ws_jw_kbool(struct ws_jw *jw, const char *key, bool v)
{
	struct ws__ob o;

	o.jw = jw;
	o.n = 0;
	ws__key(jw, &o, key);
	if (v)
		ws__ob_lit(&o, "true");
	else
		ws__ob_lit(&o, "false");
	ws__ob_flush(&o);
}

void
ws_jw_knull(struct ws_jw *jw, const char *key)
{
	struct ws__ob o;

	o.jw = jw;
	o.n = 0;
	ws__key(jw, &o, key);
	ws__ob_lit(&o, "null");
	ws__ob_flush(&o);
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
	struct ws__ob o;

	o.jw = jw;
	o.n = 0;
	ws__sep(jw, &o);
	ws__ob_c(&o, '"');
	while (n > 0) {
		size_t take = n > 1536 ? 1536 : n;

		/* 4 bytes out for 3 in: 2048 for 1536. */
		ws__ob_room(&o, (take + 2) / 3 * 4);
		o.n += ws__b64_chunk(d, take, o.p + o.n);
		d += take;
		n -= take;
	}
	ws__ob_c(&o, '"');
	ws__ob_flush(&o);
}

void
ws_jw_kname(struct ws_jw *jw, const char *key, const char *s)
{
	struct ws__ob o;
	size_t n;
	bool valid;

	if (s == NULL) {
		ws_jw_kstr(jw, key, NULL);
		return;
	}
	n = strlen(s);
	o.jw = jw;
	o.n = 0;
	ws__key(jw, &o, key);
	/* The escaping says whether the name is UTF-8: no second pass. */
	valid = ws__string(&o, s, n);
	ws__ob_flush(&o);
	if (!valid) {
		char k[64];

		snprintf(k, sizeof(k), "%s_bytes", key);
		ws_jw_key(jw, k);
		ws_jw_base64(jw, s, n);
	}
}

bool
ws_jbuf_text(struct ws_jbuf *b, const char *s, size_t n)
{
	struct ws_jw jw = {.buf = b};
	struct ws__ob o;
	bool valid;

	/* A short plain name straight into b. */
	if (n <= 32 && !b->oom &&
	    (b->n + WS__SHORT_ROOM(n) < b->cap ||
	     ws_jbuf_reserve(b, WS__SHORT_ROOM(n))) &&
	    ws__short(b->p + b->n, s, n)) {
		b->n += n + 2;
		b->p[b->n] = '\0';
		return true;
	}
	o.jw = &jw;
	o.n = 0;
	valid = ws__string(&o, s, n);
	ws__ob_flush(&o);
	return valid;
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

static pthread_mutex_t ws__parse_mu = PTHREAD_MUTEX_INITIALIZER;

cJSON *
ws_json_parse(const char *s, size_t len, const char **end, bool require_null)
{
	const char *e = NULL;
	cJSON *v;

	if (s == NULL)
		return NULL;
	/* cJSON_ParseWithOpts() counts the NUL in; so does this. */
	if (len == WS_JSON_STR)
		len = strlen(s) + 1;
	pthread_mutex_lock(&ws__parse_mu);
	v = cJSON_ParseWithLengthOpts(s, len, &e, require_null);
	pthread_mutex_unlock(&ws__parse_mu);
	if (end != NULL)
		*end = e;
	return v;
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
	if ((b->oom || b->n + n >= b->cap) && !ws_jbuf_reserve(b, n))
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
	const char *s = ws__digits(d, v);

	ws_jbuf_put(b, s, (size_t)(d + sizeof(d) - s));
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
