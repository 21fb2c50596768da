#include "app/check.hpp"

#include <chrono>

#include "app/activation.hpp"
#include "app/share_dir.hpp"
#include "check/protocol.hpp"
#include "doctor/doctor.hpp"
#include "sys/child_process.hpp"
#include "sys/env_scan.hpp"
#include "sys/gpu_code.hpp"
#include "sys/posix.hpp"
#include "sys/system_cuda.hpp"

namespace condacuda::app {

namespace {
void add_finding(check::CheckReport& r, const doctor::Finding& f) {
  for (const auto& have : r.findings)
    if (have.code == f.code && have.library == f.library && have.resolved == f.resolved) return;
  r.findings.push_back(f);
}

bool library_failed(const check::ProbeResult& probe) {
  for (const auto& l : probe.libraries)
    if (!l.loaded && l.component != check::Component::driver) return true;
  return false;
}

void run_python(check::CheckReport& r, const std::string& prefix, const sys::Environment& env, double timeout_s) {
  auto python = sys::env_python_command(prefix);
  if (!python) {
    r.python.push_back({"python", check::FrameworkStatus::absent, "", "the env has no python interpreter (no ELF executable at bin/python3 or bin/python): nothing to import into", "", "", "", ""});
    return;
  }
  std::string script(check::python_check_script());
  sys::ChildRun run = sys::run_child({*python, {"-c", script}, env, timeout_s});
  r.python_child = run.outcome;
  r.python = check::parse_python_output(run.stdout_text);
  if (r.python.empty() || run.outcome.timed_out || run.outcome.signal) {
    std::string last = run.outcome.stderr_tail;
    while (!last.empty() && last.back() == '\n') last.pop_back();
    last = last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
    r.python.push_back({"python", check::FrameworkStatus::fail, "", "", "python " + check::describe(run.outcome, timeout_s) +
                                                     (last.empty() ? "" : ": " + last), "", "", ""});
  }
}
// What the loaded libraries' fatbins say about the device the probe found
// (read through the fatbin cache, as doctor --gpu does).
std::vector<check::CoverageComparison> coverage_on_device(const check::ProbeResult& probe) {
  if (!probe.device) return {};
  auto table = doctor::embedded_gpu_table();
  std::optional<std::string> isa = table ? check::driver_ptx_isa(probe.driver.version, *table) : std::nullopt;
  sys::FatbinCache cache(sys::FatbinCache::default_path());
  std::vector<std::string> ignored; // a cache that cannot be read or written only costs time
  cache.load(ignored);
  auto out = check::compare_coverage(probe, [&](const std::string& path) { return cache.summary(path); }, isa);
  cache.save(ignored);
  return out;
}
} // namespace

Result<check::CheckReport> check(const CheckOptions& o) {
  auto started = std::chrono::steady_clock::now();
  sys::DiskFileView& files = sys::process_file_view();
  auto inputs = doctor_inputs(o.env, o.ld_library_path, files);
  if (!inputs) return inputs.error();
  check::CheckReport r;
  r.env = o.env;
  r.hook_applied = inputs->hook_present;
  // The probe's LD_LIBRARY_PATH: what `condacuda run` would give (or, as is, this shell's).
  auto activated = activated_ld_library_path(*inputs, files, o.as_is ? Unrepaired::as_is : Unrepaired::plan);
  r.ld_library_path = activated.value;
  r.ld_library_path_source = activated.source;
  r.planned_folders = activated.planned_folders;
  r.sizes_name = o.quick ? "quick" : "full";
  r.link_only_arch = o.link_only_arch;
  r.timeout_s = o.timeout_s;
  std::string probe = probe_executable();
  inputs->config.ld_library_path = r.ld_library_path; // doctor below sees what the probe sees
  r.plan = check::plan_probe(inputs->inventory, inputs->config, files, probe);
  check::ProbeRequest request{r.plan.requests(), o.device, o.quick ? check::quick_sizes() : check::full_sizes(),
                              o.link_only_arch};
  sys::Environment env = sys::environment_with(r.ld_library_path);
  sys::ChildRun run = sys::run_child({probe, {"--request", check::request_json(request).dump(-1)}, env, o.timeout_s});
  r.child = run.outcome;
  r.probe = check::fold_records(run.stdout_text);
  r.library_comparisons = check::compare_libraries(r.plan, r.probe, sys::canonical_path);
  r.objects = check::compare_objects(r.plan, r.probe, sys::canonical_path);
  r.coverage = coverage_on_device(r.probe);
  r.stub_folders = sys::stub_folders(r.ld_library_path);
  r.warnings = check::environment_warnings(env);
  for (auto& w : check::probe_warnings(r)) r.warnings.push_back(std::move(w));
  if (library_failed(r.probe) || o.python) {
    // doctor's findings name the cause of a load failure (which file, which
    // search step) and its fix.
    doctor::DoctorReport doctor = doctor::run_doctor(*inputs, files);
    for (const auto& l : r.probe.libraries)
      if (const doctor::Finding* f = check::explaining_finding(l.error, doctor.findings)) add_finding(r, *f);
    if (o.python) {
      r.python_requested = true;
      run_python(r, o.env.prefix, env, o.timeout_s);
      check::attach_findings(r.python, doctor.findings);
      for (const auto& p : r.python)
        if (const doctor::Finding* f = check::explaining_finding(p.error, doctor.findings)) add_finding(r, *f);
    }
  }
  check::decide(r);
  r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return r;
}

} // namespace condacuda::app
