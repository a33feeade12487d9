/*
 * ws/netproxy.h - network by name for wsrun (--net-allow, --net-deny,
 * policy network_rules): a filtering HTTP proxy outside the command's
 * network namespace (lib/netproxy.c).
 *
 * Shape.  The command keeps its own network namespace, holding only
 * loopback.  Its init makes a TCP listener on 127.0.0.1:WS_NETPROXY_PORT
 * in that namespace and hands the listening descriptor out to wsrun over
 * a socketpair (SCM_RIGHTS); wsrun's proxy thread accepts on it from
 * outside, so no UNIX socket is bound or reachable inside, and the
 * command reaches nothing but that port (seccomp: TCP sockets only,
 * Landlock from ABI 4: connect to that port only).  The proxy speaks
 * HTTP CONNECT, plain HTTP forwarding and, on the same port (told apart
 * by the first byte), SOCKS5 CONNECT without authentication (domain
 * names resolved by the proxy, as socks5h asks; BIND and UDP ASSOCIATE
 * refused), resolves names itself, and
 * refuses every host no rule allows (403, with the reason in an
 * X-Wsrun-Refused header and the body), and an allowed name whose
 * addresses are loopback, link-local, private (RFC 1918, ULA, CGNAT),
 * unspecified or multicast, or one of the host's own (an address of one
 * of its interfaces, listed at each connection) unless an allow rule
 * names that address.
 */
#ifndef WS_NETPROXY_H
#define WS_NETPROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

struct ws_ctx;

/*
 * The proxy's port inside the command's network namespace.  The
 * namespace is new and holds nothing else, so a fixed port cannot be
 * taken, and the command's environment and Landlock rule can name it
 * before the namespace exists.
 */
#define WS_NETPROXY_PORT 3128

/*
 * The connections listed in a result: the first this many; the others
 * are counted (ws_netproxy_counts()), so that a command making millions
 * cannot grow wsrun's memory or its result without bound.
 */
#define WS_NETPROXY_LOG_MAX 1000

enum ws_net_decision { WS_NET_ALLOW, WS_NET_DENY, WS_NET_APPROVE };

/* One rule: the first whose pattern matches the host decides. */
struct ws_net_rule {
	const char *pattern; /* "example.org", "*.example.org", "10.1.2.3" */
	enum ws_net_decision decision;
	const char *name;    /* the rule's name as reported */
	const char *policy;  /* the policy it comes from, or NULL (a flag) */
	const char *message; /* approve: the rule's message, or NULL */
};

/* One connection the command tried, as the result reports it. */
struct ws_net_conn {
	char *host;	     /* as asked (lower case) */
	int port;
	bool allowed;
	char *rule;	     /* the deciding rule's name, or NULL */
	char *reason;	     /* why refused (NULL when allowed) */
	char *addr;	     /* the address connected to, or NULL */
	long long up, down;  /* bytes the command sent, and received */
};

struct ws_netproxy;

/*
 * Whether pattern matches host (both compared without case and without a
 * trailing dot).  "*.example.org" matches every subdomain of example.org
 * but not example.org itself, as sandbox-runtime does; an IP literal
 * matches the same address however spelled; "*" matches every name (not
 * IP literals).
 */
bool ws_net_match(const char *pattern, const char *host);

/*
 * Whether an address is in a range the proxy refuses unless a rule names
 * the address: loopback, link-local, private (10/8, 172.16/12,
 * 192.168/16, fc00::/7), CGNAT (100.64/10), benchmarking (198.18/15,
 * 2001:2::/48), unspecified, multicast, broadcast, reserved (0/8,
 * 192.0.0/24, 240/4, fec0::/10, ::/96), local-use NAT64
 * (64:ff9b:1::/48), and an IPv6 address wrapping an IPv4 one of those
 * (::ffff:0:0/96 mapped, ::ffff:0:0:0/96 translated, 64:ff9b::/96 NAT64,
 * 2002::/16 6to4, 2001::/32 Teredo's client).  Fixed ranges only: the
 * host's own addresses are ws_net_addr_class()'s.
 */
bool ws_net_addr_internal(const struct sockaddr *sa);

/*
 * One address of the host, as the proxy lists them (getifaddrs(3): each
 * interface's addresses and broadcast addresses), named by its interface
 * for a refusal's reason; or a range the host delivers locally whole
 * (prefix shorter than the address).
 */
#define WS_NET_IFNAME_MAX 16
struct ws_net_own {
	struct sockaddr_storage addr;
	unsigned prefix;	/* bits; 0, 32 or 128: the address alone */
	char ifname[WS_NET_IFNAME_MAX];
};

/* What an address is to the proxy. */
enum ws_net_class {
	WS_NET_PUBLIC,	 /* none of the below: reached by an allowed name */
	WS_NET_INTERNAL, /* a fixed range (ws_net_addr_internal()) */
	WS_NET_OWN,	 /* one of the host's own addresses */
};

/*
 * Classify sa against the fixed ranges and own[0..nown), the addresses
 * of the host (the network namespace the proxy connects from): one of
 * those is reached by local delivery, to every service listening on
 * 0.0.0.0 or ::, whatever range it is in (a VPS's public IPv4, a
 * laptop's global IPv6).  An own address is compared in its
 * IPv4-mapped, NAT64, 6to4 and Teredo forms too.  WS_NET_OWN, with
 * *which (when not NULL) its index in own, comes before WS_NET_INTERNAL
 * so that a reason can name the interface.  Pure: no system call.
 */
enum ws_net_class ws_net_addr_class(const struct sockaddr *sa,
				    const struct ws_net_own *own, size_t nown,
				    size_t *which);

/*
 * Check a pattern as a rule may hold it: a host name (letters, digits,
 * '-', '.', '_'), "*." and a name, "*", or an IP literal.  Errors:
 * WS_EINVALID_ARGUMENT naming it.
 */
int ws_net_pattern_check(const char *pattern);

/*
 * Internal, shared by the proxy and lib/netmatch.c.  A host name lower
 * case, without its trailing dot, into out (len bytes with the NUL): 0,
 * or -1 when empty or too long.
 */
#define WS__HOST_MAX 254
int ws__host_norm(const char *in, char *out, size_t len);
/* An IP literal (IPv6 with or without brackets) into ss: true. */
struct sockaddr_storage;
bool ws__ip_literal(const char *s, struct sockaddr_storage *ss);
/* The same address, an IPv4-mapped IPv6 address as its IPv4 address. */
bool ws__same_addr(const struct sockaddr *a, const struct sockaddr *b);

/*
 * A proxy for one call, deciding by rules[0..n) (copied).  ws is used
 * for approvals (ws_policy_ask()) and must outlive the proxy.  Errors:
 * WS_ENOMEM.
 */
int ws_netproxy_new(struct ws_ctx *ws, const struct ws_net_rule *rules,
		    size_t n, struct ws_netproxy **out);

/*
 * Start the proxy's thread: it receives the listening descriptor on sock
 * (taken over; see ws_netproxy_listen()) and serves every connection
 * accepted on it, each in a thread of its own, until ws_netproxy_stop().
 * Errors: WS_ENOMEM, WS_EIO_ERROR.
 */
int ws_netproxy_start(struct ws_netproxy *p, int sock);

/*
 * Stop: close the listener and every connection, join every thread (none
 * is left but a name's lookup, abandoned: it frees what it holds when
 * getaddrinfo() returns), and hand the first WS_NETPROXY_LOG_MAX
 * connections tried to the caller (*conns
 * malloc'd, freed with ws_net_conns_free()).  Safe on a proxy never
 * started.
 */
void ws_netproxy_stop(struct ws_netproxy *p, struct ws_net_conn **conns,
		      size_t *n);

/*
 * How many connections the command tried, and how many of those were
 * refused: all of them, where the list ws_netproxy_stop() hands over
 * holds the first WS_NETPROXY_LOG_MAX only.  Zeros on NULL.
 */
void ws_netproxy_counts(struct ws_netproxy *p, size_t *total, size_t *refused);

/* Free a proxy (stopping it first if need be).  Safe on NULL. */
void ws_netproxy_free(struct ws_netproxy *p);

/* Free a list of connections. */
void ws_net_conns_free(struct ws_net_conn *v, size_t n);

/*
 * In the namespace's init, loopback up: make the listener on
 * 127.0.0.1:WS_NETPROXY_PORT, send it on sock with SCM_RIGHTS and close
 * it.  No heap.  Returns 0 or -errno.
 */
int ws_netproxy_listen(int sock);

#endif
