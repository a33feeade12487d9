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
"""
import argparse
import json
import os
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--args", required=True)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    o = ap.parse_args()
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
