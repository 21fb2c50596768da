#include "app/doctor_inputs.hpp"

#include "app/activation.hpp"
#include "sys/env_scan.hpp"
#include "sys/machine.hpp"
#include "sys/python_env.hpp"
#include "sys/python_probe.hpp"
#include "sys/repair_state.hpp"
#include "sys/shell_environment.hpp"

namespace condacuda::app {

std::optional<frameworks::PythonView> python_view(const std::string& prefix, const std::string& real_executable) {
  auto interpreter = sys::env_interpreter(prefix, real_executable);
  if (!interpreter) return std::nullopt;
  frameworks::PythonView view;
  view.interpreter = std::move(*interpreter);
  view.launch = sys::this_shell_python(view.interpreter);
  view.probe = std::make_shared<sys::DiskPathProbe>();
  view.sys_path = python::build_sys_path(view.interpreter, view.launch, *view.probe);
  view.variables = sys::recipe_variables();
  return view;
}

Result<doctor::DoctorInputs> doctor_inputs(const env::EnvRecord& env, const BaseLdLibraryPath& base,
                                           sys::DiskFileView& files, const sys::RepairState& state,
                                           const InputHelpers& helpers) {
  doctor::DoctorInputs in;
  in.env = env;
  auto snapshot = sys::scan_env(env.prefix, helpers.dist_info, helpers.on_file);
  if (!snapshot) return snapshot.error();
  for (const auto& f : snapshot->shared_objects)
    if (f.elf && !f.symlink) files.adopt(snapshot->prefix + "/" + f.path, f.elf);
  in.inventory = inventory::build_inventory(*snapshot);
  in.inventory.pinned = state.pinned();
  in.config = helpers.machine ? *helpers.machine : sys::detect_machine().config;
  in.base_ld_library_path = base.is_given() ? base.value() : in.config.ld_library_path;
  in.ld_library_path_source = base.is_given() ? doctor::BasePathSource::given : doctor::BasePathSource::this_shell;
  // With this shell's value, the hook may already have run here: its record
  // says what it added. A given value is taken as not activated.
  if (!base.is_given()) in.active_hook_entries = sys::this_shell(env.prefix).hook_entries;
  in.config.ld_library_path = in.base_ld_library_path;
  in.hook_present = state.hook_installed;
  if (state.hook_installed) {
    for (const auto& f : state.hook_folders()) in.hook_folders.push_back(env.prefix + "/" + f);
    in.config.ld_library_path =
        with_hook_folders(env.prefix, in.base_ld_library_path, state.hook_folders(), in.active_hook_entries);
  }
  in.host_program = sys::env_python(env.prefix);
  if (in.host_program) in.python = python_view(env.prefix, *in.host_program);
  in.foreign_hooks = sys::foreign_ld_library_path_hooks(env.prefix);
  auto driver = sys::node_driver_version();
  if (!driver) return driver.error();
  if (*driver) {
    in.driver_version = (*driver)->version;
    in.driver_source = (*driver)->source;
  }
  return in;
}

Result<doctor::DoctorInputs> doctor_inputs(const env::EnvRecord& env, const BaseLdLibraryPath& base,
                                           sys::DiskFileView& files) {
  return doctor_inputs(env, base, files, sys::read_repair_state(env.prefix));
}

} // namespace condacuda::app
