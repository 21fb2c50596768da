#!/usr/bin/env bash
# `condacuda info` on an env laid out from the real CUDA 13.0 wheels of
# /usr/local/cuda (skipped when the machine has none).
source "$(dirname "$0")/lib.sh"

make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
"$CONDACUDA" info -p "$scratch/cu13" --json > "$scratch/info.json"
expect_eq "$(json "$scratch/info.json" 'j["env"]["kind"]')" "venv" kind
expect_eq "$(json "$scratch/info.json" 'j["cuda"]')" "13" "cuda summary"
row() { json "$scratch/info.json" "[(c['package']['name'], c['package']['version'], c['folder'].split('site-packages/')[1], c['cuda_major']) for c in j['components'] if c['soname'] == '$1'][0]"; }
expect_eq "$(row libcusparse.so.12)" "('nvidia-cusparse', '12.6.3.3', 'nvidia/cu13/lib', 13)" cusparse
expect_eq "$(row libnvJitLink.so.13)" "('nvidia-nvjitlink', '13.0.88', 'nvidia/cu13/lib', 13)" nvjitlink
expect_eq "$(row libcudnn.so.9)" "('nvidia-cudnn-cu13', '9.19.0.56', 'nvidia/cudnn/lib', 13)" cudnn
expect_eq "$(row libnccl.so.2)" "('nvidia-nccl-cu13', '2.28.9', 'nvidia/nccl/lib', 13)" nccl
expect_eq "$(json "$scratch/info.json" 'len(j["components"])')" "31" "library count"
expect_eq "$(json "$scratch/info.json" 'sorted(f["layout"] for f in j["library_folders"])')" "['wheel', 'wheel', 'wheel-cu13']" layouts
note "info on the CUDA 13 wheel env: ok"
