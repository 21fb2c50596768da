#pragma once
// Carrying out repair and undo on disk, under the env's lock: the manifest
// written first as a journal (its folder built with it and renamed into
// place), then the folders, every file written to a temporary name and
// renamed into place, then the final manifest.
#include <string>

#include "repair/changes.hpp"
#include "util/result.hpp"

namespace condacuda::app {

struct Applied {
  repair::ChangeSet changes;
  bool had_manifest = false; // undo: there was something to undo
};

// Applies the change set that takes the env to `desired`: writes the journal
// (every file and folder the run may leave, so that an interrupted run leaves
// only what condacuda recognises), creates the missing folders, writes and
// removes the files, then the final manifest. The change set is computed again
// under the lock (another process may have changed the env since it was
// planned); a conflict then is an error. Temporaries a killed run left are
// removed first.
Result<Applied> apply_repair(const std::string& prefix, const repair::DesiredState& desired, const std::string& tool);

// Removes what the manifest lists when unchanged, then the folders repair
// created if they are empty, then the manifest with its folder. Entries
// changed since are left and stay in the manifest. Without a manifest it only
// removes what a killed run left (temporaries).
Result<Applied> apply_undo(const std::string& prefix);

} // namespace condacuda::app
