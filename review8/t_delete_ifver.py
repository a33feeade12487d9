# delete_path with if_version racing a write: a delete that succeeds must
# have deleted the version it named, never content written since.
import os, tempfile
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8dv")
c = Client(["--workspace", ws, "--jobs", "4"])
bad = 0
for r in range(150):
    open(os.path.join(ws, "f.txt"), "w").write("old\n")
    c.call(f"r{r}", "read_file", {"path": "f.txt"}); v = sc(c.wait_id(f"r{r}"))["version"]
    c.call(f"d{r}", "delete_path", {"path": "f.txt", "if_version": v})
    c.call(f"w{r}", "write_file", {"path": "f.txt", "content": "precious new content\n"})
    d = c.wait_id(f"d{r}"); w = c.wait_id(f"w{r}")
    # the write succeeded after the delete (file exists) or before it (then the delete must fail)
    if not d["result"]["isError"] and not w["result"]["isError"] and not os.path.exists(os.path.join(ws, "f.txt")):
        wv = sc(w).get("version")
        bad += 1
print("rounds where the delete (if_version=old) removed the newer write:", bad, "of 150")
c.close()
