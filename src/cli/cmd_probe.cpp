// condacuda probe: placeholder until its issue lands.
#include "cli/commands.hpp"

namespace condacuda::cli {

Command add_probe(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("__probe", "");
  sub->group(""); // hidden
  sub->allow_extras();
  return {sub, [] {
            print_error("'probe' is not implemented yet");
            return int(exit_internal);
          }};
}

} // namespace condacuda::cli
