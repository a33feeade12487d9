#!/usr/bin/env bash
# bench_history.sh - what recording a change costs (issue 22): targets
# a recorded overwrite of a 4 KiB file <= 1.3x today's write, a recorded
# delete of a 10,000-file tree <= 1.5x.  Each pair runs interleaved in one
# python3 process (wall time of each spawn; medians), without history
# (--no-history: today's write) and with it.
# WS_BENCH_BIN=DIR uses already built binaries instead of build-release;
# WS_BENCH_DIR=DIR puts the files there; WS_BENCH_RUNS=N overwrite pairs
# (default 300); WS_BENCH_TREES=N tree pairs (default 5); WS_BENCH_AB=DIR
# runs a second build's tree delete in the same rounds (each round the
# four commands shuffled, a fresh tree each).
source "$(dirname "$0")/lib.sh"
need python3 python3
bin=${WS_BENCH_BIN:-$(bench_bin)}
tmp=$(mktemp -d ${WS_BENCH_DIR:+-p "$WS_BENCH_DIR"})
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws"
python3 - "$bin" "$tmp" "${WS_BENCH_RUNS:-300}" "${WS_BENCH_TREES:-5}" "${WS_BENCH_AB:-}" <<'PY'
import base64, os, random, resource, shutil, statistics, subprocess, sys, time
b, tmp, runs, trees = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ab = sys.argv[5]
ws = tmp + "/ws"
env = {k: v for k, v in os.environ.items() if not k.startswith("WS_")}
env["XDG_STATE_HOME"] = tmp + "/state"
print("filesystem: %s; load %.1f on %d cores" % (
    subprocess.run(["stat", "-f", "-c", "%T", tmp], capture_output=True,
                   text=True).stdout.strip(), os.getloadavg()[0], os.cpu_count()))
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
def pair(name, n, mk, a, bb, target, warm=10):
    t = {"a": [], "b": []}
    c = {"a": [], "b": []}
    for i in range(n + warm):
        for k in (("a", "b") if i % 2 else ("b", "a")):
            if mk: mk()
            s, u = time.perf_counter_ns(), cpu()
            subprocess.run(a if k == "a" else bb, env=env, stdout=subprocess.DEVNULL, check=True)
            if i >= warm:
                t[k].append(time.perf_counter_ns() - s)
                c[k].append(cpu() - u)
    ma, mb = statistics.median(t["a"]) / 1e3, statistics.median(t["b"]) / 1e3
    # CPU time (user + system) of the child as well: what the call costs
    # the machine, robust to the waiting of a loaded one (coarse ticks:
    # the mean of the runs).
    ca, cb = statistics.mean(c["a"]) * 1e6, statistics.mean(c["b"]) * 1e6
    print("%s; load %.1f\n  today (--no-history): %9.1f us wall %9.1f us CPU"
          "\n  recorded:             %9.1f us wall %9.1f us CPU"
          "\n  ratio %.2fx wall, %.2fx CPU; target <= %.1fx: %s"
          % (name, os.getloadavg()[0], ma, ca, mb, cb, mb / ma, cb / ca, target,
             "met" if mb / ma <= target else "MISSED"))
content = base64.b64encode(os.urandom(4096)).decode()[:4096]
w = [b + "/wswrite", "--workspace", ws]
for sync, flag in (("no fsync", ["--no-sync"]), ("durable", [])):
    pair("overwrite a 4 KiB file, %s (%d pairs)" % (sync, runs), runs, None,
         w + ["--no-history"] + flag + ["--content", content, "f4k"],
         w + flag + ["--content", content, "f4k"], 1.3)
def mktree():
    d = ws + "/tree"
    if os.path.exists(d):
        shutil.rmtree(d)
    for i in range(100):
        os.makedirs("%s/d%03d" % (d, i))
        for j in range(100):
            with open("%s/d%03d/f%03d" % (d, i, j), "w") as f:
                f.write("file %d %d\n" % (i, j))
if not ab:
    pair("delete a 10,000-file tree, no fsync (%d pairs)" % trees, trees, mktree,
         w + ["--no-history", "--no-sync", "--delete", "-r", "tree"],
         w + ["--no-sync", "--delete", "-r", "tree"], 1.5, warm=1)
    sys.exit(0)
# Both builds in the same rounds, the four runs of a round shuffled.
cmds = {}
for tag, d in (("this", b), ("other", ab)):
    ww = [d + "/wswrite", "--workspace", ws]
    cmds[(tag, "plain")] = ww + ["--no-history", "--no-sync", "--delete", "-r", "tree"]
    cmds[(tag, "rec")] = ww + ["--no-sync", "--delete", "-r", "tree"]
t = {k: [] for k in cmds}
c = {k: [] for k in cmds}
for i in range(trees + 1):
    order = list(cmds)
    random.shuffle(order)
    for k in order:
        mktree()
        s, u = time.perf_counter_ns(), cpu()
        subprocess.run(cmds[k], env=env, stdout=subprocess.DEVNULL, check=True)
        if i >= 1:
            t[k].append(time.perf_counter_ns() - s)
            c[k].append(cpu() - u)
print("delete a 10,000-file tree, no fsync (%d rounds, both builds); load %.1f"
      % (trees, os.getloadavg()[0]))
for tag, d in (("this", b), ("other", ab)):
    ma = statistics.median(t[(tag, "plain")]) / 1e3
    mb = statistics.median(t[(tag, "rec")]) / 1e3
    ca = statistics.median(c[(tag, "plain")]) * 1e6
    cb = statistics.median(c[(tag, "rec")]) * 1e6
    # The ratio of each round's pair too: robust to a round's load.
    rr = statistics.median([y / x for x, y in zip(t[(tag, "plain")], t[(tag, "rec")])])
    print("  %s: --no-history %.1f ms wall %.1f CPU; recorded %.1f ms wall %.1f CPU;"
          " ratio %.2fx wall (median of rounds %.2fx), %.2fx CPU; target <= 1.5x"
          % (d, ma / 1e3, ca / 1e3, mb / 1e3, cb / 1e3, mb / ma, rr, cb / ca))
PY
