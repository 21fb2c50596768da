#pragma once
// `condacuda check` output: JSON (schema condacuda.check/1) and text for
// people (the libraries and where they came from, the device, one row per
// step with its rate and fractions of peak, phases, warnings, the result).
#include <string>

#include "check/verdict.hpp"
#include "report/rendering.hpp"
#include "report/table.hpp"
#include "util/json.hpp"

namespace condacuda::report {

inline constexpr const char* check_schema = "condacuda.check/1";

util::Json check_json(const check::CheckReport& report, int exit_code);
std::string check_text(const check::CheckReport& report, const Style& style);
// Outcome: the check's (check::to_string).
Rendering check_rendering(const check::CheckReport& report, int exit_code);

} // namespace condacuda::report
