#!/bin/sh
# Data loss, not an escape: "mv vendor third_party" in a command made the
# clean-up take the user's vendor/.envrc, a nested repository's own hooks
# and its config entries off the allowlist for the command's, and remove
# them (the snapshot knew them by path only).
# Usage: review/vcs_moved_dir.sh [BUILD_DIR]
B=${1:-build}/cmd
T=$(mktemp -d); W=$T/ws; mkdir -p $W/vendor; git init -q $W/vendor/lib
git -C $W/vendor/lib config diff.pdf.textconv pdftotext
echo 'exit 0' > $W/vendor/lib/.git/hooks/pre-commit; echo 'export A=1' > $W/vendor/.envrc
$B/wsrun --workspace $W -- mv vendor third_party >/dev/null 2>&1
lost=""
[ -e $W/third_party/.envrc ] || lost="$lost .envrc"
[ -e $W/third_party/lib/.git/hooks/pre-commit ] || lost="$lost hooks/pre-commit"
git -C $W/third_party/lib config diff.pdf.textconv >/dev/null || lost="$lost diff.pdf.textconv"
[ -n "$lost" ] && echo "LOST:$lost" || echo "held"
rm -rf $T
