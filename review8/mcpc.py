"""Tiny raw JSON-RPC client for `wstools mcp` (review8 reproducers)."""
import json, os, subprocess, sys, threading, time, queue

BIN = os.environ.get("WSTOOLS", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "cmd", "wstools"))

class Client:
    def __init__(self, args, caps=None, env=None, init=True, stderr=None):
        e = dict(os.environ)
        if env: e.update(env)
        self.p = subprocess.Popen([BIN, "mcp"] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=stderr if stderr is not None else subprocess.DEVNULL, env=e)
        self.q = queue.Queue()
        self.msgs = []
        self.t = threading.Thread(target=self._rd, daemon=True); self.t.start()
        self.handlers = {}
        if init:
            self.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                       "params": {"protocolVersion": "2025-06-18", "capabilities": caps or {},
                                  "clientInfo": {"name": "r8", "version": "0"}}})
            self.wait_id("init")
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _rd(self):
        for line in self.p.stdout:
            try:
                m = json.loads(line)
            except Exception as ex:
                m = {"_bad": line}
            self.msgs.append(m)
            self.q.put(m)
        self.q.put(None)

    def raw(self, b):
        if isinstance(b, str): b = b.encode()
        self.p.stdin.write(b); self.p.stdin.flush()

    def send(self, obj):
        self.raw(json.dumps(obj) + "\n")

    def call(self, id, name, args, meta=None):
        p = {"name": name, "arguments": args}
        if meta: p["_meta"] = meta
        self.send({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": p})

    def wait(self, pred, timeout=30):
        end = time.time() + timeout
        for m in list(self.msgs):
            if pred(m): return m
        while time.time() < end:
            try:
                m = self.q.get(timeout=max(0.01, end - time.time()))
            except queue.Empty:
                break
            if m is None: return None
            if pred(m): return m
        return None

    def wait_id(self, id, timeout=30):
        return self.wait(lambda m: m.get("id") == id and ("result" in m or "error" in m), timeout)

    def close(self):
        try: self.p.stdin.close()
        except Exception: pass
        try: self.p.wait(timeout=30)
        except Exception: self.p.kill()

def sc(m):
    """structuredContent of a tools/call answer."""
    return (m or {}).get("result", {}).get("structuredContent")
