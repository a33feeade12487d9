#!/bin/bash
# review32 01: a directory encrypted (fscrypt) with the command's own key,
# locked at the end of one run, unlocked by the next command: its names
# change from no-key names to .git, .envrc, .vscode without its ctime
# changing.  The seccomp filter refuses a command's fscrypt key and policy
# ioctls (lib/sandbox.c); without it, the walk after a command must still
# read such a directory each time (lib/vcs.c ws__drec_open()).
# Usage: vcs_fscrypt_unlock.sh BINDIR FSC  (needs root, a loop device,
# mkfs.ext4 with the encrypt feature).  Exit 1: something planted was
# kept; 0: cleaned in both views; 77: cannot be set up here (skipped).
set -u
B=${1:?bin dir}
FSC=${2:?the fsc helper}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a loop mount)"; exit 77; }
command -v mkfs.ext4 >/dev/null || { echo "SKIP: no mkfs.ext4"; exit 77; }
T=$(mktemp -d /tmp/wst-fscrypt.XXXXXX)
mkdir -p "$T/state" "$T/mnt"
cleanup() {
	if mountpoint -q "$T/mnt"; then
		id=$("$FSC" add "$T/mnt" a 2>/dev/null) && "$FSC" rm "$T/mnt" "$id" >/dev/null 2>&1
		umount "$T/mnt"
	fi
	rm -rf "$T"
}
trap cleanup EXIT
truncate -s 64M "$T/enc.img" && mkfs.ext4 -q -O encrypt "$T/enc.img" 2>/dev/null &&
	mount -o loop "$T/enc.img" "$T/mnt" 2>/dev/null || { echo "SKIP: no loop mount here"; exit 77; }
bad=0
for view in real virtual; do
	export XDG_STATE_HOME=$T/state/$view
	W=$T/mnt/ws-$view
	mkdir -p "$W/tl" "$XDG_STATE_HOME" && cp "$FSC" "$W/tl/fsc"
	# The records are kept once a history marked the state directory.
	"$B/wswrite" --workspace "$W" --content x /marked >/dev/null || exit 1
	# The filter refuses a command's fscrypt keys and policies (EPERM).
	out=$("$B/wsrun" --view $view --workspace "$W" -c 'tl/fsc add tl a' 2>&1)
	if ! echo "$out" | grep -q "add: Operation not permitted"; then
		echo "$view: a command added an fscrypt key: $out"
		bad=1
	fi
	# The walks hold without the filter too (WS_RUN_DISABLE, for tests).
	export WS_RUN_DISABLE=seccomp
	# Run 1: plant in a directory encrypted with the command's key, lock it.
	"$B/wsrun" --view $view --workspace "$W" -c 'set -e; cd tl; id=$(./fsc add . a); mkdir E
./fsc set E $id; cd E; mkdir -p .git/hooks .git/refs .git/objects
echo "ref: refs/heads/main" > .git/HEAD; printf "[core]\n\tfsmonitor = touch /tmp/pwn\n" > .git/config
echo "echo pwn" > .envrc; mkdir .vscode; echo "{}" > .vscode/tasks.json; cd ..
./fsc rm . $id' >/dev/null 2>&1 || { echo "SKIP: $view: the setup run failed (no fscrypt here?)"; exit 77; }
	ls -a "$W/tl/E" | grep -qx .envrc && { echo "SKIP: $view: the directory was not locked"; exit 77; }
	sleep 2.2
	# Run 2: the command only unlocks (adds its key): the names appear.
	"$B/wsrun" --view $view --workspace "$W" -c 'tl/fsc add tl a >/dev/null' >/dev/null 2>&1
	[ -e "$W/tl/E/.envrc" ] && { echo "$view: KEPT E/.envrc"; bad=1; }
	[ -e "$W/tl/E/.vscode" ] && { echo "$view: KEPT E/.vscode"; bad=1; }
	grep -q fsmonitor "$W/tl/E/.git/config" 2>/dev/null && { echo "$view: KEPT core.fsmonitor"; bad=1; }
	id=$("$FSC" add "$T/mnt" a) && "$FSC" rm "$T/mnt" "$id" >/dev/null 2>&1
	unset WS_RUN_DISABLE
done
[ $bad = 0 ] && echo "cleaned in both views"
exit $bad
