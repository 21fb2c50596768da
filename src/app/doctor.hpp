#pragma once
// `condacuda doctor`: every root of the env judged by the loader model.
#include "app/doctor_inputs.hpp"
#include "doctor/doctor.hpp"
#include "util/result.hpp"

namespace condacuda::app {

struct DoctorOptions {
  env::EnvRecord env;
  BaseLdLibraryPath ld_library_path;
};

// Errors: only those of reading the env.
Result<doctor::DoctorReport> doctor(const DoctorOptions& options);

} // namespace condacuda::app
