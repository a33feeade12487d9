/*
 * wsls - list a directory of the workspace (LLM tool list_directory).
 *
 * Each PATH is resolved with ws_resolve(); a directory is then read
 * through the descriptor ws_res_open() gives, by the libws walker
 * (ws/walk.h), which never follows a symlink and never opens a path by
 * its name again.  Mounts are listed where they are mounted.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws/cli.h"
#include "ws/config.h"
#include "ws/error.h"
#include "ws/json.h"
#include "ws/policy.h"
#include "ws/resolve.h"
#include "ws/walk.h"

enum { O_ALL, O_LONG, O_RECURSIVE, O_DEPTH, O_SORT, O_MAX_ENTRIES, O_COUNT };

static const struct ws_opt opts[O_COUNT] = {
	[O_ALL] = {"all", 'a', WS_OPT_FLAG, NULL,
		   "include entries whose names start with \".\" (mounts too)", 0},
	[O_LONG] = {"long", 'l', WS_OPT_FLAG, NULL,
		    "plain long format: mode, size, mtime, name, -> target", 0},
	[O_RECURSIVE] = {"recursive", 'R', WS_OPT_FLAG, NULL,
			 "list subdirectories recursively, at any depth "
			 "(symlinks are never followed)", 0},
	[O_DEPTH] = {"depth", 0, WS_OPT_INT, "N",
		     "levels to list: 1 (default) is the directory's own "
		     "entries, 2 adds theirs, ...", 0},
	[O_SORT] = {"sort", 0, WS_OPT_STR, "name|size|mtime",
		    "order in each directory: name (default, byte order), "
		    "size (largest first) or mtime (newest first)", 0},
	[O_MAX_ENTRIES] = {"max-entries", 0, WS_OPT_INT, "N",
			   "stop after N entries per path (JSON default 1000, "
			   "plain default unlimited; 0 = unlimited)", 0},
};

static const struct ws_tool tool = {
	.prog = "wsls",
	.tool = "list_directory",
	.description = "List the entries of a workspace directory (name, path, "
		       "type, size, mtime, mode; symlink targets), optionally "
		       "recursively.  Paths are virtual: / is the workspace root.",
	.usage = "wsls [OPTION]... [PATH]...",
	.pos_name = "path",
	.pos_help = "directory (or file) to list; default \"/\", the workspace root",
	.pos_kind = WS_POS_ANY,
	.opts = opts,
	.nopts = O_COUNT,
};

/* Plain mode sorts by name by default, up to this many entries per
 * directory; a larger directory is streamed in directory order so that
 * memory stays bounded (see wsls(1)). */
#define WSLS_SORT_MAX 65536
#define WSLS_MAX_ERRORS 100 /* errors kept for the JSON "errors" array */

struct wsls_err {
	char *path;
	int code;
	char *msg;
};

/* The state of one wsls run. */
struct wsls {
	struct ws_cli *cli;
	struct ws_ctx *ws;
	struct ws_jw jw;
	bool json, lng, headers, full_paths, explicit_sort;
	bool tty;		/* stdout is a terminal: control bytes as "?" */
	long long max;		/* 0: unlimited */
	int depth;		/* 1: the entries only; 0: unlimited */
	/* Per PATH. */
	long long total;
	bool truncated;
	bool printed;		/* plain: something is on stdout already */
	struct wsls_err errs[WSLS_MAX_ERRORS];
	size_t nerrs, nerrs_all;
	size_t hidden;		/* entries the policy left out */
	size_t exhausted;	/* directories not opened: out of descriptors */
};

/* ------------------------------------------------------------------ */
/* Formatting                                                          */

/* ls -l's mode string, "drwxr-xr-x". */
static void
mode_string(mode_t m, char out[11])
{
	static const char rwx[] = "rwxrwxrwx";

	out[0] = S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' : S_ISFIFO(m) ? 'p' :
		 S_ISSOCK(m) ? 's' : S_ISCHR(m) ? 'c' : S_ISBLK(m) ? 'b' : '-';
	for (int i = 0; i < 9; i++)
		out[i + 1] = (m & (0400u >> i)) ? rwx[i] : '-';
	if (m & S_ISUID)
		out[3] = (m & S_IXUSR) ? 's' : 'S';
	if (m & S_ISGID)
		out[6] = (m & S_IXGRP) ? 's' : 'S';
	if (m & S_ISVTX)
		out[9] = (m & S_IXOTH) ? 't' : 'T';
	out[10] = '\0';
}

/*
 * The stored target of the symlink (at_fd, at_name), if the policy allows
 * readlink; NULL otherwise (the listing goes on without it).
 */
static char *
link_target(struct wsls *ls, int at_fd, const char *at_name, const char *vpath,
	    const char *real, char *buf, size_t size)
{
	ssize_t n;

	if (ws_check(ls->ws, WS_OP_READLINK, real, vpath) < 0)
		return NULL;
	n = readlinkat(at_fd, at_name, buf, size - 1);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

static int on_error(void *arg, const char *vpath, const char *real, int code);

/*
 * Whether following the symlink at vpath would leave the sandbox.  This
 * resolves the path like any tool would and only reports the answer; no
 * descriptor it yields is used for anything.
 */
static bool
link_outside(struct wsls *ls, const char *vpath, const char *real)
{
	struct ws_res r;
	int rc = ws_resolve(ls->ws, vpath, 0, &r);
	int err = errno;

	if (rc == 0) {
		ws_res_free(&r);
	} else if (rc == WS_EIO_ERROR && (err == EMFILE || err == ENFILE)) {
		/*
		 * Deep in a recursive listing the resolution can run out of
		 * descriptors where the walk did not: its "false" would be no
		 * answer, so the entry is reported and the listing fails as
		 * incomplete, like a directory that could not be opened.
		 */
		errno = err;
		on_error(ls, vpath, real, rc);
	}
	return rc == WS_ESYMLINK_OUTSIDE_WORKSPACE ||
	       rc == WS_EPATH_OUTSIDE_WORKSPACE;
}

/* Write one entry, JSON object or plain line. */
static void
put_entry(struct wsls *ls, const char *name, const char *vpath,
	  const char *real, const struct stat *st, int at_fd,
	  const char *at_name, bool mount)
{
	char tbuf[32], target_buf[PATH_MAX + 1];
	const char *target = NULL;

	ws_walk_time((long long)st->st_mtim.tv_sec, tbuf);
	if (S_ISLNK(st->st_mode) && (ls->json || ls->lng))
		target = link_target(ls, at_fd, at_name, vpath, real, target_buf,
				     sizeof(target_buf));
	if (ls->json) {
		struct ws_jw *jw = &ls->jw;
		char mbuf[16];

		snprintf(mbuf, sizeof(mbuf), "%04o", (unsigned)(st->st_mode & 07777));
		ws_jw_obj(jw);
		ws_jw_kname(jw, "name", name);
		ws_jw_kname(jw, "path", vpath);
		ws_cli_kreal(ls->cli, jw, "real_path", real);
		ws_jw_kstr(jw, "type", ws_walk_type(st->st_mode));
		ws_jw_kint(jw, "size", (long long)st->st_size);
		ws_jw_kstr(jw, "mtime", tbuf);
		ws_jw_kstr(jw, "mode", mbuf);
		if (S_ISLNK(st->st_mode)) {
			if (target != NULL)
				ws_jw_kname(jw, "target", target);
			ws_jw_kbool(jw, "target_outside",
				    link_outside(ls, vpath, real));
		}
		if (mount)
			ws_jw_kbool(jw, "mount", true);
		ws_jw_obj_end(jw);
		return;
	}
	if (ls->lng) {
		char mstr[11];

		mode_string(st->st_mode, mstr);
		printf("%s %9lld %s ", mstr, (long long)st->st_size, tbuf);
	}
	ws_cli_put_text(stdout, ls->full_paths ? ws_cli_show_path(ls->cli, vpath, real)
						: name, ls->tty);
	if (target != NULL) {
		fputs(" -> ", stdout);
		ws_cli_put_text(stdout, target, ls->tty);
	}
	putchar('\n');
	ls->printed = true;
}

/* ------------------------------------------------------------------ */
/* Walker callbacks                                                    */

static int
on_enter(void *arg, const struct ws_walk_dir *d)
{
	struct wsls *ls = arg;

	if (ls->json || !ls->headers)
		return 0;
	/* ls -R: a blank line between sections, a header for each. */
	printf("%s%s:\n", ls->printed ? "\n" : "",
	       ws_cli_show_path(ls->cli, d->vpath, d->real));
	ls->printed = true;
	return 0;
}

static int
on_entry(void *arg, const struct ws_walk_entry *e)
{
	struct wsls *ls = arg;

	if (ls->max > 0 && ls->total >= ls->max) {
		ls->truncated = true;
		return WS_WALK_STOP;
	}
	if (e->dir->unsorted && e->dir->nentries == 1 && !ls->json)
		fprintf(stderr,
			"wsls: %s: more than %d entries: listed in directory "
			"order, unsorted (--sort name sorts them all)\n",
			ws_cli_show_path(ls->cli, e->dir->vpath, e->dir->real),
			WSLS_SORT_MAX);
	ls->total++;
	put_entry(ls, e->name, e->vpath, e->real, &e->st, e->at_fd, e->at_name,
		  e->mount > 0);
	return 0;
}

/* A subdirectory or entry that could not be listed: reported, skipped. */
static int
on_error(void *arg, const char *vpath, const char *real, int code)
{
	struct wsls *ls = arg;
	int err = errno; /* the walker's system error, before anything else */

	(void)real;
	if (code == WS_ENOMEM)
		return code;
	/*
	 * Out of descriptors: the listing goes on but is incomplete for a
	 * reason the user did not ask for, so the exit status will say so
	 * (a race or a policy refusal is part of the answer; this is not).
	 */
	if (err == EMFILE || err == ENFILE)
		ls->exhausted++;
	ls->nerrs_all++;
	if (!ls->json) {
		ws_cli_warn(ls->cli, ws_cli_show_path(ls->cli, vpath, real),
			    ws_error_last(), code);
		return 0;
	}
	if (ls->nerrs < WSLS_MAX_ERRORS) {
		struct wsls_err *e = &ls->errs[ls->nerrs];

		e->path = strdup(vpath);
		e->msg = strdup(ws_error_last());
		e->code = code;
		if (e->path == NULL || e->msg == NULL) {
			free(e->path);
			free(e->msg);
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		}
		ls->nerrs++;
	}
	return 0;
}

static void
errs_clear(struct wsls *ls)
{
	for (size_t i = 0; i < ls->nerrs; i++) {
		free(ls->errs[i].path);
		free(ls->errs[i].msg);
	}
	ls->nerrs = ls->nerrs_all = 0;
	ls->exhausted = 0;
}

/*
 * The walker keeps one descriptor open per level of the tree, so a deep
 * recursive listing can run out of them at the soft limit (often 1024)
 * long before the hard one: raise the soft limit to the hard limit.  Best
 * effort, and only for a recursive listing; a flat one needs a handful.
 */
static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* ------------------------------------------------------------------ */
/* One PATH                                                            */

static const char *
base_name(const char *vpath)
{
	const char *s = strrchr(vpath, '/');

	return s && s[1] ? s + 1 : vpath;
}

/*
 * Everything that can fail before output starts: resolve, ask the policy,
 * open the directory.  *fd is -1 for a non-directory.
 */
static int
prepare(struct wsls *ls, const char *in, struct ws_res *res, int *fd)
{
	int rc;

	*fd = -1;
	rc = ws_resolve(ls->ws, in, 0, res);
	if (rc < 0)
		return rc;
	if (S_ISDIR(res->st.st_mode)) {
		rc = ws_check(ls->ws, WS_OP_LIST, res->real, res->vpath);
		if (rc == 0)
			rc = ws_res_open(res, O_RDONLY | O_DIRECTORY, fd);
	} else {
		rc = ws_check(ls->ws, WS_OP_STAT, res->real, res->vpath);
	}
	if (rc < 0) {
		/* Name the path as it was asked for. */
		char *msg = strdup(ws_error_last());

		ws_error_set(rc, in, "%s", msg ? msg : "");
		free(msg);
		ws_res_free(res);
	}
	return rc;
}

/* List one resolved PATH; its JSON object goes into the open array/output. */
static int
list_one(struct wsls *ls, const char *in, struct ws_res *res, int fd,
	 bool multi)
{
	struct ws_walk_opts o;
	int rc = 0;

	ls->total = 0;
	ls->truncated = false;
	ls->hidden = 0;
	errs_clear(ls);
	if (ls->json) {
		ws_jw_obj(&ls->jw);
		if (multi)
			ws_jw_kname(&ls->jw, "input", in);
		ws_jw_kname(&ls->jw, "path", res->vpath);
		ws_cli_kreal(ls->cli, &ls->jw, "real_path", res->real);
		ws_jw_key(&ls->jw, "entries");
		ws_jw_arr(&ls->jw);
	}
	if (fd < 0) {
		/* A file (or FIFO, device...): that one entry, as ls does. */
		ls->total = 1;
		if (ls->json) {
			put_entry(ls, base_name(res->vpath), res->vpath, res->real,
				  &res->st, res->dirfd, res->name, false);
		} else {
			bool fp = ls->full_paths;

			ls->full_paths = true;
			put_entry(ls, base_name(res->vpath), res->vpath, res->real,
				  &res->st, res->dirfd, res->name, false);
			ls->full_paths = fp;
		}
	} else {
		memset(&o, 0, sizeof(o));
		o.ws = ls->ws;
		/* With the boundary off an absolute path is a host path, and
		 * mount prefixes do not apply to it. */
		o.no_mounts = res->anchor == WS_ANCHOR_HOST;
		o.max_depth = ls->depth;
		/* The configuration may cap recursion (limits.max_depth). */
		{
			long long cap = ls->cli->conf->limits.max_depth;

			if (cap > 0 && (o.max_depth == 0 || o.max_depth > cap))
				o.max_depth = (int)cap;
		}
		o.hidden = WS_OPT(ls->cli, O_ALL)->b;
		/*
		 * What the policy would not stat is not shown, only counted:
		 * a listing must not leak the size, mtime and mode of a
		 * denied file, nor the names inside a directory whose
		 * entries are denied.
		 */
		o.policy_stat = true;
		o.nhidden = &ls->hidden;
		o.sort = WS_WALK_NAME;
		if (WS_OPT(ls->cli, O_SORT)->set) {
			const char *s = WS_OPT(ls->cli, O_SORT)->s;

			o.sort = strcmp(s, "size") == 0 ? WS_WALK_SIZE :
				 strcmp(s, "mtime") == 0 ? WS_WALK_MTIME :
				 WS_WALK_NAME;
		}
		/* Only the first max+1 of a directory can ever be shown. */
		if (ls->max > 0)
			o.keep_max = (size_t)ls->max + 1;
		if (!ls->json && !ls->explicit_sort)
			o.sort_max = WSLS_SORT_MAX;
		/* Plain names need no stat(2) per entry, as with ls. */
		o.types_only = !ls->json && !ls->lng;
		o.enter = on_enter;
		o.entry = on_entry;
		o.error = on_error;
		o.arg = ls;
		rc = ws_walk(&o, fd, res->vpath, res->real);
		if (rc == WS_WALK_STOP)
			rc = 0;
	}
	if (ls->json) {
		ws_jw_arr_end(&ls->jw);
		ws_jw_kint(&ls->jw, "total", ls->total);
		ws_jw_kbool(&ls->jw, "truncated", ls->truncated);
		if (ls->hidden > 0)
			ws_jw_kint(&ls->jw, "hidden_by_policy",
				   (long long)ls->hidden);
		if (rc < 0) {
			errno = 0;
			on_error(ls, res->vpath, res->real, rc);
		}
		if (ls->nerrs_all > 0) {
			ws_jw_key(&ls->jw, "errors");
			ws_jw_arr(&ls->jw);
			for (size_t i = 0; i < ls->nerrs; i++) {
				ws_jw_obj(&ls->jw);
				ws_jw_kname(&ls->jw, "path", ls->errs[i].path);
				ws_jw_kstr(&ls->jw, "code",
					   ws_error_name(ls->errs[i].code));
				ws_jw_kstr(&ls->jw, "message", ls->errs[i].msg);
				ws_jw_obj_end(&ls->jw);
			}
			ws_jw_arr_end(&ls->jw);
			if (ls->nerrs_all > ls->nerrs)
				ws_jw_kint(&ls->jw, "errors_total",
					   (long long)ls->nerrs_all);
		}
		ws_jw_obj_end(&ls->jw);
		/* The output has started: a late failure is reported in it. */
		rc = 0;
	} else {
		if (ls->truncated)
			fprintf(stderr,
				"wsls: %s: stopped after %lld entries (--max-entries)\n",
				ws_cli_show_path(ls->cli, res->vpath, res->real),
				ls->max);
		if (ls->hidden > 0)
			fprintf(stderr, "wsls: %s: %zu %s hidden by the policy\n",
				ws_cli_show_path(ls->cli, res->vpath, res->real),
				ls->hidden, ls->hidden == 1 ? "entry" : "entries");
		if (rc < 0)
			ws_cli_warn(ls->cli,
				    ws_cli_show_path(ls->cli, res->vpath, res->real),
				    ws_error_last(), rc);
	}
	if (ls->exhausted > 0 && rc == 0) {
		/*
		 * Directories left out for want of descriptors: the listing
		 * is incomplete for a reason the user did not ask for, so the
		 * PATH fails (IO_ERROR) with what was listed still shown.
		 */
		rc = ws_error_set(WS_EIO_ERROR, res->vpath,
				  "listing incomplete: %zu %s could not be "
				  "opened (too many open files)",
				  ls->exhausted,
				  ls->exhausted == 1 ? "directory" : "directories");
		if (!ls->json)
			ws_cli_warn(ls->cli,
				    ws_cli_show_path(ls->cli, res->vpath, res->real),
				    ws_error_last(), rc);
	}
	errs_clear(ls);
	return rc;
}

/* Check the tool's own options; returns 0 or WS_EINVALID_ARGUMENT. */
static int
check_opts(struct ws_cli *cli)
{
	const struct ws_optval *v;

	v = WS_OPT(cli, O_DEPTH);
	if (v->set && (v->i < 1 || v->i > INT_MAX))
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--depth must be from 1 (the directory's own "
				    "entries) to %d, not %lld", INT_MAX, v->i);
	v = WS_OPT(cli, O_MAX_ENTRIES);
	if (v->set && v->i < 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--max-entries must be 0 (unlimited) or more");
	v = WS_OPT(cli, O_SORT);
	if (v->set && strcmp(v->s, "name") != 0 && strcmp(v->s, "size") != 0 &&
	    strcmp(v->s, "mtime") != 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--sort takes name, size or mtime, not \"%s\"",
				    v->s);
	return 0;
}

int
main(int argc, char **argv)
{
	static const char *const root_only[] = {"/"};
	static char outbuf[1 << 16];
	struct ws_cli cli;
	struct ws_ctx ws = {0};
	struct wsls ls;
	const char *const *paths;
	size_t npaths;
	struct ws_multi envm = {0};
	int rc, first_rc = 0, status = 0;
	bool multi;

	memset(&ls, 0, sizeof(ls));
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	rc = ws_cli_parse(&cli, &tool, argc, argv);
	if (rc < 0)
		goto fail;
	if (ws_cli_print_info(&cli, stdout))
		goto out;
	rc = check_opts(&cli);
	if (rc < 0)
		goto fail;
	rc = ws_cli_open(&cli, &ws);
	if (rc < 0)
		goto fail;

	ls.cli = &cli;
	ls.ws = &ws;
	ls.json = cli.json;
	ls.tty = isatty(STDOUT_FILENO);
	ls.lng = WS_OPT(&cli, O_LONG)->b;
	ls.explicit_sort = WS_OPT(&cli, O_SORT)->set;
	ls.max = WS_OPT(&cli, O_MAX_ENTRIES)->set ? WS_OPT(&cli, O_MAX_ENTRIES)->i :
		 cli.json ? 1000 : 0;
	/* Entries print as names, like ls, unless a path form was asked for. */
	{
		const char *e = getenv("WS_PATHS");

		ls.full_paths = e != NULL && *e != '\0';
		for (int i = 1; i < argc; i++)
			if (strcmp(argv[i], "--paths") == 0 ||
			    strncmp(argv[i], "--paths=", 8) == 0)
				ls.full_paths = true;
	}
	paths = cli.npos > 0 ? cli.pos : root_only;
	npaths = cli.npos > 0 ? cli.npos : 1;
	multi = npaths > 1;
	ls.depth = WS_OPT(&cli, O_DEPTH)->set ? (int)WS_OPT(&cli, O_DEPTH)->i :
		   WS_OPT(&cli, O_RECURSIVE)->b ? 0 : 1;
	ls.headers = multi || ls.depth != 1;
	if (ls.depth != 1)
		raise_nofile();

	if (!multi) {
		struct ws_res res;
		int fd;
		/*
		 * A recursive listing can end incomplete (out of descriptors)
		 * and then fails with what it listed as output, so its JSON
		 * is held until "success" is known, as for several PATHs.  A
		 * flat listing cannot, and streams.
		 */
		bool held = ls.json && ls.depth != 1;

		rc = prepare(&ls, paths[0], &res, &fd);
		if (rc < 0)
			goto fail;
		if (held) {
			rc = ws_cli_multi_begin(&envm, &ls.jw);
			if (rc < 0) {
				if (fd >= 0)
					close(fd);
				ws_res_free(&res);
				goto fail;
			}
		} else if (ls.json) {
			ws_cli_json_begin(&cli, &ls.jw);
		}
		rc = list_one(&ls, paths[0], &res, fd, false);
		if (rc < 0 && held)
			ws_cli_multi_fail(&envm, rc, res.vpath);
		if (fd >= 0)
			close(fd);
		ws_res_free(&res);
		if (held) {
			status = ws_cli_multi_end(&cli, &envm, false);
		} else {
			if (ls.json)
				ws_cli_json_end(&cli, &ls.jw);
			status = rc < 0 ? ws_error_exit_status(rc) : 0;
		}
		goto out;
	}

	if (ls.json) {
		rc = ws_cli_multi_begin(&envm, &ls.jw);
		if (rc < 0)
			goto fail;
		ws_jw_obj(&ls.jw);
		ws_jw_key(&ls.jw, "results");
		ws_jw_arr(&ls.jw);
	}
	for (size_t i = 0; i < npaths; i++) {
		struct ws_res res;
		int fd;

		rc = prepare(&ls, paths[i], &res, &fd);
		if (rc == 0) {
			rc = list_one(&ls, paths[i], &res, fd, true);
			if (fd >= 0)
				close(fd);
			ws_res_free(&res);
		} else if (ls.json) {
			ws_jw_obj(&ls.jw);
			ws_jw_kname(&ls.jw, "input", paths[i]);
			ws_jw_key(&ls.jw, "error");
			ws_jw_obj(&ls.jw);
			ws_jw_kstr(&ls.jw, "code", ws_error_name(rc));
			ws_jw_kstr(&ls.jw, "message", ws_error_last());
			ws_jw_obj_end(&ls.jw);
			ws_jw_obj_end(&ls.jw);
		} else {
			ws_cli_warn(&cli, paths[i], ws_error_last(), rc);
		}
		if (rc < 0) {
			if (first_rc == 0)
				first_rc = rc;
			ws_cli_multi_fail(&envm, rc, paths[i]);
		}
	}
	if (ls.json) {
		ws_jw_arr_end(&ls.jw);
		ws_jw_obj_end(&ls.jw);
		status = ws_cli_multi_end(&cli, &envm, false);
	} else if (first_rc < 0) {
		status = ws_error_exit_status(first_rc);
	}
	goto out;
fail:
	status = ws_cli_fail(&cli, rc);
out:
	status = ws_cli_finish(&cli, status);
	ws_ctx_close(&ws);
	ws_cli_free(&cli);
	return status;
}
