"""The hostile-input pass over this wave's surfaces as the real binary meets
them on disk (issue 52 point 7; the in-process half is tests/fuzz, under
ASan/UBSan): Jupyter's kernelspecs and runtime files, `kernel install`'s
target, the files `fleet --from` reads, and the frameworks' files in an env
(torch/version.py, dist-info METADATA and RECORD, .pth files, CuPy's
_wheel.json, a JAX plugin). A generator lays out each case: FIFOs where
files are read, links to /dev/zero, to a FIFO, in a loop and out of the
tree, folders where files belong, sparse files of gigabytes, deep JSON,
names that are not UTF-8. For every case condacuda must end on its own
(60 s), exit with a documented code (never a signal, never 70 "a bug"), and
write nothing outside where that command may write: the whole scratch tree
(types, modes, sizes, mtimes, link targets, contents) is the same after, but
for the cache folder and the one kernel folder `kernel install` writes.

Usage: hostile_surfaces.py CONDACUDA WORK
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standins  # noqa: E402

PYTHON = "/usr/bin/python3"
DOCUMENTED = {0, 1, 2, 3, 4, 5}  # README "Exit codes"; 70 is "a bug in condacuda"
GIB = 1 << 30


def fail(what):
    raise SystemExit("FAIL: " + what)


def snapshot(root, allowed):
    """Every path below root (but those under `allowed`) with what a write changes."""
    state = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if os.path.join(folder, d) not in allowed]
        for name in dirs + files:
            path = os.path.join(folder, name)
            if path in allowed:
                continue
            st = os.lstat(path)
            entry = (st.st_mode, st.st_size, st.st_mtime_ns, st.st_uid, st.st_gid)
            if os.path.islink(path):
                entry += (os.readlink(path),)
            elif os.path.isfile(path) and st.st_size < 8 << 20:
                with open(path, "rb") as f:
                    entry += (hashlib.sha256(f.read()).hexdigest(),)
            state[path] = entry
    return state


def changes(before, after):
    out = []
    for path in sorted(set(before) | set(after)):
        if before.get(path) != after.get(path):
            out.append("%s: %s -> %s" % (path, before.get(path, "absent"), after.get(path, "absent")))
    return out


class Pass:
    def __init__(self, condacuda, work):
        self.condacuda, self.work = condacuda, work
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        self.cache = os.path.join(work, "cache")
        self.home = os.path.join(work, "home")
        os.makedirs(self.home)
        self.victim = os.path.join(work, "victim")  # what the links point out at: never written
        os.makedirs(self.victim)
        with open(os.path.join(self.victim, "kernel.json"), "w") as f:
            f.write('{"argv": ["precious"]}\n')
        os.mkfifo(os.path.join(work, "fifo"))
        self.cases = 0

    def run(self, label, argv, env_extra, allowed=()):
        """Runs condacuda ARGV: ends in 60 s, a documented exit code, no writes but under `allowed`."""
        env = {"PATH": "/usr/bin:/bin", "HOME": self.home, "XDG_CACHE_HOME": self.cache, "LC_ALL": "C.UTF-8"}
        env.update(env_extra)
        skip = {self.cache} | set(allowed)
        before = snapshot(self.work, skip)
        try:
            r = subprocess.run([self.condacuda] + argv, env=env, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            fail("%s: condacuda %s did not end within 60 s (a hang)" % (label, " ".join(argv)))
        if r.returncode not in DOCUMENTED:
            fail("%s: condacuda %s exited %d: %s" % (label, " ".join(argv), r.returncode, r.stderr.decode(errors="replace")[-800:]))
        written = changes(before, snapshot(self.work, skip))
        if written:
            fail("%s: condacuda %s wrote outside where it may: %s" % (label, " ".join(argv), "; ".join(written[:5])))
        self.cases += 1
        return r


def sparse(path, size):
    with open(path, "wb") as f:
        f.truncate(size)


def link(target, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)


# --- generators: each lays out its hostile files, names them, gives the commands ---

def kernelspec_cases(p):
    """Kernel folders under a JUPYTER_PATH entry, one case a folder."""
    deep = "[" * 100000 + "]" * 100000
    makers = {
        "fifo": lambda k: os.mkfifo(os.path.join(k, "kernel.json")),
        "to-fifo": lambda k: link(os.path.join(p.work, "fifo"), os.path.join(k, "kernel.json")),
        "to-dev-zero": lambda k: link("/dev/zero", os.path.join(k, "kernel.json")),
        "loop": lambda k: link(os.path.join(k, "kernel.json"), os.path.join(k, "kernel.json")),
        "folder": lambda k: os.makedirs(os.path.join(k, "kernel.json")),
        "sparse-4g": lambda k: sparse(os.path.join(k, "kernel.json"), 4 * GIB),
        "deep": lambda k: open(os.path.join(k, "kernel.json"), "w").write('{"argv": %s}' % deep),
        "argv-100k": lambda k: open(os.path.join(k, "kernel.json"), "w").write(json.dumps({"argv": ["x"] * 100000})),
        "env-10k": lambda k: open(os.path.join(k, "kernel.json"), "w").write(
            json.dumps({"argv": ["python3"], "env": {"V%d" % i: "${V%d}$$" % i for i in range(10000)}})),
        "not-utf8": lambda k: open(os.path.join(k, "kernel.json"), "wb").write(b'{"argv": ["/env\xff/bin/python"]}'),
        "wrapper-fifo": lambda k: (os.mkfifo(os.path.join(k, "start")),
                                   open(os.path.join(k, "kernel.json"), "w").write(json.dumps({"argv": [os.path.join(k, "start")]}))),
        "wrapper-dev-zero": lambda k: (link("/dev/zero", os.path.join(k, "start")),
                                       open(os.path.join(k, "kernel.json"), "w").write(json.dumps({"argv": [os.path.join(k, "start")]}))),
    }
    for name, make in makers.items():
        base = os.path.join(p.work, "jp-" + name)
        folder = os.path.join(base, "kernels", name)
        os.makedirs(folder)
        make(folder)
        yield "kernelspec " + name, {"JUPYTER_PATH": base}
    # The kernels folder itself a link out of the tree, a loop, a FIFO; the
    # data dir and runtime dir hostile; a runtime file that is a FIFO or
    # names this very process.
    out = os.path.join(p.work, "jp-kernels-out")
    link(p.victim, os.path.join(out, "kernels"))
    yield "kernels folder linked out", {"JUPYTER_PATH": out}
    loop = os.path.join(p.work, "jp-kernels-loop")
    link(os.path.join(loop, "kernels"), os.path.join(loop, "kernels"))
    yield "kernels folder a loop", {"JUPYTER_PATH": loop}
    yield "JUPYTER_PATH names a FIFO", {"JUPYTER_PATH": os.path.join(p.work, "fifo") + ":" + ":" * 1000}
    runtime = os.path.join(p.work, "runtime")
    os.makedirs(runtime)
    os.mkfifo(os.path.join(runtime, "jpserver-1.json"))
    with open(os.path.join(runtime, "jpserver-%d.json" % os.getpid()), "w") as f:
        json.dump({"pid": os.getpid(), "url": "http://127.0.0.1:1/"}, f)
    with open(os.path.join(runtime, "nbserver-2.json"), "w") as f:
        json.dump({"pid": 2 ** 62, "url": ["x"]}, f)
    link("/dev/zero", os.path.join(runtime, "jpserver-3.json"))
    yield "runtime files", {"JUPYTER_RUNTIME_DIR": runtime}
    yield "data dir a FIFO", {"JUPYTER_DATA_DIR": os.path.join(p.work, "fifo")}


def metadata_cases(p, site):
    """The frameworks' files in a copy of the env, one hostile file a case."""
    makers = {
        "version.py fifo": ("torch/version.py", "fifo"), "version.py dev-zero": ("torch/version.py", "/dev/zero"),
        "version.py sparse": ("torch/version.py", "sparse"), "METADATA fifo": ("torch-2.5.1+cu124.dist-info/METADATA", "fifo"),
        "METADATA dev-zero": ("torch-2.5.1+cu124.dist-info/METADATA", "/dev/zero"),
        "RECORD sparse": ("torch-2.5.1+cu124.dist-info/RECORD", "sparse"), "pth fifo": ("evil.pth", "fifo"),
        "pth dev-zero": ("evil.pth", "/dev/zero"), "pth loop": ("evil.pth", "loop"),
        "dist-info loop": ("torch-2.5.1+cu124.dist-info", "loop"), "cupy wheel.json fifo": ("cupy/.data/_wheel.json", "fifo"),
        "jax plugin loop": ("jax_plugins/xla_cuda12", "loop"), "torch folder linked out": ("torch", "victim"),
        "nvidia folder dev-zero": ("nvidia", "/dev/zero"),
    }
    rel_site = os.path.relpath(site, p.env)
    for label, (rel, kind) in makers.items():
        env = os.path.join(p.work, "env-" + label.replace(" ", "-").replace("/", "-"))
        shutil.copytree(p.env, env, symlinks=True)
        path = os.path.join(env, rel_site, rel)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if rel.startswith("cupy/") and not os.path.exists(os.path.join(env, rel_site, "cupy", "__init__.py")):
            open(os.path.join(env, rel_site, "cupy", "__init__.py"), "w").close()
        if rel.startswith("jax_plugins/"):
            open(os.path.join(env, rel_site, "jax_plugins", "__init__.py"), "w").close()
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "sparse":
            sparse(path, 4 * GIB)
        elif kind == "loop":
            os.symlink(path, path)
        elif kind == "victim":
            os.symlink(p.victim, path)
        else:
            os.symlink(kind, path)
        yield "metadata " + label, env


def fleet_cases(p):
    """Files and folders `fleet --from` is given."""
    d = os.path.join(p.work, "fleet-in")
    os.makedirs(d)
    good = {"schema": "condacuda.doctor/1", "outcome": "healthy", "exit_code": 0, "findings": [],
            "node": {"name": "gpu001", "glibc": "2.36", "gpus": [], "driver": {"version": None}}}
    with open(os.path.join(d, "gpu001.json"), "w") as f:
        json.dump(good, f)
    cases = {
        "fifo": lambda x: os.mkfifo(x), "dev-zero": lambda x: os.symlink("/dev/zero", x), "sparse": lambda x: sparse(x, 4 * GIB),
        "loop": lambda x: os.symlink(x, x), "deep": lambda x: open(x, "w").write("[" * 200000 + "]" * 200000),
        "not-utf8": lambda x: open(x, "wb").write(json.dumps(good).replace("gpu001", "gpu\udcff", 1).encode("utf-8", "surrogateescape")),
        "lines-50k": lambda x: open(x, "w").write((json.dumps(good) + "\n") * 50000),
        "nul": lambda x: open(x, "wb").write(b"\0" * 100000),
        "folder-loop": lambda x: (os.makedirs(x), os.symlink(x, os.path.join(x, "again"))),
        "folder-out": lambda x: os.symlink(p.victim, x),
    }
    for name, make in cases.items():
        path = os.path.join(d, name + ".json")
        make(path)
        # Both of these are documents (a node named with a byte that is not
        # UTF-8; one node given 50,000 times): the others are no document.
        yield "fleet --from " + name, [path, os.path.join(d, "gpu001.json")], name not in ("not-utf8", "lines-50k")


def kernel_install_cases(p):
    """`kernel install` into a data dir where its kernel folder or what is in it is planted (the
    folders above are the user's own: their links are followed, as Jupyter follows them), and
    `kernel install --sys-prefix` into a copy of the env (untrusted) where any folder on the way is."""
    plants = {
        "kernel folder linked out": lambda k: link(p.victim, k),
        "kernel.json linked out": lambda k: link(os.path.join(p.victim, "kernel.json"), os.path.join(k, "kernel.json")),
        "kernel.json a FIFO": lambda k: (os.makedirs(k), os.mkfifo(os.path.join(k, "kernel.json"))),
        "kernel.json to dev-zero": lambda k: link("/dev/zero", os.path.join(k, "kernel.json")),
        "kernel folder a file": lambda k: (os.makedirs(os.path.dirname(k)), open(k, "w").write("x")),
    }
    for label, plant in plants.items():
        data = os.path.join(p.work, "data-" + label.replace(" ", "-"))
        kernel = os.path.join(data, "kernels", "k")
        plant(kernel)
        yield "kernel install: " + label, ["--kernel-name", "k"], {"JUPYTER_DATA_DIR": data}, kernel
    in_env = {"share": "share", "share/jupyter": "share/jupyter", "kernels folder": "share/jupyter/kernels",
              "kernel folder": "share/jupyter/kernels/k"}
    for label, rel in in_env.items():
        env = os.path.join(p.work, "sys-prefix-" + label.replace(" ", "-").replace("/", "-"))
        shutil.copytree(p.env, env, symlinks=True)
        victim = os.path.join(p.work, "victim-" + os.path.basename(env))  # empty: only confinement refuses the write
        os.makedirs(victim)
        link(victim, os.path.join(env, rel))
        yield ("kernel install --sys-prefix: %s linked out" % label, ["-p", env, "--sys-prefix", "--kernel-name", "k"], {},
               os.path.join(env, "share", "jupyter", "kernels", "k"))
    # An env whose path is not UTF-8: a kernel.json cannot hold it (exit 2, nothing written).
    env = os.path.join(p.work, "env-\udcffx")
    shutil.copytree(p.env, env, symlinks=True)
    data = os.path.join(p.work, "data-not-utf8")
    yield "kernel install: an env path not UTF-8", ["-p", env, "--kernel-name", "k"], {"JUPYTER_DATA_DIR": data}, None


def name_of(label):
    return label.rsplit(" ", 1)[-1]


def main(condacuda, work):
    p = Pass(condacuda, work)
    lib = standins.Libraries(os.path.join(work, "build"), PYTHON)
    p.env = os.path.join(work, "env")
    site = standins.make_env(p.env, PYTHON, kind="venv")
    tk = lib.toolkit(12, "$ORIGIN/../../nvjitlink/lib:$ORIGIN")
    standins.cuda_wheels(site, tk, 12, list(tk))
    standins.torch_package(site, lib, 12, "2.5.1", "12.4")
    shutil.rmtree(os.path.join(work, "build"))
    healthy = p.run("the env as built", ["doctor", "-p", p.env, "--json"], {})
    if healthy.returncode != 0:
        fail("the env as built is not healthy: %s" % healthy.stdout.decode()[-800:])
    for label, env_extra in kernelspec_cases(p):
        p.run(label, ["doctor", "-p", p.env, "--json"], env_extra)
    for label, env in metadata_cases(p, site):
        p.run(label, ["doctor", "-p", env, "--json"], {})
        p.run(label + " (text)", ["doctor", "-p", env], {})
    for label, paths, bad in fleet_cases(p):
        argv = ["fleet", "--json"]
        for path in paths:
            argv += ["--from", path]
        r = p.run(label, argv, {})
        if name_of(label) == "folder-loop":  # a folder with no file in it: bad input
            if r.returncode != 2 or b"holds no files" not in r.stderr:
                fail("%s: exit %d, %s" % (label, r.returncode, r.stderr.decode(errors="replace")))
            continue
        if bad and r.returncode == 0:
            fail("%s: a hostile file gave no bad-document node (exit 0)" % label)
        if r.returncode in (0, 1, 5) and not json.loads(r.stdout)["classes"]:
            fail("%s: no class in fleet's document" % label)
    for label, args, env_extra, kernel in kernel_install_cases(p):
        before = snapshot(p.victim, set())
        argv = ["kernel", "install"] + ([] if "-p" in args else ["-p", p.env]) + args + ["--json"]
        r = p.run(label, argv, env_extra, allowed=(kernel,) if kernel else ())
        if kernel is None:
            if r.returncode != 2 or b"not UTF-8" not in r.stderr:
                fail("%s: exit %d, %s" % (label, r.returncode, r.stderr.decode(errors="replace")))
            continue
        if "--sys-prefix" in args and (r.returncode != 1 or b"symbolic link" not in r.stderr):
            fail("%s: not refused as a link out of the env (exit %d): %s" % (label, r.returncode, r.stderr.decode(errors="replace")))
        if snapshot(p.victim, set()) != before:
            fail("%s: the folder outside was changed" % label)
        if r.returncode == 0 and (os.path.islink(kernel) or not os.path.isfile(os.path.join(kernel, "kernel.json"))):
            fail("%s: exit 0 but no kernel.json of its own in %s" % (label, kernel))
    print("hostile surfaces: %d cases, 0 crashes, 0 hangs, 0 writes outside" % p.cases)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
