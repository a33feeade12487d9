#!/bin/bash
# The narrowing by every spelling of something inside the write grant:
# each run must show the grant "read" (or be refused), and the command
# must write nothing in the grant.  Prints one line per spelling and
# layer set; "FAIL" marks a finding.  Run as root.
. "$(dirname "$0")/grant_lib.sh"
D=$GB/data
mkdir -p "$D/sub/deep" "$BASE/out"
echo keep > "$D/ref.txt"; echo keep > "$D/sub/deep/f"
mkfifo "$D/fifo"
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$D/sock"
ln -s sub "$D/lnk-in"                 # a symlink in the grant, inside it
ln -s "$D/sub" "$BASE/out/lnk-to-in"  # a symlink outside, into it
ln -s "$BASE/out/lnk-to-in" "$BASE/out/chain"
mkdir -p "$BASE/out/dir"; ln -s "$D" "$BASE/out/dir/g"
cd "$BASE"
spellings=(
	"$D/ref.txt" "$D//ref.txt" "$D/./ref.txt" "$D/sub/../ref.txt"
	"$D/sub/" "$D/sub/." "$D/sub/deep/.." "/proc/self/root$D/ref.txt"
	"/proc/self/cwd/g/data/ref.txt" "g/data/sub" "./g/../g/data/sub/deep/f"
	"$D/lnk-in/deep" "$BASE/out/lnk-to-in/deep/f" "$BASE/out/chain"
	"$BASE/out/dir/g/sub" "$D/fifo" "$D/sock" "$D"
)
for mode in "" mountns; do
	for s in "${spellings[@]}"; do
		out=$(run "$mode" --allow-read "$s" -c "touch $D/new 2>/dev/null && echo MADE; echo x 2>/dev/null > $D/ref.txt && echo WROTE; echo x 2>/dev/null > $D/sub/deep/f && echo WROTE2; true" | grant_of)
		v=ok
		case $out in *MADE*|*WROTE*|*read-write*) v=FAIL ;; esac
		printf '%-4s mode=%-8s %-50s %s\n' "$v" "$mode" "$s" "$(echo "$out" | head -1 | cut -c1-110)"
		echo keep > "$D/ref.txt"; echo keep > "$D/sub/deep/f"; rm -f "$D/new"
	done
done
