#!/usr/bin/env bash
# bench_mcp.sh - wstools mcp against the reference MCP filesystem server
# (@modelcontextprotocol/server-filesystem, Node) and against one exec of
# the tool per call, measured in the same run:
#
#   1. 10,000 read_file calls of a 4 KiB file through one connection
#      (the reference: read_text_file of the same file)
#   2. 1,000 list_directory calls of a 64-entry directory
#   3. the same read and listing as one exec of wsread / wsls per call
#      (hyperfine -N: what an agent that shells out pays)
#
# Per server: median (p10, p90) microseconds per call, ratios, and the
# server's peak RSS.  The client (tests/bench/mcp_client.py) is raw
# JSON-RPC over stdio, one request at a time; its own cost is in every
# figure alike.  Goal (issue 11): at most 100 us per small call, at least
# 5x below the reference on each.
#
#   tests/bench/bench_mcp.sh [READ_CALLS] [LIST_CALLS] [EXEC_RUNS]
#
# On a busy machine every figure is mostly scheduling latency (a call is
# a few wake-ups of two processes): run it on a quiet one, or compare only
# the ratios of one run.
#
# The reference server comes from tests/mcp/interop (npm ci there); a
# wstools without the mcp command is skipped with a note.
source "$(dirname "$0")/lib.sh"
need python3 python3
need node nodejs
bin=$(bench_bin)
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
# run LABEL TOOL ARGS CALLS CMD...: one connection, CALLS calls.
run() {
	local label=$1 tool=$2 args=$3 calls=$4
	shift 4
	local warm=$((calls / 20 < 50 ? calls / 20 : 50))
	printf '%s\t' "$label" >>"$results"
	python3 "$here/mcp_client.py" --tool "$tool" --args "$args" --calls "$calls" \
		--warmup "$warm" -- "$@" >>"$results"
}

# Exec per call: hyperfine's median, in microseconds.
exec_us() { # RUNS CMD
	local runs=$1 out
	shift
	out=$(mktemp)
	hyperfine -N --warmup 20 --runs "$runs" --export-json "$out" "$*" >/dev/null 2>&1
	python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["results"][0]["median"]*1e6, 1))' "$out"
	rm -f "$out"
}

if [ $have_mcp = 1 ]; then
	run "wstools read_file" read_file '{"path":"/src/small.c"}' "$reads" \
		"$bin/wstools" mcp --workspace "$ws"
	run "wstools list_directory" list_directory '{"path":"/dir"}' "$lists" \
		"$bin/wstools" mcp --workspace "$ws"
	run "wstools --compat read_text_file" read_text_file \
		"{\"path\":\"$ws/src/small.c\"}" "$reads" \
		"$bin/wstools" mcp --compat mcp-filesystem "$ws"
	run "wstools --compat list_directory" list_directory \
		"{\"path\":\"$ws/dir\"}" "$lists" \
		"$bin/wstools" mcp --compat mcp-filesystem "$ws"
fi
run "reference read_text_file" read_text_file "{\"path\":\"$ws/src/small.c\"}" "$reads" \
	node "$ref" "$ws"
run "reference list_directory" list_directory "{\"path\":\"$ws/dir\"}" "$lists" \
	node "$ref" "$ws"
wsread_us=$(exec_us "$execs" "$bin/wsread" --workspace "$ws" --json src/small.c)
wsls_us=$(exec_us "$execs" "$bin/wsls" --workspace "$ws" --json dir)

python3 - "$results" "$wsread_us" "$wsls_us" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    label, js = line.rstrip("\n").split("\t", 1)
    rows[label] = json.loads(js)
wsread, wsls = float(sys.argv[2]), float(sys.argv[3])
print(f"{'':34} {'median':>9} {'p10':>8} {'p90':>8} {'peak RSS':>10}")
for label, r in rows.items():
    print(f"{label:34} {r['median_us']:8.1f}us {r['p10_us']:7.1f}us {r['p90_us']:7.1f}us"
          f" {r['peak_rss_kib'] / 1024:8.1f}MiB  ({r['calls']} calls, {r['errors']} errors)")
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
if "wstools read_file" in rows:
    print(f"{'read: wstools / exec wsread':58} {rows['wstools read_file']['median_us'] / wsread:7.2f}x")
    print(f"{'list: wstools / exec wsls':58} {rows['wstools list_directory']['median_us'] / wsls:7.2f}x")
if ref_r:
    print(f"{'read: reference / exec wsread':58} {ref_r / wsread:7.2f}x")
    print(f"{'list: reference / exec wsls':58} {ref_l / wsls:7.2f}x")
PY
if [ -n "${BENCH_TABLE:-}" ]; then
	python3 - "$results" "$wsread_us" "$wsls_us" >>"$BENCH_TABLE" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    label, js = line.rstrip("\n").split("\t", 1)
    rows[label] = json.loads(js)
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
