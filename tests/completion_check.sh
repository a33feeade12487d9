#!/usr/bin/env bash
# completion_check.sh BINDIR COMPLETION - the bash completion completes
# options from --help and paths in the virtual view (through wsls), never
# from the host.
set -uo pipefail
# WST_BIN_DIR, where set, replaces BINDIR (tests/valgrind/run.sh).
bindir=${WST_BIN_DIR:-${1:?}}
comp=${2:?}
export PATH="$bindir:$PATH"
ws=$(mktemp -d /tmp/wscomp-XXXXXX)
trap 'rm -rf "$ws"' EXIT
mkdir -p "$ws/src/lib" "$ws/srv-not" "$ws/.hidden"
echo x >"$ws/src/a.c"
fail=0
# shellcheck source=/dev/null
source "$comp"
compopt() { :; } # only valid inside a real completion
expect() { # expect "WORDS..." "expected completions"
	local line=$1 want=$2 got
	read -r -a COMP_WORDS <<<"$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_ws_complete
	got=""
	((${#COMPREPLY[@]})) && got=$(printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " ")
	if [[ $got != "$want" ]]; then
		echo "FAIL: '$line' -> '$got', want '$want'"
		fail=1
	fi
}
expect "wsread --workspace $ws /sr" "/src/ /srv-not/ "
expect "wsread --workspace $ws /src/" "/src/a.c /src/lib/ "
expect "wsls --workspace $ws src/l" "src/lib/ "
expect "wsls --workspace $ws /." "/.hidden/ "
expect "wsls --workspace $ws /../" ""
expect "wsls --rec" "--recursive "
expect "wsls --paths r" "real relative "
expect "wsls --workspace $ws --mount /.m=$ws/src /.m/" "/.m/a.c /.m/lib/ "
expect "wstools m" "mcp "
expect "wstools mcp --max-m" "--max-message "
expect "wstools mcp --compat m" "mcp-filesystem "
expect "wstools mcp $ws/sr" "$ws/src $ws/srv-not "
if [ "$fail" -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit "$fail"
