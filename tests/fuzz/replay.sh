#!/usr/bin/env bash
# CTest unit.fuzz_replay: runs the fuzz targets (tests/fuzz/fuzz_*.cpp)
# through the replay driver over a seed corpus made now, plus seeded
# mutations of every seed. Usage: replay.sh FUZZ_ELF_REPLAY FUZZ_CACHE_REPLAY
set -euo pipefail
elf_replay=${1:?} cache_replay=${2:?}
here=$(cd "$(dirname "$0")" && pwd)
seeds=$(mktemp -d "${TMPDIR:-/tmp}/condacuda-fuzz-seeds.XXXXXX")
trap 'rm -rf "$seeds"' EXIT
bash "$here/make_seeds.sh" "$seeds"
seed_count() { find "$1" -type f | wc -l; }
[ "$(seed_count "$seeds/elf")" -gt 0 ] || { echo "no ELF seeds" >&2; exit 1; }
"$elf_replay" --mutations "${CONDACUDA_FUZZ_MUTATIONS:-300}" --seed 1 "$seeds/elf"
if [ "$(seed_count "$seeds/cache")" -gt 0 ]; then
  "$cache_replay" --mutations "${CONDACUDA_FUZZ_MUTATIONS:-300}" --seed 1 "$seeds/cache"
else
  echo "no ld.so.cache seeds on this machine: the cache target replays nothing" >&2
fi
