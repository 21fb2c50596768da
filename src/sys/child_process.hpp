#pragma once
// Starting a child with a given environment through Boost.Process v2 (the one
// file that includes Boost), reading its stdout and stderr, and killing it
// when it outlives its timeout: a GPU hang or a library that never returns
// must not hang the parent. Where the kernel refuses pidfd_open(2), which
// Boost.Process needs on Linux, or CONDACUDA_CHILD_START=fork, a plain
// fork/execve/waitpid path does the same (sys/child_fork.hpp).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/child_outcome.hpp"

namespace condacuda::sys {

using Environment = std::vector<std::pair<std::string, std::string>>;

struct ChildRequest {
  std::string program;               // absolute path
  std::vector<std::string> args;
  Environment environment;           // the child's whole environment
  double timeout_s = 60;
  std::size_t max_stdout = 64u << 20; // more is cut (a runaway child)
};

struct ChildRun {
  util::ChildOutcome outcome;
  std::string stdout_text;
  std::string stderr_text; // up to 1 MiB (outcome.stderr_tail: its last 4,000 bytes)
};

// Never throws: a spawn failure is reported in outcome.spawn_error. On
// timeout the child gets SIGKILL; output read until then is kept.
ChildRun run_child(const ChildRequest& request);

// Replaces this process with `command` (searched on the PATH it sets),
// with the environment variables `variables` set (nullopt: unset). Returns
// only when that fails: execvp's errno.
using EnvironmentChanges = std::vector<std::pair<std::string, std::optional<std::string>>>;
int exec_command(const std::vector<std::string>& command, const EnvironmentChanges& variables);

// This process's environment with LD_LIBRARY_PATH replaced by `ld_library_path`
// (removed when nullopt).
Environment environment_with(const std::optional<std::string>& ld_library_path);

} // namespace condacuda::sys
