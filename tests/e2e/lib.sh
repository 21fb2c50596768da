# shellcheck shell=bash
# Common prelude of the end-to-end suites (sourced; tests/gpu and tests/bench
# source it too): the shared prelude (tests/tools/prelude.sh: strict mode, the
# failure trap, skip/fail/note, $scratch), then helpers and the demo env.
: "${CONDACUDA:?run through ctest (CONDACUDA is the binary under test)}"
: "${CONDACUDA_SOURCE_DIR:?}"
: "${CONDACUDA_BUILD_DIR:?}"
# shellcheck source=../tools/prelude.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tools/prelude.sh"

# condacuda's caches (hashes, fatbins, load checks) in the scratch folder,
# never the user's; a suite that tests them sets its own.
export XDG_CACHE_HOME=$scratch/xdg-cache

# shellcheck source=../tools/old_nvjitlink13.sh
source "$CONDACUDA_SOURCE_DIR/tests/tools/old_nvjitlink13.sh"
# shellcheck source=../tools/cuda13_env.sh
source "$CONDACUDA_SOURCE_DIR/tests/tools/cuda13_env.sh"

# expect_eq ACTUAL EXPECTED [WHAT]
expect_eq() {
  if [ "$1" != "$2" ]; then
    fail "${3:-value}: expected [$2], got [$1]"
  fi
}

# expect_status STATUS COMMAND...: runs COMMAND, checks its exit status.
expect_status() {
  local want=$1 got=0
  shift
  "$@" || got=$?
  [ "$got" = "$want" ] || fail "expected exit $want from: $* (got $got)"
}

# expect_exit STATUS OUT ERR COMMAND...: runs COMMAND with its stdout in OUT
# and its stderr in ERR (either may be /dev/null), checks its exit status; a
# mismatch is said on this script's own stderr (expect_status under a 2>
# redirection would write it into ERR).
expect_exit() {
  local want=$1 out=$2 err=$3 got=0
  shift 3
  "$@" > "$out" 2> "$err" || got=$?
  [ "$got" = "$want" ] || fail "expected exit $want from: $* (got $got; stderr: $(head -c 400 "$err" 2> /dev/null))"
}

# doctor_status_agrees FILE STATUS: doctor's exit STATUS is the one its
# --json document FILE implies (README "Exit codes": 0 healthy, 1 not; 2 for
# a condacuda.error/1 document), where the verdict itself is what a test
# compares (with the real loader) and either is right.
doctor_status_agrees() {
  local want
  want=$(json "$1" '2 if j.get("schema") == "condacuda.error/1" else 0 if j["healthy"] else 1')
  [ "$2" = "$want" ] || fail "doctor exited $2, its document $1 says $want"
}

# layout_ok NAME FILE [JSON]: FILE, a default text view, within the layout
# rules of tests/e2e/frameworks/text_rules.py (100 columns, no loader terms;
# with the same command's --json JSON: the error once, each step a line).
layout_ok() {
  python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/frameworks/text_rules.py" "$@" || fail "$1: the text view breaks the layout rules"
}

# flat FILE: a text view's lines joined by single spaces (the view wraps at
# 100 columns: a test reads its sentences across the breaks).
flat() { tr '\n' ' ' < "$1" | tr -s ' '; }

# tree_state DIR: every path below DIR with its type, mode, size (files) and
# link target, then every file's sha256: two trees are the same when these are.
# Folder sizes are left out (they depend on the file system and its history).
tree_state() {
  (cd "$1" && { find . -type d -printf '%p %y %m\n'; find . ! -type d -printf '%p %y %m %s %l\n'; } | LC_ALL=C sort &&
    find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

# json FILE EXPR: evaluates a Python expression over the parsed JSON `j`.
json() {
  python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# install_condacuda_package PREFIX: what the condacuda conda package puts into
# the env PREFIX: this build's cmake --install, then the lines of
# packaging/conda/build.sh after its own `cmake --install build-conda` (the
# link scripts, the activation notice), run for real: one source for both.
install_condacuda_package() {
  cmake --install "$CONDACUDA_BUILD_DIR" --prefix "$1" > /dev/null
  build_sh_after_install "$1"
}

# build_sh_after_install PREFIX: the lines of packaging/conda/build.sh after its
# one `cmake --install build-conda` line, run as build.sh runs them (bash with
# its set -euo pipefail, the -x trace left out; in the source folder, PREFIX
# and SRC_DIR set) for PREFIX.
build_sh_after_install() {
  local build_sh=$CONDACUDA_SOURCE_DIR/packaging/conda/build.sh
  [ "$(grep -cx 'cmake --install build-conda' "$build_sh")" = 1 ] ||
    fail "packaging/conda/build.sh has no one line 'cmake --install build-conda' to run the lines after"
  (cd "$CONDACUDA_SOURCE_DIR" && PREFIX=$1 SRC_DIR=$CONDACUDA_SOURCE_DIR \
    bash -euo pipefail -c "$(sed '1,/^cmake --install build-conda$/d' "$build_sh")" build.sh)
}

# What activating env PREFIX prints on stderr, in SHELL (bash, zsh, dash, ksh
# or fish), sourcing its activate.d scripts as conda does (CONDA_PREFIX set).
activation_stderr() { # SHELL PREFIX
  case $1 in
    fish) { fish -c 'set -gx CONDA_PREFIX $argv[1]; for f in $CONDA_PREFIX/etc/conda/activate.d/*.fish; source $f; end' "$2" > /dev/null; } 2>&1 ;;
    *) { "$1" -c 'set -eu; CONDA_PREFIX=$1; export CONDA_PREFIX; for f in "$CONDA_PREFIX"/etc/conda/activate.d/*.sh; do . "$f"; done' sh "$2" > /dev/null; } 2>&1 ;;
  esac
}

# The shells conda sources activation scripts from that tests try: bash, zsh,
# dash and fish, those installed (under CI all of them must be).
activation_shells() {
  local sh
  for sh in bash zsh dash fish; do
    if command -v "$sh" > /dev/null; then echo "$sh"; elif [ -n "${CI:-}" ]; then fail "$sh is not installed"; else note "$sh not installed: not tried" >&2; fi
  done
}

# build_demo_env DIR: the demo env of examples/demo-env (DIR/env, DIR/system-cuda-12.0).
build_demo_env() {
  "$CONDACUDA_SOURCE_DIR/examples/demo-env/build.sh" "$1" > /dev/null
}

# demo_env DIR: the prelude of the tests on the demo env (DIR:
# "$scratch/demo" unless a test needs another path). Builds it in DIR and
# sets what they use of it:
#   env     DIR/env, the env (python, the CUDA 12 wheels, demotorch)
#   system  DIR/system-cuda-12.0/lib64, the older system CUDA: first on
#           LD_LIBRARY_PATH, its nvJitLink 12.0 breaks the env's cuSPARSE
#   sp      the env's site-packages
#   py      the env's python3
#   import  the python code that loads cuSPARSE (prints "sparse 12100")
# and runs the env as a fresh shell would: no CONDACUDA_HOOK_STATE of the
# caller's env, and no bytecode written into the env (PYTHONDONTWRITEBYTECODE).
# LD_LIBRARY_PATH is each test's own choice. A second copy for another part of
# a test is build_demo_env's.
demo_env() {
  local dir=$1
  export PYTHONDONTWRITEBYTECODE=1
  unset CONDACUDA_HOOK_STATE
  build_demo_env "$dir"
  # shellcheck disable=SC2034 # used by the scripts that source this file
  {
    env=$dir/env
    system=$dir/system-cuda-12.0/lib64
    sp=$(echo "$env"/lib/python3*/site-packages)
    py=$env/bin/python3
    import='import demotorch; print("sparse", demotorch.sparse_version())'
  }
}

# build_nvjitlink_12_0 DIR: DIR/libnvJitLink.so.12, the demo's nvJitLink built
# as 12.0 (it lacks __nvJitLinkAddData_12_1).
build_nvjitlink_12_0() {
  local src=$CONDACUDA_SOURCE_DIR/examples/demo-env/src
  mkdir -p "$1"
  cc -shared -fPIC -DNVJITLINK_MINOR=0 -Wl,-soname,libnvJitLink.so.12 -Wl,--version-script="$src/nvjitlink-12.0.map" \
    -o "$1/libnvJitLink.so.12" "$src/nvjitlink.c"
}

# add_conda_nvjitlink_12_0 ENV: conda's cuda-nvjitlink 12.0.76 in ENV/lib
# (build_nvjitlink_12_0) with its conda-meta record: a second copy beside the
# wheel's 12.4.
add_conda_nvjitlink_12_0() {
  build_nvjitlink_12_0 "$1/lib"
  printf '{"name": "cuda-nvjitlink", "version": "12.0.76", "build": "0", "files": ["lib/libnvJitLink.so.12"]}\n' \
    > "$1/conda-meta/cuda-nvjitlink-12.0.76-0.json"
}

# make_old_nvjitlink13 DIR: DIR/libnvJitLink.so.13, an older nvJitLink 13 that
# defines the 12.9 entry points only (tests/tools/old_nvjitlink13.sh).
make_old_nvjitlink13() {
  build_old_nvjitlink13 "$1" "$(mktemp -d "$scratch/old-nvjitlink.XXXXXX")"
}

# make_import_order_env DIR N: the import-order pass at scale (issue 26): the
# seed env (DIR/env, repaired), conda's nvJitLink 12.0 in its lib/, and N
# compiled extension modules ext1..extN in site-packages, each its own module
# (PyInit_extI, an alias of one compiled object's PyInit_ext): odd ones built
# against conda's copy (RUNPATH $ORIGIN/../.., calling nvJitLinkVersion),
# even ones against the wheel's 12.4 (RUNPATH $ORIGIN/nvidia/nvjitlink/lib,
# calling __nvJitLinkAddData_12_1, which 12.0 lacks).
make_import_order_env() {
  build_demo_env "$1"
  cat > "$1/ext.c" << 'C'
#include <Python.h>
#ifdef WHEEL
int __nvJitLinkAddData_12_1(void);
#define CALL __nvJitLinkAddData_12_1()
#else
int nvJitLinkVersion(unsigned* major, unsigned* minor);
static unsigned major_, minor_;
#define CALL nvJitLinkVersion(&major_, &minor_)
#endif
static PyObject* call(PyObject* self, PyObject* args) {
  (void)self; (void)args;
  return PyLong_FromLong(CALL);
}
static PyMethodDef methods[] = {{"call", call, METH_NOARGS, "calls nvJitLink"}, {0, 0, 0, 0}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "ext", 0, -1, methods, 0, 0, 0, 0};
PyMODINIT_FUNC PyInit_ext(void) { return PyModule_Create(&module); }
C
  local env=$1/env
  local sp py ext include
  sp=$(echo "$env"/lib/python3*/site-packages)
  py=$env/bin/python3
  ext=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
  include=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  "$CONDACUDA" repair -p "$env" > /dev/null
  add_conda_nvjitlink_12_0 "$env"
  cc -c -fPIC -I"$include" -o "$1/conda.o" "$1/ext.c"
  cc -c -fPIC -I"$include" -DWHEEL -o "$1/wheel.o" "$1/ext.c"
  local i
  for i in $(seq 1 "$2"); do
    if [ $((i % 2)) = 1 ]; then
      # shellcheck disable=SC2016 # $ORIGIN is for the loader: site-packages/../.. is $PREFIX/lib
      echo "$1/conda.o" '$ORIGIN/../..' "$env/lib" "$sp/ext$i$ext" "ext$i"
    else
      # shellcheck disable=SC2016
      echo "$1/wheel.o" '$ORIGIN/nvidia/nvjitlink/lib' "$sp/nvidia/nvjitlink/lib" "$sp/ext$i$ext" "ext$i"
    fi
  done | xargs -P 2 -L 1 sh -c 'cc -shared -Wl,--enable-new-dtags,-rpath,"$2" -Wl,--defsym,PyInit_$5=PyInit_ext \
    -o "$4" "$1" -L"$3" -l:libnvJitLink.so.12' sh
}

# add_big_env_consumers ENV N: the benchmarks' big env from a CUDA 13 env
# (make_cuda13_env): an older nvJitLink 13 in ENV/lib (conda's place) and N
# extension modules, half reaching that copy through RUNPATH $ORIGIN/../../..,
# half the wheel's.
add_big_env_consumers() {
  local big=$1 n=$2 i rpath sp
  sp=$(echo "$big"/lib/python3*/site-packages)
  make_old_nvjitlink13 "$big/lib"
  printf 'int nvJitLinkVersion(unsigned*, unsigned*);\nint f(void) { unsigned a, b; return nvJitLinkVersion(&a, &b); }\n' > "$big/ext.c"
  for i in $(seq 1 "$n"); do
    mkdir -p "$sp/ext$i"
    # shellcheck disable=SC2016 # $ORIGIN is for the loader
    if [ $((i % 2)) = 1 ]; then rpath='$ORIGIN/../../..'; else rpath='$ORIGIN/../nvidia/cu13/lib'; fi
    cc -shared -fPIC -Wl,--enable-new-dtags,-rpath,"$rpath" -o "$sp/ext$i/_ext.so" "$big/ext.c" -L"$big/lib" -l:libnvJitLink.so.13
  done
}

# hostile_corpus_doctor ENV BASE...: doctor --json on the corpus env ENV into
# $scratch/doctor.json (exit 0 or 1, anything else fails), and the unchanged
# bases (ENV/lib/libcufft_baseI.so, I the index of BASE) load, in doctor and
# in the real dlopen: what both hostile corpus runs check before comparing.
hostile_corpus_doctor() {
  local env=$1 i status=0 verdict
  shift
  "$CONDACUDA" doctor -p "$env" --json > "$scratch/doctor.json" 2> "$scratch/doctor.err" || status=$?
  case "$status" in 0 | 1) ;; *) cat "$scratch/doctor.err" >&2; fail "doctor exited $status" ;; esac
  for ((i = 1; i <= $#; i++)); do
    verdict=$(json "$scratch/doctor.json" "[r['verdict'] for r in j['roots'] if r['file'] == 'lib/libcufft_base$((i - 1)).so'][0]")
    expect_eq "$verdict" loads "doctor's verdict on the unchanged ${!i##*/}"
    "$CONDACUDA_DLOPEN_PROBE" "$env/lib/libcufft_base$((i - 1)).so" > /dev/null || fail "dlopen of the unchanged ${!i##*/}"
  done
}

# hostile_corpus_bases DIR [CUDA_ROOT]: the real libraries e2e.hostile_corpus
# (and the glibc roots' sample, tests/e2e/agreement_root_check.sh) damages,
# one path a line: three compiled into DIR by this machine's gcc (GNU and SysV
# hash, lazy and -z now, a constructor, versioned symbols), the system's
# libz and, when CUDA_ROOT (default /usr/local/cuda) has them, the real
# libcudart 13 and 12 (their real paths).
hostile_corpus_bases() {
  local dir=$1 cuda=${2:-/usr/local/cuda}
  mkdir -p "$dir"
  cat > "$dir/base.c" << 'C'
#include <math.h>
int counter = 1;
double hc_scale(double x) { return cos(x) * counter; }
int hc_add(int a, int b) { return a + b + counter; }
int hc_old(void) { return 1; }
__asm__(".symver hc_old, hc_compat@HC_1");
static int ready;
__attribute__((constructor)) static void hc_init(void) { ready = counter; }
int hc_ready(void) { return ready; }
C
  cat > "$dir/base.map" << 'MAP'
HC_1 { global: hc_old; hc_compat; local: *; };
HC_2 { global: hc_scale; hc_add; hc_ready; counter; } HC_1;
MAP
  _hostile_corpus_base "$dir" plain
  _hostile_corpus_base "$dir" sysv_now -Wl,--hash-style=sysv -Wl,-z,now
  _hostile_corpus_base "$dir" both -Wl,--hash-style=both
  local lib
  for lib in /usr/lib/x86_64-linux-gnu/libz.so.1 "$cuda/lib/libcudart.so.13" "$cuda/lib64/libcudart.so.12"; do
    if [ -e "$lib" ]; then readlink -f "$lib"; fi
  done
}

# _hostile_corpus_base DIR NAME [LDFLAGS...]: DIR/NAME.so from DIR/base.c, its path.
_hostile_corpus_base() {
  gcc -shared -fPIC -O1 -o "$1/$2.so" "$1/base.c" -Wl,--version-script="$1/base.map" -Wl,-soname,libhc.so.1 "${@:3}" -lm
  echo "$1/$2.so"
}

# joined_rows FILE: a text view's table rows one per line again: a table
# wider than 100 columns puts its last columns under each row, 4 further in
# ("      LOCKED  value"); each such line is joined back onto its row, without
# its label, two spaces before it (as the row would read on a wide screen).
joined_rows() {
  awk '
    /^      [^ ]/ && held != "" { line = $0; sub(/^ +/, "", line); sub(/^[A-Z_]+  +/, "", line); held = held "  " line; next }
    { if (held != "") print held; held = $0 }
    END { if (held != "") print held }' "$1"
}
