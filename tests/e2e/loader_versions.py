#!/usr/bin/env python3
"""The per-glibc-version experiments of e2e.loader_glibc_2_31, _2_36, _2_41
(tests/e2e/loader_versions_check.sh): the experiments, the fixture edits
done outside the root, and the comparison of the real loader with doctor.

    loader_versions.py specs                  one line per experiment:
                                              GROUP NAME KIND ENV ITEM
    loader_versions.py patch WORK             the load-command variants and
                                              the DT_RELR library without
                                              GLIBC_ABI_DT_RELR, in WORK/env/lib
    loader_versions.py layout FILE            an ld.so.cache's layout: new,
                                              compat or old (docs/loader-model.md §5)
    loader_versions.py report OUT GLIBC WORK [WRONG...]
                                              the table, the counts, and the
                                              wrong-version proof; exit 1 on a
                                              disagreement

GROUP says which /etc/ld.so.cache the experiment runs under (`root`: the
root's own; `new`, `compat`, `old`: the cache that root's ldconfig wrote in
that format, bound over it). KIND `dlopen`: ITEM opened by the dlopen probe
(WORK/probe, libc only: doctor's minimal host) and by `doctor -p ENV
--imports ITEM`; `start`: ENV's bin/python3 (a probe linked with a library
that wants an executable stack) started with ITEM, and doctor with that
program as its host. The runner leaves, per experiment, in OUT: NAME.out,
NAME.err, NAME.status (the real run), NAME.doctor-G.json (and .status, its
exit status, which must be the one the document implies) for each G of the
glibc releases doctor modelled (`native`: the root's, read from its files;
2.xx: `--glibc 2.xx`).
"""
import json
import os
import struct
import sys

L, F, C = "loads", "fails", "crashes"

# name: (group, kind, env, item, {minor: the real verdict measured}, what)
# The verdicts are what each root's loader did when the experiments were
# written (docs/loader-model.md §8, "Per glibc version"): a real outcome that
# differs means the experiment no longer shows what it is for (a CPU without
# x86-64-v2, a Debian update), and the test says so.
EXPERIMENTS = {
    "hwcaps-legacy": ("root", "dlopen", "env", "env/lib/libroot_hwcaps_legacy.so", {31: L, 36: L, 41: F},
                      "dependency only in RUNPATH/x86_64/ (legacy hwcaps subfolder)"),
    "hwcaps-tls": ("root", "dlopen", "env", "env/lib/libroot_hwcaps_tls.so", {31: L, 36: L, 41: F},
                   "dependency only in RUNPATH/tls/"),
    "glibc-hwcaps": ("root", "dlopen", "env", "env/lib/libroot_glibc_hwcaps.so", {31: F, 36: L, 41: L},
                     "dependency only in RUNPATH/glibc-hwcaps/x86-64-v2/"),
    "cache-plain": ("new", "dlopen", "env", "env/lib/libroot_cache_plain.so", {31: L, 36: L, 41: L},
                    "dependency only in ld.so.cache (ldconfig's default format)"),
    "cache-legacy-hwcaps": ("new", "dlopen", "env", "env/lib/libroot_cache_legacy.so", {31: L, 36: L, 41: F},
                            "dependency only in ld.so.cache, from a x86_64/ subfolder"),
    "cache-glibc-hwcaps": ("new", "dlopen", "env", "env/lib/libroot_cache_hwcaps.so", {31: F, 36: L, 41: L},
                           "dependency only in ld.so.cache, from glibc-hwcaps/x86-64-v2/"),
    "cache-compat": ("compat", "dlopen", "env", "env/lib/libroot_cache_plain.so", {31: L, 36: L, 41: L},
                     "dependency only in ld.so.cache written with ldconfig -c compat"),
    "cache-old": ("old", "dlopen", "env", "env/lib/libroot_cache_plain.so", {31: L, 36: L, 41: L},
                  "dependency only in ld.so.cache written with ldconfig -c old"),
    "versym": ("root", "dlopen", "env", "env/lib/libspam.so", {31: F, 36: F, 41: L},
               "foo@V1 reference into the named library, which has no VERSYM (E6)"),
    "execstack-dlopen": ("root", "dlopen", "env", "env/lib/libexecstack.so", {31: L, 36: L, 41: F},
                         "dlopen of a library with PT_GNU_STACK PF_X"),
    "execstack-start": ("root", "start", "start/env", "start/env/lib/libexecstack2.so", {31: L, 36: L, 41: L},
                        "program needing a PF_X-stack library starts; then dlopens another"),
    "relr": ("root", "dlopen", "env", "env/lib/relr/libccrelr.so", {31: F, 36: L, 41: L},
             "DT_RELR library needing GLIBC_ABI_DT_RELR"),
    "relr-without-abi": ("root", "dlopen", "env", "env/lib/relr/libccrelr_noabi.so", {31: C, 36: F, 41: F},
                         "DT_RELR library with libc version needs but no GLIBC_ABI_DT_RELR "
                         "(2.31 ignores DT_RELR: its constructor is called at an unrelocated address)"),
    "load-misaligned": ("root", "dlopen", "env", "env/lib/libmisaligned.so", {31: F, 36: F, 41: F},
                        "PT_LOAD p_vaddr - p_offset not a page multiple (the text changed)"),
    "load-align-2m": ("root", "dlopen", "env", "env/lib/libalign2m.so", {31: F, 36: L, 41: L},
                      "PT_LOAD p_align 2 MiB, p_vaddr - p_offset a page but not a p_align multiple"),
    "load-align-small": ("root", "dlopen", "env", "env/lib/libalignsmall.so", {31: F, 36: L, 41: L},
                         "PT_LOAD p_align 0x800, below the page size"),
    "abi-tag-kernel": ("root", "dlopen", "env", "env/lib/libabitag.so", {31: F, 36: L, 41: L},
                       "NT_GNU_ABI_TAG asking for Linux 99.0.0"),
}


def version_dependent(name):
    return len(set(EXPERIMENTS[name][4].values())) > 1


def specs():
    for name, (group, kind, env, item, _, _) in EXPERIMENTS.items():
        print(group, name, kind, env, item)


# --- fixture edits ---------------------------------------------------------

def program_headers(b):
    (phoff,) = struct.unpack_from("<Q", b, 32)
    phentsize, phnum = struct.unpack_from("<HH", b, 54)
    return [phoff + i * phentsize for i in range(phnum)]


def loads(b):
    return [o for o in program_headers(b) if struct.unpack_from("<I", b, o)[0] == 1]


def edit(path, fn):
    with open(path, "rb") as f:
        b = bytearray(f.read())
    fn(b)
    with open(path, "wb") as f:
        f.write(b)


def misaligned(b):
    # The last PT_LOAD's p_offset (at +8) moved by 16 bytes: p_vaddr -
    # p_offset is no page multiple (nor a p_align one).
    o = loads(b)[-1]
    (off,) = struct.unpack_from("<Q", b, o + 8)
    struct.pack_into("<Q", b, o + 8, off + 0x10)


def align(value):
    def fn(b):
        for o in loads(b):
            struct.pack_into("<Q", b, o + 48, value)  # p_align
    return fn


def sysv_hash(name):
    h = 0
    for c in name.encode():
        h = ((h << 4) + c) & 0xFFFFFFFF
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h


def replace_version_need(b, source, target):
    """The Vernaux of `source` made a copy of `target`'s (hash and name), as
    tests/unit/test_loader_rules.cpp rule 19 does: the library then needs
    `target` twice and `source` not at all."""
    def find(h):
        at = [i for i in range(0, len(b) - 16, 4)
              if struct.unpack_from("<I", b, i)[0] == h and struct.unpack_from("<H", b, i + 4)[0] == 0]
        if len(at) != 1:
            raise SystemExit("replace_version_need: %d Vernaux candidates for hash %#x" % (len(at), h))
        return at[0]
    s, t = find(sysv_hash(source)), find(sysv_hash(target))
    b[s:s + 4] = b[t:t + 4]
    b[s + 8:s + 12] = b[t + 8:t + 12]


def patch(work):
    lib = os.path.join(work, "env", "lib")
    edit(os.path.join(lib, "libmisaligned.so"), misaligned)
    edit(os.path.join(lib, "libalign2m.so"), align(0x200000))
    edit(os.path.join(lib, "libalignsmall.so"), align(0x800))
    relr = os.path.join(lib, "relr")
    with open(os.path.join(relr, "libccrelr.so"), "rb") as f:
        b = bytearray(f.read())
    replace_version_need(b, "GLIBC_ABI_DT_RELR", "GLIBC_2.2.5")
    with open(os.path.join(relr, "libccrelr_noabi.so"), "wb") as f:
        f.write(b)


def layout(path):
    with open(path, "rb") as f:
        b = f.read()
    new = b"glibc-ld.so.cache1.1"
    if b.startswith(new):
        return "new (glibc-ld.so.cache1.1), %d bytes" % len(b)
    if not b.startswith(b"ld.so-1.7.0"):
        return "neither (%r), %d bytes" % (b[:12], len(b))
    (n,) = struct.unpack_from("<I", b, 12)
    at = (16 + 12 * n + 7) & ~7  # the old table, then padding to 8 bytes
    if b[at:at + len(new)] == new:
        return "compat (ld.so-1.7.0, %d entries, then glibc-ld.so.cache1.1 at %d), %d bytes" % (n, at, len(b))
    return "old (ld.so-1.7.0 only, %d entries), %d bytes" % (n, len(b))


# --- the comparison --------------------------------------------------------

def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return None


def real_outcome(out, name):
    """(verdict, text) of the real run: the probe's OK/ERR line; without one,
    the process died of a signal (the probe's FAULT line: `crashes`) or
    ld.so ended it (an assertion, a start-up failure: `fails` with ld.so's
    last line on stderr)."""
    stdout = read(os.path.join(out, name + ".out")) or ""
    stderr = (read(os.path.join(out, name + ".err")) or "").strip().splitlines()
    for line in stdout.splitlines():
        if line.startswith("OK "):
            return L, None
        if line.startswith("ERR "):
            return F, line[4:]
    status = (read(os.path.join(out, name + ".status")) or "?").strip()
    fault = [line for line in stderr if line.startswith("FAULT ")]
    if fault or (status.isdigit() and int(status) > 128):
        return C, fault[-1] if fault else "killed by signal %d" % (int(status) - 128)
    return F, stderr[-1] if stderr else "exit status %s, nothing on stderr" % status


def doctor_outcome(out, name, glibc):
    text = read(os.path.join(out, "%s.doctor-%s.json" % (name, glibc)))
    if not text:
        return "error", "doctor wrote nothing: %s" % (read(os.path.join(out, "%s.doctor-%s.err" % (name, glibc))) or "").strip()
    j = json.loads(text)
    # The exit status the document implies: 2 for bad input, else 0 healthy, 1 not (README "Exit codes").
    status = (read(os.path.join(out, "%s.doctor-%s.status" % (name, glibc))) or "?").strip()
    want = "2" if j.get("schema") == "condacuda.error/1" else "0" if j.get("healthy") else "1"
    if status != want:
        return "error", "doctor exited %s, its document says %s" % (status, want)
    if j.get("schema") == "condacuda.error/1":
        return "error", j["error"]["message"]
    if j["host"]["error"]:
        return F, j["host"]["error"].strip().splitlines()[-1]
    (step,) = j["imports"]
    # "ld.so would crash: ...", after the object's name when a file's own bytes decide it.
    if step["error"] and "ld.so would crash" in step["error"]:
        return C, step["error"]
    return step["verdict"], step["error"]


def same(real, model):
    """The same verdict and the same text; for a crash, the verdict alone (the
    real process prints no loader text, the probe says where it faulted)."""
    return real[0] == model[0] and (real[0] == C or real[1] == model[1])


def short(outcome, work):
    """The table's form: WORK/env/lib/ left out of paths, at most 70 characters."""
    verdict, text = outcome
    if text is None:
        return verdict
    text = text.replace(work.rstrip("/") + "/env/lib/", "").replace(work.rstrip("/") + "/", "")
    text = "%s: %s" % (verdict, text)
    return text if len(text) <= 70 else text[:67] + "..."


# Rules of a release the model does not have yet (docs/loader-model.md, "Per
# glibc version"): each is printed as a known gap and does not fail the test;
# one that comes to agree fails it, so that the list is kept true.
KNOWN_GAPS = {}  # none left: (experiment, glibc minor) -> why


def report(out, glibc, work, wrong):
    minor = int(glibc.split(".")[1])
    rows, disagree, unexpected = [], [], []
    for name, spec in EXPERIMENTS.items():
        real = real_outcome(out, name)
        model = doctor_outcome(out, name, "native")
        expected = spec[4][minor]
        if real[0] != expected:
            unexpected.append("%s: the real loader %s, measured before: %s" % (name, short(real, work), expected))
        rows.append((name, short(real, work), short(model, work), "yes" if same(real, model) else "NO"))
        if not same(real, model):
            disagree.append((name, real, model))
    widths = [max(len(r[i]) for r in rows + [("experiment", "real", "doctor", "agree")]) for i in range(4)]
    fmt = "  ".join("%%-%ds" % w for w in widths)
    print("# glibc %s: each experiment, the real loader and doctor" % glibc)
    print("# " + fmt % ("experiment", "real", "doctor", "agree"))
    for r in rows:
        print("# " + fmt % r)
    for name, real, model in disagree:
        print("# DISAGREE %s (%s)\n#   real:   %s: %s\n#   doctor: %s: %s" % (
            name, EXPERIMENTS[name][5], real[0], real[1], model[0], model[1]))
    agree = len(rows) - len(disagree)
    print("# %d/%d experiments agree on glibc %s" % (agree, len(rows), glibc))
    failures = []
    known = [d for d in disagree if (d[0], minor) in KNOWN_GAPS]
    for name, _, _ in known:
        print("# known gap on glibc %s: %s: %s" % (glibc, name, KNOWN_GAPS[(name, minor)]))
    for (name, gap_minor), why in KNOWN_GAPS.items():
        if gap_minor == minor and name not in [d[0] for d in disagree]:
            failures.append("%s now agrees on glibc %s: take it off KNOWN_GAPS (%s)" % (name, glibc, why))
    disagree = [d for d in disagree if (d[0], minor) not in KNOWN_GAPS]
    # The proof that the experiments can fail: doctor modelling another of
    # the versions. Only an experiment doctor gets right with the right
    # version counts (a disagreement of the model's own is no proof).
    wrong_here = [d[0] for d in disagree] + [d[0] for d in known]
    right = [n for n in EXPERIMENTS if version_dependent(n) and n not in wrong_here]
    for w in wrong:
        caught = []
        for name in right:
            model = doctor_outcome(out, name, w)
            if model[0] == "error":
                failures.append("doctor --glibc %s failed on %s: %s" % (w, name, model[1]))
            elif not same(real_outcome(out, name), model):
                caught.append("%s (doctor --glibc %s: %s)" % (name, w, short(model, work)))
        print("# with the wrong version, doctor --glibc %s on glibc %s: %d of the %d version-dependent experiments "
              "it gets right with %s disagree with the real loader" % (w, glibc, len(caught), len(right), glibc))
        for c in caught:
            print("#   " + c)
        if not caught:
            failures.append("doctor --glibc %s agrees with glibc %s's loader on every experiment: "
                            "the experiments cannot tell the versions apart" % (w, glibc))
    for u in unexpected:
        failures.append("unexpected real outcome: " + u)
    if disagree:
        failures.append("doctor disagrees with glibc %s's loader on %d of %d experiments: %s" % (
            glibc, len(disagree), len(rows), ", ".join(d[0] for d in disagree)))
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if failures else 0


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "specs":
        specs()
        return 0
    if cmd == "layout" and len(sys.argv) == 3:
        print(layout(sys.argv[2]))
        return 0
    if cmd == "patch" and len(sys.argv) == 3:
        patch(sys.argv[2])
        return 0
    if cmd == "report" and len(sys.argv) >= 5:
        return report(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
