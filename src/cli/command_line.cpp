#include "cli/command_line.hpp"

#include <exception>
#include <iostream>

#include "cli/commands.hpp"

namespace condacuda::cli {

int run(int argc, char** argv) {
  CLI::App root{"condacuda: make the CUDA libraries of conda, pip and pixi envs load correctly, and prove it"};
  root.set_version_flag("--version", std::string("condacuda ") + CONDACUDA_VERSION);
  bool share_dir = false;
  root.add_flag("--print-share-dir", share_dir,
               "Print where this installation keeps its assets (templates, link-script hooks) and exit");
  root.require_subcommand(0, 1);
  std::vector<Command> commands{add_list(root),  add_info(root), add_doctor(root), add_repair(root), add_undo(root),
                                add_run(root),   add_lock(root), add_check(root),  add_probe(root),
                                add_generate(root)};
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
    root.parse(parsed_argc, argv);
  } catch (const CLI::ParseError& e) {
    int status = root.exit(e);
    return status == 0 ? exit_ok : exit_bad_input;
  }
  if (share_dir) return print_share_dir();
  try {
    for (const auto& c : commands)
      if (c.subcommand->parsed()) return c.run();
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return exit_internal;
  }
  std::cerr << root.help();
  return exit_bad_input;
}

} // namespace condacuda::cli
