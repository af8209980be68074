"""One timed run of a command, for the bench helpers (repeat.py, paired.py): its output
thrown away, its wall time, its CPU time (user + sys, from wait4 in microseconds, where
time(1) rounds to 10 ms steps), its peak RSS in KiB and its user CPU time alone. A command that fails stops the run."""
import os, sys, time

def timed(command):
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1); os.dup2(devnull, 2)
        os.execvp(command[0], command)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if status != 0: sys.exit("bench: %s failed (%d)" % (command[0], os.waitstatus_to_exitcode(status)))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, usage.ru_utime
