#!/usr/bin/env bash
# The hostile-input pass over kernelspecs, kernel install's target, fleet
# --from's files and the frameworks' files in an env, with the real binary
# (tests/e2e/frameworks/hostile_surfaces.py says what each case is and what
# must hold: no hang, a documented exit code, no write outside).
source "$(dirname "$0")/lib.sh"
command -v gcc > /dev/null || skip "no gcc to build the stand-ins"
/usr/bin/python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/frameworks/hostile_surfaces.py" "$CONDACUDA" "$scratch/hostile"
