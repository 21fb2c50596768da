#pragma once
// The GPU code of a file on disk: mapped read-only, its fatbin headers read
// (elf/fatbin.hpp: the payloads are never touched, so only their pages' worth
// of headers is read from disk).
#include <optional>
#include <string>
#include <vector>

#include "elf/fatbin.hpp"
#include "inventory/inventory.hpp"
#include "sys/hash_cache.hpp"

namespace condacuda::sys {

// nullopt when the file cannot be mapped, is not ELF64, or has no .nv_fatbin.
std::optional<inventory::GpuCode> read_gpu_code(const std::string& path);

// Fills gpu_code of every library and consumer of `inv` (files under `prefix`).
void add_gpu_code(inventory::Inventory& inv, const std::string& prefix);

// The fatbin targets of files, for the coverage rules (doctor --gpu): read
// once per file version and kept in $XDG_CACHE_HOME/condacuda/fatbins (by
// device, inode, size, mtime and ctime, like the hash cache): the entry
// headers lie scattered through hundreds of MB of a CUDA library, and reading
// them costs a page fault each. Only what the rules need is kept: each
// distinct (kind, architecture, a/f, PTX ISA). A damaged fatbin is not
// cached.
class FatbinCache {
public:
  // `path` "" : no cache, every file read.
  explicit FatbinCache(std::string path);
  static std::string default_path();
  void load(std::vector<std::string>& warnings);
  // nullopt: the file cannot be mapped, is not ELF64, or has no .nv_fatbin.
  std::optional<elf::FatbinSummary> summary(const std::string& path);
  void save(std::vector<std::string>& warnings) const;

private:
  HashCache cache_;
};

} // namespace condacuda::sys
