#pragma once
// What ld.so would meet mapping, relocating and initialising each file
// (elf/load_checks.hpp), computed once per file version: on every core the
// first time, then kept in $XDG_CACHE_HOME/condacuda/load-checks by device,
// inode, size, mtime and ctime, like the hash cache. A CUDA env holds over a
// million relocations; walking them is most of a first doctor run, and none
// of it depends on anything but the file's bytes and the loader's release,
// page size, commit limit and machine, which each entry records too (other
// values are a miss). A damaged cache file, or one another user owns or others
// can write, is ignored: a miss, never a verdict.
#include <optional>
#include <string>
#include <vector>

#include "elf/load_checks.hpp"
#include "loader/config.hpp"
#include "sys/disk_file_view.hpp"
#include "sys/hash_cache.hpp"

namespace condacuda::sys {

class LoadCheckCache final : public LoadCheckSource {
public:
  // `path` "" : no cache (--no-cache), every file checked. `config`: the
  // loader the checks are for.
  LoadCheckCache(std::string path, const loader::LoaderConfig& config);
  // $XDG_CACHE_HOME/condacuda/load-checks, beside the hash cache; "" when there is no cache folder.
  static std::string default_path();
  void load(std::vector<std::string>& warnings);

  // The recorded check of `path` when the file is unchanged (DiskFileView asks).
  std::optional<elf::LoadCheck> find(const std::string& path, const FileKey& key) override;

  // Fills the load check of every path in `paths` that opens as an ELF
  // object, in `files`: from the cache when the file is unchanged, else
  // computed, the files spread over the CPUs this process may use, the
  // largest first.
  void prepare(DiskFileView& files, const std::vector<std::string>& paths);

  // Records every check `files` holds (those the simulations computed, for
  // the system's libraries, included), then rewrites the cache file.
  void save(const DiskFileView& files, std::vector<std::string>& warnings);

private:
  HashCache cache_;
  loader::LoaderConfig config_;
  std::string params_;
};

} // namespace condacuda::sys
