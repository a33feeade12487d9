#!/bin/bash
# The narrowing and the re-pointed name as an unprivileged user (nobody):
# a user namespace for the mount namespace where the kernel gives one,
# else Landlock alone.  Set up as root, wsrun run by nobody.
. "$(dirname "$0")/grant_lib.sh"
chmod 755 "$BASE" "$GB" "$GB/cfg"; chmod 644 "$GB/cfg/p.json"
chown -R nobody "$WS" "$GB/data" "$HOME"
mkdir -p "$BASE/secret"; echo NOBODYSECRET > "$BASE/secret/id"; chmod 755 "$BASE/secret"; chmod 644 "$BASE/secret/id"
echo keep > "$GB/data/ref.txt"; chown nobody "$GB/data/ref.txt"
nob() { setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$HOME" WS_RUN_DISABLE="$1" "$WSRUN" --workspace "$WS" --json --policy "$GB/cfg/p.json" "${@:2}"; }
for mode in "" mountns; do
	echo "== nobody, WS_RUN_DISABLE=$mode: --allow-read data/ref.txt (inside the grant)"
	nob "$mode" --allow-read "$GB/data/ref.txt" -c "echo x > $GB/data/ref.txt; touch $GB/data/new && echo MADE; cat $GB/data/ref.txt" | grant_of
	ls "$GB/data"
	echo "== nobody, WS_RUN_DISABLE=$mode: --allow-read data/ref re-pointed outside"
	ln -sfn "$BASE/secret" "$GB/data/ref"
	nob "$mode" --allow-read "$GB/data/ref" -c "cat $GB/data/ref/id" | grant_of
	rm -f "$GB/data/ref"
done
nob "" --probe 2>&1 | grep -i -m3 "mount\|userns"
