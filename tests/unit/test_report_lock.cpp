// report/lock_report: the fields of the condacuda.lock/2 and
// condacuda.lock-check/1 JSON in order with their types. test_lock_file.cpp
// checks the schema strings and the values of the demo lock and its diff;
// this file adds the field names and types scripts rely on.
#include <doctest/doctest.h>

#include <string>

#include "report/lock_report.hpp"
#include "support/json_shape.hpp"

using namespace condacuda;
using json_shape::member;
using json_shape::shape;

namespace {

lock::Lockfile sample() {
  lock::Lockfile l;
  l.env = "demo";
  l.release_table = "condacuda-releases-2025.1";
  l.release_table_sha256 = std::string(64, 'e');
  l.alignment.series = "12.4";
  l.alignment.aligned = false;
  l.alignment.rules = {{"symbols", lock::RuleResult::fail, "12.1", {"1 missing: __nvJitLinkAddData_12_1"}},
                       {"driver", lock::RuleResult::skipped, "", {"no NVIDIA driver visible"}}};
  lock::LockedComponent pip;
  pip.component = "nvjitlink";
  pip.soname = "libnvJitLink.so.12";
  pip.path = "lib/python3.11/site-packages/nvidia/nvjitlink/lib/libnvJitLink.so.12";
  pip.manager = "pip";
  pip.package = "nvidia-nvjitlink-cu12";
  pip.version = "12.4.127";
  pip.sha256 = std::string(64, 'c');
  pip.toolkit = true;
  pip.cuda_major = 12;
  pip.cuda_release = "12.4";
  lock::LockedComponent unowned; // no package, CUDA major unknown, no conda build
  unowned.component = "cudnn";
  unowned.soname = "libcudnn.so.9";
  unowned.path = "lib/libcudnn.so.9";
  unowned.sha256 = std::string(64, 'd');
  unowned.cuda_release = "none";
  l.components = {pip, unowned};
  return l;
}

} // namespace

const env::EnvRecord demo_env{"demo", "/envs/demo", env::EnvKind::conda, ""};

TEST_CASE("condacuda.lock/2: the top-level fields, the verdict and each rule with their types") {
  auto j = report::lock_json(sample(), demo_env, "cuda.lock.yml");
  CHECK(j.string_at("schema") == "condacuda.lock/2");
  CHECK(shape(j) ==
        "schema:string env:object output:string version:int release_table:object alignment:object components:array");
  CHECK(shape(member(j, "env")) == "name:string prefix:string kind:string");
  CHECK(member(report::lock_json(sample(), demo_env, ""), "output").is_null()); // printed, not written
  CHECK(shape(member(j, "release_table")) == "name:string sha256:string");
  const auto& alignment = member(j, "alignment");
  CHECK(shape(alignment) == "series:string aligned:bool rules:array");
  CHECK_FALSE(member(alignment, "aligned").as_bool(true));
  const auto& rules = member(alignment, "rules").as_array();
  REQUIRE(rules.size() == 2);
  CHECK(shape(rules[0]) == "rule:string result:string min_release:string evidence:array");
  CHECK(rules[0].string_at("result") == "fail");
  CHECK(shape(rules[1]) == "rule:string result:string min_release:null evidence:array");
  CHECK(rules[1].string_at("result") == "skipped");
}

TEST_CASE("condacuda.lock/2: each component's fields, unknown values null") {
  auto j = report::lock_json(sample(), demo_env, "");
  const auto& components = member(j, "components").as_array();
  REQUIRE(components.size() == 2);
  const std::string head = "component:string soname:string path:string manager:string package:string version:string ";
  CHECK(shape(components[0]) == head + "build:null sha256:string toolkit:bool cuda_major:int cuda_release:string");
  CHECK(member(components[0], "cuda_major").as_int() == 12);
  CHECK(shape(components[1]) == head + "build:null sha256:string toolkit:bool cuda_major:null cuda_release:string");
  CHECK(components[1].string_at("cuda_release") == "none");
}

TEST_CASE("condacuda.lock-check/1: lock, env, verdict, changes with their reasons, notes, the env now") {
  lock::LockDiff d;
  d.changes = {{lock::ChangeKind::sha256, "cusparse lib/libcusparse.so.12", "aaaa", "bbbb", {}},
               {lock::ChangeKind::verdict, "rule symbols", "pass", "fail", {"1 missing: __nvJitLinkAddData_12_1"}}};
  d.notes = {"the env's name differs"};
  d.components = 3;
  d.series = "12.4";
  d.aligned = false;
  auto j = report::lock_check_json(d, "cuda.lock.yml", env::EnvRecord{"demo", "/envs/demo", env::EnvKind::conda, ""});
  CHECK(shape(j) ==
        "schema:string env:object lock:string matches:bool changes:array loads_here:object rules_here:array notes:array now:object");
  CHECK(shape(member(j, "loads_here")) == "ld_library_path:null loads:bool failures:array");
  CHECK(shape(member(j, "env")) == "name:string prefix:string kind:string");
  const auto& changes = member(j, "changes").as_array();
  REQUIRE(changes.size() == 2);
  CHECK(shape(changes[1]) == "kind:string what:string locked:string now:string why:array");
  CHECK(changes[0].string_at("kind") == "sha256");
  CHECK(member(changes[1], "why").as_array().size() == 1);
  CHECK(shape(member(j, "now")) == "series:string aligned:bool components:int");
  CHECK(member(member(j, "now"), "components").as_int() == 3);
  // A clean check: the same fields, matches true, nothing listed.
  auto clean = report::lock_check_json(lock::LockDiff{}, "cuda.lock.yml", env::EnvRecord{"demo", "/envs/demo", env::EnvKind::conda, ""});
  CHECK(shape(clean) == shape(j));
  CHECK(member(clean, "matches").as_bool());
  CHECK(member(clean, "changes").as_array().empty());
}
