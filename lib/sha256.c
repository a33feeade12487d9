/*
 * sha256.c - SHA-256 after FIPS 180-4: the x86-64 SHA instructions where
 * the CPU has them (the audit log hashes a line per call and the history
 * a file per change: the portable block function cost an audited call
 * 24,000 instructions, a third of what the line cost; issue 22), else a
 * straightforward block function (about 200 MB/s), sparing a dependency.
 * Both are checked against the FIPS and NIST vectors in
 * tests/unit/test_audit.c.
 */
#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define WS__SHA_NI 1
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#endif
#endif

#include "ws/sha256.h"

static const uint32_t ws__k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void
ws__sha256_block_c(struct ws_sha256 *c, const unsigned char *p)
{
	uint32_t w[64], a, b, d, e, f, g, h, cc, t1, t2;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3];
	e = c->h[4], f = c->h[5], g = c->h[6], h = c->h[7];
	for (int i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) +
		     ws__k[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
		     ((a & b) ^ (a & cc) ^ (b & cc));
		h = g, g = f, f = e, e = d + t1;
		d = cc, cc = b, b = a, a = t1 + t2;
	}
	c->h[0] += a, c->h[1] += b, c->h[2] += cc, c->h[3] += d;
	c->h[4] += e, c->h[5] += f, c->h[6] += g, c->h[7] += h;
}

#ifdef WS__SHA_NI
/*
 * One block with SHA-NI.  The state is kept as the instructions want it
 * (ABEF and CDGH) only within the call.  M[k] holds W[4k..4k+3]; each
 * new one is W[t-16] + s0(W[t-15]) (msg1), + W[t-7] (the alignr of the
 * two before), + s1(W[t-2]) (msg2).
 */
__attribute__((target("sha,sse4.1,ssse3"))) static void
ws__sha256_block_ni(struct ws_sha256 *c, const unsigned char *p)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL,
					     0x0405060700010203LL);
	__m128i s0, s1, t, save0, save1, m[16], k;

	t = _mm_loadu_si128((const __m128i *)&c->h[0]);	 /* DCBA */
	s1 = _mm_loadu_si128((const __m128i *)&c->h[4]); /* HGFE */
	t = _mm_shuffle_epi32(t, 0xb1);			 /* CDAB */
	s1 = _mm_shuffle_epi32(s1, 0x1b);		 /* EFGH */
	s0 = _mm_alignr_epi8(t, s1, 8);			 /* ABEF */
	s1 = _mm_blend_epi16(s1, t, 0xf0);		 /* CDGH */
	save0 = s0;
	save1 = s1;
	for (int i = 0; i < 4; i++)
		m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)),
					bswap);
	for (int i = 4; i < 16; i++)
		m[i] = _mm_sha256msg2_epu32(
			_mm_add_epi32(_mm_sha256msg1_epu32(m[i - 4], m[i - 3]),
				      _mm_alignr_epi8(m[i - 1], m[i - 2], 4)),
			m[i - 1]);
	for (int i = 0; i < 16; i++) {
		k = _mm_add_epi32(m[i], _mm_loadu_si128((const __m128i *)&ws__k[4 * i]));
		s1 = _mm_sha256rnds2_epu32(s1, s0, k);
		s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(k, 0x0e));
	}
	s0 = _mm_add_epi32(s0, save0);
	s1 = _mm_add_epi32(s1, save1);
	t = _mm_shuffle_epi32(s0, 0x1b);	/* FEBA */
	s1 = _mm_shuffle_epi32(s1, 0xb1);	/* DCHG */
	s0 = _mm_blend_epi16(t, s1, 0xf0);	/* DCBA */
	s1 = _mm_alignr_epi8(s1, t, 8);		/* HGFE */
	_mm_storeu_si128((__m128i *)&c->h[0], s0);
	_mm_storeu_si128((__m128i *)&c->h[4], s1);
}

/* 1 with SHA-NI, 0 without, -1 not asked yet; a race only asks twice. */
static atomic_int ws__ni = -1;

static bool
ws__have_ni(void)
{
	int v = atomic_load_explicit(&ws__ni, memory_order_relaxed);

	if (v >= 0)
		return v;
#ifdef CPU_FEATURE_ACTIVE
	/*
	 * What the C library found when the process started: cpuid is a
	 * trap to the hypervisor in a virtual machine, four of them 6 us of
	 * every hashing process (issue 22).
	 */
	v = CPU_FEATURE_ACTIVE(SHA) && CPU_FEATURE_ACTIVE(SSSE3) &&
	    CPU_FEATURE_ACTIVE(SSE4_1);
#else
	{
		unsigned a, b, cc, d;

		/* SHA (leaf 7 EBX bit 29), SSSE3 and SSE4.1 (leaf 1 ECX 9, 19). */
		v = __get_cpuid(1, &a, &b, &cc, &d) && (cc & (1u << 9)) &&
		    (cc & (1u << 19)) &&
		    __get_cpuid_count(7, 0, &a, &b, &cc, &d) && (b & (1u << 29));
	}
#endif
	atomic_store_explicit(&ws__ni, v, memory_order_relaxed);
	return v;
}
#endif

static void
ws__sha256_block(struct ws_sha256 *c, const unsigned char *p)
{
#ifdef WS__SHA_NI
	if (ws__have_ni()) {
		ws__sha256_block_ni(c, p);
		return;
	}
#endif
	ws__sha256_block_c(c, p);
}

bool
ws_sha256_accel(int use)
{
#ifdef WS__SHA_NI
	if (use == 0)
		atomic_store_explicit(&ws__ni, 0, memory_order_relaxed);
	else if (use > 0)
		atomic_store_explicit(&ws__ni, -1, memory_order_relaxed);
	return ws__have_ni();
#else
	(void)use;
	return false;
#endif
}

void
ws_sha256_init(struct ws_sha256 *c)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
				       0xa54ff53a, 0x510e527f, 0x9b05688c,
				       0x1f83d9ab, 0x5be0cd19};

	memcpy(c->h, h0, sizeof(h0));
	c->len = 0;
	c->nbuf = 0;
}

void
ws_sha256_update(struct ws_sha256 *c, const void *data, size_t n)
{
	const unsigned char *p = data;

	c->len += n;
	if (c->nbuf > 0) {
		size_t k = 64 - c->nbuf < n ? 64 - c->nbuf : n;

		memcpy(c->buf + c->nbuf, p, k);
		c->nbuf += k, p += k, n -= k;
		if (c->nbuf < 64)
			return;
		ws__sha256_block(c, c->buf);
		c->nbuf = 0;
	}
	for (; n >= 64; p += 64, n -= 64)
		ws__sha256_block(c, p);
	memcpy(c->buf, p, n);
	c->nbuf = n;
}

void
ws_sha256_final(struct ws_sha256 *c, unsigned char out[WS_SHA256_LEN])
{
	uint64_t bits = c->len * 8;

	c->buf[c->nbuf++] = 0x80;
	if (c->nbuf > 56) {
		memset(c->buf + c->nbuf, 0, 64 - c->nbuf);
		ws__sha256_block(c, c->buf);
		c->nbuf = 0;
	}
	memset(c->buf + c->nbuf, 0, 56 - c->nbuf);
	for (int i = 0; i < 8; i++)
		c->buf[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	ws__sha256_block(c, c->buf);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(c->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)c->h[i];
	}
}

void
ws_sha256_tohex(const unsigned char d[WS_SHA256_LEN], char out[WS_SHA256_HEX + 1])
{
	static const char hx[] = "0123456789abcdef";

	for (int i = 0; i < WS_SHA256_LEN; i++) {
		out[2 * i] = hx[d[i] >> 4];
		out[2 * i + 1] = hx[d[i] & 15];
	}
	out[WS_SHA256_HEX] = '\0';
}

void
ws_sha256_hex(const void *data, size_t n, char out[WS_SHA256_HEX + 1])
{
	struct ws_sha256 c;
	unsigned char d[WS_SHA256_LEN];

	ws_sha256_init(&c);
	ws_sha256_update(&c, data, n);
	ws_sha256_final(&c, d);
	ws_sha256_tohex(d, out);
}
