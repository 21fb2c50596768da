#pragma once
// What the loader model needs to judge an env, gathered from the system: the
// env's inventory, the machine's loader facts, the LD_LIBRARY_PATH the env
// has once activated (the caller's value, or the one given, with the env's
// condacuda hook applied), the env's python as the host. Shared by doctor,
// repair, run and check.
#include <optional>
#include <string>

#include "doctor/doctor.hpp"
#include "sys/disk_file_view.hpp"
#include "util/result.hpp"

namespace condacuda::app {

// The LD_LIBRARY_PATH a command assumes before the env's hook: this shell's
// (the default), or one given on the command line (--ld-library-path VALUE;
// --no-ld-library-path for unset). A given value is taken as not activated
// yet: what the hook recorded in this shell is not consulted.
class BaseLdLibraryPath {
public:
  static BaseLdLibraryPath this_shell() { return {}; }
  static BaseLdLibraryPath given(std::optional<std::string> value) {
    BaseLdLibraryPath b;
    b.given_ = true;
    b.value_ = std::move(value);
    return b;
  }
  bool is_given() const { return given_; }
  // The value when given (nullopt: unset); this process's otherwise.
  std::optional<std::string> value() const;

private:
  bool given_ = false;
  std::optional<std::string> value_;
};

// `files` receives the mappings the env scan made, so nothing is mapped twice.
Result<doctor::DoctorInputs> doctor_inputs(const env::EnvRecord& env, const BaseLdLibraryPath& base,
                                           sys::DiskFileView& files);

} // namespace condacuda::app
