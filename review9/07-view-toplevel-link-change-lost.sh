#!/bin/sh
# --view virtual: a top-level symlink of the workspace is a copy of its text
# on the view's tmpfs (sandbox.c, e->tree == -2), not a mount point.  The
# command can remove or re-point it (no EBUSY, unlike other top-level
# entries), the command sees its change, and afterwards the workspace still
# has the old link: the change is neither applied nor listed in
# isolation.view.lost.  wsrun(1): "A top-level entry is a mount point in
# the command, so the command cannot remove or rename it (EBUSY)".
set -u
T=$(mktemp -d); cd "$T" || exit 2; mkdir a b; ln -s a l
out=$(${B:-/work/wt/review9/build/cmd}/wsrun --json --view virtual -- sh -c 'rm /l && ln -s b /l && readlink /l')
printf '%s' "$out" | python3 -c 'import json,sys; o=json.load(sys.stdin)["output"]; print("command saw:", o["stdout"].strip(), "| lost:", o["isolation"]["view"].get("lost"))'
now=$(readlink l); echo "workspace: l -> $now"; cd /; rm -rf "$T"
[ "$now" = b ] || case $out in *'"lost"'*) exit 0;; *) exit 1;; esac
