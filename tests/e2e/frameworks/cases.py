#!/usr/bin/env python3
"""Named program cases (issue 49), each against the real import:

    cases.py CASE CONDACUDA WORKDIR

false-alarm   torch 2.6's own preloads open the env's nvJitLink first: with an
              older one on LD_LIBRARY_PATH `import torch` works, and doctor
              says so (exit 0; the bare cuSPARSE failure a warning naming the
              process that would still fail). torch 2.5.1 in the same env
              fails, and doctor says that, with the real error.
user-site     an old nvidia-nvjitlink-cu12 in the user site: torch 2.6
              preloads it (the first sys.path folder with nvidia/nvjitlink),
              `import torch` fails with the seed's undefined symbol; doctor
              exits 1 naming the wheel and `pip uninstall -y` (the user site's copy is first); repair
              does not call the env healthy; once the wheel is gone the
              import and doctor agree again.
pythonpath    the same wheel in a PYTHONPATH folder: the fix names the entry.
imports       doctor --imports: ALONE is each item imported by itself, and a
              framework item runs its recipe in the sequence.
contexts      torch 2.5.1 with an older nvJitLink on LD_LIBRARY_PATH, repaired:
              activated (the hook sourced by a real shell) the import loads,
              without activation it fails; doctor says both, per program.
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standins  # noqa: E402
import text_rules  # noqa: E402

PROBE = ("import sys\ntry:\n    import torch\n    print('loads')\nexcept BaseException as e:\n"
         "    print('fails', type(e).__name__ + ': ' + str(e))\n")


def check(cond, what):
    if not cond:
        raise SystemExit("FAIL: " + what)
    print("ok: " + what)


class Case:
    def __init__(self, condacuda, work, release="2.6.0", kind="venv", system_site=True):
        self.condacuda = condacuda
        self.work = work
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        self.lib = standins.Libraries(os.path.join(work, "build"))
        self.env = os.path.join(work, "env")
        self.site = standins.make_env(self.env, kind=kind, system_site=system_site)
        self.tk = self.lib.toolkit(12, "$ORIGIN/../../nvjitlink/lib:$ORIGIN")
        standins.cuda_wheels(self.site, self.tk, 12, list(self.tk))
        standins.torch_package(self.site, self.lib, 12, release, "12.4")
        self.home = os.path.join(work, "home")
        os.makedirs(self.home)
        self.vars = {"PATH": "/usr/bin:/bin", "HOME": self.home, "XDG_CACHE_HOME": os.path.join(work, "cache")}

    def system_nvjitlink(self):
        d = os.path.join(self.work, "cuda-12.0", "lib64")
        os.makedirs(d)
        shutil.copyfile(self.lib.nvjitlink(12, True), os.path.join(d, "libnvJitLink.so.12"))
        return d

    def old_wheel(self, site):
        tk = dict(self.tk)
        tk["nvjitlink"] = [self.lib.nvjitlink(12, True)]
        os.makedirs(site, exist_ok=True)
        standins.cuda_wheels(site, tk, 12, ["nvjitlink"], old={"nvjitlink"})

    def real(self):
        r = subprocess.run([os.path.join(self.env, "bin", "python3"), "-c", PROBE], capture_output=True, text=True,
                           env=self.vars, cwd=self.home)
        return r.stdout.strip()

    def condacuda_run(self, *args):
        return subprocess.run([self.condacuda, *args], capture_output=True, text=True, env=self.vars, cwd=self.home)

    def doctor(self, *extra):
        """doctor --json, and its text view held to the layout rules (text_rules.py)."""
        return text_rules.doctor_both(lambda argv: self.condacuda_run(*argv), "-p", self.env, *extra)


def program(doc, name="torch"):
    return next(p for p in doc["programs"] if p["framework"] == name)


def false_alarm(condacuda, work):
    c = Case(condacuda, os.path.join(work, "2.6"))
    c.vars["LD_LIBRARY_PATH"] = c.system_nvjitlink()
    check(c.real() == "loads", "import torch 2.6 loads with an older nvJitLink on LD_LIBRARY_PATH")
    rc, doc = c.doctor()
    check(rc == 0, "doctor exits 0 (%d)" % rc)
    check(program(doc)["verdict"] == "loads" and program(doc)["recipe"] == "torch-2.6", "doctor: import torch loads (torch-2.6)")
    preloads = [o for o in program(doc)["opens"] if o["step"] == "preload"]
    check([os.path.basename(o["path"]) for o in preloads] == ["libnvrtc.so.12", "libnvJitLink.so.12"],
          "the recipe preloads nvrtc then nvJitLink: %s" % [o["path"] for o in preloads])
    sym = [f for f in doc["findings"] if f["code"] == "undefined-symbol"]
    check(len(sym) == 1 and sym[0]["severity"] == "warning", "the bare cuSPARSE failure is one warning")
    check("without importing the framework first" in sym[0]["evidence"][0], "it names the process that still fails")
    text = c.condacuda_run("doctor", "-p", c.env).stdout
    check("import torch (2.6.0+cu124): loads" in text, "the text's headline: import torch (2.6.0+cu124): loads")
    old = Case(condacuda, os.path.join(work, "2.5.1"), release="2.5.1")
    old.vars["LD_LIBRARY_PATH"] = old.system_nvjitlink()
    real = old.real()
    check(real.startswith("fails ImportError: ") and "__nvJitLinkAddData_12_1" in real, "import torch 2.5.1 fails: " + real)
    rc, doc = old.doctor()
    check(rc == 1, "doctor exits 1 for torch 2.5.1")
    check(program(doc)["verdict"] == "fails" and "fails " + program(doc)["error"] == real,
          "doctor's torch 2.5.1 error is the real one: " + program(doc)["error"])


def user_site(condacuda, work):
    # A conda env: its python's site.py puts the user site before the env's site-packages (a venv's comes after).
    c = Case(condacuda, work, kind="conda")
    ver = "%d.%d" % sys.version_info[:2]
    c.old_wheel(os.path.join(c.home, ".local", "lib", "python" + ver, "site-packages"))
    real = c.real()
    check(real.startswith("fails ImportError: ") and "__nvJitLinkAddData_12_1, version libnvJitLink.so.12" in real,
          "import torch fails with the seed's undefined symbol: " + real)
    rc, doc = c.doctor()
    check(rc == 1, "doctor exits 1 (healthy before this wave)")
    check("fails " + program(doc)["error"] == real, "doctor's error is the real one")
    fails = [f for f in doc["findings"] if f["code"] == "import-fails"]
    check(len(fails) == 1 and fails[0]["actions"] == [{"kind": "pip-uninstall", "args": ["uninstall", "-y", "nvidia-nvjitlink-cu12"]}]
          and fails[0]["fix"].startswith("`pip uninstall -y nvidia-nvjitlink-cu12` with the env's pip"),
          "import-fails names the wheel: %s" % (fails[0]["fix"] if fails else None))
    check(any("the user site" in e for e in fails[0]["evidence"]), "and says it came from the user site")
    check(not any("repair" in f["fix"] or "--pin" in f["fix"] for f in fails), "no repair or pin is offered for it")
    outside = [f for f in doc["findings"] if f["code"] == "outside-wheel"]
    check(len(outside) == 1 and "12.0.140" in outside[0]["title"], "outside-wheel: the user site's 12.0.140 differs")
    for args in (["repair", "-p", c.env], ["repair", "-p", c.env, "--pin"]):
        r = c.condacuda_run(*args)
        check(r.returncode != 0 and "healthy" not in r.stdout.splitlines()[-1:][0] if r.stdout.strip() else r.returncode != 0,
              "`condacuda %s` does not call it healthy (exit %d)" % (" ".join(args[:1] + args[3:]), r.returncode))
    r = c.condacuda_run("info", "-p", c.env, "--json")
    info = json.loads(r.stdout)
    check([f["recipe"] for f in info["frameworks"]] == ["torch-2.6"], "info: torch with recipe torch-2.6")
    check(any(l["wheel"] == "nvidia-nvjitlink-cu12" and l["version"] == "12.0.140" for l in info["sys_path_libraries"]),
          "info lists the user site's nvJitLink wheel")
    shutil.rmtree(os.path.join(c.home, ".local"))  # what `pip uninstall -y` does here (the user site first on sys.path)
    check(c.real() == "loads", "without the user site's wheel the import loads")
    rc, doc = c.doctor()
    check(rc == 0 and program(doc)["verdict"] == "loads", "and doctor agrees (exit %d)" % rc)


def pythonpath(condacuda, work):
    c = Case(condacuda, work, kind="venv", system_site=False)
    pp = os.path.join(work, "extra")
    c.old_wheel(pp)
    c.vars["PYTHONPATH"] = pp
    real = c.real()
    check(real.startswith("fails ImportError: "), "import torch fails with the old wheel on PYTHONPATH: " + real)
    rc, doc = c.doctor()
    fails = [f for f in doc["findings"] if f["code"] == "import-fails"]
    check(rc == 1 and len(fails) == 1 and fails[0]["fix"].startswith("remove '%s' from PYTHONPATH" % pp),
          "the fix names the PYTHONPATH entry: %s" % (fails[0]["fix"] if fails else None))
    del c.vars["PYTHONPATH"]
    check(c.real() == "loads", "without it the import loads")
    rc, doc = c.doctor()
    check(rc == 0, "and doctor exits 0")


def imports(condacuda, work):
    c = Case(condacuda, work)
    c.vars["LD_LIBRARY_PATH"] = c.system_nvjitlink()
    jit = os.path.join(c.site, "nvidia/nvjitlink/lib/libnvJitLink.so.12")
    cusparse = os.path.join(c.site, "nvidia/cusparse/lib/libcusparse.so.12")
    rc, doc = c.doctor("--imports", "global:%s,%s" % (jit, cusparse))
    steps = doc["imports"]
    check([s["verdict"] for s in steps] == ["loads", "loads"], "cuSPARSE loads after the env's nvJitLink")
    check(steps[1]["loads_alone"] is False, "ALONE: cuSPARSE by itself fails (the column was the in-sequence verdict)")
    probe = os.environ.get("CONDACUDA_DLOPEN_PROBE")
    if probe:
        r = subprocess.run([probe, cusparse], capture_output=True, text=True, env=c.vars)
        check(r.stdout.startswith("ERR"), "the real ld.so agrees: cuSPARSE alone fails")
    rc, doc = c.doctor("--imports", "torch,%s" % cusparse)
    steps = doc["imports"]
    check(steps[0]["file"] == "import torch (2.6.0+cu124)" and steps[0]["verdict"] == "loads", "a framework item runs its recipe")
    check(steps[1]["verdict"] == "loads" and steps[1]["loads_alone"] is False,
          "cuSPARSE loads after import torch (its nvJitLink preload), not alone")
    r = c.condacuda_run("doctor", "-p", c.env, "--imports", "cupy")
    check(r.returncode == 2 and "finds no cupy" in r.stderr, "a framework the env does not have: bad input (%d)" % r.returncode)


def contexts(condacuda, work):
    c = Case(condacuda, work, release="2.5.1", kind="conda")
    c.vars["LD_LIBRARY_PATH"] = c.system_nvjitlink()
    check(c.real().startswith("fails "), "import torch 2.5.1 fails before the repair")
    r = c.condacuda_run("repair", "-p", c.env)
    check(r.returncode == 0, "repair exits 0 (%d: %s)" % (r.returncode, r.stdout[-400:]))
    hook = os.path.join(c.env, "etc", "conda", "activate.d", "condacuda.sh")
    activated = subprocess.run(["bash", "-c", 'CONDA_PREFIX="$1"; export CONDA_PREFIX; . "$2"; exec "$1/bin/python3" -c "$3"',
                                "sh", c.env, hook, PROBE], capture_output=True, text=True, env=c.vars, cwd=c.home).stdout.strip()
    check(activated == "loads", "activated (the hook sourced by bash) import torch loads: " + activated)
    check(c.real().startswith("fails "), "without activation it still fails")
    rc, doc = c.doctor()
    p = program(doc)
    check(doc["context"] == "both" and p["contexts"]["activated"]["verdict"] == "loads", "doctor: activated, import torch loads")
    check(p["contexts"]["not-activated"]["verdict"] == "fails" and "fails " + p["contexts"]["not-activated"]["error"] == c.real(),
          "doctor: not activated, it fails with the real error")
    na = [f for f in doc["findings"] if f["code"] == "not-activated"]
    check(rc == 0 and len(na) == 1 and na[0]["severity"] == "warning" and "import torch (2.5.1+cu124)" in na[0]["affects"],
          "a not-activated warning names the import (exit %d)" % rc)
    r = c.condacuda_run("doctor", "-p", c.env, "--context", "not-activated", "--json")
    check(r.returncode == 1, "--context not-activated: the failing import is an error (exit %d)" % r.returncode)


def main():
    case, condacuda, work = sys.argv[1:4]
    {"false-alarm": false_alarm, "user-site": user_site, "pythonpath": pythonpath, "imports": imports,
     "contexts": contexts}[case](condacuda, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
