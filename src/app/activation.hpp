#pragma once
// The LD_LIBRARY_PATH an env has once activated, as `run` gives it to a
// command and `check` to its probe: the env's condacuda hook applied when it
// is installed; for an env not repaired yet, the folders repair would put
// first (or, when asked, this shell's value as it is).
#include <optional>
#include <string>
#include <vector>

#include "app/doctor_inputs.hpp"
#include "launch/launch.hpp"

namespace condacuda::app {

// What the env's hook does to LD_LIBRARY_PATH from `base`: `folders`
// (prefix-relative) first; `added_before` is what it added when it is already
// active in this shell (taken out first).
std::optional<std::string> with_hook_folders(const std::string& prefix, const std::optional<std::string>& base,
                                             const std::vector<std::string>& folders,
                                             const std::optional<std::string>& added_before);

// What an env without a hook gets.
enum class Unrepaired { plan, as_is };

struct ActivatedLdLibraryPath {
  std::optional<std::string> value;
  launch::ActivatedSource source = launch::ActivatedSource::as_is;
  std::vector<std::string> planned_folders; // prefix-relative, when the source is plan
};

// From the env's inputs (their base value and hook): the hook's value while
// its folders are the ones repair would plan today, else today's plan.
ActivatedLdLibraryPath activated_ld_library_path(const doctor::DoctorInputs& inputs, loader::FileSystemView& files,
                                                 Unrepaired unrepaired);

// From this shell's LD_LIBRARY_PATH (the env is scanned: a hook is used only
// while its folders are today's plan). Errors: those of scanning the env.
Result<ActivatedLdLibraryPath> activated_ld_library_path(const env::EnvRecord& env);

} // namespace condacuda::app
