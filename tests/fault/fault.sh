#!/usr/bin/env bash
# fault.sh CMD_DIR INJECTOR [WSWRITE] - wswrite under injected faults
# (issue 10).  WSWRITE, when given, is the wswrite to run instead of
# CMD_DIR's: the injector is loaded with LD_PRELOAD, which a static-pie
# wswrite (meson.build's static_pie) never loads, so meson passes one
# linked dynamically.
#
# For each way of writing (replace, --append, --edit, --create-only, and
# the named-temporary fallback with WS_TEST_NAMED_TEMP=1) and each system
# call of the write path (inject.c's list), fail its 1st, 2nd, ... call
# with EIO until a run no longer reaches it.  After every run: no crash;
# either success with exactly the new content, or a refusal with a JSON
# error code among the documented ones and the old file whole and
# byte-identical (absent, for a create); and no temporary file left in the
# directory.  Then a full filesystem: a 64 KiB tmpfs, where a write bigger
# than the space left is IO_ERROR with the old content intact and no
# temporary left (skipped, status 77, where tmpfs cannot be mounted).
set -uo pipefail
shopt -s dotglob nullglob
bin=${1:?usage: fault.sh CMD_DIR INJECTOR [WSWRITE]}/wswrite
inj=${2:?usage: fault.sh CMD_DIR INJECTOR [WSWRITE]}
bin=${3:-$bin}
[ -x "$bin" ] && [ -f "$inj" ] || { echo "missing $bin or $inj" >&2; exit 1; }
inj=$(realpath "$inj")
# On tmpfs (/dev/shm) where there is one: fsync costs nothing there, and
# the suite makes hundreds of runs.
tmp=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm
base=$(mktemp -d "$tmp/wsfault-XXXXXX")
mnt=""
cleanup() {
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	rm -rf "$base"
}
trap cleanup EXIT
ws=$base/ws
mkdir -p "$ws/d"
# A sanitized build wants its runtime first; the injector goes before it.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0
unset WS_ROOT WS_POLICY WS_CONFIG WS_MOUNTS WS_FORMAT WS_PATHS WS_STRICT WS_ALLOW_OUTSIDE
export XDG_CONFIG_HOME=/nonexistent-wsfault
export XDG_STATE_HOME=$base/state

calls=(openat openat2 open write pwrite fsync fdatasync linkat renameat renameat2
	fchmod fchown ftruncate close unlinkat mkdirat)
codes='IO_ERROR|PERMISSION_DENIED|NOT_FOUND|INVALID_PATH|WORKSPACE_NOT_FOUND'
old=$'old line 1\nold line 2\n'
fails=0 runs=0 reached=0
declare -A seen_codes=()

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# check MODE CALL N STATUS OUT ERR: the invariants after one run.
check() {
	local mode=$1 call=$2 n=$3 st=$4 out=$5 err=$6 want_new file=d/f have left
	case $mode in
	write | named) want_new=$'new content\n' ;;
	append) want_new=$old$'more\n' ;;
	edit) want_new=$'new line 1\nold line 2\n' ;;
	create) want_new=$'new content\n' file=d/g ;;
	esac
	if [ "$st" -ge 128 ] || [ "$st" -eq 127 ]; then
		fail "$mode $call #$n: status $st: $err"
		return
	fi
	have="(absent)"
	[ -e "$ws/$file" ] && { IFS= read -r -d '' have <"$ws/$file" || true; }
	if [ "$st" -eq 0 ]; then
		[[ $out == *'"success":true'* ]] || fail "$mode $call #$n: status 0 without success: $out"
		[ "$have" = "$want_new" ] || fail "$mode $call #$n: success but content is '$have'"
	else
		local code
		code=""
		[[ $out =~ \"code\":\"([A-Z_]*)\" ]] && code=${BASH_REMATCH[1]}
		seen_codes[$code]=1
		# The configuration file is read before anything else: an I/O
		# error there is reported as INVALID_ARGUMENT (the file could
		# not be used), before the workspace is touched.
		[[ $code =~ ^($codes)$ ]] ||
			[[ $code == INVALID_ARGUMENT && $out == *'configuration file'* ]] ||
			fail "$mode $call #$n: status $st, code '$code': $out $err"
		if [ "$mode" = create ]; then
			[ "$have" = "(absent)" ] || fail "$mode $call #$n: failed create left '$have'"
		else
			[ "$have" = "$old" ] || fail "$mode $call #$n: old file not intact: '$have'"
		fi
	fi
	left=("$ws"/d/*)
	for p in "${left[@]}"; do
		[[ ${p##*/} == [fg] ]] || fail "$mode $call #$n: left behind: ${p##*/}"
	done
}

run_one() { # MODE CALL N -> sets st out err
	local mode=$1 call=$2 n=$3 env=()
	local args=(--workspace "$ws" --json)
	case $mode in
	write) args+=(--content $'new content\n' d/f) ;;
	named) args+=(--content $'new content\n' d/f); env+=(WS_TEST_NAMED_TEMP=1) ;;
	append) args+=(-a --content $'more\n' d/f) ;;
	edit) args+=(--edit --old 'old line 1' --new 'new line 1' d/f) ;;
	create) args+=(--create-only --content $'new content\n' d/g) ;;
	esac
	printf '%s' "$old" >"$ws/d/f"
	rm -f "$ws/d/g"
	out=$(env "${env[@]}" LD_PRELOAD="$inj" WSF_CALL="$call" WSF_NTH="$n" \
		"$bin" "${args[@]}" 2>"$base/err")
	st=$?
	err=""
	IFS= read -r -d '' err <"$base/err" || true
	runs=$((runs + 1))
}

for mode in write named append edit create; do
	for call in "${calls[@]}"; do
		for ((n = 1; n <= 40; n++)); do
			run_one "$mode" "$call" "$n"
			if [[ $err != *"wsfault: $call #$n"* ]]; then
				# Not reached: this run had no fault, so it must
				# simply have worked.
				[ "$st" -eq 0 ] || fail "$mode $call #$n: no fault, status $st: $out $err"
				check "$mode" "$call" "$n" "$st" "$out" "$err"
				break
			fi
			reached=$((reached + 1))
			check "$mode" "$call" "$n" "$st" "$out" "$err"
		done
	done
done
echo "fault: $runs runs, $reached with a fault; codes: ${!seen_codes[*]}"
# No fault at all: the injector was never loaded (a static wswrite).
[ "$reached" -gt 0 ] || fail "no run reached a fault: is $bin linked statically?"

# The full filesystem.
mnt=$base/small
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
	mnt=""
	[ $fails -eq 0 ] || exit 1
	echo "SKIP: cannot mount a tmpfs (not root?): the full-filesystem case did not run"
	exit 77
fi
mkdir -p "$mnt/ws"
printf '%s' "$old" >"$mnt/ws/f"
for how in replace named append; do
	printf '%s' "$old" >"$mnt/ws/f"
	args=(f)
	[ $how = append ] && args=(-a f)
	out=$(head -c 200000 /dev/zero | tr '\0' 'x' |
		WS_TEST_NAMED_TEMP=$([ $how = named ] && echo 1 || echo 0) \
		"$bin" --workspace "$mnt/ws" --json "${args[@]}" 2>&1)
	st=$?
	grep -q '"code":"IO_ERROR"' <<<"$out" || fail "full fs ($how): status $st: $out"
	have=$(cat "$mnt/ws/f"; printf x)
	[ "${have%x}" = "$old" ] || fail "full fs ($how): old content lost ($(stat -c %s "$mnt/ws/f") bytes)"
	left=$(cd "$mnt/ws" && ls -A | grep -vx f || true)
	[ -z "$left" ] || fail "full fs ($how): left behind: $left"
done
echo "fault: full filesystem checked"
[ $fails -eq 0 ] || { echo "$fails failures" >&2; exit 1; }
echo "fault: all passed"
