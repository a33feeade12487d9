# Parallel edit_file calls on one file: every call reports success, but are
# all edits in the file afterwards (lost update)?
import os, tempfile
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8pe")
N = 100
open(os.path.join(ws, "f.txt"), "w").write("".join(f"<x{i}>\n" for i in range(N)))
c = Client(["--workspace", ws, "--jobs", "8"])
for i in range(N):
    c.call(i, "edit_file", {"path": "f.txt", "edits": [{"old": f"<x{i}>", "new": f"<y{i}>"}]})
ok = 0
for i in range(N):
    m = c.wait_id(i, 60)
    if m and not m["result"]["isError"]: ok += 1
    elif m and i < 3: print(m["result"]["content"][0]["text"][:300])
d = open(os.path.join(ws, "f.txt")).read()
print("edits reported ok:", ok, "edits present:", d.count("<y"), "of", N)
c.close()
