#!/usr/bin/env bash
# tests/bench/bench_hooks.sh runs (100 iterations, 2 runs each) and prints its table, with
# instruction counts where valgrind is installed, and the hooks start no process (when
# strace works here). No assertion on time or count.
source "$(dirname "${BASH_SOURCE[0]}")/../shell/lib.sh"
out=$scratch/hooks.md
CONDACUDA_RENDER_HOOKS=$(render_hooks_tool) BENCH_ITERATIONS=100 BENCH_RUNS=2 BENCH_INSTRUCTION_ITERATIONS=20 \
  bash "$(dirname "${BASH_SOURCE[0]}")/bench_hooks.sh" "$out"
cat "$out"
grep -q '^| one-liner ' "$out"
grep -q '^| condacuda activate + deactivate |' "$out"
grep -q '^| condacuda activate alone |' "$out"
grep -q '^| floor of any pair: ' "$out"
if command -v valgrind >/dev/null 2>&1; then
  grep -Eq '^\| condacuda activate \+ deactivate \|.*\| [0-9]+ \| [0-9.]+× \|$' "$out"
else
  grep -q 'n/a (no valgrind)' "$out"
fi
if command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null; then
  grep -q '^Processes started by the hooks: 0 ' "$out"
else
  grep -q '^Processes started by the hooks: not checked' "$out"
fi
