#!/usr/bin/env bash
# Builds, here, what the device run (tests/gpu/run-on-device.sh) carries: the
# device image has no Boost, yaml-cpp or CLI11 headers and no apt, so nothing
# is built there.
#
#   .device/condacuda                            Release, the portable build
#                                                (static), stripped
#   .device/condacuda-probe                      its GPU child (found beside
#                                                it), needs only the C library
#   .device/old-cuda/lib64/libnvJitLink.so.13    the older nvJitLink the seed
#                                                scenario plants
#
# Then, from a session that has a device:
#   run(command="bash tests/gpu/run-on-device.sh", carry=[".device"], timeout_s=540)
# Environment: CONDACUDA_DEVICE_BUILD (the build folder, default build-device),
# JOBS (default 2).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$root/.device
build=${CONDACUDA_DEVICE_BUILD:-$root/build-device}
# shellcheck source=../tools/old_nvjitlink13.sh
source "$root/tests/tools/old_nvjitlink13.sh"
fail() { echo "prepare-device: $*" >&2; exit 1; }

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCONDACUDA_BUILD_TESTS=OFF \
  -DCONDACUDA_STATIC_RUNTIME=ON > /dev/null
ninja -C "$build" -j"${JOBS:-2}" condacuda condacuda-probe
rm -rf "$dest"
mkdir -p "$dest"
strip -o "$dest/condacuda" "$build/src/condacuda"
strip -o "$dest/condacuda-probe" "$build/src/condacuda-probe"

# The image has glibc and little else: the programs may need nothing more.
needed=$(objdump -p "$dest/condacuda" "$dest/condacuda-probe" | awk '$1 == "NEEDED" { print $2 }' | sort -u | tr '\n' ' ')
for n in $needed; do
  case $n in
  libc.so.6 | libm.so.6 | libdl.so.2 | libpthread.so.0 | librt.so.1 | ld-linux-x86-64.so.2) ;;
  *) fail ".device needs $n, which the device image may lack (is CONDACUDA_STATIC_RUNTIME on?)" ;;
  esac
done
size=$(stat -c %s "$dest/condacuda")
[ "$size" -lt $((32 << 20)) ] || fail ".device/condacuda is $((size >> 20)) MiB: carry allows 64 MiB in all"
"$dest/condacuda" --version > /dev/null || fail ".device/condacuda does not run"
"$dest/condacuda-probe" --self-test > /dev/null || fail ".device/condacuda-probe does not start"

build_old_nvjitlink13 "$dest/old-cuda/lib64" "$build/old-nvjitlink-src" || fail "could not build the planted nvJitLink"
total=$(du -sb "$dest" | cut -f1)
echo "prepare-device: .device holds $((total >> 10)) KiB: condacuda ($(( size >> 10 )) KiB), condacuda-probe (needs: $needed) and old-cuda/lib64/libnvJitLink.so.13"
