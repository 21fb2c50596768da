"""demotorch: a torch-like package for condacuda's demo env.

Importing it loads the compiled extension, which needs the env's CUDA
libraries (cudart, cuSPARSE, and through cuSPARSE, nvJitLink)."""
from demotorch._C import runtime_version, sparse_version  # noqa: F401

__version__ = "2.5.0"
