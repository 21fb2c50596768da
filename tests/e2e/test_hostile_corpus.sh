#!/usr/bin/env bash
# doctor against the real loader over 2,000 hostile variants of real
# libraries (tests/tools/hostile_corpus.py): truncations, corrupted fields of
# the headers, every field of every program header of every base in turn
# (with values aimed at what ld.so checks: page-aligned offsets past the end
# of the file and at the kernel's mmap limit, powers of two for p_align), the
# dynamic array's bounds (p_filesz, p_memsz, p_vaddr, DT_NULL moved, entries
# past p_filesz), the dynamic section and hash and version tables,
# random bytes behind valid headers, byte flips in what the loader reads. The
# bases: three libraries compiled here (GNU and SysV hash, lazy and -z now,
# a constructor), the system's libz and, when /usr/local/cuda has it, the real
# libcudart. doctor must never say "loads" where dlopen refuses, crashes or
# hangs; the agreement figure is printed (README, "Reliability").
source "$(dirname "$0")/lib.sh"

corpus=$CONDACUDA_SOURCE_DIR/tests/tools/hostile_corpus.py
cat > "$scratch/base.c" << 'C'
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
cat > "$scratch/base.map" << 'MAP'
HC_1 { global: hc_old; hc_compat; local: *; };
HC_2 { global: hc_scale; hc_add; hc_ready; counter; } HC_1;
MAP
build() { gcc -shared -fPIC -O1 -o "$scratch/$1" "$scratch/base.c" -Wl,--version-script="$scratch/base.map" -Wl,-soname,libhc.so.1 "${@:2}" -lm; }
build plain.so
build sysv_now.so -Wl,--hash-style=sysv -Wl,-z,now
build both.so -Wl,--hash-style=both
bases=("$scratch/plain.so" "$scratch/sysv_now.so" "$scratch/both.so")
for lib in /usr/lib/x86_64-linux-gnu/libz.so.1 /usr/local/cuda/lib/libcudart.so.13 /usr/local/cuda/lib64/libcudart.so.12; do
  if [ -e "$lib" ]; then bases+=("$(readlink -f "$lib")"); fi
done
note "bases: ${bases[*]##*/}"

env=$scratch/env
mkdir -p "$env/conda-meta" "$env/lib"
touch "$env/conda-meta/history"
# The bases themselves first: both sides must load every one.
for i in "${!bases[@]}"; do cp "${bases[$i]}" "$env/lib/libcufft_base$i.so"; done
python3 "$corpus" generate "$env/lib" 2000 1 "${bases[@]}" > "$scratch/variants.txt" 2> "$scratch/sweep.txt"
cat "$scratch/sweep.txt"
swept=$(sed -n 's/^# program-header fields swept: \([0-9]*\) of \([0-9]*\).*/\1 \2/p' "$scratch/sweep.txt")
if [ -z "$swept" ] || [ "${swept% *}" != "${swept#* }" ]; then
  fail "not every program-header field of every base was changed: $swept"
fi

status=0
"$CONDACUDA" doctor -p "$env" --json > "$scratch/doctor.json" 2> "$scratch/doctor.err" || status=$?
case "$status" in 0 | 1) ;; *) cat "$scratch/doctor.err" >&2; fail "doctor exited $status" ;; esac
for i in "${!bases[@]}"; do
  verdict=$(json "$scratch/doctor.json" "[r['verdict'] for r in j['roots'] if r['file'] == 'lib/libcufft_base$i.so'][0]")
  expect_eq "$verdict" loads "doctor's verdict on the unchanged ${bases[$i]##*/}"
  "$CONDACUDA_DLOPEN_PROBE" "$env/lib/libcufft_base$i.so" > /dev/null || fail "dlopen of the unchanged ${bases[$i]##*/}"
done
python3 "$corpus" compare "$scratch/doctor.json" "$CONDACUDA_DLOPEN_PROBE" "$scratch/pairs.txt" ||
  fail "doctor says 'loads' where the loader does not (above; the variants are described in $scratch/variants.txt)"
