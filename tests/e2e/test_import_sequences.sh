#!/usr/bin/env bash
# The loader model's sequences of dlopens in one process against the real
# ld.so: 60 random sequences (RTLD_LOCAL and RTLD_GLOBAL opens) over a
# generated env with two copies of one soname, consumers reaching each, a
# library that fails alone, and a plugin that binds only through an earlier
# RTLD_GLOBAL object (tests/e2e/import_sequences.py). Every step's verdict
# and dlerror text must agree.
source "$(dirname "$0")/lib.sh"
python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/import_sequences.py" "$CONDACUDA" "$CONDACUDA_DLOPEN_PROBE" "$scratch" 60
