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
#include "util/result.hpp"

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

// What a site declares about a node whose driver files are absent or hidden
// (containers, gVisor, nodes seen through a TaskProlog or a module): the
// environment variables CONDACUDA_DRIVER ("535.104.05") and CONDACUDA_GPU
// ("V100" or "sm_70,H100", --gpu's syntax). A declaration wins over what the
// machine shows, as conda's CONDA_OVERRIDE_CUDA does (README "Node facts").
struct DeclaredNode {
  std::optional<std::string> driver; // CONDACUDA_DRIVER, when set and not empty
  std::optional<std::string> gpus;   // CONDACUDA_GPU, when set and not empty
};
DeclaredNode declared_node();

// The driver a job on this node sees: CONDACUDA_DRIVER, else
// /proc/driver/nvidia/version; nullopt when neither says. bad_input when
// CONDACUDA_DRIVER is not a driver version.
Result<std::optional<lock::DriverVersion>> node_driver_version();

// The system's glibc release ("2.36"), read from its files (libc.so.6 beside
// the dynamic loader), not the C library condacuda runs on; "unknown" where
// there is no glibc.
std::string glibc_version();
// gethostname(2).
std::string host_name();
// SLURMD_NODENAME, the node name Slurm gives a job step (it differs from the
// host name where several slurmd share a host, or nodes are renamed).
std::optional<std::string> slurm_node_name();

// The model names of this machine's NVIDIA GPUs ("NVIDIA H100 80GB HBM3"), from
// the driver's /proc/driver/nvidia/gpus/*/information ("Model:" lines), without
// creating a CUDA context; empty without the driver.
std::vector<std::string> read_gpu_models(const std::string& root = "/proc/driver/nvidia/gpus");

} // namespace condacuda::sys
