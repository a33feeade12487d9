/*
 * fuzz_json - libFuzzer target for the JSON writer.
 *
 * Input: arbitrary bytes, written as a string value, as a file name (with
 * its "_bytes" twin when not UTF-8) and as base64.  Invariants: the output
 * parses with cJSON; valid UTF-8 without NUL comes back byte for byte;
 * "name_bytes" and the base64 value decode back to the input exactly.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decode standard base64 into out; returns the length, or -1. */
static long
unb64(const char *s, unsigned char *out)
{
	long n = 0;
	unsigned acc = 0;
	int bits = 0, v;

	for (; *s && *s != '='; s++) {
		if ((v = b64val((unsigned char)*s)) < 0)
			return -1;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
		}
	}
	return n;
}

static int
utf8_ok(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t c = s[i];
		size_t len;
		uint32_t cp;

		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			len = 2, cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			len = 3, cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			len = 4, cp = c & 0x07;
		} else {
			return 0;
		}
		if (i + len > n)
			return 0;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
		    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_jw jw;
	char *out = NULL, *name;
	size_t outlen = 0;
	FILE *f;
	cJSON *root, *it;
	unsigned char *dec;
	long n;

	f = open_memstream(&out, &outlen);
	if (f == NULL)
		return 0;
	name = strndup((const char *)data, size); /* up to a NUL */
	if (name == NULL) {
		fclose(f);
		free(out);
		return 0;
	}
	ws_jw_init(&jw, f);
	ws_jw_obj(&jw);
	ws_jw_key(&jw, "s");
	ws_jw_strn(&jw, (const char *)data, size);
	ws_jw_kname(&jw, "name", name);
	ws_jw_key(&jw, "b64");
	ws_jw_base64(&jw, data, size);
	ws_jw_obj_end(&jw);
	fclose(f);

	root = cJSON_ParseWithLength(out, outlen);
	if (root == NULL) {
		fprintf(stderr, "writer made invalid JSON: %s\n", out);
		abort();
	}
	dec = malloc(size + 4);
	if (dec == NULL)
		abort();
	it = cJSON_GetObjectItemCaseSensitive(root, "b64");
	n = cJSON_IsString(it) ? unb64(it->valuestring, dec) : -1;
	if (n != (long)size || memcmp(dec, data, size) != 0) {
		fprintf(stderr, "base64 does not round-trip\n");
		abort();
	}
	if (memchr(data, 0, size) == NULL && utf8_ok(data, size)) {
		it = cJSON_GetObjectItemCaseSensitive(root, "s");
		if (!cJSON_IsString(it) ||
		    strlen(it->valuestring) != size ||
		    memcmp(it->valuestring, data, size) != 0) {
			fprintf(stderr, "valid UTF-8 did not come back\n");
			abort();
		}
	}
	it = cJSON_GetObjectItemCaseSensitive(root, "name_bytes");
	if (it != NULL) {
		n = cJSON_IsString(it) ? unb64(it->valuestring, dec) : -1;
		if (n != (long)strlen(name) || memcmp(dec, name, n) != 0) {
			fprintf(stderr, "name_bytes does not round-trip\n");
			abort();
		}
	} else if (!utf8_ok((const uint8_t *)name, strlen(name))) {
		fprintf(stderr, "a non-UTF-8 name without name_bytes\n");
		abort();
	}
	cJSON_Delete(root);
	free(dec);
	free(name);
	free(out);
	return 0;
}
