# N parallel move_path of different sources onto one destination, no
# force: one may succeed; a second success means a file was silently
# replaced (lost).  Also delete vs write on one file.
import os, tempfile
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8mv")
c = Client(["--workspace", ws, "--jobs", "8"])
for rnd in range(5):
    N = 16
    for i in range(N): open(os.path.join(ws, f"s{rnd}_{i}"), "w").write(f"src {i}\n")
    for i in range(N):
        c.call(f"{rnd}-{i}", "move_path", {"source": f"s{rnd}_{i}", "destination": f"dst{rnd}"})
    res = [c.wait_id(f"{rnd}-{i}", 60) for i in range(N)]
    ok = [i for i, m in enumerate(res) if not m["result"]["isError"]]
    left = [f for f in os.listdir(ws) if f.startswith(f"s{rnd}_")]
    print(f"round {rnd}: moves reported ok {len(ok)}; sources left {len(left)}; files lost {N - len(left) - 1}")
c.close()
