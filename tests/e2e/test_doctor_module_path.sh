#!/usr/bin/env bash
# A JAX-style CUDA 13 env under an HPC module path (issue 25): the real CUDA 13
# wheels of /usr/local/cuda laid out in a venv, a jax-cuda13-plugin-like
# package whose extension needs cuDNN, NCCL, cuSPARSE, cuRAND and cuBLAS, and
# whose METADATA requires nvidia-cudnn-cu13>=9.8,<10.0 and nvidia-nccl-cu13>=2.27
# (as the real plugin's does). The shell has loaded three modules:
#   LD_LIBRARY_PATH=/opt/cuda-12.1/lib64:/opt/cudnn/lib:/opt/nccl/lib
# with CUDA 12.1's cuSPARSE and cuRAND (same sonames as CUDA 13's), cuDNN 9.1.0
# (libcudnn.so.9 -> libcudnn.so.9.1.0) and NCCL 2.18.3 (its embedded
# "NCCL version 2.18.3+cuda12.1"). Everything loads (the real loader agrees),
# and every library the modules shadow is wrong. doctor must say it once per
# path entry, with both versions of every copy it shadows, and one fix each.
source "$(dirname "$0")/lib.sh"
unset CONDACUDA_HOOK_STATE

env=$scratch/jax
make_cuda13_env "$env" || skip "no /usr/local/cuda/dist-info on this machine"
sp=$(echo "$env"/lib/python3*/site-packages)
if [ ! -e "$sp/nvidia/cudnn/lib/libcudnn.so.9" ] || [ ! -e "$sp/nvidia/nccl/lib/libnccl.so.2" ]; then
  skip "the CUDA 13 wheels here have no nvidia/cudnn or nvidia/nccl"
fi
cu13=$sp/nvidia/cu13/lib
cuda121=$scratch/opt/cuda-12.1/lib64 cudnn=$scratch/opt/cudnn/lib nccl=$scratch/opt/nccl/lib
mkdir -p "$cuda121" "$cudnn" "$nccl"

# stub FILE SONAME C [LIBS...]: a module library as the module ships it, with
# the soname link beside it when FILE is the full version's name.
stub() {
  local file=$1 soname=$2 code=$3
  shift 3
  printf '%s\n' "$code" > "$scratch/stub.c"
  gcc -shared -fPIC -Wl,-soname,"$soname" -o "$file" "$scratch/stub.c" "$@"
  [ "${file##*/}" = "$soname" ] || ln -sf "${file##*/}" "${file%/*}/$soname"
}
stub "$cuda121/libnvJitLink.so.12.1.105" libnvJitLink.so.12 'int nvJitLinkVersion(unsigned* a, unsigned* b) { *a = 12; *b = 1; return 0; }'
stub "$cuda121/libcusparse.so.12.1.0.106" libcusparse.so.12 \
  'int nvJitLinkVersion(unsigned*, unsigned*); int cusparseCreate(void** h) { unsigned a, b; *h = 0; return nvJitLinkVersion(&a, &b); }' \
  -L"$cuda121" -l:libnvJitLink.so.12 -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
stub "$cuda121/libcurand.so.10.3.2.106" libcurand.so.10 'int curandCreateGenerator(void** g, int t) { *g = 0; return t; }'
stub "$cudnn/libcudnn.so.9.1.0" libcudnn.so.9 'unsigned long cudnnGetVersion(void) { return 90100; }'
stub "$nccl/libnccl.so.2.18.3" libnccl.so.2 \
  'const char banner[] = "NCCL version 2.18.3+cuda12.1"; int ncclGetVersion(int* v) { *v = 21803 + (banner[0] == 0); return 0; }'

# The plugin: links against what it needs (unversioned references, as
# against the toolkit's stubs), RUNPATH into the wheels.
plugin=$sp/jax_plugins/xla_cuda13
mkdir -p "$plugin"
cat > "$scratch/plugin.c" << 'C'
unsigned long cudnnGetVersion(void);
int ncclGetVersion(int*);
int cusparseCreate(void**);
int curandCreateGenerator(void**, int);
int cublasCreate_v2(void**);
long plugin_versions(void) {
  int nccl = 0; void* h = 0;
  ncclGetVersion(&nccl);
  return (long)cudnnGetVersion() * 100000 + nccl + cusparseCreate(&h) + curandCreateGenerator(&h, 0) * 0 + (long)(cublasCreate_v2 != 0) * 0;
}
C
gcc -shared -fPIC -o "$plugin/xla_cuda_plugin.so" "$scratch/plugin.c" -Wl,--no-as-needed \
  -L"$cudnn" -L"$nccl" -L"$cuda121" -L"$cu13" -l:libcudnn.so.9 -l:libnccl.so.2 -l:libcusparse.so.12 -l:libcurand.so.10 \
  -l:libcublas.so.13 -Wl,-rpath-link,"$cuda121" -Wl,--allow-shlib-undefined \
  -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../../nvidia/cudnn/lib:$ORIGIN/../../nvidia/nccl/lib:$ORIGIN/../../nvidia/cu13/lib'
dist=$sp/jax_cuda13_plugin-0.8.1.dist-info
mkdir -p "$dist"
printf '%s\n' 'Metadata-Version: 2.1' 'Name: jax-cuda13-plugin' 'Version: 0.8.1' \
  'Requires-Dist: nvidia-cudnn-cu13<10.0,>=9.8; extra == "with-cuda"' \
  'Requires-Dist: nvidia-nccl-cu13>=2.27; extra == "with-cuda"' \
  'Requires-Dist: nvidia-cudnn-cu13<10.0,>=9.8' 'Requires-Dist: nvidia-nccl-cu13>=2.27' > "$dist/METADATA"
printf '%s\n' 'jax_plugins/xla_cuda13/xla_cuda_plugin.so,,' 'jax_cuda13_plugin-0.8.1.dist-info/METADATA,,' > "$dist/RECORD"

modules=$cuda121:$cudnn:$nccl
note "LD_LIBRARY_PATH=$modules"
expect_status 1 env LD_LIBRARY_PATH="$modules" "$CONDACUDA" doctor -p "$env" --json > "$scratch/doctor.json"
expect_status 1 env LD_LIBRARY_PATH="$modules" "$CONDACUDA" doctor -p "$env" > "$scratch/doctor.txt"
cat "$scratch/doctor.txt"
LD_LIBRARY_PATH=$modules python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/doctor_oracle.py" "$scratch/doctor.json" \
  --probe "$CONDACUDA_DLOPEN_PROBE" --ldd

note "one finding per path entry, with both versions of every copy it shadows"
per_entry() { # ENTRY: the findings caused by ENTRY, as (severity, code, [codes of its parts])
  json "$scratch/doctor.json" "[(f['severity'], f['code'], sorted(set(p['code'] for p in f.get('parts', [])))) for f in j['findings'] if f['via_entry'] == '$1']"
}
expect_eq "$(per_entry "$cuda121")" \
  "[('error', 'undefined-symbol', ['foreign-cuda-major', 'shadowed', 'undefined-symbol'])]" "CUDA 12.1's entry"
expect_eq "$(per_entry "$cudnn")" "[('error', 'requirement-mismatch', ['requirement-mismatch', 'shadowed'])]" "cuDNN's entry"
expect_eq "$(per_entry "$nccl")" "[('error', 'requirement-mismatch', ['requirement-mismatch', 'shadowed'])]" "NCCL's entry"
mentions() { # ENTRY TEXT...: each TEXT is in the entry's finding (title and evidence)
  local entry=$1 text
  shift
  for text in "$@"; do
    expect_eq "$(TEXT=$text ENTRY=$entry json "$scratch/doctor.json" "any(__import__('os').environ['TEXT'] in ' '.join([f['title']] + f['evidence']) for f in j['findings'] if f['via_entry'] == __import__('os').environ['ENTRY'])")" \
      True "'$text' in the finding of $entry"
  done
}
mentions "$cuda121" "shadows 2 of the env's libraries (libcusparse.so.12, libcurand.so.10)" \
  "libcusparse.so.12, version 12.1.0.106 (file name libcusparse.so.12.1.0.106)" "(nvidia-cusparse 12.6.3.3)" \
  "version 10.3.2.106 (file name libcurand.so.10.3.2.106)" "(nvidia-curand 10.4.0.35)" \
  "libcusparse.so.12 belongs to CUDA 12: it needs libnvJitLink.so.12" "libcurand.so.10 belongs to CUDA 12: its folder is cuda-12.1"
mentions "$cudnn" "requires nvidia-cudnn-cu13<10.0,>=9.8, but the cudnn that loads is 9.1.0" "(nvidia-cudnn-cu13 9.19.0.56)"
mentions "$nccl" "requires nvidia-nccl-cu13>=2.27, but the nccl that loads is 2.18.3" \
  "embedded string 'NCCL version 2.18.3+cuda12.1'" "(nvidia-nccl-cu13 2.28.9)"
expect_eq "$(json "$scratch/doctor.json" "len(set(f['fix'] for f in j['findings'] if f['via_entry'] in '$modules'.split(':')))")" 3 "one fix per entry"
grep -c "^ERROR\|^WARN" "$scratch/doctor.txt" > "$scratch/count"
note "$(cat "$scratch/count") findings in all (the three entries, ld.so.cache's where it shadows, not-activated)"

note "repair --pin from this shell: the env's copies load, the modules stay on the path"
original=$(readlink -f "${CONDACUDA_CUDA_ROOT:-/usr/local/cuda}/lib/libcusolver.so.12")
before=$(sha256sum < "$original")
env LD_LIBRARY_PATH="$modules" "$CONDACUDA" repair -p "$env" --pin > "$scratch/repair.txt"
expect_eq "$(sha256sum < "$original")" "$before" "the hard-linked original is untouched"
env LD_LIBRARY_PATH="$modules" "$CONDACUDA" doctor -p "$env" --json > "$scratch/after.json"
expect_eq "$(json "$scratch/after.json" "[f['code'] for f in j['findings'] if f['severity'] == 'error' or f['via_entry'] in '$modules'.split(':')]")" \
  "[]" "after the pin: nothing from the modules"
LD_LIBRARY_PATH=$modules python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/doctor_oracle.py" "$scratch/after.json" \
  --probe "$CONDACUDA_DLOPEN_PROBE" --ldd > /dev/null
