#!/usr/bin/env bash
# The seed failure through `condacuda check`, with the real CUDA 13 wheel
# libraries: an older libnvJitLink.so.13 on LD_LIBRARY_PATH (lacking the
# __nvJitLink*_13_0 entry points). The probe's dlopen of libcusparse.so.12
# fails for real with the loader's text, exactly as predicted, and doctor's
# finding (which file, which LD_LIBRARY_PATH entry, the fix) is attached.
# That is the env as this shell has it (--as-is). By default an env without
# condacuda's hook is checked with the folders repair would add (as
# `condacuda run` gives them), and with the env's folder first by hand (what
# the hook does after `condacuda repair`): every library loads, by soname, as
# predicted.
source "$(dirname "$0")/../gpu/lib.sh"

make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
env_lib=$(echo "$scratch"/cu13/lib/python3*/site-packages/nvidia/cu13/lib)
old=$scratch/old-cuda/lib64
make_old_nvjitlink13 "$old"
# No GPU here: exit 3; on a GPU machine the failed library makes it exit 1.
want=3
has_driver && want=1

note "planted older nvJitLink 13 on LD_LIBRARY_PATH, the env as it is"
check_json "$scratch/planted.json" "$want" -p "$scratch/cu13" --ld-library-path "$old" --as-is
f=$scratch/planted.json
sp='[l for l in j["libraries"] if l["component"] == "cusparse"][0]'
expect_eq "$(json "$f" "${sp}['loaded']")" "False" "cusparse loaded"
case "$(json "$f" "${sp}['error']")" in
  "$env_lib/libcusparse.so.12: undefined symbol: __nvJitLink"*"_13_0, version libnvJitLink.so.13") ;;
  *) fail "cusparse error: $(json "$f" "${sp}['error']")" ;;
esac
expect_eq "$(json "$f" "${sp}['error'] == ${sp}['predicted']['error']")" "True" "the predicted error text"
predictions_agree "$f"
finding='[x for x in j["findings"] if x["code"] == "undefined-symbol"][0]'
expect_eq "$(json "$f" "${finding}['library']")" "libnvJitLink.so.13" "doctor's finding: library"
expect_eq "$(json "$f" "${finding}['via_entry']")" "$old" "doctor's finding: the LD_LIBRARY_PATH entry"
case "$(json "$f" "${finding}['fix']")" in
  *"condacuda repair"*) ;;
  *) fail "fix: $(json "$f" "${finding}['fix']")" ;;
esac
case "$(json "$f" 'j["reason"]')" in
  *"libcusparse.so.12 did not load"*) ;;
  *) fail "reason: $(json "$f" 'j["reason"]')" ;;
esac
# The nvJitLink the probe then opens is the env's (by path): the soname
# resolves to the planted one.
jit='[l for l in j["libraries"] if l["component"] == "nvjitlink"][0]'
expect_eq "$(json "$f" "${jit}['opened_by']")" "path" "nvJitLink opened by"
case "$(json "$f" "${jit}['why']")" in
  *"$old/libnvJitLink.so.13 (ld_library_path), not the env's"*) ;;
  *) fail "nvJitLink why: $(json "$f" "${jit}['why']")" ;;
esac

note "the same shell, the env checked as condacuda runs it (the planned folders first)"
# Every library loads: on a GPU machine the steps decide (0 every step passed,
# 1 one failed or a driver older than CUDA 13, 3 no usable device).
status=0
"$CONDACUDA" check -p "$scratch/cu13" --ld-library-path "$old" --quick --json > "$scratch/planned.json" || status=$?
f=$scratch/planned.json
expect_check_status "$status" "0 1 3" "check, planned folders"
expect_eq "$(json "$f" 'j["exit_code"]')" "$status" "exit_code in the JSON"
expect_eq "$(json "$f" 'j["ld_library_path"]["source"]')" "plan" "source"
case "$(json "$f" 'j["ld_library_path"]["value"]')" in
  "$env_lib:"*":$old") ;;
  *) fail "planned LD_LIBRARY_PATH: $(json "$f" 'j["ld_library_path"]["value"]')" ;;
esac
expect_eq "$(json "$f" 'all(l["loaded"] for l in j["libraries"][1:])')" "True" "every env library loads"
expect_eq "$(json "$f" '[w["code"] for w in j["warnings"]]')" "['not-repaired']" warnings
predictions_agree "$f"

note "the env's folder first by hand, as the hook puts it"
status=0
"$CONDACUDA" check -p "$scratch/cu13" --ld-library-path "$env_lib:$old" --as-is --quick --json > "$scratch/hooked.json" || status=$?
f=$scratch/hooked.json
expect_check_status "$status" "0 1 3" "check, the env's folder first"
expect_eq "$(json "$f" 'j["exit_code"]')" "$status" "exit_code in the JSON"
expect_eq "$(json "$f" 'all(l["loaded"] for l in j["libraries"][1:])')" "True" "every env library loads"
expect_eq "$(json "$f" 'all(l["opened_by"] == "soname" for l in j["libraries"])')" "True" "opened by soname"
expect_eq "$(json "$f" '[l["path"] for l in j["libraries"] if l["component"] == "nvjitlink"][0]')" \
  "$env_lib/libnvJitLink.so.13" "nvJitLink from the env"
predictions_agree "$f"
expect_eq "$(json "$f" 'j["findings"]')" "[]" findings
