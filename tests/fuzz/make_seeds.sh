#!/usr/bin/env bash
# Makes the seed corpus of the fuzz targets in DIR (nothing binary is
# committed): DIR/elf holds small libraries compiled here (symbol versions,
# GNU and SysV hash, RUNPATH) and a few system ELF files; DIR/cache holds
# ld.so.cache files in each layout plus this machine's /etc/ld.so.cache.
# Usage: make_seeds.sh DIR
set -euo pipefail
out=${1:?usage: make_seeds.sh DIR}
mkdir -p "$out/elf" "$out/cache" "$out/build/lib"
b=$out/build

cat > "$b/dep.c" <<'C'
int dep_old(void) { return 1; }
int dep_new(void) { return 2; }
__asm__(".symver dep_old, dep_fn@DEP_1.0");
__asm__(".symver dep_new, dep_fn@@DEP_2.0");
int dep_plain(void) { return 3; }
C
printf 'DEP_1.0 { global: dep_plain; dep_fn; local: *; };\nDEP_2.0 { global: dep_fn; } DEP_1.0;\n' > "$b/dep.map"
cat > "$b/demo.c" <<'C'
#include <stdio.h>
extern int dep_fn(void);
extern int weak_missing(void) __attribute__((weak));
__thread int demo_tls;
int demo_counter = 3;
int demo_v1(void) { printf("%d\n", demo_tls); return dep_fn() + (weak_missing ? weak_missing() : 0); }
int demo_v2(void) { return demo_v1() + 1; }
__asm__(".symver demo_v1, demo_fn@DEMO_1.0");
__asm__(".symver demo_v2, demo_fn@@DEMO_2.0");
int demo_plain(void) { return demo_counter; }
C
printf 'DEMO_1.0 { global: demo_plain; demo_counter; demo_fn; demo_tls; local: *; };\nDEMO_2.0 { global: demo_fn; } DEMO_1.0;\n' > "$b/demo.map"
gcc -shared -fPIC -o "$b/lib/libdep.so.1" "$b/dep.c" -Wl,--version-script="$b/dep.map" -Wl,-soname,libdep.so.1
# shellcheck disable=SC2016 # $ORIGIN is for the loader, not the shell
for style in gnu sysv both; do
  gcc -shared -fPIC -o "$out/elf/libdemo-$style.so" "$b/demo.c" -Wl,--version-script="$b/demo.map" \
    -Wl,-soname,libdemo.so.1 "$b/lib/libdep.so.1" -Wl,-rpath,'$ORIGIN/../lib' -Wl,--enable-new-dtags \
    -Wl,--hash-style=$style
done
gcc -shared -fPIC -o "$out/elf/libdemo-rpath-now.so" "$b/demo.c" -Wl,--version-script="$b/demo.map" \
  "$b/lib/libdep.so.1" -Wl,-rpath,/opt/x -Wl,--disable-new-dtags -Wl,-z,now -Wl,-z,nodefaultlib
gcc -shared -fPIC -o "$out/elf/libdemo-stripped.so" "$b/demo.c" -Wl,--version-script="$b/demo.map" \
  "$b/lib/libdep.so.1" -s
printf 'int main(void) { return 0; }\n' > "$b/main.c"
gcc -o "$out/elf/pie" "$b/main.c"
gcc -no-pie -o "$out/elf/nopie" "$b/main.c" 2>/dev/null || true
cp "$b/lib/libdep.so.1" "$out/elf/"
# A library carrying a .nv_fatbin section as nvcc lays it out (one container:
# SASS sm_80, compressed PTX compute_80 with its 80-byte header), added with
# objcopy: the fatbin reader's seed.
python3 - "$b/fatbin.bin" <<'PY'
import struct, sys
def entry(kind, arch, flags, major, minor, header, payload):
    return struct.pack('<HHIQIIHHIIIQQQ', kind, 0x101, header, len(payload), len(payload) if flags & 0x8000 else 0,
                       64 if kind == 1 else 0, minor, major, arch, 0, 0, flags, 0, 3 * len(payload)) + \
        bytes(header - 64) + payload
body = entry(2, 80, 0x11, 1, 8, 64, b'\x7fELF' + bytes(28)) + entry(1, 80, 0x8011, 9, 0, 80, bytes(40))
open(sys.argv[1], 'wb').write(struct.pack('<IHHQ', 0xBA55ED50, 1, 16, len(body)) + body)
PY
objcopy --add-section .nv_fatbin="$b/fatbin.bin" "$b/lib/libdep.so.1" "$out/elf/libdep-fatbin.so"
cp "$b/fatbin.bin" "$out/elf/fatbin-section.bin"
for f in /lib/x86_64-linux-gnu/libz.so.1 /lib/x86_64-linux-gnu/libdl.so.2 /usr/lib/x86_64-linux-gnu/libdl.so.2; do
  if [ -f "$f" ]; then cp -L "$f" "$out/elf/sys-$(basename "$f")"; break; fi
done
[ -f /etc/ld.so.cache ] && cp /etc/ld.so.cache "$out/cache/etc-ld.so.cache"

# ld.so.cache seeds in the three layouts (new, old, compat) with hwcaps
# entries and both extension sections, written here so that nothing runs
# ldconfig (which would also rewrite the system's aux cache).
python3 - "$out/cache" <<'PY'
import struct, sys
out = sys.argv[1]
libs = [("libz.so.1", "/lib/libz.so.1", 0x303, 0), ("libm.so.6", "/lib/libm.so.6", 0x303, 0),
        ("libdep.so.1", "/opt/glibc-hwcaps/x86-64-v3/libdep.so.1", 0x303, (1 << 62) | (3 << 32) | 1),
        ("libdep.so.1", "/opt/libdep.so.1", 0x303, 0), ("libc.so.6", "/lib/libc.so.6", 0x303, 0),
        ("libc.so.6", "/lib32/libc.so.6", 0x3, 0), ("libcudart.so.12", "/usr/local/cuda/lib64/libcudart.so.12", 0x303, 0)]
hwcaps = ["x86-64-v2", "x86-64-v3", "x86-64-v4"]

def new_cache(base):
    # base: where this header starts in the file (string offsets count from it,
    # hwcaps name offsets from the file start).
    strings = bytearray(); offsets = {}
    def s(text):
        if text not in offsets:
            offsets[text] = 48 + 24 * len(libs) + len(strings); strings.extend(text.encode() + b"\0")
        return offsets[text]
    entries = b"".join(struct.pack("<iIIIQ", f, s(k), s(v), 0, hw) for k, v, f, hw in libs)
    names = [s(h) for h in hwcaps]
    body_end = 48 + len(entries) + len(strings)
    pad = (-(base + body_end)) % 4
    gen = b"seed generator\0"
    ext = base + body_end + pad
    sec0 = ext + 8 + 32
    sec1 = sec0 + len(gen) + (-len(gen)) % 4
    directory = struct.pack("<II", 0xEAA42174, 2) + struct.pack("<IIII", 0, 0, sec0, len(gen)) + \
        struct.pack("<IIII", 1, 0, sec1, 4 * len(names))
    hw = b"".join(struct.pack("<I", base + n) for n in names)
    header = b"glibc-ld.so.cache1.1" + struct.pack("<IIB3xI12x", len(libs), len(strings), 2, ext)
    return header + entries + bytes(strings) + b"\0" * pad + directory + gen + b"\0" * ((-len(gen)) % 4) + hw

def old_table():
    strings = bytearray(); entries = b""
    for k, v, f, _ in libs:
        ko = len(strings); strings.extend(k.encode() + b"\0")
        vo = len(strings); strings.extend(v.encode() + b"\0")
        entries += struct.pack("<iII", f, ko, vo)
    return b"ld.so-1.7.0\0" + struct.pack("<I", len(libs)) + entries, bytes(strings)

open(out + "/new.cache", "wb").write(new_cache(0))
table, strings = old_table()
open(out + "/old.cache", "wb").write(table + strings)
start = (len(table) + 7) & ~7
open(out + "/compat.cache", "wb").write(table + b"\0" * (start - len(table)) + new_cache(start))
PY
rm -rf "$b"
