#!/usr/bin/env bash
# CTest unit.fuzz_replay: runs every fuzz target (tests/fuzz/fuzz_*.cpp),
# built under ASan/UBSan, through the replay driver over a seed corpus made
# now (make_seeds.sh: ELF files and ld.so.cache files; gen_hostile.py:
# kernelspecs, fleet documents, framework metadata), plus seeded mutations
# of every seed. A crash, a sanitizer report, a broken promise (the target
# traps) or an input past the driver's hang limit fails the test, and the
# input is kept in $CONDACUDA_FUZZ_ARTIFACTS (default: the build's
# Testing/fuzz-artifacts) to replay alone.
# Usage: replay.sh DIR_OF_REPLAY_BINARIES
#   CONDACUDA_FUZZ_MUTATIONS  mutations per seed (default 300)
#   CONDACUDA_FUZZ_COUNT      inputs per gen_hostile.py surface (default 150)
set -euo pipefail
bin=${1:?usage: replay.sh DIR_OF_REPLAY_BINARIES}
here=$(cd "$(dirname "$0")" && pwd)
seeds=$(mktemp -d "${TMPDIR:-/tmp}/condacuda-fuzz-seeds.XXXXXX")
trap 'rm -rf "$seeds"' EXIT
export CONDACUDA_FUZZ_ARTIFACTS=${CONDACUDA_FUZZ_ARTIFACTS:-$bin/../Testing/fuzz-artifacts}
mkdir -p "$CONDACUDA_FUZZ_ARTIFACTS"
# LeakSanitizer off: the targets' static tables (the recipe book) live to exit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
bash "$here/make_seeds.sh" "$seeds"
count=${CONDACUDA_FUZZ_COUNT:-150}
for surface in kernelspec fleet metadata; do
  python3 "$here/gen_hostile.py" "$surface" "$seeds/$surface" --count "$count" --seed 1
done
seed_count() { find "$1" -type f | wc -l; }
replay() { # TARGET SEED_DIR
  [ "$(seed_count "$2")" -gt 0 ] || { echo "no seeds in $2" >&2; exit 1; }
  echo "== fuzz_$1: $(seed_count "$2") seeds, ${CONDACUDA_FUZZ_MUTATIONS:-300} mutations each"
  "$bin/fuzz_$1_replay" --mutations "${CONDACUDA_FUZZ_MUTATIONS:-300}" --seed 1 "$2" 2> "$seeds/$1.log" ||
    { tail -n 60 "$seeds/$1.log" >&2; echo "fuzz_$1 failed" >&2; exit 1; }
}
replay elf "$seeds/elf"
if [ "$(seed_count "$seeds/cache")" -gt 0 ]; then
  replay ld_so_cache "$seeds/cache"
else
  echo "no ld.so.cache seeds on this machine: the cache target replays nothing" >&2
fi
replay kernelspec "$seeds/kernelspec"
replay fleet_documents "$seeds/fleet"
replay framework_metadata "$seeds/metadata"
