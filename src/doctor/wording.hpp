#pragma once
// Where the loader found a library, in one set of words for every finding
// (issue 51: diagnose, requirements_check and grouping each had their own):
// in plain words (the loader's terms stay in --json's `via` and in -v).
#include <optional>
#include <string>

#include "loader/process.hpp"

namespace condacuda::doctor {

// "LD_LIBRARY_PATH entry '/opt/cuda/lib64'", "the library's own search path
// entry '$ORIGIN/../lib'" (DT_RUNPATH), "/etc/ld.so.cache", ...
std::string search_step(loader::FoundVia via, const std::string& element);

// "found through <search_step>", with why it won where that is the point:
// LD_LIBRARY_PATH comes before a library's own search path.
std::string found_through(loader::FoundVia via, const std::string& element);

// The step a Finding's `via` names (loader::to_string's word), back.
std::optional<loader::FoundVia> found_via_named(const std::string& name);

} // namespace condacuda::doctor
