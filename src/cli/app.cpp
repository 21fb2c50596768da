#include "cli/app.hpp"

#include <exception>
#include <iostream>

#include "cli/commands.hpp"

namespace condacuda::cli {

int run(int argc, char** argv) {
  CLI::App app{"condacuda: make the CUDA libraries of conda, pip and pixi envs load correctly, and prove it"};
  app.set_version_flag("--version", std::string("condacuda ") + CONDACUDA_VERSION);
  bool share_dir = false;
  app.add_flag("--print-share-dir", share_dir,
               "Print where this installation keeps its assets (templates, link-script hooks) and exit");
  app.require_subcommand(0, 1);
  std::vector<Command> commands{add_list(app),  add_info(app), add_doctor(app), add_repair(app), add_undo(app),
                                add_run(app),   add_lock(app), add_check(app),  add_probe(app),
                                add_generate(app)};
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
  if (share_dir) return print_share_dir();
  try {
    for (const auto& c : commands)
      if (c.app->parsed()) return c.run();
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return exit_internal;
  }
  std::cerr << app.help();
  return exit_bad_input;
}

} // namespace condacuda::cli
