#pragma once
// The env's condacuda hook as installed (its manifest) and as active in this
// process's environment (the hook's state variables).
#include <optional>
#include <string>
#include <vector>

#include "repair/manifest.hpp"

namespace condacuda::sys {

struct HookState {
  bool installed = false;           // the manifest and the sh activation hook both exist
  std::vector<std::string> folders; // from the manifest, relative to the prefix
  std::optional<repair::Manifest> manifest;
  std::string problem;              // an unreadable manifest, said once
};

HookState read_hook_state(const std::string& prefix);

// What the hook added to LD_LIBRARY_PATH in this process's environment when
// the env is active here: the entries of the record for `prefix` in
// CONDACUDA_HOOK_STATE (format: repair/activation.hpp); nullopt when there is
// none or the variable is malformed.
std::optional<std::string> active_hook_entries(const std::string& prefix);

} // namespace condacuda::sys
