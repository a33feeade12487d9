# N parallel write_file calls that all carry the same if_version (the
# version read before): at most one may succeed (compare-and-swap).
import os, tempfile
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8iv")
open(os.path.join(ws, "f.txt"), "w").write("v0\n")
c = Client(["--workspace", ws, "--jobs", "8"])
c.call("r", "read_file", {"path": "f.txt"}); v = sc(c.wait_id("r"))["version"]
N = 40
for i in range(N):
    c.call(i, "write_file", {"path": "f.txt", "content": f"writer {i}\n", "if_version": v})
ok = []
for i in range(N):
    m = c.wait_id(i, 60)
    if not m["result"]["isError"]: ok.append(i)
print("succeeded with the same if_version:", len(ok), ok[:10], "file:", open(os.path.join(ws, "f.txt")).read().strip())
# the same with edits
open(os.path.join(ws, "e.txt"), "w").write("".join(f"<x{i}>\n" for i in range(N)))
c.call("r2", "read_file", {"path": "e.txt"}); v = sc(c.wait_id("r2"))["version"]
for i in range(N):
    c.call(f"e{i}", "edit_file", {"path": "e.txt", "edits": [{"old": f"<x{i}>", "new": f"<y{i}>"}], "if_version": v})
ok = [i for i in range(N) if not c.wait_id(f"e{i}", 60)["result"]["isError"]]
print("edits succeeded with the same if_version:", len(ok), "present:", open(os.path.join(ws, "e.txt")).read().count("<y"))
c.close()
