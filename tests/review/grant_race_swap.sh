#!/bin/bash
# Race: while wsrun sets up --allow-read $GB/data/ref (a name in a write
# grant), a process with write access to the grant swaps ref atomically
# (renameat2 RENAME_EXCHANGE) between a real directory inside the grant
# and a symlink to a secret outside, as fast as it can.  A run that works
# must have the grant narrowed to read and must never show the secret;
# every other run must be refused.  Counts are printed; any "LEAK" or
# "WROTE" line is a finding.  ~SECS seconds per layer set (default 40).
# Run as root.  Before the fix (73751cf, SECS=10): leaked 6 and wrote 5 of
# 80 with every layer (the swap between the open and the bind), leaked
# 34/37 and 39/36 without a mount namespace / as root without userns;
# after it: 0 and 0 of some 1400 runs (30 s per layer set).
. "$(dirname "$0")/grant_lib.sh"
SECS=${SECS:-40}
mkdir -p /root/.r5race; echo RACESECRET > /root/.r5race/id
mkdir -p "$GB/data/ref"; echo inside > "$GB/data/ref/id"
ln -s /root/.r5race "$GB/data/alt"
python3 - "$GB/data/ref" "$GB/data/alt" <<'PY' &
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b = (p.encode() for p in sys.argv[1:3])
end = time.time() + 600
while time.time() < end:
    libc.renameat2(-100, a, -100, b, 2)
PY
SWAP=$!
trap 'kill $SWAP 2>/dev/null; rm -rf /root/.r5race; cleanup' EXIT
for mode in "" mountns userns; do
	ok=0 refused=0 leak=0 wrote=0 other=0
	end=$((SECONDS + SECS))
	while [ $SECONDS -lt $end ]; do
		out=$(run "$mode" --allow-read "$GB/data/ref" -c "cat $GB/data/ref/id /root/.r5race/id 2>/dev/null; touch $GB/data/w 2>/dev/null && echo WROTE; true" 2>&1)
		case $out in
		*RACESECRET*) leak=$((leak + 1)); echo "LEAK: $out" | head -c 600; echo ;;
		*WROTE*) wrote=$((wrote + 1)); echo "WROTE: $out" | head -c 600; echo ;;
		*'"success":true'*) ok=$((ok + 1)) ;;
		*POLICY_DENIED*|*SANDBOX_UNAVAILABLE*) refused=$((refused + 1)) ;;
		*) other=$((other + 1)); echo "OTHER: $out" | head -c 300; echo ;;
		esac
		rm -f "$GB/data/w"
	done
	echo "WS_RUN_DISABLE=$mode: ran $ok, refused $refused, leaked $leak, wrote $wrote, other $other"
done
