"""Stand-in NVIDIA libraries and framework packages for condacuda's program tests.

Everything is compiled here with gcc: libraries with real sonames, version
nodes and versioned references (an old nvJitLink lacks what cuSPARSE
references, an old cuBLASLt what cuBLAS references), laid out as NVIDIA's
wheels lay them out (CUDA 12: nvidia/<component>/lib; CUDA 13: nvidia/cu13/lib
for the toolkit), with dist-info folders whose RECORD lists the files. The
framework packages (torch, the JAX CUDA plugin, CuPy with cuda-pathfinder)
run, in Python, the loading steps of the release they claim
(torch_init.py, jax_plugin.py, cupy_init.py, pathfinder_init.py beside this
file; docs/frameworks.md cites the sources).

    lib = Libraries(work, python)         # compiles once, reused by every env
    env = EnvBuilder(lib, path, major=12).python(...).cuda(...).torch("2.6.0")
"""
import base64
import functools
import json
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(*args):
    subprocess.run(args, check=True)


class Libraries:
    """Every stand-in library, compiled once into work/libs/<variant>/."""

    def __init__(self, work, python=sys.executable):
        self.work = os.path.join(work, "libs")
        self.python = python
        info = subprocess.run([python, "-c", "import sysconfig, sys; print(sysconfig.get_paths()['include']); "
                               "print(sysconfig.get_config_var('EXT_SUFFIX')); print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, check=True).stdout.split()
        self.include, self.ext_suffix, self.pyver = info
        self.built = {}
        os.makedirs(self.work, exist_ok=True)

    def compile(self, key, soname, exports=(), uses=(), link=(), runpath=None, node=None, python_module=None, extra_c=""):
        """A shared library: `exports` defined (in version node `node`),
        `uses` referenced (resolved against the libraries in `link`, so that
        their versions are recorded), DT_RUNPATH `runpath`."""
        if key in self.built:
            return self.built[key]
        out_dir = os.path.join(self.work, key)
        os.makedirs(out_dir, exist_ok=True)
        src = os.path.join(out_dir, "src.c")
        lines = ["#include <stddef.h>"]
        if python_module:
            lines.insert(0, "#define PY_SSIZE_T_CLEAN\n#include <Python.h>")
        lines += ["int %s(void) { return 0; }" % s for s in exports]
        lines += ["int %s(void);" % s for s in uses]
        lines.append("int condacuda_use_all(void) { int r = 0; %s return r; }" % " ".join("r += %s();" % s for s in uses))
        lines.append(extra_c)
        if python_module:
            lines.append(python_module)
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        args = ["gcc", "-shared", "-fPIC", "-O1", "-o", os.path.join(out_dir, soname), src, "-Wl,-soname," + soname]
        if python_module:
            args += ["-I" + self.include]
        if node:
            vs = os.path.join(out_dir, "vs.map")
            with open(vs, "w") as f:
                f.write("%s { global: %s; local: *; };\n" % (node, "; ".join(list(exports) + ["condacuda_use_all"])))
            args += ["-Wl,--version-script=" + vs]
        if runpath is not None:
            args += ["-Wl,--enable-new-dtags,-rpath," + runpath]
        # Every library linked is a DT_NEEDED entry, used or not (some gcc builds default to --as-needed).
        args.append("-Wl,--no-as-needed")
        for lib in link:
            args += ["-L" + os.path.dirname(lib), "-l:" + os.path.basename(lib)]
            args += ["-Wl,-rpath-link," + os.path.dirname(lib)]
        sh(*args)
        path = os.path.join(out_dir, soname)
        self.built[key] = path
        return path

    # ------------------------------------------------------------ the toolkit

    def nvjitlink(self, major, old):
        minors = [0] if old else [0, 1, 4]
        syms = ["__nvJitLinkAddData_%d_%d" % (major, m) for m in minors] + ["__nvJitLinkCreate_%d_0" % major]
        return self.compile("nvjitlink%d%s" % (major, "old" if old else ""), "libnvJitLink.so.%d" % major, syms,
                            node="libnvJitLink.so.%d" % major)

    def cublaslt(self, major, old):
        syms = ["cublasLtCreate"] + ([] if old else ["cublasLtMatmul_%d_4" % major])
        return self.compile("cublaslt%d%s" % (major, "old" if old else ""), "libcublasLt.so.%d" % major, syms,
                            node="libcublasLt.so.%d" % major)

    def toolkit(self, major, cusparse_runpath="$ORIGIN", cudnn_finds_nvrtc=True):
        """{component folder: [files]} of one CUDA major's wheels (new versions)."""
        m = major
        lt = self.cublaslt(m, False)
        jit = self.nvjitlink(m, False)
        nvrtc = self.compile("nvrtc%d" % m, "libnvrtc.so.%d" % m, ["nvrtcVersion"])
        libs = {
            "cuda_runtime": [self.compile("cudart%d" % m, "libcudart.so.%d" % m, ["cudaRuntimeGetVersion"])],
            "cuda_nvrtc": [nvrtc, self.compile("nvrtcb%d" % m, "libnvrtc-builtins.so.%d.4" % m, ["nvrtcBuiltins"])],
            "nvjitlink": [jit],
            "cublas": [self.compile("cublas%d" % m, "libcublas.so.%d" % m, ["cublasCreate"], ["cublasLtMatmul_%d_4" % m], [lt],
                                    "$ORIGIN", "libcublas.so.%d" % m), lt],
            "cusparse": [self.compile("cusparse%d%s" % (m, cusparse_runpath.replace("$", "").replace("/", "_").replace(":", "-")),
                                      "libcusparse.so.12", ["cusparseCreate"], ["__nvJitLinkAddData_%d_1" % m], [jit],
                                      cusparse_runpath, "libcusparse.so.12")],
            "cudnn": [self.compile("cudnn%d%s" % (m, "" if cudnn_finds_nvrtc else "alone"), "libcudnn.so.9", ["cudnnCreate"],
                                   ["nvrtcVersion"], [nvrtc],
                                   ("$ORIGIN/../../cuda_nvrtc/lib:$ORIGIN/../../cu13/lib:$ORIGIN" if cudnn_finds_nvrtc else "$ORIGIN"))],
            "cuda_cupti": [self.compile("cupti%d" % m, "libcupti.so.%d" % m, ["cuptiGet"])],
            "cufft": [self.compile("cufft%d" % m, "libcufft.so.%d" % (m - 1), ["cufftPlan"])],
            "curand": [self.compile("curand%d" % m, "libcurand.so.10", ["curandCreate"])],
            "cusolver": [self.compile("cusolver%d" % m, "libcusolver.so.%d" % (m - 1), ["cusolverCreate"])],
            "nccl": [self.compile("nccl%d" % m, "libnccl.so.2", ["ncclInit"])],
            "nvtx": [self.compile("nvtx%d" % m, "libnvToolsExt.so.1", ["nvtxMark"])],
            "cusparselt": [self.compile("cusparselt%d" % m, "libcusparseLt.so.0", ["cusparseLtInit"])],
            "cufile": [self.compile("cufile%d" % m, "libcufile.so.0", ["cuFileDriverOpen"])],
            "nvshmem": [self.compile("nvshmem%d" % m, "libnvshmem_host.so.3", ["nvshmem_init"])],
        }
        return libs

    def cutensor(self, major):
        return self.compile("cutensor%d" % major, "libcutensor.so.2", ["cutensorCreate"], ["cublasLtMatmul_%d_4" % major],
                            [self.cublaslt(major, False)], "$ORIGIN/../../nvidia/cublas/lib:$ORIGIN/../../nvidia/cu13/lib")

    def extension(self, key, module, needed=(), runpath=None, methods=None, prelude=""):
        """A Python extension module `module` (its last part) that needs
        `needed`; `methods` maps a function name to its C body (args in `a`)."""
        name = module.rsplit(".", 1)[-1]
        methods = methods or {"ready": "Py_RETURN_TRUE;"}
        code = prelude
        for fn, body in methods.items():
            code += "static PyObject* m_%s(PyObject* s, PyObject* a) { (void)s; (void)a; %s }\n" % (fn, body)
        code += "static PyMethodDef methods_[] = {%s{NULL, NULL, 0, NULL}};\n" % "".join(
            "{\"%s\", m_%s, METH_VARARGS, NULL}, " % (fn, fn) for fn in methods)
        code += ("static struct PyModuleDef def_ = {PyModuleDef_HEAD_INIT, \"%s\", NULL, -1, methods_, NULL, NULL, NULL, NULL};\n"
                 "PyMODINIT_FUNC PyInit_%s(void) { return PyModule_Create(&def_); }\n") % (name, name)
        return self.compile(key, name + self.ext_suffix, [], [], needed, runpath, python_module=code)


# XLA's stubs: a component loaded by soname from the _versions extension itself.
VERSIONS_LOADER = ("const char* soname; if (!PyArg_ParseTuple(a, \"s\", &soname)) return NULL; "
                   "if (dlopen(soname, RTLD_NOW | RTLD_LOCAL)) Py_RETURN_NONE; return PyUnicode_FromString(dlerror());")


def _record(site, dist, files):
    with open(os.path.join(site, dist, "RECORD"), "w") as record:
        for f in files:
            data = open(os.path.join(site, f), "rb").read()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.write("%s,sha256=%s,%d\n" % (f, digest, len(data)))
        record.write("%s/RECORD,,\n" % dist)


def wheel(site, name, version, files):
    """A dist-info folder in `site` for `files` (relative to site)."""
    dist = "%s-%s.dist-info" % (name.replace("-", "_"), version)
    os.makedirs(os.path.join(site, dist), exist_ok=True)
    with open(os.path.join(site, dist, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version))
    with open(os.path.join(site, dist, "INSTALLER"), "w") as f:
        f.write("pip\n")
    _record(site, dist, files)


def place(site, rel, src):
    dst = os.path.join(site, rel)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)
    return rel


CU12_WHEELS = {"cuda_runtime": ("nvidia-cuda-runtime-cu12", "12.4.127"), "cuda_nvrtc": ("nvidia-cuda-nvrtc-cu12", "12.4.127"),
               "nvjitlink": ("nvidia-nvjitlink-cu12", "12.4.127"), "cublas": ("nvidia-cublas-cu12", "12.4.5.8"),
               "cusparse": ("nvidia-cusparse-cu12", "12.3.1.170"), "cudnn": ("nvidia-cudnn-cu12", "9.1.0.70"),
               "cuda_cupti": ("nvidia-cuda-cupti-cu12", "12.4.127"), "cufft": ("nvidia-cufft-cu12", "11.2.1.3"),
               "curand": ("nvidia-curand-cu12", "10.3.5.147"), "cusolver": ("nvidia-cusolver-cu12", "11.6.1.9"),
               "nccl": ("nvidia-nccl-cu12", "2.21.5"), "nvtx": ("nvidia-nvtx-cu12", "12.4.127"),
               "cusparselt": ("nvidia-cusparselt-cu12", "0.6.2"), "cufile": ("nvidia-cufile-cu12", "1.9.1.3"),
               "nvshmem": ("nvidia-nvshmem-cu12", "3.1.7")}
CU13_OWN_FOLDER = {"cudnn", "nccl", "cusparselt", "nvshmem"}


def cuda_wheels(site, libs, major, components, old=()):
    """The components' wheels in `site` (CUDA 12: per-component folders;
    13: nvidia/cu13/lib). `old` components get their old library (and an
    older version)."""
    for comp in components:
        files = []
        folder = comp if major == 12 or comp in CU13_OWN_FOLDER else "cu13"
        for src in libs[comp]:
            files.append(place(site, "nvidia/%s/lib/%s" % (folder, os.path.basename(src)), src))
        name, version = CU12_WHEELS[comp]
        if major == 13:
            name = name.replace("-cu12", "") if comp not in CU13_OWN_FOLDER else name.replace("cu12", "cu13")
            version = "13.0.88" if comp not in CU13_OWN_FOLDER else version
        if comp in old:
            version = {12: "12.0.140", 13: "13.0.0"}[major] if comp not in CU13_OWN_FOLDER else version
        if not os.path.exists(os.path.join(site, "nvidia", "__init__.py")) and major == 12:
            open(os.path.join(site, "nvidia", "__init__.py"), "w").close()
            files.append("nvidia/__init__.py")
        for sub in {os.path.dirname(f) for f in files if f.endswith(".so") or ".so." in f}:
            init = os.path.join(os.path.dirname(sub), "__init__.py")
            if not os.path.exists(os.path.join(site, init)):
                open(os.path.join(site, init), "w").close()
                files.append(init)
        wheel(site, name, version, files)


def rpath_to(folders):
    return ":".join("$ORIGIN/../../nvidia/%s/lib" % f for f in folders)


def torch_package(site, lib, major, release, cuda_version):
    """torch/ as the release's wheel lays it out: lib/libtorch_global_deps.so,
    lib/libtorch_cuda.so, _C (needs libtorch_cuda), version.py, the
    release's __init__ (torch_init.py)."""
    m = major
    folders = (["cu13", "cudnn", "nccl", "cusparselt", "nvshmem"] if m == 13 else
               ["cuda_runtime", "cublas", "cusparse", "cudnn", "nccl", "cufft", "curand", "cuda_nvrtc", "nvjitlink"])
    rp = "$ORIGIN:" + rpath_to(folders)
    tk = lib.toolkit(m)
    soname = lambda comp, i=0: tk[comp][i]
    version = tuple(int(x) for x in release.split(".")[:3])
    early = version < (2, 4, 0)
    deps = [soname("cuda_runtime")] + ([soname("cublas"), soname("cufft")] if early else [])
    gd = lib.compile("torch_gd%d%s" % (m, "e" if early else ""), "libtorch_global_deps.so", [], [], deps, rp)
    cuda = lib.compile("torch_cuda%d" % m, "libtorch_cuda.so", ["torch_cuda_init"], ["cusparseCreate", "cublasCreate", "cudnnCreate"],
                       [soname("cuda_runtime"), soname("cublas"), soname("cublas", 1), soname("cusparse"), soname("cudnn"),
                        soname("nccl"), soname("cufft"), soname("curand")], rp)
    ext = lib.extension("torch_C%d" % m, "torch._C", [cuda], "$ORIGIN/lib", {"cuda_ready": "Py_RETURN_TRUE;"})
    files = [place(site, "torch/lib/libtorch_global_deps.so", gd), place(site, "torch/lib/libtorch_cuda.so", cuda),
             place(site, "torch/_C" + lib.ext_suffix, ext)]
    with open(os.path.join(HERE, "torch_init.py")) as f:
        init = f.read().replace("_RELEASE = (2, 6, 0)", "_RELEASE = %r" % (version,))
    with open(os.path.join(site, "torch", "__init__.py"), "w") as f:
        f.write(init)
    with open(os.path.join(site, "torch", "version.py"), "w") as f:
        f.write("from typing import Optional\n__version__ = '%s'\ndebug = False\ncuda: Optional[str] = '%s'\n" % (release, cuda_version))
    files += ["torch/__init__.py", "torch/version.py"]
    wheel(site, "torch", release + "+cu%s" % cuda_version.replace(".", ""), files)


def make_env(path, python=sys.executable, kind="venv", system_site=False):
    """An env whose python is `python`'s interpreter: a venv (bin/python3
    linked to it, pyvenv.cfg) or a conda-style env (the interpreter copied
    into bin/, its stdlib linked into lib/pythonX.Y): there the user site
    comes before the env's site-packages. Returns the env's site-packages."""
    real = os.path.realpath(subprocess.run([python, "-c", "import sys; print(sys.executable)"], capture_output=True,
                                           text=True, check=True).stdout.strip())
    ver = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True, text=True,
                         check=True).stdout.strip()
    full = subprocess.run([python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], capture_output=True, text=True,
                          check=True).stdout.strip()
    stdlib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], capture_output=True,
                            text=True, check=True).stdout.strip()
    site = os.path.join(path, "lib", "python" + ver, "site-packages")
    os.makedirs(site)
    os.makedirs(os.path.join(path, "bin"))
    os.makedirs(os.path.join(path, "conda-meta"))
    with open(os.path.join(path, "conda-meta", "history"), "w") as f:
        f.write("==> 2026-01-01 00:00:00 <==\n")
    if kind == "venv":
        os.symlink(real, os.path.join(path, "bin", "python3"))
        with open(os.path.join(path, "pyvenv.cfg"), "w") as f:
            f.write("home = %s\ninclude-system-site-packages = %s\nversion = %s\n"
                    % (os.path.dirname(real), "true" if system_site else "false", full))
    else:
        shutil.copy2(real, os.path.join(path, "bin", "python" + ver))
        os.symlink("python" + ver, os.path.join(path, "bin", "python3"))
        for name in os.listdir(stdlib):
            if name not in ("site-packages", "dist-packages"):
                os.symlink(os.path.join(stdlib, name), os.path.join(path, "lib", "python" + ver, name))
        if not upstream_site_py(python):
            # Debian's site.py reads <prefix>/lib/pythonX.Y/dist-packages outside a venv: the same folder.
            os.symlink("site-packages", os.path.join(path, "lib", "python" + ver, "dist-packages"))
    return site


@functools.lru_cache(maxsize=None)
def upstream_site_py(python=sys.executable):
    """Whether `python`'s site.py is CPython's own (not Debian's dist-packages one)."""
    stdlib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], capture_output=True,
                            text=True, check=True).stdout.strip()
    with open(os.path.join(stdlib, "site.py")) as f:
        return '"dist-packages"' not in f.read()


def jax_packages(site, lib, major, release):
    """jax (its plugin discovery, jax_init.py), jax_plugins/xla_cuda<major>
    (jax_plugin.py, xla_cuda_plugin.so) and jax_cuda<major>_plugin
    (cuda_plugin_extension, _versions) as the release's wheels lay them out."""
    m = major
    version = tuple(int(x) for x in release.split(".")[:3])
    plugin_dir = os.path.join(site, "jax_plugins", "xla_cuda%d" % m)
    os.makedirs(plugin_dir, exist_ok=True)
    os.makedirs(os.path.join(site, "jax"), exist_ok=True)
    shutil.copyfile(os.path.join(HERE, "jax_init.py"), os.path.join(site, "jax", "__init__.py"))
    with open(os.path.join(HERE, "jax_plugin.py")) as f:
        text = f.read().replace("_RELEASE = (0, 7, 0)", "_RELEASE = %r" % (version,)).replace("_MAJOR = 12", "_MAJOR = %d" % m)
    with open(os.path.join(plugin_dir, "__init__.py"), "w") as f:
        f.write(text)
    tk = lib.toolkit(m)
    if version < (0, 6, 0):  # the plugin found its libraries through its RUNPATH (XLA's pip rpaths)
        plugin = lib.compile("xla_plugin%d_rpath" % m, "xla_cuda_plugin.so", ["GetPjrtApi"], ["cusparseCreate"],
                             [tk["cuda_runtime"][0], tk["cusparse"][0]],
                             "$ORIGIN/../../nvidia/cuda_runtime/lib:$ORIGIN/../../nvidia/cusparse/lib:$ORIGIN/../../nvidia/cu13/lib")
    else:  # XLA's stubs: no CUDA library among its DT_NEEDED
        plugin = lib.compile("xla_plugin%d" % m, "xla_cuda_plugin.so", ["GetPjrtApi"])
    files = [place(site, "jax_plugins/xla_cuda%d/xla_cuda_plugin.so" % m, plugin), "jax_plugins/xla_cuda%d/__init__.py" % m]
    wheel(site, "jax-cuda%d-pjrt" % m, release, files)
    kernels = "jax_cuda%d_plugin" % m
    os.makedirs(os.path.join(site, kernels), exist_ok=True)
    open(os.path.join(site, kernels, "__init__.py"), "w").close()
    ext = lib.extension("jax_ext%d" % m, kernels + ".cuda_plugin_extension")
    ver = lib.extension("jax_versions%d" % m, kernels + "._versions", methods={"load": VERSIONS_LOADER},
                        prelude="#include <dlfcn.h>\n")
    files = [place(site, kernels + "/cuda_plugin_extension" + lib.ext_suffix, ext),
             place(site, kernels + "/_versions" + lib.ext_suffix, ver), kernels + "/__init__.py"]
    wheel(site, "jax-cuda%d-plugin" % m, release, files)
    wheel(site, "jax", release, ["jax/__init__.py"])


def cupy_package(site, lib, major, release, packaging="pip", preloads=("cutensor",)):
    """cupy (cupy_init: _environment's preload, then cupy._core's extensions)
    with cupy/.data/_wheel.json, as a cupy-cuda<major>x wheel."""
    m = major
    version = tuple(int(x) for x in release.split(".")[:3])
    root = os.path.join(site, "cupy")
    os.makedirs(os.path.join(root, "_core"), exist_ok=True)
    os.makedirs(os.path.join(root, ".data"), exist_ok=True)
    with open(os.path.join(root, "__init__.py"), "w") as f:
        f.write('"""Stand-in CuPy: cupy/__init__.py preloads cuTENSOR, then imports cupy._core."""\n'
                "from cupy import _environment\n_environment._preload_library('cutensor')\nfrom cupy import _core  # noqa: E402,F401\n")
    with open(os.path.join(HERE, "cupy_environment.py")) as f:
        text = f.read().replace("_RELEASE = (13, 6, 0)", "_RELEASE = %r" % (version,))
    with open(os.path.join(root, "_environment.py"), "w") as f:
        f.write(text)
    config = {"cuda": "%d.x" % m, "packaging": packaging}
    for p in preloads:
        config[p] = {"version": "2.0.2", "min_pypi_version": "2.0.0", "filenames": ["libcutensor.so.2.0.2"]}
    with open(os.path.join(root, ".data", "_wheel.json"), "w") as f:
        json.dump(config, f)
    tk = lib.toolkit(m)
    core = lib.extension("cupy_core%d" % m, "cupy._core.core", [tk["cublas"][1]],
                         "$ORIGIN/../../nvidia/cublas/lib:$ORIGIN/../../nvidia/cu13/lib")
    routines = lib.extension("cupy_routines%d" % m, "cupy._core._routines")
    files = [place(site, "cupy/_core/core" + lib.ext_suffix, core), place(site, "cupy/_core/_routines" + lib.ext_suffix, routines)]
    with open(os.path.join(root, "_core", "__init__.py"), "w") as f:
        f.write("from cupy._core import _routines  # noqa: F401\nfrom cupy._core import core  # noqa: F401\n")
    files += ["cupy/__init__.py", "cupy/_environment.py", "cupy/_core/__init__.py", "cupy/.data/_wheel.json"]
    wheel(site, "cupy-cuda%dx" % m, release, files)
    if version >= (14, 0, 0):
        pf = os.path.join(site, "cuda", "pathfinder")
        os.makedirs(pf, exist_ok=True)
        shutil.copyfile(os.path.join(HERE, "pathfinder_init.py"), os.path.join(pf, "__init__.py"))
        wheel(site, "cuda-pathfinder", "1.3.4", ["cuda/pathfinder/__init__.py"])


def uninstall_wheel(site, name):
    """What `pip uninstall` does to a wheel: the files its RECORD lists (the
    namespace packages' __init__.py kept) and its dist-info go."""
    norm = name.replace("-", "_").lower() + "-"
    dists = [d for d in os.listdir(site) if d.lower().startswith(norm) and d.endswith(".dist-info")]
    if len(dists) != 1:
        raise SystemExit("FAIL: pip uninstall %s in %s: %s" % (name, site, dists))
    with open(os.path.join(site, dists[0], "RECORD")) as f:
        for line in f:
            path = os.path.join(site, line.split(",")[0])
            if os.path.isfile(path) and not path.endswith("__init__.py"):
                os.unlink(path)
    shutil.rmtree(os.path.join(site, dists[0]))


def cupy_cuda_wheel(site, lib, major, release="12.3.0"):
    """cupy-cuda<major>x whose cupy._core.core needs that major's libcudart
    (libcudart.so.11.0 for CUDA 11), RUNPATH into nvidia/cuda_runtime/lib as
    CuPy's wheels have it: the consumer of one CUDA major."""
    cudart = cuda_runtime_library(lib, major)
    core = lib.extension("cupycore%d" % major, "cupy._core.core", [cudart], "$ORIGIN/../../nvidia/cuda_runtime/lib")
    files = [place(site, "cupy/_core/core" + lib.ext_suffix, core)]
    for rel, text in (("cupy/__init__.py", "from cupy._core import core  # noqa: F401\n"), ("cupy/_core/__init__.py", "")):
        os.makedirs(os.path.dirname(os.path.join(site, rel)), exist_ok=True)
        with open(os.path.join(site, rel), "w") as f:
            f.write(text)
        files.append(rel)
    wheel(site, "cupy-cuda%dx" % major, release, files)


def cuda_runtime_library(lib, major):
    """libcudart of a major: libcudart.so.11.0 for CUDA 11, libcudart.so.<major> after."""
    return lib.compile("cudart%d" % major, "libcudart.so.11.0" if major == 11 else "libcudart.so.%d" % major,
                       ["cudaRuntimeGetVersion"])


def cuda11_runtime_wheel(site, lib):
    """nvidia-cuda-runtime-cu11 11.8.89: libcudart.so.11.0 in nvidia/cuda_runtime/lib."""
    rel = place(site, "nvidia/cuda_runtime/lib/libcudart.so.11.0", cuda_runtime_library(lib, 11))
    wheel(site, "nvidia-cuda-runtime-cu11", "11.8.89", [rel])


def cutensor_wheel(site, lib, major):
    place(site, "cutensor/lib/libcutensor.so.2", lib.cutensor(major))
    wheel(site, "cutensor-cu%d" % major, "2.0.2", ["cutensor/lib/libcutensor.so.2"])
