#!/usr/bin/env bash
# run.sh BUILD_DIR [SECONDS] - run every libFuzzer target for SECONDS each
# (default: $FUZZ_SECONDS, else 40) from the seed corpora under
# tests/fuzz/corpus, in a scratch copy so the tree is never written.
# Targets run $FUZZ_JOBS at a time (default: the number of CPUs, at most
# 4): each libFuzzer process uses one CPU, so on CI's two the eight
# targets take 2.7 minutes instead of 5.3 for the same time each.
# Fails on a finding; the crashing input is left in the scratch directory
# and printed, to be added to corpus/<target>/ as a regression input.
#
# Maintainers: FUZZ_SECONDS=3600 tests/fuzz/run.sh build-fuzz for a long run.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [SECONDS]}
secs=${2:-${FUZZ_SECONDS:-40}}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
[ "$jobs" -le 4 ] || jobs=4
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d /tmp/wsfuzz-run-XXXXXX)
trap 'rm -rf /tmp/wsfuzz-??????' EXIT

# fuzz T BIN: one target, its log in $scratch/T.log; status 1 on a finding.
fuzz() {
	local t=$1 bin=$2
	mkdir -p "$scratch/$t"
	cp -r "$here/corpus/$t/." "$scratch/$t/" 2>/dev/null || true
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$bin" -max_total_time="$secs" -max_len=4096 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=0 \
		-artifact_prefix="$scratch/$t-" "$scratch/$t" \
		>"$scratch/$t.log" 2>&1
}

targets=()
for bin in "$build"/tests/fuzz/fuzz_*; do
	[ -x "$bin" ] && [ -f "$bin" ] || continue
	targets+=("${bin##*/fuzz_}")
done
echo "==> ${#targets[@]} targets for ${secs}s each, $jobs at a time"
declare -A pid_of=()
for t in "${targets[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n || true
	done
	fuzz "$t" "$build/tests/fuzz/fuzz_$t" &
	pid_of[$t]=$!
done
rc=0
for t in "${targets[@]}"; do
	if wait "${pid_of[$t]}"; then
		echo "==> fuzz_$t: $(grep -E '^#[0-9]+ *DONE' "$scratch/$t.log" ||
			tail -1 "$scratch/$t.log")"
	else
		tail -40 "$scratch/$t.log"
		echo "FAIL: fuzz_$t (artifacts in $scratch)" >&2
		rc=1
	fi
done
if [ $rc -eq 0 ]; then
	rm -rf "$scratch"
else
	trap - EXIT
fi
exit $rc
