#pragma once
// The one place condacuda reads LD_LIBRARY_PATH and CONDACUDA_HOOK_STATE from
// its own environment: read once, then handed around as a value.
#include "launch/launch.hpp"

namespace condacuda::sys {

const launch::ShellEnvironment& shell_environment();

// This shell as the env at `prefix` sees it (launch::shell_for).
launch::ShellState this_shell(const std::string& prefix);

} // namespace condacuda::sys
