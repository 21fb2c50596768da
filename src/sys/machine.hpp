#pragma once
// The running machine's loader facts (docs/loader-model.md §0), found without starting a
// process: glibc version, CPU ISA level, AT_PLATFORM, the system directories
// and /etc/ld.so.cache. `ld.so --list-diagnostics` prints the same facts; a
// test compares the two.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loader/config.hpp"
#include "lock/driver.hpp"

namespace condacuda::sys {

struct MachineFacts {
  loader::LoaderConfig config;     // LD_LIBRARY_PATH, cwd etc. filled from this process
  std::vector<std::string> notes;  // e.g. "/etc/ld.so.cache is corrupt: ..., ignored as ld.so does"
};

// e_machine of the running process (EM_X86_64, EM_AARCH64).
std::uint16_t host_machine();

// The largest private writable mapping mmap grants before ENOMEM: RAM plus
// swap under the kernel's heuristic overcommit (vm.overcommit_memory 0, and
// as an estimate for 2), no bound under 1 (always overcommit).
std::uint64_t commit_limit();

// Reads the facts; `cache_path` is normally /etc/ld.so.cache.
MachineFacts detect_machine(const std::string& cache_path = "/etc/ld.so.cache");

// The NVIDIA kernel module's version from /proc/driver/nvidia/version;
// nullopt when there is no driver (the file is absent) or it cannot be read.
std::optional<lock::DriverVersion> read_driver_version(const std::string& path = "/proc/driver/nvidia/version");

// The model names of this machine's NVIDIA GPUs ("NVIDIA H100 80GB HBM3"), from
// the driver's /proc/driver/nvidia/gpus/*/information ("Model:" lines), without
// creating a CUDA context; empty without the driver.
std::vector<std::string> read_gpu_models(const std::string& root = "/proc/driver/nvidia/gpus");

} // namespace condacuda::sys
