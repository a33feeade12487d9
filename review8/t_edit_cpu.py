# One edit_file call with many edits on a large file: the worker is busy
# for a long time, notifications/cancelled does not stop it, and EOF on
# stdin waits for it (the server cannot exit).
import os, tempfile, time, sys
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8ec")
MB = int(sys.argv[1]) if len(sys.argv) > 1 else 16
NE = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
open(os.path.join(ws, "big.txt"), "w").write(("abcdefghij" * 100 + "\n") * (MB * 1024 // 1))
c = Client(["--workspace", ws, "--jobs", "1"])
edits = [{"old": "abc", "new": "abc", "all": True} for _ in range(NE)]
t0 = time.time()
c.call("E", "edit_file", {"path": "big.txt", "edits": edits})
time.sleep(1)
c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "E"}})
c.send({"jsonrpc": "2.0", "id": "P", "method": "ping"})
c.call("R", "read_file", {"path": "big.txt", "max_bytes": 10})
print("ping answered after %.1fs" % (time.time() - t0) if c.wait_id("P", 5) else "no ping")
m = c.wait_id("R", 600)
print("read_file queued behind the cancelled edit answered after %.1fs" % (time.time() - t0))
c.p.stdin.close(); c.p.wait(); print("server exited after %.1fs" % (time.time() - t0))
