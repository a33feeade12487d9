#!/bin/sh
# The approval question escaped control bytes and bidi/zero-width
# characters but passed wide blanks and invisible characters raw: Hangul
# fillers (U+3164), the ideographic space, NBSP, tag characters (hidden
# ASCII), variation selectors.  "ls -la # read-only" followed by fillers
# pushes "; rm -rf src" out of a prompt's sight.  Prints the elicitation
# message wstools mcp sends for such a command.
# Usage: review/approval_blanks.sh [BUILD_DIR]
B=${1:-build}/cmd
T=$(mktemp -d); mkdir $T/ws
cat > $T/p.json <<'P'
{"version": 1, "file_rules": [{"name": "all", "paths": ["/**"], "operations": ["read","write","list","delete","exec"], "decision": "allow"}],
 "command_rules": [{"name": "ask", "patterns": ["."], "decision": "approve"}]}
P
fill=$(printf '\343\205\244%.0s' $(seq 40))
cmd="ls -la # read-only$fill; rm -rf src"
(printf '%s\n%s\n' \
 '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"x","version":"1"}}}' \
 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"run_command\",\"arguments\":{\"command\":\"$cmd\"}}}"; sleep 2) |
 timeout 5 $B/wstools mcp --workspace $T/ws --policy $T/p.json 2>/dev/null | grep elicitation |
 python3 -c 'import json,sys; m=json.loads(sys.stdin.readline())["params"]["message"].split("\n")[0]; print(m); print("VULNERABLE: raw fillers" if "\u3164" in m else "held: escaped")'
rm -rf $T
