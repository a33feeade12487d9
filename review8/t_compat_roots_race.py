# --compat mcp-filesystem with a client that offers roots: a call sent
# right after notifications/initialized, before the roots/list answer,
# is refused ("no allowed directories") instead of waiting for the roots
# as the native mode does.
import os, tempfile, time
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8cr")
open(os.path.join(ws, "a.txt"), "w").write("hi\n")
for mode in (["--compat", "mcp-filesystem"], []):
    c = Client(mode, caps={"roots": {"listChanged": True}})
    rq = c.wait(lambda m: m.get("method") == "roots/list", 5)
    # call first, answer the roots after
    c.call(1, "read_text_file" if mode else "read_file", {"path": os.path.join(ws, "a.txt") if mode else "a.txt"})
    time.sleep(0.5)
    c.send({"jsonrpc": "2.0", "id": rq["id"], "result": {"roots": [{"uri": "file://" + ws}]}})
    m = c.wait_id(1, 10)
    print(mode or "native", "->", m["result"]["content"][0]["text"][:160].replace("\n", " "))
    c.close()
