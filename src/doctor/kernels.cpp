#include "doctor/kernels.hpp"

#include <algorithm>
#include <set>

#include "doctor/contexts.hpp"
#include "launch/hook_model.hpp"
#include "launch/launch.hpp"
#include "python/sys_path.hpp"
#include "util/path.hpp"
#include "util/strings.hpp"

namespace condacuda::doctor {

namespace {
std::optional<std::string> variable(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
}

// The python launch a kernel process has: the variables of its environment
// that change sys.path; the working directory stays doctor's (a server's is
// its notebook folder, which no file names).
python::PythonLaunch python_launch(const python::PythonLaunch& base, const std::map<std::string, std::string>& env,
                                   const python::Interpreter& in) {
  python::PythonLaunch l = base;
  l.pythonpath = variable(env, "PYTHONPATH");
  l.pythonuserbase = variable(env, "PYTHONUSERBASE");
  l.home = variable(env, "HOME");
  auto nonempty = [&](const char* name) {
    auto v = variable(env, name);
    return v && !v->empty();
  };
  l.no_user_site = nonempty("PYTHONNOUSERSITE");
  l.safe_path = nonempty("PYTHONSAFEPATH") && (in.major > 3 || in.minor >= 11);
  return l;
}

// A kernel launch as the few inputs it changes of the report's: built and
// keyed before the (large) DoctorInputs are copied, once per distinct key.
struct KernelLaunch {
  bool activated = false; // its LD_LIBRARY_PATH has the env's folders first
  std::optional<std::string> base_ld_library_path, ld_library_path;
  std::optional<python::PythonLaunch> python; // absent: the env has no python view
  std::map<std::string, std::string> variables;
};

// The kernel's LD_LIBRARY_PATH (through the env's hook, or `condacuda run`'s
// folders, when its start activates the env), its python variables.
KernelLaunch kernel_launch(const DoctorInputs& base, const EnvKernel& k, const std::map<std::string, std::string>& env) {
  KernelLaunch l;
  l.base_ld_library_path = l.ld_library_path = variable(env, "LD_LIBRARY_PATH");
  const auto& folders = !k.first_folders.empty() ? k.first_folders
                        : k.run.activated && base.hook_present ? base.hook_folders
                                                               : k.first_folders;
  if (k.run.activated && !folders.empty()) {
    const auto state = variable(env, "CONDACUDA_HOOK_STATE");
    const auto before = state ? launch::hook_entries_for(*state, base.env.prefix) : std::nullopt;
    l.activated = true;
    l.ld_library_path = launch::activate_ld_library_path(l.base_ld_library_path, folders, before);
  }
  if (base.python) {
    l.python = python_launch(base.python->launch, env, base.python->interpreter);
    l.variables = base.python->variables;
    for (const char* name : {"CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH", "CUPY_CUDA_LIB_PATH", "JAX_SKIP_CUDA_CONSTRAINTS_CHECK"})
      if (auto v = variable(env, name)) l.variables[name] = *v;
      else l.variables.erase(name);
  }
  return l;
}

// The report's own inputs as a launch (to tell a kernel launch that equals them).
KernelLaunch own_launch(const DoctorInputs& in) {
  KernelLaunch l{in.context == LaunchContext::activated, in.base_ld_library_path, in.config.ld_library_path, std::nullopt, {}};
  if (in.python) {
    l.python = in.python->launch;
    l.variables = in.python->variables;
  }
  return l;
}

// What a launch's judgement depends on: equal keys, equal verdicts. Without
// a hook (none, or not active) the two contexts judge alike (contexts_differ).
std::string launch_key(const KernelLaunch& l, bool hook) {
  std::string key = std::string(l.activated && hook ? "activated" : "no hook") + '\0' +
                    (l.ld_library_path ? "=" + *l.ld_library_path : "-");
  if (l.python) {
    for (const auto* v : {&l.python->pythonpath, &l.python->pythonuserbase, &l.python->home})
      key += '\0' + (*v ? "=" + **v : "-");
    key += std::string(1, '\0') + (l.python->no_user_site ? '1' : '0') + (l.python->safe_path ? '1' : '0');
    for (const auto& [name, value] : l.variables) key += '\0' + name + "=" + value;
  }
  return key;
}

DoctorInputs launch_inputs(const DoctorInputs& base, const KernelLaunch& l) {
  DoctorInputs in = l.activated ? base : not_activated_inputs(base, l.base_ld_library_path);
  if (l.activated) {
    in.context = LaunchContext::activated;
    in.base_ld_library_path = l.base_ld_library_path;
  }
  in.config.ld_library_path = l.ld_library_path;
  in.imports.clear();
  if (in.python && l.python) {
    auto& view = *in.python;
    view.launch = *l.python;
    view.sys_path = python::build_sys_path(view.interpreter, view.launch, *view.probe);
    view.variables = l.variables;
  }
  return in;
}

// What the kernel runs, in that launch: the first failing program, else the
// first failing root no program covers.
KernelVerdict verdict_of(const DoctorReport& r, const ServerLaunch& launch) {
  KernelVerdict v;
  v.launch = launch.name;
  v.running = launch.running;
  v.ld_library_path = r.inputs.config.ld_library_path;
  for (const auto& p : r.programs)
    if (!p.result.ok()) {
      v.loads = false;
      v.error = p.label() + ": " + p.result.error_text();
      return v;
    }
  if (r.programs.empty())
    for (const auto& root : r.roots)
      if (!root.loads && root.covered_by.empty()) {
        v.loads = false;
        v.error = root.file + ": " + root.first_error;
        return v;
      }
  v.exposed = exposed_sonames(r);
  return v;
}

bool after_ld_library_path(loader::FoundVia via) {
  return via == loader::FoundVia::runpath || via == loader::FoundVia::ld_so_cache || via == loader::FoundVia::default_dirs;
}

// "as /usr/local/cuda-12.0/lib64 would": a system CUDA folder holding that soname, if the machine has one.
std::string as_folder_would(const std::string& soname, const std::vector<std::string>& dirs, loader::FileSystemView& files) {
  for (const auto& d : dirs)
    if (files.open_verify(d + "/" + soname).opened()) return ", as " + d + " would";
  return "";
}

// "'a'", "'a' and 'b'", "'a', 'b' and 3 more".
std::string kernel_names(const std::vector<const KernelReport*>& ks) {
  std::string out;
  const std::size_t shown = ks.size() <= 3 ? ks.size() : 2;
  for (std::size_t i = 0; i < shown; ++i)
    out += std::string(i == 0 ? "" : i + 1 == ks.size() ? " and " : ", ") + "'" + ks[i]->spec.name + "'";
  if (shown < ks.size()) out += " and " + std::to_string(ks.size() - shown) + " more";
  return (ks.size() == 1 ? "Jupyter kernel " : "Jupyter kernels ") + out;
}

void add_kernels(Finding& f, const std::vector<const KernelReport*>& ks) {
  for (const auto* k : ks) {
    f.affects.push_back(k->spec.dir + "/kernel.json");
    f.evidence.push_back("kernel '" + k->spec.name + "': its argv starts the env's python: " + k->run.how);
  }
}

const char* kernel_fix_why = "  (it pins the env's libraries so that they load whatever the server's LD_LIBRARY_PATH holds)";

// Kernels whose verdicts are the same, one finding.
Finding kernel_finding(const std::vector<const KernelReport*>& ks, const DoctorInputs& in, bool error) {
  Finding f;
  f.code = code::kernel_fails;
  f.severity = error ? Severity::error : Severity::warning;
  f.title = kernel_names(ks) + (ks.size() == 1 ? " fails" : " fail");
  add_kernels(f, ks);
  for (const auto& v : ks.front()->verdicts) {
    f.evidence.push_back(std::string(v.loads ? "loads" : "fails") + " when started by " + v.launch + " (LD_LIBRARY_PATH " +
                         launch::describe(v.ld_library_path) + ")" + (v.loads ? "" : ": " + v.error));
    if (!v.loads && f.first_error.empty()) f.first_error = v.error;
  }
  f.evidence.push_back("a kernel gets its server's environment and runs no activation: the hook of a terminal does not reach it");
  f.fix = "condacuda repair -p " + util::quote_posix(in.env.prefix) + kernel_fix_why;
  return f;
}

Finding exposed_finding(const std::vector<const KernelReport*>& ks, const std::vector<std::string>& exposed,
                        const DoctorInputs& in, const std::vector<std::string>& system, loader::FileSystemView& files) {
  Finding f;
  f.code = code::kernel_exposed;
  f.severity = Severity::warning;
  // The soname named: the first one a CUDA folder of this machine holds (a concrete case), else the first.
  std::string named = exposed.front(), would;
  for (const auto& soname : exposed)
    if (would = as_folder_would(soname, system, files); !would.empty()) {
      named = soname;
      break;
    }
  f.library = named;
  f.title = kernel_names(ks) + (ks.size() == 1 ? " loads here, and breaks" : " load here, and break") +
            " when the server's LD_LIBRARY_PATH has an older " + named + would;
  add_kernels(f, ks);
  f.evidence.push_back((ks.size() == 1 ? "it finds " : "they find ") + util::join(exposed, ", ") +
                       " through the libraries' own search path, which the loader searches after LD_LIBRARY_PATH");
  f.evidence.push_back("a kernel gets its server's environment, which no terminal sees");
  f.fix = "condacuda repair -p " + util::quote_posix(in.env.prefix) + kernel_fix_why;
  return f;
}

// What puts kernels in one finding: their outcome in every launch.
std::string outcome_key(const KernelReport& k, bool error, const std::vector<std::string>& exposed) {
  std::string key = error ? "E" : "W";
  for (const auto& v : k.verdicts) key += '\0' + v.launch + (v.loads ? "+" : "-" + v.error);
  for (const auto& e : exposed) key += '\0' + e;
  return key;
}
} // namespace

std::vector<std::string> exposed_sonames(const DoctorReport& r) {
  std::set<std::string> out;
  const std::string prefix = r.inputs.env.prefix + "/";
  auto consider = [&](const std::string& soname, const std::string& path, loader::FoundVia via) {
    if (!after_ld_library_path(via) || soname.empty()) return;
    if (!util::lexically_normal(path).starts_with(prefix) || !r.inputs.inventory.find_by_soname(soname)) return;
    out.insert(soname);
  };
  for (const auto& p : r.programs)
    for (const auto& o : p.result.loaded) consider(o.soname, o.path, o.via);
  if (r.programs.empty())
    for (const auto& root : r.roots)
      for (const auto& o : root.report.objects)
        if (!o.preexisting) consider(o.soname.value_or(""), o.name, o.via);
  return {out.begin(), out.end()};
}


namespace {
// kernel-fails for the kernels that fail in a launch, kernel-exposed for
// those that load everywhere judged but find env CUDA libraries after
// LD_LIBRARY_PATH; kernels of the same outcome share one finding.
void add_kernel_findings(DoctorReport& report, const std::vector<ServerLaunch>& launches,
                         const std::vector<std::string>& system_cuda_dirs, loader::FileSystemView& files) {
  struct Group {
    bool fails = false, error = false;
    std::vector<std::string> exposed;
    std::vector<const KernelReport*> kernels;
  };
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  for (const auto& kr : report.kernels) {
    bool error = false, fails = false;
    for (std::size_t i = 0; i < kr.verdicts.size(); ++i) {
      fails |= !kr.verdicts[i].loads;
      error |= !kr.verdicts[i].loads && launches[i].decisive;
    }
    std::set<std::string> exposed;
    if (!fails)
      for (const auto& v : kr.verdicts) exposed.insert(v.exposed.begin(), v.exposed.end());
    if (!fails && exposed.empty()) continue;
    const std::vector<std::string> sonames(exposed.begin(), exposed.end());
    auto [it, added] = index.emplace(outcome_key(kr, error, sonames), groups.size());
    if (added) groups.push_back({fails, error, sonames, {}});
    groups[it->second].kernels.push_back(&kr);
  }
  for (const auto& g : groups)
    report.findings.push_back(g.fails ? kernel_finding(g.kernels, report.inputs, g.error)
                                      : exposed_finding(g.kernels, g.exposed, report.inputs, system_cuda_dirs, files));
}
} // namespace

void judge_kernels(DoctorReport& report, const std::vector<EnvKernel>& kernels, const std::vector<ServerLaunch>& launches,
                   const std::vector<std::string>& system_cuda_dirs, loader::FileSystemView& files) {
  std::map<std::string, KernelVerdict> judged;
  const bool hook = contexts_differ(report.inputs);
  const std::string own = launch_key(own_launch(report.inputs), hook);
  // A spec without an env block gets the server's environment as it is: built once per launch.
  std::vector<std::optional<std::map<std::string, std::string>>> plain(launches.size());
  for (const auto& k : kernels) {
    KernelReport kr{k.spec, k.run, {}};
    for (std::size_t i = 0; i < launches.size(); ++i) {
      const auto& launch = launches[i];
      std::optional<std::map<std::string, std::string>> own_env;
      if (!k.spec.env.empty()) own_env = jupyter::kernel_environment(launch.environment, k.spec);
      else if (!plain[i]) plain[i] = jupyter::kernel_environment(launch.environment, k.spec);
      const auto l = kernel_launch(report.inputs, k, own_env ? *own_env : *plain[i]);
      const std::string key = launch_key(l, hook);
      auto it = judged.find(key);
      if (it == judged.end()) {
        KernelVerdict v = key == own ? verdict_of(report, launch)
                                     : verdict_of(run_doctor(launch_inputs(report.inputs, l), files), launch);
        it = judged.emplace(key, std::move(v)).first;
      }
      KernelVerdict v = it->second;
      v.launch = launch.name;
      v.running = launch.running;
      kr.verdicts.push_back(std::move(v));
    }
    report.kernels.push_back(std::move(kr));
  }
  add_kernel_findings(report, launches, system_cuda_dirs, files);
}

} // namespace condacuda::doctor
