#!/bin/bash
# review33 02: the saved records do not carry the walk's reach (max_depth,
# set by the hard RLIMIT_NOFILE): a run under a lower hard limit trusts a
# tree recorded under a higher one, so the walk before no longer refuses a
# tree past its reach, and the walk after removes the person's deep
# subdirectories as "made by the command" wherever the command changed a
# directory past that reach.
# Usage: repro.sh BIN_DIR.  Exit 1 while the bug is there, 0 when fixed.
set -u
B=$(cd "$1" && pwd)
T=$(mktemp -d /tmp/r33-02.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/W" "$T/state" "$T/other"
export XDG_STATE_HOME=$T/state HOME=$T/other
"$B/wswrite" --workspace "$T/other" --content x /mark >/dev/null || exit 2
p=$T/W/t
for i in $(seq 1 60); do p=$p/d$i; done
mkdir -p "$p" && echo "the person's file" > "$p/keep.txt"
sleep 3
# Run 1 under the usual hard limit (reach: 2,056 levels): records saved.
"$B/wsrun" --workspace "$T/W" -- true || exit 2
# Run 2 under a hard limit of 400 descriptors (reach: 48 levels), e.g. the
# MCP server or a shell started with `ulimit -n 400`.  The command only
# creates a file 51 levels down.
(
	ulimit -n 400 || exit 2
	"$B/wsrun" --workspace "$T/W" -- sh -c 'cd t; for i in $(seq 1 50); do cd d$i; done; touch build.log'
	echo "run 2: wsrun rc=$?"
)
if [ -e "$p/keep.txt" ] && [ ! -e "$T/W/t/$(printf 'd%s/' $(seq 1 50))build.log" ]; then
	echo "OK: run 2 was refused (the tree is past the walk's reach), nothing removed"
	exit 0
fi
[ -e "$p/keep.txt" ] || echo "BUG: the person's t/d1/.../d60/keep.txt was removed by wsrun"
echo "BUG: run 2 was not refused though the tree is past its reach (48 levels)"
exit 1
