#pragma once
// From a plan to file changes: the files repair wants (hooks, symlinks), what
// is on disk now, and what the previous manifest says condacuda created.
// Pure: the system layer reads the disk state and carries the changes out.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "repair/hooks.hpp"
#include "repair/manifest.hpp"
#include "repair/plan.hpp"

namespace condacuda::repair {

struct DesiredEntry {
  ManifestEntry entry;
  std::string content; // files only
};

struct DesiredState {
  std::vector<std::string> folders;
  std::vector<DesiredEntry> entries; // sorted by path
  bool pin = false;
  std::vector<PlannedPin> pins;      // sorted by path
  std::vector<std::optional<std::string>> launches; // recorded in the manifest
};

// The hooks rendered for the plan's folders (none when there are no folders,
// or the env has no conda activation) and the planned links.
Result<DesiredState> desired_state(const RepairPlan& plan, const std::vector<Shell>& shells,
                                   const std::string& tool_version);

// What a path holds now.
struct PathState {
  enum class Kind {
    absent,
    file,
    symlink,
    other,       // a folder, a FIFO, a device: never condacuda's
    unreachable, // a folder on its path is a symbolic link (or not a folder): never written or deleted through
  };
  Kind kind = Kind::absent;
  std::string sha256; // files
  std::string target; // symlinks
  std::string why;    // unreachable: which component, and what it is
};

struct Change {
  enum class Action {
    create,   // absent: write it
    update,   // ours (manifest) and unchanged since: rewrite it
    keep,     // already exactly as wanted: nothing to do
    remove,   // ours, unchanged, no longer wanted
    leave,    // ours but changed by someone: not removed (reported)
    conflict, // a file condacuda did not create is in the way: nothing is written
  };
  Action action = Action::keep;
  std::string path;
  ManifestEntry::Kind kind = ManifestEntry::Kind::file;
  std::string reason;
};
const char* to_string(Change::Action a);

// What a pinned (or to be pinned) library is now: its sha256 ("" when it is
// not a regular file reached without links), and the sha256 it would have
// pinned ("" when its DT_RUNPATH tags are not where the plan says: it is
// pinned already, or another file).
struct PinDisk {
  std::string sha256;
  std::string pinned_sha256;
  // The path is a symlink with this text (sha256: of the file it leads to);
  // empty for a regular file.
  std::string link_target;
};

struct PinChange {
  enum class Action {
    pin,      // change the tags (the original kept first)
    keep,     // pinned as wanted
    unpin,    // ours, no longer wanted: the original back
    drop,     // the original is there already: only the kept copy goes
    leave,    // changed since condacuda pinned it: left, reported, kept in the manifest
    conflict, // cannot be pinned as planned: nothing is written
  };
  Action action = Action::keep;
  ManifestPin pin;
  std::string reason;
};
const char* to_string(PinChange::Action a);

struct ChangeSet {
  std::vector<Change> changes;
  std::vector<PinChange> pins;
  Manifest manifest; // what the manifest says after the changes
  bool conflicts() const;
  bool writes() const; // something other than keep
};

// Compares wanted and present state. `disk` has the state of every wanted
// path and of every path of `previous`.
ChangeSet compute_changes(const DesiredState& desired, const std::optional<Manifest>& previous,
                          const std::map<std::string, PathState>& disk, const std::string& tool,
                          const std::map<std::string, PinDisk>& pin_disk = {});

// Paths whose state a change set depends on: the wanted ones and the previous
// manifest's, sorted, each once.
std::vector<std::string> paths_of(const DesiredState& desired, const std::optional<Manifest>& previous);

// The pins wanted against those of the previous manifest and the disk
// (`disk` has every path of both).
std::vector<PinChange> pin_changes(const std::vector<PlannedPin>& wanted, const std::optional<Manifest>& previous,
                                   const std::map<std::string, PinDisk>& disk);
// Paths whose PinDisk the pin changes depend on, sorted, each once.
std::vector<std::string> pin_paths_of(const DesiredState& desired, const std::optional<Manifest>& previous);

// What undo does with the paths of a manifest (and its pins, with `pin_disk`).
ChangeSet undo_changes(const Manifest& manifest, const std::map<std::string, PathState>& disk,
                       const std::map<std::string, PinDisk>& pin_disk = {});

// True when the thing on disk is exactly what the manifest entry recorded.
bool matches(const ManifestEntry& entry, const PathState& state);
// True when it is condacuda's: what the entry records, or (in a journal) what
// the path held before the run that wrote it.
bool owned(const ManifestEntry& entry, const PathState& state);

// Whether `next` records what `previous` does (entries, folders, pins,
// launches): a repair that writes no file and records the same is unchanged.
bool records_same(const std::optional<Manifest>& previous, const Manifest& next);

// What a repair that met no conflict comes to, from its changes alone.
enum class RepairDecision {
  write,         // files to write or a record to change (a dry run: would repair)
  unchanged,     // repaired already: nothing to write, the same record
  nothing_to_do, // never repaired and nothing wanted: no file, no record
};
// The same for a dry run as for the repair it previews.
RepairDecision decide_repair(const DesiredState& desired, const std::optional<Manifest>& previous,
                             const ChangeSet& changes);

// The journal of a run that takes the env from `previous` to `next`: every
// entry of both (an entry being replaced keeps what it was as its previous
// state), so that a run killed at any moment leaves only what it accounts for.
Manifest journal_of(const Manifest& next, const std::optional<Manifest>& previous);

} // namespace condacuda::repair
