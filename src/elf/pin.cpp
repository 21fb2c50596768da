#include "elf/pin.hpp"

namespace condacuda::elf {

std::vector<std::uint64_t> runpath_tag_offsets(const ElfObject& object) {
  return object.dynamic_entry_offsets(runpath_tag);
}

std::optional<std::string> pin_refusal(const ElfObject& object) {
  const auto runpaths = object.dynamic_entry_offsets(runpath_tag);
  const auto rpaths = object.dynamic_entry_offsets(rpath_tag);
  if (runpaths.empty() || rpaths.empty() || rpaths.back() < runpaths.back()) return std::nullopt;
  return "it has a DT_RPATH entry ('" + std::string(object.dynamic().rpath.value_or("")) +
         "', dormant beside its DT_RUNPATH) after its last DT_RUNPATH: once flipped, ld.so would keep that one, "
         "the last DT_RPATH it reads, and not the pinned search path";
}

std::string tag_bytes(std::int64_t tag) {
  std::string out(8, '\0');
  auto v = static_cast<std::uint64_t>(tag);
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

Result<std::string> retag(std::string_view bytes, const std::vector<std::uint64_t>& offsets, std::int64_t from,
                          std::int64_t to) {
  std::string out(bytes);
  const std::string was = tag_bytes(from), now = tag_bytes(to);
  for (std::uint64_t at : offsets) {
    if (at > out.size() || out.size() - at < 8)
      return make_error(ErrorCode::corrupt, "dynamic entry at offset " + std::to_string(at) + " is past the end of the file");
    if (out.compare(at, 8, was) != 0)
      return make_error(ErrorCode::corrupt, "the dynamic entry at offset " + std::to_string(at) + " is not tag " +
                                                std::to_string(from) + " (the file changed)");
    out.replace(at, 8, now);
  }
  return out;
}

} // namespace condacuda::elf
