#include "loader/path_list.hpp"

#include <cctype>

namespace condacuda::loader {

namespace {
// is_dst (elf/dl-load.c): `NAME` or `{NAME}` right after the '$'; the bare
// form must not be followed by an identifier character ($ORIGINX is literal).
std::size_t is_dst(std::string_view input, std::string_view ref) {
  if (!input.empty() && input[0] == '{') {
    if (input.substr(1, ref.size()) != ref || input.size() <= ref.size() + 1 || input[ref.size() + 1] != '}')
      return 0;
    return ref.size() + 2;
  }
  if (input.substr(0, ref.size()) != ref) return 0;
  if (input.size() > ref.size()) {
    unsigned char next = static_cast<unsigned char>(input[ref.size()]);
    if (std::isalnum(next) || next == '_') return 0;
  }
  return ref.size();
}

enum class Token { none, origin, platform, lib };

struct Match {
  Token token = Token::none;
  std::size_t length = 0; // characters after the '$'
};

Match match_token(std::string_view after_dollar) {
  if (auto n = is_dst(after_dollar, "ORIGIN")) return {Token::origin, n};
  if (auto n = is_dst(after_dollar, "PLATFORM")) return {Token::platform, n};
  if (auto n = is_dst(after_dollar, "LIB")) return {Token::lib, n};
  return {};
}
} // namespace

std::size_t count_dst(std::string_view s) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '$') continue;
    if (match_token(s.substr(i + 1)).token != Token::none) ++count;
  }
  return count;
}

std::string expand_dst(std::string_view s, const DstValues& values) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '$') {
      out.push_back(s[i]);
      continue;
    }
    Match m = match_token(s.substr(i + 1));
    const std::string* replacement = nullptr;
    switch (m.token) {
    case Token::none: out.push_back('$'); continue;
    case Token::origin: {
      // Secure mode accepts $ORIGIN only as the very start of the element,
      // followed by '/' or its end (_dl_dst_substitute).
      std::size_t end = i + 1 + m.length;
      bool alone_at_start = i == 0 && (end == s.size() || s[end] == '/');
      if (values.origin && (!values.secure || alone_at_start)) replacement = &*values.origin;
      break;
    }
    case Token::platform:
      if (!values.platform.empty()) replacement = &values.platform;
      break;
    case Token::lib: replacement = &values.lib; break;
    }
    if (!replacement) return {}; // a known token without a value discards the element
    out += *replacement;
    i += m.length;
  }
  return out;
}

std::vector<SearchDir> decompose_path_list(std::string_view value, PathListKind kind, const DstValues& values) {
  std::vector<SearchDir> out;
  std::string_view separators = kind == PathListKind::ld_library_path ? ":;" : ":";
  std::string whole(value);
  if (kind == PathListKind::ld_library_path) {
    // _dl_init_paths: an empty value means no list; tokens are substituted in
    // the whole string before it is split, and an unknown one empties it.
    if (value.empty()) return out;
    if (count_dst(value) != 0) {
      whole = expand_dst(value, values);
      if (whole.empty()) return out;
    }
  }
  std::size_t start = 0;
  for (std::size_t i = 0; i <= whole.size(); ++i) {
    if (i < whole.size() && separators.find(whole[i]) == std::string_view::npos) continue;
    std::string element = whole.substr(start, i - start);
    start = i + 1;
    std::string dir;
    if (!element.empty()) { // fillin_rpath: strsep may yield "", which stays "" (the cwd)
      dir = expand_dst(element, values);
      if (dir.empty()) continue;
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      if (dir.back() != '/') dir.push_back('/');
    }
    bool duplicate = false;
    for (const auto& d : out) duplicate = duplicate || d.dir == dir;
    if (!duplicate) out.push_back({dir, element});
  }
  return out;
}

bool fits_path_list(std::string_view folder) { return folder.find_first_of(":;") == std::string_view::npos; }

} // namespace condacuda::loader
