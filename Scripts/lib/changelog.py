#!/usr/bin/env python3
"""NEWS.md as a Debian changelog (newest version first): each `## VERSION` heading
and the `- ` items under it.
Usage: changelog.py NEWS.md NEWEST_DATE FIRST_DATE  (dates as `date -R` writes them):
the newest version carries NEWEST_DATE, the others FIRST_DATE (the first commit's)."""
import re
import sys

news, newest, first = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(news, encoding="utf-8").read()
versions = re.findall(r"^## (\d+\.\d+\.\d+)\n\n?((?:- .*\n(?:  .*\n)*)+)", text, re.M)
if not versions:
    sys.exit(f"changelog: {news} has no '## VERSION' heading followed by '- ' items")
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
