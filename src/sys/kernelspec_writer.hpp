#pragma once
// Writes one kernelspec (`condacuda kernel install`) where Jupyter looks,
// outside an env when it is the user's data dir, and so as untrusted ground:
// the nearest folder that exists on the way must belong to the user
// condacuda runs as (root never writes into another user's home); below it
// each folder is created without following a link (sys::PrefixTree), and
// kernel.json is replaced atomically (a temporary renamed over it). A
// kernel.json that is there and that condacuda did not write is never
// replaced; one behind a link, or not a regular file, neither.
//
// `within` (--sys-prefix: the env, untrusted input) confines the kernel
// folder: the ground is `within` itself and no link below it is followed,
// so a share/ or share/jupyter planted as a link out of the env is refused.
// Without it the folders that exist on the way are the user's own, and
// their links are followed as Jupyter follows them (a data dir kept in a
// dotfiles tree).
#include <optional>
#include <string>

#include "util/result.hpp"

namespace condacuda::sys {

// What is at `kernel_dir`/kernel.json now: nullopt when absent. Errors: as
// for writing (a link on the way, another user's folder, not a regular file).
Result<std::optional<std::string>> read_kernelspec_file(const std::string& kernel_dir, const std::string& within = {});

// Writes `text` as `kernel_dir`/kernel.json (absolute), creating folders.
// Errors: conflict (a kernel.json condacuda did not write), io (another
// user's folder, a link on the way, the operating system's refusal).
Status write_kernelspec_file(const std::string& kernel_dir, const std::string& text, const std::string& within = {});

} // namespace condacuda::sys
