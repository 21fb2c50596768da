#include "app/run.hpp"

#include <cerrno>
#include <cstdlib>

#include "app/activation.hpp"
#include "loader/path_list.hpp"
#include "sys/child_process.hpp"
#include "sys/posix.hpp"

namespace condacuda::app {

namespace {
// PATH splits on ':', LD_LIBRARY_PATH on ':' and ';' (glibc elf/dl-load.c,
// _dl_init_paths), neither with an escape: a prefix '/x/p:y' would put the
// folder y/bin, relative to wherever the command runs, on PATH, and '/x/s;y'
// a relative library folder. Such a prefix is refused, with its cause.
Status check_prefix(const env::EnvRecord& env) {
  if (!loader::fits_path_list(env.prefix))
    return make_error(ErrorCode::unsupported,
                      "the env's path contains ':' or ';', which separate the entries of PATH and LD_LIBRARY_PATH: the "
                      "command would search folders relative to the current directory. Move the env to a path without "
                      "them (`conda rename`, or a new env)",
                      env.prefix);
  return ok_status();
}
} // namespace

Result<std::optional<std::string>> run_ld_library_path(const env::EnvRecord& env) {
  if (auto status = check_prefix(env); !status) return status.error();
  auto activated = activated_ld_library_path(env);
  if (!activated) return activated.error();
  return activated->value;
}

std::vector<std::pair<std::string, std::optional<std::string>>> run_environment(
    const env::EnvRecord& env, const std::optional<std::string>& ld_library_path, const std::optional<std::string>& path) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  const std::string bin = env.prefix + "/bin";
  std::string value = bin;
  if (path && !path->empty() && *path != bin && path->rfind(bin + ":", 0) != 0) value += ":" + *path;
  else if (path && !path->empty()) value = *path;
  out.emplace_back("PATH", value);
  if (env.kind == env::EnvKind::venv || env.kind == env::EnvKind::uv) {
    out.emplace_back("VIRTUAL_ENV", env.prefix);
    out.emplace_back("PYTHONHOME", std::nullopt);
  } else {
    out.emplace_back("CONDA_PREFIX", env.prefix);
    out.emplace_back("CONDA_DEFAULT_ENV", env.name);
  }
  if (ld_library_path) out.emplace_back("LD_LIBRARY_PATH", *ld_library_path);
  return out;
}

RunFailure run(const env::EnvRecord& env, const std::vector<std::string>& command) {
  auto value = run_ld_library_path(env);
  if (!value) return {RunFailure::Kind::setup, value.error()};
  const char* path = std::getenv("PATH");
  int e = sys::exec_command(command, run_environment(env, *value, path ? std::optional<std::string>(path) : std::nullopt));
  return {e == ENOENT ? RunFailure::Kind::not_found : RunFailure::Kind::not_executable,
          sys::errno_error(e, "cannot run " + command.front(), "")};
}

} // namespace condacuda::app
