#!/bin/sh
# wsrun --view virtual: a new top-level file the command made is copied into
# the workspace after it ends, in place under its final name (view.c
# ws__view_copy: O_CREAT|O_EXCL then pwrite).  SIGKILL wsrun during that copy:
# a truncated file (mode 0600) stays in the workspace under the final name.
# Contract: PREAMBLE/DESIGN "writes atomic, nothing half done"; DESIGN 2
# "Nothing is ever left in the workspace by setting the view up".
set -u
B=${B:-/work/wt/review9/build/cmd}
W=$(mktemp -d); cd "$W" || exit 2
"$B/wsrun" --view virtual --tmp-size 1G -- sh -c 'head -c 400000000 /dev/urandom > /big' &
P=$!
i=0; while [ ! -e big ] && [ $i -lt 4000 ]; do sleep 0.005; i=$((i+1)); done
sleep 0.05; kill -9 $P; wait $P 2>/dev/null
sz=$(stat -c %s big 2>/dev/null || echo none)
echo "left in workspace: big size=$sz (expected none or 400000000)"
rm -rf "$W"
[ "$sz" = none ] || [ "$sz" = 400000000 ]
