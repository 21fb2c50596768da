#!/usr/bin/env bash
# doctor on the real CUDA 13 wheel libraries (env laid out from /usr/local/cuda)
# with an older libnvJitLink.so.13 planted on LD_LIBRARY_PATH that lacks the
# __nvJitLink*_13_0 entry points. Every one of the 31 roots must agree with a
# real dlopen and with `ldd -r`.
source "$(dirname "$0")/lib.sh"

make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
old=$scratch/old-cuda/lib64
make_old_nvjitlink13 "$old"
oracle=$CONDACUDA_SOURCE_DIR/tests/e2e/doctor_oracle.py

note "clean LD_LIBRARY_PATH"
env -u LD_LIBRARY_PATH "$CONDACUDA" doctor -p "$scratch/cu13" --json > "$scratch/clean.json"
expect_eq "$(json "$scratch/clean.json" 'j["summary"]["roots"]')" "31" roots
env -u LD_LIBRARY_PATH python3 "$oracle" "$scratch/clean.json" --probe "$CONDACUDA_DLOPEN_PROBE" --ldd

note "planted older nvJitLink 13"
expect_status 1 env LD_LIBRARY_PATH="$old" "$CONDACUDA" doctor -p "$scratch/cu13" --json > "$scratch/planted.json"
LD_LIBRARY_PATH=$old python3 "$oracle" "$scratch/planted.json" --probe "$CONDACUDA_DLOPEN_PROBE" --ldd
f='[f for f in j["findings"] if f["code"] == "undefined-symbol"][0]'
expect_eq "$(json "$scratch/planted.json" "${f}['library']")" "libnvJitLink.so.13" library
expect_eq "$(json "$scratch/planted.json" "${f}['via_entry']")" "$old" "the LD_LIBRARY_PATH entry"
expect_eq "$(json "$scratch/planted.json" "${f}['expected_satisfies']")" "True" "env's nvjitlink satisfies"
expect_eq "$(json "$scratch/planted.json" "${f}['expected_package']")" "nvidia-nvjitlink 13.0.88" "env's package"
expect_eq "$(json "$scratch/planted.json" "all(s.endswith('_13_0') for s in ${f}['symbol'].split(','))")" "True" symbols
expect_eq "$(json "$scratch/planted.json" "'lib/python3' in ${f}['affects'][0] and any(a.endswith('libcusparse.so.12') for a in ${f}['affects'])")" "True" affects
err=$(json "$scratch/planted.json" '[r["error"] for r in j["roots"] if r["file"].endswith("libcusparse.so.12")][0]')
case "$err" in
  */nvidia/cu13/lib/libcusparse.so.12": undefined symbol: __nvJitLink"*"_13_0, version libnvJitLink.so.13") ;;
  *) fail "cusparse error: $err" ;;
esac
note "doctor on the CUDA 13 wheels agrees with the real loader"
