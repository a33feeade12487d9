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

# peak_rss_kb CMD: the peak resident set size of one run of CMD (a command
# line as hyperfine -N takes it, run without a shell), in KiB, by GNU
# time(1): a small C program, so the figure is the command's own (a
# fork of python would count python's pages too).
peak_rss_kb() {
	if [ -x /usr/bin/time ]; then
		# shellcheck disable=SC2086
		/usr/bin/time -f %M $1 2>&1 >/dev/null | tail -n 1
	else
		echo "-"
	fi
}

# bench_row TOOL ALTERNATIVE WHAT WS_MS ALT_MS WS_KB ALT_KB: one line of
# the summary table that tests/bench/run prints, when it asked for one
# (BENCH_TABLE names the file that collects them); otherwise nothing.
bench_row() {
	[ -n "${BENCH_TABLE:-}" ] || return 0
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$BENCH_TABLE"
}

# The program a command line runs, for the table: "wsread", "cat".
cmd_name() {
	# shellcheck disable=SC2086
	set -- $1
	while [ "$#" -gt 1 ] && { [ "$1" = env ] || [[ $1 == *=* ]]; }; do
		shift
	done
	basename "$1"
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
	if [ -n "${BENCH_TABLE:-}" ]; then
		local ms
		ms=$(python3 -c 'import json,sys; print(" ".join("%.3f" % (r["median"] * 1000) for r in json.load(open(sys.argv[1]))["results"]))' "$out")
		bench_row "$(cmd_name "$a")" "$(cmd_name "$b")" "$name" ${ms} \
			"$(peak_rss_kb "$a")" "$(peak_rss_kb "$b")"
	fi
	rm -f "$out"
}
