#include "report/table.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace condacuda::report {

namespace {
// Display width of UTF-8 text: code points, not bytes (enough for paths).
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}
// A cell is one line: a newline or CR in it (an env named with one) would
// start a row of its own. Other control bytes are left to for_terminal.
std::string one_line(std::string cell) {
  cell = util::replace_all(std::move(cell), "\n", "\\x0a");
  return util::replace_all(std::move(cell), "\r", "\\x0d");
}
} // namespace

std::string Table::render(const Style& style, int indent) const {
  std::vector<std::size_t> widths(headers_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], width(one_line(row[i])));
  };
  measure(headers_);
  for (const auto& r : rows_) measure(r);
  auto line = [&](const std::vector<std::string>& row, bool header) {
    std::string out(static_cast<std::size_t>(indent), ' ');
    for (std::size_t i = 0; i < widths.size(); ++i) {
      std::string cell = i < row.size() ? one_line(row[i]) : "";
      bool last = i + 1 == widths.size();
      std::string padded = cell + (last ? "" : std::string(widths[i] - width(cell) + 2, ' '));
      out += header ? style.bold(padded) : padded;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(headers_, true);
  for (const auto& r : rows_) out += line(r, false);
  return out;
}

const std::vector<std::string_view>& Style::sequences() {
  static const std::vector<std::string_view> all = {"\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[2m", "\x1b[0m"};
  return all;
}

std::string for_terminal(const std::string& text, const Style& style) {
  static const std::vector<std::string_view> none;
  return util::terminal_safe(text, style.color ? Style::sequences() : none);
}

} // namespace condacuda::report
