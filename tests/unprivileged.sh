#!/bin/bash
# unprivileged.sh BUILD_DIR SUITE... - run the named suites (unit, cli,
# race) of BUILD_DIR as an unprivileged user: CI runs as root, where permission
# bits stop nothing, so a bug that only a person who is not root meets
# (a directory they cannot read, a file they cannot replace, a user
# namespace of their own) is never seen by the root run (scripts/dev.sh
# test runs this after it).
#
# Run as root.  The user is WST_UNPRIV_USER (default nobody): it exists on
# every Debian, needs no home directory, and nothing is added to the
# password database, so nothing is left on the machine.  Its HOME,
# XDG_STATE_HOME and TMPDIR are scratch directories it owns, removed at
# the end: the run never reaches root's ~/.local/state/wstools.
#
# meson test is not used: it writes its logs into the build directory,
# which is root's.  The test programs are taken from `meson introspect
# --tests` (command, environment, timeout) and run here, two at a time,
# each through setpriv(1); exit status 77 is a skip, as meson counts it.
# A check a suite cannot make as this user says "not checked (why)" on
# its output; those lines are listed at the end, so that what did not run
# is read, not guessed.
#
# Status: 0 when every test passed (or skipped), 1 when one failed, 77
# when the stage could not run at all (not root, no setpriv, or the build
# directory out of the user's reach), saying why.
set -euo pipefail

build=$(cd "${1:?usage: unprivileged.sh BUILD_DIR SUITE...}" && pwd)
shift
[ $# -gt 0 ] || set -- cli
user=${WST_UNPRIV_USER:-nobody}

if [ "$(id -u)" != 0 ]; then
	echo "unprivileged.sh: SKIP: already not root (run the suites directly)" >&2
	exit 77
fi
if ! command -v setpriv >/dev/null 2>&1; then
	echo "unprivileged.sh: SKIP: no setpriv(1) (util-linux)" >&2
	exit 77
fi
if ! uid=$(id -u "$user" 2>/dev/null) || ! gid=$(id -g "$user" 2>/dev/null) ||
	[ "$uid" = 0 ]; then
	echo "unprivileged.sh: SKIP: no user \"$user\", or it is root" >&2
	exit 77
fi
as_user() {
	setpriv --reuid="$uid" --regid="$gid" --clear-groups "$@"
}
# The checkout may lie under a directory only root may enter (/root).
if ! as_user test -x "$build/cmd/wsls" -a -r "$build/meson-info/intro-tests.json"; then
	echo "unprivileged.sh: SKIP: $user cannot reach $build (a parent" \
		"directory closed to others?)" >&2
	exit 77
fi

# In /tmp, not root's TMPDIR (which may be a directory of root's own).
scratch=$(mktemp -d /tmp/wsunpriv-XXXXXX)
# The tests' working directory, as meson's is the build directory: the
# wsrun suites make their grant directories there, since wsrun never
# grants one under /tmp, TMPDIR or HOME (test_wsrun.c, grant_base()).
# Made in the build tree by root, then given to the user.
work=$(mktemp -d "$build/wsunpriv-cwd.XXXXXX")
trap 'rm -rf "$scratch" "$work"' EXIT
chown "$uid:$gid" "$work"
chmod 711 "$scratch"
mkdir "$scratch/logs" "$scratch/user" "$scratch/user/home" \
	"$scratch/user/tmp" "$scratch/user/state"
chown -R "$uid:$gid" "$scratch/user"
chmod 700 "$scratch/user"
if ! as_user touch "$scratch/user/tmp/.w"; then
	echo "unprivileged.sh: SKIP: $user cannot write in $scratch (/tmp closed to others?)" >&2
	exit 77
fi

# Whether the user gets a user namespace decides how much of wsrun's
# suites can run: said first, loudly, where it cannot.
# Said again at the end, where a CI log is read, and added to
# $WST_UNPRIV_NOTES (a file) for the caller's summary.
#
# Without one (a chroot, as the CI's: the kernel refuses a user namespace
# to a chrooted process; or user.max_user_namespaces=0, or an AppArmor
# restriction), the suites that run wsrun assume that a run without a
# user namespace is root's, who makes its namespaces without one: as
# nobody they fail by the dozen on that assumption (the fallbacks of a
# person who is not root, in such a place, are not tested yet).  They
# are skipped, each said, and the rest run.
userns=
no_userns_tests=
if as_user unshare -U -r true 2>/dev/null; then
	echo "==> $user (uid $uid) has user namespaces"
else
	why=$(as_user unshare -U -r true 2>&1 | tail -1 || true)
	no_userns_tests="cli-wsrun cli-wsrun-virtual cli-wsrun_net cli-mcp cli-view cli-policy race-wsrun unit-run"
	userns="==> WARNING: $user (uid $uid) gets no user namespace here\
 ($why: a chroot, user.max_user_namespaces=0 or an AppArmor\
 restriction), so these were not run as $user: $no_userns_tests"
	echo "$userns"
	[ -z "${WST_UNPRIV_NOTES:-}" ] ||
		echo "not run as $user (no user namespace here: $why): $no_userns_tests" \
			>>"$WST_UNPRIV_NOTES"
fi

st=0
NO_USERNS_TESTS=$no_userns_tests \
python3 - "$build" "$scratch" "$work" "$uid" "$gid" "$@" <<'PY' || st=$?
import json, os, random, signal, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor

build, scratch, work, uid, gid = sys.argv[1:6]
suites = sys.argv[6:]
home = os.path.join(scratch, "user")
jobs = int(os.environ.get("WST_UNPRIV_JOBS", "2"))
mult = float(os.environ.get("WST_UNPRIV_TIMEOUT_MULTIPLIER", "1"))
tests = json.load(open(os.path.join(build, "meson-info", "intro-tests.json")))
tests = [t for t in tests if any(s.split(":")[-1] in suites for s in t["suite"])]
if not tests:
    print("unprivileged.sh: no test in suites %s" % suites, file=sys.stderr)
    sys.exit(1)
# Spawned in a fixed order, the longest first: two at a time, the run
# then ends with the short ones.
tests.sort(key=lambda t: (not t["name"].startswith(("cli-wsrun", "cli-mcp", "race-"))))

no_userns = os.environ.get("NO_USERNS_TESTS", "").split()

def run(t):
    if t["name"] in no_userns:
        print("%-20s SKIP          (no user namespace for uid %s here)" % (t["name"], uid),
              flush=True)
        return t["name"], "SKIP", "SKIP: no user namespace for uid %s here" % uid
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "MALLOC_PERTURB_": str(random.randint(1, 255)),
        "MESON_TEST_ITERATION": "1",
    }
    for k in ("WST_SLOWDOWN", "WST_RACE_ITERATIONS", "CK_TIMEOUT_MULTIPLIER"):
        if k in os.environ:
            env[k] = os.environ[k]
    env.update(t["env"])
    # After the suite's own: its XDG_STATE_HOME is build/test-state, root's.
    env.update({"HOME": home + "/home", "TMPDIR": home + "/tmp",
                "XDG_STATE_HOME": home + "/state"})
    cmd = ["setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups",
           "env", "-i"] + ["%s=%s" % kv for kv in env.items()] + t["cmd"]
    log = os.path.join(scratch, "logs", t["name"] + ".log")
    timeout = t["timeout"] * mult if t["timeout"] > 0 else 1800
    start = time.time()
    with open(log, "w+b") as out:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                             stderr=subprocess.STDOUT, cwd=t["workdir"] or work,
                             start_new_session=True)
        try:
            rc = p.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = "TIMEOUT"
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    res = "OK" if rc == 0 else "SKIP" if rc == 77 else "FAIL"
    print("%-20s %-4s %6.1f s%s" % (t["name"], res, time.time() - start,
          "" if res == "OK" else "  (exit %s)" % rc), flush=True)
    return t["name"], res, text

with ThreadPoolExecutor(jobs) as ex:
    results = list(ex.map(run, tests))
bad = [r for r in results if r[1] == "FAIL"]
for name, res, text in bad:
    print("==> %s failed as uid %s; its output:" % (name, uid))
    print(text.rstrip())
notes = []
for name, res, text in results:
    if res == "SKIP":
        why = [l for l in text.splitlines() if "SKIP" in l] or ["(no reason given)"]
        notes.append("    %s: skipped: %s" % (name, why[-1].strip()))
    for l in text.splitlines():
        if "not checked" in l:
            notes.append("    %s: %s" % (name, l.strip()))
if notes:
    print("==> not checked as uid %s (they need root, or what this machine lacks):" % uid)
    print("\n".join(sorted(set(notes))))
print("==> %d tests as uid %s: %d passed, %d skipped, %d failed" % (len(results), uid,
      sum(r[1] == "OK" for r in results), sum(r[1] == "SKIP" for r in results), len(bad)))
# Nothing the user ran may outlive the stage (a daemon left would hold
# files of the scratch directory, and run on as the user).  Read from
# /proc: a fresh Debian has no pgrep (procps).
left = []
for _ in range(50):
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            st = open("/proc/%s/status" % pid).read()
            cmd = open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        uids = [l.split()[1] for l in st.splitlines() if l.startswith("Uid:")]
        if uids == [uid] and (build + "/" in cmd or scratch in cmd):
            left.append("%s (%s)" % (pid, cmd.strip()[:100]))
    if not left:
        break
    time.sleep(0.1)
if left:
    print("==> FAIL: left running as uid %s: %s" % (uid, "; ".join(left)))
sys.exit(1 if bad or left else 0)
PY
[ -z "$userns" ] || echo "$userns"
exit "$st"
