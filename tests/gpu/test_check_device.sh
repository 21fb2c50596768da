#!/usr/bin/env bash
# On a machine with a GPU: `condacuda check --quick` with the CUDA 13 wheel
# libraries passes every step (skipped elsewhere: the no-GPU behaviour is
# test_check_no_gpu.sh's). The full sizes and the comparison with torch are
# tests/gpu/run-on-device.sh's.
source "$(dirname "$0")/lib.sh"

has_driver || skip "no libcuda.so.1 on this machine"
make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
env_lib=$(echo "$scratch"/cu13/lib/python3*/site-packages/nvidia/cu13/lib)
status=0
"$CONDACUDA" check -p "$scratch/cu13" --ld-library-path "$env_lib" --quick --json > "$scratch/quick.json" || status=$?
[ "$status" = 3 ] && skip "a driver but no usable GPU: $(json "$scratch/quick.json" 'j["reason"]')"
expect_eq "$status" 0 "exit status ($(json "$scratch/quick.json" 'j["reason"]'))"
expect_eq "$(json "$scratch/quick.json" 'sorted(set(s["status"] for s in j["steps"]))')" "['pass']" "every step passed"
predictions_agree "$scratch/quick.json"
