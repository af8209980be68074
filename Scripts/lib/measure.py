"""Runs a command and writes "WALL CPU MAXRSS_KIB" for it alone to OUT_FILE:
wait4's rusage has microseconds, where time(1) rounds CPU to 10 ms steps.
Usage: measure.py OUT_FILE COMMAND [ARG...]; exits with the command's status."""
import os
import sys
import time

start = time.monotonic()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
wall = time.monotonic() - start
with open(sys.argv[1], "w") as out:
    out.write(f"{wall:.4f} {usage.ru_utime + usage.ru_stime:.4f} {usage.ru_maxrss}\n")
sys.exit(os.waitstatus_to_exitcode(status))
