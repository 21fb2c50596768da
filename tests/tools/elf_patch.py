#!/usr/bin/env python3
"""elf_patch.py FILE WHAT VALUE: one field of a 64-bit little-endian ELF file
changed in place (same inode, same size), for tests that need a library the
linker would not make:

    dynamic TAG=VALUE   the d_val of the first dynamic entry with tag TAG
    load-align VALUE    the p_align of the first PT_LOAD

Exits non-zero, naming what it did not find, when the file has no such entry.
"""
import struct
import sys


def program_headers(data):
    phoff, = struct.unpack_from("<Q", data, 32)
    phnum, = struct.unpack_from("<H", data, 56)
    for i in range(phnum):
        p = phoff + 56 * i
        yield p, struct.unpack_from("<I", data, p)[0]


def patch(data, what, value):
    if what == "load-align":
        for p, kind in program_headers(data):
            if kind == 1:  # PT_LOAD
                struct.pack_into("<Q", data, p + 48, int(value, 0))
                return
        sys.exit("no PT_LOAD")
    if what == "dynamic":
        tag, val = (int(x, 0) for x in value.split("="))
        for p, kind in program_headers(data):
            if kind != 2:  # PT_DYNAMIC
                continue
            off, = struct.unpack_from("<Q", data, p + 8)
            while True:
                t, _ = struct.unpack_from("<qQ", data, off)
                if t == 0:
                    sys.exit("no dynamic entry with tag %d" % tag)
                if t == tag:
                    struct.pack_into("<Q", data, off + 8, val)
                    return
                off += 16
        sys.exit("no PT_DYNAMIC")
    sys.exit("unknown field: " + what)


def main(path, what, value):
    data = bytearray(open(path, "rb").read())
    patch(data, what, value)
    with open(path, "r+b") as f:  # in place: same inode
        f.write(data)


if __name__ == "__main__":
    main(*sys.argv[1:4])
