#!/usr/bin/env bash
# loop.sh - the smallest agent harness: tool calls in, tool results out.
#
# Reads one tool call per line on standard input, as a model emits them:
#   {"id": "call_1", "name": "read_file", "arguments": {"path": "/src/main.c"}}
# runs each through `wstools call` (arguments on standard input, so content
# of any size fits), and writes one line per result for the model:
#   {"id": "call_1", "ok": true, "exit": 0, "result": {...the tool's JSON...}}
#
# The workspace is fixed here, by the harness, never by the model:
#   WS_ROOT=/path/to/project examples/harness/loop.sh < calls.jsonl
set -uo pipefail
: "${WS_ROOT:?set WS_ROOT to the workspace}"
export WS_PATHS=${WS_PATHS:-virtual}	# the model never sees host paths

while IFS= read -r call; do
	# A line that is not a call gets an error result, and the loop goes on.
	if ! id=$(jq -ec '.id' <<<"$call" 2>/dev/null) ||
		! name=$(jq -er '.name | strings' <<<"$call" 2>/dev/null); then
		jq -nc --argjson id "${id:-null}" \
			'{id: $id, ok: false, result: {error: {code: "INVALID_CALL"}}}' 2>/dev/null ||
			echo '{"id":null,"ok":false,"result":{"error":{"code":"INVALID_CALL"}}}'
		continue
	fi
	result=$(jq -c '.arguments // {}' <<<"$call" | wstools call "$name" -)
	status=$?
	# Exit 1 is wsgrep's "nothing matched": a result, not a failure.  The
	# result goes to jq on its standard input: as an argument, one over
	# 128 KiB would not fit.
	printf '%s' "$result" | jq -c --argjson id "$id" --argjson st "$status" \
		'{id: $id, ok: .success, exit: $st, result: .}'
done
