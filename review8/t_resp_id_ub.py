# A response whose id is a number out of long long's range (1e309, 1e19):
# mcp.c ws__response() casts the double to long long before any range
# check (undefined behaviour; UBSan: "inf is outside the range").
import subprocess, os
from mcpc import BIN
init = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}\n'
r = subprocess.run([BIN, "mcp", "--workspace", "/tmp"], input=init + b'{"jsonrpc":"2.0","id":1e309,"result":{}}\n{"jsonrpc":"2.0","id":1e19,"result":{}}\n',
                   capture_output=True, timeout=30, env=dict(os.environ, UBSAN_OPTIONS="print_stacktrace=1"))
print(r.stderr.decode()[:1500] or "(no stderr: build with -Db_sanitize=undefined to see it)")
