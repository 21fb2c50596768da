#pragma once
// The CUDA library folders a machine has outside any env — what a user or an
// HPC module typically puts on LD_LIBRARY_PATH: /usr/local/cuda*/lib64,
// /usr/local/cuda*/lib, /usr/local/cuda*/targets/*/lib, the NVIDIA HPC SDK's
// math_libs and cuda folders, and CUDA folders named in /etc/ld.so.conf.d.
// repair verifies its plan against them ("system CUDA first").
#include <optional>
#include <string>
#include <vector>

namespace condacuda::sys {

// Folders that hold at least one NVIDIA CUDA library, in a stable order,
// without two spellings of the same folder. `root` prefixes every path (tests).
std::vector<std::string> system_cuda_dirs(const std::string& root = "");

// Entries of LD_LIBRARY_PATH that hold the CUDA toolkit's stub libcuda.so:
// a libcuda.so in a folder named "stubs", or one with no libcuda.so.1 beside
// it (the driver installs both names; the toolkit ships only the stub,
// whose soname is libcuda.so.1 too).
std::vector<std::string> stub_folders(const std::optional<std::string>& ld_library_path);

} // namespace condacuda::sys
