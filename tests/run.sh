#!/usr/bin/env bash
# The one test command: installs what is missing (apt, when root), configures,
# builds with -j2 and runs every CTest test (unit, e2e, shell, gpu, bench
# smoke), then says how many passed, failed and were skipped (exit 125: a
# tool the suite needs is missing), naming each skipped one and why. The
# exit status is CTest's: skipped tests do not fail it.
#   CONDACUDA_BUILD_DIR  build folder (default: build/ in the checkout)
#   CONDACUDA_SANITIZE=1 build with ASan/UBSan
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CONDACUDA_BUILD_DIR:-$root/build}

"$root/tests/install-deps.sh" test

generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
[ -f "$build/CMakeCache.txt" ] && generator=()
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCONDACUDA_SANITIZE="${CONDACUDA_SANITIZE:-OFF}" > /dev/null
cmake --build "$build" -j2
cd "$build"
junit=$build/Testing/run-sh.junit.xml
rm -f "$junit"
status=0
ctest -j2 --output-on-failure --timeout 900 --output-junit "$junit" "$@" || status=$?

# CTest's "100% tests passed" counts only the tests that ran: a suite whose
# tool is missing exits 125 and is skipped. Say how many, which, and why
# (its SKIP: line); skips alone do not fail the run.
if [ -f "$junit" ] && command -v python3 > /dev/null; then
  python3 - "$junit" << 'PY' || true
import sys
import xml.etree.ElementTree as ET

cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
passed, failed, skipped = [], [], []
for case in cases:
    name, out = case.get("name"), case.findtext("system-out") or ""
    if case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
        why = [l for l in out.splitlines() if l.startswith("SKIP:")]
        skipped.append((name, why[-1][5:].strip() if why else "did not run"))
    elif case.find("failure") is not None or case.get("status") == "fail":
        failed.append(name)
    else:
        passed.append(name)
print("\ntests/run.sh: %d tests: %d passed, %d failed, %d skipped"
      % (len(passed) + len(failed) + len(skipped), len(passed), len(failed), len(skipped)))
for name, why in sorted(skipped):
    print("  skipped  %s: %s" % (name, why))
for name in sorted(failed):
    print("  FAILED   %s" % name)
PY
fi
exit "$status"
