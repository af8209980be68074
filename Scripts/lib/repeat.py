"""Runs COMMAND REPEAT times in a row (one run takes tens of milliseconds, below what
time(1) resolves) and prints "WALL CPU MAXRSS_KIB": the wall and CPU time (user +
sys, from wait4 in microseconds) of one run on average, and the peak RSS.
Usage: repeat.py REPEAT COMMAND [ARG...]"""
import sys
from timing import timed
repeat, command = int(sys.argv[1]), sys.argv[2:]
runs = [timed(command) for _ in range(repeat)]
print("%.4f %.4f %d" % (sum(r[0] for r in runs) / repeat, sum(r[1] for r in runs) / repeat, max(r[2] for r in runs)))
