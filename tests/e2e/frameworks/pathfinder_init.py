"""A stand-in for NVIDIA's cuda-pathfinder load_nvidia_dynamic_lib, written for
condacuda's tests from NVIDIA/cuda-python at cuda-pathfinder-v1.3.4
(docs/frameworks.md: _dynamic_libs/load_nvidia_dynamic_lib.py L26-L59,
find_nvidia_dynamic_lib.py, load_dl_linux.py, supported_nvidia_libs.py):
site-packages (the user site first when enabled, then
site.getsitepackages(); per folder the exact lib<name>.so, else the first
file of sorted(glob(lib<name>.so*))), then $CONDA_PREFIX/lib; the
dependencies; an already loaded soname wins; else the file found, else a
bare dlopen of each soname (newest first), else $CUDA_HOME or $CUDA_PATH
lib64; RTLD_NOW | RTLD_GLOBAL throughout."""
import ctypes
import functools
import glob
import os
import site

MODE = os.RTLD_NOW | os.RTLD_GLOBAL
# libname: (sonames oldest first, folders under site-packages, dependencies)
LIBS = {
    "cudart": (["libcudart.so.12", "libcudart.so.13"], ["nvidia/cu13/lib", "nvidia/cuda_runtime/lib"], []),
    "nvrtc": (["libnvrtc.so.12", "libnvrtc.so.13"], ["nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"], []),
    "nvJitLink": (["libnvJitLink.so.12", "libnvJitLink.so.13"], ["nvidia/cu13/lib", "nvidia/nvjitlink/lib"], []),
    "cublasLt": (["libcublasLt.so.12", "libcublasLt.so.13"], ["nvidia/cu13/lib", "nvidia/cublas/lib"], []),
    "cublas": (["libcublas.so.12", "libcublas.so.13"], ["nvidia/cu13/lib", "nvidia/cublas/lib"], ["cublasLt"]),
    "cufft": (["libcufft.so.11", "libcufft.so.12"], ["nvidia/cu13/lib", "nvidia/cufft/lib"], []),
    "curand": (["libcurand.so.10"], ["nvidia/cu13/lib", "nvidia/curand/lib"], []),
    "cusparse": (["libcusparse.so.12"], ["nvidia/cu13/lib", "nvidia/cusparse/lib"], ["nvJitLink"]),
    "cusolver": (["libcusolver.so.11", "libcusolver.so.12"], ["nvidia/cu13/lib", "nvidia/cusolver/lib"],
                 ["nvJitLink", "cusparse", "cublasLt", "cublas"]),
    "nccl": (["libnccl.so.2"], ["nvidia/nccl/lib"], []),
    "cutensor": (["libcutensor.so.2"], ["cutensor/lib"], ["cublasLt"]),
    "cusparseLt": (["libcusparseLt.so.0"], ["nvidia/cusparselt/lib"], []),
}


class DynamicLibNotFoundError(RuntimeError):
    pass


def _site_dirs():
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.insert(0, site.getusersitepackages())
    return dirs


def _find(libname):
    wanted = "lib%s.so" % libname
    for rel in LIBS[libname][1]:
        for parent in _site_dirs():
            folder = os.path.join(parent, rel)
            if not os.path.isdir(folder):
                continue
            if os.path.isfile(os.path.join(folder, wanted)):
                return os.path.join(folder, wanted)
            for path in sorted(glob.glob(os.path.join(folder, wanted + "*"))):
                if os.path.isfile(path):
                    return path
    conda = os.environ.get("CONDA_PREFIX")
    if conda and os.path.isfile(os.path.join(conda, "lib", wanted)):
        return os.path.join(conda, "lib", wanted)
    return None


def _candidates(libname):
    return list(reversed(LIBS[libname][0])) + ["lib%s.so" % libname]


@functools.cache
def load_nvidia_dynamic_lib(libname):
    if libname not in LIBS:
        raise DynamicLibNotFoundError('Failure finding "lib%s.so"' % libname)
    found = _find(libname)
    loaded = None
    for soname in _candidates(libname):
        try:
            loaded = ctypes.CDLL(soname, mode=os.RTLD_NOLOAD)
            break
        except OSError:
            continue
    for dep in LIBS[libname][2]:
        load_nvidia_dynamic_lib(dep)
    if loaded is not None:
        return loaded
    if found is None:
        for soname in _candidates(libname):
            try:
                return ctypes.CDLL(soname, MODE)
            except OSError:
                pass
        home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
        path = os.path.join(home, "lib64", "lib%s.so" % libname) if home else None
        if path is None or not os.path.isfile(path):
            raise DynamicLibNotFoundError('Failure finding "lib%s.so"' % libname)
        found = path
    try:
        return ctypes.CDLL(found, MODE)
    except OSError as e:
        raise RuntimeError(f"Failed to dlopen {found}: {e}") from e
