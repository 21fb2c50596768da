#include "app/kernels.hpp"

#include <algorithm>

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

KernelSurvey survey_kernels(const doctor::DoctorInputs& inputs, const std::vector<launch::PathValue>& recorded) {
  KernelSurvey out;
  if (!inputs.host_program) return out; // no python: no kernel of this env
  const auto shell = sys::this_environment();
  const std::string home = shell.count("HOME") ? shell.at("HOME") : sys::passwd_home();
  const auto servers = sys::running_servers(jupyter::runtime_dir(sys::jupyter_variables(shell, home)));
  jupyter::EnvIdentity env{inputs.env.prefix, inputs.env.name, *inputs.host_program,
                           inputs.python && inputs.python->interpreter.venv};
  sys::DiskKernelFiles files;
  for (auto& found : sys::find_kernelspecs(all_kernel_dirs(inputs.env.prefix, shell, home, servers))) {
    if (!found.problem.empty()) {
      out.unreadable.push_back(std::move(found));
      continue;
    }
    auto run = jupyter::classify_kernel(found.spec, env, files);
    if (run.runner != jupyter::KernelRunner::other) out.kernels.push_back({std::move(found.spec), std::move(run)});
  }
  if (out.kernels.empty()) return out;
  out.launches.push_back({"a server started from this shell", shell, false, true});
  const auto shell_llp = shell.count("LD_LIBRARY_PATH") ? launch::PathValue(shell.at("LD_LIBRARY_PATH")) : std::nullopt;
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    if (launch::same_value(recorded[i], shell_llp)) continue; // the server started from this shell
    auto env_vars = shell;
    if (recorded[i]) env_vars["LD_LIBRARY_PATH"] = *recorded[i];
    else env_vars.erase("LD_LIBRARY_PATH");
    out.launches.push_back({"a server with the recorded launch " + launch::describe(recorded[i]), std::move(env_vars), false, false});
  }
  for (const auto& s : servers)
    out.launches.push_back({"the running server pid " + std::to_string(s.pid) + (s.url.empty() ? "" : " (" + s.url + ")"),
                            s.environment, true, true});
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
