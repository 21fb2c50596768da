#pragma once
// Shell completions (bash, zsh, fish) and the man page, rendered from one
// description of the command line. The CLI layer builds the description from
// its CLI11 definition, so nothing is maintained by hand twice.
#include <string>
#include <vector>

namespace condacuda::report {

// What an option's value is, so that each shell completes it the same way.
enum class ValueKind { none, text, env_name, directory, file, choice };

struct OptionSpec {
  std::vector<std::string> names; // "-n", "--name"
  std::string description;
  ValueKind value = ValueKind::none;
  std::vector<std::string> choices; // ValueKind::choice
};

struct CommandSpec {
  std::string name;
  std::string description;
  std::vector<OptionSpec> options;
  bool takes_env = false; // a positional ENV (a name or a path)
};

struct CliSpec {
  std::string program = "condacuda";
  std::string summary;
  std::string version;
  std::vector<CommandSpec> commands;
};

std::string bash_completion(const CliSpec& spec);
std::string zsh_completion(const CliSpec& spec);
std::string fish_completion(const CliSpec& spec);
// roff for man(1); `exit_codes` and `files` become their own sections.
std::string man_page(const CliSpec& spec, const std::vector<std::pair<std::string, std::string>>& exit_codes,
                     const std::vector<std::pair<std::string, std::string>>& files);

} // namespace condacuda::report
