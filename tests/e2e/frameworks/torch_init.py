"""A stand-in for PyTorch's torch/__init__.py: the CUDA-library loading that
`import torch` performs, release by release, written for condacuda's tests
from the releases' sources (docs/frameworks.md cites each: pytorch v2.1.0
torch/__init__.py L144-L235, v2.5.0/v2.5.1, v2.6.0 L278-L405, v2.7.0
_get_cuda_dep_paths, v2.9 PR #163661, 2.10 PRs #165648/#167046/#167614, 2.11
PR #174320, v2.14.1 L313-L496). Nothing else of torch is here: after its
global deps and preloads it imports torch._C, a compiled extension that
needs the CUDA libraries through libtorch_cuda.so.

The release is the tuple below, written in when the stand-in is built."""
import ctypes
import glob
import os
import sys

_RELEASE = (2, 6, 0)  # replaced by the builder


def _cuda_version():
    from torch import version
    return version.cuda


def _lists():
    # (folder, pattern) in the release's order; 2.7 adds cufile after nvtx for CUDA >= 12.
    old = [("cublas", "libcublas.so.*[0-9]"), ("cudnn", "libcudnn.so.*[0-9]"), ("cuda_nvrtc", "libnvrtc.so.*[0-9]"),
           ("cuda_runtime", "libcudart.so.*[0-9]"), ("cuda_cupti", "libcupti.so.*[0-9]"), ("cufft", "libcufft.so.*[0-9]")]
    if _RELEASE < (2, 5, 0):
        return old + [("curand", "libcurand.so.*[0-9]"), ("cusolver", "libcusolver.so.*[0-9]"),
                      ("cusparse", "libcusparse.so.*[0-9]"), ("nccl", "libnccl.so.*[0-9]"), ("nvtx", "libnvToolsExt.so.*[0-9]")]
    if _RELEASE < (2, 5, 1):
        return old + [("cufile", "libcufile.so.*[0-9]"), ("curand", "libcurand.so.*[0-9]"),
                      ("nvjitlink", "libnvJitLink.so.*[0-9]"), ("cusparse", "libcusparse.so.*[0-9]"),
                      ("cusolver", "libcusolver.so.*[0-9]"), ("nccl", "libnccl.so.*[0-9]"), ("nvtx", "libnvToolsExt.so.*[0-9]")]
    mid = old + [("curand", "libcurand.so.*[0-9]"), ("nvjitlink", "libnvJitLink.so.*[0-9]"), ("cusparse", "libcusparse.so.*[0-9]")]
    tail = [("cusolver", "libcusolver.so.*[0-9]"), ("nccl", "libnccl.so.*[0-9]"), ("nvtx", "libnvToolsExt.so.*[0-9]")]
    if _RELEASE < (2, 6, 0):
        return mid + tail
    mid.append(("cusparselt", "libcusparseLt.so.*[0-9]"))
    if _RELEASE < (2, 7, 0):
        return mid + tail
    out = mid + tail
    if int(_cuda_version().split(".")[0]) >= 12:
        out.append(("cufile", "libcufile.so.*[0-9]"))
    return out


def _full_list():
    # 2.10 on: one ordered list for both paths (nvtx apart); cublasLt first from 2.11.
    first = [("cublas", "libcublasLt.so.*[0-9]")] if _RELEASE >= (2, 11, 0) else []
    return first + [("cublas", "libcublas.so.*[0-9]"), ("cudnn", "libcudnn.so.*[0-9]"), ("cuda_nvrtc", "libnvrtc.so.*[0-9]"),
                    ("cuda_nvrtc", "libnvrtc-builtins.so.*[0-9]"), ("cuda_runtime", "libcudart.so.*[0-9]"),
                    ("cuda_cupti", "libcupti.so.*[0-9]"), ("cufft", "libcufft.so.*[0-9]"), ("curand", "libcurand.so.*[0-9]"),
                    ("nvjitlink", "libnvJitLink.so.*[0-9]"), ("cusparse", "libcusparse.so.*[0-9]"),
                    ("cusparselt", "libcusparseLt.so.*[0-9]"), ("cusolver", "libcusolver.so.*[0-9]"),
                    ("nccl", "libnccl.so.*[0-9]"), ("nvshmem", "libnvshmem_host.so.*[0-9]"), ("cufile", "libcufile.so.*[0-9]")]


def _candidates(path, folder, pattern):
    # Where one sys.path entry may hold the library, by release.
    nvidia = os.path.join(path, "nvidia")
    if _RELEASE < (2, 7, 0) and not os.path.exists(nvidia):
        return []
    found = glob.glob(os.path.join(nvidia, folder, "lib", pattern))
    if _RELEASE < (2, 6, 0):
        return found
    if _RELEASE >= (2, 9, 0):
        cuda = _cuda_version()
        if cuda is not None:
            found = found + glob.glob(os.path.join(nvidia, "cu" + cuda.split(".")[0], "lib", pattern))
    return found + glob.glob(os.path.join(path, folder, "lib", pattern))


def _preload(folder, pattern, required=True):
    for path in sys.path:
        candidates = _candidates(path, folder, pattern)
        if candidates:
            ctypes.CDLL(candidates[0])
            return
    if required:
        raise ValueError(f"{pattern} not found in the system path {sys.path}")


def _named(err, entries):
    return any(pattern.split(".")[0] in err.args[0] for _, pattern in entries)


def _load_global_deps():
    here = os.path.dirname(os.path.abspath(__file__))
    lib_path = os.path.join(here, "lib", "libtorch_global_deps.so")
    full = _RELEASE >= (2, 10, 0)
    try:
        ctypes.CDLL(lib_path, mode=ctypes.RTLD_GLOBAL)
        if _RELEASE < (2, 6, 0):
            return
        try:
            with open("/proc/self/maps") as maps:
                text = maps.read()
            if full:
                if "libcudart.so" not in text:
                    return
                for folder, pattern in _full_list():
                    _preload(folder, pattern, required=_RELEASE < (2, 14, 0))
                _preload("nvtx", "libnvToolsExt.so.*[0-9]", required=False)
            else:
                if "nvidia/cuda_runtime/lib/libcudart.so" not in text:
                    return
                _preload("cuda_nvrtc", "libnvrtc.so.*[0-9]")
                _preload("nvjitlink", "libnvJitLink.so.*[0-9]")
        except Exception:
            pass
    except OSError as err:
        entries = _full_list() if full else _lists()
        if not _named(err, entries):
            raise err
        for folder, pattern in entries:
            _preload(folder, pattern)
        if full:
            _preload("nvtx", "libnvToolsExt.so.*[0-9]", required=False)
        ctypes.CDLL(lib_path, mode=ctypes.RTLD_GLOBAL)


_load_global_deps()
from torch._C import cuda_ready  # noqa: E402,F401

__version__ = ".".join(str(n) for n in _RELEASE)
