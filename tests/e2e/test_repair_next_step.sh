#!/usr/bin/env bash
# The next step is said (issue 51): a shell that activated the demo env
# before its repair (CONDA_PREFIX set, no hook ran; the older system
# nvJitLink on LD_LIBRARY_PATH) runs `repair`. The import still fails in that
# very shell; repair says so: "healthy once activated", the launch without
# activation that still fails with its fix, and the line that re-activates the
# env in this shell. Real bash then does what that line does (conda's
# deactivate and activate source the env's deactivate.d and activate.d) and
# the import works in the same shell; `repair --pin` leaves nothing failing
# and says plain "healthy".
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"
broken="undefined symbol: __nvJitLinkAddData_12_1"
out=$(bash -c '
  export CONDA_PREFIX=$1 LD_LIBRARY_PATH=$2
  "$3" repair -p "$1" > "$5/repair.txt"
  "$3" repair -p "$1" --dry-run --json > "$5/repair.json" || echo "$?" > "$5/dry-run.status"
  "$1/bin/python3" -c "$4" > "$5/before.txt" 2>&1 || true
  # What `conda deactivate && conda activate ENV` does to the hook: activate.d sourced.
  for f in "$1"/etc/conda/activate.d/*.sh; do . "$f"; done
  "$1/bin/python3" -c "$4" 2>&1
' shell "$env" "$system" "$CONDACUDA" "$import" "$scratch")
[ ! -e "$scratch/dry-run.status" ] || fail "repair --dry-run --json after the repair exited $(cat "$scratch/dry-run.status")"
case "$(cat "$scratch/before.txt")" in *"$broken"*) ;; *) fail "the import did not fail in the shell before re-activation" ;; esac
expect_eq "$out" "sparse 12100" "the import after the re-activation repair named"
grep -q '^doctor after: healthy once activated (0 error(s), 1 warning(s)); still failing:$' "$scratch/repair.txt" ||
  fail "repair's verdict hides the launch that still fails: $(grep 'doctor after' "$scratch/repair.txt")"
if ! grep -qx "  - 2 file(s) load only when the env is activated" "$scratch/repair.txt" ||
  ! grep -qx "         condacuda repair -p '$env' --pin" "$scratch/repair.txt"; then
  fail "the launch without activation is not listed with its fix (the pin command alone on a line): $(cat "$scratch/repair.txt")"
fi
python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/frameworks/text_rules.py" repair "$scratch/repair.txt" || fail "repair's text breaks the layout rules"
grep -qx "    conda deactivate && conda activate '$env'" "$scratch/repair.txt" ||
  fail "no re-activation line: $(sed -n '/^next/,$p' "$scratch/repair.txt")"
note "a shell where the env is not active gets no re-activation line"
env -u CONDA_PREFIX LD_LIBRARY_PATH="$system" "$CONDACUDA" repair -p "$env" > "$scratch/other.txt"
grep -q '^next' "$scratch/other.txt" && fail "a re-activation line for a shell that did not activate the env"
note "repair --pin: nothing left failing, plain healthy"
env -u CONDA_PREFIX LD_LIBRARY_PATH="$system" "$CONDACUDA" repair -p "$env" --pin --json > "$scratch/pin.json"
expect_eq "$(json "$scratch/pin.json" 'j["still_failing"], j["after"]["healthy"]')" "([], True)" "after --pin"
