#!/usr/bin/env bash
# dev.sh - the two set-up commands of the README.
#
#   scripts/dev.sh demo   install what is needed, build, run the demo
#   scripts/dev.sh test   install what is needed, build, run every suite
#                         (warnings as errors), the unit, CLI and race suites
#                         again as an unprivileged user, then every suite
#                         under ASan+UBSan, valgrind memcheck and the
#                         fuzzers (CI's command)
#   scripts/dev.sh test --quick
#                         install what is needed, build, run every suite
#                         once (no sanitizers, valgrind or fuzzing); the
#                         suites skipped (mcp-interop without npm) are
#                         listed at the end with their reasons
#
# Idempotent: packages are installed only when missing, build directories
# are reused.  Works as root on a fresh Debian 12 with a compiler.
set -euo pipefail

cd "$(dirname "$0")/.."
top=$(pwd)

need_pkgs() {
	local missing=()
	# jq: the README's shell and harness examples use it, so that a
	# reader can try them after the demo.  dpkg-dev: meson asks its
	# dpkg-architecture for the multiarch libdir (lib/x86_64-linux-gnu);
	# without it `meson install` puts libws.a and libws.pc in lib64,
	# where Debian's pkg-config does not look (ftu11 02).
	local pkgs=(meson ninja-build pkg-config libpcre2-dev libcjson-dev check gcc mandoc git jq dpkg-dev)
	# The test run also builds with clang and runs the libFuzzer targets,
	# fetches through wsrun's network proxy with curl (cli-wsrun_net),
	# and drives wstools mcp with the MCP SDK (Node) in tests/mcp/interop:
	# Debian's nodejs and npm, unless a node and an npm are there already
	# (NodeSource's nodejs bundles npm and conflicts with Debian's).
	if [ "${1:-}" = test ]; then
		pkgs+=(clang libclang-rt-dev valgrind curl)
		command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
		command -v npm >/dev/null 2>&1 || pkgs+=(npm)
	fi
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "==> installing: ${missing[*]}"
		local sudo=""
		[ "$(id -u)" -eq 0 ] || sudo=sudo
		# dpkg's progress is noise on success; the log is shown on failure.
		local log
		log=$(mktemp)
		if ! { $sudo apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
				--no-install-recommends "${missing[@]}"; } </dev/null >"$log" 2>&1; then
			cat "$log" >&2
			rm -f "$log"
			echo "==> apt-get failed (its output is above)" >&2
			exit 1
		fi
		rm -f "$log"
	fi
}

setup() { # setup DIR [meson options...]
	local dir=$1
	shift
	if [ -f "$dir/build.ninja" ]; then
		meson setup --reconfigure "$dir" "$@" >/dev/null
	else
		meson setup "$dir" "$@" >/dev/null
	fi
	# $SETUP_TARGETS: only these (the demo needs no test programs).
	# shellcheck disable=SC2086
	ninja -C "$dir" ${SETUP_TARGETS:-}
}

# The MCP interop test's npm packages (@modelcontextprotocol/sdk and the
# reference server-filesystem, exact versions from package-lock.json):
# installed again only when the lock file changed.
# The older client of sdk-1.12/ (SDK 1.12, protocol 2025-03-26) the same way.
npm_deps() {
	local d
	for d in "$top/tests/mcp/interop" "$top/tests/mcp/interop/sdk-1.12"; do
		[ -f "$d/package-lock.json" ] || continue
		cmp -s "$d/package-lock.json" "$d/node_modules/.wst-lock" && continue
		echo "==> npm ci (${d#"$top"/})"
		# Without the registry the interop suite skips (exit 77) and
		# says so; everything else still runs.
		if (cd "$d" && npm ci --no-audit --no-fund --loglevel=error) 2>/tmp/wst-npm.$$; then
			cat /tmp/wst-npm.$$ >&2
			cp "$d/package-lock.json" "$d/node_modules/.wst-lock"
		else
			cat /tmp/wst-npm.$$ >&2
			# npm's own code (SELF_SIGNED_CERT_IN_CHAIN behind a TLS
			# proxy, ENOTFOUND offline), repeated in the run's last
			# lines, where "npm ci" alone would be the advice that
			# just failed (ftu12 23).
			npm_fail=$(grep -o -m1 -E 'code [A-Z_0-9]+' /tmp/wst-npm.$$ || true)
			npm_fail="npm ci failed in ${d#"$top"/}${npm_fail:+ ($npm_fail)}"
			echo "warning: $npm_fail: the mcp-interop suite skips it" >&2
		fi
		rm -f /tmp/wst-npm.$$
	done
}

# The suites the last run in build dir $1 skipped, with the reason each
# gave (its last line saying SKIP, or its last line): "Skipped: 1" alone
# does not say that the MCP SDK interop needs Node and npm.
skipped() {
	local log=$1/meson-logs/testlog.json
	[ -f "$log" ] || return 0
	python3 - "$log" <<'PY'
import json, sys
out = []
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t.get("result") != "SKIP":
        continue
    text = ((t.get("stdout") or "") + "\n" + (t.get("stderr") or "")).splitlines()
    text = [l.strip() for l in text if l.strip()]
    why = [l for l in text if "SKIP" in l] or text[-1:] or ["(no reason given)"]
    out.append("    %s: %s" % (t["name"], why[-1]))
if out:
    print("==> skipped suites:")
    print("\n".join(out))
PY
}

# The suites keep the tools' history in build/test-state (tests/meson.build):
# a run must leave nothing in the developer's own state directory, where a
# journal holds the old contents of the files the tests wrote (ftu12 02).
home_state() {
	{ ls -A "${XDG_STATE_HOME:-${HOME:-/nonexistent}/.local/state}/wstools" \
		2>/dev/null || true; } | sort
}
# home_state_check BEFORE [STAGE]: status 1, saying which stage (the one
# just run) left something, when the state directory holds a name that
# BEFORE did not.  CI checks after each stage: a name found only at the
# end of half an hour does not say which one to look at.
home_state_check() {
	local now new
	now=$(home_state)
	new=$(comm -13 <(printf '%s\n' "$1") <(printf '%s\n' "$now") | grep -v '^$' || true)
	[ -z "$new" ] && return 0
	echo "==> FAIL: ${2:+$2 }left history in" \
		"${XDG_STATE_HOME:-$HOME/.local/state}/wstools: $(echo $new)" \
		"(or wstools ran there meanwhile)"
	return 1
}

case "${1:-}" in
demo)
	need_pkgs
	# The tools only: building the test programs too took most of the
	# demo's time on a fresh machine; "test" builds them later.
	SETUP_TARGETS="cmd/wsls cmd/wsread cmd/wswrite cmd/wspath cmd/wsgrep cmd/wsrun cmd/wstools" \
		setup build
	exec bash "$top/scripts/demo.sh" "$top/build/cmd"
	;;
test)
	if [ "${2:-}" = --quick ]; then
		# The suites once, as a package build runs them: minutes, not
		# CI's half hour.  mcp-interop runs where node and the npm
		# packages are there (it skips otherwise).
		need_pkgs
		echo "==> build (gcc, warnings as errors)"
		setup build -Dwerror=true -Dtests=true
		echo "==> tests"
		rc=0
		before=$(home_state)
		meson test -C build --print-errorlogs --num-processes 2 || rc=$?
		home_state_check "$before" "the suites" || rc=1
		skipped build
		exit "$rc"
	fi
	need_pkgs test
	npm_deps
	echo "==> build (gcc, warnings as errors)"
	setup build -Dwerror=true
	if command -v clang >/dev/null 2>&1; then
		echo "==> build (clang, warnings as errors)"
		CC=clang setup build-clang -Dwerror=true -Dtests=false
	fi
	echo "==> tests"
	before=$(home_state)
	meson test -C build --print-errorlogs --num-processes 2
	home_state_check "$before" "the suites (gcc)"
	# Kept for the run's last lines too: a skip said only in the middle
	# of half an hour's log goes unread (the chroot CI's mcp-interop).
	skips=$(skipped build)
	[ -z "$skips" ] || echo "$skips"
	# As root, permission bits stop nothing: the bugs only a person who
	# is not root meets (a directory they may not enter, a file they
	# cannot replace, a user namespace of their own) are seen only here.
	# tests/unprivileged.sh runs the suites as nobody, with a scratch
	# HOME, XDG_STATE_HOME and TMPDIR of its own; status 77 is a stage
	# that could not run (no such user, the checkout out of its reach).
	echo "==> the unit, CLI and race suites as an unprivileged user (gcc)"
	st=0
	WST_UNPRIV_NOTES=$(mktemp)
	WST_UNPRIV_NOTES=$WST_UNPRIV_NOTES \
		bash "$top/tests/unprivileged.sh" build unit cli race || st=$?
	unpriv_skip=$(cat "$WST_UNPRIV_NOTES")
	rm -f "$WST_UNPRIV_NOTES"
	if [ "$st" = 77 ]; then
		unpriv_skip="the unit, CLI and race suites as an unprivileged user (the reason is in the log, at \"as an unprivileged user\")"
	elif [ "$st" != 0 ]; then
		exit "$st"
	fi
	home_state_check "$before" "the suites as an unprivileged user"
	echo "==> install"
	bash "$top/tests/install_check.sh" build
	home_state_check "$before" "the install check"
	echo "==> tests under AddressSanitizer + UndefinedBehaviorSanitizer"
	setup build-asan -Dwerror=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dbuildtype=debug
	# A sanitized binary starts about ten times slower (shadow memory,
	# and the leak check at exit): the CLI suites spawn thousands of
	# them, so their per-test timeouts are stretched to match.
	CK_TIMEOUT_MULTIPLIER=10 \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C build-asan --print-errorlogs --num-processes 2 \
			--timeout-multiplier 3
	home_state_check "$before" "the suites under ASan"
	# memcheck cannot see malloc in a static binary (no leak check, no
	# heap errors): the tools it watches are linked dynamically for the
	# valgrind steps (meson.build's static_pie; only the tools relink).
	echo "==> build for valgrind (-Dstatic_pie=disabled)"
	setup build -Dwerror=true -Dstatic_pie=disabled
	echo "==> unit suites under valgrind memcheck (no errors, no leaks)"
	# In-process (CK_FORK=no) so that every test body is checked; the
	# children some tests fork on purpose are left alone.
	CK_FORK=no WST_SLOWDOWN=20 WST_RACE_ITERATIONS=300 \
		meson test -C build --suite unit --no-suite novalgrind --print-errorlogs \
			--num-processes 2 --timeout-multiplier 5 \
			--wrap='valgrind -q --error-exitcode=99 --leak-check=full
			--errors-for-leak-kinds=definite,indirect
			--show-leak-kinds=definite,indirect
			--child-silent-after-fork=yes'
	home_state_check "$before" "the unit suites under valgrind"
	echo "==> every tool run of the suites under valgrind memcheck (no errors, no leaks)"
	# tests/valgrind/run.sh: one memcheck process (build/cmd/zygote)
	# forks a child per tool run, which memcheck checks like a tool
	# exec'd under it (a tool exec'd under valgrind takes 0.5-0.9 s just
	# to start, and the suites start thousands).  An error or a definite
	# or indirect leak is exit status 99, and the test fails; the step
	# first proves that a leak and an uninitialised read do fail it.
	# Left out: wsrun's suites (tag novalgrind: valgrind 3.19 knows
	# neither Landlock nor clone3, so wsrun cannot sandbox under it), and
	# fault (its LD_PRELOAD injector must be loaded by the tool's own
	# exec; the zygote's children are forked, not exec'd).
	# Two runs: in the CLI suites each race attempt is a tool run (20
	# each), in the race suite most are in-process calls and the tool
	# runs are capped (10 per shape under WST_SLOWDOWN), so it makes 200
	# (with 20, a shape could go without ever seeing its inside state).
	WST_SLOWDOWN=20 WST_RACE_ITERATIONS=20 \
		bash "$top/tests/valgrind/run.sh" build --suite cli \
			--suite docs --suite agent --no-suite novalgrind
	home_state_check "$before" "the CLI suites under valgrind"
	WST_SLOWDOWN=20 WST_RACE_ITERATIONS=200 \
		bash "$top/tests/valgrind/run.sh" build --suite race \
			--no-suite novalgrind
	home_state_check "$before" "the race suite under valgrind"
	echo "==> fuzzing (libFuzzer, ${FUZZ_SECONDS:-40} s per target, one per CPU)"
	CC=clang setup build-fuzz -Dfuzz=true -Dtests=false -Dwerror=true \
		-Db_sanitize=address,undefined -Db_lundef=false
	bash "$top/tests/fuzz/run.sh" build-fuzz
	home_state_check "$before" "the fuzzers"
	# The stage as nobody adds to what ran as root: what it could not
	# run there is said apart, before the last line, which is about the
	# suites themselves.
	if [ -n "${unpriv_skip:-}" ]; then
		echo "==> of the stage as an unprivileged user, these did not run:"
		echo "    $unpriv_skip"
	fi
	if [ -n "$skips" ]; then
		echo "==> passed, but these suites did not run:"
		echo "$skips" | tail -n +2
		[ -z "${npm_fail:-}" ] || echo "    why: $npm_fail (see the start of this log; behind a TLS proxy, NODE_EXTRA_CA_CERTS or npm's cafile)"
	else
		echo "==> passed, every suite ran"
	fi
	;;
valgrind)
	# One memcheck pass as `test` runs it (same knobs), on the suites
	# given as meson test arguments (default: those `test` runs first),
	# e.g. scripts/dev.sh valgrind --suite cli cli-wsls.
	shift
	need_pkgs test
	echo "==> build (gcc, warnings as errors, with tests, tools dynamic)"
	# Dynamic tools: memcheck cannot see malloc in a static one.
	setup build -Dwerror=true -Dtests=true -Dstatic_pie=disabled
	[ $# -gt 0 ] || set -- --suite cli --suite docs --suite agent
	echo "==> $* under valgrind memcheck (no errors, no leaks)"
	WST_SLOWDOWN=20 WST_RACE_ITERATIONS="${WST_RACE_ITERATIONS:-20}" \
		exec bash "$top/tests/valgrind/run.sh" build "$@" --no-suite novalgrind
	;;
*)
	echo "usage: scripts/dev.sh demo|test [--quick]|valgrind [meson test args]" >&2
	exit 2
	;;
esac
