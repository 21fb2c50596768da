// condacuda lock: placeholder until its issue lands.
#include "cli/commands.hpp"

namespace condacuda::cli {

Command add_lock(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("lock", "(not yet implemented)");
  sub->allow_extras();
  return {sub, [] {
            print_error("'lock' is not implemented yet");
            return int(exit_internal);
          }};
}

} // namespace condacuda::cli
