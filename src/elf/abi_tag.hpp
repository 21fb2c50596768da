#pragma once
// What open_verify (glibc's elf/dl-load.c, up to 2.35) reads from a file's
// NT_GNU_ABI_TAG note before it accepts the file: the OS and the oldest
// kernel the file was built for. glibc commit b46d250656 ("Remove kernel
// version check", 2.36) took the read out; docs/loader-model.md §2.4.
#include <cstddef>
#include <cstdint>
#include <span>

#include "elf/byte_reader.hpp"

#include "elf/table_source.hpp"

namespace condacuda::elf {

struct AbiTag {
  enum class Read {
    none,       // no PT_NOTE the loader reads holds the note: nothing to check
    found,      // os and version below are the note's
    unreadable, // a PT_NOTE the loader reads lies past the end of the file
  };
  Read read = Read::none;
  std::uint32_t os = 0;      // abi_note[4]; 0 is Linux (__ABI_TAG_OS)
  std::uint32_t version = 0; // 0xMMmmpp from abi_note[5..7], each & 0xff
  // For unreadable: the PT_NOTE's p_offset and p_filesz. Whether the read
  // fails with an errno depends on the machine (an allocation of p_filesz).
  std::uint64_t note_offset = 0;
  std::uint64_t note_size = 0;
};

// The loop of open_verify: every PT_NOTE with p_filesz >= 32 and p_align 4 or
// 8, in program header order; the first that holds the 16-byte header
// {4, 16, NT_GNU_ABI_TAG, "GNU"} decides. `file` is the whole file; the
// program headers must lie inside it (the caller checked, as open_verify's
// earlier read does). `copies` (elf/table_source.hpp), when given, is where
// a note outside the file's first page is read from (a few notes lie
// megabytes into a large library: a page fault each, for 32 bytes).
AbiTag read_abi_tag(std::span<const std::byte> file, std::uint64_t phoff, std::uint16_t phnum,
                    const TableSource* copies = nullptr);
// The same over a reader of the whole file (one with a copy of its head).
AbiTag read_abi_tag(const ByteReader& file, std::uint64_t phoff, std::uint16_t phnum, const TableSource* copies = nullptr);

} // namespace condacuda::elf
