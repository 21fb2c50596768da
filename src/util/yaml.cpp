#include "util/yaml.hpp"

#include <algorithm>
#include <optional>
#include <set>

namespace condacuda::util {

namespace {
constexpr int max_depth = 64;

Error corrupt(std::string message) { return make_error(ErrorCode::corrupt, std::move(message)); }

std::string position(std::size_t line, std::size_t column) {
  return "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1);
}

// Whether text[i] starts a token: a quote or a comment only opens there
// (it's and a#b are plain text in YAML).
bool token_start(std::string_view text, std::size_t i) {
  if (i == 0) return true;
  const char before = text[i - 1];
  return before == ' ' || before == '\t' || before == '\n' || before == '[' || before == '{' || before == ',' ||
         before == ':' || before == '-' || before == '?';
}

// NUL bytes and flow collections ([ {) nested past max_depth, found by one
// pass over the text before yaml-cpp recurses into it.
std::optional<Error> text_problem(std::string_view text) {
  if (auto nul = text.find('\0'); nul != std::string_view::npos) {
    std::size_t line_start = text.rfind('\n', nul);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    auto line = static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n'));
    return corrupt("a NUL byte at " + position(line, nul - line_start) + ": not a text file");
  }
  std::size_t line = 0, column = 0;
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i, ++column) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      column = static_cast<std::size_t>(-1);
      continue;
    }
    if (quote) {
      if (c == '\\' && quote == '"') ++i, ++column;
      else if (c == quote) quote = 0;
      continue;
    }
    if ((c == '"' || c == '\'') && token_start(text, i)) {
      quote = c;
    } else if (c == '#' && token_start(text, i)) { // a comment runs to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return corrupt("nested more than 64 levels deep at " + position(line, column));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

// Duplicate keys of every mapping, depth first; block nesting is bounded, and
// so is the walk: an alias is one node reached many times, and nested aliases
// multiply (a YAML bomb), so more visits than the text has bytes is an error.
std::optional<Error> structure_problem(const YAML::Node& node, int depth, std::size_t& budget) {
  if (budget == 0) return corrupt("aliases expand past the size of the text (a YAML bomb): not a condacuda file");
  --budget;
  if (depth > max_depth) return corrupt("nested more than 64 levels deep at " + yaml_position(node.Mark()));
  if (node.IsMap()) {
    std::set<std::string> keys;
    for (const auto& item : node) {
      if (item.first.IsScalar() && !keys.insert(item.first.Scalar()).second)
        return corrupt("the key '" + item.first.Scalar() + "' appears twice (" + yaml_position(item.first.Mark()) + ")");
      if (auto problem = structure_problem(item.second, depth + 1, budget)) return problem;
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node)
      if (auto problem = structure_problem(item, depth + 1, budget)) return problem;
  }
  return std::nullopt;
}
} // namespace

std::string yaml_position(const YAML::Mark& mark) {
  if (mark.is_null()) return "an unknown position";
  return position(static_cast<std::size_t>(mark.line), static_cast<std::size_t>(mark.column));
}

Result<YAML::Node> load_yaml(std::string_view text) {
  if (auto problem = text_problem(text)) return *problem;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return corrupt("invalid YAML at " + yaml_position(e.mark) + ": " + e.msg);
  }
  std::size_t budget = text.size() + 16;
  if (auto problem = structure_problem(root, 0, budget)) return *problem;
  return root;
}

} // namespace condacuda::util
