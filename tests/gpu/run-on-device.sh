#!/usr/bin/env bash
# The device run of condacuda (README, "GPU check"): one call on a machine with
# an NVIDIA GPU, with what tests/gpu/prepare-device.sh built here carried in
# .device/ (nothing is built there):
#
#   bash tests/gpu/prepare-device.sh                  # here
#   run(command="bash tests/gpu/run-on-device.sh", carry=[".device"], timeout_s=540)
#
# Steps, each under `timeout`, all within one time guard (default 480 s: the
# whole run <= 8 minutes; a step that would not fit is skipped and recorded):
#   0. facts: nvidia-smi, the driver, the kernel, the binary
#   1. doctor --gpu auto: the static prediction for this GPU, from the env's
#      fatbins -> doctor-gpu.json
#   2. check --json at full sizes, cold then warm -> check.json (the loader
#      and coverage predictions next to what the device did)
#   3. check --quick --python: torch, jax, cupy with the activated env
#   4. the same sizes through torch (torch_side_by_side.py) -> torch.json
#   4b. doctor's `import torch` verdict (its recipe run in the loader model)
#      against the real import, as is and with the older nvJitLink first
#   5. the seed scenario: the older libnvJitLink.so.13 prepended to the image's
#      LD_LIBRARY_PATH; import torch as is; doctor names it; check --as-is
#      fails on cuSPARSE; `condacuda run` and the planned folders pass; the
#      repair hook (if repair can write the env) does too; undo -> seed.json
# After every step run.json (every fact so far), seed.json and summary.txt
# (tests/gpu/summarize_device_run.py) are rewritten: a run cut short still
# reports what it saw. log.txt has everything printed.
# Environment: OUT (the folder that comes back; default /tmp/condacuda-device),
# CONDACUDA_DEVICE_ENV (default /opt/torch/.venv), CONDACUDA_DEVICE_BIN
# (default .device/condacuda), CONDACUDA_DEVICE_OLD (the folder of the planted
# libnvJitLink.so.13; default .device/old-cuda/lib64), CONDACUDA_DEVICE_BUDGET_S.
set -uo pipefail # not -e: every step reports, and the summary is always written

OUT=${OUT:-/tmp/condacuda-device}
ENV_PREFIX=${CONDACUDA_DEVICE_ENV:-/opt/torch/.venv}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${CONDACUDA_DEVICE_BIN:-$root/.device/condacuda}
old=${CONDACUDA_DEVICE_OLD:-$root/.device/old-cuda/lib64}
budget=${CONDACUDA_DEVICE_BUDGET_S:-480}
started=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/condacuda-device.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1

facts=$work/facts.tsv # key<TAB>value, in the order recorded
: > "$facts"
record() { printf '%s\t%s\n' "$1" "${2//$'\n'/ }" >> "$facts"; }
section() { echo; echo "=== $* ($(( $(date +%s) - started )) s in)"; }
now() { date +%s.%N; }
elapsed() { python3 -c "print(round($2 - $1, 3))"; }
jget() { python3 -c 'import json, sys
try:
    j = json.load(open(sys.argv[1]))
    print(eval(sys.argv[2]))
except Exception as e:
    print("n/a (%s)" % e)' "$1" "$2"; }
python=$ENV_PREFIX/bin/python3

# bounded LIMIT CMD...: CMD under `timeout`, at most LIMIT seconds and never
# past the time guard (10 s kept for the summary); 124 without running it
# when fewer than 5 s would be left.
bounded() {
  local limit=$1 left
  shift
  left=$(( budget - ($(date +%s) - started) - 10 ))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -lt 5 ]; then
    echo "time guard: not run: $*"
    record "time guard" "skipped $(basename "$1") ${2:-} after $(( $(date +%s) - started )) s"
    return 124
  fi
  timeout -k 5 "$limit" "$@"
}

# flush: run.json, seed.json and summary.txt from what was recorded so far.
flush() {
  python3 - "$facts" "$OUT" << 'PY'
import json, sys
facts = [line.rstrip("\n").split("\t", 1) for line in open(sys.argv[1]) if "\t" in line]
seed = {k: v for k, v in facts if k.startswith("seed:")}
run = {}
for k, v in facts:
    if not k.startswith("seed:"):
        run[k] = v if k not in run else run[k] + "; " + v
json.dump(run, open(sys.argv[2] + "/run.json", "w"), indent=1)
json.dump({k[len("seed: "):]: v for k, v in seed.items()}, open(sys.argv[2] + "/seed.json", "w"), indent=1)
PY
  timeout 30 python3 "$here/summarize_device_run.py" "$OUT" > /dev/null 2>&1 || echo "(the summary could not be written)"
}

section "0. facts"
bounded 30 nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.sm,clocks.max.sm,clocks.mem,memory.total \
  --format=csv > "$work/smi.txt" 2>&1
record nvidia_smi "$(tail -1 "$work/smi.txt")"
record driver "$(head -1 /proc/driver/nvidia/version 2> /dev/null || echo 'no /proc/driver/nvidia/version')"
record kernel "$(uname -sr)"
record env "$ENV_PREFIX"
record ld_library_path "${LD_LIBRARY_PATH:-(unset)}"
if ! [ -x "$bin" ] || ! bounded 20 "$bin" --version > "$work/version.txt" 2>&1; then
  record condacuda "none usable at $bin: run tests/gpu/prepare-device.sh and carry .device"
  flush
  cat "$OUT/summary.txt" 2> /dev/null
  exit 1
fi
record condacuda "$(head -1 "$work/version.txt")"
[ -x "$python" ] || record python "no python at $python"
flush

section "1. doctor --gpu auto: the static prediction for this machine's GPU"
bounded 90 "$bin" doctor -p "$ENV_PREFIX" --gpu auto --json > "$OUT/doctor-gpu.json" 2> "$work/doctor-gpu.err"
record "doctor --gpu auto" "exit $?: $(tail -1 "$work/doctor-gpu.err")"
record "doctor --gpu auto findings" "$(jget "$OUT/doctor-gpu.json" '[(f["code"], f["library"], f["title"]) for f in j["findings"] if f["code"] in ("no-kernel-image", "ptx-jit-only", "driver-too-old")]')"
flush

section "2. check, full sizes, cold then warm"
for run in cold warm; do
  t0=$(now)
  bounded 150 "$bin" check -p "$ENV_PREFIX" --json > "$work/check-$run.json"
  status=$?
  wall=$(elapsed "$t0" "$(now)")
  record "check_${run}_exit" "$status"
  record "check_${run}_wall_s" "$wall"
  echo "$run: exit $status in $wall s: $(jget "$work/check-$run.json" 'j["reason"]')"
  [ -s "$work/check-$run.json" ] && cp "$work/check-$run.json" "$OUT/check.json"
  flush
done
record "check: child started with" "$(jget "$OUT/check.json" 'j["probe"]["started_with"]')"
record "check: loader predictions agree" "$(jget "$OUT/check.json" 'all(l["prediction_matches"] for l in j["libraries"]) and j["loaded_objects"]["matches"]')"
record "check: coverage prediction" "$(jget "$OUT/check.json" '[(c["component"], c["device"], c["predicted"], c["target"], c["observed"], c["matches"]) for c in j["gpu_coverage"]]')"
record "check: warnings" "$(jget "$OUT/check.json" '[(w["code"], w["message"][:160]) for w in j["warnings"]]')"
bounded 60 "$bin" check -p "$ENV_PREFIX" --quick > "$work/check.txt" 2>&1 # the text form, for the log
cat "$work/check.txt"
flush

section "3. check --quick --python"
bounded 150 "$bin" check -p "$ENV_PREFIX" --quick --python --json > "$OUT/check-python.json"
record check_python_exit "$?"
record check_python "$(jget "$OUT/check-python.json" '[(p["framework"], p["status"], p["detail"] or p["error"]) for p in j["python"]]')"
flush

section "4. the same sizes through torch"
bounded 150 "$python" "$here/torch_side_by_side.py" > "$OUT/torch.json"
record torch_exit "$?"
cat "$OUT/torch.json"
flush

planted=$old${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
section "4b. doctor's import torch verdict against the real import, without and with the older CUDA folder"
probe_import='import sys
try:
    import torch
    print("loads")
except BaseException as e:
    print("fails", type(e).__name__ + ": " + str(e))'
# compare_import NAME LD_LIBRARY_PATH: the real `import torch` and doctor's program verdict, one fact.
compare_import() {
  local real model
  real=$(LD_LIBRARY_PATH=$2 bounded 90 "$python" -c "$probe_import" 2>/dev/null | tail -1)
  LD_LIBRARY_PATH=$2 bounded 60 "$bin" doctor -p "$ENV_PREFIX" --json > "$work/doctor-import.json" 2>/dev/null
  model=$(jget "$work/doctor-import.json" '" ".join(["loads"] if p["verdict"] == "loads" else ["fails", p["error"] or ""]) if (p := next((p for p in j["programs"] if p["framework"] == "torch"), None)) else "no torch program"')
  record "import torch $1" "real: $real | doctor ($(jget "$work/doctor-import.json" 'next((p["recipe"] for p in j["programs"] if p["framework"] == "torch"), None)')): $model | agree: $([ "$real" = "$model" ] && echo yes || echo NO)"
  flush
}
compare_import "as is" "${LD_LIBRARY_PATH:-}"
[ -e "$old/libnvJitLink.so.13" ] && compare_import "older nvJitLink first" "$planted"

section "5. the seed scenario: an older libnvJitLink.so.13 prepended to LD_LIBRARY_PATH"
record "seed: LD_LIBRARY_PATH" "$planted"
[ -e "$old/libnvJitLink.so.13" ] || record "seed: error" "no planted library at $old/libnvJitLink.so.13 (prepare-device.sh)"
probe_torch='import torch; x = torch.ones(1024, device="cuda"); print("torch", torch.__version__, torch.cuda.get_device_name(0), float(x.sum()))'
seed() { # NAME LIMIT CMD...: CMD with the planted LD_LIBRARY_PATH, its exit status and last line recorded
  local name=$1 limit=$2
  shift 2
  LD_LIBRARY_PATH=$planted bounded "$limit" "$@" > "$work/seed.out" 2>&1
  record "seed: $name" "exit $?: $(tail -1 "$work/seed.out")"
  flush
}
seed "import torch as is" 90 "$python" -c "$probe_torch"
LD_LIBRARY_PATH=$planted bounded 60 "$bin" doctor -p "$ENV_PREFIX" --json > "$work/doctor.json"
record "seed: doctor as is" "exit $?: $(jget "$work/doctor.json" '[(f["code"], f["library"], f["resolved_path"], f["via_entry"]) for f in j["findings"] if f["severity"] == "error"]')"
LD_LIBRARY_PATH=$planted bounded 90 "$bin" check -p "$ENV_PREFIX" --as-is --quick --json > "$work/check-asis.json"
record "seed: check --as-is" "exit $?: $(jget "$work/check-asis.json" 'j["reason"]')"
record "seed: check --as-is findings" "$(jget "$work/check-asis.json" '[(f["code"], f["library"], f["via_entry"]) for f in j["findings"]]')"
record "seed: check --as-is predictions agree" "$(jget "$work/check-asis.json" 'all(l["prediction_matches"] for l in j["libraries"]) and j["loaded_objects"]["matches"]')"
LD_LIBRARY_PATH=$planted bounded 90 "$bin" check -p "$ENV_PREFIX" --quick --json > "$work/check-plan.json"
record "seed: check (planned folders)" "exit $?: $(jget "$work/check-plan.json" 'j["reason"]') [$(jget "$work/check-plan.json" 'j["ld_library_path"]["source"]')]"
flush
seed "condacuda run -- import torch" 90 "$bin" run -p "$ENV_PREFIX" -- "$python" -c "$probe_torch"
LD_LIBRARY_PATH=$planted bounded 60 "$bin" repair -p "$ENV_PREFIX" > "$work/repair.txt" 2>&1
repair_status=$?
record "seed: repair" "exit $repair_status: $(tail -1 "$work/repair.txt")"
if [ "$repair_status" = 0 ]; then
  LD_LIBRARY_PATH=$planted bounded 90 "$bin" check -p "$ENV_PREFIX" --quick --json > "$work/check-hook.json"
  record "seed: check after repair (hook)" "exit $?: $(jget "$work/check-hook.json" 'j["reason"]') [$(jget "$work/check-hook.json" 'j["ld_library_path"]["source"]')]"
  hook=$ENV_PREFIX/etc/conda/activate.d/condacuda.sh
  [ -f "$hook" ] && seed "import torch with the hook sourced" 90 \
    env CONDA_PREFIX="$ENV_PREFIX" bash -c ". '$hook' && exec '$python' -c '$probe_torch'"
  bounded 60 "$bin" undo -p "$ENV_PREFIX" > "$work/undo.txt" 2>&1
  record "seed: undo" "exit $?: $(tail -1 "$work/undo.txt")"
fi

section "6. summary"
record "wall_s" "$(( $(date +%s) - started ))"
flush
cat "$OUT/summary.txt" 2> /dev/null
