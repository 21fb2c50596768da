#!/usr/bin/env bash
# Speed of `condacuda doctor` beside `libtree` and `ldd -r`, like with like:
# every tool called directly by hyperfine (-N: no shell, no xargs), each given
# the same 31 real CUDA 13 wheel libraries of /usr/local/cuda laid out as an
# env, in one hyperfine run so the ratios come from one machine state.
#   - doctor, first run: --no-cache, every file checked (what a run with empty
#     caches does, less writing the cache);
#   - doctor, repeated: nothing changed since the last run (the load-check
#     cache filled by the warm-up runs);
#   - doctor on the same env after `repair` (its staleness check included);
#   - the big env: the CUDA 13 env plus an older nvJitLink and BENCH_CONSUMERS
#     (default 40) extension modules (add_big_env_consumers), first and repeated;
#   - doctor --gpu H100, with its fatbin cache;
#   - libtree with the 31 paths, one call (resolves, checks no symbols);
#   - ldd -r with the 31 paths, one call (one loader run per library).
# Prints a Markdown table (median, and the ratio to libtree) and doctor's peak
# RSS; BENCH_RUNS (default 10) sets the runs. No assertions on time.
# The runs are made in BENCH_ROUNDS (default 4) hyperfine runs, the commands
# in one order, then the reverse, and so on; each median is over every round.
# hyperfine runs one command's runs back to back, so on a VM whose speed
# drifts by a tenth within a minute, one round compares each command with the
# machine of another moment; alternating rounds gives every command the same
# moments.
#   usage: bench_doctor.sh [OUT.md]
source "$(dirname "$0")/../e2e/lib.sh"
command -v hyperfine > /dev/null || skip "hyperfine is not installed"
command -v libtree > /dev/null || skip "libtree is not installed"
make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
make_cuda13_env "$scratch/repaired" || skip "no /usr/local/cuda/dist-info on this machine"
make_cuda13_env "$scratch/big" || skip "no /usr/local/cuda/dist-info on this machine"
add_big_env_consumers "$scratch/big" "${BENCH_CONSUMERS:-40}"
runs=${BENCH_RUNS:-10}
rounds=${BENCH_ROUNDS:-4}
per_round=$(((runs + rounds - 1) / rounds))
out=${1:-/dev/stdout}
export LD_LIBRARY_PATH=
"$CONDACUDA" repair -p "$scratch/repaired" > /dev/null
sleep 1.1 # files changed in the last second are not cached (sys/load_check_cache.hpp)

mapfile -t libs < <(find "$scratch/cu13" -name '*.so*' \( -type f -o -type l \) | sort)
n=${#libs[@]}
doctor=("$CONDACUDA" doctor --json --no-ld-library-path -p)
line() { printf '%q ' "$@"; } # hyperfine -N splits its command line like a shell, without one
commands=(
  -n "doctor, first run" "$(line "${doctor[@]}" "$scratch/cu13" --no-cache)"
  -n "doctor, repeated" "$(line "${doctor[@]}" "$scratch/cu13")"
  -n "doctor, repaired env" "$(line "${doctor[@]}" "$scratch/repaired")"
  -n "doctor, big env, first run" "$(line "${doctor[@]}" "$scratch/big" --no-cache)"
  -n "doctor, big env, repeated" "$(line "${doctor[@]}" "$scratch/big")"
  -n "doctor --gpu H100, repeated" "$(line "${doctor[@]}" "$scratch/cu13" --gpu H100 --driver 580.65.06)"
  -n "libtree" "$(line libtree "${libs[@]}")"
  -n "ldd -r" "$(line ldd -r "${libs[@]}")"
)
reversed=()
for ((i = ${#commands[@]} - 3; i >= 0; i -= 3)); do reversed+=("${commands[@]:i:3}"); done
for ((round = 0; round < rounds; round++)); do
  if ((round % 2 == 0)); then order=("${commands[@]}"); else order=("${reversed[@]}"); fi
  warmup=$((round == 0 ? 3 : 1)) # the caches are filled by the first round
  hyperfine -N --style none --warmup "$warmup" --runs "$per_round" -i --export-json "$scratch/h$round.json" \
    "${order[@]}" > /dev/null 2>&1
done
read -r first_rss _ < <(python3 "$(dirname "$0")/peak_rss.py" 3 "${doctor[@]}" "$scratch/cu13" --no-cache)
read -r repeated_rss _ < <(python3 "$(dirname "$0")/peak_rss.py" 3 "${doctor[@]}" "$scratch/cu13")
python3 - "$scratch" "$rounds" "$n" "$first_rss" "$repeated_rss" "$(nproc)" > "$out" << 'PY'
import json, statistics, sys
scratch, rounds = sys.argv[1], int(sys.argv[2])
n, first_rss, repeated_rss, cores = sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
times = {}
for r in range(rounds):
    for result in json.load(open("%s/h%d.json" % (scratch, r)))["results"]:
        times.setdefault(result["command"], []).extend(result["times"])
order = ["doctor, first run", "doctor, repeated", "doctor, repaired env", "doctor, big env, first run",
         "doctor, big env, repeated", "doctor --gpu H100, repeated", "libtree", "ldd -r"]
t = {name: statistics.median(times[name]) for name in order}
lt = t["libtree"]
print("| %s CUDA 13 libraries, %s cores | median | vs libtree |" % (n, cores))
print("|---|---|---|")
for name, m in t.items():
    print("| %s | %.1f ms | %.1fx |" % (name, m * 1000, m / lt))
print()
print("doctor peak RSS: %.1f MiB first run, %.1f MiB repeated" % (first_rss, repeated_rss))
PY
cat "$out" > /dev/null
