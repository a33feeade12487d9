#!/usr/bin/env bash
# run.sh - the MCP interop test (meson suite mcp-interop): the official
# TypeScript SDK's client drives
#   1. wstools mcp (our tool names): every tool listed, each call's
#      outcome as expected, structuredContent on every success, every
#      schema compiled by Ajv in strict mode, tools/list smaller than the
#      reference server's (both sizes printed);
#   2. the reference server (@modelcontextprotocol/server-filesystem) and
#      wstools mcp --compat mcp-filesystem on the same calls, on the same
#      fixture: same tool names, argument names and required arguments in
#      tools/list, same outcome of every call, same text where the
#      reference's is deterministic (see normText in interop.mjs);
#   3. the reference server against its transcript recorded in
#      reference/ (the pinned version still answers as recorded, so the
#      unit suite's replay of that transcript stays meaningful);
#   4. an older client, the SDK 1.12 (protocol 2025-03-26), on both
#      modes, when it is installed (npm ci in sdk-1.12/; else a line says
#      it was not run).
# Skipped (exit 77) where node or the npm packages (npm ci here) or the
# mcp command are missing.
#   run.sh BUILD_DIR/cmd
set -u
here=$(cd "$(dirname "$0")" && pwd)
wstools=${1:?usage: run.sh BUILD_DIR/cmd}/wstools
ref=$here/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
if ! command -v node >/dev/null 2>&1; then
	echo "SKIP: node is not installed (apt-get install nodejs npm)"
	exit 77
fi
if [ ! -f "$ref" ] || [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ]; then
	echo "SKIP: the npm packages are not installed (cd tests/mcp/interop && npm ci)"
	exit 77
fi
if ! "$wstools" mcp --help >/dev/null 2>&1; then
	echo "SKIP: $wstools has no mcp command"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$here"
status=0
step() { # NAME CMD...: run, show its report on failure
	local name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		echo "ok   $name"
	else
		echo "FAIL $name"
		cat "$tmp/out"
		status=1
	fi
}
if node interop.mjs run compat -- node "$ref" >"$tmp/ref.json" 2>"$tmp/ref.err"; then
	echo "ok   reference server: $(grep -c '"name"' "$tmp/ref.json") names in its report"
else
	echo "FAIL reference server did not run"
	cat "$tmp/ref.err"
	exit 1
fi
step "wstools mcp: tools/list (Ajv strict, smaller than the reference's) and native calls" \
	node interop.mjs check-native "$tmp/ref.json" -- "$wstools" mcp
echo "     tools/list bytes: wstools $(sed -n 's/.*"tools_list_bytes": \([0-9]*\).*/\1/p' "$tmp/out" | head -1), reference $(sed -n 's/.*"tools_list_bytes": \([0-9]*\).*/\1/p' "$tmp/ref.json" | head -1)"
step "wstools mcp --compat mcp-filesystem against the reference, same calls" \
	node interop.mjs compare "$tmp/ref.json" -- "$wstools" mcp --compat mcp-filesystem
step "reference server against its recorded transcript" \
	node interop.mjs compare reference/server-filesystem-2026.8.31.json -- node "$ref"
if [ -d "$here/sdk-1.12/node_modules/@modelcontextprotocol/sdk" ]; then
	step "SDK 1.12 client (2025-03-26): wstools mcp" \
		node sdk-1.12/check.mjs native -- "$wstools" mcp
	step "SDK 1.12 client (2025-03-26): wstools mcp --compat mcp-filesystem" \
		node sdk-1.12/check.mjs compat -- "$wstools" mcp --compat mcp-filesystem
else
	echo "not run: SDK 1.12 client (cd tests/mcp/interop/sdk-1.12 && npm ci)"
fi
exit $status
