#pragma once
// The persistent cache of file hashes that makes a second `condacuda lock` of
// a multi-GB env read no library: one line per file, "hex dev ino size mtime
// ctime path", tab-separated, under $XDG_CACHE_HOME/condacuda/hashes.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct stat;

namespace condacuda::sys {

// What says a file is the one hashed before: a file rewritten in place changes
// mtime or size; a file replaced changes inode; cp -p and touch -r can set
// mtime back, but not ctime.
struct FileKey {
  std::uint64_t dev = 0, ino = 0, size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileKey&) const = default;
};
FileKey key_of(const struct stat& st);

// Whether a key can vouch for what it names: timestamps advance by a clock
// tick, not a nanosecond, so a file or folder changed within the last second
// may change again and keep them. Such a key is not kept, as git treats a
// "racily clean" entry.
bool has_settled(const FileKey& key);

// $XDG_CACHE_HOME/condacuda/hashes (XDG_CACHE_HOME must be absolute), else
// $HOME/.cache/condacuda/hashes, else "" (no cache).
std::string default_hash_cache_path();
// Another of condacuda's caches, beside the hash cache: "<that folder>/<name>",
// or "" when there is no cache folder.
std::string default_cache_path(std::string_view name);

// What a cache file holds: its first line, and which values are valid (a
// file that fails either is ignored and rewritten).
struct CacheFormat {
  std::string_view name;  // "hash cache", for messages
  std::string_view magic;
  bool (*valid)(std::string_view value);
};
// SHA-256 digests (64 lowercase hex digits): `condacuda lock`'s.
extern const CacheFormat hash_cache_format;

class HashCache {
public:
  // "" for no cache: nothing is loaded or saved.
  explicit HashCache(std::string path, const CacheFormat& format = hash_cache_format)
      : path_(std::move(path)), format_(format) {}

  // A missing cache is empty; an unreadable or corrupt one is ignored with a
  // warning and replaced on save.
  void load(std::vector<std::string>& warnings);
  // The digest recorded for `path` when its key is unchanged.
  std::optional<std::string> find(const std::string& path, const FileKey& key);
  void store(const std::string& path, const FileKey& key, const std::string& hex);
  // Rewrites the cache atomically (not synced: Durability::cache) when
  // something changed; past 100,000 entries, only those this run used are
  // kept.
  void save(std::vector<std::string>& warnings) const;

private:
  // Paths and values are views into owned_: the text loaded, and each path
  // and value stored (a deque: its strings never move). Loading parses every
  // line in place, with no copy: a doctor run loads three caches, four with
  // --gpu.
  struct Entry {
    FileKey key;
    std::string_view hex;
    bool used = false;
  };
  bool parse_line(std::string_view line);
  std::string_view own(std::string_view text) { return owned_.emplace_back(text); }

  std::string path_;
  CacheFormat format_;
  std::deque<std::string> owned_;
  std::unordered_map<std::string_view, Entry> entries_;
  bool dirty_ = false;
};

} // namespace condacuda::sys
