/*
 * netmatch.c - the network rules' patterns and addresses (ws/netproxy.h):
 * checked, matched, and told internal.  Apart from the proxy
 * (lib/netproxy.c): a policy's rules are checked by every tool that reads
 * a policy, and only wsrun and wstools link the proxy, whose getaddrinfo()
 * a static binary must not reach (meson.build's static_pie).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "ws/error.h"
#include "ws/netproxy.h"

/* ---- Matching ------------------------------------------------------- */

/* Lower case, no trailing dot, at most WS__HOST_MAX bytes: 0 or -1. */
int
ws__host_norm(const char *in, char *out, size_t len)
{
	size_t n = strlen(in);

	if (n > 0 && in[n - 1] == '.')
		n--;
	if (n == 0 || n >= len)
		return -1;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)in[i]);
	out[n] = '\0';
	return 0;
}

/* An IP literal (IPv6 with or without brackets) into sa: true. */
bool
ws__ip_literal(const char *s, struct sockaddr_storage *ss)
{
	char buf[64];
	size_t n = strlen(s);

	memset(ss, 0, sizeof(*ss));
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']' && n - 2 < sizeof(buf)) {
		memcpy(buf, s + 1, n - 2);
		buf[n - 2] = '\0';
		s = buf;
	}
	if (inet_pton(AF_INET, s, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		ss->ss_family = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, s, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		ss->ss_family = AF_INET6;
		return true;
	}
	return false;
}

/* An address as IPv6 (IPv4 as ::ffff:a.b.c.d) into b: false if neither. */
static bool
ws__addr16(const struct sockaddr *a, uint8_t b[16])
{
	if (a->sa_family == AF_INET) {
		memset(b, 0, 10);
		b[10] = b[11] = 0xff;
		memcpy(b + 12, &((const struct sockaddr_in *)a)->sin_addr, 4);
		return true;
	}
	if (a->sa_family == AF_INET6) {
		static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b};

		memcpy(b, &((const struct sockaddr_in6 *)a)->sin6_addr, 16);
		/*
		 * 64:ff9b::a.b.c.d (RFC 6052's well-known NAT64 prefix)
		 * reaches a.b.c.d through a NAT64 gateway: the same host.
		 */
		if (memcmp(b, nat64, 12) == 0) {
			memset(b, 0, 10);
			b[10] = b[11] = 0xff;
		}
		return true;
	}
	return false;
}

/*
 * The same address: an IPv4-mapped IPv6 address (::ffff:203.0.113.7, what
 * a name's AAAA record may hold, and where an IPv6 socket connects to
 * the IPv4 host) and its NAT64 form (64:ff9b::203.0.113.7) are its IPv4
 * address, so that a rule naming any of them decides all.
 */
bool
ws__same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	uint8_t x[16], y[16];

	return ws__addr16(a, x) && ws__addr16(b, y) && memcmp(x, y, 16) == 0;
}

bool
ws_net_match(const char *pattern, const char *host)
{
	char p[WS__HOST_MAX + 2], h[WS__HOST_MAX + 2];
	struct sockaddr_storage pa, ha;
	bool pip, hip;
	size_t pl, hl;

	if (ws__host_norm(pattern, p, sizeof(p)) < 0 ||
	    ws__host_norm(host, h, sizeof(h)) < 0)
		return false;
	pip = ws__ip_literal(p, &pa);
	hip = ws__ip_literal(h, &ha);
	if (pip || hip)
		return pip && hip && ws__same_addr((struct sockaddr *)&pa,
						   (struct sockaddr *)&ha);
	if (strcmp(p, "*") == 0)
		return true;
	if (p[0] == '*' && p[1] == '.') {
		/* Subdomains only: "*.example.org" is not example.org. */
		pl = strlen(p + 1);
		hl = strlen(h);
		return hl > pl && strcmp(h + hl - pl, p + 1) == 0;
	}
	return strcmp(p, h) == 0;
}

int
ws_net_pattern_check(const char *pattern)
{
	struct sockaddr_storage ss;
	const char *s = pattern;

	if (s == NULL || *s == '\0' || strlen(s) > WS__HOST_MAX)
		goto bad;
	if (ws__ip_literal(s, &ss) || strcmp(s, "*") == 0)
		return 0;
	if (s[0] == '*' && s[1] == '.')
		s += 2;
	if (*s == '\0' || *s == '.')
		goto bad;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '.' && *s != '_')
			goto bad;
	return 0;
bad:
	return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
			    "network rule pattern \"%s\": expected a host name, "
			    "*.DOMAIN (its subdomains), * or an IP address",
			    pattern ? pattern : "");
}

static bool
ws__v4_internal(uint32_t a)
{
	return (a >> 24) == 0 ||		/* 0/8, "this network" */
	       (a >> 24) == 10 ||		/* 10/8 */
	       (a >> 24) == 127 ||		/* loopback */
	       (a >> 22) == (100U << 2 | 1) ||	/* 100.64/10, CGNAT */
	       (a >> 16) == (169U << 8 | 254) ||	/* link-local */
	       (a >> 20) == (172U << 4 | 1) ||	/* 172.16/12 */
	       (a >> 16) == (192U << 8 | 168) ||	/* 192.168/16 */
	       (a >> 8) == (192U << 16 | 0 << 8 | 0) || /* 192.0.0/24 */
	       (a >> 17) == (198U << 7 | 18 >> 1) ||	/* 198.18/15, benchmarking */
	       (a >> 28) >= 14;			/* multicast, 240/4, broadcast */
}

static uint32_t
ws__be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/*
 * The IPv4 address an IPv6 address leads to, where it wraps one: mapped
 * ::ffff:a.b.c.d (where an IPv6 socket connects to the IPv4 host),
 * translated ::ffff:0:a.b.c.d (SIIT), the well-known NAT64 prefix
 * 64:ff9b::/96 (a gateway connects to a.b.c.d), 6to4 2002:AABB:CCDD::/48
 * (a relay sends it to AA.BB.CC.DD) and Teredo 2001:0::/32, whose last 32
 * bits are the client's IPv4 address inverted.  The deprecated
 * IPv4-compatible ::a.b.c.d is internal whole (::/96).
 */
static bool
ws__v6_wraps_v4(const uint8_t *b, uint32_t *v4)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	static const uint8_t xlat[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0};
	static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b};

	if (memcmp(b, mapped, 12) == 0 || memcmp(b, xlat, 12) == 0 ||
	    memcmp(b, nat64, 12) == 0) {
		*v4 = ws__be32(b + 12);
		return true;
	}
	if (b[0] == 0x20 && b[1] == 0x02) {
		*v4 = ws__be32(b + 2);
		return true;
	}
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0) {
		*v4 = ~ws__be32(b + 12);
		return true;
	}
	return false;
}

bool
ws_net_addr_internal(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ws__v4_internal(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
	if (sa->sa_family == AF_INET6) {
		const uint8_t *b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		static const uint8_t zero[12];
		static const uint8_t nat64_local[6] = {0, 0x64, 0xff, 0x9b, 0, 1};
		static const uint8_t bench[6] = {0x20, 0x01, 0, 0x02, 0, 0};
		uint32_t v4;

		if (ws__v6_wraps_v4(b, &v4))
			return ws__v4_internal(v4);
		/* ::, ::1, and the deprecated IPv4-compatible ::a.b.c.d */
		if (memcmp(b, zero, 12) == 0)
			return true;
		/*
		 * 64:ff9b:1::/48 (RFC 8215) is local-use NAT64: where the
		 * IPv4 address sits depends on the operator's prefix length,
		 * so the whole range is internal, as a way to the local
		 * gateway's IPv4 side.  2001:2::/48 is benchmarking, as
		 * 198.18/15.
		 */
		if (memcmp(b, nat64_local, 6) == 0 || memcmp(b, bench, 6) == 0)
			return true;
		return b[0] == 0xff ||			/* multicast */
		       (b[0] & 0xfe) == 0xfc ||		/* fc00::/7, ULA */
		       (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) || /* fe80::/10 */
		       (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0);   /* fec0::/10 */
	}
	return true;
}

/* Whether the first bits bits of a and b are the same. */
static bool
ws__prefix_eq(const uint8_t a[16], const uint8_t b[16], unsigned bits)
{
	unsigned whole = bits / 8, rest = bits % 8;

	if (memcmp(a, b, whole) != 0)
		return false;
	return rest == 0 ||
	       ((a[whole] ^ b[whole]) & (uint8_t)(0xff00 >> rest)) == 0;
}

/*
 * Whether sa is in the host's own o: the same address, or in its prefix
 * where o is a range delivered locally whole (an IPv4-mapped or NAT64
 * spelling as well, as ws__same_addr() reads them), or an IPv6 address
 * wrapping such an IPv4 address (6to4, Teredo, SIIT).  A link-local own
 * address matches whatever its scope: it is internal anyway.
 */
static bool
ws__is_own(const struct sockaddr *sa, const struct ws_net_own *o)
{
	const struct sockaddr *oa = (const struct sockaddr *)&o->addr;
	uint8_t x[16], y[16];
	unsigned bits;
	uint32_t v4;

	if (!ws__addr16(oa, y))
		return false;
	/* Prefix 0 is the address alone, as a caller that sets none means. */
	bits = oa->sa_family == AF_INET ?
	       96 + (o->prefix == 0 || o->prefix > 32 ? 32 : o->prefix) :
	       (o->prefix == 0 || o->prefix > 128 ? 128 : o->prefix);
	if (ws__addr16(sa, x) && ws__prefix_eq(x, y, bits))
		return true;
	if (sa->sa_family == AF_INET6 && oa->sa_family == AF_INET &&
	    ws__v6_wraps_v4(((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr, &v4)) {
		memset(x, 0, 10);
		x[10] = x[11] = 0xff;
		x[12] = (uint8_t)(v4 >> 24);
		x[13] = (uint8_t)(v4 >> 16);
		x[14] = (uint8_t)(v4 >> 8);
		x[15] = (uint8_t)v4;
		return ws__prefix_eq(x, y, bits);
	}
	return false;
}

enum ws_net_class
ws_net_addr_class(const struct sockaddr *sa, const struct ws_net_own *own,
		  size_t nown, size_t *which)
{
	for (size_t i = 0; own != NULL && i < nown; i++)
		if (ws__is_own(sa, &own[i])) {
			if (which != NULL)
				*which = i;
			return WS_NET_OWN;
		}
	return ws_net_addr_internal(sa) ? WS_NET_INTERNAL : WS_NET_PUBLIC;
}
