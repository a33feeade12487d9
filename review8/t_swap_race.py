# A model's own swapper: run_command exchanges a directory with a symlink
# to /etc (renameat2 RENAME_EXCHANGE) in a loop while other calls of the
# same server read, list, search and write through it.  Nothing of the
# host's /etc may come back or be written.
import os, tempfile, time, json
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8sw")
os.makedirs(os.path.join(ws, "x", "d")); open(os.path.join(ws, "x", "d", "passwd"), "w").write("inside\n")
os.symlink("/etc", os.path.join(ws, "x", "s"))
c = Client(["--workspace", ws, "--jobs", "6"])
swap = r"""python3 -c '
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
end = time.time() + 12; n = 0
while time.time() < end:
    n += libc.syscall(316, -100, b"/x/d", -100, b"/x/s", 2) == 0
print(n)'"""
c.call("S", "run_command", {"command": swap, "timeout": 30})
time.sleep(1)
N = 600; leaks = 0; errs = {}
for i in range(N):
    k = i % 4
    if k == 0: c.call(i, "read_file", {"path": "x/d/passwd"})
    elif k == 1: c.call(i, "list_directory", {"path": "x/d"})
    elif k == 2: c.call(i, "search_files", {"pattern": "root:", "paths": ["x/d"]})
    else: c.call(i, "write_file", {"path": "x/d/hostname", "content": "pwned\n"})
for i in range(N):
    m = c.wait_id(i, 60); t = json.dumps(m)
    if "root:x:0" in t or "shadow" in t or "fstab" in t or "ld.so" in t: leaks += 1
    if m["result"]["isError"]:
        code = m["result"]["content"][0]["text"].split(":")[0]; errs[code] = errs.get(code, 0) + 1
s = sc(c.wait_id("S", 60))
print("swaps:", (s.get("stdout") or "").strip(), (s.get("stderr") or "")[:200], "calls:", N, "leaks:", leaks, "errors:", errs)
print("/etc/hostname:", open("/etc/hostname").read().strip())
c.close()
