#!/usr/bin/env python3
"""A consumer built for another CUDA major (issue 51), against the real import:

    consumer_case.py CONDACUDA WORKDIR

A CUDA 12 env (the stand-in CUDA 12 wheels) with cupy-cuda11x 12.3.0, whose
cupy._core.core extension needs libcudart.so.11.0 (RUNPATH into the env's
nvidia/cuda_runtime/lib, as CuPy's wheels have it). `import cupy` fails with
`libcudart.so.11.0: cannot open shared object file`. doctor's fix is the
consumer's: its CUDA 12 build (`pip uninstall -y cupy-cuda11x`, `pip install
cupy-cuda12x`), as actions in --json. Following them mechanically (this
script plays pip with stand-in wheels) makes doctor healthy and the import
work in one step. The advice a user may have followed before (installing
nvidia-cuda-runtime-cu11) leads back to the same fix, never to a loop. With a
CUDA 11.8 folder on LD_LIBRARY_PATH the import works: the runtime taken from
it is a warning that names the consumer (no false "same soname" line), the
one error the env's mixed majors, with the consumer's fix.
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standins  # noqa: E402
import text_rules  # noqa: E402

PROBE = "try:\n    import cupy\n    print('loads')\nexcept BaseException as e:\n    print('fails', type(e).__name__ + ': ' + str(e))\n"


def check(cond, what):
    if not cond:
        raise SystemExit("FAIL: " + what)
    print("ok: " + what, flush=True)


class Env:
    def __init__(self, condacuda, work):
        self.condacuda, self.work = condacuda, work
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        self.lib = standins.Libraries(os.path.join(work, "build"))
        self.env = os.path.join(work, "env")
        self.site = standins.make_env(self.env)
        self.tk = self.lib.toolkit(12, "$ORIGIN/../../nvjitlink/lib:$ORIGIN")
        standins.cuda_wheels(self.site, self.tk, 12, ["cuda_runtime", "cublas", "nvjitlink", "cusparse"])
        self.vars = {"PATH": "/usr/bin:/bin", "HOME": os.path.join(work, "home"), "XDG_CACHE_HOME": os.path.join(work, "cache")}
        os.makedirs(self.vars["HOME"])
        self.pip("install", "cupy-cuda11x")

    # pip, played with stand-in wheels: what the harness does with doctor's actions.
    def pip(self, verb, *args):
        words = [a for a in args if not a.startswith("-")]
        if verb == "uninstall":
            for name in words:
                standins.uninstall_wheel(self.site, name)
            return
        for name in words:
            self.install(name)

    def install(self, name):
        if name in ("cupy-cuda11x", "cupy-cuda12x"):
            standins.cupy_cuda_wheel(self.site, self.lib, 11 if name == "cupy-cuda11x" else 12)
        elif name == "nvidia-cuda-runtime-cu11":
            standins.cuda11_runtime_wheel(self.site, self.lib)
        else:
            raise SystemExit("FAIL: the harness has no stand-in wheel for " + name)

    def real(self):
        r = subprocess.run([os.path.join(self.env, "bin", "python3"), "-c", PROBE], capture_output=True, text=True,
                           env=self.vars, cwd=self.vars["HOME"])
        return r.stdout.strip()

    def doctor(self):
        """doctor --json, and its text view held to the layout rules (text_rules.py)."""
        run = lambda argv: subprocess.run([self.condacuda, *argv], capture_output=True, text=True, env=self.vars)  # noqa: E731
        return text_rules.doctor_both(run, "-p", self.env)

    def follow(self, finding):
        for a in finding["actions"]:
            check(a["kind"] in ("pip-install", "pip-uninstall"), "an action the harness applies: %s" % a)
            self.pip(*a["args"])


def first_error(doc):
    return next(f for f in doc["findings"] if f["severity"] == "error")


def main(condacuda, work):
    e = Env(condacuda, work)
    real = e.real()
    check(real.startswith("fails ImportError: libcudart.so.11.0: cannot open shared object file"), "import cupy fails: " + real)
    rc, doc = e.doctor()
    f = first_error(doc)
    check(rc == 1 and f["title"].startswith("cupy-cuda11x 12.3.0 is built for CUDA 11; this env is CUDA 12"),
          "doctor names the consumer's build: " + f["title"])
    check(f["actions"] == [{"kind": "pip-uninstall", "args": ["uninstall", "-y", "cupy-cuda11x"]},
                           {"kind": "pip-install", "args": ["install", "cupy-cuda12x"]}], "its fix as actions: %s" % f["actions"])
    check("`pip install cupy-cuda12x`" in f["fix"] and "nvidia-cuda-runtime-cu11" not in f["fix"], "the fix in words: " + f["fix"])

    print("# a CUDA 11.8 folder on LD_LIBRARY_PATH: the import works, doctor warns with the consumer's fix")
    cuda118 = os.path.join(e.work, "cuda-11.8", "lib64")
    os.makedirs(cuda118)
    shutil.copyfile(standins.cuda_runtime_library(e.lib, 11), os.path.join(cuda118, "libcudart.so.11.0"))
    e.vars["LD_LIBRARY_PATH"] = cuda118
    check(e.real() == "loads", "with CUDA 11.8 on LD_LIBRARY_PATH, import cupy loads")
    rc118, doc118 = e.doctor()
    foreign = [x for x in doc118["findings"] if x["code"] == "foreign-cuda-major"]
    # The env still mixes majors (an error, misaligned, with the consumer's fix); the CUDA 11 runtime
    # from outside is how it loads: a warning, not a second error.
    errors = [x for x in doc118["findings"] if x["severity"] == "error"]
    check(rc118 == 1 and [x["code"] for x in errors] == ["misaligned"] and "`pip install cupy-cuda12x`" in errors[0]["fix"],
          "doctor: one error, misaligned, with the consumer's fix (%s)" % [(x["code"], x["severity"]) for x in doc118["findings"]])
    check(len(foreign) == 1 and foreign[0]["severity"] == "warning", "foreign-cuda-major is a warning")
    check(foreign[0]["title"].startswith("cupy-cuda11x 12.3.0 is built for CUDA 11 and takes libcudart.so.11.0 from " + cuda118),
          "it names the consumer and the folder: " + foreign[0]["title"])
    check("`pip install cupy-cuda12x`" in foreign[0]["fix"] and not any("same soname" in x for x in foreign[0]["evidence"]),
          "the consumer's fix, and no false 'same soname' line")
    del e.vars["LD_LIBRARY_PATH"]

    note = "the old advice followed: nvidia-cuda-runtime-cu11 installed"
    print("# " + note)
    e.pip("install", "nvidia-cuda-runtime-cu11")
    check(e.real() == "loads", "with a CUDA 11 runtime in the env, the import loads")
    rc2, doc2 = e.doctor()
    errors = [x for x in doc2["findings"] if x["severity"] == "error"]
    fixes = [x["fix"] for x in errors]
    check(any("`pip install cupy-cuda12x`" in x for x in fixes),
          "doctor then points at the consumer again, not at uninstalling the runtime alone: %s" % fixes)
    e.pip("uninstall", "nvidia-cuda-runtime-cu11")

    seen = [json.dumps(sorted(x["code"] + x["title"] for x in doc["findings"]))]
    for step in range(1, 4):
        e.follow(first_error(doc))
        rc, doc = e.doctor()
        state = json.dumps(sorted(x["code"] + x["title"] for x in doc["findings"]))
        check(state not in seen, "step %d reaches a state not seen before" % step)
        seen.append(state)
        if rc == 0:
            break
    check(rc == 0, "healthy after %d step(s)" % step)
    check(e.real() == "loads", "and the real import works")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
