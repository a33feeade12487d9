# --compat mcp-filesystem: the path of a call is translated with the
# allowed directories of before a roots/list_changed, and run with the
# roots answered after it.  write_file <dirB>/f.txt then lands in another
# directory (a new root of the same base name, or the workspace's own
# ".B" entry when B is no longer a root).
import os, tempfile, time
from mcpc import *
base = tempfile.mkdtemp(prefix="r8cs")
ws = os.path.join(base, "ws"); b1 = os.path.join(base, "one", "B"); b2 = os.path.join(base, "two", "B")
for d in (ws, b1, b2): os.makedirs(d)
c = Client(["--compat", "mcp-filesystem", "--jobs", "4"], caps={"roots": {"listChanged": True}})
rq = c.wait(lambda m: m.get("method") == "roots/list", 5)
c.send({"jsonrpc": "2.0", "id": rq["id"], "result": {"roots": [{"uri": "file://" + ws}, {"uri": "file://" + b1}]}})
c.call(0, "list_allowed_directories", {}); print("allowed:", c.wait_id(0)["result"]["content"][0]["text"].replace("\n", " "))
for n, newroots in ((1, [ws, b2]), (2, [ws])):
    c.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    rq = c.wait(lambda m: m.get("method") == "roots/list" and m["id"] != rq["id"], 5)
    c.call(n, "write_file", {"path": os.path.join(b1, f"f{n}.txt"), "content": "for B one\n"})
    time.sleep(0.3)
    c.send({"jsonrpc": "2.0", "id": rq["id"], "result": {"roots": [{"uri": "file://" + r} for r in newroots]}})
    m = c.wait_id(n, 10)
    print(f"write {b1}/f{n}.txt with roots now {newroots}:", m["result"]["content"][0]["text"][:120])
for root, _, files in os.walk(base):
    for f in files: print("  file at", os.path.join(root, f))
c.close()
