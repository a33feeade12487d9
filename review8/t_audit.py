# --audit: concurrent calls each append one whole JSON line to the log.
import os, tempfile, json
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8au"); log = os.path.join(tempfile.mkdtemp(prefix="r8al"), "audit.jsonl")
c = Client(["--workspace", ws, "--audit", log, "--jobs", "8"])
N = 300
for i in range(N):
    c.call(i, "write_file", {"path": f"d{i%5}/f{i}.txt", "content": "x" * 10}) if i % 2 else c.call(i, "read_file", {"path": "nope/" + "n" * 200 + str(i)})
for i in range(N): c.wait_id(i, 60)
c.close()
lines = open(log, "rb").read().splitlines()
bad = 0
for l in lines:
    try: json.loads(l)
    except Exception: bad += 1
print("audit lines:", len(lines), "unparsable:", bad)
