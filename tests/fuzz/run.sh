#!/usr/bin/env bash
# run.sh BUILD_DIR [SECONDS] - run every libFuzzer target for SECONDS each
# (default: $FUZZ_SECONDS, else 40: eight targets, 5.3 minutes of CI) from the seed corpora under
# tests/fuzz/corpus, in a scratch copy so the tree is never written.  Fails
# on the first finding; the crashing input is left in the scratch directory
# and printed, to be added to corpus/<target>/ as a regression input.
#
# Maintainers: FUZZ_SECONDS=3600 tests/fuzz/run.sh build-fuzz for a long run.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [SECONDS]}
secs=${2:-${FUZZ_SECONDS:-40}}
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d /tmp/wsfuzz-run-XXXXXX)
trap 'rm -rf /tmp/wsfuzz-??????' EXIT
rc=0
for bin in "$build"/tests/fuzz/fuzz_*; do
	[ -x "$bin" ] && [ -f "$bin" ] || continue
	t=${bin##*/fuzz_}
	mkdir -p "$scratch/$t"
	cp -r "$here/corpus/$t/." "$scratch/$t/" 2>/dev/null || true
	echo "==> fuzz_$t for ${secs}s"
	if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$bin" -max_total_time="$secs" -max_len=4096 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=0 \
		-artifact_prefix="$scratch/$t-" "$scratch/$t" \
		>"$scratch/$t.log" 2>&1; then
		tail -40 "$scratch/$t.log"
		echo "FAIL: fuzz_$t (artifacts in $scratch)" >&2
		trap - EXIT
		rc=1
		break
	fi
	grep -E '^#[0-9]+ *DONE' "$scratch/$t.log" || tail -1 "$scratch/$t.log"
done
[ $rc -eq 0 ] && rm -rf "$scratch"
exit $rc
