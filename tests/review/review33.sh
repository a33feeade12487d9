#!/bin/bash
# The repros of review33 (the walks' records kept between runs, lib/vcs.c),
# each in tests/review/review33/NN-name/repro.sh BINDIR: 0 fixed, 1 the
# bug is back, 2 could not be set up here.  All of them: fails if one
# says 1; skipped (77) if none could be set up.
# Usage: review33.sh BINDIR
set -u
B=${1:?bin dir}
HERE=$(cd "$(dirname "$0")" && pwd)
ran=0 bad=0
for r in "$HERE"/review33/*/repro.sh; do
	n=$(basename "$(dirname "$r")")
	out=$(bash "$r" "$B" 2>&1)
	rc=$?
	case $rc in
	0) echo "ok: $n"; ran=$((ran + 1)) ;;
	2) echo "not set up here: $n" ;;
	*) echo "FAILED: $n (exit $rc)"; echo "$out" | tail -20; bad=1; ran=$((ran + 1)) ;;
	esac
done
[ $bad = 1 ] && exit 1
[ $ran = 0 ] && { echo "SKIP: none of the repros could be set up here"; exit 77; }
exit 0
