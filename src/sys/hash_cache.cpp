#include "sys/hash_cache.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/mapped_file.hpp"
#include "util/path.hpp"
#include "sys/posix.hpp"
#include "util/strings.hpp"

namespace condacuda::sys {

namespace fs = std::filesystem;

namespace {
bool is_sha256_hex(std::string_view v) {
  return v.size() == 64 && v.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}
constexpr std::size_t cache_limit = 100000; // entries; beyond it only this run's are kept

template <class T>
bool whole_number(std::string_view s, T& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}
} // namespace

const CacheFormat hash_cache_format{"hash cache", "condacuda hash cache 1", is_sha256_hex};

FileKey key_of(const struct stat& st) {
  auto ns = [](const struct timespec& t) { return std::int64_t(t.tv_sec) * 1000000000 + t.tv_nsec; };
  return {std::uint64_t(st.st_dev), std::uint64_t(st.st_ino), std::uint64_t(st.st_size), ns(st.st_mtim), ns(st.st_ctim)};
}

bool has_settled(const FileKey& key) {
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const std::int64_t settled = std::int64_t(now.tv_sec - 1) * 1000000000 + now.tv_nsec;
  return key.ctime_ns < settled && key.mtime_ns < settled;
}

std::string default_hash_cache_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/condacuda/hashes";
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.cache/condacuda/hashes";
  return "";
}

std::string default_cache_path(std::string_view name) {
  std::string hashes = default_hash_cache_path();
  return hashes.empty() ? "" : util::dir_name(hashes) + "/" + std::string(name);
}

void HashCache::load(std::vector<std::string>& warnings) {
  if (path_.empty()) return;
  // Another user's cache, or one others may write, could say anything: it
  // is neither read nor replaced.
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)) {
    warnings.push_back(path_ + ": " + std::string(format_.name) + " ignored: " +
                       (st.st_uid != ::geteuid() ? "owned by another user" : "others may write it"));
    path_.clear();
    return;
  }
  auto text = read_text_file(path_, read_cap::hash_cache);
  if (!text) {
    if (text.error().code != ErrorCode::not_found) {
      warnings.push_back(std::string(format_.name) + " ignored: " + text.error().describe());
      dirty_ = true;
    }
    return;
  }
  std::string_view rest = owned_.emplace_back(std::move(*text));
  bool ok = !rest.empty() && util::next_line(rest) == format_.magic;
  entries_.reserve(static_cast<std::size_t>(std::count(rest.begin(), rest.end(), '\n')) + 1);
  while (ok && !rest.empty()) {
    const std::string_view line = util::next_line(rest);
    ok = line.empty() || parse_line(line);
  }
  if (!ok) {
    warnings.push_back(path_ + ": " + std::string(format_.name) + " is corrupt; ignored and rewritten");
    entries_.clear();
    dirty_ = true;
  }
}

std::optional<std::string> HashCache::find(const std::string& path, const FileKey& key) {
  auto it = entries_.find(path);
  if (it == entries_.end() || !(it->second.key == key)) return std::nullopt;
  it->second.used = true;
  return std::string(it->second.hex);
}

void HashCache::store(const std::string& path, const FileKey& key, const std::string& hex) {
  // Tabs and newlines would break the line format: such paths are not cached.
  if (path.find_first_of("\t\n") != std::string::npos) return;
  auto it = entries_.find(path);
  if (it != entries_.end() && it->second.key == key && it->second.hex == hex) {
    it->second.used = true; // already recorded: the file need not be rewritten
    return;
  }
  if (it != entries_.end()) it->second = Entry{key, own(hex), true};
  else entries_.emplace(own(path), Entry{key, own(hex), true});
  dirty_ = true;
}

void HashCache::save(std::vector<std::string>& warnings) const {
  if (path_.empty() || !dirty_) return;
  bool trim = entries_.size() > cache_limit;
  std::vector<const std::pair<const std::string_view, Entry>*> sorted; // by path: the same file for the same entries
  sorted.reserve(entries_.size());
  for (const auto& entry : entries_) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  std::string out = std::string(format_.magic) + "\n";
  for (const auto* entry : sorted) {
    const auto& [path, e] = *entry;
    if (trim && !e.used) continue;
    (out += e.hex) += "\t";
    out += std::to_string(e.key.dev) + "\t" + std::to_string(e.key.ino) + "\t" + std::to_string(e.key.size) + "\t" +
           std::to_string(e.key.mtime_ns) + "\t" + std::to_string(e.key.ctime_ns) + "\t";
    (out += path) += "\n";
  }
  std::error_code ec;
  fs::create_directories(fs::path(path_).parent_path(), ec);
  if (auto status = write_file_atomically(path_, out, 0644, Durability::cache); !status)
    warnings.push_back(std::string(format_.name) + " not saved: " + status.error().describe());
}

bool HashCache::parse_line(std::string_view line) {
  std::string_view f[7];
  for (std::size_t i = 0; i < 6; ++i) {
    const auto tab = line.find('\t');
    if (tab == std::string_view::npos) return false;
    f[i] = line.substr(0, tab);
    line.remove_prefix(tab + 1);
  }
  f[6] = line;
  if (f[6].find('\t') != std::string_view::npos || !format_.valid(f[0])) return false;
  FileKey k;
  if (!whole_number(f[1], k.dev) || !whole_number(f[2], k.ino) || !whole_number(f[3], k.size) ||
      !whole_number(f[4], k.mtime_ns) || !whole_number(f[5], k.ctime_ns) || f[6].empty())
    return false;
  entries_[f[6]] = Entry{k, f[0], false};
  return true;
}

} // namespace condacuda::sys
