#!/usr/bin/env python3
"""Runs `zfs`/`zpool` commands and writes what each printed as a carve transcript:
{"source": ..., "runs": [{"arguments", "status", "stdout", "stderr"}]} (see README.md).

usage: capture.py SOURCE-TEXT OUT.json < commands (one per line, arguments tab-separated)
"""
import json
import subprocess
import sys

source, out = sys.argv[1:3]
runs = []
for line in sys.stdin:
    arguments = line.rstrip("\n").split("\t")
    if not arguments[0]:
        continue
    done = subprocess.run(["/usr/sbin/" + arguments[0]] + arguments[1:], capture_output=True, text=True,
                          env={"LC_ALL": "C"})
    runs.append({"arguments": arguments, "status": done.returncode, "stdout": done.stdout, "stderr": done.stderr})
with open(out, "w") as file:
    json.dump({"source": source, "runs": runs}, file, indent=1, ensure_ascii=False)
    file.write("\n")
