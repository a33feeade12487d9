#!/bin/bash
# review33 01: after the wall clock is stepped back, the walk before and the
# walk after trust a saved record of a directory whose ctime is not older
# than THIS walk's start (t0), so a change the command makes in that second
# (on a file system with 1-second ctimes) leaves the ctime as recorded and
# the planted repository is never looked at.
# Usage: repro.sh BIN_DIR   (root: mounts a loop ext4 image with 128-byte inodes)
# Exit 1 while the bug is there, 0 when fixed, 2 when the set-up failed.
set -u
B=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/r33-01.XXXXXX)
cleanup() { umount "$T/mnt" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
gcc -shared -fPIC -O2 -o "$T/shift.so" "$HERE/shift.c" || exit 2
truncate -s 64M "$T/img" && mkfs.ext4 -q -I 128 "$T/img" 2>/dev/null || exit 2
mkdir -p "$T/mnt" "$T/other" "$T/state"
mount -o loop "$T/img" "$T/mnt" || exit 2
W=$T/mnt/ws
mkdir -p "$W/a/b/c" && echo hi > "$W/a/b/c/file"
umount "$T/mnt"
# The person last changed a/ while the clock read 40 s ahead of now (a clock
# later stepped back: NTP after a wrong RTC, a dual boot's local-time RTC, a
# VM resumed): its ctime is F = now + 40 s.
F=$(( $(date +%s) + 40 ))
debugfs -w -R "set_inode_field /ws/a ctime @$F" "$T/img" >/dev/null 2>&1 || exit 2
mount -o loop "$T/img" "$T/mnt" || exit 2
stat -c 'a/ ctime: %z' "$W/a"
export XDG_STATE_HOME=$T/state HOME=$T/other
"$B/wswrite" --workspace "$T/other" --content x /mark >/dev/null || exit 2
sleep 3
# Run 1, while the clock was still ahead (an hour): its walk before saves the
# records, a/ among them, plain (its ctime is older than that walk's t0).
WSR33_CLOCK_AHEAD=3600 LD_PRELOAD=$T/shift.so "$B/wsrun" --workspace "$W" -- true || exit 2
ls "$T/state/wstools/walks" >/dev/null 2>&1 || echo "(no records file: old code)"
# Run 2, the clock stepped back to the true time (before F): the command waits
# for the second F and plants a repository with core.fsmonitor in a/.
"$B/wsrun" --workspace "$W" --timeout 120 -- sh -c '
F='"$F"'
while [ "$(date +%s)" -lt "$F" ]; do sleep 0.05; done
mkdir -p a/.git/objects a/.git/refs/heads a/.git/hooks
echo "ref: refs/heads/main" > a/.git/HEAD
printf "#!/bin/sh\ntouch /tmp/pwned\n" > a/.git/hooks/post-checkout; chmod +x a/.git/hooks/post-checkout
printf "[core]\n\tfsmonitor = touch /tmp/pwned\n" > a/.git/config
stat -c "command: a/ ctime now %z" a'
echo "wsrun rc=$?"
if grep -q fsmonitor "$W/a/.git/config" 2>/dev/null || [ -e "$W/a/.git/hooks/post-checkout" ]; then
	echo "BUG: the planted a/.git keeps core.fsmonitor or its hook:"
	find "$W/a/.git" -type f | sed "s|$W/||"
	cat "$W/a/.git/config"
	exit 1
fi
echo "OK: a/.git's core.fsmonitor and hook are gone"
exit 0
