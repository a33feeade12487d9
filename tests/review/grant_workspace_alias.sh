#!/bin/bash
# Finding: a write grant that holds the workspace by another path (the
# workspace is opened through a bind mount of a directory inside the
# grant) is not refused: only a bind of the grant itself, or of a
# directory above the workspace, is known by identity.  The command then
# writes the guarded .git/hooks and .git/config through the grant's path,
# in the default mode (mount namespace: the guards are bound read-only at
# the workspace's path only).  Without a mount namespace the guards are
# reported not enforced anyway (Landlock rules follow the inode).
# Fixed: the grant is refused ("by another path").  Run as root.
. "$(dirname "$0")/grant_lib.sh"
mkdir -p "$GB/data/sub/proj/.git/hooks" "$BASE/wsbind"
echo '[core]' > "$GB/data/sub/proj/.git/config"
mount --bind "$GB/data/sub" "$BASE/wsbind"
WS=$BASE/wsbind/proj
for mode in ""; do
	echo "== WS_RUN_DISABLE=$mode, workspace $WS (= $GB/data/sub/proj)"
	run "$mode" -c "echo evil > $WS/.git/hooks/pre-commit; echo '[evil]' >> $GB/data/sub/proj/.git/config; echo evil > $GB/data/sub/proj/.git/hooks/pre-commit" | grant_of
	ls -l "$GB/data/sub/proj/.git/hooks/"; cat "$GB/data/sub/proj/.git/config"
	rm -f "$GB/data/sub/proj/.git/hooks/pre-commit"; echo '[core]' > "$GB/data/sub/proj/.git/config"
done
umount "$BASE/wsbind"
