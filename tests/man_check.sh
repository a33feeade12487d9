#!/usr/bin/env bash
# man_check.sh BINDIR MANDIR - every tool's man page is lint-clean
# (mandoc -Tlint -W warning) and names every option its --help lists, so
# that SYNOPSIS and OPTIONS cannot drift from the binary.  Skips (exit 77)
# when mandoc is not installed.
set -euo pipefail
bindir=${1:?usage: man_check.sh BINDIR MANDIR}
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
checked=0
for bin in "$bindir"/ws*; do
	[ -f "$bin" ] && [ -x "$bin" ] || continue
	tool=${bin##*/}
	page="$mandir/$tool.1"
	if [ ! -f "$page" ]; then
		echo "FAIL: $tool has no man page ($page)"
		fail=1
		continue
	fi
	# Options as --help lists them: "  -a, --all ..." or "      --depth N".
	opts=$("$bin" --help | sed -n 's/^ \{1,\}\(-[^ ,]*\(, --[^ ]*\)\{0,1\}\).*/\1/p' |
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
done
echo "$checked options checked against their pages"
[ "$fail" -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit "$fail"
