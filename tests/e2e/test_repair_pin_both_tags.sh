#!/usr/bin/env bash
# `repair --pin` on a library with both DT_RUNPATH and DT_RPATH (issue 26):
# ld.so ignores DT_RPATH while a DT_RUNPATH is present and keeps the last
# entry of each tag it reads (glibc elf/get-dynamic-info.h). The demo env's
# cuSPARSE gets RUNPATH '$ORIGIN' first and a dormant RPATH '/dormant' after
# it. Flipping the RUNPATH tag would leave two DT_RPATH entries, the dormant
# one last: ld.so would search /dormant, not $ORIGIN, and the launch without
# activation would fail while repair said "healthy". Expected: the model reads
# the tags as ld.so does, repair refuses that pin with the reason, leaves the
# library as it was, and does not call the not-activated launch verified.
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"
cusparse=$sp/nvidia/cusparse/lib/libcusparse.so.12

# The linker writes one of the two; make both: DT_RPATH '$ORIGIN' and
# DT_AUXILIARY '/dormant' (each string in .dynstr), then retag them in place:
# the first becomes DT_RUNPATH, the second DT_RPATH.
# shellcheck disable=SC2016 # $ORIGIN is for the loader
gcc -O1 -fPIC -shared -Wl,-soname,libcusparse.so.12 -Wl,--disable-new-dtags,-rpath,'$ORIGIN' -Wl,-f,/dormant \
  -o "$cusparse" "$CONDACUDA_SOURCE_DIR/examples/demo-env/src/cusparse.c" \
  -L"$sp/nvidia/nvjitlink/lib" -l:libnvJitLink.so.12
python3 - "$cusparse" << 'PY'
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
for i in range(shnum):
    sh_type, = struct.unpack_from("<I", data, shoff + i * shentsize + 4)
    if sh_type != 6:  # SHT_DYNAMIC
        continue
    offset, size = struct.unpack_from("<QQ", data, shoff + i * shentsize + 24)
    for at in range(offset, offset + size, 16):
        tag, = struct.unpack_from("<q", data, at)
        if tag == 15:            # DT_RPATH '$ORIGIN' -> DT_RUNPATH
            struct.pack_into("<q", data, at, 29)
        elif tag == 0x7ffffffd:  # DT_AUXILIARY '/dormant' -> DT_RPATH
            struct.pack_into("<q", data, at, 15)
open(path, "wb").write(data)
PY
tags=$(readelf -d "$cusparse" | awk '/RUNPATH|RPATH/ { print $2 $NF }' | tr '\n' ' ')
expect_eq "$tags" '(RUNPATH)[$ORIGIN] (RPATH)[/dormant] ' "the fixture's tags, in order"
# The wheel's RECORD hash no longer matters: doctor reads the file.

note "the real loader ignores the dormant RPATH: activated, the import works"
"$CONDACUDA" repair -p "$env" > /dev/null
expect_eq "$(LD_LIBRARY_PATH=$system "$CONDACUDA" run -p "$env" -- "$env/bin/python3" -c "$import")" "sparse 12100" "run"
expect_status 1 env LD_LIBRARY_PATH="$system" "$CONDACUDA" doctor -p "$env" --context not-activated --json > "$scratch/before.json"
LD_LIBRARY_PATH=$system python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/doctor_oracle.py" "$scratch/before.json" \
  --probe "$CONDACUDA_DLOPEN_PROBE" > /dev/null || fail "doctor disagrees with the loader on both tags"

note "repair --pin refuses the pin that would make /dormant win"
original=$(sha256sum < "$cusparse")
status=0
LD_LIBRARY_PATH=$system "$CONDACUDA" repair -p "$env" --pin --json > "$scratch/pin.json" || status=$?
expect_eq "$(sha256sum < "$cusparse")" "$original" "the library is as it was"
expect_eq "$(json "$scratch/pin.json" '[p["path"] for p in j["plan"]["pins"]]')" "[]" "no pin planned"
expect_eq "$(json "$scratch/pin.json" '"after its last DT_RUNPATH" in " ".join(u["why"] for u in j["plan"]["unpinnable"])')" \
  True "the reason names the dormant DT_RPATH"
expect_eq "$(json "$scratch/pin.json" '[s["passes"] for s in j["verification"]["scenarios"] if s["name"].startswith("not activated")][:1]')" \
  "[False]" "the not-activated launch is not called verified"
[ "$status" != 0 ] || fail "repair --pin exited 0 with a launch it could not make work"
note "repair --pin exited $status"

note "the launch without activation still fails as the loader says, and doctor says so"
out=$(LD_LIBRARY_PATH=$system "$env/bin/python3" -c "$import" 2>&1 || true)
case "$out" in *"__nvJitLinkAddData_12_1"*) ;; *) fail "not activated: $out" ;; esac
expect_status 1 env LD_LIBRARY_PATH="$system" "$CONDACUDA" doctor -p "$env" --context not-activated > /dev/null
note "ok"
