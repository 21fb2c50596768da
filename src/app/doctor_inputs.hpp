#pragma once
// What the loader model needs to judge an env, gathered from the system: the
// env's inventory, the machine's loader facts, the LD_LIBRARY_PATH the env
// has once activated (the caller's value, or the one given, with the env's
// condacuda hook applied), the env's python as the host. Shared by doctor,
// repair, run and check.
#include "app/base_ld_library_path.hpp"
#include "doctor/doctor.hpp"
#include "sys/disk_file_view.hpp"
#include "sys/dist_info_cache.hpp"
#include "sys/env_scan.hpp"
#include "sys/repair_state.hpp"
#include "util/result.hpp"

namespace condacuda::app {

// What a caller may hand doctor_inputs besides the env.
struct InputHelpers {
  sys::DistInfoCache* dist_info = nullptr;       // the wheels' dist-info files kept (none: all are read)
  const loader::LoaderConfig* machine = nullptr; // the machine's loader facts, detected already
  sys::ScannedFileHandler on_file;               // told of each shared object as the scan parses it
};

// The env's python as its frameworks' imports see it from this shell
// (sys.path, the recipes' variables); nullopt when its version cannot be told.
// `real_executable`: its real path, when the caller has it.
std::optional<frameworks::PythonView> python_view(const std::string& prefix, const std::string& real_executable = "");

// `files` receives the mappings the env scan made, so nothing is mapped twice.
// `state`: the env's repair state, read once by the caller (its hook and pins).
Result<doctor::DoctorInputs> doctor_inputs(const env::EnvRecord& env, const BaseLdLibraryPath& base,
                                           sys::DiskFileView& files, const sys::RepairState& state,
                                           const InputHelpers& helpers = {});
// The same, reading the repair state itself.
Result<doctor::DoctorInputs> doctor_inputs(const env::EnvRecord& env, const BaseLdLibraryPath& base,
                                           sys::DiskFileView& files);

} // namespace condacuda::app
