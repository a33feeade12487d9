#!/bin/sh
# Two overlapping wsrun calls on one workspace (an agent's parallel tool
# calls under a CLI harness): B's snapshot is taken while A's command has
# already added core.fsmonitor, so B counts it as the user's and keeps it
# when B's command adds it again after A's clean-up removed it.
# Not reachable through wstools mcp (one call at a time).  Fixed: the
# second call now waits for the first (a lock on the workspace root).
# Usage: review/git_concurrent_runs.sh [BUILD_DIR]
B=${1:-build}/cmd
T=$(mktemp -d); W=$T/ws; mkdir $W; git -C $W init -q
ev="git config core.fsmonitor 'touch $T/PWNED; false'"
$B/wsrun --workspace $W -c "$ev; sleep 3" >/dev/null 2>&1 &
sleep 1.5
$B/wsrun --workspace $W -c "sleep 3; $ev" >/dev/null 2>&1
wait
if git -C $W config core.fsmonitor >/dev/null; then
	echo "VULNERABLE: core.fsmonitor kept: $(git -C $W config core.fsmonitor)"
else echo "held"; fi
rm -rf $T
