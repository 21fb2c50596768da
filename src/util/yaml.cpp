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
    if (c == '"' || c == '\'') quote = c;
    else if (c == '#') { // a comment runs to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return corrupt("nested more than 64 levels deep at " + position(line, column));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

// Duplicate keys of every mapping, depth first; block nesting is bounded too.
std::optional<Error> structure_problem(const YAML::Node& node, int depth) {
  if (depth > max_depth) return corrupt("nested more than 64 levels deep at " + yaml_position(node.Mark()));
  if (node.IsMap()) {
    std::set<std::string> keys;
    for (const auto& item : node) {
      if (item.first.IsScalar() && !keys.insert(item.first.Scalar()).second)
        return corrupt("the key '" + item.first.Scalar() + "' appears twice (" + yaml_position(item.first.Mark()) + ")");
      if (auto problem = structure_problem(item.second, depth + 1)) return problem;
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node)
      if (auto problem = structure_problem(item, depth + 1)) return problem;
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
  if (auto problem = structure_problem(root, 0)) return *problem;
  return root;
}

} // namespace condacuda::util
