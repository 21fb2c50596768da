#pragma once
// One function per command (cli/cmd_<name>.cpp) that adds its subcommand.
#include "cli/common.hpp"

namespace condacuda::cli {

Command add_list(CLI::App& app);
Command add_info(CLI::App& app);
Command add_doctor(CLI::App& app);

} // namespace condacuda::cli
