#!/usr/bin/env bash
# bench_wsgrep.sh - wsgrep against rg -n and grep -rn, measured in the same
# run, warm cache, on two corpora:
#
#   /usr/include                         always
#   a large tree, with --large:          the Linux kernel source (6.1),
#                                        unpacked under $TMPDIR from
#                                        /usr/src/linux-source-6.1.tar.xz
#                                        (apt-get install linux-source-6.1),
#                                        about 1.3 GB, never in CI; without
#                                        it, /usr/share and /usr/include
#                                        together (--linux insists on the
#                                        kernel source); WSGREP_BENCH_TREE=DIR
#                                        names another tree instead
#
# Patterns (as in issue 7): a literal, a case-insensitive literal, a regex
# with no literal, a common word, an alternation of five literals, and
# --files alone (against rg --files and find -type f); then the speed-up
# from one thread to the default (wsgrep --threads 1, rg -j1).  rg runs
# with its default threads.
#
# Each row is measured by tests/bench/interleave.c: interleaved rounds,
# each command once a round in a shuffled order, output drained through a
# pipe (GNU grep stops at the first match when its output is /dev/null),
# medians, the peak RSS from wait4, and the load average at the start.
# Ignore settings are made equivalent: rg --no-require-git (so that
# .gitignore applies outside a git repository, as wsgrep does), grep -rnI
# --exclude-dir=.git (binary files skipped, .git not searched; grep knows
# no .gitignore, which /usr/include does not have).
#
# Run by hand on a release build:
#   tests/bench/bench_wsgrep.sh [--large|--linux] [BUILD_DIR] [ROUNDS]
# Prints per pattern: medians (ms), wsgrep/rg and wsgrep/grep ratios, and
# the peak RSS of each tool (KiB).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
large=no
case "${1:-}" in
--large) large=yes; shift ;;
--linux) large=linux; shift ;;
esac
build=${1:-$root/build-release}
runs=${2:-9}
wsgrep=$build/cmd/wsgrep
if [ ! -x "$wsgrep" ]; then
	echo "bench_wsgrep: no $wsgrep; build it first:" >&2
	echo "  meson setup build-release --buildtype=release && ninja -C build-release" >&2
	exit 2
fi
for t in rg:ripgrep cc:gcc; do
	command -v "${t%%:*}" >/dev/null || {
		echo "bench_wsgrep: ${t%%:*} is needed (apt-get install ${t#*:})" >&2
		exit 2
	}
done
export LC_ALL=C
unset WS_ROOT WS_MOUNTS WS_POLICY WS_FORMAT WS_PATHS WS_STRICT WS_CONFIG
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_wsgrep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cc -O2 -o "$tmp/interleave" "$root/tests/bench/interleave.c"

# row NAME WSGREP_ARGS RG_ARGS GREP_CMD: the three interleaved.
row() {
	local out a b c pa pb pc
	out=$("$tmp/interleave" -r "$runs" \
		ws "$wsgrep --workspace $dir $ign $2 $paths" \
		rg "rg --no-require-git $ign -n $3 $rgpaths" \
		grep "$4")
	load=$(sed -n 's/^# load average at start: \([^ ]*\).*/\1/p' <<<"$out")
	read -r a pa < <(awk -F'\t' '$1=="ws"{printf "%.0f %s\n", $2, $5}' <<<"$out")
	read -r b pb < <(awk -F'\t' '$1=="rg"{printf "%.0f %s\n", $2, $5}' <<<"$out")
	read -r c pc < <(awk -F'\t' '$1=="grep"{printf "%.0f %s\n", $2, $5}' <<<"$out")
	printf '| %-22s | %7s | %7s | %7s | %5s | %5s | %6s | %6s | %6s | %4s |\n' "$1" \
		"$a" "$b" "$c" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", a/b}')" \
		"$(awk -v a="$a" -v b="$c" 'BEGIN{printf "%.2f", a/b}')" \
		"$pa" "$pb" "$pc" "$load"
	if [ -n "${BENCH_TABLE:-}" ]; then
		printf 'wsgrep\trg\t%s (%s)\t%s\t%s\t%s\t%s\n' "$1" "$corpus_name" "$a" "$b" "$pa" "$pb" >>"$BENCH_TABLE"
		printf 'wsgrep\tgrep -r\t%s (%s)\t%s\t%s\t%s\t%s\n' "$1" "$corpus_name" "$a" "$c" "$pa" "$pc" >>"$BENCH_TABLE"
	fi
}

# threads PATTERN: one thread against the default, for wsgrep and rg,
# the four interleaved.
threads() {
	local out
	out=$("$tmp/interleave" -r "$runs" \
		ws1 "$wsgrep --workspace $dir $ign --threads 1 $1 $paths" \
		ws "$wsgrep --workspace $dir $ign $1 $paths" \
		rg1 "rg --no-require-git $ign -j1 -n $1 $rgpaths" \
		rg "rg --no-require-git $ign -n $1 $rgpaths")
	awk -F'\t' -v cpus="$(nproc)" '
		/^#/ { load = $0; sub(/.*start: /, "", load); sub(/ .*/, "", load); next }
		{ m[$1] = $2 }
		END {
			printf "speed-up, 1 thread -> default (%s CPUs), `%s`, load %s:\n", cpus, "'"$1"'", load
			printf "  wsgrep %.0f -> %.0f ms: %.2fx;  rg %.0f -> %.0f ms: %.2fx\n",
				m["ws1"], m["ws"], m["ws1"] / m["ws"], m["rg1"], m["rg"], m["rg1"] / m["rg"]
		}' <<<"$out"
}

corpus() { # DIR TITLE [IGNORE_FLAG] [PATHS]
	dir=$1
	ign=${3:-}
	corpus_name=$2
	# The PATHs searched (virtual, under --workspace DIR), and rg's.
	paths=${4:-/}
	rgpaths=
	for p in $paths; do
		rgpaths="$rgpaths $dir${p%/}"
	done
	local alt='PM_RESUME|PM_SUSPEND|ERESTARTSYS|EPROBE_DEFER|GFP_KERNEL'
	local g="grep -rnI --exclude-dir=.git"
	# shellcheck disable=SC2086
	echo "### $2: $(find $rgpaths -type f | wc -l) files, $(du -sch $rgpaths | tail -1 | cut -f1)${ign:+ (wsgrep and rg with $ign)}"
	echo "($runs interleaved rounds, medians in ms; peak RSS in KiB; $(nproc) CPUs; load: the load average when the row began)"
	echo
	echo "| pattern                | wsgrep  |   rg    |  grep   | ws/rg | ws/gr | ws RSS | rg RSS | gr RSS | load |"
	echo "|------------------------|---------|---------|---------|-------|-------|--------|--------|--------|------|"
	row "PM_RESUME" "PM_RESUME" "PM_RESUME" "$g PM_RESUME $rgpaths"
	row "-i pm_resume" "-i pm_resume" "-i pm_resume" "$g -i pm_resume $rgpaths"
	row '\w{5}\s+\w{5}\s+\w{5}' "'\\w{5}\\s+\\w{5}\\s+\\w{5}'" \
		"'\\w{5}\\s+\\w{5}\\s+\\w{5}'" "$g -E '[[:alnum:]_]{5}[[:space:]]+[[:alnum:]_]{5}[[:space:]]+[[:alnum:]_]{5}' $rgpaths"
	row "static" "static" "static" "$g static $rgpaths"
	row "5 literals (a|b|..)" "'$alt'" "'$alt'" "$g -E '$alt' $rgpaths"
	row "--files" "--files" "--files" "find $rgpaths -type f"
	echo
	threads PM_RESUME
	echo
}

"$build/cmd/wsgrep" --version >/dev/null
if [ "${BENCH_SKIP_INCLUDE:-}" != 1 ]; then
	corpus /usr/include "/usr/include"
fi
if [ "$large" != no ]; then
	src=${TMPDIR:-/tmp}/wsgrep-bench-linux
	tarball=/usr/src/linux-source-6.1.tar.xz
	if [ ! -d "$src/linux-source-6.1" ] && [ -f "$tarball" ]; then
		mkdir -p "$src"
		echo "unpacking $tarball into $src ..." >&2
		tar -C "$src" -xf "$tarball"
	fi
	if [ -n "${WSGREP_BENCH_TREE:-}" ]; then
		# Warm the cache once.
		find "$WSGREP_BENCH_TREE" -type f -size -4M -print0 2>/dev/null |
			xargs -0 cat >/dev/null 2>&1 || true
		corpus "$WSGREP_BENCH_TREE" "$WSGREP_BENCH_TREE"
	elif [ -d "$src/linux-source-6.1" ]; then
		# Warm the cache once.
		cat $(find "$src/linux-source-6.1" -type f -size -1M | head -100000) >/dev/null 2>&1 || true
		# Debian's tarball ends its top .gitignore with "/*" and "!/debian/":
		# with the rules on, wsgrep and rg would both search nothing.
		corpus "$src/linux-source-6.1" "Linux 6.1 source" --no-ignore
	elif [ "$large" = linux ]; then
		echo "bench_wsgrep: no $tarball (apt-get install linux-source-6.1)" >&2
		exit 2
	else
		# Warm the cache once.
		find /usr/share /usr/include -type f -size -4M -print0 2>/dev/null |
			xargs -0 cat >/dev/null 2>&1 || true
		corpus /usr "/usr/share + /usr/include (no Linux source here)" "" \
			"/share /include"
	fi
fi
