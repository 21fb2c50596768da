#pragma once
// `condacuda check`: plans with the loader model, runs the probe child
// (`condacuda-probe`, src/probe/) with the activated environment, compares
// what loaded with the prediction, runs the env's python when asked, decides.
#include "app/doctor_inputs.hpp"
#include "check/verdict.hpp"
#include "util/result.hpp"

namespace condacuda::app {

struct CheckOptions {
  env::EnvRecord env;
  BaseLdLibraryPath ld_library_path;
  // The env as this shell has it (its hook if installed), instead of with
  // the folders `condacuda repair` would add when it has no hook.
  bool as_is = false;
  bool quick = false;
  bool python = false;
  int device = 0;
  double timeout_s = 120;
  std::string link_only_arch; // tests: link the PTX for this arch instead of using a driver
};

// Errors: only those of reading the env; everything about the GPU and the
// children is in the report.
Result<check::CheckReport> check(const CheckOptions& options);

} // namespace condacuda::app
