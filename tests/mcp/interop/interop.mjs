#!/usr/bin/env node
// interop.mjs - drive an MCP filesystem server with the official TypeScript
// SDK (Client + StdioClientTransport) on a fixed list of calls, and print
// one JSON report of what it answered.
//
//   node interop.mjs run native|compat -- CMD [ARG...]
//       Create a temporary workspace (ws/ and extra/ under one directory),
//       start CMD ARG... ws extra, run initialize, tools/list and the call
//       list of that mode, print the report on stdout.
//   node interop.mjs compare REFERENCE.json -- CMD [ARG...]
//       Run the compat calls against CMD and compare them with a recorded
//       report of the reference server (normalised, see below); print the
//       differences and exit 1 if there are any.
//   node interop.mjs check-native [REFERENCE.json] -- CMD [ARG...]
//       Run the native calls against CMD and check each outcome against
//       what the call list expects, every schema of tools/list under Ajv's
//       strict mode, and (given a report of the reference server) that
//       tools/list is smaller than the reference's; exit 1 on any surprise.
//
// Paths in reports are normalised: the temporary directory's real path is
// written $TMP, so a report recorded on one machine compares on another.
// The workspace is created afresh for every run, so write calls see the
// same starting tree.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import Ajv from "ajv";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

function usage() {
	process.stderr.write(
		"usage: interop.mjs run native|compat -- CMD [ARG...]\n" +
		"       interop.mjs compare REFERENCE.json -- CMD [ARG...]\n" +
		"       interop.mjs check-native [REFERENCE.json] -- CMD [ARG...]\n");
	process.exit(2);
}

// The fixture tree. Every run starts from exactly this.
function makeTree() {
	const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "wst-mcp-")));
	const ws = path.join(tmp, "ws");
	const extra = path.join(tmp, "extra");
	fs.mkdirSync(path.join(ws, "sub", "deep"), { recursive: true });
	fs.mkdirSync(path.join(ws, "node_modules", "pkg"), { recursive: true });
	fs.mkdirSync(extra);
	fs.writeFileSync(path.join(ws, "a.txt"), "line1\nline2\nline3\nline4\n");
	fs.writeFileSync(path.join(ws, "noeol.txt"), "one\ntwo\nthree");
	fs.writeFileSync(path.join(ws, "big.txt"), "x".repeat(5000) + "\n");
	fs.writeFileSync(path.join(ws, "sub", "b.md"), "# b\n");
	fs.writeFileSync(path.join(ws, "sub", "deep", "c.txt"), "deep\n");
	fs.writeFileSync(path.join(ws, "node_modules", "pkg", "index.txt"), "pkg\n");
	fs.writeFileSync(path.join(ws, "img.png"),
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
	fs.writeFileSync(path.join(ws, "blob.bin"), Buffer.from([0, 1, 2, 3, 255]));
	fs.writeFileSync(path.join(extra, "e.txt"), "extra file\n");
	fs.writeFileSync(path.join(tmp, "outside.txt"), "secret\n");
	// In sub/, where no listing with sizes looks: the reference stats the
	// target outside (and shows its size), which the toolbox never does.
	fs.symlinkSync(path.join(tmp, "outside.txt"), path.join(ws, "sub", "escape.txt"));
	return { tmp, ws, extra };
}

// The calls of compat mode: the reference server's tool names and
// arguments. $WS and $EXTRA are replaced by the real directories.
const compatCalls = [
	["list_allowed_directories", {}],
	["list_directory", { path: "$WS" }],
	["list_directory", { path: "$WS/sub" }],
	["list_directory", { path: "$EXTRA" }],
	["list_directory", { path: "$WS/a.txt" }],
	["list_directory_with_sizes", { path: "$WS" }],
	["list_directory_with_sizes", { path: "$WS", sortBy: "size" }],
	["read_text_file", { path: "$WS/a.txt" }],
	["read_text_file", { path: "a.txt" }],
	["read_text_file", { path: "$WS/a.txt", head: 2 }],
	["read_text_file", { path: "$WS/a.txt", tail: 2 }],
	["read_text_file", { path: "$WS/noeol.txt", head: 2 }],
	["read_text_file", { path: "$WS/noeol.txt", tail: 2 }],
	["read_text_file", { path: "$WS/a.txt", head: 1, tail: 1 }],
	["read_text_file", { path: "$WS/big.txt" }],
	["read_text_file", { path: "$EXTRA/e.txt" }],
	["read_text_file", { path: "$WS/missing.txt" }],
	["read_text_file", { path: "/etc/hostname" }],
	["read_text_file", { path: "$WS/../outside.txt" }],
	["read_text_file", { path: "$WS/sub/escape.txt" }],
	["read_file", { path: "$WS/sub/b.md" }],
	["read_media_file", { path: "$WS/img.png" }],
	["read_media_file", { path: "$WS/blob.bin" }],
	["read_multiple_files", { paths: ["$WS/a.txt", "$EXTRA/e.txt", "$WS/missing.txt"] }],
	["write_file", { path: "$WS/new.txt", content: "new content\n" }],
	["read_text_file", { path: "$WS/new.txt" }],
	["write_file", { path: "$WS/a.txt", content: "line1\nline2\nline3\nline4\n" }],
	["write_file", { path: "$WS/nodir/x.txt", content: "x" }],
	["write_file", { path: "/etc/wst-mcp-interop", content: "x" }],
	["edit_file", { path: "$WS/a.txt", edits: [{ oldText: "line2", newText: "LINE2" }], dryRun: true }],
	["read_text_file", { path: "$WS/a.txt" }],
	["edit_file", { path: "$WS/a.txt", edits: [{ oldText: "line2", newText: "LINE2" }, { oldText: "line4\n", newText: "line4\nline5\n" }] }],
	["read_text_file", { path: "$WS/a.txt" }],
	["edit_file", { path: "$WS/a.txt", edits: [{ oldText: "not there", newText: "x" }] }],
	["create_directory", { path: "$WS/d1/d2" }],
	["create_directory", { path: "$WS/d1" }],
	["list_directory", { path: "$WS/d1" }],
	["move_file", { source: "$WS/new.txt", destination: "$WS/d1/moved.txt" }],
	["move_file", { source: "$WS/noeol.txt", destination: "$WS/a.txt" }],
	["move_file", { source: "$WS/missing.txt", destination: "$WS/m2.txt" }],
	["directory_tree", { path: "$WS/sub" }],
	["directory_tree", { path: "$WS", excludePatterns: ["node_modules", "*.png"] }],
	["search_files", { path: "$WS", pattern: "**/*.txt" }],
	["search_files", { path: "$WS", pattern: "*.txt" }],
	["search_files", { path: "$WS", pattern: "**/*.txt", excludePatterns: ["node_modules/**", "d1"] }],
	["search_files", { path: "$WS", pattern: "*.nothing" }],
	["get_file_info", { path: "$WS/a.txt" }],
	["get_file_info", { path: "$WS/sub" }],
	["get_file_info", { path: "/etc" }],
	["no_such_tool", {}],
];

// The calls of native mode: the toolbox's names, virtual paths, and the
// outcome each must have (true: success).
const nativeCalls = [
	["list_directory", { path: "/" }, true],
	["list_directory", { path: "/sub" }, true],
	["read_file", { path: "/a.txt" }, true],
	["read_file", { path: "a.txt", start_line: 2, end_line: 3 }, true],
	["read_file", { path: "/img.png" }, true],
	["read_file", { path: "/missing.txt" }, false],
	["read_file", { path: "../outside.txt" }, false],
	["read_file", { path: "/escape.txt" }, false],
	["write_file", { path: "/new.txt", content: "new\n" }, true],
	["edit_file", { path: "/new.txt", old: "new", new: "old" }, true],
	["edit_file", { path: "/new.txt", old: "absent", new: "x" }, false],
	["create_directory", { path: "/d1/d2" }, true],
	["move_path", { source: "/new.txt", destination: "/d1/new.txt" }, true],
	["search_files", { pattern: "line", paths: ["/"] }, true],
	["delete_path", { path: "/d1", recursive: true }, true],
	["run_command", { command: ["true"] }, null],
];

function subst(v, tree) {
	if (typeof v === "string")
		return v.replaceAll("$WS", tree.ws).replaceAll("$EXTRA", tree.extra);
	if (Array.isArray(v))
		return v.map((x) => subst(x, tree));
	if (v && typeof v === "object")
		return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, subst(x, tree)]));
	return v;
}

function unsubst(v, tree) {
	if (typeof v === "string") {
		// file:// URLs carry the path too.
		return v.replaceAll(tree.tmp, "$TMP");
	}
	if (Array.isArray(v))
		return v.map((x) => unsubst(x, tree));
	if (v && typeof v === "object")
		return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unsubst(x, tree)]));
	return v;
}

// The environment a client gives its server by default (a few variables
// only), and the suite's state directory: the SDK drops XDG_STATE_HOME,
// and the server's history went to the developer's own HOME (CI's check
// of HOME's state found it).
function serverEnv() {
	const env = getDefaultEnvironment();
	if (process.env.XDG_STATE_HOME)
		env.XDG_STATE_HOME = process.env.XDG_STATE_HOME;
	return env;
}

async function runServer(mode, cmd) {
	const tree = makeTree();
	const calls = mode === "native" ? nativeCalls : compatCalls;
	const transport = new StdioClientTransport({
		command: cmd[0],
		args: [...cmd.slice(1), tree.ws, tree.extra],
		env: serverEnv(),
		stderr: "pipe",
	});
	let stderr = "";
	transport.stderr?.on("data", (d) => { stderr += d; });
	const client = new Client({ name: "wstools-interop", version: "1.0.0" });
	const report = { server: null, tools: [], calls: [] };
	try {
		await client.connect(transport);
		report.server = client.getServerVersion() ?? null;
		report.capabilities = client.getServerCapabilities() ?? null;
		const list = await client.listTools();
		// What a model is sent, compact, as the server writes it.
		report.tools_list_bytes = JSON.stringify(list).length;
		report.tools = list.tools.map((t) => ({
			name: t.name,
			title: t.title,
			description: t.description,
			inputSchema: t.inputSchema,
			outputSchema: t.outputSchema,
			annotations: t.annotations,
		}));
		for (const [name, args, expect] of calls) {
			const entry = { name, arguments: args };
			if (expect !== undefined)
				entry.expect = expect;
			try {
				const r = await client.callTool({ name, arguments: subst(args, tree) });
				entry.isError = r.isError === true;
				entry.content = r.content;
				if (r.structuredContent !== undefined)
					entry.structuredContent = r.structuredContent;
			} catch (e) {
				// A JSON-RPC error rather than a tool error.
				entry.rpcError = { code: e.code ?? null, message: String(e.message ?? e) };
			}
			report.calls.push(unsubst(entry, tree));
		}
		if (mode === "native")
			report.progress_reset = await longCall(client, true);
	} finally {
		await client.close().catch(() => {});
		fs.rmSync(tree.tmp, { recursive: true, force: true });
	}
	if (stderr.length > 0)
		report.stderr_bytes = stderr.length;
	return report;
}

// A command longer than the client's request timeout (0.7 s here, 60 s by
// the SDK's default): answered when the client resets its timeout on the
// server's progress notifications (README, "Timeouts"). "answered" or
// "timeout" (the outcome of the command itself does not matter: the
// sandbox may be unavailable where this runs).
async function longCall(client, reset) {
	try {
		await client.callTool({ name: "run_command", arguments: { command: ["sleep", "1.5"] } },
			undefined, { timeout: 700, resetTimeoutOnProgress: reset, onprogress: () => {} });
		return "answered";
	} catch (e) {
		return /timed out|timeout/i.test(String(e.message ?? e)) ? "timeout" : `error: ${e.message ?? e}`;
	}
}

// --- comparison -----------------------------------------------------------

// The text of a call's result, normalised for comparison: the order of
// directory entries is the file system's in the reference (readdir order),
// so listings and search results compare as sorted lines; dates in
// get_file_info differ between runs; the wording of inline errors in
// read_multiple_files is each server's own.
function normText(name, text) {
	if (typeof text !== "string")
		return text;
	switch (name) {
	case "list_directory":
	case "search_files":
		return text.split("\n").sort().join("\n");
	case "list_directory_with_sizes": {
		const lines = text.split("\n");
		const cut = lines.indexOf("");
		const body = cut < 0 ? lines : lines.slice(0, cut);
		const tail = cut < 0 ? [] : lines.slice(cut);
		return [...body.sort(), ...tail].join("\n");
	}
	case "directory_tree": {
		const sortTree = (a) => a
			.map((e) => (e.children ? { ...e, children: sortTree(e.children) } : e))
			.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
		try {
			return JSON.stringify(sortTree(JSON.parse(text)), null, 2);
		} catch {
			return text;
		}
	}
	case "get_file_info": {
		const t = text.replace(/^(created|modified|accessed): .*$/gm, "$1: <date>");
		// A directory's size is its file system's (4096 on ext4, the
		// bytes of its entries on tmpfs): not a server's answer.
		return /^isDirectory: true$/m.test(t) ? t.replace(/^size: .*$/m, "size: <dir>") : t;
	}
	case "read_multiple_files":
		// Inline errors are worded by each server.
		return text.replace(/^(.*?): Error - .*$/gm, "$1: Error - <message>");
	default:
		return text;
	}
}

// The sortBy:size listing orders by size only; ties are in readdir order.
function normCall(c) {
	const out = { outcome: c.rpcError ? "rpc-error" : c.isError ? "error" : "ok" };
	if (out.outcome !== "ok")
		return out;
	out.content = (c.content ?? []).map((b) => (b.type === "text" ? { ...b, text: normText(c.name, b.text) } : b));
	if (c.structuredContent !== undefined) {
		const s = c.structuredContent;
		out.structuredContent = typeof s.content === "string" ? { ...s, content: normText(c.name, s.content) } : s;
	}
	return out;
}

function compare(ref, cand) {
	const diffs = [];
	const refNames = ref.tools.map((t) => t.name).sort();
	const candNames = cand.tools.map((t) => t.name).sort();
	if (JSON.stringify(refNames) !== JSON.stringify(candNames))
		diffs.push({ what: "tools/list names", reference: refNames, candidate: candNames });
	for (const rt of ref.tools) {
		const ct = cand.tools.find((t) => t.name === rt.name);
		if (!ct)
			continue;
		const rp = Object.keys(rt.inputSchema?.properties ?? {}).sort();
		const cp = Object.keys(ct.inputSchema?.properties ?? {}).sort();
		if (JSON.stringify(rp) !== JSON.stringify(cp))
			diffs.push({ what: `${rt.name}: argument names`, reference: rp, candidate: cp });
		const rr = [...(rt.inputSchema?.required ?? [])].sort();
		const cr = [...(ct.inputSchema?.required ?? [])].sort();
		if (JSON.stringify(rr) !== JSON.stringify(cr))
			diffs.push({ what: `${rt.name}: required arguments`, reference: rr, candidate: cr });
	}
	for (let i = 0; i < ref.calls.length; i++) {
		const r = ref.calls[i];
		const c = cand.calls[i];
		if (!c || c.name !== r.name) {
			diffs.push({ what: `call ${i}: missing`, reference: r.name });
			continue;
		}
		const nr = normCall(r);
		const nc = normCall(c);
		if (JSON.stringify(nr) !== JSON.stringify(nc))
			diffs.push({ what: `call ${i}: ${r.name} ${JSON.stringify(r.arguments)}`, reference: nr, candidate: nc, candidate_raw: c });
	}
	return diffs;
}

async function main() {
	const argv = process.argv.slice(2);
	const dd = argv.indexOf("--");
	if (dd < 0 || dd === argv.length - 1)
		usage();
	const cmd = argv.slice(dd + 1);
	const head = argv.slice(0, dd);
	if (head[0] === "run" && (head[1] === "native" || head[1] === "compat")) {
		const report = await runServer(head[1], cmd);
		process.stdout.write(JSON.stringify(report, null, 2) + "\n");
		return 0;
	}
	if (head[0] === "compare" && head[1]) {
		const ref = JSON.parse(fs.readFileSync(head[1], "utf8"));
		const cand = await runServer("compat", cmd);
		const diffs = compare(ref, cand);
		process.stdout.write(JSON.stringify({ calls: cand.calls.length, differences: diffs }, null, 2) + "\n");
		return diffs.length === 0 ? 0 : 1;
	}
	if (head[0] === "check-native") {
		const report = await runServer("native", cmd);
		const bad = report.calls.filter((c) => c.expect !== null && (c.rpcError || (c.isError === c.expect)));
		const missing = ["list_directory", "read_file", "write_file", "edit_file", "create_directory",
			"move_path", "delete_path", "search_files", "run_command"]
			.filter((n) => !report.tools.some((t) => t.name === n));
		const noStruct = report.calls.filter((c) => c.isError === false && c.structuredContent === undefined);
		// Every input and output schema compiles under Ajv's strict mode
		// (issue 20: one type per property, known keywords only).
		const ajv = new Ajv({ strict: true, allErrors: true });
		const notStrict = [];
		for (const t of report.tools) {
			for (const k of ["inputSchema", "outputSchema"]) {
				if (t[k] === undefined)
					continue;
				try {
					ajv.compile(t[k]);
				} catch (e) {
					notStrict.push(`${t.name}.${k}: ${e.message}`);
				}
			}
		}
		// An image read by read_file is an image block (as read_media_file's).
		const img = report.calls.find((c) => c.name === "read_file" && c.arguments.path === "/img.png");
		if (!img || !(img.content ?? []).some((b) => b.type === "image" && b.mimeType === "image/png"))
			bad.push({ name: "read_file /img.png", why: "no image block", got: img?.content });
		// tools/list stays smaller than the reference server's (head is
		// ["check-native", REFERENCE.json] when a reference report is given).
		let bigger = null;
		if (head[1]) {
			const ref = JSON.parse(fs.readFileSync(head[1], "utf8"));
			if (!(report.tools_list_bytes < ref.tools_list_bytes))
				bigger = { ours: report.tools_list_bytes, reference: ref.tools_list_bytes };
		}
		process.stdout.write(JSON.stringify({ server: report.server, missing_tools: missing,
			unexpected: bad, without_structured_content: noStruct.map((c) => c.name),
			not_strict: notStrict, tools_list_bytes: report.tools_list_bytes,
			bigger_than_reference: bigger, progress_reset: report.progress_reset }, null, 2) + "\n");
		return bad.length === 0 && missing.length === 0 && noStruct.length === 0 &&
			notStrict.length === 0 && bigger === null &&
			report.progress_reset === "answered" ? 0 : 1;
	}
	usage();
}

main().then((rc) => process.exit(rc), (e) => {
	process.stderr.write(`interop.mjs: ${e.stack ?? e}\n`);
	process.exit(2);
});
