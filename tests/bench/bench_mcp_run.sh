#!/usr/bin/env bash
# bench_mcp_run.sh - run_command `true` through `wstools mcp` (issue 20:
# target <= 1.5 ms a call) beside `wsrun true` and the floor, in one
# interleaved run (tests/bench/mcp_run_il.py: each round one call on each
# server and one run of each command, in a new shuffled order), medians,
# the load average first:
#
#   - run_command ["true"] through one connection, with the inits made
#     ahead of each call (the default) and without (WS_RUN_AHEAD=0);
#   - wsrun true (one exec per call: what an agent that shells out pays);
#   - the floor: a static program that forks, execs true and waits;
#   - true itself.
#
# The client is raw JSON-RPC over stdio (standard library only); a call
# is timed from writing the request to reading its answer.  ROUNDS
# (default 300) sets the rounds.  The machine is shared: compare rows of
# one table only.
#
#   tests/bench/bench_mcp_run.sh
source "$(dirname "$0")/lib.sh"
need python3 python3
bin=$(bench_bin)
here=$bench_top/tests/bench
rounds=${ROUNDS:-300}
export LC_ALL=C
unset WS_ROOT WS_MOUNTS WS_POLICY WS_FORMAT WS_PATHS WS_STRICT WS_CONFIG WS_VIEW
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws"
sed -n '/^#include <sys\/wait.h>/,/^}/p' "$here/bench_wsrun.sh" >"$tmp/few.c"
exec_rows=()
if cc -O2 -static -o "$tmp/forkexec" "$tmp/few.c" 2>/dev/null ||
	cc -O2 -o "$tmp/forkexec" "$tmp/few.c" 2>/dev/null; then
	exec_rows+=(--exec "static fork+exec+wait true (the floor)" "$tmp/forkexec true")
fi
echo "== run_command true through wstools mcp ($rounds rounds; ratios to the floor)"
python3 "$here/mcp_run_il.py" --rounds "$rounds" --warmup 20 \
	--args '{"command":["true"]}' \
	--server "mcp run_command true" "$bin/wstools mcp --workspace $tmp/ws" \
	--server "mcp run_command true, nothing made ahead" \
	"WS_RUN_AHEAD=0 $bin/wstools mcp --workspace $tmp/ws" \
	--exec "wsrun --view virtual true" "$bin/wsrun --workspace $tmp/ws --view virtual true" \
	--exec "wsrun true" "$bin/wsrun --workspace $tmp/ws true" \
	"${exec_rows[@]}" \
	--exec "true" "true" >"$tmp/out"
head -n 1 "$tmp/out" | sed 's/^# /  /'
awk -F'\t' '
	/^#/ { next }
	{ name[NR] = $1; med[NR] = $2; if ($1 ~ /the floor/) floor = $2; n = NR }
	END {
		if (floor == "") floor = med[n]
		for (i = 1; i <= n; i++)
			if (name[i] != "")
				printf "  %-48s %8.2f ms %+8.2f %6.2fx\n", name[i], med[i],
				       med[i] - floor, med[i] / floor
	}' "$tmp/out"
python3 - "$tmp/out" <<'PY'
import sys
m = {}
for l in open(sys.argv[1]):
    if l.startswith("#"):
        continue
    k, v = l.split("\t")[:2]
    m[k] = float(v)
v = m["mcp run_command true"]
print(f"\n== target (issue 20)\n  {'run_command true via MCP':44s} {v:8.2f} ms  "
      f"{'met' if v <= 1.5 else 'MISSED':6s} (<= 1.5 ms)")
PY
