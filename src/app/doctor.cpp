#include "app/doctor.hpp"

#include <filesystem>
#include <map>

#include "app/plan_request.hpp"
#include "doctor/contexts.hpp"
#include "repair/activation.hpp"
#include "repair/staleness.hpp"
#include "sys/prefix_tree.hpp"
#include "sys/repair_state.hpp"
#include "sys/system_cuda.hpp"

namespace condacuda::app {

namespace {
// What the env's repair has become: today's plan against the recorded one,
// and the links it made that point at nothing.
void add_repair_findings(doctor::DoctorReport& report, const doctor::DoctorInputs& inputs,
                         sys::DiskFileView& files) {
  auto manifest = sys::read_manifest(inputs.env.prefix);
  if (!manifest || !*manifest) return;
  const repair::Manifest& recorded = **manifest;
  auto today = repair::plan_repair(inputs, files, plan_request(inputs, recorded, std::nullopt, sys::system_cuda_dirs()));
  if (auto difference = repair::plan_difference(recorded, today); !difference.empty())
    report.findings.push_back(repair::stale_repair_finding(inputs.env.prefix, difference));
  std::map<std::string, std::vector<std::string>> folder_names;
  if (auto tree = sys::PrefixTree::open(inputs.env.prefix))
    for (const auto& e : recorded.entries) {
      std::string folder = std::filesystem::path(e.path).parent_path().generic_string();
      if (e.kind == repair::ManifestEntry::Kind::symlink && !folder_names.count(folder))
        if (auto names = tree->list(folder)) folder_names[folder] = *names;
    }
  if (auto dangling = repair::dangling_links(recorded, inputs.env.prefix, files, folder_names); !dangling.empty())
    report.findings.push_back(repair::dangling_link_finding(inputs.env.prefix, dangling));
}
} // namespace

Result<doctor::DoctorReport> doctor(const DoctorOptions& options) {
  sys::DiskFileView& files = sys::process_file_view();
  auto inputs = doctor_inputs(options.env, options.ld_library_path, files);
  if (!inputs) return inputs.error();
  auto not_activated = [&] {
    return doctor::not_activated_inputs(
        *inputs, repair::not_activated_value(inputs->base_ld_library_path, inputs->active_hook_entries));
  };
  doctor::DoctorReport report;
  if (options.context == doctor::LaunchContext::not_activated) {
    report = doctor::run_doctor(not_activated(), files);
    doctor::mark_not_activated(report);
  } else {
    report = doctor::run_doctor(*inputs, files);
    if (!options.context && doctor::contexts_differ(*inputs))
      doctor::add_not_activated(report, doctor::run_doctor(not_activated(), files));
  }
  add_repair_findings(report, *inputs, files);
  return report;
}

} // namespace condacuda::app
