#!/usr/bin/env bash
# The named program cases of issue 49 against the real import
# (tests/e2e/frameworks/cases.py): torch 2.6's preloads make an older
# nvJitLink on LD_LIBRARY_PATH harmless (no false alarm; torch 2.5.1 in the
# same env fails, with the real error); an old nvJitLink wheel in the user
# site or on PYTHONPATH breaks `import torch` (doctor says so, with the fix
# that changes it, and repair does not call the env healthy); --imports'
# ALONE column is each item by itself, and a framework item runs its recipe;
# a repaired env whose import loads only activated is judged per launch.
source "$(dirname "$0")/lib.sh"
command -v gcc > /dev/null || skip "no gcc to build the stand-ins"
for case in false-alarm user-site pythonpath imports contexts; do
  note "case $case"
  python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/frameworks/cases.py" "$case" "$CONDACUDA" "$scratch/$case"
done
