#pragma once
// The CUDA major an env's consumers were built for: what the env's CUDA
// libraries must match (lock's same-major rule and series, repair's plan).
// Pure.
#include <string>

#include "inventory/inventory.hpp"

namespace condacuda::inventory {

// The CUDA major the env's consumers were built for (the ELF files outside the
// NVIDIA packages that need CUDA libraries: torch's, jax's, cupy's): from the
// sonames they need whose major is the CUDA major (libcudart.so.12,
// libcublas.so.13, libnvJitLink.so.12) and a +cuNNN local version (torch
// 2.5.1+cu121). -1 when none says, or when they disagree.
struct ConsumersMajor {
  int major = -1;
  std::string evidence; // "lib/.../_C.so needs libcudart.so.12"
};
ConsumersMajor consumers_major(const inventory::Inventory& inventory);

} // namespace condacuda::inventory
