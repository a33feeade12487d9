# Shared set-up for the grant repros: a workspace, a grant base outside
# /tmp and HOME, a policy granting $GB/data/** read-write.
# Usage: . tests/review/grant_lib.sh  (WSRUN may point at the binary)
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WSRUN=${WSRUN:-$HERE/build/cmd/wsrun}
BASE=$(mktemp -d /var/cache/r5grant.XXXXXX)
WS=$BASE/ws
GB=$BASE/g
mkdir -p "$WS" "$GB/data" "$GB/cfg"
export HOME=$BASE/home
# The reviews ran in the real view (the default then; the workspace and the
# grants at their real paths): WS_VIEW=virtual tries the default of now.
export WS_VIEW=${WS_VIEW:-real}
mkdir -p "$HOME"
cat > "$GB/cfg/p.json" <<JSON
{"version": 1, "file_rules": [
 {"name": "data", "paths": ["$GB/data/**"], "operations": ["*"], "decision": "allow"},
 {"name": "rest", "paths": ["**"], "operations": ["*"], "decision": "allow"}]}
JSON
cleanup() { umount -R "$BASE"/* 2>/dev/null; rm -rf "$BASE"; }
trap cleanup EXIT
# run MODE ARGS...: wsrun --json with WS_RUN_DISABLE=MODE
run() {
	local mode=$1; shift
	WS_RUN_DISABLE=$mode "$WSRUN" --workspace "$WS" --json --policy "$GB/cfg/p.json" "$@"
}
# grant_of JSON: the data grant's access and why
grant_of() { python3 -c 'import json,sys
d=json.loads(sys.stdin.read())
if not d.get("success"): print("refused:", d.get("error")); sys.exit(0)
d=d["output"]
for g in (d.get("isolation") or {}).get("policy_grants") or []:
    print("grant:", g.get("rule"), g.get("access"), g.get("status"), g.get("reason",""))
print("exit:", d.get("exit_code"), "stdout:", repr(d.get("stdout")), "stderr:", repr((d.get("stderr") or "")[:300]))
' ; }
