#include "sys/shell_environment.hpp"

#include <cstdlib>

#include "launch/hook_model.hpp"

namespace condacuda::sys {

namespace {
launch::PathValue variable(const char* name) {
  const char* value = std::getenv(name);
  return value ? launch::PathValue(value) : std::nullopt;
}
} // namespace

const launch::ShellEnvironment& shell_environment() {
  static const launch::ShellEnvironment environment{
      variable("LD_LIBRARY_PATH"), variable(std::string(launch::hook_state_variable).c_str())};
  return environment;
}

launch::ShellState this_shell(const std::string& prefix) { return launch::shell_for(shell_environment(), prefix); }

} // namespace condacuda::sys
