#!/usr/bin/env python3
"""The README's "Changes" section as a Debian changelog (newest version first).
Usage: changelog.py README.md NEWEST_DATE FIRST_DATE  (dates as `date -R` writes them):
the newest version carries NEWEST_DATE, the others FIRST_DATE (the first commit's)."""
import re
import sys

readme, newest, first = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(readme, encoding="utf-8").read()
section = re.search(r"^## Changes\n(.*?)(?=^## )", text, re.S | re.M)
if not section:
    sys.exit("changelog: README.md has no '## Changes' section")
versions = re.findall(r"^(\d+\.\d+\.\d+)\n((?:- .*\n(?:  .*\n)*)+)", section.group(1), re.M)
if not versions:
    sys.exit("changelog: no versions under '## Changes'")
for position, (version, body) in enumerate(versions):
    date = newest if position == 0 else first
    print(f"carve ({version}) unstable; urgency=medium\n")
    for item in re.split(r"^- ", body, flags=re.M)[1:]:
        words = re.sub(r"\s+", " ", item.replace("**", "").replace("`", "")).strip()
        line, lines = "  *", []
        for word in words.split(" "):
            if len(line) + 1 + len(word) > 78:
                lines.append(line)
                line = "   "
            line += " " + word
        lines.append(line)
        print("\n".join(lines))
    print(f"\n -- The carve developers <carve@lists.example.org>  {date}\n")
