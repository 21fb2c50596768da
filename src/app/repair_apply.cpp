#include "app/repair_apply.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "elf/pin.hpp"
#include "sys/prefix_tree.hpp"
#include "sys/repair_state.hpp"

namespace condacuda::app {

namespace fs = std::filesystem;

namespace {
constexpr auto lock_wait = std::chrono::seconds(30);
constexpr const char* own_folder = "etc/condacuda"; // the manifest's folder: condacuda's own namespace

// `rel` and every folder above it, parents first ("etc", "etc/conda", ...).
std::vector<std::string> folders_to(const std::string& rel) {
  std::vector<std::string> out;
  for (fs::path p = fs::path(rel); !p.empty(); p = p.parent_path()) out.insert(out.begin(), p.generic_string());
  return out;
}

// The folders the entries live in, parents first, each once.
std::vector<std::string> folders_of(const std::vector<std::string>& paths) {
  std::set<std::string> all;
  for (const auto& path : paths)
    for (const auto& f : folders_to(fs::path(path).parent_path().generic_string())) all.insert(f);
  return {all.begin(), all.end()}; // std::set order: parents before children
}

void add_once(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// Whether folder `rel` of the env (reached without links) holds nothing but `child`.
bool holds_only(const sys::PrefixTree& tree, const std::string& rel, const std::string& child) {
  auto names = tree.list(rel);
  return names && (names->empty() || (names->size() == 1 && names->front() == child));
}

Status write_manifest(sys::PrefixTree& tree, const repair::Manifest& m) {
  std::string text = repair::render_manifest(m);
  if (auto existing = tree.read_file(repair::manifest_path, sys::manifest_cap); existing && *existing && **existing == text)
    return ok_status();
  return tree.write_file(repair::manifest_path, text);
}

Status carry_out(sys::PrefixTree& tree, const repair::DesiredState& desired, const repair::Change& c) {
  using A = repair::Change::Action;
  if (c.action == A::remove) return tree.remove_file(c.path);
  if (c.action != A::create && c.action != A::update) return ok_status();
  for (const auto& d : desired.entries) {
    if (d.entry.path != c.path) continue;
    if (d.entry.kind == repair::ManifestEntry::Kind::symlink) return tree.write_symlink(c.path, d.entry.target);
    return tree.write_file(c.path, d.content);
  }
  return make_error(ErrorCode::internal, "no content for a planned file", tree.path() + "/" + c.path);
}

// Keeps the original of a library about to be pinned at its store path: a
// hard link (the same inode, no space while a package cache shares it), else
// a copy (sys::PrefixTree::write_edited_copy: in pieces, a reflink where the
// file system has one). A store left by a killed run is replaced. A link is
// not hashed again: it is the inode whose content write_retagged checks next.
Status keep_original(sys::PrefixTree& tree, const repair::ManifestPin& pin) {
  if (auto s = tree.remove_file(pin.original); !s) return s.error();
  auto linked = tree.hard_link(pin.path, pin.original);
  if (!linked) return linked.error();
  if (*linked && tree.identity(pin.original) == tree.identity(pin.path)) return ok_status();
  auto copied = tree.write_edited_copy({pin.path, false, "", pin.original, {}, pin.original_sha256}, sys::pin_cap);
  if (!copied) return copied.error();
  if (!*copied) return make_error(ErrorCode::conflict, "changed while condacuda was pinning it", tree.path() + "/" + pin.path);
  return ok_status();
}

// The library with its tags changed, copied beside it and renamed over it: a
// new inode, so that a package cache sharing the old one is never changed.
// The copy is checked to hash as planned: the library was the file the plan
// read (its tags where the plan found them, the rest the same bytes).
Status write_retagged(sys::PrefixTree& tree, const repair::ManifestPin& pin, bool pinning) {
  auto copied = tree.write_edited_copy({pin.path, false, "", pin.path,
                                        pinning ? elf::pin_edit(pin.offsets) : elf::unpin_edit(pin.offsets),
                                        pinning ? pin.pinned_sha256 : pin.original_sha256},
                                       sys::pin_cap);
  if (!copied) return copied.error();
  if (!*copied)
    return make_error(ErrorCode::conflict, "changed while condacuda was changing it", tree.path() + "/" + pin.path);
  return ok_status();
}

// The original back at the library's path: its kept inode when it is intact
// (the package cache's again, where it was shared), else the tags changed
// back; then the kept copy goes.
Status restore_original(sys::PrefixTree& tree, const repair::ManifestPin& pin) {
  bool restored = false;
  if (tree.file_sha256(pin.original) == pin.original_sha256) {
    auto linked = tree.replace_with_link(pin.original, pin.path);
    if (!linked) return linked.error();
    restored = *linked;
  }
  if (!restored)
    if (auto s = write_retagged(tree, pin, false); !s) return s.error();
  return tree.remove_file(pin.original);
}

// A private copy: the file the link leads to (outside the env: uv's cache),
// read through the link and copied retagged as a regular file renamed over
// the link, once the link's text and the copy's hash are as planned. Nothing
// is written through the link; the manifest keeps its text for undo.
Status write_private_copy(sys::PrefixTree& tree, const repair::ManifestPin& pin) {
  auto copied = tree.write_edited_copy(
      {pin.path, true, pin.link_target, pin.path, elf::pin_edit(pin.offsets), pin.pinned_sha256}, sys::pin_cap);
  if (!copied) return copied.error();
  if (!*copied) return make_error(ErrorCode::conflict, "changed while condacuda was pinning it", tree.path() + "/" + pin.path);
  return ok_status();
}

// A private copy undone: the link back over the pinned file, once the file
// is checked to be condacuda's.
Status restore_link(sys::PrefixTree& tree, const repair::ManifestPin& pin) {
  if (tree.file_sha256(pin.path) != pin.pinned_sha256)
    return make_error(ErrorCode::conflict, "changed while condacuda was changing it", tree.path() + "/" + pin.path);
  return tree.write_symlink(pin.path, pin.link_target);
}

Status carry_out_pin(sys::PrefixTree& tree, const repair::PinChange& c) {
  using A = repair::PinChange::Action;
  const bool private_copy = !c.pin.link_target.empty();
  switch (c.action) {
  case A::pin:
    if (private_copy) return write_private_copy(tree, c.pin);
    if (auto s = keep_original(tree, c.pin); !s) return s.error();
    return write_retagged(tree, c.pin, true);
  case A::unpin:
    if (private_copy) return restore_link(tree, c.pin);
    return restore_original(tree, c.pin);
  case A::drop: return tree.remove_file(c.pin.original);
  case A::keep:
  case A::leave:
  case A::conflict: return ok_status();
  }
  return ok_status();
}

bool pins_something(const repair::ChangeSet& changes) {
  return std::any_of(changes.pins.begin(), changes.pins.end(),
                     [](const repair::PinChange& c) { return c.action == repair::PinChange::Action::pin; });
}

// The folders the wanted files need that do not exist yet, parents first,
// beginning with the manifest's own (etc, etc/condacuda).
std::vector<std::string> missing_folders(const sys::PrefixTree& tree, const repair::DesiredState& desired,
                                         const repair::ChangeSet& changes) {
  std::vector<std::string> wanted = folders_to(own_folder), files, missing;
  if (pins_something(changes)) add_once(wanted, repair::originals_folder);
  for (const auto& d : desired.entries) files.push_back(d.entry.path);
  for (const auto& f : folders_of(files)) add_once(wanted, f);
  for (const auto& f : wanted)
    if (tree.state(f).kind == repair::PathState::Kind::absent) missing.push_back(f);
  return missing;
}

// Writes the journal. When the manifest's folder does not exist yet, it is
// built under a temporary name with the journal in it and renamed into place
// (with `etc` when that is missing too): it never exists without a manifest,
// whatever moment a kill comes.
Status write_journal(sys::PrefixTree& tree, const repair::Manifest& journal) {
  if (tree.state(own_folder).kind != repair::PathState::Kind::absent) return write_manifest(tree, journal);
  const bool have_etc = tree.state("etc").kind != repair::PathState::Kind::absent;
  const std::string top = have_etc ? own_folder : "etc", tmp = sys::temporary_name(top);
  const std::string inside = have_etc ? tmp : tmp + "/condacuda";
  if (auto made = tree.make_directory(tmp); !made) return made.error();
  if (!have_etc)
    if (auto made = tree.make_directory(inside); !made) return made.error();
  if (auto s = tree.write_file(inside + "/manifest.yml", repair::render_manifest(journal)); !s) return s.error();
  return tree.rename_new(tmp, top);
}

// mkdir of the folders of `to_make` but the manifest's (write_journal makes those).
Status make_other_folders(sys::PrefixTree& tree, const std::vector<std::string>& to_make) {
  const auto own = folders_to(own_folder);
  for (const auto& f : to_make) {
    if (contains(own, f)) continue;
    if (auto made = tree.make_directory(f); !made) return made.error();
  }
  return ok_status();
}

// Removes the manifest with its folder (and `etc` when condacuda made it and
// nothing else lives there): renamed to a temporary name first, so that a kill
// leaves a temporary the next run removes, never a folder without manifest.
Status remove_manifest_folder(sys::PrefixTree& tree, const std::vector<std::string>& dirs) {
  std::string top;
  if (contains(dirs, own_folder) && holds_only(tree, own_folder, "manifest.yml"))
    top = contains(dirs, "etc") && holds_only(tree, "etc", "condacuda") ? "etc" : own_folder;
  if (top.empty() || !tree.rename_new(top, sys::temporary_name(top))) return tree.remove_file(repair::manifest_path);
  tree.remove_temporaries(top == "etc" ? "" : "etc");
  return ok_status();
}

// What a killed run left: temporaries beside condacuda's files and folders
// (the pinned libraries' among them).
void remove_temporaries(sys::PrefixTree& tree, const std::vector<std::string>& paths) {
  for (const char* folder : {"", "etc", own_folder, repair::originals_folder}) tree.remove_temporaries(folder);
  for (const auto& folder : folders_of(paths)) tree.remove_temporaries(folder);
}

} // namespace

Result<sys::PrefixTree> open_locked(const std::string& prefix) {
  auto tree = sys::PrefixTree::open(prefix);
  if (!tree) return tree.error();
  if (auto s = tree->lock(lock_wait); !s) return s.error();
  return tree;
}

void remove_leftovers(sys::PrefixTree& tree, const repair::DesiredState& desired,
                      const std::optional<repair::Manifest>& previous) {
  std::vector<std::string> touched = repair::paths_of(desired, previous);
  for (const auto& p : repair::pin_paths_of(desired, previous)) touched.push_back(p);
  remove_temporaries(tree, touched);
}

Status apply_repair(sys::PrefixTree& tree, const repair::DesiredState& desired,
                    const std::optional<repair::Manifest>& previous, repair::ChangeSet& changes) {
  remove_leftovers(tree, desired, previous);
  repair::Manifest& next = changes.manifest;
  // Folders to create, recorded in the journal before any is made.
  std::vector<std::string> to_make = missing_folders(tree, desired, changes);
  for (const auto& f : to_make) add_once(next.dirs, f);
  if (changes.writes() || !to_make.empty())
    if (auto s = write_journal(tree, repair::journal_of(next, previous)); !s) return s.error();
  if (auto s = make_other_folders(tree, to_make); !s) return s.error();
  for (const auto& c : changes.changes) {
    if (auto s = carry_out(tree, desired, c); !s) return s.error();
  }
  for (const auto& c : changes.pins)
    if (auto s = carry_out_pin(tree, c); !s) return s.error();
  return write_manifest(tree, next);
}

Status mark_repair_time(sys::PrefixTree& tree) {
  // `other` is a folder here (or something repair refuses to use as one: touch_folder fails).
  if (tree.state(own_folder).kind != repair::PathState::Kind::other) return ok_status();
  return tree.touch_folder(own_folder);
}

Result<Applied> apply_undo(const std::string& prefix) {
  auto tree = open_locked(prefix);
  if (!tree) return tree.error();
  auto manifest = sys::read_manifest(*tree);
  if (!manifest) return manifest.error();
  std::vector<std::string> paths, touched;
  if (*manifest) {
    for (const auto& e : (*manifest)->entries) paths.push_back(e.path);
    touched = paths;
    for (const auto& p : (*manifest)->pins) touched.push_back(p.path);
  }
  remove_temporaries(*tree, touched);
  if (!*manifest) return Applied{};
  const repair::Manifest& m = **manifest;
  Applied applied{repair::undo_changes(m, sys::read_path_states(*tree, paths),
                                       sys::read_pin_states(*tree, sys::pin_offsets(nullptr, m))),
                  true};
  repair::Manifest left = m;
  left.entries.clear();
  left.pins.clear();
  for (const auto& c : applied.changes.pins) {
    if (c.action == repair::PinChange::Action::leave) left.pins.push_back(c.pin);
    else if (auto s = carry_out_pin(*tree, c); !s) return s.error();
  }
  for (const auto& c : applied.changes.changes) {
    if (c.action == repair::Change::Action::remove) {
      if (auto s = tree->remove_file(c.path); !s) return s.error();
    } else {
      for (const auto& e : m.entries)
        if (e.path == c.path) left.entries.push_back(e);
    }
  }
  if (!left.entries.empty() || !left.pins.empty()) {
    // Something stays: so does the manifest, listing what is left.
    if (auto s = write_manifest(*tree, left); !s) return s.error();
    return applied;
  }
  // Folders repair created, deepest first, when nothing else lives there;
  // the manifest's own last, with the manifest.
  std::vector<std::string> dirs = m.dirs;
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const auto& d : dirs)
    if (d != own_folder && d != "etc") tree->remove_directory_if_empty(d);
  (void)tree->remove_file("etc/condacuda/.lock"); // the lock file condacuda 0.1 kept there
  if (auto s = remove_manifest_folder(*tree, m.dirs); !s) return s.error();
  return applied;
}

} // namespace condacuda::app
