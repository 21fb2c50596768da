#include "loader/abi_tag_rule.hpp"

#include <cerrno>
#include <cstdint>

namespace condacuda::loader {

namespace {
constexpr int last_glibc_with_check = 35;
constexpr std::uint64_t max_alloca_cutoff = 65536; // __MAX_ALLOCA_CUTOFF
constexpr std::uint32_t abi_tag_os_linux = 0;      // __ABI_TAG_OS
} // namespace

AbiTagVerdict judge_abi_tag(const elf::AbiTag& tag, const LoaderConfig& config) {
  using Kind = AbiTagVerdict::Kind;
  if (config.glibc_minor > last_glibc_with_check) return {};
  switch (tag.read) {
  case elf::AbiTag::Read::none: return {};
  case elf::AbiTag::Read::found:
    if (tag.os != abi_tag_os_linux || (config.kernel_version != 0 && config.kernel_version < tag.version))
      return {Kind::skip, ENOENT};
    return {};
  case elf::AbiTag::Read::unreadable:
    if (tag.note_size >= max_alloca_cutoff &&
        (tag.note_size > config.commit_limit || tag.note_size > static_cast<std::uint64_t>(PTRDIFF_MAX)))
      return {Kind::unreadable, ENOMEM};
    if (tag.note_offset > static_cast<std::uint64_t>(INT64_MAX)) return {Kind::unreadable, EINVAL};
    return {Kind::unreadable, 0};
  }
  return {};
}

std::uint32_t kernel_version_from_release(std::string_view release) {
  std::uint32_t version = 0;
  int parts = 0;
  std::size_t i = 0;
  auto digit = [&](std::size_t at) { return at < release.size() && release[at] >= '0' && release[at] <= '9'; };
  while (digit(i)) {
    std::uint32_t here = 0;
    while (digit(i)) here = here * 10 + static_cast<std::uint32_t>(release[i++] - '0');
    ++parts;
    version = (version << 8) | here; // as glibc: a part above 255 spills into the next byte
    bool dot = i < release.size() && release[i] == '.';
    ++i;
    if (!dot || parts == 3) break;
  }
  if (parts < 3) version <<= 8 * (3 - parts);
  return version;
}

} // namespace condacuda::loader
