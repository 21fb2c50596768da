#include "app/kernel_install.hpp"

#include <unistd.h>

#include <algorithm>

#include "app/doctor_inputs.hpp"
#include "app/kernels.hpp"
#include "sys/env_discovery.hpp"
#include "sys/jupyter_files.hpp"
#include "sys/kernelspec_writer.hpp"
#include "sys/posix.hpp"
#include "sys/repair_state.hpp"
#include "sys/system_cuda.hpp"
#include "util/strings.hpp"

namespace condacuda::app {

const char* to_string(KernelInstallStatus status) {
  switch (status) {
  case KernelInstallStatus::installed: return "installed";
  case KernelInstallStatus::unchanged: return "unchanged";
  case KernelInstallStatus::would_install: return "would-install";
  }
  return "installed";
}

bool KernelInstallOutcome::loads_everywhere() const {
  return std::all_of(kernels.begin(), kernels.end(), [](const doctor::KernelReport& k) {
    return std::all_of(k.verdicts.begin(), k.verdicts.end(), [](const doctor::KernelVerdict& v) { return v.loads; });
  });
}

namespace {
// The env's python as a kernel starts it: a path in its bin/ (a venv's python
// is the base interpreter's binary; only bin/ makes it the env's).
std::optional<std::string> env_python(const std::string& prefix) {
  for (const char* name : {"python3", "python"})
    if (::access((prefix + "/bin/" + name).c_str(), X_OK) == 0) return prefix + "/bin/" + name;
  return std::nullopt;
}

std::string kernel_dir_for(const KernelInstallOptions& o, const std::string& name) {
  if (o.sys_prefix) return o.env.prefix + "/share/jupyter/kernels/" + name;
  const auto shell = sys::this_environment();
  const std::string home = shell.count("HOME") ? shell.at("HOME") : sys::passwd_home();
  return jupyter::data_dir(sys::jupyter_variables(shell, home)) + "/kernels/" + name;
}

bool finds_ipykernel(const doctor::DoctorInputs& in) {
  if (!in.python) return true; // cannot tell
  for (const auto& e : in.python->sys_path)
    if (!e.path.empty() && in.python->probe->is_file(e.path + "/ipykernel_launcher.py")) return true;
  return false;
}
} // namespace

Result<KernelInstallOutcome> install_kernel(const KernelInstallOptions& options) {
  const std::string name = util::to_lower(options.name);
  if (!jupyter::valid_kernel_name(name))
    return make_error(ErrorCode::bad_input, "--kernel-name '" + options.name +
                                                "': Jupyter takes kernel names of letters, digits, '-', '.' and '_' only");
  const auto python = env_python(options.env.prefix);
  if (!python) return make_error(ErrorCode::not_found, "the env has no bin/python3 or bin/python", options.env.prefix);
  KernelInstallOutcome o;
  o.env = options.env;
  o.kernel_dir = kernel_dir_for(options, name);
  const std::string tool = std::string("condacuda ") + CONDACUDA_VERSION;
  jupyter::KernelspecDraft draft{{sys::self_executable(), "run", "-p", options.env.prefix, "--", *python, "-m",
                                  "ipykernel_launcher", "-f", "{connection_file}"},
                                 options.display_name.value_or("Python (" + options.env.name + ", condacuda)"),
                                 options.env.prefix, tool};
  auto text = jupyter::render_kernelspec(draft);
  if (!text) return text.error();
  o.text = std::move(*text);
  // --sys-prefix writes into the env, untrusted input: confined to it.
  const std::string within = options.sys_prefix ? options.env.prefix : std::string();
  auto existing = sys::read_kernelspec_file(o.kernel_dir, within);
  if (!existing) return existing.error();
  if (*existing && !jupyter::written_by_condacuda(**existing))
    return make_error(ErrorCode::conflict,
                      "a kernel.json condacuda did not write is there: choose another --kernel-name, or remove it "
                      "(`jupyter kernelspec remove " + name + "`)",
                      o.kernel_dir + "/kernel.json");
  o.status = *existing && **existing == o.text ? KernelInstallStatus::unchanged
             : options.dry_run               ? KernelInstallStatus::would_install
                                             : KernelInstallStatus::installed;
  if (o.status == KernelInstallStatus::installed)
    if (auto written = sys::write_kernelspec_file(o.kernel_dir, o.text, within); !written) return written.error();
  // The kernel as a server would start it, in every launch doctor knows of.
  sys::DiskFileView& files = sys::process_file_view();
  const sys::RepairState state = sys::read_repair_state(options.env.prefix);
  auto inputs = doctor_inputs(options.env, BaseLdLibraryPath::this_shell(), files, state);
  if (!inputs) return inputs.error();
  if (!finds_ipykernel(*inputs))
    o.notes.push_back("the env's python finds no ipykernel on its sys.path: install it in the env (`conda install "
                      "ipykernel` or `pip install ipykernel`) before starting the kernel");
  auto spec = jupyter::parse_kernelspec(o.text, name, o.kernel_dir);
  if (!spec) return spec.error();
  std::vector<doctor::EnvKernel> kernels = env_kernels(*inputs, {*spec}, files);
  auto report = doctor::run_doctor(*inputs, files);
  doctor::judge_kernels(report, kernels,
                        kernel_launches(state.manifest ? state.manifest->launches : std::vector<launch::PathValue>{}),
                        sys::system_cuda_dirs(), files);
  o.kernels = std::move(report.kernels);
  if (o.kernel_dir.rfind(options.env.prefix + "/", 0) != 0)
    o.notes.push_back("outside the env: `condacuda undo` leaves it; `jupyter kernelspec remove " + name + "` removes it");
  return o;
}

} // namespace condacuda::app
