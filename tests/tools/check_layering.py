#!/usr/bin/env python3
"""check_layering.py ROOT: every #include "folder/..." under ROOT/src is one
that ARCHITECTURE.md's table allows (the CTest unit.layering).

The table's rows look like
    | `src/repair` | responsibility | `doctor`, `loader`, ... |
    | `src/cli` | ... | `app`, `report`, and `probe` from `cli/cmd_probe.cpp` only |
A backticked folder name in the last cell is allowed for the whole folder; one
followed by "from `FILE` only" (or "from `FILE1`, `FILE2` only") is allowed for
those files. Files directly under src/ (main.cpp) count as `cli`.

Fails on: an include the table does not allow, a src folder without a row, a
row without a folder. Before judging the real tree it plants forbidden
includes in copies of real files and requires each to be caught, so that a
checker that lets everything through cannot pass.
"""
import os
import re
import sys

ROW = re.compile(r"^\|\s*`src/([a-z_]+)`\s*\|.*\|\s*(.*?)\s*\|\s*$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
NAME = re.compile(r"`([a-z_]+)`")
ONLY = re.compile(r"`([a-z_]+)` from ((?:`[^`]+`(?:,\s*)?)+) only")


def read_rules(architecture_md):
    """folder -> (allowed folders, {folder: set of files allowed to include it})"""
    rules = {}
    with open(architecture_md, encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line)
            if not m:
                continue
            folder, cell = m.group(1), m.group(2)
            restricted = {}
            for only in ONLY.finditer(cell):
                restricted[only.group(1)] = set(re.findall(r"`([^`]+)`", only.group(2)))
            allowed = set(NAME.findall(ONLY.sub("", cell)))
            rules[folder] = (allowed, restricted)
    return rules


def source_files(src):
    """relative path ('cli/cmd_lock.cpp', 'main.cpp') -> text"""
    files = {}
    for dirpath, _, names in os.walk(src):
        for name in names:
            if name.endswith((".cpp", ".hpp", ".h", ".c")):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    files[os.path.relpath(path, src)] = f.read()
    return files


def folder_of(rel):
    return rel.split("/", 1)[0] if "/" in rel else "cli"


def violations(files, rules):
    out = []
    for rel, text in sorted(files.items()):
        folder = folder_of(rel)
        if folder not in rules:
            out.append(f"src/{rel}: folder '{folder}' has no row in ARCHITECTURE.md")
            continue
        allowed, restricted = rules[folder]
        for target in INCLUDE.findall(text):
            if "/" not in target:
                continue  # a header of the same folder included by file name, or a system-style name
            used = target.split("/", 1)[0]
            if used == folder or used in allowed:
                continue
            if used in restricted and rel in restricted[used]:
                continue
            out.append(f'src/{rel}: includes "{target}": {folder} may not depend on {used}')
    return out


def table_problems(src, rules):
    present = {d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d))}
    out = [f"src/{d}: a folder without a row in ARCHITECTURE.md" for d in sorted(present - set(rules))]
    out += [f"ARCHITECTURE.md: a row for src/{d}, which does not exist" for d in sorted(set(rules) - present)]
    return out


def self_test(files, rules):
    """Each planted include must be reported; returns the problems of the checker."""
    plants = [
        ("util/strings.hpp", '#include "sys/posix.hpp"\n'),           # the core reaching the system layer
        ("elf/elf_object.hpp", '#include "loader/simulator.hpp"\n'),  # a core folder reaching up
        ("sys/posix.hpp", '#include "app/doctor.hpp"\n'),             # an adapter reaching a use case
        ("app/doctor.cpp", '#include "report/doctor_report.hpp"\n'),  # a use case reaching the renderer
        ("cli/cmd_check.cpp", '#include "probe/probe.hpp"\n'),        # the probe from another command
        ("report/table.cpp", '#include "cli/common.hpp"\n'),
    ]
    problems = []
    baseline = len(violations(files, rules))
    for rel, line in plants:
        if rel not in files:
            problems.append(f"self-test: src/{rel} is gone; pick another file to plant in")
            continue
        planted = dict(files)
        planted[rel] = line + files[rel]
        if len(violations(planted, rules)) != baseline + 1:
            problems.append(f"self-test: a planted {line.strip()} in src/{rel} was not reported")
    planted = dict(files)
    planted["newfolder/x.cpp"] = '#include "util/result.hpp"\n'
    if len(violations(planted, rules)) != baseline + 1:
        problems.append("self-test: a file in a folder without a row was not reported")
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    src = os.path.join(root, "src")
    rules = read_rules(os.path.join(root, "ARCHITECTURE.md"))
    if len(rules) < 10:
        print(f"ARCHITECTURE.md: only {len(rules)} rows of the folder table found", file=sys.stderr)
        return 1
    files = source_files(src)
    problems = self_test(files, rules) + table_problems(src, rules) + violations(files, rules)
    for p in problems:
        print(p, file=sys.stderr)
    includes = sum(len(INCLUDE.findall(t)) for t in files.values())
    print(f"{len(files)} files, {includes} includes checked against {len(rules)} folder rules: "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
