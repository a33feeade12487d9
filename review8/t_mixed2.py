# Compat mode + roots changes + approvals + cancels, concurrently (TSan/ASan).
import os, tempfile, time, random, json, sys, threading
from mcpc import *
base = tempfile.mkdtemp(prefix="r8m2")
dirs = []
for i in range(4):
    d = os.path.join(base, f"r{i}"); os.makedirs(d); dirs.append(d)
    open(os.path.join(d, "f.txt"), "w").write("hello\n")
pol = os.path.join(base, "p.json")
json.dump({"version": 1, "name": "t", "file_rules": [
    {"name": "ap", "paths": ["**/ap*"], "operations": ["write", "create"], "decision": "approve"},
    {"name": "allow", "paths": ["**"], "operations": ["*"], "decision": "allow"}]}, open(pol, "w"))
err = open(sys.argv[1] if len(sys.argv) > 1 else "/dev/null", "w")
compat = os.environ.get("COMPAT")
c = Client((["--compat", "mcp-filesystem"] if compat else []) + ["--policy", pol, "--jobs", "6", "--approval-timeout", "2"],
           caps={"elicitation": {}, "roots": {"listChanged": True}}, stderr=err)
stop = False
def answer():
    seen = set()
    while not stop:
        for m in list(c.msgs):
            if m.get("method") in ("roots/list", "elicitation/create") and m["id"] not in seen:
                seen.add(m["id"])
                if m["method"] == "roots/list":
                    rs = random.sample(dirs, random.randrange(1, 4))
                    c.send({"jsonrpc": "2.0", "id": m["id"], "result": {"roots": [{"uri": "file://" + r} for r in rs]}})
                elif random.random() < 0.7:
                    c.send({"jsonrpc": "2.0", "id": m["id"], "result": {"action": "accept", "content": {"approve": random.random() < 0.5}}})
        time.sleep(0.01)
th = threading.Thread(target=answer, daemon=True); th.start()
random.seed(2); n = 0
for r in range(200):
    n += 1; d = random.choice(dirs)
    k = random.randrange(5)
    if compat:
        if k == 0: c.call(n, "read_text_file", {"path": d + "/f.txt"})
        elif k == 1: c.call(n, "write_file", {"path": d + f"/ap{n}.txt", "content": "z"})
        elif k == 2: c.call(n, "list_allowed_directories", {})
        elif k == 3: c.call(n, "directory_tree", {"path": d})
        else: c.call(n, "edit_file", {"path": d + "/f.txt", "edits": [{"oldText": "hello", "newText": "hello"}]})
    else:
        if k == 0: c.call(n, "read_file", {"path": "f.txt"})
        elif k == 1: c.call(n, "write_file", {"path": f"ap{n}.txt", "content": "z"})
        elif k == 2: c.call(n, "list_directory", {"path": "/", "all": True})
        elif k == 3: c.call(n, "search_files", {"pattern": "hel"})
        else: c.call(n, "edit_file", {"path": "f.txt", "old": "hello", "new": "hello"})
    if r % 5 == 0: c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": random.randrange(1, n + 1)}})
    if r % 20 == 0: c.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    time.sleep(0.005)
time.sleep(6)
stop = True
c.close()
print("messages:", len(c.msgs), "answers:", len([m for m in c.msgs if "result" in m or "error" in m]), "exit:", c.p.returncode)
