#!/usr/bin/env python3
"""Hostile variants of real libraries, and doctor's verdict on each against the real loader's.

  hostile_corpus.py generate OUT_LIB COUNT SEED BASE...
      writes COUNT variants of the BASE libraries into OUT_LIB, named so that
      condacuda takes each for a CUDA library (libcufft_hNNNN.so): every one is
      a root doctor simulates. Kinds, in turn: truncations (anywhere and at the
      structures' edges), corrupted fields of the ELF header, the program
      headers, the dynamic section and the hash and version tables, random
      bytes behind valid headers, and byte flips in what the loader reads
      (headers, dynamic section, symbol, string, hash and version tables).
      Code, data and relocations are left alone: what a constructor does with
      corrupted code is outside any static model (doctor does not run code).
      Prints one line per variant: its file name and what was done.

  hostile_corpus.py compare DOCTOR_JSON PROBE LOG
      for every variant doctor judged (a root: "loads" or "fails"; a file the
      scan could not use, named in a warning: "damaged"), runs the real dlopen
      probe on it in a fresh process (RTLD_NOW; killed by a signal or an ld.so
      assertion: "crash"; dlopen returned but a destructor killed the process
      at exit: "exit-crash", a load; the fault is in the object's own code (a
      constructor, an IFUNC resolver; the probe reports where it faulted):
      "own-code-crash", code doctor does not run; past 10 s: "hang") and
      tallies the pairs. Writes one
      line per variant to LOG. Exit 1 when doctor says "loads" where the loader
      refuses, crashes or hangs, or a variant has no verdict at all.
"""
import concurrent.futures
import json
import os
import random
import struct
import subprocess
import sys

PT_LOAD, PT_DYNAMIC, PT_NOTE, PT_PHDR, PT_TLS = 1, 2, 4, 6, 7
PT_GNU_STACK, PT_GNU_RELRO = 0x6474E551, 0x6474E552
DYN_TAGS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
            28, 29, 30, 35, 36, 37, 0x6FFFFEF5, 0x6FFFFFF0, 0x6FFFFFFC, 0x6FFFFFFD, 0x6FFFFFFE, 0x6FFFFFFF,
            0x6FFFFFFB, 0x6FFFFFF9]
STRUCTURAL_SECTIONS = {".dynsym", ".dynstr", ".hash", ".gnu.hash", ".gnu.version", ".gnu.version_d",
                       ".gnu.version_r", ".dynamic"}


class Layout:
    """Where the structures the loader reads lie in one library."""

    def __init__(self, data):
        self.data = data
        (self.phoff, self.shoff) = struct.unpack_from("<QQ", data, 32)
        self.phnum, self.shentsize, self.shnum, self.shstrndx = struct.unpack_from("<HHHH", data, 56)
        self.phdrs = [self.phdr_at(self.phoff + 56 * i) for i in range(self.phnum)]
        self.dynamic = next(((p["offset"], p["filesz"]) for p in self.phdrs if p["type"] == PT_DYNAMIC), None)
        self.sections = self.read_sections()

    def phdr_at(self, at):
        t, flags, offset, vaddr, paddr, filesz, memsz, align = struct.unpack_from("<IIQQQQQQ", self.data, at)
        return dict(at=at, type=t, flags=flags, offset=offset, vaddr=vaddr, filesz=filesz, memsz=memsz, align=align)

    def read_sections(self):
        out = {}
        if not self.shoff or self.shentsize != 64 or self.shoff + 64 * self.shnum > len(self.data):
            return out
        shdrs = [struct.unpack_from("<IIQQQQIIQQ", self.data, self.shoff + 64 * i) for i in range(self.shnum)]
        names = shdrs[self.shstrndx][4] if self.shstrndx < len(shdrs) else 0
        for sh in shdrs:
            end = self.data.find(b"\0", names + sh[0])
            name = self.data[names + sh[0]:end].decode("ascii", "replace")
            if sh[1] != 8 and sh[5]:  # not NOBITS
                out[name] = (sh[4], sh[5])
        return out

    def structural_ranges(self):
        ranges = [(0, 64), (self.phoff, 56 * self.phnum)]
        ranges += [r for name, r in self.sections.items() if name in STRUCTURAL_SECTIONS]
        if self.dynamic:
            ranges.append(self.dynamic)
        return [(o, n) for o, n in ranges if n > 0 and o + n <= len(self.data)]

    def dynamic_entries(self):
        if not self.dynamic:
            return []
        off, size = self.dynamic
        return [off + 16 * i for i in range(size // 16)]


def interesting(rng, old, width):
    top = (1 << (8 * width)) - 1
    return rng.choice([0, 1, 2, 7, 8, 0x1000, 0xFFF, old + 1, old - 1 & top, old ^ 0x1000, old * 2 & top,
                       old + 0x1000 & top, top, top >> 1, rng.getrandbits(8 * width),
                       rng.getrandbits(16), len_hint(rng)]) & top


def len_hint(rng):
    return rng.choice([0x40, 0x200, 0x10000, 1 << 32])


def put(data, at, width, value):
    data[at:at + width] = value.to_bytes(width, "little")


def truncate(rng, data, lay):
    edges = [64, lay.phoff + 56 * lay.phnum] + [o for o, _ in lay.structural_ranges()]
    edges += [o + n for o, n in lay.structural_ranges()]
    edges += [p["offset"] + p["filesz"] for p in lay.phdrs if p["type"] == PT_LOAD]
    if rng.random() < 0.5:
        cut = rng.randrange(len(data))
    else:
        cut = max(0, min(len(data) - 1, rng.choice(edges) + rng.randint(-16, 16)))
    return data[:cut], "truncated at %d of %d" % (cut, len(data))


def header_field(rng, data, lay):
    # (offset, width, name) of e_ident bytes and the header's fields.
    fields = [(i, 1, "e_ident[%d]" % i) for i in range(4, 16)] + [
        (16, 2, "e_type"), (18, 2, "e_machine"), (20, 4, "e_version"), (24, 8, "e_entry"), (32, 8, "e_phoff"),
        (40, 8, "e_shoff"), (52, 2, "e_ehsize"), (54, 2, "e_phentsize"), (56, 2, "e_phnum"),
        (58, 2, "e_shentsize"), (60, 2, "e_shnum"), (62, 2, "e_shstrndx")]
    at, width, name = rng.choice(fields)
    old = int.from_bytes(data[at:at + width], "little")
    new = interesting(rng, old, width)
    if name == "e_type":
        new = rng.choice([0, 1, 2, 3, 4, 0xFE00, new])
    put(data, at, width, new)
    return data, "%s %#x -> %#x" % (name, old, new)


def phdr_field(rng, data, lay):
    p = rng.choice(lay.phdrs)
    fields = [(0, 4, "p_type"), (4, 4, "p_flags"), (8, 8, "p_offset"), (16, 8, "p_vaddr"), (32, 8, "p_filesz"),
              (40, 8, "p_memsz"), (48, 8, "p_align")]
    off, width, name = rng.choice(fields)
    at = p["at"] + off
    old = int.from_bytes(data[at:at + width], "little")
    new = interesting(rng, old, width)
    if name == "p_type":
        new = rng.choice([0, PT_LOAD, PT_DYNAMIC, PT_NOTE, PT_PHDR, PT_TLS, PT_GNU_STACK, PT_GNU_RELRO, new])
    put(data, at, width, new)
    return data, "phdr type %#x: %s %#x -> %#x" % (p["type"], name, old, new)


def dynamic_entry(rng, data, lay):
    entries = lay.dynamic_entries()
    if not entries:
        return header_field(rng, data, lay)
    choice = rng.random()
    if choice < 0.15:
        # No DT_NULL: every terminating entry becomes DT_DEBUG (0x15), ignored by the loader.
        for at in entries:
            if struct.unpack_from("<q", data, at)[0] == 0:
                put(data, at, 8, 21)
        return data, "dynamic section without DT_NULL"
    at = rng.choice(entries)
    tag = struct.unpack_from("<q", data, at)[0]
    if choice < 0.45:
        new = rng.choice(DYN_TAGS + [rng.getrandbits(63)])
        put(data, at, 8, new)
        return data, "dynamic tag %#x -> %#x" % (tag, new)
    old = struct.unpack_from("<Q", data, at + 8)[0]
    new = interesting(rng, old, 8)
    put(data, at + 8, 8, new)
    return data, "dynamic tag %#x: value %#x -> %#x" % (tag, old, new)


def table_field(rng, data, lay):
    # The headers of the hash and version tables.
    fields = []
    for name, fs in ((".hash", [(0, 4, "nbucket"), (4, 4, "nchain")]),
                     (".gnu.hash", [(0, 4, "nbuckets"), (4, 4, "symoffset"), (8, 4, "bloom_size"), (12, 4, "shift")]),
                     (".gnu.version_d", [(0, 2, "vd_version"), (2, 2, "vd_flags"), (4, 2, "vd_ndx"), (6, 2, "vd_cnt"),
                                         (12, 4, "vd_aux"), (16, 4, "vd_next")]),
                     (".gnu.version_r", [(0, 2, "vn_version"), (2, 2, "vn_cnt"), (4, 4, "vn_file"), (8, 4, "vn_aux"),
                                         (12, 4, "vn_next")])):
        if name in lay.sections:
            fields += [(lay.sections[name][0] + o, w, name + " " + n) for o, w, n in fs]
    if ".gnu.version" in lay.sections:
        o, n = lay.sections[".gnu.version"]
        i = rng.randrange(max(1, n // 2))
        fields.append((o + 2 * i, 2, ".gnu.version[%d]" % i))
    if ".dynsym" in lay.sections:
        o, n = lay.sections[".dynsym"]
        i = rng.randrange(1, max(2, n // 24))
        fields += [(o + 24 * i + f, w, ".dynsym[%d] %s" % (i, name))
                   for f, w, name in ((0, 4, "st_name"), (4, 1, "st_info"), (5, 1, "st_other"), (6, 2, "st_shndx"))]
    if not fields:
        return dynamic_entry(rng, data, lay)
    at, width, name = rng.choice(fields)
    old = int.from_bytes(data[at:at + width], "little")
    new = interesting(rng, old, width)
    put(data, at, width, new)
    return data, "%s %#x -> %#x" % (name, old, new)


def random_body(rng, data, lay):
    start = lay.phoff + 56 * lay.phnum
    if rng.random() < 0.5 and lay.dynamic:
        off, size = lay.dynamic
        data[off:off + size] = rng.randbytes(size)
        return data, "random dynamic section (%d bytes)" % size
    end = start + rng.randint(1, max(1, len(data) - start))
    data[start:end] = rng.randbytes(end - start)
    return data, "random bytes %d..%d behind valid headers" % (start, end)


def byte_flips(rng, data, lay):
    ranges = lay.structural_ranges()
    done = []
    for _ in range(rng.randint(1, 8)):
        o, n = rng.choice(ranges)
        at = o + rng.randrange(n)
        bit = 1 << rng.randrange(8)
        data[at] ^= bit
        done.append("%#x^%#x" % (at, bit))
    return data, "flipped " + " ".join(done)


KINDS = [truncate, header_field, phdr_field, dynamic_entry, dynamic_entry, table_field, random_body, byte_flips,
         byte_flips]


def generate(out, count, seed, bases):
    rng = random.Random(seed)
    blobs = [(os.path.basename(b), open(b, "rb").read()) for b in bases]
    layouts = [Layout(d) for _, d in blobs]
    os.makedirs(out, exist_ok=True)
    for i in range(count):
        k = rng.randrange(len(blobs))
        base, data = blobs[k]
        kind = KINDS[i % len(KINDS)]
        variant, what = kind(rng, bytearray(data), layouts[k])
        name = "libcufft_h%04d.so" % i
        with open(os.path.join(out, name), "wb") as f:
            f.write(variant)
        print("%s %s: %s" % (name, base, what))


def real_verdict(probe, path):
    try:
        r = subprocess.run([probe, path], capture_output=True, text=True, timeout=10, errors="replace")
    except subprocess.TimeoutExpired:
        return "hang", "no answer in 10 s"
    if r.returncode == 0 and r.stdout.startswith("OK "):
        return "loads", ""
    if r.stdout.startswith("OK "):
        # dlopen returned; the process died after, in a destructor at exit.
        why = (r.stderr.strip().splitlines() or ["status %d" % r.returncode])[-1]
        return "exit-crash", why
    if r.returncode == 1 and r.stdout.startswith("ERR "):
        return "refuses", r.stdout[4:].strip()
    lines = r.stderr.strip().splitlines()
    fault = [l for l in lines if l.startswith("FAULT ")]
    if fault and fault[-1].endswith(" in " + os.path.realpath(path)):
        # The fault is in the object's own code (a constructor, an IFUNC
        # resolver): it ran on what the corruption left; doctor runs no code.
        return "own-code-crash", fault[-1]
    return "crash", lines[-1] if lines else "status %d" % r.returncode


def compare(doctor_json, probe, log):
    report = json.load(open(doctor_json))
    prefix = report["env"]["prefix"]
    judged = {}
    for root in report["roots"]:
        judged[root["file"]] = ("loads" if root["verdict"] == "loads" else "fails", root.get("error") or "")
    for w in report.get("warnings", []):
        head, _, why = w.partition(": ")
        if os.path.basename(head).startswith("libcufft_h"):
            judged.setdefault(head, ("damaged", why))
    files = sorted(f for f in os.listdir(os.path.join(prefix, "lib")) if f.startswith("libcufft_h"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        real = dict(zip(files, pool.map(lambda f: real_verdict(probe, os.path.join(prefix, "lib", f)), files)))
    tally, wrong, unjudged = {}, [], []
    with open(log, "w") as out:
        for f in files:
            doc = judged.get("lib/" + f)
            if doc is None:
                unjudged.append(f)
                continue
            pair = (doc[0], real[f][0])
            tally[pair] = tally.get(pair, 0) + 1
            out.write("%s doctor=%s (%s) loader=%s (%s)\n" % (f, doc[0], doc[1], real[f][0], real[f][1]))
            if doc[0] == "loads" and real[f][0] not in ("loads", "exit-crash", "own-code-crash"):
                wrong.append("%s: doctor says it loads, the loader %s: %s" % (f, real[f][0], real[f][1]))
    agree = sum(n for (d, r), n in tally.items() if (d == "loads") == (r in ("loads", "exit-crash")))
    total = sum(tally.values())
    for (d, r), n in sorted(tally.items()):
        print("# doctor %-7s loader %-7s %5d" % (d, r, n))
    print("# %d variants: doctor and the loader agree on %d (%.1f%%); doctor says 'loads' where the loader does not: %d"
          % (total, agree, 100.0 * agree / max(total, 1), len(wrong)))
    for line in wrong[:40] + ["no verdict from doctor: " + f for f in unjudged[:20]]:
        print(line, file=sys.stderr)
    return 1 if wrong or unjudged else 0


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "generate":
        generate(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:])
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "compare":
        return compare(sys.argv[2], sys.argv[3], sys.argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
