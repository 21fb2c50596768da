"""A stand-in for JAX's CUDA plugin, jax_plugins/xla_cuda{12,13}/__init__.py:
what initialize() does before the CUDA backend is registered, release by
release, written for condacuda's tests from jax-ml/jax (docs/frameworks.md:
jax-v0.4.30 L73-L92, jax-v0.6.1 L224-L237, jax-v0.6.2 L93-L141 and
L316-L357, jax-v0.7.0..jax-v0.11.0 L93-L145 and L340-L405). The version
check reads each component through the _versions extension, which dlopens
it by soname as XLA's stubs do; the thresholds are not modelled (nor here).

The release and CUDA major are written in when the stand-in is built."""
import ctypes
import importlib
import os

_RELEASE = (0, 7, 0)  # replaced by the builder
_MAJOR = 12  # replaced by the builder

cuda_plugin_extension = None
cuda_versions = None


def _load(module, libraries):
    try:
        m = importlib.import_module("nvidia." + module)
    except ImportError:
        return
    for lib in libraries:
        try:
            ctypes.cdll.LoadLibrary(os.path.join(m.__path__[0], "lib", lib))
        except OSError:
            pass


def _load_nvidia_libraries():
    if _RELEASE < (0, 7, 0):
        entries = [("cuda_runtime", ["libcudart.so.12"]), ("cuda_nvrtc", ["libnvrtc.so.12"]),
                   ("cublas", ["libcublas.so.12", "libcublasLt.so.12"]), ("nccl", ["libnccl.so.2"]),
                   ("cuda_cupti", ["libcupti.so.12"]), ("cusparse", ["libcusparse.so.12"]), ("cusolver", ["libcusolver.so.11"]),
                   ("cufft", ["libcufft.so.11"]), ("nvshmem", ["libnvshmem_host.so.3"]), ("cudnn", ["libcudnn.so.9"])]
    else:
        entries = [("cuda_runtime", ["libcudart.so.12"]), ("cu13", ["libcudart.so.13"]),
                   ("cuda_nvrtc", ["libnvrtc.so.12"]), ("cu13", ["libnvrtc.so.13"]),
                   ("cublas", ["libcublas.so.12", "libcublasLt.so.12"]), ("cu13", ["libcublas.so.13", "libcublasLt.so.13"]),
                   ("nccl", ["libnccl.so.2"]), ("cuda_cupti", ["libcupti.so.12"]), ("cu13", ["libcupti.so.13"]),
                   ("cusparse", ["libcusparse.so.12"]), ("cu13", ["libcusparse.so.12"]),
                   ("cusolver", ["libcusolver.so.11"]), ("cu13", ["libcusolver.so.12"]),
                   ("cufft", ["libcufft.so.11"]), ("cu13", ["libcufft.so.12"]),
                   ("nvshmem", ["libnvshmem_host.so.3"]), ("cudnn", ["libcudnn.so.9"])]
    for module, libs in entries:
        _load(module, libs)


def _import_extensions():
    global cuda_plugin_extension, cuda_versions
    packages = ["jax_cuda13_plugin", "jax_cuda12_plugin", "jaxlib.cuda"] if _RELEASE >= (0, 7, 0) else \
        ["jax_cuda12_plugin", "jaxlib.cuda"]
    for pkg in packages:
        try:
            ext = importlib.import_module(pkg + ".cuda_plugin_extension")
            ver = importlib.import_module(pkg + "._versions")
        except ImportError:
            continue
        cuda_plugin_extension, cuda_versions = ext, ver
        return


def _check_cuda_versions():
    assert cuda_versions is not None
    m = _MAJOR
    for name, soname in [("CUDA", "libcudart.so.%d" % m), ("cuDNN", "libcudnn.so.9"), ("cuFFT", "libcufft.so.%d" % (m - 1)),
                         ("cuPTI", "libcupti.so.%d" % m), ("cuBLAS", "libcublas.so.%d" % m), ("cuSPARSE", "libcusparse.so.12")]:
        if cuda_versions.load(soname) is not None:
            raise RuntimeError(f"Unable to load {name}. Is it installed?")


def initialize():
    if _RELEASE >= (0, 6, 2):
        _load_nvidia_libraries()
    if _RELEASE >= (0, 6, 1):
        _import_extensions()
        if not os.environ.get("JAX_SKIP_CUDA_CONSTRAINTS_CHECK"):
            _check_cuda_versions()
    # xb.register_plugin -> xla_client.load_pjrt_plugin_dynamically: dlopen by path.
    ctypes.CDLL(os.path.join(os.path.dirname(__file__), "xla_cuda_plugin.so"))
