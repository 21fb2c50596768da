#!/usr/bin/env bash
# `condacuda lock` on the real CUDA 13.0 wheels of /usr/local/cuda: aligned to
# 13.0 with cusparse 12.6.3.3 and nvjitlink 13.0.88; every sha256 equals the
# wheel's RECORD; the second run takes the hashes from the cache; the driver
# rule with --driver; a lock of another env (the demo env) checked against
# this one gives a readable diff.
source "$(dirname "$0")/lib.sh"

make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
env=$scratch/cu13
export XDG_CACHE_HOME=$scratch/cache

"$CONDACUDA" lock -p "$env" --json -v > "$scratch/lock.json" 2> "$scratch/first.txt"
cat "$scratch/first.txt"
grep -q "hashed 31 files: 0 from the cache, 31 read" "$scratch/first.txt" || fail "first run reads every file"
expect_eq "$(json "$scratch/lock.json" 'j["alignment"]["series"], j["alignment"]["aligned"]')" "('13.0', True)" verdict
expect_eq "$(json "$scratch/lock.json" '[(r["rule"], r["result"]) for r in j["alignment"]["rules"]][:3]')" \
  "[('symbols', 'pass'), ('same-major', 'pass'), ('releases', 'pass')]" rules
expect_eq "$(json "$scratch/lock.json" '[r["min_release"] for r in j["alignment"]["rules"]][0]')" "13.0" "implied release"
row() { json "$scratch/lock.json" "[(c['package'], c['version'], c['cuda_major'], c['cuda_release']) for c in j['components'] if c['soname'] == '$1'][0]"; }
expect_eq "$(row libcusparse.so.12)" "('nvidia-cusparse', '12.6.3.3', 13, '13.0')" cusparse
expect_eq "$(row libnvJitLink.so.13)" "('nvidia-nvjitlink', '13.0.88', 13, '13.0')" nvjitlink
expect_eq "$(row libcublas.so.13)" "('nvidia-cublas', '13.1.0.3', 13, '13.0')" "cublas (moved within 13.0.x)"
expect_eq "$(row libcupti.so.13)" "('nvidia-cuda-cupti', '13.0.85', 13, 'unknown')" "cupti (not in the table)"
expect_eq "$(row libcudnn.so.9)" "('nvidia-cudnn-cu13', '9.19.0.56', 13, 'none')" "cudnn (not a toolkit library)"

note "every sha256 equals the hash in the wheel's RECORD"
python3 - "$scratch/lock.json" "$env" <<'PY'
import base64, csv, glob, json, os, sys
lock, env = json.load(open(sys.argv[1])), sys.argv[2]
record = {}
for rec in glob.glob(os.path.join(env, "lib/python3*/site-packages/*.dist-info/RECORD")):
    sp = os.path.dirname(os.path.dirname(rec))
    for row in csv.reader(open(rec)):
        if len(row) >= 2 and row[1].startswith("sha256="):
            record[os.path.relpath(os.path.join(sp, row[0]), env)] = row[1][7:]
for c in lock["components"]:
    want = record[c["path"]]
    got = base64.urlsafe_b64encode(bytes.fromhex(c["sha256"])).rstrip(b"=").decode()
    assert got == want, (c["path"], got, want)
print("# %d hashes match their RECORD" % len(lock["components"]))
PY

note "second run: from the cache, same bytes"
"$CONDACUDA" lock -p "$env" -o "$scratch/a.yml" -v 2> "$scratch/second.txt"
cat "$scratch/second.txt"
grep -q "hashed 31 files: 31 from the cache, 0 read" "$scratch/second.txt" || fail "second run uses the cache"
"$CONDACUDA" lock -p "$env" > "$scratch/b.yml"
cmp "$scratch/a.yml" "$scratch/b.yml"
expect_status 0 "$CONDACUDA" lock --check "$scratch/a.yml" -p "$env"

note "driver rule: 575 is too old for 13.x, 580 is enough"
"$CONDACUDA" lock -p "$env" --json --driver 575.57.08 > "$scratch/old-driver.json"
expect_eq "$(json "$scratch/old-driver.json" '[r["result"] for r in j["alignment"]["rules"] if r["rule"] == "driver"][0], j["alignment"]["aligned"]')" \
  "('fail', False)" "old driver"
"$CONDACUDA" lock -p "$env" --json --driver 580.65.06 > "$scratch/new-driver.json"
expect_eq "$(json "$scratch/new-driver.json" '[r["result"] for r in j["alignment"]["rules"] if r["rule"] == "driver"][0]')" "pass" "new driver"
note "a lock made with a driver checks clean where none is visible (CI), and fails (not drift) where the driver is too old"
"$CONDACUDA" lock -p "$env" --driver 580.65.06 -o "$scratch/gpu.yml"
expect_status 0 "$CONDACUDA" lock --check "$scratch/gpu.yml" -p "$env" --driver none
expect_status 1 "$CONDACUDA" lock --check "$scratch/gpu.yml" -p "$env" --driver 575.57.08 --json > "$scratch/old.json"
expect_eq "$(json "$scratch/old.json" 'j["outcome"], j["changes"], [(r["rule"], r["locked"]) for r in j["rules_here"]]')" \
  "('does-not-load', [], [('driver', 'pass')])" "the driver rule fails here; the env did not change"
note "issue 24: --driver 535.104 on this CUDA 13 env, locked without a driver, printed 'matches' and exit 0"
"$CONDACUDA" lock -p "$env" --driver none -o "$scratch/ci.yml"
expect_status 1 "$CONDACUDA" lock --check "$scratch/ci.yml" -p "$env" --driver 535.104 --color never > "$scratch/535.txt"
grep -q " rule driver fails here (skipped when locked): driver 535.104 (branch 535, from --driver) < 580, the minimum for CUDA 13.x" \
  <<< "$(flat "$scratch/535.txt")" || { cat "$scratch/535.txt"; fail "the driver rule that fails here"; }

note "a lock of another env (the demo env, CUDA 12) against this one: a readable diff"
build_demo_env "$scratch/demo"
"$CONDACUDA" lock -p "$scratch/demo/env" -o "$scratch/demo.yml"
expect_status 1 "$CONDACUDA" lock --check "$scratch/demo.yml" -p "$env" --color never > "$scratch/other.txt"
layout_ok lock-check "$scratch/other.txt"
head -5 "$scratch/other.txt"
grep -q "has drifted: 35 changes" "$scratch/other.txt" || fail "3 removed + 31 added + series"
grep -Eq '^  removed +cusparse .*nvidia-cusparse-cu12 12.1.0.106 +-$' <<< "$(joined_rows "$scratch/other.txt")" || fail "removed cusparse"
grep -Eq '^  added +cusparse .*/nvidia/cu13/lib/libcusparse.so.12 +- +pip nvidia-cusparse 12.6.3.3$' <<< "$(joined_rows "$scratch/other.txt")" || fail "added cusparse"
grep -Eq '^  verdict +series +12.4 +13.0$' <<< "$(joined_rows "$scratch/other.txt")" || fail "series"
grep -q "note: locked from an env named 'env', checking 'cu13'" "$scratch/other.txt" || fail "env name note"
note "lock on the CUDA 13 wheels: ok"
