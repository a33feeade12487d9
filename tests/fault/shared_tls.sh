#!/usr/bin/env bash
# shared_tls.sh CMD_DIR INJECTOR - wsrun keeps the discipline of a memory
# shared with its namespace init (lib/run.c, struct ws__vsnap): the thread
# that cloned init shares its errno with it, so it makes no fork() (nor any
# other C library call) while init builds the root.  A fork there once did:
# the guardian's start ran beside init, a free() put back a stale EEXIST
# over init's ENOENT, and a call failed with "mount tmpfs /tmp: File
# exists" (CI, now and then).  The injector (inject.c, WSF_SHARED_TLS)
# says so on standard error whenever a fork() is made on such a thread, so
# this fails on every run that breaks the discipline, not on an unlucky
# one.  Both views, a small workspace (the repositories' walk before the
# clone) and one with 20 top-level directories (the walk on the side
# thread), with and without an audit log (the guardian's start).
set -uo pipefail
bin=${1:?usage: shared_tls.sh CMD_DIR INJECTOR}/wsrun
inj=${2:?usage: shared_tls.sh CMD_DIR INJECTOR}
[ -x "$bin" ] && [ -f "$inj" ] || { echo "missing $bin or $inj" >&2; exit 1; }
inj=$(realpath "$inj")
base=$(mktemp -d "${TMPDIR:-/tmp}/wstls-XXXXXX")
trap 'rm -rf "$base"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0
export XDG_STATE_HOME=$base/state
unset WS_ROOT WS_POLICY WS_CONFIG WS_MOUNTS WS_FORMAT WS_PATHS WS_STRICT WS_ALLOW_OUTSIDE WS_VIEW
mkdir -p "$base/small/src" "$base/large"
echo hi > "$base/small/src/a"
for i in $(seq 1 20); do mkdir -p "$base/large/d$i"; done
fail=0 runs=0
for ws in small large; do
	for view in real virtual; do
		for audit in "" "--audit=$base/audit-$ws-$view.log"; do
			err=$base/err
			out=$(LD_PRELOAD=$inj WSF_SHARED_TLS=1 "$bin" --workspace "$base/$ws" \
				--json --view=$view $audit -- sh -c 'echo ran' 2>"$err")
			rc=$?
			runs=$((runs + 1))
			if grep -q '^wsfault:' "$err"; then
				echo "FAIL: $ws $view ${audit:+audit}: $(grep '^wsfault:' "$err" | head -1)"
				fail=1
			fi
			if [ $rc -eq 125 ] && grep -q '"SANDBOX_UNAVAILABLE"' <<<"$out" &&
			   ! grep -q 'setup failed' <<<"$out"; then
				echo "SKIP: no sandbox here: $out"
				exit 77
			fi
			if [ $rc -ne 0 ] || ! grep -q '"stdout":"ran\\n"' <<<"$out"; then
				echo "FAIL: $ws $view ${audit:+audit}: rc $rc: $out $(cat "$err")"
				fail=1
			fi
		done
	done
done
[ $fail -eq 0 ] && echo "ok: $runs runs, no fork on a thread init shares"
exit $fail
