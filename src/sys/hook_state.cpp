#include "sys/hook_state.hpp"

#include <cstdlib>
#include <filesystem>

#include "sys/mapped_file.hpp"

namespace condacuda::sys {

HookState read_hook_state(const std::string& prefix) {
  HookState state;
  auto text = read_text_file(prefix + "/" + repair::manifest_path);
  if (!text) return state;
  auto manifest = repair::parse_manifest(*text);
  if (!manifest) {
    state.problem = std::string(repair::manifest_path) + ": " + manifest.error().message;
    return state;
  }
  std::error_code ec;
  state.installed = std::filesystem::exists(prefix + "/etc/conda/activate.d/condacuda.sh", ec);
  state.folders = manifest->folders;
  state.manifest = std::move(*manifest);
  return state;
}

std::optional<std::string> active_hook_entries(const std::string& prefix) {
  // Slots are numbered 1, 2, ... without gaps (templates/hooks/find_slot.sh.in).
  for (int n = 1;; ++n) {
    std::string base = "CONDACUDA_HOOK_" + std::to_string(n);
    const char* owner = std::getenv((base + "_PREFIX").c_str());
    if (!owner) return std::nullopt;
    if (prefix == owner) {
      const char* added = std::getenv((base + "_ADDED_PATH").c_str());
      return added ? std::optional<std::string>(added) : std::nullopt;
    }
  }
}

} // namespace condacuda::sys
