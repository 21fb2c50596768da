#!/usr/bin/env bash
# The device recipe (tests/gpu/run-on-device.sh) rehearsed here, with the
# binary of this build and the real CUDA 13 libraries laid out as wheels
# (skipped without them): where there is no GPU every step still ends, writes
# run.json, seed.json and summary.txt, and the run exits 0; the planted
# nvJitLink goes in front of the LD_LIBRARY_PATH the machine has, not in its
# place; a time guard too short for the steps skips them and says so, and the
# files are written all the same.
source "$(dirname "$0")/lib.sh"

make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
build_old_nvjitlink13 "$scratch/old/lib64" "$scratch/old-src"
recipe() { # OUT BUDGET: the recipe on the cu13 env
  OUT=$1 CONDACUDA_DEVICE_ENV=$scratch/cu13 CONDACUDA_DEVICE_BIN=$CONDACUDA CONDACUDA_DEVICE_OLD=$scratch/old/lib64 \
    CONDACUDA_DEVICE_BUDGET_S=$2 LD_LIBRARY_PATH=/opt/image/lib timeout -k 5 600 bash "$CONDACUDA_SOURCE_DIR/tests/gpu/run-on-device.sh" \
    > "$1.stdout" 2>&1
}

note "the whole recipe"
mkdir -p "$scratch/out"
status=0
recipe "$scratch/out" 480 || status=$?
expect_eq "$status" 0 "the recipe's exit status ($(tail -3 "$scratch/out.stdout"))"
for f in run.json seed.json summary.txt log.txt check.json; do
  [ -s "$scratch/out/$f" ] || fail "the recipe wrote no $f"
done
expect_eq "$(json "$scratch/out/seed.json" 'j["LD_LIBRARY_PATH"]')" "$scratch/old/lib64:/opt/image/lib" \
  "the planted folder goes in front of the machine's LD_LIBRARY_PATH"
expect_eq "$(json "$scratch/out/run.json" 'j["ld_library_path"]')" "/opt/image/lib" "the machine's LD_LIBRARY_PATH, recorded"
expect_eq "$(json "$scratch/out/run.json" 'sorted(k for k in j if k.startswith(("doctor --gpu auto", "check: coverage", "check_warm")))')" \
  "['check: coverage prediction', 'check_warm_exit', 'check_warm_wall_s', 'doctor --gpu auto', 'doctor --gpu auto findings']" \
  "the static predictions and the check, recorded"
expect_eq "$(json "$scratch/out/run.json" '"time guard" in j')" False "nothing skipped within 480 s"
expect_eq "$(json "$scratch/out/check.json" 'j["schema"]')" "condacuda.check/1" "check.json is the check's"
grep -q "^seed scenario" "$scratch/out/summary.txt" || fail "summary.txt has no seed section"
if has_driver; then
  [ -s "$scratch/out/doctor-gpu.json" ] || fail "the recipe wrote no doctor-gpu.json"
else
  expect_eq "$(json "$scratch/out/run.json" 'j["check_warm_exit"]')" 3 "no GPU here: the check says so (exit 3)"
  expect_eq "$(json "$scratch/out/run.json" 'j["doctor --gpu auto"].split(" (no /proc")[0]')" \
    "exit 2: condacuda: --gpu auto: no NVIDIA GPU visible" "doctor --gpu auto without a GPU"
fi

note "a time guard shorter than the steps: skipped, recorded, the files written"
mkdir -p "$scratch/short"
status=0
recipe "$scratch/short" 16 || status=$?
expect_eq "$status" 0 "the recipe's exit status under a short guard"
grep -q '"time guard": "skipped ' "$scratch/short/run.json" || fail "run.json does not say what the time guard skipped"
[ -s "$scratch/short/summary.txt" ] || fail "no summary.txt under a short guard"
