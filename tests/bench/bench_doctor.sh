#!/usr/bin/env bash
# Speed of `condacuda doctor` beside `libtree` and `ldd -r`, like with like:
# every tool called directly by hyperfine (-N: no shell, no xargs), each given
# the same 31 real CUDA 13 wheel libraries of /usr/local/cuda laid out as an
# env, the ratios from one machine state.
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
# Prints a Markdown table (median wall time, mean CPU time: user + system, as
# hyperfine measures them, and the ratios of both to libtree), every command
# line as it was run, and doctor's peak RSS; BENCH_RUNS (default 10) sets the
# runs. No assertions on time. CPU time is what to compare on a shared
# machine: another job's load lengthens the wall time, not the CPU time.
# Every tool runs with LD_LIBRARY_PATH unset, as in a user's shell: set and
# empty, it names the working folder for glibc and for libtree, whose every
# lookup then searches it first (libtree took twice as long so).
# Repeated runs and first runs are measured apart, each group beside libtree:
# a first run reads 31 MB of relocation tables on both cores and ldd -r runs
# the loader for a second, and on the VM the commands right after such a run
# are a tenth slower. In each group the runs are made in BENCH_ROUNDS (default
# 4) hyperfine runs, the commands in one order, then the reverse, and so on;
# each median is over every round: hyperfine runs one command's runs back to
# back, and the VM's speed drifts by a tenth within a minute.
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
unset LD_LIBRARY_PATH
"$CONDACUDA" repair -p "$scratch/repaired" > /dev/null
sleep 1.1 # files changed in the last second are not cached (sys/load_check_cache.hpp)

mapfile -t libs < <(find "$scratch/cu13" -name '*.so*' \( -type f -o -type l \) | sort)
n=${#libs[@]}
doctor=("$CONDACUDA" doctor --json --no-ld-library-path -p)
line() { printf '%q ' "$@"; } # hyperfine -N splits its command line like a shell, without one
repeated_runs=(
  -n "doctor, repeated" "$(line "${doctor[@]}" "$scratch/cu13")"
  -n "doctor, repaired env" "$(line "${doctor[@]}" "$scratch/repaired")"
  -n "doctor, big env, repeated" "$(line "${doctor[@]}" "$scratch/big")"
  -n "doctor --gpu H100, repeated" "$(line "${doctor[@]}" "$scratch/cu13" --gpu H100 --driver 580.65.06)"
  -n "libtree" "$(line libtree "${libs[@]}")"
)
first_runs=(
  -n "doctor, first run" "$(line "${doctor[@]}" "$scratch/cu13" --no-cache)"
  -n "doctor, big env, first run" "$(line "${doctor[@]}" "$scratch/big" --no-cache)"
  -n "libtree" "$(line libtree "${libs[@]}")"
  -n "ldd -r" "$(line ldd -r "${libs[@]}")"
)
# measure GROUP NAME...: the rounds of one group, into $scratch/GROUP-<round>.json.
measure() {
  local group=$1 round i warmup
  shift
  local commands=("$@") reversed=()
  for ((i = ${#commands[@]} - 3; i >= 0; i -= 3)); do reversed+=("${commands[@]:i:3}"); done
  for ((round = 0; round < rounds; round++)); do
    warmup=$((round == 0 ? 3 : 1)) # the caches are filled by the first round
    if ((round % 2 == 0)); then order=("${commands[@]}"); else order=("${reversed[@]}"); fi
    hyperfine -N --style none --warmup "$warmup" --runs "$per_round" -i --export-json "$scratch/$group-$round.json" \
      "${order[@]}" > /dev/null 2>&1
  done
}
# The command lines, as hyperfine -N ran them, for the table's footnotes.
for ((i = 0; i < ${#repeated_runs[@]}; i += 3)); do printf '%s\t%s\n' "${repeated_runs[i + 1]}" "${repeated_runs[i + 2]}"; done \
  > "$scratch/commands.tsv"
for ((i = 0; i < ${#first_runs[@]}; i += 3)); do printf '%s\t%s\n' "${first_runs[i + 1]}" "${first_runs[i + 2]}"; done \
  >> "$scratch/commands.tsv"
measure repeated "${repeated_runs[@]}"
measure first "${first_runs[@]}"
read -r first_rss _ < <(python3 "$(dirname "$0")/peak_rss.py" 3 "${doctor[@]}" "$scratch/cu13" --no-cache)
read -r repeated_rss _ < <(python3 "$(dirname "$0")/peak_rss.py" 3 "${doctor[@]}" "$scratch/cu13")
python3 - "$scratch" "$rounds" "$n" "$first_rss" "$repeated_rss" "$(nproc)" > "$out" << 'PY'
import json, statistics, sys
scratch, rounds = sys.argv[1], int(sys.argv[2])
n, first_rss, repeated_rss, cores = sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
def medians(group):
    """Each command's median wall time over every round, and its mean CPU time (user + system)."""
    times, cpu = {}, {}
    for r in range(rounds):
        for result in json.load(open("%s/%s-%d.json" % (scratch, group, r)))["results"]:
            times.setdefault(result["command"], []).extend(result["times"])
            cpu.setdefault(result["command"], []).append(result["user"] + result["system"])
    return {name: (statistics.median(t), statistics.mean(cpu[name])) for name, t in times.items()}
print("| %s CUDA 13 libraries, %s cores | median wall | vs libtree | mean CPU | vs libtree |" % (n, cores))
print("|---|---|---|---|---|")
for group, rows in (("first", ["doctor, first run", "doctor, big env, first run", "ldd -r", "libtree"]),
                    ("repeated", ["doctor, repeated", "doctor, repaired env", "doctor, big env, repeated",
                                  "doctor --gpu H100, repeated", "libtree"])):
    t = medians(group)
    base_wall, base_cpu = t["libtree"]
    for name in rows:
        wall, cpu = t[name]
        label = name if name != "libtree" else "libtree (beside the %s runs)" % group
        print("| %s | %.1f ms | %.1fx | %.1f ms | %.1fx |" % (label, wall * 1000, wall / base_wall, cpu * 1000, cpu / base_cpu))
print()
print("Each row's command, called directly (hyperfine -N, LD_LIBRARY_PATH unset):")
print()
seen = set()
for line in open("%s/commands.tsv" % scratch):
    name, command = line.rstrip("\n").split("\t", 1)
    if name not in seen:
        seen.add(name)
        print("- %s: `%s`" % (name, command.replace(scratch, "$BENCH").strip()))
print()
print("doctor peak RSS: %.1f MiB first run, %.1f MiB repeated" % (first_rss, repeated_rss))
PY
cat "$out" > /dev/null
