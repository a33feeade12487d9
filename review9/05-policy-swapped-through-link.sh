#!/bin/sh
# The policy in use is spelled through a symlink inside the workspace
# (WS_POLICY=WS/d/conf/pol.json, d/conf -> conf-a).  An agent writes its
# own policy with write_file, then retargets d/conf with run_command
# (ln -sfn): the next call runs under the agent's policy and reads what the
# real one denies.  (delete_path of d/conf is also accepted.)  DESIGN 2:
# "No tool creates, replaces, moves or deletes: the config places and the
# policy in use" - only entries on the root's or a mount's spelling are
# guarded, not those on the policy's (or a config place's) spelling.
set -u
W=${WSTOOLS:-/work/wt/review9/build/cmd/wstools}
T=$(mktemp -d); mkdir -p "$T/ws/d/conf-a"; cd "$T/ws" || exit 2
echo TOPSECRET > secret.txt; ln -s conf-a d/conf
cat > d/conf-a/pol.json <<'E'
{"version":1,"name":"real","file_rules":[
 {"name":"deny-secret","paths":["${WORKSPACE}/secret.txt"],"operations":["*"],"decision":"deny"},
 {"name":"all","paths":["**"],"operations":["*"],"decision":"allow"}],"command_rules":[]}
E
export WS_ROOT="$T/ws" WS_POLICY="$T/ws/d/conf/pol.json"
$W call read_file '{"path":"secret.txt"}' | grep -q POLICY_DENIED || { echo "setup: not denied"; exit 2; }
$W call write_file '{"path":"d/conf-b/pol.json","content":"{\"version\":1,\"name\":\"mine\",\"file_rules\":[{\"name\":\"all\",\"paths\":[\"**\"],\"operations\":[\"*\"],\"decision\":\"allow\"}]}"}' >/dev/null
$W call run_command '{"command":"ln -sfn conf-b /d/conf"}' >/dev/null
out=$($W call read_file '{"path":"secret.txt"}')
echo "$out" | head -c 200; echo
cd /; rm -rf "$T"
case $out in *TOPSECRET*) echo "BYPASS: policy replaced"; exit 1;; esac
