#!/usr/bin/env bash
# The one test command: installs what is missing (apt, when root), configures,
# builds with -j2 and runs every CTest test (unit, e2e, shell, gpu, bench
# smoke). The exit status is the suite's.
#   CONDACUDA_BUILD_DIR  build folder (default: build/ in the checkout)
#   CONDACUDA_SANITIZE=1 build with ASan/UBSan
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CONDACUDA_BUILD_DIR:-$root/build}

"$root/tests/install-deps.sh" test

generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
[ -f "$build/CMakeCache.txt" ] && generator=()
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCONDACUDA_SANITIZE="${CONDACUDA_SANITIZE:-OFF}" > /dev/null
cmake --build "$build" -j2
cd "$build"
exec ctest -j2 --output-on-failure --timeout 900 "$@"
