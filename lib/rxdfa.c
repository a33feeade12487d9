/*
 * rxdfa.c - a DFA that tells which lines a simple regex matches (see
 * ws/rxdfa.h).
 *
 * The pattern is parsed straight into a Thompson NFA (a fragment per
 * construct, its end an epsilon state patched to what follows); a
 * counted repetition re-parses its atom once per copy.  The DFA is
 * built whole at compile time by the subset construction over classes
 * of bytes that no set tells apart.  Every DFA state holds the NFA's
 * start too, which makes the search unanchored; '\n' is in no set, so a
 * newline leads back to the start state and a match never spans lines.
 * States are numbered with the accepting ones last and the transition
 * table holds each target premultiplied by the number of classes, so
 * that the scan is one load and one comparison a byte.
 */
#include "ws/rxdfa.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ws/error.h"

#define WS__RX_MAX_NFA 4096	/* NFA states */
#define WS__RX_MAX_DFA 2048	/* DFA states */
#define WS__RX_MAX_REP 1000	/* a {n,m} bound */

enum { WS__RX_CHR, WS__RX_SPLIT, WS__RX_EPS, WS__RX_MATCH };

struct ws__rxn {
	int kind;
	int out, out1;
	uint8_t set[32];	/* WS__RX_CHR: the bytes it takes */
};

/* A fragment: its start, and its end, an epsilon state to patch. */
struct ws__frag {
	int start, end;
};

struct ws__rxp {
	const char *p;
	bool icase;
	bool declined;	/* outside the subset */
	bool nomem;
	struct ws__rxn *n;
	int nn, capn;
};

struct ws_rxdfa {
	uint8_t cls[256];	/* byte -> class */
	uint32_t *trans;	/* [state * ncls + class] = next * ncls */
	uint32_t start;		/* premultiplied */
	uint32_t acc;		/* states at or past this one accept */
	int ncls;
};

static int
ws__rx_new(struct ws__rxp *x, int kind)
{
	if (x->declined || x->nomem)
		return -1;
	if (x->nn == WS__RX_MAX_NFA) {
		x->declined = true;
		return -1;
	}
	if (x->nn == x->capn) {
		int nc = x->capn ? x->capn * 2 : 64;
		struct ws__rxn *a = realloc(x->n, (size_t)nc * sizeof(*a));

		if (a == NULL) {
			x->nomem = true;
			return -1;
		}
		x->n = a;
		x->capn = nc;
	}
	memset(&x->n[x->nn], 0, sizeof(x->n[x->nn]));
	x->n[x->nn].kind = kind;
	x->n[x->nn].out = x->n[x->nn].out1 = -1;
	return x->nn++;
}

static bool
ws__rx_ok(const struct ws__rxp *x)
{
	return !x->declined && !x->nomem;
}

static struct ws__frag
ws__rx_empty(struct ws__rxp *x)
{
	int e = ws__rx_new(x, WS__RX_EPS);

	return (struct ws__frag){e, e};
}

static void
ws__set_add(uint8_t *set, unsigned c)
{
	set[c >> 3] |= (uint8_t)(1u << (c & 7));
}

static bool
ws__set_has(const uint8_t *set, unsigned c)
{
	return (set[c >> 3] >> (c & 7)) & 1;
}

static struct ws__frag
ws__rx_chr(struct ws__rxp *x, const uint8_t *set)
{
	int c = ws__rx_new(x, WS__RX_CHR);
	int e = ws__rx_new(x, WS__RX_EPS);

	if (c < 0 || e < 0)
		return (struct ws__frag){-1, -1};
	memcpy(x->n[c].set, set, 32);
	if (x->icase) {
		/* ASCII letters, as PCRE2 without UTF and its default tables. */
		for (unsigned b = 'A'; b <= 'Z'; b++) {
			if (ws__set_has(set, b))
				ws__set_add(x->n[c].set, b + 32);
			if (ws__set_has(set, b + 32))
				ws__set_add(x->n[c].set, b);
		}
	}
	/* A match never holds a newline: it lies within one line. */
	x->n[c].set['\n' >> 3] &= (uint8_t)~(1u << ('\n' & 7));
	x->n[c].out = e;
	return (struct ws__frag){c, e};
}

static struct ws__frag
ws__rx_cat(struct ws__rxp *x, struct ws__frag a, struct ws__frag b)
{
	if (!ws__rx_ok(x) || a.start < 0 || b.start < 0)
		return (struct ws__frag){-1, -1};
	x->n[a.end].out = b.start;
	return (struct ws__frag){a.start, b.end};
}

static struct ws__frag
ws__rx_alt(struct ws__rxp *x, struct ws__frag a, struct ws__frag b)
{
	int s = ws__rx_new(x, WS__RX_SPLIT);
	int e = ws__rx_new(x, WS__RX_EPS);

	if (s < 0 || e < 0 || a.start < 0 || b.start < 0)
		return (struct ws__frag){-1, -1};
	x->n[s].out = a.start;
	x->n[s].out1 = b.start;
	x->n[a.end].out = e;
	x->n[b.end].out = e;
	return (struct ws__frag){s, e};
}

/* a* (star), a+ (plus) or a? (neither). */
static struct ws__frag
ws__rx_rep(struct ws__rxp *x, struct ws__frag a, bool star, bool plus)
{
	int s = ws__rx_new(x, WS__RX_SPLIT);
	int e = ws__rx_new(x, WS__RX_EPS);

	if (s < 0 || e < 0 || a.start < 0)
		return (struct ws__frag){-1, -1};
	x->n[s].out = a.start;
	x->n[s].out1 = e;
	if (star || plus)
		x->n[a.end].out = s;
	else
		x->n[a.end].out = e;
	return (struct ws__frag){plus ? a.start : s, e};
}

/* \w, \s, \d (1), another escape's byte in *b (0), or declined (-1). */
static int
ws__rx_escape(char c, uint8_t *set, unsigned *b)
{
	switch (c) {
	case 'w':
		for (unsigned i = 0; i < 256; i++)
			if ((i >= 'a' && i <= 'z') || (i >= 'A' && i <= 'Z') ||
			    (i >= '0' && i <= '9') || i == '_')
				ws__set_add(set, i);
		return 1;
	case 's':
		/* PCRE2's \s: space, \t \n \v \f \r. */
		for (unsigned i = 9; i <= 13; i++)
			ws__set_add(set, i);
		ws__set_add(set, ' ');
		return 1;
	case 'd':
		for (unsigned i = '0'; i <= '9'; i++)
			ws__set_add(set, i);
		return 1;
	case 't': *b = '\t'; return 0;
	case 'n': *b = '\n'; return 0;
	case 'r': *b = '\r'; return 0;
	case 'f': *b = '\f'; return 0;
	default:
		break;
	}
	/* A backslash before punctuation makes it a literal. */
	if ((unsigned char)c > 0x20 && (unsigned char)c < 0x7f &&
	    !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
	    !(c >= '0' && c <= '9')) {
		*b = (unsigned char)c;
		return 0;
	}
	return -1;
}

/* A class [...] (x->p past its '['), into set. */
static void
ws__rx_class(struct ws__rxp *x, uint8_t *set)
{
	const char *p = x->p;

	if (*p == '^' || *p == ']') {
		x->declined = true;
		return;
	}
	while (*p != ']') {
		unsigned lo, hi;
		int k;

		if (*p == '\0' || (unsigned char)*p >= 0x80 ||
		    (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '='))) {
			x->declined = true;
			return;
		}
		if (*p == '\\') {
			k = ws__rx_escape(p[1], set, &lo);
			if (k < 0) {
				x->declined = true;
				return;
			}
			p += 2;
			if (k == 1) {
				/* "\w-z" is no range */
				if (*p == '-' && p[1] != ']') {
					x->declined = true;
					return;
				}
				continue;
			}
		} else {
			lo = (unsigned char)*p++;
		}
		hi = lo;
		if (*p == '-' && p[1] != ']' && p[1] != '\0') {
			if (p[1] == '\\' || p[1] == '[' ||
			    (unsigned char)p[1] >= 0x80) {
				x->declined = true;
				return;
			}
			hi = (unsigned char)p[1];
			p += 2;
			if (hi < lo) {
				x->declined = true;
				return;
			}
		}
		for (unsigned c = lo; c <= hi; c++)
			ws__set_add(set, c);
	}
	x->p = p + 1;
}

static struct ws__frag ws__rx_alts(struct ws__rxp *x);

static struct ws__frag
ws__rx_atom(struct ws__rxp *x)
{
	uint8_t set[32] = {0};
	unsigned b;
	char c = *x->p;
	struct ws__frag f;

	switch (c) {
	case '(':
		if (x->p[1] == '?') {
			if (x->p[2] != ':') {
				x->declined = true;
				return (struct ws__frag){-1, -1};
			}
			x->p += 3;
		} else {
			x->p++;
		}
		f = ws__rx_alts(x);
		if (!ws__rx_ok(x) || *x->p != ')') {
			x->declined = true;
			return (struct ws__frag){-1, -1};
		}
		x->p++;
		return f;
	case '[':
		x->p++;
		ws__rx_class(x, set);
		if (!ws__rx_ok(x))
			return (struct ws__frag){-1, -1};
		return ws__rx_chr(x, set);
	case '\\': {
		int k = ws__rx_escape(x->p[1], set, &b);

		if (k < 0) {
			x->declined = true;
			return (struct ws__frag){-1, -1};
		}
		x->p += 2;
		if (k == 0)
			ws__set_add(set, b);
		return ws__rx_chr(x, set);
	}
	case '.': case '^': case '$': case '*': case '+': case '?': case '{':
	case '}': case ']': case ')': case '|': case '\0':
		x->declined = true;
		return (struct ws__frag){-1, -1};
	default:
		if ((unsigned char)c >= 0x80) {
			x->declined = true;
			return (struct ws__frag){-1, -1};
		}
		x->p++;
		ws__set_add(set, (unsigned char)c);
		return ws__rx_chr(x, set);
	}
}

/* A decimal number at *p (at most WS__RX_MAX_REP), or -1. */
static int
ws__rx_num(const char **p)
{
	int v = 0;

	if (**p < '0' || **p > '9')
		return -1;
	while (**p >= '0' && **p <= '9') {
		v = v * 10 + (**p - '0');
		if (v > WS__RX_MAX_REP)
			return -1;
		(*p)++;
	}
	return v;
}

/* An atom with its quantifier, if any. */
static struct ws__frag
ws__rx_quant(struct ws__rxp *x)
{
	const char *at = x->p;
	struct ws__frag a = ws__rx_atom(x), f;
	int lo, hi;

	if (!ws__rx_ok(x))
		return a;
	switch (*x->p) {
	case '*':
		x->p++;
		f = ws__rx_rep(x, a, true, false);
		break;
	case '+':
		x->p++;
		f = ws__rx_rep(x, a, false, true);
		break;
	case '?':
		x->p++;
		f = ws__rx_rep(x, a, false, false);
		break;
	case '{': {
		const char *q = x->p + 1;

		lo = ws__rx_num(&q);
		hi = lo;
		if (lo >= 0 && *q == ',') {
			q++;
			hi = *q == '}' ? -2 : ws__rx_num(&q);
		}
		if (lo < 0 || hi == -1 || *q != '}' || (hi >= 0 && hi < lo)) {
			x->declined = true;
			return a;
		}
		x->p = q + 1;
		/* lo copies, then hi - lo optional ones or a star. */
		f = ws__rx_empty(x);
		for (int i = 0; i < lo || (hi == -2 && i == lo) ||
		     (hi >= 0 && i < hi); i++) {
			struct ws__frag c = a;
			const char *save = x->p;

			if (i > 0) {
				x->p = at;
				c = ws__rx_atom(x);
				x->p = save;
			}
			if (i >= lo)
				c = ws__rx_rep(x, c, hi == -2, false);
			f = ws__rx_cat(x, f, c);
			if (!ws__rx_ok(x))
				return f;
		}
		break;
	}
	default:
		return a;
	}
	if (*x->p == '?')
		x->p++; /* lazy: the same lines match */
	if (*x->p == '+' || *x->p == '*' || *x->p == '?' || *x->p == '{')
		x->declined = true; /* possessive, or a quantifier quantified */
	return f;
}

static struct ws__frag
ws__rx_seq(struct ws__rxp *x)
{
	struct ws__frag f = ws__rx_empty(x);

	while (ws__rx_ok(x) && *x->p != '\0' && *x->p != '|' && *x->p != ')')
		f = ws__rx_cat(x, f, ws__rx_quant(x));
	return f;
}

static struct ws__frag
ws__rx_alts(struct ws__rxp *x)
{
	struct ws__frag f = ws__rx_seq(x);

	while (ws__rx_ok(x) && *x->p == '|') {
		x->p++;
		f = ws__rx_alt(x, f, ws__rx_seq(x));
	}
	return f;
}

/* ------------------------------------------------------------------ */
/* Subset construction                                                 */

struct ws__rxset {
	int *ids;
	int n;
	bool acc;
};

struct ws__rxb {
	const struct ws__rxp *x;
	int *stack, *mark, gen;
	int *tmp;
	int ntmp;
	struct ws__rxset *sets;
	int nsets;
	int *hash;	/* open addressing: set index + 1, 0 empty */
	size_t hcap;
};

/* Add the closure of NFA state s to b->tmp (CHR and MATCH states). */
static void
ws__rx_closure(struct ws__rxb *b, int s)
{
	int sp = 0;

	if (s < 0 || b->mark[s] == b->gen)
		return;
	b->mark[s] = b->gen;
	b->stack[sp++] = s;
	while (sp > 0) {
		const struct ws__rxn *n = &b->x->n[b->stack[--sp]];
		int outs[2] = {n->out, n->out1};

		if (n->kind == WS__RX_CHR || n->kind == WS__RX_MATCH) {
			b->tmp[b->ntmp++] = (int)(n - b->x->n);
			continue;
		}
		for (int k = 0; k < 2; k++) {
			if (outs[k] >= 0 && b->mark[outs[k]] != b->gen) {
				b->mark[outs[k]] = b->gen;
				b->stack[sp++] = outs[k];
			}
		}
	}
}

static int
ws__rx_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static uint64_t
ws__rx_hash(const int *ids, int n)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < n; i++)
		h = (h ^ (uint64_t)ids[i]) * 1099511628211ull;
	return h;
}

/*
 * The DFA state of the set in b->tmp (sorted here), added if new: its
 * index, -1 past the bound, -2 out of memory.
 */
static int
ws__rx_intern(struct ws__rxb *b)
{
	size_t i;
	int *ids;

	qsort(b->tmp, (size_t)b->ntmp, sizeof(int), ws__rx_cmp);
	i = (size_t)ws__rx_hash(b->tmp, b->ntmp) & (b->hcap - 1);
	for (; b->hash[i] != 0; i = (i + 1) & (b->hcap - 1)) {
		const struct ws__rxset *s = &b->sets[b->hash[i] - 1];

		if (s->n == b->ntmp &&
		    memcmp(s->ids, b->tmp, (size_t)b->ntmp * sizeof(int)) == 0)
			return b->hash[i] - 1;
	}
	if (b->nsets == WS__RX_MAX_DFA)
		return -1;
	ids = malloc((size_t)(b->ntmp ? b->ntmp : 1) * sizeof(int));
	if (ids == NULL)
		return -2;
	memcpy(ids, b->tmp, (size_t)b->ntmp * sizeof(int));
	b->sets[b->nsets] = (struct ws__rxset){ids, b->ntmp, false};
	for (int k = 0; k < b->ntmp; k++)
		if (b->x->n[ids[k]].kind == WS__RX_MATCH)
			b->sets[b->nsets].acc = true;
	b->hash[i] = b->nsets + 1;
	return b->nsets++;
}

/* The DFA of x's NFA from start; NULL with *rc 0 (declined) or < 0. */
static struct ws_rxdfa *
ws__rx_build(const struct ws__rxp *x, int start, int *rc)
{
	struct ws__rxb b = {.x = x};
	struct ws_rxdfa *d = NULL;
	uint32_t *raw = NULL;
	int *perm = NULL;
	int ncls = 1, nacc = 0, si;
	uint8_t rep[256];

	*rc = 0;
	d = calloc(1, sizeof(*d));
	b.stack = malloc((size_t)x->nn * sizeof(int));
	b.mark = calloc((size_t)x->nn, sizeof(int));
	b.tmp = malloc((size_t)x->nn * 2 * sizeof(int));
	b.sets = calloc(WS__RX_MAX_DFA, sizeof(*b.sets));
	b.hcap = WS__RX_MAX_DFA * 2;
	b.hash = calloc(b.hcap, sizeof(int));
	if (d == NULL || b.stack == NULL || b.mark == NULL || b.tmp == NULL ||
	    b.sets == NULL || b.hash == NULL)
		goto nomem;
	/* Classes of bytes: refined by each set's membership. */
	memset(d->cls, 0, sizeof(d->cls));
	for (int i = 0; i < x->nn; i++) {
		int map[256][2];

		if (x->n[i].kind != WS__RX_CHR)
			continue;
		memset(map, -1, sizeof(map));
		ncls = 0;
		for (unsigned c = 0; c < 256; c++) {
			int in = ws__set_has(x->n[i].set, c);
			int *m = &map[d->cls[c]][in];

			if (*m < 0)
				*m = ncls++;
			d->cls[c] = (uint8_t)*m;
		}
	}
	d->ncls = ncls;
	for (unsigned c = 256; c-- > 0;)
		rep[d->cls[c]] = (uint8_t)c;
	/* The start state: the NFA's start closure. */
	b.gen++;
	ws__rx_closure(&b, start);
	si = ws__rx_intern(&b);
	if (si < 0)
		goto fail_si;
	if (b.sets[si].acc)
		goto declined; /* it matches the empty string: every line */
	raw = NULL;
	for (int s = 0; s < b.nsets; s++) {
		uint32_t *a = realloc(raw, (size_t)(s + 1) * (size_t)ncls *
				      sizeof(*raw));

		if (a == NULL)
			goto nomem;
		raw = a;
		for (int k = 0; k < ncls; k++) {
			int t;

			if (b.sets[s].acc) {
				/* The scan stops at an accepting state. */
				raw[(size_t)s * (size_t)ncls + (size_t)k] = (uint32_t)s;
				continue;
			}
			b.gen++;
			b.ntmp = 0;
			for (int m = 0; m < b.sets[s].n; m++) {
				const struct ws__rxn *n = &x->n[b.sets[s].ids[m]];

				if (n->kind == WS__RX_CHR &&
				    ws__set_has(n->set, rep[k]))
					ws__rx_closure(&b, n->out);
			}
			/* Unanchored: a match may start at every byte. */
			ws__rx_closure(&b, start);
			t = ws__rx_intern(&b);
			if (t < 0) {
				si = t;
				goto fail_si;
			}
			raw[(size_t)s * (size_t)ncls + (size_t)k] = (uint32_t)t;
		}
	}
	/* Accepting states last, targets premultiplied. */
	perm = malloc((size_t)b.nsets * sizeof(int));
	d->trans = malloc((size_t)b.nsets * (size_t)ncls * sizeof(*d->trans));
	if (perm == NULL || d->trans == NULL)
		goto nomem;
	for (int s = 0; s < b.nsets; s++)
		nacc += b.sets[s].acc;
	{
		int lo = 0, hi = b.nsets - nacc;

		for (int s = 0; s < b.nsets; s++)
			perm[s] = b.sets[s].acc ? hi++ : lo++;
	}
	for (int s = 0; s < b.nsets; s++)
		for (int k = 0; k < ncls; k++)
			d->trans[(size_t)perm[s] * (size_t)ncls + (size_t)k] =
			    (uint32_t)perm[raw[(size_t)s * (size_t)ncls +
					       (size_t)k]] * (uint32_t)ncls;
	d->start = (uint32_t)perm[si] * (uint32_t)ncls;
	d->acc = (uint32_t)(b.nsets - nacc) * (uint32_t)ncls;
	goto out;
fail_si:
	if (si == -2)
		goto nomem;
declined:
	ws_rxdfa_free(d);
	d = NULL;
	goto out;
nomem:
	ws_rxdfa_free(d);
	d = NULL;
	*rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
out:
	for (int s = 0; s < b.nsets; s++)
		free(b.sets[s].ids);
	free(b.sets);
	free(b.hash);
	free(b.stack);
	free(b.mark);
	free(b.tmp);
	free(raw);
	free(perm);
	return d;
}

int
ws_rxdfa_compile(const char *const *patterns, size_t n, bool icase,
		 struct ws_rxdfa **out)
{
	struct ws__rxp x = {.icase = icase};
	struct ws__frag f = {-1, -1};
	int m, rc = 0;

	*out = NULL;
	for (size_t i = 0; i < n && ws__rx_ok(&x); i++) {
		struct ws__frag g;

		x.p = patterns[i];
		g = ws__rx_alts(&x);
		if (ws__rx_ok(&x) && *x.p != '\0')
			x.declined = true; /* a ')' too many */
		f = i == 0 ? g : ws__rx_alt(&x, f, g);
	}
	m = ws__rx_new(&x, WS__RX_MATCH);
	if (n > 0 && ws__rx_ok(&x) && f.start >= 0 && m >= 0) {
		x.n[f.end].out = m;
		*out = ws__rx_build(&x, f.start, &rc);
	}
	if (x.nomem)
		rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
	free(x.n);
	return rc;
}

size_t
ws_rxdfa_scan(const struct ws_rxdfa *d, const char *buf, size_t len)
{
	const uint32_t *t = d->trans;
	const uint8_t *c = d->cls;
	const unsigned char *p = (const unsigned char *)buf;
	uint32_t s = d->start, acc = d->acc;
	size_t i = 0;

	/* Four bytes a step while no state accepts (the common case). */
	for (; i + 4 <= len; i += 4) {
		uint32_t s1 = t[s + c[p[i]]];
		uint32_t s2 = t[s1 + c[p[i + 1]]];
		uint32_t s3 = t[s2 + c[p[i + 2]]];
		uint32_t s4 = t[s3 + c[p[i + 3]]];

		if (s4 >= acc) {
			/* Accepting states lead to themselves: find the first. */
			if (s1 >= acc)
				return i;
			if (s2 >= acc)
				return i + 1;
			return s3 >= acc ? i + 2 : i + 3;
		}
		s = s4;
	}
	for (; i < len; i++) {
		s = t[s + c[p[i]]];
		if (s >= acc)
			return i;
	}
	return len;
}

void
ws_rxdfa_free(struct ws_rxdfa *d)
{
	if (d == NULL)
		return;
	free(d->trans);
	free(d);
}
