#!/bin/bash
# review33 04: ws__recs_load() does not check the names in a records file.
# A forged file (made as in 03, by a command in another workspace W where
# P's state directory lies) names a subdirectory ".." of P's top: P's walks
# open it with a plain openat(), walk P's parent, and the clean-up after P's
# command removes, outside P, what the person made there meanwhile.
# Usage: repro.sh BIN_DIR.  Exit 1 while the bug is there, 0 when fixed.
set -u
B=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../forger.sh"
F=$(mktemp -d /tmp/r33-04.XXXXXX)
A=
trap '[ -n "$A" ] && kill $A 2>/dev/null; rm -rf "$F"' EXIT
mkdir -p "$F/W/sub" "$F/stA" "$F/home" "$F/x/P/src" "$F/x/other" "$F/pay"
# P's parent holds a link (so every walk reads it) and another project with a repository.
ln -s P "$F/x/link"
git -C "$F/x/other" init -q repo 2>/dev/null || mkdir -p "$F/x/other/repo/.git/refs" "$F/x/other/repo/.git/objects"

forger_setup
# The agent writes the forged file into W (as bytes from a command or a file tool).
python3 "$HERE/../forge.py" "$F/x/P" "$F/pay" .. || exit 2
# W's command: the state directory of P's calls, marked, with the forged file; it then waits.
forger_start 20
sleep 4
# A harmless call in P; meanwhile the person makes an .envrc in another
# project beside P, outside every workspace.
XDG_STATE_HOME=$F/W/sub/.state "$B/wsrun" --workspace "$F/x/P" -- sh -c 'sleep 5' &
PB=$!
sleep 2.5
mkdir "$F/x/other/new" && echo 'export PERSON=1' > "$F/x/other/new/.envrc"
wait $PB
echo "P's wsrun rc=$?"
kill $A 2>/dev/null; wait $A 2>/dev/null; A=
if [ ! -e "$F/x/other/new/.envrc" ]; then
	echo "BUG: wsrun in P removed x/other/new/.envrc, outside its workspace"
	exit 1
fi
echo "OK: nothing outside P was touched"
exit 0
