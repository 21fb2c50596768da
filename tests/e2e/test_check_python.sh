#!/usr/bin/env bash
# `condacuda check --python` in the demo env, with a `torch` package that
# imports the demo's extension: the env's python, started with the activated
# environment, fails the import exactly like the seed report, and the
# ImportError is mapped onto doctor's finding (undefined-symbol, the system
# nvJitLink on LD_LIBRARY_PATH, the fix). A framework whose import hangs is
# killed at the timeout and the check still reports.
source "$(dirname "$0")/../gpu/lib.sh"

demo_env "$scratch/demo"
mkdir -p "$sp/torch"
cat > "$sp/torch/__init__.py" <<'PY'
from demotorch import *
__version__ = "0.0+demo"
class version:
    cuda = "12.4"
class cuda:
    @staticmethod
    def is_available():
        return False
PY

# The exit status of each check: 3 without a GPU. On a GPU machine the demo's
# stand-in libraries fail the device steps (its nvJitLink has no
# nvJitLinkCreate: jit-link fails), so 1, or 3 where no device is usable.
note "--python, the env as it is: the ImportError and doctor's explanation"
status=0
"$CONDACUDA" check -p "$env" --ld-library-path "$system" --as-is --python --json > "$scratch/py.json" || status=$?
f=$scratch/py.json
expect_check_status "$status" "1 3" "check --as-is --python"
expect_eq "$(json "$f" 'j["exit_code"]')" "$status" "exit_code in the JSON"
torch='[p for p in j["python"] if p["framework"] == "torch"][0]'
expect_eq "$(json "$f" "${torch}['status']")" "fail" "torch status"
case "$(json "$f" "${torch}['error']")" in
  "ImportError: $sp/demotorch/../nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12") ;;
  *) fail "torch error: $(json "$f" "${torch}['error']")" ;;
esac
expect_eq "$(json "$f" "${torch}['finding']")" "undefined-symbol" "doctor's finding for the ImportError"
expect_eq "$(json "$f" '[x["via_entry"] for x in j["findings"] if x["code"] == "undefined-symbol"][0]')" "$system" \
  "the LD_LIBRARY_PATH entry to blame"
expect_eq "$(json "$f" '[p["status"] for p in j["python"] if p["framework"] != "torch"]')" "['absent', 'absent']" \
  "jax and cupy"
# The probe's own cusparse dlopen fails the same way, as predicted.
expect_eq "$(json "$f" '[l["loaded"] for l in j["libraries"] if l["component"] == "cusparse"][0]')" "False" "cusparse"
predictions_agree "$f"

note "--python with the folders repair would add (the default without a hook): the import works"
status=0
"$CONDACUDA" check -p "$env" --ld-library-path "$system" --python --json > "$scratch/planned.json" || status=$?
expect_check_status "$status" "1 3" "check --python, planned folders"
expect_eq "$(json "$scratch/planned.json" 'j["exit_code"]')" "$status" "exit_code in the JSON"
expect_eq "$(json "$scratch/planned.json" 'j["ld_library_path"]["source"]')" "plan" source
expect_eq "$(json "$scratch/planned.json" "${torch}['status']")" "no-gpu" "torch imports and sees no GPU"
expect_eq "$(json "$scratch/planned.json" 'j["findings"]')" "[]" findings

note "a framework import that hangs is killed at the timeout"
mkdir -p "$sp/jax"
printf 'import time\ntime.sleep(600)\n' > "$sp/jax/__init__.py"
start=$(date +%s)
status=0
"$CONDACUDA" check -p "$env" --python --timeout 3 --json > "$scratch/hang.json" || status=$?
elapsed=$(( $(date +%s) - start ))
[ "$elapsed" -lt 30 ] || fail "check took ${elapsed}s with a 3 s timeout"
f=$scratch/hang.json
expect_check_status "$status" "1 3" "check --python, a hung import"
expect_eq "$(json "$f" 'j["exit_code"]')" "$status" "exit_code in the JSON"
expect_eq "$(json "$f" '[p["status"] for p in j["python"] if p["framework"] == "python"][0]')" "fail" "python killed"
case "$(json "$f" '[p["error"] for p in j["python"] if p["framework"] == "python"][0]')" in
  "python was killed after the 3 s timeout"*) ;;
  *) fail "python: $(json "$f" 'j["python"]')" ;;
esac
# torch's record came before the hang.
expect_eq "$(json "$f" "${torch}['status']")" "no-gpu" "torch reported before the hang"
