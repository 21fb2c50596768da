#pragma once
// One finding per cause. A folder on LD_LIBRARY_PATH (or an RPATH entry, or
// ld.so.cache) that shadows several of the env's libraries shows up in many
// findings: a shadowed copy, a CUDA library of another major, a symbol the
// outside copy lacks, a version a package requires. When the env's own copies
// would serve, they all have one fix (put the env first, or take the entry
// off), so they are one finding, with every library the cause shadows, both
// versions, and the original findings kept as its parts (lock reads those).
#include <functional>
#include <vector>

#include "doctor/findings.hpp"

namespace condacuda::doctor {

std::vector<Finding> group_by_cause(std::vector<Finding> findings);

// Every finding as it was before grouping: a group's parts, else itself.
void for_each_cause(const std::vector<Finding>& findings, const std::function<void(const Finding&)>& visit);

} // namespace condacuda::doctor
