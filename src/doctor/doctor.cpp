#include "doctor/doctor.hpp"

#include <algorithm>
#include <filesystem>

#include "doctor/diagnose.hpp"

namespace condacuda::doctor {

const char* to_string(Severity s) {
  switch (s) {
  case Severity::error: return "error";
  case Severity::warning: return "warning";
  case Severity::info: return "info";
  }
  return "error";
}

int DoctorReport::count(Severity s) const {
  return static_cast<int>(std::count_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.severity == s; }));
}

std::string implied_release(const std::string& symbol) {
  // nvJitLink's header maps each entry point to __nvJitLink<Name>_<major>_<minor>.
  if (symbol.rfind("__nvJitLink", 0) != 0) return "";
  auto last = symbol.rfind('_');
  if (last == std::string::npos || last == 0) return "";
  auto prev = symbol.rfind('_', last - 1);
  if (prev == std::string::npos) return "";
  std::string major = symbol.substr(prev + 1, last - prev - 1), minor = symbol.substr(last + 1);
  auto digits = [](const std::string& s) { return !s.empty() && std::all_of(s.begin(), s.end(), ::isdigit); };
  return digits(major) && digits(minor) ? major + "." + minor : "";
}

namespace {
std::string host_description(const DoctorInputs& in) {
  if (in.host_program) return "python " + *in.host_program;
  return "minimal C program (libc only)";
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
  auto add_root = [&](const std::string& file, const std::string& kind, const std::string& component) {
    RootResult r;
    r.file = file;
    r.kind = kind;
    r.component = component;
    std::string path = std::filesystem::path(in.env.prefix + "/" + file).lexically_normal().string();
    r.report = sim.trial_dlopen(host, path, loader::Binding::now);
    r.loads = r.report.ok;
    if (!r.loads) {
      const auto& e = *r.report.first;
      r.first_error = e.kind == loader::ErrorKind::assertion ? e.text : e.message();
    }
    report.roots.push_back(std::move(r));
  };
  for (const auto& lib : in.inventory.libraries) add_root(lib.file, "library", lib.component);
  for (const auto& c : in.inventory.consumers) add_root(c.file, "consumer", "");
  report.findings = diagnose(report, files);
  return report;
}

} // namespace condacuda::doctor
