#!/usr/bin/env bash
# A CUDA library of another major from outside the env (issue 14, case 3),
# with real python: the demo env (CUDA 12) after `pip uninstall
# nvidia-cusparse-cu12` (the files of its RECORD) loads a libcusparse.so.12
# from a system CUDA 13 folder (the same soname in CUDA 12 and 13). The import
# works, and doctor still reports it: `foreign-cuda-major`, an error naming
# the file and its major, since the env lost its own copy; a warning while the
# env still has one. Then the same with this machine's real CUDA 13 through
# /etc/ld.so.cache, when it has one.
source "$(dirname "$0")/lib.sh"
unset LD_LIBRARY_PATH

demo_env "$scratch/demo"
cuda13=$scratch/opt/cuda-13.0/lib64
mkdir -p "$cuda13"
# A CUDA 13 cuSPARSE as the toolkit ships it: soname libcusparse.so.12 (the
# same in CUDA 12 and 13), needing CUDA 13's libnvJitLink.so.13.
printf 'int nvJitLinkVersion(unsigned* major, unsigned* minor) { *major = 13; *minor = 0; return 0; }\n' > "$scratch/jit13.c"
gcc -shared -fPIC -Wl,-soname,libnvJitLink.so.13 -o "$cuda13/libnvJitLink.so.13" "$scratch/jit13.c"
cat > "$scratch/sparse13.c" << 'C'
int nvJitLinkVersion(unsigned* major, unsigned* minor);
int cusparseCreate(void** handle) { unsigned a, b; *handle = (void*)1; return nvJitLinkVersion(&a, &b); }
int cusparseGetVersion(void* handle, int* version) { (void)handle; *version = 12100; return 0; }
C
gcc -shared -fPIC -Wl,-soname,libcusparse.so.12 -Wl,--no-as-needed -Wl,--enable-new-dtags,-rpath,'$ORIGIN' \
  -o "$cuda13/libcusparse.so.12" "$scratch/sparse13.c" -L"$cuda13" -l:libnvJitLink.so.13

foreign() { # JSON: the foreign-cuda-major findings as "severity library major-line"
  json "$1" '[(f["severity"], f["resolved_path"], [e for e in f["evidence"] if " belongs to CUDA " in e][0]) for f in j["findings"] if f["code"] == "foreign-cuda-major"]'
}

note "the env has its own cuSPARSE: a warning"
# (exit 1: the env's own cuSPARSE, unrepaired, cannot reach its nvJitLink: the seed)
expect_status 1 env LD_LIBRARY_PATH="$cuda13" "$CONDACUDA" doctor -p "$env" --json > "$scratch/kept.json"
expect_eq "$(foreign "$scratch/kept.json")" \
  "[('warning', '$cuda13/libcusparse.so.12', 'libcusparse.so.12 belongs to CUDA 13: it needs libnvJitLink.so.13')]" "with the env's copy"

note "pip uninstall nvidia-cusparse-cu12: the import works, doctor says it is CUDA 13"
dist=$(echo "$sp"/nvidia_cusparse_cu12-*.dist-info)
while IFS=, read -r rel _; do rm -f "$sp/$rel"; done < "$dist/RECORD"
expect_eq "$(LD_LIBRARY_PATH=$cuda13 "$py" -c "$import")" "sparse 12100" "the loader accepts it"
expect_status 1 env LD_LIBRARY_PATH="$cuda13" "$CONDACUDA" doctor -p "$env" --json > "$scratch/lost.json"
expect_eq "$(foreign "$scratch/lost.json")" \
  "[('error', '$cuda13/libcusparse.so.12', 'libcusparse.so.12 belongs to CUDA 13: it needs libnvJitLink.so.13')]" "the env lost its copy"
expect_eq "$(json "$scratch/lost.json" '[f["fix"] for f in j["findings"] if f["code"] == "foreign-cuda-major"][0]')" \
  "install libcusparse.so.12 into the env: \`pip install nvidia-cusparse-cu12\` (or the conda package of that component)" "the fix"

# awk reads a finished string: under pipefail, `ldconfig -p | awk ...; exit` fails when ldconfig gets SIGPIPE.
cache=$(awk '$1 == "libcusparse.so.12" && $NF ~ /cuda-13/ { print $NF; exit }' <<< "$(ldconfig -p)")
if [ -n "$cache" ]; then
  note "this machine's CUDA 13 through ld.so.cache: $cache"
  expect_status 1 env -u LD_LIBRARY_PATH "$CONDACUDA" doctor -p "$env" --json > "$scratch/cache.json"
  expect_eq "$(json "$scratch/cache.json" '[(f["resolved_path"], f["via"]) for f in j["findings"] if f["code"] == "foreign-cuda-major"]')" \
    "[('$cache', 'ld_so_cache')]" "the cached CUDA 13 cuSPARSE"
  expect_eq "$(json "$scratch/cache.json" '[e for f in j["findings"] if f["code"] == "foreign-cuda-major" for e in f["evidence"] if " belongs to CUDA " in e]')" \
    "['libcusparse.so.12 belongs to CUDA 13: it needs libnvJitLink.so.13']" "judged by what it needs"
else
  note "no CUDA 13 libcusparse.so.12 in this machine's ld.so.cache: that part is skipped"
fi
