# Progress: no notifications/progress for a token after its call's answer
# (or after its cancellation); tokens of concurrent calls never swapped.
import os, tempfile, time
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8pg")
for d in range(40):
    os.makedirs(os.path.join(ws, f"d{d}"))
    for f in range(100): open(os.path.join(ws, f"d{d}", f"f{f}.txt"), "w").write("needle hay\n" * 200)
c = Client(["--workspace", ws, "--jobs", "4"])
N = 12
for i in range(N):
    c.call(i, "search_files", {"pattern": "ne+dle", "max_results": 1000, "no_ignore": True} if i % 3 else {"pattern": "x(a|b)*y", "paths": ["/"]}, {"progressToken": f"tok{i}"})
    if i % 4 == 3: c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": i}})
time.sleep(15)
late = 0; seen = {}
for idx, m in enumerate(c.msgs):
    if m.get("method") == "notifications/progress":
        t = m["params"]["progressToken"]; seen[t] = seen.get(t, 0) + 1
        i = int(t[3:])
        ans = [k for k, a in enumerate(c.msgs) if a.get("id") == i and "result" in a]
        if ans and ans[0] < idx: late += 1
print("progress per token:", seen)
print("progress after the call's answer:", late)
print("answers:", sorted(m["id"] for m in c.msgs if "result" in m and isinstance(m.get("id"), int)))
c.close()
