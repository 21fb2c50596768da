#pragma once
// doctor's view of the alignment rules: each failure of lock::evaluate_alignment
// becomes a finding (misaligned, driver-too-old). The rules live in lock/ only;
// doctor and `condacuda lock` judge an env the same way.
#include <vector>

#include "doctor/doctor.hpp"
#include "lock/alignment.hpp"

namespace condacuda::doctor {

// Evaluates the rules on the env of `in` with the embedded release table and
// in.driver_version (seen in in.driver_source), reading symbols through `files`.
std::vector<Finding> alignment_findings(const DoctorInputs& in, loader::FileSystemView& files);

// The findings for an alignment already evaluated. With the env's
// `inventory`, a same-major finding caused by consumers built for another
// major (cupy-cuda11x among CUDA 12 wheels) gets their builds as its fix.
std::vector<Finding> alignment_findings(const lock::Alignment& alignment, const inventory::Inventory* inventory = nullptr);

// A package of the env built for another CUDA major than `env_major`
// (inventory::built_for: its name, local version, conda build string or
// requirements say so) and its build for the env's major: pip's steps
// (uninstall, install from the right index), or, for a conda package, the
// conda command in words only (`actions` play pip). nullopt: built for the
// env's major, or nothing says, or no build condacuda can name.
struct ConsumerRebuild {
  int built = -1;       // the major it is built for
  std::string evidence; // what says so: "its name", "its build string cuda118_..."
  std::vector<FixAction> actions;
  std::string words;    // "`pip uninstall -y cupy-cuda11x` then `pip install cupy-cuda12x`"
};
std::optional<ConsumerRebuild> consumer_rebuild(const std::string& manager, const std::string& package, const std::string& version,
                                                const std::string& build, const inventory::Inventory& inventory, int env_major);

} // namespace condacuda::doctor
