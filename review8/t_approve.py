# Approvals over elicitation with calls side by side:
#  a) each call takes only the answer to its own question (answers in
#     reverse order, one yes, one no);
#  b) TOCTOU: while a write into /ok/d waits for approval, a second call
#     renames /ok/d to /secret/d (allowed), then the person approves: the
#     write lands in /secret/d, where the policy denies writing.
import os, tempfile, time, json
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8ap")
pol = os.path.join(tempfile.mkdtemp(prefix="r8pol"), "p.json")
json.dump({"version": 1, "name": "t", "file_rules": [
    {"name": "deny-secret-write", "paths": [ws + "/secret/**"], "operations": ["write", "create"], "decision": "deny"},
    {"name": "approve-ok", "paths": [ws + "/ok/**"], "operations": ["write", "create"], "decision": "approve", "message": "write {{.Path}}?"},
    {"name": "allow", "paths": ["**"], "operations": ["*"], "decision": "allow"}]}, open(pol, "w"))
os.makedirs(os.path.join(ws, "ok", "d")); os.makedirs(os.path.join(ws, "secret"))
c = Client(["--workspace", ws, "--policy", pol, "--jobs", "4"], caps={"elicitation": {}})
# a)
c.call("A", "write_file", {"path": "ok/a.txt", "content": "A\n"})
c.call("B", "write_file", {"path": "ok/b.txt", "content": "B\n"})
qs = []
while len(qs) < 2:
    q = c.wait(lambda m: m.get("method") == "elicitation/create" and m not in qs, 10); qs.append(q)
for q in reversed(qs):
    yes = "a.txt" in q["params"]["message"]
    c.send({"jsonrpc": "2.0", "id": q["id"], "result": {"action": "accept", "content": {"approve": yes}}})
for i in ("A", "B"): print("a)", i, "isError:", c.wait_id(i)["result"]["isError"])
print("a) a.txt:", os.path.exists(os.path.join(ws, "ok/a.txt")), "b.txt:", os.path.exists(os.path.join(ws, "ok/b.txt")), "(want True False)")
# check: a direct write to secret is denied
c.call("D", "write_file", {"path": "secret/x.txt", "content": "x\n"}); print("b) direct write to /secret:", c.wait_id("D")["result"]["content"][0]["text"][:80])
# b)
c.call("C", "write_file", {"path": "ok/d/f.txt", "content": "lands where?\n"})
q = c.wait(lambda m: m.get("method") == "elicitation/create" and m not in qs, 10)
print("b) question:", q["params"]["message"][:100].replace("\n", " "))
c.call("M", "move_path", {"source": "ok/d", "destination": "secret/d"})
print("b) move while C waits:", c.wait_id("M")["result"]["content"][0]["text"][:150])
c.send({"jsonrpc": "2.0", "id": q["id"], "result": {"action": "accept", "content": {"approve": True}}})
m = c.wait_id("C")
print("b) C:", m["result"]["content"][0]["text"][:120].replace("\n", " "))
print("b) file now at:", [os.path.join(r, f)[len(ws):] for r, _, fs in os.walk(ws) for f in fs])
c.close()
