#!/usr/bin/env python3
"""run.py [--only ID,ID] [--work DIR | --in-place BUILD]: the mutation score of the core rules.

With --in-place BUILD, the checkout itself is mutated and BUILD (an existing
build of it, e.g. build/) rebuilt incrementally: no second full build (about
25 s a mutant here instead of a full build first). Each file is restored
after its mutant, also on Ctrl-C; a SIGKILL can leave one mutated (`git
status` shows it).

Copies the checkout (tracked and untracked, not ignored files) to a scratch
folder, builds it once, then for each mutant of tests/mutation/mutants.py:
applies it, rebuilds (incrementally), runs the CTest suites it names, and
reverts it. A mutant is killed when a suite fails on an assertion, survives
when all pass; one whose only failures are crashes (a signal: ctest's
SEGFAULT, "Subprocess aborted" and the like; an e2e script that ended on a
command's exit status of 128 or more, or on expect_status getting one; a unit test whose only errors are
"CRASHED" or "THREW exception") is crashed: the suite noticed something, but
no test says what is wrong, so it counts as not killed. One whose text is not
found (exactly once) is stale, one that does not compile is invalid: both
mean the set needs updating. Exits 1 unless every mutant is killed. Not part of tests/run.sh (about 1-2 minutes a mutant on 2
cores); run it before resolving a change to the core and keep the score in
the README.
"""
import argparse
import os
import re
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


# ctest's status of a test that ended on a signal (cmCTestRunTest), as its
# summary "The following tests FAILED:" names it; "Failed" is a non-zero exit.
CRASH_STATUSES = ("SEGFAULT", "Subprocess aborted", "Child aborted", "ILLEGAL", "BUS", "NUMERICAL", "INTERRUPT",
                  "Exception")


def failed_tests(output):
    """{name: ctest status} from ctest's summary of the failed tests."""
    at = output.rfind("The following tests FAILED:")
    if at < 0:
        return {}
    return dict(re.findall(r"^\s*\d+ - (\S+) \((.+)\)\s*$", output[at:], re.M))


def test_output(output, name):
    """What ctest --output-on-failure showed of test `name`: the lines after its result line."""
    m = re.search(r"^\s*\d+/\d+ Test\s+#\d+: " + re.escape(name) + r" \.*.*$", output, re.M)
    if not m:
        return ""
    end = re.search(r"^\s*(Start\s+\d+:|\d+% tests passed)", output[m.end():], re.M)
    return output[m.end():m.end() + end.start()] if end else output[m.end():]


def crashed(name, status, text):
    """Whether failed test `name` failed only by a crash, never by an assertion."""
    if any(status.startswith(c) for c in CRASH_STATUSES):
        return True
    if status != "Failed":
        return False  # a timeout: a hang the suite caught
    if name.startswith("unit."):  # doctest: every error a crash or an exception, none an assertion
        errors = re.findall(r"ERROR: (.*)", text)
        return bool(errors) and all(e.startswith(("test case CRASHED", "test case THREW exception")) for e in errors)
    # An e2e or shell script: its last FAIL line says what ended it. lib.sh's
    # ERR trap names the command with its exit status, "(exit N)"; expect_status
    # says "(got N)" of the status it was not given. N of 128 or more: a process
    # killed by a signal, a crash the script only noticed.
    fails = re.findall(r"^FAIL: (.*)$", text, re.M)
    last = re.search(r"\((?:exit|got) (\d+)\)$", fails[-1]) if fails else None
    return bool(last) and int(last.group(1)) >= 128


def verdict_of(status, output):
    """killed, crashed or SURVIVED, from ctest's exit status and output."""
    if status == 0:
        return "SURVIVED", ""
    failed = failed_tests(output)
    if not failed:
        return "killed", "ctest failed without naming a test"
    kinds = {n: ("crash" if crashed(n, s, test_output(output, n)) else "assertion") for n, s in failed.items()}
    detail = ", ".join(f"{n} ({failed[n]}, {k})" for n, k in sorted(kinds.items()))
    return ("killed" if "assertion" in kinds.values() else "crashed"), detail


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
    parser.add_argument("--in-place", metavar="BUILD", help="mutate this checkout and rebuild BUILD, its existing build")
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if not args.only or m["id"] in args.only.split(",")]
    if args.in_place:
        src, build = ROOT, os.path.abspath(args.in_place)
        log = os.path.join(build, "mutation-log.txt")
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            print(f"{build} is not a build of this checkout (no CMakeCache.txt)")
            return 2
    else:
        src, build, log = os.path.join(args.work, "src"), os.path.join(args.work, "build"), os.path.join(args.work, "log.txt")
        os.makedirs(src, exist_ok=True)
        copy_checkout(src)
    open(log, "w").close()
    gen = ["-G", "Ninja"] if shutil.which("ninja") and not os.path.exists(os.path.join(build, "CMakeCache.txt")) else []
    if (not args.in_place and sh(["cmake", "-S", src, "-B", build, *gen, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], src, log) != 0) or \
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
        detail = ""
        try:
            if sh(["cmake", "--build", build, "-j2"], src, log) != 0:
                verdict = "invalid"
            else:
                cmd = ["ctest", "-R", m["tests"], "-j2", "--timeout", "600", "--output-on-failure"]
                run = subprocess.run(cmd, cwd=build, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     errors="replace")
                with open(log, "a") as out:
                    out.write(f"\n$ {' '.join(cmd)}\n{run.stdout}")
                verdict, detail = verdict_of(run.returncode, run.stdout)
                if detail:
                    with open(log, "a") as out:
                        out.write(f"\n{m['id']}: {verdict}: {detail}\n")
        finally:
            open(path, "w").write(original)
            os.utime(path)  # the next build compiles the original again
        results.append((m, verdict, time.time() - start))
        shown = f"  ({detail})" if verdict == "crashed" else ""
        print(f"{m['id']:40} {verdict:9} {results[-1][2]:6.0f} s{shown}", flush=True)
    sh(["cmake", "--build", build, "-j2"], src, log)
    killed = sum(1 for _, v, _ in results if v == "killed")
    crashes = sum(1 for _, v, _ in results if v == "crashed")
    print(f"\nmutation score: {killed} of {len(results)} mutants killed by an assertion"
          f"{f', {crashes} only crashed' if crashes else ''} (log: {log})")
    for m, verdict, _ in results:
        if verdict != "killed":
            print(f"  {verdict}: {m['id']} -- {m['rule']} ({m['file']}; tests {m['tests']})")
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
