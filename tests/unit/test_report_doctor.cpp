// report/doctor_report: the condacuda.doctor/1 JSON, its fields in order with
// their types, for a report built by hand. Scripts read these names.
#include <doctest/doctest.h>

#include <string>

#include "report/doctor_report.hpp"
#include "support/json_shape.hpp"

using namespace condacuda;
using json_shape::member;
using json_shape::shape;

namespace {

const std::string cusparse = "lib/python3.11/site-packages/nvidia/cusparse/lib/libcusparse.so.12";
const std::string nvjitlink = "lib/python3.11/site-packages/nvidia/nvjitlink/lib/libnvJitLink.so.12";

doctor::Finding shadow_finding() {
  doctor::Finding f;
  f.code = doctor::code::undefined_symbol;
  f.title = "libnvJitLink.so.12 from /opt/cuda-12.0/lib64/libnvJitLink.so.12 lacks __nvJitLinkAddData_12_1";
  f.library = "libnvJitLink.so.12";
  f.symbols = "__nvJitLinkAddData_12_1";
  f.version = "libnvJitLink.so.12";
  f.resolved = "/opt/cuda-12.0/lib64/libnvJitLink.so.12";
  f.via = "ld_library_path";
  f.via_entry = "/opt/cuda-12.0/lib64";
  f.expected = nvjitlink;
  f.expected_package = "nvidia-nvjitlink-cu12 12.4.127";
  f.expected_satisfies = true;
  f.min_release = "12.1";
  f.evidence = {"found through LD_LIBRARY_PATH entry '/opt/cuda-12.0/lib64'"};
  f.affects = {cusparse};
  f.first_error = cusparse + ": undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12";
  f.fix = "run `condacuda repair -p '/envs/demo'`";
  return f;
}

doctor::DoctorReport sample() {
  doctor::DoctorReport r;
  r.inputs.env = env::EnvRecord{"demo", "/envs/demo", env::EnvKind::conda, "--prefix"};
  r.inputs.base_ld_library_path = "/opt/cuda-12.0/lib64";
  r.inputs.ld_library_path_source = doctor::BasePathSource::given;
  r.inputs.config.ld_library_path = "/opt/cuda-12.0/lib64";
  r.inputs.config.glibc_minor = 39;
  r.inputs.config.cwd = "/home/u";
  doctor::RootResult loads;
  loads.file = nvjitlink;
  loads.kind = doctor::RootKind::library;
  loads.component = "nvjitlink";
  doctor::RootResult fails;
  fails.file = cusparse;
  fails.kind = doctor::RootKind::consumer; // a consumer has no component: the key is left out
  fails.loads = false;
  fails.first_error = shadow_finding().first_error;
  loader::LoadError e;
  e.kind = loader::ErrorKind::undefined_symbol;
  e.objname = cusparse;
  e.text = "undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12";
  fails.report.errors = {e};
  fails.report.ok = false;
  r.roots = {loads, fails};
  doctor::Finding warning;
  warning.code = doctor::code::empty_path_entry;
  warning.severity = doctor::Severity::warning;
  warning.title = "LD_LIBRARY_PATH has an empty entry";
  warning.fix = "export LD_LIBRARY_PATH=...";
  r.findings = {shadow_finding(), warning};
  return r;
}

} // namespace

TEST_CASE("condacuda.doctor/1: the top-level fields in order with their types") {
  auto j = report::doctor_json(sample());
  CHECK(j.string_at("schema") == "condacuda.doctor/1");
  CHECK(shape(j) == "schema:string env:object ld_library_path:object context:string host:object loader:object node:object "
                    "summary:object healthy:bool roots:array imports:null python:null programs:array kernels:array pinned:array findings:array");
  CHECK(shape(member(j, "env")) == "name:string prefix:string kind:string");
  CHECK(member(j, "env").string_at("kind") == "conda");
  CHECK(shape(member(j, "ld_library_path")) == "base:string source:string hook_applied:bool assumed:string");
  CHECK(member(j, "ld_library_path").string_at("source") == "--ld-library-path");
  // No python: the minimal C host, no program, no start-up error.
  CHECK(shape(member(j, "host")) == "kind:string program:null error:null");
  CHECK(member(j, "host").string_at("kind") == "minimal");
  CHECK(shape(member(j, "loader")) == "glibc:string glibc_source:string platform:string hwcaps:array cwd:string");
  CHECK(member(j, "loader").string_at("glibc") == "2.39");
  CHECK_FALSE(member(j, "healthy").as_bool(true));
}

TEST_CASE("condacuda.doctor/1: the summary counts roots and findings") {
  auto j = report::doctor_json(sample());
  const auto& s = member(j, "summary");
  CHECK(shape(s) == "roots:int loads:int fails:int errors:int warnings:int");
  CHECK(member(s, "roots").as_int() == 2);
  CHECK(member(s, "loads").as_int() == 1);
  CHECK(member(s, "fails").as_int() == 1);
  CHECK(member(s, "errors").as_int() == 1);
  CHECK(member(s, "warnings").as_int() == 1);
}

TEST_CASE("condacuda.doctor/1: roots with their verdict and the loader's errors") {
  auto j = report::doctor_json(sample());
  const auto& roots = member(j, "roots").as_array();
  REQUIRE(roots.size() == 2);
  CHECK(shape(roots[0]) == "file:string kind:string component:string verdict:string error:null requirement:null covered_by:array errors:array contexts:object");
  CHECK(roots[0].string_at("verdict") == "loads");
  CHECK(shape(roots[1]) == "file:string kind:string verdict:string error:string requirement:null covered_by:array errors:array contexts:object");
  CHECK(roots[1].string_at("verdict") == "fails");
  CHECK(member(roots[1], "errors").as_array().size() == 1);
  CHECK(member(roots[1], "errors").as_array()[0].as_string() ==
        cusparse + ": undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12");
}

TEST_CASE("condacuda.doctor/1: a finding's fields, empty ones null") {
  auto j = report::doctor_json(sample());
  const auto& findings = member(j, "findings").as_array();
  REQUIRE(findings.size() == 2);
  const auto& f = findings[0];
  CHECK(shape(f) == "code:string severity:string title:string library:string symbol:string version:string "
                    "resolved_path:string via:string via_entry:string expected:string expected_package:string "
                    "expected_satisfies:bool min_release:string evidence:array affects:array first_error:string fix:string "
                    "actions:array");
  CHECK(f.string_at("code") == "undefined-symbol");
  CHECK(f.string_at("severity") == "error");
  CHECK(f.string_at("symbol") == "__nvJitLinkAddData_12_1");
  CHECK(f.string_at("resolved_path") == "/opt/cuda-12.0/lib64/libnvJitLink.so.12");
  CHECK(member(f, "affects").as_array().size() == 1);
  CHECK(shape(findings[1]) == "code:string severity:string title:string library:null symbol:null version:null "
                              "resolved_path:null via:null via_entry:null expected:null expected_package:null "
                              "expected_satisfies:bool min_release:null evidence:array affects:array first_error:null "
                              "fix:string actions:array");
  CHECK(findings[1].string_at("severity") == "warning");
}

TEST_CASE("condacuda.doctor/1: an unset LD_LIBRARY_PATH is null, a python host names its program") {
  auto r = sample();
  r.inputs.base_ld_library_path.reset();
  r.inputs.config.ld_library_path.reset();
  r.inputs.host_program = "/envs/demo/bin/python3.11";
  r.host_error = "python3.11: error while loading shared libraries";
  auto j = report::doctor_json(r);
  CHECK(shape(member(j, "ld_library_path")) == "base:null source:string hook_applied:bool assumed:null");
  CHECK(shape(member(j, "host")) == "kind:string program:string error:string");
  CHECK(member(j, "host").string_at("kind") == "python");
}
