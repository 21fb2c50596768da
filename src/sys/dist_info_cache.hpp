#pragma once
// What the env scan keeps of a wheel's dist-info files between runs: the
// part of METADATA that is parsed (its headers) and the lines of RECORD that
// name shared libraries, remembered by the file's identity (device, inode,
// size, mtime and ctime in nanoseconds). Reading the 19 METADATA and RECORD
// pairs of a CUDA 13 env (280 KiB, 200 KiB of it cccl's header list) was a
// thirteenth of a repeated doctor run; a hit is one stat.
//
// Kept in $XDG_CACHE_HOME/condacuda/dist-info, beside the load checks, with
// their rules: a file changed less than a second ago is not kept; a cache
// another user owns, or others may write, is ignored, and a damaged one is
// rewritten; a bad entry is a miss, and the file is read.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/hash_cache.hpp"

namespace condacuda::sys {

class DistInfoCache {
public:
  explicit DistInfoCache(std::string path); // "": nothing read or kept (--no-cache)
  static std::string default_path();        // "" when there is no cache folder
  void load(std::vector<std::string>& warnings);
  void save(std::vector<std::string>& warnings) const;

  // The text kept for the file at `path` when its key is unchanged.
  std::optional<std::string> find(const std::string& path, const FileKey& key);
  void remember(const std::string& path, const FileKey& key, std::string_view text);

private:
  HashCache cache_;
};

// A cache value holds any text on one field of one line: '%', tab, CR and LF
// as %25, %09, %0D and %0A. decode_cache_text is nullopt for a value no
// encoding gives.
std::string encode_cache_text(std::string_view text);
// Whether `value` is text encode_cache_text writes (checked in place).
bool valid_cache_text(std::string_view value);
std::optional<std::string> decode_cache_text(std::string_view value);

} // namespace condacuda::sys
