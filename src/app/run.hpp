#pragma once
// `condacuda run`: a command with the LD_LIBRARY_PATH the env's hook gives
// (or would give: an env not repaired yet gets the planned folders), for
// venvs, cron jobs, Jupyter kernels and pixi without link scripts.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "env/discovery.hpp"
#include "util/result.hpp"

namespace condacuda::app {

// The value CMD would get (--print-ld-library-path); nullopt: unset.
Result<std::optional<std::string>> run_ld_library_path(const env::EnvRecord& env);

// Why a command could not be started (run returns only then).
struct RunFailure {
  enum class Kind { setup, not_found, not_executable };
  Kind kind = Kind::setup; // setup: the env could not be read (error says why)
  Error error;
};

// What `run` sets, as `conda run` does: PATH with $PREFIX/bin first,
// CONDA_PREFIX and CONDA_DEFAULT_ENV (conda, micromamba, pixi) or VIRTUAL_ENV
// (venv, uv; PYTHONHOME unset, as bin/activate does), and LD_LIBRARY_PATH as
// the env's hook gives it (left alone when that is unset). Pure.
std::vector<std::pair<std::string, std::optional<std::string>>> run_environment(
    const env::EnvRecord& env, const std::optional<std::string>& ld_library_path, const std::optional<std::string>& path);

// Replaces this process with `command` (searched on the env's PATH) in the
// activated environment; returns only when that is impossible.
RunFailure run(const env::EnvRecord& env, const std::vector<std::string>& command);

} // namespace condacuda::app
