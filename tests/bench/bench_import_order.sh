#!/usr/bin/env bash
# What doctor's import-order pass costs (issue 17): `condacuda doctor` on two
# envs, beside a doctor built without that pass (BENCH_DOCTOR_BEFORE: a binary
# of the commit before import order, e.g. fed33de; without it, only the
# current figures are printed).
#   - the CUDA 13 wheel env (/usr/local/cuda laid out as an env): one copy of
#     each soname, so no pair of roots is simulated;
#   - a big env: the same plus an older nvJitLink 13 in $PREFIX/lib (conda's
#     place) and BENCH_CONSUMERS (default 40) extension modules, half of them
#     reaching that copy through RUNPATH $ORIGIN/../../.., half the wheel's:
#     every pair of one from each half, and each of the first half with every
#     CUDA library that loads the wheel's nvJitLink (cuSPARSE, cuSOLVER, ...),
#     is loaded in both orders in one simulated process.
# One hyperfine run, each doctor called directly (-N: no shell). Prints a
# Markdown table: median wall time and mean CPU time (user + system: what to
# compare on a shared machine); BENCH_RUNS (default 10) sets the runs. No
# assertions on time.
#   usage: bench_import_order.sh [OUT.md]
source "$(dirname "$0")/../e2e/lib.sh"
command -v hyperfine > /dev/null || skip "hyperfine is not installed"
make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
make_cuda13_env "$scratch/big" || skip "no /usr/local/cuda/dist-info on this machine"
runs=${BENCH_RUNS:-10}
consumers=${BENCH_CONSUMERS:-40}
out=${1:-/dev/stdout}
before=${BENCH_DOCTOR_BEFORE:-}

big=$scratch/big
add_big_env_consumers "$big" "$consumers"

unset LD_LIBRARY_PATH # as in a user's shell (set and empty, it names the working folder)
doctor() { echo "$1 doctor -p $2 --json --no-ld-library-path"; }
commands=(-n "CUDA 13 env" "$(doctor "$CONDACUDA" "$scratch/cu13")" -n "big env" "$(doctor "$CONDACUDA" "$big")")
if [ -n "$before" ]; then
  commands+=(-n "CUDA 13 env, before" "$(doctor "$before" "$scratch/cu13")" -n "big env, before" "$(doctor "$before" "$big")")
fi
hyperfine -N --style none --warmup 2 --runs "$runs" -i --export-json "$scratch/h.json" "${commands[@]}" > /dev/null 2>&1
expect_status 1 "$CONDACUDA" doctor -p "$big" --json --no-ld-library-path > "$scratch/big.json" # its import-order errors
python3 - "$scratch/h.json" "$scratch/big.json" "$(nproc)" > "$out" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
big = json.load(open(sys.argv[2]))
t = {r["command"]: r["median"] for r in h["results"]}
cpu = {r["command"]: r["user"] + r["system"] for r in h["results"]}
roots = len(big["roots"])
order = [f for f in big["findings"] if f["code"] == "import-order"]
affected = sum(len(f["affects"]) for f in order)
print("| doctor, %s cores | median | before import order | after / before | CPU | CPU before | after / before |" % sys.argv[3])
print("|---|---|---|---|---|---|---|")
for name in ("CUDA 13 env", "big env"):
    b, cb = t.get(name + ", before"), cpu.get(name + ", before")
    print("| %s | %.1f ms | %s | %s | %.1f ms | %s | %s |" % (
        name, t[name] * 1000, "%.1f ms" % (b * 1000) if b else "-", "%.2fx" % (t[name] / b) if b else "-",
        cpu[name] * 1000, "%.1f ms" % (cb * 1000) if cb else "-", "%.2fx" % (cpu[name] / cb) if cb else "-"))
print()
print("big env: %d roots, %d import-order findings naming %d roots" % (roots, len(order), affected))
PY
