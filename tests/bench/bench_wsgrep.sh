#!/usr/bin/env bash
# bench_wsgrep.sh - wsgrep against rg -n and grep -rn, measured in the same
# run, warm cache, on two corpora:
#
#   /usr/include                         always
#   the Linux kernel source (6.1)        with --linux: unpacked under $TMPDIR
#                                        from /usr/src/linux-source-6.1.tar.xz
#                                        (apt-get install linux-source-6.1);
#                                        about 1.3 GB, never in CI
#
# Patterns (as in issue 7): a literal, a case-insensitive literal, a regex
# with no literal, a common word, an alternation of five literals, and
# --files alone (against rg --files and find -type f).  Each tool prints
# grep -rn style lines through a pipe (GNU grep stops at the first match
# when its output is /dev/null, so hyperfine --output=pipe).  Ignore
# settings are made equivalent: rg --no-require-git (so that .gitignore
# applies outside a git repository, as wsgrep does), grep -rnI
# --exclude-dir=.git (binary files skipped, .git not searched; grep knows
# no .gitignore, which /usr/include does not have).
#
# Run by hand on a release build:
#   tests/bench/bench_wsgrep.sh [--linux] [BUILD_DIR] [RUNS]
# Prints per pattern: medians (ms), wsgrep/rg and wsgrep/grep ratios, and
# the peak RSS of each tool (KiB).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
linux=no
if [ "${1:-}" = "--linux" ]; then
	linux=yes
	shift
fi
build=${1:-$root/build-release}
runs=${2:-5}
wsgrep=$build/cmd/wsgrep
if [ ! -x "$wsgrep" ]; then
	echo "bench_wsgrep: no $wsgrep; build it first:" >&2
	echo "  meson setup build-release --buildtype=release && ninja -C build-release" >&2
	exit 2
fi
for t in rg:ripgrep hyperfine:hyperfine; do
	command -v "${t%%:*}" >/dev/null || {
		echo "bench_wsgrep: ${t%%:*} is needed (apt-get install ${t#*:})" >&2
		exit 2
	}
done
export LC_ALL=C
unset WS_ROOT WS_MOUNTS WS_POLICY WS_FORMAT WS_PATHS WS_STRICT WS_CONFIG
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_wsgrep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

median_ms() { # CMD (a shell string)
	hyperfine --output=pipe --ignore-failure --warmup 1 --runs "$runs" \
		--export-json "$tmp/hf.json" -- "$1" >/dev/null 2>&1
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.0f" % (r["median"]*1000))' "$tmp/hf.json"
}

peak_kb() { # CMD (a shell string)
	/usr/bin/time -f %M sh -c "exec $1 >/dev/null" 2>&1 >/dev/null | tail -1
}

# row NAME WSGREP_ARGS RG_ARGS GREP_CMD
row() {
	local a b c
	a=$(median_ms "$wsgrep --workspace $dir $ign $2 /")
	b=$(median_ms "rg --no-require-git $ign -n $3 $dir")
	c=$(median_ms "$4")
	local pa pb pc
	pa=$(peak_kb "$wsgrep --workspace $dir $ign $2 /")
	pb=$(peak_kb "rg --no-require-git $ign -n $3 $dir")
	pc=$(peak_kb "$4")
	printf '| %-22s | %7s | %7s | %7s | %5s | %5s | %6s | %6s | %6s |\n' "$1" \
		"$a" "$b" "$c" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", a/b}')" \
		"$(awk -v a="$a" -v b="$c" 'BEGIN{printf "%.2f", a/b}')" \
		"$pa" "$pb" "$pc"
	if [ -n "${BENCH_TABLE:-}" ]; then
		printf 'wsgrep\trg\t%s (%s)\t%s\t%s\t%s\t%s\n' "$1" "$corpus_name" "$a" "$b" "$pa" "$pb" >>"$BENCH_TABLE"
		printf 'wsgrep\tgrep -r\t%s (%s)\t%s\t%s\t%s\t%s\n' "$1" "$corpus_name" "$a" "$c" "$pa" "$pc" >>"$BENCH_TABLE"
	fi
}

corpus() { # DIR TITLE [IGNORE_FLAG]
	dir=$1
	ign=${3:-}
	corpus_name=$2
	local alt='PM_RESUME|PM_SUSPEND|ERESTARTSYS|EPROBE_DEFER|GFP_KERNEL'
	local g="grep -rnI --exclude-dir=.git"
	echo "### $2: $(find "$dir" -type f | wc -l) files, $(du -sh "$dir" | cut -f1)${ign:+ (wsgrep and rg with $ign)}"
	echo "($runs runs each, medians in ms; peak RSS in KiB; $(nproc) CPUs)"
	echo
	echo "| pattern                | wsgrep  |   rg    |  grep   | ws/rg | ws/gr | ws RSS | rg RSS | gr RSS |"
	echo "|------------------------|---------|---------|---------|-------|-------|--------|--------|--------|"
	row "PM_RESUME" "PM_RESUME" "PM_RESUME" "$g PM_RESUME $dir"
	row "-i pm_resume" "-i pm_resume" "-i pm_resume" "$g -i pm_resume $dir"
	row '\w{5}\s+\w{5}\s+\w{5}' "'\\w{5}\\s+\\w{5}\\s+\\w{5}'" \
		"'\\w{5}\\s+\\w{5}\\s+\\w{5}'" "$g -E '[[:alnum:]_]{5}[[:space:]]+[[:alnum:]_]{5}[[:space:]]+[[:alnum:]_]{5}' $dir"
	row "static" "static" "static" "$g static $dir"
	row "5 literals (a|b|..)" "'$alt'" "'$alt'" "$g -E '$alt' $dir"
	row "--files" "--files" "--files" "find $dir -type f"
	echo
}

"$build/cmd/wsgrep" --version >/dev/null
if [ "${BENCH_SKIP_INCLUDE:-}" != 1 ]; then
	corpus /usr/include "/usr/include"
fi
if [ "$linux" = yes ]; then
	src=${TMPDIR:-/tmp}/wsgrep-bench-linux
	if [ ! -d "$src/linux-source-6.1" ]; then
		tarball=/usr/src/linux-source-6.1.tar.xz
		[ -f "$tarball" ] || {
			echo "bench_wsgrep: no $tarball (apt-get install linux-source-6.1)" >&2
			exit 2
		}
		mkdir -p "$src"
		echo "unpacking $tarball into $src ..." >&2
		tar -C "$src" -xf "$tarball"
	fi
	# Warm the cache once.
	cat $(find "$src/linux-source-6.1" -type f -size -1M | head -100000) >/dev/null 2>&1 || true
	# Debian's tarball ends its top .gitignore with "/*" and "!/debian/":
	# with the rules on, wsgrep and rg would both search nothing.
	corpus "$src/linux-source-6.1" "Linux 6.1 source" --no-ignore
fi
