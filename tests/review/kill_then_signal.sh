#!/bin/bash
# SIGS="KILL INT" tests/review/kill_then_signal.sh: a SIGKILLed run, then a signalled one, 30 times; prints the signalled runs that took over 1.5 s (their command, sleep 3, was not stopped).
W=build/cmd/wsrun; WS=$(mktemp -d); slow=0
for ((i = 0; i < 30; i++)); do
  for sig in $SIGS; do
	env --default-signal=INT "$W" --workspace "$WS" -c "sleep 3" >/dev/null 2>&1 &
	p=$!; d=$((RANDOM % 9)); sleep "0.00$d"; s=$(date +%s%N); kill -$sig $p; wait $p 2>/dev/null; rc=$?
	ms=$(( ($(date +%s%N) - s) / 1000000 ))
	[ $ms -gt 1500 ] && { slow=$((slow+1)); echo "$sig d=$d rc=$rc $ms ms"; }
  done
done; echo "slow $slow"; rm -rf $WS
