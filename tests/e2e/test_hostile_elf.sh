#!/usr/bin/env bash
# Hostile files named like CUDA libraries in an env: a truncated ELF, random
# bytes behind an ELF ident and without one, a directory, a FIFO (opening it
# for reading waits for a writer) and a symlink loop. `info` and `doctor` must end, must not
# crash (no exit status >= 128), must keep to their documented exit codes,
# and must name the damaged file where they report on it.
source "$(dirname "$0")/lib.sh"

env=$scratch/env
mkdir -p "$env/conda-meta" "$env/lib"
touch "$env/conda-meta/history"

# A real library to damage: compiled here, no binary is committed.
printf 'int cublasCreate_v2(void) { return 0; }\n' > "$scratch/cublas.c"
gcc -shared -fPIC -o "$scratch/libcublas.so.12" "$scratch/cublas.c" -Wl,-soname,libcublas.so.12
head -c 700 "$scratch/libcublas.so.12" > "$env/lib/libcublas.so.12"
# Seeded noise, the same on every run: after a 64-bit little-endian ELF ident,
# and on its own (no ELF magic at all).
noise() { python3 -c 'import random, sys; random.seed(int(sys.argv[1])); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(8192)))' "$1"; }
{ printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000'; noise 1; } > "$env/lib/libcusparse.so.12"
noise 2 > "$env/lib/libcurand.so.10"
mkdir "$env/lib/libcudart.so.12"
mkfifo "$env/lib/libnvJitLink.so.12"
ln -s libcufft.so.11 "$env/lib/libcufft.so.11"
# Consumers that need them, so doctor simulates loading each one.
printf 'int use(void) { return 0; }\n' > "$scratch/consumer.c"
# shellcheck disable=SC2016 # $ORIGIN is for the loader, not the shell
gcc -shared -fPIC -o "$env/lib/libconsumer.so" "$scratch/consumer.c" -Wl,--no-as-needed \
  -Wl,-rpath,'$ORIGIN' -L"$scratch" -l:libcublas.so.12
for so in libcusparse.so.12 libcudart.so.12 libnvJitLink.so.12 libcufft.so.11 libcurand.so.10; do
  printf 'int f(void) { return 0; }\n' > "$scratch/stub.c"
  gcc -shared -fPIC -o "$scratch/$so" "$scratch/stub.c" -Wl,-soname,$so
done
# shellcheck disable=SC2016
gcc -shared -fPIC -o "$env/lib/libconsumer2.so" "$scratch/consumer.c" -Wl,--no-as-needed -Wl,-rpath,'$ORIGIN' \
  -L"$scratch" -l:libcusparse.so.12 -l:libcudart.so.12 -l:libnvJitLink.so.12 -l:libcufft.so.11
# shellcheck disable=SC2016
gcc -shared -fPIC -o "$env/lib/libconsumer3.so" "$scratch/consumer.c" -Wl,--no-as-needed -Wl,-rpath,'$ORIGIN' \
  -L"$scratch" -l:libcurand.so.10

# run_bounded NAME ARGS...: runs condacuda under a 20 s limit; output in $scratch/NAME.{out,err}, status in $status.
run_bounded() {
  local name=$1
  shift
  status=0
  timeout -k 5 20 "$CONDACUDA" "$@" > "$scratch/$name.out" 2> "$scratch/$name.err" < /dev/null || status=$?
  note "condacuda $* -> exit $status"
  # awk reads both files whole: `sed | head` would die of SIGPIPE under pipefail.
  awk 'NR <= 40 { print "#   " $0 }' "$scratch/$name.out" "$scratch/$name.err"
  if [ "$status" = 124 ] || [ "$status" = 137 ]; then fail "condacuda $* did not finish within 20 s"; fi
  [ "$status" -lt 128 ] || fail "condacuda $* died with status $status (signal $((status - 128)))"
}

run_bounded info info -p "$env" --color never
expect_eq "$status" 0 "info exit status"
run_bounded info-json info -p "$env" --json
expect_eq "$status" 0 "info --json exit status"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$scratch/info-json.out" || fail "info --json is not JSON"

run_bounded doctor doctor -p "$env" --color never
case "$status" in 0 | 1) ;; *) fail "doctor exit status $status is not 0 or 1" ;; esac
run_bounded doctor-json doctor -p "$env" --json
case "$status" in 0 | 1) ;; *) fail "doctor --json exit status $status is not 0 or 1" ;; esac
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$scratch/doctor-json.out" || fail "doctor --json is not JSON"

# The consumers' dependencies resolve to the damaged files: doctor reports an
# error finding for each that names the file, with the reason where the
# loader would give one.
expect_eq "$status" 1 "doctor on an env whose libraries are damaged"
doctor_text=$(cat "$scratch/doctor.out" "$scratch/doctor.err")
has() { grep -qF -- "$2" <<< "$1" || fail "${3:-output} lacks: $2"; }
has "$doctor_text" "lib/libcublas.so.12: condacuda cannot read this file: dynamic section extends past the end of the file" doctor
has "$doctor_text" "lib/libcusparse.so.12: " doctor
has "$doctor_text" "lib/libcudart.so.12: cannot read file data: Is a directory" doctor
has "$doctor_text" "lib/libcurand.so.10: invalid ELF header" doctor
for so in libnvJitLink.so.12 libcufft.so.11; do has "$doctor_text" "$so" doctor; done
# info lists what it could not read as a library, naming the file and why.
info_text=$(cat "$scratch/info.out" "$scratch/info.err")
has "$info_text" "lib/libcublas.so.12: not a usable ELF file: dynamic section extends past the end of the file" info
has "$info_text" "lib/libcusparse.so.12: not a usable ELF file: " info
has "$info_text" "lib/libnvJitLink.so.12: cannot read: not a regular file (a FIFO)" info
has "$info_text" "lib/libcufft.so.11: symbolic link loop" info
note "hostile ELF files: info and doctor end, do not crash, and name the files"
