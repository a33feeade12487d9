#!/usr/bin/env bash
# bench_wsls.sh - wsls against the obvious alternatives, measured in the
# same run, on fixtures made in a temporary directory:
#
#   1. wsls -l of a 10,000-entry directory      vs  ls -l        (target <= 1.2x)
#   2. wsls -R --json of a 50,000-file tree     vs  find -printf (target <= 1.5x)
#      with the peak memory of both
#   3. plain wsls of a 100,000-entry directory: peak memory (bounded: the
#      directory is over the plain sort limit and streams)
#
# Run by hand, on a release build:
#   meson setup build-release --buildtype=release && ninja -C build-release
#   tests/bench/bench_wsls.sh [BUILD_DIR] [RUNS]
# Uses hyperfine when installed (medians over RUNS runs after warmup),
# else a plain loop timed with date(1).  LC_ALL=C for every command, so ls
# sorts by bytes as wsls does (a UTF-8 locale makes ls slower).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-release}
runs=${2:-30}
wsls=$build/cmd/wsls
if [ ! -x "$wsls" ]; then
	echo "bench_wsls: no $wsls; build it first:" >&2
	echo "  meson setup build-release --buildtype=release && ninja -C build-release" >&2
	exit 2
fi
export LC_ALL=C
unset WS_ROOT WS_MOUNTS WS_POLICY WS_FORMAT WS_PATHS WS_STRICT WS_CONFIG

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_wsls.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Fixtures.  Files get a few bytes so sizes are not all zero.
mkfiles() { # DIR COUNT PREFIX
	mkdir -p "$1"
	(cd "$1" && seq -f "$3%06g.txt" 0 $(($2 - 1)) | xargs touch)
}
echo "making fixtures in $tmp ..."
mkfiles "$tmp/flat" 10000 entry
for d in $(seq 0 49); do
	for s in $(seq 0 9); do
		mkfiles "$tmp/tree/d$d/s$s" 100 f
	done
done
mkfiles "$tmp/huge" 100000 e
ntree=$(find "$tmp/tree" -type f | wc -l)
echo "flat: 10000 entries; tree: $ntree files in 550 directories; huge: 100000 entries"
echo

# median_ms NAME CMD... : prints the median wall time in milliseconds.
median_ms() {
	local name=$1
	shift
	if command -v hyperfine >/dev/null 2>&1; then
		local json=$tmp/hf.json
		hyperfine -N --warmup 3 --runs "$runs" --export-json "$json" \
			--command-name "$name" -- "$(printf '%q ' "$@")" >/dev/null 2>&1
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.2f" % (r["median"]*1000))' "$json"
	else
		local t=() i s e
		for i in 1 2 3; do "$@" >/dev/null 2>&1; done
		for ((i = 0; i < runs; i++)); do
			s=$(date +%s%N)
			"$@" >/dev/null 2>&1
			e=$(date +%s%N)
			t+=($(((e - s) / 1000)))
		done
		printf '%s\n' "${t[@]}" | sort -n |
			awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.2f\n", m / 1000}'
	fi
}

# peak_kb CMD... : the maximum resident set size, in KiB.
peak_kb() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}'
	else
		echo "?"
	fi
}

# One line of tests/bench/run's summary table (see lib.sh).
bench_row() {
	[ -n "${BENCH_TABLE:-}" ] || return 0
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$BENCH_TABLE"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

report() { # TITLE NAME_A MS_A NAME_B MS_B TARGET
	local r
	r=$(ratio "$3" "$5")
	printf '%s\n' "$1"
	printf '  %-44s median %8s ms\n' "$2" "$3"
	printf '  %-44s median %8s ms\n' "$4" "$5"
	printf '  ratio %-38s %8s   (target <= %s)\n\n' "" "${r}x" "$6"
}

echo "== runs per command: $runs (hyperfine: $(command -v hyperfine >/dev/null && echo yes || echo no))"
echo

a=$(median_ms "wsls -l" "$wsls" --workspace "$tmp/flat" -l /)
b=$(median_ms "ls -l" ls -l "$tmp/flat")
report "1. long listing of a 10,000-entry directory" "wsls -l" "$a" "ls -l" "$b" 1.2
bench_row wsls "ls -l" "long listing, 10,000 entries" "$a" "$b" \
	"$(peak_kb "$wsls" --workspace "$tmp/flat" -l /)" "$(peak_kb ls -l "$tmp/flat")"

a=$(median_ms "wsls -R --json" "$wsls" --workspace "$tmp/tree" -R --json --max-entries 0 --max-output 0 /)
b=$(median_ms "find -printf" find "$tmp/tree" -printf '%p %s %T@ %m\n')
report "2. recursive listing of a $ntree-file tree" \
	"wsls -R --json --max-entries 0" "$a" "find -printf '%p %s %T@ %m\\n'" "$b" 1.5
bench_row wsls "find -printf" "recursive JSON listing, $ntree files" "$a" "$b" \
	"$(peak_kb "$wsls" --workspace "$tmp/tree" -R --json --max-entries 0 --max-output 0 /)" \
	"$(peak_kb find "$tmp/tree" -printf '%p %s %T@ %m\n')"
echo "   peak RSS: wsls -R --json $(peak_kb "$wsls" --workspace "$tmp/tree" -R --json --max-entries 0 --max-output 0 /) KiB," \
	"find -printf $(peak_kb find "$tmp/tree" -printf '%p %s %T@ %m\n') KiB," \
	"wsls -R (plain) $(peak_kb "$wsls" --workspace "$tmp/tree" -R /) KiB"
echo

a=$(median_ms "wsls (plain)" "$wsls" --workspace "$tmp/huge" /)
b=$(median_ms "ls -f" ls -f "$tmp/huge")
c=$(median_ms "ls" ls "$tmp/huge")
echo "3. a 100,000-entry directory (plain wsls streams it unsorted, see wsls(1))"
printf '  %-44s median %8s ms, peak RSS %s KiB\n' "wsls" "$a" "$(peak_kb "$wsls" --workspace "$tmp/huge" / 2>/dev/null)"
printf '  %-44s median %8s ms, peak RSS %s KiB\n' "wsls --sort name" \
	"$(median_ms "wsls --sort name" "$wsls" --workspace "$tmp/huge" --sort name /)" \
	"$(peak_kb "$wsls" --workspace "$tmp/huge" --sort name /)"
printf '  %-44s median %8s ms, peak RSS %s KiB\n' "wsls --json (first 200 by name)" \
	"$(median_ms "wsls --json" "$wsls" --workspace "$tmp/huge" --json /)" \
	"$(peak_kb "$wsls" --workspace "$tmp/huge" --json /)"
printf '  %-44s median %8s ms, peak RSS %s KiB\n' "ls -f (unsorted)" "$b" "$(peak_kb ls -f "$tmp/huge")"
printf '  %-44s median %8s ms, peak RSS %s KiB\n' "ls" "$c" "$(peak_kb ls "$tmp/huge")"
bench_row wsls "ls -f" "plain listing, 100,000 entries" "$a" "$b" \
	"$(peak_kb "$wsls" --workspace "$tmp/huge" /)" "$(peak_kb ls -f "$tmp/huge")"
