#!/usr/bin/env python3
"""Advice that converges (issue 51): follow doctor's first fix mechanically.

    converge.py CONDACUDA WORKDIR

On each scenario of a corpus of broken envs (torch 2.5.1 and 2.6 stand-ins,
cupy-cuda11x, venv and conda-style envs; an old CUDA 12.0 folder on
LD_LIBRARY_PATH, an old nvJitLink wheel in the user site, on PYTHONPATH or
in the env, a missing wheel, a stray CUDA 11 runtime, a consumer built for
CUDA 11), the harness runs `doctor --json`, takes the first error finding's
`actions` and applies them: `repair` runs condacuda repair and activates the
env (bash sources its activate.d, as `conda activate` does), `pip-install` and
`pip-uninstall` are played with stand-in wheels, `remove-path-entry` edits
the variable. It asserts, per scenario: healthy within 3 steps, never a state
seen before, the real import working at the end (in the activated shell when
a repair ran). Prints the figure: "N/N converge, median K step(s)".

Each state's default text view (doctor's, and repair's where a step runs it)
is held to the layout rules too (text_rules.py): within 100 columns, no
loader terms, the error said once, each step alone on a line as a command.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standins  # noqa: E402
import text_rules  # noqa: E402

MAX_STEPS = 3
WHEEL_COMPONENT = {name: comp for comp, (name, _) in standins.CU12_WHEELS.items()}
BASE = ["cuda_runtime", "cuda_nvrtc", "nvjitlink", "cublas", "cusparse", "cudnn", "cufft", "curand", "nccl"]


class Scenario:
    def __init__(self, harness, name, kind="venv", framework="torch-2.5.1"):
        self.h, self.name, self.kind, self.framework = harness, name, kind, framework
        self.work = os.path.join(harness.work, name)
        self.env = os.path.join(self.work, "env")
        self.site = standins.make_env(self.env, kind=kind, system_site=False)
        self.home = os.path.join(self.work, "home")
        os.makedirs(self.home)
        self.vars = {"PATH": "/usr/bin:/bin", "HOME": self.home, "XDG_CACHE_HOME": os.path.join(self.work, "cache"),
                     "PYTHONDONTWRITEBYTECODE": "1"}
        self.activated = False
        standins.cuda_wheels(self.site, harness.tk, 12, BASE)
        if framework.startswith("torch-"):
            standins.torch_package(self.site, harness.lib, 12, framework[6:], "12.4")
            self.module = "torch"
        else:
            self.h.pip(self, "install", framework)
            self.module = "cupy"

    # What the scenario breaks.
    def old_cuda_folder(self, with_cublaslt=False, nvjitlink=True):
        d = os.path.join(self.work, "cuda-12.0", "lib64")
        os.makedirs(d, exist_ok=True)
        if nvjitlink:
            shutil.copyfile(self.h.lib.nvjitlink(12, True), os.path.join(d, "libnvJitLink.so.12"))
        if with_cublaslt:
            shutil.copyfile(self.h.lib.cublaslt(12, True), os.path.join(d, "libcublasLt.so.12"))
        self.vars["LD_LIBRARY_PATH"] = d
        return self

    def old_nvjitlink_wheel(self, where):
        site = {"user": os.path.join(self.home, ".local", "lib", "python%d.%d" % sys.version_info[:2], "site-packages"),
                "pythonpath": os.path.join(self.work, "pythonpath"), "env": self.site}[where]
        os.makedirs(site, exist_ok=True)
        if where == "env":
            self.h.uninstall(site, "nvidia-nvjitlink-cu12")
        tk = dict(self.h.tk)
        tk["nvjitlink"] = [self.h.lib.nvjitlink(12, True)]
        standins.cuda_wheels(site, tk, 12, ["nvjitlink"], old={"nvjitlink"})
        if where == "pythonpath":
            self.vars["PYTHONPATH"] = site
        return self

    def without(self, wheel):
        self.h.uninstall(self.site, wheel)
        return self

    def stray_cu11_runtime(self):
        self.h.pip(self, "install", "nvidia-cuda-runtime-cu11")
        return self

    # The loop.
    def shell(self, argv):
        """argv in this scenario's environment; activated: the env's activate.d sourced first, as conda does."""
        env = dict(self.vars)
        # (standins' venv has conda-meta too: condacuda takes it for a conda env and writes hooks)
        if self.activated and os.path.isdir(os.path.join(self.env, "etc", "conda", "activate.d")):
            script = 'export CONDA_PREFIX="$1"; shift; for f in "$CONDA_PREFIX"/etc/conda/activate.d/*.sh; do . "$f"; done; exec "$@"'
            argv = ["bash", "-c", script, "shell", self.env] + argv
        return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=self.home, timeout=300)

    def doctor(self):
        r = self.shell([self.h.condacuda, "doctor", "-p", self.env, "--json"])
        if r.returncode not in (0, 1):
            raise SystemExit("FAIL %s: doctor exited %d: %s" % (self.name, r.returncode, r.stderr.strip()))
        doc = json.loads(r.stdout)
        t = self.shell([self.h.condacuda, "doctor", "-p", self.env])
        if t.returncode != r.returncode:
            raise SystemExit("FAIL %s: doctor's text view exited %d, its --json %d" % (self.name, t.returncode, r.returncode))
        self.h.check_text("%s: doctor" % self.name, t.stdout, doc)
        return r.returncode, doc

    def real(self):
        code = "try:\n    import %s\n    print('loads')\nexcept BaseException as e:\n    print('fails', e)\n" % self.module
        return self.shell([os.path.join(self.env, "bin", "python3"), "-c", code]).stdout.strip()

    def apply(self, action):
        kind, args = action["kind"], action["args"]
        if kind == "repair":
            r = self.shell([self.h.condacuda, "repair", "-p"] + args)
            if r.returncode != 0:
                raise SystemExit("FAIL %s: repair exited %d: %s" % (self.name, r.returncode, r.stdout[-600:]))
            self.h.check_text("%s: repair" % self.name, r.stdout)
            self.activated = True  # then `conda activate` (venv: nothing to activate, the repair pinned)
        elif kind in ("pip-install", "pip-uninstall"):
            self.h.pip(self, *args)
        elif kind == "activate":  # conda deactivate; conda activate PREFIX: the hook sourced again
            self.activated = True
        elif kind == "remove-path-entry":
            var, entry = args
            kept = [e for e in self.vars.get(var, "").split(":") if e and e != entry]
            if kept:
                self.vars[var] = ":".join(kept)
            else:
                self.vars.pop(var, None)
        else:
            raise SystemExit("FAIL %s: an action the harness does not know: %s" % (self.name, action))


class Harness:
    def __init__(self, condacuda, work):
        self.condacuda, self.work = condacuda, work
        self.text_views, self.text_problems = 0, []
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        self.lib = standins.Libraries(os.path.join(work, "build"))
        self.tk = self.lib.toolkit(12, "$ORIGIN/../../nvjitlink/lib:$ORIGIN")

    def check_text(self, name, text, doc=None):
        self.text_views += 1
        self.text_problems += text_rules.violations(name, text, doc)

    @staticmethod
    def uninstall(site, name):
        standins.uninstall_wheel(site, name)

    def pip(self, s, verb, *args):
        """pip with stand-in wheels: install, install --upgrade 'name>=v', uninstall [-y] names. As pip does,
        uninstall removes the copy found first on sys.path: a conda env's site.py puts the user site before
        the env's site-packages (a venv's has none); pip uninstall has no --user (pypa/pip#5176)."""
        names = [a for a in args if not a.startswith("-")]
        user = os.path.join(s.home, ".local", "lib", "python%d.%d" % sys.version_info[:2], "site-packages")
        site = s.site
        for spec in names:
            name = spec.split(">=")[0].split("==")[0]
            if verb == "uninstall":
                has = lambda d: os.path.isdir(d) and any(x.lower().startswith(name.replace("-", "_") + "-") for x in os.listdir(d))
                self.uninstall(user if s.kind == "conda" and has(user) else site, name)
            elif verb == "install":
                if "--upgrade" in args and any(d.lower().startswith(name.replace("-", "_") + "-") for d in os.listdir(site)):
                    self.uninstall(site, name)
                self.install(s, name)
            else:
                raise SystemExit("FAIL %s: pip %s" % (s.name, verb))

    def install(self, s, name):
        if name in WHEEL_COMPONENT:
            standins.cuda_wheels(s.site, self.tk, 12, [WHEEL_COMPONENT[name]])
        elif name in ("cupy-cuda11x", "cupy-cuda12x"):
            standins.cupy_cuda_wheel(s.site, self.lib, 11 if name == "cupy-cuda11x" else 12)
        elif name == "nvidia-cuda-runtime-cu11":
            standins.cuda11_runtime_wheel(s.site, self.lib)
        else:
            raise SystemExit("FAIL %s: the harness has no stand-in wheel for %s" % (s.name, name))


def scenarios(h):
    out = []
    for kind in ("venv", "conda"):
        for fw in ("torch-2.5.1", "torch-2.6.0"):
            tag = "%s-%s" % (kind, fw)
            if fw == "torch-2.5.1":
                out.append(Scenario(h, "old-folder-" + tag, kind, fw).old_cuda_folder())
                out.append(Scenario(h, "old-folder-cublaslt-" + tag, kind, fw).old_cuda_folder(True))
                out.append(Scenario(h, "old-folder-pythonpath-" + tag, kind, fw).old_cuda_folder().old_nvjitlink_wheel("pythonpath"))
            else:  # torch 2.6 preloads nvJitLink from the first sys.path folder that has it (2.5.1 does not)
                out.append(Scenario(h, "old-cublaslt-folder-" + tag, kind, fw).old_cuda_folder(True, nvjitlink=False))
                out.append(Scenario(h, "pythonpath-" + tag, kind, fw).old_nvjitlink_wheel("pythonpath"))
                out.append(Scenario(h, "missing-nvjitlink-" + tag, kind, fw).without("nvidia-nvjitlink-cu12"))
                if kind == "conda":  # a conda env's site.py puts the user site before the env's site-packages
                    out.append(Scenario(h, "user-site-" + tag, kind, fw).old_nvjitlink_wheel("user"))
            out.append(Scenario(h, "old-wheel-" + tag, kind, fw).old_nvjitlink_wheel("env"))
            out.append(Scenario(h, "missing-cufft-" + tag, kind, fw).without("nvidia-cufft-cu12"))
        # Two causes at once: each fix leads to the next.
        out.append(Scenario(h, "old-folder-missing-cufft-%s" % kind, kind, "torch-2.5.1").old_cuda_folder().without("nvidia-cufft-cu12"))
        out.append(Scenario(h, "pythonpath-old-wheel-%s" % kind, kind, "torch-2.6.0").old_nvjitlink_wheel("pythonpath")
                   .old_nvjitlink_wheel("env"))
        out.append(Scenario(h, "cupy-cuda11x-" + kind, kind, "cupy-cuda11x"))
        out.append(Scenario(h, "cupy-cuda11x-runtime-cu11-" + kind, kind, "cupy-cuda11x").stray_cu11_runtime())
        out.append(Scenario(h, "stray-cu11-runtime-" + kind, kind, "torch-2.6.0").stray_cu11_runtime())
    return out


def run(s):
    """Steps to healthy, or raises."""
    seen = []
    for step in range(MAX_STEPS + 1):
        rc, doc = s.doctor()
        state = json.dumps(sorted((f["code"], f["title"]) for f in doc["findings"] if f["severity"] == "error"))
        if rc == 0:
            real = s.real()
            if real != "loads":
                raise SystemExit("FAIL %s: doctor healthy after %d step(s), the real import: %s" % (s.name, step, real))
            return step
        if state in seen:
            raise SystemExit("FAIL %s: step %d is back to a state seen before: %s" % (s.name, step, state))
        seen.append(state)
        if step == MAX_STEPS:
            break
        first = next(f for f in doc["findings"] if f["severity"] == "error")
        if not first["actions"]:
            raise SystemExit("FAIL %s: step %d: the first error has no actions: %s: %s; fix: %s"
                             % (s.name, step, first["code"], first["title"], first["fix"]))
        for a in first["actions"]:
            s.apply(a)
        print("  %s step %d: %s -> %s" % (s.name, step + 1, first["code"], [a["kind"] for a in first["actions"]]), flush=True)
    raise SystemExit("FAIL %s: not healthy within %d steps: %s" % (s.name, MAX_STEPS, seen[-1]))


def main(condacuda, work):
    h = Harness(condacuda, work)
    corpus = scenarios(h)
    for s in corpus:  # broken: the import fails, or (an env that mixes CUDA majors) doctor finds an error
        if s.real() == "loads" and s.doctor()[0] == 0:
            raise SystemExit("FAIL %s: the scenario is not broken: the import loads and doctor is healthy" % s.name)
    steps = {s.name: run(s) for s in corpus}
    for p in h.text_problems:
        print("FAIL: " + p)
    if h.text_problems:
        raise SystemExit("FAIL: %d rule(s) of the text view broken in %d views" % (len(h.text_problems), h.text_views))
    print("%d text views (doctor's, repair's) within the layout rules" % h.text_views)
    print("%d/%d converge, median %g step(s), at most %d" % (len(steps), len(corpus), statistics.median(steps.values()),
                                                             max(steps.values())))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
