// The probe protocol (request, JSON-lines records, folding a truncated
// stream), the verdict (exit categories and reasons), warnings, rates in the
// report, the condacuda.check/1 JSON, and the --python output mapping.
#include <doctest/doctest.h>

#include "check/cuda_names.hpp"
#include "check/protocol.hpp"
#include "check/verdict.hpp"
#include "report/check_report.hpp"

using namespace condacuda;
using namespace condacuda::check;

namespace {
std::string lines(std::initializer_list<util::Json> records) {
  std::string out;
  for (const auto& r : records) out += r.dump(-1) + "\n";
  return out;
}

LibraryLoad lib(Component c, std::string open, bool loaded, std::string path_or_error) {
  LibraryLoad l;
  l.component = c;
  l.open = std::move(open);
  l.loaded = loaded;
  (loaded ? l.path : l.error) = std::move(path_or_error);
  return l;
}

StepResult step(std::string name, StepStatus status, std::string error = "") {
  StepResult s;
  s.name = std::move(name);
  s.status = status;
  s.error = std::move(error);
  return s;
}

DeviceInfo h200() {
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.count = 1;
  d.facts = {9, 0, 132, 1980000, 3201000, 6144};
  d.l2_bytes = 60 << 20;
  d.total_memory = 150ull << 30;
  d.persistence_mode = false;
  return d;
}

// A report whose child ran: the plan has the driver and cublas.
CheckReport started_report() {
  CheckReport r;
  r.child.started = true;
  r.child.exit_code = 0;
  r.timeout_s = 60;
  PlannedLibrary drv;
  drv.request = {Component::driver, "libcuda.so.1"};
  drv.soname = "libcuda.so.1";
  PlannedLibrary blas;
  blas.request = {Component::cublas, "/env/lib/libcublas.so.13"};
  blas.soname = "libcublas.so.13";
  r.plan.libraries = {drv, blas};
  return r;
}

// The records of a probe that got a device and ran `steps`.
ProbeResult device_probe(std::vector<StepResult> steps) {
  DriverInfo d;
  d.init_called = true;
  d.init_result = 0;
  d.version = 13000;
  std::initializer_list<util::Json> head = {start_record(std::string("/env/lib")),
                                            library_record(lib(Component::driver, "libcuda.so.1", true, "/usr/lib/libcuda.so.1")),
                                            library_record(lib(Component::cublas, "/env/lib/libcublas.so.13", true, "/env/lib/libcublas.so.13")),
                                            objects_record({"", "/usr/lib/libcuda.so.1"}),
                                            driver_record(d), device_record(h200())};
  std::string text = lines(head);
  text += lines({step_record(step("driver", StepStatus::pass))});
  for (const auto& s : steps) text += lines({begin_record(s.name), step_record(s)});
  text += lines({end_record()});
  return fold_records(text);
}
} // namespace

TEST_CASE("the probe request survives the JSON round trip and is checked") {
  ProbeRequest r;
  r.libraries = {{Component::driver, "libcuda.so.1"}, {Component::cusparse, "/env/nvidia/cu13/lib/libcusparse.so.12"}};
  r.device = 1;
  r.sizes = quick_sizes();
  r.link_only_arch = "sm_90";
  auto back = request_from_json(request_json(r).dump(-1));
  REQUIRE(back.ok());
  CHECK(request_json(*back) == request_json(r));
  CHECK_FALSE(request_from_json("{\"schema\":\"other/1\"}").ok());
  CHECK_FALSE(request_from_json("not json").ok());
  CHECK_FALSE(request_from_json(R"({"schema":"condacuda.probe-request/1","libraries":[{"component":"nope","open":"x"}]})").ok());
}

TEST_CASE("records fold into a result; a truncated stream keeps what arrived and names the unfinished step") {
  StepResult s = step("gemm-bf16", StepStatus::pass);
  s.size = "8192x8192x8192";
  s.unit = "flop";
  s.work = 2.0 * 8192 * 8192 * 8192;
  s.times_ms = {1.5, 1.4, 1.45};
  s.max_error = 3e-7;
  s.tolerance = 1e-5;
  s.checked = 64;
  s.deterministic = true;
  ProbeResult p = device_probe({s});
  CHECK(p.started);
  CHECK(p.finished);
  CHECK(p.ld_library_path == std::optional<std::string>("/env/lib"));
  REQUIRE(p.libraries.size() == 2);
  CHECK(p.libraries[1].path == "/env/lib/libcublas.so.13");
  CHECK(p.loaded_objects.size() == 2);
  REQUIRE(p.device);
  CHECK(p.device->name == "NVIDIA H200");
  CHECK(p.device->facts.sms == 132);
  CHECK(p.device->persistence_mode == std::optional<bool>(false));
  REQUIRE(p.step("gemm-bf16"));
  CHECK(step_json(*p.step("gemm-bf16")) == step_json(s));
  CHECK(p.in_progress.empty());
  CHECK(p.protocol_errors.empty());

  std::string text = lines({start_record(std::nullopt), begin_record("spmv")}) + "{\"event\":\"step\",\"na";
  ProbeResult cut = fold_records(text);
  CHECK(cut.started);
  CHECK_FALSE(cut.finished);
  CHECK_FALSE(cut.ld_library_path);
  CHECK(cut.in_progress == "spmv");
  CHECK(cut.protocol_errors.size() == 1);
  CHECK(fold_records("").protocol_errors.empty());
  CHECK(fold_records("garbage\n{\"event\":\"what\"}\n").protocol_errors.size() == 2);
}

TEST_CASE("verdict: no driver is exit-3 territory and says where the loader looked") {
  CheckReport r = started_report();
  r.plan.libraries[0].tried = {"/stubs/glibc-hwcaps/x86-64-v3/libcuda.so.1", "/stubs/libcuda.so.1",
                               "/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v2/libcuda.so.1",
                               "/lib/x86_64-linux-gnu/tls/x86_64/libcuda.so.1", "/lib/x86_64-linux-gnu/libcuda.so.1",
                               "/lib/libcuda.so.1"};
  CHECK(searched_folders(r.plan.libraries[0]) == std::vector<std::string>{"/stubs", "/lib/x86_64-linux-gnu", "/lib"});
  r.stub_folders = {"/usr/local/cuda/lib64/stubs"};
  r.probe = fold_records(lines({start_record(std::nullopt),
                                library_record(lib(Component::driver, "libcuda.so.1", false,
                                                   "libcuda.so.1: cannot open shared object file: No such file or directory")),
                                library_record(lib(Component::cublas, "/env/lib/libcublas.so.13", false, "undefined symbol: x")),
                                objects_record({""}), step_record(step("driver", StepStatus::skipped)), end_record()}));
  decide(r);
  CHECK(r.outcome == Outcome::no_gpu);
  CHECK(r.reason.find("libcuda.so.1 (the NVIDIA driver) was not found") != std::string::npos);
  CHECK(r.reason.find("looked in /stubs, /lib/x86_64-linux-gnu, /lib and /etc/ld.so.cache") != std::string::npos);
  CHECK(r.reason.find("/usr/local/cuda/lib64/stubs on LD_LIBRARY_PATH holds the CUDA toolkit's stub") != std::string::npos);
  CHECK(r.reason.find("besides, libcublas.so.13 did not load") != std::string::npos);
}

TEST_CASE("verdict: the stub (cuInit 34) names its LD_LIBRARY_PATH entry; other cuInit codes are named") {
  CheckReport r = started_report();
  r.plan.libraries[0].predicted_via = "ld_library_path";
  r.plan.libraries[0].predicted_entry = "/opt/cuda/lib64/stubs";
  DriverInfo d;
  d.init_called = true;
  d.init_result = cu::stub_library;
  std::initializer_list<util::Json> records = {
      start_record(std::nullopt),
      library_record(lib(Component::driver, "libcuda.so.1", true, "/opt/cuda/lib64/stubs/libcuda.so.1")),
      objects_record({""}), begin_record("driver"), driver_record(d),
      step_record(step("driver", StepStatus::fail, "cuInit: CUDA_ERROR_STUB_LIBRARY (34)")), end_record()};
  r.probe = fold_records(lines(records));
  decide(r);
  CHECK(r.outcome == Outcome::no_gpu);
  CHECK(r.reason.find("CUDA_ERROR_STUB_LIBRARY (34)") != std::string::npos);
  CHECK(r.reason.find("/opt/cuda/lib64/stubs/libcuda.so.1") != std::string::npos);
  CHECK(r.reason.find("LD_LIBRARY_PATH entry /opt/cuda/lib64/stubs") != std::string::npos);

  r.probe.driver.init_result = cu::no_device;
  decide(r);
  CHECK(r.outcome == Outcome::no_gpu);
  CHECK(r.reason.find("CUDA_ERROR_NO_DEVICE (100)") != std::string::npos);
  CHECK(r.reason.find("CUDA_VISIBLE_DEVICES") != std::string::npos);
  CHECK(cu_result_name(803) == "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
  CHECK(cu_result_name(12345) == "CUresult 12345");
  CHECK(nvjitlink_result_name(17) == "NVJITLINK_ERROR_UNSUPPORTED_ARCH");
  CHECK(cublas_status_name(13) == "CUBLAS_STATUS_EXECUTION_FAILED");
  CHECK(cusparse_status_name(6) == "CUSPARSE_STATUS_EXECUTION_FAILED");
}

TEST_CASE("verdict: hangs and crashes fail with the step they happened in, the driver step's too") {
  CheckReport r = started_report();
  r.child.timed_out = true;
  r.child.signal = 9;
  r.child.exit_code = -1;
  ProbeResult p = device_probe({});
  std::string text = lines({start_record(std::nullopt),
                            library_record(lib(Component::driver, "libcuda.so.1", true, "/usr/lib/libcuda.so.1")),
                            objects_record({""}), begin_record("driver")});
  r.probe = fold_records(text);
  decide(r);
  CHECK(r.outcome == Outcome::fail); // a hang in cuInit: what happened, not "no GPU"
  CHECK(r.reason == "the probe was killed after the 60 s timeout during step driver, in cuInit");
  // A crash after cuInit worked (an attribute query, the context): a failure that says so.
  r.child.timed_out = false;
  r.child.signal = 11;
  r.probe = fold_records(lines({start_record(std::nullopt),
                                library_record(lib(Component::driver, "libcuda.so.1", true, "/usr/lib/libcuda.so.1")),
                                objects_record({""}), begin_record("driver"), driver_record(p.driver)}));
  decide(r);
  CHECK(r.outcome == Outcome::fail);
  CHECK(r.reason.find("was killed by signal 11 (SIGSEGV) during step driver, after cuInit succeeded") != std::string::npos);
  // A device found whose attribute query then fails: the step's failure, exit 1.
  r.child = {};
  r.child.started = true;
  r.child.exit_code = 0;
  r.probe = fold_records(lines({start_record(std::nullopt),
                                library_record(lib(Component::driver, "libcuda.so.1", true, "/usr/lib/libcuda.so.1")),
                                objects_record({""}), begin_record("driver"), driver_record(p.driver), device_record(h200()),
                                step_record(step("driver", StepStatus::fail, "cuDeviceGetAttribute(75): CUDA_ERROR_INVALID_VALUE (1)")),
                                end_record()}));
  decide(r);
  CHECK(r.outcome == Outcome::fail);
  CHECK(r.reason.find("cuDeviceGetAttribute(75): CUDA_ERROR_INVALID_VALUE (1)") != std::string::npos);
  r.child.timed_out = true;
  r.child.signal = 9;
  r.child.exit_code = -1;
  r.child.started = true;

  text = lines({start_record(std::nullopt),
                library_record(lib(Component::driver, "libcuda.so.1", true, "/usr/lib/libcuda.so.1")),
                objects_record({""}), driver_record(p.driver), device_record(h200()),
                step_record(step("driver", StepStatus::pass)), begin_record("gemm-bf16")});
  r.probe = fold_records(text);
  r.child.timed_out = false;
  r.child.signal = 11;
  decide(r);
  CHECK(r.outcome == Outcome::fail);
  CHECK(r.reason == "the probe was killed by signal 11 (SIGSEGV) during step gemm-bf16");

  // Died while opening the second library of the plan.
  r.probe = fold_records(lines({start_record(std::nullopt),
                                library_record(lib(Component::driver, "libcuda.so.1", true, "/usr/lib/libcuda.so.1"))}));
  decide(r);
  CHECK(r.outcome == Outcome::fail);
  CHECK(r.reason == "the probe was killed by signal 11 (SIGSEGV) while opening /env/lib/libcublas.so.13");

  CheckReport never;
  never.child.spawn_error = "No such file or directory";
  decide(never);
  CHECK(never.outcome == Outcome::fail);
  CHECK(never.reason == "the probe could not be started: No such file or directory");
}

TEST_CASE("verdict: library and step failures fail; all steps passing (some skipped) passes") {
  CheckReport r = started_report();
  r.probe = device_probe({step("kernel", StepStatus::pass), step("gemm-bf16", StepStatus::pass),
                          step("spmv", StepStatus::skipped)});
  decide(r);
  CHECK(r.outcome == Outcome::pass);
  CHECK(r.reason == "every step passed");

  r.probe = device_probe({step("kernel", StepStatus::pass), step("gemm-tf32", StepStatus::fail, "error 0.1 > tolerance 0.002")});
  decide(r);
  CHECK(r.outcome == Outcome::fail);
  CHECK(r.reason == "step gemm-tf32 failed: error 0.1 > tolerance 0.002");

  r.probe = device_probe({});
  r.probe.libraries[1] = lib(Component::cublas, "/env/lib/libcublas.so.13", false, "/env/lib/libcublas.so.13: undefined symbol: s");
  decide(r);
  CHECK(r.outcome == Outcome::fail);
  CHECK(r.reason.find("/env/lib/libcublas.so.13 did not load") == 0);

  r.probe = device_probe({});
  r.python = {{"torch", FrameworkStatus::fail, "", "", "ImportError: x", "", "", ""}};
  decide(r);
  CHECK(r.outcome == Outcome::fail);
  CHECK(r.reason == "python: torch: ImportError: x");
}

TEST_CASE("warnings: override variables, persistence off, prediction mismatches, missing libraries") {
  auto w = environment_warnings({{"HOME", "/root"}, {"NVIDIA_TF32_OVERRIDE", "0"}, {"CUDA_VISIBLE_DEVICES", ""},
                                 {"CUDA_LAUNCH_BLOCKING", "0"}, {"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "1"}});
  REQUIRE(w.size() == 3);
  CHECK(w[0].code == "tf32-override");
  CHECK(w[0].message.find("TF32 GEMM runs as FP32") != std::string::npos);
  CHECK(w[1].code == "visible-devices");
  CHECK(w[2].code == "tf32-override");

  CheckReport r = started_report();
  r.probe = device_probe({});
  r.library_comparisons = {{Component::cublas, false, "predicted /a, loaded /b"}};
  r.objects.compared = true;
  r.objects.matches = false;
  r.objects.only_in_probe = {"/x.so"};
  r.plan.missing = {"cusparse"};
  auto pw = probe_warnings(r);
  REQUIRE(pw.size() == 4);
  CHECK(pw[0].code == "persistence-off");
  CHECK(pw[1].code == "prediction-mismatch");
  CHECK(pw[2].message.find("+/x.so") != std::string::npos);
  CHECK(pw[3].code == "missing-library");
}

TEST_CASE("rates: TFLOP/s against the precision's peak, GB/s against the bus and the measured copy") {
  StepResult copy = step("copy", StepStatus::pass);
  copy.unit = "byte";
  copy.work = 2.0 * (1ull << 30);
  copy.times_ms = {0.5, 0.5, 0.6};
  StepResult spmv = step("spmv", StepStatus::pass);
  spmv.unit = "byte";
  spmv.work = copy.work * 0.7;
  spmv.times_ms = {0.5};
  StepResult gemm = step("gemm-bf16", StepStatus::pass);
  gemm.unit = "flop";
  gemm.work = 2.0 * 8192.0 * 8192.0 * 8192.0;
  gemm.times_ms = {1.4};
  ProbeResult p = device_probe({copy, spmv, gemm});
  StepRates c = step_rates(*p.step("copy"), p);
  CHECK(c.unit == "GB/s");
  CHECK(*c.rate == doctest::Approx(4295.0).epsilon(0.001));
  CHECK(*c.of_peak == doctest::Approx(4295.0 / 4917.0).epsilon(0.001));
  CHECK_FALSE(c.of_copy);
  StepRates s = step_rates(*p.step("spmv"), p);
  CHECK(*s.of_copy == doctest::Approx(0.7).epsilon(0.001));
  StepRates g = step_rates(*p.step("gemm-bf16"), p);
  CHECK(g.unit == "TFLOP/s");
  CHECK(*g.of_peak == doctest::Approx(785.4 / 1070.5).epsilon(0.001));
  CHECK_FALSE(step_rates(step("driver", StepStatus::pass), p).rate);
}

TEST_CASE("condacuda.check/1: schema, outcome, exit code, libraries with their predictions, steps with rates") {
  CheckReport r = started_report();
  r.plan.libraries[1].predicted_loads = true;
  r.plan.libraries[1].predicted_path = "/env/lib/libcublas.so.13";
  StepResult gemm = step("gemm-bf16", StepStatus::pass);
  gemm.unit = "flop";
  gemm.work = 1e12;
  gemm.times_ms = {2.0};
  r.probe = device_probe({gemm});
  r.library_comparisons = {{Component::driver, true, ""}, {Component::cublas, true, ""}};
  decide(r);
  util::Json j = report::check_json(r, 0);
  CHECK(j.string_at("schema") == "condacuda.check/1");
  CHECK(j.string_at("outcome") == "pass");
  CHECK(j.get("exit_code")->as_int() == 0);
  const auto& libs = j.get("libraries")->as_array();
  REQUIRE(libs.size() == 2);
  CHECK(libs[1].string_at("opened_by") == "path");
  CHECK(libs[1].get("prediction_matches")->as_bool());
  CHECK(libs[1].get("predicted")->string_at("path") == "/env/lib/libcublas.so.13");
  const auto& steps = j.get("steps")->as_array();
  REQUIRE(steps.size() == 2);
  CHECK(steps[1].get("rate")->as_double() == doctest::Approx(500.0));
  CHECK(steps[1].string_at("rate_unit") == "TFLOP/s");
  CHECK(j.get("device")->string_at("name") == "NVIDIA H200");
  CHECK(j.get("python")->is_null());
  CHECK(j.get("driver")->string_at("version_text") == "13.0");
  auto text = report::check_text(r, report::Style{});
  CHECK(text.find("result: PASS: every step passed") != std::string::npos);
  CHECK(text.find("gemm-bf16") != std::string::npos);
}

TEST_CASE("--python: the script's records, and doctor's finding for an ImportError") {
  auto results = parse_python_output(
      "noise\n{\"framework\": \"torch\", \"status\": \"fail\", \"error\": \"ImportError: /e/libcusparse.so.12: undefined "
      "symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12\"}\n{\"framework\": \"jax\", \"status\": \"absent\"}\n"
      "{\"framework\": \"cupy\", \"status\": \"maybe\"}\n");
  REQUIRE(results.size() == 2); // a status the script never writes is not a record
  CHECK(results[0].status == FrameworkStatus::fail);
  CHECK(results[1].status == FrameworkStatus::absent);
  doctor::Finding f;
  f.code = "undefined-symbol";
  f.severity = doctor::Severity::error;
  f.library = "libnvJitLink.so.12";
  f.symbols = "__nvJitLinkAddData_12_1";
  f.fix = "condacuda repair";
  doctor::Finding other;
  other.code = "not-found";
  other.severity = doctor::Severity::error;
  other.library = "libcudnn.so.9";
  attach_findings(results, {other, f});
  CHECK(results[0].finding == "undefined-symbol");
  CHECK(results[0].fix == "condacuda repair");
  CHECK(results[1].finding.empty());
  f.first_error = "/e/libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12";
  f.symbols.clear();
  CHECK(explaining_finding(results[0].error, {other, f}) != nullptr);
  CHECK(explaining_finding("", {f}) == nullptr);
  CHECK(python_check_script().find("importlib") != std::string_view::npos);
}

TEST_CASE("verdict: a driver older than the env's CUDA major fails with the driver rule") {
  CheckReport r = started_report();
  r.plan.cuda_major = 13;
  r.probe = device_probe({step("gemm-bf16", StepStatus::fail, "cublasCreate_v2: CUBLAS_STATUS_NOT_INITIALIZED")});
  r.probe.driver.version = 12080;
  decide(r);
  CHECK(r.outcome == Outcome::fail);
  CHECK(r.reason == "driver-too-old: the driver supports CUDA 12.8, the env's libraries are CUDA 13 and need a driver "
                    "for CUDA 13 or later");
  r.probe.driver.version = 13010;
  decide(r);
  CHECK(r.reason.find("step gemm-bf16 failed") == 0);
}
