#!/bin/bash
# Hostile stress of wsrun's shared-memory namespace init (review4).
# Usage: tests/review/stress.sh [N_BACK2BACK] [N_TIMEOUTS] [N_SIGNALS]
W=${WSRUN:-build/cmd/wsrun}
WS=$(mktemp -d)
N1=${1:-2000}; N2=${2:-200}; N3=${3:-100}
declare -A codes
bad=0
before=$(pgrep -f -c -- "--workspace $WS")
# 1. back to back
for ((i = 0; i < N1; i++)); do
	timeout -s KILL 20 "$W" --workspace "$WS" true >/dev/null 2>/tmp/r4err.$$
	rc=$?
	codes["true:$rc"]=$((${codes["true:$rc"]:-0} + 1))
	if [ $rc -ne 0 ]; then bad=$((bad + 1)); head -c 300 /tmp/r4err.$$; fi
done
# 2. random tiny timeouts (fire during setup or just after)
for ((i = 0; i < N2; i++)); do
	t=$(printf '0.%03d' $((RANDOM % 8 + 1)))
	cmd=$([ $((RANDOM % 2)) = 0 ] && echo "sleep 1" || echo "true")
	timeout -s KILL 20 "$W" --workspace "$WS" --timeout "$t" --grace 0.01 -c "$cmd" >/dev/null 2>/tmp/r4err.$$
	rc=$?
	codes["to:$rc"]=$((${codes["to:$rc"]:-0} + 1))
	if [ $rc -ge 128 ] && [ $rc -ne 137 ] || [ $rc = 137 ]; then bad=$((bad + 1)); echo "timeout $t $cmd rc=$rc"; head -c 300 /tmp/r4err.$$; fi
done
# 3. SIGINT / SIGTERM / SIGKILL to wsrun during setup
for ((i = 0; i < N3; i++)); do
	for sig in INT TERM KILL; do
		"$W" --workspace "$WS" -c "sleep 3" >/dev/null 2>&1 &
		p=$!
		sleep "0.00$((RANDOM % 9))"
		kill -$sig $p
		s=$(date +%s%N)
		wait $p
		rc=$?
		ms=$(( ($(date +%s%N) - s) / 1000000 ))
		codes["$sig:$rc"]=$((${codes["$sig:$rc"]:-0} + 1))
		if [ $ms -gt 2000 ]; then bad=$((bad + 1)); echo "$sig took $ms ms"; fi
	done
done
sleep 0.5
for k in "${!codes[@]}"; do echo "$k ${codes[$k]}"; done | sort
left=$(pgrep -f -- "sleep 3$|sleep 1$" | xargs -r -n1 sh -c 'readlink /proc/$0/root' 2>/dev/null | grep -vc "^/var/tmp")
after=$(pgrep -f -c -- "--workspace $WS")
echo "leftover sleeps: $left  wsrun before/after: $before/$after  bad: $bad"
rm -rf "$WS" /tmp/r4err.$$
