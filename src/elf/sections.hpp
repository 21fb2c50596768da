#pragma once
// A section found by name through the section header table: what the
// loader never reads, but tools do (.nv_fatbin for GPU code, .rodata for
// glibc's banner). Stripped files keep their section headers; a file
// without them has no sections here.
#include <optional>
#include <string_view>

#include "elf/byte_reader.hpp"

namespace condacuda::elf {

struct FoundSection {
  bool named = false;                // a section header has the name
  std::optional<ByteReader> bytes;   // its contents; nullopt when they lie outside the file or take no space (SHT_NOBITS)
};

// The first section called `name` of a 64-bit little-endian ELF file; every
// header and the name table read bounds-checked, a damaged table meaning
// "not found".
FoundSection find_section(const ByteReader& file, std::string_view name);

} // namespace condacuda::elf
