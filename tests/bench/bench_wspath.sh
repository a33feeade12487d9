#!/usr/bin/env bash
# bench_wspath.sh - wspath vs realpath(1) on the same 10-component path,
# whole-process time over many calls (what an agent pays per call).
# Target (issue 21): at most 1.0x, at LANG=C, measured interleaved (lib.sh's
# compare).
source "$(dirname "$0")/lib.sh"
export LC_ALL=C LANG=C
bin=$(bench_bin)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/a/b/c/d/e/f/g/h/i"
touch "$tmp/a/b/c/d/e/f/g/h/i/file.txt"
cd "$tmp"
compare "resolve a 10-component path (existing)" 500 \
	"$bin/wspath --workspace $tmp a/b/c/d/e/f/g/h/i/file.txt" \
	"realpath $tmp/a/b/c/d/e/f/g/h/i/file.txt"
compare "resolve a path that does not exist yet (realpath -m)" 500 \
	"$bin/wspath --workspace $tmp a/b/c/d/e/f/g/h/i/new/x.txt" \
	"realpath -m $tmp/a/b/c/d/e/f/g/h/i/new/x.txt"
echo
echo "syscalls for one resolution (strace -c, whole process):"
if command -v strace >/dev/null; then
	strace -c -o "$tmp/st" "$bin/wspath" --workspace "$tmp" a/b/c/d/e/f/g/h/i/file.txt >/dev/null
	tail -n 1 "$tmp/st"
	strace -c -o "$tmp/st" realpath "$tmp/a/b/c/d/e/f/g/h/i/file.txt" >/dev/null
	printf 'realpath: '; tail -n 1 "$tmp/st"
fi
