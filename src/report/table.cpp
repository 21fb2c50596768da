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
  // Wider than a terminal's 100 columns with a long first cell (a hostlist,
  // a path): the first column as wide as its short cells, a longer one alone
  // on a line above the rest of its row.
  auto total_width = [&] {
    std::size_t total = static_cast<std::size_t>(indent);
    for (std::size_t i = 0; i < widths.size(); ++i) total += widths[i] + (i + 1 < widths.size() ? 2 : 0);
    return total;
  };
  constexpr std::size_t short_cell = 32;
  if (widths.size() >= 2 && total_width() > 100 && widths[0] > short_cell) {
    widths[0] = width(headers_[0]);
    for (const auto& r : rows_)
      if (!r.empty() && width(one_line(r[0])) <= short_cell) widths[0] = std::max(widths[0], width(one_line(r[0])));
  }
  auto line = [&](const std::vector<std::string>& row, bool header) {
    std::string out(static_cast<std::size_t>(indent), ' ');
    if (!header && !row.empty() && width(one_line(row[0])) > widths[0])
      out += one_line(row[0]) + "\n" + std::string(static_cast<std::size_t>(indent), ' ') + std::string(widths[0] + 2, ' ');
    for (std::size_t i = 0; i < widths.size(); ++i) {
      if (i == 0 && !header && !row.empty() && width(one_line(row[0])) > widths[0]) continue;
      std::string cell = i < row.size() ? one_line(row[i]) : "";
      bool last = i + 1 == widths.size();
      std::string padded = cell + (last ? "" : std::string(widths[i] - width(cell) + 2, ' '));
      out += header ? style.bold(padded) : padded;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  // Wider than a terminal's 100 columns: the last columns (a path, an
  // error) go on lines of their own under each row, 4 further in; more than
  // one such column each with its header in front.
  auto row_width = [&](std::size_t columns) {
    std::size_t total = static_cast<std::size_t>(indent);
    for (std::size_t i = 0; i < columns; ++i) total += widths[i] + (i + 1 < columns ? 2 : 0);
    return total;
  };
  std::size_t kept = widths.size();
  while (kept > 1 && row_width(kept) > 100) --kept;
  if (kept == widths.size()) {
    std::string out = line(headers_, true);
    for (const auto& r : rows_) out += line(r, false);
    return out;
  }
  const std::vector<std::size_t> all = widths;
  widths.resize(kept);
  const std::string under(static_cast<std::size_t>(indent) + 4, ' ');
  const bool labelled = all.size() - kept > 1;
  std::size_t label_width = 0;
  for (std::size_t i = kept; i < headers_.size(); ++i) label_width = std::max(label_width, width(headers_[i]));
  auto first_columns = [&](const std::vector<std::string>& row) {
    return std::vector<std::string>(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(std::min(kept, row.size())));
  };
  std::string out = line(first_columns(headers_), true);
  if (!labelled) out += under + style.bold(headers_[kept]) + "\n";
  for (const auto& r : rows_) {
    out += line(first_columns(r), false);
    for (std::size_t i = kept; i < r.size() && i < headers_.size(); ++i) {
      if (r[i].empty()) continue;
      const std::string label = labelled ? style.dim(headers_[i]) + std::string(label_width - width(headers_[i]) + 2, ' ') : "";
      out += under + label + one_line(r[i]) + "\n";
    }
  }
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
