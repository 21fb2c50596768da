#pragma once
// `condacuda doctor`: every root of the env judged by the loader model, in
// both launch contexts (activated, not activated) or in the one asked for.
#include <optional>

#include "app/doctor_inputs.hpp"
#include "doctor/doctor.hpp"
#include "util/result.hpp"

namespace condacuda::app {

struct DoctorOptions {
  env::EnvRecord env;
  BaseLdLibraryPath ld_library_path;
  // --context: judge only this one (its failures are errors); unset: both,
  // a failure only without activation being a warning.
  std::optional<doctor::LaunchContext> context;
};

// Errors: only those of reading the env.
Result<doctor::DoctorReport> doctor(const DoctorOptions& options);

} // namespace condacuda::app
