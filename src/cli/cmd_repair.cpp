// condacuda repair: placeholder until its issue lands.
#include "cli/commands.hpp"

namespace condacuda::cli {

Command add_repair(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("repair", "(not yet implemented)");
  sub->allow_extras();
  return {sub, [] {
            print_error("'repair' is not implemented yet");
            return int(exit_internal);
          }};
}

} // namespace condacuda::cli
