/*
 * tool_hist.c - wstools history and wstools undo on the tool table: the
 * changes the tools recorded in the workspace's history (ws/history.h),
 * listed, collected (--gc) or reverted, plain, JSON, or for a model.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/audit.h"
#include "ws/error.h"
#include "ws/history.h"
#include "ws/path.h"
#include "ws/tool.h"

/* wstools history [PATH] [--gc], wstools undo [ID] [-n N] [--to ID]. */
enum { H_N, H_GC, H_COUNT };
static const struct ws_opt history_opts[H_COUNT] = {
	[H_N] = {"count", 'n', WS_OPT_INT, "N", "only the N newest entries", 0},
	[H_GC] = {"gc", 0, WS_OPT_FLAG, NULL,
		  "apply the bounds: drop the oldest entries and their content", 0},
};
static const struct ws_tool ws__history_cli = {
	.prog = "wstools history",
	.page = "wstools",
	.tool = "history",
	/* For a model, which cannot read wstools(1) (ftu12 10). */
	.description = "List the changes write_file, edit_file, create_directory, "
		       "move_path and delete_path made to the workspace, newest "
		       "first, with their ids (undo takes one).  What run_command's "
		       "commands change is not recorded and cannot be undone.",
	.help = "List the changes the tools made to the workspace, newest "
		"first (see wstools(1), HISTORY).",
	.usage = "wstools history [OPTION]... [PATH]",
	.pos_name = "path",
	.pos_help = "only the changes to PATH or below it, and the deletes "
		    "and moves of a directory that held it",
	.pos_kind = WS_POS_OPT,
	.opts = history_opts,
	.nopts = H_COUNT,
};
enum { U_N, U_TO, U_DRY_RUN, U_FORCE, U_COUNT };
static const struct ws_opt undo_opts[U_COUNT] = {
	[U_N] = {"count", 'n', WS_OPT_INT, "N", "undo the N newest changes", 0},
	[U_TO] = {"to", 0, WS_OPT_INT, "ID",
		  "undo change ID and every later one, newest first", 0},
	[U_DRY_RUN] = {"dry-run", 0, WS_OPT_FLAG, NULL,
		       "say what would be undone, change nothing", 0},
	[U_FORCE] = {"force", 0, WS_OPT_FLAG, NULL,
		     "revert even a file that changed since", 0},
};
static const struct ws_tool ws__undo_cli = {
	.prog = "wstools undo",
	.page = "wstools",
	.tool = "undo",
	.description = "Revert changes of the file tools (history lists them): "
		       "the newest not yet undone, the change id, or the count "
		       "newest.  A file changed since is refused "
		       "(VERSION_MISMATCH) unless force; run_command's changes "
		       "are not recorded and cannot be undone.",
	.help = "Revert changes the tools made (the newest not yet undone, "
		"change ID, or the N newest); see wstools(1), HISTORY.",
	.usage = "wstools undo [OPTION]... [ID]",
	.pos_name = "id",
	.pos_help = "the change to undo (an id from history)",
	.pos_kind = WS_POS_OPT,
	.pos_int = true,
	.opts = undo_opts,
	.nopts = U_COUNT,
};

/* "  (what /a, /a/b: why)" for a list of paths, when there is one. */
static void
put_paths(FILE *f, const char *what, const cJSON *arr, const char *why)
{
	const cJSON *p;
	bool first = true;

	if (cJSON_GetArraySize(arr) == 0)
		return;
	fprintf(f, "  (%s ", what);
	cJSON_ArrayForEach(p, arr) {
		if (!first)
			fputs(", ", f);
		ws_cli_put_text(f, cJSON_GetStringValue(p), true);
		first = false;
	}
	if (why != NULL && why[0] != '\0')
		fprintf(f, ": %s", why);
	fputc(')', f);
}

static void put_lines(FILE *f, const cJSON *arr);

/*
 * Print a result of wstools history or undo, plain or JSON; for a model,
 * the output object, and as its text the plain lines a person reads
 * (ftu18 07), as every other tool gives, after head ("undone:") and
 * with a line of its own when there is none.
 */
static void
print_hist(struct ws_tcall *c, const char *key, cJSON *arr, const char *hint,
	   const char *head)
{
	const struct ws_cli *cli = c->cli;

	if (c->mode == WS_TCALL_MODEL) {
		cJSON *out = cJSON_CreateObject();
		char *t;

		cJSON_AddItemReferenceToObject(out, key, arr);
		t = cJSON_PrintUnformatted(out);
		if (t != NULL) {
			fputs(t, c->out);
			if (cJSON_GetArraySize(arr) == 0) {
				fputs("no change recorded\n", c->text);
			} else {
				if (head != NULL)
					fputs(head, c->text);
				put_lines(c->text, arr);
			}
			c->has_output = true;
		}
		free(t);
		cJSON_Delete(out);
		return;
	}
	if (cli->json) {
		cJSON *o = cJSON_CreateObject(), *out;
		char *t;

		cJSON_AddBoolToObject(o, "success", true);
		cJSON_AddStringToObject(o, "tool", cli->tool->tool);
		out = cJSON_AddObjectToObject(o, "output");
		cJSON_AddItemReferenceToObject(out, key, arr);
		if (hint != NULL)
			cJSON_AddStringToObject(out, "hint", hint);
		t = cJSON_PrintUnformatted(o);
		if (t != NULL)
			fprintf(ws_out(), "%s\n", t);
		free(t);
		cJSON_Delete(o);
		return;
	}
	put_lines(ws_out(), arr);
}

/* One line per entry, as wstools history prints them. */
static void
put_lines(FILE *f, const cJSON *arr)
{
	const cJSON *e;
	int idw = 1;

	/* The ids in one column: as wide as the largest (ftu13 14). */
	cJSON_ArrayForEach(e, arr) {
		int w = snprintf(NULL, 0, "%lld", (long long)cJSON_GetNumberValue(
					 cJSON_GetObjectItem(e, "id")));

		if (w > idw)
			idw = w;
	}
	cJSON_ArrayForEach(e, arr) {
		const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(e, "destination"));
		const cJSON *sz = cJSON_GetObjectItem(e, "size_before");

		fprintf(f, "%-*lld", idw,
			(long long)cJSON_GetNumberValue(cJSON_GetObjectItem(e, "id")));
		if (cJSON_GetObjectItem(e, "time") != NULL)
			fprintf(f, "  %s  %-6s %-10s", cJSON_GetStringValue(cJSON_GetObjectItem(e, "time")),
				cJSON_GetStringValue(cJSON_GetObjectItem(e, "frontend")),
				cJSON_GetStringValue(cJSON_GetObjectItem(e, "tool")));
		fprintf(f, "  %-7s ", cJSON_GetStringValue(cJSON_GetObjectItem(e, "operation")));
		if (cJSON_IsTrue(cJSON_GetObjectItem(e, "hidden")))
			fputs("(a path the policy hides)", f);
		else
			ws_cli_put_text(f, cJSON_GetStringValue(cJSON_GetObjectItem(e, "path")),
					true);
		if (d != NULL) {
			fputs(" -> ", f);
			ws_cli_put_text(f, d, true);
		}
		if (cJSON_IsNumber(sz))
			fprintf(f, "  (was %lld byte%s)", (long long)sz->valuedouble,
				(long long)sz->valuedouble == 1 ? "" : "s");
		else if (cJSON_GetNumberValue(cJSON_GetObjectItem(e, "entries_before")) > 1)
			/* A tree: how much of one (ftu12 15). */
			fprintf(f, "  (was %lld entries)", (long long)
				cJSON_GetNumberValue(cJSON_GetObjectItem(e, "entries_before")));
		if (cJSON_IsNumber(cJSON_GetObjectItem(e, "destination_size_before"))) {
			long long ds = (long long)cJSON_GetNumberValue(
				cJSON_GetObjectItem(e, "destination_size_before"));

			fprintf(f, "  (replaced %lld byte%s there)", ds,
				ds == 1 ? "" : "s");
		}
		else if (cJSON_GetNumberValue(cJSON_GetObjectItem(e, "destination_entries_before")) > 0)
			fprintf(f, "  (replaced %lld entries there)", (long long)
				cJSON_GetNumberValue(cJSON_GetObjectItem(e, "destination_entries_before")));
		/* The directories a change made on the way (ftu13 02). */
		put_paths(f, "made", cJSON_GetObjectItem(e, "made_dirs"), NULL);
		put_paths(f, "removed", cJSON_GetObjectItem(e, "removed_dirs"), NULL);
		put_paths(f, "kept", cJSON_GetObjectItem(e, "kept_dirs"),
			  cJSON_GetStringValue(cJSON_GetObjectItem(e, "kept_why")));
		if (cJSON_IsNumber(cJSON_GetObjectItem(e, "undo_of")))
			fprintf(f, "  [undo of %lld]",
				(long long)cJSON_GetObjectItem(e, "undo_of")->valuedouble);
		if (cJSON_IsTrue(cJSON_GetObjectItem(e, "undone")))
			fputs("  [undone]", f);
		if (cJSON_IsFalse(cJSON_GetObjectItem(e, "done")))
			fputs("  [not confirmed: interrupted?]", f);
		if (cJSON_IsNumber(cJSON_GetObjectItem(e, "not_kept")))
			fprintf(f, "  (%lld not kept, not brought back)",
				(long long)cJSON_GetObjectItem(e, "not_kept")->valuedouble);
		fputc('\n', f);
	}
}

/* wstools history and wstools undo: one function, the tool decides. */
/* Before the workspace opens: a history is needed. */
static int
hist_check(struct ws_cli *cli)
{
	if (cli->no_history)
		return ws_error_set(WS_EINVALID_ARGUMENT, NULL,
				    "--no-history leaves nothing to list or undo");
	return 0;
}

/*
 * The audit line of an undo names the entry it made and the one it
 * undid, as a write's names its history id (ftu13 10): "history_id" and
 * "undo_of" of the newest undone, and with several all of them in
 * "undone" ([{"undo_of": ID, "history_id": ID}, ...]).
 */
static void
audit_undone(struct ws_cli *cli, const cJSON *arr)
{
	const cJSON *it, *first = cJSON_GetArrayItem(arr, 0);
	cJSON *all;
	char *t;

	if (cli->audit_log == NULL || first == NULL)
		return;
	if (cJSON_IsNumber(cJSON_GetObjectItem(first, "history_id")))
		ws_audit_set_int(cli->audit_log, "history_id",
				 (long long)cJSON_GetObjectItem(first, "history_id")->valuedouble);
	ws_audit_set_int(cli->audit_log, "undo_of",
			 (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(first, "id")));
	if (cJSON_GetArraySize(arr) < 2 || (all = cJSON_CreateArray()) == NULL)
		return;
	cJSON_ArrayForEach(it, arr) {
		cJSON *one = cJSON_CreateObject();

		if (one == NULL)
			break;
		cJSON_AddNumberToObject(one, "undo_of",
					cJSON_GetNumberValue(cJSON_GetObjectItem(it, "id")));
		if (cJSON_IsNumber(cJSON_GetObjectItem(it, "history_id")))
			cJSON_AddNumberToObject(one, "history_id",
						cJSON_GetObjectItem(it, "history_id")->valuedouble);
		cJSON_AddItemToArray(all, one);
	}
	if ((t = cJSON_PrintUnformatted(all)) != NULL)
		ws_audit_set_json(cli->audit_log, "undone", t);
	free(t);
	cJSON_Delete(all);
}

static int
hist_run(struct ws_tcall *c, const struct ws_tool *t)
{
	struct ws_cli *cli = c->cli;
	struct ws_ctx *ws = c->ws;
	cJSON *arr = NULL;
	char *above = NULL, *hint = NULL;
	int rc, status = 0;

	if (t == &ws__history_cli && WS_OPT(cli, H_GC)->b) {
		long long dropped = 0, freed = 0;

		/* It was taken and done nothing (ftu13 14). */
		if (WS_OPT(cli, H_N)->set || cli->npos > 0) {
			rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL, "--gc takes "
					  "neither -n nor a path: it drops every entry "
					  "past the history's limits");
			goto fail;
		}
		if ((rc = ws_hist_gc(ws, &dropped, &freed)) < 0)
			goto fail;
		if (c->mode == WS_TCALL_MODEL) {
			fprintf(c->out, "{\"dropped\":%lld,\"bytes_freed\":%lld}",
				dropped, freed);
			fprintf(c->text, "{\"dropped\":%lld,\"bytes_freed\":%lld}",
				dropped, freed);
			c->has_output = true;
		} else if (cli->json)
			fprintf(ws_out(), "{\"success\":true,\"tool\":\"history\","
				"\"output\":{\"dropped\":%lld,\"bytes_freed\":%lld}}\n",
				dropped, freed);
		else
			fprintf(ws_out(), "dropped %lld entr%s, freed %lld byte%s\n",
				dropped, dropped == 1 ? "y" : "ies", freed,
				freed == 1 ? "" : "s");
		goto out;
	}
	if (t == &ws__history_cli) {
		rc = ws_hist_list(ws, cli->npos > 0 ? cli->pos[0] : NULL, &arr);
		if (rc == 0 && cli->npos > 0 && cli->pos[0][0] != '/') {
			/* A relative PATH: compare with the recorded virtual
			 * paths, which are absolute. */
			char *v = ws_path_join("/", cli->pos[0]);

			cJSON_Delete(arr);
			arr = NULL;
			rc = v ? ws_hist_list(ws, v, &arr)
			       : ws_error_set(WS_ENOMEM, NULL, "out of memory");
			free(v);
		}
		if (rc < 0)
			goto fail;
		/* Newest first: the N newest are the first N (ftu12 15). */
		if (WS_OPT(cli, H_N)->set) {
			long long keep = WS_OPT(cli, H_N)->i;

			if (keep <= 0) {
				/* Named as the caller named it (ftu13 14). */
				rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
						  "%s takes a count of 1 or more",
						  cli->from_args ? "count" : "-n");
				goto fail;
			}
			while (cJSON_GetArraySize(arr) > keep)
				cJSON_DeleteItemFromArray(arr, cJSON_GetArraySize(arr) - 1);
		}
		/*
		 * No entry at all in this workspace's history: histories are
		 * kept per root, so from a project's src/ the project's is
		 * the one above; say where it is, as undo does (ftu13 17).
		 * Not to a model: the directory is outside its workspace,
		 * and it cannot name another one.
		 */
		if (c->mode != WS_TCALL_MODEL && cli->npos == 0 &&
		    cJSON_GetArraySize(arr) == 0 && (above = ws_hist_above(ws)) != NULL &&
		    asprintf(&hint, "%s, above it, has changes recorded: run wstools "
			     "history and undo from there, or with --workspace %s",
			     above, above) < 0)
			hint = NULL;
		print_hist(c, "entries", arr, hint, NULL);
		/* An empty answer is not "never touched" to a person. */
		if (c->mode != WS_TCALL_MODEL && !cli->json && cli->npos > 0 &&
		    cJSON_GetArraySize(arr) == 0)
			fprintf(stderr, "wstools history: no change recorded to %s%s, "
				"below it or to a directory that held it\n",
				cli->pos[0][0] == '/' ? "" : "/", cli->pos[0]);
		else if (c->mode != WS_TCALL_MODEL && !cli->json &&
			 cJSON_GetArraySize(arr) == 0) {
			fprintf(stderr, "wstools history: no change recorded for this "
				"workspace (%s)\n", ws->anchors[0].real);
			if (hint != NULL)
				fprintf(stderr, "wstools history: hint: %s\n", hint);
		}
	} else {
		struct ws_undo_opts o = {0};

		if (cli->npos > 0) {
			char *end;

			o.id = strtoll(cli->pos[0], &end, 10);
			if (*end != '\0' || o.id <= 0) {
				rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
						  "\"%s\" is not a history id", cli->pos[0]);
				goto fail;
			}
		}
		/*
		 * 0 in the options means "not given": a count or an id of 0
		 * or less given must not become "the newest" (ftu13 01).
		 */
		if ((WS_OPT(cli, U_N)->set && WS_OPT(cli, U_N)->i <= 0) ||
		    (WS_OPT(cli, U_TO)->set && WS_OPT(cli, U_TO)->i <= 0)) {
			rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL, "%s takes %s of 1 or more",
					  WS_OPT(cli, U_N)->set && WS_OPT(cli, U_N)->i <= 0
						  ? "-n (count)" : "--to (to)",
					  WS_OPT(cli, U_N)->set && WS_OPT(cli, U_N)->i <= 0
						  ? "a count" : "an id");
			goto fail;
		}
		o.n = WS_OPT(cli, U_N)->set ? WS_OPT(cli, U_N)->i : 0;
		o.to = WS_OPT(cli, U_TO)->set ? WS_OPT(cli, U_TO)->i : 0;
		o.dry_run = WS_OPT(cli, U_DRY_RUN)->b;
		o.force = WS_OPT(cli, U_FORCE)->b;
		if ((o.id > 0) + (o.n > 0) + (o.to > 0) > 1) {
			rc = ws_error_set(WS_EINVALID_ARGUMENT, NULL,
					  "give one of ID, -n N and --to ID");
			goto fail;
		}
		if ((rc = ws_hist_undo(ws, &o, &arr)) < 0)
			goto fail;
		if (!o.dry_run)
			audit_undone(cli, arr);
		if (!cli->json && o.dry_run)
			fputs("would undo:\n", ws_out());
		else if (!cli->json)
			fputs("undone:\n", ws_out());
		print_hist(c, o.dry_run ? "would_undo" : "undone", arr, NULL,
			   o.dry_run ? "would undo:\n" : "undone:\n");
	}
	goto out;
fail:
	status = ws_tcall_fail(c, rc);
out:
	cJSON_Delete(arr);
	free(above);
	free(hint);
	return status;
}

static int history_run(struct ws_tcall *c) { return hist_run(c, &ws__history_cli); }
static int undo_run(struct ws_tcall *c) { return hist_run(c, &ws__undo_cli); }

/* No title or output schema: tools/list gives them as --schema does. */
const struct ws_tool_def ws_tool_history = {
	.name = "history",
	.cli = &ws__history_cli,
	.ro = true,
	.idempotent = true,
	.want_history = true,
	.check = hist_check,
	.run = history_run,
};
const struct ws_tool_def ws_tool_undo = {
	.name = "undo",
	.cli = &ws__undo_cli,
	.destructive = true,
	.want_history = true,
	.check = hist_check,
	.run = undo_run,
};
