#pragma once
// The facts of the node a doctor ran on, as a job launched there sees them:
// what `condacuda fleet` groups nodes by (README "Fleet"). Gathered by the
// system layer (app/doctor.cpp); pure helpers here.
#include <optional>
#include <string>
#include <vector>

#include "loader/ld_so_cache.hpp"

namespace condacuda::doctor {

// Where the GPU list of a node came from.
enum class GpuSource { declared, proc, driver, none };
// "CONDACUDA_GPU", "/proc/driver/nvidia/gpus", "libcuda.so.1", "none"
const char* to_string(GpuSource source);

struct NodeGpu {
  std::string name; // the model or what was declared: "NVIDIA H100 80GB HBM3", "V100"
  std::string sm;   // "sm_90"
};

struct NodeFacts {
  std::string hostname;
  std::optional<std::string> slurm_node; // SLURMD_NODENAME
  std::string glibc;                     // "2.36"
  std::optional<std::string> driver;     // "580.65.06"; nullopt: no driver seen
  std::string driver_source;             // "CONDACUDA_DRIVER", "/proc/driver/nvidia/version", "--driver", "none"
  std::vector<NodeGpu> gpus;
  GpuSource gpus_source = GpuSource::none;
  std::optional<std::string> ld_library_path; // the launch's, before the env's hook (nullopt: unset)
  std::vector<std::string> system_cuda_folders; // sys/system_cuda.hpp
  std::vector<std::string> ld_so_cache_cuda;    // CUDA sonames the ld.so.cache offers, sorted, once each
  // The node's name for people and for Slurm: the Slurm node name, else the host name.
  const std::string& name() const { return slurm_node ? *slurm_node : hostname; }
};

// The NVIDIA CUDA libraries (and libcuda) among the cache's keys, sorted, once each.
std::vector<std::string> cuda_sonames_in_cache(const loader::LdSoCache& cache);

} // namespace condacuda::doctor
