#include "sys/repair_state.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "repair/activation.hpp"
#include "sys/mapped_file.hpp"

namespace condacuda::sys {

namespace fs = std::filesystem;

Result<std::optional<repair::Manifest>> read_manifest(const PrefixTree& tree) {
  auto text = tree.read_file(repair::manifest_path, manifest_cap);
  if (!text) return text.error();
  if (!*text) return std::optional<repair::Manifest>();
  auto m = repair::parse_manifest(**text);
  if (!m) return make_error(m.error().code, m.error().message, tree.path() + "/" + repair::manifest_path);
  return std::optional<repair::Manifest>(std::move(*m));
}

Result<std::optional<repair::Manifest>> read_manifest(const std::string& prefix) {
  auto tree = PrefixTree::open(prefix);
  if (!tree) return tree.error();
  return read_manifest(*tree);
}

std::map<std::string, repair::PathState> read_path_states(const PrefixTree& tree, const std::vector<std::string>& paths) {
  std::map<std::string, repair::PathState> out;
  for (const auto& rel : paths) out[rel] = tree.state(rel);
  return out;
}

HookState read_hook_state(const std::string& prefix) {
  HookState state;
  auto manifest = read_manifest(prefix);
  if (!manifest || !*manifest) return state; // none, or one condacuda cannot read: no hook it can vouch for
  std::error_code ec;
  state.installed = fs::exists(prefix + "/etc/conda/activate.d/condacuda.sh", ec);
  state.folders = (*manifest)->folders;
  return state;
}

std::optional<std::string> active_hook_entries(const std::string& prefix) {
  const std::string name(repair::hook_state_variable);
  const char* state = std::getenv(name.c_str());
  if (!state) return std::nullopt;
  return repair::hook_entries_for(state, prefix);
}

std::vector<std::string> foreign_ld_library_path_hooks(const std::string& prefix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(prefix) / "etc/conda/activate.d", ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("condacuda.", 0) == 0) continue;
    auto text = read_text_file(entry.path().string(), read_cap::config);
    if (text && text->find("LD_LIBRARY_PATH") != std::string::npos) out.push_back("etc/conda/activate.d/" + name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace condacuda::sys
