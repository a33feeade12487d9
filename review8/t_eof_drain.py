# The client goes away (stdin EOF, stdout closed) with calls still queued:
# the server runs every queued call anyway (writes, commands), answers to
# nobody, and exits only after the last one.
import os, tempfile, time, subprocess
from mcpc import BIN
ws = tempfile.mkdtemp(prefix="r8ed")
p = subprocess.Popen([BIN, "mcp", "--workspace", ws, "--jobs", "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
w = p.stdin
w.write(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}\n')
w.write(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"sleep 2","timeout":30}}}\n')
for i in range(20):
    w.write(b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"after_close_%d.txt","content":"x"}}}\n' % (i + 2, i))
w.write(b'{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"sleep 5; touch /ran_after_close","timeout":30}}}\n')
w.flush(); time.sleep(0.3)
t0 = time.time()
p.stdout.close(); w.close()   # the client is gone
p.wait(); print("server exited after %.1fs" % (time.time() - t0))
print("files written after the client left:", len(os.listdir(ws)), sorted(os.listdir(ws))[:3])
