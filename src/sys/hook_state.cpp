#include "sys/hook_state.hpp"

#include <cstdlib>
#include <filesystem>

#include "repair/activation.hpp"
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
  const std::string name(repair::hook_state_variable);
  const char* state = std::getenv(name.c_str());
  if (!state) return std::nullopt;
  return repair::hook_entries_for(state, prefix);
}

} // namespace condacuda::sys
