#!/usr/bin/env bash
# install_check.sh BUILD_DIR - `meson install` into a scratch DESTDIR puts
# binaries, man pages, headers, libws.a, libws.pc and the policies in
# place, libws.pc where pkg-config looks by default, and a program builds
# against the installed libws with pkg-config.
set -euo pipefail
build=${1:?usage: install_check.sh BUILD_DIR}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
DESTDIR=$dest meson install -C "$build" --quiet --no-rebuild >/dev/null
prefix=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"))')
root=$dest$prefix
fail=0
for f in bin/wspath bin/wsls bin/wsread bin/wswrite bin/wsgrep bin/wsrun bin/wstools \
	include/ws/resolve.h include/ws/grep.h include/ws/ignore.h include/ws/run.h \
	include/ws/sandbox.h include/ws/guard.h share/man/man1/wspath.1 \
	share/man/man1/wsgrep.1 share/man/man1/wsrun.1 share/man/man1/wstools.1 share/man/man7/wstools.7 \
	share/bash-completion/completions/wsls share/wstools/policies/dev-safe.json; do
	[ -e "$root/$f" ] || { echo "install_check: missing $f" >&2; fail=1; }
done
lib=$(find "$root" -name libws.a | head -n 1)
pc=$(find "$root" -name libws.pc | head -n 1)
[ -n "$lib" ] && [ -n "$pc" ] || { echo "install_check: libws.a or libws.pc missing" >&2; exit 1; }
[ "$fail" -eq 0 ] || exit 1
# pkg-config's own search path, under DESTDIR (then the system's, for the
# packages libws.pc requires): a libws.pc installed elsewhere (lib64 on a
# Debian without dpkg-dev) is not found by `pkg-config libws` after a
# real install.
pc_path=$(pkg-config --variable pc_path pkg-config)
search=$(printf '%s\n' "$pc_path" | tr ':' '\n' | sed "s|^|$dest|" | paste -sd:):$pc_path
found=$(PKG_CONFIG_LIBDIR=$search PKG_CONFIG_PATH='' \
	pkg-config --variable pcfiledir libws 2>/dev/null || true)
case $found in
"$dest"/*) ;;
*)
	echo "install_check: libws.pc went to $(dirname "${pc#"$dest"}"), outside" \
		"pkg-config's search path ($pc_path); on Debian, install dpkg-dev" \
		"and set up the build again (meson takes the multiarch libdir from it)" >&2
	exit 1
	;;
esac
cat >"$dest/t.c" <<'C'
#include <stdio.h>
#include <ws/resolve.h>
#include <ws/error.h>
int main(void) {
	struct ws_ctx ws;
	struct ws_res r;
	if (ws_ctx_open(&ws, "/", 0) < 0 || ws_resolve(&ws, "/etc", 0, &r) < 0)
		return 1;
	printf("%s\n", r.real);
	ws_res_free(&r);
	ws_ctx_close(&ws);
	return 0;
}
C
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-variable=prefix="$root" \
	--cflags --libs --static libws)
cc -o "$dest/t" "$dest/t.c" $flags
[ "$("$dest/t")" = /etc ] || { echo "install_check: program against libws failed" >&2; exit 1; }
echo "install_check: ok (binaries, man pages, headers, libws.a, libws.pc where pkg-config looks; a program links)"
