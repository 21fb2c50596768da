#pragma once
// What a repair left in a prefix, as the disk and this process's environment
// show it: the manifest, the state of the paths it lists, the installed hook
// and whether it is active in this shell, and other packages' activation
// scripts that touch LD_LIBRARY_PATH.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "repair/changes.hpp"
#include "repair/manifest.hpp"
#include "sys/prefix_tree.hpp"
#include "util/result.hpp"

namespace condacuda::sys {

// The manifest, nullopt when there is none; an unreadable or corrupt one
// (including one that names a path outside the env, or a file over
// manifest_cap bytes) is an error: condacuda will not guess what it created.
inline constexpr std::uint64_t manifest_cap = 4u << 20;
Result<std::optional<repair::Manifest>> read_manifest(const PrefixTree& tree);
Result<std::optional<repair::Manifest>> read_manifest(const std::string& prefix);

// What each path (relative to the prefix) is, walked without following links.
std::map<std::string, repair::PathState> read_path_states(const PrefixTree& tree, const std::vector<std::string>& paths);

// The largest library condacuda pins (read and copied in bounded pieces,
// never whole: its size costs time, not memory).
inline constexpr std::uint64_t pin_cap = std::uint64_t{16} << 30;

// What each library to pin or pinned is now: its sha256, and the sha256 it
// would have with the DT_RUNPATH tags at `offsets` pinned (repair/changes.hpp).
std::map<std::string, repair::PinDisk> read_pin_states(const PrefixTree& tree,
                                                       const std::map<std::string, std::vector<std::uint64_t>>& offsets);
// The offsets of every pin wanted or recorded (wanted first), by path.
std::map<std::string, std::vector<std::uint64_t>> pin_offsets(const repair::DesiredState* desired,
                                                              const std::optional<repair::Manifest>& previous);

// What a repair left, read once per command with one policy: a manifest
// condacuda cannot read is reported (`unreadable`), never guessed at; no hook
// or pin is vouched for then.
struct RepairState {
  std::optional<repair::Manifest> manifest;
  std::optional<Error> unreadable;
  bool hook_installed = false; // the manifest and the sh activation hook both exist
  std::vector<std::string> pinned() const; // the pinned files, prefix-relative, sorted
  std::vector<std::string> hook_folders() const; // what the installed hook puts first, prefix-relative
};
RepairState read_repair_state(const PrefixTree& tree);
RepairState read_repair_state(const std::string& prefix);

// etc/conda/activate.d scripts of other packages that mention LD_LIBRARY_PATH
// (prefix-relative, sorted).
std::vector<std::string> foreign_ld_library_path_hooks(const std::string& prefix);

} // namespace condacuda::sys
