#!/bin/bash
# SIGINT to wsrun shortly after start: the command (sleep 3) must go at
# once, not after it ends (a lost forward in init).  Prints the count of
# slow cancellations out of N.
W=${WSRUN:-build/cmd/wsrun}
WS=$(mktemp -d)
N=${1:-60}
SIG=${2:-INT}
slow=0
for ((i = 0; i < N; i++)); do
	"$W" --workspace "$WS" -c "sleep 3" >/dev/null 2>&1 &
	p=$!
	d=$((RANDOM % 9)); sleep "0.00$d"
	s=$(date +%s%N)
	kill -$SIG $p
	wait $p
	ms=$(( ($(date +%s%N) - s) / 1000000 ))
	[ $ms -gt 1500 ] && { slow=$((slow + 1)); echo "delay 0.00$d: $ms ms"; }
done
echo "slow: $slow/$N"
rm -rf "$WS"
