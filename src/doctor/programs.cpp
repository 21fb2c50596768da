#include "doctor/programs.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "frameworks/recipes.hpp"
#include "python/modules.hpp"
#include "util/path.hpp"
#include "util/strings.hpp"

namespace condacuda::doctor {

std::string program_label(const frameworks::ProgramResult& result) {
  const auto& fw = result.framework;
  std::string what = fw.distribution.empty() || fw.distribution == fw.framework->name ? fw.version
                                                                                      : fw.distribution + " " + fw.version;
  return fw.framework->statement + (what.empty() ? "" : " (" + what + ")");
}

std::string ProgramReport::label() const { return program_label(result); }

namespace {
using Identity = std::pair<std::uint64_t, std::uint64_t>;

std::optional<Identity> identity(loader::FileSystemView& files, const std::string& path) {
  const auto& opened = files.open_verify(path);
  if (!opened.opened()) return std::nullopt;
  return Identity{opened.dev, opened.ino};
}

bool outside_env(const std::string& path, const std::string& prefix) {
  return !(path == prefix || path.starts_with(prefix + "/"));
}

// The open that brought in the copy the program's error is about: the file
// the error says should have provided the symbol or version, else the
// failing preload itself.
const frameworks::ProgramOpen* cause_of(const frameworks::ProgramResult& r, const std::string& cwd) {
  if (r.load_error && !r.load_error->library.empty()) {
    // The library as a path, or as the soname a preloaded file carries.
    const std::string& lib = r.load_error->library;
    const std::string want = util::lexically_normal(python::abspath(lib, cwd));
    for (const auto& o : r.opens)
      if (o.ok && (util::lexically_normal(python::abspath(o.path, cwd)) == want ||
                   (lib.find('/') == std::string::npos && util::base_name(o.path) == lib)))
        return &o;
  }
  if (!r.opens.empty() && !r.opens.back().ok && !r.opens.back().entry.empty()) return &r.opens.back();
  return nullptr;
}

// The fix for a copy a preload took from a sys.path folder outside the env,
// in words and, where it is one, as steps. `pip uninstall` has no --user
// (pypa/pip#5176): in a conda env the env's pip removes the copy it finds
// first on sys.path, the user site's; a venv's pip will not uninstall outside
// the venv (the same thread), so the base interpreter's pip is named.
void outside_fix(Finding& f, const frameworks::ProgramOpen& cause, const DoctorInputs& in, const std::string& cwd) {
  const frameworks::PythonView& view = *in.python;
  const auto entry = std::find_if(view.sys_path.begin(), view.sys_path.end(),
                                  [&](const python::SysPathEntry& e) { return e.path == cause.entry; });
  const std::string site = entry == view.sys_path.end() ? cause.entry : entry->folder(cwd);
  const std::string abs = python::abspath(cause.path, cwd);
  const std::string dist = abs.starts_with(site + "/") ? frameworks::owner_wheel(site, abs.substr(site.size() + 1), *view.probe).first : "";
  const std::string wheel = dist.empty() ? "the wheel that installed " + abs : dist;
  f.actions.clear();
  switch (cause.origin) {
  case python::PathOrigin::user_site:
    if (dist.empty()) {
      f.fix = "uninstall " + wheel + " from the user site";
    } else if ((in.env.kind == env::EnvKind::venv || in.env.kind == env::EnvKind::uv) && in.host_program) {
      f.fix = "uninstall it with the base interpreter's pip (a venv's pip does not uninstall outside the venv): `" +
              util::shell_word(*in.host_program) + " -m pip uninstall -y " + util::shell_word(dist) + "`";
    } else {
      f.actions = {{"pip-uninstall", {"uninstall", "-y", dist}}};
      f.fix = "`" + command_line(f.actions[0]) + "` with the env's pip (it removes the copy it finds first on sys.path, the "
              "user site's)";
    }
    return;
  case python::PathOrigin::pythonpath:
    f.actions = {{"remove-path-entry", {"PYTHONPATH", cause.entry}}};
    f.fix = "remove '" + cause.entry + "' from PYTHONPATH";
    return;
  case python::PathOrigin::pth:
    f.fix = "remove the line that adds '" + cause.entry + "' from " + (entry == view.sys_path.end() ? "its .pth file" : entry->pth_file);
    return;
  case python::PathOrigin::script_dir: f.fix = "start python from another folder: the working directory '" + cwd + "' holds " + abs; return;
  case python::PathOrigin::system_site:
    f.fix = "uninstall " + wheel + " from the base interpreter's site-packages, or set include-system-site-packages = false in pyvenv.cfg";
    return;
  default: return;
  }
}

Finding import_fails_finding(const ProgramReport& p, const DoctorInputs& in) {
  const auto& r = p.result;
  const auto& fw = r.framework;
  const std::string cwd = in.python->launch.cwd;
  Finding f;
  f.code = code::import_fails;
  f.severity = Severity::error;
  f.title = p.label() + (r.verdict == frameworks::Verdict::cpu_fallback ? " falls back to the CPU" : " fails");
  f.first_error = r.error_text();
  f.resolved = r.failing_object;
  if (r.load_error) {
    f.library = r.load_error->library.empty() ? r.load_error->name : util::base_name(r.load_error->library);
    if (r.load_error->kind == loader::ErrorKind::undefined_symbol) f.symbols = r.load_error->name;
    f.version = r.load_error->version;
  }
  f.evidence.push_back(fw.framework->name + " " + fw.version + " imports as recipe " + fw.recipe->id + " (" + fw.recipe->source +
                       (fw.recipe->inferred ? "; inferred from the PRs" : "") + ")");
  const auto* cause = cause_of(r, cwd);
  for (const auto& o : r.opens) {
    if (!o.ok && !o.swallowed) continue;
    if (o.entry.empty() || !outside_env(python::abspath(o.path, cwd), in.env.prefix)) continue;
    f.evidence.push_back("it preloads " + python::abspath(o.path, cwd) + " from sys.path entry '" + o.entry + "' (" +
                         python::to_string(o.origin) + "), which comes before the env's site-packages");
  }
  if (cause && outside_env(python::abspath(cause->path, cwd), in.env.prefix)) {
    f.expected = cause->library;
    outside_fix(f, *cause, in, cwd);
    f.evidence.push_back("the soname is then loaded: the env's own copy is never opened, so no repair, pin or LD_LIBRARY_PATH "
                         "change of the env helps");
  }
  if (f.fix.empty())
    f.fix = "see the error: " + fw.framework->name + "'s own import opens these files in this order; make the file it names "
            "load (the findings above say what the loader finds)";
  for (const auto& o : r.opens)
    if (!o.ok && !o.swallowed) f.affects.push_back(o.path);
  return f;
}

// Whether an error finding of the roots explains a failing program: it
// affects the root whose file the program's error names, or one that fails
// with the same text.
bool explained(const frameworks::ProgramResult& r, const DoctorReport& report, loader::FileSystemView& files) {
  const auto failing = r.failing_object.empty() ? std::nullopt : identity(files, r.failing_object);
  for (const auto& f : report.findings) {
    if (f.severity != Severity::error || f.code == code::import_fails) continue;
    for (const auto& affected : f.affects)
      for (const auto& root : report.roots) {
        if (root.file != affected) continue;
        if (root.first_error == r.message) return true;
        if (failing && identity(files, report.inputs.env.prefix + "/" + root.file) == failing) return true;
      }
  }
  return false;
}

void mark_covered_roots(DoctorReport& report, loader::FileSystemView& files) {
  for (auto& root : report.roots) {
    if (root.loads) continue;
    auto id = identity(files, report.inputs.env.prefix + "/" + root.file);
    if (!id) continue;
    std::vector<std::string> openers;
    bool all_load = true;
    for (const auto& p : report.programs) {
      if (p.result.verdict == frameworks::Verdict::unmodelled || !p.result.touched.count(*id)) continue;
      openers.push_back(p.label());
      all_load &= p.result.ok();
    }
    if (all_load) root.covered_by = std::move(openers);
  }
}

// A finding every affected root of which is covered is met only by a
// process that opens those roots without importing the framework first.
void lower_covered_findings(DoctorReport& report) {
  std::map<std::string, const RootResult*> by_file;
  for (const auto& root : report.roots) by_file[root.file] = &root;
  for (auto& f : report.findings) {
    if (f.severity != Severity::error || f.affects.empty()) continue;
    std::set<std::string> programs;
    bool covered = true;
    for (const auto& a : f.affects) {
      auto it = by_file.find(a);
      if (it == by_file.end() || it->second->covered_by.empty()) {
        covered = false;
        break;
      }
      programs.insert(it->second->covered_by.begin(), it->second->covered_by.end());
    }
    if (!covered) continue;
    f.severity = Severity::warning;
    for (auto& part : f.parts) part.severity = Severity::warning;
    f.evidence.insert(f.evidence.begin(), "only a process that opens " + util::base_name(f.affects.front()) +
                                              " without importing the framework first meets this: " +
                                              util::join({programs.begin(), programs.end()}, ", ") + " loads it");
  }
}
} // namespace

std::vector<Finding> outside_wheel_findings(const DoctorInputs& in) {
  std::vector<Finding> out;
  if (!in.python) return out;
  for (const auto& lib : frameworks::nvidia_libraries_outside(*in.python, in.env.prefix)) {
    const std::string name = util::base_name(lib.file);
    const auto* mine = in.inventory.find_by_soname(name);
    if (!mine || mine->version.empty() || lib.version.empty() || lib.version == mine->version) continue;
    Finding f;
    f.code = code::outside_wheel;
    f.severity = Severity::warning;
    f.library = name;
    f.resolved = lib.site + "/" + lib.file;
    f.via_entry = lib.entry;
    f.expected = mine->file;
    f.expected_package = mine->package + " " + mine->version;
    f.title = lib.wheel + " " + lib.version + " in " + python::to_string(lib.origin) + " (" + lib.site + ") differs from the env's " +
              mine->package + " " + mine->version;
    f.evidence.push_back("sys.path has '" + lib.entry + "' " + (lib.before_env_site ? "before" : "after") +
                         " the env's site-packages; torch's preloads take the first sys.path folder with nvidia/*/lib/" + name);
    frameworks::ProgramOpen cause;
    cause.path = f.resolved;
    cause.entry = lib.entry;
    cause.origin = lib.origin;
    outside_fix(f, cause, in, in.python->launch.cwd);
    out.push_back(std::move(f));
  }
  return out;
}

void run_program_sequence(DoctorReport& report, loader::Simulator& sim, const loader::Process& host,
                          loader::FileSystemView& files) {
  const DoctorInputs& in = report.inputs;
  const auto& book = frameworks::embedded_recipes();
  loader::Process process = host;
  std::vector<std::string> before;
  for (const auto& item : in.imports) {
    ImportOutcome out;
    if (item.framework.empty()) {
      out.file = item.file.starts_with(in.env.prefix + "/") ? item.file.substr(in.env.prefix.size() + 1) : item.file;
      out.global = item.global;
      auto r = sim.dlopen(process, item.file, loader::Binding::now, item.global ? loader::Visibility::global : loader::Visibility::local);
      out.loads = r.ok;
      if (!r.ok) out.first_error = r.first->kind == loader::ErrorKind::assertion ? r.first->text : r.first->message();
      out.loads_alone = sim.trial_dlopen(host, item.file, loader::Binding::now).ok;
    } else {
      auto program = std::find_if(report.programs.begin(), report.programs.end(),
                                  [&](const ProgramReport& p) { return p.result.framework.framework->name == item.framework; });
      if (program == report.programs.end()) {
        out.file = item.framework;
        out.loads = out.loads_alone = false;
        out.first_error = "ModuleNotFoundError: No module named '" + item.framework + "' (not on the env's python's sys.path)";
      } else {
        auto r = frameworks::run_program(program->result.framework, book, *in.python, sim, host, files, &process);
        out.file = program->label();
        out.loads = r.ok();
        out.first_error = r.ok() ? "" : r.error_text();
        out.loads_alone = program->result.ok();
      }
    }
    if (!out.loads && out.loads_alone && !before.empty()) {
      Finding f;
      f.code = code::import_order;
      f.severity = Severity::error;
      f.title = "importing " + util::join(before, ", then ") + " then " + out.file + " fails: " + out.file + " alone loads";
      f.first_error = out.first_error;
      f.affects = before;
      f.affects.push_back(out.file);
      f.evidence.push_back("a process keeps one copy of each soname: whoever loads it first decides the copy every later import binds to");
      f.fix = "import " + out.file + " first, or give the env one copy of each library the error names (`condacuda repair`)";
      report.findings.push_back(std::move(f));
    }
    before.push_back(out.file);
    report.imports.push_back(std::move(out));
  }
}

void judge_programs(DoctorReport& report, loader::Simulator& sim, const loader::Process& host, loader::FileSystemView& files) {
  const auto& in = report.inputs;
  if (!in.python || report.host_error || !frameworks::any_framework_importable(*in.python)) return;
  const auto& book = frameworks::embedded_recipes();
  report.frameworks = frameworks::find_frameworks(book, *in.python);
  for (const auto& fw : report.frameworks) report.programs.push_back({frameworks::run_program(fw, book, *in.python, sim, host, files), {}});
  if (report.programs.empty()) return;
  mark_covered_roots(report, files);
  lower_covered_findings(report);
  for (const auto& p : report.programs)
    if (!p.result.ok() && !explained(p.result, report, files)) report.findings.push_back(import_fails_finding(p, in));
}

} // namespace condacuda::doctor
