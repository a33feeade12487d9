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
        # A line that is not a call gets an error result; the loop goes on.
        try:
            c = json.loads(line)
            name, args = c["name"], c.get("arguments", {})
            # Some APIs send the arguments as a JSON string: decode it.
            if isinstance(args, str):
                args = json.loads(args)
        except (ValueError, KeyError, TypeError):
            c, name, args = {}, None, None
        if name not in names or not isinstance(args, dict):
            code = "UNKNOWN_TOOL" if name is not None else "INVALID_CALL"
            print(json.dumps({"id": c.get("id") if isinstance(c, dict) else None,
                              "ok": False, "exit": None,
                              "result": {"error": {"code": code}}}))
            continue
        status, result = call(name, args)
        print(json.dumps({"id": c.get("id"), "ok": result["success"],
                          "exit": status, "result": result},
                         separators=(",", ":")))


if __name__ == "__main__":
    main()
