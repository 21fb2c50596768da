#include "doctor/contexts.hpp"

#include <algorithm>

#include "util/strings.hpp"

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
// The fix of a launch that works only activated: pin (the libraries whose
// dependencies LD_LIBRARY_PATH shadows then search their own folders first),
// or launch through `condacuda run` (the first failing import as the command).
void not_activated_fix(Finding& f, const DoctorInputs& in, const std::string& statement) {
  const FixAction pin{"repair", {in.env.prefix, "--pin"}};
  const std::string run = "condacuda run -p " + util::quote_posix(in.env.prefix) + " -- ";
  // The env's own bin/python (a venv's real interpreter lies outside it, and without its site-packages);
  // with no import to name, the words say where the command goes (a placeholder is no command to paste).
  const std::string launch =
      statement.empty() || !in.host_program
          ? "start the program after " + run
          : "`" + run + util::shell_word(in.env.prefix + "/bin/python") + " -c " + util::shell_word(statement) + "`";
  f.fix = "pin the libraries whose dependencies LD_LIBRARY_PATH shadows, so the env loads however it is launched: `" +
          command_line(pin) + "`; or launch through condacuda: " + launch;
  f.actions = {pin};
}

Finding not_activated_finding(Severity severity, const std::optional<std::string>& llp) {
  Finding f;
  f.code = code::not_activated;
  f.severity = severity;
  f.evidence = {"a launch without activation (a Jupyter kernel, cron, srun, an IDE, a systemd unit) keeps "
                "LD_LIBRARY_PATH " + (llp ? "'" + *llp + "'" : std::string("unset")) + " and runs no hook",
                "the loader searches LD_LIBRARY_PATH before a library's own search path (unless the library is pinned)"};
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
  std::string statement;
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
      if (statement.empty()) statement = program.result.framework.framework->statement;
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
  not_activated_fix(f, report.inputs, statement);
  f.title = launches_title(programs, f.affects.size() - programs.size(), "load only when the env is activated");
  report.findings.push_back(std::move(f));
}

Finding folders_before_hook_finding(const std::vector<std::string>& in_front, const std::string& prefix) {
  Finding f;
  f.code = code::folders_before_hook;
  f.severity = Severity::warning;
  f.title = std::to_string(in_front.size()) +
            " LD_LIBRARY_PATH folder(s) were put in front of the env's hook entries after activation";
  f.evidence = {"the env's hook put its folders first when the env was activated; since then this shell put in front:"};
  for (const auto& folder : in_front) f.evidence.push_back("  " + (folder.empty() ? std::string("'' (the current directory)") : folder));
  f.evidence.push_back("a `module load` (or an `export LD_LIBRARY_PATH=...:$LD_LIBRARY_PATH`) after `conda activate` does this; "
                       "every process this shell starts searches them first, and doctor judges that order");
  f.actions = {{"activate", {prefix}}};
  f.fix = "load modules before activating the env, or re-activate it after them: `" + command_line(f.actions[0]) + "`";
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
  std::string statement;
  for (const auto& program : report.programs)
    if (!program.result.ok()) {
      if (statement.empty()) statement = program.result.framework.framework->statement;
      programs.push_back(program.label());
      f.affects.push_back(program.label());
      if (f.first_error.empty()) f.first_error = program.result.error_text();
    }
  if (f.affects.empty()) return;
  not_activated_fix(f, report.inputs, statement);
  f.title = launches_title(programs, f.affects.size() - programs.size(), "fail when the env is launched without activation");
  report.findings.push_back(std::move(f));
}

} // namespace condacuda::doctor
