#include "elf/abi_tag.hpp"

#include <cstring>

#include "elf/byte_reader.hpp"
#include "elf/elf_constants.hpp"

namespace condacuda::elf {

namespace {
constexpr std::uint64_t phdr_size = 56;
constexpr std::uint64_t min_note = 32;      // the header, "GNU\0" and four words
constexpr std::uint64_t filebuf_size = 832; // struct filebuf's buffer on 64-bit (elf/dl-load.c)
constexpr std::uint64_t header_page = 4096;  // read for the header anyway
constexpr std::uint64_t most_copied = 1024;  // a larger note segment is read in the map
// {n_namesz 4, n_descsz 16, n_type NT_GNU_ABI_TAG 1, "GNU"}.
constexpr unsigned char expected_note[16] = {4, 0, 0, 0, 16, 0, 0, 0, 1, 0, 0, 0, 'G', 'N', 'U', 0};

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) & ~(a - 1); }

// The note walk of open_verify over one PT_NOTE's bytes: skip notes until the
// expected header, giving up once fewer than 32 bytes would remain.
AbiTag scan_notes(const ByteReader& note, std::uint64_t align) {
  std::uint64_t pos = 0, size = note.size();
  while (std::memcmp(note.span().data() + pos, expected_note, sizeof expected_note) != 0) {
    std::uint64_t desc = align_up(12 + std::uint64_t{*note.u32(pos)}, align);
    std::uint64_t next = align_up(desc + *note.u32(pos + 4), align);
    if (size - min_note < next) return {};
    size -= next;
    pos += next;
  }
  AbiTag tag;
  tag.read = AbiTag::Read::found;
  tag.os = *note.u32(pos + 16);
  tag.version = ((*note.u32(pos + 20) & 0xff) << 16) | ((*note.u32(pos + 24) & 0xff) << 8) | (*note.u32(pos + 28) & 0xff);
  return tag;
}
} // namespace

AbiTag read_abi_tag(std::span<const std::byte> file, std::uint64_t phoff, std::uint16_t phnum, const TableSource* copies) {
  return read_abi_tag(ByteReader(file), phoff, phnum, copies);
}

AbiTag read_abi_tag(const ByteReader& r, std::uint64_t phoff, std::uint16_t phnum, const TableSource* copies) {
  const std::uint64_t buffered = r.size() < filebuf_size ? r.size() : filebuf_size;
  for (std::uint16_t i = 0; i < phnum; ++i) {
    std::uint64_t p = phoff + i * phdr_size;
    if (!r.has(p, phdr_size)) return {};
    std::uint64_t offset = *r.u64(p + 8), size = *r.u64(p + 32), align = *r.u64(p + 48);
    if (*r.u32(p) != pt_note || size < min_note || (align != 4 && align != 8)) continue;
    std::uint64_t end = offset + size; // wraps as ElfW(Addr) does
    if (end < offset) {
      // The loader's test `p_offset + size <= fbp->len` wraps and it reads
      // stack memory below its buffer: taken as holding no note (the model
      // cannot know that memory).
      if (end <= buffered) continue;
    }
    if (!r.has(offset, size)) {
      AbiTag tag;
      tag.read = AbiTag::Read::unreadable;
      tag.note_offset = offset;
      tag.note_size = size;
      return tag;
    }
    // The same bytes either way: copied when they lie past the header's page.
    std::byte copy[most_copied];
    const bool copied = copies && offset + size > header_page && size <= most_copied &&
                        copies->copy(offset, std::span<std::byte>(copy, size));
    AbiTag tag = scan_notes(copied ? ByteReader(copy, size) : *r.sub(offset, size), align);
    if (tag.read == AbiTag::Read::found) return tag;
  }
  return {};
}

} // namespace condacuda::elf
