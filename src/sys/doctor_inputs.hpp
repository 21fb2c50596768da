#pragma once
// Gathers what doctor needs from the system: the env's inventory, the
// machine's loader facts, the caller's LD_LIBRARY_PATH (or the given one) with
// the env's condacuda hook applied, the env's python as the host.
#include <optional>
#include <string>

#include "doctor/doctor.hpp"
#include "sys/file_view.hpp"
#include "util/result.hpp"

namespace condacuda::sys {

struct DoctorRequest {
  env::EnvRecord env;
  std::optional<std::optional<std::string>> ld_library_path; // set: --ld-library-path given (inner nullopt = unset)
};

// `files` receives the mappings the env scan made, so nothing is mapped twice.
Result<doctor::DoctorInputs> doctor_inputs(const DoctorRequest& request, DiskFileView& files);

// The env's interpreter as the real path of an ELF executable, if it has one.
std::optional<std::string> env_python(const std::string& prefix);

} // namespace condacuda::sys
