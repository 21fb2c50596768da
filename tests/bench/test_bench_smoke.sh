#!/usr/bin/env bash
# The benchmarks run (3 runs each) and produce their tables; no timing is
# asserted. The figures in the README come from tests/bench/*.sh run by hand.
source "$(dirname "$0")/../e2e/lib.sh"
out=$scratch/doctor.md
status=0
BENCH_RUNS=3 bash "$(dirname "$0")/bench_doctor.sh" "$out" || status=$?
[ "$status" = 125 ] && skip "bench_doctor.sh skipped"
[ "$status" = 0 ] || fail "bench_doctor.sh exited $status"
grep -q '^| doctor |' "$out" || fail "no doctor row"
grep -q '^| ldd -r loop |' "$out" || fail "no ldd row"
cat "$out"
