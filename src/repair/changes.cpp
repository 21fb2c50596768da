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

const char* to_string(PinChange::Action a) {
  switch (a) {
  case PinChange::Action::pin: return "pin";
  case PinChange::Action::keep: return "keep";
  case PinChange::Action::unpin: return "unpin";
  case PinChange::Action::drop: return "drop";
  case PinChange::Action::leave: return "leave";
  case PinChange::Action::conflict: return "conflict";
  }
  return "keep";
}

bool ChangeSet::conflicts() const {
  return std::any_of(changes.begin(), changes.end(), [](const Change& c) { return c.action == Change::Action::conflict; }) ||
         std::any_of(pins.begin(), pins.end(), [](const PinChange& c) { return c.action == PinChange::Action::conflict; });
}

bool ChangeSet::writes() const {
  return std::any_of(changes.begin(), changes.end(), [](const Change& c) {
    return c.action == Change::Action::create || c.action == Change::Action::update || c.action == Change::Action::remove;
  }) || std::any_of(pins.begin(), pins.end(), [](const PinChange& c) {
    return c.action == PinChange::Action::pin || c.action == PinChange::Action::unpin || c.action == PinChange::Action::drop;
  });
}

Result<DesiredState> desired_state(const RepairPlan& plan, const std::vector<Shell>& shells,
                                   const std::string& tool_version) {
  DesiredState d;
  d.folders = plan.folder_paths();
  d.launches = plan.launches;
  // No hooks where nothing sources conda's activate.d (a venv, a uv env).
  if (!d.folders.empty() && plan.activation) {
    auto rendered = render_hooks(HookSpec{d.folders, tool_version}, shells);
    if (!rendered) return rendered.error();
    for (auto& f : *rendered) {
      ManifestEntry e{f.relative_path, ManifestEntry::Kind::file, util::to_hex(util::sha256(f.content)), "", "", ""};
      d.entries.push_back({e, std::move(f.content)});
    }
  }
  for (const auto& l : plan.links) d.entries.push_back({{l.path, ManifestEntry::Kind::symlink, "", l.target, "", ""}, ""});
  std::sort(d.entries.begin(), d.entries.end(), [](const auto& a, const auto& b) { return a.entry.path < b.entry.path; });
  d.pin = plan.pin;
  d.pins = plan.pins;
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

bool records_same(const std::optional<Manifest>& previous, const Manifest& next) {
  return previous && previous->entries == next.entries && previous->folders == next.folders &&
         previous->pins == next.pins && previous->pin == next.pin && previous->launches == next.launches;
}

RepairDecision decide_repair(const DesiredState& desired, const std::optional<Manifest>& previous,
                             const ChangeSet& changes) {
  const bool same_record = records_same(previous, changes.manifest);
  const bool wants_nothing = desired.entries.empty() && desired.pins.empty();
  if (changes.writes() || !(same_record || (!previous && wants_nothing))) return RepairDecision::write;
  return wants_nothing ? RepairDecision::nothing_to_do : RepairDecision::unchanged;
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
  // A pin being replaced or undone stays listed until the final manifest:
  // a kill leaves its file original or pinned, and its kept original.
  for (const auto& old : previous->pins)
    if (std::none_of(journal.pins.begin(), journal.pins.end(), [&](const auto& j) { return j.path == old.path; }))
      journal.pins.push_back(old);
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

namespace {
const ManifestPin* find_pin(const std::optional<Manifest>& m, const std::string& path) {
  if (!m) return nullptr;
  for (const auto& p : m->pins)
    if (p.path == path) return &p;
  return nullptr;
}

PinDisk pin_disk_of(const std::map<std::string, PinDisk>& disk, const std::string& path) {
  auto it = disk.find(path);
  return it == disk.end() ? PinDisk{} : it->second;
}

// A pin of the previous manifest against the disk: what undo does, and what
// repair does with one it no longer wants.
// Whether the path is as it was before `pin`: its original file, or (a
// private copy) the link it replaced, leading to the original content.
bool is_original(const ManifestPin& pin, const PinDisk& now) {
  if (pin.link_target.empty()) return now.link_target.empty() && now.sha256 == pin.original_sha256;
  return now.link_target == pin.link_target && now.sha256 == pin.original_sha256;
}

bool is_pinned(const ManifestPin& pin, const PinDisk& now) {
  return now.link_target.empty() && now.sha256 == pin.pinned_sha256;
}

PinChange undo_pin(const ManifestPin& old, const PinDisk& now) {
  if (is_pinned(old, now))
    return {PinChange::Action::unpin, old,
            old.link_target.empty() ? "pinned by condacuda, unchanged" : "a private copy by condacuda, unchanged: the link goes back"};
  if (is_original(old, now)) return {PinChange::Action::drop, old, "already the original"};
  return {PinChange::Action::leave, old,
          now.sha256.empty() || !now.link_target.empty() ? "no longer a regular file: left in place"
                                                         : "changed since condacuda pinned it: left in place"};
}

PinChange wanted_pin(const PlannedPin& want, const ManifestPin* old, const PinDisk& now) {
  ManifestPin fresh{want.path, now.sha256, now.pinned_sha256, want.offsets, original_store_path(want.path), now.link_target};
  if (old && is_pinned(*old, now)) return {PinChange::Action::keep, *old, "pinned already"};
  if (old && is_original(*old, now)) return {PinChange::Action::pin, *old, "original again: pinned"};
  if (now.sha256.empty() || (!now.link_target.empty() && !want.private_copy))
    return {PinChange::Action::conflict, fresh, "not a regular file reached without links"};
  if (now.pinned_sha256.empty())
    return {PinChange::Action::conflict, fresh, "its own search path is not where the plan found it"};
  return {PinChange::Action::pin, fresh, old ? "replaced since the last pin: pinned anew" : "new"};
}
} // namespace

std::vector<PinChange> pin_changes(const std::vector<PlannedPin>& wanted, const std::optional<Manifest>& previous,
                                   const std::map<std::string, PinDisk>& disk) {
  std::vector<PinChange> out;
  for (const auto& w : wanted) out.push_back(wanted_pin(w, find_pin(previous, w.path), pin_disk_of(disk, w.path)));
  if (previous)
    for (const auto& old : previous->pins)
      if (std::none_of(wanted.begin(), wanted.end(), [&](const PlannedPin& w) { return w.path == old.path; }))
        out.push_back(undo_pin(old, pin_disk_of(disk, old.path)));
  return out;
}

std::vector<std::string> pin_paths_of(const DesiredState& desired, const std::optional<Manifest>& previous) {
  std::set<std::string> paths;
  for (const auto& p : desired.pins) paths.insert(p.path);
  if (previous)
    for (const auto& p : previous->pins) paths.insert(p.path);
  return {paths.begin(), paths.end()};
}

// The pins a manifest lists after `changes`: the wanted ones, and those left.
static std::vector<ManifestPin> pins_after(const std::vector<PinChange>& changes) {
  std::vector<ManifestPin> out;
  for (const auto& c : changes)
    if (c.action == PinChange::Action::pin || c.action == PinChange::Action::keep || c.action == PinChange::Action::leave)
      out.push_back(c.pin);
  return out;
}

ChangeSet compute_changes(const DesiredState& desired, const std::optional<Manifest>& previous,
                          const std::map<std::string, PathState>& disk, const std::string& tool,
                          const std::map<std::string, PinDisk>& pin_disk) {
  ChangeSet set;
  set.manifest.tool = tool;
  set.manifest.folders = desired.folders;
  set.manifest.launches = desired.launches;
  set.manifest.pin = desired.pin;
  set.pins = pin_changes(desired.pins, previous, pin_disk);
  set.manifest.pins = pins_after(set.pins);
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

ChangeSet undo_changes(const Manifest& manifest, const std::map<std::string, PathState>& disk,
                       const std::map<std::string, PinDisk>& pin_disk) {
  ChangeSet set;
  for (const auto& p : manifest.pins) set.pins.push_back(undo_pin(p, pin_disk_of(pin_disk, p.path)));
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
