#!/usr/bin/env bash
# deb.sh - build the Debian package from a clean copy of the committed tree
# (dpkg-buildpackage -b, debhelper + meson) and prove what it holds: the
# binaries, man pages, libws, the policies and the bash completion; then
# run wspath from the unpacked package.  Installs debhelper and dpkg-dev
# when missing.  The .deb is left in the directory printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
for p in debhelper dpkg-dev meson ninja-build pkg-config libpcre2-dev libcjson-dev check; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
		--no-install-recommends "${need[@]}" </dev/null
fi
out=$(mktemp -d /tmp/wstools-deb-XXXXXX)
git archive --format=tar --prefix=wstools/ HEAD | tar -x -C "$out"
(cd "$out/wstools" && dpkg-buildpackage -b -uc -us >"$out/build.log" 2>&1) ||
	{ tail -40 "$out/build.log"; echo "deb.sh: dpkg-buildpackage failed" >&2; exit 1; }
deb=$(ls "$out"/wstools_*.deb)
dpkg-deb -c "$deb" >"$out/contents"
fail=0
for f in ./usr/bin/wspath ./usr/bin/wsls ./usr/bin/wsread ./usr/bin/wswrite \
	./usr/share/man/man1/wsls.1.gz ./usr/share/man/man5/ws-policy.5.gz \
	./usr/share/man/man7/wstools.7.gz ./usr/include/ws/resolve.h \
	./usr/share/wstools/policies/dev-safe.json \
	./usr/share/bash-completion/completions/wsls; do
	grep -q " $f\$" "$out/contents" || { echo "deb.sh: $f missing from the package" >&2; fail=1; }
done
grep -q '/libws\.a$' "$out/contents" || { echo "deb.sh: libws.a missing" >&2; fail=1; }
grep -q '/libws\.pc$' "$out/contents" || { echo "deb.sh: libws.pc missing" >&2; fail=1; }
dpkg-deb -x "$deb" "$out/root"
got=$("$out/root/usr/bin/wspath" --workspace "$out/root/usr" /share/wstools)
[ "$got" = "$out/root/usr/share/wstools" ] || { echo "deb.sh: the packaged wspath said '$got'" >&2; fail=1; }
[ "$fail" -eq 0 ] || exit 1
echo "deb.sh: ok: $deb ($(du -h "$deb" | cut -f1)), $(wc -l <"$out/contents") entries"
