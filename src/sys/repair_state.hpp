#pragma once
// What a repair left in a prefix, as the disk and this process's environment
// show it: the manifest, the state of the paths it lists, the installed hook
// and whether it is active in this shell, and other packages' activation
// scripts that touch LD_LIBRARY_PATH.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "repair/changes.hpp"
#include "repair/manifest.hpp"
#include "util/result.hpp"

namespace condacuda::sys {

// The manifest, nullopt when there is none; an unreadable or corrupt one is
// an error (condacuda will not guess what it created).
Result<std::optional<repair::Manifest>> read_manifest(const std::string& prefix);

// lstat + content hash / link text of each path (relative to the prefix).
std::map<std::string, repair::PathState> read_path_states(const std::string& prefix,
                                                          const std::vector<std::string>& paths);

struct HookState {
  bool installed = false;           // the manifest and the sh activation hook both exist
  std::vector<std::string> folders; // from the manifest, relative to the prefix
};

HookState read_hook_state(const std::string& prefix);

// What the hook added to LD_LIBRARY_PATH in this process's environment when
// the env is active here: the entries of the record for `prefix` in
// CONDACUDA_HOOK_STATE (format: repair/activation.hpp); nullopt when there is
// none or the variable is malformed.
std::optional<std::string> active_hook_entries(const std::string& prefix);

// etc/conda/activate.d scripts of other packages that mention LD_LIBRARY_PATH
// (prefix-relative, sorted).
std::vector<std::string> foreign_ld_library_path_hooks(const std::string& prefix);

} // namespace condacuda::sys
