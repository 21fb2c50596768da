#!/usr/bin/env bash
# Advice that converges (issue 51): doctor's first fix followed mechanically
# on a corpus of broken envs reaches a healthy env with a working import
# within 3 steps, never revisiting a state (tests/e2e/frameworks/converge.py).
source "$(dirname "$0")/lib.sh"
command -v gcc > /dev/null || skip "no gcc to build the stand-ins"
python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/frameworks/converge.py" "$CONDACUDA" "$scratch/converge"
