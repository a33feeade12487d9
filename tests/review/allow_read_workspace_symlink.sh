#!/bin/bash
# Finding (same class as grant_allow_read_symlink.sh, without a policy):
# --allow-read of a name in the workspace that the command re-pointed in
# an earlier call (a symlink to root's keys) granted what it chose where
# no mount namespace binds (WS_RUN_DISABLE=mountns; an unprivileged user
# without user namespaces).  Fixed: POLICY_DENIED.  Run as root.
. "$(dirname "$0")/grant_lib.sh"
mkdir -p /root/.r5ws; echo WSROOTKEY > /root/.r5ws/id
WS_RUN_DISABLE=mountns "$WSRUN" --workspace "$WS" --json -c "ln -s /root/.r5ws $WS/vendor" | grant_of
for mode in "" mountns; do
	echo "== WS_RUN_DISABLE=$mode --allow-read $WS/vendor"
	WS_RUN_DISABLE=$mode "$WSRUN" --workspace "$WS" --json --allow-read "$WS/vendor" -c "cat $WS/vendor/id" | grant_of
done
rm -rf /root/.r5ws
