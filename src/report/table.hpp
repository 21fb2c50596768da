#pragma once
// Plain-text output for people: aligned tables and optional colour.
#include <string>
#include <string_view>
#include <vector>

namespace condacuda::report {

// ANSI colour, only when enabled (on a TTY, or --color=always).
struct Style {
  bool color = false;
  std::string bold(const std::string& s) const { return wrap("1", s); }
  std::string red(const std::string& s) const { return wrap("31", s); }
  std::string green(const std::string& s) const { return wrap("32", s); }
  std::string yellow(const std::string& s) const { return wrap("33", s); }
  std::string dim(const std::string& s) const { return wrap("2", s); }

  // Every escape sequence the styles above write: what text for the terminal
  // may keep (util::terminal_safe escapes any other an env smuggles in).
  static const std::vector<std::string_view>& sequences();

private:
  std::string wrap(const char* code, const std::string& s) const {
    return color ? "\x1b[" + std::string(code) + "m" + s + "\x1b[0m" : s;
  }
};

// Text for the terminal: what an env wrote (file names, versions, ELF
// strings) with its control characters and non-UTF-8 bytes escaped; the
// styles' own sequences kept when colour is on.
std::string for_terminal(const std::string& text, const Style& style);

class Table {
public:
  explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.empty(); }
  // Columns separated by two spaces, padded to the widest cell; the last
  // column is not padded. `indent` spaces before every line. A table wider
  // than 100 columns puts its last column on a line of its own under each row.
  std::string render(const Style& style, int indent = 0) const;

private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

} // namespace condacuda::report
