#!/bin/sh
# wsrun --view virtual clears nosymfollow on every mount under the new root
# (sandbox.c ws_sandbox_mount: mount_setattr(newroot, AT_RECURSIVE,
# attr_clr=NOSYMFOLLOW) between the two passes).  The entries' binds are
# MS_REC, so a mount inside the workspace that the host made nosymfollow
# loses it in the command; --view real keeps it.  The comment claims "a
# host mount's own nosymfollow stays": true for host trees bound in pass 2,
# not for submounts carried by a top-level entry.  No escape (links resolve
# in the sandbox's own root), but a host restriction is silently dropped.
# Needs root (mounts a tmpfs).
set -u
B=${B:-/work/wt/review9/build/cmd}
W=$(mktemp -d); cd "$W" || exit 2
mkdir nsf && mount -t tmpfs -o nosymfollow tmpfs nsf || exit 77
ln -s /etc/hostname nsf/l
real=$("$B/wsrun" --view real -- cat "$W/nsf/l" 2>&1)
virt=$("$B/wsrun" --view virtual -- cat /nsf/l 2>&1)
echo "real:    $real"; echo "virtual: $virt"
umount nsf; cd /; rm -rf "$W"
case $virt in *"Too many levels"*) exit 0;; *) exit 1;; esac
