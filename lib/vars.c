/* vars.c - ${NAME}, ${NAME:-fallback} expansion for policy paths. */
#include "ws/vars.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/error.h"
#include "ws/workspace.h"
#include "ws/glob.h"

void
ws_vars_init(struct ws_vars *vars)
{
	memset(vars, 0, sizeof(*vars));
}

static void
ws__var_list_free(struct ws_var *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].value);
	}
	free(v);
}

void
ws_vars_free(struct ws_vars *vars)
{
	ws__var_list_free(vars->v, vars->n);
	ws__var_list_free(vars->used, vars->nused);
	ws__var_list_free(vars->orig, vars->norig);
	memset(vars, 0, sizeof(*vars));
}

bool
ws_vars_name_valid(const char *name, size_t len)
{
	if (len == 0 || (name[0] >= '0' && name[0] <= '9'))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

/* Set (or add) name=value in the list; value NULL is "undefined". */
static int
ws__var_put(struct ws_var **list, size_t *n, const char *name, size_t nlen,
	    const char *value, bool fallback)
{
	struct ws_var *v = NULL;
	char *val = NULL;

	if (value != NULL && (val = strdup(value)) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (size_t i = 0; i < *n; i++) {
		if (strlen((*list)[i].name) == nlen &&
		    memcmp((*list)[i].name, name, nlen) == 0) {
			v = &(*list)[i];
			free(v->value);
			v->value = val;
			v->fallback = fallback;
			return 0;
		}
	}
	v = realloc(*list, (*n + 1) * sizeof(*v));
	if (v == NULL) {
		free(val);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	*list = v;
	v = &v[*n];
	v->name = strndup(name, nlen);
	if (v->name == NULL) {
		free(val);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	v->value = val;
	v->fallback = fallback;
	(*n)++;
	return 0;
}

int
ws_vars_set(struct ws_vars *vars, const char *name, const char *value)
{
	if (!ws_vars_name_valid(name, strlen(name)))
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "invalid variable name \"%s\"", name);
	return ws__var_put(&vars->v, &vars->n, name, strlen(name), value, false);
}

/* The value of name: the table decides if it holds it, else the environment. */
static const char *
ws__lookup(const struct ws_vars *vars, const char *name, size_t len)
{
	char buf[256];

	for (size_t i = 0; i < vars->n; i++)
		if (strlen(vars->v[i].name) == len &&
		    memcmp(vars->v[i].name, name, len) == 0)
			return vars->v[i].value;
	if (len >= sizeof(buf))
		return NULL;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return getenv(buf);
}

/* Whether NAME is in the caller's table (not only in the environment). */
static bool
ws__in_table(const struct ws_vars *vars, const char *name, size_t len)
{
	for (size_t i = 0; i < vars->n; i++)
		if (strlen(vars->v[i].name) == len &&
		    memcmp(vars->v[i].name, name, len) == 0)
			return true;
	return false;
}

/* The value as the environment spelled it, if resolving changed it. */
static const char *
ws__lookup_orig(const struct ws_vars *vars, const char *name, size_t len)
{
	for (size_t i = 0; i < vars->norig; i++)
		if (strlen(vars->orig[i].name) == len &&
		    memcmp(vars->orig[i].name, name, len) == 0)
			return vars->orig[i].value;
	return NULL;
}

/* Whether a and b differ at most by repeated or trailing slashes. */
static bool
ws__same_spelling(const char *a, const char *b)
{
	for (;;) {
		if (*a == '/' && *b == '/') {
			while (*a == '/')
				a++;
			while (*b == '/')
				b++;
			if (*a == '\0' || *b == '\0')
				return *a == *b;
			continue;
		}
		if (*a != *b)
			return a[strspn(a, "/")] == '\0' && b[strspn(b, "/")] == '\0';
		if (*a == '\0')
			return true;
		a++;
		b++;
	}
}

bool
ws_vars_resolved(const struct ws_vars *vars, const char *in)
{
	/* The syntax was checked when `in` was expanded. */
	for (const char *p = strstr(in, "${"); p != NULL; p = strstr(p, "${")) {
		size_t len;

		p += 2;
		len = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			     "0123456789_");
		if (ws__lookup_orig(vars, p, len) != NULL)
			return true;
	}
	return false;
}

const char *
ws_vars_get(const struct ws_vars *vars, const char *name)
{
	return ws__lookup(vars, name, strlen(name));
}

/* A growing output string. */
struct ws__buf {
	char *s;
	size_t len, cap;
};

static int
ws__buf_add(struct ws__buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *ns;

		while (b->len + n + 1 > cap)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (ns == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

static int
ws__malformed(const char *in, size_t at, size_t *erroff, const char *why)
{
	if (erroff != NULL)
		*erroff = at;
	return ws_error_set(WS_EPOLICY_ERROR, NULL,
			    "malformed variable reference at offset %zu: %s in \"%s\"",
			    at, why, in);
}

int
ws_vars_expand(struct ws_vars *vars, const char *in, unsigned flags,
	       char **out, size_t *erroff)
{
	struct ws__buf b = {0};
	size_t i = 0, n = strlen(in);
	int rc = 0;

	*out = NULL;
	if ((rc = ws__buf_add(&b, "", 0)) < 0)
		return rc;
	while (i < n) {
		size_t start = i, name, nlen, fb = 0, fblen = 0;
		bool has_fb = false;
		const char *val;

		if (in[i] != '$' || i + 1 >= n || in[i + 1] != '{') {
			size_t j = i + 1;

			while (j < n && in[j] != '$')
				j++;
			if ((rc = ws__buf_add(&b, in + i, j - i)) < 0)
				goto out;
			i = j;
			continue;
		}
		name = i + 2;
		i = name;
		while (i < n && in[i] != '}' && in[i] != ':' && in[i] != '$' &&
		       in[i] != '{')
			i++;
		nlen = i - name;
		if (i >= n) {
			rc = ws__malformed(in, start, erroff, "unterminated \"${\"");
			goto out;
		}
		if (in[i] == '$' || in[i] == '{') {
			rc = ws__malformed(in, start, erroff,
					   "nested expansion is not supported");
			goto out;
		}
		if (nlen == 0) {
			rc = ws__malformed(in, start, erroff, "empty variable name");
			goto out;
		}
		if (!ws_vars_name_valid(in + name, nlen)) {
			char why[320];

			snprintf(why, sizeof(why), "invalid variable name \"%.*s\"",
				 (int)(nlen > 256 ? 256 : nlen), in + name);
			rc = ws__malformed(in, start, erroff, why);
			goto out;
		}
		if (in[i] == ':') {
			if (i + 1 >= n || in[i + 1] != '-') {
				rc = ws__malformed(in, start, erroff,
						   "only \":-\" may follow a name");
				goto out;
			}
			has_fb = true;
			fb = i + 2;
			i = fb;
			while (i < n && in[i] != '}') {
				if (in[i] == '$' && i + 1 < n && in[i + 1] == '{') {
					rc = ws__malformed(in, start, erroff,
							   "nested expansion is not supported");
					goto out;
				}
				i++;
			}
			if (i >= n) {
				rc = ws__malformed(in, start, erroff,
						   "unterminated \"${\"");
				goto out;
			}
			fblen = i - fb;
		}
		i++; /* the "}" */
		val = ws__lookup(vars, in + name, nlen);
		if (has_fb && (val == NULL || *val == '\0')) {
			rc = ws__buf_add(&b, in + fb, fblen);
			if (rc == 0) {
				char *f = strndup(in + fb, fblen);

				rc = f ? ws__var_put(&vars->used, &vars->nused,
						     in + name, nlen, f, true)
				       : ws_error_set(WS_ENOMEM, NULL, "out of memory");
				free(f);
			}
		} else if (val == NULL) {
			if (erroff != NULL)
				*erroff = start;
			rc = ws_error_set(WS_EPOLICY_ERROR, NULL,
					  "undefined variable: %.*s", (int)nlen,
					  in + name);
		} else {
			char *esc, *canon = NULL;

			/*
			 * Globs match resolved paths: an absolute value from
			 * the environment (HOME through a symlink, "/./") is
			 * resolved too, or its deny rules would never match.
			 * The table then caches it for the next reference.
			 */
			if ((flags & WS_VARS_GLOB) && val[0] == '/' &&
			    !ws__in_table(vars, in + name, nlen) &&
			    ws_canonical_path(val, &canon) == 0) {
				char nm[256];

				snprintf(nm, sizeof(nm), "%.*s", (int)nlen, in + name);
				/* What a grant opens must not follow a symlink
				 * the command may have planted: the spelling
				 * is kept where the resolution changed it. */
				if (!ws__same_spelling(canon, val))
					rc = ws__var_put(&vars->orig, &vars->norig,
							 in + name, nlen, val, false);
				if (rc == 0 && ws_vars_set(vars, nm, canon) == 0)
					val = ws__lookup(vars, in + name, nlen);
				free(canon);
				if (rc < 0)
					goto out;
			}
			esc = (flags & WS_VARS_GLOB) ? ws_glob_escape(val) : NULL;

			if ((flags & WS_VARS_GLOB) && esc == NULL)
				rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
			else
				rc = ws__buf_add(&b, esc ? esc : val,
						 strlen(esc ? esc : val));
			free(esc);
			if (rc == 0)
				rc = ws__var_put(&vars->used, &vars->nused,
						 in + name, nlen, val, false);
		}
		if (rc < 0)
			goto out;
	}
out:
	if (rc < 0) {
		free(b.s);
		return rc;
	}
	*out = b.s;
	return 0;
}
