#include "cli/command_line.hpp"

#include <exception>
#include <iostream>

#include "cli/commands.hpp"
#include "report/document.hpp"
#include "util/strings.hpp"

namespace condacuda::cli {

namespace {
// A usage error: CLI11's text (or ours) on stderr, and under --json the error
// document on stdout, as every other error.
int usage_error(const std::string& message, bool json) {
  if (json) emit(report::error_json(make_error(ErrorCode::bad_input, message), exit_bad_input, std::nullopt).dump() + "\n");
  return exit_bad_input;
}

// The first word, when it names no command: "unknown command 'doctr'; did you mean 'doctor'?".
std::optional<std::string> unknown_command(int argc, char** argv, const CLI::App& root) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  std::vector<std::string> names;
  for (const CLI::App* sub : root.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == argv[1]) return std::nullopt;
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  }
  std::string message = std::string("unknown command '") + argv[1] + "'";
  if (auto near = util::nearest(argv[1], names)) message += "; did you mean '" + *near + "'?";
  return message + " (condacuda --help lists them)";
}
} // namespace

namespace {
// Every command, or only the one named first: building a command's options
// is most of CLI11's start-up (a tenth of a millisecond a command), and a
// command line that starts with a command's name can name no other. Help,
// suggestions for a mistyped name, and the completions and man page
// (`__generate`, which describes every command) get them all.
std::vector<Command> add_commands(CLI::App& root, std::string_view first) {
  using Adder = Command (*)(CLI::App&);
  static constexpr std::pair<std::string_view, Adder> named[] = {
      {"list", add_list}, {"info", add_info}, {"doctor", add_doctor}, {"repair", add_repair}, {"undo", add_undo},
      {"run", add_run},   {"lock", add_lock}, {"check", add_check},   {"fleet", add_fleet}, {"kernel", add_kernel}};
  for (const auto& [name, add] : named)
    if (first == name) return {add(root)};
  std::vector<Command> all;
  for (const auto& entry : named) all.push_back(entry.second(root));
  all.push_back(add_generate(root));
  return all;
}
} // namespace

int run(int argc, char** argv) {
  CLI::App root{"condacuda: make the CUDA libraries of conda, pip and pixi envs load correctly, and prove it"};
  root.set_version_flag("--version", std::string("condacuda ") + CONDACUDA_VERSION);
  bool share_dir = false;
  root.add_flag("--print-share-dir", share_dir,
               "Print where this installation keeps its assets (templates, link-script hooks) and exit");
  root.require_subcommand(0, 1);
  std::vector<Command> commands = add_commands(root, argc > 1 ? std::string_view(argv[1]) : std::string_view());
  // Everything after the first "--" belongs to the command `run` starts.
  int parsed_argc = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      passthrough_args().assign(argv + i + 1, argv + argc);
      parsed_argc = i;
      break;
    }
  }
  bool json = false;
  for (int i = 1; i < parsed_argc; ++i) json = json || std::string_view(argv[i]) == "--json";
  if (auto unknown = unknown_command(parsed_argc, argv, root)) {
    print_error(*unknown);
    return usage_error(*unknown, json);
  }
  try {
    root.parse(parsed_argc, argv);
  } catch (const CLI::ParseError& e) {
    int status = root.exit(e);
    return status == 0 ? exit_ok : usage_error(e.what(), json);
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
