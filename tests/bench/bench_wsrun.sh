#!/usr/bin/env bash
# bench_wsrun.sh - what a confined command costs: wsrun -- true against
# true itself, the floor of any supervisor, bwrap doing the same job and
# proot, the cost of each layer (switched off with the test-only
# WS_RUN_DISABLE knob), both views, and a build-like loop.
#
# Targets (issue 21): default layers at or below bwrap with the same
# layers (--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp
# --unshare-pid --unshare-net --unshare-ipc --unshare-uts
# --die-with-parent --new-session), in both views (issue 19: the
# virtual view against bwrap binding the workspace at /), and at most
# 3 ms over the floor: a static program that only forks, execs and
# waits (built below), whose own cost over `true` is what starting one
# more process costs on this machine.
#
# Every table is one run of tests/bench/interleave.c: interleaved rounds
# (each command once a round, in a new shuffled order, so that the
# machine's load falls on all alike), output through a pipe, medians,
# the load average when the table began.  ROUNDS (default 100) sets the
# rounds; the machine is shared, so compare rows of one table only.
#
# bench_wsrun.sh tree: only a workspace of TREE_DIRS (default 3000)
# directories, where wsrun's walks for repositories cost the most.
# bench_wsrun.sh views: only the views' section (issue 19); VIEW_ENTRIES
# (default "20 200 1000") the workspaces' numbers of top-level entries.
# WS_BENCH_BIN=DIR uses already built binaries instead of build-release;
# WS_BENCH_BASE=DIR adds the virtual view of other binaries (a build of
# main, say) to the views' tables, in the same interleaved rounds;
# VIEW_PROTO=1 adds the mounts alone of five shapes of the view
# (tests/bench/view_points.c: the workspace bound as the root with the
# system's mount points made in it and removed after each run, the same
# with the host's links made as links, the real view's shape, the
# virtual view's, and an overlay root whose changes stay on a tmpfs),
# each on its own copy of the workspace.
source "$(dirname "$0")/lib.sh"

# itable NAME=CMD...: one interleaved run over every command; medians,
# the difference to the first and the ratio to it.  Medians are kept in
# $tmp/medians for the targets.
itable() {
	local args=() out
	for nc in "$@"; do
		args+=("${nc%%=*}" "${nc#*=}")
	done
	out=$("$(bench_interleave)" -r "$rounds" -w 5 "${args[@]}")
	echo "  ${out#\# }" | head -n 1
	awk -F'\t' -v keep="$tmp/medians" '
		/^#/ { next }
		{
			if (base == "") base = $2
			printf "  %-46s %8.2f ms %+8.2f %6.2fx\n", $1, $2, $2 - base, $2 / base
			print $1 "\t" $2 >> keep
		}' <<<"$out"
}

# The views (issue 19): wsrun --view real and --view virtual against bwrap
# doing the virtual view's job (the workspace bound at /, the system
# directories read-only, fresh /proc and /dev, a private /tmp, PID and
# network namespaces; bwrap's mount points land in its copy of the
# workspace, which is why wsrun does not build it that way), on a
# workspace of 20, 200 and 1,000 top-level entries (VIEW_ENTRIES: the
# list; each entry is a mount in the virtual view).
views_bench() {
	local w n bw d
	for n in ${VIEW_ENTRIES:-20 200 1000}; do
		w=$tmp/ws$n
		mkdir -p "$w"
		for i in $(seq "$n"); do
			if [ $((i % 2)) = 0 ]; then mkdir -p "$w/d$i"; echo x >"$w/d$i/f"
			else echo x >"$w/f$i"; fi
		done
		# bwrap's own copy: it leaves mount points there.
		cp -a "$w" "$tmp/bw$n"
		bw="bwrap --bind $tmp/bw$n /"
		for d in usr bin sbin lib lib32 lib64 libx32 etc opt; do
			# A merged-/usr link is bound as the directory it leads to.
			[ -d "/$d" ] && bw+=" --ro-bind /$d /$d"
		done
		bw+=" --proc /proc --dev /dev --tmpfs /tmp --unshare-pid --unshare-net --die-with-parent /usr/bin/true"
		echo " $n top-level entries:"
		local rows=("bwrap, the same job ($n entries)=$bw"
			"wsrun --view virtual true ($n entries)=$bin/wsrun --workspace $w --view virtual true"
			"wsrun --view real true ($n entries)=$bin/wsrun --workspace $w --view real true")
		[ -n "${WS_BENCH_BASE:-}" ] &&
			rows+=("base: wsrun --view virtual true ($n entries)=$WS_BENCH_BASE/wsrun --workspace $w --view virtual true")
		if [ "${VIEW_PROTO:-0}" = 1 ]; then
			cp -a "$w" "$tmp/pa$n"
			cp -a "$w" "$tmp/ps$n"
			rows+=("proto: workspace as root, points made+removed=$tmp/view_points A $tmp/pa$n"
				"proto: the same, host links as links=$tmp/view_points S $tmp/ps$n"
				"proto: the real view's shape=$tmp/view_points B $w"
				"proto: a bind per entry (virtual today)=$tmp/view_points C $w"
				"proto: an overlay root, changes on a tmpfs=$tmp/view_points O $w")
		fi
		itable "${rows[@]}"
	done
}

# A workspace of many directories (a project with its node_modules):
# wsrun's walks for repositories before and after the command open and
# read each directory, which bwrap does not do.  TREE_DIRS (default
# "3000") directories, each with one file, 20 packages of directories
# four deep.  Each view against bwrap binding the workspace at its path.
tree_bench() {
	local n w bw
	for n in ${TREE_DIRS:-3000}; do
		w=$tmp/tree$n
		python3 - "$w" "$n" <<'PY'
import os, sys
w, n = sys.argv[1], int(sys.argv[2])
os.makedirs(w)
made = 0
p = 0
while made < n:
    for b in range(min(20, (n - made + 2) // 3)):
        d = os.path.join(w, "node_modules", "p%d" % p, "lib%d" % b, "x", "y")
        os.makedirs(d)
        for k in range(4):
            open(os.path.join(d, *([".."] * k), "f.js"), "w").write("x")
        made += 3
    p += 1
PY
		bw="bwrap --bind $w $w"
		for d in usr bin sbin lib lib32 lib64 libx32 etc opt; do
			[ -d "/$d" ] && bw+=" --ro-bind /$d /$d"
		done
		bw+=" --proc /proc --dev /dev --tmpfs /tmp --unshare-pid --unshare-net --die-with-parent /usr/bin/true"
		echo " $(find "$w" -type d | wc -l) directories:"
		local rows=("bwrap, the workspace bound ($n dirs)=$bw"
			"wsrun --view real true ($n dirs)=$bin/wsrun --workspace $w --view real true"
			"wsrun --view virtual true ($n dirs)=$bin/wsrun --workspace $w --view virtual true")
		[ -n "${WS_BENCH_BASE:-}" ] &&
			rows+=("base: wsrun --view real true ($n dirs)=$WS_BENCH_BASE/wsrun --workspace $w --view real true"
				"base: wsrun --view virtual true ($n dirs)=$WS_BENCH_BASE/wsrun --workspace $w --view virtual true")
		# The walks skip directories older than a second that an
		# earlier walk recorded (lib/vcs.c ws__walk_unchanged()), kept
		# in a state directory a history has marked (a write marks it):
		# as in a real project, after its first run.
		export XDG_STATE_HOME=$tmp/state$n
		"$bin/wswrite" --workspace "$w" --content x /.marked >/dev/null
		sleep 2
		itable "${rows[@]}"
		unset XDG_STATE_HOME
	done
}

if [ "${1:-}" = tree ]; then
	need bwrap bubblewrap
	bin=${WS_BENCH_BIN:-$(bench_bin)}
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	rounds=${ROUNDS:-40}
	echo "== tree: wsrun on a workspace of many directories against bwrap (ratios to bwrap)"
	tree_bench
	exit 0
fi

if [ "${1:-}" = views ]; then
	need bwrap bubblewrap
	bin=${WS_BENCH_BIN:-$(bench_bin)}
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	rounds=${ROUNDS:-100}
	if [ "${VIEW_PROTO:-0}" = 1 ]; then
		cc -O2 -o "$tmp/view_points" "$(dirname "$0")/view_points.c" || exit 1
	fi
	echo "== views: wsrun --view real|virtual against bwrap doing the same job (ratios to bwrap)"
	views_bench
	exit 0
fi
need bwrap bubblewrap
bin=$(bench_bin)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
rounds=${ROUNDS:-100}

# The floor: fork, exec argv[1..], wait, exit with its status; static, so
# no dynamic loading is counted.  What any supervisor costs at least.
cat >"$tmp/few.c" <<'C'
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int st = 0;
	pid_t p;

	if (argc < 2 || (p = fork()) < 0)
		return 127;
	if (p == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	while (waitpid(p, &st, 0) < 0)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}
C
floor=
if cc -O2 -static -o "$tmp/forkexec" "$tmp/few.c" 2>/dev/null ||
	cc -O2 -o "$tmp/forkexec" "$tmp/few.c" 2>/dev/null; then
	floor="static fork+exec+wait true (the floor)=$tmp/forkexec true"
fi

L=landlock,seccomp,capabilities,mountns,pidns,netns,cgroup,guards
but() { # the layer list without the given ones
	local keep=",$1," out=()
	IFS=, read -ra all <<<"$L"
	for l in "${all[@]}"; do
		case $keep in *",$l,"*) ;; *) out+=("$l") ;; esac
	done
	(IFS=,; echo "${out[*]}")
}

bwrap_job="bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-pid --unshare-net --unshare-ipc --unshare-uts --die-with-parent --new-session true"
echo "== wsrun -- true against the alternatives ($rounds rounds; ratios to true)"
rows=("true=true")
[ -n "$floor" ] && rows+=("$floor")
rows+=("wsrun true (default layers)=$bin/wsrun --workspace $tmp true"
	"wsrun --view virtual true=$bin/wsrun --workspace $tmp --view virtual true"
	"bwrap, the same job=$bwrap_job"
	"wsrun true, no namespaces (cgroup)=WS_RUN_DISABLE=userns $bin/wsrun --workspace $tmp true")
command -v proot >/dev/null && rows+=("proot true=proot true")
itable "${rows[@]}"

echo
echo "== layers, added one at a time (each through env(1); ratios to env true)"
itable "env true=env true" \
	"nothing (--isolate none, all off)=env WS_RUN_DISABLE=all $bin/wsrun --workspace $tmp --isolate none true" \
	"pidns only (--isolate none)=env WS_RUN_DISABLE=$(but pidns) $bin/wsrun --workspace $tmp --isolate none true" \
	"landlock only (--net)=env WS_RUN_DISABLE=$(but landlock) $bin/wsrun --workspace $tmp --net true" \
	"landlock+seccomp=env WS_RUN_DISABLE=$(but landlock,seccomp) $bin/wsrun --workspace $tmp true" \
	"+capabilities (no namespaces)=env WS_RUN_DISABLE=userns $bin/wsrun --workspace $tmp true" \
	"+pidns=env WS_RUN_DISABLE=mountns,netns $bin/wsrun --workspace $tmp true" \
	"+mountns+guards=env WS_RUN_DISABLE=netns $bin/wsrun --workspace $tmp true" \
	"+netns (default)=env WS_RUN_DISABLE= $bin/wsrun --workspace $tmp true"

echo
echo "== views: wsrun --view real|virtual against bwrap doing the same job (ratios to bwrap)"
views_bench

echo
echo "== a build-like loop (200 cat of a small file; ratio to sh -c)"
loop='for i in $(seq 200); do cat /etc/hostname >/dev/null; done'
rounds_all=$rounds
rounds=$(( rounds / 5 > 5 ? rounds / 5 : 5 ))
itable "sh -c LOOP=sh -c '$loop'" \
	"wsrun -c LOOP=$bin/wsrun --workspace $tmp -c '$loop'"
rounds=$rounds_all

# The issue's targets against this run's medians.
echo
echo "== targets (issue 21)"
python3 - "$tmp/medians" <<'PY'
import sys
m = {}
for l in open(sys.argv[1]):
    k, v = l.rstrip("\n").split("\t")
    m.setdefault(k, float(v))
t, w = m["true"], m["wsrun true (default layers)"]
b = m["bwrap, the same job"]
f = m.get("static fork+exec+wait true (the floor)")
loop = m["wsrun -c LOOP"] / m["sh -c LOOP"]
def row(what, val, ok, goal):
    print(f"  {what:44s} {val:>10s}  {'met' if ok else 'MISSED':6s} ({goal})")
row("wsrun true vs bwrap (same layers)", f"{w / b:.2f}x", w <= b, f"<= bwrap, {w - b:+.2f} ms")
views = sorted(int(k.split("(")[1].split()[0]) for k in m
               if k.startswith("bwrap, the same job ("))
for n in views:
    bv = m[f"bwrap, the same job ({n} entries)"]
    for view in ("real", "virtual"):
        v = m[f"wsrun --view {view} true ({n} entries)"]
        row(f"--view {view}, {n} entries, vs bwrap", f"{v / bv:.2f}x", v <= bv,
            f"<= bwrap, {v - bv:+.2f} ms")
if f:
    row("wsrun true - the floor", f"{w - f:+.2f} ms", w - f <= 3, f"<= 3 ms; the floor is {f - t:+.2f} ms over true")
row("build-like loop, wsrun / direct", f"{loop:.2f}x", loop <= 1.1, "<= 1.1x")
PY
if [ -n "${BENCH_TABLE:-}" ]; then
	python3 - "$tmp/medians" >>"$BENCH_TABLE" <<'PY'
import sys
m = {}
for l in open(sys.argv[1]):
    k, v = l.rstrip("\n").split("\t")
    m.setdefault(k, float(v))
w = m["wsrun true (default layers)"]
print("wsrun\ttrue\trun true, default layers\t%.3f\t%.3f\t-\t-" % (w, m["true"]))
print("wsrun\tbwrap\trun true, default layers\t%.3f\t%.3f\t-\t-" % (w, m["bwrap, the same job"]))
print("wsrun\tsh -c\tbuild-like loop (200 cat)\t%.3f\t%.3f\t-\t-" % (m["wsrun -c LOOP"], m["sh -c LOOP"]))
PY
fi

# CPU time (task-clock, the whole process tree) hardly depends on what
# else the machine runs, unlike the wall-clock medians above.  (The
# namespace init's exit, which wsrun and bwrap do not wait for, may end
# after perf has read the counters: its teardown may be left out.)
if command -v perf >/dev/null && perf stat -r 1 true >/dev/null 2>&1; then
	runs=$rounds
	echo
	echo "== CPU time of the whole tree (perf stat task-clock, ${runs} runs each)"
	cpu() { perf stat -r "$runs" "$@" 2>&1 >/dev/null | awk '/task-clock/ {print $1}'; }
	t=$(cpu true)
	for c in "true" "$bin/wsrun --workspace $tmp true" \
		"$bwrap_job" \
		"env WS_RUN_DISABLE=userns $bin/wsrun --workspace $tmp true"; do
		# shellcheck disable=SC2086
		v=$(cpu $c)
		awk -v v="$v" -v t="$t" -v c="${c/$bin\//}" 'BEGIN {
			printf "  %-52s %8.2f ms  %+7.2f  %5.2fx\n", c, v, v - t, v / t }'
	done
fi
