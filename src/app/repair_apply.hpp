#pragma once
// Carrying out repair and undo on disk, under the env's lock: folders
// created, the manifest written first as a journal, every file written to a
// temporary name and renamed into place, then the final manifest.
#include <string>
#include <vector>

#include "repair/changes.hpp"
#include "util/result.hpp"

namespace condacuda::app {

struct ApplyCounts {
  int created = 0, updated = 0, removed = 0, kept = 0, left = 0;
  std::vector<std::string> dirs_created;
};

struct Applied {
  ApplyCounts counts;
  repair::ChangeSet changes;
};

// Applies the change set that takes the env to `desired`: creates missing
// folders (recorded in the manifest), writes the manifest first as a journal
// (so an interrupted run leaves files condacuda recognises), then the files,
// removals, and the final manifest. The change set is computed again under
// the lock (another process may have changed the env since it was planned); a
// conflict then is an error.
Result<Applied> apply_repair(const std::string& prefix, const repair::DesiredState& desired, const std::string& tool);

// Removes what the manifest lists when unchanged, then the folders repair
// created if they are empty, the manifest and the lock. Entries changed since
// are left and stay in the manifest.
Result<Applied> apply_undo(const std::string& prefix);

} // namespace condacuda::app
