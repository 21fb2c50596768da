#pragma once
// One function per command (cli/cmd_<name>.cpp) that adds its subcommand.
#include "cli/common.hpp"

namespace condacuda::cli {

Command add_list(CLI::App& root);
Command add_info(CLI::App& root);
Command add_doctor(CLI::App& root);
Command add_repair(CLI::App& root);
Command add_undo(CLI::App& root);
Command add_run(CLI::App& root);
Command add_lock(CLI::App& root);
Command add_check(CLI::App& root);
Command add_fleet(CLI::App& root);
Command add_kernel(CLI::App& root);
Command add_generate(CLI::App& root); // hidden: completions and man page

} // namespace condacuda::cli
