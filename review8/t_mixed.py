# A mixed concurrent workload (for a TSan/ASan build: WSTOOLS=... python3 t_mixed.py)
import os, tempfile, time, random, json, sys
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8mx")
for i in range(20):
    os.makedirs(os.path.join(ws, f"d{i}"), exist_ok=True)
    open(os.path.join(ws, f"d{i}", "f.txt"), "w").write("hello world\n" * 200)
caps = {"elicitation": {}, "roots": {"listChanged": True}}
c = Client(["--workspace", ws, "--jobs", "6"], caps=caps, stderr=open(sys.argv[1] if len(sys.argv) > 1 else "/dev/null", "w"))
random.seed(1)
n = 0
for r in range(300):
    k = random.randrange(8); n += 1; d = f"d{random.randrange(20)}"
    meta = {"progressToken": f"p{n}"} if n % 3 == 0 else None
    if k == 0: c.call(n, "read_file", {"path": f"{d}/f.txt"}, meta)
    elif k == 1: c.call(n, "write_file", {"path": f"{d}/f.txt", "content": "x" * random.randrange(1, 5000)}, meta)
    elif k == 2: c.call(n, "search_files", {"pattern": "wor.d", "max_results": 5}, meta)
    elif k == 3: c.call(n, "list_directory", {"path": "/", "depth": 2}, meta)
    elif k == 4: c.call(n, "edit_file", {"path": f"{d}/f.txt", "old": "x", "new": "y", "all": True}, meta)
    elif k == 5 and not os.environ.get("NORUN"): c.call(n, "run_command", {"command": "echo hi; ls | head -3", "timeout": 10}, meta)
    elif k == 6: c.call(n, "read_file", {"path": "../etc/passwd"}, meta)
    elif k == 7: c.call(n, "move_path", {"source": f"{d}/f.txt", "destination": f"{d}/g.txt", "force": True}, meta)
    if r % 7 == 0:
        c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": random.randrange(1, n + 1)}})
    if r % 50 == 0:
        c.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
time.sleep(3)
c.close()
bad = [m for m in c.msgs if "_bad" in m]
print("messages:", len(c.msgs), "bad lines:", len(bad), "exit:", c.p.returncode)
