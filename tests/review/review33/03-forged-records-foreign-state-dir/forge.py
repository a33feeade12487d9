# forge.py REAL_P OUTDIR: a records file (format of lib/vcs.c ws__recs_save())
# saying that workspace P's top is plain and has no subdirectories, named as
# ws__recs_path() names P's file.  Everything it needs a command of P's can
# print (`stat -c '%d %i' .`, the ctime to the nanosecond) and the agent knows
# P's real path (wspath /).  The SHA-256 at the end is a checksum, no secret.
import hashlib, os, struct, sys
p, out = sys.argv[1], sys.argv[2]
st = os.stat(p)
h = hashlib.sha256(b"wswalk01" + p.encode() + b"\0" +
                   struct.pack("<QQ", st.st_dev, st.st_ino)).hexdigest()
M = (1 << 64) - 1
names = b"\0"
rec = struct.pack("<QQQQQQQQII", st.st_dev, st.st_ino, st.st_ctime_ns // 10**9,
                  st.st_ctime_ns % 10**9, 0, M, M, 0, 0, 1)
body = b"wswalk01" + struct.pack("<QQ", 1, len(names)) + rec + names
os.makedirs(os.path.join(out, "walks"), exist_ok=True)
with open(os.path.join(out, "walks", h), "wb") as f:
    f.write(body + hashlib.sha256(body).digest())
