#include "app/activation.hpp"

#include "repair/activation.hpp"
#include "repair/plan.hpp"
#include "sys/repair_state.hpp"

namespace condacuda::app {

std::optional<std::string> with_hook_folders(const std::string& prefix, const std::optional<std::string>& base,
                                             const std::vector<std::string>& folders,
                                             const std::optional<std::string>& added_before) {
  std::vector<std::string> absolute;
  for (const auto& f : folders) absolute.push_back(prefix + "/" + f);
  return repair::activate_ld_library_path(base, absolute, added_before);
}

const char* to_string(PathSource source) {
  switch (source) {
  case PathSource::hook: return "hook";
  case PathSource::plan: return "plan";
  case PathSource::as_is: return "as-is";
  }
  return "as-is";
}

ActivatedLdLibraryPath activated_ld_library_path(const doctor::DoctorInputs& inputs, loader::FileSystemView& files,
                                                 Unrepaired unrepaired) {
  ActivatedLdLibraryPath a{inputs.config.ld_library_path, inputs.hook_present ? PathSource::hook : PathSource::as_is, {}};
  if (inputs.hook_present || unrepaired == Unrepaired::as_is) return a;
  std::vector<std::string> folders = repair::plan_repair(inputs, files).folder_paths();
  if (folders.empty()) return a;
  a.value = with_hook_folders(inputs.env.prefix, inputs.base_ld_library_path, folders, inputs.active_hook_entries);
  a.source = PathSource::plan;
  a.planned_folders = std::move(folders);
  return a;
}

Result<ActivatedLdLibraryPath> activated_ld_library_path(const env::EnvRecord& env) {
  sys::HookState hook = sys::read_hook_state(env.prefix);
  if (hook.installed) {
    auto base = BaseLdLibraryPath::this_shell().value();
    return ActivatedLdLibraryPath{
        with_hook_folders(env.prefix, base, hook.folders, sys::active_hook_entries(env.prefix)), PathSource::hook, {}};
  }
  auto& files = sys::process_file_view();
  auto inputs = doctor_inputs(env, BaseLdLibraryPath::this_shell(), files);
  if (!inputs) return inputs.error();
  return activated_ld_library_path(*inputs, files, Unrepaired::plan);
}

} // namespace condacuda::app
