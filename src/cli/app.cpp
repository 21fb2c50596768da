#include "cli/app.hpp"

#include <exception>
#include <iostream>

#include "cli/commands.hpp"

namespace condacuda::cli {

int run(int argc, char** argv) {
  CLI::App app{"condacuda: make the CUDA libraries of conda, pip and pixi envs load correctly, and prove it"};
  app.set_version_flag("--version", std::string("condacuda ") + CONDACUDA_VERSION);
  app.require_subcommand(1);
  std::vector<Command> commands{add_list(app),  add_info(app), add_doctor(app), add_repair(app), add_undo(app),
                                add_run(app),   add_lock(app), add_check(app),  add_probe(app)};
  // Everything after the first "--" belongs to the command `run` starts.
  int parsed_argc = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      passthrough_args().assign(argv + i + 1, argv + argc);
      parsed_argc = i;
      break;
    }
  }
  try {
    app.parse(parsed_argc, argv);
  } catch (const CLI::ParseError& e) {
    int status = app.exit(e);
    return status == 0 ? exit_ok : exit_bad_input;
  }
  try {
    for (const auto& c : commands)
      if (c.app->parsed()) return c.run();
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return exit_internal;
  }
  return exit_bad_input;
}

} // namespace condacuda::cli
