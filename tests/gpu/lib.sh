# shellcheck shell=bash
# Prelude of the gpu suite (sourced): the e2e prelude plus what the check
# tests share. The suite runs everywhere: on machines without a driver it
# proves the no-GPU behaviour for real, on machines with one the device steps.
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

# has_driver: the real loader finds a libcuda.so.1 with LD_LIBRARY_PATH unset.
has_driver() { env -u LD_LIBRARY_PATH "$CONDACUDA_DLOPEN_PROBE" libcuda.so.1 > /dev/null 2>&1; }

# check_json OUT EXPECTED_STATUS ARGS...: runs `condacuda check --json ARGS`,
# expects its exit status, and that the JSON's exit_code says the same.
check_json() {
  local out=$1 want=$2 got=0
  shift 2
  "$CONDACUDA" check --json "$@" > "$out" || got=$?
  [ "$got" = "$want" ] || { cat "$out" >&2; fail "expected exit $want from check $*, got $got"; }
  expect_eq "$(json "$out" 'j["schema"]')" "condacuda.check/1" schema
  expect_eq "$(json "$out" 'j["exit_code"]')" "$want" "exit_code in the JSON"
}

# expect_check_status STATUS WITH_DRIVER WHAT: the exit status of a `check` whose
# verdict depends on the machine. Without a libcuda.so.1 (has_driver) it is 3,
# no usable GPU, whatever else failed: check decides that outcome first
# (docs/gpu-check.md, "Outcomes and exit codes"). With one, the device steps
# run and it is one of WITH_DRIVER (a list, e.g. "1 3": 3 stays possible, a
# driver that finds no usable device).
expect_check_status() {
  if has_driver; then
    case " $2 " in *" $1 "*) ;; *) fail "$3: expected exit status one of [$2] on this machine with a libcuda.so.1, got $1" ;; esac
  else
    expect_eq "$1" 3 "$3: exit status without a libcuda.so.1 (no usable GPU)"
  fi
}

# predictions_agree FILE: every library and the whole object list as the
# loader model predicted them.
predictions_agree() {
  expect_eq "$(json "$1" 'all(l["prediction_matches"] for l in j["libraries"])')" "True" "per-library predictions"
  expect_eq "$(json "$1" 'j["loaded_objects"]["compared"] and j["loaded_objects"]["matches"]')" "True" \
    "loaded objects ($(json "$1" 'j["loaded_objects"]'))"
}
