#!/usr/bin/env python3
"""Names every test a `swift test` run skipped or cancelled, with its reason, read
from the run's output (Swift Testing marks both with `➜`; its xUnit file records no
cancellation). Under CI=true any such test fails: a machine without loop devices or
a reference tool must not pass by skipping what it could not run.
Usage: skipped-tests.py OUTPUT   exit 1 under CI=true when a test was skipped or cancelled."""
import os
import re
import sys

colour = re.compile(r"\x1b\[[0-9;]*m")
marked = re.compile(r'^➜ (?P<test>.*?) (?P<what>skipped|was cancelled)(?: after [0-9.]+ seconds?)?(?:: "(?P<why>.*)")?$')

found = []
with open(sys.argv[1], encoding="utf-8", errors="replace") as output:
    for line in output:
        match = marked.match(colour.sub("", line).rstrip("\n"))
        if match:
            why = match["why"] or "no reason given"
            found.append(f"{match['test']} {match['what'].replace('was ', '')}: {why}")

if found:
    ci = os.environ.get("CI") == "true"
    print(f"test: {len(found)} test(s) skipped or cancelled{' (CI=true: a failure)' if ci else ''}:", file=sys.stderr)
    for entry in found:
        print(f"  {entry}", file=sys.stderr)
    sys.exit(1 if ci else 0)
