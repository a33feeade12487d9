# forge2.py REAL_P OUTDIR NAME: a records file (lib/vcs.c ws__recs_save()
# format) for workspace P: P's top plain, with one "subdirectory" called NAME
# (here "..").  A name with a "/" works in the walk before only: the
# records it saves keep the last component., not plain, so that every walk enters it.  ws__recs_load()
# checks sizes, links and the checksum, not what a name holds.
import hashlib, os, struct, sys
p, out, child = sys.argv[1], sys.argv[2], sys.argv[3].encode()
st = os.stat(p)
h = hashlib.sha256(b"wswalk01" + p.encode() + b"\0" +
                   struct.pack("<QQ", st.st_dev, st.st_ino)).hexdigest()
M = (1 << 64) - 1
names = b"\0" + child + b"\0"
r0 = struct.pack("<QQQQQQQQII", st.st_dev, st.st_ino, st.st_ctime_ns // 10**9,
                 st.st_ctime_ns % 10**9, 0, 1, M, 0, 0, 1)
r1 = struct.pack("<QQQQQQQQII", 0, 0, 0, 0, 1, M, M, len(child), 1, 0)
body = b"wswalk01" + struct.pack("<QQ", 2, len(names)) + r0 + r1 + names
os.makedirs(os.path.join(out, "walks"), exist_ok=True)
with open(os.path.join(out, "walks", h), "wb") as f:
    f.write(body + hashlib.sha256(body).digest())
