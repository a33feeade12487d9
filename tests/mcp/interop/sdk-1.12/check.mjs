#!/usr/bin/env node
// check.mjs - an older client: the MCP TypeScript SDK 1.12, which asks for
// protocol 2025-03-26 and refuses a server that answers another version.
// It connects to CMD (native tool names, or --compat mcp-filesystem),
// lists the tools (the SDK compiles every output schema with Ajv) and
// makes a few calls (it checks each structuredContent against its
// schema); exit 1 on any failure.
//
//   node check.mjs native|compat -- CMD [ARG...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const argv = process.argv.slice(2);
const dd = argv.indexOf("--");
if (dd !== 1 || !["native", "compat"].includes(argv[0]) || dd === argv.length - 1) {
	process.stderr.write("usage: check.mjs native|compat -- CMD [ARG...]\n");
	process.exit(2);
}
const mode = argv[0];
const cmd = argv.slice(dd + 1);
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "wst-sdk112-")));
fs.writeFileSync(path.join(tmp, "a.txt"), "one\ntwo\nthree\n");
fs.mkdirSync(path.join(tmp, "sub"));
fs.writeFileSync(path.join(tmp, "sub", "b.txt"), "two\n");

// [tool, arguments, success expected]
const calls = mode === "native" ? [
	["read_file", { path: "/a.txt" }, true],
	["read_file", { path: "/a.txt", start_line: 2, end_line: 2 }, true],
	["list_directory", { path: "/", recursive: true }, true],
	["search_files", { pattern: "two" }, true],
	["write_file", { path: "/c.txt", content: "c\n" }, true],
	["read_file", { path: "/missing" }, false],
] : [
	["list_allowed_directories", {}, true],
	["read_text_file", { path: path.join(tmp, "a.txt") }, true],
	["list_directory", { path: tmp }, true],
	["read_text_file", { path: path.join(tmp, "missing") }, false],
	["no_such_tool", {}, false],
];

const failures = [];
// The suite's state directory too: the SDK's default environment drops it.
const env = getDefaultEnvironment();
if (process.env.XDG_STATE_HOME)
	env.XDG_STATE_HOME = process.env.XDG_STATE_HOME;
const transport = new StdioClientTransport({ command: cmd[0], args: [...cmd.slice(1), tmp], env });
const client = new Client({ name: "wstools-interop-sdk-1.12", version: "1.0.0" });
try {
	await client.connect(transport);
	const tools = (await client.listTools()).tools;
	if (tools.length < 9)
		failures.push(`tools/list: ${tools.length} tools`);
	for (const [name, args, ok] of calls) {
		try {
			const r = await client.callTool({ name, arguments: args });
			if ((r.isError === true) === ok)
				failures.push(`${name} ${JSON.stringify(args)}: isError ${r.isError}: ${JSON.stringify(r.content)}`);
		} catch (e) {
			failures.push(`${name} ${JSON.stringify(args)}: ${e.message ?? e}`);
		}
	}
} catch (e) {
	failures.push(`connect: ${e.message ?? e}`);
} finally {
	await client.close().catch(() => {});
	fs.rmSync(tmp, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify({ mode, failures }, null, 2) + "\n");
process.exit(failures.length === 0 ? 0 : 1);
