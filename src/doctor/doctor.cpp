#include "doctor/doctor.hpp"
#include "doctor/requirements_check.hpp"

#include <algorithm>
#include <filesystem>

#include "doctor/alignment_findings.hpp"
#include "doctor/diagnose.hpp"
#include "doctor/grouping.hpp"
#include "doctor/import_order.hpp"
#include "doctor/programs.hpp"

namespace condacuda::doctor {

const char* to_string(Severity s) {
  switch (s) {
  case Severity::error: return "error";
  case Severity::warning: return "warning";
  case Severity::info: return "info";
  }
  return "error";
}

const char* to_string(LaunchContext context) {
  return context == LaunchContext::activated ? "activated" : "not-activated";
}

const char* to_string(BasePathSource source) { return source == BasePathSource::this_shell ? "caller" : "--ld-library-path"; }

const char* to_string(RootKind kind) { return kind == RootKind::library ? "library" : "consumer"; }

int DoctorReport::count(Severity s) const {
  return static_cast<int>(std::count_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.severity == s; }));
}

namespace {
bool is_python_extension(const std::string& file) {
  return file.find(".cpython-") != std::string::npos || file.find(".abi3.") != std::string::npos ||
         file.find(".pypy") != std::string::npos;
}

// Without the env's interpreter as host (none, or not readable), a Python
// extension's references to the C API cannot bind in the model; the real
// import gets them from the interpreter, so they are not counted against it.
void assume_interpreter(loader::LoadReport& report) {
  auto from_python = [](const loader::LoadError& e) {
    return e.kind == loader::ErrorKind::undefined_symbol && (e.name.rfind("Py", 0) == 0 || e.name.rfind("_Py", 0) == 0);
  };
  report.errors.erase(std::remove_if(report.errors.begin(), report.errors.end(), from_python), report.errors.end());
  report.first.reset();
  report.ok = true;
  for (const auto& e : report.errors) {
    if (e.lazy_only) continue;
    report.first = e;
    report.ok = false;
    break;
  }
}

// doctor --imports: the user's sequence; a step that fails only after an
// earlier one is an import-order finding (unless the pairs found it).
void run_imports(DoctorReport& report, loader::Simulator& sim, const loader::Process& host, loader::FileSystemView& files) {
  const DoctorInputs& in = report.inputs;
  if (in.imports.empty()) return;
  if (std::any_of(in.imports.begin(), in.imports.end(), [](const DoctorInputs::Import& i) { return !i.framework.empty(); }))
    return run_program_sequence(report, sim, host, files);
  std::vector<ImportStep> steps;
  for (const auto& i : in.imports)
    steps.push_back({i.file, i.global ? loader::Visibility::global : loader::Visibility::local});
  for (const auto& s : simulate_sequence(sim, host, steps, in.env.prefix, files)) {
    report.imports.push_back({s.file, s.visibility == loader::Visibility::global, s.loads, s.loads_alone, s.first_error});
    if (s.loads || !s.loads_alone || s.soname.empty()) continue;
    Finding f = sequence_finding(s, in, files);
    const bool known = std::any_of(report.findings.begin(), report.findings.end(), [&](const Finding& x) {
      return x.code == f.code && x.library == f.library && x.resolved == f.resolved && x.expected == f.expected;
    });
    if (!known) report.findings.push_back(std::move(f));
  }
}

std::string host_description(const DoctorInputs& in) {
  if (in.host_program) return "python " + *in.host_program;
  return "minimal C program (libc only; Python extensions' C-API symbols assumed)";
}
} // namespace

namespace {
// Errors whose fix changes the env's packages come before those a repair
// fixes: a repair verifies that every root loads and writes nothing while a
// package is missing or of another major, so the first fix the user reads
// (and a script follows, `actions`) is one that can be done now (issue 51).
void order_fixes(std::vector<Finding>& findings) {
  auto package_step = [](const Finding& f) {
    return f.severity == Severity::error && !f.actions.empty() && f.actions.front().kind != "repair";
  };
  auto errors_end = std::stable_partition(findings.begin(), findings.end(),
                                          [](const Finding& f) { return f.severity == Severity::error; });
  std::stable_partition(findings.begin(), errors_end, package_step);
}
} // namespace

DoctorReport run_doctor(DoctorInputs inputs, loader::FileSystemView& files) {
  DoctorReport report;
  report.inputs = std::move(inputs);
  const DoctorInputs& in = report.inputs;
  report.host_description = host_description(in);
  loader::Simulator sim(in.config, files);
  loader::Process host;
  loader::LoadReport started = in.host_program ? sim.start_program(host, *in.host_program, *in.host_program)
                                               : sim.start_synthetic(host, loader::minimal_program_needs);
  if (!started.ok && !started.first->lazy_only) {
    report.host_error = loader::startup_outcome(started, in.host_program.value_or("host")).stderr_text;
  }
  auto add_root = [&](const std::string& file, RootKind kind, const std::string& component) {
    RootResult r;
    r.file = file;
    r.kind = kind;
    r.component = component;
    std::string path = std::filesystem::path(in.env.prefix + "/" + file).lexically_normal().string();
    r.report = sim.trial_dlopen(host, path, loader::Binding::now);
    if (!in.host_program && is_python_extension(file)) assume_interpreter(r.report);
    r.loads = r.report.ok;
    if (!r.loads) {
      const auto& e = *r.report.first;
      r.first_error = e.kind == loader::ErrorKind::assertion ? e.text : e.message();
    }
    report.roots.push_back(std::move(r));
  };
  for (const auto& lib : in.inventory.libraries) add_root(lib.file, RootKind::library, lib.component);
  for (const auto& c : in.inventory.consumers) add_root(c.file, RootKind::consumer, "");
  for (const auto& u : in.inventory.unusable) add_root(u.file, RootKind::library, u.component);
  report.findings = diagnose(report, files);
  for (auto& f : check_requirements(report, files)) report.findings.push_back(std::move(f));
  report.findings = group_by_cause(std::move(report.findings));
  judge_programs(report, sim, host, files);
  for (auto& f : outside_wheel_findings(in)) report.findings.push_back(std::move(f));
  if (!report.host_error) {
    // Roots that load alone but not after another one (one process, many imports).
    for (auto& f : import_order_findings(report, sim, host, files)) report.findings.push_back(std::move(f));
    run_imports(report, sim, host, files);
  }
  // Misalignment comes from the rules `condacuda lock` records (lock/alignment.hpp): one source of truth.
  for (auto& f : alignment_findings(report.inputs, files)) report.findings.push_back(std::move(f));
  order_fixes(report.findings);
  return report;
}

} // namespace condacuda::doctor
