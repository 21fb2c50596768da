#!/usr/bin/env bash
# doctor's verdict per program against the real import (issue 49): 300 random
# envs built from the stand-in frameworks (torch 2.1-2.14, the JAX CUDA plugin
# 0.4.30-0.11, CuPy 13/14 with cuda-pathfinder; tests/e2e/frameworks/), with
# random LD_LIBRARY_PATH, PYTHONPATH, user site and missing or old libraries,
# each imported by its real python and judged by `condacuda doctor --json`:
# the verdict, the exception and its text must be the same in every one. The
# last line is the agreement figure (README, docs/frameworks.md).
source "$(dirname "$0")/lib.sh"
command -v gcc > /dev/null || skip "no gcc to build the stand-ins"
python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/frameworks/harness.py" "$CONDACUDA" "$scratch/harness" "${CONDACUDA_PROGRAMS:-300}" 49 \
  > "$scratch/harness.log" 2>&1 || { tail -40 "$scratch/harness.log"; fail "the program verdicts disagree with the real imports"; }
grep DIFF "$scratch/harness.log" && fail "a disagreement was printed"
tail -1 "$scratch/harness.log"
