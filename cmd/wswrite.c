/*
 * wswrite - create, overwrite, append to or edit a file inside the
 * workspace; also mkdir, delete and move (LLM tool name write_file).
 *
 * Argument handling and printing only: the work is done by libws
 * (ws_write, ws_mkdir, ws_delete, ws_move in ws/write.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws/cli.h"
#include "ws/error.h"
#include "ws/path.h"
#include "ws/write.h"

enum {
	O_CONTENT,
	O_CONTENT_B64,
	O_APPEND,
	O_CREATE_ONLY,
	O_PARENTS,
	O_EDIT,
	O_OLD,
	O_NEW,
	O_ALL,
	O_DRY_RUN,
	O_MKDIR,
	O_DELETE,
	O_RECURSIVE,
	O_MOVE,
	O_FORCE,
	O_NO_SYNC,
	O_COUNT
};

static const struct ws_opt opts[O_COUNT] = {
	[O_CONTENT] = {"content", 0, WS_OPT_STR, "STR",
		       "the content to write (it or the base64 form is required "
		       "with --args; else standard input is read)", 0},
	[O_CONTENT_B64] = {"content-base64", 0, WS_OPT_STR, "B64",
			   "the content to write, base64-encoded (binary data)", 0},
	[O_APPEND] = {"append", 'a', WS_OPT_FLAG, NULL,
		      "append to the file instead of replacing it", 0},
	[O_CREATE_ONLY] = {"create-only", 0, WS_OPT_FLAG, NULL,
			   "fail with ALREADY_EXISTS if the file exists", 0},
	[O_PARENTS] = {"parents", 'p', WS_OPT_FLAG, NULL,
		       "create missing parent directories (default: true)",
		       WS_OPT_NEGATABLE},
	[O_EDIT] = {"edit", 0, WS_OPT_FLAG, NULL,
		    "replace the exact text OLD by NEW in the file", 0},
	[O_OLD] = {"old", 0, WS_OPT_STR, "S",
		   "edit: the exact text to replace (must match once, "
		   "unless all)", 0},
	[O_NEW] = {"new", 0, WS_OPT_STR, "S", "edit: the replacement text", 0},
	[O_ALL] = {"all", 0, WS_OPT_FLAG, NULL,
		   "edit: replace every occurrence of OLD", 0},
	[O_DRY_RUN] = {"dry-run", 0, WS_OPT_FLAG, NULL,
		       "change nothing; show the unified diff that would apply", 0},
	[O_MKDIR] = {"mkdir", 0, WS_OPT_FLAG, NULL,
		     "create PATH as a directory", 0},
	[O_DELETE] = {"delete", 0, WS_OPT_FLAG, NULL,
		      "delete PATH (a symlink itself; a directory if empty)", 0},
	[O_RECURSIVE] = {"recursive", 'r', WS_OPT_FLAG, NULL,
			 "delete: remove a directory tree (never follows links)", 0},
	[O_MOVE] = {"move", 0, WS_OPT_STR, "DEST",
		    "move (rename) PATH to DEST", 0},
	[O_FORCE] = {"force", 'f', WS_OPT_FLAG, NULL,
		     "move: replace DEST if it exists", 0},
	[O_NO_SYNC] = {"no-sync", 0, WS_OPT_FLAG, NULL,
		       "skip fsync (faster, not crash-safe)", WS_OPT_NOSCHEMA},
};

static const struct ws_tool tool = {
	.prog = "wswrite",
	.tool = "write_file",
	.description = "Create or overwrite a file with the given content "
		       "(atomically, creating parent directories), append to "
		       "it, or edit it by replacing an exact text (old -> new). "
		       "Also creates directories (mkdir), deletes (delete, "
		       "recursive) and moves (move). Paths are relative to the "
		       "workspace root.",
	.usage = "wswrite [OPTION]... PATH\n"
		 "       wswrite --edit --old S --new S [--all] [OPTION]... PATH\n"
		 "       wswrite --mkdir [OPTION]... PATH\n"
		 "       wswrite --delete [-r] [OPTION]... PATH\n"
		 "       wswrite --move DEST [-f] [OPTION]... PATH\n"
		 "The content comes from --content, --content-base64, or "
		 "standard input.",
	.pos_name = "path",
	.pos_help = "the file (or directory) to write, relative to the "
		    "workspace root",
	.pos_kind = WS_POS_ONE,
	.opts = opts,
	.nopts = O_COUNT,
};

#define SET(o) (WS_OPT(&cli, (o))->set)
#define FLAG(o) (WS_OPT(&cli, (o))->b)
#define STR(o) (WS_OPT(&cli, (o))->s)

/* Read all of standard input. */
static int
read_stdin(char **out, size_t *outlen)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);

	if (buf == NULL)
		return ws_error_set(WS_ENOMEM, NULL, "out of memory");
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb = realloc(buf, cap * 2);

			if (nb == NULL) {
				free(buf);
				return ws_error_set(WS_ENOMEM, NULL, "out of memory");
			}
			buf = nb;
			cap *= 2;
		}
		r = read(0, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return ws_error_errno(errno, NULL, "read standard input");
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*out = buf;
	*outlen = n;
	return 0;
}

/* Reject options that make no sense together. */
static int
check_combinations(struct ws_cli *c)
{
	int actions = (c->vals[O_MKDIR].b) + (c->vals[O_DELETE].b) +
		      (c->vals[O_MOVE].set) +
		      (c->vals[O_EDIT].b || c->vals[O_OLD].set);
	bool writes = !c->vals[O_MKDIR].b && !c->vals[O_DELETE].b &&
		      !c->vals[O_MOVE].set;
	bool edit = c->vals[O_EDIT].b || c->vals[O_OLD].set;
	bool content = c->vals[O_CONTENT].set || c->vals[O_CONTENT_B64].set;

	if (actions > 1)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "choose one of edit, mkdir, delete and move");
	if (c->vals[O_CONTENT].set && c->vals[O_CONTENT_B64].set)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "give content or content_base64, not both");
	if (content && (!writes || edit))
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "content is only for writing a file "
				    "(an edit takes old and new)");
	if ((c->vals[O_APPEND].b || c->vals[O_CREATE_ONLY].b) && (!writes || edit))
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "append and create_only are only for writing a file");
	if (edit && !c->vals[O_OLD].set)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "edit needs old (the exact text to replace)");
	if (edit && !c->vals[O_NEW].set)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "edit needs new (the replacement text)");
	if (!edit && (c->vals[O_NEW].set || c->vals[O_ALL].b))
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "new and all are only for an edit");
	if (c->vals[O_RECURSIVE].b && !c->vals[O_DELETE].b)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "recursive is only for delete");
	if (c->vals[O_FORCE].b && !c->vals[O_MOVE].set)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "force is only for move");
	return 0;
}

static void
print_json(struct ws_cli *cli, const struct ws_wresult *r)
{
	struct ws_jw jw;
	bool file = strcmp(r->action, "write") == 0 ||
		    strcmp(r->action, "create") == 0 ||
		    strcmp(r->action, "append") == 0 ||
		    strcmp(r->action, "edit") == 0;

	ws_cli_json_begin(cli, &jw);
	ws_jw_obj(&jw);
	ws_jw_kname(&jw, "path", r->vpath);
	ws_cli_kreal(cli, &jw, "real_path", r->real);
	ws_jw_kstr(&jw, "action", r->action);
	ws_jw_kbool(&jw, "created", r->created);
	ws_jw_kbool(&jw, "dry_run", r->dry_run);
	if (file)
		ws_jw_kint(&jw, "bytes_written", r->bytes_written);
	if (strcmp(r->action, "edit") == 0)
		ws_jw_kint(&jw, "replacements", (long long)r->replacements);
	if (r->type != NULL)
		ws_jw_kstr(&jw, "type", r->type);
	if (strcmp(r->action, "delete") == 0)
		ws_jw_kint(&jw, "removed", (long long)r->removed);
	if (r->dest_vpath != NULL) {
		ws_jw_kname(&jw, "destination", r->dest_vpath);
		ws_cli_kreal(cli, &jw, "destination_real_path", r->dest_real);
	}
	if (file) {
		/*
		 * A diff of files that are not UTF-8 would lose their bytes
		 * to U+FFFD in a JSON string, and a patch made from it would
		 * not apply: it comes as base64 then, and diff_encoding says
		 * which.
		 */
		bool utf8 = r->diff == NULL || ws_utf8_valid(r->diff, r->difflen);

		ws_jw_key(&jw, "diff");
		if (r->diff == NULL)
			ws_jw_null(&jw);
		else if (utf8)
			ws_jw_strn(&jw, r->diff, r->difflen);
		else
			ws_jw_base64(&jw, r->diff, r->difflen);
		if (r->diff == NULL)
			ws_jw_knull(&jw, "diff_encoding");
		else
			ws_jw_kstr(&jw, "diff_encoding", utf8 ? "utf-8" : "base64");
		ws_jw_kbool(&jw, "diff_truncated", r->diff_truncated);
	}
	ws_jw_obj_end(&jw);
	ws_cli_json_end(cli, &jw);
}

static void
print_plain(struct ws_cli *cli, const struct ws_wresult *r)
{
	const char *a = r->action;
	bool dry = r->dry_run;
	FILE *f = stdout;
	char *p, *dest = NULL;

	if (dry && r->diff != NULL && r->difflen > 0) {
		fwrite(r->diff, 1, r->difflen, stdout);
		if (r->diff_truncated)
			printf("... (diff truncated)\n");
		f = stderr; /* keep stdout a clean patch */
	}
	/* Names on a terminal: control bytes as "?", as wsls shows them. */
	p = ws_cli_masked(ws_cli_show_path(cli, r->vpath, r->real),
			  isatty(fileno(f)));
	if (strcmp(a, "move") == 0)
		dest = ws_cli_masked(ws_cli_show_path(cli, r->dest_vpath, r->dest_real),
				     isatty(fileno(f)));
	if (p == NULL || (strcmp(a, "move") == 0 && dest == NULL)) {
		free(p);
		free(dest);
		return;
	}
	if (strcmp(a, "write") == 0 || strcmp(a, "create") == 0)
		fprintf(f, "%s %lld bytes to %s%s\n", dry ? "would write" : "wrote",
			r->bytes_written, p, r->created ? " (created)" : "");
	else if (strcmp(a, "append") == 0)
		fprintf(f, "%s %lld bytes to %s%s\n",
			dry ? "would append" : "appended", r->bytes_written, p,
			r->created ? " (created)" : "");
	else if (strcmp(a, "edit") == 0)
		fprintf(f, "%s %s: %zu replacement%s\n", dry ? "would edit" : "edited",
			p, r->replacements, r->replacements == 1 ? "" : "s");
	else if (strcmp(a, "mkdir") == 0 && !r->created)
		fprintf(f, "directory %s already exists\n", p);
	else if (strcmp(a, "mkdir") == 0)
		fprintf(f, "%s directory %s\n", dry ? "would create" : "created", p);
	else if (strcmp(a, "delete") == 0 && r->removed > 1)
		fprintf(f, "%s %s (%zu entries)\n", dry ? "would delete" : "deleted",
			p, r->removed);
	else if (strcmp(a, "delete") == 0)
		fprintf(f, "%s %s\n", dry ? "would delete" : "deleted", p);
	else if (strcmp(a, "move") == 0)
		fprintf(f, "%s %s to %s\n", dry ? "would move" : "moved", p, dest);
	if (dry && f == stdout)
		printf("(dry run: nothing was changed)\n");
	free(p);
	free(dest);
}

int
main(int argc, char **argv)
{
	struct ws_cli cli;
	struct ws_ctx ws = {0};
	struct ws_wresult r = {0};
	struct ws_wopts o = {0};
	char *input = NULL;
	void *decoded = NULL;
	const char *path;
	int rc, status = 0;

	/*
	 * Over RLIMIT_FSIZE, write(2) must fail with EFBIG, so that the
	 * temporary file is removed, rather than the signal killing us.
	 */
	signal(SIGXFSZ, SIG_IGN);
	rc = ws_cli_parse(&cli, &tool, argc, argv);
	if (rc < 0)
		goto fail;
	if (ws_cli_print_info(&cli, stdout))
		goto out;
	if ((rc = check_combinations(&cli)) < 0)
		goto fail;
	path = cli.pos[0];
	rc = ws_cli_open(&cli, &ws);
	if (rc < 0)
		goto fail;
	o.parents = SET(O_PARENTS) ? FLAG(O_PARENTS) : true;
	o.dry_run = FLAG(O_DRY_RUN);
	if (FLAG(O_MKDIR)) {
		rc = ws_mkdir(&ws, path, o.parents, o.dry_run, &r);
	} else if (FLAG(O_DELETE)) {
		rc = ws_delete(&ws, path, FLAG(O_RECURSIVE), o.dry_run, &r);
	} else if (SET(O_MOVE)) {
		rc = ws_move(&ws, path, STR(O_MOVE), FLAG(O_FORCE), o.parents,
			     o.dry_run, &r);
	} else {
		o.edit = FLAG(O_EDIT) || SET(O_OLD);
		o.append = FLAG(O_APPEND);
		o.create_only = FLAG(O_CREATE_ONLY);
		o.all = FLAG(O_ALL);
		o.nosync = FLAG(O_NO_SYNC);
		/* A diff costs a read of the old file: only where it is shown. */
		o.want_diff = cli.json;
		if (o.edit) {
			o.old = STR(O_OLD);
			o.oldlen = strlen(o.old);
			o.repl = STR(O_NEW);
			o.repllen = strlen(o.repl);
		} else if (SET(O_CONTENT)) {
			o.content = STR(O_CONTENT);
			o.len = strlen(STR(O_CONTENT));
		} else if (SET(O_CONTENT_B64)) {
			rc = ws_b64_decode(STR(O_CONTENT_B64), &decoded, &o.len);
			if (rc < 0)
				goto fail;
			o.content = decoded;
		} else if (cli.from_args) {
			/*
			 * A function call carries its content: standard input
			 * is not part of it (with --args - it held the JSON),
			 * and an agent's tool runner may leave it open, so
			 * reading it would wait forever.
			 */
			rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					  "content is required (give content or "
					  "content_base64)%s", cli.args_text != NULL ?
					  "; standard input held the --args JSON" :
					  "");
			goto fail;
		} else {
			if (isatty(0) && !cli.json)
				fprintf(stderr, "wswrite: reading the content from "
					"standard input (end it with Ctrl-D)\n");
			rc = read_stdin(&input, &o.len);
			if (rc < 0)
				goto fail;
			o.content = input;
		}
		rc = ws_write(&ws, path, &o, &r);
	}
	if (rc < 0)
		goto fail;
	if (cli.json)
		print_json(&cli, &r);
	else
		print_plain(&cli, &r);
	goto out;
fail:
	status = ws_cli_fail(&cli, rc);
out:
	status = ws_cli_finish(&cli, status);
	ws_wresult_free(&r);
	free(input);
	free(decoded);
	ws_ctx_close(&ws);
	ws_cli_free(&cli);
	return status;
}
