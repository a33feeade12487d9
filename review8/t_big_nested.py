# Huge and deeply nested messages: depth 1000/1001/100000, a 100 MB line,
# 200k keys, a "paths" array of 300k entries: the server answers each
# with a code and stays responsive, RSS bounded.
import os, tempfile, time, subprocess, json
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8bn")
open(os.path.join(ws, "a.txt"), "w").write("a\n")
c = Client(["--workspace", ws])
def rss():
    for l in open(f"/proc/{c.p.pid}/status"):
        if l.startswith("VmRSS"): return int(l.split()[1]) // 1024
def req(i, args):
    return '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":%s}}\n' % (i, args)
tests = [(1, '{"path":"a.txt","x":' + "[" * 990 + "]" * 990 + "}"),
         (2, '{"path":"a.txt","x":' + "[" * 1001 + "]" * 1001 + "}"),
         (3, '{"path":"a.txt","x":' + "[" * 100000 + "]" * 100000 + "}"),
         (4, "{" + ",".join('"k%d":1' % i for i in range(200000)) + "}"),
         (5, '{"paths":[' + ",".join('"a.txt"' for _ in range(300000)) + "]}"),
         (6, '{"path":"' + "a" * (100 << 20) + '"}')]
for i, a in tests:
    t0 = time.time(); c.raw(req(i, a)); m = c.wait_id(i, 120)
    if m is None and i == 6:
        m = c.wait(lambda m: m.get("error") and "longer" in m["error"].get("message", ""), 60)
    txt = (m.get("error") or {}).get("message") if m and "error" in m else (m and m["result"]["content"][0]["text"][:90])
    print(i, "%.1fs" % (time.time() - t0), "rss MiB", rss(), "->", repr(txt)[:120])
c.send({"jsonrpc": "2.0", "id": "p", "method": "ping"}); print("ping after:", c.wait_id("p", 10) is not None)
c.close()
