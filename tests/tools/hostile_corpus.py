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

  hostile_corpus.py compare DOCTOR_JSON PROBE LOG [GLIBC_MINOR]   (the older releases' KNOWN_GAPS counted apart)
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
        return dict(at=at, type=t, flags=flags, offset=offset, vaddr=vaddr, paddr=paddr, filesz=filesz, memsz=memsz,
                    align=align)

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

    def live_entries(self):
        """File offsets of the dynamic entries before DT_NULL."""
        if not self.dynamic:
            return []
        off, size = self.dynamic
        out = []
        for i in range(size // 16):
            if struct.unpack_from("<q", self.data, off + 16 * i)[0] == 0:
                break
            out.append(off + 16 * i)
        return out


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


PHDR_FIELDS = [(0, 4, "p_type"), (4, 4, "p_flags"), (8, 8, "p_offset"), (16, 8, "p_vaddr"), (24, 8, "p_paddr"),
               (32, 8, "p_filesz"), (40, 8, "p_memsz"), (48, 8, "p_align")]
PAGE = 0x1000
TOP = (1 << 64) - 1


def phdr_value(rng, name, p, old, data):
    """A new value for one program-header field: the generic interesting
    values, or ones aimed at what ld.so checks of that field."""
    if rng.random() < 0.3:
        return interesting(rng, old, 4 if name in ("p_type", "p_flags") else 8)
    if name == "p_type":
        return rng.choice([0, PT_LOAD, PT_DYNAMIC, PT_NOTE, PT_PHDR, PT_TLS, PT_GNU_STACK, PT_GNU_RELRO, 0x6474E553,
                           0x70000000, rng.getrandbits(32)])
    if name == "p_flags":
        return rng.choice([0, 1, 2, 3, 4, 5, 6, 7, old ^ 2, old ^ 1, old | 0xF0000000, rng.getrandbits(32)])
    if name in ("p_offset", "p_vaddr"):
        # Page multiples keep p_vaddr - p_offset page-aligned (the load command
        # passes that check and reaches mmap): far past the end of the file,
        # at the kernel's MAX_LFS_FILESIZE limit, wrapping; or not aligned.
        pages = rng.choice([1, 2, 16, 1 << 20, 1 << 28, 1 << 34, 1 << 38, (1 << 51) - 1, 1 << 51, (1 << 52) - 1])
        return rng.choice([old + pages * PAGE, old - pages * PAGE, (len(data) + PAGE - 1) // PAGE * PAGE + (old & 0xFFF),
                           0x7FFFFFFFFFFFF000 + (old & 0xFFF), 0x7FFFFFFFFFFF0000 + (old & 0xFFF),
                           0xFFFFFFFFFFFFF000 + (old & 0xFFF), old & 0xFFF, old + rng.randint(1, 15),
                           old - rng.randint(1, 15)]) & TOP
    if name == "p_paddr":  # never read by ld.so
        return rng.getrandbits(64)
    if name in ("p_filesz", "p_memsz"):
        other = p["memsz"] if name == "p_filesz" else p["filesz"]
        return rng.choice([0, 1, old | 1, old + rng.randint(1, 64), max(0, old - rng.randint(1, 64)),
                           old // 2, other, other + 1, max(0, other - 1), old + PAGE, old + (1 << 32),
                           1 << 44, 0x500000000000, 0x600000000000, 1 << 47, 1 << 62, TOP, TOP - old,
                           len(data) - p["offset"] & TOP]) & TOP
    # p_align: powers of two up to 2^63 (ld.so reserves maplength + the
    # largest), zero, and others (ignored).
    return rng.choice([0, 1, 2, 8, PAGE, 0x10000, 0x200000, 1 << 30, 1 << 40, 1 << 44, 1 << 45, 1 << 46, 1 << 47,
                       1 << 62, 1 << 63, old + 1, 3 * PAGE, TOP])


def phdr_field(rng, data, lay, p=None, field=None):
    p = p or rng.choice(lay.phdrs)
    off, width, name = field or rng.choice(PHDR_FIELDS)
    at = p["at"] + off
    old = int.from_bytes(data[at:at + width], "little")
    new = phdr_value(rng, name, p, old, data) & ((1 << (8 * width)) - 1)
    put(data, at, width, new)
    return data, "phdr %d (type %#x): %s %#x -> %#x" % (lay.phdrs.index(p), p["type"], name, old, new)


class Sweep:
    """Every field of every program header of every base, in turn."""

    def __init__(self, layouts):
        self.triples = [(k, p, f) for k, lay in enumerate(layouts) for p in lay.phdrs for f in PHDR_FIELDS]
        self.next = 0
        self.covered = set()

    def take(self):
        t = self.triples[self.next % len(self.triples)]
        self.next += 1
        self.covered.add((t[0], t[1]["at"], t[2][2]))
        return t


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


def dynamic_bounds(rng, data, lay):
    """The dynamic array's bounds: ld.so reads it at PT_DYNAMIC's p_vaddr in
    the mapped image up to DT_NULL (elf/get-dynamic-info.h, elf/dl-deps.c);
    p_filesz only tells an empty one apart, p_offset is never read."""
    dyn = next((p for p in lay.phdrs if p["type"] == PT_DYNAMIC), None)
    entries = lay.live_entries()
    if dyn is None or not entries:
        return phdr_field(rng, data, lay)
    used = 16 * (len(entries) + 1)  # up to and with DT_NULL
    choice = rng.randrange(7)
    if choice == 0:
        new = rng.choice([0, 1, 7, 8, 15, 16, 17, used - 16, used - 1, used + 1, used + 7, dyn["filesz"] | 1,
                          16 * rng.randrange(1, len(entries) + 1) + rng.choice([0, 1, 7, 9, 15]), 1 << 32, TOP])
        put(data, dyn["at"] + 32, 8, new)
        return data, "PT_DYNAMIC p_filesz %#x -> %#x" % (dyn["filesz"], new)
    if choice == 1:
        new = rng.choice([0, 1, 8, 16, used - 16, used + 1, dyn["memsz"] * 4, 1 << 40, TOP])
        put(data, dyn["at"] + 40, 8, new)
        return data, "PT_DYNAMIC p_memsz %#x -> %#x" % (dyn["memsz"], new)
    if choice == 2:
        # A DT_NEEDED (or another entry) moved past p_filesz, its name pointed
        # at another string so that no search finds it: only a reader that
        # goes on to DT_NULL sees the dependency that fails.
        needed = [at for at in entries if struct.unpack_from("<q", data, at)[0] == 1]
        src = rng.choice(needed) if needed and rng.random() < 0.8 else rng.choice(entries)
        last = entries[-1]
        a, b = bytes(data[src:src + 16]), bytes(data[last:last + 16])
        data[src:src + 16], data[last:last + 16] = b, a
        what = "entry %d moved last" % entries.index(src)
        if struct.unpack_from("<q", data, last)[0] == 1 and rng.random() < 0.7:
            val = struct.unpack_from("<Q", data, last + 8)[0]
            put(data, last + 8, 8, val + rng.choice([1, 3, 4, 8]))
            what += ", its name moved"
        cut = last - dyn["offset"] + rng.choice([0, 1, 7, 8, 15])
        put(data, dyn["at"] + 32, 8, cut)
        return data, "dynamic array: %s, p_filesz -> %#x" % (what, cut)
    if choice == 3:
        # DT_NULL moved earlier: the entries after it are unseen by both.
        k = rng.randrange(len(entries))
        put(data, entries[k], 8, 0)
        return data, "DT_NULL at entry %d of %d" % (k, len(entries))
    if choice == 4:
        # p_vaddr moved by whole or half entries, into the next data, or into
        # the bss (zero-fill reads as DT_NULL).
        rw = [p for p in lay.phdrs if p["type"] == PT_LOAD and p["vaddr"] <= dyn["vaddr"] < p["vaddr"] + p["memsz"]]
        targets = [dyn["vaddr"] + 16 * rng.randint(-4, 4), dyn["vaddr"] + 8, dyn["vaddr"] + used,
                   dyn["vaddr"] - 16 * len(entries), 0, 16, 0x10000000]
        if rw:
            targets += [rw[0]["vaddr"] + rw[0]["filesz"], rw[0]["vaddr"] + rw[0]["memsz"] - 8,
                        (rw[0]["vaddr"] + rw[0]["filesz"] + PAGE) & ~(PAGE - 1), rw[0]["vaddr"] + rw[0]["memsz"]]
        new = rng.choice(targets) & TOP
        put(data, dyn["at"] + 16, 8, new)
        return data, "PT_DYNAMIC p_vaddr %#x -> %#x" % (dyn["vaddr"], new)
    if choice == 5:
        new = rng.choice([0, len(data), len(data) + PAGE, TOP - 7, dyn["offset"] + 16, rng.getrandbits(64)])
        put(data, dyn["at"] + 8, 8, new)
        return data, "PT_DYNAMIC p_offset %#x -> %#x" % (dyn["offset"], new)
    # The segment holding the array ends inside it, or just after DT_NULL.
    rw = [p for p in lay.phdrs if p["type"] == PT_LOAD and p["vaddr"] <= dyn["vaddr"] < p["vaddr"] + p["memsz"]]
    if not rw:
        return phdr_field(rng, data, lay)
    seg = rw[0]
    end = dyn["vaddr"] + rng.choice([0, 8, 16 * rng.randrange(1, len(entries) + 1), used - 8, used])
    new = end - seg["vaddr"]
    field = rng.choice([32, 40, 32])
    put(data, seg["at"] + field, 8, new)
    if field == 32 and rng.random() < 0.5:
        put(data, seg["at"] + 40, 8, max(new, seg["memsz"]))
    return data, "the load segment of the dynamic array: %s -> %#x" % ("p_filesz" if field == 32 else "p_memsz", new)


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


KINDS = [truncate, header_field, phdr_field, "sweep", dynamic_entry, dynamic_bounds, "sweep", dynamic_entry,
         table_field, random_body, dynamic_bounds, byte_flips, "sweep", byte_flips]


def generate(out, count, seed, bases):
    rng = random.Random(seed)
    blobs = [(os.path.basename(b), open(b, "rb").read()) for b in bases]
    layouts = [Layout(d) for _, d in blobs]
    os.makedirs(out, exist_ok=True)
    sweep = Sweep(layouts)
    for i in range(count):
        k = rng.randrange(len(blobs))
        kind = KINDS[i % len(KINDS)]
        if kind == "sweep":
            k, p, field = sweep.take()
            variant, what = phdr_field(rng, bytearray(blobs[k][1]), layouts[k], p, field)
        else:
            variant, what = kind(rng, bytearray(blobs[k][1]), layouts[k])
        base = blobs[k][0]
        name = "libcufft_h%04d.so" % i
        with open(os.path.join(out, name), "wb") as f:
            f.write(variant)
        print("%s %s: %s" % (name, base, what))
    print("# program-header fields swept: %d of %d (every field of every program header of every base)"
          % (len(sweep.covered), len(sweep.triples)), file=sys.stderr)


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


# Rules of older releases the model does not have yet (docs/loader-model.md,
# "Per glibc version"): (newest glibc minor it applies to, the loader's words,
# why). A variant doctor calls loadable that such a rule refuses is a known
# gap: counted and printed, not a failure.
KNOWN_GAPS = []  # none left: (newest glibc minor, the loader's words, why)


def known_gap(glibc_minor, loader_text):
    for newest, words, why in KNOWN_GAPS:
        if glibc_minor is not None and glibc_minor <= newest and words in loader_text:
            return why
    return None


def compare(doctor_json, probe, log, glibc_minor=None):
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
    tally, wrong, unjudged, gaps = {}, [], [], []
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
                why = known_gap(glibc_minor, real[f][1])
                if why:
                    gaps.append("%s: %s (%s)" % (f, real[f][1], why))
                else:
                    wrong.append("%s: doctor says it loads, the loader %s: %s" % (f, real[f][0], real[f][1]))
    agree = sum(n for (d, r), n in tally.items() if (d == "loads") == (r in ("loads", "exit-crash")))
    total = sum(tally.values())
    for (d, r), n in sorted(tally.items()):
        print("# doctor %-7s loader %-7s %5d" % (d, r, n))
    print("# %d variants: doctor and the loader agree on %d (%.1f%%); doctor says 'loads' where the loader does not: %d"
          % (total, agree, 100.0 * agree / max(total, 1), len(wrong)))
    if gaps:
        print("# known gaps of the model on glibc 2.%d (doctor says 'loads', the loader refuses): %d" % (glibc_minor, len(gaps)))
        for g in gaps:
            print("#   known gap: " + g)
    for line in wrong[:40] + ["no verdict from doctor: " + f for f in unjudged[:20]]:
        print(line, file=sys.stderr)
    return 1 if wrong or unjudged else 0


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "generate":
        generate(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:])
        return 0
    if len(sys.argv) in (5, 6) and sys.argv[1] == "compare":
        return compare(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]) if len(sys.argv) == 6 else None)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
