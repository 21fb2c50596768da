#!/usr/bin/env bash
# Speed of `condacuda doctor` (full symbol checks) beside an `ldd -r` loop and
# `libtree` (which resolves but checks no symbols) over the same libraries:
# the 31 real CUDA 13 wheel libraries of /usr/local/cuda laid out as an env;
# and `doctor --gpu H100`, which also reads every fatbin entry header of the
# libraries the roots load (elf/fatbin.hpp), with its fatbin cache (warm after
# hyperfine's warm-up runs) and without one (every header read each run).
# One hyperfine run, so the ratios come from one machine state. Prints a
# Markdown table; BENCH_RUNS (default 10) sets the runs. No assertions on time.
#   usage: bench_doctor.sh [OUT.md]
source "$(dirname "$0")/../e2e/lib.sh"
command -v hyperfine > /dev/null || skip "hyperfine is not installed"
command -v libtree > /dev/null || skip "libtree is not installed"
make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
runs=${BENCH_RUNS:-10}
out=${1:-/dev/stdout}

mapfile -t libs < <(find "$scratch/cu13" -name '*.so*' \( -type f -o -type l \) | sort)
n=${#libs[@]}
printf '%s\n' "${libs[@]}" > "$scratch/libs.txt"
doctor_cmd=("$CONDACUDA" doctor -p "$scratch/cu13" --json --no-ld-library-path)
doctor="${doctor_cmd[*]}" # hyperfine takes a command line
export XDG_CACHE_HOME=$scratch/cache # the fatbin cache doctor --gpu keeps (and nothing else here uses)
doctor_gpu="$doctor --gpu H100 --driver 580.65.06"
doctor_gpu_nocache="env XDG_CACHE_HOME= HOME= $doctor --gpu H100 --driver 580.65.06" # (+1 process: env)
ldd_loop="xargs -a $scratch/libs.txt -n1 ldd -r"
libtree_all="xargs -a $scratch/libs.txt libtree"
export LD_LIBRARY_PATH=

hyperfine --style none --warmup 2 --runs "$runs" --export-json "$scratch/h.json" \
  -n doctor "$doctor" -n "doctor --gpu H100" "$doctor_gpu" -n "doctor --gpu H100, no fatbin cache" "$doctor_gpu_nocache" -n "ldd -r loop" "$ldd_loop" -n "libtree (one call)" "$libtree_all" > /dev/null 2>&1
read -r doctor_rss _ < <(python3 "$(dirname "$0")/peak_rss.py" 3 "${doctor_cmd[@]}")
python3 - "$scratch/h.json" "$n" "$doctor_rss" "$(nproc)" > "$out" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
n, rss, cores = sys.argv[2], float(sys.argv[3]), sys.argv[4]
t = {r["command"]: r for r in h["results"]}
d = t["doctor"]["median"]
print("| %s CUDA 13 libraries, %s cores | median | vs doctor |" % (n, cores))
print("|---|---|---|")
for name in ("doctor", "doctor --gpu H100", "doctor --gpu H100, no fatbin cache", "ldd -r loop", "libtree (one call)"):
    m = t[name]["median"]
    print("| %s | %.1f ms | %.1fx |" % (name, m * 1000, m / d))
print()
print("doctor peak RSS: %.1f MiB" % rss)
PY
cat "$out" > /dev/null
