#!/usr/bin/env bash
# The probe child must never take the check down with it: a library whose
# constructor crashes, or hangs, is reported with the file being opened;
# the parent kills a hung child at its timeout. (On a machine without a
# driver the outcome is still "no GPU", exit 3, with the crash appended; with
# a driver it is a failure, exit 1.)
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

note "a library that crashes in its constructor"
# In a sanitizer build ASan would catch the child's SIGSEGV and exit 1: let
# the child die of the signal, as it does in a release build.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
BAD_CUDART=crash check_json "$scratch/crash.json" "$want" -p "$scratch/env" --no-ld-library-path
case "$(json "$scratch/crash.json" 'j["reason"]')" in
  *"the probe was killed by signal 11 (SIGSEGV) while opening $lib/libcudart.so.13") ;;
  *) fail "reason: $(json "$scratch/crash.json" 'j["reason"]')" ;;
esac
expect_eq "$(json "$scratch/crash.json" 'j["probe"]["finished"]')" "False" "finished"

note "a library that hangs in its constructor"
start=$(date +%s)
BAD_CUDART=hang check_json "$scratch/hang.json" "$want" -p "$scratch/env" --no-ld-library-path --timeout 2
elapsed=$(( $(date +%s) - start ))
[ "$elapsed" -lt 20 ] || fail "check took ${elapsed}s with a 2 s timeout"
case "$(json "$scratch/hang.json" 'j["reason"]')" in
  *"the probe was killed after the 2 s timeout while opening $lib/libcudart.so.13") ;;
  *) fail "reason: $(json "$scratch/hang.json" 'j["reason"]')" ;;
esac
expect_eq "$(json "$scratch/hang.json" 'j["probe"]["timed_out"]')" "True" "timed_out"

note "a healthy library: the probe finishes"
check_json "$scratch/ok.json" "$( has_driver && echo 0 || echo 3 )" -p "$scratch/env" --no-ld-library-path --quick
expect_eq "$(json "$scratch/ok.json" 'j["probe"]["finished"]')" "True" "finished"
expect_eq "$(json "$scratch/ok.json" '[l["version"] for l in j["libraries"] if l["component"] == "cudart"][0]')" "13.0" \
  "cudart's version, from cudaRuntimeGetVersion"
