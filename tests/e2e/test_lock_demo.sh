#!/usr/bin/env bash
# `condacuda lock` and `lock --check` on the demo env (examples/demo-env):
# determinism, version first, the round trip lock -> check -> 0, -o FILE
# written atomically, drift (file rewritten, library removed, package
# upgraded) -> 1 with a readable diff, unreadable locks -> 2 with yaml-cpp's
# line and column, --json for both.
source "$(dirname "$0")/lib.sh"

demo_env "$scratch/demo"
export XDG_CACHE_HOME=$scratch/cache
fixtures=$CONDACUDA_SOURCE_DIR/tests/fixtures/lock

note "determinism: two runs, same bytes; version first; no absolute paths"
"$CONDACUDA" lock -p "$env" > "$scratch/a.yml"
"$CONDACUDA" lock -p "$env" --no-hash-cache > "$scratch/b.yml"
cmp "$scratch/a.yml" "$scratch/b.yml" || fail "two locks of one env differ"
expect_eq "$(sed -n '/^[^#]/{p;q}' "$scratch/a.yml")" "version: 1" "first key"
grep -q "$scratch" "$scratch/a.yml" && fail "the lock names a host path"
grep -q '^# .*condacuda lock --check' "$scratch/a.yml" || fail "header says how to check"
expect_eq "$(grep -c '^  - component:' "$scratch/a.yml")" "3" "components"

note "-o FILE: same bytes, written whole (no temporary left)"
"$CONDACUDA" lock -p "$env" -o "$scratch/out/../cuda.lock.yml" 2>/dev/null && fail "-o into a missing folder succeeded"
"$CONDACUDA" lock -p "$env" -o "$scratch/cuda.lock.yml"
cmp "$scratch/a.yml" "$scratch/cuda.lock.yml"
[ -z "$(find "$scratch" -maxdepth 1 -name 'cuda.lock.yml.condacuda-tmp-*')" ] || fail "temporary file left"

note "the demo env is aligned: cusparse 12.1 needs _12_1, the env's nvjitlink is 12.4"
"$CONDACUDA" lock -p "$env" --json > "$scratch/lock.json"
expect_eq "$(json "$scratch/lock.json" 'j["schema"], j["env"]["name"], j["outcome"], j["output"]')" "('condacuda.lock/2', 'env', 'aligned', None)" "schema, env, outcome, output"
expect_eq "$(json "$scratch/lock.json" 'j["alignment"]["aligned"]')" "True" aligned
expect_eq "$(json "$scratch/lock.json" '[r["result"] for r in j["alignment"]["rules"]]')" "['pass', 'pass', 'pass', 'skipped']" rules
expect_eq "$(json "$scratch/lock.json" '[r["min_release"] for r in j["alignment"]["rules"]][0]')" "12.1" "implied release"
expect_eq "$(json "$scratch/lock.json" '[(c["component"], c["version"], c["cuda_release"]) for c in j["components"]]')" \
  "[('cudart', '12.1.105', '12.1'), ('cusparse', '12.1.0.106', '12.1'), ('nvjitlink', '12.4.127', '12.4')]" components

note "round trip: lock -> check -> 0 (text and JSON) where the env loads (its own nvJitLink on LD_LIBRARY_PATH)"
nvjitlink=$(echo "$env"/lib/python3*/site-packages/nvidia/nvjitlink/lib)
LD_LIBRARY_PATH=$nvjitlink "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" > "$scratch/check.txt"
grep -q "env 'env' matches (3 libraries, aligned to 12.4)$" "$scratch/check.txt" || { cat "$scratch/check.txt"; fail "match text"; }
LD_LIBRARY_PATH=$nvjitlink "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" "$env" --json > "$scratch/check.json"
expect_eq "$(json "$scratch/check.json" 'j["schema"], j["matches"], j["changes"]')" "('condacuda.lock-check/1', True, [])" "check json"
note "unrepaired and LD_LIBRARY_PATH unset, the env matches but cuSPARSE does not load (its RUNPATH misses nvJitLink): 1"
expect_status 1 env -u LD_LIBRARY_PATH "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" --json > "$scratch/unset.json"
expect_eq "$(json "$scratch/unset.json" 'j["outcome"], j["changes"], [(f["component"], f["code"]) for f in j["loads_here"]["failures"]]')" \
  "('does-not-load', [], [('cusparse', 'not-found')])" "the unrepaired env does not load"

note "drift: a rewritten file, a removed library, an upgraded package -> 1 with a diff"
sp=$(echo "$env"/lib/python3*/site-packages)
printf '\0' >> "$sp/nvidia/cuda_runtime/lib/libcudart.so.12"
rm "$sp/nvidia/nvjitlink/lib/libnvJitLink.so.12"
sed -i 's/^Version: 12.1.0.106$/Version: 12.1.0.107/' "$sp"/nvidia_cusparse_cu12-*.dist-info/METADATA
expect_status 1 "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" --color never > "$scratch/drift.txt"
layout_ok lock-check "$scratch/drift.txt"
cat "$scratch/drift.txt"
grep -q "has drifted: 4 changes" "$scratch/drift.txt" || fail "change count"
grep -Eq '^  verdict +series +12.4 +12.1$' <<< "$(joined_rows "$scratch/drift.txt")" || fail "series: nvjitlink 12.4 gone, cusparse 12.1.0.107 unknown"
grep -Eq '^  removed +nvjitlink lib/python3[^ ]*/libnvJitLink.so.12 +pip nvidia-nvjitlink-cu12 12.4.127 +-$' <<< "$(joined_rows "$scratch/drift.txt")" || fail "removed line"
grep -Eq '^  version +cusparse .*12.1.0.106 +pip nvidia-cusparse-cu12 12.1.0.107$' <<< "$(joined_rows "$scratch/drift.txt")" || fail "version line"
grep -Eq '^  sha256 +cudart ' <<< "$(joined_rows "$scratch/drift.txt")" || fail "sha256 line"
expect_status 1 "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" --json > "$scratch/drift.json"
expect_eq "$(json "$scratch/drift.json" '[c["kind"] for c in j["changes"]]')" "['sha256', 'version', 'removed', 'verdict']" "drift kinds"

note "unreadable locks -> 2, with yaml-cpp's line and column"
expect_status 2 "$CONDACUDA" lock --check "$fixtures/bad-yaml.lock.yml" -p "$env" 2> "$scratch/err.txt"
grep -q 'bad-yaml.lock.yml: invalid YAML at line 6, column 11' "$scratch/err.txt" || { cat "$scratch/err.txt"; fail "line and column"; }
expect_status 2 "$CONDACUDA" lock --check "$fixtures/bad-not-a-lock.yml" -p "$env" 2> "$scratch/err.txt"
grep -q 'not a condacuda lock' "$scratch/err.txt" || fail "not a lock"
expect_status 2 "$CONDACUDA" lock --check "$fixtures/bad-version.lock.yml" -p "$env" 2> /dev/null
expect_status 2 "$CONDACUDA" lock --check "$scratch/no-such.lock.yml" -p "$env" 2> /dev/null
expect_status 2 "$CONDACUDA" lock --check "$scratch" -p "$env" 2> /dev/null
note "bad input to lock itself -> 2"
expect_status 2 "$CONDACUDA" lock -p "$scratch/no-such-env" 2> /dev/null
expect_status 2 "$CONDACUDA" lock -p "$env" --releases "$fixtures/bad-yaml.lock.yml" 2> /dev/null
expect_status 2 "$CONDACUDA" lock -p "$env" --driver 13.0 2> /dev/null

note "the sample lock in examples/ is a readable condacuda lock"
status=0
"$CONDACUDA" lock --check "$CONDACUDA_SOURCE_DIR/examples/cuda.lock.yml" -p "$env" > /dev/null 2>&1 || status=$?
[ "$status" = 0 ] || [ "$status" = 1 ] || fail "examples/cuda.lock.yml: exit $status"
note "lock on the demo env: ok"
