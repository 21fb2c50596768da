#!/usr/bin/env bash
# `doctor --gpu`: will the env run on that GPU? On libraries compiled here by
# the toolkit's nvcc (skipped without /usr/local/cuda/bin/nvcc), each with
# known targets, judged for V100 (7.0), A100 (8.0), A10 (8.6), H100 (9.0) and
# B200 (10.0) with a CUDA 13.0 driver: SASS within its major, the
# arch-specific sm_90a only on 9.0, PTX JIT-compiled for newer GPUs
# (ptx-jit-only, a warning), none at all (no-kernel-image, an error). A 535
# driver cannot compile CUDA 13's PTX. Then the real CUDA 13 libraries: on a
# V100 every one without sm_70 code is named, on an H100 none.
source "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME=$scratch/cache
nvcc=${CONDACUDA_NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$nvcc" ] || skip "no nvcc at $nvcc"
cudart=$(dirname "$nvcc")/../lib64/libcudart.so.13
[ -e "$cudart" ] || skip "no libcudart.so.13 beside nvcc"

env=$scratch/env
mkdir -p "$env/conda-meta" "$env/lib"
: > "$env/conda-meta/history"
cp -L "$cudart" "$env/lib/"
cat > "$scratch/k.cu" << 'CU'
__global__ void axpy(float a, const float* x, float* y) { y[threadIdx.x] += a * x[threadIdx.x]; }
extern "C" void launch(float a, const float* x, float* y) { axpy<<<1, 32>>>(a, x, y); }
CU
build() { # NAME NVCC-ARGS...: lib/libNAME.so, finding the env's libcudart through $ORIGIN
  local name=$1
  shift
  # shellcheck disable=SC2016 # $ORIGIN is for the loader
  "$nvcc" -shared -Xcompiler -fPIC -cudart shared -Xlinker -rpath -Xlinker '$ORIGIN' "$@" -o "$env/lib/lib$name.so" "$scratch/k.cu"
}
build sm80 -gencode arch=compute_80,code='[sm_80,compute_80]'
build sm90a -gencode arch=compute_90a,code=sm_90a
build ptx75 -gencode arch=compute_75,code=compute_75
build compressed -gencode arch=compute_75,code=sm_75 -gencode arch=compute_86,code=sm_86 \
  -gencode arch=compute_90,code=sm_90 -Xfatbin -compress-all

gpus=(--gpu V100 --gpu A100 --gpu A10 --gpu H100 --gpu B200)
verdicts() { # JSON: "file device verdict" for every file and device that is not SASS
  json "$1" "sorted((f['expected'].split('/')[-1], __import__('re').search(r'(\S+) \(sm_[0-9]+\)', f['title']).group(1), {'no-kernel-image': 'none', 'ptx-jit-only': 'jit', 'driver-too-old': 'driver'}[f['code']]) for f in j['findings'] if f['code'] in ('no-kernel-image', 'ptx-jit-only', 'driver-too-old') and f['expected'])"
}
expect_status 1 "$CONDACUDA" doctor -p "$env" "${gpus[@]}" --driver 580.65.06 --json > "$scratch/580.json"
# The table: V100 A100 A10 H100 B200 for each library (sass unless listed).
#   libsm80:       none sass sass jit  jit
#   libsm90a:      none none none sass none
#   libptx75:      none jit  jit  jit  jit
#   libcompressed: none none sass sass none
expected="[('libcompressed.so', 'A100', 'none'), ('libcompressed.so', 'B200', 'none'), ('libcompressed.so', 'V100', 'none'), \
('libptx75.so', 'A10', 'jit'), ('libptx75.so', 'A100', 'jit'), ('libptx75.so', 'B200', 'jit'), ('libptx75.so', 'H100', 'jit'), \
('libptx75.so', 'V100', 'none'), ('libsm80.so', 'B200', 'jit'), ('libsm80.so', 'H100', 'jit'), ('libsm80.so', 'V100', 'none'), \
('libsm90a.so', 'A10', 'none'), ('libsm90a.so', 'A100', 'none'), ('libsm90a.so', 'B200', 'none'), ('libsm90a.so', 'V100', 'none')]"
expect_eq "$(verdicts "$scratch/580.json")" "$expected" "the verdicts with a 580 driver"
expect_eq "$(json "$scratch/580.json" "[e for f in j['findings'] if f['code'] == 'no-kernel-image' and f['expected'].endswith('libsm90a.so') and 'A100' in f['title'] for e in f['evidence']][0]")" \
  "it has SASS sm_90a and no PTX; sm_80 runs none of them" "why sm_90a does not run on an A100"

note "a second run reads the fatbin cache, and says the same; a corrupt cache is replaced"
grep -q "libsm90a.so" "$XDG_CACHE_HOME/condacuda/fatbins" || fail "no fatbin cache"
expect_status 1 "$CONDACUDA" doctor -p "$env" "${gpus[@]}" --driver 580.65.06 --json > "$scratch/again.json"
expect_eq "$(verdicts "$scratch/again.json")" "$expected" "the verdicts from the cache"
printf 'condacuda fatbin cache 1\nnot\ta\tline\n' > "$XDG_CACHE_HOME/condacuda/fatbins"
expect_status 1 "$CONDACUDA" doctor -p "$env" "${gpus[@]}" --driver 580.65.06 --json > "$scratch/corrupt.json" 2> "$scratch/corrupt.err"
expect_eq "$(verdicts "$scratch/corrupt.json")" "$expected" "the verdicts past a corrupt cache"
grep -q "fatbin cache is corrupt; ignored and rewritten" "$scratch/corrupt.err" || fail "the corrupt cache is not named"
grep -q "libsm90a.so" "$XDG_CACHE_HOME/condacuda/fatbins" || fail "the corrupt cache was not rewritten"

note "a 535 driver compiles PTX up to ISA 8.2: CUDA 13's PTX does not JIT (driver-too-old, not a missing kernel)"
expect_status 1 "$CONDACUDA" doctor -p "$env" --gpu H100 --driver 535.104.05 --json > "$scratch/535.json"
expect_eq "$(verdicts "$scratch/535.json")" \
  "[('libptx75.so', 'H100', 'driver'), ('libsm80.so', 'H100', 'driver')]" \
  "the verdicts with a 535 driver (libcompressed's sm_90 SASS needs no JIT)"
expect_eq "$(json "$scratch/535.json" "[f['fix'] for f in j['findings'] if (f['expected'] or '').endswith('libsm80.so')]")" \
  "[\"update the NVIDIA driver to branch 580 or newer (CUDA 13.0), or install a build with SASS for the GPU; or, on this Data Center GPU, NVIDIA's CUDA forward-compatibility package (cuda-compat-13-0 from NVIDIA's repositories, or cuda-compat on conda), which runs CUDA 13.0 on an older driver branch where NVIDIA's compatibility table supports that branch\"]" \
  "the driver that compiles PTX ISA 9.0, and on an H100 (a Data Center GPU) forward compatibility"
expect_status 1 "$CONDACUDA" doctor -p "$env" --gpu "RTX 5090" --driver 535.104.05 --json > "$scratch/535-rtx.json"
expect_eq "$(json "$scratch/535-rtx.json" "[f['fix'] for f in j['findings'] if (f['expected'] or '').endswith('libsm80.so')]")" \
  "['update the NVIDIA driver to branch 580 or newer (CUDA 13.0), or install a build with SASS for the GPU']" \
  "no forward compatibility for a GeForce GPU"

note "an env whose libraries carry no GPU code: --gpu says nothing was judged (text and JSON)"
build_demo_env "$scratch/demo"
nvjl=$(echo "$scratch/demo/env"/lib/python3*/site-packages/nvidia/nvjitlink/lib)
LD_LIBRARY_PATH=$nvjl "$CONDACUDA" doctor -p "$scratch/demo/env" --gpu V100 --json > "$scratch/nocode.json"
expect_eq "$(json "$scratch/nocode.json" "[(f['code'], f['severity'], f['title']) for f in j['findings'] if f['code'] == 'no-gpu-code']")" \
  "[('no-gpu-code', 'info', 'no library of this env that loads carries GPU code: nothing judged for --gpu V100')]" "no-gpu-code"
LD_LIBRARY_PATH=$nvjl "$CONDACUDA" doctor -p "$scratch/demo/env" --gpu V100 --color never > "$scratch/nocode.txt"
layout_ok doctor-gpu "$scratch/nocode.txt"
grep -q "no-gpu-code.*nothing judged for --gpu V100" "$scratch/nocode.txt" || { cat "$scratch/nocode.txt"; fail "no-gpu-code in text"; }

note "a wheel's cuBLAS built before Blackwell, and a python extension that loads it"
pyver=$(python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
venv=$scratch/venv
sp=$venv/lib/$pyver/site-packages
mkdir -p "$sp/nvidia/cublas/lib" "$venv/bin"
printf 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3\n' > "$venv/pyvenv.cfg"
"$nvcc" -shared -Xcompiler -fPIC -cudart static -Xlinker -soname -Xlinker libcublas.so.12 \
  -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -o "$sp/nvidia/cublas/lib/libcublas.so.12" "$scratch/k.cu"
dist=$sp/nvidia_cublas_cu12-12.4.5.8.dist-info
mkdir -p "$dist"
printf 'Metadata-Version: 2.1\nName: nvidia-cublas-cu12\nVersion: 12.4.5.8\n' > "$dist/METADATA"
printf 'nvidia/cublas/lib/libcublas.so.12,,\n%s/METADATA,,\n%s/RECORD,,\n' "${dist##*/}" "${dist##*/}" > "$dist/RECORD"
ext=$sp/ext$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
printf 'void launch(float, const float*, float*);\nvoid call(void) { launch(1, 0, 0); }\n' > "$scratch/ext.c"
# shellcheck disable=SC2016 # $ORIGIN is for the loader
gcc -shared -fPIC -o "$ext" "$scratch/ext.c" -Wl,--enable-new-dtags,-rpath,'$ORIGIN/nvidia/cublas/lib' \
  -L"$sp/nvidia/cublas/lib" -l:libcublas.so.12
expect_status 1 "$CONDACUDA" doctor -p "$venv" --gpu B200 --gpu H100 --driver 580.65.06 --json > "$scratch/wheel.json"
expect_eq "$(verdicts "$scratch/wheel.json")" "[('libcublas.so.12', 'B200', 'none')]" "cuBLAS 12.4 on a B200 and an H100"
expect_eq "$(json "$scratch/wheel.json" "[f['fix'] for f in j['findings'] if f['code'] == 'no-kernel-image'][0]")" \
  "CUDA builds for sm_100 from 12.8 on: pip install --upgrade 'nvidia-cublas-cu12>=12.8.3.14' (CUDA 12.8.0)" \
  "the fix names the release that adds sm_100"
expect_eq "$(json "$scratch/wheel.json" "'lib/$pyver/site-packages/${ext##*/}' in [f for f in j['findings'] if f['code'] == 'no-kernel-image'][0]['affects']")" \
  True "the extension that loads it is affected"

note "--gpu auto: /proc's model names, else the driver's list through the probe child"
if [ -d /proc/driver/nvidia/gpus ] || [ -e /dev/nvidiactl ]; then
  status=0
  "$CONDACUDA" doctor -p "$env" --gpu auto --json > "$scratch/auto.json" 2> "$scratch/auto.err" || status=$?
  [ "$status" != 2 ] || { cat "$scratch/auto.err" >&2; fail "--gpu auto found no GPU on a machine with the driver"; }
else
  expect_status 2 "$CONDACUDA" doctor -p "$env" --gpu auto > /dev/null 2> "$scratch/auto.err"
  grep -q "^condacuda: --gpu auto: no NVIDIA GPU visible (no /proc/driver/nvidia/gpus/\*/information, no CONDACUDA_GPU; libcuda.so.1 does not load: " \
    "$scratch/auto.err" || { cat "$scratch/auto.err" >&2; fail "--gpu auto without a GPU: why the driver listed none"; }
fi

note "--gpu visible: a node without a GPU is judged without one (fleet asks every node this)"
unset CONDACUDA_GPU CONDACUDA_DRIVER
if [ ! -d /proc/driver/nvidia/gpus ] && [ ! -e /dev/nvidiactl ]; then
  expect_status 0 "$CONDACUDA" doctor -p "$env" --gpu visible --json > "$scratch/visible.json"
  expect_eq "$(json "$scratch/visible.json" 'j["node"]["gpus"], j["node"]["gpus_source"], j["node"]["driver"]')" \
    "([], 'none', {'version': None, 'source': 'none'})" "no GPU, no driver: the node facts say so"
fi

note "CONDACUDA_GPU and CONDACUDA_DRIVER declare what a hidden /proc/driver/nvidia does not show"
CONDACUDA_GPU="V100, H100" CONDACUDA_DRIVER=580.65.06 expect_status 1 "$CONDACUDA" doctor -p "$env" --gpu auto --json > "$scratch/declared.json"
expect_eq "$(json "$scratch/declared.json" 'j["node"]["gpus"], j["node"]["gpus_source"], j["node"]["driver"]')" \
  "([{'name': 'V100', 'sm': 'sm_70'}, {'name': 'H100', 'sm': 'sm_90'}], 'CONDACUDA_GPU', {'version': '580.65.06', 'source': 'CONDACUDA_DRIVER'})" \
  "the declared node"
expect_eq "$(verdicts "$scratch/declared.json")" "$(CONDACUDA_DRIVER='' expect_status 1 "$CONDACUDA" doctor -p "$env" --gpu V100 --gpu H100 --driver 580.65.06 --json > "$scratch/named.json"; verdicts "$scratch/named.json")" \
  "declared GPUs judge as named ones"
CONDACUDA_DRIVER=535.104.05 expect_status 1 "$CONDACUDA" doctor -p "$env" --gpu H100 --json > "$scratch/declared-535.json"
expect_eq "$(verdicts "$scratch/declared-535.json")" "$(verdicts "$scratch/535.json")" "a declared 535 driver judges as --driver 535"
CONDACUDA_DRIVER=535.104.05 expect_status 0 "$CONDACUDA" doctor -p "$env" --gpu H100 --driver 580.65.06 --json > "$scratch/given.json"
expect_eq "$(json "$scratch/given.json" 'j["node"]["driver"]')" "{'version': '580.65.06', 'source': '--driver'}" "--driver wins over the declaration"
CONDACUDA_GPU=Z9000 expect_status 2 "$CONDACUDA" doctor -p "$env" --gpu visible > /dev/null 2> "$scratch/err"
grep -q "CONDACUDA_GPU: unknown GPU 'Z9000'" "$scratch/err" || fail "a bad CONDACUDA_GPU: $(cat "$scratch/err")"
CONDACUDA_DRIVER=recent expect_status 2 "$CONDACUDA" doctor -p "$env" > /dev/null 2> "$scratch/err"
grep -q "CONDACUDA_DRIVER='recent' is not a driver version" "$scratch/err" || fail "a bad CONDACUDA_DRIVER: $(cat "$scratch/err")"

note "a GPU the table does not know is a usage error"
expect_status 2 "$CONDACUDA" doctor -p "$env" --gpu "Z9000" > /dev/null 2> "$scratch/err"
grep -q "unknown GPU 'Z9000'" "$scratch/err" || fail "no message for an unknown GPU"

if make_cuda13_env "$scratch/cu13"; then
  note "the real CUDA 13 libraries"
  "$CONDACUDA" info -p "$scratch/cu13" --json > "$scratch/info.json"
  without70=$(json "$scratch/info.json" "sorted(c['soname'] for c in j['components'] if c['gpu_code'] and c['gpu_code']['sass'] and c['component'] != 'cufft' and 'sm_70' not in c['gpu_code']['sass'] and not any(int(p.split('_')[1].rstrip('af')) <= 70 for p in c['gpu_code']['ptx']))")
  expect_status 1 "$CONDACUDA" doctor -p "$scratch/cu13" --gpu V100 --driver 580.65.06 --json > "$scratch/v100.json"
  expect_eq "$(json "$scratch/v100.json" "sorted(set(f['library'] for f in j['findings'] if f['code'] == 'no-kernel-image'))")" \
    "$without70" "V100: every CUDA 13 library without sm_70 code"
  expect_eq "$(json "$scratch/v100.json" "[f['fix'] for f in j['findings'] if f['code'] == 'no-kernel-image' and f['library'] == 'libcusparse.so.12']")" \
    "['CUDA 13 builds nothing for GPUs before Turing (sm_75): on V100 replace nvidia-cusparse 12.6.3.3 with the CUDA 12 wheel nvidia-cusparse-cu12 (CUDA 12 still builds sm_70; the newest CUDA 12 release the release table knows, 12.9.1, has cusparse 12.5.10.65), or run on a newer GPU']" \
    "cuSPARSE on a V100, and its fix (the CUDA 12 package, no CUDA 13 version for it)"
  expect_eq "$(json "$scratch/v100.json" "[f['fix'] for f in j['findings'] if f['library'] == 'libcublas.so.13' and 'nvidia-cublas-cu12 13' in f['fix']]")" \
    "[]" "issue 24: no 'CUDA 12 build of nvidia-cublas 13.1.0.3'"
  expect_status 0 "$CONDACUDA" doctor -p "$scratch/cu13" --gpu H100 --driver 580.65.06 --json > "$scratch/h100.json"
  expect_eq "$(json "$scratch/h100.json" "[f['library'] for f in j['findings'] if f['code'] in ('no-kernel-image', 'ptx-jit-only')]")" "[]" "H100: nothing missing"
else
  note "no /usr/local/cuda/dist-info: the real libraries are not tried"
fi
