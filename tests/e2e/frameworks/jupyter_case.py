#!/usr/bin/env python3
"""Jupyter kernels are launches (issue 50), with Debian's real jupyter_client
and ipykernel starting real kernels of a torch 2.5.1 stand-in env:

    jupyter_case.py CONDACUDA WORKDIR

A server whose LD_LIBRARY_PATH has an old CUDA 12.0 folder (old nvJitLink,
old cuBLASLt) starts the env's kernels (one in ENV/share/jupyter, one in the
user's data dir by another path to the env's python); the kernel's
`import torch` fails with the seed's undefined symbol. doctor from a clean
shell names both kernels (a warning: an older folder on the server's
LD_LIBRARY_PATH breaks them); with that server running (its runtime file,
its /proc/PID/environ) it exits 1 naming them. `repair` from the clean shell
makes both import under that server; `undo` gives every kernelspec and the
env back byte for byte. Another env's kernelspec is never listed or written;
bad kernelspecs (malformed, argv not a list, huge, a FIFO, a symlink) get a
finding and block nothing. `kernel install` writes one that holds from the
start, refuses a kernel.json it did not write, and a folder of another user.
"""
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standins  # noqa: E402
import text_rules  # noqa: E402

PYTHON = "/usr/bin/python3"  # Debian's, with python3-jupyter-client and python3-ipykernel
SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jupyter_server.py")
SEED = "__nvJitLinkAddData_12_1, version libnvJitLink.so.12"


def check(cond, what):
    if not cond:
        raise SystemExit("FAIL: " + what)
    print("ok: " + what, flush=True)


def tree(root):
    """Every path under root with its kind and content hash (links by their text)."""
    out = {}
    for d, dirs, files in os.walk(root):
        for n in sorted(dirs + files):
            p = os.path.join(d, n)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                out[p] = "link " + os.readlink(p)
            elif stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    out[p] = "file %o %s" % (st.st_mode & 0o7777, hashlib.sha256(f.read()).hexdigest())
            elif stat.S_ISDIR(st.st_mode):
                out[p] = "dir"
            else:
                out[p] = "other"
    return out


def kernelspec(folder, argv):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "kernel.json"), "w") as f:
        json.dump({"argv": argv, "display_name": os.path.basename(folder), "language": "python"}, f)


class Jupyter:
    def __init__(self, condacuda, work):
        self.condacuda, self.work = condacuda, work
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        lib = standins.Libraries(os.path.join(work, "build"), PYTHON)
        self.env = os.path.join(work, "env")
        site = standins.make_env(self.env, PYTHON, kind="venv", system_site=True)  # ipykernel from Debian's dist-packages
        tk = lib.toolkit(12, "$ORIGIN/../../nvjitlink/lib:$ORIGIN")
        standins.cuda_wheels(site, tk, 12, list(tk))
        standins.torch_package(site, lib, 12, "2.5.1", "12.4")
        os.symlink("python3", os.path.join(self.env, "bin", "python"))
        self.old = os.path.join(work, "cuda-12.0", "lib64")
        os.makedirs(self.old)
        shutil.copyfile(lib.nvjitlink(12, True), os.path.join(self.old, "libnvJitLink.so.12"))
        shutil.copyfile(lib.cublaslt(12, True), os.path.join(self.old, "libcublasLt.so.12"))
        self.home = os.path.join(work, "home")
        self.user_kernels = os.path.join(self.home, ".local", "share", "jupyter", "kernels")
        self.bad_path = os.path.join(work, "jupyter-path")
        self.clean = {"PATH": "/usr/bin:/bin", "HOME": self.home, "XDG_CACHE_HOME": os.path.join(work, "cache"),
                      "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
        # The server's: the old CUDA folder first; its JUPYTER_PATH names the
        # env's share/jupyter (the server runs Debian's python, whose own
        # prefix is /usr) and the bad kernelspecs' folder.
        self.server = dict(self.clean, LD_LIBRARY_PATH=self.old,
                           JUPYTER_PATH=os.path.join(self.env, "share", "jupyter") + ":" + self.bad_path)
        self.kernelspecs()

    def kernelspecs(self):
        launcher = ["-m", "ipykernel_launcher", "-f", "{connection_file}"]
        kernelspec(os.path.join(self.env, "share", "jupyter", "kernels", "demotorch"),
                   [os.path.join(self.env, "bin", "python3")] + launcher)
        kernelspec(os.path.join(self.user_kernels, "usertorch"), [os.path.join(self.env, "bin", "python")] + launcher)
        kernelspec(os.path.join(self.user_kernels, "system-python"), [PYTHON] + launcher)  # another env's
        bad = os.path.join(self.bad_path, "kernels")
        os.makedirs(os.path.join(bad, "malformed"))
        with open(os.path.join(bad, "malformed", "kernel.json"), "w") as f:
            f.write('{"argv": ["python3", ')
        os.makedirs(os.path.join(bad, "argv-string"))
        with open(os.path.join(bad, "argv-string", "kernel.json"), "w") as f:
            json.dump({"argv": "python3 -m ipykernel_launcher", "display_name": "x"}, f)
        os.makedirs(os.path.join(bad, "huge"))
        with open(os.path.join(bad, "huge", "kernel.json"), "w") as f:
            f.write('{"argv": ["x"], "display_name": "' + "x" * (8 << 20) + '"}')
        os.makedirs(os.path.join(bad, "fifo"))
        os.mkfifo(os.path.join(bad, "fifo", "kernel.json"))
        os.makedirs(os.path.join(bad, "linked"))
        os.symlink(os.path.join(self.env, "share", "jupyter", "kernels", "demotorch", "kernel.json"),
                   os.path.join(bad, "linked", "kernel.json"))

    def kernel(self, name, env=None):
        r = subprocess.run([PYTHON, "-Xfrozen_modules=off", SERVER, "run", name, "import torch"], capture_output=True,
                           text=True, env=env or self.server, cwd=self.home, timeout=180)
        lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
        check(lines, "the kernel '%s' started and answered (%s)" % (name, r.stderr.strip()[-400:]))
        return json.loads(lines[-1])

    def run(self, *args, env=None):
        return subprocess.run([self.condacuda, *args], capture_output=True, text=True, env=env or self.clean,
                              cwd=self.home, timeout=300)

    def doctor(self):
        """doctor --json, and its text view held to the layout rules (text_rules.py)."""
        return text_rules.doctor_both(lambda argv: self.run(*argv), "-p", self.env)


def findings(doc, code):
    return [f for f in doc["findings"] if f["code"] == code]


def main(condacuda, work):
    j = Jupyter(condacuda, work)
    for name in ("demotorch", "usertorch"):
        out = j.kernel(name)
        check(out["status"] == "error" and SEED in (out["evalue"] or ""),
              "before: kernel %s fails under the server: %s" % (name, out["evalue"]))
    check(subprocess.run([os.path.join(j.env, "bin", "python3"), "-c", "import torch"], env=j.clean).returncode == 0,
          "before: import torch works from the clean shell")

    rc, doc = j.doctor()
    names = sorted(k["name"] for k in doc["kernels"])
    check(names == ["demotorch", "usertorch"], "doctor from a clean shell lists the env's kernels: %s" % names)
    exposed = findings(doc, "kernel-exposed")
    check(sorted(a.split("/")[-2] for f in exposed for a in f["affects"]) == ["demotorch", "usertorch"] and len(exposed) == 1,
          "one kernel-exposed names both (an older folder on the server's LD_LIBRARY_PATH breaks them)")
    check(rc == 0 and all(f["severity"] == "warning" for f in exposed), "a warning, exit 0, with no server running")

    server = subprocess.Popen([PYTHON, SERVER, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=j.server, cwd=j.home)
    try:
        runtime_file = server.stdout.readline().strip()
        check(os.path.isfile(runtime_file), "a running server wrote " + runtime_file)
        with_server(j, server.pid)
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    install(j)


def with_server(j, pid):
    specs = [os.path.join(j.env, "share", "jupyter", "kernels", "demotorch", "kernel.json")]
    specs += [os.path.join(j.user_kernels, n, "kernel.json") for n in ("usertorch", "system-python")]
    before_specs = {p: open(p, "rb").read() for p in specs}
    before_env = tree(j.env)
    rc, doc = j.doctor()
    fails = findings(doc, "kernel-fails")
    check(rc == 1, "with the server running, doctor from the clean shell exits 1 (%d)" % rc)
    # 'linked' is on the server's JUPYTER_PATH only: a kernel.json linked to demotorch's, the env's kernel too.
    check(sorted(a.split("/")[-2] for f in fails for a in f["affects"]) == ["demotorch", "linked", "usertorch"] and
          all(f["severity"] == "error" for f in fails), "kernel-fails names each kernel of the env, an error")
    check(all(any("running server pid %d" % pid in e and SEED in e for e in f["evidence"]) for f in fails),
          "under the running server (its real environment), with the kernel's real error")
    bad = sorted(f["affects"][0].split("/")[-2] for f in findings(doc, "bad-kernelspec"))
    check(bad == ["argv-string", "fifo", "huge", "malformed"], "bad-kernelspec for each unreadable one: %s" % bad)
    check("linked" in [k["name"] for k in doc["kernels"]] and "system-python" not in [k["name"] for k in doc["kernels"]],
          "a symlinked kernel.json is read, as Jupyter reads it; another env's kernel is not listed")
    info = json.loads(j.run("info", "-p", j.env, "--json").stdout)
    check(sorted(k["name"] for k in info["kernels"]) == ["demotorch", "linked", "usertorch"] and
          len(info["unreadable_kernelspecs"]) == 4, "info lists the env's kernels and the unreadable kernelspecs")
    text = j.run("doctor", "-p", j.env).stdout
    check("kernel 'demotorch'" in text and "fails when started by the running server pid %d" % pid in text,
          "the text names the kernel and the server")

    r = j.run("repair", "-p", j.env)
    check(r.returncode == 0, "repair from the clean shell exits 0 (%d: %s)" % (r.returncode, r.stderr.strip()))
    check("Jupyter kernels, verified after" in r.stdout and "kernel 'demotorch'" in r.stdout and
          "kernel 'usertorch'" in r.stdout, "repair's summary names the kernels it verified")
    check("doctor after: healthy" in r.stdout, "and calls the env healthy only now")
    for name in ("demotorch", "usertorch"):
        out = j.kernel(name)
        check(out["status"] == "ok", "after repair: kernel %s imports under the server (%s)" % (name, out["evalue"]))
    rc, doc = j.doctor()
    check(rc == 0 and not findings(doc, "kernel-fails") and not findings(doc, "kernel-exposed"),
          "doctor after repair: no kernel finding, exit %d" % rc)
    check({p: open(p, "rb").read() for p in specs} == before_specs, "repair wrote no kernelspec")

    r = j.run("undo", "-p", j.env)
    check(r.returncode == 0, "undo exits 0")
    check({p: open(p, "rb").read() for p in specs} == before_specs, "after undo every kernelspec is byte for byte")
    after_env = tree(j.env)
    check(after_env == before_env, "after undo the env is as before: %s" %
          sorted(set(after_env.items()) ^ set(before_env.items()))[:4])
    out = j.kernel("demotorch")
    check(out["status"] == "error", "after undo the kernel fails again under the server")


def install(j):
    r = j.run("kernel", "install", "-p", j.env, "--kernel-name", "TorchCU", "--json")
    check(r.returncode == 0, "kernel install exits 0 (%d: %s)" % (r.returncode, r.stderr.strip()))
    doc = json.loads(r.stdout)
    path = os.path.join(j.user_kernels, "torchcu", "kernel.json")
    check(doc["kernel_dir"] == os.path.dirname(path) and os.path.isfile(path), "written to the user's data dir")
    argv = json.load(open(path))["argv"]
    check(argv[:5] == [j.condacuda, "run", "-p", j.env, "--"] and argv[-1] == "{connection_file}",
          "its argv starts the env's python through condacuda run")
    check(all(v["verdict"] == "loads" for k in doc["kernels"] for v in k["verdicts"]), "judged: it loads")
    out = j.kernel("torchcu")
    check(out["status"] == "ok", "the installed kernel imports under the hostile server, the env unrepaired (%s)"
          % out["evalue"])
    r = j.run("kernel", "install", "-p", j.env, "--kernel-name", "torchcu", "--json")
    check(r.returncode == 0 and json.loads(r.stdout)["outcome"] == "unchanged", "a second install changes nothing")
    foreign = os.path.join(j.user_kernels, "system-python", "kernel.json")
    before = open(foreign, "rb").read()
    r = j.run("kernel", "install", "-p", j.env, "--kernel-name", "system-python")
    check(r.returncode == 1 and "did not write" in r.stderr and open(foreign, "rb").read() == before,
          "a kernel.json condacuda did not write is refused, untouched (%d)" % r.returncode)
    other = os.path.join(j.work, "other-home")
    os.makedirs(other)
    os.chown(other, 4242, 4242)
    r = j.run("kernel", "install", "-p", j.env, "--kernel-name", "x", env=dict(j.clean, HOME=other))
    check(r.returncode == 4 and "belongs to uid 4242" in r.stderr and os.listdir(other) == [],
          "another user's home: refused, nothing written (%d: %s)" % (r.returncode, r.stderr.strip()))
    r = j.run("kernel", "install", "-p", j.env, "--kernel-name", "../x")
    check(r.returncode == 2, "a name Jupyter refuses is bad input (%d)" % r.returncode)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
