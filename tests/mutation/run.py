#!/usr/bin/env python3
"""run.py [--only ID,ID] [--work DIR]: the mutation score of the core rules.

Copies the checkout (tracked and untracked, not ignored files) to a scratch
folder, builds it once, then for each mutant of tests/mutation/mutants.py:
applies it, rebuilds (incrementally), runs the CTest suites it names, and
reverts it. A mutant is killed when a suite fails, survives when all pass;
one whose text is not found (exactly once) is stale, one that does not
compile is invalid: both mean the set needs updating. Exits 1 unless every
mutant is killed. Not part of tests/run.sh (about 1-2 minutes a mutant on 2
cores); run it before resolving a change to the core and keep the score in
the README.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from mutants import MUTANTS  # noqa: E402


def sh(cmd, cwd, log):
    with open(log, "a") as out:
        out.write(f"\n$ {' '.join(cmd)}\n")
        out.flush()
        return subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT).returncode


def copy_checkout(dest):
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = os.path.join(ROOT, rel)
        if not os.path.lexists(src):
            continue
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.islink(src):
            if os.path.lexists(target):
                os.unlink(target)
            os.symlink(os.readlink(src), target)
        elif not os.path.exists(target) or open(src, "rb").read() != open(target, "rb").read():
            shutil.copy2(src, target)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="", help="comma-separated mutant ids")
    parser.add_argument("--work", default="/tmp/condacuda-mutation", help="scratch copy and its build (kept between runs)")
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if not args.only or m["id"] in args.only.split(",")]
    src, build, log = os.path.join(args.work, "src"), os.path.join(args.work, "build"), os.path.join(args.work, "log.txt")
    os.makedirs(src, exist_ok=True)
    open(log, "w").close()
    copy_checkout(src)
    gen = ["-G", "Ninja"] if shutil.which("ninja") and not os.path.exists(os.path.join(build, "CMakeCache.txt")) else []
    if sh(["cmake", "-S", src, "-B", build, *gen, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], src, log) != 0 or \
       sh(["cmake", "--build", build, "-j2"], src, log) != 0:
        print(f"the unmutated tree does not build (see {log})")
        return 2
    results = []
    for m in chosen:
        path = os.path.join(src, m["file"])
        original = open(path).read()
        start = time.time()
        if original.count(m["find"]) != 1:
            results.append((m, "stale", 0.0))
            continue
        open(path, "w").write(original.replace(m["find"], m["replace"]))
        try:
            if sh(["cmake", "--build", build, "-j2"], src, log) != 0:
                verdict = "invalid"
            else:
                status = sh(["ctest", "-R", m["tests"], "-j2", "--timeout", "600"], build, log)
                verdict = "killed" if status != 0 else "SURVIVED"
        finally:
            open(path, "w").write(original)
            os.utime(path)  # the next build compiles the original again
        results.append((m, verdict, time.time() - start))
        print(f"{m['id']:40} {verdict:9} {results[-1][2]:6.0f} s", flush=True)
    sh(["cmake", "--build", build, "-j2"], src, log)
    killed = sum(1 for _, v, _ in results if v == "killed")
    print(f"\nmutation score: {killed} of {len(results)} mutants killed (log: {log})")
    for m, verdict, _ in results:
        if verdict != "killed":
            print(f"  {verdict}: {m['id']} -- {m['rule']} ({m['file']}; tests {m['tests']})")
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
