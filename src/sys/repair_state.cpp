#include "sys/repair_state.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "elf/pin.hpp"
#include "launch/hook_model.hpp"
#include "sys/mapped_file.hpp"
#include "sys/shell_environment.hpp"

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

std::map<std::string, repair::PinDisk> read_pin_states(const PrefixTree& tree,
                                                       const std::map<std::string, std::vector<std::uint64_t>>& offsets) {
  std::map<std::string, repair::PinDisk> out;
  for (const auto& [rel, at] : offsets) {
    repair::PinDisk d;
    const elf::TagEdit edit = elf::pin_edit(at);
    auto read = tree.digests(rel, edit, false, pin_cap);
    if (!read || !*read) read = tree.digests(rel, edit, true, pin_cap); // a private copy would replace this link
    if (read && *read) {
      d.link_target = (*read)->link_text;
      d.sha256 = (*read)->sha256;
      d.pinned_sha256 = (*read)->retagged_sha256;
    }
    out[rel] = std::move(d);
  }
  return out;
}

std::map<std::string, std::vector<std::uint64_t>> pin_offsets(const repair::DesiredState* desired,
                                                              const std::optional<repair::Manifest>& previous) {
  std::map<std::string, std::vector<std::uint64_t>> out;
  if (desired)
    for (const auto& p : desired->pins) out.emplace(p.path, p.offsets);
  if (previous)
    for (const auto& p : previous->pins) out.emplace(p.path, p.offsets);
  return out;
}

RepairState read_repair_state(const PrefixTree& tree) {
  RepairState state;
  auto manifest = read_manifest(tree);
  if (!manifest) {
    state.unreadable = manifest.error();
    return state;
  }
  state.manifest = std::move(*manifest);
  std::error_code ec;
  state.hook_installed = state.manifest && fs::exists(tree.path() + "/etc/conda/activate.d/condacuda.sh", ec);
  return state;
}

RepairState read_repair_state(const std::string& prefix) {
  auto tree = PrefixTree::open(prefix);
  if (!tree) {
    RepairState state;
    state.unreadable = tree.error();
    return state;
  }
  return read_repair_state(*tree);
}

std::vector<std::string> RepairState::pinned() const {
  std::vector<std::string> out;
  if (manifest)
    for (const auto& p : manifest->pins) out.push_back(p.path);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> RepairState::hook_folders() const {
  return hook_installed ? manifest->folders : std::vector<std::string>{};
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
