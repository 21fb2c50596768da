#!/usr/bin/env bash
# The shell scripts condacuda ships or tells people to run pass shellcheck:
# the conda link scripts, the recipe's build script, the quick start and the
# demo env, the test entry points.
source "$(dirname "$0")/lib.sh"
command -v shellcheck > /dev/null || skip "shellcheck is not installed"
cd "$CONDACUDA_SOURCE_DIR"
scripts=(hooks/post-link.sh hooks/pre-unlink.sh packaging/conda/build.sh examples/quickstart.sh
         examples/demo-env/build.sh tests/run.sh tests/install-deps.sh .ci/run)
shellcheck "${scripts[@]}"
for s in "${scripts[@]}"; do [ -x "$s" ] || fail "not executable: $s"; done
note "${#scripts[@]} scripts pass shellcheck"
