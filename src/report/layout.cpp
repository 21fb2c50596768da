#include "report/layout.hpp"

#include <cctype>

#include "util/strings.hpp"

namespace condacuda::report {

std::size_t visible_width(std::string_view text) {
  std::size_t visible = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b') {
      while (i < text.size() && text[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++visible; // a UTF-8 code point, not its continuation bytes
  }
  return visible;
}

std::string wrap(const std::string& lead, std::size_t lead_width, std::string_view text, std::size_t indent,
                 std::size_t width) {
  std::string out = lead;
  std::size_t column = lead_width;
  bool line_empty = true;
  std::size_t i = 0;
  while (i < text.size()) {
    // The spaces before the word are kept where no break falls ("ok  this shell").
    const std::size_t gap_start = i;
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    const std::size_t gap = std::max<std::size_t>(1, i - gap_start);
    std::size_t end = text.find(' ', i);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(i, end - i);
    const std::size_t need = (line_empty ? 0 : gap) + visible_width(word);
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
      out += std::string(gap, ' ');
      column += gap;
    }
    out += word;
    column += visible_width(word);
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
    if (visible_width(line) > width && lead != std::string::npos && line.find(' ', lead) != std::string::npos) {
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
  // "condacuda repair -p X  (why)": the command first (after the variables
  // it sets, "LD_LIBRARY_PATH='...' condacuda ..."), two spaces, the reason.
  std::size_t command_start = 0;
  while (command_start < text.size() && (std::isupper(static_cast<unsigned char>(text[command_start])) || text[command_start] == '_'))
    ++command_start;
  if (command_start > 0 && command_start < text.size() && text[command_start] == '=') {
    const std::string_view rest = std::string_view(text).substr(command_start + 1);
    const std::size_t end = rest.starts_with("'") ? rest.find('\'', 1) + 1 : rest.find(' ');
    command_start = end == 0 || end == std::string_view::npos ? 0 : command_start + 1 + end + 1;
  } else {
    command_start = 0;
  }
  for (const char* start : {"condacuda ", "pip ", "conda "})
    if (std::string_view(text).substr(command_start).starts_with(start) && text.find('`') == std::string::npos) {
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

std::string fix_block(const std::string& lead, std::size_t lead_width, std::string_view fix) {
  const FixText text = split_fix(fix);
  std::string out = wrap(lead, lead_width, text.prose, lead_width);
  for (const auto& command : text.commands) out += command_block(command, lead_width);
  return out;
}

std::string path_variable_text(const std::string& styled_name, const std::string& name,
                               const std::optional<std::string>& value, const std::string& note, std::size_t width) {
  const std::string shown = value ? "'" + *value + "'" : "(unset)";
  if (!value || name.size() + 1 + shown.size() + 2 + visible_width(note) <= width || value->find_first_of(":;") == std::string::npos)
    return wrap(styled_name + " ", name.size() + 1, shown + "  " + note, 2, width);
  const auto entries = util::split(*value, ":;"); // glibc splits at both
  std::string out = wrap(styled_name + " ", name.size() + 1, std::to_string(entries.size()) + " entries, in order " + note, 2, width);
  for (const auto& entry : entries) out += "  " + (entry.empty() ? std::string("'' (the current directory)") : entry) + "\n";
  return out;
}

std::string command_block(std::string_view command, std::size_t indent, std::size_t width) {
  // The shell's words: a space inside '...' or after a backslash is no break.
  std::vector<std::string_view> words;
  bool quoted = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= command.size(); ++i) {
    if (i + 1 < command.size() && command[i] == '\\' && !quoted) {
      ++i;
      continue;
    }
    if (i < command.size() && command[i] == '\'') quoted = !quoted;
    if (i == command.size() || (command[i] == ' ' && !quoted)) {
      if (i > start) words.push_back(command.substr(start, i - start));
      start = i + 1;
    }
  }
  std::string out(indent, ' ');
  std::size_t column = indent;
  bool line_empty = true;
  for (std::size_t n = 0; n < words.size(); ++n) {
    const std::size_t tail = n + 1 < words.size() ? 2 : 0; // room for the " \\" of a line that goes on
    if (!line_empty && column + 1 + words[n].size() + tail > width) {
      out += " \\\n" + std::string(indent + 4, ' ');
      column = indent + 4;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++column;
    }
    out += words[n];
    column += words[n].size();
    line_empty = false;
  }
  return out + "\n";
}

} // namespace condacuda::report
