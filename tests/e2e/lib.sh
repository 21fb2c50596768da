# shellcheck shell=bash
# Common prelude of the end-to-end suites (sourced). Strict mode, a
# line-numbered failure trap, helpers, and skip = exit 125.
set -Eeuo pipefail
trap 'echo "FAIL: ${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND" >&2' ERR

: "${CONDACUDA:?run through ctest (CONDACUDA is the binary under test)}"
: "${CONDACUDA_SOURCE_DIR:?}"
: "${CONDACUDA_BUILD_DIR:?}"

skip() { echo "SKIP: $*" >&2; exit 125; }
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }
# shellcheck source=../tools/old_nvjitlink13.sh
source "$CONDACUDA_SOURCE_DIR/tests/tools/old_nvjitlink13.sh"

# A scratch folder removed on exit (kept with CONDACUDA_KEEP_TEST_DIRS=1).
scratch=$(mktemp -d "${TMPDIR:-/tmp}/condacuda-e2e.XXXXXX")
cleanup() {
  if [ -n "${CONDACUDA_KEEP_TEST_DIRS:-}" ]; then echo "kept $scratch" >&2; else rm -rf "$scratch"; fi
}
trap cleanup EXIT

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

# json FILE EXPR: evaluates a Python expression over the parsed JSON `j`.
json() {
  python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# build_demo_env DIR: the demo env of examples/demo-env (DIR/env, DIR/system-cuda-12.0).
build_demo_env() {
  "$CONDACUDA_SOURCE_DIR/examples/demo-env/build.sh" "$1" > /dev/null
}

# make_old_nvjitlink13 DIR: DIR/libnvJitLink.so.13, an older nvJitLink 13 that
# defines the 12.9 entry points only (tests/tools/old_nvjitlink13.sh).
make_old_nvjitlink13() {
  build_old_nvjitlink13 "$1" "$(mktemp -d "$scratch/old-nvjitlink.XXXXXX")"
}

# make_cuda13_env DIR: a venv-style env whose site-packages holds the real
# CUDA 13 wheel contents of /usr/local/cuda, laid out as their RECORD files
# say (hard links; symlinks when /usr/local is another file system). Each link
# made or removed changes the shared inode's ctime: CTest runs the suites that
# call this one at a time (RESOURCE_LOCK cuda13_inodes, tests/CMakeLists.txt).
# Returns 125 (skip) when /usr/local/cuda/dist-info is absent.
make_cuda13_env() {
  local dest=$1 cuda=${CONDACUDA_CUDA_ROOT:-/usr/local/cuda}
  [ -d "$cuda/dist-info" ] || return 125
  local pyver sp
  pyver=$(python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
  sp=$dest/lib/$pyver/site-packages
  mkdir -p "$sp" "$dest/bin"
  printf 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3\n' > "$dest/pyvenv.cfg"
  local dist rel file src
  for dist in "$cuda"/dist-info/*.dist-info; do
    cp -r "$dist" "$sp/"
    while IFS=, read -r rel _; do
      case "$rel" in nvidia/*/lib/*.so*) ;; *) continue ;; esac
      file=${rel##*/}
      src=$cuda/lib/$file
      [ -e "$src" ] || continue
      mkdir -p "$sp/${rel%/*}"
      ln "$(readlink -f "$src")" "$sp/$rel" 2>/dev/null || ln -s "$(readlink -f "$src")" "$sp/$rel"
    done < "$dist/RECORD"
  done
}
