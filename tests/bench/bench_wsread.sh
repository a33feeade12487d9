#!/usr/bin/env bash
# bench_wsread.sh - wsread vs cat(1) (and sed(1) for a line range),
# whole-process time over many calls: what an agent pays per read_file.
# Target (issue 21): wsread of a 4 KiB file at most 1.0x cat of the same
# file, at LANG=C, measured interleaved (lib.sh's compare).
source "$(dirname "$0")/lib.sh"
export LC_ALL=C LANG=C
bin=$(bench_bin)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src"
# A 4 KiB source-like file: 128 lines of 32 bytes.
for i in $(seq 1 128); do printf 'int line_%04d = %-10d;  //\n' "$i" "$i"; done \
	>"$tmp/src/small.c"
# A 1 MiB file (just within the default --max-bytes).
for i in $(seq 1 8); do cat "$tmp/src/small.c"; done >"$tmp/src/k32.c"
for i in $(seq 1 32); do cat "$tmp/src/k32.c"; done >"$tmp/src/m1.c"
# A 100 MiB log for a range in its middle.
seq -f 'log line %012g of the big file, padded a bit' 1 2000000 >"$tmp/big.log"
cd "$tmp"
printf 'files: small.c %s bytes, m1.c %s bytes, big.log %s bytes\n\n' \
	"$(stat -c %s src/small.c)" "$(stat -c %s src/m1.c)" "$(stat -c %s big.log)"

compare "read a 4 KiB file, plain (target <= 1.0x)" 1000 \
	"$bin/wsread --workspace $tmp src/small.c" \
	"cat $tmp/src/small.c"
compare "read a 4 KiB file, --json" 1000 \
	"$bin/wsread --workspace $tmp --json src/small.c" \
	"cat $tmp/src/small.c"
compare "read a 1 MiB file, plain" 300 \
	"$bin/wsread --workspace $tmp src/m1.c" \
	"cat $tmp/src/m1.c"
compare "lines 1000000-1000010 of a 100 MiB log (sed stops at the end line)" 30 \
	"$bin/wsread --workspace $tmp --start-line 1000000 --end-line 1000010 big.log" \
	"sed -n 1000000,1000010p;1000010q $tmp/big.log"
# CPU time (task-clock) hardly depends on what else the machine runs.
if command -v perf >/dev/null && perf stat -r 1 true >/dev/null 2>&1; then
	echo
	echo "CPU time to read the 4 KiB file (perf stat task-clock, 500 runs each):"
	cpu() { perf stat -r 500 "$@" 2>&1 >/dev/null | awk '/task-clock/ {print $1}'; }
	w=$(cpu "$bin/wsread" --workspace "$tmp" src/small.c)
	c=$(cpu cat "$tmp/src/small.c")
	awk -v w="$w" -v c="$c" 'BEGIN {
		printf "  wstools    %8.3f ms\n  reference  %8.3f ms\n  ratio      %8.2fx\n", w, c, w / c }'
fi
echo
echo "syscalls to read the 4 KiB file (strace -c, whole process):"
if command -v strace >/dev/null; then
	strace -f -c -o "$tmp/st" "$bin/wsread" --workspace "$tmp" src/small.c >/dev/null
	printf 'wsread: '; tail -n 1 "$tmp/st"
	strace -f -c -o "$tmp/st" cat "$tmp/src/small.c" >/dev/null
	printf 'cat:    '; tail -n 1 "$tmp/st"
fi
echo
# static-pie by default (meson.build's static_pie): no loader, no library.
if readelf -lW "$bin/wsread" 2>/dev/null | grep -q 'program interpreter'; then
	echo "shared libraries loaded by wsread:"
	ldd "$bin/wsread" | awk '{print "  " $1}'
else
	echo "wsread is linked static-pie (no shared library)"
fi
echo
if command -v perf >/dev/null && perf stat -r 1 true >/dev/null 2>&1; then
	echo "page faults per call (perf stat, 300 runs):"
	pf() {
		perf stat -r 300 -e page-faults "$@" 2>&1 >/dev/null |
			awk '/page-faults/ {print $1}'
	}
	printf 'wsread: '; pf "$bin/wsread" --workspace "$tmp" src/small.c
	printf 'cat:    '; pf cat "$tmp/src/small.c"
fi
