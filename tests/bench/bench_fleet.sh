#!/usr/bin/env bash
# Speed of `condacuda fleet --from DIR` (reading node documents gathered
# another way, classifying the nodes, writing the report: --json, which
# holds every node's document, and the text): for each N of
# BENCH_SIZES (default "1000 10000"), a folder of N `condacuda doctor --json`
# documents, copied from four real ones (the demo env, repaired, its node
# facts varied through CONDACUDA_GPU, CONDACUDA_DRIVER and LD_LIBRARY_PATH)
# to gpu00001 .. gpuN, one file each: three classes (keyed on the verdict:
# the V100 nodes load as the A100 ones do, one class with mixed facts), the
# exit code 1 (hyperfine -i), no malformed input. hyperfine
# calls the binary directly (-N: no shell), after BENCH_WARMUP (default 2)
# warm-up runs, BENCH_RUNS (default 10) runs. Prints a Markdown table: mean
# ± standard deviation of each, its mean CPU time (user + system: what to
# compare on a shared machine), and the peak RSS of one --json run
# (peak_rss.py). No assertions on time.
#   usage: bench_fleet.sh [OUT.md]
source "$(dirname "$0")/../e2e/lib.sh"
command -v hyperfine > /dev/null || skip "hyperfine is not installed"
sizes=${BENCH_SIZES:-1000 10000}
runs=${BENCH_RUNS:-10}
warmup=${BENCH_WARMUP:-2}
out=${1:-/dev/stdout}

demo_env "$scratch/demo"
"$CONDACUDA" repair -p "$env" > /dev/null
# template NAME STATUS GPU DRIVER LD_LIBRARY_PATH|-: one real doctor document (- : unset).
template() {
  local path=(LD_LIBRARY_PATH="$5")
  [ "$5" = - ] && path=(-u LD_LIBRARY_PATH)
  expect_status "$2" env "${path[@]}" CONDACUDA_GPU="$3" CONDACUDA_DRIVER="$4" \
    "$CONDACUDA" doctor -p "$env" --json --gpu visible --context not-activated > "$scratch/$1.json"
}
template healthy 0 A100 550.54.15 -
template shadowed 1 A100 550.54.15 "$system"
template v100 0 V100 535.104.05 -
template old 1 H100 470.57.02 -

commands=()
for n in $sizes; do
  python3 - "$scratch" "$n" << 'PY'
import json, os, sys

scratch, n = sys.argv[1], int(sys.argv[2])
t = {k: json.load(open(f"{scratch}/{k}.json")) for k in ("healthy", "shadowed", "v100", "old")}
folder = f"{scratch}/docs{n}"
os.makedirs(folder)
for i in range(1, n + 1):
    name = f"gpu{i:05d}"
    kind = "shadowed" if i % 50 == 0 else "old" if i % 97 == 0 else "v100" if i * 5 // n == 2 else "healthy"
    d = t[kind]
    d["node"].update(name=name, slurm_node=name, hostname=name)
    with open(f"{folder}/{name}.json", "w") as f:
        json.dump(d, f, indent=2)
PY
  expect_status 1 "$CONDACUDA" fleet --from "$scratch/docs$n" --json > "$scratch/fleet$n.json"
  commands+=(-n "$n json" "$CONDACUDA fleet --from $scratch/docs$n --json" -n "$n text" "$CONDACUDA fleet --from $scratch/docs$n --color never")
done

hyperfine -N --style none --warmup "$warmup" --runs "$runs" -i --export-json "$scratch/h.json" "${commands[@]}" > /dev/null 2>&1
for n in $sizes; do
  read -r rss _ < <(python3 "$(dirname "$0")/peak_rss.py" 1 "$CONDACUDA" fleet --from "$scratch/docs$n" --json)
  echo "$n $rss"
done > "$scratch/rss"
python3 - "$scratch" "$runs" "$(nproc)" > "$out" << 'PY'
import json, sys

scratch, runs, cores = sys.argv[1], sys.argv[2], sys.argv[3]
h = {r["command"]: r for r in json.load(open(f"{scratch}/h.json"))["results"]}
rss = dict(line.split() for line in open(f"{scratch}/rss"))
print("| fleet --from DIR, %s cores, %s runs | classes | --json: mean ± σ | --json CPU | CPU per document | text: mean ± σ "
      "| text CPU | --json peak RSS |" % (cores, runs))
print("|---|---|---|---|---|---|---|---|")
for n in rss:
    f = json.load(open(f"{scratch}/fleet{n}.json"))
    assert f["summary"]["nodes"] == int(n), f["summary"]
    j, t = h[n + " json"], h[n + " text"]
    cpu_j, cpu_t = j["user"] + j["system"], t["user"] + t["system"]  # hyperfine's means
    print("| %s documents | %d | %.1f ms ± %.1f ms | %.1f ms | %.1f µs | %.1f ms ± %.1f ms | %.1f ms | %.1f MiB |" % (
        n, f["summary"]["classes"], j["mean"] * 1000, j["stddev"] * 1000, cpu_j * 1000, cpu_j / int(n) * 1e6,
        t["mean"] * 1000, t["stddev"] * 1000, cpu_t * 1000, float(rss[n])))
PY
cat "$out" > /dev/null
