W=${W:-build/cmd/wsrun}; WS=$(mktemp -d); slow=0
for ((i = 0; i < ${N:-30}; i++)); do
	taskset -c 1 env --default-signal=INT "$W" --workspace "$WS" -c "sleep 3" >/dev/null 2>&1 &
	p=$!; d=$((RANDOM % 9)); sleep "0.00$d"; s=$(date +%s%N); kill -${SIG:-TERM} $p; wait $p 2>/dev/null; rc=$?
	ms=$(( ($(date +%s%N) - s) / 1000000 ))
	[ $ms -gt 1500 ] && { slow=$((slow+1)); echo "d=$d rc=$rc $ms ms"; }
done; echo "slow $slow"; rm -rf $WS
