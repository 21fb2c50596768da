#!/usr/bin/env bash
# The probe child must never take the check down with it: a library whose
# constructor crashes, or hangs, is reported with the file being opened;
# the parent kills a hung child at its timeout. (On a machine without a
# driver the outcome is still "no GPU", exit 3, with the crash appended; with
# a driver it is a failure, exit 1.) Each case runs twice: the child started
# through Boost.Process (pidfd_open) and through the fork/waitpid fallback
# that sandboxed kernels without pidfd_open get (CONDACUDA_CHILD_START=fork).
source "$(dirname "$0")/../gpu/lib.sh"

pyver=$(python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
lib=$scratch/env/lib/$pyver/site-packages/nvidia/cu13/lib
mkdir -p "$lib" "$scratch/env/bin"
printf 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3\n' > "$scratch/env/pyvenv.cfg"
cat > "$scratch/bad.c" <<'C'
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void start(void) {
  const char* mode = getenv("BAD_CUDART");
  if (mode && mode[0] == 'c') raise(SIGSEGV);
  if (mode && mode[0] == 'h') pause();
}
int cudaRuntimeGetVersion(int* v) { *v = 13000; return 0; }
C
gcc -shared -fPIC -Wl,-soname,libcudart.so.13 -o "$lib/libcudart.so.13" "$scratch/bad.c"
want=3
has_driver && want=1

# In a sanitizer build ASan would catch the child's SIGSEGV and exit 1: let
# the child die of the signal, as it does in a release build.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
for method in pidfd fork; do
  if [ "$method" = fork ]; then export CONDACUDA_CHILD_START=fork; else unset CONDACUDA_CHILD_START; fi
  note "$method: a library that crashes in its constructor"
  BAD_CUDART=crash check_json "$scratch/crash-$method.json" "$want" -p "$scratch/env" --no-ld-library-path
  case "$(json "$scratch/crash-$method.json" 'j["reason"]')" in
    *"the probe was killed by signal 11 (SIGSEGV) while opening $lib/libcudart.so.13") ;;
    *) fail "reason: $(json "$scratch/crash-$method.json" 'j["reason"]')" ;;
  esac
  expect_eq "$(json "$scratch/crash-$method.json" 'j["probe"]["finished"]')" "False" "finished"

  note "$method: a library that hangs in its constructor"
  start=$(date +%s)
  BAD_CUDART=hang check_json "$scratch/hang-$method.json" "$want" -p "$scratch/env" --no-ld-library-path --timeout 2
  elapsed=$(( $(date +%s) - start ))
  [ "$elapsed" -lt 20 ] || fail "check took ${elapsed}s with a 2 s timeout"
  case "$(json "$scratch/hang-$method.json" 'j["reason"]')" in
    *"the probe was killed after the 2 s timeout while opening $lib/libcudart.so.13") ;;
    *) fail "reason: $(json "$scratch/hang-$method.json" 'j["reason"]')" ;;
  esac
  expect_eq "$(json "$scratch/hang-$method.json" 'j["probe"]["timed_out"]')" "True" "timed_out"

  note "$method: a healthy library: the probe finishes"
  check_json "$scratch/ok-$method.json" "$( has_driver && echo 0 || echo 3 )" -p "$scratch/env" --no-ld-library-path --quick
  expect_eq "$(json "$scratch/ok-$method.json" 'j["probe"]["finished"]')" "True" "finished"
  expect_eq "$(json "$scratch/ok-$method.json" '[l["version"] for l in j["libraries"] if l["component"] == "cudart"][0]')" "13.0" \
    "cudart's version, from cudaRuntimeGetVersion"
  expect_eq "$(json "$scratch/ok-$method.json" 'j["probe"]["started_with"]')" "$method" "how the child was started"
done
