#!/usr/bin/env python3
"""check_current.py ROOT: the mutation set still fits the code (issue 52).

A mutant whose `find` text is no longer in its file exactly once is stale:
run.py can only report it, never score it, and the set's score in the README
would quietly stop meaning what it says. Run by CTest (unit.mutants_current)
on every change, without a build: each mutant's file exists and holds its
text exactly once, its replacement differs, ids are unique, and its `tests`
regex names at least one suite the project registers (unit.* from
tests/unit/*.cpp, unit.layering, unit.mutants_current, e2e/shell/gpu/bench.*
from their test_*.sh).
"""
import glob
import os
import re
import sys


def suites(root):
    names = {"unit.layering", "unit.mutants_current"}
    names |= {"unit." + os.path.basename(p)[:-4] for p in glob.glob(os.path.join(root, "tests/unit/*.cpp"))}
    for suite in ("e2e", "shell", "gpu", "bench"):
        names |= {suite + "." + os.path.basename(p)[5:-3] for p in glob.glob(os.path.join(root, "tests", suite, "test_*.sh"))}
    return names


def problems(root, mutants):
    out, seen, known = [], set(), suites(root)
    for m in mutants:
        mid = m["id"]
        if mid in seen:
            out.append("%s: the id is used twice" % mid)
        seen.add(mid)
        path = os.path.join(root, m["file"])
        if not os.path.isfile(path):
            out.append("%s: %s does not exist" % (mid, m["file"]))
            continue
        n = open(path, encoding="utf-8").read().count(m["find"])
        if n != 1:
            out.append("%s: stale: its text is in %s %d times, not once (update it with the code)" % (mid, m["file"], n))
        if m["find"] == m["replace"]:
            out.append("%s: the replacement is the text itself" % mid)
        if not any(re.search(m["tests"], name) for name in known):
            out.append("%s: its tests %r name no registered suite" % (mid, m["tests"]))
    return out


def main(root):
    sys.path.insert(0, os.path.join(root, "tests", "mutation"))
    from mutants import MUTANTS  # noqa: E402
    found = problems(root, MUTANTS)
    for p in found:
        print("FAIL: " + p, file=sys.stderr)
    if found:
        return 1
    print("# %d mutants, each text once in its file, each aimed at registered suites" % len(MUTANTS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
