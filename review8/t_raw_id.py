# Numeric ids that cJSON accepts but JSON does not ("01", "1.", "-0.e1"):
# the server keeps the id's text as written (ws__keep_raw_id) and echoes
# it, so its answer is not JSON.  A client that parses strictly (every
# JSON parser) drops the line or dies on it.
import subprocess, json, os
from mcpc import BIN
init = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}\n'
reqs = b"".join(b'{"jsonrpc":"2.0","id":%s,"method":"ping"}\n' % i for i in (b"01", b"1.", b"-0.e1", b"00012", b"1.E+2"))
out = subprocess.run([BIN, "mcp", "--workspace", "/tmp"], input=init + reqs, capture_output=True, timeout=30).stdout
for l in out.splitlines()[1:]:
    try: json.loads(l); ok = "valid"
    except Exception: ok = "NOT JSON"
    print(l.decode(), "->", ok)
