#pragma once
// What a repair of an env asks the planner (repair::PlanRequest), from the
// env's inputs and the manifest there: shared by `repair`, and by `doctor`,
// which compares today's plan with the recorded one (stale-repair).
#include <optional>
#include <string>
#include <vector>

#include "doctor/doctor.hpp"
#include "launch/launch.hpp"
#include "repair/manifest.hpp"
#include "repair/plan.hpp"

namespace condacuda::app {

// Whether a repair pins when neither --pin nor --no-pin is given: what the
// last repair did, else yes in a venv or uv env (no conda activation runs a
// hook there) and no in a conda env.
bool pins_by_default(const env::EnvRecord& env, const std::optional<repair::Manifest>& previous);
bool is_venv(const env::EnvRecord& env);

struct PlanChoices {
  std::optional<bool> pin;     // --pin / --no-pin; nullopt: the default
  bool this_shell = true;      // add this shell's launch (repair); false: the recorded ones only (doctor's staleness)
  bool forget_launches = false; // repair --forget-launches: this shell's launch only
  // repair --launch: more launches to verify and record, beside this shell's
  // (a partition's module path, the launches fleet's classes have).
  std::vector<launch::PathValue> extra_launches;
  // The env has Jupyter kernels: pins by default, exposure pins too (repair::PlanRequest).
  bool kernels = false;
};

// `system_cuda_dirs`: the machine's (sys::system_cuda_dirs), first in the
// hostile not-activated value.
repair::PlanRequest plan_request(const doctor::DoctorInputs& inputs, const std::optional<repair::Manifest>& previous,
                                 const PlanChoices& choices, const std::vector<std::string>& system_cuda_dirs);

} // namespace condacuda::app
