#pragma once
// The system side of `condacuda lock`: the driver version the kernel module
// reports, file hashes through a persistent cache, atomic writes.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "env/discovery.hpp"
#include "lock/driver.hpp"
#include "lock/lockfile.hpp"
#include "util/result.hpp"

namespace condacuda::sys {

// The NVIDIA kernel module's version from /proc/driver/nvidia/version;
// nullopt when there is no driver (the file is absent) or it cannot be read.
std::optional<lock::DriverVersion> read_driver_version(const std::string& path = "/proc/driver/nvidia/version");

// $XDG_CACHE_HOME/condacuda/hashes (XDG_CACHE_HOME must be absolute), else
// $HOME/.cache/condacuda/hashes, else "" (no cache).
std::string default_hash_cache_path();

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

// Writes `content` to `path` atomically: a temporary file next to it, fsync,
// rename over. Nothing is left behind on failure.
Status write_file_atomically(const std::string& path, std::string_view content);

// Everything `condacuda lock` and `lock --check` need, gathered: the env's
// inventory (scan), the alignment verdict (symbols through the process file
// view), the file hashes (through the cache), the lock value.
struct LockRequest {
  env::EnvRecord env;
  const lock::ReleaseTable* table = nullptr;
  std::optional<std::optional<lock::DriverVersion>> driver; // set: given (--driver; inner nullopt: none); unset: read it
  std::string hash_cache;                                   // "" for none
};

struct LockedEnv {
  lock::Lockfile lock;
  HashStats stats;
  std::vector<std::string> warnings;  // the scan's and the hashing's
  std::vector<std::string> unhashed;  // libraries whose bytes could not be read (locked without sha256)
};

// Fails only when the env cannot be scanned at all.
Result<LockedEnv> lock_env(const LockRequest& request);

} // namespace condacuda::sys
