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
hostile_corpus_bases "$scratch" > "$scratch/bases.txt"
mapfile -t bases < "$scratch/bases.txt"
[ "${#bases[@]}" -ge 4 ] || fail "hostile_corpus_bases gave ${#bases[@]} bases: ${bases[*]}"
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

hostile_corpus_doctor "$env" "${bases[@]}"
python3 "$corpus" compare "$scratch/doctor.json" "$CONDACUDA_DLOPEN_PROBE" "$scratch/pairs.txt" ||
  fail "doctor says 'loads' where the loader does not (above; the variants are described in $scratch/variants.txt)"
