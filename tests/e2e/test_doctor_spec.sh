#!/usr/bin/env bash
# doctor against the real loader on a fixture env built to exercise the loader
# spec (docs/loader-model.md): the RPATH chain versus RUNPATH, a missing
# version, a glibc-hwcaps subfolder, weak references, and LD_LIBRARY_PATH
# entries that hold a short file, a 32-bit ELF, or the current directory.
# All libraries are compiled here from C and named as CUDA components so that
# doctor takes them as roots. Every root must agree with a real dlopen (C
# host, libc only) and with `ldd -r`.
source "$(dirname "$0")/lib.sh"

z=$scratch/zoo
sp=$z/lib/python3.11/site-packages
nv=$sp/nvidia
mkdir -p "$z/conda-meta" "$nv"/{cufft/lib,cufft/deps,curand/lib,cusolver/lib,nvtx/lib,cuda_runtime/lib,cublas/lib} "$sp/pkg"
touch "$z/conda-meta/history"
cc() { gcc -shared -fPIC "$@"; }
src() { printf '%s\n' "$2" > "$scratch/$1.c"; echo "$scratch/$1.c"; }

# (a) RPATH reaches grandchildren: cufft (RPATH) -> curand -> zoohelper (only on cufft's RPATH).
cc -Wl,-soname,libzoohelper.so -o "$nv/cufft/deps/libzoohelper.so" "$(src helper 'int helper(void) { return 1; }')"
cc -Wl,-soname,libcurand.so.10 -o "$nv/curand/lib/libcurand.so.10" "$(src curand 'int helper(void); int curand(void) { return helper(); }')" \
   -L"$nv/cufft/deps" -lzoohelper
cc -Wl,-soname,libcufft.so.11 -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../../curand/lib:$ORIGIN/../deps' \
   -o "$nv/cufft/lib/libcufft.so.11" "$(src cufft 'int curand(void); int cufft(void) { return curand(); }')" \
   -L"$nv/curand/lib" -l:libcurand.so.10 -Wl,-rpath-link,"$nv/cufft/deps"
# (b) RUNPATH does not: cusolver (RUNPATH, same dirs) -> curand -> zoohelper: not found.
cc -Wl,-soname,libcusolver.so.11 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../../curand/lib:$ORIGIN/../../cufft/deps' \
   -o "$nv/cusolver/lib/libcusolver.so.11" "$(src cusolver 'int curand(void); int cusolver(void) { return curand(); }')" \
   -L"$nv/curand/lib" -l:libcurand.so.10 -Wl,-rpath-link,"$nv/cufft/deps"
# (c) A version nobody defines: nvtx linked against zoover V2, the env's zoover has V1 only.
printf 'V2 { global: ver; local: *; };\n' > "$scratch/v2.map"
printf 'V1 { global: ver; local: *; };\n' > "$scratch/v1.map"
mkdir -p "$scratch/v2"
cc -Wl,-soname,libzoover.so -Wl,--version-script="$scratch/v2.map" -o "$scratch/v2/libzoover.so" "$(src ver 'int ver(void) { return 2; }')"
cc -Wl,-soname,libzoover.so -Wl,--version-script="$scratch/v1.map" -o "$nv/nvtx/lib/libzoover.so" "$scratch/ver.c"
cc -Wl,-soname,libnvToolsExt.so.1 -Wl,--enable-new-dtags,-rpath,'$ORIGIN' -o "$nv/nvtx/lib/libnvToolsExt.so.1" \
   "$(src nvtx 'int ver(void); int nvtx(void) { return ver(); }')" -L"$scratch/v2" -lzoover
# (d) glibc-hwcaps: the x86-64-v2 copy (chosen first) lacks cudaSpecial; a consumer needs it.
cc -Wl,-soname,libcudart.so.12 -o "$nv/cuda_runtime/lib/libcudart.so.12" \
   "$(src cudart 'int cudaRuntime(void) { return 1; } int cudaSpecial(void) { return 2; }')"
if grep -q x86-64-v2 <(/lib64/ld-linux-x86-64.so.2 --help 2>/dev/null); then
  mkdir -p "$nv/cuda_runtime/lib/glibc-hwcaps/x86-64-v2"
  cc -Wl,-soname,libcudart.so.12 -o "$nv/cuda_runtime/lib/glibc-hwcaps/x86-64-v2/libcudart.so.12" \
     "$(src cudart2 'int cudaRuntime(void) { return 1; }')"
fi
cc -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../nvidia/cuda_runtime/lib' -o "$sp/pkg/_special.so" \
   "$(src special 'int cudaSpecial(void); int special(void) { return cudaSpecial(); }')" -L"$nv/cuda_runtime/lib" -l:libcudart.so.12
# (e) A weak reference to something nobody defines never fails.
cc -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../nvidia/cuda_runtime/lib' -o "$sp/pkg/_weak.so" \
   "$(src weak 'extern int nowhere(void) __attribute__((weak)); int cudaRuntime(void); int w(void) { return nowhere ? nowhere() : cudaRuntime(); }')" \
   -L"$nv/cuda_runtime/lib" -l:libcudart.so.12
# (f) cublas -> cublasLt through RUNPATH $ORIGIN (for the LD_LIBRARY_PATH cases below).
cc -Wl,-soname,libcublasLt.so.12 -o "$nv/cublas/lib/libcublasLt.so.12" "$(src lt 'int lt(void) { return 3; }')"
cc -Wl,-soname,libcublas.so.12 -Wl,--enable-new-dtags,-rpath,'$ORIGIN' -o "$nv/cublas/lib/libcublas.so.12" \
   "$(src cublas 'int lt(void); int cublas(void) { return lt(); }')" -L"$nv/cublas/lib" -l:libcublasLt.so.12
# Bad candidates for LD_LIBRARY_PATH: a short file, a 32-bit ELF, a dir in place of a file.
mkdir -p "$scratch/short" "$scratch/elf32" "$scratch/cwd/libcublasLt.so.12" "$scratch/old"
printf 'not an ELF\n' > "$scratch/short/libcublasLt.so.12"
python3 - "$nv/cublas/lib/libcublasLt.so.12" "$scratch/elf32/libcublasLt.so.12" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read()); data[4] = 1  # ELFCLASS32
open(sys.argv[2], "wb").write(data)
PY
cc -Wl,-soname,libcublasLt.so.12 -o "$scratch/old/libcublasLt.so.12" "$(src oldlt 'int other(void) { return 0; }')"

oracle=$CONDACUDA_SOURCE_DIR/tests/e2e/doctor_oracle.py
# Every case has roots that fail (libcusolver's RUNPATH, libnvToolsExt's
# missing version): doctor exits 1 in each.
run() { # NAME [LD_LIBRARY_PATH]: doctor and the oracle, from $scratch/cwd
  local name=$1
  local -a env_cmd=(env -u LD_LIBRARY_PATH)
  [ $# -ge 2 ] && env_cmd=(env "LD_LIBRARY_PATH=$2")
  note "case $name"
  (cd "$scratch/cwd" && expect_status 1 "${env_cmd[@]}" "$CONDACUDA" doctor -p "$z" --json > "$scratch/$name.json")
  (cd "$scratch/cwd" && "${env_cmd[@]}" python3 "$oracle" "$scratch/$name.json" --probe "$CONDACUDA_DLOPEN_PROBE" --ldd)
}
verdict() { json "$scratch/$1.json" "[r['verdict'] for r in j['roots'] if r['file'].endswith('$2')][0]"; }
codes() { json "$scratch/$1.json" "sorted(set(f['code'] for f in j['findings']))"; }

run plain
expect_eq "$(verdict plain libcufft.so.11)" loads "RPATH reaches the grandchild"
expect_eq "$(verdict plain libcusolver.so.11)" fails "RUNPATH does not"
expect_eq "$(verdict plain libnvToolsExt.so.1)" fails "missing version"
expect_eq "$(verdict plain _weak.so)" loads "weak reference"
expect_eq "$(codes plain | grep -c version-not-found)" 1 "version-not-found finding"
[ -d "$nv/cuda_runtime/lib/glibc-hwcaps" ] && expect_eq "$(verdict plain _special.so)" fails "hwcaps copy chosen first"

run short "$scratch/short:$nv/cublas/lib"
expect_eq "$(verdict short libcublas.so.12)" fails "a short file stops the search"
expect_eq "$(codes short | grep -c bad-file)" 1 "bad-file finding"
run elf32 "$scratch/elf32:$nv/cublas/lib"
expect_eq "$(verdict elf32 libcublas.so.12)" loads "a 32-bit ELF is skipped"
run cwd ":/nonexistent"
expect_eq "$(verdict cwd libcublas.so.12)" fails "empty entry = cwd, which holds a directory"
expect_eq "$(codes cwd | grep -c empty-path-entry)" 1 "empty-path-entry finding"
run old "$scratch/old"
expect_eq "$(verdict old libcublas.so.12)" fails "older cublasLt shadows"
note "doctor agrees with the real loader on the spec fixtures"
