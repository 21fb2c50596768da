#pragma once
// Carrying out repair and undo on disk: state of paths, atomic writes
// (temp + rename), the manifest as a journal, directories created and removed.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "repair/changes.hpp"
#include "util/result.hpp"

namespace condacuda::sys {

// The previous manifest, nullopt when there is none; an unreadable or corrupt
// one is an error (condacuda will not guess what it created).
Result<std::optional<repair::Manifest>> read_manifest(const std::string& prefix);

// lstat + content hash / link text of each path (relative to the prefix).
std::map<std::string, repair::PathState> read_path_states(const std::string& prefix,
                                                          const std::vector<std::string>& paths);

// Paths whose state a change set depends on: the wanted ones and the previous manifest's.
std::vector<std::string> paths_of(const repair::DesiredState& desired, const std::optional<repair::Manifest>& previous);

// Writes `content` to `path` atomically: a temporary file in the same
// folder, fsync, rename over.
Status write_file_atomic(const std::string& path, const std::string& content, unsigned mode = 0644);
// Creates or replaces a symlink atomically.
Status write_symlink_atomic(const std::string& path, const std::string& target);

struct ApplyCounts {
  int created = 0, updated = 0, removed = 0, kept = 0, left = 0;
  std::vector<std::string> dirs_created;
};

// Applies a conflict-free change set under the env lock: creates missing
// folders (recorded in the manifest), writes the manifest first as a journal
// (so an interrupted run leaves files condacuda recognises), then the files,
// removals, and the final manifest.
// The change set is computed again under the lock (another process may have
// changed the env since it was planned); a conflict then is an error.
struct Applied {
  ApplyCounts counts;
  repair::ChangeSet changes;
};
Result<Applied> apply_repair(const std::string& prefix, const repair::DesiredState& desired, const std::string& tool);

// Removes what the manifest lists when unchanged, then the folders repair
// created if they are empty, the manifest and the lock. Entries changed since
// are left and stay in the manifest.
Result<Applied> apply_undo(const std::string& prefix);

// Where the manifest and the lock live.
std::string condacuda_dir(const std::string& prefix);

} // namespace condacuda::sys
