"""Runs two commands in turn, A B A B ..., PAIRS times after one warm-up run of each,
and prints "A_WALL B_WALL RATIO A_CPU B_CPU A_MAXRSS_KIB": the median wall and CPU
time (user + sys, from wait4) of each, the median of the A/B wall ratios pair by pair
(so that a drift of the machine's speed cancels out), and A's peak RSS. Output of the
commands is thrown away; a command that fails stops the run.
Usage: paired.py PAIRS -- COMMAND_A... -- COMMAND_B..."""
import os, statistics, sys, time

def run(command):
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1); os.dup2(devnull, 2)
        os.execvp(command[0], command)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if status != 0: sys.exit("bench: %s exited %d" % (" ".join(command), os.waitstatus_to_exitcode(status)))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss

pairs = int(sys.argv[1])
rest = sys.argv[3:]
split = rest.index("--")
a, b = rest[:split], rest[split + 1:]
run(a); run(b)
results = [(run(a), run(b)) for _ in range(pairs)]
median = statistics.median
print("%.4f %.4f %.3f %.4f %.4f %d" % (
    median(x[0] for x, _ in results), median(y[0] for _, y in results),
    median(x[0] / y[0] for x, y in results),
    median(x[1] for x, _ in results), median(y[1] for _, y in results),
    max(x[2] for x, _ in results)))
