"""The bench cases' churn: round 0 writes FILES files of 4-7 KiB of random data into
DATA (1,000 directories); each later round rewrites 1% of them in place, chosen by a
generator seeded with the round, so every run makes the same filesystem.
Usage: churn.py DATA FILES ROUND"""
import os, random, sys
data, files, round_ = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(round_)
def write(index):
    directory = "%s/d%03d" % (data, index % 1000)
    if round_ == 0: os.makedirs(directory, exist_ok=True)
    with open("%s/f%07d" % (directory, index), "wb") as f:
        f.write(os.urandom(rng.randint(4, 7) * 1024))
for index in (range(files) if round_ == 0 else rng.sample(range(files), max(1, files // 100))):
    write(index)
