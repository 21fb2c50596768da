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
#include "sys/repair_state.hpp"
#include "util/result.hpp"

namespace condacuda::app {

// `files` receives the mappings the env scan made, so nothing is mapped twice.
// `state`: the env's repair state, read once by the caller (its hook and pins).
// `dist_info`: the cache of the wheels' dist-info files (none: all are read).
Result<doctor::DoctorInputs> doctor_inputs(const env::EnvRecord& env, const BaseLdLibraryPath& base,
                                           sys::DiskFileView& files, const sys::RepairState& state,
                                           sys::DistInfoCache* dist_info = nullptr);
// The same, reading the repair state itself.
Result<doctor::DoctorInputs> doctor_inputs(const env::EnvRecord& env, const BaseLdLibraryPath& base,
                                           sys::DiskFileView& files);

} // namespace condacuda::app
