#include "doctor/node_facts.hpp"

#include <algorithm>

#include "inventory/components.hpp"

namespace condacuda::doctor {

const char* to_string(GpuSource source) {
  switch (source) {
  case GpuSource::declared: return "CONDACUDA_GPU";
  case GpuSource::proc: return "/proc/driver/nvidia/gpus";
  case GpuSource::driver: return "libcuda.so.1";
  case GpuSource::none: return "none";
  }
  return "none";
}

std::vector<std::string> cuda_sonames_in_cache(const loader::LdSoCache& cache) {
  std::vector<std::string> names;
  for (const auto& entry : cache.entries)
    if (entry.key_in_range &&
        (inventory::classify_library(entry.key) || inventory::is_driver_library(entry.key)))
      names.push_back(entry.key);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

} // namespace condacuda::doctor
