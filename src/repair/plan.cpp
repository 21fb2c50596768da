// plan_repair (repair/plan.hpp): links, then folders and one copy per
// soname, then pins, then the order limits, each step in its own unit
// (copies, pins, order_limits); verify_plan is in verification.cpp.
#include "repair/plan.hpp"

#include <optional>
#include <set>

#include "repair/copies.hpp"
#include "repair/order_limits.hpp"
#include "repair/overlay_view.hpp"
#include "repair/pins.hpp"
#include "repair/plan_simulation.hpp"
#include "util/strings.hpp"

namespace condacuda::repair {

std::vector<std::string> RepairPlan::folder_paths() const {
  std::vector<std::string> out;
  for (const auto& f : folders) out.push_back(f.path);
  return out;
}

RepairPlan plan_repair(const doctor::DoctorInputs& inputs, loader::FileSystemView& files,
                       const PlanRequest& request) {
  RepairPlan plan;
  doctor::DoctorInputs b = bare(inputs);
  std::string prefix = prefix_of(inputs);
  OverlayFileView overlay(files);
  for (const auto& l : request.own_links) overlay.hide(l);
  show_originals(overlay, prefix, request.pinned_now);
  std::set<std::string> planned;
  // A new link can make further dependencies reachable (and missing): repeat
  // until nothing more can be linked. The round that adds nothing has judged
  // the final overlay already: its report is the final one.
  std::optional<doctor::DoctorReport> settled;
  for (int round = 0; round < 8 && !settled; ++round) {
    auto report = doctor::run_doctor(b, overlay);
    auto more = links_for(report, overlay, planned);
    if (more.empty()) {
      settled = std::move(report);
      break;
    }
    for (const auto& l : more) planned.insert(prefix + "/" + l.path);
    add_links(overlay, prefix, more);
    plan.links.insert(plan.links.end(), more.begin(), more.end());
  }
  auto final_report = settled ? std::move(*settled) : doctor::run_doctor(b, overlay);
  const Needs needs = needs_of(final_report, overlay);
  const auto one_copy = one_copy_per_soname(needs, inputs.inventory, overlay, prefix);
  for (const auto& [soname, lib] : one_copy)
    if (copies_of(inputs.inventory, soname).size() > 1) plan.copies.push_back({soname, lib->file});
  plan.folders = order_folders(needed_folders(needs, one_copy, inputs, overlay), inputs.inventory);
  plan.pin = request.pin;
  plan.not_activated_values = request.not_activated_values;
  plan.launches = request.launches;
  plan.activation = request.activation;
  plan.hold_any_ld_library_path = request.pin && request.hold_any_ld_library_path;
  if (request.pin) {
    plan_pins(plan, b, overlay);
    if (plan.hold_any_ld_library_path) plan_exposure_pins(plan, b, overlay);
    keep_pins(plan, request.pinned_now, prefix, overlay);
  }
  // What no search path can change, in each launch: activated with the
  // hook's folders, and not activated with the links (and pins).
  doctor::DoctorInputs activated = b;
  for (const auto& f : plan.folders) activated.hook_folders.push_back(prefix + "/" + f.path);
  activated.hook_present = true;
  if (!activated.hook_folders.empty()) activated.config.ld_library_path = util::join(activated.hook_folders, ":");
  add_order_limits(plan.order_limits, true, needs_of(doctor::run_doctor(activated, overlay), overlay), one_copy, prefix);
  const Needs unactivated = plan.pins.empty() ? needs : needs_of(doctor::run_doctor(b, overlay), overlay); // pins change it
  add_order_limits(plan.order_limits, false, unactivated, one_copy, prefix);
  return plan;
}

} // namespace condacuda::repair
