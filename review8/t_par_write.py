# Parallel write_file / append / edit on one file over one server (--jobs 8).
import sys, os, shutil, tempfile
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8pw")
c = Client(["--workspace", ws, "--jobs", "8"])
N = 200
A = "A" * 300000; B = "B" * 300000
bad = 0
for i in range(N):
    c.call(f"w{i}", "write_file", {"path": "f.txt", "content": A if i % 2 else B})
for i in range(N):
    m = c.wait_id(f"w{i}", 60)
    if m is None or m["result"]["isError"]:
        bad += 1; print("err", m and m["result"]["content"][0]["text"][:200])
    d = open(os.path.join(ws, "f.txt")).read()
    if d not in (A, B): print("MIXED content at", i, len(d)); break
print("write errors:", bad)
# appends
open(os.path.join(ws, "g.txt"), "w").close()
for i in range(N):
    c.call(f"a{i}", "write_file", {"path": "g.txt", "content": f"{i:04d}\n", "append": True})
errs = 0
for i in range(N):
    m = c.wait_id(f"a{i}", 60)
    if m is None or m["result"]["isError"]:
        errs += 1
        if errs < 4: print("append err", m and m["result"]["content"][0]["text"][:300])
lines = open(os.path.join(ws, "g.txt")).read().split()
print("appends ok:", N - errs, "lines in file:", len(lines), "distinct:", len(set(lines)))
print("leftovers:", [f for f in os.listdir(ws) if f not in ("f.txt", "g.txt")])
c.close()
