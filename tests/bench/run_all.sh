#!/usr/bin/env bash
# run_all.sh - every benchmark, one after the other, on one release build.
# Run by hand on a quiet machine: tests/bench/run_all.sh | tee bench.txt
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
bin=$(bench_bin)
for b in wspath wsread wsls wswrite wsgrep policy wsrun mcp mcp_run audit history; do
	echo "=== bench_$b"
	case $b in
	wsls) bash "$here/bench_wsls.sh" "$(dirname "$bin")" ;;
	wsgrep) bash "$here/bench_wsgrep.sh" "$(dirname "$bin")" ;;
	wswrite | audit | history) WS_BENCH_BIN=$bin bash "$here/bench_$b.sh" ;;
	*) bash "$here/bench_$b.sh" ;;
	esac
	echo
done
