/*
 * ws/sha256.h - SHA-256 (FIPS 180-4), for the audit log's hash chain and
 * the history's content-addressed objects.  Small and dependency-free:
 * wstools links no crypto library.
 */
#ifndef WS_SHA256_H
#define WS_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WS_SHA256_LEN 32
/* The hex form's length, without the NUL. */
#define WS_SHA256_HEX 64

struct ws_sha256 {
	uint32_t h[8];
	uint64_t len;	    /* bytes hashed so far */
	unsigned char buf[64];
	size_t nbuf;
};

/* Start a hash. */
void ws_sha256_init(struct ws_sha256 *c);

/* Add data[0..n) to it. */
void ws_sha256_update(struct ws_sha256 *c, const void *data, size_t n);

/* Finish it: out gets the 32-byte digest. */
void ws_sha256_final(struct ws_sha256 *c, unsigned char out[WS_SHA256_LEN]);

/* The digest of data[0..n) in lower-case hex, NUL-terminated. */
void ws_sha256_hex(const void *data, size_t n, char out[WS_SHA256_HEX + 1]);

/* A digest in lower-case hex, NUL-terminated. */
void ws_sha256_tohex(const unsigned char d[WS_SHA256_LEN],
		     char out[WS_SHA256_HEX + 1]);

/*
 * Whether the CPU's SHA instructions do the hashing (x86-64 with SHA-NI,
 * SSSE3 and SSE4.1); use 0 turns them off for this process (the portable
 * code then hashes: the tests check both), 1 back on where the CPU has
 * them, -1 only asks.
 */
bool ws_sha256_accel(int use);

#endif
