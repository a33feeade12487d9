# Cancellation: a running command is stopped; duplicate ids in flight;
# numeric ids that differ beyond double precision.
import os, tempfile, time
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8ca")
c = Client(["--workspace", ws, "--jobs", "4"])
def cancel(rid):
    c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}})
# 1. cancel a running command
t0 = time.time()
c.call(1, "run_command", {"command": "sleep 30; echo done > /after.txt", "timeout": 60})
time.sleep(1); cancel(1)
c.call(2, "read_file", {"path": "/"})  # something after
m = c.wait_id(1, 5)
print("1. answer to cancelled call:", m and "present" or "none (ok)")
time.sleep(1)
# 2. duplicate id in flight
c.call(7, "run_command", {"command": "sleep 1; echo first", "timeout": 20})
c.call(7, "run_command", {"command": "echo second", "timeout": 20})
time.sleep(3)
ans = [m for m in c.msgs if m.get("id") == 7]
print("2. answers for duplicate id 7:", len(ans), [ (sc(a) or {}).get("stdout") for a in ans], [a.get("error") for a in ans])
# 3. ids beyond 2^53: cancel 9007199254740993, is 9007199254740992 cancelled too?
c.raw('{"jsonrpc":"2.0","id":9007199254740992,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"sleep 2; echo kept","timeout":20}}}\n')
c.raw('{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"sleep 2; echo other","timeout":20}}}\n')
time.sleep(0.5)
c.raw('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740993}}\n')
time.sleep(4)
raw = [m for m in c.msgs if "result" in m and isinstance(m.get("id"), int) and m["id"] > 2**52]
print("3. answered big ids:", [m["id"] for m in raw], "(9007199254740992 was not cancelled and should be answered)")
print("   after.txt exists:", os.path.exists(os.path.join(ws, "after.txt")))
c.close()
