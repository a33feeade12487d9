#!/usr/bin/env bash
# ignore_record.sh [OUT] - record what real git says about .gitignore rules,
# for fuzz_ignore (which checks lib/ignore.c against every answer before it
# starts fuzzing).  Each case is a root .gitignore of one to four lines,
# drawn with a fixed seed from the tricky forms below, and the paths of a
# fixed tree; git check-ignore --no-index answers for every path (a path
# under an ignored directory is ignored, as a walk that does not enter it
# sees it).  Rerun after a git upgrade, or to add forms:
#
#   bash tests/fuzz/ignore_record.sh tests/fuzz/ignore_git.txt
#
# Output format: "=== N" starts a case, "P <line>" is a .gitignore line as
# written (trailing spaces kept), "T <path> <d|f> <0|1>" an answer.
set -euo pipefail
out=$(realpath -m -- "${1:-$(dirname "$0")/ignore_git.txt}")
command -v git >/dev/null || { echo "git is needed" >&2; exit 1; }
repo=$(mktemp -d /tmp/wsignore-XXXXXX)
trap 'rm -rf "$repo"' EXIT

forms=(
	'*.o' 'build/' '/build' 'build' '!keep.o' '!build/keep' 'doc/*.txt'
	'doc/**/*.txt' '**/tmp' '**/tmp/' 'a/**/b' 'a/**' '/a/b' 'a/b/' '*'
	'!*/' '!a/' '\#hash' '#comment' '\!bang' 'sp\ ' 'sp  ' 'x?z' 'x[a-c]z'
	'x[!a]z' 'x[]]z' '[abc]' '*.[oa]' 'src/*' '!src/main.c' '/*.c' '**/*.c'
	'*/b' 'deep/**/x' '.hidden' '.*' '!.gitkeep' 'ab**' '***' 'a/*/b' 'b/'
	'\*star' 'x\[z' 'dir/sub/' '/dir/' '!/dir/sub/keep' 'trailing/ ' 'a\'
	'' '**' '/' '*.C' 'X?Z' 'doc/' '!doc/' 'nested/*/deep'
)
paths=(
	'f.o:f' 'keep.o:f' 'build:d' 'build/keep:f' 'build/x.o:f'
	'src:d' 'src/main.c:f' 'src/util.c:f' 'src/build:d' 'src/build/y:f'
	'doc:d' 'doc/a.txt:f' 'doc/sub:d' 'doc/sub/b.txt:f' 'tmp:d'
	'tmp/t:f' 'a:d' 'a/b:d' 'a/b/c:f' 'a/x:d' 'a/x/b:f' 'a/x/y:d'
	'a/x/y/b:f' '#hash:f' '!bang:f' 'sp :f' 'sp:f' 'xyz:f' 'xaz:f'
	'x]z:f' 'x[z:f' 'b:f' 'c.c:f' 'C.c:f' 'f.C:f' 'XYZ:f' '*star:f'
	'.hidden:f' '.gitkeep:f' 'deep:d' 'deep/q:d' 'deep/q/x:f' 'ab:f'
	'abc:f' 'dir:d' 'dir/sub:d' 'dir/sub/keep:f' 'dir/sub/z:f'
	'nested:d' 'nested/m:d' 'nested/m/deep:f' 'trailing:d' 'trailing/t:f'
)

cd "$repo"
git init -q .
for p in "${paths[@]}"; do
	name=${p%:*}
	if [ "${p##*:}" = d ]; then mkdir -p -- "$name"; else
		mkdir -p -- "$(dirname -- "$name")"; : >"$name"; fi
done
RANDOM=42
cases=400
{
	echo "# Recorded by tests/fuzz/ignore_record.sh with $(git --version)."
	for ((c = 0; c < cases; c++)); do
		echo "=== $c"
		n=$((RANDOM % 4 + 1))
		: >.gitignore
		for ((k = 0; k < n; k++)); do
			line=${forms[RANDOM % ${#forms[@]}]}
			printf '%s\n' "$line" >>.gitignore
			printf 'P %s\n' "$line"
		done
		declare -A ign=()
		while IFS= read -r -d '' name; do
			ign[$name]=1
		done < <(printf '%s\0' "${paths[@]%:*}" |
			git check-ignore --no-index --stdin -z || true)
		for p in "${paths[@]}"; do
			name=${p%:*}
			printf 'T %s %s %s\n' "$name" "${p##*:}" "${ign[$name]:-0}"
		done
		unset ign
	done
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "recorded $cases cases in $out"
