/* path.c - lexical path handling; nothing here touches the filesystem. */
#include "ws/path.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ws/error.h"

int
ws_path_check(const char *p, size_t len)
{
	size_t comp = 0;

	if (memchr(p, '\0', len) != NULL)
		return ws_error_set(WS_EINVALID_PATH, NULL,
				    "path contains a NUL byte");
	if (len > WS_PATH_MAX)
		return ws_error_set(WS_EINVALID_PATH, NULL,
				    "path is %zu bytes long, the limit is %d",
				    len, WS_PATH_MAX);
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '/') {
			comp = 0;
			continue;
		}
		if (++comp > WS_NAME_MAX)
			return ws_error_set(WS_EINVALID_PATH, NULL,
					    "a path component is longer than %d bytes",
					    WS_NAME_MAX);
	}
	return 0;
}

int
ws_path_normalize(const char *p, unsigned flags, char **out)
{
	size_t len = strlen(p);
	bool abs = p[0] == '/';
	char *buf = malloc(len + 2);
	size_t o = 0; /* length of the output so far */
	size_t floor = 0; /* ".." kept with KEEPDOT cannot be popped */
	const char *s = p;

	if (buf == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if (abs)
		buf[o++] = '/';
	floor = o;
	while (*s) {
		const char *e;
		size_t n;

		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		e = strchrnul(s, '/');
		n = (size_t)(e - s);
		if (n == 1 && s[0] == '.') {
			s = e;
			continue;
		}
		if (n == 2 && s[0] == '.' && s[1] == '.' &&
		    !(flags & WS_NORM_KEEPDOT)) {
			if (o == floor) {
				if (flags & WS_NORM_CLAMP) {
					s = e;
					continue;
				}
				free(buf);
				return ws_error_set(WS_EPATH_OUTSIDE_WORKSPACE, p,
						    "resolves outside the workspace");
			}
			/* Drop the last component and its slash. */
			while (o > floor && buf[o - 1] != '/')
				o--;
			if (o > floor)
				o--; /* the separating slash */
			s = e;
			continue;
		}
		if (o > 0 && buf[o - 1] != '/')
			buf[o++] = '/';
		memcpy(buf + o, s, n);
		o += n;
		s = e;
	}
	buf[o] = '\0';
	*out = buf;
	return 0;
}

bool
ws_path_within(const char *base, const char *p, const char **rest)
{
	size_t bl = strlen(base);

	/* The filesystem root contains every absolute path. */
	if (bl == 1 && base[0] == '/') {
		if (p[0] != '/')
			return false;
		if (rest)
			*rest = p + 1;
		return true;
	}
	if (strncmp(base, p, bl) != 0)
		return false;
	if (p[bl] == '\0') {
		if (rest)
			*rest = p + bl;
		return true;
	}
	if (p[bl] != '/')
		return false; /* "/ws2" is not inside "/ws" */
	if (rest)
		*rest = p + bl + 1;
	return true;
}

char *
ws_path_join(const char *a, const char *b)
{
	size_t al = strlen(a), bl;
	char *r;

	while (*b == '/')
		b++;
	bl = strlen(b);
	while (al > 1 && a[al - 1] == '/')
		al--;
	r = malloc(al + bl + 2);
	if (r == NULL)
		return NULL;
	memcpy(r, a, al);
	if (al > 0 && bl > 0 && a[al - 1] != '/')
		r[al++] = '/';
	memcpy(r + al, b, bl);
	r[al + bl] = '\0';
	return r;
}

bool
ws_path_has_dotdot(const char *p)
{
	const char *s = p;

	while (*s) {
		const char *e = strchrnul(s, '/');

		if (e - s == 2 && s[0] == '.' && s[1] == '.')
			return true;
		s = *e ? e + 1 : e;
	}
	return false;
}

bool
ws_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t k;
		uint32_t cp;

		/* Skip ASCII a word at a time: most text and names are. */
		if (c < 0x80) {
			uint64_t w;

			while (i + 8 <= len) {
				memcpy(&w, s + i, 8);
				if (w & UINT64_C(0x8080808080808080))
					break;
				i += 8;
			}
			while (i < len && s[i] < 0x80)
				i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			k = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			k = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			k = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (len - i <= k)
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + j] & 0x3f);
		}
		/* Reject overlong forms, surrogates and values past U+10FFFF. */
		if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) ||
		    (k == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += k + 1;
	}
	return true;
}
