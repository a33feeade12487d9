/*
 * unit-netmatch: what the network proxy tells internal (lib/netmatch.c):
 * the fixed ranges, every IPv6 form wrapping an IPv4 address, and the
 * host's own addresses (review30 02: an allowed name resolving to one of
 * the host's interface addresses reaches every service the host listens
 * on, whatever range that address is in).
 */
#include "wstest.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ws/netproxy.h"

/* An address literal into ss. */
static struct sockaddr_storage
addr(const char *s)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(s, ':') != NULL) {
		ss.ss_family = AF_INET6;
		ck_assert_msg(inet_pton(AF_INET6, s,
					&((struct sockaddr_in6 *)&ss)->sin6_addr) == 1, "%s", s);
	} else {
		ss.ss_family = AF_INET;
		ck_assert_msg(inet_pton(AF_INET, s,
					&((struct sockaddr_in *)&ss)->sin_addr) == 1, "%s", s);
	}
	return ss;
}

static bool
internal(const char *s)
{
	struct sockaddr_storage ss = addr(s);

	return ws_net_addr_internal((struct sockaddr *)&ss);
}

/* Each range, at both ends where it has them, and its neighbours. */
START_TEST(fixed_ranges)
{
	static const char *const in[] = {
		/* IPv4 */
		"0.0.0.0", "0.255.255.255",		/* 0/8 */
		"10.0.0.0", "10.255.255.255",		/* 10/8 */
		"127.0.0.1", "127.255.255.254",		/* loopback */
		"100.64.0.0", "100.127.255.255",	/* CGNAT */
		"169.254.0.1", "169.254.169.254",	/* link-local */
		"172.16.0.1", "172.31.255.255",		/* 172.16/12 */
		"192.168.0.1", "192.168.255.255",	/* 192.168/16 */
		"192.0.0.1", "192.0.0.255",		/* 192.0.0/24 */
		"198.18.0.0", "198.19.255.255",		/* benchmarking */
		"224.0.0.1", "239.255.255.255",		/* multicast */
		"240.0.0.1", "255.255.255.254",		/* reserved */
		"255.255.255.255",			/* broadcast */
		/* IPv6 */
		"::", "::1",				/* unspecified, loopback */
		"::10.0.0.1", "::1.1.1.1",		/* IPv4-compatible: ::/96 */
		"fc00::1", "fdff:ffff::1",		/* ULA */
		"fe80::1", "febf::1",			/* link-local */
		"fec0::1", "feff::1",			/* site-local */
		"ff02::1", "ff0e::1", "ff00::",		/* multicast */
		"64:ff9b:1::1", "64:ff9b:1:ffff::1.1.1.1", /* local-use NAT64 */
		"2001:2::1", "2001:2:0:ffff::1",	/* benchmarking */
	};
	static const char *const out[] = {
		"1.0.0.0", "9.255.255.255", "11.0.0.0", "126.255.255.255", "128.0.0.0",
		"100.63.255.255", "100.128.0.0", "169.253.255.255", "169.255.0.0",
		"172.15.255.255", "172.32.0.0", "192.167.255.255", "192.169.0.0",
		"192.0.1.0", "198.17.255.255", "198.20.0.0", "223.255.255.255",
		"1.1.1.1", "8.8.8.8",
		"2606:4700::1111", "2001:4860:4860::8888", "fbff::1", "fe00::1",
		"64:ff9b:2::1", "64:ff9b:0:1::1", "2001:3::1", "2001:1::1",
	};

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		ck_assert_msg(internal(in[i]), "%s is internal", in[i]);
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
		ck_assert_msg(!internal(out[i]), "%s is not internal", out[i]);
}
END_TEST

/*
 * An IPv6 address wrapping an IPv4 one is what that IPv4 address is:
 * mapped, translated (SIIT), NAT64, 6to4, Teredo (client inverted).
 */
START_TEST(wrapped_ipv4)
{
	static const char *const in[] = {
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:0.0.0.0",
		"::ffff:198.18.0.1", "::ffff:255.255.255.255",
		"::ffff:0:127.0.0.1", "::ffff:0:192.168.1.1",
		"64:ff9b::127.0.0.1", "64:ff9b::a00:1", "64:ff9b::100.64.0.1",
		"2002:7f00:1::", "2002:a00:1::1", "2002:c0a8:101:1::1",
		"2002:a9fe:a9fe::",
		/* Teredo: server 65.54.227.120, client ~0x80fffffe = 127.0.0.1 */
		"2001:0:4136:e378:8000:63bf:80ff:fffe",
		/* client ~0xf5fffffe = 10.0.0.1 */
		"2001:0:4136:e378:8000:63bf:f5ff:fffe",
	};
	static const char *const out[] = {
		"::ffff:1.1.1.1", "::ffff:0:1.1.1.1", "64:ff9b::101:101",
		"2002:101:101::1", "2002:808:808::",
		/* client ~0xfefefefe = 1.1.1.1 */
		"2001:0:4136:e378:8000:63bf:fefe:fefe",
	};

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		ck_assert_msg(internal(in[i]), "%s is internal", in[i]);
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
		ck_assert_msg(!internal(out[i]), "%s is not internal", out[i]);
}
END_TEST

static enum ws_net_class
klass(const char *s, const struct ws_net_own *own, size_t n, size_t *which)
{
	struct sockaddr_storage ss = addr(s);

	return ws_net_addr_class((struct sockaddr *)&ss, own, n, which);
}

/*
 * The host's own addresses: one of them is WS_NET_OWN whatever its range
 * (a public IPv4, a global IPv6, a documentation address as this test
 * host's eth0 has), in every spelling that leads to it, with the index
 * of the interface's entry; an address the list does not hold is
 * decided by the ranges alone.
 */
START_TEST(own_addresses)
{
	struct ws_net_own own[5];
	size_t w;

	memset(own, 0, sizeof(own));
	own[0].addr = addr("127.0.0.1");
	own[0].prefix = 32;
	snprintf(own[0].ifname, sizeof(own[0].ifname), "lo");
	own[1].addr = addr("192.0.2.2");
	own[1].prefix = 32;
	snprintf(own[1].ifname, sizeof(own[1].ifname), "eth0");
	own[2].addr = addr("192.0.2.255"); /* eth0's broadcast */
	snprintf(own[2].ifname, sizeof(own[2].ifname), "eth0");
	own[3].addr = addr("2a01:4f8::17");
	own[3].prefix = 128;
	snprintf(own[3].ifname, sizeof(own[3].ifname), "wlan0");
	own[4].addr = addr("203.0.113.9");
	snprintf(own[4].ifname, sizeof(own[4].ifname), "wg0");

	/* Not in any range: public without the list. */
	ck_assert_int_eq(klass("192.0.2.2", NULL, 0, NULL), WS_NET_PUBLIC);
	ck_assert_int_eq(klass("2a01:4f8::17", NULL, 0, NULL), WS_NET_PUBLIC);
	ck_assert_int_eq(klass("203.0.113.9", own, 0, NULL), WS_NET_PUBLIC);

	w = 99;
	ck_assert_int_eq(klass("192.0.2.2", own, 5, &w), WS_NET_OWN);
	ck_assert_uint_eq(w, 1);
	ck_assert_int_eq(klass("192.0.2.255", own, 5, &w), WS_NET_OWN);
	ck_assert_uint_eq(w, 2);
	ck_assert_int_eq(klass("2a01:4f8::17", own, 5, &w), WS_NET_OWN);
	ck_assert_uint_eq(w, 3);
	ck_assert_str_eq(own[w].ifname, "wlan0");
	ck_assert_int_eq(klass("203.0.113.9", own, 5, &w), WS_NET_OWN);
	ck_assert_uint_eq(w, 4);
	/* The spellings that lead to an own IPv4 address. */
	static const char *const wraps[] = {
		"::ffff:192.0.2.2", "::ffff:0:192.0.2.2", "64:ff9b::192.0.2.2",
		"64:ff9b::c000:202", "2002:c000:202::", "2002:c000:202:1::5",
		"2001:0:4136:e378:8000:63bf:3fff:fdfd", /* Teredo, client ~192.0.2.2 */
	};
	for (size_t i = 0; i < sizeof(wraps) / sizeof(wraps[0]); i++) {
		w = 99;
		ck_assert_msg(klass(wraps[i], own, 5, &w) == WS_NET_OWN, "%s", wraps[i]);
		ck_assert_msg(w == 1, "%s: %zu", wraps[i], w);
	}
	/* Own comes first: loopback names its interface. */
	ck_assert_int_eq(klass("127.0.0.1", own, 5, &w), WS_NET_OWN);
	ck_assert_uint_eq(w, 0);
	/* Internal but not listed: the ranges decide. */
	ck_assert_int_eq(klass("127.0.0.2", own, 5, &w), WS_NET_INTERNAL);
	ck_assert_int_eq(klass("10.0.0.1", own, 5, &w), WS_NET_INTERNAL);
	/* Neighbours of the own addresses stay public. */
	static const char *const pub[] = {
		"192.0.2.3", "192.0.2.1", "2a01:4f8::18", "203.0.113.8",
		"::ffff:192.0.2.3", "2002:c000:203::", "1.1.1.1",
	};
	for (size_t i = 0; i < sizeof(pub) / sizeof(pub[0]); i++)
		ck_assert_msg(klass(pub[i], own, 5, NULL) == WS_NET_PUBLIC, "%s", pub[i]);
	/*
	 * A range the host delivers locally whole (198.51.100.0/24 on lo,
	 * an AnyIP route): every address in it, none beside it; prefix 0
	 * is the address alone.
	 */
	{
		struct ws_net_own r[2];

		memset(r, 0, sizeof(r));
		r[0].addr = addr("198.51.100.7");
		r[0].prefix = 24;
		snprintf(r[0].ifname, sizeof(r[0].ifname), "lo");
		r[1].addr = addr("2001:db8:aa::");
		r[1].prefix = 48;
		snprintf(r[1].ifname, sizeof(r[1].ifname), "lo");
		ck_assert_int_eq(klass("198.51.100.200", r, 2, NULL), WS_NET_OWN);
		ck_assert_int_eq(klass("::ffff:198.51.100.0", r, 2, NULL), WS_NET_OWN);
		ck_assert_int_eq(klass("2002:c633:64ff::", r, 2, NULL), WS_NET_OWN);
		ck_assert_int_eq(klass("198.51.101.7", r, 2, NULL), WS_NET_PUBLIC);
		ck_assert_int_eq(klass("2001:db8:aa:ffff::1", r, 2, NULL), WS_NET_OWN);
		ck_assert_int_eq(klass("2001:db8:ab::1", r, 2, NULL), WS_NET_PUBLIC);
		r[0].prefix = 0;
		r[1].prefix = 0;
		ck_assert_int_eq(klass("198.51.100.7", r, 2, NULL), WS_NET_OWN);
		ck_assert_int_eq(klass("198.51.100.8", r, 2, NULL), WS_NET_PUBLIC);
		ck_assert_int_eq(klass("2001:db8:aa::", r, 2, NULL), WS_NET_OWN);
		ck_assert_int_eq(klass("2001:db8:aa::1", r, 2, NULL), WS_NET_PUBLIC);
		r[0].prefix = 31;
		ck_assert_int_eq(klass("198.51.100.6", r, 2, NULL), WS_NET_OWN);
		ck_assert_int_eq(klass("198.51.100.8", r, 2, NULL), WS_NET_PUBLIC);
	}
	/* Every fixed range is internal with or without a list. */
	ck_assert_int_eq(klass("::1", own, 5, NULL), WS_NET_INTERNAL);
	ck_assert_int_eq(klass("64:ff9b:1::1", NULL, 0, NULL), WS_NET_INTERNAL);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("netmatch");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, fixed_ranges);
	tcase_add_test(tc, wrapped_ipv4);
	tcase_add_test(tc, own_addresses);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
