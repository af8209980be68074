#!/usr/bin/env python3
"""Declarations nobody uses: every type, function, property and enum case declared at
file scope or in a type's body in Sources/ whose name occurs nowhere else in Sources/,
Tests/ or Fuzz/ (comments and string text left out). Prints `path:line: name` for
each and exits 1.

    unused-declarations.py [ROOT]

A name is used when it occurs more often than it is declared: overloads and a
protocol's requirement with its implementations count as one name. What a library
or the compiler calls without naming it is not reported (ALLOWED, ATTRIBUTES).
"""

import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swiftsource  # noqa: E402

SCANNED = ["Sources", "Tests", "Fuzz"]
# Called by a library or the runtime, never by name in carve's code.
ALLOWED = {
    "main", "run", "validate", "configuration",  # ArgumentParser's command, @main
    "CodingKeys", "encode",  # Codable
    "description", "hash",  # CustomStringConvertible, Hashable
    "LLVMFuzzerTestOneInput",  # libFuzzer's entry point
}
# Properties ArgumentParser fills in by reflection.
ATTRIBUTES = {"Option", "Flag", "Argument", "OptionGroup"}
# A case of such an enum may be made from text or listed, not named.
ENUM_CONFORMANCES = {"CaseIterable", "String", "Int", "UInt8", "Int32", "UInt32", "Codable", "Decodable",
                     "ExpressibleByArgument", "EnumerableFlag"}
# A stored property of such a type is written or read by its coding, not by name.
CODED = {"Codable", "Encodable", "Decodable"}


def swift_files(root, top):
    for dirpath, dirs, names in os.walk(os.path.join(root, top)):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(dirpath, name)


def exempt(d):
    if d.name in ALLOWED or d.keyword == "generic" or d.name.startswith("_") or set(d.attributes) & ATTRIBUTES:
        return True
    header = set(d.owner_header)
    if d.keyword == "case" and header & ENUM_CONFORMANCES:
        return True
    return d.keyword in ("let", "var") and bool(header & CODED)


def main(argv):
    root = argv[0] if argv else "."
    counts, found = Counter(), []
    for top in SCANNED:
        for path in swift_files(root, top):
            with open(path, encoding="utf-8") as f:
                toks = swiftsource.tokens(f.read())
            counts.update(t.text for t in toks if t.ident)
            if top == "Sources":
                rel = os.path.relpath(path, root)
                found += [(rel, d) for d in swiftsource.declarations(toks) if d.top_level or d.member]
    declared = Counter(d.name for _, d in found)
    unused = [(rel, d) for rel, d in found if counts[d.name] <= declared[d.name] and not exempt(d)]
    for rel, d in unused:
        print(f"{rel}:{d.line}: {d.keyword} {d.name} is used nowhere")
    return 1 if unused else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
