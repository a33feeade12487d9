#!/bin/bash
# run.sh BUILD_DIR [MESON-TEST-ARGS...] - run test suites with every tool
# they start checked by valgrind memcheck: no error, no definite or
# indirect leak (scripts/dev.sh test runs it; see README, Proofs).
#
# One memcheck process (BUILD_DIR/cmd/zygote) forks a child per tool run:
# a tool exec'd under valgrind spends 0.5-0.9 s starting, a forked child
# almost nothing, and the suites start thousands of tools.  The suites
# reach it through WST_TOOL_WRAPPER (tests/common/wstest.c puts the
# wrapper before every tool it starts), set to BUILD_DIR/tests/proxy: the
# proxy hands the zygote its descriptors, directory, arguments and
# environment, and ends with the tool's status, which is 99 when memcheck
# found anything (--error-exitcode), so the test fails.
#
# "wstools call" runs the tool in its own process (the tool table); the
# zygote is built next to the tools (cmd/meson.build), and valgrind
# follows any exec (--trace-children), but for wsrun's (see below) and
# the system's programs.
#
# Before the suites, two deliberate faults (zygote-leak, a lost block;
# zygote-uninit, a branch on uninitialised memory) must come back 99 with
# memcheck's report: a step that cannot fail proves nothing.  After them,
# every log is read again: any memcheck report in any of them fails the
# step even if a test ignored the status.
#
# Valgrind 3.19 does not know openat2 (the tools fall back, and it says
# so in the logs: that is no error), nor Landlock or clone3, so wsrun
# cannot set up its sandbox under it: its suites carry the "novalgrind"
# tag and are left out by the caller, and the proxy runs "wstools call
# run_command" natively.  For the same reason cli-mcp's "wstools mcp" runs
# natively (it serves run_command in-process), and so does mcp-interop's.
# The fault suite is left out too: its LD_PRELOAD injector must be loaded
# by the tool's own exec, and the zygote's children are forked.
set -euo pipefail

build=$(cd "${1:?usage: run.sh BUILD_DIR [meson test args]}" && pwd)
shift
here=$(cd "$(dirname "$0")" && pwd)
# Checked before the temporary directory exists, so that nothing is left.
for f in cmd/zygote tests/proxy; do
	if [ ! -x "$build/$f" ]; then
		echo "run.sh: $build/$f is missing: build $build with tests" \
			"(meson setup $build -Dtests=true && ninja -C $build)" >&2
		exit 2
	fi
done
# memcheck cannot see malloc in a static binary ("wstools call" execs the
# tools): no leak would be found.  A build with static-pie tools
# (meson.build's static_pie) is refused.
for t in wsls wsread wswrite wsgrep wspath; do
	if ! readelf -lW "$build/cmd/$t" 2>/dev/null | grep -q 'program interpreter'; then
		echo "run.sh: $build/cmd/$t is linked statically: memcheck cannot" \
			"check it; reconfigure with -Dstatic_pie=disabled" >&2
		exit 2
	fi
done
logs=$(mktemp -d "${TMPDIR:-/tmp}/wsvg-XXXXXX")
sock=$logs/zygote.sock
proxy=$build/tests/proxy

valgrind -q --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect \
	--show-leak-kinds=definite,indirect \
	--trace-children=yes --trace-children-skip='*/wsrun,/usr/*,/bin/*,/sbin/*' \
	--suppressions="$here/suppressions.supp" \
	--log-file="$logs/%p.log" \
	"$build/cmd/zygote" "$sock" </dev/null >"$logs/zygote.out" 2>&1 &
zpid=$!
stop_zygote() {
	kill -TERM "$zpid" 2>/dev/null || true
	wait "$zpid" 2>/dev/null
}
trap 'stop_zygote; echo "valgrind logs kept in $logs" >&2' EXIT

for _ in $(seq 600); do
	[ -S "$sock" ] && break
	kill -0 "$zpid" 2>/dev/null || { cat "$logs/zygote.out" >&2; exit 1; }
	sleep 0.1
done
[ -S "$sock" ] || { echo "the zygote did not start" >&2; exit 1; }
export WST_TOOL_SERVER=$sock WST_TOOL_WRAPPER=$proxy
# The shell suites (docs, agent) take their tools from a
# directory: WST_BIN_DIR, where set, replaces it.  Each tool there runs
# through the proxy.
mkdir "$logs/bin"
for t in wsls wsread wswrite wsgrep wspath wsrun wstools; do
	printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$proxy" "$build/cmd/$t" >"$logs/bin/$t"
	chmod +x "$logs/bin/$t"
done
export WST_BIN_DIR=$logs/bin

# The mechanism must catch what it is for, and pass what is clean.
canary() {
	local want=$1 st=0
	shift
	"$proxy" "$@" >/dev/null 2>&1 </dev/null || st=$?
	if [ "$st" != "$want" ]; then
		echo "FAIL: $* exited $st under memcheck, not $want" >&2
		exit 1
	fi
}
canary 99 zygote-leak
canary 99 zygote-uninit
canary 0 "$build/cmd/wsread" --version
for pat in "definitely lost" "uninitialised"; do
	if ! grep -qs "$pat" "$logs"/[0-9]*.log; then
		echo "FAIL: no \"$pat\" in memcheck's logs of the canaries" >&2
		exit 1
	fi
done
mkdir "$logs/canaries"
for f in "$logs"/[0-9]*.log; do
	[ "$f" = "$logs/$zpid.log" ] || mv "$f" "$logs/canaries/"
done

start=$(date +%s)
st=0
meson test -C "$build" --print-errorlogs --num-processes 2 \
	--timeout-multiplier 5 "$@" || st=$?
end=$(date +%s)

trap - EXIT
stop_zygote || { echo "FAIL: the zygote itself exited $?" >&2; st=1; }
# Every process writes its own log; memcheck's reports are "==PID==" lines
# (its warnings about system calls it does not know are "--PID--").
runs=$(sed -n 's/^zygote: \([0-9]*\) runs$/\1/p' "$logs/zygote.out")
runs=$((${runs:-0} - 3)) # less the canaries
if [ "$runs" -le 0 ]; then
	echo "FAIL: no tool ran in the zygote" >&2
	st=1
fi
bad=$(grep -l '^==[0-9]*==' "$logs"/[0-9]*.log || true)
if [ -n "$bad" ]; then
	# shellcheck disable=SC2086
	cat $bad >&2
	echo "FAIL: memcheck reports in $(echo "$bad" | wc -l) logs" >&2
	st=1
fi
echo "valgrind step: $runs tool runs checked by memcheck in $((end - start)) s"
if [ "$st" = 0 ]; then
	rm -rf "$logs"
else
	echo "valgrind logs kept in $logs" >&2
fi
exit "$st"
