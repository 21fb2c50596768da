#!/usr/bin/env bash
# The conda activation hooks (templates/hooks) under bash: byte-exact LD_LIBRARY_PATH
# through activation, reactivation, stacking, clones and deactivation, plain and strict.
# The scenarios are hk_run_scenarios in lib.sh; skipped when bash is not installed.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
hk_run_scenarios bash
