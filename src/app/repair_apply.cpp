#include "app/repair_apply.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <ranges>
#include <set>

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

bool holds_only(const std::string& dir, const std::string& child) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename() != child) return false;
  return !ec;
}

// An etc/condacuda without a manifest is what a run killed before its first
// journal left (or an undo killed after removing the manifest): condacuda's
// own, as is an `etc` that holds nothing else. Returns those folders.
std::vector<std::string> leftover_own_folders(sys::PrefixTree& tree) {
  std::vector<std::string> out;
  tree.remove_temporaries(own_folder);
  if (tree.state(own_folder).kind != repair::PathState::Kind::other || !holds_only(tree.path() + "/" + own_folder, ""))
    return out;
  out.push_back(own_folder);
  if (holds_only(tree.path() + "/etc", "condacuda")) out.insert(out.begin(), "etc");
  return out;
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

void count(ApplyCounts& counts, repair::Change::Action a) {
  using A = repair::Change::Action;
  switch (a) {
  case A::create: ++counts.created; break;
  case A::update: ++counts.updated; break;
  case A::remove: ++counts.removed; break;
  case A::keep: ++counts.kept; break;
  case A::leave: ++counts.left; break;
  case A::conflict: break;
  }
}

void add_once(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

// The journal: every file and folder that may exist after this run, old and
// new, so that a run killed at any point leaves only what the manifest
// accounts for; the next repair or undo completes from there.
repair::Manifest journal_of(const repair::Manifest& next, const std::optional<repair::Manifest>& previous) {
  repair::Manifest journal = next;
  if (previous)
    for (const auto& e : previous->entries)
      if (std::none_of(journal.entries.begin(), journal.entries.end(), [&](const auto& j) { return j.path == e.path; }))
        journal.entries.push_back(e);
  return journal;
}

// Opens and locks the env before anything is read for a change or created.
Result<sys::PrefixTree> open_locked(const std::string& prefix) {
  auto tree = sys::PrefixTree::open(prefix);
  if (!tree) return tree.error();
  if (auto s = tree->lock(lock_wait); !s) return s.error();
  return tree;
}

// The temporaries a killed run left beside the files condacuda manages.
void remove_temporaries(sys::PrefixTree& tree, const std::vector<std::string>& paths) {
  for (const auto& folder : folders_of(paths)) tree.remove_temporaries(folder);
}
} // namespace

Result<Applied> apply_repair(const std::string& prefix, const repair::DesiredState& desired, const std::string& tool) {
  auto tree = open_locked(prefix);
  if (!tree) return tree.error();
  // Under the lock: what is there now.
  auto previous = sys::read_manifest(*tree);
  if (!previous) return previous.error();
  std::vector<std::string> paths = repair::paths_of(desired, *previous);
  remove_temporaries(*tree, paths);
  Applied applied{{}, repair::compute_changes(desired, *previous, sys::read_path_states(*tree, paths), tool)};
  if (applied.changes.conflicts()) return make_error(ErrorCode::conflict, "a path repair needs is taken", prefix);
  repair::Manifest& next = applied.changes.manifest;
  next.dirs = *previous ? (*previous)->dirs : leftover_own_folders(*tree);
  // Folders to create, recorded before any is made (the manifest's own first).
  std::vector<std::string> wanted = folders_to(own_folder), to_make, files;
  for (const auto& d : desired.entries) files.push_back(d.entry.path);
  for (const auto& f : folders_of(files)) add_once(wanted, f);
  for (const auto& f : wanted)
    if (tree->state(f).kind == repair::PathState::Kind::absent) to_make.push_back(f);
  for (const auto& f : to_make) add_once(next.dirs, f);
  applied.counts.dirs_created = to_make;
  for (const auto& f : wanted) {
    if (auto made = tree->make_directory(f); !made) return made.error();
    if (f == own_folder && applied.changes.writes())
      if (auto s = write_manifest(*tree, journal_of(next, *previous)); !s) return s.error();
  }
  for (const auto& c : applied.changes.changes) {
    if (auto s = carry_out(*tree, desired, c); !s) return s.error();
    count(applied.counts, c.action);
  }
  if (auto s = write_manifest(*tree, next); !s) return s.error();
  return applied;
}

Result<Applied> apply_undo(const std::string& prefix) {
  auto tree = open_locked(prefix);
  if (!tree) return tree.error();
  auto manifest = sys::read_manifest(*tree);
  if (!manifest) return manifest.error();
  if (!*manifest) {
    // Nothing to undo, but what a killed run left of condacuda's own folders.
    for (const auto& d : leftover_own_folders(*tree) | std::views::reverse) tree->remove_directory_if_empty(d);
    return Applied{};
  }
  const repair::Manifest& m = **manifest;
  std::vector<std::string> paths;
  for (const auto& e : m.entries) paths.push_back(e.path);
  remove_temporaries(*tree, paths);
  Applied applied{{}, repair::undo_changes(m, sys::read_path_states(*tree, paths))};
  repair::Manifest left = m;
  left.entries.clear();
  for (const auto& c : applied.changes.changes) {
    if (c.action == repair::Change::Action::remove) {
      if (auto s = tree->remove_file(c.path); !s) return s.error();
    } else {
      for (const auto& e : m.entries)
        if (e.path == c.path) left.entries.push_back(e);
    }
    count(applied.counts, c.action);
  }
  if (!left.entries.empty()) {
    // Something stays: so does the manifest, listing what is left.
    if (auto s = write_manifest(*tree, left); !s) return s.error();
    return applied;
  }
  // Folders repair created, deepest first, when nothing else lives there; the
  // manifest's own last, after the manifest (a run killed in between leaves an
  // empty etc/condacuda, which the next one recognises).
  std::vector<std::string> dirs = m.dirs;
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const auto& d : dirs)
    if (d != own_folder && d != "etc") tree->remove_directory_if_empty(d);
  (void)tree->remove_file(repair::manifest_path);
  (void)tree->remove_file("etc/condacuda/.lock"); // the lock file condacuda 0.1 kept there
  for (const auto& d : dirs)
    if (d == own_folder || d == "etc") tree->remove_directory_if_empty(d);
  return applied;
}

} // namespace condacuda::app
