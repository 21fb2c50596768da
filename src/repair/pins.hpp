#pragma once
// Pins (repair --pin): the env libraries whose DT_RUNPATH becomes DT_RPATH so
// that LD_LIBRARY_PATH cannot shadow the env's copies without activation,
// round by round for each not-activated launch, and the pins an earlier
// repair made that stay. Steps of plan_repair (repair/plan.cpp); the overlay
// shows each planned pin as it will be written.
#include <string>
#include <vector>

#include "doctor/doctor.hpp"
#include "repair/overlay_view.hpp"
#include "repair/plan.hpp"

namespace condacuda::repair {

// Each previous pin seen as the original file (its RPATH tags back to RUNPATH).
void show_originals(OverlayFileView& overlay, const std::string& prefix, const std::vector<PinnedNow>& pinned);
// The file pinned, as the overlay will show it once written.
void show_pinned(OverlayFileView& overlay, const std::string& prefix, const PlannedPin& pin);

// Adds to plan.pins (sorted by path), plan.unpinnable and plan.order_limits.
void plan_pins(RepairPlan& plan, const doctor::DoctorInputs& bare_inputs, OverlayFileView& overlay);
// The exposure pins (PlanRequest::hold_any_ld_library_path): each env file
// on a root's loading chain, LD_LIBRARY_PATH unset, that finds an env CUDA
// library through DT_RUNPATH, round by round (a pin changes what RPATH
// inheritance reaches). Adds to plan.pins (sorted by path).
void plan_exposure_pins(RepairPlan& plan, const doctor::DoctorInputs& bare_inputs, OverlayFileView& overlay);
// Adds the pins of `pinned_now` that stay (plan.pins sorted by path).
void keep_pins(RepairPlan& plan, const std::vector<PinnedNow>& pinned_now, const std::string& prefix,
               OverlayFileView& overlay);

} // namespace condacuda::repair
