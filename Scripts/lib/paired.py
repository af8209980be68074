"""Runs two commands in turn, A B A B ..., PAIRS times after one warm-up run of each,
and prints "A_WALL B_WALL RATIO A_CPU B_CPU A_MAXRSS_KIB CPU_RATIO A_USER B_USER": the median wall
and CPU time (user + sys, from wait4) of each, the median of the A/B wall ratios pair
by pair (so that a drift of the machine's speed cancels out), A's peak RSS, and the
median of the A/B CPU ratios pair by pair, and the mean user CPU time of each (the kernel
splits user from system time by its 4 ms ticks: a median of such samples leans to a tick,
their mean does not). Output of the
commands is thrown away; a command that fails stops the run.
Usage: paired.py PAIRS -- COMMAND_A... -- COMMAND_B..."""
import statistics, sys
from timing import timed

pairs = int(sys.argv[1])
rest = sys.argv[3:]
split = rest.index("--")
a, b = rest[:split], rest[split + 1:]
timed(a); timed(b)
results = [(timed(a), timed(b)) for _ in range(pairs)]
median = statistics.median
print("%.4f %.4f %.3f %.4f %.4f %d %.3f %.5f %.5f" % (
    median(x[0] for x, _ in results), median(y[0] for _, y in results),
    median(x[0] / y[0] for x, y in results),
    median(x[1] for x, _ in results), median(y[1] for _, y in results),
    max(x[2] for x, _ in results),
    median(x[1] / y[1] if y[1] > 0 else float("inf") for x, y in results),
    statistics.mean(x[3] for x, _ in results), statistics.mean(y[3] for _, y in results)))
