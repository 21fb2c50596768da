#include "fleet/slurm.hpp"

#include "util/strings.hpp"

namespace condacuda::fleet {

namespace {
// sinfo's state flags, appended to the state name (sinfo(1), "NODE STATE CODES").
std::string_view base_state(std::string_view state) {
  while (!state.empty() && std::string_view("*~#!%$@^-").find(state.back()) != std::string_view::npos)
    state.remove_suffix(1);
  return state;
}

std::string flag_words(std::string_view state) {
  std::vector<std::string> words;
  for (char c : state.substr(base_state(state).size())) {
    switch (c) {
    case '*': words.push_back("not responding"); break;
    case '~': words.push_back("powered off"); break;
    case '#': words.push_back("powering up"); break;
    case '!': words.push_back("pending power down"); break;
    case '%': words.push_back("powering down"); break;
    case '$': words.push_back("maintenance reservation"); break;
    case '@': words.push_back("pending reboot"); break;
    case '^': words.push_back("rebooting"); break;
    case '-': words.push_back("planned for a job"); break;
    default: break;
    }
  }
  return util::join(words, ", ");
}
} // namespace

Result<std::vector<SlurmNode>> parse_sinfo_nodes(std::string_view text) {
  std::vector<SlurmNode> out;
  for (const auto& line : util::split(text, "\n")) {
    if (util::trim(line).empty()) continue;
    std::vector<std::string> fields;
    std::string_view rest = line;
    for (int i = 0; i < 3; ++i) {
      auto bar = rest.find('|');
      if (bar == std::string_view::npos) break;
      fields.emplace_back(util::trim(rest.substr(0, bar)));
      rest.remove_prefix(bar + 1);
    }
    if (fields.size() != 3 || fields[0].empty())
      return make_error(ErrorCode::bad_input, "sinfo printed a line fleet cannot read: '" + util::terminal_safe(line) + "'");
    SlurmNode n;
    n.name = fields[0];
    n.partition = fields[1];
    if (n.partition.ends_with('*')) {
      n.partition.pop_back();
      n.default_partition = true;
    }
    n.state = fields[2];
    n.reason = std::string(util::trim(rest)); // the reason may hold '|'
    out.push_back(std::move(n));
  }
  return out;
}

bool takes_a_job_now(std::string_view state) {
  const std::string_view base = base_state(state);
  if (base.size() != state.size()) return false; // any flag: not responding, powered off, maintenance...
  return base == "idle" || base == "mixed";
}

std::string unavailable_reason(const SlurmNode& node) {
  const std::string base(base_state(node.state));
  const std::string flags = flag_words(node.state);
  std::string out = base;
  if (!flags.empty()) out += " (" + flags + ")";
  else if (base == "allocated") out += " (every CPU in use; fleet does not wait)";
  if (!node.reason.empty() && node.reason != "none") out += ": " + node.reason;
  return out;
}

} // namespace condacuda::fleet
