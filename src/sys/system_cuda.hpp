#pragma once
// The CUDA library folders a machine has outside any env — what a user or an
// HPC module typically puts on LD_LIBRARY_PATH: /usr/local/cuda*/lib64,
// /usr/local/cuda*/lib, /usr/local/cuda*/targets/*/lib, the NVIDIA HPC SDK's
// math_libs and cuda folders, and CUDA folders named in /etc/ld.so.conf.d.
// repair verifies its plan against them ("system CUDA first").
#include <optional>
#include <string>
#include <vector>

#include "sys/hash_cache.hpp"

namespace condacuda::sys {

// Whether a folder holds a CUDA library, remembered by the folder's identity
// (device, inode, size, mtime and ctime in nanoseconds): a name added,
// removed or renamed in a folder changes its mtime and ctime, and the verdict
// depends on the names alone. /usr/lib/x86_64-linux-gnu has over a thousand,
// and listing them was a twentieth of a repeated doctor run. Kept in
// $XDG_CACHE_HOME/condacuda/system-folders, beside the load checks, with the
// same rules: a folder changed less than a second ago is not kept; a cache
// another user owns, or others may write, is ignored, and a damaged one is
// rewritten; a miss, never a verdict.
class FolderVerdicts {
public:
  explicit FolderVerdicts(std::string path); // "": nothing read or kept (--no-cache)
  static std::string default_path();         // "" when there is no cache folder
  void load(std::vector<std::string>& warnings);
  void save(std::vector<std::string>& warnings) const;

  std::optional<bool> holds_cuda(const std::string& folder, const FileKey& key);
  void remember(const std::string& folder, const FileKey& key, bool holds_cuda);

private:
  HashCache cache_;
};

// Folders that hold at least one NVIDIA CUDA library, in a stable order,
// without two spellings of the same folder. `root` prefixes every path (tests).
// With `verdicts`, a folder unchanged since a run that listed it is not listed again.
std::vector<std::string> system_cuda_dirs(const std::string& root = "", FolderVerdicts* verdicts = nullptr);

// Entries of LD_LIBRARY_PATH that hold the CUDA toolkit's stub libcuda.so:
// a libcuda.so in a folder named "stubs", or one with no libcuda.so.1 beside
// it (the driver installs both names; the toolkit ships only the stub,
// whose soname is libcuda.so.1 too).
std::vector<std::string> stub_folders(const std::optional<std::string>& ld_library_path);

} // namespace condacuda::sys
