#!/usr/bin/env bash
# The benchmarks run (3 or 4 runs each; the import-order one on a smaller big env)
# and produce their tables; no timing is
# asserted. The figures in the README come from tests/bench/*.sh run by hand.
source "$(dirname "$0")/../e2e/lib.sh"
out=$scratch/doctor.md
status=0
BENCH_RUNS=4 BENCH_ROUNDS=2 bash "$(dirname "$0")/bench_doctor.sh" "$out" || status=$?
[ "$status" = 125 ] && skip "bench_doctor.sh skipped"
[ "$status" = 0 ] || fail "bench_doctor.sh exited $status"
grep -q '^| doctor, first run |' "$out" || fail "no doctor row"
grep -q '^| ldd -r |' "$out" || fail "no ldd row"
grep -Eq '^\| libtree \(beside the repeated runs\) \| [0-9.]+ ms \| 1\.0x \| [0-9.]+ ms \| 1\.0x \|$' "$out" ||
  fail "no libtree row with its wall and CPU time"
grep -q '^- libtree: `libtree \$BENCH/cu13/' "$out" || fail "libtree's command line is not printed with the table"
cat "$out"
order=$scratch/order.md
status=0
BENCH_RUNS=3 BENCH_CONSUMERS=6 bash "$(dirname "$0")/bench_import_order.sh" "$order" || status=$?
[ "$status" = 0 ] || fail "bench_import_order.sh exited $status"
grep -Eq '^\| big env \| [0-9.]+ ms \| - \| - \| [0-9.]+ ms \|' "$order" || fail "no big env row with its wall and CPU time"
grep -q '^big env: [0-9]* roots, [1-9][0-9]* import-order findings' "$order" || fail "the big env has no import-order finding"
cat "$order"
scale=$scratch/scale.md
status=0
BENCH_SIZES=4 bash "$(dirname "$0")/bench_import_order_scale.sh" "$scale" || status=$?
[ "$status" = 125 ] && skip "bench_import_order_scale.sh skipped"
[ "$status" = 0 ] || fail "bench_import_order_scale.sh exited $status"
grep -q '^| 4 | [0-9.]* s (CPU [0-9.]* s), [0-9]* MB' "$scale" || fail "no N = 4 row with its wall and CPU time"
cat "$scale"
