#pragma once
// What the env's packages require of its CUDA components (issue 25): wheel
// `Requires-Dist` (METADATA) and conda `depends`, each resolved to the
// component the required package ships ("nvidia-cudnn-cu12==9.10.2.21" ->
// cudnn). Only requirements that apply here (markers evaluated for this
// platform and the env's python) and that bound a version. Pure.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/requirements.hpp"
#include "inventory/snapshot.hpp"

namespace condacuda::inventory {

struct Library;

struct ComponentRequirement {
  std::string package;   // the requiring package, as its record names it ("torch")
  std::string version;   // its version
  std::string manager;   // "pip" or "conda"
  std::string component; // what the required package ships ("cudnn")
  Requirement requirement;
};

// The component a package name stands for: the component of an env library
// that package owns, else NVIDIA's wheel names (nvidia-cudnn-cu12,
// nvidia-cublas) and conda's package names (cudnn, libcublas, nccl, ...).
std::optional<std::string> component_of_package(std::string_view normalized_name, const std::vector<Library>& libraries);

// The env's python version ("3.11") from a site-packages folder
// ("lib/python3.11/site-packages"); "" when none says it.
std::string python_version_of(const std::vector<std::string>& site_packages);

// Every requirement on a CUDA component. A requirement condacuda cannot read
// is a warning naming it, never a guess.
std::vector<ComponentRequirement> component_requirements(const EnvSnapshot& snapshot,
                                                         const std::vector<Library>& libraries,
                                                         std::vector<std::string>& warnings);

} // namespace condacuda::inventory
