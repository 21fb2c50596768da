#!/usr/bin/env bash
# Jupyter kernels are launches (issue 50): real jupyter_client and ipykernel
# start the env's kernels under a server with an old CUDA folder on its
# LD_LIBRARY_PATH; doctor, repair, undo and kernel install from a clean
# shell (tests/e2e/frameworks/jupyter_case.py says what each step shows).
source "$(dirname "$0")/lib.sh"
command -v gcc > /dev/null || skip "no gcc to build the stand-ins"
/usr/bin/python3 -c 'import jupyter_client, ipykernel' 2> /dev/null ||
  skip "no python3-jupyter-client and python3-ipykernel (tests/install-deps.sh installs them)"
/usr/bin/python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/frameworks/jupyter_case.py" "$CONDACUDA" "$scratch/jupyter"
