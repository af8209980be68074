#!/usr/bin/env python3
"""Writes openzfs-2.1.json, openzfs-2.2.json and openzfs-2.3.json: transcripts of what
OpenZFS's `zfs` and `zpool` print for one pool, in the formats of their source at the
tags below (README.md says which function prints what). The usage texts are generated
from each tag's source (usage-from-source.py); the rest is the same pool in each.

usage: openzfs-transcripts.py OPENZFS-REPO
"""
import calendar
import json
import subprocess
import sys

repo = sys.argv[1]
TAGS = {"2.1": "zfs-2.1.16", "2.2": "zfs-2.2.7", "2.3": "zfs-2.3.4"}
PROPS = "name,type,guid,creation,used,referenced,userrefs,origin,clones,defer_destroy"
LIST = ["zfs", "list", "-H", "-p", "-t", "filesystem,volume,snapshot", "-o", PROPS]


def epoch(text):
    return calendar.timegm(__import__("time").strptime(text, "%Y-%m-%d %H:%M:%S"))


# The pool: name, type, guid, creation, used, referenced, available, userrefs, origin, clones.
datasets = [
    ("tank", "filesystem", 1001, "2026-11-01 00:00:00", 9437184, 131072, 500000000, "-", "-", "-"),
    ("tank/auto", "filesystem", 1002, "2026-11-01 00:00:00", 3276800, 131072, 500000000, "-", "-", "-"),
    ("tank/plain", "filesystem", 1003, "2026-11-01 00:00:00", 2293760, 131072, 500000000, "-", "-", "-"),
    ("tank/sanoid", "filesystem", 1004, "2026-11-01 00:00:00", 2621440, 131072, 500000000, "-", "-", "-"),
    ("tank/work", "filesystem", 1005, "2026-11-19 12:30:00", 0, 196608, 500000000, "-", "tank/plain@base", "-"),
]
snapshots = [
    ("tank/auto@zfs-auto-snap_daily-2026-11-20-0000", 2001, "2026-11-20 00:00:00", 655360, 196608, 0, "-"),
    ("tank/auto@zfs-auto-snap_daily-2026-11-21-0000", 2002, "2026-11-21 00:00:00", 655360, 196608, 0, "-"),
    ("tank/auto@zfs-auto-snap_daily-2026-11-22-0000", 2003, "2026-11-22 00:00:00", 655360, 196608, 0, "-"),
    ("tank/auto@zfs-auto-snap_hourly-2026-11-22-0900", 2004, "2026-11-22 09:00:00", 655360, 196608, 0, "-"),
    ("tank/auto@zfs-auto-snap_hourly-2026-11-22-1000", 2005, "2026-11-22 10:00:00", 655360, 196608, 0, "-"),
    ("tank/plain@base", 2101, "2026-11-19 12:00:00", 65536, 196608, 0, "tank/work"),
    ("tank/plain@held", 2102, "2026-11-19 13:00:00", 524288, 196608, 1, "-"),
    ("tank/plain@syncoid_host1_2026-11-21:00:00:00-GMT00:00", 2103, "2026-11-21 00:00:00", 524288, 196608, 0, "-"),
    ("tank/plain@syncoid_host1_2026-11-22:00:00:00-GMT00:00", 2104, "2026-11-22 00:00:00", 524288, 196608, 0, "-"),
    ("tank/plain@before upgrade", 2105, "2026-11-22 12:00:00", 655360, 196608, 0, "-"),
    ("tank/sanoid@autosnap_2026-11-20_00:00:01_daily", 2201, "2026-11-20 00:00:01", 655360, 196608, 0, "-"),
    ("tank/sanoid@autosnap_2026-11-21_00:00:01_daily", 2202, "2026-11-21 00:00:01", 655360, 196608, 0, "-"),
    ("tank/sanoid@autosnap_2026-11-22_00:00:01_daily", 2203, "2026-11-22 00:00:01", 655360, 196608, 0, "-"),
    ("tank/sanoid@autosnap_2026-11-22_09:00:01_hourly", 2204, "2026-11-22 09:00:01", 655360, 196608, 0, "-"),
]


def dataset_row(entry):
    name, kind, guid, created, used, referenced, available, userrefs, origin, clones = entry
    # print_dataset with -H -p: tab-separated, `-` for what does not apply (userrefs,
    # clones and defer_destroy are a snapshot's).
    return "\t".join([name, kind, str(guid), str(epoch(created)), str(used), str(referenced), userrefs, origin,
                      clones, "-"])


def snapshot_row(entry):
    name, guid, created, used, referenced, userrefs, clones = entry
    return "\t".join([name, "snapshot", str(guid), str(epoch(created)), str(used), str(referenced), str(userrefs),
                      "-", clones, "off"])


def by_name(name):
    return next(s for s in snapshots if s[0] == name)


# zfs list sorts by name, a dataset's snapshots by createtxg (zfs_main.c, zfs_sort_by_name).
rows = []
for dataset in datasets:
    rows.append(dataset_row(dataset))
    mine = [s for s in snapshots if s[0].split("@")[0] == dataset[0]]
    rows += [snapshot_row(s) for s in sorted(mine, key=lambda s: s[1])]
listing = "\n".join(rows) + "\n"
plain_listing = "".join(row + "\n" for row in rows if row.split("\t")[0].split("@")[0] == "tank/plain")


def run(arguments, stdout="", stderr="", status=0):
    return {"arguments": arguments, "status": status, "stdout": stdout, "stderr": stderr}


def usage(tag, tool):
    text = subprocess.run([sys.executable, "usage-from-source.py", repo, tag, tool], capture_output=True,
                          text=True, check=True).stdout
    return run([tool], stderr=text, status=2)


def get_usage(tag):
    # zfs get without a property: "missing property argument", its usage and the property
    # table (usage_prop_cb), abridged to the rows of the properties carve reads.
    help_get = subprocess.run(["git", "-C", repo, "show", f"{tag}:cmd/zfs/zfs_main.c"], capture_output=True,
                              text=True, check=True).stdout
    start = help_get.index("case HELP_GET:")
    literal = help_get[start:help_get.index(");", start)]
    import re
    text = "".join(s.encode().decode("unicode_escape") for s in re.findall(r'"((?:[^"\\]|\\.)*)"', literal))
    table = [("available", False, False, "<size>"), ("clones", False, False, "<dataset>[,...]"),
             ("creation", False, False, "<date>"), ("defer_destroy", False, False, "yes | no"),
             ("guid", False, False, "<uint64>"), ("origin", False, False, "<snapshot>"),
             ("referenced", False, False, "<size>"), ("type", False, False, "filesystem | volume | snapshot | bookmark"),
             ("used", False, False, "<size>"), ("userrefs", False, False, "<count>")]
    lines = "".join("\t%-15s %s%s%s\n" % (name, "YES    " if edit else " NO    ", "  YES   " if inherit else "   NO   ",
                                             values) for name, edit, inherit, values in table)
    out = ("missing property argument\nusage:\n" + text + "\nThe following properties are supported:\n\n"
           + "\t%-14s %s  %s   %s\n\n" % ("PROPERTY", "EDIT", "INHERIT", "VALUES") + lines)
    return run(["zfs", "get"], stderr=out, status=2)


def names(dataset, wanted):
    return [f"{dataset}@{name}" for name in wanted]


def listed(names_):
    return run(LIST + names_, "".join(snapshot_row(by_name(n)) + "\n" for n in names_))


auto = ["zfs-auto-snap_daily-2026-11-20-0000", "zfs-auto-snap_daily-2026-11-21-0000",
        "zfs-auto-snap_daily-2026-11-22-0000", "zfs-auto-snap_hourly-2026-11-22-0900",
        "zfs-auto-snap_hourly-2026-11-22-1000"]
sanoid = ["autosnap_2026-11-20_00:00:01_daily", "autosnap_2026-11-21_00:00:01_daily",
          "autosnap_2026-11-22_00:00:01_daily", "autosnap_2026-11-22_09:00:01_hourly"]
plain = ["syncoid_host1_2026-11-21:00:00:00-GMT00:00", "before upgrade"]
# What --keep-daily 2 leaves to delete, each dataset's part in the plan's order.
keep_auto = ["zfs-auto-snap_daily-2026-11-20-0000", "zfs-auto-snap_hourly-2026-11-22-0900"]
keep_sanoid = ["autosnap_2026-11-20_00:00:01_daily"]


def destroy(dataset, wanted, dry_run=False):
    argument = f"{dataset}@" + ",".join(wanted)
    if not dry_run:
        return run(["zfs", "destroy", argument])
    # zfs_do_destroy with -n -v -p: "destroy\tNAME" per snapshot (destroy_print_cb),
    # then "reclaim\tBYTES" (lzc_snaprange_space over each run of them).
    freed = sum(by_name(n)[3] for n in names(dataset, wanted)) + 131072
    return run(["zfs", "destroy", "-n", "-v", "-p", argument],
               "".join(f"destroy\t{n}\n" for n in names(dataset, wanted)) + f"reclaim\t{freed}\n")


for version, tag in TAGS.items():
    commit = subprocess.run(["git", "-C", repo, "rev-parse", tag + "^{commit}"], capture_output=True, text=True,
                            check=True).stdout.strip()
    runs = [
        usage(tag, "zfs"), get_usage(tag), usage(tag, "zpool"),
        # zpool list -H -o: print_pool, tab-separated.
        run(["zpool", "list", "-H", "-o", "name,guid,health"], "tank\t8888\tONLINE\n"),
        run(LIST + ["-r", "tank"], listing),
        run(LIST + ["-r", "tank/plain"], plain_listing),
        # Each dataset's origin and a user property none has set (`-`, print_dataset).
        run(["zfs", "list", "-H", "-t", "filesystem,volume", "-o", "name,origin,org.znapzend:tsformat", "-r", "tank"],
            "".join(f"{d[0]}\t{d[8]}\t-\n" for d in datasets)),
        run(["zfs", "list", "-H", "-o", "name", "tank"], "tank\n"),
        run(["zfs", "list", "-H", "-o", "name", "tank/plain"], "tank/plain\n"),
        run(["zfs", "list", "-H", "-o", "name", "tank/plain@held"], "tank/plain@held\n"),
        run(["zfs", "list", "-H", "-o", "name", "tank/plain@base"], "tank/plain@base\n"),
        run(["zfs", "list", "-H", "-o", "name", "tank/nope"], stderr="cannot open 'tank/nope': dataset does not exist\n",
            status=1),
        run(["zfs", "list", "-H", "-o", "name", "tank/plain@nope"],
            stderr="cannot open 'tank/plain@nope': dataset does not exist\n", status=1),
        # print_holds with -H: NAME, TAG and the time (STRFTIME_FMT_STR, "%a %b %e %H:%M %Y").
        run(["zfs", "holds", "-H", "tank/plain@held"], "tank/plain@held\tkeep\tThu Nov 19 13:00 2026\n"),
        listed(names("tank/auto", auto)), listed(names("tank/sanoid", sanoid)), listed(names("tank/plain", plain)),
        listed(names("tank/auto", keep_auto)), listed(names("tank/sanoid", keep_sanoid)),
        listed(["tank/plain@held"]), listed(["tank/plain@base"]),
        destroy("tank/auto", auto), destroy("tank/sanoid", sanoid), destroy("tank/plain", plain),
        destroy("tank/auto", keep_auto), destroy("tank/sanoid", keep_sanoid),
        destroy("tank/auto", auto, True), destroy("tank/sanoid", sanoid, True), destroy("tank/plain", plain, True),
        destroy("tank/auto", auto[:1], True), destroy("tank/sanoid", sanoid[:1], True),
        # zpool get -H -p -o value: get_callback; freeing counts down as the pool frees.
        run(["zpool", "get", "-H", "-p", "-o", "value", "freeing", "tank"], "1638400\n"),
        run(["zpool", "get", "-H", "-p", "-o", "value", "freeing", "tank"], "0\n"),
        run(["zfs", "get", "-H", "-p", "-o", "value", "used,available", "tank"], "9437184\n500000000\n"),
        # Named, a held snapshot and a clone's origin are refused by zfs as zfs_do_destroy reports it.
        # (zfs_destroy_snaps_nvl: "cannot destroy snapshot %s" and zfs_standard_error's EBUSY text;
        # destroy_check_dependent: "cannot destroy '%s': %s has dependent clones" and the clones).
        run(["zfs", "destroy", "tank/plain@held"], stderr="cannot destroy snapshot tank/plain@held: dataset is busy\n",
            status=1),
        run(["zfs", "destroy", "tank/plain@base"],
            stderr="cannot destroy 'tank/plain@base': snapshot has dependent clones\n"
                   "use '-R' to destroy the following datasets:\ntank/work\n", status=1),
    ]
    source = (f"OpenZFS {tag} (openzfs/zfs commit {commit}): usage texts from cmd/zfs/zfs_main.c and "
              f"cmd/zpool/zpool_main.c at that commit (usage-from-source.py; the property table abridged); "
              f"the pool's output in the formats of zfs_main.c (print_dataset -H -p, print_holds -H, "
              f"zfs_do_destroy -n -v -p) and zpool_main.c (print_pool -H, get_callback -H -p), "
              f"written by openzfs-transcripts.py")
    with open(f"openzfs-{version}.json", "w") as file:
        json.dump({"source": source, "runs": runs}, file, indent=1, ensure_ascii=False)
        file.write("\n")
