#!/usr/bin/env bash
# harness_check.sh BINDIR - the two harness loops of docs/harness.md
# (examples/harness/loop.sh with jq, loop.py) run the sample tool calls on
# a copy of the example workspace and give the results docs/harness.md shows:
# the same outcome per call from both, the escape refused, the edit made.
set -uo pipefail
# WST_BIN_DIR, where set, replaces BINDIR (tests/valgrind/run.sh).
bindir=$(cd "${WST_BIN_DIR:-${1:?usage: harness_check.sh BINDIR}}" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v jq >/dev/null || { echo "harness_check: jq not installed, skipped"; exit 77; }
export PATH=$bindir:$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for loop in loop.sh loop.py; do
	rm -rf "$tmp/ws"
	cp -r "$top/examples/workspace" "$tmp/ws"
	WS_ROOT=$tmp/ws "$top/examples/harness/$loop" \
		<"$top/examples/harness/calls.jsonl" >"$tmp/$loop.out" || {
		echo "harness_check: $loop failed"; fail=1; continue; }
	got=$(jq -r '"\(.id):\(.ok):\(.exit):\(.result.error.code // "-")"' "$tmp/$loop.out" | tr '\n' ' ')
	want="1:true:0:- 2:true:0:- 3:true:0:- 4:false:3:PATH_OUTSIDE_WORKSPACE 5:true:0:- "
	if [ "$got" != "$want" ]; then
		echo "harness_check: $loop: got  $got"
		echo "harness_check: $loop: want $want"
		fail=1
	fi
	grep -qx -- '- write and run the tests' "$tmp/ws/notes/todo.txt" ||
		{ echo "harness_check: $loop: the edit did not land"; fail=1; }
	# The loop again on the same workspace (a person who ran it on
	# examples/workspace itself): the edit finds nothing to replace
	# and the file stays as the first run left it (FTU10 12).
	cp "$tmp/ws/notes/todo.txt" "$tmp/todo.once"
	WS_ROOT=$tmp/ws "$top/examples/harness/$loop" \
		<"$top/examples/harness/calls.jsonl" >"$tmp/$loop.again" || {
		echo "harness_check: $loop failed the second time"; fail=1; continue; }
	got=$(jq -r 'select(.id == "5") | "\(.ok):\(.result.error.code // "-")"' "$tmp/$loop.again")
	[ "$got" = "false:EDIT_NO_MATCH" ] ||
		{ echo "harness_check: $loop: the edit again: got $got"; fail=1; }
	cmp -s "$tmp/todo.once" "$tmp/ws/notes/todo.txt" ||
		{ echo "harness_check: $loop: the second run changed notes/todo.txt"; fail=1; }
	# The model reads file content, and never a host path.
	jq -e -s 'map(select(.id == "3"))[0].result.output.content == "#include <stdio.h>\n\nint\n"' \
		"$tmp/$loop.out" >/dev/null || { echo "harness_check: $loop: read_file content"; fail=1; }
	if grep -q "$tmp" "$tmp/$loop.out"; then
		echo "harness_check: $loop: a host path reached the model"; fail=1
	fi
done
# Robustness: a line that is not JSON, an unknown tool, and a result far
# over 128 KiB (one command-line argument's limit) each get a result line
# (wstools call names an unknown tool INVALID_ARGUMENT, loop.py UNKNOWN_TOOL).
# The model's 3000 results are held to wstools call's ceiling of 1000
# (wstools(1)); long lines keep the result over 128 KiB.
for loop in loop.sh loop.py; do
	rm -rf "$tmp/ws"
	cp -r "$top/examples/workspace" "$tmp/ws"
	pad=$(printf '%0200d' 0)
	for i in $(seq 1 3000); do echo "needle line $i of a long search $pad"; done >"$tmp/ws/big.txt"
	printf '%s\n' '{"id": "a", "name": "read_file"' \
		'{"id": "b", "name": "no_such_tool", "arguments": {}}' \
		'{"id": "c", "name": "search_files", "arguments": {"pattern": "needle", "max_results": 3000}}' |
		WS_ROOT=$tmp/ws "$top/examples/harness/$loop" >"$tmp/$loop.bad" 2>/dev/null
	got=$(jq -r '"\(.id):\(.ok):\(.result.output.summary.results // .result.error.code)"' \
		"$tmp/$loop.bad" | tr '\n' ' ' | sed 's/INVALID_ARGUMENT/UNKNOWN_TOOL/')
	case $got in
	"null:false:INVALID_CALL b:false:UNKNOWN_TOOL c:true:1000 " | \
	"a:false:INVALID_CALL b:false:UNKNOWN_TOOL c:true:1000 ") ;;
	*) echo "harness_check: $loop on bad input: got $got"; fail=1 ;;
	esac
done
[ "$fail" -eq 0 ] && echo "harness_check: ok (loop.sh and loop.py)"
exit "$fail"
