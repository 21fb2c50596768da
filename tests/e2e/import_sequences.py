#!/usr/bin/env python3
"""Sequences of dlopens in one process: the loader model against the real ld.so.

    import_sequences.py CONDACUDA DLOPEN_PROBE WORKDIR [COUNT]

Builds a conda-style env (no python: both sides use a C host with only
libc) whose files share sonames in different folders: two copies of
libfoo.so.1 (version nodes FOO_1 only, and FOO_1 + FOO_2), consumers that
reach one or the other through RUNPATH and need foo_2@FOO_2 or only
foo_1@FOO_1, a library whose RPATH finds the old copy, and a plugin that
needs host_fn without a DT_NEEDED (it binds only when an earlier
RTLD_GLOBAL open provides it). Then COUNT (default 60) random sequences of
2 to 4 opens, each RTLD_LOCAL or RTLD_GLOBAL, run for real
(`dlopen_probe --keep-going`) and in the model (`doctor --imports`): every
step's verdict and dlerror text must agree. Prints one line per sequence;
exits 1 on any disagreement."""
import json
import os
import random
import subprocess
import sys


def sh(*args, **kw):
    subprocess.run(args, check=True, **kw)


def build(work):
    env = os.path.join(work, "env")
    lib, old, new, plug = (os.path.join(env, p) for p in ("lib", "pkgs/old/lib", "pkgs/new/lib", "plugins"))
    for d in (os.path.join(env, "conda-meta"), lib, old, new, plug, os.path.join(work, "src")):
        os.makedirs(d, exist_ok=True)
    open(os.path.join(env, "conda-meta", "history"), "w").close()
    src = os.path.join(work, "src")

    def write(name, text):
        path = os.path.join(src, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    foo = write("foo.c", "int foo_1(void) { return 1; }\n#ifdef NEW\nint foo_2(void) { return 2; }\n#endif\n")
    map1 = write("foo1.map", "FOO_1 { global: foo_1; local: *; };\n")
    map2 = write("foo2.map", "FOO_1 { global: foo_1; local: *; };\nFOO_2 { global: foo_2; } FOO_1;\n")
    cc = ["gcc", "-shared", "-fPIC", "-O1"]
    sh(*cc, "-Wl,-soname,libfoo.so.1", "-Wl,--version-script=" + map1, "-o", os.path.join(old, "libfoo.so.1"), foo)
    sh(*cc, "-DNEW", "-Wl,-soname,libfoo.so.1", "-Wl,--version-script=" + map2, "-o", os.path.join(new, "libfoo.so.1"), foo)
    need2 = write("need2.c", "int foo_2(void);\nint use2(void) { return foo_2(); }\n")
    need1 = write("need1.c", "int foo_1(void);\nint use1(void) { return foo_1(); }\n")
    files = {}

    def consumer(name, source, folder, link_dir, runpath, old_dtags=False):
        out = os.path.join(folder, name)
        tags = "--disable-new-dtags" if old_dtags else "--enable-new-dtags"
        sh(*cc, "-Wl,%s,-rpath,%s" % (tags, runpath), "-o", out, source, "-L" + link_dir, "-l:libfoo.so.1")
        files[name] = out

    # RUNPATH to the new copy and needs FOO_2; RUNPATH to the old copy and needs only FOO_1.
    consumer("libnew_user.so", need2, lib, new, "$ORIGIN/../pkgs/new/lib")
    consumer("libold_user.so", need1, lib, old, "$ORIGIN/../pkgs/old/lib")
    # Built against the new copy (needs FOO_2) but its RUNPATH finds the old one: fails alone.
    consumer("libmismatched.so", need2, lib, new, "$ORIGIN/../pkgs/old/lib")
    # DT_RPATH (old dtags) to the new copy, in another folder.
    consumer("libpinned_user.so", need2, plug, new, "$ORIGIN/../pkgs/new/lib", old_dtags=True)
    # The two copies themselves, opened by path.
    files["old libfoo"] = os.path.join(old, "libfoo.so.1")
    files["new libfoo"] = os.path.join(new, "libfoo.so.1")
    # host_fn without DT_NEEDED: only an earlier RTLD_GLOBAL object can provide it.
    provider = write("provider.c", "int host_fn(void) { return 7; }\n")
    sh(*cc, "-o", os.path.join(plug, "libprovider.so"), provider)
    files["libprovider.so"] = os.path.join(plug, "libprovider.so")
    plugin = write("plugin.c", "int host_fn(void);\nint run(void) { return host_fn(); }\n")
    sh(*cc, "-o", os.path.join(plug, "libplugin.so"), plugin)
    files["libplugin.so"] = os.path.join(plug, "libplugin.so")
    return env, sorted(files.values())


def real(probe, steps):
    args = [probe, "--keep-going"]
    for path, glob in steps:
        if glob:
            args.append("--global")
        args.append(path)
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    out = []
    for line in r.stdout.splitlines():
        if line.startswith("OK "):
            out.append(("loads", None))
        elif line.startswith("ERR "):
            out.append(("fails", line[4:]))
    return out


def model(condacuda, env, steps):
    items = ",".join(("global:" if glob else "") + path for path, glob in steps)
    r = subprocess.run([condacuda, "doctor", "-p", env, "--context", "not-activated", "--no-ld-library-path",
                        "--imports", items, "--json"], capture_output=True, text=True)
    doc = json.loads(r.stdout)
    if doc.get("schema") == "condacuda.error/1":
        raise SystemExit("doctor --imports failed: %s" % doc["error"]["message"])
    return [(i["verdict"], i["error"]) for i in doc["imports"]]


def main():
    condacuda, probe, work = sys.argv[1:4]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 60
    env, files = build(work)
    rng = random.Random(17)
    bad = kinds = 0
    seen = set()
    for n in range(count):
        steps = [(rng.choice(files), rng.random() < 0.3) for _ in range(rng.randint(2, 4))]
        r, m = real(probe, steps), model(condacuda, env, steps)
        same = r == m
        bad += not same
        seen.update(v for v, _ in r)
        kinds += any(v == "fails" for v, _ in r) and any(v == "loads" for v, _ in r)
        names = " ".join(("global:" if g else "") + os.path.basename(p) for p, g in steps)
        print("%s %2d %s -> %s" % ("same" if same else "DIFF", n, names, " ".join(v for v, _ in r)))
        if not same:
            print("   real:  %s\n   model: %s" % (r, m))
    print("%d sequences, %d with both outcomes, %d disagreements" % (count, kinds, bad))
    if seen != {"loads", "fails"} or kinds < count // 4:
        print("the sequences do not exercise both outcomes enough")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
