#include "sys/repair_state.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "elf/pin.hpp"
#include "repair/activation.hpp"
#include "util/sha256.hpp"
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

std::map<std::string, repair::PinDisk> read_pin_states(const PrefixTree& tree,
                                                       const std::map<std::string, std::vector<std::uint64_t>>& offsets) {
  std::map<std::string, repair::PinDisk> out;
  for (const auto& [rel, at] : offsets) {
    repair::PinDisk d;
    auto content = tree.read_content(rel, pin_cap);
    if (content && *content) {
      d.sha256 = util::to_hex(util::sha256((*content)->bytes));
      if (auto pinned = elf::retag((*content)->bytes, at, elf::runpath_tag, elf::rpath_tag))
        d.pinned_sha256 = util::to_hex(util::sha256(*pinned));
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

std::vector<std::string> pinned_files(const std::string& prefix) {
  std::vector<std::string> out;
  auto manifest = read_manifest(prefix);
  if (manifest && *manifest)
    for (const auto& p : (*manifest)->pins) out.push_back(p.path);
  std::sort(out.begin(), out.end());
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
