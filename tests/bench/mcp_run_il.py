#!/usr/bin/env python3
"""mcp_run_il.py - run_command through MCP, interleaved with commands.

    mcp_run_il.py --rounds N [--warmup N] --args JSON \\
        --server NAME 'CMD...' [--server NAME 'CMD...'] \\
        --exec NAME 'CMD...' [--exec NAME 'CMD...']

Each --server is started once (a wstools mcp command line, split at
blanks; leading NAME=VALUE words set its environment) and handshaken;
each round then makes one tools/call run_command (ARGS) on every server
and runs every --exec command once (posix_spawn, wait), all in a new
shuffled order, so that the machine's load falls on all alike.  A call
is timed from writing the request to reading its answer line, an exec
from the spawn to the wait's return (its output to /dev/null).  Prints
the load average, then per row: NAME, median ms, minimum ms, runs,
tab-separated (the format of tests/bench/interleave.c).  Exit status 1
when a call failed.  Only the standard library.
"""
import argparse
import json
import os
import random
import shlex
import statistics
import subprocess
import sys
import time


def split_env(line):
    words = shlex.split(line)
    env = dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith("/"):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    return words, env


class Server:
    def __init__(self, name, line, args):
        self.name = name
        argv, env = split_env(line)
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env,
                                  bufsize=1 << 16)
        self.ident = 0
        self.args = args
        self.errors = 0
        r = self.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "wstools-bench", "version": "1"}})
        if "result" not in r:
            raise SystemExit(f"mcp_run_il: {name}: initialize failed: {r}")
        self.p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.p.stdin.flush()

    def request(self, method, params):
        self.ident += 1
        msg = {"jsonrpc": "2.0", "id": self.ident, "method": method,
               "params": params}
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit(f"mcp_run_il: {self.name}: the server closed "
                                 f"its output (status {self.p.wait()})")
            r = json.loads(line)
            if r.get("id") == self.ident:
                return r

    def once(self):
        t0 = time.perf_counter_ns()
        r = self.request("tools/call", {"name": "run_command",
                                        "arguments": self.args})
        t1 = time.perf_counter_ns()
        if "error" in r or r.get("result", {}).get("isError"):
            self.errors += 1
            if self.errors == 1:
                sys.stderr.write(f"mcp_run_il: {self.name}: {json.dumps(r)[:400]}\n")
        return (t1 - t0) / 1e6

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


class Exec:
    def __init__(self, name, line):
        self.name = name
        self.argv, self.env = split_env(line)
        self.errors = 0
        self.null = os.open(os.devnull, os.O_WRONLY)

    def once(self):
        fa = [(os.POSIX_SPAWN_DUP2, self.null, 1), (os.POSIX_SPAWN_DUP2, self.null, 2)]
        t0 = time.perf_counter_ns()
        pid = os.posix_spawnp(self.argv[0], self.argv, self.env, file_actions=fa)
        _, st = os.waitpid(pid, 0)
        t1 = time.perf_counter_ns()
        if st != 0:
            self.errors += 1
        return (t1 - t0) / 1e6

    def close(self):
        os.close(self.null)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--args", default='{"command":["true"]}')
    ap.add_argument("--server", nargs=2, action="append", default=[],
                    metavar=("NAME", "CMD"))
    ap.add_argument("--exec", nargs=2, action="append", default=[],
                    metavar=("NAME", "CMD"))
    o = ap.parse_args()
    args = json.loads(o.args)
    print("# load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    rows = [Server(n, c, args) for n, c in o.server] + [Exec(n, c) for n, c in o.exec]
    times = {r.name: [] for r in rows}
    for i in range(o.warmup + o.rounds):
        order = rows[:]
        random.shuffle(order)
        for r in order:
            t = r.once()
            if i >= o.warmup:
                times[r.name].append(t)
    bad = 0
    for r in rows:
        v = times[r.name]
        print(f"{r.name}\t{statistics.median(v):.3f}\t{min(v):.3f}\t{len(v)}")
        bad += r.errors
        r.close()
    if bad:
        print(f"# {bad} calls or runs failed", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
