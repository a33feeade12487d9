/*
 * tool_list.c - list_directory (wsls) on the tool table: its options,
 * the listing (ws/list.h: resolved on descriptors, walked without
 * following a symlink, paged), and its entries as plain lines, as JSON
 * under a byte cap, and as the text a model reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws/config.h"
#include "ws/error.h"
#include "ws/json.h"
#include "ws/list.h"
#include "ws/policy.h"
#include "ws/resolve.h"
#include "ws/tool.h"
#include "ws/version.h"
#include "ws/walk.h"

enum {
	O_ALL, O_LONG, O_RECURSIVE, O_DEPTH, O_SORT, O_MAX_ENTRIES, O_OFFSET,
	O_MAX_OUTPUT, O_FIELDS, O_NO_IGNORE, O_EXCLUDE, O_DIRSELF, O_ONE,
	O_NUL, O_TIME, O_SIZE, O_REVERSE, O_HUMAN, O_COUNT
};

static const struct ws_opt opts[O_COUNT] = {
	[O_ALL] = {"all", 'a', WS_OPT_FLAG, NULL,
		   "include entries whose names start with \".\" (mounts too)", 0},
	[O_LONG] = {"long", 'l', WS_OPT_FLAG, NULL,
		    "long format: mode, size, mtime, name, -> target (JSON: "
		    "adds size, mtime, mode and version to each entry)", 0},
	[O_RECURSIVE] = {"recursive", 'R', WS_OPT_FLAG, NULL,
			 "list subdirectories recursively, at any depth "
			 "(symlinks are never followed; .gitignore honoured)", 0},
	[O_DEPTH] = {"depth", 0, WS_OPT_INT, "N",
		     "levels to list: 1 (default) is the directory's own "
		     "entries, 2 adds theirs, ...", 0},
	[O_SORT] = {"sort", 0, WS_OPT_STR, "name|size|mtime",
		    "order in each directory: name (default, byte order), "
		    "size (largest first) or mtime (newest first)", 0},
	[O_MAX_ENTRIES] = {"max-entries", 0, WS_OPT_INT, "N",
			   "stop after N entries per path (JSON default 200, "
			   "plain default unlimited; 0 = unlimited)", 0},
	[O_OFFSET] = {"offset", 0, WS_OPT_INT, "N",
		      "skip the first N entries of the listing (paging: "
		      "give the next_offset of the previous page)", 0},
	[O_MAX_OUTPUT] = {"max-output", 0, WS_OPT_INT, "BYTES",
			  "JSON: end the page before the result exceeds "
			  "BYTES (default 65536; 0 = unlimited)", 0},
	[O_FIELDS] = {"fields", 0, WS_OPT_STR, "LIST",
		      "JSON: the keys of each entry, comma-separated, from "
		      "name, path, real_path, type, size, mtime, mode, "
		      "version, target (default name,path,type,size; -l adds "
		      "mtime,mode,version)", 0},
	[O_NO_IGNORE] = {"no-ignore", 0, WS_OPT_FLAG, NULL,
			 "recursive listings: do not skip .git/ and what "
			 ".gitignore files ignore", 0},
	[O_EXCLUDE] = {"exclude", 0, WS_OPT_LIST, "GLOB",
		       "leave out entries matching GLOB (gitignore syntax: "
		       "a name at any depth, or a path with a /); repeatable", 0},
	[O_DIRSELF] = {"directory", 'd', WS_OPT_FLAG, NULL,
			 "list a directory itself, not its entries (ls -d)", 0},
	[O_ONE] = {"one", '1', WS_OPT_FLAG, NULL,
		   "plain: one name per line (the default; for ls users)",
		   WS_OPT_NOSCHEMA},
	[O_NUL] = {"null", '0', WS_OPT_FLAG, NULL,
		   "plain: end each name with a NUL byte instead of a newline", WS_OPT_NOSCHEMA},
	[O_TIME] = {"time", 't', WS_OPT_FLAG, NULL,
		    "sort by mtime, newest first (--sort mtime)", WS_OPT_NOSCHEMA},
	[O_SIZE] = {"size", 'S', WS_OPT_FLAG, NULL,
		    "sort by size, largest first (--sort size)", WS_OPT_NOSCHEMA},
	[O_REVERSE] = {"reverse", 'r', WS_OPT_FLAG, NULL,
		       "plain: reverse the order within each directory", WS_OPT_NOSCHEMA},
	[O_HUMAN] = {"human-readable", 'h', WS_OPT_FLAG, NULL,
		     "plain -l: sizes as 1.5K, 23M (in a bundle such as -lh; "
		     "-h alone is --help)", WS_OPT_NOSCHEMA},
};

static const struct ws_tool ws__list_cli = {
	.prog = "wsls",
	.tool = "list_directory",
	.description = "List the entries of a workspace directory (name, type, "
		       "symlink target; JSON adds path and size, and the text "
		       "a model reads adds the path when recursive; long adds "
		       "size, mtime, mode and "
		       "a version token), optionally recursively (skipping "
		       ".git and what .gitignore ignores).  Results are paged: "
		       "when truncated, call again with offset set to "
		       "next_offset.  Paths are virtual: / is the workspace root.",
	.help = "List the entries of a workspace directory: name, type and "
		"symlink target (--json adds path and size; -l adds size, "
		"mtime, mode and a version token), or a whole tree with -R "
		"(skipping .git and what .gitignore ignores). A JSON listing "
		"is paged (200 entries): when \"truncated\" is true, run again "
		"with --offset N, N being the next_offset it gives. Paths are "
		"virtual: / is the workspace root.",
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
#define WSLS_JSON_MAX 200   /* JSON --max-entries default */
#define WSLS_JSON_BYTES 65536 /* JSON --max-output default */

/* The keys --fields may name, in the order they are written. */
enum {
	F_NAME = 1 << 0, F_PATH = 1 << 1, F_REAL = 1 << 2, F_TYPE = 1 << 3,
	F_SIZE = 1 << 4, F_MTIME = 1 << 5, F_MODE = 1 << 6,
	F_VERSION = 1 << 7, F_TARGET = 1 << 8,
};

static const struct {
	const char *name;
	unsigned bit;
} fields[] = {
	{"name", F_NAME}, {"path", F_PATH}, {"real_path", F_REAL},
	{"type", F_TYPE}, {"size", F_SIZE}, {"mtime", F_MTIME},
	{"mode", F_MODE}, {"version", F_VERSION}, {"target", F_TARGET},
};

struct wsls_err {
	char *path;
	int code;
	char *msg;
};

/* The state of one wsls run. */
struct wsls {
	struct ws_tcall *c;
	struct ws_cli *cli;
	const char *dir;		/* the listed directory (a model's text) */
	size_t dirlen;
	struct ws_ctx *ws;
	struct ws_jw jw;
	bool json, lng, headers, full_paths, human, nul;
	bool tty;		/* stdout is a terminal: control bytes as "?" */
	unsigned fields;	/* F_* of each JSON entry */
	long long cap;		/* JSON bytes; 0: unlimited */
	long long used;		/* JSON bytes written or reserved so far */
	long long page;		/* entries written for this PATH */
	/*
	 * A page's entries gather here, a comma apart (measured one by
	 * one against the cap), and its text lines for a model, and go out
	 * at the end of the page (flush_page()): one write each, not two
	 * for each entry (issue 20).
	 */
	struct ws_jbuf sbuf, tbuf;
	/* Per PATH. */
	bool printed;		/* plain: something is on stdout already */
	size_t nerrs, nerrs_all;
	/* Last: list_run() zeroes what comes before, errs[0..nerrs) only
	 * is ever read. */
	struct wsls_err errs[WSLS_MAX_ERRORS];
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

/* ls -lh's size: 999, 1.0K, 15K, 2.3M ... (powers of 1024, rounded up). */
static void
human_size(long long n, char out[48])
{
	static const char units[] = "KMGTPE";
	double v = (double)n;
	int u = -1;

	if (n < 1024) {
		snprintf(out, 48, "%lld", n);
		return;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (v < 10) {
		long long t = (long long)(v * 10);

		t += (double)t < v * 10; /* round up, as ls does */
		if (t < 100) {
			snprintf(out, 48, "%lld.%lld%c", t / 10, t % 10, units[u]);
			return;
		}
	}
	{
		long long w = (long long)v;

		w += (double)w < v;
		snprintf(out, 48, "%lld%c", w, units[u]);
	}
}

/* Room for n more bytes in b (false: out of memory, b->oom is set). */
static inline bool
buf_room(struct ws_jbuf *b, size_t n)
{
	return (!b->oom && b->n + n < b->cap) || ws_jbuf_reserve(b, n);
}

/* A string literal into b, after buf_room(): the copy of a known size. */
#define BUF_LIT(b, s) \
	(memcpy((b)->p + (b)->n, (s), sizeof(s) - 1), (b)->n += sizeof(s) - 1)

/*
 * A name or path after its key as ws_jw_kname() writes them: the string,
 * then key (",\"name\":") made ",\"name_bytes\":" and the exact bytes
 * in base64 when it is not UTF-8.
 */
static void
buf_name(struct ws_jbuf *b, const char *key, size_t klen, const char *s)
{
	size_t n = strlen(s);

	if (!ws_jbuf_text(b, s, n)) {
		ws_jbuf_put(b, key, klen - 2);
		ws_jbuf_lit(b, "_bytes\":");
		ws_jbuf_base64(b, s, n);
	}
}

/*
 * One entry with the default keys (name, path, type, size, or fewer of
 * them; target, which is only a symlink's) into the page's buffer, the
 * same bytes as json_entry() writes, without a writer call for each key:
 * the most of a listing's cost that was left (issue 20).  False: the
 * entry needs json_entry().
 */
static bool
buf_entry(const struct wsls *ls, struct ws_jbuf *b, const struct ws_list_entry *e)
{
	unsigned f = ls->fields;
	bool first = true;	/* no comma before the first key */

	/* A target is only written for a symlink. */
	if (!S_ISLNK(e->st->st_mode))
		f &= ~(unsigned)F_TARGET;
	if ((f & ~(unsigned)(F_NAME | F_PATH | F_TYPE | F_SIZE)) != 0 || e->mount ||
	    ((f & F_NAME) && e->name == NULL) || ((f & F_PATH) && e->vpath == NULL))
		return false;
	/* Out of memory: the caller sees b->oom. */
	if (!buf_room(b, 16))
		return true;
	BUF_LIT(b, "{");
	if (f & F_NAME) {
		BUF_LIT(b, "\"name\":");
		buf_name(b, ",\"name\":", 8, e->name);
		first = false;
	}
	if (!buf_room(b, 40))
		return true;
	if (f & F_PATH) {
		if (first)
			BUF_LIT(b, "\"path\":");
		else
			BUF_LIT(b, ",\"path\":");
		buf_name(b, ",\"path\":", 8, e->vpath);
		first = false;
		if (!buf_room(b, 40))
			return true;
	}
	if (f & F_TYPE) {
		const char *t = ws_walk_type(e->st->st_mode);
		size_t tl = strlen(t);	/* "symlink" at most */

		if (first)
			BUF_LIT(b, "\"type\":\"");
		else
			BUF_LIT(b, ",\"type\":\"");
		memcpy(b->p + b->n, t, tl);
		b->n += tl;
		BUF_LIT(b, "\"");
		first = false;
	}
	if (f & F_SIZE) {
		if (first)
			BUF_LIT(b, "\"size\":");
		else
			BUF_LIT(b, ",\"size\":");
		ws_jbuf_int(b, (long long)e->st->st_size);
		if (!buf_room(b, 2))
			return true;
	}
	BUF_LIT(b, "}");
	b->p[b->n] = '\0';
	return true;
}

/* One entry as a JSON object, to jw. */
static void
json_entry(const struct wsls *ls, struct ws_jw *jw, const struct ws_list_entry *e)
{
	const struct stat *st = e->st;
	unsigned f = ls->fields;
	char buf[32];

	ws_jw_obj(jw);
	if (f & F_NAME)
		ws_jw_kname(jw, "name", e->name);
	if (f & F_PATH)
		ws_jw_kname(jw, "path", e->vpath);
	/* A mount's real directory is worth its bytes: it says where the
	 * mount comes from. */
	if ((f & F_REAL) || (e->mount && (f & F_PATH)))
		ws_cli_kreal(ls->cli, jw, "real_path", e->real);
	if (f & F_TYPE)
		ws_jw_kstr(jw, "type", ws_walk_type(st->st_mode));
	if (f & F_SIZE)
		ws_jw_kint(jw, "size", (long long)st->st_size);
	if (f & F_MTIME) {
		ws_walk_time((long long)st->st_mtim.tv_sec, buf);
		ws_jw_kstr(jw, "mtime", buf);
	}
	if (f & F_MODE) {
		snprintf(buf, sizeof(buf), "%04o", (unsigned)(st->st_mode & 07777));
		ws_jw_kstr(jw, "mode", buf);
	}
	if ((f & F_VERSION) && S_ISREG(st->st_mode))
		ws_jw_kstr(jw, "version", ws_version_token(st, buf));
	if ((f & F_TARGET) && S_ISLNK(st->st_mode)) {
		if (e->target != NULL)
			ws_jw_kname(jw, "target", e->target);
		ws_jw_kbool(jw, "target_outside", e->target_outside);
	}
	if (e->mount) {
		ws_jw_kbool(jw, "mount", true);
		ws_jw_kbool(jw, "read_only", e->read_only);
	}
	ws_jw_obj_end(jw);
}

/*
 * A model's text: each entry by its path from the listed directory (its
 * name in a flat listing, "a/x.txt" in a recursive one, whose order is
 * the walk's), so that which x.txt is where is plain without a tree to
 * reconstruct; a directory ends in "/".
 */
/* Write out the page's text lines gathered so far. */
static int
text_flush(struct wsls *ls)
{
	if (ls->tbuf.oom)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	if (ls->tbuf.n > 0)
		fwrite_unlocked(ls->tbuf.p, 1, ls->tbuf.n, ls->c->text);
	ls->tbuf.n = 0;
	return 0;
}

static void
text_entry(struct wsls *ls, const struct ws_list_entry *e)
{
	FILE *f = ls->c->text;
	const char *name = e->name;

	if (ls->c->mode != WS_TCALL_MODEL)
		return;
	/* An entry of the listed directory itself is its name. */
	if ((e->depth != 1 || name == NULL) && e->vpath != NULL &&
	    strncmp(e->vpath, ls->dir, ls->dirlen) == 0 &&
	    e->vpath[ls->dirlen] == '/' && e->vpath[ls->dirlen + 1] != '\0')
		name = e->vpath + ls->dirlen + 1;
	else if (name == NULL)
		name = e->vpath;
	if (name == NULL)
		name = "?";
	if (!(ls->fields & F_TARGET) || !S_ISLNK(e->st->st_mode)) {
		/* The line of most entries in one write: a name with no
		 * byte to escape, "/" for a directory, the newline, straight
		 * into the page's text. */
		struct ws_jbuf *b = &ls->tbuf;
		size_t n = 0;

		while ((unsigned char)name[n] >= 0x20 && name[n] != 0x7f &&
		       name[n] != '\\')
			n++;
		if (name[n] == '\0' && buf_room(b, n + 2)) {
			memcpy(b->p + b->n, name, n);
			b->n += n;
			if ((ls->fields & F_TYPE) && S_ISDIR(e->st->st_mode))
				b->p[b->n++] = '/';
			b->p[b->n++] = '\n';
			b->p[b->n] = '\0';
			return;
		}
	}
	/* The lines before this one first. */
	(void)text_flush(ls);
	ws_tcall_put_name(f, name);
	if ((ls->fields & F_TYPE) && S_ISDIR(e->st->st_mode))
		fputc('/', f);
	if ((ls->fields & F_TARGET) && S_ISLNK(e->st->st_mode) && e->target != NULL) {
		fputs(" -> ", f);
		ws_tcall_put_name(f, e->target);
	}
	fputc('\n', f);
}

/*
 * Write one entry, JSON object or plain line.  Under the JSON byte cap
 * the entry is first written to memory to measure it, and refused
 * (WS_LIST_FULL) if the result would pass the cap; the first entry of a
 * page always goes in, so that paging always moves on.
 */
static int
put_entry(struct wsls *ls, const struct ws_list_entry *e, bool full_path)
{
	if (ls->json) {
		struct ws_jw tmp;
		long long n;
		size_t start, from;

		if (ls->cap == 0) {
			json_entry(ls, &ls->jw, e);
			ls->page++;
			text_entry(ls, e);
			return 0;
		}
		/* Into the page's buffer, not a memory stream to rewind and
		 * flush: what each entry of a listing spent most on. */
		start = ls->sbuf.n;
		if (start > 0)
			ws_jbuf_lit(&ls->sbuf, ",");
		from = ls->sbuf.n;
		if (!buf_entry(ls, &ls->sbuf, e)) {
			ws_jw_init_buf(&tmp, &ls->sbuf);
			json_entry(ls, &tmp, e);
		}
		if (ls->sbuf.oom)
			return ws_error_set(WS_ENOMEM, NULL, "out of memory");
		n = (long long)(ls->sbuf.n - from);
		if (ls->page > 0 && ls->used + n + 1 > ls->cap) {
			ls->sbuf.n = start;
			ls->sbuf.p[start] = '\0';
			return WS_LIST_FULL;
		}
		ls->used += n + 1;
		ls->page++;
		text_entry(ls, e);
		return 0;
	}
	if (ls->lng) {
		char mstr[11], tbuf[32], sbuf[48];

		mode_string(e->st->st_mode, mstr);
		ws_walk_time((long long)e->st->st_mtim.tv_sec, tbuf);
		if (ls->human) {
			human_size((long long)e->st->st_size, sbuf);
			fprintf(ws_out(), "%s %5s %s ", mstr, sbuf, tbuf);
		} else {
			fprintf(ws_out(), "%s %9lld %s ", mstr, (long long)e->st->st_size, tbuf);
		}
	}
	ws_cli_put_text(ws_out(), full_path ? ws_cli_show_path(ls->cli, e->vpath, e->real)
					  : e->name, ls->tty);
	if (e->target != NULL && ls->lng) {
		fputs(" -> ", ws_out());
		ws_cli_put_text(ws_out(), e->target, ls->tty);
	}
	ws_out_putc(ls->nul ? '\0' : '\n');
	ls->printed = true;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Listing callbacks                                                   */

static int
on_enter(void *arg, const struct ws_walk_dir *d)
{
	struct wsls *ls = arg;

	if (ls->json || !ls->headers)
		return 0;
	/* ls -R: a blank line between sections, a header for each. */
	fprintf(ws_out(), "%s%s:\n", ls->printed ? "\n" : "",
	       ws_cli_show_path(ls->cli, d->vpath, d->real));
	ls->printed = true;
	return 0;
}

static int
on_entry(void *arg, const struct ws_list_entry *e)
{
	struct wsls *ls = arg;

	if (e->dir != NULL && e->dir->unsorted && e->dir->nentries == 1 &&
	    !ls->json)
		fprintf(stderr,
			"wsls: %s: more than %d entries: listed in directory "
			"order, unsorted (--sort name sorts them all)\n",
			ws_cli_show_path(ls->cli, e->dir->vpath, e->dir->real),
			WSLS_SORT_MAX);
	return put_entry(ls, e, ls->full_paths);
}

/* A subdirectory or entry that could not be listed: reported, skipped. */
static int
on_error(void *arg, const char *vpath, const char *real, int code)
{
	struct wsls *ls = arg;

	if (code == WS_ENOMEM)
		return code;
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
		/* The errors array counts against the byte cap as well. */
		ls->used += (long long)(strlen(e->path) + strlen(e->msg)) * 2 + 64;
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
}

/* ------------------------------------------------------------------ */
/* One PATH                                                            */

/* The listing options from the command line. */
static void
list_opts(struct wsls *ls, struct ws_list_opts *o)
{
	struct ws_cli *cli = ls->cli;
	long long cap = cli->conf->limits.max_depth;

	memset(o, 0, sizeof(*o));
	o->depth = WS_OPT(cli, O_DEPTH)->set ? (int)WS_OPT(cli, O_DEPTH)->i :
		   WS_OPT(cli, O_RECURSIVE)->b ? 0 : 1;
	/* The configuration may cap recursion (limits.max_depth). */
	if (cap > 0 && (o->depth == 0 || o->depth > cap))
		o->depth = (int)cap;
	o->recursive = o->depth != 1;
	o->hidden = WS_OPT(cli, O_ALL)->b;
	o->sort = WS_WALK_NAME;
	if (WS_OPT(cli, O_SORT)->set) {
		const char *s = WS_OPT(cli, O_SORT)->s;

		o->sort = strcmp(s, "size") == 0 ? WS_WALK_SIZE :
			  strcmp(s, "mtime") == 0 ? WS_WALK_MTIME : WS_WALK_NAME;
	} else if (WS_OPT(cli, O_TIME)->b) {
		o->sort = WS_WALK_MTIME;
	} else if (WS_OPT(cli, O_SIZE)->b) {
		o->sort = WS_WALK_SIZE;
	}
	if (WS_OPT(cli, O_REVERSE)->b)
		o->sort = (enum ws_walk_sort)(o->sort | WS_WALK_REVERSE);
	o->max_entries = WS_OPT(cli, O_MAX_ENTRIES)->set ?
			 WS_OPT(cli, O_MAX_ENTRIES)->i :
			 ls->json ? WSLS_JSON_MAX : 0;
	o->offset = WS_OPT(cli, O_OFFSET)->set ? WS_OPT(cli, O_OFFSET)->i : 0;
	/* Plain mode on a huge directory streams rather than sort it in
	 * memory, unless an order was asked for; JSON pages need the
	 * stable order. */
	if (!ls->json && !WS_OPT(cli, O_SORT)->set && !WS_OPT(cli, O_TIME)->b &&
	    !WS_OPT(cli, O_SIZE)->b && !WS_OPT(cli, O_REVERSE)->b)
		o->sort_max = WSLS_SORT_MAX;
	/* Names and types need no stat(2) per entry, as with ls. */
	o->types_only = ls->json ? !(ls->fields & (F_SIZE | F_MTIME | F_MODE |
						   F_VERSION))
				 : !ls->lng;
	o->link_info = ls->json ? (ls->fields & F_TARGET) != 0 : ls->lng;
	o->no_ignore = WS_OPT(cli, O_NO_IGNORE)->b;
	o->exclude = WS_OPT(cli, O_EXCLUDE)->list;
	o->nexclude = WS_OPT(cli, O_EXCLUDE)->n;
	o->self = WS_OPT(cli, O_DIRSELF)->b;
	o->enter = on_enter;
	o->entry = on_entry;
	o->error = on_error;
	o->arg = ls;
}

/*
 * A model's text at the end of a page: the entries shown, the true total
 * (or "more than N" where a recursive walk stopped early) and the offset
 * to read on with.
 */
static void
text_truncated(const struct wsls *ls, const struct ws_list_opts *o,
	       const struct ws_list_result *lr)
{
	long long from = o->offset, n = ls->page;

	if (ls->c->mode != WS_TCALL_MODEL)
		return;
	if (lr->total_known)
		fprintf(ls->c->text, "[truncated: entries %lld-%lld of %lld; read on "
			"with offset=%lld]\n", from + 1, from + n, (long long)lr->total,
			lr->next_offset);
	else
		fprintf(ls->c->text, "[truncated: entries %lld-%lld of more than %lld; "
			"read on with offset=%lld]\n", from + 1, from + n, from + n,
			lr->next_offset);
}

/* List one resolved PATH; its JSON object goes into the open array/output. */
static int
list_one(struct wsls *ls, const char *in, struct ws_res *res, int fd,
	 bool multi)
{
	struct ws_list_opts o;
	struct ws_list_result lr;
	int rc;
	bool fp = ls->full_paths;

	errs_clear(ls);
	ls->page = 0;
	list_opts(ls, &o);
	ls->dir = res->vpath;
	ls->dirlen = strlen(res->vpath);
	while (ls->dirlen > 0 && ls->dir[ls->dirlen - 1] == '/')
		ls->dirlen--;
	if (multi && ls->c->mode == WS_TCALL_MODEL) {
		/* Each under its name, as head(1) shows several files. */
		fputs("==> ", ls->c->text);
		ws_tcall_put_name(ls->c->text, res->vpath);
		fputs(" <==\n", ls->c->text);
	}
	if (ls->json) {
		/* What surrounds the entries, escaped at worst. */
		ls->used += 512 + 2 * (long long)(strlen(in) + strlen(res->vpath) +
						  strlen(res->real));
		ws_jw_obj(&ls->jw);
		if (multi)
			ws_jw_kname(&ls->jw, "input", in);
		ws_jw_kname(&ls->jw, "path", res->vpath);
		ws_cli_kreal(ls->cli, &ls->jw, "real_path", res->real);
		ws_jw_key(&ls->jw, "entries");
		ws_jw_arr(&ls->jw);
	}
	/* A PATH listed as itself shows its path, as ls does. */
	if (fd < 0)
		ls->full_paths = true;
	rc = ws_list(ls->ws, &o, res, fd, &lr);
	ls->full_paths = fp;
	/* The page's entries and text lines, gathered by put_entry(). */
	if (ls->sbuf.n > 0)
		ws_jw_rawn(&ls->jw, ls->sbuf.p, ls->sbuf.n);
	ls->sbuf.n = 0;
	if (text_flush(ls) < 0 && rc == 0)
		rc = WS_ENOMEM;
	if (ls->json) {
		ws_jw_arr_end(&ls->jw);
		ws_jw_kint(&ls->jw, "returned", lr.returned);
		if (o.offset > 0)
			ws_jw_kint(&ls->jw, "offset", o.offset);
		if (lr.total_known)
			ws_jw_kint(&ls->jw, "entries_total", lr.total);
		else
			ws_jw_knull(&ls->jw, "entries_total");
		ws_jw_kbool(&ls->jw, "truncated", lr.truncated);
		if (lr.truncated) {
			ws_jw_kstr(&ls->jw, "truncated_reason", lr.reason);
			ws_jw_kint(&ls->jw, "next_offset", lr.next_offset);
			text_truncated(ls, &o, &lr);
		}
		if (lr.hidden_by_policy > 0)
			ws_jw_kint(&ls->jw, "hidden_by_policy",
				   (long long)lr.hidden_by_policy);
		if (lr.ignored > 0)
			ws_jw_kint(&ls->jw, "ignored", (long long)lr.ignored);
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
		const char *shown = ws_cli_show_path(ls->cli, res->vpath, res->real);

		if (lr.truncated && lr.reason != NULL &&
		    strcmp(lr.reason, "max_entries") == 0)
			fprintf(stderr,
				"wsls: %s: stopped after %lld entries "
				"(--max-entries; --offset %lld goes on)\n",
				shown, o.max_entries, lr.next_offset);
		if (lr.hidden_by_policy > 0)
			fprintf(stderr, "wsls: %s: %zu %s hidden by the policy\n",
				shown, lr.hidden_by_policy,
				lr.hidden_by_policy == 1 ? "entry" : "entries");
		if (rc < 0)
			ws_cli_warn(ls->cli, shown, ws_error_last(), rc);
	}
	if (lr.exhausted > 0 && rc == 0) {
		/*
		 * Directories left out for want of descriptors: the listing
		 * is incomplete for a reason the user did not ask for, so the
		 * PATH fails (IO_ERROR) with what was listed still shown.
		 */
		rc = ws_error_set(WS_EIO_ERROR, res->vpath,
				  "listing incomplete: %zu %s could not be "
				  "opened (too many open files)",
				  lr.exhausted,
				  lr.exhausted == 1 ? "directory" : "directories");
		if (!ls->json)
			ws_cli_warn(ls->cli,
				    ws_cli_show_path(ls->cli, res->vpath, res->real),
				    ws_error_last(), rc);
	}
	errs_clear(ls);
	return rc;
}

/* Parse --fields into F_* bits. */
static int
parse_fields(const char *s, unsigned *out)
{
	*out = 0;
	while (*s != '\0') {
		size_t n = strcspn(s, ","), i;

		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (strlen(fields[i].name) == n &&
			    strncmp(fields[i].name, s, n) == 0)
				break;
		if (i == sizeof(fields) / sizeof(fields[0]))
			return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					    "--fields: unknown field \"%.*s\" "
					    "(valid: name, path, real_path, type, "
					    "size, mtime, mode, version, target)",
					    (int)n, s);
		*out |= fields[i].bit;
		s += n;
		if (*s == ',')
			s++;
	}
	if (*out == 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--fields: name at least one field");
	return 0;
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
	v = WS_OPT(cli, O_OFFSET);
	if (v->set && v->i < 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--offset must be 0 or more");
	v = WS_OPT(cli, O_MAX_OUTPUT);
	if (v->set && v->i < 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--max-output must be 0 (unlimited) or more");
	v = WS_OPT(cli, O_SORT);
	if (v->set && strcmp(v->s, "name") != 0 && strcmp(v->s, "size") != 0 &&
	    strcmp(v->s, "mtime") != 0)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--sort takes name, size or mtime, not \"%s\"",
				    v->s);
	return 0;
}

/* The options' own checks and --fields, before the workspace opens. */
static int
list_check(struct ws_cli *cli)
{
	unsigned f;
	int rc;

	if ((rc = check_opts(cli)) < 0)
		return rc;
	if (WS_OPT(cli, O_FIELDS)->set &&
	    (rc = parse_fields(WS_OPT(cli, O_FIELDS)->s, &f)) < 0)
		return rc;
	return 0;
}

/*
 * The keys of each entry a model gets by default (issue 20): what the
 * text shows, name, type and a symlink's target, with no stat(2) of each
 * entry (getdents' d_type says the type) and no path that only repeats
 * the listed directory's before the name.  A recursive listing (or -d)
 * keeps the path, which says where an entry is; the key a listing is
 * sorted by comes with it; long adds size, mtime, mode and version.  The
 * command line's JSON keeps its documented keys (name, path, type, size).
 */
static unsigned
model_fields(struct ws_cli *cli)
{
	unsigned f = F_NAME | F_TYPE | F_TARGET;
	const struct ws_optval *sort = WS_OPT(cli, O_SORT);

	if (WS_OPT(cli, O_DIRSELF)->b || WS_OPT(cli, O_RECURSIVE)->b ||
	    (WS_OPT(cli, O_DEPTH)->set && WS_OPT(cli, O_DEPTH)->i != 1))
		f |= F_PATH;
	if ((sort->set && strcmp(sort->s, "size") == 0) || WS_OPT(cli, O_SIZE)->b)
		f |= F_SIZE;
	if ((sort->set && strcmp(sort->s, "mtime") == 0) || WS_OPT(cli, O_TIME)->b)
		f |= F_MTIME;
	return f;
}

static int
list_run(struct ws_tcall *c)
{
	static const char *const root_only[] = {"/"};
	struct ws_cli *cli = c->cli;
	struct wsls ls;
	const char *const *paths;
	size_t npaths;
	int rc, first_rc = 0, status = 0;
	bool multi, recursive, self;

	memset(&ls, 0, offsetof(struct wsls, errs));
	ls.fields = c->mode == WS_TCALL_MODEL ? model_fields(cli) :
		    F_NAME | F_PATH | F_TYPE | F_SIZE | F_TARGET;
	if (WS_OPT(cli, O_LONG)->b)
		ls.fields |= F_SIZE | F_MTIME | F_MODE | F_VERSION;
	if (WS_OPT(cli, O_FIELDS)->set &&
	    (rc = parse_fields(WS_OPT(cli, O_FIELDS)->s, &ls.fields)) < 0)
		goto fail;
	ls.c = c;
	ls.cli = cli;
	ls.ws = c->ws;
	ls.json = cli->json;
	/* Plain output only: JSON (and every call over MCP) asks no ioctl. */
	ls.tty = !ls.json && ws_out_is_stdout() && isatty(STDOUT_FILENO);
	ls.lng = WS_OPT(cli, O_LONG)->b;
	ls.human = WS_OPT(cli, O_HUMAN)->b;
	ls.nul = WS_OPT(cli, O_NUL)->b;
	ls.cap = WS_OPT(cli, O_MAX_OUTPUT)->set ? WS_OPT(cli, O_MAX_OUTPUT)->i :
		 WSLS_JSON_BYTES;
	/* Entries print as names, like ls, unless a path form was asked for. */
	ls.full_paths = cli->paths_set;
	paths = cli->npos > 0 ? cli->pos : root_only;
	npaths = cli->npos > 0 ? cli->npos : 1;
	multi = npaths > 1;
	self = WS_OPT(cli, O_DIRSELF)->b;
	recursive = !self && (WS_OPT(cli, O_DEPTH)->set ?
			      WS_OPT(cli, O_DEPTH)->i != 1 :
			      WS_OPT(cli, O_RECURSIVE)->b);
	ls.headers = !self && (multi || recursive);
	/*
	 * ls -R with path names (--paths) into a pipe: a flat list of paths,
	 * one a line, which is what a script wants (find's output), rather
	 * than sections with headers.
	 */
	if (!ls.json && recursive && !multi && ls.full_paths && !ls.tty)
		ls.headers = false;
	/*
	 * -0 is for xargs -0: a header line would be one more "name" in
	 * the stream, and a bare name would lose its directory.  Paths,
	 * and nothing else, however many directories are listed.
	 */
	if (!ls.json && ls.nul && (recursive || multi)) {
		ls.headers = false;
		ls.full_paths = true;
	}
	/*
	 * The walker keeps one descriptor open per level of the tree, so a
	 * deep recursive listing can run out of them at the soft limit
	 * (often 1024) long before the hard one.  Only for a recursive
	 * listing; a flat one needs a handful.
	 */
	if (recursive)
		ws__nofile_raise();

	if (!multi) {
		struct ws_res res;
		int fd;
		/*
		 * A recursive listing can end incomplete (out of descriptors)
		 * and then fails with what it listed as output, so its JSON
		 * is held until "success" is known, as for several PATHs.  A
		 * flat listing cannot, and streams.
		 */
		bool held = ls.json && recursive;

		rc = ws_list_open(c->ws, paths[0], self, &res, &fd);
		if (rc < 0)
			goto fail;
		if (held) {
			rc = ws_tcall_multi_begin(c, &ls.jw);
			if (rc < 0) {
				if (fd >= 0)
					close(fd);
				ws_res_free(&res);
				goto fail;
			}
		} else if (ls.json) {
			ws_tcall_begin(c, &ls.jw);
		}
		rc = list_one(&ls, paths[0], &res, fd, false);
		if (rc < 0 && held)
			ws_tcall_multi_fail(c, rc, res.vpath);
		if (fd >= 0)
			close(fd);
		ws_res_free(&res);
		if (held) {
			status = ws_tcall_multi_end(c, false);
		} else {
			if (ls.json)
				ws_tcall_end(c, &ls.jw);
			status = rc < 0 ? ws_error_exit_status(rc) : 0;
		}
		goto out;
	}

	if (ls.json) {
		rc = ws_tcall_multi_begin(c, &ls.jw);
		if (rc < 0)
			goto fail;
		ws_jw_obj(&ls.jw);
		ws_jw_key(&ls.jw, "results");
		ws_jw_arr(&ls.jw);
	}
	for (size_t i = 0; i < npaths; i++) {
		struct ws_res res;
		int fd;

		rc = ws_list_open(c->ws, paths[i], self, &res, &fd);
		if (rc == 0) {
			rc = list_one(&ls, paths[i], &res, fd, true);
			if (fd >= 0)
				close(fd);
			ws_res_free(&res);
		} else if (ls.json) {
			if (c->mode == WS_TCALL_MODEL) {
				fputs("==> ", c->text);
				ws_tcall_put_name(c->text, paths[i]);
				fprintf(c->text, " <==\n[%s: %s]\n", ws_error_name(rc),
					ws_error_last());
			}
			ws_jw_obj(&ls.jw);
			ws_jw_kname(&ls.jw, "input", paths[i]);
			ws_jw_key(&ls.jw, "error");
			ws_jw_obj(&ls.jw);
			ws_jw_kstr(&ls.jw, "code", ws_error_name(rc));
			ws_jw_kstr(&ls.jw, "message", ws_error_last());
			ws_jw_obj_end(&ls.jw);
			ws_jw_obj_end(&ls.jw);
		} else {
			ws_cli_warn(cli, paths[i], ws_error_last(), rc);
		}
		if (rc < 0) {
			if (first_rc == 0)
				first_rc = rc;
			ws_tcall_multi_fail(c, rc, paths[i]);
		}
	}
	if (ls.json) {
		ws_jw_arr_end(&ls.jw);
		ws_jw_obj_end(&ls.jw);
		status = ws_tcall_multi_end(c, false);
	} else if (first_rc < 0) {
		status = ws_error_exit_status(first_rc);
	}
	goto out;
fail:
	status = ws_tcall_fail(c, rc);
out:
	free(ls.sbuf.p);
	free(ls.tbuf.p);
	return status;
}

const struct ws_tool_def ws_tool_list_directory = {
	.name = "list_directory",
	.cli = &ws__list_cli,
	.title = "List a directory",
	.ro = true,
	.destructive = false,
	.idempotent = true,
	.output_schema =
	"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	"\"entries\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
	"\"truncated\":{\"type\":\"boolean\"},\"next_offset\":{},\"results\":"
	"{\"type\":\"array\",\"items\":{\"type\":\"object\"}}}}",
	.check = list_check,
	.run = list_run,
};
