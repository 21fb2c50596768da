#include "doctor/findings.hpp"

#include "util/strings.hpp"

namespace condacuda::doctor {

std::string command_line(const FixAction& action) {
  std::string out;
  if (action.kind == "repair" && !action.args.empty()) {
    // The prefix always quoted, as every other repair command condacuda prints.
    out = "condacuda repair -p " + util::quote_posix(action.args.front());
    for (std::size_t i = 1; i < action.args.size(); ++i) out += " " + util::shell_word(action.args[i]);
  } else if (action.kind == "activate" && !action.args.empty()) {
    // ';' where '&&' would do: csh and fish read it too. By its path: a name activates only an env in conda's envs dirs.
    out = "conda deactivate; conda activate " + util::quote_posix(action.args.front());
  } else if (action.kind == "pip-install" || action.kind == "pip-uninstall") {
    out = "pip";
    for (const auto& word : action.args) out += " " + util::shell_word(word);
  }
  return out;
}

} // namespace condacuda::doctor
