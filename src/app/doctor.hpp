#pragma once
// `condacuda doctor`: every root of the env judged by the loader model, in
// both launch contexts (activated, not activated) or in the one asked for.
#include <optional>
#include <vector>

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
  // --gpu (repeatable): sm_XY, X.Y, a GPU name, or "auto" (this machine's GPUs).
  std::vector<std::string> gpus;
  // --driver: a driver version ("535.104") for the coverage rules and the alignment driver rule; unset: the visible one.
  std::optional<std::string> driver;
  std::optional<std::string> gpu_table_file; // --gpus FILE: replaces templates/gpus.yml
  // --imports A,B,C: dlopen these in this order in one process (app/imports.hpp).
  std::vector<std::string> imports;
  // --glibc 2.N: model that glibc release instead of this machine's (a node,
  // a container image); unset: the machine's (sys::glibc_version).
  std::optional<std::string> glibc;
  // --no-cache: check every file again instead of reading and updating the
  // load-check cache (sys/load_check_cache.hpp).
  bool cache = true;
};

// Errors: those of reading the env; a --gpu, --driver or GPU table that cannot be read (bad_input).
Result<doctor::DoctorReport> doctor(const DoctorOptions& options);

} // namespace condacuda::app
