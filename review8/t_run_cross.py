# Two run_command calls side by side: can one see or signal the other's
# processes or temp files?
import os, tempfile, time
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8rc")
c = Client(["--workspace", ws, "--jobs", "4"])
c.call("A", "run_command", {"command": "echo secret-A > $TMPDIR/a; echo $TMPDIR; sleep 3; cat $TMPDIR/a", "timeout": 20})
time.sleep(1)
c.call("B", "run_command", {"command": "echo TMPDIR=$TMPDIR; ls -la /tmp /proc | head -30; ps ax 2>&1 | head; kill -9 -1; pkill sleep; echo killed", "timeout": 20})
for i in ("B", "A"):
    m = c.wait_id(i, 30)
    s = sc(m)
    print(i, "isError", m["result"]["isError"], "exit", s.get("exit_code"), "signal", s.get("signal"))
    print("  stdout:", (s.get("stdout") or "")[:600].replace("\n", " | "))
    print("  stderr:", (s.get("stderr") or "")[:300].replace("\n", " | "))
    print("  isolation:", s.get("isolation"))
c.close()
