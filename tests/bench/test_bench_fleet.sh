#!/usr/bin/env bash
# tests/bench/bench_fleet.sh runs (100 documents, 2 runs, no warm-up) and
# prints its table, a row of three classes; no timing is asserted. The
# figures in the README come from tests/bench/*.sh run by hand.
source "$(dirname "$0")/../e2e/lib.sh"
out=$scratch/fleet.md
status=0
BENCH_SIZES=100 BENCH_RUNS=2 BENCH_WARMUP=0 bash "$(dirname "$0")/bench_fleet.sh" "$out" || status=$?
[ "$status" = 125 ] && skip "bench_fleet.sh skipped"
[ "$status" = 0 ] || fail "bench_fleet.sh exited $status"
grep -q '^| 100 documents | 3 | [0-9.]* ms ± [0-9.]* ms | [0-9.]* ms | [0-9.]* µs | ' "$out" || { cat "$out"; fail "no row for 100 documents in 3 classes"; }
cat "$out"
