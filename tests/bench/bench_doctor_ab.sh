#!/usr/bin/env bash
# Two condacuda binaries side by side in one run (a change's cost, like with
# like): each doctor called directly by hyperfine (-N), on the same envs, in
# BENCH_ROUNDS (default 4) rounds of alternating order, first runs
# (--no-cache) and repeated runs apart:
#   - the demo env (examples/demo-env: a python, demotorch, no framework with
#     a recipe);
#   - a torch 2.6 stand-in env (tests/e2e/frameworks: 15 CUDA 12 wheels, an
#     older nvJitLink on LD_LIBRARY_PATH), where the new binary judges `import
#     torch` too;
#   - the CUDA 13 wheel env (31 libraries of /usr/local/cuda, no python), when
#     /usr/local/cuda/dist-info is there.
# Prints a Markdown table: the median wall time and the mean CPU time (user +
# system) of each, and new/old. No assertions on time.
#   usage: bench_doctor_ab.sh OLD_BINARY NEW_BINARY [OUT.md]
source "$(dirname "$0")/../e2e/lib.sh"
command -v hyperfine > /dev/null || skip "hyperfine is not installed"
old=${1:?usage: bench_doctor_ab.sh OLD_BINARY NEW_BINARY [OUT.md]}
new=${2:?usage: bench_doctor_ab.sh OLD_BINARY NEW_BINARY [OUT.md]}
out=${3:-/dev/stdout}
runs=${BENCH_RUNS:-20}
rounds=${BENCH_ROUNDS:-4}
per_round=$(((runs + rounds - 1) / rounds))

"$CONDACUDA_SOURCE_DIR/examples/demo-env/build.sh" "$scratch/demo" > /dev/null
python3 - "$scratch/torch" << 'PY'
import os, shutil, sys
sys.path.insert(0, os.path.join(os.environ["CONDACUDA_SOURCE_DIR"], "tests/e2e/frameworks"))
import standins
work = sys.argv[1]
lib = standins.Libraries(work)
site = standins.make_env(os.path.join(work, "env"))
tk = lib.toolkit(12, "$ORIGIN/../../nvjitlink/lib:$ORIGIN")
standins.cuda_wheels(site, tk, 12, list(tk))
standins.torch_package(site, lib, 12, "2.6.0", "12.4")
os.makedirs(os.path.join(work, "cuda-12.0/lib64"))
shutil.copyfile(lib.nvjitlink(12, True), os.path.join(work, "cuda-12.0/lib64/libnvJitLink.so.12"))
PY
envs=(demo "$scratch/demo/env" torch "$scratch/torch/env")
make_cuda13_env "$scratch/cu13" && envs+=(cu13 "$scratch/cu13")
export LD_LIBRARY_PATH=$scratch/torch/cuda-12.0/lib64
sleep 1.1 # files changed in the last second are not cached (sys/load_check_cache.hpp)
line() { printf '%q ' "$@"; }
commands=()
for ((i = 0; i < ${#envs[@]}; i += 2)); do
  for which in old new; do
    bin=$old
    [ "$which" = new ] && bin=$new
    commands+=(-n "${envs[i]} first $which" "$(line "$bin" doctor --json -p "${envs[i + 1]}" --no-cache)")
    commands+=(-n "${envs[i]} repeated $which" "$(line "$bin" doctor --json -p "${envs[i + 1]}")")
  done
done
reversed=()
for ((i = ${#commands[@]} - 3; i >= 0; i -= 3)); do reversed+=("${commands[@]:i:3}"); done
for ((round = 0; round < rounds; round++)); do
  if ((round % 2 == 0)); then order=("${commands[@]}"); else order=("${reversed[@]}"); fi
  hyperfine -N --style none --warmup $((round == 0 ? 3 : 1)) --runs "$per_round" -i \
    --export-json "$scratch/ab-$round.json" "${order[@]}" > /dev/null 2>&1
done
python3 - "$scratch" "$rounds" "$(nproc)" "${envs[@]}" > "$out" << 'PY'
import json, statistics, sys
scratch, rounds, cores, envs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4::2]
wall, cpu = {}, {}
for r in range(rounds):
    for res in json.load(open("%s/ab-%d.json" % (scratch, r)))["results"]:
        wall.setdefault(res["command"], []).extend(res["times"])
        cpu.setdefault(res["command"], []).append(res["user"] + res["system"])
print("| doctor (%s cores) | old wall | new wall | new/old | old CPU | new CPU | new/old |" % cores)
print("|---|---|---|---|---|---|---|")
for env in envs:
    for kind in ("first", "repeated"):
        o, n = "%s %s old" % (env, kind), "%s %s new" % (env, kind)
        wo, wn = statistics.median(wall[o]) * 1000, statistics.median(wall[n]) * 1000
        co, cn = statistics.mean(cpu[o]) * 1000, statistics.mean(cpu[n]) * 1000
        print("| %s env, %s run | %.1f ms | %.1f ms | %.3f | %.1f ms | %.1f ms | %.3f |" % (env, kind, wo, wn, wn / wo, co, cn, cn / co))
PY
cat "$out" > /dev/null
