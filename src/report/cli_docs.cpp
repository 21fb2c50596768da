#include "report/cli_docs.hpp"

#include "util/strings.hpp"

#include <algorithm>

namespace condacuda::report {

namespace {
// Env names come from the tool itself: `condacuda list --names` (no scan).
constexpr const char* env_names_command = "condacuda list --names 2>/dev/null";

std::string option_words(const CommandSpec& c) {
  std::string words;
  for (const auto& o : c.options)
    for (const auto& n : o.names) words += (words.empty() ? "" : " ") + n;
  return words;
}

std::string single_quote(const std::string& s) { return "'" + util::replace_all(s, "'", "'\\''") + "'"; }

// `case $prev` arms: one per option of any command that takes a value, so a
// value is completed as what it is (an env name, a folder, a file, a choice).
std::string bash_value_arms(const CliSpec& spec) {
  std::vector<std::string> seen, arms;
  for (const auto& c : spec.commands)
    for (const auto& o : c.options) {
      if (o.value == ValueKind::none) continue;
      std::string pattern = util::join(o.names, "|");
      if (std::find(seen.begin(), seen.end(), pattern) != seen.end()) continue;
      seen.push_back(pattern);
      std::string reply;
      switch (o.value) {
      case ValueKind::env_name: reply = "COMPREPLY=($(compgen -W \"$(" + std::string(env_names_command) + ")\" -- \"$cur\"))"; break;
      case ValueKind::directory: reply = "COMPREPLY=($(compgen -d -- \"$cur\")); compopt -o filenames 2>/dev/null"; break;
      case ValueKind::file: reply = "COMPREPLY=($(compgen -f -- \"$cur\")); compopt -o filenames 2>/dev/null"; break;
      case ValueKind::choice: reply = "COMPREPLY=($(compgen -W " + single_quote(util::join(o.choices, " ")) + " -- \"$cur\"))"; break;
      default: reply = "COMPREPLY=()"; break; // free text: nothing to offer
      }
      arms.push_back("    " + pattern + ") " + reply + "; return ;;\n");
    }
  return util::join(arms, "");
}
} // namespace

std::string bash_completion(const CliSpec& spec) {
  std::string commands;
  for (const auto& c : spec.commands) commands += (commands.empty() ? "" : " ") + c.name;
  std::string out = "# bash completion for " + spec.program + " " + spec.version +
                    " (generated from its command-line definition; do not edit)\n";
  out += "_" + spec.program + "() {\n";
  out += "  local cur prev cmd i\n  cur=${COMP_WORDS[COMP_CWORD]}\n  prev=${COMP_WORDS[COMP_CWORD-1]}\n  cmd=\n";
  out += "  for ((i = 1; i < COMP_CWORD; i++)); do\n    case ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac\n  done\n";
  out += "  if [ -z \"$cmd\" ]; then\n    COMPREPLY=($(compgen -W " + single_quote(commands + " --help --version") +
         " -- \"$cur\"))\n    return\n  fi\n";
  out += "  case $prev in\n" + bash_value_arms(spec) + "  esac\n";
  out += "  case $cmd in\n";
  for (const auto& c : spec.commands) {
    out += "    " + c.name + ")\n      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W " +
           single_quote(option_words(c) + " --help") + " -- \"$cur\"))";
    if (c.takes_env)
      out += "\n      else COMPREPLY=($(compgen -W \"$(" + std::string(env_names_command) +
             ")\" -- \"$cur\") $(compgen -d -- \"$cur\"))";
    out += "; fi ;;\n";
  }
  out += "  esac\n}\ncomplete -F _" + spec.program + " " + spec.program + "\n";
  return out;
}

std::string zsh_completion(const CliSpec& spec) {
  std::string out = "#compdef " + spec.program + "\n# zsh completion for " + spec.program + " " + spec.version +
                    " (generated from its command-line definition; do not edit)\n";
  out += "_" + spec.program + "_envs() {\n  local -a envs\n  envs=(${(f)\"$(" + env_names_command +
         ")\"})\n  _describe -t envs 'env' envs\n}\n";
  out += "_" + spec.program + "() {\n  local line state\n  _arguments -C '1: :->command' '*:: :->args'\n";
  out += "  case $state in\n  command)\n    local -a commands\n    commands=(\n";
  for (const auto& c : spec.commands)
    out += "      " + single_quote(c.name + ":" + util::replace_all(c.description, ":", "\\:")) + "\n";
  out += "    )\n    _describe -t commands 'command' commands ;;\n  args)\n    case $line[1] in\n";
  for (const auto& c : spec.commands) {
    out += "    " + c.name + ")\n      _arguments";
    for (const auto& o : c.options) {
      std::string excl = o.names.size() > 1 ? "(" + util::join(o.names, " ") + ")" : "";
      std::string desc = "[" + util::replace_all(util::replace_all(o.description, "]", "\\]"), "'", "") + "]";
      std::string action;
      switch (o.value) {
      case ValueKind::none: break;
      case ValueKind::env_name: action = ":env:_" + spec.program + "_envs"; break;
      case ValueKind::directory: action = ":folder:_files -/"; break;
      case ValueKind::file: action = ":file:_files"; break;
      case ValueKind::choice: action = ":value:(" + util::join(o.choices, " ") + ")"; break;
      default: action = ":value:"; break;
      }
      for (const auto& n : o.names) out += " \\\n        " + single_quote(excl + n + desc + action);
    }
    if (c.takes_env) out += " \\\n        '1::env:_" + spec.program + "_envs'";
    out += " ;;\n";
  }
  out += "    esac ;;\n  esac\n}\n_" + spec.program + " \"$@\"\n";
  return out;
}

std::string fish_completion(const CliSpec& spec) {
  std::string out = "# fish completion for " + spec.program + " " + spec.version +
                    " (generated from its command-line definition; do not edit)\n";
  std::string all;
  for (const auto& c : spec.commands) all += (all.empty() ? "" : " ") + c.name;
  out += "complete -c " + spec.program + " -f\n";
  for (const auto& c : spec.commands)
    out += "complete -c " + spec.program + " -n \"not __fish_seen_subcommand_from " + all + "\" -a " + c.name + " -d " +
           single_quote(c.description) + "\n";
  for (const auto& c : spec.commands) {
    std::string when = "-n \"__fish_seen_subcommand_from " + c.name + "\"";
    for (const auto& o : c.options) {
      out += "complete -c " + spec.program + " " + when;
      for (const auto& n : o.names) out += n.rfind("--", 0) == 0 ? " -l " + n.substr(2) : " -s " + n.substr(1);
      if (o.value == ValueKind::env_name) out += " -r -a \"(" + std::string(env_names_command) + ")\"";
      else if (o.value == ValueKind::directory) out += " -r -a \"(__fish_complete_directories)\"";
      else if (o.value == ValueKind::file) out += " -r -F";
      else if (o.value == ValueKind::choice) out += " -r -a " + single_quote(util::join(o.choices, " "));
      else if (o.value != ValueKind::none) out += " -r";
      out += " -d " + single_quote(o.description) + "\n";
    }
    if (c.takes_env)
      out += "complete -c " + spec.program + " " + when + " -a \"(" + env_names_command + ")\" -d env\n";
  }
  return out;
}

namespace {
std::string roff(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}
} // namespace

std::string man_page(const CliSpec& spec, const std::vector<std::pair<std::string, std::string>>& exit_codes,
                     const std::vector<std::pair<std::string, std::string>>& files) {
  std::string out = ".\\\" Generated from condacuda's command-line definition; do not edit.\n";
  out += ".TH CONDACUDA 1 \"\" \"condacuda " + spec.version + "\" \"User Commands\"\n";
  out += ".SH NAME\n" + spec.program + " \\- " + roff(spec.summary) + "\n";
  out += ".SH SYNOPSIS\n.B " + spec.program + "\n.I command\n[\\fIENV\\fR] [\\fIoptions\\fR]\n";
  out += ".SH DESCRIPTION\n" + roff(spec.summary) +
         ". Every command that works on one env selects it like conda: a positional ENV (a name, or a path "
         "when it contains a slash), \\fB\\-n\\fR NAME, \\fB\\-p\\fR PREFIX, else $CONDA_PREFIX.\n";
  out += ".SH COMMANDS\n";
  for (const auto& c : spec.commands) {
    out += ".SS " + c.name + "\n" + roff(c.description) + "\n";
    for (const auto& o : c.options) {
      std::vector<std::string> bold;
      for (const auto& n : o.names) bold.push_back("\\fB" + roff(n) + "\\fR");
      out += ".TP\n" + util::join(bold, ", ") + (o.value == ValueKind::none ? "" : " \\fIVALUE\\fR") + "\n" +
             roff(o.description) + "\n";
    }
  }
  out += ".SH EXIT STATUS\n";
  for (const auto& [code, meaning] : exit_codes) out += ".TP\n.B " + code + "\n" + roff(meaning) + "\n";
  out += ".SH FILES\n";
  for (const auto& [path, meaning] : files) out += ".TP\n.I " + roff(path) + "\n" + roff(meaning) + "\n";
  out += ".SH SEE ALSO\n.BR ld.so (8),\n.BR ldconfig (8),\n.BR conda (1)\n";
  return out;
}

} // namespace condacuda::report
