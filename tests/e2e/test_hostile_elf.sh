#!/usr/bin/env bash
# Hostile files named like CUDA libraries in an env: a truncated ELF, random
# bytes behind an ELF ident and without one, a directory, a FIFO (opening it
# for reading waits for a writer) and a symlink loop; then damaged CUDA fat
# binaries (docs/fatbin.md). `info` and `doctor` must end, must not
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
# The text view breaks long lines at spaces (100 columns): compare with the line breaks and indents joined.
doctor_text=$(flat <(cat "$scratch/doctor.out" "$scratch/doctor.err"))
has() { grep -qF -- "$2" <<< "$1" || fail "${3:-output} lacks: $2"; }
has "$doctor_text" "lib/libcublas.so.12: condacuda cannot read this file: dynamic section extends past the end of the file" doctor
has "$doctor_text" "lib/libcusparse.so.12: " doctor
has "$doctor_text" "lib/libcudart.so.12: cannot read file data: Is a directory" doctor
has "$doctor_text" "lib/libcurand.so.10: invalid ELF header" doctor
for so in libnvJitLink.so.12 libcufft.so.11; do has "$doctor_text" "$so" doctor; done
layout_ok doctor "$scratch/doctor.out"
layout_ok info "$scratch/info.out"
# info lists what it could not read as a library, naming the file and why (its lines joined as doctor's).
info_text=$(flat <(cat "$scratch/info.out" "$scratch/info.err"))
has "$info_text" "lib/libcublas.so.12: not a usable ELF file: dynamic section extends past the end of the file" info
has "$info_text" "lib/libcusparse.so.12: not a usable ELF file: " info
has "$info_text" "lib/libnvJitLink.so.12: cannot read: not a regular file (a FIFO)" info
has "$info_text" "lib/libcufft.so.11: symbolic link loop" info
note "damaged fatbins: info and doctor --gpu end, do not crash, and name the damaged file"
fenv=$scratch/fatbin-env
mkdir -p "$fenv/conda-meta" "$fenv/lib"
touch "$fenv/conda-meta/history"
# Each library a real ELF file with a crafted .nv_fatbin section (objcopy),
# laid out as docs/fatbin.md describes: a container claiming 1 GiB; an entry
# claiming a header and payload past its container; a truncated last entry;
# 200000 empty 64-byte entries (a long walk with nothing in it, then a real
# sm_90 entry); and a section header whose offset lies past the end of the file.
python3 - "$scratch" << 'PY'
import struct, sys
d = sys.argv[1]
def entry(kind=2, header=64, payload=0, arch=80, major=1, minor=8, flags=0x11, written=None):
    head = struct.pack("<HHIQIIHHIIIQQQ", kind, 0x101, header, payload, 0, 64 if kind == 1 else 0, minor, major, arch, 0, 0, flags, 0, 0)
    return head + bytes(max(0, header - 64)) + b"\x5a" * (payload if written is None else written)
def container(body, claimed=None):
    data = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body) if claimed is None else claimed) + body
    return data + bytes(-len(data) % 8)
sections = {
    "huge": container(entry(payload=16), claimed=1 << 30),
    "past": container(entry(header=64, payload=1 << 40, written=16)),
    "truncated": container(entry(arch=80, payload=8) + entry(arch=86, payload=8))[:-20],
    "walk": container(entry(kind=2, arch=0, payload=0) * 200000 + entry(arch=90, payload=8)),
}
for name, data in sections.items():
    open("%s/fatbin-%s.bin" % (d, name), "wb").write(data)
PY
printf 'int f(void) { return 0; }\n' > "$scratch/f.c"
fatlib() { # SONAME SECTION-FILE: lib/SONAME with that .nv_fatbin
  gcc -shared -fPIC -Wl,-soname,"$1" -o "$scratch/$1.plain" "$scratch/f.c"
  objcopy --add-section .nv_fatbin="$2" "$scratch/$1.plain" "$fenv/lib/$1"
}
fatlib libcusolver.so.11 "$scratch/fatbin-huge.bin"
fatlib libcurand.so.10 "$scratch/fatbin-past.bin"
fatlib libcublasLt.so.12 "$scratch/fatbin-truncated.bin"
fatlib libnvrtc.so.12 "$scratch/fatbin-walk.bin"
fatlib libnccl.so.2 "$scratch/fatbin-walk.bin"
# libnccl.so.2: its section headers' offset moved past the end of the file.
python3 - "$fenv/lib/libnccl.so.2" << 'PY'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
struct.pack_into("<Q", b, 0x28, len(b) + 4096)
open(p, "wb").write(b)
PY
# shellcheck disable=SC2016 # $ORIGIN is for the loader
gcc -shared -fPIC -o "$fenv/lib/libuser.so" "$scratch/consumer.c" -Wl,--no-as-needed -Wl,-rpath,'$ORIGIN' \
  -L"$fenv/lib" -l:libcusolver.so.11 -l:libcurand.so.10 -l:libcublasLt.so.12 -l:libnvrtc.so.12
run_bounded fatbin-info info -p "$fenv" --json
expect_eq "$status" 0 "info on damaged fatbins"
expect_eq "$(json "$scratch/fatbin-info.out" "sorted(c['soname'] for c in j['components'] if c['gpu_code'] and c['gpu_code']['problems'])")" \
  "['libcublasLt.so.12', 'libcurand.so.10', 'libcusolver.so.11']" "the damaged fatbins info names"
expect_eq "$(json "$scratch/fatbin-info.out" "[c['gpu_code']['sass'] for c in j['components'] if c['soname'] == 'libnvrtc.so.12']")" \
  "[['sm_90']]" "the sm_90 entry after 200000 empty ones"
expect_eq "$(json "$scratch/fatbin-info.out" "[c['gpu_code'] for c in j['components'] if c['soname'] == 'libcublasLt.so.12'][0]['sass']")" \
  "[]" "a container that claims more than its section holds is not read at all"
run_bounded fatbin-doctor doctor -p "$fenv" --gpu H100 --gpu V100 --driver 580.65.06 --json
case "$status" in 0 | 1) ;; *) fail "doctor --gpu exit status $status is not 0 or 1" ;; esac
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$scratch/fatbin-doctor.out" || fail "doctor --gpu --json is not JSON"
for so in libcusolver.so.11 libcurand.so.10 libcublasLt.so.12; do
  grep -q "lib/$so: damaged fatbin (" "$scratch/fatbin-doctor.err" || fail "doctor --gpu does not name the damaged fatbin of $so"
done

note "hostile ELF files: info and doctor end, do not crash, and name the files"
