#!/bin/bash
# Finding: the narrowing takes "another st_dev" for "another file system,
# never beneath the grant".  On an overlay whose layers are on different
# file systems, a file that comes from a lower layer reports that layer's
# st_dev, not the overlay's, though it lies beneath the grant: --allow-read
# of it does not narrow the grant, and the command rewrites it.  (A btrfs
# subvolume inside the grant is the same case: its own st_dev, no mount.)
# Run as root.
. "$(dirname "$0")/grant_lib.sh"
mkdir -p "$BASE/lower" "$BASE/upper" "$BASE/work"
mount -t tmpfs tmpfs "$BASE/lower"
mkdir -p "$BASE/lower/data"; echo reference > "$BASE/lower/data/ref.txt"
rmdir "$GB/data"
mount -t overlay overlay -o "lowerdir=$BASE/lower,upperdir=$BASE/upper,workdir=$BASE/work" "$GB"
mkdir -p "$GB/cfg"; cp /dev/null "$GB/cfg/x"
cat > "$BASE/p.json" <<JSON
{"version": 1, "file_rules": [
 {"name": "data", "paths": ["$GB/data/**"], "operations": ["*"], "decision": "allow"},
 {"name": "rest", "paths": ["**"], "operations": ["*"], "decision": "allow"}]}
JSON
stat -c '%n dev=%d' "$GB" "$GB/data" "$GB/data/ref.txt"
for mode in "" mountns; do
	echo "reference" > "$BASE/lower/data/ref.txt"; rm -f "$BASE/upper/data/ref.txt"
	echo "== WS_RUN_DISABLE=$mode: --allow-read $GB/data/ref.txt"
	WS_RUN_DISABLE=$mode "$WSRUN" --workspace "$WS" --json --policy "$BASE/p.json" \
		--allow-read "$GB/data/ref.txt" -c "echo CHANGED > $GB/data/ref.txt; cat $GB/data/ref.txt" | grant_of
	echo "after: $(cat "$GB/data/ref.txt")"
done
umount "$GB"; umount "$BASE/lower"
