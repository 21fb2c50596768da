#!/usr/bin/env python3
"""Compares `condacuda doctor --json` with the real loader, root by root.

For every root doctor simulated, a fresh process opens it for real, with the
environment this script runs in (the caller sets LD_LIBRARY_PATH the way it
did for doctor):
  --python PY     PY -c 'ctypes.CDLL(root)' (RTLD_NOW, the import path)
  --probe PROBE   the dlopen probe of tests/tools (a C host, libc only)
  --ldd           also `ldd -r root` (verdict only; Python extensions are
                  skipped: ldd lists their Py* symbols as undefined)
Doctor's verdict and first error text must equal the real ones for every root.
Prints one line per root; exits 1 on any disagreement."""
import argparse
import json
import os
import subprocess
import sys

CTYPES = "import ctypes, sys\ntry:\n    ctypes.CDLL(sys.argv[1])\nexcept OSError as e:\n    print(e)\n    sys.exit(1)\n"


def real_dlopen(args, path):
    if args.python:
        cmd = [args.python, "-c", CTYPES, path]
    else:
        cmd = [args.probe, path]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode == 0:
        return None
    out = r.stdout.strip()
    if out.startswith("ERR "):
        out = out[4:]
    if not out:  # ld.so aborted the process: its message is on stderr
        out = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "exit %d" % r.returncode
    return out


def ldd_fails(path):
    r = subprocess.run(["ldd", "-r", path], capture_output=True, text=True)
    text = r.stdout + r.stderr
    return any(s in text for s in ("not found", "undefined symbol", "version `", "cannot ")) or r.returncode not in (0,)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("doctor_json")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--python")
    g.add_argument("--probe")
    p.add_argument("--ldd", action="store_true")
    args = p.parse_args()
    report = json.load(open(args.doctor_json))
    prefix = report["env"]["prefix"]
    bad = 0
    for root in report["roots"]:
        path = os.path.normpath(os.path.join(prefix, root["file"]))
        real = real_dlopen(args, path)
        predicted = root["error"]
        if root.get("requirement"):
            # A requirement mismatch: the loader maps it (a dlopen works), the
            # package's import raises on the version (doctor's "fails").
            predicted = None
        maps = root["verdict"] == "loads" or bool(root.get("requirement"))  # what the loader itself does
        ok = (real is None) == maps and real == predicted
        line = "%s %-6s %s" % ("same" if ok else "DIFF", root["verdict"], root["file"])
        if not ok:
            line += "\n     doctor: %s\n     real:   %s" % (predicted, real)
            bad += 1
        if args.ldd and ".cpython-" not in root["file"] and "abi3" not in root["file"]:
            lf = ldd_fails(path)
            if lf == maps:
                line += "\n     ldd -r disagrees: ldd says %s" % ("fails" if lf else "loads")
                bad += 1
        print(line)
    print("%d roots, %d disagreements" % (len(report["roots"]), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
