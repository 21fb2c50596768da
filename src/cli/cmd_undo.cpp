// condacuda undo: placeholder until its issue lands.
#include "cli/commands.hpp"

namespace condacuda::cli {

Command add_undo(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("undo", "(not yet implemented)");
  sub->allow_extras();
  return {sub, [] {
            print_error("'undo' is not implemented yet");
            return int(exit_internal);
          }};
}

} // namespace condacuda::cli
