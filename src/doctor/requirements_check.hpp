#pragma once
// requirement-mismatch (issue 25): every symbol can resolve and the import
// still fail, because a package checks the version of what it loaded (torch
// raises "cuDNN version incompatibility" when the cuDNN it finds is not the
// one it was built against). For each root owned by a package that requires
// a version of a component (inventory/package_requirements.hpp), the copy of
// that component its process loads, with its version and the evidence for
// it (the package that owns it, else what the file says:
// inventory/version_evidence.hpp); a known version that does not satisfy the
// requirement makes the root fail. An unknown version is never a mismatch.
// Pure: files through FileSystemView.
#include <vector>

#include "doctor/doctor.hpp"

namespace condacuda::doctor {

// Marks the roots whose loaded copy does not satisfy a requirement of their
// package as failing (loads false, first_error says which requirement and
// which copy), and returns one finding per requirement and loaded copy.
std::vector<Finding> check_requirements(DoctorReport& report, loader::FileSystemView& files);

} // namespace condacuda::doctor
