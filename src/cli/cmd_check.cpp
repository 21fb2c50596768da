// condacuda check: placeholder until its issue lands.
#include "cli/commands.hpp"

namespace condacuda::cli {

Command add_check(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("check", "(not yet implemented)");
  sub->allow_extras();
  return {sub, [] {
            print_error("'check' is not implemented yet");
            return int(exit_internal);
          }};
}

} // namespace condacuda::cli
