#include "repair/plan_simulation.hpp"

#include <filesystem>

namespace condacuda::repair {

std::string normal(const std::string& p) { return std::filesystem::path(p).lexically_normal().string(); }

std::string prefix_of(const doctor::DoctorInputs& in) {
  std::string p = normal(in.env.prefix);
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

doctor::DoctorInputs bare(const doctor::DoctorInputs& in) {
  doctor::DoctorInputs b = in;
  b.config.ld_library_path.reset();
  b.base_ld_library_path.reset();
  b.hook_folders.clear();
  b.hook_present = false;
  b.active_hook_entries.reset();
  b.foreign_hooks.clear();
  return b;
}

} // namespace condacuda::repair
