#!/usr/bin/env python3
"""mcp_client.py - a raw JSON-RPC client for timing MCP servers over stdio.

    mcp_client.py --tool NAME --args JSON [--calls N] [--warmup N] -- CMD [ARG...]

Starts CMD, does the MCP handshake (initialize, notifications/initialized),
then sends N tools/call requests for NAME with ARGS, one at a time (each
waits for its answer, as an agent does), and prints one JSON object:
median, p10, p90 and mean microseconds per call (wall time from writing
the request to reading the whole answer line, the client's JSON encoding
and decoding included, the same for every server), the number of tool
errors, the server's peak RSS (VmHWM) after the calls, and the size of
the first answer.  Exit status 1 when a call failed (a JSON-RPC error or
isError), so a harness notices it is timing error paths.

Only the standard library: no SDK, so the client's own cost stays small
and equal for every server.

    mcp_client.py --interleave SPEC.json --rounds R --calls N [--warmup N]

Interleaved: SPEC.json is a list of {"label", "tool", "args", "cmd"
(a list), "env" (optional, added to the environment)}.  Every server is
started and warmed up first; then, R rounds, each server in a shuffled
order makes N calls a round, so that the load of a busy machine falls on
each alike.  Prints one JSON object a server (median, p10, p90 of all
its calls, the median of each round's median, peak RSS after all R*N
calls), and the load average before and after.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time


def rss_peak_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class Server:
    """One server on one connection: the handshake done, calls timed."""

    def __init__(self, spec):
        self.label = spec["label"]
        self.tool = spec["tool"]
        self.args = spec["args"]
        env = dict(os.environ)
        env.update(spec.get("env", {}))
        self.p = subprocess.Popen(spec["cmd"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, bufsize=1 << 16,
                                  env=env)
        self.ident = 0
        self.times = []
        self.rounds = []
        self.errors = 0
        init = self.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "wstools-bench", "version": "1"}})
        if "result" not in init:
            raise SystemExit(f"mcp_client: {self.label}: initialize failed")
        self.p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.p.stdin.flush()
        self.request("tools/list", {})
        # The request line is the same every call: encoded once.
        self.line = None

    def request(self, method, params):
        self.ident += 1
        msg = {"jsonrpc": "2.0", "id": self.ident, "method": method,
               "params": params}
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit(f"mcp_client: {self.label}: the server closed "
                                 f"its output (status {self.p.wait()})")
            r = json.loads(line)
            if r.get("id") == self.ident:
                return r

    def call(self):
        t0 = time.perf_counter_ns()
        r = self.request("tools/call", {"name": self.tool, "arguments": self.args})
        t1 = time.perf_counter_ns()
        if "error" in r or r.get("result", {}).get("isError"):
            self.errors += 1
            if self.errors == 1:
                sys.stderr.write(f"mcp_client: {self.label}: {json.dumps(r)[:300]}\n")
        return (t1 - t0) / 1000.0

    def close(self):
        peak = rss_peak_kib(self.p.pid)
        self.p.stdin.close()
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        return peak


def interleave(o):
    specs = json.load(open(o.interleave))
    load0 = os.getloadavg()
    servers = [Server(s) for s in specs]
    for srv in servers:
        for _ in range(o.warmup):
            srv.call()
    for _ in range(o.rounds):
        order = list(servers)
        random.shuffle(order)
        for srv in order:
            t = [srv.call() for _ in range(o.calls)]
            srv.times.extend(t)
            srv.rounds.append(statistics.median(t))
    load1 = os.getloadavg()
    for srv in servers:
        peak = srv.close()
        q = statistics.quantiles(srv.times, n=10)
        print(json.dumps({
            "label": srv.label,
            "calls": len(srv.times) + o.warmup,
            "timed": len(srv.times),
            "rounds": o.rounds,
            "median_us": round(statistics.median(srv.times), 1),
            "p10_us": round(q[0], 1),
            "p90_us": round(q[-1], 1),
            "round_median_us": round(statistics.median(srv.rounds), 1),
            "errors": srv.errors,
            "peak_rss_kib": peak,
            "load_before": [round(x, 2) for x in load0],
            "load_after": [round(x, 2) for x in load1],
        }))
    return 1 if any(s.errors for s in servers) else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool")
    ap.add_argument("--args")
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--interleave", metavar="SPEC.json")
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    o = ap.parse_args()
    if o.interleave:
        return interleave(o)
    if o.tool is None or o.args is None:
        ap.error("--tool and --args are needed (or --interleave)")
    cmd = o.cmd[1:] if o.cmd and o.cmd[0] == "--" else o.cmd
    if not cmd:
        ap.error("a server command is needed after --")
    args = json.loads(o.args)
    # Buffered: readline() on an unbuffered pipe reads one byte per
    # system call, which cost the client ~20 ms per 5 KB answer.
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, bufsize=1 << 16)
    out = p.stdout
    ident = 0

    def request(method, params):
        nonlocal ident
        ident += 1
        msg = {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()
        while True:
            line = out.readline()
            if not line:
                raise SystemExit(f"mcp_client: the server closed its output "
                                 f"(status {p.wait()})")
            r = json.loads(line)
            if r.get("id") == ident:
                return r, len(line)
            # A notification or a request of the server: not ours.

    init, _ = request("initialize", {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "wstools-bench", "version": "1"},
    })
    if "result" not in init:
        raise SystemExit(f"mcp_client: initialize failed: {init}")
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    p.stdin.flush()
    # What a model is sent on every turn: the tools/list line's size.
    _, tools_list_bytes = request("tools/list", {})

    errors = 0
    first_len = None
    times = []
    for i in range(o.warmup + o.calls):
        t0 = time.perf_counter_ns()
        r, n = request("tools/call", {"name": o.tool, "arguments": args})
        t1 = time.perf_counter_ns()
        if "error" in r or r.get("result", {}).get("isError"):
            errors += 1
            if errors == 1:
                sys.stderr.write(f"mcp_client: {o.tool} failed: {json.dumps(r)[:500]}\n")
        if first_len is None:
            first_len = n
        if i >= o.warmup:
            times.append((t1 - t0) / 1000.0)
    peak = rss_peak_kib(p.pid)
    p.stdin.close()
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    q = statistics.quantiles(times, n=10)
    print(json.dumps({
        "server": init["result"].get("serverInfo", {}),
        "tool": o.tool,
        "calls": len(times),
        "median_us": round(statistics.median(times), 1),
        "p10_us": round(q[0], 1),
        "p90_us": round(q[-1], 1),
        "mean_us": round(statistics.fmean(times), 1),
        "errors": errors,
        "peak_rss_kib": peak,
        "answer_bytes": first_len,
        "tools_list_bytes": tools_list_bytes,
    }))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
