// verify_plan and its scenarios (repair/plan.hpp): the plan applied
// virtually, every root simulated in each launch it must survive.
#include <algorithm>

#include "launch/hook_model.hpp"
#include "launch/launch.hpp"
#include "repair/copies.hpp"
#include "repair/order_limits.hpp"
#include "repair/overlay_view.hpp"
#include "repair/pins.hpp"
#include "repair/plan.hpp"
#include "repair/plan_simulation.hpp"
#include "util/strings.hpp"

namespace condacuda::repair {
using launch::activate_ld_library_path;
using launch::not_activated_value;

bool Scenario::blocks(const doctor::Finding& f) const {
  if (f.severity != doctor::Severity::error) return false;
  if (f.code == doctor::code::import_order)
    return std::find(excused_orders.begin(), excused_orders.end(), f.title) == excused_orders.end();
  return !doctor::is_package_finding(f.code);
}

bool Scenario::passes() const {
  const auto& findings = report.findings;
  const bool roots_load =
      std::all_of(report.roots.begin(), report.roots.end(), [](const doctor::RootResult& r) { return r.loads; });
  return roots_load && std::none_of(findings.begin(), findings.end(), [&](const auto& f) { return blocks(f); });
}

Verification verify_plan(const RepairPlan& plan, const doctor::DoctorInputs& inputs,
                         const std::vector<std::string>& system_cuda_dirs, loader::FileSystemView& files,
                         const std::vector<PinnedNow>& pinned_now) {
  Verification v;
  std::string prefix = prefix_of(inputs);
  OverlayFileView overlay(files);
  add_links(overlay, prefix, plan.links);
  show_originals(overlay, prefix, pinned_now);
  for (const auto& p : plan.pins) show_pinned(overlay, prefix, p);
  std::vector<std::string> abs;
  for (const auto& f : plan.folders) abs.push_back(prefix + "/" + f.path);
  auto scenario = [&](std::string name, std::string description, std::optional<std::string> base, bool activated,
                      std::optional<std::string> active_entries, bool required) {
    doctor::DoctorInputs in = bare(inputs);
    in.base_ld_library_path = base;
    in.hook_present = activated;
    if (activated) {
      in.hook_folders = abs;
      in.config.ld_library_path = activate_ld_library_path(base, abs, active_entries);
    } else {
      in.config.ld_library_path = base;
    }
    Scenario s{std::move(name), std::move(description), required, {}, doctor::run_doctor(std::move(in), overlay)};
    for (const auto& f : s.report.findings)
      if (f.code == doctor::code::import_order && f.severity == doctor::Severity::error &&
          order_explained(f, plan, activated, s.report.inputs.inventory, prefix, overlay))
        s.excused_orders.push_back(f.title);
    if (required && !s.passes()) v.ok = false;
    v.scenarios.push_back(std::move(s));
  };
  using launch::describe;
  auto shell = not_activated_value(inputs.base_ld_library_path, inputs.active_hook_entries);
  if (plan.activation) {
    scenario("this shell", "this shell's LD_LIBRARY_PATH " + describe(inputs.base_ld_library_path) + ", env activated",
             inputs.base_ld_library_path, true, inputs.active_hook_entries, true);
    for (const auto& recorded : plan.launches)
      if (!launch::same_value(recorded, shell))
        scenario("recorded launch", "LD_LIBRARY_PATH " + describe(recorded) + " (a launch an earlier repair verified), env activated",
                 recorded, true, std::nullopt, true);
    if (!system_cuda_dirs.empty()) {
      std::string hostile = util::join(system_cuda_dirs, ":");
      scenario("system CUDA first", "the system CUDA folders on LD_LIBRARY_PATH ('" + hostile + "'), env activated",
               hostile, true, std::nullopt, true);
    }
  }
  if (!plan.pin) {
    scenario("not activated", "LD_LIBRARY_PATH unset, env not activated (symlinks and the libraries' own search path only)", std::nullopt,
             false, std::nullopt, !plan.activation);
    return v;
  }
  scenario("not activated", "this shell's LD_LIBRARY_PATH " + describe(shell) + " without the hook, env not activated",
           shell, false, std::nullopt, true);
  for (const auto& value : plan.not_activated_values)
    if (value && !launch::same_value(value, shell))
      scenario(launch::is_recorded(plan.launches, value) ? "not activated, recorded launch" : "not activated, hostile",
               "LD_LIBRARY_PATH " + describe(value) + ", env not activated", value, false, std::nullopt, true);
  scenario("not activated, unset", "LD_LIBRARY_PATH unset, env not activated (pins, symlinks and the libraries' own search path)",
           std::nullopt, false, std::nullopt, true);
  return v;
}

} // namespace condacuda::repair
