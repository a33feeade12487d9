#!/usr/bin/env bash
# demo.sh - the main job on the bundled example workspace: virtual and real
# paths, a refused escape with its error code, JSON output, a confined
# command, a policy, history and undo, and where the tools are.
# Usage: scripts/demo.sh BIN_DIR
set -uo pipefail

bin=${1:?usage: demo.sh BIN_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
ws=$top/examples/workspace
export PATH="$bin:$PATH"
export WS_ROOT="$ws"
export WS_MOUNTS="/.skills=$top/examples/skills:ro"

# Print a command as one would type it, then run it.
show() {
	local a out="$"
	for a in "$@"; do
		case $a in
		*$'\n'*) a=$(printf '%q' "$a") ;;
		*[!A-Za-z0-9_./=:-]*) a="'$a'" ;;
		esac
		out="$out $a"
	done
	printf '\n%s\n' "$out"
}

run() {
	show "$@"
	"$@"
	local st=$?
	[ $st -eq 0 ] || printf '(exit status %d)\n' "$st"
}

echo "Workspace: $ws (WS_ROOT), with $top/examples/skills mounted read-only at /.skills"

echo
echo "== How paths map: virtual -> real, and back"
run wspath / /src/main.c code/main.c /.skills/howto.md
run wspath --to-virtual "$ws/src/main.c"
run wspath --explain code/../code/main.c

echo
echo "== Escapes are refused, each with its error code and exit status"
run wspath ../../etc/passwd
run wspath passwd-link
run wspath --json passwd-link

for t in wsls wsread wswrite; do
	if ! "$t" --version >/dev/null 2>&1; then
		exit 0
	fi
done

echo
echo "== The file tools share one view"
run wsls -a /
run wsread -n /src/main.c
run wsread --json --start-line 2 --end-line 3 notes/todo.txt
run wsread --json --page-lines 3 src/main.c
run wsread --tail 2 src/main.c
if wsgrep --version >/dev/null 2>&1; then
	run wsgrep hello
	run wsgrep --files --hidden --include '*.md'
	run wsgrep --json -w main
fi
tmp=$(mktemp -d)
cp -a "$ws/." "$tmp/"
export WS_ROOT="$tmp"
# The copy's history lives and goes with it, not in ~/.local/state.
state=$(mktemp -d)
export XDG_STATE_HOME="$state"
run wswrite --content $'hello\n' /out/hello.txt
run wsread out/hello.txt
run wswrite --json --edit --old hello --new goodbye --dry-run /out/hello.txt
run wswrite /.skills/new.md --content x
run wsread --args '{"path": "../../etc/shadow"}'

if wsrun --version >/dev/null 2>&1; then
	echo
	echo "== A command runs confined: the workspace is its /, secrets are empty"
	run wsrun -c 'pwd; ls /src; cat /etc/shadow | wc -c'
	run wsrun -c 'echo made by a command > notes/run.txt'
	run wsread notes/run.txt
	run wsrun curl -sS https://example.com
fi

echo
echo "== A policy on top: read-only allows reading the project, nothing else"
run wsread --policy read-only out/hello.txt
run wswrite --policy read-only --content x out/hello.txt

echo
echo "== The file tools' changes are recorded, and undo takes them back"
run wswrite --edit --old hello --new goodbye /out/hello.txt
run wstools history
run wstools undo
run wsread out/hello.txt
run wstools undo
run wsls /
run wstools history notes/run.txt
rm -rf "$tmp" "$state"

echo
echo "== Next: the tools are in build/cmd (export PATH=\"\$PWD/build/cmd:\$PATH\");"
echo "   man pages after meson install -C build and apt-get install man-db;"
echo "   an agent's MCP server: wstools mcp DIR (docs/mcp.md)"
exit 0
