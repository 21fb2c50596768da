#pragma once
// What the activation hooks (templates/hooks/*) do to LD_LIBRARY_PATH, as pure
// functions: doctor and `condacuda run` use them to know the value an
// activated env has without starting a shell. Kept in step with the sh
// template by tests/shell (the same cases run through both).
#include <optional>
#include <string>
#include <vector>

namespace condacuda::repair {

// Removes the leftmost run of whole entries equal to `entries` (joined by
// ':') from `value`. Returns whether something was removed.
bool remove_entries(std::string& value, const std::string& entries);

// Activation: `folders` (absolute, in order) go first. `added_before` is what
// this env's hook added last time when it is already active in this shell
// (it is taken out first, so re-sourcing does not duplicate). An unset or
// empty value yields exactly the folders joined by ':', never an empty entry.
std::optional<std::string> activate_ld_library_path(const std::optional<std::string>& current,
                                                    const std::vector<std::string>& folders,
                                                    const std::optional<std::string>& added_before);

} // namespace condacuda::repair
