"""A stand-in for CuPy's cupy/_environment.py _preload_library, written for
condacuda's tests from cupy/cupy (docs/frameworks.md: v13.6.0
cupy/_environment.py L313-L468, v14.2.0 L393-L483): only for a pip wheel
whose cupy/.data/_wheel.json lists the library; CuPy 14 asks
cuda-pathfinder first (DynamicLibNotFoundError is logged, anything else
raises); then the library's own wheel, $CUPY_CUDA_LIB_PATH, and a bare
ctypes.CDLL of the file name, every failure a warning."""
import ctypes
import importlib.metadata
import json
import os

_RELEASE = (13, 6, 0)  # replaced by the builder


def _config():
    path = os.path.join(os.path.dirname(__file__), ".data", "_wheel.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def _wheel_candidate(lib, config, preload):
    major = config["cuda"].split(".")[0]
    name = {"cutensor": "cutensor-cu" + major, "nccl": "nvidia-nccl-cu" + major}.get(lib)
    if name is None:
        return None
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None
    rel = {"cutensor": "cutensor/lib/libcutensor.so.", "nccl": "nvidia/nccl/lib/libnccl.so."}[lib]
    return str(dist.locate_file(rel + preload["version"].split(".")[0]))


def _preload_library(lib):
    config = _config()
    if config is None or config.get("packaging") != "pip" or lib not in config:
        return
    if _RELEASE >= (14, 0, 0):
        from cuda.pathfinder import DynamicLibNotFoundError, load_nvidia_dynamic_lib
        try:
            load_nvidia_dynamic_lib(lib)
            return
        except DynamicLibNotFoundError:
            pass
    preload = config[lib]
    candidates = []
    wheel = _wheel_candidate(lib, config, preload)
    if wheel:
        candidates.append(wheel)
    root = os.environ.get("CUPY_CUDA_LIB_PATH", os.path.expanduser("~/.cupy/cuda_lib"))
    for filename in preload["filenames"]:
        for sub in ("lib", "lib64", "bin"):
            candidates.append(os.path.join(root, config["cuda"], lib, preload["version"], sub, filename))
    existed = False
    for path in candidates:
        if not os.path.exists(path):
            continue
        existed = True
        try:
            ctypes.CDLL(path)
            return
        except OSError:
            pass  # warnings.warn in CuPy
    if existed:
        return
    for filename in preload["filenames"]:
        try:
            ctypes.CDLL(filename)
        except OSError:
            pass
