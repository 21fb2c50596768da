#pragma once
// Pinning a library's search path: its DT_RUNPATH entries become DT_RPATH
// (tag 29 -> 15, the same string, changed in place in the dynamic section).
// ld.so searches DT_RPATH before LD_LIBRARY_PATH and DT_RUNPATH after it
// (elf/dl-load.c _dl_map_object; docs/loader-model.md §2.3), so a pinned
// library finds the env's copies whatever LD_LIBRARY_PATH holds. Pure: bytes
// in, bytes (or the edits to make, or their digests) out. A library is never
// needed whole in memory: the edit is a few 8-byte patches, and its digests
// come from the file's bytes fed in pieces.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "elf/elf_object.hpp"
#include "util/result.hpp"
#include "util/sha256.hpp"

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

// The d_tags at `offsets` changed from `from` to `to` (pinning: runpath_tag
// to rpath_tag; undoing a pin: the reverse). No offsets: no change.
struct TagEdit {
  std::vector<std::uint64_t> offsets;
  std::int64_t from = 0, to = 0;
};
inline TagEdit pin_edit(std::vector<std::uint64_t> offsets) { return {std::move(offsets), runpath_tag, rpath_tag}; }
inline TagEdit unpin_edit(std::vector<std::uint64_t> offsets) { return {std::move(offsets), rpath_tag, runpath_tag}; }

// Bytes to write at a file offset.
struct BytePatch {
  std::uint64_t offset = 0;
  std::string bytes;
  bool operator==(const BytePatch&) const = default;
};

// The patches that make `edit` in `bytes` (reading only the 8 bytes at each
// offset). Errors: an offset out of range, or a tag there that is not
// edit.from (the file is not the one the edit was planned for), an offset
// given twice.
Result<std::vector<BytePatch>> retag_patches(std::string_view bytes, const TagEdit& edit);
// `bytes` with `patches` written over them; an error when one is out of range.
Result<std::string> apply_patches(std::string_view bytes, const std::vector<BytePatch>& patches);

// `bytes` with the d_tag at each offset changed from `from` to `to`: retag_patches, then apply_patches.
Result<std::string> retag(std::string_view bytes, const std::vector<std::uint64_t>& offsets, std::int64_t from,
                          std::int64_t to);

// SHA-256 of a file whose bytes are fed in order, in pieces of any size, and
// of the same file with `edit` made: what sha256(retag(file, edit)) gives, or
// "" where retag fails. The two digests share the bytes before the first
// offset, hashed once (a library's dynamic section is usually near its end).
class RetagHasher {
public:
  explicit RetagHasher(TagEdit edit);
  void update(std::string_view piece);
  struct Digests {
    std::string sha256;          // of the bytes fed
    std::string retagged_sha256; // of them with the edit made; "" when it cannot be
  };
  // Ends the message: the digests (lower-case hex).
  Digests finish();

private:
  std::vector<std::uint64_t> offsets_; // sorted
  std::string was_, now_;
  util::Sha256 plain_;
  std::optional<util::Sha256> edited_; // from the first offset on
  std::uint64_t fed_ = 0;
  bool broken_ = false; // a tag that is not `was_`, or offsets that overlap
};

} // namespace condacuda::elf
