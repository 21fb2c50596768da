#include "doctor/contexts.hpp"

#include <algorithm>

namespace condacuda::doctor {

DoctorInputs not_activated_inputs(const DoctorInputs& activated, const std::optional<std::string>& ld_library_path) {
  DoctorInputs in = activated;
  in.base_ld_library_path = ld_library_path;
  in.config.ld_library_path = in.base_ld_library_path;
  in.active_hook_entries.reset();
  in.hook_present = false;
  in.hook_folders.clear();
  in.context = LaunchContext::not_activated;
  return in;
}

bool contexts_differ(const DoctorInputs& activated) {
  return activated.hook_present || activated.active_hook_entries.has_value();
}

namespace {
const char* pin_fix =
    "`condacuda repair --pin`: the libraries whose dependencies LD_LIBRARY_PATH shadows then search their own "
    "folders before LD_LIBRARY_PATH, so the env loads however it is launched; or launch "
    "with `condacuda run ENV -- CMD`";

Finding not_activated_finding(Severity severity, const std::optional<std::string>& llp) {
  Finding f;
  f.code = code::not_activated;
  f.severity = severity;
  f.evidence = {"a launch without activation (a Jupyter kernel, cron, srun, an IDE, a systemd unit) keeps "
                "LD_LIBRARY_PATH " + (llp ? "'" + *llp + "'" : std::string("unset")) + " and runs no hook",
                "the loader searches LD_LIBRARY_PATH before a library's own search path (unless the library is pinned)"};
  f.fix = pin_fix;
  return f;
}
// "2 file(s) ...", or "import torch (2.6.0) and 2 file(s) ...".
std::string launches_title(const std::vector<std::string>& programs, std::size_t roots, const std::string& what) {
  if (programs.empty()) return std::to_string(roots) + " file(s) " + what;
  std::string t;
  for (std::size_t i = 0; i < programs.size(); ++i) t += (i ? ", " : "") + programs[i];
  return t + (roots ? " and " + std::to_string(roots) + " file(s) " : " ") + what;
}
} // namespace

void add_not_activated(DoctorReport& report, const DoctorReport& not_activated) {
  report.not_activated = DoctorReport::NotActivatedLaunch{not_activated.inputs.config.ld_library_path};
  Finding f = not_activated_finding(Severity::warning, not_activated.inputs.config.ld_library_path);
  std::vector<std::string> programs;
  for (std::size_t i = 0; i < report.roots.size() && i < not_activated.roots.size(); ++i) {
    auto& root = report.roots[i];
    const auto& other = not_activated.roots[i];
    root.not_activated = ContextVerdict{other.loads, other.first_error};
    // A root that fails alone but loads in every program that opens it there is no launch failure.
    if (root.loads && !other.loads && other.covered_by.empty()) {
      f.affects.push_back(root.file);
      if (f.first_error.empty()) f.first_error = other.first_error;
    }
  }
  // The programs (the same frameworks in the same order: sys.path does not change with activation).
  for (std::size_t i = 0; i < report.programs.size() && i < not_activated.programs.size(); ++i) {
    auto& program = report.programs[i];
    const auto& other = not_activated.programs[i].result;
    program.not_activated = ContextVerdict{other.ok(), other.ok() ? "" : other.error_text()};
    if (program.result.ok() && !other.ok()) {
      programs.push_back(program.label());
      f.affects.push_back(program.label());
      if (f.first_error.empty()) f.first_error = other.error_text();
    }
  }
  // Import orders that fail only without activation: warnings, like the roots above.
  for (const auto& other : not_activated.findings) {
    if (other.code == code::import_order_skipped) { // what that pass left untried is said too
      Finding skipped = other;
      skipped.title = "without activation: " + other.title;
      report.findings.push_back(std::move(skipped));
      continue;
    }
    if (other.code != code::import_order) continue;
    const bool known = std::any_of(report.findings.begin(), report.findings.end(), [&](const Finding& x) {
      return x.code == other.code && x.library == other.library && x.resolved == other.resolved && x.expected == other.expected;
    });
    if (known) continue;
    Finding w = other;
    w.severity = Severity::warning;
    w.title = "without activation: " + other.title;
    w.evidence.push_back("activated (the env's hook first on LD_LIBRARY_PATH) this order works: it fails when the env is "
                         "launched without activation");
    report.findings.push_back(std::move(w));
  }
  if (f.affects.empty()) return;
  f.title = launches_title(programs, f.affects.size() - programs.size(), "load only when the env is activated");
  report.findings.push_back(std::move(f));
}

Finding folders_before_hook_finding(const std::vector<std::string>& in_front, const std::string& env_name) {
  Finding f;
  f.code = code::folders_before_hook;
  f.severity = Severity::warning;
  f.title = std::to_string(in_front.size()) +
            " LD_LIBRARY_PATH folder(s) were put in front of the env's hook entries after activation";
  f.evidence = {"the env's hook put its folders first when the env was activated; since then this shell put in front:"};
  for (const auto& folder : in_front) f.evidence.push_back("  " + (folder.empty() ? std::string("'' (the current directory)") : folder));
  f.evidence.push_back("a `module load` (or an `export LD_LIBRARY_PATH=...:$LD_LIBRARY_PATH`) after `conda activate` does this; "
                       "every process this shell starts searches them first, and doctor judges that order");
  f.fix = "load modules before activating the env, or re-activate it after them (`conda deactivate; conda activate " +
          (env_name.empty() ? std::string("ENV") : env_name) + "`)";
  return f;
}

void mark_not_activated(DoctorReport& report) {
  Finding f = not_activated_finding(Severity::error, report.inputs.config.ld_library_path);
  for (const auto& root : report.roots)
    if (!root.loads && root.covered_by.empty()) {
      f.affects.push_back(root.file);
      if (f.first_error.empty()) f.first_error = root.first_error;
    }
  std::vector<std::string> programs;
  for (const auto& program : report.programs)
    if (!program.result.ok()) {
      programs.push_back(program.label());
      f.affects.push_back(program.label());
      if (f.first_error.empty()) f.first_error = program.result.error_text();
    }
  if (f.affects.empty()) return;
  f.title = launches_title(programs, f.affects.size() - programs.size(), "fail when the env is launched without activation");
  report.findings.push_back(std::move(f));
}

} // namespace condacuda::doctor
