#include "util/template.hpp"

#include <algorithm>

namespace condacuda::util {

namespace {
bool is_placeholder_char(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
} // namespace

Result<std::string> expand_placeholders(std::string_view text, std::span<const Placeholder> values,
                                        std::string_view source_name) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t at = text.find('@', pos);
    if (at == std::string_view::npos) break;
    std::size_t end = at + 1;
    while (end < text.size() && is_placeholder_char(text[end])) ++end;
    out.append(text, pos, at - pos);
    if (end == at + 1 || end >= text.size() || text[end] != '@') {
      out += '@'; // not a placeholder: csh's `@ n = ...`, an e-mail address
      pos = at + 1;
      continue;
    }
    const std::string_view name = text.substr(at + 1, end - at - 1);
    const auto value = std::find_if(values.begin(), values.end(),
                                    [&](const Placeholder& p) { return p.name == name; });
    if (value == values.end())
      return make_error(ErrorCode::internal, "unknown placeholder @" + std::string(name) + "@",
                        std::string(source_name));
    out += value->value;
    pos = end + 1;
  }
  if (pos < text.size()) out.append(text, pos);
  return out;
}

} // namespace condacuda::util
