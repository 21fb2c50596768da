#include "repair/changes.hpp"

#include <algorithm>
#include <set>

#include "util/sha256.hpp"

namespace condacuda::repair {

const char* to_string(Change::Action a) {
  switch (a) {
  case Change::Action::create: return "create";
  case Change::Action::update: return "update";
  case Change::Action::keep: return "keep";
  case Change::Action::remove: return "remove";
  case Change::Action::leave: return "leave";
  case Change::Action::conflict: return "conflict";
  }
  return "keep";
}

bool ChangeSet::conflicts() const {
  return std::any_of(changes.begin(), changes.end(), [](const Change& c) { return c.action == Change::Action::conflict; });
}

bool ChangeSet::writes() const {
  return std::any_of(changes.begin(), changes.end(), [](const Change& c) {
    return c.action == Change::Action::create || c.action == Change::Action::update || c.action == Change::Action::remove;
  });
}

Result<DesiredState> desired_state(const RepairPlan& plan, const std::vector<Shell>& shells,
                                   const std::string& tool_version) {
  DesiredState d;
  d.folders = plan.folder_paths();
  if (!d.folders.empty()) {
    auto rendered = render_hooks(HookSpec{d.folders, tool_version}, shells);
    if (!rendered) return rendered.error();
    for (auto& f : *rendered) {
      ManifestEntry e{f.relative_path, ManifestEntry::Kind::file, util::to_hex(util::sha256(f.content)), "", "", ""};
      d.entries.push_back({e, std::move(f.content)});
    }
  }
  for (const auto& l : plan.links) d.entries.push_back({{l.path, ManifestEntry::Kind::symlink, "", l.target, "", ""}, ""});
  std::sort(d.entries.begin(), d.entries.end(), [](const auto& a, const auto& b) { return a.entry.path < b.entry.path; });
  return d;
}

bool matches(const ManifestEntry& entry, const PathState& state) {
  if (entry.kind == ManifestEntry::Kind::file) return state.kind == PathState::Kind::file && state.sha256 == entry.sha256;
  return state.kind == PathState::Kind::symlink && state.target == entry.target;
}

bool owned(const ManifestEntry& entry, const PathState& state) {
  if (matches(entry, state)) return true;
  if (state.kind == PathState::Kind::file) return !entry.previous_sha256.empty() && state.sha256 == entry.previous_sha256;
  if (state.kind == PathState::Kind::symlink) return !entry.previous_target.empty() && state.target == entry.previous_target;
  return false;
}

Manifest journal_of(const Manifest& next, const std::optional<Manifest>& previous) {
  Manifest journal = next;
  if (!previous) return journal;
  for (auto& e : journal.entries)
    for (const auto& old : previous->entries) {
      if (old.path != e.path || old == e) continue;
      if (old.kind == ManifestEntry::Kind::file) e.previous_sha256 = old.sha256;
      else e.previous_target = old.target;
    }
  for (const auto& old : previous->entries)
    if (std::none_of(journal.entries.begin(), journal.entries.end(), [&](const auto& j) { return j.path == old.path; }))
      journal.entries.push_back(old);
  return journal;
}

namespace {
const ManifestEntry* find_entry(const std::optional<Manifest>& m, const std::string& path) {
  if (!m) return nullptr;
  for (const auto& e : m->entries)
    if (e.path == path) return &e;
  return nullptr;
}

std::string leave_reason(const PathState& now) {
  if (now.kind == PathState::Kind::unreachable) return now.why + ": left in place";
  return "changed since condacuda wrote it: left in place";
}

PathState state_of(const std::map<std::string, PathState>& disk, const std::string& path) {
  auto it = disk.find(path);
  return it == disk.end() ? PathState{} : it->second;
}
} // namespace

ChangeSet compute_changes(const DesiredState& desired, const std::optional<Manifest>& previous,
                          const std::map<std::string, PathState>& disk, const std::string& tool) {
  ChangeSet set;
  set.manifest.tool = tool;
  set.manifest.folders = desired.folders;
  if (previous) set.manifest.dirs = previous->dirs;
  for (const auto& want : desired.entries) {
    const auto& path = want.entry.path;
    PathState now = state_of(disk, path);
    const ManifestEntry* ours = find_entry(previous, path);
    Change c{Change::Action::create, path, want.entry.kind, ""};
    if (now.kind == PathState::Kind::unreachable) {
      c.action = Change::Action::conflict;
      c.reason = now.why;
    } else if (now.kind == PathState::Kind::absent) {
      c.reason = "new";
    } else if (matches(want.entry, now)) {
      c.action = Change::Action::keep;
      c.reason = "already as wanted";
    } else if (ours && owned(*ours, now)) {
      c.action = Change::Action::update;
      c.reason = "condacuda's own, unchanged since it wrote it";
    } else {
      c.action = Change::Action::conflict;
      c.reason = ours ? "changed since condacuda wrote it" : "not created by condacuda";
    }
    set.changes.push_back(c);
    set.manifest.entries.push_back(want.entry);
  }
  if (previous) {
    for (const auto& old : previous->entries) {
      bool wanted = std::any_of(desired.entries.begin(), desired.entries.end(),
                                [&](const DesiredEntry& d) { return d.entry.path == old.path; });
      if (wanted) continue;
      PathState now = state_of(disk, old.path);
      if (now.kind == PathState::Kind::absent) continue;
      Change c{owned(old, now) ? Change::Action::remove : Change::Action::leave, old.path, old.kind,
               owned(old, now) ? "no longer needed" : leave_reason(now)};
      // What is left stays in the manifest, as undo keeps it: reported again, never forgotten.
      if (c.action == Change::Action::leave) set.manifest.entries.push_back(old);
      set.changes.push_back(c);
    }
  }
  return set;
}

ChangeSet undo_changes(const Manifest& manifest, const std::map<std::string, PathState>& disk) {
  ChangeSet set;
  for (const auto& e : manifest.entries) {
    PathState now = state_of(disk, e.path);
    if (now.kind == PathState::Kind::absent) continue;
    bool same = owned(e, now);
    set.changes.push_back({same ? Change::Action::remove : Change::Action::leave, e.path, e.kind,
                           same ? "created by condacuda, unchanged" : leave_reason(now)});
  }
  return set;
}

std::vector<std::string> paths_of(const DesiredState& desired, const std::optional<Manifest>& previous) {
  std::set<std::string> paths;
  for (const auto& d : desired.entries) paths.insert(d.entry.path);
  if (previous)
    for (const auto& e : previous->entries) paths.insert(e.path);
  return {paths.begin(), paths.end()};
}

} // namespace condacuda::repair
