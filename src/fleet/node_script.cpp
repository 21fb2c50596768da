#include "fleet/node_script.hpp"

#include <cctype>
#include <cstdint>

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

// One stdout line of a task, following the script's markers. What a TaskProlog
// prints comes before the script's first line, and is not the document.
void take_line(TaskOutput& t, std::string_view text) {
  if (text.starts_with(marker)) {
    std::string_view rest = text.substr(marker.size());
    if (rest.starts_with("node ")) t.node = std::string(util::trim(rest.substr(5)));
    else if (rest == "encoding base64") t.base64 = true;
    else if (rest.starts_with("doctor-exit ")) t.doctor_exit = status_of(rest.substr(12));
    else if (rest.starts_with("check-exit ")) t.check_exit = status_of(rest.substr(11));
    return;
  }
  if (t.node.empty()) return;
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

// RFC 4648 base64 with its line breaks; nullopt on any other byte.
std::optional<std::string> decode_base64(std::string_view text) {
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '=') continue;
    const int v = c >= 'A' && c <= 'Z' ? c - 'A'
                  : c >= 'a' && c <= 'z' ? c - 'a' + 26
                  : c >= '0' && c <= '9' ? c - '0' + 52
                  : c == '+'             ? 62
                  : c == '/'             ? 63
                                         : -1;
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    if (++count == 4) {
      out += static_cast<char>(bits >> 16);
      out += static_cast<char>((bits >> 8) & 0xff);
      out += static_cast<char>(bits & 0xff);
      bits = 0;
      count = 0;
    }
  }
  if (count == 1) return std::nullopt;
  if (count == 2) out += static_cast<char>(bits >> 4);
  if (count == 3) {
    out += static_cast<char>(bits >> 10);
    out += static_cast<char>((bits >> 2) & 0xff);
  }
  return out;
}

// The document in what a task printed (base64 when `encoded`), or why there is none.
std::optional<util::Json> document_in(const std::string& received, bool encoded, std::string& why, std::string& detail) {
  const std::optional<std::string> decoded = encoded ? decode_base64(received) : std::optional(received);
  if (!decoded) {
    why = "not base64";
    return std::nullopt;
  }
  const std::string& text = *decoded;
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
  // A document is read whole into $d, then written once (base64 where there is one).
  static const std::string script =
      "printf 'condacuda-fleet node %s\\n' \"${SLURMD_NODENAME:-$(hostname)}\"\n"
      "t=; if command -v timeout >/dev/null 2>&1; then t=\"timeout -k 5 $2\"; fi\n"
      "e=cat; if command -v base64 >/dev/null 2>&1; then e=base64; printf 'condacuda-fleet encoding base64\\n'; fi\n"
      "d=$($t \"$0\" doctor -p \"$1\" --json --gpu visible --context \"$3\" --color never); s=$?\n"
      "printf '%s\\n' \"$d\" | $e\n"
      "printf 'condacuda-fleet doctor-exit %s\\n' \"$s\"\n"
      "if [ \"$4\" = check ]; then\n"
      "  d=$($t \"$0\" check -p \"$1\" --json --color never); s=$?\n"
      "  printf '%s\\n' \"$d\" | $e\n"
      "  printf 'condacuda-fleet check-exit %s\\n' \"$s\"\n"
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
  const std::string& node = task.node;
  const std::string said = first_lines(task.stderr_lines, 2); // this node's words: the detail, except to say why it did not start
  const std::string within = "did not finish within " + std::to_string(static_cast<long>(timeout_s)) + " s";
  auto timed_out = [](int status) { return status == 124 || status == 137; }; // timeout(1)'s, and its -k
  if (!task.doctor_exit)
    return silent_node(node, {Silence::timed_out, "the task ended before condacuda did (killed, or srun stopped)", exit_no_answer, said});
  const int status = *task.doctor_exit;
  if (timed_out(status)) return silent_node(node, {Silence::timed_out, "condacuda " + within, exit_no_answer, said});
  std::string why, detail;
  auto doctor = document_in(task.doctor_text, task.base64, why, detail);
  if (!doctor) {
    if ((status == 126 || status == 127) && why == "it printed nothing")
      return silent_node(node, {Silence::not_started, condacuda + " could not be started there" + (said.empty() ? "" : ": " + said)});
    return silent_node(node, {Silence::no_document, "doctor exited " + std::to_string(status) + ", " + why, exit_no_answer,
                              detail.empty() ? said : said.empty() ? detail : detail + "; " + said});
  }
  util::Json check;
  std::optional<std::pair<std::string, std::string>> check_failed; // outcome, reason: doctor's verdict is kept
  if (task.check_exit) {
    std::string check_why, check_detail;
    if (timed_out(*task.check_exit)) check_failed = {"timed-out", "check " + within};
    else if (auto c = document_in(task.check_text, task.base64, check_why, check_detail)) check = std::move(*c);
    else check_failed = {"no-document", "check exited " + std::to_string(*task.check_exit) + ", " + check_why};
  }
  NodeRecord r = record_from_documents(node, std::move(*doctor), std::move(check));
  if (check_failed && !r.no_answer) {
    r.verdict.check_outcome = check_failed->first;
    r.verdict.check_exit_code = exit_no_answer;
    r.verdict.check_reason = check_failed->second;
  }
  return r;
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
