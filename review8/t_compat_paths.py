# --compat mcp-filesystem path handling: sibling-prefix dirs, "..",
# symlinks, "~", spelled vs real allowed dirs.  Every access outside the
# allowed dirs must be refused.
import os, tempfile, json
from mcpc import *
base = os.path.realpath(tempfile.mkdtemp(prefix="r8cp"))
ws = os.path.join(base, "ws"); ws2 = os.path.join(base, "ws2"); other = os.path.join(base, "other")
for d in (ws, ws2, other): os.makedirs(d)
open(os.path.join(ws2, "secret"), "w").write("SECRET-ws2\n")
open(os.path.join(other, "secret"), "w").write("SECRET-other\n")
open(os.path.join(ws, "ok.txt"), "w").write("ok\n")
os.symlink("../ws2/secret", os.path.join(ws, "rel_link"))
os.symlink(os.path.join(ws2, "secret"), os.path.join(ws, "abs_link"))
os.symlink("../ws2", os.path.join(ws, "dir_link"))
os.symlink(ws, os.path.join(base, "wslink"))  # a spelled alias of ws
os.makedirs(os.path.join(ws, ".other")); open(os.path.join(ws, ".other", "x"), "w").write("ws's own .other/x\n")
c = Client(["--compat", "mcp-filesystem", os.path.join(base, "wslink"), other])
paths = [ws2 + "/secret", ws + "/../ws2/secret", "../ws2/secret", ws + "/rel_link", ws + "/abs_link",
         ws + "/dir_link/secret", base + "/wslink/../ws2/secret", base + "/wslink/rel_link", "rel_link",
         ws + "2/secret", "~/../../" + ws2 + "/secret", ws + "/.other/x", other + "/secret",
         base + "/wslink/ok.txt", ws + "/ok.txt", ws + "/./ok.txt/", ws + "\\..\\ws2\\secret", "/proc/self/root" + ws2 + "/secret",
         ws + "/ok.txt/..", ws + "/" + "a/" * 3000 + "x"]
for i, p in enumerate(paths):
    c.call(i, "read_text_file", {"path": p})
    m = c.wait_id(i, 20)
    t = m["result"]["content"][0]["text"] if "result" in m else m
    flag = "LEAK!" if "SECRET-ws2" in t else ""
    print(f"{p[:70]!r:75} -> {t[:100]!r} {flag}")
c.call("w", "write_file", {"path": ws + "/dir_link/new.txt", "content": "x"}); print("write via dir_link:", c.wait_id("w")["result"]["content"][0]["text"][:100])
c.call("m", "move_file", {"source": ws + "/ok.txt", "destination": ws + "/../ws2/moved"}); print("move out:", c.wait_id("m")["result"]["content"][0]["text"][:100])
c.call("s", "search_files", {"path": ws, "pattern": "**/*secret*"}); print("search:", c.wait_id("s")["result"]["content"][0]["text"][:200])
c.call("t", "directory_tree", {"path": ws}); print("tree:", c.wait_id("t")["result"]["content"][0]["text"][:400].replace("\n", " "))
print("ws2 now:", os.listdir(ws2))
c.close()
