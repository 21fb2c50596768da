#include "sys/repair_state.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sys/stat.h>

#include "repair/activation.hpp"
#include "sys/mapped_file.hpp"
#include "util/sha256.hpp"

namespace condacuda::sys {

namespace fs = std::filesystem;

Result<std::optional<repair::Manifest>> read_manifest(const std::string& prefix) {
  std::string path = prefix + "/" + repair::manifest_path;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::optional<repair::Manifest>();
  auto text = read_text_file(path);
  if (!text) return text.error();
  auto m = repair::parse_manifest(*text);
  if (!m) return make_error(m.error().code, m.error().message, path);
  return std::optional<repair::Manifest>(std::move(*m));
}

std::map<std::string, repair::PathState> read_path_states(const std::string& prefix,
                                                          const std::vector<std::string>& paths) {
  std::map<std::string, repair::PathState> out;
  for (const auto& rel : paths) {
    repair::PathState s;
    std::string path = prefix + "/" + rel;
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) {
      if (S_ISLNK(st.st_mode)) {
        s.kind = repair::PathState::Kind::symlink;
        std::error_code ec;
        s.target = fs::read_symlink(path, ec).string();
      } else if (S_ISREG(st.st_mode)) {
        s.kind = repair::PathState::Kind::file;
        if (auto text = read_text_file(path)) s.sha256 = util::to_hex(util::sha256(*text));
      } else {
        s.kind = repair::PathState::Kind::other;
      }
    }
    out[rel] = s;
  }
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
    auto text = read_text_file(entry.path().string());
    if (text && text->find("LD_LIBRARY_PATH") != std::string::npos) out.push_back("etc/conda/activate.d/" + name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace condacuda::sys
