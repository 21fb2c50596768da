#!/usr/bin/env bash
# doctor on the demo env: the seed failure predicted exactly, and every root's
# verdict and first error equal to a real import-style dlopen (the env's
# python, ctypes, RTLD_NOW) and to `ldd -r`, under several LD_LIBRARY_PATHs.
source "$(dirname "$0")/lib.sh"

demo_env "$scratch/demo"
nvjitlink=$(echo "$env"/lib/python3*/site-packages/nvidia/nvjitlink/lib)
oracle=$CONDACUDA_SOURCE_DIR/tests/e2e/doctor_oracle.py

# scenario NAME EXPECTED_EXIT [LD_LIBRARY_PATH]: doctor with that value
# (unset without a third argument), then the oracle under the same value.
scenario() {
  local name=$1 want=$2
  local -a env_cmd=(env -u LD_LIBRARY_PATH)
  [ $# -ge 3 ] && env_cmd=(env "LD_LIBRARY_PATH=$3")
  note "scenario $name"
  expect_status "$want" "${env_cmd[@]}" "$CONDACUDA" doctor -p "$env" --json > "$scratch/$name.json"
  "${env_cmd[@]}" python3 "$oracle" "$scratch/$name.json" --python "$env/bin/python3" --ldd
}

scenario clean 1
expect_eq "$(json "$scratch/clean.json" '[f["code"] for f in j["findings"]]')" "['not-found']" "clean findings"
expect_eq "$(json "$scratch/clean.json" 'j["findings"][0]["library"]')" "libnvJitLink.so.12" "clean: missing library"

scenario seed 1 "$system"
f='j["findings"][0]'
expect_eq "$(json "$scratch/seed.json" "${f}['code']")" "undefined-symbol" code
expect_eq "$(json "$scratch/seed.json" "${f}['symbol']")" "__nvJitLinkAddData_12_1" symbol
expect_eq "$(json "$scratch/seed.json" "${f}['version']")" "libnvJitLink.so.12" version
expect_eq "$(json "$scratch/seed.json" "${f}['resolved_path']")" "$system/libnvJitLink.so.12" resolved
expect_eq "$(json "$scratch/seed.json" "${f}['via']")" "ld_library_path" via
expect_eq "$(json "$scratch/seed.json" "${f}['via_entry']")" "$system" "via entry"
expect_eq "$(json "$scratch/seed.json" "${f}['expected_satisfies']")" "True" "env's nvjitlink satisfies"
expect_eq "$(json "$scratch/seed.json" "${f}['min_release']")" "12.1" "implied release"
expect_eq "$(json "$scratch/seed.json" "len(${f}['affects'])")" "2" "one finding, two roots"
# The first error of the consumer is the seed report's ImportError, word for word.
first=$(json "$scratch/seed.json" '[r["error"] for r in j["roots"] if r["kind"] == "consumer"][0]')
case "$first" in
  */nvidia/cusparse/lib/libcusparse.so.12": undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12") ;;
  *) fail "seed error text: $first" ;;
esac
real=$( (LD_LIBRARY_PATH=$system "$env/bin/python3" -c 'import demotorch' 2>&1 || true) | tail -1)
expect_eq "$real" "ImportError: $first" "python's ImportError"

scenario healthy 0 "$nvjitlink"
scenario empty 1 ""
scenario empty-entry 0 "$nvjitlink:"
expect_eq "$(json "$scratch/empty-entry.json" '[f["code"] for f in j["findings"]]')" "['empty-path-entry']" "empty entry warning"

# --ld-library-path gives the same answer without touching the environment
# (the seed's: exit 1).
expect_status 1 env LD_LIBRARY_PATH=/nonexistent "$CONDACUDA" doctor -p "$env" --ld-library-path "$system" --json > "$scratch/given.json"
expect_eq "$(json "$scratch/given.json" 'j["roots"]')" "$(json "$scratch/seed.json" 'j["roots"]')" "--ld-library-path"
expect_eq "$(json "$scratch/given.json" 'j["ld_library_path"]["source"]')" "--ld-library-path" source

# --dot: a graph with the failing edge in red.
expect_status 1 "$CONDACUDA" doctor -p "$env" --ld-library-path "$system" --dot > "$scratch/graph.dot"
grep -q '^digraph condacuda' "$scratch/graph.dot" || fail "no digraph"
grep -q 'label="libnvJitLink.so.12", color=red' "$scratch/graph.dot" || fail "no red nvJitLink edge"
note "doctor on the demo env agrees with the real loader"

# --driver: the driver rule names where the version came from (issue 24, point 6).
expect_status 1 "$CONDACUDA" doctor -p "$env" --ld-library-path "$nvjitlink" --driver 450.80 --json > "$scratch/driver.json" # driver-too-old
expect_eq "$(json "$scratch/driver.json" \
  'any("from --driver" in e for f in j["findings"] if f["code"] == "driver-too-old" for e in f["evidence"] + [f["title"]])')" \
  True "driver-too-old says --driver"
expect_eq "$(json "$scratch/driver.json" \
  'any("/proc/driver" in e for f in j["findings"] for e in f["evidence"] + [f["title"]])')" False "no /proc/driver for --driver"
