#!/usr/bin/env bash
# The device run of `condacuda check` (one call, about 3-5 minutes on an H200;
# see the README section "GPU check"). From a session that has a device:
#
#   run(command="bash tests/gpu/run-on-device.sh", carry=[".device"], timeout_s=540)
#
# Steps:
#   0. facts: nvidia-smi (driver, persistence mode, clocks)
#   1. condacuda: built there (cmake + ninja, Release, no tests); if the
#      image lacks a build dependency, the binary carried in .device/condacuda
#      (built here: static C++ runtime, only libc and libm needed)
#   2. `condacuda check --json` on /opt/torch/.venv (the real PyTorch 2.11 +
#      CUDA 13 wheel layout) at full sizes, twice: cold, then warm -> check.json
#   3. `check --quick --python --json`: torch, jax, cupy imported and run with
#      the activated environment -> check-python.json
#   4. the same sizes through torch (tests/gpu/torch_side_by_side.py) -> torch.json
#   5. the seed scenario for real: an older libnvJitLink.so.13 planted on
#      LD_LIBRARY_PATH; `import torch` as is; doctor names it; check --as-is
#      fails on cuSPARSE; `condacuda run` and the planned folders make torch
#      import and the check pass; repair's hook (if repair can write the env)
#      does too; undo -> seed.json
#   6. summary.txt: the check's figures, torch's, the ratios, the targets
#      (whole check <= 2 s wall; bf16 GEMM >= 90 % of torch's; SpMV >= 60 % of
#      the measured copy bandwidth); log.txt: everything printed.
# Environment: OUT (the folder that comes back; default /tmp/condacuda-device),
# CONDACUDA_DEVICE_ENV (default /opt/torch/.venv), CONDACUDA_PREBUILT=1 to
# skip the build and use .device/condacuda.
set -uo pipefail # not -e: every step reports, and the summary is always written

OUT=${OUT:-/tmp/condacuda-device}
ENV_PREFIX=${CONDACUDA_DEVICE_ENV:-/opt/torch/.venv}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../tools/old_nvjitlink13.sh
source "$here/../tools/old_nvjitlink13.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/condacuda-device.XXXXXX")
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1

facts=$work/facts.tsv # key<TAB>value, turned into run.json at the end
: > "$facts"
record() { printf '%s\t%s\n' "$1" "$2" >> "$facts"; }
section() { echo; echo "=== $*"; }
now() { date +%s.%N; }
elapsed() { python3 -c "print(round($2 - $1, 3))"; }
jget() { python3 -c 'import json, sys
try:
    j = json.load(open(sys.argv[1]))
    print(eval(sys.argv[2]))
except Exception as e:
    print("n/a (%s)" % e)' "$1" "$2"; }
python=$ENV_PREFIX/bin/python3

section "0. facts"
nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.sm,clocks.max.sm,clocks.mem,memory.total \
  --format=csv 2>&1 | tee "$work/smi.txt"
record nvidia_smi "$(tail -1 "$work/smi.txt")"
record env "$ENV_PREFIX"
[ -x "$python" ] || echo "no python at $python"

section "1. condacuda"
bin=""
if [ "${CONDACUDA_PREBUILT:-0}" != 1 ] && command -v cmake > /dev/null && command -v ninja > /dev/null; then
  t0=$(now)
  if cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCONDACUDA_BUILD_TESTS=OFF \
       > "$work/cmake.log" 2>&1 && timeout 300 ninja -C "$work/build" condacuda > "$work/ninja.log" 2>&1; then
    bin=$work/build/src/condacuda
    record build "built here in $(elapsed "$t0" "$(now)") s"
  else
    echo "building here failed (last lines):"
    tail -5 "$work/cmake.log" "$work/ninja.log" 2> /dev/null
    record build_error "$(grep -m1 -iE 'could not find|error' "$work/cmake.log" "$work/ninja.log" 2> /dev/null | head -1)"
  fi
fi
if [ -z "$bin" ] && [ -x "$root/.device/condacuda" ]; then
  bin=$root/.device/condacuda
  record build "carried .device/condacuda"
fi
if [ -z "$bin" ] || ! "$bin" --version; then
  echo "no usable condacuda: carry .device/condacuda (see the header of this script)"
  record build "none"
  bin=false
fi

section "2. check, full sizes, cold then warm"
for run in cold warm; do
  t0=$(now)
  timeout 300 "$bin" check -p "$ENV_PREFIX" --json > "$work/check-$run.json"
  status=$?
  wall=$(elapsed "$t0" "$(now)")
  record "check_${run}_exit" "$status"
  record "check_${run}_wall_s" "$wall"
  echo "$run: exit $status in $wall s: $(jget "$work/check-$run.json" 'j["reason"]')"
done
cp "$work/check-warm.json" "$OUT/check.json"
"$bin" check -p "$ENV_PREFIX" > "$work/check.txt" 2>&1 # the text form, for the log
cat "$work/check.txt"

section "3. check --quick --python"
timeout 300 "$bin" check -p "$ENV_PREFIX" --quick --python --json > "$OUT/check-python.json"
record check_python_exit "$?"
echo "python: $(jget "$OUT/check-python.json" '[(p["framework"], p["status"], p["detail"] or p["error"]) for p in j["python"]]')"

section "4. the same sizes through torch"
timeout 300 "$python" "$here/torch_side_by_side.py" > "$OUT/torch.json"
record torch_exit "$?"
cat "$OUT/torch.json"

section "5. the seed scenario: an older libnvJitLink.so.13 on LD_LIBRARY_PATH"
old=$work/old-cuda/lib64
build_old_nvjitlink13 "$old" "$work/old-src" || record seed_error "could not build the planted library"
probe_torch='import torch; x = torch.ones(1024, device="cuda"); print("torch", torch.__version__, torch.cuda.get_device_name(0), float(x.sum()))'

LD_LIBRARY_PATH=$old timeout 120 "$python" -c "$probe_torch" > "$work/import.txt" 2>&1
record "import torch as is" "exit $?: $(tail -1 "$work/import.txt")"
LD_LIBRARY_PATH=$old timeout 120 "$bin" doctor -p "$ENV_PREFIX" --json > "$work/doctor.json"
record "doctor as is" "exit $?: $(jget "$work/doctor.json" '[(f["code"], f["library"], f["resolved_path"], f["via_entry"]) for f in j["findings"] if f["severity"] == "error"]')"
LD_LIBRARY_PATH=$old timeout 120 "$bin" check -p "$ENV_PREFIX" --as-is --quick --json > "$work/check-asis.json"
record "check --as-is" "exit $?: $(jget "$work/check-asis.json" 'j["reason"]')"
record "check --as-is findings" "$(jget "$work/check-asis.json" '[(f["code"], f["library"], f["via_entry"]) for f in j["findings"]]')"
record "check --as-is predictions agree" "$(jget "$work/check-asis.json" 'all(l["prediction_matches"] for l in j["libraries"]) and j["loaded_objects"]["matches"]')"
LD_LIBRARY_PATH=$old timeout 120 "$bin" check -p "$ENV_PREFIX" --quick --json > "$work/check-plan.json"
record "check (planned folders)" "exit $?: $(jget "$work/check-plan.json" 'j["reason"]') [$(jget "$work/check-plan.json" 'j["ld_library_path"]["source"]')]"
LD_LIBRARY_PATH=$old timeout 120 "$bin" run -p "$ENV_PREFIX" -- "$python" -c "$probe_torch" > "$work/run.txt" 2>&1
record "condacuda run -- import torch" "exit $?: $(tail -1 "$work/run.txt")"
LD_LIBRARY_PATH=$old timeout 120 "$bin" repair -p "$ENV_PREFIX" > "$work/repair.txt" 2>&1
repair_status=$?
record "repair" "exit $repair_status: $(tail -1 "$work/repair.txt")"
if [ "$repair_status" = 0 ]; then
  LD_LIBRARY_PATH=$old timeout 120 "$bin" check -p "$ENV_PREFIX" --quick --json > "$work/check-hook.json"
  record "check after repair (hook)" "exit $?: $(jget "$work/check-hook.json" 'j["reason"]') [$(jget "$work/check-hook.json" 'j["ld_library_path"]["source"]')]"
  hook=$ENV_PREFIX/etc/conda/activate.d/condacuda.sh
  if [ -f "$hook" ]; then
    LD_LIBRARY_PATH=$old CONDA_PREFIX=$ENV_PREFIX timeout 120 bash -c ". '$hook' && exec '$python' -c '$probe_torch'" > "$work/hook.txt" 2>&1
    record "import torch with the hook sourced" "exit $?: $(tail -1 "$work/hook.txt")"
  fi
  timeout 120 "$bin" undo -p "$ENV_PREFIX" > "$work/undo.txt" 2>&1
  record "undo" "exit $?: $(tail -1 "$work/undo.txt")"
fi
python3 - "$facts" "$OUT/seed.json" "$OUT/run.json" << 'PY'
import json, sys
facts = [line.rstrip("\n").split("\t", 1) for line in open(sys.argv[1]) if "\t" in line]
seed_keys = [k for k, _ in facts if k.startswith(("import", "doctor", "check --", "check (", "condacuda run", "repair", "check after", "undo", "seed"))]
json.dump({k: v for k, v in facts if k in seed_keys}, open(sys.argv[2], "w"), indent=1)
json.dump({k: v for k, v in facts if k not in seed_keys}, open(sys.argv[3], "w"), indent=1)
PY
cat "$OUT/seed.json"

section "6. summary"
python3 "$here/summarize_device_run.py" "$OUT"
rm -rf "$work"
