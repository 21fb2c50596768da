#pragma once
// doctor's program verdicts (doctor/programs.hpp): the headline lines for
// people ("import torch (2.6.0): loads") and the JSON `python` and
// `programs` members (docs/json.md).
#include <string>

#include "doctor/doctor.hpp"
#include "report/table.hpp"
#include "util/json.hpp"

namespace condacuda::report {

util::Json python_json(const doctor::DoctorInputs& inputs);
util::Json programs_json(const doctor::DoctorReport& report);
// One line a program, with its verdict in each launch judged; "" when the env has none.
std::string programs_text(const doctor::DoctorReport& report, const Style& style, bool verbose);
// The env's Jupyter kernels, each with its verdict per server launch (`kernels` in --json).
util::Json kernels_json(const std::vector<doctor::KernelReport>& kernels);
std::string kernels_text(const std::vector<doctor::KernelReport>& kernels, const Style& style);

} // namespace condacuda::report
