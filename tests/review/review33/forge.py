# forge.py REAL_P OUTDIR [NAME]: a records file (the format of lib/vcs.c
# ws__recs_save()) for workspace P, named as ws__recs_dir() names P's file,
# in OUTDIR/walks: P's top plain, with no subdirectory, or with one called
# NAME (not plain, so that every walk enters it).  Everything it needs a
# command of P's can print (`stat -c '%d %i' .`, the ctime to the
# nanosecond) and the agent knows P's real path (wspath /).  The SHA-256
# at the end is a checksum, no secret.  Used by 03 and 04.
import hashlib, os, struct, sys
p, out = sys.argv[1], sys.argv[2]
child = sys.argv[3].encode() if len(sys.argv) > 3 else None
st = os.stat(p)
h = hashlib.sha256(b"wswalk01" + p.encode() + b"\0" +
                   struct.pack("<QQ", st.st_dev, st.st_ino)).hexdigest()
M = (1 << 64) - 1
names = b"\0" + (child + b"\0" if child is not None else b"")
recs = [struct.pack("<QQQQQQQQII", st.st_dev, st.st_ino, st.st_ctime_ns // 10**9,
                    st.st_ctime_ns % 10**9, 0, M if child is None else 1, M, 0, 0, 1)]
if child is not None:
    recs.append(struct.pack("<QQQQQQQQII", 0, 0, 0, 0, 1, M, M, len(child), 1, 0))
body = b"wswalk01" + struct.pack("<QQ", len(recs), len(names)) + b"".join(recs) + names
os.makedirs(os.path.join(out, "walks"), exist_ok=True)
with open(os.path.join(out, "walks", h), "wb") as f:
    f.write(body + hashlib.sha256(body).digest())
