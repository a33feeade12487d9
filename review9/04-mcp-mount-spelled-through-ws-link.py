"""wstools mcp with --mount /.m=WS/lnk (lnk a symlink inside the workspace):
run_command and move_path try to retarget lnk (to a directory outside);
a later read_file /.m/f must never show the outside file, in the server as
in a fresh process."""
import os, sys, json, subprocess
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "review8"))
from mcpc import Client
ws = "/tmp/r9m/ws"
c = Client(["--jobs", "4", "--mount", "/.m=%s/lnk" % ws, ws])
def call(i, name, args):
    c.call(i, name, args); m = c.wait_id(i); return json.dumps(m["result"])[:200]
print("read 1:", call(1, "read_file", {"path": "/.m/f"}))
print("run:", call(2, "run_command", {"command": "ln -sfn /tmp/r9m/other /lnk; mv /lnk /lnk2; ls -la /"}))
print("move:", call(3, "move_path", {"source": "lnk", "destination": "lnk3"}))
print("del:", call(4, "delete_path", {"path": "lnk"}))
r = call(5, "read_file", {"path": "/.m/f"}); print("read 2:", r)
print("on disk:", os.readlink(ws + "/lnk") if os.path.islink(ws + "/lnk") else "gone")
sys.exit(1 if "OTHER" in r else 0)
