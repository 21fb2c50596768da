#!/usr/bin/env bash
# `condacuda info` on the demo env (CUDA 12 per-component wheels built from C
# sources) and on the same env under a path with spaces, `$` and quotes.
source "$(dirname "$0")/lib.sh"

demo_env "$scratch/demo"
"$CONDACUDA" info -p "$env" --json > "$scratch/info.json"
expect_eq "$(json "$scratch/info.json" 'j["schema"]')" "condacuda.info/1" schema
expect_eq "$(json "$scratch/info.json" 'j["env"]["kind"]')" "conda" kind
expect_eq "$(json "$scratch/info.json" 'j["cuda"]')" "12" "cuda summary"
expect_eq "$(json "$scratch/info.json" 'sorted((c["component"], c["package"]["name"], c["package"]["version"], c["cuda_major"]) for c in j["components"])')" \
  "[('cudart', 'nvidia-cuda-runtime-cu12', '12.1.105', 12), ('cusparse', 'nvidia-cusparse-cu12', '12.1.0.106', 12), ('nvjitlink', 'nvidia-nvjitlink-cu12', '12.4.127', 12)]" components
expect_eq "$(json "$scratch/info.json" '[c["folder"].split("site-packages/")[1] for c in j["components"]]')" \
  "['nvidia/cuda_runtime/lib', 'nvidia/cusparse/lib', 'nvidia/nvjitlink/lib']" folders
expect_eq "$(json "$scratch/info.json" '[c["needs"] for c in j["consumers"]]')" "[['libcudart.so.12', 'libcusparse.so.12']]" consumers
expect_eq "$(json "$scratch/info.json" 'j["consumers"][0]["package"]')" "demotorch" "consumer owner"

# The text form names the same things.
"$CONDACUDA" info -p "$env" --color never > "$scratch/info.txt"
layout_ok info "$scratch/info.txt"
grep -q 'nvidia-nvjitlink-cu12 12.4.127' "$scratch/info.txt" || fail "text output lacks nvjitlink"

# Env paths with spaces, $ and quotes: selected with -p, ENV and CONDA_PREFIX.
odd="$scratch/my env \$HOME 'q' \"dq\""
mkdir -p "$odd"
cp -a "$env" "$odd/env"
"$CONDACUDA" info -p "$odd/env" --json > "$scratch/odd.json"
expect_eq "$(json "$scratch/odd.json" 'j["env"]["prefix"]')" "$odd/env" "odd prefix"
expect_eq "$(json "$scratch/odd.json" 'len(j["components"])')" "3" "odd components"
CONDA_PREFIX="$odd/env" "$CONDACUDA" info --json > "$scratch/odd2.json"
expect_eq "$(json "$scratch/odd2.json" 'j["env"]["prefix"]')" "$odd/env" "CONDA_PREFIX selection"

# Bad input: exit 2 and a one-line reason.
expect_status 2 "$CONDACUDA" info -p "$scratch/nope"
mkdir -p "$scratch/not-an-env"
expect_status 2 "$CONDACUDA" info -p "$scratch/not-an-env"
note "info on the demo env: ok"
