#!/bin/bash
# Finding: --allow-read of a name inside a write grant follows a symlink
# the command planted there in an earlier call: the read-only grant goes
# wherever the command chose (here /etc/shadow and root's HOME), and the
# write grant is not narrowed either (what the name now resolves to lies
# outside it).  Run as root.
. "$(dirname "$0")/grant_lib.sh"
mkdir -p "$GB/data/ref"; echo reference > "$GB/data/ref/doc"
mkdir -p /root/.r5secret; echo ROOTKEY > /root/.r5secret/id
# Call 1 (the operator has no --allow-read yet; data/ is the command's).
run "" -c "rm -rf $GB/data/ref $GB/data/ref.txt; ln -s /root/.r5secret $GB/data/ref; ln -s /etc/shadow $GB/data/ref.txt" | grant_of
for mode in "" mountns; do
	echo "== WS_RUN_DISABLE=$mode: --allow-read $GB/data/ref and ref.txt"
	# Call 2: the operator means "data/ref is reference material, read-only".
	run "$mode" --allow-read "$GB/data/ref" --allow-read "$GB/data/ref.txt" \
		-c "cat $GB/data/ref/id /root/.r5secret/id; head -c 20 $GB/data/ref.txt; head -c 20 /etc/shadow; echo; touch $GB/data/written && echo data-writable" | grant_of
done
rm -rf /root/.r5secret
