#include "fleet/node_script.hpp"

#include <cctype>

#include "util/strings.hpp"

namespace condacuda::fleet {

namespace {
constexpr std::string_view marker = "condacuda-fleet ";

// "12: text" or " 3: text" -> (12, "text"); nullopt for a line without a label.
std::optional<std::pair<int, std::string_view>> labeled(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  const std::size_t digits = i;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i == digits || i - digits > 9) return std::nullopt;
  const std::string_view rest = line.substr(i);
  if (rest != ":" && !rest.starts_with(": ")) return std::nullopt;
  return std::pair{std::stoi(std::string(line.substr(digits, i - digits))), rest.size() > 2 ? rest.substr(2) : std::string_view()};
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    auto nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

std::optional<int> status_of(std::string_view rest) {
  if (rest.empty() || !std::isdigit(static_cast<unsigned char>(rest[0]))) return std::nullopt;
  return util::leading_number(rest);
}

// One stdout line of a task, following the script's markers.
void take_line(TaskOutput& t, std::string_view text) {
  if (text.starts_with(marker)) {
    std::string_view rest = text.substr(marker.size());
    if (rest.starts_with("node ")) t.node = std::string(util::trim(rest.substr(5)));
    else if (rest.starts_with("doctor-exit ")) t.doctor_exit = status_of(rest.substr(12));
    else if (rest.starts_with("check-exit ")) t.check_exit = status_of(rest.substr(11));
    return;
  }
  std::string& into = t.doctor_exit ? t.check_text : t.doctor_text;
  into += text;
  into += '\n';
}

std::string first_lines(const std::vector<std::string>& lines, std::size_t n) {
  std::vector<std::string> kept;
  for (const auto& l : lines) {
    if (util::trim(l).empty()) continue;
    kept.push_back(std::string(util::trim(l)));
    if (kept.size() == n) break;
  }
  return util::join(kept, " / ");
}

// The document in `text`, or why there is none.
std::optional<util::Json> document_in(const std::string& text, std::string& why, std::string& detail) {
  if (util::trim(text).empty()) {
    why = "it printed nothing";
    return std::nullopt;
  }
  auto parsed = util::parse_json(text);
  if (!parsed) {
    why = "not JSON"; // where it broke differs from node to node: the detail, not the reason
    detail = parsed.error().message;
    return std::nullopt;
  }
  return *parsed;
}
} // namespace

const std::string& node_script() {
  // $0 condacuda, $1 the env's prefix, $2 seconds, $3 the launch context, $4 "check" or nothing.
  static const std::string script =
      "printf 'condacuda-fleet node %s\\n' \"${SLURMD_NODENAME:-$(hostname)}\"\n"
      "t=; if command -v timeout >/dev/null 2>&1; then t=\"timeout -k 5 $2\"; fi\n"
      "$t \"$0\" doctor -p \"$1\" --json --gpu visible --context \"$3\" --color never; s=$?\n"
      "printf '\\ncondacuda-fleet doctor-exit %s\\n' \"$s\"\n"
      "if [ \"$4\" = check ]; then\n"
      "  $t \"$0\" check -p \"$1\" --json --color never; s=$?\n"
      "  printf '\\ncondacuda-fleet check-exit %s\\n' \"$s\"\n"
      "fi\n";
  return script;
}

SrunOutput split_srun_output(std::string_view stdout_text, std::string_view stderr_text) {
  SrunOutput out;
  for (auto line : lines_of(stdout_text))
    if (auto l = labeled(line)) take_line(out.tasks[l->first], l->second);
  for (auto line : lines_of(stderr_text)) {
    if (auto l = labeled(line)) out.tasks[l->first].stderr_lines.emplace_back(l->second);
    else if (!util::trim(line).empty()) out.srun_messages.emplace_back(line);
  }
  return out;
}

NodeRecord record_from_task(const TaskOutput& task, double timeout_s, const std::string& condacuda) {
  const std::string node = task.node;
  const std::string said = first_lines(task.stderr_lines, 2);
  auto with_said = [&](std::string reason) { return said.empty() ? reason : reason + ": " + said; };
  if (!task.doctor_exit)
    return silent_node(node, {Silence::timed_out, with_said("the task ended before condacuda did (killed, or srun stopped)")});
  const int status = *task.doctor_exit;
  if (status == 124 || status == 137)
    return silent_node(node, {Silence::timed_out, "condacuda did not finish within " + std::to_string(static_cast<long>(timeout_s)) + " s"});
  if ((status == 126 || status == 127) && util::trim(task.doctor_text).empty())
    return silent_node(node, {Silence::not_started, with_said(condacuda + " could not be started there")});
  std::string why, detail;
  auto joined = [&] { return detail.empty() ? said : said.empty() ? detail : detail + "; " + said; };
  auto doctor = document_in(task.doctor_text, why, detail);
  if (!doctor)
    return silent_node(node, {Silence::no_document, "doctor exited " + std::to_string(status) + ", " + why, exit_no_answer, joined()});
  util::Json check;
  if (task.check_exit) {
    std::string check_why;
    if (auto c = document_in(task.check_text, check_why, detail)) check = *c;
    else
      return silent_node(node, {Silence::no_document, "check exited " + std::to_string(*task.check_exit) + ", " + check_why,
                                exit_no_answer, joined()});
  }
  return record_from_documents(node, std::move(*doctor), std::move(check));
}

std::map<std::string, LaunchFailure> launch_failures(const std::vector<std::string>& srun_messages) {
  std::map<std::string, LaunchFailure> out;
  constexpr std::string_view on_node = "failed on node ";
  for (const auto& m : srun_messages) {
    auto at = m.find(on_node);
    if (at == std::string::npos) continue;
    std::string rest = m.substr(at + on_node.size());
    auto end = rest.find_first_of(": ");
    const auto colon = rest.find(": ");
    out[rest.substr(0, end)] = {colon == std::string::npos ? "" : std::string(util::trim(rest.substr(colon + 2))),
                                std::string(util::trim(m))};
  }
  return out;
}

} // namespace condacuda::fleet
