#!/usr/bin/env bash
# static_fallback.sh SOURCE_DIR CC... - -Dstatic_pie where no static-pie link
# works (no libc.a, no rcrt1.o): auto configures with the tools dynamic
# and says why, enabled stops the setup with the reason (meson.build).
# The missing libc.a is played by a wrapper of CC that fails every
# -static-pie link as the linker would; only meson setup runs, no build.
set -uo pipefail
src=${1:?usage: static_fallback.sh SOURCE_DIR CC...}
shift
[ $# -gt 0 ] || { echo "usage: static_fallback.sh SOURCE_DIR CC..." >&2; exit 2; }
cc=$(printf '%q ' "$@")	# the compiler's command, "ccache gcc" too
meson=${MESON:-meson}
command -v "$meson" >/dev/null || { echo "SKIP: no meson on PATH"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/cc" <<EOS
#!/bin/sh
for a; do
	case \$a in -static-pie) echo "ld: cannot find -lc" >&2; exit 1 ;; esac
done
exec $cc "\$@"
EOS
chmod +x "$tmp/cc"
fail=0
out=$(CC=$tmp/cc "$meson" setup "$tmp/auto" "$src" -Dtests=false 2>&1)
st=$?
if [ $st -ne 0 ] || ! grep -q 'static_pie: off, no static-pie link here' <<<"$out" ||
	! grep -Eq 'static-pie file tools *: *(False|NO)' <<<"$out"; then
	echo "FAIL: auto without libc.a (status $st):"; echo "$out" | tail -n 20
	fail=1
fi
out=$(CC=$tmp/cc "$meson" setup "$tmp/enabled" "$src" -Dtests=false -Dstatic_pie=enabled 2>&1)
st=$?
if [ $st -eq 0 ] || ! grep -q 'ERROR: .*static_pie: no static-pie link here' <<<"$out"; then
	echo "FAIL: enabled without libc.a (status $st):"; echo "$out" | tail -n 20
	fail=1
fi
[ "$fail" -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit "$fail"
