#!/usr/bin/env bash
# man_check.sh BINDIR MANDIR - every tool's man page is lint-clean
# (mandoc -Tlint -W warning) and names every option its --help lists, so
# that SYNOPSIS and OPTIONS cannot drift from the binary.  Skips (exit 77)
# when mandoc is not installed.
set -euo pipefail
# WST_BIN_DIR, where set, replaces BINDIR (tests/valgrind/run.sh).
bindir=${WST_BIN_DIR:-${1:?usage: man_check.sh BINDIR MANDIR}}
mandir=${2:?usage: man_check.sh BINDIR MANDIR}
command -v mandoc >/dev/null 2>&1 || { echo "mandoc not installed: skipped"; exit 77; }
fail=0
for page in "$mandir"/*.[157]; do
	if ! out=$(mandoc -Tlint -W warning "$page" 2>&1) || [ -n "$out" ]; then
		echo "FAIL: mandoc -Tlint $page:"
		echo "$out"
		fail=1
	fi
done
# A quoting macro (Ql, Dq, Qq, Sq) encloses the rest of its line: a second
# one or a No on that line is swallowed into the first quote
# ("(`echo x, `mkdir /build'')"); one a line, inside Po ... Pc.
for page in "$mandir"/*.[157]; do
	if bad=$(grep -nE '^\.(Pq|Po|Ql|Dq|Qq|Sq)( .*)? (Ql|Dq|Qq|Sq) .* (Ql|Dq|Qq|Sq|No) ' "$page"); then
		echo "FAIL: $page: a quote swallows what follows it on its line:"
		echo "$bad"
		fail=1
	fi
done
checked=0
# check_opts TOOL PAGE CMD...: every option CMD --help lists is in PAGE.
check_opts() {
	local tool=$1 page=$2 opts o pat
	shift 2
	if [ ! -f "$page" ]; then
		echo "FAIL: $tool has no man page ($page)"
		fail=1
		return
	fi
	# Options as --help lists them: "  -a, --all ..." or "      --depth N".
	opts=$("$@" --help | sed -n 's/^ \{1,\}\(-[^ ,]*\(, --[^ ]*\)\{0,1\}\).*/\1/p' |
		tr ',' '\n' | sed 's/^ *//; s/^--\[no-\]\(.*\)/--\1 --no-\1/; s/[=[].*//' | tr ' ' '\n')
	for o in $opts; do
		case "$o" in
		--*) pat="Fl -${o#--}" ;;
		-?) pat="Fl ${o#-}" ;;
		*) continue ;;
		esac
		# As its own macro argument: ".Fl -depth Ar N", "Op Fl a".
		if ! grep -Eq "(^|[ .])${pat}( |$)" "$page"; then
			echo "FAIL: $tool --help lists $o but $page does not (.${pat})"
			fail=1
		fi
		checked=$((checked + 1))
	done
}
for bin in "$bindir"/ws*; do
	[ -f "$bin" ] && [ -x "$bin" ] || continue
	tool=${bin##*/}
	check_opts "$tool" "$mandir/$tool.1" "$bin"
done
# wstools' subcommand with options of its own has a page of its own.
if [ -x "$bindir/wstools" ]; then
	check_opts "wstools mcp" "$mandir/wstools-mcp.1" "$bindir/wstools" mcp
fi
echo "$checked options checked against their pages"
[ "$fail" -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit "$fail"
