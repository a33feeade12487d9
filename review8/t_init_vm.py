# run_command: can the command reach its PID 1 (init, which may share the
# server's memory: run.c shared_vm)?  /proc/1/mem, maps, environ, ptrace.
import os, tempfile
from mcpc import *
ws = tempfile.mkdtemp(prefix="r8iv")
c = Client(["--workspace", ws])
cmd = r"""
id; cat /proc/1/status | grep -E 'Name|Uid|CapEff|NoNewPrivs|Seccomp'; 
head -3 /proc/1/maps 2>&1; head -c 100 /proc/1/environ 2>&1 | od -c | head -2;
python3 -c 'f=open("/proc/1/mem","rb"); print("mem open ok")' 2>&1 | tail -1;
python3 -c '
import ctypes,os
libc=ctypes.CDLL(None,use_errno=True)
r=libc.ptrace(16,1,0,0); print("ptrace attach pid1:", r, os.strerror(ctypes.get_errno()))
' 2>&1 | tail -1
ls -la /proc/1/root/ 2>&1 | head -3; ls /proc/1/fd 2>&1 | head
"""
c.call(1, "run_command", {"command": cmd, "timeout": 20})
s = sc(c.wait_id(1, 30)); print(s.get("stdout")); print("ERR:", s.get("stderr"))
c.close()
