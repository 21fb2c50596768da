#pragma once
// `condacuda doctor` output: text for people, JSON (condacuda.doctor/1) and
// the dependency graph in Graphviz DOT.
#include <string>

#include "doctor/doctor.hpp"
#include "report/rendering.hpp"
#include "report/table.hpp"
#include "util/json.hpp"

namespace condacuda::report {

util::Json doctor_json(const doctor::DoctorReport& report);
std::string doctor_text(const doctor::DoctorReport& report, const Style& style, bool verbose = false);
std::string doctor_dot(const doctor::DoctorReport& report);
// Outcome "healthy" (no error finding) or "problems"; text lists every root with `verbose`.
Rendering doctor_rendering(const doctor::DoctorReport& report, bool verbose);

} // namespace condacuda::report
