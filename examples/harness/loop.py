#!/usr/bin/env python3
"""loop.py - the same harness loop as loop.sh, in Python.

Reads tool calls (one JSON object per line: id, name, arguments) on standard
input and prints one result line per call.  Tool definitions for the model
come from `wstools schemas`; the workspace comes from WS_ROOT, set by the
harness and never by the model.

    WS_ROOT=/path/to/project python3 examples/harness/loop.py < calls.jsonl
"""
import json
import os
import subprocess
import sys


def tools():
    """The function-calling definitions to give the model."""
    out = subprocess.run(["wstools", "schemas"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def call(name, arguments):
    """Run one tool call; returns (exit status, the tool's JSON result)."""
    env = dict(os.environ, WS_PATHS=os.environ.get("WS_PATHS", "virtual"))
    p = subprocess.run(["wstools", "call", name, "-"], env=env,
                       input=json.dumps(arguments), capture_output=True,
                       text=True)
    # Every outcome is one JSON object on stdout, failures included:
    # {"success": false, "error": {"code": ..., "message": ..., "hint": ...}}
    return p.returncode, json.loads(p.stdout)


def main():
    names = {t["function"]["name"] if "function" in t else t["name"]
             for t in tools()}
    for line in sys.stdin:
        if not line.strip():
            continue
        c = json.loads(line)
        if c["name"] not in names:
            print(json.dumps({"id": c["id"], "ok": False,
                              "result": {"error": {"code": "UNKNOWN_TOOL"}}}))
            continue
        status, result = call(c["name"], c["arguments"])
        print(json.dumps({"id": c["id"], "ok": result["success"],
                          "exit": status, "result": result},
                         separators=(",", ":")))


if __name__ == "__main__":
    main()
