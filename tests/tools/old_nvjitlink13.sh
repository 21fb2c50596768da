# shellcheck shell=bash
# build_old_nvjitlink13 DIR WORK: DIR/libnvJitLink.so.13, an older nvJitLink 13
# that defines the 12.9 entry points only (none of the __nvJitLink*_13_0 ones
# that CUDA 13's cuSPARSE needs), to plant on LD_LIBRARY_PATH before an env's
# own; WORK holds its source. Sourced by the e2e suites (tests/e2e/lib.sh) and
# by the device run (tests/gpu/run-on-device.sh), which runs without them.
# Needs ${CC:-cc}; returns its status.
build_old_nvjitlink13() {
  local dir=$1 work=$2
  mkdir -p "$dir" "$work"
  cat > "$work/old.c" <<'C'
int __nvJitLinkCreate_12_9(void** h) { *h = 0; return 0; }
int nvJitLinkVersion(unsigned* major, unsigned* minor) { *major = 13; *minor = 0; return 0; }
C
  printf 'libnvJitLink.so.13 {\n  global: __nvJitLinkCreate_12_9; nvJitLinkVersion;\n  local: *;\n};\n' > "$work/old.map"
  "${CC:-cc}" -shared -fPIC -Wl,-soname,libnvJitLink.so.13 -Wl,--version-script="$work/old.map" \
    -o "$dir/libnvJitLink.so.13" "$work/old.c"
}
