#!/usr/bin/env python3
"""check_manylinux.py [--policy manylinux_2_28] PATH...: what auditwheel checks
for a manylinux tag, on the ELF files of an install tree (python3 stdlib only).

Every ELF file given (folders are walked; other files are skipped) must be
ELF64 little-endian x86-64 and either fully static (no PT_INTERP, no
DT_NEEDED: "no glibc floor") or dynamic with
  - every DT_NEEDED in the manylinux allow-list (glibc's libraries, libgcc_s,
    libstdc++, a few X11/GL/GLib ones; and ld-linux-x86-64.so.2, glibc's
    interpreter, which auditwheel leaves out of its check too),
  - no GLIBC_x.y version newer than the policy's glibc, no GLIBC_PRIVATE,
  - no GLIBCXX_ or CXXABI_ version at all (libstdc++ must be linked in
    statically), no GCC_ version newer than 7.0.0 (libgcc_s, the policy's).
One line per ELF file, naming the undefined symbols behind each violated
version (from .dynsym and .gnu.version), then a summary. Exit 0 when every
file passes, 1 when one fails, is malformed, or no ELF file was found, 2 on
bad usage. The ELF is read through program headers (PT_INTERP, PT_DYNAMIC,
the PT_LOAD map for DT_STRTAB/DT_VERNEED) and section headers for the
symbols; every read is bounds-checked.
"""
import argparse
import os
import re
import struct
import sys

ALLOWED_NEEDED = frozenset("""
libgcc_s.so.1 libstdc++.so.6 libm.so.6 libdl.so.2 librt.so.1 libc.so.6 libnsl.so.1
libutil.so.1 libpthread.so.0 libresolv.so.2 libX11.so.6 libXext.so.6 libXrender.so.1
libICE.so.6 libSM.so.6 libGL.so.1 libgobject-2.0.so.0 libgthread-2.0.so.0
libglib-2.0.so.0 ld-linux-x86-64.so.2
""".split())
MAX_GCC = (7, 0, 0)

PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ = 0, 1, 5, 10
DT_VERNEED, DT_VERNEEDNUM, DT_FLAGS_1, DF_1_PIE = 0x6FFFFFFE, 0x6FFFFFFF, 0x6FFFFFFB, 0x08000000
ET_EXEC = 2
SHT_DYNSYM, SHT_GNU_VERSYM = 11, 0x6FFFFFFF
EM_X86_64 = 62


class Malformed(Exception):
    pass


class Elf:
    def __init__(self, data):
        self.data = data
        if len(data) < 64 or data[4] != 2 or data[5] != 1:
            raise Malformed("not ELF64 little-endian")
        (self.type, self.machine, _, _, self.phoff, self.shoff, _, _, self.phentsize,
         self.phnum, self.shentsize, self.shnum, _) = self.unpack("<HHIQQQIHHHHHH", 16)
        if self.machine != EM_X86_64:
            raise Malformed("not x86-64 (e_machine %d)" % self.machine)
        if self.phnum and self.phentsize < 56 or self.shnum and self.shentsize < 64:
            raise Malformed("short program or section header entries")
        self.phdrs = [self.unpack("<IIQQQQQQ", self.phoff + i * self.phentsize) for i in range(self.phnum)]
        self.shdrs = [self.unpack("<IIQQQQIIQQ", self.shoff + i * self.shentsize) for i in range(self.shnum)]

    def unpack(self, fmt, offset):
        size = struct.calcsize(fmt)
        if offset < 0 or offset + size > len(self.data):
            raise Malformed("read of %d bytes at %#x past the end (%d bytes)" % (size, offset, len(self.data)))
        return struct.unpack_from(fmt, self.data, offset)

    def cstr(self, offset, limit=None):
        end_max = len(self.data) if limit is None else min(limit, len(self.data))
        if offset < 0 or offset >= end_max:
            raise Malformed("string at %#x out of bounds" % offset)
        end = self.data.find(b"\0", offset, end_max)
        if end < 0:
            raise Malformed("unterminated string at %#x" % offset)
        return self.data[offset:end].decode("utf-8", "replace")

    def file_offset(self, vaddr):
        """The file offset of a virtual address, through the PT_LOAD segments."""
        for p_type, _, p_offset, p_vaddr, _, p_filesz, _, _ in self.phdrs:
            if p_type == PT_LOAD and p_vaddr <= vaddr < p_vaddr + p_filesz:
                return p_offset + (vaddr - p_vaddr)
        raise Malformed("address %#x is in no PT_LOAD segment" % vaddr)

    def segment(self, wanted):
        for p_type, _, p_offset, _, _, p_filesz, _, _ in self.phdrs:
            if p_type == wanted:
                if p_offset + p_filesz > len(self.data):
                    raise Malformed("segment %d past the end of the file" % wanted)
                return p_offset, p_filesz
        return None

    def dynamic(self):
        """(DT_NEEDED names, {version index: (file, version name)}) of PT_DYNAMIC;
        sets self.pie (DF_1_PIE: a position-independent executable)."""
        self.pie = False
        seg = self.segment(PT_DYNAMIC)
        if seg is None:
            return [], {}
        offset, size = seg
        entries = []
        for i in range(size // 16):
            tag, val = self.unpack("<qQ", offset + 16 * i)
            if tag == DT_NULL:
                break
            entries.append((tag, val))
        tags = dict(entries)
        self.pie = bool(tags.get(DT_FLAGS_1, 0) & DF_1_PIE)
        needed_offsets = [v for t, v in entries if t == DT_NEEDED]
        if not needed_offsets and DT_VERNEED not in tags:
            return [], {}
        if DT_STRTAB not in tags:
            raise Malformed("PT_DYNAMIC without DT_STRTAB")
        strtab = self.file_offset(tags[DT_STRTAB])
        strend = strtab + tags.get(DT_STRSZ, len(self.data))
        needed = [self.cstr(strtab + v, strend) for v in needed_offsets]
        versions = {}
        if DT_VERNEED in tags:
            at = self.file_offset(tags[DT_VERNEED])
            for _ in range(min(tags.get(DT_VERNEEDNUM, 0), 4096)):
                _, cnt, file_off, aux, nxt = self.unpack("<HHIII", at)
                lib = self.cstr(strtab + file_off, strend)
                a = at + aux
                for _ in range(min(cnt, 4096)):
                    _, _, other, name_off, anext = self.unpack("<IHHII", a)
                    versions[other] = (lib, self.cstr(strtab + name_off, strend))
                    if not anext:
                        break
                    a += anext
                if not nxt:
                    break
                at += nxt
        return needed, versions

    def undefined_by_version(self):
        """{version index: [undefined symbol names]}, from .dynsym and .gnu.version."""
        dynsym = next((s for s in self.shdrs if s[1] == SHT_DYNSYM), None)
        versym = next((s for s in self.shdrs if s[1] == SHT_GNU_VERSYM), None)
        if dynsym is None or versym is None:
            return {}
        _, _, _, _, sym_off, sym_size, link, _, _, entsize = dynsym
        if entsize < 24 or link >= len(self.shdrs):
            raise Malformed("bad .dynsym section header")
        str_off, str_size = self.shdrs[link][4], self.shdrs[link][5]
        result = {}
        for i in range(sym_size // entsize):
            name, _, _, shndx, _, _ = self.unpack("<IBBHQQ", sym_off + i * entsize)
            (ver,) = self.unpack("<H", versym[4] + 2 * i)
            if shndx == 0 and name:
                result.setdefault(ver & 0x7FFF, []).append(self.cstr(str_off + name, str_off + str_size))
        return result


def version_tuple(text):
    return tuple(int(x) for x in text.split("."))


def version_order(name):
    """GLIBC_2.9 before GLIBC_2.10, each family together."""
    return name.split("_")[0], [int(x) for x in re.findall("[0-9]+", name)]


def check(data, policy, glibc_max):
    """(ok, message) for one ELF file."""
    elf = Elf(data)
    interp = elf.segment(PT_INTERP) is not None
    needed, versions = elf.dynamic()
    if not interp and not needed:
        if elf.type == ET_EXEC or elf.pie:
            return True, "static (no PT_INTERP, no DT_NEEDED): no glibc floor"
        return True, "a library that needs none (no DT_NEEDED): no glibc floor"
    problems = []
    for lib in needed:
        if lib not in ALLOWED_NEEDED:
            problems.append("DT_NEEDED %s is outside the manylinux allow-list" % lib)
    undefined = None
    highest = None
    bad = []  # (version name, reason, index)
    for index, (lib, name) in sorted(versions.items()):
        m = re.fullmatch(r"GLIBC_([0-9]+(?:\.[0-9]+)*)", name)
        if m:
            v = version_tuple(m.group(1))
            highest = v if highest is None else max(highest, v)
            if v > glibc_max:
                bad.append((name, "newer than GLIBC_%s" % ".".join(map(str, glibc_max)), index))
        elif name == "GLIBC_PRIVATE":
            bad.append((name, "glibc's private ABI", index))
        elif name.startswith(("GLIBCXX_", "CXXABI_")):
            bad.append((name, "libstdc++ linked dynamically (%s)" % lib, index))
        elif name.startswith("GCC_"):
            m = re.fullmatch(r"GCC_([0-9]+(?:\.[0-9]+)*)", name)
            if not m or version_tuple(m.group(1)) > MAX_GCC:
                bad.append((name, "newer than GCC_7.0.0 (%s)" % lib, index))
    for name, reason, index in sorted(bad, key=lambda b: version_order(b[0])):
        if undefined is None:
            undefined = elf.undefined_by_version()
        symbols = sorted(set(undefined.get(index, [])))
        shown = ", ".join(symbols[:8]) + (", ..." if len(symbols) > 8 else "")
        problems.append("%s: %s: %s" % (name, reason, shown or "no symbol named"))
    floor = "no GLIBC version" if highest is None else "GLIBC_%s at most" % ".".join(map(str, highest))
    if problems:
        return False, "needs %s (claim %s): FAILS: %s" % (floor, policy, "; ".join(problems))
    return True, "needs %s (claim %s): ok" % (floor, policy)


def walk(paths):
    """(path, given): the files given (links followed) and those in the
    folders given (links in them left out: what they point to is checked
    where it lies, or is not part of the tree)."""
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    yield os.path.join(root, name), False
        else:
            yield path, True


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policy", default="manylinux_2_28")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    m = re.fullmatch(r"manylinux_([0-9]+)_([0-9]+)", args.policy)
    if not m:
        parser.error("policy: manylinux_X_Y expected, got %r" % args.policy)
    glibc_max = (int(m.group(1)), int(m.group(2)))
    failed = elf_count = skipped = 0
    for path, given in walk(args.paths):
        shown = os.path.normpath(path)
        if not os.path.isfile(path) or (not given and os.path.islink(path)):
            if given:
                print("%s: no such file" % shown)
                failed += 1
            else:
                skipped += 1
            continue
        with open(path, "rb") as f:
            data = f.read()
        if data[:4] != b"\x7fELF":
            skipped += 1
            continue
        elf_count += 1
        try:
            ok, message = check(data, args.policy, glibc_max)
        except Malformed as e:
            ok, message = False, "malformed ELF: %s" % e
        print("%s: %s" % (shown, message))
        failed += not ok
    if elf_count == 0:
        print("no ELF file found in: %s" % " ".join(args.paths))
        return 1
    print("%s: %d ELF file(s), %d failed (%d other file(s) skipped)" % (args.policy, elf_count, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
