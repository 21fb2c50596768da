#!/usr/bin/env bash
# A consumer built for another CUDA major (issue 51): cupy-cuda11x in a CUDA
# 12 env gets the consumer's fix (its CUDA 12 build), as --json actions that a
# harness follows to a working import (tests/e2e/frameworks/consumer_case.py).
source "$(dirname "$0")/lib.sh"
command -v gcc > /dev/null || skip "no gcc to build the stand-ins"
python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/frameworks/consumer_case.py" "$CONDACUDA" "$scratch/consumer"
