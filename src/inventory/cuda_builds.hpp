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

namespace condacuda::inventory {

// The CUDA major a package's name or version says it was built for.
std::optional<int> cuda_major_of_build(std::string_view name, std::string_view version);

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
