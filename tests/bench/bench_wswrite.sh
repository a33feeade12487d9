#!/usr/bin/env bash
# bench_wswrite.sh - wswrite vs the obvious alternatives, whole-process
# time over many calls: what an agent pays per write_file.
#   - write 4 KiB without fsync       vs cp(1)
#   - write 4 KiB, durable (default)  vs dd conv=fsync
#   - edit one line of a 1 MiB file   vs sed -i (also temp file + rename)
#   - mkdir of an existing directory  vs mkdir -p
#   - write 4 KiB through O_TMPFILE (the default) vs the named temporary
#     file (WS_TEST_NAMED_TEMP=1), without and with fsync
# WS_BENCH_BIN=DIR uses already built binaries instead of build-release;
# WS_BENCH_DIR=DIR puts the files there (say /dev/shm for tmpfs; the
# default is $TMPDIR or /tmp).
source "$(dirname "$0")/lib.sh"
need hyperfine hyperfine
bin=${WS_BENCH_BIN:-$(bench_bin)}
tmp=$(mktemp -d ${WS_BENCH_DIR:+-p "$WS_BENCH_DIR"})
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/ref"
# A 4 KiB source-like file: 128 lines of 32 bytes.
for i in $(seq 1 128); do printf 'int line_%04d = %-10d;  //\n' "$i" "$i"; done \
	>"$tmp/src/small.c"
# A 1 MiB file with one unique line in its middle.
for i in $(seq 1 256); do cat "$tmp/src/small.c"; done >"$tmp/src/m1.c"
sed -i '16384s/.*/int unique_marker = 0;       \/\//' "$tmp/src/m1.c"
cp "$tmp/src/m1.c" "$tmp/ref/m1.c"
# As base64, so that the command stays on one line (and the label below
# can stand in for it when printed).
small=$(base64 -w0 "$tmp/src/small.c")
cd "$tmp"

# compare_as NAME RUNS LABEL_WS CMD_WS CMD_REF: compare(), but shows LABEL_WS
# for a command too long to print (it holds the 4 KiB content).
compare_as() {
	compare "$1" "$2" "$4" "$5" | sed "s|(${bin}/wswrite --workspace .*|($3)|"
}
printf 'files: small.c %s bytes, m1.c %s bytes\n\n' \
	"$(stat -c %s src/small.c)" "$(stat -c %s src/m1.c)"

compare_as "write a 4 KiB file, no fsync (vs cp)" 1000 \
	"wswrite --no-sync --content-base64 '<4 KiB>' out/a.c" \
	"$bin/wswrite --workspace $tmp --no-sync --content-base64 $small out/a.c" \
	"cp $tmp/src/small.c $tmp/ref/a.c"
compare_as "write a 4 KiB file, --json with its diff, no fsync (vs cp)" 1000 \
	"wswrite --json --no-sync --content-base64 '<4 KiB>' out/a.c" \
	"$bin/wswrite --workspace $tmp --json --no-sync --content-base64 $small out/a.c" \
	"cp $tmp/src/small.c $tmp/ref/a.c"
compare_as "write a 4 KiB file durably (vs dd conv=fsync)" 200 \
	"wswrite --content-base64 '<4 KiB>' out/b.c" \
	"$bin/wswrite --workspace $tmp --content-base64 $small out/b.c" \
	"dd if=$tmp/src/small.c of=$tmp/ref/b.c conv=fsync status=none"
# The edit flips the line back and forth: every run really edits.
compare "edit one line of a 1 MiB file, no fsync (vs sed -i)" 200 \
	"$bin/wswrite --workspace $tmp --no-sync --all --old unique_marker --new unique_marker src/m1.c" \
	"sed -i s/unique_marker/unique_marker/ $tmp/ref/m1.c"
# The same process (env) on both sides: only the kind of temporary differs.
printf 'filesystem: %s\n\n' "$(stat -f -c %T "$tmp")"
# compare_env NAME RUNS FLAGS: O_TMPFILE vs named, the 4 KiB content elided.
compare_env() {
	compare "$1" "$2" \
		"env WS_TEST_NAMED_TEMP=0 $bin/wswrite --workspace $tmp $3 --content-base64 $small out/t.c" \
		"env WS_TEST_NAMED_TEMP=1 $bin/wswrite --workspace $tmp $3 --content-base64 $small out/t.c" |
		sed "s|--workspace $tmp\(.*\) --content-base64 [^ ]* |\1 <4 KiB> |"
}
compare_env "write a 4 KiB file, no fsync: O_TMPFILE (vs the named temporary)" 1000 --no-sync
compare_env "write a 4 KiB file durably: O_TMPFILE (vs the named temporary)" 200 ""
mkdir -p "$tmp/ref/d/e"
"$bin/wswrite" --workspace "$tmp" --mkdir out/d/e >/dev/null
compare "mkdir of an existing directory (vs mkdir -p)" 1000 \
	"$bin/wswrite --workspace $tmp --mkdir out/d/e" \
	"mkdir -p $tmp/ref/d/e"
echo
echo "syscalls to write the 4 KiB file (strace -c, whole process):"
if command -v strace >/dev/null; then
	strace -f -c -o "$tmp/st" "$bin/wswrite" --workspace "$tmp" --no-sync \
		--content-base64 "$small" out/c.c >/dev/null
	printf 'wswrite: '; tail -n 1 "$tmp/st"
	strace -f -c -o "$tmp/st" cp "$tmp/src/small.c" "$tmp/ref/c.c"
	printf 'cp:      '; tail -n 1 "$tmp/st"
fi
