#include "elf/sections.hpp"

#include "elf/elf_constants.hpp"

namespace condacuda::elf {

FoundSection find_section(const ByteReader& file, std::string_view name) {
  FoundSection none;
  if (file.size() < 64 || file.u32(0) != 0x464c457fu || file.u8(4) != elfclass64 || file.u8(5) != elfdata2lsb) return none;
  auto shoff = file.u64(0x28);
  auto shentsize = file.u16(0x3a);
  auto shnum = file.u16(0x3c);
  auto shstrndx = file.u16(0x3e);
  if (!shoff || !shentsize || !shnum || !shstrndx || *shoff == 0 || *shnum == 0 || *shentsize < 64 || *shstrndx >= *shnum)
    return none;
  auto header = [&](std::uint32_t i) { return file.sub(*shoff + static_cast<std::uint64_t>(i) * *shentsize, 64); };
  auto strtab = header(*shstrndx);
  if (!strtab) return none;
  auto str_off = strtab->u64(0x18);
  auto str_size = strtab->u64(0x20);
  if (!str_off || !str_size || !file.has(*str_off, *str_size)) return none;
  for (std::uint32_t i = 0; i < *shnum; ++i) {
    auto h = header(i);
    if (!h) return none;
    auto name_at = h->u32(0);
    auto type = h->u32(4);
    auto offset = h->u64(0x18);
    auto size = h->u64(0x20);
    if (!name_at || !type || !offset || !size || *name_at >= *str_size) continue;
    auto section_name = file.cstring(*str_off + *name_at, *str_off + *str_size);
    if (!section_name || *section_name != name) continue;
    constexpr std::uint32_t sht_nobits = 8;
    return {true, *type == sht_nobits ? std::nullopt : file.sub(*offset, *size)};
  }
  return none;
}

} // namespace condacuda::elf
