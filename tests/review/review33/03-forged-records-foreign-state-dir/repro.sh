#!/bin/bash
# review33 03: a command in workspace W makes, inside W, the state directory
# another wsrun (workspace P, its XDG_STATE_HOME or --state-dir inside W)
# will use: the mark and a walks/ file with forged records.  While that
# command runs, P's wsrun trusts the records (ws__recs_dir() asked only for
# the mark), its walk after skips P, and a core.fsmonitor its command
# planted stays.  W's clean-up removes the mark afterwards, too late.
# Usage: repro.sh BIN_DIR.  Exit 1 while the bug is there, 0 when fixed.
set -u
B=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../forger.sh"
F=$(mktemp -d /tmp/r33-03.XXXXXX)
A=
trap '[ -n "$A" ] && kill $A 2>/dev/null; rm -rf "$F"' EXIT
mkdir -p "$F/W/sub" "$F/stA" "$F/home" "$F/P/src/deep" "$F/pay"
forger_setup
# The agent writes the forged file into W (as bytes from a command or a file tool).
python3 "$HERE/../forge.py" "$F/P" "$F/pay" || exit 2
# W's command: the state directory of P's calls, marked, with the forged file; it then waits.
forger_start 12
sleep 4
# Meanwhile a call in P: its command plants a repository with core.fsmonitor in src/.
XDG_STATE_HOME=$F/W/sub/.state "$B/wsrun" --workspace "$F/P" -- sh -c \
	'mkdir -p src/.git/objects src/.git/refs; echo "ref: refs/heads/m" > src/.git/HEAD
	 printf "[core]\n\tfsmonitor = touch /tmp/pwned\n" > src/.git/config; echo planted'
echo "P's wsrun rc=$?"
wait $A
echo "W's wsrun rc=$?"
A=
if grep -q fsmonitor "$F/P/src/.git/config" 2>/dev/null; then
	echo "BUG: P/src/.git/config keeps core.fsmonitor:"
	cat "$F/P/src/.git/config"
	exit 1
fi
echo "OK: P's clean-up removed core.fsmonitor"
exit 0
