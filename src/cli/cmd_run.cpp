// condacuda run: placeholder until its issue lands.
#include "cli/commands.hpp"

namespace condacuda::cli {

Command add_run(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("run", "(not yet implemented)");
  sub->allow_extras();
  return {sub, [] {
            print_error("'run' is not implemented yet");
            return int(exit_internal);
          }};
}

} // namespace condacuda::cli
