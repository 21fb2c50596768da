#!/usr/bin/env bash
# Cost of condacuda's sh activation hooks in bash, beside the script people write by
# hand, `export LD_LIBRARY_PATH="$CONDA_PREFIX/dir:...:$LD_LIBRARY_PATH"` (neither
# idempotent nor restorable, and it adds an empty entry when the variable was unset).
#
# The hooks are rendered by the test renderer (tests/tools/render_hooks.cpp) into a
# temporary prefix with three wheel folders, as for a CUDA 12 PyTorch env, repaired
# after they were made (the hook's staleness test finds the repair current). Each case
# is one bash process sourcing the files BENCH_ITERATIONS times (LD_LIBRARY_PATH=/usr/lib
# and no hook state at the start of every iteration):
#     empty loop       the loop and the reset alone
#     one-liner        `. oneliner.sh`
#     pair             `. activate.d/condacuda.sh; . deactivate.d/condacuda.sh`
#     activate alone   `. activate.d/condacuda.sh`
#     two sourced files `. a.sh; . b.sh`, each only `return`: the floor of any hook
#                      pair, two files read and parsed before they do anything
# Per iteration = (case - empty loop) / iterations, from hyperfine's median wall time
# and mean user+system time (bash's `time`, the fastest of BENCH_RUNS runs, without
# hyperfine). Where valgrind is installed, also the instructions per iteration
# (callgrind, BENCH_INSTRUCTION_ITERATIONS, default 200): unlike time, that count
# barely moves between runs, so its ratios are the stable ones.
# Prints a Markdown table; no assertion on time. Then counts the processes
# the hooks start (strace -f, process-creating calls with the hooks minus without):
# the hooks must start none.
#
#   usage: bench_hooks.sh [OUT.md]
#   BENCH_ITERATIONS (default 1000), BENCH_RUNS (default 10),
#   BENCH_HOOKS_PREFIX=DIR  measure the hooks already rendered under DIR instead
#                           (e.g. an older condacuda's, for a before/after table)
#   CONDACUDA_RENDER_HOOKS or CONDACUDA_BUILD_DIR (default build): the renderer
# Exit status: 0 done; 1 setup failed.
set -Eeuo pipefail
export LC_ALL=${BENCH_LC_ALL:-C.UTF-8}

iterations=${BENCH_ITERATIONS:-1000}
runs=${BENCH_RUNS:-10}
if [[ -n ${1:-} ]]; then exec 3>"$1"; else exec 3>&1; fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/condacuda-bench-hooks.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

fail() {
  echo "bench_hooks.sh: $*" >&2
  exit 1
}

folders=(lib/python3.11/site-packages/nvidia/cusparse/lib
  lib/python3.11/site-packages/nvidia/nvjitlink/lib
  lib/python3.11/site-packages/nvidia/cublas/lib)

if [[ -n ${BENCH_HOOKS_PREFIX:-} ]]; then
  prefix=$BENCH_HOOKS_PREFIX
  origin="hooks under $prefix"
else
  tool=${CONDACUDA_RENDER_HOOKS:-${CONDACUDA_BUILD_DIR:-build}/tests/condacuda_render_hooks}
  [[ -x $tool ]] || fail "render tool not built: $tool"
  prefix=$scratch/env
  # The folders exist, as in a real env: the hook's staleness test stats them.
  for folder in "${folders[@]}"; do mkdir -p "$prefix/$folder"; done
  "$tool" "$prefix" "${folders[@]}" || fail "rendering the hooks failed"
  origin="hooks rendered by $(basename "$tool")"
fi
activate=$prefix/etc/conda/activate.d/condacuda.sh
deactivate=$prefix/etc/conda/deactivate.d/condacuda.sh
[[ -r $activate && -r $deactivate ]] || fail "no sh hooks under $prefix"

oneliner=$scratch/oneliner.sh
entries=
for folder in "${folders[@]}"; do entries+="\$CONDA_PREFIX/$folder:"; done
printf 'export LD_LIBRARY_PATH="%s$LD_LIBRARY_PATH"\n' "$entries" >"$oneliner"
printf 'return\n' >"$scratch/a.sh"
printf 'return\n' >"$scratch/b.sh"

# One driver per case: a bash script sourcing the files in a loop.
write_driver() {
  local name=$1 body=$2
  cat >"$scratch/driver-$name.sh" <<EOF
CONDA_PREFIX='$prefix'
LD_LIBRARY_PATH=/usr/lib
export CONDA_PREFIX LD_LIBRARY_PATH
unset CONDACUDA_HOOK_STATE
i=0
while [ \$i -lt \${N:-$iterations} ]; do
  i=\$((i + 1))
  $body
  unset CONDACUDA_HOOK_STATE
  LD_LIBRARY_PATH=/usr/lib
done
EOF
}
write_driver empty ':'
write_driver oneliner ". '$oneliner'"
write_driver pair ". '$activate'; . '$deactivate'"
write_driver activate ". '$activate'"
write_driver floor ". '$scratch/a.sh'; . '$scratch/b.sh'"
cases=(empty oneliner pair activate floor)

# The drivers must end where they started: activation then deactivation restores.
check=$(bash -c ". '$scratch/driver-pair.sh'; printf '%s|%s' \"\$LD_LIBRARY_PATH\" \"\${CONDACUDA_HOOK_STATE-unset}\"")
[[ $check == "/usr/lib|unset" ]] || fail "the pair does not restore LD_LIBRARY_PATH: $check"

declare -A wall=() cpu=()
if command -v hyperfine >/dev/null 2>&1; then
  timer="hyperfine, median wall / mean user+sys of $runs runs"
  args=()
  for c in "${cases[@]}"; do args+=(-n "$c" "bash --norc --noprofile $scratch/driver-$c.sh"); done
  hyperfine --style none --warmup 2 --runs "$runs" --export-csv "$scratch/h.csv" "${args[@]}" >"$scratch/hyperfine.log" 2>&1 || { cat "$scratch/hyperfine.log" >&2; false; } ||
    fail "hyperfine failed"
  # command,mean,stddev,median,user,system,min,max
  while IFS=, read -r name _ _ median user system _; do
    [[ $name == command ]] && continue
    wall[$name]=$median
    cpu[$name]=$(awk -v u="$user" -v s="$system" 'BEGIN { printf "%.9f", u + s }')
  done <"$scratch/h.csv"
else
  timer="bash time, fastest of $runs runs"
  for c in "${cases[@]}"; do
    best_wall="" best_cpu=""
    for ((r = 0; r < runs; r++)); do
      t=$({ TIMEFORMAT='%R %U %S'; time bash --norc --noprofile "$scratch/driver-$c.sh"; } 2>&1)
      read -r w u s <<<"$t"
      c_cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.9f", u + s }')
      if [[ -z $best_wall ]] || awk -v a="$w" -v b="$best_wall" 'BEGIN { exit !(a < b) }'; then best_wall=$w; fi
      if [[ -z $best_cpu ]] || awk -v a="$c_cpu" -v b="$best_cpu" 'BEGIN { exit !(a < b) }'; then best_cpu=$c_cpu; fi
    done
    wall[$c]=$best_wall
    cpu[$c]=$best_cpu
  done
fi

# Instructions per iteration, net of the empty loop (callgrind counts user-space
# instructions of the whole process).
declare -A instr=()
instr_iterations=${BENCH_INSTRUCTION_ITERATIONS:-200}
if command -v valgrind >/dev/null 2>&1; then
  for c in "${cases[@]}"; do
    instr[$c]=$(N=$instr_iterations valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      bash --norc --noprofile "$scratch/driver-$c.sh" 2>&1 | awk '/Collected :/ { print $NF }')
    [[ ${instr[$c]} =~ ^[0-9]+$ ]] || fail "callgrind gave no count for $c"
  done
fi
instr_net() { echo $(((instr[$1] - instr[empty]) / instr_iterations)); }

# Per iteration in microseconds, net of the empty loop; the ratio to the one-liner.
net() { awk -v t="$1" -v e="$2" -v n="$iterations" 'BEGIN { v = (t - e) / n * 1e6; if (v < 0) v = 0; printf "%.2f", v }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f×", a / b; else printf "n/a" }'; }
declare -A wall_us=() cpu_us=()
for c in oneliner pair activate floor; do
  wall_us[$c]=$(net "${wall[$c]}" "${wall[empty]}")
  cpu_us[$c]=$(net "${cpu[$c]}" "${cpu[empty]}")
done

# Processes: strace counts the calls that start one (threads and failed calls aside)
# in the pair driver and in the empty one; the difference is what the hooks start.
processes="not checked (strace unusable here)"
count_process_calls() {
  strace -f -qq -e trace=execve,clone,clone3,fork,vfork -o "$scratch/strace.$1" \
    bash --norc --noprofile "$scratch/driver-$1.sh" >/dev/null 2>&1 || return 1
  grep -E '(execve|clone3?|v?fork)\(' "$scratch/strace.$1" | grep -v -e CLONE_THREAD -e '= -1 E' -c || true
}
if command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null; then
  with=$(count_process_calls pair) && without=$(count_process_calls empty) &&
    processes="$((with - without)) ($with process calls in $iterations pairs, $without in the empty loop; strace -f)"
fi

{
  echo "| bash ${BASH_VERSION%%(*}, $iterations iterations, ${#folders[@]} folders, LD_LIBRARY_PATH=/usr/lib | wall per iteration | CPU per iteration | wall vs one-liner | CPU vs one-liner | instructions | instructions vs one-liner |"
  echo "|---|---|---|---|---|---|---|"
  printf '| empty loop: bash start-up and %s resets, per run (subtracted below) | %.1f ms | %.1f ms | | | | |\n' \
    "$iterations" "$(awk -v t="${wall[empty]}" 'BEGIN { print t * 1e3 }')" \
    "$(awk -v t="${cpu[empty]}" 'BEGIN { print t * 1e3 }')"
  instructions() {
    if [[ -n ${instr[empty]:-} ]]; then
      printf '%s | %s' "$(instr_net "$1")" "$(ratio "$(instr_net "$1")" "$(instr_net oneliner)")"
    else
      printf 'n/a (no valgrind) | n/a'
    fi
  }
  printf '| one-liner `export LD_LIBRARY_PATH=dirs:$LD_LIBRARY_PATH` | %s µs | %s µs | 1.0× | 1.0× | %s |\n' \
    "${wall_us[oneliner]}" "${cpu_us[oneliner]}" "$(instructions oneliner)"
  for c in pair activate floor; do
    case $c in
      pair) label="condacuda activate + deactivate" ;;
      activate) label="condacuda activate alone" ;;
      floor) label="floor of any pair: two sourced files that only \`return\`" ;;
    esac
    printf '| %s | %s µs | %s µs | %s | %s | %s |\n' "$label" "${wall_us[$c]}" "${cpu_us[$c]}" \
      "$(ratio "${wall_us[$c]}" "${wall_us[oneliner]}")" "$(ratio "${cpu_us[$c]}" "${cpu_us[oneliner]}")" \
      "$(instructions "$c")"
  done
  echo
  echo "Timing: $timer; $origin.${instr[empty]:+ Instructions: callgrind, $instr_iterations iterations.}"
  echo "Processes started by the hooks: $processes"
} >&3
