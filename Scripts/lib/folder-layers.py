#!/usr/bin/env python3
"""The folders of a module are layers: Support/ uses no other folder of its module,
and no two folders use each other, directly or around a cycle.

    folder-layers.py [--graph] [--bottom-only] Sources/CarveCore [Sources/CarveCLI ...]

A folder uses another when one of its files names something the other declares at
file scope (a type, protocol, typealias, function or constant, not private). A name
declared in two folders, or a file's own generic parameter or nested type, says
nothing about folders and is left out. Prints one line per cycle, with the names
that make it, and exits 1; --graph prints every folder's uses. --bottom-only checks
Support/ alone (CarveCLI's and CarveLinux's folders still use each other).
"""

import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swiftsource  # noqa: E402

BOTTOM = "Support"
MODULES = {"CarveCore", "CarveLinux", "CarveCLI", "CarveTestSupport"}
# Names a protocol's associated type or the standard library gives meaning in any file
# (`Element` of a Sequence): a folder declaring one at file scope is not used by them.
STANDARD = {"Element", "Index", "Iterator", "Key", "Value", "Result", "Failure", "Body", "SubSequence"}


def folder_of(module_dir, path):
    parts = os.path.relpath(path, module_dir).split(os.sep)
    return parts[0] if len(parts) > 1 else "."


def read_module(module_dir):
    files = {}
    for dirpath, _, names in os.walk(module_dir):
        for name in sorted(names):
            if name.endswith(".swift"):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    toks = swiftsource.tokens(f.read())
                files[path] = (toks, swiftsource.declarations(toks))
    return files


def uses(module_dir, files):
    """For each folder, the other folders it uses and through which names."""
    declared = defaultdict(set)  # name -> folders
    for path, (_, decls) in files.items():
        for d in decls:
            if d.top_level and not d.private and d.keyword not in ("case", "generic"):
                declared[d.name].add(folder_of(module_dir, path))
    owner = {name: next(iter(fs)) for name, fs in declared.items() if len(fs) == 1 and name not in STANDARD}
    graph = defaultdict(lambda: defaultdict(set))  # folder -> folder -> {(name, file)}
    for path, (toks, decls) in files.items():
        here = folder_of(module_dir, path)
        shadowed = {d.name for d in decls if not d.top_level}
        for k, t in enumerate(toks):
            if not t.ident or t.text not in owner or t.text in shadowed:
                continue
            prev = toks[k - 1].text if k else ""
            if prev == "." and not (k > 1 and toks[k - 2].text in MODULES):
                continue  # a member of something else
            if k + 1 < len(toks) and toks[k + 1].text == ":" and t.text[0].islower():
                continue  # an argument label
            there = owner[t.text]
            if there != here:
                graph[here][there].add((t.text, os.path.relpath(path, module_dir)))
    return graph


def cycles(graph):
    """Each elementary cycle once, from Tarjan's strongly connected components: within
    a component, the shortest cycle through each edge."""
    nodes = sorted(set(graph) | {b for a in graph for b in graph[a]})
    found = set()
    for a in nodes:
        for b in sorted(graph.get(a, {})):
            path = shortest(graph, b, a)
            if path:
                cycle = [a] + path[:-1]
                start = cycle.index(min(cycle))
                found.add(tuple(cycle[start:] + cycle[:start]))
    return sorted(found, key=lambda c: (len(c), c))


def shortest(graph, start, goal):
    frontier, seen = [[start]], {start}
    while frontier:
        nxt = []
        for path in frontier:
            if path[-1] == goal:
                return path
            for b in sorted(graph.get(path[-1], {})):
                if b not in seen:
                    seen.add(b)
                    nxt.append(path + [b])
        frontier = nxt
    return None


def names(graph, a, b, limit=6):
    shown = sorted({n for n, _ in graph[a][b]})
    more = f" +{len(shown) - limit}" if len(shown) > limit else ""
    return ", ".join(shown[:limit]) + more


def check(module_dir, show_graph, bottom_only):
    module = os.path.basename(os.path.normpath(module_dir))
    graph = uses(module_dir, read_module(module_dir))
    problems = []
    for there in sorted(graph.get(BOTTOM, {})):
        problems.append(f"{module}: {BOTTOM}/ uses {there}/ ({names(graph, BOTTOM, there)}); "
                        f"{BOTTOM}/ is the bottom layer")
    for cycle in [] if bottom_only else cycles(graph):
        hops = " -> ".join(f"{a}/ ({names(graph, a, b)})" for a, b in zip(cycle, cycle[1:] + cycle[:1]))
        problems.append(f"{module}: folder cycle {hops} -> {cycle[0]}/")
    if show_graph:
        for a in sorted(graph):
            for b in sorted(graph[a]):
                files = sorted({f for _, f in graph[a][b]})
                print(f"{module}: {a}/ -> {b}/: {names(graph, a, b, 12)}  [{', '.join(files[:4])}]")
    return problems


def main(argv):
    flags = {a for a in argv if a.startswith("--")}
    dirs = [a for a in argv if not a.startswith("--")]
    if not dirs or flags - {"--graph", "--bottom-only"}:
        sys.exit(__doc__)
    problems = [p for d in dirs for p in check(d, "--graph" in flags, "--bottom-only" in flags)]
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
