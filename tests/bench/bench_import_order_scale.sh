#!/usr/bin/env bash
# The import-order pass at scale (issue 26): `condacuda doctor` and
# `condacuda repair --dry-run` on the seed env with conda's nvJitLink 12.0
# and N extensions, half reaching each copy (make_import_order_env), for each
# N of BENCH_SIZES (default "120 300 600"); beside BENCH_DOCTOR_BEFORE (a
# binary of the commit before the grouped pass), when given. One run each
# (BENCH_TIMEOUT seconds at most, default 600): wall seconds, CPU seconds
# (user + system: what to compare on a shared machine) and peak RSS (GNU time). Prints a Markdown table. No assertions on time.
#   usage: bench_import_order_scale.sh [OUT.md]
source "$(dirname "$0")/../e2e/lib.sh"
command -v cc > /dev/null || skip "no C compiler"
[ -x /usr/bin/time ] || skip "GNU time is not installed"
sizes=${BENCH_SIZES:-120 300 600}
before=${BENCH_DOCTOR_BEFORE:-}
limit=${BENCH_TIMEOUT:-600}
out=${1:-/dev/stdout}
unset LD_LIBRARY_PATH CONDACUDA_HOOK_STATE

# measure BINARY ARGS...: "SECONDS s (CPU SECONDS s), RSS MB" (or "> LIMIT s").
measure() {
  local status=0
  timeout "$limit" /usr/bin/time -f '%e %M %U %S' -o "$scratch/time" "$@" > /dev/null 2>&1 || status=$?
  if [ "$status" = 124 ]; then echo "> $limit s"; return; fi
  awk '{ printf "%.2f s (CPU %.2f s), %d MB", $1, $3 + $4, $2 / 1024 }' "$scratch/time"
}

{
  echo "| N | doctor | doctor before | repair --dry-run | repair --dry-run before |"
  echo "|---|---|---|---|---|"
  for n in $sizes; do
    make_import_order_env "$scratch/n$n" "$n"
    env=$scratch/n$n/env
    row="| $n | $(measure "$CONDACUDA" doctor -p "$env" --json --no-ld-library-path)"
    row+=" | $([ -n "$before" ] && measure "$before" doctor -p "$env" --json --no-ld-library-path || echo -)"
    row+=" | $(measure "$CONDACUDA" repair -p "$env" --dry-run --json)"
    row+=" | $([ -n "$before" ] && measure "$before" repair -p "$env" --dry-run --json || echo -) |"
    echo "$row"
    rm -rf "$scratch/n$n"
  done
} > "$out"
