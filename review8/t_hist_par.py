# --history-tools: parallel writes are each recorded once, and undo of
# all of them restores the starting state; parallel undos undo each
# change at most once.
import os, tempfile, json
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8hi")
st = tempfile.mkdtemp(prefix="r8hs")
N = 60
for i in range(N): open(os.path.join(ws, f"f{i}.txt"), "w").write(f"orig {i}\n")
c = Client(["--workspace", ws, "--jobs", "8", "--history-tools"], env={"XDG_STATE_HOME": st})
for i in range(N):
    c.call(f"w{i}", "write_file", {"path": f"f{i}.txt", "content": f"new {i}\n"})
errs = [c.wait_id(f"w{i}", 60)["result"]["isError"] for i in range(N)]
print("write errors:", sum(errs))
c.call("h", "history", {}); h = sc(c.wait_id("h"))
ents = h.get("entries") or h.get("history") or h
print("history entries:", len(ents) if isinstance(ents, list) else ents)
# N parallel "undo the newest"
for i in range(N):
    c.call(f"u{i}", "undo", {})
res = [c.wait_id(f"u{i}", 60) for i in range(N)]
uerr = [r["result"]["content"][0]["text"][:150] for r in res if r["result"]["isError"]]
print("undo errors:", len(uerr), uerr[:3])
restored = sum(open(os.path.join(ws, f"f{i}.txt")).read() == f"orig {i}\n" for i in range(N))
print("files restored:", restored, "of", N)
c.call("h2", "history", {}); print(json.dumps(sc(c.wait_id("h2")))[:600])
c.close()
c = Client(["--workspace", ws, "--history-tools"], env={"XDG_STATE_HOME": st})
c.call("h3", "history", {}); e = sc(c.wait_id("h3"))["entries"]
u = [x["undo_of"] for x in e if x.get("tool") == "undo"]
print("undo entries:", len(u), "distinct changes undone:", len(set(u)), "changes still not undone:", sum(1 for x in e if x.get("tool") != "undo" and not x.get("undone")))
c.close()
