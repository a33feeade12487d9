"""05 through one `wstools mcp` server (--jobs 4): write_file the agent's
policy, run_command re-points the link on the policy's spelling, read_file
the denied file.  Also concurrent: the re-pointing and reads side by side."""
import os, sys, json, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "review8"))
from mcpc import Client
d = tempfile.mkdtemp(); ws = d + "/ws"; os.makedirs(ws + "/d/conf-a")
open(ws + "/secret.txt", "w").write("TOPSECRET\n"); os.symlink("conf-a", ws + "/d/conf")
open(ws + "/d/conf-a/pol.json", "w").write('{"version":1,"name":"real","file_rules":[{"name":"deny-secret","paths":["${WORKSPACE}/secret.txt"],"operations":["*"],"decision":"deny"},{"name":"all","paths":["**"],"operations":["*"],"decision":"allow"}],"command_rules":[]}')
c = Client(["--jobs", "4", ws], env={"WS_POLICY": ws + "/d/conf/pol.json"})
def call(i, n, a):
    c.call(i, n, a); return json.dumps(c.wait_id(i)["result"])
print(call(1, "read_file", {"path": "secret.txt"})[:100])
print(call(2, "write_file", {"path": "d/conf-b/pol.json", "content": '{"version":1,"name":"mine","file_rules":[{"name":"all","paths":["**"],"operations":["*"],"decision":"allow"}]}'})[:100])
leak = False
for k in range(5):
    c.call(100 + k, "run_command", {"command": "ln -sfn conf-b /d/conf; rm -f /d/conf; ln -s conf-b /d/conf"})
    for j in range(4): c.call(200 + 10 * k + j, "read_file", {"path": "secret.txt"})
    for j in range(4):
        if "TOPSECRET" in json.dumps(c.wait_id(200 + 10 * k + j)["result"]): leak = True
    c.wait_id(100 + k)
r = call(3, "read_file", {"path": "secret.txt"}); print(r[:120])
print("link:", os.readlink(ws + "/d/conf"))
sys.exit(1 if leak or "TOPSECRET" in r else 0)
