/* version.c - version tokens of files (see ws/version.h). */
#include "ws/version.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* FNV-1a over the fields, then a final mix: stable across runs and
 * machines of the same layout, and cheap. */
static uint64_t
ws__mix(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++) {
		h ^= (v >> (i * 8)) & 0xff;
		h *= 0x100000001b3ULL;
	}
	return h;
}

char *
ws_version_token(const struct stat *st, char *buf)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = ws__mix(h, (uint64_t)st->st_dev);
	h = ws__mix(h, (uint64_t)st->st_ino);
	h = ws__mix(h, (uint64_t)st->st_size);
	h = ws__mix(h, (uint64_t)st->st_mtim.tv_sec);
	h = ws__mix(h, (uint64_t)st->st_mtim.tv_nsec);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	/* Sixteen hex digits by hand: a recorded tree asks for 10,000. */
	for (int i = 15; i >= 0; i--, h >>= 4)
		buf[i] = "0123456789abcdef"[h & 15];
	buf[16] = '\0';
	return buf;
}

bool
ws_version_matches(const struct stat *st, const char *token)
{
	char buf[WS_VERSION_LEN];

	return token != NULL &&
	       strcmp(ws_version_token(st, buf), token) == 0;
}
