#!/usr/bin/env bash
# What finding and judging Jupyter kernels costs doctor (issue 50): the same
# torch 2.5.1 stand-in env (tests/e2e/frameworks), with no kernelspec and with
# 20 kernelspecs that run its python (10 in ENV/share/jupyter, 10 in the
# user's data dir, HOME in the scratch folder) and 5 of another interpreter;
# each doctor called directly by hyperfine (-N), in BENCH_ROUNDS (default 4)
# rounds of alternating order, first runs (--no-cache) and repeated runs apart.
# Prints a Markdown table: median wall time and mean CPU time (user + system)
# of each, and with/without. No assertions on time.
#   usage: bench_kernels.sh [BINARY] [OUT.md]
source "$(dirname "$0")/../e2e/lib.sh"
command -v hyperfine > /dev/null || skip "hyperfine is not installed"
bin=${1:-$CONDACUDA}
out=${2:-/dev/stdout}
runs=${BENCH_RUNS:-20}
rounds=${BENCH_ROUNDS:-4}
per_round=$(((runs + rounds - 1) / rounds))

python3 - "$scratch" << 'PY'
import json, os, shutil, sys
sys.path.insert(0, os.path.join(os.environ["CONDACUDA_SOURCE_DIR"], "tests/e2e/frameworks"))
import standins
work = sys.argv[1]
lib = standins.Libraries(os.path.join(work, "build"))
for name in ("plain", "kernels"):
    env = os.path.join(work, name, "env")
    site = standins.make_env(env)
    tk = lib.toolkit(12, "$ORIGIN/../../nvjitlink/lib:$ORIGIN")
    standins.cuda_wheels(site, tk, 12, list(tk))
    standins.torch_package(site, lib, 12, "2.5.1", "12.4")
    os.makedirs(os.path.join(work, name, "home"))
env, home = os.path.join(work, "kernels", "env"), os.path.join(work, "kernels", "home")
def spec(folder, python):
    os.makedirs(folder)
    with open(os.path.join(folder, "kernel.json"), "w") as f:
        json.dump({"argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                   "display_name": os.path.basename(folder), "language": "python"}, f)
for i in range(10):
    spec(os.path.join(env, "share", "jupyter", "kernels", "env-%d" % i), os.path.join(env, "bin", "python3"))
    spec(os.path.join(home, ".local", "share", "jupyter", "kernels", "user-%d" % i), os.path.join(env, "bin", "python3"))
for i in range(5):
    spec(os.path.join(home, ".local", "share", "jupyter", "kernels", "other-%d" % i), "/usr/bin/python3")
PY
unset LD_LIBRARY_PATH JUPYTER_PATH JUPYTER_DATA_DIR XDG_DATA_HOME JUPYTER_RUNTIME_DIR
sleep 1.1 # files changed in the last second are not cached (sys/load_check_cache.hpp)
line() { printf '%q ' "$@"; }
commands=()
for name in plain kernels; do
  for kind in first repeated; do
    cache=()
    [ "$kind" = first ] && cache=(--no-cache)
    commands+=(-n "$name $kind" "$(line env HOME="$scratch/$name/home" "$bin" doctor --json -p "$scratch/$name/env" "${cache[@]}")")
  done
done
# The doctor with 20 kernels lists them all: checked once, before timing.
status=0
HOME=$scratch/kernels/home "$bin" doctor --json -p "$scratch/kernels/env" > "$scratch/kernels.json" || status=$?
doctor_status_agrees "$scratch/kernels.json" "$status"
python3 -c 'import json, sys; k = json.load(open(sys.argv[1]))["kernels"]; assert len(k) == 20, len(k)' "$scratch/kernels.json"
reversed=()
for ((i = ${#commands[@]} - 3; i >= 0; i -= 3)); do reversed+=("${commands[@]:i:3}"); done
for ((round = 0; round < rounds; round++)); do
  if ((round % 2 == 0)); then order=("${commands[@]}"); else order=("${reversed[@]}"); fi
  hyperfine -N --style none --warmup $((round == 0 ? 3 : 1)) --runs "$per_round" -i \
    --export-json "$scratch/k-$round.json" "${order[@]}" > /dev/null 2>&1
done
python3 - "$scratch" "$rounds" "$(nproc)" > "$out" << 'PY'
import json, statistics, sys
scratch, rounds, cores = sys.argv[1], int(sys.argv[2]), sys.argv[3]
wall, cpu = {}, {}
for r in range(rounds):
    for res in json.load(open("%s/k-%d.json" % (scratch, r)))["results"]:
        wall.setdefault(res["command"], []).extend(res["times"])
        cpu.setdefault(res["command"], []).append(res["user"] + res["system"])
print("| doctor, torch 2.5.1 env (%s cores) | no kernelspec | 20 kernelspecs | ratio | CPU without | CPU with | ratio |" % cores)
print("|---|---|---|---|---|---|---|")
for kind in ("first", "repeated"):
    a, b = "plain " + kind, "kernels " + kind
    wa, wb = statistics.median(wall[a]) * 1000, statistics.median(wall[b]) * 1000
    ca, cb = statistics.mean(cpu[a]) * 1000, statistics.mean(cpu[b]) * 1000
    print("| %s run | %.1f ms | %.1f ms | %.3f | %.1f ms | %.1f ms | %.3f |" % (kind, wa, wb, wb / wa, ca, cb, cb / ca))
PY
cat "$out" > /dev/null
