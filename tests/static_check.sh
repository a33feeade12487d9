#!/usr/bin/env bash
# static_check.sh CMD_DIR static|dynamic - how the tools are linked
# (meson.build's static_pie, issue 21).  static: wsls, wsread, wswrite,
# wsgrep and wspath are static-pie (a PIE, no program interpreter, no
# NEEDED entry), hold neither the name service nor getaddrinfo (glibc
# would dlopen its shared modules at run time), and run with an empty
# environment; dynamic: they have a loader.  wsrun and wstools are
# dynamic either way (the network proxy's names, run_command).
set -uo pipefail
cmd=${1:?usage: static_check.sh CMD_DIR static|dynamic}
want=${2:?usage: static_check.sh CMD_DIR static|dynamic}
command -v readelf >/dev/null || { echo "SKIP: no readelf (binutils)"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
linked() { # linked FILE: static or dynamic
	if readelf -lW "$1" | grep -q 'Requesting program interpreter' ||
		readelf -dW "$1" | grep -q '(NEEDED)'; then
		echo dynamic
	else
		echo static
	fi
}
for t in wsls wsread wswrite wsgrep wspath wsrun wstools; do
	f=$cmd/$t
	[ -x "$f" ] || { bad "$f: missing"; continue; }
	w=$want
	case $t in wsrun | wstools) w=dynamic ;; esac
	have=$(linked "$f")
	[ "$have" = "$w" ] || { bad "$t: linked $have, expected $w"; continue; }
	[ "$have" = static ] || { echo "ok: $t dynamic"; continue; }
	# A PIE (ELF type DYN): the kernel places it at random, as ASLR does
	# a dynamic one.
	readelf -hW "$f" | grep -q 'Type:[[:space:]]*DYN' || bad "$t: not a PIE"
	# Nothing that reaches NSS or the resolver (the link would have said
	# so too: --fatal-warnings).  A stripped binary has no symbols to look at.
	if syms=$(nm "$f" 2>/dev/null) && [ -n "$syms" ]; then
		hit=$(grep -E ' (getaddrinfo|gethostbyname[0-9_r]*|getpw(nam|uid|ent)(_r)?|getgr(nam|gid|ent)(_r)?|getspnam(_r)?|initgroups|__nss_[a-z_0-9]+)$' <<<"$syms" |
			awk '{print $NF}' | tr '\n' ' ')
		[ -z "$hit" ] || bad "$t: holds $hit"
	else
		echo "note: $t has no symbol table: NSS symbols not checked"
	fi
	# No HOME, no PATH, nothing: it runs.
	out=$(env -i "$f" --version 2>&1) || bad "$t --version with an empty environment: $out"
	echo "ok: $t static-pie"
done
[ "$fail" -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit "$fail"
