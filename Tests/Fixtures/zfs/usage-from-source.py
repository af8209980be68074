#!/usr/bin/env python3
"""Prints what `zfs` or `zpool` run without a command prints on stderr (usage(B_FALSE)),
from OpenZFS's own source: the command table and get_usage()'s strings of
cmd/zfs/zfs_main.c or cmd/zpool/zpool_main.c at a tag. carve's transcripts of OpenZFS
2.1-2.3 (Tests/Fixtures/zfs/openzfs-*.json) hold its output; see README.md.

usage: usage-from-source.py REPO TAG zfs|zpool
"""
import re
import subprocess
import sys

repo, tag, tool = sys.argv[1:4]
path = {"zfs": "cmd/zfs/zfs_main.c", "zpool": "cmd/zpool/zpool_main.c"}[tool]
source = subprocess.run(["git", "-C", repo, "show", f"{tag}:{path}"], capture_output=True, text=True, check=True).stdout


def c_strings(text):
    """The concatenated C string literals of `text`, escapes read as C reads them."""
    out = ""
    for literal in re.findall(r'"((?:[^"\\]|\\.)*)"', text):
        out += literal.encode().decode("unicode_escape")
    return out


body = source[source.index("get_usage(" + tool + "_help_t idx)"):]
body = body[: body.index("\n}\n")]
usages = {}
for case in re.finditer(r"case (HELP_\w+):\s*return \((.*?)\);", body, re.S):
    usages[case.group(1)] = c_strings(case.group(2))

table = source[source.index("command_table[] = {"):]
table = table[: table.index("};")]
lines = []
for entry in re.finditer(r"\{\s*(NULL|\"[^\"]+\")\s*(?:,[^}]*?(HELP_\w+))?[^}]*\}", table):
    if entry.group(1) == "NULL":
        lines.append("\n")
    elif entry.group(2):
        lines.append(usages[entry.group(2)])

sys.stdout.write("missing command\n")
sys.stdout.write(f"usage: {tool} command args ...\n")
sys.stdout.write("where 'command' is one of the following:\n\n")
sys.stdout.write("".join(lines))
if tool == "zfs":
    sys.stdout.write("\nEach dataset is of the form: pool/[dataset/]*dataset[@name]\n")
