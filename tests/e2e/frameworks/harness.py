#!/usr/bin/env python3
"""doctor's program verdicts against the real import, on random envs.

    harness.py CONDACUDA WORKDIR [COUNT] [SEED]

Builds COUNT (default 300) envs from the stand-ins (standins.py): a random
framework release (torch 2.1 to 2.14, the JAX CUDA plugin 0.4.30 to 0.11,
CuPy 13 and 14 with cuda-pathfinder), CUDA 12 or 13 wheels with some
libraries missing or old (nvJitLink, cuBLASLt, nvrtc, cuDNN), a random
LD_LIBRARY_PATH (older system copies), PYTHONPATH and user site (old wheels
there), a venv or a conda-style env. In each, the env's real python runs the
framework's statement (`import torch`, `jax.default_backend()`, `import
cupy`) and `condacuda doctor --json` judges it with the same environment:
the verdict, the exception and its text (the first failing file and symbol,
sys.path in torch's ValueError) must be the same. Prints a line per env
and the agreement figure; exits 1 on any disagreement, or when the envs do
not exercise both outcomes."""
import json
import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standins  # noqa: E402

TORCH = ["2.1.2", "2.3.1", "2.4.1", "2.5.0", "2.5.1", "2.6.0", "2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.12.0", "2.14.1"]
JAX = ["0.4.30", "0.6.1", "0.6.2", "0.7.0", "0.11.0"]
CUPY = ["13.6.0", "14.2.0"]
# The interpreters the envs are made from: the one running this, and Debian's
# (its site.py differs: dist-packages) when it is another.
PYTHONS = [sys.executable] + [p for p in ["/usr/bin/python3"]
                              if os.path.exists(p) and os.path.realpath(p) != os.path.realpath(sys.executable)]

PROBE = r"""
import json, sys
what = sys.argv[1]
out = {"verdict": "loads", "exception": None, "message": None}
try:
    if what == "jax":
        import jax
        if jax.default_backend() != "gpu":
            kind, _, msg = jax._why.partition(": ")
            out = {"verdict": "cpu-fallback", "exception": kind, "message": msg}
    else:
        __import__(what)
except BaseException as e:
    out = {"verdict": "fails", "exception": type(e).__name__, "message": str(e)}
print(json.dumps(out))
"""


class World:
    """What every env shares: the compiled libraries, older system copies, old wheels."""

    def __init__(self, work):
        self.work = work
        self.lib = standins.Libraries(work)
        self.system = {}
        for m in (12, 13):
            old_jit, old_lt = self.lib.nvjitlink(m, True), self.lib.cublaslt(m, True)
            tk = self.lib.toolkit(m)
            dirs = {"old-nvjitlink": [old_jit], "old-cublaslt": [old_lt],
                    "new": [tk["nvjitlink"][0], tk["cublas"][1], tk["cuda_runtime"][0], tk["cuda_nvrtc"][0]]}
            for name, files in dirs.items():
                d = os.path.join(work, "system", "cuda%d-%s" % (m, name), "lib64")
                os.makedirs(d, exist_ok=True)
                for f in files:
                    shutil.copyfile(f, os.path.join(d, os.path.basename(f)))
                self.system[(m, name)] = d

    def old_wheel(self, site, m, comp):
        """An old nvJitLink or cuBLAS wheel in `site` (a PYTHONPATH folder, the user site)."""
        tk = dict(self.lib.toolkit(m))
        if comp == "nvjitlink":
            tk["nvjitlink"] = [self.lib.nvjitlink(m, True)]
        else:
            tk["cublas"] = [tk["cublas"][0], self.lib.cublaslt(m, True)]
        os.makedirs(site, exist_ok=True)
        standins.cuda_wheels(site, tk, m, [comp], old={comp})


def scenario(rng, n):
    fw = rng.choices(["torch", "jax", "cupy"], weights=[7, 2, 1])[0]
    release = rng.choice({"torch": TORCH, "jax": JAX, "cupy": CUPY}[fw])
    major = 12
    if fw == "torch" and tuple(map(int, release.split(".")[:2])) >= (2, 9) and rng.random() < 0.35:
        major = 13
    if fw == "jax" and tuple(map(int, release.split(".")[:2])) >= (0, 7) and rng.random() < 0.3:
        major = 13
    s = {"n": n, "framework": fw, "release": release, "major": major,
         "kind": rng.choice(["venv", "venv-system", "conda"]),
         "nvjitlink": rng.choices(["new", "old", "missing"], weights=[75, 15, 10])[0],
         "cublaslt": rng.choices(["new", "old"], weights=[85, 15])[0],
         "missing": [c for c in ("cuda_nvrtc", "cudnn", "cusparselt", "cufile", "nvshmem", "nvtx") if rng.random() < 0.12] +
                    (["cuda_runtime"] if rng.random() < 0.08 else []),
         "no_kernels": fw == "jax" and rng.random() < 0.1,
         "python": rng.choice(PYTHONS),
         "cusparse_runpath": rng.choice(["$ORIGIN/../../nvjitlink/lib:$ORIGIN", "$ORIGIN"]),
         "cudnn_finds_nvrtc": rng.random() < 0.8,
         "ld_library_path": [d for d in ("old-nvjitlink", "old-cublaslt", "new") if rng.random() < 0.3],
         "pythonpath": rng.choices([None, "nvjitlink", "cublas", "empty"], weights=[60, 20, 10, 10])[0],
         "user_site": rng.choices([None, "nvjitlink", "cublas"], weights=[60, 25, 15])[0]}
    rng.shuffle(s["ld_library_path"])
    return s


def build(world, s, root):
    m = s["major"]
    kind = s["kind"]
    env = os.path.join(root, "env")
    site = standins.make_env(env, s["python"], kind="conda" if kind == "conda" else "venv", system_site=kind == "venv-system")
    runpath = "$ORIGIN" if m == 13 else s["cusparse_runpath"]
    tk = dict(world.lib.toolkit(m, runpath, s["cudnn_finds_nvrtc"]))
    old = set()
    if s["nvjitlink"] == "old":
        tk["nvjitlink"] = [world.lib.nvjitlink(m, True)]
        old.add("nvjitlink")
    if s["cublaslt"] == "old":
        tk["cublas"] = [tk["cublas"][0], world.lib.cublaslt(m, True)]
        old.add("cublas")
    comps = [c for c in tk if c not in s["missing"] and not (c == "nvjitlink" and s["nvjitlink"] == "missing")]
    standins.cuda_wheels(site, tk, m, comps, old=old)
    if s["framework"] == "torch":
        standins.torch_package(site, world.lib, m, s["release"], "%d.%d" % (m, 4 if m == 12 else 0))
    elif s["framework"] == "jax":
        standins.jax_packages(site, world.lib, m, s["release"])
        if s["no_kernels"]:  # the pjrt wheel without jax-cuda-plugin: _versions cannot be imported
            shutil.rmtree(os.path.join(site, "jax_cuda%d_plugin" % m))
    else:
        standins.cupy_package(site, world.lib, m, s["release"])
        standins.cutensor_wheel(site, world.lib, m)
    home = os.path.join(root, "home")
    os.makedirs(home)
    variables = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_CACHE_HOME": os.path.join(world.work, "cache")}
    if s["ld_library_path"]:
        variables["LD_LIBRARY_PATH"] = ":".join(world.system[(m, d)] for d in s["ld_library_path"])
    if s["pythonpath"]:
        pp = os.path.join(root, "pythonpath")
        os.makedirs(pp)
        if s["pythonpath"] != "empty":
            world.old_wheel(pp, m, s["pythonpath"])
        variables["PYTHONPATH"] = pp
    if s["user_site"]:
        ver = subprocess.run([s["python"], "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True,
                             text=True, check=True).stdout.strip()
        world.old_wheel(os.path.join(home, ".local", "lib", "python" + ver, "site-packages"), m, s["user_site"])
    return env, variables


def real(env, variables, cwd, fw):
    r = subprocess.run([os.path.join(env, "bin", "python3"), "-c", PROBE, fw], capture_output=True, text=True, env=variables,
                       cwd=cwd, timeout=120)
    if r.returncode != 0 or not r.stdout.strip():
        raise SystemExit("the probe did not run: %s" % r.stderr)
    return json.loads(r.stdout.strip().splitlines()[-1])


def model(condacuda, env, variables, cwd, fw):
    r = subprocess.run([condacuda, "doctor", "-p", env, "--json"], capture_output=True, text=True, env=variables, cwd=cwd,
                       timeout=120)
    if r.returncode not in (0, 1):
        raise SystemExit("doctor exited %d: %s" % (r.returncode, r.stderr))
    doc = json.loads(r.stdout)
    for p in doc["programs"]:
        if p["framework"] == fw:
            error = p["error"] or ""
            exception, _, message = error.partition(": ") if p["exception"] else ("", "", "")
            return {"verdict": p["verdict"], "exception": p["exception"], "message": message if p["exception"] else None}, doc
    return {"verdict": "absent", "exception": None, "message": None}, doc


def main():
    condacuda, work = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 49
    os.makedirs(work, exist_ok=True)
    world = World(work)
    rng = random.Random(seed)
    bad, outcomes, exceptions = 0, {}, {}
    for n in range(count):
        s = scenario(rng, n)
        root = os.path.join(work, "envs", str(n))
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        env, variables = build(world, s, root)
        cwd = os.path.join(root, "home")
        r = real(env, variables, cwd, s["framework"])
        m, _ = model(condacuda, env, variables, cwd, s["framework"])
        same = r == m
        bad += not same
        outcomes[r["verdict"]] = outcomes.get(r["verdict"], 0) + 1
        if r["exception"]:
            exceptions[r["exception"]] = exceptions.get(r["exception"], 0) + 1
        desc = "%s %s %s cu%d %s jit=%s lt=%s miss=%s llp=%s pp=%s user=%s" % (
            os.path.basename(os.path.realpath(s["python"])) + ("(debian)" if not standins.upstream_site_py(s["python"]) else ""),
            s["framework"], s["release"], s["major"], s["kind"], s["nvjitlink"], s["cublaslt"], ",".join(s["missing"]) or "-",
            ",".join(s["ld_library_path"]) or "-", s["pythonpath"] or "-", s["user_site"] or "-")
        print("%s %3d %s -> %s" % ("same" if same else "DIFF", n, desc, r["verdict"]))
        if not same:
            print("   real:  %s\n   model: %s" % (r, m))
        else:
            shutil.rmtree(root, ignore_errors=True)
    summary = ", ".join("%d %s" % (v, k) for k, v in sorted(outcomes.items()))
    print("programs: %d envs, %d agree (%s; exceptions %s), %d disagreements" % (
        count, count - bad, summary, ", ".join("%s %d" % kv for kv in sorted(exceptions.items())) or "none", bad))
    if count >= 50 and (outcomes.get("loads", 0) < count // 10 or outcomes.get("fails", 0) < count // 10):
        print("the envs do not exercise both outcomes enough")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
