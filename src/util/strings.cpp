#include "util/strings.hpp"

#include <algorithm>
#include <cctype>

namespace condacuda::util {

std::vector<std::string> split(std::string_view s, std::string_view separators) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || separators.find(s[i]) != std::string_view::npos) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

std::string_view trim(std::string_view s) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view next_line(std::string_view& text) {
  const auto nl = text.find('\n');
  const std::string_view line = text.substr(0, nl);
  text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  return line;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

int compare_versions(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && is_digit(a[i]) && is_digit(b[j])) {
      std::size_t si = i, sj = j;
      while (si < a.size() && a[si] == '0') ++si;
      while (sj < b.size() && b[sj] == '0') ++sj;
      std::size_t ei = si, ej = sj;
      while (ei < a.size() && is_digit(a[ei])) ++ei;
      while (ej < b.size() && is_digit(b[ej])) ++ej;
      if (ei - si != ej - sj) return ei - si < ej - sj ? -1 : 1;
      int c = a.substr(si, ei - si).compare(b.substr(sj, ej - sj));
      if (c) return c < 0 ? -1 : 1;
      i = ei;
      j = ej;
      continue;
    }
    if (i >= a.size()) return -1;
    if (j >= b.size()) return 1;
    if (a[i] != b[j]) return a[i] < b[j] ? -1 : 1;
    ++i;
    ++j;
  }
  return 0;
}

int leading_number(std::string_view s) {
  int n = 0;
  std::size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && n < 100000000) n = n * 10 + (s[i++] - '0');
  return i == 0 ? -1 : n;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  if (from.empty()) return s;
  std::size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
  return s;
}

bool is_confined_relative_path(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.find('\0') != std::string_view::npos) return false;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

std::size_t utf8_sequence_length(std::string_view s, std::size_t pos) {
  auto byte = [&](std::size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0u; };
  const unsigned c = byte(pos);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xbf; // allowed range of the second byte (RFC 3629 table)
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
  else return 0;
  if (byte(pos + 1) < lo || byte(pos + 1) > hi) return 0;
  for (std::size_t i = 2; i < n; ++i)
    if (byte(pos + i) < 0x80 || byte(pos + i) > 0xbf) return 0;
  return n;
}

bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

bool is_plain_text(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0 || c < 0x20 || c == 0x7f) return false;
    if (n == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0) return false; // C1 controls
    i += n;
  }
  return true;
}

std::string terminal_safe(std::string_view text, const std::vector<std::string_view>& keep) {
  std::string out;
  out.reserve(text.size());
  auto escape = [&](unsigned char c) {
    static const char hex[] = "0123456789abcdef";
    out += "\\x";
    out.push_back(hex[c >> 4]);
    out.push_back(hex[c & 15]);
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b) {
      auto kept = std::find_if(keep.begin(), keep.end(), [&](std::string_view k) { return text.substr(i, k.size()) == k; });
      if (kept != keep.end()) {
        out += *kept;
        i += kept->size();
        continue;
      }
    }
    std::size_t n = utf8_sequence_length(text, i);
    bool control = c < 0x20 ? (c != '\n' && c != '\t') : c == 0x7f;
    bool c1 = n == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0; // U+0080-U+009F
    if (n == 0 || control || c1) {
      escape(c);
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

namespace {
// Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a substring).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}
} // namespace

std::optional<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string w = to_lower(word);
  std::optional<std::string> best;
  std::size_t best_distance = 3;
  for (const auto& c : candidates) {
    const std::size_t distance = edit_distance(w, to_lower(c));
    if (distance == 0) return std::nullopt;
    if (distance < best_distance && 2 * distance < w.size()) best = c, best_distance = distance;
  }
  return best;
}

std::string quote_posix(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  out += '\'';
  return out;
}

std::string shell_word(std::string_view s) {
  const bool bare = !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("@%+=:,./_-").find(static_cast<char>(c)) != std::string_view::npos;
  });
  return bare ? std::string(s) : quote_posix(s);
}

} // namespace condacuda::util
