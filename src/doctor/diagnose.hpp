#pragma once
// From per-root load reports to findings grouped by cause.
#include <vector>

#include "doctor/doctor.hpp"

namespace condacuda::doctor {

std::vector<Finding> diagnose(const DoctorReport& report, loader::FileSystemView& files);

} // namespace condacuda::doctor
