#pragma once
// The parent side of `condacuda check`: starting a child (the probe, or the
// env's python for --python) with a given environment through Boost.Process
// v2, reading its stdout and stderr, and killing it when it outlives its
// timeout: a GPU hang or a library that never returns must not hang the
// check. Plus the few facts about the disk the check needs.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "check/verdict.hpp"
#include "env/discovery.hpp"
#include "util/result.hpp"

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
  check::ChildOutcome outcome;
  std::string stdout_text;
};

// Never throws: a spawn failure is reported in outcome.spawn_error. On
// timeout the child gets SIGKILL; output read until then is kept.
ChildRun run_child(const ChildRequest& request);

// This process's environment with LD_LIBRARY_PATH replaced by `ld_library_path`
// (removed when nullopt).
Environment environment_with(const std::optional<std::string>& ld_library_path);

// The real path of the running condacuda binary (/proc/self/exe).
std::string self_executable();

// realpath, or the lexically normal path when the file does not exist.
std::string canonical_path(const std::string& path);

// Entries of LD_LIBRARY_PATH that hold the CUDA toolkit's stub libcuda.so:
// a libcuda.so in a folder named "stubs", or one with no libcuda.so.1 beside
// it (the driver installs both names; the toolkit ships only the stub,
// whose soname is libcuda.so.1 too).
std::vector<std::string> stub_folders(const std::optional<std::string>& ld_library_path);

// ---- the whole check ---------------------------------------------------------

struct CheckOptions {
  env::EnvRecord env;
  // Like doctor's --ld-library-path: set = assume this base value (inner
  // nullopt: unset) instead of this shell's.
  std::optional<std::optional<std::string>> ld_library_path;
  // The env as this shell has it (its hook if installed), instead of with
  // the folders `condacuda repair` would add when it has no hook.
  bool as_is = false;
  bool quick = false;
  bool python = false;
  int device = 0;
  double timeout_s = 120;
  std::string link_only_arch; // tests: link the PTX for this arch instead of using a driver
};

// Plans (doctor's inputs, the loader model), runs the probe child with the
// activated environment (the env's hook; without one, the folders repair
// would plan, as `condacuda run` gives them; or, with as_is, this shell's), compares, runs python when asked, decides. Errors:
// only those of reading the env (doctor_inputs); everything about the GPU and
// the children is in the report.
Result<check::CheckReport> run_check(const CheckOptions& options);

} // namespace condacuda::sys
