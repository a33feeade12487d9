# Numbers out of range in arguments and ids.
import os, tempfile, json
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8nu")
open(os.path.join(ws, "a.txt"), "w").write("l1\nl2\nl3\n")
c = Client(["--workspace", ws])
cases = [("read_file", '{"path":"a.txt","start_line":1e309}'), ("read_file", '{"path":"a.txt","start_line":-1}'),
         ("read_file", '{"path":"a.txt","start_line":1.5}'), ("read_file", '{"path":"a.txt","start_line":-0}'),
         ("read_file", '{"path":"a.txt","start_line":9223372036854775807}'), ("read_file", '{"path":"a.txt","end_line":"  2"}'),
         ("read_file", '{"path":"a.txt","max_bytes":-1}'), ("read_file", '{"path":"a.txt","max_bytes":1e309}'),
         ("read_file", '{"path":"a.txt","tail":-5}'), ("read_file", '{"path":"a.txt","tail":1e18}'),
         ("run_command", '{"command":"true","timeout":1e309}'), ("run_command", '{"command":"true","timeout":-1}'),
         ("run_command", '{"command":"true","timeout":1e-30}'), ("run_command", '{"command":"true","timeout":"1e309"}'),
         ("run_command", '{"command":"true","max_output":-5}'), ("run_command", '{"command":"true","max_output":1e300}'),
         ("search_files", '{"pattern":"l","max_results":-1}'), ("search_files", '{"pattern":"l","time_budget":-1}'),
         ("search_files", '{"pattern":"l","context":1e10}'), ("list_directory", '{"path":"/","depth":-1}'),
         ("list_directory", '{"path":"/","depth":1e9}'), ("list_directory", '{"path":"/","offset":-3}'),
        ]
for i, (tool, args) in enumerate(cases):
    c.raw('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' % (i, tool, args))
    m = c.wait_id(i, 30)
    t = m and (m.get("error") or m["result"]["content"][0]["text"][:110].replace("\n", " "))
    print(tool, args, "->", t)
# ids
for raw in ['1e309', '-1e309', '1.5', '9223372036854775808', '-0']:
    c.raw('{"jsonrpc":"2.0","id":%s,"result":{}}\n' % raw)
    c.raw('{"jsonrpc":"2.0","id":%s,"method":"ping"}\n' % raw)
c.send({"jsonrpc": "2.0", "id": "end", "method": "ping"}); c.wait_id("end")
print([json.dumps(m) for m in c.msgs if m.get("id") not in range(100) and m.get("id") != "init"][:8])
c.close()
print("server exit:", c.p.returncode)
