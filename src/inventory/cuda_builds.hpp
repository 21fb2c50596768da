#pragma once
// Packages built for one CUDA major (issue 51): what their name or version
// says, and the same package built for another major, as pip installs it.
// A consumer built for another major than the env's gets the fix for the
// consumer (its matching build), never a library of that major for the env
// (which the next doctor would call misaligned: a fix that loops). Pure.
//
// Names and versions, from the projects' own packaging:
//   cupy-cudaNNx (CuPy >= 10: cupy-cuda11x, cupy-cuda12x, cupy-cuda13x;
//   older cupy-cudaNNN, e.g. cupy-cuda117), docs.cupy.dev "Installation";
//   nvidia-*-cuNN, NVIDIA's wheels (pypi.nvidia.com); jax-cudaNN-plugin and
//   jax-cudaNN-pjrt (`pip install "jax[cuda12]"`), docs.jax.dev
//   "Installation"; torch, torchvision, torchaudio with a local version
//   +cuXYZ, installed from PyTorch's per-CUDA index (below).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/package_requirements.hpp"

namespace condacuda::inventory {

// The CUDA major a package's name or version says it was built for.
std::optional<int> cuda_major_of_build(std::string_view name, std::string_view version);

// The CUDA major a conda build string names: conda-forge's "cuda126_mkl_py312_h1234567_300",
// "cuda120py312h..." (jaxlib), PyTorch's own channel "py3.11_cuda11.8_cudnn8.7.0_0":
// "cuda" and the release's digits (cudnn and cpu builds name none).
std::optional<int> cuda_major_of_conda_build(std::string_view build);

// What says a package is built for a CUDA major, first found: its name or
// local version (cuda_major_of_build), its conda build string, or what it
// requires (Requires-Dist, conda depends) of NVIDIA's wheels of one major
// (torch 2.6.0 from PyPI requires nvidia-cuda-runtime-cu12==12.4.127).
struct BuiltFor {
  int major = -1;
  std::string evidence; // "its name", "its local version +cu118", "its build string cuda118_...", "its requirement ..."
};
std::optional<BuiltFor> built_for(std::string_view name, std::string_view version, std::string_view conda_build,
                                  const std::vector<ComponentRequirement>& requirements);

// The command that replaces a conda package with its build for `major`:
// conda-forge's and NVIDIA's CUDA packages depend on the `cuda-version`
// metapackage of their major (conda-forge/cuda-feedstock recipe/README.md,
// "Metapackage dependencies on cuda-version"), so asking for that major's
// cuda-version makes the solver pick the package's build for it. A build of
// PyTorch's own channel ("py3.11_cuda11.8_cudnn8.7.0_0") is chosen by its
// pytorch-cuda metapackage instead (pytorch.org/get-started/previous-versions:
// `conda install pytorch ... pytorch-cuda=12.4 -c pytorch -c nvidia`; 11.8 and
// 12.4 the last of each major it published).
std::string conda_rebuild_command(std::string_view name, int major, std::string_view build = "");

// The same package for `major`: what to uninstall and install with pip, and
// the index to install from (PyTorch's), when the package is one condacuda
// knows how to name in another major.
struct Rebuild {
  std::string uninstall;           // the package installed now
  std::string install;             // the build for `major` ("cupy-cuda12x", "jax[cuda12]", "torch")
  std::string index_url;           // pip's --index-url, "" for PyPI
  std::vector<std::string> pip_install_args() const; // {"install", install[, "--index-url", url]}
};
std::optional<Rebuild> rebuild_for(std::string_view name, std::string_view version, int major);

// PyTorch's per-CUDA wheel index for a major: the newest CUDA release of
// that major PyTorch builds for, as its install selector listed it
// (pytorch.org/get-started/locally and .../previous-versions, read
// 2026-12-07): CUDA 11: cu118 (up to torch 2.6), CUDA 12: cu126, CUDA 13:
// cu130. "" for a major it has none for.
std::string pytorch_index_for(int major);

} // namespace condacuda::inventory
