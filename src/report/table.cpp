#include "report/table.hpp"

#include <algorithm>

#include "report/layout.hpp"
#include "util/strings.hpp"

namespace condacuda::report {

namespace {
// Display width: code points, not bytes (enough for paths); colour codes take none.
std::size_t width(const std::string& s) { return visible_width(s); }
// A cell is one line: a newline or CR in it (an env named with one) would
// start a row of its own. Other control bytes are left to for_terminal.
std::string one_line(std::string cell) {
  cell = util::replace_all(std::move(cell), "\n", "\\x0a");
  return util::replace_all(std::move(cell), "\r", "\\x0d");
}
} // namespace

namespace {
constexpr std::size_t short_cell = 32; // a first cell longer than this may stand above its row

// How a table is laid out: each column's width (the first one's capped when
// its long cells stand above their rows) and how many columns stay in the
// row (the rest go under it).
struct Layout {
  std::vector<std::size_t> widths;
  std::size_t kept = 0;
};

std::size_t row_width(const std::vector<std::size_t>& widths, std::size_t columns, int indent) {
  std::size_t total = static_cast<std::size_t>(indent);
  for (std::size_t i = 0; i < columns; ++i) total += widths[i] + (i + 1 < columns ? 2 : 0);
  return total;
}

// Wider than the screen: first the first column as wide as its short cells
// (a hostlist, a path longer than that stands above its row), then the last
// columns moved under each row until the rest fits.
Layout layout_of(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows, int indent) {
  Layout l{std::vector<std::size_t>(headers.size(), 0), headers.size()};
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < l.widths.size(); ++i) l.widths[i] = std::max(l.widths[i], width(one_line(row[i])));
  };
  measure(headers);
  for (const auto& r : rows) measure(r);
  if (l.widths.size() >= 2 && row_width(l.widths, l.widths.size(), indent) > text_width && l.widths[0] > short_cell) {
    l.widths[0] = width(headers[0]);
    for (const auto& r : rows)
      if (!r.empty() && width(one_line(r[0])) <= short_cell) l.widths[0] = std::max(l.widths[0], width(one_line(r[0])));
  }
  while (l.kept > 1 && row_width(l.widths, l.kept, indent) > text_width) --l.kept;
  return l;
}

// One row's kept columns; a first cell wider than its column on a line of its own above them.
std::string row_text(const std::vector<std::string>& row, bool header, const Layout& l, const Style& style, int indent) {
  const std::string lead(static_cast<std::size_t>(indent), ' ');
  const bool above = !header && !row.empty() && width(one_line(row[0])) > l.widths[0];
  std::string out = above ? lead + one_line(row[0]) + "\n" : "";
  std::string line = lead;
  for (std::size_t i = 0; i < l.kept; ++i) {
    const std::string cell = i < row.size() && !(i == 0 && above) ? one_line(row[i]) : "";
    const bool last = i + 1 == l.kept;
    const std::string padded = cell + (last ? "" : std::string(l.widths[i] - width(cell) + 2, ' '));
    line += header ? style.bold(padded) : padded;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return out + (line.empty() && above ? "" : line + "\n"); // no blank line under a cell that stood above
}
} // namespace

std::string Table::render(const Style& style, int indent) const {
  const Layout l = layout_of(headers_, rows_, indent);
  auto kept_of = [&](const std::vector<std::string>& row) {
    return std::vector<std::string>(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(std::min(l.kept, row.size())));
  };
  std::string out = row_text(kept_of(headers_), true, l, style, indent);
  // The columns under each row, 4 further in; more than one of them each with its header in front.
  const std::string under(static_cast<std::size_t>(indent) + 4, ' ');
  const bool labelled = headers_.size() - l.kept > 1;
  std::size_t label_width = 0;
  for (std::size_t i = l.kept; i < headers_.size(); ++i) label_width = std::max(label_width, width(headers_[i]));
  if (l.kept < headers_.size() && !labelled) out += under + style.bold(headers_[l.kept]) + "\n";
  for (const auto& r : rows_) {
    out += row_text(kept_of(r), false, l, style, indent);
    for (std::size_t i = l.kept; i < r.size() && i < headers_.size(); ++i) {
      if (r[i].empty()) continue;
      const std::string label = labelled ? style.dim(headers_[i]) + std::string(label_width - width(headers_[i]) + 2, ' ') : "";
      const std::string value = one_line(r[i]);
      // A labelled value too long for the line goes under its label, 4 further in.
      if (labelled && under.size() + label_width + 2 + width(value) > text_width)
        out += under + style.dim(headers_[i]) + "\n" + under + "    " + value + "\n";
      else
        out += under + label + value + "\n";
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
