#include "app/repair_apply.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "sys/env_lock.hpp"
#include "sys/mapped_file.hpp"
#include "sys/posix.hpp"
#include "sys/repair_state.hpp"

namespace condacuda::app {

namespace fs = std::filesystem;

namespace {
constexpr auto lock_wait = std::chrono::seconds(30);
constexpr const char* lock_file = "etc/condacuda/.lock";

std::string join(const std::string& prefix, const std::string& rel) { return prefix + "/" + rel; }

// Creates the folders the wanted files need, parents first; returns those it created.
Result<std::vector<std::string>> make_folders(const std::string& prefix, const std::vector<std::string>& files) {
  std::vector<std::string> created;
  std::set<std::string> wanted{"etc/condacuda"};
  for (const auto& f : files)
    for (fs::path p = fs::path(f).parent_path(); !p.empty(); p = p.parent_path()) wanted.insert(p.generic_string());
  for (const auto& rel : wanted) { // std::set order: parents before children
    auto made = sys::make_directory(join(prefix, rel));
    if (!made) return made.error();
    if (*made) created.push_back(rel);
  }
  return created;
}

Status write_manifest(const std::string& prefix, const repair::Manifest& m) {
  std::string path = join(prefix, repair::manifest_path);
  std::string text = repair::render_manifest(m);
  if (auto existing = sys::read_text_file(path); existing && *existing == text) return ok_status();
  return sys::write_file_atomically(path, text);
}

Status carry_out(const std::string& prefix, const repair::DesiredState& desired, const repair::Change& c) {
  using A = repair::Change::Action;
  std::string path = join(prefix, c.path);
  if (c.action == A::remove) return sys::remove_file(path);
  if (c.action != A::create && c.action != A::update) return ok_status();
  for (const auto& d : desired.entries) {
    if (d.entry.path != c.path) continue;
    if (d.entry.kind == repair::ManifestEntry::Kind::symlink) return sys::write_symlink_atomically(path, d.entry.target);
    return sys::write_file_atomically(path, d.content);
  }
  return make_error(ErrorCode::internal, "no content for a planned file", path);
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

// The journal: everything that may exist after this run, old and new, so an
// interrupted run leaves only files the manifest accounts for.
repair::Manifest journal_of(const repair::Manifest& next, const std::optional<repair::Manifest>& previous) {
  repair::Manifest journal = next;
  if (previous)
    for (const auto& e : previous->entries)
      if (std::none_of(journal.entries.begin(), journal.entries.end(), [&](const auto& j) { return j.path == e.path; }))
        journal.entries.push_back(e);
  return journal;
}
} // namespace

Result<Applied> apply_repair(const std::string& prefix, const repair::DesiredState& desired, const std::string& tool) {
  std::vector<std::string> files;
  for (const auto& d : desired.entries) files.push_back(d.entry.path);
  auto dirs = make_folders(prefix, files);
  if (!dirs) return dirs.error();
  sys::EnvLock lock;
  if (auto s = lock.acquire(join(prefix, lock_file), lock_wait); !s) return s.error();
  // Under the lock: what is there now.
  auto previous = sys::read_manifest(prefix);
  if (!previous) return previous.error();
  auto disk = sys::read_path_states(prefix, repair::paths_of(desired, *previous));
  Applied applied{{}, repair::compute_changes(desired, *previous, disk, tool)};
  if (applied.changes.conflicts()) return make_error(ErrorCode::conflict, "a path repair needs is taken", prefix);
  std::vector<std::string> all_dirs = *previous ? (*previous)->dirs : std::vector<std::string>{};
  for (const auto& d : *dirs)
    if (std::find(all_dirs.begin(), all_dirs.end(), d) == all_dirs.end()) all_dirs.push_back(d);
  applied.changes.manifest.dirs = all_dirs;
  applied.counts.dirs_created = *dirs;
  if (applied.changes.writes())
    if (auto s = write_manifest(prefix, journal_of(applied.changes.manifest, *previous)); !s) return s.error();
  for (const auto& c : applied.changes.changes) {
    if (auto s = carry_out(prefix, desired, c); !s) return s.error();
    count(applied.counts, c.action);
  }
  if (auto s = write_manifest(prefix, applied.changes.manifest); !s) return s.error();
  return applied;
}

Result<Applied> apply_undo(const std::string& prefix) {
  auto manifest = sys::read_manifest(prefix);
  if (!manifest) return manifest.error();
  if (!*manifest) return Applied{};
  sys::EnvLock lock;
  if (auto s = lock.acquire(join(prefix, lock_file), lock_wait); !s) return s.error();
  const repair::Manifest& m = **manifest;
  std::vector<std::string> paths;
  for (const auto& e : m.entries) paths.push_back(e.path);
  Applied applied{{}, repair::undo_changes(m, sys::read_path_states(prefix, paths))};
  repair::Manifest left = m;
  left.entries.clear();
  for (const auto& c : applied.changes.changes) {
    if (c.action == repair::Change::Action::remove) {
      if (auto s = sys::remove_file(join(prefix, c.path)); !s) return s.error();
    } else {
      for (const auto& e : m.entries)
        if (e.path == c.path) left.entries.push_back(e);
    }
    count(applied.counts, c.action);
  }
  if (!left.entries.empty()) {
    // Something stays: so does the manifest, listing what is left.
    if (auto s = write_manifest(prefix, left); !s) return s.error();
    return applied;
  }
  (void)sys::remove_file(join(prefix, repair::manifest_path));
  (void)sys::remove_file(join(prefix, lock_file));
  // Folders repair created, deepest first, when nothing else lives there.
  std::vector<std::string> dirs = m.dirs;
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const auto& d : dirs) sys::remove_directory_if_empty(join(prefix, d));
  return applied;
}

} // namespace condacuda::app
