#include "report/layout.hpp"

namespace condacuda::report {

std::string wrap(const std::string& lead, std::size_t lead_width, std::string_view text, std::size_t indent,
                 std::size_t width) {
  std::string out = lead;
  std::size_t column = lead_width;
  bool line_empty = true;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    std::size_t end = text.find(' ', i);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(i, end - i);
    const std::size_t need = (line_empty ? 0 : 1) + word.size();
    // A word that does not fit goes to the next line; a path longer than a
    // line then stands alone on it (after a lead, too: "error" above it).
    const bool after_lead = line_empty && column > 0 && !out.empty() && out.back() != '\n';
    if ((!line_empty || after_lead) && column + need > width) {
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += "\n" + std::string(indent, ' ');
      column = indent;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    line_empty = false;
    i = end;
  }
  return out + "\n";
}

std::string fit(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool newline = end != std::string::npos;
    if (!newline) end = text.size();
    const std::string line = text.substr(start, end - start);
    const std::size_t lead = line.find_first_not_of(' ');
    // Visible width: colour codes take none.
    std::size_t visible = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\x1b') {
        while (i < line.size() && line[i] != 'm') ++i;
        continue;
      }
      ++visible;
    }
    if (visible > width && lead != std::string::npos && line.find(' ', lead) != std::string::npos &&
        line.find('\x1b') == std::string::npos) {
      std::string wrapped = wrap(line.substr(0, lead), lead, std::string_view(line).substr(lead), lead + 2, width);
      if (!newline) wrapped.pop_back();
      out += wrapped;
    } else {
      out += line + (newline ? "\n" : "");
    }
    start = end + 1;
  }
  return out;
}

FixText split_fix(std::string_view fix) {
  FixText out;
  std::string text(fix);
  // "condacuda repair -p X  (why)": the command first, two spaces, the reason.
  for (const char* start : {"condacuda ", "pip ", "conda "})
    if (text.rfind(start, 0) == 0 && text.find('`') == std::string::npos) {
      const auto gap = text.find("  ");
      out.commands.push_back(text.substr(0, gap));
      out.prose = "the command below" + (gap == std::string::npos ? std::string() : " " + text.substr(gap + 2));
      return out;
    }
  // A quoted command that pastes: a tool's name and at least two words more
  // (`condacuda run` alone, `conda rename`, stay in the sentence).
  auto pastes = [](std::string_view q) {
    std::size_t words = 1;
    for (char c : q) words += c == ' ' ? 1 : 0;
    const std::string_view first = q.substr(0, q.find(' '));
    return words >= 3 && (first == "condacuda" || first == "pip" || first == "conda" || first == "mamba");
  };
  std::vector<std::pair<std::size_t, std::size_t>> spans; // [open, close] backquotes
  for (std::size_t open = text.find('`'); open != std::string::npos; open = text.find('`', open + 1)) {
    const std::size_t close = text.find('`', open + 1);
    if (close == std::string::npos) break;
    if (pastes(std::string_view(text).substr(open + 1, close - open - 1))) spans.emplace_back(open, close);
    open = close;
  }
  std::size_t from = 0;
  for (std::size_t n = 0; n < spans.size(); ++n) {
    out.prose += text.substr(from, spans[n].first - from);
    out.prose += spans.size() == 1 ? "the command below" : "command " + std::to_string(n + 1) + " below";
    out.commands.push_back(text.substr(spans[n].first + 1, spans[n].second - spans[n].first - 1));
    from = spans[n].second + 1;
  }
  out.prose += text.substr(from);
  return out;
}

} // namespace condacuda::report
