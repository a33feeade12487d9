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
	id=$(jq -r '.id' <<<"$call")
	name=$(jq -r '.name' <<<"$call")
	result=$(jq -c '.arguments' <<<"$call" | wstools call "$name" -)
	status=$?
	# Exit 1 is wsgrep's "nothing matched": a result, not a failure.
	jq -nc --arg id "$id" --argjson r "$result" --argjson st "$status" \
		'{id: $id, ok: $r.success, exit: $st, result: $r}'
done
