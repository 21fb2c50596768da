// repair/changes: from the wanted files (hooks, links), the previous manifest
// and what is on disk to a change set, as pure values. The rules: a path
// condacuda did not create, or changed since it wrote it, is never overwritten
// or deleted; a second run writes nothing; undo removes only what is unchanged.
#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "repair/changes.hpp"
#include "util/sha256.hpp"

using namespace condacuda;
using namespace condacuda::repair;

namespace {

using Action = Change::Action;

const std::string hook = "etc/conda/activate.d/condacuda.sh";
const std::string unhook = "etc/conda/deactivate.d/condacuda.sh";
const std::string jit_link = "lib/python3.11/site-packages/nvidia/cusparse/lib/libnvJitLink.so.12";
const std::string link_target = "../../nvjitlink/lib/libnvJitLink.so.12";

ManifestEntry file_entry(const std::string& path, const std::string& sha) { return {path, ManifestEntry::Kind::file, sha, "", "", ""}; }
ManifestEntry link_entry(const std::string& path, const std::string& target) {
  return {path, ManifestEntry::Kind::symlink, "", target, "", ""};
}

PathState file_state(const std::string& sha) { return {PathState::Kind::file, sha, "", ""}; }
PathState link_state(const std::string& target) { return {PathState::Kind::symlink, "", target, ""}; }

DesiredState wanted(const std::vector<ManifestEntry>& entries) {
  DesiredState d;
  d.folders = {"lib/python3.11/site-packages/nvidia/nvjitlink/lib"};
  for (const auto& e : entries) d.entries.push_back({e, "content of " + e.path});
  return d;
}

Manifest manifest_of(const std::vector<ManifestEntry>& entries) {
  Manifest m;
  m.tool = "condacuda 0.0.9";
  m.folders = {"lib/python3.11/site-packages/nvidia/nvjitlink/lib"};
  m.entries = entries;
  m.dirs = {"etc/condacuda"};
  return m;
}

const Change& change_for(const ChangeSet& set, const std::string& path) {
  for (const auto& c : set.changes)
    if (c.path == path) return c;
  FAIL("no change for " << path);
  return set.changes.front();
}

bool has_change(const ChangeSet& set, const std::string& path) {
  for (const auto& c : set.changes)
    if (c.path == path) return true;
  return false;
}

} // namespace

TEST_CASE("desired_state: the hooks rendered for the plan's folders and the planned links, sorted by path") {
  RepairPlan plan;
  plan.folders = {{"lib/python3.11/site-packages/nvidia/nvjitlink/lib", {"libnvJitLink.so.12"}}};
  plan.links = {{jit_link, link_target, "libnvJitLink.so.12", "lib/python3.11/site-packages/nvidia/cusparse/lib/libcusparse.so.12"}};
  // Two shells: render_hooks gives each shell's pair in turn, the state sorts them by path.
  auto d = desired_state(plan, {Shell::posix, Shell::fish}, "1.2.3");
  REQUIRE(d.ok());
  CHECK(d->folders == plan.folder_paths());
  std::vector<std::string> paths;
  for (const auto& e : d->entries) paths.push_back(e.entry.path);
  CHECK(paths == std::vector<std::string>{"etc/conda/activate.d/condacuda.fish", hook, "etc/conda/deactivate.d/condacuda.fish",
                                          unhook, jit_link});
  REQUIRE(d->entries.size() == 5);
  CHECK(d->entries[4].entry == link_entry(jit_link, link_target));
  CHECK(d->entries[4].content.empty());
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& e = d->entries[i];
    CHECK(e.entry.kind == ManifestEntry::Kind::file);
    // The manifest records the hash of exactly what will be written.
    CHECK(e.entry.sha256 == util::to_hex(util::sha256(e.content)));
    CHECK(e.content.find("condacuda 1.2.3") != std::string::npos);
  }
}

TEST_CASE("desired_state: a plan without folders renders no hook") {
  RepairPlan plan;
  plan.links = {{jit_link, link_target, "libnvJitLink.so.12", "x"}};
  auto d = desired_state(plan, {Shell::posix, Shell::fish}, "1.2.3");
  REQUIRE(d.ok());
  CHECK(d->folders.empty());
  REQUIRE(d->entries.size() == 1);
  CHECK(d->entries[0].entry.kind == ManifestEntry::Kind::symlink);
}

TEST_CASE("create: wanted paths that are absent are created and the new manifest lists them") {
  auto want = wanted({file_entry(hook, "aa"), link_entry(jit_link, link_target)});
  auto set = compute_changes(want, std::nullopt, {}, "condacuda 1.0.0");
  REQUIRE(set.changes.size() == 2);
  CHECK(change_for(set, hook).action == Action::create);
  CHECK(change_for(set, jit_link).action == Action::create);
  CHECK(change_for(set, jit_link).kind == ManifestEntry::Kind::symlink);
  CHECK(set.writes());
  CHECK_FALSE(set.conflicts());
  CHECK(set.manifest.tool == "condacuda 1.0.0");
  CHECK(set.manifest.folders == want.folders);
  CHECK(set.manifest.entries == std::vector<ManifestEntry>{file_entry(hook, "aa"), link_entry(jit_link, link_target)});
}

TEST_CASE("keep: a second run over what the first one wrote writes nothing") {
  auto want = wanted({file_entry(hook, "aa"), link_entry(jit_link, link_target)});
  auto first = compute_changes(want, std::nullopt, {}, "condacuda 1.0.0");
  std::map<std::string, PathState> disk{{hook, file_state("aa")}, {jit_link, link_state(link_target)}};
  auto second = compute_changes(want, first.manifest, disk, "condacuda 1.0.0");
  for (const auto& c : second.changes) {
    INFO(c.path);
    CHECK(c.action == Action::keep);
  }
  CHECK_FALSE(second.writes());
  CHECK_FALSE(second.conflicts());
  CHECK(second.manifest == first.manifest);
  // Identical content counts, not authorship: even without a manifest nothing is rewritten.
  CHECK_FALSE(compute_changes(want, std::nullopt, disk, "condacuda 1.0.0").writes());
}

TEST_CASE("update: a file condacuda wrote and nobody changed since is rewritten") {
  auto want = wanted({file_entry(hook, "new"), link_entry(jit_link, link_target)});
  auto previous = manifest_of({file_entry(hook, "old"), link_entry(jit_link, "../old/libnvJitLink.so.12")});
  std::map<std::string, PathState> disk{{hook, file_state("old")}, {jit_link, link_state("../old/libnvJitLink.so.12")}};
  auto set = compute_changes(want, previous, disk, "condacuda 1.0.0");
  CHECK(change_for(set, hook).action == Action::update);
  CHECK(change_for(set, jit_link).action == Action::update);
  CHECK_FALSE(set.conflicts());
  CHECK(set.manifest.entries == std::vector<ManifestEntry>{file_entry(hook, "new"), link_entry(jit_link, link_target)});
  CHECK(set.manifest.dirs == previous.dirs); // the folders repair created stay recorded
}

TEST_CASE("conflict: a file condacuda did not create is in the way") {
  auto want = wanted({file_entry(hook, "aa")});
  std::map<std::string, PathState> disk{{hook, file_state("someone-elses")}};
  auto set = compute_changes(want, std::nullopt, disk, "t");
  CHECK(change_for(set, hook).action == Action::conflict);
  CHECK(change_for(set, hook).reason == "not created by condacuda");
  CHECK(set.conflicts());
  // A previous manifest that does not list the path does not make it ours.
  set = compute_changes(want, manifest_of({file_entry(unhook, "bb")}), disk, "t");
  CHECK(change_for(set, hook).action == Action::conflict);
  // Neither does a directory or another kind of file.
  set = compute_changes(want, std::nullopt, {{hook, PathState{PathState::Kind::other, "", "", ""}}}, "t");
  CHECK(change_for(set, hook).action == Action::conflict);
}

TEST_CASE("conflict: a file condacuda wrote but someone changed since is not overwritten") {
  auto want = wanted({file_entry(hook, "new")});
  auto previous = manifest_of({file_entry(hook, "old")});
  std::map<std::string, PathState> disk{{hook, file_state("edited")}};
  auto set = compute_changes(want, previous, disk, "t");
  CHECK(change_for(set, hook).action == Action::conflict);
  CHECK(change_for(set, hook).reason == "changed since condacuda wrote it");
  CHECK(set.conflicts());
}

TEST_CASE("conflict: a symlink that points elsewhere is not replaced") {
  auto want = wanted({link_entry(jit_link, link_target)});
  std::map<std::string, PathState> disk{{jit_link, link_state("/usr/local/cuda/lib64/libnvJitLink.so.12")}};
  CHECK(change_for(compute_changes(want, std::nullopt, disk, "t"), jit_link).action == Action::conflict);
  // Ours, but re-pointed by someone since.
  auto previous = manifest_of({link_entry(jit_link, "../old/libnvJitLink.so.12")});
  CHECK(change_for(compute_changes(want, previous, disk, "t"), jit_link).action == Action::conflict);
  // A regular file where the jit_link should be.
  CHECK(change_for(compute_changes(want, std::nullopt, {{jit_link, file_state("aa")}}, "t"), jit_link).action == Action::conflict);
}

TEST_CASE("remove or leave: what the previous repair made and is no longer wanted") {
  auto want = wanted({file_entry(hook, "aa")});
  const std::string stale_link = "lib/x/libold.so.1";
  const std::string gone = "lib/x/libgone.so.1";
  auto previous = manifest_of({file_entry(hook, "aa"), file_entry(unhook, "bb"), link_entry(stale_link, "../y/libold.so.1"),
                               link_entry(gone, "../y/libgone.so.1")});
  std::map<std::string, PathState> disk{{hook, file_state("aa")},
                                        {unhook, file_state("edited")},
                                        {stale_link, link_state("../y/libold.so.1")}};
  auto set = compute_changes(want, previous, disk, "t");
  CHECK(change_for(set, stale_link).action == Action::remove); // unchanged: ours to delete
  CHECK(change_for(set, unhook).action == Action::leave);      // changed since: left in place
  CHECK_FALSE(has_change(set, gone));                         // already gone: nothing to do
  CHECK(set.writes());
  CHECK_FALSE(set.conflicts());
  // What is left stays listed (as undo keeps it), so that undo reports it later.
  CHECK(set.manifest.entries == std::vector<ManifestEntry>{file_entry(hook, "aa"), file_entry(unhook, "bb")});
}

TEST_CASE("undo: removes what is unchanged, leaves what was changed, skips what is gone") {
  auto m = manifest_of({file_entry(hook, "aa"), file_entry(unhook, "bb"), link_entry(jit_link, link_target),
                        link_entry("lib/gone.so", "x")});
  std::map<std::string, PathState> disk{{hook, file_state("aa")},
                                        {unhook, file_state("edited")},
                                        {jit_link, link_state("../elsewhere/libnvJitLink.so.12")}};
  auto set = undo_changes(m, disk);
  REQUIRE(set.changes.size() == 3);
  CHECK(change_for(set, hook).action == Action::remove);
  CHECK(change_for(set, unhook).action == Action::leave);
  CHECK(change_for(set, jit_link).action == Action::leave);
  CHECK_FALSE(has_change(set, "lib/gone.so"));
  CHECK_FALSE(set.conflicts());
}

TEST_CASE("matches: a file by its hash, a symlink by its text, never one for the other") {
  CHECK(matches(file_entry(hook, "aa"), file_state("aa")));
  CHECK_FALSE(matches(file_entry(hook, "aa"), file_state("ab")));
  CHECK_FALSE(matches(file_entry(hook, "aa"), PathState{}));
  CHECK(matches(link_entry(jit_link, "t"), link_state("t")));
  CHECK_FALSE(matches(link_entry(jit_link, "t"), link_state("u")));
  CHECK_FALSE(matches(link_entry(jit_link, ""), file_state("")));
}

TEST_CASE("paths_of: the wanted paths and the previous manifest's, sorted, each once") {
  auto want = wanted({file_entry(unhook, "a"), link_entry(jit_link, link_target)});
  auto previous = manifest_of({file_entry(hook, "a"), link_entry(jit_link, link_target)});
  CHECK(paths_of(want, previous) == std::vector<std::string>{hook, unhook, jit_link});
  CHECK(paths_of(want, std::nullopt) == std::vector<std::string>{unhook, jit_link});
}

TEST_CASE("journal: an entry being replaced keeps what it was, so a run killed before the rename is completed, not refused") {
  auto previous = manifest_of({file_entry(hook, "old"), link_entry(jit_link, "../old/libnvJitLink.so.12"),
                               file_entry(unhook, "gone")});
  auto want = wanted({file_entry(hook, "new"), link_entry(jit_link, link_target)});
  std::map<std::string, PathState> before{{hook, file_state("old")},
                                          {jit_link, link_state("../old/libnvJitLink.so.12")},
                                          {unhook, file_state("gone")}};
  auto next = compute_changes(want, previous, before, "t").manifest;
  Manifest journal = journal_of(next, previous);
  REQUIRE(journal.entries.size() == 3);
  CHECK(journal.entries[0].previous_sha256 == "old");
  CHECK(journal.entries[1].previous_target == "../old/libnvJitLink.so.12");
  CHECK(journal.entries[2] == file_entry(unhook, "gone")); // to be removed: listed as it is
  CHECK(journal_of(next, std::nullopt) == next);            // a first repair replaces nothing

  // Killed before any rename: the disk still holds the old versions, which are condacuda's.
  auto again = compute_changes(want, journal, before, "t");
  CHECK_FALSE(again.conflicts());
  CHECK(change_for(again, hook).action == Action::update);
  CHECK(change_for(again, jit_link).action == Action::update);
  CHECK(change_for(again, unhook).action == Action::remove);
  for (const auto& e : again.manifest.entries) CHECK(e.previous_sha256.empty());
  auto undone = undo_changes(journal, before);
  for (const auto& c : undone.changes) CHECK(c.action == Action::remove);
  // A third state of the file is still not condacuda's.
  CHECK(change_for(compute_changes(want, journal, {{hook, file_state("edited")}}, "t"), hook).action == Action::conflict);
}

namespace {
const std::string lib = "lib/python3.11/site-packages/nvidia/cusparse/lib/libcusparse.so.12";
const std::string orig(64, 'a'), pinned(64, 'b'), other(64, 'c');

PlannedPin planned_pin() { return {lib, "$ORIGIN", {4096}, "libnvJitLink.so.12: LD_LIBRARY_PATH gave /x"}; }
ManifestPin recorded_pin() { return {lib, orig, pinned, {4096}, original_store_path(lib)}; }
Manifest with_pin() {
  Manifest m = manifest_of({});
  m.pin = true;
  m.pins = {recorded_pin()};
  return m;
}
PinChange::Action action_of(const std::vector<PinChange>& changes) {
  REQUIRE(changes.size() == 1);
  return changes[0].action;
}
} // namespace

TEST_CASE("pin_changes: a new pin records the shas of the file now and pinned; the original is kept by path") {
  auto changes = pin_changes({planned_pin()}, std::nullopt, {{lib, {orig, pinned}}});
  CHECK(action_of(changes) == PinChange::Action::pin);
  CHECK(changes[0].pin == recorded_pin());
  CHECK(changes[0].pin.original.rfind("etc/condacuda/originals/", 0) == 0);
  CHECK(changes[0].pin.original != original_store_path("lib/other/libcusparse.so.12")); // one name per path
}

TEST_CASE("pin_changes: pinned already is kept; the original again (a killed run, a reinstall) is pinned again") {
  CHECK(action_of(pin_changes({planned_pin()}, with_pin(), {{lib, {pinned, ""}}})) == PinChange::Action::keep);
  CHECK(action_of(pin_changes({planned_pin()}, with_pin(), {{lib, {orig, pinned}}})) == PinChange::Action::pin);
}

TEST_CASE("pin_changes: a library replaced since its pin (a package update) is pinned anew from its new content") {
  auto changes = pin_changes({planned_pin()}, with_pin(), {{lib, {other, std::string(64, 'd')}}});
  CHECK(action_of(changes) == PinChange::Action::pin);
  CHECK(changes[0].pin.original_sha256 == other);
  CHECK(changes[0].pin.pinned_sha256 == std::string(64, 'd'));
}

TEST_CASE("pin_changes: a planned pin whose tags are not where the plan found them, or no file, is a conflict") {
  CHECK(action_of(pin_changes({planned_pin()}, std::nullopt, {{lib, {other, ""}}})) == PinChange::Action::conflict);
  CHECK(action_of(pin_changes({planned_pin()}, std::nullopt, {{lib, {"", ""}}})) == PinChange::Action::conflict);
  ChangeSet set;
  set.pins = pin_changes({planned_pin()}, std::nullopt, {{lib, {"", ""}}});
  CHECK(set.conflicts());
}

TEST_CASE("pin_changes and undo: a pin no longer wanted is undone, dropped when original, left when changed") {
  CHECK(action_of(pin_changes({}, with_pin(), {{lib, {pinned, ""}}})) == PinChange::Action::unpin);
  CHECK(action_of(pin_changes({}, with_pin(), {{lib, {orig, pinned}}})) == PinChange::Action::drop);
  CHECK(action_of(pin_changes({}, with_pin(), {{lib, {other, ""}}})) == PinChange::Action::leave);
  auto undo = undo_changes(with_pin(), {}, {{lib, {pinned, ""}}});
  REQUIRE(undo.pins.size() == 1);
  CHECK(undo.pins[0].action == PinChange::Action::unpin);
  CHECK(undo_changes(with_pin(), {}, {{lib, {other, ""}}}).pins[0].action == PinChange::Action::leave);
}

TEST_CASE("compute_changes with pins: the manifest keeps the pin mode and lists pinned, kept and left pins") {
  DesiredState d = wanted({});
  d.pin = true;
  d.pins = {planned_pin()};
  auto set = compute_changes(d, std::nullopt, {}, "condacuda test", {{lib, {orig, pinned}}});
  CHECK(set.writes());
  CHECK(set.manifest.pin);
  REQUIRE(set.manifest.pins.size() == 1);
  CHECK(set.manifest.pins[0] == recorded_pin());
  // Unchanged on a second run: nothing to write.
  auto again = compute_changes(d, set.manifest, {}, "condacuda test", {{lib, {pinned, ""}}});
  CHECK_FALSE(again.writes());
  CHECK(again.manifest.pins == set.manifest.pins);
}

TEST_CASE("journal: a pin being undone stays listed until the final manifest") {
  Manifest next = manifest_of({});
  auto journal = journal_of(next, with_pin());
  REQUIRE(journal.pins.size() == 1);
  CHECK(journal.pins[0] == recorded_pin());
}

// decide_repair: what a repair without conflict comes to, the same for a dry
// run. The status a user reads (repaired, unchanged, nothing-to-do,
// would-repair) follows from it.
TEST_CASE("decide_repair: a change to write, the same record, or nothing wanted") {
  const DesiredState d = wanted({file_entry(hook, "h")});
  std::map<std::string, PathState> absent;
  // Never repaired: the hook is to be created.
  ChangeSet first = compute_changes(d, std::nullopt, absent, "t");
  REQUIRE(first.writes());
  CHECK(decide_repair(d, std::nullopt, first) == RepairDecision::write);

  // Repaired already, the hook as recorded: unchanged, dry run or not.
  const Manifest previous = first.manifest;
  std::map<std::string, PathState> written{{hook, file_state(d.entries.front().entry.sha256)}};
  ChangeSet again = compute_changes(d, previous, written, "t");
  REQUIRE_FALSE(again.writes());
  CHECK(decide_repair(d, previous, again) == RepairDecision::unchanged);

  // The same files but a record that differs (one more launch): written.
  DesiredState more = d;
  more.launches.push_back(std::string("/opt/cuda/lib64"));
  ChangeSet relaunch = compute_changes(more, previous, written, "t");
  REQUIRE_FALSE(relaunch.writes());
  CHECK(decide_repair(more, previous, relaunch) == RepairDecision::write);

  // Never repaired and nothing wanted: nothing to do (no record is written),
  // which a dry run says too (it said would-repair).
  DesiredState none;
  ChangeSet empty = compute_changes(none, std::nullopt, absent, "t");
  REQUIRE_FALSE(empty.writes());
  CHECK(decide_repair(none, std::nullopt, empty) == RepairDecision::nothing_to_do);
}
