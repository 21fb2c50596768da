#include "inventory/consumers_major.hpp"

#include <map>

#include "inventory/components.hpp"
#include "util/strings.hpp"

namespace condacuda::inventory {

ConsumersMajor consumers_major(const inventory::Inventory& inventory) {
  std::map<int, std::string> seen; // major -> first evidence
  for (const auto& c : inventory.consumers) {
    for (const auto& needed : c.needs) {
      auto kind = classify_library(needed);
      const int major = kind && kind->soname_is_cuda_major ? soname_major(needed) : -1;
      if (major > 0) seen.emplace(major, c.file + " needs " + needed);
    }
    // PyTorch's local version names its CUDA build: 2.5.1+cu121, 2.9.0+cu130.
    if (auto at = c.version.find("+cu"); at != std::string::npos) {
      const int build = util::leading_number(std::string_view(c.version).substr(at + 3));
      if (build >= 100) seen.emplace(build / 10, c.package + " " + c.version + " is a CUDA " + std::to_string(build / 10) + " build");
    }
  }
  if (seen.size() != 1) return {};
  return {seen.begin()->first, seen.begin()->second};
}

} // namespace condacuda::inventory
