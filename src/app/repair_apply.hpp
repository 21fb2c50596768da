#pragma once
// Carrying out repair and undo on disk, under the env's lock: the manifest
// written first as a journal (its folder built with it and renamed into
// place), then the folders, every file written to a temporary name and
// renamed into place, then the final manifest.
#include <optional>
#include <string>

#include "repair/changes.hpp"
#include "sys/prefix_tree.hpp"
#include "util/result.hpp"

namespace condacuda::app {

struct Applied {
  repair::ChangeSet changes;
  bool had_manifest = false; // undo: there was something to undo
};

// Opens the env and takes its lock (waiting a while for another condacuda),
// before anything is read for a change: a repair holds it from its first read
// to its last write, so it never plans from another run's half-done state.
Result<sys::PrefixTree> open_locked(const std::string& prefix);

// Removes the temporaries a killed run left beside condacuda's files and
// folders and beside the libraries it pins (a repair with nothing else to do
// still completes a killed undo's cleanup).
void remove_leftovers(sys::PrefixTree& locked, const repair::DesiredState& desired,
                      const std::optional<repair::Manifest>& previous);

// Applies `changes` (computed under `locked`'s lock from `previous`, the
// manifest there) to take the env to `desired`: removes the temporaries a
// killed run left, writes the journal (every file and folder the run may
// leave, so that an interrupted run leaves only what condacuda recognises),
// creates the missing folders, writes and removes the files, then the final
// manifest (`changes.manifest`, with the folders it made added).
Status apply_repair(sys::PrefixTree& locked, const repair::DesiredState& desired,
                    const std::optional<repair::Manifest>& previous, repair::ChangeSet& changes);

// Sets the mtime of the env's etc/condacuda to now, last in every repair that
// leaves a manifest (an unchanged one included): the activation hooks compare
// the folders they watch with it to say that the env changed since
// (repair/hooks.hpp, watched_folders). Nothing when there is no such folder.
Status mark_repair_time(sys::PrefixTree& locked);

// Removes what the manifest lists when unchanged, then the folders repair
// created if they are empty, then the manifest with its folder. Entries
// changed since are left and stay in the manifest. Without a manifest it only
// removes what a killed run left (temporaries).
Result<Applied> apply_undo(const std::string& prefix);

} // namespace condacuda::app
