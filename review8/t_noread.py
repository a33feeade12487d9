# A client that stops reading: the workers block on the pipe, and the
# reader keeps queueing every tools/call it is sent.  Server RSS grows
# with what the client sends, without a bound (no backpressure).
import os, subprocess, tempfile, time, sys
from mcpc import BIN
ws = tempfile.mkdtemp(prefix="r8nr")
open(os.path.join(ws, "big.txt"), "w").write("x" * 60000 + "\n")
p = subprocess.Popen([BIN, "mcp", "--workspace", ws], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def rss():
    for l in open(f"/proc/{p.pid}/status"):
        if l.startswith("VmRSS"): return int(l.split()[1]) // 1024
w = p.stdin
w.write(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}\n')
# never read stdout from here on
pad = "y" * (1 << 20)
print("rss MiB at start:", rss())
for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 400):
    # each call reads a 60 KB file (the pipe fills after one answer), and
    # carries a 1 MiB string the server must keep while the call is queued
    w.write(('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"big.txt"},"_meta":{"pad":"%s"}}}\n' % (i + 1, pad)).encode())
    if i % 100 == 99:
        w.flush(); time.sleep(0.2); print("sent", i + 1, "MiB; server rss MiB:", rss(), flush=True)
w.flush(); time.sleep(1)
print("final rss MiB:", rss())
p.kill()
