#!/usr/bin/env bash
# bench_mcp.sh - wstools mcp against the reference MCP filesystem server
# (@modelcontextprotocol/server-filesystem, Node) and against one exec of
# the tool per call, measured in the same run, interleaved:
#
#   1. READ_CALLS read_file calls of a 4 KiB file per server (the
#      reference: read_text_file of the same file), the servers taking
#      turns in 50 rounds in a shuffled order, each on its own connection;
#      beside wstools mcp, the same server with the idle fast path off
#      (WS_MCP_INLINE=0: every call handed to a worker thread), its
#      --compat mode, and WS_BENCH_OLD=DIR's wstools when given
#   2. LIST_CALLS list_directory calls of a 64-entry directory, likewise
#   3. the same read and listing as one exec of wsread / wsls per call
#      (hyperfine -N: what an agent that shells out pays), if installed
#
# Per server: median (p10, p90) microseconds per call over all rounds,
# the median of the rounds' medians, ratios, the load average before and
# after, and the server's peak RSS after all its calls (10,000 reads by
# default).  The client (tests/bench/mcp_client.py --interleave) is raw
# JSON-RPC over stdio, one request at a time; its own cost is in every
# figure alike.  Goal (issue 20): read_file at most 100 us and at least
# 5x below the reference, peak RSS at most 4 MiB.
#
#   tests/bench/bench_mcp.sh [READ_CALLS] [LIST_CALLS] [EXEC_RUNS]
#   WS_BENCH_BIN=DIR uses already built binaries instead of build-release.
#
# On a busy machine every figure is mostly scheduling latency (a call is
# a few wake-ups of two processes): the rounds spread the load over every
# server alike; compare the ratios of one run.
#
# The reference server comes from tests/mcp/interop (npm ci there); a
# wstools without the mcp command is skipped with a note.
source "$(dirname "$0")/lib.sh"
need python3 python3
need node nodejs
bin=${WS_BENCH_BIN:-$(bench_bin)}
here=$bench_top/tests/bench
ref=$bench_top/tests/mcp/interop/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
reads=${1:-10000}
lists=${2:-1000}
execs=${3:-1000}
export LC_ALL=C
unset WS_ROOT WS_MOUNTS WS_POLICY WS_FORMAT WS_PATHS WS_STRICT WS_CONFIG
if [ ! -f "$ref" ]; then
	echo "bench_mcp: no reference server; run: (cd tests/mcp/interop && npm ci)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws=$tmp/ws
mkdir -p "$ws/src" "$ws/dir"
# A 4 KiB source-like file: 128 lines of 32 bytes, as bench_wsread.sh.
for i in $(seq 1 128); do printf 'int line_%04d = %-10d;  //\n' "$i" "$i"; done \
	>"$ws/src/small.c"
for i in $(seq 1 64); do printf 'x\n' >"$ws/dir/file_$i.txt"; done
printf 'node %s, reference server %s, %s\n\n' "$(node --version)" \
	"$(node -p "require('$bench_top/tests/mcp/interop/node_modules/@modelcontextprotocol/server-filesystem/package.json').version")" \
	"$(nproc) CPUs"

have_mcp=0
if "$bin/wstools" mcp --help >/dev/null 2>&1; then
	have_mcp=1
else
	echo "(wstools has no mcp command yet: the in-process server is skipped)"
	echo
fi

results=$tmp/results
: >"$results"
# Exec per call: hyperfine's median, in microseconds.
exec_us() { # RUNS CMD
	local runs=$1 out
	shift
	out=$(mktemp)
	hyperfine -N --warmup 20 --runs "$runs" --export-json "$out" "$*" >/dev/null 2>&1
	python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["results"][0]["median"]*1e6, 1))' "$out"
	rm -f "$out"
}
# spec FILE LABEL TOOL ARGS [ENV-JSON] -- CMD...: one server of an
# interleaved run, appended to the JSON list in FILE.
spec() {
	local file=$1 label=$2 tool=$3 args=$4 env=$5
	shift 5
	python3 - "$file" "$label" "$tool" "$args" "$env" "$@" <<'PY'
import json, os, sys
f, label, tool, args, env, *cmd = sys.argv[1:]
specs = json.load(open(f)) if os.path.exists(f) else []
specs.append({"label": label, "tool": tool, "args": json.loads(args),
              "env": json.loads(env or "{}"), "cmd": cmd})
json.dump(specs, open(f, "w"))
PY
}
# interleave SPEC ROUNDS CALLS: every server of SPEC, CALLS calls a
# round each, in a shuffled order, ROUNDS rounds (mcp_client.py).
interleave() {
	local rounds=$2 calls=$3 warm=$(($3 < 50 ? $3 : 50))
	python3 "$here/mcp_client.py" --interleave "$1" --rounds "$rounds" \
		--calls "$calls" --warmup "$warm" | sed 's/^/x\t/' >>"$results"
}
# Rounds of read calls and of listings: READ_CALLS and LIST_CALLS in all
# per server, 50 rounds.
rr=50
rc=$(((reads + rr - 1) / rr))
lc=$(((lists + rr - 1) / rr))

reads_spec=$tmp/reads.json
lists_spec=$tmp/lists.json
if [ $have_mcp = 1 ]; then
	spec "$reads_spec" "wstools read_file" read_file '{"path":"/src/small.c"}' "" \
		"$bin/wstools" mcp --workspace "$ws"
	# The same server with every call handed to a worker thread (no
	# idle fast path): what the reader's running a call itself saves.
	spec "$reads_spec" "wstools read_file, hand-off" read_file '{"path":"/src/small.c"}' \
		'{"WS_MCP_INLINE":"0"}' "$bin/wstools" mcp --workspace "$ws"
	spec "$reads_spec" "wstools --compat read_text_file" read_text_file \
		"{\"path\":\"$ws/src/small.c\"}" "" \
		"$bin/wstools" mcp --compat mcp-filesystem "$ws"
	# WS_BENCH_OLD=DIR: another build's wstools (the one before a change).
	if [ -n "${WS_BENCH_OLD:-}" ]; then
		spec "$reads_spec" "old wstools read_file" read_file '{"path":"/src/small.c"}' "" \
			"$WS_BENCH_OLD/wstools" mcp --workspace "$ws"
	fi
	spec "$lists_spec" "wstools list_directory" list_directory '{"path":"/dir"}' "" \
		"$bin/wstools" mcp --workspace "$ws"
	spec "$lists_spec" "wstools --compat list_directory" list_directory \
		"{\"path\":\"$ws/dir\"}" "" "$bin/wstools" mcp --compat mcp-filesystem "$ws"
fi
spec "$reads_spec" "reference read_text_file" read_text_file "{\"path\":\"$ws/src/small.c\"}" "" \
	node "$ref" "$ws"
spec "$lists_spec" "reference list_directory" list_directory "{\"path\":\"$ws/dir\"}" "" \
	node "$ref" "$ws"
interleave "$reads_spec" "$rr" "$rc"
interleave "$lists_spec" "$rr" "$lc"
if command -v hyperfine >/dev/null 2>&1; then
	wsread_us=$(exec_us "$execs" "$bin/wsread" --workspace "$ws" --json src/small.c)
	wsls_us=$(exec_us "$execs" "$bin/wsls" --workspace "$ws" --json dir)
else
	wsread_us=0
	wsls_us=0
fi

python3 - "$results" "$wsread_us" "$wsls_us" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    _, js = line.rstrip("\n").split("\t", 1)
    r = json.loads(js)
    rows[r["label"]] = r
wsread, wsls = float(sys.argv[2]), float(sys.argv[3])
loads = sorted({tuple(r["load_before"]) for r in rows.values()} |
               {tuple(r["load_after"]) for r in rows.values()})
print("load average (1, 5, 15 min) before and after each interleaved run:",
      ", ".join("/".join(str(x) for x in l) for l in loads))
print(f"{'':34} {'median':>9} {'p10':>8} {'p90':>8} {'rounds':>8} {'peak RSS':>10}")
for label, r in rows.items():
    print(f"{label:34} {r['median_us']:8.1f}us {r['p10_us']:7.1f}us {r['p90_us']:7.1f}us"
          f" {r['round_median_us']:7.1f}us {r['peak_rss_kib'] / 1024:8.1f}MiB"
          f"  ({r['calls']} calls, {r['errors']} errors)")
if wsread:
    print(f"{'exec wsread --json (hyperfine)':34} {wsread:8.1f}us")
    print(f"{'exec wsls --json (hyperfine)':34} {wsls:8.1f}us")
print()
def ratio(a, b, what):
    if a in rows and b in rows:
        x, y = rows[a]["median_us"], rows[b]["median_us"]
        print(f"{what:58} {x / y:7.2f}x")
ref_r = rows.get("reference read_text_file", {}).get("median_us")
ref_l = rows.get("reference list_directory", {}).get("median_us")
ratio("wstools read_file", "reference read_text_file", "read: wstools / reference (goal <= 0.2x)")
ratio("wstools list_directory", "reference list_directory", "list: wstools / reference (goal <= 0.2x)")
ratio("wstools --compat read_text_file", "reference read_text_file", "read: wstools --compat / reference")
ratio("wstools --compat list_directory", "reference list_directory", "list: wstools --compat / reference")
ratio("wstools read_file", "wstools read_file, hand-off", "read: idle fast path / hand-off to a worker")
ratio("wstools read_file", "old wstools read_file", "read: this build / WS_BENCH_OLD")
if "wstools read_file" in rows and wsread:
    print(f"{'read: wstools / exec wsread':58} {rows['wstools read_file']['median_us'] / wsread:7.2f}x")
    print(f"{'list: wstools / exec wsls':58} {rows['wstools list_directory']['median_us'] / wsls:7.2f}x")
if ref_r and wsread:
    print(f"{'read: reference / exec wsread':58} {ref_r / wsread:7.2f}x")
    print(f"{'list: reference / exec wsls':58} {ref_l / wsls:7.2f}x")
PY
if [ -n "${BENCH_TABLE:-}" ]; then
	python3 - "$results" "$wsread_us" "$wsls_us" >>"$BENCH_TABLE" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    _, js = line.rstrip("\n").split("\t", 1)
    r = json.loads(js)
    rows[r["label"]] = r
def ms(x):
    return "%.3f" % (x / 1000)
def kb(r):
    return "%d" % r["peak_rss_kib"]
for ours, ref, what in (("wstools read_file", "reference read_text_file", "MCP read_file, 4 KiB"),
                        ("wstools list_directory", "reference list_directory", "MCP list_directory")):
    if ours in rows and ref in rows:
        print(f"wstools mcp\tserver-filesystem\t{what}\t{ms(rows[ours]['median_us'])}\t"
              f"{ms(rows[ref]['median_us'])}\t{kb(rows[ours])}\t{kb(rows[ref])}")
if "wstools read_file" in rows:
    print(f"wstools mcp\texec wsread\tMCP read_file, 4 KiB\t{ms(rows['wstools read_file']['median_us'])}\t"
          f"{ms(float(sys.argv[2]))}\t{kb(rows['wstools read_file'])}\t-")
PY
fi
