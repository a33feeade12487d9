#!/usr/bin/env python3
"""table.py BINDIR ROUNDS - the README's speed table (tests/bench/run --table).

Each row is a wstools call and the obvious alternative doing the same job.
The rows run in interleaved rounds: every round runs each command of every
row once, in a rotating order, so that a change of load during the run hits
both sides of a row alike; the medians and the ratio are over the rounds.
Commands are started with posix_spawn (a vfork) and their output goes to
/dev/null; the time is the wall clock from spawn to wait.  The memory is
the peak RSS of one more run of each under GNU time(1) (a vfork child's
own ru_maxrss would count python's pages, which it shares until exec).  Prints the table in Markdown: a line
saying when, on what machine, at what load and with how many rounds, then
one row per comparison.
"""
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

bindir, rounds = os.path.abspath(sys.argv[1]), int(sys.argv[2])
tmp = tempfile.mkdtemp(prefix="wsbench.")
ws = os.path.join(tmp, "ws")
os.makedirs(ws)


def tool(name):
    return os.path.join(bindir, name)


# The fixtures: a 4 KiB file, a 10-component path, 1,000 entries.
with open(os.path.join(ws, "f4k.txt"), "w") as f:
    f.write(("x" * 63 + "\n") * 64)
deep = os.path.join(ws, *["d%d" % i for i in range(9)])
os.makedirs(deep)
with open(os.path.join(deep, "leaf.txt"), "w") as f:
    f.write("leaf\n")
rel_deep = os.path.relpath(os.path.join(deep, "leaf.txt"), ws)
big = os.path.join(ws, "many")
os.makedirs(big)
for i in range(1000):
    open(os.path.join(big, "e%04d" % i), "w").close()
src = os.path.join(tmp, "src4k.txt")
shutil.copy(os.path.join(ws, "f4k.txt"), src)
grep_dir = "/usr/include" if os.path.isdir("/usr/include") else ws

# Their own state directory, marked by a write (below): the walks of
# wsrun keep their records in a marked one, as a person's is after the
# first write with its history.
ws_env = {"WS_ROOT": ws, "XDG_STATE_HOME": os.path.join(tmp, "state")}
rows = [
    ("resolve a 10-component path", "wspath", [tool("wspath"), rel_deep],
     "realpath", ["realpath", os.path.join(ws, rel_deep)]),
    ("read a 4 KiB file", "wsread", [tool("wsread"), "f4k.txt"],
     "cat", ["cat", os.path.join(ws, "f4k.txt")]),
    ("read a 4 KiB file, JSON", "wsread --json", [tool("wsread"), "--json", "f4k.txt"],
     "cat", ["cat", os.path.join(ws, "f4k.txt")]),
    ("long listing, 1,000 entries", "wsls -l", [tool("wsls"), "-l", "many"],
     "ls -l", ["ls", "-l", big]),
    ("replace a 4 KiB file (no fsync)", "wswrite --no-sync",
     [tool("wswrite"), "--no-sync", "--content", ("x" * 63 + "\n") * 64, "out.txt"],
     "cp", ["cp", src, os.path.join(ws, "out2.txt")]),
    ("search %s for a word" % grep_dir, "wsgrep",
     [tool("wsgrep"), "--workspace", grep_dir, "-c", "PM_RESUME"],
     "grep -rnI", ["grep", "-rnIc", "PM_RESUME", grep_dir]),
]
if shutil.which("rg"):
    rows.append(("search %s for a word" % grep_dir, "wsgrep",
                 [tool("wsgrep"), "--workspace", grep_dir, "-c", "PM_RESUME"],
                 "rg", ["rg", "-c", "--no-require-git", "PM_RESUME", grep_dir]))
if shutil.which("bwrap"):
    # The views (issue 19): the workspace at / (wsrun's default) against
    # bwrap doing that job on a copy of the workspace (its mount points
    # land in the workspace it binds at /, which is why wsrun does not
    # build the view that way), and the real view.  20 top-level entries.
    def flat(name, n):
        """A workspace of n top-level entries, half directories, and
        bwrap's own copy of it (its mount points land there)."""
        w = os.path.join(tmp, name)
        os.makedirs(w)
        for i in range(n):
            if i % 2:
                os.makedirs(os.path.join(w, "d%d" % i))
            else:
                open(os.path.join(w, "f%d" % i), "w").close()
        shutil.copytree(w, w + ".bw", symlinks=True)
        return w, w + ".bw"

    vws, bwcopy = flat("vws", 20)
    bwv = ["bwrap", "--bind", bwcopy, "/"]
    for d in ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "opt"):
        if os.path.isdir("/" + d):
            bwv += ["--ro-bind", "/" + d, "/" + d]
    bwv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--unshare-pid",
            "--unshare-net", "--die-with-parent", "/usr/bin/true"]
    rows.append(("run `true`, the workspace at / (20 entries)", "wsrun --view virtual",
                 [tool("wsrun"), "--workspace", vws, "--view", "virtual", "true"],
                 "bwrap", bwv))
    rows.append(("run `true`, the workspace at its real path", "wsrun --view real",
                 [tool("wsrun"), "--workspace", vws, "--view", "real", "true"],
                 "bwrap", bwv))
    # 200 top-level entries: each is a mount in the virtual view, one
    # bind of the whole for bwrap (issue 19's target, not met).
    v200, bw200 = flat("v200", 200)
    rows.append(("run `true`, the workspace at / (200 entries)", "wsrun --view virtual",
                 [tool("wsrun"), "--workspace", v200, "--view", "virtual", "true"],
                 "bwrap", ["bwrap", "--bind", bw200, "/"] + bwv[4:]))
    # A project with its dependencies: 3,000 directories that wsrun's
    # walks for repositories open and read before and after the command.
    tree = os.path.join(tmp, "tree")
    made = 0
    while made < 3000:
        for b in range(20):
            d = os.path.join(tree, "node_modules", "p%d" % (made // 60), "lib%d" % b, "x", "y")
            os.makedirs(d)
            open(os.path.join(d, "f.js"), "w").close()
            made += 3
    bwt = ["bwrap", "--bind", tree, tree] + bwv[4:]
    rows.append(("run `true`, 3,000 directories at their real path", "wsrun --view real",
                 [tool("wsrun"), "--workspace", tree, "--view", "real", "true"],
                 "bwrap", bwt))
    rows.append(("run `true` in a sandbox", "wsrun", [tool("wsrun"), "true"],
                 "bwrap", ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev",
                           "--proc", "/proc", "--unshare-net", "--unshare-pid",
                           "--die-with-parent", "true"]))


def check_option(argv):
    """Whether a command runs at all here (an option may be missing)."""
    try:
        return subprocess.run(argv, cwd=ws, env=env_for(argv),
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode in (0, 1)
    except OSError:
        return False


def env_for(argv):
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C"}
    if argv[0].startswith(bindir):
        e.update(ws_env)
    return e


devnull = os.open(os.devnull, os.O_RDWR)


def once(argv):
    env = env_for(argv)
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0] if "/" in argv[0] else shutil.which(argv[0]),
                         argv, env,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                       (os.POSIX_SPAWN_DUP2, devnull, 2)])
    os.waitpid(pid, 0)
    return (time.perf_counter() - t0) * 1000.0


def peak_kb(argv):
    if not os.access("/usr/bin/time", os.X_OK):
        return "-"
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, cwd=ws,
                       env=env_for(argv), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "-"


os.chdir(ws)
subprocess.run([tool("wswrite"), "--content", "x", "marked.txt"], env=env_for([tool("wswrite")]),
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
rows = [r for r in rows if check_option(r[2]) and check_option(r[4])]
cmds = []
for r in rows:
    for argv in (r[2], r[4]):
        if argv not in cmds:
            cmds.append(argv)
times = {i: [] for i in range(len(cmds))}
rss = {i: peak_kb(cmds[i]) for i in range(len(cmds))}
load = os.getloadavg()
for k in range(rounds):
    order = list(range(len(cmds)))
    order = order[k % len(order):] + order[:k % len(order)]
    for i in order:
        times[i].append(once(cmds[i]))
shutil.rmtree(tmp)

model = "?"
with open("/proc/cpuinfo") as f:
    for line in f:
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
end_load = os.getloadavg()
print("Last run %s on %d CPUs (%s), Linux %s, load average %.1f at the start "
      "and %.1f at the end; %d interleaved rounds, release build."
      % (when, os.cpu_count(), model, platform.release(), load[0], end_load[0],
         rounds))
print()
print("| what | wstools | median | alternative | median | ratio | peak RSS (KiB) |")
print("|---|---|---:|---|---:|---:|---:|")
for what, wn, wa, an, aa in rows:
    a = statistics.median(times[cmds.index(wa)])
    b = statistics.median(times[cmds.index(aa)])
    print("| %s | `%s` | %.2f ms | `%s` | %.2f ms | %.2fx | %s / %s |"
          % (what, wn, a, an, b, a / b, rss[cmds.index(wa)], rss[cmds.index(aa)]))
