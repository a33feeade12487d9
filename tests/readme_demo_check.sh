#!/usr/bin/env bash
# readme_demo_check.sh BINDIR TOP - the README's "What it looks like" block
# is what scripts/demo.sh prints, so that a new user who runs set-up
# command 1 sees what the README shows.  Host paths become $TOP and $COPY,
# and what differs from one checkout or run to the next (version tokens,
# elapsed_ms, the history's times) is masked.  The block must show what
# a first-time user came for (ftu13 19): a confined command, history and
# undo, and where the tools are.  Skips (exit 77) outside a git checkout, where
# project detection (wspath --explain) finds another root.
set -euo pipefail
bindir=${WST_BIN_DIR:-${1:?usage: readme_demo_check.sh BINDIR TOP}}
top=$(cd "${2:?usage: readme_demo_check.sh BINDIR TOP}" && pwd)
# The tools print real paths, the demo's banner the spelling it was given.
phys=$(cd "$top" && pwd -P)
[ -e "$top/.git" ] || { echo "not a git checkout: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mask() {
	sed -E -e 's/"version":"[0-9a-f]{16}"/"version":"V"/g' \
		-e 's/"elapsed_ms":[0-9]+/"elapsed_ms":N/g' \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]+Z/TIME/g'
}
# The demo runs wsrun: where it cannot confine a command (no user
# namespaces, a chroot without a mount namespace) its lines differ.
if ! WS_ROOT="$top/examples/workspace" "$bindir/wsrun" -c true >/dev/null 2>&1; then
	echo "wsrun cannot run a command here: skipped"
	exit 77
fi
# The block: from its "Workspace:" line to the end of the fence.
sed -n '/^Workspace: \$TOP/,/^```$/p' "$top/README.md" | sed '$d' | mask >"$tmp/readme"
[ -s "$tmp/readme" ] || { echo "FAIL: no demo block in README.md"; exit 1; }
for want in '$ wsrun ' '$ wstools history' '$ wstools undo' '== Next: the tools are in build/cmd'; do
	grep -qF -- "$want" "$tmp/readme" ||
		{ echo "FAIL: README.md's demo block does not show \"$want\""; exit 1; }
done
# mktemp's directory (the demo's copy) is $COPY.
bash "$top/scripts/demo.sh" "$bindir" 2>&1 |
	sed -e "s#$phys#\$TOP#g" -e "s#$top#\$TOP#g" -e 's#"/[^"]*/tmp\.[A-Za-z0-9]*/#"$COPY/#g' |
	mask >"$tmp/demo"
if ! diff -u "$tmp/readme" "$tmp/demo"; then
	echo "FAIL: README.md's demo block differs from scripts/demo.sh's output (above: - README, + demo)"
	exit 1
fi
echo "README demo block matches scripts/demo.sh ($(wc -l <"$tmp/demo") lines)"
