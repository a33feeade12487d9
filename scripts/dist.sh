#!/usr/bin/env bash
# dist.sh - make the release tarball with `meson dist` from the committed
# tree; meson unpacks it, builds it and runs the whole test suite on it,
# so a tarball that misses a file fails here.  Prints the tarball's path.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d /tmp/wstools-dist-XXXXXX)
meson setup "$dir/build" >/dev/null
meson dist -C "$dir/build" --formats xztar
ls -l "$dir"/build/meson-dist/*.tar.xz
