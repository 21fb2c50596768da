// report/repair_report: the condacuda.repair/1 and condacuda.undo/1 JSON,
// their fields in order with their types, for outcomes built by hand.
#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "report/repair_report.hpp"
#include "support/json_shape.hpp"

using namespace condacuda;
using json_shape::member;
using json_shape::shape;

namespace {

const env::EnvRecord demo{"demo", "/envs/demo", env::EnvKind::conda, "--prefix"};
const std::string cusparse_dir = "lib/python3.11/site-packages/nvidia/cusparse/lib";
const std::string nvjitlink_dir = "lib/python3.11/site-packages/nvidia/nvjitlink/lib";

repair::Change change(repair::Change::Action action, const std::string& path, repair::ManifestEntry::Kind kind) {
  return {action, path, kind, "why"};
}

// A repair that was written: plan, verification, changes and doctor after.
app::RepairOutcome repaired() {
  app::RepairOutcome r;
  r.env = demo;
  r.status = app::RepairStatus::repaired;
  r.plan.folders = {{nvjitlink_dir, {"libnvJitLink.so.12"}}};
  r.plan.links = {{cusparse_dir + "/libnvJitLink.so.12", "../../nvjitlink/lib/libnvJitLink.so.12", "libnvJitLink.so.12",
                   cusparse_dir + "/libcusparse.so.12"}};
  r.hooks = {"etc/conda/activate.d/condacuda.sh", "etc/conda/deactivate.d/condacuda.sh"};
  repair::Scenario hostile{"system CUDA first", "the system CUDA folders first", true, {}, {}};
  doctor::Finding f;
  f.code = doctor::code::undefined_symbol;
  f.title = "lacks __nvJitLinkAddData_12_1";
  f.fix = "run repair";
  hostile.report.findings = {f};
  doctor::RootResult root;
  root.file = cusparse_dir + "/libcusparse.so.12";
  root.loads = false;
  hostile.report.roots = {root};
  r.verification.ok = false;
  r.verification.scenarios = {hostile};
  repair::ChangeSet set;
  set.changes = {change(repair::Change::Action::create, "etc/conda/activate.d/condacuda.sh", repair::ManifestEntry::Kind::file),
                 change(repair::Change::Action::keep, cusparse_dir + "/libnvJitLink.so.12", repair::ManifestEntry::Kind::symlink)};
  r.changes = set;
  r.after = std::pair<int, int>{0, 1};
  return r;
}

} // namespace

TEST_CASE("condacuda.repair/1: the top-level fields in order with their types") {
  auto j = report::repair_json(repaired());
  CHECK(j.string_at("schema") == "condacuda.repair/1");
  CHECK(shape(j) == "schema:string env:object dry_run:bool outcome:string plan:object verification:object changes:array "
                    "pin_changes:array failure:null notes:array kernels:array still_failing:array next_step:null after:object");
  CHECK(shape(member(j, "env")) == "name:string prefix:string kind:string");
  CHECK(j.string_at("outcome") == "repaired");
  CHECK(shape(member(j, "after")) == "healthy:bool errors:int warnings:int");
  CHECK(member(member(j, "after"), "healthy").as_bool());
  CHECK(member(member(j, "after"), "warnings").as_int() == 1);
}

TEST_CASE("condacuda.repair/1: the plan's folders, links and hooks") {
  auto j = report::repair_json(repaired());
  const auto& plan = member(j, "plan");
  CHECK(shape(plan) == "folders:array links:array pin:bool pins:array unpinnable:array copies:array order_limits:array hooks:array launches:array");
  const auto& folders = member(plan, "folders").as_array();
  REQUIRE(folders.size() == 1);
  CHECK(shape(folders[0]) == "path:string sonames:array");
  CHECK(folders[0].string_at("path") == nvjitlink_dir);
  const auto& links = member(plan, "links").as_array();
  REQUIRE(links.size() == 1);
  CHECK(shape(links[0]) == "path:string target:string soname:string needed_by:string");
  CHECK(links[0].string_at("target") == "../../nvjitlink/lib/libnvJitLink.so.12");
  CHECK(links[0].string_at("needed_by") == cusparse_dir + "/libcusparse.so.12");
  CHECK(member(plan, "hooks").as_array().size() == 2);
}

TEST_CASE("condacuda.repair/1: verification scenarios and the changes") {
  auto j = report::repair_json(repaired());
  const auto& v = member(j, "verification");
  CHECK(shape(v) == "ok:bool scenarios:array");
  CHECK_FALSE(member(v, "ok").as_bool(true));
  const auto& scenarios = member(v, "scenarios").as_array();
  REQUIRE(scenarios.size() == 1);
  CHECK(shape(scenarios[0]) == "name:string description:string required:bool healthy:bool passes:bool roots:int "
                                     "fails:int findings:array");
  CHECK_FALSE(member(scenarios[0], "healthy").as_bool(true));
  CHECK(member(scenarios[0], "fails").as_int() == 1);
  const auto& findings = member(scenarios[0], "findings").as_array();
  REQUIRE(findings.size() == 1);
  CHECK(shape(findings[0]) == "code:string severity:string title:string fix:string");
  const auto& changes = member(j, "changes").as_array();
  REQUIRE(changes.size() == 2);
  CHECK(shape(changes[0]) == "path:string kind:string action:string reason:string");
  CHECK(changes[0].string_at("action") == "create");
  CHECK(changes[0].string_at("kind") == "file");
  CHECK(changes[1].string_at("action") == "keep");
  CHECK(changes[1].string_at("kind") == "symlink");
}

TEST_CASE("condacuda.repair/1: outcome is the status's name; absent changes, failure and after are null") {
  app::RepairOutcome r;
  r.env = demo;
  r.dry_run = true;
  r.failure = "libnvJitLink.so.12 is not in the env";
  for (auto status : {app::RepairStatus::repaired, app::RepairStatus::unchanged, app::RepairStatus::nothing_to_do,
                      app::RepairStatus::would_repair, app::RepairStatus::cannot_repair, app::RepairStatus::conflict,
                      app::RepairStatus::error}) {
    r.status = status;
    CHECK(report::repair_json(r).string_at("outcome") == app::to_string(status));
  }
  r.status = app::RepairStatus::would_repair;
  auto j = report::repair_json(r);
  CHECK(j.string_at("outcome") == "would-repair");
  CHECK(member(j, "dry_run").as_bool());
  CHECK(shape(j) == "schema:string env:object dry_run:bool outcome:string plan:object verification:object changes:null "
                    "pin_changes:null failure:string notes:array kernels:array still_failing:array next_step:null after:null");
  CHECK(j.string_at("failure") == "libnvJitLink.so.12 is not in the env");
}

TEST_CASE("condacuda.undo/1: env, whether there was a manifest, and the changes") {
  app::UndoOutcome u;
  u.env = demo;
  u.had_manifest = true;
  u.changes.changes = {change(repair::Change::Action::remove, "etc/conda/activate.d/condacuda.sh", repair::ManifestEntry::Kind::file),
                       change(repair::Change::Action::leave, "etc/conda/deactivate.d/condacuda.sh", repair::ManifestEntry::Kind::file)};
  auto j = report::undo_json(u);
  CHECK(j.string_at("schema") == "condacuda.undo/1");
  CHECK(shape(j) == "schema:string env:object had_manifest:bool changes:array pin_changes:array");
  CHECK(member(j, "had_manifest").as_bool());
  const auto& changes = member(j, "changes").as_array();
  REQUIRE(changes.size() == 2);
  CHECK(shape(changes[1]) == "path:string kind:string action:string reason:string");
  CHECK(changes[1].string_at("action") == "leave");
  // Nothing to undo: still the same fields, an empty list.
  auto none = report::undo_json(app::UndoOutcome{demo, {}, false});
  CHECK(shape(none) == "schema:string env:object had_manifest:bool changes:array pin_changes:array");
  CHECK(member(none, "changes").as_array().empty());
}
