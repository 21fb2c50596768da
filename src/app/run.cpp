#include "app/run.hpp"

#include <cerrno>

#include "app/activation.hpp"
#include "sys/child_process.hpp"
#include "sys/posix.hpp"

namespace condacuda::app {

Result<std::optional<std::string>> run_ld_library_path(const env::EnvRecord& env) {
  auto activated = activated_ld_library_path(env);
  if (!activated) return activated.error();
  return activated->value;
}

RunFailure run(const env::EnvRecord& env, const std::vector<std::string>& command) {
  auto value = run_ld_library_path(env);
  if (!value) return {RunFailure::Kind::setup, value.error()};
  int e = sys::exec_command(command, *value);
  return {e == ENOENT ? RunFailure::Kind::not_found : RunFailure::Kind::not_executable,
          sys::errno_error(e, "cannot run " + command.front(), "")};
}

} // namespace condacuda::app
