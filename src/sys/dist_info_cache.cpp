#include "sys/dist_info_cache.hpp"

namespace condacuda::sys {

namespace {
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1; // lowercase too is refused: encode writes uppercase only
}

// The character an escape at value[i] ('%' and two hex digits) stands for;
// 0 when it is no escape encode_cache_text writes.
char escaped_at(std::string_view value, std::size_t i) {
  if (value.size() - i < 3) return 0;
  const int high = hex_digit(value[i + 1]), low = hex_digit(value[i + 2]);
  if (high < 0 || low < 0) return 0;
  const char c = static_cast<char>(high * 16 + low);
  return c == '%' || c == '\t' || c == '\r' || c == '\n' ? c : 0;
}

} // namespace

// Checked for every value as the cache loads: no copy is made.
bool valid_cache_text(std::string_view value) {
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '\t' || value[i] == '\r' || value[i] == '\n') return false;
    if (value[i] == '%') {
      if (!escaped_at(value, i)) return false;
      i += 2;
    }
  }
  return true;
}

namespace {

// The RECORD lines kept are those of shared libraries (sys/env_scan.cpp): a
// change of that rule, or of what is kept, needs a new format line.
const CacheFormat dist_info_format{"dist-info cache", "condacuda dist-info cache 1", valid_cache_text};
} // namespace

std::string encode_cache_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '%': out += "%25"; break;
    case '\t': out += "%09"; break;
    case '\r': out += "%0D"; break;
    case '\n': out += "%0A"; break;
    default: out += c;
    }
  }
  return out;
}

std::optional<std::string> decode_cache_text(std::string_view value) {
  if (!valid_cache_text(value)) return std::nullopt;
  std::string out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] != '%') {
      out += value[i];
      continue;
    }
    out += escaped_at(value, i);
    i += 2;
  }
  return out;
}

DistInfoCache::DistInfoCache(std::string path) : cache_(std::move(path), dist_info_format) {}

std::string DistInfoCache::default_path() { return default_cache_path("dist-info"); }

void DistInfoCache::load(std::vector<std::string>& warnings) { cache_.load(warnings); }

void DistInfoCache::save(std::vector<std::string>& warnings) const { cache_.save(warnings); }

std::optional<std::string> DistInfoCache::find(const std::string& path, const FileKey& key) {
  auto hit = cache_.find(path, key);
  if (!hit) return std::nullopt;
  return decode_cache_text(*hit); // valid: load checked every value
}

void DistInfoCache::remember(const std::string& path, const FileKey& key, std::string_view text) {
  if (has_settled(key)) cache_.store(path, key, encode_cache_text(text));
}

} // namespace condacuda::sys
