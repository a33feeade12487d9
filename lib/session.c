/*
 * session.c - what a call sets up before it acts: the configuration file,
 * the workspace and its mounts, project detection and the policy, as the
 * common options and their environment variables ask (ws_cli_open).
 */
#include "ws/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ws-config.h"
#include "ws/audit.h"
#include "ws/call.h"
#include "ws/config.h"
#include "ws/detect.h"
#include "ws/error.h"
#include "ws/guard.h"
#include "ws/history.h"
#include "ws/path.h"
#include "ws/pending.h"
#include "ws/policy.h"
#include "ws/vars.h"

/* ws_cli_set_approver(): the current call's (ws/call.h). */
void
ws_cli_set_approver(ws_approver_fn fn, void *arg)
{
	struct ws_call *c = ws_call_current();

	c->approver = fn;
	c->approver_arg = arg;
}

/* ws_cli_set_mounts(): the mounts a long-lived front end passes as data. */
void
ws_cli_set_mounts(const struct ws_mount_def *m, size_t n)
{
	struct ws_call *c = ws_call_current();

	c->mounts = n > 0 ? m : NULL;
	c->nmounts = m != NULL ? n : 0;
}

/* ---- What a server remembers between calls -------------------------
 *
 * A server that serves many calls (wstools mcp) opens the configuration,
 * the workspace with its mounts, and the policy once, and shares them
 * with every call that asks for the same ones: one snapshot of each,
 * immutable once made, counted by the calls that hold it, and replaced
 * whole (never changed in place) when a re-check finds it stale, while
 * calls still running on the old one finish with it.  Every call
 * re-checks what it takes, cheaply, so that it sees what a fresh
 * process would (DESIGN.md 2, 3, 6):
 *
 *  - the configuration: each place a fresh process would look at
 *    (--config / WS_CONFIG, else the XDG or HOME place and
 *    /etc/wstools/config.json) is stat(2)ed, and its identity (absent, or
 *    device, inode, size, mtime and ctime) compared with what it was when
 *    the snapshot was read: a file edited, replaced, removed or created
 *    since is read again;
 *  - the workspace and its mounts: the root and each mount directory as
 *    spelled (the same string a fresh process resolves) is stat(2)ed; if
 *    it now names another directory or nothing (moved, replaced, a
 *    symlink on the way retargeted), the workspace is opened again, with
 *    the answer (or the WORKSPACE_NOT_FOUND) a fresh process would give;
 *  - project detection: kept with the identity of every directory from
 *    the workspace up to "/" (ws__det below); a marker created or removed
 *    since in any of them (which changes its times) runs it again;
 *  - the policy: looked up again by name as a fresh process does, and the
 *    file it names stat(2)ed as the configuration is; the compiled policy
 *    is kept per (name, policies directory, file, PROJECT_ROOT, GIT_ROOT,
 *    WORKSPACE).
 *
 * A call whose own options name another configuration, workspace,
 * mounts or policy gets its own (the snapshots are keyed by them); with
 * WS_MOUNTS mounts, --verbose or a caller that wants the policy's
 * variables (wspath), the call opens everything itself.  The rest of a
 * call's setting up (guards, the audit log, the history, detection) is
 * its own, as before.  Errors are never remembered: a call that fails to
 * open fails again as a fresh process would.
 *
 * All of it hangs off the server's struct ws_session, which each of its
 * calls carries (struct ws_call's session): two servers in one process
 * share nothing, and a call without one (the CLI's) remembers nothing.
 */

/* A file's identity as a re-check compares it. */
struct ws__fid {
	int err; /* 0: it is there; else stat(2)'s errno */
	bool racy; /* changed too lately to be told apart: never the same */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
};

static void
ws__fid_of(const char *path, struct ws__fid *f)
{
	struct stat st;

	memset(f, 0, sizeof(*f));
	if (stat(path, &st) < 0) {
		f->err = errno;
		return;
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
	f->mtime = st.st_mtim;
	f->ctime = st.st_ctim;
}

/*
 * A file's timestamps move in the kernel's clock ticks (some ms): one
 * written again in the tick it was read in, to the same size, would look
 * the same.  So a file changed in the last two seconds when it is read
 * is "racy" (as git's index calls it): read again by the next call, until
 * it has been still for long enough.
 */
static void
ws__fid_mark_racy(struct ws__fid *f)
{
	struct timespec now;

	if (f->err != 0 || clock_gettime(CLOCK_REALTIME, &now) < 0)
		return;
	f->racy = now.tv_sec - f->mtime.tv_sec < 2 || now.tv_sec - f->ctime.tv_sec < 2;
}

static bool
ws__fid_same(const struct ws__fid *a, const struct ws__fid *b)
{
	if (a->racy || b->racy)
		return false;
	if (a->err != 0 || b->err != 0)
		return a->err == b->err;
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

static bool
ws__streq(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The configuration as read, with the identity of the places looked at. */
struct ws__rconf {
	atomic_int ref;
	char *explicit;	     /* --config / WS_CONFIG, or NULL */
	char *place[2];	     /* the places a fresh process looks at */
	struct ws__fid id[2];
	size_t nplace;
	struct ws_config conf;
};

/* The workspace and its mounts, opened. */
struct ws__rws {
	atomic_int ref;
	char *root; /* as spelled, or NULL: the current directory */
	unsigned flags;
	char **specs; /* "VPREFIX=DIR[:ro]" mounts, in order */
	size_t nspecs;
	struct ws_mount_def *data; /* then the mounts given as data */
	size_t ndata;
	char **spell; /* per anchor: the directory as spelled */
	dev_t *dev;   /* and what its descriptor is */
	ino_t *ino;
	struct ws_ctx ctx;
};

/* A policy loaded and prepared (ws_policy_prepare()). */
struct ws__rpol {
	atomic_int ref;
	char *spec, *dir, *path, *project, *git, *workspace;
	struct ws__fid id;
	struct ws_policy *pol;
};

/*
 * Project detection, kept: what it found from one workspace with one list
 * of markers, and the identity of every directory from the workspace up
 * to "/".  A marker (or ".git") created, removed or replaced in any of
 * them changes that directory's times, and so does a directory on the
 * way renamed, replaced by a symlink or made unreadable: while none of
 * them changed (and none changed in the two seconds before the walk, the
 * racy rule), detection would find the same, and one stat a directory
 * replaces a stat a marker a directory and the readlinks of realpath(3).
 */
struct ws__det {
	char *real;
	char **markers; /* NULL: the default list */
	size_t nmarkers;
	struct ws__fid *ids;
	size_t nids;
	struct ws_roots roots;
};

/*
 * What one server remembers (ws/session.h): its own, so that two servers
 * in one process never see each other's snapshots, and a process that
 * makes none (the CLI) remembers nothing.
 */
struct ws_session {
	/* Guards the current snapshots (not what is in them: that never changes). */
	pthread_mutex_t mu;
	struct ws__rconf *conf;
	struct ws__rws *ws;
	struct ws__rpol *pol;
	/* The last ws_hist_dir() (ws__hist_dir_remembered()). */
	char *hd_base, *hd_root, *hd_dir;
	struct ws__det det;
};

static void ws__det_clear(struct ws__det *d);

static void
ws__strv_free(char **v, size_t n)
{
	for (size_t i = 0; v != NULL && i < n; i++)
		free(v[i]);
	free(v);
}

static void
ws__rconf_put(struct ws__rconf *c)
{
	if (c == NULL || atomic_fetch_sub(&c->ref, 1) != 1)
		return;
	free(c->explicit);
	for (size_t i = 0; i < 2; i++)
		free(c->place[i]);
	ws_config_free(&c->conf);
	free(c);
}

static void
ws__rws_put(struct ws__rws *w)
{
	if (w == NULL || atomic_fetch_sub(&w->ref, 1) != 1)
		return;
	free(w->root);
	ws__strv_free(w->specs, w->nspecs);
	for (size_t i = 0; i < w->ndata; i++) {
		free((char *)w->data[i].vprefix);
		free((char *)w->data[i].dir);
	}
	free(w->data);
	ws__strv_free(w->spell, w->ctx.nanchors);
	free(w->dev);
	free(w->ino);
	ws_ctx_close(&w->ctx);
	free(w);
}

static void
ws__rpol_put(struct ws__rpol *p)
{
	if (p == NULL || atomic_fetch_sub(&p->ref, 1) != 1)
		return;
	free(p->spec);
	free(p->dir);
	free(p->path);
	free(p->project);
	free(p->git);
	free(p->workspace);
	ws_policy_free(p->pol);
	free(p);
}

struct ws_session *
ws_session_new(void)
{
	struct ws_session *ss = calloc(1, sizeof(*ss));

	if (ss == NULL) {
		ws_error_set(WS_ENOMEM, NULL, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&ss->mu, NULL);
	return ss;
}

void
ws_session_forget(struct ws_session *ss)
{
	struct ws__rconf *c;
	struct ws__rws *w;
	struct ws__rpol *p;

	if (ss == NULL)
		return;
	pthread_mutex_lock(&ss->mu);
	c = ss->conf;
	w = ss->ws;
	p = ss->pol;
	ss->conf = NULL;
	ss->ws = NULL;
	ss->pol = NULL;
	free(ss->hd_base);
	free(ss->hd_root);
	free(ss->hd_dir);
	ss->hd_base = ss->hd_root = ss->hd_dir = NULL;
	ws__det_clear(&ss->det);
	pthread_mutex_unlock(&ss->mu);
	ws__rconf_put(c);
	ws__rws_put(w);
	ws__rpol_put(p);
}

void
ws_session_free(struct ws_session *ss)
{
	if (ss == NULL)
		return;
	ws_session_forget(ss);
	pthread_mutex_destroy(&ss->mu);
	free(ss);
}

void
ws__cli_forget(struct ws_cli *cli)
{
	if (cli->rem_conf != NULL) {
		cli->conf = NULL; /* the snapshot's */
		ws__rconf_put(cli->rem_conf);
	}
	ws__rws_put(cli->rem_ws);
	ws__rpol_put(cli->rem_pol);
	cli->rem_conf = NULL;
	cli->rem_ws = NULL;
	cli->rem_pol = NULL;
}

/* The places ws_config_load() reads, in its order: *n of them. */
static void
ws__conf_places(const char *explicit, char def[PATH_MAX], const char *place[2],
		size_t *n)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	*n = 0;
	if (explicit != NULL) {
		place[(*n)++] = explicit;
		return;
	}
	if (xdg != NULL && xdg[0] == '/')
		snprintf(def, PATH_MAX, "%s/wstools/config.json", xdg);
	else if (home != NULL && home[0] == '/')
		snprintf(def, PATH_MAX, "%s/.config/wstools/config.json", home);
	else
		def[0] = '\0';
	if (def[0] != '\0')
		place[(*n)++] = def;
	place[(*n)++] = "/etc/wstools/config.json";
}

/*
 * The configuration for cli: the remembered one if every place a fresh
 * process would look at is as it was, else read again (and remembered
 * when it could be read).
 */
static int
ws__conf_remembered(struct ws_cli *cli)
{
	char def[PATH_MAX];
	const char *place[2];
	struct ws__fid id[2];
	struct ws__rconf *c, *old;
	size_t n;
	int rc;

	if (cli->config != NULL && cli->config[0] == '\0')
		return 1; /* the error is ws_config_load()'s to give */
	ws__conf_places(cli->config, def, place, &n);
	for (size_t i = 0; i < n; i++)
		ws__fid_of(place[i], &id[i]);
	pthread_mutex_lock(&cli->rem->mu);
	c = cli->rem->conf;
	if (c != NULL && ws__streq(c->explicit, cli->config) && c->nplace == n) {
		for (size_t i = 0; c != NULL && i < n; i++)
			if (!ws__streq(c->place[i], place[i]) ||
			    !ws__fid_same(&c->id[i], &id[i]))
				c = NULL;
	} else {
		c = NULL;
	}
	if (c != NULL)
		atomic_fetch_add(&c->ref, 1);
	pthread_mutex_unlock(&cli->rem->mu);
	if (c == NULL) {
		/* Read after the identities were taken: a change in between
		 * is seen by the next call's re-check. */
		if ((c = calloc(1, sizeof(*c))) == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		atomic_init(&c->ref, 1);
		ws_config_init(&c->conf);
		c->nplace = n;
		for (size_t i = 0; i < n; i++) {
			c->id[i] = id[i];
			ws__fid_mark_racy(&c->id[i]);
			c->place[i] = strdup(place[i]);
		}
		c->explicit = cli->config != NULL ? strdup(cli->config) : NULL;
		rc = ws_config_load(&c->conf, cli->config);
		if (rc == 0 && (c->place[0] == NULL || (n > 1 && c->place[1] == NULL) ||
				(cli->config != NULL && c->explicit == NULL)))
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		if (rc < 0) {
			ws__rconf_put(c);
			return rc;
		}
		atomic_fetch_add(&c->ref, 1);
		pthread_mutex_lock(&cli->rem->mu);
		old = cli->rem->conf;
		cli->rem->conf = c;
		pthread_mutex_unlock(&cli->rem->mu);
		ws__rconf_put(old);
	}
	cli->rem_conf = c;
	cli->conf = &c->conf;
	return 0;
}

/* The mounts of a call, as ws_cli_open() adds them: 1 when not kept. */
static int
ws__mounts_of(const struct ws_cli *cli, const struct ws_config *conf,
	      const char *const **specs, size_t *nspecs,
	      const struct ws_mount_def **data, size_t *ndata)
{
	const struct ws_call *call = ws_call_current();

	*data = NULL;
	*ndata = 0;
	if (cli->nmounts > 0 || call->nmounts > 0) {
		*specs = cli->mounts;
		*nspecs = cli->nmounts;
		*data = call->mounts;
		*ndata = call->nmounts;
		return 0;
	}
	if (cli->env_mounts != NULL && cli->env_mounts[0] != '\0')
		return 1;
	*specs = (const char *const *)conf->mounts;
	*nspecs = conf->nmounts;
	return 0;
}

/* The directory of a "VPREFIX=DIR[:ro]" spec (as ws_ctx_add_mount()). */
static char *
ws__spec_dir(const char *spec)
{
	const char *eq = strchr(spec, '=');
	char *d = strdup(eq != NULL ? eq + 1 : "");
	size_t dl = d != NULL ? strlen(d) : 0;

	if (dl > 3 && (strcmp(d + dl - 3, ":ro") == 0 || strcmp(d + dl - 3, ":rw") == 0))
		d[dl - 3] = '\0';
	return d;
}

/* Whether w was opened for this root, these flags and these mounts. */
static bool
ws__rws_match(const struct ws__rws *w, const char *root, unsigned flags,
	      const char *const *specs, size_t nspecs,
	      const struct ws_mount_def *data, size_t ndata)
{
	if (!ws__streq(w->root, root) || w->flags != flags || w->nspecs != nspecs ||
	    w->ndata != ndata)
		return false;
	for (size_t i = 0; i < nspecs; i++)
		if (strcmp(w->specs[i], specs[i]) != 0)
			return false;
	for (size_t i = 0; i < ndata; i++)
		if (strcmp(w->data[i].vprefix, data[i].vprefix) != 0 ||
		    strcmp(w->data[i].dir, data[i].dir) != 0 || w->data[i].ro != data[i].ro)
			return false;
	return true;
}

/* Whether each anchor's spelling still names the directory held. */
static bool
ws__rws_fresh(const struct ws__rws *w)
{
	struct stat st;

	for (size_t i = 0; i < w->ctx.nanchors; i++)
		if (stat(w->spell[i], &st) < 0 || st.st_dev != w->dev[i] ||
		    st.st_ino != w->ino[i])
			return false;
	return true;
}

/* Open root and mounts into a new snapshot, as ws_cli_open() would. */
static int
ws__rws_open(const char *root, unsigned flags, const char *const *specs,
	     size_t nspecs, const struct ws_mount_def *data, size_t ndata,
	     struct ws__rws **out)
{
	struct ws__rws *w = calloc(1, sizeof(*w));
	size_t na = 1 + nspecs + ndata;
	struct stat st;
	int rc;

	*out = NULL;
	if (w == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	atomic_init(&w->ref, 1);
	w->flags = flags;
	w->ctx.host_fd = -1;
	if ((rc = ws_ctx_open(&w->ctx, root, flags)) < 0)
		goto fail;
	for (size_t i = 0; i < nspecs; i++)
		if ((rc = ws_ctx_add_mount(&w->ctx, specs[i])) < 0)
			goto fail;
	for (size_t i = 0; i < ndata; i++)
		if ((rc = ws_ctx_add_mount_dir(&w->ctx, data[i].vprefix, data[i].dir,
					       data[i].ro)) < 0)
			goto fail;
	/* One anchor a mount, in order, or the spellings do not line up. */
	if (w->ctx.nanchors != na) {
		rc = 1;
		goto fail;
	}
	rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if ((root != NULL && (w->root = strdup(root)) == NULL) ||
	    (w->specs = calloc(nspecs + 1, sizeof(*w->specs))) == NULL ||
	    (w->data = calloc(ndata + 1, sizeof(*w->data))) == NULL ||
	    (w->spell = calloc(na, sizeof(*w->spell))) == NULL ||
	    (w->dev = calloc(na, sizeof(*w->dev))) == NULL ||
	    (w->ino = calloc(na, sizeof(*w->ino))) == NULL)
		goto fail;
	for (size_t i = 0; i < nspecs; i++) {
		if ((w->specs[i] = strdup(specs[i])) == NULL)
			goto fail;
		w->nspecs = i + 1;
	}
	for (size_t i = 0; i < ndata; i++) {
		w->data[i].vprefix = strdup(data[i].vprefix);
		w->data[i].dir = strdup(data[i].dir);
		w->data[i].ro = data[i].ro;
		w->ndata = i + 1;
		if (w->data[i].vprefix == NULL || w->data[i].dir == NULL)
			goto fail;
	}
	w->spell[0] = strdup(root != NULL ? root : ".");
	for (size_t i = 0; i < nspecs; i++)
		w->spell[1 + i] = ws__spec_dir(specs[i]);
	for (size_t i = 0; i < ndata; i++)
		w->spell[1 + nspecs + i] = strdup(data[i].dir);
	for (size_t i = 0; i < na; i++) {
		if (w->spell[i] == NULL)
			goto fail;
		/* What the descriptor is: the spelling is compared with it. */
		if (fstat(w->ctx.anchors[i].fd, &st) < 0) {
			rc = 1;
			goto fail;
		}
		w->dev[i] = st.st_dev;
		w->ino[i] = st.st_ino;
	}
	*out = w;
	return 0;
fail:
	ws__rws_put(w);
	return rc;
}

/*
 * The workspace for cli, into ws: the remembered one (its descriptors
 * borrowed) when root, flags and mounts are the same and each still
 * names what it did, else opened again and remembered.  1: not kept
 * (the caller opens it itself).
 */
static int
ws__ws_remembered(struct ws_cli *cli, struct ws_ctx *ws, unsigned flags)
{
	const char *const *specs = NULL;
	const struct ws_mount_def *data = NULL;
	size_t nspecs = 0, ndata = 0;
	struct ws__rws *w, *old;
	int rc;

	if (ws__mounts_of(cli, cli->conf, &specs, &nspecs, &data, &ndata) != 0)
		return 1;
	pthread_mutex_lock(&cli->rem->mu);
	w = cli->rem->ws;
	if (w != NULL && ws__rws_match(w, cli->workspace, flags, specs, nspecs, data,
				       ndata))
		atomic_fetch_add(&w->ref, 1);
	else
		w = NULL;
	pthread_mutex_unlock(&cli->rem->mu);
	if (w != NULL && !ws__rws_fresh(w)) {
		ws__rws_put(w);
		w = NULL;
	}
	if (w == NULL) {
		/*
		 * A failure is met again by the caller, opening it in the
		 * order a fresh process does (its error first where several
		 * things are wrong): errors are never remembered.
		 */
		if ((rc = ws__rws_open(cli->workspace, flags, specs, nspecs, data, ndata,
				       &w)) != 0) {
			ws_error_clear();
			return 1;
		}
		atomic_fetch_add(&w->ref, 1);
		pthread_mutex_lock(&cli->rem->mu);
		old = cli->rem->ws;
		cli->rem->ws = w;
		pthread_mutex_unlock(&cli->rem->mu);
		ws__rws_put(old);
	}
	cli->rem_ws = w;
	return ws_ctx_share(ws, &w->ctx);
}

/*
 * The policy spec for this call, with the variables of its roots: the
 * remembered one when it was loaded from the same file, unchanged, with
 * the same variables; else loaded, prepared and remembered.  A view of
 * it goes into *out (the call's hooks are its own).  1: not kept.
 */
static int
ws__pol_remembered(struct ws_cli *cli, const char *spec, struct ws_vars *vars,
		   struct ws_policy **out)
{
	const char *dir = cli->conf->policies_dir;
	const char *pr = cli->roots->project_root, *gr = cli->roots->git_root;
	const char *wr = ws_vars_get(vars, "WORKSPACE");
	struct ws__rpol *p, *old;
	struct ws__fid id;
	char *path = NULL;
	int rc;

	*out = NULL;
	/* Found as a fresh process finds it: a new file may shadow it. */
	if ((rc = ws_policy_find(spec, dir, &path)) < 0)
		return rc;
	ws__fid_of(path, &id);
	pthread_mutex_lock(&cli->rem->mu);
	p = cli->rem->pol;
	if (p != NULL && ws__streq(p->spec, spec) && ws__streq(p->dir, dir) &&
	    ws__streq(p->path, path) && ws__streq(p->project, pr) &&
	    ws__streq(p->git, gr) && ws__streq(p->workspace, wr) &&
	    ws__fid_same(&p->id, &id))
		atomic_fetch_add(&p->ref, 1);
	else
		p = NULL;
	pthread_mutex_unlock(&cli->rem->mu);
	if (p == NULL) {
		if ((p = calloc(1, sizeof(*p))) == NULL) {
			free(path);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		atomic_init(&p->ref, 1);
		p->id = id;
		ws__fid_mark_racy(&p->id);
		p->path = path;
		path = NULL;
		rc = ws_policy_load(spec, dir, vars, &p->pol);
		/*
		 * A pattern that does not compile is an error where a fresh
		 * process meets it (a command's check), not for every call:
		 * such a policy is loaded by each call instead.
		 */
		if (rc == 0 && ws_policy_prepare(p->pol) < 0) {
			ws_error_clear();
			rc = 1;
		}
		/* Loaded from the file found: the identity is of that file. */
		if (rc == 0 && !ws__streq(ws_policy_path(p->pol), p->path))
			rc = 1;
		if (rc == 0 && (((p->spec = strdup(spec)) == NULL) ||
				(dir != NULL && (p->dir = strdup(dir)) == NULL) ||
				(pr != NULL && (p->project = strdup(pr)) == NULL) ||
				(gr != NULL && (p->git = strdup(gr)) == NULL) ||
				(wr != NULL && (p->workspace = strdup(wr)) == NULL)))
			rc = ws_error_set(WS_ENOMEM, NULL, "out of memory");
		if (rc != 0) {
			ws__rpol_put(p);
			/* Loaded again by the caller: its errors in its order. */
			if (rc < 0 && rc != WS_ENOMEM)
				ws_error_clear();
			return rc < 0 && rc != WS_ENOMEM ? 1 : rc;
		}
		atomic_fetch_add(&p->ref, 1);
		pthread_mutex_lock(&cli->rem->mu);
		old = cli->rem->pol;
		cli->rem->pol = p;
		pthread_mutex_unlock(&cli->rem->mu);
		ws__rpol_put(old);
	}
	free(path);
	cli->rem_pol = p;
	if ((*out = ws_policy_view(p->pol)) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	return 0;
}

/*
 * ws_hist_dir() of the last (base, root) asked, kept: a hash of the root
 * and the environment's state directory, the same for every call on the
 * same root (5,600 instructions a call).
 */
static char *
ws__hist_dir_remembered(struct ws_session *ss, const char *base, const char *root)
{
	char *d = NULL;

	pthread_mutex_lock(&ss->mu);
	if (ss->hd_dir != NULL && ws__streq(ss->hd_base, base) &&
	    strcmp(ss->hd_root, root) == 0)
		d = strdup(ss->hd_dir);
	pthread_mutex_unlock(&ss->mu);
	if (d != NULL || (d = ws_hist_dir(base, root)) == NULL)
		return d;
	pthread_mutex_lock(&ss->mu);
	free(ss->hd_base);
	free(ss->hd_root);
	free(ss->hd_dir);
	ss->hd_base = base != NULL ? strdup(base) : NULL;
	ss->hd_root = strdup(root);
	ss->hd_dir = strdup(d);
	if ((base != NULL && ss->hd_base == NULL) || ss->hd_root == NULL ||
	    ss->hd_dir == NULL) {
		free(ss->hd_dir);
		ss->hd_dir = NULL;
	}
	pthread_mutex_unlock(&ss->mu);
	return d;
}

/* The identity of real and each directory above it, up to "/". */
static int
ws__dir_ids(const char *real, struct ws__fid **out, size_t *n)
{
	size_t len = strlen(real), k = 1;
	struct ws__fid *ids;
	char *p;

	for (size_t i = 1; i < len; i++)
		k += real[i] == '/';
	k += len > 1;
	if ((ids = calloc(k, sizeof(*ids))) == NULL || (p = strdup(real)) == NULL) {
		free(ids);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	*n = 0;
	for (;;) {
		char *slash;

		ws__fid_of(p, &ids[(*n)++]);
		if (strcmp(p, "/") == 0 || *n == k)
			break;
		slash = strrchr(p, '/');
		if (slash == p)
			slash[1] = '\0';
		else if (slash != NULL)
			*slash = '\0';
		else
			break;
	}
	free(p);
	*out = ids;
	return 0;
}

static bool
ws__markers_same(char *const *a, size_t na, const char *const *b, size_t nb)
{
	if ((a == NULL) != (b == NULL) || na != nb)
		return false;
	for (size_t i = 0; a != NULL && i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

static int
ws__roots_copy(struct ws_roots *dst, const struct ws_roots *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->detected = src->detected;
	if ((src->workspace && !(dst->workspace = strdup(src->workspace))) ||
	    (src->project_root && !(dst->project_root = strdup(src->project_root))) ||
	    (src->git_root && !(dst->git_root = strdup(src->git_root))) ||
	    (src->marker && !(dst->marker = strdup(src->marker))) ||
	    (src->stopped_at && !(dst->stopped_at = strdup(src->stopped_at)))) {
		ws_roots_free(dst);
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	}
	return 0;
}

static void
ws__det_clear(struct ws__det *d)
{
	free(d->real);
	ws__strv_free(d->markers, d->nmarkers);
	free(d->ids);
	ws_roots_free(&d->roots);
	memset(d, 0, sizeof(*d));
}

/* ws_detect(real, o, roots), from what was kept when nothing changed. */
static int
ws__detect_remembered(struct ws_session *ss, const char *real,
		      const struct ws_detect_opts *o, struct ws_roots *roots)
{
	struct ws__fid *ids = NULL;
	size_t n = 0;
	bool hit = false;
	int rc;

	if ((rc = ws__dir_ids(real, &ids, &n)) < 0)
		return rc;
	pthread_mutex_lock(&ss->mu);
	if (ss->det.real != NULL && strcmp(ss->det.real, real) == 0 &&
	    ws__markers_same(ss->det.markers, ss->det.nmarkers, o->markers,
			     o->nmarkers) && ss->det.nids == n) {
		hit = true;
		for (size_t i = 0; hit && i < n; i++)
			hit = ws__fid_same(&ss->det.ids[i], &ids[i]);
		if (hit)
			rc = ws__roots_copy(roots, &ss->det.roots);
	}
	pthread_mutex_unlock(&ss->mu);
	if (hit) {
		free(ids);
		return rc;
	}
	/* The identities were taken first: a change during the walk is
	 * seen by the next call. */
	if ((rc = ws_detect(real, o, roots)) < 0) {
		free(ids);
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		ws__fid_mark_racy(&ids[i]);
	pthread_mutex_lock(&ss->mu);
	ws__det_clear(&ss->det);
	ss->det.real = strdup(real);
	ss->det.ids = ids;
	ss->det.nids = n;
	ids = NULL;
	if (o->markers != NULL &&
	    (ss->det.markers = calloc(o->nmarkers + 1, sizeof(char *))) != NULL) {
		for (size_t i = 0; i < o->nmarkers; i++)
			if ((ss->det.markers[ss->det.nmarkers] = strdup(o->markers[i])) != NULL)
				ss->det.nmarkers++;
	}
	if (ss->det.real == NULL || (o->markers != NULL && ss->det.nmarkers != o->nmarkers) ||
	    ws__roots_copy(&ss->det.roots, roots) < 0) {
		ws_error_clear();
		ws__det_clear(&ss->det);
	}
	pthread_mutex_unlock(&ss->mu);
	free(ids);
	return 0;
}

/* --verbose: one logfmt line on stderr, in the form of DESIGN.md 6. */
static void
ws__log(void *arg, const char *level, const char *line)
{
	(void)arg;
	fprintf(stderr, "%s %s\n", level, line);
}

/* Log "key=value" pairs; values are quoted when they need it. */
static void
ws__logkv(const char *level, const char *what, const char *k1, const char *v1,
	  const char *k2, const char *v2)
{
	char *q1 = v1 ? ws_log_quote(v1) : NULL;
	char *q2 = v2 ? ws_log_quote(v2) : NULL;

	fprintf(stderr, "%s %s", level, what);
	if (k1 != NULL)
		fprintf(stderr, " %s=%s", k1, q1 ? q1 : "\"\"");
	if (k2 != NULL)
		fprintf(stderr, " %s=%s", k2, q2 ? q2 : "\"\"");
	fputc('\n', stderr);
	free(q1);
	free(q2);
}

/*
 * Ask a person on the terminal (never on stdin, which may carry data):
 * only "y" or "yes" approves.
 */
static bool
ws__prompt(void *arg, const char *message)
{
	const struct ws_cli *cli = arg;
	char ans[64];
	size_t n = 0;
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);

	char *safe;

	if (fd < 0)
		return false;
	/*
	 * The question comes from ws_policy_question(): its values are
	 * escaped and its lines are its own.  Still, no control byte but
	 * those line breaks reaches the terminal, whatever a caller passed;
	 * the first line (what is asked) after the tool's name, the details
	 * indented under it, and the answer asked for on a line of its own.
	 */
	if ((safe = strdup(message)) == NULL) {
		close(fd);
		return false;
	}
	for (char *c = safe; *c; c++)
		if (((unsigned char)*c < 0x20 && *c != '\n') || *c == 0x7f)
			*c = '?';
	dprintf(fd, "%s: ", cli->tool->prog);
	for (char *c = safe, *nl; c != NULL; c = nl != NULL ? nl + 1 : NULL) {
		nl = strchr(c, '\n');
		dprintf(fd, "%s%.*s\n", c == safe ? "" : "  ",
			(int)(nl != NULL ? (size_t)(nl - c) : strlen(c)), c);
	}
	dprintf(fd, "%s: allow? [y/N] ", cli->tool->prog);
	free(safe);
	while (n + 1 < sizeof(ans)) {
		char c;
		ssize_t r = read(fd, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || c == '\n')
			break;
		ans[n++] = c;
	}
	ans[n] = '\0';
	close(fd);
	while (n > 0 && (ans[n - 1] == '\r' || ans[n - 1] == ' '))
		ans[--n] = '\0';
	return strcasecmp(ans, "y") == 0 || strcasecmp(ans, "yes") == 0;
}

/*
 * The detection's probe: a marker a command running in this process may
 * have made (a place its revert removes, ws/pending.h) is absent, as it
 * is before the command and after the revert.  Else the agent's own
 * parallel call, while the command runs, took the directory of the
 * command's package.json or .git for PROJECT_ROOT or GIT_ROOT, and a
 * deny rule spelled through it matched nothing (review31 02).  One stat
 * a marker, and ws_pending_has() for one that is there.
 */
static int
ws__probe_not_pending(const char *dir, const char *marker, void *arg)
{
	char path[PATH_MAX + 256];
	int rc = ws_detect_probe_stat(dir, marker, arg);

	if (rc != 1 || snprintf(path, sizeof(path), "%s%s%s", dir,
				strcmp(dir, "/") == 0 ? "" : "/", marker) >=
		       (int)sizeof(path))
		return rc;
	return ws_pending_has(path) ? 0 : 1;
}

/*
 * The project and git roots, by the precedence of DESIGN.md 6:
 * --project-root > --no-detect-root > configuration > detection.
 */
static int
ws__roots(struct ws_cli *cli, struct ws_ctx *ws)
{
	const struct ws_config *c = cli->conf;
	struct ws_detect_opts o = {0};
	const char *source = NULL;
	int rc;

	cli->roots = calloc(1, sizeof(*cli->roots));
	if (cli->roots == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if (cli->project_root != NULL)
		source = "--project-root";
	else if (cli->no_detect_root)
		source = "--no-detect-root";
	else if (!c->detect_project_root)
		source = "config";
	if (source != NULL) {
		rc = ws_detect_fixed(ws->anchors[0].real, cli->project_root,
				     cli->roots);
		if (rc < 0)
			return rc;
		if (cli->verbose)
			ws__logkv("INFO", "project detection skipped", "source",
				  source, "project_root", cli->roots->project_root);
		return 0;
	}
	o.markers = (const char *const *)c->markers;
	o.nmarkers = c->nmarkers;
	o.probe = ws__probe_not_pending;
	rc = cli->rem_conf != NULL ?
		     ws__detect_remembered(cli->rem, ws->anchors[0].real, &o,
						   cli->roots) :
		     ws_detect(ws->anchors[0].real, &o, cli->roots);
	if (rc < 0 || !cli->verbose)
		return rc;
	ws__logkv("INFO", "project detection", "project_root",
		  cli->roots->project_root, "git_root", cli->roots->git_root);
	if (cli->roots->stopped_at != NULL)
		ws__logkv("WARN", "project detection stopped at a directory it cannot read",
			  "dir", cli->roots->stopped_at, NULL, NULL);
	if (cli->roots->marker == NULL && cli->roots->git_root == NULL)
		fprintf(stderr, "WARN project detection found no markers, "
			"using workspace as project_root\n");
	return 0;
}

/* Load the policy spec names, with the variables of the roots. */
static int
ws__policy(struct ws_cli *cli, struct ws_ctx *ws, const char *spec)
{
	struct ws_policy *pol = NULL;
	int rc;

	cli->vars = calloc(1, sizeof(*cli->vars));
	if (cli->vars == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	ws_vars_init(cli->vars);
	if ((rc = ws_vars_set(cli->vars, "PROJECT_ROOT", cli->roots->project_root)) < 0 ||
	    (rc = ws_vars_set(cli->vars, "GIT_ROOT", cli->roots->git_root)) < 0 ||
	    (rc = ws_vars_set(cli->vars, "WORKSPACE", ws->anchors[0].real)) < 0)
		return rc;
	rc = 1;
	if (cli->rem_conf != NULL && !cli->verbose && !cli->want_roots)
		rc = ws__pol_remembered(cli, spec, cli->vars, &pol);
	if (rc == 1)
		rc = ws_policy_load(spec, cli->conf->policies_dir, cli->vars, &pol);
	if (rc < 0)
		return rc;
	ws->policy = pol;
	if ((rc = ws_ctx_guard(ws, ws_policy_path(pol))) < 0)
		return rc;
	if (ws_policy_strict(pol))
		ws->flags |= WS_STRICT;
	if (cli->verbose) {
		for (size_t i = 0; i < cli->vars->nused; i++)
			ws__logkv("DEBUG", "expanded policy variable", "var",
				  cli->vars->used[i].name,
				  cli->vars->used[i].fallback ? "fallback" : "value",
				  cli->vars->used[i].value);
		ws__logkv("INFO", "policy loaded", "name", ws_policy_name(pol),
			  "file", ws_policy_path(pol));
	}
	/*
	 * The y/N prompt can be answered by whatever writes to the
	 * terminal, an agent running the tool under script(1) included: it
	 * is on only when the configuration asks for it ("approve": "tty"),
	 * never inside wsrun (WS_SANDBOX), and only in plain mode on a
	 * terminal.  Otherwise approval is the harness's: APPROVAL_REQUIRED.
	 */
	if (ws_call_current()->approver != NULL) {
		ws_policy_set_hooks(pol, cli->verbose ? ws__log : NULL,
				    ws_call_current()->approver,
				    ws_call_current()->approver_arg);
		return 0;
	}
	ws_policy_set_hooks(pol, cli->verbose ? ws__log : NULL,
			    cli->conf->approve_tty && getenv("WS_SANDBOX") == NULL &&
					    !cli->json && isatty(STDIN_FILENO) &&
					    isatty(STDERR_FILENO)
				    ? ws__prompt : NULL,
			    cli);
	return 0;
}

/*
 * Guard what decides how wstools behaves, so that an agent cannot write
 * itself a new configuration or policy: the places a configuration is
 * read from (whether one is there or not), the policy directories.  Only
 * strings here; they are resolved on the first check of a change.
 */
static int
ws__guard_config(struct ws_cli *cli, struct ws_ctx *ws)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *p = NULL;
	int rc = 0;

	if (cli->config != NULL && cli->config[0] != '\0')
		rc = ws_ctx_guard(ws, cli->config);
	if (rc == 0 && xdg != NULL && xdg[0] == '/')
		p = ws_path_join(xdg, "wstools");
	else if (rc == 0 && home != NULL && home[0] == '/')
		p = ws_path_join(home, ".config/wstools");
	if (rc == 0 && p != NULL)
		rc = ws_ctx_guard(ws, p);
	free(p);
	if (rc == 0)
		rc = ws_ctx_guard(ws, "/etc/wstools");
	if (rc == 0 && cli->conf->path != NULL)
		rc = ws_ctx_guard(ws, cli->conf->path);
	if (rc == 0 && cli->conf->policies_dir != NULL)
		rc = ws_ctx_guard(ws, cli->conf->policies_dir);
	if (rc == 0)
		rc = ws_ctx_guard(ws, WS_POLICIES_INSTALLED);
	if (rc == 0)
		rc = ws_ctx_guard(ws, WS_POLICIES_SOURCE);
	return rc;
}

/*
 * The configuration's limits become the defaults of the tool options of
 * the same name (max_bytes is --max-bytes).  A flag given by the person
 * or script running the tool wins; a value from --args, chosen by a
 * model, is held to the limit (0, "unlimited", included).
 */
static void
ws__apply_limits(struct ws_cli *cli)
{
	const struct ws_limits *l = &cli->conf->limits;
	const struct {
		const char *opt;
		long long v;
	} map[] = {
		{"max-bytes", l->max_bytes},	   {"max-entries", l->max_entries},
		{"max-results", l->max_results},   {"max-filesize", l->max_filesize},
		{"max-output", l->max_output},	   {"timeout", l->timeout},
		{"time-budget", l->time_budget},   {"scan-bytes", l->scan_bytes},
		{"scan-time", l->scan_time},
	};

	for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++) {
		if (map[k].v < 0)
			continue;
		for (size_t i = 0; i < cli->tool->nopts; i++) {
			struct ws_optval *v = &cli->vals[i];

			/* Seconds options hold milliseconds. */
			long long lim = cli->tool->opts[i].type == WS_OPT_SECONDS ?
					map[k].v * 1000 : map[k].v;

			if ((cli->tool->opts[i].type != WS_OPT_INT &&
			     cli->tool->opts[i].type != WS_OPT_SECONDS &&
			     cli->tool->opts[i].type != WS_OPT_BYTES) ||
			    strcmp(cli->tool->opts[i].name, map[k].opt) != 0)
				continue;
			if (v->set && !(v->from_args && lim > 0 &&
					(v->i == 0 || v->i > lim)))
				continue;
			v->set = true;
			v->i = lim;
		}
	}
}

/*
 * Whether the audit log's name real lies in the workspace or a mount:
 * WS_EINVALID_ARGUMENT then, as for the history's state directory.  The
 * log is guarded only on the calls that name it, so inside, a call or a
 * command without --audit could rewrite it (ftu12 01).  Compared by name
 * (a workspace of "/" aside): a bind mount that shows the workspace
 * elsewhere is not caught, but no system call is added to every audited
 * call.
 */
int
ws_audit_place_check(const struct ws_ctx *ws, const char *path, const char *real)
{
	for (size_t i = 0; i < ws->nanchors; i++) {
		const struct ws_anchor *an = &ws->anchors[i];
		const char *x = getenv("XDG_STATE_HOME"), *h = getenv("HOME");
		char *st = NULL, *norm = NULL;
		bool st_inside;

		if (strcmp(an->real, "/") == 0 ||
		    !ws_path_within(an->real, real, NULL))
			continue;
		/*
		 * The usual place, the state directory's, is no advice where
		 * the workspace holds it too (HOME as the workspace, ftu13
		 * 16): the hint named the very place just refused.
		 */
		if (x != NULL && x[0] == '/')
			st = ws_path_join(x, "wstools");
		else if (h != NULL && h[0] == '/')
			st = ws_path_join(h, ".local/state/wstools");
		st_inside = st == NULL ||
			    ws_path_normalize(st, WS_NORM_CLAMP, &norm) < 0 ||
			    ws_path_within(an->real, norm, NULL);
		if (i == 0)
			ws_error_set(WS_EINVALID_ARGUMENT, path,
				     "the audit log lies inside the workspace "
				     "%s: a call or command not given this log "
				     "could rewrite it", an->real);
		else
			ws_error_set(WS_EINVALID_ARGUMENT, path,
				     "the audit log lies inside the mount %s "
				     "(%s): a call or command not given this log "
				     "could rewrite it", an->vprefix, an->real);
		if (!st_inside)
			ws_error_set_hint("put it outside, e.g. %s/audit.log", st);
		else if (st != NULL)
			ws_error_set_hint("put it outside %s, which holds the "
					  "state directory %s too: e.g. in a "
					  "directory of its own under /var/log",
					  an->real, st);
		else
			ws_error_set_hint("put it outside %s: e.g. in a "
					  "directory of its own under /var/log",
					  an->real);
		free(norm);
		free(st);
		return WS_EINVALID_ARGUMENT;
	}
	return 0;
}

/*
 * Open the call's audit log (--audit, WS_AUDIT, the configuration's
 * "audit") before anything is decided, so that a log that cannot be
 * written fails the call before it changes anything; and guard it as
 * wstools' own, so that no tool (and no wsrun command) rewrites it.
 */
/*
 * A relative --audit, WS_AUDIT or --state-dir made absolute against the
 * current directory, as a shell user means it and as wstools audit
 * --verify FILE takes it (ftu13 11); *out is malloc'd, NULL for an
 * absolute name.  The configuration file's names stay absolute only: a
 * name there relative to wherever a tool happens to start would move.
 * Errors: WS_EINVALID_ARGUMENT (the configuration's, or no current
 * directory), WS_ENOMEM.
 */
int
ws_cli_cwd_name(const char *name, const char *what, char **out)
{
	char cwd[PATH_MAX], *j;
	int rc;

	*out = NULL;
	if (name[0] == '/')
		return 0;
	if (name[0] == '\0')
		return ws_error_set(WS_EINVALID_ARGUMENT, name, "%s is empty", what);
	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		ws_error_set(WS_EINVALID_ARGUMENT, name, "%s is a relative name, "
			     "and the current directory is unknown (%s)", what,
			     strerror(errno));
		return ws_error_set_hint("give an absolute name");
	}
	if ((j = ws_path_join(cwd, name)) == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	rc = ws_path_normalize(j, WS_NORM_CLAMP, out);
	free(j);
	return rc < 0 ? ws_error_last_code() : 0;
}

/*
 * ws_cli_cwd_name() for a name from the command line or the environment;
 * the configuration file's names stay absolute only: a name there
 * relative to wherever a tool happens to start would move.
 */
static int
ws__cwd_name(const char *name, bool from_config, const char *what,
	     const char *key, char **out)
{
	*out = NULL;
	if (from_config && name[0] != '/') {
		ws_error_set(WS_EINVALID_ARGUMENT, name, "%s must be an absolute "
			     "name in the configuration file", what);
		return ws_error_set_hint("write \"%s\" as an absolute name", key);
	}
	return ws_cli_cwd_name(name, what, out);
}

static int ws__audit_at(struct ws_cli *cli, struct ws_ctx *ws, const char *path);

static int
ws__audit(struct ws_cli *cli, struct ws_ctx *ws)
{
	const char *path = ws_audit_path(cli->audit, cli->conf->audit);
	char *abs = NULL;
	int rc;

	if (path == NULL)
		return 0;
	if ((rc = ws__cwd_name(path, path == cli->conf->audit, "the audit log",
			       "audit", &abs)) < 0)
		return rc;
	rc = ws__audit_at(cli, ws, abs != NULL ? abs : path);
	free(abs);
	return rc;
}

static int
ws__audit_at(struct ws_cli *cli, struct ws_ctx *ws, const char *path)
{
	int rc;

	/* By its spelling before it is made, then by its real name where
	 * a link was on the way. */
	{
		char *norm = NULL;

		if (ws_path_normalize(path, WS_NORM_CLAMP, &norm) < 0)
			return ws_error_last_code();
		rc = ws_audit_place_check(ws, path, norm);
		free(norm);
		if (rc < 0)
			return rc;
	}
	rc = ws_audit_open(path, cli->tool->tool, cli->conf->audit_best_effort,
			   &cli->audit_log);
	if (rc < 0)
		return rc;
	if (ws_audit_writable(cli->audit_log) && !ws_audit_plain(cli->audit_log)) {
		char *real = NULL;

		if (ws_canonical_path(path, &real) == 0)
			rc = ws_audit_place_check(ws, path, real);
		if (rc < 0) {
			/* Nothing more goes into it, not this refusal's
			 * line either, and a log this call made is gone
			 * again (review21 03). */
			ws_audit_discard(cli->audit_log);
			cli->audit_log = NULL;
		}
		free(real);
		if (rc < 0)
			return rc;
	}
	ws->audit = cli->audit_log;
	ws_audit_set_approver(ws->audit, ws_call_current()->approver != NULL ? "elicitation" : "tty");
	/* A log that is open is a regular file, its name its own. */
	return ws_audit_writable(ws->audit) ?
		       ws_ctx_guard_file(ws, path, ws_audit_plain(ws->audit)) :
		       ws_ctx_guard(ws, path);
}

/*
 * The history (ws/history.h) for the tools that change files; for every
 * other tool its directory is still guarded, so that no tool and no wsrun
 * command writes into it.
 */
static int ws__history_at(struct ws_cli *cli, struct ws_ctx *ws, const char *base);

static int
ws__history(struct ws_cli *cli, struct ws_ctx *ws)
{
	const char *base = cli->state_dir ? cli->state_dir : cli->conf->state_dir;
	char *abs = NULL;
	int rc;

	if (base != NULL &&
	    (rc = ws__cwd_name(base, cli->state_dir == NULL, "the state directory",
			       "state_dir", &abs)) < 0)
		return rc;
	rc = ws__history_at(cli, ws, abs != NULL ? abs : base);
	free(abs);
	return rc;
}

static int
ws__history_at(struct ws_cli *cli, struct ws_ctx *ws, const char *base)
{
	const struct ws_config *c = cli->conf;
	struct ws_hist_bounds b = {
		c->hist_max_bytes >= 0 ? c->hist_max_bytes : WS_HIST_MAX_BYTES,
		c->hist_max_age >= 0 ? c->hist_max_age : WS_HIST_MAX_AGE,
		c->hist_max_file >= 0 ? c->hist_max_file : WS_HIST_MAX_FILE,
	};
	const char *fe = getenv("WS_FRONTEND");
	char *dir;
	int rc;

	/*
	 * Where runs publish the configuration places they may create
	 * (ws/pending.h) is in the default state directory, guarded with
	 * it below; one named elsewhere leaves it to be guarded here.
	 */
	if (base != NULL && (dir = ws_pending_dir()) != NULL) {
		rc = ws_ctx_guard(ws, dir);
		free(dir);
		if (rc < 0)
			return rc;
	}
	if (cli->want_history && !cli->no_history && c->history)
		return ws_hist_open(ws, base, &b, cli->tool->tool,
				    ws_call_current()->approver != NULL ? "mcp"
				    : fe ? fe : "cli");
	/* Only the string: nothing is made for a call that records nothing. */
	{
		char *key = ws_hist_root_key(ws);

		if (key == NULL)
			return ws_error_last_code();
		if (cli->rem_conf != NULL)
			dir = ws__hist_dir_remembered(cli->rem, base, key);
		else
			dir = ws_hist_dir(base, key);
		free(key);
	}
	if (dir == NULL)
		return 0;
	rc = ws_hist_guard(ws, dir);
	free(dir);
	return rc;
}

const char *
ws_cli_workspace_from(const struct ws_cli *cli)
{
	const char *f = cli->workspace_from;

	if (f == NULL)
		return "the current directory; WS_ROOT or --workspace to choose";
	if (strcmp(f, "server") == 0)
		return "the server's: its DIR, else the client's first root";
	return f;
}

char *
ws_cli_workspace_note(const struct ws_cli *cli)
{
	const struct ws_roots *r = cli->roots;
	const char *above = NULL, *found = ".git";
	char *note;

	/* A workspace someone chose is theirs; detection off finds none. */
	if (cli->workspace_from != NULL || r == NULL || !r->detected ||
	    r->workspace == NULL)
		return NULL;
	if (r->project_root != NULL && strcmp(r->project_root, r->workspace) != 0 &&
	    ws_path_within(r->project_root, r->workspace, NULL)) {
		above = r->project_root;
		if (r->marker != NULL)
			found = r->marker;
	} else if (r->git_root != NULL && strcmp(r->git_root, r->workspace) != 0) {
		above = r->git_root;
	}
	if (above == NULL)
		return NULL;
	if (asprintf(&note, "the current directory is below the project root "
		     "%s (%s there): to work on the whole project, run from "
		     "there or say --workspace %s (or WS_ROOT=%s)", above, found,
		     above, above) < 0)
		return NULL;
	return note;
}

int
ws_cli_open(struct ws_cli *cli, struct ws_ctx *ws)
{
	unsigned flags = 0;
	const char *spec;
	int rc;

	if (cli->strict)
		flags |= WS_STRICT;
	if (cli->allow_outside)
		flags |= WS_ALLOW_OUTSIDE;
	/* The configuration costs one failed open() when there is none. */
	cli->rem = ws_call_current()->session;
	rc = cli->rem != NULL ? ws__conf_remembered(cli) : 1;
	if (rc < 0)
		return rc;
	if (rc == 1) {
		cli->conf = calloc(1, sizeof(*cli->conf));
		if (cli->conf == NULL)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		ws_config_init(cli->conf);
		rc = ws_config_load(cli->conf, cli->config);
		if (rc < 0)
			return rc;
	}
	ws__apply_limits(cli);
	/* Remembered: the mounts come with it (they are added below else). */
	rc = cli->rem_conf != NULL ? ws__ws_remembered(cli, ws, flags) : 1;
	if (rc == 1)
		rc = ws_ctx_open(ws, cli->workspace, flags);
	if (rc < 0)
		return rc;
	/* A changing call waits for a command's run and clean-up to end. */
	if (cli->changes && (rc = ws_ctx_wait_runs(ws)) < 0)
		return rc;
	if (cli->verbose) {
		char *q = ws_log_quote(ws->anchors[0].real);

		fprintf(stderr, "INFO workspace: %s (%s)\n",
			q ? q : ws->anchors[0].real, ws_cli_workspace_from(cli));
		free(q);
	}
	ws->approve = cli->approve;
	rc = ws_ctx_set_detection(ws, (const char *const *)cli->conf->markers,
				  cli->conf->nmarkers,
				  cli->project_root != NULL || cli->no_detect_root ||
					  !cli->conf->detect_project_root);
	if (rc < 0)
		return rc;
	if (cli->conf->guarded_set &&
	    (rc = ws_ctx_set_guarded(ws, (const char *const *)cli->conf->guarded,
				     cli->conf->nguarded)) < 0)
		return rc;
	if ((rc = ws__guard_config(cli, ws)) < 0)
		return rc;
	if ((rc = ws__history(cli, ws)) < 0)
		return rc;
	/* Mounts: the flags, else WS_MOUNTS, else the configuration's. */
	if (cli->rem_ws != NULL) {
		/* Opened with the workspace (ws__ws_remembered()). */
	} else if (cli->nmounts > 0 || ws_call_current()->nmounts > 0) {
		const struct ws_call *call = ws_call_current();

		for (size_t i = 0; i < cli->nmounts; i++)
			if ((rc = ws_ctx_add_mount(ws, cli->mounts[i])) < 0)
				return rc;
		for (size_t i = 0; i < call->nmounts; i++)
			if ((rc = ws_ctx_add_mount_dir(ws, call->mounts[i].vprefix,
						       call->mounts[i].dir,
						       call->mounts[i].ro)) < 0)
				return rc;
	} else if (cli->env_mounts != NULL && cli->env_mounts[0] != '\0') {
		if ((rc = ws_ctx_add_mounts(ws, cli->env_mounts)) < 0)
			return rc;
	} else {
		for (size_t i = 0; i < cli->conf->nmounts; i++)
			if ((rc = ws_ctx_add_mount(ws, cli->conf->mounts[i])) < 0)
				return rc;
	}
	/* With the mounts, which the log may not lie in either. */
	if ((rc = ws__audit(cli, ws)) < 0)
		return rc;
	if (cli->allow_outside)
		fprintf(stderr,
			"%s: warning: --allow-outside: the workspace boundary is OFF\n",
			cli->tool->prog);
	/*
	 * The policy: --policy, else WS_POLICY, else the configuration's
	 * default; an empty value means none.  Without one, nothing below
	 * runs: no detection, no PCRE2.
	 */
	spec = cli->policy != NULL ? cli->policy : cli->conf->policy_default;
	if (spec != NULL && spec[0] == '\0')
		spec = NULL;
	if (spec != NULL || cli->want_roots || cli->verbose) {
		if ((rc = ws__roots(cli, ws)) < 0)
			return rc;
	}
	if (cli->verbose) {
		char *note = ws_cli_workspace_note(cli);

		if (note != NULL)
			fprintf(stderr, "INFO note: %s\n", note);
		free(note);
	}
	if (spec != NULL && (rc = ws__policy(cli, ws, spec)) < 0)
		return rc;
	return 0;
}
