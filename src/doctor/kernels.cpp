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

// The inputs of one kernel launch: the kernel's LD_LIBRARY_PATH (through
// the env's hook when its start activates the env), its python variables.
DoctorInputs kernel_inputs(const DoctorInputs& base, const EnvKernel& k, const std::map<std::string, std::string>& env) {
  std::optional<std::string> llp = variable(env, "LD_LIBRARY_PATH");
  DoctorInputs in = not_activated_inputs(base, llp);
  const auto& folders = !k.first_folders.empty() ? k.first_folders
                        : k.run.activated && base.hook_present ? base.hook_folders
                                                               : k.first_folders;
  if (k.run.activated && !folders.empty()) {
    const auto state = variable(env, "CONDACUDA_HOOK_STATE");
    const auto before = state ? launch::hook_entries_for(*state, base.env.prefix) : std::nullopt;
    in = base;
    in.context = LaunchContext::activated;
    in.base_ld_library_path = llp;
    in.config.ld_library_path = launch::activate_ld_library_path(llp, folders, before);
  }
  in.imports.clear();
  if (in.python) {
    auto& view = *in.python;
    view.launch = python_launch(view.launch, env, view.interpreter);
    view.sys_path = python::build_sys_path(view.interpreter, view.launch, *view.probe);
    for (const char* name : {"CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH", "CUPY_CUDA_LIB_PATH", "JAX_SKIP_CUDA_CONSTRAINTS_CHECK"})
      if (auto v = variable(env, name)) view.variables[name] = *v;
      else view.variables.erase(name);
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

Finding kernel_finding(const KernelReport& k, const DoctorInputs& in, bool error) {
  Finding f;
  f.code = code::kernel_fails;
  f.severity = error ? Severity::error : Severity::warning;
  f.title = "Jupyter kernel '" + k.spec.name + "' fails";
  f.affects = {k.spec.dir + "/kernel.json"};
  f.evidence.push_back("its argv starts the env's python: " + k.run.how);
  for (const auto& v : k.verdicts) {
    f.evidence.push_back(std::string(v.loads ? "loads" : "fails") + " when started by " + v.launch + " (LD_LIBRARY_PATH " +
                         launch::describe(v.ld_library_path) + ")" + (v.loads ? "" : ": " + v.error));
    if (!v.loads && f.first_error.empty()) f.first_error = v.error;
  }
  f.evidence.push_back("a kernel gets its server's environment and runs no activation: the hook of a terminal does not reach it");
  f.fix = "condacuda repair -p " + util::quote_posix(in.env.prefix) +
          "  (it pins the env's libraries so that they load whatever the server's LD_LIBRARY_PATH holds)";
  return f;
}

Finding exposed_finding(const KernelReport& k, const std::vector<std::string>& exposed, const DoctorInputs& in,
                        const std::vector<std::string>& system, loader::FileSystemView& files) {
  Finding f;
  f.code = code::kernel_exposed;
  f.severity = Severity::warning;
  f.library = exposed.front();
  f.title = "Jupyter kernel '" + k.spec.name + "' loads here, and breaks when the server's LD_LIBRARY_PATH has an older " +
            exposed.front() + as_folder_would(exposed.front(), system, files);
  f.affects = {k.spec.dir + "/kernel.json"};
  f.evidence.push_back("its argv starts the env's python: " + k.run.how);
  f.evidence.push_back("it finds " + util::join(exposed, ", ") +
                       " through the libraries' own search path, which the loader searches after LD_LIBRARY_PATH");
  f.evidence.push_back("a kernel gets its server's environment, which no terminal sees");
  f.fix = "condacuda repair -p " + util::quote_posix(in.env.prefix) +
          "  (it pins the env's libraries so that they load whatever the server's LD_LIBRARY_PATH holds)";
  return f;
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

// What a kernel launch's judgement depends on: equal keys, equal verdicts.
namespace {
std::string inputs_key(const DoctorInputs& in) {
  // Without a hook (none, or not active) the two contexts judge alike (contexts_differ).
  std::string key = std::string(contexts_differ(in) ? to_string(in.context) : "no hook") + '\0' +
                    (in.config.ld_library_path ? "=" + *in.config.ld_library_path : "-");
  if (in.python) {
    const auto& l = in.python->launch;
    for (const auto* v : {&l.pythonpath, &l.pythonuserbase, &l.home}) key += '\0' + (*v ? "=" + **v : "-");
    key += std::string(1, '\0') + (l.no_user_site ? '1' : '0') + (l.safe_path ? '1' : '0');
    for (const auto& [name, value] : in.python->variables) key += '\0' + name + "=" + value;
  }
  return key;
}
} // namespace

void judge_kernels(DoctorReport& report, const std::vector<EnvKernel>& kernels, const std::vector<ServerLaunch>& launches,
                   const std::vector<std::string>& system_cuda_dirs, loader::FileSystemView& files) {
  std::map<std::string, KernelVerdict> judged;
  const std::string own = inputs_key(report.inputs);
  for (const auto& k : kernels) {
    KernelReport kr{k.spec, k.run, {}};
    for (const auto& launch : launches) {
      const auto in = kernel_inputs(report.inputs, k, jupyter::kernel_environment(launch.environment, k.spec));
      const std::string key = inputs_key(in);
      auto it = judged.find(key);
      if (it == judged.end()) {
        KernelVerdict v = key == own ? verdict_of(report, launch) : verdict_of(run_doctor(in, files), launch);
        it = judged.emplace(key, std::move(v)).first;
      }
      KernelVerdict v = it->second;
      v.launch = launch.name;
      v.running = launch.running;
      kr.verdicts.push_back(std::move(v));
    }
    bool fails_for_real = false;
    for (std::size_t i = 0; i < kr.verdicts.size(); ++i) fails_for_real |= !kr.verdicts[i].loads && launches[i].decisive;
    const bool fails = std::any_of(kr.verdicts.begin(), kr.verdicts.end(), [](const KernelVerdict& v) { return !v.loads; });
    if (fails) {
      report.findings.push_back(kernel_finding(kr, report.inputs, fails_for_real));
    } else {
      std::set<std::string> exposed;
      for (const auto& v : kr.verdicts) exposed.insert(v.exposed.begin(), v.exposed.end());
      if (!exposed.empty())
        report.findings.push_back(exposed_finding(kr, {exposed.begin(), exposed.end()}, report.inputs, system_cuda_dirs, files));
    }
    report.kernels.push_back(std::move(kr));
  }
}

} // namespace condacuda::doctor
