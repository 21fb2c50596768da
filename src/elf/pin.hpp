#pragma once
// Pinning a library's search path: its DT_RUNPATH entries become DT_RPATH
// (tag 29 -> 15, the same string, changed in place in the dynamic section).
// ld.so searches DT_RPATH before LD_LIBRARY_PATH and DT_RUNPATH after it
// (elf/dl-load.c _dl_map_object; docs/loader-model.md §2.3), so a pinned
// library finds the env's copies whatever LD_LIBRARY_PATH holds. Pure: bytes
// in, bytes (or the edits to make) out.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "elf/elf_object.hpp"
#include "util/result.hpp"

namespace condacuda::elf {

inline constexpr std::int64_t runpath_tag = 29; // DT_RUNPATH
inline constexpr std::int64_t rpath_tag = 15;   // DT_RPATH

// The file offsets of the DT_RUNPATH entries' tags (empty: nothing to pin).
std::vector<std::uint64_t> runpath_tag_offsets(const ElfObject& object);

// Why flipping the DT_RUNPATH entries would not leave the library the search
// path it has now (nullopt: it would). ld.so keeps the last entry of each tag
// it reads and ignores DT_RPATH while a DT_RUNPATH is present (glibc
// elf/get-dynamic-info.h, _dl_get_dynamic_info: info[tag] = entry, entry by
// entry; then "If both RUNPATH and RPATH are given, the latter is ignored").
// Once flipped, every entry is DT_RPATH, so a DT_RPATH after the last
// DT_RUNPATH, dormant until then, would be the one ld.so keeps.
std::optional<std::string> pin_refusal(const ElfObject& object);

// The 8 little-endian bytes of a 64-bit d_tag.
std::string tag_bytes(std::int64_t tag);

// `bytes` with the d_tag at each offset changed from `from` to `to`. Errors:
// an offset out of range, or a tag there that is not `from` (the file is not
// the one the edit was planned for).
Result<std::string> retag(std::string_view bytes, const std::vector<std::uint64_t>& offsets, std::int64_t from,
                          std::int64_t to);

} // namespace condacuda::elf
