#pragma once
// The CUDA fat binaries embedded in an ELF file (a CUDA library, a PyTorch
// extension): which GPU code it carries, read from the headers only, never
// decompressing a payload. Pure: bytes in, a summary out, every size, count
// and offset checked through ByteReader (a damaged fatbin is a problem in the
// summary, never a crash or a read past the file).
//
// Layout (docs/fatbin.md): the section `.nv_fatbin`, found through the
// section header table, holds containers one after another, each 8-aligned:
//   container header (16 bytes): u32 magic 0xBA55ED50, u16 version 1,
//     u16 header size (16), u64 size of the entries that follow;
//   entry header (64 bytes or more, header size in the entry): u16 kind
//     (1 PTX, 2 SASS cubin), u16, u32 header size, u64 payload size,
//     u32 compressed size, u32 options offset, u16 minor, u16 major (the PTX
//     ISA for PTX, the cubin ABI for SASS), u32 architecture (80 = sm_80),
//     u32 name offset, u32 name length, u64 flags, u64, u64 uncompressed size.
// Flags seen in NVIDIA's output: 0x1 64-bit, 0x10 Linux host, 0x2000 or
// 0x8000 compressed, 0x100000 arch-specific (sm_90a), 0x200000 family
// (sm_100f).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "elf/byte_reader.hpp"

namespace condacuda::elf {

enum class FatbinCodeKind { ptx, sass };

struct FatbinEntry {
  FatbinCodeKind kind = FatbinCodeKind::sass;
  std::uint32_t arch = 0;           // 80 for sm_80 / compute_80
  bool arch_specific = false;       // sm_90a: runs only on exactly that architecture
  bool family = false;              // sm_100f: runs on the family
  bool compressed = false;
  std::uint16_t version_major = 0;  // PTX: the PTX ISA (9.0 for CUDA 13.0); SASS: the cubin ABI
  std::uint16_t version_minor = 0;
  std::uint64_t payload_size = 0;
  std::uint64_t uncompressed_size = 0; // when compressed and recorded, else 0

  bool operator==(const FatbinEntry&) const = default;
};

// NVIDIA's spelling: "sm_80", "sm_90a", "sm_100f" for SASS, "compute_75",
// "compute_100a" for PTX.
std::string target_name(const FatbinEntry& entry);

struct FatbinSummary {
  bool has_section = false;           // the file has a .nv_fatbin section
  std::uint32_t containers = 0;
  std::vector<FatbinEntry> entries;   // in file order
  std::vector<std::string> problems;  // what was damaged, where (section-relative offsets)

  // The distinct targets, sorted by architecture then name: SASS and PTX apart.
  std::vector<std::string> sass_targets() const;
  std::vector<std::string> ptx_targets() const;
};

// Reads the fatbins of an ELF64 little-endian file (`file` is the whole file).
// A file without section headers or without .nv_fatbin gives has_section ==
// false; not ELF64 LE gives nullopt.
std::optional<FatbinSummary> read_fatbins(const ByteReader& file);

// The same on the bytes of a .nv_fatbin section alone (tests, fuzzing).
FatbinSummary read_fatbin_section(const ByteReader& section);

} // namespace condacuda::elf
