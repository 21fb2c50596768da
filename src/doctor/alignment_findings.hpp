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

} // namespace condacuda::doctor
