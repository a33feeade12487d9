# N parallel write_file create_only on one new path: exactly one may
# succeed, the rest ALREADY_EXISTS.  Also parallel "parents" creation.
import os, tempfile
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8co")
c = Client(["--workspace", ws, "--jobs", "8"])
for rnd in range(5):
    N = 24
    for i in range(N):
        c.call(f"{rnd}-{i}", "write_file", {"path": f"r{rnd}/deep/x/new.txt", "content": f"writer {i}\n", "create_only": True})
    res = [c.wait_id(f"{rnd}-{i}", 60) for i in range(N)]
    ok = [i for i, m in enumerate(res) if not m["result"]["isError"]]
    errs = sorted(set(m["result"]["content"][0]["text"].split(":")[0] for m in res if m["result"]["isError"]))
    print(f"round {rnd}: succeeded {len(ok)} {ok[:5]} errors {errs} file: {open(os.path.join(ws, f'r{rnd}/deep/x/new.txt')).read().strip()}")
c.close()
