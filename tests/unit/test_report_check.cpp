// report/check_report: the fields of the condacuda.check/1 JSON in order with
// their types. test_check_protocol.cpp checks the schema string and the
// values of a passing run (libraries, steps, rates, device); this file adds
// the field list scripts rely on, for a run that found no GPU.
#include <doctest/doctest.h>

#include "util/strings.hpp"

#include <string>

#include "report/check_report.hpp"
#include "support/json_shape.hpp"

using namespace condacuda;
using namespace condacuda::check;
using json_shape::member;
using json_shape::shape;

namespace {

// `condacuda check` on a machine without a driver: the probe ran, libcuda.so.1
// did not load, as predicted.
CheckReport no_gpu_report() {
  CheckReport r;
  r.env = env::EnvRecord{"demo", "/envs/demo", env::EnvKind::conda, "--prefix"};
  r.ld_library_path = "/envs/demo/lib";
  r.hook_applied = true;
  r.ld_library_path_source = launch::ActivatedSource::hook;
  r.timeout_s = 60;
  PlannedLibrary driver;
  driver.request = {Component::driver, "libcuda.so.1"};
  driver.soname = "libcuda.so.1";
  driver.reason = "the driver is opened by soname";
  driver.predicted_error = "libcuda.so.1: cannot open shared object file: No such file or directory";
  r.plan.libraries = {driver};
  r.plan.missing = {"cudart"};
  LibraryLoad load;
  load.component = Component::driver;
  load.open = "libcuda.so.1";
  load.error = driver.predicted_error;
  load.load_ms = 0.25;
  r.probe.started = true;
  r.probe.finished = true;
  r.probe.libraries = {load};
  r.child.started = true;
  r.child.exit_code = 3;
  r.child.wall_ms = 40.5;
  r.library_comparisons = {{Component::driver, true, ""}};
  r.warnings = {{"missing-library", "cudart is not in the env"}};
  doctor::Finding f;
  f.code = doctor::code::stubs_on_path;
  f.severity = doctor::Severity::warning;
  f.title = "a CUDA stubs folder is on LD_LIBRARY_PATH";
  f.via_entry = "/usr/local/cuda/lib64/stubs";
  f.fix = "remove it";
  r.findings = {f};
  r.outcome = Outcome::no_gpu;
  r.reason = "no usable GPU: libcuda.so.1 not found";
  r.wall_ms = 41.0;
  return r;
}

} // namespace

TEST_CASE("condacuda.check/1: the top-level fields in order with their types") {
  auto j = report::check_json(no_gpu_report(), 3);
  CHECK(j.string_at("schema") == report::check_schema);
  CHECK(shape(j) == "schema:string env:object outcome:string exit_code:int reason:string sizes:string wall_ms:number "
                    "ld_library_path:object probe:object libraries:array missing_components:array loaded_objects:object "
                    "gpu_coverage:array driver:object device:null phases:array steps:array warnings:array findings:array python:null");
  CHECK(j.string_at("outcome") == "no-gpu");
  CHECK(member(j, "exit_code").as_int() == 3);
  CHECK(shape(member(j, "ld_library_path")) == "value:string hook_applied:bool source:string planned_folders:array");
  CHECK(member(j, "ld_library_path").string_at("source") == "hook");
  CHECK(shape(member(j, "probe")) == "outcome:string timed_out:bool finished:bool in_progress:null wall_ms:number "
                                  "started_with:null protocol_errors:array notes:array stderr_tail:null");
  CHECK(shape(member(j, "loaded_objects")) == "compared:bool matches:bool only_in_probe:array only_in_prediction:array");
  // No driver version known, cuInit never called: both texts null.
  CHECK(member(member(j, "driver"), "version_text").is_null());
  CHECK(member(member(j, "driver"), "init_name").is_null());
}

TEST_CASE("condacuda.check/1: a library's load, its prediction and how they compare") {
  auto j = report::check_json(no_gpu_report(), 3);
  const auto& libs = member(j, "libraries").as_array();
  REQUIRE(libs.size() == 1);
  CHECK(shape(libs[0]) == "component:string soname:string open:string opened_by:string why:string env_file:null "
                          "loaded:bool path:null error:string load_ms:number version:null predicted:object "
                          "prediction_matches:bool difference:null");
  CHECK(libs[0].string_at("opened_by") == "soname");
  CHECK(shape(member(libs[0], "predicted")) == "loads:bool path:null error:string via:null entry:null");
  CHECK(member(j, "missing_components").as_array().size() == 1);
}

TEST_CASE("condacuda.check/1: phases, warnings and doctor's findings") {
  auto j = report::check_json(no_gpu_report(), 3);
  const auto& phases = member(j, "phases").as_array();
  REQUIRE(phases.size() == 1); // the dlopen of each library is a phase
  CHECK(shape(phases[0]) == "name:string ms:number");
  CHECK(phases[0].string_at("name") == "dlopen libcuda.so.1");
  const auto& warnings = member(j, "warnings").as_array();
  REQUIRE(warnings.size() == 1);
  CHECK(shape(warnings[0]) == "code:string message:string");
  const auto& findings = member(j, "findings").as_array();
  REQUIRE(findings.size() == 1);
  CHECK(shape(findings[0]) == "code:string severity:string title:string library:null resolved_path:null via_entry:string "
                              "fix:string");
  CHECK(findings[0].string_at("severity") == "warning");
}

TEST_CASE("condacuda.check/1: with --python, one record per framework; an unset LD_LIBRARY_PATH is null") {
  auto r = no_gpu_report();
  r.ld_library_path.reset();
  r.python_requested = true;
  r.python = {{"torch", check::FrameworkStatus::fail, "2.5.0", "", "ImportError: libcusparse.so.12", "undefined-symbol", "", "condacuda repair"}};
  auto j = report::check_json(r, 1);
  CHECK(member(member(j, "ld_library_path"), "value").is_null());
  const auto& python = member(j, "python");
  REQUIRE(python.is_array());
  REQUIRE(python.as_array().size() == 1);
  CHECK(shape(python.as_array()[0]) == "framework:string status:string version:string detail:null error:string "
                                       "finding:string fix:string");
  CHECK(python.as_array()[0].string_at("finding") == "undefined-symbol");
}

TEST_CASE("check text: where the probe's LD_LIBRARY_PATH comes from, for each source") {
  CheckReport r = no_gpu_report();
  const std::vector<std::pair<launch::ActivatedSource, std::string>> said = {
      {launch::ActivatedSource::hook, "(the env's condacuda hook applied)"},
      {launch::ActivatedSource::plan, "(not repaired: with the folders repair would add"},
      {launch::ActivatedSource::stale_hook, "(the env changed since its repair: with the folders repair would add today"},
      {launch::ActivatedSource::as_is, "(as this shell has it)"},
  };
  for (const auto& [source, words] : said) {
    r.ld_library_path_source = source;
    // (a note too long for the line goes on under it, 2 in)
    const std::string text = util::replace_all(report::check_text(r, report::Style{}), "\n  ", " ");
    CHECK_MESSAGE(text.find("LD_LIBRARY_PATH '/envs/demo/lib'  " + words) != std::string::npos, launch::to_string(source));
  }
}
