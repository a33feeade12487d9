# Bytes that are not UTF-8 (and control bytes) in names, tools, methods,
# keys: every line the server writes must be valid UTF-8 JSON.
import os, tempfile, json, subprocess
from mcpc import BIN
ws = tempfile.mkdtemp(prefix="r8u8")
open(os.path.join(ws.encode(), b"n\xff.txt"), "w").write("x\n")
reqs = [
 b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"n\xff.txt"}}}',
 b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_\xfffile","arguments":{}}}',
 b'{"jsonrpc":"2.0","id":3,"method":"no/\xfe\xff","params":{}}',
 b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","arguments":{"pa\xffth":"x"}}}',
 b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"missing\xff/\xc0\x80"}}}',
 b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_directory","arguments":{"path":"/"}}}',
 b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_files","arguments":{"pattern":"\xff"}}}',
 b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"printf \'\\\\377\\\\033[2J\'; ls"}}}',
 b'{"jsonrpc":"2.0","id":"\xff","method":"ping"}',
 b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"n\xff.txt"},"_meta":{"progressToken":"t\xff"}}}',
]
init = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}\n'
for mode in ([], ["--compat", "mcp-filesystem"]):
    args = [BIN, "mcp"] + mode + ([ws] if mode else ["--workspace", ws])
    reqs_m = reqs if not mode else [r.replace(b'"name":"read_file"', b'"name":"read_text_file"').replace(b'"path":"n', ('"path":"%s/n' % ws).encode()) for r in reqs]
    out = subprocess.run(args, input=init + b"\n".join(reqs_m) + b"\n", capture_output=True, timeout=60).stdout
    for line in out.splitlines():
        try:
            line.decode("utf-8"); json.loads(line)
        except Exception as e:
            print(mode or "native", "INVALID line:", repr(line[:200]), type(e).__name__)
    print(mode or "native", "lines:", len(out.splitlines()))
