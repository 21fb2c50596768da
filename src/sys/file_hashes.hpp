#pragma once
// SHA-256 of an env's files for `condacuda lock`, several at once, through
// the persistent hash cache (sys/hash_cache.hpp).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace condacuda::sys {

struct HashStats {
  std::size_t files = 0, from_cache = 0, hashed = 0;
  std::uint64_t bytes_hashed = 0;
  double seconds = 0;
};

struct HashedFiles {
  std::map<std::string, std::string> sha256_by_file; // prefix-relative -> lower-case hex
  std::vector<std::string> warnings; // unreadable files, a corrupt or unwritable cache
  HashStats stats;
};

// SHA-256 of each file (relative to `prefix`; symlinks followed), several at
// once. With a cache path, a file whose (path, device, inode, size, mtime,
// ctime) is in the cache is not read again; the cache is then rewritten
// atomically if anything changed. A corrupt or unreadable cache is ignored
// with a warning (and replaced); a file that cannot be read is left out of
// the result with a warning.
HashedFiles hash_files(const std::string& prefix, const std::vector<std::string>& files, const std::string& cache_path);

} // namespace condacuda::sys
