# lib.sh - shared helpers for the benchmarks (sourced, not run).
#
# Every benchmark measures wstools and the obvious alternative in the same
# run with hyperfine, and prints medians and their ratio.

set -euo pipefail

bench_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# A release build of its own, so a debug or sanitizer build never skews it.
bench_bin() {
	local dir=$bench_top/build-release
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" --buildtype=release -Dtests=false >/dev/null
	fi
	ninja -C "$dir" >/dev/null
	echo "$dir/cmd"
}

need() {
	command -v "$1" >/dev/null 2>&1 || {
		echo "bench: $1 is needed (apt-get install $2)" >&2
		exit 2
	}
}

# compare NAME RUNS CMD_WS CMD_REF: hyperfine both, print medians and ratio.
compare() {
	local name=$1 runs=$2 a=$3 b=$4 out
	out=$(mktemp)
	hyperfine -N --warmup 20 --runs "$runs" --export-json "$out" \
		--command-name wstools "$a" --command-name reference "$b" >/dev/null 2>&1 ||
		hyperfine --warmup 20 --runs "$runs" --export-json "$out" \
			--command-name wstools "$a" --command-name reference "$b" >/dev/null
	python3 - "$out" "$name" "$a" "$b" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = [r["median"] * 1000 for r in d["results"]]
print(f"{sys.argv[2]}")
print(f"  wstools    {m[0]:8.3f} ms  median  ({sys.argv[3]})")
print(f"  reference  {m[1]:8.3f} ms  median  ({sys.argv[4]})")
print(f"  ratio      {m[0] / m[1]:8.2f}x")
PY
	rm -f "$out"
}
