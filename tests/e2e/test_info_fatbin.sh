#!/usr/bin/env bash
# The GPU code `info` reads from the fatbin headers (elf/fatbin.hpp), on
# libraries compiled here by the toolkit's nvcc with known contents (skipped
# when /usr/local/cuda/bin/nvcc is absent): SASS sm_80 + PTX compute_80; SASS
# sm_90a only; PTX compute_75 only; SASS sm_75/sm_86/sm_90 compressed
# (-Xfatbin -compress-all). Each links the CUDA runtime shared, so the env's
# inventory lists it as a consumer. Then the real CUDA 13 libraries of
# /usr/local/cuda, when present: cuSPARSE's architectures.
source "$(dirname "$0")/lib.sh"
nvcc=${CONDACUDA_NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$nvcc" ] || skip "no nvcc at $nvcc"

env=$scratch/env
ext=$env/lib/python3.12/site-packages/ext
mkdir -p "$env/conda-meta" "$ext"
: > "$env/conda-meta/history"
cat > "$scratch/k.cu" << 'CU'
__global__ void axpy(float a, const float* x, float* y) { y[threadIdx.x] += a * x[threadIdx.x]; }
extern "C" void launch(float a, const float* x, float* y) { axpy<<<1, 32>>>(a, x, y); }
CU
build() { # NAME NVCC-ARGS...: ext/NAME.so
  local name=$1
  shift
  "$nvcc" -shared -Xcompiler -fPIC -cudart shared "$@" -o "$ext/$name.so" "$scratch/k.cu"
}
build sm80 -gencode arch=compute_80,code='[sm_80,compute_80]'
build sm90a -gencode arch=compute_90a,code=sm_90a
build ptx75 -gencode arch=compute_75,code=compute_75
build compressed -gencode arch=compute_75,code=sm_75 -gencode arch=compute_86,code=sm_86 \
  -gencode arch=compute_90,code=sm_90 -Xfatbin -compress-all

"$CONDACUDA" info -p "$env" --json > "$scratch/info.json"
code() { # NAME: (sass, ptx, PTX ISA present, compressed, problems)
  json "$scratch/info.json" "[(c['gpu_code']['sass'], c['gpu_code']['ptx'], c['gpu_code']['ptx_isa'] is not None, c['gpu_code']['compressed'], c['gpu_code']['problems']) for c in j['consumers'] if c['file'].endswith('/ext/$1.so')][0]"
}
expect_eq "$(code sm80)" "(['sm_80'], ['compute_80'], True, True, [])" "SASS sm_80 + PTX compute_80 (nvcc compresses PTX)"
expect_eq "$(code sm90a)" "(['sm_90a'], [], False, False, [])" "SASS sm_90a only"
expect_eq "$(code ptx75)" "([], ['compute_75'], True, True, [])" "PTX compute_75 only"
expect_eq "$(code compressed)" "(['sm_75', 'sm_86', 'sm_90'], [], False, True, [])" "compressed SASS"
"$CONDACUDA" info -p "$env" --color never > "$scratch/info.txt"
layout_ok info "$scratch/info.txt"
grep -q 'ext/sm80.so  *sm_80 | compute_80 (PTX [0-9.]*)$' "$scratch/info.txt" || { cat "$scratch/info.txt" >&2; fail "the text table"; }

if make_cuda13_env "$scratch/cu13"; then
  note "the real CUDA 13 libraries"
  "$CONDACUDA" info -p "$scratch/cu13" --json > "$scratch/cu13.json"
  expect_eq "$(json "$scratch/cu13.json" "[c['gpu_code']['sass'] for c in j['components'] if c['soname'] == 'libcusparse.so.12'][0]")" \
    "['sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_100', 'sm_103', 'sm_120']" "cuSPARSE's SASS (no sm_70: CUDA 13 dropped Volta)"
  expect_eq "$(json "$scratch/cu13.json" "[c['gpu_code']['ptx'] for c in j['components'] if c['soname'] == 'libcusparse.so.12'][0]")" \
    "['compute_90', 'compute_100', 'compute_103', 'compute_120']" "cuSPARSE's PTX"
  expect_eq "$(json "$scratch/cu13.json" "[c['soname'] for c in j['components'] if c['gpu_code'] and c['gpu_code']['problems']]")" "[]" "no damaged fatbin"
else
  note "no /usr/local/cuda/dist-info: the real libraries are not tried"
fi
