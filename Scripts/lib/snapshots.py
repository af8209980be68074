"""Makes COUNT read-only snapshots of MNT/SOURCE in one process with
BTRFS_IOC_SNAP_CREATE_V2: forking `btrfs subvolume snapshot` ten thousand times
would take minutes longer than the measurement.
Usage: snapshots.py MNT SOURCE DIRECTORY COUNT [--btrbk] [--per-directory N]
Names are SOURCE.NNNNN, or with --btrbk btrbk's SOURCE.YYYYMMDDTHHMM, one an hour
back from 2026-11-01 (so retention has days, weeks and months to count). With
--per-directory, every N snapshots go in a numbered subdirectory of DIRECTORY."""
import datetime
import fcntl
import os
import struct
import sys

args = sys.argv[1:]
btrbk = "--btrbk" in args
per_directory = None
if "--per-directory" in args:
    per_directory = int(args[args.index("--per-directory") + 1])
mnt, source, directory, count = args[0], args[1], args[2], int(args[3])

REQUEST = (1 << 30) | (4096 << 16) | (0x94 << 8) | 23  # _IOW(0x94, 23, btrfs_ioctl_vol_args_v2)
READ_ONLY = 1 << 1
newest = datetime.datetime(2026, 11, 1, 0, 0)


def name(index):
    if btrbk:
        return "%s.%s" % (source, (newest - datetime.timedelta(hours=index)).strftime("%Y%m%dT%H%M"))
    return "%s.%05d" % (source, index)


source_fd = os.open(os.path.join(mnt, source), os.O_RDONLY)
target_fd, target_batch = None, None
os.makedirs(os.path.join(mnt, directory), exist_ok=True)
for index in range(count):
    batch = index // per_directory if per_directory else 0
    if batch != target_batch:
        if target_fd is not None:
            os.close(target_fd)
        path = os.path.join(mnt, directory, "%02d" % batch) if per_directory else os.path.join(mnt, directory)
        os.makedirs(path, exist_ok=True)
        target_fd, target_batch = os.open(path, os.O_RDONLY), batch
    encoded = name(index).encode()
    args_v2 = struct.pack("=qQQ4Q", source_fd, 0, READ_ONLY, 0, 0, 0, 0) + encoded + b"\0" * (4040 - len(encoded))
    fcntl.ioctl(target_fd, REQUEST, bytearray(args_v2))
