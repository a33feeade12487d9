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

# The interleaving driver (tests/bench/interleave.c), built once.
bench_interleave() {
	local exe=$bench_top/build-release/interleave
	if [ ! -x "$exe" ] || [ "$bench_top/tests/bench/interleave.c" -nt "$exe" ]; then
		mkdir -p "$bench_top/build-release"
		cc -O2 -o "$exe" "$bench_top/tests/bench/interleave.c"
	fi
	echo "$exe"
}

# compare NAME RUNS CMD_WS CMD_REF: both in RUNS interleaved rounds (each
# once a round, in a shuffled order, output through a pipe), medians and
# their ratio, the load average when it began.
compare() {
	local name=$1 runs=$2 a=$3 b=$4 out
	out=$("$(bench_interleave)" -r "$runs" -w 20 wstools "$a" reference "$b")
	awk -F'\t' -v name="$name" -v a="$a" -v b="$b" '
		/^#/ { load = $0; sub(/^# /, "", load); next }
		{ m[$1] = $2; k[$1] = $5 }
		END {
			print name " (" load ")"
			printf "  wstools    %8.3f ms  median  (%s)\n", m["wstools"], a
			printf "  reference  %8.3f ms  median  (%s)\n", m["reference"], b
			printf "  ratio      %8.2fx\n", m["wstools"] / m["reference"]
		}' <<<"$out"
	if [ -n "${BENCH_TABLE:-}" ]; then
		bench_row "$(cmd_name "$a")" "$(cmd_name "$b")" "$name" \
			$(awk -F'\t' '$1=="wstools"{w=$2; wk=$5} $1=="reference"{r=$2; rk=$5}
				END {print w, r, wk, rk}' <<<"$out")
	fi
}
