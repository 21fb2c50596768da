#!/usr/bin/env bash
# `lock --check` means "matches and loads here" (issue 24, point 5): on the
# demo env (examples/demo-env) a lock checks clean byte for byte, but under a
# site's LD_LIBRARY_PATH that puts an older nvJitLink first, cuSPARSE does not
# load (real python, ctypes, shown first) and `lock --check` exits 1 naming
# cuSPARSE, the loader's error and doctor's fix; once the env loads it exits
# 0; a driver too old for the env's CUDA 12 (the driver rule, --driver 450.80
# < 525) exits 1 naming the rule, where a lock without a driver matched.
source "$(dirname "$0")/lib.sh"

demo_env "$scratch/demo"
export XDG_CACHE_HOME=$scratch/cache
cusparse=$(echo "$env"/lib/python3*/site-packages/nvidia/cusparse/lib/libcusparse.so.12)
nvjitlink=$(dirname "$(echo "$env"/lib/python3*/site-packages/nvidia/nvjitlink/lib/libnvJitLink.so.12)")
unset LD_LIBRARY_PATH
"$CONDACUDA" lock -p "$env" --driver none -o "$scratch/cuda.lock.yml"

note "first the failure: the env's python cannot open cuSPARSE with the system CUDA 12.0 on LD_LIBRARY_PATH"
status=0
LD_LIBRARY_PATH=$system "$env/bin/python3" -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$cusparse" 2> "$scratch/ctypes.err" || status=$?
[ "$status" != 0 ] || fail "ctypes opened cuSPARSE under the breaking LD_LIBRARY_PATH"
grep -q "undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12" "$scratch/ctypes.err" ||
  { cat "$scratch/ctypes.err"; fail "not the undefined symbol"; }

note "lock --check there: exit 1, cuSPARSE named with the loader's error and doctor's fix"
LD_LIBRARY_PATH=$system expect_status 1 "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" --driver none --color never \
  > "$scratch/breaks.txt"
cat "$scratch/breaks.txt"
# (the text view wraps at 100 columns: its sentences are read across the breaks, flat)
grep -q "env 'env' matches (3 libraries, aligned to 12.4) but does not load here" <<< "$(flat "$scratch/breaks.txt")" || fail "verdict line"
grep -q "does not load with this shell's LD_LIBRARY_PATH ($system)" <<< "$(flat "$scratch/breaks.txt")" || fail "the LD_LIBRARY_PATH judged"
grep -Eq " undefined-symbol cusparse lib/python3[^ ]*/nvidia/cusparse/lib/libcusparse.so.12: .*undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12" \
  <<< "$(flat "$scratch/breaks.txt")" || fail "the cuSPARSE line"
grep -q " fix: .*repair" <<< "$(flat "$scratch/breaks.txt")" || fail "doctor's fix"
layout_ok lock-check "$scratch/breaks.txt"
LD_LIBRARY_PATH=$system expect_status 1 "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" --driver none --json \
  > "$scratch/breaks.json"
expect_eq "$(json "$scratch/breaks.json" 'j["outcome"], j["matches"], j["changes"], j["loads_here"]["loads"], j["loads_here"]["ld_library_path"]')" \
  "('does-not-load', False, [], False, '$system')" "the JSON verdict"
expect_eq "$(json "$scratch/breaks.json" '[(f["component"], f["code"]) for f in j["loads_here"]["failures"]]')" \
  "[('cusparse', 'undefined-symbol')]" "the failing library"
python3 "$CONDACUDA_SOURCE_DIR/tests/tools/check_json_docs.py" "$CONDACUDA_SOURCE_DIR/docs/json.md" "$scratch/breaks.json" 1 ||
  fail "the does-not-load document disagrees with docs/json.md"

note "where the env loads (its own nvJitLink first), python opens cuSPARSE and lock --check exits 0"
LD_LIBRARY_PATH=$nvjitlink "$env/bin/python3" -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$cusparse"
LD_LIBRARY_PATH=$nvjitlink expect_status 0 "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" --driver none > "$scratch/ok.txt"
grep -q "env 'env' matches (3 libraries, aligned to 12.4) *$" <<< "$(flat "$scratch/ok.txt")" || { cat "$scratch/ok.txt"; fail "clean match"; }

note "LD_LIBRARY_PATH unset: unrepaired, cuSPARSE's RUNPATH does not reach nvJitLink (exit 1); after repair it loads (exit 0)"
status=0
"$env/bin/python3" -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$cusparse" 2> /dev/null || status=$?
[ "$status" != 0 ] || fail "the unrepaired env opened cuSPARSE without LD_LIBRARY_PATH"
expect_status 1 "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" --driver none --color never > "$scratch/unset.txt"
layout_ok lock-check "$scratch/unset.txt"
grep -Eq " not-found cusparse .*libnvJitLink.so.12" <<< "$(flat "$scratch/unset.txt")" || { cat "$scratch/unset.txt"; fail "not-found line"; }
"$CONDACUDA" repair -p "$env" > /dev/null
expect_status 0 "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" --driver none > "$scratch/repaired.txt"
cat "$scratch/repaired.txt"
grep -q "matches (3 libraries, aligned to 12.4) *$" <<< "$(flat "$scratch/repaired.txt")" || fail "the repaired env matches and loads"
# The activated launch, as the hook gives it, opens cuSPARSE for real.
hooked=$("$CONDACUDA" run -p "$env" --print-ld-library-path)
LD_LIBRARY_PATH=$hooked "$env/bin/python3" -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$cusparse"

note "the driver rule: 450 is older than CUDA 12's 525; the lock was made without a driver"
expect_status 0 "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" --driver 525.60.13 > /dev/null
expect_status 1 "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" --driver 450.80 --color never > "$scratch/driver.txt"
cat "$scratch/driver.txt"
grep -q "matches (3 libraries, NOT aligned (series 12.4)) but does not load here" <<< "$(flat "$scratch/driver.txt")" || fail "driver verdict line"
grep -q " rule driver fails here (skipped when locked): driver 450.80 (branch 450, from --driver) < 525, the minimum for CUDA 12.x" \
  <<< "$(flat "$scratch/driver.txt")" || fail "the driver rule line"
expect_status 1 "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" --driver 450.80 --json > "$scratch/driver.json"
expect_eq "$(json "$scratch/driver.json" 'j["outcome"], j["changes"], [(r["rule"], r["locked"]) for r in j["rules_here"]]')" \
  "('does-not-load', [], [('driver', 'skipped')])" "the driver rule in JSON"
note "lock --check: matches and loads here: ok"
