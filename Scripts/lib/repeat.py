"""Runs COMMAND REPEAT times in a row (one run takes tens of milliseconds, below what
time(1) resolves) and prints "WALL CPU MAXRSS_KIB": the wall and CPU time (user +
sys, from wait4 in microseconds) of one run on average, and the peak RSS.
Usage: repeat.py REPEAT COMMAND [ARG...]"""
import os, sys, time
repeat, command = int(sys.argv[1]), sys.argv[2:]
wall = cpu = 0.0
peak = 0
for _ in range(repeat):
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1); os.dup2(devnull, 2)
        os.execvp(command[0], command)
    _, status, usage = os.wait4(pid, 0)
    wall += time.perf_counter() - start
    if status != 0: sys.exit("bench: %s failed (%d)" % (command[0], status))
    cpu += usage.ru_utime + usage.ru_stime
    peak = max(peak, usage.ru_maxrss)
print("%.4f %.4f %d" % (wall / repeat, cpu / repeat, peak))
