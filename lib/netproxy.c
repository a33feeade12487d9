/*
 * netproxy.c - the filtering HTTP proxy of wsrun's network by name.  See
 * ws/netproxy.h.
 *
 * Threads.  One thread receives the listener from the namespace's init
 * and accepts; each accepted connection gets a thread that reads the
 * request head (HTTP, or SOCKS5 when its first byte is 5), decides,
 * resolves, connects and then relays both ways with splice(2) through a
 * pipe per direction (no copy through user memory).  Every thread also
 * polls an eventfd: ws_netproxy_stop() writes it, and each thread ends
 * at its next wake-up, so that the stop joins them all.  A name is
 * looked up in a detached thread of its own that the connection's thread
 * waits for with a time-out and the stop: getaddrinfo() cannot be
 * interrupted, so a slow resolver holds up neither the connection's
 * time-out nor the end of the call, and the lookup's thread, abandoned,
 * frees what it holds when the answer comes (or dies with the process).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/netproxy.h"
#include "ws/policy.h"
#include "ws/workspace.h"

#define WS__HEAD_MAX 16384	/* bytes of a request head */
#define WS__IO_TIMEOUT_MS 30000	/* head, connect */
#define WS__MAX_CONNS 512	/* connections open at once in one call */
#define WS__STACK (256 * 1024)	/* a connection thread's stack */
#define WS__DNS_TIMEOUT_MS 15000 /* a name's lookup */
#define WS__LOOKUPS_MAX 64	/* lookups in flight in one call */
#define WS__LOG_MAX WS_NETPROXY_LOG_MAX

/* ---- The proxy ------------------------------------------------------ */

struct ws__rule {
	char *pattern, *name, *policy, *message;
	enum ws_net_decision decision;
	struct sockaddr_storage addr; /* an IP literal pattern's address */
	bool is_addr;
};

#define WS__NOLOG ((size_t)-1) /* a connection past the log's cap */

struct ws__cthread {
	pthread_t t;
	struct ws_netproxy *p;
	int fd;		/* the accepted client */
	size_t log;	/* its entry in the log, or WS__NOLOG */
	bool done;
};

/*
 * The lookups in flight for one proxy.  A lookup that timed out goes on
 * in its detached thread (getaddrinfo() cannot be stopped), so this is
 * shared by the proxy and each lookup thread and freed by the last one:
 * a resolver that never answers then costs at most WS__LOOKUPS_MAX
 * threads, not one per connection the command opens.
 */
struct ws__lkcount {
	pthread_mutex_t mu;
	int inflight;
	int refs;
};

static void
ws__lkcount_put(struct ws__lkcount *c, bool done)
{
	int left;

	pthread_mutex_lock(&c->mu);
	if (done)
		c->inflight--;
	left = --c->refs;
	pthread_mutex_unlock(&c->mu);
	if (left == 0) {
		pthread_mutex_destroy(&c->mu);
		free(c);
	}
}

struct ws__approved {
	char *host;
	bool yes;
};

struct ws_netproxy {
	struct ws_ctx *ws;
	struct ws__rule *rules;
	size_t nrules;
	int sock;	/* where the listener comes from */
	int stop;	/* eventfd: readable once stopping */
	pthread_t acceptor;
	bool started;
	pthread_mutex_t mu;	/* the log, the threads, the approvals */
	pthread_mutex_t ask_mu;	/* one question at a time */
	struct ws_net_conn *log;	/* the first WS__LOG_MAX connections */
	size_t nlog, caplog;
	size_t ntotal, nallowed;	/* every connection, listed or not */
	struct ws__cthread **th;
	size_t nth, capth;
	struct ws__approved *appr;
	size_t nappr;
	struct ws__lkcount *lk;	/* lookups in flight */
	/* test-only map of names to addresses (WS_NET_HOSTS_FILE) */
	char **map_name;
	struct sockaddr_storage *map_addr;
	int *map_delay;	/* milliseconds a lookup of the name takes */
	size_t nmap;
};

static void
ws__rules_free(struct ws__rule *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].pattern);
		free(v[i].name);
		free(v[i].policy);
		free(v[i].message);
	}
	free(v);
}

/*
 * The host map for tests: lines "NAME ADDRESS [MS]" in the file
 * WS_NET_HOSTS_FILE names, MS the milliseconds the lookup takes (a slow
 * resolver, answered in the lookup's thread as getaddrinfo() is).  It
 * maps names to internal addresses only (loopback, private...), and an
 * internal address is reached only where a rule names that address,
 * which would let the command reach it directly anyway: so whoever sets
 * the variable cannot widen what the rules allow.  A public address in
 * the map would let an allowed name lead anywhere: such lines are
 * skipped.
 */
static void
ws__map_load(struct ws_netproxy *p)
{
	const char *path = getenv("WS_NET_HOSTS_FILE");
	char line[512], name[WS__HOST_MAX + 2], addr[128];
	int delay;
	FILE *f;

	if (path == NULL || *path == '\0' || (f = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		struct sockaddr_storage ss;
		char **nn;
		struct sockaddr_storage *na;
		int *nd;

		delay = 0;
		if (sscanf(line, "%255s %127s %d", name, addr, &delay) < 2 ||
		    name[0] == '#' || !ws__ip_literal(addr, &ss) ||
		    !ws_net_addr_internal((struct sockaddr *)&ss))
			continue;
		nd = realloc(p->map_delay, (p->nmap + 1) * sizeof(*nd));
		if (nd == NULL)
			break;
		p->map_delay = nd;
		nn = realloc(p->map_name, (p->nmap + 1) * sizeof(*nn));
		if (nn == NULL)
			break;
		p->map_name = nn;
		na = realloc(p->map_addr, (p->nmap + 1) * sizeof(*na));
		if (na == NULL)
			break;
		p->map_addr = na;
		if (ws__host_norm(name, name, sizeof(name)) < 0 ||
		    (nn[p->nmap] = strdup(name)) == NULL)
			continue;
		nd[p->nmap] = delay > 0 ? delay : 0;
		na[p->nmap++] = ss;
	}
	fclose(f);
}

int
ws_netproxy_new(struct ws_ctx *ws, const struct ws_net_rule *rules, size_t n,
		struct ws_netproxy **out)
{
	struct ws_netproxy *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (p == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	p->ws = ws;
	p->sock = -1;
	p->stop = -1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_mutex_init(&p->ask_mu, NULL);
	if ((p->lk = calloc(1, sizeof(*p->lk))) == NULL)
		goto nomem;
	pthread_mutex_init(&p->lk->mu, NULL);
	p->lk->refs = 1;
	if (n > 0 && (p->rules = calloc(n, sizeof(*p->rules))) == NULL)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		struct ws__rule *r = &p->rules[i];

		p->nrules++;
		r->decision = rules[i].decision;
		/* A flag's rule is named by the flag and its pattern. */
		if (rules[i].policy == NULL && rules[i].name != NULL) {
			if (asprintf(&r->name, "%s %s", rules[i].name,
				     rules[i].pattern) < 0)
				r->name = NULL;
		} else {
			r->name = strdup(rules[i].name ? rules[i].name :
					 rules[i].pattern);
		}
		if ((r->pattern = strdup(rules[i].pattern)) == NULL || r->name == NULL ||
		    (rules[i].policy && (r->policy = strdup(rules[i].policy)) == NULL) ||
		    (rules[i].message && (r->message = strdup(rules[i].message)) == NULL))
			goto nomem;
		r->is_addr = ws__ip_literal(r->pattern, &r->addr);
	}
	ws__map_load(p);
	*out = p;
	return 0;
nomem:
	ws_netproxy_free(p);
	return ws_error_set(WS_ENOMEM, NULL, "out of memory");
}

/* The first rule matching host, or NULL. */
static const struct ws__rule *
ws__decide(const struct ws_netproxy *p, const char *host)
{
	for (size_t i = 0; i < p->nrules; i++)
		if (ws_net_match(p->rules[i].pattern, host))
			return &p->rules[i];
	return NULL;
}

/*
 * A host that getaddrinfo() reads as an address although inet_pton()
 * does not ("127.1", "0x7f000001", "2130706433", "0177.0.0.1" through
 * inet_aton(), "2001:db8::1%lo" with a scope): decided as that address,
 * written the usual way, not as a name, since "*" and "*.DOMAIN" match
 * every name and no address, and a rule naming the address (deny
 * 203.0.113.7) must not be passed by another spelling of it.
 */
static void
ws__host_canon(char *host, size_t hl)
{
	struct sockaddr_storage ss;
	struct in_addr a;
	char *pct;

	if (ws__ip_literal(host, &ss))
		return;
	if (inet_aton(host, &a) != 0) {
		inet_ntop(AF_INET, &a, host, (socklen_t)hl);
		return;
	}
	if ((pct = strchr(host, '%')) != NULL) {
		*pct = '\0';
		if (!ws__ip_literal(host, &ss))
			*pct = '%';
	}
}

/*
 * The first rule naming this address: it decides an address whatever
 * name led there (a name resolving to an address a deny rule names), as
 * it decides the address asked for directly.
 */
static const struct ws__rule *
ws__addr_rule(const struct ws_netproxy *p, const struct sockaddr *sa)
{
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].is_addr &&
		    ws__same_addr((const struct sockaddr *)&p->rules[i].addr, sa))
			return &p->rules[i];
	return NULL;
}

/* Whether an allow rule names this address. */
static bool
ws__addr_named(const struct ws_netproxy *p, const struct sockaddr *sa)
{
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].is_addr && p->rules[i].decision == WS_NET_ALLOW &&
		    ws__same_addr((const struct sockaddr *)&p->rules[i].addr, sa))
			return true;
	return false;
}

static long long
ws__now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Wait for events on fd, or the stop: 1 ready, 0 timeout, -1 stop/error. */
static int
ws__wait(struct ws_netproxy *p, int fd, short ev, long long deadline)
{
	for (;;) {
		struct pollfd pf[2] = {{.fd = fd, .events = ev},
				       {.fd = p->stop, .events = POLLIN}};
		long long left = deadline - ws__now_ms();
		int r;

		if (left <= 0)
			return 0;
		r = poll(pf, 2, left > 1000 ? 1000 : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || pf[1].revents)
			return -1;
		if (r > 0)
			return 1;
	}
}

static void
ws__send_all(int fd, const char *b, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		b += w;
		n -= (size_t)w;
	}
}

static void
ws__refuse(int fd, int code, const char *why)
{
	char buf[1024];
	int n;

	n = snprintf(buf, sizeof(buf),
		     "HTTP/1.1 %d %s\r\nX-Wsrun-Refused: %s\r\n"
		     "Content-Type: text/plain\r\nContent-Length: %zu\r\n"
		     "Connection: close\r\n\r\nwsrun: %s\n",
		     code, code == 403 ? "Forbidden" : code == 502 ? "Bad Gateway" :
		     code == 504 ? "Gateway Timeout" : "Bad Request", why,
		     strlen(why) + 8, why);
	if (n > 0)
		ws__send_all(fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/*
 * Log entry i: set under the lock, once per connection (its outcome).
 * Past the log's cap (WS__NOLOG) the connection is counted only.
 */
static void
ws__log_set(struct ws_netproxy *p, size_t i, const char *host, int port,
	    bool allowed, const char *rule, const char *reason, const char *addr)
{
	struct ws_net_conn *c;

	pthread_mutex_lock(&p->mu);
	p->nallowed += allowed;
	if (i == WS__NOLOG) {
		pthread_mutex_unlock(&p->mu);
		return;
	}
	c = &p->log[i];
	if (host && !c->host)
		c->host = strdup(host);
	c->port = port;
	c->allowed = allowed;
	if (rule && !c->rule)
		c->rule = strdup(rule);
	if (reason) {
		free(c->reason);
		c->reason = strdup(reason);
	}
	if (addr && !c->addr)
		c->addr = strdup(addr);
	pthread_mutex_unlock(&p->mu);
}

/* Once per host and call: ask through the session's approver. */
static bool
ws__approve(struct ws_netproxy *p, const struct ws__rule *r, const char *host,
	    int port)
{
	char subject[WS__HOST_MAX + 16];
	bool yes = false, known = false;

	pthread_mutex_lock(&p->ask_mu);
	pthread_mutex_lock(&p->mu);
	for (size_t i = 0; i < p->nappr; i++)
		if (strcmp(p->appr[i].host, host) == 0) {
			known = true;
			yes = p->appr[i].yes;
		}
	pthread_mutex_unlock(&p->mu);
	if (!known) {
		struct ws_ask ask = {"connect", subject, r->policy, r->name, r->message};
		struct ws__approved *na;

		snprintf(subject, sizeof(subject), "%s:%d", host, port);
		/* --approve approves what a rule marks approve, as for files. */
		yes = p->ws->approve || ws_policy_ask(p->ws->policy, p->ws, &ask);
		pthread_mutex_lock(&p->mu);
		na = realloc(p->appr, (p->nappr + 1) * sizeof(*na));
		if (na != NULL) {
			p->appr = na;
			if ((na[p->nappr].host = strdup(host)) != NULL)
				na[p->nappr++].yes = yes;
		}
		pthread_mutex_unlock(&p->mu);
	}
	pthread_mutex_unlock(&p->ask_mu);
	return yes;
}

/*
 * Whether c may appear in a host as a client names it: an ASCII letter
 * or digit (whatever the locale says of other bytes), or one of extra.
 * A NUL byte never: strchr() would find the terminator.
 */
static bool
ws__host_byte(char c, const char *extra)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c != '\0' && strchr(extra, c) != NULL);
}

/* Parse "host:port" (or "[v6]:port"); port defaults to def. */
static int
ws__split_authority(const char *a, size_t n, char *host, size_t hl, int def,
		    int *port)
{
	const char *colon = NULL, *hs = a, *he = a + n;

	if (n > 0 && a[0] == '[') {
		const char *rb = memchr(a, ']', n);

		if (rb == NULL)
			return -1;
		hs = a + 1;
		he = rb;
		if (rb + 1 < a + n) {
			if (rb[1] != ':')
				return -1;
			colon = rb + 1;
		}
	} else {
		colon = memchr(a, ':', n);
		if (colon != NULL)
			he = colon;
	}
	*port = def;
	if (colon != NULL) {
		long v = 0;
		const char *q = colon + 1;

		if (q >= a + n)
			return -1;
		for (; q < a + n; q++) {
			if (!isdigit((unsigned char)*q))
				return -1;
			v = v * 10 + (*q - '0');
			if (v > 65535)
				return -1;
		}
		if (v == 0)
			return -1;
		*port = (int)v;
	}
	if (he <= hs || (size_t)(he - hs) >= hl)
		return -1;
	/*
	 * A host name or an address literal, nothing else, as on the SOCKS5
	 * path: a space, '@', '/', a control or a non-ASCII byte would be
	 * logged, shown to the person asked to approve, and passed to the
	 * resolver as a name no rule was written for.
	 */
	for (const char *c = hs; c < he; c++)
		if (!ws__host_byte(*c, "-._:%"))
			return -1;
	memcpy(host, hs, (size_t)(he - hs));
	host[he - hs] = '\0';
	return ws__host_norm(host, host, hl);
}

/* The value of header name in a head (lines after the first), or NULL. */
static const char *
ws__header(const char *head, const char *name, size_t *len)
{
	size_t nl = strlen(name);

	for (const char *l = strstr(head, "\r\n"); l && l[2] != '\r';
	     l = strstr(l + 2, "\r\n")) {
		const char *s = l + 2, *e = strstr(s, "\r\n");

		if (e && (size_t)(e - s) > nl && strncasecmp(s, name, nl) == 0 &&
		    s[nl] == ':') {
			s += nl + 1;
			while (*s == ' ' || *s == '\t')
				s++;
			*len = (size_t)(e - s);
			while (*len > 0 && (s[*len - 1] == ' ' || s[*len - 1] == '\t'))
				(*len)--;
			return s;
		}
	}
	return NULL;
}

/*
 * A name's lookup, in a detached thread: shared by that thread and the
 * connection's, the last of the two to let go frees it.
 */
struct ws__lookup {
	pthread_mutex_t mu;
	int refs;
	int done;		/* eventfd: readable once answered */
	char host[WS__HOST_MAX + 2];
	int delay_ms;		/* the test map's slow answer */
	bool mapped;		/* the answer is ss (the test map) */
	struct sockaddr_storage ss;
	struct addrinfo *res;	/* getaddrinfo()'s answer */
	int rc;
	struct ws__lkcount *count;	/* its proxy's lookups in flight */
};

static void
ws__lookup_put(struct ws__lookup *l)
{
	int left;

	pthread_mutex_lock(&l->mu);
	left = --l->refs;
	pthread_mutex_unlock(&l->mu);
	if (left > 0)
		return;
	if (l->res != NULL)
		freeaddrinfo(l->res);
	close(l->done);
	pthread_mutex_destroy(&l->mu);
	free(l);
}

static void *
ws__lookup_run(void *arg)
{
	struct ws__lookup *l = arg;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	uint64_t one = 1;
	int rc = 0;

	if (l->delay_ms > 0) {
		struct timespec ts = {l->delay_ms / 1000, (l->delay_ms % 1000) * 1000000L};

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	if (!l->mapped)
		rc = getaddrinfo(l->host, NULL, &hints, &res);
	pthread_mutex_lock(&l->mu);
	l->rc = rc;
	l->res = res;
	pthread_mutex_unlock(&l->mu);
	if (write(l->done, &one, sizeof(one)) < 0) {
		/* an eventfd write of 1 cannot fail here */
	}
	ws__lkcount_put(l->count, true);
	ws__lookup_put(l);
	return NULL;
}

/*
 * Look host up in a thread of its own and wait for the answer, the
 * time-out or the stop.  0 with *res (or *ss where the map answers);
 * -1 no such name; -2 the time-out; -3 the stop; -4 too many lookups in
 * flight.
 */
static int
ws__lookup(struct ws_netproxy *p, const char *host, int map, struct addrinfo **res,
	   struct sockaddr_storage *ss)
{
	struct ws__lookup *l = calloc(1, sizeof(*l));
	pthread_attr_t at;
	pthread_t t;
	int rc, w;

	*res = NULL;
	if (l == NULL)
		return -1;
	if ((l->done = eventfd(0, EFD_CLOEXEC)) < 0) {
		free(l);
		return -1;
	}
	pthread_mutex_lock(&p->lk->mu);
	if (p->lk->inflight >= WS__LOOKUPS_MAX) {
		pthread_mutex_unlock(&p->lk->mu);
		close(l->done);
		free(l);
		return -4;
	}
	p->lk->inflight++;
	p->lk->refs++;
	pthread_mutex_unlock(&p->lk->mu);
	l->count = p->lk;
	pthread_mutex_init(&l->mu, NULL);
	l->refs = 2;
	snprintf(l->host, sizeof(l->host), "%s", host);
	if (map >= 0) {
		l->mapped = true;
		l->ss = p->map_addr[map];
		l->delay_ms = p->map_delay[map];
	}
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, WS__STACK);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &at, ws__lookup_run, l);
	pthread_attr_destroy(&at);
	if (rc != 0)
		ws__lookup_run(l); /* no thread to spare: look up here */
	w = ws__wait(p, l->done, POLLIN, ws__now_ms() + WS__DNS_TIMEOUT_MS);
	pthread_mutex_lock(&l->mu);
	if (w > 0) {
		rc = l->rc != 0 ? -1 : 0;
		*res = l->res;
		l->res = NULL;
		*ss = l->ss;
	} else {
		rc = w == 0 ? -2 : -3;
	}
	pthread_mutex_unlock(&l->mu);
	ws__lookup_put(l);
	return rc;
}

/*
 * The host's own addresses, now: every address and broadcast address of
 * every interface of the network namespace the proxy connects from
 * (wsrun's, the host's), into *out (malloc'd) and *n.  Listed at each
 * connection's decision, not once: an interface may come up or take a
 * new address (DHCP, a VPN) during a long call, and getifaddrs() costs
 * tens of microseconds next to a name's lookup.  0, or an errno.
 */
static int
ws__own_addrs(struct ws_net_own **out, size_t *n)
{
	struct ifaddrs *ifa = NULL;
	struct ws_net_own *v = NULL;
	size_t cnt = 0, k = 0;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (getifaddrs(&ifa) < 0)
		return errno ? errno : EIO;
	for (struct ifaddrs *a = ifa; a; a = a->ifa_next)
		cnt += 2;
	if (cnt > 0 && (v = calloc(cnt, sizeof(*v))) == NULL) {
		err = ENOMEM;
		goto out;
	}
	for (struct ifaddrs *a = ifa; a; a = a->ifa_next) {
		const struct sockaddr *s[2] = {a->ifa_addr,
			(a->ifa_flags & IFF_BROADCAST) ? a->ifa_broadaddr : NULL};

		for (int j = 0; j < 2; j++) {
			if (s[j] == NULL || (s[j]->sa_family != AF_INET &&
					     s[j]->sa_family != AF_INET6))
				continue;
			memcpy(&v[k].addr, s[j], s[j]->sa_family == AF_INET ?
			       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
			v[k].prefix = s[j]->sa_family == AF_INET ? 32 : 128;
			snprintf(v[k].ifname, sizeof(v[k].ifname), "%s",
				 a->ifa_name ? a->ifa_name : "?");
			k++;
		}
	}
	*out = v;
	*n = k;
	v = NULL;
out:
	free(v);
	freeifaddrs(ifa);
	return err;
}

/*
 * Whether the kernel would deliver a connection to sa to this host
 * itself: the route it takes there (RTM_GETROUTE, the question "ip route
 * get" asks) is local.  That holds for more than the interfaces'
 * addresses: every address of a prefix put on lo (198.51.100.7/24 makes
 * the whole /24 local) and of a "local" route (AnyIP), which
 * getifaddrs() does not list.  1 local (dev the interface, when the
 * answer names one), 0 not (or no route: the connection fails anyway),
 * or -errno.
 */
static int
ws__route_local(const struct sockaddr *sa, char *dev, size_t dl)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[RTA_SPACE(16)];
	} req;
	struct rtattr *ra;
	struct timeval tv = {2, 0};
	struct sockaddr_nl kern = {.nl_family = AF_NETLINK};
	union {
		struct nlmsghdr nh;
		char b[8192];
	} ans;
	uint8_t a6[16];
	const void *addr;
	int fd, family, alen, rc = -EIO;
	ssize_t n;

	dev[0] = '\0';
	family = sa->sa_family;
	if (family == AF_INET) {
		addr = &((const struct sockaddr_in *)sa)->sin_addr;
		alen = 4;
	} else {
		static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

		memcpy(a6, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		/* An IPv6 socket reaches ::ffff:a.b.c.d by IPv4's routes. */
		if (memcmp(a6, mapped, 12) == 0) {
			family = AF_INET;
			addr = a6 + 12;
			alen = 4;
		} else {
			addr = a6;
			alen = 16;
		}
	}
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.rt.rtm_family = (unsigned char)family;
	req.rt.rtm_dst_len = (unsigned char)(alen * 8);
	ra = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	ra->rta_type = RTA_DST;
	ra->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(ra), addr, (size_t)alen);
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_SPACE(alen);
	if ((fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kern,
		   sizeof(kern)) < 0) {
		rc = -errno;
		goto out;
	}
	for (;;) {
		n = recv(fd, &ans, sizeof(ans), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			goto out;
		}
		break;
	}
	for (struct nlmsghdr *h = &ans.nh; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_seq != 1)
			continue;
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			/* No route there: not this host, and not reachable. */
			rc = e->error == -ENETUNREACH || e->error == -EHOSTUNREACH ||
			     e->error == -EINVAL ? 0 : e->error < 0 ? e->error : -EIO;
			goto out;
		}
		if (h->nlmsg_type == RTM_NEWROUTE) {
			const struct rtmsg *rt = NLMSG_DATA(h);
			int len = (int)RTM_PAYLOAD(h);

			if (rt->rtm_type != RTN_LOCAL && rt->rtm_type != RTN_BROADCAST) {
				rc = 0;
				goto out;
			}
			for (struct rtattr *x = RTM_RTA(rt); RTA_OK(x, len); x = RTA_NEXT(x, len))
				if (x->rta_type == RTA_OIF &&
				    RTA_PAYLOAD(x) >= sizeof(int)) {
					char name[IF_NAMESIZE];

					if (if_indextoname(*(const unsigned *)RTA_DATA(x), name))
						snprintf(dev, dl, "%s", name);
				}
			rc = 1;
			goto out;
		}
	}
out:
	close(fd);
	return rc;
}

/*
 * Whether the proxy may connect to sa: not an internal address nor one of
 * the host's own (own[0..nown), then the kernel's route to it), or one an
 * allow rule names.  Otherwise the first refused address's reason goes
 * to why (when *why is still empty).
 */
static bool
ws__reachable(const struct ws_netproxy *p, const char *host,
	      const struct sockaddr *sa, const struct ws_net_own *own,
	      size_t nown, char *why, size_t wl)
{
	char shown[INET6_ADDRSTRLEN] = "", oshown[INET6_ADDRSTRLEN] = "";
	char dev[IF_NAMESIZE] = "";
	enum ws_net_class c;
	size_t w = 0;
	int lr = 0;

	if (ws__addr_named(p, sa))
		return true;
	c = ws_net_addr_class(sa, own, nown, &w);
	if (c == WS_NET_PUBLIC && (lr = ws__route_local(sa, dev, sizeof(dev))) == 0)
		return true;
	if (why[0] != '\0')
		return false;
	getnameinfo(sa, sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
		    sizeof(struct sockaddr_in6), shown, sizeof(shown), NULL, 0,
		    NI_NUMERICHOST);
	if (c == WS_NET_PUBLIC && lr > 0) {
		snprintf(why, wl, "%s resolves to %s, an internal address: one this "
			 "host delivers to itself (a local route%s%s), which no "
			 "rule names", host, shown, dev[0] ? " through " : "", dev);
	} else if (c == WS_NET_PUBLIC) {
		snprintf(why, wl, "%s resolves to %s, and whether that is this "
			 "host's own address cannot be told (the route lookup "
			 "failed: %s)", host, shown, strerror(-lr));
	} else if (c == WS_NET_OWN) {
		const struct sockaddr *o = (const struct sockaddr *)&own[w].addr;

		getnameinfo(o, o->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
			    sizeof(struct sockaddr_in6), oshown, sizeof(oshown),
			    NULL, 0, NI_NUMERICHOST);
		snprintf(why, wl, "%s resolves to %s, an internal address: an "
			 "address of this host (%s's %s), which no rule names",
			 host, shown, own[w].ifname, oshown);
	} else {
		snprintf(why, wl, "%s resolves to %s, an internal address "
			 "(loopback, link-local, private or multicast) that "
			 "no rule names", host, shown);
	}
	return false;
}

/*
 * Resolve host for port into the first address that may be reached:
 * the test map, an IP literal, or getaddrinfo().  0; -1 with why where
 * the only addresses are internal or the host's own (a refusal); -2
 * with why where there is none to use (the way out failed, as a refused
 * connection does, or the host's addresses cannot be listed); -3 where
 * the lookup timed out; -4 at the stop; -5 where too many lookups are in
 * flight.
 */
static int
ws__resolve(struct ws_netproxy *p, const char *host, int port,
	    struct sockaddr_storage *out, char *why, size_t wl)
{
	struct sockaddr_storage one;
	struct addrinfo *res = NULL;
	struct ws_net_own *own = NULL;
	size_t nown = 0;
	int rc = -1, map = -1, err;

	why[0] = '\0';
	for (size_t i = 0; i < p->nmap && map < 0; i++)
		if (strcmp(p->map_name[i], host) == 0)
			map = (int)i;
	if (map >= 0 && p->map_delay[map] == 0) {
		one = p->map_addr[map];
		goto single;
	}
	if (map < 0 && ws__ip_literal(host, &one))
		goto single;
	switch (ws__lookup(p, host, map, &res, &one)) {
	case 0:
		break;
	case -2:
		snprintf(why, wl, "the lookup of %s took longer than %d s", host,
			 WS__DNS_TIMEOUT_MS / 1000);
		return -3;
	case -3:
		snprintf(why, wl, "the call ended during the lookup of %s", host);
		return -4;
	case -4:
		snprintf(why, wl, "%d lookups are in flight and none has answered: "
			 "%s was not looked up", WS__LOOKUPS_MAX, host);
		return -5;
	default:
		snprintf(why, wl, "%s does not resolve", host);
		return -2;
	}
	if (map >= 0)
		goto single;
	/* The host's addresses as they are now, after the lookup. */
	if ((err = ws__own_addrs(&own, &nown)) != 0) {
		freeaddrinfo(res);
		snprintf(why, wl, "cannot list this host's addresses to decide %s: %s",
			 host, strerror(err));
		return -2;
	}
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		if (a->ai_family != AF_INET && a->ai_family != AF_INET6)
			continue;
		if (!ws__reachable(p, host, a->ai_addr, own, nown, why, wl))
			continue;
		memset(out, 0, sizeof(*out));
		memcpy(out, a->ai_addr, a->ai_addrlen);
		rc = 0;
		break;
	}
	freeaddrinfo(res);
	goto port;
single:
	if ((err = ws__own_addrs(&own, &nown)) != 0) {
		snprintf(why, wl, "cannot list this host's addresses to decide %s: %s",
			 host, strerror(err));
		return -2;
	}
	if (ws__reachable(p, host, (struct sockaddr *)&one, own, nown, why, wl)) {
		*out = one;
		rc = 0;
	}
port:
	free(own);
	if (rc < 0) {
		if (why[0] != '\0')
			return -1;
		snprintf(why, wl, "%s has no usable address", host);
		return -2;
	}
	why[0] = '\0';
	if (out->ss_family == AF_INET)
		((struct sockaddr_in *)out)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)out)->sin6_port = htons((uint16_t)port);
	return 0;
}

static int
ws__connect(struct ws_netproxy *p, const struct sockaddr_storage *sa)
{
	socklen_t sl = sa->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
						  sizeof(struct sockaddr_in6);
	int fd = socket(sa->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int err = 0, one = 1;
	socklen_t el = sizeof(err);

	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)sa, sl) < 0) {
		if (errno != EINPROGRESS) {
			err = errno;
			close(fd);
			return -err;
		}
		if (ws__wait(p, fd, POLLOUT, ws__now_ms() + WS__IO_TIMEOUT_MS) <= 0) {
			close(fd);
			return -ETIMEDOUT;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err != 0) {
			close(fd);
			return -(err ? err : EIO);
		}
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/*
 * Relay both ways until both sides end, an error, or the stop: splice
 * through a pipe per direction.  up and down count the bytes.
 */
static void
ws__relay(struct ws_netproxy *p, int c, int u, long long *up, long long *down)
{
	int pipes[2][2] = {{-1, -1}, {-1, -1}};
	int src[2] = {c, u}, dst[2] = {u, c};
	size_t pend[2] = {0, 0}, cap[2] = {65536, 65536};
	bool eof[2] = {false, false}, shut[2] = {false, false};
	long long *cnt[2] = {up, down};

	if (pipe2(pipes[0], O_CLOEXEC | O_NONBLOCK) < 0 ||
	    pipe2(pipes[1], O_CLOEXEC | O_NONBLOCK) < 0)
		goto out;
	fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK);
	/* A megabyte in flight each way where the pipe may hold it. */
	for (int d = 0; d < 2; d++) {
		int sz = fcntl(pipes[d][1], F_SETPIPE_SZ, 1 << 20);

		if (sz < 0)
			sz = fcntl(pipes[d][1], F_GETPIPE_SZ);
		if (sz > 0)
			cap[d] = (size_t)sz;
	}
	while (!(shut[0] && shut[1])) {
		struct pollfd pf[5];
		int idx[2][2] = {{-1, -1}, {-1, -1}}, n = 0;

		for (int d = 0; d < 2; d++) {
			if (shut[d])
				continue;
			/* A full pipe waits for the other end, not for more. */
			if (!eof[d] && pend[d] < cap[d]) {
				idx[d][0] = n;
				pf[n++] = (struct pollfd){.fd = src[d], .events = POLLIN};
			}
			if (pend[d] > 0) {
				idx[d][1] = n;
				pf[n++] = (struct pollfd){.fd = dst[d], .events = POLLOUT};
			}
		}
		pf[n++] = (struct pollfd){.fd = p->stop, .events = POLLIN};
		if (poll(pf, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[n - 1].revents)
			break;
		for (int d = 0; d < 2; d++) {
			bool moved = (idx[d][0] >= 0 && pf[idx[d][0]].revents) ||
				     (idx[d][1] >= 0 && pf[idx[d][1]].revents);

			/*
			 * Move while either end makes progress: one poll per
			 * megabyte or so, not per segment.
			 */
			while (moved && !shut[d]) {
				moved = false;
				if (!eof[d] && pend[d] < cap[d]) {
					ssize_t r = splice(src[d], NULL, pipes[d][1], NULL,
							   cap[d] - pend[d],
							   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

					if (r > 0) {
						pend[d] += (size_t)r;
						*cnt[d] += r;
						moved = true;
					} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
						eof[d] = true;
					}
				}
				if (pend[d] > 0) {
					ssize_t w = splice(pipes[d][0], NULL, dst[d], NULL,
							   pend[d], SPLICE_F_MOVE |
							   SPLICE_F_NONBLOCK);

					if (w > 0) {
						pend[d] -= (size_t)w;
						moved = true;
					} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
						goto out;
					}
				}
			}
			if (eof[d] && pend[d] == 0 && !shut[d]) {
				shutdown(dst[d], SHUT_WR);
				shut[d] = true;
			}
		}
	}
out:
	for (int d = 0; d < 2; d++)
		for (int k = 0; k < 2; k++)
			if (pipes[d][k] >= 0)
				close(pipes[d][k]);
}

/* SOCKS5 replies (RFC 1928, 6). */
enum {
	WS__S5_FAIL = 1,	/* general failure */
	WS__S5_RULES = 2,	/* not allowed by the rules */
	WS__S5_NET = 3,		/* network unreachable */
	WS__S5_HOST = 4,	/* host unreachable */
	WS__S5_REFUSED = 5,	/* connection refused */
	WS__S5_CMD = 7,		/* command not supported */
	WS__S5_ATYP = 8,	/* address type not supported */
};

static void
ws__socks_reply(int fd, int code)
{
	/* The bound address is not the command's business: 0.0.0.0:0. */
	char r[10] = {5, (char)code, 0, 1};

	ws__send_all(fd, r, sizeof(r));
}

/*
 * Have at least need bytes in b[0..*n) (need <= cap), reading more from
 * fd: true, or false at the end of the stream, the deadline or the stop.
 */
static bool
ws__need(struct ws_netproxy *p, int fd, char *b, size_t *n, size_t need,
	 size_t cap, long long deadline)
{
	while (*n < need) {
		ssize_t r;

		if (ws__wait(p, fd, POLLIN, deadline) <= 0)
			return false;
		r = recv(fd, b + *n, cap - *n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		*n += (size_t)r;
	}
	return true;
}

/*
 * A SOCKS5 greeting and request (RFC 1928) in b[0..*n), b[0] being 5:
 * the method offered is "no authentication" only, and the command
 * CONNECT only.  On success host and *port are the target (a domain
 * name as the client gave it, to be resolved here as socks5h asks, or
 * an address literal, decided as the HTTP path decides one) and *off
 * where the bytes sent ahead of the reply begin.  Otherwise the client
 * has its answer, why says it and the result is -1 (log it) or -2 (the
 * client went away or was too slow: log it as a malformed request).
 */
static int
ws__socks_head(struct ws__cthread *t, char *b, size_t *n, size_t cap,
	       long long deadline, char *host, size_t hl, int *port,
	       size_t *off, char *why, size_t wl)
{
	struct ws_netproxy *p = t->p;
	static const char ok[2] = {5, 0}, none[2] = {5, (char)0xff};
	size_t m, alen;
	unsigned char cmd, atyp;
	const unsigned char *u = (const unsigned char *)b;
	bool noauth = false;

	if (!ws__need(p, t->fd, b, n, 2, cap, deadline) ||
	    !ws__need(p, t->fd, b, n, 2 + u[1], cap, deadline)) {
		snprintf(why, wl, "SOCKS5: the greeting ended early");
		return -2;
	}
	for (size_t i = 0; i < u[1]; i++)
		noauth |= u[2 + i] == 0;
	if (!noauth) {
		ws__send_all(t->fd, none, sizeof(none));
		snprintf(why, wl, "SOCKS5: the client offers no method wsrun "
			 "accepts (it takes \"no authentication\" only)");
		return -1;
	}
	ws__send_all(t->fd, ok, sizeof(ok));
	m = 2 + u[1];
	if (!ws__need(p, t->fd, b, n, m + 5, cap, deadline)) {
		snprintf(why, wl, "SOCKS5: the request ended early");
		return -2;
	}
	cmd = u[m + 1];
	atyp = u[m + 3];
	if (u[m] != 5 || u[m + 2] != 0) {
		ws__socks_reply(t->fd, WS__S5_FAIL);
		snprintf(why, wl, "SOCKS5: malformed request");
		return -1;
	}
	if (atyp == 1)
		alen = 4;
	else if (atyp == 4)
		alen = 16;
	else if (atyp == 3)
		alen = 1 + (size_t)u[m + 4];
	else {
		ws__socks_reply(t->fd, WS__S5_ATYP);
		snprintf(why, wl, "SOCKS5: address type %u is not supported", atyp);
		return -1;
	}
	if (!ws__need(p, t->fd, b, n, m + 4 + alen + 2, cap, deadline)) {
		snprintf(why, wl, "SOCKS5: the request ended early");
		return -2;
	}
	*port = u[m + 4 + alen] << 8 | u[m + 4 + alen + 1];
	*off = m + 4 + alen + 2;
	if (atyp == 3) {
		size_t l = alen - 1;
		const char *d = b + m + 5;

		/* A host name or an address literal: nothing else (a NUL
		 * byte would cut the name short: strchr() finds it). */
		for (size_t i = 0; i < l; i++)
			if (!ws__host_byte(d[i], "-._:[]"))
				l = 0;
		if (l == 0 || l >= hl) {
			ws__socks_reply(t->fd, WS__S5_FAIL);
			snprintf(why, wl, "SOCKS5: malformed domain name");
			return -1;
		}
		memcpy(host, d, l);
		host[l] = '\0';
		if (ws__host_norm(host, host, hl) < 0) {
			ws__socks_reply(t->fd, WS__S5_FAIL);
			snprintf(why, wl, "SOCKS5: malformed domain name");
			return -1;
		}
	} else if (inet_ntop(atyp == 1 ? AF_INET : AF_INET6, b + m + 4, host,
			     (socklen_t)hl) == NULL) {
		ws__socks_reply(t->fd, WS__S5_FAIL);
		snprintf(why, wl, "SOCKS5: malformed address");
		return -1;
	}
	if (cmd != 1) {
		ws__socks_reply(t->fd, WS__S5_CMD);
		snprintf(why, wl, "SOCKS5 %s is not supported (CONNECT only)",
			 cmd == 2 ? "BIND" : cmd == 3 ? "UDP ASSOCIATE" : "command");
		return -1;
	}
	if (*port == 0) {
		ws__socks_reply(t->fd, WS__S5_FAIL);
		snprintf(why, wl, "SOCKS5: port 0");
		return -1;
	}
	return 0;
}

/* A refusal, as the client's protocol says it, and logged. */
static void
ws__deny(struct ws__cthread *t, bool socks, int http, int s5, const char *host,
	 int port, const char *rule, const char *why, const char *addr)
{
	if (socks)
		ws__socks_reply(t->fd, s5);
	else
		ws__refuse(t->fd, http, why);
	ws__log_set(t->p, t->log, host, port, false, rule, why, addr);
}

/* A failed connect(2) as a SOCKS5 reply. */
static int
ws__s5_errno(int err)
{
	switch (err) {
	case ECONNREFUSED:
		return WS__S5_REFUSED;
	case ENETUNREACH:
		return WS__S5_NET;
	case EHOSTUNREACH:
	case ETIMEDOUT:
		return WS__S5_HOST;
	default:
		return WS__S5_FAIL;
	}
}

/* Serve one accepted connection: HTTP, or SOCKS5 (first byte 5). */
static void *
ws__serve(void *arg)
{
	struct ws__cthread *t = arg;
	struct ws_netproxy *p = t->p;
	char *head = malloc(WS__HEAD_MAX + 1), *out = NULL;
	char host[WS__HOST_MAX + 2] = "", why[512], shown[INET6_ADDRSTRLEN + 8];
	size_t hn = 0, vl, body_off;
	long long deadline = ws__now_ms() + WS__IO_TIMEOUT_MS, up = 0, down = 0;
	const char *end = NULL, *sp1, *sp2, *v;
	const struct ws__rule *rule;
	struct sockaddr_storage sa;
	bool connect_m = false, socks = false;
	int port = 0, u = -1, rc;

	if (head == NULL)
		goto out;
	/* The request head, up to the empty line; or SOCKS5's. */
	while (end == NULL) {
		ssize_t r;

		if (hn >= WS__HEAD_MAX) {
			ws__refuse(t->fd, 400, "request head too long");
			ws__log_set(p, t->log, NULL, 0, false, NULL, "request head too long", NULL);
			goto out;
		}
		if (ws__wait(p, t->fd, POLLIN, deadline) <= 0)
			goto out;
		r = recv(t->fd, head + hn, WS__HEAD_MAX - hn, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			goto out;
		hn += (size_t)r;
		head[hn] = '\0';
		if (head[0] == 5) {
			socks = true;
			break;
		}
		end = strstr(head, "\r\n\r\n");
	}
	if (socks) {
		rc = ws__socks_head(t, head, &hn, WS__HEAD_MAX, deadline, host,
				    sizeof(host), &port, &body_off, why, sizeof(why));
		if (rc < 0) {
			ws__log_set(p, t->log, rc == -1 && host[0] ? host : NULL,
				    rc == -1 ? port : 0, false, NULL, why, NULL);
			goto out;
		}
		goto decide;
	}
	body_off = (size_t)(end - head) + 4;
	sp1 = memchr(head, ' ', (size_t)(end - head));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(end - sp1 - 1)) : NULL;
	if (sp1 == NULL || sp2 == NULL) {
		ws__refuse(t->fd, 400, "malformed request line");
		ws__log_set(p, t->log, NULL, 0, false, NULL, "malformed request line", NULL);
		goto out;
	}
	connect_m = (size_t)(sp1 - head) == 7 && memcmp(head, "CONNECT", 7) == 0;
	if (connect_m) {
		rc = ws__split_authority(sp1 + 1, (size_t)(sp2 - sp1 - 1), host,
					 sizeof(host), 0, &port);
		if (rc < 0 || port == 0) {
			ws__refuse(t->fd, 400, "CONNECT needs HOST:PORT");
			ws__log_set(p, t->log, NULL, 0, false, NULL, "CONNECT needs HOST:PORT", NULL);
			goto out;
		}
	} else {
		const char *a = sp1 + 1, *ae;

		if ((size_t)(sp2 - a) < 7 || strncasecmp(a, "http://", 7) != 0) {
			const char *m = (size_t)(sp2 - a) >= 8 &&
					strncasecmp(a, "https://", 8) == 0 ?
					"https:// URLs go through CONNECT" :
					"only absolute http:// URLs and CONNECT are proxied";

			ws__refuse(t->fd, 400, m);
			ws__log_set(p, t->log, NULL, 0, false, NULL, m, NULL);
			goto out;
		}
		a += 7;
		for (ae = a; ae < sp2 && *ae != '/' && *ae != '?' && *ae != '#'; ae++)
			;
		if (memchr(a, '@', (size_t)(ae - a)) != NULL ||
		    ws__split_authority(a, (size_t)(ae - a), host, sizeof(host), 80,
					&port) < 0) {
			ws__refuse(t->fd, 400, "malformed URL authority");
			ws__log_set(p, t->log, NULL, 0, false, NULL, "malformed URL authority", NULL);
			goto out;
		}
		/* The Host header, when given, must name the same host. */
		if ((v = ws__header(head, "Host", &vl)) != NULL) {
			char h2[WS__HOST_MAX + 2];
			int p2;

			if (ws__split_authority(v, vl, h2, sizeof(h2), 80, &p2) < 0 ||
			    strcmp(h2, host) != 0 || p2 != port) {
				ws__refuse(t->fd, 400, "the Host header names another host");
				ws__log_set(p, t->log, host, port, false, NULL,
					    "the Host header names another host", NULL);
				goto out;
			}
		}
		/*
		 * Origin form, "Connection: close" (a kept-alive client
		 * connection could name another host next), no proxy headers.
		 */
		{
			const char *path = ae < sp2 && *ae == '/' ? ae : NULL;
			size_t cap = hn + 64, o = 0;
			const char *l;

			if ((out = malloc(cap)) == NULL)
				goto out;
			o += (size_t)snprintf(out, cap, "%.*s %s%.*s",
					      (int)(sp1 - head), head, path ? "" : "/",
					      (int)(path ? sp2 - path : sp2 - ae),
					      path ? path : ae);
			l = strstr(head, "\r\n");
			memcpy(out + o, sp2, (size_t)(l - sp2));
			o += (size_t)(l - sp2);
			while (l < end) {
				const char *s = l + 2, *e = strstr(s, "\r\n");

				if (strncasecmp(s, "Proxy-", 6) != 0 &&
				    strncasecmp(s, "Connection:", 11) != 0 &&
				    strncasecmp(s, "Keep-Alive:", 11) != 0 && e > s) {
					memcpy(out + o, l, (size_t)(e - l));
					o += (size_t)(e - l);
				}
				l = e;
			}
			memcpy(out + o, "\r\nConnection: close\r\n\r\n", 23);
			o += 23;
			memcpy(out + o, head + body_off, hn - body_off);
			o += hn - body_off;
			free(head);
			head = out;
			hn = o;
			body_off = 0;
			out = NULL;
		}
	}
decide:
	ws__host_canon(host, sizeof(host));
	rule = ws__decide(p, host);
	if (rule == NULL || rule->decision == WS_NET_DENY) {
		if (rule == NULL)
			snprintf(why, sizeof(why), "%s is not allowed (no rule "
				 "allows it)", host);
		else
			snprintf(why, sizeof(why), "%s is denied by rule \"%s\"",
				 host, rule->name);
		ws__deny(t, socks, 403, WS__S5_RULES, host, port,
			 rule ? rule->name : NULL, why, NULL);
		goto out;
	}
	if (rule->decision == WS_NET_APPROVE && !ws__approve(p, rule, host, port)) {
		snprintf(why, sizeof(why), "%s needs approval (rule \"%s\") and "
			 "was not approved", host, rule->name);
		ws__deny(t, socks, 403, WS__S5_RULES, host, port, rule->name, why, NULL);
		goto out;
	}
	if ((u = ws__resolve(p, host, port, &sa, why, sizeof(why))) < 0) {
		ws__deny(t, socks, u == -1 ? 403 : u == -3 ? 504 : u == -5 ? 503 : 502,
			 u == -1 ? WS__S5_RULES : u == -5 ? WS__S5_FAIL : WS__S5_HOST,
			 host, port, rule->name, why, NULL);
		u = -1;
		goto out;
	}
	getnameinfo((struct sockaddr *)&sa, sizeof(sa), shown, sizeof(shown),
		    NULL, 0, NI_NUMERICHOST);
	{
		const struct ws__rule *ar = ws__addr_rule(p, (struct sockaddr *)&sa);

		if (ar != NULL && ar != rule && ar->decision == WS_NET_DENY) {
			snprintf(why, sizeof(why), "%s resolves to %s, which rule "
				 "\"%s\" denies", host, shown, ar->name);
			ws__deny(t, socks, 403, WS__S5_RULES, host, port, ar->name,
				 why, shown);
			u = -1;
			goto out;
		}
		if (ar != NULL && ar != rule && ar->decision == WS_NET_APPROVE &&
		    !ws__approve(p, ar, shown, port)) {
			snprintf(why, sizeof(why), "%s resolves to %s, which needs "
				 "approval (rule \"%s\") and was not approved",
				 host, shown, ar->name);
			ws__deny(t, socks, 403, WS__S5_RULES, host, port, ar->name,
				 why, shown);
			u = -1;
			goto out;
		}
	}
	if ((u = ws__connect(p, &sa)) < 0) {
		snprintf(why, sizeof(why), "%s (%s) port %d: %s", host, shown,
			 port, strerror(-u));
		ws__deny(t, socks, -u == ETIMEDOUT ? 504 : 502, ws__s5_errno(-u),
			 host, port, rule->name, why, shown);
		u = -1;
		goto out;
	}
	ws__log_set(p, t->log, host, port, true, rule->name, NULL, shown);
	if (connect_m) {
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

		ws__send_all(t->fd, ok, sizeof(ok) - 1);
	} else if (socks) {
		ws__socks_reply(t->fd, 0);
	}
	if (hn > body_off) {
		ws__send_all(u, head + body_off, hn - body_off);
		up += (long long)(hn - body_off);
	}
	free(head);
	head = NULL;
	ws__relay(p, t->fd, u, &up, &down);
	pthread_mutex_lock(&p->mu);
	if (t->log != WS__NOLOG) {
		p->log[t->log].up = up;
		p->log[t->log].down = down;
	}
	pthread_mutex_unlock(&p->mu);
out:
	if (u >= 0)
		close(u);
	free(head);
	free(out);
	pthread_mutex_lock(&p->mu);
	close(t->fd);
	t->fd = -1;
	t->done = true;
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Receive the listener on sock: the descriptor, or -1. */
static int
ws__recv_listener(struct ws_netproxy *p)
{
	char b;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = {&b, 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cm.buf, .msg_controllen = sizeof(cm.buf)};
	struct cmsghdr *c;
	int fd = -1;

	if (ws__wait(p, p->sock, POLLIN, ws__now_ms() + 24LL * 3600 * 1000) <= 0)
		return -1;
	if (recvmsg(p->sock, &mh, MSG_CMSG_CLOEXEC) <= 0)
		return -1;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static void *
ws__accept_loop(void *arg)
{
	struct ws_netproxy *p = arg;
	int lfd = ws__recv_listener(p);

	if (lfd < 0)
		return NULL;
	for (;;) {
		struct ws__cthread *t, **nt;
		struct ws_net_conn *nl;
		int c;

		if (ws__wait(p, lfd, POLLIN, ws__now_ms() + 24LL * 3600 * 1000) < 0)
			break;
		c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		pthread_mutex_lock(&p->mu);
		/*
		 * Join the threads whose connection has ended: a build makes
		 * thousands of connections one after the other, and only
		 * those open at once count against the limit.  (A thread
		 * marks itself done as its last step under the lock, so the
		 * join is immediate.)
		 */
		for (size_t i = 0, k = 0; i <= p->nth; i++) {
			if (i == p->nth) {
				p->nth = k;
				break;
			}
			if (p->th[i]->done) {
				pthread_join(p->th[i]->t, NULL);
				free(p->th[i]);
			} else {
				p->th[k++] = p->th[i];
			}
		}
		if (p->nth >= WS__MAX_CONNS || (t = calloc(1, sizeof(*t))) == NULL) {
			pthread_mutex_unlock(&p->mu);
			close(c);
			continue;
		}
		if (p->nth == p->capth) {
			size_t nc = p->capth ? p->capth * 2 : 16;

			if ((nt = realloc(p->th, nc * sizeof(*nt))) == NULL)
				goto drop;
			p->th = nt;
			p->capth = nc;
		}
		/*
		 * The first WS__LOG_MAX connections are listed, the others
		 * counted: a crawler's millions would not fit in a result.
		 */
		t->log = WS__NOLOG;
		if (p->nlog < WS__LOG_MAX) {
			if (p->nlog == p->caplog) {
				size_t nc = p->caplog ? p->caplog * 2 : 16;

				if ((nl = realloc(p->log, nc * sizeof(*nl))) == NULL)
					goto drop;
				p->log = nl;
				p->caplog = nc;
			}
			memset(&p->log[p->nlog], 0, sizeof(p->log[0]));
			t->log = p->nlog;
		}
		t->p = p;
		t->fd = c;
		{
			pthread_attr_t at;
			int prc;

			pthread_attr_init(&at);
			pthread_attr_setstacksize(&at, WS__STACK);
			prc = pthread_create(&t->t, &at, ws__serve, t);
			pthread_attr_destroy(&at);
			if (prc != 0)
				goto drop;
		}
		if (t->log != WS__NOLOG)
			p->nlog++;
		p->ntotal++;
		p->th[p->nth++] = t;
		pthread_mutex_unlock(&p->mu);
		continue;
drop:
		pthread_mutex_unlock(&p->mu);
		free(t);
		close(c);
	}
	close(lfd);
	return NULL;
}

int
ws_netproxy_start(struct ws_netproxy *p, int sock)
{
	p->sock = sock;
	if ((p->stop = eventfd(0, EFD_CLOEXEC)) < 0)
		return ws_error_errno(errno, NULL, "eventfd");
	if (pthread_create(&p->acceptor, NULL, ws__accept_loop, p) != 0)
		return ws_error_set(WS_EIO_ERROR, NULL, "cannot start the network proxy");
	p->started = true;
	return 0;
}

void
ws_netproxy_stop(struct ws_netproxy *p, struct ws_net_conn **conns, size_t *n)
{
	if (conns) {
		*conns = NULL;
		*n = 0;
	}
	if (p == NULL)
		return;
	if (p->started) {
		uint64_t one = 1;

		if (write(p->stop, &one, sizeof(one)) < 0) {
			/* an eventfd write of 1 cannot fail here */
		}
		pthread_join(p->acceptor, NULL);
		/* No new thread now: join each. */
		for (size_t i = 0; i < p->nth; i++) {
			pthread_join(p->th[i]->t, NULL);
			free(p->th[i]);
		}
		p->nth = 0;
		p->started = false;
	}
	if (p->sock >= 0) {
		close(p->sock);
		p->sock = -1;
	}
	if (conns) {
		*conns = p->log;
		*n = p->nlog;
		p->log = NULL;
		p->nlog = p->caplog = 0;
	}
}

void
ws_netproxy_counts(struct ws_netproxy *p, size_t *total, size_t *refused)
{
	*total = *refused = 0;
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	*total = p->ntotal;
	*refused = p->ntotal - p->nallowed;
	pthread_mutex_unlock(&p->mu);
}

void
ws_net_conns_free(struct ws_net_conn *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].host);
		free(v[i].rule);
		free(v[i].reason);
		free(v[i].addr);
	}
	free(v);
}

void
ws_netproxy_free(struct ws_netproxy *p)
{
	if (p == NULL)
		return;
	ws_netproxy_stop(p, NULL, NULL);
	if (p->stop >= 0)
		close(p->stop);
	ws__rules_free(p->rules, p->nrules);
	ws_net_conns_free(p->log, p->nlog);
	free(p->th);
	for (size_t i = 0; i < p->nappr; i++)
		free(p->appr[i].host);
	free(p->appr);
	if (p->lk != NULL)
		ws__lkcount_put(p->lk, false);
	for (size_t i = 0; i < p->nmap; i++)
		free(p->map_name[i]);
	free(p->map_name);
	free(p->map_addr);
	free(p->map_delay);
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->ask_mu);
	free(p);
}

int
ws_netproxy_listen(int sock)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons(WS_NETPROXY_PORT),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = {(void *)"L", 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cm.buf, .msg_controllen = sizeof(cm.buf)};
	struct cmsghdr *c;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 256) < 0) {
		rc = -errno;
		goto out;
	}
	memset(&cm, 0, sizeof(cm));
	if ((c = CMSG_FIRSTHDR(&mh)) == NULL) {
		rc = -EINVAL;
		goto out;
	}
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
		rc = -errno;
out:
	close(fd);
	return rc;
}
