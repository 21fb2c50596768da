#include "app/activation.hpp"

#include "launch/hook_model.hpp"
#include "repair/plan.hpp"
#include "sys/repair_state.hpp"

namespace condacuda::app {

std::optional<std::string> with_hook_folders(const std::string& prefix, const std::optional<std::string>& base,
                                             const std::vector<std::string>& folders,
                                             const std::optional<std::string>& added_before) {
  std::vector<std::string> absolute;
  for (const auto& f : folders) absolute.push_back(prefix + "/" + f);
  return launch::activate_ld_library_path(base, absolute, added_before);
}

ActivatedLdLibraryPath activated_ld_library_path(const doctor::DoctorInputs& inputs, loader::FileSystemView& files,
                                                 Unrepaired unrepaired) {
  ActivatedLdLibraryPath a{inputs.config.ld_library_path, inputs.hook_present ? launch::ActivatedSource::hook : launch::ActivatedSource::as_is, {}};
  if (!inputs.hook_present && unrepaired == Unrepaired::as_is) return a;
  std::vector<std::string> folders = repair::plan_repair(inputs, files).folder_paths();
  // A hook whose folders are today's plan is used as it is; a stale one (the
  // env changed since the repair) gives way to today's plan, never worse than
  // no repair.
  std::vector<std::string> hooked;
  for (const auto& f : inputs.hook_folders) hooked.push_back(f.substr(inputs.env.prefix.size() + 1));
  if (inputs.hook_present && hooked == folders) return a;
  if (folders.empty() && !inputs.hook_present) return a;
  a.value = with_hook_folders(inputs.env.prefix, inputs.base_ld_library_path, folders, inputs.active_hook_entries);
  a.source = inputs.hook_present ? launch::ActivatedSource::stale_hook : launch::ActivatedSource::plan;
  a.planned_folders = std::move(folders);
  return a;
}

Result<ActivatedLdLibraryPath> activated_ld_library_path(const env::EnvRecord& env) {
  auto& files = sys::process_file_view();
  auto inputs = doctor_inputs(env, BaseLdLibraryPath::this_shell(), files);
  if (!inputs) return inputs.error();
  return activated_ld_library_path(*inputs, files, Unrepaired::plan);
}

} // namespace condacuda::app
