"""wstools mcp: a policy file outside the workspace made stricter in place,
same size, mtime restored with touch -d, after the server remembered it.
A fresh process denies; the server must too (identity includes ctime)."""
import os, sys, time, subprocess, tempfile, json
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "review8"))
from mcpc import Client
d = tempfile.mkdtemp(); ws = os.path.join(d, "ws"); os.mkdir(ws)
open(os.path.join(ws, "secret.txt"), "w").write("TOPSECRET\n")
pol = os.path.join(d, "pol.json")
allow = '{"version":1,"name":"t","file_rules":[{"name":"xxxxxxxxxxx","paths":["${WORKSPACE}/secret.txt"],"operations":["*"],"decision":"allow"},{"name":"all","paths":["**"],"operations":["*"],"decision":"allow"}]}'
deny = allow.replace('"xxxxxxxxxxx"', '"deny-secret"').replace('"allow"},{"name":"all"', '"deny"}, {"name":"all"')
assert len(allow) == len(deny), (len(allow), len(deny))
open(pol, "w").write(allow); os.utime(pol, (1e9, 1e9)); time.sleep(2.2)
c = Client([ws], env={"WS_POLICY": pol})
def rd(i):
    c.call(i, "read_file", {"path": "secret.txt"}); m = c.wait_id(i)
    return m["result"].get("isError", False), json.dumps(m["result"])[:160]
print("before:", rd(1))
with open(pol, "r+") as f: f.write(deny)
os.utime(pol, (1e9, 1e9)); st = os.stat(pol)
print("size", st.st_size, "mtime", st.st_mtime)
err, txt = rd(2); print("after (server):", err, txt)
fresh = subprocess.run([os.environ.get("WSTOOLS", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "cmd", "wstools")), "call", "read_file", '{"path":"secret.txt"}'], env=dict(os.environ, WS_ROOT=ws, WS_POLICY=pol), capture_output=True, text=True).stdout
print("fresh:", fresh[:120])
time.sleep(2.5); err2, txt2 = rd(3); print("after 2.5 s (server):", err2)
sys.exit(0 if err and err2 and "POLICY_DENIED" in fresh else 1)
