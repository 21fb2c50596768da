#!/usr/bin/env bash
# `repair --pin` and its undo on a 4 GiB library (the demo's cuSPARSE with a
# hole appended: 4 GiB long, a few KiB on disk) use memory that does not grow
# with the library: peak RSS under 64 MiB (/usr/bin/time -v; a sanitizer
# build: its footprint on the library at its own size + 16 MiB), and the library
# stays sparse: pinned, restored from its kept original, and restored by
# changing the tag back when the kept original is gone. Each result is
# checked byte for byte against the original, with the one tag changed.
source "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed (Debian package time; tests/install-deps.sh)"
demo_env "$scratch/demo"
export LD_LIBRARY_PATH=$system # the older nvJitLink first: cuSPARSE needs its pin
cusparse=$(echo "$env"/lib/python3*/site-packages/nvidia/cusparse/lib/libcusparse.so.12)
# The same pin of the library at its own size (a few KiB): the binary's own
# footprint. The bound is 64 MiB; a build whose footprint is already near it
# (ASan/UBSan: about 140 MiB whatever the library) gets that footprint plus
# 16 MiB, which still fails a copy that grows with the library.
cp -a "$scratch/demo" "$scratch/small"
/usr/bin/time -v -o "$scratch/small.time" env LD_LIBRARY_PATH="$scratch/small/system-cuda-12.0/lib64" \
  "$CONDACUDA" repair -p "$scratch/small/env" --pin > "$scratch/small.out" 2>&1 || { cat "$scratch/small.out" >&2; fail "pin at its own size"; }
footprint=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$scratch/small.time")
bound=65536
[ $((footprint + 16384)) -le "$bound" ] || bound=$((footprint + 16384))
note "pin at the library's own size: peak RSS $footprint KiB; the bound for 4 GiB: $bound KiB"
rm -rf "$scratch/small"
size=$((4 << 30))
truncate -s "$size" "$cusparse"
allocated_kib() { du -k "$1" | cut -f1; }
[ "$(allocated_kib "$cusparse")" -lt 1024 ] || skip "this file system does not keep holes (truncate -s 4G allocated $(allocated_kib "$cusparse") KiB)"
# The pinned bytes: the original with the DT_RUNPATH tag (29) made DT_RPATH (15).
offset=$(python3 - "$cusparse" << 'PY'
import struct, sys
f = open(sys.argv[1], "rb")
head = f.read(64)
phoff, = struct.unpack_from("<Q", head, 32)
phentsize, phnum = struct.unpack_from("<HH", head, 54)
f.seek(phoff)
for i in range(phnum):
    ph = f.read(phentsize)
    ptype, _, off, _, _, filesz = struct.unpack_from("<IIQQQQ", ph, 0)
    if ptype == 2:  # PT_DYNAMIC
        f.seek(off)
        for e in range(filesz // 16):
            tag, _ = struct.unpack("<qQ", f.read(16))
            if tag == 29:
                print(off + 16 * e)
                sys.exit(0)
sys.exit("no DT_RUNPATH")
PY
)
# digest FILE [OFFSET]: the sha256 of FILE, with the 8 bytes at OFFSET read as
# DT_RPATH when given (hashlib: 4 GiB in seconds).
digest() {
  python3 - "$@" << 'PY'
import hashlib, struct, sys
h, f = hashlib.sha256(), open(sys.argv[1], "rb")
def feed(n):
    while n:
        b = f.read(min(n, 1 << 20))
        if not b:
            sys.exit("short file")
        h.update(b)
        n -= len(b)
size = f.seek(0, 2)
f.seek(0)
if len(sys.argv) > 2:
    at = int(sys.argv[2])
    feed(at)
    f.seek(8, 1)
    h.update(struct.pack("<q", 15))
    feed(size - at - 8)
else:
    feed(size)
print(h.hexdigest())
PY
}
original_sha=$(digest "$cusparse")
pinned_sha=$(digest "$cusparse" "$offset")

# measured NAME COMMAND...: runs COMMAND under /usr/bin/time -v; its peak RSS (KiB) in $rss.
measured() {
  local name=$1
  shift
  /usr/bin/time -v -o "$scratch/$name.time" "$@" > "$scratch/$name.out" 2>&1 || { cat "$scratch/$name.out" >&2; fail "$name failed"; }
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$scratch/$name.time")
  note "$name: peak RSS $rss KiB, $(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$scratch/$name.time") wall"
  [ "$rss" -lt "$bound" ] || fail "$name: peak RSS $rss KiB, over $bound KiB for a 4 GiB sparse library"
}

# is_pinned: 4 GiB long, DT_RPATH (15) at the tag's offset, and every other byte the original's.
is_pinned() {
  expect_eq "$(stat -c %s "$cusparse")" "$size" "the pinned library's size"
  expect_eq "$(od -An -t d8 -j "$offset" -N 8 "$cusparse" | tr -d ' ')" 15 "the tag at $offset"
  expect_eq "$(digest "$cusparse")" "$pinned_sha" "the pinned library's sha256"
}

measured pin "$CONDACUDA" repair -p "$env" --pin --json
expect_eq "$(json "$scratch/pin.out" 'j["outcome"]')" repaired outcome
expect_eq "$(json "$scratch/pin.out" '[p["path"].split("site-packages/")[1] for p in j["plan"]["pins"]]')" \
  "['nvidia/cusparse/lib/libcusparse.so.12']" "the pinned files"
is_pinned
[ "$(allocated_kib "$cusparse")" -lt 1024 ] || fail "the pinned library is no longer sparse: $(allocated_kib "$cusparse") KiB on disk"

measured undo "$CONDACUDA" undo -p "$env"
expect_eq "$(digest "$cusparse")" "$original_sha" "the library after undo"
[ "$(allocated_kib "$cusparse")" -lt 1024 ] || fail "the restored library is not sparse"

note "undo without the kept original: the tag changed back in a sparse copy"
measured pin-again "$CONDACUDA" repair -p "$env" --pin
rm "$env"/etc/condacuda/originals/*
measured undo-retag "$CONDACUDA" undo -p "$env"
expect_eq "$(digest "$cusparse")" "$original_sha" "the library after undo by retagging"
[ "$(allocated_kib "$cusparse")" -lt 1024 ] || fail "the library restored by retagging is not sparse: $(allocated_kib "$cusparse") KiB"
