#pragma once
// One function per command (cli/cmd_<name>.cpp) that adds its subcommand.
#include "cli/common.hpp"

namespace condacuda::cli {

Command add_list(CLI::App& app);
Command add_info(CLI::App& app);
Command add_doctor(CLI::App& app);
Command add_repair(CLI::App& app);
Command add_undo(CLI::App& app);
Command add_run(CLI::App& app);
Command add_lock(CLI::App& app);
Command add_check(CLI::App& app);
Command add_probe(CLI::App& app); // hidden: the child process of `check`
Command add_generate(CLI::App& app); // hidden: completions and man page

} // namespace condacuda::cli
