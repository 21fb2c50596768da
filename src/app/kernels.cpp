#include "app/kernels.hpp"

#include <algorithm>

#include "app/activation.hpp"
#include "sys/env_discovery.hpp"
#include "sys/env_scan.hpp"

namespace condacuda::app {

namespace {
// The data paths to look in: this shell's Jupyter variables (a server started
// here, from this env), then each running server's (its own env's prefix).
std::vector<std::string> all_kernel_dirs(const std::string& prefix, const std::map<std::string, std::string>& shell,
                                         const std::string& home, const std::vector<jupyter::Server>& servers) {
  auto dirs = jupyter::kernel_dirs(sys::jupyter_variables(shell, home), prefix);
  for (const auto& s : servers) {
    auto it = s.environment.find("CONDA_PREFIX");
    const std::string server_prefix = it != s.environment.end() && !it->second.empty() ? it->second : prefix;
    for (auto& d : jupyter::kernel_dirs(sys::jupyter_variables(s.environment, home), server_prefix))
      if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(std::move(d));
  }
  return dirs;
}
} // namespace

namespace {
struct ShellView {
  std::map<std::string, std::string> environment;
  std::string home;
  std::vector<jupyter::Server> servers;
};

ShellView shell_view() {
  ShellView v;
  v.environment = sys::this_environment();
  v.home = v.environment.count("HOME") ? v.environment.at("HOME") : sys::passwd_home();
  v.servers = sys::running_servers(jupyter::runtime_dir(sys::jupyter_variables(v.environment, v.home)));
  return v;
}

std::vector<doctor::ServerLaunch> launches_of(const ShellView& view, const std::vector<launch::PathValue>& recorded) {
  std::vector<doctor::ServerLaunch> out;
  const auto& shell = view.environment;
  out.push_back({"a server started from this shell", shell, false, true});
  const auto shell_llp = shell.count("LD_LIBRARY_PATH") ? launch::PathValue(shell.at("LD_LIBRARY_PATH")) : std::nullopt;
  for (const auto& value : recorded) {
    if (launch::same_value(value, shell_llp)) continue; // the server started from this shell
    auto env_vars = shell;
    if (value) env_vars["LD_LIBRARY_PATH"] = *value;
    else env_vars.erase("LD_LIBRARY_PATH");
    out.push_back({"a server with the recorded launch " + launch::describe(value), std::move(env_vars), false, false});
  }
  for (const auto& s : view.servers)
    out.push_back({"the running server pid " + std::to_string(s.pid) + (s.url.empty() ? "" : " (" + s.url + ")"),
                   s.environment, true, true});
  return out;
}
} // namespace

std::vector<doctor::ServerLaunch> kernel_launches(const std::vector<launch::PathValue>& recorded) {
  return launches_of(shell_view(), recorded);
}

namespace {
jupyter::EnvIdentity identity_of(const doctor::DoctorInputs& inputs) {
  return {inputs.env.prefix, inputs.env.name, inputs.host_program.value_or(""), inputs.python && inputs.python->interpreter.venv};
}

std::vector<doctor::EnvKernel> classified(const jupyter::EnvIdentity& env, std::vector<jupyter::Kernelspec> specs) {
  std::vector<doctor::EnvKernel> out;
  sys::DiskKernelFiles files;
  for (auto& spec : specs) {
    auto run = jupyter::classify_kernel(spec, env, files);
    if (run.runner != jupyter::KernelRunner::other) out.push_back({std::move(spec), std::move(run), {}});
  }
  return out;
}

// What `condacuda run` puts first for the kernels that start through it.
void add_run_folders(std::vector<doctor::EnvKernel>& kernels, const doctor::DoctorInputs& inputs,
                     loader::FileSystemView& view) {
  std::optional<std::vector<std::string>> run_folders; // planned once
  for (auto& k : kernels) {
    if (k.run.runner != jupyter::KernelRunner::condacuda_run) continue;
    if (!run_folders) {
      const auto activated = activated_ld_library_path(inputs, view, Unrepaired::plan);
      run_folders.emplace();
      if (activated.source == launch::ActivatedSource::plan)
        for (const auto& f : activated.planned_folders) run_folders->push_back(inputs.env.prefix + "/" + f);
      else
        *run_folders = inputs.hook_folders;
    }
    k.first_folders = *run_folders;
  }
}

void find_specs(KernelSurvey& out, const std::string& prefix, const ShellView& shell, std::vector<jupyter::Kernelspec>& specs) {
  for (auto& found : sys::find_kernelspecs(all_kernel_dirs(prefix, shell.environment, shell.home, shell.servers))) {
    if (!found.problem.empty()) out.unreadable.push_back(std::move(found));
    else specs.push_back(std::move(found.spec));
  }
}
} // namespace

std::vector<doctor::EnvKernel> env_kernels(const doctor::DoctorInputs& inputs, std::vector<jupyter::Kernelspec> specs,
                                           loader::FileSystemView& view) {
  if (!inputs.host_program) return {}; // no python: no kernel of this env
  auto out = classified(identity_of(inputs), std::move(specs));
  add_run_folders(out, inputs, view);
  return out;
}

KernelSurvey find_env_kernels(const jupyter::EnvIdentity& env) {
  KernelSurvey out;
  std::vector<jupyter::Kernelspec> specs;
  find_specs(out, env.prefix, shell_view(), specs);
  out.kernels = classified(env, std::move(specs));
  return out;
}

KernelSurvey survey_kernels(const doctor::DoctorInputs& inputs, const std::vector<launch::PathValue>& recorded,
                            loader::FileSystemView& view) {
  KernelSurvey out;
  if (!inputs.host_program) return out;
  const ShellView shell = shell_view();
  std::vector<jupyter::Kernelspec> specs;
  find_specs(out, inputs.env.prefix, shell, specs);
  out.kernels = env_kernels(inputs, std::move(specs), view);
  if (!out.kernels.empty()) out.launches = launches_of(shell, recorded);
  return out;
}

doctor::Finding bad_kernelspec_finding(const sys::FoundKernel& k) {
  doctor::Finding f;
  f.code = doctor::code::bad_kernelspec;
  f.severity = doctor::Severity::warning;
  f.title = "the kernelspec '" + k.spec.name + "' cannot be read: " + k.problem;
  f.affects = {k.spec.dir + "/kernel.json"};
  f.evidence.push_back("Jupyter lists the kernels of every folder on its data path; this one's kernel.json is not one it can start");
  f.fix = "fix or remove " + k.spec.dir;
  return f;
}

} // namespace condacuda::app
