#!/bin/bash
# Finding: the workspace is spelled through a symlink that lies in a bind
# mount of a directory inside a write grant ($BASE/b = bind of
# $GB/data/sub; workspace spelled $BASE/b/link -> $BASE/realws).  The
# spelling entry is guarded by name only, so the grant is given, and the
# command re-points the link through the grant's path: the next call with
# the same spelling runs in a workspace of the command's choosing.
# Run as root.
. "$(dirname "$0")/grant_lib.sh"
mkdir -p "$GB/data/sub" "$BASE/b" "$BASE/realws" "$BASE/elsewhere"
echo elsewhere > "$BASE/elsewhere/marker"
ln -s "$BASE/realws" "$GB/data/sub/link"
mount --bind "$GB/data/sub" "$BASE/b"
WS=$BASE/b/link
run "" -c "ln -sfn $BASE/elsewhere $GB/data/sub/link.new && mv -T $GB/data/sub/link.new $GB/data/sub/link; readlink $GB/data/sub/link" | grant_of
echo "link now: $(readlink "$GB/data/sub/link")"
umount "$BASE/b"
