#pragma once
// Shell completions (bash, zsh, fish) and the man page, rendered from one
// description of the command line. The CLI layer builds the description from
// its CLI11 definition, so nothing is maintained by hand twice. The man
// page's sections that no CLI11 definition holds (examples, environment,
// files, findings) are tables here; e2e.man_page compares them with the
// sources and the README so that they cannot drift.
#include <string>
#include <string_view>
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
  bool takes_env = false;     // a positional ENV (a name or a path)
  bool takes_command = false; // `-- CMD [ARGS...]` after its own words (run)
  std::string action;         // the second word of a two-word command (`kernel install`), "" for none
};

struct CliSpec {
  std::string program = "condacuda";
  std::string summary; // one line, lower case, without the program's name
  std::string version;
  std::vector<CommandSpec> commands;
};

// A term and its paragraph: an exit code, a variable, a file, a finding.
struct ManEntry {
  std::string term;
  std::string text;
};

std::string bash_completion(const CliSpec& spec);
std::string zsh_completion(const CliSpec& spec);
std::string fish_completion(const CliSpec& spec);
// roff for man(1). `exit_codes` comes from the CLI layer, which owns them.
std::string man_page(const CliSpec& spec, const std::vector<ManEntry>& exit_codes);

// The finding codes doctor reports (doctor/findings.hpp `code::`), with the
// severity and the line of the README's "Findings" table, word for word
// without its Markdown.
struct FindingDoc {
  std::string_view code;
  std::string_view severity;
  std::string_view what;
};
const std::vector<FindingDoc>& finding_docs();

} // namespace condacuda::report
